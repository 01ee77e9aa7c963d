//! relu out of place vs in place vs donated, at 4 KiB, 4 MiB and 64 MiB, a
//! chain of 10 relus, and `copy_from_slice` of the same size as the machine's
//! reference bandwidth. Throughput is bytes of tensor data per second.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use donate::{DonateExt, Tensor};

const SIZES: [(usize, &str); 3] = [(1 << 10, "4KiB"), (1 << 20, "4MiB"), (1 << 24, "64MiB")];

fn input(n: usize) -> Tensor<f32> {
    Tensor::from_vec((0..n).map(|i| (i % 17) as f32 - 8.0).collect(), &[n]).unwrap()
}

fn relu(c: &mut Criterion) {
    let mut g = c.benchmark_group("relu");
    for (n, name) in SIZES {
        g.throughput(Throughput::Bytes((n * 4) as u64));
        if n >= 1 << 24 {
            g.sample_size(10);
        } else {
            g.sample_size(30);
        }
        let src: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let mut dst = vec![0.0f32; n];
        g.bench_function(BenchmarkId::new("copy_from_slice", name), |b| {
            b.iter(|| dst.copy_from_slice(black_box(&src)));
        });
        let x = input(n);
        g.bench_function(BenchmarkId::new("out_of_place", name), |b| {
            b.iter(|| black_box(x.relu_ref().unwrap()));
        });
        let mut y = input(n);
        g.bench_function(BenchmarkId::new("in_place", name), |b| {
            b.iter(|| y.relu_inplace().unwrap());
        });
        let mut z = Some(input(n));
        g.bench_function(BenchmarkId::new("donated", name), |b| {
            b.iter(|| z = Some(z.take().unwrap().donate().relu().unwrap()));
        });
    }
    g.finish();
}

fn chain(c: &mut Criterion) {
    let mut g = c.benchmark_group("relu_chain_10");
    for (n, name) in [(1 << 20, "4MiB"), (1 << 24, "64MiB")] {
        g.throughput(Throughput::Bytes((n * 4 * 10) as u64));
        g.sample_size(10);
        let x = input(n);
        g.bench_function(BenchmarkId::new("always_copy", name), |b| {
            b.iter(|| {
                let mut t = x.relu_ref().unwrap();
                for _ in 0..9 {
                    t = t.relu_ref().unwrap();
                }
                black_box(t)
            });
        });
        let mut z = Some(input(n));
        g.bench_function(BenchmarkId::new("donated", name), |b| {
            b.iter(|| {
                let mut t = z.take().unwrap();
                for _ in 0..10 {
                    t = t.relu_donate().unwrap();
                }
                z = Some(t);
            });
        });
    }
    g.finish();
}

/// Where splitting across threads starts to pay: in-place relu at sizes
/// around the grain (`donate::kernels::GRAIN`), on a one-thread pool
/// ("serial": kernels called from a rayon worker keep its pool) and on
/// donate's own pool ("parallel", see `src/kernels/parallel.rs`).
fn grain(c: &mut Criterion) {
    let mut g = c.benchmark_group("grain");
    g.sample_size(30);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    for shift in [14, 15, 16, 17, 18, 20] {
        let n = 1usize << shift;
        g.throughput(Throughput::Bytes((n * 4) as u64));
        let mut t = input(n);
        g.bench_function(BenchmarkId::new("serial", n), |b| {
            one.install(|| b.iter(|| t.relu_inplace().unwrap()));
        });
        g.bench_function(BenchmarkId::new("parallel", n), |b| {
            b.iter(|| t.relu_inplace().unwrap());
        });
    }
    g.finish();
}

criterion_group!(benches, relu, chain, grain);
criterion_main!(benches);
