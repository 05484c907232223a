#!/usr/bin/env bash
# gpubench compare on saved report pairs (tests/data): exit 0 without a
# regression (noise, improvement, other GPU models), 1 on a regression or when
# B lacks what A measured (a benchmark, a metric, a GPU; issue 19 item 2), 2 on
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
# tflops_bf16 and pct_of_max_clock_peak_bf16 made from it, on 2 GPUs (the share of the
# observed clock's peak is an observation: telemetry, never gated)
expect_out "4 regressions" "the summary counts regressions"
expect_out "^  gemm tflops_bf16 on GPU 1: 16.95 -> 15.27 TFLOP/s \(-9.9%\)$" \
	"the regressions listed again, each naming the metric and the GPU"

run "$BIN" compare base.json noisy.json
expect_rc 0 "7% down but within the runs' spread"

run "$BIN" compare base.json improved.json
expect_rc 1 "a metric A measured and B lacks fails the gate"
expect_out "improvement" "improvements listed"
expect_out "only_a" "metrics missing in B listed"
expect_out "only_b" "new metrics listed"
expect_out "bandwidth in B lacks 2 metrics A measured: d2h_ce_pinned_gbps \(GPU 0\), d2h_ce_pinned_gbps \(GPU 1\)" \
	"the missing metrics named"
run "$BIN" compare base.json improved.json --allow-missing
expect_rc 0 "improvements and one-sided metrics, --allow-missing: listed, not failed"

run "$BIN" compare base.json regressed.json --tolerance 15%
expect_rc 0 "a global tolerance above the change"
run "$BIN" compare base.json regressed.json --metric-tolerance 'h2d_*=1%,*_bf16=12%'
expect_rc 0 "a per-metric tolerance above the change"
run "$BIN" compare base.json regressed.json --metric-tolerance 'tflops_fp32=12%'
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
assert d["summary"]["regression"] == 4 and d["exit_code"] == 1
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
expect_out "^benchmark,metric,device_model,device_a,device_b,params,unit,a,b,ratio" "csv header"
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
run "$BIN" compare base.json regressed.json --format yaml
expect_rc 2 "an unknown format"

# junit, prometheus and html: a CI test report, node_exporter gauges, one page
run "$BIN" compare base.json regressed.json --format junit
expect_rc 1 "junit keeps the exit code"
checks=$((checks + 1))
printf '%s' "$out" | python3 -c '
import sys, xml.dom.minidom
d = xml.dom.minidom.parseString(sys.stdin.buffer.read())
cases = d.getElementsByTagName("testcase")
fails = [c for c in cases if c.getElementsByTagName("failure")]
assert len(cases) == 128 and len(fails) == 4, (len(cases), len(fails))
assert all("_bf16 " in c.getAttribute("name") for c in fails)
' || fail "compare --format junit: one test case per metric, a failure per regression"
run "$BIN" compare base.json regressed.json --format prometheus
expect_rc 1 "prometheus keeps the exit code"
expect_out '^gpubench_compare_failed\{simulated="true"\} 1$' "prometheus gate gauge"
expect_out '^gpubench_compare_regression\{benchmark="gemm",metric="tflops_bf16",device="0".*\} 1$' \
	"prometheus regression gauge"
run "$BIN" compare base.json regressed.json --format html
expect_rc 1 "html keeps the exit code"
expect_out "^<!DOCTYPE html>" "html page"
expect_out "<tr class=\"regression\">" "html marks the regressed rows"

# ---- never fail open: B could not run what A measured ----
# b_error: gemm could not run; b_int: interrupted after gemm (bandwidth missing);
# b_skip: bandwidth skipped; b_nogpu: no driver at all; b_metric: a metric
# dropped from a benchmark that ran; b_nogemm: the whole gemm benchmark absent
# from a B that finished; b_onegpu: GPU 1 gone (2 -> 1) from a_two, base as a
# node of the 2 GPUs it measured; b_hidden: base's node with GPU 1 hidden
# (CUDA indexes 2..7 become 1..6: compare pairs the GPUs by UUID, so GPU 1 is
# the one missing, not GPU 7); b_upgrade: base after a driver and cuBLASLt
# upgrade, by a gpubench that words gemm's rotation differently
python3 - base.json "$TMP" <<'PY'
import json, sys
base = json.load(open(sys.argv[1]))
out = sys.argv[2]
def save(name, d):
    json.dump(d, open("%s/%s.json" % (out, name), "w"))
