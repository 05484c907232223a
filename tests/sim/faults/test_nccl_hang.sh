#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# nccl_hang on GPU 1 (its 4th collective never completes): the --timeout abort
# path ends the run, the report is written, the verdict is error (exit 3).
. "$(dirname "$0")/lib_faults.sh"

start=$(date +%s)
sim_run nccl nccl --op allreduce -b 1K -e 64K -f 8 -n 2 --samples 2 -w 1 --timeout 3s
elapsed_s=$(($(date +%s) - start))
expect_report "$REPORT"
expect_verdict "$REPORT" error 3
expect_bench_status "$REPORT" nccl "error"
expect_json "$REPORT" "'did not finish within 3 s' in d['benchmarks'][0]['reason']" \
	"the reason says the timed loop timed out"
checks=$((checks + 1))
[ "$elapsed_s" -lt 60 ] || fail "the abort took ${elapsed_s} s for a 3 s timeout"
finish
