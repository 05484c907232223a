#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare-torch-matmul.py - gpubench gemm against PyTorch's torch.matmul, same GPU, same run.

Issue 3's goal: in every precision, gpubench's cuBLASLt path is within 1% of what
torch.matmul reaches on the same GPU in the same run. This script measures both
on one GPU and prints a table plus a JSON summary; exit 1 if any precision is more
than --tolerance below PyTorch, 2 on bad input, 3 if it cannot run (no torch, no
GPU, gpubench failed).

Each precision is measured --rounds times on each side (default 2), alternating
which side goes first, and each side's median is compared: measuring one side
always first would hand the other a warmer, slower-clocked card, which matters
against a 1% goal.

PyTorch is timed the way gpubench times itself: random data in [-1, 1], a warm-up,
then samples of back-to-back products between CUDA events, median of the samples.
fp8 uses torch._scaled_mm (E4M3, unit scales, bf16 output) and int8 torch._int_mm,
when this PyTorch has them; a precision PyTorch cannot run is reported, not hidden.

usage: scripts/compare-torch-matmul.py --gpubench build/gpubench [--size 8192]
       [--precision bf16,fp16,tf32,fp32,fp64,fp8,int8] [--device 0] [--tolerance 1%]
       [--rounds 2] [-o summary.json]
