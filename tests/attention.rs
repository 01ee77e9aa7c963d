//! The fused attention kernel against a naive `f64` reference: the full
//! score matrix, mask, causal `-inf`, softmax and product computed one
//! element at a time, NaN and infinities included. `f64` results must agree
//! to 1e-12 and `f32` results to 1e-5, relative to the sum of
//! `|p·v|` behind each output and the size of its scores (the condition of
//! the computation), so a tolerance never hides a wrong term.
#![allow(clippy::float_cmp)]

use std::mem::MaybeUninit;

use donate::array::element::Element;
use donate::kernels::{
    attention_into, attention_over_q, AttentionElement, AttentionSpec, FullyMasked, Mask,
    ATTENTION_KEY_TILE as TILE, ATTENTION_QUERY_BLOCK as QB,
};
use donate::Error;
use proptest::prelude::*;

const F64_TOL: f64 = 1e-12;
const F32_TOL: f64 = 1e-5;
const NEG_INF: f64 = f64::NEG_INFINITY;

/// One attention problem, in `f64` (rounded to the element type it runs in).
#[derive(Clone, Debug)]
struct Case {
    batch: usize,
    l: usize,
    s: usize,
    e: usize,
    ev: usize,
    q: Vec<f64>,
    k: Vec<f64>,
    v: Vec<f64>,
    /// Values `[mask_batch, L, S]` and `mask_batch`.
    mask: Option<(Vec<f64>, usize)>,
    causal: bool,
    scale: Option<f64>,
    policy: FullyMasked,
}

/// `SplitMix64`: reproducible inputs without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `[-r, r)`.
    fn uniform(&mut self, r: f64) -> f64 {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * r
    }
    fn vec(&mut self, n: usize, r: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(r)).collect()
    }
}

/// How a case is masked.
#[derive(Clone, Copy, Debug)]
enum MaskKind {
    None,
    Shared,
    PerBatch,
}

impl Case {
    fn random(seed: u64, dims: [usize; 5], mask: MaskKind, causal: bool) -> Case {
        let [batch, l, s, e, ev] = dims;
        let mut r = Rng(seed);
        let mask = match mask {
            MaskKind::None => None,
            MaskKind::Shared => Some((r.vec(l * s, 2.0), 1)),
            MaskKind::PerBatch => Some((r.vec(batch * l * s, 2.0), batch)),
        };
        Case {
            batch,
            l,
            s,
            e,
            ev,
            q: r.vec(batch * l * e, 2.0),
            k: r.vec(batch * s * e, 2.0),
            v: r.vec(batch * s * ev, 2.0),
            mask,
            causal,
            scale: None,
            policy: FullyMasked::Nan,
        }
    }

    /// The case with every value rounded to `T`.
    fn rounded<T: Element>(&self) -> Case {
        let r = |x: &Vec<f64>| x.iter().map(|&x| T::from_f64(x).to_f64()).collect();
        Case {
            q: r(&self.q),
            k: r(&self.k),
            v: r(&self.v),
            mask: self.mask.as_ref().map(|(m, b)| (r(m), *b)),
            ..self.clone()
        }
    }

