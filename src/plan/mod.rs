//! Plan, then execute: the one place that decides, for every operation,
//! the result's dtype and shape, every allocation, and which operand's
//! buffer (if any) receives the result.
//!
//! # The model
//!
//! An operation is an [`Op`] applied to operands described by
//! [`OperandDesc`]: a shape, a dtype (or a weak Python-style [`Scalar`]),
//! how the caller offers it ([`Offer`]) and who else holds its buffer
//! ([`Holders`]). [`plan`] is a pure function of those: it validates
//! everything (shapes, axes, dtypes, parameters), and returns a [`Plan`]:
//!
//! * the result's dtype and shape; every tensor operand is read as that
//!   dtype (an operand of another dtype is cast into a new buffer first;
//!   the storage dtype float16 is read as float32 by every operation that
//!   computes, [`storage`]);
//! * the operand whose buffer receives the result ([`Plan::target`]), or
//!   none: the leftmost operand that may receive it (not a parameter),
//!   has the result's shape and dtype, and is either a cast copy or an
//!   offered ([`Offer::Temporary`], [`Offer::Donated`]) buffer with no
//!   other holder that no other operand of the op reads;
//! * every allocation the operation will make ([`Allocation`]): casts,
//!   scratch, the result when no operand receives it;
//! * a reason ([`Refusal`]) for each offered operand that does not
//!   receive the result.
//!
//! [`execute`](crate::driver::execute::execute) then makes every allocation, claims the target's buffer
//! (an atomic transition: the operand becomes *donated*), and computes.
//! Because planning touches no buffer and execution allocates before it
//! claims, an error never leaves an operand half-consumed. If the claim
//! is refused at execution (another holder appeared since planning), the
//! operation computes into a new buffer and the [`Outcome`] says why.
//!
//! A plan is plain data: printable ([`Plan`]'s `Display`), comparable in
//! tests, and the same for every front end. The Python bindings describe
//! operands from the interpreter (a temporary is one only the evaluation
//! stack refers to); the typed Rust API from ownership (`Tensor` by value
//! is a temporary, [`Donated`](crate::Donated) is donated); a tracer can
//! describe them from liveness.
//!
//! # Examples
//!
//! ```
//! use donate::plan::{plan, Holders, Offer, Op, OperandDesc};
//! use donate::{BinaryOp, DType};
//!
//! let a = OperandDesc::tensor(DType::F32, &[2, 3]).offered(Offer::Temporary, Holders::Exclusive);
//! let b = OperandDesc::tensor(DType::F32, &[3]);
//! let p = plan(&Op::Binary(BinaryOp::Add), &[a, b])?;
//! assert_eq!(p.target, Some(0));
//! assert_eq!(p.shape[..], [2, 3]);
//! assert!(p.allocations.is_empty());
//! # Ok::<(), donate::Error>(())
//! ```

mod complex;
mod dtypes;
mod exact_compare;
mod fresh;
mod rules;
mod same_binary;
pub mod storage;
mod target;

use std::fmt;

use smallvec::SmallVec;

use crate::array::dyn_tensor::Scalar;
use crate::array::element::DType;
use crate::array::shape::Dims;
use crate::error::{Error, Result};
use crate::kernels::{BinaryOp, Func, UnaryOp};
use crate::memory::ownership::OwnershipSnapshot;

pub use crate::array::dyn_tensor::check_scalar;
pub use crate::array::layout::Coverage;
pub(crate) use fresh::scalar_tensor as fresh_scalar;
pub use fresh::FreshOp;
pub(crate) use rules::clip_bound;
pub(crate) use rules::permute_axes;
pub use target::check_in_place_cast;

/// How an operand is offered to an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Offer {
    /// Read only: the caller keeps it (`&t`, a named Python tensor).
    #[default]
    Borrowed,
    /// Nobody will read it again (`t` by value, a Python temporary): its
    /// buffer is reused silently when it fits.
    Temporary,
    /// Given away by the caller (`t.donate()`): reused when it fits;
    /// otherwise the refusal is reported (a `DonationWarning` in Python)
    /// and counted as a fallback.
    Donated,
}

