#!/usr/bin/env bash
# scripts/compare-torch-matmul.py (issue 3's 1% goal) against a fake PyTorch
# (tests/data/fake_torch) and a fake gpubench, so no GPU is needed: the ratio
# and the exit code follow the two rates in both directions, the two sides
# take turns going first, a precision PyTorch lacks is reported and not
# passed, and a gpubench that cannot run is exit 3.
# shellcheck source=tests/cli/lib.sh disable=SC1091,SC2154 # rc, out, err come from lib.sh
. "$(dirname "$0")/lib.sh"
SCRIPT="$HERE/../../scripts/compare-torch-matmul.py"
FAKE_TORCH="$HERE/../data/fake_torch"
ORDER="$TMP/order"

# a gpubench that logs its turn and reports FAKE_GB_TFLOPS for the precision
# it was asked for (or exits FAKE_GB_EXIT)
cat >"$TMP/gpubench" <<'SH'
#!/usr/bin/env bash
prec=
while [ $# -gt 0 ]; do
	[ "$1" = --precision ] && prec=$2
	shift
done
echo "gpubench $prec" >>"$FAKE_ORDER_LOG"
if [ "${FAKE_GB_EXIT:-0}" -ne 0 ]; then
	echo "gpubench: error: no NVIDIA driver found" >&2
	exit "$FAKE_GB_EXIT"
fi
cat <<JSON
{"schema": "gpubench.report/1", "verdict": {"status": "passed"},
 "benchmarks": [{"name": "gemm", "metrics": [
   {"name": "tflops_$prec", "device": 0, "value": $FAKE_GB_TFLOPS}]}]}
JSON
SH
chmod +x "$TMP/gpubench"

# compare GB_TFLOPS TORCH_TFLOPS ARGS...: run the script; sets rc, out, err
compare() {
	local ours=$1 theirs=$2
	shift 2
	rm -f "$ORDER"
	run env PYTHONPATH="$FAKE_TORCH" FAKE_ORDER_LOG="$ORDER" FAKE_GB_TFLOPS="$ours" \
		FAKE_TORCH_TFLOPS="$theirs" python3 "$SCRIPT" --gpubench "$TMP/gpubench" \
		--size 1024 --samples 3 --warmup-s 0 -o "$TMP/summary.json" "$@"
}

# equal rates: within 1%, ratio 1.000, exit 0
compare 100 100 --precision bf16,fp16
expect_rc 0 "equal rates"
expect_out "^bf16 +100.0 +100.0 +1.000" "equal rates: bf16 row"
checks=$((checks + 1))
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][1]["ratio"]
sys.exit(r is None or abs(r - 1) > 1e-6)' "$TMP/summary.json" ||
	fail "equal rates: fp16 ratio in the summary"
checks=$((checks + 1))
[ "$(json_get "$TMP/summary.json" '["rows"][0]["gpubench_rounds"]')" = "[100, 100]" ] ||
	fail "equal rates: two gpubench rounds expected"

# the sides take turns going first, one precision at a time
checks=$((checks + 1))
want=$(printf '%s\n' "gpubench bf16" torch torch "gpubench bf16" "gpubench fp16" torch torch \
	"gpubench fp16")
[ "$(cat "$ORDER")" = "$want" ] || fail "order of the measurements: $(tr '\n' ' ' <"$ORDER")"

# 2% below torch fails a 1% goal, passes a 3% one
compare 98 100 --precision bf16
expect_rc 1 "2% below torch, 1% tolerance"
expect_out "below torch by more than 1%" "2% below: note"
compare 98 100 --precision bf16 --tolerance 3%
expect_rc 0 "2% below torch, 3% tolerance"
# faster than torch is fine
compare 120 100 --precision fp32 --rounds 3
expect_rc 0 "faster than torch"
checks=$((checks + 1))
[ "$(grep -c gpubench "$ORDER")" = 3 ] || fail "--rounds 3: $(tr '\n' ' ' <"$ORDER")"

# a precision this PyTorch lacks: reported, no ratio, never counted as a pass of it
run env PYTHONPATH="$FAKE_TORCH" FAKE_TORCH_NO_FP8=1 FAKE_ORDER_LOG="$ORDER" FAKE_GB_TFLOPS=500 \
	python3 "$SCRIPT" --gpubench "$TMP/gpubench" --size 1024 --samples 3 --warmup-s 0 \
	--precision fp8 -o "$TMP/summary.json"
expect_rc 0 "fp8 without torch._scaled_mm"
expect_out "this PyTorch has no torch._scaled_mm" "fp8 without torch: note"
checks=$((checks + 1))
[ "$(json_get "$TMP/summary.json" '["rows"][0]["ratio"]')" = None ] ||
	fail "fp8 without torch: a ratio was given"

# gpubench cannot run: exit 3, one error line
FAKE_GB_EXIT=3 compare 100 100 --precision bf16
expect_rc 3 "gpubench exit 3"
expect_one_error "^compare-torch-matmul: error: gpubench exited 3" "gpubench exit 3: message"

# bad input: exit 2
compare 100 100 --tolerance abc
expect_rc 2 "bad --tolerance"
compare 100 100 --rounds 0
expect_rc 2 "--rounds 0"

# no PyTorch at all: exit 3 (only where the real one is not installed)
if ! python3 -c 'import torch' 2>/dev/null; then
	run python3 "$SCRIPT" --gpubench "$TMP/gpubench"
	expect_rc 3 "no PyTorch"
	expect_one_error "PyTorch is not installed" "no PyTorch: message"
fi

finish
