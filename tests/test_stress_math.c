/* SPDX-License-Identifier: MIT */
/*
 * test_stress_math.c - unit tests for the CPU core of `gpubench stress`
 * (bench/stress_math.c, bench/stress_verdict_math.c): the data generator,
 * exact-phase ranges, ABFT bounds on CPU matrices multiplied in float with
 * round-to-nearest and with truncation (no false alarm; flipped exponent and
 * high mantissa bits caught), sizing, load schedules, the cross-GPU vote, the
 * hardware XID set, forensics formatting, thresholds, duration and percent
 * parsing, and every verdict rule on synthetic observations, triggering and
 * not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/stress_math.h"
#include "cmd/cli.h"
#include "report/result.h"

#include <cjson/cJSON.h>
#include <fenv.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define GiB (1024.0 * 1024.0 * 1024.0)
#define MiB (1024.0 * 1024.0)

/* ======================================================================= */
/* generator                                                               */

static void test_value_random_representable(void **state)
{
	static const enum gb_stress_prec ps[] = { GB_SP_BF16, GB_SP_FP16, GB_SP_TF32,
						  GB_SP_FP32, GB_SP_FP64, GB_SP_FP8 };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(ps); i++) {
		struct gb_stress_gemm_type t;
		uint64_t key = gb_stress_key(7, 0);
		double sum = 0, scale;

		assert_int_equal(gb_stress_gemm_type(ps[i], &t), 0);
		scale = ldexp(1.0, t.sig_bits);
		for (uint64_t idx = 0; idx < 20000; idx++) {
			double v = gb_stress_value(key, idx, t.sig_bits, 0);

			/* |v| < 1 and v * 2^sig an integer: exactly representable */
			assert_true(fabs(v) < 1.0);
			assert_true(v * scale == floor(v * scale));
			sum += v;
		}
		/* zero-mean, as the probabilistic bound assumes */
		assert_true(fabs(sum / 20000) < 0.02);
	}
	/* the two matrices and two seeds differ */
	assert_true(gb_stress_key(1, 0) != gb_stress_key(1, 1));
	assert_true(gb_stress_key(1, 0) != gb_stress_key(2, 0));
}

static void test_value_exact_integers(void **state)
{
	uint64_t key = gb_stress_key(3, 1);
	bool seen_lo = false, seen_hi = false;

	(void)state;
	for (uint64_t idx = 0; idx < 5000; idx++) {
		double v = gb_stress_value(key, idx, 11, 16);

		assert_true(v == floor(v));
		assert_true(v >= -16 && v <= 16);
		seen_lo |= v == -16;
		seen_hi |= v == 16;
	}
	assert_true(seen_lo && seen_hi);
}

static void test_memtest_words(void **state)
{
	(void)state;
	assert_int_equal(gb_memtest_word(GB_MT_WALK1, 0, 0, 0), 1u);
	assert_int_equal(gb_memtest_word(GB_MT_WALK1, 3, 0, 0), 8u);
	assert_int_equal(gb_memtest_word(GB_MT_WALK1, 31, 0, 1), 1u);
	assert_int_equal(gb_memtest_word(GB_MT_WALK0, 0, 0, 2), ~4u);
	assert_int_equal(gb_memtest_word(GB_MT_SOLID, 0x55555555u, 0, 123), 0x55555555u);
	assert_int_equal(gb_memtest_word(GB_MT_RANDOM, 0, 9, 5), gb_memtest_word(GB_MT_RANDOM, 0, 9, 5));
	assert_true(gb_memtest_word(GB_MT_RANDOM, 0, 9, 5) != gb_memtest_word(GB_MT_RANDOM, 0, 9, 6));
	assert_true(gb_memtest_word(GB_MT_RANDOM, 0, 9, 5) != gb_memtest_word(GB_MT_RANDOM, 0, 10, 5));
}

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
/* precisions, exact ranges, phases                                        */

static void test_gemm_types(void **state)
{
	struct gb_stress_gemm_type t;
	enum gb_stress_prec two[2];
	char buf[128];

	(void)state;
	assert_int_equal(gb_stress_gemm_type(GB_SP_BF16, &t), 0);
	assert_int_equal(t.in, GB_DT_BF16);
	assert_int_equal(t.out, GB_DT_F32);
	assert_int_equal(t.int_max, 256);
	assert_int_equal(gb_stress_gemm_type(GB_SP_FP64, &t), 0);
	assert_int_equal(t.out, GB_DT_F64);
	assert_int_equal(gb_stress_gemm_type(GB_SP_MIXED, &t), -1);
	assert_int_equal(gb_stress_expand_prec(GB_SP_MIXED, two), 2);
	assert_int_equal(two[0], GB_SP_FP64);
	assert_int_equal(two[1], GB_SP_FP16);
	assert_int_equal(gb_stress_expand_prec(GB_SP_TF32, two), 1);
	assert_int_equal(two[0], GB_SP_TF32);
	assert_string_equal(gb_stress_prec_names[GB_SP_FP8], "fp8");
	assert_null(gb_stress_prec_names[GB_SP_COUNT]);

	assert_null(gb_stress_unsupported(GB_SP_FP8, 9, 0, buf, sizeof(buf)));
	assert_null(gb_stress_unsupported(GB_SP_FP8, 8, 9, buf, sizeof(buf)));
	assert_non_null(gb_stress_unsupported(GB_SP_FP8, 8, 0, buf, sizeof(buf)));
	assert_string_equal(buf, "fp8 needs compute capability 8.9 or newer (this GPU is 8.0)");
	assert_non_null(gb_stress_unsupported(GB_SP_BF16, 7, 5, buf, sizeof(buf)));
	assert_null(gb_stress_unsupported(GB_SP_FP64, 6, 0, buf, sizeof(buf)));
}

/* every documented condition of the exact range, at the largest r and r + 1 */
static void check_range(enum gb_stress_prec p, uint64_t m, uint64_t n, uint64_t k, int64_t want)
{
	struct gb_stress_gemm_type t;
	int64_t r = gb_stress_exact_range(p, m, n, k);
	uint64_t mn = m > n ? m : n;
	double r2 = (double)r * (double)r;

	assert_int_equal(gb_stress_gemm_type(p, &t), 0);
	if (want >= 0)
		assert_int_equal(r, want);
	assert_true(r <= t.int_max);
	assert_true((double)k * r2 < ldexp(1.0, t.acc_exact_bits));
	assert_true((double)mn * (double)k * r2 < 0x1p53);
	/* r + 1 breaks one of them */
	r2 = (double)(r + 1) * (double)(r + 1);
	assert_true(r + 1 > t.int_max || (double)k * r2 >= ldexp(1.0, t.acc_exact_bits) ||
		    (double)mn * (double)k * r2 >= 0x1p53);
}

static void test_exact_range(void **state)
{
	(void)state;
	/* the representable limits of the research notes, where k is small */
	check_range(GB_SP_FP16, 4, 4, 1, 2048);
	check_range(GB_SP_TF32, 4, 4, 1, 2048);
	check_range(GB_SP_BF16, 4, 4, 1, 256);
	check_range(GB_SP_FP8, 4, 4, 1, 16);
	/* k r^2 < 2^24: 4 x 2048^2 = 2^24 is one too many */
	check_range(GB_SP_TF32, 4, 4, 4, 2047);
	/* at the stress's own 8192^3, FP32 accumulation decides: sqrt(2^24 / 8192) */
	check_range(GB_SP_FP16, 8192, 8192, 8192, 45);
	check_range(GB_SP_BF16, 8192, 8192, 8192, 45);
	check_range(GB_SP_FP32, 8192, 8192, 8192, 45);
	/* FP8 keeps partial sums within 14 bits */
	check_range(GB_SP_FP8, 8192, 8192, 8192, 1);
	check_range(GB_SP_FP8, 256, 256, 256, 7);
	/* FP64: the checksums in double decide: sqrt(2^53 / 2^26) */
	check_range(GB_SP_FP64, 8192, 8192, 8192, 11585);
	check_range(GB_SP_FP64, 1024, 1024, 1024, -1);
	/* nothing fits: FP8 at k = 2^15 */
	assert_int_equal(gb_stress_exact_range(GB_SP_FP8, 64, 64, 32768), 0);
	assert_int_equal(gb_stress_exact_range(GB_SP_MIXED, 64, 64, 64), 0);
}

static void test_phases(void **state)
{
	struct gb_stress_phase ph[4];

	(void)state;
	assert_int_equal(gb_stress_phases(GB_SP_BF16, false, 8192, 8192, 8192, ph, 4), 1);
	assert_int_equal(ph[0].mode, GB_STRESS_RANDOM);
	assert_int_equal(gb_stress_phases(GB_SP_BF16, true, 8192, 8192, 8192, ph, 4), 2);
	assert_int_equal(ph[1].mode, GB_STRESS_EXACT);
	assert_int_equal(ph[1].r, 45);
	assert_int_equal(gb_stress_phases(GB_SP_MIXED, true, 1024, 1024, 1024, ph, 4), 4);
	assert_int_equal(ph[0].prec, GB_SP_FP64);
	assert_int_equal(ph[1].prec, GB_SP_FP16);
	assert_int_equal(ph[2].prec, GB_SP_FP64);
	assert_int_equal(ph[2].mode, GB_STRESS_EXACT);
	assert_int_equal(ph[3].prec, GB_SP_FP16);
	/* an exact range of 0 drops that exact phase */
	assert_int_equal(gb_stress_phases(GB_SP_FP8, true, 64, 64, 32768, ph, 4), 1);
	assert_int_equal(gb_stress_abft_kind(&ph[0]), GB_ABFT_PROBABILISTIC);
}

