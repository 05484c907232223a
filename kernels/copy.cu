/* SPDX-License-Identifier: MIT */
/*
 * copy.cu - the device side of `gpubench bandwidth` and `gpubench p2p`:
 * the stream blocker, pattern fill and verify, SM copy kernels (one-way and
 * split-warp two-way), STREAM and the pointer chase. See copy.h.
 *
 * Every bulk kernel walks the buffer as 16-byte words with a grid-stride
 * loop over a grid sized to stay resident on the SMs of the device (6 blocks
 * of 256 per SM from sm_80 on, which hold 1536 or 2048 threads; 4 on sm_75,
 * which holds 1024), so a copy never waits on a second wave of blocks and
 * the tail stays short. The per-element arithmetic (pattern words, STREAM
 * values) is in copy_hd.h, shared with the simulator.
 */
#include "copy.h"

#include <atomic>

#include "kernels/pattern_hd.h"
#include "copy_hd.h"
#include "launch.cuh"
#include "ptx.cuh"

namespace {

constexpr int kThreads = 256;
/* 6 x 256 = 1536 threads: resident on sm_89 and sm_120 (1536 max) as well as
 * sm_80/90/100 (2048); sm_75 (1024 max) gets fewer, see resident_blocks_per_sm */
constexpr int kBlocksPerSm = 6;
/* loads in flight per thread before the stores: hides DRAM and PCIe read latency */
constexpr int kUnroll = 4;
/* devices whose resident block count is cached; later ones ask at every launch */
constexpr int kMaxCachedDevices = 64;

/*
 * Blocks of kThreads that one SM of the current device holds at once, at
 * most kBlocksPerSm (so 6 from sm_80 on, 4 on sm_75). Every launch asks, so
 * the answer is cached per device. If the device cannot be asked, the launch
 * that follows fails the same way and its cudaGetLastError says so.
 */
int resident_blocks_per_sm()
{
	static std::atomic<int> cached[kMaxCachedDevices];
	int dev = 0, threads = 0, blocks;

	if (cudaGetDevice(&dev) != cudaSuccess)
		return kBlocksPerSm;
	const bool cacheable = dev >= 0 && dev < kMaxCachedDevices;

	if (cacheable && (blocks = cached[dev].load(std::memory_order_relaxed)) > 0)
		return blocks;
	if (cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev) !=
	    cudaSuccess)
		return kBlocksPerSm;
	blocks = threads / kThreads;
	blocks = blocks < 1 ? 1 : blocks > kBlocksPerSm ? kBlocksPerSm : blocks;
	if (cacheable)
		cached[dev].store(blocks, std::memory_order_relaxed);
	return blocks;
}

unsigned grid_for(size_t words, int sm_count)
{
	size_t need = (words + kThreads - 1) / kThreads;
	size_t cap = (size_t)(sm_count > 0 ? sm_count : 1) * resident_blocks_per_sm();

	if (need == 0)
		need = 1;
	return (unsigned)(need < cap ? need : cap);
}

bool bad_size(size_t bytes)
{
	return bytes % GB_COPY_GRAIN != 0;
}

} // namespace

/* nanoseconds of the GPU's global timer, which runs at the same rate whatever the SM clock */
__device__ static unsigned long long global_ns(void)
{
	return gb_ptx_globaltimer();
}

__global__ static void spin_kernel(const volatile int *release, int *timed_out,
				   unsigned long long timeout_ns)
{
	unsigned long long start = global_ns();

	while (*release == 0) {
		if (global_ns() - start > timeout_ns) {
			*(volatile int *)timed_out = 1;
			__threadfence_system();
			return;
		}
	}
}

__global__ static void fill_kernel(uint4 *buf, size_t words, uint64_t seed)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
		buf[i] = gb_copy_pattern_word(seed, i);
}

