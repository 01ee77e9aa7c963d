//! Matrix multiplication: `f32`/`f64` through the `gemm` crate (packed,
//! cache-blocked, AVX-512/AVX2/NEON micro-kernels, rayon-parallel); integers
//! through a plain i-k-j loop (correct, not fast: NumPy does not use BLAS for
//! integers either). Threaded products run inside
//! [`crate::kernels::parallel::install`], where `gemm`'s `Parallelism::Rayon(0)`
//! splits across that pool's threads.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use crate::array::element::Element;
use crate::kernels::parallel::install;

/// Work (m·n·k) above which one product is split across threads.
pub(crate) const PAR_WORK: usize = 1 << 18;

/// One batch entry: element offsets of its operands' first elements.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BatchOffsets {
    pub a: usize,
    pub b: usize,
}

/// A matrix inside a slice: the element index of its `(0, 0)` and its
/// row and column strides in elements (negative for reversed axes), so a
/// transposed or sliced view is read where it lies, without a copy.
#[derive(Debug, Clone, Copy)]
pub struct MatRef<'a, T> {
    pub data: &'a [T],
    pub offset: usize,
    pub rs: isize,
    pub cs: isize,
}

impl<'a, T: Copy> MatRef<'a, T> {
    /// A row-major, contiguous `rows×cols` matrix at the start of `data`.
    pub fn dense(data: &'a [T], cols: usize) -> Self {
        MatRef {
            data,
            offset: 0,
            rs: cols as isize,
            cs: 1,
        }
    }

    /// The same strides at another offset.
    fn at_offset(self, offset: usize) -> Self {
        MatRef { offset, ..self }
    }

