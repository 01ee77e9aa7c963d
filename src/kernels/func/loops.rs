//! The loops that apply a [`Func`](super::Func)'s closure over slices,
//! written once, in two flavours:
//!
//! - [`plain`]: one copy, compiled for the baseline instruction set. The
//!   integer and bool functions use it: their loops vectorise on the
//!   baseline already (or are rarely hot), and one copy each keeps the
//!   build small.
//! - [`multi`]: the same loops, with one copy per instruction set chosen at
//!   run time through [`Isa::active`](crate::kernels::isa::Isa::active)
//!   (the copies live in `super::super::isa`). The float functions use it:
//!   on the x86-64 baseline (SSE2) `floor`, `ceil`, `trunc` and
//!   `round_ties_even` have no instruction and become a C library call per
//!   element, while SSE4.1 and later round a whole vector in one.
//!   Functions that call the C library per element (`float64`'s `sin`,
//!   ...) gain nothing and lose nothing.
//!
//! Both flavours compute the same closure per element, so their results are
//! identical bit for bit (IEEE rounding instructions are exact; the tests
//! compare every level with the portable one). The guarded loops of the
//! `float32` functions computed in `f64` take their closure twice, with
//! fused multiply-add and without: every level runs the fused one when the
//! CPU has the instruction (the portable copy through the C library's
//! `fma`, which then uses it), so the levels still agree bit for bit; a
//! CPU without it has only the portable level, which runs the unfused one.

use std::mem::MaybeUninit;

use crate::kernels::elementwise::Side;

/// The elements [`plain::map_guarded`] checks at a time: a few vectors, in
/// the first level of cache when the fast path runs over them.
const CHUNK: usize = 64;

/// The loops compiled for the baseline instruction set.
pub(crate) mod plain {
    use super::{MaybeUninit, Side};

    #[inline(always)]
    pub(crate) fn map<T: Copy, U>(src: &[T], dst: &mut [MaybeUninit<U>], f: impl Fn(T) -> U) {
        for (d, s) in dst.iter_mut().zip(src) {
            d.write(f(*s));
        }
    }

    #[inline(always)]
    pub(crate) fn map_inplace<T: Copy>(buf: &mut [T], f: impl Fn(T) -> T) {
        for x in buf {
            *x = f(*x);
        }
    }

    #[inline(always)]
    pub(crate) fn zip<T: Copy, U>(
        a: Side<'_, T>,
        b: Side<'_, T>,
        dst: &mut [MaybeUninit<U>],
        f: impl Fn(T, T) -> U,
    ) {
        match (a, b) {
            (Side::Slice(a), Side::Slice(b)) => {
                for ((d, x), y) in dst.iter_mut().zip(a).zip(b) {
                    d.write(f(*x, *y));
                }
            }
            (Side::Slice(a), Side::Scalar(y)) => map(a, dst, |x| f(x, y)),
            (Side::Scalar(x), Side::Slice(b)) => map(b, dst, |y| f(x, y)),
            (Side::Scalar(x), Side::Scalar(y)) => {
                for d in dst {
                    d.write(f(x, y));
                }
            }
        }
    }

    #[inline(always)]
    pub(crate) fn zip_lhs<T: Copy>(a: &mut [T], b: Side<'_, T>, f: impl Fn(T, T) -> T) {
        match b {
            Side::Slice(b) => {
                for (x, y) in a.iter_mut().zip(b) {
                    *x = f(*x, *y);
                }
            }
            Side::Scalar(y) => map_inplace(a, |x| f(x, y)),
        }
    }

    #[inline(always)]
    pub(crate) fn zip_rhs<T: Copy>(a: Side<'_, T>, b: &mut [T], f: impl Fn(T, T) -> T) {
        match a {
            Side::Slice(a) => {
                for (y, x) in b.iter_mut().zip(a) {
                    *y = f(*x, *y);
                }
            }
            Side::Scalar(x) => map_inplace(b, |y| f(x, y)),
        }
    }
    /// [`map`] of `fast` over each chunk of [`CHUNK`](super::CHUNK)
    /// elements that are all `inside` its domain, of `exact` over the
    /// others: a vector loop for the common case, and the C library for
    /// the rare arguments the fast formula does not cover.
    #[inline(always)]
    pub(crate) fn map_guarded<T: Copy, U>(
        src: &[T],
        dst: &mut [MaybeUninit<U>],
        fast: impl Fn(T) -> U,
        inside: impl Fn(T) -> bool,
        exact: impl Fn(T) -> U,
    ) {
        for (s, d) in src.chunks(super::CHUNK).zip(dst.chunks_mut(super::CHUNK)) {
            // A fold, not `all`: no early exit, so it vectorises.
            if s.iter().fold(true, |all, &x| all & inside(x)) {
                map(s, d, &fast);
            } else {
                map(s, d, &exact);
            }
        }
    }

