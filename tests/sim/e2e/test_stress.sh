#!/usr/bin/env bash
# stress on the simulated machine: a short burn-in with --inject-fault; the
# checker must catch the flipped bit on every GPU, and a healthy GPU passes.
. "$(dirname "$0")/lib_sim.sh"

# Time is simulated: each GPU gets verified batches after the injection point (30%
# of the duration) however busy the CPU. The CPU computes every GEMM of that time,
# so the GPUs run at a thousandth of their speed (GBSIM_SPEED_SCALE): the checks
# need batches, not speed.
GBSIM_SPEED_SCALE=0.001 sim_run stress stress --duration 4s --size 256 --inject-fault \
	--progress none --interval 500ms
expect_rc_in "0 1" "stress --inject-fault on $MACHINE_NAME"
expect_report "$REPORT"
expect_check "$REPORT" stress fault_injection passed
expect_json "$REPORT" "d['verdict']['status'] in ('passed', 'warning')" "a healthy simulated GPU passes"
expect_metric "$REPORT" stress "tflops"
finish
