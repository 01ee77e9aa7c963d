//! The operands of one operation as the bindings hold them: where each
//! comes from ([`Source`]: a `Tensor`, a tensor made for the call, a
//! Python number), how it is offered, and its description for planning.
//! Below both the call sequence ([`super::operands`]) and tracing
//! ([`super::jit`]).

use pyo3::prelude::*;
use smallvec::SmallVec;

use super::tensor::{Interp, PyTensor};
use donate::plan::{Holders, Offer, OperandDesc};
use donate::slot::DonorGates;
use donate::{DynTensor, OperandDType, Scalar};

/// Where an operand comes from.
pub(crate) enum Source<'py> {
    Tensor(Bound<'py, PyTensor>),
    /// A tensor the bindings created for this call (from NumPy, a list, a
    /// NumPy scalar): nobody else sees it. With the NumPy dtype the data
    /// had, for type promotion.
    Temp(DynTensor, OperandDType),
    Scalar(Scalar),
}

/// An operation's operands, inline for up to three (no heap allocation
/// for an ordinary operation).
pub(crate) type Inputs<'py> = SmallVec<[Input<'py>; 3]>;

/// One operand of an operation.
pub(crate) struct Input<'py> {
    pub(crate) src: Source<'py>,
    pub(crate) offer: Offer,
}

impl<'py> Input<'py> {
    pub(crate) fn new(src: Source<'py>, offer: Offer) -> Self {
        Input { src, offer }
    }

    /// A named tensor the operation only reads.
    pub(crate) fn kept(t: &Bound<'py, PyTensor>) -> Self {
        Input::new(Source::Tensor(t.clone()), Offer::Borrowed)
    }

    /// A tracer (the operation is recorded, not run).
    pub(crate) fn is_tracer(&self) -> bool {
        matches!(&self.src, Source::Tensor(t) if t.get().tracer().is_some())
    }

    /// The shape (`[]` for scalars).
    pub(crate) fn shape(&self) -> &[usize] {
        match &self.src {
            Source::Tensor(t) => &t.get().shape,
            Source::Temp(t, _) => t.shape(),
            Source::Scalar(_) => &[],
        }
    }

    /// Step 1: this operand as planning sees it. `busy`: tensors another
    /// thread is donating (for an op nested in a warning handler).
    pub(crate) fn describe(
        &self,
        py: Python<'_>,
        gates: Option<&DonorGates<'_>>,
    ) -> OperandDesc<'_> {
        match &self.src {
            Source::Scalar(s) => OperandDesc::scalar(*s),
            Source::Temp(t, had) => {
                OperandDesc::tensor(*had, t.shape()).offered(Offer::Temporary, Holders::Exclusive)
            }
            Source::Tensor(obj) => {
                let me = obj.get();
                let d = OperandDesc::tensor(me.dtype, &me.shape)
                    .with_id(obj.as_ptr() as usize)
                    .covering(me.coverage);
                if self.offer == Offer::Borrowed {
                    d
                } else if gates.is_some_and(|g| g.is_busy(&me.slot)) {
                    d.offered(self.offer, Holders::Busy)
                } else {
                    let g = me.slot.lock(&Interp(py));
                    d.offered(self.offer, Holders::from(g.ownership()))
                        .covering(g.coverage())
                }
            }
        }
    }

    /// `dtype[shape]` for messages.
    pub(crate) fn signature(&self) -> String {
        let dims: Vec<String> = self.shape().iter().map(ToString::to_string).collect();
        let dtype = match &self.src {
            Source::Tensor(t) => t.get().dtype.to_string(),
            Source::Temp(t, _) => t.dtype().to_string(),
            Source::Scalar(_) => String::new(),
        };
        format!("{dtype}[{}]", dims.join(", "))
    }
}
