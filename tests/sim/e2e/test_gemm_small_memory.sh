#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gemm on a GPU with little memory and a large L2: the rotating copies of A
# and B (>= 2x L2) are capped to what fits in free memory, so gemm runs and
# verifies instead of running out of memory, and says how many copies it used
# and that the L2 may then serve some operands. Each GPU of the machine file
# is given 128 MiB of memory and a 256 MiB L2 (1024 copies of fp32 256^3's
# A and B would be 512 MiB); the machine as it is needs no cap, as a control.
. "$(dirname "$0")/lib_sim.sh"

run_fp32_256() {
	sim_run "$1" gemm -d 0 --precision fp32 --size 256 --warmup 0s --iters 2 --samples 5
}

# the GPU 0 the report names, and gemm passed and verified on it
expect_gpu0_verified() {
	local gpu
	gpu=$(json_get "$REPORT" '["devices"][0]["name"]' 2>/dev/null)
	checks=$((checks + 1))
	[ -n "$gpu" ] || fail "$1: the report names no GPU 0"
	expect_json "$REPORT" "d['verdict']['status'] == 'passed' and d['verdict']['exit_code'] == 0" \
		"$1: verdict passed"
	expect_bench_status "$REPORT" gemm "passed"
	expect_json "$REPORT" "any(c['name'] == 'verify_fp32' and c['status'] == 'passed' and c.get('device') == 0 for b in d['benchmarks'] for c in b['checks'])" \
		"$1: fp32 verified on GPU 0 ($gpu)"
}

# the control: 4 MiB of L2 wants 16 copies of 512 KiB, all of which fit
run_fp32_256 plain
expect_rc_in "0" "gemm on $MACHINE_NAME"
expect_report "$REPORT"
expect_gpu0_verified "$MACHINE_NAME"
expect_json "$REPORT" "[(r['rotating_copies'], r['rotating_copies_wanted']) for r in d['benchmarks'][0]['extra']['runs']] == [(16, 16)] and d['benchmarks'][0]['params']['rotating_copies'] == 16" \
	"16 copies for 2x the 4 MiB L2, as wanted"
expect_json "$REPORT" "'rotation_note' not in d['benchmarks'][0]['params']" "no note when every copy fits"

# every GPU with 128 MiB of memory and a 256 MiB L2
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = d.get("name", "machine") + "-small-memory"
for g in d["gpus"]:
    g["memory"] = "128M"
    g["l2"] = "256M"
json.dump(d, open(sys.argv[2], "w"))' "$MACHINE" "$TMP/small.json"
export GPUBENCH_SIM_MACHINE=$TMP/small.json

run_fp32_256 small
expect_rc_in "0" "gemm with 128 MiB of memory and a 256 MiB L2 (was: out of memory)"
expect_report "$REPORT"
expect_gpu0_verified "small memory"
expect_json "$REPORT" "d['devices'][0]['memory_bytes'] == 128 << 20 and d['devices'][0]['l2_bytes'] == 256 << 20" \
	"the report shows the small memory and the large L2"
# fewer than the 1024 wanted, more than a handful, and all of them within the 128 MiB
expect_json "$REPORT" "all(r['rotating_copies_wanted'] == 1024 and 16 < r['rotating_copies'] < 1024 and r['rotating_copies'] * 512 * 1024 < 96 << 20 for r in d['benchmarks'][0]['extra']['runs'])" \
	"copies capped to free memory"
expect_json "$REPORT" "d['benchmarks'][0]['params']['rotating_copies'] == d['benchmarks'][0]['extra']['runs'][0]['rotating_copies']" \
	"params.rotating_copies: the copies used"
expect_json "$REPORT" "'of the 1024 that 2x L2 needs, fit in free memory' in d['benchmarks'][0]['params']['rotation_note'] and 'device 0' in d['benchmarks'][0]['params']['rotation_note']" \
	"params.rotation_note says fewer copies than wanted, on which GPU"
finish
