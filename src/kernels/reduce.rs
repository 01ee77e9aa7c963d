//! Reductions: sum and max, over a whole slice or along an axis.
//!
//! Sums of `f32` accumulate in `f64` across 16 independent lanes, so the
//! result is as accurate as NumPy's pairwise `f32` sum or better, and the
//! loop still vectorises. Max propagates NaN, as NumPy's does.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use super::isa::{dispatch, Isa};
use super::{chunk_len, parallel};
use crate::kernels::parallel::install;

/// A reduction: an accumulator type, its identity, a step and a combine.
pub trait Reduce<T>: Copy {
    type Acc: Copy + Send + Sync;
    fn init() -> Self::Acc;
    fn step(acc: Self::Acc, x: T) -> Self::Acc;
    fn combine(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    fn finish(acc: Self::Acc) -> T;
}

/// Sum.
#[derive(Clone, Copy)]
pub struct Sum;
/// Maximum, NaN-propagating.
#[derive(Clone, Copy)]
pub struct Max;

impl Reduce<f32> for Sum {
    type Acc = f64;
    #[inline(always)]
    fn init() -> f64 {
        0.0
    }
    #[inline(always)]
    fn step(acc: f64, x: f32) -> f64 {
        acc + f64::from(x)
    }
    #[inline(always)]
    fn combine(a: f64, b: f64) -> f64 {
        a + b
    }
    #[inline(always)]
    fn finish(acc: f64) -> f32 {
        acc as f32
    }
}

macro_rules! sum_same {
    ($t:ty, $add:ident) => {
        impl Reduce<$t> for Sum {
            type Acc = $t;
            #[inline(always)]
            fn init() -> $t {
                0
            }
            #[inline(always)]
            fn step(acc: $t, x: $t) -> $t {
                acc.$add(x)
            }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t {
                a.$add(b)
            }
            #[inline(always)]
            fn finish(acc: $t) -> $t {
                acc
            }
        }
    };
}
impl Reduce<f64> for Sum {
    type Acc = f64;
    #[inline(always)]
    fn init() -> f64 {
        0.0
    }
    #[inline(always)]
    fn step(acc: f64, x: f64) -> f64 {
        acc + x
    }
    #[inline(always)]
    fn combine(a: f64, b: f64) -> f64 {
        a + b
    }
    #[inline(always)]
    fn finish(acc: f64) -> f64 {
        acc
    }
}
sum_same!(i8, wrapping_add);
sum_same!(i16, wrapping_add);
sum_same!(i32, wrapping_add);
sum_same!(i64, wrapping_add);
sum_same!(u8, wrapping_add);
sum_same!(u16, wrapping_add);
sum_same!(u32, wrapping_add);
sum_same!(u64, wrapping_add);

macro_rules! max_float {
    ($t:ty) => {
        impl Reduce<$t> for Max {
            type Acc = $t;
            #[inline(always)]
            fn init() -> $t {
                <$t>::NEG_INFINITY
            }
            #[inline(always)]
            fn step(acc: $t, x: $t) -> $t {
                // NaN wins from either side.
                if x > acc || x.is_nan() || acc.is_nan() {
                    if acc.is_nan() {
                        acc
                    } else {
                        x
                    }
                } else {
                    acc
                }
            }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t {
                Self::step(a, b)
            }
            #[inline(always)]
            fn finish(acc: $t) -> $t {
                acc
            }
        }
    };
}
max_float!(f32);
max_float!(f64);

macro_rules! max_int {
    ($t:ty) => {
        impl Reduce<$t> for Max {
            type Acc = $t;
            #[inline(always)]
            fn init() -> $t {
                <$t>::MIN
            }
            #[inline(always)]
            fn step(acc: $t, x: $t) -> $t {
                acc.max(x)
            }
            #[inline(always)]
            fn combine(a: $t, b: $t) -> $t {
                a.max(b)
            }
            #[inline(always)]
            fn finish(acc: $t) -> $t {
                acc
            }
        }
    };
}
max_int!(i8);
max_int!(i16);
max_int!(i32);
max_int!(i64);
max_int!(u8);
max_int!(u16);
max_int!(u32);
max_int!(u64);

// bool: the planner sums bools as int64 (NumPy's default integer); the
// bool sum itself is `or`, as NumPy's `add` of bools. Max is `or` too.
impl Reduce<bool> for Sum {
    type Acc = bool;
    #[inline(always)]
    fn init() -> bool {
        false
    }
    #[inline(always)]
    fn step(acc: bool, x: bool) -> bool {
        acc | x
    }
    #[inline(always)]
    fn combine(a: bool, b: bool) -> bool {
        a | b
    }
    #[inline(always)]
    fn finish(acc: bool) -> bool {
        acc
    }
}
impl Reduce<bool> for Max {
    type Acc = bool;
    #[inline(always)]
    fn init() -> bool {
        false
    }
    #[inline(always)]
    fn step(acc: bool, x: bool) -> bool {
        acc | x
    }
    #[inline(always)]
    fn combine(a: bool, b: bool) -> bool {
        a | b
    }
    #[inline(always)]
    fn finish(acc: bool) -> bool {
        acc
    }
}

const LANES: usize = 16;

/// Reduce a whole slice with 16 independent accumulators.
#[inline(always)]
pub(crate) fn reduce_slice<T: Copy, R: Reduce<T>>(x: &[T]) -> R::Acc {
    let mut acc = [R::init(); LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for j in 0..LANES {
            acc[j] = R::step(acc[j], c[j]);
        }
    }
    for (j, v) in rest.iter().enumerate() {
        acc[j] = R::step(acc[j], *v);
    }
    // pairwise combine of the lanes
    let mut w = LANES;
    while w > 1 {
        w /= 2;
        for j in 0..w {
            acc[j] = R::combine(acc[j], acc[j + w]);
        }
    }
    acc[0]
}

/// `acc[j] = step(acc[j], x[j])`: one row of an axis reduction (block by
/// block, as every in-place loop: see `elementwise::in_blocks`).
#[inline(always)]
pub(crate) fn reduce_rows<T: Copy, R: Reduce<T>>(x: &[T], acc: &mut [R::Acc]) {
    super::elementwise::in_blocks(acc, |off, src, out| {
        for ((o, a), v) in out.iter_mut().zip(src).zip(&x[off..]) {
            *o = R::step(*a, *v);
        }
    });
}

/// Reduce all of `x` (in parallel when large), on the active instruction set.
pub(crate) fn reduce_all<T: Copy + Send + Sync, R: Reduce<T>>(x: &[T]) -> T {
    let isa = Isa::active();
    let acc = if parallel(x.len()) {
        let len = chunk_len(x.len());
        install(|| {
            x.par_chunks(len)
                .map(|c| dispatch!(isa, reduce_slice::<T, R>(c)))
                .reduce(R::init, R::combine)
        })
    } else {
        dispatch!(isa, reduce_slice::<T, R>(x))
    };
    R::finish(acc)
}

/// Reduce `x`, viewed as `[outer, len, inner]`, along its middle axis into
/// `dst` (`[outer, inner]`).
pub(crate) fn reduce_axis<T: Copy + Send + Sync, R: Reduce<T>>(
    x: &[T],
    outer: usize,
    len: usize,
    inner: usize,
    dst: &mut [MaybeUninit<T>],
) {
    debug_assert_eq!(x.len(), outer * len * inner);
    debug_assert_eq!(dst.len(), outer * inner);
    let isa = Isa::active();
    if inner == 0 || outer == 0 {
        return;
    }
    let one = |o: usize, d: &mut [MaybeUninit<T>]| {
        let block = &x[o * len * inner..(o + 1) * len * inner];
        if inner == 1 {
            d[0].write(R::finish(dispatch!(isa, reduce_slice::<T, R>(block))));
        } else {
            let mut acc = vec![R::init(); inner];
            for row in block.chunks_exact(inner) {
                dispatch!(isa, reduce_rows::<T, R>(row, &mut acc));
            }
            for (d, a) in d.iter_mut().zip(acc) {
                d.write(R::finish(a));
            }
        }
    };
    if parallel(x.len()) && outer > 1 {
        install(|| {
            dst.par_chunks_mut(inner)
                .enumerate()
                .for_each(|(o, d)| one(o, d));
        });
    } else {
        for (o, d) in dst.chunks_mut(inner).enumerate() {
            one(o, d);
        }
    }
}
