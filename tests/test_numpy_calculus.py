"""NumPy's differences, integrals, polynomials and sequence products on
tensors, which donate used to refuse ("no implementation found"):
`gradient` (spacings, coordinates, both edge orders), `trapezoid`,
`convolve` and `correlate` (every mode, every pair of lengths, complex),
`cross` (2 and 3 components, axes), `sinc`, `polyval`, `vander`;
against NumPy as the oracle for values, dtypes and shapes, and NumPy's
errors."""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import donate
from helpers import close as check
from helpers import raises_as_numpy

RNG = np.random.default_rng(1)
F = RNG.normal(size=(5, 6))
XS = np.array([0.0, 1.0, 1.5, 3.5, 4.0, 6.0])
A3, B3 = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))


def tensors(args: tuple[Any, ...]) -> list[Any]:
    return [donate.asarray(a) if isinstance(a, np.ndarray) else a for a in args]




CASES: list[tuple[str, Callable[..., Any], tuple[Any, ...], float]] = [
    ("gradient", np.gradient, (F,), 1e-13),
    ("gradient float32", np.gradient, (F.astype(np.float32),), 1e-6),
    ("gradient edge_order=2", lambda x: np.gradient(x, edge_order=2), (F,), 1e-13),
    ("gradient spacing per axis", lambda x: np.gradient(x, 0.5, 2.0), (F,), 1e-13),
    ("gradient coordinates", lambda x: np.gradient(x, XS, axis=1), (F,), 1e-13),
    ("gradient coordinates edge_order=2", lambda x: np.gradient(x, XS, axis=1, edge_order=2),
     (F,), 1e-13),
    ("gradient of integers", np.gradient, (np.array([1, 2, 4, 7, 11, 16]),), 1e-13),
    ("gradient uniform coordinates", lambda x: np.gradient(x, np.arange(6.0) * 3), (XS,), 1e-13),
    ("trapezoid", np.trapezoid, (F,), 1e-13),
    ("trapezoid at x", lambda y: np.trapezoid(y, XS), (F,), 1e-13),
    ("trapezoid of integers", np.trapezoid, (np.arange(5),), 1e-13),
    ("trapezoid dx along axis 0", lambda y: np.trapezoid(y, dx=0.3, axis=0), (F,), 1e-13),
    ("cross", np.cross, (A3, B3), 1e-13),
    ("cross of integers", np.cross, (np.array([1, 2, 3]), np.array([4, 5, 6])), 0),
    ("cross broadcast", np.cross, (A3, np.array([0.0, 0, 1])), 1e-13),
    ("cross along axis 0", lambda a, b: np.cross(a, b, axisa=0, axisb=0, axisc=0),
     (A3.T.copy(), B3.T.copy()), 1e-13),
    ("sinc", np.sinc, (np.array([0.0, 0.5, 1, -2.5]),), 1e-13),
    ("sinc of integers", np.sinc, (np.arange(-2, 3),), 1e-13),
    ("sinc float32", np.sinc, (np.array([0.0, 0.5], np.float32),), 1e-6),
    ("polyval", np.polyval, (np.array([3.0, 0, 1]), np.array([5.0, 2])), 0),
    ("polyval of integers", np.polyval, (np.array([3, 0, 1]), np.array([5, 2])), 0),
    ("vander", np.vander, (np.array([1, 2, 3, 5]),), 0),
    ("vander increasing N", lambda x: np.vander(x, 3, True), (np.array([1.0, 2, 3, 5]),), 0),
    ("vander float32 gives float64", np.vander, (np.array([1.5, 2], np.float32),), 0),
    ("vander N=0", lambda x: np.vander(x, 0), (np.array([1.0, 2]),), 0),
]


@pytest.mark.parametrize("name, f, args, rtol", CASES, ids=[c[0] for c in CASES])
def test_against_numpy(name: str, f: Callable[..., Any], args: tuple[Any, ...],
                       rtol: float) -> None:
    check(f(*tensors(args)), f(*args), rtol)


@pytest.mark.parametrize("b", [np.array([4.0, 5]), np.array([4.0, 5, 6])])
def test_cross_of_two_component_vectors_as_the_installed_numpy(b: np.ndarray) -> None:
    # Deprecated in NumPy 2.0 (a DeprecationWarning), refused by later
    # releases: donate does what the installed NumPy does, warning included.
    a = np.array([1.0, 2])
    with warnings.catch_warnings(record=True) as numpy_warned:
        warnings.simplefilter("always")
        try:
            want = np.cross(a, b)
        except ValueError as refusal:
            with pytest.raises(ValueError, match=re.escape(str(refusal))):
                np.cross(donate.asarray(a), donate.asarray(b))
            return
    with warnings.catch_warnings(record=True) as donate_warned:
        warnings.simplefilter("always")
        got = np.cross(donate.asarray(a), donate.asarray(b))
    check(got, want)
    assert [(w.category, str(w.message)) for w in donate_warned] == \
        [(w.category, str(w.message)) for w in numpy_warned]
    # Every call warns, as NumPy's does (the answer is not cached away).
    with pytest.warns(DeprecationWarning) if numpy_warned else warnings.catch_warnings():
        np.cross(donate.asarray(a), donate.asarray(b))


