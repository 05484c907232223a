#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_healthcheck.sh - scripts/slurm-healthcheck.sh against a real slurmctld
# and slurmd (one node, named as this host: the script finds its node by
# `hostname -s`, as on a real cluster). gpubench is the simulator; the node's
# GPUs are two H100 of 128 MiB (a machine file per case), and the check is
# the quick profile's stress step alone (-- --only stress --stress-duration 2s,
# the GPUs at a thousandth of their speed: the checks need batches, not speed).
# The node's state and reason are read back from sinfo and scontrol (after a
# resume the node reads "idle*" or "drained*", not responding, until
# slurmctld's next ping of it: the '*' is allowed):
#   1. healthy: exit 0, the node stays idle, no reason
#   2. GPU 1 at half speed (the `slow` fault): exit 1, the node drained, the
#      reason "gpubench: GPU 1 <the report's first failed check>: <its
#      message>", taken from the report the script kept
#   3. healthy again: exit 0, resumed (idle, no reason)
#   4. a hang: a stress of an hour at full speed under a 10 s limit (the
#      simulated hour costs the CPU hours; the step starts within about a
#      second): drained, "gpubench: hung in stress past the 20s limit";
#      healthy again: resumed
#   5. drained by an admin ("fan replaced"): a sick and a healthy check both
#      leave it drained with that reason, and say so
#   6. --dry-run on a sick machine: exit 1, says what it would do, the node
#      not drained
#   7. a node Slurm does not know, a bad time limit: exit 2, no change
#   8. run by slurmd itself: HealthCheckProgram (every 3 s) is a wrapper that
#      starts the script with --background (slurmd gives it no arguments,
#      only SLURMD_NODENAME in its environment, and kills it after 60 s):
#      with the slow machine the node ends drained with a "gpubench: GPU 1"
#      reason, then with the healthy one resumed (each awaited up to 90 s)
# Exits 77 (skipped) only where Slurm cannot start (tests/slurm/lib_slurm.sh).
HERE_SL=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../cli/lib.sh
. "$HERE_SL/../cli/lib.sh"
# shellcheck source=lib_slurm.sh
. "$HERE_SL/lib_slurm.sh"

NODE=$(hostname -s)
slurm_start "$NODE"
HC="$HERE_SL/../../scripts/slurm-healthcheck.sh"
export GPUBENCH="$BIN" GPUBENCH_HEALTHCHECK_DIR="$TMP/hc" NO_COLOR=1 GBSIM_SPEED_SCALE=0.001
QUICK=(-- --only stress --stress-duration 2s)

# machine FILE [FAULT-JSON]: two H100 of 128 MiB, optionally one fault
machine() {
	cat >"$1" <<EOF
{
	"name": "slurm-hc",
	"seed": 1,
	"noise": 0,
	"gpus": [
		{ "model": "h100-sxm", "memory": "128M", "l2": "4M" },
		{ "model": "h100-sxm", "memory": "128M", "l2": "4M" }
	],
	"faults": [ ${2:-} ]
}
EOF
}
machine "$TMP/healthy.json"
machine "$TMP/slow.json" '{ "kind": "slow", "gpu": 1, "value": 50 }'

# hc MACHINE ARGS...: the health check on that machine, at most 120 s
hc() {
	local m=$1
	shift
	GPUBENCH_SIM_MACHINE="$TMP/$m.json" run timeout 120 "$HC" "$@"
}

# expect_node STATE-REGEX REASON-REGEX DESCRIPTION: sinfo's state and reason,
# and scontrol's, agree with them
expect_node() {
	local st state reason sc
	st=$(node_state "$NODE")
	state=${st%%|*}
	reason=${st#*|}
	checks=$((checks + 1))
	if ! [[ "$state" =~ $1 ]] || ! [[ "$reason" =~ $2 ]]; then
		fail "$3: sinfo says '$state' '$reason', expected '$1' '$2'"
	fi
	sc=$(timeout 30 scontrol show node "$NODE" -o)
	checks=$((checks + 1))
	case "$1" in
	*drain*) [[ "$sc" =~ State=[A-Z+]*DRAIN ]] || fail "$3: scontrol does not say DRAIN: $sc" ;;
	*) [[ "$sc" =~ State=[A-Z+]*DRAIN ]] && fail "$3: scontrol says DRAIN: $sc" ;;
	esac
}

# ---- 1. healthy ----
hc healthy "${QUICK[@]}"
expect_rc 0 "healthy node: the check passes"
expect_node '^idle\*?$' '^none$' "healthy node: not drained"

# ---- 2. GPU 1 at half speed ----
hc slow "${QUICK[@]}"
expect_rc 1 "slow GPU 1: the check fails"
# the reason the report predicts: its first failed check, on GPU 1
want=$(python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
c = next(c for b in d["benchmarks"] for c in b["checks"] if c["status"] == "failed")
assert c["device"] == 1, c
r = "gpubench: GPU 1 %s: %s" % (c["name"], re.sub(r"\s+", " ", c["message"]))
print(r if len(r) <= 200 else r[:197] + "...")' "$TMP/hc/healthcheck.json" 2>&1)
checks=$((checks + 1))
case "$want" in "gpubench: GPU 1 "*) ;; *) fail "the kept report has no failed check on GPU 1: $want" ;; esac
# the slow GPU is half as fast as its peer: the message says 50% (whatever
# words a peer comparison uses around it)
checks=$((checks + 1))
[[ "$want" =~ [^0-9.]50(\.0)?\ ?% ]] || fail "the first failed check does not say GPU 1 is 50% slower: $want"
expect_node '^drained\*?$' "^$(printf '%s' "$want" | sed 's/[][\.*^$()+?{}|]/\\&/g')\$" "slow GPU 1: drained with the report's reason"
checks=$((checks + 1))
grep -q "failed: $want" <<<"$err" || fail "the script does not say why it drained: $err"