d = json.loads(json.dumps(base))
d["benchmarks"][0].update(status="error", reason="cudaErrorMemoryAllocation", metrics=[])
save("b_error", d)
d = json.loads(json.dumps(base))
d["run"].update(status="interrupted", reason="stopped by SIGINT")
del d["benchmarks"][1]
save("b_int", d)
d = json.loads(json.dumps(base))
d["benchmarks"][1].update(status="skipped", reason="no pinned memory", metrics=[])
save("b_skip", d)
d = json.loads(json.dumps(base))
d["run"].update(status="error", reason="no NVIDIA driver")
d["devices"], d["benchmarks"] = [], []
save("b_nogpu", d)
d = json.loads(json.dumps(base))
d["benchmarks"][1]["metrics"] = [m for m in d["benchmarks"][1]["metrics"] if m["name"] != "d2h_ce_pinned_gbps"]
save("b_metric", d)
d = json.loads(json.dumps(base))
del d["benchmarks"][0]
save("b_nogemm", d)
d = json.loads(json.dumps(base))
d["devices"] = [g for g in d["devices"] if g["index"] in (0, 1)]
d["topology"] = [t for t in d["topology"] if t["a"] in (0, 1) and t["b"] in (0, 1)]
d["telemetry"] = [t for t in d["telemetry"] if t["device"] in (0, 1)]
save("a_two", d)
d["devices"] = [g for g in d["devices"] if g["index"] != 1]
d["topology"] = []
for b in d["benchmarks"]:
    b["metrics"] = [m for m in b["metrics"] if m["device"] != 1]
    b["devices"] = [0]
save("b_onegpu", d)
d = json.loads(json.dumps(base))
d["devices"] = [g for g in d["devices"] if g["index"] != 1]
for g in d["devices"]:
    g["index"] -= g["index"] > 1
d["topology"], d["telemetry"] = [], []
for b in d["benchmarks"]:
    b["metrics"] = [m for m in b["metrics"] if m["device"] != 1]
    b["devices"] = [0]
save("b_hidden", d)
d = json.loads(json.dumps(base))
d["host"]["driver_version"] = "590.44.01"
for b in d["benchmarks"]:
    if b["name"] == "gemm":
        b["params"]["cublaslt_version"] = "13.2.0"
        b["params"]["rotation"] = "a newer gpubench's words for its rotation"
save("b_upgrade", d)
PY
run "$BIN" compare base.json "$TMP/b_error.json"
expect_rc 1 "a benchmark that errored in B fails the gate"
expect_out "gemm did not run in B \(error: cudaErrorMemoryAllocation\); A measured 24 metrics" \
	"the reason in the output"
expect_out "result: failed \(B incomplete\)" "the result line"
expect_out "only_a" "its metrics are still listed"
expect_one_error "^gpubench: warning: B incomplete: gemm did not run in B" "one warning line"
run "$BIN" compare base.json "$TMP/b_error.json" --allow-missing
expect_rc 0 "--allow-missing keeps the lenient behaviour"
expect_out "listed, not failed: --allow-missing" "still listed"
expect_one_error "allowed by --allow-missing" "still warned"
run "$BIN" compare base.json "$TMP/b_int.json"
expect_rc 1 "an interrupted B fails the gate"
expect_out "B's run ended early \(interrupted: stopped by SIGINT\)" "the run's status"
expect_out "bandwidth is missing from B, whose run ended interrupted" "the missing benchmark"
run "$BIN" compare base.json "$TMP/b_skip.json"
expect_rc 1 "a benchmark skipped in B fails the gate"
expect_out "bandwidth did not run in B \(skipped: no pinned memory\)" "the skip reason"
run "$BIN" compare base.json "$TMP/b_nogpu.json"
expect_rc 1 "a B without a GPU fails the gate, not 'nothing in common'"
expect_out "B's run ended early \(error: no NVIDIA driver\)" "the no-GPU reason"
run "$BIN" compare base.json "$TMP/b_nogpu.json" --allow-missing
expect_rc 2 "with --allow-missing, nothing in common is bad input"
run "$BIN" compare base.json "$TMP/b_metric.json"
expect_rc 1 "a metric dropped from a benchmark that ran fails the gate"
expect_out "only_a" "the dropped metric is listed"
expect_one_error "^gpubench: warning: B incomplete: bandwidth in B lacks 2 metrics A measured" \
	"one warning line for the dropped metric"
