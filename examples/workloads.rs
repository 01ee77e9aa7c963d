//! The first design's table of savings, measured with the first design's own
//! accounting: each workload written with `let` bindings.
//!
//! * always-copy borrows (`&a`), so every intermediate lives to the end of
//!   its scope, as the first design counts it;
//! * donation moves (`a.relu()` by value, `y + &x`, `y.conv2d_into(..)`), so
//!   a buffer is reused as soon as its value is dead.
//!
//! Peak bytes come from the core's allocation statistics; the input counts,
//! the weights do not. The workloads and sizes are those of
//! `benches/workloads.py` (same math, not the same random numbers).
//!
//! Run: `cargo run --release --example workloads`

use std::time::Instant;

use donate::ops::conv::batch_norm;
use donate::ops::nn::{layer_norm, softmax};
use donate::{memory_stats, reset_peak, BatchNorm, Operand, Result, Tensor};

type T32 = Tensor<f32>;

/// A deterministic tensor with values in [-scale, scale).
fn seeded(shape: &[usize], seed: u64, scale: f32) -> T32 {
    let n: usize = shape.iter().product();
    let mut s = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    let data = (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        })
        .collect();
    Tensor::from_vec(data, shape).expect("shape fits")
}

// ------------------------------------------------------------- ResNet ---

struct Block {
    w1: T32,
    w2: T32,
    bn: [[T32; 4]; 2],
}

impl Block {
    fn new(c: usize) -> Block {
        let bn = |k: u64| {
            [
                seeded(&[c], k, 0.1),
                (seeded(&[c], k + 1, 0.25) + 0.75f32).expect("scalar add"),
                (seeded(&[c], k + 2, 0.1) + 1.0f32).expect("scalar add"),
                seeded(&[c], k + 3, 0.1),
            ]
        };
        let std = (2.0 / (9 * c) as f32).sqrt() * 1.7;
        Block {
            w1: seeded(&[c, c, 3, 3], 11, std),
            w2: seeded(&[c, c, 3, 3], 12, std),
            bn: [bn(20), bn(30)],
        }
    }

    fn bn(&self, i: usize) -> BatchNorm<'_, f32> {
        let [m, v, g, b] = &self.bn[i];
        BatchNorm {
            mean: m,
            var: v,
            gamma: Some(g),
            beta: Some(b),
            eps: 1e-5,
        }
    }
}

fn resnet_copy(x: &T32, p: &Block) -> Result<T32> {
    let c1 = x.conv2d(&p.w1, None, 1, 1)?;
    let b1 = batch_norm(Operand::Ref(&c1), &p.bn(0))?.0;
    let r1 = b1.relu_ref()?;
    let c2 = r1.conv2d(&p.w2, None, 1, 1)?;
    let b2 = batch_norm(Operand::Ref(&c2), &p.bn(1))?.0;
    let s = (&b2 + x)?;
    s.relu_ref()
}

fn resnet_donate(x: &T32, p: &Block) -> Result<T32> {
    let y = x.conv2d(&p.w1, None, 1, 1)?; // x is still needed: borrowed
    let y = y.batch_norm(&p.bn(0))?.relu()?;
    let y = y.conv2d_into(&p.w2, None, 1, 1)?;
    let y = y.batch_norm(&p.bn(1))?;
    (y + x)?.relu()
}

// -------------------------------------------------------- Transformer ---

struct Layer {
    ln1: [T32; 2],
    ln2: [T32; 2],
    wq: T32,
    bq: T32,
    wk: T32,
    bk: T32,
    wv: T32,
    bv: T32,
    wo: T32,
    bo: T32,
    w1: T32,
    b1: T32,
    w2: T32,
    b2: T32,
    heads: usize,
}