    /// Naive reference: the output and, per output, the size its error is
    /// relative to.
    fn reference(&self) -> (Vec<f64>, Vec<f64>) {
        let Case {
            batch, l, s, e, ev, ..
        } = *self;
        let scale = self.scale.unwrap_or(1.0 / (e as f64).sqrt());
        let mut out = vec![0.0; batch * l * ev];
        let mut mag = vec![0.0; batch * l * ev];
        let mut scores = vec![0.0; s];
        let mut sizes = vec![0.0; s];
        for b in 0..batch {
            for i in 0..l {
                let q = &self.q[(b * l + i) * e..(b * l + i + 1) * e];
                for j in 0..s {
                    let k = &self.k[(b * s + j) * e..(b * s + j + 1) * e];
                    // An empty product is exactly 0, whatever the scale.
                    let dot: f64 = q.iter().zip(k).map(|(a, b)| a * b).sum();
                    let mut x = if e == 0 { 0.0 } else { dot * scale };
                    sizes[j] =
                        scale.abs() * q.iter().zip(k).map(|(a, b)| (a * b).abs()).sum::<f64>();
                    if let Some((m, mb)) = &self.mask {
                        let mv = m[((if *mb == 1 { 0 } else { b }) * l + i) * s + j];
                        x += mv;
                        if mv.is_finite() {
                            sizes[j] += mv.abs();
                        }
                    }
                    if self.causal && j > i {
                        x += NEG_INF;
                    }
                    scores[j] = x;
                }
                let size = 1.0 + sizes.iter().fold(0.0, |a: f64, &b| a.max(b));
                let mut m = NEG_INF;
                for &x in &scores {
                    if x.is_nan() || x > m {
                        m = x;
                    }
                    if m.is_nan() {
                        break;
                    }
                }
                let safe_zero = self.policy == FullyMasked::Zero && s > 0 && m == NEG_INF;
                let exps: Vec<f64> = scores.iter().map(|x| (x - m).exp()).collect();
                let total: f64 = exps.iter().sum();
                for c in 0..ev {
                    let (mut acc, mut size_c) = (0.0, 0.0);
                    for (j, &x_exp) in exps.iter().enumerate() {
                        let p = if safe_zero { 0.0 } else { x_exp / total };
                        let x = self.v[(b * s + j) * ev + c];
                        acc += p * x;
                        size_c += (p * x).abs();
                    }
                    out[(b * l + i) * ev + c] = acc;
                    mag[(b * l + i) * ev + c] = size_c * size;
                }
            }
        }
        (out, mag)
    }

    fn spec<'a, T>(&self, mask: Option<&'a [T]>) -> AttentionSpec<'a, T> {
        let mut spec = AttentionSpec::new(self.batch, self.l, self.s, self.e, self.ev)
            .with_causal(self.causal)
            .with_fully_masked(self.policy);
        if let (Some(values), Some((_, mb))) = (mask, &self.mask) {
            spec = spec.with_mask(Mask::Additive { values, batch: *mb });
        }
        if let Some(scale) = self.scale {
            spec = spec.with_scale(scale);
        }
        spec
    }

    /// The kernel in `T`, into a fresh buffer or over `q`.
    fn run<T: AttentionElement>(&self, over_q: bool) -> Result<Vec<f64>, Error> {
        let cv = |x: &[f64]| x.iter().map(|&x| T::from_f64(x)).collect::<Vec<T>>();
        let (mut q, k, v) = (cv(&self.q), cv(&self.k), cv(&self.v));
        let mask = self.mask.as_ref().map(|(m, _)| cv(m));
        let spec = self.spec(mask.as_deref());
        if over_q {
            attention_over_q(&mut q, &k, &v, &spec)?;
            return Ok(q.iter().map(|x| x.to_f64()).collect());
        }
        let mut out = vec![MaybeUninit::<T>::uninit(); self.batch * self.l * self.ev];
        attention_into(&q, &k, &v, &spec, &mut out)?;
        // SAFETY: attention_into returned Ok, so it wrote every element.
        Ok(out
            .iter()
            .map(|x| unsafe { x.assume_init() }.to_f64())
            .collect())
    }
}

/// `got` against the reference: NaN where it is NaN, equal infinities, and
/// finite values within `tol · mag`.
fn compare(got: &[f64], want: &[f64], mag: &[f64], tol: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} outputs, expected {}", got.len(), want.len()));
    }
    for (i, ((&g, &w), &m)) in got.iter().zip(want).zip(mag).enumerate() {
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= tol * m
        };
        if !ok {
            return Err(format!(
                "output {i}: got {g:e}, expected {w:e} (tolerance {:e})",
                tol * m
            ));
        }
    }
    Ok(())
}