run "$BIN" compare base.json "$TMP/b_metric.json" --allow-missing
expect_rc 0 "a dropped metric with --allow-missing"
run "$BIN" compare base.json base.json
checks=$((checks + 1))
[ -z "$err" ] || fail "no warning for a complete B: $err"
# the issue's two fail-open cases: the whole gemm benchmark gone, a GPU gone
run "$BIN" compare base.json "$TMP/b_nogemm.json"
expect_rc 1 "gemm missing from a B that finished fails the gate"
expect_one_error "^gpubench: warning: B incomplete: gemm is missing from B; A measured 24 metrics$" \
	"one line for the missing benchmark"
expect_out "result: failed \(B incomplete\)" "the result line of a missing benchmark"
run "$BIN" compare base.json "$TMP/b_nogemm.json" --allow-missing
expect_rc 0 "a missing benchmark with --allow-missing"
run "$BIN" compare "$TMP/b_nogemm.json" base.json
expect_rc 0 "a benchmark only B has is listed, not failed"
run "$BIN" compare "$TMP/a_two.json" "$TMP/b_onegpu.json"
expect_rc 1 "a GPU gone from B (2 -> 1) fails the gate"
expect_one_error "^gpubench: warning: B incomplete: GPU 1 \(NVIDIA H100 80GB HBM3\) of A is missing from B; A measured 64 metrics on it$" \
	"one line for the missing GPU, covering its metrics"
run "$BIN" compare "$TMP/a_two.json" "$TMP/b_onegpu.json" --allow-missing
expect_rc 0 "a missing GPU with --allow-missing"
run "$BIN" compare "$TMP/a_two.json" "$TMP/b_onegpu.json" --format json -q -o "$TMP/gpu.json"
checks=$((checks + 1))
python3 - "$TMP/gpu.json" <<'PY' || fail "the missing-GPU compare document"
import json, sys
d = json.load(open(sys.argv[1]))
inc = d["incomplete"]
assert d["exit_code"] == 1 and len(inc) == 1, inc
assert inc[0]["kind"] == "gpu" and inc[0]["device"] == 1 and inc[0]["benchmark"] is None
assert inc[0]["metrics_a"] == 64
PY
run "$BIN" compare base.json "$TMP/b_hidden.json"
expect_rc 1 "a GPU hidden from B fails the gate"
expect_one_error "^gpubench: warning: B incomplete: GPU 1 \(NVIDIA H100 80GB HBM3\) of A is missing from B; A measured 64 metrics on it$" \
	"the hidden GPU is the one missing (paired by UUID), not the last"
run "$BIN" compare base.json "$TMP/b_upgrade.json"
expect_rc 0 "a driver and cuBLASLt upgrade: the same metrics, compared"
expect_out "^software changed: driver 580.65.06 -> 590.44.01$" "the upgrade named"
run "$BIN" compare base.json "$TMP/b_upgrade.json" --format json -q -o "$TMP/upgrade.json"
checks=$((checks + 1))
python3 - "$TMP/upgrade.json" <<'PY' || fail "the upgrade compare document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["incomplete"] == [] and d["summary"]["only_a"] == 0 and d["summary"]["only_b"] == 0, d["summary"]
assert d["software_changes"] == [{"name": "driver", "a": "580.65.06", "b": "590.44.01"}], d["software_changes"]
PY
run "$BIN" compare base.json "$TMP/b_error.json" --format json -q -o "$TMP/inc.json"
expect_rc 1 "-q keeps the incomplete exit code"
checks=$((checks + 1))
python3 - "$TMP/inc.json" <<'PY' || fail "the incomplete compare document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "failed" and d["exit_code"] == 1 and d["regressed"] is False
inc = d["incomplete"]
assert len(inc) == 1 and inc[0]["benchmark"] == "gemm" and inc[0]["status"] == "error"
assert inc[0]["kind"] == "not_run" and inc[0]["device"] is None
assert inc[0]["metrics_a"] == 24
PY
run "$BIN" compare base.json "$TMP/b_error.json" --format junit
expect_rc 1 "junit of an incomplete B"
expect_out '<testcase classname="gemm" name="complete in B"' "junit case for the missing benchmark"

finish