static void test_batch_schedule(void **state)
{
	size_t seq[8];

	(void)state;
	/* one precision with an exact phase: R R R E */
	for (size_t b = 0; b < 8; b++)
		seq[b] = gb_stress_batch_phase(1, 1, b);
	assert_int_equal(seq[0], 0);
	assert_int_equal(seq[2], 0);
	assert_int_equal(seq[3], 1);
	assert_int_equal(seq[4], 0);
	assert_int_equal(seq[7], 1);
	/* mixed: R64 R16 R64 R16 R64 R16 E64 E16 */
	assert_int_equal(gb_stress_batch_phase(2, 2, 0), 0);
	assert_int_equal(gb_stress_batch_phase(2, 2, 1), 1);
	assert_int_equal(gb_stress_batch_phase(2, 2, 5), 1);
	assert_int_equal(gb_stress_batch_phase(2, 2, 6), 2);
	assert_int_equal(gb_stress_batch_phase(2, 2, 7), 3);
	assert_int_equal(gb_stress_batch_phase(2, 2, 8), 0);
	/* no exact phases: the random ones in turn */
	assert_int_equal(gb_stress_batch_phase(2, 0, 3), 1);
	assert_int_equal(gb_stress_batch_phase(1, 0, 3), 0);
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
/* sizing                                                                  */

static void test_sizing(void **state)
{
	struct gb_stress_phase ph[4];
	struct gb_stress_sizing sz;
	size_t np = gb_stress_phases(GB_SP_BF16, true, 8192, 8192, 8192, ph, 4);
	char err[256];

	(void)state;
	/* an 80 GiB GPU at 90%: 8192^2 bf16 inputs for two phases, FP32 slots */
	assert_int_equal(gb_stress_size(80 * GiB, 0.9, 0, ph, np, 64 * MiB, &sz, err, sizeof(err)),
			 0);
	assert_int_equal(sz.n, 8192);
	assert_int_equal(sz.bytes_slot, 8192ULL * 8192 * 4);
	assert_int_equal(sz.bytes_inputs, 2ULL * 2 * 8192 * 8192 * 2);
	assert_int_equal(sz.slots, 285); /* (72 GiB - 512 MiB - 64 MiB) / 256 MiB */
	assert_true((double)sz.bytes_total <= 0.9 * 80 * GiB);
	assert_true((double)(sz.bytes_total + sz.bytes_slot) > 0.9 * 80 * GiB);

	/* a small GPU gets smaller matrices, still two working slots */
	assert_int_equal(gb_stress_size(1 * GiB, 0.9, 0, ph, np, 32 * MiB, &sz, err, sizeof(err)),
			 0);
	assert_true(sz.n < 8192);
	assert_true(sz.slots >= np + 2);
	assert_true((double)sz.bytes_total <= 0.9 * GiB);

	/* an explicit size that does not fit says how much it needs */
	assert_int_equal(gb_stress_size(1 * GiB, 0.5, 8192, ph, np, 0, &sz, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "8192 x 8192 GEMMs need"));
	assert_non_null(strstr(err, "50% of free memory is 512 MiB"));
	assert_int_equal(gb_stress_size(0, 0.9, 0, ph, np, 0, &sz, err, sizeof(err)), -1);

	/* fp64 slots are 8 bytes */
	np = gb_stress_phases(GB_SP_MIXED, false, 4096, 4096, 4096, ph, 4);
	assert_int_equal(gb_stress_size(16 * GiB, 0.9, 4096, ph, np, 0, &sz, err, sizeof(err)), 0);
	assert_int_equal(sz.bytes_slot, 4096ULL * 4096 * 8);
	assert_int_equal(sz.bytes_inputs, 4096ULL * 4096 * (2 * 8 + 2 * 2));
}

static void test_batch_gemms(void **state)
{
	(void)state;
	assert_int_equal(gb_stress_batch_gemms(0.002, 0.5, 1000), 250);
	assert_int_equal(gb_stress_batch_gemms(0.002, 0.5, 100), 100);
	assert_int_equal(gb_stress_batch_gemms(2.0, 0.5, 100), 1);
	assert_int_equal(gb_stress_batch_gemms(NAN, 0.5, 100), 1);
	assert_int_equal(gb_stress_batch_gemms(0.1, 0.5, 0), 1);
}

/*
 * --precision mixed on an H100 at 8192^3: fp64 GEMMs take about 18 ms, fp16
 * ones 1.6 ms, and the phases alternate batch by batch. Each phase's batch
 * must still last about the target (a size shared by the phases made the
 * fp64 batches 2.8 s and the fp16 ones 22 ms: "mixed" was all fp64).
 */
static void test_batcher_per_phase(void **state)
{
	static const double t_gemm[4] = { 0.018, 0.0016, 0.018, 0.0016 };
	struct gb_stress_batcher b;
	double busy[4] = { 0 };

	(void)state;
	gb_stress_batcher_init(&b, 10000, 0.25);
	/* a phase that has not run starts with one GEMM */
	assert_int_equal(gb_stress_batcher_next(&b, 1), 1);
	for (uint64_t batch = 0; batch < 64; batch++) {
		size_t ph = gb_stress_batch_phase(2, 2, batch);
		uint64_t g = gb_stress_batcher_next(&b, ph);
		double s = (double)g * t_gemm[ph];

		/* after its first batch every phase lasts about the target */
		if (batch >= 8)
			assert_true(fabs(s - 0.25) < 0.02);
		busy[ph] += s;
		gb_stress_batcher_done(&b, ph, g, s);
	}
	/* so device time is shared out evenly: fp64 3/8 of it, not nearly all */
	assert_true(busy[0] / (busy[0] + busy[1] + busy[2] + busy[3]) < 0.45);
	assert_int_equal(gb_stress_batcher_next(&b, 0), 14);
	assert_int_equal(gb_stress_batcher_next(&b, 1), 156);
	/* capped by the working slots; nonsense phases and empty batches change nothing */
	gb_stress_batcher_init(&b, 100, 0.25);
	gb_stress_batcher_done(&b, 1, 10, 0.001);
	assert_int_equal(gb_stress_batcher_next(&b, 1), 100);
	gb_stress_batcher_done(&b, 1, 0, 1.0);
	gb_stress_batcher_done(&b, GB_STRESS_MAX_PHASES, 1, 1.0);
	assert_int_equal(gb_stress_batcher_next(&b, 1), 100);
	assert_int_equal(gb_stress_batcher_next(&b, GB_STRESS_MAX_PHASES), 1);
}

/* ======================================================================= */
/* the pinned algorithm                                                    */

/* a scripted trial: diffs per candidate, -1 = the trial fails */
struct trials {
	int64_t diffs[GB_STRESS_MAX_ALGOS + 2];
	int calls;
};

static int fake_trial(void *user, int c, uint64_t *diffs)
{
	struct trials *t = user;

	t->calls++;
	if (t->diffs[c] < 0)
		return -1;
	*diffs = (uint64_t)t->diffs[c];
	return 0;
}

static void test_pick_algo(void **state)
{
	struct gb_stress_algo_pick p;
	struct trials t = { { 0 }, 0 };
	char note[256];

	(void)state;
	/* the heuristic's first repeats: pinned, nothing to say */
	assert_int_equal(gb_stress_pick_algo(8, fake_trial, &t, &p), 0);
	assert_int_equal(p.chosen, 0);
	assert_int_equal(t.calls, 1);
	assert_string_equal(gb_stress_algo_pick_note(&p, "fp16", note, sizeof(note)), "");

	/* the first two differ run to run: the third is pinned, and the report says so */
	t = (struct trials){ { 5120, 12, 0, 0 }, 0 };
	assert_int_equal(gb_stress_pick_algo(8, fake_trial, &t, &p), 0);
	assert_int_equal(p.chosen, 2);
	assert_int_equal(p.n_tried, 3);
	assert_int_equal(t.calls, 3);
	gb_stress_algo_pick_note(&p, "fp16", note, sizeof(note));
	assert_string_equal(note, "fp16: algorithms 1-2 of 8 differed run to run (1: 5120, 2: 12 "
				  "elements), pinned algorithm 3");
	t = (struct trials){ { 7, 0 }, 0 };
	assert_int_equal(gb_stress_pick_algo(3, fake_trial, &t, &p), 0);
	gb_stress_algo_pick_note(&p, "bf16", note, sizeof(note));
	assert_string_equal(note, "bf16: algorithm 1 of 3 differed run to run (1: 7 elements), "
				  "pinned algorithm 2");

	/* none repeats: none pinned, never more than GB_STRESS_MAX_ALGOS tried */
	for (int c = 0; c < GB_STRESS_MAX_ALGOS + 2; c++)
		t.diffs[c] = 1 + c;
	t.calls = 0;
	assert_int_equal(gb_stress_pick_algo(GB_STRESS_MAX_ALGOS + 2, fake_trial, &t, &p), 0);
	assert_int_equal(p.chosen, -1);
	assert_int_equal(p.n_tried, GB_STRESS_MAX_ALGOS);
	assert_int_equal(t.calls, GB_STRESS_MAX_ALGOS);
	gb_stress_algo_pick_note(&p, "tf32", note, sizeof(note));
	assert_non_null(strstr(note, "tf32: none of 8 algorithms repeated bit for bit (1: 1, 2: 2"));
	assert_non_null(strstr(note, "8: 8 elements differed), not compared"));
	/* a truncated note stays terminated */
	gb_stress_algo_pick_note(&p, "tf32", note, 10);
	assert_int_equal(strlen(note), 9);

	/* a failing trial is an error, not "not reproducible" */
	t = (struct trials){ { 3, -1, 0 }, 0 };
	assert_int_equal(gb_stress_pick_algo(8, fake_trial, &t, &p), -1);
}

/* ======================================================================= */
/* profiles                                                                */

static void test_profiles(void **state)
{
	struct gb_stress_schedule s = { GB_PROFILE_SUSTAINED, 100, 10, 0.5 };

	(void)state;
	assert_true(gb_stress_load_level(&s, 0) == 1.0);
	assert_true(gb_stress_load_level(&s, 99) == 1.0);
	assert_true(gb_stress_idle_after(&s, 50, 1.0) == 0.0);

	s.profile = GB_PROFILE_PULSE;
	assert_true(gb_stress_load_level(&s, 0) == 1.0);
	assert_true(gb_stress_load_level(&s, 4.9) == 1.0);
	assert_true(gb_stress_load_level(&s, 5.0) == 0.0);
	assert_true(gb_stress_load_level(&s, 12) == 1.0);
	assert_true(gb_stress_idle_after(&s, 2, 0.5) == 0.0);
	/* in the off half: idle until the next period */
	assert_true(fabs(gb_stress_idle_after(&s, 7, 0.5) - 3.0) < 1e-9);
	s.duty = 0.2;
	assert_true(gb_stress_load_level(&s, 2.5) == 0.0);

	s.profile = GB_PROFILE_RAMP;
	assert_true(gb_stress_load_level(&s, 0) == 0.25);
	assert_true(gb_stress_load_level(&s, 30) == 0.5);
	assert_true(gb_stress_load_level(&s, 60) == 0.75);
	assert_true(gb_stress_load_level(&s, 99) == 1.0);
	assert_true(gb_stress_load_level(&s, 150) == 1.0);
	/* at 25% load a 1 s batch is followed by 3 s of idle */
	assert_true(fabs(gb_stress_idle_after(&s, 10, 1.0) - 3.0) < 1e-9);
	/* ... but never into the next step */
	assert_true(fabs(gb_stress_idle_after(&s, 24, 1.0) - 1.0) < 1e-9);
	assert_true(gb_stress_idle_after(&s, 80, 1.0) == 0.0);
	assert_string_equal(gb_stress_profile_names[GB_PROFILE_PULSE], "pulse");
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
/* XIDs                                                                    */

static void test_xid_set(void **state)
{
	static const unsigned hw[] = { 48,  56,  57,  58,  62,  63,  64,  68,  74,  77,  79, 86,
				       88,  89,  92,  94,  95,  105, 110, 119, 120, 122, 125 };
	static const unsigned app[] = { 0, 13, 31, 32, 43, 45, 47, 49, 55, 59, 61, 65,
					66, 67, 78, 87, 90, 91, 93, 106, 109, 121, 126, 1000 };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(hw); i++)
		assert_true(gb_stress_xid_is_hardware(hw[i]));
	for (size_t i = 0; i < ARRAY_LEN(app); i++)
		assert_false(gb_stress_xid_is_hardware(app[i]));
}

/* ======================================================================= */
/* forensics                                                               */

static void test_flipped_bits(void **state)
{
	int pos[8];

	(void)state;
	assert_int_equal(gb_stress_flipped_bits(0, pos, 8), 0);
	assert_int_equal(gb_stress_flipped_bits(0x8000000000000001ULL, pos, 8), 2);
	assert_int_equal(pos[0], 0);
	assert_int_equal(pos[1], 63);
	/* more bits than room: counted, not written */
	assert_int_equal(gb_stress_flipped_bits(0xFF, pos, 2), 8);
	assert_string_equal(gb_stress_bit_field(GB_DT_F32, 31), "sign");
	assert_string_equal(gb_stress_bit_field(GB_DT_F32, 30), "exponent");
	assert_string_equal(gb_stress_bit_field(GB_DT_F32, 23), "exponent");
	assert_string_equal(gb_stress_bit_field(GB_DT_F32, 22), "mantissa");
	assert_string_equal(gb_stress_bit_field(GB_DT_F64, 52), "exponent");
	assert_string_equal(gb_stress_bit_field(GB_DT_F64, 51), "mantissa");
	assert_string_equal(gb_stress_bit_field(GB_DT_F64, 63), "sign");
	assert_string_equal(gb_stress_bit_field(GB_DT_I32, 5), "bit");
	assert_string_equal(gb_stress_bit_field(GB_DT_F32, 40), "none");
}

static void forensic_element(struct gb_stress_forensic *f)
{
	gb_stress_forensic_init(f);
	f->device = 1;
	f->t_s = 12.5;
	f->layer = "repeat";
	f->batch = 7;
	f->slot = 3;
	f->row = 10;
	f->col = 20;
	f->type = GB_DT_F32;
	f->have_bits = true;
	f->expected_bits = 0x41f00000; /* 30 */
	f->got_bits = 0x49f00000;      /* bit 27 flipped */
	f->expected = 30;
	f->got = 1966080;
}

static void test_forensic_format(void **state)
{
	struct gb_stress_forensic f;
	char line[512];

	(void)state;
	forensic_element(&f);
	gb_stress_forensic_format(&f, line, sizeof(line));
	assert_string_equal(line, "gpu 1 at 12.5 s, repeat, batch 7 slot 3 (row 10, col 20): "
				  "expected 0x41f00000 (30) got 0x49f00000 (1966080), "
				  "flipped bit 27 (exponent)");
	/* with telemetry and two flipped bits, highest first */
	f.got_bits = 0x49f00001;
	f.have_tel = true;
	f.tel.temp_c = 71;
	f.tel.power_w = 650;
	f.tel.sm_mhz = 1755;
	f.tel.have_reasons = true;
	f.tel.clock_event_reasons = GB_CLK_SW_POWER_CAP;
	f.injected = true;
	gb_stress_forensic_format(&f, line, sizeof(line));
	assert_non_null(strstr(line, "repeat (injected on purpose)"));
	assert_non_null(strstr(line, "flipped bits 27 (exponent), 0 (mantissa)"));
	assert_non_null(strstr(line, "; 71 C, 650 W, 1755 MHz, sw_power_cap"));

	/* an ABFT checksum without an element */
	gb_stress_forensic_init(&f);
	f.device = 0;
	f.t_s = 3;
	f.layer = "abft";
	f.batch = 2;
	f.slot = 5;
	f.col = 17;
	f.sum_observed = 130.5;
	f.sum_expected = 120.25;
	f.sum_bound = 0.9;
	gb_stress_forensic_format(&f, line, sizeof(line));
	assert_string_equal(line, "gpu 0 at 3.0 s, abft, batch 2 slot 5 column 17 checksum: "
				  "sum 130.5 expected 120.25 (bound 0.9)");

	/* a memtest word */
	gb_stress_forensic_init(&f);
	f.device = 0;
	f.t_s = 1;
	f.layer = "memtest";
	f.offset = 0x1000;
	f.type = GB_DT_I32;
	f.have_bits = true;
	f.expected_bits = 0x55555555;
	f.got_bits = 0x55555554;
	gb_stress_forensic_format(&f, line, sizeof(line));
	assert_string_equal(line, "gpu 0 at 1.0 s, memtest, offset 0x1000: expected 0x55555555 got "
				  "0x55555554, flipped bit 0 (bit)");
	/* a tiny buffer is still terminated */
	gb_stress_forensic_format(&f, line, 8);
	assert_int_equal(strlen(line), 7);
}

static void test_forensic_json(void **state)
{
	struct gb_stress_forensic f;
	cJSON *o, *bits;

	(void)state;
	forensic_element(&f);
	o = gb_stress_forensic_json(&f);
	assert_non_null(o);
	assert_int_equal(cJSON_GetObjectItem(o, "device")->valueint, 1);
	assert_string_equal(cJSON_GetObjectItem(o, "layer")->valuestring, "repeat");
	assert_int_equal(cJSON_GetObjectItem(o, "row")->valueint, 10);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "offset")));
	assert_string_equal(cJSON_GetObjectItem(o, "expected_bits")->valuestring, "0x41f00000");
	assert_string_equal(cJSON_GetObjectItem(o, "got_bits")->valuestring, "0x49f00000");
	bits = cJSON_GetObjectItem(o, "flipped_bits");
	assert_int_equal(cJSON_GetArraySize(bits), 1);
	assert_int_equal(cJSON_GetArrayItem(bits, 0)->valueint, 27);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "flipped_fields"), 0)->valuestring,
			    "exponent");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "sum_observed")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "telemetry")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "injected")));
	assert_non_null(strstr(cJSON_GetObjectItem(o, "message")->valuestring, "flipped bit 27"));
	cJSON_Delete(o);
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

