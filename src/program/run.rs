//! Running a planned program over the existing kernels.
//!
//! The runner follows the plan with the eager machinery: each equation is run
//! by [`execute_into`] with the argument the plan writes over passed as the only
//! handle on its buffer (so the core's claim takes it), and every other
//! argument as another handle (so no claim can take it). Variables are
//! dropped at their last use. A buffer the plan keeps for a later result
//! is taken out of its last handle into a pool, and handed to that
//! result's allocation ([`execute_into`]: after the equation's casts and
//! copies, which never take it). Where the run ever differs from
//! the plan (a claim refused, a kept buffer not used), the result still
//! goes to a new buffer and [`plan_mismatches`] counts it: the tests hold
//! it at zero.
//!
//! # Failures
//!
//! A donated argument's buffer is first written at
//! [`Lowered::first_donated_write`]. Until then the runner holds the
//! consumed arguments intact, and when an arena is current it allocates
//! every buffer the rest of the program needs right there, before that
//! write, and checks the room for each later step's temporaries, so that
//! the arena's budget fails the call before a donated argument is
//! touched. An equation's casts and copies come before its write
//! ([`execute_into`]); when one fails, the target goes back to its
//! variable. A failed run returns the consumed arguments it
//! still holds intact ([`RunError::returned`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use smallvec::SmallVec;

use super::fuse::{Env, Fusion};
use super::lower::{Lowered, Origin, Write};
use super::{Atom, BufferId, Var};
use crate::driver::execute::{execute_in_place_into, execute_into, Arg};
use crate::error::{Error, Result};
use crate::memory::buffer::{serve_planned, OwnedBuffer};
use crate::plan::{Op, Purpose};
use crate::DynTensor;

static MISMATCHES: AtomicU64 = AtomicU64::new(0);

/// How many times a run differed from its plan (a claim refused, a kept
/// buffer unused): a planner bug when not zero, never a wrong result.
pub fn plan_mismatches() -> u64 {
    MISMATCHES.load(Ordering::Relaxed)
}

fn mismatch() {
    MISMATCHES.fetch_add(1, Ordering::Relaxed);
}

/// An argument of [`Lowered::run`].
#[derive(Debug)]
pub enum RunArg {
    /// Read only: the caller keeps it (another handle on its buffer; a
    /// strided view is read through a C-order copy).
    Read(DynTensor),
    /// The only handle on a buffer the program may write: a donated
    /// argument the caller gave up, or its copy.
    Consumed(DynTensor),
}

/// A consumed argument handed back after a failed run.
#[derive(Debug)]
pub struct Donor {
    pub input: usize,
    pub tensor: DynTensor,
}

/// A failed run: the error, and the consumed arguments returned intact.
#[derive(Debug)]
pub struct RunError {
    pub error: Error,
    pub returned: Vec<Donor>,
}

/// The per-call state of a run.
struct Run<'l> {
    l: &'l Lowered,
    env: Vec<Option<DynTensor>>,
    pool: HashMap<BufferId, OwnedBuffer>,
    /// Consumed arguments released before the first donated write, held
    /// until then (so a failure can return them).
    pending: Vec<(usize, DynTensor)>,
    /// Per input: consumed.
    consumed: Vec<bool>,
}

impl Lowered {
    /// Run the program: `consts` are the captured constants, `args` one
    /// per input (a donated input that the plan consumes, claimed from
    /// its caller, as [`RunArg::Consumed`]). Returns the outputs.
    pub fn run(
        &self,
        consts: &[DynTensor],
        args: Vec<RunArg>,
    ) -> std::result::Result<Vec<DynTensor>, RunError> {
        let p = &self.program;
        let mut run = Run {
            l: self,
            env: vec![None; p.vars.len()],
            pool: HashMap::new(),
            pending: Vec::new(),
            consumed: vec![false; p.inputs.len()],
        };
        if consts.len() != p.consts.len() || args.len() != p.inputs.len() {
            return Err(RunError {
                error: Error::InvalidArgument {
                    op: "jit",
                    reason: format!(
                        "{} constants and {} arguments given to a program of {} and {}",
                        consts.len(),
                        args.len(),
                        p.consts.len(),
                        p.inputs.len()
                    ),
                },
                returned: Vec::new(),
            });
        }
        // Read through readers: a front end may write through a view of a
        // captured tensor meanwhile, and waits for them (the write, which
        // holds nothing this run needs, is waited for here).
        for (&v, c) in p.consts.iter().zip(consts) {
            let r = loop {
                match c.reader() {
                    Err(Error::Busy) => std::thread::yield_now(),
                    r => break r,
                }
            };
            run.env[v as usize] = Some(r.map_err(|error| RunError {
                error,
                returned: Vec::new(),
            })?);
        }
        for (k, (&v, a)) in p.inputs.iter().zip(args).enumerate() {
            run.env[v as usize] = Some(match a {
                RunArg::Read(t) => t,
                RunArg::Consumed(t) => {
                    run.consumed[k] = true;
                    t
                }
            });
        }
        let result = run.c_order_inputs().and_then(|()| run.all());
        match result {
            Ok(out) => Ok(out),
            Err(error) => Err(RunError {
                error,
                returned: run.give_back(),
            }),
        }
    }
}

