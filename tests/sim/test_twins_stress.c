/* SPDX-License-Identifier: MIT */
/*
 * test_twins_stress.c - the CPU twins of kernels/stress.cu
 * (tests/sim/twins/twins_stress.c), called directly through their table
 * with launches shaped as the launchers shape them, on memory from the
 * simulated runtime's cudaMalloc. Each output is checked against an
 * independent computation: fills decoded with this file's own decoders,
 * sums of integer data (exact in any order), planted mismatches, NaNs and
 * bit flips whose effect is worked out by hand, records against the
 * launch's limits, and the access and launch-shape errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/stress/stress_math.h"
#include "kernels/stress.h"
#include "tests/sim/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct gbsim_twin gbsim_twins_stress[];

#define THREADS 256u  /* stress.cu's GB_THREADS */
#define VCOLS 32u     /* stress.cu's GB_VERIFY_COLS */

/* ---- helpers: twins by name, launches, device memory ---- */

static const char *const kernel_names[] = {
	"void fill_kernel<double>(double*, unsigned long, unsigned long, int, long)",
	"void fill_kernel<float>(float*, unsigned long, unsigned long, int, long)",
	"void fill_kernel<__half>(__half*, unsigned long, unsigned long, int, long)",
	"void fill_kernel<__nv_bfloat16>(__nv_bfloat16*, unsigned long, unsigned long, int, long)",
	"void fill_kernel<__nv_fp8_e4m3>(__nv_fp8_e4m3*, unsigned long, unsigned long, int, long)",
	"void verify_kernel<double>(double const*, double const*, unsigned long, unsigned long, "
	"unsigned int, double*, double*, gb_stress_verify*)",
	"void verify_kernel<float>(float const*, float const*, unsigned long, unsigned long, "
	"unsigned int, double*, double*, gb_stress_verify*)",
	"check_sums_kernel(double const*, double const*, double const*, double const*, "
	"double const*, double const*, unsigned long, unsigned long, unsigned int, "
	"gb_stress_verify*)",
	"digest_kernel(unsigned int const*, unsigned long, unsigned long long*)",
	"flip_kernel(void*, int, unsigned long, unsigned long long*)",
	"memtest_write_kernel(unsigned int*, unsigned long, int, unsigned int, unsigned long)",
	"memtest_verify_kernel(unsigned int*, unsigned long, int, unsigned int, unsigned long, "
	"int, gb_memtest_report*)",
};
#define N_KERNELS (sizeof(kernel_names) / sizeof(kernel_names[0]))

enum { K_FILL_F64, K_FILL_F32, K_FILL_F16, K_FILL_BF16, K_FILL_E4M3, K_VERIFY_F64, K_VERIFY_F32,
       K_CHECK_SUMS, K_DIGEST, K_FLIP, K_MT_WRITE, K_MT_VERIFY };

static gbsim_twin_fn twin(unsigned k)
{
	for (const struct gbsim_twin *t = gbsim_twins_stress; t->name; t++)
		if (!strcmp(t->name, kernel_names[k]))
			return t->run;
	fail_msg("no twin named '%s'", kernel_names[k]);
	return NULL;
}

/* stress.cu's grid_for: blocks of 256, at most 65535 */
static unsigned grid_for(uint64_t n)
{
	uint64_t b = (n + THREADS - 1) / THREADS;

	return (unsigned)(b < 65535 ? (b ? b : 1) : 65535);
}

static cudaError_t launch(unsigned k, dim3 grid, dim3 block, void **args, struct gbsim_cost *cost)
{
	struct gbsim_launch l = {
		.kernel = kernel_names[k], .grid = grid, .block = block, .args = args, .device = 0,
		.gpu = &gbsim_machine()->gpus[0],
	};

	memset(cost, 0, sizeof(*cost));
	return twin(k)(&l, cost);
}

static dim3 d3(unsigned x, unsigned y)
{
	dim3 d = {x, y, 1};

	return d;
}

