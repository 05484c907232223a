/* SPDX-License-Identifier: MIT */
/*
 * test_twins_own_gemm.c - the CPU twins of gpubench's own GEMM kernels
 * (tests/sim/twins/twins_sgemm_tiled.c, twins_sgemm.c, twins_mma.c,
 * twins_wgmma.c) and the tensor-map stand-ins, called directly with
 * launches shaped as the launchers in kernels/ shape them.
 *
 * Each product is checked against a computation written here, apart from
 * the twins' shared code: for the FP32 kernels a naive fmaf chain per
 * output (bit for bit); for the FP16/BF16 kernels an exact sum of small
 * integers rounded once to the output type. Outputs sit in poisoned buffers
 * with guard elements after D: a twin must write every element the kernel
 * writes and nothing else. Buffers come from cudaMallocHost (pinned memory,
 * which kernels may touch) so the fake runtime's access checks pass, and a
 * stack buffer shows that they fail where a GPU would fault.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/sim/sim.h"
#include "tests/sim/twin_test.h"
#include "tests/sim/twins/own_gemm_twin.h"
#include "tests/sim/twins/twins.h"

#define GUARD 64                   /* poisoned elements after D */
#define POISON_F32 0x7FC0DEADu     /* gb_launch_fill_poison's patterns */
#define POISON_16 0x7EADu

/* the devices a launch claims to run on: only the compute capability matters here */
static const struct gbsim_gpu h100 = { .index = 0, .cc_major = 9, .cc_minor = 0 };
static const struct gbsim_gpu a100 = { .index = 0, .cc_major = 8, .cc_minor = 0 };

/* the kernels' names as c++filt prints them from the objects, anonymous namespace removed */
#define UINTS5 "unsigned int, unsigned int, unsigned int, unsigned int, unsigned int)"
static const char tiled_name[] = "sgemm_tiled_kernel(float const*, float const*, float*, "
				 "unsigned int, unsigned int, unsigned int)";
static const char sgemm_vec_name[] = "void sgemm_kernel<true>(float const*, float const*, "
				     "float*, " UINTS5;
static const char sgemm_scalar_name[] = "void sgemm_kernel<false>(float const*, float const*, "
					"float*, " UINTS5;
static const char wgmma_f16_name[] = "void wgmma_kernel<__half>(CUtensorMap_st, CUtensorMap_st, "
				     "__half*, " UINTS5;
static const char wgmma_bf16_name[] = "void wgmma_kernel<__nv_bfloat16>(CUtensorMap_st, "
				      "CUtensorMap_st, __nv_bfloat16*, " UINTS5;

/* ---- helpers ---- */

