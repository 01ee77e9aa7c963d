//! NumPy's type promotion over every dtype a tensor holds.
//!
//! The result dtype of an operation is decided over [`DType`] by NumPy's
//! promotion table, here and nowhere else ([`DType::promote`]).
//!
//! The table (NumPy's `np.result_type` for two arrays):
//! * bool with anything gives the other;
//! * two signed or two unsigned integers give the wider;
//! * a signed `iN` with an unsigned `uM`: `iN` when `N > M`, else the
//!   signed integer of twice `M`'s width, and float64 for `u64`;
//! * an integer with a float: the wider of the float and the smallest
//!   float that holds the integer (float16 for 8 bits, float32 for 16,
//!   float64 for 32 and 64);
//! * two floats give the wider;
//! * a complex with a real dtype: the complex whose components are the
//!   real promotion of its components' float with the other (complex64
//!   with float64 or int32 gives complex128, with int16 complex64);
//! * two complexes give the wider.

use crate::array::element::DType;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Signed,
    Unsigned,
    Float,
    Complex,
}

impl DType {
    /// From NumPy's dtype `kind` character and item size.
    pub fn from_numpy(kind: u8, itemsize: usize) -> Option<Self> {
        use DType::{Bool, C128, C64, F16, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8};
        Some(match (kind, itemsize) {
            (b'b', 1) => Bool,
            (b'i', 1) => I8,
            (b'i', 2) => I16,
            (b'i', 4) => I32,
            (b'i', 8) => I64,
            (b'u', 1) => U8,
            (b'u', 2) => U16,
            (b'u', 4) => U32,
            (b'u', 8) => U64,
            (b'f', 2) => F16,
            (b'f', 4) => F32,
            (b'f', 8) => F64,
            (b'c', 8) => C64,
            (b'c', 16) => C128,
            _ => return None,
        })
    }

    fn kind(self) -> Kind {
        use DType::{Bool, C128, C64, F16, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8};
        match self {
            Bool => Kind::Bool,
            I8 | I16 | I32 | I64 => Kind::Signed,
            U8 | U16 | U32 | U64 => Kind::Unsigned,
            F16 | F32 | F64 => Kind::Float,
            C64 | C128 => Kind::Complex,
        }
    }

    /// Width in bits.
    fn bits(self) -> u32 {
        use DType::{Bool, C128, C64, F16, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8};
        match self {
            Bool | I8 | U8 => 8,
            I16 | U16 | F16 => 16,
            I32 | U32 | F32 => 32,
            I64 | U64 | F64 | C64 => 64,
            C128 => 128,
        }
    }

    fn signed(bits: u32) -> Self {
        match bits {
            8 => DType::I8,
            16 => DType::I16,
            32 => DType::I32,
            _ => DType::I64,
        }
    }

    fn float(bits: u32) -> Self {
        match bits {
            16 => DType::F16,
            32 => DType::F32,
            _ => DType::F64,
        }
    }

    /// NumPy's result dtype for two operands. See the [module docs](self).
    pub fn promote(a: Self, b: Self) -> Self {
        let wider = |x: Self, y: Self| if x.bits() >= y.bits() { x } else { y };
        match (a.kind(), b.kind()) {
            (Kind::Bool, _) => b,
            (_, Kind::Bool) => a,
            (ka, kb) if ka == kb => wider(a, b),
            (Kind::Complex, _) => Self::complex(Self::promote(a.real_dtype(), b)),
            (_, Kind::Complex) => Self::complex(Self::promote(a, b.real_dtype())),
            (Kind::Signed, Kind::Unsigned) => Self::mixed_ints(a, b),
            (Kind::Unsigned, Kind::Signed) => Self::mixed_ints(b, a),
            (Kind::Float, _) => Self::float(a.bits().max(Self::float_for(b))),
            (_, Kind::Float) => Self::float(b.bits().max(Self::float_for(a))),
            _ => unreachable!("every pair of kinds is covered above"),
        }
    }

