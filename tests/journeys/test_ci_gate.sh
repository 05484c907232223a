#!/usr/bin/env bash
# Journey: the CI gate (issue 26). A user runs the suite on a node, keeps the
# report as the baseline, runs it again after a change and compares: an
# unchanged node passes (exit 0) whatever the run-to-run noise; a node whose
# GPU 1 became 15% slower fails (exit 1), and the output names the metrics and
# GPU 1, scaling's speedup and efficiency included.
. "$(dirname "$0")/lib_journey.sh"
cd "$TMP" || exit 1

# the node: two RTX 4090; the rerun is the same node with other noise (another seed
# of the simulator's); then the same node with GPU 1 at 85% of its speed
machine 2x-rtx4090-pcie node.json "d['seed'] = 1"
machine 2x-rtx4090-pcie node-rerun.json "d['seed'] = 2"
machine 2x-rtx4090-pcie node-slow.json "d['seed'] = 3; d['gpus'][1]['speed'] = 0.85"

# $ gpubench run --profile quick -o base.json   (a healthy node passes run's own verdict
# too: its GEMM limits follow the size that fits, docs/thresholds.md)
export GPUBENCH_SIM_MACHINE=node.json
gpubench run --profile quick --stress-duration 1s -o base.json
expect_rc 0 "run on the node"
export GPUBENCH_SIM_MACHINE=node-rerun.json
gpubench run --profile quick --stress-duration 1s -o new.json
expect_rc 0 "run again on the node"

# $ gpubench compare base.json new.json
gpubench compare base.json new.json
expect_rc 0 "an unchanged node passes the gate"
expect_out "^result: passed$" "the result line"
expect_out "^[0-9]+ unchanged, [0-9]+ improvements?, 0 regressions, [0-9]+ changed \(no direction\), 0 only in A, 0 only in B$" \
	"every metric matched, none regressed"
expect_no "incomplete" "nothing is incomplete"
checks=$((checks + 1))
[ -z "$err" ] || fail "compare of an unchanged node warns: $err"
# the same in the CI formats
gpubench compare base.json new.json --format junit -o gate.xml
expect_rc 0 "junit of the unchanged node"
checks=$((checks + 1))
grep -q '<failure' gate.xml && fail "junit has a failure for an unchanged node"

export GPUBENCH_SIM_MACHINE=node-slow.json
gpubench run --profile quick --stress-duration 1s -o slow.json
expect_rc 1 "run on the node with a slow GPU 1 (15% below its peer)"

# $ gpubench compare base.json slow.json
gpubench compare base.json slow.json
expect_rc 1 "GPU 1 15% slower fails the gate"
expect_out "^result: failed \(regression\)$" "the result line names the regression"
expect_out "^Regressions \(fail the gate\):$" "the regressions listed"
# (not stress's GEMM count: a 1 s stress step is one batch of a fixed count, only its
# time and so its rate change; sim_gate_slower checks the count over many batches)
for want in "gemm tflops_bf16 on GPU 1" "gemm tflops_fp32 on GPU 1" "stress tflops on GPU 1" \
	"scaling speedup_n2 on all GPUs" "scaling efficiency_n2 on all GPUs" \
	"scaling worker_compute_ms_n2 on GPU 1"; do
	expect_out "^  $want: " "the regression '$want' named"
done
expect_no "^  [a-z0-9]+ [a-z0-9_]+ on GPU 0: " "nothing on GPU 0 regressed"
# --allow-missing excuses nothing of a regression
gpubench compare base.json slow.json --allow-missing -o gate.json
expect_rc 1 "a regression fails with --allow-missing too"
checks=$((checks + 1))
python3 - gate.json <<'PY' || fail "the compare document of the slow node"
import json, sys
d = json.load(open(sys.argv[1]))
reg = [r for r in d["rows"] if r["class"] == "regression"]
assert d["exit_code"] == 1 and d["status"] == "failed" and d["incomplete"] == [], d["status"]
assert d["summary"]["only_a"] == 0 and d["summary"]["only_b"] == 0, d["summary"]
# every regression is GPU 1's, or a metric of all GPUs; each about 15% (a 512^3 GEMM less)
assert all(r["a"]["device"] in (1, None) for r in reg), [(r["metric"], r["a"]["device"]) for r in reg]
tf = next(r for r in reg if r["metric"] == "tflops_bf16" and r["benchmark"] == "gemm")
assert -17 < tf["change_pct"] < -8, tf["change_pct"]
sp = next(r for r in reg if r["metric"] == "speedup_n2")
assert sp["b"]["value"] < sp["a"]["value"] * 0.95, (sp["a"]["value"], sp["b"]["value"])
PY
finish
