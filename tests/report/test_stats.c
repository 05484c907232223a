/* SPDX-License-Identifier: MIT */
/*
 * test_stats.c - unit tests for report/stats.c: sample statistics against
 * hand-computed values, numpy-default percentiles, the α–β fit on synthetic
 * sweeps and the nccl-tests bandwidth conventions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/stats.h"

#include <math.h>
#include <string.h>

/* cmocka has no double comparison; these keep the failing expression in the message. */
#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))
#define assert_rel(a, b, rel) \
	assert_true(fabs((double)(a) - (double)(b)) <= (rel) * fabs((double)(b)))

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* 8 B .. 1 GiB in x2 steps: 8 * 2^0 .. 8 * 2^27. */
#define SWEEP_N 28
static const double ALPHA = 5e-6;
static const double BETA = 25e9;

static void sweep_sizes(double *bytes)
{
	for (size_t i = 0; i < SWEEP_N; i++)
		bytes[i] = ldexp(8.0, (int)i);
}

/* Deterministic pseudo-noise in {-1, -0.5, 0, 0.5, 1}, not correlated with size. */
static double noise_unit(size_t i)
{
	return (double)((int)((i * 7) % 5) - 2) / 2.0;
}

static void test_stats_odd(void **state)
{
	/* sorted {1, 1, 3, 4, 5}; sum of squared deviations 12.8, var 3.2 */
	const double v[] = { 3, 1, 4, 1, 5 };
	struct gb_stats st;

	(void)state;
	assert_int_equal(gb_stats_compute(&st, v, ARRAY_LEN(v)), 0);
	assert_int_equal(st.n, 5);
	assert_near(st.min, 1.0, 0.0);
	assert_near(st.max, 5.0, 0.0);
	assert_near(st.mean, 2.8, 1e-15);
	assert_near(st.median, 3.0, 0.0);
	assert_near(st.stdev, 1.788854381999832, 1e-14);
	assert_near(st.cv, 1.788854381999832 / 2.8, 1e-14);
	/* h = 4p/100: 0.2 -> 1, 3.8 -> 4 + 0.8, 3.96 -> 4 + 0.96 */
	assert_near(st.p05, 1.0, 1e-14);
	assert_near(st.p95, 4.8, 1e-14);
	assert_near(st.p99, 4.96, 1e-14);
}

static void test_stats_even(void **state)
{
	/* sorted {10, 20, 30, 40}; sum of squared deviations 500, var 500/3 */
	const double v[] = { 40, 10, 30, 20 };
	struct gb_stats st;

	(void)state;
	assert_int_equal(gb_stats_compute(&st, v, ARRAY_LEN(v)), 0);
	assert_int_equal(st.n, 4);
	assert_near(st.min, 10.0, 0.0);
	assert_near(st.max, 40.0, 0.0);
	assert_near(st.mean, 25.0, 1e-14);
	assert_near(st.median, 25.0, 1e-14);
	assert_near(st.stdev, 12.909944487358056, 1e-13);
	assert_near(st.cv, 0.5163977794943222, 1e-15);
	/* h = 3p/100: 0.15 -> 10 + 1.5, 2.85 -> 30 + 8.5, 2.97 -> 30 + 9.7 */
	assert_near(st.p05, 11.5, 1e-12);
	assert_near(st.p95, 38.5, 1e-12);
	assert_near(st.p99, 39.7, 1e-12);
}

static void test_stats_single(void **state)
{
	const double v[] = { 7.25 };
	struct gb_stats st;

	(void)state;
	assert_int_equal(gb_stats_compute(&st, v, 1), 0);
	assert_int_equal(st.n, 1);
	assert_near(st.min, 7.25, 0.0);
	assert_near(st.max, 7.25, 0.0);
	assert_near(st.mean, 7.25, 0.0);
	assert_near(st.median, 7.25, 0.0);
	assert_near(st.stdev, 0.0, 0.0);
	assert_near(st.cv, 0.0, 0.0);
	assert_near(st.p05, 7.25, 0.0);
	assert_near(st.p95, 7.25, 0.0);
	assert_near(st.p99, 7.25, 0.0);
}

static void test_stats_constant(void **state)
{
	/* 0.1 is inexact in binary: the mean must still give exactly zero spread. */
	const double v[] = { 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 };
	struct gb_stats st;

	(void)state;
	assert_int_equal(gb_stats_compute(&st, v, ARRAY_LEN(v)), 0);
	assert_near(st.mean, 0.1, 0.0);
	assert_near(st.median, 0.1, 0.0);
	assert_near(st.stdev, 0.0, 0.0);
	assert_near(st.cv, 0.0, 0.0);
	assert_near(st.p05, 0.1, 0.0);
	assert_near(st.p99, 0.1, 0.0);
}

