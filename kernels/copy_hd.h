/* SPDX-License-Identifier: MIT */
/*
 * copy_hd.h - the per-element arithmetic of kernels/copy.cu: the 16-byte
 * pattern word of a fill or verify, and the value a STREAM kernel writes.
 * The kernels compute them only through these functions, and the
 * simulator's CPU twins (tests/sim/twins/twins_copy.c) call the same ones.
 *
 * Plain C11 and CUDA: static inline only, GB_HD is __host__ __device__
 * under nvcc.
 */
#ifndef GPUBENCH_KERNELS_COPY_HD_H
#define GPUBENCH_KERNELS_COPY_HD_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <vector_types.h>

#include "kernels/pattern_hd.h"
#include "kernels/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 16-byte word i of a buffer filled with seed: 64-bit pattern words 2i and 2i + 1 */
static inline GB_HD uint4 gb_copy_pattern_word(uint64_t seed, size_t i)
{
	uint64_t a = gb_copy_pattern64(seed, 2 * (uint64_t)i);
	uint64_t b = gb_copy_pattern64(seed, 2 * (uint64_t)i + 1);
	uint4 w = { (unsigned)a, (unsigned)(a >> 32), (unsigned)b, (unsigned)(b >> 32) };

	return w;
}

/*
 * Same arithmetic in the kernel and in the check, rounded explicitly so no
 * FMA contraction can make the two differ. The host side performs the same
 * single IEEE operations (a product, a sum, one fused multiply-add), each
 * rounded to nearest even.
 */
static inline GB_HD double gb_stream_value(int op, double x, double y, double q)
{
	switch (op) {
	case GB_STREAM_COPY:
		return x;
#ifdef __CUDA_ARCH__
	case GB_STREAM_SCALE:
		return __dmul_rn(q, x);
	case GB_STREAM_ADD:
		return __dadd_rn(x, y);
	default:
		return __fma_rn(q, y, x);
#else
	case GB_STREAM_SCALE:
		return q * x;
	case GB_STREAM_ADD:
		return x + y;
	default:
		return fma(q, y, x);
#endif
	}
}

#ifdef __cplusplus
}
#endif

#endif
