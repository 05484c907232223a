#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""validate_report.py - check gpubench reports against docs/report.schema.json.

Usage: validate_report.py [--strict] SCHEMA REPORT...

The published schema is forward compatible (objects allow keys it does not
list, so a newer gpubench.report/1 still validates). --strict closes every
object that lists its keys ("additionalProperties": false): what the tests
use on this build's own output, so a key the writer adds without the schema,
or a typo, is caught.

Prints every schema violation as "REPORT: PATH: MESSAGE" (PATH in jq style,
e.g. .benchmarks[0].metrics[1].value) and exits 1 if any report is invalid
or unreadable, 0 if all are valid, 2 on a usage error. Used by the CLI tests
and the unit tests so that "the writer and the schema agree" is checked
against real output, not assumed.
"""
import json
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:  # pragma: no cover - depends on the machine
    print("validate_report.py: the python3 'jsonschema' package is not installed "
          "(pip install jsonschema, or apt install python3-jsonschema)", file=sys.stderr)
    sys.exit(2)


def jq_path(path):
    """['benchmarks', 0, 'value'] -> .benchmarks[0].value"""
    out = ""
    for p in path:
        out += "[%d]" % p if isinstance(p, int) else "." + str(p)
    return out or "."


def reject_constant(name):
    # NaN and Infinity are not JSON: a writer that emits them is wrong even
    # though Python's json module would accept them.
    raise ValueError("non-JSON number %s" % name)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_constant=reject_constant)


def close_objects(node):
    """--strict: every object schema that lists properties allows no others."""
    if isinstance(node, dict):
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for v in node.values():
            close_objects(v)
    elif isinstance(node, list):
        for v in node:
            close_objects(v)


def main(argv):
    strict = len(argv) > 1 and argv[1] == "--strict"
    if strict:
        argv = argv[:1] + argv[2:]
    if len(argv) < 3:
        print("usage: validate_report.py [--strict] SCHEMA REPORT...", file=sys.stderr)
        return 2
    try:
        schema = load(argv[1])
        Draft202012Validator.check_schema(schema)
        if strict:
            close_objects(schema)
    except Exception as e:  # noqa: BLE001 - any failure here is a usage problem
        print("%s: cannot use as a schema: %s" % (argv[1], e), file=sys.stderr)
        return 2
    validator = Draft202012Validator(schema)
    bad = 0
    for report in argv[2:]:
        try:
            doc = load(report)
        except (OSError, ValueError) as e:
            print("%s: cannot read: %s" % (report, e))
            bad += 1
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
        for e in errors:
            print("%s: %s: %s" % (report, jq_path(e.absolute_path), e.message))
        if errors:
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
