#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ecc_dbe on GPU 1 (NVML's volatile uncorrected ECC count goes 0 -> 2 once the
# load runs): stress's ecc_dbe check fails GPU 1 (exit 1); GPU 0 counts none.
. "$(dirname "$0")/lib_faults.sh"

fault_stress 5s
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" stress ecc_dbe failed 1 '^2 new uncorrectable \(double-bit\) ECC errors during the run'
expect_finding "$REPORT" stress ecc_dbe passed 0 '^0 new uncorrectable'
expect_action "$REPORT" stress ecc_dbe 1 reset_gpu
expect_action "$REPORT" stress ecc_dbe 0 null
expect_json "$REPORT" "any(m['name'] == 'ecc_dbe_delta' and m.get('device') == 1 and m['value'] == 2 for b in d['benchmarks'] for m in b['metrics'])" \
	"GPU 1's ECC delta is 2"
expect_json "$REPORT" "any(w.startswith('stress/ecc_dbe (device 1)') for w in d['verdict']['failed'])" \
	"the verdict names GPU 1's ECC errors"
expect_json "$REPORT" "not any('(device 0)' in w for w in d['verdict']['failed'])" \
	"the verdict does not blame GPU 0"
finish
