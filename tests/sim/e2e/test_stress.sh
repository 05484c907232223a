#!/usr/bin/env bash
# stress on the simulated machine: a short burn-in with --inject-fault; the
# checker must catch the flipped bit on every GPU, and a healthy GPU passes.
. "$(dirname "$0")/lib_sim.sh"

# The CPU computes every GPU's GEMMs while the duration is wall-clock time: each GPU
# needs a few verified batches after the injection point (30% of the duration), also
# on a CI machine whose two cores run other tests beside this one
duration=$((GPUS * 4 > 10 ? GPUS * 4 : 10))
sim_run stress stress --duration "${duration}s" --size 256 --inject-fault --progress none \
	--interval 500ms
expect_rc_in "0 1" "stress --inject-fault on $MACHINE_NAME"
expect_report "$REPORT"
expect_check "$REPORT" stress fault_injection passed
expect_json "$REPORT" "d['verdict']['status'] in ('passed', 'warning')" "a healthy simulated GPU passes"
expect_metric "$REPORT" stress "tflops"
finish
