//! Conversions between Python objects and tensors: dtypes, shapes, NumPy
//! arrays, nested lists, scalars, and the read-only NumPy view.

use numpy::{
    PyArrayDescr, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyList, PyMemoryView, PyTuple};

use super::errors::IntoPyResult;
use donate::{DType, Tensor};
use donate::{DynTensor, Scalar};

/// The `numpy` module, imported once.
pub(crate) fn numpy(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static NUMPY: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    Ok(NUMPY
        .get_or_try_init(py, || py.import("numpy").map(Bound::unbind))?
        .bind(py))
}

/// NumPy's dtype object for `d`.
pub(crate) fn np_dtype(py: Python<'_>, d: DType) -> Bound<'_, PyArrayDescr> {
    donate::for_any_dtype!(d, T => numpy::dtype::<T>(py))
}

/// "donate supports bool, int8, ..., complex64 and complex128": the core's
/// dtypes, for the message of an unsupported one.
fn supported() -> String {
    let names: Vec<&str> = DType::ALL
        .iter()
        .chain(&DType::COMPLEX)
        .map(|d| d.name())
        .collect();
    let (last, rest) = names.split_last().map_or(("", &[][..]), |(l, r)| (*l, r));
    format!("donate supports {} and {last}", rest.join(", "))
}

/// The donate dtype a NumPy dtype converts to. `from_python` marks data
/// that came from Python numbers (lists, scalars): their float64 becomes
/// the default float32, as in other tensor libraries.
fn dtype_of_descr(d: &Bound<'_, PyArrayDescr>, from_python: bool) -> PyResult<DType> {
    let kind = d.kind();
    let size = d.itemsize();
    if from_python && (kind, size) == (b'f', 8) {
        return Ok(DType::DEFAULT_FLOAT);
    }
    if let Some(d) = DType::from_numpy(kind, size) {
        return Ok(d);
    }
    if kind == b'O' {
        return Err(PyTypeError::new_err(
            "object arrays are not supported; convert with .astype(...) to a numeric dtype first",
        ));
    }
    let name: String = d.str()?.extract()?;
    Err(PyTypeError::new_err(format!(
        "unsupported dtype {name}; {}",
        supported()
    )))
}

/// A `dtype=` argument: `None`, a donate/NumPy dtype, a scalar type or a
/// name. Anything else (including non-native byte order) is a `TypeError`.
pub(crate) fn dtype_arg(py: Python<'_>, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    if let Ok(s) = obj.extract::<String>() {
        if let Some(d) = DType::parse(&s) {
            return Ok(Some(d));
        }
    }
    let descr = PyArrayDescr::new(py, obj).map_err(|_| {
        PyTypeError::new_err(format!(
            "unsupported dtype {}; {}",
            obj.repr().map(|r| r.to_string()).unwrap_or_default(),
            supported()
        ))
    })?;
    for d in DType::ALL {
        if descr.is_equiv_to(&np_dtype(py, d)) {
            return Ok(Some(d));
        }
    }
    if descr.is_native_byteorder() != Some(false) {
        if let Some(d) = DType::from_numpy(descr.kind(), descr.itemsize()) {
            return Ok(Some(d));
        }
    }
    let name: String = descr.str()?.extract()?;
    Err(PyTypeError::new_err(format!(
        "unsupported dtype {name}; {}",
        supported()
    )))
}

/// A shape argument: an int or a sequence of ints, none negative.
pub(crate) fn shape_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    // An integer is anything with `__index__` that gives one (a NumPy
    // integer: `zeros(np.prod(s))`); a sequence of them is any iterable
    // but a string (a NumPy array of sizes too), as NumPy reads a shape.
    let index = || !obj.is_instance_of::<PyFloat>() && obj.hasattr("__index__").unwrap_or(false);
    let dims: Vec<i64> = if obj.is_instance_of::<PyInt>() {
        vec![obj.extract()?]
    } else if let Some(d) = index().then(|| obj.extract::<i64>().ok()).flatten() {
        vec![d]
    } else if obj.is_instance_of::<PyTuple>()
        || obj.is_instance_of::<PyList>()
        || (!obj.is_instance_of::<pyo3::types::PyString>() && obj.hasattr("__iter__")?)
    {
        obj.try_iter()?
            .map(|d| {
                let d = d?;
                if d.is_instance_of::<PyFloat>() {
                    return Err(PyTypeError::new_err(
                        "shape entries must be integers, not float",
                    ));
                }
                d.extract::<i64>()
            })
            .collect::<PyResult<_>>()?
    } else {
        return Err(PyTypeError::new_err(format!(
            "shape must be an int or a tuple of ints, not {}",
            obj.get_type().name()?
        )));
    };
    dims.into_iter()
        .map(|d| {
            if d < 0 {
                Err(PyValueError::new_err(format!(
                    "negative dimensions are not allowed (got {d})"
                )))
            } else {
                usize::try_from(d).map_err(|_| PyOverflowError::new_err("dimension too large"))
            }
        })
        .collect()
}

