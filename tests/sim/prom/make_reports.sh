#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make_reports.sh MACHINE.json OUTDIR - the fixture of the sim_prom_ tests
# (issue 28, node_exporter's textfile collector): a report of every benchmark
# (and info) on the simulated machine, at small sizes, as NAME.json, rendered
# with `report NAME.json -o NAME.prom`; a failed run (a bit flip in GEMM on
# GPU 1, tests/sim/faults/bitflip_gemm.json); and one .prom written by a
# measuring command itself (gemm -o direct.prom), after which the folder must
# hold no temporary file: node_exporter reads every *.prom of its folder, so
# -o writes NAME.prom.tmp.XXXXXX and renames it. check_exposition.py and
# test_promtool.sh read OUTDIR.
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../e2e/lib_sim.sh"
OUT=${2:?usage: make_reports.sh MACHINE.json OUTDIR}
rm -rf "$OUT"
mkdir -p "$OUT"

# report NAME RCS ARGS...: gpubench-sim ARGS -o OUT/NAME.json (exit one of RCS), then NAME.prom
report() {
	local name=$1 rcs=$2
	shift 2
	sim_run "$name" "$@"
	expect_rc_in "$rcs" "$name: $*"
	expect_report "$REPORT"
	cp "$REPORT" "$OUT/$name.json"
	run "$BIN" report "$OUT/$name.json" -o "$OUT/$name.prom"
	expect_rc 0 "report $name.json -o $name.prom"
}

report info "0" info
report gemm "0 1" gemm --precision fp32,tf32,fp16,bf16,int8 --size 256 --warmup 0s --iters 2 \
	--samples 5
report bandwidth "0 1" bandwidth --tests all --memory all --method all --min-size 4K \
	--max-size 1M --samples 3 --loops 2
report p2p "0 1" p2p --bytes 1M --samples 3 --loops 2
report nccl "0 1" nccl --op all -b 1K -e 1M -f 8 --iters 2 --samples 2 -w 1 --timeout 120s
report scaling "0 1" scaling --workload ddp --steps 3 --warmup-steps 1 --step-ms 5 \
	--grad-bytes 16M --bucket 4M --gemm-size 256
GBSIM_SPEED_SCALE=0.001 report stress "0 1" stress --duration 4s --size 256 --progress none \
	--interval 500ms
GPUBENCH_SIM_MACHINE=$SIM_E2E/../faults/bitflip_gemm.json report failed "1" gemm --size 128 \
	--warmup 0s --iters 2 --samples 5 --precision fp32

# a measuring command writes the textfile itself, atomically
run "$BIN" gemm --size 128 --warmup 0s --iters 2 --samples 5 --precision bf16 -o "$OUT/direct.prom"
expect_rc_in "0 1" "gemm -o direct.prom"
checks=$((checks + 1))
[ -s "$OUT/direct.prom" ] || fail "gemm -o direct.prom wrote nothing"
checks=$((checks + 1))
left=$(find "$OUT" -name '*.tmp.*')
[ -z "$left" ] || fail "a temporary file is left beside the textfile: $left"
finish