impl Layer {
    fn new(d: usize, f: usize, heads: usize, seed: u64) -> Layer {
        let w = |shape: &[usize], k: u64| seeded(shape, seed * 100 + k, 0.035);
        let g = |k: u64| (seeded(&[d], seed * 100 + k, 0.1) + 1.0f32).expect("scalar add");
        Layer {
            ln1: [g(1), w(&[d], 2)],
            ln2: [g(3), w(&[d], 4)],
            wq: w(&[d, d], 5),
            bq: w(&[d], 6),
            wk: w(&[d, d], 7),
            bk: w(&[d], 8),
            wv: w(&[d, d], 9),
            bv: w(&[d], 10),
            wo: w(&[d, d], 11),
            bo: w(&[d], 12),
            w1: w(&[d, f], 13),
            b1: w(&[f], 14),
            w2: w(&[f, d], 15),
            b2: w(&[d], 16),
            heads,
        }
    }
}

fn heads_split(t: &T32, b: usize, s: usize, h: usize, perm: &[isize]) -> Result<T32> {
    let dh = t.shape()[2] / h;
    t.reshape(&[b, s, h, dh])?.permute(perm)
}

/// Every intermediate bound with `let` and borrowed: all live until the
/// function returns.
fn encoder_copy(x: &T32, p: &Layer) -> Result<T32> {
    let (b, s, d) = (x.shape()[0], x.shape()[1], x.shape()[2]);
    let h = p.heads;
    let ln1 = layer_norm(Operand::Ref(x), Some(&p.ln1[0]), Some(&p.ln1[1]), 1e-5)?.0;
    let q0 = ln1.matmul(&p.wq)?;
    let q1 = (&q0 + &p.bq)?;
    let q = heads_split(&q1, b, s, h, &[0, 2, 1, 3])?;
    let k0 = ln1.matmul(&p.wk)?;
    let k1 = (&k0 + &p.bk)?;
    let k = heads_split(&k1, b, s, h, &[0, 2, 3, 1])?;
    let v0 = ln1.matmul(&p.wv)?;
    let v1 = (&v0 + &p.bv)?;
    let v = heads_split(&v1, b, s, h, &[0, 2, 1, 3])?;
    let scores = q.matmul(&k)?;
    let scaled = (&scores * (1.0 / ((d / h) as f32).sqrt()))?;
    let attn = softmax(Operand::Ref(&scaled), -1)?.0;
    let ctx = attn.matmul(&v)?;
    let ctx2 = ctx.permute(&[0, 2, 1, 3])?.reshape(&[b, s, d])?;
    let o0 = ctx2.matmul(&p.wo)?;
    let o1 = (&o0 + &p.bo)?;
    let x1 = (x + &o1)?;
    let ln2 = layer_norm(Operand::Ref(&x1), Some(&p.ln2[0]), Some(&p.ln2[1]), 1e-5)?.0;
    let f0 = ln2.matmul(&p.w1)?;
    let f1 = (&f0 + &p.b1)?;
    let f2 = f1.gelu_ref()?;
    let f3 = f2.matmul(&p.w2)?;
    let f4 = (&f3 + &p.b2)?;
    &x1 + &f4
}

/// The same with moves: each value is consumed by its last use.
fn encoder_donate(x: T32, p: &Layer) -> Result<T32> {
    let (b, s, d) = (x.shape()[0], x.shape()[1], x.shape()[2]);
    let h = p.heads;
    let ln1 = layer_norm(Operand::Ref(&x), Some(&p.ln1[0]), Some(&p.ln1[1]), 1e-5)?.0;
    let q = heads_split(&(ln1.matmul(&p.wq)? + &p.bq)?, b, s, h, &[0, 2, 1, 3])?;
    let k = heads_split(&(ln1.matmul(&p.wk)? + &p.bk)?, b, s, h, &[0, 2, 3, 1])?;
    let v = heads_split(&(ln1.matmul(&p.wv)? + &p.bv)?, b, s, h, &[0, 2, 1, 3])?;
    drop(ln1);
    let scores = q.matmul(&k)?;
    drop((q, k));
    let attn = (scores * (1.0 / ((d / h) as f32).sqrt()))?.softmax(-1)?;
    let ctx = attn.matmul(&v)?;
    drop((attn, v));
    let ctx = ctx.permute(&[0, 2, 1, 3])?.into_reshape(&[b, s, d])?;
    let x = (x + (ctx.matmul(&p.wo)? + &p.bo)?)?;
    let ln2 = layer_norm(Operand::Ref(&x), Some(&p.ln2[0]), Some(&p.ln2[1]), 1e-5)?.0;
    let f = (ln2.matmul(&p.w1)? + &p.b1)?.gelu()?;
    drop(ln2);
    let f = (f.matmul(&p.w2)? + &p.b2)?;
    x + f
}

