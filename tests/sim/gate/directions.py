#!/usr/bin/env python3
"""directions.py DOCS REPORT...: every metric of every report has a direction.

Reads the table of metric directions in DOCS (docs/report-format.md, section
"Metric directions": the same rows, in the same order, as
report/metric_directions.c; test_metric_directions checks that they agree),
and for each metric of each benchmark of each report finds the first row whose
benchmark and glob match. It fails on a metric no row matches, and on one whose
`better` in the report is not the row's (the product applies the table as it
writes). Prints how many distinct metric names each benchmark had.
"""
import fnmatch
import json
import re
import sys


def doc_rows(path):
    rows, inside = [], False
    for line in open(path, encoding="utf-8"):
        if line.startswith("#### Metric directions"):
            inside = True
            continue
        if inside and line.startswith("#"):
            break
        if inside and line.startswith("| `"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows.append((cells[0].strip("`"), cells[1].strip("`"), cells[2]))
    return rows


def main():
    rows = doc_rows(sys.argv[1])
    if len(rows) < 40:
        print(f"only {len(rows)} directions in {sys.argv[1]}")
        return 1
    bad, seen = [], {}
    for path in sys.argv[2:]:
        d = json.load(open(path))
        for b in d.get("benchmarks", []):
            for m in b.get("metrics", []):
                seen.setdefault(b["name"], set()).add(m["name"])
                row = next((r for r in rows if fnmatch.fnmatchcase(b["name"], r[0])
                            and fnmatch.fnmatchcase(m["name"], r[1])), None)
                if row is None:
                    bad.append(f"{path}: {b['name']}/{m['name']} has no direction "
                               "(report/metric_directions.c, docs/report-format.md)")
                elif m["better"] != row[2]:
                    bad.append(f"{path}: {b['name']}/{m['name']} is '{m['better']}', "
                               f"the table's row {row[0]}/{row[1]} says '{row[2]}'")
    for name in sorted(seen):
        print(f"{name}: {len(seen[name])} metric names")
    for line in sorted(set(bad)):
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