__global__ static void verify_kernel(const uint4 *buf, size_t words, uint64_t seed,
				     unsigned long long *mismatches)
{
	gb_count_grid(words, mismatches, [=](unsigned long long i) {
		uint4 v = __ldcg(buf + i), e = gb_copy_pattern_word(seed, i);

		return v.x != e.x || v.y != e.y || v.z != e.z || v.w != e.w;
	});
}

/* Grid-stride copy of n words starting at thread `t` of `nthreads`. */
__device__ __forceinline__ void copy_words(uint4 *__restrict__ dst, const uint4 *__restrict__ src,
					   size_t n, size_t t, size_t nthreads)
{
	size_t i = t;

	for (; i + (kUnroll - 1) * nthreads < n; i += kUnroll * nthreads) {
		uint4 v[kUnroll];

#pragma unroll
		for (int u = 0; u < kUnroll; u++)
			v[u] = __ldcg(src + i + u * nthreads);
#pragma unroll
		for (int u = 0; u < kUnroll; u++)
			__stcg(dst + i + u * nthreads, v[u]);
	}
	for (; i < n; i += nthreads)
		__stcg(dst + i, __ldcg(src + i));
}

__global__ static void __launch_bounds__(kThreads)
	sm_copy_kernel(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t words)
{
	copy_words(dst, src, words, (size_t)blockIdx.x * blockDim.x + threadIdx.x,
		   (size_t)gridDim.x * blockDim.x);
}

__global__ static void __launch_bounds__(kThreads)
	sm_copy_bidir_kernel(uint4 *dst0, const uint4 *src0, uint4 *dst1, const uint4 *src1,
			     size_t words)
{
	/* kThreads is a multiple of 64, so every block holds as many even as odd warps */
	size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t warp = gtid >> 5, lane = gtid & 31;
	size_t half_threads = (size_t)gridDim.x * blockDim.x / 2;
	size_t t = (warp >> 1) * 32 + lane;

	if (warp & 1)
		copy_words(dst1, src1, words, t, half_threads);
	else
		copy_words(dst0, src0, words, t, half_threads);
}

__global__ static void fill_double_kernel(double2 *buf, size_t n2, uint64_t seed)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += stride)
		buf[i] = make_double2(gb_copy_pattern_double(seed, 2 * (uint64_t)i),
				      gb_copy_pattern_double(seed, 2 * (uint64_t)i + 1));
}

template <int OP>
__global__ static void __launch_bounds__(kThreads)
	stream_kernel(double2 *__restrict__ dst, const double2 *__restrict__ x,
		      const double2 *__restrict__ y, double q, size_t n2)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += stride) {
		double2 a = x[i], b = make_double2(0, 0);

		if (OP == GB_STREAM_ADD || OP == GB_STREAM_TRIAD)
			b = y[i];
		dst[i] = make_double2(gb_stream_value(OP, a.x, b.x, q),
				      gb_stream_value(OP, a.y, b.y, q));
	}
}

__global__ static void stream_verify_kernel(int op, const double2 *dst, uint64_t seed_x,
					    uint64_t seed_y, double q, size_t n2,
					    unsigned long long *mismatches)
{
	gb_count_grid(n2, mismatches, [=](unsigned long long i) {
		double2 v = __ldcg(dst + i);
		double e0 = gb_stream_value(op, gb_copy_pattern_double(seed_x, 2 * i),
					    gb_copy_pattern_double(seed_y, 2 * i), q);
		double e1 = gb_stream_value(op, gb_copy_pattern_double(seed_x, 2 * i + 1),
					    gb_copy_pattern_double(seed_y, 2 * i + 1), q);

		/* compare bits: NaN never passes, -0 and +0 are not equal */
		return __double_as_longlong(v.x) != __double_as_longlong(e0) ||
		       __double_as_longlong(v.y) != __double_as_longlong(e1);
	});
}

__global__ static void chase_init_kernel(char *buf, size_t nodes, size_t stride)
{
	size_t step = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nodes; i += step) {
		size_t next = i + 1 == nodes ? 0 : i + 1;

		*(unsigned long long *)(buf + i * stride) =
			(unsigned long long)(uintptr_t)(buf + next * stride);
	}
}

