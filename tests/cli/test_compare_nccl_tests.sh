#!/usr/bin/env bash
# test_compare_nccl_tests.sh - scripts/compare-nccl-tests.py without a GPU:
# stand-ins for nccl-tests' all_reduce_perf (its table, as 2.x prints it)
# and for gpubench (`info --json` and an `nccl` report) let the script run
# end to end. It must pair the sizes of both tools, judge only sizes from
# --judge-from, exit 0 within the tolerance and 1 below it, pass the sweep
# options through to both tools, and exit 3 when nccl-tests is missing.
. "$(dirname "$0")/lib.sh"

script="$HERE/../../scripts/compare-nccl-tests.py"
fake="$TMP/bin"
mkdir -p "$fake"

# all_reduce_perf: logs its arguments, prints 64 MiB and 128 MiB at 100 GB/s algbw
cat >"$fake/all_reduce_perf" <<EOF
#!/usr/bin/env bash
echo "\$@" >"$TMP/perf.args"
cat <<'TABLE'
# nThread 1 nGpus 1 minBytes 1048576 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     1048576        262144     float     sum      -1    20.00   52.43    0.00      0     0.20  5242.88    0.00      0
    67108864      16777216     float     sum      -1   671.09  100.00    0.00      0     0.20  335544.3   0.00      0
   134217728      33554432     float     sum      -1  1342.18  100.00    0.00    N/A     0.20  671088.6   0.00    N/A
# Avg bus bandwidth    : 0
TABLE
EOF

# gpubench: one GPU; its nccl report has algbw \$GB_ALGBW at the large sizes (out of place)
cat >"$fake/gpubench" <<EOF
#!/usr/bin/env bash
if [ "\$1" = info ]; then echo '{"devices": [{"index": 0}]}'; exit 0; fi
echo "\$@" >"$TMP/gpubench.args"
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
python3 - "\$out" <<'PY'
import json, os, sys
bw = float(os.environ["GB_ALGBW"])
rows = [{"size": 1048576, "placement": "out_of_place", "algbw": 10.0},
        {"size": 67108864, "placement": "out_of_place", "algbw": bw},
        {"size": 134217728, "placement": "out_of_place", "algbw": bw},
        {"size": 134217728, "placement": "in_place", "algbw": None,
         "skipped": "single rank: NCCL does no work in place"}]
json.dump({"benchmarks": [{"name": "nccl", "params": {"samples": 5},
                           "extra": {"rows": rows}}]}, open(sys.argv[1], "w"))
PY
EOF
chmod +x "$fake/all_reduce_perf" "$fake/gpubench"

compare() {
	run env GB_ALGBW="$1" python3 "$script" --gpubench "$fake/gpubench" --nccl-tests "$fake" \
		-b 1M -e 128M -n 20 -w 5 -o "$TMP/summary.json"
}

compare 99.5
expect_rc 0 "0.5% below nccl-tests is within 1%"
expect_out "67108864 +out_of_place +99.50 +100.00 +0.9950  ok" "the 64 MiB line"
expect_out "passed; worst judged ratio 0.9950" "the verdict line"
checks=$((checks + 1))
# 1 MiB is far below, but not judged; the in-place rows NCCL did not work on are not paired
[ "$(json_get "$TMP/summary.json" '["rows"][0]["judged"]')" = "False" ] ||
	fail "1 MiB is judged"
checks=$((checks + 1))
[ "$(json_get "$TMP/summary.json" '["verdict"]')" = "passed" ] || fail "summary verdict"
checks=$((checks + 1))
[ "$(json_get "$TMP/summary.json" '["rows"].__len__()')" = "3" ] || fail "paired rows"
checks=$((checks + 1))
grep -q -- "-b 1048576 -e 134217728 -f 2 -n 20 -w 5 -g 1 -G 0" "$TMP/perf.args" ||
	fail "nccl-tests got other options: $(cat "$TMP/perf.args")"
checks=$((checks + 1))
grep -q -- "nccl --op allreduce -b 1048576 -e 134217728 -f 2 --iters 20 -w 5 --devices 0" \
	"$TMP/gpubench.args" || fail "gpubench got other options: $(cat "$TMP/gpubench.args")"

compare 98
expect_rc 1 "2% below nccl-tests"
expect_out "BELOW" "the size below is marked"

run python3 "$script" --gpubench "$fake/gpubench" --nccl-tests "$TMP/nowhere"
expect_rc 3 "no nccl-tests"
expect_one_error "no executable .*all_reduce_perf" "what is missing"

run python3 "$script" --gpubench "$fake/gpubench" --nccl-tests "$fake" --tolerance x
expect_rc 2 "bad tolerance"

finish
