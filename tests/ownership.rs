//! Ownership rules: every rule asserts buffer identity (reuse) or its
//! absence (copy), not only values.

use donate::{BinaryOp, DonateExt, Error, Offer, Operand, Refusal, Tensor, UnaryOp};

fn t(v: &[f32]) -> Tensor<f32> {
    Tensor::from_slice(v, &[v.len()]).unwrap()
}

#[test]
fn by_value_op_reuses_exclusive_buffer() {
    let a = t(&[-1.0, 2.0, f32::NAN, -0.0]);
    let p = a.buffer_ptr();
    let b = a.relu().unwrap();
    assert_eq!(b.buffer_ptr(), p);
    let v = b.as_slice().unwrap();
    assert_eq!(&v[..2], &[0.0, 2.0]);
    assert!(v[2].is_nan());
    assert!(v[3] == 0.0 && v[3].is_sign_negative());
}

#[test]
fn borrowed_op_never_changes_input() {
    let a = t(&[-1.0, 2.0]);
    let b = a.relu_ref().unwrap();
    assert_ne!(b.buffer_ptr(), a.buffer_ptr());
    assert_eq!(a.as_slice().unwrap(), &[-1.0, 2.0]);
    let c = (&a + &a).unwrap();
    assert_ne!(c.buffer_ptr(), a.buffer_ptr());
    assert_eq!(a.as_slice().unwrap(), &[-1.0, 2.0]);
}

#[test]
fn shared_buffer_is_never_reused_by_value() {
    let a = t(&[-1.0, 2.0]);
    let keep = a.clone();
    let b = a.relu().unwrap();
    assert_ne!(b.buffer_ptr(), keep.buffer_ptr());
    assert_eq!(keep.as_slice().unwrap(), &[-1.0, 2.0]);
    // once the other handle is gone, the buffer is exclusive again
    let p = keep.buffer_ptr();
    let c = keep.relu().unwrap();
    assert_eq!(c.buffer_ptr(), p);
}

#[test]
fn reshape_shares_and_blocks_reuse() {
    let a = Tensor::<f32>::from_vec(vec![1.0, -2.0, 3.0, -4.0], &[2, 2]).unwrap();
    let r = a.reshape(&[4]).unwrap();
    assert!(r.shares_buffer_with(&a));
    assert_eq!(a.ownership().handles, 2);
    let out = r.relu().unwrap();
    assert_ne!(out.buffer_ptr(), a.buffer_ptr());
    assert_eq!(a.as_slice().unwrap(), &[1.0, -2.0, 3.0, -4.0]);
    assert_eq!(a.ownership().handles, 1);
    // into_reshape keeps the single handle
    let p = a.buffer_ptr();
    let flat = a.into_reshape(&[4]).unwrap();
    assert_eq!(flat.buffer_ptr(), p);
    assert!(flat.is_exclusively_owned());
}

#[test]
fn export_blocks_reuse_and_in_place_writes() {
    let mut a = t(&[-1.0, 2.0]);
    let view = a.export().unwrap();
    assert!(!a.is_exclusively_owned());
    let old = view.as_ptr();
    a.relu_inplace().unwrap(); // copy-on-write
    assert_ne!(a.buffer_ptr(), Some(old));
    assert_eq!(a.as_slice().unwrap(), &[0.0, 2.0]);
    // the export still holds the old buffer (kept alive by the guard)
    assert_eq!(view.len(), 8);
    drop(view);
}

#[test]
fn export_outlives_tensor_and_keeps_values() {
    let a = t(&[5.0, 6.0]);
    let keep = a.clone();
    let view = a.export().unwrap();
    drop(a);
    assert_eq!(keep.ownership().exports, 1);
    drop(view);
    assert_eq!(keep.ownership().exports, 0);
    assert!(keep.is_exclusively_owned());
}

