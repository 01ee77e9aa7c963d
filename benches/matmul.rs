//! f32 matmul 256³ and 1024³ through the gemm crate. Throughput is reported
//! as "elements" = floating-point operations (2·m·n·k), so criterion's
//! Gelem/s reads as GFLOP/s.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use donate::Tensor;

fn matmul(c: &mut Criterion) {
    let mut g = c.benchmark_group("matmul_f32");
    for n in [256usize, 1024] {
        g.throughput(Throughput::Elements((2 * n * n * n) as u64));
        g.sample_size(if n > 512 { 10 } else { 30 });
        let a =
            Tensor::<f32>::from_vec((0..n * n).map(|i| (i % 13) as f32 * 0.1).collect(), &[n, n])
                .unwrap();
        let b =
            Tensor::<f32>::from_vec((0..n * n).map(|i| (i % 7) as f32 * 0.1).collect(), &[n, n])
                .unwrap();
        g.bench_function(BenchmarkId::from_parameter(n), |bch| {
            bch.iter(|| black_box(a.matmul(&b).unwrap()));
        });
    }
    g.finish();
}

criterion_group!(benches, matmul);
criterion_main!(benches);