static void corrupt_example(struct gb_stress_corrupt *e, uint32_t row)
{
	gb_stress_corrupt_init(e);
	e->batch = 4;
	e->t_s = 1.5;
	e->row = row;
	e->col = 128;
	e->type = GB_DT_F32;
	e->read = true;
	e->got_bits = 0x7f707d00;
	e->got = gb_stress_bits_value(GB_DT_F32, e->got_bits);
	e->expected = 0.9394073486328125;
	gb_stress_explain(GB_DT_F32, e->got_bits, e->expected, 0.01, &e->diff);
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

/* ======================================================================= */
/* thresholds and option values                                            */

static void test_thresholds(void **state)
{
	struct gb_stress_thresholds th;
	char err[256];

	(void)state;
	gb_stress_thresholds_default(&th);
	assert_true(th.temp_limit_c == 85);
	assert_true(th.tflops_drop_max == 0.10);
	assert_true(th.peer_slow_max == 0.10);
	assert_int_equal(th.throttle_mask, GB_CLK_HW_SLOWDOWN | GB_CLK_SW_THERMAL |
						   GB_CLK_HW_THERMAL | GB_CLK_HW_POWER_BRAKE);
	assert_int_equal(gb_stress_thresholds_parse(
				 "{\"temp_limit_c\": 83, \"ecc_sbe_warn\": 10, "
				 "\"throttle_mask\": [\"hw_slowdown\", \"hw_thermal\"]}",
				 &th, err, sizeof(err)),
			 0);
	assert_true(th.temp_limit_c == 83);
	assert_int_equal(th.ecc_sbe_warn, 10);
	assert_int_equal(th.throttle_mask, GB_CLK_HW_SLOWDOWN | GB_CLK_HW_THERMAL);
	assert_int_equal(gb_stress_thresholds_parse("{\"temp_limt_c\": 83}", &th, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "unknown threshold 'temp_limt_c'");
	assert_int_equal(gb_stress_thresholds_parse("{\"temp_limit_c\": \"hot\"}", &th, err,
						    sizeof(err)),
			 -1);
	assert_string_equal(err, "'temp_limit_c' must be a number");
	assert_int_equal(gb_stress_thresholds_parse("{\"ecc_dbe_max\": 1.5}", &th, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "a whole number"));
	assert_int_equal(gb_stress_thresholds_parse("{\"throttle_mask\": [\"hot\"]}", &th, err,
						    sizeof(err)),
			 -1);
	assert_string_equal(err, "unknown clock-event reason 'hot' in 'throttle_mask'");
	assert_int_equal(gb_stress_thresholds_parse("[1]", &th, err, sizeof(err)), -1);
	assert_int_equal(gb_stress_thresholds_parse("not json", &th, err, sizeof(err)), -1);
	assert_int_equal(gb_stress_thresholds_parse("{\"throttle_mask\": 8}", &th, err, sizeof(err)),
			 0);
	assert_int_equal(th.throttle_mask, 8);
}

static void test_duration_percent(void **state)
{
	double v;

	(void)state;
	assert_int_equal(gb_parse_duration("10m", &v), 0);
	assert_true(v == 600);
	assert_int_equal(gb_parse_duration("1s", &v), 0);
	assert_true(v == 1);
	assert_int_equal(gb_parse_duration("500ms", &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(gb_parse_duration("1.5h", &v), 0);
	assert_true(v == 5400);
	assert_int_equal(gb_parse_duration("10", &v), -1); /* a unit is required */
	assert_int_equal(gb_parse_duration("ten", &v), -1);
	assert_int_equal(gb_parse_percent("90%", &v), 0);
	assert_true(fabs(v - 0.9) < 1e-12);
	assert_int_equal(gb_parse_percent("150%", &v), 0); /* the range is the option's */
	assert_true(fabs(v - 1.5) < 1e-12);
	assert_int_equal(gb_parse_percent("90", &v), -1);
}

/* ======================================================================= */
/* verdict rules                                                           */

/* A GPU that ran 100 s cleanly with full telemetry at 1 TFLOP/s per second. */
static void obs_clean(struct gb_stress_obs *o)
{
	struct gb_telemetry_sample s;

	gb_stress_obs_init(o, 0);
	o->ran = true;
	o->abft_on = o->exact_on = o->repeat_on = o->cross_on = true;
	o->gemms = 5000;
	o->batches = 200;
	o->cross = GB_CROSS_AGREE;
	o->nvml = true;
	o->xid_watch = 1;
	o->have_health = true;
	memset(&o->before, 0, sizeof(o->before));
	memset(&o->after, 0, sizeof(o->after));
	o->before.nvlink_crc_errors = o->after.nvlink_crc_errors = -1;
	o->before.nvlink_replay_errors = o->after.nvlink_replay_errors = -1;
	o->before.nvlink_recovery_errors = o->after.nvlink_recovery_errors = -1;
	memset(&s, 0, sizeof(s));
	s.temp_c = 70;
	s.power_w = 600;
	s.sm_mhz = 1755;
	s.mem_mhz = 2619;
	s.util_pct = 100;
	s.mem_used_bytes = 7e10;
	s.have_reasons = true;
	for (int t = 1; t <= 100; t++) {
		gb_stress_obs_add_sample(o, &s);
		gb_stress_obs_add_throughput(o, 0, t, 700.0 + (t % 3));
	}
}

static const struct gb_stress_check *find(const struct gb_stress_check *c, size_t n,
					  const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return &c[i];
	fail_msg("no check '%s'", name);
	return NULL;
}

static enum gb_status status_of(const struct gb_stress_obs *o, const char *name, double peer)
{
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	size_t n;

	gb_stress_thresholds_default(&th);
	{
		const double best[GB_STRESS_MAX_SERIES] = { peer, peer };

		n = gb_stress_judge(o, &th, isnan(peer) ? NULL : best, c, ARRAY_LEN(c));
	}
	return find(c, n, name)->status;
}

static void test_verdict_clean(void **state)
{
	static const char *const passed[] = { "could_run", "cuda_error", "abft", "exact", "repeat",
					      "cross_gpu", "nan", "temperature", "throttle",
					      "power_cap", "ecc_dbe", "ecc_sbe", "row_remap",
					      "retired_pages", "pcie_replays", "xid",
					      "throughput_drop", "telemetry" };
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct gb_stress_obs o;
	size_t n;

	(void)state;
	obs_clean(&o);
	gb_stress_thresholds_default(&th);
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	for (size_t i = 0; i < ARRAY_LEN(passed); i++) {
		const struct gb_stress_check *k = find(c, n, passed[i]);

		if (k->status != GB_STATUS_PASSED)
			fail_msg("%s: %s", k->name, k->message);
	}
	/* no NVLink counters, no peer: skipped, never passed */
	assert_int_equal(find(c, n, "nvlink")->status, GB_STATUS_SKIPPED);
	assert_int_equal(find(c, n, "peer_throughput")->status, GB_STATUS_SKIPPED);
	assert_true(fabs(gb_stress_settled(&o, 0) - 701) < 1.01);
	/* a bounded output: fewer slots than rules is no overflow */
	assert_int_equal(gb_stress_judge(&o, &th, NULL, c, 3), 3);
	gb_stress_obs_release(&o);
}

static void test_verdict_could_not_run(void **state)
{
	struct gb_stress_obs o;

	(void)state;
	gb_stress_obs_init(&o, 2);
	snprintf(o.error, sizeof(o.error), "hung: no progress for 31 s");
	assert_int_equal(status_of(&o, "could_run", NAN), GB_STATUS_ERROR);
	assert_int_equal(status_of(&o, "abft", NAN), GB_STATUS_SKIPPED);
	/* no verified result without a reason is still not a pass */
	o.error[0] = '\0';
	assert_int_equal(status_of(&o, "could_run", NAN), GB_STATUS_ERROR);
	assert_int_equal(status_of(&o, "nan", NAN), GB_STATUS_SKIPPED);
	/* a sticky CUDA error is a finding */
	obs_clean(&o);
	snprintf(o.cuda_failure, sizeof(o.cuda_failure), "cudaErrorIllegalAddress after 12 s");
	assert_int_equal(status_of(&o, "cuda_error", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);
}

static void test_verdict_layers(void **state)
{
	struct gb_stress_obs o;

	(void)state;
	obs_clean(&o);
	o.abft_mismatches = 2;
	assert_int_equal(status_of(&o, "abft", NAN), GB_STATUS_FAILED);
	o.exact_mismatches = 1;
	assert_int_equal(status_of(&o, "exact", NAN), GB_STATUS_FAILED);
	o.repeat_mismatches = 1;
	assert_int_equal(status_of(&o, "repeat", NAN), GB_STATUS_FAILED);
	o.nan_count = 3;
	assert_int_equal(status_of(&o, "nan", NAN), GB_STATUS_FAILED);
	o.abft_on = false;
	assert_int_equal(status_of(&o, "abft", NAN), GB_STATUS_SKIPPED);
	o.cross = GB_CROSS_OUTLIER;
	assert_int_equal(status_of(&o, "cross_gpu", NAN), GB_STATUS_FAILED);
	/* no majority: not this GPU's failure (gb_stress_cross_tie fails the run) */
	o.cross = GB_CROSS_UNDECIDED;
	assert_int_equal(status_of(&o, "cross_gpu", NAN), GB_STATUS_WARNING);
	o.cross = GB_CROSS_NONE;
	assert_int_equal(status_of(&o, "cross_gpu", NAN), GB_STATUS_SKIPPED);
	o.cross_on = false;
	assert_int_equal(status_of(&o, "cross_gpu", NAN), GB_STATUS_SKIPPED);
	/* memtest mode judges memory errors instead */
	o.memtest = true;
	assert_int_equal(status_of(&o, "memtest", NAN), GB_STATUS_PASSED);
	o.mem_errors = 1;
	assert_int_equal(status_of(&o, "memtest", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);
}

/*
 * A GPU that produced mismatches and then hung: the mismatches are findings
 * (FAILED, exit 1), the hang is could-not-run (ERROR), and FAILED decides
 * the GPU's verdict. The layers that stayed clean are not passes: the load
 * did not finish.
 */
static const char *message_of(const struct gb_stress_obs *o, const char *name,
			      struct gb_stress_check *c)
{
	struct gb_stress_thresholds th;
	size_t n;

	gb_stress_thresholds_default(&th);
	n = gb_stress_judge(o, &th, NULL, c, GB_STRESS_MAX_CHECKS);
	return find(c, n, name)->message;
}

/* A failing abft or exact check names the first element located and its flipped bit. */
static void test_verdict_names_element(void **state)
{
	struct gb_stress_obs o;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct gb_stress_corrupt e;

	(void)state;
	obs_clean(&o);
	o.abft_mismatches = 4;
	o.exact_mismatches = 2;
	/* nothing located (several rows and columns fail): the count alone */
	assert_string_equal(message_of(&o, "abft", c),
			    "4 row or column checksums outside the rounding-error bound");
	corrupt_example(&e, 128);
	gb_stress_corrupt_add(&o.abft_first, &e);
	assert_string_equal(message_of(&o, "abft", c),
			    "4 row or column checksums outside the rounding-error bound; first at "
			    "row 128, column 128 (batch 4): bit 30 (exponent) flipped, expected "
			    "0.939407 got 3.19664e+38; 1 element located");
	assert_string_equal(message_of(&o, "exact", c),
			    "2 checksums of exact integer products differ");
	gb_stress_corrupt_add(&o.exact_first, &e);
	assert_non_null(strstr(message_of(&o, "exact", c), "differ; first at row 128, column 128"));
	assert_int_equal(find(c, GB_STRESS_MAX_CHECKS, "exact")->status, GB_STATUS_FAILED);
	gb_stress_obs_release(&o);
}

/*
 * Two GPUs that differ with no majority: neither is failed as the culprit
 * (a warning each); the run's own check fails and says which GPUs differ.
 */
static void test_cross_tie(void **state)
{
	struct gb_stress_obs o[3];
	struct gb_stress_check c;

	(void)state;
	for (int i = 0; i < 3; i++) {
		obs_clean(&o[i]);
		o[i].device = i;
	}
	assert_int_equal(gb_stress_cross_tie(o, 3, &c), 0);
	o[0].cross = o[1].cross = GB_CROSS_UNDECIDED;
	assert_int_equal(status_of(&o[0], "cross_gpu", NAN), GB_STATUS_WARNING);
	assert_int_equal(status_of(&o[1], "cross_gpu", NAN), GB_STATUS_WARNING);
	assert_int_equal(gb_stress_cross_tie(o, 2, &c), 1);
	assert_int_equal(c.status, GB_STATUS_FAILED);
	assert_string_equal(c.name, "cross_gpu");
	assert_string_equal(c.message,
			    "GPUs 0 and 1 computed different results and no majority names the "
			    "outlier");
	/* a GPU that failed its own checks is mentioned, not blamed for the tie */
	o[1].abft_mismatches = 3;
	assert_int_equal(gb_stress_cross_tie(o, 2, &c), 1);
	assert_string_equal(c.message,
			    "GPUs 0 and 1 computed different results and no majority names the "
			    "outlier; GPU 1 failed its own checks");
	/* a three-way split */
	o[2].cross = GB_CROSS_UNDECIDED;
	o[0].exact_mismatches = 1;
	assert_int_equal(gb_stress_cross_tie(o, 3, &c), 1);
	assert_string_equal(c.message,
			    "GPUs 0, 1 and 2 computed different results and no majority names the "
			    "outlier; GPUs 0 and 1 failed their own checks");
	/* an outlier is its own GPU's failure; --no-cross turns the rule off */
	o[0].cross = o[1].cross = o[2].cross = GB_CROSS_AGREE;
	o[2].cross = GB_CROSS_OUTLIER;
	assert_int_equal(gb_stress_cross_tie(o, 3, &c), 0);
	o[2].cross = GB_CROSS_UNDECIDED;
	o[2].cross_on = false;
	assert_int_equal(gb_stress_cross_tie(o, 3, &c), 0);
	for (int i = 0; i < 3; i++)
		gb_stress_obs_release(&o[i]);
}

static void test_verdict_hung_after_mismatches(void **state)
{
	static const char *const unfinished[] = { "exact", "nan", "throughput_drop" };
	const char *argv[] = { "gpubench", "stress" };
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct gb_stress_obs o;
	struct gb_run run;
	struct gb_bench_result *b;
	size_t n;

	(void)state;
	gb_stress_thresholds_default(&th);
	obs_clean(&o);
	snprintf(o.error, sizeof(o.error), "hung: no progress for 31 s (limit 30 s)");
	o.abft_mismatches = 3;
	o.repeat_mismatches = 2;
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "could_run")->status, GB_STATUS_ERROR);
	assert_int_equal(find(c, n, "abft")->status, GB_STATUS_FAILED);
	assert_true(find(c, n, "abft")->observed == 3);
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_FAILED);
	for (size_t i = 0; i < ARRAY_LEN(unfinished); i++) {
		const struct gb_stress_check *k = find(c, n, unfinished[i]);

		if (k->status != GB_STATUS_SKIPPED)
			fail_msg("%s: %s", k->name, k->message);
	}
	assert_non_null(strstr(find(c, n, "exact")->message, "200 batches verified"));
	/* the hang is not "no CUDA error" */
	for (size_t i = 0; i < n; i++)
		assert_false(!strcmp(c[i].name, "cuda_error") && c[i].status == GB_STATUS_PASSED);
	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_stress_add_checks(b, 0, c, n);
	assert_int_equal(b->status, GB_STATUS_FAILED);
	gb_run_release(&run);

	/* hung while making the references (no batch yet): a checksum mismatch still fails */
	o.ran = false;
	o.batches = 0;
	o.repeat_mismatches = 0;
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "abft")->status, GB_STATUS_FAILED);
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_SKIPPED);

	/* hung with no mismatch: nothing passes, the verdict is could-not-run */
	o.ran = true;
	o.batches = 200;
	o.abft_mismatches = 0;
	o.nan_count = 0;
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "abft")->status, GB_STATUS_SKIPPED);
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_SKIPPED);
	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_stress_add_checks(b, 0, c, n);
	assert_int_equal(b->status, GB_STATUS_ERROR);
	gb_run_release(&run);
	gb_stress_obs_release(&o);
}

