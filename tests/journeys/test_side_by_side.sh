#!/usr/bin/env bash
# Journey: two nodes side by side (issue 26). A user runs the suite on an A100 node
# and on an RTX 4090 workstation and compares them with prices:
#   gpubench compare a100.json rtx4090.json --price 1.8,0.4 [--format F]
# Different models are a comparison, not a failed gate: exit 0 in every format,
# one row per GPU with its index, per watt and per dollar for throughput only
# (the dollars from the reports' own numbers and the prices), what the 4090
# cannot measure (peer copies: it has no peer access) "not applicable", never
# "incomplete", and the same words in every format.
. "$(dirname "$0")/lib_journey.sh"
cd "$TMP" || exit 1

machine 2x-a100-nvlink a100-node.json
machine 2x-rtx4090-pcie rtx4090-node.json
GPUBENCH_SIM_MACHINE=a100-node.json gpubench run --profile quick --stress-duration 1s -o a100.json
expect_rc_in "0 1" "run on the A100 node"
GPUBENCH_SIM_MACHINE=rtx4090-node.json gpubench run --profile quick --stress-duration 1s \
	-o rtx4090.json
expect_rc_in "0 1" "run on the RTX 4090 node"

for f in text markdown csv json junit prometheus html; do
	gpubench compare a100.json rtx4090.json --price 1.8,0.4 --format "$f"
	expect_rc 0 "side by side, --format $f"
	printf '%s\n' "$out" >"cmp.$f"
	checks=$((checks + 1))
	grep -qi "incomplete" "cmp.$f" && [ "$f" != json ] && [ "$f" != prometheus ] &&
		fail "--format $f says incomplete"
	checks=$((checks + 1))
	grep -qiE "[0-9]+ regressions?" "cmp.$f" && fail "--format $f counts regressions across models"
done
checks=$((checks + 1))
[ -z "$err" ] || fail "side by side warns: $err"
checks=$((checks + 1))
python3 "$HERE/validate_report.py" --strict "$HERE/../../docs/compare.schema.json" cmp.json \
	>val.txt 2>&1 || fail "the compare document does not validate: $(cat val.txt)"

# every format from the same comparison: the JSON document says what the others show
checks=$((checks + 1))
python3 - a100.json rtx4090.json cmp.json cmp.csv cmp.text cmp.markdown cmp.html <<'PY' || fail "side by side"
import csv, io, json, math, re, sys
ra, rb, doc = (json.load(open(p)) for p in sys.argv[1:4])
csv_rows = list(csv.DictReader(io.StringIO(open(sys.argv[4], newline="").read())))
text, md, html = (open(p).read() for p in sys.argv[5:8])

def human(v):  # report/formats.c gb_fmt_human
    a = abs(v)
    if a == 0: return "0"
    if a >= 1e6 or a < 1e-3: return "%.3e" % v
    if a >= 1000 or v == math.floor(v): return "%.0f" % v
    if a >= 100: return "%.1f" % v
    if a >= 10: return "%.2f" % v
    return "%.4g" % v

def cls(va, vb):  # what compare calls the row across models (its 5% tolerance)
    ch = (vb - va) / abs(va)
    return "b_better" if ch > 0.05 else "b_worse" if ch < -0.05 else "unchanged"

def value(r, bench, metric, dev):
    return next(m["value"] for b in r["benchmarks"] if b["name"] == bench
                for m in b["metrics"] if m["name"] == metric and m["device"] == dev)

assert doc["mode"] == "different_models" and doc["exit_code"] == 0, doc["status"]
assert doc["incomplete"] == [], doc["incomplete"]
assert doc["result"] == "passed (side by side, not gated)", doc["result"]
# per GPU: GPU 0 of A against GPU 0 of B, GPU 1 against GPU 1
for dev in (0, 1):
    row = next(r for r in doc["rows"] if r["benchmark"] == "gemm" and r["metric"] == "tflops_bf16"
               and r["a"]["device"] == dev)
    assert row["b"]["device"] == dev, row
    va, vb = value(ra, "gemm", "tflops_bf16", dev), value(rb, "gemm", "tflops_bf16", dev)
    assert row["a"]["value"] == va and row["b"]["value"] == vb
    # per dollar: the report's own value over the price of the GPU-hour
    assert abs(row["a"]["per_dollar"] - va / 1.8) < 1e-9 * va, row["a"]
    assert abs(row["b"]["per_dollar"] - vb / 0.4) < 1e-9 * vb, row["b"]
    c = next(r for r in csv_rows if r["benchmark"] == "gemm" and r["metric"] == "tflops_bf16"
             and r["device_a"] == str(dev))
    assert c["device_b"] == str(dev) and c["class"] == cls(va, vb), c
    assert abs(float(c["per_dollar_a"]) - va / 1.8) < 1e-9 * va
    assert abs(float(c["per_dollar_b"]) - vb / 0.4) < 1e-9 * vb
    # text and Markdown: the row with the GPU's index and the same per-dollar figures
    cells = [human(va), human(vb)]
    pat = r"gemm +tflops_bf16 \(TFLOP/s\) +%d +%s +%s .* %s +%s +%s" % (
        dev, re.escape(cells[0]), re.escape(cells[1]), re.escape(human(va / 1.8)),
        re.escape(human(vb / 0.4)), cls(va, vb))
    assert re.search(pat, text), pat
    assert "| gemm | tflops_bf16 (TFLOP/s) | %d | %s | %s |" % (dev, cells[0], cells[1]) in md
    assert '<td class="gpu">%d NVIDIA A100-SXM4-80GB / NVIDIA GeForce RTX 4090</td>' % dev in html
# scaling side by side: each node's speedup on its two GPUs, in one row
sp = next(r for r in doc["rows"] if r["benchmark"] == "scaling" and r["metric"] == "speedup_n2")
assert sp["a"]["value"] == value(ra, "scaling", "speedup_n2", None), sp
assert sp["b"]["value"] == value(rb, "scaling", "speedup_n2", None), sp
assert re.search(r"scaling +speedup_n2 \(x\) +all ", text)
# never per watt or per dollar for a clock, a percentage or a count
for r in doc["rows"]:
    if r["unit"] in ("MHz", "%", "count", "x", "C", "W"):
        for s in ("a", "b"):
            assert r[s]["per_watt"] is None and r[s]["per_dollar"] is None, r
# the 4090 has no peer access: its peer copies are staged through the host, so the
# A100's peer metrics have no counterpart; listed as not applicable, on B's side
na = doc["not_applicable"]
assert any(n["benchmark"] == "p2p" and n["side"] == "b" for n in na), na
assert "Not applicable (other hardware; listed, not failed):" in text
assert "### Not applicable (other hardware; listed, not failed)" in md
assert "Not applicable (other hardware; listed, not failed)" in html
# the same words everywhere: the summary line of text is the one of Markdown and HTML
summary = next(l for l in text.splitlines() if "worse in B" in l)
assert summary.endswith("; changes not gated"), summary
assert summary in md and summary in html, summary
PY
checks=$((checks + 2))
grep -q '<failure' cmp.junit && fail "junit has a failure side by side"
grep -q '^gpubench_compare_failed{simulated="true"} 0$' cmp.prometheus ||
	fail "prometheus: the comparison failed"
finish
