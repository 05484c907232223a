# lib_gate.sh - helpers for the CI gate's tests on the simulated GPU (issue 26):
# one small set of commands run on a machine file, and `compare` of two such
# sets. Source it from tests/sim/gate/test_*.sh.
# shellcheck source=../../cli/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../../cli/lib.sh"

MACHINES=${GBSIM_MACHINES:?GBSIM_MACHINES must point at tests/sim/machines}
export NO_COLOR=1
export GBSIM_LEAKS_FATAL=1
GATE_CMDS="gemm bandwidth p2p nccl scaling stress"

# variant SRC DST PYTHON: a copy of machine file SRC as DST, changed by PYTHON (on d)
variant() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))' "$1" "$2" "$3"
}

# gpus MACHINE: its GPU count
gpus() {
	python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["gpus"]))' "$1"
}

# gate_set MACHINE TAG: every command of the gate's set on MACHINE, small enough
# for a CI test, each report at $TMP/TAG-CMD.json (a command that cannot run on
# the machine, p2p on one GPU, still writes one)
gate_set() {
	local m=$1 tag=$2 rc
	(
		export GPUBENCH_SIM_MACHINE=$m
		"$BIN" gemm --precision fp32,bf16 --size 256 --warmup 0s --iters 2 --samples 5 -q \
			-o "$TMP/$tag-gemm.json"
		"$BIN" bandwidth --tests d2d,h2d --min-size 64K --max-size 4M --samples 3 --loops 2 -q \
			-o "$TMP/$tag-bandwidth.json"
		"$BIN" p2p --bytes 1M --samples 3 --loops 2 -q -o "$TMP/$tag-p2p.json"
		"$BIN" nccl --op allreduce -b 1K -e 4M -f 4 --iters 2 --samples 2 -w 1 -q \
			-o "$TMP/$tag-nccl.json"
		"$BIN" scaling --workload ddp --steps 3 --warmup-steps 1 --step-ms 5 --grad-bytes 16M \
			--bucket 4M --gemm-size 256 -q -o "$TMP/$tag-scaling.json"
		# a hundredth of the GPUs' speed: still thousands of GEMMs a GPU (so the count
		# and the rate are steady), not hundreds of thousands for the CPU to verify
		GBSIM_SPEED_SCALE=0.01 "$BIN" stress --duration 2s --size 256 --interval 200ms \
			--progress none -q -o "$TMP/$tag-stress.json"
	) 2>"$TMP/$tag.err"
	rc=$?
	for c in $GATE_CMDS; do
		checks=$((checks + 1))
		[ -s "$TMP/$tag-$c.json" ] || fail "$c on $(basename "$m"): no report; $(tail -3 "$TMP/$tag.err")"
	done
	return $rc
}

# gate_compare TAG_A TAG_B CMD: compare the two reports of CMD; sets $rc, $out, $err
gate_compare() {
	run "$BIN" compare "$TMP/$1-$3.json" "$TMP/$2-$3.json"
}

# expect_regression BENCH METRIC GPU: $out lists that regression ("on GPU 1", "on all GPUs")
expect_regression() {
	checks=$((checks + 1))
	grep -qE -- "^  $1 $2 on $3: " <<<"$out" ||
		fail "no regression of $1 $2 on $3 listed; regressions: $(sed -n '/^Regressions/,/^$/p' <<<"$out" | tr '\n' ';' | cut -c1-600)"
}
