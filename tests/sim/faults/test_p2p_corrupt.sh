#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# p2p_corrupt on GPU 1: peer copies to and from it deliver wrong bytes though
# P2P is advertised, so p2p reports "P2P advertised but data wrong" for the
# pair, in both directions (exit 1).
. "$(dirname "$0")/lib_faults.sh"

sim_run p2p p2p --bytes 1M --samples 3 --loops 2
expect_report "$REPORT"
expect_verdict "$REPORT" failed 1
expect_finding "$REPORT" p2p p2p_data failed 0 'P2P advertised but data wrong: GPU 0 -> GPU 1'
expect_finding "$REPORT" p2p p2p_data failed 1 'P2P advertised but data wrong: GPU 1 -> GPU 0'
expect_action "$REPORT" p2p p2p_data 1 drain_inspect
expect_json "$REPORT" "any(w.startswith('p2p/p2p_data (device 1)') for w in d['verdict']['failed'])" \
	"the verdict names the pair's GPU 1"
expect_json "$REPORT" "not any('GPU 0 -> GPU 0' in c.get('message', '') or 'GPU 1 -> GPU 1' in c.get('message', '') for b in d['benchmarks'] for c in b.get('checks', []))" \
	"no GPU blamed for its own copies"
finish
