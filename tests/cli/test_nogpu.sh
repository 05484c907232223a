#!/usr/bin/env bash
# Without a driver or GPU: one line saying which, exit 3, and still a valid
# report with status "error" when -o is given. On a GPU machine: info works.
. "$(dirname "$0")/lib.sh"

report="$TMP/info.json"
run "$BIN" info -o "$report"
if [ "$rc" -eq 3 ]; then
	expect_one_error "no NVIDIA driver found|driver too old|no CUDA-capable GPU" "reason line"
	checks=$((checks + 1))
	[ -f "$report" ] || fail "no report written on could-not-run"
	validate "$report"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["run"]["status"]')" = "error" ] || fail "run.status is not error"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["verdict"]["exit_code"]')" = "3" ] || fail "verdict.exit_code is not 3"
	checks=$((checks + 1))
	json_get "$report" '["run"]["reason"]' | grep -qE "driver|GPU" || fail "run.reason missing"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["schema"]')" = "gpubench.report/1" ] || fail "schema id"

	# --json prints the same document on stdout, and nothing else
	run "$BIN" info --json
	expect_rc 3 "info --json without a GPU"
	printf '%s' "$out" >"$TMP/stdout.json"
	validate "$TMP/stdout.json"

	# an existing report is replaced atomically, never left half-written
	echo '{"old": true}' >"$report"
	run "$BIN" info -o "$report"
	expect_rc 3 "info rewrite"
	validate "$report"
	checks=$((checks + 1))
	ls "$TMP" | grep -q '\.tmp\.' && fail "temporary report file left behind"
elif [ "$rc" -eq 0 ]; then
	validate "$report"
	checks=$((checks + 1))
	[ "$(json_get "$report" '["run"]["status"]')" = "passed" ] || fail "info status on a GPU"
else
	fail "info exit $rc: $err"
fi

# an unwritable report path is refused before anything runs: exit 2, one line
run "$BIN" info -o "$TMP/no/such/dir/r.json"
expect_rc 2 "unwritable report folder"
expect_one_error "cannot write report" "unwritable report message"
run "$BIN" info -o "$TMP"
expect_rc 2 "report path is a directory"
# a folder where no file can be created, though access() says yes to root
# (as a user, access() already refuses it): found by creating one there
run "$BIN" info -o /proc/gpubench-report.json
expect_rc 2 "report in a folder that takes no file"
expect_one_error "cannot write report '/proc/gpubench-report.json': folder '/proc'" \
	"report in a folder that takes no file: message"

finish
