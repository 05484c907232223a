#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# oom on GPU 1: gemm cannot allocate there, so it could not run (exit 3) and
# names GPU 1, while GPU 0 is still measured and verified.
. "$(dirname "$0")/lib_faults.sh"

sim_run gemm gemm --size 128 --warmup 0s --iters 2 --samples 5 --precision fp32
expect_report "$REPORT"
expect_verdict "$REPORT" error 3
expect_bench_status "$REPORT" gemm "error"
expect_finding "$REPORT" gemm device_1 error 1 'cudaErrorMemoryAllocation'
expect_action "$REPORT" gemm device_1 1 run_again
expect_json "$REPORT" "any('(device 1)' in w and 'out of memory' in w for w in d['verdict']['warnings'])" \
	"the verdict names GPU 1 and the out-of-memory error"
# the other GPU measured: a throughput and a passed verification on GPU 0
expect_json "$REPORT" "any(m['name'] == 'tflops_fp32' and m.get('device') == 0 and m['value'] > 0 for b in d['benchmarks'] for m in b['metrics'])" \
	"GPU 0 measured"
expect_finding "$REPORT" gemm verify_fp32 passed 0 'match the FP64 reference'
finish
