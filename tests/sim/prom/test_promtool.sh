#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_promtool.sh DIR RULES.yml - Prometheus' own linter on gpubench's
# textfiles (issue 28): `promtool check metrics` on every .prom of DIR (a report
# of every benchmark on the simulator, make_reports.sh) must print nothing and
# exit 0, `promtool check rules` must accept the example alert rules, and
# `promtool test rules` must see them fire on a failed run's textfile.
# Exit 77 (skipped) when promtool is not installed (Debian's prometheus
# package has it; scripts/install-deps.sh --test installs it).
DIR=${1:?usage: test_promtool.sh DIR RULES.yml}
RULES=${2:?usage: test_promtool.sh DIR RULES.yml}
if ! command -v promtool >/dev/null 2>&1; then
	echo "skipped: no promtool (Debian's prometheus package; scripts/install-deps.sh --test)"
	exit 77
fi
failures=0
n=0
for f in "$DIR"/*.prom; do
	[ -e "$f" ] || break
	n=$((n + 1))
	# check metrics reads stdin; a lint problem is a line on stdout and exit 3
	if ! out=$(promtool check metrics <"$f" 2>&1) || [ -n "$out" ]; then
		printf 'FAIL: promtool check metrics %s:\n%s\n' "$(basename "$f")" "$out" >&2
		failures=$((failures + 1))
	fi
done
# the fixture has info, six benchmarks, a failed run and one written by gemm -o
if [ "$n" -lt 9 ]; then
	echo "FAIL: $n .prom files in $DIR, expected 9 (did sim_prom_reports run?)" >&2
	failures=$((failures + 1))
fi
if ! out=$(promtool check rules "$RULES" 2>&1); then
	printf 'FAIL: promtool check rules %s:\n%s\n' "$RULES" "$out" >&2
	failures=$((failures + 1))
fi
# The rules against what gpubench writes (promtool test rules): the failed
# run's textfile as input series (relabelled measured, as the rules want) must
# fire GpubenchRunFailed and one GpubenchCheckFailed per failed check of its
# JSON, the passed gemm run's neither. Catches a rule that names no family.
if [ -s "$DIR/failed.prom" ] && [ -s "$DIR/gemm.prom" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	python3 - "$DIR" "$RULES" "$tmp/test.yml" <<'PY'
import json, os, sys
folder, rules, out = sys.argv[1:4]

def series(prom):
    for line in open(prom):
        if line.startswith("#") or not line.strip():
            continue
        name_labels, value = line.rstrip("\n").rsplit(" ", 1)
        yield name_labels.replace('simulated="true"', 'simulated="false"'), value

def alerts(name):
    d = json.load(open(os.path.join(folder, name + ".json")))
    run = []
    if d["verdict"]["status"] == "failed":
        run.append({"exp_labels": {"status": "failed", "simulated": "false",
                                   "severity": "critical"},
                    "exp_annotations": {"summary": "gpubench failed on ",
                                        "description": "a check failed; see "
                                        "gpubench_check_status{status=\"failed\"} for which"}})
    checks = []
    uuid = {g["index"]: g["uuid"] for g in d["devices"]}
    model = {g["index"]: g["name"] for g in d["devices"]}
    for b in d["benchmarks"]:
        for c in b.get("checks", []):
            if c["status"] != "failed":
                continue
            g = c["device"]
            checks.append({"exp_labels": {"benchmark": b["name"], "check": c["name"],
                                          "gpu": str(g), "uuid": uuid[g], "model": model[g],
                                          "status": "failed", "simulated": "false",
                                          "severity": "warning"},
                           "exp_annotations": {"summary": "%s/%s failed on GPU %d (%s) of " %
                                               (b["name"], c["name"], g, uuid[g])}})
    return run, checks

tests = []
for name in ("failed", "gemm"):
    run, checks = alerts(name)
    tests.append({
        "interval": "1m",
        "input_series": [{"series": s, "values": v} for s, v in
                         series(os.path.join(folder, name + ".prom"))],
        "alert_rule_test": [
            {"eval_time": "0m", "alertname": "GpubenchRunFailed", "exp_alerts": run},
            {"eval_time": "0m", "alertname": "GpubenchCheckFailed", "exp_alerts": checks},
        ],
    })
assert alerts("failed")[1], "the failed fixture has no failed check"
json.dump({"rule_files": [os.path.abspath(rules)], "evaluation_interval": "1m",
           "tests": tests}, open(out, "w"), indent=1)
PY
	if ! out=$(promtool test rules "$tmp/test.yml" 2>&1); then
		printf 'FAIL: promtool test rules (the alert rules on the textfiles):\n%s\n' "$out" >&2
		failures=$((failures + 1))
	fi
else
	echo "FAIL: no failed.prom or gemm.prom in $DIR" >&2
	failures=$((failures + 1))
fi
echo "$n textfiles and the alert rules checked, $failures failed"
[ "$failures" -eq 0 ]