/// The case in `f64` and `f32`, fresh and over `q` (when `Ev == E`),
/// against the reference.
fn check(c: &Case) -> Result<(), String> {
    let (want, mag) = c.reference();
    let c32 = c.rounded::<f32>();
    let (want32, mag32) = c32.reference();
    let label = |what: &str, e: String| {
        format!(
            "{what} [b{} L{} S{} E{} Ev{}] causal={} mask={:?} scale={:?}: {e}",
            c.batch,
            c.l,
            c.s,
            c.e,
            c.ev,
            c.causal,
            c.mask.as_ref().map(|m| m.1),
            c.scale
        )
    };
    let modes: &[bool] = if c.e == c.ev {
        &[false, true]
    } else {
        &[false]
    };
    for &over_q in modes {
        let got = c
            .run::<f64>(over_q)
            .map_err(|e| label("f64", e.to_string()))?;
        compare(&got, &want, &mag, F64_TOL).map_err(|e| label("f64", e))?;
        let got = c32
            .run::<f32>(over_q)
            .map_err(|e| label("f32", e.to_string()))?;
        compare(&got, &want32, &mag32, F32_TOL).map_err(|e| label("f32", e))?;
    }
    Ok(())
}

fn assert_ok(c: &Case) {
    if let Err(e) = check(c) {
        panic!("{e}");
    }
}

#[test]
fn odd_small_sizes_match_reference() {
    let mut seed = 1;
    for l in 1..=7 {
        for s in 1..=7 {
            for e in 1..=7 {
                for ev in 1..=7 {
                    for (mask, causal) in [
                        (MaskKind::None, false),
                        (MaskKind::None, true),
                        (MaskKind::Shared, false),
                    ] {
                        seed += 1;
                        assert_ok(&Case::random(seed, [2, l, s, e, ev], mask, causal));
                    }
                }
            }
        }
    }
}

#[test]
fn sizes_straddling_the_tiles_match_reference() {
    let mut seed = 100;
    for s in [TILE - 1, TILE, TILE + 1, 2 * TILE + 3] {
        for l in [1, QB - 1, QB, QB + 1, 2 * QB + 3] {
            for (e, ev) in [(5, 3), (16, 16)] {
                for (mask, causal) in [
                    (MaskKind::None, false),
                    (MaskKind::None, true),
                    (MaskKind::Shared, false),
                    (MaskKind::PerBatch, true),
                ] {
                    seed += 1;
                    assert_ok(&Case::random(seed, [2, l, s, e, ev], mask, causal));
                }
            }
        }
    }
}

#[test]
fn batches_and_mask_batches_match_reference() {
    for (i, mask) in [MaskKind::None, MaskKind::Shared, MaskKind::PerBatch]
        .into_iter()
        .enumerate()
    {
        for causal in [false, true] {
            assert_ok(&Case::random(
                200 + i as u64,
                [3, 9, 11, 4, 6],
                mask,
                causal,
            ));
            assert_ok(&Case::random(
                210 + i as u64,
                [5, 70, 140, 8, 8],
                mask,
                causal,
            ));
        }
    }
}

#[test]
fn causal_with_l_different_from_s() {
    for (l, s) in [(5, 9), (9, 5), (130, 70), (70, 300), (1, 200), (200, 1)] {
        assert_ok(&Case::random(
            300 + l as u64,
            [2, l, s, 6, 5],
            MaskKind::None,
            true,
        ));
        assert_ok(&Case::random(
            400 + s as u64,
            [2, l, s, 6, 6],
            MaskKind::PerBatch,
            true,
        ));
    }
}

#[test]
fn given_scales_match_reference() {
    for scale in [0.3, -0.7, 0.0, 2.5] {
        for causal in [false, true] {
            let mut c = Case::random(500, [2, 13, 150, 7, 4], MaskKind::Shared, causal);
            c.scale = Some(scale);
            assert_ok(&c);
        }
    }
}

/// Every output of row `i` of batch 0 (`Ev` values).
fn row(out: &[f64], ev: usize, i: usize) -> &[f64] {
    &out[i * ev..(i + 1) * ev]
}

