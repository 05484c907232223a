/* SPDX-License-Identifier: MIT */
/*
 * fill.cu - seeded random fill and poison fill on the device (see gemm.h).
 *
 * The generator is counter-based (splitmix64 of seed and index) rather than
 * a stateful one like curand's XORWOW: no state to set up or store, any
 * element is reproducible from (seed, index) alone, and the result does not
 * depend on the grid shape. The hash and the value of an element are in
 * kernels/fill_hash.h, which the simulator's CPU twin calls too.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <type_traits>

#include "kernels/dtype.cuh"
#include "kernels/fill_hash.h"
#include "kernels/gemm.h"
#include "kernels/launch.cuh"

namespace {

constexpr int kThreads = 256;
/* enough blocks to fill any GPU several times over; the loops stride past it */
constexpr size_t kMaxBlocks = 8192;

/* element h of type T: uniform in [-1, 1] rounded to nearest, or a small integer */
template <typename T> __device__ __forceinline__ T value_of(uint64_t h)
{
	if constexpr (std::is_integral<T>::value)
		return (T)gb_fill_small_int(h);  /* int8 data; int32 is filled the same way */
	else
		return gb_from_double<T>(gb_fill_uniform_pm1(h));
}

template <typename T>
__global__ static void fill_random_kernel(T *p, size_t n, uint64_t seed, uint64_t first)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		p[i] = value_of<T>(gb_fill_hash_at(seed, first + i));
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
	GB_LAUNCH(blocks_for(n), kThreads, 0, s, fill_random_kernel<T>)(
		static_cast<T *>(p), n, seed, first);
	return cudaGetLastError();
}

template <typename U>
cudaError_t launch_pattern(void *p, size_t n, U pattern, cudaStream_t s)
{
	GB_LAUNCH(blocks_for(n), kThreads, 0, s, fill_pattern_kernel<U>)(
		static_cast<U *>(p), n, pattern);
	return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gb_launch_fill_random(void *p, enum gb_dtype t, size_t n, uint64_t seed,
					     uint64_t first_index, cudaStream_t stream)
{
	if (!n)
		return cudaSuccess;
	return gb_dtype_dispatch(t, [&](auto tag) {
		return launch_random<decltype(tag)>(p, n, seed, first_index, stream);
	});
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
