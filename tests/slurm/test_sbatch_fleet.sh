#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_sbatch_fleet.sh - scripts/slurm-acceptance.sbatch on a real two-node
# Slurm cluster (two slurmd on this host, nodes sim-node-1 and sim-node-2:
# tests/slurm/lib_slurm.sh), `sbatch -N 2 --wait`, with the simulator.
# Each node is its own simulated machine (GPUBENCH_SIM_MACHINE with %r, the
# rank srun gives the node's task) of two H100 of 16 MiB (bandwidth then
# sweeps small sizes: quick); on the second node GPU 0's PCIe link is
# trained at Gen5 x8 of x16, so its host copies run at half the rate of the
# fleet's three other GPUs. The suite is `run --only
# bandwidth`. Each machine file gives its node's Slurm name as host name
# ("hostname": rank r runs on sim-node-<r+1>): both nodes are this one host,
# and gpubench's fleet refuses two ranks of one host.
# In both of the script's modes:
#   mpi    (srun --mpi=pmix; rank 0 writes the fleet report)
#   merge  (each node alone, --no-fleet; `gpubench report --merge` in the batch
#          script)
# checked: the job's exit code is 1 and the fleet report's verdict says
# failed with exit code 1; one row per node, sim-node-1 then sim-node-2
# (under merge: their reports' files; the host name in each is this host's,
# as --no-fleet reports the machine's own name), two H100 each;
# h2d_ce_pinned_gbps and d2h_ce_pinned_gbps are failed outliers on
# sim-node-2's GPU 0 and on no other GPU; under mpi the launcher is srun.
# Exits 77 (skipped) only where Slurm cannot start.
HERE_SL=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../cli/lib.sh
. "$HERE_SL/../cli/lib.sh"
# shellcheck source=lib_slurm.sh
. "$HERE_SL/lib_slurm.sh"

slurm_start sim-node-1 sim-node-2
SBATCH_SCRIPT="$HERE_SL/../../scripts/slurm-acceptance.sbatch"
export NO_COLOR=1

for r in 0 1; do
	width=16
	[ "$r" = 1 ] && width=8
	cat >"$TMP/node-$r.json" <<EOF
{ "name": "slurm-fleet-$r", "hostname": "sim-node-$((r + 1))", "seed": 1, "noise": 0,
  "gpus": [ { "model": "h100-sxm", "memory": "16M", "l2": "1M",
              "pcie": { "gen": 5, "width": $width, "max_gen": 5, "max_width": 16 } },
            { "model": "h100-sxm", "memory": "16M", "l2": "1M" } ] }
EOF
done
export GPUBENCH="$BIN" GPUBENCH_SIM_MACHINE="$TMP/node-%r.json"

# fleet_ok FILE MODE: what the fleet report must say
fleet_ok() {
	checks=$((checks + 1))
	if ! python3 - "$1" "$2" >"$TMP/py.out" 2>&1 <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
mode = sys.argv[2]
assert d["verdict"]["status"] == "failed" and d["verdict"]["exit_code"] == 1, d["verdict"]
fl = next(b for b in d["benchmarks"] if b["name"] == "fleet")
nodes = fl["extra"]["nodes"]
if mode == "mpi":
    assert [n["host"] for n in nodes] == ["sim-node-1", "sim-node-2"], nodes
else:  # each node's own report, named by its Slurm node; its host is this host
    assert [n["file"].rsplit(".", 2)[-2] for n in nodes] == ["sim-node-1", "sim-node-2"], nodes
assert [len(n["devices"]) for n in nodes] == [2, 2], nodes
assert len(d["devices"]) == 4 and all("H100" in x["name"] for x in d["devices"]), d["devices"]
if mode == "mpi":
    assert fl["extra"]["launcher"] == "srun", fl["extra"].get("launcher")
slow = nodes[1]["devices"][0]  # the fleet's index of sim-node-2's GPU 0
outliers = [c for b in d["benchmarks"] for c in b.get("checks", [])
            if c["name"].endswith("_fleet_outlier") and c["status"] == "failed"]
named = {c["name"] for c in outliers if c.get("device") == slow}
for m in ("h2d_ce_pinned_gbps", "d2h_ce_pinned_gbps"):
    assert m + "_fleet_outlier" in named, (m, named)
    c = next(c for c in outliers if c["name"] == m + "_fleet_outlier" and c.get("device") == slow)
    assert "'%s' GPU %d (GPU 0 on that node" % (nodes[1]["host"], slow) in c["message"], c["message"]
others = [c["message"] for c in outliers if c.get("device") != slow]
assert not others, others
PY
		fail "$2: the fleet report is not what the machines predict: $(tail -5 "$TMP/py.out")"
	fi
}

for mode in mpi merge; do
	report="$TMP/fleet-$mode.json"
	GPUBENCH_FLEET_MODE=$mode GPUBENCH_FLEET_REPORT=$report run timeout 200 sbatch --wait -N 2 \
		--chdir="$TMP" -o "$TMP/job-$mode-%j.out" "$SBATCH_SCRIPT" --only bandwidth
	expect_rc 1 "$mode: the job's exit code is the fleet's verdict (a finding)"
	checks=$((checks + 1))
	if [ ! -s "$report" ]; then
		fail "$mode: no fleet report; the job said: $(cat "$TMP"/job-"$mode"-*.out 2>/dev/null | tail -5)"
		continue
	fi
	validate "$report"
	fleet_ok "$report" "$mode"
	checks=$((checks + 1))
	grep -q "fleet report: $report (exit 1)" "$TMP"/job-"$mode"-*.out ||
		fail "$mode: the job's output does not name the fleet report: $(tail -3 "$TMP"/job-"$mode"-*.out)"
done
checks=$((checks + 1))
ls "$TMP"/fleet-merge.sim-node-1.json "$TMP"/fleet-merge.sim-node-2.json >/dev/null 2>&1 ||
	fail "merge: the nodes' own reports are not beside the fleet report"
finish
