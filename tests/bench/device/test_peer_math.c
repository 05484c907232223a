/* SPDX-License-Identifier: MIT */
/*
 * test_peer_math.c - unit tests for bench/device/peer_math.c: the best of a model's
 * GPUs and how far each lies below it, the message that names the GPU and
 * the best GPU, the per-GPU checks gemm and bandwidth add (grouped by
 * model), the tolerance, and that `run`'s same-model rule does not judge a
 * metric the benchmark compared itself.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/device/peer_math.h"
#include "bench/stress/stress_math.h"
#include "report/result.h"
#include "report/thresholds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* issue 26: four L40S, GPU 2 at 80 % speed */
static const double l40s_bf16[] = { 122.3, 122.1, 99.5, 122.2 };

static void test_best_and_below(void **state)
{
	double below[4];
	const double one[] = { 5, NAN };
	const double some_unknown[] = { NAN, 10, 0, 9 };

	(void)state;
	assert_int_equal(gb_peer_best(l40s_bf16, 4, below), 0);
	assert_true(fabs(below[2] - (122.3 - 99.5) / 122.3) < 1e-12);
	assert_true(below[0] == 0);
	assert_true(gb_peer_fails(below[2], 0.10));
	assert_false(gb_peer_fails(below[1], 0.10));
	/* the tolerance is the user's: at 20 % the 18.6 % GPU passes */
	assert_false(gb_peer_fails(below[2], 0.20));
	/* one usable value: nothing to compare */
	assert_int_equal(gb_peer_best(one, 2, below), -1);
	/* unknown and zero values are left out, never the best, never failed */
	assert_int_equal(gb_peer_best(some_unknown, 4, below), 1);
	assert_true(isnan(below[0]) && isnan(below[2]));
	assert_false(gb_peer_fails(below[0], 0.10));
	assert_true(fabs(below[3] - 0.1) < 1e-12);
	/* exactly at the tolerance passes: more than it fails */
	assert_false(gb_peer_fails(0.10, 0.10));
}

static void test_message(void **state)
{
	char msg[256];

	(void)state;
	gb_peer_message(msg, sizeof(msg), "GPU 2", "bf16", 99.5, 122.3, "GPU 0", "TFLOP/s", 0.10);
	assert_string_equal(msg, "GPU 2 bf16 18.6% below its peers (99.5 vs best 122.3 TFLOP/s on "
				 "GPU 0)");
	gb_peer_message(msg, sizeof(msg), "GPU 1", "bf16", 122.1, 122.3, "GPU 0", "TFLOP/s", 0.10);
	assert_string_equal(msg, "GPU 1 bf16 within 0.2% of its peers (122.1, best 122.3 TFLOP/s "
				 "on GPU 0)");
}

static void add_gpus(struct gb_run *run, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct gb_device_info *d = gb_run_add_device(run);

		d->index = (int)i;
		d->name = gb_strdup(names[i]);
		d->sm_count = 142;
	}
}

static bool tflops_only(const struct gb_metric *m)
{
	return !strncmp(m->name, "tflops_", 7);
}

static const char *after_underscore(const char *name)
{
	return strchr(name, '_') ? strchr(name, '_') + 1 : name;
}

static const struct gb_check *check_of(const struct gb_bench_result *b, const char *name,
				       int device)
{
	for (size_t i = 0; i < b->n_checks; i++)
		if (!strcmp(b->checks[i].name, name) && b->checks[i].device == device)
			return &b->checks[i];
	return NULL;
}

static void test_checks_name_the_gpu(void **state)
{
	static const char *const l40s[] = { "NVIDIA L40S", "NVIDIA L40S", "NVIDIA L40S",
					    "NVIDIA L40S" };
	const char *argv[] = { "gpubench", "gemm" };
	struct gb_run run;
	struct gb_bench_result *b;
	const struct gb_check *c;

	(void)state;
	gb_run_init(&run, "gemm", 2, argv);
	add_gpus(&run, l40s, 4);
	b = gb_run_add_bench(&run, "gemm");
	for (int i = 0; i < 4; i++) {
		gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, i, l40s_bf16[i],
				   362);
		/* a metric the benchmark does not compare, and one lower-is-better */
		gb_bench_add_value(b, "pct_of_cublas_bf16", "%", GB_BETTER_HIGHER, i,
				   i == 2 ? 50 : 100, NAN);
		gb_bench_add_value(b, "run_cv_bf16", "%", GB_BETTER_LOWER, i, 1, NAN);
	}
	assert_int_equal(gb_peer_checks(b, &run, tflops_only, after_underscore, 0.10), 1);
	/* one failed check, on GPU 2, naming it and the best GPU; pct_of_cublas is not judged */
	assert_int_equal(b->n_checks, 1);
	c = check_of(b, "tflops_bf16_peers", 2);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_FAILED);
	assert_string_equal(c->message, "GPU 2 bf16 18.6% below its peers (99.5 vs best 122.3 "
					"TFLOP/s on GPU 0)");
	assert_true(c->threshold == 0.10);
	assert_true(fabs(c->observed - 0.1864) < 1e-3);
	assert_int_equal(b->status, GB_STATUS_FAILED);
	gb_run_release(&run);

	/* --peer-tolerance 20%: the same numbers pass */
	gb_run_init(&run, "gemm", 2, argv);
	add_gpus(&run, l40s, 4);
	b = gb_run_add_bench(&run, "gemm");
	for (int i = 0; i < 4; i++)
		gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, i, l40s_bf16[i],
				   362);
	assert_int_equal(gb_peer_checks(b, &run, tflops_only, after_underscore, 0.20), 0);
	assert_int_equal(b->status, GB_STATUS_PASSED);
	/* one passed check for the four, naming the furthest behind and the best */
	assert_int_equal(b->n_checks, 1);
	c = check_of(b, "tflops_bf16_peers", -1);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	assert_string_equal(c->message, "4 NVIDIA L40S GPUs bf16 within 18.6% of the best (GPU 2 "
					"99.5, best 122.3 TFLOP/s on GPU 0; at most 20%)");
	gb_run_release(&run);
}

