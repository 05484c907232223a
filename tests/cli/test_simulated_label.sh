#!/usr/bin/env bash
# Honest labels (issue 17): a report written under the simulated GPU says
# host.simulated true with the machine's label, its text summary starts with
# one line saying the numbers are simulated, a loaded report keeps the flag,
# and compare refuses a simulated report against a measured one (exit 2, one
# line). CSV, JUnit and Prometheus (of a report and of a compare) carry a
# simulated column, property and label, "false" on a measured report. The
# simulator is found the way gpubench-sim finds it: a gbsim_report_label
# symbol in the process (here from a small preloaded library, so the
# shipped binary itself is tested).
. "$(dirname "$0")/lib.sh"
DATA=${GPUBENCH_TEST_DATA:?GPUBENCH_TEST_DATA must point at tests/data}
cd "$TMP" || exit 1
label="2x-h100-test (tests/sim/machines/2x-h100-test.json)"
line="simulated GPU ($label): these numbers are not measurements"

# ---- the shipped binary alone is measured ----
run "$BIN" info -o measured-info.json
checks=$((checks + 1))
[ "$(json_get measured-info.json '["host"]["simulated"]')" = False ] ||
	fail "a report of the plain binary says simulated"
checks=$((checks + 1))
[ "$(json_get measured-info.json '["host"]["simulated_machine"]')" = None ] ||
	fail "a report of the plain binary names a simulated machine"
validate measured-info.json

# ---- under the simulator's symbol: simulated, labelled, first line ----
cc_bin=$(command -v cc || command -v gcc || command -v clang || true)
if [ -n "$cc_bin" ]; then
	printf 'const char *gbsim_report_label(void);\nconst char *gbsim_report_label(void) { return "%s"; }\n' \
		"$label" >label.c
	if "$cc_bin" -shared -fPIC -o label.so label.c; then
		# an ASan build must accept a library preloaded before its runtime
		export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
		LD_PRELOAD=$PWD/label.so "$BIN" info -o sim-info.json >sim.out 2>sim.err
		checks=$((checks + 1))
		[ "$(json_get sim-info.json '["host"]["simulated"]')" = True ] ||
			fail "host.simulated is not true under the simulator"
		checks=$((checks + 1))
		[ "$(json_get sim-info.json '["host"]["simulated_machine"]')" = "$label" ] ||
			fail "host.simulated_machine is not the simulator's label"
		validate sim-info.json
		# no GPU here: info exits 3 with its summary, which must still start with the line
		LD_PRELOAD=$PWD/label.so "$BIN" report sim-info.json >sim-text.txt
		checks=$((checks + 1))
		[ "$(head -n 1 sim-text.txt)" = "$line" ] ||
			fail "the text summary does not start with the simulated line: $(head -n 1 sim-text.txt)"
		cp sim-info.json simulated-run.json
	else
		fail "cannot build the stand-in label library with $cc_bin"
	fi
else
	echo "note: no C compiler: the dlsym detection is tested by the sim label only" >&2
fi