impl Run<'_> {
    /// The program was traced for C-order inputs and constants: one that
    /// is a strided view is read through a C-order copy (a consumed input
    /// always covers its buffer).
    fn c_order_inputs(&mut self) -> Result<()> {
        let p = &self.l.program;
        for &v in p.inputs.iter().chain(&p.consts) {
            if let Some(t) = self.env[v as usize].as_mut() {
                if !t.coverage().is_contiguous() {
                    *t = t.contiguous()?;
                }
            }
        }
        Ok(())
    }

    fn all(&mut self) -> Result<Vec<DynTensor>> {
        let l = self.l;
        let mut i = 0;
        while i < l.steps.len() {
            if let Some(g) = l.fusion_at(i) {
                if let Some(w) = l.first_donated_write.filter(|w| g.range().contains(w)) {
                    self.before_first_write(w)?;
                }
                self.fused(g)?;
                i = g.end;
                continue;
            }
            if l.first_donated_write == Some(i) {
                self.before_first_write(i)?;
            }
            self.step(i)?;
            i += 1;
        }
        l.program
            .outputs
            .iter()
            .map(|&v| {
                self.env[v as usize]
                    .clone()
                    .ok_or_else(|| Error::InvalidArgument {
                        op: "jit",
                        reason: "an output was released before the end".into(),
                    })
            })
            .collect()
    }

    /// Before the first write into a donated argument: under an arena,
    /// allocate every buffer the rest of the program allocates and check
    /// the room for each later step's temporaries (so the budget fails
    /// now, with every argument intact); then let go of the consumed
    /// arguments held so far.
    fn before_first_write(&mut self, w: usize) -> Result<()> {
        if let Some(arena) = crate::memory::arena::current() {
            for (b, buf) in self.l.buffers.iter().enumerate() {
                if matches!(buf.origin, Origin::Alloc(j) if j >= w) {
                    let id = BufferId::try_from(b).unwrap_or(BufferId::MAX);
                    self.pool.insert(id, OwnedBuffer::zeroed(buf.bytes)?);
                }
            }
            // The rest of the program allocates nothing else but each
            // step's casts, copies and scratch, freed within the step:
            // room for the largest of them must be there now.
            for st in &self.l.steps[w..] {
                let temporaries: SmallVec<[usize; 4]> = st
                    .plan
                    .allocations
                    .iter()
                    .filter(|a| a.purpose != Purpose::Result)
                    .map(|a| a.bytes)
                    .collect();
                arena.check_room(&temporaries)?;
            }
        }
        self.pending.clear();
        Ok(())
    }

    fn handle(&self, v: Var) -> Result<DynTensor> {
        self.read(v).cloned()
    }

    /// The buffer the plan gives equation `i`'s result, if it writes a
    /// buffer of the pool (served to its allocation: `serve_planned`).
    fn planned_for(&mut self, i: usize) -> Vec<OwnedBuffer> {
        let l = self.l;
        let mut planned = Vec::new();
        if let Write::Buffer { buffer, .. } = l.steps[i].write {
            if let Some(b) = self.pool.remove(&buffer) {
                let bytes = l.program.vars[l.program.eqns[i].out as usize].nbytes();
                planned.extend(b.with_len(bytes));
            }
        }
        planned
    }

    /// A planned buffer equation `i` did not use (a plan mismatch) goes
    /// back to the pool.
    fn unused_planned(&mut self, i: usize, left: Vec<OwnedBuffer>) {
        if left.is_empty() {
            return;
        }
        mismatch();
        if let Write::Buffer { buffer, .. } = self.l.steps[i].write {
            for b in left {
                self.pool.insert(buffer, b);
            }
        }
    }

    fn step(&mut self, i: usize) -> Result<()> {
        let l = self.l;
        let e = &l.program.eqns[i];
        let st = &l.steps[i];
        let planned = self.planned_for(i);
        let target = match st.write {
            Write::InPlace { arg } => Some(arg),
            _ => None,
        };
        let mut target_handle: Option<DynTensor> = None;
        let mut args: SmallVec<[Arg<'_>; 3]> = SmallVec::new();
        for (j, a) in e.args.iter().enumerate() {
            args.push(match *a {
                Atom::Lit(s) => Arg::Scalar(s),
                Atom::Var(v) if target == Some(j) => {
                    Arg::Tensor(self.env[v as usize].take().ok_or_else(|| {
                        Error::InvalidArgument {
                            op: "jit",
                            reason: format!("variable {v} written after its release"),
                        }
                    })?)
                }
                Atom::Var(v) => Arg::Tensor(self.handle(v)?),
            });
        }
        if let Op::SetItem { .. } = e.op {
            // The target: its only handle (written in place), or another
            // handle (copied on write, into the planned buffer).
            if let Some(Arg::Tensor(t)) = args
                .first_mut()
                .map(|a| std::mem::replace(a, Arg::Scalar(crate::Scalar::Int(0))))
            {
                target_handle = Some(t);
            }
            if let Some(t) = target_handle.as_mut() {
                args[0] = Arg::Held(t);
            }
        }
        let setitem = matches!(args.first(), Some(Arg::Held(_)));
        let plan = &st.plan;
        let planned_at = planned.first().map(OwnedBuffer::as_ptr);
        let (result, left) = if setitem {
            let (r, left) = execute_in_place_into(plan, &mut args, planned);
            let r = r.map(|outcome| {
                if target.is_some() && outcome.reused != Some(0) {
                    mismatch();
                }
                None
            });
            (r, left)
        } else {
            let (r, left) = execute_into(plan, &mut args, planned);
            let r = r.map(|(t, outcome)| {
                if target.is_some() && outcome.reused != target {
                    mismatch();
                }
                Some(t)
            });
            (r, left)
        };
        // `execute` allocates its casts and copies before it claims the
        // target: a failure there (an arena's budget) leaves the target as
        // it was. It goes back to its variable, so that a failed run
        // returns a consumed argument intact ([`Run::give_back`]).
        let mut back = None;
        if let (Err(_), Some(j)) = (&result, target) {
            if let Arg::Tensor(t) =
                std::mem::replace(&mut args[j], Arg::Scalar(crate::Scalar::Int(0)))
            {
                back = Some(t);
            }
        }
        drop(args);
        if let (Err(_), Some(j)) = (&result, target) {
            if let (Some(t), Atom::Var(v)) = (back.or_else(|| target_handle.take()), e.args[j]) {
                if t.check_readable().is_ok() {
                    self.env[v as usize] = Some(t);
                }
            }
        }
        if let (Some(at), true, Ok(Some(t))) = (planned_at, left.is_empty(), &result) {
            if t.buffer_ptr() != Some(at) {
                // The planned buffer went to another allocation of the
                // same length (a kernel's scratch), not to the result.
                mismatch();
            }
        }
        let result = result.and_then(|r| {
            r.or_else(|| target_handle.take())
                .ok_or_else(|| Error::InvalidArgument {
                    op: "jit",
                    reason: "a setitem without a target".into(),
                })
        });
        self.unused_planned(i, left);
        self.env[e.out as usize] = Some(result?);
        self.release(i);
        Ok(())
    }

    /// Run fused group `g` ([`super::fuse`]) as one step: its result
    /// where the plan puts the first equation's (in place over its
    /// operand, or the planned buffer), then the releases of all its
    /// equations in order.
    fn fused(&mut self, g: &Fusion) -> Result<()> {
        let l = self.l;
        let p = &l.program;
        let first = &p.eqns[g.start];
        let st = &l.steps[g.start];
        let planned = self.planned_for(g.start);
        let target = match st.write {
            Write::InPlace { arg } => match first.args[arg] {
                Atom::Var(v) => Some((
                    v,
                    self.env[v as usize]
                        .take()
                        .ok_or_else(|| Error::InvalidArgument {
                            op: "jit",
                            reason: format!("variable {v} written after its release"),
                        })?,
                )),
                Atom::Lit(_) => None,
            },
            _ => None,
        };
        let dtype = p.vars[first.out as usize].dtype;
        let env = &*self;
        let (result, left) = serve_planned(planned, || {
            crate::array::dyn_tensor::for_dtype!(dtype, T => {
                super::fuse::run_group::<T>(l, g, target, env)
            })
        });
        self.unused_planned(g.start, left);
        let (result, refused) = result?;
        if refused {
            mismatch();
        }
        super::fuse::record(l, g);
        self.env[p.eqns[g.end - 1].out as usize] = Some(result);
        for i in g.range() {
            self.release(i);
        }
        Ok(())
    }

    /// Drop the variables that die at equation `i`, keeping the buffers the
    /// plan reuses later, and holding consumed arguments until the first
    /// donated write.
    fn release(&mut self, i: usize) {
        let l = self.l;
        let st = &l.steps[i];
        let before_write = l.first_donated_write.is_none_or(|w| i < w);
        let mut kept: SmallVec<[(BufferId, DynTensor); 4]> = SmallVec::new();
        for &v in &st.release {
            let Some(t) = self.env[v as usize].take() else {
                continue;
            };
            let b = l.var_buffer[v as usize];
            if st.keep.contains(&b) {
                kept.push((b, t));
                continue;
            }
            if before_write {
                if let Some(k) = l
                    .program
                    .inputs
                    .iter()
                    .position(|&u| u == v)
                    .filter(|&k| self.consumed[k])
                {
                    self.pending.push((k, t));
                    continue;
                }
            }
            drop(t);
        }
        // A kept buffer is taken from the last handle released on it.
        while let Some((b, mut t)) = kept.pop() {
            let others: SmallVec<[DynTensor; 2]> = {
                let (same, rest): (SmallVec<[_; 4]>, SmallVec<[_; 4]>) =
                    kept.drain(..).partition(|(c, _)| *c == b);
                kept = rest;
                same.into_iter().map(|(_, t)| t).collect()
            };
            drop(others);
            // The only handle (a view's handle is one too: the value is
            // dead, the buffer is recycled as memory).
            if !t.ownership().is_exclusive() {
                // Held by a consumed argument kept for a failure: take it
                // from there.
                let ptr = t.buffer_ptr();
                drop(t);
                let Some(k) = self.pending.iter().position(|(_, p)| p.buffer_ptr() == ptr) else {
                    mismatch();
                    continue;
                };
                t = self.pending.swap_remove(k).1;
            }
            match t.recycle_buffer("jit") {
                Ok(buf) => {
                    self.pool.insert(b, buf);
                }
                Err(_) => mismatch(),
            }
        }
    }

    /// After a failure: the consumed arguments still intact.
    fn give_back(&mut self) -> Vec<Donor> {
        let l = self.l;
        let p = &l.program;
        let mut out = Vec::new();
        let pending = std::mem::take(&mut self.pending);
        let mut env = std::mem::take(&mut self.env);
        for (k, &v) in p.inputs.iter().enumerate() {
            if !self.consumed[k] {
                continue;
            }
            let from_env = env[v as usize].take();
            let from_pending = pending
                .iter()
                .find(|(j, _)| *j == k)
                .map(|(_, t)| t.clone());
            let b = l.var_buffer[v as usize];
            let tensor = from_env.or(from_pending).or_else(|| {
                let info = &p.vars[v as usize];
                let buf = self.pool.remove(&b)?.with_len(info.nbytes())?;
                DynTensor::from_buffer(info.dtype, buf, &info.shape).ok()
            });
            if let Some(t) = tensor {
                out.push(Donor {
                    input: k,
                    tensor: t,
                });
            }
        }
        // The program's other handles (views) go with the environment, so
        // each returned tensor is the only handle on its buffer again.
        drop(pending);
        drop(env);
        out
    }
}

impl Env for Run<'_> {
    fn read(&self, v: Var) -> Result<&DynTensor> {
        self.env[v as usize]
            .as_ref()
            .ok_or_else(|| Error::InvalidArgument {
                op: "jit",
                reason: format!("variable {v} read after its release"),
            })
    }
}
