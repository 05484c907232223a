/* SPDX-License-Identifier: MIT */
/*
 * stress.cu - kernels of `gpubench stress`: input fill, the fused
 * verification pass (ABFT row and column sums in double, bitwise compare
 * with the reference result, NaN count), the checksum comparison, the
 * cross-GPU digest, the fault injection and the memtest write/verify
 * kernels. See kernels/stress.h; the flipped bit and the checksum test are
 * in kernels/stress_hd.h, shared with the simulator's twins.
 *
 * Counters are reduced within a warp before one atomic per warp, as DCGM's
 * compare kernel does, so a badly broken GPU does not serialise on one
 * address; records are claimed with an atomic only while there is room.
 */
#include "kernels/stress.h"

#include <type_traits>

#include "kernels/stress_data_hd.h"
#include "kernels/dtype.cuh"
#include "kernels/launch.cuh"
#include "kernels/stress_hd.h"

#define GB_THREADS 256
#define GB_VERIFY_COLS 32 /* columns per verify block: one warp finishes them */
#define GB_MAX_BLOCKS 65535u

static unsigned grid_for(size_t n)
{
	size_t b = (n + GB_THREADS - 1) / GB_THREADS;

	return (unsigned)(b < GB_MAX_BLOCKS ? (b ? b : 1) : GB_MAX_BLOCKS);
}

__device__ static double warp_sum(double x)
{
	for (int o = 16; o > 0; o /= 2)
		x += __shfl_xor_sync(0xffffffffu, x, o);
	return x;
}

__device__ static unsigned long long warp_sum_u64(unsigned long long x)
{
	for (int o = 16; o > 0; o /= 2)
		x += __shfl_xor_sync(0xffffffffu, x, o);
	return x;
}

__device__ static double warp_max(double x)
{
	for (int o = 16; o > 0; o /= 2)
		x = fmax(x, __shfl_xor_sync(0xffffffffu, x, o));
	return x;
}

__device__ static unsigned long long warp_xor(unsigned long long x)
{
	for (int o = 16; o > 0; o /= 2)
		x ^= __shfl_xor_sync(0xffffffffu, x, o);
	return x;
}

/* a warp's count, added by its first lane (every lane must call) */
__device__ static void add_count(unsigned long long *dst, unsigned long long mine)
{
	unsigned long long total = warp_sum_u64(mine);

	if ((threadIdx.x & 31) == 0 && total)
		atomicAdd(dst, total);
}

/* ---- fill ---- */

template <typename T>
__global__ static void fill_kernel(T *p, size_t n, uint64_t key, int sig_bits, int64_t r)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		/* the values are exact in T (stress_math.h): the rounding mode is moot */
		p[i] = gb_from_double<T>(gb_stress_value(key, i, sig_bits, r));
}

extern "C" cudaError_t gb_launch_stress_fill(void *p, enum gb_dtype t, size_t n, uint64_t key,
					     int sig_bits, int64_t r, cudaStream_t stream)
{
	return gb_dtype_dispatch(t, [&](auto tag) {
		using T = decltype(tag);

		/* GEMM inputs are floating point; the generator has no integer types */
		if constexpr (std::is_integral<T>::value) {
			return cudaErrorInvalidValue;
		} else {
			GB_LAUNCH(grid_for(n), GB_THREADS, 0, stream, fill_kernel<T>)(
				static_cast<T *>(p), n, key, sig_bits, r);
			return cudaGetLastError();
		}
	});
}

/* ---- the fused verification pass ---- */

__device__ static unsigned long long bits_of(float x) { return __float_as_uint(x); }
__device__ static unsigned long long bits_of(double x)
{
	return (unsigned long long)__double_as_longlong(x);
}

__device__ static void record_elem(gb_stress_verify *v, uint32_t slot, uint64_t i, uint64_t j,
				   unsigned long long want, unsigned long long got)
{
	unsigned k;

	/* a cheap look first: a wholly wrong slot must not serialise on the counter */
	if (*(volatile unsigned *)&v->n_elem >= GB_STRESS_MAX_RECORDS)
		return;
	k = atomicAdd(&v->n_elem, 1u);
	if (k >= GB_STRESS_MAX_RECORDS)
		return;
	v->elem[k].slot = slot;
	v->elem[k].row = (uint32_t)i;
	v->elem[k].col = (uint32_t)j;
	v->elem[k].expected_bits = want;
	v->elem[k].got_bits = got;
}

/*
 * One block: GB_THREADS rows x GB_VERIFY_COLS columns. Thread t owns row
 * i and walks the columns, so each column read is coalesced; it keeps its
 * row's partial sum in a register (one atomic per block per row), and each
 * warp reduces each column's values by shuffles into shared memory (one
 * atomic per block per column).
 */
