#!/usr/bin/env bash
# Every command on a "lazy": true copy of the machine: queued GPU work runs
# only when the host synchronises (docs/simulation.md), so a result read with
# no synchronisation since its work was queued reads stale bytes and fails its
# verification or its prediction. Each command runs with small options and
# ends with the verdict and exit code a healthy machine gives; where the other
# e2e tests predict values from the machine file (expect.py), so does this.
# Kept short: at most the first two GPUs, 512 MiB each, small sizes.
. "$(dirname "$0")/lib_sim.sh"

python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = d.get("name", "machine") + "-lazy"
d["lazy"] = True
d["gpus"] = d["gpus"][:2]
n = len(d["gpus"])
for g in d["gpus"]:
    g["memory"] = "512M"
    if g.get("numa_node", 0) >= d.get("numa_nodes", 1):
        g["numa_node"] = 0
links = d.get("links", {})
if isinstance(links.get("nvlink"), list):
    links["nvlink"] = [p for p in links["nvlink"] if p[0] < n and p[1] < n]
if isinstance(links.get("p2p"), list):
    links["p2p"] = [p for p in links["p2p"] if p[0] < n and p[1] < n]
d["faults"] = []
json.dump(d, open(sys.argv[2], "w"))' "$MACHINE" "$TMP/lazy.json"
export GPUBENCH_SIM_MACHINE=$TMP/lazy.json
GPUS=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["gpus"]))' "$TMP/lazy.json")
MACHINE_NAME="$MACHINE_NAME (lazy)"
expect_json "$TMP/lazy.json" 'd["lazy"] is True' "the machine copy is lazy"

# expect_verdict STATUS: the report's verdict is STATUS and its exit code the process's
expect_verdict() {
	expect_json "$REPORT" "d['verdict']['status'] == '$1' and d['verdict']['exit_code'] == $rc" \
		"verdict $1 with exit code $rc (got $(json_get "$REPORT" '["verdict"]' 2>/dev/null | cut -c1-200))"
}

# info: every GPU of the copy, with the memory the copy gives it
sim_run info info
expect_rc 0 "info"
expect_report "$REPORT"
expect_verdict passed
expect_json "$REPORT" "len(d['devices']) == $GPUS" "one device entry per simulated GPU"
expect_json "$REPORT" "all(x['memory_bytes'] == 512 << 20 for x in d['devices'])" \
	"each GPU has the copy's 512 MiB"

# gemm: verified at a small size, then one precision at the shape whose TFLOP/s
# the machine file predicts (expect.py gemm), on GPU 0
sim_run gemm gemm -d 0 --precision bf16 --size 128 --warmup 0s --iters 2 --samples 5
expect_rc 0 "gemm bf16 128^3"
expect_report "$REPORT"
expect_verdict passed
expect_check "$REPORT" gemm verify_bf16 passed
read -r gemm_m gemm_n < <(python3 "$SIM_E2E/expect.py" gemm-shape "$TMP/lazy.json")
sim_run gemm_peak gemm -d 0 --precision bf16 --m "$gemm_m" --n "$gemm_n" --k 1024 \
	--warmup 0s --iters 2 --samples 5 --no-verify
expect_rc 0 "gemm bf16 ${gemm_m}x${gemm_n}x1024"
expect_report "$REPORT"
expect_verdict passed
expect_predicted gemm "$REPORT"

# bandwidth: the pinned copies and the device's own, each predicted at its largest size
sim_run bandwidth bandwidth -d 0 --tests h2d,d2h,bidir,d2d --memory pinned --method ce \
	--min-size 64K --max-size 1M --samples 3 --loops 2
expect_rc 0 "bandwidth"
expect_report "$REPORT"
expect_verdict passed
expect_check "$REPORT" bandwidth data_verified passed
expect_predicted bandwidth "$REPORT"

# p2p: every cell of the matrices from the pair's links (one GPU: its local copy,
# and a warning that an NVLink GPU seen alone has none of its links up)
sim_run p2p p2p --bytes 1M --samples 3 --loops 2
expect_rc 0 "p2p"
expect_report "$REPORT"
if [ "$GPUS" -lt 2 ]; then
	expect_verdict warning
	expect_check "$REPORT" p2p nvlink_links_up warning
else
	expect_verdict passed
fi
expect_check "$REPORT" p2p data_verified passed
[ "$GPUS" -lt 2 ] || expect_predicted p2p "$REPORT"

# nccl: all-reduce from 1 KiB to 1 MiB, every row's time from the ring model
sim_run nccl nccl --op allreduce -b 1K -e 1M -f 8 --iters 2 --samples 2 -w 1 --timeout 60s
expect_rc 0 "nccl"
expect_report "$REPORT"
expect_verdict passed
expect_bench_status "$REPORT" nccl "passed"
expect_json "$REPORT" "all(m['value'] == 0 for b in d['benchmarks'] for m in b['metrics'] if 'wrong' in m['name'])" \
	"no wrong element in any collective"
expect_predicted nccl "$REPORT"

# stress: the injected bit flip is caught, the healthy GPUs pass (at a
# thousandth of their speed: the checks need batches, not speed)
GBSIM_SPEED_SCALE=0.001 sim_run stress stress --duration 2s --size 256 --inject-fault \
	--progress none --interval 500ms
expect_rc 0 "stress --inject-fault"
expect_report "$REPORT"
expect_verdict passed
expect_check "$REPORT" stress fault_injection passed

# scaling: a DDP step on 1 and 2 GPUs, the all-reduces and the speedup by the ring model
sim_run scaling scaling --workload ddp --steps 3 --warmup-steps 1 --step-ms 5 \
	--grad-bytes 4M --bucket 4M --gemm-size 256
expect_rc 0 "scaling"
expect_report "$REPORT"
expect_verdict passed
expect_json "$REPORT" \
	"[p['workers'] for b in d['benchmarks'] if b['name'] == 'scaling' for p in b['extra']['phases']] == list(range(1, $GPUS + 1))" \
	"a phase on each count of GPUs, 1 to $GPUS"
[ "$GPUS" -lt 2 ] || expect_predicted scaling "$REPORT"

# theory: needs no GPU; the spec-sheet BF16 peak of the machine's model, as the
# simulator's own catalog has it (within 5 %: the two catalogs are written apart)
model=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gpus"][0]["model"])' "$TMP/lazy.json")
sim_run theory theory --gpu "$model"
expect_rc 0 "theory --gpu $model"
checks=$((checks + 1))
if ! python3 - "$SIM_E2E" "$TMP/lazy.json" "$out" <<'EOF'; then
import re, sys
sys.path.insert(0, sys.argv[1])
import expect
want = expect.Machine(sys.argv[2]).gpus[0]["model"]["peak_flops"]["bf16"] / 1e12
m = re.search(r"(?im)^\s*bf16\b[^\d]*([\d.]+)", sys.argv[3])
got = float(m.group(1)) if m else None
print("theory bf16 %s TFLOP/s, catalog %.1f" % (got, want))
sys.exit(0 if got and abs(got - want) <= 0.05 * want else 1)
EOF
	fail "theory's BF16 peak for $model is not the catalog's"
fi

# run: one step of the suite, the others skipped; the verdict is the step's
sim_run run run --only nccl
expect_rc 0 "run --only nccl"
expect_report "$REPORT"
expect_verdict passed
expect_bench_status "$REPORT" nccl "passed"
expect_bench_status "$REPORT" gemm "skipped"
finish
