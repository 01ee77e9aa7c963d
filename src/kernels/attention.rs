//! Fused scaled-dot-product attention: `softmax(q·kᵀ·scale + mask)·v`, as
//! `torch.nn.functional.scaled_dot_product_attention` computes it, without
//! ever holding the `L×S` score matrix.
//!
//! # Semantics
//! Inputs are contiguous and row-major: `q` is `[batch, L, E]`, `k` is
//! `[batch, S, E]`, `v` is `[batch, S, Ev]`, the output `[batch, L, Ev]`
//! (`batch` is the product of the leading dimensions; the caller flattens
//! and broadcasts them). The scale defaults to `1/sqrt(E)`. An additive
//! float mask ([`Mask::Additive`]) is `[mask_batch, L, S]` with `mask_batch`
//! 1 (shared by every batch entry) or `batch`; the caller broadcasts
//! anything else. `causal` lets query `i` see keys `j <= i` (top-left
//! aligned, torch's `ones(L, S).tril()`), as an additive `-inf` on the
//! others. torch rejects a mask together with `is_causal`; here both add
//! up, as in the reference code of torch's documentation.
//!
//! The result is that of the unfused composition computed naively, NaN and
//! infinities included: a NaN or `+inf` score makes its row NaN; a masked
//! key (probability 0) still multiplies its `v` row, so a NaN or infinite
//! `v` element turns its output column NaN, masked or not. A row whose
//! every score is `-inf` (fully masked) is NaN, a softmax of all `-inf`
//! ([`FullyMasked::Nan`], the default), or `0·v` ([`FullyMasked::Zero`]:
//! torch ≥ 2.5's `_safe_softmax`). Sizes of zero work: with `S = 0` every
//! output is `0.0`, an empty sum (`softmax` of an empty row is empty, and
//! `empty @ v` is zeros), under either policy. With `E = 0` every score is
//! exactly `0` before the mask: the scale multiplies the factors of an
//! empty product, as in torch's math backend, so the default scale
//! `1/sqrt(0) = inf` does not make it NaN.
//!
//! # Algorithm
//! The flash-attention loop. For each batch entry and each block of up to
//! [`ATTENTION_QUERY_BLOCK`] query rows, the keys are visited in tiles of
//! [`ATTENTION_KEY_TILE`]:
//! 1. the score tile `q_blk·k_tileᵀ·scale` is one `gemm` call (the scale is
//!    its `beta`; `k` is read through swapped strides, never transposed);
//! 2. the mask tile and the causal `-inf` are added;
//! 3. each row's running maximum `m` and running sum `l` (in `f64`) are
//!    updated online: when the maximum grows, the row's accumulator and sum
//!    are rescaled by `exp(m_old - m_new)`; the scores become
//!    `exp(s - m_new)` through the element-wise kernels' vectorised `exp`
//!    (a Cephes polynomial for `f32`, libm for `f64`);
//! 4. a second `gemm` adds `P·v_tile` into the accumulator block.
//!
//! Finally each row is divided by its sum. A row whose maximum is still
//! `-inf` takes `0` as its reference, so its probabilities are exact zeros
//! (not `-inf - -inf`), and its policy is applied at the end.
//!
//! Causal blocks skip the key tiles past their last row when that cannot
//! change the result: when the skipped `q·k` are provably finite (every
//! factor finite and `|scale|·max‖q_i‖₁·max|k|`, with rounding slack, below
//! the type's maximum), the skipped `v` rows are finite, and the skipped mask
//! has no NaN or `+inf`. Then every skipped score is exactly `-inf` and
//! adds exactly `0·v = 0`. Otherwise the block visits all keys, so NaN
//! propagation stays that of the unfused composition. The check reads the
//! skipped `k`, `v` and mask once per block, about `1/ATTENTION_QUERY_BLOCK`
//! of the work it saves.
//!
//! # Scratch and threads
//! Each worker owns one score tile (`block × ATTENTION_KEY_TILE`), one
//! accumulator block (`block × Ev`) and two numbers per row: a few tens of
//! kilobytes, plain `Vec`s outside the crate's allocation statistics. The
//! work items are (batch entry × query block); output rows of one block
//! depend on its `q` rows only, which is what lets [`attention_over_q`]
//! write each block over its own `q` rows. When `batch·L·S·(E+Ev)` reaches
//! the matmul kernel's `PAR_WORK`, the items are split across the pool of
//! [`crate::kernels::parallel::install`] (never rayon's global pool); the query block
//! shrinks (down to 8 rows) until there are at least two items per thread.
//! `gemm` runs with `Parallelism::None` inside a worker. Keys are never
//! split across threads (that would need a merge of partial softmax states).

