#!/usr/bin/env bash
# The process watchdog (README: "A hung GPU"; docs/robustness.md, Faults): a
# step that makes no progress for GPUBENCH_WATCHDOG ends the run with its
# report written (run.status "error", the reason naming what hung), exit 3,
# instead of hanging for ever. The hang is the simulator's: gpubench-sim on a
# machine file with a driver_stall fault (docs/simulation.md), whose GPU probe
# blocks like a driver call that does not return (and looks at nothing,
# signals included, as such a call would), in real time that the product's
# clock sees pass. So this test runs the same on any machine. Bad values of
# the variables are tried on gpubench itself.
# shellcheck source=tests/cli/lib.sh disable=SC1091,SC2154 # rc, out, err come from lib.sh's run
. "$(dirname "$0")/lib.sh"

if [ -z "${GPUBENCH_SIM_BIN:-}" ] || [ ! -x "$GPUBENCH_SIM_BIN" ]; then
	echo "skipped: gpubench-sim is not built in this build (make sanitize builds the core, its tests and gpubench)"
	exit 77
fi
SIM=$GPUBENCH_SIM_BIN

# hung COMMAND...: run with a probe that never returns and a 1 s limit; sets $secs
hung() {
	local t0=$SECONDS
	run env "GPUBENCH_SIM_MACHINE=$(stall_machine 0)" GPUBENCH_WATCHDOG=1s timeout 30 "$SIM" "$@"
	secs=$((SECONDS - t0))
}

for cmd in info run; do
	report="$TMP/hung-$cmd.json"
	hung "$cmd" -o "$report"
	expect_rc 3 "$cmd: hung setup"
	# the stall is in the GPU setup; a loaded machine may take more than the
	# 1 s limit to load the libraries before it, which is start-up
	expect_one_error "^gpubench: error: hung: no progress for [0-9]+ s during (GPU setup|start-up) \(limit 1 s\)$" \
		"$cmd: hung message"
	checks=$((checks + 1))
	[ "$secs" -lt 15 ] || fail "$cmd: the watchdog took $secs s for a 1 s limit"
	checks=$((checks + 1))
	if [ ! -f "$report" ]; then
		fail "$cmd: no report written by the watchdog"
		continue
	fi
	validate "$report"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["run"]["status"]')" = error ] || fail "$cmd: run.status is not error"
	checks=$((checks + 1))
	json_get "$report" '["run"]["reason"]' | grep -q "^hung: no progress for" ||
		fail "$cmd: run.reason does not say hung"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["verdict"]["exit_code"]')" = 3 ] || fail "$cmd: verdict.exit_code"
	# the hang is a finding with its action (docs/faults.md), on a setup entry: no benchmark had started
	checks=$((checks + 1))
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
hung = [c for b in d["benchmarks"] if b["name"] == "setup" for c in b["checks"] if c["name"] == "hung"]
sys.exit(0 if len(hung) == 1 and hung[0]["status"] == "error" and hung[0]["action"]["do"] == "reset_gpu"
         and hung[0]["message"].startswith("hung: no progress for") else 1)' "$report" ||
		fail "$cmd: no setup/hung finding with the action reset_gpu"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["run"]["finished_at"]')" != None ] || fail "$cmd: no finished_at"
	checks=$((checks + 1))
	if compgen -G "$report.tmp.*" >/dev/null; then
		fail "$cmd: a temporary report file was left behind"
	fi
done

# --json: the watchdog's report goes to stdout too, as a whole document
hung run --json -q
expect_rc 3 "run --json: hung setup"
printf '%s' "$out" >"$TMP/stdout.json"
validate "$TMP/stdout.json"

# off: a 2 s stall just takes its time, and the run goes on as usual
t0=$SECONDS
run env "GPUBENCH_SIM_MACHINE=$(stall_machine 2)" GPUBENCH_WATCHDOG=off timeout 30 "$SIM" info \
	-o "$TMP/off.json"
checks=$((checks + 1))
[ $((SECONDS - t0)) -ge 2 ] || fail "watchdog off: the stall did not happen"
checks=$((checks + 1))
printf '%s' "$err" | grep -q "hung" && fail "watchdog off: it fired anyway: $err"
checks=$((checks + 1))
[ "$rc" -eq 0 ] || fail "watchdog off: exit $rc: $err"

# a limit longer than the stall does not fire either
run env "GPUBENCH_SIM_MACHINE=$(stall_machine 1)" GPUBENCH_WATCHDOG=10s timeout 30 "$SIM" info
checks=$((checks + 1))
printf '%s' "$err" | grep -q "hung" && fail "1 s stall under a 10 s limit: fired: $err"
checks=$((checks + 1))
[ "$rc" -eq 0 ] || fail "1 s stall under a 10 s limit: exit $rc: $err"

# bad values are bad input: one line, exit 2, an existing report untouched
echo '{"sentinel": true}' >"$TMP/keep.json"
for bad in "GPUBENCH_WATCHDOG=10" "GPUBENCH_WATCHDOG=abc" "GPUBENCH_WATCHDOG=-5s" \
	"GPUBENCH_STOP_GRACE=soon"; do
	run env "$bad" "$BIN" info -o "$TMP/keep.json"
	expect_rc 2 "$bad"
	expect_one_error "invalid value '.*' for ${bad%%=*}: expected a duration" "$bad message"
	checks=$((checks + 1))
	[ "$(cat "$TMP/keep.json")" = '{"sentinel": true}' ] || fail "$bad: report clobbered"
done

# ---- signals while stuck ----
# A signal sets the stop flag, but a call that never returns never looks at
# it: the watchdog writes the report after GPUBENCH_STOP_GRACE, or at once on
# a second signal (exit 130, run.status "interrupted"). This also pins that
# `info` catches the signals: a process killed by SIGINT exits 130 as well,
# so the report is what tells them apart.

# stuck NAME SIGNALS ENV...: start `info` stalled for good, send each of
# SIGNALS (space separated) 0.5 s apart, wait up to 20 s; check the report
stuck() {
	local name=$1 sigs=$2 report="$TMP/stuck-$1.json" pid sig
	shift 2
	stuck_reason=
	env "GPUBENCH_SIM_MACHINE=$(stall_machine 0)" "$@" "$SIM" info -o "$report" >"$TMP/out-$name" \
		2>"$TMP/err-$name" &
	pid=$!
	BIN=$SIM await_handlers "$pid"
	for sig in $sigs; do
		sleep 0.5
		kill "-$sig" "$pid" 2>/dev/null
	done
	await_exit "$pid" 20 "$name" || return
	# shellcheck disable=SC2034 # read by lib.sh's expect_rc
	err=$(cat "$TMP/err-$name")
	expect_rc 130 "$name: exit code"
	expect_interrupted "$report" "$name" || return
	stuck_reason=$(json_get "$report" '["run"]["reason"]')
	echo "$name: exit $rc after $waited_s s: $stuck_reason"
}

# one signal: the run is given the grace period, then the watchdog writes the report
stuck grace INT GPUBENCH_STOP_GRACE=1s
checks=$((checks + 1))
printf '%s' "$stuck_reason" | grep -q "after the stop signal" || fail "grace: reason '$stuck_reason'"
stuck grace-term TERM GPUBENCH_STOP_GRACE=1s
# two signals: no grace (the default 30 s would outlast the 20 s wait)
stuck twice "INT TERM"
checks=$((checks + 1))
printf '%s' "$stuck_reason" | grep -q "^interrupted twice" || fail "twice: reason '$stuck_reason'"

finish
