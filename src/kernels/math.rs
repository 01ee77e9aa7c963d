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
//! `sin`, `cos` and `tan` of `f32` compute in `f64` (musl's `sinf` kernels,
//! branch-free) and round once. Other `f64` functions use the standard
//! library's (scalar libm calls).

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

/// `|x|` below which [`sin`], [`cos`] and [`tan`] reduce the argument
/// exactly enough (musl's "medium" range, `2^28 pi/2`, rounded down).
/// Beyond it, and for infinities and NaN, the caller uses the C library.
pub(super) const TRIG_LIMIT: f32 = 4.0e8;

/// `x` as `n pi/2 + r` with `|r| <= pi/4`, in `f64`: `(r, n mod 4)`.
///
/// musl's `__rem_pio2f` for `|x| <` [`TRIG_LIMIT`]: `pi/2` in two parts,
/// the first of 25 bits so that `n` times it is exact in `f64`. `n` is
/// rounded by the `1.5 * 2^52` trick, which leaves it in the low bits of
/// the sum (no saturating conversion, which would not vectorise).
#[inline(always)]
fn reduce_pio2(x: f32) -> (f64, u64) {
    const MAGIC: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52
    const INV_PIO2: f64 = std::f64::consts::FRAC_2_PI;
    const PIO2_1: f64 = f64::from_bits(0x3FF9_21FB_5000_0000); // the first 25 bits of pi/2
    const PIO2_1T: f64 = f64::from_bits(0x3E51_10B4_611A_6263); // pi/2 - PIO2_1
    let x = f64::from(x);
    let shifted = x * INV_PIO2 + MAGIC;
    let n = shifted - MAGIC;
    let r = (x - n * PIO2_1) - n * PIO2_1T;
    (r, shifted.to_bits() & 3)
}

/// musl's `__sindf`: `sin(r)` for `|r| <= pi/4`, error below `2^-37.5`
/// relative.
#[inline(always)]
fn sin_kernel(r: f64) -> f64 {
    const S1: f64 = f64::from_bits(0xBFC5_5555_54CB_AC77); // -0.16666666641626524
    const S2: f64 = f64::from_bits(0x3F81_1110_896E_FBB2); // 0.008333329385889463
    const S3: f64 = f64::from_bits(0xBF2A_00F9_E2CA_E774); // -0.00019839334836096632
    const S4: f64 = f64::from_bits(0x3EC6_CD87_8C3B_46A7); // 2.718311493989822e-06
    let z = r * r;
    let w = z * z;
    let t = S3 + z * S4;
    let s = z * r;
    (r + s * (S1 + z * S2)) + s * w * t
}

/// musl's `__cosdf`: `cos(r)` for `|r| <= pi/4`.
#[inline(always)]
fn cos_kernel(r: f64) -> f64 {
    const C0: f64 = f64::from_bits(0xBFDF_FFFF_FD0C_5E81); // -0.499999997251031
    const C1: f64 = f64::from_bits(0x3FA5_5553_E105_3A42); // 0.04166662332373906
    const C2: f64 = f64::from_bits(0xBF56_C087_E80F_1E27); // -0.001388676377460993
    const C3: f64 = f64::from_bits(0x3EF9_9342_E0EE_5069); // 2.439044879627741e-05
    let z = r * r;
    let w = z * z;
    let t = C2 + z * C3;
    ((1.0 + z * C0) + w * C1) + (w * z) * t
}

#[inline(always)]
fn select64(c: bool, a: f64, b: f64) -> f64 {
    if c {
        a
    } else {
        b
    }
}

/// Is `x` in the range where [`sin`], [`cos`] and [`tan`] are exact
/// enough? (False for infinities and NaN.)
#[inline(always)]
pub(super) fn trig_inside(x: f32) -> bool {
    x.abs() < TRIG_LIMIT
}

/// `sin(x)` for `|x| <` [`TRIG_LIMIT`], computed in `f64` and rounded
/// once: within one rounding of the exact value. Tiny arguments (and
/// signed zeros) return themselves, as musl's `sinf`.
#[inline(always)]
pub(super) fn sin(x: f32) -> f32 {
    let (r, q) = reduce_pio2(x);
    let v = select64(q & 1 == 1, cos_kernel(r), sin_kernel(r));
    let v = select64(q & 2 == 2, -v, v) as f32;
    select(x.abs() < 2.441_406_3e-4, x, v) // 2^-12
}

/// `cos(x)` for `|x| <` [`TRIG_LIMIT`], as [`sin`].
#[inline(always)]
pub(super) fn cos(x: f32) -> f32 {
    let (r, q) = reduce_pio2(x);
    let v = select64(q & 1 == 1, sin_kernel(r), cos_kernel(r));
    // Quadrants 1 and 2 are negative.
    select64((q + 1) & 2 == 2, -v, v) as f32
}

/// `tan(x)` for `|x| <` [`TRIG_LIMIT`], as [`sin`]: the quotient of the
/// two kernels in `f64` (`-cos/sin` in the odd quadrants).
#[inline(always)]
pub(super) fn tan(x: f32) -> f32 {
    let (r, q) = reduce_pio2(x);
    let (s, c) = (sin_kernel(r), cos_kernel(r));
    let v = select64(q & 1 == 1, -c / s, s / c) as f32;
    select(x.abs() < 2.441_406_3e-4, x, v)
}

/// Are `y` and `x` in [`atan2`]'s domain? (Both finite: the infinities'
/// and NaN's results come from the C library.)
#[inline(always)]
pub(super) fn atan2_inside(y: f32, x: f32) -> bool {
    y.is_finite() & x.is_finite()
}

/// `atan(u)` for `|u| <= tan(pi/8)`, by its Taylor series to `u^23`
/// (the first term left out, `u^25/25`, is below `2^-35` of the result).
#[inline(always)]
fn atan_kernel(u: f64) -> f64 {
    // (-1)^k / (2k + 1), k = 0..=11, folded at compile time.
    const C: [f64; 12] = {
        let mut c = [0.0; 12];
        let mut k = 0;
        while k < 12 {
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            c[k] = sign / (2 * k + 1) as f64;
            k += 1;
        }
        c
    };
    let z = u * u;
    let mut p = C[11];
    for &c in C[..11].iter().rev() {
        p = p * z + c;
    }
    p * u
}

/// `atan2(y, x)` of finite `y`, `x`, computed in `f64` and rounded once.
///
/// `atan(min/max)` of the magnitudes lies in `[0, pi/4]`; above
/// `tan(pi/8)` it is `pi/4 + atan((a - 1)/(a + 1))`. The quadrant follows
/// from which magnitude is larger, `x`'s sign bit (so `atan2(±0, -0)` is
/// `±pi`) and `y`'s sign, as C's `atan2` defines it for zeros.
#[inline(always)]
pub(super) fn atan2(y: f32, x: f32) -> f32 {
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    const TAN_PI_8: f64 = 0.414_213_562_373_095_1;
    let (ay, ax) = (f64::from(y.abs()), f64::from(x.abs()));
    let (lo, hi) = (ay.min(ax), ay.max(ax));
    let a = select64(hi == 0.0, 0.0, lo / hi);
    let big = a > TAN_PI_8;
    let u = select64(big, (a - 1.0) / (a + 1.0), a);
    let t = atan_kernel(u) + select64(big, FRAC_PI_4, 0.0);
    let t = select64(ay > ax, FRAC_PI_2 - t, t);
    let t = select64(x.is_sign_negative(), PI - t, t);
    (t as f32).copysign(y)
}
