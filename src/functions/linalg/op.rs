//! The linear algebra functions as planned operations
//! ([`crate::plan::FreshOp::Linalg`]): each function's parameters, its
//! signature step (dtype and shape from the operands' [`Meta`]) and its run
//! step (the function of this module, which starts from the same
//! signature).

use super::decompose::{
    cholesky_signature, det_signature, eigh_signature, eigvalsh_signature, inv_signature,
    qr_signature, slogdet_signature, solve_signature,
};
use super::eigen::{eig_signature, eigvals_signature};
use super::norms::{matrix_norm_signature, vector_norm_signature};
use super::products::{
    cross_signature, diagonal_signature, matrix_power_signature, outer_signature,
    tensordot_signature, trace_signature, vecdot_signature,
};
use super::svd::{matrix_rank_signature, pinv_signature, svd_signature, svdvals_signature};
use super::{MatrixOrd, TensordotAxes};
use crate::array::dyn_tensor::{DynTensor, Meta};
use crate::array::element::DType;
use crate::error::{Error, Result};
use crate::py_repr::{py_bool, py_float, tuple};

/// A function of `donate.linalg` (and `tensordot`, `vecdot`), with its
/// parameters. Operand order: as the Python function takes them.
#[derive(Debug, Clone, PartialEq)]
pub enum LinalgOp {
    /// `[x1, x2]`.
    Tensordot { axes: TensordotAxes },
    /// `[x1, x2]`.
    Vecdot { axis: isize },
    /// `[x1, x2]`.
    Cross { axis: isize },
    /// `[x1, x2]`.
    Outer,
    /// `[x1, x2]`.
    Solve,
    /// `[x]`.
    Cholesky { upper: bool },
    /// `[x]`.
    Det,
    /// `[x]`.
    Diagonal { offset: isize },
    /// `[x]`.
    Eigvalsh,
    /// `[x]`.
    Eigvals,
    /// `[x]`.
    Inv,
    /// `[x]`.
    MatrixPower { n: i64 },
    /// `[x]`.
    Svdvals,
    /// `[x]`.
    Trace { offset: isize, dtype: Option<DType> },
    /// `[x]`.
    VectorNorm {
        axes: Option<Vec<isize>>,
        keepdims: bool,
        ord: f64,
    },
    /// `[x]`.
    MatrixNorm { keepdims: bool, ord: MatrixOrd },
    /// `[x, rtol?]`.
    MatrixRank { rtol: bool },
    /// `[x, rtol?]`.
    Pinv { rtol: bool },
    /// `[x]`: result `part` of `(eigenvalues, eigenvectors)`.
    Eigh { part: usize },
    /// `[x]`: result `part` of `(eigenvalues, eigenvectors)`, complex.
    Eig { part: usize },
    /// `[x]`: result `part` of `(Q, R)`.
    Qr { complete: bool, part: usize },
    /// `[x]`: result `part` of `(sign, logabsdet)`.
    Slogdet { part: usize },
    /// `[x]`: result `part` of `(U, S, Vh)`.
    Svd { full_matrices: bool, part: usize },
}