    /// NumPy's result dtype of several operands (`np.result_type(*ds)`),
    /// which is not the left fold of [`DType::promote`]: when one of them
    /// is a float or complex, every integer or bool is first taken to the
    /// smallest float that holds it, then all fold (int8, uint16 and
    /// float32 give float32, where `(int8 + uint16) + float32` is float64,
    /// as int8 + uint16 is int32). Checked against NumPy over every tuple
    /// of two to four dtypes. `None` for no dtypes.
    pub fn promote_all(ds: &[DType]) -> Option<DType> {
        let inexact = ds.iter().any(|d| d.is_float() || d.is_complex());
        ds.iter()
            .map(|&d| match d.kind() {
                Kind::Bool | Kind::Signed | Kind::Unsigned if inexact => {
                    Self::promote(d, DType::F16)
                }
                _ => d,
            })
            .reduce(Self::promote)
    }

    /// The complex dtype that holds every value of float `f` (complex64
    /// for float16 and float32).
    fn complex(f: Self) -> Self {
        if f.bits() <= 32 {
            DType::C64
        } else {
            DType::C128
        }
    }

    /// `iN` with `uM`.
    fn mixed_ints(signed: Self, unsigned: Self) -> Self {
        if signed.bits() > unsigned.bits() {
            signed
        } else if unsigned.bits() == 64 {
            DType::F64
        } else {
            Self::signed(unsigned.bits() * 2)
        }
    }

    /// Bits of the smallest float that holds every value of integer `i`.
    fn float_for(i: Self) -> u32 {
        match i.bits() {
            8 => 16,
            16 => 32,
            _ => 64,
        }
    }

    /// NumPy's `can_cast(from, to, "same_kind")`: a safe cast, or one
    /// within a kind or up the order bool, unsigned, signed, float
    /// (float64 into float32 and int64 into int8 are; float into an
    /// integer, signed into unsigned and a number into bool are not). The
    /// rule of an in-place operation's result written into its target.
    #[must_use]
    pub fn can_cast_same_kind(from: DType, to: DType) -> bool {
        let rank = |d: DType| match d.kind() {
            Kind::Bool => 0,
            Kind::Unsigned => 1,
            Kind::Signed => 2,
            Kind::Float => 3,
            Kind::Complex => 4,
        };
        rank(from) <= rank(to)
    }

