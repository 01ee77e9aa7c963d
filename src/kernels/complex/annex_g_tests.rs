//! The special cases the array API standard lists for the complex
//! functions, and their precision near zero and at large parts.

use super::inverse::*;
use super::math::*;

type C = (f64, f64);

fn c(re: f64, im: f64) -> C {
    (re, im)
}

/// `f` of the parts of `z`, as an `(re, im)` pair.
fn exp(z: C) -> C {
    super::math::exp(z.0, z.1)
}
fn log(z: C) -> C {
    super::math::log(z.0, z.1)
}
fn sqrt(z: C) -> C {
    super::math::sqrt(z.0, z.1)
}

#[test]
#[allow(clippy::float_cmp)] // exact special values
fn exp_log_and_sqrt_follow_annex_g() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let z = exp(c(-inf, 1.0));
    assert!(z.0 == 0.0 && z.1 == 0.0 && z.0.is_sign_positive());
    let z = exp(c(inf, nan));
    assert!(z.0 == inf && z.1.is_nan());
    assert_eq!(exp(c(-0.0, 0.0)), c(1.0, 0.0));
    let z = exp(c(nan, -0.0));
    assert!(z.0.is_nan() && z.1 == 0.0 && z.1.is_sign_negative());
    assert_eq!(log(c(-0.0, 0.0)), c(-inf, std::f64::consts::PI));
    assert_eq!(log(c(-inf, inf)), c(inf, 3.0 * std::f64::consts::FRAC_PI_4));
    let z = log(c(inf, nan));
    assert!(z.0 == inf && z.1.is_nan());
    assert_eq!(sqrt(c(-inf, 1.0)), c(0.0, inf));
    assert_eq!(sqrt(c(nan, inf)), c(inf, inf));
    let z = sqrt(c(-inf, nan));
    assert!(z.0.is_nan() && z.1.is_infinite());
    assert_eq!(sqrt(c(-4.0, -0.0)), c(0.0, -2.0));
    assert!(sqrt(c(f64::MAX, f64::MAX)).0.is_finite());
}

/// An expected part: a value (zeros with their sign), NaN, or a
/// value whose sign the standard leaves unspecified.
#[derive(Clone, Copy)]
enum W {
    V(f64),
    Nan,
    Unsigned(f64),
}

#[allow(clippy::float_cmp)] // exact special values
fn ok(got: f64, want: W) -> bool {
    match want {
        W::Nan => got.is_nan(),
        W::V(v) if v == 0.0 || v.is_infinite() => {
            got == v && got.is_sign_negative() == v.is_sign_negative()
        }
        W::V(v) => (got - v).abs() <= 4.0 * f64::EPSILON * v.abs(),
        W::Unsigned(v) => got.abs() == v,
    }
}