static void *dev_alloc(size_t bytes)
{
	void *p = NULL;

	assert_int_equal(cudaMalloc(&p, bytes), cudaSuccess);
	memset(p, 0, bytes); /* simulated device memory is host memory the twins write */
	return p;
}

static void dev_free(void *p)
{
	assert_int_equal(cudaFree(p), cudaSuccess);
}

/* ---- this file's own decoders of the narrow formats ---- */

static double decode_f16(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);

	assert_true(e != 31);
	return (h >> 15) ? -v : v;
}

static double decode_bf16(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static double decode_e4m3(uint8_t b)
{
	int e = (b >> 3) & 15, m = b & 7;
	double v = e ? ldexp(8 + m, e - 10) : ldexp(m, -9);

	assert_true((b & 0x7f) != 0x7f);
	return (b >> 7) ? -v : v;
}

static double element_as_double(const void *p, unsigned k, uint64_t i)
{
	switch (k) {
	case K_FILL_F64:
		return ((const double *)p)[i];
	case K_FILL_F32:
		return ((const float *)p)[i];
	case K_FILL_F16:
		return decode_f16(((const uint16_t *)p)[i]);
	case K_FILL_BF16:
		return decode_bf16(((const uint16_t *)p)[i]);
	default:
		return decode_e4m3(((const uint8_t *)p)[i]);
	}
}

/* ---- the table ---- */

static void test_table_names(void **state)
{
	size_t n = 0;

	(void)state;
	for (const struct gbsim_twin *t = gbsim_twins_stress; t->name; t++, n++) {
		size_t hits = 0;

		assert_non_null(t->run);
		for (size_t k = 0; k < N_KERNELS; k++)
			hits += !strcmp(t->name, kernel_names[k]);
		if (hits != 1)
			fail_msg("'%s' is not one of stress.cu's kernels", t->name);
	}
	assert_int_equal(n, N_KERNELS);
}

/* ---- fill ---- */

/* every type, random and exact data, the launcher's grid and a one-block grid */
static void test_fill_values(void **state)
{
	static const struct {
		unsigned k;
		size_t size;
		int sig_bits;
		int64_t r;
	} cases[] = {
		{K_FILL_F64, 8, 53, 0}, {K_FILL_F64, 8, 53, 100000}, {K_FILL_F32, 4, 24, 0},
		{K_FILL_F32, 4, 11, 2048}, {K_FILL_F16, 2, 11, 0}, {K_FILL_F16, 2, 11, 2048},
		{K_FILL_BF16, 2, 8, 0}, {K_FILL_BF16, 2, 8, 256}, {K_FILL_E4M3, 1, 4, 0},
		{K_FILL_E4M3, 1, 4, 16},
	};
	uint64_t n = 3000, key = gb_stress_key(7, 1);

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (int one_block = 0; one_block < 2; one_block++) {
			void *p = dev_alloc(n * cases[c].size);
			int sig_bits = cases[c].sig_bits;
			int64_t r = cases[c].r;
			void *args[] = {&p, &n, &key, &sig_bits, &r};
			struct gbsim_cost cost;

			assert_int_equal(launch(cases[c].k, d3(one_block ? 1 : grid_for(n), 1),
						d3(THREADS, 1), args, &cost),
					 cudaSuccess);
			for (uint64_t i = 0; i < n; i++)
				if (element_as_double(p, cases[c].k, i) !=
				    gb_stress_value(key, i, sig_bits, r))
					fail_msg("case %zu element %llu: %g, want %g", c,
						 (unsigned long long)i,
						 element_as_double(p, cases[c].k, i),
						 gb_stress_value(key, i, sig_bits, r));
			assert_true(cost.bytes == (double)n * (double)cases[c].size);
			dev_free(p);
		}
}

static void test_fill_outside_memory(void **state)
{
	uint64_t n = 64, key = 1;
	int sig_bits = 24;
	int64_t r = 0;
	float *host = malloc(n * sizeof(*host));
	void *args[] = {&host, &n, &key, &sig_bits, &r};
	struct gbsim_cost cost;

	(void)state;
	assert_non_null(host);
	/* pageable host memory is not the GPU's: the real kernel faults */
	assert_int_equal(launch(K_FILL_F32, d3(1, 1), d3(THREADS, 1), args, &cost),
			 cudaErrorIllegalAddress);
	free(host);
}

/* ---- verify ---- */

struct vbuf {
	uint64_t m, n;
	float *c, *ref;
	double *col, *row;
	struct gb_stress_verify *v;
};

/* c = ref = small integers (sums exact in any order), col/row/v zeroed */
static void vbuf_init(struct vbuf *b, uint64_t m, uint64_t n)
{
	b->m = m;
	b->n = n;
	b->c = dev_alloc(m * n * sizeof(float));
	b->ref = dev_alloc(m * n * sizeof(float));
	b->col = dev_alloc(n * sizeof(double));
	b->row = dev_alloc(m * sizeof(double));
	b->v = dev_alloc(sizeof(*b->v));
	for (uint64_t k = 0; k < m * n; k++)
		b->c[k] = b->ref[k] = (float)((int)(gb_stress_mix64(k) % 17) - 8);
}

static void vbuf_free(struct vbuf *b)
{
	dev_free(b->v);
	dev_free(b->row);
	dev_free(b->col);
	dev_free(b->ref);
	dev_free(b->c);
}

static cudaError_t vbuf_verify(struct vbuf *b, uint32_t slot, bool sums, bool compare, dim3 grid)
{
	const float *ref = compare ? b->ref : NULL;
	double *col = sums ? b->col : NULL, *row = sums ? b->row : NULL;
	void *args[] = {&b->c, &ref, &b->m, &b->n, &slot, &col, &row, &b->v};
	struct gbsim_cost cost;

	return launch(K_VERIFY_F32, grid, d3(THREADS, 1), args, &cost);
}

static dim3 verify_grid(uint64_t m, uint64_t n)
{
	return d3((unsigned)((m + THREADS - 1) / THREADS), (unsigned)((n + VCOLS - 1) / VCOLS));
}

static void test_verify_sums_exact(void **state)
{
	struct vbuf b;

	(void)state;
	vbuf_init(&b, 300, 70); /* neither a multiple of the block */
	assert_int_equal(vbuf_verify(&b, 3, true, true, verify_grid(300, 70)), cudaSuccess);
	for (uint64_t j = 0; j < b.n; j++) {
		double s = 0;

		for (uint64_t i = 0; i < b.m; i++)
			s += b.c[i + j * b.m];
		assert_true(b.col[j] == s);
	}
	for (uint64_t i = 0; i < b.m; i++) {
		double s = 0;

		for (uint64_t j = 0; j < b.n; j++)
			s += b.c[i + j * b.m];
		assert_true(b.row[i] == s);
	}
	assert_int_equal(b.v->repeat_diffs, 0);
	assert_int_equal(b.v->nonfinite, 0);
	assert_int_equal(b.v->n_elem, 0);
	vbuf_free(&b);
}

/* warp_sum as the GPU runs it: every lane adds its xor-partner's value, 5 rounds; lane 0's */
static double butterfly_lane0(const double *x)
{
	double lane[32], next[32];

	memcpy(lane, x, sizeof(lane));
	for (int o = 16; o > 0; o /= 2) {
		for (int k = 0; k < 32; k++)
			next[k] = lane[k] + lane[k ^ o];
		memcpy(lane, next, sizeof(lane));
	}
	return lane[0];
}

/*
 * Random data, one block: a column sum is the 8 warps' butterflies added in
 * warp order, a row sum the thread's running sum over its 32 columns, both
 * bit for bit (rounding makes the order visible).
 */
static void test_verify_sums_order(void **state)
{
	struct vbuf b;

	(void)state;
	vbuf_init(&b, 256, 32);
	for (uint64_t k = 0; k < 256 * 32; k++)
		/* magnitudes 2^-40 .. 2^40: sums of 32 of them round in double */
		b.c[k] = ldexpf((float)gb_stress_value(11, k, 24, 0),
				(int)(gb_stress_mix64(k) % 81) - 40);
	assert_int_equal(vbuf_verify(&b, 0, true, false, d3(1, 1)), cudaSuccess);
	for (uint64_t j = 0; j < 32; j++) {
		double s = 0, x[32];

		for (unsigned w = 0; w < 8; w++) {
			for (unsigned lane = 0; lane < 32; lane++)
				x[lane] = b.c[w * 32 + lane + j * 256];
			s += butterfly_lane0(x);
		}
		assert_true(b.col[j] == s);
	}
	for (uint64_t i = 0; i < 256; i++) {
		double s = 0;

		for (uint64_t j = 0; j < 32; j++)
			s += b.c[i + j * 256];
		assert_true(b.row[i] == s);
	}
	vbuf_free(&b);
}

static bool has_elem_rec(const struct gb_stress_verify *v, uint32_t slot, uint32_t i, uint32_t j,
			 float want, float got)
{
	uint32_t wb, gb;

	memcpy(&wb, &want, 4);
	memcpy(&gb, &got, 4);
	for (unsigned r = 0; r < v->n_elem && r < GB_STRESS_MAX_RECORDS; r++)
		if (v->elem[r].slot == slot && v->elem[r].row == i && v->elem[r].col == j &&
		    v->elem[r].expected_bits == wb && v->elem[r].got_bits == gb)
			return true;
	return false;
}

static void test_verify_planted(void **state)
{
	static const uint32_t at[][2] = {{0, 0}, {299, 69}, {150, 33}};
	struct vbuf b;

	(void)state;
	vbuf_init(&b, 300, 70);
	for (size_t p = 0; p < 3; p++)
		b.c[at[p][0] + at[p][1] * b.m] += 0.5f;
	b.c[7 + 8 * b.m] = NAN;
	b.c[9 + 8 * b.m] = INFINITY;
	assert_int_equal(vbuf_verify(&b, 5, true, true, verify_grid(300, 70)), cudaSuccess);
	assert_int_equal(b.v->repeat_diffs, 5);
	assert_int_equal(b.v->nonfinite, 2);
	assert_int_equal(b.v->n_elem, 5);
	for (size_t p = 0; p < 3; p++) {
		uint64_t k = at[p][0] + at[p][1] * b.m;

		assert_true(has_elem_rec(b.v, 5, at[p][0], at[p][1], b.ref[k], b.c[k]));
	}
	assert_true(has_elem_rec(b.v, 5, 9, 8, b.ref[9 + 8 * b.m], INFINITY));
	assert_true(isnan(b.col[8]) && isnan(b.row[7]) && isinf(b.row[9]));
	assert_false(isnan(b.col[7]) || isnan(b.row[8]));
	vbuf_free(&b);
}

/* 20 mismatches, 10 records already claimed: 6 more kept, all 20 counted */
static void test_verify_record_limit(void **state)
{
	struct vbuf b;

	(void)state;
	vbuf_init(&b, 256, 32);
	for (uint64_t k = 0; k < 20; k++)
		b.c[k * 97] += 1;
	b.v->n_elem = 10;
	b.v->repeat_diffs = 1000;
	assert_int_equal(vbuf_verify(&b, 1, false, true, verify_grid(256, 32)), cudaSuccess);
	assert_int_equal(b.v->repeat_diffs, 1020);
	assert_int_equal(b.v->n_elem, GB_STRESS_MAX_RECORDS);
	for (unsigned r = 10; r < GB_STRESS_MAX_RECORDS; r++)
		assert_int_equal((b.v->elem[r].row + b.v->elem[r].col * 256) % 97, 0);
	vbuf_free(&b);
}

/* the grid decides what is verified: the launch covers 32 of 70 columns */
static void test_verify_grid_coverage(void **state)
{
	struct vbuf b;

	(void)state;
	vbuf_init(&b, 300, 70);
	b.c[1 + 10 * b.m] += 1; /* covered */
	b.c[1 + 40 * b.m] += 1; /* not covered */
	assert_int_equal(vbuf_verify(&b, 0, true, true, d3(2, 1)), cudaSuccess);
	assert_int_equal(b.v->repeat_diffs, 1);
	for (uint64_t j = 0; j < 70; j++) {
		double s = 0;

		for (uint64_t i = 0; j < 32 && i < b.m; i++)
			s += b.c[i + j * b.m];
		assert_true(b.col[j] == s); /* columns past the grid stay 0 */
	}
	vbuf_free(&b);
}

/* a clean slot leaves v alone (the GPU only touches it to add or record) */
static void test_verify_clean_leaves_v(void **state)
{
	struct vbuf b;
	struct gb_stress_verify *keep;

	(void)state;
	vbuf_init(&b, 64, 64);
	keep = b.v;
	b.v = (struct gb_stress_verify *)(uintptr_t)0x40;
	assert_int_equal(vbuf_verify(&b, 0, false, true, verify_grid(64, 64)), cudaSuccess);
	b.c[3] = NAN;
	assert_int_equal(vbuf_verify(&b, 0, false, false, verify_grid(64, 64)),
			 cudaErrorIllegalAddress);
	b.v = keep;
	vbuf_free(&b);
}

static void test_verify_shape(void **state)
{
	struct vbuf b;
	uint32_t slot = 0;
	const float *ref = NULL;
	double *none = NULL;
	void *args[8];
	struct gbsim_cost cost;

	(void)state;
	vbuf_init(&b, 64, 64);
	args[0] = &b.c;
	args[1] = &ref;
	args[2] = &b.m;
	args[3] = &b.n;
	args[4] = &slot;
	args[5] = &none;
	args[6] = &none;
	args[7] = &b.v;
	/* the kernel indexes rows by 256-thread blocks: any other block is not modelled */
	assert_int_equal(launch(K_VERIFY_F32, d3(1, 2), d3(128, 1), args, &cost),
			 cudaErrorLaunchFailure);
	vbuf_free(&b);
}

static void test_verify_f64(void **state)
{
	uint64_t m = 40, n = 40;
	double *c = dev_alloc(m * n * 8), *ref = dev_alloc(m * n * 8);
	double *col = dev_alloc(n * 8), *row = dev_alloc(m * 8);
	struct gb_stress_verify *v = dev_alloc(sizeof(*v));
	uint32_t slot = 2;
	void *args[] = {&c, &ref, &m, &n, &slot, &col, &row, &v};
	struct gbsim_cost cost;

	(void)state;
	for (uint64_t k = 0; k < m * n; k++)
		c[k] = ref[k] = (double)(k % 11);
	c[5 + 6 * m] = nextafter(c[5 + 6 * m], 100); /* one ulp: bits differ */
	assert_int_equal(launch(K_VERIFY_F64, d3(1, 2), d3(THREADS, 1), args, &cost), cudaSuccess);
	assert_int_equal(v->repeat_diffs, 1);
	assert_int_equal(v->n_elem, 1);
	assert_int_equal(v->elem[0].row, 5);
	assert_int_equal(v->elem[0].col, 6);
	assert_int_equal(v->elem[0].slot, 2);
	assert_true(cost.bytes >= 2.0 * (double)(m * n) * 8);
	dev_free(v);
	dev_free(row);
	dev_free(col);
	dev_free(ref);
	dev_free(c);
}

/* ---- checksum comparison ---- */

static void test_check_sums(void **state)
{
	uint64_t m = 300, n = 200;
	double *col = dev_alloc(n * 8), *row = dev_alloc(m * 8);
	double *col_exp = dev_alloc(n * 8), *col_bound = dev_alloc(n * 8);
	double *row_exp = dev_alloc(m * 8), *row_bound = dev_alloc(m * 8);
	struct gb_stress_verify *v = dev_alloc(sizeof(*v));
	uint32_t slot = 4;
	void *args[] = {&col, &row, &col_exp, &col_bound, &row_exp, &row_bound, &m, &n, &slot, &v};
	struct gbsim_cost cost;
	double want_ratio;

	(void)state;
	for (uint64_t j = 0; j < n; j++) {
		col_exp[j] = (double)j;
		col[j] = (double)j + 0.25;
		col_bound[j] = 1.0; /* ratio 0.25 */
	}
	for (uint64_t i = 0; i < m; i++) {
		row_exp[i] = row[i] = (double)i;
		row_bound[i] = 0; /* exact: no ratio */
	}
	col[17] = 17 + 0.75;       /* the largest ratio that passes */
	col[50] = 50 + 3.0;        /* fails, ratio 3 */
	row[10] = NAN;             /* fails, no ratio */
	row[299] = 299 + 1.0;      /* fails against bound 0, no ratio */
	col_bound[60] = 0;         /* exact and equal: passes */
	col[60] = col_exp[60];
	want_ratio = 3.0;
	assert_int_equal(launch(K_CHECK_SUMS, d3((unsigned)((m + n + THREADS - 1) / THREADS), 1),
				d3(THREADS, 1), args, &cost),
			 cudaSuccess);
	assert_int_equal(v->sum_mismatches, 3);
	assert_int_equal(v->n_sum, 3);
	assert_int_equal(v->sum[0].index, 50);
	assert_int_equal(v->sum[0].is_row, 0);
	assert_true(v->sum[0].observed == 53.0 && v->sum[0].expected == 50.0 &&
		    v->sum[0].bound == 1.0);
	assert_int_equal(v->sum[1].index, 10);
	assert_int_equal(v->sum[1].is_row, 1);
	assert_true(isnan(v->sum[1].observed));
	assert_int_equal(v->sum[2].index, 299);
	assert_int_equal(v->sum[2].slot, 4);
	{
		double got;

		memcpy(&got, &v->max_ratio_bits, sizeof(got));
		assert_true(got == want_ratio);
	}
	/* a larger ratio already there stays */
	memset(v, 0, sizeof(*v));
	{
		double big = 1e9;

		memcpy(&v->max_ratio_bits, &big, sizeof(big));
	}
	assert_int_equal(launch(K_CHECK_SUMS, d3(2, 1), d3(THREADS, 1), args, &cost), cudaSuccess);
	{
		double got;

		memcpy(&got, &v->max_ratio_bits, sizeof(got));
		assert_true(got == 1e9);
	}
	dev_free(v);
	dev_free(row_bound);
	dev_free(row_exp);
	dev_free(col_bound);
	dev_free(col_exp);
	dev_free(row);
	dev_free(col);
}

/* ---- digest ---- */

static void test_digest(void **state)
{
	uint64_t n = 5000, want = 0x1234;
	uint32_t *p = dev_alloc(n * 4);
	unsigned long long *d = dev_alloc(8);
	void *args[] = {&p, &n, &d};
	struct gbsim_cost cost;

	(void)state;
	for (uint64_t i = 0; i < n; i++) {
		p[i] = (uint32_t)gb_stress_mix64(i);
		want ^= gb_stress_mix64(((uint64_t)p[i] << 32) ^ (i * 0xA24BAED4963EE407ULL) ^ i);
	}
	*d = 0x1234; /* XORed into what is there */
	assert_int_equal(launch(K_DIGEST, d3(grid_for(n), 1), d3(THREADS, 1), args, &cost),
			 cudaSuccess);
	assert_true(*d == want);
	/* the same bits under any grid give the same digest; one flipped bit does not */
	*d = 0x1234;
	assert_int_equal(launch(K_DIGEST, d3(3, 1), d3(64, 1), args, &cost), cudaSuccess);
	assert_true(*d == want);
	p[4321] ^= 1u << 7;
	gbsim_mem_wrote(p, n * 4); /* the host's store stands for a kernel's: its digest moves */
	*d = 0x1234;
	assert_int_equal(launch(K_DIGEST, d3(3, 1), d3(64, 1), args, &cost), cudaSuccess);
	assert_true(*d != want);
	dev_free(d);
	dev_free(p);
}

/* ---- fault injection ---- */

static uint64_t flip_once(void *c, int is_f64, uint64_t index, unsigned long long *out)
{
	void *args[] = {&c, &is_f64, &index, &out};
	struct gbsim_cost cost;

	assert_int_equal(launch(K_FLIP, d3(1, 1), d3(1, 1), args, &cost), cudaSuccess);
	return out[1];
}

static void test_flip(void **state)
{
	float *f = dev_alloc(4 * sizeof(float));
	double *g = dev_alloc(2 * sizeof(double));
	unsigned long long *out = dev_alloc(2 * 8);
	void *args[4];
	struct gbsim_cost cost;
	int is_f64 = 0;
	uint64_t index = 0;

	(void)state;
	f[1] = 0.5f;        /* exponent 126: top bit clear, set it: 0.5 x 2^128 */
	f[2] = 3.0f;        /* exponent 128: top set, next clear: x 2^64 */
	f[3] = 0x1p100f;    /* exponent 227: both set, clear the top: tiny */
	assert_true(flip_once(f, 0, 1, out) == 0x7f000000u && out[0] == 0x3f000000u);
	assert_true(f[1] == 0x1p127f);
	flip_once(f, 0, 2, out);
	assert_true(f[2] == 3.0f * 0x1p64f);
	flip_once(f, 0, 3, out);
	assert_true(f[3] == 0x1p-28f);
	assert_true(f[0] == 0.0f); /* neighbours untouched; 0 becomes 2^128 only if flipped */
	g[1] = -1.0;        /* 0x3ff: top clear, set it: -2^1024 = -infinity */
	flip_once(g, 1, 1, out);
	assert_true(out[0] == 0xbff0000000000000ULL && out[1] == 0xfff0000000000000ULL);
	assert_true(isinf(g[1]) && g[1] < 0 && g[0] == 0.0);
	/* more than one thread would flip the same bit back and forth: not modelled */
	args[0] = &f;
	args[1] = &is_f64;
	args[2] = &index;
	args[3] = &out;
	assert_int_equal(launch(K_FLIP, d3(1, 1), d3(2, 1), args, &cost), cudaErrorLaunchFailure);
	/* an element far past the allocation faults */
	index = 1ULL << 40;
	assert_int_equal(launch(K_FLIP, d3(1, 1), d3(1, 1), args, &cost), cudaErrorIllegalAddress);
	dev_free(out);
	dev_free(g);
	dev_free(f);
}

/* ---- memtest ---- */

static void memtest_write(uint32_t *p, uint64_t n, int kind, uint32_t param, uint64_t seed)
{
	void *args[] = {&p, &n, &kind, &param, &seed};
	struct gbsim_cost cost;

	assert_int_equal(launch(K_MT_WRITE, d3(grid_for(n), 1), d3(THREADS, 1), args, &cost),
			 cudaSuccess);
	assert_true(cost.bytes == 4.0 * (double)n);
}

static void memtest_verify(uint32_t *p, uint64_t n, int kind, uint32_t param, uint64_t seed,
			   int rewrite, struct gb_memtest_report *r)
{
	void *args[] = {&p, &n, &kind, &param, &seed, &rewrite, &r};
	struct gbsim_cost cost;

	assert_int_equal(launch(K_MT_VERIFY, d3(grid_for(n), 1), d3(THREADS, 1), args, &cost),
			 cudaSuccess);
}

static void test_memtest_patterns(void **state)
{
	uint64_t n = 1000;
	uint32_t *p = dev_alloc(n * 4);

	(void)state;
	memtest_write(p, n, GB_MT_WALK1, 5, 0);
	for (uint64_t i = 0; i < n; i++)
		assert_true(p[i] == 1u << ((5 + i) & 31));
	memtest_write(p, n, GB_MT_WALK0, 5, 0);
	for (uint64_t i = 0; i < n; i++)
		assert_true(p[i] == ~(1u << ((5 + i) & 31)));
	memtest_write(p, n, GB_MT_SOLID, 0x55555555u, 0);
	for (uint64_t i = 0; i < n; i++)
		assert_true(p[i] == 0x55555555u);
	memtest_write(p, n, GB_MT_RANDOM, 0, 99);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t h = gb_stress_mix64(99 ^ (i * 0xD6E8FEB86659FD93ULL));

		assert_true(p[i] == (uint32_t)(h >> 16));
	}
	dev_free(p);
}

