//! Traced programs: a function recorded as a list of equations over typed
//! variables (the jaxpr language of JAX), planned as a whole from liveness
//! ([`lower`]) and run over the planned buffers ([`Lowered::run`]).
//!
//! # The model
//!
//! A [`Program`] has constant variables (tensors captured while tracing),
//! input variables, equations `out = op[params] args…` (each argument a
//! variable or an inline literal), and output variables. Every value is
//! immutable: an in-place update recorded while tracing (`t += 1`,
//! `t[0] = v`) is an equation whose output replaces the traced tensor's
//! variable. Eagerly, such a write goes through into a buffer that views
//! share, so every view sees it; a program cannot follow that, so the
//! [`Builder`] refuses (an [`Error::Tracer`] naming the op) any use of a
//! variable whose buffer was written since it was made: a base read
//! after a write through its view, or a view read after a write through
//! its base. The one exception is Python's augmented assignment to a
//! subscript (`x[i] += v`: `t = x[i]; t += v; x[i] = t`), whose final
//! assignment makes `x` current again.
//!
//! The [`Builder`] types every equation with the same planner that decides
//! eager operations ([`crate::plan::plan`]), so a program is well-typed by
//! construction and a tracing error is the eager error. It also follows
//! each view (reshape, transpose, basic index) to the variable whose buffer
//! it shares, with its layout in that buffer, as the eager tensors do.
//!
//! [`lower`] then plans every buffer from liveness (see its docs); the
//! result prints in XLA's header syntax ([`Lowered::as_text`]) and runs
//! the existing kernels ([`Lowered::run`]).
//!
//! # Examples
//!
//! ```
//! use donate::program::{Atom, Builder};
//! use donate::plan::Op;
//! use donate::{BinaryOp, DType, Scalar, UnaryOp};
//!
//! let mut b = Builder::new();
//! let x = b.input(DType::F32, &[4, 8]);
//! let y = b.push(Op::Binary(BinaryOp::Mul), &[Atom::Var(x), Atom::Lit(Scalar::Float(2.0))])?;
//! let z = b.push(Op::Unary(UnaryOp::Relu), &[Atom::Var(y)])?;
//! let p = b.finish(&[z])?;
//! assert_eq!(
//!     p.to_string(),
//!     "{ lambda ; a:f32[4,8]. let\n    b:f32[4,8] = mul a 2.0\n    c:f32[4,8] = relu b\n  in (c,) }"
//! );
//! # Ok::<(), donate::Error>(())
//! ```

mod bound;
mod fuse;
mod lower;
mod print;
mod run;
mod text;

use std::sync::Arc;

use smallvec::SmallVec;

use crate::array::dyn_tensor::{DynTensor, Scalar};
use crate::array::element::DType;
use crate::array::layout::{Coverage, Layout};
use crate::array::shape::{dims, Dims};
use crate::error::{Error, Result};
use crate::plan::{permute_axes, plan, plan_in_place, Op, OperandDesc};

pub use fuse::{repeats_along, stage as fusible_stage, Fusion, MIN_CYCLE};
pub use lower::{lower, BufferId, Claim, Lowered, MemoryAnalysis, Step, Write};
pub use run::{plan_mismatches, Donor, RunArg, RunError};

/// A variable: an index into [`Program::vars`].
pub type Var = u32;

/// An argument of an equation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Atom {
    Var(Var),
    /// A Python-style weak scalar, printed inline.
    Lit(Scalar),
}

/// A variable's type, and the buffer it lives in.
#[derive(Debug, Clone, PartialEq)]
pub struct VarInfo {
    pub dtype: DType,
    pub shape: Dims,
    /// A view: the variable whose buffer it shares (itself never a view)
    /// and its layout in that buffer, in elements.
    pub view: Option<(Var, Arc<Layout>)>,
}

impl VarInfo {
    /// Bytes of its elements.
    pub fn nbytes(&self) -> usize {
        self.shape.iter().product::<usize>() * self.dtype.size()
    }
}

/// One equation: `out = op args…`.
#[derive(Debug, Clone, PartialEq)]
pub struct Eqn {
    pub op: Op,
    pub args: SmallVec<[Atom; 3]>,
    pub out: Var,
}