use std::mem::MaybeUninit;
use std::ops::{Add, Mul, Sub};

use rayon::prelude::*;

use super::isa::Isa;
use super::matmul::{MatmulElement, PAR_WORK};
use super::{KernelElement, UnaryOp};
use crate::array::element::Float;
use crate::error::{Error, Result};
use crate::kernels::parallel::install;

const OP: &str = "scaled_dot_product_attention";

/// Keys per score tile.
pub const ATTENTION_KEY_TILE: usize = 128;
/// Query rows per block (fewer when the work is split across threads and
/// there are few blocks).
pub const ATTENTION_QUERY_BLOCK: usize = 64;
/// The smallest query block a split makes.
const MIN_QUERY_BLOCK: usize = 8;

/// Element types with an attention kernel: `f32` and `f64`.
pub trait AttentionElement:
    MatmulElement + KernelElement + Float + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
    #[doc(hidden)]
    const NEG_INFINITY: Self;
    #[doc(hidden)]
    const NAN: Self;
    /// The largest finite value, as `f64`.
    #[doc(hidden)]
    const MAX_F64: f64;
    /// The machine epsilon, as `f64`.
    #[doc(hidden)]
    const EPSILON_F64: f64;
    #[doc(hidden)]
    fn is_nan_value(self) -> bool;
}

macro_rules! attention_element {
    ($t:ty) => {
        impl AttentionElement for $t {
            const NEG_INFINITY: $t = <$t>::NEG_INFINITY;
            const NAN: $t = <$t>::NAN;
            const MAX_F64: f64 = <$t>::MAX as f64;
            const EPSILON_F64: f64 = <$t>::EPSILON as f64;
            #[inline(always)]
            fn is_nan_value(self) -> bool {
                self.is_nan()
            }
        }
    };
}
attention_element!(f32);
attention_element!(f64);

/// A mask on the scores.
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub enum Mask<'a, T> {
    /// No mask.
    #[default]
    None,
    /// Added to the scores: `values` is `[batch, L, S]`, row-major, where
    /// `batch` is 1 (one mask for every batch entry) or the attention's
    /// batch. `-inf` excludes a key.
    Additive { values: &'a [T], batch: usize },
}

/// What a row whose every score is `-inf` gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FullyMasked {
    /// NaN: the softmax of all `-inf`, as the naive composition (and
    /// torch's math backend before 2.5).
    #[default]
    Nan,
    /// Probabilities 0, so the row is `0·v`: zeros, or NaN where a column of
    /// `v` holds a NaN or an infinity (torch ≥ 2.5's `_safe_softmax`).
    Zero,
}

/// The shapes and options of one attention call (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct AttentionSpec<'a, T> {
    /// Batch entries (the flattened leading dimensions).
    pub batch: usize,
    /// Query rows.
    pub l: usize,
    /// Keys (and values).
    pub s: usize,
    /// Query and key width.
    pub e: usize,
    /// Value width.
    pub ev: usize,
    pub mask: Mask<'a, T>,
    pub causal: bool,
    /// `None`: `1/sqrt(E)`.
    pub scale: Option<f64>,
    pub fully_masked: FullyMasked,
}

impl<'a, T> AttentionSpec<'a, T> {
    /// `q: [batch, l, e]`, `k: [batch, s, e]`, `v: [batch, s, ev]`, with no
    /// mask, not causal, the default scale and NaN for fully masked rows.
    pub fn new(batch: usize, l: usize, s: usize, e: usize, ev: usize) -> Self {
        AttentionSpec {
            batch,
            l,
            s,
            e,
            ev,
            mask: Mask::None,
            causal: false,
            scale: None,
            fully_masked: FullyMasked::Nan,
        }
    }

