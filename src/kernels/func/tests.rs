//! The element-wise functions' kernels against scalar references.

use super::*;
use crate::kernels::isa::fused_multiply_add;

/// `atan2`'s vector code as the kernel runs it on this CPU (fused
/// multiply-add where the CPU has it).
fn fast_atan2(y: f32, x: f32) -> f32 {
    if fused_multiply_add() {
        math::atan2::<true>(y, x)
    } else {
        math::atan2::<false>(y, x)
    }
}

fn un<T: FuncElement>(f: Func, x: T) -> T {
    let mut d = [MaybeUninit::uninit()];
    assert!(T::map_same(f, &[x], &mut d));
    let mut b = [x];
    assert!(T::map_same_inplace(f, &mut b));
    b[0]
}

fn bin<T: FuncElement>(f: Func, a: T, b: T) -> T {
    let mut x = [a];
    assert!(T::zip_same_lhs(f, &mut x, Side::Scalar(b)));
    x[0]
}

#[test]
fn integer_division_follows_python() {
    assert_eq!(bin(Func::FloorDivide, -7_i32, 2), -4);
    assert_eq!(bin(Func::Remainder, -7_i32, 2), 1);
    assert_eq!(bin(Func::Remainder, 7_i32, -2), -1);
    assert_eq!(bin(Func::FloorDivide, 7_u8, 0), 0);
    assert_eq!(bin(Func::FloorDivide, i64::MIN, -1), i64::MIN);
}

#[test]
fn float_division_follows_numpy() {
    assert_eq!(bin(Func::FloorDivide, -7.0_f64, 2.0), -4.0);
    assert_eq!(bin(Func::Remainder, -7.0_f64, 2.0), 1.0);
    assert!(bin(Func::Remainder, 1.0_f32, 0.0).is_nan());
    assert!(bin(Func::FloorDivide, -0.0_f64, 1.0).is_sign_negative());
}

#[test]
fn shifts_past_the_width() {
    assert_eq!(bin(Func::BitwiseLeftShift, 1_u8, 8), 0);
    assert_eq!(bin(Func::BitwiseRightShift, -8_i16, 20), -1);
    assert_eq!(bin(Func::BitwiseRightShift, -8_i16, 2), -2);
}

#[test]
fn powers_and_signs() {
    assert_eq!(bin(Func::Pow, 3_i64, 4), 81);
    assert_eq!(bin(Func::Pow, 2_u8, 9), 0);
    assert_eq!(bin(Func::Pow, -1_i32, -3), -1);
    assert_eq!(un(Func::Sign, -5_i8), -1);
    assert_eq!(un(Func::Sign, 5_u16), 1);
    assert_eq!(un(Func::Round, 2.5_f32), 2.0);
    assert!(un(Func::Sign, f64::NAN).is_nan());
    assert_eq!(bin(Func::Nextafter, 1.0_f32, 2.0), 1.0 + f32::EPSILON);
    assert_eq!(
        bin(Func::Logaddexp, f64::NEG_INFINITY, f64::NEG_INFINITY),
        f64::NEG_INFINITY
    );
    // No overflow near the top of the range, no cancellation near ±1.
    assert!((un(Func::Asinh, f64::MAX) - 710.475_860_073_943_9).abs() < 1e-9);
    assert!((un(Func::Acosh, f64::MAX) - 710.475_860_073_943_9).abs() < 1e-9);
    assert!(un(Func::Acosh, 0.5_f64).is_nan());
    assert!(un(Func::Acosh, -67_108_865.0_f64).is_nan());
    // 1 - 2^-40 is exact, and so is (1 + x) / (1 - x) = 2^41 - 1.
    let near_one = 1.0 - 2f64.powi(-40);
    let want = 0.5 * (2f64.powi(41) - 1.0).ln();
    assert!((un(Func::Atanh, near_one) - want).abs() < 1e-12 * want);
    assert!(un(Func::Atanh, 1.0_f32).is_infinite());
    assert!(un(Func::Asinh, -0.0_f64).is_sign_negative());
}

