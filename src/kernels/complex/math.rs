//! The transcendental functions of one complex number, each written to
//! the special cases C99's Annex G gives and the array API standard
//! adopts (with the standard's few corrections, named where they apply).
//!
//! Every function here takes and returns the parts `(re, im)` of a
//! number, generic over the component type (`f32` for complex64, `f64`
//! for complex128), so both dtypes run one text; `super::kernel` lifts
//! them onto the element types.
//!
//! # Where the formulas come from
//! - `exp`, `log`, `sqrt`, `sinh`, `cosh` and `tanh` (Kahan's formula)
//!   are the textbook definitions with the annex's cases first and the
//!   scalings that keep intermediate values finite where the result is.
//! - The inverse functions are in [`super::inverse`].
//! - `sin`, `cos`, `tan` are the standard's identities (`sin(z) = -i
//!   sinh(iz)` ...), so their special cases are exactly those of the
//!   hyperbolic functions.
//! - `expm1` and `log1p` are NumPy's formulas (accurate near zero), with
//!   the standard's special cases.
//!
//! # Accuracy
//! Tested against NumPy (the platform's C library) on a grid of special
//! and ordinary values to a few units in the last place. Where `|re|` is
//! large enough that `exp(|re|)` overflows but the result does not
//! (`sinh`, `cosh` of 710 to 1455 for complex128), the exponential is
//! taken in thirds, which costs a relative error of about `|re| * eps`,
//! as FreeBSD's scaled exponential.

use num_traits::{Float, FloatConst};

use crate::kernels::func::InvHyp;

/// The component type: `f32` or `f64` (with the real kernels' accurate
/// inverse hyperbolic functions: the standard library's `atanh` loses
/// digits near ±1).
pub trait Real: Float + FloatConst + InvHyp {}
impl<F: Float + FloatConst + InvHyp> Real for F {}

/// `v` as `F` (every constant here is representable, up to rounding).
#[inline(always)]
pub(super) fn k<F: Real>(v: f64) -> F {
    F::from(v).unwrap_or_else(F::nan)
}

/// Does `F` have float64's precision? (Chooses the crossovers that
/// depend on the precision, as the C library's per-type constants.)
#[inline(always)]
fn is_double<F: Real>() -> bool {
    F::epsilon() < k(1e-10)
}

// --- exp, log, sqrt ------------------------------------------------

/// `e^z` (`cexp`).
#[inline]
pub fn exp<F: Real>(a: F, b: F) -> (F, F) {
    let (zero, nan, inf) = (F::zero(), F::nan(), F::infinity());
    if b == zero && !a.is_nan() {
        return (a.exp(), b); // exp(x ± 0j) = exp(x) ± 0j
    }
    if a.is_nan() {
        // NaN ± 0j for a zero b, else NaN + NaNj
        return (nan, if b == zero { b } else { nan });
    }
    if a.is_infinite() {
        if b.is_finite() {
            // +0 * cis(b), or +inf * cis(b) (b nonzero)
            let r = if a > zero { inf } else { zero };
            return (r * b.cos(), r * b.sin());
        }
        // b infinite or NaN: 0 + 0j below -inf, inf + NaNj above +inf
        return if a > zero { (inf, nan) } else { (zero, zero) };
    }
    if !b.is_finite() {
        return (nan, nan);
    }
    let r = a.exp();
    (r * b.cos(), r * b.sin())
}

/// The principal logarithm, `ln|z| + i arg(z)` (`clog`): `hypot` and
/// `atan2` give Annex G's special cases (`log(-0 + 0j)` is `-inf + pij`,
/// `log(-inf + infj)` is `inf + 3pi/4 j`, a NaN part NaN, but an infinite
/// part an infinite real part). Near `|z| = 1`, where `ln|z|` cancels,
/// the real part is `log1p(|z|^2 - 1) / 2` with `|z|^2 - 1` formed
/// without cancellation (CPython's `cmath.log`, NumPy's).
#[inline]
pub fn log<F: Real>(a: F, b: F) -> (F, F) {
    let h = a.hypot(b);
    let (ax, ay) = (a.abs(), b.abs());
    let re = if h >= k(0.71) && h <= k(1.73) {
        let (big, small) = if ax > ay { (ax, ay) } else { (ay, ax) };
        ((big - F::one()) * (big + F::one()) + small * small).ln_1p() / k(2.0)
    } else {
        h.ln()
    };
    (re, b.atan2(a))
}

