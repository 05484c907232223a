/* SPDX-License-Identifier: MIT */
/*
 * fill_hash.h - the value of element i of a seeded random fill
 * (kernels/fill.cu): a splitmix64 hash of (seed, index), turned into a
 * double uniform in [-1, 1) or a small integer. The kernel computes its
 * values only through these functions, and the simulator's CPU twin
 * (tests/sim/twins/twins_fill.c) calls the same ones, so the simulated
 * GPU fills exactly the numbers a real one does.
 *
 * Plain C11 and CUDA: static inline only, GB_HD is __host__ __device__
 * under nvcc. The rounding of the double into the storage type stays in
 * kernels/dtype.cuh (gb_from_double), which is CUDA C++.
 */
#ifndef GPUBENCH_KERNELS_FILL_HASH_H
#define GPUBENCH_KERNELS_FILL_HASH_H

#include <stdint.h>

#include "kernels/dtype.h"
#include "kernels/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

static inline GB_HD uint64_t gb_fill_mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

/* the odd multiplier spreads seeds far apart in the counter space */
static inline GB_HD uint64_t gb_fill_hash_at(uint64_t seed, uint64_t i)
{
	return gb_fill_mix64(seed * 0x632BE59BD9B4E019ULL + i);
}

/* top 53 bits as a double in [-1, 1) */
static inline GB_HD double gb_fill_uniform_pm1(uint64_t h)
{
	return (double)(h >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}

/* integers in [-GB_GEMM_INT8_MAX, GB_GEMM_INT8_MAX] */
static inline GB_HD int gb_fill_small_int(uint64_t h)
{
	return (int)((h >> 32) % (2 * GB_GEMM_INT8_MAX + 1)) - GB_GEMM_INT8_MAX;
}

#ifdef __cplusplus
}
#endif

#endif
