#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpubench theory (issue 19, item 5): --format prints that format alone, and
# each one parses with a reader of its kind; conflicting or impossible options
# are exit 2 with one line rather than one silently winning.
. "$(dirname "$0")/lib.sh"

GPU=a100-sxm4-80gb

# format NAME READER: stdout of `theory --format NAME` is read by the python
# snippet READER (stdin: the output); exit 0, nothing on stderr, no table
format_parses() {
	local name=$1 reader=$2
	run "$BIN" theory --gpu "$GPU" --count 8 --compare h100-sxm --format "$name"
	expect_rc 0 "theory --format $name"
	checks=$((checks + 1))
	[ -z "$err" ] || fail "theory --format $name wrote to stderr: $err"
	checks=$((checks + 1))
	# the text table's first label: never in another format
	if printf '%s\n' "$out" | grep -qE '^(GPU|architecture) {4,}'; then
		fail "theory --format $name printed the text table too"
	fi
	checks=$((checks + 1))
	if ! printf '%s' "$out" | python3 -c "$reader" >"$TMP/reader" 2>&1; then
		fail "theory --format $name does not parse: $(head -c 400 "$TMP/reader")"
	fi
}

format_parses csv '
import csv, sys
rows = list(csv.reader(sys.stdin))
assert rows[0][:4] == ["benchmark", "metric", "device", "value"], rows[0]
assert all(len(r) == len(rows[0]) for r in rows), "ragged rows"
assert any(r[0] == "theory" for r in rows[1:]), "no theory row"
assert any(r[0] == "theory_compare" for r in rows[1:]), "no theory_compare row"
'

format_parses junit '
import sys, xml.dom.minidom
doc = xml.dom.minidom.parseString(sys.stdin.buffer.read())
assert doc.getElementsByTagName("testsuite") or doc.getElementsByTagName("testsuites")
'

format_parses html '
import sys
from html.parser import HTMLParser
text = sys.stdin.read()
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = set()
    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
p = P()
p.feed(text)
p.close()
assert {"html", "head", "body", "table"} <= p.tags, sorted(p.tags)
assert text.lstrip().lower().startswith("<!doctype html"), text[:40]
assert text.rstrip().endswith("</html>"), text[-40:]
'

format_parses markdown '
import sys
lines = sys.stdin.read().splitlines()
assert lines and lines[0].startswith("#"), lines[:1]
assert any(l.startswith("|") for l in lines), "no markdown table"
'

# the Prometheus text exposition format, line by line
format_parses prometheus '
import re, sys
name = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
meta = re.compile(r"^# (HELP|TYPE) " + name + " .*$")
sample = re.compile("^" + name + r"(\{[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\.)*\"(,[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\.)*\")*\})? [-+]?([0-9.]+([eE][-+]?[0-9]+)?|NaN|Inf)$")
lines = [l for l in sys.stdin.read().splitlines() if l]
assert lines, "empty"
bad = [l for l in lines if not (meta.match(l) or sample.match(l))]
assert not bad, bad[:3]
types = [l.split()[2] for l in lines if l.startswith("# TYPE ")]
assert len(types) == len(set(types)), "a metric family declared twice"
'

# text is still the default, and --format text the same table
run "$BIN" theory --gpu "$GPU"
expect_rc 0 "theory text"
expect_out '^GPU +a100-sxm4-80gb' "theory text: the table"
run "$BIN" theory --gpu "$GPU" --format json
expect_rc 0 "theory --format json"
checks=$((checks + 1))
printf '%s' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' ||
	fail "theory --format json is JSON alone"

# '-o -': the JSON report alone on stdout, the table on stderr
run "$BIN" theory --gpu "$GPU" -o -
expect_rc 0 "theory -o -"
checks=$((checks + 1))
printf '%s' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' ||
	fail "theory -o - puts more than the JSON report on stdout"
checks=$((checks + 1))
printf '%s\n' "$err" | grep -qE '^GPU +a100-sxm4-80gb' || fail "theory -o -: no table on stderr"

# conflicting or inapplicable options: exit 2, one line
run "$BIN" theory --list --gpu "$GPU"
expect_rc 2 "theory --list --gpu"
expect_one_error "'--list' prints the whole catalog; drop '--gpu'" "theory --list --gpu"
run "$BIN" theory --list --format csv
expect_rc 2 "theory --list --format csv"
expect_one_error "'--list' prints the catalog as text" "theory --list --format csv"
run "$BIN" theory --gpu "$GPU" --mfu 40%
expect_rc 2 "theory --mfu without --step-tflop"
expect_one_error "'--mfu' applies to '--step-tflop' only" "theory --mfu alone"
run "$BIN" theory --gpu "$GPU" --step-tflop 100 --mfu 40%
expect_rc 0 "theory --mfu with --step-tflop"
run "$BIN" theory --gpu "$GPU" --compare h100-sxm --compare b200
expect_rc 2 "theory --compare twice"
expect_one_error "option '--compare' given twice; give it once" "theory --compare twice"
run "$BIN" theory --gpu "$GPU" --gpu h100-sxm
expect_rc 2 "theory --gpu twice"
expect_one_error "option '--gpu' given twice" "theory --gpu twice"
run "$BIN" theory --gpu "$GPU" --count 2 --link nvlink5
expect_rc 2 "theory: a link the GPU cannot have"
expect_one_error "'a100-sxm4-80gb' has NVLink3, not 'nvlink5'" "theory --link nvlink5 on an A100"
run "$BIN" theory --gpu "$GPU" --count 2 --link pcie5
expect_rc 2 "theory: a PCIe generation above the GPU's"
expect_one_error "PCIe Gen4 GPU, it cannot run 'pcie5'" "theory --link pcie5 on an A100"
run "$BIN" theory --gpu "$GPU" --compare h100-sxm --count 2 --compare-link nvlink3
expect_rc 2 "theory: a compared link the second GPU cannot have"
expect_one_error "has NVLink4, not 'nvlink3'; drop '--compare-link'" "theory --compare-link"
# links it can have still work: its own NVLink, a slower slot
run "$BIN" theory --gpu "$GPU" --count 2 --link nvlink3
expect_rc 0 "theory --link nvlink3 on an A100"
run "$BIN" theory --gpu "$GPU" --count 2 --link pcie3
expect_rc 0 "theory --link pcie3 on an A100"
run "$BIN" nccl --inplace --outofplace
expect_rc 2 "nccl --inplace --outofplace"
expect_one_error "'--inplace' and '--outofplace' each time one placement only" \
	"nccl --inplace --outofplace"

# the range the help promises: --grad-bytes up to 1 PiB
run "$BIN" theory --help
checks=$((checks + 1))
printf '%s' "$out" | grep -qE -- '--grad-bytes.*1 PiB' || fail "theory help: --grad-bytes range"
run "$BIN" theory --gpu "$GPU" --count 8 --grad-bytes 1P
expect_rc 0 "theory --grad-bytes 1P"
expect_out '1 PiB' "theory --grad-bytes 1P: shown"
run "$BIN" theory --gpu "$GPU" --grad-bytes 2P
expect_rc 2 "theory --grad-bytes 2P"
expect_one_error "--grad-bytes must be between" "theory --grad-bytes beyond the range"

finish
