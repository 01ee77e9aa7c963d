"""Strided views: basic indexing, transpose and reshape share the buffer;
value semantics (copy-on-write) keep every holder's values; a view is
never donated unless it covers its whole buffer; `__setitem__`; kernels
that read views where they lie (matmul, attention) allocate only their
result."""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import donate


def base(shape: tuple[int, ...] = (4, 5, 6), dtype: type = np.float32) -> tuple[donate.Tensor, np.ndarray]:
    a = np.arange(math.prod(shape), dtype=dtype).reshape(shape)
    return donate.tensor(a), a


@contextlib.contextmanager
def strict() -> Iterator[None]:
    """Every DonationWarning is an error inside."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", donate.DonationWarning)
        yield


# ------------------------------------------------------------- indexing ---

KEYS = [
    1,
    -1,
    (1, 2),
    (slice(1, 3),),
    (slice(None, None, 2), slice(None), slice(4, 0, -2)),
    (Ellipsis, 0),
    (None, 1, Ellipsis, None),
    (slice(None, None, -1), 2, slice(1, None, 3)),
    (slice(10, 20),),
    (0, 0, 0),
    np.int64(2),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_basic_indexing_is_a_view_with_numpys_values(key: object) -> None:
    t, a = base()
    v = t[key]
    want = a[key]
    assert v.shape == want.shape
    np.testing.assert_array_equal(np.asarray(v), want)
    if not isinstance(want, np.ndarray):
        # One element is NumPy's scalar: a copy, not a view.
        assert t.ownership["handles"] == 1
        return
    # The view shares the buffer: one more handle, no new allocation.
    assert t.ownership["handles"] == 2
    if isinstance(want, np.ndarray) and want.size:
        # Its first element is where NumPy's view starts.
        offset = (want.__array_interface__["data"][0] - a.__array_interface__["data"][0])
        assert v.data_ptr() - t.data_ptr() == offset


def test_views_allocate_nothing(stats) -> None:
    t, _ = base()
    s = stats()
    views = [t[1], t[:, ::2], t.T, t.transpose(1, 0, 2), t.reshape(-1), t[None, ..., 0]]
    assert s["allocations"] == 0
    assert t.ownership["handles"] == 1 + len(views)
    del views
    assert t.ownership["handles"] == 1


@given(
    st.lists(
        st.one_of(
            st.integers(-6, 5),
            st.tuples(st.one_of(st.none(), st.integers(-8, 8)), st.one_of(st.none(), st.integers(-8, 8)),
                      st.sampled_from([None, 1, 2, -1, -3])),
            st.just(None),
        ),
        max_size=3,
    )
)
def test_random_basic_indices_match_numpy(parts: list[object]) -> None:
    t, a = base((5, 6, 4))
    key = tuple(slice(*p) if isinstance(p, tuple) else p for p in parts)
    try:
        want = a[key]
    except IndexError:
        with pytest.raises(IndexError):
            t[key]
        return
    v = t[key]
    np.testing.assert_array_equal(np.asarray(v), want)
    # A view of a view, too.
    np.testing.assert_array_equal(np.asarray(v.copy()), want)
    if want.ndim >= 2:
        np.testing.assert_array_equal(np.asarray(v.T), want.T)


def test_index_errors() -> None:
    t, _ = base()
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 4"):
        t[4]
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., ...]
    with pytest.raises(ValueError, match="step cannot be zero"):  # NumPy's ValueError
        t[::0]
    for big in (2**64, -(2**63) - 1, 10**30):  # past 64 bits: out of bounds, as NumPy's
        with pytest.raises(IndexError, match="out of bounds"):
            t[big]
        with pytest.raises(IndexError, match="out of bounds"):
            t[0, big]


def test_array_indices_still_copy() -> None:
    t, a = base()
    c = t[[0, 2]]
    np.testing.assert_array_equal(np.asarray(c), a[[0, 2]])
    assert not c.is_view and t.ownership["handles"] == 1


@pytest.mark.parametrize(
    "key",
    [np.array(1), (np.array(1), slice(None)), (slice(None), np.array(0)), np.array([1])],
    ids=["0d", "0d-slice", "slice-0d", "1d"],
)
def test_numpy_array_indices_copy_even_0d(key: object) -> None:
    # NumPy: `a[np.array(1)]` is advanced indexing (a copy), although
    # `a[np.int64(1)]` is a view; a write into the result leaves `t` alone.
    t, a = base()
    c = t[key]
    want = a[key]
    np.testing.assert_array_equal(np.asarray(c), want)
    assert not c.is_view and t.ownership["handles"] == 1
    c += 100.0
    np.testing.assert_array_equal(np.asarray(t), a)
    # Assignment with the same keys writes into `t`, as NumPy's does.
    t[key] = -1.0
    a[key] = -1.0
    np.testing.assert_array_equal(np.asarray(t), a)


# ------------------------------------------------------- value semantics ---


def test_in_place_through_a_view_changes_the_base() -> None:
    t, a = base()
    v = t[0]
    p = v.data_ptr()
    v += 1.0  # written through, as NumPy's views are
    want = a.copy()
    want[0] += 1
    np.testing.assert_array_equal(np.asarray(t), want)
    np.testing.assert_array_equal(np.asarray(v), want[0])
    assert v.is_view and v.data_ptr() == p and t.ownership["handles"] == 2


def test_in_place_through_the_base_changes_its_views() -> None:
    t, a = base()
    v = t[:, 1]
    tt = t.T
    t.relu_()
    want = np.maximum(a, 0)
    np.testing.assert_array_equal(np.asarray(v), want[:, 1])
    np.testing.assert_array_equal(np.asarray(tt), want.T)
    t *= 0.0
    np.testing.assert_array_equal(np.asarray(v), np.zeros_like(a[:, 1]))


def test_setitem_writes_the_tensor_and_keeps_views() -> None:
    t, a = base()
    v = t[1]
    exported = np.asarray(t)
    t[1] = 7.0
    t[0, 1:3] = donate.full((6,), -1.0)
    t[2, :, ::2] = np.ones((5, 1), dtype=np.float32) * 3
    t[..., -1] += 100.0
    want = a.copy()
    want[1] = 7.0
    want[0, 1:3] = -1.0
    want[2, :, ::2] = 3.0
    want[..., -1] += 100.0
    np.testing.assert_array_equal(np.asarray(t), want)
    # The view and the NumPy export made before see the new values.
    np.testing.assert_array_equal(np.asarray(v), want[1])
    np.testing.assert_array_equal(exported, want)


def test_setitem_in_place_when_exclusive(stats) -> None:
    t, _ = base()
    p = t.data_ptr()
    s = stats()
    t[1:3, ::-1] = 2.0
    assert t.data_ptr() == p and s["allocations"] == 0


def test_setitem_from_an_overlapping_view_of_itself() -> None:
    t, a = base((10,))
    t[1:] = t[:-1]
    want = a.copy()
    want[1:] = a[:-1]
    np.testing.assert_array_equal(np.asarray(t), want)
    t2, _ = base((3, 3))
    t2[...] = t2.T
    np.testing.assert_array_equal(np.asarray(t2), np.arange(9.0).reshape(3, 3).T)


def test_setitem_converts_as_numpy() -> None:
    t = donate.zeros((3,), dtype=donate.int32)
    t[0] = 2.9
    t[1:] = np.array([1.5, -2.5])
    assert t.tolist() == [2, 1, -2]
    f = donate.zeros((2,))
    f[:] = donate.tensor([1, 2], dtype=donate.int64)
    assert f.tolist() == [1.0, 2.0]


def test_setitem_errors_change_nothing() -> None:
    t, a = base()
    with pytest.raises(ValueError):
        t[0] = donate.ones((3,))
    with pytest.raises(IndexError):
        t[9] = 1.0
    with pytest.raises(IndexError, match="out of bounds"):
        t[[0, 99]] = 1.0
    with pytest.raises(TypeError):
        t[0] = "x"
    with pytest.raises(OverflowError):
        donate.zeros((2,), dtype=donate.int32)[0] = 2**40
    np.testing.assert_array_equal(np.asarray(t), a)


def test_setitem_on_a_donated_tensor_raises() -> None:
    t, _ = base()
    t.relu_donate()
    with pytest.raises(donate.DonatedError):
        t[0] = 1.0


# -------------------------------------------------------------- donation ---


def test_a_view_of_part_of_a_buffer_is_never_donated() -> None:
    v = donate.arange(10.0)[2:5]  # the base was a temporary: v is its only holder
    assert v.ownership["handles"] == 1 and v.is_view and not v.is_exclusive
    with pytest.warns(donate.DonationWarning, match="view of part of its buffer"):
        r = donate.relu(v.donate())
    assert not v.is_donated and v.tolist() == [2.0, 3.0, 4.0] and r.tolist() == [2.0, 3.0, 4.0]


def test_a_transpose_is_never_donated_but_its_copy_receives_the_result(stats) -> None:
    t, a = base((3, 4))
    tt = t.T
    del t  # tt is now the buffer's only holder, but strided
    s = stats()
    with pytest.warns(donate.DonationWarning, match="strided view"):
        r = donate.relu(tt.donate())
    # One allocation: the C-order copy, which then receives the result;
    # reused bytes, but nobody's donation.
    assert s["allocations"] == 1
    assert s["reused_bytes"] == 12 * 4 and s["explicit_donations"] == 0 and s["implicit_donations"] == 0
    assert s["donation_fallbacks"] == 1
    np.testing.assert_array_equal(np.asarray(r), np.maximum(a.T, 0))
    np.testing.assert_array_equal(np.asarray(tt), a.T)


def test_a_temporary_moves_its_buffer_into_its_view() -> None:
    ptrs: list[int] = []

    def make() -> donate.Tensor:
        t = donate.arange(12.0).reshape(3, 4)
        ptrs.append(t.data_ptr())
        return t

    for _ in range(20):  # past the interpreter's specialisation of the call site
        with strict():
            y = make().T
        assert y.data_ptr() == ptrs[-1] and y.ownership["handles"] == 1
        np.testing.assert_array_equal(np.asarray(y), np.arange(12.0).reshape(3, 4).T)


def test_a_temporary_moves_its_buffer_into_a_view() -> None:
    a = donate.arange(12.0).reshape(3, 4)
    for _ in range(20):  # past the interpreter's specialisation of the call site
        y = (a + 1.0)[1:, ::2]
        # The temporary's buffer moved into the view: its only holder.
        assert y.ownership["handles"] == 1 and y.is_view
        np.testing.assert_array_equal(np.asarray(y), (np.arange(12.0).reshape(3, 4) + 1)[1:, ::2])


def test_reshape_of_a_strided_view_copies() -> None:
    t, a = base((3, 4))
    r = t.T.reshape(-1)
    np.testing.assert_array_equal(np.asarray(r), a.T.reshape(-1))
    assert not r.is_view and t.ownership["handles"] == 1
    c = t[1:].reshape(8)  # contiguous: a view
    assert c.is_view and t.ownership["handles"] == 2


# ---------------------------------------------------- kernels on strides ---


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_matmul_reads_transposed_and_sliced_views_without_copies(stats, dtype: type) -> None:
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((6, 5)) * 4).astype(dtype)
    b = (rng.standard_normal((7, 5)) * 4).astype(dtype)
    ta, tb = donate.tensor(a), donate.tensor(b)
    cases = [
        (lambda: ta @ tb.T, a @ b.T),
        (lambda: ta.T @ ta[::-1], a.T @ a[::-1]),
        (lambda: ta[1:4, ::2] @ tb[::3, ::2].T, a[1:4, ::2] @ b[::3, ::2].T),
        (lambda: ta[0] @ tb.T, a[0] @ b.T),
        (lambda: ta[None, :, :].transpose(0, 2, 1) @ ta, (a[None].transpose(0, 2, 1) @ a)),
    ]
    for make, want in cases:
        s = stats()
        got = make()
        assert s["allocations"] == 1, "matmul of views copied an operand"
        if np.issubdtype(dtype, np.integer):
            np.testing.assert_array_equal(np.asarray(got), want)
        else:
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-4)


def test_batched_matmul_over_head_split_views(stats) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 16, 4, 8)).astype(np.float32)
    t = donate.tensor(x)
    q = t.transpose(0, 2, 1, 3)  # (2, 4, 16, 8), strided
    s = stats()
    scores = q @ q.transpose(0, 1, 3, 2)
    assert s["allocations"] == 1
    xq = x.transpose(0, 2, 1, 3)
    np.testing.assert_allclose(np.asarray(scores), xq @ xq.transpose(0, 1, 3, 2), rtol=1e-5, atol=1e-4)


def test_addmm_reads_strided_factors(stats) -> None:
    rng = np.random.default_rng(2)
    a = rng.standard_normal((8, 6)).astype(np.float32)
    w = rng.standard_normal((5, 6)).astype(np.float32)
    bias = rng.standard_normal(5).astype(np.float32)
    s = stats()
    got = donate.addmm(donate.tensor(bias), donate.tensor(a), donate.tensor(w).T)
    assert s["allocations"] == 4  # three inputs converted, one result
    np.testing.assert_allclose(np.asarray(got), bias + a @ w.T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_reads_head_split_views_where_they_lie(stats, causal: bool) -> None:
    rng = np.random.default_rng(3)
    b, s_, h, d = 2, 33, 3, 8
    x = rng.standard_normal((3, b, s_, h * d)).astype(np.float64)
    q, k, v = (donate.tensor(x[i]).reshape(b, s_, h, d).transpose(0, 2, 1, 3) for i in range(3))
    st_ = stats()
    got = donate.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert st_["allocations"] == 1  # the result only: no copy of q, k or v
    want = donate.scaled_dot_product_attention(q.contiguous(), k.contiguous(), v.contiguous(), is_causal=causal)
    # The same arithmetic in the same order: equal, not just close.
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_element_wise_ops_on_views_match_numpy() -> None:
    t, a = base((4, 6))
    u, b = base((6, 4))
    np.testing.assert_array_equal(np.asarray(t.T + u), a.T + b)
    np.testing.assert_allclose(np.asarray(t[:, ::-2].exp()), np.exp(a[:, ::-2]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(t.T.softmax()), np.asarray(t.T.contiguous().softmax()))
    np.testing.assert_array_equal(np.asarray(t[1:3].sum(axis=0)), a[1:3].sum(axis=0))
    np.testing.assert_array_equal(np.asarray(t.T.astype(donate.float64)), a.T.astype(np.float64))


def test_buffer_protocol_of_views() -> None:
    t, a = base()
    v = t[:, ::-1, 1::2]
    m = memoryview(v)
    assert m.readonly and m.shape == a[:, ::-1, 1::2].shape
    assert m.strides == a[:, ::-1, 1::2].strides
    np.testing.assert_array_equal(np.asarray(v), a[:, ::-1, 1::2])
    assert v.strides == a[:, ::-1, 1::2].strides  # bytes, as NumPy's
    # An export of a view shows later writes to the shared buffer, as a
    # NumPy view does.
    t[0] = -5.0
    want = a.copy()
    want[0] = -5.0
    np.testing.assert_array_equal(np.asarray(m), want[:, ::-1, 1::2])


def test_a_view_left_alone_on_its_buffer_is_donatable() -> None:
    t, a = base((3, 4))
    v = t.reshape(4, 3)  # a view over the whole buffer, in C order
    v += 1.0  # written through into t's buffer
    np.testing.assert_array_equal(np.asarray(t), a + 1)
    del t  # v is the only holder now
    p = v.data_ptr()
    with strict():
        r = donate.relu(v.donate())
    assert v.is_donated and r.data_ptr() == p
    np.testing.assert_array_equal(np.asarray(r), np.maximum(a.reshape(4, 3) + 1, 0))


def test_iteration_makes_each_item_when_it_is_reached() -> None:
    """`iter(t)` yields `t[0]`, `t[1]`, ... one at a time, as NumPy's: an
    item reflects writes made before it is reached, and no row view exists
    before its turn. Before, every item was made up front (a list), so a
    write during the loop was not seen and every row held the buffer."""
    for mk in (np.asarray, donate.asarray):
        v = mk(np.arange(5.0))
        seen = []
        for x in v:
            seen.append(float(x))
            if len(seen) == 1:
                v[1] = 100.0
        assert seen == [0.0, 100.0, 2.0, 3.0, 4.0]
    m = donate.ones((256, 4))
    it = iter(m)
    first = next(it)
    assert m.ownership["handles"] == 2  # m and the one row made so far
    del first
    assert m.is_exclusive
    assert it.__length_hint__() == 255
    assert [r.tolist() for r in it][-1] == [1.0] * 4
    with pytest.raises(TypeError):
        iter(donate.asarray(3.0))


def test_a_0d_integer_tensor_index_is_advanced_indexing() -> None:
    """A 0-d integer tensor is an array index, as `np.array(1)` is: a
    copy, never a view a write would go through (it was a view)."""
    a = np.arange(6.0).reshape(2, 3)
    for key in (donate.asarray(1), (donate.asarray(1), slice(None))):
        t = donate.asarray(a.copy())
        s = t[key]
        s += 100
        np.testing.assert_array_equal(t.numpy(), a)
        np.testing.assert_array_equal(s.numpy(), a[1] + 100)


@pytest.mark.parametrize("shape,mask_shape,prefix", [
    ((3, 0), (3, 0), ()), ((0, 3, 4), (0, 3), ()), ((2, 3, 0), (3, 0), (slice(None),)),
])
def test_an_empty_boolean_tensor_mask_selects_nothing(shape, mask_shape, prefix) -> None:
    """NumPy reads an empty sequence as integer indices; a tensor mask is
    read as the boolean array it is (it gave shape (3, 0, 0))."""
    a = np.zeros(shape)
    m = np.zeros(mask_shape, bool)
    got = donate.asarray(a)[(*prefix, donate.asarray(m))]
    assert got.shape == a[(*prefix, m)].shape
    with pytest.raises(IndexError):
        donate.asarray(a)[donate.asarray(np.zeros(mask_shape, np.float32))]