/// A Python number as a weak scalar (`None` if it is not one). NumPy
/// scalars are not weak: they convert like 0-d arrays.
pub(crate) fn scalar_arg(obj: &Bound<'_, PyAny>) -> PyResult<Option<Scalar>> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Some(Scalar::Bool(obj.extract::<bool>()?)));
    }
    if obj.is_instance_of::<PyInt>() {
        // (Every integer dtype's values fit an i128; a larger int fits
        // none, as NumPy says.)
        return obj
            .extract::<i128>()
            .map(|v| Some(Scalar::Int(v)))
            .map_err(|_| {
                PyOverflowError::new_err(format!(
                    "Python integer {obj} is out of bounds for every integer dtype"
                ))
            });
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Some(Scalar::Float(obj.extract::<f64>()?)));
    }
    if let Ok(z) = obj.cast::<PyComplex>() {
        return Ok(Some(Scalar::Complex(z.real(), z.imag())));
    }
    Ok(None)
}

/// A number argument of a creation function (`full`'s fill value,
/// `arange`'s bounds): a Python number as [`scalar_arg`], with no dtype of
/// its own; or a NumPy scalar (`np.int32(5)`, `np.float32(0.5)`), its value
/// with its dtype, which `full` keeps as NumPy's does. `None` for anything
/// else.
pub(crate) fn number_arg(obj: &Bound<'_, PyAny>) -> PyResult<Option<(Scalar, Option<DType>)>> {
    let py = obj.py();
    // NumPy scalars first: `np.float64` is also a Python float.
    if obj.is_instance(&numpy(py)?.getattr("number")?)?
        || obj.is_instance(&numpy(py)?.getattr("bool")?)?
    {
        let Some(v) = scalar_arg(&obj.call_method0("item")?)? else {
            return Ok(None);
        };
        return Ok(Some((v, dtype_arg(py, Some(&obj.getattr("dtype")?))?)));
    }
    Ok(scalar_arg(obj)?.map(|v| (v, None)))
}

/// Whether `obj` is a NumPy array or NumPy scalar.
pub(crate) fn is_numpy(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    if obj.is_instance_of::<PyUntypedArray>() {
        return Ok(true);
    }
    obj.is_instance(&numpy(py)?.getattr("generic")?)
}

/// A new tensor with a copy of `obj`'s data: a NumPy array or scalar, any
/// object with the buffer protocol or `__array__`, nested lists or Python
/// numbers. `dtype` converts; without it NumPy's dtype is kept and Python
/// floats become float32.
pub(crate) fn to_tensor(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    dtype: Option<DType>,
) -> PyResult<DynTensor> {
    convert(py, obj, dtype, true)
}

/// Whether nested lists and tuples hold only Python numbers (the data
/// whose float64 becomes the default float32). NumPy's own limit on
/// nesting is 64 levels; deeper data is not Python numbers' (NumPy
/// refuses it anyway).
fn python_numbers_only(obj: &Bound<'_, PyAny>, depth: usize) -> bool {
    let number = |x: Bound<'_, PyAny>| {
        // (Exactly: `np.float64` and `np.complex128` subclass them.)
        x.is_exact_instance_of::<PyFloat>()
            || x.is_instance_of::<PyInt>()
            || x.is_exact_instance_of::<PyComplex>()
            || (depth < 64
                && (x.is_instance_of::<PyList>() || x.is_instance_of::<PyTuple>())
                && python_numbers_only(&x, depth + 1))
    };
    if let Ok(l) = obj.cast::<PyList>() {
        l.iter().all(number)
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        t.iter().all(number)
    } else {
        false
    }
}

