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

# stall_machine SECONDS: a simulated machine (gpubench-sim's machine file,
# docs/simulation.md) whose driver start, the GPU probe's first
# cudaGetDeviceCount, blocks SECONDS (0: for good; the driver_stall fault),
# written into $TMP; prints its path. Its GPU is small (the benchmarks' sizes
# follow the memory), so what the simulator computes on the CPU is quick.
stall_machine() {
	echo '{ "gpus": [ { "model": "h100-sxm", "memory": "256M", "l2": "4M" } ],
	"faults": [ { "kind": "driver_stall", "value": '"$1"' } ] }' >"$TMP/stall-$1.json"
	echo "$TMP/stall-$1.json"
}

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

# grep reads a here-string, not a pipe: under pipefail a grep -q that stops at
# its first match leaves printf writing into a closed pipe (SIGPIPE once the
# output is over the pipe's 64 KiB, as a report of tests/data's is), and the
# pipeline would read as no match.
expect_out() {
	checks=$((checks + 1))
	if ! grep -qE -- "$1" <<<"$out"; then
		fail "$2: stdout does not match '$1'"
	fi
}

# json_get FILE PYTHON-EXPR: prints the value of d<expr>
json_get() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval("d"+sys.argv[2]))' "$1" "$2"
}

# validate FILE: against docs/report.schema.json, closed (--strict): this build's
# writer must add no key the schema does not list
validate() {
	checks=$((checks + 1))
	if [ -z "$SCHEMA" ]; then
		fail "GPUBENCH_SCHEMA is not set"
		return
	fi
	if ! python3 "$HERE/validate_report.py" --strict "$SCHEMA" "$1" >"$TMP/val" 2>&1; then
		fail "report $1 does not validate: $(cat "$TMP/val")"
	fi
}

# does this machine have a usable GPU? (the binary answers: info exits 3 without one)
have_gpu() {
	"$BIN" info -q >/dev/null 2>&1
}

# await_handlers PID: wait (up to 30 s) until PID is gpubench (exec'd: before
# that it is a copy of this shell, whose EXIT trap would remove $TMP) and
# catches SIGINT and SIGTERM (/proc's SigCgt), so that a loaded machine's slow
# start cannot meet the signal with its default action
await_handlers() {
	local i mask bin
	bin=$(readlink -f "$BIN")
	for ((i = 0; i < 300; i++)); do
		if [ "$(readlink "/proc/$1/exe" 2>/dev/null)" != "$bin" ]; then
			kill -0 "$1" 2>/dev/null || return 0
			sleep 0.1
			continue
		fi
		mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 0
		# bit 1 is SIGINT (2), bit 14 SIGTERM (15)
		[ -n "$mask" ] && (((16#$mask & 0x4002) == 0x4002)) && return 0
		sleep 0.1
	done
}

# await_exit PID LIMIT_S NAME: wait up to LIMIT_S seconds for the background
# PID to end; sets $rc (its exit code) and $waited_s. A PID still running
# then is killed and fails NAME; returns 1.
await_exit() {
	local pid=$1 name=$3 tenths=0
	while kill -0 "$pid" 2>/dev/null && [ "$tenths" -lt $(($2 * 10)) ]; do
		sleep 0.1
		tenths=$((tenths + 1))
	done
	# shellcheck disable=SC2034 # read by the tests
	waited_s=$((tenths / 10))
	checks=$((checks + 1))
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		fail "$name: still running $2 s after the signal"
		return 1
	fi
	wait "$pid"
	rc=$?
}

# expect_interrupted REPORT NAME: REPORT was written, whole (no temporary
# file left), valid, and says interrupted: run.status and the verdict, exit
# code 130, a finish time. Returns 1 when there is no report at all.
expect_interrupted() {
	local report=$1 name=$2
	checks=$((checks + 1))
	if [ ! -f "$report" ]; then
		fail "$name: no report written"
		return 1
	fi
	validate "$report"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["run"]["status"]')" = interrupted ] ||
		fail "$name: run.status is not interrupted"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["verdict"]["status"]')" = interrupted ] ||
		fail "$name: verdict.status is not interrupted"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["verdict"]["exit_code"]')" = 130 ] ||
		fail "$name: verdict.exit_code is not 130"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["run"]["exit_code"]')" = 130 ] ||
		fail "$name: run.exit_code is not 130"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["run"]["finished_at"]')" != None ] || fail "$name: no finished_at"
	checks=$((checks + 1))
	if compgen -G "$report.tmp.*" >/dev/null; then
		fail "$name: a temporary report file was left behind"
	fi
}

finish() {
	echo "$((checks - failures)) passed, $failures failed"
	[ "$failures" -eq 0 ]
	exit $?
}
