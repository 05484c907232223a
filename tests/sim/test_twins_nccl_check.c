/* SPDX-License-Identifier: MIT */
/*
 * test_twins_nccl_check.c - the CPU twins of kernels/nccl_check.cu
 * (tests/sim/twins/twins_nccl_check.c), called directly through their table
 * on memory from the simulated runtime's cudaMalloc. Fills are decoded
 * with this file's own decoders; receive buffers for verify are built here
 * from the inputs of every rank (sum, prod, max, avg, allgather, alltoall,
 * integer wrap-around), then spoiled in known places to count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/nccl/nccl_math.h"
#include "kernels/nccl.h"
#include "tests/sim/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct gbsim_twin gbsim_twins_nccl_check[];

#define THREADS 256u /* nccl_check.cu's kThreads */

/* element types in enum gb_nccl_dtype order, as c++filt spells them */
static const char *const type_names[GB_NCCL_DTYPE_COUNT] = {
	"signed char", "unsigned char", "int", "unsigned int", "long", "unsigned long",
	"__half", "float", "double", "__nv_bfloat16",
};
static const size_t type_sizes[GB_NCCL_DTYPE_COUNT] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};

static gbsim_twin_fn find(bool verify, int dtype)
{
	char name[256];

	if (verify)
		snprintf(name, sizeof(name),
			 "void verify_kernel<%s>(%s const*, unsigned long, unsigned long, "
			 "gb_nccl_expect, double, unsigned long long*)",
			 type_names[dtype], type_names[dtype]);
	else
		snprintf(name, sizeof(name),
			 "void fill_kernel<%s>(%s*, unsigned long, int, unsigned long, int, "
			 "unsigned long)",
			 type_names[dtype], type_names[dtype]);
	for (const struct gbsim_twin *t = gbsim_twins_nccl_check; t->name; t++)
		if (!strcmp(t->name, name))
			return t->run;
	fail_msg("no twin named '%s'", name);
	return NULL;
}

static cudaError_t launch(bool verify, int dtype, unsigned grid, unsigned block, void **args)
{
	struct gbsim_launch l = {
		.kernel = verify ? "nccl verify_kernel" : "nccl fill_kernel",
		.grid = {grid, 1, 1}, .block = {block, 1, 1}, .args = args, .device = 0,
		.gpu = &gbsim_machine()->gpus[0],
	};
	struct gbsim_cost cost;

	memset(&cost, 0, sizeof(cost));
	return find(verify, dtype)(&l, &cost);
}

static void *dev_alloc(size_t bytes)
{
	void *p = NULL;

	assert_int_equal(cudaMalloc(&p, bytes), cudaSuccess);
	memset(p, 0, bytes);
	return p;
}

static void dev_free(void *p)
{
	assert_int_equal(cudaFree(p), cudaSuccess);
}

/* ---- this file's own narrow formats: exact small values only ---- */

static double decode_f16(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);

	return (h >> 15) ? -v : v;
}

