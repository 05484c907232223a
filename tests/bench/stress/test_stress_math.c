/* SPDX-License-Identifier: MIT */
/*
 * test_stress_math.c - unit tests for the CPU core of `gpubench stress`
 * (bench/stress/stress_math.c): the data generator, exact-phase ranges, phases,
 * sizing, load schedules and batches, the pinned algorithm, profiles, the
 * hardware XID set, fault-injection rules and progress lines. The
 * verification, forensics, thresholds and verdict have their own
 * test_stress_*_math.c.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_value_random_representable),
		cmocka_unit_test(test_value_exact_integers),
		cmocka_unit_test(test_memtest_words),
		cmocka_unit_test(test_gemm_types),
		cmocka_unit_test(test_exact_range),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_batch_schedule),
		cmocka_unit_test(test_sizing),
		cmocka_unit_test(test_batch_gemms),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_xid_set),
		cmocka_unit_test(test_inject_rules),
		cmocka_unit_test(test_batcher_per_phase),
		cmocka_unit_test(test_pick_algo),
		cmocka_unit_test(test_progress_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
