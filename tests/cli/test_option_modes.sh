#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Options that a mode ignores, spellings that changed, and output formats
# (issue 26, item 4); test_option_meanings.sh checks the tables themselves.
#   - an option the chosen mode ignores is exit 2 with one line saying why:
#     stress --period/--duty without --profile pulse, scaling --workload gemm
#     with --grad-bytes/--bucket/--overlap/--link, nccl --root without broadcast
#     or reduce, p2p --bytes with --latency-only; theory neither lists nor takes -d;
#   - p2p --latency-only allocates no bandwidth buffer (it ran out of memory on a
#     GPU smaller than 2 x 256 MiB; 2 GiB with --size 1G);
#   - an old spelling says what replaced it (exit 2, one line);
#   - -o FILE.ext writes the format of its extension in every command, and
#     --json works in every command but help (version prints its facts as JSON).
# shellcheck source=tests/cli/lib.sh disable=SC1091,SC2154 # rc, out, err come from lib.sh's run
. "$(dirname "$0")/lib.sh"
set -o pipefail

DATA=${GPUBENCH_TEST_DATA:-$HERE/../data}
ERR='^gpubench: error: '
gpu=no
have_gpu && gpu=yes

# one error line matching PATTERN, exit 2
bad() {
	local what=$1 pattern=$2
	shift 2
	run "$BIN" "$@"
	expect_rc 2 "$what"
	expect_one_error "$ERR$pattern" "$what"
}

# accepted: past the options, not exit 2 (without a GPU the probe then exits 3;
# built without NCCL, nccl exits 4). On a GPU machine these would measure, so
# they are left to the bad cases there.
accepted() {
	local what=$1
	shift
	[ "$gpu" = no ] || return 0
	run "$BIN" "$@"
	checks=$((checks + 1))
	[ "$rc" -ne 2 ] || fail "$what: refused (exit 2): $err"
}

# ---- what a mode ignores ----
for opt in "--period 5s" "--duty 30%"; do
	name=${opt%% *}
	# shellcheck disable=SC2086 # the option and its value are two words
	bad "stress $opt without pulse" "'$name' applies only with '--profile pulse' \(the profile is 'sustained'\)$" \
		stress $opt
	# shellcheck disable=SC2086
	bad "stress --profile ramp $opt" "'$name' applies only with '--profile pulse' \(the profile is 'ramp'\)$" \
		stress --profile ramp $opt
	# shellcheck disable=SC2086
	accepted "stress --profile pulse $opt" stress --profile pulse $opt -q
done

for opt in "--grad-bytes 1G" "--bucket 4M" "--overlap" "--link pcie4"; do
	name=${opt%% *}
	# shellcheck disable=SC2086
	bad "scaling --workload gemm $opt" "'$name' applies only with '--workload ddp': the gemm workload has no all-reduce$" \
		scaling --workload gemm $opt
	# shellcheck disable=SC2086
	accepted "scaling --workload ddp $opt" scaling --workload ddp $opt -q
done

for ops in allreduce "allgather,reducescatter,alltoall"; do
	bad "nccl --op $ops --root 1" "'--root' applies only to '--op broadcast' and '--op reduce'" \
		nccl --op "$ops" --root 1
done
bad "nccl --root 0 with the default op (allreduce)" "'--root' applies only to" nccl -r 0
accepted "nccl --op broadcast --root 1" nccl --op broadcast --root 1 -q
accepted "nccl --op all --root 1" nccl --op all -r 1 -q

run "$BIN" theory --help
expect_rc 0 "theory --help"
checks=$((checks + 1))
if grep -qE -- '^  -d, |--devices' <<<"$out"; then
	fail "theory --help lists --devices, which theory refuses"
fi
expect_out '^  -o, --output FILE' "theory --help still lists -o"
bad "theory -d 0" "'-d' does not apply: 'theory' uses no GPU" theory --gpu h100-sxm -d 0
bad "theory --devices 0" "'--devices' does not apply: 'theory' uses no GPU" theory --gpu h100-sxm --devices 0

bad "p2p --latency-only --bytes 1G" "'--bytes' does not apply with '--latency-only'" \
	p2p --latency-only --bytes 1G
accepted "p2p --bytes 1G" p2p --bytes 1G -q
accepted "p2p --latency-only" p2p --latency-only -q

# latency alone allocates no 2 x --bytes: on the simulated GPU with 256 MiB it runs
SIM=$(dirname "$BIN")/gpubench-sim
MACHINES=$HERE/../sim/machines
# (only a simulator built from the same tree: make sanitize builds gpubench alone)
if [ -x "$SIM" ] && [ -f "$MACHINES/h100-sxm.json" ] &&
	grep -q -- '--bytes SIZE' <<<"$("$SIM" p2p --help 2>/dev/null)"; then
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for g in d["gpus"]:
    g["memory"] = "256M"
json.dump(d, open(sys.argv[2], "w"))' "$MACHINES/h100-sxm.json" "$TMP/m256.json"
	GPUBENCH_SIM_MACHINE=$TMP/m256.json run "$SIM" p2p --latency-only -q -o "$TMP/lat.json"
	expect_rc 0 "p2p --latency-only on a 256 MiB GPU (was: out of memory for 2 x 256 MiB)"
	checks=$((checks + 1))
	[ "$(json_get "$TMP/lat.json" '["benchmarks"][0]["status"]')" = passed ] ||
		fail "p2p --latency-only on a 256 MiB GPU did not pass"
fi

