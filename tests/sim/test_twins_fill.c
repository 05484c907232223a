/* SPDX-License-Identifier: MIT */
/*
 * test_twins_fill.c - the CPU twins of kernels/fill.cu against an
 * independent computation: the splitmix64 hash written out again here
 * (from the formula in kernels/gemm.h's description, not from the kernel's
 * header), values checked for range and rounding, fills in pieces equal to
 * one fill, poison patterns, and an out-of-bounds fill refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "tests/sim/twin_test.h"

extern const struct gbsim_twin gbsim_twins_fill[];

#define RANDOM(t) \
	"void fill_random_kernel<" t ">(" t "*, unsigned long, unsigned long, unsigned long)"
#define PATTERN(t) "void fill_pattern_kernel<" t ">(" t "*, unsigned long, " t ")"

/* element i of (seed, first): splitmix64 of seed * 0x632BE59BD9B4E019 + first + i */
static uint64_t hash_ref(uint64_t seed, uint64_t index)
{
	uint64_t z = seed * 0x632BE59BD9B4E019ULL + index + 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double uniform_ref(uint64_t seed, uint64_t index)
{
	return ldexp((double)(hash_ref(seed, index) >> 11), -52) - 1.0;
}

/* run fill_random_kernel<T> over n elements at p */
static cudaError_t fill_random(const char *kernel, void *p, size_t n, uint64_t seed,
			       uint64_t first, struct gbsim_cost *cost)
{
	void *args[] = { &p, &n, &seed, &first };

	return twin_run(gbsim_twins_fill, kernel, 8, 256, args, cost);
}

static void f64_and_f32_are_the_hash(void **state)
{
	const size_t n = 3001; /* more than the 8 x 256 threads: the grid strides */
	double *d = dev_alloc(n * sizeof(*d));
	float *f = dev_alloc(n * sizeof(*f));
	struct gbsim_cost cost;

	(void)state;
	assert_int_equal(fill_random(RANDOM("double"), d, n, 7, 100, &cost), cudaSuccess);
	assert_true(cost.bytes == n * sizeof(double));
	assert_int_equal(fill_random(RANDOM("float"), f, n, 7, 100, &cost), cudaSuccess);
	assert_true(cost.bytes == n * sizeof(float));
	for (size_t i = 0; i < n; i++) {
		assert_true(d[i] == uniform_ref(7, 100 + i));
		assert_true(d[i] >= -1.0 && d[i] < 1.0);
		assert_true(f[i] == (float)uniform_ref(7, 100 + i));
	}
	cudaFree(d);
	cudaFree(f);
}

/* 16- and 8-bit types: the nearest value to the float of the uniform double */
static void narrow_types_round_the_float(void **state)
{
	const size_t n = 2000;
	uint16_t *h = dev_alloc(n * 2), *b = dev_alloc(n * 2);
	uint8_t *e = dev_alloc(n);
	struct gbsim_cost cost;

	(void)state;
	assert_int_equal(fill_random(RANDOM("__half"), h, n, 3, 0, &cost), cudaSuccess);
	assert_int_equal(fill_random(RANDOM("__nv_bfloat16"), b, n, 3, 0, &cost), cudaSuccess);
	assert_int_equal(fill_random(RANDOM("__nv_fp8_e4m3"), e, n, 3, 0, &cost), cudaSuccess);
	assert_true(cost.bytes == n);
	for (size_t i = 0; i < n; i++) {
		float x = (float)uniform_ref(3, i);

		/* within half a unit (relative 2^-11, 2^-8, 2^-4), or half a subnormal step */
		assert_true(fabs(gbsim_f16_to_float(h[i]) - x) <= fmax(fabs(x) * 0x1p-11, 0x1p-25));
		assert_true(fabs(gbsim_bf16_to_float(b[i]) - x) <= fabs(x) * 0x1p-8);
		assert_true(fabs(gbsim_e4m3_to_float(e[i]) - x) <= fmax(fabs(x) * 0x1p-4, 0x1p-10));
		assert_int_equal(h[i], gbsim_f16_from_float(x));
		assert_int_equal(b[i], gbsim_bf16_from_float(x));
		assert_int_equal(e[i], gbsim_e4m3_from_float(x));
	}
	cudaFree(h);
	cudaFree(b);
	cudaFree(e);
}

static void integers_are_small(void **state)
{
	const size_t n = 5000;
	int8_t *c = dev_alloc(n);
	int32_t *w = dev_alloc(n * 4);
	struct gbsim_cost cost;
	int seen_min = 0, seen_max = 0;

	(void)state;
	assert_int_equal(fill_random(RANDOM("signed char"), c, n, 11, 5, &cost), cudaSuccess);
	assert_int_equal(fill_random(RANDOM("int"), w, n, 11, 5, &cost), cudaSuccess);
	for (size_t i = 0; i < n; i++) {
		int want = (int)((hash_ref(11, 5 + i) >> 32) % 129) - 64;

		assert_int_equal(c[i], want);
		assert_int_equal(w[i], want);
		seen_min |= want == -64;
		seen_max |= want == 64;
	}
	assert_true(seen_min && seen_max);
	cudaFree(c);
	cudaFree(w);
}

/* element i is value(seed, first + i): two halves equal one fill */
static void pieces_equal_one_fill(void **state)
{
	const size_t n = 1000;
	float *whole = dev_alloc(n * 4), *parts = dev_alloc(n * 4);
	struct gbsim_cost cost;

	(void)state;
	assert_int_equal(fill_random(RANDOM("float"), whole, n, 42, 0, &cost), cudaSuccess);
	assert_int_equal(fill_random(RANDOM("float"), parts, 400, 42, 0, &cost), cudaSuccess);
	assert_int_equal(fill_random(RANDOM("float"), parts + 400, n - 400, 42, 400, &cost),
			 cudaSuccess);
	assert_memory_equal(whole, parts, n * 4);
	cudaFree(whole);
	cudaFree(parts);
}

static void poison_patterns(void **state)
{
	const size_t n = 777;
	uint8_t *p8 = dev_alloc(n);
	uint16_t *p16 = dev_alloc(n * 2);
	uint32_t *p32 = dev_alloc(n * 4);
	uint64_t *p64 = dev_alloc(n * 8);
	uint8_t v8 = 0x7f;
	uint16_t v16 = 0x7ead;
	uint32_t v32 = 0x7fc0dead;
	uint64_t v64 = 0x7ff8dead0000bad0ULL;
	size_t count = n;
	void *a8[] = { &p8, &count, &v8 }, *a16[] = { &p16, &count, &v16 };
	void *a32[] = { &p32, &count, &v32 }, *a64[] = { &p64, &count, &v64 };
	struct gbsim_cost cost;

	(void)state;
	assert_int_equal(twin_run(gbsim_twins_fill, PATTERN("unsigned char"), 4, 256, a8, &cost),
			 cudaSuccess);
	assert_int_equal(twin_run(gbsim_twins_fill, PATTERN("unsigned short"), 4, 256, a16, &cost),
			 cudaSuccess);
	assert_int_equal(twin_run(gbsim_twins_fill, PATTERN("unsigned int"), 4, 256, a32, &cost),
			 cudaSuccess);
	assert_int_equal(twin_run(gbsim_twins_fill, PATTERN("unsigned long"), 4, 256, a64, &cost),
			 cudaSuccess);
	assert_true(cost.bytes == n * 8);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(p8[i], 0x7f);
		assert_int_equal(p16[i], 0x7ead);
		assert_int_equal(p32[i], 0x7fc0dead);
		assert_true(p64[i] == 0x7ff8dead0000bad0ULL);
	}
	cudaFree(p8);
	cudaFree(p16);
	cudaFree(p32);
	cudaFree(p64);
}