# ---- a saved simulated report: the flag survives loading, every summary says so ----
python3 - "$DATA/base.json" sim.json "$label" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["simulated"] = True
d["host"]["simulated_machine"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
PY
validate sim.json
run "$BIN" report sim.json
expect_rc 0 "report of a simulated report"
checks=$((checks + 1))
[ "$(printf '%s\n' "$out" | head -n 1)" = "$line" ] ||
	fail "report: the text does not start with the simulated line"
run "$BIN" report sim.json --format json
checks=$((checks + 1))
printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["host"]["simulated"] is True and d["host"]["simulated_machine"]' ||
	fail "a loaded simulated report lost its flag"
run "$BIN" report sim.json --format markdown
expect_out "^> \*\*simulated GPU \(2x-h100-test" "markdown says it is simulated"
run "$BIN" report sim.json --format html
expect_out "<p class=\"simulated\"><strong>simulated GPU" "html says it is simulated"

# ---- compare: simulated against measured is refused, both ways; two simulated compare ----
# tests/data's fixtures are simulated too (made from simulated templates):
# the measured side is base.json with the flag turned off
python3 - "$DATA/base.json" measured.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["simulated"] = False
del d["host"]["simulated_machine"]
json.dump(d, open(sys.argv[2], "w"))
PY
validate measured.json
run "$BIN" compare measured.json sim.json
expect_rc 2 "a measured baseline against a simulated run"
expect_one_error "^gpubench: error: cannot compare a simulated report with a measured one: 'sim.json' is simulated \(2x-h100-test .*\), 'measured.json' is measured$" \
	"one line naming the simulated one"
run "$BIN" compare sim.json measured.json
expect_rc 2 "a simulated baseline against a measured run"
expect_one_error "cannot compare a simulated report with a measured one" "the reverse, one line"
run "$BIN" compare sim.json sim.json
expect_rc 0 "two simulated reports compare"
checks=$((checks + 1))
[ "$(printf '%s\n' "$out" | head -n 1)" = "simulated GPU (A: $label; B: $label): these numbers are not measurements" ] ||
	fail "compare of two simulated reports does not start with the simulated line"
run "$BIN" compare sim.json sim.json --format json
checks=$((checks + 1))
printf '%s' "$out" | python3 -c 'import json,sys; assert json.load(sys.stdin)["simulated"] is True' ||
	fail "the compare document does not say simulated"
run "$BIN" report --merge sim.json measured.json
expect_rc 2 "a fleet merge of simulated and measured reports"
expect_one_error "cannot merge a simulated report with measured ones" "one line for the merge"

# ---- the machine formats: a CSV column, a JUnit property, a Prometheus label ----
# every CSV row ends with simulated, every test suite has the property (and the
# machine when simulated), every Prometheus sample has the label, last
machine_formats_say() { # FILE WANT(true|false) [compare B]
	local want=$2 cmd=(report "$1") what="report $1"
	[ -n "${3:-}" ] && cmd=(compare "$1" "$3") && what="compare $1 $3"
	run "$BIN" "${cmd[@]}" --format csv
	checks=$((checks + 1))
	printf '%s' "$out" | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
assert rows[0][-1] == "simulated", rows[0][-1]
assert len(rows) > 1 and all(r[-1] == sys.argv[1] for r in rows[1:]), set(r[-1] for r in rows[1:])
' "$want" || fail "$what --format csv: not a simulated=$want column on every row"
	run "$BIN" "${cmd[@]}" --format junit
	checks=$((checks + 1))
	printf '%s' "$out" | python3 -c '
import sys, xml.dom.minidom
want, label, compare = sys.argv[1], sys.argv[2], sys.argv[3] == "compare"
suites = xml.dom.minidom.parseString(sys.stdin.buffer.read()).getElementsByTagName("testsuite")
assert suites
keys = ("simulated_machine_a", "simulated_machine_b") if compare else ("simulated_machine",)
for s in suites:
    props = {p.getAttribute("name"): p.getAttribute("value")
             for p in s.getElementsByTagName("property")}
    assert props.get("simulated") == want, props.get("simulated")
    machines = [props.get(k) for k in keys]
    assert machines == [label if want == "true" else None] * len(keys), machines
' "$want" "$label" "${3:+compare}" ||
		fail "$what --format junit: not a simulated=$want property on every suite"
	run "$BIN" "${cmd[@]}" --format prometheus
	checks=$((checks + 1))
	printf '%s\n' "$out" | python3 -c '
import re, sys
samples = [l for l in sys.stdin.read().splitlines() if l and not l.startswith("#")]
last = re.compile(r"[{,]simulated=\"" + sys.argv[1] + r"\"\} \S+$")
bad = [l for l in samples if not last.search(l)]
assert samples and not bad, bad[:3]
' "$want" || fail "$what --format prometheus: not a simulated=\"$want\" label on every sample"
}
machine_formats_say sim.json true
machine_formats_say measured.json false
machine_formats_say sim.json true sim.json
machine_formats_say measured.json false measured.json
run "$BIN" report sim.json --format prometheus
checks=$((checks + 1))
[ "$(printf '%s\n' "$out" | head -n 1)" = "# $line" ] ||
	fail "report --format prometheus does not start with the simulated comment"

finish
