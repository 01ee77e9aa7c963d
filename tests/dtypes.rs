//! `DType::promote` (the four tensor dtypes, in `element.rs`) agrees with
//! NumPy's whole table, `OperandDType::promote` (in `promote.rs`, a layer
//! above).

use donate::{DType, OperandDType};

#[test]
fn tensor_dtype_promotion_agrees_with_the_operand_table() {
    let all = [DType::F32, DType::F64, DType::I32, DType::I64];
    for a in all {
        for b in all {
            let whole = OperandDType::promote(a.into(), b.into());
            assert_eq!(
                whole.tensor_dtype(),
                Some(DType::promote(a, b)),
                "{a} with {b}"
            );
        }
    }
}
