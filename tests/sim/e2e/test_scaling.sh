#!/usr/bin/env bash
# scaling on the simulated machine: a DDP step on 1..N GPUs placed against the
# model, and its speedup as the machine file predicts: each step is compute
# plus 4 all-reduces of 4 MiB after it, timed by the ring model.
. "$(dirname "$0")/lib_sim.sh"

sim_run scaling scaling --workload ddp --steps 3 --warmup-steps 1 --step-ms 5 \
	--grad-bytes 16M --bucket 4M --gemm-size 256
if [ "$GPUS" -lt 2 ]; then
	expect_rc_in "0 1 3" "scaling on one GPU"
	expect_report "$REPORT"
	finish
fi
expect_rc_in "0 1" "scaling on $MACHINE_NAME"
expect_report "$REPORT"
expect_bench_status "$REPORT" scaling "passed failed"
expect_metric "$REPORT" scaling "speedup"
expect_predicted scaling "$REPORT"
finish
