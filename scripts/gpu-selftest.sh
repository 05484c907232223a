#!/usr/bin/env bash
# gpu-selftest.sh - everything that needs a GPU, in one command:
#   configure and build (for this machine's GPU architecture as well as the
#   defaults), run every gpu-labelled test with GPUBENCH_REQUIRE_GPU=1 (so a
#   skip is a failure), then `gpubench info` and a short `gpubench run`,
#   keeping their reports.
#
# usage: scripts/gpu-selftest.sh [OUTDIR]     (default: selftest-out/)
# PHASES="build tests info run" (the default) picks the steps, so a machine
# that limits one command's time can run them as separate calls, e.g.
# PHASES="build tests" then PHASES="info run".
# On a machine that cannot install packages, run scripts/carry-deps.sh where
# you can and bring the .carry folder along; this script uses it.
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

# A GPU machine that cannot install packages: use what scripts/carry-deps.sh
# put in .carry (cJSON, cmocka, nvml.h, jsonschema wheels), and the CUDA
# libraries and NCCL that Python packages hold (nvidia-cublas, nvidia-nccl-cu13).
extra=()
if [ -d "$root/.carry" ]; then
	say "using .carry"
	extra+=(-DCMAKE_PREFIX_PATH="$root/.carry/root/usr" -DNVML_INCLUDE_DIR="$root/.carry/nvml")
	if ls "$root"/.carry/whl/*.whl >/dev/null 2>&1 && ! python3 -c 'import jsonschema' 2>/dev/null; then
		python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
			--target /tmp/gpubench-site "$root"/.carry/whl/*.whl >>"$log" 2>&1
		export PYTHONPATH=/tmp/gpubench-site${PYTHONPATH:+:$PYTHONPATH}
	fi
fi
pylibs=$(python3 - <<'PY' 2>/dev/null || true
import glob, os, site, sys
dirs = set()
for base in site.getsitepackages() + [site.getusersitepackages()]:
    for name in ("libcublasLt.so.13", "libnccl.so.2"):
        for hit in glob.glob(os.path.join(base, "nvidia", "**", name), recursive=True):
            dirs.add(os.path.dirname(hit))
print(":".join(sorted(dirs)))
PY
)
if [ -n "$pylibs" ]; then
	export LD_LIBRARY_PATH=$pylibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	say "CUDA libraries from Python packages: $pylibs"
fi
ncclinc=$(python3 - <<'PY' 2>/dev/null || true
import glob, os, site
for base in site.getsitepackages():
    hits = glob.glob(os.path.join(base, "nvidia", "**", "include", "nccl.h"), recursive=True)
    if hits:
        print(os.path.dirname(hits[0]))
        break
PY
)
[ -n "$ncclinc" ] && [ ! -f /usr/local/cuda/include/nccl.h ] && extra+=(-DNCCL_INCLUDE_DIR="$ncclinc")

say "building in $build"
if [ ! -f "$build/build.ninja" ]; then
	cmake -S "$root" -B "$build" -G Ninja "${extra[@]}" ${CMAKE_FLAGS:-} >>"$log" 2>&1 ||
		{ say "configure failed (see $log)"; tail -n 20 "$log" >&2; exit 1; }
fi
cmake --build "$build" -j "$(nproc)" >>"$log" 2>&1 || { say "build failed (see $log)"; exit 1; }

bin="$build/gpubench"
"$bin" --version | tee -a "$log"
phases=" ${PHASES:-build tests info run} "
want() { case "$phases" in *" $1 "*) return 0 ;; esac; return 1; }
gpu=$("$bin" info --json 2>>"$log" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["devices"][0]["name"] if d["devices"] else "nogpu")' 2>/dev/null)
tag="$(date -u +%Y-%m-%d)-$(printf '%s' "${gpu:-nogpu}" | tr -cs 'A-Za-z0-9' '-' | sed 's/^-//;s/-$//' | tr 'A-Z' 'a-z')"

if want tests; then
	say "gpu tests (GPUBENCH_REQUIRE_GPU=1)"
	(cd "$build" && GPUBENCH_REQUIRE_GPU=1 ctest --output-on-failure -L gpu) >>"$log" 2>&1 ||
		{ say "gpu tests FAILED"; status=1; }
	say "all other tests"
	(cd "$build" && ctest --output-on-failure -LE gpu -j "$(nproc)") >>"$log" 2>&1 ||
		{ say "other tests FAILED"; status=1; }
fi
if want info; then
	say "gpubench info"
	"$bin" info -o "$out/$tag-info.json" >>"$log" 2>&1 || { say "info exited $?"; status=1; }
fi
if want run; then
	say "gpubench run --profile quick"
	"$bin" run --profile quick -o "$out/$tag-run.json" >>"$log" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || { say "run exited $rc"; status=1; }
fi
grep -E "Test +#|tests passed|FAILED|verdict" "$log" | tail -n 60 >&2
say "reports: $(ls "$out" | tr '\n' ' ')"
exit $status
