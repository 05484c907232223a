#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""same_report.py [--timing] SRUN.json MPIRUN.json: the two reports of one command, one
started by srun and one by mpirun, are the same but for what the launcher and
the clock make different. Prints every difference it allows and why; exits 1
naming every other one.

Allowed, and only these:
  run.started_at, run.finished_at, extra.nodes[].started_at   dates
  run.command_line[i]           the -o path (each run writes its own file)
  environment.*                 the launcher's own variables (OMPI_*, SLURM_*,
                                PMI*, PMIX_*): gpubench records them
  benchmarks[].extra.launcher   'srun' and 'mpirun (Open MPI)' exactly
  benchmarks[].extra.ranks[].pid   process ids
  telemetry[].t_s, benchmarks[].duration_s
                                within 1 ms of simulated time: while a rank
                                waits for the other process to join a
                                communicator its simulated clock moves by
                                a few us more or less (docs/simulation.md,
                                several processes), so the first telemetry
                                sample and the benchmark's whole duration
                                land a few us apart, as between two runs
                                under mpirun
With --timing also the timed figures (metrics' values, efficiencies and
statistics, series points, the rows' times and bandwidths), for a command
whose processes time collectives together (nccl): a collective ends at the
latest rank's arrival, and under load a process that reaches the first
timed size late in real time moves that size's simulated time (and the
fitted latency and bandwidth) by a few percent, under mpirun as under srun.
Everything else (sizes, rows, element counts, checks, verdict, devices,
ranks, params) must still be equal. Without --timing every figure must be.
"""
import json
import re
import sys


def flat(d, p=""):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from flat(v, p + "." + k)
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield from flat(v, "%s[%d]" % (p, i))
    else:
        yield p, d


LAUNCHER_VARS = re.compile(r"^\.environment\.(OMPI_|SLURM_|PMI|PMIX_)")
DATES = re.compile(r"^(\.run\.(started|finished)_at|\.benchmarks\[\d+\]\.extra\.nodes\[\d+\]\.started_at)$")
PIDS = re.compile(r"^\.benchmarks\[\d+\]\.extra\.ranks\[\d+\]\.pid$")
LAUNCHER = re.compile(r"^\.benchmarks\[\d+\]\.extra\.launcher$")
SIM_TIME = re.compile(r"^(\.telemetry\[\d+\]\.t_s|\.benchmarks\[\d+\]\.duration_s)$")
COMMAND = re.compile(r"^\.run\.command_line\[\d+\]$")
TIMED = re.compile(r"^\.benchmarks\[\d+\]\.(metrics\[\d+\]\.(value|efficiency|stats\..*)"
                   r"|series\[\d+\]\.y\[\d+\]"
                   r"|extra\.rows\[\d+\]\.(time_\w+|algbw|busbw))$")
TIMING = False


def why(path, a, b, paths):
    """The reason a difference is allowed, or None."""
    if DATES.match(path):
        return "a date"
    if LAUNCHER_VARS.match(path):
        return "the launcher's variable"
    if PIDS.match(path):
        return "a process id"
    if LAUNCHER.match(path) and (a, b) == ("srun", "mpirun (Open MPI)"):
        return "the launcher's name"
    if SIM_TIME.match(path) and isinstance(a, (int, float)) and isinstance(b, (int, float)) \
            and abs(a - b) < 1e-3:
        return "simulated time outside the timed loops, %.3g s apart" % abs(a - b)
    if TIMING and TIMED.match(path) and isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return "a timed figure, %.2g%% apart" % (100 * abs(a - b) / max(abs(a), abs(b), 1e-30))
    if COMMAND.match(path) and str(a).endswith(".json") and str(b).endswith(".json"):
        i = int(path[path.rindex("[") + 1:-1])
        if paths.get(".run.command_line[%d]" % (i - 1)) in ("-o", "--output"):
            return "the -o path"
    return None


def main():
    global TIMING
    args = sys.argv[1:]
    if args and args[0] == "--timing":
        TIMING, args = True, args[1:]
    sa, sb = (dict(flat(json.load(open(f)))) for f in args[:2])
    bad = []
    for path in sorted(set(sa) | set(sb)):
        a, b = sa.get(path, "<absent>"), sb.get(path, "<absent>")
        if a == b:
            continue
        reason = why(path, a, b, sa)
        if reason:
            print("differs, allowed (%s): %s: %r | %r" % (reason, path, a, b))
        else:
            bad.append("%s: srun %r, mpirun %r" % (path, a, b))
    for line in bad:
        print("DIFFERS: " + line)
    # the launcher names must be there, on both sides: else the comparison proves nothing
    names = [p for p in sa if LAUNCHER.match(p)]
    if not names or any((sa[p], sb.get(p)) != ("srun", "mpirun (Open MPI)") for p in names):
        print("DIFFERS: extra.launcher is not 'srun' against 'mpirun (Open MPI)'")
        return 1
    return 1 if bad else 0


sys.exit(main())
