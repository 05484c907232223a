/* SPDX-License-Identifier: MIT */
/*
 * test_bandwidth.c - gpu-labelled test of `gpubench bandwidth` through its
 * public descriptor: options parsed from argv like the CLI does, devices
 * collected, run() called. Every test, memory kind and method runs and
 * verifies at small sizes and at large ones; no figure may exceed its
 * theoretical ceiling (which catches a byte counted twice); a sweep too
 * short to pin beta reports none, and says why; --no-verify is reported as
 * skipped, never as passed; running out of memory names the sizes. Exits
 * 77 without a GPU.
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
#include "bench/device/copy_math.h"
#include "bench/device/gpu.h"
#include "bench/device/nvml.h"
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

/*
 * Every GB/s metric is positive, finite and not above its ceiling (5% slack
 * for clocks); a fitted beta is reported only within the slack the fit is
 * held to (gb_copy_beta_usable).
 */
static void assert_sane_metrics(const struct gb_bench_result *r)
{
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct gb_metric *m = &r->metrics[i];
		double slack = strstr(m->name, "_beta_") ? GB_COPY_FIT_MAX_OF_CEILING : 1.05;

		if (strcmp(m->unit, "GB/s"))
			continue;
		fprintf(stderr, "  %-34s %10.2f GB/s  cv %.3f  peak %8.2f  (%s)\n", m->name, m->value,
			m->stats.cv, m->peak, m->description ? m->description : "");
		assert_true(isfinite(m->value) && m->value > 0);
		if (isfinite(m->peak))
			assert_true(m->value <= m->peak * slack);
	}
}

static cJSON *dev_extra(const struct gb_bench_result *r)
{
	cJSON *devs = cJSON_GetObjectItem(r->extra, "devices");

	assert_int_equal(cJSON_GetArraySize(devs), 1);
	return cJSON_GetArrayItem(devs, 0);
}

/* extra.devices[0].fits entry of a test, which always exists once the test ran */
static cJSON *fit_of(const struct gb_bench_result *r, const char *test)
{
	cJSON *f;

	cJSON_ArrayForEach(f, cJSON_GetObjectItem(dev_extra(r), "fits"))
		if (!strcmp(cJSON_GetObjectItem(f, "test")->valuestring, test))
			return f;
	fprintf(stderr, "no fit for %s\n", test);
	fail();
	return NULL;
}

/*
 * beta is a metric exactly when the fit entry has a number for it, and a
 * missing beta always says why.
 */
