#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_exposition.py DIR - node_exporter's textfile, without promtool (issue 28).

DIR holds NAME.json and NAME.prom pairs (make_reports.sh). Each .prom is
parsed by the text exposition format's rules (0.0.4) and held to
Prometheus' naming conventions and to its JSON report:

- every line a HELP, a TYPE, a comment or a sample; HELP and TYPE once per
  family and before its samples; a family's samples together; label values
  escaped (only \\\\, \\" and \\n), no series twice;
- names: gpubench_ prefix, lowercase, no abbreviated or non-base unit
  (us, ms, gb, mhz, pct, tflops, ...), _total only on a counter (gpubench has
  none: every value is of the last run), no gauge ending in _count, _sum,
  _bucket;
- every metric of the report with a value is one sample of a family whose
  name ends in its base unit, labelled with the GPU's index, UUID and model,
  valued in base units (GB/s x 1e9, us x 1e-6, % / 100, MHz x 1e6, ...);
  every check a state set with 1 on its status; the verdict and the start
  time as the report says.

Then a report with quotes, backslashes and newlines in names is rendered
by GPUBENCH_BIN and its labels must read back as the same strings.
"""
import calendar
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
# the report's units in base units: (scale, the family name's last words)
UNITS = {
    "TFLOP/s": (1e12, "flops"), "TOP/s": (1e12, "ops"), "GB/s": (1e9, "bytes_per_second"),
    "us": (1e-6, "seconds"), "ms": (1e-3, "seconds"), "s": (1, "seconds"),
    "%": (0.01, "ratio"), "fraction": (1, "ratio"), "ratio": (1, "ratio"), "x": (1, "ratio"),
    "C": (1, "celsius"), "W": (1, "watts"), "MHz": (1e6, "hertz"), "B": (1, "bytes"),
    "count": (1, ""), "1": (1, ""),
}
# words a name must not have: abbreviated or scaled units
BAD_WORDS = {"s", "ms", "us", "ns", "sec", "b", "kb", "mb", "gb", "tb", "gib", "mib", "mhz",
             "ghz", "pct", "percent", "tflops", "gflops", "tops", "gbps", "mbps", "bits",
             "milliseconds", "microseconds", "nanoseconds", "megabytes", "gigabytes"}
CHECK_STATES = ["passed", "warning", "failed", "skipped", "error"]
ALL_STATES = CHECK_STATES + ["not_built", "interrupted"]

errors = []


def err(where, msg):
    errors.append("%s: %s" % (where, msg))


def parse_labels(s, where):
    """{a="x",b="y"} body -> dict, by the format's escapes; None when malformed"""
    labels, i = {}, 0
    while i < len(s):
        m = LABEL_NAME.match(s, i)
        if not m or s[m.end():m.end() + 2] != '="':
            return None
        name, i, val = m.group(0), m.end() + 2, []
        while i < len(s) and s[i] != '"':
            if s[i] == "\n":
                return None
            if s[i] == "\\":
                nxt = s[i + 1:i + 2]
                if nxt not in ("\\", '"', "n"):
                    return None
                val.append("\n" if nxt == "n" else nxt)
                i += 2
            else:
                val.append(s[i])
                i += 1
        if i >= len(s):
            return None
        if name in labels:
            err(where, "label %s twice" % name)
        labels[name] = "".join(val)
        i += 1
        if i < len(s):
            if s[i] != ",":
                return None
            i += 1
    return labels


def split_sample(line):
    """'name{labels} value' -> (name, labels body, value text)"""
    if "{" in line:
        name, rest = line.split("{", 1)
        # the label set ends at the last '}' (values may hold braces)
        body, tail = rest.rsplit("}", 1)
        return name, body, tail.strip()
    name, value = line.split(" ", 1)
    return name, "", value.strip()


def parse(path):
    """families: name -> {help, type, samples: [(labels, value)]}"""
    fams, order, current = {}, [], None
    for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        where = "%s:%d" % (os.path.basename(path), n)
        if not line:
            continue
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            parts = line.split(" ", 3)
            if len(parts) < 4 or not NAME.match(parts[2]):
                err(where, "bad line %r" % line)
                continue
            name = parts[2]
            f = fams.setdefault(name, {"help": None, "type": None, "samples": []})
            key = "help" if parts[1] == "HELP" else "type"
            if f[key] is not None:
                err(where, "%s %s twice" % (parts[1], name))
            if f["samples"]:
                err(where, "%s of %s after its samples" % (parts[1], name))
            f[key] = parts[3]
            if name not in order:
                order.append(name)
            current = name
            continue
        if line.startswith("#"):
            continue
        try:
            name, body, value = split_sample(line)
        except ValueError:
            err(where, "not a sample: %r" % line)
            continue
        labels = parse_labels(body, where)
        if labels is None or not NAME.match(name):
            err(where, "malformed sample %r" % line)
            continue
        if name != current:
            err(where, "sample of %s outside its family's block (HELP and TYPE first, "
                "samples together)" % name)
            continue
        try:
            v = float(value)
        except ValueError:
            err(where, "value %r" % value)
            continue
        fams[name]["samples"].append((labels, v))
    return fams


def check_names(fams, where):
    for name, f in fams.items():
        if f["help"] is None or f["type"] is None:
            err(where, "%s without HELP or TYPE" % name)
        if not name.startswith("gpubench_") or name != name.lower():
            err(where, "%s: not gpubench_ and lowercase" % name)
        bad = BAD_WORDS.intersection(name.split("_"))
        if bad:
            err(where, "%s: unit words %s are not base units" % (name, sorted(bad)))
        if name.endswith("_total") != (f["type"] == "counter"):
            err(where, "%s: _total and TYPE %s disagree" % (name, f["type"]))
        if f["type"] != "gauge":
            err(where, "%s: TYPE %s, gpubench writes gauges only" % (name, f["type"]))
        if re.search(r"_(count|sum|bucket)$", name):
            err(where, "%s: a gauge named like a histogram's part" % name)
        seen = set()
        for labels, _ in f["samples"]:
            key = tuple(sorted(labels.items()))
            if key in seen:
                err(where, "%s%s twice" % (name, labels))
            seen.add(key)


def gpu_labels(d, device):
    """the labels a GPU's sample must have: gpu, uuid, model"""
    if device is None or device < 0:
        return {}
    dev = next((x for x in d.get("devices", []) if x["index"] == device), {})
    want = {"gpu": str(device)}
    if dev.get("uuid"):
        want["uuid"] = dev["uuid"]
    if dev.get("name"):
        want["model"] = dev["name"]
    return want


def has(labels, want):
    return all(labels.get(k) == v for k, v in want.items())


def no_gpu(labels):
    return not any(k in labels for k in ("gpu", "uuid", "model"))


def check_metrics(d, fams, where):
    """every metric with a value: one sample, in base units, in a family named by them"""
    taken = set()
    expected = 0
    for b in d["benchmarks"]:
        for m in b.get("metrics", []):
            v = m.get("value")
            if not isinstance(v, (int, float)) or not math.isfinite(v):
                continue
            expected += 1
            if m["unit"] not in UNITS:
                err(where, "%s/%s: unit %r has no base unit in this test (new unit? add it to "
                    "report/prom_names.c and here)" % (b["name"], m["name"], m["unit"]))
                continue
            scale, suffix = UNITS[m["unit"]]
            want = gpu_labels(d, m.get("device"))
            found = None
            for name, f in fams.items():
                if not name.startswith("gpubench_" + b["name"]):
                    continue
                if suffix and not name.endswith("_" + suffix):
                    continue
                # HELP names the report's metric: "... (<name> in <unit> ...)"
                if "(" + m["name"] + " " not in (f["help"] or "") and \
                        "(" + m["name"] + ")" not in (f["help"] or ""):
                    continue
                for i, (labels, got) in enumerate(f["samples"]):
                    if (name, i) in taken:
                        continue
                    if want and not has(labels, want):
                        continue
                    if not want and not no_gpu(labels):
                        continue
                    if math.isclose(got, v * scale, rel_tol=1e-12, abs_tol=1e-300):
                        found = (name, i)
                        break
                if found:
                    break
            if not found:
                err(where, "%s/%s = %r %s (GPU %s): no sample of %r x %g in a family ending "
                    "in _%s" % (b["name"], m["name"], v, m["unit"], m.get("device"), v, scale,
                                suffix))
            else:
                taken.add(found)
    written = sum(len(f["samples"]) for n, f in fams.items()
                  if n.split("_")[1] in {b["name"] for b in d["benchmarks"]} and
                  not n.startswith(("gpubench_benchmark_", "gpubench_check_")))
    if written != expected:
        err(where, "%d metric samples for %d metrics with a value" % (written, expected))


def state_set(fams, family, want, status, states, where, what):
    samples = [(l, v) for l, v in fams.get(family, {"samples": []})["samples"] if has(l, want)]
    got = {l.get("status"): v for l, v in samples}
    if sorted(got) != sorted(states) or len(samples) != len(states):
        err(where, "%s: states %s, expected %s" % (what, sorted(got), sorted(states)))
        return
    for s in states:
        if got[s] != (1 if s == status else 0):
            err(where, "%s: status=%s is %r, the report says %s" % (what, s, got[s], status))


def iso_epoch(s):
    return calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))


