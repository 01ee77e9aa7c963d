//! Element-wise fusion: a chain of element-wise equations run as one pass
//! over memory.
//!
//! # What fuses
//!
//! After [`lower`](super::lower) has planned every buffer, [`groups`]
//! finds maximal runs of consecutive equations `start..end` (two or more)
//! that form an *in-place chain*:
//!
//! * every equation is a [stage](stage): a unary op ([`Op::Unary`]) or
//!   binary arithmetic ([`Op::Binary`]) computed in its result's dtype (no
//!   cast, no gathered operand), whose tensor operands all have the
//!   result's dtype and are contiguous, and whose other operands are
//!   literals. A tensor operand has the result's shape, or broadcasts to
//!   it along its leading axes only ([`repeats_along`]: a bias row `[d]`
//!   or `[1, d]` over `[n, d]`, whose elements repeat in order along the
//!   result): such an operand is read as a [`FusedArg::Cycle`] when it
//!   holds at least [`MIN_CYCLE`] elements, as a scalar when it holds one;
//! * the first equation writes its result where the plan puts it: a new
//!   or reused buffer, or in place over one of its operands (a dying
//!   intermediate or a donated argument);
//! * every later equation is planned in place over the previous
//!   equation's result, which is read by that equation only (once), is no
//!   output of the program, and has no view.
//!
//! The chain's values other than the last are the group's
//! *intermediates*. They already shared the result's buffer in the
//! unfused plan (each stage wrote over the previous one); fused, they are
//! never materialised as whole tensors at all: each block of the output
//! goes through every stage while it is in cache
//! ([`crate::kernels::fused`]). The fused program therefore has exactly
//! the unfused plan's buffers, donations, aliases, donors and copy
//! protection: [`Lowered::memory`](super::Lowered) and the peak's lower
//! bound are unchanged, and the bytes live while the group runs are the
//! largest of its equations' (the group's operands are all live at its
//! first equation, and nothing is allocated after it).
//!
//! # What does not, and why
//!
//! * An intermediate read twice (`t * t`), read by an equation outside the
//!   chain, viewed, or returned: the unfused plan gives it a buffer of its
//!   own (or keeps it), so fusing would change the plan; the chain ends
//!   before the equation that reads it.
//! * An operand broadcast along an inner axis (`[n, 1]` over `[n, d]`),
//!   or a repeated row shorter than [`MIN_CYCLE`] (each repetition would
//!   be a call of its own), casts, comparisons and the other functions of
//!   [`Op::Func`], `where`, `clip`: not stages yet; each runs unfused, as
//!   before.
//!
//! # Why writing over an operand block by block is safe
//!
//! The group's buffer `B` is the first equation's result buffer as
//! planned. When it writes in place over an operand `x`, `x` dies there
//! and no other live variable holds `B` (the planner's condition for
//! offering it), so no other operand of any stage is `B`; every later
//! stage reads `B` only as the previous stage's result at the indices it
//! writes. Block `[a, b)` runs every stage before the next block: each
//! stage reads elements `[a, b)` of its operands and writes `[a, b)` of
//! `B`, so an element of `x` is read by the first stage before it is
//! overwritten, and never read after. Elements outside the block are
//! neither read nor written, so blocks are independent and run on any
//! thread. Anything the decision does not recognise ends the chain.

use std::fmt::Write as _;

use super::lower::{Lowered, Step, Write};
use super::print::{jaxpr_name, Names};
use super::{Atom, Eqn, Program, Var};
use crate::array::dyn_tensor::{DynElement, DynTensor};
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::kernels::{fused_inplace, FusedArg, Stage, FUSED_BLOCK};
use crate::plan::Op;

/// A fused group: equations `start..end` of the program run as one pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fusion {
    pub start: usize,
    pub end: usize,
}

impl Fusion {
    /// The group's equations.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start..self.end
    }
}

/// The fewest elements a repeated operand ([`FusedArg::Cycle`]) holds:
/// each repetition is one call of the element loop, as each row is in the
/// unfused broadcasting loop.
pub const MIN_CYCLE: usize = 64;

/// Whether an operand of shape `s` broadcasts to `out` along leading axes
/// only, so that its elements in C order repeat along `out`'s: `s`,
/// aligned to the right, is 1 (or missing) up to some axis and equal to
/// `out` from there on.
pub fn repeats_along(s: &[usize], out: &[usize]) -> bool {
    if s.len() > out.len() {
        return false;
    }
    let pad = out.len() - s.len();
    let first = s.iter().position(|&d| d != 1).unwrap_or(s.len());
    s[first..] == out[pad + first..]
}

/// How a stage over `out` reads a tensor operand of shape `s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    /// In step with the output (the same shape).
    Step,
    /// Repeated along it ([`FusedArg::Cycle`]).
    Cycle,
    /// As one value.
    One,
}

