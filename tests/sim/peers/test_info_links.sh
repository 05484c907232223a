#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What info says about links, checks that do not apply, and check lines that
# name their GPU (issue 26):
#   - four H100 on NVSwitch whose GPU 3 has no NVLink up: info warns on GPU 3
#     (nvlink_peers; verdict warning, exit 0: info reads link state, p2p and
#     bandwidth fail it by measurement; docs/thresholds.md); before, "passed";
#     the same machine without the fault passes with no such check;
#   - an L40S trained at Gen3 x8: the figure is Gen3 x8's 7.9 GB/s (it said
#     "15.8 of 31.5");
#   - stress on RTX 4090s (ECC off): the ECC and memory-repair rules are
#     skipped, "ECC is off on GPU N" (it said "passed, 0 new uncorrectable
#     ECC errors"), and their counts are null; on L40S (ECC on) ecc_dbe passes;
#   - text check lines name their GPU, or say machine-wide.
# shellcheck disable=SC2154 # rc, out, err, checks come from lib.sh
. "$(dirname "$0")/lib_peers.sh"

h100='{ "model": "h100-sxm", "memory": "1G", "l2": "4M" }'
hgx() { # hgx NAME FAULTS
	use_machine "$1" '{ "name": "'"$1"'", "seed": 1, "noise": 0.01, "gpus": [ '"$h100, $h100, $h100, $h100"' ], "links": { "nvlink_gen": 4, "nvlink": "all", "p2p": "all" }, "faults": '"$2"' }'
}

# ---- NVLinks down on GPU 3 ----
hgx hgx-gpu3-nvlink-down '[ { "kind": "nvlink_down", "gpu": 3 } ]'
sim_run info info
expect_rc 0 "info on four H100 with GPU 3's NVLinks down (a warning)"
expect_report "$REPORT"
expect_json "$REPORT" 'd["verdict"]["status"] == "warning"' "verdict warning, not passed"
expect_checks "$REPORT" info nvlink_peers "warning:3"
expect_json "$REPORT" '[ (c["observed"], c["threshold"]) for b in d["benchmarks"] for c in b["checks"] if c["name"] == "nvlink_peers"] == [(0, 18)]' \
	"0 links up against the peers' 18"
expect_text '^    check warning nvlink_peers \(GPU 3\): GPU 3 has 0 NVLink links up while GPU 0 of the same model has 18: its NVLinks are down' \
	"the warning names GPU 3 and a peer"
# p2p fails it, naming the GPU (not only the model)
sim_run p2p p2p --latency-only --samples 3
expect_rc 1 "p2p on four H100 with GPU 3's NVLinks down"
expect_checks "$REPORT" p2p nvlink_links_up "failed:3 passed:0 passed:1 passed:2"
expect_text '^    check failed nvlink_links_up \(GPU 3\): GPU 3: NVLink link down: 0 of 18 links up' \
	"p2p's NVLink check names GPU 3"

hgx hgx-healthy '[]'
sim_run info_ok info
expect_rc 0 "info on four healthy H100"
expect_json "$REPORT" 'd["verdict"]["status"] == "passed"' "a healthy HGX passes info"
expect_checks "$REPORT" info nvlink_peers ""

# ---- a PCIe link trained at Gen3 x8 on a Gen4 x16 card ----
use_machine l40s-gen3x8 '{ "name": "2x-l40s-gen3x8", "seed": 1, "gpus": [ { "model": "l40s", "memory": "1G", "l2": "4M" }, { "model": "l40s", "memory": "1G", "l2": "4M", "pcie": { "gen": 3, "width": 8 } } ] }'
sim_run pcie info
expect_rc 0 "info on an L40S at Gen3 x8"
expect_checks "$REPORT" info pcie_link "warning:1"
expect_text '^    check warning pcie_link \(GPU 1\): .*trained at Gen3 x8, card and slot allow Gen4 x16: host transfers reach at most 7\.9 of 31\.5 GB/s per direction; 15\.8 at Gen4 x8 if it returns to Gen4 under load' \
	"Gen3 x8 is 7.9 GB/s"
# what the report gives as the current link's figure agrees
expect_json "$REPORT" 'abs(d["devices"][1]["peaks"]["pcie_gbps_per_direction_current"] - 7.877) < 0.01' \
	"devices[1].peaks.pcie_gbps_per_direction_current is Gen3 x8's"

# ---- ECC off: skipped with the reason ----
use_machine rtx4090 "$(cat "$HERE/../sim/machines/2x-rtx4090-pcie.json")"
GBSIM_SPEED_SCALE=0.001 sim_run stress stress --duration 4s --size 256 --mem 20% --progress none \
	--interval 500ms
expect_rc 0 "stress on two RTX 4090 (ECC off)"
expect_report "$REPORT"
for c in ecc_dbe ecc_sbe row_remap retired_pages; do
	expect_checks "$REPORT" stress "$c" "skipped:0 skipped:1"
done
expect_text '^    check skipped ecc_dbe \(GPU 1\): ECC is off on GPU 1: uncorrectable memory errors are not counted$' \
	"ecc_dbe says ECC is off"
expect_json "$REPORT" 'all(m["value"] is None for b in d["benchmarks"] for m in b["metrics"] if m["name"].startswith("ecc_"))' \
	"no ECC count where ECC is off"
use_machine l40s '{ "name": "2x-l40s", "seed": 1, "gpus": [ { "model": "l40s", "memory": "1G", "l2": "4M" }, { "model": "l40s", "memory": "1G", "l2": "4M" } ] }'
GBSIM_SPEED_SCALE=0.001 sim_run stress_ecc stress --duration 4s --size 256 --mem 20% --progress none \
	--interval 500ms
expect_checks "$REPORT" stress ecc_dbe "passed:0 passed:1"

# ---- every check line names its GPU ----
sim_run gemm gemm --precision bf16 --size 128 --warmup 0s --iters 2 --samples 5
expect_rc 0 "gemm on two L40S"
for g in 0 1; do
	expect_text "^    check passed verify_bf16 \\(GPU $g\\): " "verify_bf16 of GPU $g names it"
done
checks=$((checks + 1))
bad=$(printf '%s\n' "$out" | grep -E '^    check ' | grep -vE '^    check [a-z_]+ [A-Za-z0-9_]+ \((GPU [0-9]+|machine-wide)\): ' || true)
[ -z "$bad" ] || fail "check lines without their GPU: $bad"
finish