/// Who else holds an operand's buffer, as seen when the op is planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Holders {
    /// Nobody: one handle, no exported view.
    #[default]
    Exclusive,
    /// Other handles or exported views.
    Shared { handles: u32, exports: u32 },
    /// An in-place writer, or another thread donating it.
    Busy,
    /// Already moved out.
    Donated,
    /// Pinned: foreign code may read it for as long as it lives.
    Pinned,
}

impl From<OwnershipSnapshot> for Holders {
    fn from(s: OwnershipSnapshot) -> Self {
        if s.donated {
            Holders::Donated
        } else if s.writer {
            Holders::Busy
        } else if s.handles == 1 && s.exports == 0 && s.pinned {
            Holders::Pinned
        } else if s.handles == 1 && s.exports == 0 {
            Holders::Exclusive
        } else {
            Holders::Shared {
                handles: s.handles,
                exports: s.exports,
            }
        }
    }
}

/// What an operand is: a tensor of some dtype (any NumPy dtype a converted
/// operand may have had), or a weak scalar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Tensor(DType),
    Scalar(Scalar),
}

/// One operand as planning sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct OperandDesc<'a> {
    pub kind: Kind,
    pub shape: &'a [usize],
    pub offer: Offer,
    pub holders: Holders,
    /// Operands with the same `id` are the same tensor (the op reads it
    /// more than once, so none of them may receive the result).
    pub id: Option<usize>,
    /// How it covers its buffer.
    pub coverage: Coverage,
}

impl<'a> OperandDesc<'a> {
    /// A borrowed tensor operand.
    pub fn tensor(dtype: impl Into<DType>, shape: &'a [usize]) -> Self {
        OperandDesc {
            kind: Kind::Tensor(dtype.into()),
            shape,
            offer: Offer::Borrowed,
            holders: Holders::Exclusive,
            id: None,
            coverage: Coverage::Whole,
        }
    }

    /// A weak scalar operand.
    pub fn scalar(s: Scalar) -> Self {
        OperandDesc {
            kind: Kind::Scalar(s),
            shape: &[],
            offer: Offer::Borrowed,
            holders: Holders::Exclusive,
            id: None,
            coverage: Coverage::Whole,
        }
    }

    /// With its coverage of its buffer (a view's).
    #[must_use]
    pub fn covering(mut self, coverage: Coverage) -> Self {
        self.coverage = coverage;
        self
    }

    /// Offered with `offer`; `holders` as seen now.
    #[must_use]
    pub fn offered(mut self, offer: Offer, holders: Holders) -> Self {
        self.offer = offer;
        self.holders = holders;
        self
    }

    /// With an identity (see [`id`](Self::id)).
    #[must_use]
    pub fn with_id(mut self, id: usize) -> Self {
        self.id = Some(id);
        self
    }

    /// Why this operand's buffer cannot be given up now, whatever the
    /// operation: other holders, a writer, already donated, or a view of
    /// part of its buffer (`None`: it can).
    #[inline]
    pub fn buffer_refusal(&self) -> Option<Refusal> {
        match self.holders {
            Holders::Exclusive if self.coverage != Coverage::Whole => Some(Refusal::View {
                strided: !self.coverage.is_contiguous(),
            }),
            Holders::Exclusive => None,
            Holders::Shared { handles, exports } => Some(Refusal::Shared { handles, exports }),
            Holders::Busy => Some(Refusal::Busy),
            Holders::Donated => Some(Refusal::Donated),
            Holders::Pinned => Some(Refusal::Pinned),
        }
    }

    /// The tensor dtype this operand is held in (`None` for scalars).
    fn held(&self) -> Option<DType> {
        match self.kind {
            Kind::Tensor(d) => Some(d),
            Kind::Scalar(_) => None,
        }
    }
}

/// The reductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    Sum,
    Mean,
    Max,
}

