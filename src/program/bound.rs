//! The lower bound of a program's peak: how far a plan is from the best
//! any plan could do for the same order of equations.
//!
//! # The bound
//!
//! While equation `i` runs, these bytes must exist whatever the plan:
//!
//! * every *storage* live across it: a value defined before `i` (an
//!   argument, a constant, an earlier result) that is read at `i` or later,
//!   or is an output. A view is no storage of its own: it lives in its
//!   base's, which is live while any view of it is;
//! * the caller's arguments that are not donated, and the constants, for
//!   the whole call (nothing may write or free them);
//! * what equation `i` itself allocates as the eager planner plans it over
//!   its operands described from liveness: its result, unless the result
//!   is written over an operand that dies there (the kernels' in-place
//!   rules: same shape and dtype, the whole buffer), and its casts, copies
//!   and scratch.
//!
//! The bound is the largest of these totals, and at least all arguments
//! and constants together (they all exist when the call starts). A donated
//! argument counts until its last use (at the latest, the last equation
//! that may fail on values, as in the plan: see the liveness rules of
//! [`lower`](super::lower)), even one nothing writes over.
//!
//! A plan peaks above the bound where it holds memory liveness does not
//! need: a dead buffer kept for a later result of its size (never past
//! the peak without such reuse, which is the bound's own accounting), and
//! a donated argument nothing can write over, which the caller keeps for
//! the whole call. [`super::MemoryAnalysis::peak_lower_bound_in_bytes`]
//! reports the bound beside the planned peak; the ratio is how much a
//! better placement in this order of equations could still save.

use super::lower::Liveness;
use super::{Program, Var};
use crate::plan::Plan;

/// The lower bound of the peak of any plan of `p` in its order of
/// equations, given the liveness the plan uses and each equation's eager
/// plan (for its transient allocations). See the [module docs](self).
pub(super) fn peak_lower_bound(
    p: &Program,
    donated: &[bool],
    live: &Liveness,
    plans: &[&Plan],
) -> usize {
    let n = p.vars.len();
    let nbytes = |v: Var| p.vars[v as usize].nbytes();
    // Per storage (a variable that is no view): the equation that makes
    // it (-1: an argument or constant), its last reader's (or any view's),
    // and whether it outlives the call (an output, or the caller's).
    let mut born: Vec<Option<isize>> = vec![None; n];
    let mut end: Vec<Option<usize>> = vec![None; n];
    let mut forever = vec![false; n];
    for &v in &p.consts {
        born[v as usize] = Some(-1);
        forever[v as usize] = true;
    }
    for (k, &v) in p.inputs.iter().enumerate() {
        born[v as usize] = Some(-1);
        forever[v as usize] |= !donated.get(k).copied().unwrap_or(false);
    }
    for (i, e) in p.eqns.iter().enumerate() {
        if p.vars[e.out as usize].view.is_none() {
            born[e.out as usize] = Some(i as isize);
        }
    }
    for v in 0..n as Var {
        let s = p.root(v) as usize;
        if live.output[v as usize] {
            forever[s] = true;
        }
        if let Some(l) = live.last[v as usize] {
            end[s] = Some(end[s].map_or(l, |e| e.max(l)));
        }
    }
    let held_across = |s: usize, i: usize| -> bool {
        born[s].is_some_and(|b| b < i as isize) && (forever[s] || end[s].is_some_and(|e| e >= i))
    };
    let at_start: usize = p.inputs.iter().chain(&p.consts).map(|&v| nbytes(v)).sum();
    let mut bound = at_start;
    for i in 0..p.eqns.len() {
        let held: usize = (0..n)
            .filter(|&s| p.vars[s].view.is_none() && held_across(s, i))
            .map(|s| nbytes(s as Var))
            .sum();
        let allocated = plans.get(i).map_or(0, |plan| plan.allocated_bytes());
        bound = bound.max(held + allocated);
    }
    bound
}
