//! Operations whose result has their input's shape and is computed along
//! an axis (or matrix by matrix) from the input's own elements, so the
//! result can be written over the input: `sort`, `cumulative_sum` and
//! `cumulative_prod` (and the running maximum and minimum), `roll`,
//! `tril` and `triu`.
//!
//! Decided here, once, for every front end:
//!
//! * each op's validation and its result's dtype and shape
//!   ([`LaneOp::signature`], which the planner asks for `Op::Lane`);
//! * the kernel that turns a C-order buffer holding the input (already in
//!   the result's dtype) into the result, in place ([`LaneOp::apply`]).
//!
//! Whose buffer that is, is the planner's decision ([`crate::plan`]): a
//! temporary or donated input of the result's dtype gives its own (so
//! `donate.sort(a + b)` allocates only for the sum), a named input is copied
//! first, a strided view or an input of another dtype is copied or cast
//! into the op's own buffer, which then receives the result.
//!
//! The `*_like` functions ([`LaneOp::Fill`]) belong here too: their
//! result has their input's shape, so a temporary or donated input of the
//! result's dtype gives its buffer (`zeros_like(g.donate())` zeroes `g`'s
//! buffer). They never read the input's values, so the planner neither
//! casts nor gathers it.
//!
//! The one result of another shape: a running operation with
//! `include_initial` is one longer along its axis, so it always writes a
//! new buffer ([`crate::functions::cumulative::with_initial`]).
//!
//! This module depends on no planning: the planner's `Op::Lane` holds a
//! [`LaneOp`], and [`LaneOp::run`] is the form without an offer (a new
//! buffer, the input only read).

use crate::array::dyn_tensor::{
    check_scalar, for_any_dtype, for_dtype, AnyElement, DynElement, DynTensor, Scalar,
};
use crate::array::element::{DType, Element};
use crate::array::shape::normalize_axis;
use crate::error::{Error, Result};
use crate::functions::cumulative::{
    no_initial, running_axis, scan_rows, scan_rows_any, with_initial, Running,
};
use crate::functions::lanes::each_lane_mut;
use crate::functions::sorting::order;
use crate::functions::statistics::accumulation_dtype;

/// One of the operations of this module, with its parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum LaneOp {
    /// Stable sort along `axis`, NaN last ([`order`]); `descending`
    /// reverses the order, equal elements still first-come first.
    Sort { axis: isize, descending: bool },
    /// The running sum or product along `axis` (`None`: a 1-d input's
    /// only axis), in [`accumulation_dtype`] of the input and `dtype`;
    /// the running maximum or minimum in `dtype` or the input's.
    Running {
        running: Running,
        axis: Option<isize>,
        dtype: Option<DType>,
        include_initial: bool,
    },
    /// Elements shifted along each of `axes` by its shift, wrapping
    /// (one shift for every axis, or one each); `axes` empty: over the
    /// flattened tensor, with one shift.
    Roll { shifts: Vec<i64>, axes: Vec<isize> },
    /// The lower (`upper` false: `tril`) or upper (`triu`) triangle of the
    /// last two axes from the `k`th diagonal, zeros elsewhere.
    Triangle { k: i64, upper: bool },
    /// `name` (`zeros_like`, `ones_like`, `empty_like`, `full_like`):
    /// `value` everywhere, in `dtype` (`None`: the input's); the input's
    /// values are not read. (`empty_like` fills zeros: its values are
    /// unspecified, and zeros never show a reused buffer's old contents.)
    Fill {
        name: &'static str,
        value: Scalar,
        dtype: Option<DType>,
    },
}

