#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make_compare_data.py - writes the saved report pairs the compare, report,
thresholds, formats and fleet tests read: base.json, regressed.json,
noisy.json, improved.json and other_model.json (in this folder).

Each fixture is built FROM the simulated templates in sim/ (made by the real
gpubench on the simulated GPU, see sim/refresh.sh for the exact command lines),
so it carries the metric names, units, params, peaks and checks the
benchmarks really write. Only the samples of the metrics a scenario is about
are changed, and their value/stats/efficiency are recomputed from them.

Which machine file made which fixture (host.simulated_machine says it too):
  base.json, regressed.json, noisy.json, improved.json
      sim/h100-gemm.json + sim/h100-bandwidth.json,
      tests/sim/machines/8x-h100-nvlink.json (GPUs 0 and 1 of 8)
  other_model.json
      sim/rtx4090-gemm.json + sim/rtx4090-bandwidth.json,
      tests/sim/machines/2x-rtx4090-pcie.json
Each fixture joins its machine's gemm and bandwidth templates into one report
of two benchmarks, as `gpubench run --only gemm,bandwidth` would write it.

Scenarios (gemm bf16 is the metric each one is about):
  base         the templates' samples, re-drawn with a tight spread
  regressed    bf16 10% slower, tight spread: a regression
  noisy        tflops_bf16 7% slower but spread +-18%: within the noise
               (its pct_of_* siblings are left as in base, see main())
  improved     bf16 8% faster; d2h_ce_pinned_gbps not measured (only in A),
               the PCIe link read under load (pcie_gen_under_load and
               pcie_width_under_load, only in B)
  other_model  the RTX 4090 as simulated: side by side, never gated

