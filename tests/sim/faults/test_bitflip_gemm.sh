#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bitflip_gemm on GPU 1: a top exponent bit of output (m/2, n/2) of every GEMM
# there flips. gemm's verification fails GPU 1 at row 64, column 64 and passes
# GPU 0 (exit 1); stress's ABFT and exact checks fail GPU 1 only (exit 1).
. "$(dirname "$0")/lib_faults.sh"

sim_run gemm gemm --size 128 --warmup 0s --iters 2 --samples 5 --precision fp32
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" gemm verify_fp32 failed 1 'wrong .*first at row 64, column 64'
expect_finding "$REPORT" gemm verify_fp32 passed 0 'match the FP64 reference'
expect_no_finding "$REPORT" gemm verify_fp32 0
expect_json "$REPORT" "any(w.startswith('gemm/verify_fp32 (device 1)') for w in d['verdict']['failed'])" \
	"the gemm verdict names GPU 1"

# 4 s: the CPU computes both GPUs' GEMMs
sim_run stress stress --duration 4s --size 256 --progress none --interval 500ms
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" stress abft failed 1 'checksums outside the rounding-error bound'
expect_finding "$REPORT" stress exact failed 1 'checksums of exact integer products differ'
expect_no_finding "$REPORT" stress abft 0
expect_no_finding "$REPORT" stress exact 0
expect_json "$REPORT" "any(w.startswith('stress/abft (device 1)') for w in d['verdict']['failed'])" \
	"the stress verdict names GPU 1"
finish
