//! NumPy's type promotion over every NumPy dtype an operand may bring.
//!
//! Tensors hold every real dtype of the array API standard ([`DType`]);
//! an operand of an operation may also be a NumPy array or scalar of
//! float16, which tensors lack. So the result dtype of an operation is
//! decided over [`OperandDType`], NumPy's numeric dtypes, by NumPy's
//! promotion table; a float16 operand is held in float32 (which
//! represents its values exactly, [`OperandDType::held_as`]) and cast to
//! the result. [`DType::promote`] is this table restricted to tensors.
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

use std::fmt;

use crate::array::element::DType;

/// A NumPy numeric dtype an operand may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperandDType {
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Signed,
    Unsigned,
    Float,
    Complex,
}

impl OperandDType {
    /// Every dtype, for tests and tables.
    pub const ALL: [OperandDType; 14] = {
        use OperandDType::{Bool, C128, C64, F16, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8};
        [
            Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64, C64, C128,
        ]
    };

    /// From NumPy's dtype `kind` character and item size.
    pub fn from_numpy(kind: u8, itemsize: usize) -> Option<Self> {
        use OperandDType::{Bool, F16, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8};
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
            (b'c', 8) => OperandDType::C64,
            (b'c', 16) => OperandDType::C128,
            _ => return None,
        })
    }

    fn kind(self) -> Kind {
        use OperandDType::{Bool, F16, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8};
        match self {
            Bool => Kind::Bool,
            I8 | I16 | I32 | I64 => Kind::Signed,
            U8 | U16 | U32 | U64 => Kind::Unsigned,
            F16 | F32 | F64 => Kind::Float,
            OperandDType::C64 | OperandDType::C128 => Kind::Complex,
        }
    }

    /// Width in bits.
    fn bits(self) -> u32 {
        use OperandDType::{Bool, F16, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8};
        match self {
            Bool | I8 | U8 => 8,
            I16 | U16 | F16 => 16,
            I32 | U32 | F32 => 32,
            I64 | U64 | F64 | OperandDType::C64 => 64,
            OperandDType::C128 => 128,
        }
    }

    fn signed(bits: u32) -> Self {
        match bits {
            8 => OperandDType::I8,
            16 => OperandDType::I16,
            32 => OperandDType::I32,
            _ => OperandDType::I64,
        }
    }

    fn float(bits: u32) -> Self {
        match bits {
            16 => OperandDType::F16,
            32 => OperandDType::F32,
            _ => OperandDType::F64,
        }
    }

    /// NumPy's result dtype for two operands. See the [module docs](self).
    pub fn promote(a: Self, b: Self) -> Self {
        let wider = |x: Self, y: Self| if x.bits() >= y.bits() { x } else { y };
        match (a.kind(), b.kind()) {
            (Kind::Bool, _) => b,
            (_, Kind::Bool) => a,
            (ka, kb) if ka == kb => wider(a, b),
            (Kind::Complex, _) => Self::complex(Self::promote(a.component(), b)),
            (_, Kind::Complex) => Self::complex(Self::promote(a, b.component())),
            (Kind::Signed, Kind::Unsigned) => Self::mixed_ints(a, b),
            (Kind::Unsigned, Kind::Signed) => Self::mixed_ints(b, a),
            (Kind::Float, _) => Self::float(a.bits().max(Self::float_for(b))),
            (_, Kind::Float) => Self::float(b.bits().max(Self::float_for(a))),
            _ => unreachable!("every pair of kinds is covered above"),
        }
    }

    /// A complex dtype's component float (float32 for complex64).
    fn component(self) -> Self {
        match self {
            OperandDType::C64 => OperandDType::F32,
            OperandDType::C128 => OperandDType::F64,
            d => d,
        }
    }

    /// The complex dtype that holds every value of float `f` (complex64
    /// for float16 and float32).
    fn complex(f: Self) -> Self {
        if f.bits() <= 32 {
            OperandDType::C64
        } else {
            OperandDType::C128
        }
    }

    /// `iN` with `uM`.
    fn mixed_ints(signed: Self, unsigned: Self) -> Self {
        if signed.bits() > unsigned.bits() {
            signed
        } else if unsigned.bits() == 64 {
            OperandDType::F64
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

    /// The tensor dtype, if tensors have this dtype (all but float16).
    pub fn tensor_dtype(self) -> Option<DType> {
        use OperandDType::{Bool, F16, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8};
        Some(match self {
            Bool => DType::Bool,
            I8 => DType::I8,
            I16 => DType::I16,
            I32 => DType::I32,
            I64 => DType::I64,
            U8 => DType::U8,
            U16 => DType::U16,
            U32 => DType::U32,
            U64 => DType::U64,
            F32 => DType::F32,
            F64 => DType::F64,
            OperandDType::C64 => DType::C64,
            OperandDType::C128 => DType::C128,
            F16 => return None,
        })
    }

    /// The tensor dtype a request for this dtype (`dtype=`, `astype`)
    /// makes: its own, or an error for one that tensors do not have
    /// (float16: its data is held as float32, but asking for float16 by
    /// name would hand back another dtype than the one asked for).
    pub fn requested(self) -> Result<DType, crate::Error> {
        self.tensor_dtype().ok_or(crate::Error::NotATensorDType {
            name: self.name(),
            held_as: self.held_as(),
        })
    }

    /// The tensor dtype an operand (or a result) of this dtype is held in:
    /// its own, or for float16, which tensors lack, float32 (which holds
    /// every float16 value exactly).
    pub fn held_as(self) -> DType {
        self.tensor_dtype().unwrap_or(DType::F32)
    }

    /// NumPy's name.
    pub const fn name(self) -> &'static str {
        use OperandDType::{Bool, F16, F32, F64, I16, I32, I64, I8, U16, U32, U64, U8};
        match self {
            Bool => "bool",
            I8 => "int8",
            I16 => "int16",
            I32 => "int32",
            I64 => "int64",
            U8 => "uint8",
            U16 => "uint16",
            U32 => "uint32",
            U64 => "uint64",
            F16 => "float16",
            F32 => "float32",
            F64 => "float64",
            OperandDType::C64 => "complex64",
            OperandDType::C128 => "complex128",
        }
    }
}

