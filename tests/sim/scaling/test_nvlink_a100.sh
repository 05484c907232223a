#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two A100 on NVLink3 x12 (~240 GB/s a direction in the simulator's ring): the
# same DDP step as test_pcie_no_p2p.sh scales closer to 2x than over PCIe without
# P2P, and the report places it in the model's range.
. "$(dirname "$0")/lib_scaling.sh" 2x-a100-nvlink.json

healthy_ddp 4 2
expect_phase "$REPORT" 2 '1.95 <= p["speedup_median"] <= 2.02' "NVLink: within 2.5 % of 2x"
echo "measured: $(phase_summary "$REPORT" 2)"
finish
