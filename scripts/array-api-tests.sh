#!/usr/bin/env bash
# Run the array API standard's test suite (data-apis/array-api-tests)
# against donate, with a skips file and a pass-count floor.
#
#   scripts/array-api-tests.sh [SUITE_DIR] [-- extra pytest args...]
#
# SUITE_DIR is a checkout of the suite with its array-api submodule
# (git clone --recursive https://github.com/data-apis/array-api-tests);
# default: $ARRAY_API_TESTS_DIR, else ../shared/array-api-tests beside the
# repository (the checkout's root, wherever it is). A
# missing or incomplete checkout is an error, never a silent skip.
#
# Environment:
#   ARRAY_API_TESTS_DIR      the suite's checkout (when SUITE_DIR is not given)
#   ARRAY_API_TESTS_MODULE   the namespace under test (default: donate); the
#                            suite's own variable, e.g. array_api_strict
#   ARRAY_API_TESTS_VERSION  the standard's version to test (the suite's own
#                            variable; default: the module's
#                            __array_api_version__)
#   PYTHON                   the interpreter (default: python); the module
#                            under test must already be installed in it
#   ARRAY_API_TESTS_TIMEOUT  seconds before the run is killed (default 3600)
#
# The run is reproducible: Hypothesis is derandomized (each test draws the
# same examples every run, and no example database is read or written),
# 5 examples per test, no deadline (timing does not decide an outcome),
# Python's random generator seeded, PYTHONHASHSEED=0, no pytest cache.
# The suite's requirements are installed with pip unless they are
# already satisfied.
#
# scripts/array-api-skips.txt names the tests that are not run, each
# block with the reason; it is passed with the suite's --skips-file.
# The JSON report goes to target/array-api-tests/<module>.json and the
# ids of the failing tests to target/array-api-tests/<module>-failures.txt.
#
# Exit status: non-zero if a test module fails to import or collect, if
# pytest itself errors, or if the number of passed tests is below the
# floor in scripts/array-api-tests-floor (one integer). Failing tests do
# not fail the script by themselves: they are counted per test file in
# the summary, and the floor is the gate. When the count rises, raise the
# floor to it. Extra pytest args (after --) are appended to the run; the
# floor still applies, so a partial run (-k ..., one file) will fall
# below it.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SUITE=${ARRAY_API_TESTS_DIR:-$ROOT/../shared/array-api-tests}
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    SUITE=$1
    shift
