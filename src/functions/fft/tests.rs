//! The transforms against a direct O(n^2) discrete Fourier transform.

use super::*;
use crate::array::element::C64;

/// The direct DFT of `x` (sign -1 forward, +1 inverse), unscaled.
fn dft(x: &[C64], forward: bool) -> Vec<C64> {
    let n = x.len();
    let sign = if forward { -1.0 } else { 1.0 };
    (0..n)
        .map(|k| {
            x.iter()
                .enumerate()
                .fold(C64::new(0.0, 0.0), |acc, (j, v)| {
                    let t = sign * 2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64;
                    acc + v * C64::new(t.cos(), t.sin())
                })
        })
        .collect()
}

/// Equal to 1e-9 of the largest magnitude of `b` (at least 1).
fn close(a: &[C64], b: &[C64]) {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().map(|v| v.norm()).fold(1.0, f64::max);
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let tol = 1e-9 * scale;
        assert!((x - y).norm() < tol, "element {i}: {x} != {y}");
    }
}

fn tensor(v: &[C64], shape: &[usize]) -> DynTensor {
    DynTensor::from(crate::Tensor::from_slice(v, shape).unwrap())
}

fn values(t: &DynTensor) -> Vec<C64> {
    t.typed::<C64>("t").unwrap().as_slice().unwrap().to_vec()
}

fn signal(n: usize) -> Vec<C64> {
    (0..n)
        .map(|i| {
            C64::new(
                (i as f64 * 0.7).sin() + 0.1 * i as f64,
                (i as f64 * 1.3).cos(),
            )
        })
        .collect()
}

#[test]
fn fft_and_ifft_of_every_small_length_match_the_direct_transform() {
    for n in 1..=17 {
        let x = signal(n);
        let op = FftOp::one_axis(FftKind::Fft, None, -1, FftNorm::Backward);
        close(&values(&op.run(&tensor(&x, &[n])).unwrap()), &dft(&x, true));
        let inv = FftOp::one_axis(FftKind::Ifft, None, -1, FftNorm::Backward);
        let want: Vec<C64> = dft(&x, false).iter().map(|v| v / n as f64).collect();
        close(&values(&inv.run(&tensor(&x, &[n])).unwrap()), &want);
    }
}

#[test]
fn a_length_pads_or_cuts_and_the_norm_scales() {
    let x = signal(5);
    let mut padded = x.clone();
    padded.extend([C64::new(0.0, 0.0); 3]);
    let op = FftOp::one_axis(FftKind::Fft, Some(8), 0, FftNorm::Ortho);
    let want: Vec<C64> = dft(&padded, true).iter().map(|v| v / 8f64.sqrt()).collect();
    close(&values(&op.run(&tensor(&x, &[5])).unwrap()), &want);
    let cut = FftOp::one_axis(FftKind::Fft, Some(3), 0, FftNorm::Forward);
    let want: Vec<C64> = dft(&x[..3], true).iter().map(|v| v / 3.0).collect();
    close(&values(&cut.run(&tensor(&x, &[5])).unwrap()), &want);
    assert!(FftOp::one_axis(FftKind::Fft, Some(0), 0, FftNorm::Backward)
        .run(&tensor(&x, &[5]))
        .is_err());
}

#[test]
fn an_inner_axis_transforms_each_column() {
    // A 3x4 array along axis 0: each of the 4 columns.
    let x = signal(12);
    let op = FftOp::one_axis(FftKind::Fft, None, 0, FftNorm::Backward);
    let got = values(&op.run(&tensor(&x, &[3, 4])).unwrap());
    for c in 0..4 {
        let col: Vec<C64> = (0..3).map(|r| x[r * 4 + c]).collect();
        let want = dft(&col, true);
        let mine: Vec<C64> = (0..3).map(|r| got[r * 4 + c]).collect();
        close(&mine, &want);
    }
}

