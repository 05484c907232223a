#!/usr/bin/env bash
# `gpubench gemm` on the command line: --help works anywhere, bad options
# are one line and exit 2 before anything runs, and without a GPU the run is
# one line, exit 3, and a report whose run.status is "error".
. "$(dirname "$0")/lib.sh"
set -u

run "$BIN" gemm --help
expect_rc 0 "gemm --help"
expect_out "usage: gpubench gemm" "gemm --help prints usage"
for opt in --precision --size --m --n --k --iters --duration --warmup --samples --search \
	--verify --impl --seed; do
	expect_out "$opt" "gemm --help lists $opt"
done
expect_out "fp16acc16" "gemm --help lists the precisions"
checks=$((checks + 1))
if printf '%s' "$out" | grep -q -- "--inject-fault"; then
	fail "gemm --help shows the hidden test option --inject-fault"
fi

# bad input: exit 2, one line naming the option or the value
run "$BIN" gemm --precision fp7
expect_rc 2 "unknown precision"
expect_one_error "fp7" "unknown precision message"
run "$BIN" gemm --size 0
expect_rc 2 "size 0"
expect_one_error "--size" "size 0 message"
run "$BIN" gemm --samples 2
expect_rc 2 "fewer than 5 samples"
expect_one_error "--samples" "samples message"
run "$BIN" gemm --m 1:0:1
expect_rc 2 "range start above stop"
expect_one_error "--m" "range message"
run "$BIN" gemm --warmup 5
expect_rc 2 "duration without a unit"
expect_one_error "--warmup" "duration without a unit message"
run "$BIN" gemm --precision fp8 --size 1000
expect_rc 2 "fp8 at a size that is not a multiple of 16"
expect_one_error "fp8 needs m, n and k to be multiples of 16" "fp8 alignment message"
run "$BIN" gemm --search --precision bf16,fp16
expect_rc 2 "search with two precisions"
expect_one_error "--search" "search message"
run "$BIN" gemm --impl magic
expect_rc 2 "unknown implementation"
expect_one_error "magic" "unknown implementation message"

report="$TMP/gemm.json"
if have_gpu; then
	# a quick real run: exit 0 (passed) or 1 (a finding), never a crash
	run "$BIN" gemm --size 256 --precision fp32 --warmup 0s --duration 20ms -q -o "$report"
	checks=$((checks + 1))
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "gemm on a GPU: exit $rc: $err"
	checks=$((checks + 1))
	if [ -f "$report" ]; then
		st=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["benchmarks"][0]["status"])' "$report")
		[ "$st" = "passed" ] || [ "$st" = "failed" ] || fail "gemm on a GPU: benchmark status $st"
	else
		fail "gemm on a GPU: no report written"
	fi
else
	run "$BIN" gemm --size 256
	expect_rc 3 "gemm without a GPU"
	expect_one_error "no NVIDIA driver found|driver too old|no CUDA-capable GPU|no GPU" \
		"gemm without a GPU message"
	run "$BIN" gemm --size 256 -o "$report"
	expect_rc 3 "gemm without a GPU, with a report"
	checks=$((checks + 1))
	if [ ! -f "$report" ]; then
		fail "gemm: no report written on could-not-run"
	else
		st=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["run"]["status"])' "$report")
		[ "$st" = "error" ] || fail "gemm: run.status is '$st', expected 'error'"
	fi
fi

finish
