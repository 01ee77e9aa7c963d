//! Tracing and running programs (`donate.jit`, `donate.make_jaxpr`): the
//! translation between Python and [`donate::program`].
//!
//! A *tracer* is a `Tensor` whose value is a variable of a program being
//! recorded. Every operation reaches the one call sequence of
//! [`super::operands`]; when an operand is a tracer, the operation is
//! recorded ([`record`], [`record_update`]) instead of run. Anything that
//! needs a value raises `TracerError`. Concrete tensors an operation
//! meets while tracing (weights captured by a closure, data made inside
//! the function) become the program's constants.
//!
//! Running ([`PyLowered::run`]) decides, per donated argument, what the
//! caller gives up: an exclusive buffer is taken (the caller's tensor is
//! moved-from, naming the jitted function); a shared one is copied first,
//! with a `DonationWarning` (XLA's copy protection). A failed run puts
//! every argument it still holds back.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

use crate::tensor::Interp;
use pyo3::types::PyList;

use super::errors::{warn_all_at, IntoPyResult};
use super::inputs::{Input, Inputs, TensorRef};
use super::tensor::read;
use super::tensor::PyTensor;
use super::tracing::{
    lock, tracer_error, Trace, Tracer, CURRENT_TRACE, CURRENT_TRACE_SINCE, MOVED, NEXT_TRACE,
    TRACES_RUNNING,
};
use donate::driver::call::Operand;
use donate::plan::{Holders, Offer, Op, OperandDesc, Refusal};
use donate::program::{lower, Atom, Builder, Claim, Lowered, Program, RunArg, Var};
use donate::{DType, DynTensor, Outcome, ReadLog, ReadSet};

impl Trace {
    pub(crate) fn tracer(self: &Arc<Self>, var: Var, dtype: DType, shape: &[usize]) -> PyTensor {
        PyTensor::traced(
            Tracer {
                trace: Arc::clone(self),
                var: AtomicU32::new(var),
            },
            dtype,
            shape,
        )
    }
}

/// The trace of the first tracer among the operands of `op`.
fn trace_of(op: &Op, inputs: &Inputs<'_>) -> PyResult<Arc<Trace>> {
    inputs
        .iter()
        .find_map(|i| match i {
            Operand::Held(t, _) => t.get().tracer().map(|tr| Arc::clone(&tr.trace)),
            _ => None,
        })
        .ok_or_else(|| tracer_error(op.name(), "no tracer among the operands"))
}

/// An operand as a program atom (a concrete tensor becomes a constant).
fn atom(py: Python<'_>, trace: &Arc<Trace>, op: &Op, src: Input<'_>) -> PyResult<Atom> {
    Ok(match src {
        Operand::Number(s) => Atom::Lit(s),
        Operand::Made(t) => Atom::Var(trace.constant(&t)?),
        Operand::Held(obj, _) => {
            let me = obj.get();
            match me.tracer() {
                Some(tr) if Arc::ptr_eq(&tr.trace, trace) => Atom::Var(tr.var(op.name())?),
                Some(_) => {
                    return Err(tracer_error(
                        op.name(),
                        "a tracer of another trace was used",
                    ))
                }
                // A captured tensor the program reads when it runs: not a
                // read of this trace (`donate::read_log`).
                None => Atom::Var(trace.constant(&donate::unlogged(|| read(py, me))?)?),
            }
        }
    })
}

/// Record `op` over `inputs` (at least one a tracer): a new tracer.
pub(crate) fn record(py: Python<'_>, op: &Op, inputs: Inputs<'_>) -> PyResult<PyTensor> {
    let trace = trace_of(op, &inputs)?;
    let mut atoms = Vec::with_capacity(inputs.len());
    let (mut donated, mut refused) = (Vec::new(), Vec::new());
    for (i, input) in inputs.into_iter().enumerate() {
        sort_donation(op, i, &input, None, &mut donated, &mut refused);
        atoms.push(atom(py, &trace, op, input)?);
    }
    let v = trace.with_builder(op.name(), |b| b.push(op.clone(), &atoms))?;
    warn_all_at(py, refused, 1)?;
    last_use(&trace, op, &donated)?;
    let info = trace.with_builder(op.name(), |b| b.info(v).cloned())?;
    Ok(trace.tracer(v, info.dtype, &info.shape))
}