template <typename T>
__global__ static void verify_kernel(const T *c, const T *ref, uint64_t m, uint64_t n,
				     uint32_t slot, double *col, double *row, gb_stress_verify *v)
{
	__shared__ double part[GB_VERIFY_COLS][GB_THREADS / 32];
	uint64_t i = (uint64_t)blockIdx.x * GB_THREADS + threadIdx.x;
	uint64_t j0 = (uint64_t)blockIdx.y * GB_VERIFY_COLS;
	unsigned warp = threadIdx.x / 32, lane = threadIdx.x & 31;
	unsigned long long diffs = 0, bad = 0;
	double racc = 0;
	bool any = false;

	for (unsigned cj = 0; cj < GB_VERIFY_COLS; cj++) {
		uint64_t j = j0 + cj;
		double x = 0;

		if (i < m && j < n) {
			T val = c[i + j * m];

			any = true;
			x = (double)val;
			bad += !isfinite(x);
			if (ref) {
				unsigned long long want = bits_of(ref[i + j * m]), got = bits_of(val);

				if (want != got) {
					diffs++;
					record_elem(v, slot, i, j, want, got);
				}
			}
		}
		racc += x;
		if (col) {
			double w = warp_sum(x);

			if (lane == 0)
				part[cj][warp] = w;
		}
	}
	if (col) {
		__syncthreads();
		if (threadIdx.x < GB_VERIFY_COLS && j0 + threadIdx.x < n) {
			double s = 0;

			for (unsigned w = 0; w < GB_THREADS / 32; w++)
				s += part[threadIdx.x][w];
			atomicAdd(&col[j0 + threadIdx.x], s);
		}
	}
	if (row && any)
		atomicAdd(&row[i], racc);
	add_count(&v->repeat_diffs, diffs);
	add_count(&v->nonfinite, bad);
}

extern "C" cudaError_t gb_launch_stress_verify(const void *c, const void *ref, enum gb_dtype t,
					       uint64_t m, uint64_t n, uint32_t slot, double *col,
					       double *row, struct gb_stress_verify *v,
					       cudaStream_t stream)
{
	dim3 grid((unsigned)((m + GB_THREADS - 1) / GB_THREADS),
		  (unsigned)((n + GB_VERIFY_COLS - 1) / GB_VERIFY_COLS));

	if (!m || !n || grid.y > GB_MAX_BLOCKS || (col == NULL) != (row == NULL))
		return cudaErrorInvalidValue;
	if (t == GB_DT_F64)
		GB_LAUNCH(grid, GB_THREADS, 0, stream, verify_kernel<double>)(
			(const double *)c, (const double *)ref, m, n, slot, col, row, v);
	else if (t == GB_DT_F32)
		GB_LAUNCH(grid, GB_THREADS, 0, stream, verify_kernel<float>)(
			(const float *)c, (const float *)ref, m, n, slot, col, row, v);
	else
		return cudaErrorInvalidValue;
	return cudaGetLastError();
}

/* ---- checksum comparison ---- */

__global__ static void check_sums_kernel(const double *col, const double *row,
					 const double *col_exp, const double *col_bound,
					 const double *row_exp, const double *row_bound, uint64_t m,
					 uint64_t n, uint32_t slot, gb_stress_verify *v)
{
	uint64_t idx = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long bad = 0;
	double ratio = 0;

	if (idx < n + m) {
		bool is_row = idx >= n;
		uint64_t k = is_row ? idx - n : idx;
		double obs = is_row ? row[k] : col[k];
		double exp = is_row ? row_exp[k] : col_exp[k];
		double bound = is_row ? row_bound[k] : col_bound[k];

		/* NaN fails; exact phases (bound 0) have no ratio (kernels/stress_hd.h) */
		if (gb_stress_sum_fails(obs, exp, bound, &ratio)) {
			unsigned r;

			bad = 1;
			if (*(volatile unsigned *)&v->n_sum < GB_STRESS_MAX_RECORDS &&
			    (r = atomicAdd(&v->n_sum, 1u)) < GB_STRESS_MAX_RECORDS) {
				v->sum[r].slot = slot;
				v->sum[r].index = (uint32_t)k;
				v->sum[r].is_row = is_row;
				v->sum[r].observed = obs;
				v->sum[r].expected = exp;
				v->sum[r].bound = bound;
			}
		}
	}
	add_count(&v->sum_mismatches, bad);
	/* every lane gets here: one atomic per warp */
	ratio = warp_max(ratio);
	if ((threadIdx.x & 31) == 0 && ratio > 0)
		atomicMax(&v->max_ratio_bits, (unsigned long long)__double_as_longlong(ratio));
}