/// The parameters of [`Op::Statistic`].
#[derive(Debug, Clone, PartialEq)]
pub struct StatisticOp {
    pub statistic: crate::functions::statistics::Statistic,
    /// `None`: every axis.
    pub axes: Option<Vec<isize>>,
    pub keepdims: bool,
}

/// An operation and its non-tensor parameters. Operand order: the input
/// first, then the op's parameters as listed.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// `[x]`.
    Unary(UnaryOp),
    /// `[a, b]`, broadcasting.
    Binary(BinaryOp),
    /// `[x]` or `[a, b]` (broadcasting): an element-wise function of the
    /// array API standard; its [`FuncKind`](crate::kernels::FuncKind)
    /// decides the dtypes (the result may be bool while the operands are
    /// read as another dtype, [`Plan::compute`]).
    Func(Func),
    /// `[a, b]`, NumPy's `matmul`.
    Matmul,
    /// `[input, a, b]`: `input + a @ b` (`a`, `b` by NumPy's `matmul`
    /// rules, `input` broadcast to the product's shape), one pass: the
    /// product is accumulated into a buffer that holds `input`, which may
    /// be `input`'s own (PyTorch's `addmm`, batched).
    Addmm,
    /// `[x]`.
    Reduce {
        kind: Reduction,
        axis: Option<isize>,
        keepdims: bool,
    },
    /// `[x]`, the last axis only.
    Softmax { axis: isize },
    /// `[x, gamma?, beta?]`, over the last axis.
    LayerNorm { eps: f64, gamma: bool, beta: bool },
    /// `[x, weight, bias?]`, NCHW.
    Conv2d {
        stride: usize,
        padding: usize,
        bias: bool,
    },
    /// `[x, mean, var, gamma?, beta?]`, over axis 1.
    BatchNorm { eps: f64, gamma: bool, beta: bool },
    /// `[x]`; one dimension may be `-1`. Shares the buffer; a temporary
    /// or donated exclusive input moves into the result instead.
    Reshape { shape: Vec<i64> },
    /// `[x]`; output axis `i` is input axis `axes[i]` (`None`: reversed).
    /// A view sharing the buffer (as `Reshape`).
    Permute { axes: Option<Vec<isize>> },
    /// `[x]`: the view a basic index selects (ints, slices, new axes, one
    /// ellipsis), sharing the buffer (as `Reshape`).
    Index {
        index: Vec<crate::array::layout::Index>,
    },
    /// `[x, value]`, in place only: `x[index] = value` (`value` broadcast
    /// to the indexed shape and converted to `x`'s dtype, as NumPy's
    /// assignment does); copy-on-write when `x`'s buffer is shared.
    SetItem {
        index: Vec<crate::array::layout::Index>,
    },
    /// `[x, positions, value]`: `x` with the elements at the C-order
    /// `positions` (read as int64, each in `0..x.size`, any shape)
    /// replaced by `value`, broadcast to `positions`' shape and converted
    /// to `x`'s dtype; a repeated position gets the value that comes last
    /// in C order. The result may be written over `x`. Its in-place form
    /// is assignment through integer arrays and the row-per-element form
    /// of boolean masks (`x[idx] = value`): the front end turns the index
    /// into positions, the core reads and writes the target in one update.
    Scatter,
    /// `[condition, x1, x2]`, broadcasting: `x1` where the condition
    /// holds, else `x2`. The condition is read as bool, the values in
    /// their promoted dtype; the result may be written over `x1` or `x2`.
    Where,
    /// `[x, min?, max?]`, broadcasting: `x` clamped to the bounds (NaN in
    /// any operand gives NaN), in `x`'s dtype; the result may be written
    /// over `x`.
    Clip { min: bool, max: bool },
    /// `[x]` converted to `dtype` (always a new buffer).
    Cast { dtype: DType },
    /// `[x]`: sort, running sum or product, roll or triangle
    /// ([`crate::functions::lane_ops`]); the result, of `x`'s shape (but a running
    /// op's `include_initial`), may be written over `x`.
    /// (Boxed: `Roll`'s two `Vec`s would make every `Op`, and every
    /// `Plan`, 16 bytes larger, and each eager call moves its plan.)
    Lane(Box<crate::functions::lane_ops::LaneOp>),
    /// `[x]`: a statistic over any set of axes (`sum`/`prod` in a `dtype`,
    /// `mean`, `max`, `min`, `var`, `std`; [`crate::functions::statistics`]), always a
    /// new buffer. (Single-axis `sum`/`mean`/`max` without a `dtype` are the
    /// [`Op::Reduce`] kernels.) Boxed as `Lane` is.
    Statistic(Box<StatisticOp>),
    /// A function whose result is always a new buffer and depends on the
    /// operands' dtypes and shapes only ([`FreshOp`]: joining, tiling,
    /// gathering, searching, `diff`, linear algebra); each operand is read
    /// as [`FreshOp::read_dtype`] says, strided ones through a C-order
    /// copy. Boxed as `Lane` is.
    Fresh(Box<FreshOp>),
    /// `[q, k, v, mask?]`: `softmax(q·kᵀ·scale + mask)·v` over the last two
    /// axes (`q` `[..., L, E]`, `k` `[..., S, E]`, `v` `[..., S, Ev]`),
    /// fused: the `L×S` scores are never held. `scale` `None`: `1/sqrt(E)`.
    /// The result may be written over `q` (when `Ev == E`).
    Attention {
        causal: bool,
        scale: Option<f64>,
        mask: bool,
    },
}

