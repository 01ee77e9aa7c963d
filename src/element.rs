//! Element types a tensor can hold.

use std::fmt;

/// The run-time tag of an element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    F32,
    F64,
    I32,
    I64,
}

impl DType {
    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 => 8,
        }
    }

    /// NumPy's name for the dtype.
    pub const fn name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::I32 => "int32",
            DType::I64 => "int64",
        }
    }

    /// Parse NumPy's names (and a few aliases).
    pub fn parse(s: &str) -> Option<DType> {
        Some(match s {
            "float32" | "f4" | "<f4" | "=f4" | "f" | "single" => DType::F32,
            "float64" | "f8" | "<f8" | "=f8" | "d" | "double" | "float" => DType::F64,
            "int32" | "i4" | "<i4" | "=i4" | "i" | "intc" => DType::I32,
            "int64" | "i8" | "<i8" | "=i8" | "q" | "l" | "int" | "long" => DType::I64,
            _ => return None,
        })
    }

    /// Floating point?
    pub const fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }

    /// The dtype two tensors are promoted to: NumPy's table restricted to
    /// the four tensor dtypes. The same dtype gives itself; otherwise two
    /// integers give int64, and anything else float64 (any int with
    /// float32 gives float64, as in NumPy). [`OperandDType::promote`]
    /// (`crate::promote`, above this module) has the whole table, which
    /// also covers the NumPy dtypes an operand may bring; a test in
    /// `tests/dtypes.rs` checks that the two agree.
    ///
    /// [`OperandDType::promote`]: crate::OperandDType::promote
    pub fn promote(a: DType, b: DType) -> DType {
        match (a, b) {
            _ if a == b => a,
            (DType::I32 | DType::I64, DType::I32 | DType::I64) => DType::I64,
            _ => DType::F64,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
}

/// An element type: `f32`, `f64`, `i32` or `i64`. Sealed.
pub trait Element:
    sealed::Sealed + Copy + Send + Sync + PartialOrd + fmt::Debug + Default + 'static
{
    /// The run-time tag.
    const DTYPE: DType;
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;
    /// Convert from `f64` (rounding / saturating as `as` does).
    fn from_f64(v: f64) -> Self;
    /// Convert to `f64`.
    fn to_f64(self) -> f64;
}

/// Floating-point elements: `f32` and `f64`.
pub trait Float: Element {}
impl Float for f32 {}
impl Float for f64 {}

macro_rules! element {
    ($t:ty, $d:expr, $zero:expr, $one:expr) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            // One body for the four types (`as` semantics); i64 has no
            // lossless `From` into f64, so the cast stays a cast.
            #[allow(clippy::cast_lossless)]
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}
element!(f32, DType::F32, 0.0, 1.0);
element!(f64, DType::F64, 0.0, 1.0);
element!(i32, DType::I32, 0, 1);
element!(i64, DType::I64, 0, 1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_matches_numpy() {
        use DType::*;
        assert_eq!(DType::promote(F32, F32), F32);
        assert_eq!(DType::promote(F32, F64), F64);
        assert_eq!(DType::promote(I32, F32), F64);
        assert_eq!(DType::promote(I64, F32), F64);
        assert_eq!(DType::promote(I32, I64), I64);
        assert_eq!(DType::promote(I32, F64), F64);
    }
}
