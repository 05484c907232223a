#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# nvlink_down between GPU 1 and GPU 0: p2p reports "NVLink link down" on both
# ends of the pair (exit 1), with the count of links up.
. "$(dirname "$0")/lib_faults.sh"

sim_run p2p p2p --bytes 1M --samples 3 --loops 2
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" p2p nvlink_links_up failed 1 'NVLink link down: 0 of 12 links up'
expect_finding "$REPORT" p2p nvlink_links_up failed 0 'NVLink link down: 0 of 12 links up'
expect_action "$REPORT" p2p nvlink_links_up 1 reset_gpu
expect_json "$REPORT" "any(w.startswith('p2p/nvlink_links_up (device 1)') for w in d['verdict']['failed'])" \
	"the verdict names GPU 1's links"
finish
