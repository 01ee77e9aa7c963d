"""``donate.jit``'s arguments: what it checks at ``jit(...)`` time, the
cache key and its bound, donations inside the traced function, and the
arguments it accepts (as eager code does)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import donate
from donate import _jit


def one(x: donate.Tensor) -> donate.Tensor:
    return x * 2.0


def two(x: donate.Tensor, y: donate.Tensor) -> donate.Tensor:
    return x + y


# ---- donate_argnums / donate_argnames, checked at jit(...) time ----


def test_a_negative_donate_argnum_counts_from_the_end() -> None:
    f = donate.jit(two, donate_argnums=-1)
    x, y = donate.ones(3), donate.ones(3)
    f(x, y)
    assert y.is_donated and not x.is_donated


@pytest.mark.parametrize("nums", [2, -3, (0, 5)])
def test_an_out_of_range_donate_argnum_is_an_error(nums: Any) -> None:
    with pytest.raises(ValueError, match="out of range"):
        donate.jit(two, donate_argnums=nums)


def test_an_unknown_donate_argname_is_an_error() -> None:
    with pytest.raises(ValueError, match="'z'"):
        donate.jit(two, donate_argnames="z")
    with pytest.raises(ValueError, match="'z'"):
        donate.jit(two, static_argnames=("x", "z"))


def test_argnums_must_be_ints() -> None:
    with pytest.raises(TypeError):
        donate.jit(two, donate_argnums=(0.0,))
    with pytest.raises(TypeError):
        donate.jit(two, donate_argnums=True)


def test_star_args_are_checked_at_call_time() -> None:
    def f(*xs: donate.Tensor) -> donate.Tensor:
        return xs[0] + 1.0

    g = donate.jit(f, donate_argnums=2)
    with pytest.raises(ValueError, match="donate_argnums"):
        g(donate.ones(2))
    x = donate.ones(2)
    with pytest.warns(donate.DonationWarning, match=r"argument 2 'args\[2\]'.*does not use it"):
        g(donate.ones(2), donate.ones(2), x)
    with pytest.raises(ValueError, match="counts from the end"):
        donate.jit(f, donate_argnums=-1)


def test_a_keyword_only_parameter_can_be_donated_by_name() -> None:
    def f(x: donate.Tensor, *, y: donate.Tensor) -> donate.Tensor:
        return y * 2.0

    y = donate.ones(3)
    donate.jit(f, donate_argnames="y")(donate.ones(3), y=y)
    assert y.is_donated


def test_a_donated_argument_without_a_tensor_warns_once() -> None:
    f = donate.jit(lambda x, s: x * s, donate_argnums=1)
    with pytest.warns(donate.DonationWarning, match="argument 1 's'.*no tensor"):
        f(donate.ones(2), 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(donate.ones(2), 3.0)  # cached: no second warning


# ---- donations inside the traced function ----


def test_donating_a_captured_tensor_inside_a_trace_is_refused_with_a_warning() -> None:
    w = donate.asarray(np.arange(3.0, dtype=np.float32))
    f = donate.jit(lambda x: x + w.donate())
    with pytest.warns(donate.DonationWarning, match="not an argument of the traced function"):
        r = f(donate.ones(3))
    assert not w.is_donated
    np.testing.assert_array_equal(np.asarray(w), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(r), [1.0, 2.0, 3.0])
    # Every later call reads the same constant.
    np.testing.assert_array_equal(np.asarray(f(donate.ones(3))), [1.0, 2.0, 3.0])


def test_donating_a_captured_tensor_into_an_in_place_update_is_refused() -> None:
    w = donate.ones(3)

    def f(x: donate.Tensor) -> donate.Tensor:
        y = x * 1.0
        y += w.donate()
        return y

    with pytest.warns(donate.DonationWarning, match="not an argument"):
        r = donate.jit(f)(donate.ones(3))
    assert not w.is_donated
    np.testing.assert_array_equal(np.asarray(r), [2.0, 2.0, 2.0])


# ---- the cache ----


def test_the_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_jit, "CACHE_SIZE", 8)
    f = donate.jit(lambda x, s: x * s)
    x = donate.ones(2)
    for i in range(30):
        f(x, float(i))
    assert f.trace_count == 30
    assert len(f._cache) == 8
    # The most recent ones are kept.
    f(x, 29.0)
    assert f.trace_count == 30
    f.clear_cache()
    f(x, 29.0)
    assert f.trace_count == 31


def test_zero_signs_and_nans_are_keyed_as_eager_code_treats_them() -> None:
    f = donate.jit(lambda x, s: x / s)
    x = donate.ones(2)
    assert np.asarray(f(x, 0.0)).tolist() == [np.inf, np.inf]
    assert np.asarray(f(x, -0.0)).tolist() == [-np.inf, -np.inf]
    for _ in range(20):
        f(x, float("nan"))
    assert f.trace_count == 3


def test_true_one_and_one_point_zero_are_three_programs() -> None:
    f = donate.jit(lambda x, s: donate.full((2,), s) + x * 0)
    x = donate.zeros(2, dtype="int8")
    got = [f(x, s).dtype for s in (1, True, 1.0)]
    want = [(donate.full((2,), s) + x * 0).dtype for s in (1, True, 1.0)]
    assert got == want
    assert f.trace_count == 3


def test_dict_keys_are_keyed_by_type() -> None:
    f = donate.jit(lambda d: [v * 2.0 for v in d.values()][0] + float(type(next(iter(d))) is bool))
    x = donate.ones(2)
    a = f({1: x})
    b = f({True: x})
    assert np.asarray(a).tolist() == [2.0, 2.0]
    assert np.asarray(b).tolist() == [3.0, 3.0]


# ---- what jit accepts, and how it names arguments ----


class Sub(np.ndarray):
    pass


def test_ndarray_subclasses_are_accepted_as_eager_code_accepts_them() -> None:
    a = np.arange(3.0).view(Sub)
    np.testing.assert_array_equal(np.asarray(donate.jit(one)(a)), np.asarray(one(donate.asarray(a))))


def test_an_unsupported_argument_is_named_by_position_and_name() -> None:
    class Opaque:
        __hash__ = None  # type: ignore[assignment]

    with pytest.raises(TypeError, match="argument 1 'y' is a Opaque"):
        donate.jit(two)(donate.ones(2), Opaque())
    with pytest.raises(TypeError, match=r"argument 0 'x'\[1\] is a Opaque"):
        donate.jit(one)((donate.ones(2), Opaque()))


def test_unstack_is_recorded_as_views() -> None:
    def f(x: donate.Tensor) -> donate.Tensor:
        a, b = donate.unstack(x)
        return a * 2.0 + b

    x = donate.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(donate.jit(f)(x)), np.asarray(f(x)))
    assert "__getitem__" in str(donate.make_jaxpr(f)(x)) or "getitem" in str(donate.make_jaxpr(f)(x))


def test_donating_an_undonated_argument_inside_is_refused_with_one_warning() -> None:
    def f(x: donate.Tensor) -> donate.Tensor:
        return x.donate() * 2.0

    x = donate.ones(3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = donate.jit(f)(x)
    msgs = [str(m.message) for m in w if issubclass(m.category, donate.DonationWarning)]
    assert len(msgs) == 1 and "argument 0 'x'" in msgs[0] and "not donated to jit(f)" in msgs[0], msgs
    assert not x.is_donated
    np.testing.assert_array_equal(np.asarray(r), [2.0, 2.0, 2.0])
    # Donated by the caller too: honoured, no warning.
    y = donate.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        donate.jit(f, donate_argnums=0)(y)
    assert y.is_donated


def test_a_failed_trace_leaves_no_lock_behind() -> None:
    def f(x: donate.Tensor, s: float) -> donate.Tensor:
        if s < 0:
            raise ValueError("negative")
        return x * s

    g = donate.jit(f)
    for i in range(5):
        with pytest.raises(ValueError):
            g(donate.ones(2), -float(i + 1))
    assert not g._tracing
    assert not g._cache


def test_warnings_point_at_the_caller() -> None:
    f = donate.jit(lambda x, s: x * s, donate_argnums=1)
    with pytest.warns(donate.DonationWarning) as w:
        f(donate.ones(2), 3.0)
    assert w[0].filename == __file__