__global__ static void chase_kernel(const unsigned long long *start, unsigned long long steps,
				    unsigned long long *sink)
{
	const unsigned long long *p = start;

	/* __ldcg skips L1, so each step is one trip to L2 or across the link */
	for (unsigned long long s = 0; s < steps; s++)
		p = (const unsigned long long *)(uintptr_t)__ldcg(p);
	*sink = (unsigned long long)(uintptr_t)p;
}

/* cudaFuncGetAttributes loads the function's module on the current device (CUDA
 * Programming Guide, "Lazy Loading": querying a function forces it to load) */
namespace {

template <typename F> cudaError_t preload_one(F *f)
{
	cudaFuncAttributes attr;

	return cudaFuncGetAttributes(&attr, (const void *)f);
}

} // namespace

extern "C" cudaError_t gb_copy_preload(void)
{
	const cudaError_t all[] = {
		preload_one(spin_kernel),
		preload_one(fill_kernel),
		preload_one(verify_kernel),
		preload_one(sm_copy_kernel),
		preload_one(sm_copy_bidir_kernel),
		preload_one(fill_double_kernel),
		preload_one(stream_kernel<GB_STREAM_COPY>),
		preload_one(stream_kernel<GB_STREAM_SCALE>),
		preload_one(stream_kernel<GB_STREAM_ADD>),
		preload_one(stream_kernel<GB_STREAM_TRIAD>),
		preload_one(stream_verify_kernel),
		preload_one(chase_init_kernel),
		preload_one(chase_kernel),
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i] != cudaSuccess)
			return all[i];
	return cudaSuccess;
}

extern "C" cudaError_t gb_launch_spin_wait(const volatile int *release, int *timed_out,
					   unsigned long long timeout_ns, cudaStream_t stream)
{
	GB_LAUNCH(1, 1, 0, stream, spin_kernel)(release, timed_out, timeout_ns);
	return cudaGetLastError();
}

extern "C" cudaError_t gb_launch_pattern_fill(void *buf, size_t bytes, uint64_t seed,
					      int sm_count, cudaStream_t stream)
{
	size_t words = bytes / GB_COPY_GRAIN;

	if (bad_size(bytes) || !buf)
		return cudaErrorInvalidValue;
	GB_LAUNCH(grid_for(words, sm_count), kThreads, 0, stream, fill_kernel)(
		(uint4 *)buf, words, seed);
	return cudaGetLastError();
}

extern "C" cudaError_t gb_launch_pattern_verify(const void *buf, size_t bytes, uint64_t seed,
						unsigned long long *mismatches, int sm_count,
						cudaStream_t stream)
{
	size_t words = bytes / GB_COPY_GRAIN;

	if (bad_size(bytes) || !buf || !mismatches)
		return cudaErrorInvalidValue;
	GB_LAUNCH(grid_for(words, sm_count), kThreads, 0, stream, verify_kernel)(
		(const uint4 *)buf, words, seed, mismatches);
	return cudaGetLastError();
}

extern "C" cudaError_t gb_launch_sm_copy(void *dst, const void *src, size_t bytes, int sm_count,
					 cudaStream_t stream)
{
	size_t words = bytes / GB_COPY_GRAIN;

	if (bad_size(bytes) || !dst || !src)
		return cudaErrorInvalidValue;
	GB_LAUNCH(grid_for(words, sm_count), kThreads, 0, stream, sm_copy_kernel)(
		(uint4 *)dst, (const uint4 *)src, words);
	return cudaGetLastError();
}

