#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sticky_error on GPU 1 (its 3rd launch): gemm reports device_lost on GPU 1
# (exit 1), skips the rest of that GPU, and still measures GPU 0.
. "$(dirname "$0")/lib_faults.sh"

sim_run gemm gemm --size 128 --warmup 0s --iters 2 --samples 5 --precision fp32
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" gemm device_lost failed 1 'cudaErrorIllegalAddress.*context is lost'
expect_finding "$REPORT" gemm lost_gpu skipped 1 'GPU 1 is lost'
expect_no_finding "$REPORT" gemm device_lost 0
expect_action "$REPORT" gemm device_lost 1 run_again
expect_json "$REPORT" "any(w.startswith('gemm/device_lost (device 1)') for w in d['verdict']['failed'])" \
	"the verdict fails GPU 1 for device_lost"
expect_finding "$REPORT" gemm verify_fp32 passed 0 'match the FP64 reference'
finish
