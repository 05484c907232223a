#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two RTX 4090 on PCIe Gen4 x16 without peer access: the simulator stages the
# all-reduce through host memory (two crossings, cost.c), ~13 GB/s. A DDP step of
# 20 ms compute and 24 MiB of gradients (an all-reduce of ~1.9 ms, ~10 % of the
# compute) measures ~1.8-1.9x on two GPUs, and the report places it against the
# model's no-overlap..perfect-overlap range, naming the PCIe link without P2P.
. "$(dirname "$0")/lib_scaling.sh" 2x-rtx4090-pcie.json

healthy_ddp 4 2
expect_phase "$REPORT" 2 '1.75 <= p["speedup_median"] <= 1.95' "two GPUs without P2P: 1.75-1.95x"
expect_phase "$REPORT" 2 'p["predicted"]["no_overlap"] <= p["predicted"]["perfect_overlap"] <= 2' \
	"the model's range is ordered and at most 2x"
expect_phase "$REPORT" 2 '"P2P" in (p["predicted"].get("link_label") or "") + p["explanation"]' \
	"the link is named as PCIe without P2P"
echo "measured: $(phase_summary "$REPORT" 2)"
finish