    /// [`map_guarded`] in place.
    #[inline(always)]
    pub(crate) fn map_inplace_guarded<T: Copy>(
        buf: &mut [T],
        fast: impl Fn(T) -> T,
        inside: impl Fn(T) -> bool,
        exact: impl Fn(T) -> T,
    ) {
        for b in buf.chunks_mut(super::CHUNK) {
            if b.iter().fold(true, |all, &x| all & inside(x)) {
                map_inplace(b, &fast);
            } else {
                map_inplace(b, &exact);
            }
        }
    }
    /// Is `inside` true of every pair of a chunk of `n` elements? (A fold,
    /// so that it vectorises.)
    #[inline(always)]
    fn all_inside<T: Copy>(a: Side<'_, T>, b: Side<'_, T>, inside: &impl Fn(T, T) -> bool) -> bool {
        match (a, b) {
            (Side::Slice(a), Side::Slice(b)) => a
                .iter()
                .zip(b)
                .fold(true, |all, (&x, &y)| all & inside(x, y)),
            (Side::Slice(a), Side::Scalar(y)) => a.iter().fold(true, |all, &x| all & inside(x, y)),
            (Side::Scalar(x), Side::Slice(b)) => b.iter().fold(true, |all, &y| all & inside(x, y)),
            (Side::Scalar(x), Side::Scalar(y)) => inside(x, y),
        }
    }

    /// [`zip`] of `fast` over each chunk whose pairs are all `inside` its
    /// domain, of `exact` over the others (as [`map_guarded`]).
    #[inline(always)]
    pub(crate) fn zip_guarded<T: Copy, U>(
        a: Side<'_, T>,
        b: Side<'_, T>,
        dst: &mut [MaybeUninit<U>],
        fast: impl Fn(T, T) -> U,
        inside: impl Fn(T, T) -> bool,
        exact: impl Fn(T, T) -> U,
    ) {
        let n = dst.len();
        for (k, d) in dst.chunks_mut(super::CHUNK).enumerate() {
            let start = k * super::CHUNK;
            let len = d.len().min(n - start);
            let (a, b) = (a.part(start, len), b.part(start, len));
            if all_inside(a, b, &inside) {
                zip(a, b, d, &fast);
            } else {
                zip(a, b, d, &exact);
            }
        }
    }

    /// [`zip_guarded`] into `a`.
    #[inline(always)]
    pub(crate) fn zip_lhs_guarded<T: Copy>(
        a: &mut [T],
        b: Side<'_, T>,
        fast: impl Fn(T, T) -> T,
        inside: impl Fn(T, T) -> bool,
        exact: impl Fn(T, T) -> T,
    ) {
        for (k, a) in a.chunks_mut(super::CHUNK).enumerate() {
            let b = b.part(k * super::CHUNK, a.len());
            if all_inside(Side::Slice(a), b, &inside) {
                zip_lhs(a, b, &fast);
            } else {
                zip_lhs(a, b, &exact);
            }
        }
    }

    /// [`zip_guarded`] into `b`.
    #[inline(always)]
    pub(crate) fn zip_rhs_guarded<T: Copy>(
        a: Side<'_, T>,
        b: &mut [T],
        fast: impl Fn(T, T) -> T,
        inside: impl Fn(T, T) -> bool,
        exact: impl Fn(T, T) -> T,
    ) {
        for (k, b) in b.chunks_mut(super::CHUNK).enumerate() {
            let a = a.part(k * super::CHUNK, b.len());
            if all_inside(a, Side::Slice(b), &inside) {
                zip_rhs(a, b, &fast);
            } else {
                zip_rhs(a, b, &exact);
            }
        }
    }
}

/// The loops of [`plain`], run in the copy compiled for the active
/// instruction set.
pub(crate) mod multi {
    use super::{MaybeUninit, Side};
    use crate::kernels::isa::{dispatch, fused_multiply_add, Isa};

    #[inline(always)]
    pub(crate) fn map<T: Copy, U, F: Fn(T) -> U>(src: &[T], dst: &mut [MaybeUninit<U>], f: F) {
        dispatch!(Isa::active(), func_map::<T, U, F>(src, dst, f));
    }

    #[inline(always)]
    pub(crate) fn map_inplace<T: Copy, F: Fn(T) -> T>(buf: &mut [T], f: F) {
        dispatch!(Isa::active(), func_map_inplace::<T, F>(buf, f));
    }

