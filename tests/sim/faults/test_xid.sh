#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xid on GPU 1 (NVML delivers Xid 79, fallen off the bus, once the load runs):
# stress's xid check fails GPU 1 with the Xid named (exit 1); GPU 0 saw none.
. "$(dirname "$0")/lib_faults.sh"

fault_stress 5s
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" stress xid failed 1 '^hardware XID 79 during the run'
expect_finding "$REPORT" stress xid passed 0 'no XID event'
expect_action "$REPORT" stress xid 1 reboot
expect_action "$REPORT" stress xid 0 null
expect_json "$REPORT" "[c['xids'] for b in d['benchmarks'] for c in b['checks'] if c['name'] == 'xid' and c['device'] == 1] == [[79]]" \
	"GPU 1's xid check carries the Xid as a number"
expect_json "$REPORT" "not any('xids' in c for b in d['benchmarks'] for c in b['checks'] if c['device'] == 0)" \
	"GPU 0's checks carry no Xid"
expect_out 'check failed xid \(GPU [0-9]+\): hardware XID 79 during the run.* → action: reboot the node' "the text report ends the Xid line with its action"
expect_json "$REPORT" "any(w.startswith('stress/xid (device 1)') for w in d['verdict']['failed'])" \
	"the verdict names GPU 1's Xid"
expect_json "$REPORT" "not any('(device 0)' in w for w in d['verdict']['failed'])" \
	"the verdict does not blame GPU 0"

# the same GPU failing again: merged with an earlier report of the node, the
# action goes one step up (reboot -> drain and inspect) and says why
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["run"]["started_at"] = "2026-01-01T00:00:00Z"
json.dump(d, open(sys.argv[2], "w"))' "$REPORT" "$TMP/earlier.json"
run "$BIN" report --merge "$REPORT" "$TMP/earlier.json" -o "$TMP/fleet.json"
expect_rc_in "1" "merge exit code"
uuid1=$(json_get "$REPORT" '["devices"][1]["uuid"]')
xid1="[c for b in d['benchmarks'] if b['name'] == 'stress' for c in b['checks'] if c['name'] == 'xid' and c['device'] == 1][0]['action']"
expect_json "$TMP/fleet.json" "${xid1}['do'] == 'drain_inspect' and ${xid1}['escalated_from'] == 'reboot'" \
	"GPU 1's Xid action went up from reboot to drain and inspect"
expect_json "$TMP/fleet.json" "[c['xids'] for b in d['benchmarks'] if b['name'] == 'stress' for c in b['checks'] if c['name'] == 'xid' and c['device'] == 1] == [[79]]" \
	"the merged fleet report keeps GPU 1's Xid number"
expect_json "$TMP/fleet.json" "${xid1}['because'] == '$uuid1 failed xid also in 2026-01-01T00:00:00Z'" \
	"the escalation names GPU 1's UUID and the earlier report"
expect_json "$TMP/fleet.json" "not any((c.get('action') or {}).get('escalated_from') for b in d['benchmarks'] for c in b['checks'] if c.get('device') == 0)" \
	"nothing escalated on GPU 0, which did not fail"
run "$BIN" report "$TMP/fleet.json"
expect_out "xid \\(GPU [0-9]+[^)]*\\): (vm: )?hardware XID 79 .* → action: drain the node and inspect \\(up from reboot the node: $uuid1 failed xid also in 2026-01-01T00:00:00Z\\)" \
	"the text report says why the action went up"

# compare A -> B: B's findings with what to do, one step up where A saw the GPU fail
run "$BIN" compare "$TMP/earlier.json" "$REPORT"
expect_out "^  stress/xid \\(GPU 1\\): hardware XID 79 during the run → action: drain the node and inspect \\(up from reboot the node: $uuid1 failed xid also in 2026-01-01T00:00:00Z\\)" \
	"compare says what to do about B's Xid, escalated by A's"
run "$BIN" compare "$REPORT" "$REPORT"
expect_out "^  stress/xid \\(GPU 1\\): hardware XID 79 during the run → action: reboot the node$" \
	"the same report twice is no recurrence"
finish
