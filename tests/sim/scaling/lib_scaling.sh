# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# lib_scaling.sh - helpers for the measured-against-theory scaling tests (issue 18).
# A test sources this with its machine file: `. lib_scaling.sh MACHINE.json`
# (a name in this directory or tests/sim/machines/, or a path), runs `gpubench-sim scaling` and
# checks the phase with every GPU: the speedup the simulator's own collective
# cost model (tests/sim/nccl/cost.c) produced, against the product's model range
# (report/theory.c, bench/scaling/scaling_math.c), and the report's placement and reason.
SCALING_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# a machine file of this directory (slow_gpu.json) before the shared ones
case "$1" in
/*) ;;
*) if [ -f "$SCALING_DIR/$1" ]; then set -- "$SCALING_DIR/$1"; else set -- "$SCALING_DIR/../machines/$1"; fi ;;
esac
# shellcheck source=../e2e/lib_sim.sh
. "$SCALING_DIR/../e2e/lib_sim.sh"

# phase_get FILE N EXPR: python EXPR on p, the scaling phase with N workers
# (extra.phases[]), and b, the scaling benchmark; prints the value
phase_get() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
b = next(b for b in d["benchmarks"] if b["name"] == "scaling")
p = next(p for p in b["extra"]["phases"] if p["workers"] == int(sys.argv[2]))
print(eval(sys.argv[3]))' "$1" "$2" "$3"
}

# expect_phase FILE N PYTHON-BOOL-EXPR DESCRIPTION: the N-worker phase satisfies it
expect_phase() {
	checks=$((checks + 1))
	local got
	if ! got=$(phase_get "$1" "$2" "bool($3)" 2>"$TMP/pyerr") || [ "$got" != True ]; then
		fail "$4: phase $2 fails '$3' $(cat "$TMP/pyerr"); phase: $(phase_summary "$1" "$2")"
	fi
}

# phase_summary FILE N: speedup, model range, placement and explanation, one line
phase_summary() {
	phase_get "$1" "$2" '"speedup %.3f, no-overlap %.3f, perfect %.3f, expected %.3f..%.3f, place %s: %s" % (p.get("speedup_median", float("nan")), p["predicted"]["no_overlap"], p["predicted"]["perfect_overlap"], p["predicted"]["expected_low"], p["predicted"]["expected_high"], p.get("place"), p.get("explanation"))' 2>&1
}

# scaling_ok FILE N: the report, the verdict, the phase placed with a reason
scaling_ok() {
	expect_report "$1"
	expect_bench_status "$1" scaling "passed failed"
	expect_metric "$1" scaling "speedup"
	expect_json "$1" "d['verdict']['status'] in ('passed', 'warning', 'failed') and d['verdict']['exit_code'] == $rc" \
		"the verdict and the exit code agree"
	expect_phase "$1" "$2" 'p["place"] in ("inside", "below", "above")' "the speedup is placed"
	expect_phase "$1" "$2" 'len(p["explanation"]) > 20' "the placement has a reason"
	expect_phase "$1" "$2" 'p["devices"] == list(range(p["workers"]))' "the phase runs on GPUs 0..N-1"
}

# healthy_ddp STEPS N: the DDP step of these tests (20 ms of 256^3 GEMMs and
# 24 MiB of gradients in one bucket, ~10 % of the compute over PCIe without
# P2P), run on every GPU of the machine; the report checked by scaling_ok and
# the N-GPU speedup placed inside the model's range. $REPORT is the report.
healthy_ddp() {
	sim_run scaling scaling --workload ddp --steps "$1" --warmup-steps 1 --step-ms 20 \
		--grad-bytes 24M --bucket 24M --gemm-size 256
	expect_rc_in "0 1" "scaling on $MACHINE_NAME"
	scaling_ok "$REPORT" "$2"
	expect_phase "$REPORT" "$2" 'p["place"] == "inside"' "the measurement lies in the model's range"
}
