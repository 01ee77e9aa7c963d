"""``donate.jit`` and ``donate.make_jaxpr``: argument handling around the
core's tracing, planning and running.

This module only translates: it binds arguments to the function's
signature, flattens pytrees (tuples, lists, dicts) into tensor leaves,
keeps the cache of traced programs, and rebuilds outputs. Every decision
(types, which buffer each value lives in, what a donated argument gives
up, copy protection, warnings) is the Rust core's (``src/program/``).

Python numbers among the arguments are baked into the program as
literals, like static arguments: a new value traces again. Pass a 0-d
tensor to make a number an input instead. The cache key separates exactly
what eager code would treat differently: the value's type (``True``,
``1`` and ``1.0`` make a bool, an int64 and a float tensor), the sign of
a zero (``x / -0.0`` is ``-inf``) and of a NaN, and every NaN of one sign
is one key whatever its payload (NaN is not equal to itself, which would
otherwise trace on every call). The cache
keeps the ``CACHE_SIZE`` most recently used programs, and forgets one
whose trace computed a value from a captured tensor that was written
since (``Program.stale``), so that value is computed again.
"""

from __future__ import annotations

import functools
import inspect
import math
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any

import numpy as _np

from . import _core

_LEAF = "T"

#: The most programs one jitted function keeps (least recently used
#: first out), so a function called with ever new Python numbers or
#: shapes does not grow without bound.
CACHE_SIZE = 256


def _value_key(x: Any) -> Any:
    """What identifies a Python value in a cache key: its exact type and
    a value that separates what eager code separates. ``-0.0`` and ``0.0``
    differ (``float.hex`` keeps the sign), every NaN of one sign is one key
    whatever its payload (NaN is not equal to itself, which would trace on
    every call), ``True`` and ``1`` differ by type; tuples and frozensets
    are keyed element by element."""
    if isinstance(x, float):
        f = float(x)
        if f != f:
            # Any NaN payload is one key; its sign is not (eager code keeps
            # it: `full((3,), -nan)` has the sign bit set).
            return (type(x), "nan", math.copysign(1.0, f) < 0)
        return (type(x), f.hex())
    if isinstance(x, complex):
        return (type(x), x.real.hex(), x.imag.hex())
    if isinstance(x, tuple):
        return (type(x), tuple(_value_key(v) for v in x))
    if isinstance(x, frozenset):
        return (type(x), frozenset(_value_key(v) for v in x))
    return (type(x), x)


class _Value:
    """A Python value in a tree's structure: compared and hashed by
    ``_value_key``, rebuilt as the value itself."""

    __slots__ = ("value", "key")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.key = _value_key(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Value) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return repr(self.value)


def _flatten(tree: Any, leaves: list[Any], path: str) -> tuple[Any, list[str]]:
    """The structure of ``tree`` (hashable; tensors replaced by a marker)
    and its tensor leaves appended to ``leaves``; returns the structure and
    the leaves' paths (for messages)."""
    paths: list[str] = []
    return _walk(tree, path, leaves, paths), paths


# Module-level recursion (not a nested function calling itself: that is a
# reference cycle, which would keep the leaves alive until the next
# garbage collection).
def _walk(x: Any, p: str, leaves: list[Any], paths: list[str]) -> Any:
    if isinstance(x, _core.Tensor):
        leaves.append(x)
        paths.append(p)
        return _LEAF
    if isinstance(x, (_np.ndarray, _np.generic)):
        # NumPy data (subclasses too, as eager code accepts them): a tensor.
        leaves.append(_core.asarray(x))
        paths.append(p)
        return _LEAF
    if isinstance(x, tuple):
        return ("tuple", tuple(_walk(v, f"{p}[{i}]", leaves, paths) for i, v in enumerate(x)))
    if isinstance(x, list):
        return ("list", tuple(_walk(v, f"{p}[{i}]", leaves, paths) for i, v in enumerate(x)))
    if isinstance(x, dict):
        keys = sorted(x)
        return ("dict", tuple(_Value(k) for k in keys), tuple(_walk(x[k], f"{p}[{k!r}]", leaves, paths) for k in keys))
    if isinstance(x, Hashable):
        v = _Value(x)
        try:
            hash(v)
        except TypeError:  # hashable by type, not by value
            pass
        else:
            return ("const", v)
    raise TypeError(
        f"donate.jit: {p} is a {type(x).__name__}; arguments must be tensors, NumPy arrays, Python "
        "numbers, None, or tuples, lists and dicts of them (mark other arguments static)"
    )


def _unflatten(structure: Any, leaves: Iterable[Any]) -> Any:
    return _build(structure, iter(leaves))