/// A function's name, the function, an operand's parts, the result's.
type Case = (&'static str, fn(f64, f64) -> (f64, f64), C, (W, W));

#[test]
fn the_standards_special_cases_hold() {
    use std::f64::consts::{FRAC_PI_2 as H, FRAC_PI_4 as Q, PI};
    use W::{Nan as N, Unsigned as U, V};
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("acos", acos, (0.0, 0.0), (V(H), V(-0.0))),
        ("acos", acos, (-0.0, nan), (V(H), N)),
        ("acos", acos, (2.0, inf), (V(H), V(-inf))),
        ("acos", acos, (-inf, 1.0), (V(PI), V(-inf))),
        ("acos", acos, (inf, 1.0), (V(0.0), V(-inf))),
        ("acos", acos, (-inf, inf), (V(3.0 * Q), V(-inf))),
        ("acos", acos, (inf, inf), (V(Q), V(-inf))),
        ("acos", acos, (inf, nan), (N, U(inf))),
        ("acos", acos, (nan, inf), (N, V(-inf))),
        ("acosh", acosh, (-0.0, 0.0), (V(0.0), V(H))),
        ("acosh", acosh, (2.0, inf), (V(inf), V(H))),
        ("acosh", acosh, (0.0, nan), (N, U(H))),
        ("acosh", acosh, (-inf, 1.0), (V(inf), V(PI))),
        ("acosh", acosh, (inf, 1.0), (V(inf), V(0.0))),
        ("acosh", acosh, (-inf, inf), (V(inf), V(3.0 * Q))),
        ("acosh", acosh, (-inf, nan), (V(inf), N)),
        ("acosh", acosh, (nan, inf), (V(inf), N)),
        ("asinh", asinh, (0.0, 0.0), (V(0.0), V(0.0))),
        ("asinh", asinh, (1.0, inf), (V(inf), V(H))),
        ("asinh", asinh, (inf, 1.0), (V(inf), V(0.0))),
        ("asinh", asinh, (inf, inf), (V(inf), V(Q))),
        ("asinh", asinh, (nan, 0.0), (N, V(0.0))),
        ("asinh", asinh, (nan, inf), (U(inf), N)),
        ("atanh", atanh, (0.0, 0.0), (V(0.0), V(0.0))),
        ("atanh", atanh, (0.0, nan), (V(0.0), N)),
        ("atanh", atanh, (1.0, 0.0), (V(inf), V(0.0))),
        ("atanh", atanh, (2.0, inf), (V(0.0), V(H))),
        ("atanh", atanh, (inf, 1.0), (V(0.0), V(H))),
        ("atanh", atanh, (inf, nan), (V(0.0), N)),
        ("atanh", atanh, (nan, inf), (U(0.0), V(H))),
        ("cosh", cosh, (0.0, 0.0), (V(1.0), V(0.0))),
        ("cosh", cosh, (0.0, inf), (N, U(0.0))),
        ("cosh", cosh, (inf, 0.0), (V(inf), V(0.0))),
        ("cosh", cosh, (inf, inf), (U(inf), N)),
        ("cosh", cosh, (nan, -0.0), (N, U(0.0))),
        ("sinh", sinh, (0.0, 0.0), (V(0.0), V(0.0))),
        ("sinh", sinh, (0.0, inf), (U(0.0), N)),
        ("sinh", sinh, (inf, 0.0), (V(inf), V(0.0))),
        ("sinh", sinh, (inf, nan), (U(inf), N)),
        ("sinh", sinh, (nan, 0.0), (N, V(0.0))),
        ("tanh", tanh, (0.0, 0.0), (V(0.0), V(0.0))),
        ("tanh", tanh, (0.0, inf), (V(0.0), N)),
        ("tanh", tanh, (0.0, nan), (V(0.0), N)),
        ("tanh", tanh, (1.0, inf), (N, N)),
        ("tanh", tanh, (inf, 1.0), (V(1.0), V(0.0))),
        ("tanh", tanh, (inf, 2.0), (V(1.0), V(0.0))),
        ("tanh", tanh, (-inf, -2.0), (V(-1.0), V(-0.0))),
        ("tanh", tanh, (inf, inf), (V(1.0), U(0.0))),
        ("tanh", tanh, (nan, 0.0), (N, V(0.0))),
        ("expm1", expm1, (-0.0, 0.0), (V(0.0), V(0.0))),
        ("expm1", expm1, (-0.0, -0.0), (V(0.0), V(-0.0))),
        ("expm1", expm1, (inf, 0.0), (V(inf), V(0.0))),
        ("expm1", expm1, (-inf, 1.0), (V(-1.0), V(0.0))),
        ("expm1", expm1, (-inf, inf), (V(-1.0), U(0.0))),
        ("expm1", expm1, (inf, nan), (U(inf), N)),
        ("expm1", expm1, (nan, 0.0), (N, V(0.0))),
        ("log1p", log1p, (-1.0, 0.0), (V(-inf), V(0.0))),
        ("log1p", log1p, (2.0, inf), (V(inf), V(H))),
        ("log1p", log1p, (-inf, 1.0), (V(inf), V(PI))),
        ("log1p", log1p, (inf, 1.0), (V(inf), V(0.0))),
        ("log1p", log1p, (-inf, inf), (V(inf), V(3.0 * Q))),
        ("log1p", log1p, (nan, inf), (V(inf), N)),
    ];
    for &(name, f, (a, b), (wr, wi)) in cases {
        let (r, i) = f(a, b);
        assert!(ok(r, wr) && ok(i, wi), "{name}({a} + {b}j) = {r} + {i}j");
    }
}

#[test]
fn values_near_zero_keep_their_precision() {
    // expm1 and log1p of tiny z are z to the last place; so are asinh,
    // atanh and tanh.
    let z = (1e-20, -3e-21);
    assert_eq!(expm1(z.0, z.1), (1e-20, -3e-21));
    assert_eq!(log1p(z.0, z.1), (1e-20, -3e-21));
    assert_eq!(asinh(z.0, z.1), z);
    assert_eq!(atanh(z.0, z.1), z);
    assert_eq!(tanh(z.0, z.1), z);
    // acos(z) near 1 and asin near the branch point stay finite
    let (r, i) = acos(1.0, 1e-300);
    assert!(r > 0.0 && r < 1e-140 && i < 0.0);
    // large parts: no spurious overflow
    let (r, i) = atanh(1e300, 1e300);
    assert!(r > 0.0 && r < 1e-299 && (i - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
    // exp(710.2) overflows, exp(710.2) / 2 * cos(1.5) does not
    let (r, i) = cosh(710.2, 1.5);
    let want = 1.5f64.cos() * (710.2f64 / 2.0).exp() * (710.2f64 / 2.0).exp() / 2.0;
    assert!((r / want - 1.0).abs() < 1e-12 && i.is_finite() && i > 1e308);
    let (r, i) = sinh(-1400.0, 1e-300);
    assert!(r == f64::NEG_INFINITY && i.is_finite() && i > 0.0);
}
