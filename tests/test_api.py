"""Creation, attributes, conversions, promotion and the ops against NumPy."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest

import donate


@pytest.mark.parametrize(
    "ask",
    [
        lambda d: donate.zeros(3, dtype=d),
        lambda d: donate.asarray([1.0, 2.0], dtype=d),
        lambda d: donate.ones(3).astype(d),
        lambda d: donate.asarray(np.ones(2, np.float16), dtype=d),
    ],
)
@pytest.mark.parametrize("dtype", ["float16", np.float16, np.dtype("float16")])
def test_float16_asked_for_is_made_and_float16_data_stays_float16(ask, dtype) -> None:
    """float16 is a storage dtype: asked for by any of its names it is
    what a tensor holds, and float16 data keeps its dtype and its bits."""
    assert ask(dtype).dtype == donate.float16
    v = np.array([0.1, 65504.0, -np.inf, 6e-8], dtype=np.float16)
    t = donate.asarray(v)
    assert t.dtype == donate.float16
    np.testing.assert_array_equal(t.numpy().view(np.uint16), v.view(np.uint16))


def test_creation_and_default_dtypes() -> None:
    assert donate.zeros((2, 3)).dtype == donate.float32
    assert donate.ones(4).shape == (4,)
    assert donate.empty((2,)).tolist() == [0.0, 0.0]
    assert donate.full((2,), 7, dtype=donate.int32).tolist() == [7, 7]
    assert donate.full((2,), 1.5).dtype == np.float32
    assert donate.tensor([1.5, 2.5]).dtype == donate.float32
    assert donate.tensor([1, 2]).dtype == donate.int64
    assert donate.tensor([True, False]).dtype == np.bool_
    assert donate.tensor(3.0).shape == ()
    assert donate.tensor(np.arange(3, dtype=np.float64)).dtype == donate.float64
    assert donate.tensor(np.arange(3, dtype=np.float16)).dtype == donate.float16
    assert donate.tensor(np.arange(3, dtype=np.uint8)).dtype == donate.uint8
    assert donate.tensor([1, 2], dtype="float64").dtype == donate.float64
    assert donate.tensor([1, 2], dtype=np.int32).dtype == donate.int32
    assert donate.Tensor([1.0, 2.0]).tolist() == [1.0, 2.0]
    assert donate.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert donate.arange(1, 2, 0.25).tolist() == [1.0, 1.25, 1.5, 1.75]
    assert donate.arange(3, dtype="float64").dtype == donate.float64
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = donate.from_numpy(x)
    x[0, 0] = 100  # from_numpy copies
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert donate.tensor(memoryview(np.ones(2, np.int32))).dtype == donate.int32


def test_asarray() -> None:
    t = donate.ones(3)
    assert donate.asarray(t) is t
    assert donate.asarray(t, copy=True) is not t
    assert donate.asarray(t, dtype="float64").dtype == donate.float64
    with pytest.raises(ValueError):
        donate.asarray(np.ones(3), copy=False)
    assert donate.asarray([1.0, 2.0]).tolist() == [1.0, 2.0]


def test_non_contiguous_big_endian_and_readonly_inputs() -> None:
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert donate.tensor(base.T).tolist() == base.T.tolist()
    assert donate.tensor(base[:, ::2]).tolist() == base[:, ::2].tolist()
    be = np.arange(4, dtype=">f8")
    t = donate.tensor(be)
    assert t.dtype == donate.float64 and t.tolist() == [0.0, 1.0, 2.0, 3.0]
    ro = np.ones(3, np.int32)
    ro.flags.writeable = False
    assert donate.tensor(ro).tolist() == [1, 1, 1]


def test_attributes_and_conversions() -> None:
    t = donate.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert (t.shape, t.ndim, t.size, t.nbytes, t.itemsize, len(t)) == ((2, 3), 2, 6, 24, 4, 2)
    assert t.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert t[1, 2].item() == 6.0
    assert t[0].tolist() == [1.0, 2.0, 3.0]
    assert t[:, 1:].tolist() == [[2.0, 3.0], [5.0, 6.0]]
    assert t[..., -1].tolist() == [3.0, 6.0]
    assert [r.tolist() for r in t] == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert float(t[0, 0]) == 1.0 and int(t[1, 1]) == 5 and bool(t[0, 0])
    with pytest.raises(ValueError):
        bool(t)
    with pytest.raises(TypeError):
        len(donate.tensor(1.0))
    with pytest.raises(IndexError):
        t[5]
    assert repr(t) == "Tensor([[1., 2., 3.],\n        [4., 5., 6.]], dtype=float32)"
    a = np.asarray(t)
    assert a.dtype == np.float32 and not a.flags.writeable
    b = np.array(t)
    assert b.flags.writeable
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    m = memoryview(t)
    assert m.readonly and m.format == "f" and m.shape == (2, 3)
    with pytest.raises(ValueError):
        np.frombuffer(t, dtype=np.float32).setflags(write=True)
    with pytest.raises(ValueError):
        np.asarray(t)[0, 0] = 5.0  # read-only view
    assert t[0, 0].item() == 1.0
    assert copy.copy(t).tolist() == t.tolist() and copy.deepcopy(t).data_ptr() != t.data_ptr()
    assert pickle.loads(pickle.dumps(t)).tolist() == t.tolist()
    # NumPy's own codes (`l` on Linux): an export is `np.int64` itself, not
    # `np.longlong` (which `issubdtype(.., np.int64)` refused).
    for name in ("int64", "uint64"):
        t = donate.tensor([1], dtype=name)
        assert memoryview(t).format == np.dtype(name).char
        exported = np.asarray(t)
        assert exported.dtype.char == np.dtype(name).char
        assert np.issubdtype(exported.dtype, np.dtype(name).type)
        assert isinstance(exported[0], np.dtype(name).type)


def test_promotion_follows_numpy() -> None:
    f32 = donate.ones(2)
    f64 = donate.ones(2, dtype="float64")
    i32 = donate.ones(2, dtype="int32")
    i64 = donate.ones(2, dtype="int64")
    cases = [
        (f32 + 1.5, np.float32), (f32 + 2, np.float32), (i32 + 2, np.int32), (i32 + 1.5, np.float64),
        (f32 + f64, np.float64), (i32 + i64, np.int64), (i32 + f32, np.float64), (i32 / i32, np.float64),
        (i64 / 2, np.float64), (f32 / 2, np.float32), (i32.exp(), np.float64), (i32.sum(), np.int64),
        (i32.mean(), np.float64), (i32.max(), np.int32), (i32 @ i32, np.int32), (f32 + np.float64(1), np.float64),
    ]
    for t, dt in cases:
        assert t.dtype == dt, (t, dt)
    with pytest.raises(OverflowError):
        i32 + 2**40
    # A Python int beyond int64 meets a float tensor as NumPy 2's does: as
    # a float of the tensor's dtype.
    big = f32 + 2**70
    assert big.dtype == np.float32
    np.testing.assert_array_equal(big.numpy(), np.ones(2, np.float32) + 2**70)


OPS = [
    ("relu", lambda x: np.maximum(x, 0)), ("neg", np.negative), ("abs", np.abs), ("exp", np.exp),
    ("tanh", np.tanh), ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
]


@pytest.mark.parametrize("name,ref", OPS)
def test_unary_ops_match_numpy(name, ref) -> None:
    x = np.linspace(-3, 3, 50, dtype=np.float32).reshape(5, 10)
    np.testing.assert_allclose(getattr(donate.tensor(x), name)().numpy(), ref(x), rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(getattr(donate, name)(donate.tensor(x)).numpy(), ref(x), rtol=2e-6, atol=1e-7)


def test_log_sqrt_gelu() -> None:
    x = np.linspace(0.1, 4, 40, dtype=np.float64)
    np.testing.assert_allclose(donate.tensor(x).log().numpy(), np.log(x), rtol=1e-12)
    np.testing.assert_allclose(donate.tensor(x).sqrt().numpy(), np.sqrt(x), rtol=1e-12)
    g = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(donate.tensor(x).gelu().numpy(), g, rtol=1e-12)


def test_binary_broadcasting_matches_numpy() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 1, 3)).astype(np.float32)
    b = rng.standard_normal((5, 1)).astype(np.float32)
    ta, tb = donate.tensor(a), donate.tensor(b)
    for got, want in [(ta + tb, a + b), (ta - tb, a - b), (ta * tb, a * b), (ta / tb, a / b), (2 - ta, 2 - a), (3 / tb, 3 / b)]:
        assert got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose((np.float32(2) * ta).numpy(), 2 * a)
    np.testing.assert_allclose((a + tb).numpy(), a + b)  # ndarray + Tensor gives a Tensor
    assert isinstance(a + tb, donate.Tensor)


def test_reductions_match_numpy() -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7
    t = donate.tensor(x)
    for axis in [None, 0, 1, 2, -1]:
        for keepdims in [False, True]:
            np.testing.assert_allclose(t.sum(axis=axis, keepdims=keepdims).numpy(), x.sum(axis=axis, keepdims=keepdims))
            np.testing.assert_allclose(t.mean(axis=axis, keepdims=keepdims).numpy(), x.mean(axis=axis, keepdims=keepdims), rtol=1e-6)
            np.testing.assert_allclose(donate.max(t, axis=axis, keepdims=keepdims).numpy(), x.max(axis=axis, keepdims=keepdims))
    with pytest.raises(donate.AxisError):
        t.sum(axis=3)
    with pytest.raises(ValueError):
        donate.zeros((0,)).max()


def test_softmax_layer_norm_matmul() -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(donate.tensor(x).softmax().numpy(), e / e.sum(-1, keepdims=True), rtol=1e-5)
    g = rng.standard_normal(5).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    want = (x - mu) / np.sqrt(var + 1e-5) * g + b
    np.testing.assert_allclose(donate.tensor(x).layer_norm(donate.tensor(g), donate.tensor(b)).numpy(), want, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="last axis"):
        donate.tensor(x).softmax(axis=0)
    with pytest.raises(TypeError):
        donate.tensor([1, 2]).softmax()
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w = rng.standard_normal((4, 6)).astype(np.float32)
    np.testing.assert_allclose((donate.tensor(a) @ donate.tensor(w)).numpy(), a @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(donate.matmul(donate.tensor(w.T), donate.tensor(w[:, 0])).numpy(), w.T @ w[:, 0], rtol=1e-5)
    with pytest.raises(ValueError):
        donate.tensor(a) @ donate.tensor(a)


def test_reshape_and_transpose_share_the_buffer() -> None:
    t = donate.arange(6)
    r = t.reshape(2, -1)
    assert r.shape == (2, 3) and t.ownership["handles"] == 2
    assert r.reshape((3, 2)).shape == (3, 2)
    with pytest.raises(ValueError):
        t.reshape(4, -1)
    with pytest.raises(ValueError):
        t.reshape(-1, -1)
    tt = r.T
    assert tt.tolist() == [[0, 3], [1, 4], [2, 5]] and tt.ownership["handles"] == 3
    assert tt.is_view and tt.strides == (r.itemsize, 3 * r.itemsize) and not r.is_view
    assert r.transpose(1, 0).tolist() == tt.tolist()
    x = np.arange(24).reshape(2, 3, 4)
    assert donate.tensor(x).transpose(2, 0, 1).tolist() == x.transpose(2, 0, 1).tolist()
    with pytest.raises(ValueError):
        r.transpose(0, 0)


def test_hostile_arguments_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="negative"):
        donate.zeros((-1, 2))
    with pytest.raises(TypeError):
        donate.zeros((2.5,))
    with pytest.raises(TypeError, match="unsupported dtype"):
        donate.zeros(3, dtype="m8")
    with pytest.raises(TypeError, match="unsupported dtype"):
        donate.zeros(3, dtype=">f4")
    with pytest.raises(MemoryError):
        donate.zeros((1 << 48,))
    with pytest.raises(OverflowError):
        donate.zeros((1 << 62, 1 << 3))
    with pytest.raises(TypeError, match="object arrays"):
        donate.tensor(np.array([1, None], dtype=object))
    with pytest.raises(TypeError):
        donate.tensor(["a", "b"])
    with pytest.raises(ValueError):
        donate.tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        donate.ones(2) + "x"
    with pytest.raises(TypeError):
        donate.relu("x")


def test_maximum_and_minimum_follow_numpy_and_the_donation_rules() -> None:
    a = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], dtype=np.float32)
    b = np.array([0.0, 1.0, -1.0], dtype=np.float32)
    ta, tb = donate.tensor(a), donate.tensor(b)
    np.testing.assert_array_equal(donate.maximum(ta, tb).numpy(), np.maximum(a, b))
    np.testing.assert_array_equal(donate.minimum(ta, 0).numpy(), np.minimum(a, 0))
    np.testing.assert_array_equal(donate.maximum(2.5, tb).numpy(), np.maximum(2.5, b))
    assert donate.maximum(donate.tensor([1, 5], dtype=donate.int32), 3.5).dtype == np.float64
    # A temporary receives the result; a named tensor never changes.
    t = ta * 1
    p = t.data_ptr()
    assert donate.maximum(t.donate(), tb).data_ptr() == p
    assert donate.minimum(ta + 0, tb).data_ptr() != ta.data_ptr()
    np.testing.assert_array_equal(ta.numpy(), a)
    with pytest.raises(TypeError):
        donate.maximum(ta, object())


def test_errors_name_what_the_user_did() -> None:
    # Equal shapes that cannot be multiplied: the inner dimensions, not
    # "not compatible".
    with pytest.raises(ValueError, match=r"matmul: .*last axis \(3\) must equal the second-to-last axis of the right operand \[2, 3\] \(2\)"):
        donate.ones((2, 3)) @ donate.ones((2, 3))
    with pytest.raises(ValueError, match=r"length of the right operand \[4\]"):
        donate.ones(3) @ donate.ones(4)
    # Batch dimensions that do not broadcast name the whole shapes.
    with pytest.raises(ValueError, match=r"\[4, 2, 3\] and \[5, 3, 2\]"):
        donate.ones((4, 2, 3)) @ donate.ones((5, 3, 2))
    # A conversion names itself, not item(); as NumPy's, only a 0-d tensor
    # converts to a number (a TypeError), and the truth value of several
    # elements is ambiguous (a ValueError).
    for convert, error in ((float, TypeError), (int, TypeError), (complex, TypeError),
                           (bool, ValueError)):
        with pytest.raises(error) as e:
            convert(donate.ones(3))
        assert "item()" not in str(e.value), str(e.value)
        with pytest.raises(error):
            convert(np.ones(3))
    with pytest.raises(TypeError, match=r"^float\(\) needs a 0-d tensor, got shape \[3\]"):
        float(donate.ones(3))
    for convert in (float, int, complex):  # one element with axes: NumPy 2's TypeError
        with pytest.raises(TypeError, match="needs a 0-d tensor"):
            convert(donate.ones((1, 1)))
        with pytest.raises(TypeError):
            convert(np.ones((1, 1)))
        assert convert(donate.ones(())) == 1
    # Shapes that must agree by a rule other than broadcasting say the rule
    # (not "they must be equal or broadcast").
    ones = donate.ones
    cases = [
        (lambda: donate.concat([ones((2, 3)), ones((2, 4))]),
         r"concat: invalid shape \[2, 4\]: every tensor must have the first one's shape \[2, 3\] except along the axis joined \(0\)"),
        (lambda: donate.stack([ones((2, 3)), ones((3, 2))]),
         r"stack: invalid shape \[3, 2\]: every tensor must have the first one's shape \[2, 3\]"),
        (lambda: donate.linalg.solve(ones((2, 2)), ones((3, 1))),
         r"x2 has 3 rows, x1's matrices \[2, 2\] are 2x2"),
        (lambda: ones((1, 3, 4, 4)).conv2d(ones((2, 2, 3, 3))),
         r"conv2d: .*the weight has 2 input channels \(axis 1\), the input \[1, 3, 4, 4\] has 3"),
        (lambda: ones((1, 3, 4, 4)).batch_norm(ones(2), ones(2)),
         r"batch_norm: mean must have shape \(3,\), got \[2\]"),
        (lambda: donate.searchsorted(ones(3), ones(2), sorter=donate.asarray([0, 1])),
         r"sorter must have the shape of x1, \[3\]"),
    ]
    for call, want in cases:
        with pytest.raises(ValueError, match=want) as e:
            call()
        assert "broadcast" not in str(e.value), str(e.value)


def _setitem(t: donate.Tensor, key: object, value: object) -> None:
    t[key] = value


def _iadd(t: donate.Tensor, u: donate.Tensor) -> None:
    t += u


def test_a_shape_that_must_broadcast_to_another_says_so() -> None:
    # One shape broadcast *to* another (an assignment, an in-place
    # result, broadcast_to): the message names which shape goes where,
    # not "they must be equal or broadcast" when they do broadcast together.
    ones = donate.ones
    cases = [
        (lambda: _setitem(ones((2, 2)), 0, ones((1, 3))), r"__setitem__: shape \[1, 3\] cannot be broadcast to shape \[2\]"),
        (lambda: _setitem(ones(4), slice(0, 2), ones((2, 2))), r"__setitem__: shape \[2, 2\] cannot be broadcast to shape \[2\]"),
        (lambda: _iadd(ones(3), ones((2, 3))), r"add: shape \[2, 3\] cannot be broadcast to shape \[3\]"),
        (lambda: donate.broadcast_to(ones((2, 1)), (3,)), r"broadcast_to: shape \[2, 1\] cannot be broadcast to shape \[3\]"),
        (lambda: donate.broadcast_to(ones(3), (2, 4)), r"broadcast_to: shape \[3\] cannot be broadcast to shape \[2, 4\]"),
        (lambda: donate.diff(ones((2, 3)), axis=1, prepend=ones((3, 1))),
         r"diff: invalid shape \[3, 1\]: prepend and append must have x's shape \[2, 3\] except along the axis \(1\)"),
    ]
    for call, want in cases:
        with pytest.raises(ValueError, match=want):
            call()


@pytest.mark.parametrize("v,want", [(True, "bool"), (3, "int64"), (2.5, "float32")])
def test_a_python_number_makes_a_tensor_of_one_dtype_everywhere(v: Any, want: str) -> None:
    # One answer (Scalar::tensor_dtype, the default float for floats):
    # asarray and full made float32 from 2.5 while a number passed where a
    # tensor is needed (exp(2.5), sum(2.5)) made float64.
    made = [donate.asarray(v), donate.full((), v), donate.expand_dims(v, axis=0), donate.reshape(v, (1,))]
    assert [str(t.dtype) for t in made] == [want] * len(made)
    if want == "float32":
        assert donate.exp(v).dtype == np.float32
        assert donate.sum(v).dtype == np.float32


@pytest.mark.parametrize(
    "x", [np.array([1.5, 2.0]), np.array(1.5), np.arange(6, dtype=np.int32).reshape(2, 3),
          np.array(True), np.array(1 + 2j), np.zeros((0, 2))],
)
def test_str_and_format_are_numpy_s(x: np.ndarray) -> None:
    t = donate.asarray(x)
    assert str(t) == str(x)
    assert f"{t}" == f"{x}"
    if x.ndim == 0:
        spec = ".3f" if x.dtype.kind in "fc" else ">5"
        assert format(t, spec) == format(x, spec)
    else:
        with pytest.raises(TypeError, match="unsupported format string"):
            format(t, ".2f")


@pytest.mark.parametrize("x", [np.zeros((0, 3), np.float32), np.zeros((2, 0, 3)), np.zeros(0, np.int8),
                               np.arange(2000), np.arange(3000.0).reshape(3, 1000), np.arange(5.0)])
def test_repr_shows_the_shape_where_numpy_s_does(x: np.ndarray) -> None:
    # An empty tensor of 2+ axes printed `Tensor([], dtype=float32)`,
    # whatever its shape; NumPy shows it, and a summarised array's.
    got, want = repr(donate.asarray(x)), repr(x)
    assert ("shape=" in got) == ("shape=" in want)
    if "shape=" in want:
        assert f"shape={x.shape}" in got
    assert got.endswith(f"dtype={x.dtype})")


def test_round_of_an_element_is_numpy_scalars():
    for x in (np.array([2.5, 3.567], np.float32), np.array([2.5, -3.5]), np.array([7, -8], np.int16)):
        t = donate.asarray(x)
        for i in range(2):
            got, want = round(t[i]), round(x[i])
            assert type(got) is int and got == want
            got2, want2 = round(t[i], 2), round(x[i], 2)
            assert np.dtype(str(got2.dtype)) == want2.dtype and float(got2) == float(want2)
    with pytest.raises(TypeError, match="np.round"):
        round(donate.asarray([1.5, 2.5]))
    with pytest.raises(TypeError):
        round(np.array([1.5, 2.5]))  # type: ignore[call-overload]


def test_reversed_iterates_the_first_axis_from_the_end():
    # `reversed(t)` raised (a tensor is not a C-level sequence).
    for x in (np.array([1, 3, 5]), np.arange(6.0).reshape(3, 2), np.zeros((0, 2))):
        got = [np.asarray(r) for r in reversed(donate.asarray(x))]
        want = list(reversed(x))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    with pytest.raises(TypeError, match="0-d"):
        reversed(donate.asarray(1.0))


def test_truth_and_iteration_errors_say_what_the_tensor_is():
    with pytest.raises(ValueError, match="empty"):
        bool(donate.zeros((0,)))
    with pytest.raises(ValueError, match="more than one element"):
        bool(donate.zeros((2,)))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(donate.asarray(1.0))


def test_str_of_a_donated_tensor_is_its_repr() -> None:
    t = donate.ones(3)
    donate.relu(t.donate())
    assert str(t) == repr(t) and "donated" in str(t)


@pytest.mark.parametrize("x", [np.arange(6.0).reshape(2, 3), np.arange(4), np.array(3), np.zeros((2, 0))])
def test_in_is_numpy_s_any_equal_at_every_rank(x: np.ndarray) -> None:
    t = donate.asarray(x)
    for v in (4.0, 3, -1, 0):
        assert (v in t) == (v in x)


@pytest.mark.parametrize("other", [None, "x"])
def test_equality_with_none_or_a_string_is_element_wise_as_numpy_s(other: Any) -> None:
    x = np.arange(6.0).reshape(2, 3)
    t = donate.asarray(x)
    for got, want in [(t == other, x == other), (t != other, x != other), (other == t, other == x)]:
        assert isinstance(got, donate.Tensor)
        assert got.dtype == donate.bool and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)
    w = donate.asarray(x)
    got = w.donate() != other
    np.testing.assert_array_equal(np.asarray(got), np.ones((2, 3), bool))
    with pytest.raises(TypeError):
        t < other  # noqa: B015 - ordering against None or a string stays an error


def test_numpy_s_item_astype_and_divmod_methods() -> None:
    x = np.arange(6.0).reshape(2, 3) - 2.5
    t = donate.asarray(x)
    assert t.item(4) == x.item(4) and t.item(1, 2) == x.item(1, 2) and t.item(-1) == x.item(-1)
    with pytest.raises(IndexError):
        t.item(6)
    assert t.astype(donate.float64, copy=False) is t
    assert t.astype(donate.float64) is not t
    assert t.astype(donate.float32, copy=False).dtype == np.float32
    for got, want in ((divmod(t, 2), divmod(x, 2)), (divmod(7.0, t), divmod(7.0, x)),
                      (divmod(t, t[::-1]), divmod(x, x[::-1]))):
        assert isinstance(got, tuple) and len(got) == 2
        for g, w in zip(got, want):
            assert isinstance(g, donate.Tensor)
            np.testing.assert_array_equal(np.asarray(g), w)
    np.testing.assert_array_equal(np.asarray(t), x)  # only read