/// An explicit donation inside a traced function is a last use: the
/// tracers are moved-from. A donated input (or a view of one) is
/// remembered: the caller's buffer is given up only if the caller donated
/// that argument.
fn last_use(trace: &Arc<Trace>, op: &Op, donated: &[Bound<'_, PyTensor>]) -> PyResult<()> {
    for t in donated {
        if let Some(tr) = t.get().tracer() {
            let v = tr.var.swap(MOVED, Ordering::AcqRel);
            if v == MOVED {
                continue;
            }
            if let Some(k) = trace.with_builder(op.name(), |b| Ok(b.input_of(v)))? {
                let mut explicit = lock(&trace.explicit);
                if !explicit.iter().any(|&(j, _)| j == k) {
                    explicit.push((k, op.name()));
                }
            }
        }
    }
    Ok(())
}

/// Operand `i` of a traced `op`, when offered as donated: a tracer's
/// donation is a last use (into `donated`; not `target`'s, the tensor an
/// in-place update rebinds); a concrete tensor becomes a constant, which
/// every call reads, so its donation is refused once, at trace time (its
/// warning into `refused`).
fn sort_donation<'py>(
    op: &Op,
    i: usize,
    input: &Input<'py>,
    target: Option<&Bound<'py, PyTensor>>,
    donated: &mut Vec<Bound<'py, PyTensor>>,
    refused: &mut Vec<String>,
) {
    let Operand::Held(t, Offer::Donated) = input else {
        return;
    };
    if t.get().tracer().is_none() {
        refused.push(format!(
            "{}: {} ({}) was donated but not used: {}; it is unchanged",
            op.name(),
            op.label(i),
            t.get().shape_str(),
            donate::plan::Refusal::Captured
        ));
    } else if !target.is_some_and(|g| t.is(g)) {
        donated.push(t.0.clone());
    }
}

/// Record an in-place update of `target` (`x op= y`, `x[i] = v`): the
/// tracer is rebound to the updated value.
pub(crate) fn record_update(
    py: Python<'_>,
    op: &Op,
    target: &Bound<'_, PyTensor>,
    others: Inputs<'_>,
) -> PyResult<Outcome> {
    let me = target.get();
    if me.tracer().is_none() {
        // A tensor made while this trace runs (`out = donate.zeros(...)`,
        // then `out[0] = x`) becomes a tracer, starting from its value as
        // a constant. A tensor from outside cannot (the core's rule).
        let trace = trace_of(op, &others)?;
        let value = read(py, me)?;
        donate::driver::call::check_traced_write(op, &value, trace.since).py()?;
        let v = trace.constant(&value)?;
        me.become_tracer(Tracer {
            trace,
            var: AtomicU32::new(v),
        });
    }
    let Some(tr) = me.tracer() else {
        return Err(tracer_error(
            op.name(),
            "the tensor could not become a tracer",
        ));
    };
    let trace = Arc::clone(&tr.trace);
    let mut atoms = vec![Atom::Var(tr.var(op.name())?)];
    let (mut donated, mut refused) = (Vec::new(), Vec::new());
    for (i, input) in others.into_iter().enumerate() {
        sort_donation(op, i + 1, &input, Some(target), &mut donated, &mut refused);
        atoms.push(atom(py, &trace, op, input)?);
    }
    let v = trace.with_builder(op.name(), |b| b.push_update(op.clone(), &atoms))?;
    tr.var.store(v, Ordering::Release);
    last_use(&trace, op, &donated)?;
    warn_all_at(py, refused, 1)?;
    Ok(Outcome::default())
}

/// A trace in progress: `_Trace([(dtype, shape), ...])`, its input
/// tracers, and `finish(outputs)`.
#[pyclass(module = "donate._core", name = "_Trace", frozen)]
pub(crate) struct PyTrace {
    trace: Arc<Trace>,
    inputs: Vec<(Var, DType, Vec<usize>)>,
    /// The trace that ran on this thread before this one, and when it
    /// began (restored by `finish`).
    outer: (u32, u64),
    /// Counted in `TRACES_RUNNING` (until `finish` or drop).
    running: std::sync::atomic::AtomicBool,
    /// The reads of earlier buffers while the trace runs (values computed
    /// eagerly from captured tensors), closed when it ends.
    log: Mutex<Option<ReadLog>>,
    reads: Mutex<Option<ReadSet>>,
}

