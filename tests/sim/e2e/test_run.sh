#!/usr/bin/env bash
# run on the simulated machine: the quick profile, every step, one report.
# Each GPU of the machine file is given 512 MiB here, so run fits its sizes
# (cmd/suite_math.h: 1024^3 GEMMs, 32 MiB copies, 64 MiB between GPUs) and
# the suite takes a minute or two of CPU; a healthy machine passes every step
# (or warns). Then --only: the steps left out are in the report as skipped.
. "$(dirname "$0")/lib_sim.sh"

# The whole suite is the sim label's longest test, and nearly all of its time
# is the CPU copying and multiplying at the sizes memory allows: half the
# machine file's memory halves its copies, through the machine file (the
# product has no simulator-only option), and tests run's fitting at a second size.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = d.get("name", "machine") + "-512m"
for g in d["gpus"]:
    g["memory"] = "512M"
json.dump(d, open(sys.argv[2], "w"))' "$MACHINE" "$TMP/machine-512m.json"
export GPUBENCH_SIM_MACHINE=$TMP/machine-512m.json

# On the 8-GPU machine every step at the suite's sizes costs minutes of CPU
# (bandwidth alone measures each GPU in turn): run uses its first and last
# GPU (-d, which this also tests); nccl, p2p and scaling on all eight have
# their own tests at small sizes.
devs=()
[ "$GPUS" -le 2 ] || devs=(-d "0,$((GPUS - 1))")
# The suite's "bf16 at least 70% of peak" is for its 8192^3 GEMM. At the 1024^3
# that 512 MiB allows, the simulated cuBLASLt's best pick has 64 output tiles,
# fewer than the GPU has SMs, so about half of them idle (tile quantisation,
# as on a real GPU at this size): a simulated H100 reaches 31% of its peak,
# an RTX 4090 39%, an A100 43%. The built-in limits follow the size that ran
# (docs/thresholds.md), so a healthy machine passes without loosening them
# (issue 26: this test used to lower the BF16 limit to 25%). --thresholds is
# still exercised, with a rule that does not touch the GEMMs.
printf '%s\n' '{"thresholds": [{"metric": "temp_c_max*", "max_value": 95}]}' \
	>"$TMP/thresholds.json"
# The profile's 30 s of stress would be 30 s of a CPU's time here (its
# checks are kernels the CPU runs): 15 s, through run's own option, which
# this also tests (stress's params must say 15). Not less: a stress batch
# and its checks are seconds of CPU, and on a loaded 2-core host 5 s once
# ended with no batch verified (could not run).
sim_run run run --profile quick --stress-duration 3s --thresholds "$TMP/thresholds.json" \
	"${devs[@]}"
expect_rc_in "0" "run --profile quick on $MACHINE_NAME"
expect_report "$REPORT"
expect_json "$REPORT" 'd["verdict"]["status"] in ("passed", "warning")' \
	"verdict passed or warning (got $(json_get "$REPORT" '["verdict"]' 2>/dev/null | cut -c1-300))"
expect_bench_status "$REPORT" gemm "passed warning"
expect_metric "$REPORT" gemm "^tflops_bf16$"
expect_metric "$REPORT" gemm "^tflops_fp32$"
expect_check "$REPORT" gemm verify_bf16 passed
# the BF16 GEMM's efficiency is judged at the size that ran or skipped saying
# why, never failed on a healthy GPU
expect_json "$REPORT" \
	'all(c["status"] == "passed" or (c["status"] == "skipped" and "not judged against" in c["message"]) for b in d["benchmarks"] if b["name"] == "gemm" for c in b["checks"] if c["name"].startswith("tflops_"))' \
	"gemm's TFLOPS checks passed or skipped for the size"
expect_bench_status "$REPORT" bandwidth "passed warning"
expect_metric "$REPORT" bandwidth "^h2d_ce_pinned_gbps$"
expect_bench_status "$REPORT" nccl "passed warning"
expect_bench_status "$REPORT" stress "passed warning"
expect_metric "$REPORT" stress "tflops"
expect_json "$REPORT" \
	'[b["params"]["duration_s"] for b in d["benchmarks"] if b["name"] == "stress"] == [3]' \
	"--stress-duration 3s reached the stress step"
expect_bench_status "$REPORT" scaling "passed warning"
# the sizes followed the GPUs' memory (512 MiB: 1024^3 GEMMs), and run says so
expect_json "$REPORT" \
	'all(b["params"]["m"] == 1024 for b in d["benchmarks"] if b["name"] in ("gemm", "stress"))' \
	"gemm and stress fitted to 512 MiB: 1024^3"
checks=$((checks + 1))
printf '%s' "$err" | grep -qE "sizes halved to fit, GEMMs of 1024\^3" ||
	fail "run does not say that it fitted its sizes: $(printf '%s' "$err" | head -3)"
if [ "$GPUS" -ge 2 ]; then
	expect_bench_status "$REPORT" p2p "passed warning"
	expect_metric "$REPORT" nccl "^allreduce_busbw_peak_gbps$"
	expect_metric "$REPORT" scaling "^speedup_n2$"
fi

# --only: one step measured, the others skipped and saying why
sim_run only run --only nccl
expect_rc_in "0" "run --only nccl"
expect_report "$REPORT"
expect_bench_status "$REPORT" nccl "passed warning"
for b in gemm bandwidth p2p stress scaling; do
	expect_bench_status "$REPORT" "$b" "skipped"
done
expect_json "$REPORT" \
	'all(b.get("reason") == "not in --only" for b in d["benchmarks"] if b["name"] != "nccl")' \
	"each step left out says it was not in --only"
finish
