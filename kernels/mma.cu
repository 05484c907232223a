/* SPDX-License-Identifier: MIT */
/*
 * mma.cu - the FP16/BF16 tensor-core GEMM with mma.sync (`--impl mma`):
 * sm_80 and later, FP32 accumulation, output rounded to the input type.
 * Compiled for every architecture of the build; for those before sm_80 the
 * kernel is a trap and the launcher answers cudaErrorNoKernelImageForDevice.
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
 *   indices      every index (loader, swizzle, stage ring, ldmatrix rows,
 *                register routing, epilogue) comes from kernels/mma_layout.h,
 *                which tests/kernels/test_mma_layout.c checks against an emulation of
 *                ldmatrix and mma.m16n8k16 over whole tiles, without a GPU
 * Edges: rows past m or n are clamped to the last row (read, never stored);
 * cp.async's zero-fill (src-size 0) supplies k past the end when k % 8 == 0;
 * other k take a path of element-wise loads (correct, not fast); stores are
 * predicated, in pairs when aligned.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <stdint.h>

#include "kernels/own_gemm_math.h"
#include "kernels/dtype.cuh"
#include "kernels/launch.cuh"
#include "kernels/mma_layout.h"
#include "kernels/own_gemm.h"
#include "kernels/ptx.cuh"

namespace {

constexpr int kThreads = GB_MMA_THREADS;
constexpr unsigned kStageBytes = GB_MMA_STAGE_BYTES;

static_assert(GB_MMA_LOADS * GB_MMA_THREADS == GB_MMA_TILE * GB_MMA_CHUNKS,
	      "loader covers the tile");
static_assert(GB_MMA_MI * GB_MMA_NI * 4 * 32 * (GB_MMA_THREADS / 32) ==
		      GB_MMA_TILE * GB_MMA_TILE,
	      "warps cover the tile");

/*
 * cp.async and mma.sync m16n8k16 (f16 and bf16) need sm_80. The build's older
 * targets (sm_75) compile mma_kernel as a trap, without the helpers below,
 * only so that this file builds for every architecture; gb_launch_gemm_mma
 * refuses such devices before launching. The host pass sees everything.
 */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define GB_MMA_DEVICE_CODE 0
#else
#define GB_MMA_DEVICE_CODE 1
#endif

#if GB_MMA_DEVICE_CODE
constexpr int kLoadsPerThread = GB_MMA_LOADS; /* 2 chunks per operand */

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

/* 16 bytes global -> shared, asynchronously; src_bytes 0 writes zeros and reads nothing */
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src, uint32_t src_bytes)
{
	gb_ptx_cp_async16(dst, src, src_bytes);
}

__device__ __forceinline__ void cp_async_commit()
{
	gb_ptx_cp_async_commit();
}

template <int kPending>
__device__ __forceinline__ void cp_async_wait()
{
	gb_ptx_cp_async_wait<kPending>();
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
	gb_ptx_ldmatrix_x4(r, addr);
}

/* one m16n8k16 MMA, FP32 accumulate in place */
__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4],
					 const uint32_t (&b)[2], __nv_bfloat16)
{
	gb_ptx_mma_m16n8k16_bf16(c, a, b);
}

__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4],
					 const uint32_t (&b)[2], __half)
{
	gb_ptx_mma_m16n8k16_f16(c, a, b);
}

/*
 * One operand's slice `slice` into a stage: this thread's chunks (8 halves
 * of k each; row and chunk from gb_mma_load_row/_chunk, slot soff from the
 * swizzle). kVec: cp.async, zeros past k (k % 8 == 0: a chunk is all in or
 * all out). Otherwise 8 guarded 2-byte loads and one 16-byte shared store,
 * synchronous: the barrier at the top of the slice that reads them
 * publishes them all the same.
 */
template <typename T, bool kVec>
__device__ __forceinline__ void load_operand(uint32_t tile, const T *const (&src)[kLoadsPerThread],
					     const uint32_t (&soff)[kLoadsPerThread],
					     const unsigned (&chunk)[kLoadsPerThread],
					     unsigned slice, unsigned k)
{
#pragma unroll
	for (int i = 0; i < kLoadsPerThread; i++) {
		const unsigned kk = gb_mma_load_k(slice, chunk[i]);

		if (kVec) {
			const bool in = kk < k;

			cp_async16(tile + soff[i], in ? src[i] + kk : src[i], in ? 16u : 0u);
		} else {
			const unsigned short *p = reinterpret_cast<const unsigned short *>(src[i]);
			unsigned short h[8];

#pragma unroll
			for (int e = 0; e < 8; e++)
				h[e] = kk + e < k ? p[kk + e] : (unsigned short)0;
			gb_ptx_st_shared_v4(tile + soff[i], (uint32_t)h[0] | (uint32_t)h[1] << 16,
					    (uint32_t)h[2] | (uint32_t)h[3] << 16,
					    (uint32_t)h[4] | (uint32_t)h[5] << 16,
					    (uint32_t)h[6] | (uint32_t)h[7] << 16);
		}
	}
}
#endif /* GB_MMA_DEVICE_CODE */