/* one element past the allocation: the GPU's illegal address, and nothing written */
static void out_of_bounds_is_refused(void **state)
{
	float *f = dev_alloc(100 * sizeof(*f));
	struct gbsim_cost cost;

	(void)state;
	for (int i = 0; i < 100; i++)
		f[i] = 2.0f;
	assert_int_equal(fill_random(RANDOM("float"), f, 101, 1, 0, &cost),
			 cudaErrorIllegalAddress);
	for (int i = 0; i < 100; i++)
		assert_true(f[i] == 2.0f);
	cudaFree(f);
}

/* every __global__ instance of fill.cu has a twin, by the name the runtime will look up */
static void every_kernel_has_a_twin(void **state)
{
	static const char *const names[] = {
		RANDOM("double"), RANDOM("float"), RANDOM("__half"), RANDOM("__nv_bfloat16"),
		RANDOM("__nv_fp8_e4m3"), RANDOM("signed char"), RANDOM("int"),
		PATTERN("unsigned char"), PATTERN("unsigned short"), PATTERN("unsigned int"),
		PATTERN("unsigned long"),
	};
	size_t rows = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_non_null(twin_find(gbsim_twins_fill, names[i]));
	while (gbsim_twins_fill[rows].name)
		rows++;
	assert_int_equal(rows, sizeof(names) / sizeof(names[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(f64_and_f32_are_the_hash),
		cmocka_unit_test(narrow_types_round_the_float),
		cmocka_unit_test(integers_are_small),
		cmocka_unit_test(pieces_equal_one_fill),
		cmocka_unit_test(poison_patterns),
		cmocka_unit_test(out_of_bounds_is_refused),
		cmocka_unit_test(every_kernel_has_a_twin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
