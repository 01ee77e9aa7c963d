//! Element types a tensor can hold.

use std::fmt;

/// The run-time tag of an element type: NumPy's bool, signed and unsigned
/// integers of 8 to 64 bits, float32 and float64 (the array API standard's
/// real dtypes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
}

impl DType {
    /// The default floating dtype: what Python floats become when they make
    /// a tensor on their own (`asarray([1.5])`, `full(s, 1.5)`, `exp(1.5)`),
    /// and what `zeros`, `ones`, `eye`, `linspace` and a float `arange`
    /// make without a `dtype`. float32, as in PyTorch and
    /// JAX, not NumPy's float64: the kernels and the memory budgets of
    /// tensor code are float32's. The one place this is decided.
    pub const DEFAULT_FLOAT: DType = DType::F32;

    /// Every dtype, for tests and tables.
    pub const ALL: [DType; 11] = {
        use DType::{Bool, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8};
        [Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64]
    };

    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    /// NumPy's name for the dtype.
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// Parse NumPy's names (and a few aliases).
    pub fn parse(s: &str) -> Option<DType> {
        Some(match s {
            "bool" | "?" | "b1" | "bool_" => DType::Bool,
            "int8" | "i1" | "b" | "byte" => DType::I8,
            "int16" | "i2" | "<i2" | "h" | "short" => DType::I16,
            "int32" | "i4" | "<i4" | "=i4" | "i" | "intc" => DType::I32,
            "int64" | "i8" | "<i8" | "=i8" | "q" | "l" | "int" | "long" => DType::I64,
            "uint8" | "u1" | "B" | "ubyte" => DType::U8,
            "uint16" | "u2" | "<u2" | "H" | "ushort" => DType::U16,
            "uint32" | "u4" | "<u4" | "I" | "uintc" => DType::U32,
            "uint64" | "u8" | "<u8" | "Q" | "L" | "ulong" => DType::U64,
            "float32" | "f4" | "<f4" | "=f4" | "f" | "single" => DType::F32,
            "float64" | "f8" | "<f8" | "=f8" | "d" | "double" | "float" => DType::F64,
            _ => return None,
        })
    }

    /// Floating point?
    pub const fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }

    /// bool?
    pub const fn is_bool(self) -> bool {
        matches!(self, DType::Bool)
    }

    /// A signed or unsigned integer (not bool)?
    pub const fn is_int(self) -> bool {
        !self.is_float() && !self.is_bool()
    }

    /// An unsigned integer?
    pub const fn is_unsigned(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    }

    /// The smallest and largest value of an integer dtype (bool: 0 and 1);
    /// `None` for floats.
    pub const fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            DType::Bool => (0, 1),
            DType::I8 => (i8::MIN as i128, i8::MAX as i128),
            DType::I16 => (i16::MIN as i128, i16::MAX as i128),
            DType::I32 => (i32::MIN as i128, i32::MAX as i128),
            DType::I64 => (i64::MIN as i128, i64::MAX as i128),
            DType::U8 => (0, u8::MAX as i128),
            DType::U16 => (0, u16::MAX as i128),
            DType::U32 => (0, u32::MAX as i128),
            DType::U64 => (0, u64::MAX as i128),
            DType::F32 | DType::F64 => return None,
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for bool {}
    impl Sealed for i8 {}
    impl Sealed for i16 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// An element type: `bool`, `i8`…`i64`, `u8`…`u64`, `f32` or `f64`. Sealed.
pub trait Element:
    sealed::Sealed + Copy + Send + Sync + PartialOrd + fmt::Debug + Default + 'static
{
    /// The run-time tag.
    const DTYPE: DType;
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;
    /// Convert from `f64` (floats to integers truncate toward zero and
    /// saturate, NaN gives 0, as `as` does; anything but zero is `true`).
    fn from_f64(v: f64) -> Self;
    /// Convert to `f64` (`true` is 1).
    fn to_f64(self) -> f64;
    /// Convert from an integer, wrapping to this width as NumPy's `astype`
    /// does (every integer dtype's values fit an `i128`).
    fn from_i128(v: i128) -> Self;
    /// This value as an integer (floats truncate toward zero and saturate).
    fn to_i128(self) -> i128;
}

/// Convert one element to another element type, exactly where the target
/// holds the value: integers pass through `i128`, so an int64 or uint64
/// beyond 2^53 never rounds through `f64` on its way to another integer
/// type.
#[inline(always)]
pub fn convert<S: Element, D: Element>(s: S) -> D {
    if S::DTYPE.is_float() {
        D::from_f64(s.to_f64())
    } else {
        D::from_i128(s.to_i128())
    }
}

/// Floating-point elements: `f32` and `f64`.
pub trait Float: Element {}
impl Float for f32 {}
impl Float for f64 {}

// One body for every numeric type (`as` semantics); some casts are
// lossless or sign-changing for some of the types, which is the point.
macro_rules! element {
    ($t:ty, $d:expr, $zero:expr, $one:expr) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[allow(clippy::cast_lossless, clippy::cast_precision_loss)]
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::cast_precision_loss,
                clippy::cast_possible_wrap
            )]
            #[inline(always)]
            fn from_i128(v: i128) -> Self {
                v as $t
            }
            #[allow(clippy::cast_lossless, clippy::cast_possible_truncation)]
            #[inline(always)]
            fn to_i128(self) -> i128 {
                self as i128
            }
        }
    };
}
element!(i8, DType::I8, 0, 1);
element!(i16, DType::I16, 0, 1);
element!(i32, DType::I32, 0, 1);
element!(i64, DType::I64, 0, 1);
element!(u8, DType::U8, 0, 1);
element!(u16, DType::U16, 0, 1);
element!(u32, DType::U32, 0, 1);
element!(u64, DType::U64, 0, 1);
element!(f32, DType::F32, 0.0, 1.0);
element!(f64, DType::F64, 0.0, 1.0);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    const ZERO: Self = false;
    const ONE: Self = true;
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
    #[inline(always)]
    fn from_i128(v: i128) -> Self {
        v != 0
    }
    #[inline(always)]
    fn to_i128(self) -> i128 {
        i128::from(self)
    }
}

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
        assert_eq!(DType::promote(I8, U8), I16);
        assert_eq!(DType::promote(U64, I64), F64);
        assert_eq!(DType::promote(Bool, U16), U16);
        assert_eq!(DType::promote(I16, F32), F32);
    }

    #[test]
    #[allow(clippy::float_cmp)] // exact values
    fn conversion_is_exact_between_wide_integers() {
        let big = (1_i64 << 60) + 1;
        assert_eq!(convert::<i64, u64>(big), big as u64);
        assert_eq!(convert::<u64, i64>(u64::MAX), -1);
        assert_eq!(convert::<i64, i8>(300), 44);
        assert_eq!(convert::<f64, i32>(-2.7), -2);
        assert!(convert::<f32, bool>(f32::NAN));
        assert!(!convert::<i16, bool>(0));
        assert_eq!(convert::<bool, f32>(true), 1.0);
    }

    #[test]
    fn every_dtype_parses_from_its_name_and_has_its_size() {
        for d in DType::ALL {
            assert_eq!(DType::parse(d.name()), Some(d));
        }
        assert_eq!(DType::Bool.size(), 1);
        assert_eq!(DType::U16.size(), 2);
    }
}
