//! The array API standard's element-wise functions beyond the hot
//! [`UnaryOp`](super::UnaryOp)s and [`BinaryOp`](super::BinaryOp)s:
//! trigonometry, rounding, comparisons, logical and bitwise operations,
//! and the tests (`isnan`, …) whose result is bool; and two of NumPy's
//! beyond the standard, `cbrt` and `fmod`.
//!
//! Each function is a closure over one element, applied by the generic
//! loops of [`loops`]; the compiler inlines it and vectorises what it can.
//! The float functions' loops are compiled once per instruction set and
//! chosen at run time, as the hot ops are (`super::isa`): rounding is one
//! instruction from SSE4.1 on and a C library call per element before.
//! The integer and bool functions keep one baseline copy (see [`loops`]).
//!
//! Which functions a dtype has, and the dtype of the result, is decided
//! by the planner from [`Func::kind`]; the kernels here only compute.
//! Integer arithmetic wraps and an integer division by zero gives 0, as
//! NumPy's does (it warns).

// The tables below list the enum's variants (a glob keeps them readable),
// and exact float comparisons are these functions' definitions.
#![allow(clippy::enum_glob_use, clippy::float_cmp)]

use std::mem::MaybeUninit;

use super::elementwise::Side;
use super::math;
use crate::array::element::Element;

/// An element-wise function of the array API standard (or one of NumPy's
/// that the standard lacks: `cbrt`, `fmod`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Func {
    // one operand, float math
    Acos,
    Acosh,
    Asin,
    Asinh,
    Atan,
    Atanh,
    Cos,
    Cosh,
    Sin,
    Sinh,
    Tan,
    Expm1,
    Log1p,
    Log2,
    Log10,
    Reciprocal,
    /// The real cube root (NumPy's `cbrt`; not in the standard).
    Cbrt,
    // one operand, numeric, same dtype
    Ceil,
    Floor,
    Round,
    Trunc,
    Sign,
    Square,
    Positive,
    /// The complex conjugate, real and imaginary parts, of real numbers
    /// (the standard defines them for real dtypes since 2024.12): `x`,
    /// `x` and zeros.
    Conj,
    Real,
    Imag,
    // one operand, bool result
    IsNan,
    IsInf,
    IsFinite,
    Signbit,
    // logical and bitwise
    LogicalNot,
    BitwiseInvert,
    // two operands, float math
    Atan2,
    Copysign,
    Hypot,
    Logaddexp,
    Nextafter,
    // two operands, numeric
    FloorDivide,
    Remainder,
    Pow,
    /// C's `fmod` (NumPy's; not in the standard): the remainder of the
    /// quotient truncated toward zero, with the dividend's sign; exact for
    /// floats, 0 for an integer divisor of 0 (NumPy's result; it warns).
    Fmod,
    // two operands, bool result
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
    BitwiseLeftShift,
    BitwiseRightShift,
}

/// How a function's dtypes are decided (by the planner).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuncKind {
    /// Floating-point math: integers and bool are promoted to a float
    /// (NumPy's ufunc loops), the result has the operands' float dtype.
    FloatMath,
    /// Real numbers, not bool; the result has the operands' dtype.
    Numeric,
    /// Any dtype; the result is bool.
    Test,
    /// Any dtypes, promoted together; the result is bool.
    Compare,
    /// Operands converted to bool; the result is bool.
    Logical,
    /// Integers or bool; the result has the operands' dtype.
    Bitwise,
    /// Integers only; the result has the operands' dtype.
    Shift,
}

impl Func {
    /// Every function.
    pub const ALL: [Func; 56] = {
        use Func::*;
        [
            Acos,
            Acosh,
            Asin,
            Asinh,
            Atan,
            Atanh,
            Cos,
            Cosh,
            Sin,
            Sinh,
            Tan,
            Expm1,
            Log1p,
            Log2,
            Log10,
            Reciprocal,
            Cbrt,
            Ceil,
            Floor,
            Round,
            Trunc,
            Sign,
            Square,
            Positive,
            Conj,
            Real,
            Imag,
            IsNan,
            IsInf,
            IsFinite,
            Signbit,
            LogicalNot,
            BitwiseInvert,
            Atan2,
            Copysign,
            Hypot,
            Logaddexp,
            Nextafter,
            FloorDivide,
            Remainder,
            Pow,
            Fmod,
            Equal,
            NotEqual,
            Less,
            LessEqual,
            Greater,
            GreaterEqual,
            LogicalAnd,
            LogicalOr,
            LogicalXor,
            BitwiseAnd,
            BitwiseOr,
            BitwiseXor,
            BitwiseLeftShift,
            BitwiseRightShift,
        ]
    };

