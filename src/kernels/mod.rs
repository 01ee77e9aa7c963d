//! Compute kernels on slices: element-wise, broadcasting, reductions, row
//! operations (softmax, layer norm), matmul, convolution and casts.
//!
//! Kernels know nothing about ownership: they read `&[T]` and write either a
//! fresh `&mut [MaybeUninit<T>]` (out of place) or an input's own `&mut [T]`
//! (in place; the tensor layer decides when that is allowed). Every kernel
//! runs on the instruction set chosen once by [`Isa::active`], and splits
//! work across threads when it has at least [`GRAIN`] elements. Every such
//! split runs inside `parallel::install`, on a pool that belongs to this
//! process (never rayon's global pool: see `src/kernels/parallel.rs` for why, and
//! what happens at `fork()`).
//!
//! Layering: kernels sit above `buffer` (the fresh buffers of `fresh`
//! are `UninitBuffer`s), `shape` and `parallel`, and below `tensor`, which
//! calls them. The public API is this module's functions and the types and
//! traits re-exported here; the submodules serve the crate. `unsafe` code
//! is confined to the submodules marked `allow(unsafe_code)` below and to
//! the per-ISA calls of `isa`'s `dispatch!`.

#[allow(unsafe_code)] // `gemm`'s raw-pointer interface
pub(crate) mod attention;
#[allow(unsafe_code)] // disjoint blocks of columns lent to threads
pub(crate) mod columns;
pub(crate) mod complex;
#[allow(unsafe_code)] // writes im2col and over-input results through raw slices
pub(crate) mod conv;
mod elementwise;
#[allow(unsafe_code)] // float16 and float32 slices seen as what their tags say
mod float16;
#[allow(unsafe_code)] // `UninitBuffer::assume_init` once a kernel wrote every element
pub(crate) mod fresh;
pub(crate) mod func;
#[allow(unsafe_code)] // a block written by an earlier stage, read as initialised
pub(crate) mod fused;
#[allow(unsafe_code)] // `Isa::new_unchecked`, and the calls into the per-ISA copies
mod isa;
mod math;
// The kernels' thread pool; `unsafe` for its published pointers and the
// fork hook.
#[allow(unsafe_code)] // `gemm`'s raw-pointer interface
pub(crate) mod matmul;
#[allow(unsafe_code)]
pub(crate) mod parallel;
mod permute;
pub(crate) mod reduce;
pub(crate) mod rows;
pub(crate) mod select;
pub(crate) mod strided;

use std::mem::MaybeUninit;

use rayon::prelude::*;

use crate::array::element::Element;
use crate::array::shape::{broadcast_strides, c_strides};
use crate::error::{Error, Result};
use crate::kernels::parallel::install;

use isa::dispatch;

pub use attention::{
    attention_into, attention_into_rows, attention_over_q, attention_over_q_rows, AttentionElement,
    AttentionSpec, FullyMasked, Mask, Rows, ATTENTION_KEY_TILE, ATTENTION_QUERY_BLOCK,
};
pub use conv::{conv2d_geometry, ConvElement, ConvGeometry};
pub use elementwise::{BinaryOp, Side, UnaryOp};
pub use fresh::OverInputScratch;
pub use func::{Func, FuncElement, FuncKind};
pub use fused::{fused_inplace, fused_into, FusedArg, Stage, FUSED_BLOCK};
pub use isa::{Isa, Level};
pub use matmul::MatmulElement;
pub use reduce::{Max, Reduce, Sum};
pub use rows::RowElement;

/// Elements below which a kernel stays on the calling thread.
///
/// Measured with `cargo bench --bench relu -- grain` on the 2-core
/// development machine (in-place f32 relu, median): waking rayon's workers
/// costs about 15 µs, so at 2^16 elements two threads took 18.6 µs against
/// 1.4 µs on one, at 2^18 17.5 µs against 7.8 µs, and only at 2^20 did two
/// threads win (33.5 µs against 43.2 µs).
pub const GRAIN: usize = 1 << 20;

/// Threads a parallel kernel splits across: those of the pool
/// [`crate::kernels::parallel::install`] runs it on.
fn threads() -> usize {
    crate::kernels::parallel::threads()
}