# ---- 3. healthy again ----
hc healthy "${QUICK[@]}"
expect_rc 0 "healthy again: the check passes"
expect_node '^idle\*?$' '^none$' "healthy again: resumed"
checks=$((checks + 1))
grep -q "passed again: resuming" <<<"$err" || fail "the script does not say it resumed the node: $err"

# ---- 4. a hang: the script's own time limit ----
GBSIM_SPEED_SCALE=1 hc healthy --time-limit 20s -- --only stress --stress-duration 1h
expect_rc 1 "a check past its time limit fails"
expect_node '^drained\*?$' '^gpubench: hung in stress past the 20s limit$' "a hang: drained, naming the step"
hc healthy "${QUICK[@]}"
expect_rc 0 "after the hang, healthy: passes"
expect_node '^idle\*?$' '^none$' "after the hang, healthy: resumed"

# ---- 5. drained by an admin: never touched ----
timeout 30 scontrol update nodename="$NODE" state=drain reason="fan replaced"
for m in slow healthy; do
	hc "$m" "${QUICK[@]}"
	expect_rc 0 "drained by an admin, $m machine: left alone"
	expect_node '^drained\*?$' '^fan replaced$' "drained by an admin, $m machine: still drained with the admin's reason"
	checks=$((checks + 1))
	grep -q "by someone else ('fan replaced'): not checked" <<<"$err" ||
		fail "$m: the script does not say it left the admin's drain: $err"
done
timeout 30 scontrol update nodename="$NODE" state=resume

# ---- 6. --dry-run ----
hc slow --dry-run "${QUICK[@]}"
expect_rc 1 "--dry-run on the slow machine: the check fails"
expect_node '^idle\*?$' '^none$' "--dry-run: not drained"
checks=$((checks + 1))
grep -q "dry run: would run: scontrol update nodename=$NODE state=drain reason=gpubench: GPU 1 " <<<"$err" ||
	fail "--dry-run does not say what it would do: $err"

# ---- 7. usage errors: no change ----
hc slow --node no-such-node "${QUICK[@]}"
expect_rc 2 "a node Slurm does not know"
hc slow --time-limit soon "${QUICK[@]}"
expect_rc 2 "a time limit that is not one"
expect_node '^idle\*?$' '^none$' "usage errors: the node unchanged"

# ---- 8. as slurmd's HealthCheckProgram ----
echo slow >"$TMP/hcp-machine"
cat >"$TMP/hcp-wrapper" <<EOF
#!/bin/sh
# slurmd passes only SLURMD_NODENAME: everything else is set here
[ -e "$TMP/hcp-stop" ] && exit 0
export SLURM_CONF="$SLURM_CONF" GPUBENCH="$BIN" GPUBENCH_HEALTHCHECK_DIR="$TMP/hcp"
export GBSIM_SPEED_SCALE=0.001 NO_COLOR=1
export GPUBENCH_SIM_MACHINE="$TMP/\$(cat "$TMP/hcp-machine").json"
exec "$HC" --background -- --only stress --stress-duration 2s
EOF
chmod +x "$TMP/hcp-wrapper"
cp "$SLURM_CONF" "$TMP/slurm.conf.orig"
printf 'HealthCheckProgram=%s\nHealthCheckInterval=3\n' "$TMP/hcp-wrapper" >>"$SLURM_CONF"
timeout 30 scontrol reconfigure

# await_node STATE-REGEX REASON-REGEX DESCRIPTION: up to 90 s for sinfo to say so
await_node() {
	local st=""
	for _ in $(seq 180); do
		st=$(node_state "$NODE")
		[[ "${st%%|*}" =~ $1 ]] && [[ "${st#*|}" =~ $2 ]] && break
		sleep 0.5
	done
	expect_node "$1" "$2" "$3"
}
await_node '^drained\*?$' '^gpubench: GPU 1 ' "HealthCheckProgram, slow GPU 1: drained by slurmd's health check"
echo healthy >"$TMP/hcp-machine"
await_node '^idle\*?$' '^none$' "HealthCheckProgram, healthy again: resumed"
# no new check from here; the one still running in the background ends
# before the cluster goes
touch "$TMP/hcp-stop"
cp "$TMP/slurm.conf.orig" "$SLURM_CONF"
timeout 30 scontrol reconfigure
timeout 90 flock "$TMP/hcp/healthcheck.lock" true
checks=$((checks + 1))
grep -q "node '$NODE' passed again: resuming it" "$TMP/hcp/background.log" ||
	fail "the background checks' log does not say they resumed the node: $(tail -3 "$TMP/hcp/background.log")"

finish