    #[must_use]
    pub fn with_mask(mut self, mask: Mask<'a, T>) -> Self {
        self.mask = mask;
        self
    }

    #[must_use]
    pub fn with_causal(mut self, causal: bool) -> Self {
        self.causal = causal;
        self
    }

    #[must_use]
    pub fn with_scale(mut self, scale: f64) -> Self {
        self.scale = Some(scale);
        self
    }

    #[must_use]
    pub fn with_fully_masked(mut self, policy: FullyMasked) -> Self {
        self.fully_masked = policy;
        self
    }
}

/// A `[batch, rows, width]` operand inside a slice: row `i` of batch
/// entry `b` is the `width` contiguous elements from `offsets[b] + i·rs`.
/// A head split (`x.reshape(b, s, h, d).transpose(0, 2, 1, 3)`) is read
/// this way where it lies, without a copy.
#[derive(Debug, Clone)]
pub struct Rows<'a, T> {
    pub data: &'a [T],
    /// The first element of each batch entry.
    pub offsets: Vec<usize>,
    /// Elements from one row's start to the next's.
    pub rs: usize,
}

impl<'a, T> Rows<'a, T> {
    /// A contiguous `[batch, rows, width]` slice.
    pub fn dense(data: &'a [T], batch: usize, rows: usize, width: usize) -> Self {
        Rows {
            data,
            offsets: (0..batch).map(|b| b * rows * width).collect(),
            rs: width,
        }
    }

    /// Checks that `name`, `[batch, rows, width]`, lies inside its slice.
    fn check(&self, name: &str, [batch, rows, width]: [usize; 3]) -> Result<()> {
        let bad = |reason: String| Error::InvalidShape {
            op: OP,
            shape: vec![batch, rows, width],
            reason,
        };
        if self.offsets.len() != batch {
            return Err(bad(format!(
                "{name} has {} batch entries",
                self.offsets.len()
            )));
        }
        if rows == 0 || width == 0 {
            return Ok(());
        }
        let reach = (rows - 1)
            .checked_mul(self.rs)
            .and_then(|r| r.checked_add(width))
            .ok_or_else(|| bad(format!("the extent of {name} overflows")))?;
        for &o in &self.offsets {
            if o.checked_add(reach).is_none_or(|end| end > self.data.len()) {
                return Err(bad(format!(
                    "{name} reaches past its {} elements",
                    self.data.len()
                )));
            }
        }
        Ok(())
    }

    /// Batch entry `b` from row `r` on.
    fn rows_from(&self, b: usize, r: usize) -> &'a [T] {
        &self.data[self.offsets[b] + r * self.rs..]
    }
}

/// A validated call.
struct Geom<'a, T> {
    batch: usize,
    l: usize,
    s: usize,
    e: usize,
    ev: usize,
    k: Rows<'a, T>,
    v: Rows<'a, T>,
    /// The mask and its batch stride (0 when shared).
    mask: Option<(&'a [T], usize)>,
    causal: bool,
    scale: T,
    zero_rows: bool,
    isa: Isa,
}

/// Checks that `name`, of `found` elements, has shape `dims`.
fn check_len(name: &str, dims: [usize; 3], found: usize) -> Result<()> {
    let reason = match dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) {
        Some(n) if n == found => return Ok(()),
        Some(n) => format!("{name} has {found} elements, its shape needs {n}"),
        None => format!("the element count of {name} overflows"),
    };
    Err(Error::InvalidShape {
        op: OP,
        shape: dims.to_vec(),
        reason,
    })
}

