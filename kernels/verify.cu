/* SPDX-License-Identifier: MIT */
/*
 * verify.cu - FP64 reference dot products for sampled GEMM outputs and the
 * on-device comparison against them (see gemm.h).
 *
 * The reference reads the very inputs the GEMM read, in their storage type,
 * and converts each exactly to double: products of FP32 or narrower inputs
 * are exact in double, so the reference differs from the exact result only
 * by the double-precision summation (accounted for in the bound as u_ref).
 */
#include <cuda_runtime.h>

#include <stdint.h>

#include "kernels/dtype.cuh"
#include "kernels/gemm.h"
#include "kernels/launch.cuh"
#include "kernels/verify_hd.h"

namespace {

constexpr int kThreads = 256;
constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ double warp_sum(double v)
{
	for (int off = kWarp / 2; off > 0; off /= 2)
		v += __shfl_down_sync(kFullMask, v, off);
	return v;
}

/* the output format's GB_VERIFY_FLOOR_* (verify_hd.h); 0: FP64 and the integers */
template <typename T> struct subnormal_floor {
	static constexpr double value = 0;
};
template <> struct subnormal_floor<float> {
	static constexpr double value = GB_VERIFY_FLOOR_F32;
};
template <> struct subnormal_floor<__half> {
	static constexpr double value = GB_VERIFY_FLOOR_F16;
};
template <> struct subnormal_floor<__nv_bfloat16> {
	static constexpr double value = GB_VERIFY_FLOOR_BF16;
};
template <> struct subnormal_floor<__nv_fp8_e4m3> {
	static constexpr double value = GB_VERIFY_FLOOR_E4M3;
};

/* one warp per sample: lanes stride over k, then a shuffle tree */
template <typename T>
__global__ static void reference_kernel(const T *__restrict__ a, const T *__restrict__ b,
					uint64_t k, const uint32_t *__restrict__ rc, size_t n,
					double *__restrict__ ref, double *__restrict__ scale)
{
	size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / kWarp;
	unsigned lane = threadIdx.x % kWarp;
	const T *col_a, *col_b;
	double sum = 0, sum_abs = 0;

	/* a whole warp leaves together, so the shuffles below see every lane */
	if (warp >= n)
		return;
	col_a = a + (uint64_t)rc[2 * warp] * k;
	col_b = b + (uint64_t)rc[2 * warp + 1] * k;
	for (uint64_t l = lane; l < k; l += kWarp) {
		double p = gb_to_double(col_a[l]) * gb_to_double(col_b[l]);

		sum += p;
		sum_abs += fabs(p);
	}
	sum = warp_sum(sum);
	sum_abs = warp_sum(sum_abs);
	if (lane == 0) {
		ref[warp] = sum;
		scale[warp] = sum_abs / sqrt((double)k);
	}
}

template <typename T>
__global__ static void compare_kernel(const T *__restrict__ d, uint64_t ldd,
				      const uint32_t *__restrict__ rc, size_t n,
				      const double *__restrict__ ref,
				      const double *__restrict__ scale, double bound,
				      double *__restrict__ got_out, gb_verify_counters *c)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	bool active = i < n, nan = false, bad = false;
	unsigned lane = threadIdx.x % kWarp;
	unsigned n_active, n_nan, n_bad;

	if (active) {
		double got = gb_to_double(d[rc[2 * i] + (uint64_t)rc[2 * i + 1] * ldd]);
		double r = ref[i], err;

		got_out[i] = got;
		nan = isnan(got) || isnan(r);
		if (nan) {
			bad = true;
		} else {
			err = gb_verify_err(got, r, scale[i], subnormal_floor<T>::value);
			bad = err > bound;
			/* non-negative doubles order like their bit patterns */
			atomicMax(&c->max_err_bits, (unsigned long long)__double_as_longlong(err));
		}
		if (bad)
			atomicMax(&c->first_bad_inv, ~(unsigned long long)i);
	}
	/* one atomic per warp and counter instead of one per thread */
	n_active = __popc(__ballot_sync(kFullMask, active));
	n_nan = __popc(__ballot_sync(kFullMask, nan));
	n_bad = __popc(__ballot_sync(kFullMask, bad));
	if (lane == 0) {
		if (n_active)
			atomicAdd(&c->checked, (unsigned long long)n_active);
		if (n_nan)
			atomicAdd(&c->nans, (unsigned long long)n_nan);
		if (n_bad)
			atomicAdd(&c->mismatches, (unsigned long long)n_bad);
	}
}

template <typename T>
cudaError_t launch_reference(const void *a, const void *b, uint64_t k, const uint32_t *rc,
			     size_t n, double *ref, double *scale, cudaStream_t s)
{
	size_t per_block = kThreads / kWarp;
	unsigned blocks = (unsigned)((n + per_block - 1) / per_block);

	GB_LAUNCH(blocks, kThreads, 0, s, reference_kernel<T>)(
		static_cast<const T *>(a), static_cast<const T *>(b), k, rc, n, ref, scale);
	return cudaGetLastError();
}

template <typename T>
cudaError_t launch_compare(const void *d, uint64_t ldd, const uint32_t *rc, size_t n,
			   const double *ref, const double *scale, double bound, double *got,
			   gb_verify_counters *c, cudaStream_t s)
{
	unsigned blocks = (unsigned)((n + kThreads - 1) / kThreads);

	GB_LAUNCH(blocks, kThreads, 0, s, compare_kernel<T>)(
		static_cast<const T *>(d), ldd, rc, n, ref, scale, bound, got, c);
	return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gb_launch_gemm_reference(const void *a, const void *b, enum gb_dtype t_ab,
						uint64_t k, const uint32_t *rc, size_t n_samples,
						double *ref, double *scale, cudaStream_t stream)
{
	/* grid.x is 2^31 - 1 blocks of 8 samples: far beyond the 1M samples used */
	if (!n_samples)
		return cudaSuccess;
	if (!k || n_samples > (size_t)0x7fffffff * (kThreads / kWarp))
		return cudaErrorInvalidValue;
	return gb_dtype_dispatch(t_ab, [&](auto tag) {
		return launch_reference<decltype(tag)>(a, b, k, rc, n_samples, ref, scale, stream);
	});
}

extern "C" cudaError_t gb_launch_gemm_compare(const void *d, enum gb_dtype t_d, uint64_t ldd,
					      const uint32_t *rc, size_t n_samples,
					      const double *ref, const double *scale, double bound,
					      double *got, struct gb_verify_counters *counters,
					      cudaStream_t stream)
{
	if (!n_samples)
		return cudaSuccess;
	if (n_samples > (size_t)0x7fffffff * kThreads)
		return cudaErrorInvalidValue;
	return gb_dtype_dispatch(t_d, [&](auto tag) {
		return launch_compare<decltype(tag)>(d, ldd, rc, n_samples, ref, scale, bound, got,
						     counters, stream);
	});
}
