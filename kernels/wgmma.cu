/* SPDX-License-Identifier: MIT */
/*
 * wgmma.cu - the Hopper FP16/BF16 GEMM (`--impl wgmma`): warpgroup MMA
 * (wgmma.mma_async m64n256k16, FP32 accumulation) on operands that TMA
 * (cp.async.bulk.tensor) brings into shared memory in the 128-byte swizzle
 * layout, through a 4-stage mbarrier pipeline between a producer warpgroup
 * and two consumer warpgroups. Built for sm_90a only (CMakeLists.txt gives
 * this file its own object library with CUDA_ARCHITECTURES 90a-real):
 * wgmma and setmaxnreg exist nowhere else, so the launcher refuses any
 * other device before launching.
 *
 * D = A^T B in the TN layout of own_gemm.h, computed as O = X Y^T with
 * X = B (n rows), Y = A (m rows), both K-major, O[r][c] = D[c + r m]: both
 * wgmma operands are then K-major (no transpose), and each thread's
 * accumulator pairs are adjacent in D.
 *
 *   block       384 threads: warpgroup 0 produces, 1 and 2 consume
 *   tile        128 (n) x 256 (m) of D, k-slices of 64 halves (128 bytes)
 *   producer    one thread: wait until a stage is empty, arm its full
 *               barrier with the stage's bytes (arrive.expect_tx), issue two
 *               TMA loads that complete on it. Out-of-range rows and k read
 *               as zero (TMA's bounds handling), so edge tiles need nothing
 *   consumers   each owns 64 rows of X and all 256 of Y: per slice, wait for
 *               the full barrier, 4 wgmma (k16 each, the descriptor's start
 *               address advanced 32 bytes inside the swizzled row), commit,
 *               then wait until only this slice's group is in flight and
 *               release the previous slice's stage (lane 0 of each warp
 *               arrives on its empty barrier)
 *   registers   setmaxnreg: the producer drops to 24, consumers rise to 240
 *               for their 128 accumulators (24 x 128 + 240 x 256 <= 64K)
 *   epilogue    accumulators rounded to the output type and stored straight
 *               from registers, pairs of adjacent elements, predicated
 *   watchdog    a barrier wait still pending after ~2^35 cycles traps: a
 *               broken pipeline becomes a reported error, not a hung GPU
 * The tensor maps (one per operand) are encoded on the host at each launch
 * with the driver's cuTensorMapEncodeTiled, found at run time: gpubench
 * does not link libcuda.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdint.h>

#include "bench/own_gemm_math.h"
#include "kernels/dtype.cuh"
#include "kernels/own_gemm.h"

namespace {

constexpr int kTileM = GB_WGMMA_TILE_M;  /* rows of Y (m) per block: wgmma N */
constexpr int kTileN = GB_WGMMA_TILE_N;  /* rows of X (n) per block: 2 x wgmma M */
constexpr int kBk = GB_WGMMA_BK;
constexpr int kStages = GB_WGMMA_STAGES;
constexpr int kThreads = GB_WGMMA_THREADS;
constexpr uint32_t kXBytes = kTileN * kBk * 2;   /* 16 KiB */
constexpr uint32_t kYBytes = kTileM * kBk * 2;   /* 32 KiB */
constexpr uint32_t kStageBytes = kXBytes + kYBytes;
/* empty-barrier arrivals per use: lane 0 of each of the 8 consumer warps */
constexpr uint32_t kConsumerWarps = 8;

static_assert(kBk * 2 == 128, "one k-slice row is one 128-byte swizzle row");
static_assert(kXBytes % GB_WGMMA_SMEM_ALIGN == 0 && kYBytes % GB_WGMMA_SMEM_ALIGN == 0,
	      "every tile starts on a swizzle-pattern boundary");

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GB_HAVE_SM90A 1
#else
#define GB_HAVE_SM90A 0
#endif

#if GB_HAVE_SM90A

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* makes the initialised barriers visible to the async proxy (TMA's complete_tx) */
__device__ __forceinline__ void fence_barrier_init()
{
	asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
	asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* one arrival, and `bytes` more transaction bytes the phase waits for */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
		     "r"(bytes)
		     : "memory");
}

__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity)
{
	uint32_t done;

	asm volatile("{\n"
		     ".reg .pred p;\n"
		     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
		     "selp.u32 %0, 1, 0, p;\n"
		     "}\n"
		     : "=r"(done)
		     : "r"(bar), "r"(parity)
		     : "memory");
	return done != 0;
}

