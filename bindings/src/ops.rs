//! The operations behind the `Tensor` methods, the operators and the
//! module functions: each parses its Python arguments into operands and
//! an [`Op`], and goes through [`call`] or [`call_in_place`]. Every shape,
//! dtype and donation rule is the core's ([`donate::plan`]).

use numpy::PyArrayDescrMethods;
use pyo3::prelude::*;
use smallvec::smallvec;

use super::errors::IntoPyResult;
use super::inputs::TensorRef;
use super::operands::{call, call_in_place, call_object, is_tracer, kept, Input};
use super::ownership::{input_from, require_input};
use super::tensor::PyTensor;
use donate::driver::call::Operand;
use donate::functions::assignment::{mask_assign_kind, MaskAssign};
use donate::plan::Offer;
use donate::plan::{Op, Reduction};
use donate::{BinaryOp, UnaryOp};

/// The binary operators of `Tensor` and of the `Donated` wrapper: each
/// dunder (with its reflected form) and the op it runs, and the
/// comparisons. One table, expanded into each class's `#[pymethods]` by
/// that class's macro: `binary_operators!(m { before } { after })` calls
/// `m! { before operators: [...]; comparisons: [...]; after }`.
macro_rules! binary_operators {
    ($m:ident { $($before:tt)* } { $($after:tt)* }) => {
        $m! {
            $($before)*
            operators: [
                __add__, __radd__ => Op::Binary(BinaryOp::Add), __sub__, __rsub__ => Op::Binary(BinaryOp::Sub),
                __mul__, __rmul__ => Op::Binary(BinaryOp::Mul), __truediv__, __rtruediv__ => Op::Binary(BinaryOp::Div),
                __floordiv__, __rfloordiv__ => Op::Func(Func::FloorDivide), __mod__, __rmod__ => Op::Func(Func::Remainder),
                __and__, __rand__ => Op::Func(Func::BitwiseAnd), __or__, __ror__ => Op::Func(Func::BitwiseOr),
                __xor__, __rxor__ => Op::Func(Func::BitwiseXor), __lshift__, __rlshift__ => Op::Func(Func::BitwiseLeftShift),
                __rshift__, __rrshift__ => Op::Func(Func::BitwiseRightShift),
            ];
            comparisons: [
                __eq__ => Equal, __ne__ => NotEqual, __lt__ => Less, __le__ => LessEqual,
                __gt__ => Greater, __ge__ => GreaterEqual,
            ];
            $($after)*
        }
    };
}
pub(crate) use binary_operators;

/// An operator: `me op other` (or `other op me` when `reflected`);
/// `NotImplemented` for operand types we do not handle.
pub(crate) fn dunder(
    me: Input<'_>,
    other: &Bound<'_, PyAny>,
    op: &Op,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let py = other.py();
    // A subclass of NumPy's array (a masked array, `np.matrix`) answers
    // for itself through its reflected method, as it does beside an
    // ndarray (`t + masked` keeps the mask; `t * matrix` is a matrix
    // product). Converting it first dropped what it adds: the mask's
    // hidden values were summed. (An ndarray subclass's reflected method
    // is at worst ndarray's, which comes back through `np.add`.) Asked
    // after the tensor test, which `t + t` answers alone.
    if !reflected
        && !other.is_instance_of::<PyTensor>()
        && other.is_instance_of::<numpy::PyUntypedArray>()
        && !other.is_exact_instance_of::<numpy::PyUntypedArray>()
    {
        return Ok(py.NotImplemented());
    }
    let Some(o) = input_from(other)? else {
        return Ok(py.NotImplemented());
    };
    let (a, b) = if reflected { (o, me) } else { (me, o) };
    call_object(py, op, smallvec![a, b])
}

/// `t == None`, `t != "x"`: NumPy compares every element with the object,
/// and a number never equals `None` or a string, so the answer is a bool
/// tensor of `t`'s shape, all False for `==` and all True for `!=` (not
/// Python's single `False` of an identity test). Ordering comparisons
/// with them, and every other object, stay the operand rules' (a
/// `TypeError`, or `NotImplemented` for the other type to answer).
pub(crate) fn never_equal(
    t: &PyTensor,
    other: &Bound<'_, PyAny>,
    op: donate::kernels::Func,
) -> PyResult<Option<PyTensor>> {
    use donate::kernels::Func;
    let value = match op {
        Func::Equal => false,
        Func::NotEqual => true,
        _ => return Ok(None),
    };
    if !(other.is_none() || other.is_instance_of::<pyo3::types::PyString>()) {
        return Ok(None);
    }
    let all =
        donate::DynTensor::full(donate::DType::Bool, &t.shape, donate::Scalar::Bool(value)).py()?;
    Ok(Some(PyTensor::new(all)))
}

