//! Is the current call coming straight from the evaluation loop?

use std::ffi::c_void;
use std::sync::OnceLock;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use pyo3::PyResult;

use super::Role;

/// Start addresses of the interpreter functions seen on the paths that
/// pass temporaries, for receivers and for other arguments, and of the
/// evaluation loop's code regions outside its symbol (sorted).
#[derive(Default)]
struct Trusted {
    receiver: Vec<usize>,
    argument: Vec<usize>,
    eval: Vec<usize>,
}

impl Trusted {
    fn of(&self, role: Role) -> &[usize] {
        match role {
            Role::Receiver => &self.receiver,
            Role::Argument => &self.argument,
        }
    }
}

static TRUSTED: OnceLock<Trusted> = OnceLock::new();
/// `Some` while learning: the functions seen so far.
static LEARNING: Mutex<Option<Trusted>> = Mutex::new(None);
/// Whether `LEARNING` is `Some`, readable without the lock (every
/// operation asks).
static LEARNING_NOW: AtomicBool = AtomicBool::new(false);

pub(super) fn learning() -> bool {
    LEARNING_NOW.load(Ordering::Acquire)
}

pub(super) fn learn(run: impl FnOnce() -> PyResult<()>) -> PyResult<()> {
    if let Ok(mut l) = LEARNING.lock() {
        *l = Some(Trusted::default());
        LEARNING_NOW.store(true, Ordering::Release);
    }
    let result = run();
    LEARNING_NOW.store(false, Ordering::Release);
    let seen = LEARNING.lock().ok().and_then(|mut l| l.take());
    if let (Ok(()), Some(mut t)) = (&result, seen) {
        for v in [&mut t.receiver, &mut t.argument, &mut t.eval] {
            v.sort_unstable();
            v.dedup();
        }
        let _ = TRUSTED.set(t);
    }
    result
}

/// Address ranges, resolved once.
struct Images {
    /// `[start, end)` of `_PyEval_EvalFrameDefault`.
    eval: (usize, usize),
    /// Start of `PyEval_EvalCode`, which runs the learning paths (0 if
    /// not found: then only `eval` is known).
    eval_code: usize,
    /// Executable segments of the interpreter's image (libpython or the
    /// `python` executable).
    python: Vec<(usize, usize)>,
    /// Executable segments of this extension.
    own: Vec<(usize, usize)>,
}

const MAX_FRAMES: usize = 64;
/// `RTLD_DL_SYMENT` of glibc's `<dlfcn.h>` (not exported by `libc`).
const RTLD_DL_SYMENT: libc::c_int = 1;

fn images() -> Option<&'static Images> {
    static IMAGES: OnceLock<Option<Images>> = OnceLock::new();
    IMAGES.get_or_init(resolve).as_ref()
}

pub(super) fn available() -> Result<(), &'static str> {
    images()
        .map(|_| ())
        .ok_or("the interpreter's evaluation loop could not be located")
}

fn resolve() -> Option<Images> {
    let name = c"_PyEval_EvalFrameDefault";
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only
    // reads the loaded objects' symbol tables.
    let eval = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) } as usize;
    if eval == 0 {
        return None;
    }
    let mut info: libc::Dl_info = empty_dl_info();
    let mut sym: *const libc::Elf64_Sym = std::ptr::null();
    // SAFETY: `info` and `sym` are valid out-pointers; with
    // RTLD_DL_SYMENT dladdr1 stores a pointer to the ELF symbol (which
    // lives as long as the object stays loaded: libpython never unloads).
    let ok = unsafe {
        libc::dladdr1(
            eval as *const c_void,
            &raw mut info,
            (&raw mut sym).cast(),
            RTLD_DL_SYMENT,
        )
    };
    if ok == 0 || sym.is_null() {
        return None;
    }
    // SAFETY: dladdr1 succeeded and set `sym` to a valid symbol entry.
    let size = unsafe { (*sym).st_size } as usize;
    if size == 0 {
        return None;
    }
    let name = c"PyEval_EvalCode";
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only
    // reads the loaded objects' symbol tables.
    let eval_code = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) } as usize;
    let own_marker = resolve as *const () as usize;
    let python = segments_containing(eval)?;
    let own = segments_containing(own_marker)?;
    Some(Images {
        eval: (eval, eval + size),
        eval_code,
        python,
        own,
    })
}

fn empty_dl_info() -> libc::Dl_info {
    libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    }
}

/// The executable segments of the loaded object that contains `addr`.
fn segments_containing(addr: usize) -> Option<Vec<(usize, usize)>> {
    struct Search {
        addr: usize,
        found: Option<Vec<(usize, usize)>>,
    }
    unsafe extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        data: *mut c_void,
    ) -> libc::c_int {
        // SAFETY: dl_iterate_phdr passes a valid info pointer and the
        // `data` pointer we gave it, a live `Search`.
        let (info, search) = unsafe { (&*info, &mut *data.cast::<Search>()) };
        let base = info.dlpi_addr as usize;
        let mut segs = Vec::new();
        for i in 0..info.dlpi_phnum as usize {
            // SAFETY: dlpi_phdr points to dlpi_phnum program headers.
            let ph = unsafe { &*info.dlpi_phdr.add(i) };
            if ph.p_type == libc::PT_LOAD && ph.p_flags & libc::PF_X != 0 {
                let start = base + ph.p_vaddr as usize;
                segs.push((start, start + ph.p_memsz as usize));
            }
        }
        if segs
            .iter()
            .any(|&(s, e)| search.addr >= s && search.addr < e)
        {
            search.found = Some(segs);
            return 1;
        }
        0
    }
    let mut search = Search { addr, found: None };
    // SAFETY: `visit` only reads the headers it is given and writes to
    // `search`, which outlives the call.
    unsafe { libc::dl_iterate_phdr(Some(visit), (&raw mut search).cast()) };
    search.found
}