extern "C" cudaError_t gb_launch_sm_copy_bidir(void *dst0, const void *src0, void *dst1,
					       const void *src1, size_t bytes, int sm_count,
					       cudaStream_t stream)
{
	size_t words = bytes / GB_COPY_GRAIN;

	if (bad_size(bytes) || !dst0 || !src0 || !dst1 || !src1)
		return cudaErrorInvalidValue;
	/* twice the threads of a one-way copy: half of them go each way */
	GB_LAUNCH(grid_for(2 * words, sm_count), kThreads, 0, stream, sm_copy_bidir_kernel)(
		(uint4 *)dst0, (const uint4 *)src0, (uint4 *)dst1, (const uint4 *)src1, words);
	return cudaGetLastError();
}

extern "C" cudaError_t gb_launch_pattern_fill_double(double *buf, size_t n, uint64_t seed,
						     int sm_count, cudaStream_t stream)
{
	if (n % 2 || !buf)
		return cudaErrorInvalidValue;
	GB_LAUNCH(grid_for(n / 2, sm_count), kThreads, 0, stream, fill_double_kernel)(
		(double2 *)buf, n / 2, seed);
	return cudaGetLastError();
}

extern "C" cudaError_t gb_launch_stream(enum gb_stream_op op, double *dst, const double *x,
					const double *y, double q, size_t n, int sm_count,
					cudaStream_t stream)
{
	unsigned grid = grid_for(n / 2, sm_count);
	double2 *d = (double2 *)dst;
	const double2 *a = (const double2 *)x, *b = (const double2 *)y;

	if (n % 2 || !dst || !x || ((op == GB_STREAM_ADD || op == GB_STREAM_TRIAD) && !y))
		return cudaErrorInvalidValue;
	switch (op) {
	case GB_STREAM_COPY:
		GB_LAUNCH(grid, kThreads, 0, stream, stream_kernel<GB_STREAM_COPY>)(
			d, a, b, q, n / 2);
		break;
	case GB_STREAM_SCALE:
		GB_LAUNCH(grid, kThreads, 0, stream, stream_kernel<GB_STREAM_SCALE>)(
			d, a, b, q, n / 2);
		break;
	case GB_STREAM_ADD:
		GB_LAUNCH(grid, kThreads, 0, stream, stream_kernel<GB_STREAM_ADD>)(
			d, a, b, q, n / 2);
		break;
	case GB_STREAM_TRIAD:
		GB_LAUNCH(grid, kThreads, 0, stream, stream_kernel<GB_STREAM_TRIAD>)(
			d, a, b, q, n / 2);
		break;
	default:
		return cudaErrorInvalidValue;
	}
	return cudaGetLastError();
}

extern "C" cudaError_t gb_launch_stream_verify(enum gb_stream_op op, const double *dst,
					       uint64_t seed_x, uint64_t seed_y, double q, size_t n,
					       unsigned long long *mismatches, int sm_count,
					       cudaStream_t stream)
{
	if (n % 2 || !dst || !mismatches || (unsigned)op > GB_STREAM_TRIAD)
		return cudaErrorInvalidValue;
	GB_LAUNCH(grid_for(n / 2, sm_count), kThreads, 0, stream, stream_verify_kernel)(
		(int)op, (const double2 *)dst, seed_x, seed_y, q, n / 2, mismatches);
	return cudaGetLastError();
}

extern "C" cudaError_t gb_launch_chase_init(void *buf, size_t bytes, size_t stride,
					    cudaStream_t stream)
{
	size_t nodes = stride ? bytes / stride : 0;

	if (!buf || stride < 128 || stride % 8 || nodes < 2)
		return cudaErrorInvalidValue;
	GB_LAUNCH(grid_for(nodes, 1), kThreads, 0, stream, chase_init_kernel)(
		(char *)buf, nodes, stride);
	return cudaGetLastError();
}

extern "C" cudaError_t gb_launch_chase(const void *buf, unsigned long long steps,
				       unsigned long long *sink, cudaStream_t stream)
{
	if (!buf || !sink)
		return cudaErrorInvalidValue;
	GB_LAUNCH(1, 1, 0, stream, chase_kernel)((const unsigned long long *)buf, steps, sink);
	return cudaGetLastError();
}
