/* SPDX-License-Identifier: MIT */
/*
 * pattern_hd.h - the data pattern of the copy benchmarks (bandwidth, p2p):
 * what a fill writes and a verify expects, defined once for the device
 * (kernels/copy.cu, through copy_hd.h) and the CPU (bench/device/copy_math.h, the
 * unit tests, the simulator's twins), the 16-byte grain of every copy, and
 * the operations of the STREAM kernels.
 *
 * Plain C11 and CUDA, no CUDA header: static inline only.
 */
#ifndef GPUBENCH_KERNELS_PATTERN_HD_H
#define GPUBENCH_KERNELS_PATTERN_HD_H

#include <stdint.h>

#ifdef __CUDACC__
#define GB_COPY_HD __host__ __device__
#else
#define GB_COPY_HD
#endif

/*
 * The test pattern: 64-bit word `index` of a buffer filled with `seed`.
 * splitmix64 (a Weyl sequence through xorshift-multiply rounds): a pure
 * function of (seed, index), so any GPU can regenerate the expected data
 * anywhere without a reference copy, neighbouring words differ in about
 * half their bits, and no word pattern repeats within a buffer (zeros would
 * run faster on compressing links and hide unwritten outputs).
 */
static inline GB_COPY_HD uint64_t gb_copy_pattern64(uint64_t seed, uint64_t index)
{
	uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* A double in [1, 2) from the pattern: STREAM arithmetic on it never makes NaN or Inf. */
static inline GB_COPY_HD double gb_copy_pattern_double(uint64_t seed, uint64_t index)
{
	return (double)(gb_copy_pattern64(seed, index) >> 11) * 0x1.0p-53 + 1.0;
}

/* Copies move whole 16-byte words (uint4 / double2): sizes are multiples of this. */
#define GB_COPY_GRAIN 16u

/* STREAM operations, on arrays of doubles accessed as double2. */
enum gb_stream_op {
	GB_STREAM_COPY = 0, /* dst = x */
	GB_STREAM_SCALE,    /* dst = q x */
	GB_STREAM_ADD,      /* dst = x + y */
	GB_STREAM_TRIAD     /* dst = x + q y */
};

#endif
