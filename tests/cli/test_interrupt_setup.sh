#!/usr/bin/env bash
# The first SIGINT or SIGTERM stops a run gracefully (README: exit codes;
# issue 10: faults): the command itself writes the report, atomically and
# valid against the schema, with run.status "interrupted", and exits 130,
# without waiting for the watchdog's grace period.
#
# Runs on any machine: gpubench-sim on a machine file with a driver_stall
# fault of 2 s (docs/simulation.md) makes the GPU probe take its time, as the
# driver's start on a machine with many GPUs does, so the signal lands while
# the GPU setup is still under way; the command stops at its next look at the
# stop flag. Every command with a GPU setup is tried. test_signals.sh
# interrupts a real measurement (GPU machines only); test_hang.sh a call that
# never returns.
#
# lib.sh's run() keeps going after a failing command, so no `set -e` here.
# shellcheck source=tests/cli/lib.sh disable=SC1091,SC2154 # rc, err come from lib.sh
. "$(dirname "$0")/lib.sh"

if [ -z "${GPUBENCH_SIM_BIN:-}" ] || [ ! -x "$GPUBENCH_SIM_BIN" ]; then
	echo "skipped: gpubench-sim is not built in this build (make sanitize builds the core, its tests and gpubench)"
	exit 77
fi
BIN=$GPUBENCH_SIM_BIN

commands=$("$BIN" --help | awk '/^commands:/ { f = 1; next } /^$/ { f = 0 } f { print $1 }')
has() { printf '%s\n' "$commands" | grep -qx "$1"; }

# interrupt CMD SIGNAL [keep]: start CMD with a 2 s GPU probe, signal it once
# it catches signals, expect it gone within 20 s (the watchdog's grace is
# 30 s) and its report to say interrupted (an existing report file is removed
# first unless "keep")
interrupt() {
	local cmd=$1 sig=$2 report="$TMP/$1-$2.json" pid
	[ "${3:-}" = keep ] || rm -f "$report"
	GPUBENCH_SIM_MACHINE=$(stall_machine 2) "$BIN" "$cmd" -o "$report" >"$TMP/out-$cmd" \
		2>"$TMP/err-$cmd" &
	pid=$!
	await_handlers "$pid"
	kill "-$sig" "$pid"
	await_exit "$pid" 20 "$cmd $sig (waiting for the watchdog?)" || return
	# shellcheck disable=SC2034 # read by lib.sh's expect_rc
	err=$(cat "$TMP/err-$cmd")
	expect_rc 130 "$cmd $sig: exit code"
	# (run.reason: "interrupted during GPU setup" when the signal comes
	# before the probe, else none: the command stopped where it looked)
	expect_interrupted "$report" "$cmd $sig" || return
	checks=$((checks + 1))
	grep -q "verdict: interrupted" "$TMP/out-$cmd" ||
		fail "$cmd $sig: the summary does not say interrupted: $(cat "$TMP/out-$cmd")"
}

tried=0
for cmd in info run gemm bandwidth p2p nccl stress scaling; do
	has "$cmd" || continue
	tried=$((tried + 1))
	interrupt "$cmd" INT
	interrupt "$cmd" TERM
done
checks=$((checks + 1))
[ "$tried" -ge 2 ] || fail "only $tried commands with a GPU setup are built"

# an existing report is replaced whole by the interrupted run's
echo '{"sentinel": true}' >"$TMP/info-INT.json"
interrupt info INT keep

# the setup still runs to its end when nobody interrupts it
t0=$SECONDS
run env "GPUBENCH_SIM_MACHINE=$(stall_machine 1)" "$BIN" info -o "$TMP/slow.json"
checks=$((checks + 1))
[ $((SECONDS - t0)) -ge 1 ] || fail "slow setup: it did not take its time"
checks=$((checks + 1))
[ "$rc" -eq 0 ] || fail "slow setup without a signal: exit $rc: $err"
checks=$((checks + 1))
[ "$(json_get "$TMP/slow.json" '["run"]["status"]')" != interrupted ] ||
	fail "slow setup without a signal: reported interrupted"

finish
