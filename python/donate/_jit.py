"""``donate.jit`` and ``donate.make_jaxpr``: argument handling around the
core's tracing, planning and running.

This module only translates: it binds arguments to the function's
signature, flattens pytrees (tuples, lists, dicts) into tensor leaves,
keeps the cache of traced programs, and rebuilds outputs. Every decision
(types, which buffer each value lives in, what a donated argument gives
up, copy protection, warnings) is the Rust core's (``src/program/``).

Python numbers among the arguments are baked into the program as
literals, like static arguments: a new value traces again. Pass a 0-d
tensor to make a number an input instead.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any

from . import _core

_LEAF = "T"


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
    if type(x).__module__ == "numpy" and hasattr(x, "shape") and hasattr(x, "dtype"):
        leaves.append(_core.asarray(x))
        paths.append(p)
        return _LEAF
    if isinstance(x, tuple):
        return ("tuple", tuple(_walk(v, f"{p}[{i}]", leaves, paths) for i, v in enumerate(x)))
    if isinstance(x, list):
        return ("list", tuple(_walk(v, f"{p}[{i}]", leaves, paths) for i, v in enumerate(x)))
    if isinstance(x, dict):
        keys = sorted(x)
        return ("dict", tuple(keys), tuple(_walk(x[k], f"{p}[{k!r}]", leaves, paths) for k in keys))
    if x is None or isinstance(x, (bool, int, float, str)) or isinstance(x, Hashable):
        return ("const", type(x).__name__, x)
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
        return {k: _build(c, it) for k, c in zip(s[1], s[2])}
    return s[2]


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

        def nums(v: int | Sequence[int]) -> set[int]:
            return {v} if isinstance(v, int) else {int(i) for i in v}

        def names(v: str | Sequence[str]) -> set[str]:
            return {v} if isinstance(v, str) else set(v)

        self._donate_nums = nums(donate_argnums)
        self._static_nums = nums(static_argnums)
        self._donate_names = names(donate_argnames)
        self._static_names = names(static_argnames)
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
        self._cache: dict[Any, _Entry] = {}
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

    def _signature(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, list[Any], list[bool], list[str]]:
        """The cache key, the tensor leaves, which are donated, and their
        labels for messages."""
        key: list[Any] = []
        leaves: list[Any] = []
        donated: list[bool] = []
        labels: list[str] = []
        items = [(i, self._arg_name(i), a) for i, a in enumerate(args)]
        items += [(None, k, kwargs[k]) for k in sorted(kwargs)]
        for i, name, a in items:
            static = (i is not None and i in self._static_nums) or name in self._static_names
            if static:
                try:
                    hash(a)
                except TypeError:
                    raise TypeError(f"donate.jit: static argument {name!r} must be hashable, not {type(a).__name__}") from None
                key.append(("static", name, type(a).__name__, a))
                continue
            structure, paths = _flatten(a, leaves, "")
            key.append((name, structure))
            is_donated = (i is not None and i in self._donate_nums) or name in self._donate_names
            where = f"argument {i} '{name}'" if i is not None else f"argument '{name}'"
            for p in paths:
                donated.append(is_donated)
                labels.append(where + p)
        key.append(tuple((t.dtype.str, tuple(t.shape)) for t in leaves))
        return tuple(key), leaves, donated, labels

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
            out_structure, _ = _flatten(out, out_leaves, "")
            program = trace.finish(out_leaves)
            finished = True
        finally:
            if not finished:
                trace.finish([])  # end the trace: its tracers stop working
        self.trace_count += 1
        return program, out_structure

    def _entry(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[_Entry, list[Any]]:
        args, kwargs = self._bind(args, kwargs)
        key, leaves, donated, labels = self._signature(args, kwargs)
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                # One trace per key: threads calling first at once wait for
                # it (re-entrant, for a function that calls itself).
                tracing = self._tracing.setdefault(key, threading.RLock())
        if entry is None:
            with tracing:
                with self._lock:
                    entry = self._cache.get(key)
                if entry is None:
                    program, out_structure = self._trace(args, kwargs, leaves)
                    lowered = program.lower(donated, self.__name__, labels, 3)
                    entry = _Entry(program, lowered, out_structure)
                    with self._lock:
                        self._cache[key] = entry
                        self._tracing.pop(key, None)
        return entry, leaves

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
        key, leaves, donated, labels = self._signature(args, kwargs)
        with self._lock:
            entry = self._cache.get(key)
        if entry is None:
            program, out_structure = self._trace(args, kwargs, leaves)
            lowered = program.lower(donated, self.__name__, labels, 2)
            with self._lock:
                self._cache.setdefault(key, _Entry(program, lowered, out_structure))
            return lowered
        return entry.program.lower(donated, self.__name__, labels, 2)

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
        _, leaves, _, _ = j._signature(args, kwargs)
        return j._trace(args, kwargs, leaves)[0]

    return trace
