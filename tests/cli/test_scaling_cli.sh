#!/usr/bin/env bash
# test_scaling_cli.sh - `gpubench scaling` options and the could-not-run path:
# bad options exit 2 with one line, --help exits 0 on any machine, a repeated
# GPU (--devices 0,0) is accepted, and without a GPU the command exits 3 with
# a valid report whose run.status is error. With a GPU, a short gemm run
# writes a valid report.
. "$(dirname "$0")/lib.sh"

run "$BIN" scaling --help
expect_rc 0 "scaling --help"
expect_out "--workload" "help lists --workload"
expect_out "--grad-bytes" "help lists --grad-bytes"
expect_out "0,0" "help shows two workers on one GPU"
run "$BIN" help scaling
expect_rc 0 "help scaling"
run "$BIN" help
checks=$((checks + 1))
[ "$(printf '%s\n' "$out" | grep -c '^  scaling ')" -eq 1 ] || fail "help lists scaling once: $out"

run "$BIN" scaling --grad-bytes 0
expect_rc 2 "zero gradients"
expect_one_error "--grad-bytes" "zero gradients message"
run "$BIN" scaling --step-ms -1
expect_rc 2 "negative step"
expect_one_error "--step-ms" "negative step message"
run "$BIN" scaling --step-ms 50 --step-tflop 10
expect_rc 2 "both step options"
expect_one_error "--step-ms and --step-tflop" "both step options message"
run "$BIN" scaling --workload resnet
expect_rc 2 "unknown workload"
expect_one_error "'resnet' for --workload" "unknown workload message"
run "$BIN" scaling --link infiniband
expect_rc 2 "unknown link"
expect_one_error "--link" "unknown link message"
run "$BIN" scaling --steps 1
expect_rc 2 "one step has no spread"
run "$BIN" scaling --grad-bytes 8G --bucket 1M
expect_rc 2 "too many buckets"
expect_one_error "buckets per step" "too many buckets message"
run "$BIN" scaling --devices 0,-1
expect_rc 2 "negative device"
run "$BIN" scaling -o "$TMP/no/such/dir/r.json"
expect_rc 2 "unwritable report"

report="$TMP/r.json"
if have_gpu; then
	run "$BIN" scaling --workload gemm --steps 3 --warmup-steps 1 --step-ms 5 \
		--gemm-size 1024 -q -o "$report"
	expect_rc 0 "a short gemm scaling run"
	validate "$report"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["benchmarks"][0]["name"]')" = "scaling" ] ||
		fail "the report's benchmark is not scaling"
else
	run "$BIN" scaling -o "$report"
	expect_rc 3 "no GPU"
	expect_one_error "no NVIDIA driver found|driver too old|no CUDA-capable|no GPU" "no-GPU reason"
	validate "$report"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["run"]["status"]')" = "error" ] || fail "run.status is not error"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["verdict"]["exit_code"]')" = "3" ] || fail "exit code in report"
	# two workers on one GPU parse (repeats are allowed here, unlike other commands)
	run "$BIN" scaling --devices 0,0 --workload gemm
	expect_rc 3 "--devices 0,0 parses; no GPU"
fi

finish
