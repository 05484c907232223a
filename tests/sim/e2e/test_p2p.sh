#!/usr/bin/env bash
# p2p on the simulated machine: bandwidth and latency matrices, data verified,
# every bandwidth cell as the pair's links predict (one-way at the NVLink or
# PCIe peer rate, two-way at twice it, staged through the host at half the
# slower PCIe link); on one GPU it says why it cannot run.
. "$(dirname "$0")/lib_sim.sh"

sim_run p2p p2p --bytes 1M --samples 3 --loops 2
if [ "$GPUS" -lt 2 ]; then
	# one GPU: only its local copy and latency, still verified
	expect_rc_in "0 1" "p2p on one GPU"
	expect_report "$REPORT"
	expect_check "$REPORT" p2p data_verified passed
	finish
fi
expect_rc_in "0 1" "p2p on $MACHINE_NAME"
expect_report "$REPORT"
expect_bench_status "$REPORT" p2p "passed failed"
expect_check "$REPORT" p2p data_verified passed
expect_metric "$REPORT" p2p "gbps"
expect_metric "$REPORT" p2p "latency"
# the simulated links show: NVLink pairs are faster than the PCIe-only ones, and a
# pair whose peer access is enabled one way only is slow (staged) the other way
expect_predicted p2p "$REPORT"
finish
