//! Kernels that write a fresh buffer: allocate uninitialised memory, fill
//! every element, and only then hand it out as an initialised
//! [`OwnedBuffer`]. Keeping `assume_init` here means no other module needs
//! `unsafe` to create tensors.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::array::element::Element;
use crate::error::Result;
use crate::memory::buffer::{OwnedBuffer, UninitBuffer};

use super::columns::ColumnBlock;
use super::conv::{ConvElement, ConvGeometry};
use super::matmul::{self, BatchOffsets, MatmulElement};
use super::reduce::{self, Reduce};
use super::{BinaryDst, BinaryOp, KernelElement, Side, UnaryOp};

/// `n` copies of `v`.
pub(crate) fn filled<T: Element>(n: usize, v: T) -> Result<OwnedBuffer> {
    let mut out = UninitBuffer::<T>::new(n)?;
    super::fill(out.as_uninit_mut(), v);
    // SAFETY: `fill` wrote every element.
    Ok(unsafe { out.assume_init() })
}

/// `n` elements from `items`, in order: an error (and no buffer) if it
/// yields fewer.
pub(crate) fn from_iter<T: Element>(
    n: usize,
    items: impl IntoIterator<Item = T>,
) -> Result<OwnedBuffer> {
    let mut out = UninitBuffer::<T>::new(n)?;
    let mut written = 0;
    for (d, v) in out.as_uninit_mut().iter_mut().zip(items) {
        d.write(v);
        written += 1;
    }
    if written != n {
        return Err(crate::error::Error::LengthMismatch {
            shape: vec![n],
            expected: n,
            found: written,
        });
    }
    // SAFETY: `written == n`: the loop wrote every one of the `n` elements.
    Ok(unsafe { out.assume_init() })
}

/// A copy of `src`.
pub(crate) fn copied<T: Element>(src: &[T]) -> Result<OwnedBuffer> {
    let mut out = UninitBuffer::<T>::new(src.len())?;
    super::copy(src, out.as_uninit_mut());
    // SAFETY: `copy` wrote every element (dst and src have equal lengths).
    Ok(unsafe { out.assume_init() })
}

/// A new buffer holding `src` with `f` applied to each of its rows of
/// `row` elements: each row is copied into its place and `f` runs on it
/// there, in one loop (in parallel when large). The out-of-place form of a
/// row op with an in-place kernel (softmax, layer norm), without a
/// separate one-thread copy pass: each row is still in cache for `f`, and
/// the new pages are first touched by the thread that computes them.
pub(crate) fn rows_then<T: Element>(
    src: &[T],
    row: usize,
    f: impl Fn(&mut [T]) + Sync + Send,
) -> Result<OwnedBuffer> {
    use rayon::prelude::*;

    let mut out = UninitBuffer::<T>::new(src.len())?;
    if row > 0 {
        let one = |(d, s): (&mut [std::mem::MaybeUninit<T>], &[T])| {
            for (d, s) in d.iter_mut().zip(s) {
                d.write(*s);
            }
            // SAFETY: every element of `d` was just written: `d` and `s`
            // are chunks of one length of two slices of one length.
            let d = unsafe { &mut *(std::ptr::from_mut(d) as *mut [T]) };
            f(d);
        };
        let dst = out.as_uninit_mut();
        if super::parallel(src.len()) && src.len() > row {
            super::parallel::install(|| {
                dst.par_chunks_mut(row)
                    .zip(src.par_chunks(row))
                    .for_each(one);
            });
        } else {
            dst.chunks_mut(row).zip(src.chunks(row)).for_each(one);
        }
    }
    // SAFETY: the rows cover the buffer (`src.len()` elements, a whole
    // number of rows; none when `row` is 0, for then `src` is empty), and
    // each was written.
    Ok(unsafe { out.assume_init() })
}

