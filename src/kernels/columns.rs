//! Blocks of neighbouring columns of a C-order matrix, each written by one
//! thread.
//!
//! A transform along an inner axis (an `fft` along axis 0 of an image)
//! computes its result a few columns at a time: each column is one line
//! along the axis, and a block of neighbouring columns is read and written
//! a row at a time, a contiguous run per row. The columns of one matrix
//! are not a contiguous part of it, so `chunks_mut` cannot hand them to
//! threads; [`blocks`] does, as [`ColumnBlock`]s.
//!
//! # Rationale
//!
//! The blocks of one matrix cover disjoint column ranges, so no element is
//! reachable from two of them; a block lends out one row at a time
//! ([`ColumnBlock::row`] borrows the block mutably), so no two slices of
//! it exist at once. That is the whole of the safety argument, the one
//! `ndarray` makes for splitting a view along an axis.

use std::marker::PhantomData;
use std::mem::MaybeUninit;

use crate::array::element::Element;

/// Columns `start .. start + width` of a matrix of `rows` by `cols`
/// (C order), borrowed mutably from the matrix for `'a`.
pub(crate) struct ColumnBlock<'a, T> {
    ptr: *mut T,
    rows: usize,
    cols: usize,
    start: usize,
    width: usize,
    _matrix: PhantomData<&'a mut [T]>,
}

// SAFETY: a block is a unique borrow of its elements (see the module
// docs: no other block or slice reaches them), so moving it to another
// thread is moving a `&mut` of them, which is `Send` when `T` is.
unsafe impl<T: Send> Send for ColumnBlock<'_, T> {}

impl<T> ColumnBlock<'_, T> {
    /// The first column of the block within its matrix.
    pub(crate) fn start(&self) -> usize {
        self.start
    }

    /// How many columns the block has.
    pub(crate) fn width(&self) -> usize {
        self.width
    }

    /// Row `r` of the block: its `width` elements.
    ///
    /// # Panics
    /// If `r` is not below the matrix's row count.
    pub(crate) fn row(&mut self, r: usize) -> &mut [T] {
        assert!(r < self.rows, "row {r} of a block of {} rows", self.rows);
        // SAFETY: `r * cols + start + width <= rows * cols`, the length of
        // the matrix the block was made from ([`blocks`]), so the run is
        // inside it; no other block reaches columns `start .. start +
        // width`, and `&mut self` makes this the block's only live slice.
        unsafe {
            std::slice::from_raw_parts_mut(self.ptr.add(r * self.cols + self.start), self.width)
        }
    }
}

impl<'a, T: Element> ColumnBlock<'a, MaybeUninit<T>> {
    /// The block with every element set to zero, as initialised elements.
    pub(crate) fn zeroed(mut self) -> ColumnBlock<'a, T> {
        for r in 0..self.rows {
            for d in self.row(r) {
                d.write(T::ZERO);
            }
        }
        ColumnBlock {
            ptr: self.ptr.cast::<T>(),
            rows: self.rows,
            cols: self.cols,
            start: self.start,
            width: self.width,
            _matrix: PhantomData,
        }
    }
}

/// `matrix` (`cols` columns, C order) as blocks of `width` neighbouring
/// columns, left to right (the last may be narrower).
///
/// # Panics
/// If `matrix` is not a whole number of rows, or `width` is 0 while
/// `cols` is not.
pub(crate) fn blocks<T>(matrix: &mut [T], cols: usize, width: usize) -> Vec<ColumnBlock<'_, T>> {
    if cols == 0 {
        return Vec::new();
    }
    assert!(
        matrix.len().is_multiple_of(cols) && width > 0,
        "a whole matrix, a width"
    );
    let rows = matrix.len() / cols;
    let ptr = matrix.as_mut_ptr();
    (0..cols)
        .step_by(width)
        .map(|start| ColumnBlock {
            ptr,
            rows,
            cols,
            start,
            width: width.min(cols - start),
            _matrix: PhantomData,
        })
        .collect()
}

/// Every slab of `slab` elements of `m` (each `cols` columns, C order) as
/// blocks of `width` columns ([`blocks`]), each with its slab's index.
pub(crate) fn slab_blocks<T>(
    m: &mut [T],
    slab: usize,
    cols: usize,
    width: usize,
) -> Vec<(usize, ColumnBlock<'_, T>)> {
    if slab == 0 {
        return Vec::new();
    }
    m.chunks_exact_mut(slab)
        .enumerate()
        .flat_map(|(s, m)| blocks(m, cols, width).into_iter().map(move |b| (s, b)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_every_element_once() {
        let mut m = vec![0_u32; 5 * 7];
        let mut blocks = blocks(&mut m, 7, 3);
        assert_eq!(
            blocks.iter().map(ColumnBlock::start).collect::<Vec<_>>(),
            [0, 3, 6]
        );
        for b in &mut blocks {
            for r in 0..5 {
                let start = b.start();
                for (j, v) in b.row(r).iter_mut().enumerate() {
                    *v += (r * 7 + start + j) as u32 + 1;
                }
            }
        }
        drop(blocks);
        assert_eq!(m, (1..=35).collect::<Vec<u32>>());
    }

    #[test]
    fn zeroed_blocks_are_initialised() {
        let mut m = vec![MaybeUninit::<f64>::uninit(); 4 * 2];
        for b in blocks(&mut m, 2, 1) {
            let mut b = b.zeroed();
            b.row(3)[0] = 1.0;
        }
        // SAFETY: the two blocks of one column each cover the matrix.
        let m: Vec<f64> = m.into_iter().map(|v| unsafe { v.assume_init() }).collect();
        assert_eq!(m, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]);
    }

    #[test]
    #[should_panic(expected = "row 4")]
    fn rows_past_the_end_panic() {
        let mut m = [0_u8; 8];
        blocks(&mut m, 2, 2)[0].row(4);
    }
}