    /// Panic unless every element of a `rows×cols` matrix lies in `data`
    /// (what makes the raw-pointer reads of the GEMM sound).
    fn check(&self, rows: usize, cols: usize) {
        if rows == 0 || cols == 0 {
            return;
        }
        let mut lo = self.offset as isize;
        let mut hi = lo;
        for (n, s) in [(rows, self.rs), (cols, self.cs)] {
            let reach = (n as isize - 1) * s;
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        assert!(
            lo >= 0 && (hi as usize) < self.data.len(),
            "matrix outside its slice"
        );
    }

    /// Element `(i, j)`.
    fn get(&self, i: usize, j: usize) -> T {
        self.data[(self.offset as isize + i as isize * self.rs + j as isize * self.cs) as usize]
    }
}

/// Element types with a matmul kernel.
pub trait MatmulElement: Element {
    /// `dst[m×n] = a[m×k] · b[k×n]`; `dst` row-major and contiguous, `a`
    /// and `b` anywhere their strides say.
    fn gemm_one(
        a: MatRef<'_, Self>,
        b: MatRef<'_, Self>,
        dst: &mut [MaybeUninit<Self>],
        m: usize,
        k: usize,
        n: usize,
        threads: bool,
    );
    /// `dst[m×n] += a[m×k] · b[k×n]` (layouts as [`gemm_one`](Self::gemm_one)).
    fn gemm_acc(
        a: MatRef<'_, Self>,
        b: MatRef<'_, Self>,
        dst: &mut [Self],
        m: usize,
        k: usize,
        n: usize,
        threads: bool,
    );
}

/// `dst = read_dst·dst + a·b` through `gemm` (`dst` row-major).
///
/// # Safety
/// `dst` is valid for writes of `m*n` elements, and for reads of them when
/// `read_dst`; `a` was [checked](MatRef::check) for `m×k` and `b` for
/// `k×n`; `m, n, k > 0`.
unsafe fn float_gemm<T: 'static + Copy + Send + Sync>(
    dst: *mut T,
    read_dst: bool,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    (m, k, n): (usize, usize, usize),
    (zero, one): (T, T),
    threads: bool,
) {
    let par = if threads {
        gemm::Parallelism::Rayon(0)
    } else {
        gemm::Parallelism::None
    };
    // The closure may run on the pool's thread: carry the addresses, not
    // the (non-`Send`) pointers.
    let addr = dst.expose_provenance();
    let (pa, pb) = (
        a.data.as_ptr().expose_provenance(),
        b.data.as_ptr().expose_provenance(),
    );
    let run = || {
        let dst: *mut T = std::ptr::with_exposed_provenance_mut(addr);
        let pa: *const T = std::ptr::with_exposed_provenance(pa);
        let pb: *const T = std::ptr::with_exposed_provenance(pb);
        // gemm computes dst = alpha*dst + beta*lhs*rhs (alpha and beta
        // swapped against BLAS): beta = 1 is the plain product; alpha = 1
        // with read_dst accumulates; without read_dst gemm ignores alpha
        // and never reads dst, so uninitialised memory is fine there.
        // SAFETY: the caller's contract (above) covers every pointer: the
        // offsets are inside the slices, and every element the strides
        // reach from them was checked to be.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                dst,
                1,
                n as isize,
                read_dst,
                pa.add(a.offset),
                a.cs,
                a.rs,
                pb.add(b.offset),
                b.cs,
                b.rs,
                if read_dst { one } else { zero },
                one,
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

macro_rules! float_gemm {
    ($t:ty) => {
        impl MatmulElement for $t {
            fn gemm_one(
                a: MatRef<'_, $t>,
                b: MatRef<'_, $t>,
                dst: &mut [MaybeUninit<$t>],
                m: usize,
                k: usize,
                n: usize,
                threads: bool,
            ) {
                a.check(m, k);
                b.check(k, n);
                assert!(dst.len() >= m * n);
                if m == 0 || n == 0 {
                    return;
                }
                if k == 0 {
                    for d in dst[..m * n].iter_mut() {
                        d.write(<$t as Element>::ZERO);
                    }
                    return;
                }
                // SAFETY: asserted above: dst covers m*n writable elements
                // (not read: read_dst is false), a and b their products.
                unsafe {
                    float_gemm(
                        dst.as_mut_ptr().cast::<$t>(),
                        false,
                        a,
                        b,
                        (m, k, n),
                        (<$t as Element>::ZERO, <$t as Element>::ONE),
                        threads,
                    )
                };
            }

            fn gemm_acc(
                a: MatRef<'_, $t>,
                b: MatRef<'_, $t>,
                dst: &mut [$t],
                m: usize,
                k: usize,
                n: usize,
                threads: bool,
            ) {
                a.check(m, k);
                b.check(k, n);
                assert!(dst.len() >= m * n);
                if m == 0 || n == 0 || k == 0 {
                    return; // adds nothing
                }
                // SAFETY: asserted above; dst is an initialised `&mut [T]`
                // of at least m*n elements, so it may be read and written.
                unsafe {
                    float_gemm(
                        dst.as_mut_ptr(),
                        true,
                        a,
                        b,
                        (m, k, n),
                        (<$t as Element>::ZERO, <$t as Element>::ONE),
                        threads,
                    )
                };
            }
        }
    };
}
float_gemm!(f32);
float_gemm!(f64);
// gemm's complex kernels (its `c32`/`c64` are `num_complex`'s, as donate's
// elements are): the textbook product, no conjugation.
float_gemm!(crate::C32);
float_gemm!(crate::C64);

macro_rules! int_gemm {
    ($t:ty) => {
        impl MatmulElement for $t {
            fn gemm_one(
                a: MatRef<'_, $t>,
                b: MatRef<'_, $t>,
                dst: &mut [MaybeUninit<$t>],
                m: usize,
                k: usize,
                n: usize,
                threads: bool,
            ) {
                let row = |(i, drow): (usize, &mut [MaybeUninit<$t>])| {
                    let mut acc = vec![<$t as Element>::ZERO; n];
                    int_row(&a, &b, i, k, &mut acc);
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

            fn gemm_acc(
                a: MatRef<'_, $t>,
                b: MatRef<'_, $t>,
                dst: &mut [$t],
                m: usize,
                k: usize,
                n: usize,
                threads: bool,
            ) {
                let row = |(i, drow): (usize, &mut [$t])| int_row(&a, &b, i, k, drow);
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
/// `acc[j] += Σ_p a[i,p]·b[p,j]` with wrapping integer arithmetic (a
/// contiguous row of `b` is read as a slice).
fn int_row<T: Element + IntOps>(
    a: &MatRef<'_, T>,
    b: &MatRef<'_, T>,
    i: usize,
    k: usize,
    acc: &mut [T],
) {
    let n = acc.len();
    for p in 0..k {
        let av = a.get(i, p);
        if b.cs == 1 {
            let start = (b.offset as isize + p as isize * b.rs) as usize;
            for (c, bv) in acc.iter_mut().zip(&b.data[start..start + n]) {
                *c = c.wrapping_add_(av.wrapping_mul_(*bv));
            }
        } else {
            for (j, c) in acc.iter_mut().enumerate() {
                *c = c.wrapping_add_(av.wrapping_mul_(b.get(p, j)));
            }
        }
    }
}

/// Wrapping arithmetic of the integer element types.
trait IntOps: Copy {
    fn wrapping_add_(self, o: Self) -> Self;
    fn wrapping_mul_(self, o: Self) -> Self;
}

macro_rules! int_ops {
    ($($t:ty),*) => {$(
        impl IntOps for $t {
            fn wrapping_add_(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn wrapping_mul_(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
        }
    )*};
}
int_ops!(i8, i16, i32, i64, u8, u16, u32, u64);

// NumPy's bool matmul: `or` of `and`s.
impl IntOps for bool {
    fn wrapping_add_(self, o: Self) -> Self {
        self | o
    }
    fn wrapping_mul_(self, o: Self) -> Self {
        self & o
    }
}

int_gemm!(bool);
int_gemm!(i8);
int_gemm!(i16);
int_gemm!(i32);
int_gemm!(i64);
int_gemm!(u8);
int_gemm!(u16);
int_gemm!(u32);
int_gemm!(u64);

/// A batch of products `dst[i] = a(offs[i].a) · b(offs[i].b)`, each
/// `m×k · k×n` (`a` and `b` give the strides; their offsets are each
/// entry's); `dst` holds `offs.len()` results of `m×n` back to back.
pub(crate) fn matmul_batched<T: MatmulElement>(
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    dst: &mut [MaybeUninit<T>],
    m: usize,
    k: usize,
    n: usize,
    offs: &[BatchOffsets],
) {
    batched(dst, (m, k, n), offs, |o, d, threads| {
        T::gemm_one(a.at_offset(o.a), b.at_offset(o.b), d, m, k, n, threads);
    });
}

/// As [`matmul_batched`], but `dst[i] += ...`: the products are added to
/// what `dst` holds.
pub(crate) fn matmul_batched_acc<T: MatmulElement>(
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    dst: &mut [T],
    m: usize,
    k: usize,
    n: usize,
    offs: &[BatchOffsets],
) {
    batched(dst, (m, k, n), offs, |o, d, threads| {
        T::gemm_acc(a.at_offset(o.a), b.at_offset(o.b), d, m, k, n, threads);
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