#[test]
fn nan_in_inputs_propagates_as_unfused() {
    let dims = [1, 150, 150, 4, 3];
    for causal in [false, true] {
        // NaN in a q row: that row only.
        let mut c = Case::random(600, dims, MaskKind::None, causal);
        c.q[5 * 4 + 2] = f64::NAN;
        assert_ok(&c);
        let out = c.run::<f64>(false).unwrap();
        assert!(row(&out, 3, 5).iter().all(|x| x.is_nan()));
        assert!(out.iter().filter(|x| x.is_nan()).count() == 3);

        // NaN in the last key: every score column is NaN, so every row,
        // causally masked or not (NaN + -inf = NaN).
        let mut c = Case::random(601, dims, MaskKind::None, causal);
        c.k[149 * 4] = f64::NAN;
        assert_ok(&c);
        assert!(c.run::<f64>(false).unwrap().iter().all(|x| x.is_nan()));
        assert!(c.run::<f32>(false).unwrap().iter().all(|x| x.is_nan()));

        // NaN or inf in the last value row: only its column. Where the key
        // is causally excluded, its probability is exactly 0, and 0 times
        // NaN or inf is NaN; elsewhere p·inf is inf.
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut c = Case::random(602, dims, MaskKind::None, causal);
            c.v[149 * 3 + 1] = bad;
            assert_ok(&c);
            let out = c.run::<f64>(false).unwrap();
            for i in 0..150 {
                let r = row(&out, 3, i);
                assert!(r[0].is_finite() && r[2].is_finite());
                if bad.is_nan() || (causal && i < 149) {
                    assert!(r[1].is_nan());
                } else {
                    assert_eq!(r[1], bad);
                }
            }
        }
    }
}

#[test]
fn infinite_scores_and_mask_values() {
    let dims = [2, 140, 140, 5, 5];
    // -inf here and there; +inf at one spot makes its row NaN.
    let mut c = Case::random(700, dims, MaskKind::PerBatch, false);
    let (m, _) = c.mask.as_mut().unwrap();
    for i in (0..m.len()).step_by(3) {
        m[i] = NEG_INF;
    }
    m[(140 + 7) * 140 + 9] = f64::INFINITY;
    assert_ok(&c);
    let out = c.run::<f64>(false).unwrap();
    assert!(out[(140 + 7) * 5..(140 + 8) * 5].iter().all(|x| x.is_nan()));
    assert_eq!(out.iter().filter(|x| x.is_nan()).count(), 5);

    // +inf in the mask where the causal mask excludes the key: inf + -inf
    // is NaN in the unfused composition, so the row is NaN.
    let mut c = Case::random(701, dims, MaskKind::Shared, true);
    c.mask.as_mut().unwrap().0[3 * 140 + 130] = f64::INFINITY;
    assert_ok(&c);
    let out = c.run::<f32>(false).unwrap();
    assert!(row(&out, 5, 3).iter().all(|x| x.is_nan()));

    // Scores overflowing to +inf (huge q·k), at a causally excluded key.
    let mut c = Case::random(702, dims, MaskKind::None, true);
    for x in &mut c.k[139 * 5..140 * 5] {
        *x = 1e300;
    }
    for x in &mut c.q[..5] {
        *x = 1e300;
    }
    assert_ok(&c);
    assert!(row(&c.run::<f64>(false).unwrap(), 5, 0)
        .iter()
        .all(|x| x.is_nan()));
}

#[test]
fn fully_masked_rows() {
    let dims = [2, 9, 140, 4, 3];
    let mut c = Case::random(800, dims, MaskKind::PerBatch, true);
    let (m, _) = c.mask.as_mut().unwrap();
    // Row 2 of batch 1 fully masked; row 4 of batch 0 masked on the keys it
    // may see (0..=4), which with causal masks it fully.
    m[(9 + 2) * 140..(9 + 3) * 140].fill(NEG_INF);
    m[4 * 140..4 * 140 + 5].fill(NEG_INF);
    assert_ok(&c);
    let out = c.run::<f64>(false).unwrap();
    assert!(out.iter().filter(|x| x.is_nan()).count() == 6);
    assert!(out[(9 + 2) * 3..(9 + 3) * 3].iter().all(|x| x.is_nan()));
    assert!(row(&out, 3, 4).iter().all(|x| x.is_nan()));

    // PyTorch >= 2.5 (`_safe_softmax`): zeros, unless v is not finite.
    c.policy = FullyMasked::Zero;
    assert_ok(&c);
    let out = c.run::<f32>(false).unwrap();
    assert!(row(&out, 3, 4).iter().all(|&x| x == 0.0));
    assert!(out.iter().all(|x| x.is_finite()));
    c.v[1] = f64::NAN;
    assert_ok(&c);
    let out = c.run::<f64>(false).unwrap();
    let r = row(&out, 3, 4);
    assert!(r[0] == 0.0 && r[1].is_nan() && r[2] == 0.0);
}

