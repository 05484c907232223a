#!/usr/bin/env bash
# Bad input, for every command `gpubench --help` lists: one clear line on
# stderr ("gpubench: error: ..."), exit 2, nothing measured, and an existing
# report file never clobbered by a failed run.
#
# The commands and their options are discovered from `--help`, so a new
# command or option is covered the day it appears. Each option gets the bad
# values its type allows to be tried without guessing (the metavariable and
# the "[range]" / "[one of: ...]" of its help line say which type it is):
#   SIZE   0 (when the range starts above 0), -1, 1e30, abc, 12Q, ''
#   N      -1 (when the range starts at 0 or above), 1.5, 1e30, abc, ''
#   TIME   10 (no unit), -1s, 1e30h (when the range has a top), abc, ''
#   PCT    90 (no %), -1% (when the range starts at 0 or above), 1e30%, abc, ''
#   other numbers with a range: -1 (when the range starts at 0 or above), 1e999, abc, ''
#   enum   bogus, ''            enum list  bogus, '', 'a,,b'-style empty element
#   int list  '', abc, 1,,2, 1:2 (half a range), -1
#   devices   '', 0,0, -1, 1-0, abc; 99 (beyond the last GPU: exit 2 on a GPU
#             machine; without one, exit 3 "could not run", since the GPU count
#             is unknown, and still one line)
#   switches  --switch=1 (takes no value)
#   every command: an unknown long and short option, a stray argument (for
#             commands that take no files), -o into a missing folder and onto a
#             folder (refused before anything runs), --min-X above --max-X
#             where a command has such a pair, a missing --thresholds file.
# report and compare, when built, also get truncated and hostile JSON: a 0-byte
# file, a binary file, deep nesting (100000 levels), huge numbers, strings where
# numbers belong, a folder, a missing file; so do --thresholds files. Last, a
# hostile environment: secrets never reach the report, only whitelisted
# variables do, recorded whole and escaped.
#
# lib.sh's run() keeps going after a failing command, so this script uses
# `set -u -o pipefail` (from lib.sh and here) but not -e.
# shellcheck source=tests/cli/lib.sh disable=SC1091,SC2154 # rc, out, err come from lib.sh's run
. "$(dirname "$0")/lib.sh"
set -o pipefail

DATA=${GPUBENCH_TEST_DATA:-$HERE/../data}
ERR='^gpubench: error: '
skipped=()

# one error line, exit 2
bad() {
	local what=$1 pattern=$2
	shift 2
	run "$BIN" "$@"
	expect_rc 2 "$what"
	expect_one_error "$ERR.*$pattern" "$what"
}

# ---- the commands, and each one's options, from --help ----
commands=$("$BIN" --help | awk '/^commands:/ { f = 1; next } /^$/ { f = 0 } f { print $1 }')
[ -n "$commands" ] || fail "no commands found in 'gpubench --help'"

# "long<TAB>short<TAB>metavar<TAB>kind<TAB>lo<TAB>hi" for each option of a command's --help:
# kind is enum, enumlist, intlist, range, or none; lo/hi are the range's ends as printed.
options_of() {
	"$BIN" "$1" --help | python3 -c '
import re, sys
lines = sys.stdin.read().split("\n")
try:
    start = lines.index("options:") + 1
except ValueError:
    sys.exit(0)
opts = []
for line in lines[start:]:
    m = re.match(r"^  (?:-(\w)(?:, )?)?(?:\s*--([a-z0-9][a-z0-9-]*))?(?: ([A-Z][A-Z0-9_,.]*))?(?:\s{2,}(.*))?$", line)
    if line.startswith("  ") and m and (m.group(1) or m.group(2)):
        opts.append([m.group(2) or "", m.group(1) or "", m.group(3) or "", m.group(4) or ""])
    elif opts and line.startswith("      ") and line.strip():
        opts[-1][3] += " " + line.strip()  # help on its own line after a long option
for long, short, meta, text in opts:
    if long == "help":
        continue
    kind, lo, hi = "none", "", ""
    b = re.search(r"\[([^\[\]]*)\]\s*$", text)
    if b:
        inner = b.group(1)
        if inner.startswith("one of:"):
            kind = "enum"
        elif inner.startswith("any of:"):
            kind = "enumlist"
        elif inner.startswith("each "):
            kind = "intlist"
        elif inner.startswith(">= "):
            kind, lo = "range", inner[3:]
        elif ".." in inner:
            kind = "range"
            lo, hi = inner.split("..", 1)
    print("\t".join([long, short, meta, kind, lo, hi]))
'
}

# does a range's low end (as printed: "16 B", "1ms", "0%", "-1e+06") exclude $1 (0 or -1)?
lo_above() {
	python3 -c '
import re, sys
lo, v = sys.argv[1], float(sys.argv[2])
m = re.match(r"^\s*([-+]?[0-9.]+(?:e[-+]?[0-9]+)?)", lo)
print("yes" if m and float(m.group(1)) > v else "no")' "$1" "$2"
}

