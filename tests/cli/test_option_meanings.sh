#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One meaning per option (issue 26, item 4), across every command `gpubench
# help` lists, read from each command's --help (the option tables print it):
#   - a short option letter is one long option everywhere it exists
#     (-t was --duration in stress, --tests in bandwidth, --tolerance in compare);
#   - a long option takes one unit everywhere (--warmup was a time in gemm and a
#     count in nccl, --size a GEMM dimension in gemm and stress and bytes in p2p).
# The unit is the placeholder of the help line (TIME, SIZE, N, PCT, MS, USD, ...),
# with the ones that say the same thing folded together: a list is in the unit
# of its elements (LIST and NAME are names, USD,USD is dollars), DURATION is TIME.
# A switch (no placeholder) is a switch.
# shellcheck source=tests/cli/lib.sh disable=SC1091,SC2154 # rc, out, err come from lib.sh's run
. "$(dirname "$0")/lib.sh"
set -o pipefail

# every command but help and version, from the command table
commands=$("$BIN" help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { exit }')
checks=$((checks + 1))
[ -n "$commands" ] || fail "gpubench help lists no commands"

# "CMD SHORT LONG UNIT" per option line of every command's --help
for cmd in $commands; do
	case $cmd in help | version) continue ;; esac
	"$BIN" "$cmd" --help >"$TMP/help" 2>&1 || fail "$cmd --help: exit $?"
	awk -v cmd="$cmd" '
		/^  -[A-Za-z], --|^      --/ {
			short = "-"; i = 1
			if ($1 ~ /^-[A-Za-z],$/) { short = substr($1, 2, 1); i = 2 }
			long = $i; sub(/^--/, "", long)
			unit = "switch"
			# the placeholder: upper case right after the name, then two spaces
			# before the help, or the end of a line too long to hold the help
			left = $i " " $(i + 1)
			at = index($0, left) + length(left)
			if ($(i + 1) ~ /^[A-Z][A-Z0-9,]*$/ &&
			    (substr($0, at, 2) == "  " || at == length($0) + 1))
				unit = $(i + 1)
			print cmd, short, long, unit
		}' "$TMP/help" >>"$TMP/opts"
done
checks=$((checks + 1))
[ -s "$TMP/opts" ] || fail "no option lines found in any --help"

# fold placeholders that name one unit: a list of X is in X's unit
awk '{
	u = $4
	sub(/,.*/, "", u)
	if (u == "LIST" || u == "NAME" || u == "FMT" || u == "MODE") u = "NAME"
	if (u == "DURATION") u = "TIME"
	print $1, $2, $3, u
}' "$TMP/opts" >"$TMP/units"

# a short letter with more than one long name
awk '$2 != "-" {
	if (!($2 in first)) { first[$2] = $3; where[$2] = $1 }
	else if (first[$2] != $3 && !seen[$2 " " $3]++)
		printf "-%s is --%s in %s but --%s in %s\n", $2, first[$2], where[$2], $3, $1
}' "$TMP/units" >"$TMP/short-conflicts"
checks=$((checks + 1))
if [ -s "$TMP/short-conflicts" ]; then
	fail "a short option means two things: $(tr '\n' ';' <"$TMP/short-conflicts")"
fi

# a long name with more than one unit
awk '{
	if (!($3 in first)) { first[$3] = $4; where[$3] = $1 }
	else if (first[$3] != $4 && !seen[$3 " " $4]++)
		printf "--%s takes %s in %s but %s in %s\n", $3, first[$3], where[$3], $4, $1
}' "$TMP/units" >"$TMP/long-conflicts"
checks=$((checks + 1))
if [ -s "$TMP/long-conflicts" ]; then
	fail "a long option has two units: $(tr '\n' ';' <"$TMP/long-conflicts")"
fi

# the walk saw what it should: the tables of the benchmarks and of cmd/
for want in "gemm - warmup TIME" "nccl - iters N" "compare - format NAME" "stress - duration TIME"; do
	checks=$((checks + 1))
	awk -v w="$want" '{ sub(/ [A-Za-z] /, " - ") } $0 == w { f = 1 } END { exit !f }' \
		"$TMP/units" || fail "the walk of --help did not find '$want'"
done

finish