/// [`to_tensor`]; `default_float`: whether Python floats become the
/// default float (a new tensor's data) or stay float64 (an operand's).
fn convert(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    dtype: Option<DType>,
    default_float: bool,
) -> PyResult<DynTensor> {
    if let Ok(t) = obj.cast::<super::tensor::PyTensor>() {
        let src = super::tensor::read(py, t.get())?;
        return match dtype {
            Some(d) if d != src.dtype() => src.cast(d).py(),
            _ => src.deep_copy().py(),
        };
    }
    if obj.is_instance_of::<super::tensor::PyDonated>() {
        return Err(PyTypeError::new_err(
            "a Donated wrapper is not data; pass the tensor itself",
        ));
    }
    let np = numpy(py)?;
    if let (true, Some(d)) = (obj.is_exact_instance_of::<PyComplex>(), dtype) {
        if !d.is_complex() && d != DType::Bool {
            // NumPy's `float()` of a complex number: the imaginary part is
            // never dropped silently (bool takes its truth value, as NumPy's).
            return Err(PyTypeError::new_err(format!(
                "a Python complex number does not convert to the real dtype {}",
                d.name()
            )));
        }
    }
    let arr = if obj.is_instance_of::<PyUntypedArray>() {
        obj.clone()
    } else if let Some(d) = dtype {
        // Data converts straight to the asked dtype, as `np.asarray(x,
        // dtype=)`: through NumPy's own inference first, a list of ints
        // above int64's range would become float64 and lose its low digits.
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("dtype", np_dtype(py, d))?;
        np.getattr("asarray")?.call((obj,), Some(&kwargs))?
    } else {
        np.call_method1("asarray", (obj,))?
    };
    let arr = arr
        .cast_into::<PyUntypedArray>()
        .map_err(|e| PyTypeError::new_err(e.to_string()))?;
    let target = if let Some(d) = dtype {
        if arr.dtype().kind() == b'O' {
            dtype_of_descr(&arr.dtype(), false)?; // the object-array error
        }
        d
    } else {
        let descr = arr.dtype();
        // Python numbers only become the default float: a NumPy array,
        // scalar or tensor inside a list keeps its float64, as
        // `np.asarray` keeps it. Asked only of float64 results, so
        // other data is not walked twice.
        let from_python = default_float
            && (descr.kind(), descr.itemsize()) == (b'f', 8)
            && !is_numpy(py, obj)?
            && (obj.is_instance_of::<PyInt>()
                || obj.is_instance_of::<PyFloat>()
                || ((obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>())
                    && python_numbers_only(obj, 0)));
        dtype_of_descr(&descr, from_python)?
    };
    // `asarray(order="C")`, not `ascontiguousarray`, which turns 0-d into 1-d.
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("dtype", np_dtype(py, target))?;
    kwargs.set_item("order", "C")?;
    let mut arr = np.getattr("asarray")?.call((arr,), Some(&kwargs))?;
    if !arr
        .getattr("flags")?
        .getattr("aligned")?
        .extract::<bool>()?
    {
        // A C-ordered array at a misaligned address (`np.frombuffer` at an
        // odd offset): its copy is aligned, as the slice below needs.
        arr = arr.call_method0("copy")?;
    }
    donate::for_any_dtype!(target, T => {
        let a = arr.cast::<PyArrayDyn<T>>().map_err(|e| PyTypeError::new_err(e.to_string()))?;
        let ro = a.try_readonly().map_err(|e| PyValueError::new_err(e.to_string()))?;
        let shape = ro.shape().to_vec();
        let data = ro.as_slice().map_err(|e| PyValueError::new_err(e.to_string()))?;
        Tensor::<T>::from_slice(data, &shape).map(DynTensor::from).py()
    })
}

/// An operand given as data (a NumPy array or scalar, a list): a new
/// tensor with its values, in the dtype NumPy's `asarray` gives it (its
/// floats are float64): `float64_tensor + [0.1]` must not see the list
/// through float32, and `float32_tensor + [0.1]` promotes as NumPy's.
pub(crate) fn to_operand(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<DynTensor> {
    convert(py, obj, None, false)
}

/// A read-only NumPy array over the tensor's buffer (no copy). The array
/// holds an export: the buffer stays alive and unchanged while it exists.
pub(crate) fn numpy_view<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let mv = PyMemoryView::from(obj)?;
    numpy(py)?.call_method1("asarray", (mv,))
}

/// Axes or a shape given spread out or as one sequence (`t.transpose(1, 0)`,
/// `t.transpose((1, 0))`).
pub(crate) fn axes_arg(args: &Bound<'_, PyTuple>) -> PyResult<Vec<i64>> {
    if args.len() == 1 {
        let a = args.get_item(0)?;
        if !a.is_instance_of::<pyo3::types::PyInt>() {
            return a.try_iter()?.map(|x| x?.extract::<i64>()).collect();
        }
    }
    args.iter().map(|x| x.extract::<i64>()).collect()
}

/// An index key with its tensors read as NumPy arrays, for NumPy's
/// indexing (NumPy would otherwise take an empty bool tensor for a
/// sequence of integer indices, and a 0-d one for an integer).
pub(crate) fn numpy_key<'py>(key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = key.py();
    let np = numpy(py)?;
    let as_array = |k: Bound<'py, PyAny>| -> PyResult<Bound<'py, PyAny>> {
        if k.is_instance_of::<super::tensor::PyTensor>() {
            np.call_method1("asarray", (k,))
        } else {
            Ok(k)
        }
    };
    match key.cast::<PyTuple>() {
        Ok(t) => {
            Ok(PyTuple::new(py, t.iter().map(as_array).collect::<PyResult<Vec<_>>>()?)?.into_any())
        }
        Err(_) => as_array(key.clone()),
    }
}