template <typename T, int kStages, bool kVec>
__global__ void __launch_bounds__(kThreads, 2)
	mma_kernel(const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out,
		   unsigned rows_x, unsigned rows_y, unsigned k, unsigned tiles_m, unsigned tiles_n)
{
#if !GB_MMA_DEVICE_CODE
	/* never launched (see GB_MMA_DEVICE_CODE); were it run, it fails loudly rather
	 * than leave D unwritten */
	__trap();
#else
	extern __shared__ __align__(128) unsigned char smem[];
	const unsigned t = threadIdx.x, warp = t / 32, lane = t % 32;
	const uint32_t base = smem_u32(smem);
	unsigned r0, c0;

	gb_mma_block_origin(blockIdx.x, tiles_m, tiles_n, &r0, &c0);

	/* loader state: source rows (clamped inside the matrix) and swizzled offsets */
	const T *srcx[kLoadsPerThread], *srcy[kLoadsPerThread];
	uint32_t soff[kLoadsPerThread];
	unsigned chunk[kLoadsPerThread];

#pragma unroll
	for (int i = 0; i < kLoadsPerThread; i++) {
		const unsigned row = gb_mma_load_row(t, i);

		chunk[i] = gb_mma_load_chunk(t, i);
		soff[i] = gb_mma_smem_offset(row, chunk[i]);
		srcx[i] = x + (size_t)gb_mma_src_row(r0, row, rows_x) * k;
		srcy[i] = y + (size_t)gb_mma_src_row(c0, row, rows_y) * k;
	}

	float acc[GB_MMA_MI][GB_MMA_NI][4];

#pragma unroll
	for (int mi = 0; mi < GB_MMA_MI; mi++)
#pragma unroll
		for (int ni = 0; ni < GB_MMA_NI; ni++)
#pragma unroll
			for (int e = 0; e < 4; e++)
				acc[mi][ni][e] = 0.f;

	const unsigned n_slices = (k + GB_MMA_BK - 1) / GB_MMA_BK;

	/* prologue: slices 0 .. stages-2 in flight; one commit group per slice, empty or not */
#pragma unroll
	for (int s = 0; s < kStages - 1; s++) {
		if ((unsigned)s < n_slices) {
			load_operand<T, kVec>(base + gb_mma_stage_x(s), srcx, soff, chunk, s, k);
			load_operand<T, kVec>(base + gb_mma_stage_y(s), srcy, soff, chunk, s, k);
		}
		cp_async_commit();
	}

	unsigned stage = 0;  /* slice s lives in stage s % kStages (gb_mma_stage_next) */

	for (unsigned s = 0; s < n_slices; s++) {
		/* this thread's copies of slice s are done; the barrier makes everyone's visible
		 * and proves every warp has finished slice s - 1, whose stage is refilled next */
		cp_async_wait<GB_MMA_WAIT_PENDING(kStages)>();
		__syncthreads();
		{
			const unsigned next = s + kStages - 1;
			const unsigned ns = gb_mma_stage_refill(stage, kStages);

			if (next < n_slices) {
				load_operand<T, kVec>(base + gb_mma_stage_x(ns), srcx, soff, chunk,
						      next, k);
				load_operand<T, kVec>(base + gb_mma_stage_y(ns), srcy, soff, chunk,
						      next, k);
			}
			cp_async_commit();
		}

		const uint32_t xs = base + gb_mma_stage_x(stage), ys = base + gb_mma_stage_y(stage);

#pragma unroll
		for (int ks = 0; ks < GB_MMA_KSTEPS; ks++) {
			uint32_t af[GB_MMA_MI][4], bf[GB_MMA_NI][2];

			/* X (mma's A): one ldmatrix.x4 is a whole m16k16 A fragment */
#pragma unroll
			for (int mi = 0; mi < GB_MMA_MI; mi++)
				ldmatrix_x4(af[mi], xs + gb_mma_ldsm_x(warp, mi, ks, lane));
			/* Y (mma's B): one ldmatrix.x4 is the B fragments of two n8 tiles */
#pragma unroll
			for (int nj = 0; nj < GB_MMA_NI / 2; nj++) {
				uint32_t r[4];

				ldmatrix_x4(r, ys + gb_mma_ldsm_y(warp, nj, ks, lane));
#pragma unroll
				for (int j = 0; j < 4; j++)
					bf[gb_mma_ldsm_y_tile(nj, j)][gb_mma_ldsm_y_reg(j)] = r[j];
			}
#pragma unroll
			for (int mi = 0; mi < GB_MMA_MI; mi++)
#pragma unroll
				for (int ni = 0; ni < GB_MMA_NI; ni++)
					mma16816(acc[mi][ni], af[mi], bf[ni], T());
		}
		stage = gb_mma_stage_next(stage, kStages);
	}
	/* only empty groups can be pending here, but leave nothing in flight */
	cp_async_wait<0>();

	/* pairs (c, c + 1) are adjacent in D: one 4-byte store when m is even keeps them aligned */
	const bool pair_ok = gb_mma_pair_aligned(rows_y);

#pragma unroll
	for (int mi = 0; mi < GB_MMA_MI; mi++) {
#pragma unroll
		for (int ni = 0; ni < GB_MMA_NI; ni++) {
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const unsigned r = r0 + gb_mma_out_row(warp, mi, lane, 2 * h);
				const unsigned c = c0 + gb_mma_out_col(warp, ni, lane, 2 * h);
				const unsigned n_out = gb_mma_out_count(r, c, rows_x, rows_y);
				const float v0 = acc[mi][ni][2 * h], v1 = acc[mi][ni][2 * h + 1];

				if (n_out == 0)
					continue;
				T *o = out + (size_t)r * rows_y + c;
				if (pair_ok && n_out == 2) {
					*reinterpret_cast<decltype(gb_pack2(0.f, 0.f, T())) *>(o) =
						gb_pack2(v0, v1, T());
				} else {
					o[0] = gb_from_float(v0, T());
					if (n_out == 2)
						o[1] = gb_from_float(v1, T());
				}
			}
		}
	}
