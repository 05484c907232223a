/* SPDX-License-Identifier: MIT */
/*
 * test_stress_telemetry.c - the telemetry and verdict path of `gpubench
 * stress` (bench/stress/stress_health_math.c + stress_verdict_math.c) against
 * tests/fake_nvml, a scripted libnvidia-ml.so.1 with two H100s
 * (00000000:65:00.0 and 00000000:B3:00.0): throttle reasons, ECC
 * double-bit deltas, XIDs, temperatures and missing entry points are
 * scripted with FAKE_NVML_* and the per-GPU checks, the report's metrics and
 * the run's exit code are checked. No GPU is needed: this is the part of a
 * stress run that is not CUDA.
 *
 * GPUBENCH_TEST_FAKE_NVML names the fake; without it the tests fail rather
 * than skip, so a broken build cannot pass silently.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/device/nvml.h"
#include "bench/stress/stress_math.h"
#include "report/exitcodes.h"
#include "report/result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define BUS0 "00000000:65:00.0"
#define BUS1 "00000000:B3:00.0"

static const char *const fake_vars[] = {
	"FAKE_NVML_FAIL_INIT", "FAKE_NVML_MISSING", "FAKE_NVML_TEMP_C", "FAKE_NVML_POWER_W",
	"FAKE_NVML_REASONS",   "FAKE_NVML_ECC_DBE", "FAKE_NVML_XIDS",   "FAKE_NVML_NVSWITCH",
	"FAKE_NVML_VIOL_POWER_NS", "FAKE_NVML_VIOL_THERMAL_NS", "FAKE_NVML_ABSENT",
};

static int setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(fake_vars); i++)
		unsetenv(fake_vars[i]);
	return 0;
}

static int teardown(void **state)
{
	gb_nvml_unload();
	return setup(state);
}

static void load_fake(void)
{
	const char *p = getenv("GPUBENCH_TEST_FAKE_NVML");
	char err[256];

	if (!p || !*p)
		fail_msg("GPUBENCH_TEST_FAKE_NVML is not set: build the fake_nvml target");
	assert_int_equal(gb_nvml_load(p, err, sizeof(err)), 0);
}

/* What a stress run's monitor does over a 40 s run: two GPUs at 700 TFLOP/s. */
struct fixture {
	struct gb_stress_obs obs[2];
	struct gb_telemetry_sample last[2];
	size_t answered;
	size_t xids;
};

/* counters: read NVML's violation counters at the load's start (t 0) and end (t 40 s) */
static void observe_run(struct fixture *f, const char *bus1, bool counters)
{
	const char *const pci[2] = { BUS0, bus1 };
	const double tflops[2] = { 700.0, 690.0 };
	struct gb_stress_monitor m;

	for (int i = 0; i < 2; i++) {
		gb_stress_obs_init(&f->obs[i], i);
		f->obs[i].ran = true;
		f->obs[i].abft_on = f->obs[i].exact_on = f->obs[i].repeat_on = true;
		f->obs[i].gemms = 1000;
		f->obs[i].batches = 40;
	}
	assert_int_equal(gb_stress_monitor_begin(&m, pci, f->obs, 2,
						 GB_CLK_HW_SLOWDOWN | GB_CLK_SW_THERMAL |
							 GB_CLK_HW_THERMAL |
							 GB_CLK_HW_POWER_BRAKE),
			 0);
	f->answered = 0;
	f->xids = 0;
	for (int i = 0; counters && i < 2; i++)
		gb_stress_viol_read(&f->obs[i].viol, pci[i], false, 100.0);
	for (int t = 1; t <= 40; t++) {
		f->answered += gb_stress_monitor_sample(&m, t, tflops, f->last);
		for (int i = 0; i < 2; i++)
			gb_stress_obs_add_throughput(&f->obs[i], 0, t, tflops[i]);
		f->xids += gb_stress_monitor_poll_xids(&m, 0);
	}
	for (int i = 0; counters && i < 2; i++)
		gb_stress_viol_read(&f->obs[i].viol, pci[i], true, 140.0);
	gb_stress_monitor_end(&m);
}

