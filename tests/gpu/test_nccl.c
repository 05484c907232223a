/* SPDX-License-Identifier: MIT */
/*
 * test_nccl.c - gpu-labelled test of `gpubench nccl` through its public
 * descriptor (the one-process form). On one GPU: an all-reduce sweep whose
 * correctness pass finds every element right, in-place and out-of-place,
 * with bus bandwidth 0 by definition and the note that says so, every
 * out-of-place size timed --samples times, and the in-place sizes (where
 * NCCL does nothing with one rank) checked but not timed; float avg in
 * place, which NCCL does work on, timed; every collective, and the types
 * and operators whose results are exact, at a few sizes; CUDA-graph replay;
 * the method in the report (blocking launches from NCCL 2.18, buffers that
 * rotate over at least twice the L2). With two or more GPUs: the same on
 * all of them, where bus bandwidth is positive and everything is timed.
 * Exits 77 without a GPU, and skips (77) when libnccl.so.2 cannot be
 * loaded, saying why.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"
#include "bench/device/gpu.h"
#include "bench/nccl/nccl.h"
#include "gpu_test.h"

extern const struct gb_bench gb_bench_nccl;
#define GB_FIXTURE_BENCH gb_bench_nccl
#include "bench_fixture.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int n_gpus;

/* Run `gpubench nccl ARGS...` on the first n_dev GPUs (without NVML: no telemetry). */
static void run_nccl(struct fixture *f, int n_dev, const char *const *args, int n_args)
{
	fixture_open_devices(f, n_dev);
	fixture_run(f, args, n_args);
}

static const cJSON *rows_of(const struct gb_bench_result *r)
{
	const cJSON *rows = cJSON_GetObjectItem(r->extra, "rows");

	assert_true(cJSON_IsArray(rows));
	return rows;
}

/* Whether NCCL does work on a row (with one rank, in place, only float avg). */
static bool row_has_work(const cJSON *row, int nranks)
{
	const char *type = cJSON_GetObjectItem(row, "type")->valuestring;
	bool is_float = !strcmp(type, "half") || !strcmp(type, "float") ||
			!strcmp(type, "double") || !strcmp(type, "bfloat16");

	return nranks > 1 ||
	       strcmp(cJSON_GetObjectItem(row, "placement")->valuestring, "in_place") ||
	       (!strcmp(cJSON_GetObjectItem(row, "redop")->valuestring, "avg") && is_float);
}

/* A row with work is timed by every sample; one without is marked and not timed. */
static void assert_row_timed(const cJSON *row, int nranks, int samples)
{
	const cJSON *t = cJSON_GetObjectItem(row, "time_us");
	const cJSON *skipped = cJSON_GetObjectItem(row, "skipped");

	if (!row_has_work(row, nranks)) {
		assert_non_null(skipped);
		assert_non_null(strstr(skipped->valuestring, "NCCL does no work in place"));
		assert_true(cJSON_IsNull(t));
		assert_true(cJSON_IsNull(cJSON_GetObjectItem(row, "algbw")));
		return;
	}
	assert_null(skipped);
	assert_true(cJSON_IsNumber(t) && t->valuedouble > 0 && isfinite(t->valuedouble));
	assert_int_equal((int)cJSON_GetObjectItem(row, "samples")->valuedouble, samples);
	assert_true(cJSON_GetObjectItem(row, "time_min_us")->valuedouble <= t->valuedouble);
	assert_true(cJSON_GetObjectItem(row, "time_max_us")->valuedouble >= t->valuedouble);
}

/* Every row measured (or marked), checked, and right; returns the number of rows. */
static int assert_rows_correct(const struct gb_bench_result *r, int nranks, int samples)
{
	const cJSON *row;
	int n = 0;

	cJSON_ArrayForEach(row, rows_of(r))
	{
		const cJSON *bus = cJSON_GetObjectItem(row, "busbw");
		const char *coll = cJSON_GetObjectItem(row, "collective")->valuestring;
		bool timed = row_has_work(row, nranks);

		assert_row_timed(row, nranks, samples);
		assert_true(cJSON_IsNumber(cJSON_GetObjectItem(row, "nwrong")));
		if (cJSON_GetObjectItem(row, "nwrong")->valuedouble != 0)
			fprintf(stderr, "wrong elements: %s %s %s size %.0f: %.0f\n", coll,
				cJSON_GetObjectItem(row, "type")->valuestring,
				cJSON_GetObjectItem(row, "placement")->valuestring,
				cJSON_GetObjectItem(row, "size")->valuedouble,
				cJSON_GetObjectItem(row, "nwrong")->valuedouble);
		assert_int_equal((int)cJSON_GetObjectItem(row, "nwrong")->valuedouble, 0);
		/* one rank: busbw is 0 by definition, except broadcast/reduce (factor 1) */
		if (timed && nranks == 1 && strcmp(coll, "broadcast") && strcmp(coll, "reduce"))
			assert_true(bus->valuedouble == 0);
		if (nranks > 1 && strcmp(coll, "broadcast") && strcmp(coll, "reduce"))
			assert_true(bus->valuedouble > 0);
		n++;
	}
	/* every correctness check passed; timing checks may also be skipped or warn */
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct gb_check *c = &r->checks[i];

		if (strstr(c->name, "_correct"))
			assert_int_equal(c->status, GB_STATUS_PASSED);
		else
			assert_true(c->status == GB_STATUS_PASSED || c->status == GB_STATUS_WARNING ||
				    c->status == GB_STATUS_SKIPPED);
		if (c->status == GB_STATUS_WARNING)
			fprintf(stderr, "note: %s: %s\n", c->name, c->message);
	}
	return n;
}

