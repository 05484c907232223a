#!/usr/bin/env bash
# SIGINT and SIGTERM stop a long run gracefully: exit 130, and the report is
# still written, atomically, valid against the schema, with run.status
# "interrupted" (README: exit codes; issue 10: faults).
#
# Needs a GPU: without one every measuring command stops at once with exit 3,
# before anything could be interrupted, so this test exits 77 (skipped, never
# passed) there. On a GPU machine it starts the longest-running command that
# is built (stress, else gemm, else bandwidth, else run --profile burnin), waits
# until it is measuring, sends the signal, and gives it 60 s to finish.
#
# A run stuck in a call that ignores the stop flag, and the second signal,
# are tested on any machine by test_hang.sh; a signal during the GPU setup of
# every command by test_interrupt_setup.sh.
#
# lib.sh's run() keeps going after a failing command, so no `set -e` here.
# shellcheck source=tests/cli/lib.sh disable=SC1091,SC2154 # rc, out, err come from lib.sh's run
. "$(dirname "$0")/lib.sh"
set -o pipefail

if ! have_gpu; then
	echo "no usable GPU: interrupting a measurement needs one (skipped; test_interrupt_setup.sh and test_hang.sh run anywhere)"
	exit 77
fi

commands=$("$BIN" --help | awk '/^commands:/ { f = 1; next } /^$/ { f = 0 } f { print $1 }')
has() { printf '%s\n' "$commands" | grep -qx "$1"; }

# a command that keeps a GPU busy far longer than the test waits
long_args=()
if has stress; then
	long_args=(stress --duration 10m)
elif has gemm; then
	long_args=(gemm --precision fp32 --duration 1h --warmup 1s)
elif has bandwidth; then
	long_args=(bandwidth --samples 1000 --loops 1000)
else
	long_args=(run --profile burnin)
fi
echo "long command: gpubench ${long_args[*]}"

# interrupt SIGNAL [keep]: start, wait 3 s, signal, wait for the end, check the
# report (an existing report file is removed first unless "keep")
interrupt() {
	local sig=$1 report="$TMP/interrupted-$1.json" pid
	[ "${2:-}" = keep ] || rm -f "$report"
	"$BIN" "${long_args[@]}" -d 0 -o "$report" >"$TMP/out-$sig" 2>"$TMP/err-$sig" &
	pid=$!
	sleep 3
	checks=$((checks + 1))
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid"
		fail "gpubench ${long_args[*]} ended before SIGINT (exit $?): $(cat "$TMP/err-$sig")"
		return
	fi
	kill "-$sig" "$pid"
	await_exit "$pid" 60 "$sig" || return
	# shellcheck disable=SC2034 # read by lib.sh's expect_rc
	err=$(cat "$TMP/err-$sig")
	expect_rc 130 "$sig: exit code"
	expect_interrupted "$report" "$sig" || return
	echo "$sig: exit $rc after $waited_s s, report status interrupted"
}

interrupt INT
interrupt TERM

# an existing report is replaced whole by the interrupted run's, never half-written
echo '{"sentinel": true}' >"$TMP/interrupted-INT.json"
interrupt INT keep

finish
