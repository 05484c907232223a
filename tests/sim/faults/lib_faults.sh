# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# lib_faults.sh - helpers for the fault tests on the simulated GPU (issue 18).
# A test is `bash tests/sim/faults/test_KIND.sh tests/sim/faults/KIND.json`: the
# machine file injects one fault, the test runs the command that must notice it
# and checks the exit code, the verdict, the GPU the finding names and the report.
# shellcheck source=../e2e/lib_sim.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../e2e/lib_sim.sh"

# expect_verdict FILE STATUS EXIT: the report's verdict and exit code, and the process's
expect_verdict() {
	expect_rc_in "$3" "exit code"
	expect_json "$1" "d['verdict']['status'] == '$2' and d['verdict']['exit_code'] == $3" \
		"verdict $2, exit code $3 (got $(json_get "$1" '["verdict"]["status"]' 2>/dev/null))"
}

# expect_finding FILE BENCH CHECK STATUS DEVICE REGEX: the benchmark has a check
# CHECK with STATUS on DEVICE whose message matches REGEX (python re)
expect_finding() {
	checks=$((checks + 1))
	if ! python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
bench, name, status, dev, rx = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
ok = any(c["name"] == name and c["status"] == status and c.get("device") == dev
         and re.search(rx, c.get("message", ""))
         for b in d["benchmarks"] if b["name"] == bench for c in b.get("checks", []))
sys.exit(0 if ok else 1)' "$@"; then
		fail "$2: no check $3 $4 on GPU $5 matching '$6'; has: $(checks_of "$1" "$2")"
	fi
}

# expect_no_finding FILE BENCH CHECK DEVICE: that check is not failed on DEVICE
# (the healthy GPU of the machine is not blamed)
expect_no_finding() {
	checks=$((checks + 1))
	if ! python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
bad = [c for b in d["benchmarks"] if b["name"] == sys.argv[2] for c in b.get("checks", [])
       if c["name"] == sys.argv[3] and c.get("device") == int(sys.argv[4])
       and c["status"] in ("failed", "error")]
sys.exit(1 if bad else 0)' "$@"; then
		fail "$2: check $3 failed on the healthy GPU $4; has: $(checks_of "$1" "$2")"
	fi
}

# expect_action FILE BENCH CHECK DEVICE ACTION: the fault check CHECK on DEVICE
# carries the recommended action ACTION (docs/faults.md; "null": none at all)
expect_action() {
	checks=$((checks + 1))
	if ! python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
bench, name, dev, want = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
got = [(c.get("action") or {}).get("do", "null")
       for b in d["benchmarks"] if b["name"] == bench for c in b.get("checks", [])
       if c["name"] == name and c.get("device") == dev]
sys.exit(0 if got and all(g == want for g in got) else 1)' "$@"; then
		fail "$2/$3 on GPU $4: action is not $5; has: $(actions_of "$1" "$2")"
	fi
}

# actions_of FILE BENCH: "name/device/action" of every check, for failure messages
actions_of() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s/%s/%s" % (c["name"], c.get("device"), (c.get("action") or {}).get("do"))
               for b in d["benchmarks"] if b["name"] == sys.argv[2] for c in b.get("checks", [])))' \
		"$1" "$2" | cut -c1-400
}

# checks_of FILE BENCH: "name/status/device" of every check, for failure messages
checks_of() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s/%s/%s" % (c["name"], c["status"], c.get("device"))
               for b in d["benchmarks"] if b["name"] == sys.argv[2] for c in b.get("checks", [])))' \
		"$1" "$2" | cut -c1-400
}

# fault_stress DURATION: stress as the fault tests run it, the report in $REPORT.
# Time is simulated (docs/simulation.md), so the watchdog never mistakes a slow
# CPU for a hung GPU, but the CPU computes every GEMM the simulated GPUs run in
# that time: the GPUs run at a thousandth of their speed (GBSIM_SPEED_SCALE;
# the checks under test need batches, not speed), and --mem 20% keeps the
# slots few.
FAULT_STRESS_SIZE=256 # m = n = k, for tests that name a position in the result
fault_stress() {
	GBSIM_SPEED_SCALE=0.001 sim_run stress stress --duration "$1" --size "$FAULT_STRESS_SIZE" \
		--mem 20% --progress none --interval 500ms
}
