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

/// An instruction-set level for the kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// Portable code (on aarch64 this is NEON).
    Scalar,
    /// x86-64 AVX2 + FMA.
    Avx2,
    /// x86-64 AVX-512 (F, VL, DQ, BW).
    Avx512,
}

impl Isa {
    /// Name, as `DONATE_ISA` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar if cfg!(target_arch = "aarch64") => "neon",
            Isa::Scalar => "scalar",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// The best level this CPU supports.
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
                {
                    return Isa::Avx512;
                }
                if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                    return Isa::Avx2;
                }
            }
            Isa::Scalar
        })
    }

    /// The level the kernels use: the detected one, capped by `DONATE_ISA`.
    pub fn active() -> Isa {
        static ACTIVE: OnceLock<Isa> = OnceLock::new();
        *ACTIVE.get_or_init(|| {
            let cap = std::env::var("DONATE_ISA")
                .ok()
                .and_then(|v| match v.as_str() {
                    "scalar" | "neon" => Some(Isa::Scalar),
                    "avx2" => Some(Isa::Avx2),
                    "avx512" => Some(Isa::Avx512),
                    _ => None,
                });
            match cap {
                Some(c) => c.min(Isa::detected()),
                None => Isa::detected(),
            }
        })
    }

    /// Every level this CPU can run, lowest first (the tests run them all).
    pub fn supported() -> Vec<Isa> {
        [Isa::Scalar, Isa::Avx2, Isa::Avx512]
            .into_iter()
            .filter(|i| *i <= Isa::detected())
            .collect()
    }

    /// `self`, lowered to what this CPU supports (so that no caller can ask
    /// for an instruction set the CPU lacks).
    pub fn clamp_supported(self) -> Isa {
        self.min(Isa::detected())
    }
}

/// One copy of every generic loop, compiled with the given target features.
///
/// Each function is safe to call only on a CPU that has those features
/// (calling one is `unsafe` outside code compiled with them): the dispatch
/// in [`super`] calls a module only for `Isa::active()`, which never
/// exceeds `Isa::detected()`.
macro_rules! isa_module {
    ($name:ident, $fma:literal $(, $features:literal)?) => {
        pub mod $name {
            use std::mem::MaybeUninit;
            use crate::kernels::elementwise::{self, BinaryFn, Side, UnaryFn};
            use crate::kernels::reduce::{self, Reduce};

            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub fn map<T: Copy, F: UnaryFn<T>>(src: &[T], dst: &mut [MaybeUninit<T>]) {
                elementwise::map::<T, F, $fma>(src, dst)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub fn map_inplace<T: Copy, F: UnaryFn<T>>(buf: &mut [T]) {
                elementwise::map_inplace::<T, F, $fma>(buf)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub fn zip<T: Copy, F: BinaryFn<T>>(a: Side<'_, T>, b: Side<'_, T>, dst: &mut [MaybeUninit<T>]) {
                elementwise::zip::<T, F>(a, b, dst)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub fn zip_into_lhs<T: Copy, F: BinaryFn<T>>(a: &mut [T], b: Side<'_, T>) {
                elementwise::zip_into_lhs::<T, F>(a, b)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub fn zip_into_rhs<T: Copy, F: BinaryFn<T>>(a: Side<'_, T>, b: &mut [T]) {
                elementwise::zip_into_rhs::<T, F>(a, b)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub fn reduce_slice<T: Copy, R: Reduce<T>>(x: &[T]) -> R::Acc {
                reduce::reduce_slice::<T, R>(x)
            }
            /// # Safety
            /// Only on a CPU with this module's target features (see `isa_module!`).
            $(#[target_feature(enable = $features)])?
            pub fn reduce_rows<T: Copy, R: Reduce<T>>(x: &[T], acc: &mut [R::Acc]) {
                reduce::reduce_rows::<T, R>(x, acc)
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
isa_module!(
    avx512,
    true,
    "avx512f,avx512vl,avx512dq,avx512bw,avx2,fma,bmi1,bmi2"
);
#[cfg(target_arch = "x86_64")]
isa_module!(avx2, true, "avx2,fma,bmi1,bmi2");
#[cfg(target_arch = "aarch64")]
isa_module!(portable, true);
#[cfg(not(target_arch = "aarch64"))]
isa_module!(portable, false);

/// Call `$f::<generics>(args)` in the copy compiled for `$isa`.
macro_rules! dispatch {
    ($isa:expr, $f:ident::<$($g:ty),+>($($a:expr),*)) => {
        match $isa {
            #[cfg(target_arch = "x86_64")]
            $crate::kernels::isa::Isa::Avx512 => {
                // SAFETY: an `Isa` reaching a dispatch has passed
                // `clamp_supported`, so the CPU has these features.
                unsafe { $crate::kernels::isa::avx512::$f::<$($g),+>($($a),*) }
            }
            #[cfg(target_arch = "x86_64")]
            $crate::kernels::isa::Isa::Avx2 => {
                // SAFETY: as above, AVX2 and FMA were detected.
                unsafe { $crate::kernels::isa::avx2::$f::<$($g),+>($($a),*) }
            }
            _ => $crate::kernels::isa::portable::$f::<$($g),+>($($a),*),
        }
    };
}
pub(crate) use dispatch;