def _build(s: Any, it: Iterator[Any]) -> Any:
    if s == _LEAF:
        return next(it)
    kind = s[0]
    if kind == "tuple":
        return tuple(_build(c, it) for c in s[1])
    if kind == "list":
        return [_build(c, it) for c in s[1]]
    if kind == "dict":
        return {k.value: _build(c, it) for k, c in zip(s[1], s[2])}
    return s[1].value


def _leaves(*trees: Any) -> Iterable[Any]:
    """Every leaf of the nested tuples, lists and dicts in ``trees``."""
    for t in trees:
        if isinstance(t, (tuple, list)):
            yield from _leaves(*t)
        elif isinstance(t, dict):
            yield from _leaves(*t.values())
        else:
            yield t


def _name(fun: Callable[..., Any]) -> str:
    while isinstance(fun, functools.partial):
        fun = fun.func
    return getattr(fun, "__name__", "fun")


class _Entry:
    """A traced and planned program, and how to rebuild its outputs."""

    def __init__(self, program: Any, lowered: Any, out_structure: Any) -> None:
        self.program = program
        self.lowered = lowered
        self.out_structure = out_structure


class Jitted:
    """A function traced once per argument signature, planned from
    liveness, and run over the planned buffers. See ``donate.jit``."""

    def __init__(
        self,
        fun: Callable[..., Any],
        *,
        donate_argnums: int | Sequence[int] = (),
        donate_argnames: str | Sequence[str] = (),
        static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = (),
    ) -> None:
        if not callable(fun):
            raise TypeError(f"donate.jit expects a function, not {type(fun).__name__}")
        self._fun = fun
        self.__name__ = _name(fun)
        self.__doc__ = getattr(fun, "__doc__", None)
        self.__wrapped__ = fun
        try:
            self._sig: inspect.Signature | None = inspect.signature(fun)
        except (TypeError, ValueError):
            self._sig = None
        params = list(self._sig.parameters.values()) if self._sig else []
        positional = [
            p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        # Without a signature (a builtin) nothing can be checked here.
        var_positional = self._sig is None or any(p.kind == p.VAR_POSITIONAL for p in params)
        var_keyword = self._sig is None or any(p.kind == p.VAR_KEYWORD for p in params)
        keyword = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}

        def nums(v: int | Sequence[int], what: str) -> set[int]:
            # Checked now, as JAX checks them: negative numbers count from
            # the end of the positional parameters; a number past them is
            # an error unless the function takes *args.
            items = [v] if isinstance(v, int) else list(v)
            out: set[int] = set()
            for i in items:
                if isinstance(i, bool) or not isinstance(i, int):
                    raise TypeError(f"donate.jit: {what} must be ints, not {type(i).__name__} ({i!r})")
                if i < 0:
                    if var_positional:
                        raise ValueError(
                            f"donate.jit: {what}={i} counts from the end, but {self.__name__} takes *args, "
                            "so its number of positional arguments is not known; use a non-negative index"
                        )
                    if i < -len(positional):
                        raise ValueError(
                            f"donate.jit: {what}={i} is out of range: {self.__name__} has "
                            f"{len(positional)} positional parameter(s)"
                        )
                    i += len(positional)
                elif i >= len(positional) and not var_positional:
                    raise ValueError(
                        f"donate.jit: {what}={i} is out of range: {self.__name__} has "
                        f"{len(positional)} positional parameter(s) ({', '.join(positional) or 'none'})"
                    )
                out.add(i)
            return out

        def names(v: str | Sequence[str], what: str) -> set[str]:
            items = {v} if isinstance(v, str) else set(v)
            for n in items:
                if not isinstance(n, str):
                    raise TypeError(f"donate.jit: {what} must be strings, not {type(n).__name__} ({n!r})")
                if n not in keyword and not var_keyword:
                    raise ValueError(
                        f"donate.jit: {what} names {n!r}, which is not a parameter of {self.__name__} "
                        f"that can be passed by name ({', '.join(sorted(keyword)) or 'none'})"
                    )
            return items

        self._donate_nums = nums(donate_argnums, "donate_argnums")
        self._static_nums = nums(static_argnums, "static_argnums")
        self._donate_names = names(donate_argnames, "donate_argnames")
        self._static_names = names(static_argnames, "static_argnames")
        # A name given by number is donated (or static) by name too, and the
        # other way round, as JAX resolves them.
        for i, n in enumerate(positional):
            if n in self._donate_names:
                self._donate_nums.add(i)
            if i in self._donate_nums:
                self._donate_names.add(n)
            if n in self._static_names:
                self._static_nums.add(i)
            if i in self._static_nums:
                self._static_names.add(n)
        both = (self._donate_nums & self._static_nums) or (self._donate_names & self._static_names)
        if both:
            raise ValueError(f"donate.jit: arguments {sorted(map(str, both))} are both donated and static")
        self._positional = positional
        self._cache: OrderedDict[Any, _Entry] = OrderedDict()
        self._tracing: dict[Any, Any] = {}
        self._lock = threading.Lock()
        self.trace_count = 0

    # ---- arguments ----
    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if self._sig is None:
            return args, kwargs
        bound = self._sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.args, bound.kwargs

    def _arg_name(self, i: int) -> str:
        return self._positional[i] if i < len(self._positional) else f"args[{i - len(self._positional)}]"

    def _label(self, i: int | None, name: str) -> str:
        return f"argument {i} '{name}'" if i is not None else f"argument '{name}'"

    def _signature(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, list[Any], list[bool], list[str], list[str]]:
        """The cache key, the tensor leaves, which are donated, their
        labels for messages, and the donated arguments that hold no tensor
        (nothing to donate)."""
        key: list[Any] = []
        leaves: list[Any] = []
        donated: list[bool] = []
        labels: list[str] = []
        empty: list[str] = []
        items = [(i, self._arg_name(i), a) for i, a in enumerate(args)]
        items += [(None, k, kwargs[k]) for k in sorted(kwargs)]
        for i, name, a in items:
            where = self._label(i, name)
            static = (i is not None and i in self._static_nums) or name in self._static_names
            if static:
                v = _Value(a)
                try:
                    hash(v)
                except TypeError:
                    raise TypeError(f"donate.jit: static {where} must be hashable, not {type(a).__name__}") from None
                key.append(("static", name, v))
                continue
            structure, paths = _flatten(a, leaves, where)
            key.append((name, structure))
            is_donated = (i is not None and i in self._donate_nums) or name in self._donate_names
            if is_donated and not paths:
                empty.append(f"{where} ({type(a).__name__})")
            for p in paths:
                donated.append(is_donated)
                labels.append(p)
        key.append(tuple((t.dtype.str, tuple(t.shape)) for t in leaves))
        return tuple(key), leaves, donated, labels, empty

    # ---- tracing ----
    def _trace(self, args: tuple[Any, ...], kwargs: dict[str, Any], leaves: list[Any]) -> tuple[Any, Any]:
        trace = _core._Trace([(t.dtype, list(t.shape)) for t in leaves])
        tracers = iter(trace.inputs())
        items = list(args) + [kwargs[k] for k in sorted(kwargs)]
        rebuilt = []
        for i, a in enumerate(items):
            name = self._arg_name(i) if i < len(args) else sorted(kwargs)[i - len(args)]
            if (i < len(args) and i in self._static_nums) or name in self._static_names:
                rebuilt.append(a)
                continue
            structure, _ = _flatten(a, [], "")
            rebuilt.append(_unflatten(structure, tracers))
        targs = tuple(rebuilt[: len(args)])
        tkwargs = dict(zip(sorted(kwargs), rebuilt[len(args) :]))
        finished = False
        try:
            out = self._fun(*targs, **tkwargs)
            out_leaves: list[Any] = []
            out_structure, _ = _flatten(out, out_leaves, "the output")
            program = trace.finish(out_leaves)
            finished = True
        finally:
            if not finished:
                # End the trace (its tracers stop working), unless a failed
                # finish already ended it: its error is the one to raise.
                try:
                    trace.finish([])
                except _core.TracerError:
                    pass
        self.trace_count += 1
        return program, out_structure

    def _check_donated_positions(self, args: tuple[Any, ...]) -> None:
        """With ``*args``, a donated or static number past the call's
        positional arguments names nothing: an error, as JAX's."""
        n = len(args)
        for what, nums in (("donate_argnums", self._donate_nums), ("static_argnums", self._static_nums)):
            missing = sorted(i for i in nums if i >= n)
            if missing:
                raise ValueError(
                    f"donate.jit: {what} includes {missing}, but {self.__name__} was called with {n} "
                    "positional argument(s)"
                )

    def _lookup(self, key: Any) -> _Entry | None:
        """The cached program of ``key`` (most recently used first out
        last); none when it is stale (a tensor it read while tracing, to
        compute a value from a captured tensor alone, was written since: the
        core's ``read_log``), so the function is traced again."""
        with self._lock:
            entry = self._cache.get(key)
            if entry is not None and entry.program.stale:
                del self._cache[key]
                return None
            if entry is not None:
                self._cache.move_to_end(key)
            return entry

    def _store(self, key: Any, entry: _Entry) -> None:
        with self._lock:
            self._cache[key] = entry
            self._cache.move_to_end(key)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)

    def _entry(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[_Entry, list[Any]]:
        args, kwargs = self._bind(args, kwargs)
        self._check_donated_positions(args)
        key, leaves, donated, labels, empty = self._signature(args, kwargs)
        entry = self._lookup(key)
        if entry is None:
            with self._lock:
                # One trace per key: threads calling first at once wait for
                # it (re-entrant, for a function that calls itself).
                tracing = self._tracing.setdefault(key, threading.RLock())
        if entry is None:
            with tracing:
                entry = self._lookup(key)
                if entry is None:
                    try:
                        self._warn_empty(empty, 4)
                        program, out_structure = self._trace(args, kwargs, leaves)
                        lowered = program.lower(donated, self.__name__, labels, 3)
                        entry = _Entry(program, lowered, out_structure)
                        self._store(key, entry)
                    finally:
                        # (A failed trace leaves no lock behind either.)
                        with self._lock:
                            self._tracing.pop(key, None)
        return entry, leaves

    def _warn_empty(self, empty: list[str], stacklevel: int) -> None:
        """A donated argument that holds no tensor: nothing to donate (once
        per trace, as the other unusable donations)."""
        for e in empty:
            warnings.warn(
                f"jit({self.__name__}): {e} is donated but holds no tensor, so there is no buffer to donate",
                _core.DonationWarning,
                stacklevel=stacklevel,
            )

    # ---- the API ----
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, _core.Tensor) and a._traced for a in _leaves(args, kwargs)):
            # Called while tracing another function: traced through (inlined).
            return self._fun(*args, **kwargs)
        entry, leaves = self._entry(args, kwargs)
        outs = entry.lowered.run(leaves)
        return _unflatten(entry.out_structure, outs)

    def lower(self, *args: Any, **kwargs: Any) -> Any:
        """The planned program for these arguments (traced if needed, not
        run); warns for donated arguments nothing can use."""
        args, kwargs = self._bind(args, kwargs)
        self._check_donated_positions(args)
        key, leaves, donated, labels, empty = self._signature(args, kwargs)
        self._warn_empty(empty, 3)
        entry = self._lookup(key)
        if entry is None:
            program, out_structure = self._trace(args, kwargs, leaves)
            lowered = program.lower(donated, self.__name__, labels, 2)
            self._store(key, _Entry(program, lowered, out_structure))
            return lowered
        return entry.program.lower(donated, self.__name__, labels, 2)

    def clear_cache(self) -> None:
        """Forget every traced program (the next call traces again)."""
        with self._lock:
            self._cache.clear()

    def __repr__(self) -> str:
        return f"<donate.jit of {self.__name__}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        # Decorating a method: bind like a function does.
        return self if obj is None else functools.partial(self, obj)