static void test_memtest_verify(void **state)
{
	uint64_t n = 4000;
	uint32_t *p = dev_alloc(n * 4);
	struct gb_memtest_report *r = dev_alloc(sizeof(*r));

	(void)state;
	memtest_write(p, n, GB_MT_SOLID, 0x55555555u, 0);
	for (uint64_t k = 0; k < 20; k++)
		p[k * 150 + 3] ^= 1u << (k % 32);
	memtest_verify(p, n, GB_MT_SOLID, 0x55555555u, 0, 1, r);
	assert_int_equal(r->failures, 20);
	assert_int_equal(r->n_rec, GB_STRESS_MAX_RECORDS);
	for (unsigned k = 0; k < GB_STRESS_MAX_RECORDS; k++) {
		assert_int_equal(r->rec[k].word % 150, 3);
		assert_true(r->rec[k].expected == 0x55555555u);
		assert_true(r->rec[k].got == (0x55555555u ^ (1u << ((r->rec[k].word / 150) % 32))));
	}
	/* moving inversions: every word now holds the complement, good or bad before */
	for (uint64_t i = 0; i < n; i++)
		assert_true(p[i] == 0xaaaaaaaau);
	memset(r, 0, sizeof(*r));
	memtest_verify(p, n, GB_MT_SOLID, 0xaaaaaaaau, 0, 0, r);
	assert_int_equal(r->failures, 0);
	assert_int_equal(r->n_rec, 0);
	dev_free(r);
	dev_free(p);
}