fn within(ranges: &[(usize, usize)], a: usize) -> bool {
    ranges.iter().any(|&(s, e)| a >= s && a < e)
}

// The unwinder of libgcc_s, which Rust's standard library already links
// on linux-gnu. `_Unwind_Backtrace` lets us stop at the first frame
// that decides the answer instead of unwinding the whole stack as
// glibc's `backtrace()` does.
type UnwindContext = c_void;
type TraceFn = unsafe extern "C" fn(ctx: *mut UnwindContext, arg: *mut c_void) -> libc::c_int;
const URC_NO_REASON: libc::c_int = 0;
const URC_NORMAL_STOP: libc::c_int = 4;
unsafe extern "C" {
    fn _Unwind_Backtrace(trace: TraceFn, arg: *mut c_void) -> libc::c_int;
    fn _Unwind_GetIP(ctx: *mut UnwindContext) -> libc::uintptr_t;
    fn _Unwind_GetRegionStart(ctx: *mut UnwindContext) -> libc::uintptr_t;
}

struct Walk<'a> {
    images: &'a Images,
    /// The trusted functions, or `None` while learning them.
    trusted: Option<&'a [usize]>,
    /// The evaluation loop's learned code regions (none while learning).
    eval: &'a [usize],
    /// While learning: the walk came back to this extension (the code
    /// that runs the learning paths) without meeting `Images::eval`.
    home: bool,
    /// While learning: the interpreter functions this walk passed.
    seen: Vec<usize>,
    frames: usize,
    verdict: Option<bool>,
}

unsafe extern "C" fn step(ctx: *mut UnwindContext, arg: *mut c_void) -> libc::c_int {
    // SAFETY: `arg` is the `Walk` passed to _Unwind_Backtrace below,
    // alive and not otherwise borrowed during the walk; `ctx` is the
    // unwinder's context for this frame.
    let (walk, ip) = unsafe { (&mut *arg.cast::<Walk<'_>>(), _Unwind_GetIP(ctx)) };
    let im = walk.images;
    walk.frames += 1;
    // A return address may sit one past a call that ends its function,
    // hence the inclusive end of the evaluation loop's range.
    if ip > im.eval.0 && ip <= im.eval.1 {
        walk.verdict = Some(true);
    } else if !(within(&im.own, ip) || within(&im.python, ip)) || walk.frames >= MAX_FRAMES {
        walk.verdict = Some(false);
    } else if within(&im.python, ip) {
        // SAFETY: `ctx` is the unwinder's context for this frame.
        let start = unsafe { _Unwind_GetRegionStart(ctx) };
        match walk.trusted {
            _ if walk.eval.binary_search(&start).is_ok() => walk.verdict = Some(true),
            None => walk.seen.push(start),
            Some(t) if t.binary_search(&start).is_err() => walk.verdict = Some(false),
            Some(_) => {}
        }
    } else if walk.trusted.is_none() && !walk.seen.is_empty() {
        walk.home = true;
        walk.verdict = Some(false);
    }
    if walk.verdict.is_some() {
        URC_NORMAL_STOP
    } else {
        URC_NO_REASON
    }
}

/// True if the C stack, from here outwards, passes only through this
/// extension and the interpreter before reaching the evaluation loop.
pub(super) fn called_from_interpreter(role: Role) -> bool {
    let Some(images) = images() else { return false };
    let learning = learning();
    let (trusted, eval) = if learning {
        (None, &[][..])
    } else {
        // Before the trusted functions are known, trust nothing.
        let Some(t) = TRUSTED.get() else { return false };
        (Some(t.of(role)), &t.eval[..])
    };
    let mut walk = Walk {
        images,
        trusted,
        eval,
        home: false,
        seen: Vec::new(),
        frames: 0,
        verdict: None,
    };
    // SAFETY: `step` only reads the unwinder's context and writes to
    // `walk`, which outlives the call.
    unsafe { _Unwind_Backtrace(step, (&raw mut walk).cast()) };
    // Back home, the walk has passed the operation's callers, the
    // evaluation loop running the learning paths, and the
    // `PyEval_EvalCode` that called it (and what called that): the
    // frame `PyEval_EvalCode` called is the evaluation loop, in a code
    // region its symbol does not cover.
    let mut eval_part = None;
    if learning && walk.home && images.eval_code != 0 {
        if let Some(j) = walk.seen.iter().position(|&s| s == images.eval_code) {
            if j > 0 {
                eval_part = Some(walk.seen[j - 1]);
                walk.seen.truncate(j - 1);
                walk.verdict = Some(true);
            }
        }
    }
    if learning && walk.verdict == Some(true) {
        if let Ok(mut l) = LEARNING.lock() {
            if let Some(t) = l.as_mut() {
                match role {
                    Role::Receiver => t.receiver.extend(&walk.seen),
                    Role::Argument => t.argument.extend(&walk.seen),
                }
                t.eval.extend(eval_part);
            }
        }
    }
    walk.verdict == Some(true)
}
