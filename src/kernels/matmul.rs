//! Matrix multiplication: `f32`/`f64` through the `gemm` crate (packed,
//! cache-blocked, AVX-512/AVX2/NEON micro-kernels, rayon-parallel); integers
//! through a plain i-k-j loop (correct, not fast: NumPy does not use BLAS for
//! integers either). Threaded products run inside
//! [`crate::parallel::install`], where `gemm`'s `Parallelism::Rayon(0)`
//! splits across that pool's threads.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use crate::element::Element;
use crate::parallel::install;

/// Work (m·n·k) above which one product is split across threads.
pub(crate) const PAR_WORK: usize = 1 << 18;

/// One batch entry: element offsets of its operands.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BatchOffsets {
    pub a: usize,
    pub b: usize,
}

/// Element types with a matmul kernel.
pub trait MatmulElement: Element {
    /// `dst[m×n] = a[m×k] · b[k×n]`, all row-major and contiguous.
    fn gemm_one(
        a: &[Self],
        b: &[Self],
        dst: &mut [MaybeUninit<Self>],
        m: usize,
        k: usize,
        n: usize,
        threads: bool,
    );
    /// `dst[m×n] += a[m×k] · b[k×n]`, all row-major and contiguous.
    fn gemm_acc(a: &[Self], b: &[Self], dst: &mut [Self], m: usize, k: usize, n: usize, threads: bool);
}

/// `dst = read_dst·dst + a·b` through `gemm` (row-major strides).
///
/// # Safety
/// `dst` is valid for writes of `m*n` elements, and for reads of them when
/// `read_dst`; `a` covers `m*k` and `b` `k*n` elements; `m, n, k > 0`.
unsafe fn float_gemm<T: 'static + Copy + Send + Sync>(
    dst: *mut T,
    read_dst: bool,
    a: &[T],
    b: &[T],
    (m, k, n): (usize, usize, usize),
    (zero, one): (T, T),
    threads: bool,
) {
    let par = if threads {
        gemm::Parallelism::Rayon(0)
    } else {
        gemm::Parallelism::None
    };
    // The closure may run on the pool's thread: carry the address, not
    // the (non-`Send`) pointer.
    let addr = dst.expose_provenance();
    let run = || {
        let dst: *mut T = std::ptr::with_exposed_provenance_mut(addr);
        // gemm computes dst = alpha*dst + beta*lhs*rhs (alpha and beta
        // swapped against BLAS): beta = 1 is the plain product; alpha = 1
        // with read_dst accumulates; without read_dst gemm ignores alpha
        // and never reads dst, so uninitialised memory is fine there.
        // SAFETY: the caller's contract (above) covers every pointer.
        unsafe {
            gemm::gemm(
                m, n, k, dst, 1, n as isize, read_dst, a.as_ptr(), 1, k as isize, b.as_ptr(), 1,
                n as isize, if read_dst { one } else { zero }, one, false, false, false, par,
            );
        }
    };
    if threads {
        install(run);
    } else {
        run();
    }
}

macro_rules! float_gemm {
    ($t:ty) => {
        impl MatmulElement for $t {
            fn gemm_one(
                a: &[$t],
                b: &[$t],
                dst: &mut [MaybeUninit<$t>],
                m: usize,
                k: usize,
                n: usize,
                threads: bool,
            ) {
                assert!(a.len() >= m * k && b.len() >= m.min(1) * k * n && dst.len() >= m * n);
                if m == 0 || n == 0 {
                    return;
                }
                if k == 0 {
                    for d in dst[..m * n].iter_mut() {
                        d.write(0.0);
                    }
                    return;
                }
                // SAFETY: asserted above: dst covers m*n writable elements
                // (not read: read_dst is false), a and b their products.
                unsafe { float_gemm(dst.as_mut_ptr().cast::<$t>(), false, a, b, (m, k, n), (0.0, 1.0), threads) };
            }

            fn gemm_acc(a: &[$t], b: &[$t], dst: &mut [$t], m: usize, k: usize, n: usize, threads: bool) {
                assert!(a.len() >= m * k && b.len() >= m.min(1) * k * n && dst.len() >= m * n);
                if m == 0 || n == 0 || k == 0 {
                    return; // adds nothing
                }
                // SAFETY: asserted above; dst is an initialised `&mut [T]`
                // of at least m*n elements, so it may be read and written.
                unsafe { float_gemm(dst.as_mut_ptr(), true, a, b, (m, k, n), (0.0, 1.0), threads) };
            }
        }
    };
}
float_gemm!(f32);
float_gemm!(f64);