def jit(
    fun: Callable[..., Any] | None = None,
    *,
    donate_argnums: int | Sequence[int] = (),
    donate_argnames: str | Sequence[str] = (),
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
) -> Any:
    """Trace ``fun`` into a program, plan every buffer from liveness, and
    run it over the planned buffers.

    The first call for each (tree structure, shapes, dtypes, static values,
    Python numbers) traces ``fun`` once on tracer tensors; later calls reuse
    the planned program. Arguments named by ``donate_argnums`` /
    ``donate_argnames`` are donated: the program may write into their
    buffers (the caller's tensor is then moved-from), or copies them first
    when they are shared, with a ``DonationWarning``. A non-donated
    argument is never written. Use as ``donate.jit(f)``, ``@donate.jit`` or
    ``functools.partial(donate.jit, donate_argnums=0)``.
    """
    options = dict(
        donate_argnums=donate_argnums,
        donate_argnames=donate_argnames,
        static_argnums=static_argnums,
        static_argnames=static_argnames,
    )
    if fun is None:
        return functools.partial(jit, **options)
    return Jitted(fun, **options)


def make_jaxpr(
    fun: Callable[..., Any],
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
) -> Callable[..., Any]:
    """``make_jaxpr(f)(*args)``: the program ``f`` traces to on these
    arguments; ``str()`` prints it in the jaxpr grammar."""
    j = Jitted(fun, static_argnums=static_argnums, static_argnames=static_argnames)

    def trace(*args: Any, **kwargs: Any) -> Any:
        args, kwargs = j._bind(args, kwargs)
        _, leaves, _, _, _ = j._signature(args, kwargs)
        return j._trace(args, kwargs, leaves)[0]

    return trace