/// The C-order positions (int64) of the elements `key` selects from a
/// tensor of `shape`, as a NumPy array of `x[key]`'s shape: NumPy's
/// indexing applied to one zero-stride grid per axis (never a buffer of
/// the tensor's size), so every index NumPy takes, and every error it
/// raises, is NumPy's own.
pub(crate) fn positions<'py>(
    py: Python<'py>,
    shape: &[usize],
    key: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let np = numpy(py)?;
    let key = &numpy_key(key)?;
    let dims = PyTuple::new(py, shape)?;
    let int64 = np.getattr("int64")?;
    if shape.is_empty() {
        let one = np.call_method1("zeros", ((), &int64))?;
        return one.get_item(key);
    }
    let kw = pyo3::types::PyDict::new(py);
    kw.set_item("sparse", true)?;
    kw.set_item("dtype", &int64)?;
    let grids = np.call_method("indices", (&dims,), Some(&kw))?;
    let mut total: Option<Bound<'py, PyAny>> = None;
    let mut stride: i64 = 1;
    for axis in (0..shape.len()).rev() {
        let grid = np.call_method1("broadcast_to", (grids.get_item(axis)?, &dims))?;
        let term = grid.get_item(key)?.mul(stride)?;
        total = Some(match total {
            None => term,
            Some(t) => t.add(term)?,
        });
        stride = stride.saturating_mul(i64::try_from(shape[axis]).unwrap_or(i64::MAX));
    }
    total.ok_or_else(|| pyo3::exceptions::PyIndexError::new_err("no axis to index"))
}

/// A basic index (ints, slices, `...`, `None`, or a tuple of them) in
/// the core's terms; `None` for anything else (arrays, lists, booleans:
/// NumPy's advanced indexing).
pub(crate) fn basic_index(key: &Bound<'_, PyAny>) -> PyResult<Option<Vec<donate::Index>>> {
    let one = |k: &Bound<'_, PyAny>| -> PyResult<Option<donate::Index>> {
        use donate::Index;
        if k.is_none() {
            return Ok(Some(Index::NewAxis));
        }
        if k.is(k.py().Ellipsis()) {
            return Ok(Some(Index::Ellipsis));
        }
        if let Ok(sl) = k.cast::<pyo3::types::PySlice>() {
            // Python ints of any size, clamped to 64 bits as CPython's
            // `PySlice_Unpack` (and so NumPy) clamps them: a bound past
            // the end is the end, whatever its size.
            let part = |name: &str| -> PyResult<Option<i64>> {
                let v = sl.getattr(name)?;
                if v.is_none() {
                    return Ok(None);
                }
                let i = v.call_method0("__index__")?;
                Ok(Some(match i.extract::<i64>() {
                    Ok(x) => x,
                    Err(_) if i.gt(0)? => i64::MAX,
                    Err(_) => i64::MIN,
                }))
            };
            let step = part("step")?.unwrap_or(1).max(-i64::MAX);
            return Ok(Some(Index::Slice {
                start: part("start")?,
                stop: part("stop")?,
                step,
            }));
        }
        // An array, NumPy's or a tensor, even a 0-d integer one, is
        // advanced indexing, as in NumPy: `a[np.array(1)]` is a copy,
        // `a[np.int64(1)]` a view.
        if k.is_instance_of::<pyo3::types::PyBool>()
            || k.is_instance_of::<PyUntypedArray>()
            || k.is_instance_of::<super::tensor::PyTensor>()
        {
            return Ok(None);
        }
        // An integer or a NumPy integer (NumPy's rule); anything whose
        // `__index__` fails is advanced indexing.
        match k.call_method0("__index__") {
            // Past 64 bits an index is out of bounds of every tensor: an
            // `IndexError`, as NumPy's (not an `OverflowError`).
            Ok(i) => Ok(Some(Index::Int(i.extract().map_err(|_| {
                pyo3::exceptions::PyIndexError::new_err(format!(
                    "index {i} is out of bounds (it does not fit in 64 bits)"
                ))
            })?))),
            Err(_) => Ok(None),
        }
    };
    if let Ok(t) = key.cast::<PyTuple>() {
        let mut out = Vec::with_capacity(t.len());
        for k in t.iter() {
            match one(&k)? {
                Some(i) => out.push(i),
                None => return Ok(None),
            }
        }
        return Ok(Some(out));
    }
    Ok(one(key)?.map(|i| vec![i]))
}