impl PyTrace {
    /// The trace no longer runs on this thread.
    fn end(&self) {
        if let Some(log) = lock(&self.log).take() {
            *lock(&self.reads) = Some(log.close());
        }
        if self.running.swap(false, Ordering::AcqRel) {
            if CURRENT_TRACE.with(std::cell::Cell::get) == self.trace.id {
                CURRENT_TRACE.with(|c| c.set(self.outer.0));
                CURRENT_TRACE_SINCE.with(|c| c.set(self.outer.1));
            }
            TRACES_RUNNING.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl Drop for PyTrace {
    fn drop(&mut self) {
        self.end();
    }
}

#[pymethods]
impl PyTrace {
    #[new]
    fn py_new(py: Python<'_>, types: Vec<(Bound<'_, PyAny>, Vec<usize>)>) -> PyResult<Self> {
        let mut b = Builder::new();
        let mut inputs = Vec::with_capacity(types.len());
        for (d, shape) in types {
            let d = super::interop::dtype_arg(py, Some(&d))?.unwrap_or(DType::DEFAULT_FLOAT);
            inputs.push((b.input(d, &shape), d, shape));
        }
        let id = NEXT_TRACE.fetch_add(1, Ordering::Relaxed).max(1);
        let since = donate::storages_made();
        let outer = (
            CURRENT_TRACE.with(|c| c.replace(id)),
            CURRENT_TRACE_SINCE.with(|c| c.replace(since)),
        );
        TRACES_RUNNING.fetch_add(1, Ordering::AcqRel);
        let log = ReadLog::open(since);
        Ok(PyTrace {
            trace: Arc::new(Trace {
                id,
                since,
                builder: Mutex::new(Some(b)),
                explicit: Mutex::new(Vec::new()),
            }),
            inputs,
            outer,
            running: std::sync::atomic::AtomicBool::new(true),
            log: Mutex::new(Some(log)),
            reads: Mutex::new(None),
        })
    }

    /// The input tracers, one per type given.
    fn inputs(&self) -> Vec<PyTensor> {
        self.inputs
            .iter()
            .map(|(v, d, s)| self.trace.tracer(*v, *d, s))
            .collect()
    }

    /// End the trace with `outputs` (tensors: tracers of this trace, or
    /// concrete tensors, which become constants) and return the program.
    /// Tracers used after this raise `TracerError`.
    #[allow(clippy::needless_pass_by_value)] // PyO3 extracts the list into a Vec
    fn finish(&self, py: Python<'_>, outputs: Vec<Bound<'_, PyTensor>>) -> PyResult<PyProgram> {
        self.end();
        let mut outs = Vec::with_capacity(outputs.len());
        for o in &outputs {
            let Atom::Var(v) = atom(
                py,
                &self.trace,
                &Op::Reshape { shape: vec![] },
                Operand::Held(TensorRef(o.clone()), Offer::Borrowed),
            )?
            else {
                unreachable!("a tensor is a variable");
            };
            outs.push(v);
        }
        let b = lock(&self.trace.builder)
            .take()
            .ok_or_else(|| tracer_error("trace", "the trace was already finished"))?;
        let (program, consts) = b.finish_captured(&outs).py()?;
        let explicit = std::mem::take(&mut *lock(&self.trace.explicit));
        Ok(PyProgram {
            program: Arc::new(program),
            consts: Arc::new(consts),
            explicit: Arc::new(explicit),
            reads: Arc::new(lock(&self.reads).take().unwrap_or_default()),
        })
    }
}

/// A traced program (what `donate.make_jaxpr` returns); `str()` prints it
/// in the jaxpr grammar.
#[pyclass(module = "donate", name = "Program", frozen)]
pub(crate) struct PyProgram {
    program: Arc<Program>,
    consts: Arc<Vec<DynTensor>>,
    /// Inputs donated explicitly inside the function, by index, with the
    /// operation.
    explicit: Arc<Vec<(usize, &'static str)>>,
    /// The buffers from before the trace that it read eagerly.
    reads: Arc<ReadSet>,
}

#[pymethods]
impl PyProgram {
    /// Whether a tensor the traced function read while tracing (to compute
    /// a value from a captured tensor alone: `w.sum()`) was written since,
    /// or is gone: the program's constants are then out of date, and
    /// `donate.jit` traces the function again.
    #[getter]
    fn stale(&self) -> bool {
        self.reads.written()
    }

    fn __str__(&self) -> String {
        self.program.to_string()
    }

    fn __repr__(&self) -> String {
        self.program.to_string()
    }

    /// Number of equations.
    #[getter]
    fn num_eqns(&self) -> usize {
        self.program.eqns.len()
    }

    /// Plan every buffer (`donated[k]`: input `k` is donated); warns
    /// `DonationWarning` for donated inputs nothing can use. `labels[k]`
    /// names input `k` in messages (`argument 0 'a'`).
    #[pyo3(signature = (donated, name, labels, stacklevel = 1))]
    #[allow(clippy::needless_pass_by_value)] // PyO3 extracts the list into a Vec
    fn lower(
        &self,
        py: Python<'_>,
        donated: Vec<bool>,
        name: String,
        labels: Vec<String>,
        stacklevel: i32,
    ) -> PyResult<PyLowered> {
        let program = (*self.program).clone();
        let lowered = lower(program, &donated).py()?;
        let label = |k: usize| {
            labels
                .get(k)
                .cloned()
                .unwrap_or_else(|| format!("argument {k}"))
        };
        // An explicit donation inside the function of an argument the
        // caller did not donate: refused (the caller keeps its buffer).
        let mut messages: Vec<String> = self
            .explicit
            .iter()
            .filter(|&&(k, _)| !donated.get(k).copied().unwrap_or(false))
            .map(|&(k, op)| {
                format!(
                    "{op}: {} was donated inside the traced function but was not used: it is not donated to jit({name}) \
                     (donate_argnums, donate_argnames), so the program reads it and the caller's tensor is unchanged",
                    label(k)
                )
            })
            .collect();
        messages.extend(lowered.unusable.iter().map(|(k, why)| {
            let v = lowered.program.inputs[*k];
            let info = &lowered.program.vars[v as usize];
            let dims: Vec<String> = info.shape.iter().map(ToString::to_string).collect();
            format!(
                "Some donated buffers were not usable: {}[{}] ({}): {why}",
                info.dtype,
                dims.join(", "),
                label(*k)
            )
        }));
        warn_all_at(py, messages, stacklevel)?;
        let consumer: &'static str = Box::leak(format!("jit({name})").into_boxed_str());
        Ok(PyLowered {
            lowered: Arc::new(lowered),
            consts: Arc::clone(&self.consts),
            name,
            consumer,
            labels,
            program: Py::new(
                py,
                PyProgram {
                    program: Arc::clone(&self.program),
                    consts: Arc::clone(&self.consts),
                    explicit: Arc::clone(&self.explicit),
                    reads: Arc::clone(&self.reads),
                },
            )?,
        })
    }
}

/// `memory_analysis()`'s result, under JAX's field names.
#[pyclass(module = "donate", name = "MemoryAnalysis", frozen, get_all)]
#[allow(clippy::struct_field_names)] // JAX's field names
pub(crate) struct PyMemoryAnalysis {
    /// Bytes of all the arguments.
    argument_size_in_bytes: usize,
    /// Bytes of all the outputs (those written into donated arguments too).
    output_size_in_bytes: usize,
    /// Bytes of the outputs written into donated arguments' buffers.
    alias_size_in_bytes: usize,
    /// The most bytes of intermediates live at once (scratch and casts
    /// included).
    temp_size_in_bytes: usize,
    /// The most bytes live at once during a call: arguments, constants,
    /// intermediates and outputs.
    peak_memory_in_bytes: usize,
    /// The least any plan of the same order of equations could peak at:
    /// the bytes liveness needs at the busiest equation. Not a JAX field.
    peak_lower_bound_in_bytes: usize,
}

#[pymethods]
impl PyMemoryAnalysis {
    fn __repr__(&self) -> String {
        format!(
            "MemoryAnalysis(argument_size_in_bytes={}, output_size_in_bytes={}, alias_size_in_bytes={}, temp_size_in_bytes={}, peak_memory_in_bytes={}, peak_lower_bound_in_bytes={})",
            self.argument_size_in_bytes, self.output_size_in_bytes, self.alias_size_in_bytes, self.temp_size_in_bytes, self.peak_memory_in_bytes, self.peak_lower_bound_in_bytes
        )
    }
}

/// A program with its buffers planned (what `f.lower(...)` returns).
#[pyclass(module = "donate", name = "Lowered", frozen)]
pub(crate) struct PyLowered {
    lowered: Arc<Lowered>,
    consts: Arc<Vec<DynTensor>>,
    name: String,
    /// `jit(<name>)`, the consumer a moved-from argument names.
    consumer: &'static str,
    labels: Vec<String>,
    program: Py<PyProgram>,
}

#[pymethods]
impl PyLowered {
    /// The plan: XLA's header (`input_output_alias`, `buffer_donor`),
    /// then each equation with the buffer it writes.
    fn as_text(&self) -> String {
        self.lowered.as_text(&self.name)
    }

    /// The planned memory, under JAX's names: arguments, outputs, the
    /// outputs written into donated arguments, the most intermediate bytes
    /// live at once, and the peak of a call; and the peak's lower bound
    /// (the least any plan of this order of equations needs).
    fn memory_analysis(&self) -> PyMemoryAnalysis {
        let m = self.lowered.memory;
        PyMemoryAnalysis {
            argument_size_in_bytes: m.argument_size_in_bytes,
            output_size_in_bytes: m.output_size_in_bytes,
            alias_size_in_bytes: m.alias_size_in_bytes,
            temp_size_in_bytes: m.temp_size_in_bytes,
            peak_memory_in_bytes: m.peak_memory_in_bytes,
            peak_lower_bound_in_bytes: m.peak_lower_bound_in_bytes,
        }
    }

    /// `(output, argument)` pairs: the output is written into the donated
    /// argument's buffer.
    #[getter]
    fn aliases(&self) -> Vec<(usize, usize)> {
        self.lowered.aliases.clone()
    }

    /// Donated arguments whose buffers only host intermediates.
    #[getter]
    fn donors(&self) -> Vec<usize> {
        self.lowered.donors.clone()
    }

    /// The traced program.
    #[getter]
    fn jaxpr(&self, py: Python<'_>) -> Py<PyProgram> {
        self.program.clone_ref(py)
    }

    /// Run over `args` (one tensor per input). Donated arguments the plan
    /// consumes are taken when exclusive, else copied with a warning.
    #[allow(clippy::needless_pass_by_value)] // PyO3 extracts the list into a Vec
    fn run<'py>(
        &self,
        py: Python<'py>,
        args: Vec<Bound<'py, PyTensor>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let l = &*self.lowered;
        let p = &l.program;
        if args.len() != p.inputs.len() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "jit({}): {} arguments for a program of {}",
                self.name,
                args.len(),
                p.inputs.len()
            )));
        }
        self.check_args(&args)?;
        // Every argument is read first (so that its handle exists while the
        // others are described), then described as the planner sees an
        // offered operand; the core decides each claim.
        let mut handles: Vec<Option<DynTensor>> = args
            .iter()
            .map(|a| read(py, a.get()).map(Some))
            .collect::<PyResult<_>>()?;
        let consumed = l.consumed();
        let descs: Vec<OperandDesc<'_>> = args
            .iter()
            .enumerate()
            .map(|(k, a)| {
                let me = a.get();
                let d = OperandDesc::tensor(me.dtype, &me.shape).with_id(a.as_ptr() as usize);
                if !consumed.contains(&k) {
                    return d;
                }
                drop(handles[k].take()); // (its own handle: not another holder)
                let g = me.slot.lock(&Interp(py));
                d.offered(Offer::Donated, Holders::from(g.ownership()))
                    .covering(g.coverage())
            })
            .collect();
        let claims = l.claims(&descs);
        drop(descs);
        let mut messages = Vec::new();
        for (k, c) in claims.iter().enumerate() {
            if let Claim::Copy(why) = c {
                let me = args[k].get();
                // (The same tensor twice: named by its other argument.)
                let other = args
                    .iter()
                    .enumerate()
                    .find(|(j, a)| *j != k && a.is(&args[k]));
                let why = match (why, other) {
                    (Refusal::SameTensor, Some((j, _))) => format!(
                        "the same tensor is passed twice (also as {})",
                        self.label(j)
                    ),
                    (r, _) => r.to_string(),
                };
                messages.push(format!(
                    "jit({}): {} ({}) was donated but cannot be taken: {why}; it was copied first, and the caller's tensor is unchanged",
                    self.name,
                    self.label(k),
                    me.shape_str()
                ));
                handles[k] = Some(read(py, me)?);
            }
        }
        warn_all_at(py, messages, 2)?;
        let (run_args, taken) = self.claim(py, &args, &claims, &mut handles)?;
        drop(handles);
        let work = l.memory.peak_memory_in_bytes;
        let consts = &self.consts;
        let result = super::arena::detach(py, work.max(1 << 20), || l.run(consts, run_args));
        match result {
            Ok(outs) => PyList::new(py, outs.into_iter().map(PyTensor::new)),
            Err(e) => {
                // Put back every argument the run still held intact.
                let mut lost = taken.clone();
                for d in e.returned {
                    if let Some(a) = args.get(d.input).filter(|_| taken.contains(&d.input)) {
                        let mut g = a.get().slot.lock(&Interp(py));
                        if g.is_donated() {
                            *g = d.tensor;
                            lost.retain(|&k| k != d.input);
                        }
                    }
                }
                let err = super::errors::to_py(&e.error);
                if !lost.is_empty() {
                    let which: Vec<String> = lost.iter().map(|&k| self.label(k)).collect();
                    let note = format!(
                        "jit({}): the donated {} had already been written when this failed, and {} moved-from",
                        self.name,
                        which.join(", "),
                        if lost.len() == 1 { "is" } else { "are" }
                    );
                    err.value(py).call_method1("add_note", (note,))?;
                }
                Err(err)
            }
        }
    }
}