#[test]
fn in_place_writes_when_exclusive_and_copies_when_shared() {
    let mut a = t(&[1.0, 2.0]);
    let p = a.buffer_ptr();
    a.add_inplace(&t(&[10.0, 10.0])).unwrap();
    assert_eq!(a.buffer_ptr(), p);
    assert_eq!(a.as_slice().unwrap(), &[11.0, 12.0]);

    let other = a.clone();
    a.mul_inplace(&t(&[2.0, 2.0])).unwrap();
    assert_ne!(a.buffer_ptr(), p);
    assert_eq!(other.buffer_ptr(), p);
    assert_eq!(other.as_slice().unwrap(), &[11.0, 12.0]);
    assert_eq!(a.as_slice().unwrap(), &[22.0, 24.0]);
}

#[test]
fn in_place_rejects_growing_broadcast_and_loses_nothing() {
    let mut a = t(&[1.0, 2.0]);
    let b = Tensor::<f32>::zeros(&[3, 2]).unwrap();
    let err = a.add_inplace(&b).unwrap_err();
    assert!(matches!(err, Error::NotBroadcastableTo { .. }), "{err}");
    assert_eq!(a.as_slice().unwrap(), &[1.0, 2.0]);
}

#[test]
fn binary_by_value_reuses_left_then_right() {
    let a = t(&[1.0, 2.0]);
    let b = t(&[3.0, 4.0]);
    let pa = a.buffer_ptr();
    let c = (a + &b).unwrap();
    assert_eq!(c.buffer_ptr(), pa);
    assert_eq!(c.as_slice().unwrap(), &[4.0, 6.0]);

    // left is broadcast (shape [1]) so the right buffer is used
    let s = Tensor::<f32>::from_vec(vec![10.0], &[1]).unwrap();
    let pb = b.buffer_ptr();
    let d = (s - b).unwrap();
    assert_eq!(d.buffer_ptr(), pb);
    assert_eq!(d.as_slice().unwrap(), &[7.0, 6.0]);
}

#[test]
fn broadcasting_allocates_when_no_operand_fits() {
    let a = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0], &[3, 1]).unwrap();
    let b = Tensor::<f32>::from_vec(vec![10.0, 20.0], &[1, 2]).unwrap();
    let (pa, pb) = (a.buffer_ptr(), b.buffer_ptr());
    let c = (a + b).unwrap();
    assert_eq!(c.shape(), &[3, 2]);
    assert_ne!(c.buffer_ptr(), pa);
    assert_ne!(c.buffer_ptr(), pb);
    assert_eq!(c.as_slice().unwrap(), &[11.0, 21.0, 12.0, 22.0, 13.0, 23.0]);
}

#[test]
fn donated_operator_reuses_and_falls_back_with_reason() {
    let a = t(&[1.0, 2.0]);
    let p = a.buffer_ptr();
    let c = (a.donate() + &t(&[1.0, 1.0])).unwrap();
    assert_eq!(c.buffer_ptr(), p);

    let x = t(&[1.0, 2.0]);
    let holder = x.clone();
    let mut x = x;
    let (r, outcome) = donate::ops::binary::binary(
        BinaryOp::Add,
        Operand::Owned(&mut x, Offer::Donated),
        Operand::Scalar(1.0),
    )
    .unwrap();
    assert_eq!(outcome.reused, None);
    assert_eq!(
        outcome.refused,
        vec![(
            0,
            Refusal::Shared {
                handles: 2,
                exports: 0
            }
        )]
    );
    assert_eq!(r.as_slice().unwrap(), &[2.0, 3.0]);
    // input intact and not moved-from
    assert!(!x.is_donated());
    assert_eq!(holder.as_slice().unwrap(), &[1.0, 2.0]);
    assert_eq!(
        outcome.refused[0].1.to_string(),
        "buffer is shared with 1 other tensor"
    );
}

