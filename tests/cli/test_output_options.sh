#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Output formats and options (issue 19, item 5):
#   - --json with another --format is exit 2 with one line, not one silently winning;
#   - one thresholds file for `run` and `stress`: the README's own example works for
#     both, its "stress" section reaches stress, a typo in it is exit 2 for both;
#   - 1e999 in a loaded report or thresholds file is exit 2 naming the key;
#   - CSV, Prometheus and text print numbers shortest-round-trip (741.917);
#   - the report schema is forward compatible (unknown keys pass, a typo'd known key
#     fails), cuda_driver_version is null without a driver, compare's JSON validates
#     against docs/compare.schema.json;
#   - an error report in HTML says what happened, never "every check passed";
#   - a merged fleet's text states one verdict, once.
# shellcheck source=tests/cli/lib.sh disable=SC1091,SC2154 # rc, out, err come from lib.sh's run
. "$(dirname "$0")/lib.sh"
set -o pipefail

DATA=${GPUBENCH_TEST_DATA:-$HERE/../data}
DOCS=$(dirname "${SCHEMA:-$HERE/../../docs/report.schema.json}")
README=$HERE/../../README.md
ERR='^gpubench: error: '

# one error line matching PATTERN, exit 2
bad() {
	local what=$1 pattern=$2
	shift 2
	run "$BIN" "$@"
	expect_rc 2 "$what"
	expect_one_error "$ERR.*$pattern" "$what"
}

# expect_not PATTERN TEXT DESCRIPTION: TEXT does not match. grep reads a
# here-string, not a pipe, as lib.sh's expect_out does (why: there).
expect_not() {
	checks=$((checks + 1))
	if grep -qE -- "$1" <<<"$2"; then
		fail "$3: '$1' found"
	fi
}

# ---- --json and --format ----
for fmt in csv markdown junit prometheus html; do
	bad "info --json --format $fmt" "'--json' and '--format $fmt'" info --json --format "$fmt"
	bad "gemm --format $fmt --json" "'--json' and '--format $fmt'" gemm --format "$fmt" --json
done
# the same format twice is not a conflict: it gets as far as the GPU probe
run "$BIN" info --json --format json
checks=$((checks + 1))
[ "$rc" -ne 2 ] || fail "info --json --format json is refused: $err"

# ---- one thresholds file for run and stress ----
# the README's example, as printed there
awk '/--thresholds FILE. overrides any rule/ { f = 1; next }
     f && /^```json/ { g = 1; next } g && /^```/ { exit } g { print }' "$README" >"$TMP/readme-th.json"
checks=$((checks + 1))
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/readme-th.json" ||
	fail "the README's thresholds example was not found or is not JSON"
if ! have_gpu; then
	# without a GPU both end at the probe (3): the file itself was accepted
	for cmd in stress run; do
		run "$BIN" "$cmd" --thresholds "$TMP/readme-th.json" -q
		expect_rc 3 "$cmd --thresholds README example"
		expect_not 'threshold' "$err" "$cmd --thresholds README example"
	done
	printf '{"thresholds": [], "stress": {"temp_limit_c": 80}}\n' >"$TMP/both.json"
	run "$BIN" stress --thresholds "$TMP/both.json" -q
	expect_rc 3 "stress --thresholds with a stress section"
	# stress's own flat form still works
	printf '{"temp_limit_c": 80}\n' >"$TMP/flat.json"
	run "$BIN" stress --thresholds "$TMP/flat.json" -q
	expect_rc 3 "stress --thresholds, flat form"
else
	skipped=1
fi
printf '{"thresholds": [], "stress": {"temp_limt_c": 80}}\n' >"$TMP/typo.json"
bad "stress: a typo in the stress section" "stress: unknown threshold 'temp_limt_c'" \
	stress --thresholds "$TMP/typo.json"
bad "run: a typo in the stress section" "stress: unknown threshold 'temp_limt_c'" \
	run --thresholds "$TMP/typo.json"
printf '{"stress": [1]}\n' >"$TMP/stress-array.json"
bad "run: a stress section not an object" "stress must be an object" \
	run --thresholds "$TMP/stress-array.json"
printf '{"thresholds": [{"max_value": 1}]}\n' >"$TMP/no-metric.json"
bad "stress: a bad rule in the run part" "thresholds\\[0\\].metric" \
	stress --thresholds "$TMP/no-metric.json"