static void observe(struct fixture *f, const char *bus1)
{
	observe_run(f, bus1, false);
}

static void release(struct fixture *f)
{
	for (int i = 0; i < 2; i++)
		gb_stress_obs_release(&f->obs[i]);
}

static const struct gb_stress_check *check_of(const struct gb_stress_obs *o, const char *name,
					      struct gb_stress_check *c, size_t max)
{
	struct gb_stress_thresholds th;
	size_t n;

	gb_stress_thresholds_default(&th);
	n = gb_stress_judge(o, &th, NULL, c, max);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return &c[i];
	fail_msg("no check '%s'", name);
	return NULL;
}

static enum gb_status status_of(const struct gb_stress_obs *o, const char *name)
{
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];

	return check_of(o, name, c, ARRAY_LEN(c))->status;
}

/* The run verdict and exit code of one stress result built from both GPUs. */
static int exit_code_of(const struct fixture *f)
{
	struct gb_run run;
	struct gb_bench_result *b;
	const char *argv[] = { "gpubench", "stress" };
	int code;

	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	for (int i = 0; i < 2; i++) {
		struct gb_stress_thresholds th;
		struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
		size_t n;

		gb_stress_thresholds_default(&th);
		n = gb_stress_judge(&f->obs[i], &th, NULL, c, ARRAY_LEN(c));
		gb_stress_add_metrics(b, &f->obs[i]);
		gb_stress_add_checks(b, i, c, n);
	}
	gb_run_verdict(&run);
	code = gb_exit_code_for_status(run.verdict);
	gb_run_release(&run);
	return code;
}

static void test_clean_run(void **state)
{
	struct fixture f;

	(void)state;
	load_fake();
	observe(&f, BUS1);
	assert_int_equal(f.answered, 80);
	assert_int_equal(f.xids, 0);
	for (int i = 0; i < 2; i++) {
		const struct gb_stress_obs *o = &f.obs[i];

		assert_int_equal(o->n_samples, 40);
		assert_true(o->temp_max == 45);
		assert_true(o->power_max == 300);
		assert_true(o->have_health);
		assert_int_equal(o->xid_watch, 1);
		assert_string_equal(o->missing, "");
		assert_int_equal(status_of(o, "throttle"), GB_STATUS_PASSED);
		assert_int_equal(status_of(o, "power_cap"), GB_STATUS_PASSED);
		assert_int_equal(status_of(o, "temperature"), GB_STATUS_PASSED);
		assert_int_equal(status_of(o, "ecc_dbe"), GB_STATUS_PASSED);
		assert_int_equal(status_of(o, "row_remap"), GB_STATUS_PASSED);
		assert_int_equal(status_of(o, "pcie_replays"), GB_STATUS_PASSED);
		/* Hopper has no data CRC counter, but flit CRC and recovery read */
		assert_int_equal(status_of(o, "nvlink"), GB_STATUS_PASSED);
		assert_int_equal(status_of(o, "xid"), GB_STATUS_PASSED);
		assert_int_equal(status_of(o, "throughput_drop"), GB_STATUS_PASSED);
		assert_int_equal(status_of(o, "telemetry"), GB_STATUS_PASSED);
	}
	/* the sample handed back for the report is the device's own */
	assert_int_equal(f.last[1].device, 1);
	assert_true(f.last[1].t_s == 40);
	assert_true(f.last[1].tflops == 690);
	assert_true(f.last[1].sm_mhz == 1755);
	/* the cross-GPU layer was never run here: skipped, and the run passes */
	assert_int_equal(exit_code_of(&f), GB_EXIT_OK);
	release(&f);
}

