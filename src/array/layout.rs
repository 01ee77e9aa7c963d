//! [`Layout`]: where a tensor's elements sit in its buffer (shape, strides
//! in elements, offset), as candle's `Layout` and NumPy's array header.
//!
//! # Views and ownership
//!
//! A *view* is a tensor whose layout is not the plain C-order layout of
//! its whole buffer: `reshape` of a contiguous tensor, `permute`/`.T`,
//! basic slicing (`t[1:5, ::2]`, negative steps, `...`, `None`) and
//! integer indexing make one. A view is one more handle on its base's
//! buffer, so the ownership rules need nothing new:
//!
//! * neither the view nor its base is exclusive while the other lives, so
//!   an in-place op through either copies on write and the other keeps
//!   its values (value semantics: `v = t[0]; v += 1` leaves `t` as it
//!   was; that is where donate differs from NumPy, whose views write
//!   through);
//! * a buffer is *donated* (moved into a result) only from a tensor that
//!   is its only holder and [covers it whole](Layout::covers): a view of
//!   part of a buffer, or a strided one, is never claimed, and an explicit
//!   donation of one is answered with a copy and a reason;
//! * kernels read contiguous data ([`Layout::is_contiguous`], any offset);
//!   an operand that is not contiguous is copied into C order first
//!   (the plan lists each such copy), except where a kernel reads strides
//!   itself (matmul hands them to the GEMM).
//!
//! A layout is validated when it is made (from a buffer's length, or by an
//! operation on a valid layout), so every element it addresses lies inside
//! the buffer.

use smallvec::SmallVec;

use crate::array::shape::{dims, Dims};
use crate::error::{Error, Result};

/// Strides in elements (negative for reversed axes).
pub type Strides = SmallVec<[isize; 4]>;

/// Shape, strides (in elements) and offset (in elements) of a tensor in
/// its buffer. See the [module docs](self).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    shape: Dims,
    strides: Strides,
    offset: usize,
}

/// How a tensor covers its buffer, as planning sees an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Coverage {
    /// All of it, in C order: the buffer may receive a result.
    #[default]
    Whole,
    /// A contiguous part of it (a row, a leading slice): kernels read it
    /// as it is; its buffer never receives a result.
    Part,
    /// Rows of contiguous elements at a stride (a head split,
    /// `x.reshape(b, s, h, d).transpose(0, 2, 1, 3)`): the last axis has
    /// stride 1 and no stride is negative. Kernels that read rows
    /// (attention) take it as it is; the others as `Strided`.
    Rows,
    /// Strided (a transpose, a stepped slice): kernels that read
    /// contiguous data get a C-order copy first ([`Plan::gathers`](crate::plan::Plan::gathers)).
    Strided,
}

impl Coverage {
    /// Whole or part: the elements are contiguous.
    pub fn is_contiguous(self) -> bool {
        matches!(self, Coverage::Whole | Coverage::Part)
    }
}

/// One entry of a basic index (NumPy's basic indexing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Index {
    /// A single position (negative counts from the end); removes the axis.
    Int(i64),
    /// `start:stop:step` (Python's rules; `step` is never 0).
    Slice {
        start: Option<i64>,
        stop: Option<i64>,
        step: i64,
    },
    /// `None`: a new axis of length 1.
    NewAxis,
    /// `...`: as many full slices as needed.
    Ellipsis,
}

impl Index {
    /// Whether `index` selects one element of an `ndim`-dimensional
    /// tensor: an int for every axis (and no `...`, which keeps a 0-d
    /// view, as NumPy's `a[...]`). NumPy returns such an element as a
    /// scalar, a copy: donate returns a 0-d tensor of its own, so that
    /// `prev = v[3]; v[3] = 0` leaves `prev` as it was and
    /// `v[0], v[1] = v[1], v[0]` swaps.
    pub fn selects_element(index: &[Index], ndim: usize) -> bool {
        index.len() == ndim && index.iter().all(|i| matches!(i, Index::Int(_)))
    }
}

/// The C-order strides of `shape`.
fn c_strides(shape: &[usize]) -> Strides {
    let mut s: Strides = SmallVec::from_elem(0, shape.len());
    let mut acc = 1isize;
    for i in (0..shape.len()).rev() {
        s[i] = acc;
        acc = acc.saturating_mul(isize::try_from(shape[i]).unwrap_or(isize::MAX));
    }
    s
}