#[test]
fn zero_size_dimensions() {
    for policy in [FullyMasked::Nan, FullyMasked::Zero] {
        for dims in [
            [0, 3, 4, 2, 2],
            [2, 0, 4, 2, 2],
            [2, 3, 0, 2, 2],
            [2, 3, 4, 0, 2],
            [2, 3, 4, 2, 0],
            [2, 3, 4, 0, 0],
            [2, 0, 0, 0, 0],
            [1, 1, 0, 0, 1],
            [1, 2, 2, 0, 1],
            [3, 19, TILE + 1, 0, 1],
        ] {
            for (mask, causal) in [(MaskKind::None, false), (MaskKind::PerBatch, true)] {
                let mut c = Case::random(900, dims, mask, causal);
                c.policy = policy;
                assert_ok(&c);
            }
        }
        // S = 0: an empty sum, zeros (not NaN) under either policy.
        let mut c = Case::random(901, [2, 3, 0, 2, 2], MaskKind::Shared, true);
        c.policy = policy;
        assert!(c.run::<f32>(false).unwrap().iter().all(|&x| x == 0.0));
    }
    // E = 0: every score 0 (even with the default scale 1/sqrt(0) = inf),
    // so each row is the mean of v.
    let c = Case::random(902, [1, 2, 3, 0, 2], MaskKind::None, false);
    let out = c.run::<f64>(false).unwrap();
    for col in 0..2 {
        let mean = (c.v[col] + c.v[2 + col] + c.v[4 + col]) / 3.0;
        assert!((out[col] - mean).abs() < 1e-15 && (out[2 + col] - mean).abs() < 1e-15);
    }
}

#[test]
fn over_q_equals_fresh_bit_for_bit() {
    let mut seed = 1000;
    for dims in [
        [1, 1, 1, 1, 1],
        [3, 7, 5, 6, 6],
        [2, 130, 260, 16, 16],
        [4, 65, 129, 3, 3],
    ] {
        for (mask, causal) in [
            (MaskKind::None, false),
            (MaskKind::Shared, true),
            (MaskKind::PerBatch, false),
        ] {
            seed += 1;
            let c = Case::random(seed, dims, mask, causal);
            let same = |a: Vec<f64>, b: Vec<f64>| {
                a.iter()
                    .zip(&b)
                    .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
            };
            assert!(same(
                c.run::<f64>(false).unwrap(),
                c.run::<f64>(true).unwrap()
            ));
            assert!(same(
                c.run::<f32>(false).unwrap(),
                c.run::<f32>(true).unwrap()
            ));
        }
    }
}

