"""NumPy's least squares, eigenproblems, polynomial roots and phase
unwrapping on tensors, which donate used to refuse ("no implementation
found"): `np.linalg.lstsq`, `np.linalg.cond`, `np.polyfit`,
`np.linalg.eig`, `np.linalg.eigvals`, `np.roots`, `np.poly` and
`np.unwrap`; against NumPy as the oracle for values (within rounding:
the factorisations are not LAPACK's), dtypes, shapes, the rank and the
class of error."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import donate

RNG = np.random.default_rng(7)
A = RNG.random((6, 3))
B1 = RNG.random(6)
B2 = RNG.random((6, 2))


def close(got: Any, want: Any, rtol: float) -> None:
    assert isinstance(got, donate.Tensor), type(got)
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    atol = 1e-5 if w.dtype in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def rtol_of(*arrays: np.ndarray) -> float:
    return 1e-5 if all(a.dtype in (np.float32, np.complex64) for a in arrays) else 1e-9


LSTSQ = [
    (A, B1), (A, B2), (A.astype(np.float32), B1.astype(np.float32)),
    (A[:2], B1[:2]),  # fewer rows than columns: no residuals
    (np.zeros((4, 2)), np.ones(4)),  # rank 0
    (np.ones((3, 2), int), np.ones(3, int)),  # integers: float64
    (A + 1j * RNG.random((6, 3)), B1),  # complex
    (np.c_[A, A[:, 0]], B1),  # rank-deficient: no residuals
    (np.zeros((0, 2)), np.zeros(0)),  # no rows
]


@pytest.mark.parametrize("a,b", LSTSQ)
def test_lstsq_as_numpy(a: np.ndarray, b: np.ndarray) -> None:
    x, res, rank, s = np.linalg.lstsq(a, b)
    gx, gres, grank, gs = np.linalg.lstsq(donate.asarray(a), donate.asarray(b))
    tol = rtol_of(a, b)
    close(gx, x, tol)
    close(gres, res, tol)
    close(gs, s, tol)
    assert grank == rank and isinstance(grank, int)


@pytest.mark.parametrize("a,b", [(np.ones((2, 3, 3)), np.ones((2, 3))), (A, B1[:4]), (A, np.ones((6, 2, 2)))])
def test_lstsq_refuses_as_numpy(a: np.ndarray, b: np.ndarray) -> None:
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.lstsq(a, b)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.lstsq(donate.asarray(a), donate.asarray(b))


COND = [
    (np.array([[1.0, 2], [3, 4]]), None), (np.array([[1.0, 2], [3, 4]]), 1),
    (np.array([[1.0, 2], [3, 4]]), "fro"), (np.array([[1.0, 2], [3, 4]]), "nuc"),
    (np.array([[1.0, 2], [2, 4]]), 1),  # singular: inf
    (np.ones((2, 3, 3)), "fro"),  # a stack of singular matrices
    (np.stack([np.eye(2), np.ones((2, 2))]), 1),  # one singular matrix in a stack
    (RNG.random((2, 3, 3)), np.inf), (RNG.random((2, 3, 3)), -np.inf),
    (RNG.random((3, 4)), None), (RNG.random((3, 4)), -2), (RNG.random((4, 4)), 2),
    (np.eye(3, dtype=np.float32), None), (np.eye(3, dtype=int), 1),
]


@pytest.mark.parametrize("x,p", COND)
def test_cond_as_numpy(x: np.ndarray, p: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.linalg.cond(x, p)
    close(np.linalg.cond(donate.asarray(x), p), want, rtol_of(x))


def test_cond_of_a_non_square_matrix_in_another_norm_raises_as_numpy() -> None:
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cond(np.ones((2, 3)), 1)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cond(donate.asarray(np.ones((2, 3))), 1)


XS = np.linspace(0, 1, 20)
YS = 3 * XS**2 - XS + 0.5 + 0.01 * np.sin(40 * XS)


@pytest.mark.parametrize("kwargs", [{}, {"w": np.linspace(1, 2, 20)}, {"cov": True}, {"cov": "unscaled"},
                                    {"rcond": 1e-3}], ids=["plain", "weights", "cov", "cov unscaled", "rcond"])
@pytest.mark.parametrize("y", [YS, np.stack([YS, 2 * YS], axis=1)], ids=["1-d", "2-d"])
def test_polyfit_as_numpy(kwargs: dict[str, Any], y: np.ndarray) -> None:
    want = np.polyfit(XS, y, 2, **kwargs)
    got = np.polyfit(donate.asarray(XS), donate.asarray(y), 2,
                     **{k: donate.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()})
    for g, w in zip(got if isinstance(want, tuple) else [got], want if isinstance(want, tuple) else [want]):
        close(g, w, 1e-8)


def test_polyfit_full_and_float32_as_numpy() -> None:
    c, res, rank, s, rcond = np.polyfit(XS, YS, 3, full=True)
    gc, gres, grank, gs, grcond = np.polyfit(donate.asarray(XS), donate.asarray(YS), 3, full=True)
    close(gc, c, 1e-8)
    close(gres, res, 1e-8)
    close(gs, s, 1e-8)
    assert (grank, grcond) == (rank, rcond)
    x32, y32 = XS.astype(np.float32), YS.astype(np.float32)
    close(np.polyfit(donate.asarray(x32), donate.asarray(y32), 1), np.polyfit(x32, y32, 1), 1e-4)


def test_polyfit_warns_and_refuses_as_numpy() -> None:
    with pytest.warns(np.exceptions.RankWarning):
        np.polyfit(donate.asarray(np.ones(5)), donate.asarray(np.ones(5)), 2)
    for args in [(np.ones((2, 2)), np.ones(2), 1), (np.ones(3), np.ones(4), 1), (np.ones(0), np.ones(0), 1)]:
        with pytest.raises(TypeError):
            np.polyfit(*args)
        with pytest.raises(TypeError):
            np.polyfit(*(donate.asarray(a) if isinstance(a, np.ndarray) else a for a in args))
    with pytest.raises(ValueError):
        np.polyfit(donate.asarray(XS), donate.asarray(YS), -1)


PHASE = np.cumsum(RNG.normal(0, 2.5, (4, 30)), axis=1)

UNWRAP = [
    (PHASE % (2 * np.pi), {}), (PHASE % (2 * np.pi), {"axis": 0}), (PHASE.astype(np.float32) % 6, {}),
    (np.array([0, 1, 2, -1, 0, 4, 5]), {"period": 4}),  # integers, an even period
    (np.array([0, 1, 2, -1, 0]), {"period": 5}),  # integers, an odd period
    (np.array([0.0, 3.5, 0.5]), {"discont": 4.0}), (np.array([5.0]), {}),
    (np.arange(10) * 3 % 7, {}),  # integers: float64
    (np.array([0.0, np.pi, 0]), {}), (np.array([0.0, -np.pi, 0]), {}),  # jumps of exactly pi
]


@pytest.mark.parametrize("x,kwargs", UNWRAP)
def test_unwrap_as_numpy(x: np.ndarray, kwargs: dict[str, Any]) -> None:
    close(np.unwrap(donate.asarray(x), **kwargs), np.unwrap(x, **kwargs), 1e-6 if x.dtype == np.float32 else 1e-12)


def test_unwrap_axis_out_of_range_raises_as_numpy() -> None:
    with pytest.raises(np.exceptions.AxisError):
        np.unwrap(np.zeros(3), axis=2)
    with pytest.raises(np.exceptions.AxisError):
        np.unwrap(donate.asarray(np.zeros(3)), axis=2)


def _pairs_hold(a: np.ndarray, w: np.ndarray, v: np.ndarray, tol: float) -> None:
    """`a @ v = v * w` for every stacked matrix, each column of unit norm."""
    np.testing.assert_allclose(a.astype(v.dtype) @ v, v * w[..., None, :], atol=tol)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, atol=tol)


def _sorted(w: np.ndarray) -> np.ndarray:
    return np.sort_complex(w.reshape(-1, w.shape[-1])).reshape(w.shape) if w.dtype.kind == "c" else np.sort(w, axis=-1)


EIG = [
    np.array([[2.0, 1.0], [1.0, 3.0]]),  # real eigenvalues: real results before NumPy 2.5
    np.array([[0.0, -1.0], [1.0, 0.0]]),  # a rotation: +-i
    RNG.random((4, 4)),
    RNG.random((3, 5, 5)).astype(np.float32),  # a stack, float32
    RNG.random((3, 3)) + 1j * RNG.random((3, 3)),  # complex stays complex
    np.array([[1.0, 0.0], [0.0, 1.0]]) + 0j,  # complex with real eigenvalues: complex
    np.arange(9).reshape(3, 3),  # integers: float64
    np.triu(RNG.random((4, 4))),  # triangular: the diagonal
]


@pytest.mark.parametrize("a", EIG)
def test_eig_and_eigvals_as_numpy(a: np.ndarray) -> None:
    w, v = np.linalg.eig(a)
    res = np.linalg.eig(donate.asarray(a))
    assert type(res).__name__ == "EigResult"
    gw, gv = np.asarray(res.eigenvalues), np.asarray(res.eigenvectors)
    assert (gw.dtype, gw.shape, gv.dtype, gv.shape) == (w.dtype, w.shape, v.dtype, v.shape)
    tol = 1e-4 if w.dtype in (np.float32, np.complex64) else 1e-10
    np.testing.assert_allclose(_sorted(gw), _sorted(w), atol=tol)
    _pairs_hold(a, gw, gv, tol)
    ev = np.asarray(np.linalg.eigvals(donate.asarray(a)))
    assert ev.dtype == np.linalg.eigvals(a).dtype
    np.testing.assert_allclose(_sorted(ev), _sorted(w), atol=tol)


@pytest.mark.parametrize("always_complex", [True, False], ids=["NumPy 2.5 on", "before NumPy 2.5"])
def test_eig_follows_either_numpy_rule(monkeypatch: pytest.MonkeyPatch, always_complex: bool) -> None:
    """Both of NumPy's rules, whichever NumPy is installed: complex always
    (2.5 on), or real when every eigenvalue of a real input is (before);
    `roots` real when every root is, under both."""
    from donate import _numpy_solvers

    monkeypatch.setattr(_numpy_solvers, "_eig_always_complex", lambda: always_complex)
    a = donate.asarray(np.array([[2.0, 1.0], [1.0, 3.0]]))
    w, v = np.linalg.eig(a)
    want = donate.complex128 if always_complex else donate.float64
    assert (w.dtype, v.dtype, np.linalg.eigvals(a).dtype) == (want, want, want)
    rotation = donate.asarray(np.array([[0.0, -1.0], [1.0, 0.0]]))
    assert np.linalg.eigvals(rotation).dtype == donate.complex128
    assert np.roots(donate.asarray(np.array([1.0, -3.0, 2.0]))).dtype == donate.float64
    assert np.poly(a).dtype == donate.float64


def test_eig_refuses_as_numpy() -> None:
    for a in (np.ones((2, 3)), np.ones(3), np.array([[np.nan, 1.0], [1.0, 1.0]])):
        with pytest.raises(np.linalg.LinAlgError):
            np.linalg.eig(a)
        with pytest.raises(np.linalg.LinAlgError):
            np.linalg.eig(donate.asarray(a))


def test_donate_linalg_eig_is_complex_and_traced_by_jit() -> None:
    """The namespace's `eig` has a dtype known before the values: complex
    even when every eigenvalue is real (whatever the installed NumPy's
    `eig` does, which the test above follows)."""
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    w, v = donate.linalg.eig(donate.asarray(a))
    assert (w.dtype, v.dtype) == (donate.complex128, donate.complex128)
    jw, jv = donate.jit(lambda x: tuple(donate.linalg.eig(x)))(donate.asarray(a))
    np.testing.assert_array_equal(np.asarray(jw), np.asarray(w))
    np.testing.assert_array_equal(np.asarray(jv), np.asarray(v))
    assert donate.linalg.eigvals(donate.asarray(a.astype(np.float32))).dtype == donate.complex64


ROOTS = [
    np.array([1.0, -3.0, 2.0]),  # (x - 1)(x - 2)
    np.array([1.0, 0.0, 1.0]),  # +-i
    np.array([0.0, 0.0, 1.0, -6.0, 11.0, -6.0, 0.0, 0.0]),  # zeros around 1, 2, 3
    np.array([2, -4]),  # integers
    np.array([5.0]), np.array([0.0, 0.0]),
    np.array([1.0, -1.0], np.float32),
    np.array([1.0, 2 + 1j, 3j]),  # complex coefficients
]


@pytest.mark.parametrize("p", ROOTS)
def test_roots_as_numpy(p: np.ndarray) -> None:
    want = np.roots(p)
    got = np.asarray(np.roots(donate.asarray(p)))
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    tol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-9
    np.testing.assert_allclose(_sorted(got), _sorted(want), atol=tol)


@pytest.mark.parametrize("z", [np.array([1.0, 2.0, 3.0]), np.array([1j, -1j, 2.0]), np.array([1j, 2.0]),
                               np.array([1, 2]), np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([], float),
                               np.array([0.5], np.float32)])
def test_poly_as_numpy(z: np.ndarray) -> None:
    want = np.poly(z)
    got = np.poly(donate.asarray(z))
    if isinstance(want, float):
        assert got == want
        return
    g = np.asarray(got)
    assert (g.dtype, g.shape) == (want.dtype, want.shape)
    np.testing.assert_allclose(g, want, atol=1e-6 if want.dtype == np.float32 else 1e-12)


def test_roots_and_poly_refuse_as_numpy() -> None:
    for f, x in ((np.roots, np.ones((2, 2))), (np.poly, np.ones((2, 3)))):
        with pytest.raises(ValueError):
            f(x)
        with pytest.raises(ValueError):
            f(donate.asarray(x))


@pytest.mark.parametrize("name,extra", [
    ("inv", ()), ("det", ()), ("cholesky", ()), ("eigh", ()), ("eigvalsh", ()), ("slogdet", ()),
    ("eig", ()), ("eigvals", ()), ("svd", ()), ("qr", ()), ("pinv", ()), ("svdvals", ()),
    ("matrix_power", (2,)), ("solve", (np.ones(2),)), ("tensorinv", ()),
])
@pytest.mark.parametrize("shape", [(2, 3), (3,)], ids=["not square", "1-d"])
def test_shape_errors_are_numpy_s_linalgerror(name: str, extra: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    """`except np.linalg.LinAlgError` catches what it catches with NumPy
    (donate's own shape errors are ValueErrors)."""
    f = getattr(np.linalg, name)
    x = np.ones(shape)
    try:
        f(x, *extra)
    except Exception as e:
        with pytest.raises(type(e)):
            f(donate.asarray(x), *extra)
    else:
        f(donate.asarray(x), *extra)


def test_tensorsolve_tensorinv_and_linalg_matmul_as_numpy() -> None:
    a, b = RNG.random((2, 3, 6)), RNG.random((2, 3))
    close(np.linalg.tensorsolve(donate.asarray(a), donate.asarray(b)), np.linalg.tensorsolve(a, b), 1e-9)
    a2 = RNG.random((6, 2, 3))
    close(np.linalg.tensorsolve(donate.asarray(a2), donate.asarray(b), axes=(0,)),
          np.linalg.tensorsolve(a2, b, axes=(0,)), 1e-9)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.tensorsolve(donate.asarray(RNG.random((2, 3, 5))), donate.asarray(b))
    t = RNG.random((4, 6, 8, 3))
    close(np.linalg.tensorinv(donate.asarray(t)), np.linalg.tensorinv(t), 1e-8)
    t1 = RNG.random((6, 2, 3))
    close(np.linalg.tensorinv(donate.asarray(t1), 1), np.linalg.tensorinv(t1, 1), 1e-8)
    x, y = RNG.random((3, 4)), RNG.random((4, 2))
    close(np.linalg.matmul(donate.asarray(x), donate.asarray(y)), np.linalg.matmul(x, y), 1e-12)
