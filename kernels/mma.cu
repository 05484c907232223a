/* SPDX-License-Identifier: MIT */
/*
 * mma.cu - the FP16/BF16 tensor-core GEMM with mma.sync (`--impl mma`):
 * sm_80 and later, FP32 accumulation, output rounded to the input type.
 *
 * D = A^T B in the TN layout of own_gemm.h, computed as O = X Y^T with
 * X = B (n rows), Y = A (m rows), both K-major, O[r][c] = D[c + r m]: X is
 * mma's row-major A operand and Y its column-major B operand as they lie in
 * memory, and each thread's accumulator pairs are adjacent in D.
 *
 *   block tile   128 x 128 of O, k-slices of 32 halves (64-byte rows)
 *   warps        8, as 2 (r) x 4 (c), each 64 x 32 = 4 x 4 mma.m16n8k16
 *   pipeline     3 or 4 shared-memory stages filled with cp.async (16 bytes,
 *                L1 bypassed), so the loads of slice s + stages - 1 overlap
 *                the math of slice s; one __syncthreads per slice
 *   fragments    ldmatrix.x4: 4 for X and 2 for Y feed 16 mma per k16 step
 *   banks        the 16-byte chunks of each 64-byte row are XOR-swizzled
 *                with bits 1-2 of the row (gb_mma_smem_offset): the 8 rows an
 *                ldmatrix phase reads hit 8 different bank groups
 * Edges: rows past m or n are clamped to the last row (read, never stored);
 * cp.async's zero-fill (src-size 0) supplies k past the end when k % 8 == 0;
 * other k take a path of element-wise loads (correct, not fast); stores are
 * predicated, in pairs when aligned.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdint.h>

#include "bench/own_gemm_math.h"
#include "kernels/dtype.cuh"
#include "kernels/own_gemm.h"

namespace {

constexpr int kTile = GB_MMA_TILE;
constexpr int kBk = GB_MMA_BK;
constexpr int kThreads = GB_MMA_THREADS;
constexpr unsigned kTileBytes = kTile * kBk * 2;     /* 8 KiB: one operand, one stage */
constexpr unsigned kStageBytes = 2 * kTileBytes;
constexpr int kChunksPerRow = kBk * 2 / 16;           /* 4 chunks of 8 halves */
constexpr int kLoadsPerThread = kTile * kChunksPerRow / kThreads; /* 2 per operand */

static_assert(kLoadsPerThread * kThreads == kTile * kChunksPerRow, "loader covers the tile");

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

/* 16 bytes global -> shared, asynchronously; src_bytes 0 writes zeros and reads nothing */
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src, uint32_t src_bytes)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
		     "r"(src_bytes)
		     : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int kPending>
__device__ __forceinline__ void cp_async_wait()
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(addr));
}

/* one m16n8k16 MMA, FP32 accumulate in place */
__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4],
					 const uint32_t (&b)[2], __nv_bfloat16)
{
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
		     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
		     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4],
					 const uint32_t (&b)[2], __half)
{
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
		     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
		     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/*
 * One operand's slice `slice` into a stage: chunk q = t + i * 256 of the
 * tile is row q / 4, chunk q % 4 (8 halves of k). kVec: cp.async, zeros past
 * k (k % 8 == 0: a chunk is all in or all out). Otherwise 8 guarded 2-byte
 * loads and one 16-byte shared store, synchronous: the barrier at the top of
 * the slice that reads them publishes them all the same.
 */
template <typename T, bool kVec>
__device__ __forceinline__ void load_operand(uint32_t tile, const T *const (&src)[kLoadsPerThread],
					     const uint32_t (&soff)[kLoadsPerThread],
					     const unsigned (&chunk)[kLoadsPerThread],
					     unsigned slice, unsigned k)
{
#pragma unroll
	for (int i = 0; i < kLoadsPerThread; i++) {
		const unsigned kk = slice * kBk + chunk[i] * 8;

		if (kVec) {
			const bool in = kk < k;

			cp_async16(tile + soff[i], in ? src[i] + kk : src[i], in ? 16u : 0u);
		} else {
			const unsigned short *p = reinterpret_cast<const unsigned short *>(src[i]);
			unsigned short h[8];

#pragma unroll
			for (int e = 0; e < 8; e++)
				h[e] = kk + e < k ? p[kk + e] : (unsigned short)0;
			asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n"
				     ::"r"(tile + soff[i]),
				     "r"((uint32_t)h[0] | (uint32_t)h[1] << 16),
				     "r"((uint32_t)h[2] | (uint32_t)h[3] << 16),
				     "r"((uint32_t)h[4] | (uint32_t)h[5] << 16),
				     "r"((uint32_t)h[6] | (uint32_t)h[7] << 16)
				     : "memory");
		}
	}
}

