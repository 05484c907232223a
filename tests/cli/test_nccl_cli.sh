#!/usr/bin/env bash
# test_nccl_cli.sh - `gpubench nccl` options and the could-not-run path:
# bad options exit 2 with one line, --help exits 0 on any machine, and
# without a GPU the command exits 3 with a valid report (4, "built without
# NCCL", when NCCL was not found at build time).
. "$(dirname "$0")/lib.sh"

run "$BIN" nccl --help
expect_rc 0 "nccl --help"
expect_out "--max-bytes" "help lists --max-bytes"
expect_out "--samples" "help lists --samples"
expect_out "mpirun -np N gpubench nccl" "help shows the several-process form"
run "$BIN" help nccl
expect_rc 0 "help nccl"
run "$BIN" help
checks=$((checks + 1))
[ "$(printf '%s\n' "$out" | grep -c '^  nccl ')" -eq 1 ] || fail "help lists nccl once: $out"

run "$BIN" nccl --min-bytes 1G --max-bytes 8M
expect_rc 2 "min above max"
expect_one_error "--min-bytes \(1 GiB\) is above --max-bytes \(8 MiB\)" "min above max message"
run "$BIN" nccl --factor 1
expect_rc 2 "factor 1"
expect_one_error "--factor" "factor message"
run "$BIN" nccl --op allreduce,gather
expect_rc 2 "unknown collective"
expect_one_error "'gather' in --op" "unknown collective message"
run "$BIN" nccl --dtype fp8
expect_rc 2 "unknown type"
expect_one_error "'fp8' in --dtype" "unknown type message"
run "$BIN" nccl --redop xor
expect_rc 2 "unknown operator"
run "$BIN" nccl --iters 0
expect_rc 2 "zero iterations"
run "$BIN" nccl --samples 0
expect_rc 2 "zero samples"
expect_one_error "--samples" "zero samples message"
run "$BIN" nccl --samples 1001
expect_rc 2 "more samples than the stack holds"
run "$BIN" nccl --timeout 30
expect_rc 2 "timeout without a unit"
run "$BIN" nccl --max-bytes 1M -o "$TMP/no/such/dir/r.json"
expect_rc 2 "unwritable report"

if "$BIN" version | grep -q "without NCCL"; then
	run "$BIN" nccl -o "$TMP/r.json"
	expect_rc 4 "built without NCCL"
	expect_one_error "built without NCCL" "not-built message"
	validate "$TMP/r.json"
elif ! have_gpu; then
	report="$TMP/r.json"
	run "$BIN" nccl --max-bytes 1M -o "$report"
	expect_rc 3 "no GPU"
	expect_one_error "no NVIDIA driver found|driver too old|no CUDA-capable" "no-GPU reason"
	validate "$report"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["run"]["status"]')" = "error" ] || fail "run.status is not error"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["verdict"]["exit_code"]')" = "3" ] || fail "exit code in report"
	# the single-process run ignores launcher variables it did not get from a launcher
	run env SLURM_NTASKS=8 "$BIN" nccl --max-bytes 1M
	expect_rc 3 "SLURM_NTASKS alone (a batch script) is one process"
fi

finish