fi
EXTRA=()
if [ $# -gt 0 ]; then
    if [ "$1" != "--" ]; then
        echo "usage: $0 [SUITE_DIR] [-- extra pytest args...]" >&2
        exit 2
    fi
    shift
    EXTRA=("$@")
fi

PYTHON=${PYTHON:-python}
MODULE=${ARRAY_API_TESTS_MODULE:-donate}
TIMEOUT=${ARRAY_API_TESTS_TIMEOUT:-3600}

fail() {
    echo "array-api-tests: error: $*" >&2
    exit 1
}

# --- the suite's checkout (a relative path is the caller's) ----------------
[ -d "$SUITE" ] || fail "no array API test suite at '$SUITE' (pass its path as the first argument or set ARRAY_API_TESTS_DIR; get it with: git clone --recursive https://github.com/data-apis/array-api-tests)"
SUITE=$(cd "$SUITE" && pwd)
cd "$(dirname "$0")/.."
REPO=$(pwd)
SKIPS=$REPO/scripts/array-api-skips.txt
FLOOR_FILE=$REPO/scripts/array-api-tests-floor
OUT_DIR=$REPO/target/array-api-tests
SAFE_NAME=$(printf '%s' "$MODULE" | tr -c 'A-Za-z0-9_.-' '_')
REPORT=$OUT_DIR/$SAFE_NAME.json
FAILURES=$OUT_DIR/$SAFE_NAME-failures.txt
for f in conftest.py requirements.txt array_api_tests/__init__.py; do
    [ -f "$SUITE/$f" ] || fail "'$SUITE' is not a checkout of array-api-tests (no $f)"
done
[ -d "$SUITE/array-api/spec" ] || fail "'$SUITE/array-api' is empty: run 'git submodule update --init' in the suite's checkout"

# --- the skips file and the floor -----------------------------------------
[ -f "$SKIPS" ] || fail "missing $SKIPS"
# The suite reads every line that starts with array_api_tests as one test
# id, verbatim: a trailing comment, a trailing space or a CR would make
# the id match nothing (a warning, not an error, in the suite).
if grep -nE '^array_api_tests.*([#]|[[:space:]]$)' "$SKIPS" >&2; then
    fail "$SKIPS: an id line above has a comment or trailing whitespace (put the reason on the comment line before it)"
fi
[ -f "$FLOOR_FILE" ] || fail "missing $FLOOR_FILE"
FLOOR=$(tr -d '[:space:]' <"$FLOOR_FILE")
[[ "$FLOOR" =~ ^[0-9]+$ ]] || fail "$FLOOR_FILE must hold one non-negative integer, not '$FLOOR'"

# --- the suite's requirements and the module under test -------------------
if ! "$PYTHON" - "$SUITE/requirements.txt" >/dev/null 2>&1 <<'EOF'; then
import sys
from importlib import metadata
from packaging.requirements import Requirement

for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    req = Requirement(line)
    version = metadata.version(req.name)  # raises if not installed
    if not req.specifier.contains(version, prereleases=True):
        sys.exit(1)
EOF
    echo "array-api-tests: installing the suite's requirements ($SUITE/requirements.txt)"
    "$PYTHON" -m pip install -q -r "$SUITE/requirements.txt"
fi
case "$MODULE" in
    "exec('"*) ;; # the suite's own form for a namespace built by a script
    *)
        "$PYTHON" -c 'import importlib, sys; importlib.import_module(sys.argv[1])' "$MODULE" ||
            fail "cannot import '$MODULE' with $PYTHON (install it first)"
        ;;
esac

# Every dtype is drawn, complex64 and complex128 included (donate
# computes with them: docs/array-api.md); the suite's own switch can
# leave some out.
SKIP_DTYPES=${ARRAY_API_TESTS_SKIP_DTYPES-}

# --- the suite, patched ------------------------------------------------------
# The suite crashes at import for a run without complex dtypes (it takes
# the max over an empty list of them, a regression of
# data-apis/array-api-tests#430), as with
# ARRAY_API_TESTS_SKIP_DTYPES=complex64,complex128. The run uses a copy
# with that one line fixed (scripts/array-api-tests.patch), never the
# checkout itself.
PATCHED="$OUT_DIR/suite"
rm -rf "$PATCHED"
mkdir -p "$PATCHED"
cp -r "$SUITE/array_api_tests" "$SUITE/array-api" "$SUITE/conftest.py" "$SUITE/reporting.py" \
    "$SUITE/pytest.ini" "$SUITE/requirements.txt" "$PATCHED/"
git apply --directory="$(realpath --relative-to="$(git rev-parse --show-toplevel)" "$PATCHED")" \
    -p1 scripts/array-api-tests.patch || fail "scripts/array-api-tests.patch does not apply to $SUITE"
SUITE=$PATCHED

