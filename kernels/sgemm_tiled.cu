/* SPDX-License-Identifier: MIT */
/*
 * sgemm_tiled.cu - the textbook shared-memory tiled SGEMM (`--impl tiled`):
 * the reference point the optimised kernels are measured from, kept plain.
 *
 * D = A^T B, A k x m and B k x n column-major (lda = ldb = k), D m x n
 * column-major (see own_gemm.h). A block of 32 x 32 threads computes a
 * 32 x 32 tile of D, one output per thread, walking k in slices of 32: each
 * slice of A^T and of B is staged in shared memory once and read 32 times
 * from there, which cuts global traffic 32-fold against the naive kernel.
 * What it lacks (register blocking, vector loads, double buffering) is what
 * sgemm.cu adds; docs/kernels.md compares them.
 */
#include <cuda_runtime.h>

#include <stdint.h>

#include "kernels/own_gemm_math.h"
#include "kernels/launch.cuh"
#include "kernels/own_gemm.h"

namespace {

constexpr int kTile = GB_TILED_TILE;

/*
 * Thread (tx, ty) computes D[i, j] with i = tile_m * 32 + tx (consecutive
 * threads of a warp write consecutive elements of a D column: coalesced)
 * and j = tile_n * 32 + ty.
 */
__global__ void __launch_bounds__(kTile * kTile)
	sgemm_tiled_kernel(const float *__restrict__ a, const float *__restrict__ b,
			   float *__restrict__ d, unsigned m, unsigned n, unsigned k)
{
	/*
	 * as[i][l] = A^T[i, l]. The inner loop reads as[tx][l]: 32 lanes, rows
	 * 33 floats apart, land in 32 different banks; unpadded (32 apart) all
	 * would hit one bank. bs[ty][l] is the same address for a whole warp
	 * (a broadcast) and needs no padding.
	 */
	__shared__ float as[kTile][kTile + 1];
	__shared__ float bs[kTile][kTile];
	unsigned tx = threadIdx.x, ty = threadIdx.y;
	unsigned i0 = blockIdx.x * kTile, j0 = blockIdx.y * kTile;
	unsigned i = i0 + tx, j = j0 + ty;
	float acc = 0.0f;

	for (unsigned l0 = 0; l0 < k; l0 += kTile) {
		unsigned l = l0 + tx;

		/* lanes read consecutive l of one A^T row / B column: coalesced. Outside
		 * the matrix: zero, which adds nothing to the dot products. */
		as[ty][tx] = i0 + ty < m && l < k ? a[(size_t)(i0 + ty) * k + l] : 0.0f;
		bs[ty][tx] = j0 + ty < n && l < k ? b[(size_t)(j0 + ty) * k + l] : 0.0f;
		__syncthreads();
#pragma unroll 8
		for (int ll = 0; ll < kTile; ll++)
			acc = fmaf(as[tx][ll], bs[ty][ll], acc);
		/* nobody overwrites the tiles while another warp still reads them */
		__syncthreads();
	}
	if (i < m && j < n)
		d[i + (size_t)j * m] = acc;
}

} // namespace

extern "C" cudaError_t gb_launch_sgemm_tiled(const float *a, const float *b, float *d,
					     uint64_t m, uint64_t n, uint64_t k,
					     cudaStream_t stream)
{
	struct gb_own_gemm_device dev = { 0, 0, 0, 0 };
	struct gb_own_gemm_launch l;

	/* the kernel indexes with 32-bit rows and columns; gemm caps dimensions at 2^18 */
	if (m > UINT32_MAX || n > UINT32_MAX || k > UINT32_MAX ||
	    gb_own_gemm_plan(GB_OWN_TILED, m, n, k, &dev, &l))
		return cudaErrorInvalidValue;
	if (l.tiles_n > 65535)
		return cudaErrorInvalidValue;
	GB_LAUNCH(dim3(l.tiles_m, l.tiles_n), dim3(kTile, kTile), 0, stream, sgemm_tiled_kernel)(
		a, b, d, (unsigned)m, (unsigned)n, (unsigned)k);
	return cudaGetLastError();
}
