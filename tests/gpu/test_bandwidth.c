/* SPDX-License-Identifier: MIT */
/*
 * test_bandwidth.c - gpu-labelled test of `gpubench bandwidth` through its
 * public descriptor: options parsed from argv like the CLI does, devices
 * collected, run() called. Every test, memory kind and method runs and
 * verifies at small sizes and at large ones; no figure may exceed its
 * theoretical ceiling (which catches a byte counted twice); --no-verify is
 * reported as skipped, never as passed. Exits 77 without a GPU.
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
#include <sys/syscall.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"
#include "bench/gpu.h"
#include "bench/nvml.h"
#include "gpu_test.h"

extern const struct gb_bench gb_bench_bandwidth;
#define GB_FIXTURE_BENCH gb_bench_bandwidth
#include "bench_fixture.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Run `gpubench bandwidth ARGS...` on device 0 (NVML as main() loaded it); the result stays in f. */
static void run_bandwidth(struct fixture *f, const char *const *args, int n_args)
{
	fixture_open_devices(f, 1);
	fixture_run(f, args, n_args);
}

/* Every GB/s metric is positive, finite and not above its ceiling (5% slack for clocks). */
static void assert_sane_metrics(const struct gb_bench_result *r)
{
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct gb_metric *m = &r->metrics[i];

		if (strcmp(m->unit, "GB/s"))
			continue;
		fprintf(stderr, "  %-34s %10.2f GB/s  cv %.3f  peak %8.2f  (%s)\n", m->name, m->value,
			m->stats.cv, m->peak, m->description ? m->description : "");
		assert_true(isfinite(m->value) && m->value > 0);
		if (isfinite(m->peak))
			assert_true(m->value <= m->peak * 1.05);
	}
}

static void assert_metric(const struct gb_bench_result *r, const char *name)
{
	const struct gb_metric *m = gb_bench_find_metric(r, name, 0);

	if (!m)
		fprintf(stderr, "missing metric %s\n", name);
	assert_non_null(m);
	assert_true(m->stats.n >= 3);
}

static bool managed_supported(void)
{
	int v = 0;

	return cudaDeviceGetAttribute(&v, cudaDevAttrConcurrentManagedAccess, 0) == cudaSuccess &&
	       v;
}

static void test_small_all(void **state)
{
	static const char *const args[] = { "--memory", "all", "--min-size", "4K", "--max-size",
					    "64K", "--factor", "4", "--samples", "3", "--loops",
					    "4" };
	static const char *const expect[] = {
		"h2d_ce_pinned_gbps", "h2d_sm_pinned_gbps", "d2h_ce_pinned_gbps",
		"d2h_sm_pinned_gbps", "bidir_ce_pinned_gbps", "bidir_sm_pinned_gbps",
		"bidir_ce_pinned_h2d_gbps", "bidir_ce_pinned_d2h_gbps", "h2d_ce_pageable_gbps",
		"d2h_ce_pageable_gbps", "d2d_ce_gbps", "d2d_sm_gbps", "d2d_ce_dram_gbps",
		"stream_copy_gbps", "stream_scale_gbps", "stream_add_gbps", "stream_triad_gbps",
	};
	struct fixture f;
	const struct gb_check *c;
	cJSON *devs, *not_run;

	(void)state;
	run_bandwidth(&f, args, (int)ARRAY_LEN(args));
	assert_int_equal(f.rc, 0);
	for (size_t i = 0; i < ARRAY_LEN(expect); i++)
		assert_metric(f.res, expect[i]);
	if (managed_supported()) {
		assert_metric(f.res, "h2d_ce_managed_gbps");
		assert_metric(f.res, "d2h_ce_managed_gbps");
		assert_metric(f.res, "h2d_sm_managed_gbps");
	}
	/* the sweep: 4K, 16K, 64K, and a fit over it */
	assert_non_null(gb_bench_find_metric(f.res, "h2d_ce_pinned_beta_gbps", 0));
	assert_non_null(gb_bench_find_metric(f.res, "h2d_ce_pinned_alpha_us", 0));
	assert_true(f.res->n_series >= 14); /* every test above but the per-direction and DRAM views */
	assert_int_equal(f.res->series[0].n, 3);
	assert_sane_metrics(f.res);
	c = find_check(f.res, "data_verified");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	/* what was not run says why: SM copies cannot reach pageable memory */
	devs = cJSON_GetObjectItem(f.res->extra, "devices");
	assert_int_equal(cJSON_GetArraySize(devs), 1);
	not_run = cJSON_GetObjectItem(cJSON_GetArrayItem(devs, 0), "not_run");
	assert_true(cJSON_GetArraySize(not_run) >= 2);
	fixture_close(&f);
}

