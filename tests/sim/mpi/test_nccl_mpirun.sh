#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_nccl_mpirun.sh - `mpirun -np 2 gpubench-sim nccl` end to end (issue 18):
# two processes, one simulated GPU each (the rank's local rank picks it), whose
# fake NCCL communicators meet in POSIX shared memory (tests/sim/nccl/xproc.c).
#
#   1. healthy, every collective: exit 0, rank 0's report schema-valid and
#      simulated, both ranks and both GPUs listed, every size of every
#      collective checked with 0 wrong elements
#   2. nccl_wrong on GPU 1, in rank 1's own machine file (GPUBENCH_SIM_MACHINE
#      with %r): exit 1, verdict failed, allreduce_correct failed on GPU 1,
#      naming rank 1; GPU 0 not blamed
#      and the simulated times are those of one process driving both GPUs
#   3. nccl_hang on GPU 1 (rank 1's file): both ranks time out (exit 3), the
#      report is written, well within the test's time, and names rank 1 (GPU 1)
#      as the one that hangs (its progress is behind rank 0's)
#   4. rank 1 killed (SIGKILL) mid-run: the job ends well within the test's
#      timeout (no hang), with a non-zero exit
#   and no shared-memory segment of this test is left in /dev/shm.
#
# The machine files are written here: two H100 on NVLink (an sm_90 part, which
# every build of gpubench can run). Open MPI flags: tests/mpi/lib_mpirun.sh.
# Exits 77 (skipped) when there is no mpirun.
set -u
HERE_MPI=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../mpi/lib_mpirun.sh
. "$HERE_MPI/../../mpi/lib_mpirun.sh"

# lib_sim.sh wants a machine file; the real ones are written below, per rank
set -- h100-sxm.json
# shellcheck source=../faults/lib_faults.sh
. "$HERE_MPI/../faults/lib_faults.sh" # and ../e2e/lib_sim.sh

# every segment this test's ranks make carries this tag (xproc.c)
export GBSIM_NCCL_SHM_TAG="t$$"

# machine FILE [FAULT-JSON]: two H100 on NVLink 4, optionally one fault
machine() {
	cat >"$1" <<EOF
{
	"name": "mpi-2x-h100",
	"description": "two H100 on NVLink, one per MPI rank",
	"seed": 1,
	"noise": 0.01,
	"numa_nodes": 1,
	"gpus": [
		{ "model": "h100-sxm", "memory": "512M", "numa_node": 0 },
		{ "model": "h100-sxm", "memory": "512M", "numa_node": 0 }
	],
	"links": { "nvlink_gen": 4, "nvlink": "all", "p2p": "all" },
	"faults": [ ${2:-} ]
}
EOF
}

# mpi_run NAME ARGS...: mpirun -np 2 gpubench-sim ARGS -o $TMP/NAME.json, at most 120 s
mpi_run() {
	local name=$1
	shift
	REPORT="$TMP/$name.json"
	run timeout 120 "$MPIEXEC" "${flags[@]}" -np 2 "$BIN" "$@" -o "$REPORT"
}

# ranks' rows: every row of every collective checked, and how many were wrong
expect_rows_right() {
	expect_json "$1" "len(d['benchmarks'][0]['extra']['rows']) >= 6 * 3" "rows of every collective"
	expect_json "$1" "set(r['collective'] for r in d['benchmarks'][0]['extra']['rows']) == {'allreduce', 'allgather', 'reducescatter', 'broadcast', 'reduce', 'alltoall'}" \
		"every collective the nccl command runs"
	expect_json "$1" "all(r['nwrong'] == 0 for r in d['benchmarks'][0]['extra']['rows'])" \
		"every row checked, 0 wrong elements"
}

# ---- 1. healthy, every collective ----
machine "$TMP/m0.json"
machine "$TMP/m1.json"
export GPUBENCH_SIM_MACHINE="$TMP/m%r.json"
mpi_run ok nccl --op all --max-bytes 64K --iters 2 --samples 2 -w 1 --timeout 60s
expect_verdict "$REPORT" passed 0
expect_report "$REPORT"
expect_bench_status "$REPORT" nccl passed
expect_json "$REPORT" "d['benchmarks'][0]['params'].get('nranks') == 2" "2 ranks"
expect_json "$REPORT" "[(r['rank'], r['device'], r['status']) for r in d['benchmarks'][0]['extra']['ranks']] == [(0, 0, 'passed'), (1, 1, 'passed')]" \
	"rank 0 on GPU 0, rank 1 on GPU 1, both passed"
expect_json "$REPORT" "len(d['devices']) == 2 and all('H100' in x['name'] for x in d['devices'])" \
	"both GPUs named, H100"
expect_json "$REPORT" "all(c['status'] == 'passed' for c in d['benchmarks'][0]['checks'] if c['name'].endswith('_correct'))" \
	"every *_correct check passed"
