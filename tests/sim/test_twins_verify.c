/* SPDX-License-Identifier: MIT */
/*
 * test_twins_verify.c - the CPU twins of kernels/verify.cu: the reference
 * against a long-double dot product written here, the kernel's summation
 * order shown on inputs where order decides the result, and the comparison
 * counting planted errors and NaNs the way the kernel's counters do.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/sim/twin_test.h"

#include "kernels/gemm.h"

extern const struct gbsim_twin gbsim_twins_verify[];

#define REFERENCE(t)                                                                       \
	"void reference_kernel<" t ">(" t " const*, " t " const*, unsigned long, "          \
	"unsigned int const*, unsigned long, double*, double*)"
#define COMPARE(t)                                                                         \
	"void compare_kernel<" t ">(" t " const*, unsigned long, unsigned int const*, "     \
	"unsigned long, double const*, double const*, double, double*, gb_verify_counters*)"

/* samples (row, col) of an m x n output, column by column, distinct while n_samples <= m n */
static uint32_t *make_samples(size_t n_samples, uint32_t m, uint32_t n)
{
	uint32_t *rc = dev_alloc(2 * n_samples * sizeof(*rc));

	for (size_t i = 0; i < n_samples; i++) {
		rc[2 * i] = (uint32_t)(i % m);
		rc[2 * i + 1] = (uint32_t)((i / m) % n);
	}
	return rc;
}

/* one warp per sample, 8 samples per 256-thread block, as the launcher sizes it */
static cudaError_t reference(const char *kernel, const void *a, const void *b, uint64_t k,
			     const uint32_t *rc, size_t n, double *ref, double *scale)
{
	void *args[] = { &a, &b, &k, &rc, &n, &ref, &scale };
	struct gbsim_cost cost;

	return twin_run(gbsim_twins_verify, kernel, (unsigned)((n + 7) / 8), 256, args, &cost);
}

static void float_reference_is_the_dot_product(void **state)
{
	const uint32_t m = 5, n = 4;
	const uint64_t k = 100;
	const size_t samples = 20;
	float *a = dev_alloc(k * m * sizeof(float)), *b = dev_alloc(k * n * sizeof(float));
	double *ref = dev_alloc(samples * 8), *scale = dev_alloc(samples * 8);
	uint32_t *rc = make_samples(samples, m, n);

	(void)state;
	for (uint64_t i = 0; i < k * m; i++)
		a[i] = (float)((double)((i * 37) % 101) / 50.0 - 1.0);
	for (uint64_t i = 0; i < k * n; i++)
		b[i] = (float)((double)((i * 53) % 97) / 48.0 - 1.0);
	assert_int_equal(reference(REFERENCE("float"), a, b, k, rc, samples, ref, scale),
			 cudaSuccess);
	for (size_t s = 0; s < samples; s++) {
		const float *ca = a + rc[2 * s] * k, *cb = b + rc[2 * s + 1] * k;
		long double dot = 0, abs_sum = 0;

		for (uint64_t l = 0; l < k; l++) {
			dot += (long double)ca[l] * cb[l];
			abs_sum += fabsl((long double)ca[l] * cb[l]);
		}
		/* only the order of the double sums differs from the long double one */
		assert_true(fabsl(ref[s] - dot) <= 1e-13L * abs_sum);
		assert_true(fabsl(scale[s] - abs_sum / sqrtl((long double)k)) <= 1e-13L * abs_sum);
	}
	cudaFree(a);
	cudaFree(b);
	cudaFree(ref);
	cudaFree(scale);
	cudaFree(rc);
}

/*
 * Where order decides: A is all ones, and B holds 2^53 at l = 0, -2^53 at
 * l = 16 and 1 at l = 32. Adding in index order gives 1; the kernel's lanes
 * hold 2^53 + 1 = 2^53 (lane 0: l = 0, then 32) and -2^53 (lane 16), and
 * the shuffle tree adds lane 16 into lane 0: exactly 0.
 */
static void reference_adds_in_the_kernels_order(void **state)
{
	const uint64_t k = 64;
	double *a = dev_alloc(k * 8), *b = dev_alloc(k * 8);
	double *ref = dev_alloc(8), *scale = dev_alloc(8);
	uint32_t *rc = make_samples(1, 1, 1);

	(void)state;
	for (uint64_t l = 0; l < k; l++) {
		a[l] = 1.0;
		b[l] = 0.0;
	}
	b[0] = 0x1p53;
	b[16] = -0x1p53;
	b[32] = 1.0;
	assert_int_equal(reference(REFERENCE("double"), a, b, k, rc, 1, ref, scale), cudaSuccess);
	assert_true(ref[0] == 0.0);
	assert_true(scale[0] == 0x1p54 / 8.0);
	cudaFree(a);
	cudaFree(b);
	cudaFree(ref);
	cudaFree(scale);
	cudaFree(rc);
}