static void test_stats_zero_mean(void **state)
{
	const double v[] = { -1, 1 };
	struct gb_stats st;

	(void)state;
	assert_int_equal(gb_stats_compute(&st, v, ARRAY_LEN(v)), 0);
	assert_near(st.mean, 0.0, 0.0);
	assert_true(st.stdev > 0.0);
	assert_near(st.cv, 0.0, 0.0);
}

static void test_stats_reject(void **state)
{
	const double with_nan[] = { 1, 2, NAN, 4 };
	const double with_inf[] = { 1, INFINITY, 3 };
	const double with_ninf[] = { -INFINITY, 2 };
	const double ok[] = { 1 };
	struct gb_stats st;

	(void)state;
	st.n = 99;
	assert_int_equal(gb_stats_compute(&st, with_nan, ARRAY_LEN(with_nan)), -1);
	assert_int_equal(st.n, 0);
	st.n = 99;
	assert_int_equal(gb_stats_compute(&st, with_inf, ARRAY_LEN(with_inf)), -1);
	assert_int_equal(st.n, 0);
	st.n = 99;
	assert_int_equal(gb_stats_compute(&st, with_ninf, ARRAY_LEN(with_ninf)), -1);
	assert_int_equal(st.n, 0);
	st.n = 99;
	assert_int_equal(gb_stats_compute(&st, ok, 0), -1);
	assert_int_equal(st.n, 0);

	assert_true(isnan(gb_percentile(with_nan, ARRAY_LEN(with_nan), 50.0)));
	assert_true(isnan(gb_mad(with_inf, ARRAY_LEN(with_inf))));
}

static void test_percentile(void **state)
{
	/* 1..10 shuffled; numpy default: h = 9p/100 */
	const double v[] = { 7, 3, 10, 1, 5, 9, 2, 8, 6, 4 };
	const size_t n = ARRAY_LEN(v);

	(void)state;
	assert_near(gb_percentile(v, n, 0.0), 1.0, 0.0);
	assert_near(gb_percentile(v, n, 100.0), 10.0, 0.0);
	assert_near(gb_percentile(v, n, 50.0), 5.5, 1e-14);  /* h = 4.5 */
	assert_near(gb_percentile(v, n, 25.0), 3.25, 1e-14); /* h = 2.25 */
	assert_near(gb_percentile(v, n, 75.0), 7.75, 1e-14); /* h = 6.75 */
	assert_near(gb_percentile(v, n, 90.0), 9.1, 1e-14);  /* h = 8.1 */
	assert_near(gb_percentile(v, n, 33.0), 3.97, 1e-14); /* h = 2.97 */
	assert_near(gb_percentile(v, n, 5.0), 1.45, 1e-14);  /* h = 0.45 */

	/* two samples: straight line between them */
	const double two[] = { 2, 1 };

	assert_near(gb_percentile(two, 2, 30.0), 1.3, 1e-15);

	assert_true(isnan(gb_percentile(v, 0, 50.0)));
	assert_true(isnan(gb_percentile(v, n, -1.0)));
	assert_true(isnan(gb_percentile(v, n, 100.5)));
	assert_true(isnan(gb_percentile(v, n, NAN)));
}

static void test_mad(void **state)
{
	/* median 2; |x - 2| = {1, 1, 0, 0, 2, 4, 7} -> median 1 */
	const double odd[] = { 9, 1, 2, 6, 1, 4, 2 };
	/* median 2.5; |x - 2.5| = {1.5, 0.5, 0.5, 1.5} -> median 1 */
	const double even[] = { 4, 1, 3, 2 };
	/* one outlier leaves the MAD alone: median 10, deviations {0,0,0,1,990} */
	const double outlier[] = { 10, 10, 1000, 10, 9 };
	const double one[] = { 3 };

	(void)state;
	assert_near(gb_mad(odd, ARRAY_LEN(odd)), 1.0, 0.0);
	assert_near(gb_mad(even, ARRAY_LEN(even)), 1.0, 0.0);
	assert_near(gb_mad(outlier, ARRAY_LEN(outlier)), 0.0, 0.0);
	assert_near(gb_mad(one, 1), 0.0, 0.0);
	assert_true(isnan(gb_mad(odd, 0)));
}