static void *pinned(size_t bytes)
{
	return pinned_alloc(bytes);
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* uniform in [-1, 1) */
static void fill_f32(float *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (float)((double)(rng_next(&seed) >> 11) / 4503599627370496.0 - 1.0);
}

/* small integers -4..4, exact in fp16 and bf16, so every sum below is exact in float */
static void fill_int16(uint16_t *p, size_t n, uint64_t seed, bool bf16, float *val)
{
	for (size_t i = 0; i < n; i++) {
		float v = (float)((int)(rng_next(&seed) % 9) - 4);

		p[i] = bf16 ? gbsim_bf16_from_float(v) : gbsim_f16_from_float(v);
		val[i] = v;
	}
}

static void poison_f32(float *p, size_t n)
{
	const uint32_t bits = POISON_F32;

	for (size_t i = 0; i < n; i++)
		memcpy(&p[i], &bits, sizeof(bits));
}

static bool is_poison_f32(float v)
{
	uint32_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return bits == POISON_F32;
}

static void poison_16(uint16_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = POISON_16;
}

/* D = A^T B by a naive fmaf chain in l order, A k x m and B k x n column-major */
static float ref_f32(const float *a, const float *b, unsigned k, unsigned i, unsigned j)
{
	float acc = 0.0f;

	for (unsigned l = 0; l < k; l++)
		acc = fmaf(a[(size_t)i * k + l], b[(size_t)j * k + l], acc);
	return acc;
}

/*
 * The exact sum over l < k_sum for integer inputs (rows k apart), rounded
 * once into the output type.
 */
static uint16_t ref_16(const float *a, const float *b, unsigned k, unsigned k_sum, unsigned i,
		       unsigned j, bool bf16)
{
	double acc = 0.0;

	for (unsigned l = 0; l < k_sum; l++)
		acc += (double)a[(size_t)i * k + l] * (double)b[(size_t)j * k + l];
	return bf16 ? gbsim_bf16_from_double(acc) : gbsim_f16_from_double(acc);
}

static unsigned ceil_div(unsigned a, unsigned b)
{
	return (a + b - 1) / b;
}

/* a launch of the twin of `kernel` in table, on device 0 claiming to be `gpu` */
static cudaError_t launch(const struct gbsim_twin *table, const char *kernel,
			  const struct gbsim_gpu *gpu, dim3 grid, dim3 block, size_t shared,
			  void **args, struct gbsim_cost *cost)
{
	gbsim_twin_fn fn = twin_find(table, kernel);
	struct gbsim_launch l;
	struct gbsim_cost ignored;

	memset(&l, 0, sizeof(l));
	l.kernel = kernel;
	l.grid = grid;
	l.block = block;
	l.shared_bytes = shared;
	l.args = args;
	l.device = 0;
	l.gpu = gpu;
	return fn(&l, cost ? cost : &ignored);
}

static dim3 d3(unsigned x, unsigned y)
{
	dim3 d = { x, y, 1 };

	return d;
}

/* ---- the tables ---- */

static void expect_table(const struct gbsim_twin *table, int count)
{
	int n = 0;

	for (const struct gbsim_twin *t = table; t->name; t++, n++) {
		assert_non_null(t->run);
		for (const struct gbsim_twin *u = t + 1; u->name; u++)
			assert_string_not_equal(t->name, u->name);
	}
	assert_int_equal(n, count);
}

static void test_tables(void **state)
{
	(void)state;
	/* one twin per __global__ instance in each object (c++filt of the .cu.o) */
	expect_table(gbsim_twins_sgemm_tiled, 1);
	expect_table(gbsim_twins_sgemm, 2);
	expect_table(gbsim_twins_mma, 6);
	expect_table(gbsim_twins_wgmma, 2);
}

/* ---- sgemm_tiled ---- */

struct f32_case {
	unsigned m, n, k;
	float *a, *b, *d;
};

static void f32_case_init(struct f32_case *c, unsigned m, unsigned n, unsigned k)
{
	c->m = m;
	c->n = n;
	c->k = k;
	c->a = pinned((size_t)m * k * 4 + 64);
	c->b = pinned((size_t)n * k * 4 + 64);
	c->d = pinned(((size_t)m * n + GUARD) * 4);
	fill_f32(c->a, (size_t)m * k, 11);
	fill_f32(c->b, (size_t)n * k, 12);
	poison_f32(c->d, (size_t)m * n + GUARD);
}

static void f32_case_free(struct f32_case *c)
{
	cudaFreeHost(c->a);
	cudaFreeHost(c->b);
	cudaFreeHost(c->d);
}

/* D bit for bit where written; returns how many of the m x n are still poison */
static size_t f32_case_check(const struct f32_case *c)
{
	size_t poisoned = 0;

	for (unsigned j = 0; j < c->n; j++) {
		for (unsigned i = 0; i < c->m; i++) {
			float got = c->d[i + (size_t)j * c->m], want;

			if (is_poison_f32(got)) {
				poisoned++;
				continue;
			}
			want = ref_f32(c->a, c->b, c->k, i, j);
			if (memcmp(&got, &want, sizeof(got)))
				fail_msg("D[%u, %u] = %a, want %a", i, j, (double)got, (double)want);
		}
	}
	for (size_t g = 0; g < GUARD; g++)
		assert_true(is_poison_f32(c->d[(size_t)c->m * c->n + g]));
	return poisoned;
}

static cudaError_t run_tiled(struct f32_case *c, dim3 grid, dim3 block, struct gbsim_cost *cost)
{
	void *args[6] = { &c->a, &c->b, &c->d, &c->m, &c->n, &c->k };

	return launch(gbsim_twins_sgemm_tiled, tiled_name, &h100, grid, block, 0, args, cost);
}

static void test_tiled(void **state)
{
	struct f32_case c;
	struct gbsim_cost cost;

	(void)state;
	f32_case_init(&c, 37, 45, 19);
	assert_int_equal(run_tiled(&c, d3(ceil_div(37, 32), ceil_div(45, 32)), d3(32, 32), &cost),
			 cudaSuccess);
	assert_int_equal(f32_case_check(&c), 0);
	assert_true(cost.flops == 2.0 * 37 * 45 * 19);
	assert_int_equal(cost.prec, GBSIM_FP32);
	assert_true(cost.bytes == (37.0 * 19 + 45.0 * 19 + 37.0 * 45) * 4);
	f32_case_free(&c);
}

static void test_tiled_partial_grid(void **state)
{
	struct f32_case c;

	(void)state;
	f32_case_init(&c, 37, 45, 19);
	/* one tile row of n short: D columns 32..44 stay poison, nothing else */
	assert_int_equal(run_tiled(&c, d3(2, 1), d3(32, 32), NULL), cudaSuccess);
	assert_int_equal(f32_case_check(&c), (size_t)37 * (45 - 32));
	/* a block shape the kernel is not written for is refused, D untouched */
	poison_f32(c.d, (size_t)37 * 45);
	assert_int_equal(run_tiled(&c, d3(2, 2), d3(16, 16), NULL), cudaErrorLaunchFailure);
	assert_int_equal(f32_case_check(&c), (size_t)37 * 45);
	f32_case_free(&c);
}

/* ---- the result cache (own_gemm_twin.h) ---- */

static void expect_cache_counts(uint64_t hits, uint64_t misses)
{
	uint64_t h, m;

	gbsim_gemm_cache_stats(&h, &m);
	assert_int_equal(h, hits);
	assert_int_equal(m, misses);
}

static cudaError_t run_tiled_whole(struct f32_case *c)
{
	poison_f32(c->d, (size_t)c->m * c->n);
	return run_tiled(c, d3(ceil_div(c->m, 32), ceil_div(c->n, 32)), d3(32, 32), NULL);
}

/*
 * The same operands again are served from the cache, bit for bit; a write
 * to either operand, or another k over the same bytes, computes again; a
 * product of other operands never comes from an entry.
 */
static void test_result_cache(void **state)
{
	struct f32_case c;

	(void)state;
	gbsim_gemm_cache_clear();
	f32_case_init(&c, 37, 45, 19);
	assert_int_equal(run_tiled_whole(&c), cudaSuccess);
	assert_int_equal(f32_case_check(&c), 0);
	expect_cache_counts(0, 1);
	assert_int_equal(run_tiled_whole(&c), cudaSuccess);
	assert_int_equal(f32_case_check(&c), 0);
	expect_cache_counts(1, 1);
	/* one element of A written: its row of D changes, a stale product would not */
	c.a[3 * 19 + 5] += 0.5f;
	assert_int_equal(run_tiled_whole(&c), cudaSuccess);
	assert_int_equal(f32_case_check(&c), 0);
	expect_cache_counts(1, 2);
	c.b[44 * 19 + 18] = -c.b[44 * 19 + 18];
	assert_int_equal(run_tiled_whole(&c), cudaSuccess);
	assert_int_equal(f32_case_check(&c), 0);
	expect_cache_counts(1, 3);
	assert_int_equal(run_tiled_whole(&c), cudaSuccess);
	assert_int_equal(f32_case_check(&c), 0);
	expect_cache_counts(2, 3);
	/* B written back as it was: keyed by content, so the product of two launches ago */
	c.b[44 * 19 + 18] = -c.b[44 * 19 + 18];
	assert_int_equal(run_tiled_whole(&c), cudaSuccess);
	assert_int_equal(f32_case_check(&c), 0);
	expect_cache_counts(3, 3);
	/* k 18 over the same buffers: other operands, computed */
	c.k = 18;
	assert_int_equal(run_tiled_whole(&c), cudaSuccess);
	assert_int_equal(f32_case_check(&c), 0);
	expect_cache_counts(3, 4);
	/* turned off: computed every time, nothing counted */
	setenv("GPUBENCH_SIM_OWN_GEMM_CACHE", "0", 1);
	assert_int_equal(run_tiled_whole(&c), cudaSuccess);
	assert_int_equal(f32_case_check(&c), 0);
	unsetenv("GPUBENCH_SIM_OWN_GEMM_CACHE");
	expect_cache_counts(3, 4);
	gbsim_gemm_cache_clear();
	expect_cache_counts(0, 0);
	assert_int_equal(run_tiled_whole(&c), cudaSuccess);
	assert_int_equal(f32_case_check(&c), 0);
	expect_cache_counts(0, 1);
	f32_case_free(&c);
}

/* ---- sgemm ---- */

/* tiles_m_or_0: what the launch passes as tiles_m, 0 for the right count */
static cudaError_t run_sgemm(struct f32_case *c, bool vec, unsigned tiles_m_or_0,
			     struct gbsim_cost *cost)
{
	unsigned tiles_m = tiles_m_or_0 ? tiles_m_or_0 : ceil_div(c->m, 128);
	unsigned tiles_n = ceil_div(c->n, 128);
	unsigned blocks = ceil_div(c->m, 128) * tiles_n;
	/* the kernel takes X = B, Y = A, rows_x = n, rows_y = m */
	void *args[8] = { &c->b, &c->a, &c->d, &c->n, &c->m, &c->k, &tiles_m, &tiles_n };

	return launch(gbsim_twins_sgemm, vec ? sgemm_vec_name : sgemm_scalar_name, &h100,
		      d3(blocks, 1), d3(256, 1), 0, args, cost);
}

static void test_sgemm(void **state)
{
	/* vector loads and float4 stores (m % 4 == 0); scalar loads, odd m; two tile groups */
	static const unsigned shapes[][4] = {
		{ 132, 260, 20, 1 }, { 130, 70, 19, 0 }, { 5, 1100, 8, 1 }, { 1, 1, 1, 0 },
	};

	(void)state;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		struct f32_case c;
		struct gbsim_cost cost;

		f32_case_init(&c, shapes[s][0], shapes[s][1], shapes[s][2]);
		assert_int_equal(run_sgemm(&c, shapes[s][3], 0, &cost), cudaSuccess);
		assert_int_equal(f32_case_check(&c), 0);
		assert_true(cost.flops == 2.0 * c.m * c.n * c.k);
		f32_case_free(&c);
	}
}

