#!/usr/bin/env bash
# gemm on the simulated machine: every precision the GPU supports through
# cuBLASLt, then gpubench's own kernels where they apply, all verified.
. "$(dirname "$0")/lib_sim.sh"

# every GPU's GEMMs are computed on the CPU: on the 8-GPU machine, two of them (the
# first and the last, so the device list is honoured) keep the test within its time
devs=all
[ "$GPUS" -le 2 ] || devs="0,$((GPUS - 1))"
sim_run gemm gemm -d "$devs" --size 128 --warmup 0s --iters 2 --samples 5
expect_rc_in "0 1" "gemm (cuBLASLt, every precision) on $MACHINE_NAME"
expect_report "$REPORT"
# the cuBLASLt gemm loaded is in the host section (compare names an upgrade by it)
expect_json "$REPORT" 'isinstance(d["host"]["cublaslt_version"], int) and d["host"]["cublaslt_version"] >= 130000' \
	"host.cublaslt_version recorded by gemm"
expect_bench_status "$REPORT" gemm "passed failed"
# each precision the catalog gives this GPU a peak for is measured
precs=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = set()
for b in d["benchmarks"]:
    for m in b.get("metrics", []):
        names.add(m["name"])
print(" ".join(sorted(names)))' "$REPORT")
for p in fp32 tf32 fp16 bf16; do
	checks=$((checks + 1))
	case " $precs " in
	*" tflops_${p} "*) ;;
	*) fail "no $p metric in gemm on $MACHINE_NAME: $precs" ;;
	esac
done
expect_json "$REPORT" "not any(c['status'] == 'failed' and 'verif' in c['name'] for b in d['benchmarks'] for c in b.get('checks', []))" \
	"no verification failed"

# TFLOP/s as the machine file predicts: peak x the file's gemm efficiency x
# speed, with the launch's 1.5 us, on a shape whose tiles fill whole waves of
# the GPU's SMs (m = 128 a, n = 256 b, a b = SMs) and whose arithmetic, not its
# memory traffic, bounds the time (k = 1024); the run above verified these
# precisions, so this one does not (half its CPU time)
read -r gemm_m gemm_n < <(python3 "$SIM_E2E/expect.py" gemm-shape "$MACHINE")
sim_run peak gemm -d "$devs" --precision fp32,tf32,fp16,bf16 --m "$gemm_m" --n "$gemm_n" \
	--k 1024 --warmup 0s --iters 4 --samples 5 --no-verify
expect_rc_in "0 1" "gemm ${gemm_m}x${gemm_n}x1024 on $MACHINE_NAME"
expect_report "$REPORT"
expect_predicted gemm "$REPORT"

# gpubench's own kernels: tiled and sgemm (fp32) everywhere, mma (fp16, bf16) from sm_80,
# wgmma only on sm_90
impls="tiled,sgemm,mma"
if grep -q '"h100' "$MACHINE"; then
	impls="$impls,wgmma"
fi
sim_run own gemm -d "$devs" --impl "$impls" --precision fp32,fp16,bf16 --size 128 --warmup 0s \
	--iters 2 --samples 5
expect_rc_in "0 1" "gemm --impl $impls on $MACHINE_NAME"
expect_report "$REPORT"
expect_json "$REPORT" "not any(c['status'] == 'failed' and 'verif' in c['name'] for b in d['benchmarks'] for c in b.get('checks', []))" \
	"own kernels verified"
finish