/// The principal square root (`csqrt`): Annex G's special cases first,
/// then the stable formula (CACM algorithm 312), scaled where `|a| + |z|`
/// could overflow.
#[inline]
pub fn sqrt<F: Real>(a: F, b: F) -> (F, F) {
    let (zero, nan, inf) = (F::zero(), F::nan(), F::infinity());
    let two: F = k(2.0);
    if a == zero && b == zero {
        return (zero, b);
    }
    if b.is_infinite() {
        return (inf, b);
    }
    if a.is_nan() {
        return (a, nan);
    }
    if a.is_infinite() {
        // sqrt(-inf + yj) = +0 + inf j (NaN + inf j for a NaN y);
        // sqrt(+inf + yj) = +inf + 0j (inf + NaNj).
        let y0 = if b.is_nan() { nan } else { zero };
        return if a < zero {
            (y0.abs(), inf.copysign(b))
        } else {
            (a, y0.copysign(b))
        };
    }
    if b.is_nan() {
        return (nan, nan);
    }
    let four = two * two;
    let limit = F::max_value() / (F::one() + two.sqrt());
    let scaled = a.abs() >= limit || b.abs() >= limit;
    let (a, b) = if scaled { (a / four, b / four) } else { (a, b) };
    let (re, im) = if a >= zero {
        let t = ((a + a.hypot(b)) / two).sqrt();
        (t, b / (two * t))
    } else {
        let t = ((-a + a.hypot(b)) / two).sqrt();
        (b.abs() / (two * t), t.copysign(b))
    };
    if scaled {
        (re * two, im * two)
    } else {
        (re, im)
    }
}

/// `log2(z)` and `log10(z)`: `log(z)` times the constant, both parts (the
/// standard's change of base; NumPy's).
#[inline]
pub fn log2<F: Real>(a: F, b: F) -> (F, F) {
    let (re, im) = log(a, b);
    (re * F::LOG2_E(), im * F::LOG2_E())
}

/// See [`log2`].
#[inline]
pub fn log10<F: Real>(a: F, b: F) -> (F, F) {
    let (re, im) = log(a, b);
    (re * F::LOG10_E(), im * F::LOG10_E())
}

/// `e^z - 1`, accurate near zero: `expm1(a) cos(b) - 2 sin^2(b/2)` for
/// the real part (NumPy's), with the standard's special cases (those of
/// `exp`, shifted by one).
#[inline]
pub fn expm1<F: Real>(a: F, b: F) -> (F, F) {
    let (zero, one, nan, inf) = (F::zero(), F::one(), F::nan(), F::infinity());
    if b == zero && !a.is_nan() {
        // expm1(±0 ± 0j) is +0 ± 0j: the standard's `0 + 0j` (NumPy's
        // formula gives -0 for -0)
        return (if a == zero { zero } else { a.exp_m1() }, b);
    }
    if a.is_nan() {
        return (nan, if b == zero { b } else { nan });
    }
    if a.is_infinite() {
        if b.is_finite() {
            return if a > zero {
                (inf * b.cos(), inf * b.sin()) // +inf * cis(b) - 1
            } else {
                (zero * b.cos() - one, zero * b.sin()) // +0 * cis(b) - 1
            };
        }
        return if a > zero { (inf, nan) } else { (-one, zero) };
    }
    if !b.is_finite() {
        return (nan, nan);
    }
    let s = (b / k(2.0)).sin();
    (
        a.exp_m1() * b.cos() - k::<F>(2.0) * s * s,
        a.exp() * b.sin(),
    )
}