static void test_input_not_modified(void **state)
{
	double v[] = { 5, 3, 9, 1, 7, 2, 8 };
	double orig[ARRAY_LEN(v)];
	struct gb_stats st;

	(void)state;
	memcpy(orig, v, sizeof(v));
	assert_int_equal(gb_stats_compute(&st, v, ARRAY_LEN(v)), 0);
	assert_memory_equal(v, orig, sizeof(v));
	(void)gb_percentile(v, ARRAY_LEN(v), 95.0);
	assert_memory_equal(v, orig, sizeof(v));
	(void)gb_mad(v, ARRAY_LEN(v));
	assert_memory_equal(v, orig, sizeof(v));
}

static void test_fit_exact(void **state)
{
	double bytes[SWEEP_N], secs[SWEEP_N];
	struct gb_alpha_beta fit;

	(void)state;
	sweep_sizes(bytes);
	for (size_t i = 0; i < SWEEP_N; i++)
		secs[i] = ALPHA + bytes[i] / BETA;
	assert_int_equal(gb_fit_alpha_beta(&fit, bytes, secs, SWEEP_N), 0);
	assert_rel(fit.alpha_s, ALPHA, 1e-9);
	assert_rel(fit.beta_bps, BETA, 1e-12);
	assert_near(fit.r2, 1.0, 1e-12);
	assert_rel(fit.n_half_bytes, 125000.0, 1e-9);
}

static void test_fit_relative_noise(void **state)
{
	double bytes[SWEEP_N], secs[SWEEP_N];
	struct gb_alpha_beta fit;

	(void)state;
	sweep_sizes(bytes);
	for (size_t i = 0; i < SWEEP_N; i++)
		secs[i] = (ALPHA + bytes[i] / BETA) * (1.0 + 0.01 * noise_unit(i));
	assert_int_equal(gb_fit_alpha_beta(&fit, bytes, secs, SWEEP_N), 0);
	assert_rel(fit.beta_bps, BETA, 0.03);
	assert_true(fit.r2 > 0.999 && fit.r2 <= 1.0);
	/*
	 * ±1% of a 43 ms transfer is ~80x alpha: an unweighted fit could not pin
	 * the intercept, the relative (1/t^2) weighting must recover it.
	 */
	assert_rel(fit.alpha_s, ALPHA, 0.05);
	assert_near(fit.n_half_bytes, fit.alpha_s * fit.beta_bps, 1e-6);
}

static void test_fit_absolute_noise(void **state)
{
	double bytes[SWEEP_N], secs[SWEEP_N];
	struct gb_alpha_beta fit;

	(void)state;
	sweep_sizes(bytes);
	/* ±1% of the latency on every point: alpha itself is recoverable. */
	for (size_t i = 0; i < SWEEP_N; i++)
		secs[i] = ALPHA + bytes[i] / BETA + 0.01 * ALPHA * noise_unit(i);
	assert_int_equal(gb_fit_alpha_beta(&fit, bytes, secs, SWEEP_N), 0);
	assert_rel(fit.alpha_s, ALPHA, 0.03);
	assert_rel(fit.beta_bps, BETA, 0.03);
	assert_true(fit.r2 > 0.999 && fit.r2 <= 1.0);
	assert_rel(fit.n_half_bytes, ALPHA * BETA, 0.06);
}

static void test_fit_clamp(void **state)
{
	/* exact line with a -0.1 us intercept: latency clamped, bandwidth kept */
	const double bytes[] = { 1e6, 2e6, 4e6, 8e6 };
	double secs[ARRAY_LEN(bytes)];
	struct gb_alpha_beta fit;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bytes); i++)
		secs[i] = -1e-7 + bytes[i] / BETA;
	assert_int_equal(gb_fit_alpha_beta(&fit, bytes, secs, ARRAY_LEN(bytes)), 0);
	assert_near(fit.alpha_s, 0.0, 0.0);
	assert_rel(fit.beta_bps, BETA, 1e-9);
	assert_near(fit.r2, 1.0, 1e-12);
	assert_near(fit.n_half_bytes, 0.0, 0.0);
}

