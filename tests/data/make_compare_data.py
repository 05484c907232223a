#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make_compare_data.py - writes the saved report pairs the compare, thresholds,
formats and fleet tests read: base.json, regressed.json, noisy.json,
improved.json and other_model.json (in this folder).

Run it again after changing it; the files are committed so the tests need
no Python. Every file validates against docs/report.schema.json:
  python3 tests/cli/validate_report.py docs/report.schema.json tests/data/*.json
"""
import copy
import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


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


def samples(rng, center, spread, n=10):
    return [round(center + rng.uniform(-spread, spread), 3) for _ in range(n)]


def metric(name, unit, better, device, smp, peak=None, desc=None):
    st = stats(smp)
    m = {"name": name, "unit": unit, "better": better, "device": device,
         "value": st["median"], "peak": peak,
         "efficiency": st["median"] / peak if peak else None,
         "stats": st, "samples": smp}
    if desc:
        m["description"] = desc
    return m


def value(name, unit, better, device, v, peak=None):
    return {"name": name, "unit": unit, "better": better, "device": device, "value": v,
            "peak": peak, "efficiency": v / peak if peak else None, "stats": None,
            "samples": []}


H100_PEAKS = {
    "tflops_spec": {"fp64": 33.5, "fp64_tc": 66.9, "fp32": 66.9, "tf32": 494.7,
                    "fp16": 989.4, "bf16": 989.4, "fp16acc16": 989.4, "fp8": 1978.9,
                    "int8": 1978.9},
    "tflops_max_clock": {"fp64": 33.454, "fp64_tc": 66.908, "fp32": 66.908, "tf32": 535.27,
                         "fp16": 1070.54, "bf16": 1070.54, "fp16acc16": 1070.54,
                         "fp8": 2141.08, "int8": 2141.08},
    "memory_bw_gbps_spec": 3350, "memory_bw_gbps": 3352.32,
    "pcie_gbps_per_direction": 63.015, "pcie_gbps_per_direction_current": 63.015,
    "nvlink_gbps_per_direction": 450,
}

RTX4090_PEAKS = {
    "tflops_spec": {"fp64": 1.29, "fp64_tc": None, "fp32": 82.6, "tf32": 82.6,
                    "fp16": 165.2, "bf16": 165.2, "fp16acc16": 330.3, "fp8": 330.3,
                    "int8": 660.6},
    "tflops_max_clock": {"fp64": 1.41, "fp64_tc": None, "fp32": 90.3, "tf32": 90.3,
                         "fp16": 180.6, "bf16": 180.6, "fp16acc16": 361.3, "fp8": 361.3,
                         "int8": 722.6},
    "memory_bw_gbps_spec": 1008, "memory_bw_gbps": 1008.4,
    "pcie_gbps_per_direction": 31.508, "pcie_gbps_per_direction_current": 31.508,
    "nvlink_gbps_per_direction": None,
}


def device(index, name, uuid, bus, peaks, sm, power, cc, mem, nvlink):
    return {"index": index, "name": name, "uuid": uuid, "pci_bus_id": bus,
            "brand": "NVIDIA" if "H100" in name else "GeForce",
            "spec_key": "h100-sxm" if "H100" in name else "rtx4090", "cc": cc,
            "sm_count": sm, "memory_bytes": mem, "l2_bytes": 52428800,
            "clocks": {"max_sm_mhz": 1980 if "H100" in name else 2790,
                       "max_mem_mhz": 2619 if "H100" in name else 10501},
            "memory_bus_bits": 5120 if "H100" in name else 384,
            "pcie": {"gen": 5 if "H100" in name else 4, "width": 16,
                     "max_gen": 5 if "H100" in name else 4, "max_width": 16},
            "power_limit_w": power, "ecc": "H100" in name, "numa_node": index // 4,
            "nvlink": {"links_up": nvlink, "gen": 4 if nvlink else None}, "peaks": peaks}


def report(host, devices, benches, telemetry, seed_note):
    return {
        "schema": "gpubench.report/1",
        "tool": {"name": "gpubench", "version": "0.1.0", "git": "3f9c2a7d41be",
                 "built_with": {"cuda": 13000, "cublas": 130000, "nccl": 22809, "mpi": None,
                                "cuda_archs": "80,89,90"}},
        "run": {"command": "run", "command_line": ["gpubench", "run", "-o", seed_note],
                "started_at": "2026-11-22T10:00:00Z", "finished_at": "2026-11-22T10:04:10Z",
                "hostname": host, "status": "passed", "reason": None, "exit_code": 0},
        "host": {"hostname": host, "os": "Ubuntu 24.04.1 LTS", "kernel": "6.8.0-45-generic",
                 "cpu": "Intel(R) Xeon(R) Platinum 8480+", "driver_version": "580.65.06",
                 "cuda_driver_version": 13000, "cuda_runtime_version": 13000},
        "environment": {"CUDA_VISIBLE_DEVICES": "0,1"},
        "devices": devices, "topology": [], "benchmarks": benches, "telemetry": telemetry,
        "verdict": {"status": "passed", "exit_code": 0, "failed": [], "warnings": []},
    }


def gemm_bench(rng, devs, bf16, fp16, spread, peaks_bf16, power, extra_metric=None):
    metrics = []
    for d in devs:
        metrics.append(metric("tflops_bf16", "TFLOP/s", "higher", d,
                              samples(rng, bf16[d], spread), peaks_bf16,
                              "dense bf16 GEMM, 2*m*n*k FLOP per call"))
        metrics.append(metric("tflops_fp16", "TFLOP/s", "higher", d,
                              samples(rng, fp16[d], spread), peaks_bf16))
        metrics.append(value("power_w_mean", "W", "none", d, power))
        if extra_metric:
            metrics.append(extra_metric(d))
    series = [{"name": "tflops_over_time", "x_unit": "s", "y_unit": "TFLOP/s", "device": d,
               "x": [float(i) for i in range(1, 11)],
               "y": samples(rng, bf16[d], spread)} for d in devs]
    return {"name": "gemm", "status": "passed", "reason": None,
            "params": {"precision": "bf16,fp16", "m": 8192, "n": 8192, "k": 8192,
                       "warmup_s": 2, "duration_s": 1, "backend": "cublasLt"},
            "devices": devs, "started_s": 1.0, "duration_s": 12.0, "metrics": metrics,
            "series": series, "checks": [], "extra": {}}


def bandwidth_bench(rng, devs, h2d, mem, pcie_peak, mem_peak, with_d2h=True):
    metrics = []
    for d in devs:
        metrics.append(metric("h2d_pinned_gbps", "GB/s", "higher", d,
                              samples(rng, h2d, 0.2, 5), pcie_peak))
        if with_d2h:
            metrics.append(metric("d2h_pinned_gbps", "GB/s", "higher", d,
                                  samples(rng, h2d - 1.0, 0.2, 5), pcie_peak))
        metrics.append(metric("memory_copy_gbps", "GB/s", "higher", d,
                              samples(rng, mem, 5.0, 5), mem_peak))
        metrics.append(metric("h2d_latency_us", "us", "lower", d,
                              samples(rng, 2.1, 0.05, 5)))
    sizes = [4096 * 4 ** i for i in range(10)]
    series = []
    for d in devs:
        ys = [round(h2d * s / (s + 1.5e6 * h2d / 50), 3) for s in sizes]
        series.append({"name": "h2d_pinned_gbps_vs_size", "x_unit": "B", "y_unit": "GB/s",
                       "device": d, "x": sizes, "y": ys})
    return {"name": "bandwidth", "status": "passed", "reason": None,
            "params": {"size": 268435456, "samples": 5, "memory": "pinned"},
            "devices": devs, "started_s": 14.0, "duration_s": 6.5, "metrics": metrics,
            "series": series, "checks": [], "extra": {}}


def telemetry(rng, devs, temp, power, clock, tflops):
    out = []
    for i in range(40):
        t = 1.0 + i * 0.5
        for d in devs:
            out.append({"device": d, "t_s": t,
                        "temp_c": round(temp - 15 * math.exp(-i / 8) + rng.uniform(-0.5, 0.5), 1),
                        "power_w": round(power * (0.6 if i < 2 else 1.0) + rng.uniform(-5, 5), 1),
                        "sm_mhz": clock - (135 if 20 < i < 30 else 0),
                        "mem_mhz": 2619, "util_pct": 100, "mem_used_bytes": 1610612736,
                        "tflops": round(tflops + rng.uniform(-3, 3), 2) if i < 24 else None,
                        "clock_event_reasons": ["sw_power_cap"] if 20 < i < 30 else [],
                        "clock_event_mask": 4 if 20 < i < 30 else 0})
    return out


def h100_devices():
    return [device(0, "NVIDIA H100 80GB HBM3", "GPU-5e2d7c1a-9b3f-4c8e-a1d2-6f7b8c9d0e1f",
                   "00000000:18:00.0", H100_PEAKS, 132, 700, "9.0", 85520809984, 18),
            device(1, "NVIDIA H100 80GB HBM3", "GPU-7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
                   "00000000:2A:00.0", H100_PEAKS, 132, 700, "9.0", 85520809984, 18)]


def h100_report(name, bf16, fp16, spread, h2d=52.5, with_d2h=True, extra=None, seed=1):
    rng = random.Random(seed)
    devs = [0, 1]
    benches = [gemm_bench(rng, devs, bf16, fp16, spread, 989.4, 690.0, extra),
               bandwidth_bench(rng, devs, h2d, 2900.0, 63.015, 3350, with_d2h)]
    return report("gpu-node-17", h100_devices(), benches,
                  telemetry(rng, devs, 71, 690, 1980, bf16[0]), name)


def write(name, doc):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    base_bf16 = {0: 742.0, 1: 738.0}
    base_fp16 = {0: 745.0, 1: 741.0}
    write("base.json", h100_report("base.json", base_bf16, base_fp16, 1.5))
    # bf16 10% slower on both GPUs with a tight spread: a regression
    write("regressed.json", h100_report("regressed.json", {0: 668.0, 1: 664.0}, base_fp16,
                                        1.5, seed=2))
    # 7% slower, but the samples spread +-60: within the noise, not a regression
    noisy = h100_report("noisy.json", {0: 690.0, 1: 686.0}, base_fp16, 1.5, seed=3)
    for m in noisy["benchmarks"][0]["metrics"]:
        if m["name"] == "tflops_bf16":  # the median stays 7% down; the stdev is ~80
            center = m["value"]
            smp = [round(center + o, 3) for o in (-130, -95, -60, -30, -4, 4, 30, 60, 95, 130)]
            m.update(metric(m["name"], m["unit"], m["better"], m["device"], smp, m["peak"],
                            m.get("description")))
    write("noisy.json", noisy)
    # 8% faster, d2h not measured, and a new fp8 metric: improvement, only_a, only_b
    fp8 = lambda d: metric("tflops_fp8", "TFLOP/s", "higher", d,  # noqa: E731
                           samples(random.Random(9 + d), 1350.0, 3.0), 1978.9)
    write("improved.json", h100_report("improved.json", {0: 801.0, 1: 797.0}, base_fp16, 1.5,
                                       with_d2h=False, extra=fp8, seed=4))
    # another GPU model: side by side, never gated
    rng = random.Random(5)
    devs = [0]
    dev4090 = [device(0, "NVIDIA GeForce RTX 4090", "GPU-0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9",
                      "00000000:01:00.0", RTX4090_PEAKS, 128, 450, "8.9", 25757220864, None)]
    benches = [gemm_bench(rng, devs, {0: 158.0}, {0: 160.0}, 0.8, 165.2, 430.0),
               bandwidth_bench(rng, devs, 26.2, 930.0, 31.508, 1008)]
    doc = report("workstation-3", dev4090, benches, telemetry(rng, devs, 64, 430, 2790, 158.0),
                 "other_model.json")
    doc["environment"] = {"CUDA_VISIBLE_DEVICES": "0"}
    write("other_model.json", doc)


if __name__ == "__main__":
    main()
