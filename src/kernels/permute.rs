//! Axis permutation (transpose) into a fresh buffer.
//!
//! The output is written in C order; the input is read through its strides
//! permuted into the output's axis order. The two innermost output axes are
//! walked in tiles so that a 2-d transpose touches each cache line of the
//! input a bounded number of times instead of once per element.

use std::mem::MaybeUninit;

use crate::array::element::Element;
use crate::array::shape::c_strides;

/// Tile edge for the inner 2-d block (elements).
const TILE: usize = 32;

/// Write `src` (C-contiguous, shape `shape`) permuted by `axes` into `dst`
/// (C-contiguous, shape `shape[axes[i]]`). `axes` must be a permutation of
/// `0..shape.len()` and `dst.len()` the element count; the caller checks.
pub(super) fn permute_into<T: Element>(
    src: &[T],
    shape: &[usize],
    axes: &[usize],
    dst: &mut [MaybeUninit<T>],
) {
    let n = dst.len();
    if n == 0 {
        return;
    }
    let in_strides = c_strides(shape);
    let out_shape: Vec<usize> = axes.iter().map(|&a| shape[a]).collect();
    let strides: Vec<usize> = axes.iter().map(|&a| in_strides[a]).collect();
    let nd = out_shape.len();
    if nd < 2 {
        for (d, s) in dst.iter_mut().zip(src) {
            d.write(*s);
        }
        return;
    }
    // Outer axes: every axis but the last two; each outer index addresses a
    // rows×cols block of the output.
    let (rows, cols) = (out_shape[nd - 2], out_shape[nd - 1]);
    let (rs, cs) = (strides[nd - 2], strides[nd - 1]);
    let outer_shape = &out_shape[..nd - 2];
    let outer_strides = &strides[..nd - 2];
    let mut idx = vec![0usize; outer_shape.len()];
    let block = rows * cols;
    for out_block in dst.chunks_mut(block) {
        let base: usize = idx.iter().zip(outer_strides).map(|(i, s)| i * s).sum();
        for r0 in (0..rows).step_by(TILE) {
            for c0 in (0..cols).step_by(TILE) {
                for r in r0..(r0 + TILE).min(rows) {
                    let row_in = base + r * rs;
                    let row_out = &mut out_block[r * cols..(r + 1) * cols];
                    for c in c0..(c0 + TILE).min(cols) {
                        row_out[c].write(src[row_in + c * cs]);
                    }
                }
            }
        }
        // Next outer index, last axis fastest.
        for k in (0..idx.len()).rev() {
            idx[k] += 1;
            if idx[k] < outer_shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}