static void test_hw_slowdown_fails(void **state)
{
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct fixture f;

	(void)state;
	setenv("FAKE_NVML_REASONS", "0x8", 1);
	load_fake();
	observe(&f, BUS1);
	assert_int_equal(f.obs[0].throttled_samples, 40);
	assert_int_equal(status_of(&f.obs[0], "throttle"), GB_STATUS_FAILED);
	assert_non_null(strstr(check_of(&f.obs[0], "throttle", c, ARRAY_LEN(c))->message,
			       "hw_slowdown 100.0%"));
	assert_int_equal(exit_code_of(&f), GB_EXIT_CHECK_FAILED);
	release(&f);
}

/* combined with the power cap, thermal slowdown still counts (a bitmask) */
static void test_thermal_with_power_cap_fails(void **state)
{
	struct fixture f;

	(void)state;
	setenv("FAKE_NVML_REASONS", "0x24", 1);
	load_fake();
	observe(&f, BUS1);
	assert_int_equal(status_of(&f.obs[1], "throttle"), GB_STATUS_FAILED);
	assert_int_equal(status_of(&f.obs[1], "power_cap"), GB_STATUS_WARNING);
	release(&f);
}

static void test_power_cap_warns(void **state)
{
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct fixture f;

	(void)state;
	setenv("FAKE_NVML_REASONS", "0x4", 1);
	load_fake();
	observe(&f, BUS1);
	assert_int_equal(status_of(&f.obs[0], "throttle"), GB_STATUS_PASSED);
	assert_int_equal(status_of(&f.obs[0], "power_cap"), GB_STATUS_WARNING);
	assert_non_null(strstr(check_of(&f.obs[0], "power_cap", c, ARRAY_LEN(c))->message,
			       "100.0% of the time"));
	/* a warning is not a failure: exit 0 */
	assert_int_equal(exit_code_of(&f), GB_EXIT_OK);
	release(&f);
}

static void test_ecc_dbe_fails(void **state)
{
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct fixture f;

	(void)state;
	setenv("FAKE_NVML_ECC_DBE", "1", 1);
	load_fake();
	observe(&f, BUS1);
	assert_int_equal(f.obs[0].before.ecc_dbe_volatile, 0);
	assert_int_equal(f.obs[0].after.ecc_dbe_volatile, 1);
	assert_int_equal(status_of(&f.obs[0], "ecc_dbe"), GB_STATUS_FAILED);
	assert_int_equal(status_of(&f.obs[1], "ecc_dbe"), GB_STATUS_FAILED);
	assert_true(check_of(&f.obs[0], "ecc_dbe", c, ARRAY_LEN(c))->observed == 1);
	assert_int_equal(exit_code_of(&f), GB_EXIT_CHECK_FAILED);
	release(&f);
}

static void test_hardware_xid_fails(void **state)
{
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct fixture f;

	(void)state;
	setenv("FAKE_NVML_XIDS", "79", 1);
	load_fake();
	observe(&f, BUS1);
	assert_int_equal(f.xids, 1);
	assert_int_equal(f.obs[0].n_xids, 1);
	assert_int_equal(f.obs[0].xids[0], 79);
	assert_int_equal(status_of(&f.obs[0], "xid"), GB_STATUS_FAILED);
	assert_non_null(strstr(check_of(&f.obs[0], "xid", c, ARRAY_LEN(c))->message, "79"));
	/* the other GPU saw nothing */
	assert_int_equal(status_of(&f.obs[1], "xid"), GB_STATUS_PASSED);
	assert_int_equal(exit_code_of(&f), GB_EXIT_CHECK_FAILED);
	release(&f);
}

static void test_xid_on_second_gpu(void **state)
{
	struct fixture f;

	(void)state;
	setenv("FAKE_NVML_XIDS", "48:1", 1);
	load_fake();
	observe(&f, BUS1);
	assert_int_equal(status_of(&f.obs[0], "xid"), GB_STATUS_PASSED);
	assert_int_equal(status_of(&f.obs[1], "xid"), GB_STATUS_FAILED);
	release(&f);
}

