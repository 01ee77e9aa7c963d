"""NumPy's own `np.linalg` keywords and forms on donate tensors, each a
call that raised (or, for `pinv`'s default cut-off, differed from NumPy
2.4) before: `eigh`/`eigvalsh(UPLO=)`, `pinv(rcond=, hermitian=, rtol=)`
with NumPy's default cut-off, `matrix_rank(tol=, hermitian=, rtol=)` and of
a vector, `qr(mode="r")`, `svd(hermitian=True)`, `matrix_power` of
integers to negative powers and of booleans; and the creation functions
with NumPy scalars (`arange(np.int64(5))`, `full(n, np.float32(x))`)."""

from __future__ import annotations

import numpy as np
import pytest

import donate

A = donate.asarray
RNG = np.random.default_rng(11)


def close(r, n, rtol=1e-10) -> None:
    r = np.asarray(r)
    assert r.dtype == n.dtype and r.shape == n.shape
    np.testing.assert_allclose(r, n, rtol=rtol, atol=rtol)


def nonsymmetric(dtype, n=4, batch=()):
    x = RNG.standard_normal((*batch, n, n))
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal((*batch, n, n))
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_and_eigvalsh_read_the_triangle_uplo_names(dtype, uplo):
    # Not symmetric: only the named triangle may be read.
    x = nonsymmetric(dtype, batch=(2,))
    w, v = np.linalg.eigh(A(x), UPLO=uplo)
    nw, _ = np.linalg.eigh(x, UPLO=uplo)
    close(w, nw)
    close(np.linalg.eigvalsh(A(x), UPLO=uplo), np.linalg.eigvalsh(x, UPLO=uplo))
    # The eigenvectors of the matrix that triangle describes.
    h = np.tril(x) if uplo == "L" else np.triu(x)
    h = h + np.conj(np.swapaxes(h, -1, -2))
    h[..., range(4), range(4)] = x[..., range(4), range(4)].real
    v = np.asarray(v)
    np.testing.assert_allclose(h @ v, v * np.asarray(w)[..., None, :], atol=1e-10)
    with pytest.raises(ValueError, match="UPLO"):
        np.linalg.eigh(A(x), UPLO="X")