static void test_sgemm_refusals(void **state)
{
	struct f32_case c;
	float *a, *d;
	float on_stack[4 * 4 + GUARD];

	(void)state;
	f32_case_init(&c, 4, 4, 8);
	a = c.a;
	/* float4 loads from a row 4 bytes off: misaligned, nothing written */
	c.a = a + 1;
	assert_int_equal(run_sgemm(&c, true, 0, NULL), cudaErrorMisalignedAddress);
	assert_int_equal(f32_case_check(&c), 16);
	/* vector loads need k % 4 == 0 */
	c.a = a;
	c.k = 6;
	assert_int_equal(run_sgemm(&c, true, 0, NULL), cudaErrorMisalignedAddress);
	c.k = 8;
	/* tiles_m = 2^29: a group of 8 tile columns is 2^32 blocks, 0 in 32 bits, and the
	 * tile map divides by it */
	assert_int_equal(run_sgemm(&c, false, UINT32_MAX / 8 + 1, NULL), cudaErrorLaunchFailure);
	assert_int_equal(f32_case_check(&c), 16);
	/* D in pageable memory no kernel may touch */
	d = c.d;
	c.d = on_stack;
	assert_int_not_equal(run_sgemm(&c, false, 0, NULL), cudaSuccess);
	c.d = d;
	f32_case_free(&c);
}

