//! Instruction-set selection, done once per process, and one compiled copy of
//! every generic loop per instruction set.
//!
//! # Why `std::arch` and `#[target_feature]` rather than a SIMD crate
//! The loops in [`super::elementwise`] and [`super::math`] are written
//! branch-free so that LLVM vectorises them; compiling each inside a
//! `#[target_feature(enable = ...)]` function gives AVX-512 and AVX2+FMA code
//! from one source, chosen at run time by `is_x86_feature_detected!`. This is
//! the same scheme `pulp` and polars use, with no extra dependency, and it
//! works on stable Rust. NaN propagation follows from the scalar definitions
//! (`x < 0`, `a > b || a.is_nan()`), which LLVM keeps exact when it
//! vectorises (it never swaps `maxps` operands in a way that changes which
//! NaN wins), and the property tests check every level against a scalar
//! reference. On aarch64, NEON is part of the baseline: the portable copy
//! compiled for aarch64 is NEON code and uses fused multiply-add.
//!
//! The environment variable `DONATE_ISA` (`scalar`, `avx2`, `avx512`) caps
//! the choice, e.g. to compare instruction sets or to test a lower one; it is
//! read once, and a value above what the CPU supports is ignored.

use std::sync::OnceLock;

/// An instruction-set level's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Portable code (on aarch64 this is NEON).
    Scalar,
    /// x86-64 AVX2 + FMA.
    Avx2,
    /// x86-64 AVX-512 (F, VL, DQ, BW).
    Avx512,
}

impl Level {
    /// Name, as `DONATE_ISA` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Scalar if cfg!(target_arch = "aarch64") => "neon",
            Level::Scalar => "scalar",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }
}

/// An instruction-set level for the kernels, as a proof: a value of `Isa`
/// names a level this CPU supports. Only detection makes one
/// ([`detected`](Self::detected), [`active`](Self::active),
/// [`supported`](Self::supported), [`try_new`](Self::try_new), and
/// [`scalar`](Self::scalar), which every CPU runs), or the `unsafe`
/// [`new_unchecked`](Self::new_unchecked), whose caller promises it. So
/// safe code can never reach a kernel compiled for features the CPU lacks
/// (the pattern of pulp's `Arch` and `simd_type!`).
///
/// ```compile_fail
/// // The level is private: no `Isa` for AVX-512 without detection.
/// let isa = donate::Isa(donate::kernels::Level::Avx512);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Isa(Level);

impl Isa {
    /// The portable level, which every CPU runs.
    pub const fn scalar() -> Isa {
        Isa(Level::Scalar)
    }

    /// `level`, if this CPU supports it.
    pub fn try_new(level: Level) -> Option<Isa> {
        (level <= Isa::detected().0).then_some(Isa(level))
    }

    /// `level`, unchecked.
    ///
    /// # Safety
    /// The CPU must support `level`'s target features (see
    /// [`Isa::detected`]): kernels compiled for them run on it.
    pub const unsafe fn new_unchecked(level: Level) -> Isa {
        Isa(level)
    }

    /// Which level this is.
    pub const fn level(self) -> Level {
        self.0
    }

    /// Name, as `DONATE_ISA` spells it.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The best level this CPU supports (detected once).
    pub fn detected() -> Isa {
        static BEST: OnceLock<Isa> = OnceLock::new();
        *BEST.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                if is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512vl")
                    && is_x86_feature_detected!("avx512dq")
                    && is_x86_feature_detected!("avx512bw")
                    && is_x86_feature_detected!("avx2")
                    && is_x86_feature_detected!("fma")
                    && is_x86_feature_detected!("bmi1")
                    && is_x86_feature_detected!("bmi2")
                {
                    return Isa(Level::Avx512);
                }
                if is_x86_feature_detected!("avx2")
                    && is_x86_feature_detected!("fma")
                    && is_x86_feature_detected!("bmi1")
                    && is_x86_feature_detected!("bmi2")
                {
                    return Isa(Level::Avx2);
                }
            }
            Isa(Level::Scalar)
        })
    }

    /// The level the kernels use: the detected one, capped by `DONATE_ISA`
    /// (chosen once per process).
    pub fn active() -> Isa {
        static ACTIVE: OnceLock<Isa> = OnceLock::new();
        *ACTIVE.get_or_init(|| {
            let cap = std::env::var("DONATE_ISA")
                .ok()
                .and_then(|v| match v.as_str() {
                    "scalar" | "neon" => Some(Level::Scalar),
                    "avx2" => Some(Level::Avx2),
                    "avx512" => Some(Level::Avx512),
                    _ => None,
                });
            let best = Isa::detected();
            match cap {
                Some(c) if c < best.0 => Isa(c),
                _ => best,
            }
        })
    }

    /// Every level this CPU can run, lowest first (the tests run them all).
    pub fn supported() -> Vec<Isa> {
        [Level::Scalar, Level::Avx2, Level::Avx512]
            .into_iter()
            .filter_map(Isa::try_new)
            .collect()
    }
}

