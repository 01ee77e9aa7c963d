//! add: out of place, in place and with the left operand donated, at 64 MiB,
//! next to `copy_from_slice` of the same size.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use donate::{DonateExt, Tensor};

fn add(c: &mut Criterion) {
    let mut g = c.benchmark_group("add");
    for (n, name) in [(1usize << 20, "4MiB"), (1 << 24, "64MiB")] {
        g.throughput(Throughput::Bytes((n * 4) as u64));
        g.sample_size(10);
        let src: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let mut dst = vec![0.0f32; n];
        g.bench_function(BenchmarkId::new("copy_from_slice", name), |b| {
            b.iter(|| dst.copy_from_slice(black_box(&src)));
        });
        let a = Tensor::<f32>::full(&[n], 1.0).unwrap();
        let rhs = Tensor::<f32>::full(&[n], 0.0).unwrap();
        g.bench_function(BenchmarkId::new("out_of_place", name), |b| {
            b.iter(|| black_box((&a + &rhs).unwrap()));
        });
        let mut x = Tensor::<f32>::full(&[n], 1.0).unwrap();
        g.bench_function(BenchmarkId::new("in_place", name), |b| {
            b.iter(|| x.add_inplace(&rhs).unwrap());
        });
        let mut z = Some(Tensor::<f32>::full(&[n], 1.0).unwrap());
        g.bench_function(BenchmarkId::new("donated", name), |b| {
            b.iter(|| z = Some((z.take().unwrap().donate() + &rhs).unwrap()));
        });
    }
    g.finish();
}

criterion_group!(benches, add);
criterion_main!(benches);
