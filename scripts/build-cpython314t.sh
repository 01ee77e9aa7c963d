#!/usr/bin/env bash
# Build free-threaded CPython 3.14 ("3.14t") into /opt/py314t in the Debian
# testing chroot of scripts/test-cpython.sh, for `scripts/test-cpython.sh 3.14t`.
#
#   scripts/build-cpython314t.sh [chroot-dir]     (default: target/chroot-forky)
#
# No Debian package ships a free-threaded interpreter, so it is built from
# the upstream source in Debian's python3.14 source package (the same
# CPython release as the chroot's python3.14). The .orig tarball is built
# as it is, without Debian's patches: those assume Debian's own configure
# flags and install layout, and a plain `./configure --prefix=/opt/py314t`
# build is what a free-threaded user gets from python.org.
#
# Only what the tests need is built: no PGO or LTO, no CPython test run.
# Build dependencies are the libraries of the modules pip, venv and the
# tests use: ssl (pip talks HTTPS), zlib, bz2 and lzma (wheels and sdists),
# ctypes (libffi), decimal (libmpdec). Not sqlite3, readline, tkinter,
# dbm or uuid.
#
# An existing /opt/py314t is kept; REBUILD=1 builds it again.
# PY314T_TARBALL=/path/to/Python-3.14.x.tar.xz builds that upstream tarball
# instead, for a mirror that serves Debian's binaries but not this source
# package.
# Needs root and network access to Debian's mirror.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)
ROOT=$(realpath -m "${1:-$SRC/target/chroot-forky}")

# shellcheck source=scripts/forky-chroot.sh
. "$SRC/scripts/forky-chroot.sh"
forky_init

if [ -x "$ROOT/opt/py314t/bin/python3.14t" ] && [ "${REBUILD:-0}" != 1 ]; then
    echo "/opt/py314t is already built in $ROOT (REBUILD=1 builds it again)"
    exit 0
fi

# `apt-get source` needs deb-src lines; the chroot has only deb lines.
if ! grep -qs '^deb-src ' "$ROOT/etc/apt/sources.list" "$ROOT"/etc/apt/sources.list.d/*.list; then
    echo "deb-src $MIRROR forky main" >"$ROOT/etc/apt/sources.list.d/forky-src.list"
    rm -f "$ROOT/var/lib/apt/lists/lock"
    chroot "$ROOT" "${APT[@]}" update -qq
fi
forky_install gcc make libc6-dev pkg-config xz-utils ca-certificates \
    libssl-dev zlib1g-dev libbz2-dev liblzma-dev libffi-dev libmpdec-dev

rm -rf "$ROOT/root/build-py314t"
mkdir -p "$ROOT/root/build-py314t"
if [ -n "${PY314T_TARBALL:-}" ]; then
    cp "$PY314T_TARBALL" "$ROOT/root/build-py314t/"
fi

forky_run APT="${APT[*]}" TARBALL="$(basename "${PY314T_TARBALL:-}")" bash -euo pipefail -c '
    cd /root/build-py314t
    if [ -n "$TARBALL" ]; then
        orig=$TARBALL
    else
        # The download runs as root: apt cannot drop to its sandbox user here.
        $APT -o APT::Sandbox::User=root source --download-only python3.14 || {
            echo "apt-get source python3.14 failed; PY314T_TARBALL=<CPython 3.14 source tarball> builds without it" >&2
            exit 1
        }
        # (not the upstream signature, python3.14_*.orig.tar.xz.asc)
        orig=$(ls python3.14_*.orig.tar.* | grep -v "\.asc$")
    fi
    echo "building $orig"
    mkdir cpython
    tar xf "$orig" -C cpython --strip-components=1
    cd cpython
    t=$SECONDS
    ./configure --disable-gil --prefix=/opt/py314t >configure.log
    make -j"$(nproc)" >make.log 2>&1 || { tail -n 50 make.log; exit 1; }
    make install >install.log 2>&1 || { tail -n 50 install.log; exit 1; }
    echo "CPython 3.14t configure + make + make install: $((SECONDS - t)) s"
    # The modules this build could not make (make prints them too).
    grep -A3 "necessary bits to build these optional modules were not found" make.log || true
    /opt/py314t/bin/python3.14t -c "import sys, ssl, zlib, bz2, lzma, ctypes, decimal, venv; print(sys.version); print(\"GIL enabled:\", sys._is_gil_enabled())"
'
