/* SPDX-License-Identifier: MIT */
/* suite_math.c - run's step sizes on GPUs with little memory; see suite_math.h. */
#include "cmd/suite_math.h"

/* bytes needed by one size: buffers * size, or the GEMM's three fp32 n x n matrices */
static double gemm_bytes(uint64_t n)
{
	return 3.0 * 4.0 * (double)n * (double)n;
}

/* v halved until need(v) fits in budget, not below lo (v itself if already below) */
static uint64_t halve_bytes(uint64_t v, uint64_t lo, double buffers, double budget)
{
	while (v / 2 >= lo && buffers * (double)v > budget)
		v /= 2;
	return v;
}

static uint64_t halve_gemm(uint64_t n, double budget)
{
	while (n / 2 >= GB_SUITE_GEMM_N_MIN && gemm_bytes(n) > budget)
		n /= 2;
	return n;
}

void gb_suite_fit_sizes(const struct gb_suite_sizes *max, double memory_bytes,
			struct gb_suite_sizes *out)
{
	*out = *max;
	if (!(memory_bytes > 0))
		return;
	out->gemm_n = halve_gemm(max->gemm_n, memory_bytes / 16);
	out->bandwidth_bytes = halve_bytes(max->bandwidth_bytes, GB_SUITE_BYTES_MIN, 3,
					   memory_bytes / 4);
	out->p2p_bytes = halve_bytes(max->p2p_bytes, GB_SUITE_BYTES_MIN, 2, memory_bytes / 4);
	out->nccl_bytes = halve_bytes(max->nccl_bytes, GB_SUITE_BYTES_MIN, 2, memory_bytes / 8);
	out->grad_bytes = halve_bytes(max->grad_bytes, GB_SUITE_BYTES_MIN, 2, memory_bytes / 8);
}
