#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# power_brake on GPU 1 (NVML: hw_slowdown and hw_power_brake, SM clock down):
# stress's throttle check (docs/stress.md: any of hw_slowdown, sw_thermal,
# hw_thermal, hw_power_brake in over 1 % of the samples) fails GPU 1 (exit 1);
# the brake is no thermal event, so neither GPU's temperature is blamed.
. "$(dirname "$0")/lib_faults.sh"

fault_stress 5s
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" stress throttle failed 1 'hw_power_brake'
expect_finding "$REPORT" stress throttle failed 1 'hw_slowdown'
expect_action "$REPORT" stress throttle 1 drain_inspect
expect_finding "$REPORT" stress throttle passed 0 'throttled 0.0%'
expect_no_finding "$REPORT" stress temperature 1
expect_no_finding "$REPORT" stress temperature 0
expect_json "$REPORT" "max(t['sm_mhz'] for t in d['telemetry'] if t['device'] == 1) < min(t['sm_mhz'] for t in d['telemetry'] if t['device'] == 0)" \
	"GPU 1's SM clock stays below GPU 0's"
expect_json "$REPORT" "any(w.startswith('stress/throttle (device 1)') for w in d['verdict']['failed'])" \
	"the verdict names GPU 1 as throttled"
expect_json "$REPORT" "not any('(device 0)' in w for w in d['verdict']['failed'])" \
	"the verdict does not blame GPU 0"
finish