macro_rules! int_gemm {
    ($t:ty) => {
        impl MatmulElement for $t {
            fn gemm_one(
                a: &[$t],
                b: &[$t],
                dst: &mut [MaybeUninit<$t>],
                m: usize,
                k: usize,
                n: usize,
                threads: bool,
            ) {
                let row = |(i, drow): (usize, &mut [MaybeUninit<$t>])| {
                    let mut acc = vec![0 as $t; n];
                    for p in 0..k {
                        let av = a[i * k + p];
                        for (c, bv) in acc.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                            *c = c.wrapping_add(av.wrapping_mul(*bv));
                        }
                    }
                    for (d, v) in drow.iter_mut().zip(acc) {
                        d.write(v);
                    }
                };
                if n == 0 {
                    return;
                }
                if threads {
                    install(|| dst[..m * n].par_chunks_mut(n).enumerate().for_each(row));
                } else {
                    dst[..m * n].chunks_mut(n).enumerate().for_each(row);
                }
            }

            fn gemm_acc(a: &[$t], b: &[$t], dst: &mut [$t], m: usize, k: usize, n: usize, threads: bool) {
                let row = |(i, drow): (usize, &mut [$t])| {
                    for p in 0..k {
                        let av = a[i * k + p];
                        for (c, bv) in drow.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                            *c = c.wrapping_add(av.wrapping_mul(*bv));
                        }
                    }
                };
                if n == 0 {
                    return;
                }
                if threads {
                    install(|| dst[..m * n].par_chunks_mut(n).enumerate().for_each(row));
                } else {
                    dst[..m * n].chunks_mut(n).enumerate().for_each(row);
                }
            }
        }
    };
}
int_gemm!(i32);
int_gemm!(i64);

/// A batch of products `dst[i] = a[offs[i].a..] · b[offs[i].b..]`, each
/// `m×k · k×n`; `dst` holds `offs.len()` results of `m×n` back to back.
pub(crate) fn matmul_batched<T: MatmulElement>(
    a: &[T],
    b: &[T],
    dst: &mut [MaybeUninit<T>],
    m: usize,
    k: usize,
    n: usize,
    offs: &[BatchOffsets],
) {
    batched(dst, (m, k, n), offs, |o, d, threads| {
        T::gemm_one(&a[o.a..o.a + m * k], &b[o.b..o.b + k * n], d, m, k, n, threads);
    });
}

/// As [`matmul_batched`], but `dst[i] += ...`: the products are added to
/// what `dst` holds.
pub(crate) fn matmul_batched_acc<T: MatmulElement>(
    a: &[T],
    b: &[T],
    dst: &mut [T],
    m: usize,
    k: usize,
    n: usize,
    offs: &[BatchOffsets],
) {
    batched(dst, (m, k, n), offs, |o, d, threads| {
        T::gemm_acc(&a[o.a..o.a + m * k], &b[o.b..o.b + k * n], d, m, k, n, threads);
    });
}

/// Run `one(offsets, dst block, threads)` for each batch entry: each
/// product split across the pool when it is large, else the entries
/// spread across it.
fn batched<D: Send>(
    dst: &mut [D],
    (m, k, n): (usize, usize, usize),
    offs: &[BatchOffsets],
    one: impl Fn(BatchOffsets, &mut [D], bool) + Sync,
) {
    let work = m.saturating_mul(n).saturating_mul(k);
    let mn = m * n;
    if mn == 0 {
        return;
    }
    if work >= PAR_WORK {
        // Each product splits across the pool's threads; one hand-off to
        // the pool for the whole batch.
        install(|| {
            for (i, d) in dst.chunks_mut(mn).enumerate() {
                one(offs[i], d, true);
            }
        });
    } else if offs.len() == 1 {
        for (i, d) in dst.chunks_mut(mn).enumerate() {
            one(offs[i], d, false);
        }
    } else {
        install(|| {
            dst.par_chunks_mut(mn)
                .enumerate()
                .for_each(|(i, d)| one(offs[i], d, false));
        });
    }
}