/* ---- mma and wgmma: fp16 / bf16 ---- */

struct h_case {
	unsigned m, n, k, pitch;   /* pitch: elements per row of A and B as stored */
	unsigned k_sum;            /* the reference sums l < k_sum (k unless a test says) */
	bool bf16;
	uint16_t *a, *b, *d;
	float *av, *bv;            /* the same values, k per row, for the reference */
};

static void h_case_init(struct h_case *c, unsigned m, unsigned n, unsigned k, unsigned pitch,
			bool bf16, unsigned seed)
{
	c->m = m;
	c->n = n;
	c->k = k;
	c->k_sum = k;
	c->pitch = pitch;
	c->bf16 = bf16;
	c->a = pinned((size_t)m * pitch * 2 + 64);
	c->b = pinned((size_t)n * pitch * 2 + 64);
	c->d = pinned(((size_t)m * n + GUARD) * 2);
	c->av = malloc((size_t)m * k * sizeof(float));
	c->bv = malloc((size_t)n * k * sizeof(float));
	assert_non_null(c->av);
	assert_non_null(c->bv);
	/* pad columns (pitch > k) hold NaN: nothing may read them */
	poison_16(c->a, (size_t)m * pitch);
	poison_16(c->b, (size_t)n * pitch);
	for (unsigned i = 0; i < m; i++)
		fill_int16(c->a + (size_t)i * pitch, k, seed + 100 + i, bf16, c->av + (size_t)i * k);
	for (unsigned j = 0; j < n; j++)
		fill_int16(c->b + (size_t)j * pitch, k, seed + 5000 + j, bf16, c->bv + (size_t)j * k);
	poison_16(c->d, (size_t)m * n + GUARD);
}

