#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pcie_degraded on GPU 1 (Gen4 x8 of x16): bandwidth reads the link under load
# and fails GPU 1 with both values (exit 1); GPU 0 at x16 passes.
. "$(dirname "$0")/lib_faults.sh"

# the link is read only under pinned copies of 512 MiB a sample (hence 2G a GPU)
sim_run bandwidth bandwidth --tests h2d --memory pinned --min-size 512M --max-size 512M \
	--samples 3 --loops 1
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" bandwidth pcie_link_under_load failed 1 'Gen4 x8 under load, below its maximum Gen4 x16'
expect_finding "$REPORT" bandwidth pcie_link_under_load passed 0 'Gen4 x16 under load, its maximum'
expect_json "$REPORT" "any(m['name'] == 'pcie_width_under_load' and m.get('device') == 1 and m['value'] == 8 for b in d['benchmarks'] for m in b['metrics'])" \
	"GPU 1's width under load is 8 lanes"
expect_json "$REPORT" "any(w.startswith('bandwidth/pcie_link_under_load (device 1)') for w in d['verdict']['failed'])" \
	"the verdict names GPU 1's link"
finish