#[test]
fn unsupported_pairs_report_false() {
    let mut d = [MaybeUninit::uninit()];
    assert!(!i32::map_same(Func::Sin, &[1], &mut d));
    let mut b = [MaybeUninit::uninit()];
    assert!(!bool::map_same(Func::Square, &[true], &mut b));
}

#[test]
fn fmod_keeps_the_dividends_sign_and_is_exact() {
    assert_eq!(bin(Func::Fmod, -7_i32, 2), -1);
    assert_eq!(bin(Func::Fmod, 7_i32, -2), 1);
    assert_eq!(bin(Func::Fmod, 7_u8, 0), 0);
    assert_eq!(bin(Func::Fmod, i8::MIN, -1), 0);
    assert_eq!(bin(Func::Fmod, -7.5_f64, 2.0), -1.5);
    assert_eq!(bin(Func::Fmod, 7.5_f32, -2.0), 1.5);
    // Exact where `a - trunc(a / b) * b` is not (5 / 0.1 rounds to 50,
    // which would give 0; 0.1 is a little above a tenth).
    assert_eq!(bin(Func::Fmod, 5.0_f64, 0.1), 0.099_999_999_999_999_73);
    assert!(bin(Func::Fmod, -0.0_f64, 3.0).is_sign_negative());
    assert!(bin(Func::Fmod, 1.0_f64, 0.0).is_nan());
    assert!(bin(Func::Fmod, f32::INFINITY, 2.0).is_nan());
    assert_eq!(bin(Func::Fmod, 1.0_f64, f64::INFINITY), 1.0);
}

#[test]
fn cbrt_of_negatives_and_specials() {
    assert_eq!(un(Func::Cbrt, -27.0_f64), -3.0);
    assert_eq!(un(Func::Cbrt, 8.0_f32), 2.0);
    assert!(un(Func::Cbrt, -0.0_f64).is_sign_negative());
    assert_eq!(un(Func::Cbrt, f64::NEG_INFINITY), f64::NEG_INFINITY);
    assert!(un(Func::Cbrt, f32::NAN).is_nan());
}

#[test]
fn every_function_is_listed_once_under_a_distinct_name() {
    let names: std::collections::HashSet<_> = Func::ALL.iter().map(|f| f.name()).collect();
    assert_eq!(names.len(), Func::ALL.len());
    assert!(names.contains("cbrt") && names.contains("fmod"));
}

#[test]
fn a_square_is_the_product_and_pow_elsewhere() {
    for x in [
        0.0_f64,
        -0.0,
        1.5,
        -3.25,
        1e200,
        -1e-200,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        5e-324,
    ] {
        let got = bin(Func::Pow, x, 2.0);
        let want = x * x;
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{x}"
        );
        let p = x.powf(2.0);
        assert!(
            got.to_bits() == p.to_bits() || (got.is_nan() && p.is_nan()),
            "{x}: pow {p}"
        );
        let f = x as f32;
        let g = bin(Func::Pow, f, 2.0);
        assert!(
            g.to_bits() == (f * f).to_bits() || (g.is_nan() && f.is_nan()),
            "{f}"
        );
    }
    assert_eq!(bin(Func::Pow, 2.0_f64, 0.5), 2.0_f64.sqrt());
    assert_eq!(bin(Func::Pow, 2.0_f32, 3.0), 8.0);
}

/// Arguments for the `f32` trigonometry: a dense sweep, the floats next to
/// multiples of pi/2 (where the reduction cancels), tiny, huge (beyond the
/// fast range, so the C library's) and special values.
fn trig_arguments() -> Vec<f32> {
    let mut xs: Vec<f32> = (-200_000..200_000).map(|i| i as f32 * 1e-3).collect();
    for k in 1..2000_i32 {
        let m = (f64::from(k) * std::f64::consts::FRAC_PI_2) as f32;
        xs.extend([m, m.next_up(), m.next_down(), -m]);
    }
    let mut big = 1.0_f32;
    while big.is_finite() {
        xs.extend([big, -big, big * 1.234_567, big.next_down()]);
        big *= 3.0;
    }
    xs.extend([
        0.0,
        -0.0,
        1e-30,
        -1e-30,
        f32::MIN_POSITIVE / 4.0,
        2.4e-4,
        -2.5e-4,
        math::TRIG_LIMIT,
        math::TRIG_LIMIT.next_down(),
        -math::TRIG_LIMIT.next_down(),
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ]);
    xs
}

