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
    // The closure may run on the pool's thread: carry the addresses, not
    // the (non-`Send`) pointers.
    let addr = dst.expose_provenance();
    let (pa, pb) = (
        a.data.as_ptr().expose_provenance(),
        b.data.as_ptr().expose_provenance(),
    );
    on_gemm_threads(threads, |par| {
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
    });
}

/// Run `f` with gemm's parallelism: split across the kernels' pool
/// (inside [`install`]) when `threads`, else on the calling thread.
fn on_gemm_threads(threads: bool, f: impl FnOnce(gemm::Parallelism) + Send) {
    if threads {
        install(|| f(gemm::Parallelism::Rayon(0)));
    } else {
        f(gemm::Parallelism::None);
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

/// Element types whose products `gemm` computes (floats and complex
/// floats), for [`sub_product_within`].
pub(crate) trait GemmFloat: MatmulElement + Send + Sync {
    const NEG_ONE: Self;
}

impl GemmFloat for f32 {
    const NEG_ONE: f32 = -1.0;
}
impl GemmFloat for f64 {
    const NEG_ONE: f64 = -1.0;
}
impl GemmFloat for crate::C32 {
    const NEG_ONE: crate::C32 = crate::C32::new(-1.0, 0.0);
}
impl GemmFloat for crate::C64 {
    const NEG_ONE: crate::C64 = crate::C64::new(-1.0, 0.0);
}

/// `C -= A·B` for three blocks of one row-major matrix of `ld` columns
/// held in `data`, each block given by its first `(row, column)`: `C` is
/// `m×n` at `c`, `A` is `m×k` at `a`, `B` is `k×n` at `b`. This is the
/// trailing update of a blocked factorisation (`A22 -= L21·U12`), written
/// where the blocks lie. Split across the pool's threads when large.
///
/// # Panics
/// When a block leaves the matrix, or `C` shares an element with `A` or
/// `B` (what makes the raw-pointer product sound).
pub(crate) fn sub_product_within<T: GemmFloat>(
    data: &mut [T],
    ld: usize,
    (c, a, b): ((usize, usize), (usize, usize), (usize, usize)),
    (m, k, n): (usize, usize, usize),
) {
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    let rows = data.len().checked_div(ld).unwrap_or(0);
    let fits = |(r, c): (usize, usize), (h, w): (usize, usize)| r + h <= rows && c + w <= ld;
    assert!(
        fits(c, (m, n)) && fits(a, (m, k)) && fits(b, (k, n)),
        "block outside its matrix"
    );
    let apart = |p: (usize, usize),
                 (ph, pw): (usize, usize),
                 q: (usize, usize),
                 (qh, qw): (usize, usize)| {
        p.0 + ph <= q.0 || q.0 + qh <= p.0 || p.1 + pw <= q.1 || q.1 + qw <= p.1
    };
    assert!(
        apart(c, (m, n), a, (m, k)) && apart(c, (m, n), b, (k, n)),
        "the updated block overlaps a factor"
    );
    let threads = m.saturating_mul(n).saturating_mul(k) >= PAR_WORK;
    // The closure may run on the pool's thread: carry the address, not the
    // (non-`Send`) pointer.
    let base = data.as_mut_ptr().expose_provenance();
    on_gemm_threads(threads, |par| {
        let base: *mut T = std::ptr::with_exposed_provenance_mut(base);
        let at = |(r, col): (usize, usize)| r * ld + col;
        // SAFETY: every block lies inside `data` (asserted above), which
        // this function borrows mutably for the whole call, and `C`
        // shares no element with `A` or `B` (asserted above): the product
        // writes only `C`'s elements and reads only `A`'s, `B`'s and `C`'s.
        // gemm computes dst = alpha·dst + beta·lhs·rhs.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                base.add(at(c)),
                1,
                ld as isize,
                true,
                base.add(at(a)).cast_const(),
                1,
                ld as isize,
                base.add(at(b)).cast_const(),
                1,
                ld as isize,
                <T as Element>::ONE,
                T::NEG_ONE,
                false,
                false,
                false,
                par,
            );
        }
    });
}

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

#[cfg(test)]
mod tests {
    use super::sub_product_within;

    /// `C -= A·B` inside one 7×9 matrix, against the plain loops, for
    /// f64 and a product large enough to be split across threads.
    #[test]
    fn sub_product_within_updates_only_its_block() {
        for (rows, ld, c, a, b, (m, k, n)) in [
            (7, 9, (3, 4), (3, 0), (0, 4), (4, 3, 5)),
            (300, 300, (40, 40), (40, 0), (0, 40), (260, 40, 260)),
        ] {
            let data: Vec<f64> = (0..rows * ld)
                .map(|x| ((x * 37) % 11) as f64 - 5.0)
                .collect();
            let mut want = data.clone();
            for i in 0..m {
                for j in 0..n {
                    let s: f64 = (0..k)
                        .map(|p| data[(a.0 + i) * ld + a.1 + p] * data[(b.0 + p) * ld + b.1 + j])
                        .sum();
                    want[(c.0 + i) * ld + c.1 + j] -= s;
                }
            }
            let mut got = data.clone();
            sub_product_within(&mut got, ld, (c, a, b), (m, k, n));
            assert_eq!(got, want);
        }
    }

    #[test]
    #[should_panic(expected = "overlaps")]
    fn an_updated_block_over_a_factor_is_refused() {
        let mut data = vec![1.0f64; 16];
        sub_product_within(&mut data, 4, ((0, 0), (0, 1), (2, 0)), (2, 2, 2));
    }

    #[test]
    #[should_panic(expected = "outside")]
    fn a_block_outside_the_matrix_is_refused() {
        let mut data = vec![1.0f64; 16];
        sub_product_within(&mut data, 4, ((3, 3), (0, 0), (0, 0)), (2, 1, 2));
    }
}