/* The method the report states: blocking launches from 2.18, rotation beyond the L2. */
static void assert_method(const struct fixture *f)
{
	const cJSON *launch = cJSON_GetObjectItem(f->res->params, "launch");
	const cJSON *span = cJSON_GetObjectItem(f->res->params, "rotation_bytes");
	const cJSON *version = cJSON_GetObjectItem(f->res->params, "nccl_version");

	assert_true(cJSON_IsString(launch));
	if (cJSON_IsNumber(version) && version->valuedouble >= 21800)
		assert_non_null(strstr(launch->valuestring, "blocking communicators (split"));
	assert_true(cJSON_IsNumber(span));
	if (dev0(f) && dev0(f)->l2_bytes > 0)
		assert_true(span->valuedouble >= 2 * dev0(f)->l2_bytes);
	fprintf(stderr, "note: launch: %s; rotation over %.0f MiB\n", launch->valuestring,
		span->valuedouble / (1 << 20));
}

/* The loader reason, when libnccl.so.2 is missing here: a skip, not a failure. */
static void skip_without_nccl(const struct fixture *f)
{
	if (f->rc && f->res->reason && strstr(f->res->reason, "cannot load NCCL")) {
		fprintf(stderr, "skipped: %s\n", f->res->reason);
		exit(77);
	}
}

static void test_single_gpu_sweep(void **state)
{
	static const char *const args[] = {
		"--min-bytes", "8", "--max-bytes", "64M", "--iters", "5", "--warmup-iters", "2",
	};
	struct fixture *f = *state;
	const cJSON *note;

	const struct gb_check *c;

	run_nccl(f, 1, args, (int)ARRAY_LEN(args));
	skip_without_nccl(f);
	assert_int_equal(f->rc, 0);
	assert_int_equal(f->res->status, GB_STATUS_PASSED);
	/* 8 B .. 64 MiB by 2: 24 sizes (8 B has 2 floats), out-of-place and in-place */
	assert_int_equal(assert_rows_correct(f->res, 1, 5), 2 * 24);
	assert_method(f);
	/* in place NCCL does nothing with one rank: checked, and said so instead of timed */
	c = find_check(f->res, "allreduce_inplace_timed");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_SKIPPED);
	assert_null(gb_bench_find_metric(f->res, "allreduce_inplace_algbw_peak_gbps", -1));
	assert_int_equal(find_check(f->res, "allreduce_inplace_correct")->status, GB_STATUS_PASSED);
	/* 64 MiB is the one size where the spread is judged */
	c = find_check(f->res, "allreduce_timing_spread");
	assert_non_null(c);
	fprintf(stderr, "note: %s: %s\n", c->name, c->message);
	note = cJSON_GetObjectItem(f->res->extra, "note");
	assert_non_null(note);
	assert_non_null(strstr(note->valuestring, "0 by definition"));
	assert_non_null(gb_bench_find_metric(f->res, "allreduce_algbw_peak_gbps", -1));
	assert_true(gb_bench_find_metric(f->res, "allreduce_algbw_peak_gbps", -1)->value > 0);
}

static void test_every_collective_and_type(void **state)
{
	static const char *const args[] = {
		"--op", "all", "--dtype", "all", "--redop", "all", "--min-bytes", "1K",
		"--max-bytes", "1M", "--factor", "32", "--iters", "2", "--warmup-iters", "1",
	};
	struct fixture *f = *state;

	run_nccl(f, 1, args, (int)ARRAY_LEN(args));
	skip_without_nccl(f);
	assert_int_equal(f->rc, 0);
	assert_true(assert_rows_correct(f->res, 1, 5) > 0);
}

/* Float avg in place: NCCL multiplies by 1/n even with one rank, so it is timed. */
static void test_inplace_avg_timed(void **state)
{
	static const char *const args[] = {
		"--redop", "avg", "--inplace", "--min-bytes", "1M", "--max-bytes", "4M",
		"--iters", "5", "--samples", "3",
	};
	struct fixture *f = *state;

	run_nccl(f, 1, args, (int)ARRAY_LEN(args));
	skip_without_nccl(f);
	assert_int_equal(f->rc, 0);
	assert_int_equal(assert_rows_correct(f->res, 1, 3), 3);
	assert_null(find_check(f->res, "allreduce_inplace_timed"));
	assert_true(gb_bench_find_metric(f->res, "allreduce_inplace_algbw_peak_gbps", -1)->value >
		    0);
}

static void test_graph_replay(void **state)
{
	static const char *const args[] = {
		"--graph", "--min-bytes", "1M", "--max-bytes", "16M", "--iters", "10",
	};
	struct fixture *f = *state;

	run_nccl(f, 1, args, (int)ARRAY_LEN(args));
	skip_without_nccl(f);
	assert_int_equal(f->rc, 0);
	assert_int_equal(assert_rows_correct(f->res, 1, 5), 2 * 5);
}

static void test_all_gpus(void **state)
{
	static const char *const args[] = {
		"--op", "all", "--min-bytes", "1K", "--max-bytes", "256M", "--factor", "4",
		"--iters", "5",
	};
	struct fixture *f = *state;

	if (n_gpus < 2) {
		fprintf(stderr, "note: one GPU: the several-GPU sweep needs two\n");
		return;
	}
	run_nccl(f, n_gpus, args, (int)ARRAY_LEN(args));
	skip_without_nccl(f);
	assert_int_equal(f->rc, 0);
	assert_true(assert_rows_correct(f->res, n_gpus, 5) > 0);
	assert_method(f);
	assert_true(gb_bench_find_metric(f->res, "allreduce_busbw_peak_gbps", -1)->value > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_single_gpu_sweep, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_every_collective_and_type, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_inplace_avg_timed, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_graph_replay, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_all_gpus, fixture_setup, fixture_teardown),
	};

	n_gpus = gb_test_require_gpu();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
