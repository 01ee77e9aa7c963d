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
//! # The transcendental functions: C99 Annex G
//! `exp`, `log`, `sqrt`, `log2`, `log10`, `expm1`, `log1p`, the
//! trigonometric and hyperbolic functions and their inverses are written
//! in [`math`] to the special cases for infinite, NaN and zero parts that
//! C99's Annex G gives and the array API standard adopts (`exp(-inf +
//! 1j)` is `+0 * cis(1)`, `sqrt(-inf + 1j)` is `+0 + infj`, `log(-0 +
//! 0j)` is `-inf + pij`), and tested against NumPy's, which follows the
//! same annex. `num_complex`'s functions do not all follow it.
//!
//! `pow` is NumPy's: `z ** 0` is 1, `0 ** w` is 0 for `Re(w) > 0` and
//! NaN otherwise, a small integer power is repeated multiplication (exact
//! where the product is, and finite for infinite parts where it can be),
//! every other power `exp(w log z)`, the standard's definition.
//!
//! # Left out, and why
//! Ordering (`<`, `maximum`, `sort`) is not defined for complex numbers;
//! the other functions without a complex kernel (`floor`, `atan2`,
//! `hypot`, `logaddexp` ...) are not defined for them by the standard.

use num_complex::Complex;
use num_traits::{Float, One, Zero};

use super::{BinaryOp, Func, UnaryOp};
use crate::array::element::{Element, C32, C64};

pub(crate) mod inverse;
pub(crate) mod math;

#[cfg(test)]
mod annex_g_tests;

/// A complex element type: [`C32`] or [`C64`], with its component type.
pub trait ComplexElement: Element {
    /// The real type of each component (`f32` or `f64`).
    type Real: Element + math::Real;
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
        Member::Unary(UnaryOp::Exp) => Map(|z| lift(math::exp, z)),
        Member::Unary(UnaryOp::Log) => Map(|z| lift(math::log, z)),
        Member::Unary(UnaryOp::Sqrt) => Map(|z| lift(math::sqrt, z)),
        Member::Unary(UnaryOp::Tanh) => Map(|z| lift(math::tanh, z)),
        Member::Binary(BinaryOp::Add) => Zip(|a, b| add(a, b)),
        Member::Binary(BinaryOp::Sub) => Zip(|a, b| sub(a, b)),
        Member::Binary(BinaryOp::Mul) => Zip(|a, b| mul(a, b)),
        Member::Binary(BinaryOp::Div) => Zip(|a, b| div(a, b)),
        Member::Func(f) => match f {
            Func::Positive => Map(|z| z),
            Func::Sin => Map(|z| lift(math::sin, z)),
            Func::Cos => Map(|z| lift(math::cos, z)),
            Func::Tan => Map(|z| lift(math::tan, z)),
            Func::Sinh => Map(|z| lift(math::sinh, z)),
            Func::Cosh => Map(|z| lift(math::cosh, z)),
            Func::Asin => Map(|z| lift(inverse::asin, z)),
            Func::Acos => Map(|z| lift(inverse::acos, z)),
            Func::Atan => Map(|z| lift(inverse::atan, z)),
            Func::Asinh => Map(|z| lift(inverse::asinh, z)),
            Func::Acosh => Map(|z| lift(inverse::acosh, z)),
            Func::Atanh => Map(|z| lift(inverse::atanh, z)),
            Func::Expm1 => Map(|z| lift(math::expm1, z)),
            Func::Log1p => Map(|z| lift(math::log1p, z)),
            Func::Log2 => Map(|z| lift(math::log2, z)),
            Func::Log10 => Map(|z| lift(math::log10, z)),
            Func::Pow => Zip(|a, b| pow(a, b)),
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

/// A function of a complex number's parts.
type PartsFn<F> = fn(F, F) -> (F, F);

/// A function of the parts, applied to an element.
#[inline(always)]
fn lift<T: ComplexElement>(f: PartsFn<T::Real>, z: T) -> T {
    let (re, im) = z.parts();
    let (re, im) = f(re, im);
    T::from_parts(re, im)
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
        // (The standard's rule; NumPy's `sign(inf + nanj)` is 1.)
        let nan = T::Real::nan();
        return T::from_parts(nan, nan);
    }
    // One infinite part points the way, as NumPy's (`z / |z|` would be
    // `inf / inf`); two are NaN.
    match (re.is_infinite(), im.is_infinite()) {
        (true, true) => return T::from_parts(T::Real::nan(), T::Real::nan()),
        (true, false) => return T::from_parts(re.signum(), zero),
        (false, true) => return T::from_parts(zero, im.signum()),
        (false, false) => {}
    }
    if re == zero && im == zero {
        return T::from_parts(zero, zero);
    }
    let m = abs(z);
    T::from_parts(re / m, im / m)
}

/// `z ** w`, as NumPy's (`npy_cpow`): see the module's docs.
fn pow<T: ComplexElement>(z: T, w: T) -> T {
    let ((zr, zi), (wr, wi)) = (z.parts(), w.parts());
    let zero = T::Real::zero();
    if wr == zero && wi == zero {
        return T::ONE;
    }
    if zr == zero && zi == zero {
        return if wr > zero {
            T::from_parts(zero, zero)
        } else {
            T::from_parts(T::Real::nan(), T::Real::nan())
        };
    }
    let small = <T::Real as num_traits::NumCast>::from(100).unwrap_or(zero);
    if wi == zero && wr.abs() < small && wr.fract() == zero {
        let n = num_traits::ToPrimitive::to_u32(&wr.abs()).unwrap_or(0);
        let r = match n {
            1 => z,
            2 => mul(z, z),
            3 => mul(z, mul(z, z)),
            _ => {
                // binary powering
                let (mut acc, mut p, mut n) = (T::ONE, z, n);
                loop {
                    if n & 1 == 1 {
                        acc = mul(acc, p);
                    }
                    n >>= 1;
                    if n == 0 {
                        break acc;
                    }
                    p = mul(p, p);
                }
            }
        };
        return if wr < zero { div(T::ONE, r) } else { r };
    }
    let (lr, li) = math::log(zr, zi);
    let (re, im) = math::exp(lr * wr - li * wi, lr * wi + li * wr);
    T::from_parts(re, im)
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
        // An infinite part gives the direction (NumPy's).
        assert_eq!(sign(c(0.0, f64::INFINITY)), c(0.0, 1.0));
        assert_eq!(sign(c(f64::NEG_INFINITY, 2.0)), c(-1.0, 0.0));
        let nan = sign(c(f64::INFINITY, f64::NAN));
        assert!(nan.re.is_nan() && nan.im.is_nan());
        let both = sign(c(f64::INFINITY, f64::INFINITY));
        assert!(both.re.is_nan() && both.im.is_nan());
    }

