#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# nccl_wrong on GPU 1 (from its 4th collective): nccl counts the wrong elements
# and fails (exit 1). The check names GPU 1, whose output was wrong, not GPU 0.
. "$(dirname "$0")/lib_faults.sh"

sim_run nccl nccl --op allreduce -b 1K -e 64K -f 8 --iters 2 --samples 2 -w 1 --timeout 120s
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_bench_status "$REPORT" nccl "failed"
expect_json "$REPORT" "any(c['name'] == 'allreduce_correct' and c['status'] == 'failed' and int(c['message'].split()[0]) > 0 and 'wrong elements' in c['message'] for b in d['benchmarks'] for c in b['checks'])" \
	"allreduce_correct fails with a count of wrong elements"
expect_finding "$REPORT" nccl allreduce_correct failed 1 'wrong elements in all; first at .* in the output of rank 1 \(GPU 1\)'
expect_no_finding "$REPORT" nccl allreduce_correct 0
expect_action "$REPORT" nccl allreduce_correct 1 drain_inspect
expect_out '# wrong elements: [1-9][0-9]* FAILED' "the nccl-tests style summary counts the wrong elements"
finish
