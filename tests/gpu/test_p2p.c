/* SPDX-License-Identifier: MIT */
/*
 * test_p2p.c - gpu-labelled test of `gpubench p2p` through its public
 * descriptor. On every GPU count: the matrices are N x N numbers-or-null,
 * the diagonal (device-local row) is measured and verified, a single GPU
 * says why the pair cells are empty. With two or more GPUs the staged
 * path is measured for every pair and peer cells exist exactly where peer
 * access is advertised. Small and large sizes. Exits 77 without a GPU.
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
#include "bench/nvml.h"
#include "gpu_test.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static volatile sig_atomic_t stop_flag;
static int n_gpus;

struct fixture {
	struct gb_run run;
	struct gb_bench_result *res;
	int devices[64];
	int rc;
};

/* Run `gpubench p2p ARGS...` on the first n_dev GPUs. */
static void run_p2p(struct fixture *f, int n_dev, const char *const *args, int n_args)
{
	const struct gb_bench *bench = gb_bench_find("p2p");
	struct gb_opt_set set;
	struct gb_ctx ctx;
	char missing[512], err[256];
	size_t n_pos = 0;
	void *params;

	assert_non_null(bench);
	params = calloc(1, bench->params_size);
	assert_non_null(params);
	bench->set_defaults(params);
	set.opts = bench->opts;
	set.base = params;
	assert_int_equal(gb_cli_parse(&set, 1, n_args, args, NULL, 0, &n_pos), GB_CLI_OK);
	assert_int_equal(bench->validate(params, err, sizeof(err)), 0);

	gb_run_init(&f->run, "p2p", n_args, args);
	assert_int_equal(gb_devices_collect(&f->run, missing, sizeof(missing)), 0);
	for (int i = 0; i < n_dev; i++)
		f->devices[i] = i;
	memset(&ctx, 0, sizeof(ctx));
	ctx.run = &f->run;
	ctx.devices = f->devices;
	ctx.n_devices = (size_t)n_dev;
	ctx.stop = &stop_flag;
	ctx.run_start_s = gb_now_s();
	f->res = gb_run_add_bench(&f->run, "p2p");
	for (int i = 0; i < n_dev; i++)
		gb_bench_add_device(f->res, i);
	f->rc = bench->run(&ctx, params, f->res);
	if (f->rc)
		fprintf(stderr, "p2p run failed: %s\n", f->res->reason ? f->res->reason : "?");
	free(params);
}

static const struct gb_check *find_check(const struct gb_bench_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_checks; i++)
		if (!strcmp(r->checks[i].name, name))
			return &r->checks[i];
	return NULL;
}

/* The matrix is n x n of numbers or null; returns cell (i, j) or NAN for null. */
static double cell(const struct gb_bench_result *r, const char *key, int n, int i, int j)
{
	cJSON *m = cJSON_GetObjectItem(r->extra, key), *row, *c;

	assert_non_null(m);
	assert_true(cJSON_IsArray(m));
	assert_int_equal(cJSON_GetArraySize(m), n);
	row = cJSON_GetArrayItem(m, i);
	assert_int_equal(cJSON_GetArraySize(row), n);
	c = cJSON_GetArrayItem(row, j);
	assert_true(cJSON_IsNumber(c) || cJSON_IsNull(c));
	return cJSON_IsNumber(c) ? c->valuedouble : NAN;
}

static void print_matrix(const struct gb_bench_result *r, const char *key, int n)
{
	fprintf(stderr, "  %s:\n", key);
	for (int i = 0; i < n; i++) {
		fprintf(stderr, "   ");
		for (int j = 0; j < n; j++)
			fprintf(stderr, " %10.2f", cell(r, key, n, i, j));
		fprintf(stderr, "\n");
	}
}

static void assert_verified(const struct gb_bench_result *r)
{
	const struct gb_check *c = find_check(r, "data_verified");

	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	for (size_t i = 0; i < r->n_checks; i++)
		if (!strcmp(r->checks[i].name, "p2p_data"))
			assert_int_not_equal(r->checks[i].status, GB_STATUS_FAILED);
}