/// A new buffer of `n` elements made chunk by chunk: each chunk of
/// `chunk` elements (the last may be shorter) is first set to zeros, then
/// `f(state, c, dst)` writes chunk `c` over them, with a `state` from
/// `init` reused across the chunks one thread does (a kernel's working
/// buffers). In parallel when `parallel` (the caller knows its cost per
/// element). Zeroing a chunk just before `f` writes it costs a pass over
/// cache, not over memory, and leaves no element unwritten whatever `f`
/// does; the new pages are first touched by the thread that computes them.
pub(crate) fn chunked<T: Element, S>(
    n: usize,
    chunk: usize,
    parallel: bool,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, usize, &mut [T]) + Sync + Send,
) -> Result<OwnedBuffer> {
    let one = |state: &mut S, c: usize, d: &mut [std::mem::MaybeUninit<T>]| {
        for d in d.iter_mut() {
            d.write(T::ZERO);
        }
        // SAFETY: every element of `d` was just written.
        let d = unsafe { &mut *(std::ptr::from_mut(d) as *mut [T]) };
        f(state, c, d);
    };
    let parallel = super::parallel::splits(n, chunk, parallel);
    // A sequential state (a kernel's working buffers) is made before the
    // result's buffer. Made after it, the C library's heap returned two
    // 16 MiB working buffers of a 2^20-point `fft` to the system at every
    // call and faulted their pages in again (8,160 faults, twice the
    // time; docs/measurements.md); made first, they stay in the heap.
    let mut state = (!parallel).then(&init);
    let mut out = UninitBuffer::<T>::new(n)?;
    match state.as_mut() {
        Some(state) => super::parallel::chunks_with(out.as_uninit_mut(), chunk, state, one),
        None => super::parallel::chunks_split(out.as_uninit_mut(), chunk, init, one),
    }
    // SAFETY: the chunks cover the buffer, and each element of each was
    // written before `f` saw it.
    Ok(unsafe { out.assume_init() })
}

/// A new buffer of `slabs` slabs of `rows` by `cols` (C order) made a
/// block of `width` neighbouring columns at a time: each block is first
/// set to zeros, then `f(state, s, block)` writes the block of slab `s`
/// over them, with a `state` from `init` reused across the blocks one
/// thread does. In parallel when `parallel` and there are several blocks.
/// The column form of [`chunked`], for a kernel whose units are lines
/// along an inner axis (see [`super::columns`]).
pub(crate) fn column_blocked<T: Element, S>(
    slabs: usize,
    rows: usize,
    cols: usize,
    width: usize,
    parallel: bool,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, usize, &mut ColumnBlock<'_, T>) + Sync + Send,
) -> Result<OwnedBuffer> {
    let width = width.max(1);
    let parallel = super::parallel::splits(slabs * cols.div_ceil(width), 1, parallel);
    // Made before the result's buffer, as in [`chunked`].
    let mut state = (!parallel).then(&init);
    let mut out = UninitBuffer::<T>::new(slabs * rows * cols)?;
    let units = super::columns::slab_blocks(out.as_uninit_mut(), rows * cols, cols, width);
    let one = |state: &mut S, (s, block): (usize, ColumnBlock<'_, MaybeUninit<T>>)| {
        f(state, s, &mut block.zeroed());
    };
    match state.as_mut() {
        Some(state) => units.into_iter().for_each(|u| one(state, u)),
        None => super::parallel::items_split(units, init, one),
    }
    // SAFETY: the blocks cover every column of every slab (`slab_blocks`),
    // and each was zeroed before `f` saw it.
    Ok(unsafe { out.assume_init() })
}

/// The view `layout` of `src` copied into C order.
pub(crate) fn gathered<T: Element>(
    src: &[T],
    layout: &crate::array::layout::Layout,
) -> Result<OwnedBuffer> {
    let mut out = UninitBuffer::<T>::new(layout.numel())?;
    super::strided::gather_into(src, layout, out.as_uninit_mut());
    // SAFETY: `gather_into` writes one element per position of the view,
    // and the buffer has the view's element count.
    Ok(unsafe { out.assume_init() })
}

