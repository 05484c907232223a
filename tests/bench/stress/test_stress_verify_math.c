/* SPDX-License-Identifier: MIT */
/*
 * test_stress_verify_math.c - unit tests for the CPU-only verification
 * arithmetic of `gpubench stress` (bench/stress/stress_verify_math.c): the digest,
 * ABFT bounds on CPU matrices multiplied in float with round-to-nearest and
 * with truncation (no false alarm; flipped exponent and high mantissa bits
 * caught), exact checksums, the reference build, the cross-GPU vote, and
 * locating and explaining a corrupted element.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/stress/stress_math.h"
#include "cmd/cli.h"
#include "report/result.h"

#include <cjson/cJSON.h>
#include <fenv.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/bench/stress/stress_test_util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void test_digest(void **state)
{
	uint32_t w[64];
	uint64_t d0, d1;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(w); i++)
		w[i] = (uint32_t)(i * 2654435761u);
	d0 = gb_stress_digest(w, ARRAY_LEN(w));
	/* one flipped bit anywhere changes it */
	for (size_t i = 0; i < ARRAY_LEN(w); i += 7) {
		w[i] ^= 1u << (i % 32);
		d1 = gb_stress_digest(w, ARRAY_LEN(w));
		assert_true(d1 != d0);
		w[i] ^= 1u << (i % 32);
	}
	/* the position matters: swapping two words changes it */
	w[1] = w[0] + 1;
	d0 = gb_stress_digest(w, ARRAY_LEN(w));
	{
		uint32_t t = w[0];

		w[0] = w[1];
		w[1] = t;
	}
	assert_true(gb_stress_digest(w, ARRAY_LEN(w)) != d0);
	/* and it is the XOR of per-word terms, so any order of reduction agrees */
	assert_true((gb_stress_digest(w, 32) ^ gb_stress_digest_word(w[32], 32)) ==
		    gb_stress_digest(w, 33));
}

/* ======================================================================= */
/* ABFT on CPU matrices                                                    */

struct mats {
	uint64_t m, n, k;
	double *a, *b; /* a: k x m (A's storage), b: k x n */
	double *c;     /* m x n, the float result widened */
};

static void mats_gen(struct mats *x, uint64_t m, uint64_t n, uint64_t k, int sig_bits, int64_t r,
		     uint64_t seed)
{
	uint64_t ka = gb_stress_key(seed, 0), kb = gb_stress_key(seed, 1);

	x->m = m, x->n = n, x->k = k;
	x->a = malloc(k * m * sizeof(double));
	x->b = malloc(k * n * sizeof(double));
	x->c = malloc(m * n * sizeof(double));
	assert_non_null(x->a);
	assert_non_null(x->b);
	assert_non_null(x->c);
	for (uint64_t i = 0; i < k * m; i++)
		x->a[i] = gb_stress_value(ka, i, sig_bits, r);
	for (uint64_t i = 0; i < k * n; i++)
		x->b[i] = gb_stress_value(kb, i, sig_bits, r);
}

static void mats_free(struct mats *x)
{
	free(x->a);
	free(x->b);
	free(x->c);
}

/*
 * C in float in the given rounding mode. blk = 1: one sequential
 * accumulation per element, every product and addition rounded. blk > 1:
 * the tensor-core model of Fasi et al. (PeerJ CS 2021): blk products summed
 * exactly, then added to the FP32 accumulator with one rounding.
 */
static void gemm_float(struct mats *x, int mode, int blk)
{
	int old = fegetround();

	assert_int_equal(fesetround(mode), 0);
	for (uint64_t j = 0; j < x->n; j++) {
		for (uint64_t i = 0; i < x->m; i++) {
			const double *a = x->a + i * x->k, *b = x->b + j * x->k;
			volatile float acc = 0.0f;

			for (uint64_t p = 0; blk <= 1 && p < x->k; p++)
				acc += (float)a[p] * (float)b[p];
			for (uint64_t p = 0; blk > 1 && p < x->k; p += (uint64_t)blk) {
				/* exact in double for inputs of up to 11 significand bits */
				volatile double block = 0;

				for (int q = 0; q < blk; q++)
					block += a[p + (uint64_t)q] * b[p + (uint64_t)q];
				acc = (float)((double)acc + block);
			}
			x->c[i + j * x->m] = acc;
		}
	}
	fesetround(old);
}

