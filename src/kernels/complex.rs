//! Element-wise arithmetic of complex numbers (complex64 and complex128):
//! which operations have a complex kernel, and the scalar function each
//! one applies.
//!
//! One table ([`kernel`]) answers both questions, so the planner, which
//! refuses a complex operand of any other operation before anything is
//! allocated (`plan/complex.rs` asks [`takes`]), and the runner cannot
//! disagree. The loops are plain scalar loops over the same broadcasting
//! runs as the real kernels ([`super::broadcast_zip`]); the compiler
//! vectorises what it can. Complex numbers have no SIMD kernels of their
//! own yet.
//!
//! # Arithmetic, as NumPy's
//! `+`, `-`, `*` are the textbook formulas on the components (the array
//! API standard's definition; `(inf + 0j) * (1 + 0j)` has a NaN imaginary
//! part, as NumPy's). Division is Smith's algorithm, as NumPy's, which
//! does not overflow where `|b|²` would. `abs` is `hypot(re, im)`;
//! `sign(z)` is `z / |z|` (0 for 0, `NaN + NaNj` when a part is NaN).
//!
//! # `exp`, `log`, `sqrt`: C99 Annex G
//! Each is written here to the special cases for infinite, NaN and zero
//! parts that C99's Annex G gives and the array API standard adopts
//! (`exp(-inf + 1j)` is `+0 * cis(1)`, `sqrt(-inf + 1j)` is `+0 + infj`,
//! `log(-0 + 0j)` is `-inf + pij`), and tested against NumPy's, which
//! follows the same annex. `num_complex`'s functions do not all follow it.
//!
//! # Left out, and why
//! The trigonometric and hyperbolic functions, their inverses and `pow`
//! of complex numbers have special cases of their own: until each is
//! written to them and tested, they stay `TypeError`s rather than return
//! a silently different number. Ordering (`<`, `maximum`, `sort`) is not
//! defined for complex numbers.

use num_complex::Complex;
use num_traits::{Float, One, Zero};

use super::{BinaryOp, Func, UnaryOp};
use crate::array::element::{Element, C32, C64};

/// A complex element type: [`C32`] or [`C64`], with its component type.
pub trait ComplexElement: Element {
    /// The real type of each component (`f32` or `f64`).
    type Real: Element + Float;
    /// The components.
    fn parts(self) -> (Self::Real, Self::Real);
    /// From components.
    fn from_parts(re: Self::Real, im: Self::Real) -> Self;
}

macro_rules! complex_element {
    ($t:ty, $f:ty) => {
        impl ComplexElement for $t {
            type Real = $f;
            #[inline(always)]
            fn parts(self) -> ($f, $f) {
                (self.re, self.im)
            }
            #[inline(always)]
            fn from_parts(re: $f, im: $f) -> Self {
                Complex::new(re, im)
            }
        }
    };
}
complex_element!(C32, f32);
complex_element!(C64, f64);

/// What a complex kernel computes: a complex result of one or two
/// operands, a real one (`abs`, `real`, `imag`), or a bool one (tests
/// and comparisons).
pub enum Kernel<T: ComplexElement> {
    Map(fn(T) -> T),
    Zip(fn(T, T) -> T),
    ToReal(fn(T) -> T::Real),
    Test(fn(T) -> bool),
    Compare(fn(T, T) -> bool),
}

/// An operation family's member, as the planner names it.
#[derive(Debug, Clone, Copy)]
pub enum Member {
    Unary(UnaryOp),
    Binary(BinaryOp),
    Func(Func),
}

/// The kernel of `m` over complex numbers, or `None` if it has none.
pub fn kernel<T: ComplexElement>(m: Member) -> Option<Kernel<T>> {
    use Kernel::{Compare, Map, Test, ToReal, Zip};
    Some(match m {
        Member::Unary(UnaryOp::Neg) => Map(|z| neg(z)),
        Member::Unary(UnaryOp::Abs) => ToReal(|z| abs(z)),
        Member::Unary(UnaryOp::Exp) => Map(|z| exp(z)),
        Member::Unary(UnaryOp::Log) => Map(|z| log(z)),
        Member::Unary(UnaryOp::Sqrt) => Map(|z| sqrt(z)),
        Member::Binary(BinaryOp::Add) => Zip(|a, b| add(a, b)),
        Member::Binary(BinaryOp::Sub) => Zip(|a, b| sub(a, b)),
        Member::Binary(BinaryOp::Mul) => Zip(|a, b| mul(a, b)),
        Member::Binary(BinaryOp::Div) => Zip(|a, b| div(a, b)),
        Member::Func(f) => match f {
            Func::Positive => Map(|z| z),
            Func::Square => Map(|z| mul(z, z)),
            Func::Conj => Map(|z| {
                let (re, im) = z.parts();
                T::from_parts(re, -im)
            }),
            Func::Reciprocal => Map(|z| div(T::ONE, z)),
            Func::Sign => Map(|z| sign(z)),
            Func::Real => ToReal(|z| z.parts().0),
            Func::Imag => ToReal(|z| z.parts().1),
            Func::IsNan => Test(|z| {
                let (re, im) = z.parts();
                re.is_nan() || im.is_nan()
            }),
            Func::IsInf => Test(|z| {
                let (re, im) = z.parts();
                re.is_infinite() || im.is_infinite()
            }),
            Func::IsFinite => Test(|z| {
                let (re, im) = z.parts();
                re.is_finite() && im.is_finite()
            }),
            Func::Equal => Compare(|a, b| a == b),
            Func::NotEqual => Compare(|a, b| a != b),
            _ => return None,
        },
        _ => return None,
    })
}