    #[inline(always)]
    pub(crate) fn zip<T: Copy, U, F: Fn(T, T) -> U>(
        a: Side<'_, T>,
        b: Side<'_, T>,
        dst: &mut [MaybeUninit<U>],
        f: F,
    ) {
        dispatch!(Isa::active(), func_zip::<T, U, F>(a, b, dst, f));
    }

    #[inline(always)]
    pub(crate) fn zip_lhs<T: Copy, F: Fn(T, T) -> T>(a: &mut [T], b: Side<'_, T>, f: F) {
        dispatch!(Isa::active(), func_zip_lhs::<T, F>(a, b, f));
    }

    #[inline(always)]
    pub(crate) fn zip_rhs<T: Copy, F: Fn(T, T) -> T>(a: Side<'_, T>, b: &mut [T], f: F) {
        dispatch!(Isa::active(), func_zip_rhs::<T, F>(a, b, f));
    }

    // The guarded loops take the fast closure twice: `fused`, with
    // `FMA` true (`crate::kernels::math::fma`), in the copy of the active
    // level when the CPU has fused multiply-add; `unfused` in the
    // portable copy otherwise (then the portable level is the only one).

    #[inline(always)]
    pub(crate) fn map_guarded<
        T: Copy,
        U,
        F: Fn(T) -> U,
        G: Fn(T) -> U,
        I: Fn(T) -> bool,
        E: Fn(T) -> U,
    >(
        src: &[T],
        dst: &mut [MaybeUninit<U>],
        (fused, unfused): (F, G),
        inside: I,
        exact: E,
    ) {
        if !fused_multiply_add() {
            return super::plain::map_guarded(src, dst, unfused, inside, exact);
        }
        dispatch!(
            Isa::active(),
            func_map_guarded::<T, U, F, I, E>(src, dst, fused, inside, exact)
        );
    }

    #[inline(always)]
    pub(crate) fn map_inplace_guarded<
        T: Copy,
        F: Fn(T) -> T,
        G: Fn(T) -> T,
        I: Fn(T) -> bool,
        E: Fn(T) -> T,
    >(
        buf: &mut [T],
        (fused, unfused): (F, G),
        inside: I,
        exact: E,
    ) {
        if !fused_multiply_add() {
            return super::plain::map_inplace_guarded(buf, unfused, inside, exact);
        }
        dispatch!(
            Isa::active(),
            func_map_inplace_guarded::<T, F, I, E>(buf, fused, inside, exact)
        );
    }

    #[inline(always)]
    pub(crate) fn zip_guarded<
        T: Copy,
        U,
        F: Fn(T, T) -> U,
        G: Fn(T, T) -> U,
        I: Fn(T, T) -> bool,
        E: Fn(T, T) -> U,
    >(
        a: Side<'_, T>,
        b: Side<'_, T>,
        dst: &mut [MaybeUninit<U>],
        (fused, unfused): (F, G),
        inside: I,
        exact: E,
    ) {
        if !fused_multiply_add() {
            return super::plain::zip_guarded(a, b, dst, unfused, inside, exact);
        }
        dispatch!(
            Isa::active(),
            func_zip_guarded::<T, U, F, I, E>(a, b, dst, fused, inside, exact)
        );
    }

    #[inline(always)]
    pub(crate) fn zip_lhs_guarded<
        T: Copy,
        F: Fn(T, T) -> T,
        G: Fn(T, T) -> T,
        I: Fn(T, T) -> bool,
        E: Fn(T, T) -> T,
    >(
        a: &mut [T],
        b: Side<'_, T>,
        (fused, unfused): (F, G),
        inside: I,
        exact: E,
    ) {
        if !fused_multiply_add() {
            return super::plain::zip_lhs_guarded(a, b, unfused, inside, exact);
        }
        dispatch!(
            Isa::active(),
            func_zip_lhs_guarded::<T, F, I, E>(a, b, fused, inside, exact)
        );
    }

    #[inline(always)]
    pub(crate) fn zip_rhs_guarded<
        T: Copy,
        F: Fn(T, T) -> T,
        G: Fn(T, T) -> T,
        I: Fn(T, T) -> bool,
        E: Fn(T, T) -> T,
    >(
        a: Side<'_, T>,
        b: &mut [T],
        (fused, unfused): (F, G),
        inside: I,
        exact: E,
    ) {
        if !fused_multiply_add() {
            return super::plain::zip_rhs_guarded(a, b, unfused, inside, exact);
        }
        dispatch!(
            Isa::active(),
            func_zip_rhs_guarded::<T, F, I, E>(a, b, fused, inside, exact)
        );
    }
}
