//! `Tensor`'s methods (the repeated families from one table each, then
//! the rest written out); `Donated`'s are [`super::donated_methods`].
//! The top layer of the bindings: each method translates its arguments
//! and calls [`super::ops`], [`super::operands`] or [`super::jit`]; the
//! classes' data is [`super::tensor`]'s.

// PyO3's `#[pymethods]` code for the binary operator slots (`__add__`
// with `__radd__`), generated in a module other than the class's, calls
// its unsafe slot functions without an `unsafe` block of its own: the
// lint fires on macro output, not on code written here (this file has no
// `unsafe`).
#![allow(unsafe_op_in_unsafe_fn)]

use numpy::PyArrayDescr;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use pyo3::types::{PyDict, PyTuple};
use smallvec::smallvec;

use super::errors::IntoPyResult;
use super::interop::{self, np_dtype};

use super::operands::{call, kept};
use super::ops::{self, BnArgs};
use super::ownership::{donated_self, input_from, require_input, self_input};
use super::tensor::{read, Interp, PyDonated, PyTensor};
use donate::kernels::Func;
use donate::plan::{Coverage, Op};
use donate::{BinaryOp, UnaryOp};

/// The class's methods: the repeated families (element-wise methods,
/// their `*_donate` and in-place forms, in-place binary methods and the
/// operators) from one table each, then the rest written out.
macro_rules! tensor_methods {
    (
        unary: [$($u:ident => $uop:ident: $udoc:literal),* $(,)?];
        donate: [$($d:ident => $dop:ident),* $(,)?];
        in_place: [$($i:ident => $iop:ident),* $(,)?];
        binary_in_place: [$($bi:ident, $bd:ident => $bop:ident),* $(,)?];
        operators: [$($f:ident, $r:ident => $fop:expr),* $(,)?];
        comparisons: [$($c:ident => $cop:ident),* $(,)?];
        $($rest:tt)*
    ) => {
        #[pymethods]
        impl PyTensor {
            $(
            #[doc = $udoc]
            fn $u(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
                call(slf.py(), &Op::Unary(UnaryOp::$uop), smallvec![self_input(slf)])
            }
            )*
            $(
            /// The op with explicit donation of `self`: the result is
            /// written into this tensor's buffer and `self` is donated. If
            /// the buffer is shared or exported, a copy is made, `self`
            /// stays intact, and a `DonationWarning` says why.
            fn $d(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
                call(slf.py(), &Op::Unary(UnaryOp::$dop), smallvec![donated_self(slf)])
            }
            )*
            $(
            /// The op in place (written through when the buffer is shared);
            /// returns self.
            fn $i(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
                ops::unary_inplace(&slf, UnaryOp::$iop)?;
                Ok(slf)
            }
            )*
            $(
            /// `self op= other`; returns self.
            fn $bi<'py>(slf: Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
                ops::binary_inplace(&slf, BinaryOp::$bop, require_input(other, stringify!($bi))?)?;
                Ok(slf)
            }
            fn $bd(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
                inplace_dunder(slf, other, BinaryOp::$bop)
            }
            )*
            $(
            fn $f(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                ops::dunder(self_input(slf), other, &$fop, false)
            }
            fn $r(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                ops::dunder(self_input(slf), other, &$fop, true)
            }
            )*
            $(
            /// An element-wise comparison (a bool tensor), as NumPy's.
            fn $c(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                if let Some(all) = ops::never_equal(slf.get(), other, Func::$cop)? {
                    return Ok(Py::new(slf.py(), all)?.into_any());
                }
                let answer = ops::dunder(self_input(slf), other, &Op::Func(Func::$cop), false)?;
                if answer.is(&slf.py().NotImplemented()) {
                    return ops::compare_with_object(slf, other, Func::$cop);
                }
                Ok(answer)
            }
            )*
            $($rest)*
        }
    };
}