# arguments that make a command's invocation valid apart from what a case breaks
valid_args() {
	case "$1" in
	theory) printf '%s' "--gpu h100-sxm" ;;
	report) printf '%s' "$DATA/report_example.json" ;;
	compare) printf '%s %s' "$DATA/report_example.json" "$DATA/report_example.json" ;;
	esac
}

# the name to give an option on the command line: --long, else -s
flag_of() {
	if [ -n "$1" ]; then printf -- '--%s' "$1"; else printf -- '-%s' "$2"; fi
}

# value tests for one option of one command
option_cases() {
	local cmd=$1 long=$2 short=$3 meta=$4 kind=$5 lo=$6 hi=$7
	local flag name vals=() v
	flag=$(flag_of "$long" "$short")
	name=${long:-$short}

	if [ -z "$meta" ]; then
		# a switch: it takes no value
		[ -n "$long" ] && bad "$cmd $flag=1" "takes no value" "$cmd" "$flag=1"
		return
	fi
	if [ "$long" = devices ]; then
		for v in '' '0,0' '-1' '1-0' 'abc' '0,,1'; do
			# scaling takes 0,0 on purpose: two workers on one GPU show contention
			[ "$cmd" = scaling ] && [ "$v" = 0,0 ] && continue
			bad "$cmd $flag '$v'" "$flag" "$cmd" "$flag" "$v"
		done
		run "$BIN" "$cmd" "$flag" 99 -q
		if have_gpu; then
			expect_rc 2 "$cmd $flag 99 on a GPU machine"
			expect_one_error "${ERR}device index 99 is beyond the last GPU" "$cmd $flag 99"
		elif [ "$rc" -eq 3 ]; then
			# without a driver the GPU count is unknown: could not run, one line
			expect_one_error "$ERR" "$cmd $flag 99 without a GPU"
		else
			expect_rc 2 "$cmd $flag 99 without a GPU (exit 2 or 3)"
			expect_one_error "$ERR" "$cmd $flag 99 without a GPU"
		fi
		return
	fi
	case "$kind" in
	enum) vals=('bogus-choice' '') ;;
	enumlist) vals=('bogus-choice' '' ',') ;;
	intlist) vals=('' 'abc' '1,,2' '1:2' '-1') ;;
	range | none)
		case "$meta" in
		SIZE)
			vals=('-1' '1e30' 'abc' '12Q' '')
			[ "$kind" = range ] && [ "$(lo_above "$lo" 0)" = yes ] && vals+=('0')
			;;
		N)
			vals=('1.5' '1e30' 'abc' '')
			[ "$kind" = none ] || [ "$(lo_above "$lo" -1)" = yes ] && vals+=('-1')
			[ "$kind" = range ] && [ "$(lo_above "$lo" 0)" = yes ] && vals+=('0')
			;;
		TIME)
			vals=('10' '-1s' 'abc' '')
			[ -n "$hi" ] && vals+=('1e30h')
			;;
		PCT)
			vals=('90' 'abc' '' '1e30%')
			[ "$kind" = none ] || [ "$(lo_above "$lo" -1)" = yes ] && vals+=('-1%')
			;;
		*)
			# a number of another kind when it has a range; otherwise a string
			[ "$kind" = range ] || return 0
			vals=('1e999' 'abc' '')
			[ "$(lo_above "$lo" -1)" = yes ] && vals+=('-1')
			;;
		esac
		;;
	esac
	for v in "${vals[@]}"; do
		bad "$cmd $flag '$v'" "$flag|$name" "$cmd" "$flag" "$v"
		# the --name=value spelling reaches the same check
		[ -n "$long" ] && [ -n "$v" ] && bad "$cmd $flag='$v'" "$flag|$name" "$cmd" "$flag=$v"
	done
	return 0
}

