//! Element types a tensor can hold.

use std::fmt;

/// The run-time tag of an element type: NumPy's bool, signed and unsigned
/// integers of 8 to 64 bits, float32 and float64 (the array API standard's
/// real dtypes), complex64 and complex128 (pairs of float32 and of
/// float64), and float16, a storage dtype ([`DType::is_storage`]).
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
    F16,
    F32,
    F64,
    C64,
    C128,
}

/// float16's element: IEEE 754 binary16, as NumPy's `float16` (the `half`
/// crate's type, the one `gemm` already builds on).
pub type F16 = half::f16;

/// complex64's element: two float32s, real then imaginary (NumPy's and C99's
/// layout; `num_complex::Complex` is `#[repr(C)]`).
pub type C32 = num_complex::Complex<f32>;
/// complex128's element: two float64s.
pub type C64 = num_complex::Complex<f64>;

impl DType {
    /// The default floating dtype: what Python floats become when they make
    /// a tensor on their own (`asarray([1.5])`, `full(s, 1.5)`, `exp(1.5)`),
    /// and what `zeros`, `ones`, `eye`, `linspace` and a float `arange`
    /// make without a `dtype`. float32, as in PyTorch and
    /// JAX, not NumPy's float64: the kernels and the memory budgets of
    /// tensor code are float32's. The one place this is decided.
    pub const DEFAULT_FLOAT: DType = DType::F32;

    /// Every real dtype, for tests and tables (the dtypes every operation
    /// is defined for; [`DType::COMPLEX`] holds the others).
    pub const ALL: [DType; 11] = {
        use DType::{Bool, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8};
        [Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64]
    };

    /// The complex dtypes.
    pub const COMPLEX: [DType; 2] = [DType::C64, DType::C128];

    /// Every dtype, in NumPy's order of kinds and widths (the rows and
    /// columns of the promotion table's tests).
    pub const EVERY: [DType; 14] = {
        use DType::{Bool, C128, C64, F16, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8};
        [
            Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64, C64, C128,
        ]
    };

    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 | DType::F16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 | DType::C64 => 8,
            DType::C128 => 16,
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
            DType::F16 => "float16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
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
            "float16" | "f2" | "<f2" | "=f2" | "e" | "half" => DType::F16,
            "float32" | "f4" | "<f4" | "=f4" | "f" | "single" => DType::F32,
            "float64" | "f8" | "<f8" | "=f8" | "d" | "double" | "float" => DType::F64,
            "complex64" | "c8" | "<c8" | "=c8" | "F" | "csingle" => DType::C64,
            "complex128" | "c16" | "<c16" | "=c16" | "D" | "cdouble" | "complex" => DType::C128,
            _ => return None,
        })
    }

    /// Real floating point (float16, float32, float64)?
    pub const fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::F32 | DType::F64)
    }

    /// A storage dtype: float16. Tensors hold its elements (two bytes
    /// each), views, copies, casts and assignments move them as they are,
    /// and every operation that computes reads them as
    /// [`DType::computed_as`] (float32, which holds every float16 value
    /// exactly) and rounds its result back once, as NumPy's float16 loops
    /// do. The planner applies this rule (`plan/storage.rs`); no kernel
    /// reads float16.
    pub const fn is_storage(self) -> bool {
        matches!(self, DType::F16)
    }

    /// The dtype an operation computes in when it reads this dtype:
    /// float32 for float16, itself for every other dtype.
    #[must_use]
    pub const fn computed_as(self) -> DType {
        match self {
            DType::F16 => DType::F32,
            d => d,
        }
    }

    /// complex64 or complex128?
    pub const fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }

    /// The real dtype of a complex dtype's components (float32 for
    /// complex64, float64 for complex128); itself for a real dtype.
    #[must_use]
    pub const fn real_dtype(self) -> DType {
        match self {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            d => d,
        }
    }

    /// The complex dtype whose components are `self` (complex64 for
    /// float32, complex128 for float64); `None` for other dtypes.
    pub const fn complex_of(self) -> Option<DType> {
        match self {
            DType::F16 | DType::F32 | DType::C64 => Some(DType::C64),
            DType::F64 | DType::C128 => Some(DType::C128),
            _ => None,
        }
    }

    /// bool?
    pub const fn is_bool(self) -> bool {
        matches!(self, DType::Bool)
    }

    /// A signed or unsigned integer (not bool)?
    pub const fn is_int(self) -> bool {
        !self.is_float() && !self.is_bool() && !self.is_complex()
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
            DType::F16 | DType::F32 | DType::F64 | DType::C64 | DType::C128 => return None,
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
    impl Sealed for half::f16 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for super::C32 {}
    impl Sealed for super::C64 {}
}