static double decode_bf16(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* v exact in the format (|v| < 2048 integer, or a float with few bits), as bits */
static uint16_t encode_f16(double v)
{
	int e;
	double m = frexp(fabs(v), &e); /* v = m 2^e, m in [0.5, 1) */
	uint16_t s = v < 0 ? 0x8000 : 0;

	if (v == 0)
		return s;
	return s | (uint16_t)((e + 14) << 10) | (uint16_t)(ldexp(m, 11) - 1024);
}

static uint16_t encode_bf16(double v)
{
	float f = (float)v;
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	assert_int_equal(u & 0xffff, 0);
	return (uint16_t)(u >> 16);
}

/* element j of a buffer of dtype, as a double (integers by their C value) */
static double get(const void *buf, int dtype, uint64_t j)
{
	switch (dtype) {
	case GB_NCCL_INT8: return ((const int8_t *)buf)[j];
	case GB_NCCL_UINT8: return ((const uint8_t *)buf)[j];
	case GB_NCCL_INT32: return ((const int32_t *)buf)[j];
	case GB_NCCL_UINT32: return ((const uint32_t *)buf)[j];
	case GB_NCCL_INT64: return (double)((const int64_t *)buf)[j];
	case GB_NCCL_UINT64: return (double)((const uint64_t *)buf)[j];
	case GB_NCCL_HALF: return decode_f16(((const uint16_t *)buf)[j]);
	case GB_NCCL_FLOAT: return ((const float *)buf)[j];
	case GB_NCCL_DOUBLE: return ((const double *)buf)[j];
	default: return decode_bf16(((const uint16_t *)buf)[j]);
	}
}

/* store v (exact in the type, or wrapped for integers) */
static void put(void *buf, int dtype, uint64_t j, double v)
{
	switch (dtype) {
	case GB_NCCL_INT8: ((int8_t *)buf)[j] = (int8_t)(int64_t)v; break;
	case GB_NCCL_UINT8: ((uint8_t *)buf)[j] = (uint8_t)(int64_t)v; break;
	case GB_NCCL_INT32: ((int32_t *)buf)[j] = (int32_t)(int64_t)v; break;
	case GB_NCCL_UINT32: ((uint32_t *)buf)[j] = (uint32_t)(int64_t)v; break;
	case GB_NCCL_INT64: ((int64_t *)buf)[j] = (int64_t)v; break;
	case GB_NCCL_UINT64: ((uint64_t *)buf)[j] = (uint64_t)(int64_t)v; break;
	case GB_NCCL_HALF: ((uint16_t *)buf)[j] = encode_f16(v); break;
	case GB_NCCL_FLOAT: ((float *)buf)[j] = (float)v; break;
	case GB_NCCL_DOUBLE: ((double *)buf)[j] = v; break;
	default: ((uint16_t *)buf)[j] = encode_bf16(v); break;
	}
}

/* ---- fill ---- */

static void fill(void *buf, uint64_t count, int dtype, int redop, uint64_t seed, int rank,
		 uint64_t first, unsigned grid)
{
	void *args[] = {&buf, &count, &redop, &seed, &rank, &first};

	assert_int_equal(launch(false, dtype, grid, THREADS, args), cudaSuccess);
}

static void test_fill_every_type(void **state)
{
	uint64_t count = 1500, first = 77, seed = 42;

	(void)state;
	for (int t = 0; t < GB_NCCL_DTYPE_COUNT; t++)
		for (int redop = GB_NCCL_SUM; redop <= GB_NCCL_PROD; redop++) {
			void *buf = dev_alloc(count * type_sizes[t]);

			/* one block: the grid-stride loop still covers every element */
			fill(buf, count, t, redop, seed, 3, first, t % 2 ? 1 : 6);
			for (uint64_t j = 0; j < count; j++) {
				double want = gb_nccl_input(redop, seed, 3, first + j);

				if (get(buf, t, j) != want)
					fail_msg("%s element %llu: %g, want %g", type_names[t],
						 (unsigned long long)j, get(buf, t, j), want);
				assert_true(want >= 1 && want <= (redop == GB_NCCL_PROD ? 2 : 4));
			}
			dev_free(buf);
		}
}

/* ---- verify ---- */

static unsigned long long verify(const void *buf, uint64_t count, uint64_t first,
				 const struct gb_nccl_expect *e, unsigned long long *nwrong)
{
	double tol = gb_nccl_tolerance(e->dtype, e->coll, e->redop, e->nranks);
	struct gb_nccl_expect x = *e;
	void *args[] = {&buf, &count, &first, &x, &tol, &nwrong};

	*nwrong = 0;
	assert_int_equal(launch(true, e->dtype, 4, THREADS, args), cudaSuccess);
	return *nwrong;
}

/* the reduction of the ranks' inputs at index idx, worked out here */
static double reduce_at(int redop, uint64_t seed, int nranks, uint64_t idx)
{
	double r = gb_nccl_input(redop, seed, 0, idx);

	for (int s = 1; s < nranks; s++) {
		double v = gb_nccl_input(redop, seed, s, idx);

		if (redop == GB_NCCL_PROD)
			r *= v;
		else if (redop == GB_NCCL_MAX)
			r = v > r ? v : r;
		else if (redop == GB_NCCL_MIN)
			r = v < r ? v : r;
		else
			r += v;
	}
	return r;
}

/* allreduce sum/prod/max in every type: a right buffer counts 0, three spoiled count 3 */
static void test_verify_allreduce(void **state)
{
	static const int redops[] = {GB_NCCL_SUM, GB_NCCL_PROD, GB_NCCL_MAX};
	uint64_t count = 1000, seed = 5;
	unsigned long long *nwrong = dev_alloc(sizeof(*nwrong));

	(void)state;
	for (int t = 0; t < GB_NCCL_DTYPE_COUNT; t++)
		for (size_t r = 0; r < 3; r++) {
			struct gb_nccl_expect e = {GB_NCCL_ALLREDUCE, redops[r], t, 4, 1, 0,
						   count, seed};
			void *buf = dev_alloc(count * type_sizes[t]);

			for (uint64_t j = 0; j < count; j++)
				put(buf, t, j, reduce_at(redops[r], seed, 4, j));
			assert_int_equal(verify(buf, count, 0, &e, nwrong), 0);
			put(buf, t, 0, get(buf, t, 0) + 1);
			put(buf, t, 500, 0);
			put(buf, t, 999, get(buf, t, 999) + 2);
			if (verify(buf, count, 0, &e, nwrong) != 3)
				fail_msg("%s op %d: %llu wrong, want 3", type_names[t], redops[r],
					 *nwrong);
			dev_free(buf);
		}
	dev_free(nwrong);
}

/* 8 ranks' products of 1..2 reach 256: uint8 and int8 hold it wrapped to 0 */
static void test_verify_integer_wrap(void **state)
{
	uint64_t count = 4096, seed = 9;
	unsigned long long *nwrong = dev_alloc(sizeof(*nwrong));
	uint64_t wrapped = 0;

	(void)state;
	for (int t = GB_NCCL_INT8; t <= GB_NCCL_UINT8; t++) {
		struct gb_nccl_expect e = {GB_NCCL_ALLREDUCE, GB_NCCL_PROD, t, 8, 0, 0, count,
					   seed};
		uint8_t *buf = dev_alloc(count);

		for (uint64_t j = 0; j < count; j++) {
			double p = reduce_at(GB_NCCL_PROD, seed, 8, j);

			buf[j] = (uint8_t)((uint64_t)p & 0xff);
			wrapped += p == 256;
		}
		assert_int_equal(verify(buf, count, 0, &e, nwrong), 0);
		/* the unwrapped value is wrong: a 256 stored as 255 is one off */
		for (uint64_t j = 0; j < count; j++)
			if (reduce_at(GB_NCCL_PROD, seed, 8, j) == 256) {
				buf[j] = 255;
				break;
			}
		assert_int_equal(verify(buf, count, 0, &e, nwrong), 1);
		dev_free(buf);
	}
	assert_true(wrapped > 0); /* 1 in 256 elements: the case was exercised */
	dev_free(nwrong);
}

/* float avg divides: within gb_nccl_tolerance passes, beyond it and NaN do not */
static void test_verify_avg_tolerance(void **state)
{
	uint64_t count = 512, seed = 3;
	int nranks = 3;
	struct gb_nccl_expect e = {GB_NCCL_ALLREDUCE, GB_NCCL_AVG, GB_NCCL_FLOAT, 3, 0, 0, count,
				   seed};
	float *buf = dev_alloc(count * sizeof(float));
	unsigned long long *nwrong = dev_alloc(sizeof(*nwrong));
	double tol = gb_nccl_tolerance(GB_NCCL_FLOAT, GB_NCCL_ALLREDUCE, GB_NCCL_AVG, nranks);

	(void)state;
	assert_true(tol > 0);
	for (uint64_t j = 0; j < count; j++)
		buf[j] = (float)(reduce_at(GB_NCCL_SUM, seed, nranks, j) / nranks);
	assert_int_equal(verify(buf, count, 0, &e, nwrong), 0);
	buf[10] = nextafterf(buf[10], 100); /* one ulp: well inside 2 n ulp */
	assert_int_equal(verify(buf, count, 0, &e, nwrong), 0);
	buf[11] *= 1.0f + 64 * (float)tol;
	buf[12] = NAN;
	assert_int_equal(verify(buf, count, 0, &e, nwrong), 2);
	dev_free(nwrong);
	dev_free(buf);
}

/* allgather and alltoall: element i comes from one rank; first offsets the check */
static void test_verify_gather_alltoall(void **state)
{
	uint64_t pc = 100, seed = 17;
	int nranks = 4, rank = 2;
	int32_t *buf = dev_alloc(pc * nranks * sizeof(int32_t));
	unsigned long long *nwrong = dev_alloc(sizeof(*nwrong));
	struct gb_nccl_expect e = {GB_NCCL_ALLGATHER, GB_NCCL_SUM, GB_NCCL_INT32, 4, 2, 0, pc,
				   seed};

	(void)state;
	for (uint64_t i = 0; i < pc * nranks; i++)
		buf[i] = gb_nccl_input(GB_NCCL_SUM, seed, (int)(i / pc), i % pc);
	assert_int_equal(verify(buf, pc * nranks, 0, &e, nwrong), 0);
	/* the second half alone, as an in-place chunk is checked */
	assert_int_equal(verify(buf + 200, 200, 200, &e, nwrong), 0);
	buf[250] += 1;
	assert_int_equal(verify(buf + 200, 200, 200, &e, nwrong), 1);
	/* the same data read as alltoall of rank 2 is mostly wrong */
	e.coll = GB_NCCL_ALLTOALL;
	assert_true(verify(buf, pc * nranks, 0, &e, nwrong) > 0);
	for (uint64_t i = 0; i < pc * nranks; i++)
		buf[i] = gb_nccl_input(GB_NCCL_SUM, seed, (int)(i / pc),
				       (uint64_t)rank * pc + i % pc);
	assert_int_equal(verify(buf, pc * nranks, 0, &e, nwrong), 0);
	dev_free(nwrong);
	dev_free(buf);
}

/* fill then verify as the nccl command does for broadcast: the root's data everywhere */
static void test_fill_then_verify_broadcast(void **state)
{
	uint64_t count = 3000, seed = 8;
	struct gb_nccl_expect e = {GB_NCCL_BROADCAST, GB_NCCL_SUM, GB_NCCL_BFLOAT16, 2, 1, 1,
				   count, seed};
	void *buf = dev_alloc(count * 2);
	unsigned long long *nwrong = dev_alloc(sizeof(*nwrong));

	(void)state;
	fill(buf, count, GB_NCCL_BFLOAT16, GB_NCCL_SUM, seed, 1, 0, 12);
	assert_int_equal(verify(buf, count, 0, &e, nwrong), 0);
	fill(buf, count, GB_NCCL_BFLOAT16, GB_NCCL_SUM, seed, 0, 0, 12); /* not the root's */
	assert_true(verify(buf, count, 0, &e, nwrong) > count / 2);
	dev_free(nwrong);
	dev_free(buf);
}

/* a clean buffer never touches nwrong; a wrong one faults on a bad pointer */
static void test_verify_nwrong_access(void **state)
{
	uint64_t count = 64, first = 0, seed = 1;
	struct gb_nccl_expect e = {GB_NCCL_BROADCAST, GB_NCCL_SUM, GB_NCCL_DOUBLE, 2, 0, 0, count,
				   seed};
	double *buf = dev_alloc(count * sizeof(double)), tol = 0;
	unsigned long long *bogus = (unsigned long long *)(uintptr_t)0x100;
	void *args[] = {&buf, &count, &first, &e, &tol, &bogus};

	(void)state;
	for (uint64_t j = 0; j < count; j++)
		buf[j] = gb_nccl_input(GB_NCCL_SUM, seed, 0, j);
	assert_int_equal(launch(true, GB_NCCL_DOUBLE, 1, THREADS, args), cudaSuccess);
	buf[3] = -1;
	assert_int_equal(launch(true, GB_NCCL_DOUBLE, 1, THREADS, args), cudaErrorIllegalAddress);
	/* gb_count_grid reduces whole warps: a 48-thread block is not modelled */
	assert_int_equal(launch(true, GB_NCCL_DOUBLE, 1, 48, args), cudaErrorLaunchFailure);
	dev_free(buf);
}

static void test_fill_outside_memory(void **state)
{
	uint64_t count = 16, seed = 1, first = 0;
	int redop = GB_NCCL_SUM, rank = 0;
	int32_t *host = malloc(count * sizeof(*host));
	void *args[] = {&host, &count, &redop, &seed, &rank, &first};

	(void)state;
	assert_non_null(host);
	assert_int_equal(launch(false, GB_NCCL_INT32, 1, THREADS, args), cudaErrorIllegalAddress);
	free(host);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_every_type),
		cmocka_unit_test(test_verify_allreduce),
		cmocka_unit_test(test_verify_integer_wrap),
		cmocka_unit_test(test_verify_avg_tolerance),
		cmocka_unit_test(test_verify_gather_alltoall),
		cmocka_unit_test(test_fill_then_verify_broadcast),
		cmocka_unit_test(test_verify_nwrong_access),
		cmocka_unit_test(test_fill_outside_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