template <typename T, int kStages, bool kVec>
__global__ void __launch_bounds__(kThreads, 2)
	mma_kernel(const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out,
		   unsigned rows_x, unsigned rows_y, unsigned k, unsigned tiles_m, unsigned tiles_n)
{
	extern __shared__ __align__(128) unsigned char smem[];
	const unsigned t = threadIdx.x, warp = t / 32, lane = t % 32;
	const unsigned wr = warp / 4, wc = warp % 4;  /* warp tile: rows wr*64, cols wc*32 */
	const uint32_t base = smem_u32(smem);
	unsigned tm, tn;

	gb_own_gemm_tile_of(blockIdx.x, tiles_m, tiles_n, &tm, &tn);
	const unsigned r0 = tn * kTile, c0 = tm * kTile;

	/* loader state: source rows (clamped inside the matrix) and swizzled offsets */
	const T *srcx[kLoadsPerThread], *srcy[kLoadsPerThread];
	uint32_t soff[kLoadsPerThread];
	unsigned chunk[kLoadsPerThread];

#pragma unroll
	for (int i = 0; i < kLoadsPerThread; i++) {
		const unsigned q = t + i * kThreads, row = q / kChunksPerRow;

		chunk[i] = q % kChunksPerRow;
		soff[i] = gb_mma_smem_offset(row, chunk[i]);
		srcx[i] = x + (size_t)min(r0 + row, rows_x - 1) * k;
		srcy[i] = y + (size_t)min(c0 + row, rows_y - 1) * k;
	}

	float acc[4][4][4];

#pragma unroll
	for (int mi = 0; mi < 4; mi++)
#pragma unroll
		for (int ni = 0; ni < 4; ni++)
#pragma unroll
			for (int e = 0; e < 4; e++)
				acc[mi][ni][e] = 0.f;

	const unsigned n_slices = (k + kBk - 1) / kBk;

	/* prologue: slices 0 .. stages-2 in flight; one commit group per slice, empty or not */
#pragma unroll
	for (int s = 0; s < kStages - 1; s++) {
		if ((unsigned)s < n_slices) {
			const uint32_t st = base + s * kStageBytes;

			load_operand<T, kVec>(st, srcx, soff, chunk, s, k);
			load_operand<T, kVec>(st + kTileBytes, srcy, soff, chunk, s, k);
		}
		cp_async_commit();
	}

	unsigned stage = 0;  /* slice s lives in stage s % kStages */

	for (unsigned s = 0; s < n_slices; s++) {
		/* this thread's copies of slice s are done; the barrier makes everyone's visible
		 * and proves every warp has finished slice s - 1, whose stage is refilled next */
		cp_async_wait<kStages - 2>();
		__syncthreads();
		{
			const unsigned next = s + kStages - 1;
			const unsigned ns = stage == 0 ? kStages - 1 : stage - 1;

			if (next < n_slices) {
				load_operand<T, kVec>(base + ns * kStageBytes, srcx, soff, chunk,
						      next, k);
				load_operand<T, kVec>(base + ns * kStageBytes + kTileBytes, srcy,
						      soff, chunk, next, k);
			}
			cp_async_commit();
		}

		const uint32_t xs = base + stage * kStageBytes, ys = xs + kTileBytes;

#pragma unroll
		for (int ks = 0; ks < kBk / 16; ks++) {
			uint32_t af[4][4], bf[4][2];

			/* X (mma's A): 16 x 16 per ldmatrix.x4; lanes 0-15 rows at k-chunk 0,
			 * lanes 16-31 the same rows at k-chunk 1 -> a0..a3 in mma's order */
#pragma unroll
			for (int mi = 0; mi < 4; mi++) {
				const unsigned row = wr * 64 + mi * 16 + (lane & 15);
				const unsigned ch = ks * 2 + (lane >> 4);

				ldmatrix_x4(af[mi], xs + gb_mma_smem_offset(row, ch));
			}
			/* Y (mma's B, column-major = rows of Y): one ldmatrix.x4 is b0, b1 of two
			 * n8 tiles: lanes 0-7 rows 0-7 chunk 0, 8-15 rows 0-7 chunk 1, 16-23
			 * rows 8-15 chunk 0, 24-31 rows 8-15 chunk 1 */
#pragma unroll
			for (int nj = 0; nj < 2; nj++) {
				const unsigned row =
					wc * 32 + nj * 16 + (lane & 7) + (lane >> 4) * 8;
				const unsigned ch = ks * 2 + ((lane >> 3) & 1);
				uint32_t r[4];

				ldmatrix_x4(r, ys + gb_mma_smem_offset(row, ch));
				bf[2 * nj][0] = r[0];
				bf[2 * nj][1] = r[1];
				bf[2 * nj + 1][0] = r[2];
				bf[2 * nj + 1][1] = r[3];
			}
#pragma unroll
			for (int mi = 0; mi < 4; mi++)
#pragma unroll
				for (int ni = 0; ni < 4; ni++)
					mma16816(acc[mi][ni], af[mi], bf[ni], T());
		}
		stage = stage + 1 == kStages ? 0 : stage + 1;
	}
	/* only empty groups can be pending here, but leave nothing in flight */
	cp_async_wait<0>();

	/* pairs (c, c + 1) are adjacent in D; 4-byte stores when m is even keeps them aligned */
	const bool pair_ok = rows_y % 2 == 0;

#pragma unroll
	for (int mi = 0; mi < 4; mi++) {
#pragma unroll
		for (int ni = 0; ni < 4; ni++) {
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const unsigned r =
					r0 + wr * 64 + mi * 16 + gb_mma_acc_row(lane, 2 * h);
				const unsigned c =
					c0 + wc * 32 + ni * 8 + gb_mma_acc_col(lane, 2 * h);
				const float v0 = acc[mi][ni][2 * h], v1 = acc[mi][ni][2 * h + 1];

				if (r >= rows_x || c >= rows_y)
					continue;
				T *o = out + (size_t)r * rows_y + c;
				if (pair_ok && c + 1 < rows_y) {
					*reinterpret_cast<decltype(gb_pack2(0.f, 0.f, T())) *>(o) =
						gb_pack2(v0, v1, T());
				} else {
					o[0] = gb_from_float(v0, T());
					if (c + 1 < rows_y)
						o[1] = gb_from_float(v1, T());
				}
			}
		}
	}
}