static void test_fit_failures(void **state)
{
	const double same_size[] = { 4096, 4096, 4096 };
	const double varied[] = { 1e-6, 2e-6, 3e-6 };
	const double sizes[] = { 1024, 2048, 4096 };
	const double falling[] = { 3e-6, 2e-6, 1e-6 };
	const double flat[] = { 2e-6, 2e-6, 2e-6 };
	const double with_nan[] = { 1e-6, NAN, 3e-6 };
	const double with_inf[] = { 1024, INFINITY, 4096 };
	struct gb_alpha_beta fit;

	(void)state;
	assert_int_equal(gb_fit_alpha_beta(&fit, same_size, varied, 3), -1);
	assert_int_equal(gb_fit_alpha_beta(&fit, sizes, falling, 3), -1);
	assert_int_equal(gb_fit_alpha_beta(&fit, sizes, flat, 3), -1);
	assert_int_equal(gb_fit_alpha_beta(&fit, sizes, with_nan, 3), -1);
	assert_int_equal(gb_fit_alpha_beta(&fit, with_inf, varied, 3), -1);
	assert_int_equal(gb_fit_alpha_beta(&fit, sizes, varied, 1), -1);
	assert_int_equal(gb_fit_alpha_beta(&fit, sizes, varied, 0), -1);
	/* two distinct sizes is the minimum that works */
	assert_int_equal(gb_fit_alpha_beta(&fit, sizes, varied, 2), 0);
}

static void test_busbw_factor(void **state)
{
	static const char *const sharded[] = { "reducescatter", "allgather", "alltoall",
					       "gather", "scatter" };
	static const char *const unity[] = { "broadcast", "reduce", "sendrecv" };

	(void)state;
	assert_near(gb_busbw_factor("allreduce", 1), 0.0, 0.0);
	assert_near(gb_busbw_factor("allreduce", 2), 1.0, 0.0);
	assert_near(gb_busbw_factor("allreduce", 3), 4.0 / 3.0, 1e-15);
	assert_near(gb_busbw_factor("allreduce", 8), 1.75, 0.0);
	for (size_t i = 0; i < ARRAY_LEN(sharded); i++) {
		assert_near(gb_busbw_factor(sharded[i], 1), 0.0, 0.0);
		assert_near(gb_busbw_factor(sharded[i], 2), 0.5, 0.0);
		assert_near(gb_busbw_factor(sharded[i], 3), 2.0 / 3.0, 1e-15);
		assert_near(gb_busbw_factor(sharded[i], 8), 0.875, 0.0);
	}
	for (size_t i = 0; i < ARRAY_LEN(unity); i++) {
		assert_near(gb_busbw_factor(unity[i], 1), 1.0, 0.0);
		assert_near(gb_busbw_factor(unity[i], 2), 1.0, 0.0);
		assert_near(gb_busbw_factor(unity[i], 3), 1.0, 0.0);
		assert_near(gb_busbw_factor(unity[i], 8), 1.0, 0.0);
	}
	assert_true(isnan(gb_busbw_factor("allreduc", 8)));
	assert_true(isnan(gb_busbw_factor("AllReduce", 8)));
	assert_true(isnan(gb_busbw_factor("", 8)));
	assert_true(isnan(gb_busbw_factor(NULL, 8)));
	assert_true(isnan(gb_busbw_factor("allreduce", 0)));
	assert_true(isnan(gb_busbw_factor("broadcast", -1)));
}

static void test_algbw_bytes(void **state)
{
	static const char *const sharded[] = { "reducescatter", "allgather", "alltoall",
					       "gather", "scatter" };
	static const char *const single[] = { "allreduce", "broadcast", "reduce", "sendrecv" };

	(void)state;
	/* 1 Mi floats per rank on 8 ranks */
	for (size_t i = 0; i < ARRAY_LEN(single); i++)
		assert_near(gb_algbw_bytes(single[i], 1048576.0, 4.0, 8), 4194304.0, 0.0);
	for (size_t i = 0; i < ARRAY_LEN(sharded); i++) {
		assert_near(gb_algbw_bytes(sharded[i], 1048576.0, 4.0, 8), 33554432.0, 0.0);
		assert_near(gb_algbw_bytes(sharded[i], 1000.0, 2.0, 1), 2000.0, 0.0);
	}
	assert_true(isnan(gb_algbw_bytes("allgatherv", 1024.0, 4.0, 8)));
	assert_true(isnan(gb_algbw_bytes(NULL, 1024.0, 4.0, 8)));
	assert_true(isnan(gb_algbw_bytes("allreduce", 1024.0, 4.0, 0)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_odd),
		cmocka_unit_test(test_stats_even),
		cmocka_unit_test(test_stats_single),
		cmocka_unit_test(test_stats_constant),
		cmocka_unit_test(test_stats_zero_mean),
		cmocka_unit_test(test_stats_reject),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_mad),
		cmocka_unit_test(test_input_not_modified),
		cmocka_unit_test(test_fit_exact),
		cmocka_unit_test(test_fit_relative_noise),
		cmocka_unit_test(test_fit_absolute_noise),
		cmocka_unit_test(test_fit_clamp),
		cmocka_unit_test(test_fit_failures),
		cmocka_unit_test(test_busbw_factor),
		cmocka_unit_test(test_algbw_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