/// `src` converted to `D`.
pub(crate) fn cast<S: Element, D: Element>(src: &[S]) -> Result<OwnedBuffer> {
    let mut out = UninitBuffer::<D>::new(src.len())?;
    super::cast(src, out.as_uninit_mut());
    // SAFETY: `cast` wrote every element (equal lengths).
    Ok(unsafe { out.assume_init() })
}

/// `src` (shape `shape`) with its axes permuted by `axes` (checked by the
/// caller to be a permutation).
pub(crate) fn permuted<T: Element>(
    src: &[T],
    shape: &[usize],
    axes: &[usize],
) -> Result<OwnedBuffer> {
    let mut out = UninitBuffer::<T>::new(src.len())?;
    super::permute::permute_into(src, shape, axes, out.as_uninit_mut());
    // SAFETY: permute_into writes every element of every rows×cols block of
    // the output, and the blocks tile it (or it is empty / copied whole).
    Ok(unsafe { out.assume_init() })
}

/// Scaled dot-product attention into a fresh `[batch, L, Ev]` buffer.
pub(crate) fn attention<T: super::AttentionElement>(
    q: &super::attention::Rows<'_, T>,
    k: super::attention::Rows<'_, T>,
    v: super::attention::Rows<'_, T>,
    spec: &super::AttentionSpec<'_, T>,
) -> Result<OwnedBuffer> {
    let n = spec.batch.saturating_mul(spec.l).saturating_mul(spec.ev);
    let mut out = UninitBuffer::<T>::new(n)?;
    super::attention::attention_into_rows(q, k, v, spec, out.as_uninit_mut())?;
    // SAFETY: `attention_into` returned Ok, so it wrote every one of the
    // batch·L·Ev elements.
    Ok(unsafe { out.assume_init() })
}

/// `op(src)`.
pub(crate) fn unary<T: KernelElement>(op: UnaryOp, src: &[T]) -> Result<OwnedBuffer> {
    let mut out = UninitBuffer::<T>::new(src.len())?;
    super::unary(op, src, out.as_uninit_mut())?;
    // SAFETY: `unary` returned Ok, so it checked the op and the equal lengths
    // and wrote every element.
    Ok(unsafe { out.assume_init() })
}

