//! `fork()`: a child process runs parallel kernels after its parent did.
//!
//! A child of `fork()` has only the thread that called `fork()`, so a thread
//! pool the parent built has no workers there; the kernels must use a pool
//! of the child's own (see `src/kernels/parallel.rs`). The children here run
//! parallel kernels and `_exit`; the parent waits with a timeout and kills a
//! child that hangs, so a regression fails instead of hanging the suite.
//! These tests live in their own binary so that no other test's threads are
//! running (and maybe holding a lock) when they fork.
#![cfg(target_os = "linux")]
// Products of small integers and powers of two compare exactly.
#![allow(clippy::float_cmp)]

use std::time::{Duration, Instant};

use donate::kernels::GRAIN;
use donate::Tensor;

/// Generous: the work takes milliseconds natively, and this also runs under
/// valgrind (scripts/valgrind-memcheck.sh).
const TIMEOUT: Duration = Duration::from_secs(60);

/// Parallel kernels: element-wise in place, a reduction and an f32 matmul
/// through `gemm` (all above their parallel thresholds). True if every
/// result is right.
fn parallel_work(k: f32) -> bool {
    let n = 2 * GRAIN;
    let mut t = Tensor::<f32>::full(&[n], -k).unwrap();
    t.neg_inplace().unwrap(); // every element k
    let s = t.sum(None, false).unwrap().to_vec().unwrap()[0];
    let a = Tensor::<f32>::ones(&[512, 512]).unwrap();
    let b = Tensor::<f32>::full(&[512, 512], k).unwrap();
    let c = a.matmul(&b).unwrap();
    let cv = c.to_vec().unwrap();
    s == k * n as f32 && cv.iter().all(|&x| x == 512.0 * k)
}

/// Fork; the child runs `body` and `_exit`s with 0 if it returned true, 1 if
/// false, 2 if it panicked. Returns the child's pid.
fn in_child(body: impl FnOnce() -> bool + std::panic::UnwindSafe) -> libc::pid_t {
    // SAFETY: fork() has no memory-safety preconditions. The child only
    // runs `body` and then `_exit`s: it never returns into the test harness
    // and runs no destructors or atexit handlers of the parent's state.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed: {}", std::io::Error::last_os_error());
    if pid == 0 {
        let code = match std::panic::catch_unwind(body) {
            Ok(true) => 0,
            Ok(false) => 1,
            Err(_) => 2,
        };
        // SAFETY: _exit ends this (child) process at once; nothing runs
        // after it.
        unsafe { libc::_exit(code) };
    }
    pid
}

/// The exit code of child `pid`, or `None` if it had not exited after
/// `timeout` (it is then killed and reaped).
fn wait_exit_code(pid: libc::pid_t, timeout: Duration) -> Option<i32> {
    let deadline = Instant::now() + timeout;
    let mut status = 0;
    loop {
        // SAFETY: `status` is a valid out-pointer; `pid` is our child.
        let r = unsafe { libc::waitpid(pid, &raw mut status, libc::WNOHANG) };
        assert!(
            r >= 0,
            "waitpid failed: {}",
            std::io::Error::last_os_error()
        );
        if r == pid {
            assert!(
                libc::WIFEXITED(status),
                "child {pid} died: status {status:#x}"
            );
            return Some(libc::WEXITSTATUS(status));
        }
        if Instant::now() > deadline {
            // SAFETY: kill and a blocking waitpid on our own child, which
            // has not been reaped yet.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &raw mut status, 0);
            }
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn child_of_fork_runs_parallel_kernels_after_the_parent_did() {
    assert!(parallel_work(1.0)); // the parent's pool exists now
    let pid = in_child(|| parallel_work(2.0));
    assert_eq!(
        wait_exit_code(pid, TIMEOUT),
        Some(0),
        "the child hung (None) or computed wrong results"
    );
    assert!(parallel_work(3.0), "the parent's pool broke");
}

#[test]
fn grandchild_runs_parallel_kernels_after_parent_and_child_did() {
    assert!(parallel_work(1.0));
    let pid = in_child(|| {
        parallel_work(2.0) && {
            let grandchild = in_child(|| parallel_work(3.0));
            wait_exit_code(grandchild, TIMEOUT) == Some(0)
        }
    });
    assert_eq!(wait_exit_code(pid, 2 * TIMEOUT), Some(0));
}
