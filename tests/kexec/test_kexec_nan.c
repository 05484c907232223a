/* SPDX-License-Identifier: MIT */
/*
 * test_kexec_nan.c - NaN never passes (ARCHITECTURE.md section 4): kernels/
 * verify.cu's GEMM comparison, run as written on the executor, shown an
 * output that is right but for one NaN element and one element off by far
 * more than the bound, and a reference that is NaN at a third sample. Each
 * NaN must be counted as a NaN and as a mismatch, the wrong value as a
 * mismatch only, and the largest error must be the finite one. A kernel that
 * only compares (NaN > bound is false) would pass the NaNs: the mutation
 * nan-verify-passes of scripts/mutants.txt.
 *
 * And the bound is the bound: a sample 1.5 times over it is a mismatch, one
 * just under it is not (verify-bound-inclusive: a kernel that allowed twice
 * the bound would pass the first).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/verify_hd.h"
#include "tests/kexec/kexec_test.h"

enum { M = 9, N = 7, K = 45, SAMPLES = 20, NAN_OUT = 3, NAN_REF = 11, WRONG = 16 };

/* A^T B in FP32 (column-major, ld M) and its FP64 reference at SAMPLES distinct elements */
static void make_case(float *d, uint32_t *rc, double *ref, double *scale)
{
	float a[K * M], b[K * N];
	uint64_t s = 11;

	for (size_t i = 0; i < K * M; i++)
		a[i] = kx_rand_pm1(&s);
	for (size_t i = 0; i < K * N; i++)
		b[i] = kx_rand_pm1(&s);
	for (size_t j = 0; j < N; j++)
		for (size_t i = 0; i < M; i++) {
			double e = 0;

			for (size_t l = 0; l < K; l++)
				e += (double)a[l + i * K] * b[l + j * K];
			d[i + j * M] = (float)e;
		}
	for (size_t i = 0; i < SAMPLES; i++) {
		double mag = 0;

		rc[2 * i] = (uint32_t)(i % M);
		rc[2 * i + 1] = (uint32_t)(i / M);
		ref[i] = 0;
		for (size_t l = 0; l < K; l++) {
			double p = (double)a[l + rc[2 * i] * K] * b[l + rc[2 * i + 1] * K];

			ref[i] += p;
			mag += fabs(p);
		}
		scale[i] = mag / sqrt((double)K);
	}
}

/* the counters of comparing d with ref at the samples, under bound */
static struct gb_verify_counters compare(const float *d, const uint32_t *rc, const double *ref,
					 const double *scale, double bound, double *got)
{
	struct gb_verify_counters zero = { 0, 0, 0, 0, 0 }, c;
	void *dd = kx_upload(d, sizeof(float) * M * N);
	uint32_t *drc = kx_upload(rc, sizeof(uint32_t) * 2 * SAMPLES);
	double *dref = kx_upload(ref, sizeof(double) * SAMPLES);
	double *dscale = kx_upload(scale, sizeof(double) * SAMPLES);
	double *dgot = kx_alloc(sizeof(double) * SAMPLES);
	struct gb_verify_counters *dc = kx_upload(&zero, sizeof zero);

	gb_kx_reset_findings();
	assert_int_equal(gb_launch_gemm_compare(dd, GB_DT_F32, M, drc, SAMPLES, dref, dscale, bound,
						dgot, dc, 0),
			 cudaSuccess);
	kx_download(&c, dc, sizeof c);
	kx_download(got, dgot, sizeof(double) * SAMPLES);
	kx_assert_clean();
	kx_free(dd);
	kx_free(drc);
	kx_free(dref);
	kx_free(dscale);
	kx_free(dgot);
	kx_free(dc);
	return c;
}

static void test_gemm_compare_counts_nan(void **state)
{
	float d[M * N];
	uint32_t rc[2 * SAMPLES];
	double ref[SAMPLES], scale[SAMPLES], got[SAMPLES], max_err;
	struct gb_verify_counters c;

	(void)state;
	make_case(d, rc, ref, scale);
	d[rc[2 * NAN_OUT] + rc[2 * NAN_OUT + 1] * M] = NAN;
	ref[NAN_REF] = NAN;
	d[rc[2 * WRONG] + rc[2 * WRONG + 1] * M] += 1.0f;
	c = compare(d, rc, ref, scale, 1e-5, got);
	assert_int_equal(c.checked, SAMPLES);
	assert_int_equal(c.nans, 2);
	assert_int_equal(c.mismatches, 3);
	/* the first wrong sample is the NaN output */
	assert_int_equal(~c.first_bad_inv, NAN_OUT);
	assert_true(isnan(got[NAN_OUT]));
	/* the largest error is the finite wrong one, about 1 / (|ref| + scale) */
	memcpy(&max_err, &c.max_err_bits, sizeof max_err);
	assert_true(isfinite(max_err));
	assert_true(fabs(max_err - (fabs(got[WRONG] - ref[WRONG])) / (fabs(ref[WRONG]) + scale[WRONG])) <=
		    1e-12 * max_err);
	assert_true(max_err > 1e-2);
}

static void test_gemm_compare_bound(void **state)
{
	float d[M * N];
	uint32_t rc[2 * SAMPLES];
	double ref[SAMPLES], scale[SAMPLES], got[SAMPLES], err;
	struct gb_verify_counters c;
	float *w;

	(void)state;
	make_case(d, rc, ref, scale);
	w = &d[rc[2 * WRONG] + rc[2 * WRONG + 1] * M];
	*w += 1e-3f * (fabsf(*w) + 1.0f);
	/* the planted error exactly as the kernel computes it */
	err = gb_verify_err((double)*w, ref[WRONG], scale[WRONG], GB_VERIFY_FLOOR_F32);
	assert_true(err > 1e-5); /* far above every other sample's FP32 rounding */
	c = compare(d, rc, ref, scale, err / 1.5, got);
	assert_int_equal(c.checked, SAMPLES);
	assert_int_equal(c.mismatches, 1);
	assert_int_equal(~c.first_bad_inv, WRONG);
	c = compare(d, rc, ref, scale, err * 1.001, got);
	assert_int_equal(c.mismatches, 0);
	assert_int_equal(c.first_bad_inv, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gemm_compare_counts_nan),
		cmocka_unit_test(test_gemm_compare_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