static void mats_column(void *user, unsigned matrix, uint64_t col, double *out, uint64_t k)
{
	const struct mats *x = user;

	memcpy(out, (matrix ? x->b : x->a) + col * k, k * sizeof(double));
}

/* mismatching checksums of x->c against a reference of the given kind */
static uint64_t abft_count(const struct mats *x, enum gb_abft_kind kind, double u,
			   int64_t *fc, int64_t *fr, double *worst_ratio)
{
	struct gb_abft_ref ref;
	double *col = malloc(x->n * sizeof(double)), *row = malloc(x->m * sizeof(double));
	uint64_t bad;

	assert_int_equal(gb_stress_abft_build(mats_column, (void *)x, x->m, x->n, x->k, kind, u,
					      0, NULL, &ref),
			 0);
	gb_stress_abft_sums(x->c, x->m, x->n, col, row);
	bad = gb_stress_abft_check(&ref, col, row, fc, fr);
	if (worst_ratio) {
		*worst_ratio = 0;
		for (uint64_t j = 0; j < x->n; j++)
			*worst_ratio = fmax(*worst_ratio,
					    fabs(col[j] - ref.col_exp[j]) / ref.col_bound[j]);
		for (uint64_t i = 0; i < x->m; i++)
			*worst_ratio = fmax(*worst_ratio,
					    fabs(row[i] - ref.row_exp[i]) / ref.row_bound[i]);
	}
	gb_stress_abft_release(&ref);
	free(col);
	free(row);
	return bad;
}

/* flip bit `bit` of element (i, j) as a float and return the old value */
static double flip_f32(struct mats *x, uint64_t i, uint64_t j, int bit)
{
	float f = (float)x->c[i + j * x->m];
	uint32_t u;
	double old = x->c[i + j * x->m];

	memcpy(&u, &f, sizeof(u));
	u ^= 1u << bit;
	memcpy(&f, &u, sizeof(f));
	x->c[i + j * x->m] = f;
	return old;
}

/* an element of column j whose magnitude is near the column's median */
static uint64_t median_row(const struct mats *x, uint64_t j)
{
	double *v = malloc(x->m * sizeof(double)), med;
	uint64_t best = 0;

	for (uint64_t i = 0; i < x->m; i++)
		v[i] = fabs(x->c[i + j * x->m]);
	med = gb_percentile(v, x->m, 50.0);
	for (uint64_t i = 1; i < x->m; i++)
		if (fabs(v[i] - med) < fabs(v[best] - med))
			best = i;
	free(v);
	return best;
}

/* Round to nearest, FP32 SIMT-style: the bound holds with a wide margin. */
static void test_abft_no_false_alarm_rn(void **state)
{
	struct mats x;
	int64_t fc, fr;
	double ratio;

	(void)state;
	mats_gen(&x, 48, 40, 4096, 24, 0, 11);
	gemm_float(&x, FE_TONEAREST, 1);
	assert_int_equal(abft_count(&x, GB_ABFT_PROBABILISTIC, 0x1p-24, &fc, &fr, &ratio), 0);
	assert_int_equal(fc, -1);
	assert_int_equal(fr, -1);
	/* not a near miss: the worst checksum uses under a tenth of its bound */
	assert_true(ratio < 0.1);
	assert_int_equal(abft_count(&x, GB_ABFT_RIGOROUS, 0x1p-24, &fc, &fr, NULL), 0);
	mats_free(&x);
}

/*
 * Truncation (round toward zero), with the doubled u_acc of the tensor-core
 * types: no false alarm with tensor-core-like blocks of 4 at k = 8192, nor
 * with sequential truncation of every operation at k = 1024. (Sequential
 * truncation at k = 8192, which no NVIDIA GEMM does, would come within 4
 * standard deviations of the bound: see stress_math.c.)
 */
