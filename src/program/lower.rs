//! Planning a program's buffers from liveness.
//!
//! # The rules
//!
//! Equations are planned in order. An argument *dies* at the equation that
//! reads it last (outputs never die). Each equation is planned by the
//! eager planner ([`crate::plan::plan`]) with each argument described from
//! liveness: an argument that dies here, whose buffer may be written (an
//! intermediate, or a donated input) and that no other live variable
//! shares (a view, its base) is offered as a temporary; every other
//! argument is borrowed. The planner's target is then the operand whose
//! buffer receives the result, by the same rules as eager mode (element-wise
//! ops, row-wise softmax and layer norm, same-shape convolutions, `addmm`'s
//! input, attention's query). A view (reshape, transpose, basic index)
//! shares its input's buffer.
//!
//! A result that no operand receives takes a *free* buffer when one of
//! exactly its size died earlier (an intermediate, or a donated input
//! nothing else wrote into), else a new one. A free buffer is kept only
//! while keeping it leaves the program's peak at or below the peak of the
//! same plan without any free-buffer reuse (which in turn is at or below
//! eager mode's: every value dies at or before the point eager code drops
//! it, and every buffer eager mode reuses, liveness reuses too), so reuse
//! can only lower the peak.
//!
//! A non-donated input and a captured constant are never written. A donated
//! input whose buffer holds an output is an *alias*
//! (`input_output_alias`); one whose buffer only hosts intermediates is a
//! *donor* (`buffer_donor`); any other donated input is *unusable*, with the
//! reason (the planner's refusal at its last use), and is left alone when
//! the program runs.

use smallvec::SmallVec;

use super::print::{jaxpr_name, Names};
use super::{Atom, Program, Var};
use crate::array::layout::Coverage;
use crate::error::{Error, Result};
use crate::plan::{
    plan, plan_in_place, Allocation, Holders, Offer, Op, OperandDesc, Plan, Purpose, Refusal,
};

/// A buffer of a planned program: an index into [`Lowered::buffers`].
pub type BufferId = u32;

/// Where a planned buffer comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Input(usize),
    Const(usize),
    /// First allocated by this equation.
    Alloc(usize),
}

/// A buffer of a planned program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buffer {
    pub origin: Origin,
    pub bytes: usize,
}

/// How a call supplies one argument of a lowered program
/// ([`Lowered::claims`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// Another handle on it: the program only reads it.
    Read,
    /// Its buffer, taken from the caller (moved-from) into the run.
    Take,
    /// Consumed by the program, but its buffer cannot be given up (the
    /// reason): a copy is consumed instead, the caller's tensor unchanged.
    Copy(Refusal),
}

/// Where an equation writes its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// Over its argument `arg` (an element-wise op over a dying
    /// intermediate, a setitem over a dying target).
    InPlace { arg: usize },
    /// Into a buffer it allocates, or a free one that died earlier.
    Buffer { buffer: BufferId, reused: bool },
    /// A view of its argument's buffer (reshape, transpose, index).
    View,
}

/// One equation as planned.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The eager planner's plan, with the liveness offers.
    pub plan: Plan,
    pub write: Write,
    /// Variables whose last use is this equation, dropped after it.
    pub release: SmallVec<[Var; 4]>,
    /// Buffers that die here and are kept for a later equation.
    pub keep: SmallVec<[BufferId; 2]>,
}

/// A program's memory, under JAX's names. All counts are tensor bytes as
/// [`memory_stats`](crate::memory_stats) counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryAnalysis {
    /// All arguments.
    pub argument_size_in_bytes: usize,
    /// All outputs (including those written into donated arguments).
    pub output_size_in_bytes: usize,
    /// Outputs written into donated arguments' buffers.
    pub alias_size_in_bytes: usize,
    /// The most bytes of intermediates (neither argument nor output) live
    /// at once, scratch and casts included.
    pub temp_size_in_bytes: usize,
    /// The most bytes live at once during a call: arguments (a donated one
    /// until its buffer dies), constants, intermediates and outputs.
    pub peak_memory_in_bytes: usize,
    /// The least any plan of the same order of equations could peak at
    /// (see [`bound`](super::bound)); never above the peak.
    pub peak_lower_bound_in_bytes: usize,
}