static void test_large_pinned(void **state)
{
	static const char *const args[] = { "--min-size", "64M", "--max-size", "256M", "--factor",
					    "4", "--samples", "3", "--loops", "4" };
	struct fixture f;
	const struct gb_check *c;
	const struct gb_metric *m;

	(void)state;
	run_bandwidth(&f, args, (int)ARRAY_LEN(args));
	assert_int_equal(f.rc, 0);
	assert_sane_metrics(f.res);
	c = find_check(f.res, "data_verified");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	/* the link check is never a silent pass: passed, failed (a finding) or skipped with a reason */
	c = find_check(f.res, "pcie_link_under_load");
	assert_non_null(c);
	assert_non_null(c->message);
	fprintf(stderr, "  pcie_link_under_load: %s: %s\n", gb_status_name(c->status), c->message);
	m = gb_bench_find_metric(f.res, "d2d_sm_gbps", 0);
	assert_non_null(m);
	assert_true(m->samples && m->n_samples == 3);
	fixture_close(&f);
}

static void test_no_verify_and_odd_size(void **state)
{
	static const char *const args[] = { "--tests", "h2d,d2d", "--method", "sm", "--min-size",
					    "1000", "--max-size", "1000", "--samples", "3",
					    "--no-verify" };
	struct fixture f;
	const struct gb_check *c;

	(void)state;
	run_bandwidth(&f, args, (int)ARRAY_LEN(args));
	assert_int_equal(f.rc, 0);
	assert_metric(f.res, "h2d_sm_pinned_gbps");
	assert_metric(f.res, "d2d_sm_gbps");
	assert_null(gb_bench_find_metric(f.res, "h2d_ce_pinned_gbps", 0));
	c = find_check(f.res, "data_verified");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_SKIPPED);
	fixture_close(&f);
}

#if defined(SYS_get_mempolicy) && defined(SYS_set_mempolicy)
#define MPOL_DEFAULT_ 0
#define MPOL_PREFERRED_ 1

/* This thread's memory policy mode, -1 if it cannot be read. */
static int policy_mode(void)
{
	unsigned long mask[16] = { 0 };
	int mode = -1;

	if (syscall(SYS_get_mempolicy, &mode, mask, sizeof(mask) * 8 + 1, NULL, 0))
		return -1;
	return mode;
}

/*
 * Host buffers are bound to the GPU's NUMA node while they are allocated;
 * the policy the thread had before (here "prefer node 0", as numactl
 * --preferred would set) must be back afterwards, not reset to the default.
 */
static void test_numa_policy_restored(void **state)
{
	static const char *const args[] = { "--tests", "h2d", "--method", "ce", "--min-size",
					    "64K", "--max-size", "64K", "--samples", "3" };
	unsigned long node0[16] = { 1 };
	struct fixture f;

	(void)state;
	if (syscall(SYS_set_mempolicy, MPOL_PREFERRED_, node0, sizeof(node0) * 8 + 1)) {
		fprintf(stderr, "  set_mempolicy not permitted here: nothing to check\n");
		return;
	}
	run_bandwidth(&f, args, (int)ARRAY_LEN(args));
	assert_int_equal(f.rc, 0);
	assert_int_equal(policy_mode(), MPOL_PREFERRED_);
	syscall(SYS_set_mempolicy, MPOL_DEFAULT_, NULL, 0);
	fixture_close(&f);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_all),
		cmocka_unit_test(test_large_pinned),
		cmocka_unit_test(test_no_verify_and_odd_size),
#if defined(SYS_get_mempolicy) && defined(SYS_set_mempolicy)
		cmocka_unit_test(test_numa_policy_restored),
#endif
	};
	char err[256];

	gb_test_require_gpu();
	/* NVML lets the link be read under load; without it that check is skipped */
	if (gb_nvml_load(NULL, err, sizeof(err)))
		fprintf(stderr, "note: %s\n", err);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