#[test]
fn invalid_shapes_are_errors() {
    let (q, k, v) = (
        vec![0.0f32; 2 * 3 * 4],
        vec![0.0f32; 2 * 5 * 4],
        vec![0.0f32; 2 * 5 * 6],
    );
    let mut out = vec![MaybeUninit::<f32>::uninit(); 2 * 3 * 6];
    let mask = vec![0.0f32; 2 * 3 * 5];
    let spec = AttentionSpec::<f32>::new(2, 3, 5, 4, 6);
    assert!(attention_into(&q, &k, &v, &spec, &mut out).is_ok());
    let shape = |r: Result<(), Error>| matches!(r, Err(Error::InvalidShape { .. }));
    assert!(shape(attention_into(&q[1..], &k, &v, &spec, &mut out)));
    assert!(shape(attention_into(&q, &k[1..], &v, &spec, &mut out)));
    assert!(shape(attention_into(&q, &k, &v[1..], &spec, &mut out)));
    assert!(shape(attention_into(&q, &k, &v, &spec, &mut out[1..])));
    // A mask of the wrong length, and of a batch that is neither 1 nor 2.
    let m: &[f32] = &mask;
    let with = |values, batch| spec.with_mask(Mask::Additive { values, batch });
    assert!(attention_into(&q, &k, &v, &with(m, 2), &mut out).is_ok());
    assert!(attention_into(&q, &k, &v, &with(&m[..15], 1), &mut out).is_ok());
    assert!(shape(attention_into(
        &q,
        &k,
        &v,
        &with(&m[1..], 2),
        &mut out
    )));
    assert!(shape(attention_into(&q, &k, &v, &with(m, 1), &mut out)));
    assert!(matches!(
        attention_into(&q, &k, &v, &with(m, 3), &mut out),
        Err(Error::InvalidArgument { .. })
    ));
    // Over q needs Ev == E.
    let mut q2 = q.clone();
    assert!(shape(attention_over_q(&mut q2, &k, &v, &spec)));
    // Sizes whose element counts overflow.
    let huge = AttentionSpec::<f32>::new(usize::MAX, 2, 2, 2, 2);
    assert!(shape(attention_into(&q, &k, &v, &huge, &mut out)));
    let huge = AttentionSpec::<f32>::new(1, usize::MAX, usize::MAX, 0, 0);
    assert!(shape(attention_into(
        &[],
        &[],
        &[],
        &huge.with_mask(Mask::Additive {
            values: &[],
            batch: 1
        }),
        &mut []
    )));
}

/// Threaded cases: batch 4, L = S = 512, E = Ev = 64 (well above the
/// parallel threshold), and one batch of 100 query rows, where the query
/// block shrinks to give every thread work.
fn large_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for (i, (mask, causal)) in [
        (MaskKind::None, false),
        (MaskKind::None, true),
        (MaskKind::PerBatch, true),
    ]
    .into_iter()
    .enumerate()
    {
        v.push(Case::random(
            1100 + i as u64,
            [4, 512, 512, 64, 64],
            mask,
            causal,
        ));
    }
    v.push(Case::random(
        1110,
        [1, 100, 1024, 16, 16],
        MaskKind::Shared,
        true,
    ));
    v
}

#[test]
fn large_threaded_cases_match_reference() {
    for c in large_cases() {
        assert_ok(&c);
    }
}

#[test]
fn large_cases_on_a_callers_pool_match_reference() {
    // Inside a rayon pool of the caller's, the kernel splits across that
    // pool: 4 threads whatever this machine has.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    pool.install(|| {
        for c in large_cases().iter().skip(2) {
            assert_ok(c);
        }
    });
}

fn mask_kind() -> impl Strategy<Value = MaskKind> {
    prop_oneof![
        Just(MaskKind::None),
        Just(MaskKind::Shared),
        Just(MaskKind::PerBatch)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn random_small_shapes_match_reference(
        seed in any::<u64>(),
        batch in 0usize..=3,
        l in 0usize..=20,
        s in prop_oneof![0usize..=20, (TILE - 2)..=(TILE + 2)],
        e in 0usize..=9,
        ev in 0usize..=9,
        mask in mask_kind(),
        causal in any::<bool>(),
        scale in prop::option::of(-2.0f64..2.0),
        holes in 0usize..4,
        zero in any::<bool>(),
    ) {
        let mut c = Case::random(seed, [batch, l, s, e, ev], mask, causal);
        c.scale = scale;
        c.policy = if zero { FullyMasked::Zero } else { FullyMasked::Nan };
        // Some -inf in the mask, every `holes + 2`-th value.
        if let Some((m, _)) = c.mask.as_mut() {
            if holes > 0 {
                for x in m.iter_mut().step_by(holes + 1) {
                    *x = NEG_INF;
                }
            }
        }
        check(&c).map_err(TestCaseError::fail)?;
    }
}