fn validate<'a, T: AttentionElement>(
    spec: &AttentionSpec<'a, T>,
    q: &Rows<'_, T>,
    k: Rows<'a, T>,
    v: Rows<'a, T>,
    out_len: usize,
) -> Result<Geom<'a, T>> {
    let AttentionSpec {
        batch, l, s, e, ev, ..
    } = *spec;
    q.check("q", [batch, l, e])?;
    k.check("k", [batch, s, e])?;
    v.check("v", [batch, s, ev])?;
    check_len("the output", [batch, l, ev], out_len)?;
    let mask = match spec.mask {
        Mask::None => None,
        Mask::Additive { values, batch: mb } => {
            if mb != 1 && mb != batch {
                return Err(Error::InvalidArgument {
                    op: OP,
                    reason: format!(
                        "the mask's batch is {mb}; it must be 1 or the attention's batch {batch}"
                    ),
                });
            }
            check_len("the mask", [mb, l, s], values.len())?;
            Some((values, if mb == 1 { 0 } else { l * s }))
        }
    };
    let scale = spec.scale.unwrap_or_else(|| 1.0 / (e as f64).sqrt());
    Ok(Geom {
        batch,
        l,
        s,
        e,
        ev,
        k,
        v,
        mask,
        causal: spec.causal,
        scale: T::from_f64(scale),
        zero_rows: spec.fully_masked == FullyMasked::Zero,
        isa: Isa::active(),
    })
}

/// `out = attention(q, k, v)` into a fresh buffer of `batch·L·Ev` elements,
/// every one of which it writes when it returns `Ok`; `q`, `k`, `v`
/// contiguous, of exactly their shapes' lengths.
pub fn attention_into<T: AttentionElement>(
    q: &[T],
    k: &[T],
    v: &[T],
    spec: &AttentionSpec<'_, T>,
    out: &mut [MaybeUninit<T>],
) -> Result<()> {
    let [q, k, v] = dense(spec, q, k, v)?;
    attention_into_rows(&q, k, v, spec, out)
}

/// The dense operands of a call, checked to have exactly their lengths.
fn dense<'a, T>(
    spec: &AttentionSpec<'_, T>,
    q: &'a [T],
    k: &'a [T],
    v: &'a [T],
) -> Result<[Rows<'a, T>; 3]> {
    let AttentionSpec {
        batch, l, s, e, ev, ..
    } = *spec;
    check_len("q", [batch, l, e], q.len())?;
    check_len("k", [batch, s, e], k.len())?;
    check_len("v", [batch, s, ev], v.len())?;
    Ok([
        Rows::dense(q, batch, l, e),
        Rows::dense(k, batch, s, e),
        Rows::dense(v, batch, s, ev),
    ])
}

/// [`attention_into`] with `q`, `k` and `v` read where their rows lie
/// (see [`Rows`]).
pub fn attention_into_rows<T: AttentionElement>(
    q: &Rows<'_, T>,
    k: Rows<'_, T>,
    v: Rows<'_, T>,
    spec: &AttentionSpec<'_, T>,
    out: &mut [MaybeUninit<T>],
) -> Result<()> {
    let g = validate(spec, q, k, v, out.len())?;
    let e = g.e;
    for_each_block(&g, out, g.ev, |b, r0, br, chunk, sc| {
        let rows = q.rows_from(b, r0);
        let len = if br == 0 { 0 } else { (br - 1) * q.rs + e };
        block(&g, b, r0, br, &rows[..len], q.rs, sc);
        for (d, &x) in chunk.iter_mut().zip(&sc.acc[..br * g.ev]) {
            d.write(x);
        }
    });
    Ok(())
}

/// `q = attention(q, k, v)`: the result written over `q`, which needs
/// `Ev == E`. Each worker computes a block of rows into its scratch, then
/// copies it over those `q` rows, which no other block reads.
pub fn attention_over_q<T: AttentionElement>(
    q: &mut [T],
    k: &[T],
    v: &[T],
    spec: &AttentionSpec<'_, T>,
) -> Result<()> {
    check_len("k", [spec.batch, spec.s, spec.e], k.len())?;
    check_len("v", [spec.batch, spec.s, spec.ev], v.len())?;
    let k = Rows::dense(k, spec.batch, spec.s, spec.e);
    let v = Rows::dense(v, spec.batch, spec.s, spec.ev);
    attention_over_q_rows(q, k, v, spec)
}

