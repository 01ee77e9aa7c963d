#!/usr/bin/env bash
# Replaced by scripts/test-cpython.sh, which tests 3.13, 3.14 and 3.14t in
# one Debian testing chroot; kept so that callers of the old name still run
# the 3.14 check. Usage: scripts/test-cpython314.sh [chroot-dir]
set -euo pipefail
exec "$(dirname "$0")/test-cpython.sh" 3.14 "$@"
