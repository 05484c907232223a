#!/usr/bin/env bash
# Every metric every benchmark writes has one declared direction (issue 26): each
# benchmark, in each of its modes that writes other metrics, with small options,
# on every shipped machine file (the metric names depend on the GPU: fp8 and
# wgmma on Hopper, peer matrices by link), and `theory`; directions.py then
# fails on a metric the table of docs/report-format.md (the same rows as
# report/metric_directions.c) does not cover, or that the report gives another
# direction than the table.
. "$(dirname "$0")/lib_gate.sh"

DOCS=$HERE/../../docs/report-format.md
reports=()
# walk NAME ARGS...: gpubench-sim ARGS -o $TMP/NAME.json, kept for the check
walk() {
	local name=$1
	shift
	run "$BIN" "$@" -q -o "$TMP/$name.json"
	checks=$((checks + 1))
	if [ -s "$TMP/$name.json" ]; then
		reports+=("$TMP/$name.json")
	else
		fail "$name: no report (exit $rc): $(tail -3 <<<"$err")"
	fi
}

for m in "$MACHINES"/*.json; do
	export GPUBENCH_SIM_MACHINE=$m
	n=$(basename "$m" .json)
	# every precision and implementation, with --repeat's run_* metrics
	walk "$n-gemm" gemm --precision all --impl all --size 128 --warmup 0s --iters 2 \
		--samples 5 --repeat 2
	# a job long enough for telemetry: pct_of_observed_clock_peak_*, sm_mhz_mean_*, ...
	walk "$n-gemm-tel" gemm --precision bf16 --size 256 --warmup 0s --duration 300ms --samples 5
	walk "$n-gemm-search" gemm --search --m 128,256 --n 128 --k 128 --warmup 0s --iters 2 \
		--samples 5
	walk "$n-bandwidth" bandwidth --tests all --memory all --method all --min-size 4K \
		--max-size 1M --samples 3 --loops 2
	walk "$n-p2p" p2p --bytes 1M --samples 3 --loops 2
	walk "$n-nccl" nccl --op all -b 1K -e 1M -f 8 --iters 2 --samples 2 -w 1
	GBSIM_SPEED_SCALE=0.001 walk "$n-stress" stress --duration 2s --size 256 \
		--progress none --interval 200ms
	GBSIM_SPEED_SCALE=0.001 walk "$n-stress-mixed" stress --precision mixed --profile ramp \
		--duration 2s --size 256 --progress none --interval 200ms
	GBSIM_SPEED_SCALE=0.001 walk "$n-memtest" stress --memtest --duration 1s --mem 5% \
		--progress none --interval 200ms
	walk "$n-ddp" scaling --workload ddp --steps 3 --warmup-steps 1 --step-ms 5 \
		--grad-bytes 16M --bucket 4M --gemm-size 256
	walk "$n-scaling-gemm" scaling --workload gemm --steps 3 --warmup-steps 1 --step-ms 5 \
		--gemm-size 256
done
walk theory theory --gpu a100-sxm4-80gb --count 8 --price 1.8 --compare rtx4090 \
	--compare-price 0.4

checks=$((checks + 1))
if ! said=$(python3 "$HERE/../sim/gate/directions.py" "$DOCS" "${reports[@]}" 2>&1); then
	fail "metrics without a direction:
$said"
else
	printf '%s\n' "$said"
fi
# what issue 26 found: the walk saw them, so the check above covered them
for want in "stress gemms higher" "stress sm_mhz_mean none" "gemm sm_mhz_mean_bf16 none" \
	"gemm pct_of_observed_clock_peak_bf16 none" "stress tflops_settled none" \
	"scaling worker_compute_ms_n2 lower" "gemm tflops_fp8 higher"; do
	set -- $want
	checks=$((checks + 1))
	python3 -c '
import json, sys
b, m, want = sys.argv[1:4]
seen = {x["better"] for f in sys.argv[4:] for r in [json.load(open(f))]
        for bb in r["benchmarks"] if bb["name"] == b for x in bb["metrics"] if x["name"] == m}
sys.exit(0 if seen == {want} else 1)' "$1" "$2" "$3" "${reports[@]}" ||
		fail "$1/$2 is not written, or not always '$3'"
done
finish
