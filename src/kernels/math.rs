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
//! The other transcendental functions of `f32` (`sin`, `cos`, `tan` with
//! musl's `sinf` kernels; `atan2`, `asin`, `acos`, `atan`; `sinh`, `cosh`,
//! `asinh`, `acosh`, `atanh`; `expm1`, `log1p`, `log2`, `log10`, `cbrt`)
//! compute in `f64`, branch-free, from a few building blocks (`expm1_64`
//! and `hyperbolic_parts` over `reduce_ln2`, `ln_parts`, `atan2_64`,
//! `asin_parts`, `cbrt64`), and round once: within one rounding of the
//! exact value. Their polynomials are near-minimax fits to about `2^-45`
//! (`scripts/fit-polynomials.py`; `cbrt64`'s to `2^-24`, then a Newton
//! step), evaluated with fused multiply-adds
//! where the CPU has them (their `FMA` parameter; see [`fma`]). Each has
//! a guard naming the arguments it takes; outside it (infinities, NaN,
//! huge trigonometric arguments, points outside the domain) the caller
//! uses the C library for the whole chunk. `f64` functions use the
//! standard library's (scalar libm calls).

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
/// `ln 2^-150`: below it `e^x` rounds to zero; above it, down to `ln
/// 2^-126`, the result is subnormal (`2^n` is applied as two normal
/// factors, so the only rounding into the subnormal range is the last
/// product's).
const EXP_LO: f32 = -103.972_08;

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
    // 2^n split in two factors so neither exponent field overflows or
    // underflows (-150 <= n <= 128: each factor is at least 2^-75). `n`
    // is a whole number with |n| <= 150 (or NaN, fixed up below), so
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
    // (`copysign`: the odd polynomial keeps `x`'s sign, but for `-0.0`
    // the sum `-0.0 * ... + -0.0` would be `+0.0`.)
    let small = madd::<FMA>(p * z, x, x).copysign(x);
    // otherwise 1 - 2 / (e^{2|x|} + 1), with the sign of x.
    let e = exp::<FMA>(ax + ax);
    let large = (1.0 - 2.0 / (e + 1.0)).copysign(x);
    select(ax < 0.625, small, large)
}