/// A traced function. See the [module docs](self).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Program {
    pub vars: Vec<VarInfo>,
    /// Tensors captured while tracing, in the order the caller supplies
    /// them when running.
    pub consts: Vec<Var>,
    pub inputs: Vec<Var>,
    pub eqns: Vec<Eqn>,
    pub outputs: Vec<Var>,
}

impl Program {
    /// The variable a view shares its buffer with (itself when not a view).
    pub fn root(&self, v: Var) -> Var {
        self.vars[v as usize].view.as_ref().map_or(v, |(r, _)| *r)
    }

    /// How variable `v` covers the buffer it lives in.
    pub fn coverage(&self, v: Var) -> Coverage {
        match &self.vars[v as usize].view {
            None => Coverage::Whole,
            Some((r, l)) => {
                let len: usize = self.vars[*r as usize].shape.iter().product();
                l.coverage(len)
            }
        }
    }

    /// `v` as planning describes a borrowed operand.
    fn desc(&self, v: Var) -> OperandDesc<'_> {
        let info = &self.vars[v as usize];
        OperandDesc::tensor(info.dtype, &info.shape)
            .with_id(v as usize)
            .covering(self.coverage(v))
    }
}

/// Records a program equation by equation, typing each with the planner.
#[derive(Debug, Default)]
pub struct Builder {
    program: Program,
    /// The tensors captured as constants, in the order of
    /// [`Program::consts`].
    captured: Vec<Captured>,
    /// For each variable, the eager buffer it reads (the variable that
    /// first held it) and that buffer's version when it was made.
    buffer_of: Vec<(Var, u32)>,
    /// The current version of each eager buffer written in place, and the
    /// last write through a view of it: (the view, the write's output).
    written: std::collections::HashMap<Var, (u32, Option<(Var, Var)>)>,
    /// [`crate::storages_made`] when the trace began: a captured tensor
    /// whose buffer's serial is at least this was made while tracing.
    began: u64,
}

/// A tensor captured as a constant while tracing: the handle it was
/// captured from. Two operands are the same constant when they view the
/// same elements of the same buffer ([`DynTensor::same_view`]); holding
/// the handle keeps that buffer alive for the whole trace, so its address
/// cannot be reused by a later tensor (the identity of a constant is its
/// value, never the address of an object that can die). The program reads
/// it through this handle at each run ([`Lowered::run`]).
#[derive(Debug)]
struct Captured {
    handle: DynTensor,
}

impl Builder {
    pub fn new() -> Self {
        Self {
            began: crate::storages_made(),
            ..Self::default()
        }
    }

    fn var(&mut self, dtype: DType, shape: &[usize], view: Option<(Var, Arc<Layout>)>) -> Var {
        let v = Var::try_from(self.program.vars.len()).unwrap_or(Var::MAX);
        self.buffer_of.push((v, 0));
        self.program.vars.push(VarInfo {
            dtype,
            shape: dims(shape),
            view,
        });
        v
    }

    /// A new input variable (the next argument of the program).
    pub fn input(&mut self, dtype: DType, shape: &[usize]) -> Var {
        let v = self.var(dtype, shape, None);
        self.program.inputs.push(v);
        v
    }

    /// A new constant variable (a tensor captured while tracing).
    pub fn constant(&mut self, dtype: DType, shape: &[usize]) -> Var {
        let v = self.var(dtype, shape, None);
        self.program.consts.push(v);
        v
    }

    /// The input whose buffer `v` lives in (`v` itself, or a view of it),
    /// by its index among the inputs.
    pub fn input_of(&self, v: Var) -> Option<usize> {
        if v as usize >= self.program.vars.len() {
            return None;
        }
        let root = self.program.root(v);
        self.program.inputs.iter().position(|&u| u == root)
    }

    /// The constant variables so far, in order.
    pub fn consts(&self) -> &[Var] {
        &self.program.consts
    }