#endif
}

/*
 * More than 48 KiB of dynamic shared memory needs cudaFuncSetAttribute, a
 * setting of the function on the current device and a driver call; made
 * before every launch it adds host time that small GEMMs feel. Each kernel
 * instance sets it once per device instead. Several host threads (one per
 * GPU) may launch at once: the flags are atomics, and two threads that race
 * on one device both make the same call, which is harmless. Devices past
 * kMaxCachedDevices make it at every launch. (cudaDeviceReset would drop
 * the setting; gpubench never calls it.)
 */
constexpr int kMaxCachedDevices = 64;

template <typename T, int kStages, bool kVec>
cudaError_t set_smem_once(int bytes)
{
	static std::atomic<bool> done[kMaxCachedDevices];
	int dev = 0;
	cudaError_t e = cudaGetDevice(&dev);

	if (e != cudaSuccess)
		return e;
	if (dev >= 0 && dev < kMaxCachedDevices && done[dev].load(std::memory_order_acquire))
		return cudaSuccess;
	e = cudaFuncSetAttribute(mma_kernel<T, kStages, kVec>,
				 cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
	if (e == cudaSuccess && dev >= 0 && dev < kMaxCachedDevices)
		done[dev].store(true, std::memory_order_release);
	return e;
}

template <typename T, int kStages, bool kVec>
cudaError_t launch(const void *a, const void *b, void *d, unsigned m, unsigned n, unsigned k,
		   const struct gb_own_gemm_launch *l, cudaStream_t stream)
{
	/* the attribute is set once for this instance's size, which the plan must match */
	constexpr size_t kSmemBytes = (size_t)kStages * kStageBytes;
	cudaError_t e;

	if (l->smem_bytes != kSmemBytes)
		return cudaErrorInvalidValue;
	if ((e = set_smem_once<T, kStages, kVec>((int)kSmemBytes)) != cudaSuccess)
		return e;
	GB_LAUNCH(l->grid, l->threads, l->smem_bytes, stream, mma_kernel<T, kStages, kVec>)(
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
	/* mma.sync on bf16 and cp.async: sm_80 (the kernel built for sm_75 only traps) */
	if (dev.cc_major < 8)
		return cudaErrorNoKernelImageForDevice;
	if (gb_own_gemm_plan(GB_OWN_MMA, m, n, k, &dev, &l))
		return cudaErrorInvalidValue;
	if (t == GB_DT_BF16)
		return launch_type<__nv_bfloat16>(a, b, d, (unsigned)m, (unsigned)n,
						  (unsigned)k, &l, stream);
	return launch_type<__half>(a, b, d, (unsigned)m, (unsigned)n, (unsigned)k, &l, stream);
}