#[test]
fn take_buffer_moves_and_leaves_moved_from_tensor() {
    let mut a = t(&[1.0, 2.0]);
    let p = a.buffer_ptr().unwrap();
    let buf = a.take_buffer_for("my_op").unwrap();
    assert_eq!(buf.as_ptr(), p);
    assert!(a.is_donated());
    assert_eq!(a.shape(), &[2]);
    let err = a.as_slice().unwrap_err();
    assert_eq!(
        err.to_string(),
        "Tensor has been donated with shape=float32[2] (its buffer was consumed by my_op); its data can no longer be read or written"
    );
    assert!(a.relu_ref().is_err());
    assert!(a.take_buffer().is_err());
    assert!(a.export().is_err());
    let mut b = a.clone();
    assert!(b.is_donated());
    assert!(b.relu_inplace().is_err());
    // the buffer lives on in a new tensor, same memory
    let t2 = Tensor::<f32>::from_buffer(buf, &[2]).unwrap();
    assert_eq!(t2.buffer_ptr(), Some(p));
}

#[test]
fn take_buffer_refused_when_shared_changes_nothing() {
    let mut a = t(&[1.0]);
    let _b = a.clone();
    assert!(matches!(
        a.take_buffer(),
        Err(Error::NotDonatable {
            handles: 2,
            exports: 0
        })
    ));
    assert!(!a.is_donated());
    assert_eq!(a.as_slice().unwrap(), &[1.0]);
}

#[test]
fn data_mut_only_when_exclusive() {
    let mut a = t(&[1.0]);
    assert!(a.data_mut().is_some());
    let b = a.clone();
    assert!(a.data_mut().is_none());
    drop(b);
    a.data_mut().unwrap()[0] = 7.0;
    assert_eq!(a.as_slice().unwrap(), &[7.0]);
}

/// The typed API's ownership is the offer: by value reuses an exclusive
/// buffer, a borrow never does, a donation of a shared tensor copies and
/// leaves it intact.
#[test]
fn ownership_decides_reuse() {
    // By value (a temporary), exclusive: the same buffer.
    let a = t(&[-1.0, 1.0]);
    let p = a.buffer_ptr();
    let r = a.map(UnaryOp::Relu).unwrap();
    assert_eq!(r.buffer_ptr(), p);
    // Borrowed: a new buffer, the input unchanged.
    let a = t(&[-1.0, 1.0]);
    let r = (&a * 1.0).unwrap();
    assert_ne!(r.buffer_ptr(), a.buffer_ptr());
    assert_eq!(a.as_slice().unwrap(), &[-1.0, 1.0]);
    // Donated while another handle shares the buffer: copied, the other
    // handle keeps its values, and the refusal is reported.
    let a = t(&[-1.0, 1.0]);
    let other = a.clone();
    let (r, o) = a.donate().unary(UnaryOp::Relu).unwrap();
    assert_ne!(r.buffer_ptr(), other.buffer_ptr());
    assert_eq!(other.as_slice().unwrap(), &[-1.0, 1.0]);
    assert_eq!(o.reused, None);
    assert!(matches!(o.refused[..], [(0, Refusal::Shared { .. })]));
    // Donated and exclusive: written in place.
    let a = t(&[1.0, -2.0]);
    let p = a.buffer_ptr();
    let (r, o) = a.donate().unary(UnaryOp::Relu).unwrap();
    assert_eq!((r.buffer_ptr(), o.reused), (p, Some(0)));
    assert_eq!(r.as_slice().unwrap(), &[1.0, 0.0]);
}

#[test]
fn relu_donate_chain_keeps_one_buffer() {
    let mut x =
        Tensor::<f32>::from_vec((0..1000).map(|i| i as f32 - 500.0).collect(), &[10, 100]).unwrap();
    let p = x.buffer_ptr();
    for _ in 0..10 {
        x = x.relu_donate().unwrap();
    }
    assert_eq!(x.buffer_ptr(), p);
}