/// `t == Fraction(1, 2)`, `t < Decimal("0.5")`, `t == object()`: an
/// object no operand rule takes (not a number, not data) and that has no
/// array protocol of its own to answer with. NumPy compares each element
/// with it as a Python object (the object's own comparison decides, so a
/// `Fraction` compares exactly); so does this, through NumPy's object
/// loop over a read-only view of `t`, and the bool result becomes a
/// tensor. Without it Python's identity fallback made `t == Fraction(1,
/// 2)` one `False`. `NotImplemented` (for the object to answer) where
/// NumPy's would be, or where the object speaks an array protocol.
pub(crate) fn compare_with_object(
    t: &Bound<'_, PyTensor>,
    other: &Bound<'_, PyAny>,
    op: donate::kernels::Func,
) -> PyResult<Py<PyAny>> {
    use donate::kernels::Func;
    use pyo3::basic::CompareOp;
    let py = t.py();
    let cmp = match op {
        Func::Equal => CompareOp::Eq,
        Func::NotEqual => CompareOp::Ne,
        Func::Less => CompareOp::Lt,
        Func::LessEqual => CompareOp::Le,
        Func::Greater => CompareOp::Gt,
        Func::GreaterEqual => CompareOp::Ge,
        _ => return Ok(py.NotImplemented()),
    };
    let own_protocol = [
        "__array_ufunc__",
        "__array_function__",
        "__array_namespace__",
        "__array__",
    ]
    .into_iter()
    .map(|p| other.hasattr(p))
    .collect::<PyResult<Vec<bool>>>()?
    .contains(&true);
    if own_protocol || t.get().tracer().is_some() {
        return Ok(py.NotImplemented());
    }
    let view = super::interop::numpy_view(t.as_any())?;
    let answer = view.rich_compare(other, cmp)?;
    if answer.is(py.NotImplemented()) {
        return Ok(answer.unbind());
    }
    let arr = answer
        .cast_into::<numpy::PyUntypedArray>()
        .map_err(|e| pyo3::exceptions::PyTypeError::new_err(e.to_string()))?;
    if numpy::PyUntypedArrayMethods::dtype(&arr).kind() != b'b' {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "comparing a tensor with {} gave no bool array",
            other.get_type().name()?
        )));
    }
    let tensor = super::interop::to_operand(py, arr.as_any())?;
    Ok(Py::new(py, PyTensor::new(tensor))?.into_any())
}

/// `__pow__`'s third argument: only its absence is supported.
pub(crate) fn no_modulo(modulo: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    match modulo {
        Some(m) if !m.is_none() => Err(pyo3::exceptions::PyTypeError::new_err(
            "pow() with a modulo is not supported for tensors",
        )),
        _ => Ok(()),
    }
}

/// `sum`/`mean`/`max` over one axis or all.
pub(crate) fn reduce(
    py: Python<'_>,
    kind: Reduction,
    x: Input<'_>,
    axis: Option<isize>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    let op = Op::Reduce {
        kind,
        axis,
        keepdims,
    };
    call(py, &op, smallvec![x])
}

/// Optional tensor arguments (`None` and a missing argument mean the
/// same): the present ones as operands, and which are present.
fn optional<'py, const N: usize>(
    params: [Option<&Bound<'py, PyAny>>; N],
    what: &str,
) -> PyResult<(Vec<Input<'py>>, [bool; N])> {
    let mut inputs = Vec::with_capacity(N);
    let mut present = [false; N];
    for (i, p) in params.into_iter().enumerate() {
        if let Some(p) = p.filter(|p| !p.is_none()) {
            inputs.push(require_input(p, what)?);
            present[i] = true;
        }
    }
    Ok((inputs, present))
}

/// Layer normalisation over the last axis with optional `gamma` and `beta`.
pub(crate) fn layer_norm<'py>(
    py: Python<'py>,
    x: Input<'py>,
    gamma: Option<&Bound<'py, PyAny>>,
    beta: Option<&Bound<'py, PyAny>>,
    eps: f64,
) -> PyResult<PyTensor> {
    let (params, [gamma, beta]) = optional([gamma, beta], "layer_norm")?;
    let mut inputs = smallvec![x];
    inputs.extend(params);
    call(py, &Op::LayerNorm { eps, gamma, beta }, inputs)
}

/// `conv2d(x, weight, bias=None, stride=1, padding=0)`.
pub(crate) fn conv2d<'py>(
    py: Python<'py>,
    x: Input<'py>,
    weight: &Bound<'py, PyAny>,
    bias: Option<&Bound<'py, PyAny>>,
    stride: usize,
    padding: usize,
) -> PyResult<PyTensor> {
    let w = require_input(weight, "conv2d")?;
    let (b, [bias]) = optional([bias], "conv2d")?;
    let mut inputs = smallvec![x, w];
    inputs.extend(b);
    let op = Op::Conv2d {
        stride,
        padding,
        bias,
    };
    call(py, &op, inputs)
}