    /// `t` as a constant of the program: the variable of an earlier
    /// capture of the same view of the same buffer, else a new constant
    /// reading `t`'s buffer. Each run reads it as it is then (a strided
    /// view through a C-order copy), so a write into the caller's tensor
    /// between calls shows, as in eager code. Fails only when `t` cannot
    /// be read (donated).
    pub fn capture(&mut self, t: &DynTensor) -> Result<Var> {
        t.check_readable()?;
        if let Some(k) = self.captured.iter().position(|c| c.handle.same_view(t)) {
            return Ok(self.program.consts[k]);
        }
        let v = self.constant(t.dtype(), t.shape());
        self.captured.push(Captured { handle: t.clone() });
        Ok(v)
    }

    /// The type of `v`.
    pub fn info(&self, v: Var) -> Result<&VarInfo> {
        self.program
            .vars
            .get(v as usize)
            .ok_or_else(|| Error::InvalidArgument {
                op: "trace",
                reason: format!("variable {v} does not exist"),
            })
    }

    /// Type `op` over `args` (the eager planner's validation) and append
    /// it; returns the output variable.
    pub fn push(&mut self, op: Op, args: &[Atom]) -> Result<Var> {
        self.record(op, args, false)
    }

    /// Append an in-place update (`x op= y`, `x[i] = v`, `x.relu_()`)
    /// as a functional equation: typed as the eager in-place op is (the
    /// result keeps `args[0]`'s shape and dtype); the caller rebinds the
    /// traced tensor to the returned variable.
    pub fn push_update(&mut self, op: Op, args: &[Atom]) -> Result<Var> {
        self.record(op, args, true)
    }

    /// The version of eager buffer `b` now.
    fn version(&self, b: Var) -> u32 {
        self.written.get(&b).map_or(0, |w| w.0)
    }

    /// Whether `v` still reads its buffer as it is (not written since).
    fn current(&self, v: Var) -> bool {
        let (b, ver) = self.buffer_of[v as usize];
        ver == self.version(b)
    }

    /// `x[index] = w` where `w` is the write through the view `x[index]`
    /// that made `x` stale: the second half of `x[index] op= v`.
    fn completes_augmented(&self, op: &Op, args: &[Atom]) -> bool {
        let (Op::SetItem { index }, [Atom::Var(x), Atom::Var(w)]) = (op, args) else {
            return false;
        };
        let (b, ver) = self.buffer_of[*x as usize];
        match self.written.get(&b) {
            Some((now, Some((view, out)))) if *now == ver + 1 && out == w => {
                self.program.eqns.iter().any(|e| {
                    e.out == *view
                        && matches!(&e.op, Op::Index { index: i } if i == index)
                        && e.args.first() == Some(&Atom::Var(*x))
                })
            }
            _ => false,
        }
    }

    /// An [`Error::Tracer`] for reading a variable written since.
    fn stale_error(op: &Op) -> Error {
        Error::Tracer {
            op: op.name().to_string(),
            reason: "reads a tensor whose buffer was written in place since (through a view of it, or the tensor a view of it was taken from); \
                     eagerly the write shows through every view of the buffer, which a traced program cannot follow: \
                     take the view after the write, or write into a copy"
                .to_string(),
        }
    }

