/* SPDX-License-Identifier: MIT */
/*
 * fill.cu - seeded random fill and poison fill on the device (see gemm.h).
 *
 * The generator is counter-based (splitmix64 of seed and index) rather than
 * a stateful one like curand's XORWOW: no state to set up or store, any
 * element is reproducible from (seed, index) alone, and the result does not
 * depend on the grid shape.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <stdint.h>

#include "kernels/gemm.h"

namespace {

constexpr int kThreads = 256;
/* enough blocks to fill any GPU several times over; the loops stride past it */
constexpr size_t kMaxBlocks = 8192;

__device__ __forceinline__ uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

/* the odd multiplier spreads seeds far apart in the counter space */
__device__ __forceinline__ uint64_t hash_at(uint64_t seed, uint64_t i)
{
	return mix64(seed * 0x632BE59BD9B4E019ULL + i);
}

/* top 53 bits as a double in [-1, 1) */
__device__ __forceinline__ double uniform_pm1(uint64_t h)
{
	return (double)(h >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}

/* integers in [-GB_GEMM_INT8_MAX, GB_GEMM_INT8_MAX] */
__device__ __forceinline__ int small_int(uint64_t h)
{
	return (int)((h >> 32) % (2 * GB_GEMM_INT8_MAX + 1)) - GB_GEMM_INT8_MAX;
}

/* one overload per storage type: round to nearest into the format */
__device__ __forceinline__ void put(double *p, uint64_t h) { *p = uniform_pm1(h); }
__device__ __forceinline__ void put(float *p, uint64_t h)
{
	*p = __double2float_rn(uniform_pm1(h));
}
__device__ __forceinline__ void put(__half *p, uint64_t h)
{
	*p = __float2half_rn((float)uniform_pm1(h));
}
__device__ __forceinline__ void put(__nv_bfloat16 *p, uint64_t h)
{
	*p = __float2bfloat16_rn((float)uniform_pm1(h));
}
__device__ __forceinline__ void put(__nv_fp8_e4m3 *p, uint64_t h)
{
	/* the constructor rounds to nearest and saturates (|x| <= 1 never does) */
	*p = __nv_fp8_e4m3((float)uniform_pm1(h));
}
__device__ __forceinline__ void put(int8_t *p, uint64_t h) { *p = (int8_t)small_int(h); }
__device__ __forceinline__ void put(int32_t *p, uint64_t h) { *p = small_int(h); }

template <typename T>
__global__ static void fill_random_kernel(T *p, size_t n, uint64_t seed, uint64_t first)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		put(&p[i], hash_at(seed, first + i));
}

template <typename U>
__global__ static void fill_pattern_kernel(U *p, size_t n, U pattern)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		p[i] = pattern;
}

unsigned blocks_for(size_t n)
{
	size_t b = (n + kThreads - 1) / kThreads;

	return (unsigned)(b < kMaxBlocks ? b : kMaxBlocks);
}

template <typename T>
cudaError_t launch_random(void *p, size_t n, uint64_t seed, uint64_t first, cudaStream_t s)
{
	fill_random_kernel<T>
		<<<blocks_for(n), kThreads, 0, s>>>(static_cast<T *>(p), n, seed, first);
	return cudaGetLastError();
}

template <typename U>
cudaError_t launch_pattern(void *p, size_t n, U pattern, cudaStream_t s)
{
	fill_pattern_kernel<U><<<blocks_for(n), kThreads, 0, s>>>(static_cast<U *>(p), n, pattern);
	return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gb_launch_fill_random(void *p, enum gb_dtype t, size_t n, uint64_t seed,
					     uint64_t first_index, cudaStream_t stream)
{
	if (!n)
		return cudaSuccess;
	switch (t) {
	case GB_DT_F64:
		return launch_random<double>(p, n, seed, first_index, stream);
	case GB_DT_F32:
		return launch_random<float>(p, n, seed, first_index, stream);
	case GB_DT_F16:
		return launch_random<__half>(p, n, seed, first_index, stream);
	case GB_DT_BF16:
		return launch_random<__nv_bfloat16>(p, n, seed, first_index, stream);
	case GB_DT_E4M3:
		return launch_random<__nv_fp8_e4m3>(p, n, seed, first_index, stream);
	case GB_DT_I8:
		return launch_random<int8_t>(p, n, seed, first_index, stream);
	case GB_DT_I32:
		return launch_random<int32_t>(p, n, seed, first_index, stream);
	default:
		return cudaErrorInvalidValue;
	}
}

extern "C" cudaError_t gb_launch_fill_poison(void *p, enum gb_dtype t, size_t n,
					     cudaStream_t stream)
{
	if (!n)
		return cudaSuccess;
	switch (t) {
	case GB_DT_F64:
		return launch_pattern<uint64_t>(p, n, 0x7FF8DEAD0000BAD0ULL, stream);
	case GB_DT_F32:
		return launch_pattern<uint32_t>(p, n, 0x7FC0DEADu, stream);
	case GB_DT_F16:
		return launch_pattern<uint16_t>(p, n, (uint16_t)0x7EADu, stream);
	case GB_DT_BF16:
		return launch_pattern<uint16_t>(p, n, (uint16_t)0x7FEDu, stream);
	case GB_DT_E4M3:
	case GB_DT_I8:
		return launch_pattern<uint8_t>(p, n, (uint8_t)0x7Fu, stream);
	case GB_DT_I32:
		return launch_pattern<uint32_t>(p, n, 0x7F7F7F7Fu, stream);
	default:
		return cudaErrorInvalidValue;
	}
}