# ---- 1e999 ----
printf '{"thresholds": [{"metric": "x", "max_value": 1e999}]}\n' >"$TMP/inf-rule.json"
bad "run: 1e999 in a rule" "thresholds\\[0\\].max_value" run --thresholds "$TMP/inf-rule.json"
bad "stress: 1e999 in a rule" "thresholds\\[0\\].max_value" stress --thresholds "$TMP/inf-rule.json"
printf '{"stress": {"temp_limit_c": 1e999}}\n' >"$TMP/inf-stress.json"
bad "run: 1e999 in the stress section" "temp_limit_c" run --thresholds "$TMP/inf-stress.json"
printf '{"temp_limit_c": 1e999}\n' >"$TMP/inf-flat.json"
bad "stress: 1e999, flat form" "temp_limit_c" stress --thresholds "$TMP/inf-flat.json"
python3 - "$DATA/base.json" "$TMP" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"][0]["metrics"][0]["value"] = "INF"
text = json.dumps(d).replace('"INF"', "1e999")
open(sys.argv[2] + "/inf-value.json", "w").write(text)
d = json.load(open(sys.argv[1]))
d["benchmarks"][0]["metrics"][0]["samples"] = ["INF"]
open(sys.argv[2] + "/inf-sample.json", "w").write(json.dumps(d).replace('"INF"', "-1e999"))
EOF
bad "report: 1e999 as a metric value" "metrics\\[0\\].*value.*range" report "$TMP/inf-value.json"
bad "report: -1e999 in samples" "samples\\[0\\].*range" report "$TMP/inf-sample.json"
bad "compare: 1e999 in B" "value.*range" compare "$DATA/base.json" "$TMP/inf-value.json"

# ---- shortest round-trip numbers ----
# 741.917 prints as such (not 741.9169999999999, a different double, nor 741.92);
# 0.1 + 0.2 needs all 17 digits to read back as itself
python3 - "$DATA/base.json" "$TMP" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["benchmarks"][0]["metrics"][0]
m["value"] = 741.917
m["stats"]["median"] = 0.1 + 0.2
json.dump(d, open(sys.argv[2] + "/digits.json", "w"))
EOF
run "$BIN" report "$TMP/digits.json" --format csv
expect_rc 0 "report --format csv"
expect_out '[ ,]741\.917([^0-9]|$)' "report --format csv: 741.917"
expect_not '741\.91699' "$out" "report --format csv: 741.917 with 17 digits"
# Prometheus in base units: 741.917 TFLOP/s is 741917000000000 FLOP/s, not 7.41916999...e14
run "$BIN" report "$TMP/digits.json" --format prometheus
expect_rc 0 "report --format prometheus"
expect_out '^gpubench_gemm_fp32_flops\{gpu="0",.*\} 741917000000000$' \
	"report --format prometheus: 741.917 TFLOP/s in FLOP/s"
expect_not '74191699' "$out" "report --format prometheus: 741.917e12 with 17 digits"
run "$BIN" report "$TMP/digits.json" --format csv
expect_out ',0\.30000000000000004,' "report --format csv: 0.1 + 0.2 exact"

# ---- schemas ----
python3 - "$DATA/base.json" "$TMP" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["a_key_of_a_later_version"] = {"x": 1}
d["host"]["new_host_key"] = "x"
d["benchmarks"][0]["metrics"][0]["new_metric_key"] = 1
json.dump(d, open(sys.argv[2] + "/future.json", "w"))
d = json.load(open(sys.argv[1]))
d["benchmarks"][0]["metrics"][0]["vaule"] = d["benchmarks"][0]["metrics"][0].pop("value")
json.dump(d, open(sys.argv[2] + "/typo-key.json", "w"))
d = json.load(open(sys.argv[1]))
d["benchmarks"][0]["metrics"][0]["value"] = "741.9"
json.dump(d, open(sys.argv[2] + "/retyped.json", "w"))
EOF
checks=$((checks + 1))
python3 "$HERE/validate_report.py" "$DOCS/report.schema.json" "$TMP/future.json" >"$TMP/val" 2>&1 ||
	fail "a report with keys of a later version does not validate: $(cat "$TMP/val")"
checks=$((checks + 1))
python3 "$HERE/validate_report.py" "$DOCS/report.schema.json" "$TMP/typo-key.json" >/dev/null 2>&1 &&
	fail "a report with 'vaule' for 'value' validates"
checks=$((checks + 1))
python3 "$HERE/validate_report.py" "$DOCS/report.schema.json" "$TMP/retyped.json" >/dev/null 2>&1 &&
	fail "a report with a string value validates"
checks=$((checks + 1))
python3 "$HERE/validate_report.py" --strict "$DOCS/report.schema.json" "$TMP/future.json" \
	>/dev/null 2>&1 && fail "--strict accepts keys the schema does not list"

if ! have_gpu; then
	run "$BIN" info -o "$TMP/nodriver.json"
	expect_rc 3 "info without a driver"
	validate "$TMP/nodriver.json"
	checks=$((checks + 1))
	[ "$(json_get "$TMP/nodriver.json" '["host"]["cuda_driver_version"]')" = None ] ||
		fail "host.cuda_driver_version is not null without a driver"