def check_run(d, fams, where):
    for b in d["benchmarks"]:
        for c in b.get("checks", []):
            want = {"benchmark": b["name"], "check": c["name"]}
            want.update(gpu_labels(d, c.get("device")))
            state_set(fams, "gpubench_check_status", want, c["status"], CHECK_STATES, where,
                      "check %s/%s GPU %s" % (b["name"], c["name"], c.get("device")))
        state_set(fams, "gpubench_benchmark_status", {"benchmark": b["name"]}, b["status"],
                  ALL_STATES, where, "benchmark %s" % b["name"])
    state_set(fams, "gpubench_verdict_status", {}, d["verdict"]["status"], ALL_STATES, where,
              "verdict")
    ts = fams.get("gpubench_last_run_timestamp_seconds", {"samples": []})["samples"]
    if [v for _, v in ts] != [iso_epoch(d["run"]["started_at"])]:
        err(where, "gpubench_last_run_timestamp_seconds %r, run.started_at %s" %
            (ts, d["run"]["started_at"]))
    code = fams.get("gpubench_exit_code", {"samples": []})["samples"]
    if [v for _, v in code] != [d["run"]["exit_code"]]:
        err(where, "gpubench_exit_code %r, run.exit_code %r" % (code, d["run"]["exit_code"]))
    for dev in d.get("devices", []):
        want = gpu_labels(d, dev["index"])
        info = [l for l, v in fams.get("gpubench_gpu_info", {"samples": []})["samples"]
                if has(l, want) and v == 1]
        if len(info) != 1:
            err(where, "gpubench_gpu_info for GPU %d: %r" % (dev["index"], info))
        mem = [v for l, v in fams.get("gpubench_gpu_memory_bytes", {"samples": []})["samples"]
               if has(l, want)]
        if dev.get("memory_bytes") and mem != [dev["memory_bytes"]]:
            err(where, "gpubench_gpu_memory_bytes of GPU %d: %r" % (dev["index"], mem))
    for name, f in fams.items():
        for labels, _ in f["samples"]:
            if labels.get("simulated") != "true":
                err(where, "%s%s: not simulated=\"true\"" % (name, labels))


