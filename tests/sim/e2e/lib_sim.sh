# lib_sim.sh - helpers for the end-to-end tests on the simulated GPU.
# A test is `bash tests/sim/e2e/test_CMD.sh MACHINE.json`: it runs one command
# of build/gpubench-sim (GPUBENCH_BIN) on that machine file and checks the exit
# code, the verdict, the key metrics and the report against the schema.
# shellcheck source=../../cli/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../../cli/lib.sh"

MACHINE=${1:?usage: test_CMD.sh MACHINE.json}
case "$MACHINE" in
/*) ;;
*) MACHINE="$HERE/../sim/machines/$MACHINE" ;;
esac
[ -f "$MACHINE" ] || { echo "no machine file '$MACHINE'" >&2; exit 2; }
export GPUBENCH_SIM_MACHINE=$MACHINE
export NO_COLOR=1
# every leak of a device allocation, stream, event, graph or communicator fails the test
export GBSIM_LEAKS_FATAL=1
SIM_E2E=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GPUS=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["gpus"]))' "$MACHINE")
MACHINE_NAME=$(basename "$MACHINE" .json)

# sim_run NAME ARGS...: gpubench-sim ARGS -o $TMP/NAME.json; sets $rc, $out, $err, $REPORT
sim_run() {
	local name=$1
	shift
	REPORT="$TMP/$name.json"
	run "$BIN" "$@" -o "$REPORT"
}

# expect_rc_in "0 1" DESCRIPTION
expect_rc_in() {
	checks=$((checks + 1))
	case " $1 " in
	*" $rc "*) ;;
	*) fail "$2: exit $rc, expected one of $1; stderr: $(printf '%s' "$err" | tail -5)" ;;
	esac
}

# jq-like check: expect_json FILE PYTHON-BOOL-EXPR-ON-d DESCRIPTION
expect_json() {
	checks=$((checks + 1))
	if ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
		"$1" "$2" 2>"$TMP/pyerr"; then
		fail "$3: $1 fails '$2' $(cat "$TMP/pyerr")"
	fi
}

# expect_report FILE: written, valid against the schema, marked simulated
expect_report() {
	checks=$((checks + 1))
	if [ ! -s "$1" ]; then
		fail "no report at $1 (exit $rc; stderr: $(printf '%s' "$err" | tail -3))"
		return
	fi
	validate "$1"
	expect_json "$1" 'd["host"]["simulated"] is True' "host.simulated"
	checks=$((checks + 1))
	printf '%s' "$out" | head -1 | grep -q '^simulated GPU' ||
		fail "the summary does not start with the simulated line: $(printf '%s' "$out" | head -1)"
}

# metric_names FILE BENCH: every metric name of that benchmark, one a line
metric_names() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    if b["name"] == sys.argv[2]:
        for m in b.get("metrics", []):
            print(m["name"])' "$1" "$2"
}

# expect_metric FILE BENCH REGEX: some metric of BENCH matches REGEX and has a number
expect_metric() {
	checks=$((checks + 1))
	if ! python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
ok = any(re.search(sys.argv[3], m["name"]) and isinstance(m.get("value"), (int, float))
         for b in d["benchmarks"] if b["name"] == sys.argv[2] for m in b.get("metrics", []))
sys.exit(0 if ok else 1)' "$1" "$2" "$3"; then
		fail "$2: no metric matching '$3' with a value in $1; has: $(metric_names "$1" "$2" | tr '\n' ' ' | cut -c1-300)"
	fi
}

# expect_check FILE BENCH NAME STATUS: the benchmark's check NAME has STATUS
expect_check() {
	checks=$((checks + 1))
	local got
	got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(c["status"] for b in d["benchmarks"] if b["name"] == sys.argv[2]
               for c in b.get("checks", []) if c["name"] == sys.argv[3]) or "absent")' "$1" "$2" "$3")
	case " $got " in
	*" $4 "*) [ "$(printf '%s\n' $got | sort -u)" = "$4" ] || fail "$2 check $3: statuses '$got', expected all $4" ;;
	*) fail "$2 check $3: '$got', expected $4" ;;
	esac
}

# expect_predicted KIND FILE: every value of the report that expect.py can
# predict from the machine file (GPUBENCH_SIM_MACHINE, the one the run used)
# and the simulator's catalog lies within the file's noise of the prediction
expect_predicted() {
	checks=$((checks + 1))
	local said
	if ! said=$(python3 "$SIM_E2E/expect.py" "$1" "$2" "$GPUBENCH_SIM_MACHINE" 2>&1); then
		fail "$1 on $MACHINE_NAME measured other values than the machine file predicts:
$said"
	else
		printf '%s\n' "$said"
	fi
}

# expect_bench_status FILE BENCH "passed failed": the benchmark's status is one of these
expect_bench_status() {
	checks=$((checks + 1))
	local got
	got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(b["status"] for b in d["benchmarks"] if b["name"] == sys.argv[2]) or "absent")' "$1" "$2")
	for s in $got; do
		case " $3 " in
		*" $s "*) ;;
		*) fail "$2: status '$got' (reason: $(json_get "$1" '["benchmarks"][0].get("reason")')), expected one of $3" ;;
		esac
	done
}