# ---- old spellings say what replaced them ----
bad "p2p --size" "'--size' is now '--bytes'" p2p --size 1G
bad "p2p -s" "'-s' is now '--bytes'" p2p -s 1G
bad "nccl --warmup" "'--warmup' is now '--warmup-iters'" nccl --warmup 3
bad "nccl -n" "'-n' is no longer short for '--iters'; use '--iters'" nccl -n 5
bad "bandwidth -t" "'-t' is no longer short for '--tests'; use '--tests'" bandwidth -t h2d
bad "compare -t" "'-t' is no longer short for '--tolerance'; use '--tolerance'" \
	compare -t 5% "$DATA/base.json" "$DATA/base.json"
bad "stress -p" "'-p' is no longer short for '--precision'; use '--precision'" stress -p fp16
# the spellings kept: nccl-tests' -w, stress's -t
accepted "nccl -w 3" nccl -w 3 -q
accepted "nccl --warmup-iters 3 --iters 5" nccl --warmup-iters 3 --iters 5 -q
accepted "stress -t 1s" stress -t 1s -q

# ---- -o FILE.ext: the format of the extension, in every command ----
# expect_format FILE PATTERN DESCRIPTION: FILE was written and starts as PATTERN says
expect_format() {
	local file=$1 pattern=$2 what=$3
	checks=$((checks + 1))
	if [ ! -s "$file" ]; then
		fail "$what: nothing written to $file (exit $rc; $err)"
	elif ! head -c 2000 "$file" | grep -qE -- "$pattern"; then
		fail "$what: $file does not start as expected ('$pattern'): $(head -c 80 "$file" | tr '\n' ' ')"
	fi
}
HTML='^<!DOCTYPE html>'
MD='^## '
JSON='^\{'
CSV='^benchmark,metric,'

# info and gemm without a GPU still write their (error) report
if [ "$gpu" = no ]; then
	run "$BIN" info -o "$TMP/info.html"
	expect_format "$TMP/info.html" "$HTML" "info -o x.html"
	run "$BIN" info -o "$TMP/info.md"
	expect_format "$TMP/info.md" "$MD" "info -o x.md"
	run "$BIN" gemm -q -o "$TMP/gemm.csv"
	expect_format "$TMP/gemm.csv" "$CSV" "gemm -o x.csv"
	run "$BIN" info -o "$TMP/info.json"
	expect_format "$TMP/info.json" "$JSON" "info -o x.json"
	# no extension that names a format: JSON, as before
	run "$BIN" info -o "$TMP/info.out"
	expect_format "$TMP/info.out" "$JSON" "info -o x.out"
fi
run "$BIN" theory --gpu h100-sxm -q -o "$TMP/theory.html"
expect_rc 0 "theory -o x.html"
expect_format "$TMP/theory.html" "$HTML" "theory -o x.html"

for ext in md markdown; do
	run "$BIN" report "$DATA/base.json" -o "$TMP/r.$ext"
	expect_rc 0 "report -o r.$ext"
	expect_format "$TMP/r.$ext" "$MD" "report -o r.$ext"
done
run "$BIN" compare "$DATA/base.json" "$DATA/base.json" -q -o "$TMP/cmp.md"
expect_rc 0 "compare -o x.md"
expect_format "$TMP/cmp.md" "$MD|^#|\|" "compare -o x.md"
checks=$((checks + 1))
if head -c 1 "$TMP/cmp.md" | grep -q '{'; then
	fail "compare -o x.md wrote JSON"
fi
run "$BIN" compare "$DATA/base.json" "$DATA/improved.json" -q -o "$TMP/cmp.json"
expect_format "$TMP/cmp.json" "$JSON" "compare -o x.json"

# ---- --json in every command but help ----
commands=$("$BIN" help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { exit }')
for cmd in $commands; do
	[ "$cmd" != help ] || continue
	run "$BIN" "$cmd" --help
	checks=$((checks + 1))
	grep -qE -- '^ +--json ' <<<"$out" || fail "$cmd --help lists no --json"
done
run "$BIN" report "$DATA/base.json" --json
expect_rc 0 "report --json"
checks=$((checks + 1))
python3 -c 'import json,sys; json.loads(sys.stdin.read())' <<<"$out" 2>/dev/null || fail "report --json: stdout is not JSON"
run "$BIN" compare "$DATA/base.json" "$DATA/base.json" --json
expect_rc 0 "compare --json"
checks=$((checks + 1))
python3 -c 'import json,sys; assert json.loads(sys.stdin.read())["schema"].startswith("gpubench.compare/")' <<<"$out" 2>/dev/null ||
	fail "compare --json: stdout is not the JSON comparison"
run "$BIN" version --json
expect_rc 0 "version --json"
checks=$((checks + 1))
python3 -c 'import json,sys; assert json.loads(sys.stdin.read())["name"] == "gpubench"' <<<"$out" 2>/dev/null ||
	fail "version --json: stdout is not JSON"
run "$BIN" theory --gpu h100-sxm --json
expect_rc 0 "theory --json"
checks=$((checks + 1))
python3 -c 'import json,sys; json.loads(sys.stdin.read())' <<<"$out" 2>/dev/null || fail "theory --json: stdout is not JSON"
bad "report --json --format csv" "'--json' and '--format csv' both choose the format" \
	report "$DATA/base.json" --json --format csv
bad "compare --json --format csv" "'--json' and '--format csv' both choose the format of stdout" \
	compare "$DATA/base.json" "$DATA/improved.json" --json --format csv
bad "compare --json -o -" "'-o -' and '--json' both write the comparison to stdout" \
	compare "$DATA/base.json" "$DATA/improved.json" --json -o -

finish
