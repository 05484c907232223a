#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# row_remap_pending on GPU 1 (NVML reports a pending remap once the load runs):
# stress's row_remap check fails GPU 1, which needs a reset (exit 1); GPU 0 passes.
. "$(dirname "$0")/lib_faults.sh"

fault_stress 5s
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" stress row_remap failed 1 'pending: the GPU needs a reset'
expect_finding "$REPORT" stress row_remap passed 0 'no row remap pending or failed'
expect_action "$REPORT" stress row_remap 1 reset_gpu
expect_json "$REPORT" "any(w.startswith('stress/row_remap (device 1)') for w in d['verdict']['failed'])" \
	"the verdict names GPU 1's pending remap"
expect_json "$REPORT" "not any('(device 0)' in w for w in d['verdict']['failed'])" \
	"the verdict does not blame GPU 0"
finish
