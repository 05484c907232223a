/* SPDX-License-Identifier: MIT */
/*
 * dtype.cuh - gpubench's storage types (enum gb_dtype, bench/gemm/gemm_math.h)
 * on the device: their C++ types, the conversions to and from double and
 * float, and the switch that turns a gb_dtype into a template argument.
 * Shared by fill.cu, verify.cu, stress.cu, mma.cu and wgmma.cu, so every
 * kernel rounds and widens the same way. CUDA C++ only.
 */
#ifndef GPUBENCH_KERNELS_DTYPE_CUH
#define GPUBENCH_KERNELS_DTYPE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <stdint.h>

#include "kernels/dtype.h"

/* ---- widening: exact for every storage type ---- */

__device__ __forceinline__ double gb_to_double(double x) { return x; }
__device__ __forceinline__ double gb_to_double(float x) { return x; }
__device__ __forceinline__ double gb_to_double(__half x) { return __half2float(x); }
__device__ __forceinline__ double gb_to_double(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ double gb_to_double(__nv_fp8_e4m3 x) { return (double)(float)x; }
__device__ __forceinline__ double gb_to_double(int8_t x) { return x; }
__device__ __forceinline__ double gb_to_double(int32_t x) { return x; }

/* ---- narrowing from double: round to nearest ---- */

/*
 * The 16- and 8-bit types go through float, so a value can round twice;
 * that moves a rare near-halfway value by one unit, which no check sees:
 * the GEMM reference reads the stored inputs back, and stress generates
 * values exact in the target type.
 */
template <typename T> __device__ __forceinline__ T gb_from_double(double v);
template <> __device__ __forceinline__ double gb_from_double<double>(double v) { return v; }
template <> __device__ __forceinline__ float gb_from_double<float>(double v)
{
	return __double2float_rn(v);
}
template <> __device__ __forceinline__ __half gb_from_double<__half>(double v)
{
	return __float2half_rn((float)v);
}
template <> __device__ __forceinline__ __nv_bfloat16 gb_from_double<__nv_bfloat16>(double v)
{
	return __float2bfloat16_rn((float)v);
}
/* the constructor rounds to nearest and saturates to +-448 (__NV_SATFINITE) */
template <> __device__ __forceinline__ __nv_fp8_e4m3 gb_from_double<__nv_fp8_e4m3>(double v)
{
	return __nv_fp8_e4m3((float)v);
}

/* ---- FP32 accumulators into a 16-bit output type ---- */

__device__ __forceinline__ __half gb_from_float(float a, __half) { return __float2half_rn(a); }
__device__ __forceinline__ __nv_bfloat16 gb_from_float(float a, __nv_bfloat16)
{
	return __float2bfloat16_rn(a);
}
/* two adjacent outputs as one 4-byte value (one store instead of two) */
__device__ __forceinline__ __half2 gb_pack2(float a, float b, __half)
{
	return __floats2half2_rn(a, b);
}
__device__ __forceinline__ __nv_bfloat162 gb_pack2(float a, float b, __nv_bfloat16)
{
	return __floats2bfloat162_rn(a, b);
}

/* ---- host: gb_dtype -> template argument ---- */

/*
 * f(T()) with T the C++ type of t (double, float, __half, __nv_bfloat16,
 * __nv_fp8_e4m3, int8_t, int32_t); cudaErrorInvalidValue for any other t.
 * A launcher writes its switch once:
 *   return gb_dtype_dispatch(t, [&](auto tag) { return launch<decltype(tag)>(...); });
 */
template <typename F> inline cudaError_t gb_dtype_dispatch(enum gb_dtype t, F &&f)
{
	switch (t) {
	case GB_DT_F64:
		return f(double());
	case GB_DT_F32:
		return f(float());
	case GB_DT_F16:
		return f(__half());
	case GB_DT_BF16:
		return f(__nv_bfloat16());
	case GB_DT_E4M3:
		return f(__nv_fp8_e4m3());
	case GB_DT_I8:
		return f(int8_t());
	case GB_DT_I32:
		return f(int32_t());
	case GB_DT_COUNT:
	default:
		return cudaErrorInvalidValue;
	}
}

#endif
