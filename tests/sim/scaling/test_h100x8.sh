#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Eight H100 on NVLink4: every worker count up to 8 is measured, the 8-GPU
# speedup is reported with the model's range and placed, with its reason.
. "$(dirname "$0")/lib_scaling.sh" 8x-h100-nvlink.json

sim_run scaling scaling --workload ddp --steps 3 --warmup-steps 1 --step-ms 20 \
	--grad-bytes 24M --bucket 24M --gemm-size 256
expect_rc_in "0 1" "scaling on $MACHINE_NAME"
scaling_ok "$REPORT" 8
expect_phase "$REPORT" 8 '6.5 <= p["speedup_median"] <= 8.05' "eight GPUs: between 6.5x and 8x"
expect_phase "$REPORT" 8 'p["place"] == "inside"' "the measurement lies in the model's range"
echo "measured: $(phase_summary "$REPORT" 8)"
finish