impl LaneOp {
    /// The array API's name.
    pub fn name(&self) -> &'static str {
        match self {
            LaneOp::Sort { .. } => "sort",
            LaneOp::Running { running, .. } => running.name(),
            LaneOp::Roll { .. } => "roll",
            LaneOp::Triangle { upper: false, .. } => "tril",
            LaneOp::Triangle { upper: true, .. } => "triu",
            LaneOp::Fill { name, .. } => name,
        }
    }

    /// Validate the op over an input of `dtype` and `shape`, and give its
    /// result's dtype and shape.
    ///
    /// # Errors
    /// `InvalidAxis` for an axis out of range; `InvalidArgument` for a
    /// running op without an axis over several axes (or over a 0-d
    /// input), shifts that do not match the axes, or a triangle of fewer
    /// than two axes.
    pub fn signature(&self, dtype: DType, shape: &[usize]) -> Result<(DType, Vec<usize>)> {
        let op = self.name();
        let invalid = |reason: String| Error::InvalidArgument { op, reason };
        match self {
            LaneOp::Sort { axis, .. } => {
                normalize_axis(*axis, shape.len())?;
            }
            LaneOp::Running {
                running,
                axis,
                dtype: asked,
                include_initial,
            } => {
                let ax = running_axis(op, shape, *axis)?;
                if *include_initial && running.keeps_dtype() {
                    return Err(no_initial(*running));
                }
                let mut out = shape.to_vec();
                out[ax] += usize::from(*include_initial);
                let d = if running.keeps_dtype() {
                    asked.unwrap_or(dtype)
                } else {
                    accumulation_dtype(dtype, *asked)
                };
                return Ok((d, out));
            }
            LaneOp::Roll { shifts, axes } => {
                // Shifts and axes broadcast together, as NumPy's: one
                // shift for every axis, or several along one axis (they
                // add up, as they do without axes: the flattened tensor).
                if shifts.is_empty()
                    || (shifts.len() != axes.len() && shifts.len() > 1 && axes.len() > 1)
                {
                    return Err(invalid(format!(
                        "{} shifts for {} axes (the counts must be equal, or one of them 1)",
                        shifts.len(),
                        axes.len()
                    )));
                }
                for &a in axes {
                    normalize_axis(a, shape.len())?;
                }
            }
            LaneOp::Triangle { .. } => {
                if shape.len() < 2 {
                    return Err(invalid(format!(
                        "needs at least 2 dimensions, got {}",
                        shape.len()
                    )));
                }
            }
            LaneOp::Fill {
                value,
                dtype: asked,
                ..
            } => {
                let d = asked.unwrap_or(dtype);
                check_scalar(op, *value, d)?;
                return Ok((d, shape.to_vec()));
            }
        }
        Ok((dtype, shape.to_vec()))
    }

    /// Rewrite `data`, a C-order buffer of `shape` holding the input in
    /// the result's dtype (for `Fill`, any values), into the result. The op must keep the shape
    /// ([`signature`](Self::signature) validated it).
    ///
    /// # Errors
    /// `InvalidArgument` for a running op with `include_initial` (its
    /// result is longer), `InvalidAxis` for an axis out of range.
    pub fn apply<T: DynElement>(&self, data: &mut [T], shape: &[usize]) -> Result<()> {
        match self {
            LaneOp::Sort { axis, descending } => {
                let axis = normalize_axis(*axis, shape.len())?;
                if *descending {
                    each_lane_mut(data, shape, axis, |lane| lane.sort_by(|a, b| order(*b, *a)));
                } else {
                    each_lane_mut(data, shape, axis, |lane| lane.sort_by(|a, b| order(*a, *b)));
                }
            }
            LaneOp::Running {
                running,
                axis,
                include_initial: false,
                ..
            } => {
                self.each_run(data, shape, *axis, |block, inner| {
                    scan_rows(block, inner, *running);
                    Ok(())
                })?;
            }
            LaneOp::Running { .. } => {
                return Err(Error::InvalidArgument {
                    op: self.name(),
                    reason: "with include_initial the result is longer than the input".into(),
                });
            }
            LaneOp::Roll { .. } | LaneOp::Triangle { .. } | LaneOp::Fill { .. } => {
                self.apply_moves(data, shape)?;
            }
        }
        Ok(())
    }

    /// Does the op only move elements or write a constant (`roll`, the
    /// triangles, the fills)? Those take every dtype, the complex ones
    /// too; the others order or accumulate elements.
    pub fn moves_elements(&self) -> bool {
        matches!(
            self,
            LaneOp::Roll { .. } | LaneOp::Triangle { .. } | LaneOp::Fill { .. }
        )
    }

    /// Whether it runs over every element type, the complex ones too: the
    /// ops that only move elements, and running sums and products.
    pub fn takes_any_element(&self) -> bool {
        match self {
            LaneOp::Running { running, .. } => running.takes_any_element(),
            _ => self.moves_elements(),
        }
    }

    /// [`apply`](Self::apply) of an op that
    /// [`takes_any_element`](Self::takes_any_element), for any element
    /// type.
    ///
    /// # Errors
    /// As [`apply`](Self::apply); `InvalidArgument` for another op.
    pub fn apply_any<T: Element>(&self, data: &mut [T], shape: &[usize]) -> Result<()> {
        match self {
            LaneOp::Running {
                running,
                axis,
                include_initial: false,
                ..
            } => self.each_run(data, shape, *axis, |block, inner| {
                scan_rows_any(block, inner, *running)
            }),
            _ => self.apply_moves(data, shape),
        }
    }

    /// `scan` over each run along `axis` of a running op (a block of
    /// `len` rows of `inner` elements, with `inner`).
    fn each_run<T>(
        &self,
        data: &mut [T],
        shape: &[usize],
        axis: Option<isize>,
        mut scan: impl FnMut(&mut [T], usize) -> Result<()>,
    ) -> Result<()> {
        let axis = running_axis(self.name(), shape, axis)?;
        let (len, inner) = (shape[axis], shape[axis + 1..].iter().product::<usize>());
        if len * inner > 0 {
            for block in data.chunks_exact_mut(len * inner) {
                scan(block, inner)?;
            }
        }
        Ok(())
    }

    /// [`apply`](Self::apply) of an op that
    /// [`moves_elements`](Self::moves_elements), for any element type.
    ///
    /// # Errors
    /// As [`apply`](Self::apply); `InvalidArgument` for an op that does
    /// not only move elements.
    pub fn apply_moves<T: Element>(&self, data: &mut [T], shape: &[usize]) -> Result<()> {
        match self {
            LaneOp::Roll { shifts, axes } => roll(data, shape, shifts, axes)?,
            LaneOp::Triangle { k, upper } => triangle(data, shape, *k, *upper),
            LaneOp::Fill { value, .. } => data.fill(crate::array::dyn_tensor::number(*value)),
            LaneOp::Sort { .. } | LaneOp::Running { .. } => {
                return Err(Error::InvalidArgument {
                    op: self.name(),
                    reason: "orders or accumulates elements: not a move".into(),
                })
            }
        }
        Ok(())
    }

    /// The op over `x`, which it only reads, into a new tensor: `x` cast
    /// to the result's dtype or copied, then [`apply`](Self::apply)
    /// (the typed front end's form; the planner runs the same kernel over
    /// the buffer it chose, `Op::Lane`).
    ///
    /// # Errors
    /// As [`signature`](Self::signature); `AlreadyDonated` for a
    /// moved-from `x`.
    pub fn run(&self, x: &DynTensor) -> Result<DynTensor> {
        let name = self.name();
        let (dtype, shape) = self.signature(x.dtype(), x.shape())?;
        x.check_readable()?;
        if let LaneOp::Fill { value, .. } = self {
            return DynTensor::full(dtype, &shape, *value);
        }
        let mut out = if x.dtype() == dtype {
            x.deep_copy()?
        } else {
            x.cast(dtype)?
        };
        if let LaneOp::Running { running, axis, .. } = self {
            if shape[..] != *x.shape() {
                return for_any_dtype!(dtype, T => {
                    with_initial(out.typed::<T>(name)?, *running, *axis).map(T::wrap)
                });
            }
        }
        let not_writable = || Error::InvalidArgument {
            op: name,
            reason: "a new copy is not writable".into(),
        };
        if self.takes_any_element() {
            for_any_dtype!(dtype, T => {
                let data = out.typed_mut::<T>(name)?.data_mut().ok_or_else(not_writable)?;
                self.apply_any(data, &shape)?;
            });
            return Ok(out);
        }
        for_dtype!(dtype, T => {
            let data = out.typed_mut::<T>(name)?.data_mut().ok_or_else(not_writable)?;
            self.apply(data, &shape)?;
        });
        Ok(out)
    }
}