static void test_abft_no_false_alarm_rz(void **state)
{
	struct mats x;
	int64_t fc, fr;
	double ratio;

	(void)state;
	mats_gen(&x, 32, 32, 8192, 11, 0, 12); /* FP16-like inputs: exact products */
	gemm_float(&x, FE_TOWARDZERO, 4);
	assert_int_equal(abft_count(&x, GB_ABFT_PROBABILISTIC, 0x1p-23, &fc, &fr, &ratio), 0);
	assert_true(ratio < 0.35);
	assert_int_equal(abft_count(&x, GB_ABFT_RIGOROUS, 0x1p-23, &fc, &fr, NULL), 0);
	mats_free(&x);

	mats_gen(&x, 48, 40, 1024, 24, 0, 13); /* FP32 inputs, products truncated too */
	gemm_float(&x, FE_TOWARDZERO, 1);
	assert_int_equal(abft_count(&x, GB_ABFT_PROBABILISTIC, 0x1p-23, &fc, &fr, &ratio), 0);
	assert_true(ratio < 0.35);
	assert_int_equal(abft_count(&x, GB_ABFT_RIGOROUS, 0x1p-23, &fc, &fr, NULL), 0);
	mats_free(&x);
}

/* A single flipped exponent or high mantissa bit is caught, in its row and column. */
static void test_abft_catches_flips(void **state)
{
	static const int bits[] = { 30, 29, 27, 24, 23, 22, 21, 20 };
	struct mats x;
	int64_t fc, fr;

	(void)state;
	mats_gen(&x, 48, 40, 4096, 24, 0, 14);
	gemm_float(&x, FE_TONEAREST, 1);
	for (size_t b = 0; b < ARRAY_LEN(bits); b++) {
		uint64_t j = 3 + b, i = median_row(&x, j);
		double old = flip_f32(&x, i, j, bits[b]);

		assert_int_equal(abft_count(&x, GB_ABFT_PROBABILISTIC, 0x1p-24, &fc, &fr, NULL), 2);
		assert_int_equal(fc, (int64_t)j);
		assert_int_equal(fr, (int64_t)i);
		x.c[i + j * x.m] = old;
	}
	/* the rigorous bound is too loose for a mantissa flip, but not for the exponent */
	{
		uint64_t i = median_row(&x, 5);
		double old = flip_f32(&x, i, 5, 20);

		assert_int_equal(abft_count(&x, GB_ABFT_RIGOROUS, 0x1p-24, &fc, &fr, NULL), 0);
		x.c[i + 5 * x.m] = old;
		old = flip_f32(&x, i, 5, 29); /* x 2^64 */
		assert_int_equal(abft_count(&x, GB_ABFT_RIGOROUS, 0x1p-24, &fc, &fr, NULL), 2);
		x.c[i + 5 * x.m] = old;
	}
	/* NaN is a mismatch */
	x.c[7] = NAN;
	assert_true(abft_count(&x, GB_ABFT_PROBABILISTIC, 0x1p-24, &fc, &fr, NULL) >= 2);
	mats_free(&x);
}

/* Exact phase: integer data give exact sums in any rounding mode; any flip shows. */
static void test_abft_exact(void **state)
{
	struct mats x;
	int64_t fc, fr, r = gb_stress_exact_range(GB_SP_FP16, 40, 40, 2048);

	(void)state;
	assert_int_equal(r, 90);
	mats_gen(&x, 40, 40, 2048, 11, r, 15);
	gemm_float(&x, FE_TOWARDZERO, 1);
	assert_int_equal(abft_count(&x, GB_ABFT_EXACT, 0, &fc, &fr, NULL), 0);
	gemm_float(&x, FE_TONEAREST, 8);
	assert_int_equal(abft_count(&x, GB_ABFT_EXACT, 0, &fc, &fr, NULL), 0);
	/* the lowest mantissa bit of an integer-valued float */
	{
		uint64_t i = median_row(&x, 9);

		flip_f32(&x, i, 9, 0);
		assert_int_equal(abft_count(&x, GB_ABFT_EXACT, 0, &fc, &fr, NULL), 2);
		assert_int_equal(fc, 9);
		assert_int_equal(fr, (int64_t)i);
	}
	mats_free(&x);
}

/*
 * A flipped bit of a random-data FP32 result is named from the CPU's exact
 * value and the checksums' bound: the GPU's rounding is unknown, yet the
 * flip that explains the element is the only one within the bound.
 */