static void h_case_free(struct h_case *c)
{
	cudaFreeHost(c->a);
	cudaFreeHost(c->b);
	cudaFreeHost(c->d);
	free(c->av);
	free(c->bv);
}

static size_t h_case_check(const struct h_case *c)
{
	size_t poisoned = 0;

	for (unsigned j = 0; j < c->n; j++) {
		for (unsigned i = 0; i < c->m; i++) {
			uint16_t got = c->d[i + (size_t)j * c->m], want;

			if (got == POISON_16) {
				poisoned++;
				continue;
			}
			want = ref_16(c->av, c->bv, c->k, c->k_sum, i, j, c->bf16);
			if (got != want)
				fail_msg("D[%u, %u] = 0x%04x, want 0x%04x", i, j, got, want);
		}
	}
	for (size_t g = 0; g < GUARD; g++)
		assert_int_equal(c->d[(size_t)c->m * c->n + g], POISON_16);
	return poisoned;
}

static cudaError_t run_mma(struct h_case *c, unsigned stages, bool vec, size_t shared,
			   struct gbsim_cost *cost)
{
	unsigned tiles_m = ceil_div(c->m, 128), tiles_n = ceil_div(c->n, 128);
	void *args[8] = { &c->b, &c->a, &c->d, &c->n, &c->m, &c->k, &tiles_m, &tiles_n };
	const char *t = c->bf16 ? "__nv_bfloat16" : "__half";
	char name[256];

	snprintf(name, sizeof(name), "void mma_kernel<%s, %u, %s>(%s const*, %s const*, %s*, " UINTS5,
		 t, stages, vec ? "true" : "false", t, t, t);
	return launch(gbsim_twins_mma, name, &a100, d3(tiles_m * tiles_n, 1), d3(256, 1),
		      shared ? shared : (size_t)stages * 16384, args, cost);
}

