/* SPDX-License-Identifier: MIT */
/*
 * own_gemm.h - gpubench's own GEMM kernels (kernels/sgemm_tiled.cu,
 * sgemm.cu, mma.cu, wgmma.cu), measured against cuBLASLt by `gpubench gemm
 * --impl`. docs/kernels.md describes each design.
 *
 * Every launcher computes D = A^T B in the layout of bench/gemm/gemm_math.h: A
 * stored k x m, B k x n column-major (lda = ldb = k), D m x n column-major
 * (ldd = m), the layout the cuBLASLt path uses, so the same verification
 * applies. Any m, n, k >= 1 works (wgmma pads k to a multiple of 8), with edge
 * tiles predicated; nothing outside the three matrices is read or written.
 * A, B and D must be 16-byte aligned (cudaMalloc gives 256).
 *
 * Launchers only enqueue on `stream` (of the current device) and return
 * cudaGetLastError(), or before launching:
 *   cudaErrorInvalidValue            a dimension is 0, a type is not fp16/bf16,
 *                                    or the grid would be too large
 *   cudaErrorNoKernelImageForDevice  the device cannot run the kernel (wgmma on
 *                                    anything but compute capability 9.0)
 * kernels/own_gemm_math.h has the shape rules and the launch arithmetic.
 */
#ifndef GPUBENCH_KERNELS_OWN_GEMM_H
#define GPUBENCH_KERNELS_OWN_GEMM_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "kernels/dtype.h"
#include "kernels/own_gemm_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The limits of the current device that a launch shape depends on (the
 * launchers plan with them; gemm reports the plan). Returns the first
 * failing call's error; the caller clears it (none of these is sticky).
 */
static inline cudaError_t gb_own_gemm_device_query(struct gb_own_gemm_device *dev)
{
	int id = 0, v[4] = { 0, 0, 0, 0 };
	cudaError_t e;

	if ((e = cudaGetDevice(&id)) != cudaSuccess ||
	    (e = cudaDeviceGetAttribute(&v[0], cudaDevAttrComputeCapabilityMajor, id)) !=
		    cudaSuccess ||
	    (e = cudaDeviceGetAttribute(&v[1], cudaDevAttrComputeCapabilityMinor, id)) !=
		    cudaSuccess ||
	    (e = cudaDeviceGetAttribute(&v[2], cudaDevAttrMaxSharedMemoryPerMultiprocessor, id)) !=
		    cudaSuccess ||
	    (e = cudaDeviceGetAttribute(&v[3], cudaDevAttrMaxSharedMemoryPerBlockOptin, id)) !=
		    cudaSuccess)
		return e;
	dev->cc_major = v[0];
	dev->cc_minor = v[1];
	dev->smem_per_sm = (size_t)v[2];
	dev->smem_per_block_optin = (size_t)v[3];
	return cudaSuccess;
}

/* FP32, one output per thread from 32 x 32 shared-memory tiles */
cudaError_t gb_launch_sgemm_tiled(const float *a, const float *b, float *d, uint64_t m,
				  uint64_t n, uint64_t k, cudaStream_t stream);

/* FP32, 128 x 128 block tiles, 8 x 8 outputs per thread, double-buffered */
cudaError_t gb_launch_sgemm(const float *a, const float *b, float *d, uint64_t m, uint64_t n,
			    uint64_t k, cudaStream_t stream);

/* t = GB_DT_F16 or GB_DT_BF16 for A, B and D; FP32 accumulation; mma.sync (sm_80+) */
cudaError_t gb_launch_gemm_mma(const void *a, const void *b, void *d, enum gb_dtype t,
			       uint64_t m, uint64_t n, uint64_t k, cudaStream_t stream);

/*
 * t = GB_DT_F16 or GB_DT_BF16; FP32 accumulation; wgmma + TMA, compute
 * capability 9.0 only. The TMA descriptors are encoded on the host through
 * the driver's cuTensorMapEncodeTiled, found at run time
 * (cudaGetDriverEntryPointByVersion): gpubench does not link libcuda;
 * cudaErrorNotSupported when the driver lacks it. They are cached per
 * device and operand, like the device's limits and the kernel attributes,
 * so a launch costs little host time; launching from several threads at
 * once is safe (one lock per device).
 *
 * k % 8 != 0 (gb_own_gemm_pads_k): TMA cannot read rows of k halves, so A
 * and B are first copied on `stream` into a per-device scratch buffer of
 * pitch roundup(k, 8) (gb_wgmma_scratch_bytes), which then stays allocated
 * for later launches until gb_wgmma_release. The copies are part of the
 * launch: a timing around it includes them.
 * cudaErrorLaunchOutOfResources: the kernel was compiled with fewer
 * registers than its setmaxnreg split needs (it would hang; never expected).
 */
cudaError_t gb_launch_gemm_wgmma(const void *a, const void *b, void *d, enum gb_dtype t,
				 uint64_t m, uint64_t n, uint64_t k, cudaStream_t stream);

/*
 * Frees what gb_launch_gemm_wgmma keeps on the current device between calls
 * (the scratch buffer of padded launches and its event; the cached tensor
 * maps and attributes are forgotten), after waiting for the launches that
 * use the scratch. Call it when the device's GEMMs are done (gemm's device
 * teardown) and before any cudaDeviceReset; a later launch starts afresh.
 * Returns the first error, having released everything anyway.
 */
cudaError_t gb_wgmma_release(void);

#ifdef __cplusplus
}
#endif

#endif
