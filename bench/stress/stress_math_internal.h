/* SPDX-License-Identifier: MIT */
/*
 * stress_math_internal.h - what the CPU-only pieces of `gpubench stress`'s
 * verdict share and nothing else may include: the helpers stress_verdict_math.c lends stress_obs_math.c's metrics.
 * CPU-only (gpubench_core); no CUDA.
 */
#ifndef GPUBENCH_BENCH_STRESS_MATH_INTERNAL_H
#define GPUBENCH_BENCH_STRESS_MATH_INTERNAL_H

#include <stdint.h>

#include "bench/stress/stress_math.h"

/* GB_STRESS_THROTTLE_DEFAULT: report/stress_thresholds.h */

/* stress_verdict_math.c */
double sampled_share(const struct gb_stress_obs *o, uint64_t count);
int64_t delta(int64_t before, int64_t after);

#endif
