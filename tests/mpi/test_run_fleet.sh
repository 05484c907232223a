#!/usr/bin/env bash
# test_run_fleet.sh - `gpubench run` under mpirun: one rank per node, one
# fleet report at rank 0 (cmd/run_fleet.h).
#
# Every rank here is on this one machine, so each is a simulated node of its
# own: gpubench-sim with its own machine file (GPUBENCH_SIM_MACHINE with %r),
# whose "hostname" is node-<rank> and whose driver is older than the runtime
# ("driver_version", docs/simulation.md). So every node's suite ends "driver
# too old" at once (its report has status error), on any machine: that is
# enough to test the whole exchange. Checked:
#   - 2 and 3 ranks: one fleet report, one row per node in rank order, valid
#     against the schema, verdict error and exit 3 on every process, one
#     fleet summary on stdout;
#   - ranks sharing a host: exit 2, one error line, no hang;
#   - a rank that never sends its report (its machine's driver_stall fault:
#     its GPU probe never returns): rank 0 still writes the fleet report
#     within --timeout, that node marked missing with its rank and host;
#   - --node-reports: every node's own report beside -o as STEM.HOST.json;
#     without -o it is a usage error;
#   - nodes whose suites end seconds apart (a driver_stall of 8 s on one)
#     with --timeout 2s: nobody gives up, because the waits run to the
#     expected suite end (--suite-time) plus --timeout;
#     -o holds a provisional report while rank 0 is still measuring;
#   - -o -: one JSON document on stdout (no provisional one before it);
#   - --no-fleet: each process alone, its own plain report at its own -o.
# Open MPI refuses to run as root and to start more ranks than cores unless
# told: --allow-run-as-root (as root) and --oversubscribe are added for it;
# GPUBENCH_MPIEXEC_FLAGS adds more. Exits 77 only when there is no mpirun.
. "$(dirname "$0")/../cli/lib.sh"

# shellcheck source=lib_mpirun.sh
. "$(dirname "$0")/lib_mpirun.sh"

if [ -z "${GPUBENCH_SIM_BIN:-}" ]; then
	echo "skipped: gpubench-sim is not built (GPUBENCH_SIM_BIN is empty)"
	exit 77
fi
BIN=$GPUBENCH_SIM_BIN

# node_file FILE R [FAULT]: a node with an H100 but a CUDA 12.0 driver, host
# name node-R, and FAULT (a machine file's fault object) if given
node_file() {
	echo '{ "hostname": "node-'"$2"'", "driver_version": 12000,
	"gpus": [ { "model": "h100-sxm" } ], "faults": ['"${3:-}"'] }' >"$1"
}
for r in 0 1 2; do
	node_file "$TMP/node-$r.json" "$r"
done
# the same without a host name: every rank is on this machine's host
echo '{ "driver_version": 12000, "gpus": [ { "model": "h100-sxm" } ] }' >"$TMP/shared.json"
export GPUBENCH_SIM_MACHINE="$TMP/node-%r.json"

# fleet NP ARGS...: start NP ranks, rank r on simulated host node-r
fleet() {
	local np=$1
	shift
	run timeout 120 "$MPIEXEC" "${flags[@]}" -np "$np" "$BIN" run "$@"
}

# check CONDITION-PYTHON-EXPR DESCRIPTION: evaluate against the report d
check() {
	checks=$((checks + 1))
	if ! python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
fl = d["benchmarks"][0]
nodes = fl["extra"]["nodes"]
sys.exit(0 if eval(sys.argv[2]) else 1)' "$report" "$1" 2>"$TMP/check.err"; then
		fail "$2 ($(tail -1 "$TMP/check.err"))"
	fi
}