impl Op {
    /// The name used in messages.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Unary(u) => u.name(),
            Op::Binary(b) => b.name(),
            Op::Func(f) => f.name(),
            Op::Matmul => "matmul",
            Op::Addmm => "addmm",
            Op::Reduce { kind, .. } => match kind {
                Reduction::Sum => "sum",
                Reduction::Mean => "mean",
                Reduction::Max => "max",
            },
            Op::Softmax { .. } => "softmax",
            Op::LayerNorm { .. } => "layer_norm",
            Op::Conv2d { .. } => "conv2d",
            Op::BatchNorm { .. } => "batch_norm",
            Op::Reshape { .. } => "reshape",
            Op::Permute { .. } => "transpose",
            Op::Index { .. } => "__getitem__",
            Op::SetItem { .. } | Op::Scatter => "__setitem__",
            Op::Cast { .. } => "astype",
            Op::Lane(l) => l.name(),
            Op::Statistic(s) => s.statistic.name(),
            Op::Fresh(f) => f.name(),
            Op::Where => "where",
            Op::Clip { .. } => "clip",
            Op::Attention { .. } => "scaled_dot_product_attention",
        }
    }

    /// Whether the op's result is a view of its input's buffer (reshape,
    /// transpose, basic index), or, when the input is a temporary or
    /// donated and covers its buffer, the buffer itself moved into the
    /// result.
    pub fn is_view(&self) -> bool {
        matches!(
            self,
            Op::Reshape { .. } | Op::Permute { .. } | Op::Index { .. }
        )
    }

    /// Whether the op only moves elements, or writes a constant, without
    /// computing with them: views, copies, casts, selections,
    /// assignments, concatenations and fills. These take every dtype as
    /// it is (the storage dtype float16 and the complex ones too).
    pub fn moves_only(&self) -> bool {
        match self {
            Op::Reshape { .. }
            | Op::Permute { .. }
            | Op::Index { .. }
            | Op::Cast { .. }
            | Op::Where
            | Op::Scatter
            | Op::SetItem { .. } => true,
            Op::Lane(l) => l.moves_elements(),
            Op::Fresh(f) => f.moves_only(),
            _ => false,
        }
    }

    /// Whether the op reads its input's values (a fill, `zeros_like` and
    /// the like, does not: its input is neither cast nor gathered).
    pub fn reads_input(&self) -> bool {
        !matches!(self, Op::Lane(l) if matches!(**l, crate::functions::lane_ops::LaneOp::Fill { .. }))
    }

    /// How many operands the op takes.
    pub fn arity(&self) -> usize {
        match self {
            Op::Binary(_) | Op::Matmul | Op::SetItem { .. } => 2,
            Op::Func(f) => f.arity(),
            Op::Addmm | Op::Where | Op::Scatter => 3,
            Op::Clip { min, max } => 1 + usize::from(*min) + usize::from(*max),
            Op::LayerNorm { gamma, beta, .. } => 1 + usize::from(*gamma) + usize::from(*beta),
            Op::Conv2d { bias, .. } => 2 + usize::from(*bias),
            Op::BatchNorm { gamma, beta, .. } => 3 + usize::from(*gamma) + usize::from(*beta),
            Op::Attention { mask, .. } => 3 + usize::from(*mask),
            Op::Fresh(f) => f.arity(),
            _ => 1,
        }
    }

    /// The role of operand `i`, for messages ("the input", "gamma").
    pub fn label(&self, i: usize) -> &'static str {
        let params: &[&'static str] = match self {
            Op::Binary(_) | Op::Matmul => {
                return ["the left operand", "the right operand"][i.min(1)]
            }
            Op::Func(f) if f.arity() == 2 => {
                return ["the left operand", "the right operand"][i.min(1)]
            }
            Op::Attention { .. } => {
                return ["the query", "the key", "the value", "the mask"][i.min(3)]
            }
            Op::SetItem { .. } => return ["the target", "the value"][i.min(1)],
            Op::Scatter => return ["the target", "the positions", "the value"][i.min(2)],
            Op::Fresh(f) => return f.label(i),
            Op::Where => return ["the condition", "the first value", "the second value"][i.min(2)],
            Op::Clip { min, .. } => match (i, min) {
                (0, _) => return "the input",
                (1, true) => return "min",
                _ => return "max",
            },
            Op::LayerNorm { gamma, beta, .. } => match (gamma, beta) {
                (true, true) => &["gamma", "beta"],
                (true, false) => &["gamma"],
                _ => &["beta"],
            },
            Op::Conv2d { .. } => &["the weight", "the bias"],
            Op::Addmm => &["the left factor", "the right factor"],
            Op::BatchNorm { gamma, beta, .. } => match (gamma, beta) {
                (true, true) => &["mean", "var", "gamma", "beta"],
                (true, false) => &["mean", "var", "gamma"],
                (false, true) => &["mean", "var", "beta"],
                _ => &["mean", "var"],
            },
            _ => &[],
        };
        match i {
            0 => "the input",
            _ => params.get(i - 1).copied().unwrap_or("an operand"),
        }
    }
}

