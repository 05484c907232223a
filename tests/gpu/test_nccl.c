/* SPDX-License-Identifier: MIT */
/*
 * test_nccl.c - gpu-labelled test of `gpubench nccl` through its public
 * descriptor (the one-process form). On one GPU: an all-reduce sweep whose
 * correctness pass finds every element right, in-place and out-of-place,
 * with bus bandwidth 0 by definition and the note that says so; every
 * collective, and the types and operators whose results are exact, at a
 * few sizes; CUDA-graph replay. With two or more GPUs: the same on all of
 * them, where bus bandwidth is positive. Exits 77 without a GPU, and
 * skips (77) when libnccl.so.2 cannot be loaded, saying why.
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
#include "bench/gpu.h"
#include "bench/nccl.h"
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

/* Every row measured, checked, and right; returns the number of rows. */
static int assert_rows_correct(const struct gb_bench_result *r, int nranks)
{
	const cJSON *row;
	int n = 0;

	cJSON_ArrayForEach(row, rows_of(r))
	{
		double t = cJSON_GetObjectItem(row, "time_us")->valuedouble;
		const cJSON *bus = cJSON_GetObjectItem(row, "busbw");
		const char *coll = cJSON_GetObjectItem(row, "collective")->valuestring;

		assert_true(t > 0 && isfinite(t));
		assert_true(cJSON_IsNumber(cJSON_GetObjectItem(row, "nwrong")));
		if (cJSON_GetObjectItem(row, "nwrong")->valuedouble != 0)
			fprintf(stderr, "wrong elements: %s %s %s size %.0f: %.0f\n", coll,
				cJSON_GetObjectItem(row, "type")->valuestring,
				cJSON_GetObjectItem(row, "placement")->valuestring,
				cJSON_GetObjectItem(row, "size")->valuedouble,
				cJSON_GetObjectItem(row, "nwrong")->valuedouble);
		assert_int_equal((int)cJSON_GetObjectItem(row, "nwrong")->valuedouble, 0);
		/* one rank: busbw is 0 by definition, except broadcast/reduce (factor 1) */
		if (nranks == 1 && strcmp(coll, "broadcast") && strcmp(coll, "reduce"))
			assert_true(bus->valuedouble == 0);
		if (nranks > 1 && strcmp(coll, "broadcast") && strcmp(coll, "reduce"))
			assert_true(bus->valuedouble > 0);
		n++;
	}
	for (size_t i = 0; i < r->n_checks; i++)
		assert_int_equal(r->checks[i].status, GB_STATUS_PASSED);
	return n;
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
		"--min-bytes", "8", "--max-bytes", "64M", "--iters", "5", "--warmup", "2",
	};
	struct fixture *f = *state;
	const cJSON *note;

	run_nccl(f, 1, args, (int)ARRAY_LEN(args));
	skip_without_nccl(f);
	assert_int_equal(f->rc, 0);
	assert_int_equal(f->res->status, GB_STATUS_PASSED);
	/* 8 B .. 64 MiB by 2: 24 sizes (8 B has 2 floats), out-of-place and in-place */
	assert_int_equal(assert_rows_correct(f->res, 1), 2 * 24);
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
		"--max-bytes", "1M", "--factor", "32", "--iters", "2", "--warmup", "1",
	};
	struct fixture *f = *state;

	run_nccl(f, 1, args, (int)ARRAY_LEN(args));
	skip_without_nccl(f);
	assert_int_equal(f->rc, 0);
	assert_true(assert_rows_correct(f->res, 1) > 0);
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
	assert_int_equal(assert_rows_correct(f->res, 1), 2 * 5);
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
	assert_true(assert_rows_correct(f->res, n_gpus) > 0);
	assert_true(gb_bench_find_metric(f->res, "allreduce_busbw_peak_gbps", -1)->value > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_single_gpu_sweep, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_every_collective_and_type, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_graph_replay, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_all_gpus, fixture_setup, fixture_teardown),
	};

	n_gpus = gb_test_require_gpu();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