static void add_reason_samples(struct gb_stress_obs *o, uint64_t reasons, int n)
{
	struct gb_telemetry_sample s;

	memset(&s, 0, sizeof(s));
	s.temp_c = s.power_w = s.sm_mhz = s.mem_mhz = s.util_pct = s.mem_used_bytes = NAN;
	s.have_reasons = true;
	s.clock_event_reasons = reasons;
	for (int i = 0; i < n; i++)
		gb_stress_obs_add_sample(o, &s);
}

static void test_verdict_throttle(void **state)
{
	struct gb_stress_obs o;

	(void)state;
	/* 1 in 101 samples: a single sample is not a trend */
	obs_clean(&o);
	add_reason_samples(&o, GB_CLK_HW_SLOWDOWN, 1);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_PASSED);
	/* 3 in 103 (2.9%) with hw slowdown combined with the power cap: a bitmask, not equality */
	add_reason_samples(&o, GB_CLK_HW_SLOWDOWN | GB_CLK_SW_POWER_CAP, 2);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);

	/* each of DCGM's four counts */
	for (int b = 0; b < 4; b++) {
		static const uint64_t bits[] = { GB_CLK_HW_SLOWDOWN, GB_CLK_SW_THERMAL,
						 GB_CLK_HW_THERMAL, GB_CLK_HW_POWER_BRAKE };

		obs_clean(&o);
		add_reason_samples(&o, bits[b], 5);
		assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_FAILED);
		gb_stress_obs_release(&o);
	}

	/* the power cap warns and does not fail */
	obs_clean(&o);
	add_reason_samples(&o, GB_CLK_SW_POWER_CAP, 50);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_PASSED);
	assert_int_equal(status_of(&o, "power_cap", NAN), GB_STATUS_WARNING);
	gb_stress_obs_release(&o);

	/* no reasons read: skipped */
	gb_stress_obs_init(&o, 0);
	o.ran = true;
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_SKIPPED);
	assert_int_equal(status_of(&o, "temperature", NAN), GB_STATUS_SKIPPED);
	gb_stress_obs_release(&o);
}

