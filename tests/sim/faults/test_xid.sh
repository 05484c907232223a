#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xid on GPU 1 (NVML delivers Xid 79, fallen off the bus, once the load runs):
# stress's xid check fails GPU 1 with the Xid named (exit 1); GPU 0 saw none.
. "$(dirname "$0")/lib_faults.sh"

fault_stress 5s
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" stress xid failed 1 '^hardware XID 79 during the run'
expect_finding "$REPORT" stress xid passed 0 'no XID event'
expect_json "$REPORT" "any(w.startswith('stress/xid (device 1)') for w in d['verdict']['failed'])" \
	"the verdict names GPU 1's Xid"
expect_json "$REPORT" "not any('(device 0)' in w for w in d['verdict']['failed'])" \
	"the verdict does not blame GPU 0"
finish
