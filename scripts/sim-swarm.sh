#!/usr/bin/env bash
# sim-swarm.sh - many seeds x machine files x commands on the simulated GPU,
# after FoundationDB's and TigerBeetle's swarm testing: every run must end
# with the exit code the machine calls for (0 on the shipped machines, whose
# GPUs are healthy), and the seeds that do not are listed, so one can be
# rerun alone (same seed, same machine: the same run, simulated time).
#
#   scripts/sim-swarm.sh [-s SEEDS] [-m MACHINE.json ...] [-c 'COMMAND ARGS' ...] [-b BIN] [-o DIR]
#
#   -s SEEDS    seeds to run: a count N (1..N) or a list 3,17,42 (default 8)
#   -m FILE     a machine file (repeatable; default every tests/sim/machines/*.json)
#   -c CMD      a gpubench command line without -o (repeatable; default the
#               quick set below)
#   -b BIN      gpubench-sim (default build/gpubench-sim)
#   -o DIR      keep every report and log there (default a temporary folder,
#               removed unless a run failed)
#
# Exit 0 when every run ended as expected, 1 when one did not (each listed as
# "seed S machine M: CMD: exit X" with its log), 2 on bad usage.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bin=$root/build/gpubench-sim
seeds=8
machines=()
commands=()
out=

usage() {
	sed -n '2,/^set -uo/p' "$0" | sed 's/^# \{0,1\}//; /^set -uo/d' >&2
	exit 2
}

while getopts "s:m:c:b:o:h" opt; do
	case $opt in
	s) seeds=$OPTARG ;;
	m) machines+=("$OPTARG") ;;
	c) commands+=("$OPTARG") ;;
	b) bin=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
[ -x "$bin" ] || { echo "sim-swarm: no gpubench-sim at '$bin' (make build)" >&2; exit 2; }
if [ ${#machines[@]} -eq 0 ]; then
	machines=("$root"/tests/sim/machines/*.json)
fi
if [ ${#commands[@]} -eq 0 ]; then
	commands=("info" "stress --duration 2s --mem 20%" "p2p --latency-only"
		"nccl --max-bytes 64K")
fi
case $seeds in
*,*) IFS=, read -r -a seed_list <<<"$seeds" ;;
*[!0-9]* | '' | 0) echo "sim-swarm: -s wants a count or a list of seeds, not '$seeds'" >&2; exit 2 ;;
*) mapfile -t seed_list < <(seq 1 "$seeds") ;;
esac

keep=1
if [ -z "$out" ]; then
	out=$(mktemp -d)
	keep=0
fi
mkdir -p "$out" || exit 2

# a copy of MACHINE with its seed set: the machine file decides all the noise
with_seed() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["seed"] = int(sys.argv[2])
json.dump(m, open(sys.argv[3], "w"), indent=1)
PY
}

runs=0
failed=0
for seed in "${seed_list[@]}"; do
	for machine in "${machines[@]}"; do
		name=$(basename "$machine" .json)
		file=$out/$name-seed$seed.json
		with_seed "$machine" "$seed" "$file" || exit 2
		for cmd in "${commands[@]}"; do
			tag=$name-seed$seed-$(printf '%s' "$cmd" | tr -c 'A-Za-z0-9' '_' | cut -c1-40)
			runs=$((runs + 1))
			# shellcheck disable=SC2086
			GPUBENCH_SIM_MACHINE=$file GBSIM_LEAKS_FATAL=1 NO_COLOR=1 \
				"$bin" $cmd -o "$out/$tag.report.json" >"$out/$tag.log" 2>&1
			rc=$?
			if [ "$rc" -ne 0 ]; then
				failed=$((failed + 1))
				echo "seed $seed machine $name: $cmd: exit $rc (log $out/$tag.log)"
			fi
		done
	done
done
echo "sim-swarm: $runs runs, $failed failed (${#seed_list[@]} seeds x ${#machines[@]} machines x ${#commands[@]} commands)"
if [ "$failed" -eq 0 ] && [ "$keep" -eq 0 ]; then
	rm -rf "$out"
fi
[ "$failed" -eq 0 ]