"""
import argparse
import json
import statistics
import subprocess
import sys


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpubench", required=True, help="path to the gpubench binary")
    ap.add_argument("--size", type=int, default=8192, help="m = n = k (default 8192)")
    ap.add_argument("--precision", default="bf16,fp16,tf32,fp32,fp64,fp8,int8")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--warmup-s", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=2,
                    help="measurements of each side per precision, alternating who goes first")
    ap.add_argument("--tolerance", default="1%", help="allowed shortfall against PyTorch")
    ap.add_argument("-o", "--output", help="write the JSON summary here")
    a = ap.parse_args()
    try:
        a.tol = float(a.tolerance.rstrip("%")) / 100.0
    except ValueError:
        ap.error(f"cannot parse '{a.tolerance}' as a percentage like 1%")
    if a.rounds < 1 or a.samples < 1:
        ap.error("--rounds and --samples must be at least 1")
    a.precisions = [p for p in a.precision.split(",") if p]
    return a


def torch_tflops(torch, prec, n, samples, warmup_s):
    """Median TFLOP/s of torch on an n^3 product, or (None, reason)."""
    dev = torch.device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = prec == "tf32"
    gen = torch.Generator(device=dev).manual_seed(1)

    def rand(dtype):
        return (torch.rand(n, n, device=dev, generator=gen) * 2 - 1).to(dtype)

    if prec in ("bf16", "fp16", "tf32", "fp32", "fp64"):
        dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32,
                 "fp32": torch.float32, "fp64": torch.float64}[prec]
        a, b = rand(dtype), rand(dtype).t()  # B transposed: the TN layout gpubench uses
        op = lambda: torch.matmul(a, b)  # noqa: E731
    elif prec == "fp8":
        if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
            return None, "this PyTorch has no torch._scaled_mm"
        a = rand(torch.float32).to(torch.float8_e4m3fn)
        b = rand(torch.float32).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device=dev)
        op = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one,  # noqa: E731
                                      out_dtype=torch.bfloat16)
    elif prec == "int8":
        if not hasattr(torch, "_int_mm"):
            return None, "this PyTorch has no torch._int_mm"
        a = torch.randint(-64, 65, (n, n), device=dev, dtype=torch.int8, generator=gen)
        b = torch.randint(-64, 65, (n, n), device=dev, dtype=torch.int8, generator=gen).t()
        op = lambda: torch._int_mm(a, b)  # noqa: E731
    else:
        return None, f"unknown precision '{prec}'"
    try:
        op()
    except RuntimeError as e:  # e.g. fp8 below sm_89
        return None, f"torch cannot run it: {str(e).splitlines()[0]}"
    torch.cuda.synchronize()

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    # warm-up for a fixed time: clocks and power settle as they do for gpubench
    import time
    t0 = time.monotonic()
    while time.monotonic() - t0 < warmup_s:
        op()
    torch.cuda.synchronize()
    # batch size so one sample lasts about 0.2 s
    start.record()
    op()
    end.record()
    end.synchronize()
    per_op_s = max(start.elapsed_time(end) / 1e3, 1e-6)
    batch = max(1, int(0.2 / per_op_s))
    rates = []
    for _ in range(samples):
        start.record()
        for _ in range(batch):
            op()
        end.record()
        end.synchronize()
        secs = start.elapsed_time(end) / 1e3
        rates.append(2.0 * n ** 3 * batch / secs / 1e12)
    return statistics.median(rates), None


def gpubench_tflops(binary, prec, n, device):
    """(median TFLOP/s or None, verdict) of one gpubench gemm run, or raise."""
    cmd = [binary, "gemm", "--precision", prec, "--size", str(n),
           "--devices", str(device), "--json", "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"gpubench exited {p.returncode}: {p.stderr.strip()}")
    doc = json.loads(p.stdout)
    for bench in doc["benchmarks"]:
        for m in bench["metrics"]:
            if m["name"] == "tflops_" + prec and m["value"] is not None:
                return m["value"], doc["verdict"]["status"]
    return None, doc["verdict"]["status"]


def measure_rounds(a, torch, prec):
    """Both sides, a.rounds times, alternating which goes first so neither
    always meets the warmer card: (ours[], theirs[], verdicts, torch's reason)."""
    ours, theirs, verdicts, why = [], [], set(), None
    for r in range(a.rounds):
        for side in (("gpubench", "torch") if r % 2 == 0 else ("torch", "gpubench")):
            if side == "gpubench":
                v, verdict = gpubench_tflops(a.gpubench, prec, a.size, a.device)
                verdicts.add(verdict)
                if v is not None:
                    ours.append(v)
            elif why is None:
                v, why = torch_tflops(torch, prec, a.size, a.samples, a.warmup_s)
                torch.cuda.empty_cache()  # leave gpubench the memory torch cached
                if v is not None:
                    theirs.append(v)
    return ours, theirs, verdicts, why


def main():
    a = parse_args()
    try:
        import torch
    except ImportError:
        print("compare-torch-matmul: error: PyTorch is not installed", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("compare-torch-matmul: error: torch sees no CUDA GPU", file=sys.stderr)
        return 3
    torch.cuda.set_device(a.device)
    rows, worst, verdicts = [], 0, set()
    print(f"{'precision':10} {'gpubench':>10} {'torch':>10} {'ratio':>7}  note")
    for prec in a.precisions:
        try:
            ours, theirs, v, why = measure_rounds(a, torch, prec)
        except (RuntimeError, json.JSONDecodeError, KeyError) as e:
            print(f"compare-torch-matmul: error: {e}", file=sys.stderr)
            return 3
        verdicts |= v
        mine = statistics.median(ours) if ours else None
        them = statistics.median(theirs) if theirs else None
        ratio = mine / them if (mine and them) else None
        note = why or ("" if mine is not None else "gpubench did not measure it")
        if ratio is not None and ratio < 1.0 - a.tol:
            note = f"below torch by more than {a.tolerance}"
            worst = 1
        rows.append({"precision": prec, "gpubench_tflops": mine, "torch_tflops": them,
                     "ratio": ratio, "gpubench_rounds": ours, "torch_rounds": theirs,
                     "note": note or None})
        fmt = lambda v: f"{v:10.1f}" if v is not None else f"{'-':>10}"  # noqa: E731
        r = f"{ratio:7.3f}" if ratio is not None else f"{'-':>7}"
        print(f"{prec:10} {fmt(mine)} {fmt(them)} {r}  {note}", flush=True)
    summary = {"gpu": torch.cuda.get_device_name(a.device), "size": a.size,
               "torch": torch.__version__, "rounds": a.rounds,
               "gpubench_verdicts": sorted(verdicts), "tolerance": a.tol, "rows": rows}
    if a.output:
        with open(a.output, "w") as f:
            json.dump(summary, f, indent=2)
    return worst


if __name__ == "__main__":
    sys.exit(main())
