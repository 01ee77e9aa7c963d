"""NumPy functions on donate tensors at edge values (infinities, NaNs in
complex numbers, the most negative integer, a NumPy scalar argument),
each case one that differed from NumPy 2.4 before it was fixed; and
functions that must return a new buffer although they change nothing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import donate

A = donate.asarray


def same(r, n) -> None:
    r = np.asarray(r)
    assert r.dtype == n.dtype and r.shape == n.shape
    np.testing.assert_array_equal(r, n)


@pytest.mark.parametrize("x", [[1.0, 2.0, np.inf], [np.inf], [1.0, np.inf], [-np.inf, np.inf],
                               [-np.inf, 1.0, 2.0, 3.0], [np.nan, np.inf]])
def test_median_of_a_slice_holding_an_infinity(x):
    # The middle value (or the mean of the two), never `inf * 0`.
    x = np.array(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same(np.median(A(x)), np.median(x))
        same(np.nanmedian(A(x)), np.nanmedian(x))


def test_median_and_nanmedian_along_axes_match_numpy():
    rng = np.random.default_rng(3)
    values = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 3.0])
    for dtype in (np.float16, np.float32, np.float64):
        x = rng.choice(values, size=(3, 4, 5)).astype(dtype)
        for axis in (None, 0, -1, (0, 2)):
            for f in (np.median, np.nanmedian):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    same(f(A(x), axis=axis, keepdims=True), f(x, axis=axis, keepdims=True))
    x = rng.integers(-50, 50, size=(4, 6)).astype(np.int8)
    same(np.median(A(x), axis=1), np.median(x, axis=1))


def test_a_numpy_scalar_quantile_promotes_with_the_data():
    x = np.float32([1, 2, 3, 4])
    for q in (np.float64(0.5), np.array(0.5), 0.5):
        assert np.quantile(A(x), q).dtype == np.quantile(x, q).dtype
    assert np.percentile(A(x), np.float64(50)).dtype == np.float64


def test_sort_complex_puts_nans_last_in_numpy_order():
    s = np.array([1 + 1j, complex(0, np.nan), 1 - 1j, 0j, complex(np.nan, 1),
                  complex(np.nan, np.nan), complex(np.nan, 0)])
    same(np.sort_complex(A(s)), np.sort_complex(s))


def test_unique_merges_complex_nans():
    s = np.array([complex(0, np.nan), complex(np.nan, 0), 1 + 0j, complex(np.nan, np.nan)])
    r, n = np.unique(A(s), return_inverse=True, return_counts=True), np.unique(s, return_inverse=True,
                                                                               return_counts=True)
    for a, b in zip(r, n):
        same(a, b)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_gcd_and_lcm_with_the_most_negative_integer(dtype):
    lo = np.iinfo(dtype).min
    x, y = np.array([3, 5, -1, lo, 0, 12], dtype), np.array([lo, lo, lo, lo, lo, -8], dtype)
    same(np.gcd(A(x), A(y)), np.gcd(x, y))
    a, b = np.array([-127, 6], dtype), np.array([126, -4], dtype)
    with np.errstate(over="ignore"):
        same(np.lcm(A(a), A(b)), np.lcm(a, b))


def test_reciprocal_into_an_integer_dtype_is_the_integer_reciprocal():
    x = np.int8([1, 2, -1, 3])
    same(np.reciprocal(A(x), dtype=np.int16), np.reciprocal(x, dtype=np.int16))
    same(np.reciprocal(A(x), dtype=np.float32), np.reciprocal(x, dtype=np.float32))


@pytest.mark.parametrize("weights", [np.int8([100, 100, 100]), np.uint8([1, 2, 3]),
                                     np.array([True, False, True]), np.float16([1, 2, 3]),
                                     np.float32([1e-8, 1.0, 1e8]), np.complex64([1j, 2, 3])])
def test_histogram_sums_weights_in_their_dtype(weights):
    x = np.array([0.5, 1.5, 2.5])
    # (NumPy's own sum of bool weights over uneven bins raises.)
    uneven = [] if weights.dtype == bool else [np.array([0.0, 1.0, 3.0])]
    for bins in [2, *uneven]:
        r, n = np.histogram(A(x), bins=bins, weights=A(weights)), np.histogram(x, bins=bins, weights=weights)
        same(r[0], n[0])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sinc_is_one_at_zero(dtype):
    x = np.array([0.0, -0.0, 0.5, 1.0], dtype)
    r, n = np.asarray(np.sinc(A(x))), np.sinc(x)
    assert r.dtype == n.dtype
    np.testing.assert_allclose(r, n, rtol=1e-3 if dtype == np.float16 else 1e-6)
    assert r[0] == r[1] == 1


# --- a new buffer although nothing changes ---------------------------------


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap"])
def test_pad_by_nothing_returns_a_new_buffer(mode):
    x = A(np.array([-1.0, 2.0, 3.0], np.float32))
    y = np.pad(x, 0, mode=mode)
    assert y is not x and y.data_ptr() != x.data_ptr()
    y += 10.0
    np.testing.assert_array_equal(np.asarray(x), [-1.0, 2.0, 3.0])
    np.pad(x, ((0, 0),), mode=mode).relu_donate()
    assert not x.is_donated


# --- arguments NumPy takes and donate refused ---------------------------------


def test_roll_adds_several_shifts_along_one_axis_or_the_flat_tensor():
    x = np.arange(12).reshape(3, 4)
    for shift, axis in (((1, 2), 1), ((1, 2), None), ((1, -5), -1), ((2, 1), (0, 1)), (3, (0, 1))):
        same(np.roll(A(x), shift, axis=axis), np.roll(x, shift, axis=axis))
        same(donate.roll(A(x), shift, axis=axis), np.roll(x, shift, axis=axis))
    with pytest.raises(ValueError):
        donate.roll(A(x), (1, 2), axis=(0, 1, 0))


@pytest.mark.parametrize("f", [np.sum, np.prod, np.mean, np.max, np.var])
def test_reductions_into_float16(f):
    x = np.float32([[1.5, 2.0, 3.25], [4.0, -1.0, 0.5]])
    kw = {} if f in (np.max, np.var) else {"dtype": np.float16}
    for data in (x, x.astype(np.float16)):
        for axis in (None, 0, (0, 1)):
            r, n = f(A(data), axis=axis, **kw), f(data, axis=axis, **kw)
            assert np.asarray(r).dtype == n.dtype
            np.testing.assert_allclose(np.asarray(r), n, rtol=2e-3)


def test_mean_into_a_small_integer_dtype_wraps_its_sum_as_numpy():
    x = np.uint8([100, 100, 100, 1])
    same(np.mean(A(x), dtype=np.uint8), np.mean(x, dtype=np.uint8))
    y = np.int8([[100, 100], [-7, 3]])
    same(np.mean(A(y), axis=1, dtype=np.int8), np.mean(y, axis=1, dtype=np.int8))


def test_inner_and_outer_of_bools_are_bool():
    a = np.array([[True, False], [False, True]])
    b = np.array([[True, True], [False, True], [False, False]])
    same(np.inner(A(a), A(b)), np.inner(a, b))
    same(np.outer(A(a), A(b)), np.outer(a, b))
    same(np.inner(A(a[0]), A(b[0])), np.inner(a[0], b[0]))


def test_complex_sign_of_an_infinite_part_is_its_direction():
    z = np.array([complex(0, np.inf), complex(-np.inf, 2), complex(1, -np.inf), 1e308 + 1e308j, 3 - 4j])
    np.testing.assert_allclose(np.asarray(np.sign(A(z))), np.sign(z), rtol=1e-15)
    both = np.asarray(np.sign(A(np.array([complex(np.inf, np.inf)]))))
    assert np.isnan(both.real).all() and np.isnan(both.imag).all()


def test_a_ufunc_with_a_numpy_operand_first_promotes_both():
    # (A regression while the reciprocal fix above was made: every operand
    # was cast to the first one's dtype.)
    t = A(np.array(0.5))
    same(np.arange(3) * t, np.arange(3) * np.array(0.5))
    same(np.add(A(np.array([1, 2])), 0.5), np.add(np.array([1, 2]), 0.5))
    same(np.array([1, 2], np.uint8) + A(np.array([300, 2])), np.array([1, 2], np.uint8) + np.array([300, 2]))


# --- linear algebra and creation ---------------------------------------------


def test_eigh_ignores_the_imaginary_part_of_the_diagonal():
    h = np.array([[1j, 0, 0], [1, 0, 0], [1, 1, 1j]])
    np.testing.assert_allclose(np.asarray(donate.linalg.eigvalsh(A(h))), np.linalg.eigvalsh(h), atol=1e-12)
    np.testing.assert_allclose(np.asarray(np.linalg.eigh(A(h))[0]), np.linalg.eigh(h)[0], atol=1e-12)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_det_of_a_matrix_with_a_non_finite_entry_above_the_diagonal(bad):
    for m in (np.array([[1.0, bad], [0.0, 1.0]]), np.array([[1.0, 2.0, bad], [0.0, 1.0, 3.0], [0.0, 0.0, 2.0]])):
        with np.errstate(invalid="ignore"):
            want, (sign, logdet) = np.linalg.det(m), np.linalg.slogdet(m)
        np.testing.assert_array_equal(np.asarray(donate.linalg.det(A(m))), want)
        r = donate.linalg.slogdet(A(m))
        np.testing.assert_array_equal(np.asarray(r[1]), logdet)


def test_cond_of_a_zero_matrix_is_inf():
    for p in (None, 2, -2, 1, "fro"):
        with np.errstate(all="ignore"):
            same(np.linalg.cond(A(np.zeros((3, 2, 2))), p), np.linalg.cond(np.zeros((3, 2, 2)), p))
    # (A NaN in the matrix stays NaN, in NumPy's rule: 1-norm through inv.)
    assert np.isnan(np.linalg.cond(A(np.array([[1.0, np.nan], [0.0, 1.0]])), 1))


def test_arange_with_no_stop_and_a_step():
    for args in ((5, None, 1), (5, None, 2), (-5, None, -1), (1, 5, None)):
        same(donate.arange(*args), np.arange(*args))
    same(donate.arange(5, step=2), np.arange(5, step=2))


@pytest.mark.parametrize("args, dtype", [
    ((2**40, 2**40 + 3), "int32"), ((-1, 2), "uint8"), ((0, 1000, 300), "int8"),
    ((2.5e10, 2.5e10 + 2, 1), "int32"), ((0, 2**40, 2**39), "int16"),
])
def test_arange_bounds_out_of_the_dtype_raise_as_numpy(args, dtype):
    # It computed in int64 and cast, wrapping 2**40 to 0 silently.
    with pytest.raises(OverflowError):
        np.arange(*args, dtype=dtype)
    with pytest.raises(OverflowError):
        donate.arange(*args, dtype=dtype)
    with pytest.raises(OverflowError):
        np.arange(*args, dtype=dtype, like=donate.ones(1))


@pytest.mark.parametrize("args, dtype", [
    ((0, 300, 100), "int8"), ((0, 1, 0.1), "float32"), ((0, 3, 2**40), "int32"),
    ((0.5, 7.3, 0.7), "float16"), ((0, 2), "bool"), ((3, 0, -1), "uint8"),
])
def test_arange_values_in_a_narrow_dtype_match_numpy(args, dtype):
    # NumPy fills in the dtype's own arithmetic (int8's 0, 100, -56; a
    # float32 step of 0.1 accumulates in float32).
    same(donate.arange(*args, dtype=dtype), np.arange(*args, dtype=dtype))


def test_eye_identity_and_tri_with_like_make_tensors():
    t = donate.ones(2)
    for r, n in ((np.eye(3, like=t, M=4, k=1), np.eye(3, M=4, k=1)), (np.identity(3, like=t), np.identity(3)),
                 (np.tri(3, 4, k=1, like=t), np.tri(3, 4, k=1))):
        assert isinstance(r, donate.Tensor)
        np.testing.assert_array_equal(np.asarray(r), n)


def test_isin_and_setdiff1d_compare_int64_with_uint64_exactly():
    # Their common dtype is float64, where 2**53 + 1 == 2**53.
    a = np.array([2**53 + 1, 2**63 - 1, 5], dtype=np.int64)
    b = np.array([2**53, 2**63, 5], dtype=np.uint64)
    same(np.isin(A(a), A(b)), np.isin(a, b))
    same(np.isin(A(a), [2**63, 5]), np.isin(a, [2**63, 5]))
    same(np.isin(A(a), A(b), invert=True), np.isin(a, b, invert=True))
    same(np.setdiff1d(A(a), A(b)), np.setdiff1d(a, b))


def test_a_list_of_float64_arrays_stays_float64():
    # Only Python floats default to float32; NumPy's float64 data inside a
    # list is float64 data (it became float32: 1e300 turned into inf).
    t64 = A(np.array([0.1, 1e300]))
    for data in ([t64, t64], [np.float64(1e300)], [np.array([0.1])], [[np.float64(0.1)], [0.5]]):
        for make in (donate.asarray, donate.tensor):
            got = make(data)
            assert got.dtype == donate.float64, (data, got.dtype)
            np.testing.assert_array_equal(np.asarray(got), np.asarray(np.asarray(data, dtype=object), dtype=float))
    assert donate.asarray([0.1, [0.2][0]]).dtype == donate.float32
    assert donate.asarray([[1.0, 2], (3, 4.5)]).dtype == donate.float32


@pytest.mark.parametrize("dtype", ["int32", "float64", "float32"])
def test_a_python_complex_number_never_drops_its_imaginary_part(dtype):
    with pytest.raises(TypeError):
        np.asarray(2 + 3j, dtype=dtype)
    for make in (donate.asarray, donate.tensor):
        with pytest.raises(TypeError, match="complex"):
            make(2 + 3j, dtype=dtype)
    same(donate.asarray(2 + 3j, dtype="complex64"), np.asarray(2 + 3j, dtype="complex64"))
    same(donate.asarray(3j, dtype="bool"), np.asarray(3j, dtype="bool"))  # its truth value


@pytest.mark.parametrize("write", [
    lambda t, v: t.__setitem__(0, v), lambda t, v: t.__setitem__(slice(None), v),
    lambda t, v: t.fill(v), lambda t, v: t.__setitem__(t > 1, v),
    lambda t, v: t.__setitem__(np.array([0, 2]), v),
])
def test_a_python_float_written_into_integers_is_truncated_and_must_fit(write):
    # It was clamped: `t[0] = 300.5` stored 127 in int8.
    for dtype, v, fits in (("int8", 300.5, False), ("int8", 1e10, False), ("int8", -129.0, False),
                           ("int8", 2.7, True), ("int8", -0.5, True), ("int8", 127.9, True),
                           ("uint8", -1.5, False), ("int64", 2.0**63, False), ("uint64", 2.0**64, False),
                           ("int64", -(2.0**63), True), ("uint64", 2.0**63, True)):
        a = np.array([1, 2, 3], dtype=dtype)
        t = A(a.copy())
        if fits:
            write(a, v)
            write(t, v)
            same(t, a)
        else:
            with pytest.raises(OverflowError):
                write(a, v)
            with pytest.raises(OverflowError, match="out of bounds"):
                write(t, v)
            same(t, np.array([1, 2, 3], dtype=dtype))


def test_gcd_lcm_and_pad_refuse_a_python_number_their_dtype_cannot_hold():
    # They wrapped it: gcd(int8, 300) read 44; pad's 300 stored 44 and
    # NaN stored int64's minimum.
    i8 = np.array([1, -2, 3], dtype=np.int8)
    for call in (lambda x: np.gcd(x, 300), lambda x: np.lcm(x, 2**63),
                 lambda x: np.pad(x, 1, constant_values=300),
                 lambda x: np.pad(x, 1, constant_values=np.int64(300))):
        with pytest.raises(OverflowError):
            call(i8)
        with pytest.raises(OverflowError):
            call(A(i8))
    with pytest.raises(ValueError):
        np.pad(A(np.array([1, 2])), 1, constant_values=float("nan"))
    same(np.gcd(A(i8), 6), np.gcd(i8, 6))
    same(np.pad(A(i8), 1, constant_values=2.7), np.pad(i8, 1, constant_values=2.7))


def test_choose_and_select_take_python_numbers_as_weak():
    # A Python int beside int8 choices made int64.
    i8 = np.array([1, 2, 3], np.int8)
    idx = np.array([0, 1, 0])
    same(np.choose(A(idx), [A(i8), 5]), np.choose(idx, [i8, 5]))
    same(np.choose(A(idx), [A(i8), 5.5]), np.choose(idx, [i8, 5.5]))
    same(np.select([A(i8) > 1], [7], default=np.int8(1)), np.select([i8 > 1], [7], default=np.int8(1)))
    same(np.select([A(i8) > 1], [A(i8)], default=-1), np.select([i8 > 1], [i8], default=-1))
    same(np.select([A(i8) > 1], [7.5], default=np.int8(1)), np.select([i8 > 1], [7.5], default=np.int8(1)))
    # A number int8 cannot hold: NumPy's choose wraps it (500 -> -12); an
    # error here.
    with pytest.raises(OverflowError):
        np.choose(A(idx), [A(i8), 500])


@pytest.mark.parametrize("shape", [np.int64(3), np.prod((2, 3)), (np.int32(2), 3), np.array([2, 3]), np.array(4)])
def test_a_shape_of_numpy_integers_makes_tensors(shape):
    # `zeros(np.prod(s))` raised TypeError.
    for name in ("zeros", "ones", "empty"):
        got = getattr(donate, name)(shape)
        assert got.shape == getattr(np, name)(shape).shape
    assert donate.full(shape, 2.0).shape == np.full(shape, 2.0).shape
    with pytest.raises(TypeError):
        donate.zeros(2.0)
    with pytest.raises(TypeError):
        donate.zeros("ab")


def test_setxor1d_of_complex_values():
    a, b = np.array([1 + 1j, 2, 3 - 1j, 3 + 1j]), np.array([2.0, 3.0, 3 - 1j])
    same(np.setxor1d(A(a), A(b)), np.setxor1d(a, b))


def test_sort_and_partition_check_their_arguments_as_numpy():
    x = np.array([3.0, 1.0, 2.0])
    for call in (lambda t: np.sort(t, kind="bogus"), lambda t: np.sort(t, kind="quicksort", stable=True),
                 lambda t: np.argsort(t, kind=""), lambda t: np.partition(t, True),
                 lambda t: np.partition(t, 1, kind="foo"), lambda t: np.argpartition(t, 1, kind="foo")):
        with pytest.raises(ValueError):
            call(x)
        with pytest.raises(ValueError):
            call(A(x))
    for kind in ("Q", "heapsort", "stable", "mergesort"):
        same(np.sort(A(x), kind=kind), np.sort(x, kind=kind))
    # An empty axis takes any kth, as NumPy's.
    for kth in (0, 1, [0, -1]):
        same(np.partition(A(np.array([])), kth), np.partition(np.array([]), kth))


def test_compress_reads_a_0d_tensor_as_1d():
    # It raised IndexError.
    for axis in (0, -1, None):
        same(np.compress([True], A(np.float64(5.0)), axis=axis), np.compress([True], np.float64(5.0), axis=axis))
    with pytest.raises(np.exceptions.AxisError):
        np.compress([True], A(np.float64(5.0)), axis=1)
    with pytest.raises(np.exceptions.AxisError):
        np.compress([True], A(np.ones((2, 2))), axis=2)


def test_einsum_computes_every_step_in_the_common_dtype():
    # Each operand was contracted in its own dtype, then promoted: int8
    # products wrapped, float16 ones overflowed.
    x8, h = np.array([100, 100], np.int8), np.array([300.0, 300.0], np.float16)
    for sub, ops in (("i,j->", (np.array([1], np.int8), np.array([2**63, 2**63], np.uint64))),
                     ("i,j->", (np.array([1], np.int32), np.array([60000, 60000], np.float16))),
                     ("i,i,i->", (x8, x8, np.array([1, 1]))), ("i,i,i->", (h, h, np.ones(2))),
                     ("i,i->", (np.array([2.0]), np.array([1.0, 2.0, 3.0]))),
                     ("ij,jk", (np.ones((3, 1)), np.ones((4, 2))))):
        same(np.einsum(sub, *map(A, ops)), np.einsum(sub, *ops))
        same(donate.einsum(sub, *map(A, ops)), np.einsum(sub, *ops))
    # `out=` takes part in the dtype; `dtype=` and `casting=` are checked.
    o = donate.zeros((2,), dtype=donate.float64)
    np.einsum("i,i->i", A(h), A(h), out=o)
    same(o, np.einsum("i,i->i", h, h, out=np.zeros(2)))
    o = donate.zeros((), dtype=donate.int64)
    np.einsum("i,i->", A(x8), A(x8), out=o)
    same(o, np.einsum("i,i->", x8, x8, out=np.zeros((), np.int64)))
    for kw, ops in (({"dtype": np.float32}, (np.ones((2, 3)), np.ones(3))),
                    ({"dtype": np.int8}, (np.full((2, 3), 300, np.int32),)),
                    ({"casting": "no"}, (np.ones((2, 3)), np.ones(3, np.int32)))):
        sub = "ij,j->i" if len(ops) == 2 else "ij->i"
        with pytest.raises(TypeError):
            np.einsum(sub, *ops, **kw)
        with pytest.raises(TypeError):
            np.einsum(sub, *map(A, ops), **kw)


@pytest.mark.parametrize("sub, shape", [("ii", (3, 4)), ("ii->i", (3, 4)), ("...i->i", (3, 4)), ("...->", (3,))])
def test_einsum_refuses_what_numpy_refuses(sub, shape):
    with pytest.raises(ValueError):
        np.einsum(sub, np.ones(shape))
    with pytest.raises(ValueError):
        donate.einsum(sub, A(np.ones(shape)))
    with pytest.raises(ValueError):
        np.einsum(sub, A(np.ones(shape)))


def test_vdot_never_broadcasts():
    for a in (np.array([2.0]), np.array(2.0)):
        with pytest.raises(ValueError):
            np.vdot(a, np.array([1.0, 2.0, 3.0]))
        with pytest.raises(ValueError):
            np.vdot(A(a), A(np.array([1.0, 2.0, 3.0])))
    same(np.vdot(A(np.ones((2, 2))), A(np.arange(4.0))), np.vdot(np.ones((2, 2)), np.arange(4.0)))


@pytest.mark.parametrize("axes", [(np.int64(1), np.int64(0)), np.array([[1], [0]]), np.int64(1), ([1], [0]), 1])
def test_tensordot_takes_numpy_integer_axes(axes):
    a, b = np.arange(12.0).reshape(3, 4), np.arange(12.0).reshape(4, 3)
    same(np.tensordot(A(a), A(b), axes=axes), np.tensordot(a, b, axes=axes))


def test_einsum_reads_python_data_as_numpy_does():
    # A list of Python floats beside float64 data is float64 data (it was
    # made float32 first: 0.30000000447 for 0.3).
    t = A(np.ones(2))
    same(np.einsum("i,i", [0.1, 0.2], t), np.einsum("i,i", [0.1, 0.2], np.ones(2)))
    same(np.einsum("i,i", t, [0.1, 0.2]), np.einsum("i,i", np.ones(2), [0.1, 0.2]))
