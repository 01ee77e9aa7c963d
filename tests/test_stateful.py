"""Generated programs checked step by step against a plain NumPy model.

A hypothesis `RuleBasedStateMachine` mixes creation, reshape views, NumPy
exports, implicit and explicit donation, in-place ops, arenas and deletion.
The model knows, for every tensor, its values and which buffer it shares
(its *group*: tensors made by `reshape` share one buffer, and NumPy views
export it). From that alone it predicts every ownership decision:

* an explicit donation is honoured exactly when the tensor is alone in its
  group with no live view, its shape and dtype fit the result, and it is
  not used twice; otherwise a `DonationWarning` and a copy;
* an in-place op or an assignment writes its group's buffer, which every
  member and NumPy view of the group then shows (NumPy's views), except
  that a private strided tensor, or `t.add_(t)`, computes into a new
  buffer (the tensor leaves its group, which nobody else sees);
* a donated tensor raises `DonatedError` on every use.

After every step each live tensor must equal its model (values, dtype,
shape), each NumPy view its group's buffer, and `ownership` must count the live
handles and views of its group. Only exact operations are used, so values
are compared exactly (NaN positions included)."""

from __future__ import annotations

import itertools
import sys
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import donate

DTYPES = [np.dtype(d) for d in ("float32", "float64", "int32", "int64")]
SHAPES = [(4,), (2, 3), (3, 2), (6,), (1, 3), (2, 1, 3)]
INDICES: list[Any] = [0, -1, (slice(None, None, -1),), (Ellipsis, slice(1, None)), (None, 0), (slice(None, None, 2),)]

UNARY = {
    "relu": lambda x: np.maximum(x, x.dtype.type(0)),
    "neg": np.negative,
    "abs": np.abs,
}
# A method called on a temporary, spelled out so the temporary is on the
# interpreter's stack (`getattr(tmp, name)()` would make a bound method
# hold it, which is rightly not a temporary).
IMPLICIT = {
    "relu": lambda t: (t * 1).relu(),
    "neg": lambda t: (t * 1).neg(),
    "abs": lambda t: (t * 1).abs(),
}
BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
}


def values(dtype: np.dtype) -> st.SearchStrategy[Any]:
    if dtype.kind == "f":
        return st.one_of(
            st.integers(-50, 50).map(float),
            st.sampled_from([np.nan, np.inf, -np.inf, -0.0]),
        )
    return st.integers(-(2**31), 2**31 - 1)


@st.composite
def arrays(draw: st.DrawFn) -> np.ndarray:
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(st.sampled_from(SHAPES))
    return draw(hnp.arrays(dtype, shape, elements=values(dtype)))


@dataclass
class Entry:
    tensor: donate.Tensor
    model: np.ndarray
    group: int
    # Where the tensor's elements sit in its group's buffer: a NumPy view
    # of the element numbers of the buffer (`np.arange(n)`), made by the
    # same indexing, transposes and reshapes as the tensor.
    twin: np.ndarray | None = None

    @property
    def whole(self) -> bool:
        """Covers its whole buffer in C order: only then donatable."""
        t = self.twin
        return t is not None and t.flags.c_contiguous and t.size == t.base_size

    @property
    def contiguous(self) -> bool:
        return self.twin is not None and self.twin.flags.c_contiguous


class Twin(np.ndarray):
    """An element-number array that remembers its buffer's size."""

    base_size: int


def fresh_twin(shape: tuple[int, ...]) -> np.ndarray:
    t = np.arange(int(np.prod(shape))).reshape(shape).view(Twin)
    t.base_size = t.size
    return t


def derive(twin: np.ndarray, view: np.ndarray) -> np.ndarray:
    v = view.view(Twin)
    v.base_size = twin.base_size
    return v


@dataclass
class View:
    array: np.ndarray
    twin: np.ndarray  # where its elements sit in the group's buffer
    group: int
    source: int  # the key of the tensor it was exported from


def same(t: donate.Tensor, want: np.ndarray) -> None:
    got = t.numpy()
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)


