//! The one error type of the crate.
//!
//! Every fallible operation returns [`Result<T>`](Result). Messages name the
//! shapes, dtypes and byte counts involved so that a user can act on them
//! without a debugger. The Python bindings map each variant to one Python
//! exception class in exactly one place (`bindings/src/errors.rs`).

use std::fmt;

use crate::array::element::DType;

/// Why a pinned buffer is never donated (in [`Error::Pinned`] and the
/// planner's refusal).
pub(crate) const PINNED_REASON: &str = "its memory was handed out to code that may read it for as long as the tensor lives (a buffer-protocol request for its bytes, as np.ndarray(buffer=t) makes)";

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in `donate`.
// (Not `#[non_exhaustive]`: the bindings map every variant to a Python
// exception in one exhaustive match, so a new variant cannot go unmapped.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Two shapes that had to broadcast together (or one to the other) do
    /// not. Shapes that must agree by another rule (concatenation, a
    /// parameter per channel) are an [`Error::InvalidShape`] naming it.
    ShapeMismatch {
        op: &'static str,
        lhs: Vec<usize>,
        rhs: Vec<usize>,
    },
    /// A shape that had to broadcast *to* another (an assigned value to
    /// its selection, an in-place result to its target, `broadcast_to`)
    /// does not.
    NotBroadcastableTo {
        op: &'static str,
        from: Vec<usize>,
        to: Vec<usize>,
    },
    /// An operand had a dtype the operation does not accept.
    DTypeMismatch {
        op: &'static str,
        expected: DType,
        found: DType,
    },
    /// The dtype is not supported by this operation at all (e.g. `exp` on
    /// integers).
    UnsupportedDType { op: &'static str, dtype: DType },
    /// The tensor's buffer was moved out by a donation; its data is gone.
    AlreadyDonated {
        shape: Vec<usize>,
        dtype: DType,
        /// The operation that consumed the buffer, when known.
        consumed_by: Option<&'static str>,
    },
    /// A donation was asked for but the buffer is not exclusively held.
    NotDonatable {
        /// Handles (tensors) sharing the buffer, including this one.
        handles: u32,
        /// Exported views (NumPy arrays, memoryviews) alive on the buffer.
        exports: u32,
    },
    /// A donation was asked for but the buffer is pinned: foreign code may
    /// read its memory for as long as it lives
    /// ([`OwnershipState::pin`](crate::OwnershipState::pin)).
    Pinned,
    /// The buffer is being written by an in-place operation right now.
    Busy,
    /// An arena's `max_bytes` would be exceeded.
    ArenaExhausted {
        requested: usize,
        in_use: usize,
        max_bytes: usize,
    },
    /// The system allocator refused, or the request cannot exist
    /// (more than `isize::MAX` bytes).
    AllocationFailed { bytes: usize },
    /// The element count of a shape overflows `usize`, or its byte size
    /// exceeds `isize::MAX`.
    ShapeOverflow { shape: Vec<usize>, elem_size: usize },
    /// A shape that is not valid for the operation (e.g. a reshape to a
    /// different element count, a matmul of 1-d tensors).
    InvalidShape {
        op: &'static str,
        shape: Vec<usize>,
        reason: String,
    },
    /// An axis outside `-ndim..ndim`.
    InvalidAxis { axis: isize, ndim: usize },
    /// A data length that does not match the shape's element count.
    LengthMismatch {
        shape: Vec<usize>,
        expected: usize,
        found: usize,
    },
    /// A reduction with no identity over zero elements (e.g. `max` of `[]`).
    EmptyReduction { op: &'static str, shape: Vec<usize> },
    /// A parameter value the operation does not accept (an axis that is
    /// not supported, a negative `eps`, a reshape target).
    InvalidArgument { op: &'static str, reason: String },
    /// An operand of a kind the operation does not accept (a number where
    /// a tensor is needed, an integer tensor for a float-only op, a result
    /// dtype that cannot be written in place).
    InvalidOperand { op: &'static str, reason: String },
    /// A Python-style integer operand that does not fit the dtype it
    /// takes (NEP 50), or a Python float written into an integer dtype
    /// whose truncation does not fit it (NumPy's `int8_array[0] = 300.5`).
    /// `value`: the integer, in decimal digits (a float's truncation can
    /// be past every Rust integer).
    ScalarOutOfRange { value: String, dtype: DType },
    /// A donation of a view that does not cover its whole buffer in C
    /// order (a slice, a row, a transpose): its buffer is never taken.
    PartialView { shape: Vec<usize> },
    /// An integer index outside its axis.
    IndexOutOfRange {
        index: i64,
        axis: usize,
        size: usize,
    },
    /// An index that cannot apply (too many indices, two ellipses, a
    /// zero slice step).
    InvalidIndex { reason: String },
    /// The data of a strided view was asked for as one contiguous slice
    /// (call `contiguous()` first; the dtype-erased operations do).
    NotContiguous { op: &'static str },
    /// A traced function asked for something only a value has (`item()`,
    /// `bool(t)`, a NumPy view), or used a tracer outside its trace.
    Tracer { op: String, reason: String },
    /// A linear algebra routine cannot give a result for these values: a
    /// singular matrix (`inv`, `solve`), one that is not positive definite
    /// (`cholesky`), an iteration that did not converge (`eigh`, `svd`).
    LinAlg {
        op: &'static str,
        reason: &'static str,
    },
}

fn fmt_shape(s: &[usize]) -> String {
    let inner: Vec<String> = s.iter().map(ToString::to_string).collect();
    format!("[{}]", inner.join(", "))
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ShapeMismatch { op, lhs, rhs } => write!(
                f,
                "{op}: shapes {} and {} are not compatible (they must be equal or broadcast)",
                fmt_shape(lhs),
                fmt_shape(rhs)
            ),
            Error::NotBroadcastableTo { op, from, to } => write!(
                f,
                "{op}: shape {} cannot be broadcast to shape {} (each of its axes, from the last, must equal the target's or be 1)",
                fmt_shape(from),
                fmt_shape(to)
            ),
            Error::DTypeMismatch { op, expected, found } => {
                write!(f, "{op}: expected dtype {expected}, found {found}")
            }
            Error::UnsupportedDType { op, dtype } => {
                write!(f, "{op} is not supported for dtype {dtype}")
            }
            Error::AlreadyDonated { shape, dtype, consumed_by } => {
                write!(f, "Tensor has been donated with shape={dtype}{}", fmt_shape(shape))?;
                if let Some(op) = consumed_by {
                    write!(f, " (its buffer was consumed by {op})")?;
                }
                write!(f, "; its data can no longer be read or written")
            }
            Error::NotDonatable { handles, exports } => {
                let others = handles.saturating_sub(1);
                let mut parts = Vec::new();
                if others > 0 {
                    parts.push(format!("{others} other tensor{}", if others == 1 { "" } else { "s" }));
                }
                if *exports > 0 {
                    parts.push(format!("{exports} exported view{}", if *exports == 1 { "" } else { "s" }));
                }
                if parts.is_empty() {
                    write!(f, "buffer is not exclusively held")
                } else {
                    write!(f, "buffer is shared with {}", parts.join(" and "))
                }
            }
            Error::Pinned => write!(f, "buffer is pinned: {PINNED_REASON}"),
            Error::Busy => write!(f, "tensor is being written by another operation"),
            Error::ArenaExhausted { requested, in_use, max_bytes } => write!(
                f,
                "arena budget exceeded: requested {requested} bytes with {in_use} bytes already held, max_bytes={max_bytes}"
            ),
            Error::AllocationFailed { bytes } => {
                write!(f, "failed to allocate {bytes} bytes")
            }
            Error::ShapeOverflow { shape, elem_size } => write!(
                f,
                "shape {} with {elem_size}-byte elements is too large to exist (its size overflows)",
                fmt_shape(shape)
            ),
            Error::InvalidShape { op, shape, reason } => {
                write!(f, "{op}: invalid shape {}: {reason}", fmt_shape(shape))
            }
            Error::InvalidAxis { axis, ndim } => write!(
                f,
                "axis {axis} is out of bounds for a tensor of dimension {ndim}"
            ),
            Error::LengthMismatch { shape, expected, found } => write!(
                f,
                "data of length {found} does not fit shape {} ({expected} elements)",
                fmt_shape(shape)
            ),
            Error::InvalidArgument { op, reason } | Error::InvalidOperand { op, reason } => {
                write!(f, "{op}: {reason}")
            }
            Error::ScalarOutOfRange { value, dtype } => {
                write!(f, "Python integer {value} is out of bounds for {dtype}")
            }
            Error::IndexOutOfRange { index, axis, size } => write!(
                f,
                "index {index} is out of bounds for axis {axis} with size {size}"
            ),
            Error::InvalidIndex { reason } => write!(f, "{reason}"),
            Error::PartialView { shape } => write!(
                f,
                "the tensor of shape {} is a view of part of its buffer or a strided view; only a tensor that covers its whole buffer in C order can be donated",
                fmt_shape(shape)
            ),
            Error::NotContiguous { op } => write!(
                f,
                "{op}: the tensor is a strided view; its elements are not one contiguous slice (use contiguous())"
            ),
            Error::Tracer { op, reason } => write!(f, "{op}: {reason}"),
            Error::LinAlg { op, reason } => write!(f, "{op}: {reason}"),
            Error::EmptyReduction { op, shape } => write!(
                f,
                "{op} of a zero-size tensor of shape {} has no identity",
                fmt_shape(shape)
            ),
        }
    }
}

impl std::error::Error for Error {}