Run it again after changing it or the templates; the output is deterministic
(seeded), and the files are committed so the tests need no Python. Every file
validates against docs/report.schema.json:
  python3 tests/cli/validate_report.py docs/report.schema.json tests/data/*.json
"""
import copy
import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SIM = os.path.join(HERE, "sim")
TIGHT = 0.0015  # relative half-width of a quiet metric's samples


def stats(samples):
    s = sorted(samples)
    n = len(s)

    def pct(p):
        pos = p / 100 * (n - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, n - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - lo)

    mean = sum(s) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0.0
    return {"n": n, "min": s[0], "p05": pct(5), "median": pct(50), "mean": mean,
            "p95": pct(95), "p99": pct(99), "max": s[-1], "stdev": sd,
            "cv": sd / mean if mean else 0.0}


def set_samples(m, smp):
    """Gives metric m these samples, with value, stats and efficiency to match."""
    st = stats(smp)
    m["samples"] = smp
    m["stats"] = st
    m["value"] = st["median"]
    m["efficiency"] = st["median"] / m["peak"] if m.get("peak") else None


def redraw(rng, m, factor, spread=TIGHT):
    """New samples around factor x the template's median, +-spread relative."""
    center = m["value"] * factor
    n = len(m["samples"])
    set_samples(m, [round(center * (1 + rng.uniform(-spread, spread)), 6) for _ in range(n)])


def scale_value(m, factor):
    """A metric without samples (a percentage of peak, say) moves with its rate."""
    m["value"] = m["value"] * factor
    if m.get("efficiency") is not None:
        m["efficiency"] = m["efficiency"] * factor


def load(name):
    with open(os.path.join(SIM, name), encoding="utf-8") as f:
        return json.load(f)


def joined(model, out_name):
    """One report of the model's gemm and bandwidth templates, bandwidth after gemm."""
    gemm, bw = load(model + "-gemm.json"), load(model + "-bandwidth.json")
    doc = copy.deepcopy(gemm)
    g, b = gemm["benchmarks"][0], copy.deepcopy(bw["benchmarks"][0])
    shift = g["started_s"] + g["duration_s"]
    b["started_s"] += shift
    doc["benchmarks"] = [g, b]
    for t in bw["telemetry"]:
        t = dict(t)
        t["t_s"] += shift
        doc["telemetry"].append(t)
    doc["run"]["command"] = "run"
    doc["run"]["command_line"] = ["gpubench", "run", "--only", "gemm,bandwidth", "-o", out_name]
    doc["run"]["finished_at"] = bw["run"]["finished_at"]
    return doc


def metrics_of(doc, bench):
    return next(b for b in doc["benchmarks"] if b["name"] == bench)["metrics"]


def fixture(model, out_name, seed, bf16=1.0, bf16_pct=None):
    """The joined templates with every sampled metric re-drawn (seeded) and
    the gemm bf16 metrics moved by bf16 x (their pct_of_* values by bf16_pct x,
    bf16 unless given)."""
    rng = random.Random(seed)
    doc = joined(model, out_name)
    for b in doc["benchmarks"]:
        for m in b["metrics"]:
            is_bf16 = b["name"] == "gemm" and m["name"].endswith("_bf16")
            if m["samples"]:
                redraw(rng, m, bf16 if is_bf16 else 1.0)
            elif is_bf16 and m["name"].startswith("pct_of_"):
                scale_value(m, bf16 if bf16_pct is None else bf16_pct)
    return doc


def pcie_under_load(doc):
    """The link as the bandwidth benchmark reports it once a pinned copy ran
    long enough to read it under load (Gen5 x16, the H100's maximum): two
    metrics per GPU and the pcie_link_under_load check passed instead of
    skipped. In a real run that takes --max-size 512M or more; the params are
    left as they are so that compare still matches the two benchmarks."""
    b = doc["benchmarks"][1]
    gbps = 32e9 * 128 / 130 * 16 / 8 / 1e9  # Gen5 x16, one direction
    for dev in b["devices"]:
        for name, unit, v, what in (("pcie_gen_under_load", "gen", 5, "generation"),
                                    ("pcie_width_under_load", "lanes", 16, "width")):
            b["metrics"].append({
                "name": name, "unit": unit, "better": "higher", "device": dev, "value": v,
                "peak": None, "efficiency": None, "stats": None, "samples": [],
                "description": "PCIe %s NVML reported while pinned copies of 512 MiB or "
                               "more a sample ran (best reading)" % what})
    for c in b["checks"]:
        if c["name"] == "pcie_link_under_load":
            c.update(status="passed", observed=gbps, threshold=gbps,
                     message="PCIe link at Gen5 x16 under load, its maximum")


def noisy(doc):
    """tflops_bf16 spread symmetrically +-18% around its (7% lower) median, so
    the median stays put and the stdev (~11%) is wider than the change."""
    offsets = (-0.18, -0.13, -0.08, -0.04, -0.005, 0.005, 0.04, 0.08, 0.13, 0.18)
    for m in metrics_of(doc, "gemm"):
        if m["name"] == "tflops_bf16":
            center = m["value"]
            set_samples(m, [round(center * (1 + o), 6) for o in offsets])
    return doc


def drop(doc, bench, name):
    ms = metrics_of(doc, bench)
    ms[:] = [m for m in ms if m["name"] != name]


def write(name, doc):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    write("base.json", fixture("h100", "base.json", 1))
    write("regressed.json", fixture("h100", "regressed.json", 2, bf16=0.90))
    # pct_of_*_bf16 stay at base: they are values without samples, so compare
    # has no spread to judge them by and would gate a 7% drop of them that the
    # samples of tflops_bf16 show is noise
    write("noisy.json", noisy(fixture("h100", "noisy.json", 3, bf16=0.93, bf16_pct=1.0)))
    improved = fixture("h100", "improved.json", 4, bf16=1.08)
    drop(improved, "bandwidth", "d2h_ce_pinned_gbps")
    pcie_under_load(improved)
    write("improved.json", improved)
    write("other_model.json", fixture("rtx4090", "other_model.json", 5))


if __name__ == "__main__":
    main()
