#!/usr/bin/env bash
# Build donate for CPython 3.14 and run the Python tests there.
#
# CPython 3.14 pushes locals onto the evaluation stack as borrowed
# references, so a reference count of 1 no longer means "temporary"
# (numpy/numpy#28681); donate uses PyUnstable_Object_IsUniqueReferencedTemporary
# there. This script checks that path on a real 3.14: it makes a Debian
# testing ("forky") chroot with debootstrap, installs python3.14 from
# Debian, builds the extension with this machine's Rust toolchain (rustup's
# and cargo's homes are bind-mounted), and runs the pytest suite.
#
# Needs root, debootstrap, and network access to Debian's mirror and PyPI.
# Usage: scripts/test-cpython314.sh [chroot-dir]   (default: target/chroot-py314)
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)
ROOT=${1:-$SRC/target/chroot-py314}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ ! -x "$ROOT/usr/bin/python3.14" ]; then
    mkdir -p "$ROOT"
    debootstrap --variant=minbase forky "$ROOT" "$MIRROR" /usr/share/debootstrap/scripts/sid
    cp /etc/resolv.conf "$ROOT/etc/"
    chroot "$ROOT" apt-get -o Acquire::Check-Valid-Until=false update -qq
    chroot "$ROOT" apt-get -o Acquire::Check-Valid-Until=false install -y -qq \
        python3.14 python3.14-dev python3.14-venv gcc libc6-dev
fi

# The host's CA bundle (it may hold a proxy's certificate), where Debian's
# ca-certificates package will not overwrite it.
cp "${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}" "$ROOT/etc/host-ca.crt"
cp /etc/resolv.conf "$ROOT/etc/"

mounts=()
cleanup() {
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[$i]}" || true; done
}
trap cleanup EXIT
bind() {
    mkdir -p "$2"
    mount --bind "$1" "$2"
    mounts+=("$2")
}
bind /proc "$ROOT/proc"
bind "${CARGO_HOME:-$HOME/.cargo}" "$ROOT/root/.cargo"
bind "${RUSTUP_HOME:-$HOME/.rustup}" "$ROOT/root/.rustup"
bind "$SRC" "$ROOT/src"

chroot "$ROOT" env -i HOME=/root PATH=/root/.cargo/bin:/venv/bin:/usr/bin:/bin \
    PIP_CERT=/etc/host-ca.crt bash -euo pipefail -c '
    [ -x /venv/bin/python ] || python3.14 -m venv /venv
    pip install -q "maturin>=1.9.4,<2" numpy pytest pytest-benchmark hypothesis
    cd /src
    rm -rf /tmp/wheels
    CARGO_TARGET_DIR=/src/target/py314 maturin build --release -i /venv/bin/python3.14 --out /tmp/wheels
    pip install -q --force-reinstall --no-deps /tmp/wheels/*.whl
    cd /tmp
    python -c "import sys, donate; print(sys.version.split()[0], donate.temporary_check())"
    python - <<PY
import sys, donate
def local_refcount():
    x = donate.ones((4,))
    return sys.getrefcount(x)
print("sys.getrefcount of a live local on this interpreter:", local_refcount())
PY
    python -m pytest -q -p no:cacheprovider -o addopts="" --rootdir=/tmp /src/tests
'