    /// The number of operands.
    pub const fn arity(self) -> usize {
        use Func::*;
        match self {
            Atan2 | Copysign | Hypot | Logaddexp | Nextafter | FloorDivide | Remainder | Pow
            | Fmod | Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual | LogicalAnd
            | LogicalOr | LogicalXor | BitwiseAnd | BitwiseOr | BitwiseXor | BitwiseLeftShift
            | BitwiseRightShift => 2,
            _ => 1,
        }
    }

    /// How the dtypes are decided.
    pub const fn kind(self) -> FuncKind {
        use Func::*;
        match self {
            Acos | Acosh | Asin | Asinh | Atan | Atanh | Cos | Cosh | Sin | Sinh | Tan | Expm1
            | Log1p | Log2 | Log10 | Reciprocal | Cbrt | Atan2 | Copysign | Hypot | Logaddexp
            | Nextafter => FuncKind::FloatMath,
            Ceil | Floor | Round | Trunc | Sign | Square | Positive | Conj | Real | Imag
            | FloorDivide | Remainder | Pow | Fmod => FuncKind::Numeric,
            IsNan | IsInf | IsFinite | Signbit => FuncKind::Test,
            Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual => FuncKind::Compare,
            LogicalNot | LogicalAnd | LogicalOr | LogicalXor => FuncKind::Logical,
            BitwiseInvert | BitwiseAnd | BitwiseOr | BitwiseXor => FuncKind::Bitwise,
            BitwiseLeftShift | BitwiseRightShift => FuncKind::Shift,
        }
    }

    /// Is the result bool whatever the operands' dtype?
    pub const fn bool_result(self) -> bool {
        matches!(
            self.kind(),
            FuncKind::Test | FuncKind::Compare | FuncKind::Logical
        )
    }

    /// Does the result step in its own dtype's representable numbers
    /// (`nextafter`: the neighbour of `x1` toward `x2`), so that one
    /// computed in a wider dtype is not rounded back but stepped? (Float
    /// 16 computes in float32: float32's step from a float16 `a` rounds
    /// back to `a`.)
    pub const fn steps_in_own_dtype(self) -> bool {
        matches!(self, Func::Nextafter)
    }

    /// The array API's name (NumPy's where the standard has none).
    pub const fn name(self) -> &'static str {
        use Func::*;
        match self {
            Acos => "acos",
            Acosh => "acosh",
            Asin => "asin",
            Asinh => "asinh",
            Atan => "atan",
            Atanh => "atanh",
            Cos => "cos",
            Cosh => "cosh",
            Sin => "sin",
            Sinh => "sinh",
            Tan => "tan",
            Expm1 => "expm1",
            Log1p => "log1p",
            Log2 => "log2",
            Log10 => "log10",
            Reciprocal => "reciprocal",
            Cbrt => "cbrt",
            Ceil => "ceil",
            Floor => "floor",
            Round => "round",
            Trunc => "trunc",
            Sign => "sign",
            Square => "square",
            Positive => "positive",
            Conj => "conj",
            Real => "real",
            Imag => "imag",
            IsNan => "isnan",
            IsInf => "isinf",
            IsFinite => "isfinite",
            Signbit => "signbit",
            LogicalNot => "logical_not",
            BitwiseInvert => "bitwise_invert",
            Atan2 => "atan2",
            Copysign => "copysign",
            Hypot => "hypot",
            Logaddexp => "logaddexp",
            Nextafter => "nextafter",
            FloorDivide => "floor_divide",
            Remainder => "remainder",
            Pow => "pow",
            Fmod => "fmod",
            Equal => "equal",
            NotEqual => "not_equal",
            Less => "less",
            LessEqual => "less_equal",
            Greater => "greater",
            GreaterEqual => "greater_equal",
            LogicalAnd => "logical_and",
            LogicalOr => "logical_or",
            LogicalXor => "logical_xor",
            BitwiseAnd => "bitwise_and",
            BitwiseOr => "bitwise_or",
            BitwiseXor => "bitwise_xor",
            BitwiseLeftShift => "bitwise_left_shift",
            BitwiseRightShift => "bitwise_right_shift",
        }
    }
}

