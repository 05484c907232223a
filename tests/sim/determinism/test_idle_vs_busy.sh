#!/usr/bin/env bash
# Simulated time (issue 25): the same machine file and seed give the same
# report, byte for byte but for the dates and the host's name, whether the
# CPU that computes the simulation is idle or busy. Each command runs twice,
# once alone and once beside two busy loops that take both of CI's cores, and
# the two reports (less run.started_at, run.finished_at and any hostname) must
# be equal. The commands are the ones with the most threads: stress (a worker
# per GPU, the monitor, the telemetry sampler, the watchdogs) and nccl (a rank
# per GPU in one process), p2p's latency (host-polled pointer chases on
# two GPUs), and bandwidth and gemm on two GPUs (short steps whose telemetry
# windows a sampler tick can fall on the edge of).
# shellcheck source=../../cli/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../../cli/lib.sh"

MACHINES=${GBSIM_MACHINES:-$HERE/../sim/machines}
export NO_COLOR=1 GBSIM_LEAKS_FATAL=1

# normalized FILE: the report without what may differ between two runs of one machine
normalized() {
	python3 - "$1" <<'PY'
import json, sys
VARIES = {"started_at", "finished_at", "hostname"}
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in VARIES}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
print(json.dumps(strip(json.load(open(sys.argv[1]))), indent=1, sort_keys=True))
PY
}

busy_pids=()
start_busy() {
	for _ in 1 2; do
		(while :; do :; done) &
		busy_pids+=($!)
	done
}
stop_busy() {
	[ ${#busy_pids[@]} -gt 0 ] && kill "${busy_pids[@]}" 2>/dev/null
	wait "${busy_pids[@]}" 2>/dev/null
	busy_pids=()
}
trap stop_busy EXIT

# same NAME MACHINE ARGS...: the command's reports, idle and busy, are equal
same() {
	local name=$1 machine=$2
	shift 2
	checks=$((checks + 1))
	export GPUBENCH_SIM_MACHINE=$MACHINES/$machine.json
	mkdir -p "$TMP/idle" "$TMP/busy"
	(cd "$TMP/idle" && "$BIN" "$@" -o "$name.json" >/dev/null 2>"$name.err")
	local rc_idle=$?
	start_busy
	(cd "$TMP/busy" && "$BIN" "$@" -o "$name.json" >/dev/null 2>"$name.err")
	local rc_busy=$?
	stop_busy
	if [ "$rc_idle" != "$rc_busy" ]; then
		fail "$name: exit $rc_idle idle, $rc_busy busy"
		return
	fi
	if ! diff <(normalized "$TMP/idle/$name.json") <(normalized "$TMP/busy/$name.json") \
		>"$TMP/$name.diff"; then
		fail "$name on $machine: the reports differ, idle and busy: $(head -20 "$TMP/$name.diff")"
	fi
}

same stress 2x-rtx4090-pcie stress --duration 3s --mem 20%
same nccl 2x-a100-nvlink nccl --max-bytes 1M
same p2p 2x-a100-nvlink p2p --latency-only
same bandwidth 2x-a100-nvlink bandwidth --tests all --memory all --method all --min-size 4K \
	--max-size 1M --samples 3 --loops 2
same gemm 2x-a100-nvlink gemm --size 256 --warmup 0s --iters 2 --samples 5 --precision fp32,bf16

finish
