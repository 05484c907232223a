/* SPDX-License-Identifier: MIT */
/*
 * copy.h - kernels of the bandwidth and p2p benchmarks (plain C).
 *
 * Buffers are device pointers, or host-mapped / peer pointers a kernel can
 * dereference (pinned host memory under UVA, a peer's memory with peer
 * access enabled). Sizes are bytes and must be multiples of 16: every kernel
 * moves whole 16-byte words (uint4 / double2), because 16-byte accesses are
 * what reaches full memory and link bandwidth. A launcher given a size that
 * is not a multiple of 16 returns cudaErrorInvalidValue without launching.
 * Patterns are gb_copy_pattern64() of bench/device/copy_math.h.
 */
#ifndef GPUBENCH_KERNELS_COPY_H
#define GPUBENCH_KERNELS_COPY_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "kernels/pattern_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Load every kernel of this file on the current device now. With lazy
 * loading (the default since CUDA 12.2) a kernel is loaded at its first
 * launch, and loading may synchronize the context: if that first launch is
 * queued behind a spin kernel waiting for the host, the host waits inside the
 * launch until the spin kernel times out. nvbandwidth preloads for the same
 * reason. Call once per device, before any sample; cheap when already loaded.
 */
cudaError_t gb_copy_preload(void);

/*
 * The stream blocker: one thread spins until *release (host-mapped memory)
 * becomes non-zero, so everything queued behind it starts at once when the
 * host releases it, and host enqueue time stays out of the measurement.
 * After timeout_ns of the GPU's global timer (wall time: an SM cycle count
 * would stretch the timeout at a low idle clock) it gives up and sets
 * *timed_out (also host-mapped) to 1, so a stream the host never releases
 * cannot hang.
 */
cudaError_t gb_launch_spin_wait(const volatile int *release, int *timed_out,
				unsigned long long timeout_ns, cudaStream_t stream);

/* Fill buf with the pattern of seed (16-byte words, grid-stride). */
cudaError_t gb_launch_pattern_fill(void *buf, size_t bytes, uint64_t seed, int sm_count,
				   cudaStream_t stream);

/*
 * Compare buf with the pattern of seed and add the number of 16-byte words
 * that differ to *mismatches (device memory; the caller zeroes it).
 */
cudaError_t gb_launch_pattern_verify(const void *buf, size_t bytes, uint64_t seed,
				     unsigned long long *mismatches, int sm_count,
				     cudaStream_t stream);

/* dst = src with 16-byte loads and stores, grid-stride over sm_count SMs. */
cudaError_t gb_launch_sm_copy(void *dst, const void *src, size_t bytes, int sm_count,
			      cudaStream_t stream);

/*
 * Two copies of `bytes` each in one kernel, split by warp: even warps copy
 * src0 -> dst0 and odd warps src1 -> dst1, so both directions of a link are
 * loaded at once by the same SMs (nvbandwidth's split-warp copy).
 */
cudaError_t gb_launch_sm_copy_bidir(void *dst0, const void *src0, void *dst1, const void *src1,
				    size_t bytes, int sm_count, cudaStream_t stream);

/* STREAM operations: enum gb_stream_op, kernels/pattern_hd.h */

/* Fill n doubles (n even) with gb_copy_pattern_double(seed, i): values in [1, 2). */
cudaError_t gb_launch_pattern_fill_double(double *buf, size_t n, uint64_t seed, int sm_count,
					  cudaStream_t stream);

/* One STREAM kernel over n doubles (n even); y is unused by copy and scale. */
cudaError_t gb_launch_stream(enum gb_stream_op op, double *dst, const double *x, const double *y,
			     double q, size_t n, int sm_count, cudaStream_t stream);

/*
 * Check dst of a STREAM kernel whose x and y were filled with seed_x and
 * seed_y; adds the number of 16-byte words that differ (bit-exact: both
 * sides round the same way) to *mismatches.
 */
cudaError_t gb_launch_stream_verify(enum gb_stream_op op, const double *dst, uint64_t seed_x,
				    uint64_t seed_y, double q, size_t n,
				    unsigned long long *mismatches, int sm_count,
				    cudaStream_t stream);

/*
 * Pointer chase: make buf (bytes long) a ring of nodes `stride` bytes apart
 * (stride a multiple of 8, at least 128 so each load is its own cache line),
 * each holding the address of the next, as seen by the GPU that will chase.
 */
cudaError_t gb_launch_chase_init(void *buf, size_t bytes, size_t stride, cudaStream_t stream);

/*
 * One thread follows the ring `steps` times: each load depends on the one
 * before, so time / steps is the load latency. The last address goes to
 * *sink so the chain cannot be optimised away.
 */
cudaError_t gb_launch_chase(const void *buf, unsigned long long steps, unsigned long long *sink,
			    cudaStream_t stream);

#ifdef __cplusplus
}
#endif

/* the host build of the kernels (tests/kexec/, GB_KEXEC) runs it too */
#if defined(__CUDACC__) || defined(GB_KEXEC)
/*
 * Device side, shared by every verify kernel (copy.cu, nccl_check.cu):
 * count the i < n of this thread's grid-stride share for which bad(i) is
 * true and add the total to *counter, one atomic per warp. Every lane runs
 * its warp's trip count, so the warp reduction is convergent even where n
 * is not a multiple of the grid. The block size must be a multiple of 32.
 */
template <typename Bad>
__device__ __forceinline__ void gb_count_grid(unsigned long long n, unsigned long long *counter,
					      Bad bad)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long base = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long lane0 = base - (threadIdx.x & 31);
	unsigned local = 0, total;

	for (unsigned long long w = lane0; w < n; w += stride) {
		unsigned long long i = base + (w - lane0);

		if (i < n)
			local += bad(i) ? 1u : 0u;
	}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
	/* __reduce_add_sync is sm_80+; on sm_75 a butterfly of shuffles gives every
	 * lane the same sum (unsigned addition wraps the same in any order) */
	total = local;
	for (int offset = 16; offset > 0; offset >>= 1)
		total += __shfl_xor_sync(0xffffffffu, total, offset);
#else
	total = __reduce_add_sync(0xffffffffu, local);
#endif
	if ((threadIdx.x & 31) == 0 && total)
		atomicAdd(counter, (unsigned long long)total);
}
#endif

#endif