static void assert_beta_consistent(const struct gb_bench_result *r, const char *test)
{
	cJSON *f = fit_of(r, test), *beta = cJSON_GetObjectItem(f, "beta_gbps");
	char name[96];

	snprintf(name, sizeof(name), "%s_beta_gbps", test);
	if (cJSON_IsNumber(beta)) {
		assert_non_null(gb_bench_find_metric(r, name, 0));
	} else {
		assert_true(cJSON_IsNull(beta));
		assert_null(gb_bench_find_metric(r, name, 0));
		assert_true(cJSON_IsString(cJSON_GetObjectItem(f, "beta_note")));
		fprintf(stderr, "  %s: no beta: %s\n", test,
			cJSON_GetObjectItem(f, "beta_note")->valuestring);
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

/* A bidir half: a metric of its own samples, or a note saying why samples were dropped. */
static void assert_half(const struct gb_bench_result *r, const char *name)
{
	const struct gb_metric *m = gb_bench_find_metric(r, name, 0);
	cJSON *notes = cJSON_GetObjectItem(dev_extra(r), "notes");

	if (m) {
		assert_true(m->stats.n >= 1);
		assert_non_null(strstr(m->description, "twice as many copies"));
		return;
	}
	assert_true(cJSON_GetArraySize(notes) > 0);
}

static double dev0_memory_bytes(void)
{
	size_t free_b = 0, total_b = 0;

	cudaSetDevice(0);
	return cudaMemGetInfo(&free_b, &total_b) == cudaSuccess ? (double)total_b : 0;
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
		"h2d_ce_pageable_gbps",
		"d2h_ce_pageable_gbps", "d2d_ce_gbps", "d2d_sm_gbps", "d2d_ce_dram_gbps",
		"stream_copy_gbps", "stream_scale_gbps", "stream_add_gbps", "stream_triad_gbps",
	};
	struct fixture f;
	const struct gb_check *c;
	cJSON *not_run, *curve;

	(void)state;
	run_bandwidth(&f, args, (int)ARRAY_LEN(args));
	assert_int_equal(f.rc, 0);
	for (size_t i = 0; i < ARRAY_LEN(expect); i++)
		assert_metric(f.res, expect[i]);
	/* each half under a 2x interferer: present, or every dropped sample is noted */
	assert_half(f.res, "bidir_ce_pinned_h2d_gbps");
	assert_half(f.res, "bidir_ce_pinned_d2h_gbps");
	if (managed_supported()) {
		assert_metric(f.res, "h2d_ce_managed_gbps");
		assert_metric(f.res, "d2h_ce_managed_gbps");
		assert_metric(f.res, "h2d_sm_managed_gbps");
	}
	/*
	 * The sweep: 4K, 16K, 64K. Latency is fitted; beta of a sweep this short
	 * is noise (T1) and is reported only where the fit can pin it. Device
	 * tests at these sizes run from L2 (every GPU from sm_80 up has more
	 * than 64K of it), so they never report one.
	 */
	assert_non_null(gb_bench_find_metric(f.res, "h2d_ce_pinned_alpha_us", 0));
	assert_beta_consistent(f.res, "h2d_ce_pinned");
	assert_beta_consistent(f.res, "d2h_sm_pinned");
	assert_null(gb_bench_find_metric(f.res, "d2d_ce_beta_gbps", 0));
	assert_null(gb_bench_find_metric(f.res, "stream_triad_beta_gbps", 0));
	assert_non_null(strstr(cJSON_GetObjectItem(fit_of(f.res, "d2d_ce"), "beta_note")->valuestring,
			       "L2"));
	assert_true(f.res->n_series >= 14); /* every test above but the per-direction and DRAM views */
	assert_int_equal(f.res->series[0].n, 3);
	assert_sane_metrics(f.res);
	c = find_check(f.res, "data_verified");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	/* nothing of 64 MiB or more ran: the spread goal is skipped, never passed */
	c = find_check(f.res, "sample_spread");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_SKIPPED);
	/* the spread of every size is in the report */
	curve = cJSON_GetObjectItem(cJSON_GetObjectItem(dev_extra(f.res), "curves"), "h2d_ce_pinned");
	assert_int_equal(cJSON_GetArraySize(curve), 3);
	assert_true(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetArrayItem(curve, 2), "cv")));
	assert_true(cJSON_GetObjectItem(cJSON_GetArrayItem(curve, 2), "n")->valuedouble >= 3);
	/* where the host buffers and the thread went is recorded, whatever the machine */
	assert_non_null(cJSON_GetObjectItem(dev_extra(f.res), "host_node"));
	assert_true(cJSON_IsBool(cJSON_GetObjectItem(dev_extra(f.res), "cpus_pinned")));
	fprintf(stderr, "  host node %g, cpus pinned %d\n",
		cJSON_GetObjectItem(dev_extra(f.res), "host_node")->valuedouble,
		cJSON_IsTrue(cJSON_GetObjectItem(dev_extra(f.res), "cpus_pinned")));
	/* what was not run says why: SM copies cannot reach pageable memory */
	not_run = cJSON_GetObjectItem(dev_extra(f.res), "not_run");
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
	/* a reading under load is also a value the run's thresholds can judge */
	if (c->status != GB_STATUS_SKIPPED) {
		m = gb_bench_find_metric(f.res, "pcie_gen_under_load", 0);
		assert_non_null(m);
		assert_true(m->value >= 1 && m->value <= 6);
		m = gb_bench_find_metric(f.res, "pcie_width_under_load", 0);
		assert_non_null(m);
		assert_true(m->value >= 1 && m->value <= 32);
	}
	/* 64M and 256M were measured: the spread goal is judged, a warning at worst */
	c = find_check(f.res, "sample_spread");
	assert_non_null(c);
	fprintf(stderr, "  sample_spread: %s: %s\n", gb_status_name(c->status), c->message);
	assert_true(c->status == GB_STATUS_PASSED || c->status == GB_STATUS_WARNING);
	assert_beta_consistent(f.res, "h2d_ce_pinned");
	assert_beta_consistent(f.res, "d2d_sm");
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

/*
 * Out of device memory is one line naming the call's sizes and the memory
 * left, not "'e' failed": 3 x 64 GiB is more than any GPU here holds.
 */
static void test_oom_names_sizes(void **state)
{
	static const char *const args[] = { "--tests", "d2d", "--min-size", "64G", "--max-size",
					    "64G", "--samples", "3" };
	struct fixture f;

	(void)state;
	if (dev0_memory_bytes() >= 3 * 64.0 * 1024 * 1024 * 1024) {
		fprintf(stderr, "  this GPU holds 3 x 64 GiB: nothing to check\n");
		return;
	}
	run_bandwidth(&f, args, (int)ARRAY_LEN(args));
	assert_int_not_equal(f.rc, 0);
	assert_int_equal(f.res->status, GB_STATUS_ERROR);
	fprintf(stderr, "  %s\n", f.res->reason);
	assert_non_null(strstr(f.res->reason, "cannot allocate 3 x 64 GiB of device memory for "
					      "device 0: cudaErrorMemoryAllocation"));
	assert_non_null(strstr(f.res->reason, "free"));
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
		cmocka_unit_test(test_oom_names_sizes),
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