def test_pinv_uses_numpys_default_cutoff_and_its_keywords():
    # float32 singular values 1, 1e-3 and 1e-9 (a permuted diagonal: its
    # SVD is exact): NumPy's default rcond (1e-15) inverts the smallest,
    # the standard's (max(M, N) * eps) drops it.
    p = np.eye(3)[[2, 0, 1]]
    x = (p @ np.diag([1.0, 1e-3, 1e-9]) @ p.T).astype(np.float32)
    n = np.linalg.pinv(x)
    assert n.max() > 1e8
    close(np.linalg.pinv(A(x)), n, rtol=1e-3)
    for kw in ({"rcond": 1e-5}, {"rtol": 1e-5}, {"rtol": None}, {"rcond": 1e-5, "hermitian": True}):
        close(np.linalg.pinv(A(x), **kw), np.linalg.pinv(x, **kw), rtol=1e-3)
    with pytest.raises(ValueError, match="rtol"):
        np.linalg.pinv(A(x), rcond=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_pinv_hermitian_reads_the_lower_triangle(dtype):
    x = nonsymmetric(dtype, batch=(2,))
    close(np.linalg.pinv(A(x), hermitian=True), np.linalg.pinv(x, hermitian=True), rtol=1e-8)


def test_matrix_rank_keywords_and_vectors():
    u, _ = np.linalg.qr(RNG.standard_normal((4, 4)))
    x = u @ np.diag([3.0, 1.0, 1e-6, 0.0]) @ u.T
    for kw in ({}, {"tol": 1e-3}, {"tol": 1e-9}, {"rtol": 1e-3}, {"hermitian": True},
               {"tol": 1e-3, "hermitian": True}):
        r, n = np.linalg.matrix_rank(A(x), **kw), np.linalg.matrix_rank(x, **kw)
        assert int(r) == int(n), kw
    stack = np.stack([x, np.eye(4)])
    np.testing.assert_array_equal(np.asarray(np.linalg.matrix_rank(A(stack), tol=[1e-3, 2.0])),
                                  np.linalg.matrix_rank(stack, tol=[1e-3, 2.0]))
    assert np.linalg.matrix_rank(A(np.array([0.0, 1.0]))) == 1
    assert np.linalg.matrix_rank(A(np.zeros(3))) == 0
    with pytest.raises(ValueError, match="rtol"):
        np.linalg.matrix_rank(A(x), tol=1.0, rtol=1.0)


def test_qr_mode_r_is_r_alone():
    x = RNG.standard_normal((2, 5, 3))
    r = np.linalg.qr(A(x), mode="r")
    n = np.linalg.qr(x, mode="r")
    close(np.abs(np.asarray(r)), np.abs(n))
    with pytest.raises(TypeError, match="raw"):
        np.linalg.qr(A(x), mode="raw")


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_svd_hermitian(dtype):
    x = nonsymmetric(dtype)
    x = x + np.conj(x.T)
    u, s, vh = np.linalg.svd(A(x), hermitian=True)
    _, ns, _ = np.linalg.svd(x, hermitian=True)
    close(s, ns)
    np.testing.assert_allclose(np.asarray(u) * np.asarray(s) @ np.asarray(vh), x, atol=1e-10)
    close(np.linalg.svd(A(x), compute_uv=False, hermitian=True),
          np.linalg.svd(x, compute_uv=False, hermitian=True))


def test_matrix_power_of_integers_and_booleans():
    i = np.array([[2, 1], [1, 3]])
    for n in (-3, -1):
        close(np.linalg.matrix_power(A(i), n), np.linalg.matrix_power(i, n))
    b = np.array([[[True, False], [True, False]], [[False, True], [False, False]]])
    for n in (0, 1, 2, 5):
        r = np.linalg.matrix_power(A(b), n)
        assert np.asarray(r).dtype == np.bool_
        np.testing.assert_array_equal(np.asarray(r), np.linalg.matrix_power(b, n))


@pytest.mark.parametrize("args", [(np.int64(5),), (np.int32(1), 7, np.int8(2)),
                                  (np.float32(0.5), 3.0), (np.float64(1), np.float64(2.5))])
def test_arange_takes_numpy_scalars(args):
    r = np.asarray(donate.arange(*args))
    n = np.arange(*args)
    np.testing.assert_array_equal(r, n)
    assert r.dtype.kind == n.dtype.kind


@pytest.mark.parametrize("v", [np.float32(1.5), np.int8(3), np.float64(0.25), np.bool_(True),
                               np.complex64(1 + 2j)])
def test_full_keeps_a_numpy_scalars_dtype(v):
    r = np.asarray(donate.full((2, 3), v))
    n = np.full((2, 3), v)
    assert r.dtype == n.dtype
    np.testing.assert_array_equal(r, n)
    if not isinstance(v, np.complexfloating):  # (donate refuses to drop an imaginary part)
        np.testing.assert_array_equal(np.asarray(donate.full_like(A(np.zeros(2)), v)),
                                      np.full_like(np.zeros(2), v))


def test_meshgrid_ravels_its_inputs_as_numpy():
    x, y = np.arange(4.0).reshape(2, 2), np.array([1.0, 2.0, 3.0])
    for r, n in zip(np.meshgrid(A(x), A(y)), np.meshgrid(x, y)):
        np.testing.assert_array_equal(np.asarray(r), n)


B3 = np.array([[[True, False], [True, True]], [[False, False], [True, False]]])
I3 = np.arange(8).reshape(2, 2, 2) - 3

PRODUCTS = {
    "dot": np.dot, "inner": np.inner, "tensordot": np.tensordot, "vecdot": np.vecdot,
    "outer": lambda x, y: np.outer(x, y), "linalg.vecdot": np.linalg.vecdot,
    "linalg.tensordot": np.linalg.tensordot,
    "linalg.outer": lambda x, y: np.linalg.outer(x[0, 0], y[0, 1]),
}


@pytest.mark.parametrize("name", sorted(PRODUCTS))
@pytest.mark.parametrize("pair", [(B3, B3), (B3, I3), (I3, B3)], ids=["bools", "bool-int", "int-bool"])
def test_sums_of_products_of_bools_as_numpy(name, pair):
    # Of two bools a bool (any product True), of a bool and a number the
    # number's dtype: NumPy's loops (the standard's functions take numbers).
    f = PRODUCTS[name]
    x, y = pair
    r, n = np.asarray(f(A(x), A(y))), f(x, y)
    assert r.dtype == n.dtype
    np.testing.assert_array_equal(r, n)
