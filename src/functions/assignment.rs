//! Assignment through a boolean mask, `x[mask] = value`, by NumPy's
//! rule: `value` broadcasts to `(count, *trailing)`, where `count` is the
//! number of elements `mask` selects and `trailing` is `x`'s dimensions
//! after the mask's. [`mask_assign_kind`] says from the shapes alone
//! whether that is the same values for every selected element (then
//! `where(mask, value, x)`, written into `x` as a whole assignment by the
//! planned `__setitem__`, which a traced program can plan) or one row
//! each: a scatter to the positions the mask selects
//! ([`crate::plan::Op::Scatter`], as assignment through integer arrays),
//! whose positions depend on the mask's values.

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
    /// depends on the mask's values ([`crate::plan::Op::Scatter`]).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shapes_say_whether_a_mask_assignment_is_a_where() {
        // A value of the trailing shape (or with a leading 1) is the same
        // for each selected element: `where`. One row each: a scatter.
        assert_eq!(
            mask_assign_kind(&[3, 2], &[3], &[2, 2]),
            MaskAssign::Scatter
        );
        assert_eq!(mask_assign_kind(&[3, 2], &[3], &[2]), MaskAssign::Where);
        assert_eq!(mask_assign_kind(&[3, 2], &[3], &[1, 2]), MaskAssign::Where);
        assert_eq!(mask_assign_kind(&[3, 2], &[3], &[]), MaskAssign::Where);
    }
}