/// Chunk length for splitting `n` elements, a multiple of 64 elements.
fn chunk_len(n: usize) -> usize {
    let per = n.div_ceil(threads() * 4).max(GRAIN / 2);
    per.div_ceil(64) * 64
}

fn parallel(n: usize) -> bool {
    n >= GRAIN && threads() > 1
}

/// Element types with kernels: the monomorphic dispatch of op enums.
pub trait KernelElement: crate::RealElement {
    #[doc(hidden)]
    fn unary_run(isa: Isa, op: UnaryOp, src: &[Self], dst: &mut [MaybeUninit<Self>]);
    #[doc(hidden)]
    fn unary_inplace_run(isa: Isa, op: UnaryOp, buf: &mut [Self]);
    #[doc(hidden)]
    fn zip_run(
        isa: Isa,
        op: BinaryOp,
        a: Side<'_, Self>,
        b: Side<'_, Self>,
        dst: &mut [MaybeUninit<Self>],
    );
    #[doc(hidden)]
    fn zip_lhs_run(isa: Isa, op: BinaryOp, a: &mut [Self], b: Side<'_, Self>);
    #[doc(hidden)]
    fn zip_rhs_run(isa: Isa, op: BinaryOp, a: Side<'_, Self>, b: &mut [Self]);
    /// Is `op` defined for this element type?
    fn supports_unary(op: UnaryOp) -> bool;
    /// Is `op` defined for this element type?
    fn supports_binary(op: BinaryOp) -> bool;
}

macro_rules! unary_arms {
    ($isa:expr, $op:expr, $f:ident, $t:ty, $args:tt, [$($name:ident),*]) => {
        match $op {
            $( UnaryOp::$name => dispatch!($isa, $f::<$t, elementwise::$name> $args), )*
            #[allow(unreachable_patterns)]
            _ => {}
        }
    };
}
macro_rules! binary_arms {
    ($isa:expr, $op:expr, $f:ident, $t:ty, $args:tt, [$($name:ident),*]) => {
        match $op {
            $( BinaryOp::$name => dispatch!($isa, $f::<$t, elementwise::$name> $args), )*
            #[allow(unreachable_patterns)]
            _ => {}
        }
    };
}

macro_rules! kernel_element {
    ($t:ty, [$($u:ident),*], [$($b:ident),*]) => {
        impl KernelElement for $t {
            // bool has no unary kernel: its arms are empty.
            #[allow(unused_variables)]
            fn unary_run(isa: Isa, op: UnaryOp, src: &[$t], dst: &mut [MaybeUninit<$t>]) {
                unary_arms!(isa, op, map, $t, (src, dst), [$($u),*])
            }
            #[allow(unused_variables)]
            fn unary_inplace_run(isa: Isa, op: UnaryOp, buf: &mut [$t]) {
                unary_arms!(isa, op, map_inplace, $t, (buf), [$($u),*])
            }
            fn zip_run(isa: Isa, op: BinaryOp, a: Side<'_, $t>, b: Side<'_, $t>, dst: &mut [MaybeUninit<$t>]) {
                binary_arms!(isa, op, zip, $t, (a, b, dst), [$($b),*])
            }
            fn zip_lhs_run(isa: Isa, op: BinaryOp, a: &mut [$t], b: Side<'_, $t>) {
                binary_arms!(isa, op, zip_into_lhs, $t, (a, b), [$($b),*])
            }
            fn zip_rhs_run(isa: Isa, op: BinaryOp, a: Side<'_, $t>, b: &mut [$t]) {
                binary_arms!(isa, op, zip_into_rhs, $t, (a, b), [$($b),*])
            }
            fn supports_unary(op: UnaryOp) -> bool {
                #[allow(unused_variables)]
                let supported = [$(UnaryOp::$u),*].contains(&op);
                supported
            }
            fn supports_binary(op: BinaryOp) -> bool {
                matches!(op, $(BinaryOp::$b)|*)
            }
        }
    };
}
kernel_element!(
    f32,
    [Relu, Neg, Abs, Exp, Log, Sqrt, Tanh, Sigmoid, Gelu],
    [Add, Sub, Mul, Div, Maximum, Minimum]
);
kernel_element!(
    f64,
    [Relu, Neg, Abs, Exp, Log, Sqrt, Tanh, Sigmoid, Gelu],
    [Add, Sub, Mul, Div, Maximum, Minimum]
);
kernel_element!(i8, [Relu, Neg, Abs], [Add, Sub, Mul, Maximum, Minimum]);
kernel_element!(i16, [Relu, Neg, Abs], [Add, Sub, Mul, Maximum, Minimum]);
kernel_element!(i32, [Relu, Neg, Abs], [Add, Sub, Mul, Maximum, Minimum]);
kernel_element!(i64, [Relu, Neg, Abs], [Add, Sub, Mul, Maximum, Minimum]);
kernel_element!(u8, [Relu, Neg, Abs], [Add, Sub, Mul, Maximum, Minimum]);
kernel_element!(u16, [Relu, Neg, Abs], [Add, Sub, Mul, Maximum, Minimum]);
kernel_element!(u32, [Relu, Neg, Abs], [Add, Sub, Mul, Maximum, Minimum]);
kernel_element!(u64, [Relu, Neg, Abs], [Add, Sub, Mul, Maximum, Minimum]);
kernel_element!(bool, [], [Add, Mul, Maximum, Minimum]);

fn check_unary<T: KernelElement>(op: UnaryOp) -> Result<()> {
    if T::supports_unary(op) {
        Ok(())
    } else {
        Err(Error::UnsupportedDType {
            op: op.name(),
            dtype: T::DTYPE,
        })
    }
}

fn check_binary<T: KernelElement>(op: BinaryOp) -> Result<()> {
    if T::supports_binary(op) {
        Ok(())
    } else {
        Err(Error::UnsupportedDType {
            op: op.name(),
            dtype: T::DTYPE,
        })
    }
}

fn len_check(op: &'static str, a: usize, b: usize) -> Result<()> {
    if a != b {
        return Err(Error::ShapeMismatch {
            op,
            lhs: vec![a],
            rhs: vec![b],
        });
    }
    Ok(())
}

/// `dst = op(src)`, on the active instruction set.
pub fn unary<T: KernelElement>(op: UnaryOp, src: &[T], dst: &mut [MaybeUninit<T>]) -> Result<()> {
    unary_with(Isa::active(), op, src, dst)
}

/// [`unary`] on a chosen instruction set (lowered to what the CPU supports).
pub fn unary_with<T: KernelElement>(
    isa: Isa,
    op: UnaryOp,
    src: &[T],
    dst: &mut [MaybeUninit<T>],
) -> Result<()> {
    check_unary::<T>(op)?;
    len_check(op.name(), src.len(), dst.len())?;
    if parallel(src.len()) {
        let c = chunk_len(src.len());
        install(|| {
            src.par_chunks(c)
                .zip(dst.par_chunks_mut(c))
                .for_each(|(s, d)| T::unary_run(isa, op, s, d));
        });
    } else {
        T::unary_run(isa, op, src, dst);
    }
    Ok(())
}

/// `buf = op(buf)`, in place.
pub fn unary_inplace<T: KernelElement>(op: UnaryOp, buf: &mut [T]) -> Result<()> {
    unary_inplace_with(Isa::active(), op, buf)
}

/// [`unary_inplace`] on a chosen instruction set.
pub fn unary_inplace_with<T: KernelElement>(isa: Isa, op: UnaryOp, buf: &mut [T]) -> Result<()> {
    check_unary::<T>(op)?;
    if parallel(buf.len()) {
        let c = chunk_len(buf.len());
        install(|| {
            buf.par_chunks_mut(c)
                .for_each(|s| T::unary_inplace_run(isa, op, s));
        });
    } else {
        T::unary_inplace_run(isa, op, buf);
    }
    Ok(())
}

/// Which buffer a binary op writes.
pub enum BinaryDst<'a, T> {
    /// A fresh output.
    New(&'a mut [MaybeUninit<T>]),
    /// The left operand (it has the output's shape).
    Lhs,
    /// The right operand (it has the output's shape).
    Rhs,
}

/// A broadcasting binary operation split into runs: `rows` runs of `run`
/// output elements each; in each run each operand is either a contiguous
/// slice or one broadcast scalar.
struct Plan {
    run: usize,
    rows: usize,
    a_slice: bool,
    b_slice: bool,
    a_off: Vec<usize>,
    b_off: Vec<usize>,
}

impl Plan {
    /// Offset of run `row` in the left operand.
    fn a_at(&self, row: usize) -> usize {
        self.a_off.get(row).copied().unwrap_or(0)
    }
    /// Offset of run `row` in the right operand.
    fn b_at(&self, row: usize) -> usize {
        self.b_off.get(row).copied().unwrap_or(0)
    }
}

fn plan(a_shape: &[usize], b_shape: &[usize], out: &[usize]) -> Plan {
    // The common cases, without a pass over the dimensions: each operand
    // has the output's shape (one contiguous run) or one element (a
    // broadcast scalar). Empty offsets mean offset 0 for the one run.
    let n: usize = out.iter().product();
    if a_shape == out && b_shape == out {
        // The commonest case first: two operands of the output's shape.
        return Plan {
            run: n,
            rows: 1,
            a_slice: true,
            b_slice: true,
            a_off: Vec::new(),
            b_off: Vec::new(),
        };
    }
    let whole = |s: &[usize]| -> Option<bool> {
        if s == out {
            Some(true)
        } else if s.iter().product::<usize>() == 1 {
            Some(n == 1)
        } else {
            None
        }
    };
    if let (Some(a_slice), Some(b_slice)) = (whole(a_shape), whole(b_shape)) {
        return Plan {
            run: n,
            rows: 1,
            a_slice,
            b_slice,
            a_off: Vec::new(),
            b_off: Vec::new(),
        };
    }
    let sa = broadcast_strides(a_shape, out);
    let sb = broadcast_strides(b_shape, out);
    let cs = c_strides(out);
    // Longest suffix over which each operand is all-contiguous or all-broadcast.
    let fits = |s: &[usize], k: usize| -> Option<bool> {
        let tail = &s[out.len() - k..];
        let ctail = &cs[out.len() - k..];
        if tail.iter().zip(ctail).all(|(x, c)| x == c) {
            Some(true)
        } else if tail
            .iter()
            .zip(&out[out.len() - k..])
            .all(|(x, d)| *x == 0 || *d == 1)
        {
            Some(false)
        } else {
            None
        }
    };
    let mut k = 0;
    let (mut a_slice, mut b_slice) = (true, true);
    while k < out.len() {
        match (fits(&sa, k + 1), fits(&sb, k + 1)) {
            (Some(x), Some(y)) if k == 0 || (x == a_slice && y == b_slice) => {
                a_slice = x;
                b_slice = y;
                k += 1;
            }
            _ => break,
        }
    }
    if k == 0 {
        // 0-d output: one run of one element
        a_slice = true;
        b_slice = true;
    }
    let run: usize = out[out.len() - k..].iter().product();
    let lead = &out[..out.len() - k];
    let rows: usize = lead.iter().product();
    let mut a_off = Vec::with_capacity(rows);
    let mut b_off = Vec::with_capacity(rows);
    let mut idx = vec![0usize; lead.len()];
    for _ in 0..rows {
        a_off.push(idx.iter().zip(&sa).map(|(i, s)| i * s).sum());
        b_off.push(idx.iter().zip(&sb).map(|(i, s)| i * s).sum());
        for d in (0..lead.len()).rev() {
            idx[d] += 1;
            if idx[d] < lead[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Plan {
        run,
        rows,
        a_slice,
        b_slice,
        a_off,
        b_off,
    }
}

/// Run `work(row, at, piece)` over every run of an output of `rows` runs
/// of `run` elements (`dst`), `piece` being elements `at..` of run `row`.
/// Large outputs split across the pool: whole runs per task, or, when the
/// runs are too few to split (one, for operands of the output's shape),
/// each run in pieces.
fn for_each_run<U: Send>(
    dst: &mut [U],
    rows: usize,
    run: usize,
    work: impl Fn(usize, usize, &mut [U]) + Sync,
) {
    let n = dst.len();
    if !parallel(n) {
        for (row, d) in dst.chunks_mut(run).enumerate() {
            work(row, 0, d);
        }
        return;
    }
    let rows_per_task = chunk_len(n).div_ceil(run).max(1);
    if rows_per_task < rows {
        install(|| {
            dst.par_chunks_mut(rows_per_task * run)
                .enumerate()
                .for_each(|(task, chunk)| {
                    for (r, d) in chunk.chunks_mut(run).enumerate() {
                        work(task * rows_per_task + r, 0, d);
                    }
                });
        });
    } else {
        let c = chunk_len(n).min(run);
        install(|| {
            for (row, d) in dst.chunks_mut(run).enumerate() {
                d.par_chunks_mut(c)
                    .enumerate()
                    .for_each(|(j, piece)| work(row, j * c, piece));
            }
        });
    }
}

/// `f(src piece, dst piece)` over `src` and `dst` (of one length), split
/// across the pool when large; true if every call returned true (a
/// function the element type lacks returns false for every piece).
pub(crate) fn split_map<T: Sync, U: Send>(
    src: &[T],
    dst: &mut [MaybeUninit<U>],
    f: impl Fn(&[T], &mut [MaybeUninit<U>]) -> bool + Sync,
) -> bool {
    if !parallel(src.len()) {
        return f(src, dst);
    }
    let c = chunk_len(src.len());
    install(|| {
        src.par_chunks(c)
            .zip(dst.par_chunks_mut(c))
            .map(|(s, d)| f(s, d))
            .reduce(|| true, |x, y| x && y)
    })
}

/// `f(piece)` over `buf` in place, split as [`split_map`].
pub(crate) fn split_inplace<T: Send>(buf: &mut [T], f: impl Fn(&mut [T]) -> bool + Sync) -> bool {
    if !parallel(buf.len()) {
        return f(buf);
    }
    let c = chunk_len(buf.len());
    install(|| buf.par_chunks_mut(c).map(&f).reduce(|| true, |x, y| x && y))
}

/// Apply `f` to the runs of `a` and `b` broadcast to `out` (both
/// C-contiguous), writing `dst` (the output's elements, C order): the
/// broadcasting loop of element-wise functions whose result type may
/// differ from the operands' (and the operands' from each other). Large
/// outputs split across the pool ([`for_each_run`]).
pub(crate) fn broadcast_zip<A: Copy + Sync, B: Copy + Sync, U: Send>(
    a: &[A],
    a_shape: &[usize],
    b: &[B],
    b_shape: &[usize],
    out: &[usize],
    dst: &mut [MaybeUninit<U>],
    f: impl Fn(Side<'_, A>, Side<'_, B>, &mut [MaybeUninit<U>]) + Sync,
) {
    if dst.is_empty() {
        return;
    }
    let p = plan(a_shape, b_shape, out);
    for_each_run(dst, p.rows, p.run, |row, at, d| {
        let len = d.len();
        f(
            side(a, p.a_at(row), p.run, p.a_slice).part(at, len),
            side(b, p.b_at(row), p.run, p.b_slice).part(at, len),
            d,
        );
    });
}

/// Apply `f` to the runs of `io` (of the output's shape `out`) and of
/// `other` broadcast to `out`, in place (split as [`broadcast_zip`]).
pub(crate) fn broadcast_zip_into<T: Copy + Send + Sync>(
    io: &mut [T],
    other: &[T],
    other_shape: &[usize],
    out: &[usize],
    f: impl Fn(&mut [T], Side<'_, T>) + Sync,
) {
    if io.is_empty() {
        return;
    }
    let p = plan(out, other_shape, out);
    for_each_run(io, p.rows, p.run, |row, at, d| {
        let len = d.len();
        f(d, side(other, p.b_at(row), p.run, p.b_slice).part(at, len));
    });
}

fn side<T: Copy>(x: &[T], off: usize, run: usize, slice: bool) -> Side<'_, T> {
    if slice {
        Side::Slice(&x[off..off + run])
    } else {
        Side::Scalar(x[off])
    }
}

/// A binary op with NumPy broadcasting. `a` and `b` are C-contiguous with
/// shapes `a_shape` and `b_shape`; `out` is their broadcast shape. With
/// `BinaryDst::Lhs`/`Rhs` the result overwrites that operand, which must have
/// the output's shape; `a`/`b` for that side is then ignored and read from the
/// operand itself (`inout`).
// Two operands with their shapes, the output's shape, where the result goes
// and the operand it overwrites: a struct would only rename the arguments.
#[allow(clippy::too_many_arguments)]
pub fn binary<T: KernelElement>(
    op: BinaryOp,
    a: &[T],
    a_shape: &[usize],
    b: &[T],
    b_shape: &[usize],
    out: &[usize],
    dst: BinaryDst<'_, T>,
    inout: Option<&mut [T]>,
) -> Result<()> {
    check_binary::<T>(op)?;
    let isa = Isa::active();
    let n: usize = out.iter().product();
    if n == 0 {
        return Ok(());
    }
    let p = plan(a_shape, b_shape, out);
    let run = p.run;
    match dst {
        BinaryDst::New(d) => {
            if d.len() != n {
                return len_check(op.name(), d.len(), n);
            }
            for_each_run(d, p.rows, run, |row, at, piece| {
                let len = piece.len();
                let sa = side(a, p.a_at(row), run, p.a_slice).part(at, len);
                let sb = side(b, p.b_at(row), run, p.b_slice).part(at, len);
                T::zip_run(isa, op, sa, sb, piece);
            });
        }
        BinaryDst::Lhs | BinaryDst::Rhs => {
            let lhs = matches!(dst, BinaryDst::Lhs);
            let io = inout.ok_or_else(|| Error::InvalidShape {
                op: op.name(),
                shape: out.to_vec(),
                reason: "in-place binary op without its operand".into(),
            })?;
            len_check(op.name(), io.len(), n)?;
            for_each_run(io, p.rows, run, |row, at, piece| {
                // Only the other operand is read from its slice: the
                // written one is `io`.
                let len = piece.len();
                if lhs {
                    let sb = side(b, p.b_at(row), run, p.b_slice).part(at, len);
                    T::zip_lhs_run(isa, op, piece, sb);
                } else {
                    let sa = side(a, p.a_at(row), run, p.a_slice).part(at, len);
                    T::zip_rhs_run(isa, op, sa, piece);
                }
            });
        }
    }
    Ok(())
}

/// Convert `src` into another element type ([`crate::array::element::convert`]:
/// floats to ints truncate toward zero and saturate, NaN becomes 0;
/// integers wrap to the narrower width, as NumPy's `astype`).
pub fn cast<S: Element, D: Element>(src: &[S], dst: &mut [MaybeUninit<D>]) {
    let f = |d: &mut [MaybeUninit<D>], s: &[S]| {
        // (float16 to and from float32 a slice at a time)
        if !float16::convert(s, d) {
            for (d, s) in d.iter_mut().zip(s) {
                d.write(crate::array::element::convert::<S, D>(*s));
            }
        }
    };
    if parallel(src.len()) {
        let c = chunk_len(src.len());
        install(|| {
            dst.par_chunks_mut(c)
                .zip(src.par_chunks(c))
                .for_each(|(d, s)| f(d, s));
        });
    } else {
        f(dst, src);
    }
}

/// `dst = src`, in parallel for large slices.
pub fn copy<T: Element>(src: &[T], dst: &mut [MaybeUninit<T>]) {
    let f = |d: &mut [MaybeUninit<T>], s: &[T]| {
        for (d, s) in d.iter_mut().zip(s) {
            d.write(*s);
        }
    };
    if parallel(src.len()) {
        let c = chunk_len(src.len());
        install(|| {
            dst.par_chunks_mut(c)
                .zip(src.par_chunks(c))
                .for_each(|(d, s)| f(d, s));
        });
    } else {
        f(dst, src);
    }
}

/// Fill `dst` with `v`.
pub fn fill<T: Element>(dst: &mut [MaybeUninit<T>], v: T) {
    for d in dst.iter_mut() {
        d.write(v);
    }
}
