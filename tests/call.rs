//! The one call sequence (`donate::driver::call`) driven by a front end written
//! here, without Python: which buffer the result lands in, what a front
//! end is told, and that a failure at the warning step leaves every
//! operand as it was.

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use donate::driver::call::{call, call_in_place, FrontEnd, Held, HeldTensor, Operand};
use donate::driver::execute::execute;
use donate::memory::slot::{Slot, Waiter};
use donate::plan::{Coverage, Offer, Op};
use donate::{BinaryOp, DType, DynTensor, Error, Scalar, Tensor, UnaryOp};

/// A front end's tensor: a slot and its metadata.
struct Obj {
    slot: Slot,
    dtype: DType,
    shape: Vec<usize>,
}

#[derive(Clone)]
struct H(Arc<Obj>);

impl H {
    fn new(v: &[f32]) -> H {
        let t: DynTensor = Tensor::<f32>::from_vec(v.to_vec(), &[v.len()])
            .unwrap()
            .into();
        H(Arc::new(Obj {
            dtype: t.dtype(),
            shape: t.shape().to_vec(),
            slot: Slot::new(t),
        }))
    }

    fn ptr(&self) -> Option<*const u8> {
        self.0.slot.lock(&Block).data_ptr()
    }

    fn values(&self) -> Vec<f32> {
        let g = self.0.slot.lock(&Block);
        g.typed::<f32>("test").unwrap().to_vec().unwrap()
    }

    fn is_donated(&self) -> bool {
        self.0.slot.lock(&Block).is_donated()
    }
}

impl HeldTensor for H {
    fn held(&self) -> Held<'_> {
        Held {
            slot: &self.0.slot,
            dtype: self.0.dtype,
            shape: &self.0.shape,
            coverage: Coverage::Whole,
        }
    }
}

struct Block;

impl Waiter for Block {
    fn wait(&self, f: &mut (dyn FnMut() + Send)) {
        f();
    }
}

/// A front end that records its warnings, can fail at them, and says
/// whether a temporary is still one.
#[derive(Default)]
struct Front {
    still_temporary: Cell<bool>,
    fail_warnings: Cell<bool>,
    warned: RefCell<Vec<String>>,
    ran: Cell<usize>,
}

// SAFETY: one thread: nothing reads while `run_shared_write` writes.
#[allow(unsafe_code)]
unsafe impl FrontEnd for Front {
    type Waiter = Block;
    type Tensor = H;
    type Error = String;

    fn waiter(&self) -> &Block {
        &Block
    }

    fn error(e: Error) -> String {
        e.to_string()
    }

    fn still_temporary(&self, _: &H) -> bool {
        self.still_temporary.get()
    }

    fn warn(&self, messages: Vec<String>) -> Result<(), String> {
        if self.fail_warnings.get() && !messages.is_empty() {
            return Err(messages.join("; "));
        }
        self.warned.borrow_mut().extend(messages);
        Ok(())
    }

    fn run<R: Send>(&self, _work: usize, f: impl FnOnce() -> R + Send) -> R {
        self.ran.set(self.ran.get() + 1);
        f()
    }

    fn run_shared_write<R>(&self, f: impl FnOnce() -> R) -> R {
        f()
    }
}

const ADD: Op = Op::Binary(BinaryOp::Add);

fn add(fe: &Front, a: Operand<H>, b: Operand<H>) -> Result<DynTensor, String> {
    call(fe, &ADD, &mut smallvec::smallvec![a, b], execute)
}

/// `a + b` with `a` offered as a temporary: `a`, its buffer before the
/// call, and the result.
fn temporary_plus_named(fe: &Front) -> (H, Option<*const u8>, DynTensor) {
    let (a, b) = (H::new(&[1.0, 2.0]), H::new(&[10.0, 20.0]));
    let p = a.ptr();
    let r = add(
        fe,
        Operand::Held(a.clone(), Offer::Temporary),
        Operand::Held(b, Offer::Borrowed),
    )
    .unwrap();
    (a, p, r)
}

#[test]
fn a_temporary_receives_the_result() {
    let fe = Front::default();
    fe.still_temporary.set(true);
    let (a, p, r) = temporary_plus_named(&fe);
    assert_eq!(r.data_ptr(), p, "the temporary's buffer is the result's");
    assert!(a.is_donated(), "the temporary is moved-from");
    assert!(fe.warned.borrow().is_empty());
}

