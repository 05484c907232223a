#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# nccl_hang on GPU 1 (its 4th collective never completes): the --timeout abort
# path ends the run, the report is written, the verdict is error (exit 3), and
# the reason names GPU 1, which hung (its stream is behind GPU 0's), not GPU 0,
# which waits for it at the next collective; the rank_hung check on GPU 1 says
# what to do (reset the GPU), and GPU 0 has no such finding.
. "$(dirname "$0")/lib_faults.sh"

start=$(date +%s)
# 1 MiB: a timed loop marks each operation's progress from that size on
# (bench/nccl/nccl_timing.c GB_NCCL_MARK_MIN_BYTES), which is how the hung rank is told apart
sim_run nccl nccl --op allreduce -b 1M -e 1M --iters 2 --samples 2 -w 1 --timeout 3s
elapsed_s=$(($(date +%s) - start))
expect_report "$REPORT"
expect_verdict "$REPORT" error 3
expect_bench_status "$REPORT" nccl "error"
expect_json "$REPORT" "'did not finish within 3 s' in d['benchmarks'][0]['reason']" \
	"the reason says the timed loop timed out"
expect_json "$REPORT" "'rank 1 (GPU 1) hangs' in d['benchmarks'][0]['reason']" \
	"the reason names rank 1 (GPU 1), the one that hung"
expect_json "$REPORT" "'GPU 0' not in d['benchmarks'][0]['reason']" \
	"the reason does not blame GPU 0, which only waited"
expect_action "$REPORT" nccl rank_hung 1 reset_gpu
expect_json "$REPORT" "not any(c['device'] == 0 for b in d['benchmarks'] for c in b['checks'] if c['name'] in ('rank_hung', 'collective_timeout'))" \
	"no hang finding on GPU 0, which only waited"
checks=$((checks + 1))
[ "$elapsed_s" -lt 60 ] || fail "the abort took ${elapsed_s} s for a 3 s timeout"
finish
