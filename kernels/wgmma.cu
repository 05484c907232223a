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
 *   registers   setmaxnreg: the producer drops to 40, consumers rise to 232
 *               for their 128 accumulators (40 x 128 + 232 x 256 = 168 x 384,
 *               CUTLASS's split; see kProducerRegs)
 *   epilogue    accumulators rounded to the output type and stored straight
 *               from registers, pairs of adjacent elements, predicated
 *   watchdog    a barrier wait still pending after ~2^35 cycles traps: a
 *               broken pipeline becomes a reported error, not a hung GPU
 * Every index the kernel computes comes from kernels/wgmma_layout.h, which
 * tests/kernels/test_wgmma_layout.c checks by emulating TMA and wgmma on the CPU.
 *
 * Host side, per device and under that device's lock (several threads may
 * launch, one per GPU): the device's limits are read, the kernels' register
 * count checked and their shared-memory attribute set once; the tensor
 * maps (one per operand), encoded with the driver's cuTensorMapEncodeTiled
 * found at run time (gpubench does not link libcuda), are cached by
 * operand. k % 8 != 0, which TMA cannot address (a row pitch of k halves is
 * not a multiple of 16 bytes), is copied into a padded scratch buffer first.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <mutex>
#include <type_traits>

#include <stdint.h>

#include "kernels/own_gemm_math.h"
#include "kernels/dtype.cuh"
#include "kernels/launch.cuh"
#include "kernels/own_gemm.h"
#include "kernels/ptx.cuh"
#include "kernels/wgmma_layout.h"

namespace {

constexpr int kTileM = GB_WGMMA_TILE_M;  /* rows of Y (m) per block: wgmma N */
constexpr int kTileN = GB_WGMMA_TILE_N;  /* rows of X (n) per block: 2 x wgmma M */
constexpr int kBk = GB_WGMMA_BK;
constexpr int kStages = GB_WGMMA_STAGES;
constexpr int kThreads = GB_WGMMA_THREADS;
constexpr uint32_t kStageBytes = GB_WGMMA_STAGE_BYTES;  /* 48 KiB: X 16, Y 32 */
/* empty-barrier arrivals per use: lane 0 of each of the 8 consumer warps */
constexpr uint32_t kConsumerWarps = 8;

static_assert(kBk * 2 == GB_WGMMA_SWIZZLE_BYTES, "one k-slice row is one 128-byte swizzle row");
static_assert(GB_WGMMA_SWIZZLE_BYTES == 128 && GB_WGMMA_DESC_MODE_128B == 1,
	      "the tensor maps' CU_TENSOR_MAP_SWIZZLE_128B is the descriptors' mode 1");
static_assert(GB_WGMMA_X_BYTES % GB_WGMMA_ATOM_BYTES == 0 &&
		      GB_WGMMA_Y_BYTES % GB_WGMMA_ATOM_BYTES == 0 &&
		      GB_WGMMA_CONSUMER_ROWS * GB_WGMMA_SWIZZLE_BYTES % GB_WGMMA_ATOM_BYTES == 0 &&
		      GB_WGMMA_SMEM_ALIGN % GB_WGMMA_ATOM_BYTES == 0,
	      "every tile starts on a swizzle-pattern boundary (descriptor base offset 0)");
static_assert(kThreads == 3 * 128 && kTileN == 2 * GB_WGMMA_CONSUMER_ROWS,
	      "one producer and two consumer warpgroups of 64 rows of X each");

/*
 * Registers. __launch_bounds__(384, 1) caps the kernel at 65536 / 384
 * rounded down to the allocation unit of 8: 168 per thread at entry, and
 * ptxas allocates exactly that (the consumers' 128 accumulators want more).
 * setmaxnreg then moves registers between warpgroups within the block's
 * 168 x 384 = 64 512: the producer gives back down to 40, the consumers take
 * up to 232 (40 x 128 + 232 x 256 = 64 512, CUTLASS's split for one
 * producer and two consumers). setmaxnreg.inc waits until the pool has the
 * registers, so a split that asks for more than the entry count provides
 * hangs the block: the static_assert checks the arithmetic here, and the
 * launcher checks the count ptxas really gave (cudaFuncGetAttributes) once
 * per device before the first launch. 40 rather than the minimum 24 leaves
 * the producer's loop (addresses, phase, the watchdog's clock) room without
 * spilling, at no cost to the consumers.
 */
constexpr int kEntryRegs = 65536 / kThreads / 8 * 8;
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;
static_assert(kEntryRegs == 168, "__launch_bounds__(384, 1) gives 168 registers a thread");
static_assert(kProducerRegs % 8 == 0 && kConsumerRegs % 8 == 0 && kProducerRegs >= 24 &&
		      kConsumerRegs <= 256,
	      "setmaxnreg takes multiples of 8 in 24..256");
static_assert(kProducerRegs * 128 + kConsumerRegs * 256 <= kEntryRegs * kThreads,
	      "setmaxnreg.inc would wait forever for registers the block does not have");

/* the device code: sm_90a, and the CPU executor's host build (tests/kexec/, GB_KEXEC) */
#if (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)) || \
	defined(GB_KEXEC)
#define GB_HAVE_SM90A 1
#else
#define GB_HAVE_SM90A 0
#endif

#if GB_HAVE_SM90A

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
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
	if (gb_ptx_mbarrier_try_wait_parity(bar, parity))
		return;
	const long long t0 = clock64();

