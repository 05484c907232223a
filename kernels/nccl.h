/* SPDX-License-Identifier: MIT */
/*
 * nccl.h - kernels of the correctness pass of `gpubench nccl` (plain C).
 *
 * The data is gb_nccl_input() of bench/nccl/nccl_math.h and the expected result
 * gb_nccl_expected() of the same header: the kernels and the unit tests
 * share one definition. Buffers hold `dtype` elements (enum gb_nccl_dtype);
 * element j of a launch is element first + j of the rank's whole buffer, so
 * a part of a buffer (an in-place chunk) can be filled or checked alone.
 */
#ifndef GPUBENCH_KERNELS_NCCL_H
#define GPUBENCH_KERNELS_NCCL_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gb_nccl_expect;

/* buf[j] = gb_nccl_input(redop, seed, rank, first + j) as a dtype, j < count. */
cudaError_t gb_launch_nccl_fill(void *buf, uint64_t count, int dtype, int redop, uint64_t seed,
				int rank, uint64_t first, cudaStream_t stream);

/*
 * Add to *nwrong (device memory; the caller zeroes it) the number of j <
 * count where buf[j] is not gb_nccl_expected(e, first + j) rounded to the
 * type (within gb_nccl_tolerance for avg). NaN is always wrong.
 */
cudaError_t gb_launch_nccl_verify(const void *buf, uint64_t count, uint64_t first,
				  const struct gb_nccl_expect *e, unsigned long long *nwrong,
				  cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