/// `k` positions of a cyclic shift by `shift` over `len` elements.
fn rotation(shift: i64, len: usize) -> usize {
    match i64::try_from(len) {
        Ok(n) if n > 0 => usize::try_from(shift.rem_euclid(n)).unwrap_or(0),
        _ => 0,
    }
}

/// Roll in place: along an axis, each block of the axes before it is a
/// run of rows (the axes after it), rotated as a whole.
fn roll<T: Element>(data: &mut [T], shape: &[usize], shifts: &[i64], axes: &[isize]) -> Result<()> {
    if axes.is_empty() {
        // (The shifts add up, modulo the length so that they cannot
        // overflow.)
        let n = i64::try_from(data.len()).unwrap_or(i64::MAX).max(1);
        let total = shifts.iter().fold(0i64, |t, &s| (t + s.rem_euclid(n)) % n);
        data.rotate_right(rotation(total, data.len()));
        return Ok(());
    }
    let pairs = shifts.len().max(axes.len());
    for i in 0..pairs {
        let a = axes[if axes.len() == 1 { 0 } else { i }];
        let shift = shifts[if shifts.len() == 1 { 0 } else { i }];
        let ax = normalize_axis(a, shape.len())?;
        let (len, inner) = (shape[ax], shape[ax + 1..].iter().product::<usize>());
        let k = rotation(shift, len);
        if k == 0 || len * inner == 0 {
            continue;
        }
        for block in data.chunks_exact_mut(len * inner) {
            block.rotate_right(k * inner);
        }
    }
    Ok(())
}

