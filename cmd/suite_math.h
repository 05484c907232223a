/* SPDX-License-Identifier: MIT */
/*
 * suite_math.h - the sizes of `gpubench run`'s steps on GPUs with little
 * memory (CPU only).
 *
 * The profiles are written for data-center and desktop GPUs: an 8192^3
 * GEMM, 256 MiB copies, 256 MiB collectives. On a GPU with little memory (a
 * MIG slice, a small card, a simulated machine) some of those do not fit, or
 * leave nothing for the step's other buffers, and the step could not run.
 * So `run` halves each size until its buffers fit in a fixed share of the
 * smallest GPU's memory; from 16 GiB up nothing of the built-in profiles
 * changes (12 GiB for the GEMM, 16 GiB for acceptance's 1 GiB collectives).
 * `stress` sizes its memory use itself (GEMM outputs fill 90% of it); only
 * its GEMMs' dimension follows gemm's here, so a small GPU is stressed by
 * more, smaller GEMMs.
 */
#ifndef GPUBENCH_BENCH_SUITE_MATH_H
#define GPUBENCH_BENCH_SUITE_MATH_H

#include <stdint.h>

struct gb_suite_sizes {
	uint64_t gemm_n;          /* gemm --size, stress --size, scaling --gemm-size */
	uint64_t bandwidth_bytes; /* bandwidth --max-size */
	uint64_t p2p_bytes;       /* p2p --bytes */
	uint64_t nccl_bytes;      /* nccl --max-bytes */
	uint64_t grad_bytes;      /* scaling --grad-bytes */
};

/* The smallest each size is halved to, whatever the memory: below these the steps say little. */
#define GB_SUITE_GEMM_N_MIN 256
#define GB_SUITE_BYTES_MIN (1ULL << 20)

/*
 * The profile's sizes in max, each halved until its buffers fit in its share
 * of memory_bytes (the smallest memory of the GPUs the run uses):
 *   gemm      A, B and D as fp32 (the largest type of the profiles), 1/16;
 *   bandwidth three buffers of the largest copy (bench/copies/bandwidth.c), 1/4;
 *   p2p       a source and a destination per direction, 1/4;
 *   nccl      a send and a receive buffer, 1/8;
 *   grad      the gradients and the GEMM operands beside them, 1/8.
 * The shares leave room for the steps' other buffers (cuBLASLt workspace,
 * rotation copies against L2, verification). memory_bytes <= 0 (unknown)
 * keeps max. A size never goes below its minimum above, nor above max.
 */
void gb_suite_fit_sizes(const struct gb_suite_sizes *max, double memory_bytes,
			struct gb_suite_sizes *out);

#endif
