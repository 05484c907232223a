#!/usr/bin/env bash
# gpu-selftest.sh - everything that needs a GPU, in one command:
#   configure and build (the default architectures, or CMAKE_FLAGS), run
#   every gpu-labelled test with GPUBENCH_REQUIRE_GPU=1 (so a
#   skip is a failure), then `gpubench info`, a short `gpubench run`, the
#   own kernels beside cuBLASLt (issue 4's table) and cuBLASLt beside
#   torch.matmul (scripts/compare-torch-matmul.py), keeping their reports.
# CMAKE_FLAGS="-DCMAKE_CUDA_ARCHITECTURES=90" builds for Hopper alone, faster.
#
# usage: scripts/gpu-selftest.sh [OUTDIR]     (default: $OUT if set, else selftest-out/)
# PHASES="tests others info run kernels torch" (the default) picks the steps
# after the build (which always runs, and is reused when the build folder
# exists), so a machine that limits one command's time can run them as
# separate calls, e.g. PHASES="tests info", then "others run", then "kernels torch".
# GPU_CTEST_ARGS passes more ctest options to the gpu tests (-R stress, -E stress).
# A gpu test that skips counts as a failure here: on a GPU machine a skip
# means something it needs (NCCL, cuBLASLt) was not found.
# On a machine that cannot install packages, run scripts/carry-deps.sh where
# you can and bring the .carry folder along; this script uses it.
# Reports land in OUTDIR as <date>-<gpu>-{info,run,kernels,torch}.json, ready
# to commit under docs/results/. Each phase has a time limit (*_TIMEOUT, in
# seconds) so one hang cannot eat a lent machine's whole call. Never changes GPU settings.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-$root/selftest-out}}
build=${BUILD:-$root/build-gpu}
mkdir -p "$out"
log="$out/selftest.log"
: >"$log"
say() { printf 'gpu-selftest [%4ss]: %s\n' "$SECONDS" "$*" | tee -a "$log" >&2; }
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
phases=" ${PHASES:-tests others info run kernels torch} "
want() { case "$phases" in *" $1 "*) return 0 ;; esac; return 1; }
gpu=$("$bin" info --json 2>>"$log" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["devices"][0]["name"] if d["devices"] else "nogpu")' 2>/dev/null)
tag="$(date -u +%Y-%m-%d)-$(printf '%s' "${gpu:-nogpu}" | tr -cs 'A-Za-z0-9' '-' | sed 's/^-//;s/-$//' | tr 'A-Z' 'a-z')"

# The GPU as found (never changed): what a failure may depend on.
if command -v nvidia-smi >/dev/null; then
	nvidia-smi --query-gpu=name,driver_version,persistence_mode,compute_mode,mig.mode.current,ecc.mode.current,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.max,power.limit,clocks.max.sm \
		--format=csv >>"$log" 2>&1
	nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT >>"$log" 2>&1
fi

if want tests; then
	say "gpu tests (GPUBENCH_REQUIRE_GPU=1) ${GPU_CTEST_ARGS:-}"
	ctlog=$(mktemp)
	# shellcheck disable=SC2086 # GPU_CTEST_ARGS is a list of options
	(cd "$build" && GPUBENCH_REQUIRE_GPU=1 timeout "${GPU_TESTS_TIMEOUT:-400}" \
		ctest --output-on-failure -L gpu ${GPU_CTEST_ARGS:-}) >"$ctlog" 2>&1 ||
		{ say "gpu tests FAILED"; status=1; }
	cat "$ctlog" >>"$log"
	if grep -qE '\*\*\*Skipped|\[  SKIPPED \]' "$ctlog"; then
		say "gpu tests SKIPPED on a GPU machine (counted as failed):"
		grep -E '\*\*\*Skipped|\[  SKIPPED \]' "$ctlog" >&2
		status=1
	fi
	rm -f "$ctlog"
fi
if want others; then
	# the cli tests take GPU paths here too: a few at a time, with a limit
	say "all other tests"
	(cd "$build" && timeout "${OTHER_TESTS_TIMEOUT:-300}" \
		ctest --output-on-failure -LE gpu -j 4) >>"$log" 2>&1 ||
		{ say "other tests FAILED"; status=1; }
fi
if want info; then
	say "gpubench info"
	"$bin" info -o "$out/$tag-info.json" >>"$log" 2>&1 || { say "info exited $?"; status=1; }
fi
if want run; then
	say "gpubench run --profile quick"
	timeout -s INT "${RUN_TIMEOUT:-300}" "$bin" run --profile quick -o "$out/$tag-run.json" >>"$log" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || { say "run exited $rc"; status=1; }
fi
if want kernels; then
	# Issue 4's table: every own kernel beside cuBLASLt on the same shapes, same run.
	say "gpubench gemm --impl all (own kernels against cuBLASLt)"
	timeout -s INT "${KERNELS_TIMEOUT:-240}" "$bin" gemm --impl all --precision fp32,bf16,fp16 \
		--size 8192 --warmup 1s --duration 500ms --samples 5 \
		-o "$out/$tag-kernels.json" >>"$log" 2>&1 || { say "gemm --impl all exited $?"; status=1; }
fi
if want torch; then
	# Issue 3's goal: within 1% of torch.matmul on the same GPU, same run.
	say "compare-torch-matmul.py"
	timeout -s INT "${TORCH_TIMEOUT:-360}" python3 "$root/scripts/compare-torch-matmul.py" \
		--gpubench "$bin" -o "$out/$tag-torch.json" >>"$log" 2>&1 ||
		{ say "compare-torch-matmul exited $?"; status=1; }
fi
grep -E "Test +#|tests passed|FAILED|verdict" "$log" | tail -n 60 >&2
say "reports: $(ls "$out" | tr '\n' ' ')"
exit $status
