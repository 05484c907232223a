#!/usr/bin/env bash
# compare two simulated runs, then render a simulated report in every format;
# a simulated report is never compared with a measured one (exit 2).
. "$(dirname "$0")/lib_sim.sh"

sim_run a bandwidth --tests d2d,stream --min-size 64K --max-size 1M --samples 3 --loops 2
expect_rc_in "0 1" "first bandwidth run"
A=$REPORT
sim_run b bandwidth --tests d2d,stream --min-size 64K --max-size 1M --samples 3 --loops 2
expect_rc_in "0 1" "second bandwidth run"
B=$REPORT

run "$BIN" compare "$A" "$B" -o "$TMP/cmp.json"
expect_rc_in "0 1" "compare of two simulated runs"
checks=$((checks + 1))
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/cmp.json" || fail "compare wrote no JSON"

# measured against simulated: refused, one line. The saved fixtures are
# simulated too (tests/data/make_compare_data.py), so base.json is made a
# measured report here, with the flag off
python3 - "$GPUBENCH_TEST_DATA/base.json" "$TMP/measured.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["simulated"] = False
del d["host"]["simulated_machine"]
json.dump(d, open(sys.argv[2], "w"))
PY
run "$BIN" compare "$TMP/measured.json" "$A"
expect_rc 2 "simulated against measured is refused"
expect_one_error "^gpubench: error: cannot compare a simulated report with a measured one: " \
	"one line naming why"

for fmt in text json markdown csv junit prometheus html; do
	run "$BIN" report "$A" --format "$fmt"
	expect_rc 0 "report --format $fmt"
	checks=$((checks + 1))
	[ -n "$out" ] || fail "report --format $fmt printed nothing"
done
run "$BIN" report "$A" --format json
checks=$((checks + 1))
printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["host"]["simulated"] is True' ||
	fail "report --format json lost host.simulated"
finish