impl PyLowered {
    fn label(&self, k: usize) -> String {
        self.labels
            .get(k)
            .cloned()
            .unwrap_or_else(|| format!("argument {k}"))
    }

    /// Each argument has the dtype and shape the program was traced for.
    fn check_args(&self, args: &[Bound<'_, PyTensor>]) -> PyResult<()> {
        let p = &self.lowered.program;
        for (k, (a, &v)) in args.iter().zip(&p.inputs).enumerate() {
            let info = &p.vars[v as usize];
            let me = a.get();
            if me.tracer().is_some() {
                return Err(tracer_error(
                    "jit",
                    "a jitted function was called with a tracer (nested tracing is not supported)",
                ));
            }
            if me.dtype != info.dtype || me.shape[..] != info.shape[..] {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "jit({}): {} is {}, the program was traced for {}",
                    self.name,
                    self.label(k),
                    me.shape_str(),
                    info.dtype
                )));
            }
        }
        Ok(())
    }

    /// The run's arguments: a donated argument to take is taken from its
    /// caller (moved-from, naming this function), one to protect is
    /// copied, the others are read. Returns them and the taken indices.
    fn claim(
        &self,
        py: Python<'_>,
        args: &[Bound<'_, PyTensor>],
        claims: &[Claim],
        handles: &mut [Option<DynTensor>],
    ) -> PyResult<(Vec<RunArg>, Vec<usize>)> {
        let mut run_args = Vec::with_capacity(args.len());
        let mut taken: Vec<usize> = Vec::new();
        for (k, a) in args.iter().enumerate() {
            let me = a.get();
            let arg = if claims[k] == Claim::Take {
                let mut g = me.slot.lock(&Interp(py));
                let (dtype, shape) = (g.dtype(), g.shape().to_vec());
                if let Ok(buf) = g.take_buffer_for(self.consumer) {
                    drop(g);
                    taken.push(k);
                    RunArg::Consumed(DynTensor::from_buffer(dtype, buf, &shape).py()?)
                } else {
                    // Another holder appeared since: copy (read through
                    // a reader, as every read without the interpreter).
                    let h = g.reader().py()?;
                    drop(g);
                    h.check_readable().py()?;
                    RunArg::Consumed(super::arena::detach(py, h.nbytes(), || h.deep_copy()).py()?)
                }
            } else if matches!(claims[k], Claim::Copy(_)) {
                let h = handles[k]
                    .take()
                    .ok_or_else(|| tracer_error("jit", "an argument handle"))?;
                RunArg::Consumed(super::arena::detach(py, h.nbytes(), || h.deep_copy()).py()?)
            } else {
                RunArg::Read(
                    handles[k]
                        .take()
                        .ok_or_else(|| tracer_error("jit", "an argument handle"))?,
                )
            };
            run_args.push(arg);
        }
        Ok((run_args, taken))
    }
}