impl Layout {
    /// The C-order layout of `shape` at offset 0.
    pub fn contiguous(shape: &[usize]) -> Self {
        Layout {
            shape: dims(shape),
            strides: c_strides(shape),
            offset: 0,
        }
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    pub fn offset(&self) -> usize {
        self.offset
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The elements are in C order, one after another, from
    /// [`offset`](Self::offset) (strides of axes of length 1 do not matter).
    pub fn is_contiguous(&self) -> bool {
        if self.numel() == 0 {
            return true;
        }
        let mut want = 1isize;
        for (&d, &s) in self.shape.iter().zip(&self.strides).rev() {
            if d != 1 {
                if s != want {
                    return false;
                }
                want *= d as isize;
            }
        }
        true
    }

    /// The last axis has stride 1 (or at most one element) and no stride
    /// is negative: rows of contiguous elements at non-negative strides.
    pub fn has_unit_rows(&self) -> bool {
        let last_ok = match (self.shape.last(), self.strides.last()) {
            (Some(&n), Some(&s)) => n <= 1 || s == 1,
            _ => true,
        };
        last_ok && self.strides.iter().all(|&s| s >= 0)
    }

    /// Contiguous, at offset 0, and exactly `len` elements long: the
    /// tensor covers its whole buffer of `len` elements, so moving the
    /// buffer into a result loses nothing and exposes nothing.
    pub fn covers(&self, len: usize) -> bool {
        self.offset == 0 && self.numel() == len && self.is_contiguous()
    }

    /// How a tensor of this layout covers its buffer of `len` elements (the
    /// one definition the tensors and the traced programs share).
    pub fn coverage(&self, len: usize) -> Coverage {
        if self.covers(len) {
            Coverage::Whole
        } else if self.is_contiguous() {
            Coverage::Part
        } else if self.has_unit_rows() {
            Coverage::Rows
        } else {
            Coverage::Strided
        }
    }

    /// The contiguous range of elements, when [contiguous](Self::is_contiguous).
    pub fn contiguous_range(&self) -> Option<std::ops::Range<usize>> {
        self.is_contiguous()
            .then(|| self.offset..self.offset + self.numel())
    }

    /// The lowest and the highest element index addressed (signed: a
    /// layout built by hand may reach below 0); meaningless when empty.
    fn reach(&self) -> (isize, isize) {
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            let r = (d as isize - 1) * s;
            if r < 0 {
                lo += r;
            } else {
                hi += r;
            }
        }
        (lo, hi)
    }

    /// The lowest and one past the highest element index addressed
    /// (`offset..offset` when empty).
    pub fn span(&self) -> (usize, usize) {
        if self.numel() == 0 {
            return (self.offset, self.offset);
        }
        let (lo, hi) = self.reach();
        (lo.max(0) as usize, hi as usize + 1)
    }

    /// This layout, checked to lie inside a buffer of `len` elements.
    pub fn within(self, len: usize) -> Result<Self> {
        let (lo, hi) = self.reach();
        if self.numel() != 0 && (lo < 0 || hi >= len as isize) {
            return Err(Error::InvalidShape {
                op: "view",
                shape: self.shape.to_vec(),
                reason: format!("the view reaches outside a buffer of {len} elements"),
            });
        }
        Ok(self)
    }

    /// The C-order layout of `shape` read as `out` by NumPy's broadcasting:
    /// stride 0 along the axes it is repeated on (`shape` broadcasts to
    /// `out`: checked by the caller's shape rules; an incompatible pair
    /// is an error here too).
    pub fn broadcast(shape: &[usize], out: &[usize]) -> Result<Layout> {
        let c = crate::array::shape::c_strides(shape);
        crate::array::shape::check_broadcasts_to("broadcast", shape, out)?;
        let lead = out.len() - shape.len();
        let mut strides = Strides::from_elem(0, out.len());
        for (i, (&d, &s)) in shape.iter().zip(&c).enumerate() {
            let o = out[lead + i];
            if d == o {
                strides[lead + i] = isize::try_from(s).unwrap_or(isize::MAX);
            }
        }
        Layout {
            shape: dims(out),
            strides,
            offset: 0,
        }
        .within(shape.iter().product())
    }

    /// Axes permuted: output axis `i` is axis `axes[i]` (already
    /// normalised, a permutation).
    #[must_use]
    pub fn permuted(&self, axes: &[usize]) -> Layout {
        Layout {
            shape: axes.iter().map(|&a| self.shape[a]).collect(),
            strides: axes.iter().map(|&a| self.strides[a]).collect(),
            offset: self.offset,
        }
    }

    /// Another shape over the same elements, when this layout is
    /// contiguous (`None` otherwise: the caller copies).
    pub fn reshaped(&self, shape: &[usize]) -> Option<Layout> {
        self.is_contiguous().then(|| Layout {
            shape: dims(shape),
            strides: c_strides(shape),
            offset: self.offset,
        })
    }

    /// The view selected by a basic index (NumPy's rules).
    pub fn indexed(&self, index: &[Index]) -> Result<Layout> {
        let ellipses = index.iter().filter(|i| **i == Index::Ellipsis).count();
        if ellipses > 1 {
            return Err(Error::InvalidIndex {
                reason: "an index can only have a single ellipsis ('...')".into(),
            });
        }
        let used = index
            .iter()
            .filter(|i| matches!(i, Index::Int(_) | Index::Slice { .. }))
            .count();
        if used > self.ndim() {
            return Err(Error::InvalidIndex {
                reason: format!(
                    "too many indices: the tensor is {}-dimensional, but {used} were indexed",
                    self.ndim()
                ),
            });
        }
        let full = Index::Slice {
            start: None,
            stop: None,
            step: 1,
        };
        let mut entries: Vec<Index> = Vec::with_capacity(self.ndim() + index.len());
        for &i in index {
            if i == Index::Ellipsis {
                entries.extend(std::iter::repeat_n(full, self.ndim() - used));
            } else {
                entries.push(i);
            }
        }
        if ellipses == 0 {
            entries.extend(std::iter::repeat_n(full, self.ndim() - used));
        }
        let mut out = Layout {
            shape: Dims::new(),
            strides: Strides::new(),
            offset: self.offset,
        };
        let mut off = self.offset as isize;
        let mut axis = 0;
        for e in entries {
            match e {
                Index::NewAxis => {
                    out.shape.push(1);
                    out.strides.push(0);
                }
                Index::Ellipsis => unreachable!("expanded above"),
                Index::Int(i) => {
                    let d = self.shape[axis];
                    let j = if i < 0 { i + d as i64 } else { i };
                    if j < 0 || j >= d as i64 {
                        return Err(Error::IndexOutOfRange {
                            index: i,
                            axis,
                            size: d,
                        });
                    }
                    off += j as isize * self.strides[axis];
                    axis += 1;
                }
                Index::Slice { start, stop, step } => {
                    let d = self.shape[axis];
                    let (first, len) = slice_range(start, stop, step, d)?;
                    if len > 0 {
                        off += first as isize * self.strides[axis];
                    }
                    out.shape.push(len);
                    // An axis of one element (or none) never steps, and
                    // `stride * step` of a huge step (`x[::2**63 - 1]`)
                    // would overflow; over two or more elements it is at
                    // most the distance the view spans, which fits.
                    out.strides.push(if len <= 1 {
                        self.strides[axis]
                    } else {
                        self.strides[axis]
                            .checked_mul(step as isize)
                            .ok_or_else(|| Error::InvalidIndex {
                                reason: format!("the slice step {step} overflows the stride"),
                            })?
                    });
                    axis += 1;
                }
            }
        }
        out.offset = if out.shape.contains(&0) {
            self.offset
        } else {
            usize::try_from(off).map_err(|_| Error::InvalidIndex {
                reason: "the index leaves the buffer".into(),
            })?
        };
        Ok(out)
    }

    /// The element index of every position, in C order, calling
    /// `f(position in C order, element index)`.
    pub fn for_each_index(&self, mut f: impl FnMut(usize, usize)) {
        let n = self.numel();
        if n == 0 {
            return;
        }
        let nd = self.ndim();
        let mut idx = vec![0usize; nd];
        let mut cur = self.offset as isize;
        for pos in 0..n {
            f(pos, cur as usize);
            for d in (0..nd).rev() {
                idx[d] += 1;
                cur += self.strides[d];
                if idx[d] < self.shape[d] {
                    break;
                }
                cur -= self.strides[d] * self.shape[d] as isize;
                idx[d] = 0;
            }
        }
    }
}

/// The first position and the length of `start:stop:step` on an axis of
/// length `d` (Python's `slice.indices`).
fn slice_range(
    first: Option<i64>,
    end: Option<i64>,
    by: i64,
    len: usize,
) -> Result<(usize, usize)> {
    if by == 0 {
        // A bad value of the key, not a position out of range: Python's
        // and NumPy's `ValueError`.
        return Err(Error::InvalidArgument {
            op: "slice",
            reason: "step cannot be zero".into(),
        });
    }
    // In 128 bits: every bound and step of 64 bits, and their
    // differences, fit (Python's arithmetic has no overflow either).
    let (d, by) = (len as i128, i128::from(by));
    let clamp = |v: Option<i64>, default: i128, lo: i128, hi: i128| match v.map(i128::from) {
        None => default,
        Some(v) if v < 0 => (v + d).max(lo),
        Some(v) => v.min(hi),
    };
    let (start, count) = if by > 0 {
        let a = clamp(first, 0, 0, d);
        let b = clamp(end, d, 0, d);
        (a, if b > a { (b - a - 1) / by + 1 } else { 0 })
    } else {
        let a = clamp(first, d - 1, -1, d - 1);
        let b = clamp(end, -1, -1, d - 1);
        (a, if a > b { (a - b - 1) / -by + 1 } else { 0 })
    };
    // Both lie in 0..=len.
    Ok((start.max(0) as usize, count as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(start: Option<i64>, end: Option<i64>, by: i64) -> Index {
        Index::Slice {
            start,
            stop: end,
            step: by,
        }
    }

    type Case = (Option<i64>, Option<i64>, i64, &'static [usize]);

    #[test]
    fn slices_follow_python() {
        // Python: list(range(10))[a:b:c] for a handful of cases.
        let cases: &[Case] = &[
            (None, None, 1, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
            (Some(1), Some(5), 1, &[1, 2, 3, 4]),
            (None, None, -1, &[9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
            (Some(-3), None, 1, &[7, 8, 9]),
            (Some(8), Some(2), -2, &[8, 6, 4]),
            (None, None, 3, &[0, 3, 6, 9]),
            (Some(20), None, 1, &[]),
            (Some(5), Some(5), 1, &[]),
            (Some(-20), Some(3), 1, &[0, 1, 2]),
            (None, Some(-20), -1, &[9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
            (Some(2), None, -1, &[2, 1, 0]),
            // Steps and bounds at the ends of 64 bits (Python has no
            // overflow: one element, or the clamped range).
            (None, None, i64::MAX, &[0]),
            (None, None, -i64::MAX, &[9]),
            (None, None, i64::MIN, &[9]),
            (Some(i64::MIN), Some(i64::MAX), 3, &[0, 3, 6, 9]),
            (Some(i64::MAX), Some(i64::MIN), -4, &[9, 5, 1]),
            (Some(1), None, i64::MAX - 1, &[1]),
        ];
        let base = Layout::contiguous(&[10]);
        for &(a, b, c, want) in cases {
            let v = base.indexed(&[s(a, b, c)]).unwrap();
            let mut got = vec![];
            v.for_each_index(|_, e| got.push(e));
            assert_eq!(got, want, "{a:?}:{b:?}:{c}");
        }
    }

    #[test]
    fn index_transpose_and_contiguity() {
        let t = Layout::contiguous(&[2, 3, 4]);
        assert!(t.covers(24));
        let row = t.indexed(&[Index::Int(1)]).unwrap();
        assert_eq!((row.shape(), row.offset()), (&[3usize, 4][..], 12));
        assert!(row.is_contiguous() && !row.covers(24));
        let col = t.indexed(&[Index::Ellipsis, Index::Int(-1)]).unwrap();
        assert_eq!(col.shape(), &[2, 3]);
        assert!(!col.is_contiguous());
        let tr = t.permuted(&[2, 1, 0]);
        assert_eq!(tr.strides(), &[1, 4, 12]);
        assert!(!tr.is_contiguous() && tr.reshaped(&[24]).is_none());
        let na = t
            .indexed(&[Index::NewAxis, Index::Int(0), Index::NewAxis])
            .unwrap();
        assert_eq!(na.shape(), &[1, 1, 3, 4]);
        assert!(na.is_contiguous());
        assert!(t.indexed(&[Index::Int(2)]).is_err());
        assert!(t
            .indexed(&[Index::Int(0), Index::Int(0), Index::Int(0), Index::Int(0)])
            .is_err());
        assert!(t.indexed(&[Index::Ellipsis, Index::Ellipsis]).is_err());
        assert!(t.indexed(&[s(None, None, 0)]).is_err());
    }

    #[test]
    fn spans_stay_inside() {
        let t = Layout::contiguous(&[4, 5]);
        let r = t
            .indexed(&[s(None, None, -1), s(Some(4), None, -2)])
            .unwrap();
        let (lo, hi) = r.span();
        let mut seen = vec![];
        r.for_each_index(|_, e| seen.push(e));
        assert!(seen.iter().all(|e| (lo..hi).contains(e)));
        assert_eq!(seen[0], 19);
        assert!(r.clone().within(20).is_ok());
        assert!(r.within(19).is_err());
    }
}
