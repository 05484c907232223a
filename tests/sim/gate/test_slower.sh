#!/usr/bin/env bash
# The CI gate fails a slower machine (issue 26), naming the metric and the GPU:
# on each two-GPU machine file, against a run of the file itself,
# - GPU 1 at 85% speed: its GEMMs, memory copies, stress throughput and GEMM count,
#   and scaling's speedup and efficiency (all GPUs) with GPU 1's compute;
# - slower links and memory: GPU 1's PCIe trained at x8 (host copies of GPU 1),
#   memory at 80% of its bandwidth where it was 90% (every GPU's device copies),
#   NVLink or PCIe peer copies and NCCL's ring at a lower share.
. "$(dirname "$0")/lib_gate.sh"

for m in "$MACHINES"/2x-*.json; do
	name=$(basename "$m" .json)
	variant "$m" "$TMP/base.json" "d['seed'] = 21"
	variant "$m" "$TMP/slow.json" "d['seed'] = 22; d['gpus'][1]['speed'] = 0.85"
	variant "$m" "$TMP/links.json" "
d['seed'] = 23
d['gpus'][1]['pcie'] = dict(d['gpus'][1].get('pcie', {}), width=8, max_width=16)
d['efficiency'] = {'memory': 0.8, 'nvlink': 0.7, 'pcie_p2p': 0.65, 'nccl': {'nvlink': 0.65, 'pcie': 0.7}}"
	gate_set "$TMP/base.json" base
	gate_set "$TMP/slow.json" slow
	gate_set "$TMP/links.json" links

	gate_compare base slow gemm
	expect_rc 1 "gemm, GPU 1 15% slower on $name"
	expect_regression gemm tflops_fp32 "GPU 1"
	expect_regression gemm tflops_bf16 "GPU 1"
	checks=$((checks + 1))
	grep -q "on GPU 0:" <<<"$(sed -n '/^Regressions/,/^$/p' <<<"$out")" && fail "gemm: GPU 0 listed as regressed"
	gate_compare base slow bandwidth
	expect_rc 1 "bandwidth, GPU 1 15% slower on $name"
	expect_regression bandwidth d2d_ce_gbps "GPU 1"
	gate_compare base slow stress
	expect_rc 1 "stress, GPU 1 15% slower on $name"
	expect_regression stress tflops "GPU 1"
	expect_regression stress gemms "GPU 1"
	gate_compare base slow scaling
	expect_rc 1 "scaling, GPU 1 15% slower on $name"
	expect_regression scaling speedup_n2 "all GPUs"
	expect_regression scaling efficiency_n2 "all GPUs"
	expect_regression scaling worker_compute_ms_n2 "GPU 1"
	# even when B may lack things: a regression is never excused by --allow-missing
	run "$BIN" compare "$TMP/base-scaling.json" "$TMP/slow-scaling.json" --allow-missing
	expect_rc 1 "scaling, GPU 1 15% slower, --allow-missing"

	gate_compare base links bandwidth
	expect_rc 1 "bandwidth, slower links and memory on $name"
	expect_regression bandwidth h2d_ce_pinned_gbps "GPU 1"
	expect_regression bandwidth d2d_ce_gbps "GPU 0"
	expect_regression bandwidth d2d_ce_gbps "GPU 1"
	gate_compare base links p2p
	expect_rc 1 "p2p, slower links on $name"
	expect_regression p2p "(uni|staged)_[a-z_]*to_gpu1_gbps" "GPU 0"
	gate_compare base links nccl
	expect_rc 1 "nccl, a slower ring on $name"
	expect_regression nccl allreduce_busbw_peak_gbps "all GPUs"
	rm -f "$TMP"/base-*.json "$TMP"/slow-*.json "$TMP"/links-*.json
done
finish
