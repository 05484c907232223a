/* SPDX-License-Identifier: MIT */
/*
 * kx_planted_bugs.cc - kernels with one bug each, built like the real ones
 * (cuda_host_shim.h, instrumented), so test_kexec_checks.c can show that
 * memcheck, racecheck and synccheck see them. Without these, a check that
 * stopped working would only make every other test pass.
 */
#include <cuda_runtime.h>

#include "kernels/launch.cuh"

namespace {

/* the block's dynamic shared memory, declared extern __shared__ below as the kernels do */
thread_local __attribute__((aligned(16))) float dyn[4096];
[[maybe_unused]] const bool dyn_registered =
	(gb_kx_register_dynamic_smem(dyn, sizeof dyn), true);

/* one thread writes one element past the end */
__global__ void oob_global_kernel(float *p, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i <= n)
		p[i] = 1.0f;
}

/* neighbours' shared elements read without the __syncthreads that publishes them */
__global__ void race_kernel(float *out)
{
	__shared__ float s[256];
	unsigned t = threadIdx.x;

	s[t] = (float)t;
	out[t] = s[(t + 1) % blockDim.x];
}

/* lane 0 leaves, the rest shuffle with a full mask */
__global__ void shuffle_kernel(float *out)
{
	if (threadIdx.x % 32 == 0)
		return;
	out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, (float)threadIdx.x, 1);
}

/* one element past the dynamic shared memory the launch asked for */
__global__ void oob_shared_kernel(float *out)
{
	extern __shared__ float dyn[];

	dyn[threadIdx.x + 1] = 1.0f;
	__syncthreads();
	out[threadIdx.x] = dyn[threadIdx.x];
}

}  // namespace

extern "C" cudaError_t gb_kx_planted_oob_global(float *p, unsigned n)
{
	GB_LAUNCH((n + 63) / 64, 64, 0, 0, oob_global_kernel)(p, n);
	return cudaGetLastError();
}

extern "C" cudaError_t gb_kx_planted_race(float *out)
{
	GB_LAUNCH(1, 256, 0, 0, race_kernel)(out);
	return cudaGetLastError();
}

extern "C" cudaError_t gb_kx_planted_shuffle(float *out)
{
	GB_LAUNCH(1, 64, 0, 0, shuffle_kernel)(out);
	return cudaGetLastError();
}

extern "C" cudaError_t gb_kx_planted_oob_shared(float *out)
{
	GB_LAUNCH(1, 64, 64 * sizeof(float), 0, oob_shared_kernel)(out);
	return cudaGetLastError();
}