// The operators and comparisons come from the one table shared with
// `Donated` (`ops::binary_operators!`).
ops::binary_operators! { tensor_methods {
    unary: [
        relu => Relu: "max(x, 0) (NaN stays NaN).",
        neg => Neg: "-x.",
        abs => Abs: "|x|.",
        exp => Exp: "e**x (integers give float64).",
        log => Log: "Natural logarithm (integers give float64).",
        sqrt => Sqrt: "Square root (integers give float64).",
        tanh => Tanh: "Hyperbolic tangent (integers give float64).",
        sigmoid => Sigmoid: "1 / (1 + e**-x) (integers give float64).",
        gelu => Gelu: "GELU, tanh approximation (integers give float64).",
    ];
    donate: [
        relu_donate => Relu, gelu_donate => Gelu, sigmoid_donate => Sigmoid,
        tanh_donate => Tanh, exp_donate => Exp,
    ];
    in_place: [
        relu_ => Relu, neg_ => Neg, abs_ => Abs, exp_ => Exp, log_ => Log,
        sqrt_ => Sqrt, tanh_ => Tanh, sigmoid_ => Sigmoid, gelu_ => Gelu,
    ];
    binary_in_place: [
        add_, __iadd__ => Add, sub_, __isub__ => Sub, mul_, __imul__ => Mul,
        div_, __itruediv__ => Div,
    ];
} {
    #[new]
    #[pyo3(signature = (data, dtype = None))]
    fn py_new(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let d = interop::dtype_arg(py, dtype)?;
        Ok(PyTensor::new(interop::to_tensor(py, data, d)?))
    }

    /// The shape, a tuple of ints (NumPy's `shape`).
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.shape)
    }

    /// The element type, a NumPy `dtype` (`float32`, `int64`, `bool`, ...).
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> Bound<'py, PyArrayDescr> {
        np_dtype(py, self.dtype)
    }

    /// The real part, NumPy's attribute: `donate.real(t)`, a new tensor
    /// (NumPy's is a view); a real tensor's own values.
    #[getter]
    fn real(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        super::elementwise::real(slf.as_any())
    }

    /// The imaginary part, NumPy's attribute: `donate.imag(t)`, a new
    /// tensor (NumPy's is a view); zeros of a real tensor.
    #[getter]
    fn imag(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        super::elementwise::imag(slf.as_any())
    }

    /// The number of dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The number of elements.
    #[getter]
    fn size(&self) -> usize {
        self.numel()
    }

    /// The bytes of the elements (`size * itemsize`; a view's own, not its
    /// buffer's).
    #[getter]
    fn nbytes(&self) -> usize {
        self.numel() * self.dtype.size()
    }

    /// The bytes of one element.
    #[getter]
    fn itemsize(&self) -> usize {
        self.dtype.size()
    }

    /// True once the buffer was donated (moved into another tensor).
    #[getter]
    fn is_donated(&self, py: Python<'_>) -> bool {
        self.slot.lock(&Interp(py)).is_donated()
    }

    /// True for a tracer (a value being recorded by `donate.jit` or
    /// `donate.make_jaxpr`).
    #[getter]
    fn _traced(&self) -> bool {
        self.tracer().is_some()
    }

    /// True if this tensor is the only holder of its buffer (no other
    /// tensor, no exported view): an explicit donation would be honoured.
    #[getter]
    fn is_exclusive(&self, py: Python<'_>) -> bool {
        self.slot.lock(&Interp(py)).is_exclusive()
    }

    /// `{"handles", "exports", "pinned", "donated", "writer", "consumed_by"}`:
    /// tensors sharing the buffer (this one included), live exported views
    /// (NumPy arrays, memoryviews), whether foreign code may read the
    /// memory for as long as the buffer lives (`np.ndarray(buffer=t)`: it
    /// is then never donated), whether the buffer was moved out and by
    /// which operation.
    #[getter]
    fn ownership<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        // Never call into Python (which may run arbitrary code) with the
        // slot locked.
        let (s, consumed_by) = {
            let g = self.slot.lock(&Interp(py));
            (g.ownership(), g.consumed_by())
        };
        let d = PyDict::new(py);
        d.set_item("handles", s.handles)?;
        d.set_item("exports", s.exports)?;
        d.set_item("pinned", s.pinned)?;
        d.set_item("donated", s.donated)?;
        d.set_item("writer", s.writer)?;
        d.set_item("consumed_by", consumed_by)?;
        Ok(d)
    }

    /// The address of the first element (to check buffer reuse).
    fn data_ptr(&self, py: Python<'_>) -> PyResult<usize> {
        self.check_live(py, "data_ptr")?;
        Ok(self.slot.lock(&Interp(py)).data_ptr().map_or(0, |p| p as usize))
    }

    /// Whether this tensor is a view: it does not cover its whole buffer
    /// in C order (a slice, a row, a transpose). A view is never donated:
    /// a donation of one copies, with a warning.
    #[getter]
    fn is_view(&self, py: Python<'_>) -> bool {
        let g = self.slot.lock(&Interp(py));
        !g.is_donated() && g.coverage() != Coverage::Whole
    }

    /// Strides in bytes, as NumPy's (which `as_strided` reads), of the
    /// layout in the buffer.
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.check_live(py, "strides")?;
        let size = isize::try_from(self.dtype.size()).unwrap_or(isize::MAX);
        let layout = self.slot.lock(&Interp(py)).layout().strides().to_vec();
        PyTuple::new(py, layout.into_iter().map(|s| s * size))
    }

    fn __len__(&self) -> PyResult<usize> {
        self.shape
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("len() of a 0-d tensor"))
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let py = slf.py();
        let me = slf.get();
        if me.tracer().is_some() {
            return Ok(format!("Tracer({})", me.shape_str()));
        }
        let dtype = me.dtype;
        let g = me.slot.lock(&Interp(py));
        if g.is_donated() {
            let by = g.consumed_by().unwrap_or("an operation");
            return Ok(format!(
                "Tensor(<donated to {by}>, shape={:?}, dtype={dtype})",
                me.shape
            ));
        }
        drop(g);
        let view = interop::numpy_view(slf.as_any())?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("separator", ", ")?;
        kwargs.set_item("prefix", "Tensor(")?;
        let np = interop::numpy(py)?;
        let numel: usize = me.shape.iter().product();
        // NumPy's `array_repr`: an empty array other than 1-d shows its
        // shape (its body is only `[]`), and so does one summarised with
        // `...` (past the print threshold, unless a legacy mode is set).
        let shape = PyTuple::new(py, me.shape.iter().copied())?.repr()?;
        if numel == 0 && me.shape.len() != 1 {
            return Ok(format!("Tensor([], shape={shape}, dtype={dtype})"));
        }
        let body: String = np
            .call_method("array2string", (view,), Some(&kwargs))?
            .extract()?;
        let options = np.call_method0("get_printoptions")?;
        let threshold: f64 = options.get_item("threshold")?.extract()?;
        // (`legacy` is False, or a version string such as "2.1".)
        let current = matches!(options.get_item("legacy")?.extract::<bool>(), Ok(false));
        if (numel as f64) > threshold && current {
            return Ok(format!("Tensor({body}, shape={shape}, dtype={dtype})"));
        }
        Ok(format!("Tensor({body}, dtype={dtype})"))
    }

    /// `str(t)`: the elements as NumPy prints them (`[1.5 2. ]`; `1.5` of
    /// a 0-d tensor); a tracer or a donated tensor prints its `repr`.
    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let me = slf.get();
        if me.tracer().is_some() || me.slot.lock(&Interp(slf.py())).is_donated() {
            return Self::__repr__(slf);
        }
        interop::numpy_view(slf.as_any())?.str()?.extract()
    }

    /// `format(t, spec)`, `f"{t:spec}"`: `str(t)` for an empty spec; a 0-d
    /// tensor formats its element (`f"{t:.2f}"`), as NumPy's; any other
    /// spec of a tensor with dimensions is NumPy's `TypeError`.
    fn __format__(slf: &Bound<'_, Self>, spec: &str) -> PyResult<String> {
        if spec.is_empty() {
            return Self::__str__(slf);
        }
        slf.get().check_traced("format() (a traced value's digits)")?;
        if !slf.get().shape.is_empty() {
            return Err(PyTypeError::new_err(
                "unsupported format string passed to donate.Tensor.__format__",
            ));
        }
        super::conversions::element(slf, "format")?
            .call_method1("__format__", (spec,))?
            .extract()
    }

    fn __bool__(slf: &Bound<'_, Self>) -> PyResult<bool> {
        slf.get().check_traced("bool() (a branch on a traced value)")?;
        match slf.get().numel() {
            1 => {}
            0 => {
                return Err(PyValueError::new_err(
                    "the truth value of an empty tensor is ambiguous; use t.size > 0 to test for elements",
                ))
            }
            _ => {
                return Err(PyValueError::new_err(
                    "the truth value of a tensor with more than one element is ambiguous; use t.any() or t.all()",
                ))
            }
        }
        super::conversions::element(slf, "bool")?.is_truthy()
    }

    fn __float__(slf: &Bound<'_, Self>) -> PyResult<f64> {
        slf.get().check_traced("float()")?;
        super::conversions::scalar(slf, "float")?.extract::<f64>()
    }

    fn __int__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.get().check_traced("int()")?;
        let v = super::conversions::scalar(slf, "int")?;
        v.py().get_type::<pyo3::types::PyInt>().call1((v,))
    }

    /// `round(x)` of an element (a 0-d tensor), as of NumPy's scalar: a
    /// Python int; `round(x, n)` the element rounded to `n` decimals, a
    /// 0-d tensor of its dtype (`np.round`'s). A tensor of more axes is a
    /// `TypeError`, as NumPy's array (use `np.round(t, n)`).
    #[pyo3(signature = (ndigits = None))]
    fn __round__<'py>(
        slf: &Bound<'py, Self>,
        ndigits: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        slf.get().check_traced("round()")?;
        if !slf.get().shape.is_empty() {
            return Err(PyTypeError::new_err(format!(
                "round() of a {}-d tensor; use np.round(t, n) or donate.round(t)",
                slf.get().shape.len()
            )));
        }
        let builtins = py.import("builtins")?;
        match ndigits.filter(|n| !n.is_none()) {
            None => builtins.call_method1("round", (super::conversions::scalar(slf, "round")?,)),
            // (NumPy's `round` of a tensor is donate's translation.)
            Some(n) => interop::numpy(py)?.call_method1("round", (slf, n)),
        }
    }

    /// Basic indexing (ints, slices, `...`, `None`) returns a view sharing
    /// this buffer (a write through either is seen by both, as NumPy's),
    /// except one element (an int for every axis), which is a 0-d copy,
    /// as NumPy's scalar; NumPy-style array indices return a copy.
    fn __getitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let py = slf.py();
        if let Some(index) = interop::basic_index(key)? {
            if donate::Index::selects_element(&index, slf.get().shape.len()) {
                let dtype = slf.get().dtype;
                let e = Bound::new(py, call(py, &Op::Index { index }, smallvec![kept(slf)])?)?;
                return call(py, &Op::Cast { dtype }, smallvec![kept(&e)]);
            }
            return call(py, &Op::Index { index }, smallvec![self_input(slf)]);
        }
        let part = super::conversions::view(slf, "__getitem__")?.get_item(interop::numpy_key(key)?)?;
        let part = interop::numpy(py)?.call_method1("asarray", (part,))?;
        Ok(PyTensor::new(interop::to_tensor(
            py,
            &part,
            Some(slf.get().dtype),
        )?))
    }

    /// `t[key] = value`, NumPy's assignment: `key` a basic index (ints,
    /// slices, `...`, `None`), a boolean mask, or integer arrays (with or
    /// without slices and ints); `value` a tensor, array or number
    /// (broadcast to `t[key]`'s shape, converted to this tensor's dtype).
    /// Writes into this tensor's buffer, so its views and other holders
    /// see the new values, as NumPy's do; an empty selection writes
    /// nothing.
    fn __setitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        // A list or tuple converts straight into the target's dtype, as
        // NumPy's assignment converts it (each Python int checked against
        // the dtype: `u8[:] = [300]` is an `OverflowError`, not 44; a
        // complex into a real target a `TypeError`).
        let converted;
        let value = if value.is_instance_of::<pyo3::types::PyList>()
            || value.is_instance_of::<pyo3::types::PyTuple>()
        {
            let py = slf.py();
            let kwargs = pyo3::types::PyDict::new(py);
            kwargs.set_item("dtype", interop::np_dtype(py, slf.get().dtype))?;
            converted = interop::numpy(py)?
                .getattr("asarray")?
                .call((value,), Some(&kwargs))?;
            &converted
        } else {
            value
        };
        let Some(v) = input_from(value)? else {
            return Err(PyTypeError::new_err(format!(
                "cannot assign a '{}' to a tensor",
                value.get_type().name()?
            )));
        };
        if key.getattr("dtype").is_ok_and(|d| d.getattr("kind").is_ok_and(|k| k.eq("b").unwrap_or(false))) {
            return ops::set_mask(slf, key, require_input(key, "__setitem__")?, v);
        }
        match interop::basic_index(key)? {
            Some(index) => ops::set_item(slf, index, v),
            None => ops::set_positions(slf, key, v),
        }
    }

    /// Iterate over the first axis, one item at a time, as NumPy's: each
    /// item (`t[i]`: a view of a row, a 0-d copy of an element) is made
    /// when it is reached, so an item reflects writes made before it and
    /// `next(iter(t))` costs one item.
    fn __iter__(slf: &Bound<'_, Self>) -> PyResult<super::iteration::TensorIter> {
        let len = slf.get().shape.first().copied().ok_or_else(|| {
            PyTypeError::new_err("iteration over a 0-d tensor")
        })?;
        Ok(super::iteration::TensorIter::new(slf, len))
    }

    /// `reversed(t)`: the items of the first axis from the last, as
    /// `t[::-1]`'s iteration (NumPy's; a tensor is not a C-level
    /// sequence, so Python needs this method to reverse it).
    fn __reversed__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        if slf.get().shape.is_empty() {
            return Err(PyTypeError::new_err("iteration over a 0-d tensor"));
        }
        let py = slf.py();
        let flipped = slf.as_any().get_item(pyo3::types::PySlice::new(py, isize::MAX, isize::MIN, -1))?;
        Ok(flipped.try_iter()?.into_any().unbind())
    }

    /// `value in t`: whether any element equals `value`, at every rank
    /// (NumPy's `(t == value).any()`; without it Python would compare
    /// `value` with each row).
    fn __contains__(slf: &Bound<'_, Self>, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        slf.get().check_traced("`in` (a branch on a traced value)")?;
        let eq = slf.as_any().rich_compare(value, pyo3::basic::CompareOp::Eq)?;
        interop::numpy_view(&eq)?.call_method0("any")?.is_truthy()
    }

    /// A deep copy into a new, exclusive buffer.
    pub(crate) fn copy(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        let py = slf.py();
        if slf.get().tracer().is_some() {
            // Traced: a cast to its own dtype, an equation writing a new
            // buffer (not the same variable: a write into the copy must
            // not reach the original).
            return call(py, &Op::Cast { dtype: slf.get().dtype }, smallvec![kept(slf)]);
        }
        let t = read(py, slf.get())?;
        Ok(PyTensor::new(super::arena::detach(py, t.nbytes(), || t.deep_copy()).py()?))
    }

    fn __copy__(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        Self::copy(slf)
    }

    fn __deepcopy__(slf: &Bound<'_, Self>, _memo: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        Self::copy(slf)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let py = slf.py();
        let data = Self::__array__(slf, None, Some(true))?;
        let ctor = py.import("donate")?.getattr("tensor")?;
        Ok((ctor, (data, np_dtype(py, slf.get().dtype))))
    }

    /// Mark this tensor for explicit donation to the next operation it is
    /// passed to: `t.donate() + u`, `donate.relu(t.donate())`.
    fn donate(slf: &Bound<'_, Self>) -> PyResult<PyDonated> {
        if slf.get().tracer().is_none() {
            slf.get().check_live(slf.py(), "donate")?;
        }
        Ok(PyDonated::new(slf.clone().unbind()))
    }

    /// A copy converted to `dtype`; with `copy=False`, `self` itself when
    /// it already has that dtype (NumPy's and the standard's `copy`).
    /// NumPy's signature: `casting` is checked as NumPy checks it
    /// (`"unsafe"` by default); `order` is `"K"`, `"A"` or `"C"` (the copy
    /// is C-ordered; `"F"` is refused); `subok` is accepted (a tensor has
    /// no subclasses).
    #[pyo3(signature = (dtype, order = None, casting = None, subok = true, copy = true))]
    fn astype<'py>(
        slf: &Bound<'py, Self>,
        dtype: &Bound<'py, PyAny>,
        order: Option<&str>,
        casting: Option<&str>,
        subok: bool,
        copy: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = subok;
        let py = slf.py();
        let dtype = interop::dtype_arg(py, Some(dtype))?
            .ok_or_else(|| PyTypeError::new_err("astype needs a dtype"))?;
        match order {
            None | Some("K" | "A" | "C") => {}
            Some(o) => {
                return Err(PyValueError::new_err(format!(
                    "astype: order={o:?} is not supported; a tensor's copy is C-ordered (\"K\", \"A\" or \"C\")"
                )))
            }
        }
        if let Some(rule) = casting.filter(|c| *c != "unsafe") {
            let np = interop::numpy(py)?;
            let from = interop::np_dtype(py, slf.get().dtype);
            let to = interop::np_dtype(py, dtype);
            if !np.call_method1("can_cast", (&from, &to, rule))?.extract::<bool>()? {
                return Err(PyTypeError::new_err(format!(
                    "Cannot cast array data from dtype('{}') to dtype('{}') according to the rule '{rule}'",
                    slf.get().dtype.name(),
                    dtype.name()
                )));
            }
        }
        if !copy && dtype == slf.get().dtype {
            return Ok(slf.clone().into_any());
        }
        let t = call(slf.py(), &Op::Cast { dtype }, smallvec![kept(slf)])?;
        Ok(Bound::new(slf.py(), t)?.into_any())
    }

    /// `divmod(self, other)`: NumPy's `divmod`, `(self // other, self %
    /// other)`, each operand only read.
    fn __divmod__<'py>(slf: &Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        interop::numpy(slf.py())?.call_method1("divmod", (slf, other))
    }

    /// `divmod(other, self)`, as [`__divmod__`](Self::__divmod__).
    fn __rdivmod__<'py>(slf: &Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        interop::numpy(slf.py())?.call_method1("divmod", (other, slf))
    }

    /// Matrix product (NumPy's `matmul`: batched, broadcast, 1-d operands).
    fn matmul(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let me = self_input(slf);
        call(slf.py(), &Op::Matmul, smallvec![me, require_input(other, "matmul")?])
    }
    fn __matmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::dunder(self_input(slf), other, &Op::Matmul, false)
    }
    fn __rmatmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::dunder(self_input(slf), other, &Op::Matmul, true)
    }
    /// `self @= other`: the product written into this tensor's buffer (so
    /// its views see it), as NumPy's; it must have this tensor's shape.
    fn __imatmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::inplace_via(slf, other, &Op::Matmul)
    }
    /// `self ** other` (`modulo` is not supported).
    fn __pow__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>, modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        ops::no_modulo(modulo)?;
        ops::dunder(self_input(slf), other, &Op::Func(Func::Pow), false)
    }
    fn __rpow__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>, modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        ops::no_modulo(modulo)?;
        ops::dunder(self_input(slf), other, &Op::Func(Func::Pow), true)
    }
    // The augmented assignments without an in-place kernel: the result
    // written into this tensor's buffer, as NumPy's (`ops::inplace_via`).
    fn __ifloordiv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::inplace_via(slf, other, &Op::Func(Func::FloorDivide))
    }
    fn __imod__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::inplace_via(slf, other, &Op::Func(Func::Remainder))
    }
    fn __ipow__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>, modulo: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        ops::no_modulo(modulo)?;
        ops::inplace_via(slf, other, &Op::Func(Func::Pow))
    }
    fn __iand__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::inplace_via(slf, other, &Op::Func(Func::BitwiseAnd))
    }
    fn __ior__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::inplace_via(slf, other, &Op::Func(Func::BitwiseOr))
    }
    fn __ixor__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::inplace_via(slf, other, &Op::Func(Func::BitwiseXor))
    }
    fn __ilshift__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::inplace_via(slf, other, &Op::Func(Func::BitwiseLeftShift))
    }
    fn __irshift__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::inplace_via(slf, other, &Op::Func(Func::BitwiseRightShift))
    }
    fn __invert__(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        call(slf.py(), &Op::Func(Func::BitwiseInvert), smallvec![self_input(slf)])
    }
    fn __neg__(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        call(slf.py(), &Op::Unary(UnaryOp::Neg), smallvec![self_input(slf)])
    }
    fn __abs__(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        call(slf.py(), &Op::Unary(UnaryOp::Abs), smallvec![self_input(slf)])
    }
    /// `+t`: `positive(t)`, as NumPy's (a new tensor, or the temporary's
    /// buffer; a `TypeError` for bool).
    fn __pos__(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        call(slf.py(), &Op::Func(Func::Positive), smallvec![self_input(slf)])
    }

    // ---- rows (the reductions with NumPy's keywords are in python/donate/_numpy.py) ----
    /// The softmax along `axis` (each row minus its maximum, exponentiated,
    /// divided by its sum); written over a temporary or donated input.
    #[pyo3(signature = (axis = -1), text_signature = "(self, /, axis=-1)")]
    fn softmax(slf: &Bound<'_, Self>, axis: isize) -> PyResult<PyTensor> {
        call(slf.py(), &Op::Softmax { axis }, smallvec![self_input(slf)])
    }
    /// Layer normalisation over the last axis: `(x - mean) / sqrt(var +
    /// eps)`, times `gamma` and plus `beta` (each of the last axis's
    /// length) when given; written over a temporary or donated input.
    #[pyo3(signature = (gamma = None, beta = None, eps = 1e-5))]
    fn layer_norm(
        slf: &Bound<'_, Self>,
        gamma: Option<&Bound<'_, PyAny>>,
        beta: Option<&Bound<'_, PyAny>>,
        eps: f64,
    ) -> PyResult<PyTensor> {
        ops::layer_norm(slf.py(), self_input(slf), gamma, beta, eps)
    }

    /// 2-d convolution (NCHW input, `[O, C, kh, kw]` weight); written over
    /// a temporary input when the result keeps its shape.
    #[pyo3(signature = (weight, bias = None, stride = 1, padding = 0))]
    fn conv2d<'py>(
        slf: &Bound<'py, Self>,
        weight: &Bound<'py, PyAny>,
        bias: Option<&Bound<'py, PyAny>>,
        stride: usize,
        padding: usize,
    ) -> PyResult<PyTensor> {
        ops::conv2d(slf.py(), self_input(slf), weight, bias, stride, padding)
    }
    /// Inference batch normalisation over axis 1; reuses a temporary.
    #[pyo3(signature = (mean, var, gamma = None, beta = None, eps = 1e-5))]
    fn batch_norm<'py>(
        slf: &Bound<'py, Self>,
        mean: &Bound<'py, PyAny>,
        var: &Bound<'py, PyAny>,
        gamma: Option<&Bound<'py, PyAny>>,
        beta: Option<&Bound<'py, PyAny>>,
        eps: f64,
    ) -> PyResult<PyTensor> {
        let args: BnArgs<'_, 'py> = [Some(mean), Some(var), gamma, beta];
        ops::batch_norm(slf.py(), self_input(slf), args, eps)
    }
    /// Inference batch normalisation in place (written through when shared).
    #[pyo3(signature = (mean, var, gamma = None, beta = None, eps = 1e-5))]
    fn batch_norm_<'py>(
        slf: Bound<'py, Self>,
        mean: &Bound<'py, PyAny>,
        var: &Bound<'py, PyAny>,
        gamma: Option<&Bound<'py, PyAny>>,
        beta: Option<&Bound<'py, PyAny>>,
        eps: f64,
    ) -> PyResult<Bound<'py, Self>> {
        ops::batch_norm_inplace(&slf, [Some(mean), Some(var), gamma, beta], eps)?;
        Ok(slf)
    }

    // ---- layout ----
    /// A tensor of another shape sharing this buffer (no copy); `-1` infers
    /// one dimension. Accepts `reshape(2, 3)` and `reshape((2, 3))`.
    #[pyo3(signature = (*shape))]
    fn reshape(slf: &Bound<'_, Self>, shape: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        let me = self_input(slf);
        let shape = interop::axes_arg(shape)?;
        call(slf.py(), &Op::Reshape { shape }, smallvec![me])
    }

    /// A view with the axes permuted (all reversed without arguments),
    /// sharing this buffer.
    #[pyo3(signature = (*axes))]
    fn transpose(slf: &Bound<'_, Self>, axes: &Bound<'_, PyTuple>) -> PyResult<PyTensor> {
        let axes = if axes.is_empty() {
            None
        } else {
            Some(interop::axes_arg(axes)?.into_iter().map(|a| a as isize).collect())
        };
        call(slf.py(), &Op::Permute { axes }, smallvec![self_input(slf)])
    }

    /// The transpose (axes reversed), a view sharing this buffer.
    #[getter(T)]
    fn t(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        call(slf.py(), &Op::Permute { axes: None }, smallvec![self_input(slf)])
    }

    /// This tensor when its elements are contiguous, else a C-order copy.
    fn contiguous(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        let py = slf.py();
        if slf.get().tracer().is_some() {
            // Traced: a copy (eagerly a C-ordered tensor is returned as
            // it is; a program does not follow which variables are).
            return call(py, &Op::Cast { dtype: slf.get().dtype }, smallvec![kept(slf)]);
        }
        let t = read(py, slf.get())?;
        let c = super::arena::detach(py, t.nbytes(), || t.contiguous()).py()?;
        Ok(PyTensor::new(c))
    }

    /// A DLPack capsule of this tensor (see `dlpack.rs`): zero-copy and
    /// read-only for DLPack ≥ 1.0 consumers; while a consumer holds it,
    /// the buffer is exported (donation copies, in-place ops copy on
    /// write).
    #[pyo3(signature = (*, stream = None, max_version = None, dl_device = None, copy = None))]
    fn __dlpack__<'py>(
        slf: &Bound<'py, Self>,
        stream: Option<&Bound<'py, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        super::dlpack::export(slf, stream, max_version, dl_device, copy)
    }

    /// `(1, 0)`: DLPack's CPU device.
    #[allow(clippy::unused_self)] // a method of every tensor, by the protocol
    fn __dlpack_device__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        super::dlpack::device(py)
    }
}}

/// What `__reduce__` returns: `donate.tensor` and its arguments.
type Reduced<'py> = (
    Bound<'py, PyAny>,
    (Bound<'py, PyAny>, Bound<'py, PyArrayDescr>),
);

/// `x op= other`; PyO3 returns `x` itself.
fn inplace_dunder(
    slf: &Bound<'_, PyTensor>,
    other: &Bound<'_, PyAny>,
    op: BinaryOp,
) -> PyResult<()> {
    let Some(o) = input_from(other)? else {
        return Err(PyTypeError::new_err(format!(
            "unsupported operand type for in-place {}: 'Tensor' and '{}'",
            op.name(),
            other.get_type().name()?
        )));
    };
    ops::binary_inplace(slf, op, o)
}