	while (!gb_ptx_mbarrier_try_wait_parity(bar, parity))
		if (clock64() - t0 > (1ll << 35))
			__trap();
}

/* D += X_tile Y_tile^T for one k16 step (kernels/ptx.cuh) */
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t dx, uint64_t dy,
						 __nv_bfloat16)
{
	gb_ptx_wgmma_m64n256k16_bf16(d, dx, dy);
}

__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t dx, uint64_t dy,
						 __half)
{
	gb_ptx_wgmma_m64n256k16_f16(d, dx, dy);
}

#endif /* GB_HAVE_SM90A */

/*
 * __launch_bounds__(384, 1): the register cap at entry (168, kEntryRegs)
 * that setmaxnreg redistributes; the shared memory (193 KiB) allows one
 * block per SM anyway.
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
	const uint32_t tiles = gb_wgmma_tiles_base(smem_u32(smem_raw));
	const unsigned t = threadIdx.x, wg = t / 128, tid = t % 128;
	const unsigned n_slices = (k + kBk - 1) / kBk;
	unsigned tm, tn;

	gb_own_gemm_tile_of(blockIdx.x, tiles_m, tiles_n, &tm, &tn);
	const unsigned r0 = tn * kTileN, c0 = tm * kTileM;

	if (t == 0) {
		for (int s = 0; s < kStages; s++) {
			gb_ptx_mbarrier_init(smem_u32(&full[s]), 1);  /* the producer's arrive.expect_tx */
			gb_ptx_mbarrier_init(smem_u32(&empty[s]), kConsumerWarps);
		}
		gb_ptx_fence_mbarrier_init();
	}
	__syncthreads();

	if (wg == 0) {
		/* producer: all 128 threads give registers back, one issues the loads */
		gb_ptx_setmaxnreg_dec<kProducerRegs>();
		if (tid == 0) {
			unsigned s = 0, phase = 0;

			for (unsigned sl = 0; sl < n_slices; sl++) {
				const uint32_t xs = gb_wgmma_stage_x(tiles, s);
				const uint32_t ys = gb_wgmma_stage_y(tiles, s);
				const uint32_t fb = smem_u32(&full[s]);

				mbar_wait(smem_u32(&empty[s]), phase);
				/* TMA counts the whole box, zero-filled parts included */
				gb_ptx_mbarrier_arrive_expect_tx(fb, kStageBytes);
				gb_ptx_tma_load_2d(xs, &map_x, fb, (int)(sl * kBk), (int)r0);
				gb_ptx_tma_load_2d(ys, &map_y, fb, (int)(sl * kBk), (int)c0);
				if (++s == kStages) {
					s = 0;
					phase ^= 1;
				}
			}
		}
	} else {
		gb_ptx_setmaxnreg_inc<kConsumerRegs>();
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
				gb_ptx_mbarrier_arrive(smem_u32(&empty[i]));
		for (unsigned sl = 0; sl < n_slices; sl++) {
			const uint32_t xs = gb_wgmma_consumer_x(gb_wgmma_stage_x(tiles, s), cw);
			const uint64_t dx = gb_wgmma_desc(xs);
			const uint64_t dy = gb_wgmma_desc(gb_wgmma_stage_y(tiles, s));

			mbar_wait(smem_u32(&full[s]), phase);
			gb_ptx_wgmma_fence();
#pragma unroll
			for (unsigned kk = 0; kk < GB_WGMMA_KSTEPS; kk++)
				wgmma_m64n256k16(d, gb_wgmma_desc_k16(dx, kk),
						 gb_wgmma_desc_k16(dy, kk), T());
			gb_ptx_wgmma_commit_group();
			/* slice sl - 1's MMAs are done reading their stage: hand it back */
			gb_ptx_wgmma_wait_group<1>();
			if (sl > 0 && signaller)
				gb_ptx_mbarrier_arrive(smem_u32(&empty[prev]));
			prev = s;
			if (++s == kStages) {
				s = 0;
				phase ^= 1;
			}
		}
		gb_ptx_wgmma_wait_group<0>();

		/* O[r][c] at out[c + r * rows_y]: the pair (c, c + 1) is adjacent */
#pragma unroll
		for (unsigned i = 0; i < 128; i += 2) {
			const unsigned r =
				r0 + cw * GB_WGMMA_CONSUMER_ROWS + gb_wgmma_acc_row(tid, i);
			const unsigned c = c0 + gb_wgmma_acc_col(tid, i);

			if (r >= rows_x || c >= rows_y)
				continue;
			T *o = out + gb_wgmma_out_index(r, c, rows_y);

			if (gb_wgmma_store_pair(c, rows_y)) {
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

/* ---- host side ---- */

/* a driver function by name (CUDA 12.0 ABI), looked up through the runtime; NULL if absent */
void *driver_fn(const char *name)
{
	void *p = nullptr;
	cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;

	if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) !=
		    cudaSuccess ||
	    q != cudaDriverEntryPointSuccess) {
		(void)cudaGetLastError();  /* not sticky: forget it */
		p = nullptr;
	}
	return p;
}

/* cuTensorMapEncodeTiled, looked up once; NULL when the driver lacks it */
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled()
{
	static const auto fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(
		driver_fn("cuTensorMapEncodeTiled"));

	return fn;
}

/* cuTensorMapReplaceAddress: a cached map moved to another buffer of the same shape */
PFN_cuTensorMapReplaceAddress_v12000 replace_address()
{
	static const auto fn = reinterpret_cast<PFN_cuTensorMapReplaceAddress_v12000>(
		driver_fn("cuTensorMapReplaceAddress"));

	return fn;
}

/*
 * One operand's tensor map: a rows x k K-major matrix at base whose rows
 * are `pitch` elements apart, read in 64 x box_rows boxes in the 128-byte
 * swizzle (the layout wgmma's descriptors name). Elements past k or past
 * rows read as 0 (TMA's bounds handling), so edge tiles, and the pad
 * columns of a padded copy, contribute nothing.
 */
struct MapKey {
	const void *base;
	uint64_t k, rows, pitch;
	uint32_t box_rows;
	CUtensorMapDataType type;
};

bool same_shape(const MapKey &x, const MapKey &y)
{
	return x.k == y.k && x.rows == y.rows && x.pitch == y.pitch && x.box_rows == y.box_rows &&
	       x.type == y.type;
}

bool encode_map(const MapKey &key, CUtensorMap *map)
{
	PFN_cuTensorMapEncodeTiled_v12000 encode = encode_tiled();
	const cuuint64_t dims[2] = { key.k, key.rows };
	const cuuint64_t pitch[1] = { key.pitch * 2 };  /* bytes; a multiple of 16 */
	const cuuint32_t box[2] = { kBk, key.box_rows };
	const cuuint32_t step[2] = { 1, 1 };

	return encode && encode(map, key.type, 2, const_cast<void *>(key.base), dims, pitch, box,
				step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
				CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
				CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/*
 * Encoded maps by (operand, shape, pitch, box, type), direct-mapped. The
 * benchmark rotates A and B through many copies (2x L2 in total), so small
 * shapes cycle through more pointers than there are slots: a miss on a slot
 * that holds the same shape then only swaps the address in.
 */
constexpr unsigned kMapSlots = 64;

struct MapSlot {
	CUtensorMap map;
	MapKey key;
	bool used;
};

unsigned map_slot(const MapKey &key)
{
	uint64_t h = (uint64_t)(uintptr_t)key.base >> 8;

	h ^= key.k * 0x9E3779B97F4A7C15ull ^ key.rows * 0xC2B2AE3D27D4EB4Full ^
	     (uint64_t)key.box_rows << 7 ^ (uint64_t)key.type;
	h ^= h >> 29;
	return (unsigned)(h % kMapSlots);
}

/* what wgmma launches keep on one device between calls; guarded by `lock` */
struct DeviceState {
	std::mutex lock;
	bool have_dev = false;        /* dev read */
	struct gb_own_gemm_device dev = {};
	size_t kernel_smem[2] = {};   /* dynamic shared memory set per kernel (0: not yet) */
	MapSlot maps[kMapSlots] = {};
	void *scratch = nullptr;      /* padded copies of A and B (k % 8 != 0) */
	uint64_t scratch_bytes = 0;
	uint64_t zeroed[3] = {};      /* the m, n, k whose pad columns are zero */
	cudaEvent_t last_use = nullptr; /* after the last work that touched the scratch */
	bool used = false;            /* last_use has been recorded */
};

/* enough for any node; a device beyond it is refused (cudaErrorInvalidDevice) */
constexpr int kMaxDevices = 64;
DeviceState g_devices[kMaxDevices];

/* the current device's limits, read once */
cudaError_t device_limits(DeviceState &st)
{
	cudaError_t e;

	if (st.have_dev)
		return cudaSuccess;
	if ((e = gb_own_gemm_device_query(&st.dev)) != cudaSuccess)
		return e;
	st.have_dev = true;
	return cudaSuccess;
}

/*
 * Once per device and kernel: check the registers ptxas gave against what
 * setmaxnreg redistributes (fewer would hang the block, see kEntryRegs),
 * and allow the dynamic shared memory.
 */
template <typename T>
cudaError_t kernel_ready(DeviceState &st, size_t smem_bytes)
{
	const int which = std::is_same<T, __half>::value ? 0 : 1;
	cudaFuncAttributes fa;
	cudaError_t e;

	if (st.kernel_smem[which] == smem_bytes)
		return cudaSuccess;
	if ((e = cudaFuncGetAttributes(&fa, wgmma_kernel<T>)) != cudaSuccess)
		return e;
	if (fa.numRegs * kThreads < kProducerRegs * 128 + kConsumerRegs * 256)
		return cudaErrorLaunchOutOfResources;
	if ((e = cudaFuncSetAttribute(wgmma_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
				      (int)smem_bytes)) != cudaSuccess)
		return e;
	st.kernel_smem[which] = smem_bytes;
	return cudaSuccess;
}

/* key's map, from the cache or encoded into it; false if the driver refuses the shape */
bool map_for(DeviceState &st, const MapKey &key, CUtensorMap *out)
{
	MapSlot &slot = st.maps[map_slot(key)];
	PFN_cuTensorMapReplaceAddress_v12000 replace = replace_address();

	if (slot.used && same_shape(slot.key, key) && slot.key.base == key.base) {
		*out = slot.map;
		return true;
	}
	if (slot.used && same_shape(slot.key, key) && replace) {
		CUtensorMap map = slot.map;

		if (replace(&map, const_cast<void *>(key.base)) == CUDA_SUCCESS) {
			slot.map = map;
			slot.key = key;
			*out = map;
			return true;
		}
	}
	slot.used = false;
	if (!encode_map(key, &slot.map))
		return false;
	slot.key = key;
	slot.used = true;
	*out = slot.map;
	return true;
}

/*
 * The scratch buffer for a padded m x n x k launch: grown when too small
 * (after any work still reading the old one has finished), zeroed whenever
 * the layout changes so the pad columns are 0. TMA never reads them (the
 * maps' k is the real k), so the zeros are a second guard, not the first.
 */
cudaError_t scratch_for(DeviceState &st, uint64_t m, uint64_t n, uint64_t k,
			cudaStream_t stream)
{
	const uint64_t bytes = gb_wgmma_scratch_bytes(m, n, k);
	cudaError_t e;

	if (bytes > st.scratch_bytes) {
		if (st.used && (e = cudaEventSynchronize(st.last_use)) != cudaSuccess)
			return e;
		if (st.scratch && (e = cudaFree(st.scratch)) != cudaSuccess)
			return e;
		st.scratch = nullptr;
		st.scratch_bytes = 0;
		st.zeroed[0] = st.zeroed[1] = st.zeroed[2] = 0;
		if ((e = cudaMalloc(&st.scratch, bytes)) != cudaSuccess) {
			st.scratch = nullptr;
			return e;
		}
		st.scratch_bytes = bytes;
	}
	if (st.zeroed[0] != m || st.zeroed[1] != n || st.zeroed[2] != k) {
		if ((e = cudaMemsetAsync(st.scratch, 0, bytes, stream)) != cudaSuccess)
			return e;
		st.zeroed[0] = m;
		st.zeroed[1] = n;
		st.zeroed[2] = k;
	}
	return cudaSuccess;
}

/*
 * k % 8 != 0: A and B copied row by row to pitch roundup(k, 8) on `stream`,
 * in the same stream order as the GEMM that reads them (so in its timed
 * region). *y and *x then point at the copies. The scratch is the device's,
 * shared by every stream: the copies first wait for the last launch that
 * used it, on whichever stream that was.
 */
cudaError_t stage_padded(DeviceState &st, const void *a, const void *b, uint64_t m, uint64_t n,
			 uint64_t k, cudaStream_t stream, const void **y, const void **x)
{
	const size_t row = (size_t)k * 2, pitch = (size_t)gb_wgmma_pitch(k) * 2;
	char *base;
	cudaError_t e;

	if (!st.last_use &&
	    (e = cudaEventCreateWithFlags(&st.last_use, cudaEventDisableTiming)) != cudaSuccess) {
		st.last_use = nullptr;
		return e;
	}
	if (st.used && (e = cudaStreamWaitEvent(stream, st.last_use, 0)) != cudaSuccess)
		return e;
	if ((e = scratch_for(st, m, n, k, stream)) != cudaSuccess)
		return e;
	base = static_cast<char *>(st.scratch);
	*y = base;
	*x = base + gb_wgmma_scratch_b_offset(m, k);
	if ((e = cudaMemcpy2DAsync(base, pitch, a, row, row, m, cudaMemcpyDeviceToDevice,
				   stream)) != cudaSuccess)
		return e;
	return cudaMemcpy2DAsync(const_cast<void *>(*x), pitch, b, row, row, n,
				 cudaMemcpyDeviceToDevice, stream);
}

template <typename T>
cudaError_t launch(DeviceState &st, const CUtensorMap &mx, const CUtensorMap &my, void *d,
		   unsigned m, unsigned n, unsigned k, const struct gb_own_gemm_launch *l,
		   cudaStream_t stream)
{
	cudaError_t e = kernel_ready<T>(st, l->smem_bytes);

	if (e != cudaSuccess)
		return e;
	GB_LAUNCH(l->grid, l->threads, l->smem_bytes, stream, wgmma_kernel<T>)(
		mx, my, static_cast<T *>(d), n, m, k, l->tiles_m, l->tiles_n);
	return cudaGetLastError();
}

/* the launch, with st locked */
cudaError_t launch_locked(DeviceState &st, const void *a, const void *b, void *d,
			  enum gb_dtype t, uint64_t m, uint64_t n, uint64_t k, cudaStream_t stream)
{
	const CUtensorMapDataType type = t == GB_DT_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
							 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
	struct gb_own_gemm_launch l;
	const void *x = b, *y = a;
	uint64_t pitch = k;
	CUtensorMap mx, my;
	cudaError_t e, rec;

	if ((e = device_limits(st)) != cudaSuccess)
		return e;
	/* sm_90a machine code runs on compute capability 9.0 alone (not 9.x, not 10.0) */
	if (st.dev.cc_major != 9 || st.dev.cc_minor != 0)
		return cudaErrorNoKernelImageForDevice;
	if (gb_own_gemm_plan(GB_OWN_WGMMA, m, n, k, &st.dev, &l))
		return cudaErrorInvalidValue;
	if (!encode_tiled())
		return cudaErrorNotSupported;
	e = cudaSuccess;
	if (l.padded_k) {
		pitch = gb_wgmma_pitch(k);
		e = stage_padded(st, a, b, m, n, k, stream, &y, &x);
	}
	/* X = B (n rows) in 128-row boxes, Y = A (m rows) in 256-row boxes */
	if (e == cudaSuccess && (!map_for(st, { x, k, n, pitch, kTileN, type }, &mx) ||
				 !map_for(st, { y, k, m, pitch, kTileM, type }, &my)))
		e = cudaErrorInvalidValue;
	if (e == cudaSuccess)
		e = t == GB_DT_BF16 ? launch<__nv_bfloat16>(st, mx, my, d, (unsigned)m, (unsigned)n,
							  (unsigned)k, &l, stream)
				    : launch<__half>(st, mx, my, d, (unsigned)m, (unsigned)n,
						     (unsigned)k, &l, stream);
	/* whatever reached the stream (copies, the kernel) is what the next user waits for */
	if (l.padded_k && st.last_use) {
		rec = cudaEventRecord(st.last_use, stream);
		if (rec == cudaSuccess)
			st.used = true;
		else if (e == cudaSuccess)
			e = rec;
	}
	return e;
}

/* *first = e unless an earlier error is there */
void keep_first(cudaError_t *first, cudaError_t e)
{
	if (*first == cudaSuccess)
		*first = e;
}

/* the calling thread's current device's state; NULL beyond kMaxDevices */
DeviceState *current_state(cudaError_t *e)
{
	int id = 0;

	if ((*e = cudaGetDevice(&id)) != cudaSuccess)
		return nullptr;
	if (id < 0 || id >= kMaxDevices) {
		*e = cudaErrorInvalidDevice;
		return nullptr;
	}
	return &g_devices[id];
}

} // namespace

extern "C" cudaError_t gb_launch_gemm_wgmma(const void *a, const void *b, void *d,
					    enum gb_dtype t, uint64_t m, uint64_t n, uint64_t k,
					    cudaStream_t stream)
{
	DeviceState *st;
	cudaError_t e;

	/* refused before any CUDA call; TMA coordinates are 32-bit signed */
	if ((t != GB_DT_F16 && t != GB_DT_BF16) || !m || !n || !k || m > INT32_MAX ||
	    n > INT32_MAX || k > INT32_MAX - GB_WGMMA_BK)
		return cudaErrorInvalidValue;
	if (!(st = current_state(&e)))
		return e;
	std::lock_guard<std::mutex> hold(st->lock);
	return launch_locked(*st, a, b, d, t, m, n, k, stream);
}

extern "C" cudaError_t gb_wgmma_release(void)
{
	DeviceState *st;
	cudaError_t e, first = cudaSuccess;

	if (!(st = current_state(&e)))
		return e;
	std::lock_guard<std::mutex> hold(st->lock);
	/* the scratch goes only once nothing can read it any more */
	if (st->used)
		keep_first(&first, cudaEventSynchronize(st->last_use));
	if (st->last_use)
		keep_first(&first, cudaEventDestroy(st->last_use));
	if (st->scratch)
		keep_first(&first, cudaFree(st->scratch));
	st->have_dev = false;
	st->kernel_smem[0] = st->kernel_smem[1] = 0;
	for (MapSlot &slot : st->maps)
		slot.used = false;
	st->scratch = nullptr;
	st->scratch_bytes = 0;
	st->zeroed[0] = st->zeroed[1] = st->zeroed[2] = 0;
	st->last_use = nullptr;
	st->used = false;
	return first;
}