/// `out` after a kernel that returned true, which wrote every element.
#[allow(unsafe_code)] // the contract above
fn written<T: Copy>(out: Vec<MaybeUninit<T>>) -> Vec<T> {
    out.into_iter()
        // SAFETY: the caller's kernel wrote every element (it returned true).
        .map(|x| unsafe { x.assume_init() })
        .collect()
}

/// The distance in units in the last place between two finite `f32`s of
/// one sign (or zeros).
fn ulps(a: f32, b: f32) -> u32 {
    let key = |x: f32| {
        let b = x.to_bits() as i32;
        if b < 0 {
            i32::MIN - b
        } else {
            b
        }
    };
    key(a).abs_diff(key(b))
}

#[test]
fn f32_trigonometry_is_within_one_rounding_of_the_exact_value() {
    let xs = trig_arguments();
    for (f, exact) in [
        (Func::Sin, f64::sin as fn(f64) -> f64),
        (Func::Cos, f64::cos),
        (Func::Tan, f64::tan),
    ] {
        let mut out = vec![MaybeUninit::uninit(); xs.len()];
        assert!(f32::map_same(f, &xs, &mut out));
        let out = written(out);
        let mut inplace = xs.clone();
        assert!(f32::map_same_inplace(f, &mut inplace));
        for (i, &x) in xs.iter().enumerate() {
            let got = out[i];
            assert_eq!(got.to_bits(), inplace[i].to_bits(), "{f:?}({x:e}) in place");
            // The exact value rounded once (`f64`'s functions are within
            // an ulp of `f64`, far below half an `f32` ulp).
            let want = exact(f64::from(x)) as f32;
            if want.is_nan() {
                assert!(got.is_nan(), "{f:?}({x:e}) = {got:e}, want NaN");
            } else if want == 0.0 {
                assert_eq!(got.to_bits(), want.to_bits(), "{f:?}({x:e}): zero's sign");
            } else {
                assert!(
                    ulps(got, want) <= 1,
                    "{f:?}({x:e}) = {got:e}, want {want:e}"
                );
            }
        }
    }
}

#[test]
fn f32_trigonometry_beyond_the_fast_range_is_the_c_library_s() {
    // One huge argument in a chunk sends the whole chunk to the C
    // library: its neighbours get the library's value too, bit for bit.
    let mut xs: Vec<f32> = (0..200).map(|i| i as f32 * 0.37 - 30.0).collect();
    xs[70] = 1e30;
    xs[150] = f32::NAN;
    let mut out = vec![MaybeUninit::uninit(); xs.len()];
    assert!(f32::map_same(Func::Sin, &xs, &mut out));
    let out = written(out);
    for (i, &x) in xs.iter().enumerate() {
        let got = out[i];
        if x.is_nan() {
            assert!(got.is_nan());
        } else if (64..192).contains(&i) {
            assert_eq!(got.to_bits(), x.sin().to_bits(), "sin({x:e}) at {i}");
        } else {
            assert_eq!(got.to_bits(), math::sin(x).to_bits(), "sin({x:e}) at {i}");
        }
    }
}

#[test]
fn every_instruction_set_gives_the_portable_bits() {
    use crate::kernels::isa::{dispatch, Isa};
    let xs = trig_arguments();
    let run = |isa: Isa, f: fn(f32) -> f32| {
        let mut out = vec![MaybeUninit::uninit(); xs.len()];
        dispatch!(
            isa,
            func_map_guarded::<f32, f32, _, _, _>(&xs, &mut out, f, math::trig_inside, f)
        );
        written(out).iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    };
    let fs: [fn(f32) -> f32; 6] = [
        math::sin,
        math::cos,
        math::tan,
        f32::floor,
        f32::round_ties_even,
        f32::trunc,
    ];
    for isa in Isa::supported() {
        for (k, f) in fs.iter().enumerate() {
            assert_eq!(
                run(isa, *f),
                run(Isa::scalar(), *f),
                "function {k} on {isa:?}"
            );
        }
    }
}