/// Why an allocation is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The result (no operand receives it, or an in-place op copies on write).
    Result,
    /// Operand `i` converted to the plan's dtype.
    Cast(usize),
    /// Operand `i`, a strided view, copied into C order.
    Gather(usize),
    /// Working memory of the kernel.
    Scratch,
}

/// One allocation an operation makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allocation {
    pub purpose: Purpose,
    pub bytes: usize,
}

/// What an operation will do. See the [module docs](self).
///
/// Its lists are inline for the sizes of ordinary operations (up to five
/// operands, two casts, refusals or allocations), so planning a small
/// eager op makes no heap allocation.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub op: Op,
    /// The result's dtype.
    pub dtype: DType,
    /// The dtype every tensor operand is read as: the result's, except
    /// for functions with a bool result ([`Op::Func`]).
    pub compute: DType,
    pub shape: Dims,
    /// How each operand was offered.
    pub offers: SmallVec<[Offer; 5]>,
    /// Operands converted to `dtype` first (a new buffer each).
    pub casts: SmallVec<[usize; 2]>,
    /// Strided operands copied into C order first (a new buffer each),
    /// for kernels that read contiguous data. (Operand indices as `u8`:
    /// an op has at most five operands, and the plan of every eager call
    /// is moved a few times, so it is kept small.)
    pub gathers: SmallVec<[u8; 6]>,
    /// The operand whose buffer receives the result.
    pub target: Option<usize>,
    /// Offered operands that do not receive the result, and why.
    pub refusals: SmallVec<[(usize, Refusal); 2]>,
    pub allocations: SmallVec<[Allocation; 2]>,
    /// An in-place plan: operand 0 is updated (copy-on-write if shared).
    pub in_place: bool,
    /// An exact comparison of integers (see `exact_compare`): the
    /// operands are compared as `i128`s, a uint64 tensor read as it is
    /// ([`Plan::read_dtype`]), narrower ones through their int64
    /// casts, a Python int as its value.
    pub exact: bool,
}