for np in 2 3; do
	report="$TMP/fleet$np.json"
	fleet "$np" -o "$report"
	expect_rc 3 "-np $np without a GPU: the fleet's verdict (every node could not run)"
	checks=$((checks + 1))
	[ -f "$report" ] || { fail "-np $np: no fleet report written: $err"; continue; }
	validate "$report"
	check 'd["run"]["command"] == "fleet" and fl["name"] == "fleet"' "-np $np: a fleet report"
	check "[n['host'] for n in nodes] == ['node-%d' % r for r in range($np)]" \
		"-np $np: one row per node, in rank order"
	check 'all(n["verdict"] == "error" and "driver" in n["reason"] for n in nodes)' \
		"-np $np: every node's could-not-run reason"
	check 'd["verdict"]["status"] == "error" and d["verdict"]["exit_code"] == 3' \
		"-np $np: fleet verdict error, exit code 3"
	check "sum(c['name'] == 'node_status' for c in fl['checks']) == $np" \
		"-np $np: a node_status check per node that could not run"
	check "[x['rank'] for x in fl['extra']['ranks']] == list(range($np))" \
		"-np $np: which rank was which node"
	check 'all(x["report_arrived"] for x in fl["extra"]["ranks"])' "-np $np: every report arrived"
	checks=$((checks + 1))
	[ "$(printf '%s\n' "$out" | grep -c '^verdict:')" -eq 1 ] ||
		fail "-np $np: expected one fleet summary on stdout, got: $out"
	checks=$((checks + 1))
	printf '%s\n' "$out" | grep -q "^nodes ($np)" ||
		fail "-np $np: the summary has no node table: $out"
	# a rank that exits 0 while another exits 3 would read as a pass to a scheduler
	checks=$((checks + 1))
	printf '%s\n' "$err" | grep -q "Exit code: *3" || [ "$rc" -eq 3 ] ||
		fail "-np $np: not every process exited 3"
done

# ranks sharing a host would fight over its GPUs: refused at once, one line
start=$(date +%s)
run timeout 60 "$MPIEXEC" "${flags[@]}" -np 2 env "GPUBENCH_SIM_MACHINE=$TMP/shared.json" \
	"$BIN" run -o "$TMP/shared-report.json"
elapsed=$(($(date +%s) - start))
expect_rc 2 "two ranks on one host"
checks=$((checks + 1))
[ "$(printf '%s\n' "$err" | grep -c 'gpubench: error:')" -eq 1 ] ||
	fail "two ranks on one host: expected one error line: $err"
checks=$((checks + 1))
printf '%s\n' "$err" | grep -q "gpubench: error: ranks 0 and 1 are both on host .*ppr:1:node.*--ntasks-per-node=1" ||
	fail "two ranks on one host: the line does not say what to do: $err"
checks=$((checks + 1))
[ "$elapsed" -lt 30 ] || fail "two ranks on one host: took ${elapsed}s"
checks=$((checks + 1))
[ ! -f "$TMP/shared-report.json" ] || fail "two ranks on one host: a usage error wrote a report"

# a rank that never sends its report: marked missing, within the timeout
report="$TMP/silent.json"
start=$(date +%s)
# rank 1's GPU probe never returns (the suites of the others end at once
# here: the wait is --timeout alone, not the profile's 15 min too)
for r in 0 1 2; do
	node_file "$TMP/silent-$r.json" "$r"
done
node_file "$TMP/silent-1.json" 1 '{ "kind": "driver_stall" }'
GPUBENCH_SIM_MACHINE="$TMP/silent-%r.json" \
	fleet 3 -q --suite-time 0s --timeout 3s -o "$report"
elapsed=$(($(date +%s) - start))
checks=$((checks + 1))
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "silent rank: exit $rc (124 is a hang)"
checks=$((checks + 1))
[ "$elapsed" -lt 40 ] || fail "silent rank: took ${elapsed}s with --timeout 3s"
checks=$((checks + 1))
if [ -f "$report" ]; then
	validate "$report"
	check '[n["host"] for n in nodes] == ["node-0", "node-1", "node-2"]' \
		"silent rank: every node has its row, the missing one too"
	check 'nodes[1]["verdict"] == "error" and "rank 1 on host '"'node-1'"'" in nodes[1]["reason"] and "within 3 s" in nodes[1]["reason"]' \
		"silent rank: the missing node names its rank, host and the wait"
	check '[x["report_arrived"] for x in fl["extra"]["ranks"]] == [True, False, True]' \
		"silent rank: only rank 1's report is missing"
	check 'd["verdict"]["exit_code"] == 3' "silent rank: fleet verdict error"
else
	fail "silent rank: rank 0 wrote no fleet report: $err"
fi

