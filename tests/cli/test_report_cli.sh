#!/usr/bin/env bash
# gpubench report: a saved report in every format, -o picking the format from
# the extension, the fleet merge, --format on a measuring command, and
# run --thresholds rejecting a bad file before anything runs.
. "$(dirname "$0")/lib.sh"
DATA=${GPUBENCH_TEST_DATA:?GPUBENCH_TEST_DATA must point at tests/data}

for f in text json markdown csv junit prometheus html; do
	run "$BIN" report "$DATA/base.json" --format "$f"
	expect_rc 0 "report --format $f"
	checks=$((checks + 1))
	[ -n "$out" ] || fail "report --format $f printed nothing"
done

run "$BIN" report "$DATA/base.json" --format junit -o "$TMP/junit.xml"
expect_rc 0 "junit to a file"
checks=$((checks + 1))
python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$TMP/junit.xml" ||
	fail "junit output is not XML"

run "$BIN" report "$DATA/base.json" -o "$TMP/summary.md"
expect_rc 0 "format from the .md extension"
checks=$((checks + 1))
grep -q '^| benchmark | metric | GPU | value |' "$TMP/summary.md" || fail "-o x.md is markdown"

run "$BIN" report "$DATA/base.json" -o "$TMP/copy.json"
expect_rc 0 "json round trip"
validate "$TMP/copy.json"

run "$BIN" report "$DATA/base.json" --format prometheus -o "$TMP/node.prom"
checks=$((checks + 1))
# HELP and TYPE lines name a metric; any other line starting with # is a
# comment (the simulated-GPU label is one); the rest are samples
if awk '/^# (HELP|TYPE) / { if ($0 !~ /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* /) print; next }
	/^#/ { next }
	$0 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [-+0-9.eEa-zA-Z]+$/ { print }' \
	"$TMP/node.prom" | grep -q .; then
	fail "prometheus lines outside the exposition format"
fi

run "$BIN" report "$DATA/base.json" --format yaml
expect_rc 2 "an unknown format"
run "$BIN" report
expect_rc 2 "no file"
run "$BIN" report "$DATA/base.json" "$DATA/noisy.json"
expect_rc 2 "two files without --merge"
run "$BIN" report "$TMP/missing.json"
expect_rc 2 "a missing file"

# the fleet merge: one slow GPU among four nodes is an outlier that fails.
# Each node keeps the 2 GPUs base measured (its machine has 8), so the fleet
# numbers them 0-7; node-3's GPU 1 runs 30% slow.
python3 - "$DATA/base.json" "$TMP" <<'PY'
import json, sys
base = json.load(open(sys.argv[1]))
base["devices"] = [g for g in base["devices"] if g["index"] in (0, 1)]
base["topology"] = [t for t in base["topology"] if t["a"] in (0, 1) and t["b"] in (0, 1)]
base["telemetry"] = [t for t in base["telemetry"] if t["device"] in (0, 1)]
for i, slow in enumerate([0, 0, 0.30, 0]):
    d = json.loads(json.dumps(base))
    d["run"]["hostname"] = d["host"]["hostname"] = "node-%d" % (i + 1)
    for dev in d["devices"]:
        dev["uuid"] = "GPU-node%d-%d" % (i + 1, dev["index"])
    for m in d["benchmarks"][0]["metrics"]:
        if m["name"] == "tflops_bf16" and m["device"] == 1 and slow:
            m["value"] *= 1 - slow
            m["samples"] = [x * (1 - slow) for x in m["samples"]]
            for k in ("min", "p05", "median", "mean", "p95", "p99", "max", "stdev"):
                m["stats"][k] *= 1 - slow
    json.dump(d, open("%s/node%d.json" % (sys.argv[2], i + 1), "w"))
PY
run "$BIN" report --merge "$TMP"/node1.json "$TMP"/node2.json "$TMP"/node3.json "$TMP"/node4.json \
	-o "$TMP/fleet.json"
