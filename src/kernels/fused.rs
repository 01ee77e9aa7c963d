//! A chain of element-wise operations in one pass over memory.
//!
//! # The model
//!
//! A chain is a list of [`Stage`]s over one output of `n` elements: each
//! stage is a unary or binary element-wise op whose arguments are the
//! output itself as the previous stage left it ([`FusedArg::Io`]), a
//! slice of `n` elements read in step with the output, a shorter slice
//! repeated along it ([`FusedArg::Cycle`]: a bias row broadcast over the
//! rows), or one scalar.
//! Instead of running each stage over all `n` elements (one full pass over
//! memory per stage), the output is cut into blocks of [`FUSED_BLOCK`]
//! elements, and every stage runs over one block before the next block
//! starts: the block stays in the core's cache from the first stage to
//! the last, and memory is read and written once. Blocks are split across
//! threads as the other kernels split their work (see
//! [`parallel`](super::parallel)).
//!
//! Each stage calls the same per-ISA loop the unfused op calls
//! ([`KernelElement::unary_run`], [`KernelElement::zip_lhs_run`] and the
//! others) on the block's slices, so every element goes through the same
//! element function, on the same instruction set, in the same order of
//! stages: the result is bit for bit the unfused one. No new arithmetic
//! lives here. A stage with a [`FusedArg::Cycle`] runs its block in
//! segments that end where a repetition of the cycle ends, so every call
//! of the loop reads plain slices, as the unfused broadcasting loop does
//! (one run per row, [`super::binary`]'s).
//!
//! # In place
//!
//! Stage `k > 0` reads the output block that stage `k - 1` wrote
//! (`Io`) and writes its result over it, as the unfused in-place kernels
//! do. The first stage either writes a fresh output from its arguments
//! ([`fused_into`]), or reads the output's current elements as one of its
//! arguments ([`fused_inplace`]: the output buffer is that argument's
//! buffer). Either way every stage reads elements `[a, b)` of its
//! arguments and writes elements `[a, b)` of the output, and block
//! `[a, b)` is finished before any other block is touched by the same
//! thread; no two threads share a block. An `Io` element is therefore read
//! before it is overwritten at the same index, and never read after:
//! writing over the first stage's argument is exactly as safe as the
//! unfused in-place op over it. The slices of other arguments must not be
//! the output's buffer (the caller's contract, which the borrow of `out`
//! already enforces in safe code).

use std::mem::MaybeUninit;

use rayon::prelude::*;

use super::parallel::install;
use super::{check_binary, check_unary, BinaryOp, Isa, KernelElement, Side, UnaryOp};
use crate::error::{Error, Result};

/// Elements of one block: 4096 elements of `f32` are 16 KiB, so a block
/// and one other operand's block stay in a 48 KiB L1 data cache.
pub const FUSED_BLOCK: usize = 4096;

/// An argument of a fused stage.
#[derive(Debug, Clone, Copy)]
pub enum FusedArg<'a, T> {
    /// The output's elements as the previous stage left them (for the
    /// first stage of [`fused_inplace`]: the output buffer's contents).
    Io,
    /// `n` elements read in step with the output.
    Slice(&'a [T]),
    /// A slice repeated along the output: element `i` is
    /// `c[i % c.len()]` (an operand broadcast along the leading axes, as a
    /// bias row over the rows of a matrix). Its length divides `n`.
    Cycle(&'a [T]),
    /// One value for every element.
    Scalar(T),
}

/// One stage of a fused chain.
#[derive(Debug, Clone, Copy)]
pub enum Stage<'a, T> {
    Unary(UnaryOp, FusedArg<'a, T>),
    Binary(BinaryOp, FusedArg<'a, T>, FusedArg<'a, T>),
}

impl<T> Stage<'_, T> {
    fn args(&self) -> [Option<&FusedArg<'_, T>>; 2] {
        match self {
            Stage::Unary(_, a) => [Some(a), None],
            Stage::Binary(_, a, b) => [Some(a), Some(b)],
        }
    }

    fn ios(&self) -> usize {
        self.args()
            .into_iter()
            .flatten()
            .filter(|a| matches!(a, FusedArg::Io))
            .count()
    }

    /// How many elements from output position `pos` on every argument
    /// reads as one plain slice: to the end of the current repetition of
    /// each cycle (unbounded without one).
    fn run_from(&self, pos: usize) -> usize {
        self.args()
            .into_iter()
            .flatten()
            .filter_map(|a| match a {
                FusedArg::Cycle(c) => Some(c.len() - pos % c.len()),
                _ => None,
            })
            .min()
            .unwrap_or(usize::MAX)
    }
}

fn invalid(reason: String) -> Error {
    Error::InvalidArgument {
        op: "fusion",
        reason,
    }
}