/// The tensor parameters of `batch_norm` and `batch_norm_`: mean, var,
/// gamma, beta.
pub(crate) type BnArgs<'a, 'py> = [Option<&'a Bound<'py, PyAny>>; 4];

fn batch_norm_op<'py>(args: BnArgs<'_, 'py>, eps: f64) -> PyResult<(Op, Vec<Input<'py>>)> {
    let (params, [_, _, gamma, beta]) = optional(args, "batch_norm")?;
    Ok((Op::BatchNorm { eps, gamma, beta }, params))
}

/// `batch_norm(x, mean, var, gamma=None, beta=None, eps=1e-5)`.
pub(crate) fn batch_norm<'py>(
    py: Python<'py>,
    x: Input<'py>,
    args: BnArgs<'_, 'py>,
    eps: f64,
) -> PyResult<PyTensor> {
    let (op, params) = batch_norm_op(args, eps)?;
    let mut inputs = smallvec![x];
    inputs.extend(params);
    call(py, &op, inputs)
}

/// `x.batch_norm_(...)`: in place (written through when shared).
pub(crate) fn batch_norm_inplace<'py>(
    x: &Bound<'py, PyTensor>,
    args: BnArgs<'_, 'py>,
    eps: f64,
) -> PyResult<()> {
    let (op, params) = batch_norm_op(args, eps)?;
    call_in_place(x.py(), &op, x, params.into_iter().collect()).map(drop)
}

/// `x op= other`: in place (written through if shared); the result must keep
/// `x`'s shape and dtype.
pub(crate) fn binary_inplace<'py>(
    x: &Bound<'py, PyTensor>,
    op: BinaryOp,
    other: Input<'py>,
) -> PyResult<()> {
    call_in_place(x.py(), &Op::Binary(op), x, smallvec![other]).map(drop)
}

/// `x[index] = value`: in place, written through if the buffer is shared.
pub(crate) fn set_item<'py>(
    x: &Bound<'py, PyTensor>,
    index: Vec<donate::Index>,
    value: Input<'py>,
) -> PyResult<()> {
    call_in_place(x.py(), &Op::SetItem { index }, x, smallvec![value]).map(drop)
}

/// `x[mask] = value` with a bool `mask` (a tensor or array whose shape
/// is `x`'s leading dimensions; `key` is the object indexed with),
/// NumPy's rule: `value` broadcasts to `(count, *trailing)`. Eagerly it is
/// a scatter to the positions the mask selects ([`set_positions`]). In a
/// traced program, a value with no axis over the selected elements makes
/// `x` `where(mask, value, x)` (the mask extended over the trailing axes),
/// written into `x` as a whole; one row per selected element is refused
/// (which row goes where depends on the mask's values).
pub(crate) fn set_mask<'py>(
    x: &Bound<'py, PyTensor>,
    key: &Bound<'py, PyAny>,
    mask: Input<'py>,
    value: Input<'py>,
) -> PyResult<()> {
    let py = x.py();
    let (shape, m) = (x.get().shape.to_vec(), mask.shape().to_vec());
    if m.len() > shape.len() || shape[..m.len()] != m[..] {
        return Err(pyo3::exceptions::PyIndexError::new_err(format!(
            "a boolean index of shape {m:?} does not match the tensor's leading dimensions {shape:?}"
        )));
    }
    if !([&mask, &value].into_iter().any(is_tracer) || x.get().tracer().is_some()) {
        // Eagerly, one scatter to the positions the mask selects: `x` is
        // read and written in one update, so no other thread's update of
        // it can land in between and be lost.
        drop(mask);
        return set_positions(x, key, value);
    }
    if mask_assign_kind(&shape, &m, value.shape()) == MaskAssign::Scatter {
        return Err(super::tracing::value_shaped(
            "__setitem__",
            "a boolean mask assigns one row of the value per selected element, \
             and how many it selects depends on the mask's values; \
             use where(mask, value, x) with a value of x's shape",
        ));
    }
    let full: Vec<i64> = m
        .iter()
        .map(|&d| d as i64)
        .chain(std::iter::repeat_n(1, shape.len() - m.len()))
        .collect();
    let mask = call(py, &Op::Reshape { shape: full }, smallvec![mask])?;
    // A value with a leading axis of length 1 over the selected elements
    // is the same values for each: that axis is dropped.
    let value = if value.shape().len() > shape.len() - m.len() {
        let rest = value.shape()[1..].iter().map(|&d| d as i64).collect();
        let v = call(py, &Op::Reshape { shape: rest }, smallvec![value])?;
        kept(&Bound::new(py, v)?)
    } else {
        value
    };
    let mask = Bound::new(py, mask)?;
    let new = call(py, &Op::Where, smallvec![kept(&mask), value, kept(x)])?;
    let new = Bound::new(py, new)?;
    set_item(x, vec![donate::Index::Ellipsis], kept(&new))
}

