#!/usr/bin/env bash
# mutate.sh - the mutation score: do the tests notice a planted bug?
#
# Applies the mutants of scripts/mutants.txt one at a time (an exact piece of
# source text, which must occur exactly once in its file, replaced by another),
# rebuilds incrementally in a build folder of its own (build-mutate/), runs the
# tests the mutant names (or the fast set), puts the file back with
# `git checkout -- FILE` and prints, per mutant, KILLED (by which test) or
# SURVIVED, then the kill ratio. See docs/robustness.md, "Mutation score".
#
#   scripts/mutate.sh                 every mutant, each against its own tests
#   scripts/mutate.sh --list          validate the list and print it (no build;
#                                     exit 1 when a mutant's text does not occur
#                                     exactly once in its file: the list has rotted)
#   scripts/mutate.sh --only 3,7,12   just these mutants (numbers or names)
#   scripts/mutate.sh --tests REGEX   run these tests (ctest -R) for every mutant
#                                     instead of the mutant's own
#   scripts/mutate.sh --timeout S     ctest's --timeout (default 300): the limit for
#                                     a test without its own TIMEOUT property; every
#                                     test here has one (120-300 s for the fast set),
#                                     and a mutant that hangs a test is KILLED by it
#   scripts/mutate.sh --build DIR     the build folder (default build-mutate)
#   scripts/mutate.sh --no-baseline   skip running the chosen tests once unmutated
#   scripts/mutate.sh --log DIR       keep each mutant's build and test output
#                                     (default build-mutate/mutate-logs)
#
# The fast set (a mutant without `tests:`): labels unit, cli, kexec and sim, but
# not the sim_gpu or mpi labels, nor the sim tests with a 600-900 s TIMEOUT
# (sim_run_*, sim_swarm_*, sim_determinism_*, sim_limits_*): those run whole
# suites or many seeds and take minutes each on two cores.
#
# Safety: refuses to start when tracked files have uncommitted changes; before
# each mutant checks that its file is unmodified; restores only the file it
# touched, also on failure, Ctrl-C or SIGTERM (trap). Untracked files are left
# alone.
#
# MUTATE_CMAKE and MUTATE_CTEST name other cmake and ctest commands (the
# script's own test, tests/cli/test_mutants_list.sh, uses stand-ins);
# MUTATE_CMAKE_FLAGS the flags of the first configure; MUTATE_LIST another list.
#
# Exit code: 0 every mutant killed, 1 some survived or could not be run,
# 2 usage, a dirty tree or a broken list, 3 the unmutated tree does not build
# or its tests fail.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
list=${MUTATE_LIST:-$root/scripts/mutants.txt}
build=$root/build-mutate
logs=
only=
tests_override=
timeout_s=300
baseline=yes
want_list=no
jobs=${JOBS:-2}
cmake_bin=${MUTATE_CMAKE:-cmake}
ctest_bin=${MUTATE_CTEST:-ctest}
# PTX for sm_75 alone: nvcc's cheapest build that every simulated GPU (sm_80,
# sm_89, sm_90) accepts (bench/device/gpu.c refuses a GPU the build cannot run on);
# the kernels' mutants are caught on the CPU (tests/kexec), not by nvcc
cmake_flags=${MUTATE_CMAKE_FLAGS:--DCMAKE_CUDA_ARCHITECTURES=75-virtual}
fast_labels='^(unit|cli|kexec|sim)$'
fast_exclude_labels='^(sim_gpu|mpi)$'
fast_exclude='^(sim_run_|sim_swarm_|sim_determinism_|sim_limits_)'

die() {
	echo "mutate: $*" >&2
	exit 2
}

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
	case "$1" in
	--list) want_list=yes ;;
	--only)
		[ $# -ge 2 ] || die "--only needs a list such as 3,7,12"
		only=$2
		shift
		;;
	--tests)
		[ $# -ge 2 ] || die "--tests needs a ctest regex"
		tests_override=$2
		shift
		;;
	--timeout)
		[ $# -ge 2 ] || die "--timeout needs seconds"
		case "$2" in '' | *[!0-9]*) die "cannot parse '$2' as seconds for --timeout" ;; esac
		timeout_s=$2
		shift
		;;
	--build)
		[ $# -ge 2 ] || die "--build needs a folder"
		build=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
		shift
		;;
	--log)
		[ $# -ge 2 ] || die "--log needs a folder"
		logs=$2
		shift
		;;
	--no-baseline) baseline=no ;;
	-h | --help)
		usage
		exit 0
		;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