/// Pairs for `f32` `atan2`: every quadrant and octant at many scales, the
/// diagonal and axes, ratios near `tan(pi/8)`, huge and tiny ratios, signed
/// zeros, infinities and NaN.
fn atan2_arguments() -> Vec<(f32, f32)> {
    let mut scales = vec![0.0_f32, -0.0];
    let mut s = 1e-40_f32;
    while s.is_finite() {
        scales.extend([s, -s, s * 1.7, -s * 0.3]);
        s *= 11.0;
    }
    let mut pairs: Vec<(f32, f32)> = Vec::new();
    for &y in &scales {
        for &x in &scales {
            pairs.push((y, x));
        }
    }
    for i in -3000..3000 {
        let t = i as f32 * 1e-3;
        pairs.extend([(t, 1.0), (1.0, t), (t, -1.0), (-1.0, t), (t, t.next_up())]);
    }
    let t8 = std::f64::consts::FRAC_PI_8.tan() as f32;
    for v in [
        t8,
        t8.next_up(),
        t8.next_down(),
        1.0,
        1.0_f32.next_up(),
        1.0_f32.next_down(),
    ] {
        pairs.extend([(v, 1.0), (-v, 1.0), (1.0, v), (v, -1.0), (-1.0, -v)]);
    }
    for special in [
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        f32::MIN_POSITIVE,
    ] {
        for other in [
            0.0,
            -0.0,
            1.0,
            -3.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ] {
            pairs.extend([(special, other), (other, special)]);
        }
    }
    pairs
}

#[test]
fn f32_atan2_is_within_one_rounding_of_the_exact_value() {
    let pairs = atan2_arguments();
    let ys: Vec<f32> = pairs.iter().map(|p| p.0).collect();
    let xs: Vec<f32> = pairs.iter().map(|p| p.1).collect();
    let mut out = vec![MaybeUninit::uninit(); pairs.len()];
    assert!(f32::zip_same(
        Func::Atan2,
        Side::Slice(&ys),
        Side::Slice(&xs),
        &mut out
    ));
    let out = written(out);
    let mut lhs = ys.clone();
    assert!(f32::zip_same_lhs(Func::Atan2, &mut lhs, Side::Slice(&xs)));
    let mut rhs = xs.clone();
    assert!(f32::zip_same_rhs(Func::Atan2, Side::Slice(&ys), &mut rhs));
    for (i, &(y, x)) in pairs.iter().enumerate() {
        let got = out[i];
        assert_eq!(
            got.to_bits(),
            lhs[i].to_bits(),
            "atan2({y:e}, {x:e}) into y"
        );
        assert_eq!(
            got.to_bits(),
            rhs[i].to_bits(),
            "atan2({y:e}, {x:e}) into x"
        );
        let want = f64::from(y).atan2(f64::from(x)) as f32;
        if want.is_nan() {
            assert!(got.is_nan(), "atan2({y:e}, {x:e}) = {got:e}, want NaN");
        } else if want == 0.0 || want.abs() == std::f32::consts::PI {
            // Zeros keep their sign; atan2(±0, -0) and atan2(±0, -x) are ±pi.
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "atan2({y:e}, {x:e}) = {got:e}"
            );
        } else {
            assert!(
                ulps(got, want) <= 1,
                "atan2({y:e}, {x:e}) = {got:e}, want {want:e}"
            );
            if math::atan2_inside(y, x) {
                // The variant a CPU without fused multiply-add runs.
                let unfused = math::atan2::<false>(y, x);
                assert!(
                    ulps(unfused, want) <= 1,
                    "unfused atan2({y:e}, {x:e}) = {unfused:e}, want {want:e}"
                );
            }
        }
    }
    // A scalar on either side takes the same path.
    let mut scalar_y = vec![MaybeUninit::uninit(); xs.len()];
    assert!(f32::zip_same(
        Func::Atan2,
        Side::Scalar(0.5),
        Side::Slice(&xs),
        &mut scalar_y
    ));
    for (got, &x) in written(scalar_y).iter().zip(&xs) {
        let want = 0.5_f64.atan2(f64::from(x)) as f32;
        assert!(got.is_nan() == want.is_nan(), "atan2(0.5, {x:e})");
        if !want.is_nan() {
            assert!(
                ulps(*got, want) <= 1,
                "atan2(0.5, {x:e}) = {got:e}, want {want:e}"
            );
        }
    }
}