    /// The float dtype a float function (and `mean`) gives for `self`:
    /// NumPy's ufunc loops, `self` with float16, the smallest float, except
    /// that bool and the 8-bit integers give float32 where NumPy gives
    /// float16 (float16 is a storage dtype: donate makes it only where it
    /// is asked for or brought, never from integers; see
    /// [`DType::is_storage`]); float64 for the wider integers.
    #[must_use]
    pub fn float_result(self) -> DType {
        match DType::promote(self, DType::F16) {
            DType::F16 if self != DType::F16 => DType::F32,
            d => d,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::DType::{self, *};

    /// `np.result_type(a, b)` for every pair, as NumPy 2 prints it (rows
    /// and columns in the order of `DType::EVERY`).
    const NUMPY: [[DType; 14]; 14] = [
        // bool  i8   i16  i32  i64  u8   u16  u32  u64  f16  f32  f64  c64  c128
        [
            Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64, C64, C128,
        ], // bool
        [
            I8, I8, I16, I32, I64, I16, I32, I64, F64, F16, F32, F64, C64, C128,
        ], // i8
        [
            I16, I16, I16, I32, I64, I16, I32, I64, F64, F32, F32, F64, C64, C128,
        ], // i16
        [
            I32, I32, I32, I32, I64, I32, I32, I64, F64, F64, F64, F64, C128, C128,
        ], // i32
        [
            I64, I64, I64, I64, I64, I64, I64, I64, F64, F64, F64, F64, C128, C128,
        ], // i64
        [
            U8, I16, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64, C64, C128,
        ], // u8
        [
            U16, I32, I32, I32, I64, U16, U16, U32, U64, F32, F32, F64, C64, C128,
        ], // u16
        [
            U32, I64, I64, I64, I64, U32, U32, U32, U64, F64, F64, F64, C128, C128,
        ], // u32
        [
            U64, F64, F64, F64, F64, U64, U64, U64, U64, F64, F64, F64, C128, C128,
        ], // u64
        [
            F16, F16, F32, F64, F64, F16, F32, F64, F64, F16, F32, F64, C64, C128,
        ], // f16
        [
            F32, F32, F32, F64, F64, F32, F32, F64, F64, F32, F32, F64, C64, C128,
        ], // f32
        [
            F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, C128, C128,
        ], // f64
        [
            C64, C64, C64, C128, C128, C64, C64, C128, C128, C64, C64, C128, C64, C128,
        ], // c64
        [
            C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128,
        ], // c128
    ];

    #[test]
    fn several_dtypes_promote_as_numpys_result_type() {
        assert_eq!(DType::promote_all(&[I8, U16, F32]), Some(F32));
        assert_eq!(DType::promote_all(&[I8, U16, F16]), Some(F32));
        assert_eq!(DType::promote_all(&[I16, U32, F32]), Some(F64));
        assert_eq!(DType::promote_all(&[I8, U16]), Some(I32));
        assert_eq!(DType::promote_all(&[Bool, I8, U16, C64]), Some(C64));
        assert_eq!(DType::promote_all(&[U64, I8, F16]), Some(F64));
        assert_eq!(DType::promote_all(&[]), None);
        for (i, &a) in DType::EVERY.iter().enumerate() {
            for (j, &b) in DType::EVERY.iter().enumerate() {
                assert_eq!(DType::promote_all(&[a, b]), Some(NUMPY[i][j]));
            }
        }
    }

    #[test]
    fn promotion_matches_numpys_table() {
        for (i, &a) in DType::EVERY.iter().enumerate() {
            for (j, &b) in DType::EVERY.iter().enumerate() {
                assert_eq!(DType::promote(a, b), NUMPY[i][j], "{a} with {b}");
            }
        }
    }

    /// `np.can_cast(a, b, "same_kind")` for the tensor dtypes, as NumPy 2
    /// prints it (rows `a`, columns `b`, in the order of `TENSOR`).
    #[test]
    fn same_kind_casting_matches_numpy() {
        const TENSOR: [DType; 11] = [
            DType::Bool,
            DType::I8,
            DType::I16,
            DType::I32,
            DType::I64,
            DType::U8,
            DType::U16,
            DType::U32,
            DType::U64,
            DType::F32,
            DType::F64,
        ];
        const NUMPY: [[bool; 11]; 11] = [
            [
                true, true, true, true, true, true, true, true, true, true, true,
            ], // ?
            [
                false, true, true, true, true, false, false, false, false, true, true,
            ], // i1
            [
                false, true, true, true, true, false, false, false, false, true, true,
            ], // i2
            [
                false, true, true, true, true, false, false, false, false, true, true,
            ], // i4
            [
                false, true, true, true, true, false, false, false, false, true, true,
            ], // i8
            [
                false, true, true, true, true, true, true, true, true, true, true,
            ], // u1
            [
                false, true, true, true, true, true, true, true, true, true, true,
            ], // u2
            [
                false, true, true, true, true, true, true, true, true, true, true,
            ], // u4
            [
                false, true, true, true, true, true, true, true, true, true, true,
            ], // u8
            [
                false, false, false, false, false, false, false, false, false, true, true,
            ], // f4
            [
                false, false, false, false, false, false, false, false, false, true, true,
            ], // f8
        ];
        for (i, &a) in TENSOR.iter().enumerate() {
            for (j, &b) in TENSOR.iter().enumerate() {
                assert_eq!(DType::can_cast_same_kind(a, b), NUMPY[i][j], "{a} into {b}");
            }
        }
    }
}
