#!/usr/bin/env bash
# Build donate for one CPython version and run the Python tests there.
#
#   scripts/test-cpython.sh VERSION [chroot-dir] [pytest args...]
#
# VERSION is 3.13, 3.14 or 3.14t (free-threaded). The interpreters come
# from a Debian testing ("forky") chroot made with debootstrap (see
# scripts/forky-chroot.sh; default chroot: target/chroot-forky): Debian's
# python3.13 and python3.14, and for 3.14t a CPython built there by
# scripts/build-cpython314t.sh (run first if /opt/py314t is missing).
#
# Why these versions need their own run: the temporary check differs.
# CPython 3.14 pushes locals onto the evaluation stack as borrowed
# references, so a reference count of 1 no longer means "temporary"
# (numpy/numpy#28681); donate uses PyUnstable_Object_IsUniqueReferencedTemporary
# there. On 3.11-3.13 it walks the C stack, which depends on how that
# interpreter was compiled (Debian's differs from the host's). On the
# free-threaded build the module's gil_used declaration decides whether
# importing donate turns the GIL back on.
#
# The checkout this script lives in is built (with this machine's Rust
# toolchain: rustup's and cargo's homes are bind-mounted), each version in
# its own venv (/venv/VERSION in the chroot) and cargo target dir
# (target/cpython-VERSION), and tests/ is run with pytest; any failure
# makes the script fail. pytest args, when given, replace /src/tests
# (paths as seen in the chroot, e.g. /src/tests/test_threads.py).
#
# Needs root and network access to Debian's mirror, PyPI and crates.io;
# installs debootstrap on the host if it is missing.
set -euo pipefail

usage() {
    echo "usage: $0 3.13|3.14|3.14t [chroot-dir] [pytest args...]" >&2
    exit 2
}
[ $# -ge 1 ] || usage
VERSION=$1
shift
case "$VERSION" in
    3.13 | 3.14) PYTHON=/usr/bin/python$VERSION ;;
    3.14t) PYTHON=/opt/py314t/bin/python3.14t ;;
    *) usage ;;
esac

cd "$(dirname "$0")/.."
SRC=$(pwd)
ROOT=$(realpath -m "${1:-$SRC/target/chroot-forky}")
[ $# -gt 0 ] && shift
PYTEST_ARGS=("$@")
[ ${#PYTEST_ARGS[@]} -gt 0 ] || PYTEST_ARGS=(/src/tests)

# The free-threaded interpreter is built from source in the chroot (no
# Debian package ships it); that script makes the chroot too. It takes the
# chroot's lock itself, so it runs before this script takes it.
if [ "$VERSION" = 3.14t ] && [ ! -x "$ROOT$PYTHON" ]; then
    "$SRC/scripts/build-cpython314t.sh" "$ROOT"
fi

# shellcheck source=scripts/forky-chroot.sh
. "$SRC/scripts/forky-chroot.sh"
forky_init
if [ "$VERSION" != 3.14t ]; then
    forky_install "python$VERSION" "python$VERSION-dev" "python$VERSION-venv" gcc libc6-dev
fi
[ -x "$ROOT$PYTHON" ] || { echo "$0: $PYTHON is missing in $ROOT" >&2; exit 1; }
forky_mount

start=$SECONDS
forky_run PATH="/venv/$VERSION/bin:/root/.cargo/bin:/usr/bin:/bin" \
    VERSION="$VERSION" PYTHON="$PYTHON" bash -euo pipefail -c '
    [ -x "/venv/$VERSION/bin/python" ] || "$PYTHON" -m venv "/venv/$VERSION"
    # maturin, NumPy and the test extra, read from pyproject.toml (one list).
    "$PYTHON" -c "import tomllib; p = tomllib.load(open(\"/src/pyproject.toml\", \"rb\"))[\"project\"]; print(\"\n\".join(p[\"dependencies\"] + p[\"optional-dependencies\"][\"test\"]))" > /tmp/requirements-$VERSION.txt
    pip install -q "maturin>=1.9.4,<2" -r /tmp/requirements-$VERSION.txt
    t=$SECONDS
    wheels=/tmp/wheels-$VERSION
    rm -rf "$wheels"
    cd /src
    CARGO_TARGET_DIR="/src/target/cpython-$VERSION" \
        maturin build --profile wheel -i "/venv/$VERSION/bin/python" --out "$wheels"
    pip install -q --force-reinstall --no-deps "$wheels"/*.whl
    echo "build and install: $((SECONDS - t)) s"
    # Outside /src, so that nothing is imported from the checkout and
    # hypothesis keeps its database out of it.
    cd /tmp
    python - <<PY
import sys, sysconfig
import donate
print(sys.version.split()[0], "free-threaded" if sysconfig.get_config_var("Py_GIL_DISABLED") else "with the GIL",
      donate.temporary_check())
if hasattr(sys, "_is_gil_enabled"):
    print("sys._is_gil_enabled() after import donate:", sys._is_gil_enabled())
def local_refcount():
    x = donate.ones((4,))
    return sys.getrefcount(x)
print("sys.getrefcount of a live local on this interpreter:", local_refcount())
PY
    t=$SECONDS
    status=0
    python -m pytest -q -p no:cacheprovider "$@" || status=$?
    echo "pytest: $((SECONDS - t)) s"
    exit $status
' bash "${PYTEST_ARGS[@]}"
echo "CPython $VERSION: done in $((SECONDS - start)) s"
