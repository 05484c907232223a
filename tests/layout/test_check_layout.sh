#!/usr/bin/env bash
# check_layout.py fails on what it is meant to catch: a small tree is built with one
# offence at a time (an arrow up a layer, one family including another, a circle of
# includes, a file past the limit) and each must be named; the clean tree passes.
set -u
CHECK=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/check_layout.py
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0 checks=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# tree NAME: a clean tree of the four product folders in $TMP/NAME
tree() {
	local t=$TMP/$1
	mkdir -p "$t"/report "$t"/kernels "$t"/bench/device "$t"/bench/gemm "$t"/bench/stress "$t"/cmd
	printf '#include "report/result.h"\n' >"$t/kernels/k.h"
	printf 'int r;\n' >"$t/report/result.h"
	printf '#include "kernels/k.h"\n' >"$t/bench/device/gpu.h"
	printf '#include "bench/device/gpu.h"\n' >"$t/bench/gemm/gemm.c"
	printf '#include "bench/device/gpu.h"\n' >"$t/bench/stress/stress.c"
	printf '#include "bench/gemm/gemm.h"\n#include "report/result.h"\n' >"$t/cmd/main.c"
	printf 'int g;\n' >"$t/bench/gemm/gemm.h"
	echo "$t"
}

# expect NAME PATTERN: the check fails on tree NAME and names the offence
expect() {
	local out rc
	checks=$((checks + 1))
	out=$(python3 "$CHECK" "$TMP/$1" 2>&1)
	rc=$?
	[ "$rc" = 1 ] || fail "$1: exit $rc, expected 1"
	printf '%s\n' "$out" | grep -q "$2" || fail "$1: '$2' not in: $out"
}

t=$(tree clean)
checks=$((checks + 1))
python3 "$CHECK" "$t" >/dev/null || fail "a clean tree fails: $(python3 "$CHECK" "$t")"

t=$(tree up)
printf '#include "bench/device/gpu.h"\n' >>"$t/report/result.h"
expect up "report/result.h includes bench/device/gpu.h: an arrow to a higher layer"

t=$(tree family)
printf '#include "bench/gemm/gemm.h"\n' >>"$t/bench/stress/stress.c"
expect family "bench/stress/stress.c includes bench/gemm/gemm.h: an arrow to another family"

t=$(tree circle)
printf '#include "report/b.h"\n' >"$t/report/a.h"
printf '#include "report/a.h"\n' >"$t/report/b.h"
expect circle "include circle: report/a -> report/b"

t=$(tree long)
seq 1 1001 | sed 's/.*/int x&;/' >"$t/bench/gemm/gemm.c"
expect long "bench/gemm/gemm.c: 1001 lines, past the limit of 1000"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" = 0 ]