/* delta ns / window ns: clamped, NaN for a failed read, an empty window or a reset counter */
static void test_time_share(void **state)
{
	(void)state;
	assert_true(gb_stress_time_share(true, 1000, true, 1250, 1000.0) == 0.25);
	assert_true(gb_stress_time_share(true, 5, true, 5, 1e9) == 0.0);
	/* a counter a little ahead of the clock: clamped, not 110 % */
	assert_true(gb_stress_time_share(true, 0, true, 1100, 1000.0) == 1.0);
	/* near the top of the 64-bit range the difference is still exact */
	assert_true(gb_stress_time_share(true, UINT64_MAX - 100, true, UINT64_MAX, 400.0) == 0.25);
	/* either read failed */
	assert_true(isnan(gb_stress_time_share(false, 0, true, 10, 100.0)));
	assert_true(isnan(gb_stress_time_share(true, 0, false, 10, 100.0)));
	/* went down: the driver was reloaded and the counter restarted, the delta is unknown */
	assert_true(isnan(gb_stress_time_share(true, 500, true, 100, 1000.0)));
	/* no window */
	assert_true(isnan(gb_stress_time_share(true, 0, true, 0, 0.0)));
	assert_true(isnan(gb_stress_time_share(true, 0, true, 0, -1.0)));
	assert_true(isnan(gb_stress_time_share(true, 0, true, 0, NAN)));
	assert_true(isnan(gb_stress_time_share(true, 0, true, 0, INFINITY)));
}

static void set_viol(struct gb_stress_viol *v, enum gb_nvml_viol k, uint64_t a, uint64_t b,
		     double window_s)
{
	v->start.ok[k] = v->end.ok[k] = true;
	v->start.ns[k] = a;
	v->end.ns[k] = b;
	v->start_s = 10.0;
	v->end_s = 10.0 + window_s;
}

static void test_viol_share(void **state)
{
	struct gb_stress_viol v;

	(void)state;
	gb_stress_viol_init(&v);
	assert_true(isnan(gb_stress_viol_share(&v, GB_VIOL_POWER)));
	set_viol(&v, GB_VIOL_THERMAL, 1000000000ULL, 3000000000ULL, 40.0);
	assert_true(fabs(gb_stress_viol_share(&v, GB_VIOL_THERMAL) - 0.05) < 1e-12);
	/* one counter read does not make the other known */
	assert_true(isnan(gb_stress_viol_share(&v, GB_VIOL_POWER)));
	assert_true(isnan(gb_stress_viol_share(&v, GB_VIOL_KINDS)));
	/* the end was never read (a GPU given up on) */
	v.end_s = NAN;
	assert_true(isnan(gb_stress_viol_share(&v, GB_VIOL_THERMAL)));
}

