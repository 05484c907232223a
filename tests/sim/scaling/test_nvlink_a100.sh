#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two A100 on NVLink3 x12 (~240 GB/s a direction in the simulator's ring): the
# same DDP step as test_pcie_no_p2p.sh scales closer to 2x than over PCIe without
# P2P, and the report places it in the model's range.
. "$(dirname "$0")/lib_scaling.sh" 2x-a100-nvlink.json

sim_run scaling scaling --workload ddp --steps 4 --warmup-steps 1 --step-ms 20 \
	--grad-bytes 24M --bucket 24M --gemm-size 256
expect_rc_in "0 1" "scaling on $MACHINE_NAME"
scaling_ok "$REPORT" 2
expect_phase "$REPORT" 2 '1.95 <= p["speedup_median"] <= 2.02' "NVLink: within 2.5 % of 2x"
expect_phase "$REPORT" 2 'p["place"] == "inside"' "the measurement lies in the model's range"
echo "measured: $(phase_summary "$REPORT" 2)"
finish
