//! Branch-free elementary functions for `f32`.
//!
//! Written with selects instead of branches and with no library calls, so
//! that a loop over them compiles to vector code under each instruction set's
//! `#[target_feature]` (see [`super::isa`]). The polynomials are Cephes'
//! (`expf`, `logf`, `tanhf`); accuracy is within a few ulp of the correctly
//! rounded result over the whole range, which the property tests check
//! against an `f64` reference. `FMA` selects fused multiply-add (available on
//! the AVX2+FMA, AVX-512 and NEON paths; the scalar path must not call the
//! libm `fmaf`).
//!
//! `f64` uses the standard library's functions (scalar libm calls).

#[inline(always)]
pub(super) fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

#[inline(always)]
fn select(c: bool, a: f32, b: f32) -> f32 {
    if c {
        a
    } else {
        b
    }
}

/// Round to nearest (ties to even) for |x| < 2^22 without a libm call.
#[inline(always)]
fn round_small(x: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0; // 1.5 * 2^23
    (x + MAGIC) - MAGIC
}

const EXP_HI: f32 = 88.722_84;
const EXP_LO: f32 = -87.336_55;

/// `e^x`.
#[inline(always)]
pub(super) fn exp<const FMA: bool>(x: f32) -> f32 {
    let xc = x.clamp(EXP_LO, EXP_HI);
    let n = round_small(xc * std::f32::consts::LOG2_E);
    // Cody-Waite: ln 2 = C1 + C2 with C1 exact in few bits.
    let r = madd::<FMA>(n, 2.121_944_4e-4, madd::<FMA>(n, -0.693_359_4, xc));
    let mut p = 1.987_569_1e-4;
    p = madd::<FMA>(p, r, 1.398_199_9e-3);
    p = madd::<FMA>(p, r, 8.333_452e-3);
    p = madd::<FMA>(p, r, 4.166_579_6e-2);
    p = madd::<FMA>(p, r, 1.666_666_5e-1);
    p = madd::<FMA>(p, r, 0.5);
    let y = madd::<FMA>(p, r * r, r) + 1.0;
    // 2^n split in two factors so neither exponent field overflows. `n`
    // is a whole number with |n| <= 128 (or NaN, fixed up below), so
    // adding 1.5 * 2^23 puts it in the mantissa's low bits: read it from
    // there. (A saturating `n as i32` has no vector instruction and would
    // leave this loop scalar.)
    let ni = ((n + 12_582_912.0).to_bits() as i32).wrapping_sub(0x4B40_0000);
    let h = ni >> 1;
    let s1 = f32::from_bits(((h + 127) as u32) << 23);
    let s2 = f32::from_bits(((ni - h + 127) as u32) << 23);
    let v = y * s1 * s2;
    let v = select(x > EXP_HI, f32::INFINITY, v);
    let v = select(x < EXP_LO, 0.0, v);
    select(x.is_nan(), x, v)
}

/// Natural logarithm.
#[inline(always)]
pub(super) fn ln<const FMA: bool>(x: f32) -> f32 {
    // Scale subnormals into the normal range.
    let tiny = x < f32::MIN_POSITIVE;
    let xs = select(tiny, x * 8_388_608.0, x); // 2^23
    let bits = xs.to_bits();
    let mut e = ((bits >> 23) & 0xff) as i32 - 126;
    e -= i32::from(tiny) * 23;
    let m = f32::from_bits((bits & 0x007f_ffff) | 0x3f00_0000); // [0.5, 1)
    let small = m < std::f32::consts::FRAC_1_SQRT_2;
    let e = (e - i32::from(small)) as f32;
    let m = select(small, m + m - 1.0, m - 1.0);
    let z = m * m;
    let mut p = 7.037_683_6e-2;
    p = madd::<FMA>(p, m, -1.151_461e-1);
    p = madd::<FMA>(p, m, 1.167_699_9e-1);
    p = madd::<FMA>(p, m, -1.242_014_1e-1);
    p = madd::<FMA>(p, m, 1.424_932_3e-1);
    p = madd::<FMA>(p, m, -1.666_805_8e-1);
    p = madd::<FMA>(p, m, 2.000_071_4e-1);
    p = madd::<FMA>(p, m, -2.499_999_4e-1);
    p = madd::<FMA>(p, m, 3.333_333e-1);
    let mut y = p * m * z;
    y = madd::<FMA>(e, -2.121_944_4e-4, y);
    y = madd::<FMA>(z, -0.5, y);
    let r = madd::<FMA>(e, 0.693_359_4, m + y);
    let r = select(x == f32::INFINITY, x, r);
    let r = select(x == 0.0, f32::NEG_INFINITY, r);
    select(x < 0.0 || x.is_nan(), f32::NAN, r)
}

/// Hyperbolic tangent.
#[inline(always)]
pub(super) fn tanh<const FMA: bool>(x: f32) -> f32 {
    let ax = x.abs();
    // |x| < 0.625: odd polynomial.
    let z = x * x;
    let mut p = -5.704_988_7e-3;
    p = madd::<FMA>(p, z, 2.063_909e-2);
    p = madd::<FMA>(p, z, -5.373_971_6e-2);
    p = madd::<FMA>(p, z, 1.333_144_2e-1);
    p = madd::<FMA>(p, z, -3.333_328e-1);
    let small = madd::<FMA>(p * z, x, x);
    // otherwise 1 - 2 / (e^{2|x|} + 1), with the sign of x.
    let e = exp::<FMA>(ax + ax);
    let large = (1.0 - 2.0 / (e + 1.0)).copysign(x);
    select(ax < 0.625, small, large)
}

/// Logistic sigmoid `1 / (1 + e^-x)`.
#[inline(always)]
pub(super) fn sigmoid<const FMA: bool>(x: f32) -> f32 {
    1.0 / (1.0 + exp::<FMA>(-x))
}

/// `sqrt(2/pi)`, the constant of the tanh form of GELU.
pub(super) const GELU_K: f64 = 0.797_884_560_802_865_4;
/// The cubic coefficient of the tanh form of GELU.
pub(super) const GELU_C: f64 = 0.044_715;

/// GELU, tanh approximation (as JAX's default and GPT-2):
/// `0.5 x (1 + tanh(u))` with `u = sqrt(2/pi) (x + 0.044715 x^3)`, evaluated
/// as the identical `x / (1 + e^(-2u))`, which does not cancel for negative
/// `x` (the tanh form loses all digits below about -5). `gelu(-inf) = -0`.
#[inline(always)]
pub(super) fn gelu<const FMA: bool>(x: f32) -> f32 {
    let u = (GELU_K as f32) * madd::<FMA>(GELU_C as f32 * x * x, x, x);
    let v = x / (1.0 + exp::<FMA>(-2.0 * u));
    select(x == f32::NEG_INFINITY, -0.0, v)
}

/// GELU for `f64`, same form, libm `exp`.
#[inline(always)]
pub(super) fn gelu_f64(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return -0.0;
    }
    let u = GELU_K * (x + GELU_C * x * x * x);
    x / (1.0 + (-2.0 * u).exp())
}