/* The exact counters in the verdict: preferred for the power cap, added for thermal. */
static void test_verdict_exact_shares(void **state)
{
	struct gb_stress_obs o;
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];

	(void)state;
	/* samples saw the cap half the time; the counter says 0.5 %: the counter wins */
	obs_clean(&o);
	add_reason_samples(&o, GB_CLK_SW_POWER_CAP, 50);
	set_viol(&o.viol, GB_VIOL_POWER, 0, 50000000ULL, 10.0);
	assert_int_equal(status_of(&o, "power_cap", NAN), GB_STATUS_PASSED);
	/* thermal slowdown 2 % of the time, between samples: fails without a sample count */
	set_viol(&o.viol, GB_VIOL_THERMAL, 0, 200000000ULL, 10.0);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_FAILED);
	/* ... unless sw_thermal is not in the mask the thresholds ask for */
	gb_stress_thresholds_default(&th);
	o.throttle_mask = GB_CLK_HW_SLOWDOWN;
	for (size_t i = 0, n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c)); i < n; i++)
		if (!strcmp(c[i].name, "throttle"))
			assert_int_equal(c[i].status, GB_STATUS_PASSED);
	o.throttle_mask = th.throttle_mask;
	/* below the limit, and the samples clean: passes */
	set_viol(&o.viol, GB_VIOL_THERMAL, 0, 50000000ULL, 10.0);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_PASSED);
	/* the samples still judge what the counters do not cover */
	add_reason_samples(&o, GB_CLK_HW_SLOWDOWN, 10);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);

	/* no samples with reasons, but the counters: the cap is judged, throttle fails only on
	 * an exact finding and is otherwise skipped (hw slowdown is unknown) */
	gb_stress_obs_init(&o, 0);
	o.ran = true;
	set_viol(&o.viol, GB_VIOL_POWER, 0, 5000000000ULL, 10.0);
	set_viol(&o.viol, GB_VIOL_THERMAL, 0, 0, 10.0);
	assert_int_equal(status_of(&o, "power_cap", NAN), GB_STATUS_WARNING);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_SKIPPED);
	set_viol(&o.viol, GB_VIOL_THERMAL, 0, 1000000000ULL, 10.0);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);
}

static void test_verdict_temperature(void **state)
{
	struct gb_stress_obs o;
	struct gb_telemetry_sample s;

	(void)state;
	obs_clean(&o);
	memset(&s, 0, sizeof(s));
	s.power_w = s.sm_mhz = s.mem_mhz = s.util_pct = s.mem_used_bytes = NAN;
	s.temp_c = 85;
	gb_stress_obs_add_sample(&o, &s);
	assert_int_equal(status_of(&o, "temperature", NAN), GB_STATUS_PASSED);
	s.temp_c = 86;
	gb_stress_obs_add_sample(&o, &s);
	assert_int_equal(status_of(&o, "temperature", NAN), GB_STATUS_FAILED);
	assert_true(o.temp_max == 86);
	gb_stress_obs_release(&o);
}

static void test_verdict_health(void **state)
{
	struct gb_stress_obs o;

	(void)state;
	obs_clean(&o);
	o.after.ecc_dbe_volatile = 1;
	assert_int_equal(status_of(&o, "ecc_dbe", NAN), GB_STATUS_FAILED);
	o.after.ecc_sbe_volatile = 4;
	assert_int_equal(status_of(&o, "ecc_sbe", NAN), GB_STATUS_WARNING);
	o.after.remap_pending = 1;
	assert_int_equal(status_of(&o, "row_remap", NAN), GB_STATUS_FAILED);
	o.after.remap_pending = 0;
	o.after.remap_failed = 1;
	assert_int_equal(status_of(&o, "row_remap", NAN), GB_STATUS_FAILED);
	o.after.remap_pending = o.after.remap_failed = -1;
	assert_int_equal(status_of(&o, "row_remap", NAN), GB_STATUS_SKIPPED);
	o.after.retired_pending = 1;
	assert_int_equal(status_of(&o, "retired_pages", NAN), GB_STATUS_FAILED);
	o.after.retired_pending = 0;
	o.after.retired_pages_dbe = 2;
	assert_int_equal(status_of(&o, "retired_pages", NAN), GB_STATUS_WARNING);
	o.after.pcie_replays = 81;
	assert_int_equal(status_of(&o, "pcie_replays", NAN), GB_STATUS_WARNING);
	o.after.pcie_replays = 80;
	assert_int_equal(status_of(&o, "pcie_replays", NAN), GB_STATUS_PASSED);
	o.before.nvlink_crc_errors = 0;
	o.after.nvlink_crc_errors = 101;
	assert_int_equal(status_of(&o, "nvlink", NAN), GB_STATUS_WARNING);
	o.after.nvlink_crc_errors = 100;
	assert_int_equal(status_of(&o, "nvlink", NAN), GB_STATUS_PASSED);
	o.before.nvlink_recovery_errors = 0;
	o.after.nvlink_recovery_errors = 1;
	assert_int_equal(status_of(&o, "nvlink", NAN), GB_STATUS_WARNING);
	/* unknown before or after: skipped */
	o.before.ecc_dbe_volatile = -1;
	assert_int_equal(status_of(&o, "ecc_dbe", NAN), GB_STATUS_SKIPPED);
	o.have_health = false;
	assert_int_equal(status_of(&o, "ecc_dbe", NAN), GB_STATUS_SKIPPED);
	gb_stress_obs_release(&o);
}

static void test_verdict_xid(void **state)
{
	struct gb_stress_obs o;

	(void)state;
	obs_clean(&o);
	gb_stress_obs_add_xid(&o, 31);
	assert_int_equal(status_of(&o, "xid", NAN), GB_STATUS_WARNING);
	gb_stress_obs_add_xid(&o, 79);
	assert_int_equal(status_of(&o, "xid", NAN), GB_STATUS_FAILED);
	o.xid_watch = 0;
	assert_int_equal(status_of(&o, "xid", NAN), GB_STATUS_SKIPPED);
	gb_stress_obs_release(&o);
}

static void test_verdict_throughput(void **state)
{
	struct gb_stress_obs o;
	double at;

	(void)state;
	/* settles at 700, then falls 20% in the last eighth */
	gb_stress_obs_init(&o, 0);
	o.ran = true;
	for (int t = 1; t <= 80; t++)
		gb_stress_obs_add_throughput(&o, 0, t, t > 70 ? 560 : 700);
	assert_true(gb_stress_settled(&o, 0) == 700);
	assert_true(fabs(gb_stress_drop(&o, 0, &at) - 0.2) < 1e-12);
	assert_true(at == 70);
	assert_int_equal(status_of(&o, "throughput_drop", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);

	/* a 5% dip passes; the warm-up (first quarter) does not count */
	gb_stress_obs_init(&o, 0);
	o.ran = true;
	for (int t = 1; t <= 80; t++)
		gb_stress_obs_add_throughput(&o, 0, t, t < 20 ? 300 : t > 60 ? 665 : 700);
	assert_int_equal(status_of(&o, "throughput_drop", NAN), GB_STATUS_PASSED);
	/* 12% slower than the best of the model fails; 8% passes */
	assert_int_equal(status_of(&o, "peer_throughput", 700 / 0.88), GB_STATUS_FAILED);
	assert_int_equal(status_of(&o, "peer_throughput", 700 / 0.92), GB_STATUS_PASSED);
	assert_int_equal(status_of(&o, "peer_throughput", 700), GB_STATUS_PASSED);
	gb_stress_obs_release(&o);

	/* too short to judge: skipped */
	gb_stress_obs_init(&o, 0);
	o.ran = true;
	for (int t = 1; t <= 6; t++)
		gb_stress_obs_add_throughput(&o, 0, t, 700);
	assert_true(isnan(gb_stress_settled(&o, 0)));
	assert_int_equal(status_of(&o, "throughput_drop", NAN), GB_STATUS_SKIPPED);
	assert_int_equal(status_of(&o, "peer_throughput", 700), GB_STATUS_SKIPPED);
	/* NaN and negative intervals are ignored */
	gb_stress_obs_add_throughput(&o, 0, 7, NAN);
	gb_stress_obs_add_throughput(&o, 0, 8, -1);
	assert_int_equal(o.tp[0].n, 6);
	gb_stress_obs_release(&o);
}

/*
 * --profile ramp: 25, 50, 75 and 100 % load in four steps. The lighter
 * steps idle between batches, so the GPU is cooler and boosts higher, and
 * device-time TFLOPS fall from step to step on a healthy GPU; only the
 * final, full-load step is judged. A fall inside it still fails.
 */
static void obs_ramp(struct gb_stress_obs *o, double last_late)
{
	const struct gb_stress_schedule s = { GB_PROFILE_RAMP, 400, 10, 0.5 };

	gb_stress_obs_init(o, 0);
	o->ran = true;
	o->steady_from_s = gb_stress_steady_from(&s);
	for (int t = 1; t <= 400; t++) {
		double v = t < 100   ? 820
			   : t < 200 ? 800
			   : t < 300 ? 750
			   : t > 385 ? last_late
				     : 700;

		gb_stress_obs_add_throughput(o, 0, t, v + (t % 3));
	}
}

static void test_verdict_ramp(void **state)
{
	struct gb_stress_schedule s = { GB_PROFILE_RAMP, 400, 10, 0.5 };
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	const struct gb_stress_check *k;
	struct gb_stress_obs o;
	double at;
	size_t n;

	(void)state;
	/* the final step of four starts at 3/4 of the duration; other profiles judge all of it */
	assert_true(gb_stress_steady_from(&s) == 300);
	assert_true(gb_stress_load_level(&s, gb_stress_steady_from(&s)) == 1.0);
	assert_true(gb_stress_load_level(&s, gb_stress_steady_from(&s) - 1e-9) < 1.0);
	s.profile = GB_PROFILE_PULSE;
	assert_true(gb_stress_steady_from(&s) == 0);
	s.profile = GB_PROFILE_SUSTAINED;
	assert_true(gb_stress_steady_from(&s) == 0);

	gb_stress_thresholds_default(&th);
	/* 800 at 50 % load and 700 at 100 %: 12.5 % apart, and healthy */
	obs_ramp(&o, 700);
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	k = find(c, n, "throughput_drop");
	if (k->status != GB_STATUS_PASSED)
		fail_msg("%s", k->message);
	/* settled is the final step's level, so peers compare full load with full load */
	assert_true(gb_stress_settled(&o, 0) >= 700 && gb_stress_settled(&o, 0) <= 702);
	gb_stress_obs_release(&o);

	/* a 20 % fall late in the final step fails, and says when */
	obs_ramp(&o, 560);
	assert_true(fabs(gb_stress_drop(&o, 0, &at) - 0.2) < 0.01);
	assert_true(at >= 375);
	assert_int_equal(status_of(&o, "throughput_drop", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);

	/* stopped before the final step: nothing to judge, skipped with the reason */
	gb_stress_obs_init(&o, 0);
	o.ran = true;
	o.steady_from_s = 300;
	for (int t = 1; t <= 250; t++)
		gb_stress_obs_add_throughput(&o, 0, t, 700);
	assert_true(isnan(gb_stress_settled(&o, 0)));
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	k = find(c, n, "throughput_drop");
	assert_int_equal(k->status, GB_STATUS_SKIPPED);
	assert_non_null(strstr(k->message, "final, full-load step"));
	gb_stress_obs_release(&o);
}

/* --inject-fault goes only where a layer looks, and options that leave none are refused. */
static void test_inject_rules(void **state)
{
	char err[256];

	(void)state;
	/* ABFT on: a random batch, never an exact one (ABFT would go untested) */
	assert_true(gb_stress_inject_ok(GB_STRESS_RANDOM, true, false));
	assert_false(gb_stress_inject_ok(GB_STRESS_EXACT, true, true));
	/* --no-abft: a random batch only when its phase is compared; exact batches always */
	assert_true(gb_stress_inject_ok(GB_STRESS_RANDOM, false, true));
	assert_false(gb_stress_inject_ok(GB_STRESS_RANDOM, false, false));
	assert_true(gb_stress_inject_ok(GB_STRESS_EXACT, false, false));

	assert_int_equal(
		gb_stress_inject_options(GB_SP_BF16, 0, true, true, true, err, sizeof(err)), 0);
	assert_int_equal(gb_stress_inject_options(GB_SP_FP8, 16384, true, false, false, err,
						  sizeof(err)),
			 0);
	assert_int_equal(gb_stress_inject_options(GB_SP_FP8, 16384, false, true, true, err,
						  sizeof(err)),
			 0);
	/* every layer off */
	assert_int_equal(gb_stress_inject_options(GB_SP_BF16, 0, false, false, false, err,
						  sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "--inject-fault needs a layer"));
	/* --no-abft --no-repeat leaves the exact phases: fp8 has none at 16384 */
	assert_int_equal(gb_stress_inject_options(GB_SP_FP8, 16384, false, true, false, err,
						  sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "fp8 at --size 16384 has none"));
	assert_null(strchr(err, '\n'));
	/* ... but has one at 8192 and at the automatic size, as every other precision at 16384 */
	assert_int_equal(gb_stress_inject_options(GB_SP_FP8, 8192, false, true, false, err,
						  sizeof(err)),
			 0);
	assert_int_equal(gb_stress_inject_options(GB_SP_FP8, 0, false, true, false, err,
						  sizeof(err)),
			 0);
	for (int p = 0; p < GB_SP_COUNT; p++) {
		enum gb_stress_prec sp = (enum gb_stress_prec)p;

		if (sp != GB_SP_FP8)
			assert_int_equal(gb_stress_inject_options(sp, 16384, false, true, false, err,
								  sizeof(err)),
					 0);
	}
}

static void test_verdict_telemetry(void **state)
{
	struct gb_stress_obs o;
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	size_t n;

	(void)state;
	obs_clean(&o);
	gb_stress_obs_missing(&o, "power_w");
	gb_stress_obs_missing(&o, "ecc_dbe");
	gb_stress_obs_missing(&o, "power_w");
	assert_string_equal(o.missing, "power_w,ecc_dbe");
	gb_stress_thresholds_default(&th);
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "telemetry")->status, GB_STATUS_WARNING);
	assert_non_null(strstr(find(c, n, "telemetry")->message, "power_w,ecc_dbe"));
	o.nvml = false;
	assert_int_equal(status_of(&o, "telemetry", NAN), GB_STATUS_WARNING);
	gb_stress_obs_release(&o);
}

