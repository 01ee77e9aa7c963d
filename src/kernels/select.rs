//! Element-wise selection of three broadcast operands: `where` (a bool
//! condition choosing between two values) and `clip` (a value clamped
//! between two bounds, NaN propagating).
//!
//! An operand is read as a [`Src`]: one element repeated, or a slice with
//! one element per output element (an operand of another shape is copied
//! to the output's shape first, by the caller).

/// An operand of a selection, per output element.
#[derive(Clone, Copy)]
pub(crate) enum Src<'a, T> {
    One(T),
    Each(&'a [T]),
}

impl<T: Copy> Src<'_, T> {
    #[inline(always)]
    pub(crate) fn at(&self, i: usize) -> T {
        match self {
            Src::One(v) => *v,
            Src::Each(s) => s[i],
        }
    }
}

/// NaN-propagating maximum and minimum over any element type (`x != x`
/// only for NaN).
#[inline(always)]
#[allow(clippy::eq_op)] // the NaN test
fn maximum<T: crate::RealElement>(a: T, b: T) -> T {
    if a != a || a > b {
        a
    } else {
        b
    }
}

#[inline(always)]
#[allow(clippy::eq_op)] // the NaN test
fn minimum<T: crate::RealElement>(a: T, b: T) -> T {
    if a != a || a < b {
        a
    } else {
        b
    }
}

/// `clip(x, lo, hi)`: `min(max(x, lo), hi)`, NaN in any operand giving NaN.
#[inline(always)]
pub(crate) fn clip_one<T: crate::RealElement>(x: T, lo: Option<T>, hi: Option<T>) -> T {
    let v = lo.map_or(x, |l| maximum(x, l));
    hi.map_or(v, |h| minimum(v, h))
}

/// The `n` results of `where(c, a, b)`, in order.
pub(crate) fn where_iter<'a, T: Copy + 'a>(
    c: Src<'a, bool>,
    a: Src<'a, T>,
    b: Src<'a, T>,
    n: usize,
) -> impl Iterator<Item = T> + 'a {
    (0..n).map(move |i| if c.at(i) { a.at(i) } else { b.at(i) })
}

/// `where` into the buffer of `a` (`into_a`) or `b`, which has the
/// output's shape; the other value and the condition are read.
pub(crate) fn where_into<T: Copy>(io: &mut [T], c: Src<'_, bool>, other: Src<'_, T>, into_a: bool) {
    for (i, v) in io.iter_mut().enumerate() {
        if c.at(i) != into_a {
            *v = other.at(i);
        }
    }
}

/// The `n` results of `clip(x, lo, hi)`, in order.
pub(crate) fn clip_iter<'a, T: crate::RealElement>(
    x: Src<'a, T>,
    lo: Option<Src<'a, T>>,
    hi: Option<Src<'a, T>>,
    n: usize,
) -> impl Iterator<Item = T> + 'a {
    (0..n).map(move |i| clip_one(x.at(i), lo.map(|l| l.at(i)), hi.map(|h| h.at(i))))
}

/// `clip` into `x`'s own buffer (of the output's shape).
pub(crate) fn clip_into<T: crate::RealElement>(
    io: &mut [T],
    lo: Option<Src<'_, T>>,
    hi: Option<Src<'_, T>>,
) {
    for (i, v) in io.iter_mut().enumerate() {
        *v = clip_one(*v, lo.map(|l| l.at(i)), hi.map(|h| h.at(i)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_propagates_nan_and_clamps() {
        assert_eq!(clip_one(5_i8, Some(0), Some(3)), 3);
        assert_eq!(clip_one(-5_i8, Some(0), None), 0);
        assert!(clip_one(f32::NAN, Some(0.0), Some(1.0)).is_nan());
        assert!(clip_one(0.5_f64, Some(f64::NAN), None).is_nan());
        assert!(clip_one(0.5_f64, None, Some(f64::NAN)).is_nan());
    }

    #[test]
    fn where_picks_and_writes_in_place() {
        let c = [true, false, true];
        let got: Vec<i32> =
            where_iter(Src::Each(&c), Src::Each(&[1, 2, 3]), Src::One(9), 3).collect();
        assert_eq!(got, [1, 9, 3]);
        let mut io = [1, 2, 3];
        where_into(&mut io, Src::Each(&c), Src::One(9), true);
        assert_eq!(io, [1, 9, 3]);
        let mut io = [7, 8, 9];
        where_into(&mut io, Src::Each(&c), Src::Each(&[1, 2, 3]), false);
        assert_eq!(io, [1, 8, 3]);
    }
}
