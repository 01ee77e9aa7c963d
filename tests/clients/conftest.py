"""Shared set-up for the tests that run third-party libraries on donate tensors.

SciPy decides once, when `scipy` is first imported, whether its array-API
dispatch is on (`SCIPY_ARRAY_API=1`); scikit-learn's array-API dispatch needs
SciPy's. The variable therefore has to be set before anything imports SciPy:
`tests/conftest.py` sets it at its very top (that file is loaded first), and
this file sets it again for a run that starts in `tests/clients` with another
root conftest. If SciPy was nevertheless imported before with the dispatch off,
the check below turns that into one clear error instead of many confusing
failures.

These libraries are required test dependencies: a missing one is an import
error, never a skip.
"""

from __future__ import annotations

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import pytest  # noqa: E402
import scipy._lib._array_api as _scipy_array_api  # noqa: E402

if os.environ["SCIPY_ARRAY_API"] != "1" or not _scipy_array_api.SCIPY_ARRAY_API:
    raise pytest.UsageError(
        "tests/clients needs SciPy's array-API dispatch: SCIPY_ARRAY_API=1 must be "
        "set before scipy is first imported (see tests/conftest.py)"
    )



def pytest_configure(config: pytest.Config) -> None:
    # sklearn's metrics test module, imported by test_sklearn.py for its
    # checkers, marks some of its own tests with this.
    config.addinivalue_line("markers", "thread_unsafe: a mark of sklearn's own test modules")
