#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pcie_degraded on GPU 1 (Gen4 x8 of x16): bandwidth reads the link under load
# and fails GPU 1 with both values (exit 1); GPU 0 at x16 passes. `info`, run
# first by users, warns of GPU 1's narrow link already at idle (exit 0: a
# warning), and says nothing of GPU 0's.
. "$(dirname "$0")/lib_faults.sh"

# the link is read only under pinned copies of 512 MiB a sample (hence 2G a GPU)
sim_run bandwidth bandwidth --tests h2d --memory pinned --min-size 512M --max-size 512M \
	--samples 3 --loops 1
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" bandwidth pcie_link_under_load failed 1 'Gen4 x8 under load, below its maximum Gen4 x16'
expect_finding "$REPORT" bandwidth pcie_link_under_load passed 0 'Gen4 x16 under load, its maximum'
expect_action "$REPORT" bandwidth pcie_link_under_load 1 drain_inspect
expect_action "$REPORT" bandwidth pcie_link_under_load 0 null
expect_json "$REPORT" "any(m['name'] == 'pcie_width_under_load' and m.get('device') == 1 and m['value'] == 8 for b in d['benchmarks'] for m in b['metrics'])" \
	"GPU 1's width under load is 8 lanes"
expect_json "$REPORT" "any(w.startswith('bandwidth/pcie_link_under_load (device 1)') for w in d['verdict']['failed'])" \
	"the verdict names GPU 1's link"

sim_run info info
expect_report "$REPORT"
expect_verdict "$REPORT" warning 0
expect_finding "$REPORT" info pcie_link warning 1 "^GPU 1's PCIe link trained at Gen4 x8, card and slot allow Gen4 x16"
expect_action "$REPORT" info pcie_link 1 drain_inspect
expect_json "$REPORT" "not any(c['name'] == 'pcie_link' and c.get('device') == 0 for b in d['benchmarks'] for c in b.get('checks', []))" \
	"info says nothing of GPU 0's full-width link"
expect_json "$REPORT" "any(w.startswith('info/pcie_link (device 1)') for w in d['verdict']['warnings'])" \
	"info's verdict warns of GPU 1's link"
finish