static void test_abft_names_flipped_bit(void **state)
{
	static const int bits[] = { 31, 30, 29, 27, 24, 23, 22, 21, 20 };
	struct mats x;
	struct gb_abft_ref ref;

	(void)state;
	mats_gen(&x, 48, 40, 4096, 24, 0, 14);
	gemm_float(&x, FE_TONEAREST, 1);
	assert_int_equal(gb_stress_abft_build(mats_column, &x, x.m, x.n, x.k, GB_ABFT_PROBABILISTIC,
					      0x1p-24, 0, NULL, &ref),
			 0);
	for (size_t b = 0; b < ARRAY_LEN(bits); b++) {
		uint64_t j = 3 + b, i = median_row(&x, j);
		double old = flip_f32(&x, i, j, bits[b]), exact = 0;
		float got = (float)x.c[i + j * x.m];
		uint32_t got_bits, old_bits;
		float old_f = (float)old;
		struct gb_stress_bitdiff d;

		memcpy(&got_bits, &got, sizeof(got_bits));
		memcpy(&old_bits, &old_f, sizeof(old_bits));
		for (uint64_t p = 0; p < x.k; p++) /* 24-bit inputs: products exact in double */
			exact += x.a[p + i * x.k] * x.b[p + j * x.k];
		gb_stress_explain(GB_DT_F32, got_bits, exact, fmin(ref.col_bound[j], ref.row_bound[i]),
				  &d);
		assert_int_equal(d.n_bits, 1);
		assert_int_equal(d.bit, bits[b]);
		assert_int_equal(d.expected_bits, old_bits);
		x.c[i + j * x.m] = old;
	}
	gb_stress_abft_release(&ref);
	mats_free(&x);
}

/* The generator-backed reference equals one built from the same matrices. */
static void test_abft_reference_matches(void **state)
{
	struct gb_stress_phase ph = { GB_SP_BF16, GB_STRESS_RANDOM, 0 };
	struct gb_abft_ref a, b;
	struct mats x;

	(void)state;
	mats_gen(&x, 24, 20, 64, 8, 0, 99);
	assert_int_equal(gb_stress_abft_reference(&ph, 99, 24, 20, 64, 0, NULL, &a), 0);
	assert_int_equal(gb_stress_abft_build(mats_column, &x, 24, 20, 64, GB_ABFT_PROBABILISTIC,
					      0x1p-23, 64, NULL, &b),
			 0);
	for (size_t j = 0; j < 20; j++) {
		assert_true(a.col_exp[j] == b.col_exp[j]);
		assert_true(a.col_bound[j] == b.col_bound[j]);
		assert_true(a.col_bound[j] > 0);
	}
	for (size_t i = 0; i < 24; i++)
		assert_true(a.row_exp[i] == b.row_exp[i]);
	gb_stress_abft_release(&a);
	gb_stress_abft_release(&b);
	/* exact phases have zero bounds */
	ph.mode = GB_STRESS_EXACT;
	ph.r = 5;
	assert_int_equal(gb_stress_abft_reference(&ph, 99, 24, 20, 64, 0, NULL, &a), 0);
	assert_true(a.col_bound[0] == 0 && a.row_bound[23] == 0);
	assert_true(a.col_exp[0] == floor(a.col_exp[0]));
	gb_stress_abft_release(&a);
	/* one element from the generator: the exact product of the stored inputs */
	{
		double e = 0;

		for (uint64_t p = 0; p < 64; p++)
			e += x.a[p + 7 * 64] * x.b[p + 3 * 64];
		ph.mode = GB_STRESS_RANDOM;
		ph.r = 0;
		assert_true(gb_stress_element(&ph, 99, 64, 7, 3) == e);
	}
	mats_free(&x);
}

static void test_abft_bound_values(void **state)
{
	double p, r;

	(void)state;
	/* tau u sqrt(k) scale, plus a negligible double-summation floor */
	p = gb_stress_abft_bound(GB_ABFT_PROBABILISTIC, 0x1p-24, 0, 8192, 8192, 2730.0, 1.67e7);
	assert_true(fabs(p - 64 * 0x1p-24 * sqrt(8192.0) * 2730.0) < 1e-4);
	assert_true(p > 0.9 && p < 1.0);
	/* the rigorous bound at the same size is thousands of times looser */
	r = gb_stress_abft_bound(GB_ABFT_RIGOROUS, 0x1p-24, 0, 8192, 8192, 2730.0, 1.67e7);
	assert_true(r > 1000 * p);
	assert_true(gb_stress_abft_bound(GB_ABFT_EXACT, 0x1p-24, 0, 8192, 8192, 1, 1) == 0);
}

/* ======================================================================= */
/* cross-GPU vote                                                          */

