#!/usr/bin/env bash
# Ctrl-C during `gpubench stress` (issue 7: "Ctrl-C stops all workers, and the
# report holds everything measured so far with status interrupted"): start a
# 10-minute run, wait until the first JSON progress line shows throughput
# (the GPUs are loaded and results verified), send SIGINT, and check exit 130,
# a schema-valid report with run and benchmark status "interrupted", and the
# GEMMs, checks and telemetry measured before the signal.
#
# test_signals.sh interrupts any long command after a fixed 3 s, which for
# stress may still be the CPU checksum references; this waits for the load.
# Exits 77 (skipped, never passed) without a GPU, and fails instead with
# GPUBENCH_REQUIRE_GPU=1, as the C GPU tests do.
#
# shellcheck source=tests/cli/lib.sh disable=SC1091,SC2154 # rc, err come from lib.sh's run
. "$(dirname "$0")/../cli/lib.sh"

if ! have_gpu; then
	if [ "${GPUBENCH_REQUIRE_GPU:-0}" = 1 ]; then
		echo "no usable GPU, and GPUBENCH_REQUIRE_GPU=1: failed" >&2
		exit 1
	fi
	echo "no usable GPU: skipped"
	exit 77
fi

report="$TMP/stress.json"
"$BIN" stress --duration 10m --size 2048 --mem 30% --interval 500ms --progress jsonl \
	-d 0 -o "$report" >"$TMP/out" 2>"$TMP/err" &
pid=$!

# up to 120 s for the first interval with throughput (a number, not null)
waited=0
until grep -q '"tflops":[0-9]' "$TMP/err" 2>/dev/null; do
	if ! kill -0 "$pid" 2>/dev/null || [ "$waited" -ge 1200 ]; then
		break
	fi
	sleep 0.1
	waited=$((waited + 1))
done
checks=$((checks + 1))
if ! kill -0 "$pid" 2>/dev/null; then
	wait "$pid"
	fail "stress ended before SIGINT (exit $?): $(cat "$TMP/err")"
	finish
fi
grep -q '"tflops":[0-9]' "$TMP/err" || fail "no throughput in 120 s: $(tail -3 "$TMP/err")"
sleep 2
kill -INT "$pid"
await_exit "$pid" 60 "stress after SIGINT" || finish
# shellcheck disable=SC2034 # read by lib.sh's expect_rc
err=$(cat "$TMP/err")
echo "stopped $waited_s s after SIGINT, exit $rc"
expect_rc 130 "stress after SIGINT"
expect_interrupted "$report" "stress after SIGINT" || finish
# the report's numbers, as one line of "name=value" pairs
facts=$(python3 - "$report" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
m = {x["name"]: x["value"] for x in b["metrics"] if x.get("device") == 0}
c = {x["name"]: x["status"] for x in b["checks"] if x.get("device") == 0}
print("run=%s bench=%s gemms=%s could_run=%s repeat=%s abft=%s telemetry=%d forensics=%d" % (
    d["run"]["status"], b["status"], m.get("gemms"), c.get("could_run"), c.get("repeat"),
    c.get("abft"), len(d.get("telemetry") or []), len((b.get("extra") or {}).get("forensics") or [])))
EOF
)
echo "$facts"
for want in run=interrupted bench=interrupted could_run=passed repeat=passed abft=passed \
	forensics=0; do
	checks=$((checks + 1))
	case " $facts " in
	*" $want "*) ;;
	*) fail "report: expected $want in: $facts" ;;
	esac
done
checks=$((checks + 1))
case "$facts" in
*gemms=None* | *gemms=0\ * | *gemms=0.0\ *) fail "no GEMM in the interrupted report: $facts" ;;
esac

finish
