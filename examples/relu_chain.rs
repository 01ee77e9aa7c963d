//! The first design's first row, measured: a chain of 10 relus over a 1000×1000
//! f32 tensor, always-copy (every intermediate kept, as `let` bindings on
//! borrowed tensors keep them) versus donation (each relu consumes its input).
//! Peak bytes come from the core's allocation statistics.

use std::time::Instant;

use donate::{memory_stats, reset_peak, Tensor};

fn run(label: &str, donate_chain: bool, n: usize) -> (u64, u64, f64) {
    let x = Tensor::<f32>::from_vec((0..n * n).map(|i| (i % 7) as f32 - 3.0).collect(), &[n, n])
        .unwrap();
    let base = memory_stats().live_bytes;
    reset_peak();
    let a0 = memory_stats().allocations;
    let t0 = Instant::now();
    let out = if donate_chain {
        let mut t = x;
        for _ in 0..10 {
            t = t.relu_donate().unwrap();
        }
        t
    } else {
        let mut kept = vec![x];
        for _ in 0..10 {
            let next = kept.last().unwrap().relu_ref().unwrap();
            kept.push(next);
        }
        kept.pop().unwrap()
    };
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let s = memory_stats();
    let _ = (label, out);
    (
        s.peak_bytes - base + (n * n * 4) as u64,
        s.allocations - a0,
        ms,
    )
}

fn main() {
    let n = 1000;
    println!(
        "chain of 10 relus over a {n}x{n} f32 tensor ({} MB input), {} kernels\n",
        n * n * 4 / 1_000_000,
        donate::Isa::active().name()
    );
    println!("| semantics   | peak tensor bytes | fresh buffers | time (ms) |");
    println!("|-------------|-------------------|---------------|-----------|");
    let (pc, ac, tc) = run("always-copy", false, n);
    println!("| always-copy | {pc:>17} | {ac:>13} | {tc:>9.2} |");
    let (pd, ad, td) = run("donation", true, n);
    println!("| donation    | {pd:>17} | {ad:>13} | {td:>9.2} |");
    println!(
        "\nsaved: {:.0}% of peak bytes",
        100.0 * (1.0 - pd as f64 / pc as f64)
    );
}