for cmd in $commands; do
	case "$cmd" in
	help)
		bad "help --bogus" "not a gpubench command" help --bogus
		continue
		;;
	version)
		bad "version --bogus" "unexpected argument|unknown option" version --bogus
		continue
		;;
	esac
	opts=$(options_of "$cmd")
	if [ -z "$opts" ]; then
		fail "$cmd --help lists no options"
		continue
	fi

	# unknown options, in both spellings, and a near miss
	bad "$cmd unknown long option" "unknown option '--no-such-option'" "$cmd" --no-such-option
	bad "$cmd unknown short option" "unknown option '-Z'" "$cmd" -Z
	bad "$cmd single-dash long option" "unknown option" "$cmd" -output x.json
	switch=$(printf '%s\n' "$opts" | awk -F'\t' '$3 == "" && $1 != "" { print $1; exit }')
	if [ -n "$switch" ]; then
		bad "$cmd unknown option after a good one" "unknown option '--bogus'" \
			"$cmd" "--$switch" --bogus
	fi
	read -r -a valid <<<"$(valid_args "$cmd")"

	# a stray argument, for commands that take no files
	if ! "$BIN" "$cmd" --help | head -n 3 | grep -qE "^usage: .*(FILE|\.json)"; then
		bad "$cmd stray argument" "unexpected argument 'stray'" "$cmd" stray
	fi

	has_output=no
	while IFS=$'\t' read -r long short meta kind lo hi; do
		[ -n "$long$short" ] || continue
		option_cases "$cmd" "$long" "$short" "$meta" "$kind" "$lo" "$hi"
		[ "$long" = output ] && has_output=yes
		if [ "$long" = thresholds ]; then
			bad "$cmd --thresholds missing file" "$TMP/no-such-thresholds.json" \
				"$cmd" --thresholds "$TMP/no-such-thresholds.json"
		fi
		# --min-X above --max-X
		case "$long" in
		min-*)
			max=${long#min-}
			if printf '%s\n' "$opts" | cut -f1 | grep -qx "max-$max"; then
				case "$meta" in
				SIZE) big=1G small=1M ;;
				TIME) big=10s small=1s ;;
				*) big=100 small=10 ;;
				esac
				bad "$cmd --$long above --max-$max" "--$long|--max-$max|$max" \
					"$cmd" "--$long" "$big" "--max-$max" "$small"
			fi
			;;
		esac
	done <<<"$opts"

	if [ "$has_output" = yes ]; then
		# an unwritable report path is refused before anything runs
		bad "$cmd -o into a missing folder" "$TMP/no/such/dir/r.json" \
			"$cmd" "${valid[@]}" -o "$TMP/no/such/dir/r.json"
		bad "$cmd -o onto a folder" "'/'" "$cmd" "${valid[@]}" -o /
		# a failed (usage-error) run never clobbers an existing report
		sentinel="$TMP/sentinel-$cmd.json"
		printf '{"sentinel": "%s"}\n' "$cmd" >"$sentinel"
		cp "$sentinel" "$sentinel.orig"
		bad "$cmd bad option with -o sentinel" "unknown option" "$cmd" --bogus -o "$sentinel"
		bad "$cmd -o sentinel then bad option" "unknown option" "$cmd" -o "$sentinel" --bogus
		first=$(printf '%s\n' "$opts" | awk -F'\t' '$4 == "enum" && $1 != "" { print $1; exit }')
		if [ -n "$first" ]; then
			bad "$cmd bad --$first with -o sentinel" "--$first" \
				"$cmd" -o "$sentinel" "--$first" bogus-choice
		fi
		checks=$((checks + 1))
		cmp -s "$sentinel" "$sentinel.orig" ||
			fail "$cmd: a usage error changed the existing report $sentinel"
		checks=$((checks + 1))
		if compgen -G "$sentinel.tmp.*" >/dev/null; then
			fail "$cmd: a temporary report file was left behind"
		fi
	fi
done

# ---- values only a command's own code can judge (when the command and option exist) ----
has_opt() { "$BIN" "$1" --help 2>/dev/null | grep -qE -- "(^|[ ,])--$2( |$)"; }
has_cmd() { printf '%s\n' "$commands" | grep -qx "$1"; }
good="$DATA/report_example.json"
if has_cmd theory && has_opt theory gpu; then
	bad "theory --gpu unknown" "no-such-gpu" theory --gpu no-such-gpu
	has_opt theory compare && bad "theory --compare unknown" "no-such-gpu" \
		theory --gpu h100-sxm --compare no-such-gpu
fi
if has_cmd compare; then
	if has_opt compare price; then
		for v in abc 1 1,2,3 -1,2 ',' ''; do
			bad "compare --price '$v'" "--price" compare "$good" "$good" --price "$v"
		done
	fi
	if has_opt compare metric-tolerance; then
		for v in tflops tflops=abc =5% 'tflops=5' ''; do
			bad "compare --metric-tolerance '$v'" "--metric-tolerance" \
				compare "$good" "$good" --metric-tolerance "$v"
		done
	fi
fi
if has_cmd report && has_opt report merge; then
	bad "report --merge with one file" "merge" report --merge "$good"
fi
if has_cmd stress && has_opt stress size; then
	bad "stress --size not a multiple of 256" "--size" stress --size 100
fi