#[test]
fn f32_atan2_of_an_infinity_or_nan_is_the_c_library_s_for_its_chunk() {
    let ys: Vec<f32> = (0..200).map(|i| i as f32 * 0.37 - 30.0).collect();
    let mut xs: Vec<f32> = (0..200).map(|i| 7.0 - i as f32 * 0.11).collect();
    xs[70] = f32::INFINITY;
    xs[150] = f32::NAN;
    let mut out = vec![MaybeUninit::uninit(); ys.len()];
    assert!(f32::zip_same(
        Func::Atan2,
        Side::Slice(&ys),
        Side::Slice(&xs),
        &mut out
    ));
    for (i, got) in written(out).into_iter().enumerate() {
        let (y, x) = (ys[i], xs[i]);
        if x.is_nan() {
            assert!(got.is_nan());
        } else if (64..192).contains(&i) {
            assert_eq!(
                got.to_bits(),
                y.atan2(x).to_bits(),
                "atan2({y:e}, {x:e}) at {i}"
            );
        } else {
            assert_eq!(
                got.to_bits(),
                fast_atan2(y, x).to_bits(),
                "atan2({y:e}, {x:e}) at {i}"
            );
        }
    }
}

#[test]
fn every_instruction_set_gives_the_portable_atan2() {
    use crate::kernels::isa::{dispatch, Isa};
    let pairs = atan2_arguments();
    let ys: Vec<f32> = pairs.iter().map(|p| p.0).collect();
    let xs: Vec<f32> = pairs.iter().map(|p| p.1).collect();
    let run = |isa: Isa| {
        let mut out = vec![MaybeUninit::uninit(); xs.len()];
        let exact = |y: f32, x: f32| y.atan2(x);
        dispatch!(
            isa,
            func_zip_guarded::<f32, f32, _, _, _>(
                Side::Slice(&ys),
                Side::Slice(&xs),
                &mut out,
                math::atan2::<true>,
                math::atan2_inside,
                exact
            )
        );
        written(out).iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    };
    for isa in Isa::supported() {
        assert_eq!(run(isa), run(Isa::scalar()), "atan2 on {isa:?}");
    }
}

/// The `f32` functions computed in `f64` (`super::math`), each fused and
/// unfused (`FMA` true and false), with its guard, the exact function (the standard library's `f64` one, within an
/// ulp of `f64`, far below half an `f32` ulp) and arguments inside its
/// domain, at its edges and outside it.
type Vectorised = (
    Func,
    [fn(f32) -> f32; 2],
    fn(f32) -> bool,
    fn(f64) -> f64,
    Vec<f32>,
);