/// `None`: the equation is no stage.
fn read_of(s: &[usize], out: &[usize]) -> Option<Read> {
    let n: usize = s.iter().product();
    if s == out {
        Some(Read::Step)
    } else if !repeats_along(s, out) {
        None
    } else if n == 1 {
        Some(Read::One)
    } else if n >= MIN_CYCLE {
        Some(Read::Cycle)
    } else {
        None
    }
}

/// Whether equation `e`, planned as `st`, can be a stage of a fused group:
/// the one place that decides which ops fuse (see the [module
/// docs](self)).
pub fn stage(p: &Program, e: &Eqn, st: &Step) -> bool {
    let plan = &st.plan;
    let out = &p.vars[e.out as usize];
    let elementwise = match &e.op {
        Op::Unary(_) => matches!(e.args.as_slice(), [Atom::Var(_)]),
        Op::Binary(_) => e.args.len() == 2,
        _ => false,
    };
    elementwise
        && out.view.is_none()
        && st.write != Write::View
        && plan.casts.is_empty()
        && plan.gathers.is_empty()
        && plan.dtype == plan.compute
        && plan.dtype == out.dtype
        // The fused loops are the real kernels' (complex numbers have
        // scalar kernels of their own, `kernels::complex`; float16 is
        // computed in float32, `plan::storage`).
        && !plan.dtype.is_complex()
        && !plan.dtype.is_storage()
        && !plan.in_place
        && e.args.iter().all(|a| match *a {
            Atom::Lit(_) => true,
            Atom::Var(v) => {
                let info = &p.vars[v as usize];
                info.dtype == out.dtype
                    && p.coverage(v).is_contiguous()
                    && read_of(&info.shape, &out.shape).is_some()
            }
        })
}

/// How many times each variable is read by an equation, and whether any
/// variable is a view of it: counted once per program, so that finding
/// the chains is linear in its size.
struct Uses {
    reads: Vec<usize>,
    viewed: Vec<bool>,
}

impl Uses {
    fn of(p: &Program) -> Uses {
        let mut reads = vec![0; p.vars.len()];
        for e in &p.eqns {
            for a in &e.args {
                if let Atom::Var(v) = *a {
                    reads[v as usize] += 1;
                }
            }
        }
        let mut viewed = vec![false; p.vars.len()];
        for v in &p.vars {
            if let Some((r, _)) = v.view {
                viewed[r as usize] = true;
            }
        }
        Uses { reads, viewed }
    }
}

/// Equation `i` (a stage) continues a chain whose last result is equation
/// `i - 1`'s: planned in place over that result, which only equation `i`
/// reads (once), is no output, and has no view.
fn continues(l: &Lowered, uses: &Uses, i: usize) -> bool {
    let p = &l.program;
    let prev = p.eqns[i - 1].out;
    let e = &p.eqns[i];
    let Write::InPlace { arg } = l.steps[i].write else {
        return false;
    };
    let reads_here = e.args.iter().filter(|a| **a == Atom::Var(prev)).count();
    e.args.get(arg) == Some(&Atom::Var(prev))
        && reads_here == 1
        && uses.reads[prev as usize] == 1
        && !p.outputs.contains(&prev)
        && !uses.viewed[prev as usize]
}

/// The fused groups of a lowered program, in order (see the [module
/// docs](self)).
pub fn groups(l: &Lowered) -> Vec<Fusion> {
    let p = &l.program;
    let n = p.eqns.len();
    let uses = Uses::of(p);
    let is_stage: Vec<bool> = p
        .eqns
        .iter()
        .zip(&l.steps)
        .map(|(e, st)| stage(p, e, st))
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        if !is_stage[i] {
            i += 1;
            continue;
        }
        let mut end = i + 1;
        while end < n && is_stage[end] && continues(l, &uses, end) {
            end += 1;
        }
        if end - i >= 2 {
            out.push(Fusion { start: i, end });
        }
        i = end;
    }
    out
}

/// The line `as_text` prints before a group's equations.
pub(super) fn header(l: &Lowered, g: &Fusion, names: &Names) -> String {
    let p = &l.program;
    let ops: Vec<&str> = p.eqns[g.range()]
        .iter()
        .map(|e| jaxpr_name(&e.op))
        .collect();
    let n: usize = p.vars[p.eqns[g.start].out as usize].shape.iter().product();
    let mut s = format!("fusion[{}]", ops.join(", "));
    let _ = write!(
        s,
        " # {} -> {}: one pass over {n} elements in blocks of {FUSED_BLOCK}",
        names.get(p.eqns[g.start].out),
        names.get(p.eqns[g.end - 1].out),
    );
    s
}

/// What a group's run reads: per variable, its handle.
pub(super) trait Env {
    fn read(&self, v: Var) -> Result<&DynTensor>;
}