/* XID 31 (an application's MMU fault) is not a hardware XID: a warning */
static void test_app_xid_warns(void **state)
{
	struct fixture f;

	(void)state;
	setenv("FAKE_NVML_XIDS", "31", 1);
	load_fake();
	observe(&f, BUS1);
	assert_int_equal(status_of(&f.obs[0], "xid"), GB_STATUS_WARNING);
	assert_int_equal(exit_code_of(&f), GB_EXIT_OK);
	release(&f);
}

static void test_hot_gpu_fails(void **state)
{
	struct fixture f;

	(void)state;
	setenv("FAKE_NVML_TEMP_C", "91", 1);
	load_fake();
	observe(&f, BUS1);
	assert_int_equal(status_of(&f.obs[0], "temperature"), GB_STATUS_FAILED);
	release(&f);
}

/* A partial NVML is a warning naming the fields, and the rules that need them skip. */
static void test_missing_fields_warn(void **state)
{
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct fixture f;
	const char *msg;

	(void)state;
	setenv("FAKE_NVML_MISSING",
	       "nvmlDeviceGetPowerUsage,nvmlDeviceGetFieldValues,nvmlDeviceGetTotalEccErrors,"
	       "nvmlDeviceGetCurrentClocksEventReasons",
	       1);
	load_fake();
	observe(&f, BUS1);
	assert_string_equal(f.obs[0].missing, "ecc_sbe,ecc_dbe,power_w,clock_event_reasons");
	msg = check_of(&f.obs[0], "telemetry", c, ARRAY_LEN(c))->message;
	assert_non_null(strstr(msg, "power_w"));
	assert_non_null(strstr(msg, "ecc_dbe"));
	assert_int_equal(status_of(&f.obs[0], "telemetry"), GB_STATUS_WARNING);
	assert_int_equal(status_of(&f.obs[0], "ecc_dbe"), GB_STATUS_SKIPPED);
	assert_int_equal(status_of(&f.obs[0], "throttle"), GB_STATUS_SKIPPED);
	assert_int_equal(status_of(&f.obs[0], "temperature"), GB_STATUS_PASSED);
	assert_int_equal(exit_code_of(&f), GB_EXIT_OK);
	release(&f);
}

static void test_no_xid_events(void **state)
{
	struct fixture f;

	(void)state;
	setenv("FAKE_NVML_MISSING", "nvmlDeviceRegisterEvents", 1);
	setenv("FAKE_NVML_XIDS", "79", 1);
	load_fake();
	observe(&f, BUS1);
	assert_int_equal(f.obs[0].xid_watch, 0);
	assert_int_equal(status_of(&f.obs[0], "xid"), GB_STATUS_SKIPPED);
	assert_non_null(strstr(f.obs[0].missing, "xid_events"));
	assert_int_equal(status_of(&f.obs[0], "telemetry"), GB_STATUS_WARNING);
	release(&f);
}

/* A GPU NVML does not know: no samples, no health, a warning; the other is fine. */
static void test_unknown_device(void **state)
{
	struct fixture f;

	(void)state;
	load_fake();
	observe(&f, "00000000:17:00.0");
	assert_int_equal(f.answered, 40);
	assert_int_equal(f.obs[1].n_samples, 0);
	assert_false(f.obs[1].have_health);
	/* events were opened for GPU 0 only */
	assert_int_equal(f.obs[0].xid_watch, 1);
	assert_int_equal(f.obs[1].xid_watch, 0);
	assert_int_equal(status_of(&f.obs[1], "xid"), GB_STATUS_SKIPPED);
	assert_int_equal(status_of(&f.obs[1], "telemetry"), GB_STATUS_WARNING);
	assert_int_equal(status_of(&f.obs[1], "temperature"), GB_STATUS_SKIPPED);
	assert_int_equal(status_of(&f.obs[0], "telemetry"), GB_STATUS_PASSED);
	release(&f);
}

