//! Element functions of the unary and binary operations, and the loops that
//! apply them. The loops are generic and `#[inline(always)]`; [`super::isa`]
//! compiles one copy of each per instruction set.

use std::mem::MaybeUninit;

use super::math;

/// The unary element-wise operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Relu,
    Neg,
    Abs,
    Exp,
    Log,
    Sqrt,
    Tanh,
    Sigmoid,
    Gelu,
}

impl UnaryOp {
    /// Every unary op.
    pub const ALL: [UnaryOp; 9] = [
        UnaryOp::Relu,
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sqrt,
        UnaryOp::Tanh,
        UnaryOp::Sigmoid,
        UnaryOp::Gelu,
    ];

    /// The op's name, as in the Python API.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Relu => "relu",
            UnaryOp::Neg => "neg",
            UnaryOp::Abs => "abs",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Gelu => "gelu",
        }
    }

    /// Defined for integer tensors too?
    pub fn supports_int(self) -> bool {
        matches!(self, UnaryOp::Relu | UnaryOp::Neg | UnaryOp::Abs)
    }
}

/// The binary element-wise operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Maximum,
    Minimum,
}

impl BinaryOp {
    /// Every binary op.
    pub const ALL: [BinaryOp; 6] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
    ];

    /// The op's name, as in the Python API.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Maximum => "maximum",
            BinaryOp::Minimum => "minimum",
        }
    }

    /// Defined for integer tensors too? (Division of integers is promoted to
    /// floating point by the Python layer, as NumPy's `/` does.)
    pub fn supports_int(self) -> bool {
        !matches!(self, BinaryOp::Div)
    }
}

/// One unary function on `T`, as a type so each loop is monomorphic.
pub(super) trait UnaryFn<T>: Copy {
    fn call<const FMA: bool>(x: T) -> T;
}

/// One binary function on `T`.
pub(super) trait BinaryFn<T>: Copy {
    fn call(a: T, b: T) -> T;
}

