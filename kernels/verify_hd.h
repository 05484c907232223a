/* SPDX-License-Identifier: MIT */
/*
 * verify_hd.h - the error of one sampled GEMM output against its FP64
 * reference, as kernels/verify.cu's compare kernel computes it. The
 * simulator's CPU twin (tests/sim/twins/twins_verify.c) calls the same
 * function, so a simulated verification passes or fails on the same
 * arithmetic as a real one. Same formula as gb_gemm_rel_error
 * (bench/gemm/gemm_math.h), with scale already divided by sqrt(k), less the
 * output format's subnormal rounding (below).
 *
 * Plain C11 and CUDA: static inline only, GB_HD is __host__ __device__
 * under nvcc.
 */
#ifndef GPUBENCH_KERNELS_VERIFY_HD_H
#define GPUBENCH_KERNELS_VERIFY_HD_H

#include <math.h>

#include "kernels/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Half the smallest subnormal of each output format: a correctly rounded
 * result whose magnitude lies in the format's subnormal range is off by up
 * to this, whatever its size, so there the error is absolute, not relative
 * to |ref| (an fp16 output of -1.4334e-5 rounds to -1.4305e-5: 2e-3 of it).
 * 0 for FP64 (its floor is below any reference's own rounding) and integers.
 */
#define GB_VERIFY_FLOOR_F32 0x1p-150
#define GB_VERIFY_FLOOR_F16 0x1p-25
#define GB_VERIFY_FLOOR_BF16 0x1p-134
#define GB_VERIFY_FLOOR_E4M3 0x1p-10

/*
 * max(|got - ref| - floor_abs, 0) / (|ref| + scale), floor_abs the output format's
 * GB_VERIFY_FLOOR_*: 0 when equal or within the floor, infinite when only
 * the scale could excuse it.
 */
static inline GB_HD double gb_verify_err(double got, double ref, double scale, double floor_abs)
{
	double den = fabs(ref) + scale, diff = fabs(got - ref) - floor_abs;

	return got == ref || diff <= 0 ? 0.0 : den > 0 ? diff / den : INFINITY;
}

#ifdef __cplusplus
}
#endif

#endif
