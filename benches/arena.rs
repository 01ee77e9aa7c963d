//! A tensor buffer from an arena's free list vs from the system allocator.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use donate::{Tensor, TensorArena};

fn alloc(c: &mut Criterion) {
    let mut g = c.benchmark_group("alloc_full");
    g.sample_size(20);
    for (n, name) in [
        (1usize << 10, "4KiB"),
        (1 << 20, "4MiB"),
        (1 << 24, "64MiB"),
    ] {
        g.bench_function(BenchmarkId::new("system", name), |b| {
            b.iter(|| black_box(Tensor::<f32>::full(&[n], 1.0).unwrap()));
        });
        let arena = TensorArena::new(1 << 30);
        g.bench_function(BenchmarkId::new("arena", name), |b| {
            arena.scope(|| b.iter(|| black_box(Tensor::<f32>::full(&[n], 1.0).unwrap())));
        });
    }
    g.finish();
}

criterion_group!(benches, alloc);
criterion_main!(benches);