template <typename T, int kStages, bool kVec>
cudaError_t launch(const void *a, const void *b, void *d, unsigned m, unsigned n, unsigned k,
		   const struct gb_own_gemm_launch *l, cudaStream_t stream)
{
	auto kernel = mma_kernel<T, kStages, kVec>;
	cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
					     (int)l->smem_bytes);

	if (e != cudaSuccess)
		return e;
	kernel<<<l->grid, l->threads, l->smem_bytes, stream>>>(
		static_cast<const T *>(b), static_cast<const T *>(a), static_cast<T *>(d), n, m, k,
		l->tiles_m, l->tiles_n);
	return cudaGetLastError();
}

template <typename T>
cudaError_t launch_type(const void *a, const void *b, void *d, unsigned m, unsigned n,
			unsigned k, const struct gb_own_gemm_launch *l, cudaStream_t stream)
{
	if (!l->vector_loads)
		return launch<T, GB_MMA_MIN_STAGES, false>(a, b, d, m, n, k, l, stream);
	if (l->stages == GB_MMA_MAX_STAGES)
		return launch<T, GB_MMA_MAX_STAGES, true>(a, b, d, m, n, k, l, stream);
	return launch<T, GB_MMA_MIN_STAGES, true>(a, b, d, m, n, k, l, stream);
}

} // namespace

extern "C" cudaError_t gb_launch_gemm_mma(const void *a, const void *b, void *d, enum gb_dtype t,
					  uint64_t m, uint64_t n, uint64_t k, cudaStream_t stream)
{
	struct gb_own_gemm_device dev;
	struct gb_own_gemm_launch l;
	cudaError_t e;

	if ((t != GB_DT_F16 && t != GB_DT_BF16) || m > UINT32_MAX || n > UINT32_MAX ||
	    k > UINT32_MAX - GB_MMA_BK)
		return cudaErrorInvalidValue;
	if ((e = gb_own_gemm_device_query(&dev)) != cudaSuccess)
		return e;
	/* mma.sync on bf16 and cp.async: sm_80 */
	if (dev.cc_major < 8)
		return cudaErrorNoKernelImageForDevice;
	if (gb_own_gemm_plan(GB_OWN_MMA, m, n, k, &dev, &l))
		return cudaErrorInvalidValue;
	if (t == GB_DT_BF16)
		return launch_type<__nv_bfloat16>(a, b, d, (unsigned)m, (unsigned)n,
						  (unsigned)k, &l, stream);
	return launch_type<__half>(a, b, d, (unsigned)m, (unsigned)n, (unsigned)k, &l, stream);
}