/* a grid with fewer warps than samples computes only the samples it covers */
static void reference_covers_only_its_grid(void **state)
{
	const uint64_t k = 8;
	const size_t samples = 10;
	int8_t *a = dev_alloc(k), *b = dev_alloc(k);
	double *ref = dev_alloc(samples * 8), *scale = dev_alloc(samples * 8);
	uint32_t *rc = make_samples(samples, 1, 1);
	void *args[] = { &a, &b, (void *)&k, &rc, (void *)&samples, &ref, &scale };
	struct gbsim_cost cost;

	(void)state;
	for (uint64_t l = 0; l < k; l++) {
		a[l] = (int8_t)(l + 1);
		b[l] = -2;
	}
	for (size_t s = 0; s < samples; s++)
		ref[s] = -1.0;
	/* one 256-thread block is 8 warps: samples 8 and 9 are left alone */
	assert_int_equal(twin_run(gbsim_twins_verify, REFERENCE("signed char"), 1, 256, args,
				  &cost),
			 cudaSuccess);
	for (size_t s = 0; s < samples; s++)
		assert_true(ref[s] == (s < 8 ? -72.0 : -1.0));
	assert_true(cost.flops > 0 && cost.bytes > 0);
	cudaFree(a);
	cudaFree(b);
	cudaFree(ref);
	cudaFree(scale);
	cudaFree(rc);
}

static cudaError_t compare(const char *kernel, const void *d, uint64_t ldd, const uint32_t *rc,
			   size_t n, const double *ref, const double *scale, double bound,
			   double *got, struct gb_verify_counters *c, unsigned grid)
{
	void *args[] = { &d, &ldd, &rc, &n, &ref, &scale, &bound, &got, &c };
	struct gbsim_cost cost;

	return twin_run(gbsim_twins_verify, kernel, grid, 256, args, &cost);
}

static void compare_counts_planted_errors(void **state)
{
	const uint32_t m = 30, n = 20;
	const uint64_t ldd = 32;
	const size_t samples = 300;
	uint16_t *d = dev_alloc(ldd * n * sizeof(*d));
	uint32_t *rc = make_samples(samples, m, n);
	double *ref = dev_alloc(samples * 8), *scale = dev_alloc(samples * 8);
	double *got = dev_alloc(samples * 8);
	struct gb_verify_counters *c = dev_alloc(sizeof(*c));
	double max_err;

	(void)state;
	/* D holds the reference rounded to bf16: relative error at most 2^-9 */
	for (size_t s = 0; s < samples; s++) {
		ref[s] = 1.0 + (double)s / 7.0;
		scale[s] = 0.5;
		d[rc[2 * s] + rc[2 * s + 1] * ldd] = gbsim_bf16_from_double(ref[s]);
	}
	/* a wrong value at sample 5, a NaN at sample 270 */
	d[rc[10] + rc[11] * ldd] = gbsim_bf16_from_double(ref[5] * 1.5);
	d[rc[540] + rc[541] * ldd] = 0x7fc0;

	memset(c, 0, sizeof(*c));
	assert_int_equal(compare(COMPARE("__nv_bfloat16"), d, ldd, rc, samples, ref, scale,
				 0x1p-8, got, c, 2),
			 cudaSuccess);
	assert_int_equal(c->checked, samples);
	assert_int_equal(c->nans, 1);
	assert_int_equal(c->mismatches, 2);
	assert_int_equal(~c->first_bad_inv, 5);
	assert_true(isnan(got[270]));
	assert_true(got[0] == gbsim_bf16_to_float(d[rc[0] + rc[1] * ldd]));
	memcpy(&max_err, &c->max_err_bits, sizeof(max_err));
	assert_true(max_err > 0x1p-8 && max_err < 1.0);

	/* one block of 256 threads checks only the first 256 samples */
	memset(c, 0, sizeof(*c));
	assert_int_equal(compare(COMPARE("__nv_bfloat16"), d, ldd, rc, samples, ref, scale,
				 0x1p-8, got, c, 1),
			 cudaSuccess);
	assert_int_equal(c->checked, 256);
	assert_int_equal(c->nans, 0);
	assert_int_equal(c->mismatches, 1);
	cudaFree(d);
	cudaFree(rc);
	cudaFree(ref);
	cudaFree(scale);
	cudaFree(got);
	cudaFree(c);
}

/* an exact result has error 0; against a zero reference and no scale, any
 * difference is infinitely wrong */