/// Does `m` have a complex kernel? (The planner's question.)
pub fn takes(m: Member) -> bool {
    kernel::<C32>(m).is_some()
}

#[inline(always)]
fn neg<T: ComplexElement>(z: T) -> T {
    let (re, im) = z.parts();
    T::from_parts(-re, -im)
}

#[inline(always)]
fn add<T: ComplexElement>(a: T, b: T) -> T {
    let ((ar, ai), (br, bi)) = (a.parts(), b.parts());
    T::from_parts(ar + br, ai + bi)
}

#[inline(always)]
fn sub<T: ComplexElement>(a: T, b: T) -> T {
    let ((ar, ai), (br, bi)) = (a.parts(), b.parts());
    T::from_parts(ar - br, ai - bi)
}

#[inline(always)]
fn mul<T: ComplexElement>(a: T, b: T) -> T {
    let ((ar, ai), (br, bi)) = (a.parts(), b.parts());
    T::from_parts(ar * br - ai * bi, ar * bi + ai * br)
}

/// `a / b` by Smith's algorithm (NumPy's `nc_quot`): scale by the larger
/// component of `b`, so no intermediate overflows where `|b|²` would.
#[inline(always)]
fn div<T: ComplexElement>(a: T, b: T) -> T {
    let ((ar, ai), (br, bi)) = (a.parts(), b.parts());
    let (re_mag, im_mag) = (br.abs(), bi.abs());
    let zero = T::Real::zero();
    if re_mag >= im_mag {
        if re_mag == zero && im_mag == zero {
            // Division by zero: each part divided by |b| = 0, as NumPy.
            return T::from_parts(ar / re_mag, ai / im_mag);
        }
        let rat = bi / br;
        let scl = T::Real::one() / (br + bi * rat);
        T::from_parts((ar + ai * rat) * scl, (ai - ar * rat) * scl)
    } else if im_mag.is_nan() || re_mag.is_nan() {
        let nan = T::Real::nan();
        T::from_parts(nan, nan)
    } else {
        let rat = br / bi;
        let scl = T::Real::one() / (bi + br * rat);
        T::from_parts((ar * rat + ai) * scl, (ai * rat - ar) * scl)
    }
}

#[inline(always)]
fn abs<T: ComplexElement>(z: T) -> T::Real {
    let (re, im) = z.parts();
    re.hypot(im)
}

/// `z / |z|`, each part divided by the magnitude (NumPy's): 0 for 0,
/// `NaN + NaNj` when a part is NaN (the standard's special cases).
#[inline(always)]
fn sign<T: ComplexElement>(z: T) -> T {
    let (re, im) = z.parts();
    let zero = T::Real::zero();
    if re.is_nan() || im.is_nan() {
        let nan = T::Real::nan();
        return T::from_parts(nan, nan);
    }
    if re == zero && im == zero {
        return T::from_parts(zero, zero);
    }
    let m = abs(z);
    T::from_parts(re / m, im / m)
}

/// `e^z` with Annex G's special cases (`cexp`).
#[inline]
fn exp<T: ComplexElement>(z: T) -> T {
    let (a, b) = z.parts();
    let (zero, nan, inf) = (T::Real::zero(), T::Real::nan(), T::Real::infinity());
    if b == zero && !a.is_nan() {
        return T::from_parts(a.exp(), b); // exp(x ± 0j) = exp(x) ± 0j
    }
    if a.is_nan() {
        // NaN ± 0j for a zero b, else NaN + NaNj
        return T::from_parts(nan, if b == zero { b } else { nan });
    }
    if a.is_infinite() {
        if b.is_finite() {
            // +0 * cis(b), or +inf * cis(b) (b nonzero)
            let r = if a > zero { inf } else { zero };
            return T::from_parts(r * b.cos(), r * b.sin());
        }
        // b infinite or NaN: 0 + 0j below -inf, inf + NaNj above +inf
        return if a > zero {
            T::from_parts(inf, nan)
        } else {
            T::from_parts(zero, zero)
        };
    }
    if !b.is_finite() {
        return T::from_parts(nan, nan);
    }
    let r = a.exp();
    T::from_parts(r * b.cos(), r * b.sin())
}

