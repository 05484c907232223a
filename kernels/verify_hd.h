/* SPDX-License-Identifier: MIT */
/*
 * verify_hd.h - the error of one sampled GEMM output against its FP64
 * reference, as kernels/verify.cu's compare kernel computes it. The
 * simulator's CPU twin (tests/sim/twins/twins_verify.c) calls the same
 * function, so a simulated verification passes or fails on the same
 * arithmetic as a real one. Same formula as gb_gemm_rel_error
 * (bench/gemm_math.h), with scale already divided by sqrt(k).
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

/* |got - ref| / (|ref| + scale); 0 when equal, infinite when only the scale could excuse it */
static inline GB_HD double gb_verify_err(double got, double ref, double scale)
{
	double den = fabs(ref) + scale;

	return got == ref ? 0.0 : den > 0 ? fabs(got - ref) / den : INFINITY;
}

#ifdef __cplusplus
}
#endif

#endif
