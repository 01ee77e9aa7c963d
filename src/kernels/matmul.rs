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
                let par = if threads {
                    gemm::Parallelism::Rayon(0)
                } else {
                    gemm::Parallelism::None
                };
                let mut run = || {
                    // gemm computes dst = alpha*dst + beta*lhs*rhs: beta = 1
                    // is the plain product; read_dst = false ignores alpha
                    // and never reads dst, so uninitialised memory is fine.
                    // Strides: row-major.
                    // SAFETY: pointers cover m*k, k*n, m*n elements
                    // (asserted above).
                    unsafe {
                        gemm::gemm(
                            m,
                            n,
                            k,
                            dst.as_mut_ptr().cast::<$t>(),
                            1,
                            n as isize,
                            false,
                            a.as_ptr(),
                            1,
                            k as isize,
                            b.as_ptr(),
                            1,
                            n as isize,
                            0.0,
                            1.0,
                            false,
                            false,
                            false,
                            par,
                        );
                    }
                };
                if threads {
                    install(run);
                } else {
                    run();
                }
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
    let work = m.saturating_mul(n).saturating_mul(k);
    let mn = m * n;
    if mn == 0 {
        return;
    }
    let one = |(i, d): (usize, &mut [MaybeUninit<T>]), threads: bool| {
        let o = offs[i];
        T::gemm_one(
            &a[o.a..o.a + m * k],
            &b[o.b..o.b + k * n],
            d,
            m,
            k,
            n,
            threads,
        );
    };
    if work >= PAR_WORK {
        // Each product splits across the pool's threads; one hand-off to
        // the pool for the whole batch.
        install(|| {
            for x in dst.chunks_mut(mn).enumerate() {
                one(x, true);
            }
        });
    } else if offs.len() == 1 {
        for x in dst.chunks_mut(mn).enumerate() {
            one(x, false);
        }
    } else {
        install(|| {
            dst.par_chunks_mut(mn)
                .enumerate()
                .for_each(|x| one(x, false));
        });
    }
}
