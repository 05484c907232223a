#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two A100 on NVLink, GPU 1 at 80 % speed (slow_gpu.json, the `slow` fault): the
# DDP step waits for the slower worker each step, so the measured speedup falls
# well below the healthy pair's ~2x (test_nvlink_a100.sh), below the model's
# range, and the report names GPU 1 as the straggler: from each worker's compute
# part of the step (ddp: the step itself also waits for the all-reduce, so it
# is the same on both), and from each GPU timed alone (gemm).
. "$(dirname "$0")/lib_scaling.sh" slow_gpu.json

# 1024-wide GEMMs: at 256 a GEMM's fixed launch cost, which the slow fault does
# not scale, is most of the step and hides the straggler. The lower bounds are
# loose: on a loaded host the simulated step also waits for the CPU (seen: 1.40x
# for gemm with other builds running, 1.16x beside sim_theory_h100x8, hence
# RUN_SERIAL in tests/sim/CMakeLists.txt), the upper ones are what the test is about.

sim_run ddp scaling --workload ddp --steps 4 --warmup-steps 1 --step-ms 20 \
	--grad-bytes 24M --bucket 24M --gemm-size 1024
expect_rc_in "0 1" "scaling with a straggler"
scaling_ok "$REPORT" 2
expect_phase "$REPORT" 2 '1.2 <= p["speedup_median"] <= 1.72' \
	"the 80 % GPU drags two GPUs to ~1.6x (2 x 0.8, less the all-reduce)"
expect_phase "$REPORT" 2 'p["place"] == "below"' "below the model's range"
expect_phase "$REPORT" 2 '"straggler" in p["explanation"]' "the explanation names a straggler as a cause"
expect_phase "$REPORT" 2 '"GPU 1 computes slowest" in p["explanation"]' \
	"the explanation names GPU 1, from the workers' compute parts"
expect_phase "$REPORT" 2 \
	'[w["compute_ms_median"] > 1.1 * p["per_worker"][0]["compute_ms_median"] for w in p["per_worker"]] == [False, True]' \
	"per_worker: GPU 1's compute part is the longer"
expect_check "$REPORT" scaling scaling_n2 warning
echo "ddp: $(phase_summary "$REPORT" 2)"

sim_run gemm scaling --workload gemm --steps 4 --warmup-steps 1 --step-ms 20 --gemm-size 1024
expect_rc_in "0 1" "scaling with a straggler (gemm)"
scaling_ok "$REPORT" 2
expect_phase "$REPORT" 2 '1.2 <= p["speedup_median"] <= 1.72' "the 80 % GPU drags compute-only scaling"
expect_phase "$REPORT" 2 '"GPU 1 is a straggler" in p["explanation"]' \
	"the explanation names GPU 1 as the straggler"
expect_check "$REPORT" scaling scaling_n2 warning
echo "gemm: $(phase_summary "$REPORT" 2)"
finish