/// `log(1 + z)`, accurate near zero and near the circle `|1 + z| = 1`:
/// the real part is `log1p(|1 + z|^2 - 1) / 2` with `|1 + z|^2 - 1`
/// formed by fused multiply-adds from the terms that cancel, so it cancels
/// without the products' rounding (NumPy's `log(hypot(1 + a, b))` loses
/// digits there). `hypot` and
/// `atan2` of `(1 + a, b)` give the standard's special cases
/// (`log1p(-1 + 0j)` is `-inf + 0j`, an infinite part `+inf`).
#[inline]
pub fn log1p<F: Real>(a: F, b: F) -> (F, F) {
    let ap1 = a + F::one();
    let h = ap1.hypot(b);
    let re = if h >= k(0.71) && h <= k(1.73) {
        let t = if a.abs() < k(0.5) {
            // 2a + b^2 rounded once (2a is exact), then a^2
            a.mul_add(a, b.mul_add(b, a + a))
        } else {
            // (1 + a)^2 + b^2 - 1, 1 + a exact for a in [-2, -0.5] (where
            // the terms cancel): the larger square minus 1 rounded once
            // first, then the smaller square
            let p = a + F::one();
            if p.abs() < b.abs() {
                p.mul_add(p, b.mul_add(b, -F::one()))
            } else {
                b.mul_add(b, p.mul_add(p, -F::one()))
            }
        };
        t.ln_1p() / k(2.0)
    } else {
        h.ln()
    };
    (re, b.atan2(ap1))
}

// --- sinh, cosh, tanh ---------------------------------------------

/// Where `cosh(x) = exp(|x|) / 2` to the last place (FreeBSD's
/// `CSINH_BIG`: 9 for float32, 22 for float64).
fn exp_big<F: Real>() -> F {
    if is_double::<F>() {
        k(22.0)
    } else {
        k(9.0)
    }
}

/// `exp(|x|) / 2 * (cos(y), sin(y))` for `|x|` past where `exp(|x|)`
/// overflows but the product may not: the exponential in thirds, so no
/// factor overflows before the result does.
fn half_exp_cis<F: Real>(ax: F, y: F) -> (F, F) {
    let e = (ax / k(3.0)).exp();
    let half: F = k(0.5);
    (half * y.cos() * e * e * e, half * y.sin() * e * e * e)
}

/// `ln(max)`: below it `exp(|x|)` is finite.
fn exp_half_limit<F: Real>() -> F {
    F::max_value().ln()
}

/// Past it `exp(|x|) / 2 * t` overflows for every nonzero `t`: `ln(2 *
/// max) - ln(smallest subnormal)`.
fn exp_always_overflows<F: Real>() -> F {
    F::max_value().ln() + F::LN_2() - (F::min_positive_value() * F::epsilon()).ln()
}

/// `sinh(x + iy) = sinh(x) cos(y) + i cosh(x) sin(y)` (`csinh`).
pub fn sinh<F: Real>(x: F, y: F) -> (F, F) {
    let (zero, nan, inf) = (F::zero(), F::nan(), F::infinity());
    let (xf, yf) = (x.is_finite(), y.is_finite());
    if xf && yf {
        if y == zero {
            return (x.sinh(), y);
        }
        let ax = x.abs();
        if ax < exp_big() {
            return (x.sinh() * y.cos(), x.cosh() * y.sin());
        }
        if ax < exp_half_limit() {
            let h = ax.exp() / k(2.0);
            return (h.copysign(x) * y.cos(), h * y.sin());
        }
        if ax < exp_always_overflows() {
            let (re, im) = half_exp_cis(ax, y);
            return (if x < zero { -re } else { re }, im);
        }
        let h = F::max_value() * x;
        return (h * y.cos(), h * h * y.sin());
    }
    // sinh(±0 ± inf j) and sinh(±0 + NaN j): ±0 + NaN j (the zero's sign
    // is unspecified; this keeps x's).
    if x == zero {
        return (x, nan);
    }
    // sinh(±inf ± 0j) = ±inf ± 0j, sinh(NaN ± 0j) = NaN ± 0j
    if y == zero {
        return (x, y);
    }
    if xf {
        return (nan, nan); // finite nonzero x, infinite or NaN y
    }
    if x.is_infinite() {
        if !yf {
            return (inf, nan); // the real part's sign is unspecified
        }
        return (x * y.cos(), inf * y.sin()); // ±inf * cis(y)
    }
    (nan, nan)
}

