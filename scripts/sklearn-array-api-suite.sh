#!/usr/bin/env bash
# scikit-learn's own array-API tests (the installed package's, about 1,600
# selected, 1,000 of them parametrized by namespace) with donate as the
# namespace, through scripts/sklearn_donate_namespace.py. Fails on any
# failure or unexpected pass; the known failures are strict xfails there.
# About two minutes on 2 cores. Cases that move arrays to a CUDA device are
# deselected: they run only when PyTorch is installed, and this machine has
# no GPU, so their outcome would depend on what else is installed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# Outside the checkout: nothing imported from it, no pytest settings of it.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
SCIPY_ARRAY_API=1 PYTHONPATH="$here" python -m pytest --pyargs sklearn \
    -p sklearn_donate_namespace -p no:cacheprovider -q -rfE \
    -k "(array_api or donate) and not cuda" "$@"