impl MemoryAnalysis {
    /// The planned peak as a multiple of its lower bound (1.0: no plan of
    /// this order of equations needs less).
    pub fn peak_over_bound(&self) -> f64 {
        if self.peak_lower_bound_in_bytes == 0 {
            1.0
        } else {
            self.peak_memory_in_bytes as f64 / self.peak_lower_bound_in_bytes as f64
        }
    }
}

/// A program with every buffer planned. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Lowered {
    pub program: Program,
    /// Per input: donated by the caller.
    pub donated: Vec<bool>,
    pub steps: Vec<Step>,
    pub buffers: Vec<Buffer>,
    /// Per variable: its buffer.
    pub var_buffer: Vec<BufferId>,
    /// `(output, input)`: the output is written into the donated input's
    /// buffer.
    pub aliases: Vec<(usize, usize)>,
    /// Donated inputs whose buffers only host intermediates.
    pub donors: Vec<usize>,
    /// Donated inputs nothing can use, and why.
    pub unusable: Vec<(usize, String)>,
    pub memory: MemoryAnalysis,
    /// The first equation that writes into a donated input's buffer.
    pub first_donated_write: Option<usize>,
    /// Per equation: the bytes live while it runs, as planned (what
    /// [`MemoryAnalysis::peak_memory_in_bytes`] is the largest of). The
    /// equations of a fused group all run at once: each has the group's
    /// largest.
    pub live_bytes: Vec<usize>,
    /// Chains of element-wise equations run as one pass over memory
    /// ([`fuse`](super::fuse)), in order.
    pub fusions: Vec<super::fuse::Fusion>,
}

/// Liveness facts of a program.
pub(super) struct Liveness {
    /// Per variable: the last equation reading it (`None`: never read).
    pub(super) last: Vec<Option<usize>>,
    pub(super) output: Vec<bool>,
}

impl Liveness {
    /// A donated input lives at least until the last equation that may
    /// fail on values ([`crate::plan::FreshOp::fails_on_values`]: an index
    /// out of range, a singular matrix): its buffer is not written before
    /// that equation has run, so a failure there returns it intact.
    fn of(p: &Program, donated: &[bool]) -> Self {
        let mut last = vec![None; p.vars.len()];
        for (i, e) in p.eqns.iter().enumerate() {
            for a in &e.args {
                if let Atom::Var(v) = a {
                    last[*v as usize] = Some(i);
                }
            }
        }
        let fallible = p
            .eqns
            .iter()
            .rposition(|e| matches!(&e.op, Op::Fresh(f) if f.fails_on_values()));
        if let Some(f) = fallible {
            for (&v, _) in p.inputs.iter().zip(donated).filter(|(_, &d)| d) {
                let l = &mut last[v as usize];
                *l = Some(l.map_or(f, |l| l.max(f)));
            }
        }
        let mut output = vec![false; p.vars.len()];
        for &v in &p.outputs {
            output[v as usize] = true;
        }
        Liveness { last, output }
    }

    /// `v` is read for the last time by equation `i`.
    fn dies_at(&self, v: Var, i: usize) -> bool {
        !self.output[v as usize] && self.last[v as usize] == Some(i)
    }

    /// `v` is live after equation `i` (or never read: then it dies where
    /// it is defined).
    fn dead_after(&self, v: Var, i: usize) -> bool {
        !self.output[v as usize] && self.last[v as usize].is_none_or(|l| l <= i)
    }
}

