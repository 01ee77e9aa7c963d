//! The inverse trigonometric and hyperbolic functions of one complex
//! number, as parts (see [`super::math`] for the conventions).
//!
//! They follow Hull, Fairgrieve and Tang, "Implementing the complex
//! arcsine and arccosine functions using exception handling" (ACM TOMS
//! 23(3), 1997), in the form FreeBSD's `catrig.c` gives it (its `f(a, b)`
//! helper and crossover constants), which is also what NumPy falls back on
//! where the C library lacks a function: `A = (|z + i| + |z - i|) / 2`
//! gives `Re(asinh(z)) = log(A + sqrt(A^2 - 1))` and `Im(asinh(z)) =
//! asin(y / A)`, each switched to a form without cancellation near the
//! branch points, and `|z|` past `1 / eps` is taken through the
//! logarithm's asymptote so nothing overflows.

use super::math::{k, Real};

/// `(hypot(a, b) - b) / 2` without cancellation, given `hypot(a, b)`
/// (`catrig.c`'s `f`).
#[inline]
fn half_gap<F: Real>(a: F, b: F, hypot_ab: F) -> F {
    let two: F = k(2.0);
    if b < F::zero() {
        (hypot_ab - b) / two
    } else if b == F::zero() {
        a / two
    } else {
        a * a / (hypot_ab + b) / two
    }
}

/// What [`hard_work`] finds for `x, y >= 0` (both below `1 / eps`).
struct HullTang<F> {
    /// `Re(asinh(x + iy))`.
    rx: F,
    /// `B = y / A`, when usable for `asin(B)` (`Im(asinh)`); else `None`
    /// and `Im(asinh) = atan2(new_y, sqrt_a2my2)`.
    b: Option<F>,
    /// `sqrt(A^2 - y^2)`, scaled with `new_y` where it could underflow.
    sqrt_a2my2: F,
    new_y: F,
}

/// The core of the inverse functions (Hull et al.'s algorithm), with
/// `A = (|z + i| + |z - i|) / 2`: `Re(asinh(z)) = log(A + sqrt(A^2 - 1))`
/// and `Im(asinh(z)) = asin(y / A)`, each switched to a form without
/// cancellation near the branch points (`A` near 1, `B` near 1).
fn hard_work<F: Real>(x: F, y: F) -> HullTang<F> {
    let (one, two) = (F::one(), k::<F>(2.0));
    let eps = F::epsilon();
    let a_crossover: F = k(10.0);
    let b_crossover: F = k(0.6417);
    let four_sqrt_min = k::<F>(4.0) * F::min_positive_value().sqrt();
    let r = x.hypot(y + one); // |z + i|
    let s = x.hypot(y - one); // |z - i|
    let a = ((r + s) / two).max(one); // A >= 1 mathematically
    let rx = if a < a_crossover {
        if y == one && x < eps * eps / k(128.0) {
            x.sqrt()
        } else if x >= eps * (y - one).abs() {
            let am1 = half_gap(x, one + y, r) + half_gap(x, one - y, s);
            (am1 + (am1 * (a + one)).sqrt()).ln_1p()
        } else if y < one {
            x / ((one - y) * (one + y)).sqrt()
        } else {
            ((y - one) + ((y - one) * (y + one)).sqrt()).ln_1p()
        }
    } else {
        (a + (a * a - one).sqrt()).ln()
    };
    if y < four_sqrt_min {
        // y / A could underflow: the imaginary part through atan2, scaled
        let scale = two / eps;
        return HullTang {
            rx,
            b: None,
            sqrt_a2my2: a * scale,
            new_y: y * scale,
        };
    }
    let b = y / a;
    if b <= b_crossover {
        return HullTang {
            rx,
            b: Some(b),
            sqrt_a2my2: F::zero(),
            new_y: y,
        };
    }
    let (sqrt_a2my2, new_y) = if y == one && x < eps / k(128.0) {
        (x.sqrt() * ((a + y) / two).sqrt(), y)
    } else if x >= eps * (y - one).abs() {
        let amy = half_gap(x, y + one, r) + half_gap(x, y - one, s);
        ((amy * (a + y)).sqrt(), y)
    } else if y > one {
        let scale = k::<F>(4.0) / eps / eps;
        (x * scale * y / ((y + one) * (y - one)).sqrt(), y * scale)
    } else {
        (((one - y) * (one + y)).sqrt(), y)
    };
    HullTang {
        rx,
        b: None,
        sqrt_a2my2,
        new_y,
    }
}

