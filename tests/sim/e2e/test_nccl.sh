#!/usr/bin/env bash
# nccl on the simulated machine: every collective from 1 KiB to 32 MiB, correct
# results (0 wrong), busbw = algbw x the collective's bus factor (2(n-1)/n for
# all-reduce) on every row, each row's time as the ring model predicts from
# the machine file's links, and the fitted busbw at the ring's bandwidth.
. "$(dirname "$0")/lib_sim.sh"

sim_run nccl nccl --op all -b 1K -e 32M -f 8 --iters 2 --samples 2 -w 1 --timeout 120s
if [ "$GPUS" -lt 2 ]; then
	expect_rc_in "0 1" "nccl on one GPU"
else
	expect_rc_in "0 1" "nccl --op all on $MACHINE_NAME"
fi
expect_report "$REPORT"
expect_json "$REPORT" 'isinstance(d["host"]["nccl_version"], int) and d["host"]["nccl_version"] > 0' \
	"host.nccl_version recorded by nccl"
expect_bench_status "$REPORT" nccl "passed"
for op in allreduce allgather reducescatter broadcast reduce alltoall; do
	expect_metric "$REPORT" nccl "^${op}.*busbw"
done
expect_json "$REPORT" "all(m['value'] == 0 for b in d['benchmarks'] for m in b['metrics'] if 'wrong' in m['name'])" \
	"no wrong element in any collective"
expect_predicted nccl "$REPORT"
finish