static void test_mma(void **state)
{
	(void)state;
	for (int bf16 = 0; bf16 < 2; bf16++) {
		struct h_case c;
		struct gbsim_cost cost;

		/* vector loads, 4 and 3 stages, odd m (single stores), two tile rows */
		h_case_init(&c, 201, 150, 72, 72, bf16, 1);
		assert_int_equal(run_mma(&c, 4, true, 0, &cost), cudaSuccess);
		assert_int_equal(h_case_check(&c), 0);
		assert_true(cost.flops == 2.0 * 201 * 150 * 72);
		assert_int_equal(cost.prec, bf16 ? GBSIM_BF16 : GBSIM_FP16);
		poison_16(c.d, (size_t)201 * 150);
		assert_int_equal(run_mma(&c, 3, true, 0, NULL), cudaSuccess);
		assert_int_equal(h_case_check(&c), 0);
		/* too little dynamic shared memory for 4 stages: a GPU faults */
		poison_16(c.d, (size_t)201 * 150);
		assert_int_equal(run_mma(&c, 4, true, 3 * 16384, NULL), cudaErrorIllegalAddress);
		assert_int_equal(h_case_check(&c), (size_t)201 * 150);
		h_case_free(&c);

		/* element-wise loads (k % 8 != 0), even m (pair stores) */
		h_case_init(&c, 130, 3, 19, 19, bf16, 2);
		assert_int_equal(run_mma(&c, 3, false, 0, NULL), cudaSuccess);
		assert_int_equal(h_case_check(&c), 0);
		/* ... which the vector instance refuses */
		assert_int_equal(run_mma(&c, 3, true, 0, NULL), cudaErrorMisalignedAddress);
		h_case_free(&c);
	}
}

/* ---- tensor maps ---- */

/* what wgmma.cu's encode_map asks for: rows x k halves, rows `pitch` apart, 64 x box_rows boxes */
static CUresult encode(CUtensorMap *map, const void *base, unsigned k, unsigned rows,
		       unsigned pitch, unsigned box_rows, bool bf16)
{
	const cuuint64_t dims[2] = { k, rows };
	const cuuint64_t stride[1] = { (cuuint64_t)pitch * 2 };
	const cuuint32_t box[2] = { 64, box_rows };
	const cuuint32_t step[2] = { 1, 1 };

	return gbsim_drv_cuTensorMapEncodeTiled(
		map, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
		(void *)base, dims, stride, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
		CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
		CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

static void test_encode_checks(void **state)
{
	static uint16_t buf[4096] __attribute__((aligned(256)));
	_Alignas(128) unsigned char raw[sizeof(CUtensorMap) + 64];
	CUtensorMap map;
	const cuuint64_t dims[2] = { 64, 16 }, big_dims[2] = { 64, (1ull << 32) + 1 };
	const cuuint64_t stride[1] = { 128 }, odd_stride[1] = { 120 }, short_stride[1] = { 112 };
	const cuuint32_t box[2] = { 64, 16 }, big_box[2] = { 64, 257 }, step[2] = { 1, 1 };
	const cuuint32_t bad_step[2] = { 1, 9 };
	const CUtensorMapDataType f16 = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
	const CUtensorMapInterleave none = CU_TENSOR_MAP_INTERLEAVE_NONE;
	const CUtensorMapSwizzle sw = CU_TENSOR_MAP_SWIZZLE_128B;
	const CUtensorMapL2promotion l2 = CU_TENSOR_MAP_L2_PROMOTION_NONE;
	const CUtensorMapFloatOOBfill fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;

	(void)state;
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled(&map, f16, 2, buf, dims, stride, box,
							  step, none, sw, l2, fill),
			 CUDA_SUCCESS);
	/* the global address: 16-byte aligned */
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled(&map, f16, 2, buf + 1, dims, stride,
							  box, step, none, sw, l2, fill),
			 CUDA_ERROR_INVALID_VALUE);
	/* the map itself: 64-byte aligned */
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled((CUtensorMap *)(void *)(raw + 32), f16,
							  2, buf, dims, stride, box, step, none,
							  sw, l2, fill),
			 CUDA_ERROR_INVALID_VALUE);
	/* rank 1..5 */
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled(&map, f16, 0, buf, dims, stride, box,
							  step, none, sw, l2, fill),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled(&map, f16, 6, buf, dims, stride, box,
							  step, none, sw, l2, fill),
			 CUDA_ERROR_INVALID_VALUE);
	/* strides: multiples of 16 (k = 60 halves is 120 bytes), and spanning a row */
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled(&map, f16, 2, buf, dims, odd_stride,
							  box, step, none, sw, l2, fill),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled(&map, f16, 2, buf, dims, short_stride,
							  box, step, none, sw, l2, fill),
			 CUDA_ERROR_INVALID_VALUE);
	/* dims up to 2^32, boxes up to 256, element strides up to 8 */
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled(&map, f16, 2, buf, big_dims, stride,
							  box, step, none, sw, l2, fill),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled(&map, f16, 2, buf, dims, stride,
							  big_box, step, none, sw, l2, fill),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled(&map, f16, 2, buf, dims, stride, box,
							  bad_step, none, sw, l2, fill),
			 CUDA_ERROR_INVALID_VALUE);
	/* a 128-byte inner box is wider than the 64-byte swizzle */
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled(&map, f16, 2, buf, dims, stride, box,
							  step, none, CU_TENSOR_MAP_SWIZZLE_64B, l2,
							  fill),
			 CUDA_ERROR_INVALID_VALUE);
	/* interleave needs rank 3 or more */
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled(&map, f16, 2, buf, dims, stride, box,
							  step, CU_TENSOR_MAP_INTERLEAVE_16B, sw, l2,
							  fill),
			 CUDA_ERROR_INVALID_VALUE);
	/* a NaN fill needs a floating-point type */
	assert_int_equal(gbsim_drv_cuTensorMapEncodeTiled(
				 &map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, buf, dims, stride, box,
				 step, none, sw, l2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA),
			 CUDA_ERROR_INVALID_VALUE);
	/* replace: aligned addresses only, and only in maps the encoder made */
	assert_int_equal(gbsim_drv_cuTensorMapReplaceAddress(&map, buf + 8), CUDA_SUCCESS);
	assert_int_equal(gbsim_drv_cuTensorMapReplaceAddress(&map, buf + 3),
			 CUDA_ERROR_INVALID_VALUE);
	memset(&map, 0, sizeof(map));
	assert_int_equal(gbsim_drv_cuTensorMapReplaceAddress(&map, buf), CUDA_ERROR_INVALID_VALUE);
}

