/* SPDX-License-Identifier: MIT */
/*
 * bench_list.h - the one list of benchmarks (stress-ng's STRESSORS idea).
 * Order is the order of `gpubench help` and of `gpubench run`.
 */
#ifndef GPUBENCH_BENCH_BENCH_LIST_H
#define GPUBENCH_BENCH_BENCH_LIST_H

#define GB_BENCHES(X) X(gemm) X(bandwidth) X(p2p) X(nccl) X(stress) X(scaling)

#endif