/// Element types with the functions of [`Func`]. A function the planner
/// never gives a type (a float function of an integer, which it promotes
/// first) leaves `dst` unwritten and returns `false`.
pub trait FuncElement: Element {
    /// `dst[i] = f(src[i])`, a result of this type.
    fn map_same(f: Func, src: &[Self], dst: &mut [MaybeUninit<Self>]) -> bool;
    /// `buf[i] = f(buf[i])`.
    fn map_same_inplace(f: Func, buf: &mut [Self]) -> bool;
    /// `dst[i] = f(a[i], b[i])`, a result of this type.
    fn zip_same(
        f: Func,
        a: Side<'_, Self>,
        b: Side<'_, Self>,
        dst: &mut [MaybeUninit<Self>],
    ) -> bool;
    /// `a[i] = f(a[i], b[i])`.
    fn zip_same_lhs(f: Func, a: &mut [Self], b: Side<'_, Self>) -> bool;
    /// `b[i] = f(a[i], b[i])`.
    fn zip_same_rhs(f: Func, a: Side<'_, Self>, b: &mut [Self]) -> bool;
    /// `dst[i] = f(src[i])`, a bool result.
    fn map_test(f: Func, src: &[Self], dst: &mut [MaybeUninit<bool>]) -> bool;
    /// `dst[i] = f(a[i], b[i])`, a bool result.
    fn zip_test(
        f: Func,
        a: Side<'_, Self>,
        b: Side<'_, Self>,
        dst: &mut [MaybeUninit<bool>],
    ) -> bool;
}

/// The trait's seven methods from tables of closures: `unary` (same
/// dtype), `binary` (same dtype), `test` (bool result of one operand);
/// comparisons are written once for every type. `loops` names the module
/// of [`loops`] that applies them (`plain` or `multi`).
macro_rules! func_element {
    ($t:ty, loops: $l:ident, unary: [$($u:ident => $uf:expr),* $(,)?],
     $(guarded: [$($g:ident => ($gf:expr, $gi:expr, $ge:expr)),* $(,)?],)?
     binary: [$($b:ident => $bf:expr),* $(,)?],
     $(guarded_binary: [$($h:ident => ($hf:expr, $hi:expr, $he:expr)),* $(,)?],)?
     test: [$($s:ident => $sf:expr),* $(,)?]) => {
        impl FuncElement for $t {
            fn map_same(f: Func, src: &[$t], dst: &mut [MaybeUninit<$t>]) -> bool {
                match f {
                    $(Func::$u => loops::$l::map(src, dst, $uf),)*
                    $($(Func::$g => loops::$l::map_guarded(src, dst, $gf, $gi, $ge),)*)?
                    _ => return false,
                }
                true
            }
            fn map_same_inplace(f: Func, buf: &mut [$t]) -> bool {
                match f {
                    $(Func::$u => loops::$l::map_inplace(buf, $uf),)*
                    $($(Func::$g => loops::$l::map_inplace_guarded(buf, $gf, $gi, $ge),)*)?
                    _ => return false,
                }
                true
            }
            fn zip_same(f: Func, a: Side<'_, $t>, b: Side<'_, $t>, dst: &mut [MaybeUninit<$t>]) -> bool {
                match f {
                    $(Func::$b => loops::$l::zip(a, b, dst, $bf),)*
                    $($(Func::$h => loops::$l::zip_guarded(a, b, dst, $hf, $hi, $he),)*)?
                    _ => return false,
                }
                true
            }
            fn zip_same_lhs(f: Func, a: &mut [$t], b: Side<'_, $t>) -> bool {
                match f {
                    $(Func::$b => loops::$l::zip_lhs(a, b, $bf),)*
                    $($(Func::$h => loops::$l::zip_lhs_guarded(a, b, $hf, $hi, $he),)*)?
                    _ => return false,
                }
                true
            }
            fn zip_same_rhs(f: Func, a: Side<'_, $t>, b: &mut [$t]) -> bool {
                match f {
                    $(Func::$b => loops::$l::zip_rhs(a, b, $bf),)*
                    $($(Func::$h => loops::$l::zip_rhs_guarded(a, b, $hf, $hi, $he),)*)?
                    _ => return false,
                }
                true
            }
            fn map_test(f: Func, src: &[$t], dst: &mut [MaybeUninit<bool>]) -> bool {
                match f {
                    $(Func::$s => loops::$l::map(src, dst, $sf),)*
                    _ => return false,
                }
                true
            }
            #[allow(clippy::float_cmp)] // element-wise equality is the function
            fn zip_test(f: Func, a: Side<'_, $t>, b: Side<'_, $t>, dst: &mut [MaybeUninit<bool>]) -> bool {
                match f {
                    Func::Equal => loops::$l::zip(a, b, dst, |x: $t, y: $t| x == y),
                    Func::NotEqual => loops::$l::zip(a, b, dst, |x: $t, y: $t| x != y),
                    Func::Less => loops::$l::zip(a, b, dst, |x: $t, y: $t| x < y),
                    Func::LessEqual => loops::$l::zip(a, b, dst, |x: $t, y: $t| x <= y),
                    Func::Greater => loops::$l::zip(a, b, dst, |x: $t, y: $t| x > y),
                    Func::GreaterEqual => loops::$l::zip(a, b, dst, |x: $t, y: $t| x >= y),
                    _ => return false,
                }
                true
            }
        }
    };
}

// --- floats -----------------------------------------------------------------

/// NumPy's `floor_divide` of floats (`npy_divmod`): the floor of the exact
/// quotient, not of the rounded one.
macro_rules! float_divmod {
    ($t:ty, $div:ident, $rem:ident, $logaddexp:ident) => {
        #[inline(always)]
        fn $div(a: $t, b: $t) -> $t {
            // A zero or infinite operand: the floor of the quotient (the
            // standard's special cases: `inf // 2` is inf, `1 // -inf`
            // is -0), which the exact path below would turn into NaN.
            if b == 0.0 || !a.is_finite() || !b.is_finite() {
                return (a / b).floor();
            }
            let m = a % b;
            let mut div = (a - m) / b;
            if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
                div -= 1.0;
            }
            if div == 0.0 {
                return (0.0 as $t).copysign(a / b);
            }
            let fl = div.floor();
            if div - fl > 0.5 {
                fl + 1.0
            } else {
                fl
            }
        }

        /// NumPy's `remainder` of floats: the sign of the divisor.
        #[inline(always)]
        fn $rem(a: $t, b: $t) -> $t {
            if b == 0.0 {
                return <$t>::NAN;
            }
            let m = a % b;
            if m == 0.0 {
                (0.0 as $t).copysign(b)
            } else if (b < 0.0) != (m < 0.0) {
                m + b
            } else {
                m
            }
        }

        /// `log(exp(a) + exp(b))` without overflow.
        #[inline(always)]
        fn $logaddexp(a: $t, b: $t) -> $t {
            if a == b {
                // Also the infinities of one sign.
                return a + std::f64::consts::LN_2 as $t;
            }
            let d = a - b;
            if d > 0.0 {
                a + (-d).exp().ln_1p()
            } else if d <= 0.0 {
                b + d.exp().ln_1p()
            } else {
                d // NaN
            }
        }
    };
}
float_divmod!(f32, floor_div_f32, rem_f32, logaddexp_f32);
float_divmod!(f64, floor_div_f64, rem_f64, logaddexp_f64);

/// The inverse hyperbolic functions without overflow or cancellation
/// (musl's formulas: the standard library's `asinh`/`acosh` overflow to
/// infinity above `MAX / 2` and `atanh` loses digits near ±1).
pub(crate) trait InvHyp: Copy {
    fn asinh_(self) -> Self;
    fn acosh_(self) -> Self;
    fn atanh_(self) -> Self;
}

macro_rules! inv_hyp {
    ($t:ty) => {
        impl InvHyp for $t {
            fn asinh_(self) -> Self {
                let a = self.abs();
                let r = if a > 268_435_456.0 {
                    a.ln() + std::f64::consts::LN_2 as $t
                } else if a > 2.0 {
                    (2.0 * a + 1.0 / ((a * a + 1.0).sqrt() + a)).ln()
                } else {
                    (a + a * a / (1.0 + (1.0 + a * a).sqrt())).ln_1p()
                };
                r.copysign(self)
            }
            fn acosh_(self) -> Self {
                let x = self;
                if x.is_nan() || x < 1.0 {
                    <$t>::NAN
                } else if x > 268_435_456.0 {
                    x.ln() + std::f64::consts::LN_2 as $t
                } else if x > 2.0 {
                    (2.0 * x - 1.0 / (x + (x * x - 1.0).sqrt())).ln()
                } else {
                    let t = x - 1.0;
                    (t + (2.0 * t + t * t).sqrt()).ln_1p()
                }
            }
            fn atanh_(self) -> Self {
                let a = self.abs();
                let r = if a < 0.5 {
                    0.5 * (2.0 * a + 2.0 * a * a / (1.0 - a)).ln_1p()
                } else {
                    0.5 * (2.0 * a / (1.0 - a)).ln_1p()
                };
                r.copysign(self)
            }
        }
    };
}
inv_hyp!(f32);
inv_hyp!(f64);

#[inline(always)]
fn asinh<T: InvHyp>(x: T) -> T {
    x.asinh_()
}
#[inline(always)]
fn acosh<T: InvHyp>(x: T) -> T {
    x.acosh_()
}
#[inline(always)]
fn atanh<T: InvHyp>(x: T) -> T {
    x.atanh_()
}

/// The float types' tables: the functions every float type computes the
/// same way, then each type's own (`own_unary`, `own_binary`: the C
/// library's per element) and its `guarded` ones (vector code over the
/// arguments its guard takes, the C library for a chunk holding any other;
/// the vector code as a pair, with fused multiply-add and without, of
/// which [`loops::multi`] runs the one the CPU computes).
macro_rules! float_funcs {
    ($t:ty, $div:ident, $rem:ident, $logaddexp:ident,
     own_unary: [$($ou:ident => $ouf:expr),* $(,)?],
     guarded: [$($g:ident => ($gf:expr, $gi:expr, $ge:expr)),* $(,)?],
     own_binary: [$($ob:ident => $obf:expr),* $(,)?],
     guarded_binary: [$($h:ident => ($hf:expr, $hi:expr, $he:expr)),* $(,)?] $(,)?) => {
        func_element!($t, loops: multi,
            unary: [
                $($ou => $ouf,)*
                Reciprocal => |x: $t| 1.0 / x,
                Ceil => |x: $t| x.ceil(), Floor => |x: $t| x.floor(),
                Round => |x: $t| x.round_ties_even(), Trunc => |x: $t| x.trunc(),
                Sign => |x: $t| if x > 0.0 { 1.0 } else if x < 0.0 { -1.0 } else if x.is_nan() { x } else { 0.0 },
                Square => |x: $t| x * x, Positive => |x: $t| x,
                Conj => |x: $t| x, Real => |x: $t| x, Imag => |_: $t| 0.0,
            ],
            guarded: [$($g => ($gf, $gi, $ge),)*],
            binary: [
                $($ob => $obf,)*
                Copysign => |a: $t, b: $t| a.copysign(b),
                Hypot => |a: $t, b: $t| a.hypot(b), Logaddexp => $logaddexp,
                Nextafter => |a: $t, b: $t| {
                    if a.is_nan() || b.is_nan() {
                        <$t>::NAN
                    } else if a == b {
                        b
                    } else if a < b {
                        a.next_up()
                    } else {
                        a.next_down()
                    }
                },
                FloorDivide => $div, Remainder => $rem,
                // `x * x` for an exponent of 2, as NumPy's `power` takes it:
                // the one rounding a correctly rounded `pow` would give
                // (signed zeros, infinities and NaN alike), without a C
                // library call per element.
                Pow => |a: $t, b: $t| if b == 2.0 { a * a } else { a.powf(b) },
                // Rust's `%` of floats is C's `fmod`: exact, NaN for a zero
                // divisor or an infinite dividend.
                Fmod => |a: $t, b: $t| a % b,
            ],
            guarded_binary: [$($h => ($hf, $hi, $he),)*],
            test: [
                IsNan => |x: $t| x.is_nan(), IsInf => |x: $t| x.is_infinite(),
                IsFinite => |x: $t| x.is_finite(), Signbit => |x: $t| x.is_sign_negative(),
            ]
        );
    };
}
// `f32`'s transcendental functions in vector code (`super::math`,
// computed in `f64` and rounded once), with the C library for the
// arguments outside each one's guard; `f64`'s call the C library per
// element (as NumPy's `float64` loops do, but for `exp` and `log`).
float_funcs!(f32, floor_div_f32, rem_f32, logaddexp_f32,
    own_unary: [],
    guarded: [
        Sin => ((math::sin, math::sin), math::trig_inside, |x: f32| x.sin()),
        Cos => ((math::cos, math::cos), math::trig_inside, |x: f32| x.cos()),
        Tan => ((math::tan, math::tan), math::trig_inside, |x: f32| x.tan()),
        Asin => ((math::asin::<true>, math::asin::<false>), math::unit, |x: f32| x.asin()),
        Acos => ((math::acos::<true>, math::acos::<false>), math::unit, |x: f32| x.acos()),
        Atan => ((math::atan::<true>, math::atan::<false>), math::finite, |x: f32| x.atan()),
        Sinh => ((math::sinh::<true>, math::sinh::<false>), math::finite, |x: f32| x.sinh()),
        Cosh => ((math::cosh::<true>, math::cosh::<false>), math::finite, |x: f32| x.cosh()),
        Asinh => ((math::asinh::<true>, math::asinh::<false>), math::finite, asinh::<f32>),
        Acosh => ((math::acosh::<true>, math::acosh::<false>), math::acosh_inside, acosh::<f32>),
        Atanh => ((math::atanh::<true>, math::atanh::<false>), math::atanh_inside, atanh::<f32>),
        Expm1 => ((math::expm1::<true>, math::expm1::<false>), math::finite, |x: f32| x.exp_m1()),
        Log1p => ((math::log1p::<true>, math::log1p::<false>), math::log1p_inside, |x: f32| x.ln_1p()),
        Log2 => ((math::log2::<true>, math::log2::<false>), math::positive, |x: f32| x.log2()),
        Log10 => ((math::log10::<true>, math::log10::<false>), math::positive, |x: f32| x.log10()),
        Cbrt => ((math::cbrt::<true>, math::cbrt::<false>), math::finite, |x: f32| x.cbrt()),
    ],
    own_binary: [],
    guarded_binary: [Atan2 => (
        (math::atan2::<true>, math::atan2::<false>),
        math::atan2_inside,
        |a: f32, b: f32| a.atan2(b)
    )],
);
float_funcs!(f64, floor_div_f64, rem_f64, logaddexp_f64,
    own_unary: [
        Sin => |x: f64| x.sin(), Cos => |x: f64| x.cos(), Tan => |x: f64| x.tan(),
        Asin => |x: f64| x.asin(), Acos => |x: f64| x.acos(), Atan => |x: f64| x.atan(),
        Sinh => |x: f64| x.sinh(), Cosh => |x: f64| x.cosh(),
        Asinh => asinh::<f64>, Acosh => acosh::<f64>, Atanh => atanh::<f64>,
        Expm1 => |x: f64| x.exp_m1(), Log1p => |x: f64| x.ln_1p(),
        Log2 => |x: f64| x.log2(), Log10 => |x: f64| x.log10(), Cbrt => |x: f64| x.cbrt(),
    ],
    guarded: [],
    own_binary: [Atan2 => |a: f64, b: f64| a.atan2(b)],
    guarded_binary: [],
);

// --- integers ---------------------------------------------------------------

/// Integer `pow` by squaring, wrapping; a negative exponent gives the
/// integer part of the reciprocal (1 for a base of 1, ±1 for -1, else 0;
/// NumPy raises instead, the array API leaves it unspecified).
macro_rules! int_pow {
    ($name:ident, $t:ty) => {
        #[inline]
        #[allow(unused_comparisons)] // also instantiated for unsigned types
        fn $name(base: $t, exp: $t) -> $t {
            if exp < 0 {
                return match base.to_i128() {
                    1 => 1,
                    -1 if exp.to_i128() % 2 == 0 => 1,
                    -1 => base,
                    _ => 0,
                };
            }
            let (mut acc, mut b, mut e): ($t, $t, u128) = (1, base, exp.to_i128() as u128);
            while e > 0 {
                if e & 1 == 1 {
                    acc = acc.wrapping_mul(b);
                }
                b = b.wrapping_mul(b);
                e >>= 1;
            }
            acc
        }
    };
}

macro_rules! int_funcs {
    ($t:ty, $pow:ident, signed: $signed:expr) => {
        int_pow!($pow, $t);
        func_element!($t, loops: plain,
            unary: [
                Ceil => |x: $t| x, Floor => |x: $t| x, Round => |x: $t| x, Trunc => |x: $t| x,
                Sign => |x: $t| <$t>::from(x > 0) - <$t>::from($signed && x.to_i128() < 0) ,
                Square => |x: $t| x.wrapping_mul(x), Positive => |x: $t| x,
                Conj => |x: $t| x, Real => |x: $t| x, Imag => |_: $t| 0,
                BitwiseInvert => |x: $t| !x,
            ],
            binary: [
                // Python's floor division and modulo (NumPy's), 0 for a zero divisor.
                FloorDivide => |a: $t, b: $t| {
                    if b == 0 {
                        return 0;
                    }
                    let q = a.wrapping_div(b);
                    if $signed && a.wrapping_rem(b) != 0 && ((a.to_i128() < 0) != (b.to_i128() < 0)) {
                        q.wrapping_sub(1)
                    } else {
                        q
                    }
                },
                Remainder => |a: $t, b: $t| {
                    if b == 0 {
                        return 0;
                    }
                    let r = a.wrapping_rem(b);
                    if $signed && r != 0 && ((r.to_i128() < 0) != (b.to_i128() < 0)) {
                        r.wrapping_add(b)
                    } else {
                        r
                    }
                },
                Pow => $pow,
                // C's `%`: the dividend's sign; 0 for a zero divisor, and
                // `MIN % -1` is 0 (wrapping), as NumPy's.
                Fmod => |a: $t, b: $t| if b == 0 { 0 } else { a.wrapping_rem(b) },
                BitwiseAnd => |a: $t, b: $t| a & b, BitwiseOr => |a: $t, b: $t| a | b,
                BitwiseXor => |a: $t, b: $t| a ^ b,
                // NumPy: a shift by the width or more gives 0 (-1 shifting a
                // negative number right); so does a negative shift left.
                BitwiseLeftShift => |a: $t, b: $t| {
                    let s = b.to_i128();
                    if (0..i128::from(<$t>::BITS)).contains(&s) { a << s } else { 0 }
                },
                BitwiseRightShift => |a: $t, b: $t| {
                    let s = b.to_i128();
                    if (0..i128::from(<$t>::BITS)).contains(&s) {
                        a >> s
                    } else if a.to_i128() < 0 {
                        !0
                    } else {
                        0
                    }
                },
            ],
            test: [
                IsNan => |_: $t| false, IsInf => |_: $t| false, IsFinite => |_: $t| true,
                Signbit => |x: $t| x.to_i128() < 0,
            ]
        );
    };
}
int_funcs!(i8, pow_i8, signed: true);
int_funcs!(i16, pow_i16, signed: true);
int_funcs!(i32, pow_i32, signed: true);
int_funcs!(i64, pow_i64, signed: true);
int_funcs!(u8, pow_u8, signed: false);
int_funcs!(u16, pow_u16, signed: false);
int_funcs!(u32, pow_u32, signed: false);
int_funcs!(u64, pow_u64, signed: false);

// --- bool -------------------------------------------------------------------

func_element!(bool, loops: plain,
    unary: [LogicalNot => |x: bool| !x, BitwiseInvert => |x: bool| !x],
    binary: [
        LogicalAnd => |a: bool, b: bool| a & b, LogicalOr => |a: bool, b: bool| a | b,
        LogicalXor => |a: bool, b: bool| a ^ b, BitwiseAnd => |a: bool, b: bool| a & b,
        BitwiseOr => |a: bool, b: bool| a | b, BitwiseXor => |a: bool, b: bool| a ^ b,
    ],
    test: [
        IsNan => |_: bool| false, IsInf => |_: bool| false, IsFinite => |_: bool| true,
        Signbit => |_: bool| false,
    ]
);

pub(crate) mod loops;

#[cfg(test)]
mod tests;
