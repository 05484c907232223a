# lib.sh - helpers for the CLI tests that run the real binary.
# Each test: source this, call the helpers, and finish with `finish`.
set -u
BIN=${GPUBENCH_BIN:?GPUBENCH_BIN must point at the gpubench binary}
SCHEMA=${GPUBENCH_SCHEMA:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
checks=0

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
}

# run CMD...: sets $rc, $out (stdout), $err (stderr)
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

# expect_rc N DESCRIPTION
expect_rc() {
	checks=$((checks + 1))
	if [ "$rc" -ne "$1" ]; then
		fail "$2: exit $rc, expected $1; stderr: $err"
	fi
}

# expect_err_line PATTERN DESCRIPTION: stderr is exactly one line and matches
expect_one_error() {
	checks=$((checks + 1))
	local lines
	lines=$(printf '%s\n' "$err" | grep -c .)
	if [ "$lines" -ne 1 ]; then
		fail "$2: expected one error line, got $lines: $err"
	elif ! printf "%s" "$err" | grep -qE -- "$1"; then
		fail "$2: stderr '$err' does not match '$1'"
	fi
}

expect_out() {
	checks=$((checks + 1))
	if ! printf '%s' "$out" | grep -qE -- "$1"; then
		fail "$2: stdout does not match '$1'"
	fi
}

# json_get FILE PYTHON-EXPR: prints the value of d<expr>
json_get() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval("d"+sys.argv[2]))' "$1" "$2"
}

# validate FILE: against docs/report.schema.json
validate() {
	checks=$((checks + 1))
	if [ -z "$SCHEMA" ]; then
		fail "GPUBENCH_SCHEMA is not set"
		return
	fi
	if ! python3 "$HERE/validate_report.py" "$SCHEMA" "$1" >"$TMP/val" 2>&1; then
		fail "report $1 does not validate: $(cat "$TMP/val")"
	fi
}

# does this machine have a usable GPU? (the binary answers: info exits 3 without one)
have_gpu() {
	"$BIN" info -q >/dev/null 2>&1
}

finish() {
	echo "$((checks - failures)) passed, $failures failed"
	[ "$failures" -eq 0 ]
	exit $?
}
