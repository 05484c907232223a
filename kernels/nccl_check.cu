/* SPDX-License-Identifier: MIT */
/*
 * nccl_check.cu - the device side of the correctness pass of `gpubench
 * nccl`: fill a send buffer with the predictable data, and count the
 * received elements that differ from the expected result (see nccl.h).
 *
 * One template per element type; the value arithmetic is the inline code of
 * kernels/nccl_hd.h, compiled here for the device, so what the GPU checks is
 * exactly what the unit tests check on the CPU.
 */
#include "nccl.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "kernels/nccl_hd.h"
#include "copy.h" /* gb_count_grid */
#include "launch.cuh"

namespace
{

constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 4096;

unsigned grid_for(uint64_t n)
{
	uint64_t need = (n + kThreads - 1) / kThreads;

	if (need == 0)
		need = 1;
	return (unsigned)(need < kMaxBlocks ? need : kMaxBlocks);
}

/* Conversions between the element types and int/double, one place for all. */
template <typename T> struct elem {
	static constexpr bool is_float = std::is_floating_point<T>::value;
	__device__ static T from_int(int v)
	{
		return (T)v;
	}
	__device__ static double to_double(T x)
	{
		return (double)x;
	}
	/* the expected value as the type holds it */
	__device__ static double round(double v)
	{
		return (double)(T)v;
	}
	__device__ static uint64_t bits(T x)
	{
		return (uint64_t)(typename std::make_unsigned<T>::type)x;
	}
};

template <> struct elem<float> {
	static constexpr bool is_float = true;
	__device__ static float from_int(int v)
	{
		return (float)v;
	}
	__device__ static double to_double(float x)
	{
		return (double)x;
	}
	__device__ static double round(double v)
	{
		return (double)(float)v;
	}
	__device__ static uint64_t bits(float)
	{
		return 0;
	}
};

template <> struct elem<double> {
	static constexpr bool is_float = true;
	__device__ static double from_int(int v)
	{
		return (double)v;
	}
	__device__ static double to_double(double x)
	{
		return x;
	}
	__device__ static double round(double v)
	{
		return v;
	}
	__device__ static uint64_t bits(double)
	{
		return 0;
	}
};

template <> struct elem<__half> {
	static constexpr bool is_float = true;
	__device__ static __half from_int(int v)
	{
		return __float2half_rn((float)v);
	}
	__device__ static double to_double(__half x)
	{
		return (double)__half2float(x);
	}
	__device__ static double round(double v)
	{
		return (double)__half2float(__float2half_rn((float)v));
	}
	__device__ static uint64_t bits(__half)
	{
		return 0;
	}
};

template <> struct elem<__nv_bfloat16> {
	static constexpr bool is_float = true;
	__device__ static __nv_bfloat16 from_int(int v)
	{
		return __float2bfloat16_rn((float)v);
	}
	__device__ static double to_double(__nv_bfloat16 x)
	{
		return (double)__bfloat162float(x);
	}
	__device__ static double round(double v)
	{
		return (double)__bfloat162float(__float2bfloat16_rn((float)v));
	}
	__device__ static uint64_t bits(__nv_bfloat16)
	{
		return 0;
	}
};

} // namespace

template <typename T>
__global__ static void fill_kernel(T *buf, uint64_t count, int redop, uint64_t seed, int rank,
				   uint64_t first)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;

	for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < count; j += stride)
		buf[j] = elem<T>::from_int(gb_nccl_input(redop, seed, rank, first + j));
}

template <typename T>
__device__ static bool element_ok(T got, const gb_nccl_expect &e, uint64_t i, double tol)
{
	double f;
	uint64_t u;

	gb_nccl_expected(&e, i, &f, &u);
	if (elem<T>::is_float)
		return gb_nccl_value_ok(elem<T>::to_double(got), elem<T>::round(f), tol);
	return elem<T>::bits(got) == u;
}

template <typename T>
__global__ static void verify_kernel(const T *buf, uint64_t count, uint64_t first, gb_nccl_expect e,
				     double tol, unsigned long long *nwrong)
{
	gb_count_grid(count, nwrong, [=](unsigned long long j) {
		return !element_ok<T>(buf[j], e, first + j, tol);
	});
}

template <typename T>
static cudaError_t fill_as(void *buf, uint64_t count, int redop, uint64_t seed, int rank,
			   uint64_t first, cudaStream_t stream)
{
	GB_LAUNCH(grid_for(count), kThreads, 0, stream, fill_kernel<T>)(
		(T *)buf, count, redop, seed, rank, first);
	return cudaGetLastError();
}

template <typename T>
static cudaError_t verify_as(const void *buf, uint64_t count, uint64_t first,
			     const gb_nccl_expect &e, unsigned long long *nwrong,
			     cudaStream_t stream)
{
	double tol = gb_nccl_tolerance(e.dtype, e.coll, e.redop, e.nranks);

	GB_LAUNCH(grid_for(count), kThreads, 0, stream, verify_kernel<T>)(
		(const T *)buf, count, first, e, tol, nwrong);
	return cudaGetLastError();
}

/* Call F<T>(args...) for the element type of dtype. */
#define GB_NCCL_DISPATCH(dtype, F, ...)                                                            \
	do {                                                                                       \
		switch (dtype) {                                                                   \
		case GB_NCCL_INT8:                                                                 \
			return F<int8_t>(__VA_ARGS__);                                             \
		case GB_NCCL_UINT8:                                                                \
			return F<uint8_t>(__VA_ARGS__);                                            \
		case GB_NCCL_INT32:                                                                \
			return F<int32_t>(__VA_ARGS__);                                            \
		case GB_NCCL_UINT32:                                                               \
			return F<uint32_t>(__VA_ARGS__);                                           \
		case GB_NCCL_INT64:                                                                \
			return F<int64_t>(__VA_ARGS__);                                            \
		case GB_NCCL_UINT64:                                                               \
			return F<uint64_t>(__VA_ARGS__);                                           \
		case GB_NCCL_HALF:                                                                 \
			return F<__half>(__VA_ARGS__);                                             \
		case GB_NCCL_FLOAT:                                                                \
			return F<float>(__VA_ARGS__);                                              \
		case GB_NCCL_DOUBLE:                                                               \
			return F<double>(__VA_ARGS__);                                             \
		case GB_NCCL_BFLOAT16:                                                             \
			return F<__nv_bfloat16>(__VA_ARGS__);                                      \
		default:                                                                           \
			return cudaErrorInvalidValue;                                              \
		}                                                                                  \
	} while (0)

extern "C" cudaError_t gb_launch_nccl_fill(void *buf, uint64_t count, int dtype, int redop,
					   uint64_t seed, int rank, uint64_t first,
					   cudaStream_t stream)
{
	if (!count)
		return cudaSuccess;
	GB_NCCL_DISPATCH(dtype, fill_as, buf, count, redop, seed, rank, first, stream);
}

extern "C" cudaError_t gb_launch_nccl_verify(const void *buf, uint64_t count, uint64_t first,
					     const struct gb_nccl_expect *e,
					     unsigned long long *nwrong, cudaStream_t stream)
{
	if (!count)
		return cudaSuccess;
	GB_NCCL_DISPATCH(e->dtype, verify_as, buf, count, first, *e, nwrong, stream);
}