static void test_cross_vote(void **state)
{
	uint64_t d[4] = { 5, 5, 7, 5 };
	bool v[4] = { true, true, true, true };
	enum gb_cross out[4];

	(void)state;
	gb_stress_cross_vote(d, v, 4, out);
	assert_int_equal(out[0], GB_CROSS_AGREE);
	assert_int_equal(out[2], GB_CROSS_OUTLIER);
	assert_int_equal(out[3], GB_CROSS_AGREE);
	/* three GPUs name the outlier too */
	gb_stress_cross_vote(d + 1, v, 3, out);
	assert_int_equal(out[0], GB_CROSS_AGREE);
	assert_int_equal(out[1], GB_CROSS_OUTLIER);
	/* two that differ: no majority */
	gb_stress_cross_vote(d + 1, v, 2, out);
	assert_int_equal(out[0], GB_CROSS_UNDECIDED);
	assert_int_equal(out[1], GB_CROSS_UNDECIDED);
	/* a 2-2 split: undecided */
	d[1] = 7;
	gb_stress_cross_vote(d, v, 4, out);
	for (int i = 0; i < 4; i++)
		assert_int_equal(out[i], GB_CROSS_UNDECIDED);
	/* all agree */
	d[1] = d[2] = 5;
	gb_stress_cross_vote(d, v, 4, out);
	for (int i = 0; i < 4; i++)
		assert_int_equal(out[i], GB_CROSS_AGREE);
	/* invalid digests do not vote; one valid is nothing to compare */
	v[0] = v[1] = v[2] = false;
	gb_stress_cross_vote(d, v, 4, out);
	for (int i = 0; i < 4; i++)
		assert_int_equal(out[i], GB_CROSS_NONE);
}

/* ======================================================================= */
/* locating and explaining a corrupted element                             */

static void test_locate(void **state)
{
	struct gb_stress_sum_fail f[] = {
		{ 2, 7, false }, { 2, 9, true }, /* slot 2: column 7, row 9 */
		{ 3, 1, false }, { 3, 4, true }, { 3, 5, true }, /* slot 3: two rows */
		{ 5, 6, true },                  /* slot 5: a row alone */
	};
	uint32_t row = 0, col = 0;

	(void)state;
	assert_true(gb_stress_locate(f, ARRAY_LEN(f), ARRAY_LEN(f), 2, &row, &col));
	assert_int_equal(row, 9);
	assert_int_equal(col, 7);
	assert_false(gb_stress_locate(f, ARRAY_LEN(f), ARRAY_LEN(f), 3, &row, &col));
	assert_false(gb_stress_locate(f, ARRAY_LEN(f), ARRAY_LEN(f), 5, &row, &col));
	assert_false(gb_stress_locate(f, ARRAY_LEN(f), ARRAY_LEN(f), 4, &row, &col));
	/*
	 * Records left out (9 failed, 6 kept): slot 2's are complete (slot 3's
	 * follow them on the stream), but the last kept slot may have lost some
	 */
	assert_true(gb_stress_locate(f, ARRAY_LEN(f), 9, 2, &row, &col));
	assert_false(gb_stress_locate(f, 2, 3, 2, &row, &col));
	assert_true(gb_stress_locate(f, 2, 2, 2, &row, &col));
}