def check_escaping(src):
    """names with quotes, backslashes and newlines read back as themselves"""
    bin_ = os.environ.get("GPUBENCH_BIN")
    if not bin_:
        err("escaping", "GPUBENCH_BIN is not set")
        return
    d = json.load(open(src))
    nasty = 'we"ird\\ model\nline two'
    d["devices"][0]["name"] = nasty
    d["run"]["hostname"] = nasty
    d["host"]["hostname"] = nasty
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "nasty.json")
        json.dump(d, open(path, "w"))
        out = os.path.join(tmp, "nasty.prom")
        r = subprocess.run([bin_, "report", path, "-o", out], capture_output=True, text=True)
        if r.returncode != 0:
            err("escaping", "report nasty.json: exit %d %s" % (r.returncode, r.stderr))
            return
        fams = parse(out)
    check_names(fams, "escaping")
    models = {l.get("model") for f in fams.values() for l, _ in f["samples"]
              if l.get("gpu") == "0"}
    if models != {nasty}:
        err("escaping", "model labels of GPU 0 read back as %r" % models)
    hosts = [l.get("host") for l, _ in fams.get("gpubench_run_info", {"samples": []})["samples"]]
    if hosts != [nasty]:
        err("escaping", "host label reads back as %r" % hosts)


def main():
    folder = sys.argv[1]
    pairs = sorted(glob.glob(os.path.join(folder, "*.json")))
    names = [os.path.basename(p)[:-5] for p in pairs]
    # the fixture: every benchmark, info, and a failed run
    for want in ("info", "gemm", "bandwidth", "p2p", "nccl", "scaling", "stress", "failed"):
        if want not in names:
            err(folder, "no %s.json: did sim_prom_reports run?" % want)
    for p in pairs:
        prom = p[:-5] + ".prom"
        where = os.path.basename(prom)
        d = json.load(open(p))
        if not os.path.exists(prom):
            err(where, "missing")
            continue
        fams = parse(prom)
        check_names(fams, where)
        check_metrics(d, fams, where)
        check_run(d, fams, where)
    failed = os.path.join(folder, "failed.json")
    if os.path.exists(failed) and json.load(open(failed))["verdict"]["status"] != "failed":
        err("failed.json", "a bit flip in GEMM did not fail the run")
    if os.path.exists(os.path.join(folder, "gemm.json")):
        check_escaping(os.path.join(folder, "gemm.json"))
    for e in errors[:40]:
        print("FAIL:", e)
    print("%d .prom files, %d problems" % (len(pairs), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