/// Does this CPU compute a fused multiply-add (`a * b + c` rounded once)
/// in hardware? Always on aarch64; on x86-64 when it has FMA (detected
/// once), whichever level runs: `DONATE_ISA=scalar` on such a CPU still
/// fuses, so that its levels give the same bits. Every x86-64 level above
/// the portable one requires it.
pub fn fused_multiply_add() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static FMA: OnceLock<bool> = OnceLock::new();
        *FMA.get_or_init(|| is_x86_feature_detected!("fma"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        cfg!(target_arch = "aarch64")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_supported_levels_can_be_made() {
        let best = Isa::detected().level();
        for level in [Level::Scalar, Level::Avx2, Level::Avx512] {
            assert_eq!(Isa::try_new(level).is_some(), level <= best, "{level:?}");
        }
        assert!(Isa::active() <= Isa::detected());
        assert_eq!(Isa::supported().first(), Some(&Isa::scalar()));
    }
}

/// One copy of every generic loop, compiled with the given target features.
///
/// Each function is safe to call only on a CPU that has those features
/// (calling one is `unsafe` outside code compiled with them): [`dispatch`]
/// calls a module only for an [`Isa`] of its level, which exists only on
/// such a CPU. The modules are private to the crate. The two literals:
/// whether `mul_add` is a fused multiply-add there, and whether the
/// in-place element-wise loops write each element in place (`DIRECT`; see
/// `elementwise::in_blocks`: only where masked stores are fast).
macro_rules! isa_module {
    ($name:ident, $fma:literal, $direct:literal $(, $features:literal)?) => {
        pub(crate) mod $name {
            use std::mem::MaybeUninit;
            use crate::kernels::elementwise::{self, BinaryFn, Side, UnaryFn};
            use crate::kernels::reduce::{self, Reduce};
            use crate::kernels::rows::{self, RowElement};
            use crate::kernels::func::loops as func;

            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn map<T: Copy, F: UnaryFn<T>>(src: &[T], dst: &mut [MaybeUninit<T>]) {
                elementwise::map::<T, F, $fma>(src, dst)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn map_inplace<T: Copy, F: UnaryFn<T>>(buf: &mut [T]) {
                elementwise::map_inplace::<T, F, $fma, $direct>(buf)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn zip<T: Copy, F: BinaryFn<T>>(a: Side<'_, T>, b: Side<'_, T>, dst: &mut [MaybeUninit<T>]) {
                elementwise::zip::<T, F>(a, b, dst)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn zip_into_lhs<T: Copy, F: BinaryFn<T>>(a: &mut [T], b: Side<'_, T>) {
                elementwise::zip_into_lhs::<T, F, $direct>(a, b)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn zip_into_rhs<T: Copy, F: BinaryFn<T>>(a: Side<'_, T>, b: &mut [T]) {
                elementwise::zip_into_rhs::<T, F, $direct>(a, b)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn reduce_slice<T: Copy, R: Reduce<T>>(x: &[T]) -> R::Acc {
                reduce::reduce_slice::<T, R>(x)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn reduce_rows<T: Copy, R: Reduce<T>>(x: &[T], acc: &mut [R::Acc]) {
                reduce::reduce_rows::<T, R>(x, acc)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn softmax_row<T: RowElement>(isa: super::Isa, r: &mut [T]) {
                rows::softmax_row::<T>(isa, r)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn func_map<T: Copy, U, F: Fn(T) -> U>(src: &[T], dst: &mut [MaybeUninit<U>], f: F) {
                func::plain::map(src, dst, f)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn func_map_inplace<T: Copy, F: Fn(T) -> T>(buf: &mut [T], f: F) {
                func::plain::map_inplace(buf, f)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn func_map_guarded<T: Copy, U, F: Fn(T) -> U, I: Fn(T) -> bool, E: Fn(T) -> U>(
                src: &[T],
                dst: &mut [MaybeUninit<U>],
                fast: F,
                inside: I,
                exact: E,
            ) {
                func::plain::map_guarded(src, dst, fast, inside, exact)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn func_map_inplace_guarded<T: Copy, F: Fn(T) -> T, I: Fn(T) -> bool, E: Fn(T) -> T>(
                buf: &mut [T],
                fast: F,
                inside: I,
                exact: E,
            ) {
                func::plain::map_inplace_guarded(buf, fast, inside, exact)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn func_zip_guarded<T: Copy, U, F: Fn(T, T) -> U, I: Fn(T, T) -> bool, E: Fn(T, T) -> U>(
                a: Side<'_, T>,
                b: Side<'_, T>,
                dst: &mut [MaybeUninit<U>],
                fast: F,
                inside: I,
                exact: E,
            ) {
                func::plain::zip_guarded(a, b, dst, fast, inside, exact)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn func_zip_lhs_guarded<T: Copy, F: Fn(T, T) -> T, I: Fn(T, T) -> bool, E: Fn(T, T) -> T>(
                a: &mut [T],
                b: Side<'_, T>,
                fast: F,
                inside: I,
                exact: E,
            ) {
                func::plain::zip_lhs_guarded(a, b, fast, inside, exact)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn func_zip_rhs_guarded<T: Copy, F: Fn(T, T) -> T, I: Fn(T, T) -> bool, E: Fn(T, T) -> T>(
                a: Side<'_, T>,
                b: &mut [T],
                fast: F,
                inside: I,
                exact: E,
            ) {
                func::plain::zip_rhs_guarded(a, b, fast, inside, exact)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn func_zip<T: Copy, U, F: Fn(T, T) -> U>(
                a: Side<'_, T>,
                b: Side<'_, T>,
                dst: &mut [MaybeUninit<U>],
                f: F,
            ) {
                func::plain::zip(a, b, dst, f)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn func_zip_lhs<T: Copy, F: Fn(T, T) -> T>(a: &mut [T], b: Side<'_, T>, f: F) {
                func::plain::zip_lhs(a, b, f)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn func_zip_rhs<T: Copy, F: Fn(T, T) -> T>(a: Side<'_, T>, b: &mut [T], f: F) {
                func::plain::zip_rhs(a, b, f)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub(crate) fn layer_norm_row<T: RowElement>(
                r: &mut [T],
                gamma: Option<&[T]>,
                beta: Option<&[T]>,
                eps: f64,
            ) {
                rows::layer_norm_row::<T>(r, gamma, beta, eps)
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
isa_module!(
    avx512,
    true,
    true,
    "avx512f,avx512vl,avx512dq,avx512bw,avx2,fma,bmi1,bmi2"
);
#[cfg(target_arch = "x86_64")]
isa_module!(avx2, true, false, "avx2,fma,bmi1,bmi2");
#[cfg(target_arch = "aarch64")]
isa_module!(portable, true, false);
#[cfg(not(target_arch = "aarch64"))]
isa_module!(portable, false, false);

/// Call `$f::<generics>(args)` in the copy compiled for `$isa` (an [`Isa`]).
///
/// The one place outside this module's copies where kernels need `unsafe`,
/// so the arms that call a copy allow it, wherever the macro expands.
macro_rules! dispatch {
    ($isa:expr, $f:ident::<$($g:ty),+>($($a:expr),*)) => {
        match $crate::kernels::isa::Isa::level($isa) {
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            $crate::kernels::isa::Level::Avx512 => {
                // SAFETY: an `Isa` of this level exists only on a CPU with
                // these features (see `Isa`).
                unsafe { $crate::kernels::isa::avx512::$f::<$($g),+>($($a),*) }
            }
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            $crate::kernels::isa::Level::Avx2 => {
                // SAFETY: as above, for AVX2, FMA and BMI.
                unsafe { $crate::kernels::isa::avx2::$f::<$($g),+>($($a),*) }
            }
            _ => $crate::kernels::isa::portable::$f::<$($g),+>($($a),*),
        }
    };
}
pub(crate) use dispatch;