static void test_value_bits(void **state)
{
	static const struct {
		enum gb_dtype t;
		double v;
		uint64_t bits;
	} cases[] = {
		{ GB_DT_F32, 1.0, 0x3f800000 },
		{ GB_DT_F32, -0.5, 0xbf000000 },
		{ GB_DT_F64, 1.0, 0x3ff0000000000000ULL },
		{ GB_DT_F16, 1.0, 0x3c00 },
		{ GB_DT_F16, -2.0, 0xc000 },
		{ GB_DT_F16, 65504.0, 0x7bff },
		{ GB_DT_F16, 65520.0, 0x7c00 },         /* rounds up to infinity */
		{ GB_DT_F16, 0x1p-24, 0x0001 },         /* the smallest subnormal */
		{ GB_DT_F16, 0x1.ff8p-15, 0x03ff },     /* the largest subnormal */
		{ GB_DT_F16, 0x1.ffcp-15, 0x0400 },     /* a tie that rounds up to normal */
		{ GB_DT_F16, 1.0 + 0x1p-11, 0x3c00 },   /* a tie goes to even */
		{ GB_DT_F16, 1.0 + 0x3p-11, 0x3c02 },
		{ GB_DT_BF16, 1.0, 0x3f80 },
		{ GB_DT_BF16, 0x1.ffp0, 0x4000 },      /* carries into the exponent */
		{ GB_DT_BF16, 1e39, 0x7f80 },
		{ GB_DT_I32, 2.6, 3 },
		{ GB_DT_I32, -1.0, 0xffffffffULL },
		{ GB_DT_I32, 1e10, 0x7fffffff },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		uint64_t b = gb_stress_value_bits(cases[i].t, cases[i].v);

		if (b != cases[i].bits)
			fail_msg("%s %a: 0x%llx, expected 0x%llx", gb_dtype_name(cases[i].t),
				 cases[i].v, (unsigned long long)b,
				 (unsigned long long)cases[i].bits);
	}
	assert_int_equal(gb_stress_type_bits(GB_DT_F64), 64);
	assert_int_equal(gb_stress_type_bits(GB_DT_BF16), 16);
	assert_int_equal(gb_stress_type_bits(GB_DT_E4M3), 0);
	assert_true(gb_stress_bits_value(GB_DT_F16, 0x3c00) == 1.0);
	assert_true(gb_stress_bits_value(GB_DT_BF16, 0xbf80) == -1.0);
	assert_true(gb_stress_bits_value(GB_DT_F32, 0x7f707d00) > 3e38);
	assert_true(gb_stress_bits_value(GB_DT_I32, 0xffffffffULL) == -1.0);
	assert_true(isnan(gb_stress_bits_value(GB_DT_E4M3, 0)));
}

static void test_explain(void **state)
{
	struct gb_stress_bitdiff d;

	(void)state;
	/* the simulator's bitflip_gemm: bit 30 of 0.939407 (0x3f707d00) */
	gb_stress_explain(GB_DT_F32, 0x7f707d00, 0.9394073486328125, 0.01, &d);
	assert_int_equal(d.n_bits, 1);
	assert_int_equal(d.bit, 30);
	assert_int_equal(d.expected_bits, 0x3f707d00);
	/* the CPU's exact value is not the GPU's rounding of it: within tol is enough */
	gb_stress_explain(GB_DT_F32, 0x7f707d00, 0.93940741, 1e-6, &d);
	assert_int_equal(d.bit, 30);
	/* ... but not outside it: then the bits of the CPU value, several differ */
	gb_stress_explain(GB_DT_F32, 0x7f707d00, 0.93940741, 0, &d);
	assert_true(d.n_bits > 1);
	assert_int_equal(d.bit, -1);
	/* exact phases: tol 0; the flip that makes an integer tiny */
	gb_stress_explain(GB_DT_F32, 0x07d2bb80, 107895, 0, &d);
	assert_int_equal(d.n_bits, 1);
	assert_int_equal(d.bit, 30);
	assert_int_equal(d.expected_bits, 0x47d2bb80);
	/* a wrong value no single flip explains: 5 for 3 differs in 3 bits */
	gb_stress_explain(GB_DT_F32, 0x40a00000, 3.0, 0, &d);
	assert_int_equal(d.n_bits, 3);
	assert_int_equal(d.bit, -1);
	assert_int_equal(d.expected_bits, 0x40400000);
	/* within the bound: nothing to explain */
	gb_stress_explain(GB_DT_F32, 0x3f800001, 1.0, 1e-6, &d);
	assert_int_equal(d.n_bits, 0);
	/* sign, and a low mantissa bit of a double */
	gb_stress_explain(GB_DT_F32, 0x3f000000, -0.5, 0, &d);
	assert_int_equal(d.bit, 31);
	assert_string_equal(gb_stress_bit_field(GB_DT_F32, d.bit), "sign");
	gb_stress_explain(GB_DT_F64, 0x3ff8000000000000ULL ^ (1ULL << 20), 1.5, 0, &d);
	assert_int_equal(d.bit, 20);
	assert_string_equal(gb_stress_bit_field(GB_DT_F64, d.bit), "mantissa");
	/* 16-bit types: a flip to infinity (bf16) and to zero (fp16) */
	gb_stress_explain(GB_DT_BF16, 0x7f80, 1.0, 0, &d);
	assert_int_equal(d.bit, 14);
	assert_int_equal(d.expected_bits, 0x3f80);
	gb_stress_explain(GB_DT_F16, 0x0000, 2.0, 0, &d);
	assert_int_equal(d.bit, 14);
	/* int32, and bits above the type's width are not the element's */
	gb_stress_explain(GB_DT_I32, 7 ^ (1u << 30) ^ (1ULL << 40), 7, 0, &d);
	assert_int_equal(d.n_bits, 1);
	assert_int_equal(d.bit, 30);
	/* a NaN that one flip of an exponent bit explains; an unknown expected value */
	gb_stress_explain(GB_DT_F32, 0x7fc00000, 1.5, 0, &d);
	assert_int_equal(d.bit, 30);
	gb_stress_explain(GB_DT_F32, 0x3f800000, NAN, 0, &d);
	assert_int_equal(d.n_bits, -1);
}