class Programs(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.live: dict[int, Entry] = {}
        self.views: list[View] = []
        self.gone: list[donate.Tensor] = []
        # Deleted tensors that a NumPy view still keeps alive (the view
        # refers to the tensor it was exported from): key -> group.
        self.ghosts: dict[int, int] = {}
        self.arenas: list[donate.Arena] = []
        self.ids = itertools.count()
        self.groups = itertools.count()
        # Each group's buffer, by element number.
        self.buffers: dict[int, np.ndarray] = {}

    # -- helpers ---------------------------------------------------------
    def add(
        self, t: donate.Tensor, model: np.ndarray, group: int | None = None, twin: np.ndarray | None = None
    ) -> None:
        if twin is None:  # a new buffer (or one taken over whole)
            twin = fresh_twin(model.shape)
            group = next(self.groups) if group is None else group
            self.buffers[group] = model.reshape(-1).copy()
        assert group is not None
        self.live[next(self.ids)] = Entry(t, model, group, twin)

    def write(self, e: Entry, values: np.ndarray) -> None:
        """`values` written through `e` into its group's buffer: every
        member of the group shows them."""
        buf = self.buffers[e.group]
        buf[e.twin] = values
        for m in self.live.values():
            if m.group == e.group:
                m.model = buf[m.twin].copy()

    def leave(self, e: Entry, values: np.ndarray) -> None:
        """`e` computed into a new buffer of its own."""
        e.group = next(self.groups)
        e.twin = fresh_twin(values.shape)
        e.model = values
        self.buffers[e.group] = values.reshape(-1).copy()

    def members(self, group: int) -> int:
        """Handles on the group's buffer: live tensors, and deleted ones
        kept alive by a view exported from them."""
        ghosts = sum(
            g == group and any(v.source == k for v in self.views) for k, g in self.ghosts.items()
        )
        return sum(e.group == group for e in self.live.values()) + ghosts

    def exports(self, group: int) -> int:
        return sum(v.group == group for v in self.views)

    def private(self, e: Entry) -> bool:
        return self.members(e.group) == 1 and self.exports(e.group) == 0

    def donatable(self, e: Entry) -> bool:
        return self.private(e) and e.whole

    def pick(self, data: st.DataObject) -> int:
        return data.draw(st.sampled_from(sorted(self.live)))

    # -- rules -----------------------------------------------------------
    @rule(arr=arrays())
    def create(self, arr: np.ndarray) -> None:
        self.add(donate.tensor(arr), arr.copy())

    @precondition(lambda self: self.live)
    @rule(data=st.data(), shape=st.sampled_from(SHAPES))
    def reshape(self, data: st.DataObject, shape: tuple[int, ...]) -> None:
        e = self.live[self.pick(data)]
        if np.prod(shape) != e.model.size:
            try:
                e.tensor.reshape(*shape)
            except ValueError:
                return
            raise AssertionError("reshape to another size must fail")
        if e.contiguous:  # a view
            self.add(e.tensor.reshape(*shape), e.model.reshape(shape), e.group, derive(e.twin, e.twin.reshape(shape)))
        else:  # a strided view's reshape is a copy
            self.add(e.tensor.reshape(*shape), e.model.reshape(shape))

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def transpose(self, data: st.DataObject) -> None:
        e = self.live[self.pick(data)]
        self.add(e.tensor.T, e.model.T, e.group, derive(e.twin, e.twin.T))

    @precondition(lambda self: self.live)
    @rule(data=st.data(), key=st.sampled_from(INDICES))
    def index(self, data: st.DataObject, key: Any) -> None:
        e = self.live[self.pick(data)]
        try:
            want = np.asarray(e.model[key])
        except IndexError:
            try:
                e.tensor[key]
            except IndexError:
                return
            raise AssertionError("an index NumPy refuses must fail") from None
        if not isinstance(e.model[key], np.ndarray):
            # One element: NumPy's scalar, a copy (a new buffer of its own).
            self.add(e.tensor[key], want.copy())
            return
        self.add(e.tensor[key], want.copy(), e.group, derive(e.twin, np.asarray(e.twin[key])))

    @precondition(lambda self: self.live)
    @rule(data=st.data(), value=st.integers(-5, 5))
    def setitem(self, data: st.DataObject, value: int) -> None:
        e = self.live[self.pick(data)]
        if e.model.ndim == 0:
            return
        p = e.tensor.data_ptr()
        if e.model.shape[-1] == 0:  # no index 0 on the last axis: NumPy's IndexError
            with pytest.raises(IndexError, match="index 0 is out of bounds for axis"):
                e.tensor[..., 0] = value
            return
        e.tensor[..., 0] = value
        model = e.model.copy()
        model[..., 0] = value
        # Written in place (through its strides), shared or not.
        assert e.tensor.data_ptr() == p
        self.write(e, model)

    @precondition(lambda self: self.live)
    @rule(data=st.data(), value=st.integers(-5, 5))
    def setitem_positions(self, data: st.DataObject, value: int) -> None:
        # Assignment through an integer array (repeats and negative
        # indices included) writes the tensor's buffer (through into its
        # base and every view of it), as NumPy's.
        e = self.live[self.pick(data)]
        if e.model.ndim == 0 or e.model.shape[0] == 0:
            return
        n = e.model.shape[0]
        idx = np.array(data.draw(st.lists(st.integers(-n, n - 1), max_size=4)), dtype=np.int64)
        model = e.model.copy()
        model[idx] = value
        # As an in-place operator: a shared buffer is written through, a
        # private one in place unless strided (then into a new buffer
        # nobody else sees).
        in_place = not self.private(e) or e.contiguous
        p = e.tensor.data_ptr()
        e.tensor[idx] = value
        assert (e.tensor.data_ptr() == p) == in_place
        if in_place:
            self.write(e, model)
        else:
            self.leave(e, model)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def export(self, data: st.DataObject) -> None:
        k = self.pick(data)
        e = self.live[k]
        v = e.tensor.numpy()
        assert not v.flags.writeable
        self.views.append(View(v, e.twin, e.group, k))

    @precondition(lambda self: self.live)
    @rule(data=st.data(), op=st.sampled_from(sorted(UNARY)))
    def unary(self, data: st.DataObject, op: str) -> None:
        e = self.live[self.pick(data)]
        self.add(getattr(e.tensor, op)(), UNARY[op](e.model))

    @precondition(lambda self: self.live)
    @rule(data=st.data(), op=st.sampled_from(sorted(UNARY)))
    def implicit(self, data: st.DataObject, op: str) -> None:
        e = self.live[self.pick(data)]
        before = donate.memory_stats()["implicit_donations"]
        r = IMPLICIT[op](e.tensor)  # `e.tensor * 1` is a temporary
        # Reused, unless a trace or profile function runs (Hypothesis's
        # explain phase sets one): CPython 3.11 then calls the method
        # through a bound method holding the receiver, and the check copies.
        hooked = sys.gettrace() is not None or sys.getprofile() is not None
        assert donate.memory_stats()["implicit_donations"] - before in ((0, 1) if hooked else (1,))
        with np.errstate(all="ignore"):
            self.add(r, UNARY[op](e.model * e.model.dtype.type(1)))

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def relu_donate(self, data: st.DataObject) -> None:
        k = self.pick(data)
        e = self.live[k]
        honoured = self.donatable(e)
        p = e.tensor.data_ptr()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = e.tensor.relu_donate()
        assert bool(w) != honoured, [str(x.message) for x in w]
        assert e.tensor.is_donated == honoured
        assert (r.data_ptr() == p) == honoured
        if honoured:
            del self.live[k]
            self.gone.append(e.tensor)
            self.add(r, UNARY["relu"](e.model), e.group)
        else:
            self.add(r, UNARY["relu"](e.model))

    @precondition(lambda self: self.live)
    @rule(data=st.data(), op=st.sampled_from(sorted(BINARY)), donate_left=st.booleans())
    def binary(self, data: st.DataObject, op: str, donate_left: bool) -> None:
        ka, kb = self.pick(data), self.pick(data)
        a, b = self.live[ka], self.live[kb]
        f, ref = BINARY[op]
        try:
            shape = np.broadcast_shapes(a.model.shape, b.model.shape)
        except ValueError:
            try:
                f(a.tensor, b.tensor)
            except ValueError:
                return
            raise AssertionError("mismatched shapes must fail")
        with np.errstate(all="ignore"):
            want = ref(a.model, b.model)
        if not donate_left:
            self.add(f(a.tensor, b.tensor), want)
            return
        honoured = (
            self.donatable(a) and ka != kb and shape == a.model.shape and want.dtype == a.model.dtype
        )
        p = a.tensor.data_ptr()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = f(a.tensor.donate(), b.tensor)
        assert bool(w) != honoured, [str(x.message) for x in w]
        assert (r.data_ptr() == p) == honoured
        if honoured:
            del self.live[ka]
            self.gone.append(a.tensor)
            self.add(r, want, a.group)
        else:
            self.add(r, want)

    @precondition(lambda self: self.live)
    @rule(data=st.data(), op=st.sampled_from(sorted(BINARY)))
    def in_place(self, data: st.DataObject, op: str) -> None:
        ka, kb = self.pick(data), self.pick(data)
        a, b = self.live[ka], self.live[kb]
        _, ref = BINARY[op]
        method = getattr(a.tensor, op + "_")
        # NumPy is the oracle: the result computed in the promoted dtype and
        # cast into the target's under `same_kind` (else TypeError), the
        # target never broadcast (else ValueError); a refusal changes nothing.
        want = np.array(a.model, copy=True)  # 0-d models may be NumPy scalars
        try:
            with np.errstate(all="ignore"):
                ref(want, b.model, out=want, casting="same_kind")
        except (TypeError, ValueError) as e:
            with pytest.raises(TypeError if isinstance(e, TypeError) else ValueError):
                method(b.tensor)
            return
        # A shared buffer is written through. A private one is written in
        # place (`t.add_(t)` too: it reads each element before writing
        # it), except when strided (the in-place kernels write contiguous
        # elements): computed into a new buffer nobody else sees.
        private = self.private(a)
        in_place = not private or a.contiguous
        p = a.tensor.data_ptr()
        assert method(b.tensor) is a.tensor
        assert (a.tensor.data_ptr() == p) == in_place
        if in_place:
            self.write(a, want)
        else:
            self.leave(a, want)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        k = self.pick(data)
        if any(v.source == k for v in self.views):
            self.ghosts[k] = self.live[k].group
        del self.live[k]

    @precondition(lambda self: self.views)
    @rule(data=st.data())
    def drop_view(self, data: st.DataObject) -> None:
        self.views.pop(data.draw(st.integers(0, len(self.views) - 1)))

    @precondition(lambda self: len(self.arenas) < 2)
    @rule()
    def enter_arena(self) -> None:
        ar = donate.arena(max_bytes=1 << 20)
        ar.__enter__()
        self.arenas.append(ar)

    @precondition(lambda self: self.arenas)
    @rule()
    def exit_arena(self) -> None:
        self.arenas.pop().__exit__(None, None, None)

    # -- checks ----------------------------------------------------------
    @invariant()
    def tensors_match_the_model(self) -> None:
        for e in self.live.values():
            assert not e.tensor.is_donated
            same(e.tensor, e.model)
            own = e.tensor.ownership
            assert own["handles"] == self.members(e.group), (own, self.members(e.group))
            assert own["exports"] == self.exports(e.group), (own, self.exports(e.group))

    @invariant()
    def views_show_their_buffer(self) -> None:
        for v in self.views:
            np.testing.assert_array_equal(v.array, self.buffers[v.group][v.twin])

    @invariant()
    def donated_tensors_stay_unusable(self) -> None:
        for t in self.gone[-3:]:
            assert t.is_donated
            try:
                t + 1
            except donate.DonatedError:
                continue
            raise AssertionError("a donated tensor was readable")

    def teardown(self) -> None:
        while self.arenas:
            ar = self.arenas.pop()
            ar.__exit__(None, None, None)
        self.live.clear()
        self.views.clear()


Programs.TestCase.settings = settings(max_examples=2000, stateful_step_count=20, deadline=None)
TestPrograms = Programs.TestCase
