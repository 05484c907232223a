/* SPDX-License-Identifier: MIT */
/*
 * stress_math_internal.h - what the CPU-only pieces of `gpubench stress`'s
 * verdict share and nothing else may include: the default clock-event mask
 * and the helpers stress_verdict_math.c lends stress_obs_math.c's metrics.
 * CPU-only (gpubench_core); no CUDA.
 */
#ifndef GPUBENCH_BENCH_STRESS_MATH_INTERNAL_H
#define GPUBENCH_BENCH_STRESS_MATH_INTERNAL_H

#include <stdint.h>

#include "bench/stress_math.h"

/* the clock events DCGM fails on (DcgmRecorder.cpp); sw power cap is normal under load */
#define GB_STRESS_THROTTLE_DEFAULT \
	(GB_CLK_HW_SLOWDOWN | GB_CLK_SW_THERMAL | GB_CLK_HW_THERMAL | GB_CLK_HW_POWER_BRAKE)

/* stress_verdict_math.c */
double sampled_share(const struct gb_stress_obs *o, uint64_t count);
int64_t delta(int64_t before, int64_t after);

#endif
