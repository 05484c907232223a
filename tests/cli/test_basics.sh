#!/usr/bin/env bash
# The binary starts everywhere: help, version, bad commands and options.
. "$(dirname "$0")/lib.sh"

run "$BIN" --help
expect_rc 0 "--help"
expect_out "usage: gpubench" "--help prints usage"
expect_out "info" "--help lists info"
expect_out "exit codes" "--help documents exit codes"

run "$BIN" help
expect_rc 0 "help"
run "$BIN" help info
expect_rc 0 "help info"
expect_out "--output" "help info lists --output"

run "$BIN" --version
expect_rc 0 "--version"
expect_out "^gpubench [0-9]+\.[0-9]+\.[0-9]+ \(git " "--version first line"
expect_out "CUDA 13" "--version names CUDA"
expect_out "cuBLAS" "--version names cuBLAS"
expect_out "NCCL|without NCCL" "--version names NCCL"
expect_out "MPI" "--version names MPI"

run "$BIN" version extra
expect_rc 2 "version with an argument"

run "$BIN"
expect_rc 2 "no command"

run "$BIN" frobnicate
expect_rc 2 "unknown command"
expect_one_error "'frobnicate' is not a gpubench command" "unknown command message"

# a typo gets "did you mean", the same matcher as options
run "$BIN" comapre
expect_rc 2 "a misspelt command"
expect_one_error "^gpubench: error: 'comapre' is not a gpubench command; did you mean 'compare'\?$" \
	"did you mean for a transposition"
run "$BIN" inf
expect_rc 2 "a truncated command"
expect_one_error "did you mean 'info'\?" "did you mean for a prefix"
run "$BIN" help stres
expect_rc 2 "help for a misspelt command"
expect_one_error "'stres' is not a gpubench command; did you mean 'stress'\?" \
	"did you mean under help"

run "$BIN" --frob
expect_rc 2 "unknown global option"
expect_one_error "unknown option '--frob'" "unknown global option message"

run "$BIN" help frobnicate
expect_rc 2 "help for an unknown command"

# every command answers -h without a GPU, and lists its options
for c in $("$BIN" --help | awk '/^commands:/{f=1;next} /^$/{f=0} f{print $1}'); do
	run "$BIN" "$c" -h
	expect_rc 0 "$c -h"
	expect_out "usage: gpubench" "$c -h prints usage"
done

run "$BIN" info --bogus
expect_rc 2 "info with an unknown option"
expect_one_error "unknown option '--bogus'" "info unknown option message"

run "$BIN" info --format yaml
expect_rc 2 "info with an unknown format"
expect_one_error "--format" "info bad format names the option"

# every profile of the acceptance suite parses with the benchmarks' own option tables
for p in quick acceptance burnin; do
	run "$BIN" run --plan --profile "$p"
	expect_rc 0 "run --plan --profile $p"
	expect_out "^gpubench gemm" "run --plan lists gemm first ($p)"
done
run "$BIN" run --plan --profile nightly
expect_rc 2 "run with an unknown profile"

# --only and --skip choose the steps; --plan shows the ones that will run
run "$BIN" run --plan --only stress,gemm
expect_rc 0 "run --plan --only stress,gemm"
checks=$((checks + 1))
[ "$(printf '%s\n' "$out" | cut -d' ' -f2 | tr '\n' ' ')" = "gemm stress " ] ||
	fail "run --plan --only stress,gemm lists '$out'"
run "$BIN" run --plan --skip gemm,stress,scaling
expect_rc 0 "run --plan --skip"
checks=$((checks + 1))
[ "$(printf '%s\n' "$out" | cut -d' ' -f2 | tr '\n' ' ')" = "bandwidth p2p nccl " ] ||
	fail "run --plan --skip gemm,stress,scaling lists '$out'"
run "$BIN" run --only gemm --skip p2p
expect_rc 2 "run --only with --skip"
expect_one_error "--only and --skip" "run --only --skip says which options conflict"
run "$BIN" run --only gemm,linpack
expect_rc 2 "run --only with an unknown step"
expect_one_error "linpack.*expected one of: gemm, bandwidth" "run --only names the bad step"

# --stress-duration replaces the profile's stress length (last --duration wins)
run "$BIN" run --plan --profile acceptance --stress-duration 90s
expect_rc 0 "run --plan --stress-duration 90s"
checks=$((checks + 1))
[ "$(printf '%s\n' "$out" | grep '^gpubench stress ' | grep -o -- '--duration [^ ]*$')" = "--duration 90s" ] ||
	fail "run --plan --stress-duration 90s: stress step is '$(printf '%s\n' "$out" | grep stress)'"
run "$BIN" run --stress-duration 0s
expect_rc 2 "run --stress-duration 0s"
expect_one_error "stress-duration must be between" "run --stress-duration 0s says the range"

finish
