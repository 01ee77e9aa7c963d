//! The functions whose result is always a new buffer ([`Op::Fresh`]):
//! joining, tiling and gathering (`concat`, `stack`, `tile`, `repeat`,
//! `broadcast_to`, `take`, `take_along_axis`, `meshgrid`), searching
//! (`argmax`, `argmin`, `count_nonzero`, `searchsorted`, `argsort`),
//! `diff`, `bincount` ([`crate::functions::counting`]), linear algebra ([`crate::functions::linalg::LinalgOp`]) and
//! the Fourier transforms ([`crate::functions::fft::FftOp`]).
//!
//! Each is a *family*: a signature step that decides the result's dtype
//! and shape from the operands' dtypes and shapes alone ([`Meta`]: a
//! tracer has nothing more), and a run step, the core function of its
//! module, which starts from the same signature function (so the two
//! cannot disagree). The planner treats them alike: an operand the
//! function reads in another dtype ([`FreshOp::read_dtype`]: `concat`'s
//! promotion, `take`'s int64 indices) is cast first, a strided one copied
//! into C order first, both as planned allocations, so that the function
//! itself allocates nothing but its result and a traced program's
//! measured peak is its planned one; no operand receives the result
//! ([`Refusal::NewBuffer`](super::Refusal::NewBuffer) for an offered one);
//! and `donate.jit` traces them as any other op.
//!
//! A Python number among the operands (a `rtol=` of `pinv`) is a 0-d
//! tensor of its own dtype ([`Scalar::tensor_dtype`]).
//!
//! A function with several results (`meshgrid`, `linalg.eigh`, ...) is one
//! op per result, named by its `part`; see [`FreshOp::parts`].
//!
//! [`Op::Fresh`]: super::Op::Fresh

use crate::array::dyn_tensor::{DynTensor, Meta, Scalar};
use crate::array::element::DType;
use crate::error::{Error, Result};
use crate::functions::counting;
use crate::functions::cumulative;
use crate::functions::fft::FftOp;
use crate::functions::linalg::LinalgOp;
use crate::functions::manipulation;
use crate::functions::searching::{self, Extreme, Side};
use crate::functions::sorting;
use crate::py_repr::{py_bool, tuple};

/// A function whose result is always a new buffer, with its parameters.
/// Operand order: as the Python function takes them.
#[derive(Debug, Clone, PartialEq)]
pub enum FreshOp {
    /// `[x_1, ..., x_n]`.
    Concat { axis: Option<isize>, n: usize },
    /// `[x_1, ..., x_n]`.
    Stack { axis: isize, n: usize },
    /// `[x]`: a copy of `x` repeated to `shape`.
    BroadcastTo { shape: Vec<usize> },
    /// `[x]`.
    Tile { reps: Vec<usize> },
    /// `[x]`: `repeats` one count, or one per element along the axis.
    Repeat {
        repeats: Vec<usize>,
        axis: Option<isize>,
    },
    /// `[x, indices]`.
    Take { axis: Option<isize> },
    /// `[x, indices]`.
    TakeAlongAxis { axis: isize },
    /// `[x_1, ..., x_n]`: result `part`, `x_part` spread over the grid.
    Meshgrid { n: usize, xy: bool, part: usize },
    /// `[x]`: `argmax` or `argmin`.
    ArgExtreme {
        extreme: Extreme,
        axis: Option<isize>,
        keepdims: bool,
    },
    /// `[x]`.
    CountNonzero {
        axes: Option<Vec<isize>>,
        keepdims: bool,
    },
    /// `[x1, x2, sorter?]`.
    Searchsorted { side: Side, sorter: bool },
    /// `[x]`.
    Argsort { axis: isize, descending: bool },
    /// `[x, prepend?, append?]`.
    Diff {
        axis: isize,
        n: usize,
        prepend: bool,
        append: bool,
    },
    /// `[x, weights?]`: NumPy's `bincount` with its length given.
    Bincount { length: usize, weighted: bool },
    /// A function of `donate.linalg`.
    Linalg(LinalgOp),
    /// `[x]`: a transform of `donate.fft`.
    Fft(FftOp),
}