impl LinalgOp {
    /// The name used in messages.
    pub fn name(&self) -> &'static str {
        match self {
            LinalgOp::Tensordot { .. } => "tensordot",
            LinalgOp::Vecdot { .. } => "vecdot",
            LinalgOp::Cross { .. } => "linalg.cross",
            LinalgOp::Outer => "linalg.outer",
            LinalgOp::Solve => "linalg.solve",
            LinalgOp::Cholesky { .. } => "linalg.cholesky",
            LinalgOp::Det => "linalg.det",
            LinalgOp::Diagonal { .. } => "linalg.diagonal",
            LinalgOp::Eigvalsh => "linalg.eigvalsh",
            LinalgOp::Eigvals => "linalg.eigvals",
            LinalgOp::Inv => "linalg.inv",
            LinalgOp::MatrixPower { .. } => "linalg.matrix_power",
            LinalgOp::Svdvals => "linalg.svdvals",
            LinalgOp::Trace { .. } => "linalg.trace",
            LinalgOp::VectorNorm { .. } => "linalg.vector_norm",
            LinalgOp::MatrixNorm { .. } => "linalg.matrix_norm",
            LinalgOp::MatrixRank { .. } => "linalg.matrix_rank",
            LinalgOp::Pinv { .. } => "linalg.pinv",
            LinalgOp::Eigh { .. } => "linalg.eigh",
            LinalgOp::Eig { .. } => "linalg.eig",
            LinalgOp::Qr { .. } => "linalg.qr",
            LinalgOp::Slogdet { .. } => "linalg.slogdet",
            LinalgOp::Svd { .. } => "linalg.svd",
        }
    }

    /// How many operands it takes.
    pub fn arity(&self) -> usize {
        match self {
            LinalgOp::Tensordot { .. }
            | LinalgOp::Vecdot { .. }
            | LinalgOp::Cross { .. }
            | LinalgOp::Outer
            | LinalgOp::Solve => 2,
            LinalgOp::MatrixRank { rtol } | LinalgOp::Pinv { rtol } => 1 + usize::from(*rtol),
            _ => 1,
        }
    }

    /// The role of operand `i`, for messages.
    pub fn label(&self, i: usize) -> &'static str {
        match (self.arity(), i) {
            (_, 0) if matches!(self, LinalgOp::MatrixRank { .. } | LinalgOp::Pinv { .. }) => {
                "the input"
            }
            (_, _) if matches!(self, LinalgOp::MatrixRank { .. } | LinalgOp::Pinv { .. }) => "rtol",
            (2, 0) => "x1",
            (2, _) => "x2",
            _ => "the input",
        }
    }

    /// The dtype operand `i` is read as, when the function converts it
    /// (see [`FreshOp::read_dtype`](crate::plan::FreshOp::read_dtype)):
    /// the sums of products compute in their result's dtype; the others
    /// read their inputs as they are (the decompositions take float inputs
    /// only, `rtol` is read as a number).
    pub fn read_dtype(&self, i: usize, result: DType) -> Option<DType> {
        match self {
            LinalgOp::Tensordot { .. }
            | LinalgOp::Vecdot { .. }
            | LinalgOp::Cross { .. }
            | LinalgOp::Outer
            | LinalgOp::Solve
            | LinalgOp::MatrixPower { .. }
            | LinalgOp::Trace { .. } => Some(result),
            _ => {
                let _ = i;
                None
            }
        }
    }

    /// How many results the function has (see
    /// [`FreshOp::parts`](crate::plan::FreshOp::parts)).
    pub fn parts(&self) -> usize {
        match self {
            LinalgOp::Eigh { .. }
            | LinalgOp::Eig { .. }
            | LinalgOp::Qr { .. }
            | LinalgOp::Slogdet { .. } => 2,
            LinalgOp::Svd { .. } => 3,
            _ => 1,
        }
    }

    /// Whether running it can fail on the operands' values (see
    /// [`FreshOp::fails_on_values`](crate::plan::FreshOp::fails_on_values)).
    /// Every other error is one of dtypes and shapes, which
    /// [`signature`](Self::signature) raises.
    #[allow(clippy::match_same_arms)] // one arm (and comment) per value error
    pub fn fails_on_values(&self) -> bool {
        match self {
            // A singular matrix (an LU pivot of zero): "the matrix is
            // singular" (every value error is an `Error::LinAlg`).
            LinalgOp::Solve | LinalgOp::Inv => true,
            // A negative power inverts the matrix first: singular, as `Inv`.
            LinalgOp::MatrixPower { n } => *n < 0,
            // A matrix that is not positive definite.
            LinalgOp::Cholesky { .. } => true,
            // The symmetric eigenvalue iteration not converging (NaN
            // entries).
            LinalgOp::Eigh { .. } | LinalgOp::Eigvalsh => true,
            // The general eigenvalue iteration not converging (NaN or
            // infinite entries).
            LinalgOp::Eig { .. } | LinalgOp::Eigvals => true,
            // The SVD iteration not converging (NaN or infinite entries).
            LinalgOp::Svd { .. }
            | LinalgOp::Svdvals
            | LinalgOp::Pinv { .. }
            | LinalgOp::MatrixRank { .. } => true,
            // The SVD iteration not converging, for the orders computed
            // from the singular values (nuclear, ±2).
            LinalgOp::MatrixNorm { ord, .. } => ord.needs_singular_values(),
            // Products, the diagonal, the norms of vectors and the
            // determinants (LU without a failure: a zero pivot is a zero
            // determinant) and QR (Householder: no iteration) never fail
            // on values.
            LinalgOp::Tensordot { .. }
            | LinalgOp::Vecdot { .. }
            | LinalgOp::Cross { .. }
            | LinalgOp::Outer
            | LinalgOp::Det
            | LinalgOp::Slogdet { .. }
            | LinalgOp::Diagonal { .. }
            | LinalgOp::Trace { .. }
            | LinalgOp::VectorNorm { .. }
            | LinalgOp::Qr { .. } => false,
        }
    }

    /// The result's dtype and shape (every check that needs no value):
    /// the `_signature` function each function of this module starts
    /// from, so the two agree (result `part` for a function of several).
    pub fn signature(&self, o: &[Meta<'_>]) -> Result<(DType, Vec<usize>)> {
        match self {
            LinalgOp::Tensordot { axes } => tensordot_signature(o[0], o[1], axes),
            LinalgOp::Vecdot { axis } => vecdot_signature(o[0], o[1], *axis),
            LinalgOp::Cross { axis } => cross_signature(o[0], o[1], *axis),
            LinalgOp::Outer => outer_signature(o[0], o[1]),
            LinalgOp::Solve => solve_signature(o[0], o[1]),
            LinalgOp::Cholesky { .. } => cholesky_signature(o[0]),
            LinalgOp::Det => det_signature(o[0]),
            LinalgOp::Diagonal { offset } => diagonal_signature(o[0], *offset),
            LinalgOp::Eigvalsh => eigvalsh_signature(o[0]),
            LinalgOp::Eigvals => eigvals_signature(o[0]),
            LinalgOp::Inv => inv_signature(o[0]),
            LinalgOp::MatrixPower { n } => matrix_power_signature(o[0], *n),
            LinalgOp::Svdvals => svdvals_signature(o[0]),
            LinalgOp::Trace { dtype, .. } => trace_signature(o[0], *dtype),
            LinalgOp::VectorNorm {
                axes,
                keepdims,
                ord,
            } => vector_norm_signature(o[0], axes.as_deref(), *keepdims, *ord),
            LinalgOp::MatrixNorm { keepdims, ord } => matrix_norm_signature(o[0], *keepdims, *ord),
            LinalgOp::MatrixRank { .. } => matrix_rank_signature(o[0], o.get(1).copied()),
            LinalgOp::Pinv { .. } => pinv_signature(o[0], o.get(1).copied()),
            LinalgOp::Eigh { part } => eigh_signature(o[0], *part),
            LinalgOp::Eig { part } => eig_signature(o[0], *part),
            LinalgOp::Qr { complete, part } => qr_signature(o[0], *complete, *part),
            LinalgOp::Slogdet { part } => slogdet_signature(o[0], *part),
            LinalgOp::Svd {
                full_matrices,
                part,
            } => svd_signature(o[0], *full_matrices, *part),
        }
    }

    /// Compute the result (result `part` for a function of several).
    pub fn run(&self, x: &[&DynTensor]) -> Result<DynTensor> {
        let mut all = self.run_all(x)?;
        let part = self.part();
        if part >= all.len() {
            return Err(Error::InvalidArgument {
                op: self.name(),
                reason: format!("has no result {part}"),
            });
        }
        Ok(all.swap_remove(part))
    }

    /// Which result this op computes.
    fn part(&self) -> usize {
        match self {
            LinalgOp::Eigh { part }
            | LinalgOp::Eig { part }
            | LinalgOp::Qr { part, .. }
            | LinalgOp::Slogdet { part }
            | LinalgOp::Svd { part, .. } => *part,
            _ => 0,
        }
    }

    /// Every result of the function.
    pub fn run_all(&self, x: &[&DynTensor]) -> Result<Vec<DynTensor>> {
        Ok(match self {
            LinalgOp::Tensordot { axes } => vec![super::tensordot(x[0], x[1], axes)?],
            LinalgOp::Vecdot { axis } => vec![super::vecdot(x[0], x[1], *axis)?],
            LinalgOp::Cross { axis } => vec![super::cross(x[0], x[1], *axis)?],
            LinalgOp::Outer => vec![super::outer(x[0], x[1])?],
            LinalgOp::Solve => vec![super::solve(x[0], x[1])?],
            LinalgOp::Cholesky { upper } => vec![super::cholesky(x[0], *upper)?],
            LinalgOp::Det => vec![super::det(x[0])?],
            LinalgOp::Diagonal { offset } => vec![super::diagonal(x[0], *offset)?],
            LinalgOp::Eigvalsh => vec![super::eigvalsh(x[0])?],
            LinalgOp::Eigvals => vec![super::eigvals(x[0])?],
            LinalgOp::Inv => vec![super::inv(x[0])?],
            LinalgOp::MatrixPower { n } => vec![super::matrix_power(x[0], *n)?],
            LinalgOp::Svdvals => vec![super::svdvals(x[0])?],
            LinalgOp::Trace { offset, dtype } => vec![super::trace(x[0], *offset, *dtype)?],
            LinalgOp::VectorNorm {
                axes,
                keepdims,
                ord,
            } => vec![super::vector_norm(x[0], axes.as_deref(), *keepdims, *ord)?],
            LinalgOp::MatrixNorm { keepdims, ord } => {
                vec![super::matrix_norm(x[0], *keepdims, *ord)?]
            }
            LinalgOp::MatrixRank { .. } => vec![super::matrix_rank(x[0], x.get(1).copied())?],
            LinalgOp::Pinv { .. } => vec![super::pinv(x[0], x.get(1).copied())?],
            LinalgOp::Eigh { .. } => {
                let (w, v) = super::eigh(x[0])?;
                vec![w, v]
            }
            LinalgOp::Eig { .. } => {
                let (w, v) = super::eig(x[0])?;
                vec![w, v]
            }
            LinalgOp::Qr { complete, .. } => {
                let (q, r) = super::qr(x[0], *complete)?;
                vec![q, r]
            }
            LinalgOp::Slogdet { .. } => {
                let (s, l) = super::slogdet(x[0])?;
                vec![s, l]
            }
            LinalgOp::Svd { full_matrices, .. } => {
                let (u, s, vh) = super::svd(x[0], *full_matrices)?;
                vec![u, s, vh]
            }
        })
    }

    /// The parameters as a printed program shows them (`name=value`, in
    /// Python's spelling: `True`, `None`, `(0, 1)`, `2.0`, `inf`; the
    /// `rtol` of `matrix_rank` and `pinv` is an operand when given).
    pub fn params(&self) -> Vec<String> {
        let dtype = |d: &Option<DType>| d.map_or("None".into(), |d| d.to_string());
        match self {
            LinalgOp::Tensordot { axes } => vec![format!(
                "axes={}",
                match axes {
                    TensordotAxes::Last(n) => n.to_string(),
                    TensordotAxes::Pairs(a, b) => format!("({}, {})", tuple(a), tuple(b)),
                }
            )],
            LinalgOp::Vecdot { axis } | LinalgOp::Cross { axis } => vec![format!("axis={axis}")],
            LinalgOp::Cholesky { upper } => vec![format!("upper={}", py_bool(*upper))],
            LinalgOp::Diagonal { offset } => vec![format!("offset={offset}")],
            LinalgOp::MatrixPower { n } => vec![format!("n={n}")],
            LinalgOp::Trace { offset, dtype: d } => {
                vec![format!("offset={offset}"), format!("dtype={}", dtype(d))]
            }
            LinalgOp::VectorNorm {
                axes,
                keepdims,
                ord,
            } => vec![
                format!("axes={}", axes.as_deref().map_or("None".into(), tuple)),
                format!("keepdims={}", py_bool(*keepdims)),
                format!("ord={}", py_float(*ord)),
            ],
            LinalgOp::MatrixNorm { keepdims, ord } => vec![
                format!("keepdims={}", py_bool(*keepdims)),
                format!("ord={}", matrix_ord(*ord)),
            ],
            LinalgOp::Eigh { part } | LinalgOp::Eig { part } | LinalgOp::Slogdet { part } => {
                vec![format!("part={part}")]
            }
            LinalgOp::Qr { complete, part } => vec![
                format!("complete={}", py_bool(*complete)),
                format!("part={part}"),
            ],
            LinalgOp::Svd {
                full_matrices,
                part,
            } => vec![
                format!("full_matrices={}", py_bool(*full_matrices)),
                format!("part={part}"),
            ],
            LinalgOp::Outer
            | LinalgOp::Solve
            | LinalgOp::Det
            | LinalgOp::Eigvalsh
            | LinalgOp::Eigvals
            | LinalgOp::Inv
            | LinalgOp::Svdvals
            | LinalgOp::MatrixRank { .. }
            | LinalgOp::Pinv { .. } => Vec::new(),
        }
    }
}

/// A matrix norm's order as `matrix_norm` takes it: `fro`, `nuc`, `1`,
/// `-1`, `2`, `-2`, `inf`, `-inf`.
fn matrix_ord(ord: MatrixOrd) -> &'static str {
    match ord {
        MatrixOrd::Fro => "fro",
        MatrixOrd::Nuc => "nuc",
        MatrixOrd::One => "1",
        MatrixOrd::NegOne => "-1",
        MatrixOrd::Two => "2",
        MatrixOrd::NegTwo => "-2",
        MatrixOrd::Inf => "inf",
        MatrixOrd::NegInf => "-inf",
    }
}
