#!/usr/bin/env bash
# `gpubench bandwidth` and `gpubench p2p` on the command line: help works
# anywhere, bad options are one line and exit 2 before anything runs, and
# without a GPU the run is one line, exit 3, and a report with status "error".
. "$(dirname "$0")/lib.sh"

run "$BIN" bandwidth --help
expect_rc 0 "bandwidth --help"
expect_out "usage: gpubench bandwidth" "bandwidth --help prints usage"
for opt in --tests --memory --method --min-size --max-size --factor --samples --loops --no-verify; do
	expect_out "$opt" "bandwidth --help lists $opt"
done
run "$BIN" p2p --help
expect_rc 0 "p2p --help"
for opt in --bytes --samples --loops --latency-only --no-verify; do
	expect_out "$opt" "p2p --help lists $opt"
done

# bad input: exit 2, one line naming the option
run "$BIN" bandwidth --min-size 1G --max-size 64M
expect_rc 2 "min above max"
expect_one_error "--min-size \(1G\) is above --max-size \(64M\)" "min above max message"
run "$BIN" bandwidth --min-size 0
expect_rc 2 "size 0"
expect_one_error "--min-size" "size 0 message"
run "$BIN" bandwidth --max-size 0
expect_rc 2 "max size 0"
expect_one_error "--max-size" "max size 0 message"
run "$BIN" bandwidth --factor 1
expect_rc 2 "factor 1"
expect_one_error "--factor" "factor 1 message"
run "$BIN" bandwidth --tests h2d,frob
expect_rc 2 "unknown test"
expect_one_error "frob" "unknown test message"
run "$BIN" bandwidth --memory cached
expect_rc 2 "unknown memory"
expect_one_error "cached" "unknown memory message"
run "$BIN" bandwidth --samples 2
expect_rc 2 "fewer than 3 samples"
expect_one_error "--samples" "samples message"
run "$BIN" bandwidth --min-size 12Q
expect_rc 2 "unparsable size"
expect_one_error "12Q" "unparsable size message"
# out of range: the bounds are in the message (sizes to 64 GiB; --loops to 256, since
# every copy of a sample queues behind the stream blocker)
run "$BIN" bandwidth --max-size 65G
expect_rc 2 "max size above 64 GiB"
expect_one_error "--max-size must be between 16 B and 64 GiB \(got 65 GiB\)" "max size range message"
run "$BIN" bandwidth --min-size 65G --max-size 64G
expect_rc 2 "min size above 64 GiB"
expect_one_error "--min-size must be between" "min size range message"
run "$BIN" bandwidth --loops 0
expect_rc 2 "loops 0"
expect_one_error "--loops must be between 1 and 256 \(got 0\)" "loops 0 message"
run "$BIN" bandwidth --loops 257
expect_rc 2 "loops 257"
expect_one_error "--loops must be between 1 and 256 \(got 257\)" "loops 257 message"
run "$BIN" p2p --bytes 65G
expect_rc 2 "p2p size above 64 GiB"
expect_one_error "--bytes must be between 16 B and 64 GiB \(got 65 GiB\)" "p2p size range message"
run "$BIN" p2p --loops 257
expect_rc 2 "p2p loops 257"
expect_one_error "--loops must be between 1 and 256" "p2p loops message"
run "$BIN" p2p --bytes 0
expect_rc 2 "p2p size 0"
expect_one_error "--bytes" "p2p size 0 message"
run "$BIN" p2p --bytes 1000
expect_rc 2 "p2p size not a multiple of 16"
expect_one_error "--bytes must be a multiple of 16" "p2p size message"

report="$TMP/bw.json"
# the schema is another test's subject: validate against it when it exists
validate_if_schema() {
	if [ -n "$SCHEMA" ] && [ -f "$SCHEMA" ]; then
		validate "$1"
	fi
}
if have_gpu; then
	# a quick real run: exit 0 (passed) or 1 (a finding), never a crash
	run "$BIN" bandwidth --max-size 64K --samples 3 --loops 2 -q -o "$report"
	checks=$((checks + 1))
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "bandwidth on a GPU: exit $rc: $err"
	[ -f "$report" ] && validate_if_schema "$report"
	run "$BIN" p2p --bytes 1M --samples 3 --loops 2 -q -o "$TMP/p2p.json"
	checks=$((checks + 1))
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "p2p on a GPU: exit $rc: $err"
else
	for cmd in bandwidth p2p; do
		run "$BIN" "$cmd" -o "$report"
		expect_rc 3 "$cmd without a GPU"
		expect_one_error "no NVIDIA driver found|driver too old|no CUDA-capable GPU" \
			"$cmd without a GPU message"
		checks=$((checks + 1))
		if [ ! -f "$report" ]; then
			fail "$cmd: no report written on could-not-run"
		else
			[ "$(json_get "$report" '["run"]["status"]')" = "error" ] ||
				fail "$cmd: run.status is not error"
			validate_if_schema "$report"
		fi
	done
fi

finish