/// `log(z)` for `|z|` past `1 / eps`, where `hypot` could overflow.
fn log_of_large<F: Real>(x: F, y: F) -> (F, F) {
    let (ax, ay) = (x.abs(), y.abs());
    let (big, small) = if ax < ay { (ay, ax) } else { (ax, ay) };
    let re = if big > F::max_value() / k(2.0) {
        (x / F::E()).hypot(y / F::E()).ln() + F::one()
    } else if big > F::max_value().sqrt() / k(4.0) || small < F::min_positive_value().sqrt() {
        x.hypot(y).ln()
    } else {
        (big * big + small * small).ln() / k(2.0)
    };
    (re, y.atan2(x))
}

/// `asinh(z) = log(z + sqrt(z^2 + 1))` (`casinh`).
pub fn asinh<F: Real>(x: F, y: F) -> (F, F) {
    let (zero, nan) = (F::zero(), F::nan());
    let (ax, ay) = (x.abs(), y.abs());
    if x.is_nan() || y.is_nan() {
        if x.is_infinite() {
            return (x, nan); // ±inf + NaN j
        }
        if y.is_infinite() {
            return (y, nan); // ±inf + NaN j (the sign unspecified)
        }
        if y == zero {
            return (nan, y); // NaN ± 0j
        }
        return (nan, nan);
    }
    let recip_eps = F::one() / F::epsilon();
    if ax > recip_eps || ay > recip_eps {
        // asinh(z) = sign(x) log(2 sign(x) z), to within 1/|z|^2
        let (wx, wy) = if x.is_sign_negative() {
            log_of_large(-x, -y)
        } else {
            log_of_large(x, y)
        };
        return ((wx + F::LN_2()).copysign(x), wy.copysign(y));
    }
    if x == zero && y == zero {
        return (x, y);
    }
    let tiny = (k::<F>(6.0) * F::epsilon()).sqrt() / k(4.0);
    if ax < tiny && ay < tiny {
        return (x, y); // asinh(z) = z + O(z^3)
    }
    let h = hard_work(ax, ay);
    let ry = match h.b {
        Some(b) => b.asin(),
        None => h.new_y.atan2(h.sqrt_a2my2),
    };
    (h.rx.copysign(x), ry.copysign(y))
}

/// `asin(z) = -i asinh(iz)`.
pub fn asin<F: Real>(a: F, b: F) -> (F, F) {
    // i conj(asinh(i conj(z))): the swap of parts both ways
    let (re, im) = asinh(b, a);
    (im, re)
}

/// `acos(z) = pi/2 - asin(z)`, computed directly (`cacos`): the real
/// part from `x / A` (or its atan2 form), the imaginary part `-Re(asinh)`
/// of the swapped number.
pub fn acos<F: Real>(x: F, y: F) -> (F, F) {
    let (zero, nan, inf) = (F::zero(), F::nan(), F::infinity());
    let pio2 = F::FRAC_PI_2();
    let (ax, ay) = (x.abs(), y.abs());
    let (sx, sy) = (x.is_sign_negative(), y.is_sign_negative());
    if x.is_nan() || y.is_nan() {
        if x.is_infinite() {
            return (nan, -inf); // NaN ∓ inf j (the sign unspecified)
        }
        if y.is_infinite() {
            return (nan, -y);
        }
        if x == zero {
            return (pio2, nan);
        }
        return (nan, nan);
    }
    let recip_eps = F::one() / F::epsilon();
    if ax > recip_eps || ay > recip_eps {
        let (wx, wy) = log_of_large(x, y);
        let rx = wy.abs();
        let ry = wx + F::LN_2();
        return (rx, if sy { ry } else { -ry });
    }
    if x == F::one() && y == zero {
        return (zero, -y);
    }
    let tiny = (k::<F>(6.0) * F::epsilon()).sqrt() / k(4.0);
    if ax < tiny && ay < tiny {
        return (pio2 - x, -y);
    }
    let h = hard_work(ay, ax);
    let rx = match h.b {
        Some(b) => (if sx { -b } else { b }).acos(),
        None => h.sqrt_a2my2.atan2(if sx { -h.new_y } else { h.new_y }),
    };
    (rx, if sy { h.rx } else { -h.rx })
}

