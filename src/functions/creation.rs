//! Creation functions whose values follow a rule: `eye` and `linspace`.
//! Each decides its result's shape and dtype here
//! and writes a new buffer. (`tril`/`triu` are planned operations of
//! [`crate::functions::lane_ops`].)

use crate::array::dyn_tensor::{for_any_dtype, DynTensor};
use crate::array::element::{DType, Element};
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::kernels::fresh;

/// A new tensor of `shape` filled from `items` (C order). The shape is
/// checked before anything is allocated or computed
/// ([`checked_numel`](crate::array::shape::checked_numel)): a shape that cannot
/// exist is an error, never a wrapped element count. The one constructor
/// of the functions that build their results element by element.
pub(crate) fn collect<T: crate::array::dyn_tensor::AnyElement>(
    shape: &[usize],
    items: impl IntoIterator<Item = T>,
) -> Result<DynTensor> {
    let n = crate::array::shape::checked_numel(shape, std::mem::size_of::<T>())?;
    Ok(T::wrap(Tensor::from_buffer(
        fresh::from_iter(n, items)?,
        shape,
    )?))
}

/// `eye(n_rows, n_cols)`: ones on the `k`th diagonal, zeros elsewhere.
pub fn eye(n_rows: usize, n_cols: usize, k: i64, dtype: DType) -> Result<DynTensor> {
    let n = crate::array::shape::checked_numel(&[n_rows, n_cols], dtype.size())?;
    for_any_dtype!(dtype, T => {
        let items = (0..n).map(|p| {
            let (i, j) = ((p / n_cols.max(1)) as i64, (p % n_cols.max(1)) as i64);
            if j - i == k { T::ONE } else { T::ZERO }
        });
        collect::<T>(&[n_rows, n_cols], items)
    })
}

/// `linspace(start, stop, num)`: `num` evenly spaced values of a float
/// `dtype`, `stop` included when `endpoint` (computed in float64, then
/// rounded once).
pub fn linspace(
    start: f64,
    stop: f64,
    num: usize,
    dtype: DType,
    endpoint: bool,
) -> Result<DynTensor> {
    if !dtype.is_float() {
        return Err(Error::InvalidArgument {
            op: "linspace",
            reason: format!("needs a floating-point dtype, got {dtype}"),
        });
    }
    let intervals = if endpoint { num.saturating_sub(1) } else { num };
    let spacing = if intervals == 0 {
        0.0
    } else {
        (stop - start) / intervals as f64
    };
    for_any_dtype!(dtype, T => {
        let items = (0..num).map(|i| {
            let v = if endpoint && i + 1 == num && num > 1 { stop } else { start + spacing * i as f64 };
            T::from_f64(v)
        });
        collect::<T>(&[num], items)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eye_and_linspace() {
        let e = eye(2, 3, 1, DType::I32).unwrap();
        assert_eq!(
            e.typed::<i32>("t").unwrap().as_slice().unwrap(),
            [0, 1, 0, 0, 0, 1]
        );
        let l = linspace(0.0, 1.0, 5, DType::F64, true).unwrap();
        assert_eq!(
            l.typed::<f64>("t").unwrap().as_slice().unwrap(),
            [0.0, 0.25, 0.5, 0.75, 1.0]
        );
        assert!(linspace(0.0, 1.0, 3, DType::I32, true).is_err());
    }
}