/// `cosh(x + iy) = cosh(x) cos(y) + i sinh(x) sin(y)` (`ccosh`).
pub fn cosh<F: Real>(x: F, y: F) -> (F, F) {
    let (zero, nan, inf) = (F::zero(), F::nan(), F::infinity());
    let (xf, yf) = (x.is_finite(), y.is_finite());
    if xf && yf {
        if y == zero {
            return (x.cosh(), x * y);
        }
        let ax = x.abs();
        if ax < exp_big() {
            return (x.cosh() * y.cos(), x.sinh() * y.sin());
        }
        if ax < exp_half_limit() {
            let h = ax.exp() / k(2.0);
            return (h * y.cos(), h.copysign(x) * y.sin());
        }
        if ax < exp_always_overflows() {
            let (re, im) = half_exp_cis(ax, y);
            return (re, if x < zero { -im } else { im });
        }
        let h = F::max_value() * x;
        return (h * h * y.cos(), h * y.sin());
    }
    // cosh(±0 ± inf j), cosh(±0 + NaN j): NaN ± 0j (sign unspecified)
    if x == zero {
        return (nan, zero);
    }
    // cosh(±inf ± 0j) = +inf ± 0j (the product of the signs), cosh(NaN ±
    // 0j) = NaN ± 0j
    if y == zero {
        let im = if x.is_nan() { y } else { y * x.signum() };
        return (x * x, im);
    }
    if xf {
        return (nan, nan);
    }
    if x.is_infinite() {
        if !yf {
            return (inf, nan);
        }
        return (inf * y.cos(), x * y.sin()); // +inf * cis(y), odd in x
    }
    (nan, nan)
}

/// `tanh(x + iy)` by Kahan's formula (`ctanh`): with `t = tan(y)`,
/// `beta = 1 + t^2`, `s = sinh(x)`, `rho = sqrt(1 + s^2)`,
/// `tanh(z) = (beta rho s + i t) / (1 + beta s^2)`. For large `|x|` it is
/// `±1 + 4 i sin(y) cos(y) e^(-2|x|)`. The standard's (C11's) special
/// case `tanh(+0 + inf j) = +0 + NaN j` is kept, where C99 gave `NaN + NaN j`.
pub fn tanh<F: Real>(x: F, y: F) -> (F, F) {
    let (zero, one, nan) = (F::zero(), F::one(), F::nan());
    if !x.is_finite() {
        if x.is_nan() {
            return (x, if y == zero { y } else { nan });
        }
        // tanh(±inf + iy) = ±1 ± 0j, the zero of y's sign: the
        // standard's `1 + 0j` for y > 0, and conj-symmetric (C99 takes
        // sin(2y)'s sign, so NumPy's can differ)
        return (one.copysign(x), zero.copysign(y));
    }
    if !y.is_finite() {
        return if x == zero { (x, nan) } else { (nan, nan) };
    }
    let huge = if is_double::<F>() { k(22.0) } else { k(11.0) };
    if x.abs() >= huge {
        let e = (-x.abs()).exp();
        return (one.copysign(x), k::<F>(4.0) * y.sin() * y.cos() * e * e);
    }
    let t = y.tan();
    let beta = one + t * t;
    let s = x.sinh();
    let rho = (one + s * s).sqrt();
    let denom = one + beta * s * s;
    (beta * rho * s / denom, t / denom)
}

/// `i z`'s parts.
#[inline(always)]
fn times_i<F: Real>(a: F, b: F) -> (F, F) {
    (-b, a)
}

/// `sin(z) = -i sinh(iz)`.
pub fn sin<F: Real>(a: F, b: F) -> (F, F) {
    let (p, q) = times_i(a, b);
    let (re, im) = sinh(p, q);
    (im, -re)
}

/// `cos(z) = cosh(iz)`.
pub fn cos<F: Real>(a: F, b: F) -> (F, F) {
    let (p, q) = times_i(a, b);
    cosh(p, q)
}

/// `tan(z) = -i tanh(iz)`.
pub fn tan<F: Real>(a: F, b: F) -> (F, F) {
    let (p, q) = times_i(a, b);
    let (re, im) = tanh(p, q);
    (im, -re)
}
