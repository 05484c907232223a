#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare-nvbandwidth.py - gpubench bandwidth against NVIDIA's nvbandwidth, same GPU, same run.

Issue 5's goal: host<->device pinned copies by the copy engine within 2% of nvbandwidth's
figure on the same machine. This script runs both at one buffer size (nvbandwidth's
default, 512 MiB) on one GPU and prints a table plus a JSON summary. Rows marked "goal"
are judged: exit 1 if any differs from nvbandwidth by more than --tolerance (either way:
a figure far above the reference means a byte counted twice); the other rows are shown
for reference. Exit 2 on bad input, 3 if it cannot run (no nvbandwidth, gpubench failed).

Both tools count a byte once per direction in decimal GB/s, and a device-local copy by its
payload, so the figures compare directly. nvbandwidth's two-way host tests report the
measured direction while the other direction interferes; gpubench's bidir_*_h2d/_d2h
halves are measured the same way.

nvbandwidth writes every matrix cell as a string ("55.6", "N/A"): "N/A" becomes null.
With --nvbandwidth-json and --gpubench-json the saved outputs of an earlier run are
compared without running anything (what the tests do).

usage: scripts/compare-nvbandwidth.py --gpubench build/gpubench [--nvbandwidth PATH]
       [--size 512] [--device 0] [--tolerance 2%] [-o summary.json]
       [--nvbandwidth-json FILE] [--gpubench-json FILE]
"""
import argparse
import json
import shutil
import subprocess
import sys

# (nvbandwidth testcase, gpubench metric, judged against the 2% goal)
PAIRS = [
    ("host_to_device_memcpy_ce", "h2d_ce_pinned_gbps", True),
    ("device_to_host_memcpy_ce", "d2h_ce_pinned_gbps", True),
    ("host_to_device_bidirectional_memcpy_ce", "bidir_ce_pinned_h2d_gbps", False),
    ("device_to_host_bidirectional_memcpy_ce", "bidir_ce_pinned_d2h_gbps", False),
    ("device_local_copy", "d2d_ce_gbps", False),
    ("host_to_device_memcpy_sm", "h2d_sm_pinned_gbps", False),
    ("device_to_host_memcpy_sm", "d2h_sm_pinned_gbps", False),
]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpubench", help="path to the gpubench binary")
    ap.add_argument("--nvbandwidth", default="nvbandwidth", help="path to nvbandwidth")
    ap.add_argument("--size", type=int, default=512, help="buffer size in MiB (default 512)")
    ap.add_argument("--device", type=int, default=0, help="CUDA index of the GPU")
    ap.add_argument("--samples", type=int, default=5, help="samples each tool takes")
    ap.add_argument("--tolerance", default="2%", help="allowed difference on goal rows")
    ap.add_argument("--nvbandwidth-json", help="compare this saved `nvbandwidth -j` output")
    ap.add_argument("--gpubench-json", help="compare this saved gpubench report")
    ap.add_argument("-o", "--output", help="write the JSON summary here")
    a = ap.parse_args()
    try:
        a.tol = float(a.tolerance.rstrip("%")) / 100.0
    except ValueError:
        ap.error(f"cannot parse '{a.tolerance}' as a percentage like 2%")
    if a.size < 1:
        ap.error(f"--size must be at least 1 MiB (got {a.size})")
    if a.samples < 3:
        ap.error(f"--samples must be at least 3 (got {a.samples})")
    if not a.gpubench_json and not a.gpubench:
        ap.error("give --gpubench (to run it) or --gpubench-json (a saved report)")
    return a


def cell(text):
    """One nvbandwidth matrix cell as a float, None for "N/A" or anything not a number."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if v == v and v > 0 else None


def nvbandwidth_values(doc, device):
    """{testcase: GB/s for device, or None} from nvbandwidth's JSON."""
    root = doc.get("nvbandwidth", doc)
    if root.get("error"):
        raise RuntimeError(f"nvbandwidth: {root['error']}")
    out = {}
    for tc in root.get("testcases", []):
        name, matrix = tc.get("name"), tc.get("bandwidth_matrix")
        value = None
        # host and local tests: one row (CPU or "local"), a column per GPU
        if tc.get("status") == "Passed" and matrix and len(matrix[0]) > device:
            value = cell(matrix[0][device])
        out[name] = value
    return out


