/* SPDX-License-Identifier: MIT */
/*
 * sgemm.cu - the optimised FP32 SGEMM on CUDA cores (`--impl sgemm`).
 *
 * D = A^T B in the TN layout of own_gemm.h, computed as O = X Y^T with
 * X = B (n rows), Y = A (m rows), both K-major, O[r][c] = D[c + r m]
 * (kernels/own_gemm_math.h says why). The design is the one of siboehm's
 * warptiled kernel and of the classic 128 x 128 x 8 SGEMMs that reach
 * cuBLAS, each step there for a reason:
 *   block tiling     a 128 x 128 tile of O per 256-thread block: each element
 *                    of a staged k-slice is read 128 times from shared memory
 *   register tiling  8 x 8 outputs per thread: 16 shared loads feed 64 FMAs
 *   warp tiling      warps own 32 x 64 sub-tiles, lanes two 4 x 4 blocks 16
 *                    rows and 32 columns apart: every shared float4 a warp
 *                    reads is a broadcast or one of 8 consecutive ones
 *   16-byte loads    float4 along k from global memory (k a multiple of 4),
 *                    float4 reads from shared memory and float4 stores of D
 *   transposed smem  the slices are stored k-major (X^T, Y^T) so the inner
 *                    loop reads rows of 128 consecutive floats, padded by 4
 *                    floats so the transposing stores hit 32 different banks
 *   double buffering the next k-slice is loaded into registers while this
 *                    one is computed, then stored to the other buffer: one
 *                    __syncthreads per slice
 * Edges: rows past m or n are clamped to the last row (read, computed,
 * never stored) so the k loop has no row tests; k past the end reads as 0;
 * stores are predicated. k not a multiple of 4 uses scalar loads.
 */
#include <cuda_runtime.h>

#include <stdint.h>

#include "kernels/own_gemm_math.h"
#include "kernels/launch.cuh"
#include "kernels/own_gemm.h"

