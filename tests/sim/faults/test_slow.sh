#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# slow GPU 1 (50 % speed): stress's peer comparison names it slower than the
# other A100 (exit 1); GPU 0 is the reference and passes.
. "$(dirname "$0")/lib_faults.sh"

# 10 s: the CPU computes both GPUs' GEMMs, and the throughput needs verified batches
fault_stress 10s
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" stress peer_throughput failed 1 'GPU 1 .* below its peers \(.* on GPU 0\)'
expect_finding "$REPORT" stress peer_throughput passed 0 'within'
expect_action "$REPORT" stress peer_throughput 1 run_again
expect_json "$REPORT" "any(w.startswith('stress/peer_throughput (device 1)') for w in d['verdict']['failed'])" \
	"the verdict names GPU 1 as slow"
finish
