#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# thermal_throttle on GPU 1 (NVML: 88 C, sw/hw thermal reasons, lower clock):
# stress's temperature and throttle checks fail GPU 1 (exit 1); GPU 0 passes.
. "$(dirname "$0")/lib_faults.sh"

fault_stress 10s
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" stress throttle failed 1 'hw_thermal'
expect_finding "$REPORT" stress temperature failed 1 'reached 88 C'
expect_finding "$REPORT" stress throttle passed 0 'throttled 0.0%'
expect_action "$REPORT" stress throttle 1 drain_inspect
expect_action "$REPORT" stress temperature 1 drain_inspect
expect_no_finding "$REPORT" stress temperature 0
expect_json "$REPORT" "any(w.startswith('stress/throttle (device 1)') for w in d['verdict']['failed'])" \
	"the verdict names GPU 1 as throttled"
finish