/* Without NVML at all: a warning, never a crash, never a pass of what was not read. */
static void test_no_nvml(void **state)
{
	struct fixture f;

	(void)state;
	observe(&f, BUS1);
	assert_int_equal(f.answered, 0);
	assert_false(f.obs[0].nvml);
	assert_string_equal(f.obs[0].missing, "nvml");
	assert_int_equal(status_of(&f.obs[0], "telemetry"), GB_STATUS_WARNING);
	assert_int_equal(status_of(&f.obs[0], "throttle"), GB_STATUS_SKIPPED);
	assert_int_equal(status_of(&f.obs[0], "xid"), GB_STATUS_SKIPPED);
	assert_int_equal(status_of(&f.obs[0], "ecc_dbe"), GB_STATUS_SKIPPED);
	assert_int_equal(exit_code_of(&f), GB_EXIT_OK);
	release(&f);
}

/*
 * NVML's violation counters give the exact shares: 10 s of 40 at the power
 * limit, 2 s in thermal slowdown, while no sample happened to catch either.
 * The exact ones decide: power_cap warns at 25 %, throttle fails at 5 %.
 */
static void test_exact_shares_decide(void **state)
{
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	const struct gb_stress_check *ck;
	struct gb_run run;
	struct gb_bench_result *b;
	const char *argv[] = { "gpubench", "stress" };
	struct fixture f;

	(void)state;
	setenv("FAKE_NVML_VIOL_POWER_NS", "10000000000", 1);
	setenv("FAKE_NVML_VIOL_THERMAL_NS", "2000000000", 1);
	load_fake();
	observe_run(&f, BUS1, true);
	assert_int_equal(f.obs[0].throttled_samples, 0);
	ck = check_of(&f.obs[0], "power_cap", c, ARRAY_LEN(c));
	assert_int_equal(ck->status, GB_STATUS_WARNING);
	assert_true(fabs(ck->observed - 0.25) < 1e-12);
	assert_non_null(strstr(ck->message, "25.0% of the time (exact, NVML violation counter)"));
	ck = check_of(&f.obs[1], "throttle", c, ARRAY_LEN(c));
	assert_int_equal(ck->status, GB_STATUS_FAILED);
	assert_true(fabs(ck->observed - 0.05) < 1e-12);
	assert_non_null(strstr(ck->message, "thermal slowdown 5.0% of the time (exact"));
	assert_int_equal(exit_code_of(&f), GB_EXIT_CHECK_FAILED);

	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_stress_add_metrics(b, &f.obs[1]);
	assert_true(fabs(gb_bench_find_metric(b, "throttle_power_share", 1)->value - 0.25) < 1e-12);
	assert_true(fabs(gb_bench_find_metric(b, "throttle_thermal_share", 1)->value - 0.05) <
		    1e-12);
	assert_string_equal(gb_bench_find_metric(b, "throttle_thermal_share", 1)->unit, "fraction");
	/* the sampled estimates stay in the report beside them */
	assert_true(gb_bench_find_metric(b, "power_cap_share", 1)->value == 0.0);
	gb_run_release(&run);
	release(&f);
}

/* Counters that read but did not grow: the exact zero wins over samples that saw the cap. */
static void test_exact_zero_beats_samples(void **state)
{
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	const struct gb_stress_check *ck;
	struct fixture f;

	(void)state;
	setenv("FAKE_NVML_REASONS", "0x4", 1);
	load_fake();
	observe_run(&f, BUS1, true);
	ck = check_of(&f.obs[0], "power_cap", c, ARRAY_LEN(c));
	assert_int_equal(ck->status, GB_STATUS_PASSED);
	assert_true(ck->observed == 0.0);
	release(&f);
}