/*
 * Until the phase of parity `parity` has completed. A stage takes
 * microseconds; one still pending after ~2^35 cycles (over 15 s) means the
 * pipeline is broken, and a trap (an error the benchmark reports, device
 * lost) beats a GPU that hangs forever. The clock is read only once the
 * first try has failed.
 */
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
	if (mbar_try_wait(bar, parity))
		return;
	const long long t0 = clock64();

	while (!mbar_try_wait(bar, parity))
		if (clock64() - t0 > (1ll << 35))
			__trap();
}

/* TMA: the box at (k0, row0) of `map` into shared memory, completing on `bar` */
__device__ __forceinline__ void tma_load(uint32_t dst, const CUtensorMap *map, uint32_t bar,
					 int k0, int row0)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
		     ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
		     "l"(reinterpret_cast<uint64_t>(map)), "r"(k0), "r"(row0), "r"(bar)
		     : "memory");
}

__device__ __forceinline__ void wgmma_fence()
{
	asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void wgmma_commit()
{
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int kPending>
__device__ __forceinline__ void wgmma_wait()
{
	asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc()
{
	asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec()
{
	asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

/* the 128 accumulators of m64n256 as operands %0..%127 */
#define GB_WGMMA_D \
	"{%0, %1, %2, %3, %4, %5, %6, %7, " \
	"%8, %9, %10, %11, %12, %13, %14, %15, " \
	"%16, %17, %18, %19, %20, %21, %22, %23, " \
	"%24, %25, %26, %27, %28, %29, %30, %31, " \
	"%32, %33, %34, %35, %36, %37, %38, %39, " \
	"%40, %41, %42, %43, %44, %45, %46, %47, " \
	"%48, %49, %50, %51, %52, %53, %54, %55, " \
	"%56, %57, %58, %59, %60, %61, %62, %63, " \
	"%64, %65, %66, %67, %68, %69, %70, %71, " \
	"%72, %73, %74, %75, %76, %77, %78, %79, " \
	"%80, %81, %82, %83, %84, %85, %86, %87, " \
	"%88, %89, %90, %91, %92, %93, %94, %95, " \
	"%96, %97, %98, %99, %100, %101, %102, %103, " \
	"%104, %105, %106, %107, %108, %109, %110, %111, " \
	"%112, %113, %114, %115, %116, %117, %118, %119, " \
	"%120, %121, %122, %123, %124, %125, %126, %127}"

#define GB_WGMMA_D_REGS(d) \
	"+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), \
	"+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
	"+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), \
	"+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
	"+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), \
	"+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
	"+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
	"+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
	"+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), \
	"+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
	"+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), \
	"+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
	"+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), \
	"+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
	"+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), \
	"+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
	"+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), \
	"+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
	"+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), \
	"+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
	"+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
	"+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
	"+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), \
	"+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
	"+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), \
	"+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
	"+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), \
	"+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
	"+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), \
	"+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
	"+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), \
	"+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

/* D += X_tile Y_tile^T for one k16 step; scale-d = 1 (the accumulators start at zero) */
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t dx, uint64_t dy,
						 __nv_bfloat16)
{
	asm volatile("{\n"
		     ".reg .pred p;\n"
		     "setp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " GB_WGMMA_D
		     ", %128, %129, p, 1, 1, 0, 0;\n"
		     "}\n"
		     : GB_WGMMA_D_REGS(d)
		     : "l"(dx), "l"(dy), "r"(1));
}

__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t dx, uint64_t dy,
						 __half)
{
	asm volatile("{\n"
		     ".reg .pred p;\n"
		     "setp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " GB_WGMMA_D
		     ", %128, %129, p, 1, 1, 0, 0;\n"
		     "}\n"
		     : GB_WGMMA_D_REGS(d)
		     : "l"(dx), "l"(dy), "r"(1));
}

#endif /* GB_HAVE_SM90A */

/*
 * __launch_bounds__(384, 1) caps registers at entry (168), which setmaxnreg
 * needs to redistribute them; the shared memory (193 KiB) allows one block
 * per SM anyway.
 */
template <typename T>
__global__ void __launch_bounds__(kThreads, 1)
	wgmma_kernel(const __grid_constant__ CUtensorMap map_x,
		     const __grid_constant__ CUtensorMap map_y, T *__restrict__ out,
		     unsigned rows_x, unsigned rows_y, unsigned k, unsigned tiles_m,
		     unsigned tiles_n)
{
#if GB_HAVE_SM90A
	extern __shared__ __align__(128) unsigned char smem_raw[];
	__shared__ __align__(8) uint64_t full[kStages], empty[kStages];
	/* the 128-byte swizzle is a function of address bits 4-9: tiles start 1024-aligned */
	const uint32_t tiles = (smem_u32(smem_raw) + GB_WGMMA_SMEM_ALIGN - 1) &
			       ~(uint32_t)(GB_WGMMA_SMEM_ALIGN - 1);
	const unsigned t = threadIdx.x, wg = t / 128, tid = t % 128;
	const unsigned n_slices = (k + kBk - 1) / kBk;
	unsigned tm, tn;

	gb_own_gemm_tile_of(blockIdx.x, tiles_m, tiles_n, &tm, &tn);
	const unsigned r0 = tn * kTileN, c0 = tm * kTileM;

	if (t == 0) {
		for (int s = 0; s < kStages; s++) {
			mbar_init(smem_u32(&full[s]), 1);  /* the producer's arrive.expect_tx */
			mbar_init(smem_u32(&empty[s]), kConsumerWarps);
		}
		fence_barrier_init();
	}
	__syncthreads();

	if (wg == 0) {
		/* producer: all 128 threads give registers back, one issues the loads */
		setmaxnreg_dec<24>();
		if (tid == 0) {
			unsigned s = 0, phase = 0;

			for (unsigned sl = 0; sl < n_slices; sl++) {
				const uint32_t xs = tiles + s * kStageBytes, ys = xs + kXBytes;
				const uint32_t fb = smem_u32(&full[s]);

				mbar_wait(smem_u32(&empty[s]), phase);
				/* TMA counts the whole box, zero-filled parts included */
				mbar_arrive_expect_tx(fb, kStageBytes);
				tma_load(xs, &map_x, fb, (int)(sl * kBk), (int)r0);
				tma_load(ys, &map_y, fb, (int)(sl * kBk), (int)c0);
				if (++s == kStages) {
					s = 0;
					phase ^= 1;
				}
			}
		}
	} else {
		setmaxnreg_inc<240>();
		const unsigned cw = wg - 1;  /* X rows cw*64 .. cw*64+63 of the tile */
		const bool signaller = tid % 32 == 0;
		float d[128];
		unsigned s = 0, phase = 0, prev = 0;

#pragma unroll
		for (int i = 0; i < 128; i++)
			d[i] = 0.f;
		/* every stage starts empty: complete phase 0 of each empty barrier */
		if (signaller)
			for (int i = 0; i < kStages; i++)
				mbar_arrive(smem_u32(&empty[i]));
		for (unsigned sl = 0; sl < n_slices; sl++) {
			const uint32_t xs = tiles + s * kStageBytes + cw * 64 * 128, ys =
				tiles + s * kStageBytes + kXBytes;
			const uint64_t dx = gb_wgmma_desc(xs), dy = gb_wgmma_desc(ys);

			mbar_wait(smem_u32(&full[s]), phase);
			wgmma_fence();
#pragma unroll
			/* k16 step kk starts 32 bytes further: +2 in the address >> 4 field */
			for (int kk = 0; kk < kBk / 16; kk++)
				wgmma_m64n256k16(d, dx + 2 * kk, dy + 2 * kk, T());
			wgmma_commit();
			/* slice sl - 1's MMAs are done reading their stage: hand it back */
			wgmma_wait<1>();
			if (sl > 0 && signaller)
				mbar_arrive(smem_u32(&empty[prev]));
			prev = s;
			if (++s == kStages) {
				s = 0;
				phase ^= 1;
			}
		}
		wgmma_wait<0>();

		/* O[r][c] at out[c + r * rows_y]: the pair (c, c + 1) is adjacent */
		const bool pair_ok = rows_y % 2 == 0;

#pragma unroll
		for (int i = 0; i < 128; i += 2) {
			const unsigned r = r0 + cw * 64 + gb_wgmma_acc_row(tid, i);
			const unsigned c = c0 + gb_wgmma_acc_col(tid, i);

			if (r >= rows_x || c >= rows_y)
				continue;
			T *o = out + (size_t)r * rows_y + c;

			if (pair_ok && c + 1 < rows_y) {
				*reinterpret_cast<decltype(gb_pack2(0.f, 0.f, T())) *>(o) =
					gb_pack2(d[i], d[i + 1], T());
			} else {
				o[0] = gb_from_float(d[i], T());
				if (c + 1 < rows_y)
					o[1] = gb_from_float(d[i + 1], T());
			}
		}
	}
#else
	/* not sm_90a: never launched (the launcher checks the device first) */
	(void)map_x, (void)map_y, (void)out, (void)rows_x, (void)rows_y, (void)k, (void)tiles_m,
		(void)tiles_n;
#endif
}

/* cuTensorMapEncodeTiled from the driver, looked up once; NULL when the driver lacks it */
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled()
{
	static PFN_cuTensorMapEncodeTiled_v12000 fn = []() {
		void *p = nullptr;
		cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;

		if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
						     cudaEnableDefault, &q) != cudaSuccess ||
		    q != cudaDriverEntryPointSuccess) {
			(void)cudaGetLastError();  /* not sticky: forget it */
			p = nullptr;
		}
		return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
	}();

	return fn;
}

/*
 * A rows x k K-major operand as 64 x box_rows boxes in the 128-byte swizzle
 * (the layout wgmma's descriptors name); out-of-bounds elements read as 0.
 */
bool make_map(PFN_cuTensorMapEncodeTiled_v12000 encode, CUtensorMap *map, const void *base,
	      CUtensorMapDataType type, uint64_t k, uint64_t rows, uint32_t box_rows)
{
	const cuuint64_t dims[2] = { k, rows };
	const cuuint64_t pitch[1] = { k * 2 };   /* bytes; a multiple of 16 (k % 8 == 0) */
	const cuuint32_t box[2] = { kBk, box_rows };
	const cuuint32_t step[2] = { 1, 1 };

	return encode(map, type, 2, const_cast<void *>(base), dims, pitch, box, step,
		      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
		      CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
		      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

template <typename T>
cudaError_t launch(const CUtensorMap &mx, const CUtensorMap &my, void *d, unsigned m,
		   unsigned n, unsigned k, const struct gb_own_gemm_launch *l, cudaStream_t stream)
{
	auto kernel = wgmma_kernel<T>;
	cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
					     (int)l->smem_bytes);

	if (e != cudaSuccess)
		return e;
	kernel<<<l->grid, l->threads, l->smem_bytes, stream>>>(mx, my, static_cast<T *>(d), n, m, k,
							       l->tiles_m, l->tiles_n);
	return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t gb_launch_gemm_wgmma(const void *a, const void *b, void *d,
					    enum gb_dtype t, uint64_t m, uint64_t n, uint64_t k,
					    cudaStream_t stream)
{
	struct gb_own_gemm_device dev;
	struct gb_own_gemm_launch l;
	PFN_cuTensorMapEncodeTiled_v12000 encode;
	CUtensorMapDataType type = t == GB_DT_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
						   : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
	CUtensorMap mx, my;
	cudaError_t e;

	/* TMA coordinates are 32-bit signed */
	if ((t != GB_DT_F16 && t != GB_DT_BF16) || m > INT32_MAX || n > INT32_MAX ||
	    k > INT32_MAX - GB_WGMMA_BK)
		return cudaErrorInvalidValue;
	if ((e = gb_own_gemm_device_query(&dev)) != cudaSuccess)
		return e;
	/* sm_90a machine code runs on compute capability 9.0 alone (not 9.x, not 10.0) */
	if (dev.cc_major != 9 || dev.cc_minor != 0)
		return cudaErrorNoKernelImageForDevice;
	if (gb_own_gemm_plan(GB_OWN_WGMMA, m, n, k, &dev, &l))
		return cudaErrorInvalidValue;
	encode = encode_tiled();
	if (!encode)
		return cudaErrorNotSupported;
	/* X = B (n rows) in 128-row boxes, Y = A (m rows) in 256-row boxes */
	if (!make_map(encode, &mx, b, type, k, n, kTileN) ||
	    !make_map(encode, &my, a, type, k, m, kTileM))
		return cudaErrorInvalidValue;
	if (t == GB_DT_BF16)
		return launch<__nv_bfloat16>(mx, my, d, (unsigned)m, (unsigned)n, (unsigned)k, &l,
					     stream);
	return launch<__half>(mx, my, d, (unsigned)m, (unsigned)n, (unsigned)k, &l, stream);
}
