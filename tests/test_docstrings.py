"""Every public function, class, method and property has a docstring, so
``help(donate.matmul)``, ``help(donate.Tensor.sum)`` and
``help(donate.Tensor.shape)`` say what it does. A new public name without
one fails here."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

import donate

# Dunders people call or look up by name, beyond the protocol slots whose
# meaning Python documents (`__add__`, `__getitem__`, ...; the extension
# cannot give a slot a docstring of its own).
DOCUMENTED_DUNDERS = {
    "__array__",
    "__array_namespace__",
    "__dlpack__",
    "__dlpack_device__",
    "__call__",
}


def _public_functions() -> list[tuple[str, Any]]:
    out = []
    for n in donate.__all__:
        o = getattr(donate, n)
        if callable(o) and not isinstance(o, type):
            out.append((n, o))
    for ext in ("linalg", "fft"):
        module = getattr(donate, ext)
        for n in dir(module):
            o = getattr(module, n)
            if not n.startswith("_") and callable(o) and not isinstance(o, type) and getattr(o, "__module__", "").startswith("donate"):
                out.append((f"{ext}.{n}", o))
    return out


def _public_classes() -> list[tuple[str, type]]:
    out = [(n, getattr(donate, n)) for n in donate.__all__ if isinstance(getattr(donate, n), type)]
    out.append(("Jitted", donate.Jitted))
    return out


def _members() -> list[tuple[str, Any]]:
    out = []
    for cname, cls in _public_classes():
        if issubclass(cls, BaseException) or cls.__module__ == "numpy":
            continue
        for n, member in inspect.getmembers(cls):
            if n.startswith("_") and n not in DOCUMENTED_DUNDERS:
                continue
            if n not in cls.__dict__ and not any(n in c.__dict__ for c in cls.__mro__[:-1] if c.__module__.startswith("donate")):
                continue  # inherited from object or a builtin
            out.append((f"{cname}.{n}", member))
    return out


def _doc(o: Any) -> str:
    return (inspect.getdoc(o) or "").strip()


@pytest.mark.parametrize("name,f", _public_functions(), ids=[n for n, _ in _public_functions()])
def test_every_public_function_has_a_docstring(name: str, f: Any) -> None:
    assert _doc(f), f"donate.{name} has no docstring"


@pytest.mark.parametrize("name,cls", _public_classes(), ids=[n for n, _ in _public_classes()])
def test_every_public_class_has_a_docstring(name: str, cls: type) -> None:
    assert _doc(cls), f"donate.{name} has no docstring"


@pytest.mark.parametrize("name,member", _members(), ids=[n for n, _ in _members()])
def test_every_public_method_and_property_has_a_docstring(name: str, member: Any) -> None:
    doc = _doc(member)
    assert doc, f"donate.{name} has no docstring"
    # (Not the interpreter's generic text for a slot wrapper.)
    assert not doc.startswith(("Return self", "Implement ", "Return getattr")), f"donate.{name}: {doc!r}"