#[allow(clippy::too_many_lines)] // a table: one line per function
fn vectorised() -> Vec<Vectorised> {
    // Every scale from the smallest subnormal to the largest float, both
    // signs, with the specials.
    let mut wide = vec![
        0.0_f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
    ];
    let mut s = f32::from_bits(1);
    while s.is_finite() {
        wide.extend([s, -s, s * 1.37, -s * 1.37, s * 0.71]);
        s *= 3.0;
    }
    let sweep = |lo: f32, hi: f32, n: i32| -> Vec<f32> {
        (0..=n)
            .map(|i| lo + (hi - lo) * i as f32 / n as f32)
            .collect()
    };
    let with = |mut v: Vec<f32>, extra: &[f32]| {
        v.extend_from_slice(extra);
        v.extend_from_slice(&wide);
        v
    };
    let below_one = |x: f32| {
        [
            x,
            x.next_down(),
            x.next_up(),
            -x,
            -x.next_down(),
            -x.next_up(),
        ]
    };
    let mut unit_edges: Vec<f32> = below_one(1.0).to_vec();
    unit_edges.extend(below_one(0.5));
    unit_edges.extend((1..30).map(|k| 1.0 - (2.0_f32).powi(-k)));
    vec![
        (
            Func::Expm1,
            [math::expm1::<true>, math::expm1::<false>],
            math::finite,
            f64::exp_m1,
            with(
                sweep(-110.0, 95.0, 60_000),
                &[
                    0.35,
                    -0.35,
                    0.35_f32.next_down(),
                    88.72,
                    88.73,
                    1e-8,
                    -1e-30,
                ],
            ),
        ),
        (
            Func::Log1p,
            [math::log1p::<true>, math::log1p::<false>],
            math::log1p_inside,
            f64::ln_1p,
            with(
                sweep(-1.0, 20.0, 60_000),
                &[-1.0_f32.next_up(), 1e-8, -1e-8, 1e-30],
            ),
        ),
        (
            Func::Log2,
            [math::log2::<true>, math::log2::<false>],
            math::positive,
            f64::log2,
            with(
                sweep(0.0, 40.0, 60_000),
                &[
                    0.5,
                    1.0,
                    2.0,
                    1024.0,
                    1.0_f32.next_up(),
                    1.0_f32.next_down(),
                ],
            ),
        ),
        (
            Func::Log10,
            [math::log10::<true>, math::log10::<false>],
            math::positive,
            f64::log10,
            with(
                sweep(0.0, 40.0, 60_000),
                &[0.1, 1.0, 10.0, 1000.0, 1e-30, 1e30, 1.0_f32.next_down()],
            ),
        ),
        (
            Func::Cbrt,
            [math::cbrt::<true>, math::cbrt::<false>],
            math::finite,
            f64::cbrt,
            with(
                sweep(-30.0, 30.0, 60_000),
                // Every remainder of the exponent by 3, the ends of the
                // mantissa, subnormal and the largest inputs.
                &[
                    8.0,
                    -27.0,
                    64.0,
                    1e-30,
                    2.0,
                    4.0,
                    0.5,
                    0.25,
                    1.0_f32.next_down(),
                    2.0_f32.next_down(),
                    -1e-40,
                    1e-45,
                    3e-39,
                    9.9e37,
                    -1e37,
                ],
            ),
        ),
        (
            Func::Sinh,
            [math::sinh::<true>, math::sinh::<false>],
            math::finite,
            f64::sinh,
            with(sweep(-95.0, 95.0, 60_000), &[1e-8, -1e-8, 89.4, 89.5, 0.35]),
        ),
        (
            Func::Cosh,
            [math::cosh::<true>, math::cosh::<false>],
            math::finite,
            f64::cosh,
            with(sweep(-95.0, 95.0, 60_000), &[1e-8, 89.4, 89.5]),
        ),
        (
            Func::Atan,
            [math::atan::<true>, math::atan::<false>],
            math::finite,
            f64::atan,
            with(
                sweep(-30.0, 30.0, 60_000),
                &[0.414_213_57, 1.0, -1.0, 2.414_213_6, 1e-30],
            ),
        ),
        (
            Func::Asin,
            [math::asin::<true>, math::asin::<false>],
            math::unit,
            f64::asin,
            with(sweep(-1.0, 1.0, 60_000), &unit_edges),
        ),
        (
            Func::Acos,
            [math::acos::<true>, math::acos::<false>],
            math::unit,
            f64::acos,
            with(sweep(-1.0, 1.0, 60_000), &unit_edges),
        ),
        (
            Func::Asinh,
            [math::asinh::<true>, math::asinh::<false>],
            math::finite,
            f64::asinh,
            with(sweep(-30.0, 30.0, 60_000), &[1e-8, -1e-30, 1e30, -1e38]),
        ),
        (
            Func::Acosh,
            [math::acosh::<true>, math::acosh::<false>],
            math::acosh_inside,
            f64::acosh,
            with(
                sweep(0.5, 30.0, 60_000),
                &[1.0, 1.0_f32.next_up(), 1.0_f32.next_down(), 1e30],
            ),
        ),
        (
            Func::Atanh,
            [math::atanh::<true>, math::atanh::<false>],
            math::atanh_inside,
            f64::atanh,
            with(sweep(-1.0, 1.0, 60_000), &unit_edges),
        ),
    ]
}