    #[test]
    #[allow(clippy::float_cmp)] // exact values
    fn small_integer_powers_multiply_and_others_go_through_exp_log() {
        assert_eq!(pow(c(1.0, 2.0), c(2.0, 0.0)), c(-3.0, 4.0));
        assert_eq!(pow(c(0.0, 1.0), c(-3.0, 0.0)), c(0.0, 1.0));
        assert_eq!(pow(c(0.0, 1.0), c(4.0, 0.0)), c(1.0, 0.0));
        assert_eq!(pow(c(f64::NAN, 1.0), c(0.0, 0.0)), c(1.0, 0.0));
        assert_eq!(pow(c(0.0, 0.0), c(2.5, 1.0)), c(0.0, 0.0));
        assert!(pow(c(0.0, 0.0), c(-1.0, 0.0)).re.is_nan());
        // i ** 0.5 = e^(i pi / 4)
        let r = pow(c(0.0, 1.0), c(0.5, 0.0));
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!((r.re - h).abs() < 4e-16 && (r.im - h).abs() < 4e-16);
    }

    #[test]
    fn the_table_names_what_the_planner_takes() {
        assert!(takes(Member::Binary(BinaryOp::Mul)));
        assert!(takes(Member::Func(Func::Conj)));
        assert!(!takes(Member::Binary(BinaryOp::Maximum)));
        assert!(takes(Member::Unary(UnaryOp::Exp)));
        assert!(takes(Member::Unary(UnaryOp::Tanh)));
        assert!(takes(Member::Func(Func::Atanh)));
        assert!(!takes(Member::Unary(UnaryOp::Relu)));
        assert!(!takes(Member::Func(Func::Floor)));
        assert!(!takes(Member::Func(Func::Atan2)));
        assert!(!takes(Member::Func(Func::Less)));
    }
}
