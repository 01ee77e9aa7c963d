//! The conversions of the storage dtype float16 to and from float32,
//! which every float16 computation makes (`plan::storage`): the `half`
//! crate's slice conversions, which use the F16C instructions where the
//! CPU has them (checked at run time by `half`) and round to nearest
//! even, as the element-wise conversion does.

use std::mem::MaybeUninit;

use half::slice::HalfFloatSliceExt;

use crate::array::element::{DType, Element, F16};

/// `dst` initialised with zeros, as a slice of `T`.
fn zeroed<T: Element>(dst: &mut [MaybeUninit<T>]) -> &mut [T] {
    for d in dst.iter_mut() {
        d.write(T::ZERO);
    }
    // SAFETY: every element was written just above; `MaybeUninit<T>` has
    // `T`'s layout.
    unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<T>(), dst.len()) }
}

/// `src` as a slice of `U`, when `S` is `U`.
fn same<S: Element, U: Element>(src: &[S]) -> Option<&[U]> {
    if S::DTYPE != U::DTYPE {
        return None;
    }
    // SAFETY: `Element` is sealed and every implementation has its own
    // `DTYPE`, so equal tags mean `S` and `U` are the same type.
    Some(unsafe { std::slice::from_raw_parts(src.as_ptr().cast::<U>(), src.len()) })
}

/// `dst` as a slice of `MaybeUninit<U>`, when `D` is `U`.
fn same_mut<D: Element, U: Element>(dst: &mut [MaybeUninit<D>]) -> Option<&mut [MaybeUninit<U>]> {
    if D::DTYPE != U::DTYPE {
        return None;
    }
    // SAFETY: as in `same`: `D` is `U`.
    Some(unsafe {
        std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<MaybeUninit<U>>(), dst.len())
    })
}

/// Convert `src` into `dst` (equal lengths) when one is float16 and the
/// other float32; `false` (nothing written) for any other pair.
pub(crate) fn convert<S: Element, D: Element>(src: &[S], dst: &mut [MaybeUninit<D>]) -> bool {
    match (S::DTYPE, D::DTYPE) {
        (DType::F32, DType::F16) => match (same::<S, f32>(src), same_mut::<D, F16>(dst)) {
            (Some(s), Some(d)) => {
                zeroed(d).convert_from_f32_slice(s);
                true
            }
            _ => false,
        },
        (DType::F16, DType::F32) => match (same::<S, F16>(src), same_mut::<D, f32>(dst)) {
            (Some(s), Some(d)) => {
                s.convert_to_f32_slice(zeroed(d));
                true
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Elements `convert` wrote.
    fn written<T: Element>(v: Vec<MaybeUninit<T>>) -> Vec<T> {
        // SAFETY: the caller asserted that `convert` wrote every element.
        v.into_iter().map(|m| unsafe { m.assume_init() }).collect()
    }

    #[test]
    #[allow(clippy::cast_precision_loss)] // small integers
    fn slices_convert_as_elements_do() {
        let wide: Vec<f32> = (0..1000)
            .map(|i| (i as f32 - 500.0) * 0.0137 + 1e-6 * i as f32)
            .chain([f32::INFINITY, -0.0, 65520.0, 1e-8, f32::NAN])
            .collect();
        let mut half = vec![MaybeUninit::<F16>::uninit(); wide.len()];
        assert!(convert(&wide, &mut half));
        let half = written(half);
        for (w, h) in wide.iter().zip(&half) {
            let want = crate::array::element::convert::<f64, F16>(f64::from(*w));
            assert!(
                h.to_bits() == want.to_bits() || (h.is_nan() && want.is_nan()),
                "{w}"
            );
        }
        let mut back = vec![MaybeUninit::<f32>::uninit(); half.len()];
        assert!(convert(&half, &mut back));
        for (h, b) in half.iter().zip(written(back)) {
            assert!(b.to_bits() == h.to_f32().to_bits() || b.is_nan());
        }
        let mut other = vec![MaybeUninit::<f64>::uninit(); 2];
        assert!(!convert(&wide[..2], &mut other));
    }
}
