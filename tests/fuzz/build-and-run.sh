#!/usr/bin/env bash
# build-and-run.sh - build the libFuzzer harnesses of tests/fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined) against the core sources directly, and
# run each for a while. Fails on any crash, leak, timeout or broken invariant.
#
#   tests/fuzz/build-and-run.sh [SECONDS] [HARNESS...]
#
#   SECONDS   how long each harness runs (default 30; CI uses 20). 0 only
#             replays the seeds once, a quick regression check.
#   HARNESS   report_load, cli, thresholds, stress_thresholds (default: every
#             tests/fuzz/fuzz_*.c)
#
# Environment:
#   FUZZ_CC       the compiler (default: clang, else clang-14); needs libFuzzer
#                 (Debian: clang and libclang-rt-<version>-dev)
#   FUZZ_BUILD    where objects and binaries go (default build-fuzz/, ignored by git)
#   FUZZ_CORPUS   keep the grown corpus here (one folder per harness) across
#                 runs; default: a temporary folder, thrown away
#   FUZZ_JOBS     parallel fuzzing processes per harness (default 1)
#   FUZZ_FLAGS    extra libFuzzer flags, e.g. "-max_len=100000"
#
# Seeds, read-only: tests/fuzz/corpus/<harness>/, tests/data/*.json for
# report_load, tests/data/*thresholds* for thresholds, and the saved crashes
# tests/data/fuzz-regressions/<harness>-*. A crash is kept in a temporary
# folder, printed (hex for the first 512 bytes), and its path given: save it as
# tests/data/fuzz-regressions/<harness>-<what>.<ext> so that
# tests/report/test_fuzz_regressions.c replays it from then on.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
say() { printf 'fuzz: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

seconds=${1:-30}
[ $# -gt 0 ] && shift
case "$seconds" in
'' | *[!0-9]*) die "SECONDS must be a whole number of seconds (got '$seconds')" ;;
esac

# ---- the compiler ----
cc=${FUZZ_CC:-}
if [ -z "$cc" ]; then
	for c in clang clang-14 clang-15 clang-16 clang-17 clang-18 clang-19; do
		if command -v "$c" >/dev/null 2>&1; then
			cc=$c
			break
		fi
	done
fi
[ -n "$cc" ] || die "clang not found: the harnesses need clang with libFuzzer (Debian: apt-get install clang libclang-rt-dev)"

build=${FUZZ_BUILD:-$root/build-fuzz}
mkdir -p "$build/obj"
probe="$build/probe.c"
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe" -o "$build/probe" 2>"$build/probe.err"; then
	cat "$build/probe.err" >&2
	die "$cc cannot build a libFuzzer harness (Debian: apt-get install libclang-rt-\$(clang major version)-dev)"
fi

# ---- nvml.h, where CMake finds it ----
nvml_inc=""
for d in "$root/.deps/nvml/include" "${CUDA_HOME:-/usr/local/cuda}/include" /usr/local/cuda/include; do
	if [ -f "$d/nvml.h" ]; then
		nvml_inc=$d
		break
	fi
done
if [ -z "$nvml_inc" ] && command -v nvcc >/dev/null 2>&1; then
	d="$(dirname "$(dirname "$(command -v nvcc)")")/include"
	[ -f "$d/nvml.h" ] && nvml_inc=$d
fi
[ -n "$nvml_inc" ] || die "nvml.h not found: run scripts/install-deps.sh"

# ---- build: the core library's sources (as gpubench_core), then each harness ----
# shellcheck disable=SC2054 # the commas belong to one flag
san=(-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
cflags=(-std=c11 -D_GNU_SOURCE -g -O1 "${san[@]}" -I"$root" -I"$nvml_inc")
# as GB_CORE_SOURCES in CMakeLists.txt (watchdog.c aside: no harness reaches it)
core_src=(report/*.c bench/*/*_math.c kernels/*_math.c cmd/cli*.c cmd/log.c cmd/status_line.c cmd/suite_math.c
	bench/device/nvml*.c bench/device/clock.c)
objs=()
for src in "${core_src[@]}"; do
	[ -f "$src" ] || continue
	obj="$build/obj/$(printf '%s' "$src" | tr '/' '_').o"
	if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$0" -nt "$obj" ] ||
		[ -n "$(find "$root/report" "$root/cmd" "$root/bench" -name '*.h' -newer "$obj" 2>/dev/null | head -n 1)" ]; then
		# others' code: warnings are shown, not fatal (gcc's -Werror build owns those)
		"$cc" "${cflags[@]}" -Wall -Wextra -c "$src" -o "$obj" ||
			die "cannot compile $src"
	fi
	objs+=("$obj")
done
# report/published.json's bytes, as CMake generates them (cmake/published_json.c.in)
pub_c="$build/published_json.c"
if [ ! -f "$pub_c" ] || [ report/published.json -nt "$pub_c" ]; then
	{
		printf '#include <stddef.h>\n#include "report/published.h"\n'
		printf 'const unsigned char gb_published_json[] = {'
		od -An -v -tx1 report/published.json | tr -s ' \n' '  ' | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'
		printf ' 0x00 };\nconst size_t gb_published_json_len = %s;\n' "$(wc -c <report/published.json)"
	} >"$pub_c"
	rm -f "$build/obj/published_json.o"
fi
if [ ! -f "$build/obj/published_json.o" ]; then
	"$cc" "${cflags[@]}" -c "$pub_c" -o "$build/obj/published_json.o" || die "cannot compile $pub_c"
fi
objs+=("$build/obj/published_json.o")
# objects of sources that were removed since the last build must not be linked
rm -f "$build/libcore.a"
ar rcs "$build/libcore.a" "${objs[@]}"

if [ $# -gt 0 ]; then
	harnesses=("$@")
else
	harnesses=()
	for f in tests/fuzz/fuzz_*.c; do
		h=${f#tests/fuzz/fuzz_}
		harnesses+=("${h%.c}")
	done
fi
for h in "${harnesses[@]}"; do
	src="tests/fuzz/fuzz_$h.c"
	[ -f "$src" ] || die "no harness $src"
	say "building fuzz_$h"
	"$cc" "${cflags[@]}" -Wall -Wextra -Werror -Itests/fuzz "$src" "$build/libcore.a" \
		-lcjson -ldl -lm -pthread -o "$build/fuzz_$h" || die "cannot build fuzz_$h"
done

# ---- run ----
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-fuzz.XXXXXX")
failed=()
for h in "${harnesses[@]}"; do
	seeds=()
	[ -d "tests/fuzz/corpus/$h" ] && seeds+=("$root/tests/fuzz/corpus/$h")
	extra="$tmp/$h.extra"
	mkdir -p "$extra"
	case "$h" in
	report_load) for f in tests/data/*.json; do [ -f "$f" ] && cp "$f" "$extra/"; done ;;
	thresholds) for f in tests/data/*thresholds*; do [ -f "$f" ] && cp "$f" "$extra/"; done ;;
	esac
	for f in tests/data/fuzz-regressions/"$h"-*; do
		[ -f "$f" ] && cp "$f" "$extra/"
	done
	seeds+=("$extra")
	if [ -n "${FUZZ_CORPUS:-}" ]; then
		work="$FUZZ_CORPUS/$h"
	else
		work="$tmp/$h.corpus"
	fi
	mkdir -p "$work" "$tmp/$h.artifacts"
	flags=(-artifact_prefix="$tmp/$h.artifacts/" -timeout=10 -rss_limit_mb=2048
		-print_final_stats=1)
	[ -f "tests/fuzz/$h.dict" ] && flags+=(-dict="$root/tests/fuzz/$h.dict")
	case "$h" in
	report_load) flags+=(-max_len=65536) ;;
	thresholds | stress_thresholds) flags+=(-max_len=16384) ;;
	cli) flags+=(-max_len=4096) ;;
	esac
	# known open bugs (tests/data/fuzz-regressions/known-open.txt) do not stop the search
	tolerate=""
	if [ -f tests/data/fuzz-regressions/known-open.txt ]; then
		tolerate=$(awk -v h="$h" '$1 == h { printf "%s%s", sep, $2; sep = "," }' \
			tests/data/fuzz-regressions/known-open.txt)
	fi
	[ -n "$tolerate" ] && say "fuzz_$h: tolerating known open bugs: $tolerate"
	if [ "$seconds" -eq 0 ]; then
		flags+=(-runs=0)
		say "fuzz_$h: replaying the seeds"
	else
		flags+=(-max_total_time="$seconds")
		say "fuzz_$h: fuzzing for ${seconds}s"
	fi
	if [ -n "${FUZZ_JOBS:-}" ] && [ "${FUZZ_JOBS}" -gt 1 ]; then
		flags+=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
	fi
	# shellcheck disable=SC2086 # FUZZ_FLAGS is a list of flags
	if (cd "$tmp" && GPUBENCH_FUZZ_TOLERATE="$tolerate" "$build/fuzz_$h" "${flags[@]}" ${FUZZ_FLAGS:-} "$work" "${seeds[@]}") \
		>"$tmp/$h.log" 2>&1; then
		grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' \
			"$tmp/$h.log" | sed "s/^/fuzz: $h: /" >&2 || true
		say "fuzz_$h: ok ($(find "$work" -type f | wc -l) inputs in the corpus)"
	else
		failed+=("$h")
		say "fuzz_$h: FAILED; the end of its log:"
		tail -n 60 "$tmp/$h.log" >&2
		for a in "$tmp/$h.artifacts"/*; do
			[ -f "$a" ] || continue
			say "crashing input $a ($(wc -c <"$a") bytes); first 512 bytes:"
			head -c 512 "$a" | od -A d -c | head -n 40 >&2
			say "replay: $build/fuzz_$h $a"
			say "pin it: cp $a tests/data/fuzz-regressions/$h-<what>.$([ "$h" = cli ] && echo txt || echo json)"
		done
	fi
done

if [ ${#failed[@]} -gt 0 ]; then
	say "FAILED: ${failed[*]} (logs and crashing inputs kept in $tmp)"
	exit 1
fi
rm -rf "$tmp"
say "all harnesses ok: ${harnesses[*]}"
