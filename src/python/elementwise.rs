//! The array API's element-wise functions ([`Func`]) as module functions:
//! `donate.sin(x)`, `donate.equal(x1, x2)`, … Each translates its
//! arguments (a tensor, `t.donate()`, a number or array-like data) and
//! calls the one planner; dtypes, broadcasting and donation are decided
//! there.

use pyo3::prelude::*;
use smallvec::smallvec;

use super::operands::call;
use super::ownership::{require_input, require_tensor};
use super::tensor::PyTensor;
use crate::kernels::Func;
use crate::plan::Op;

macro_rules! func_fns {
    (unary: [$($u:ident => $uf:ident),* $(,)?]; binary: [$($b:ident => $bf:ident),* $(,)?];) => {
        $(
        #[doc = concat!("`", stringify!($u), "(x)`, element-wise (the array API's); `x` may be `t.donate()`.")]
        #[pyfunction]
        #[pyo3(signature = (x, /))]
        pub(crate) fn $u(x: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
            call(x.py(), &Op::Func(Func::$uf), smallvec![require_tensor(x, stringify!($u))?])
        }
        )*
        $(
        #[doc = concat!("`", stringify!($b), "(x1, x2)`, element-wise with broadcasting and NumPy's promotion; either may be `t.donate()`, a number or array-like data.")]
        #[pyfunction]
        #[pyo3(signature = (x1, x2, /))]
        pub(crate) fn $b<'py>(x1: &Bound<'py, PyAny>, x2: &Bound<'py, PyAny>) -> PyResult<PyTensor> {
            let what = stringify!($b);
            let (a, b) = (require_input(x1, what)?, require_input(x2, what)?);
            call(x1.py(), &Op::Func(Func::$bf), smallvec![a, b])
        }
        )*

        /// Add every function to the module.
        pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_function(wrap_pyfunction!($u, m)?)?;)*
            $(m.add_function(wrap_pyfunction!($b, m)?)?;)*
            Ok(())
        }
    };
}

func_fns! {
    unary: [
        acos => Acos, acosh => Acosh, asin => Asin, asinh => Asinh, atan => Atan, atanh => Atanh,
        cos => Cos, cosh => Cosh, sin => Sin, sinh => Sinh, tan => Tan, expm1 => Expm1,
        log1p => Log1p, log2 => Log2, log10 => Log10, reciprocal => Reciprocal, ceil => Ceil,
        floor => Floor, round => Round, trunc => Trunc, sign => Sign, square => Square,
        positive => Positive, isnan => IsNan, isinf => IsInf, isfinite => IsFinite,
        signbit => Signbit, logical_not => LogicalNot, bitwise_invert => BitwiseInvert,
    ];
    binary: [
        atan2 => Atan2, copysign => Copysign, hypot => Hypot, logaddexp => Logaddexp,
        nextafter => Nextafter, floor_divide => FloorDivide, remainder => Remainder, pow => Pow,
        equal => Equal, not_equal => NotEqual, less => Less, less_equal => LessEqual,
        greater => Greater, greater_equal => GreaterEqual, logical_and => LogicalAnd,
        logical_or => LogicalOr, logical_xor => LogicalXor, bitwise_and => BitwiseAnd,
        bitwise_or => BitwiseOr, bitwise_xor => BitwiseXor,
        bitwise_left_shift => BitwiseLeftShift, bitwise_right_shift => BitwiseRightShift,
    ];
}
