//! Assignment through a boolean mask, `x[mask] = value`, by NumPy's
//! rule: `value` broadcasts to `(count, *trailing)`, where `count` is the
//! number of elements `mask` selects and `trailing` is `x`'s dimensions
//! after the mask's. [`mask_assign_kind`] says from the shapes alone
//! whether that is the same values for every selected element (then
//! `where(mask, value, x)`, which a traced program can plan) or one row
//! each ([`mask_scatter`], whose result depends on the mask's values).
//! Either result is then written into `x` as a whole assignment, by the
//! planned `__setitem__`.

use crate::dyn_tensor::{for_dtype, DynTensor};
use crate::element::DType;
use crate::error::{Error, Result};
use crate::manipulation::broadcast_to;
use crate::shape::broadcast_shapes;
use crate::tensor::Tensor;

/// How `x[mask] = value` is computed. NumPy's rule: `value` broadcasts to
/// `(count, *trailing)`, `count` the number of elements `mask` selects
/// and `trailing` `x`'s dimensions after the mask's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaskAssign {
    /// `value` has no axis of its own over the selected elements (it
    /// broadcasts to `trailing`, or its leading axis has length 1): every
    /// selected element gets the same values, so the assignment is
    /// `where(mask, value, x)`, whose shape is known without the mask's
    /// values (a traced program can plan it).
    Where,
    /// `value` gives one row per selected element: which row goes where
    /// depends on the mask's values ([`mask_scatter`]).
    Scatter,
}

/// Which [`MaskAssign`] `x[mask] = value` is, from the shapes.
pub fn mask_assign_kind(x: &[usize], mask: &[usize], value: &[usize]) -> MaskAssign {
    let trailing = x.len().saturating_sub(mask.len());
    if value.len() <= trailing || (value.len() == trailing + 1 && value[0] == 1) {
        MaskAssign::Where
    } else {
        MaskAssign::Scatter
    }
}

/// `x` with `x[mask] = value` applied ([`MaskAssign::Scatter`]): the
/// selected elements, in C order, get the rows of `value` broadcast to
/// `(count, *trailing)` and converted to `x`'s dtype; a new buffer.
/// `mask` is bool, of `x`'s leading dimensions.
pub fn mask_scatter(x: &DynTensor, mask: &DynTensor, value: &DynTensor) -> Result<DynTensor> {
    const OP: &str = "__setitem__";
    let k = mask.shape().len();
    if mask.dtype() != DType::Bool || k > x.shape().len() || mask.shape() != &x.shape()[..k] {
        return Err(Error::InvalidArgument {
            op: OP,
            reason: format!(
                "a mask of dtype {} and shape {:?} does not select from a tensor of shape {:?}",
                mask.dtype(),
                mask.shape(),
                x.shape()
            ),
        });
    }
    let mask = mask.contiguous()?;
    let selected = mask.typed::<bool>(OP)?.as_slice()?;
    let count = selected.iter().filter(|&&b| b).count();
    let trailing = &x.shape()[k..];
    let inner: usize = trailing.iter().product();
    let rows: Vec<usize> = std::iter::once(count)
        .chain(trailing.iter().copied())
        .collect();
    if !broadcast_shapes(OP, value.shape(), &rows).is_ok_and(|b| b.as_slice() == rows.as_slice()) {
        return Err(Error::InvalidArgument {
            op: OP,
            reason: format!(
                "a value of shape {:?} cannot be assigned to the {count} elements the mask selects \
                 (it must broadcast to {rows:?})",
                value.shape()
            ),
        });
    }
    let value = broadcast_to(&value.cast(x.dtype())?, &rows)?;
    let x = x.contiguous()?;
    for_dtype!(x.dtype(), T => {
        let mut out = x.typed::<T>(OP)?.to_vec()?;
        let v = value.typed::<T>(OP)?.as_slice()?;
        let at = selected.iter().enumerate().filter(|(_, &b)| b).map(|(p, _)| p);
        for (j, p) in at.enumerate() {
            out[p * inner..(p + 1) * inner].copy_from_slice(&v[j * inner..(j + 1) * inner]);
        }
        Ok(DynTensor::from(Tensor::from_vec(out, x.shape())?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manipulation::tests::{t, vals};

    #[test]
    fn mask_assignment_follows_numpys_rule() {
        let x = t(&[0, 1, 2, 3, 4, 5], &[3, 2]);
        let m = t(&[true, false, true], &[3]);
        // One row per selected element, in order; a value of the trailing
        // shape (or with a leading 1) is the same for each: `where`.
        let r = mask_scatter(&x, &m, &t(&[7, 8, 9, 10], &[2, 2])).unwrap();
        assert_eq!(vals(&r), [7, 8, 2, 3, 9, 10]);
        let r = mask_scatter(&x, &m, &t(&[7, 8], &[2, 1])).unwrap();
        assert_eq!(vals(&r), [7, 7, 2, 3, 8, 8]);
        assert_eq!(
            mask_assign_kind(&[3, 2], &[3], &[2, 2]),
            MaskAssign::Scatter
        );
        assert_eq!(mask_assign_kind(&[3, 2], &[3], &[2]), MaskAssign::Where);
        assert_eq!(mask_assign_kind(&[3, 2], &[3], &[1, 2]), MaskAssign::Where);
        assert_eq!(mask_assign_kind(&[3, 2], &[3], &[]), MaskAssign::Where);
        // Three rows for two selected elements, or a mask of the wrong
        // shape: an error, nothing written.
        let e = mask_scatter(&x, &m, &t(&[1, 2, 3, 4, 5, 6], &[3, 2])).unwrap_err();
        assert!(
            e.to_string().contains("the 2 elements the mask selects"),
            "{e}"
        );
        assert!(mask_scatter(&x, &t(&[true, false], &[2]), &t(&[1], &[1])).is_err());
        // Nothing selected: no rows, nothing changes.
        let none = t(&[false; 3], &[3]);
        assert_eq!(
            vals(&mask_scatter(&x, &none, &t::<i32>(&[], &[0, 2])).unwrap()),
            vals(&x)
        );
    }
}