#[test]
fn rfft_then_irfft_is_the_identity_for_even_and_odd_lengths() {
    for n in [1usize, 2, 5, 8, 9] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.9).sin() + 0.5).collect();
        let t = DynTensor::from(crate::Tensor::from_slice(&x, &[n]).unwrap());
        let r = FftOp::one_axis(FftKind::Rfft, None, -1, FftNorm::Backward)
            .run(&t)
            .unwrap();
        assert_eq!(r.shape(), [n / 2 + 1]);
        let full: Vec<C64> = x.iter().map(|&v| C64::new(v, 0.0)).collect();
        close(&values(&r), &dft(&full, true)[..=n / 2]);
        let back = FftOp::one_axis(FftKind::Irfft, Some(n as i64), -1, FftNorm::Backward)
            .run(&r)
            .unwrap();
        let back = back.typed::<f64>("t").unwrap().as_slice().unwrap().to_vec();
        for (a, b) in back.iter().zip(&x) {
            assert!((a - b).abs() < 1e-12);
        }
    }
}

#[test]
fn shapes_dtypes_and_refusals_come_from_the_signature() {
    let op = FftOp {
        kind: FftKind::Rfft,
        nd: true,
        s: None,
        axes: None,
        norm: FftNorm::Backward,
    };
    assert_eq!(
        op.signature(Meta::new(DType::F32, &[4, 6])).unwrap(),
        (DType::C64, vec![4, 4])
    );
    assert!(op.signature(Meta::new(DType::C64, &[4, 6])).is_err());
    let irfftn = FftOp {
        kind: FftKind::Irfft,
        ..op.clone()
    };
    assert_eq!(
        irfftn.signature(Meta::new(DType::C128, &[4, 4])).unwrap(),
        (DType::F64, vec![4, 6])
    );
    assert_eq!(
        FftOp::one_axis(FftKind::Fft, None, -1, FftNorm::Backward)
            .signature(Meta::new(DType::I32, &[3]))
            .unwrap(),
        (DType::C128, vec![3])
    );
    let s_too_long = FftOp {
        s: Some(vec![2, 2, 2]),
        ..op
    };
    assert!(s_too_long
        .signature(Meta::new(DType::F32, &[4, 6]))
        .is_err());
}

#[test]
fn frequencies_are_numpys() {
    let f = frequencies(5, 0.5, DType::F64, false).unwrap();
    assert_eq!(
        f.typed::<f64>("t").unwrap().as_slice().unwrap(),
        [0.0, 0.4, 0.8, -0.8, -0.4]
    );
    let r = frequencies(4, 1.0, DType::F64, true).unwrap();
    assert_eq!(
        r.typed::<f64>("t").unwrap().as_slice().unwrap(),
        [0.0, 0.25, 0.5]
    );
    assert!(frequencies(0, 1.0, DType::F64, false).is_err());
    assert!(frequencies(-3, 1.0, DType::F64, true).is_err());
}

#[test]
fn groups_of_lines_cover_long_and_many_lines_alike() {
    // One line longer than a group, and many short lines over several
    // groups, along the last and a middle axis.
    let long = signal(70_001);
    let op = FftOp::one_axis(FftKind::Fft, None, -1, FftNorm::Backward);
    let got = values(&op.run(&tensor(&long, &[70_001])).unwrap());
    let back = FftOp::one_axis(FftKind::Ifft, None, -1, FftNorm::Backward)
        .run(&tensor(&got, &[70_001]))
        .unwrap();
    close(&values(&back), &long);
    let many = signal(3 * 9000 * 5);
    for axis in [1isize, 2] {
        let op = FftOp::one_axis(FftKind::Fft, None, axis, FftNorm::Backward);
        let got = values(&op.run(&tensor(&many, &[3, 9000, 5])).unwrap());
        let back = FftOp::one_axis(FftKind::Ifft, None, axis, FftNorm::Backward)
            .run(&tensor(&got, &[3, 9000, 5]))
            .unwrap();
        close(&values(&back), &many);
    }
}

#[test]
fn no_axis_is_the_identity_of_fftn_and_refused_by_the_real_transforms() {
    let x = signal(1);
    let op = FftOp {
        kind: FftKind::Fft,
        nd: true,
        s: None,
        axes: None,
        norm: FftNorm::Backward,
    };
    close(&values(&op.run(&tensor(&x, &[])).unwrap()), &x);
    let rfftn = FftOp {
        kind: FftKind::Irfft,
        ..op
    };
    assert!(rfftn.signature(Meta::new(DType::C128, &[])).is_err());
}
