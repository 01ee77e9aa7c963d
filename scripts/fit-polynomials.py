"""The polynomial coefficients of `src/kernels/math.rs`'s `f64` building
blocks, printed as the Rust constants written there.

Each is mpmath's Chebyshev fit (`mpmath.chebyfit`, 40 digits) of the
function on the interval its building block reduces to, with the fewest
coefficients whose fitting error is below 2^-42 relative (2^-24 for the
starting value of a Newton step, which squares its error): near-minimax,
and shorter than the Taylor series the blocks used before (the error
bound of the fit is printed beside each, as a log2).

    python scripts/fit-polynomials.py
"""

import mpmath as mp

mp.mp.dps = 40
HALF_LN2 = mp.log(2) / 2


def atan_over_u(z):
    """atan(u)/u as a function of z = u^2."""
    return mp.atan(mp.sqrt(z)) / mp.sqrt(z) if z > 0 else mp.mpf(1)


def expm1_over_r(r):
    return mp.expm1(r) / r if r != 0 else mp.mpf(1)


def two_atanh_over_s(z):
    """2 atanh(s)/s as a function of z = s^2 (ln m = 2 atanh(s))."""
    return 2 * mp.atanh(mp.sqrt(z)) / mp.sqrt(z) if z > 0 else mp.mpf(2)


def asin_over_s(z):
    """asin(s)/s as a function of z = s^2."""
    return mp.asin(mp.sqrt(z)) / mp.sqrt(z) if z > 0 else mp.mpf(1)


def cosh_of_z(z):
    """cosh(r) as a function of z = r^2."""
    return mp.cosh(mp.sqrt(z))


def sinh_over_r(z):
    """sinh(r)/r as a function of z = r^2."""
    return mp.sinh(mp.sqrt(z)) / mp.sqrt(z) if z > 0 else mp.mpf(1)


def reciprocal_cbrt(m):
    return 1 / mp.cbrt(m)


FUNCTIONS = {
    # name in math.rs: (function, interval, log2 of the error to reach)
    "EXPM1_OVER_R": (expm1_over_r, [-HALF_LN2, HALF_LN2], -42),
    "LN_OVER_S": (two_atanh_over_s, [0, ((mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)) ** 2], -42),
    "ATAN_OVER_U": (atan_over_u, [0, mp.tan(mp.pi / 8) ** 2], -42),
    "COSH_Z": (cosh_of_z, [0, HALF_LN2**2], -42),
    "SINH_OVER_R": (sinh_over_r, [0, HALF_LN2**2], -42),
    "ASIN_OVER_S": (asin_over_s, [0, mp.mpf(1) / 4], -42),
    "RECIPROCAL_CBRT": (reciprocal_cbrt, [1, 2], -24),
}


def main() -> None:
    for name, (f, interval, target) in FUNCTIONS.items():
        for n in range(4, 16):
            poly, err = mp.chebyfit(f, interval, n, error=True)
            smallest = min(abs(f(x)) for x in interval)
            bits = float(mp.log(err / smallest, 2))
            if bits < target:
                break
        coeffs = ", ".join(repr(float(c)) for c in poly[::-1])
        print(f"// fitting error 2^{bits:.1f}")
        print(f"const {name}: [f64; {n}] = [{coeffs}];")


if __name__ == "__main__":
    main()
