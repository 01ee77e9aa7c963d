//! The operands of one operation as the bindings hold them: the core's
//! [`Operand`] (a Python number, a tensor made for the call, or a `Tensor`
//! and how it is offered) over [`TensorRef`], a reference to the Python
//! object, which the core's call sequence keeps as it is so that the
//! temporary re-check sees the same references. Below both the call
//! sequence ([`super::operands`]) and tracing ([`super::jit`]).

use pyo3::prelude::*;
use smallvec::SmallVec;

use super::tensor::PyTensor;
use donate::driver::call::{Held, HeldTensor, Operand};
use donate::plan::Offer;

/// A reference to a `Tensor` object, as an operand.
#[derive(Clone)]
pub(crate) struct TensorRef<'py>(pub(crate) Bound<'py, PyTensor>);

impl<'py> std::ops::Deref for TensorRef<'py> {
    type Target = Bound<'py, PyTensor>;
    fn deref(&self) -> &Bound<'py, PyTensor> {
        &self.0
    }
}

impl HeldTensor for TensorRef<'_> {
    fn held(&self) -> Held<'_> {
        let me = self.0.get();
        Held {
            slot: &me.slot,
            dtype: me.dtype,
            shape: &me.shape,
            coverage: me.coverage,
        }
    }
}

/// One operand of an operation.
pub(crate) type Input<'py> = Operand<TensorRef<'py>>;

/// An operation's operands, inline for up to three (no heap allocation
/// for an ordinary operation).
pub(crate) type Inputs<'py> = SmallVec<[Input<'py>; 3]>;

/// A tensor offered as `offer`.
pub(crate) fn held<'py>(t: &Bound<'py, PyTensor>, offer: Offer) -> Input<'py> {
    Operand::Held(TensorRef(t.clone()), offer)
}

/// A named tensor the operation only reads.
pub(crate) fn kept<'py>(t: &Bound<'py, PyTensor>) -> Input<'py> {
    held(t, Offer::Borrowed)
}

/// A tracer (the operation is recorded, not run).
pub(crate) fn is_tracer(i: &Input<'_>) -> bool {
    matches!(i, Operand::Held(t, _) if t.get().tracer().is_some())
}