/// The stages of group `g` typed as `T`: `io` is the variable the first
/// stage reads as the output (its in-place operand), if any; later stages
/// read the previous result as the output.
fn stages<'e, T: DynElement>(
    l: &Lowered,
    g: &Fusion,
    io: Option<Var>,
    env: &'e impl Env,
) -> Result<Vec<Stage<'e, T>>> {
    let p = &l.program;
    let mut out = Vec::with_capacity(g.end - g.start);
    for i in g.range() {
        let e = &p.eqns[i];
        let prev = (i > g.start).then(|| p.eqns[i - 1].out).or(io);
        let out_shape = &p.vars[e.out as usize].shape;
        let arg = |a: &Atom| -> Result<FusedArg<'e, T>> {
            Ok(match *a {
                Atom::Lit(s) => FusedArg::Scalar(T::from_scalar(s)),
                Atom::Var(v) if Some(v) == prev => FusedArg::Io,
                Atom::Var(v) => {
                    let x = env.read(v)?.typed::<T>("fusion")?.as_slice()?;
                    match read_of(&p.vars[v as usize].shape, out_shape) {
                        Some(Read::Step) => FusedArg::Slice(x),
                        Some(Read::Cycle) => FusedArg::Cycle(x),
                        Some(Read::One) => FusedArg::Scalar(x[0]),
                        None => {
                            return Err(Error::InvalidArgument {
                                op: "fusion",
                                reason: format!("variable {v} is no operand of a stage"),
                            })
                        }
                    }
                }
            })
        };
        out.push(match (&e.op, e.args.as_slice()) {
            (Op::Unary(u), [x]) => Stage::Unary(*u, arg(x)?),
            (Op::Binary(b), [x, y]) => Stage::Binary(*b, arg(x)?, arg(y)?),
            _ => {
                return Err(Error::InvalidArgument {
                    op: "fusion",
                    reason: format!("equation {i} is no stage"),
                })
            }
        });
    }
    Ok(out)
}

/// Run group `g` with element type `T`: over `target` (the only handle on
/// the first stage's in-place operand `io`) when given, else into a new
/// buffer (a planned one when the caller serves it). Returns the result
/// and whether the target's buffer could not be claimed (a plan
/// mismatch: the result then went to a new buffer).
pub(super) fn run_group<T: DynElement>(
    l: &Lowered,
    g: &Fusion,
    target: Option<(Var, DynTensor)>,
    env: &impl Env,
) -> Result<(DynTensor, bool)> {
    let p = &l.program;
    let last = &p.vars[p.eqns[g.end - 1].out as usize];
    let shape = last.shape.clone();
    let n: usize = shape.iter().product();
    if let Some((v, mut t)) = target {
        let claimed = crate::ops::claim(t.typed_mut::<T>("fusion")?, &shape, "fusion");
        if let Ok(mut buf) = claimed {
            let st = stages::<T>(l, g, Some(v), env)?;
            fused_inplace(&st, buf.as_mut_slice::<T>())?;
            return Ok((T::wrap(Tensor::from_buffer(buf, &shape)?), false));
        }
        // Refused: read the operand where it is, into a new buffer.
        let one = Single { v, t };
        let both = Both { a: env, b: &one };
        let st = stages::<T>(l, g, None, &both)?;
        let buf = crate::kernels::fresh::fused(&st, n)?;
        return Ok((T::wrap(Tensor::from_buffer(buf, &shape)?), true));
    }
    let st = stages::<T>(l, g, None, env)?;
    let buf = crate::kernels::fresh::fused(&st, n)?;
    Ok((T::wrap(Tensor::from_buffer(buf, &shape)?), false))
}

/// One variable's handle.
struct Single {
    v: Var,
    t: DynTensor,
}

/// Two environments, the second first.
struct Both<'a, A, B> {
    a: &'a A,
    b: &'a B,
}

impl Env for Single {
    fn read(&self, v: Var) -> Result<&DynTensor> {
        if v == self.v {
            Ok(&self.t)
        } else {
            Err(Error::InvalidArgument {
                op: "fusion",
                reason: format!("variable {v} is not in this environment"),
            })
        }
    }
}

impl<A: Env, B: Env> Env for Both<'_, A, B> {
    fn read(&self, v: Var) -> Result<&DynTensor> {
        self.b.read(v).or_else(|_| self.a.read(v))
    }
}

/// The planned outcome of each of the group's equations, recorded as the
/// unfused run records it (reuse counters, the memory timeline).
pub(super) fn record(l: &Lowered, g: &Fusion) {
    for i in g.range() {
        let plan = &l.steps[i].plan;
        let mut outcome = crate::ops::outcome_of(plan);
        if let (Write::InPlace { arg }, Some(t)) = (l.steps[i].write, plan.target) {
            if arg == t {
                let bytes = l.program.vars[l.program.eqns[i].out as usize].nbytes();
                crate::ops::reused(&mut outcome, plan, t, bytes);
            }
        }
        crate::ops::count_fallbacks(plan, &outcome);
    }
}
