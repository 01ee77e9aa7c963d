//! A fast path inside the planner for its commonest call: a binary op
//! over two tensors of one dtype and one shape (`a + b`). Only the
//! signature (the result's dtype and shape) is decided here; every other
//! step of the plan (the target, the refusals, the allocations) is the
//! general rules' ([`super::rules`]).

use super::{BinaryOp, Dims, Kind, OperandDesc};
use crate::array::element::DType;
use crate::array::shape::dims;

/// The dtype and shape of a binary op over two tensors of one dtype and
/// one shape (`a + b`, the commonest eager op), decided without the
/// general promotion and broadcasting, which give the same for them (a
/// type promotes to itself, a shape broadcasts with itself; in place, the
/// target already has that dtype): `None` for anything else, which the
/// general rules decide. Every other step of the plan is the general
/// one; the tests compare whole plans with and without it.
pub(super) fn signature(b: BinaryOp, o: &[OperandDesc<'_>]) -> Option<(DType, Dims)> {
    #[cfg(test)]
    if tests::GENERAL_ONLY.with(std::cell::Cell::get) {
        return None;
    }
    let [x, y] = o else { return None };
    let (Kind::Tensor(dx), Kind::Tensor(dy)) = (&x.kind, &y.kind) else {
        return None;
    };
    if dx != dy || x.shape != y.shape {
        return None;
    }
    let d = *dx;
    if b == BinaryOp::Div && !d.is_float() && !d.is_complex() {
        return None; // NumPy's true division of integers is float64
    }
    Some((d, dims(x.shape)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::dyn_tensor::Scalar;
    use crate::error::Result;
    use crate::plan::{plan, plan_in_place, Coverage, Holders, Offer, Op, Plan};
    use proptest::prelude::*;
    use std::cell::Cell;

    thread_local! {
        /// Plan with the general rules only (no fast path).
        pub(super) static GENERAL_ONLY: Cell<bool> = const { Cell::new(false) };
    }

    /// `op` planned (in place or not) with the fast path and without.
    fn both(op: &Op, o: &[OperandDesc<'_>], in_place: bool) -> (Result<Plan>, Result<Plan>) {
        let run = |general: bool| {
            GENERAL_ONLY.with(|g| g.set(general));
            let p = if in_place {
                plan_in_place(op, o)
            } else {
                plan(op, o)
            };
            GENERAL_ONLY.with(|g| g.set(false));
            p
        };
        (run(false), run(true))
    }

    const SHAPES: [&[usize]; 7] = [&[], &[1], &[3], &[0], &[2, 3], &[3, 1], &[1, 3]];

    fn operand() -> impl Strategy<Value = (Kind, usize, Offer, Holders, Option<usize>, Coverage)> {
        let kind = prop_oneof![
            4 => prop::sample::select(DType::EVERY.to_vec()).prop_map(Kind::Tensor),
            1 => prop_oneof![
                any::<bool>().prop_map(Scalar::Bool),
                prop_oneof![Just(0i128), Just(-1), Just(300), Just(i128::from(i64::MAX))].prop_map(Scalar::Int),
                prop_oneof![Just(0.5f64), Just(f64::NAN), Just(1e300)].prop_map(Scalar::Float),
            ]
            .prop_map(Kind::Scalar),
        ];
        let offer = prop_oneof![
            Just(Offer::Borrowed),
            Just(Offer::Temporary),
            Just(Offer::Donated)
        ];
        let holders = prop_oneof![
            Just(Holders::Exclusive),
            Just(Holders::Shared {
                handles: 2,
                exports: 1
            }),
            Just(Holders::Busy),
            Just(Holders::Donated),
        ];
        let coverage = prop_oneof![
            Just(Coverage::Whole),
            Just(Coverage::Part),
            Just(Coverage::Rows),
            Just(Coverage::Strided),
        ];
        (
            kind,
            0..SHAPES.len(),
            offer,
            holders,
            prop::option::of(0usize..2),
            coverage,
        )
    }

    fn describe(
        o: &(Kind, usize, Offer, Holders, Option<usize>, Coverage),
    ) -> OperandDesc<'static> {
        let (kind, shape, offer, holders, id, coverage) = *o;
        match kind {
            Kind::Scalar(s) => OperandDesc::scalar(s),
            Kind::Tensor(d) => {
                let t = OperandDesc::tensor(d, SHAPES[shape])
                    .offered(offer, holders)
                    .covering(coverage);
                match id {
                    Some(id) => t.with_id(id),
                    None => t,
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        /// The fast path for same-dtype same-shape binary ops gives the
        /// plan (or the error) the general rules give, for every binary op,
        /// in place or not, over one to three operands of any kind, dtype,
        /// shape, offer, holders, identity and coverage.
        #[test]
        fn same_binary_plans_as_the_general_rules(
            b in prop::sample::select(BinaryOp::ALL.to_vec()),
            ops in prop::collection::vec(operand(), 1..4),
            same in any::<bool>(),
            in_place in any::<bool>(),
        ) {
            let mut o: Vec<OperandDesc<'static>> = ops.iter().map(describe).collect();
            if same && o.len() >= 2 {
                // Often the case the fast path takes: the second operand a
                // tensor of the first's dtype and shape.
                if let Kind::Tensor(d) = o[0].kind {
                    o[1].kind = Kind::Tensor(d);
                    o[1].shape = o[0].shape;
                }
            }
            let (fast, general) = both(&Op::Binary(b), &o, in_place);
            prop_assert_eq!(fast, general);
        }
    }

    /// The fast path is taken for `a + b` (so the comparison above tests
    /// it), and not for integer true division.
    #[test]
    fn same_binary_is_taken_for_same_dtype_and_shape() {
        let x = OperandDesc::tensor(DType::F32, &[16]);
        assert_eq!(
            signature(BinaryOp::Add, &[x.clone(), x.clone()]),
            Some((DType::F32, dims(&[16])))
        );
        let i = OperandDesc::tensor(DType::I32, &[16]);
        assert_eq!(signature(BinaryOp::Div, &[i.clone(), i]), None);
        let y = OperandDesc::tensor(DType::F32, &[1]);
        assert_eq!(signature(BinaryOp::Add, &[x, y]), None);
    }
}