/* a clean pass never touches the report, as on the GPU; a failing one faults on a bad one */
static void test_memtest_report_access(void **state)
{
	uint64_t n = 256;
	uint32_t *p = dev_alloc(n * 4);
	struct gb_memtest_report *bogus = (struct gb_memtest_report *)(uintptr_t)0x80;
	int kind = GB_MT_WALK1, rewrite = 0;
	uint32_t param = 0;
	uint64_t seed = 0;
	void *args[] = {&p, &n, &kind, &param, &seed, &rewrite, &bogus};
	struct gbsim_cost cost;

	(void)state;
	memtest_write(p, n, GB_MT_WALK1, 0, 0);
	assert_int_equal(launch(K_MT_VERIFY, d3(1, 1), d3(THREADS, 1), args, &cost), cudaSuccess);
	p[9] = 0;
	assert_int_equal(launch(K_MT_VERIFY, d3(1, 1), d3(THREADS, 1), args, &cost),
			 cudaErrorIllegalAddress);
	dev_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_names),
		cmocka_unit_test(test_fill_values),
		cmocka_unit_test(test_fill_outside_memory),
		cmocka_unit_test(test_verify_sums_exact),
		cmocka_unit_test(test_verify_sums_order),
		cmocka_unit_test(test_verify_planted),
		cmocka_unit_test(test_verify_record_limit),
		cmocka_unit_test(test_verify_grid_coverage),
		cmocka_unit_test(test_verify_clean_leaves_v),
		cmocka_unit_test(test_verify_shape),
		cmocka_unit_test(test_verify_f64),
		cmocka_unit_test(test_check_sums),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_flip),
		cmocka_unit_test(test_memtest_patterns),
		cmocka_unit_test(test_memtest_verify),
		cmocka_unit_test(test_memtest_report_access),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