/* ---- wgmma ---- */

/* the kernel's k argument is k_arg, or c->k when 0 */
static cudaError_t run_wgmma(struct h_case *c, const struct gbsim_gpu *gpu, CUtensorMap *mx,
			     CUtensorMap *my, unsigned k_arg, struct gbsim_cost *cost)
{
	unsigned tiles_m = ceil_div(c->m, 256), tiles_n = ceil_div(c->n, 128);
	unsigned k = k_arg ? k_arg : c->k;
	void *args[8] = { mx, my, &c->d, &c->n, &c->m, &k, &tiles_m, &tiles_n };

	return launch(gbsim_twins_wgmma, c->bf16 ? wgmma_bf16_name : wgmma_f16_name, gpu,
		      d3(tiles_m * tiles_n, 1), d3(384, 1), 4 * 49152 + 1024, args, cost);
}

/* encode as the launcher does (X = B in 128-row boxes, Y = A in 256-row boxes), then run */
static cudaError_t encode_run_wgmma(struct h_case *c, const struct gbsim_gpu *gpu,
				    struct gbsim_cost *cost)
{
	CUtensorMap mx, my;

	assert_int_equal(encode(&mx, c->b, c->k, c->n, c->pitch, 128, c->bf16), CUDA_SUCCESS);
	assert_int_equal(encode(&my, c->a, c->k, c->m, c->pitch, 256, c->bf16), CUDA_SUCCESS);
	return run_wgmma(c, gpu, &mx, &my, 0, cost);
}

static void test_wgmma(void **state)
{
	(void)state;
	for (int bf16 = 0; bf16 < 2; bf16++) {
		struct h_case c;
		struct gbsim_cost cost;

		/* two tiles each way, k past one 64-wide slice, even m */
		h_case_init(&c, 300, 130, 72, 72, bf16, 3);
		assert_int_equal(encode_run_wgmma(&c, &h100, &cost), cudaSuccess);
		assert_int_equal(h_case_check(&c), 0);
		assert_true(cost.flops == 2.0 * 300 * 130 * 72);
		assert_int_equal(cost.prec, bf16 ? GBSIM_BF16 : GBSIM_FP16);
		/* no sm_90a image for compute capability 8.0 */
		poison_16(c.d, (size_t)300 * 130);
		assert_int_equal(encode_run_wgmma(&c, &a100, NULL), cudaErrorNoKernelImageForDevice);
		assert_int_equal(h_case_check(&c), (size_t)300 * 130);
		h_case_free(&c);

		/* padded k: rows of 19 halves stored at a pitch of 24, pad columns NaN; odd m */
		h_case_init(&c, 7, 5, 19, 24, bf16, 4);
		assert_int_equal(encode_run_wgmma(&c, &h100, NULL), cudaSuccess);
		assert_int_equal(h_case_check(&c), 0);
		h_case_free(&c);
	}
}

