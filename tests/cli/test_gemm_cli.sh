#!/usr/bin/env bash
# `gpubench gemm` on the command line: --help works anywhere, bad options
# are one line and exit 2 before anything runs, and without a GPU the run is
# one line, exit 3, and a report whose run.status is "error". Options that
# are accepted (--impl cublas, --precision all with shapes FP8 and INT8
# cannot take, --repeat) get past validation: exit 3 without a GPU, a run
# with one.
. "$(dirname "$0")/lib.sh"
set -u

run "$BIN" gemm --help
expect_rc 0 "gemm --help"
expect_out "usage: gpubench gemm" "gemm --help prints usage"
for opt in --precision --size --m --n --k --iters --duration --warmup --samples --repeat \
	--search --verify --impl --seed; do
	expect_out "$opt" "gemm --help lists $opt"
done
expect_out "fp16acc16" "gemm --help lists the precisions"
expect_out "cublas\b" "gemm --help lists the cublas alias"
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
# an explicit list must fit every shape, all of fp8 and int8 named or only one
run "$BIN" gemm --precision fp8,int8 --size 1000
expect_rc 2 "fp8 and int8 named at a size that is not a multiple of 16"
expect_one_error "fp8 needs m, n and k to be multiples of 16" "explicit list message"
run "$BIN" gemm --precision bf16,int8 --m 1024 --n 1000 --k 1024
expect_rc 2 "int8 named with n = 1000"
expect_one_error "int8 needs m, n and k to be multiples of 16" "int8 alignment message"
run "$BIN" gemm --repeat 0
expect_rc 2 "repeat 0"
expect_one_error "--repeat" "repeat 0 message"
run "$BIN" gemm --search --repeat 5
expect_rc 2 "repeat with search"
expect_one_error "--repeat.*--search" "repeat with search message"

# accepted: these get past validation (exit 3 without a GPU, never 2)
if ! have_gpu; then
	for args in "--impl cublas" "--impl cublas,cublaslt" "--precision all --size 1000" \
		"--precision all --m 1024 --n 1000 --k 1024" "--repeat 5"; do
		# shellcheck disable=SC2086
		run "$BIN" gemm $args
		checks=$((checks + 1))
		[ "$rc" -ne 2 ] || fail "gemm $args: rejected as bad input: $err"
	done
	# --search with all still sweeps one precision: all is eight
	run "$BIN" gemm --search --precision all
	expect_rc 2 "search with all"
	expect_one_error "--search sweeps one precision" "search with all message"
fi

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
		# the chosen algorithm is named: tile and stages beside their ids
		checks=$((checks + 1))
		tile=$(json_get "$report" '["benchmarks"][0]["extra"]["runs"][0]["algorithm"].get("tile", "absent")')
		[ "$tile" != "absent" ] || fail "gemm on a GPU: no tile name in the algorithm"
		validate "$report"
	else
		fail "gemm on a GPU: no report written"
	fi

	# the alias runs cuBLASLt, and the report says so by its canonical name
	run "$BIN" gemm --impl cublas --size 256 --precision fp32 --warmup 0s --duration 20ms -q \
		-o "$report"
	expect_rc 0 "gemm --impl cublas on a GPU"
	checks=$((checks + 1))
	impl=$(json_get "$report" '["benchmarks"][0]["params"]["impl"]')
	[ "$impl" = "cublaslt" ] || fail "gemm --impl cublas: params.impl is '$impl'"

	# all at a size fp8 and int8 cannot take: those two skipped with a reason, the rest run
	run "$BIN" gemm --precision all --size 1000 --warmup 0s --duration 20ms --samples 5 -q \
		-o "$report"
	expect_rc 0 "gemm --precision all --size 1000 on a GPU"
	for p in fp8 int8; do
		checks=$((checks + 1))
		st=$(json_get "$report" "[[c['status'] for c in d['benchmarks'][0]['checks'] if c['name'] == 'precision_$p']]")
		[ "$st" = "['skipped']" ] ||
			fail "gemm --precision all --size 1000: precision_$p check is $st, expected skipped"
	done
	checks=$((checks + 1))
	st=$(json_get "$report" '[[m["name"] for m in d["benchmarks"][0]["metrics"] if m["name"] == "tflops_bf16"]]')
	[ "$st" = "['tflops_bf16']" ] || fail "gemm --precision all --size 1000: bf16 did not run"

	# --repeat 5: the run-to-run CV as a metric and a check (passed, or a warning)
	run "$BIN" gemm --size 1024 --precision bf16 --warmup 200ms --duration 50ms --repeat 5 -q \
		-o "$report"
	expect_rc 0 "gemm --repeat 5 on a GPU"
	checks=$((checks + 1))
	cv=$(json_get "$report" '[[c["status"] for c in d["benchmarks"][0]["checks"] if c["name"] == "run_cv_bf16"]]')
	[ "$cv" = "['passed']" ] || [ "$cv" = "['warning']" ] ||
		fail "gemm --repeat 5: run_cv_bf16 check is $cv"
	validate "$report"
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
