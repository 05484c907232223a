#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_srun_vs_mpirun.sh - the simulator's `nccl` and `run` started by srun on
# a real one-node Slurm cluster (tests/slurm/lib_slurm.sh) give the reports
# they give under mpirun. Each rank simulates its own machine
# (GPUBENCH_SIM_MACHINE with %r: the rank comes from SLURM_PROCID under srun,
# OMPI_COMM_WORLD_RANK under mpirun); srun starts them with Slurm's PMIx
# plugin (MpiDefault=pmix), so Open MPI's ranks find each other.
#   1. `srun -n 2 gpubench-sim nccl` (all collectives, up to 64 KiB) on two
#      H100 over NVLink, each rank on its GPU at its local rank: exit 0, two
#      ranks on GPUs 0 and 1, launcher "srun"; then the same under mpirun
#   2. `srun -n 2 gpubench-sim run --only bandwidth,stress` (2 simulated s
#      of stress), each rank a node of its own (one H100 of 64 MiB, its own
#      host name, the machine file's "hostname"): one fleet report, nodes
#      node-0 and node-1; the same under mpirun; the same exit code
# Each pair of reports is compared field by field (same_report.py): only the
# dates, the -o path, the launcher's environment variables, extra.launcher,
# the ranks' pids, and the simulated time outside the timed loops (the first
# telemetry sample's and the benchmark's duration_s, within 1 ms; they vary
# as much between two mpirun runs) may differ; for nccl also the timed
# figures, which depend on when the two processes reach each collective in
# real time (on an idle machine they were equal; beside other tests the
# first size's time, and the fit through it, moved by up to 10 %), while its
# rows, element counts, checks and verdict must be the same. run's fleet,
# whose nodes measure alone, must be the same to the last figure.
# Exits 77 (skipped) where Slurm cannot start or there is no mpirun.
HERE_SL=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../cli/lib.sh
. "$HERE_SL/../cli/lib.sh"
# shellcheck source=../mpi/lib_mpirun.sh
. "$HERE_SL/../mpi/lib_mpirun.sh"
# shellcheck source=lib_slurm.sh
. "$HERE_SL/lib_slurm.sh"

slurm_start "$(hostname -s)"
export NO_COLOR=1 GBSIM_LEAKS_FATAL=1
# every shared-memory segment of this test's fake NCCL carries this tag
export GBSIM_NCCL_SHM_TAG="sl$$"

# same [--timing] A.json B.json WHAT: same_report.py's verdict
same() {
	local opt=()
	[ "$1" = --timing ] && { opt=(--timing); shift; }
	checks=$((checks + 1))
	if ! python3 "$HERE_SL/same_report.py" "${opt[@]}" "$1" "$2" >"$TMP/same.out" 2>&1; then
		fail "$3: srun's and mpirun's reports differ: $(grep -v '^differs, allowed' "$TMP/same.out" | head -20)"
	else
		sed "s/^/$3: /" "$TMP/same.out"
	fi
}

# json_ok FILE PYTHON-EXPR-ON-d DESCRIPTION
json_ok() {
	checks=$((checks + 1))
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
		"$1" "$2" 2>/dev/null || fail "$3 ($1)"
}

# ---- 1. nccl ----
for r in 0 1; do
	cat >"$TMP/nccl-$r.json" <<EOF
{ "name": "slurm-nccl", "seed": 1, "noise": 0.01,
  "gpus": [ { "model": "h100-sxm", "memory": "128M", "l2": "4M" },
            { "model": "h100-sxm", "memory": "128M", "l2": "4M" } ],
  "links": { "nvlink_gen": 4, "nvlink": "all", "p2p": "all" } }
EOF
done
NCCL_ARGS=(nccl --op all --max-bytes 64K --iters 2 --samples 2 -w 1 --timeout 60s)
export GPUBENCH_SIM_MACHINE="$TMP/nccl-%r.json"
# -O: two tasks even where the node has one CPU
run timeout 120 srun -n 2 -O "$BIN" "${NCCL_ARGS[@]}" -o "$TMP/srun-nccl.json"
expect_rc 0 "srun -n 2 nccl"
json_ok "$TMP/srun-nccl.json" "d['benchmarks'][0]['extra']['launcher'] == 'srun' and d['benchmarks'][0]['params']['nranks'] == 2" \
	"srun nccl: launcher srun, 2 ranks"
json_ok "$TMP/srun-nccl.json" "[(r['rank'], r['device'], r['status']) for r in d['benchmarks'][0]['extra']['ranks']] == [(0, 0, 'passed'), (1, 1, 'passed')]" \
	"srun nccl: rank 0 on GPU 0, rank 1 on GPU 1, both passed"
json_ok "$TMP/srun-nccl.json" "all(r['nwrong'] == 0 for r in d['benchmarks'][0]['extra']['rows']) and len(d['benchmarks'][0]['extra']['rows']) >= 18" \
	"srun nccl: every row checked, none wrong"
run timeout 120 "$MPIEXEC" "${flags[@]}" -np 2 "$BIN" "${NCCL_ARGS[@]}" -o "$TMP/mpirun-nccl.json"
expect_rc 0 "mpirun -np 2 nccl"
same --timing "$TMP/srun-nccl.json" "$TMP/mpirun-nccl.json" "nccl"

# ---- 2. run: a fleet of two nodes ----
for r in 0 1; do
	cat >"$TMP/node-$r.json" <<EOF
{ "name": "slurm-node-$r", "hostname": "node-$r", "seed": 1, "noise": 0,
  "gpus": [ { "model": "h100-sxm", "memory": "64M", "l2": "1M" } ] }
EOF
done
RUN_ARGS=(run --only bandwidth,stress --stress-duration 2s)
export GPUBENCH_SIM_MACHINE="$TMP/node-%r.json" GBSIM_SPEED_SCALE=0.001
run timeout 150 srun -n 2 -O "$BIN" "${RUN_ARGS[@]}" -o "$TMP/srun-run.json"
srun_rc=$rc
checks=$((checks + 1))
[ -s "$TMP/srun-run.json" ] || fail "srun -n 2 run wrote no report (exit $rc): $err"
json_ok "$TMP/srun-run.json" "d['run']['command'] == 'fleet' and [n['host'] for n in d['benchmarks'][0]['extra']['nodes']] == ['node-0', 'node-1']" \
	"srun run: one fleet report, nodes node-0 and node-1 in rank order"
json_ok "$TMP/srun-run.json" "d['verdict']['exit_code'] == $srun_rc and [b['status'] for b in d['benchmarks'] if b['name'] in ('gemm', 'p2p', 'nccl', 'scaling')] == ['skipped'] * 4" \
	"srun run: the fleet's verdict is the exit code, the steps --only leaves out skipped"
json_ok "$TMP/srun-run.json" "any(b['name'] == 'stress' and b['status'] == 'passed' for b in d['benchmarks'])" \
	"srun run: stress passed on both nodes"
run timeout 150 "$MPIEXEC" "${flags[@]}" -np 2 "$BIN" "${RUN_ARGS[@]}" -o "$TMP/mpirun-run.json"
checks=$((checks + 1))
[ "$rc" -eq "$srun_rc" ] || fail "run: srun exited $srun_rc, mpirun $rc"
same "$TMP/srun-run.json" "$TMP/mpirun-run.json" "run"

checks=$((checks + 1))
# shellcheck disable=SC2012 # names only
left=$(ls /dev/shm 2>/dev/null | grep -c "$GBSIM_NCCL_SHM_TAG" || true)
[ "$left" -eq 0 ] || fail "$left shared-memory segments of this test left in /dev/shm"
finish