/// Zero the elements outside the triangle, matrix by matrix.
fn triangle<T: Element>(data: &mut [T], shape: &[usize], k: i64, upper: bool) {
    let (r, c) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    if r * c == 0 {
        return;
    }
    for m in data.chunks_exact_mut(r * c) {
        for (i, row) in m.chunks_exact_mut(c).enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                let d = j as i64 - i as i64;
                let keep = if upper { d >= k } else { d <= k };
                if !keep {
                    *v = T::ZERO;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::tensor::Tensor;

    fn applied<T: DynElement>(op: &LaneOp, mut v: Vec<T>, shape: &[usize]) -> Vec<T> {
        op.apply(&mut v, shape).unwrap();
        v
    }

    #[test]
    fn sorts_in_place_along_any_axis_stably() {
        let asc = LaneOp::Sort {
            axis: 0,
            descending: false,
        };
        assert_eq!(
            applied(&asc, vec![3, 1, 2, 0, 5, 4], &[3, 2]),
            vec![2, 0, 3, 1, 5, 4]
        );
        let desc = LaneOp::Sort {
            axis: -1,
            descending: true,
        };
        let v = applied(&desc, vec![1.0, f64::NAN, 2.0, -0.0, 0.0], &[5]);
        assert!(v[0].is_nan());
        assert_eq!(&v[1..3], &[2.0, 1.0]);
        // -0.0 and 0.0 are equal: the first-come keeps its place.
        assert!(v[3].is_sign_negative() && v[4].is_sign_positive());
        assert!(matches!(
            asc.signature(DType::F32, &[]),
            Err(Error::InvalidAxis { .. })
        ));
    }

    #[test]
    fn running_ops_scan_rows_in_place() {
        let op = LaneOp::Running {
            running: Running::Sum,
            axis: Some(0),
            dtype: None,
            include_initial: false,
        };
        assert_eq!(
            applied(&op, vec![1_i64, 2, 3, 4, 5, 6], &[3, 2]),
            vec![1, 2, 4, 6, 9, 12]
        );
        assert_eq!(
            op.signature(DType::I8, &[3, 2]).unwrap(),
            (DType::I64, vec![3, 2])
        );
        let longer = LaneOp::Running {
            running: Running::Prod,
            axis: Some(1),
            dtype: Some(DType::F32),
            include_initial: true,
        };
        assert_eq!(
            longer.signature(DType::I8, &[3, 2]).unwrap(),
            (DType::F32, vec![3, 3])
        );
        assert!(longer.apply(&mut [1.0_f32; 6], &[3, 2]).is_err());
        let no_axis = LaneOp::Running {
            running: Running::Sum,
            axis: None,
            dtype: None,
            include_initial: false,
        };
        assert!(no_axis.signature(DType::F32, &[2, 2]).is_err());
    }

    #[test]
    fn running_extremes_keep_the_dtype_propagate_nan_and_take_the_later_tie() {
        let max = |axis| LaneOp::Running {
            running: Running::Max,
            axis: Some(axis),
            dtype: None,
            include_initial: false,
        };
        let min = LaneOp::Running {
            running: Running::Min,
            axis: Some(0),
            dtype: None,
            include_initial: false,
        };
        assert_eq!(
            max(1).signature(DType::I8, &[2, 3]).unwrap(),
            (DType::I8, vec![2, 3])
        );
        assert_eq!(
            applied(&max(1), vec![3_i8, 1, 4, -1, -5, 9], &[2, 3]),
            vec![3, 3, 4, -1, -1, 9]
        );
        assert_eq!(applied(&min, vec![3_u16, 1, 4, 0], &[4]), vec![3, 1, 1, 0]);
        assert_eq!(
            applied(&max(0), vec![false, true, false], &[3]),
            vec![false, true, true]
        );
        let v = applied(&max(0), vec![1.0_f64, f64::NAN, 3.0], &[3]);
        assert!(v[0].to_bits() == 1.0_f64.to_bits() && v[1].is_nan() && v[2].is_nan());
        let z = applied(&min, vec![0.0_f32, -0.0, 0.0], &[3]);
        let signs: Vec<bool> = z.iter().map(|x| x.is_sign_negative()).collect();
        assert_eq!(signs, [false, true, false]);
        let initial = LaneOp::Running {
            running: Running::Max,
            axis: Some(0),
            dtype: None,
            include_initial: true,
        };
        assert!(matches!(
            initial.signature(DType::F32, &[3]),
            Err(Error::InvalidArgument { .. })
        ));
    }

    fn values<T: DynElement>(t: &DynTensor) -> Vec<T> {
        t.typed::<T>("t").unwrap().to_vec().unwrap()
    }

    #[test]
    fn run_reads_its_input_and_writes_a_new_tensor() {
        let x: DynTensor = Tensor::<f64>::from_vec(vec![2.0, f64::NAN, -1.0, 2.0, 0.5], &[5])
            .unwrap()
            .into();
        let s = LaneOp::Sort {
            axis: 0,
            descending: false,
        }
        .run(&x)
        .unwrap();
        let v = values::<f64>(&s);
        assert_eq!(&v[..4], &[-1.0, 0.5, 2.0, 2.0]);
        assert!(v[4].is_nan());
        assert!(values::<f64>(&x)[1].is_nan() && values::<f64>(&x)[..1] == [2.0]);
        let u: DynTensor = Tensor::<u8>::from_vec(vec![3, 1, 2, 0], &[2, 2])
            .unwrap()
            .into();
        assert_eq!(
            values::<u8>(
                &LaneOp::Sort {
                    axis: 0,
                    descending: false
                }
                .run(&u)
                .unwrap()
            ),
            vec![2, 0, 3, 1]
        );
        assert!(LaneOp::Sort {
            axis: 2,
            descending: false
        }
        .run(&u)
        .is_err());

        let i: DynTensor = Tensor::<i8>::from_vec(vec![1, 2, 3, 4, 5, 6], &[2, 3])
            .unwrap()
            .into();
        let sum = LaneOp::Running {
            running: Running::Sum,
            axis: Some(1),
            dtype: None,
            include_initial: false,
        };
        let r = sum.run(&i).unwrap();
        assert_eq!(r.dtype(), DType::I64);
        assert_eq!(values::<i64>(&r), vec![1, 3, 6, 4, 9, 15]);
        let prod = LaneOp::Running {
            running: Running::Prod,
            axis: Some(0),
            dtype: Some(DType::I8),
            include_initial: true,
        };
        let p = prod.run(&i).unwrap();
        assert_eq!(p.shape(), &[3, 3]);
        assert_eq!(values::<i8>(&p), vec![1, 1, 1, 1, 2, 3, 4, 10, 18]);

        let m = DynTensor::from(Tensor::from_slice(&[1_i8, 2, 3, 4], &[2, 2]).unwrap());
        assert_eq!(
            values::<i8>(&LaneOp::Triangle { k: 0, upper: false }.run(&m).unwrap()),
            vec![1, 0, 3, 4]
        );
        assert_eq!(
            values::<i8>(&LaneOp::Triangle { k: 1, upper: true }.run(&m).unwrap()),
            vec![0, 2, 0, 0]
        );
        assert_eq!(
            values::<i8>(
                &LaneOp::Roll {
                    shifts: vec![1],
                    axes: vec![1]
                }
                .run(&m)
                .unwrap()
            ),
            vec![2, 1, 4, 3]
        );
        let f = LaneOp::Fill {
            name: "zeros_like",
            value: Scalar::Float(0.5),
            dtype: Some(DType::F32),
        };
        assert_eq!(values::<f32>(&f.run(&m).unwrap()), vec![0.5; 4]);
        assert_eq!(values::<i8>(&m), vec![1, 2, 3, 4]);
    }

    #[test]
    fn rolls_and_triangles_in_place() {
        let r = LaneOp::Roll {
            shifts: vec![1, -1],
            axes: vec![0, 1],
        };
        // [[0, 1, 2], [3, 4, 5]] rolled by 1 along axis 0, then -1 along 1.
        assert_eq!(
            applied(&r, vec![0, 1, 2, 3, 4, 5], &[2, 3]),
            vec![4, 5, 3, 1, 2, 0]
        );
        let flat = LaneOp::Roll {
            shifts: vec![-7],
            axes: vec![],
        };
        assert_eq!(applied(&flat, vec![0, 1, 2], &[3]), vec![1, 2, 0]);
        // Several shifts along one axis, or of the flattened tensor, add
        // up (NumPy's broadcasting of shifts and axes).
        let summed = LaneOp::Roll {
            shifts: vec![1, 2],
            axes: vec![],
        };
        assert_eq!(applied(&summed, vec![0, 1, 2, 3], &[4]), vec![1, 2, 3, 0]);
        let along_one = LaneOp::Roll {
            shifts: vec![1, 1],
            axes: vec![-1],
        };
        assert_eq!(
            applied(&along_one, vec![0, 1, 2, 3, 4, 5], &[2, 3]),
            vec![1, 2, 0, 4, 5, 3]
        );
        assert!(LaneOp::Roll {
            shifts: vec![1, 2],
            axes: vec![0, 1, 0]
        }
        .signature(DType::I8, &[2, 2])
        .is_err());
        let lower = LaneOp::Triangle { k: 0, upper: false };
        assert_eq!(
            applied(&lower, vec![1, 2, 3, 4, 5, 6, 7, 8], &[2, 2, 2]),
            vec![1, 0, 3, 4, 5, 0, 7, 8]
        );
        let upper = LaneOp::Triangle { k: 1, upper: true };
        assert_eq!(applied(&upper, vec![1, 2, 3, 4], &[2, 2]), vec![0, 2, 0, 0]);
        assert!(lower.signature(DType::F64, &[3]).is_err());
        let fill = LaneOp::Fill {
            name: "full_like",
            value: Scalar::Int(300),
            dtype: None,
        };
        assert_eq!(applied(&fill, vec![1_i16, 2], &[2]), vec![300, 300]);
        assert!(matches!(
            fill.signature(DType::U8, &[2]),
            Err(Error::ScalarOutOfRange { .. })
        ));
    }
}