expect_rc 1 "an outlier fails the fleet"
validate "$TMP/fleet.json"
checks=$((checks + 1))
if ! python3 - "$TMP/fleet.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["run"]["command"] == "fleet"
assert len(d["devices"]) == 8
assert [n["host"] for n in d["benchmarks"][0]["extra"]["nodes"]] == ["node-1", "node-2", "node-3", "node-4"]
bad = [c for b in d["benchmarks"] for c in b["checks"] if c["status"] == "failed"]
assert len(bad) == 1 and bad[0]["device"] == 5 and "'node-3' GPU 5" in bad[0]["message"], bad
PY
then
	fail "the fleet report"
fi
# the renderings name each GPU's node and list the nodes
run "$BIN" report "$TMP/fleet.json"
expect_out "^nodes \(4\)$" "text: the node table"
expect_out "^  node-3 +.*node3.json +passed +4-5 +1 +0$" "text: node-3 has the failed check"
expect_out "^GPU 5  node-3  NVIDIA H100 80GB HBM3" "text: the GPU's node"
run "$BIN" report "$TMP/fleet.json" --format markdown
expect_out "^### Nodes" "markdown: the node table"
expect_out "\| 5 \(node-3\) \|" "markdown: the metric's node"
run "$BIN" report "$TMP/fleet.json" --format html
expect_out "<h2>Nodes</h2>" "html: the node table"
run "$BIN" report --merge "$TMP"/node1.json "$TMP"/node2.json "$TMP"/node4.json
expect_rc 0 "a fleet without outliers"
# the same node twice would count twice toward every median: merged once, with a warning
run "$BIN" report --merge "$TMP"/node1.json "$TMP"/node2.json "$TMP"/node1.json -o "$TMP/dup.json"
expect_rc 0 "the same report twice: merged once (a warning, not a failure)"
expect_one_error "^gpubench: warning: '.*node1.json' holds GPU GPU-node1-0, as '.*node1.json' does: .* so '.*node1.json' is left out$" \
	"the duplicate names both files"
checks=$((checks + 1))
python3 - "$TMP/dup.json" <<'PY' || fail "the fleet report of a repeated node"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["devices"]) == 4
assert [n["host"] for n in d["benchmarks"][0]["extra"]["nodes"]] == ["node-1", "node-2"]
assert d["verdict"]["status"] == "warning"
assert any("left out" in w for w in d["verdict"]["warnings"])
PY
python3 - "$TMP/node2.json" "$TMP/node2b.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["devices"][1]["uuid"] = "GPU-node2-other"
json.dump(d, open(sys.argv[2], "w"))
PY
run "$BIN" report --merge "$TMP"/node1.json "$TMP"/node2.json "$TMP"/node2b.json
expect_rc 0 "one GPU in two reports: the later report is left out"
expect_one_error "node2b.json' holds GPU GPU-node2-0" "the shared GPU is named"
expect_out "fleet of 2 nodes" "two nodes merged"
run "$BIN" report --merge "$TMP"/node1.json
expect_rc 2 "--merge with one report"

# --format on a measuring command: whatever the machine, the output parses
run "$BIN" info --format junit
checks=$((checks + 1))
printf '%s' "$out" | python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parseString(sys.stdin.buffer.read())' ||
	fail "info --format junit is XML"
run "$BIN" info --format html
expect_out "<svg|</html>" "info --format html is a page"

# run --thresholds: a bad file is exit 2, one line, before anything is measured
printf '{"thresholds": [{"metric": "tflops_bf16", "min_efficency": 0.8}]}\n' >"$TMP/thr.json"
run "$BIN" run --thresholds "$TMP/thr.json"
expect_rc 2 "a malformed thresholds file"
expect_one_error "thr.json': thresholds\[0\] has an unknown key 'min_efficency'" \
	"the thresholds error names the field"
run "$BIN" run --thresholds "$TMP/none.json"
expect_rc 2 "a missing thresholds file"
expect_one_error "cannot read thresholds file" "missing thresholds file message"

finish