static void check_shape(const struct gb_bench_result *r, int n, bool latency_only)
{
	for (int i = 0; i < n; i++) {
		/* the device-local row always exists */
		if (!latency_only) {
			assert_true(cell(r, "uni_ce_gbps", n, i, i) > 0);
			assert_true(cell(r, "uni_sm_gbps", n, i, i) > 0);
		} else {
			assert_true(isnan(cell(r, "uni_ce_gbps", n, i, i)));
		}
		assert_true(cell(r, "latency_us", n, i, i) > 0);
		assert_true(isnan(cell(r, "staged_gbps", n, i, i)));
		for (int j = 0; j < n; j++) {
			double access = cell(r, "p2p_access", n, i, j);

			if (i == j)
				continue;
			/* peer cells exist exactly where peer access is advertised */
			if (!latency_only) {
				assert_true(cell(r, "staged_gbps", n, i, j) > 0);
				assert_int_equal(isfinite(cell(r, "uni_ce_gbps", n, i, j)), access == 1);
			}
			assert_int_equal(isfinite(cell(r, "latency_us", n, i, j)), access == 1);
			assert_true(cell(r, "latency_copy_staged_us", n, i, j) > 0);
		}
	}
	assert_non_null(cJSON_GetObjectItem(r->extra, "topology"));
}

static void test_all_gpus_small(void **state)
{
	static const char *const args[] = { "--size", "1M", "--samples", "3", "--loops", "2" };
	struct fixture f;

	(void)state;
	run_p2p(&f, n_gpus, args, (int)ARRAY_LEN(args));
	assert_int_equal(f.rc, 0);
	check_shape(f.res, n_gpus, false);
	assert_verified(f.res);
	print_matrix(f.res, "uni_ce_gbps", n_gpus);
	print_matrix(f.res, "staged_gbps", n_gpus);
	print_matrix(f.res, "latency_us", n_gpus);
	if (n_gpus == 1)
		assert_non_null(cJSON_GetObjectItem(f.res->extra, "reason"));
	gb_run_release(&f.run);
}

static void test_single_gpu_large(void **state)
{
	static const char *const args[] = { "--size", "256M", "--samples", "3", "--loops", "4" };
	struct fixture f;
	cJSON *reason;

	(void)state;
	run_p2p(&f, 1, args, (int)ARRAY_LEN(args));
	assert_int_equal(f.rc, 0);
	check_shape(f.res, 1, false);
	assert_verified(f.res);
	reason = cJSON_GetObjectItem(f.res->extra, "reason");
	assert_non_null(reason);
	assert_non_null(strstr(reason->valuestring, "needs 2 GPUs"));
	/* the local copy counts payload once: it cannot beat half of memory bandwidth */
	{
		const struct gb_metric *m = gb_bench_find_metric(f.res, "uni_ce_local_gbps", 0);

		assert_non_null(m);
		fprintf(stderr, "  local CE %.1f GB/s of %.1f\n", m->value, m->peak);
		if (isfinite(m->peak))
			assert_true(m->value <= m->peak * 1.05);
	}
	gb_run_release(&f.run);
}

static void test_latency_only(void **state)
{
	static const char *const args[] = { "--latency-only", "--samples", "3" };
	struct fixture f;
	int n = n_gpus < 2 ? n_gpus : 2;

	(void)state;
	run_p2p(&f, n, args, (int)ARRAY_LEN(args));
	assert_int_equal(f.rc, 0);
	check_shape(f.res, n, true);
	print_matrix(f.res, "latency_us", n);
	gb_run_release(&f.run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_gpus_small),
		cmocka_unit_test(test_single_gpu_large),
		cmocka_unit_test(test_latency_only),
	};
	char err[256];

	n_gpus = gb_test_require_gpu();
	if (n_gpus > 64)
		n_gpus = 64;
	if (gb_nvml_load(NULL, err, sizeof(err)))
		fprintf(stderr, "note: %s\n", err);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
