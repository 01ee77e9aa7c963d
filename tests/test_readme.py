"""The Python examples of the README and of the pages that take examples
out of it run as written (one namespace per page, in order, as a reader
would paste them), so the documentation does not lie."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("page,blocks_at_least", [("README.md", 4), ("docs/clients.md", 1)])
def test_the_python_examples_run(page: str, blocks_at_least: int) -> None:
    path = ROOT / page
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)
    assert len(blocks) >= blocks_at_least
    namespace: dict[str, object] = {"__name__": "readme"}
    for block in blocks:
        exec(compile(block, str(path), "exec"), namespace)  # noqa: S102