#[test]
fn a_temporary_that_gained_a_reference_is_only_read() {
    // Front-end code ran between the plan and the claim and obtained a
    // reference: the re-check says so, and the result goes elsewhere.
    let fe = Front::default();
    let (a, p, r) = temporary_plus_named(&fe);
    assert_ne!(r.data_ptr(), p);
    assert_eq!(a.values(), [1.0, 2.0]);
    assert!(!a.is_donated());
    assert_eq!(fe.ran.get(), 1);
}

#[test]
fn a_refused_donation_is_reported_and_copies() {
    let fe = Front::default();
    let a = H::new(&[1.0, 2.0]);
    let other = a.0.slot.read(&Block).unwrap(); // another holder
    let r = add(
        &fe,
        Operand::Held(a.clone(), Offer::Donated),
        Operand::Number(Scalar::Float(1.0)),
    )
    .unwrap();
    assert_ne!(r.data_ptr(), other.data_ptr());
    assert_eq!(a.values(), [1.0, 2.0], "the donated input is unchanged");
    let warned = fe.warned.borrow();
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(
        warned[0].starts_with("add: ") && warned[0].contains("was donated but not used"),
        "{}",
        warned[0]
    );
}

#[test]
fn a_failing_warning_leaves_every_operand_intact() {
    // A warning the front end turns into an error (Python's
    // `warnings.simplefilter("error")`) stops the call before any claim.
    let fe = Front::default();
    fe.fail_warnings.set(true);
    fe.still_temporary.set(true);
    let a = H::new(&[1.0, 2.0]);
    let b = H::new(&[3.0, 4.0]);
    let _other = b.0.slot.read(&Block).unwrap();
    let e = add(
        &fe,
        Operand::Held(a.clone(), Offer::Temporary),
        Operand::Held(b.clone(), Offer::Donated),
    );
    assert!(e.is_err());
    assert!(!a.is_donated() && !b.is_donated());
    assert_eq!(a.values(), [1.0, 2.0]);
    assert_eq!(b.values(), [3.0, 4.0]);
    assert_eq!(fe.ran.get(), 0, "no kernel ran");
}

#[test]
fn an_error_of_the_plan_is_the_front_ends() {
    let fe = Front::default();
    let e = add(
        &fe,
        Operand::Held(H::new(&[1.0, 2.0]), Offer::Borrowed),
        Operand::Held(H::new(&[1.0, 2.0, 3.0]), Offer::Borrowed),
    )
    .unwrap_err();
    assert!(e.contains("shapes"), "{e}");
}

#[test]
fn in_place_reads_its_own_target_under_one_lock() {
    // `x += x`: the target is read under the lock it is written under,
    // through the target itself (no second handle), so its exclusive
    // buffer is written in place (a copy on write would allocate while the
    // old buffer is alive: another address).
    let fe = Front::default();
    let x = H::new(&[1.0, 2.0]);
    let p = x.ptr();
    let outcome = call_in_place(
        &fe,
        &ADD,
        x.held(),
        smallvec::smallvec![Operand::Held(x.clone(), Offer::Borrowed)],
    )
    .unwrap();
    assert_eq!(outcome.reused, Some(0));
    assert_eq!(x.values(), [2.0, 4.0]);
    assert!(!x.is_donated());
    assert_eq!(x.ptr(), p, "written in place");
}

#[test]
fn a_made_operand_is_a_temporary() {
    // A tensor the front end made for the call (from a list, say) is
    // offered as a temporary: nobody else holds it.
    let fe = Front::default();
    let made: DynTensor = Tensor::<f32>::from_vec(vec![-1.0, 2.0], &[2])
        .unwrap()
        .into();
    let p = made.data_ptr();
    let r = call(
        &fe,
        &Op::Unary(UnaryOp::Relu),
        &mut smallvec::smallvec![Operand::<H>::Made(made)],
        execute,
    )
    .unwrap();
    assert_eq!(r.data_ptr(), p);
    assert_eq!(r.typed::<f32>("t").unwrap().to_vec().unwrap(), [0.0, 2.0]);
}