static void test_corrupt_record(void **state)
{
	struct gb_stress_corrupt c, e;
	char buf[256];
	cJSON *o;

	(void)state;
	gb_stress_corrupt_init(&c);
	assert_string_equal(gb_stress_corrupt_text(&c, buf, sizeof(buf)), "");
	o = gb_stress_corrupt_json(&c);
	assert_true(cJSON_IsNull(o));
	cJSON_Delete(o);
	/* the first is kept, the rest counted */
	corrupt_example(&e, 128);
	assert_true(gb_stress_corrupt_add(&c, &e));
	corrupt_example(&e, 7);
	assert_false(gb_stress_corrupt_add(&c, &e));
	assert_int_equal(c.located, 2);
	assert_int_equal(c.row, 128);
	assert_string_equal(gb_stress_corrupt_text(&c, buf, sizeof(buf)),
			    "first at row 128, column 128 (batch 4): bit 30 (exponent) flipped, "
			    "expected 0.939407 got 3.19664e+38; 2 elements located");
	o = gb_stress_corrupt_json(&c);
	assert_int_equal(cJSON_GetObjectItem(o, "row")->valueint, 128);
	assert_int_equal(cJSON_GetObjectItem(o, "col")->valueint, 128);
	assert_int_equal(cJSON_GetObjectItem(o, "bit")->valueint, 30);
	assert_int_equal(cJSON_GetObjectItem(o, "bits_differ")->valueint, 1);
	assert_int_equal(cJSON_GetObjectItem(o, "located")->valueint, 2);
	assert_string_equal(cJSON_GetObjectItem(o, "field")->valuestring, "exponent");
	assert_string_equal(cJSON_GetObjectItem(o, "expected_bits")->valuestring, "0x3f707d00");
	assert_string_equal(cJSON_GetObjectItem(o, "got_bits")->valuestring, "0x7f707d00");
	cJSON_Delete(o);
	/* several bits; not read back */
	c.diff.n_bits = 3;
	c.diff.bit = -1;
	assert_non_null(strstr(gb_stress_corrupt_text(&c, buf, sizeof(buf)), ": 3 bits differ,"));
	o = gb_stress_corrupt_json(&c);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "bit")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "field")));
	cJSON_Delete(o);
	c.read = false;
	assert_non_null(strstr(gb_stress_corrupt_text(&c, buf, sizeof(buf)),
			       ": could not be read back,"));
}

/* Ctrl-C while the references are computed: the build stops and frees what it had. */
static void test_abft_build_stops(void **state)
{
	struct gb_stress_phase ph = { GB_SP_BF16, GB_STRESS_RANDOM, 0 };
	volatile sig_atomic_t stop = 1;
	struct gb_abft_ref a;

	(void)state;
	assert_int_equal(gb_stress_abft_reference(&ph, 1, 64, 64, 64, 0, &stop, &a), -2);
	assert_null(a.col_exp);
	assert_null(a.row_bound);
	stop = 0;
	assert_int_equal(gb_stress_abft_reference(&ph, 1, 64, 64, 64, 0, &stop, &a), 0);
	assert_non_null(a.col_exp);
	gb_stress_abft_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_abft_no_false_alarm_rn),
		cmocka_unit_test(test_abft_no_false_alarm_rz),
		cmocka_unit_test(test_abft_catches_flips),
		cmocka_unit_test(test_abft_exact),
		cmocka_unit_test(test_abft_names_flipped_bit),
		cmocka_unit_test(test_abft_reference_matches),
		cmocka_unit_test(test_abft_bound_values),
		cmocka_unit_test(test_cross_vote),
		cmocka_unit_test(test_locate),
		cmocka_unit_test(test_value_bits),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_corrupt_record),
		cmocka_unit_test(test_abft_build_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
