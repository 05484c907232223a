#!/usr/bin/env bash
# gpu-selftest.sh - everything that needs a GPU, in one command:
#   configure and build (for this machine's GPU architecture as well as the
#   defaults), run every gpu-labelled test with GPUBENCH_REQUIRE_GPU=1 (so a
#   skip is a failure), then `gpubench info` and a short `gpubench run`,
#   keeping their reports.
#
# usage: scripts/gpu-selftest.sh [OUTDIR]     (default: selftest-out/)
# Reports land in OUTDIR as <date>-<gpu>-info.json and <date>-<gpu>-run.json,
# ready to commit under docs/results/. Never changes GPU settings.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/selftest-out}
build=${BUILD:-$root/build-gpu}
mkdir -p "$out"
log="$out/selftest.log"
: >"$log"
say() { printf 'gpu-selftest: %s\n' "$*" | tee -a "$log" >&2; }
status=0

say "building in $build"
if [ ! -f "$build/build.ninja" ]; then
	cmake -S "$root" -B "$build" -G Ninja ${CMAKE_FLAGS:-} >>"$log" 2>&1 || { say "configure failed"; exit 1; }
fi
cmake --build "$build" -j "$(nproc)" >>"$log" 2>&1 || { say "build failed (see $log)"; exit 1; }

bin="$build/gpubench"
"$bin" --version | tee -a "$log"
gpu=$("$bin" info --json 2>>"$log" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["devices"][0]["name"] if d["devices"] else "nogpu")' 2>/dev/null || echo nogpu)
tag="$(date -u +%Y-%m-%d)-$(printf '%s' "$gpu" | tr -cs 'A-Za-z0-9' '-' | sed 's/^-//;s/-$//' | tr 'A-Z' 'a-z')"

say "gpu tests (GPUBENCH_REQUIRE_GPU=1)"
(cd "$build" && GPUBENCH_REQUIRE_GPU=1 ctest --output-on-failure -L gpu) >>"$log" 2>&1 || { say "gpu tests FAILED"; status=1; }
say "all other tests"
(cd "$build" && ctest --output-on-failure -LE gpu -j "$(nproc)") >>"$log" 2>&1 || { say "other tests FAILED"; status=1; }

say "gpubench info"
"$bin" info -o "$out/$tag-info.json" >>"$log" 2>&1 || { say "info exited $?"; status=1; }
say "gpubench run --profile quick"
"$bin" run --profile quick -o "$out/$tag-run.json" >>"$log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || { say "run exited $rc"; status=1; }
grep -E "Test +#|tests passed|FAILED|verdict" "$log" | tail -n 60 >&2
say "reports: $(ls "$out" | tr '\n' ' ')"
exit $status