/* A driver without the counters: quietly back to the samples, and null metrics. */
static void test_exact_absent_falls_back(void **state)
{
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	const struct gb_stress_check *ck;
	struct gb_run run;
	struct gb_bench_result *b;
	const char *argv[] = { "gpubench", "stress" };
	struct fixture f;

	(void)state;
	setenv("FAKE_NVML_ABSENT", "nvmlDeviceGetViolationStatus", 1);
	setenv("FAKE_NVML_REASONS", "0x4", 1);
	load_fake();
	observe_run(&f, BUS1, true);
	ck = check_of(&f.obs[0], "power_cap", c, ARRAY_LEN(c));
	assert_int_equal(ck->status, GB_STATUS_WARNING);
	assert_non_null(strstr(ck->message, "100.0% of the time (sampled)"));
	assert_int_equal(status_of(&f.obs[0], "throttle"), GB_STATUS_PASSED);
	/* not a telemetry gap worth a warning: the samples cover it */
	assert_string_equal(f.obs[0].missing, "");
	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_stress_add_metrics(b, &f.obs[0]);
	assert_true(isnan(gb_bench_find_metric(b, "throttle_power_share", 0)->value));
	assert_true(isnan(gb_bench_find_metric(b, "throttle_thermal_share", 0)->value));
	gb_run_release(&run);
	release(&f);
}

/* A GPU that could not run makes the run "could not run" (exit 3), never a pass. */
static void test_could_not_run(void **state)
{
	struct fixture f;

	(void)state;
	load_fake();
	observe(&f, BUS1);
	f.obs[1].ran = false;
	snprintf(f.obs[1].error, sizeof(f.obs[1].error), "hung: no progress for 30 s");
	assert_int_equal(exit_code_of(&f), GB_EXIT_CANNOT_RUN);
	/* a finding on the other GPU wins: exit 1 */
	f.obs[0].abft_mismatches = 1;
	assert_int_equal(exit_code_of(&f), GB_EXIT_CHECK_FAILED);
	release(&f);
}

/* The metrics a report carries for one GPU. */
static void test_metrics(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b;
	const char *argv[] = { "gpubench", "stress" };
	struct fixture f;
	struct gb_metric *m;

	(void)state;
	setenv("FAKE_NVML_REASONS", "0x4", 1);
	setenv("FAKE_NVML_ECC_DBE", "3", 1);
	load_fake();
	observe(&f, BUS1);
	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_stress_add_metrics(b, &f.obs[1]);
	m = gb_bench_find_metric(b, "tflops", 1);
	assert_non_null(m);
	assert_int_equal(m->n_samples, 40);
	assert_true(m->value == 690);
	assert_true(gb_bench_find_metric(b, "tflops_settled", 1)->value == 690);
	assert_true(gb_bench_find_metric(b, "temp_c_max", 1)->value == 45);
	assert_true(gb_bench_find_metric(b, "power_w_mean", 1)->value == 300);
	assert_true(gb_bench_find_metric(b, "sm_mhz_mean", 1)->value == 1755);
	assert_true(gb_bench_find_metric(b, "power_cap_share", 1)->value == 1.0);
	assert_true(gb_bench_find_metric(b, "throttle_share", 1)->value == 0.0);
	assert_true(gb_bench_find_metric(b, "ecc_dbe_delta", 1)->value == 3);
	assert_true(gb_bench_find_metric(b, "xid_count", 1)->value == 0);
	assert_true(gb_bench_find_metric(b, "repeat_mismatches", 1)->value == 0);
	assert_int_equal(b->n_series, 1);
	assert_int_equal(b->series[0].n, 40);
	assert_int_equal(b->series[0].device, 1);
	gb_run_release(&run);
	release(&f);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_clean_run),
		T(test_hw_slowdown_fails),
		T(test_thermal_with_power_cap_fails),
		T(test_power_cap_warns),
		T(test_ecc_dbe_fails),
		T(test_hardware_xid_fails),
		T(test_xid_on_second_gpu),
		T(test_app_xid_warns),
		T(test_hot_gpu_fails),
		T(test_missing_fields_warn),
		T(test_no_xid_events),
		T(test_unknown_device),
		T(test_no_nvml),
		T(test_could_not_run),
		T(test_metrics),
		T(test_exact_shares_decide),
		T(test_exact_zero_beats_samples),
		T(test_exact_absent_falls_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