/* The repeat rule with the self-check's outcome. */
static void test_verdict_repeat_pick(void **state)
{
	struct gb_stress_algo_pick fallback = { 8, 2, 1, { 40, 0 } };
	struct gb_stress_algo_pick none = { 2, 2, -1, { 3, 9 } };
	struct gb_stress_algo_pick first = { 8, 1, 0, { 0 } };
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct gb_stress_obs o;
	size_t n;

	(void)state;
	gb_stress_thresholds_default(&th);
	obs_clean(&o);
	gb_stress_obs_add_algo_pick(&o, &first, "fp64");
	gb_stress_obs_add_algo_pick(&o, &fallback, "fp16");
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	/* a fallback that repeats is still a pass, and says which */
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_PASSED);
	assert_non_null(strstr(find(c, n, "repeat")->message,
			       "no mismatch (fp16: algorithm 1 of 8 differed run to run"));
	assert_null(strstr(find(c, n, "repeat")->message, "fp64"));
	/* a phase that could not be compared is a warning, never a silent pass */
	gb_stress_obs_add_algo_pick(&o, &none, "bf16");
	assert_int_equal(o.repeat_uncompared, 1);
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_WARNING);
	assert_non_null(strstr(find(c, n, "repeat")->message, "1 phase could not be compared"));
	assert_non_null(strstr(find(c, n, "repeat")->message, "bf16: none of 2 algorithms"));
	/* mismatches in the compared phases still fail */
	o.repeat_mismatches = 4;
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_FAILED);
	/* and turned off is skipped whatever the self-check said */
	o.repeat_on = false;
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_SKIPPED);
	gb_stress_obs_release(&o);
}

/*
 * --precision mixed: a series per precision, each judged against itself.
 * fp64 at 60 and fp16 at 700 TFLOP/s in the same intervals never make a
 * "drop"; a real fall of one of them fails and is named; peers compare
 * like with like.
 */
static void obs_mixed(struct gb_stress_obs *o, double fp16_late)
{
	static const char *const labels[] = { "fp64", "fp16" };

	gb_stress_obs_init(o, 0);
	gb_stress_obs_series(o, 2, labels);
	o->ran = true;
	for (int t = 1; t <= 80; t++) {
		gb_stress_obs_add_throughput(o, 0, t, 60.0 + (t % 2));
		gb_stress_obs_add_throughput(o, 1, t, t > 70 ? fp16_late : 700.0 + (t % 3));
	}
}

static void test_verdict_mixed_series(void **state)
{
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct gb_stress_obs o;
	const struct gb_stress_check *k;
	double peers[GB_STRESS_MAX_SERIES];
	char name[32];
	size_t n;

	(void)state;
	gb_stress_thresholds_default(&th);
	obs_mixed(&o, 700);
	assert_true(gb_stress_settled(&o, 0) >= 60 && gb_stress_settled(&o, 0) <= 61);
	assert_true(gb_stress_settled(&o, 1) >= 700 && gb_stress_settled(&o, 1) <= 702);
	assert_true(isnan(gb_stress_settled(&o, 2)));
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	k = find(c, n, "throughput_drop");
	if (k->status != GB_STATUS_PASSED)
		fail_msg("%s", k->message);
	assert_non_null(strstr(k->message, "fp64 60"));
	assert_non_null(strstr(k->message, "fp16 70"));
	gb_stress_obs_release(&o);

	/* fp16 falls 20% at the end: fails, named */
	obs_mixed(&o, 560);
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	k = find(c, n, "throughput_drop");
	assert_int_equal(k->status, GB_STATUS_FAILED);
	assert_non_null(strstr(k->message, "fp16 fell 20."));
	/* peers per series: fp64 12% behind the best fp64 fails even with fp16 level */
	peers[0] = 60.5 / 0.88;
	peers[1] = 701;
	n = gb_stress_judge(&o, &th, peers, c, ARRAY_LEN(c));
	k = find(c, n, "peer_throughput");
	assert_int_equal(k->status, GB_STATUS_FAILED);
	assert_non_null(strstr(k->message, "fp64 12."));
	peers[0] = 61;
	n = gb_stress_judge(&o, &th, peers, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "peer_throughput")->status, GB_STATUS_PASSED);
	/* a series without a peer value is not compared */
	peers[0] = peers[1] = NAN;
	n = gb_stress_judge(&o, &th, peers, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "peer_throughput")->status, GB_STATUS_SKIPPED);
	/* throughput into a series the run does not have is ignored */
	gb_stress_obs_add_throughput(&o, 2, 1, 5);
	gb_stress_obs_add_throughput(&o, 7, 1, 5);
	assert_string_equal(gb_stress_series_name(&o, 0, name, sizeof(name)), "tflops_fp64");
	o.memtest = true;
	assert_string_equal(gb_stress_series_name(&o, 1, name, sizeof(name)), "mem_gbps_fp16");
	gb_stress_obs_release(&o);

	/* one unlabelled series: the plain names */
	gb_stress_obs_init(&o, 0);
	assert_int_equal(o.n_series, 1);
	assert_string_equal(gb_stress_series_name(&o, 0, name, sizeof(name)), "tflops");
	gb_stress_obs_series(&o, 9, NULL);
	assert_int_equal(o.n_series, GB_STRESS_MAX_SERIES);
	gb_stress_obs_release(&o);
}

