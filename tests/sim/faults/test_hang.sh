#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hang on GPU 1 (its 15th kernel, the verify of its second batch, never
# completes): stress's watchdog declares GPU 1 hung after 30 s and abandons it,
# GPU 0 finishes and passes, the report is written, the verdict is error
# (exit 3), and the process exits although a kernel still "runs" (the abandoned
# GPU's memory is not reported as a leak, GBSIM_LEAKS_FATAL=1 being set by ctest).
# The hang comes early and the load lasts 8 s so that GPU 1 reaches it even
# under TSan on a busy machine (at its 51st kernel and 4 s it once did not);
# the watchdog's 30 s, not the load, sets how long the test takes.
. "$(dirname "$0")/lib_faults.sh"

start=$(date +%s)
fault_stress 8s
elapsed_s=$(($(date +%s) - start))
expect_report "$REPORT"
expect_verdict "$REPORT" error 3
expect_finding "$REPORT" stress could_run error 1 'hung: no progress .* the GPU was abandoned'
expect_finding "$REPORT" stress could_run passed 0 'ran [0-9]+ GEMMs'
expect_no_finding "$REPORT" stress could_run 0
expect_action "$REPORT" stress could_run 1 reset_gpu
expect_json "$REPORT" "any(w.startswith('stress/could_run (device 1)') for w in d['verdict']['warnings'])" \
	"the verdict names GPU 1 as hung"
checks=$((checks + 1))
[ "$elapsed_s" -lt 60 ] || fail "the watchdog took ${elapsed_s} s"
finish