/* GPUs of different models are not peers: an RTX 4090 beside an A100 is no finding */
static void test_models_apart(void **state)
{
	static const char *const mixed[] = { "NVIDIA A100-SXM4-80GB", "NVIDIA GeForce RTX 4090",
					     "NVIDIA A100-SXM4-80GB" };
	const double v[] = { 250, 150, 248 };
	const char *argv[] = { "gpubench", "gemm" };
	struct gb_run run;
	struct gb_bench_result *b;

	(void)state;
	gb_run_init(&run, "gemm", 2, argv);
	add_gpus(&run, mixed, 3);
	b = gb_run_add_bench(&run, "gemm");
	for (int i = 0; i < 3; i++)
		gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, i, v[i], NAN);
	assert_int_equal(gb_peer_checks(b, &run, NULL, NULL, 0.10), 0);
	/* the two A100s compared (one passed check of two), the 4090 alone is not */
	assert_int_equal(b->n_checks, 1);
	assert_non_null(strstr(b->checks[0].message, "2 NVIDIA A100-SXM4-80GB GPUs"));
	gb_run_release(&run);
}

/* `run`'s same-model rule leaves a metric the benchmark judged alone: one finding, one check */
static void test_run_does_not_double(void **state)
{
	static const char *const l40s[] = { "NVIDIA L40S", "NVIDIA L40S" };
	const char *argv[] = { "gpubench", "run" };
	struct gb_thresholds t;
	struct gb_run run;
	struct gb_bench_result *b;
	size_t same = 0;

	(void)state;
	gb_run_init(&run, "run", 2, argv);
	add_gpus(&run, l40s, 2);
	b = gb_run_add_bench(&run, "gemm");
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, 122.3, NAN);
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 1, 99.5, NAN);
	gb_peer_checks(b, &run, NULL, NULL, 0.10);
	assert_int_equal(gb_thresholds_builtin(&t, "acceptance"), 0);
	gb_thresholds_apply(&t, &run);
	for (size_t i = 0; i < b->n_checks; i++)
		same += strstr(b->checks[i].name, "_same_model") != NULL;
	assert_int_equal(same, 0);
	assert_non_null(check_of(b, "tflops_bf16_peers", 1));
	/* a thresholds file's stricter spread (5%) still judges: the user asked for more */
	t.same_model_spread = 0.05;
	gb_thresholds_apply(&t, &run);
	assert_non_null(check_of(b, "tflops_bf16_same_model", 1));
	gb_thresholds_release(&t);
	gb_run_release(&run);
}

/* stress uses the same arithmetic and words, and names the best GPU */
static void test_stress_peer_words(void **state)
{
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct gb_stress_obs o;
	const double best[GB_STRESS_MAX_SERIES] = { 122.3 };
	const struct gb_stress_check *k = NULL;
	size_t n;

	(void)state;
	gb_stress_obs_init(&o, 2);
	o.ran = true;
	o.peer_best_dev[0] = 0;
	o.load_s = 40;
	for (int t = 1; t <= 40; t++)
		gb_stress_obs_add_throughput(&o, 0, t, 99.5);
	gb_stress_thresholds_default(&th);
	n = gb_stress_judge(&o, &th, best, c, ARRAY_LEN(c));
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, "peer_throughput"))
			k = &c[i];
	assert_non_null(k);
	assert_int_equal(k->status, GB_STATUS_FAILED);
	assert_non_null(strstr(k->message, "GPU 2 "));
	assert_non_null(strstr(k->message, "18.6% below its peers (99.5 vs best 122.3 TFLOP/s on "
					   "GPU 0)"));
	/* --peer-tolerance 20% */
	th.peer_slow_max = 0.20;
	n = gb_stress_judge(&o, &th, best, c, ARRAY_LEN(c));
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, "peer_throughput"))
			assert_int_equal(c[i].status, GB_STATUS_PASSED);
	gb_stress_obs_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_best_and_below),
		cmocka_unit_test(test_message),
		cmocka_unit_test(test_checks_name_the_gpu),
		cmocka_unit_test(test_models_apart),
		cmocka_unit_test(test_run_does_not_double),
		cmocka_unit_test(test_stress_peer_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