/// `acosh(z) = ±i acos(z)`, the sign making the real part nonnegative
/// (`cacosh`). `acosh(±0 + NaN j)` is `NaN + pi/2 j`, the standard's
/// (C99's `catrig.c` gives NaN + NaN j).
pub fn acosh<F: Real>(x: F, y: F) -> (F, F) {
    let (rx, ry) = acos(x, y);
    if rx.is_nan() && ry.is_nan() {
        return (ry, rx);
    }
    if rx.is_nan() {
        return (ry.abs(), rx); // +inf + NaN j
    }
    if ry.is_nan() {
        return (ry, rx); // NaN + pi/2 j
    }
    (ry.abs(), rx.copysign(y))
}

/// `Re(1 / (x + iy)) = x / (x^2 + y^2)` for `|z|` past `1 / eps`, scaled
/// by the larger part so the squares neither overflow nor underflow.
fn real_part_reciprocal<F: Real>(x: F, y: F) -> F {
    if x.is_infinite() || y.is_infinite() {
        return F::zero().copysign(x);
    }
    let m = x.abs().max(y.abs());
    let (p, q) = (x / m, y / m);
    p / (p * p + q * q) / m
}

/// `atanh(z) = (log(1 + z) - log(1 - z)) / 2` (`catanh`): the real part
/// `log1p(4|x| / ((|x| - 1)^2 + y^2)) / 4`, the imaginary part
/// `atan2(2y, (1 - x)(1 + x) - y^2) / 2`.
pub fn atanh<F: Real>(x: F, y: F) -> (F, F) {
    let (zero, one, nan) = (F::zero(), F::one(), F::nan());
    let pio2 = F::FRAC_PI_2();
    let (ax, ay) = (x.abs(), y.abs());
    let eps = F::epsilon();
    if y == zero && ax <= one {
        return (x.atanh_(), y);
    }
    if x == zero {
        return (x, y.atan());
    }
    if x.is_nan() || y.is_nan() {
        if x.is_infinite() {
            return (zero.copysign(x), nan);
        }
        if y.is_infinite() {
            return (zero.copysign(x), pio2.copysign(y));
        }
        return (nan, nan);
    }
    let recip_eps = one / eps;
    if ax > recip_eps || ay > recip_eps {
        return (real_part_reciprocal(x, y), pio2.copysign(y));
    }
    let tiny = (k::<F>(3.0) * eps).sqrt() / k(2.0);
    if ax < tiny && ay < tiny {
        return (x, y);
    }
    let four: F = k(4.0);
    let rx = if ax == one && ay < eps {
        (F::LN_2() - ay.ln()) / k(2.0)
    } else {
        let d = ax - one;
        // y^2 dropped where it underflows (it is below eps^2 of d^2)
        let sum = if ay < F::min_positive_value().sqrt() {
            d * d
        } else {
            d * d + ay * ay
        };
        (four * ax / sum).ln_1p() / four
    };
    let two: F = k(2.0);
    let ry = if ax == one {
        two.atan2(-ay) / two
    } else if ay < eps {
        (two * ay).atan2((one - ax) * (one + ax)) / two
    } else {
        (two * ay).atan2((one - ax) * (one + ax) - ay * ay) / two
    };
    (rx.copysign(x), ry.copysign(y))
}

/// `atan(z) = -i atanh(iz)`.
pub fn atan<F: Real>(a: F, b: F) -> (F, F) {
    let (re, im) = atanh(b, a);
    (im, re)
}