namespace {

constexpr int kTile = GB_SGEMM_TILE;
constexpr int kBk = GB_SGEMM_BK;
constexpr int kThreads = GB_SGEMM_THREADS;
constexpr int kLd = GB_SGEMM_TILE + GB_SGEMM_PAD;

static_assert(kThreads * 4 == kTile * kBk, "one float4 of X and of Y per thread per slice");

/* 16 bytes of row `row` at k..k+3; zeros past k_end */
template <bool kVec>
__device__ __forceinline__ float4 load4(const float *__restrict__ row, unsigned k, unsigned k_end)
{
	if (kVec) /* k_end % 4 == 0, so k..k+3 are all in or all out */
		return k < k_end ? *reinterpret_cast<const float4 *>(row + k)
				 : make_float4(0.f, 0.f, 0.f, 0.f);
	return make_float4(k < k_end ? row[k] : 0.f, k + 1 < k_end ? row[k + 1] : 0.f,
			   k + 2 < k_end ? row[k + 2] : 0.f, k + 3 < k_end ? row[k + 3] : 0.f);
}

/* the transposing store: element e of the float4 goes to k-row kq + e, column `col` */
__device__ __forceinline__ void store_t(float (*s)[kLd], unsigned kq, unsigned col, float4 v)
{
	s[kq + 0][col] = v.x;
	s[kq + 1][col] = v.y;
	s[kq + 2][col] = v.z;
	s[kq + 3][col] = v.w;
}

template <bool kVec>
__global__ void __launch_bounds__(kThreads, 2)
	sgemm_kernel(const float *__restrict__ x, const float *__restrict__ y,
		     float *__restrict__ out, unsigned rows_x, unsigned rows_y, unsigned k,
		     unsigned tiles_m, unsigned tiles_n)
{
	__shared__ __align__(16) float xs[2][kBk][kLd];
	__shared__ __align__(16) float ys[2][kBk][kLd];
	const unsigned t = threadIdx.x;
	unsigned tm, tn;

	gb_own_gemm_tile_of(blockIdx.x, tiles_m, tiles_n, &tm, &tn);
	const unsigned r0 = tn * kTile, c0 = tm * kTile;

	/* loader: thread t brings row t/2, k-quad (t%2)*4 of each slice of X and of Y */
	const unsigned lrow = t / 2, kq = (t % 2) * 4;
	const unsigned rx = min(r0 + lrow, rows_x - 1), ry = min(c0 + lrow, rows_y - 1);
	const float *px = x + (size_t)rx * k;
	const float *py = y + (size_t)ry * k;

	/* compute: this thread's rows and columns inside the tile (see gb_sgemm_row/col) */
	const unsigned rb = gb_sgemm_row(t, 0), cb = gb_sgemm_col(t, 0);
	const unsigned n_slices = (k + kBk - 1) / kBk;
	float acc[8][8];

#pragma unroll
	for (int i = 0; i < 8; i++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			acc[i][j] = 0.f;

	float4 vx = load4<kVec>(px, kq, k), vy = load4<kVec>(py, kq, k);

	store_t(xs[0], kq, lrow, vx);
	store_t(ys[0], kq, lrow, vy);
	__syncthreads();
	for (unsigned s = 0; s < n_slices; s++) {
		const unsigned buf = s & 1;
		const bool more = s + 1 < n_slices;

		/* in flight while this slice is computed */
		if (more) {
			vx = load4<kVec>(px, (s + 1) * kBk + kq, k);
			vy = load4<kVec>(py, (s + 1) * kBk + kq, k);
		}
#pragma unroll
		for (int l = 0; l < kBk; l++) {
			float fx[8], fy[8];
			float4 v;

			v = *reinterpret_cast<const float4 *>(&xs[buf][l][rb]);
			fx[0] = v.x, fx[1] = v.y, fx[2] = v.z, fx[3] = v.w;
			v = *reinterpret_cast<const float4 *>(&xs[buf][l][rb + 16]);
			fx[4] = v.x, fx[5] = v.y, fx[6] = v.z, fx[7] = v.w;
			v = *reinterpret_cast<const float4 *>(&ys[buf][l][cb]);
			fy[0] = v.x, fy[1] = v.y, fy[2] = v.z, fy[3] = v.w;
			v = *reinterpret_cast<const float4 *>(&ys[buf][l][cb + 32]);
			fy[4] = v.x, fy[5] = v.y, fy[6] = v.z, fy[7] = v.w;
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] = fmaf(fx[i], fy[j], acc[i][j]);
		}
		/*
		 * The other buffer was last read in slice s - 1, and every thread
		 * passed the barrier that ended it; the barrier below publishes
		 * these stores before slice s + 1 reads them.
		 */
		if (more) {
			store_t(xs[buf ^ 1], kq, lrow, vx);
			store_t(ys[buf ^ 1], kq, lrow, vy);
		}
		__syncthreads();
	}

	/* D column r is row r of O: float4 stores along m when m % 4 == 0 keeps them aligned */
	const bool vec_out = rows_y % 4 == 0;

#pragma unroll
	for (int i = 0; i < 8; i++) {
		const unsigned r = r0 + gb_sgemm_row(t, i);

		if (r >= rows_x)
			continue;
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const unsigned c = c0 + gb_sgemm_col(t, 4 * h);
			float *o = out + (size_t)r * rows_y + c;

			if (vec_out && c + 3 < rows_y) {
				const float *v = &acc[i][4 * h];
				float4 *o4 = reinterpret_cast<float4 *>(o);

				*o4 = make_float4(v[0], v[1], v[2], v[3]);
			} else {
#pragma unroll
				for (int e = 0; e < 4; e++)
					if (c + e < rows_y)
						o[e] = acc[i][4 * h + e];
			}
		}
	}
}

} // namespace

extern "C" cudaError_t gb_launch_sgemm(const float *a, const float *b, float *d, uint64_t m,
				       uint64_t n, uint64_t k, cudaStream_t stream)
{
	struct gb_own_gemm_device dev = { 0, 0, 0, 0 };  /* static shared memory only */
	struct gb_own_gemm_launch l;

	if (m > UINT32_MAX || n > UINT32_MAX || k > UINT32_MAX - GB_SGEMM_BK ||
	    gb_own_gemm_plan(GB_OWN_SGEMM, m, n, k, &dev, &l))
		return cudaErrorInvalidValue;
	if (l.vector_loads)
		GB_LAUNCH(l.grid, l.threads, 0, stream, sgemm_kernel<true>)(
			b, a, d, (unsigned)n, (unsigned)m, (unsigned)k, l.tiles_m, l.tiles_n);
	else
		GB_LAUNCH(l.grid, l.threads, 0, stream, sgemm_kernel<false>)(
			b, a, d, (unsigned)n, (unsigned)m, (unsigned)k, l.tiles_m, l.tiles_n);
	return cudaGetLastError();
}
