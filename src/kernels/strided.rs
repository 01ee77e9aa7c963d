//! Kernels on strided views: copy a view into C order (`gather`), and
//! write values into a view of a buffer (`scatter`, for `t[idx] = v`).
//!
//! A view's [`Layout`] is checked to lie inside its buffer when it is made
//! (`Layout::within`, or an operation on a checked layout), so the element
//! indices here are in bounds; the slices are still indexed with checks,
//! so a wrong layout panics (caught at the API boundary) instead of
//! reading out of bounds.

use std::mem::MaybeUninit;

use crate::array::element::Element;
use crate::array::layout::Layout;
use crate::array::shape::broadcast_strides;

/// Call `f(row, first element)` for every innermost row of `layout` (all
/// axes but the last), in C order; a 0-d layout is one row of one element.
fn for_each_row(layout: &Layout, mut f: impl FnMut(usize, usize)) {
    let shape = layout.shape();
    let strides = layout.strides();
    if shape.contains(&0) {
        return;
    }
    let outer = shape.len().saturating_sub(1);
    let rows: usize = shape[..outer].iter().product();
    let mut idx = vec![0usize; outer];
    let mut cur = layout.offset() as isize;
    for r in 0..rows {
        f(r, cur as usize);
        for d in (0..outer).rev() {
            idx[d] += 1;
            cur += strides[d];
            if idx[d] < shape[d] {
                break;
            }
            cur -= strides[d] * shape[d] as isize;
            idx[d] = 0;
        }
    }
}

/// The innermost axis: its length and stride (a 0-d layout: one element).
fn inner(layout: &Layout) -> (usize, isize) {
    match (layout.shape().last(), layout.strides().last()) {
        (Some(&n), Some(&s)) => (n, s),
        _ => (1, 1),
    }
}

/// Write the elements of the view `layout` of `src` into `dst` in C order
/// (`dst.len()` is the view's element count).
pub(crate) fn gather_into<T: Element>(src: &[T], layout: &Layout, dst: &mut [MaybeUninit<T>]) {
    let (n, s) = inner(layout);
    assert_eq!(dst.len(), layout.numel());
    for_each_row(layout, |r, start| {
        let out = &mut dst[r * n..(r + 1) * n];
        if s == 1 {
            for (d, v) in out.iter_mut().zip(&src[start..start + n]) {
                d.write(*v);
            }
        } else {
            let mut e = start as isize;
            for d in out {
                d.write(src[e as usize]);
                e += s;
            }
        }
    });
}

/// Write `src` (C order, shape `src_shape`, broadcast to the view's shape)
/// into the view `layout` of `dst`. The caller checked that `src_shape`
/// broadcasts to `layout.shape()`.
pub(crate) fn scatter<T: Element>(dst: &mut [T], layout: &Layout, src: &[T], src_shape: &[usize]) {
    let shape = layout.shape();
    let bs = broadcast_strides(src_shape, shape);
    let (n, s) = inner(layout);
    let src_inner = bs.last().copied().unwrap_or(0);
    let outer = shape.len().saturating_sub(1);
    let mut idx = vec![0usize; outer];
    for_each_row(layout, |_, start| {
        let base: usize = idx.iter().zip(&bs).map(|(i, st)| i * st).sum();
        let mut e = start as isize;
        for j in 0..n {
            dst[e as usize] = src[base + j * src_inner];
            e += s;
        }
        for d in (0..outer).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::layout::Index;

    #[test]
    fn gather_and_scatter_agree_with_element_order() {
        let src: Vec<i32> = (0..24).collect();
        let base = Layout::contiguous(&[2, 3, 4]);
        let v = base
            .indexed(&[
                Index::Slice {
                    start: None,
                    stop: None,
                    step: -1,
                },
                Index::Int(1),
                Index::Slice {
                    start: Some(3),
                    stop: None,
                    step: -2,
                },
            ])
            .unwrap();
        let mut want = vec![];
        v.for_each_index(|_, e| want.push(src[e]));
        let out = crate::kernels::fresh::gathered(&src, &v).unwrap();
        let got = out.as_slice::<i32>().to_vec();
        assert_eq!(got, want);
        assert_eq!(got, vec![19, 17, 7, 5]);

        let mut dst = src.clone();
        scatter(&mut dst, &v, &[100, 200], &[2]);
        assert_eq!((dst[19], dst[17], dst[7], dst[5]), (100, 200, 100, 200));
        assert_eq!(dst.iter().filter(|x| **x >= 100).count(), 4);
    }
}