static void test_wgmma_reads_through_maps(void **state)
{
	struct h_case c, other;
	CUtensorMap mx, my;

	(void)state;
	h_case_init(&c, 40, 24, 16, 16, false, 5);
	h_case_init(&other, 40, 24, 16, 16, false, 77);
	memcpy(other.bv, c.bv, (size_t)24 * 16 * sizeof(float));
	memcpy(other.b, c.b, (size_t)24 * 16 * 2);
	/* Y's map encoded on c's A, then moved to other's A: other's product comes out */
	assert_int_equal(encode(&mx, c.b, 16, 24, 16, 128, false), CUDA_SUCCESS);
	assert_int_equal(encode(&my, c.a, 16, 40, 16, 256, false), CUDA_SUCCESS);
	assert_int_equal(gbsim_drv_cuTensorMapReplaceAddress(&my, other.a), CUDA_SUCCESS);
	assert_int_equal(run_wgmma(&c, &h100, &mx, &my, 0, NULL), cudaSuccess);
	memcpy(other.d, c.d, ((size_t)40 * 24 + GUARD) * 2);
	assert_int_equal(h_case_check(&other), 0);
	/* a box the kernel does not expect stalls its pipeline: refused */
	assert_int_equal(encode(&my, c.a, 16, 40, 16, 128, false), CUDA_SUCCESS);
	assert_int_equal(run_wgmma(&c, &h100, &mx, &my, 0, NULL), cudaErrorLaunchFailure);
	/* and so is a map the encoder never made */
	memset(&my, 0, sizeof(my));
	assert_int_equal(run_wgmma(&c, &h100, &mx, &my, 0, NULL), cudaErrorLaunchFailure);
	h_case_free(&c);
	h_case_free(&other);
}

static void test_wgmma_k_bounds(void **state)
{
	struct h_case c;
	CUtensorMap mx, my;

	(void)state;
	h_case_init(&c, 40, 24, 72, 72, false, 6);
	assert_int_equal(encode(&mx, c.b, 72, 24, 72, 128, false), CUDA_SUCCESS);
	assert_int_equal(encode(&my, c.a, 72, 40, 72, 256, false), CUDA_SUCCESS);
	/* k = 16 is one 64-wide slice: the kernel sums what the maps give up to 64 */
	c.k_sum = 64;
	assert_int_equal(run_wgmma(&c, &h100, &mx, &my, 16, NULL), cudaSuccess);
	assert_int_equal(h_case_check(&c), 0);
	/* X's map ends at k = 40: TMA reads zeros past it, whatever Y holds */
	assert_int_equal(encode(&mx, c.b, 40, 24, 72, 128, false), CUDA_SUCCESS);
	c.k_sum = 40;
	poison_16(c.d, (size_t)40 * 24);
	assert_int_equal(run_wgmma(&c, &h100, &mx, &my, 0, NULL), cudaSuccess);
	assert_int_equal(h_case_check(&c), 0);
	h_case_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_tiled),
		cmocka_unit_test(test_tiled_partial_grid),
		cmocka_unit_test(test_result_cache),
		cmocka_unit_test(test_sgemm),
		cmocka_unit_test(test_sgemm_refusals),
		cmocka_unit_test(test_mma),
		cmocka_unit_test(test_encode_checks),
		cmocka_unit_test(test_wgmma),
		cmocka_unit_test(test_wgmma_reads_through_maps),
		cmocka_unit_test(test_wgmma_k_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