/// Check a chain over `n` elements: every op defined for `T`, every slice
/// `n` long, every cycle non-empty and dividing `n`, a unary stage on a
/// tensor, and exactly one `Io` argument in every stage but the first,
/// which has one when `in_place` (else none).
fn check<T: KernelElement>(stages: &[Stage<'_, T>], n: usize, in_place: bool) -> Result<()> {
    if stages.is_empty() {
        return Err(invalid("an empty chain".into()));
    }
    for (k, s) in stages.iter().enumerate() {
        let args: [Option<&FusedArg<'_, T>>; 2] = match s {
            Stage::Unary(op, a) => {
                check_unary::<T>(*op)?;
                [Some(a), None]
            }
            Stage::Binary(op, a, b) => {
                check_binary::<T>(*op)?;
                [Some(a), Some(b)]
            }
        };
        for a in args.into_iter().flatten() {
            match a {
                FusedArg::Slice(s) if s.len() != n => {
                    return Err(invalid(format!(
                        "stage {k} reads {} elements of {n}",
                        s.len()
                    )))
                }
                FusedArg::Cycle(c) if c.is_empty() || !n.is_multiple_of(c.len()) => {
                    return Err(invalid(format!(
                        "stage {k} repeats {} elements along {n}",
                        c.len()
                    )))
                }
                FusedArg::Scalar(_) if matches!(s, Stage::Unary(..)) => {
                    return Err(invalid(format!("stage {k}: a unary op of a scalar")))
                }
                _ => {}
            }
        }
        let want = usize::from(k > 0 || in_place);
        if s.ios() != want {
            return Err(invalid(format!(
                "stage {k} reads the output {} times, not {want}",
                s.ios()
            )));
        }
    }
    Ok(())
}

/// Run `stages` over one block: elements `[off, off + blk.len())` of the
/// output, `init` when the block already holds initialised elements (the
/// first stage of [`fused_inplace`]).
fn run_block<T: KernelElement>(
    isa: Isa,
    stages: &[Stage<'_, T>],
    off: usize,
    blk: &mut [MaybeUninit<T>],
    mut init: bool,
) {
    let n = blk.len();
    for s in stages {
        // Checked by `check`: an `Io` argument only where `init` holds.
        debug_assert!(init || s.ios() == 0);
        // In segments over which every argument is one plain slice (the
        // whole block unless a cycle repeats inside it).
        let mut at = 0;
        while at < n {
            let len = s.run_from(off + at).min(n - at);
            run_stage(isa, s, off + at, &mut blk[at..at + len], init);
            at += len;
        }
        init = true;
    }
}

/// Run stage `s` over elements `[pos, pos + seg.len())` of the output,
/// over which every argument is one plain slice.
fn run_stage<T: KernelElement>(
    isa: Isa,
    s: &Stage<'_, T>,
    pos: usize,
    seg: &mut [MaybeUninit<T>],
    init: bool,
) {
    let n = seg.len();
    let side = |a| side(a, pos, n);
    match *s {
        Stage::Unary(op, FusedArg::Io) => T::unary_inplace_run(isa, op, assume_init(seg, init)),
        Stage::Unary(op, x) => match side(x) {
            Side::Slice(x) => T::unary_run(isa, op, x, seg),
            Side::Scalar(_) => unreachable!("checked: a unary op of a tensor"),
        },
        Stage::Binary(op, FusedArg::Io, b) => {
            T::zip_lhs_run(isa, op, assume_init(seg, init), side(b));
        }
        Stage::Binary(op, a, FusedArg::Io) => {
            T::zip_rhs_run(isa, op, side(a), assume_init(seg, init));
        }
        Stage::Binary(op, a, b) => T::zip_run(isa, op, side(a), side(b), seg),
    }
}

/// Argument `a` over the output's elements `[pos, pos + n)` (for a cycle,
/// within one repetition: [`Stage::run_from`]).
fn side<T: Copy>(a: FusedArg<'_, T>, pos: usize, n: usize) -> Side<'_, T> {
    match a {
        FusedArg::Slice(s) => Side::Slice(&s[pos..pos + n]),
        FusedArg::Cycle(c) => {
            let at = pos % c.len();
            Side::Slice(&c[at..at + n])
        }
        FusedArg::Scalar(v) => Side::Scalar(v),
        FusedArg::Io => unreachable!("the output is read in place"),
    }
}

/// The block as initialised elements; `init` says it holds them.
fn assume_init<T>(blk: &mut [MaybeUninit<T>], init: bool) -> &mut [T] {
    assert!(init, "a fused stage read the output before it was written");
    // SAFETY: `init` holds only for a block of initialised elements
    // (`run_block` sets it after a stage wrote the block, or when the
    // caller's buffer was initialised: `fused_inplace`), and
    // `MaybeUninit<T>` has `T`'s layout.
    unsafe { &mut *(std::ptr::from_mut(blk) as *mut [T]) }
}

/// Run the chain over `out` block by block, in parallel when large.
fn run_all<T: KernelElement>(stages: &[Stage<'_, T>], out: &mut [MaybeUninit<T>], init: bool) {
    let isa = Isa::active();
    let n = out.len();
    let chunk = |(ci, c): (usize, &mut [MaybeUninit<T>]), len: usize| {
        for (bi, blk) in c.chunks_mut(FUSED_BLOCK).enumerate() {
            run_block(isa, stages, ci * len + bi * FUSED_BLOCK, blk, init);
        }
    };
    if super::parallel(n) {
        // A multiple of the block, so that blocks never straddle chunks.
        let len = super::chunk_len(n).div_ceil(FUSED_BLOCK) * FUSED_BLOCK;
        install(|| {
            out.par_chunks_mut(len)
                .enumerate()
                .for_each(|c| chunk(c, len));
        });
    } else {
        chunk((0, out), n.max(1));
    }
}

/// The chain written into a fresh output `out` (its first stage reads no
/// [`FusedArg::Io`]). See the [module docs](self).
pub fn fused_into<T: KernelElement>(
    stages: &[Stage<'_, T>],
    out: &mut [MaybeUninit<T>],
) -> Result<()> {
    check(stages, out.len(), false)?;
    run_all(stages, out, false);
    Ok(())
}

/// The chain written over `io`, which its first stage reads as
/// [`FusedArg::Io`]. See the [module docs](self).
pub fn fused_inplace<T: KernelElement>(stages: &[Stage<'_, T>], io: &mut [T]) -> Result<()> {
    check(stages, io.len(), true)?;
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, and every stage writes
    // initialised elements only, so `io` stays initialised.
    let out = unsafe { &mut *(std::ptr::from_mut(io) as *mut [MaybeUninit<T>]) };
    run_all(stages, out, true);
    Ok(())
}