/// `x[key] = value` with any index NumPy's assignment takes that is not
/// basic (integer arrays, alone or with slices, ints and masks): NumPy
/// turns `key` into the C-order positions of the elements it selects
/// (of `x[key]`'s shape, so NumPy's indexing rules and errors apply
/// unchanged), and the core's `Op::Scatter` writes `value` there in
/// place, reading and writing `x` in one update.
pub(crate) fn set_positions<'py>(
    x: &Bound<'py, PyTensor>,
    key: &Bound<'py, PyAny>,
    value: Input<'py>,
) -> PyResult<()> {
    let py = x.py();
    let traced = |k: &Bound<'py, PyAny>| {
        k.cast::<PyTensor>()
            .is_ok_and(|t| t.get().tracer().is_some())
    };
    if traced(key)
        || key
            .cast::<pyo3::types::PyTuple>()
            .is_ok_and(|t| t.iter().any(|k| traced(&k)))
    {
        return Err(super::tracing::tracer_error(
            "__setitem__",
            "assignment through a traced integer array: the positions it writes come from the \
             index's values, which are not known while tracing; pass the index as a NumPy array \
             or a static argument, or use where() with a mask",
        ));
    }
    let positions = super::interop::positions(py, &x.get().shape, key)?;
    let positions = require_input(&positions, "__setitem__")?;
    call_in_place(py, &Op::Scatter, x, smallvec![positions, value]).map(drop)
}

/// `x.<op>_()`: in place, written through if the buffer is shared.
pub(crate) fn unary_inplace(x: &Bound<'_, PyTensor>, op: UnaryOp) -> PyResult<()> {
    call_in_place(x.py(), &Op::Unary(op), x, smallvec![]).map(drop)
}

/// `x op= value` for the operators without an in-place kernel (`//=`,
/// `%=`, `**=`, the bitwise and shift operators), NumPy's semantics: the
/// result of `x op value` is written into `x`'s buffer (so its views
/// and other holders see it) under NumPy's `same_kind` casting
/// ([`donate::plan::check_in_place_cast`]), and a result `x` cannot hold
/// (broadcast to another shape, or a dtype `same_kind` refuses) is an
/// error with `x` unchanged. The shape is checked before anything runs; a
/// donated `value` is only read (the in-place target receives the
/// result), with a `DonationWarning`. Two operations (the operator, then
/// an assignment), not one update under the update lock as `+=`'s.
pub(crate) fn inplace_via<'py>(
    x: &Bound<'py, PyTensor>,
    value: &Bound<'py, PyAny>,
    op: &Op,
) -> PyResult<()> {
    let py = x.py();
    let name = op.name();
    let v = match require_input(value, name)? {
        Operand::Held(t, Offer::Donated) => {
            let why = donate::Refusal::InPlaceTarget(name);
            let sig = Operand::Held(TensorRef(t.0.clone()), Offer::Donated).signature();
            super::errors::warn_all(
                py,
                vec![format!(
                    "{name}: the right operand ({sig}) was donated but not used: {why}; the input is unchanged"
                )],
            )?;
            Operand::Held(t, Offer::Borrowed)
        }
        v => v,
    };
    let target = x.get().shape.to_vec();
    if *op != Op::Matmul {
        let shape = donate::array::shape::broadcast_shapes(name, &target, v.shape()).py()?;
        if shape[..] != target[..] {
            return Err(super::errors::to_py(&donate::Error::ShapeMismatch {
                op: name,
                lhs: target,
                rhs: v.shape().to_vec(),
            }));
        }
    }
    let r = call(py, op, smallvec![kept(x), v])?;
    if r.shape[..] != target[..] {
        // (`x @= y`: a product of another shape than `x`'s.)
        return Err(super::errors::to_py(&donate::Error::InvalidArgument {
            op: name,
            reason: format!(
                "the result of shape {:?} cannot be written into the tensor updated in place, of shape {target:?}",
                &r.shape[..]
            ),
        }));
    }
    donate::plan::check_in_place_cast(op, r.dtype, x.get().dtype).py()?;
    let r = Bound::new(py, r)?;
    set_item(x, vec![donate::Index::Ellipsis], kept(&r))
}