// Every eager call moves its plan a few times: keep `Op` (and so `Plan`)
// small; a large variant's payload goes in a `Box` (`Op::Lane`).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Op>() <= 32);

impl Plan {
    /// The dtype operand `i` is read as: `where`'s condition as bool, a
    /// function of [`Op::Fresh`]'s operands as [`FreshOp::read_dtype`]
    /// says, every other operand as [`Plan::compute`].
    ///
    /// `held` is the operand's own dtype (a function of `Op::Fresh` that
    /// says nothing reads it as that), and the storage dtype float16 is
    /// read as float32 by every op that computes ([`storage`]).
    pub fn read_dtype(&self, i: usize, held: DType) -> DType {
        let read = match &self.op {
            // An exact comparison reads a uint64 tensor as it is.
            _ if self.exact && held == DType::U64 => held,
            Op::Where if i == 0 => DType::Bool,
            Op::Scatter if i == 1 => DType::I64,
            Op::Fresh(f) => f.read_dtype(i, self.dtype).unwrap_or(held),
            _ => self.compute,
        };
        storage::read_as(&self.op, read)
    }

    /// Whether operand `i` is read through the op's own copy (a cast, or a
    /// strided view copied into C order): when that copy receives the
    /// result, no caller's buffer is reused, and the caller's tensor is
    /// never claimed.
    pub fn is_own_copy(&self, i: usize) -> bool {
        self.casts.contains(&i) || self.gathers.iter().any(|&g| usize::from(g) == i)
    }

    /// Bytes the plan allocates.
    pub fn allocated_bytes(&self) -> usize {
        self.allocations.iter().map(|a| a.bytes).sum()
    }

