#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_promtool.sh DIR RULES.yml - Prometheus' own linter on gpubench's
# textfiles (issue 28): `promtool check metrics` on every .prom of DIR (a report
# of every benchmark on the simulator, make_reports.sh) must print nothing and
# exit 0, and `promtool check rules` must accept the example alert rules.
# Exit 77 (skipped) when promtool is not installed (Debian's prometheus
# package has it; scripts/install-deps.sh --test installs it).
DIR=${1:?usage: test_promtool.sh DIR RULES.yml}
RULES=${2:?usage: test_promtool.sh DIR RULES.yml}
if ! command -v promtool >/dev/null 2>&1; then
	echo "skipped: no promtool (Debian's prometheus package; scripts/install-deps.sh --test)"
	exit 77
fi
failures=0
n=0
for f in "$DIR"/*.prom; do
	[ -e "$f" ] || break
	n=$((n + 1))
	# check metrics reads stdin; a lint problem is a line on stdout and exit 3
	if ! out=$(promtool check metrics <"$f" 2>&1) || [ -n "$out" ]; then
		printf 'FAIL: promtool check metrics %s:\n%s\n' "$(basename "$f")" "$out" >&2
		failures=$((failures + 1))
	fi
done
# the fixture has info, six benchmarks, a failed run and one written by gemm -o
if [ "$n" -lt 9 ]; then
	echo "FAIL: $n .prom files in $DIR, expected 9 (did sim_prom_reports run?)" >&2
	failures=$((failures + 1))
fi
if ! out=$(promtool check rules "$RULES" 2>&1); then
	printf 'FAIL: promtool check rules %s:\n%s\n' "$RULES" "$out" >&2
	failures=$((failures + 1))
fi
echo "$n textfiles and the alert rules checked, $failures failed"
[ "$failures" -eq 0 ]