macro_rules! unary_fns {
    ($($name:ident),*) => { $( #[derive(Clone, Copy)] pub(super) struct $name; )* };
}
unary_fns!(Relu, Neg, Abs, Exp, Log, Sqrt, Tanh, Sigmoid, Gelu);
unary_fns!(Add, Sub, Mul, Div, Maximum, Minimum);

// --- float element functions -------------------------------------------

macro_rules! float_common {
    ($t:ty) => {
        impl UnaryFn<$t> for Relu {
            // relu(NaN) = NaN and relu(-0.0) = -0.0: `x < 0` is false for both.
            #[inline(always)]
            fn call<const FMA: bool>(x: $t) -> $t {
                if x < 0.0 {
                    0.0
                } else {
                    x
                }
            }
        }
        impl UnaryFn<$t> for Neg {
            #[inline(always)]
            fn call<const FMA: bool>(x: $t) -> $t {
                -x
            }
        }
        impl UnaryFn<$t> for Abs {
            #[inline(always)]
            fn call<const FMA: bool>(x: $t) -> $t {
                x.abs()
            }
        }
        impl UnaryFn<$t> for Sqrt {
            #[inline(always)]
            fn call<const FMA: bool>(x: $t) -> $t {
                x.sqrt()
            }
        }
        impl BinaryFn<$t> for Add {
            #[inline(always)]
            fn call(a: $t, b: $t) -> $t {
                a + b
            }
        }
        impl BinaryFn<$t> for Sub {
            #[inline(always)]
            fn call(a: $t, b: $t) -> $t {
                a - b
            }
        }
        impl BinaryFn<$t> for Mul {
            #[inline(always)]
            fn call(a: $t, b: $t) -> $t {
                a * b
            }
        }
        impl BinaryFn<$t> for Div {
            #[inline(always)]
            fn call(a: $t, b: $t) -> $t {
                a / b
            }
        }
        impl BinaryFn<$t> for Maximum {
            // NaN in either operand propagates (NumPy's np.maximum).
            #[inline(always)]
            fn call(a: $t, b: $t) -> $t {
                if a > b || a.is_nan() {
                    a
                } else {
                    b
                }
            }
        }
        impl BinaryFn<$t> for Minimum {
            #[inline(always)]
            fn call(a: $t, b: $t) -> $t {
                if a < b || a.is_nan() {
                    a
                } else {
                    b
                }
            }
        }
    };
}
float_common!(f32);
float_common!(f64);

impl UnaryFn<f32> for Exp {
    #[inline(always)]
    fn call<const FMA: bool>(x: f32) -> f32 {
        math::exp::<FMA>(x)
    }
}
impl UnaryFn<f32> for Log {
    #[inline(always)]
    fn call<const FMA: bool>(x: f32) -> f32 {
        math::ln::<FMA>(x)
    }
}
impl UnaryFn<f32> for Tanh {
    #[inline(always)]
    fn call<const FMA: bool>(x: f32) -> f32 {
        math::tanh::<FMA>(x)
    }
}
impl UnaryFn<f32> for Sigmoid {
    #[inline(always)]
    fn call<const FMA: bool>(x: f32) -> f32 {
        math::sigmoid::<FMA>(x)
    }
}
impl UnaryFn<f32> for Gelu {
    #[inline(always)]
    fn call<const FMA: bool>(x: f32) -> f32 {
        math::gelu::<FMA>(x)
    }
}
impl UnaryFn<f64> for Exp {
    #[inline(always)]
    fn call<const FMA: bool>(x: f64) -> f64 {
        x.exp()
    }
}
impl UnaryFn<f64> for Log {
    #[inline(always)]
    fn call<const FMA: bool>(x: f64) -> f64 {
        x.ln()
    }
}
impl UnaryFn<f64> for Tanh {
    #[inline(always)]
    fn call<const FMA: bool>(x: f64) -> f64 {
        x.tanh()
    }
}
impl UnaryFn<f64> for Sigmoid {
    #[inline(always)]
    fn call<const FMA: bool>(x: f64) -> f64 {
        // As `f32`'s (`math::sigmoid`): `e^-|x|`, which never overflows.
        let e = (-x.abs()).exp();
        let d = 1.0 / (1.0 + e);
        if x < 0.0 {
            e * d
        } else {
            d
        }
    }
}
impl UnaryFn<f64> for Gelu {
    #[inline(always)]
    fn call<const FMA: bool>(x: f64) -> f64 {
        math::gelu_f64(x)
    }
}

// --- integer element functions (wrapping, as NumPy) ------------------------

macro_rules! int_fns {
    ($t:ty) => {
        impl UnaryFn<$t> for Relu {
            #[inline(always)]
            fn call<const FMA: bool>(x: $t) -> $t {
                x.max(0)
            }
        }
        impl UnaryFn<$t> for Neg {
            #[inline(always)]
            fn call<const FMA: bool>(x: $t) -> $t {
                x.wrapping_neg()
            }
        }
        impl BinaryFn<$t> for Add {
            #[inline(always)]
            fn call(a: $t, b: $t) -> $t {
                a.wrapping_add(b)
            }
        }
        impl BinaryFn<$t> for Sub {
            #[inline(always)]
            fn call(a: $t, b: $t) -> $t {
                a.wrapping_sub(b)
            }
        }
        impl BinaryFn<$t> for Mul {
            #[inline(always)]
            fn call(a: $t, b: $t) -> $t {
                a.wrapping_mul(b)
            }
        }
        impl BinaryFn<$t> for Maximum {
            #[inline(always)]
            fn call(a: $t, b: $t) -> $t {
                a.max(b)
            }
        }
        impl BinaryFn<$t> for Minimum {
            #[inline(always)]
            fn call(a: $t, b: $t) -> $t {
                a.min(b)
            }
        }
    };
}
int_fns!(i8);
int_fns!(i16);
int_fns!(i32);
int_fns!(i64);
int_fns!(u8);
int_fns!(u16);
int_fns!(u32);
int_fns!(u64);

macro_rules! abs_fns {
    (signed: $($t:ty),*; unsigned: $($u:ty),*) => {
        $(impl UnaryFn<$t> for Abs {
            #[inline(always)]
            fn call<const FMA: bool>(x: $t) -> $t {
                x.wrapping_abs()
            }
        })*
        $(impl UnaryFn<$u> for Abs {
            #[inline(always)]
            fn call<const FMA: bool>(x: $u) -> $u {
                x
            }
        })*
    };
}
abs_fns!(signed: i8, i16, i32, i64; unsigned: u8, u16, u32, u64);

// bool: NumPy's `maximum` and `minimum` of bools are `or` and `and`.
// NumPy's bool loops: `+` is logical or, `*` logical and (`-` has none).
impl BinaryFn<bool> for Add {
    #[inline(always)]
    fn call(a: bool, b: bool) -> bool {
        a | b
    }
}
impl BinaryFn<bool> for Mul {
    #[inline(always)]
    fn call(a: bool, b: bool) -> bool {
        a & b
    }
}
impl BinaryFn<bool> for Maximum {
    #[inline(always)]
    fn call(a: bool, b: bool) -> bool {
        a | b
    }
}
impl BinaryFn<bool> for Minimum {
    #[inline(always)]
    fn call(a: bool, b: bool) -> bool {
        a & b
    }
}

// --- loops ----------------------------------------------------------------

/// `dst[i] = f(src[i])`. Lengths are equal (checked by the caller).
#[inline(always)]
pub(super) fn map<T: Copy, F: UnaryFn<T>, const FMA: bool>(src: &[T], dst: &mut [MaybeUninit<T>]) {
    for (d, s) in dst.iter_mut().zip(src) {
        d.write(F::call::<FMA>(*s));
    }
}

/// Elements an in-place loop computes at a time into a block on the stack
/// before copying them back (see [`in_blocks`]).
const BLOCK: usize = 256;

/// Run an in-place loop block by block: `f(offset, src, out)` computes the
/// block `src` (starting at element `offset`) into `out`, which is then
/// copied over `src`. Written element by element in place instead, a loop
/// whose op leaves some elements unchanged (`relu`, `maximum`) is turned by
/// the compiler into masked stores of the changed ones, which some CPUs run
/// far slower than plain stores (AMD's `vmaskmovps`: relu in place on 4 MB
/// took 0.48 ms against 0.12 ms out of place); a block on the stack is in
/// L1 and costs a copy.
///
/// AVX-512's masked stores are fast, so its copy of the in-place loops
/// (`DIRECT`, from `isa_module!`) writes each element in place instead:
/// on a 2-core AMD EPYC with AVX-512, `relu_` over 4 MB took 0.13-0.14 ms
/// written in place against 0.25-0.30 through the block, and the AVX2
/// copy written in place 0.89-0.91 against 0.24-0.37 (the same machine,
/// capped to AVX2; docs/measurements.md has the table).
#[inline(always)]
pub(super) fn in_blocks<T: Copy>(buf: &mut [T], mut f: impl FnMut(usize, &[T], &mut [T])) {
    let Some(&first) = buf.first() else {
        return;
    };
    let mut tmp = [first; BLOCK];
    for (i, chunk) in buf.chunks_mut(BLOCK).enumerate() {
        let out = &mut tmp[..chunk.len()];
        f(i * BLOCK, chunk, out);
        chunk.copy_from_slice(out);
    }
}

/// `buf[i] = f(buf[i])`.
#[inline(always)]
pub(super) fn map_inplace<T: Copy, F: UnaryFn<T>, const FMA: bool, const DIRECT: bool>(
    buf: &mut [T],
) {
    if DIRECT {
        for x in buf.iter_mut() {
            *x = F::call::<FMA>(*x);
        }
        return;
    }
    in_blocks(buf, |_, src, out| {
        for (o, s) in out.iter_mut().zip(src) {
            *o = F::call::<FMA>(*s);
        }
    });
}

/// How each side of a binary loop is read: element by element, or one value
/// broadcast over the whole run.
#[derive(Debug, Clone, Copy)]
pub enum Side<'a, T> {
    Slice(&'a [T]),
    Scalar(T),
}

impl<T: Copy> Side<'_, T> {
    /// Elements `start..start + len` of the run (a scalar stays itself).
    #[inline]
    pub(crate) fn part(self, start: usize, len: usize) -> Self {
        match self {
            Side::Slice(v) => Side::Slice(&v[start..start + len]),
            scalar @ Side::Scalar(_) => scalar,
        }
    }

    /// Element `k` of the run.
    #[inline(always)]
    pub(crate) fn at(&self, k: usize) -> T {
        match self {
            Side::Slice(v) => v[k],
            Side::Scalar(v) => *v,
        }
    }
}

/// `dst[i] = f(a[i], b[i])` with either side possibly a broadcast scalar.
#[inline(always)]
pub(super) fn zip<T: Copy, F: BinaryFn<T>>(
    a: Side<'_, T>,
    b: Side<'_, T>,
    dst: &mut [MaybeUninit<T>],
) {
    match (a, b) {
        (Side::Slice(a), Side::Slice(b)) => {
            for ((d, x), y) in dst.iter_mut().zip(a).zip(b) {
                d.write(F::call(*x, *y));
            }
        }
        (Side::Slice(a), Side::Scalar(y)) => {
            for (d, x) in dst.iter_mut().zip(a) {
                d.write(F::call(*x, y));
            }
        }
        (Side::Scalar(x), Side::Slice(b)) => {
            for (d, y) in dst.iter_mut().zip(b) {
                d.write(F::call(x, *y));
            }
        }
        (Side::Scalar(x), Side::Scalar(y)) => {
            let v = F::call(x, y);
            for d in dst.iter_mut() {
                d.write(v);
            }
        }
    }
}

/// `a[i] = f(a[i], b[i])`: the result overwrites the left operand.
#[inline(always)]
pub(super) fn zip_into_lhs<T: Copy, F: BinaryFn<T>, const DIRECT: bool>(
    a: &mut [T],
    b: Side<'_, T>,
) {
    if DIRECT {
        match b {
            Side::Slice(b) => {
                for (x, y) in a.iter_mut().zip(b) {
                    *x = F::call(*x, *y);
                }
            }
            Side::Scalar(y) => {
                for x in a.iter_mut() {
                    *x = F::call(*x, y);
                }
            }
        }
        return;
    }
    match b {
        Side::Slice(b) => in_blocks(a, |off, src, out| {
            for ((o, x), y) in out.iter_mut().zip(src).zip(&b[off..]) {
                *o = F::call(*x, *y);
            }
        }),
        Side::Scalar(y) => in_blocks(a, |_, src, out| {
            for (o, x) in out.iter_mut().zip(src) {
                *o = F::call(*x, y);
            }
        }),
    }
}

/// `b[i] = f(a[i], b[i])`: the result overwrites the right operand.
#[inline(always)]
pub(super) fn zip_into_rhs<T: Copy, F: BinaryFn<T>, const DIRECT: bool>(
    a: Side<'_, T>,
    b: &mut [T],
) {
    if DIRECT {
        match a {
            Side::Slice(a) => {
                for (x, y) in a.iter().zip(b.iter_mut()) {
                    *y = F::call(*x, *y);
                }
            }
            Side::Scalar(x) => {
                for y in b.iter_mut() {
                    *y = F::call(x, *y);
                }
            }
        }
        return;
    }
    match a {
        Side::Slice(a) => in_blocks(b, |off, src, out| {
            for ((o, x), y) in out.iter_mut().zip(&a[off..]).zip(src) {
                *o = F::call(*x, *y);
            }
        }),
        Side::Scalar(x) => in_blocks(b, |_, src, out| {
            for (o, y) in out.iter_mut().zip(src) {
                *o = F::call(x, *y);
            }
        }),
    }
}
