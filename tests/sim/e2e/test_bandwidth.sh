#!/usr/bin/env bash
# bandwidth on the simulated machine: every test and method, data verified,
# and every curve where the machine file predicts it: host copies at the PCIe
# link's rate x the file's pcie efficiency, two-way at twice that (each byte
# counted once per direction), device copies and STREAM at the memory's.
. "$(dirname "$0")/lib_sim.sh"

sim_run bandwidth bandwidth --tests all --memory all --method all --min-size 4K \
	--max-size 4M --samples 3 --loops 2
expect_rc_in "0 1" "bandwidth on $MACHINE_NAME"
expect_report "$REPORT"
expect_json "$REPORT" 'd["host"]["cublaslt_version"] is None and d["host"]["nccl_version"] is None' \
	"bandwidth loads neither cuBLASLt nor NCCL, and says no version"
expect_bench_status "$REPORT" bandwidth "passed failed"
expect_check "$REPORT" bandwidth data_verified passed
for m in h2d_ce_pinned_gbps d2h_ce_pinned_gbps bidir_ce_pinned_gbps d2d_ce_gbps d2d_sm_gbps \
	stream_triad_gbps h2d_ce_pageable_gbps h2d_ce_managed_gbps; do
	expect_metric "$REPORT" bandwidth "^$m\$"
done
expect_predicted bandwidth "$REPORT"
finish
