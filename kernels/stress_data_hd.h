/* SPDX-License-Identifier: MIT */
/*
 * stress_data_hd.h - the data of `gpubench stress`: the generator of every
 * GEMM input and the memtest patterns, and the digest of a result word.
 * Header-inline for the host and the device (kernels/stress.cu and the CPU
 * reference in bench/stress/ include it), so the CPU reference and the GPU
 * fill agree bit for bit.
 *
 * Plain C11 and CUDA, no CUDA header.
 */
#ifndef GPUBENCH_KERNELS_STRESS_DATA_HD_H
#define GPUBENCH_KERNELS_STRESS_DATA_HD_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GB_STRESS_HD static inline __host__ __device__
#else
#define GB_STRESS_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================= */
/* data generator (host and device)                                        */

/* splitmix64's finaliser: a bijection of 64-bit words with good avalanche */
GB_STRESS_HD uint64_t gb_stress_mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

/* The key of one matrix (0 = A, 1 = B) of one seed; element values hash (key, index). */
GB_STRESS_HD uint64_t gb_stress_key(uint64_t seed, unsigned matrix)
{
	return gb_stress_mix64(seed ^ ((uint64_t)(matrix + 1) << 56));
}

/*
 * Element idx of a matrix. Random data (r == 0): +-m 2^-sig_bits with m
 * uniform in [0, 2^sig_bits), zero-mean and uniform in (-1, 1), and exactly
 * representable in a type with sig_bits significand bits, so the value the
 * GPU multiplies is the value the CPU reference sums (no input rounding, not
 * even TF32's). Exact data (r > 0): an integer uniform in [-r, r].
 */
GB_STRESS_HD double gb_stress_value(uint64_t key, uint64_t idx, int sig_bits, int64_t r)
{
	uint64_t h = gb_stress_mix64(key ^ idx);
	double mag;

	if (r > 0)
		return (double)(int64_t)((h >> 11) % (uint64_t)(2 * r + 1)) - (double)r;
	mag = (double)(h >> (64 - sig_bits)) / (double)(1ULL << sig_bits);
	return (h & 1) ? -mag : mag;
}

/* Memtest patterns over 32-bit words. */
enum gb_memtest_kind {
	GB_MT_WALK1 = 0, /* one bit set, walking with the pass and the address */
	GB_MT_WALK0,     /* one bit clear */
	GB_MT_SOLID,     /* the 32-bit pattern `param` everywhere (moving inversions) */
	GB_MT_RANDOM     /* a counter-based hash of (seed, address) */
};

GB_STRESS_HD uint32_t gb_memtest_word(int kind, uint32_t param, uint64_t seed, uint64_t i)
{
	/* the walking bit moves with the address too, so neighbours differ */
	unsigned rot = (unsigned)((param + i) & 31u);

	switch (kind) {
	case GB_MT_WALK1:
		return 1u << rot;
	case GB_MT_WALK0:
		return ~(1u << rot);
	case GB_MT_SOLID:
		return param;
	default:
		return (uint32_t)(gb_stress_mix64(seed ^ (i * 0xD6E8FEB86659FD93ULL)) >> 16);
	}
}

/*
 * What a memtest pass wrote or checks, for forensics: "walking ones (bit 3)",
 * "walking zeros (bit 3)", "moving inversions 0x55555555" (with " then
 * 0xaaaaaaaa" when the pass writes the complement after reading),
 * "random". Returns buf.
 */
const char *gb_memtest_pattern_name(int kind, uint32_t param, bool then_complement, char *buf,
				    size_t len);

/* One word of the order-independent result digest (XOR of these over all words). */
GB_STRESS_HD uint64_t gb_stress_digest_word(uint32_t bits, uint64_t i)
{
	return gb_stress_mix64(((uint64_t)bits << 32) ^ (i * 0xA24BAED4963EE407ULL) ^ i);
}

#ifdef __cplusplus
}
#endif

#endif