expect_rows_right "$REPORT"
# the simulated busbw of a 2-rank allreduce over NVLink is far above a PCIe figure
expect_json "$REPORT" "[m for m in d['benchmarks'][0]['metrics'] if m['name'] == 'allreduce_beta_busbw_gbps'][0]['value'] > 50" \
	"allreduce asymptotic busbw over NVLink (the cost model's)"

# the same simulated time as one process driving both GPUs: every rank agrees
# on each collective's end (the latest arrival plus the cost model's time)
GPUBENCH_SIM_MACHINE="$TMP/m0.json" run "$BIN" nccl --op all --max-bytes 64K --iters 2 --samples 2 \
	-w 1 --timeout 60s -o "$TMP/one.json"
expect_rc_in 0 "the same sweep in one process"
checks=$((checks + 1))
python3 -c '
import json, sys
a, b = (json.load(open(f))["benchmarks"][0]["extra"]["rows"] for f in sys.argv[1:3])
key = lambda r: (r["collective"], r["placement"], r["size"])
one = {key(r): r["time_us"] for r in b if r["time_us"] is not None}
pairs = [(r["time_us"], one[key(r)]) for r in a if r["time_us"] is not None and key(r) in one]
bad = [(x, y) for x, y in pairs if abs(x - y) > 0.05 * y]
sys.exit(0 if len(pairs) >= 30 and not bad else 1)' "$TMP/ok.json" "$TMP/one.json" ||
	fail "two processes and one process disagree on the simulated times by more than 5%"

# ---- 2. nccl_wrong on GPU 1, in rank 1's machine file only ----
machine "$TMP/m1.json" '{ "kind": "nccl_wrong", "gpu": 1, "after_launches": 3 }'
mpi_run wrong nccl --op allreduce --max-bytes 64K --iters 2 --samples 2 -w 1 --timeout 60s
expect_verdict "$REPORT" failed 1
expect_report "$REPORT"
expect_bench_status "$REPORT" nccl failed
expect_finding "$REPORT" nccl allreduce_correct failed 1 \
	'wrong elements in all; first at .* in the output of rank 1 \(GPU 1\)'
expect_no_finding "$REPORT" nccl allreduce_correct 0
expect_json "$REPORT" "sum(r['nwrong'] for r in d['benchmarks'][0]['extra']['rows']) > 0" \
	"the rows count the wrong elements"

# ---- 3. nccl_hang on GPU 1, in rank 1's machine file: both ranks time out, no hang ----
machine "$TMP/m1.json" '{ "kind": "nccl_hang", "gpu": 1, "after_launches": 3 }'
start=$(date +%s)
# 1 MiB: progress is marked per operation in timed loops from that size on
mpi_run hang nccl --op allreduce -b 1M -e 1M --iters 2 --samples 2 -w 1 --timeout 3s
elapsed_s=$(($(date +%s) - start))
expect_verdict "$REPORT" error 3
expect_report "$REPORT"
expect_json "$REPORT" "'did not finish within 3 s' in d['benchmarks'][0]['reason']" \
	"the reason says what timed out"
expect_json "$REPORT" "[r['status'] for r in d['benchmarks'][0]['extra']['ranks']] == ['error', 'error']" \
	"both ranks report the error"
# each rank sees only its own GPU; rank 0 compares their progress: rank 1 is behind
expect_json "$REPORT" "'rank 1 on host' in d['benchmarks'][0]['reason'] and '(GPU 1) hangs' in d['benchmarks'][0]['reason']" \
	"the reason names rank 1 (GPU 1), the one that hung"
checks=$((checks + 1))
[ "$elapsed_s" -lt 60 ] || fail "nccl_hang: the abort took ${elapsed_s} s for a 3 s timeout"

# ---- 4. rank 1 killed mid-run: nobody hangs ----
machine "$TMP/m1.json"
start=$(date +%s)
# shellcheck disable=SC2016 # expanded by the rank's shell
run timeout 120 "$MPIEXEC" "${flags[@]}" -np 2 bash -c '
	if [ "${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" = 1 ]; then
		(sleep 2; kill -9 $$) &
	fi
	exec "$0" "$@"' "$BIN" nccl --op all --dtype all --redop all --max-bytes 1M --iters 20 \
	--samples 5 --timeout 30s -q -o "$TMP/killed.json"
elapsed_s=$(($(date +%s) - start))
checks=$((checks + 1))
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
	fail "killed rank: exit $rc (0: it was not killed mid-run; 124: a hang)"
fi
checks=$((checks + 1))
[ "$elapsed_s" -lt 90 ] || fail "killed rank: the job took ${elapsed_s} s"

# ---- no segment of this test left behind ----
checks=$((checks + 1))
left=(/dev/shm/gbsimnccl."$GBSIM_NCCL_SHM_TAG".*)
[ ! -e "${left[0]}" ] || fail "${#left[@]} shared-memory segments left: ${left[*]}"
finish