/* Metrics of a mixed run: a metric set and a series per precision, and the ABFT ratio. */
static void test_metrics_mixed(void **state)
{
	const char *argv[] = { "gpubench", "stress" };
	struct gb_run run;
	struct gb_bench_result *b;
	struct gb_stress_obs o;
	const struct gb_metric *m;

	(void)state;
	obs_mixed(&o, 700);
	gb_stress_obs_add_abft_ratio(&o, 0.02);
	gb_stress_obs_add_abft_ratio(&o, NAN);
	gb_stress_obs_add_abft_ratio(&o, 0.005);
	gb_stress_obs_add_abft_ratio(&o, -1);
	assert_true(o.abft_max_ratio == 0.02);
	o.abft_on = true;
	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_stress_add_metrics(b, &o);
	assert_null(gb_bench_find_metric(b, "tflops", 0));
	m = gb_bench_find_metric(b, "tflops_fp64", 0);
	assert_non_null(m);
	assert_int_equal(m->n_samples, 80);
	assert_non_null(gb_bench_find_metric(b, "tflops_fp16_settled", 0));
	assert_non_null(gb_bench_find_metric(b, "tflops_fp16_min", 0));
	assert_int_equal(b->n_series, 2);
	assert_true(gb_bench_find_metric(b, "abft_max_ratio", 0)->value == 0.02);
	gb_run_release(&run);
	/* ABFT off: no ratio, null rather than 0 */
	o.abft_on = false;
	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_stress_add_metrics(b, &o);
	assert_true(isnan(gb_bench_find_metric(b, "abft_max_ratio", 0)->value));
	gb_run_release(&run);
	gb_stress_obs_release(&o);
}

/* A memtest record names its address, pattern and pass. */
static void test_memtest_forensics(void **state)
{
	struct gb_stress_forensic f;
	char line[512], name[64];
	cJSON *o;

	(void)state;
	assert_string_equal(gb_memtest_pattern_name(GB_MT_WALK1, 3, false, name, sizeof(name)),
			    "walking ones (bit 3)");
	assert_string_equal(gb_memtest_pattern_name(GB_MT_WALK0, 35, false, name, sizeof(name)),
			    "walking zeros (bit 3)");
	assert_string_equal(gb_memtest_pattern_name(GB_MT_SOLID, 0x55555555u, true, name,
						     sizeof(name)),
			    "moving inversions 0x55555555 then 0xaaaaaaaa");
	assert_string_equal(gb_memtest_pattern_name(GB_MT_SOLID, 0x0F0F0F0Fu, false, name,
						     sizeof(name)),
			    "moving inversions 0x0f0f0f0f");
	assert_string_equal(gb_memtest_pattern_name(GB_MT_RANDOM, 0, false, name, sizeof(name)),
			    "random");

	gb_stress_forensic_init(&f);
	f.device = 0;
	f.t_s = 1;
	f.layer = "memtest";
	f.offset = 0x1000;
	f.address = 0x7f2a00001000ULL;
	f.pass = 2;
	snprintf(f.pattern, sizeof(f.pattern), "walking ones (bit 3)");
	f.type = GB_DT_I32;
	f.have_bits = true;
	f.expected_bits = 0x8;
	f.got_bits = 0x0;
	gb_stress_forensic_format(&f, line, sizeof(line));
	assert_string_equal(line, "gpu 0 at 1.0 s, memtest, offset 0x1000 (address 0x7f2a00001000), "
				  "walking ones (bit 3), pass 2: expected 0x00000008 got 0x00000000, "
				  "flipped bit 3 (bit)");
	o = gb_stress_forensic_json(&f);
	assert_string_equal(cJSON_GetObjectItem(o, "address")->valuestring, "0x7f2a00001000");
	assert_string_equal(cJSON_GetObjectItem(o, "pattern")->valuestring, "walking ones (bit 3)");
	assert_int_equal(cJSON_GetObjectItem(o, "pass")->valueint, 2);
	assert_int_equal(cJSON_GetObjectItem(o, "offset")->valueint, 0x1000);
	cJSON_Delete(o);
	/* a GEMM record has none of them */
	forensic_element(&f);
	o = gb_stress_forensic_json(&f);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "address")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "pattern")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "pass")));
	cJSON_Delete(o);
}

static void progress_one(struct gb_stress_progress *p)
{
	memset(p, 0, sizeof(*p));
	p->device = 0;
	p->t_s = 12.0134;
	p->frac = 0.45;
	p->eta_s = 330;
	p->n_tp = 1;
	p->tp[0] = 705.2;
	p->tp_total = 705.2;
	p->temp_c = 71;
	p->power_w = 650;
	p->sm_mhz = 1755;
	p->state = "running";
}

/* The progress line a person and a machine read. */
static void test_progress_lines(void **state)
{
	static const char *const labels[] = { "fp64", "fp16" };
	struct gb_stress_progress p;
	char line[512], eta[16];
	cJSON *o;

	(void)state;
	assert_string_equal(gb_stress_fmt_eta(330, eta, sizeof(eta)), "5m30s");
	assert_string_equal(gb_stress_fmt_eta(3720, eta, sizeof(eta)), "1h02m");
	assert_string_equal(gb_stress_fmt_eta(12, eta, sizeof(eta)), "12s");
	assert_string_equal(gb_stress_fmt_eta(NAN, eta, sizeof(eta)), "-");
	progress_one(&p);
	gb_stress_progress_text(&p, line, sizeof(line));
	assert_string_equal(line, "stress gpu 0:  45% eta 5m30s  705.2 TFLOP/s  71 C  650 W  "
				  "1755 MHz  errors 0");
	/* unknowns are "-", a state other than running is named */
	p.temp_c = p.power_w = NAN;
	p.tp[0] = NAN;
	p.errors = 3;
	p.state = "hung";
	gb_stress_progress_text(&p, line, sizeof(line));
	assert_string_equal(line, "stress gpu 0:  45% eta 5m30s  - TFLOP/s  - C  - W  1755 MHz  "
				  "errors 3  hung");
	/* two series: each with its precision */
	progress_one(&p);
	p.n_tp = 2;
	p.tp_label[0] = labels[0];
	p.tp_label[1] = labels[1];
	p.tp[0] = 61.2;
	p.tp[1] = 702;
	p.tp_total = 120.5;
	gb_stress_progress_text(&p, line, sizeof(line));
	assert_non_null(strstr(line, "eta 5m30s  fp64 61.2  fp16 702 TFLOP/s  71 C"));
	gb_stress_progress_jsonl(&p, line, sizeof(line));
	o = cJSON_Parse(line);
	assert_non_null(o);
	assert_string_equal(cJSON_GetObjectItem(o, "type")->valuestring, "stress_progress");
	assert_true(cJSON_GetObjectItem(o, "tflops")->valuedouble == 120.5);
	assert_true(cJSON_GetObjectItem(o, "tflops_fp64")->valuedouble == 61.2);
	assert_true(cJSON_GetObjectItem(o, "tflops_fp16")->valuedouble == 702);
	assert_true(fabs(cJSON_GetObjectItem(o, "t_s")->valuedouble - 12.013) < 1e-9);
	assert_string_equal(cJSON_GetObjectItem(o, "state")->valuestring, "running");
	cJSON_Delete(o);
	/* memtest, one series, unknowns null */
	progress_one(&p);
	p.memtest = true;
	p.tp_total = NAN;
	p.eta_s = NAN;
	gb_stress_progress_jsonl(&p, line, sizeof(line));
	o = cJSON_Parse(line);
	assert_non_null(o);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "gbps")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "eta_s")));
	assert_null(cJSON_GetObjectItem(o, "tflops"));
	assert_null(cJSON_GetObjectItem(o, "gbps_fp64"));
	cJSON_Delete(o);
	gb_stress_progress_text(&p, line, sizeof(line));
	assert_non_null(strstr(line, "705.2 GB/s"));
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
		cmocka_unit_test(test_value_random_representable),
		cmocka_unit_test(test_value_exact_integers),
		cmocka_unit_test(test_memtest_words),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_gemm_types),
		cmocka_unit_test(test_exact_range),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_batch_schedule),
		cmocka_unit_test(test_abft_no_false_alarm_rn),
		cmocka_unit_test(test_abft_no_false_alarm_rz),
		cmocka_unit_test(test_abft_catches_flips),
		cmocka_unit_test(test_abft_exact),
		cmocka_unit_test(test_abft_names_flipped_bit),
		cmocka_unit_test(test_abft_reference_matches),
		cmocka_unit_test(test_abft_bound_values),
		cmocka_unit_test(test_sizing),
		cmocka_unit_test(test_batch_gemms),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_cross_vote),
		cmocka_unit_test(test_xid_set),
		cmocka_unit_test(test_flipped_bits),
		cmocka_unit_test(test_forensic_format),
		cmocka_unit_test(test_forensic_json),
		cmocka_unit_test(test_locate),
		cmocka_unit_test(test_value_bits),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_corrupt_record),
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_duration_percent),
		cmocka_unit_test(test_verdict_clean),
		cmocka_unit_test(test_verdict_could_not_run),
		cmocka_unit_test(test_verdict_layers),
		cmocka_unit_test(test_verdict_names_element),
		cmocka_unit_test(test_cross_tie),
		cmocka_unit_test(test_verdict_hung_after_mismatches),
		cmocka_unit_test(test_verdict_throttle),
		cmocka_unit_test(test_time_share),
		cmocka_unit_test(test_viol_share),
		cmocka_unit_test(test_verdict_exact_shares),
		cmocka_unit_test(test_verdict_temperature),
		cmocka_unit_test(test_verdict_health),
		cmocka_unit_test(test_verdict_xid),
		cmocka_unit_test(test_verdict_throughput),
		cmocka_unit_test(test_verdict_ramp),
		cmocka_unit_test(test_inject_rules),
		cmocka_unit_test(test_verdict_telemetry),
		cmocka_unit_test(test_batcher_per_phase),
		cmocka_unit_test(test_pick_algo),
		cmocka_unit_test(test_verdict_repeat_pick),
		cmocka_unit_test(test_verdict_mixed_series),
		cmocka_unit_test(test_metrics_mixed),
		cmocka_unit_test(test_memtest_forensics),
		cmocka_unit_test(test_progress_lines),
		cmocka_unit_test(test_abft_build_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
