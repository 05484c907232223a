/* SPDX-License-Identifier: MIT */
/*
 * stress_hd.h - the per-element decisions of the `gpubench stress` kernels
 * (kernels/stress.cu) that the simulated GPU's twins
 * (tests/sim/twins/twins_stress.c) must take the same way: which exponent
 * bit --inject-fault flips, and when a checksum fails its bound.
 *
 * Plain C11 and CUDA: static inline only, GB_HD is __host__ __device__
 * under nvcc, so the simulator runs the very expressions the GPU runs.
 */
#ifndef GPUBENCH_KERNELS_STRESS_HD_H
#define GPUBENCH_KERNELS_STRESS_HD_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The exponent bit to flip in a format with exponent bits [lo, lo + w):
 * the top one while the value is below 2 (x 2^(2^(w-1))), the next one while
 * that is still zero (x 2^(2^(w-2))); otherwise the top one, which makes a
 * huge value tiny. Every enabled layer must see a change that large.
 */
static inline GB_HD int gb_stress_flip_bit(unsigned long long bits, int lo, int w)
{
	unsigned long long e = (bits >> lo) & ((1ULL << w) - 1);

	if (!(e >> (w - 1)))
		return lo + w - 1;
	if (!((e >> (w - 2)) & 1))
		return lo + w - 2;
	return lo + w - 1;
}

/* An F64 element's bits after the injected fault (11 exponent bits from bit 52). */
static inline GB_HD unsigned long long gb_stress_flipped64(unsigned long long b)
{
	return b ^ (1ULL << gb_stress_flip_bit(b, 52, 11));
}

/* An F32 element's bits after the injected fault (8 exponent bits from bit 23). */
static inline GB_HD uint32_t gb_stress_flipped32(uint32_t b)
{
	return b ^ (1u << gb_stress_flip_bit(b, 23, 8));
}

/*
 * One checksum against its reference: true when it fails, that is when
 * !(|observed - expected| <= bound), written so that NaN fails. *ratio gets
 * |observed - expected| / bound when the bound is positive and the quotient finite
 * (exact phases, bound 0, have no ratio; NaN is counted, not kept), else 0.
 */
static inline GB_HD bool gb_stress_sum_fails(double observed, double expected, double bound,
					      double *ratio)
{
	double q = fabs(observed - expected) / bound;

	*ratio = bound > 0 && isfinite(q) ? q : 0;
	return !(fabs(observed - expected) <= bound);
}

#ifdef __cplusplus
}
#endif

#endif