/// The principal logarithm, `ln|z| + i arg(z)` (`clog`): `hypot` and
/// `atan2` give Annex G's special cases (`log(-0 + 0j)` is `-inf + pij`,
/// `log(-inf + infj)` is `inf + 3pi/4 j`, a NaN part NaN, but an infinite
/// part an infinite real part).
#[inline]
fn log<T: ComplexElement>(z: T) -> T {
    let (a, b) = z.parts();
    T::from_parts(a.hypot(b).ln(), b.atan2(a))
}

/// The principal square root (`csqrt`, as FreeBSD's and musl's): Annex
/// G's special cases first, then the stable formula, scaled where
/// `|a| + |z|` could overflow.
#[inline]
fn sqrt<T: ComplexElement>(z: T) -> T {
    let (a, b) = z.parts();
    let (zero, nan, inf) = (T::Real::zero(), T::Real::nan(), T::Real::infinity());
    let two = T::Real::one() + T::Real::one();
    if a == zero && b == zero {
        return T::from_parts(zero, b);
    }
    if b.is_infinite() {
        return T::from_parts(inf, b);
    }
    if a.is_nan() {
        return T::from_parts(a, nan);
    }
    if a.is_infinite() {
        // sqrt(-inf + yj) = +0 + inf j (NaN + inf j for a NaN y);
        // sqrt(+inf + yj) = +inf + 0j (inf + NaNj).
        let y0 = if b.is_nan() { nan } else { zero };
        return if a < zero {
            T::from_parts(y0.abs(), inf.copysign(b))
        } else {
            T::from_parts(a, y0.copysign(b))
        };
    }
    if b.is_nan() {
        return T::from_parts(nan, nan);
    }
    let four = two * two;
    let limit = T::Real::max_value() / (T::Real::one() + two.sqrt());
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
        T::from_parts(re * two, im * two)
    } else {
        T::from_parts(re, im)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(re: f64, im: f64) -> C64 {
        Complex::new(re, im)
    }

    #[test]
    fn division_is_smiths_and_does_not_overflow() {
        // |b|² overflows f64; Smith's algorithm does not.
        let q = div(c(1e300, 1e300), c(1e300, 1e300));
        assert_eq!(q, c(1.0, 0.0));
        assert_eq!(div(c(1.0, 2.0), c(3.0, 4.0)), c(0.44, 0.08));
        let z = div(c(1.0, 1.0), c(0.0, 0.0));
        assert!(z.re.is_infinite() && z.im.is_infinite());
        let n = div(c(1.0, 1.0), c(f64::NAN, 0.0));
        assert!(n.re.is_nan() && n.im.is_nan());
    }

    #[test]
    fn sign_has_the_standards_special_cases() {
        assert_eq!(sign(c(0.0, -0.0)), c(0.0, 0.0));
        assert_eq!(sign(c(3.0, -4.0)), c(0.6, -0.8));
        let n = sign(c(f64::NAN, 1.0));
        assert!(n.re.is_nan() && n.im.is_nan());
    }

    #[test]
    #[allow(clippy::float_cmp)] // exact special values
    fn exp_log_and_sqrt_follow_annex_g() {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        let z = exp(c(-inf, 1.0));
        assert!(z.re == 0.0 && z.im == 0.0 && z.re.is_sign_positive());
        let z = exp(c(inf, nan));
        assert!(z.re == inf && z.im.is_nan());
        assert_eq!(exp(c(-0.0, 0.0)), c(1.0, 0.0));
        let z = exp(c(nan, -0.0));
        assert!(z.re.is_nan() && z.im == 0.0 && z.im.is_sign_negative());
        assert_eq!(log(c(-0.0, 0.0)), c(-inf, std::f64::consts::PI));
        assert_eq!(log(c(-inf, inf)), c(inf, 3.0 * std::f64::consts::FRAC_PI_4));
        let z = log(c(inf, nan));
        assert!(z.re == inf && z.im.is_nan());
        assert_eq!(sqrt(c(-inf, 1.0)), c(0.0, inf));
        assert_eq!(sqrt(c(nan, inf)), c(inf, inf));
        let z = sqrt(c(-inf, nan));
        assert!(z.re.is_nan() && z.im.is_infinite());
        assert_eq!(sqrt(c(-4.0, -0.0)), c(0.0, -2.0));
        assert!(sqrt(c(f64::MAX, f64::MAX)).re.is_finite());
    }

    #[test]
    fn the_table_names_what_the_planner_takes() {
        assert!(takes(Member::Binary(BinaryOp::Mul)));
        assert!(takes(Member::Func(Func::Conj)));
        assert!(!takes(Member::Binary(BinaryOp::Maximum)));
        assert!(takes(Member::Unary(UnaryOp::Exp)));
        assert!(!takes(Member::Unary(UnaryOp::Tanh)));
        assert!(!takes(Member::Func(Func::Less)));
    }
}