    fn record(&mut self, op: Op, args: &[Atom], update: bool) -> Result<Var> {
        for a in args {
            if let Atom::Var(v) = a {
                self.info(*v)?;
            }
        }
        let augmented = update && self.completes_augmented(&op, args);
        for (i, a) in args.iter().enumerate() {
            if let Atom::Var(v) = a {
                if !(self.current(*v) || (augmented && i == 0)) {
                    return Err(Self::stale_error(&op));
                }
            }
        }
        let p = {
            let descs: SmallVec<[OperandDesc<'_>; 3]> = args
                .iter()
                .map(|a| match a {
                    Atom::Var(v) => self.program.desc(*v),
                    Atom::Lit(s) => OperandDesc::scalar(*s),
                })
                .collect();
            if update || matches!(op, Op::SetItem { .. }) {
                plan_in_place(&op, &descs)?
            } else {
                plan(&op, &descs)?
            }
        };
        if let (true, Op::Binary(_), Some(Atom::Var(x))) = (update, &op, args.first()) {
            if p.compute != p.dtype {
                // NumPy's same-kind casting (`acc += x`, a float32 `acc`
                // and a float64 `x`): the promoted result, then its cast
                // into the target's dtype, which is the update.
                let wide = self.record(op, args, false)?;
                let out = self.record(Op::Cast { dtype: p.dtype }, &[Atom::Var(wide)], false)?;
                self.mark_update(*x, out, augmented);
                return Ok(out);
            }
        }
        let view = match (&op, args.first()) {
            (op, Some(Atom::Var(x))) if op.is_view() => self.view_of(op, *x, &p.shape)?,
            _ => None,
        };
        let fresh = view.is_none();
        let out = self.var(p.dtype, &p.shape, view);
        if let Some(Atom::Var(x)) = args.first() {
            let (b, ver) = self.buffer_of[*x as usize];
            if update {
                self.mark_update(*x, out, augmented);
            } else if op.is_view() && !fresh {
                self.buffer_of[out as usize] = (b, ver);
            }
        }
        self.program.eqns.push(Eqn {
            op,
            args: args.iter().copied().collect(),
            out,
        });
        Ok(out)
    }

    /// `out` is `x` written in place: every other variable of its buffer is
    /// stale now, except in the second half of `x[i] op= v` (`augmented`),
    /// which writes what the first half wrote.
    fn mark_update(&mut self, x: Var, out: Var, augmented: bool) {
        let (b, _) = self.buffer_of[x as usize];
        let now = self.version(b) + u32::from(!augmented);
        let through = (!augmented && b != x).then_some((x, out));
        self.written.insert(b, (now, through));
        self.buffer_of[out as usize] = (b, now);
    }

    /// Where a view op's result lives: the buffer of `x`'s root, with the
    /// layout the eager tensor would have (`None`: a reshape of a strided
    /// view, which copies).
    fn view_of(&self, op: &Op, x: Var, shape: &[usize]) -> Result<Option<(Var, Arc<Layout>)>> {
        let info = &self.program.vars[x as usize];
        let (root, layout) = match &info.view {
            Some((r, l)) => (*r, (**l).clone()),
            None => (x, Layout::contiguous(&info.shape)),
        };
        let l = match op {
            Op::Reshape { .. } => match layout.reshaped(shape) {
                Some(l) => l,
                None => return Ok(None),
            },
            Op::Permute { axes } => layout.permuted(&permute_axes(&info.shape, axes.as_deref())?),
            Op::Index { index } => layout.indexed(index)?,
            _ => return Ok(None),
        };
        Ok(Some((root, Arc::new(l))))
    }

    /// The program returning `outputs`.
    pub fn finish(self, outputs: &[Var]) -> Result<Program> {
        self.finish_captured(outputs).map(|(p, _)| p)
    }

    /// The program returning `outputs`, and the values of its captured
    /// constants ([`Builder::capture`]), in the order of
    /// [`Program::consts`] (what [`Lowered::run`] takes).
    pub fn finish_captured(mut self, outputs: &[Var]) -> Result<(Program, Vec<DynTensor>)> {
        for &v in outputs {
            self.info(v)?;
            if !self.current(v) {
                return Err(Error::Tracer {
                    op: "return".into(),
                    reason: "returns a tensor whose buffer was written in place since (through a view of it, or the tensor a view of it was taken from), which a traced program cannot follow".into(),
                });
            }
        }
        // An output on the buffer of a constant made while tracing (or a
        // view of one) is returned as a copy: the constant is the
        // program's, read by every later call, and a write into the
        // caller's result must not reach it (eagerly, each call makes
        // that tensor anew). A tensor captured from outside is returned
        // as it is, another handle on its buffer, as the eager function
        // returns the tensor itself.
        let mut outs = outputs.to_vec();
        for o in &mut outs {
            let root = self.program.root(*o);
            let made_here = self
                .program
                .consts
                .iter()
                .zip(&self.captured)
                .any(|(&c, captured)| c == root && captured.handle.buffer_serial() >= self.began);
            if made_here {
                let dtype = self.program.vars[*o as usize].dtype;
                *o = self.record(Op::Cast { dtype }, &[Atom::Var(*o)], false)?;
            }
        }
        self.program.outputs = outs;
        let values = self.captured.into_iter().map(|c| c.handle).collect();
        Ok((self.program, values))
    }
}