impl DType {
    /// The dtype two tensors are promoted to: NumPy's table, decided in
    /// one place, [`OperandDType::promote`] (`crate::array::promote`), which also
    /// covers float16, a dtype an operand may bring but tensors do not hold.
    ///
    /// [`OperandDType::promote`]: crate::OperandDType::promote
    ///
    /// # Panics
    ///
    /// Never: two tensor dtypes promote to a tensor dtype (float16, the
    /// one dtype tensors lack, is no tensor's), which `crate::array::promote`'s
    /// tests check over every pair.
    pub fn promote(a: DType, b: DType) -> DType {
        OperandDType::promote(a.into(), b.into())
            .tensor_dtype()
            .expect("two tensor dtypes promote to a tensor dtype (tested over every pair)")
    }

    /// NumPy's `can_cast(from, to, "same_kind")`: a safe cast, or one
    /// within a kind or up the order bool, unsigned, signed, float
    /// (float64 into float32 and int64 into int8 are; float into an
    /// integer, signed into unsigned and a number into bool are not). The
    /// rule of an in-place operation's result written into its target.
    #[must_use]
    pub fn can_cast_same_kind(from: DType, to: DType) -> bool {
        let rank = |d: DType| match OperandDType::from(d).kind() {
            Kind::Bool => 0,
            Kind::Unsigned => 1,
            Kind::Signed => 2,
            Kind::Float => 3,
            Kind::Complex => 4,
        };
        rank(from) <= rank(to)
    }

    /// The float dtype a float function (and `mean`) gives for `self`:
    /// NumPy's ufunc loops, `self` with float16, the smallest float
    /// (float32 for bool and the 8- and 16-bit integers, float16 being
    /// held in float32; float64 for the wider ones).
    #[must_use]
    pub fn float_result(self) -> DType {
        OperandDType::promote(self.into(), OperandDType::F16).held_as()
    }
}

impl From<DType> for OperandDType {
    fn from(d: DType) -> Self {
        match d {
            DType::Bool => OperandDType::Bool,
            DType::I8 => OperandDType::I8,
            DType::I16 => OperandDType::I16,
            DType::I32 => OperandDType::I32,
            DType::I64 => OperandDType::I64,
            DType::U8 => OperandDType::U8,
            DType::U16 => OperandDType::U16,
            DType::U32 => OperandDType::U32,
            DType::U64 => OperandDType::U64,
            DType::F32 => OperandDType::F32,
            DType::F64 => OperandDType::F64,
            DType::C64 => OperandDType::C64,
            DType::C128 => OperandDType::C128,
        }
    }
}

impl fmt::Display for OperandDType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::OperandDType::{self, *};

    #[test]
    fn a_request_names_a_tensor_dtype_or_says_what_its_data_becomes() {
        for o in OperandDType::ALL {
            match (o.tensor_dtype(), o.requested()) {
                (Some(d), Ok(r)) => assert_eq!(d, r),
                (None, Err(e)) => {
                    let m = e.to_string();
                    assert!(m.starts_with("float16 is not a dtype"), "{m}");
                    assert!(m.contains("held as float32"), "{m}");
                }
                (d, r) => panic!("{o:?}: {d:?} against {r:?}"),
            }
        }
    }

    /// `np.result_type(a, b)` for every pair, as NumPy 2 prints it (rows
    /// and columns in the order of `OperandDType::ALL`).
    const NUMPY: [[OperandDType; 14]; 14] = [
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
    fn promotion_matches_numpys_table() {
        for (i, &a) in OperandDType::ALL.iter().enumerate() {
            for (j, &b) in OperandDType::ALL.iter().enumerate() {
                assert_eq!(OperandDType::promote(a, b), NUMPY[i][j], "{a} with {b}");
            }
        }
    }

    #[test]
    fn two_tensor_dtypes_give_a_tensor_dtype() {
        for t in OperandDType::ALL
            .into_iter()
            .filter(|d| d.tensor_dtype().is_some())
        {
            for o in OperandDType::ALL
                .into_iter()
                .filter(|d| d.tensor_dtype().is_some())
            {
                assert!(
                    OperandDType::promote(t, o).tensor_dtype().is_some(),
                    "{t} with {o}"
                );
            }
        }
    }

    /// `np.can_cast(a, b, "same_kind")` for the tensor dtypes, as NumPy 2
    /// prints it (rows `a`, columns `b`, in the order of `TENSOR`).
    #[test]
    fn same_kind_casting_matches_numpy() {
        use crate::DType;
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
