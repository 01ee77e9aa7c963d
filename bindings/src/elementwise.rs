//! The array API's element-wise functions ([`Func`]) as module functions:
//! `donate.sin(x)`, `donate.equal(x1, x2)`, … (and NumPy's `cbrt` and
//! `fmod`, which the standard lacks). Each translates its
//! arguments (a tensor, `t.donate()`, a number or array-like data) and
//! calls the one planner; dtypes, broadcasting and donation are decided
//! there. Beside them, the running maximum and minimum that NumPy's
//! `maximum.accumulate` and `minimum.accumulate` of a tensor call
//! (`_cumulative_max`, `_cumulative_min`: not in the namespace).

use pyo3::prelude::*;
use smallvec::smallvec;

use super::operands::call;
use super::ownership::{require_input, require_tensor};
use super::tensor::PyTensor;
use donate::functions::cumulative::Running;
use donate::functions::lane_ops::LaneOp;
use donate::kernels::Func;
use donate::plan::Op;

macro_rules! func_fns {
    (unary: [$($u:ident => $uf:ident),* $(,)?]; binary: [$($b:ident => $bf:ident),* $(,)?];) => {
        $(
        #[doc = concat!("`", stringify!($u), "(x)`, element-wise; `x` may be `t.donate()`.")]
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
            m.add_function(wrap_pyfunction!(r#where, m)?)?;
            m.add_function(wrap_pyfunction!(clip, m)?)?;
            m.add_function(wrap_pyfunction!(cumulative_max, m)?)?;
            m.add_function(wrap_pyfunction!(cumulative_min, m)?)?;
            $(m.add_function(wrap_pyfunction!($u, m)?)?;)*
            $(m.add_function(wrap_pyfunction!($b, m)?)?;)*
            Ok(())
        }
    };
}

/// `x1` where `condition` holds, else `x2`, broadcasting the three (the
/// condition is read as bool; `x1` and `x2` promote together and may be
/// Python numbers). A temporary or donated `x1`/`x2` of the result's
/// shape and dtype receives the result.
#[pyfunction]
#[pyo3(name = "where", signature = (condition, x1, x2, /))]
pub(crate) fn r#where<'py>(
    condition: &Bound<'py, PyAny>,
    x1: &Bound<'py, PyAny>,
    x2: &Bound<'py, PyAny>,
) -> PyResult<PyTensor> {
    let ins = smallvec![
        require_input(condition, "where")?,
        require_input(x1, "where")?,
        require_input(x2, "where")?
    ];
    call(condition.py(), &Op::Where, ins)
}

/// `x` clamped to `[min, max]` (either may be `None`, a number or a
/// tensor broadcasting with `x`), in `x`'s dtype; NaN anywhere gives NaN.
/// A temporary or donated `x` of the result's shape receives the result.
#[pyfunction]
#[pyo3(signature = (x, /, min = None, max = None))]
pub(crate) fn clip<'py>(
    x: &Bound<'py, PyAny>,
    min: Option<&Bound<'py, PyAny>>,
    max: Option<&Bound<'py, PyAny>>,
) -> PyResult<PyTensor> {
    let (min, max) = (min.filter(|m| !m.is_none()), max.filter(|m| !m.is_none()));
    let mut ins: super::operands::Inputs<'py> = smallvec![require_tensor(x, "clip")?];
    for b in [min, max].into_iter().flatten() {
        ins.push(require_input(b, "clip")?);
    }
    call(
        x.py(),
        &Op::Clip {
            min: min.is_some(),
            max: max.is_some(),
        },
        ins,
    )
}

/// A running extreme of `x` along `axis`, a planned operation as
/// `cumulative_sum` is (a temporary or donated `x` receives it).
fn running_extreme(
    x: &Bound<'_, PyAny>,
    running: Running,
    axis: Option<isize>,
) -> PyResult<PyTensor> {
    let op = Op::Lane(Box::new(LaneOp::Running {
        running,
        axis,
        dtype: None,
        include_initial: false,
    }));
    call(x.py(), &op, smallvec![require_tensor(x, running.name())?])
}

/// The running maximum of `x` along `axis` (required unless `x` is 1-d)
/// in `x`'s dtype, NaN from the first NaN on: NumPy's
/// `maximum.accumulate`, which calls it.
#[pyfunction]
#[pyo3(name = "_cumulative_max", signature = (x, /, *, axis = None))]
pub(crate) fn cumulative_max(x: &Bound<'_, PyAny>, axis: Option<isize>) -> PyResult<PyTensor> {
    running_extreme(x, Running::Max, axis)
}

/// The running minimum of `x` along `axis` (as `_cumulative_max`):
/// NumPy's `minimum.accumulate`.
#[pyfunction]
#[pyo3(name = "_cumulative_min", signature = (x, /, *, axis = None))]
pub(crate) fn cumulative_min(x: &Bound<'_, PyAny>, axis: Option<isize>) -> PyResult<PyTensor> {
    running_extreme(x, Running::Min, axis)
}

func_fns! {
    unary: [
        acos => Acos, acosh => Acosh, asin => Asin, asinh => Asinh, atan => Atan, atanh => Atanh,
        cos => Cos, cosh => Cosh, sin => Sin, sinh => Sinh, tan => Tan, expm1 => Expm1,
        log1p => Log1p, log2 => Log2, log10 => Log10, reciprocal => Reciprocal, cbrt => Cbrt, ceil => Ceil,
        floor => Floor, round => Round, trunc => Trunc, sign => Sign, square => Square,
        positive => Positive, conj => Conj, real => Real, imag => Imag, isnan => IsNan, isinf => IsInf, isfinite => IsFinite,
        signbit => Signbit, logical_not => LogicalNot, bitwise_invert => BitwiseInvert,
    ];
    binary: [
        atan2 => Atan2, copysign => Copysign, hypot => Hypot, logaddexp => Logaddexp,
        nextafter => Nextafter, floor_divide => FloorDivide, remainder => Remainder, pow => Pow,
        fmod => Fmod,
        equal => Equal, not_equal => NotEqual, less => Less, less_equal => LessEqual,
        greater => Greater, greater_equal => GreaterEqual, logical_and => LogicalAnd,
        logical_or => LogicalOr, logical_xor => LogicalXor, bitwise_and => BitwiseAnd,
        bitwise_or => BitwiseOr, bitwise_xor => BitwiseXor,
        bitwise_left_shift => BitwiseLeftShift, bitwise_right_shift => BitwiseRightShift,
    ];
}
