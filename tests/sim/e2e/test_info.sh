#!/usr/bin/env bash
# info on the simulated machine: every GPU described, topology for pairs, exit 0.
. "$(dirname "$0")/lib_sim.sh"

sim_run info info
expect_rc 0 "info on $MACHINE_NAME"
expect_report "$REPORT"
expect_json "$REPORT" "len(d['devices']) == $GPUS" "one device entry per simulated GPU"
expect_json "$REPORT" "all(x.get('name') for x in d['devices'])" "every device is named"
expect_json "$REPORT" "all(x['memory_bytes'] > 0 for x in d['devices'])" "memory known"
expect_json "$REPORT" "d['verdict']['status'] == 'passed'" "verdict passed"
if [ "$GPUS" -gt 1 ]; then
	expect_json "$REPORT" "len(d['topology']) > 0" "topology of the pairs"
fi
finish