logs=${logs:-$build/mutate-logs}

# mutants CMD ARGS...: the list's parser and editor (python3, which the tests
# need anyway). CMD is
#   check            validate every mutant; print "N<TAB>name<TAB>kind<TAB>file<TAB>tests<TAB>what"
#   select SPEC      the numbers of the mutants SPEC names ("" = all), one a line
#   apply N          replace mutant N's text in its file (it must occur exactly once)
mutants() {
	python3 - "$list" "$root" "$@" <<'PY'
import os, sys

path, root, cmd = sys.argv[1], sys.argv[2], sys.argv[3]
args = sys.argv[4:]
KEYS = ("mutant", "kind", "file", "tests", "what", "from", "to")
REQUIRED = ("mutant", "kind", "file", "what", "from", "to")


def unescape(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and s[i + 1] in "nt\\":
            out.append({"n": "\n", "t": "\t", "\\": "\\"}[s[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse():
    ms, cur, errs = [], None, []
    with open(path, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            key, sep, val = line.partition(": ")
            if not sep or key not in KEYS:
                errs.append(f"{path}:{ln}: expected 'KEY: value' with KEY one of {', '.join(KEYS)}")
                continue
            if key == "mutant":
                cur = {"line": ln}
                ms.append(cur)
            elif cur is None:
                errs.append(f"{path}:{ln}: '{key}' before the first 'mutant:'")
                continue
            if key in cur:
                errs.append(f"{path}:{ln}: '{key}' twice in one mutant")
            cur[key] = unescape(val) if key in ("from", "to") else val.strip()
    return ms, errs


def check(ms, errs):
    names = set()
    for n, m in enumerate(ms, 1):
        where = f"{path}:{m['line']}: mutant {n}"
        miss = [k for k in REQUIRED if not m.get(k)]
        if miss:
            errs.append(f"{where}: missing {', '.join(miss)}")
            continue
        if m["mutant"] in names:
            errs.append(f"{where}: name '{m['mutant']}' used twice")
        names.add(m["mutant"])
        if m["from"] == m["to"]:
            errs.append(f"{where}: 'from' and 'to' are the same")
        fp = os.path.join(root, m["file"])
        if not os.path.isfile(fp):
            errs.append(f"{where}: no file '{m['file']}'")
            continue
        with open(fp, encoding="utf-8") as f:
            count = f.read().count(m["from"])
        if count != 1:
            errs.append(f"{where} ({m['mutant']}): its text occurs {count} times in {m['file']}, not once")
    return errs


ms, errs = parse()
if cmd == "check":
    errs = check(ms, errs)
    for e in errs:
        print(e, file=sys.stderr)
    for n, m in enumerate(ms, 1):
        print("\t".join([str(n), m.get("mutant", "?"), m.get("kind", "?"), m.get("file", "?"),
                         m.get("tests", ""), m.get("what", "")]))
    sys.exit(1 if errs or not ms else 0)
if cmd == "select":
    spec = args[0] if args else ""
    if not spec:
        print("\n".join(str(n) for n in range(1, len(ms) + 1)))
        sys.exit(0)
    byname = {m.get("mutant"): n for n, m in enumerate(ms, 1)}
    out = []
    for item in spec.split(","):
        item = item.strip()
        if item.isdigit() and 1 <= int(item) <= len(ms):
            out.append(int(item))
        elif item in byname:
            out.append(byname[item])
        else:
            print(f"mutate: no mutant '{item}' (1-{len(ms)} or a name)", file=sys.stderr)
            sys.exit(2)
    print("\n".join(str(n) for n in out))
    sys.exit(0)
if cmd == "apply":
    m = ms[int(args[0]) - 1]
    fp = os.path.join(root, m["file"])
    with open(fp, encoding="utf-8") as f:
        text = f.read()
    if text.count(m["from"]) != 1:
        print(f"mutate: mutant {args[0]}: its text does not occur exactly once in {m['file']}",
              file=sys.stderr)
        sys.exit(1)
    with open(fp, "w", encoding="utf-8") as f:
        f.write(text.replace(m["from"], m["to"], 1))
    sys.exit(0)
sys.exit(f"mutate: internal: unknown command {cmd}")
PY
}

# ---- --list: validate and print; no build, no git ----
if [ "$want_list" = yes ]; then
	if ! table=$(mutants check); then
		echo "mutate: $list is out of date (above); fix the mutants named" >&2
		exit 1
	fi
	printf '%s\n' "$table" | awk -F'\t' '{ printf "%3s  %-28s %-20s %-30s %s\n", $1, $2, $3, $4, $6 }'
	echo "mutate: $(printf '%s\n' "$table" | wc -l) mutants, each text found exactly once"
	exit 0
fi

command -v git >/dev/null || die "git is needed"
cd "$root"
git rev-parse --git-dir >/dev/null 2>&1 || die "$root is not a git checkout"
table=$(mutants check) || die "$list is out of date: run scripts/mutate.sh --list"
selected=$(mutants select "$only") || exit 2
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	die "tracked files have uncommitted changes; commit or stash them first (it restores files with git checkout)"
fi

field() { # field N COLUMN: a column of mutant N's row in the table
	printf '%s\n' "$table" | awk -F'\t' -v n="$1" -v c="$2" '$1 == n { print $c }'
}

# ---- restore on any exit: only the file this run changed ----
touched=
restore() {
	if [ -n "$touched" ]; then
		git checkout -- "$touched"
		touched=
	fi
}
trap 'restore' EXIT
trap 'restore; echo "mutate: interrupted" >&2; exit 130' INT
trap 'restore; echo "mutate: terminated" >&2; exit 143' TERM

mkdir -p "$logs"

configure() { # configure LOG
	[ -f "$build/build.ninja" ] && return 0
	# shellcheck disable=SC2086
	nice "$cmake_bin" -S "$root" -B "$build" -G Ninja $cmake_flags >"$1" 2>&1
}

# targets_for REGEX: what the tests REGEX selects need built, one a line;
# nothing (build everything) when that cannot be told. A test named after
# its executable (unit, kexec, sim_test_*, sim_gpu_*) needs that target; a
# script test (cli_*, the sim end-to-end and fault tests) runs gpubench or
# gpubench-sim, which the fake libraries and fake_nvml come with. Building
# only these spares nvcc a mutated .cu that only tests/kexec runs, and the
# relinking of every other test.
targets_for() {
	local names all t need_bins=no
	command -v ninja >/dev/null || return 0
	all=$(ninja -C "$build" -t targets all 2>/dev/null | sed -n 's/^\([A-Za-z0-9_.-]*\): .*/\1/p') || return 0
	names=$(cd "$build" && "$ctest_bin" -N -R "$1" 2>/dev/null |
		sed -n 's/^ *Test *#[0-9]*: \([^ ]*\)$/\1/p') || return 0
	[ -n "$names" ] && [ -n "$all" ] || return 0
	for t in $names; do
		if grep -qx -- "$t" <<<"$all"; then
			echo "$t"
		else
			need_bins=yes
		fi
	done
	if [ "$need_bins" = yes ]; then
		for t in gpubench gpubench-sim fake_nvml; do
			grep -qx -- "$t" <<<"$all" && echo "$t"
		done
	fi
	return 0
}

build_tree() { # build_tree LOG [REGEX]: everything, or what the tests REGEX need
	local targets=()
	configure "$1" || return 1
	if [ -n "${2:-}" ]; then
		mapfile -t targets < <(targets_for "$2")
	fi
	if [ ${#targets[@]} -gt 0 ]; then
		echo "mutate: building ${targets[*]}" >>"$1"
		nice "$cmake_bin" --build "$build" -j "$jobs" --target "${targets[@]}" >>"$1" 2>&1
	else
		nice "$cmake_bin" --build "$build" -j "$jobs" >>"$1" 2>&1
	fi
}

# run_tests N LOG: the tests of mutant N (0: the union for the baseline);
# ctest's exit code
run_tests() {
	local regex=$tests_override
	[ -n "$regex" ] || [ "$1" = 0 ] || regex=$(field "$1" 5)
	local sel=()
	if [ -n "$regex" ]; then
		sel=(-R "$regex")
	else
		sel=(-L "$fast_labels" -LE "$fast_exclude_labels" -E "$fast_exclude")
	fi
	(cd "$build" && nice "$ctest_bin" "${sel[@]}" --stop-on-failure --no-tests=error \
		--timeout "$timeout_s" -j "$jobs" --output-on-failure) >"$2" 2>&1
}

# first_failure LOG: "NAME (Failed|Timeout|...)" of the first failed test
first_failure() {
	sed -n '/The following tests FAILED:/,$p' "$1" |
		sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (\(.*\))$/\1 (\2)/p' | head -1
}

echo "mutate: build folder $build, logs in $logs"
if ! build_tree "$logs/baseline-build.log"; then
	echo "mutate: the unmutated tree does not build: $logs/baseline-build.log" >&2
	exit 3
fi
if [ "$baseline" = yes ]; then
	# every regex the chosen mutants name, and the fast set if one names none
	regexes=$(for n in $selected; do
		r=$tests_override
		[ -n "$r" ] || r=$(field "$n" 5)
		printf '%s\n' "${r:-FAST}"
	done | sort -u)
	while IFS= read -r r; do
		[ -n "$r" ] || continue
		if [ "$r" = FAST ]; then t=; else t=$r; fi
		if ! tests_override=$t run_tests 0 "$logs/baseline-tests.log"; then
			echo "mutate: the unmutated tree fails its tests ($r): $(first_failure "$logs/baseline-tests.log")" >&2
			echo "mutate: see $logs/baseline-tests.log" >&2
			exit 3
		fi
	done <<<"$regexes"
	echo "mutate: baseline passes"
fi

killed=0 survived=0 errors=0 total=0
survivors=
for n in $selected; do
	name=$(field "$n" 2)
	file=$(field "$n" 4)
	total=$((total + 1))
	if [ -n "$(git status --porcelain -- "$file")" ]; then
		printf '%3d %-28s ERROR: %s has local changes; not touched\n' "$n" "$name" "$file"
		errors=$((errors + 1))
		continue
	fi
	touched=$file
	if ! mutants apply "$n"; then
		restore
		printf '%3d %-28s ERROR: could not apply\n' "$n" "$name"
		errors=$((errors + 1))
		continue
	fi
	log=$logs/$n-$name.log
	start=$(date +%s)
	regex=$tests_override
	[ -n "$regex" ] || regex=$(field "$n" 5)
	if ! build_tree "$log" "$regex"; then
		verdict="KILLED by the build"
		killed=$((killed + 1))
	elif run_tests "$n" "$log.tests"; then
		verdict="SURVIVED"
		survived=$((survived + 1))
		survivors="$survivors $n"
	elif grep -q 'No tests were found' "$log.tests"; then
		verdict="ERROR: no test matches '$(field "$n" 5)'"
		errors=$((errors + 1))
	else
		verdict="KILLED by $(first_failure "$log.tests")"
		killed=$((killed + 1))
	fi
	restore
	if [ -n "$(git status --porcelain -- "$file")" ]; then
		die "internal: $file is not back to its committed text"
	fi
	printf '%3d %-28s %s (%ds)\n' "$n" "$name" "$verdict" $(($(date +%s) - start))
done

echo "mutate: killed $killed of $total ($((total ? 100 * killed / total : 0))%), survived $survived${survivors:+ (mutants$survivors)}, errors $errors"
[ "$survived" -eq 0 ] && [ "$errors" -eq 0 ]