#[test]
fn f32_functions_in_vector_code_are_within_one_rounding_of_the_exact_value() {
    for (f, [fused, unfused], inside, exact, xs) in vectorised() {
        // The variant the kernel runs on this CPU.
        let fast = if fused_multiply_add() { fused } else { unfused };
        // The other is as accurate (a CPU without fused multiply-add runs
        // the unfused one).
        for x in xs.iter().copied().filter(|&x| inside(x)) {
            let want = exact(f64::from(x)) as f32;
            for (variant, v) in [("fused", fused(x)), ("unfused", unfused(x))] {
                if want.is_finite() && want != 0.0 {
                    assert!(
                        ulps(v, want) <= 1,
                        "{variant} {f:?}({x:e}) = {v:e}, want {want:e}"
                    );
                } else {
                    assert_eq!(v.to_bits(), want.to_bits(), "{variant} {f:?}({x:e})");
                }
            }
        }
        let mut out = vec![MaybeUninit::uninit(); xs.len()];
        assert!(f32::map_same(f, &xs, &mut out));
        let out = written(out);
        let mut inplace = xs.clone();
        assert!(f32::map_same_inplace(f, &mut inplace));
        // The vector code itself, on the arguments inside its guard (the
        // kernel sends a chunk with any other to the C library).
        let fast_only: Vec<f32> = xs
            .iter()
            .map(|&x| if inside(x) { fast(x) } else { f32::NAN })
            .collect();
        for (i, &x) in xs.iter().enumerate() {
            let got = out[i];
            assert_eq!(got.to_bits(), inplace[i].to_bits(), "{f:?}({x:e}) in place");
            let want = exact(f64::from(x)) as f32;
            let fast_x = fast_only[i];
            if inside(x) && !want.is_nan() && want != 0.0 && !want.is_infinite() {
                assert!(
                    ulps(fast_x, want) <= 1,
                    "vector {f:?}({x:e}) = {fast_x:e}, want {want:e}"
                );
            } else if inside(x) {
                assert_eq!(
                    fast_x.to_bits(),
                    want.to_bits(),
                    "vector {f:?}({x:e}) = {fast_x:e}, want {want:e}"
                );
            }
            if want.is_nan() {
                assert!(got.is_nan(), "{f:?}({x:e}) = {got:e}, want NaN");
            } else if want == 0.0 || want.is_infinite() {
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "{f:?}({x:e}) = {got:e}, want {want:e}"
                );
            } else {
                assert!(
                    ulps(got, want) <= 1,
                    "{f:?}({x:e}) = {got:e}, want {want:e}"
                );
            }
        }
    }
}

#[test]
fn every_instruction_set_gives_the_portable_vector_functions() {
    use crate::kernels::isa::{dispatch, Isa};
    let libm = |x: f32| x; // never reached inside the guards
    for (f, [fast, _], inside, _, xs) in vectorised() {
        let xs: Vec<f32> = xs.into_iter().filter(|&x| inside(x)).collect();
        let run = |isa: Isa| {
            let mut out = vec![MaybeUninit::uninit(); xs.len()];
            dispatch!(
                isa,
                func_map_guarded::<f32, f32, _, _, _>(&xs, &mut out, fast, inside, libm)
            );
            written(out).iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        };
        for isa in Isa::supported() {
            assert_eq!(run(isa), run(Isa::scalar()), "{f:?} on {isa:?}");
        }
    }
}