/// An element type: `bool`, `i8`…`i64`, `u8`…`u64`, [`F16`], `f32`,
/// `f64`, [`C32`] or [`C64`]. Sealed. Complex elements are unordered, so ordering is not
/// part of this trait ([`RealElement`] adds it).
pub trait Element:
    sealed::Sealed + Copy + Send + Sync + PartialEq + fmt::Debug + Default + 'static
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
    /// Convert from `f32` (as [`Element::from_f64`] of it; a type whose
    /// conversion from `f32` is one rounding of its own, float16's,
    /// overrides it).
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        Self::from_f64(f64::from(v))
    }
    /// Convert from an integer, wrapping to this width as NumPy's `astype`
    /// does (every integer dtype's values fit an `i128`).
    fn from_i128(v: i128) -> Self;
    /// This value as an integer (floats truncate toward zero and saturate).
    fn to_i128(self) -> i128;
    /// This value as a complex128 (a real value with imaginary part 0).
    #[inline(always)]
    fn to_c64(self) -> C64 {
        C64::new(self.to_f64(), 0.0)
    }
    /// Convert from a complex128: a complex type keeps both parts, a real
    /// type takes the real part (NumPy's `astype`, which warns; the
    /// planner decides when that is allowed).
    #[inline(always)]
    fn from_c64(v: C64) -> Self {
        Self::from_f64(v.re)
    }
}

/// A real element type (every [`Element`] but the complex ones): ordered.
pub trait RealElement: Element + PartialOrd {}
impl<T: Element + PartialOrd> RealElement for T {}

/// Convert one element to another element type, exactly where the target
/// holds the value: integers pass through `i128`, so an int64 or uint64
/// beyond 2^53 never rounds through `f64` on its way to another integer
/// type.
#[inline(always)]
pub fn convert<S: Element, D: Element>(s: S) -> D {
    if S::DTYPE.is_complex() || D::DTYPE.is_complex() {
        D::from_c64(s.to_c64())
    } else if S::DTYPE == DType::F32 {
        // (exact: an f32 is an f64 that fits an f32)
        #[allow(clippy::cast_possible_truncation)]
        D::from_f32(s.to_f64() as f32)
    } else if S::DTYPE.is_float() {
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

/// `v` rounded once to the nearest float16, ties to even, as NumPy's
/// `npy_double_to_half`. (`half`'s `from_f64` goes through float32 with
/// the F16C instruction, rounding twice, and its software path drops the
/// low 32 bits of the mantissa first: `1 + 2^-11 + 2^-40` must round up.)
/// Through float32 rounded to odd: a float32 whose last bit records
/// whether anything was dropped, which then rounds to float16 exactly as
/// `v` would (float32's 24 bits are more than float16's 11 + 2).
#[must_use]
#[allow(clippy::float_cmp)] // whether the float32 is exactly `v` is the question
pub fn f64_to_f16(v: f64) -> F16 {
    #[allow(clippy::cast_possible_truncation)] // the rounding wanted
    let f = v as f32;
    if !f.is_finite() || f64::from(f) == v {
        return F16::from_f32(f);
    }
    let mut bits = f.to_bits();
    if f64::from(f).abs() > v.abs() {
        bits -= 1; // toward zero (sign and magnitude: one step less)
    }
    F16::from_f32(f32::from_bits(bits | 1))
}

impl Element for F16 {
    const DTYPE: DType = DType::F16;
    const ZERO: Self = F16::ZERO;
    const ONE: Self = F16::ONE;
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        f64_to_f16(v)
    }
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        // One rounding (the F16C instruction where the CPU has it).
        F16::from_f32(v)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
    #[inline(always)]
    #[allow(clippy::cast_precision_loss)]
    fn from_i128(v: i128) -> Self {
        // (f64 holds every integer float16 holds; beyond 65520 both are
        // infinite)
        f64_to_f16(v as f64)
    }
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)]
    fn to_i128(self) -> i128 {
        self.to_f64() as i128
    }
}

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
    #[inline(always)]
    fn from_c64(v: C64) -> Self {
        v.re != 0.0 || v.im != 0.0
    }
}

