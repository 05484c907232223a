#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Eight H100 on NVLink4: every worker count up to 8 is measured, the 8-GPU
# speedup is reported with the model's range and placed, with its reason.
. "$(dirname "$0")/lib_scaling.sh" 8x-h100-nvlink.json

healthy_ddp 3 8
expect_phase "$REPORT" 8 '6.5 <= p["speedup_median"] <= 8.05' "eight GPUs: between 6.5x and 8x"
echo "measured: $(phase_summary "$REPORT" 8)"
finish