#[test]
fn errors_leave_inputs_intact() {
    let a = t(&[1.0, 2.0]);
    let b = t(&[1.0, 2.0, 3.0]);
    let keep_a = a.clone();
    let err = (&a + &b).unwrap_err();
    assert!(
        err.to_string().contains("[2]") && err.to_string().contains("[3]"),
        "{err}"
    );
    let mut a2 = Tensor::<f32>::from_slice(&[1.0, 2.0], &[2]).unwrap();
    let r = donate::ops::binary::binary(
        BinaryOp::Add,
        Operand::Owned(&mut a2, Offer::Donated),
        Operand::Ref(&b),
    );
    assert!(r.is_err());
    assert!(!a2.is_donated());
    assert_eq!(a2.as_slice().unwrap(), &[1.0, 2.0]);
    assert_eq!(keep_a.as_slice().unwrap(), &[1.0, 2.0]);
    // integer exp is unsupported: error before anything is claimed
    let mut i = Tensor::<i32>::from_slice(&[1], &[1]).unwrap();
    let r = donate::ops::unary::unary(UnaryOp::Exp, Operand::Owned(&mut i, Offer::Donated));
    assert!(matches!(r, Err(Error::UnsupportedDType { .. })));
    assert!(!i.is_donated());
}

#[test]
fn racing_threads_take_one_buffer_once() {
    // Handles in several threads; each offers its handle for donation after
    // a barrier; the buffer is claimed by at most one and only when it has
    // become exclusive.
    for _ in 0..100 {
        let a = t(&[1.0; 64]);
        let p = a.buffer_ptr().map(|p| p as usize);
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(4));
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let h = a.clone();
                let b = barrier.clone();
                std::thread::spawn(move || {
                    b.wait();
                    let r = h.relu_donate().unwrap();
                    r.buffer_ptr().map(|p| p as usize) == p
                })
            })
            .collect();
        drop(a);
        let reused = hs
            .into_iter()
            .map(|h| h.join().unwrap())
            .filter(|x| *x)
            .count();
        assert!(reused <= 1, "buffer claimed by {reused} threads");
    }
}

#[test]
fn invalid_shapes_and_axes_are_errors() {
    assert!(matches!(
        Tensor::<f32>::zeros(&[usize::MAX, 2]),
        Err(Error::ShapeOverflow { .. })
    ));
    assert!(matches!(
        Tensor::<f64>::zeros(&[1 << 62]),
        Err(Error::ShapeOverflow { .. })
    ));
    assert!(matches!(
        Tensor::<f32>::zeros(&[1 << 48]),
        Err(Error::AllocationFailed { .. })
    ));
    let a = Tensor::<f32>::zeros(&[2, 3]).unwrap();
    assert!(matches!(
        a.sum(Some(2), false),
        Err(Error::InvalidAxis { axis: 2, ndim: 2 })
    ));
    assert!(a.reshape(&[5]).is_err());
    assert!(Tensor::<f32>::from_vec(vec![1.0], &[2]).is_err());
    let e = Tensor::<f32>::zeros(&[0]).unwrap();
    assert!(matches!(
        e.max(None, false),
        Err(Error::EmptyReduction { .. })
    ));
}

#[test]
fn permute_matches_index_arithmetic_and_leaves_input() {
    use donate::Tensor;
    for shape in [
        vec![3usize, 5],
        vec![2, 3, 4],
        vec![70, 33],
        vec![1, 4, 1, 3],
        vec![0, 3],
        vec![5],
    ] {
        let n: usize = shape.iter().product();
        let data: Vec<i64> = (0..n as i64).collect();
        let t = Tensor::from_vec(data.clone(), &shape).unwrap();
        let ptr = t.buffer_ptr();
        let tt = t.transpose().unwrap();
        let rev: Vec<usize> = shape.iter().rev().copied().collect();
        assert_eq!(tt.shape(), &rev[..]);
        if n > 0 {
            assert_ne!(tt.buffer_ptr(), ptr, "transpose writes a new buffer");
        }
        let out = tt.to_vec().unwrap();
        // out[j_rev] == in[j] for every multi-index j.
        let in_strides = donate::array::shape::c_strides(&shape);
        let out_strides = donate::array::shape::c_strides(&rev);
        for (flat, v) in data.iter().enumerate() {
            let mut rem = flat;
            let mut o = 0;
            for (k, s) in in_strides.iter().enumerate() {
                let i = rem / s;
                rem %= s;
                o += i * out_strides[shape.len() - 1 - k];
            }
            assert_eq!(out[o], *v, "shape {shape:?}");
        }
        assert_eq!(t.to_vec().unwrap(), data);
    }
    let t = Tensor::<f32>::zeros(&[2, 3]).unwrap();
    assert!(t.permute(&[0, 0]).is_err());
    assert!(t.permute(&[0]).is_err());
    assert!(t.permute(&[0, 2]).is_err());
    assert_eq!(t.permute(&[-1, 0]).unwrap().shape(), &[3, 2]);
}