// Complex elements: `to_f64`/`to_i128` take the real part (NumPy's
// `astype` from complex to real, which warns), `from_f64`/`from_i128` give
// an imaginary part of 0.
macro_rules! complex_element {
    ($t:ty, $f:ty, $d:expr) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            const ZERO: Self = <$t>::new(0.0, 0.0);
            const ONE: Self = <$t>::new(1.0, 0.0);
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation, clippy::unnecessary_cast)]
            fn from_f64(v: f64) -> Self {
                <$t>::new(v as $f, 0.0)
            }
            #[inline(always)]
            #[allow(clippy::useless_conversion)]
            fn to_f64(self) -> f64 {
                f64::from(self.re)
            }
            #[inline(always)]
            #[allow(clippy::cast_precision_loss)]
            fn from_i128(v: i128) -> Self {
                <$t>::new(v as $f, 0.0)
            }
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation)]
            fn to_i128(self) -> i128 {
                self.re as i128
            }
            #[inline(always)]
            #[allow(clippy::useless_conversion)]
            fn to_c64(self) -> C64 {
                C64::new(f64::from(self.re), f64::from(self.im))
            }
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation, clippy::unnecessary_cast)]
            fn from_c64(v: C64) -> Self {
                <$t>::new(v.re as $f, v.im as $f)
            }
        }
    };
}
complex_element!(C32, f32, DType::C64);
complex_element!(C64, f64, DType::C128);

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
        assert_eq!(DType::promote(C64, F32), C64);
        assert_eq!(DType::promote(C64, F64), C128);
        assert_eq!(DType::promote(C64, I16), C64);
        assert_eq!(DType::promote(C64, I32), C128);
        assert_eq!(DType::promote(U8, C64), C64);
        assert_eq!(DType::promote(Bool, C64), C64);
        assert_eq!(DType::promote(C64, C128), C128);
    }

    #[test]
    #[allow(clippy::float_cmp)] // exact values
    fn complex_conversion_keeps_both_parts_or_takes_the_real_one() {
        let z = C64::new(1.5, -2.5);
        assert_eq!(convert::<C64, C32>(z), C32::new(1.5, -2.5));
        assert_eq!(convert::<C64, f64>(z), 1.5);
        assert_eq!(convert::<C64, i32>(z), 1);
        assert_eq!(convert::<i64, C64>(-3), C64::new(-3.0, 0.0));
        assert_eq!(convert::<bool, C32>(true), C32::new(1.0, 0.0));
        assert!(convert::<C32, bool>(C32::new(0.0, 1.0)));
        assert!(!convert::<C32, bool>(C32::new(0.0, 0.0)));
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
    #[allow(clippy::float_cmp)] // exact values
    fn float16_rounds_once_from_float64_and_float32() {
        let cases: [(f64, u16); 8] = [
            (1.0 + 2f64.powi(-11) + 2f64.powi(-40), 0x3C01), // above the tie: up
            (1.0 + 2f64.powi(-11), 0x3C00),                  // the tie: to even
            (1.0 + 3.0 * 2f64.powi(-11), 0x3C02),            // the tie: to even (up)
            (2f64.powi(-25) * (1.0 + 2f64.powi(-40)), 0x0001), // above half the smallest subnormal
            (2f64.powi(-25), 0x0000),                        // half of it: to even
            (65520.0, 0x7C00),                               // rounds to infinity
            (-65519.99, 0xFBFF),                             // the largest finite
            (-0.0, 0x8000),
        ];
        for (v, want) in cases {
            assert_eq!(f64_to_f16(v).to_bits(), want, "{v:e}");
            assert_eq!(convert::<f64, F16>(v).to_bits(), want, "{v:e}");
        }
        assert!(f64_to_f16(f64::NAN).is_nan());
        #[allow(clippy::cast_possible_truncation)]
        let f = (1.0 + 2f64.powi(-11) + 2f64.powi(-20)) as f32;
        assert_eq!(convert::<f32, F16>(f).to_bits(), 0x3C01);
        assert_eq!(
            convert::<F16, f32>(F16::from_bits(0x3C01)),
            1.0 + 2f32.powi(-10)
        );
    }

    #[test]
    fn every_dtype_parses_from_its_name_and_has_its_size() {
        for d in DType::ALL.into_iter().chain(DType::COMPLEX) {
            assert_eq!(DType::parse(d.name()), Some(d));
        }
        assert_eq!(DType::C64.size(), 8);
        assert_eq!(DType::C128.size(), 16);
        assert_eq!(DType::Bool.size(), 1);
        assert_eq!(DType::U16.size(), 2);
    }
}