impl FreshOp {
    /// The name used in messages.
    pub fn name(&self) -> &'static str {
        match self {
            FreshOp::Concat { .. } => "concat",
            FreshOp::Stack { .. } => "stack",
            FreshOp::BroadcastTo { .. } => "broadcast_to",
            FreshOp::Tile { .. } => "tile",
            FreshOp::Repeat { .. } => "repeat",
            FreshOp::Take { .. } => "take",
            FreshOp::TakeAlongAxis { .. } => "take_along_axis",
            FreshOp::Meshgrid { .. } => "meshgrid",
            FreshOp::ArgExtreme { extreme, .. } => extreme.name(),
            FreshOp::CountNonzero { .. } => "count_nonzero",
            FreshOp::Searchsorted { .. } => "searchsorted",
            FreshOp::Argsort { .. } => "argsort",
            FreshOp::Diff { .. } => "diff",
            FreshOp::Bincount { .. } => "bincount",
            FreshOp::Linalg(l) => l.name(),
            FreshOp::Fft(f) => f.name(),
        }
    }

    /// How many operands it takes.
    pub fn arity(&self) -> usize {
        match self {
            FreshOp::Concat { n, .. } | FreshOp::Stack { n, .. } | FreshOp::Meshgrid { n, .. } => {
                *n
            }
            FreshOp::Take { .. } | FreshOp::TakeAlongAxis { .. } => 2,
            FreshOp::Searchsorted { sorter, .. } => 2 + usize::from(*sorter),
            FreshOp::Bincount { weighted, .. } => 1 + usize::from(*weighted),
            FreshOp::Diff {
                prepend, append, ..
            } => 1 + usize::from(*prepend) + usize::from(*append),
            FreshOp::Linalg(l) => l.arity(),
            _ => 1,
        }
    }

    /// The role of operand `i`, for messages.
    pub fn label(&self, i: usize) -> &'static str {
        match (self, i) {
            (FreshOp::Take { .. } | FreshOp::TakeAlongAxis { .. }, 1) => "the indices",
            (FreshOp::Searchsorted { .. }, 0) => "x1",
            (FreshOp::Searchsorted { .. }, 1) => "x2",
            (FreshOp::Searchsorted { .. }, _) => "the sorter",
            (FreshOp::Diff { prepend: true, .. }, 1) => "prepend",
            (FreshOp::Diff { .. }, 1 | 2) => "append",
            (FreshOp::Bincount { .. }, 1) => "the weights",
            (FreshOp::Linalg(l), i) => l.label(i),
            (_, 0) => "the input",
            _ => "an operand",
        }
    }

    /// How many results the function has: this op computes one of them
    /// (its `part`), and the bindings call one op per result.
    pub fn parts(&self) -> usize {
        match self {
            FreshOp::Meshgrid { n, .. } => *n,
            FreshOp::Linalg(l) => l.parts(),
            _ => 1,
        }
    }

    /// The dtype operand `i` is read as, when the function converts it
    /// (`None`: as it is held). The planner casts it first ([`Plan::casts`],
    /// an allocation it accounts for), so the function itself allocates
    /// nothing but its result; for the same reason every strided operand
    /// is copied into C order first ([`Plan::gathers`]).
    ///
    /// [`Plan::casts`]: super::Plan::casts
    /// [`Plan::gathers`]: super::Plan::gathers
    pub fn read_dtype(&self, i: usize, result: DType) -> Option<DType> {
        match self {
            // (A meshgrid result is its input's dtype: each read as held.)
            FreshOp::Concat { .. } | FreshOp::Stack { .. } | FreshOp::Diff { .. } => Some(result),
            FreshOp::Take { .. } | FreshOp::TakeAlongAxis { .. } => (i == 1).then_some(DType::I64),
            FreshOp::Bincount { weighted, .. } => Some(if i == 0 || !*weighted {
                DType::I64
            } else {
                result
            }),
            FreshOp::Linalg(l) => l.read_dtype(i, result),
            FreshOp::Fft(f) => f.read_dtype(result),
            _ => None,
        }
    }

    /// Whether it only moves elements (concatenations, stacks, tiles,
    /// repeats, broadcasts, gathers), for every dtype as it is.
    pub fn moves_only(&self) -> bool {
        matches!(
            self,
            FreshOp::Concat { .. }
                | FreshOp::Meshgrid { .. }
                | FreshOp::Stack { .. }
                | FreshOp::BroadcastTo { .. }
                | FreshOp::Tile { .. }
                | FreshOp::Repeat { .. }
                | FreshOp::Take { .. }
                | FreshOp::TakeAlongAxis { .. }
        )
    }

    /// Whether running it can fail on the operands' values (an index out
    /// of range, a singular matrix), not only on their dtypes and shapes.
    /// A traced program keeps every donated argument's buffer intact
    /// until the last such op has run, so that a failure returns them.
    pub fn fails_on_values(&self) -> bool {
        match self {
            FreshOp::Take { .. } | FreshOp::TakeAlongAxis { .. } | FreshOp::Bincount { .. } => true,
            FreshOp::Searchsorted { sorter, .. } => *sorter,
            FreshOp::Linalg(l) => l.fails_on_values(),
            _ => false,
        }
    }

    /// The result's dtype and shape (every check that needs no value).
    pub fn signature(&self, o: &[Meta<'_>]) -> Result<(DType, Vec<usize>)> {
        self.check_arity(o.len())?;
        match self {
            FreshOp::Concat { axis, .. } => manipulation::concat_signature(o, *axis),
            FreshOp::Stack { axis, .. } => manipulation::stack_signature(o, *axis),
            FreshOp::BroadcastTo { shape } => manipulation::broadcast_to_signature(o[0], shape),
            FreshOp::Tile { reps } => manipulation::tile_signature(o[0], reps),
            FreshOp::Repeat { repeats, axis } => {
                manipulation::repeat_signature(o[0], repeats, *axis)
            }
            FreshOp::Take { axis } => manipulation::take_signature(o[0], o[1], *axis),
            FreshOp::TakeAlongAxis { axis } => {
                manipulation::take_along_axis_signature(o[0], o[1], *axis)
            }
            FreshOp::Meshgrid { xy, part, .. } => manipulation::meshgrid_signature(o, *xy, *part),
            FreshOp::ArgExtreme {
                extreme,
                axis,
                keepdims,
            } => searching::arg_extreme_signature(o[0], *extreme, *axis, *keepdims),
            FreshOp::CountNonzero { axes, keepdims } => {
                searching::count_nonzero_signature(o[0], axes.as_deref(), *keepdims)
            }
            FreshOp::Searchsorted { .. } => {
                searching::searchsorted_signature(o[0], o[1], o.get(2).copied())
            }
            FreshOp::Argsort { axis, .. } => sorting::argsort_signature(o[0], *axis),
            FreshOp::Diff {
                axis,
                n,
                prepend,
                append,
            } => {
                let (p, a) = diff_extras(o, *prepend, *append);
                cumulative::diff_signature(o[0], *axis, *n, p, a)
            }
            FreshOp::Bincount { length, .. } => {
                counting::bincount_signature(o[0], o.get(1).copied(), *length)
            }
            FreshOp::Linalg(l) => l.signature(o),
            FreshOp::Fft(f) => f.signature(o[0]),
        }
    }

    /// Compute the result from the operands.
    pub fn run(&self, x: &[&DynTensor]) -> Result<DynTensor> {
        self.check_arity(x.len())?;
        match self {
            FreshOp::Concat { axis, .. } => manipulation::concat(x, *axis),
            FreshOp::Stack { axis, .. } => manipulation::stack(x, *axis),
            FreshOp::BroadcastTo { shape } => manipulation::broadcast_to(x[0], shape),
            FreshOp::Tile { reps } => manipulation::tile(x[0], reps),
            FreshOp::Repeat { repeats, axis } => manipulation::repeat(x[0], repeats, *axis),
            FreshOp::Take { axis } => manipulation::take(x[0], x[1], *axis),
            FreshOp::TakeAlongAxis { axis } => manipulation::take_along_axis(x[0], x[1], *axis),
            FreshOp::Meshgrid { xy, part, .. } => manipulation::meshgrid_part(x, *xy, *part),
            FreshOp::ArgExtreme {
                extreme,
                axis,
                keepdims,
            } => searching::arg_extreme(x[0], *extreme, *axis, *keepdims),
            FreshOp::CountNonzero { axes, keepdims } => {
                searching::count_nonzero(x[0], axes.as_deref(), *keepdims)
            }
            FreshOp::Searchsorted { side, .. } => {
                searching::searchsorted(x[0], x[1], *side, x.get(2).copied())
            }
            FreshOp::Argsort { axis, descending } => sorting::argsort(x[0], *axis, *descending),
            FreshOp::Diff {
                axis,
                n,
                prepend,
                append,
            } => {
                let (p, a) = diff_extras(x, *prepend, *append);
                cumulative::diff(x[0], *axis, *n, p, a)
            }
            FreshOp::Bincount { length, .. } => {
                counting::bincount(x[0], x.get(1).copied(), *length)
            }
            FreshOp::Linalg(l) => l.run(x),
            FreshOp::Fft(f) => f.run(x[0]),
        }
    }

    /// The parameters as a printed program shows them (`name=value`).
    pub fn params(&self) -> Vec<String> {
        let opt = |a: &Option<isize>| a.map_or("None".to_string(), |a| a.to_string());
        match self {
            FreshOp::Concat { axis, .. } | FreshOp::Take { axis } => {
                vec![format!("axis={}", opt(axis))]
            }
            FreshOp::Stack { axis, .. } | FreshOp::TakeAlongAxis { axis } => {
                vec![format!("axis={axis}")]
            }
            FreshOp::BroadcastTo { shape } => vec![format!("shape={}", tuple(shape))],
            FreshOp::Tile { reps } => vec![format!("reps={}", tuple(reps))],
            FreshOp::Repeat { repeats, axis } => vec![
                format!("repeats={}", tuple(repeats)),
                format!("axis={}", opt(axis)),
            ],
            FreshOp::Meshgrid { xy, part, .. } => vec![
                format!("indexing={}", if *xy { "xy" } else { "ij" }),
                format!("part={part}"),
            ],
            FreshOp::ArgExtreme { axis, keepdims, .. } => vec![
                format!("axis={}", opt(axis)),
                format!("keepdims={}", py_bool(*keepdims)),
            ],
            FreshOp::CountNonzero { axes, keepdims } => vec![
                format!("axes={}", axes.as_deref().map_or("None".into(), tuple)),
                format!("keepdims={}", py_bool(*keepdims)),
            ],
            FreshOp::Searchsorted { side, .. } => vec![format!(
                "side={}",
                match side {
                    Side::Left => "left",
                    Side::Right => "right",
                }
            )],
            FreshOp::Argsort { axis, descending } => vec![
                format!("axis={axis}"),
                format!("descending={}", py_bool(*descending)),
            ],
            FreshOp::Diff { axis, n, .. } => vec![format!("axis={axis}"), format!("n={n}")],
            FreshOp::Bincount { length, .. } => vec![format!("length={length}")],
            FreshOp::Linalg(l) => l.params(),
            FreshOp::Fft(f) => f.params(),
        }
    }

    /// Every result of the function this op is one result of, in order
    /// (its one result for a function of one).
    pub fn run_all(&self, x: &[&DynTensor]) -> Result<Vec<DynTensor>> {
        self.check_arity(x.len())?;
        match self {
            FreshOp::Meshgrid { xy, .. } => manipulation::meshgrid(x, *xy),
            FreshOp::Linalg(l) => l.run_all(x),
            _ => Ok(vec![self.run(x)?]),
        }
    }

    fn check_arity(&self, n: usize) -> Result<()> {
        if n == self.arity() && n > 0 {
            Ok(())
        } else if n == 0 {
            Err(Error::InvalidArgument {
                op: self.name(),
                reason: "needs at least one tensor".into(),
            })
        } else {
            Err(Error::InvalidArgument {
                op: self.name(),
                reason: format!("takes {} operands, got {n}", self.arity()),
            })
        }
    }
}

/// `diff`'s `prepend` and `append` among its operands.
fn diff_extras<T: Copy>(o: &[T], prepend: bool, append: bool) -> (Option<T>, Option<T>) {
    let p = prepend.then(|| o[1]);
    let a = append.then(|| o[1 + usize::from(prepend)]);
    (p, a)
}

/// A Python number operand as the 0-d tensor the functions read.
pub(crate) fn scalar_tensor(s: Scalar) -> Result<DynTensor> {
    DynTensor::full(s.tensor_dtype(), &[], s)
}