# ---- report and compare on truncated and hostile JSON ----
hostile="$TMP/hostile"
mkdir -p "$hostile"
: >"$hostile/empty.json"
head -c 300 "$good" >"$hostile/truncated.json"
printf '\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe\x00\x01binary\x00\x80\x81' >"$hostile/binary.json"
python3 -c 'import sys; sys.stdout.write("[" * 100000 + "]" * 100000)' >"$hostile/nested-arrays.json"
python3 -c 'import sys; sys.stdout.write("{\"a\":" * 100000 + "1" + "}" * 100000)' >"$hostile/nested-objects.json"
printf '{"schema": "gpubench.report/1", "run": {"exit_code": 1e400}, "devices": [{"index": 1e300}]}\n' \
	>"$hostile/huge-numbers.json"
printf '{"schema": "gpubench.report/1", "devices": [{"index": "0", "sm_count": "132"}]}\n' \
	>"$hostile/strings-for-numbers.json"
printf '{"schema": "gpubench.report/1", "benchmarks": [{"name": "gemm", "status": "passed", "metrics": [{"name": "tflops", "value": "fast"}]}]}\n' \
	>"$hostile/string-metric.json"
printf '{"schema": "gpubench.report/1", "benchmarks": {"name": "gemm"}}\n' >"$hostile/object-for-array.json"
printf '{"schema": "gpubench.report/99"}\n' >"$hostile/newer-schema.json"
printf '{"not": "a report"}\n' >"$hostile/not-a-report.json"
printf '{"schema": "gpubench.report/1"} trailing\n' >"$hostile/trailing-garbage.json"
printf '{"schema": "gpubench.report/1", "run": {"command": "a\\u0000b"}}x' >"$hostile/nul-and-garbage.json"
printf '{"schema": "gpubench.report/1"}\0{"more": 1}\n' >"$hostile/embedded-nul.json"
mkdir -p "$hostile/a-folder.json"

if printf '%s\n' "$commands" | grep -qx report; then
	for f in "$hostile"/*.json; do
		bad "report $(basename "$f")" "" report "$f"
		bad "report --format json $(basename "$f")" "" report --format json "$f"
	done
	bad "report missing file" "$TMP/no-such.json" report "$TMP/no-such.json"
	# and the output is refused before the input is read
	bad "report -o into a missing folder" "$TMP/no/dir" report "$good" -o "$TMP/no/dir/out.json"
else
	skipped+=(report)
fi

if printf '%s\n' "$commands" | grep -qx compare; then
	for f in "$hostile"/*.json; do
		bad "compare good $(basename "$f")" "" compare "$good" "$f"
		bad "compare $(basename "$f") good" "" compare "$f" "$good"
	done
	bad "compare missing file" "$TMP/no-such.json" compare "$good" "$TMP/no-such.json"
	bad "compare one file" "" compare "$good"
	bad "compare three files" "" compare "$good" "$good" "$good"
else
	skipped+=(compare)
fi

# the same hostile files as --thresholds of the commands that take one, and a folder
for cmd in run stress; do
	if ! has_cmd "$cmd" || ! has_opt "$cmd" thresholds; then
		continue
	fi
	for f in "$hostile"/*.json "$good"; do
		bad "$cmd --thresholds $(basename "$f")" "" "$cmd" --thresholds "$f"
	done
done

# ---- a hostile environment: only whitelisted variables reach the report ----
# (secrets stay out; a whitelisted value with control characters or of 100 kB is
# recorded as JSON, and the report still validates)
if has_cmd info; then
	envrep="$TMP/env.json"
	big=$(head -c 100000 /dev/zero | tr '\0' 'x')
	run env SECRET_TOKEN=hunter2-secret AWS_SECRET_ACCESS_KEY=aws-secret-value \
		LD_PRELOAD= NCCL_DEBUG="$big" NCCL_SOCKET_IFNAME=$'eth0\n\x1b[2Jforged' \
		"$BIN" info -q -o "$envrep"
	checks=$((checks + 1))
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
		fail "info in a hostile environment: exit $rc: $err"
	elif [ ! -f "$envrep" ]; then
		fail "info in a hostile environment wrote no report"
	else
		validate "$envrep"
		checks=$((checks + 1))
		if grep -qE 'hunter2-secret|aws-secret-value|SECRET_TOKEN|AWS_SECRET_ACCESS_KEY' "$envrep"; then
			fail "a variable outside the whitelist reached the report"
		fi
		checks=$((checks + 1))
		python3 - "$envrep" <<'PY' || fail "the report's environment is not the whitelisted variables"
import json, sys
env = json.load(open(sys.argv[1]))["environment"]
assert len(env.get("NCCL_DEBUG", "")) == 100000, "NCCL_DEBUG not recorded whole"
assert env.get("NCCL_SOCKET_IFNAME") == "eth0\n\x1b[2Jforged", "control characters mangled"
assert "LD_PRELOAD" not in env and "PATH" not in env and "HOME" not in env, sorted(env)
PY
	fi
fi

if [ ${#skipped[@]} -gt 0 ]; then
	echo "not built yet, skipped: ${skipped[*]}"
fi
finish