static void compare_exact_and_unscaled(void **state)
{
	int32_t *d = dev_alloc(2 * sizeof(*d));
	uint32_t *rc = dev_alloc(4 * sizeof(*rc));
	double *ref = dev_alloc(16), *scale = dev_alloc(16), *got = dev_alloc(16);
	struct gb_verify_counters *c = dev_alloc(sizeof(*c));

	(void)state;
	d[0] = 12;
	d[1] = 1;
	rc[0] = 0, rc[1] = 0, rc[2] = 1, rc[3] = 0;
	ref[0] = 12, ref[1] = 0;
	scale[0] = scale[1] = 0;
	memset(c, 0, sizeof(*c));
	assert_int_equal(compare(COMPARE("int"), d, 2, rc, 2, ref, scale, 1e-3, got, c, 1),
			 cudaSuccess);
	assert_int_equal(c->checked, 2);
	assert_int_equal(c->mismatches, 1);
	assert_int_equal(~c->first_bad_inv, 1);
	{
		double max_err;

		memcpy(&max_err, &c->max_err_bits, sizeof(max_err));
		assert_true(isinf(max_err));
	}
	cudaFree(d);
	cudaFree(rc);
	cudaFree(ref);
	cudaFree(scale);
	cudaFree(got);
	cudaFree(c);
}

/*
 * An fp16 output in the subnormal range is off by up to half its smallest
 * step (2^-25), whatever its size: -1.4334e-5 correctly rounded is
 * -240 x 2^-24 = -1.4305e-5, a relative error of 1e-3 that the k = 1 bound
 * (about 9.8e-4) would fail. The floor excuses that rounding, and no more:
 * an output a step and a half off still fails.
 */
static void compare_allows_subnormal_rounding(void **state)
{
	uint16_t *d = dev_alloc(2 * sizeof(*d));
	uint32_t *rc = dev_alloc(4 * sizeof(*rc));
	double *ref = dev_alloc(16), *scale = dev_alloc(16), *got = dev_alloc(16);
	struct gb_verify_counters *c = dev_alloc(sizeof(*c));
	double r = -1.4334e-5, bound = 9.77e-4;

	(void)state;
	d[0] = gbsim_f16_from_double(r);
	d[1] = gbsim_f16_from_double(r - 0x1p-23); /* -242 x 2^-24: 1.5 steps off */
	rc[0] = 0, rc[1] = 0, rc[2] = 1, rc[3] = 0;
	ref[0] = ref[1] = r;
	/* k = 1: the scale is |a b| = |ref| */
	scale[0] = scale[1] = fabs(r);
	memset(c, 0, sizeof(*c));
	assert_int_equal(compare(COMPARE("__half"), d, 2, rc, 2, ref, scale, bound, got, c, 1),
			 cudaSuccess);
	assert_true(got[0] == -240 * 0x1p-24);
	assert_true(fabs(got[0] - r) / (2 * fabs(r)) > bound); /* what failed before */
	assert_int_equal(c->checked, 2);
	assert_int_equal(c->mismatches, 1);
	assert_int_equal(~c->first_bad_inv, 1);
	cudaFree(d);
	cudaFree(rc);
	cudaFree(ref);
	cudaFree(scale);
	cudaFree(got);
	cudaFree(c);
}

static void every_kernel_has_a_twin(void **state)
{
	static const char *const types[] = { "double", "float", "__half", "__nv_bfloat16",
					     "__nv_fp8_e4m3", "signed char", "int" };
	char name[512];
	size_t rows = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		const char *t = types[i];

		snprintf(name, sizeof(name),
			 "void reference_kernel<%s>(%s const*, %s const*, unsigned long, "
			 "unsigned int const*, unsigned long, double*, double*)",
			 t, t, t);
		assert_non_null(twin_find(gbsim_twins_verify, name));
		snprintf(name, sizeof(name),
			 "void compare_kernel<%s>(%s const*, unsigned long, unsigned int const*, "
			 "unsigned long, double const*, double const*, double, double*, "
			 "gb_verify_counters*)",
			 t, t);
		assert_non_null(twin_find(gbsim_twins_verify, name));
	}
	while (gbsim_twins_verify[rows].name)
		rows++;
	assert_int_equal(rows, 2 * sizeof(types) / sizeof(types[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(float_reference_is_the_dot_product),
		cmocka_unit_test(reference_adds_in_the_kernels_order),
		cmocka_unit_test(reference_covers_only_its_grid),
		cmocka_unit_test(compare_counts_planted_errors),
		cmocka_unit_test(compare_exact_and_unscaled),
		cmocka_unit_test(compare_allows_subnormal_rounding),
		cmocka_unit_test(every_kernel_has_a_twin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
