#!/usr/bin/env bash
# `gpubench theory`: the catalog and the scaling model from the command line.
# Needs no GPU: every case here runs on any machine.
. "$(dirname "$0")/lib.sh"

run "$BIN" theory --list
expect_rc 0 "theory --list"
expect_out "^key " "--list prints a header"
expect_out "h100-sxm" "--list lists h100-sxm"
expect_out "rtx4090" "--list lists rtx4090"

run "$BIN" theory --gpu h100-sxm --count 2
expect_rc 0 "theory --gpu h100-sxm --count 2"
expect_out "2× H100 SXM5 80GB over NVLink4: [0-9.]+–[0-9.]+× predicted \(ideal 2×\), [0-9.]+–[0-9.]+× without overlap" \
	"prints the predicted range and the no-overlap range"
expect_out "^without overlap +[0-9.]+–[0-9.]+×" "a row for runs without overlap"
expect_out "bf16 +989.4 / 989.4" "prints spec-sheet and computed peaks"
expect_out "nvlink4 \(default\)" "defaults to the GPU's NVLink"

run "$BIN" theory --gpu h1000
expect_rc 2 "unknown GPU"
expect_one_error "unknown GPU 'h1000'; did you mean: h100-sxm, h100-pcie, h100-nvl\?" \
	"unknown GPU suggests the close keys"

run "$BIN" theory --gpu "RTX 4090" --count 2
expect_rc 0 "a device name resolves to its catalog entry"
expect_out "rtx4090" "RTX 4090 is rtx4090"
expect_out "pcie4-nop2p \(default\)" "GeForce defaults to PCIe without P2P"
expect_out "placeholder" "the host-staged bandwidth is flagged as a placeholder"

run "$BIN" theory --gpu rtx4090 --count 0
expect_rc 2 "--count 0"
expect_one_error "--count" "--count 0 names the option"

run "$BIN" theory --gpu rtx4090 --count 65
expect_rc 2 "--count 65"

run "$BIN" theory --gpu rtx4090 --count 2 --link pcie9
expect_rc 2 "--link pcie9"
expect_one_error "invalid value 'pcie9' for --link" "--link pcie9 names the value"

run "$BIN" theory --gpu rtx4090 --count 2 --link nvlink4
expect_rc 2 "NVLink on a GPU without it"
expect_one_error "'rtx4090' has no NVLink" "NVLink on a GPU without it says so"

run "$BIN" theory
expect_rc 2 "no --gpu"
expect_one_error "--gpu NAME" "no --gpu names the option"

run "$BIN" theory --gpu t4 --step-ms 100 --step-tflop 5
expect_rc 2 "--step-ms and --step-tflop together"

run "$BIN" theory --gpu t4 --compare-link pcie3
expect_rc 2 "--compare-link without --compare"

run "$BIN" theory --gpu v100-sxm2 --price 2
expect_rc 2 "--price without a bf16 peak"
expect_one_error "no bf16 peak" "--price without a bf16 peak says which"

run "$BIN" theory --gpu a100-sxm4-80gb --count 2 --link nvlink3 --price 1.8 \
	--compare rtx4090 --compare-link pcie4-nop2p --compare-price 0.4
expect_rc 0 "two configurations side by side"
expect_out "2× A100 SXM4 80GB over NVLink3: " "first summary line"
expect_out "2× GeForce RTX 4090 over PCIe Gen4 x16 without P2P: " "second summary line"
expect_out "cost per delivered bf16 TFLOPS-hour" "--price adds the cost"

run "$BIN" theory --gpu rtx4090 --count 2 --busbw 12 --alpha-us 0 --grad-bytes 500MB \
	--step-ms 250 --overhead 2%
expect_rc 0 "the research worked example"
expect_out "1\.69–" "2x RTX 4090 at 12 GB/s: 1.69x without overlap"

# the issue's 1.8-1.9x PCIe case: delta lowers the no-overlap end only
run "$BIN" theory --gpu rtx4090 --count 2 --link pcie4 --busbw 24 --alpha-us 0 \
	--grad-bytes 500MB --step-ms 250
expect_rc 0 "PCIe Gen4 with P2P at 24 GB/s"
expect_out "over PCIe Gen4 x16 at the given busbw: 1\.81–1\.99× predicted \(ideal 2×\), 1\.81–1\.85× without overlap" \
	"1.81-1.85x without overlap, up to 1.99x with perfect overlap"

run "$BIN" theory --gpu h100-sxm --count 2 --json
expect_rc 0 "--json"
printf '%s\n' "$out" >"$TMP/theory.json"
validate "$TMP/theory.json"
checks=$((checks + 1))
if ! python3 - "$TMP/theory.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
m = {x["name"]: x["value"] for x in b["metrics"]}
assert d["run"]["command"] == "theory", d["run"]
assert d["run"]["status"] == "passed" and d["verdict"]["exit_code"] == 0
assert d["devices"] == [], d["devices"]
assert b["name"] == "theory" and b["status"] == "passed"
assert b["params"]["gpu"] == "h100-sxm" and b["params"]["count"] == 2
assert 1.9 < m["predicted_speedup_no_overlap"] <= m["predicted_speedup_no_overlap_max"]
assert m["predicted_speedup_no_overlap_max"] <= m["predicted_speedup_perfect_overlap"] <= 2
assert m["allreduce_ms"] > 0 and m["peak_tflops_bf16"] == 989.4
EOF
then
	fail "--json report content"
fi

run "$BIN" theory --gpu l40s --count 4 --price 1.2 -o "$TMP/l40s.json"
expect_rc 0 "-o"
expect_out "4× L40S over PCIe Gen4 x16" "-o still prints the text"
validate "$TMP/l40s.json"
checks=$((checks + 1))
if [ "$(json_get "$TMP/l40s.json" '["benchmarks"][0]["metrics"][-1]["name"]')" != \
	"cost_per_tflops_hour" ]; then
	fail "--price adds cost_per_tflops_hour to the report"
fi

finish
