#!/usr/bin/env bash
# Run the Rust test suite (unit, integration and doc-free test binaries)
# under valgrind's memcheck and fail on any invalid read or write, use of
# uninitialised memory, invalid free, or definite leak.
#
#   scripts/valgrind-memcheck.sh            # every kernel level valgrind can run
#   DONATE_ISA=scalar scripts/valgrind-memcheck.sh   # one level only
#
# Valgrind does not emulate AVX-512 and hides it from CPUID, so under
# valgrind the kernels run their AVX2 (or scalar) code; both are run here.
# Property tests run fewer cases (PROPTEST_CASES) because memcheck is
# about 30x slower than native.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v valgrind >/dev/null || { echo "valgrind is not installed (Debian: apt-get install valgrind)" >&2; exit 2; }

export PROPTEST_CASES="${PROPTEST_CASES:-24}"
export RUST_BACKTRACE=0

# The test executables of the release build (no debug info: memcheck names
# functions from the symbol table; `--profile profiling` adds line numbers).
mapfile -t bins < <(cargo test --release --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])
')
[ "${#bins[@]}" -gt 0 ] || { echo "no test binaries were built" >&2; exit 1; }

# The example also runs under memcheck, and says which kernel level
# valgrind's CPU offers.
cargo build --release --example relu_chain -q
out=$(valgrind --tool=memcheck --quiet --error-exitcode=99 target/release/examples/relu_chain) ||
    { echo "$out"; echo "!! memcheck found errors in the relu_chain example" >&2; exit 1; }
echo "== memcheck: relu_chain example ok; under valgrind: ${out%%$'\n'*}"

levels=("${DONATE_ISA:-}")
[ -n "${levels[0]}" ] || levels=(avx2 scalar)

status=0
for isa in "${levels[@]}"; do
    for bin in "${bins[@]}"; do
        echo "== memcheck: $(basename "$bin") (DONATE_ISA=$isa)"
        # tests/fork.rs forks children that run kernels and _exit. Memcheck
        # checks each child for leaks as it exits, and there the memory of
        # every thread the parent had (rayon's workers, gemm's per-thread
        # buffers) is unreachable: those threads do not exist in a child.
        # That is fork(), not a leak in donate, so for that binary leaks are
        # neither shown nor errors (invalid accesses still are, in parent
        # and children); every other binary runs the same kernels with leak
        # errors on.
        leak_errors=definite
        case "$(basename "$bin")" in fork-*) leak_errors=none ;; esac
        if ! DONATE_ISA="$isa" valgrind --tool=memcheck --quiet --error-exitcode=99 \
            --leak-check=full --errors-for-leak-kinds="$leak_errors" --show-leak-kinds="$leak_errors" \
            --track-origins=yes "$bin" --test-threads=2 -q; then
            echo "!! memcheck found errors in $(basename "$bin") (DONATE_ISA=$isa)" >&2
            status=1
        fi
    done
done
[ "$status" -eq 0 ] && echo "memcheck: no errors in ${#bins[@]} test binaries x ${#levels[@]} kernel levels"
exit "$status"
