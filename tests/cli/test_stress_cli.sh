#!/usr/bin/env bash
# gpubench stress from the command line: --help works anywhere, every bad
# option is one error line and exit 2 before anything runs, and without a
# GPU the run is "could not run" (exit 3) with a valid report whose status
# is error, never a pass. On a GPU machine a short run is left to the gpu
# tests (tests/gpu/test_stress.c).
. "$(dirname "$0")/lib.sh"

run "$BIN" stress --help
expect_rc 0 "stress --help"
expect_out "usage: gpubench stress" "stress --help prints usage"
for opt in --duration --precision --mem --profile --period --interval --fail-early \
	--inject-fault --memtest --no-abft --no-exact --no-repeat --no-cross --temp-limit \
	--thresholds --progress --devices; do
	expect_out "$opt" "stress --help lists $opt"
done
expect_out "bf16, fp16, tf32, fp32, fp64, fp8, mixed" "stress --help lists the precisions"

run "$BIN" help stress
expect_rc 0 "help stress"

# bad options: exit 2 and one line naming the option
run "$BIN" stress --mem 150%
expect_rc 2 "--mem 150%"
expect_one_error "--mem must be between 1% and 98%" "--mem 150% message"

run "$BIN" stress --mem 90
expect_rc 2 "--mem without a percent sign"
expect_one_error "needs a percent sign" "--mem 90 message"

run "$BIN" stress --duration 10
expect_rc 2 "--duration without a unit"
expect_one_error "--duration needs a unit" "--duration 10 message"

run "$BIN" stress --precision int4
expect_rc 2 "--precision int4"
expect_one_error "invalid value 'int4' for --precision" "--precision int4 message"

run "$BIN" stress --interval 0s
expect_rc 2 "--interval 0s"
expect_one_error "--interval must be between" "--interval 0s message"

run "$BIN" stress --profile square
expect_rc 2 "--profile square"

run "$BIN" stress --progress fancy
expect_rc 2 "--progress fancy"

run "$BIN" stress --size 1000
expect_rc 2 "--size not a multiple of 256"
expect_one_error "--size must be a multiple of 256" "--size message"

run "$BIN" stress --duration 5s --interval 10s
expect_rc 2 "--interval longer than --duration"
expect_one_error "--interval \(10s\) is longer than --duration \(5s\)" "interval/duration message"

run "$BIN" stress --inject-fault --no-abft --no-exact --no-repeat
expect_rc 2 "--inject-fault with every layer off"
expect_one_error "--inject-fault needs a layer" "--inject-fault message"

run "$BIN" stress --temp-limit 500
expect_rc 2 "--temp-limit 500"

run "$BIN" stress --thresholds "$TMP/none.json"
expect_rc 2 "--thresholds missing file"
expect_one_error "cannot read thresholds" "--thresholds missing message"

printf '{"temp_limt_c": 80}\n' >"$TMP/typo.json"
run "$BIN" stress --thresholds "$TMP/typo.json"
expect_rc 2 "--thresholds with an unknown key"
expect_one_error "unknown threshold 'temp_limt_c'" "--thresholds typo message"

run "$BIN" stress --frobnicate
expect_rc 2 "unknown option"

# without a GPU: could not run, exit 3, a valid report saying error
if have_gpu; then
	echo "a GPU is present: the no-GPU path is not exercised here"
else
	printf '{"temp_limit_c": 80, "throttle_mask": ["hw_slowdown"]}\n' >"$TMP/ok.json"
	report="$TMP/stress.json"
	run "$BIN" stress --duration 5s --thresholds "$TMP/ok.json" -o "$report"
	expect_rc 3 "stress without a GPU"
	expect_one_error "no NVIDIA driver found|driver too old|no CUDA-capable GPU" \
		"stress without a GPU: reason line"
	checks=$((checks + 1))
	[ -f "$report" ] || fail "no report written without a GPU"
	validate "$report"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["run"]["status"]')" = "error" ] || fail "run.status is not error"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["verdict"]["status"]')" = "error" ] || fail "verdict is not error"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["verdict"]["exit_code"]')" = "3" ] || fail "exit_code is not 3"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["run"]["command"]')" = "stress" ] || fail "run.command is not stress"

	run "$BIN" stress --duration 5s --json
	expect_rc 3 "stress --json without a GPU"
	printf '%s' "$out" >"$TMP/stdout.json"
	validate "$TMP/stdout.json"
fi

finish