// ------------------------------------------------------------ harness ---

/// Peak live tensor bytes of `f` (input included, weights excluded),
/// fresh allocations, and wall time.
fn measure(input: &T32, f: impl FnOnce(T32) -> Result<T32>) -> (u64, u64, f64) {
    let x = input.deep_copy().expect("copy");
    let base = memory_stats();
    reset_peak();
    let t0 = Instant::now();
    let out = f(x).expect("workload runs");
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let s = memory_stats();
    drop(out);
    let peak = s.peak_bytes - base.live_bytes + input.nbytes() as u64;
    (peak, s.allocations - base.allocations, ms)
}

fn row(
    name: &str,
    input: &T32,
    copy: impl FnOnce(T32) -> Result<T32>,
    donate: impl FnOnce(T32) -> Result<T32>,
) {
    let (pc, ac, tc) = measure(input, copy);
    let (pd, ad, td) = measure(input, donate);
    let mb = |b: u64| b as f64 / 1e6;
    println!(
        "| {name} | {:.0} MB | {:.0} MB | {:.0}% | {ac} / {ad} | {tc:.0} / {td:.0} ms |",
        mb(pc),
        mb(pd),
        100.0 * (1.0 - pd as f64 / pc as f64)
    );
}

fn main() {
    println!(
        "| workload ({} kernels) | always-copy peak | donation peak | saved | buffers allocated | time |",
        donate::Isa::active().name()
    );
    println!("|---|--:|--:|--:|--:|--:|");
    for (name, n) in [
        ("ReLU chain, 10 ops, 1000x1000", 1000),
        ("ReLU chain, 10 ops, 4096x4096", 4096),
    ] {
        let x = seeded(&[n, n], 1, 1.0);
        row(
            name,
            &x,
            |x| {
                let mut kept = vec![x];
                for _ in 0..10 {
                    let next = kept.last().expect("non-empty").relu_ref()?;
                    kept.push(next);
                }
                Ok(kept.pop().expect("non-empty"))
            },
            |mut x| {
                for _ in 0..10 {
                    x = x.relu_donate()?;
                }
                Ok(x)
            },
        );
    }

    let block = Block::new(64);
    let x = seeded(&[32, 64, 56, 56], 2, 1.0);
    row(
        "ResNet basic block, 32x64x56x56",
        &x,
        |x| resnet_copy(&x, &block),
        |x| resnet_donate(&x, &block),
    );
    drop(x);

    let layer = Layer::new(768, 3072, 12, 1);
    let x = seeded(&[4, 512, 768], 3, 1.0);
    row(
        "Transformer encoder layer, 4x512x768",
        &x,
        |x| encoder_copy(&x, &layer),
        |x| encoder_donate(x, &layer),
    );
    drop(x);

    let layers: Vec<Layer> = (0..6).map(|i| Layer::new(768, 3072, 12, 10 + i)).collect();
    let x = seeded(&[8, 1024, 768], 4, 1.0);
    row(
        "Forward pass, 6 encoder layers, 8x1024x768",
        &x,
        |x| {
            // `let h1 = layer(&x); let h2 = layer(&h1); ...`: every layer's
            // output stays bound to the end.
            let mut outs = vec![x];
            for l in &layers {
                let next = encoder_copy(outs.last().expect("non-empty"), l)?;
                outs.push(next);
            }
            Ok(outs.pop().expect("non-empty"))
        },
        |mut x| {
            for l in &layers {
                x = encoder_donate(x, l)?;
            }
            Ok(x)
        },
    );
}