# --- the run ---------------------------------------------------------------
mkdir -p "$OUT_DIR"
rm -f "$REPORT" "$FAILURES"
echo "array-api-tests: module $MODULE, suite $SUITE, skips $SKIPS, floor $FLOOR"
# pytest with Python's global random generator seeded: Hypothesis seeds it
# inside each of its tests, but some of the suite's tests (the special
# cases' test_unary) draw their input with .example(), which shuffles its
# draws with that generator outside any test.
RUN_PYTEST='import random, sys, pytest; random.seed(0); sys.exit(pytest.main(sys.argv[1:]))'
START=$(date +%s)
set +e
(
    cd "$SUITE"
    PYTHONHASHSEED=0 ARRAY_API_TESTS_MODULE=$MODULE ARRAY_API_TESTS_SKIP_DTYPES=$SKIP_DTYPES \
        timeout "$TIMEOUT" "$PYTHON" -c "$RUN_PYTEST" array_api_tests \
        --max-examples 5 \
        --hypothesis-derandomize \
        --rootdir "$SUITE" -c "$SUITE/pytest.ini" \
        --hypothesis-disable-deadline \
        --skips-file "$SKIPS" \
        --continue-on-collection-errors \
        -p no:cacheprovider \
        --json-report --json-report-file="$REPORT" \
        -q --tb=no -rfE --disable-warnings \
        ${EXTRA[@]+"${EXTRA[@]}"}
)
RC=$?
set -e
ELAPSED=$(($(date +%s) - START))
echo "array-api-tests: pytest exited with status $RC after ${ELAPSED}s"

[ "$RC" -ne 124 ] || fail "the run took longer than ${TIMEOUT}s (ARRAY_API_TESTS_TIMEOUT) and was killed"
# 0: all passed, 1: some failed (or a collection error, reported below);
# anything else is pytest itself failing (interrupted, internal error,
# usage error, nothing collected).
case "$RC" in
    0 | 1) ;;
    2) fail "pytest was interrupted (exit status 2)" ;;
    3) fail "pytest hit an internal error (exit status 3)" ;;
    4) fail "pytest could not start (exit status 4): a bad option, or the suite's conftest failed to import the namespace (see above)" ;;
    5) fail "pytest collected no tests (exit status 5)" ;;
    *) fail "pytest failed with exit status $RC" ;;
esac
[ -s "$REPORT" ] || fail "pytest wrote no JSON report at $REPORT"

# --- the summary and the gate ----------------------------------------------
"$PYTHON" - "$REPORT" "$FAILURES" "$FLOOR" "$FLOOR_FILE" <<'EOF'
import collections
import json
import sys

report_path, failures_path, floor, floor_file = sys.argv[1:5]
floor = int(floor)
with open(report_path) as f:
    report = json.load(f)

status = 0

# Modules that did not import or collect (the run went on without them).
bad_collectors = [c for c in report.get("collectors", []) if c.get("outcome") != "passed"]
for c in bad_collectors:
    first = (c.get("longrepr") or "").strip().splitlines()[-1:] or [""]
    print(f"COLLECTION ERROR {c.get('nodeid') or '(session)'}: {first[0]}")
if bad_collectors:
    status = 1

# Skips-file ids that matched no test (a typo, or a test the suite renamed).
for w in report.get("warnings", []):
    if "skips file don't match" in w.get("message", ""):
        print("WARNING " + w["message"].strip())

summary = report.get("summary", {})
passed = summary.get("passed", 0)
counts = ", ".join(
    f"{summary.get(k, 0)} {k}"
    for k in ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
)
print(f"array-api-tests: {counts} ({summary.get('total', 0)} tests)")

failing = [t["nodeid"] for t in report.get("tests", []) if t.get("outcome") in ("failed", "error")]
with open(failures_path, "w") as f:
    f.writelines(n + "\n" for n in failing)
if failing:
    per_file = collections.Counter(n.split("::", 1)[0] for n in failing)
    print(f"failing tests per file ({len(failing)}, ids in {failures_path}):")
    for path, n in sorted(per_file.items()):
        print(f"  {n:5d}  {path}")

if passed < floor:
    print(f"array-api-tests: FAIL: {passed} passed, below the floor of {floor} ({floor_file})")
    status = 1
elif passed > floor:
    print(f"array-api-tests: {passed} passed, above the floor of {floor}: raise it with "
          f"'echo {passed} > scripts/array-api-tests-floor'")
else:
    print(f"array-api-tests: {passed} passed, at the floor")
if bad_collectors:
    print("array-api-tests: FAIL: test modules failed to import or collect (above)")
sys.exit(status)
EOF