/// The state of the planning walk.
struct Walk<'p> {
    p: &'p Program,
    live: Liveness,
    donated: &'p [bool],
    buffers: Vec<Buffer>,
    var_buffer: Vec<BufferId>,
    /// Per buffer: the variables holding it now.
    holders: Vec<SmallVec<[Var; 2]>>,
    /// Dead buffers that may be reused: `(buffer, died after eqn)`.
    free: Vec<(BufferId, usize)>,
    /// Bytes live during each equation (from the plan without reuse).
    usage: Vec<usize>,
    /// The peak without reuse: reuse may not exceed it.
    cap: Option<usize>,
    /// Per buffer: a kept free buffer's hold, added to `usage`.
    writes: Vec<bool>,
}

impl<'p> Walk<'p> {
    fn writable(&self, b: BufferId) -> bool {
        match self.buffers[b as usize].origin {
            Origin::Input(i) => self.donated[i],
            Origin::Const(_) => false,
            Origin::Alloc(_) => true,
        }
    }

    /// Argument `v` of equation `i` as planning sees it.
    fn desc(&self, v: Var, i: usize, args: &[Atom]) -> OperandDesc<'p> {
        let d = self.p.desc(v);
        let b = self.var_buffer[v as usize];
        let once = args.iter().filter(|a| **a == Atom::Var(v)).count() == 1;
        let alone = self.holders[b as usize].iter().all(|&u| u == v);
        if self.writable(b) && once && alone && self.live.dies_at(v, i) {
            d.offered(Offer::Temporary, Holders::Exclusive)
        } else {
            d
        }
    }

    fn new_buffer(&mut self, origin: Origin, bytes: usize) -> BufferId {
        let id = BufferId::try_from(self.buffers.len()).unwrap_or(BufferId::MAX);
        self.buffers.push(Buffer { origin, bytes });
        self.holders.push(SmallVec::new());
        self.writes.push(false);
        id
    }

    /// A buffer of `bytes` for equation `i`'s result: a free one of that
    /// size when keeping it from its death to `i` stays under the cap.
    fn result_buffer(&mut self, i: usize, bytes: usize, steps: &mut [Step]) -> (BufferId, bool) {
        if let Some(cap) = self.cap {
            let found = self.free.iter().rposition(|&(b, died)| {
                self.buffers[b as usize].bytes == bytes
                    && self.usage[died + 1..i].iter().all(|u| u + bytes <= cap)
            });
            if let Some(k) = found {
                let (b, died) = self.free.remove(k);
                for u in &mut self.usage[died + 1..i] {
                    *u += bytes;
                }
                steps[died].keep.push(b);
                return (b, true);
            }
        }
        (self.new_buffer(Origin::Alloc(i), bytes), false)
    }

    /// Plan equation `i` over its described arguments: the eager plan,
    /// and where its result goes.
    fn plan_eqn(
        &mut self,
        i: usize,
        descs: SmallVec<[OperandDesc<'p>; 3]>,
        steps: &mut [Step],
    ) -> Result<(Plan, Write)> {
        let p = self.p;
        let e = &p.eqns[i];
        let out = e.out;
        let out_bytes = p.vars[out as usize].nbytes();
        // A setitem writes over its target only when the target's buffer
        // may receive a result as any op's may (offered, and covering its
        // buffer in C order): the update's result is a variable of its
        // own, which the program (and every later plan) reads as C-order
        // data. Written through a strided target's layout it would not be.
        let setitem_in_place = matches!(e.op, Op::SetItem { .. })
            && descs[0].offer == Offer::Temporary
            && descs[0].coverage == Coverage::Whole;
        let mut plan = if let Op::SetItem { .. } = e.op {
            let borrowed: SmallVec<[OperandDesc<'_>; 3]> = descs
                .iter()
                .map(|d| OperandDesc {
                    offer: Offer::Borrowed,
                    holders: Holders::Exclusive,
                    ..d.clone()
                })
                .collect();
            plan_in_place(&e.op, &borrowed)?
        } else {
            plan(&e.op, &descs)?
        };
        drop(descs);
        let write = match (&e.op, plan.target) {
            (Op::SetItem { .. }, _) if setitem_in_place => Write::InPlace { arg: 0 },
            (Op::SetItem { .. }, _) => {
                plan.allocations.push(Allocation {
                    purpose: Purpose::Result,
                    bytes: out_bytes,
                });
                let (b, reused) = self.result_buffer(i, out_bytes, steps);
                Write::Buffer { buffer: b, reused }
            }
            _ if p.vars[out as usize].view.is_some() => Write::View,
            (_, Some(j)) if !plan.is_own_copy(j) => Write::InPlace { arg: j },
            _ => {
                let (b, reused) = self.result_buffer(i, out_bytes, steps);
                Write::Buffer { buffer: b, reused }
            }
        };
        Ok((plan, write))
    }

    /// Release the arguments that die at equation `i` (and its result,
    /// when nothing reads it); a writable buffer no variable holds any
    /// more becomes free. Returns the released variables.
    fn release(&mut self, i: usize) -> SmallVec<[Var; 4]> {
        let e = &self.p.eqns[i];
        let mut release: SmallVec<[Var; 4]> = SmallVec::new();
        for a in &e.args {
            if let Atom::Var(v) = *a {
                if self.live.dies_at(v, i) && !release.contains(&v) {
                    release.push(v);
                }
            }
        }
        if self.live.dead_after(e.out, i) {
            release.push(e.out);
        }
        // A donated input kept alive until a later equation that may fail
        // on values ([`Liveness::of`]) dies there.
        for (&v, _) in self.p.inputs.iter().zip(self.donated).filter(|(_, &d)| d) {
            if self.live.dies_at(v, i) && !release.contains(&v) {
                release.push(v);
            }
        }
        for &v in &release {
            let b = self.var_buffer[v as usize];
            self.holders[b as usize].retain(|u| *u != v);
            if self.holders[b as usize].is_empty() && self.writable(b) {
                self.free.push((b, i));
            }
        }
        release
    }

    fn bind(&mut self, v: Var, b: BufferId) {
        self.var_buffer[v as usize] = b;
        self.holders[b as usize].push(v);
    }
}

/// Plan every buffer of `program`; `donated[k]`: input `k` is donated.
/// See the [module docs](self).
pub fn lower(program: Program, donated: &[bool]) -> Result<Lowered> {
    if donated.len() != program.inputs.len() {
        return Err(Error::InvalidArgument {
            op: "jit",
            reason: format!(
                "{} donation flags for {} inputs",
                donated.len(),
                program.inputs.len()
            ),
        });
    }
    // Without reuse first: its peak caps the plan with reuse.
    let usage = walk(&program, donated, None)?.usage;
    let cap = usage.iter().copied().max().unwrap_or(0);
    let walked = walk(&program, donated, Some((cap, usage)))?;
    let mut l = finish(program, donated, walked);
    l.fusions = super::fuse::groups(&l);
    for g in &l.fusions {
        let most = l.live_bytes[g.range()].iter().copied().max().unwrap_or(0);
        l.live_bytes[g.range()].fill(most);
    }
    Ok(l)
}

/// What the walk decided, owned.
struct Walked {
    steps: Vec<Step>,
    buffers: Vec<Buffer>,
    var_buffer: Vec<BufferId>,
    /// Per buffer: an equation writes into it (in place, or reusing it).
    writes: Vec<bool>,
    live: Liveness,
    usage: Vec<usize>,
    first: Option<usize>,
}

fn walk(p: &Program, donated: &[bool], cap: Option<(usize, Vec<usize>)>) -> Result<Walked> {
    let (cap, usage) = match cap {
        Some((c, u)) => (Some(c), u),
        None => (None, vec![0; p.eqns.len()]),
    };
    let mut w = Walk {
        p,
        live: Liveness::of(p, donated),
        donated,
        buffers: Vec::new(),
        var_buffer: vec![BufferId::MAX; p.vars.len()],
        holders: Vec::new(),
        free: Vec::new(),
        usage,
        cap,
        writes: Vec::new(),
    };
    for (k, &v) in p.consts.iter().enumerate() {
        let b = w.new_buffer(Origin::Const(k), p.vars[v as usize].nbytes());
        w.bind(v, b);
    }
    for (k, &v) in p.inputs.iter().enumerate() {
        let b = w.new_buffer(Origin::Input(k), p.vars[v as usize].nbytes());
        w.bind(v, b);
    }
    // Inputs nobody reads die at once (a donated one is free from the start).
    let mut steps: Vec<Step> = Vec::with_capacity(p.eqns.len());
    for (i, e) in p.eqns.iter().enumerate() {
        let descs: SmallVec<[OperandDesc<'_>; 3]> = e
            .args
            .iter()
            .map(|a| match a {
                Atom::Var(v) => w.desc(*v, i, &e.args),
                Atom::Lit(s) => OperandDesc::scalar(*s),
            })
            .collect();
        let out = e.out;
        let (plan, write) = w.plan_eqn(i, descs, &mut steps)?;
        let out_buffer = match write {
            Write::InPlace { arg } => match e.args[arg] {
                Atom::Var(v) => w.var_buffer[v as usize],
                Atom::Lit(_) => unreachable!("a literal never receives a result"),
            },
            Write::View => match e.args.first() {
                Some(Atom::Var(v)) => w.var_buffer[*v as usize],
                _ => unreachable!("a view op has a tensor argument"),
            },
            Write::Buffer { buffer, .. } => buffer,
        };
        if write != Write::View && matches!(w.buffers[out_buffer as usize].origin, Origin::Input(_))
        {
            w.writes[out_buffer as usize] = true;
        }
        if let Write::Buffer {
            buffer,
            reused: true,
        } = write
        {
            w.writes[buffer as usize] = true;
        }
        // Bytes live during this equation: every held buffer, plus the
        // result's and the transient allocations.
        if w.cap.is_none() {
            // The caller's arguments and the constants stay for the whole
            // call, whether or not a variable still reads them.
            let held: usize = (0..w.buffers.len())
                .filter(|&b| !w.holders[b].is_empty() || !w.writable(b as BufferId))
                .map(|b| w.buffers[b].bytes)
                .sum();
            w.usage[i] = held + plan.allocated_bytes();
        }
        w.bind(out, out_buffer);
        let release = w.release(i);
        steps.push(Step {
            plan,
            write,
            release,
            keep: SmallVec::new(),
        });
    }
    let first = first_donated_write(p, &w, &steps);
    Ok(Walked {
        steps,
        buffers: w.buffers,
        var_buffer: w.var_buffer,
        writes: w.writes,
        live: w.live,
        usage: w.usage,
        first,
    })
}

/// The first equation writing into a donated input's buffer (in place, or
/// a kept buffer that was one).
fn first_donated_write(p: &Program, w: &Walk<'_>, steps: &[Step]) -> Option<usize> {
    let donated_buffer =
        |b: BufferId| matches!(w.buffers[b as usize].origin, Origin::Input(k) if w.donated[k]);
    steps.iter().enumerate().find_map(|(i, s)| {
        let hit = match s.write {
            Write::InPlace { arg } => match p.eqns[i].args[arg] {
                Atom::Var(v) => donated_buffer(w.var_buffer[v as usize]),
                Atom::Lit(_) => false,
            },
            Write::Buffer { buffer, reused } => reused && donated_buffer(buffer),
            Write::View => false,
        };
        hit.then_some(i)
    })
}

fn finish(program: Program, donated: &[bool], w: Walked) -> Lowered {
    let Walked {
        steps,
        buffers,
        var_buffer,
        writes,
        live,
        usage,
        first,
    } = w;
    let p = &program;
    let nbytes = |v: Var| p.vars[v as usize].nbytes();
    let mut aliases = Vec::new();
    for (o, &v) in p.outputs.iter().enumerate() {
        if let Origin::Input(k) = buffers[var_buffer[v as usize] as usize].origin {
            if donated[k] && !aliases.iter().any(|&(_, j)| j == k) {
                aliases.push((o, k));
            }
        }
    }
    let mut donors = Vec::new();
    let mut unusable = Vec::new();
    for (k, &v) in p.inputs.iter().enumerate() {
        if !donated[k] || aliases.iter().any(|&(_, j)| j == k) {
            continue;
        }
        if writes[var_buffer[v as usize] as usize] {
            donors.push(k);
        } else {
            unusable.push((k, unusable_reason(p, &steps, &live, v)));
        }
    }
    // A donated argument nothing uses is left to the caller, who keeps it
    // for the whole call: after the last variable on its buffer dies
    // (where `usage` stopped counting it) it is still there.
    let buffer_end = |b: BufferId| -> Option<usize> {
        let mut end = None;
        for (v, &vb) in var_buffer.iter().enumerate() {
            if vb == b {
                if live.output[v] {
                    return None;
                }
                end = end.max(live.last[v]);
            }
        }
        end
    };
    let left: Vec<(usize, usize)> = unusable
        .iter()
        .filter_map(|&(k, _)| {
            let v = p.inputs[k];
            buffer_end(var_buffer[v as usize]).map(|end| (end, nbytes(v)))
        })
        .collect();
    let after_death = |i: usize| -> usize {
        left.iter()
            .filter(|&&(end, _)| end < i)
            .map(|&(_, b)| b)
            .sum()
    };
    let argument_size: usize = p.inputs.iter().map(|&v| nbytes(v)).sum();
    let consts: usize = p.consts.iter().map(|&v| nbytes(v)).sum();
    let live_bytes: Vec<usize> = (0..steps.len())
        .map(|i| usage[i] + after_death(i))
        .collect();
    let peak = live_bytes
        .iter()
        .copied()
        .fold(argument_size + consts, usize::max);
    let output_size: usize = p.outputs.iter().map(|&v| nbytes(v)).sum();
    let alias_size: usize = aliases.iter().map(|&(o, _)| nbytes(p.outputs[o])).sum();
    let temp = temp_peak(p, &steps, &live, &var_buffer, &buffers);
    let plans: Vec<&crate::plan::Plan> = steps.iter().map(|s| &s.plan).collect();
    let bound = super::bound::peak_lower_bound(p, donated, &live, &plans);
    Lowered {
        memory: MemoryAnalysis {
            argument_size_in_bytes: argument_size,
            output_size_in_bytes: output_size,
            alias_size_in_bytes: alias_size,
            temp_size_in_bytes: temp,
            peak_memory_in_bytes: peak,
            peak_lower_bound_in_bytes: bound,
        },
        program,
        donated: donated.to_vec(),
        steps,
        buffers,
        var_buffer,
        aliases,
        donors,
        unusable,
        first_donated_write: first,
        live_bytes,
        fusions: Vec::new(),
    }
}

/// The most bytes of intermediates live at once: buffers the program
/// allocates that hold no output, from the equation that first writes
/// them to the last read of any variable they hold, plus each equation's
/// casts, copies and scratch.
fn temp_peak(
    p: &Program,
    steps: &[Step],
    live: &Liveness,
    var_buffer: &[BufferId],
    buffers: &[Buffer],
) -> usize {
    let n = steps.len();
    let mut span: Vec<Option<(usize, usize)>> = vec![None; buffers.len()];
    let mut output = vec![false; buffers.len()];
    for (i, e) in p.eqns.iter().enumerate() {
        let b = var_buffer[e.out as usize] as usize;
        if !matches!(buffers[b].origin, Origin::Alloc(_)) {
            continue;
        }
        output[b] |= live.output[e.out as usize];
        let end = live.last[e.out as usize].unwrap_or(i).max(i);
        span[b] = Some(match span[b] {
            Some((s, t)) => (s.min(i), t.max(end)),
            None => (i, end),
        });
    }
    let mut temp = vec![0usize; n];
    for (b, s) in span.iter().enumerate() {
        if let (Some((s, t)), false) = (s, output[b]) {
            for u in &mut temp[*s..=(*t).min(n.saturating_sub(1))] {
                *u += buffers[b].bytes;
            }
        }
    }
    for (i, st) in steps.iter().enumerate() {
        temp[i] += st
            .plan
            .allocations
            .iter()
            .filter(|a| a.purpose != Purpose::Result)
            .map(|a| a.bytes)
            .sum::<usize>();
    }
    temp.into_iter().max().unwrap_or(0)
}

/// Why nothing could use donated input `v`'s buffer.
fn unusable_reason(p: &Program, steps: &[Step], live: &Liveness, v: Var) -> String {
    let Some(i) = live.last[v as usize] else {
        return "the function does not use it".into();
    };
    let e = &p.eqns[i];
    let names = Names::new(p);
    let mut why = None;
    for (j, a) in e.args.iter().enumerate() {
        if *a != Atom::Var(v) {
            continue;
        }
        if let Some((_, r)) = steps[i].plan.refusals.iter().find(|(k, _)| *k == j) {
            why = Some(r.to_string());
        }
    }
    let why = why.unwrap_or_else(|| {
        if p.vars
            .iter()
            .enumerate()
            .any(|(u, info)| info.view.as_ref().is_some_and(|(r, _)| *r == v) && live.output[u])
        {
            "a view of it is returned, so its buffer must stay as it is".into()
        } else if p.vars.iter().enumerate().any(|(u, info)| {
            info.view.as_ref().is_some_and(|(r, _)| *r == v) && live.last[u].is_some_and(|l| l > i)
        }) {
            "a view of it is read after its last use".into()
        } else {
            "its buffer was not needed".into()
        }
    });
    format!(
        "its last use is `{}` ({}): {why}; no later result has its size",
        jaxpr_name(&e.op),
        names.eqn(p, e)
    )
}

impl Lowered {
    /// The same plan run equation by equation, without fused groups (the
    /// reference a fused run equals bit for bit).
    #[must_use]
    pub fn unfused(mut self) -> Self {
        self.fusions.clear();
        self
    }

    /// The fused group starting at equation `i`, if any (the groups are
    /// in order: a binary search, as the runner asks at every step).
    pub fn fusion_at(&self, i: usize) -> Option<&super::fuse::Fusion> {
        self.fusions
            .binary_search_by_key(&i, |g| g.start)
            .ok()
            .map(|k| &self.fusions[k])
    }

    /// How a call supplies each argument, from its description (holders,
    /// coverage, identity), as the eager planner decides an offered
    /// operand: an argument the program consumes (a donated alias or
    /// donor) is [`Claim::Take`]n when its buffer can be given up and it is
    /// passed once, else [`Claim::Copy`]ed with the reason (copy
    /// protection); every other argument is [`Claim::Read`].
    pub fn claims(&self, args: &[OperandDesc<'_>]) -> Vec<Claim> {
        let consumed = self.consumed();
        args.iter()
            .enumerate()
            .map(|(k, d)| {
                if !consumed.contains(&k) {
                    return Claim::Read;
                }
                let twice =
                    d.id.is_some() && args.iter().enumerate().any(|(j, e)| j != k && e.id == d.id);
                let why = if twice {
                    Some(Refusal::SameTensor)
                } else {
                    d.buffer_refusal()
                };
                why.map_or(Claim::Take, Claim::Copy)
            })
            .collect()
    }

    /// Inputs whose buffers the program consumes when donated (aliases and
    /// donors), in order.
    pub fn consumed(&self) -> Vec<usize> {
        let mut c: Vec<usize> = self
            .aliases
            .iter()
            .map(|&(_, k)| k)
            .chain(self.donors.iter().copied())
            .collect();
        c.sort_unstable();
        c
    }
}
