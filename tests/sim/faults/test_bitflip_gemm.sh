#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bitflip_gemm on GPU 1: a top exponent bit of output (m/2, n/2) of every GEMM
# there flips (the top byte's 0x40: bit 30 of an FP32 result). gemm's
# verification fails GPU 1 at row 64, column 64 and passes GPU 0 (exit 1);
# stress's ABFT and exact checks fail GPU 1 only, naming row and column
# n/2 and bit 30 (exit 1), and the two GPUs' differing digests (no majority)
# fail the run without blaming either GPU.
. "$(dirname "$0")/lib_faults.sh"

sim_run gemm gemm --size 128 --warmup 0s --iters 2 --samples 5 --precision fp32
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" gemm verify_fp32 failed 1 'wrong .*first at row 64, column 64'
expect_finding "$REPORT" gemm verify_fp32 passed 0 'match the FP64 reference'
expect_no_finding "$REPORT" gemm verify_fp32 0
expect_action "$REPORT" gemm verify_fp32 1 drain_inspect
expect_json "$REPORT" "any(w.startswith('gemm/verify_fp32 (device 1)') for w in d['verdict']['failed'])" \
	"the gemm verdict names GPU 1"

# 4 s: the CPU computes both GPUs' GEMMs. bf16 (the default) writes FP32 results.
half=$((FAULT_STRESS_SIZE / 2))
at="row $half, column $half \\(batch [0-9]+\\): bit 30 \\(exponent\\) flipped"
fault_stress 4s
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" stress abft failed 1 "checksums outside the rounding-error bound; first at $at"
expect_finding "$REPORT" stress exact failed 1 "checksums of exact integer products differ; first at $at"
expect_no_finding "$REPORT" stress abft 0
expect_no_finding "$REPORT" stress exact 0
expect_action "$REPORT" stress abft 1 drain_inspect
expect_action "$REPORT" stress exact 1 drain_inspect
expect_json "$REPORT" "any(w.startswith('stress/abft (device 1)') for w in d['verdict']['failed'])" \
	"the stress verdict names GPU 1"
# the same element and bit as report fields
gpus="[b for b in d['benchmarks'] if b['name'] == 'stress'][0]['extra']['gpus']"
for layer in abft exact; do
	expect_json "$REPORT" "${gpus}[0]['first_corrupt']['$layer'] is None" \
		"extra.gpus[0].first_corrupt.$layer: nothing on GPU 0"
	first="${gpus}[1]['first_corrupt']['$layer']"
	expect_json "$REPORT" "[${first}[k] for k in ('row', 'col', 'bit', 'field')] == [$half, $half, 30, 'exponent']" \
		"extra.gpus[1].first_corrupt.$layer: row and column $half, bit 30 (exponent)"
done
# two GPUs that differ: no majority, so neither is the culprit; the run fails
expect_no_finding "$REPORT" stress cross_gpu 0
expect_no_finding "$REPORT" stress cross_gpu 1
expect_json "$REPORT" "any(c['name'] == 'cross_gpu' and c['status'] == 'failed' and
	c.get('device') is None and c['message'].startswith('GPUs 0 and 1 computed different results')
	for b in d['benchmarks'] if b['name'] == 'stress' for c in b['checks'])" \
	"a cross_gpu check of no device says GPUs 0 and 1 differ"
expect_json "$REPORT" "not any(w.startswith('stress/cross_gpu (device') for w in d['verdict']['failed'])" \
	"the verdict fails no GPU for the tie"
finish