/// A fused element-wise chain ([`super::fused`]) into a fresh buffer of
/// `n` elements.
pub(crate) fn fused<T: KernelElement>(
    stages: &[super::fused::Stage<'_, T>],
    n: usize,
) -> Result<OwnedBuffer> {
    let mut out = UninitBuffer::<T>::new(n)?;
    super::fused::fused_into(stages, out.as_uninit_mut())?;
    // SAFETY: `fused_into` returned Ok: its first stage wrote every one of
    // the `n` elements (every block of the output).
    Ok(unsafe { out.assume_init() })
}

/// `op(a, b)` with broadcasting into a fresh buffer of shape `out`.
pub(crate) fn binary<T: KernelElement>(
    op: BinaryOp,
    a: &[T],
    a_shape: &[usize],
    b: &[T],
    b_shape: &[usize],
    out: &[usize],
) -> Result<OwnedBuffer> {
    let n: usize = out.iter().product();
    let mut buf = UninitBuffer::<T>::new(n)?;
    super::binary(
        op,
        a,
        a_shape,
        b,
        b_shape,
        out,
        BinaryDst::New(buf.as_uninit_mut()),
        None,
    )?;
    // SAFETY: `binary` returned Ok: every run of every row of the output was
    // written (or n == 0).
    Ok(unsafe { buf.assume_init() })
}

/// Reduce `x` (viewed as `[outer, len, inner]`) along the middle axis.
pub(crate) fn reduce_axis<T: Copy + Send + Sync + Element, R: Reduce<T>>(
    x: &[T],
    outer: usize,
    len: usize,
    inner: usize,
) -> Result<OwnedBuffer> {
    let mut out = UninitBuffer::<T>::new(outer * inner)?;
    reduce::reduce_axis::<T, R>(x, outer, len, inner, out.as_uninit_mut());
    // SAFETY: reduce_axis writes every one of the outer*inner results.
    Ok(unsafe { out.assume_init() })
}

/// A batch of `m×k · k×n` products.
pub(crate) fn matmul<T: MatmulElement>(
    a: matmul::MatRef<'_, T>,
    b: matmul::MatRef<'_, T>,
    m: usize,
    k: usize,
    n: usize,
    offs: &[BatchOffsets],
) -> Result<OwnedBuffer> {
    let mut out = UninitBuffer::<T>::new(offs.len() * m * n)?;
    matmul::matmul_batched(a, b, out.as_uninit_mut(), m, k, n, offs);
    // SAFETY: each of the offs.len() products writes all of its m*n outputs
    // (gemm with read_dst = false overwrites; k == 0 writes zeros).
    Ok(unsafe { out.assume_init() })
}

/// A 2-d convolution (see [`conv`](super::conv)), plus a per-output-channel
/// `bias`. The column-matrix scratch is a counted allocation of its own,
/// freed before this returns, so peak statistics include it.
pub(crate) fn conv2d<T: ConvElement>(
    g: &ConvGeometry,
    x: &[T],
    w: &[T],
    bias: Option<&[T]>,
) -> Result<OwnedBuffer> {
    let (oh, ow) = g.out_hw();
    let plane = oh * ow;
    let mut out = UninitBuffer::<T>::new(g.batch * g.out_channels * plane)?;
    let mut scratch = conv_scratch::<T>(g)?;
    super::conv::conv2d(g, x, w, scratch.as_mut_slice::<T>(), out.as_uninit_mut());
    drop(scratch);
    // SAFETY: `conv2d` writes all `out_channels * plane` outputs of each of
    // the `batch` images (gemm with read_dst = false overwrites; an empty
    // reduction writes zeros).
    let mut out = unsafe { out.assume_init() };
    add_channel_bias(out.as_mut_slice::<T>(), plane, bias);
    Ok(out)
}

/// One image's column matrix. `im2col` overwrites all of it, so it only
/// needs to be initialised, which zeroed memory from the allocator is
/// without a pass over it.
fn conv_scratch<T: ConvElement>(g: &ConvGeometry) -> Result<OwnedBuffer> {
    OwnedBuffer::zeroed(crate::memory::buffer::byte_size::<T>(g.scratch_len())?)
}

fn add_channel_bias<T: ConvElement>(out: &mut [T], plane: usize, bias: Option<&[T]>) {
    if let Some(b) = bias {
        let ones = vec![T::ONE; b.len()];
        super::conv::channel_affine_inplace(out, plane, &ones, b);
    }
}

/// The scratch of a convolution written over its input (planned as
/// [`Purpose::Scratch`](crate::plan::Purpose::Scratch)): one image's column
/// matrix and one image's result, both counted allocations. It is allocated before the input's
/// buffer is claimed, so that a failed allocation leaves the input intact
/// (an operation's allocations all come before its first write).
#[derive(Debug)]
pub struct OverInputScratch {
    col: OwnedBuffer,
    image: OwnedBuffer,
}

impl OverInputScratch {
    /// Room for geometry `g` in elements of type `T`. Both parts come
    /// zeroed from the allocator (fresh pages cost no pass; the kernels
    /// overwrite them).
    pub fn new<T: ConvElement>(g: &ConvGeometry) -> Result<Self> {
        let image = g.in_channels * g.height * g.width;
        Ok(Self {
            col: conv_scratch::<T>(g)?,
            image: OwnedBuffer::zeroed(crate::memory::buffer::byte_size::<T>(image)?)?,
        })
    }
}

/// A 2-d convolution written over its input's buffer `io` (the result has
/// the input's shape; see [`conv2d_over_input`](super::conv::conv2d_over_input)),
/// with scratch allocated beforehand by [`OverInputScratch::new`] for the
/// same geometry and element type.
pub(crate) fn conv2d_over_input<T: ConvElement>(
    g: &ConvGeometry,
    io: &mut [T],
    w: &[T],
    bias: Option<&[T]>,
    scratch: &mut OverInputScratch,
) {
    let (oh, ow) = g.out_hw();
    super::conv::conv2d_over_input(
        g,
        io,
        w,
        scratch.col.as_mut_slice::<T>(),
        scratch.image.as_mut_slice::<T>(),
    );
    add_channel_bias(io, oh * ow, bias);
}

/// `f(src)` into a new buffer: of `T` (`test` false) or of bool (`test`
/// true). `None` if `T` has no such function (planning rejects that
/// first).
pub(crate) fn func_unary<T: super::FuncElement>(
    f: super::Func,
    src: &[T],
    test: bool,
) -> Result<Option<OwnedBuffer>> {
    if test {
        let mut out = UninitBuffer::<bool>::new(src.len())?;
        if !super::split_map(src, out.as_uninit_mut(), |s, d| T::map_test(f, s, d)) {
            return Ok(None);
        }
        // SAFETY: `map_test` returned true for every piece `split_map`
        // handed it (the pieces cover `src` and the buffer, which has
        // `src.len()` elements), so it wrote one element per element.
        Ok(Some(unsafe { out.assume_init() }))
    } else {
        let mut out = UninitBuffer::<T>::new(src.len())?;
        if !super::split_map(src, out.as_uninit_mut(), |s, d| T::map_same(f, s, d)) {
            return Ok(None);
        }
        // SAFETY: as above, with `map_same`.
        Ok(Some(unsafe { out.assume_init() }))
    }
}

/// The comparison `f` (one of [`FuncKind::Compare`](super::FuncKind))
/// of two integer operands of different dtypes, exactly (each read as an
/// `i128`, which holds every integer dtype's values), broadcast to `out`
/// into a new bool buffer. `None` if `f` is not a comparison.
pub(crate) fn compare_exact<A: Copy + Into<i128> + Sync, B: Copy + Into<i128> + Sync>(
    f: super::Func,
    a: &[A],
    a_shape: &[usize],
    b: &[B],
    b_shape: &[usize],
    out: &[usize],
) -> Result<Option<OwnedBuffer>> {
    use super::Func::{Equal as Eq, Greater as Gt, GreaterEqual, Less as Lt, LessEqual, NotEqual};
    use std::cmp::Ordering::{Equal, Greater, Less};
    let holds: fn(std::cmp::Ordering) -> bool = match f {
        Eq => |o| o == Equal,
        NotEqual => |o| o != Equal,
        Lt => |o| o == Less,
        LessEqual => |o| o != Greater,
        Gt => |o| o == Greater,
        GreaterEqual => |o| o != Less,
        _ => return Ok(None),
    };
    let n: usize = out.iter().product();
    let mut buf = UninitBuffer::<bool>::new(n)?;
    super::broadcast_zip(
        a,
        a_shape,
        b,
        b_shape,
        out,
        buf.as_uninit_mut(),
        |x, y, d| {
            for (k, e) in d.iter_mut().enumerate() {
                let (x, y): (i128, i128) = (x.at(k).into(), y.at(k).into());
                e.write(holds(x.cmp(&y)));
            }
        },
    );
    // SAFETY: `broadcast_zip` hands the closure every run of the `n`
    // output elements, and the closure writes each element of each run.
    Ok(Some(unsafe { buf.assume_init() }))
}

/// `f(a, b)` broadcast to `out` into a new buffer: of `T` (`test` false)
/// or of bool. `a` and `b` are C-contiguous with the shapes given, which
/// broadcast to `out` (checked by planning). `None` as [`func_unary`].
pub(crate) fn func_binary<T: super::FuncElement>(
    f: super::Func,
    a: &[T],
    a_shape: &[usize],
    b: &[T],
    b_shape: &[usize],
    out: &[usize],
    test: bool,
) -> Result<Option<OwnedBuffer>> {
    let n: usize = out.iter().product();
    // Cleared by a run whose function `T` lacks (every run alike).
    let ok = AtomicBool::new(true);
    let fail = || ok.store(false, Ordering::Relaxed);
    if test {
        let mut buf = UninitBuffer::<bool>::new(n)?;
        super::broadcast_zip(
            a,
            a_shape,
            b,
            b_shape,
            out,
            buf.as_uninit_mut(),
            |x, y, d| {
                if !T::zip_test(f, x, y, d) {
                    fail();
                }
            },
        );
        if !ok.load(Ordering::Relaxed) {
            return Ok(None);
        }
        // SAFETY: `broadcast_zip` hands `zip_test` every run of the `n`
        // output elements with operand sides of the run's length, and
        // `zip_test` returned true for each, so it wrote every element.
        Ok(Some(unsafe { buf.assume_init() }))
    } else {
        let mut buf = UninitBuffer::<T>::new(n)?;
        super::broadcast_zip(
            a,
            a_shape,
            b,
            b_shape,
            out,
            buf.as_uninit_mut(),
            |x, y, d| {
                if !T::zip_same(f, x, y, d) {
                    fail();
                }
            },
        );
        if !ok.load(Ordering::Relaxed) {
            return Ok(None);
        }
        // SAFETY: as above, with `zip_same`.
        Ok(Some(unsafe { buf.assume_init() }))
    }
}

/// `f` of each element of `src` into a fresh buffer (the complex kernels,
/// [`super::complex`]).
pub(crate) fn map_new<T: Copy, U: Element>(src: &[T], f: impl Fn(T) -> U) -> Result<OwnedBuffer> {
    let mut out = UninitBuffer::<U>::new(src.len())?;
    for (d, s) in out.as_uninit_mut().iter_mut().zip(src) {
        d.write(f(*s));
    }
    // SAFETY: the buffer has `src.len()` elements and the loop wrote one
    // per element of `src`.
    Ok(unsafe { out.assume_init() })
}

/// `f(a, b)` broadcast to `out` into a fresh buffer (the complex kernels).
/// `a` and `b` are C-contiguous with the shapes given, which broadcast to
/// `out` (checked by planning).
pub(crate) fn zip_new<T: Copy + Sync, U: Element>(
    a: &[T],
    a_shape: &[usize],
    b: &[T],
    b_shape: &[usize],
    out: &[usize],
    f: impl Fn(T, T) -> U + Sync,
) -> Result<OwnedBuffer> {
    let n: usize = out.iter().product();
    let mut buf = UninitBuffer::<U>::new(n)?;
    super::broadcast_zip(
        a,
        a_shape,
        b,
        b_shape,
        out,
        buf.as_uninit_mut(),
        |x, y, d| match (x, y) {
            (Side::Slice(x), Side::Slice(y)) => {
                for ((d, x), y) in d.iter_mut().zip(x).zip(y) {
                    d.write(f(*x, *y));
                }
            }
            (Side::Slice(x), Side::Scalar(y)) => {
                for (d, x) in d.iter_mut().zip(x) {
                    d.write(f(*x, y));
                }
            }
            (Side::Scalar(x), Side::Slice(y)) => {
                for (d, y) in d.iter_mut().zip(y) {
                    d.write(f(x, *y));
                }
            }
            (Side::Scalar(x), Side::Scalar(y)) => {
                for d in d.iter_mut() {
                    d.write(f(x, y));
                }
            }
        },
    );
    // SAFETY: `broadcast_zip` hands the closure every run of the `n`
    // output elements, with operand sides of the run's length (a slice of
    // it, or one scalar), and the closure writes every element of each run.
    Ok(unsafe { buf.assume_init() })
}