/// [`attention_over_q`] with `k` and `v` read where their rows lie
/// (`q`, which receives the result, contiguous).
pub fn attention_over_q_rows<T: AttentionElement>(
    q: &mut [T],
    k: Rows<'_, T>,
    v: Rows<'_, T>,
    spec: &AttentionSpec<'_, T>,
) -> Result<()> {
    if spec.ev != spec.e {
        return Err(Error::InvalidShape {
            op: OP,
            shape: vec![spec.batch, spec.s, spec.ev],
            reason: format!(
                "the output is written over q, so v's width {} must equal q's {}",
                spec.ev, spec.e
            ),
        });
    }
    check_len("q", [spec.batch, spec.l, spec.e], q.len())?;
    let g = validate(
        spec,
        &Rows::dense(&*q, spec.batch, spec.l, spec.e),
        k,
        v,
        q.len(),
    )?;
    for_each_block(&g, q, g.e, |b, r0, br, chunk, sc| {
        block(&g, b, r0, br, chunk, g.e, sc);
        chunk.copy_from_slice(&sc.acc[..chunk.len()]);
    });
    Ok(())
}

/// One worker's scratch.
struct Scratch<T> {
    /// A score tile, `br × w` for the current tile width `w`.
    scores: Vec<T>,
    /// The accumulator block, `br × Ev`; the block's result at the end.
    acc: Vec<T>,
    /// Running maximum per row.
    max: Vec<T>,
    /// Running sum per row.
    sum: Vec<f64>,
}

impl<T: AttentionElement> Scratch<T> {
    fn new(br: usize, s: usize, ev: usize) -> Self {
        Scratch {
            scores: vec![T::ZERO; br * ATTENTION_KEY_TILE.min(s)],
            acc: vec![T::ZERO; br * ev],
            max: vec![T::ZERO; br],
            sum: vec![0.0; br],
        }
    }
}

/// Runs `f(batch, first_row, rows, out_rows, scratch)` on every block of
/// query rows, the blocks of `out` (rows of `row_len`) split across threads
/// when the work is large.
fn for_each_block<T: AttentionElement, D: Send>(
    g: &Geom<'_, T>,
    out: &mut [D],
    row_len: usize,
    f: impl Fn(usize, usize, usize, &mut [D], &mut Scratch<T>) + Sync,
) {
    let per_batch = g.l * row_len;
    if per_batch == 0 || g.batch == 0 {
        return;
    }
    let work = (g.batch * g.l)
        .saturating_mul(g.s)
        .saturating_mul(g.e + g.ev);
    let par = work >= PAR_WORK && g.batch * g.l > 1 && super::threads() > 1;
    let mut br = ATTENTION_QUERY_BLOCK.min(g.l);
    if par {
        let want = 2 * super::threads();
        while br > MIN_QUERY_BLOCK && g.batch * g.l.div_ceil(br) < want {
            br = (br / 2).max(MIN_QUERY_BLOCK);
        }
    }
    let chunk = br * row_len;
    let scratch = || Scratch::new(br, g.s, g.ev);
    let run = |sc: &mut Scratch<T>, (b, i, c): (usize, usize, &mut [D])| {
        f(b, i * br, c.len() / row_len, c, sc);
    };
    if par {
        install(|| {
            out.par_chunks_mut(per_batch)
                .enumerate()
                .flat_map(|(b, ob)| {
                    ob.par_chunks_mut(chunk)
                        .enumerate()
                        .map(move |(i, c)| (b, i, c))
                })
                .for_each_init(scratch, run);
        });
    } else {
        let mut sc = scratch();
        for (b, ob) in out.chunks_mut(per_batch).enumerate() {
            for (i, c) in ob.chunks_mut(chunk).enumerate() {
                run(&mut sc, (b, i, c));
            }
        }
    }
}

/// The maximum of `row`, NaN if it holds one (`-inf` if empty).
#[inline(always)]
fn row_max<T: AttentionElement>(row: &[T]) -> T {
    let mut lanes = [T::NEG_INFINITY; 8];
    let mut nan = false;
    let mut chunks = row.chunks_exact(8);
    for c in &mut chunks {
        for (m, &x) in lanes.iter_mut().zip(c) {
            nan |= x.is_nan_value();
            *m = if x > *m { x } else { *m };
        }
    }
    let mut m = T::NEG_INFINITY;
    for &x in lanes.iter().chain(chunks.remainder()) {
        nan |= x.is_nan_value();
        m = if x > m { x } else { m };
    }
    if nan {
        T::NAN
    } else {
        m
    }
}