def run_nvbandwidth(binary, size, samples):
    path = shutil.which(binary)
    if not path:
        raise RuntimeError(f"'{binary}' not found (build it from github.com/NVIDIA/nvbandwidth)")
    cmd = [path, "-j", "-b", str(size), "-i", str(samples), "-t"] + [p[0] for p in PAIRS]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"nvbandwidth exited {p.returncode}: {p.stderr.strip()[:400]}")
    # anything printed before the document (driver warnings) is not JSON
    return json.loads(p.stdout[p.stdout.index("{"):])


def run_gpubench(binary, size, samples, device):
    cmd = [binary, "bandwidth", "--tests", "h2d,d2h,bidir,d2d", "--method", "ce,sm",
           "--memory", "pinned", "--min-size", f"{size}M", "--max-size", f"{size}M",
           "--samples", str(samples), "--devices", str(device), "--json", "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    # 1 is a finding (e.g. a downtrained link): the figures are still measured
    if p.returncode not in (0, 1):
        raise RuntimeError(f"gpubench exited {p.returncode}: {p.stderr.strip()[:400]}")
    return json.loads(p.stdout)


def gpubench_values(doc, device):
    """{metric: GB/s} of the bandwidth benchmark on device, and the run's verdict."""
    out = {}
    for bench in doc.get("benchmarks", []):
        if bench.get("name") != "bandwidth":
            continue
        for m in bench.get("metrics", []):
            if m.get("device") == device and m.get("value") is not None:
                out[m["name"]] = m["value"]
    return out, doc.get("verdict", {}).get("status")


def compare(theirs, ours, tol):
    """Rows of the table, and whether a goal row missed."""
    rows, missed = [], False
    for tc, metric, goal in PAIRS:
        nv, gb = theirs.get(tc), ours.get(metric)
        ratio = gb / nv if (gb is not None and nv) else None
        note = ""
        if nv is None:
            note = "nvbandwidth did not measure it"
        elif gb is None:
            note = "gpubench did not measure it"
        elif goal and abs(ratio - 1.0) > tol:
            note = f"differs from nvbandwidth by more than {tol * 100:g}%"
            missed = True
        rows.append({"test": tc, "metric": metric, "goal": goal, "nvbandwidth_gbps": nv,
                     "gpubench_gbps": gb, "ratio": ratio, "note": note or None})
    return rows, missed


def print_table(rows):
    fmt = lambda v: f"{v:10.2f}" if v is not None else f"{'-':>10}"  # noqa: E731
    print(f"{'nvbandwidth test':40} {'nvbw':>10} {'gpubench':>10} {'ratio':>7}  note")
    for r in rows:
        ratio = f"{r['ratio']:7.3f}" if r["ratio"] is not None else f"{'-':>7}"
        mark = " (goal)" if r["goal"] else ""
        print(f"{r['test']:40} {fmt(r['nvbandwidth_gbps'])} {fmt(r['gpubench_gbps'])} "
              f"{ratio}  {(r['note'] or '') + mark}")


def load(path):
    with open(path) as f:
        text = f.read()
    return json.loads(text[text.index("{"):])


def main():
    a = parse_args()
    try:
        nv_doc = (load(a.nvbandwidth_json) if a.nvbandwidth_json
                  else run_nvbandwidth(a.nvbandwidth, a.size, a.samples))
        gb_doc = (load(a.gpubench_json) if a.gpubench_json
                  else run_gpubench(a.gpubench, a.size, a.samples, a.device))
        theirs = nvbandwidth_values(nv_doc, a.device)
        ours, verdict = gpubench_values(gb_doc, a.device)
    except (OSError, RuntimeError, ValueError, KeyError, IndexError, AttributeError) as e:
        print(f"compare-nvbandwidth: error: {e}", file=sys.stderr)
        return 3
    rows, missed = compare(theirs, ours, a.tol)
    print_table(rows)
    if not any(r["ratio"] is not None for r in rows if r["goal"]):
        print("compare-nvbandwidth: error: no goal row was measured by both tools",
              file=sys.stderr)
        missed = None
    summary = {"device": a.device, "size_mib": a.size, "tolerance": a.tol,
               "gpubench_verdict": verdict,
               "nvbandwidth_version": nv_doc.get("nvbandwidth", {}).get("version"),
               "rows": rows}
    if a.output:
        with open(a.output, "w") as f:
            json.dump(summary, f, indent=2)
    if missed is None:
        return 3
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