#[test]
fn addmm_accumulates_into_an_offered_input_and_only_then() {
    use donate::ops::nn::addmm;
    let a = Tensor::<f32>::from_slice(&[1.0, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let b = Tensor::<f32>::from_slice(&[1.0, 0.0, 0.0, 1.0], &[2, 2]).unwrap();
    // Offered and of the result's shape: the product goes into its buffer.
    let mut x = Tensor::<f32>::full(&[2, 2], 10.0).unwrap();
    let p = x.buffer_ptr();
    let (y, outcome) = addmm(Operand::Owned(&mut x, Offer::Temporary), &a, &b).unwrap();
    assert_eq!(y.buffer_ptr(), p);
    assert_eq!(outcome.reused, Some(0));
    assert_eq!(y.as_slice().unwrap(), &[11.0, 12.0, 13.0, 14.0]);
    // Borrowed: a new buffer, the input unchanged.
    let x = Tensor::<f32>::full(&[2, 2], 10.0).unwrap();
    let (z, _) = addmm(Operand::Ref(&x), &a, &b).unwrap();
    assert_ne!(z.buffer_ptr(), x.buffer_ptr());
    assert_eq!(x.as_slice().unwrap(), &[10.0; 4]);
    assert_eq!(z.as_slice().unwrap(), &[11.0, 12.0, 13.0, 14.0]);
    // A broadcast input cannot receive the result: refused, a new buffer.
    let mut bias = Tensor::<f32>::full(&[2], 1.0).unwrap();
    let (w, outcome) = addmm(Operand::Owned(&mut bias, Offer::Donated), &a, &b).unwrap();
    assert!(matches!(outcome.refused[..], [(0, Refusal::Shape { .. })]));
    assert_eq!(bias.as_slice().unwrap(), &[1.0, 1.0]);
    assert_eq!(w.as_slice().unwrap(), &[2.0, 3.0, 4.0, 5.0]);
}

#[test]
fn a_pinned_buffer_is_never_taken_and_says_why() {
    // A consumer that reads the memory after giving its view back pins
    // the buffer: no donation, explicit or by value, ever takes it.
    let mut a = t(&[-1.0, 2.0]);
    let p = a.buffer_ptr();
    a.export().unwrap().pin();
    assert!(a.ownership().pinned && a.ownership().exports == 0);
    assert!(!a.is_exclusively_owned());
    assert!(matches!(a.take_buffer(), Err(Error::Pinned)));
    assert!(Error::Pinned.to_string().contains("pinned"));
    let keep = a.clone();
    let (r, o) = a.donate().unary(UnaryOp::Relu).unwrap();
    assert_ne!(r.buffer_ptr(), p);
    assert!(matches!(o.refused[..], [(0, Refusal::Shared { .. })]));
    drop(keep);
    let a = Tensor::<f32>::from_slice(&[3.0], &[1]).unwrap();
    let p = a.buffer_ptr();
    a.export().unwrap().pin();
    let (r, o) = a.donate().unary(UnaryOp::Relu).unwrap();
    assert_ne!(r.buffer_ptr(), p);
    assert!(matches!(o.refused[..], [(0, Refusal::Pinned)]));
    assert!(Refusal::Pinned
        .to_string()
        .contains("as long as the tensor lives"));
}