/// The sum of `row` in `f64`.
#[inline(always)]
fn row_sum<T: AttentionElement>(row: &[T]) -> f64 {
    let mut lanes = [0.0f64; 8];
    let mut chunks = row.chunks_exact(8);
    for c in &mut chunks {
        for (s, &x) in lanes.iter_mut().zip(c) {
            *s += x.to_f64();
        }
    }
    let tail: f64 = chunks.remainder().iter().map(|x| x.to_f64()).sum();
    lanes.iter().sum::<f64>() + tail
}

/// `dst[m×n] = beta · a[m×k] · b (+ dst if `add`)` on the calling thread,
/// `dst` row-major, `a`'s rows `a_rs` apart, `b(p, j) = b[p·down + j·across]`
/// for `(down, across) = b_strides` (`k` with swapped strides is `kᵀ`).
fn product<T: AttentionElement>(
    dst: &mut [T],
    add: bool,
    (a, a_rs): (&[T], usize),
    b: &[T],
    (m, n, k): (usize, usize, usize),
    b_strides: (usize, usize),
    beta: T,
) {
    let (down, across) = b_strides;
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !add {
            dst.fill(T::ZERO);
        }
        return;
    }
    assert!(
        dst.len() == m * n
            && (m - 1) * a_rs + k <= a.len()
            && (k - 1) * down + (n - 1) * across < b.len()
    );
    // gemm computes dst = alpha·dst + beta·a·b; read_dst = false ignores
    // alpha and dst's old contents.
    // SAFETY: the pointers cover m·n, m·k elements and every b(p, j) with
    // p < k, j < n (asserted above); dst aliases neither a nor b (a `&mut`).
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            add,
            a.as_ptr(),
            1,
            a_rs as isize,
            b.as_ptr(),
            across as isize,
            down as isize,
            T::ONE,
            beta,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Query rows `r0..r0 + br` of batch entry `b` (`q` holds those rows,
/// `qs` apart): leaves the result rows in `sc.acc[..br·Ev]`.
fn block<T: AttentionElement>(
    g: &Geom<'_, T>,
    b: usize,
    r0: usize,
    br: usize,
    q: &[T],
    qs: usize,
    sc: &mut Scratch<T>,
) {
    let (s, e, ev) = (g.s, g.e, g.ev);
    let (ks, vs) = (g.k.rs, g.v.rs);
    let k = g.k.rows_from(b, 0);
    let v = g.v.rows_from(b, 0);
    let mask = g
        .mask
        .map(|(m, stride)| &m[b * stride..b * stride + g.l * s]);
    let acc = &mut sc.acc[..br * ev];
    let max = &mut sc.max[..br];
    let sum = &mut sc.sum[..br];
    acc.fill(T::ZERO);
    max.fill(T::NEG_INFINITY);
    sum.fill(0.0);
    // Causal rows r0..r0 + br see keys up to their last row, at most.
    let end = if g.causal { (r0 + br).min(s) } else { s };
    let kend = if end < s
        && skippable(
            g,
            (q, qs),
            (&k[end * ks..], ks),
            (&v[end * vs..], vs),
            mask,
            r0,
            br,
            end,
        ) {
        end
    } else {
        s
    };
    let mut c0 = 0;
    while c0 < kend {
        let w = ATTENTION_KEY_TILE.min(kend - c0);
        let scores = &mut sc.scores[..br * w];
        // scale · q_blk · k_tileᵀ: kᵀ(p, j) = k[j·ks + p].
        let k_tile = &k[c0 * ks..];
        product(scores, false, (q, qs), k_tile, (br, w, e), (1, ks), g.scale);
        for (i, row) in scores.chunks_exact_mut(w).enumerate() {
            let gi = r0 + i;
            if let Some(m) = mask {
                let m = &m[gi * s + c0..gi * s + c0 + w];
                for (x, &a) in row.iter_mut().zip(m) {
                    *x = *x + a;
                }
            }
            if g.causal && c0 + w > gi + 1 {
                for x in &mut row[(gi + 1).saturating_sub(c0)..] {
                    *x = *x + T::NEG_INFINITY;
                }
            }
            let m_old = max[i];
            let m_tile = row_max(row);
            let m_new = if m_tile.is_nan_value() || m_tile > m_old {
                m_tile
            } else {
                m_old
            };
            // Everything so far was -inf: acc holds only 0·v and sum 0, kept
            // as they are (0, or NaN from a non-finite v) by a factor 0.
            let alpha = if m_old == T::NEG_INFINITY {
                0.0
            } else {
                (m_old - m_new).to_f64().exp()
            };
            if m_new == T::NEG_INFINITY {
                row.fill(T::ZERO);
            } else {
                for x in row.iter_mut() {
                    *x = *x - m_new;
                }
                T::unary_inplace_run(g.isa, UnaryOp::Exp, row);
            }
            sum[i] = sum[i] * alpha + row_sum(row);
            max[i] = m_new;
            // alpha is 1 when the maximum did not grow; after only -inf,
            // acc is 0 or NaN, which a factor 0 keeps too.
            if m_new != m_old {
                let a = T::from_f64(alpha);
                for x in &mut acc[i * ev..(i + 1) * ev] {
                    *x = *x * a;
                }
            }
        }
        let v_tile = &v[c0 * vs..];
        product(acc, true, (scores, w), v_tile, (br, ev, w), (vs, 1), T::ONE);
        c0 += w;
    }
    if ev == 0 {
        return;
    }
    for (i, row) in acc.chunks_exact_mut(ev).enumerate() {
        if max[i] == T::NEG_INFINITY {
            // Fully masked (or S = 0, where the zeros are an empty sum).
            if s > 0 && !g.zero_rows {
                row.fill(T::NAN);
            }
        } else {
            let inv = T::from_f64(1.0 / sum[i]);
            for x in row.iter_mut() {
                *x = *x * inv;
            }
        }
    }
}

/// `n` rows of `w` elements, `rs` apart, from the start of `x`.
fn rows<T>(x: &[T], rs: usize, n: usize, w: usize) -> impl Iterator<Item = &[T]> {
    (0..n).map(move |i| &x[i * rs..i * rs + w])
}

/// Can causal rows `r0..r0 + br` skip keys `end..S` (`k` and `v` hold
/// those keys' rows)? Yes when every skipped score is provably
/// `finite + finite-or--inf + -inf = -inf` and every skipped `v` element
/// finite, so that they add exactly `0` (see the module docs).
// The block's inputs and its place in them: a struct would only rename them.
#[allow(clippy::too_many_arguments)]
fn skippable<T: AttentionElement>(
    g: &Geom<'_, T>,
    (q, qs): (&[T], usize),
    (k, ks): (&[T], usize),
    (v, vs): (&[T], usize),
    mask: Option<&[T]>,
    r0: usize,
    br: usize,
    end: usize,
) -> bool {
    let (nk, e, ev) = (g.s - end, g.e, g.ev);
    let finite = |x: &T| x.to_f64().is_finite();
    let all_finite = rows(q, qs, br, e).all(|r| r.iter().all(finite))
        && rows(k, ks, nk, e).all(|r| r.iter().all(finite))
        && rows(v, vs, nk, ev).all(|r| r.iter().all(finite));
    if !all_finite {
        return false;
    }
    let q_norm = rows(q, qs, br, e)
        .map(|r| r.iter().map(|x| x.to_f64().abs()).sum::<f64>())
        .fold(0.0, f64::max);
    let k_max = rows(k, ks, nk, e)
        .flat_map(|r| r.iter())
        .map(|x| x.to_f64().abs())
        .fold(0.0, f64::max);
    let mut mask_max = 0.0f64;
    if let Some(m) = mask {
        for i in r0..r0 + br {
            for x in &m[i * g.s + end..(i + 1) * g.s] {
                let x = x.to_f64();
                if x.is_nan() || x == f64::INFINITY {
                    return false;
                }
                if x.is_finite() {
                    mask_max = mask_max.max(x.abs());
                }
            }
        }
    }
    // A computed dot product of e terms is within (1 + e·eps/(1 - e·eps))
    // of the sum of |q_i·k_j|, so below twice it while e·eps <= 1/2; the
    // scaling and the mask's addition round once more.
    let score_bound = g.scale.to_f64().abs() * q_norm * k_max * 4.0;
    (g.e as f64) * T::EPSILON_F64 <= 0.5 && score_bound + 2.0 * mask_max < T::MAX_F64
}