@pytest.mark.parametrize("f", [np.convolve, np.correlate])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate_every_pair_of_lengths(f: Any, mode: str) -> None:
    rng = np.random.default_rng(2)
    for n in range(1, 7):
        for m in range(1, 7):
            a = rng.normal(size=n)
            v = rng.normal(size=m) + (1j * rng.normal(size=m) if (n + m) % 3 == 0 else 0)
            check(f(donate.asarray(a), donate.asarray(v), mode), f(a, v, mode), 1e-12)
    i = np.arange(5, dtype=np.int32)
    check(f(donate.asarray(i), donate.asarray(i[:3]), mode), f(i, i[:3], mode), 0)


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=3, max_side=6),
                  elements=st.floats(-100, 100)), st.integers(1, 2), st.data())
def test_gradient_hypothesis(x: np.ndarray, edge_order: int, data: Any) -> None:
    axis = data.draw(st.integers(0, x.ndim - 1))
    coords = np.cumsum(data.draw(hnp.arrays(np.float64, x.shape[axis],
                                            elements=st.floats(0.25, 4.0))))
    check(np.gradient(donate.asarray(x), coords, axis=axis, edge_order=edge_order),
          np.gradient(x, coords, axis=axis, edge_order=edge_order), 1e-9)
    check(np.gradient(donate.asarray(x), edge_order=edge_order),
          np.gradient(x, edge_order=edge_order), 1e-12)


ERRORS: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
    ("gradient too short", lambda x: np.gradient(x, edge_order=2), (np.arange(2.0),)),
    ("gradient edge_order", lambda x: np.gradient(x, edge_order=3), (np.arange(5.0),)),
    ("gradient coordinate length", lambda x: np.gradient(x, np.arange(3.0)), (np.arange(5.0),)),
    ("gradient spacings count", lambda x: np.gradient(x, 1.0, 2.0), (np.arange(5.0),)),
    ("convolve empty", np.convolve, (np.zeros(0), np.ones(2))),
    ("convolve 2-d", np.convolve, (np.ones((2, 2)), np.ones(2))),
    ("convolve mode", lambda a, b: np.convolve(a, b, "nope"), (np.ones(3), np.ones(2))),
    ("cross dimension", np.cross, (np.ones(4), np.ones(3))),
    ("vander 2-d", np.vander, (np.ones((2, 2)),)),
]


@pytest.mark.parametrize("name, f, args", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_as_numpy_s(name: str, f: Callable[..., Any], args: tuple[Any, ...]) -> None:
    raises_as_numpy(f, args)


POLY_A, POLY_B, POLY_I = np.array([1.0, 2, 3]), np.array([4.0, 5]), np.array([1, 2, 3])


@pytest.mark.parametrize("call,args", [
    (np.polyadd, (POLY_A, POLY_B)), (np.polyadd, (POLY_B, POLY_A)), (np.polyadd, (POLY_I, POLY_B)),
    (np.polysub, (POLY_A, POLY_B)), (np.polymul, (POLY_A, POLY_B)), (np.polymul, (POLY_I, POLY_I)),
    (np.polyder, (POLY_A,)), (lambda p: np.polyder(p, 2), (POLY_A,)), (lambda p: np.polyder(p, 0), (POLY_A,)),
    (np.polyder, (POLY_I,)), (np.polyint, (POLY_A,)), (lambda p: np.polyint(p, 2, k=[1, 2]), (POLY_A,)),
    (np.polyint, (POLY_I,)), (np.polyint, (POLY_A.astype(np.float32),)), (lambda p: np.polyint(p, 3, k=5), (POLY_A,)),
    (np.polyint, (POLY_A + 1j,)), (np.polydiv, (np.array([1.0, -3, 2]), np.array([1.0, -1]))),
    (np.polydiv, (np.array([3.0, 5, 2, 1]), np.array([2.0, 1]))), (np.polydiv, (np.array([1, 2, 1]), np.array([1, 1]))),
    (np.polydiv, (np.array([1.0, 2]), np.array([1.0, 2, 3]))),
], ids=["add", "add longer second", "add int", "sub", "mul", "mul int", "der", "der 2", "der 0", "der int", "int",
        "int 2 k", "int of int", "int float32", "int k scalar", "int complex", "div exact", "div remainder",
        "div int", "div by longer"])
def test_polynomial_arithmetic_as_numpy(call: Callable[..., Any], args: tuple[np.ndarray, ...]) -> None:
    check(call(*(donate.asarray(a) for a in args)), call(*args))


def test_polynomial_orders_must_be_positive_as_numpy() -> None:
    for f in (np.polyder, np.polyint):
        with pytest.raises(ValueError):
            f(POLY_A, -1)
        with pytest.raises(ValueError):
            f(donate.asarray(POLY_A), -1)


@pytest.mark.parametrize("x", [np.linspace(-30, 30, 1001), np.linspace(-30, 30, 1001).astype(np.float32),
                               np.arange(-5, 20), np.array([0.0, 8.0, 8.000001, 700.0])],
                         ids=["float64", "float32", "int", "edges"])
def test_i0_is_numpy_s_series(x: np.ndarray) -> None:
    """NumPy's Chebyshev series, term for term: equal to NumPy's within the
    last bit of `exp` (donate's and NumPy's `exp` may round apart)."""
    want = np.i0(x)
    check(np.i0(donate.asarray(x)), want, rtol=1e-6 if want.dtype == np.float32 else 1e-15)


def test_i0_of_complex_values_raises_as_numpy() -> None:
    with pytest.raises(TypeError):
        np.i0(np.array([1j]))
    with pytest.raises(TypeError):
        np.i0(donate.asarray(np.array([1j])))
