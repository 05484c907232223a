#!/usr/bin/env bash
# scripts/compare-nvbandwidth.py on saved outputs (no GPU, no nvbandwidth): nvbandwidth's
# string cells and "N/A" are read right, the 2% goal rows decide the exit code in both
# directions, and a tool that measured nothing is exit 3, never a pass.
. "$(dirname "$0")/lib.sh"
SCRIPT="$HERE/../../scripts/compare-nvbandwidth.py"

# nvbandwidth -j as it writes it: every cell a string, one row, a column per GPU
nvbw() {
	cat >"$TMP/nv.json" <<JSON
warning: something the driver printed first
{ "nvbandwidth": { "version": "0.8", "testcases": [
  { "name": "host_to_device_memcpy_ce", "status": "Passed", "bandwidth_matrix": [["N/A", "$1"]] },
  { "name": "device_to_host_memcpy_ce", "status": "Passed", "bandwidth_matrix": [["N/A", "$2"]] },
  { "name": "device_local_copy", "status": "Passed", "bandwidth_matrix": [["N/A", "1500.5"]] },
  { "name": "host_to_device_memcpy_sm", "status": "Waived" } ] } }
JSON
}
# a gpubench report with the metrics of GPU 1 (and a decoy on GPU 0)
gpub() {
	cat >"$TMP/gb.json" <<JSON
{ "schema": "gpubench.report/1", "verdict": {"status": "passed"}, "benchmarks": [
  { "name": "bandwidth", "metrics": [
    {"name": "h2d_ce_pinned_gbps", "device": 0, "value": 1.0},
    {"name": "h2d_ce_pinned_gbps", "device": 1, "value": $1},
    {"name": "d2h_ce_pinned_gbps", "device": 1, "value": $2},
    {"name": "d2d_ce_gbps", "device": 1, "value": 1400.0} ] } ] }
JSON
}
cmp_run() {
	run python3 "$SCRIPT" --device 1 --nvbandwidth-json "$TMP/nv.json" \
		--gpubench-json "$TMP/gb.json" -o "$TMP/sum.json" "$@"
}

nvbw 55.0 56.0
gpub 54.5 56.5
cmp_run
expect_rc 0 "within 2% of nvbandwidth"
expect_out "host_to_device_memcpy_ce +55.00 +54.50 +0.991" "h2d row"
checks=$((checks + 1))
python3 - "$TMP/sum.json" <<'PY' || fail "summary: N/A cells and missing rows are null"
import json, sys
rows = {r["test"]: r for r in json.load(open(sys.argv[1]))["rows"]}
assert rows["host_to_device_memcpy_sm"]["nvbandwidth_gbps"] is None
assert rows["host_to_device_memcpy_sm"]["ratio"] is None
assert rows["device_local_copy"]["goal"] is False
assert abs(rows["device_to_host_memcpy_ce"]["ratio"] - 56.5 / 56.0) < 1e-9
PY

# 5% below on a goal row: a finding; 5% above too (a byte counted twice)
gpub 52.0 56.0
cmp_run
expect_rc 1 "5% below nvbandwidth"
expect_out "differs from nvbandwidth by more than 2%" "below message"
gpub 55.0 59.0
cmp_run
expect_rc 1 "5% above nvbandwidth"
# a wider tolerance lets it pass; the d2d row (not a goal) never decides
cmp_run --tolerance 10%
expect_rc 0 "within 10%"

# nothing comparable: could not run, not passed
nvbw N/A N/A
gpub 55.0 56.0
cmp_run
expect_rc 3 "nvbandwidth measured no goal row"
expect_one_error "no goal row was measured by both tools" "nothing measured message"

# bad input
run python3 "$SCRIPT" --gpubench-json "$TMP/gb.json" --tolerance abc
expect_rc 2 "bad tolerance"
run python3 "$SCRIPT" --nvbandwidth-json "$TMP/missing.json" --gpubench-json "$TMP/gb.json"
expect_rc 3 "missing file"
expect_one_error "compare-nvbandwidth: error" "missing file message"

finish