extern "C" cudaError_t gb_launch_stress_check_sums(const double *col, const double *row,
						   const double *col_exp, const double *col_bound,
						   const double *row_exp, const double *row_bound,
						   uint64_t m, uint64_t n, uint32_t slot,
						   struct gb_stress_verify *v, cudaStream_t stream)
{
	uint64_t blocks = (m + n + GB_THREADS - 1) / GB_THREADS;

	if (!m || !n || blocks > 0x7fffffffULL)
		return cudaErrorInvalidValue;
	GB_LAUNCH((unsigned)blocks, GB_THREADS, 0, stream, check_sums_kernel)(
		col, row, col_exp, col_bound, row_exp, row_bound, m, n, slot, v);
	return cudaGetLastError();
}

/* ---- digest ---- */

__global__ static void digest_kernel(const uint32_t *p, size_t n, unsigned long long *digest)
{
	unsigned long long d = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		d ^= gb_stress_digest_word(p[i], i);
	d = warp_xor(d);
	if ((threadIdx.x & 31) == 0 && d)
		atomicXor(digest, d);
}

extern "C" cudaError_t gb_launch_stress_digest(const void *p, size_t n_words,
					       unsigned long long *digest, cudaStream_t stream)
{
	GB_LAUNCH(grid_for(n_words), GB_THREADS, 0, stream, digest_kernel)(
		(const uint32_t *)p, n_words, digest);
	return cudaGetLastError();
}

/* ---- fault injection ---- */

__global__ static void flip_kernel(void *c, int is_f64, uint64_t index, unsigned long long *out)
{
	if (is_f64) {
		unsigned long long *p = (unsigned long long *)c + index, b = *p;

		out[0] = b;
		b = gb_stress_flipped64(b);
		*p = b;
		out[1] = b;
	} else {
		uint32_t *p = (uint32_t *)c + index, b = *p;

		out[0] = b;
		b = gb_stress_flipped32(b);
		*p = b;
		out[1] = b;
	}
}

extern "C" cudaError_t gb_launch_stress_flip(void *c, enum gb_dtype t, uint64_t index,
					     unsigned long long *bits, cudaStream_t stream)
{
	if (t != GB_DT_F32 && t != GB_DT_F64)
		return cudaErrorInvalidValue;
	GB_LAUNCH(1, 1, 0, stream, flip_kernel)(c, t == GB_DT_F64, index, bits);
	return cudaGetLastError();
}

/* ---- memtest ---- */

__global__ static void memtest_write_kernel(uint32_t *p, size_t n, int kind, uint32_t param,
					    uint64_t seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = gb_memtest_word(kind, param, seed, i);
}

__global__ static void memtest_verify_kernel(uint32_t *p, size_t n, int kind, uint32_t param,
					     uint64_t seed, int rewrite, gb_memtest_report *r)
{
	unsigned long long bad = 0;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	/* every lane runs the same number of rounds, so the warp reduction below is safe */
	size_t rounds = (n + stride - 1) / stride;

	for (size_t k = 0; k < rounds; k++) {
		size_t i = k * stride + blockIdx.x * (size_t)blockDim.x + threadIdx.x;
		uint32_t want, got;

		if (i >= n)
			continue;
		want = gb_memtest_word(kind, param, seed, i);
		got = p[i];
		if (got != want) {
			unsigned s;

			bad++;
			if (*(volatile unsigned *)&r->n_rec < GB_STRESS_MAX_RECORDS &&
			    (s = atomicAdd(&r->n_rec, 1u)) < GB_STRESS_MAX_RECORDS) {
				r->rec[s].word = i;
				r->rec[s].expected = want;
				r->rec[s].got = got;
			}
		}
		if (rewrite)
			p[i] = ~want;
	}
	add_count(&r->failures, bad);
}

extern "C" cudaError_t gb_launch_memtest_write(uint32_t *p, size_t n_words, int kind,
					       uint32_t param, uint64_t seed, cudaStream_t stream)
{
	GB_LAUNCH(grid_for(n_words), GB_THREADS, 0, stream, memtest_write_kernel)(
		p, n_words, kind, param, seed);
	return cudaGetLastError();
}

extern "C" cudaError_t gb_launch_memtest_verify(uint32_t *p, size_t n_words, int kind,
						uint32_t param, uint64_t seed,
						int rewrite_complement,
						struct gb_memtest_report *r, cudaStream_t stream)
{
	GB_LAUNCH(grid_for(n_words), GB_THREADS, 0, stream, memtest_verify_kernel)(
		p, n_words, kind, param, seed, rewrite_complement, r);
	return cudaGetLastError();
}
