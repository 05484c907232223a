#!/usr/bin/env bash
# gpubench compare on saved report pairs (tests/data): exit 0 without a
# regression (noise, improvement, other GPU models), 1 on a regression, 2 on
# bad input (not a report, a newer schema, nothing in common, bad options).
. "$(dirname "$0")/lib.sh"
DATA=${GPUBENCH_TEST_DATA:?GPUBENCH_TEST_DATA must point at tests/data}
cd "$DATA" || exit 1

run "$BIN" compare base.json base.json
expect_rc 0 "a report against itself"
expect_out "result: passed" "a report against itself passes"

run "$BIN" compare base.json regressed.json
expect_rc 1 "a 10% bf16 regression"
expect_out "tflops_bf16 \(TFLOP/s\) +0 NVIDIA H100 80GB HBM3 .* regression" "the regressed row"
expect_out "2 regressions" "the summary counts regressions"

run "$BIN" compare base.json noisy.json
expect_rc 0 "7% down but within the runs' spread"

run "$BIN" compare base.json improved.json
expect_rc 0 "improvements and one-sided metrics are listed, not failed"
expect_out "improvement" "improvements listed"
expect_out "only_a" "metrics missing in B listed"
expect_out "only_b" "new metrics listed"

run "$BIN" compare base.json regressed.json --tolerance 15%
expect_rc 0 "a global tolerance above the change"
run "$BIN" compare base.json regressed.json --metric-tolerance 'h2d_*=1%,tflops_bf16=12%'
expect_rc 0 "a per-metric tolerance above the change"
run "$BIN" compare base.json regressed.json --metric-tolerance 'tflops_fp16=12%'
expect_rc 1 "a per-metric tolerance for another metric"

run "$BIN" compare base.json other_model.json --price 2.5,0.4
expect_rc 0 "other GPU models are compared side by side, not gated"
expect_out "different GPU models" "the cross-model header"
expect_out "% peak A" "efficiency columns"
expect_out "per \\$ B" "per-dollar columns"

# every output format, and the JSON document
run "$BIN" compare base.json regressed.json --format json -o "$TMP/cmp.json"
expect_rc 1 "json output keeps the exit code"
checks=$((checks + 1))
if ! python3 - "$TMP/cmp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpubench.compare/1"
assert d["summary"]["regression"] == 2 and d["exit_code"] == 1
assert any(r["metric"] == "tflops_bf16" and r["class"] == "regression" for r in d["rows"])
PY
then
	fail "the -o compare document"
fi
checks=$((checks + 1))
if ! printf '%s' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)'; then
	fail "--format json is JSON"
fi
run "$BIN" compare base.json regressed.json --format markdown
expect_out "^## .* gpubench compare: regression" "markdown heading"
run "$BIN" compare base.json regressed.json --format csv
expect_out "^benchmark,metric,device_model,params,unit,a,b,ratio" "csv header"
run "$BIN" compare base.json regressed.json -q
expect_rc 1 "-q keeps the exit code"
checks=$((checks + 1))
[ -z "$out" ] || fail "-q prints nothing"

# bad input: one line, exit 2
printf '{"hello": "world"}\n' >"$TMP/not_report.json"
run "$BIN" compare base.json "$TMP/not_report.json"
expect_rc 2 "a file that is not a gpubench report"
expect_one_error "not_report.json' is not a gpubench report" "not a report message"

python3 - base.json "$TMP/newer.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["schema"] = "gpubench.report/2"
json.dump(d, open(sys.argv[2], "w"))
PY
run "$BIN" compare "$TMP/newer.json" base.json
expect_rc 2 "a newer schema"
expect_one_error "newer than this gpubench understands" "newer schema message"

python3 - base.json "$TMP/other.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    b["name"] = "p2p_" + b["name"]
json.dump(d, open(sys.argv[2], "w"))
PY
run "$BIN" compare base.json "$TMP/other.json"
expect_rc 2 "nothing in common"
expect_one_error "^gpubench: error: 'base.json' and '.*other.json' have no metric in common$" \
	"nothing in common message"

printf 'not json\n' >"$TMP/garbage.json"
run "$BIN" compare base.json "$TMP/garbage.json"
expect_rc 2 "not JSON"
run "$BIN" compare base.json "$TMP/missing.json"
expect_rc 2 "a missing file"
expect_one_error "missing.json" "missing file message names it"
run "$BIN" compare base.json
expect_rc 2 "one report"
run "$BIN" compare base.json regressed.json --tolerance 5
expect_rc 2 "a tolerance without a percent sign"
run "$BIN" compare base.json regressed.json --metric-tolerance 'tflops_*'
expect_rc 2 "a malformed per-metric tolerance"
expect_one_error "tflops_\*" "per-metric tolerance message names the entry"
run "$BIN" compare base.json regressed.json --price x,1
expect_rc 2 "a malformed price"
run "$BIN" compare base.json regressed.json --format html
expect_rc 2 "html is not a compare format"

finish