# --node-reports: every node keeps its own report beside -o
report="$TMP/nodes/fl.json"
mkdir -p "$TMP/nodes"
fleet 2 -q --node-reports -o "$report"
expect_rc 3 "--node-reports without a GPU"
for r in 0 1; do
	checks=$((checks + 1))
	node="$TMP/nodes/fl.node-$r.json"
	if [ -f "$node" ]; then
		validate "$node"
		checks=$((checks + 1))
		[ "$(json_get "$node" '["run"]["hostname"]')" = "node-$r" ] &&
			[ "$(json_get "$node" '["run"]["command"]')" = "run" ] ||
			fail "--node-reports: $node is not node-$r's own report"
	else
		fail "--node-reports: no $node"
	fi
done
check '[n["file"] for n in nodes] == ["'"$TMP"'/nodes/fl.node-0.json", "'"$TMP"'/nodes/fl.node-1.json"]' \
	"--node-reports: the fleet names each node's file"
fleet 2 --node-reports
expect_rc 2 "--node-reports without -o"
checks=$((checks + 1))
[ "$(printf '%s\n' "$err" | grep -c 'gpubench: error:')" -eq 1 ] &&
	printf '%s\n' "$err" | grep -q "gpubench: error: --node-reports needs -o" ||
	fail "--node-reports without -o: expected one line from rank 0: $err"

# suites of different lengths: rank SLOW's probe takes 8 s, --timeout is 2 s,
# the expected suite 12 s; every report arrives, no rank gives up
for slow in 0 1; do
	report="$TMP/slow$slow.json"
	early="$TMP/early$slow.json"
	# the first version of -o that appears, while the ranks still measure
	(for _ in $(seq 150); do
		[ -f "$report" ] && cp "$report" "$early" && break
		sleep 0.05
	done) &
	poller=$!
	node_file "$TMP/slow$slow-0.json" 0
	node_file "$TMP/slow$slow-1.json" 1
	node_file "$TMP/slow$slow-$slow.json" "$slow" '{ "kind": "driver_stall", "value": 8 }'
	GPUBENCH_SIM_MACHINE="$TMP/slow$slow-%r.json" \
		fleet 2 -q --suite-time 12s --timeout 2s -o "$report"
	wait "$poller"
	expect_rc 3 "rank $slow 8 s slower than the other, --timeout 2s"
	checks=$((checks + 1))
	if [ -f "$report" ]; then
		check 'all(x["report_arrived"] for x in fl["extra"]["ranks"])' \
			"rank $slow 8 s slower: every report arrived (the waits count from the expected end)"
	else
		fail "rank $slow 8 s slower: no fleet report: $err"
	fi
	checks=$((checks + 1))
	! printf '%s\n' "$err" | grep -q "did not arrive" ||
		fail "rank $slow 8 s slower: a rank gave up waiting: $err"
	if [ "$slow" = 0 ]; then
		# rank 0's probe blocks: -o must already hold a report then
		report=$early
		checks=$((checks + 1))
		if [ -f "$early" ]; then
			check 'not any(x["report_arrived"] for x in fl["extra"]["ranks"])' \
				"the provisional report before rank 0's suite: no node arrived yet"
		else
			fail "no provisional fleet report while rank 0 was measuring"
		fi
	fi
done

# -o -: the fleet report once on stdout, no provisional one before it
fleet 2 -q -o -
expect_rc 3 "-o - without a GPU"
checks=$((checks + 1))
printf '%s' "$out" | python3 -c 'import json,sys
d = json.loads(sys.stdin.read())
sys.exit(0 if d["run"]["command"] == "fleet" else 1)' 2>"$TMP/check.err" ||
	fail "-o -: stdout is not one fleet report ($(tail -1 "$TMP/check.err"))"

# --no-fleet: every process runs alone, no MPI, each with its own -o
run timeout 120 "$MPIEXEC" "${flags[@]}" -np 2 env "GB_RANK_VAR=$rank_var" "GB_DIR=$TMP" \
	sh -c 'eval "r=\${$GB_RANK_VAR}"; exec "$@" -o "$GB_DIR/nf.$r.json"' sh \
	"$BIN" run --no-fleet -q
expect_rc 3 "--no-fleet under mpirun without a GPU"
for r in 0 1; do
	checks=$((checks + 1))
	if [ -f "$TMP/nf.$r.json" ]; then
		validate "$TMP/nf.$r.json"
		checks=$((checks + 1))
		[ "$(json_get "$TMP/nf.$r.json" '["run"]["command"]')" = "run" ] ||
			fail "--no-fleet: $TMP/nf.$r.json is not a plain run report"
	else
		fail "--no-fleet: process $r wrote no report: $err"
	fi
done

finish
