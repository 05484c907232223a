/* SPDX-License-Identifier: MIT */
/*
 * bench_fixture.h - one benchmark run on device 0 (or devices 0..n-1),
 * driven through its public descriptor (defaults, option table, validate,
 * run) as cmd/ drives it; shared by every gpu-labelled benchmark test.
 *
 * The including test names its benchmark first, then includes this after
 * cmocka.h:
 *   extern const struct gb_bench gb_bench_gemm;
 *   #define GB_FIXTURE_BENCH gb_bench_gemm
 *   #include "bench_fixture.h"
 * Header-only (static inline) because tests/CMakeLists.txt builds each
 * gpu test from its own .c and gpu_test.c.
 */
#ifndef GPUBENCH_TESTS_GPU_BENCH_FIXTURE_H
#define GPUBENCH_TESTS_GPU_BENCH_FIXTURE_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/device/gpu.h"
#include "bench/device/nvml.h"
#include "cmd/cli.h"
#include "report/result.h"

#ifndef GB_FIXTURE_BENCH
#error "define GB_FIXTURE_BENCH (the benchmark descriptor) before including bench_fixture.h"
#endif

/* the most devices one fixture runs on (the size of its device list) */
#define GB_FIXTURE_MAX_DEVICES 64

/* the ctx's stop flag: a test sets it to interrupt a run */
static volatile sig_atomic_t stop_flag;

struct fixture {
	struct gb_run run;
	struct gb_ctx ctx;
	int devices[GB_FIXTURE_MAX_DEVICES];
	void *params;
	struct gb_bench_result *res;
	int rc; /* what the benchmark's run() returned */
};

static inline const struct gb_device_info *dev0(const struct fixture *f)
{
	for (size_t i = 0; i < f->run.n_devices; i++)
		if (f->run.devices[i].index == 0)
			return &f->run.devices[i];
	return NULL;
}

/*
 * Open a run on devices 0..n_dev-1 (what cmd/ passes without --devices).
 * NVML is left as the test has it: a test that wants no telemetry in its
 * runs does not load it.
 */
static inline void fixture_open_devices(struct fixture *f, int n_dev)
{
	const char *argv[] = { "gpubench", GB_FIXTURE_BENCH.name };
	char missing[256];

	memset(f, 0, sizeof(*f));
	stop_flag = 0;
	assert_true(n_dev >= 1 && n_dev <= GB_FIXTURE_MAX_DEVICES);
	gb_run_init(&f->run, GB_FIXTURE_BENCH.name, 2, argv);
	assert_int_equal(gb_devices_collect(&f->run, missing, sizeof(missing)), 0);
	assert_true(f->run.n_devices >= 1);
	for (int i = 0; i < n_dev; i++)
		f->devices[i] = i;
	f->ctx.run = &f->run;
	f->ctx.devices = f->devices;
	f->ctx.n_devices = (size_t)n_dev;
	f->ctx.stop = &stop_flag;
	f->ctx.run_start_s = gb_now_s();
	f->ctx.nvml = gb_nvml_loaded();
	f->params = calloc(1, GB_FIXTURE_BENCH.params_size);
	assert_non_null(f->params);
	GB_FIXTURE_BENCH.set_defaults(f->params);
}

/* open a run on device 0, with NVML when the machine has it so telemetry runs too */
static inline void fixture_open(struct fixture *f)
{
	char missing[256];

	if (!gb_nvml_loaded())
		gb_nvml_load(NULL, missing, sizeof(missing));
	fixture_open_devices(f, 1);
}

/* safe on a fixture that was zeroed and never opened */
static inline void fixture_close(struct fixture *f)
{
	free(f->params);
	gb_run_release(&f->run);
}

/* cmocka setup/teardown: *state is a zeroed fixture, closed afterwards whether it was opened or not */
static inline int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	*state = f;
	return f ? 0 : -1;
}

static inline int fixture_teardown(void **state)
{
	struct fixture *f = *state;

	fixture_close(f);
	free(f);
	return 0;
}

/* parse options as `gpubench <bench> ARGS...` would and add the result, without running */
static inline void fixture_parse(struct fixture *f, const char *const *args, int n)
{
	struct gb_opt_set set = { GB_FIXTURE_BENCH.opts, f->params };
	char err[256];
	size_t npos = 0;

	assert_int_equal(gb_cli_parse(&set, 1, n, args, NULL, 0, &npos), GB_CLI_OK);
	if (GB_FIXTURE_BENCH.validate(f->params, err, sizeof(err)))
		fail_msg("validate: %s", err);
	f->res = gb_run_add_bench(&f->run, GB_FIXTURE_BENCH.name);
	for (size_t i = 0; i < f->ctx.n_devices; i++)
		gb_bench_add_device(f->res, f->devices[i]);
}

/* parse, then run; returns the result (run()'s return value is in f->rc) */
static inline struct gb_bench_result *fixture_run(struct fixture *f, const char *const *args,
						  int n)
{
	fixture_parse(f, args, n);
	f->rc = GB_FIXTURE_BENCH.run(&f->ctx, f->params, f->res);
	if (f->rc)
		fprintf(stderr, "%s run failed: %s\n", GB_FIXTURE_BENCH.name,
			f->res->reason ? f->res->reason : "?");
	return f->res;
}

static inline const struct gb_check *find_check(const struct gb_bench_result *r,
						const char *name)
{
	for (size_t i = 0; i < r->n_checks; i++)
		if (!strcmp(r->checks[i].name, name))
			return &r->checks[i];
	return NULL;
}

/* the result on stderr, for a failing assertion's context */
static inline void dump(const struct gb_bench_result *r)
{
	fprintf(stderr, "status %s: %s\n", gb_status_name(r->status), r->reason ? r->reason : "");
	for (size_t i = 0; i < r->n_checks; i++)
		fprintf(stderr, "  check %s %s: %s\n", r->checks[i].name,
			gb_status_name(r->checks[i].status), r->checks[i].message);
	for (size_t i = 0; i < r->n_metrics; i++)
		fprintf(stderr, "  metric %s = %g %s\n", r->metrics[i].name, r->metrics[i].value,
			r->metrics[i].unit);
}

#endif
