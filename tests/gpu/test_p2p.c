/* SPDX-License-Identifier: MIT */
/*
 * test_p2p.c - gpu-labelled test of `gpubench p2p` through its public
 * descriptor. On every GPU count: the matrices are N x N numbers-or-null,
 * the diagonal (device-local row) is measured and verified, a single GPU
 * says why the pair cells are empty. With two or more GPUs the staged
 * paths (one-way and two-way) are measured for every pair, and a peer cell
 * exists where peer access is advertised unless extra.notes says why it
 * could not be measured (e.g. the driver refused to enable it); never where
 * it is not advertised. Small and large sizes. Exits 77 without a GPU.
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
#include "bench/device/nvml.h"
#include "gpu_test.h"

extern const struct gb_bench gb_bench_p2p;
#define GB_FIXTURE_BENCH gb_bench_p2p
#include "bench_fixture.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int n_gpus;

/* Run `gpubench p2p ARGS...` on the first n_dev GPUs (NVML as main() loaded it). */
static void run_p2p(struct fixture *f, int n_dev, const char *const *args, int n_args)
{
	fixture_open_devices(f, n_dev);
	fixture_run(f, args, n_args);
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

/* Whether extra.notes explains the cell from -> to (devices are 0..n-1 here). */
static bool noted(const struct gb_bench_result *r, int from, int to)
{
	cJSON *n;

	cJSON_ArrayForEach(n, cJSON_GetObjectItem(r->extra, "notes"))
		if (cJSON_GetObjectItem(n, "from")->valueint == from &&
		    cJSON_GetObjectItem(n, "to")->valueint == to)
			return true;
	return false;
}

/* A peer cell: measured where access is advertised (or noted why not), never elsewhere. */
static void assert_peer_cell(const struct gb_bench_result *r, const char *key, int n, int i,
			     int j)
{
	bool have = isfinite(cell(r, key, n, i, j));

	if (cell(r, "p2p_access", n, i, j) == 1)
		assert_true(have || noted(r, i, j));
	else
		assert_false(have);
}

/* Every matrix extra.matrices lists is there, N x N. */
static void check_matrix_list(const struct gb_bench_result *r, int n)
{
	cJSON *m, *list = cJSON_GetObjectItem(r->extra, "matrices");
	int count = 0;

	assert_true(cJSON_IsArray(list));
	cJSON_ArrayForEach(m, list) {
		const char *unit = cJSON_GetObjectItem(m, "unit")->valuestring;

		assert_true(cJSON_IsString(cJSON_GetObjectItem(m, "title")));
		assert_true(!strcmp(unit, "GB/s") || !strcmp(unit, "us"));
		(void)cell(r, cJSON_GetObjectItem(m, "key")->valuestring, n, 0, 0);
		count++;
	}
	assert_true(count >= 9);
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
		assert_true(isnan(cell(r, "bidir_staged_gbps", n, i, i)));
		for (int j = 0; j < n; j++) {
			if (i == j)
				continue;
			if (!latency_only) {
				assert_true(cell(r, "staged_gbps", n, i, j) > 0);
				assert_true(cell(r, "bidir_staged_gbps", n, i, j) > 0);
				assert_peer_cell(r, "uni_ce_gbps", n, i, j);
			} else {
				assert_true(isnan(cell(r, "bidir_staged_gbps", n, i, j)));
			}
			assert_peer_cell(r, "latency_us", n, i, j);
			assert_true(cell(r, "latency_copy_staged_us", n, i, j) > 0);
		}
	}
	assert_non_null(cJSON_GetObjectItem(r->extra, "topology"));
	check_matrix_list(r, n);
}

static void test_all_gpus_small(void **state)
{
	static const char *const args[] = { "--bytes", "1M", "--samples", "3", "--loops", "2" };
	struct fixture f;

	(void)state;
	run_p2p(&f, n_gpus, args, (int)ARRAY_LEN(args));
	assert_int_equal(f.rc, 0);
	check_shape(f.res, n_gpus, false);
	assert_verified(f.res);
	print_matrix(f.res, "uni_ce_gbps", n_gpus);
	print_matrix(f.res, "staged_gbps", n_gpus);
	print_matrix(f.res, "bidir_staged_gbps", n_gpus);
	print_matrix(f.res, "latency_us", n_gpus);
	if (n_gpus == 1)
		assert_non_null(cJSON_GetObjectItem(f.res->extra, "reason"));
	fixture_close(&f);
}

static void test_single_gpu_large(void **state)
{
	static const char *const args[] = { "--bytes", "256M", "--samples", "3", "--loops", "4" };
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
	fixture_close(&f);
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
	fixture_close(&f);
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
	if (n_gpus > GB_FIXTURE_MAX_DEVICES)
		n_gpus = GB_FIXTURE_MAX_DEVICES;
	if (gb_nvml_load(NULL, err, sizeof(err)))
		fprintf(stderr, "note: %s\n", err);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