fi

n=0
for b in base regressed improved noisy other_model; do
	run "$BIN" compare "$DATA/base.json" "$DATA/$b.json" --price 2,3 -q -o "$TMP/cmp-$b.json"
	n=$((n + 1))
	checks=$((checks + 1))
	python3 "$HERE/validate_report.py" --strict "$DOCS/compare.schema.json" "$TMP/cmp-$b.json" \
		>"$TMP/val" 2>&1 || fail "compare base $b: $(cat "$TMP/val")"
done
# an incomplete B: the incomplete[] entries validate too
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["benchmarks"]=d["benchmarks"][1:]
json.dump(d, open(sys.argv[2], "w"))' "$DATA/base.json" "$TMP/fewer.json"
run "$BIN" compare "$DATA/base.json" "$TMP/fewer.json" -q -o "$TMP/cmp-fewer.json"
expect_rc 1 "compare with a benchmark missing from B"
checks=$((checks + 1))
python3 "$HERE/validate_report.py" --strict "$DOCS/compare.schema.json" "$TMP/cmp-fewer.json" \
	>"$TMP/val" 2>&1 || fail "compare, B incomplete: $(cat "$TMP/val")"
checks=$((checks + 1))
[ "$(json_get "$TMP/cmp-fewer.json" '["incomplete"][0]["kind"]')" = benchmark ] ||
	fail "compare, B incomplete: no incomplete[] entry"

# ---- an error report in HTML ----
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["benchmarks"]=[]
d["run"]["status"]="error"; d["run"]["exit_code"]=3
d["run"]["reason"]="no NVIDIA driver found"
d["verdict"]={"status":"error","exit_code":3,"failed":[],"warnings":[]}
json.dump(d, open(sys.argv[2], "w"))' "$DATA/base.json" "$TMP/error.json"
run "$BIN" report "$TMP/error.json" --format html
expect_rc 0 "report --format html of an error report"
expect_not 'every check passed' "$out" "html of an error report"
expect_out 'no NVIDIA driver found' "html of an error report: the reason"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["run"].pop("reason")
json.dump(d, open(sys.argv[1], "w"))' "$TMP/error.json"
run "$BIN" report "$TMP/error.json" --format html
expect_not 'every check passed' "$out" "html of an error report without a reason"
expect_out 'could not be completed' "html of an error report without a reason"
run "$BIN" report "$DATA/base.json" --format html
expect_out 'every check passed' "html of a passed report"

# ---- a fleet: one verdict, once ----
python3 - "$DATA/base.json" "$DATA/regressed.json" "$TMP" <<'EOF'
import json, sys
for i, (src, host) in enumerate(((sys.argv[1], "node-a"), (sys.argv[2], "node-b"))):
    d = json.load(open(src))
    d["run"]["hostname"] = d["host"]["hostname"] = host
    for dev in d["devices"]:
        dev["uuid"] = "GPU-%d-%d" % (i, dev["index"])
    if i == 1:  # node-b's GPU fails a check: the fleet's verdict is failed
        b = d["benchmarks"][0]
        b["status"] = "failed"
        b["checks"].append({"name": "mismatches", "device": 0, "status": "failed",
                            "severity": "error", "observed": 3, "threshold": 0,
                            "message": "3 mismatches on GPU 0"})
        d.pop("verdict", None)
    json.dump(d, open("%s/%s.json" % (sys.argv[3], host), "w"))
EOF
run "$BIN" report --merge "$TMP/node-a.json" "$TMP/node-b.json" -o "$TMP/fleet.json"
expect_rc 1 "report --merge with a failed node"
run "$BIN" report "$TMP/fleet.json"
expect_rc 0 "report of a fleet"
expect_out 'verdict: failed' "fleet text: the verdict"
checks=$((checks + 1))
[ "$(printf '%s\n' "$out" | grep -c '^verdict: ')" = 1 ] || fail "fleet text: not one verdict line"
expect_not '^fleet: (passed|failed|warning|error)' "$out" "fleet text: a second verdict"
# a fleet-wide finding is listed under "fleet checks", still with one verdict
run "$BIN" report --merge "$TMP/node-a.json" "$TMP/node-b.json" "$TMP/node-a.json" \
	-o "$TMP/fleet-dup.json"
run "$BIN" report "$TMP/fleet-dup.json"
expect_out 'fleet checks' "fleet text with a duplicate node: the fleet's checks"
checks=$((checks + 1))
[ "$(printf '%s\n' "$out" | grep -c '^verdict: ')" = 1 ] ||
	fail "fleet text with a duplicate node: not one verdict line"
expect_not '^fleet: ' "$out" "fleet text with a duplicate node: a second verdict"

[ "${skipped:-0}" = 1 ] && echo "note: the threshold runs without a GPU were skipped (GPU present)"
finish