/// Logistic sigmoid `1 / (1 + e^-x)`, as `e^x / (1 + e^x)` for negative
/// `x`: `e^-|x|` never overflows, so a very negative `x` gives its tiny
/// (down to subnormal) result rather than `1 / inf = 0`.
#[inline(always)]
pub(super) fn sigmoid<const FMA: bool>(x: f32) -> f32 {
    let e = exp::<FMA>(-x.abs());
    let d = 1.0 / (1.0 + e);
    select(x < 0.0, e * d, d)
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

/// The magnitude below which the guards of the functions defined on all
/// finite floats pass arguments to vector code (above it, and for
/// infinities and NaN, the C library answers).
///
/// A comparison with a finite bound, not `is_finite()`: LLVM compiles that
/// to a vector compare that valgrind's AVX emulation gets wrong for NaN
/// (it let a chunk holding NaN into the vector code, under memcheck only).
/// Ordinary less-than against a finite constant, as [`trig_inside`], is
/// emulated right and costs the same.
const GUARD_LIMIT: f32 = 1.0e38;

/// Are `y` and `x` in [`atan2`]'s domain? (Both below [`GUARD_LIMIT`]:
/// the infinities' and NaN's results come from the C library.)
#[inline(always)]
pub(super) fn atan2_inside(y: f32, x: f32) -> bool {
    (y.abs() < GUARD_LIMIT) & (x.abs() < GUARD_LIMIT)
}

/// `a * b + c`: rounded once (`f64::mul_add`) when `FMA`, else rounded
/// after the multiplication and again after the addition.
///
/// The loops pass `FMA` as [`super::isa::fused_multiply_add`] says: true
/// whenever the CPU has the instruction, at every level, so that every
/// level of one CPU gives the same bits (in x86-64's portable copy
/// `mul_add` is a call of the C library's `fma`, which then uses the
/// instruction); false only on a CPU without it, whose only level is the
/// portable one, where the C library's `fma` would be software, tens of
/// times slower than the two roundings. Fused, a polynomial step is one
/// operation instead of two.
#[inline(always)]
fn fma<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `sum(c[k] * z^k)` by Horner's rule (unrolled: `N` is a constant), one
/// [`fma`] per coefficient.
#[inline(always)]
fn horner<const FMA: bool, const N: usize>(z: f64, c: &[f64; N]) -> f64 {
    let mut p = c[N - 1];
    for &ck in c[..N - 1].iter().rev() {
        p = fma::<FMA>(p, z, ck);
    }
    p
}

// The polynomials of the `f64` building blocks: near-minimax fits
// (Chebyshev, 40 digits) made and printed by `scripts/fit-polynomials.py`,
// each with the fewest coefficients whose fitting error is below `2^-42`
// relative on its interval (the bound of each is in the comment above
// it). They replace Taylor series two to five terms longer.

// `(e^r - 1)/r` on `[-ln2/2, ln2/2]`; fitting error 2^-43.3.
#[allow(clippy::unreadable_literal)] // as the script prints them
const EXPM1_OVER_R: [f64; 9] = [
    1.0,
    0.49999999999797934,
    0.16666666666648303,
    0.041666666890957,
    0.008333333353717156,
    0.0013888821677630362,
    0.0001984120875699232,
    2.4876164022625967e-05,
    2.7625102005388108e-06,
];
// `2 atanh(s)/s` in `z = s^2` on `[0, (3 - 2 sqrt 2)^2]`; fitting error 2^-45.1.
#[allow(clippy::unreadable_literal)] // as the script prints them
const LN_OVER_S: [f64; 6] = [
    1.9999999999999472,
    0.6666666667957926,
    0.3999999489183238,
    0.28572166145875727,
    0.2217424991007749,
    0.19608095639753054,
];
// `atan(u)/u` in `z = u^2` on `[0, tan(pi/8)^2]`; fitting error 2^-45.0.
#[allow(clippy::unreadable_literal)] // as the script prints them
const ATAN_OVER_U: [f64; 9] = [
    0.9999999999999732,
    -0.33333333330803444,
    0.19999999604891977,
    -0.14285690423839287,
    0.11110385046148014,
    -0.09078392072943424,
    0.07563703551915192,
    -0.05874505621307831,
    0.030662440370424447,
];

// `cosh(r)` in `z = r^2` on `[0, (ln2/2)^2]`; fitting error 2^-46.1.
#[allow(clippy::unreadable_literal)] // as the script prints them
const COSH_Z: [f64; 5] = [
    1.0000000000000135,
    0.4999999999943859,
    0.04166666704055191,
    0.0013888801749656543,
    2.4884459751751116e-05,
];

// `sinh(r)/r` in `z = r^2` on `[0, (ln2/2)^2]`; fitting error 2^-49.5.
#[allow(clippy::unreadable_literal)] // as the script prints them
const SINH_OVER_R: [f64; 5] = [
    1.0000000000000013,
    0.16666666666615648,
    0.008333333367311603,
    0.0001984119064754424,
    2.7632640675430236e-06,
];

// `asin(s)/s` in `z = s^2` on `[0, 1/4]`; fitting error 2^-43.8.
#[allow(clippy::unreadable_literal)] // as the script prints them
const ASIN_OVER_S: [f64; 10] = [
    0.9999999999999493,
    0.16666666670723188,
    0.07499999467531561,
    0.044643126897073435,
    0.030375046838709736,
    0.022472629272259407,
    0.016472738109361944,
    0.018638508213446328,
    -0.0028563505336838967,
    0.03194399638410843,
];

// `m^(-1/3)` on `[1, 2]`, the start of a Newton step; fitting error 2^-24.8.
#[allow(clippy::unreadable_literal)] // as the script prints them
const RECIPROCAL_CBRT: [f64; 9] = [
    2.0482525693836244,
    -2.876203043030507,
    4.0083005345274305,
    -3.880833343178963,
    2.561449734585442,
    -1.1344673132457688,
    0.3231241868949957,
    -0.053552401002057264,
    0.003929048053201658,
];

/// `atan(u)` for `|u| <= tan(pi/8)`, to about `2^-45` relative.
#[inline(always)]
fn atan_kernel<const FMA: bool>(u: f64) -> f64 {
    horner::<FMA, _>(u * u, &ATAN_OVER_U) * u
}

/// `atan2(y, x)` in `f64` for finite `y`, `x`, to about `2^-44` relative.
///
/// `atan(min/max)` of the magnitudes lies in `[0, pi/4]`; above
/// `tan(pi/8)` it is `pi/4 + atan((a - 1)/(a + 1))`. The quadrant follows
/// from which magnitude is larger, `x`'s sign bit (so `atan2(±0, -0)` is
/// `±pi`) and `y`'s sign, as C's `atan2` defines it for zeros.
#[inline(always)]
fn atan2_64<const FMA: bool>(y: f64, x: f64) -> f64 {
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    const TAN_PI_8: f64 = 0.414_213_562_373_095_1;
    let (ay, ax) = (y.abs(), x.abs());
    let (lo, hi) = (ay.min(ax), ay.max(ax));
    // One division: `(a - 1)/(a + 1)` of `a = lo/hi` is `(lo - hi)/(lo +
    // hi)`, whose two operands are exact for `f32` arguments.
    let big = lo > TAN_PI_8 * hi;
    let u = select64(big, lo - hi, lo) / select64(big, lo + hi, hi);
    let u = select64(hi == 0.0, 0.0, u);
    let t = atan_kernel::<FMA>(u) + select64(big, FRAC_PI_4, 0.0);
    let t = select64(ay > ax, FRAC_PI_2 - t, t);
    let t = select64(x.is_sign_negative(), PI - t, t);
    t.copysign(y)
}

/// `atan2(y, x)` of finite `y`, `x`, computed in `f64` and rounded once.
#[inline(always)]
pub(super) fn atan2<const FMA: bool>(y: f32, x: f32) -> f32 {
    atan2_64::<FMA>(f64::from(y), f64::from(x)) as f32
}

// --- f32 functions computed in f64 -------------------------------------------
//
// Each of these rounds an `f64` result, accurate to about `2^-40`, once to
// `f32`: within one rounding of the exact value (the tests check against
// the standard library's `f64` functions). Their `*_inside` guard names
// the arguments they take; the caller sends a chunk holding any other (an
// infinity, NaN, a point outside the domain) to the C library's `f32`
// function, so the edge cases are the C library's.

/// `1.5 * 2^52`: added to an integral `f64` of magnitude below `2^51`, it
/// leaves that integer in the low bits of the sum (rounding, if the value
/// was not integral, to nearest).
const MAGIC: f64 = 6_755_399_441_055_744.0;

/// `2^n` for an integral `n` in `[-1022, 1023]`, built from its bits.
#[inline(always)]
fn pow2(n: f64) -> f64 {
    let k = (n + MAGIC).to_bits().wrapping_sub(MAGIC.to_bits());
    f64::from_bits(k.wrapping_add(1023) << 52)
}

/// `x` as `n ln2 + r` with `|r| <= ln2/2`, `n` integral: `(n, r)`. `x` is
/// clamped to `[-700, 700]`, beyond which every `f32` result has long
/// overflowed or vanished; `ln2` is in two parts, fdlibm's, so that
/// `n ln2_hi` is exact.
#[inline(always)]
fn reduce_ln2(x: f64) -> (f64, f64) {
    const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
    let x = x.clamp(-700.0, 700.0);
    let n = (x * std::f64::consts::LOG2_E + MAGIC) - MAGIC;
    (n, (x - n * LN2_HI) - n * LN2_LO)
}

/// `e^x - 1` in `f64` without cancellation near 0: with `x = n ln2 + r`
/// ([`reduce_ln2`]), `2^n (e^r - 1) + (2^n - 1)`, and `e^r - 1` as `r`
/// times a polynomial. For `n = 0` that is `e^r - 1` itself, which keeps
/// a zero's sign.
#[inline(always)]
#[allow(clippy::float_cmp)] // `n` is integral
fn expm1_64<const FMA: bool>(x: f64) -> f64 {
    let (n, r) = reduce_ln2(x);
    let u = horner::<FMA, _>(r, &EXPM1_OVER_R) * r;
    let p = pow2(n);
    select64(n == 0.0, u, fma::<FMA>(p, u, p - 1.0))
}

/// `(e, m)` with `x = 2^e m`, `e` integral and `m` in `[1, 2)`, for a
/// positive normal `x`. The exponent becomes an `f64` through [`MAGIC`]
/// (no integer to float conversion, which AVX2 lacks for 64-bit lanes).
#[inline(always)]
fn exponent_parts(x: f64) -> (f64, f64) {
    const MANTISSA: u64 = (1 << 52) - 1;
    let bits = x.to_bits();
    let m = f64::from_bits((bits & MANTISSA) | 1.0_f64.to_bits());
    let e = f64::from_bits(MAGIC.to_bits() + (bits >> 52)) - MAGIC - 1023.0;
    (e, m)
}

/// `(e, ln m)` with `x = 2^e m`, `m` in `[sqrt(1/2), sqrt(2))`, for a
/// positive normal `x`: `ln m = 2 atanh(s)`, `s = (m - 1)/(m + 1)`
/// (`|s| <= 0.172`), as `s` times a polynomial in `s^2`.
#[inline(always)]
fn ln_parts<const FMA: bool>(x: f64) -> (f64, f64) {
    let (e, m) = exponent_parts(x);
    let high = m > std::f64::consts::SQRT_2;
    let (m, e) = (select64(high, m * 0.5, m), select64(high, e + 1.0, e));
    let s = (m - 1.0) / (m + 1.0);
    (e, s * horner::<FMA, _>(s * s, &LN_OVER_S))
}

/// `ln(x)` in `f64` for a positive normal `x`.
#[inline(always)]
fn ln64<const FMA: bool>(x: f64) -> f64 {
    let (e, l) = ln_parts::<FMA>(x);
    e * std::f64::consts::LN_2 + l
}

/// `ln(1 + y)` in `f64` for `y > -1`, by Kahan's correction: `1 + y`
/// rounds, but `ln(u) y / (u - 1)` undoes that rounding to first order.
#[inline(always)]
#[allow(clippy::float_cmp)] // `u == 1` exactly: then `y` is below the rounding of `1 + y`
fn log1p64<const FMA: bool>(y: f64) -> f64 {
    let u = 1.0 + y;
    select64(u == 1.0, y, ln64::<FMA>(u) * (y / (u - 1.0)))
}

/// Is `x` below [`GUARD_LIMIT`] in magnitude? (The guard of the functions
/// defined on every finite `f32`.)
#[inline(always)]
pub(super) fn finite(x: f32) -> bool {
    x.abs() < GUARD_LIMIT
}

/// `e^x - 1`.
#[inline(always)]
pub(super) fn expm1<const FMA: bool>(x: f32) -> f32 {
    expm1_64::<FMA>(f64::from(x)) as f32
}

/// [`log1p`]'s domain: `x > -1`, below [`GUARD_LIMIT`].
#[inline(always)]
pub(super) fn log1p_inside(x: f32) -> bool {
    x > -1.0 && x < GUARD_LIMIT
}

/// `ln(1 + x)`.
#[inline(always)]
pub(super) fn log1p<const FMA: bool>(x: f32) -> f32 {
    log1p64::<FMA>(f64::from(x)) as f32
}

/// The domain of [`log2`] and [`log10`]: positive, below [`GUARD_LIMIT`]
/// (zero's `-inf` is the C library's).
#[inline(always)]
pub(super) fn positive(x: f32) -> bool {
    x > 0.0 && x < GUARD_LIMIT
}

/// `log2(x)`: the exponent plus `ln(m)/ln 2` (exact at powers of 2).
#[inline(always)]
pub(super) fn log2<const FMA: bool>(x: f32) -> f32 {
    let (e, l) = ln_parts::<FMA>(f64::from(x));
    (e + l * std::f64::consts::LOG2_E) as f32
}

/// `log10(x)`.
#[inline(always)]
pub(super) fn log10<const FMA: bool>(x: f32) -> f32 {
    let (e, l) = ln_parts::<FMA>(f64::from(x));
    (e * std::f64::consts::LOG10_2 + l * std::f64::consts::LOG10_E) as f32
}

/// The cube root of a positive normal `a`, to about `2^-45` relative,
/// without a division: `a = 2^(3k + j) m` (`j` in `0..3`, `m` in `[1,
/// 2)`), `cbrt(a) = 2^k cbrt(2^j) m r^2` where `r = m^(-1/3)` is a
/// polynomial to `2^-24` improved by one Newton step, `r + r (1 - m r^3)
/// / 3`, which squares its error.
#[inline(always)]
#[allow(clippy::float_cmp)] // `j` is integral
fn cbrt64<const FMA: bool>(a: f64) -> f64 {
    const CBRT_2: f64 = 1.259_921_049_894_873_2;
    const CBRT_4: f64 = 1.587_401_051_968_199_5;
    let (e, m) = exponent_parts(a);
    // `k = floor(e / 3)` as the nearest integer to `(e - 1) / 3`, whose
    // fraction is 0 or a third: far from a half, so the product's rounding
    // cannot move it.
    let k = ((e - 1.0) * (1.0 / 3.0) + MAGIC) - MAGIC;
    let j = e - 3.0 * k;
    let r = horner::<FMA, _>(m, &RECIPROCAL_CBRT);
    let t = fma::<FMA>(-m, r * r * r, 1.0);
    let r = fma::<FMA>(r * t, 1.0 / 3.0, r);
    let scale = select64(j == 0.0, 1.0, select64(j == 1.0, CBRT_2, CBRT_4));
    m * r * r * (scale * pow2(k))
}

/// The cube root, with `x`'s sign (zeros return themselves).
#[inline(always)]
pub(super) fn cbrt<const FMA: bool>(x: f32) -> f32 {
    let r = (cbrt64::<FMA>(f64::from(x.abs())) as f32).copysign(x);
    select(x == 0.0, x, r)
}

/// `(2^n + 2^-n, 2^n - 2^-n, cosh r, sinh r)` for `a = n ln2 + r`
/// ([`reduce_ln2`]), `a >= 0`: `cosh a` and `sinh a` are then the two
/// products of `(e^a + e^-a)/2` and `(e^a - e^-a)/2` written without a
/// division, two short polynomials in `r^2` instead of `e^a`'s one and a
/// reciprocal.
#[inline(always)]
fn hyperbolic_parts<const FMA: bool>(a: f64) -> (f64, f64, f64, f64) {
    let (n, r) = reduce_ln2(a);
    let z = r * r;
    let (p, q) = (pow2(n), pow2(-n));
    (
        p + q,
        p - q,
        horner::<FMA, _>(z, &COSH_Z),
        r * horner::<FMA, _>(z, &SINH_OVER_R),
    )
}

/// `sinh(|x|) = ((2^n - 2^-n) cosh r + (2^n + 2^-n) sinh r)/2`, with
/// `x`'s sign. For `|x| < ln2/2`, `n = 0` and that is `sinh r` itself:
/// no cancellation near 0.
#[inline(always)]
pub(super) fn sinh<const FMA: bool>(x: f32) -> f32 {
    let (sum, diff, c, s) = hyperbolic_parts::<FMA>(f64::from(x.abs()));
    ((0.5 * fma::<FMA>(diff, c, sum * s)) as f32).copysign(x)
}

/// `cosh(x) = ((2^n + 2^-n) cosh r + (2^n - 2^-n) sinh r)/2`, with
/// `|x| = n ln2 + r`.
#[inline(always)]
pub(super) fn cosh<const FMA: bool>(x: f32) -> f32 {
    let (sum, diff, c, s) = hyperbolic_parts::<FMA>(f64::from(x.abs()));
    (0.5 * fma::<FMA>(sum, c, diff * s)) as f32
}

/// `atan(x)`, as [`atan2`]`(x, 1)`.
#[inline(always)]
pub(super) fn atan<const FMA: bool>(x: f32) -> f32 {
    atan2_64::<FMA>(f64::from(x), 1.0) as f32
}

/// The domain of [`asin`] and [`acos`]: `|x| <= 1`.
#[inline(always)]
pub(super) fn unit(x: f32) -> bool {
    x.abs() <= 1.0
}

/// `(asin(s), big)` for `a = |x|` in `[0, 1]`: `s = a` when `a <= 1/2`;
/// else `s = sqrt((1 - a)/2)`, with `asin(a) = pi/2 - 2 asin(s)` (`big`
/// true). Either way `s <= 1/2`, where `asin(s)` is `s` times a
/// polynomial in `s^2`; `1 - a` is exact for an `f32` `a`. No division:
/// one square root, whose result the other branch ignores.
#[inline(always)]
fn asin_parts<const FMA: bool>(a: f64) -> (f64, bool) {
    let big = a > 0.5;
    let z = select64(big, (1.0 - a) * 0.5, a * a);
    let s = select64(big, z.sqrt(), a);
    (s * horner::<FMA, _>(z, &ASIN_OVER_S), big)
}

/// `asin(x)`, with `x`'s sign.
#[inline(always)]
pub(super) fn asin<const FMA: bool>(x: f32) -> f32 {
    use std::f64::consts::FRAC_PI_2;
    let (p, big) = asin_parts::<FMA>(f64::from(x.abs()));
    (select64(big, fma::<FMA>(-2.0, p, FRAC_PI_2), p) as f32).copysign(x)
}

/// `acos(x)`: `pi/2 - asin(x)` when `|x| <= 1/2`; else `2 asin(s)` for a
/// positive `x` and `pi - 2 asin(s)` for a negative one ([`asin_parts`]).
#[inline(always)]
pub(super) fn acos<const FMA: bool>(x: f32) -> f32 {
    use std::f64::consts::{FRAC_PI_2, PI};
    let (p, big) = asin_parts::<FMA>(f64::from(x.abs()));
    let far = select64(x < 0.0, fma::<FMA>(-2.0, p, PI), 2.0 * p);
    select64(big, far, FRAC_PI_2 - p.copysign(f64::from(x))) as f32
}

/// `asinh(x) = log1p(a + a^2/(1 + sqrt(1 + a^2)))`, `a = |x|`, with `x`'s
/// sign.
#[inline(always)]
pub(super) fn asinh<const FMA: bool>(x: f32) -> f32 {
    let a = f64::from(x.abs());
    (log1p64::<FMA>(a + a * a / (1.0 + (1.0 + a * a).sqrt())) as f32).copysign(x)
}

/// [`acosh`]'s domain: `x >= 1`, below [`GUARD_LIMIT`].
#[inline(always)]
pub(super) fn acosh_inside(x: f32) -> bool {
    (1.0..GUARD_LIMIT).contains(&x)
}

/// `acosh(x) = log1p(t + sqrt(t (x + 1)))`, `t = x - 1` (exact in `f64`).
#[inline(always)]
pub(super) fn acosh<const FMA: bool>(x: f32) -> f32 {
    let x = f64::from(x);
    let t = x - 1.0;
    log1p64::<FMA>(t + (t * (x + 1.0)).sqrt()) as f32
}

/// [`atanh`]'s domain: `|x| < 1`.
#[inline(always)]
pub(super) fn atanh_inside(x: f32) -> bool {
    x.abs() < 1.0
}

/// `atanh(x) = log1p(2a/(1 - a))/2`, `a = |x|`, with `x`'s sign.
#[inline(always)]
pub(super) fn atanh<const FMA: bool>(x: f32) -> f32 {
    let a = f64::from(x.abs());
    ((0.5 * log1p64::<FMA>(2.0 * a / (1.0 - a))) as f32).copysign(x)
}