    /// The outcome planned (before any claim).
    pub fn planned_outcome(&self) -> Outcome {
        Outcome {
            reused: self.target,
            refused: self.refusals.to_vec(),
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims: Vec<String> = self.shape.iter().map(ToString::to_string).collect();
        write!(f, "{}: {}[{}]", self.op.name(), self.dtype, dims.join(","))?;
        match (self.in_place, self.target) {
            (true, _) => write!(f, " in place over {}", self.op.label(0))?,
            (false, Some(i)) => write!(f, " written over {}", self.op.label(i))?,
            (false, None) => write!(f, " into a new buffer")?,
        }
        for a in &self.allocations {
            match a.purpose {
                Purpose::Result => write!(f, "; allocates {} B for the result", a.bytes)?,
                Purpose::Cast(i) => write!(f, "; casts {} ({} B)", self.op.label(i), a.bytes)?,
                Purpose::Gather(i) => {
                    write!(
                        f,
                        "; copies {} into C order ({} B)",
                        self.op.label(i),
                        a.bytes
                    )?;
                }
                Purpose::Scratch => write!(f, "; {} B of scratch", a.bytes)?,
            }
        }
        for (i, r) in &self.refusals {
            write!(f, "; {} not used: {r}", self.op.label(*i))?;
        }
        Ok(())
    }
}

/// Why an offered buffer was not used for the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Other tensors or exported views share it.
    Shared { handles: u32, exports: u32 },
    /// An in-place writer holds it.
    Busy,
    /// It was already moved out.
    Donated,
    /// Foreign code may read its memory for as long as it lives
    /// ([`OwnershipState::pin`](crate::OwnershipState::pin)).
    Pinned,
    /// The result has another shape.
    Shape {
        operand: Vec<usize>,
        result: Vec<usize>,
    },
    /// The other operand's buffer was used instead.
    OtherOperandUsed,
    /// This op never writes into its input (reductions, matmul).
    NewBuffer(&'static str),
    /// The operand is a parameter of this op (a convolution's weight),
    /// which only ever writes into its input.
    Parameter(&'static str),
    /// The result has another dtype (type promotion).
    DType { operand: DType, result: DType },
    /// The same tensor is also another operand of the operation, which
    /// still reads it.
    SameTensor,
    /// An in-place operation writes its result into its target, never
    /// into another operand.
    InPlaceTarget(&'static str),
    /// The operand is a view of part of its buffer, or a strided view:
    /// only a tensor that covers its whole buffer in C order gives it.
    View { strided: bool },
    /// The result is of the storage dtype (float16): computed in float32
    /// first, it is rounded into a new buffer.
    Storage(DType),
    /// Donated inside a traced function, but not one of its arguments (a
    /// captured tensor, or one made while tracing): the program holds it
    /// as a constant and reads it on every call.
    Captured,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Shared { handles, exports } => {
                write!(
                    f,
                    "{}",
                    Error::NotDonatable {
                        handles: *handles,
                        exports: *exports
                    }
                )
            }
            Refusal::Busy => write!(f, "it is being written by another operation"),
            Refusal::Captured => write!(
                f,
                "it is not an argument of the traced function, so the program holds it as a constant and reads \
                 it on every call (pass it as an argument named by donate_argnums to donate it)"
            ),
            Refusal::Donated => write!(f, "it was already donated"),
            Refusal::Pinned => write!(f, "{}", crate::error::PINNED_REASON),
            Refusal::Storage(d) => write!(
                f,
                "{d} is a storage dtype: the result is computed in {} before it is rounded to {d}",
                d.computed_as()
            ),
            Refusal::Shape { operand, result } => write!(
                f,
                "its shape {operand:?} differs from the result's shape {result:?}"
            ),
            Refusal::OtherOperandUsed => write!(f, "the other operand's buffer was used instead"),
            Refusal::NewBuffer(op) => write!(f, "{op} always writes a new buffer"),
            Refusal::Parameter(op) => write!(
                f,
                "{op} only writes into its input, never into this operand"
            ),
            Refusal::DType { operand, result } => {
                write!(
                    f,
                    "its dtype {operand} differs from the result's dtype {result}"
                )
            }
            Refusal::SameTensor => write!(
                f,
                "the same tensor is also another operand of this operation"
            ),
            Refusal::View { strided: false } => write!(
                f,
                "it is a view of part of its buffer; only a tensor that covers its whole buffer can give it"
            ),
            Refusal::View { strided: true } => write!(
                f,
                "it is a strided view; only a tensor that covers its whole buffer in C order can give it"
            ),
            Refusal::InPlaceTarget(op) => write!(
                f,
                "{op} writes its result into its target in place, never into this operand"
            ),
        }
    }
}

/// What an operation did with the buffers offered to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Index of the operand whose buffer holds the result, if any.
    pub reused: Option<usize>,
    /// Operands offered (`Owned`) but not used, with the reason.
    pub refused: Vec<(usize, Refusal)>,
}

/// Plan `op` over `operands`. See the [module docs](self).
pub fn plan(op: &Op, operands: &[OperandDesc<'_>]) -> Result<Plan> {
    rules::plan(op, operands, false)
}

/// The dtype operands of these dtypes (tensors, or weak Python scalars)
/// promote to, as an element-wise operation decides it (the array API's
/// `result_type`).
pub fn result_type(operands: &[OperandDesc<'_>]) -> Result<DType> {
    dtypes::common_dtype(&Op::Binary(BinaryOp::Add), operands).map_err(|e| match e {
        Error::InvalidOperand { reason, .. } => Error::InvalidArgument {
            op: "result_type",
            reason,
        },
        e => e,
    })
}

/// Plan `op` in place over operand 0 (its target): the result must keep
/// its shape and dtype; the other operands are only read. Supported for
/// [`Op::Unary`], [`Op::Binary`], [`Op::BatchNorm`] and [`Op::SetItem`].
pub fn plan_in_place(op: &Op, operands: &[OperandDesc<'_>]) -> Result<Plan> {
    rules::plan(op, operands, true)
}
