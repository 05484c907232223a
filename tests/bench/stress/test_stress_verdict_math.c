/* SPDX-License-Identifier: MIT */
/*
 * test_stress_verdict_math.c - unit tests for `gpubench stress`'s
 * verdict (bench/stress/stress_verdict_math.c, bench/stress/stress_obs_math.c): every rule
 * on synthetic observations, triggering and not, the clock-event and
 * violation-counter shares, the throughput series, and the metrics.
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

#include "tests/bench/stress/stress_test_util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ======================================================================= */
/* verdict rules                                                           */

/* A GPU that ran 100 s cleanly with full telemetry at 1 TFLOP/s per second. */
static void obs_clean(struct gb_stress_obs *o)
{
	struct gb_telemetry_sample s;

	gb_stress_obs_init(o, 0);
	o->ran = true;
	o->abft_on = o->exact_on = o->repeat_on = o->cross_on = true;
	o->gemms = 5000;
	o->batches = 200;
	o->cross = GB_CROSS_AGREE;
	o->nvml = true;
	o->xid_watch = 1;
	o->have_health = true;
	memset(&o->before, 0, sizeof(o->before));
	memset(&o->after, 0, sizeof(o->after));
	o->before.nvlink_crc_errors = o->after.nvlink_crc_errors = -1;
	o->before.nvlink_replay_errors = o->after.nvlink_replay_errors = -1;
	o->before.nvlink_recovery_errors = o->after.nvlink_recovery_errors = -1;
	memset(&s, 0, sizeof(s));
	s.temp_c = 70;
	s.power_w = 600;
	s.sm_mhz = 1755;
	s.mem_mhz = 2619;
	s.util_pct = 100;
	s.mem_used_bytes = 7e10;
	s.have_reasons = true;
	for (int t = 1; t <= 100; t++) {
		gb_stress_obs_add_sample(o, &s);
		gb_stress_obs_add_throughput(o, 0, t, 700.0 + (t % 3));
	}
}

static const struct gb_stress_check *find(const struct gb_stress_check *c, size_t n,
					  const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return &c[i];
	fail_msg("no check '%s'", name);
	return NULL;
}

static enum gb_status status_of(const struct gb_stress_obs *o, const char *name, double peer)
{
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	size_t n;

	gb_stress_thresholds_default(&th);
	{
		const double best[GB_STRESS_MAX_SERIES] = { peer, peer };

		n = gb_stress_judge(o, &th, isnan(peer) ? NULL : best, c, ARRAY_LEN(c));
	}
	return find(c, n, name)->status;
}

static void test_verdict_clean(void **state)
{
	static const char *const passed[] = { "could_run", "cuda_error", "abft", "exact", "repeat",
					      "cross_gpu", "nan", "temperature", "throttle",
					      "power_cap", "ecc_dbe", "ecc_sbe", "row_remap",
					      "retired_pages", "pcie_replays", "xid",
					      "throughput_drop", "telemetry" };
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct gb_stress_obs o;
	size_t n;

	(void)state;
	obs_clean(&o);
	gb_stress_thresholds_default(&th);
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	for (size_t i = 0; i < ARRAY_LEN(passed); i++) {
		const struct gb_stress_check *k = find(c, n, passed[i]);

		if (k->status != GB_STATUS_PASSED)
			fail_msg("%s: %s", k->name, k->message);
	}
	/* no NVLink counters, no peer: skipped, never passed */
	assert_int_equal(find(c, n, "nvlink")->status, GB_STATUS_SKIPPED);
	assert_int_equal(find(c, n, "peer_throughput")->status, GB_STATUS_SKIPPED);
	assert_true(fabs(gb_stress_settled(&o, 0) - 701) < 1.01);
	/* a bounded output: fewer slots than rules is no overflow */
	assert_int_equal(gb_stress_judge(&o, &th, NULL, c, 3), 3);
	gb_stress_obs_release(&o);
}

static void test_verdict_could_not_run(void **state)
{
	struct gb_stress_obs o;

	(void)state;
	gb_stress_obs_init(&o, 2);
	snprintf(o.error, sizeof(o.error), "hung: no progress for 31 s");
	assert_int_equal(status_of(&o, "could_run", NAN), GB_STATUS_ERROR);
	assert_int_equal(status_of(&o, "abft", NAN), GB_STATUS_SKIPPED);
	/* no verified result without a reason is still not a pass */
	o.error[0] = '\0';
	assert_int_equal(status_of(&o, "could_run", NAN), GB_STATUS_ERROR);
	assert_int_equal(status_of(&o, "nan", NAN), GB_STATUS_SKIPPED);
	/* a sticky CUDA error is a finding */
	obs_clean(&o);
	snprintf(o.cuda_failure, sizeof(o.cuda_failure), "cudaErrorIllegalAddress after 12 s");
	assert_int_equal(status_of(&o, "cuda_error", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);
}

static void test_verdict_layers(void **state)
{
	struct gb_stress_obs o;

	(void)state;
	obs_clean(&o);
	o.abft_mismatches = 2;
	assert_int_equal(status_of(&o, "abft", NAN), GB_STATUS_FAILED);
	o.exact_mismatches = 1;
	assert_int_equal(status_of(&o, "exact", NAN), GB_STATUS_FAILED);
	o.repeat_mismatches = 1;
	assert_int_equal(status_of(&o, "repeat", NAN), GB_STATUS_FAILED);
	o.nan_count = 3;
	assert_int_equal(status_of(&o, "nan", NAN), GB_STATUS_FAILED);
	o.abft_on = false;
	assert_int_equal(status_of(&o, "abft", NAN), GB_STATUS_SKIPPED);
	o.cross = GB_CROSS_OUTLIER;
	assert_int_equal(status_of(&o, "cross_gpu", NAN), GB_STATUS_FAILED);
	/* no majority: not this GPU's failure (gb_stress_cross_tie fails the run) */
	o.cross = GB_CROSS_UNDECIDED;
	assert_int_equal(status_of(&o, "cross_gpu", NAN), GB_STATUS_WARNING);
	o.cross = GB_CROSS_NONE;
	assert_int_equal(status_of(&o, "cross_gpu", NAN), GB_STATUS_SKIPPED);
	o.cross_on = false;
	assert_int_equal(status_of(&o, "cross_gpu", NAN), GB_STATUS_SKIPPED);
	/* memtest mode judges memory errors instead */
	o.memtest = true;
	assert_int_equal(status_of(&o, "memtest", NAN), GB_STATUS_PASSED);
	o.mem_errors = 1;
	assert_int_equal(status_of(&o, "memtest", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);
}

/*
 * A GPU that produced mismatches and then hung: the mismatches are findings
 * (FAILED, exit 1), the hang is could-not-run (ERROR), and FAILED decides
 * the GPU's verdict. The layers that stayed clean are not passes: the load
 * did not finish.
 */
static const char *message_of(const struct gb_stress_obs *o, const char *name,
			      struct gb_stress_check *c)
{
	struct gb_stress_thresholds th;
	size_t n;

	gb_stress_thresholds_default(&th);
	n = gb_stress_judge(o, &th, NULL, c, GB_STRESS_MAX_CHECKS);
	return find(c, n, name)->message;
}

/* A failing abft or exact check names the first element located and its flipped bit. */
static void test_verdict_names_element(void **state)
{
	struct gb_stress_obs o;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct gb_stress_corrupt e;

	(void)state;
	obs_clean(&o);
	o.abft_mismatches = 4;
	o.exact_mismatches = 2;
	/* nothing located (several rows and columns fail): the count alone */
	assert_string_equal(message_of(&o, "abft", c),
			    "4 row or column checksums outside the rounding-error bound");
	corrupt_example(&e, 128);
	gb_stress_corrupt_add(&o.abft_first, &e);
	assert_string_equal(message_of(&o, "abft", c),
			    "4 row or column checksums outside the rounding-error bound; first at "
			    "row 128, column 128 (batch 4): bit 30 (exponent) flipped, expected "
			    "0.939407 got 3.19664e+38; 1 element located");
	assert_string_equal(message_of(&o, "exact", c),
			    "2 checksums of exact integer products differ");
	gb_stress_corrupt_add(&o.exact_first, &e);
	assert_non_null(strstr(message_of(&o, "exact", c), "differ; first at row 128, column 128"));
	assert_int_equal(find(c, GB_STRESS_MAX_CHECKS, "exact")->status, GB_STATUS_FAILED);
	gb_stress_obs_release(&o);
}

/*
 * Two GPUs that differ with no majority: neither is failed as the culprit
 * (a warning each); the run's own check fails and says which GPUs differ.
 */
static void test_cross_tie(void **state)
{
	struct gb_stress_obs o[3];
	struct gb_stress_check c;

	(void)state;
	for (int i = 0; i < 3; i++) {
		obs_clean(&o[i]);
		o[i].device = i;
	}
	assert_int_equal(gb_stress_cross_tie(o, 3, &c), 0);
	o[0].cross = o[1].cross = GB_CROSS_UNDECIDED;
	assert_int_equal(status_of(&o[0], "cross_gpu", NAN), GB_STATUS_WARNING);
	assert_int_equal(status_of(&o[1], "cross_gpu", NAN), GB_STATUS_WARNING);
	assert_int_equal(gb_stress_cross_tie(o, 2, &c), 1);
	assert_int_equal(c.status, GB_STATUS_FAILED);
	assert_string_equal(c.name, "cross_gpu");
	assert_string_equal(c.message,
			    "GPUs 0 and 1 computed different results and no majority names the "
			    "outlier");
	/* a GPU that failed its own checks is mentioned, not blamed for the tie */
	o[1].abft_mismatches = 3;
	assert_int_equal(gb_stress_cross_tie(o, 2, &c), 1);
	assert_string_equal(c.message,
			    "GPUs 0 and 1 computed different results and no majority names the "
			    "outlier; GPU 1 failed its own checks");
	/* a three-way split */
	o[2].cross = GB_CROSS_UNDECIDED;
	o[0].exact_mismatches = 1;
	assert_int_equal(gb_stress_cross_tie(o, 3, &c), 1);
	assert_string_equal(c.message,
			    "GPUs 0, 1 and 2 computed different results and no majority names the "
			    "outlier; GPUs 0 and 1 failed their own checks");
	/* an outlier is its own GPU's failure; --no-cross turns the rule off */
	o[0].cross = o[1].cross = o[2].cross = GB_CROSS_AGREE;
	o[2].cross = GB_CROSS_OUTLIER;
	assert_int_equal(gb_stress_cross_tie(o, 3, &c), 0);
	o[2].cross = GB_CROSS_UNDECIDED;
	o[2].cross_on = false;
	assert_int_equal(gb_stress_cross_tie(o, 3, &c), 0);
	for (int i = 0; i < 3; i++)
		gb_stress_obs_release(&o[i]);
}

static void test_verdict_hung_after_mismatches(void **state)
{
	static const char *const unfinished[] = { "exact", "nan", "throughput_drop" };
	const char *argv[] = { "gpubench", "stress" };
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct gb_stress_obs o;
	struct gb_run run;
	struct gb_bench_result *b;
	size_t n;

	(void)state;
	gb_stress_thresholds_default(&th);
	obs_clean(&o);
	snprintf(o.error, sizeof(o.error), "hung: no progress for 31 s (limit 30 s)");
	o.abft_mismatches = 3;
	o.repeat_mismatches = 2;
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "could_run")->status, GB_STATUS_ERROR);
	assert_int_equal(find(c, n, "abft")->status, GB_STATUS_FAILED);
	assert_true(find(c, n, "abft")->observed == 3);
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_FAILED);
	for (size_t i = 0; i < ARRAY_LEN(unfinished); i++) {
		const struct gb_stress_check *k = find(c, n, unfinished[i]);

		if (k->status != GB_STATUS_SKIPPED)
			fail_msg("%s: %s", k->name, k->message);
	}
	assert_non_null(strstr(find(c, n, "exact")->message, "200 batches verified"));
	/* the hang is not "no CUDA error" */
	for (size_t i = 0; i < n; i++)
		assert_false(!strcmp(c[i].name, "cuda_error") && c[i].status == GB_STATUS_PASSED);
	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_stress_add_checks(b, 0, c, n);
	assert_int_equal(b->status, GB_STATUS_FAILED);
	gb_run_release(&run);

	/* hung while making the references (no batch yet): a checksum mismatch still fails */
	o.ran = false;
	o.batches = 0;
	o.repeat_mismatches = 0;
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "abft")->status, GB_STATUS_FAILED);
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_SKIPPED);

	/* hung with no mismatch: nothing passes, the verdict is could-not-run */
	o.ran = true;
	o.batches = 200;
	o.abft_mismatches = 0;
	o.nan_count = 0;
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "abft")->status, GB_STATUS_SKIPPED);
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_SKIPPED);
	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_stress_add_checks(b, 0, c, n);
	assert_int_equal(b->status, GB_STATUS_ERROR);
	gb_run_release(&run);
	gb_stress_obs_release(&o);
}

static void add_reason_samples(struct gb_stress_obs *o, uint64_t reasons, int n)
{
	struct gb_telemetry_sample s;

	memset(&s, 0, sizeof(s));
	s.temp_c = s.power_w = s.sm_mhz = s.mem_mhz = s.util_pct = s.mem_used_bytes = NAN;
	s.have_reasons = true;
	s.clock_event_reasons = reasons;
	for (int i = 0; i < n; i++)
		gb_stress_obs_add_sample(o, &s);
}

static void test_verdict_throttle(void **state)
{
	struct gb_stress_obs o;

	(void)state;
	/* 1 in 101 samples: a single sample is not a trend */
	obs_clean(&o);
	add_reason_samples(&o, GB_CLK_HW_SLOWDOWN, 1);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_PASSED);
	/* 3 in 103 (2.9%) with hw slowdown combined with the power cap: a bitmask, not equality */
	add_reason_samples(&o, GB_CLK_HW_SLOWDOWN | GB_CLK_SW_POWER_CAP, 2);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);

	/* each of DCGM's four counts */
	for (int b = 0; b < 4; b++) {
		static const uint64_t bits[] = { GB_CLK_HW_SLOWDOWN, GB_CLK_SW_THERMAL,
						 GB_CLK_HW_THERMAL, GB_CLK_HW_POWER_BRAKE };

		obs_clean(&o);
		add_reason_samples(&o, bits[b], 5);
		assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_FAILED);
		gb_stress_obs_release(&o);
	}

	/* the power cap warns and does not fail */
	obs_clean(&o);
	add_reason_samples(&o, GB_CLK_SW_POWER_CAP, 50);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_PASSED);
	assert_int_equal(status_of(&o, "power_cap", NAN), GB_STATUS_WARNING);
	gb_stress_obs_release(&o);

	/* no reasons read: skipped */
	gb_stress_obs_init(&o, 0);
	o.ran = true;
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_SKIPPED);
	assert_int_equal(status_of(&o, "temperature", NAN), GB_STATUS_SKIPPED);
	gb_stress_obs_release(&o);
}

/* delta ns / window ns: clamped, NaN for a failed read, an empty window or a reset counter */
static void test_time_share(void **state)
{
	(void)state;
	assert_true(gb_stress_time_share(true, 1000, true, 1250, 1000.0) == 0.25);
	assert_true(gb_stress_time_share(true, 5, true, 5, 1e9) == 0.0);
	/* a counter a little ahead of the clock: clamped, not 110 % */
	assert_true(gb_stress_time_share(true, 0, true, 1100, 1000.0) == 1.0);
	/* near the top of the 64-bit range the difference is still exact */
	assert_true(gb_stress_time_share(true, UINT64_MAX - 100, true, UINT64_MAX, 400.0) == 0.25);
	/* either read failed */
	assert_true(isnan(gb_stress_time_share(false, 0, true, 10, 100.0)));
	assert_true(isnan(gb_stress_time_share(true, 0, false, 10, 100.0)));
	/* went down: the driver was reloaded and the counter restarted, the delta is unknown */
	assert_true(isnan(gb_stress_time_share(true, 500, true, 100, 1000.0)));
	/* no window */
	assert_true(isnan(gb_stress_time_share(true, 0, true, 0, 0.0)));
	assert_true(isnan(gb_stress_time_share(true, 0, true, 0, -1.0)));
	assert_true(isnan(gb_stress_time_share(true, 0, true, 0, NAN)));
	assert_true(isnan(gb_stress_time_share(true, 0, true, 0, INFINITY)));
}

static void set_viol(struct gb_stress_viol *v, enum gb_nvml_viol k, uint64_t a, uint64_t b,
		     double window_s)
{
	v->start.ok[k] = v->end.ok[k] = true;
	v->start.ns[k] = a;
	v->end.ns[k] = b;
	v->start_s = 10.0;
	v->end_s = 10.0 + window_s;
}

static void test_viol_share(void **state)
{
	struct gb_stress_viol v;

	(void)state;
	gb_stress_viol_init(&v);
	assert_true(isnan(gb_stress_viol_share(&v, GB_VIOL_POWER)));
	set_viol(&v, GB_VIOL_THERMAL, 1000000000ULL, 3000000000ULL, 40.0);
	assert_true(fabs(gb_stress_viol_share(&v, GB_VIOL_THERMAL) - 0.05) < 1e-12);
	/* one counter read does not make the other known */
	assert_true(isnan(gb_stress_viol_share(&v, GB_VIOL_POWER)));
	assert_true(isnan(gb_stress_viol_share(&v, GB_VIOL_KINDS)));
	/* the end was never read (a GPU given up on) */
	v.end_s = NAN;
	assert_true(isnan(gb_stress_viol_share(&v, GB_VIOL_THERMAL)));
}

/* The exact counters in the verdict: preferred for the power cap, added for thermal. */
static void test_verdict_exact_shares(void **state)
{
	struct gb_stress_obs o;
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];

	(void)state;
	/* samples saw the cap half the time; the counter says 0.5 %: the counter wins */
	obs_clean(&o);
	add_reason_samples(&o, GB_CLK_SW_POWER_CAP, 50);
	set_viol(&o.viol, GB_VIOL_POWER, 0, 50000000ULL, 10.0);
	assert_int_equal(status_of(&o, "power_cap", NAN), GB_STATUS_PASSED);
	/* thermal slowdown 2 % of the time, between samples: fails without a sample count */
	set_viol(&o.viol, GB_VIOL_THERMAL, 0, 200000000ULL, 10.0);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_FAILED);
	/* ... unless sw_thermal is not in the mask the thresholds ask for */
	gb_stress_thresholds_default(&th);
	o.throttle_mask = GB_CLK_HW_SLOWDOWN;
	for (size_t i = 0, n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c)); i < n; i++)
		if (!strcmp(c[i].name, "throttle"))
			assert_int_equal(c[i].status, GB_STATUS_PASSED);
	o.throttle_mask = th.throttle_mask;
	/* below the limit, and the samples clean: passes */
	set_viol(&o.viol, GB_VIOL_THERMAL, 0, 50000000ULL, 10.0);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_PASSED);
	/* the samples still judge what the counters do not cover */
	add_reason_samples(&o, GB_CLK_HW_SLOWDOWN, 10);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);

	/* no samples with reasons, but the counters: the cap is judged, throttle fails only on
	 * an exact finding and is otherwise skipped (hw slowdown is unknown) */
	gb_stress_obs_init(&o, 0);
	o.ran = true;
	set_viol(&o.viol, GB_VIOL_POWER, 0, 5000000000ULL, 10.0);
	set_viol(&o.viol, GB_VIOL_THERMAL, 0, 0, 10.0);
	assert_int_equal(status_of(&o, "power_cap", NAN), GB_STATUS_WARNING);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_SKIPPED);
	set_viol(&o.viol, GB_VIOL_THERMAL, 0, 1000000000ULL, 10.0);
	assert_int_equal(status_of(&o, "throttle", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);
}

static void test_verdict_temperature(void **state)
{
	struct gb_stress_obs o;
	struct gb_telemetry_sample s;

	(void)state;
	obs_clean(&o);
	memset(&s, 0, sizeof(s));
	s.power_w = s.sm_mhz = s.mem_mhz = s.util_pct = s.mem_used_bytes = NAN;
	s.temp_c = 85;
	gb_stress_obs_add_sample(&o, &s);
	assert_int_equal(status_of(&o, "temperature", NAN), GB_STATUS_PASSED);
	s.temp_c = 86;
	gb_stress_obs_add_sample(&o, &s);
	assert_int_equal(status_of(&o, "temperature", NAN), GB_STATUS_FAILED);
	assert_true(o.temp_max == 86);
	gb_stress_obs_release(&o);
}

static void test_verdict_health(void **state)
{
	struct gb_stress_obs o;

	(void)state;
	obs_clean(&o);
	o.after.ecc_dbe_volatile = 1;
	assert_int_equal(status_of(&o, "ecc_dbe", NAN), GB_STATUS_FAILED);
	o.after.ecc_sbe_volatile = 4;
	assert_int_equal(status_of(&o, "ecc_sbe", NAN), GB_STATUS_WARNING);
	o.after.remap_pending = 1;
	assert_int_equal(status_of(&o, "row_remap", NAN), GB_STATUS_FAILED);
	o.after.remap_pending = 0;
	o.after.remap_failed = 1;
	assert_int_equal(status_of(&o, "row_remap", NAN), GB_STATUS_FAILED);
	o.after.remap_pending = o.after.remap_failed = -1;
	assert_int_equal(status_of(&o, "row_remap", NAN), GB_STATUS_SKIPPED);
	o.after.retired_pending = 1;
	assert_int_equal(status_of(&o, "retired_pages", NAN), GB_STATUS_FAILED);
	o.after.retired_pending = 0;
	o.after.retired_pages_dbe = 2;
	assert_int_equal(status_of(&o, "retired_pages", NAN), GB_STATUS_WARNING);
	o.after.pcie_replays = 81;
	assert_int_equal(status_of(&o, "pcie_replays", NAN), GB_STATUS_WARNING);
	o.after.pcie_replays = 80;
	assert_int_equal(status_of(&o, "pcie_replays", NAN), GB_STATUS_PASSED);
	o.before.nvlink_crc_errors = 0;
	o.after.nvlink_crc_errors = 101;
	assert_int_equal(status_of(&o, "nvlink", NAN), GB_STATUS_WARNING);
	o.after.nvlink_crc_errors = 100;
	assert_int_equal(status_of(&o, "nvlink", NAN), GB_STATUS_PASSED);
	o.before.nvlink_recovery_errors = 0;
	o.after.nvlink_recovery_errors = 1;
	assert_int_equal(status_of(&o, "nvlink", NAN), GB_STATUS_WARNING);
	/* unknown before or after: skipped */
	o.before.ecc_dbe_volatile = -1;
	assert_int_equal(status_of(&o, "ecc_dbe", NAN), GB_STATUS_SKIPPED);
	o.have_health = false;
	assert_int_equal(status_of(&o, "ecc_dbe", NAN), GB_STATUS_SKIPPED);
	gb_stress_obs_release(&o);
}

static void test_verdict_xid(void **state)
{
	struct gb_stress_obs o;

	(void)state;
	obs_clean(&o);
	gb_stress_obs_add_xid(&o, 31);
	assert_int_equal(status_of(&o, "xid", NAN), GB_STATUS_WARNING);
	gb_stress_obs_add_xid(&o, 79);
	assert_int_equal(status_of(&o, "xid", NAN), GB_STATUS_FAILED);
	o.xid_watch = 0;
	assert_int_equal(status_of(&o, "xid", NAN), GB_STATUS_SKIPPED);
	gb_stress_obs_release(&o);
}

static void test_verdict_throughput(void **state)
{
	struct gb_stress_obs o;
	double at;

	(void)state;
	/* settles at 700, then falls 20% in the last eighth */
	gb_stress_obs_init(&o, 0);
	o.ran = true;
	for (int t = 1; t <= 80; t++)
		gb_stress_obs_add_throughput(&o, 0, t, t > 70 ? 560 : 700);
	assert_true(gb_stress_settled(&o, 0) == 700);
	assert_true(fabs(gb_stress_drop(&o, 0, &at) - 0.2) < 1e-12);
	assert_true(at == 70);
	assert_int_equal(status_of(&o, "throughput_drop", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);

	/* a 5% dip passes; the warm-up (first quarter) does not count */
	gb_stress_obs_init(&o, 0);
	o.ran = true;
	for (int t = 1; t <= 80; t++)
		gb_stress_obs_add_throughput(&o, 0, t, t < 20 ? 300 : t > 60 ? 665 : 700);
	assert_int_equal(status_of(&o, "throughput_drop", NAN), GB_STATUS_PASSED);
	/* 12% slower than the best of the model fails; 8% passes */
	assert_int_equal(status_of(&o, "peer_throughput", 700 / 0.88), GB_STATUS_FAILED);
	assert_int_equal(status_of(&o, "peer_throughput", 700 / 0.92), GB_STATUS_PASSED);
	assert_int_equal(status_of(&o, "peer_throughput", 700), GB_STATUS_PASSED);
	gb_stress_obs_release(&o);

	/* too short to judge: skipped */
	gb_stress_obs_init(&o, 0);
	o.ran = true;
	for (int t = 1; t <= 6; t++)
		gb_stress_obs_add_throughput(&o, 0, t, 700);
	assert_true(isnan(gb_stress_settled(&o, 0)));
	assert_int_equal(status_of(&o, "throughput_drop", NAN), GB_STATUS_SKIPPED);
	assert_int_equal(status_of(&o, "peer_throughput", 700), GB_STATUS_SKIPPED);
	/* NaN and negative intervals are ignored */
	gb_stress_obs_add_throughput(&o, 0, 7, NAN);
	gb_stress_obs_add_throughput(&o, 0, 8, -1);
	assert_int_equal(o.tp[0].n, 6);
	gb_stress_obs_release(&o);
}

/*
 * --profile ramp: 25, 50, 75 and 100 % load in four steps. The lighter
 * steps idle between batches, so the GPU is cooler and boosts higher, and
 * device-time TFLOPS fall from step to step on a healthy GPU; only the
 * final, full-load step is judged. A fall inside it still fails.
 */
static void obs_ramp(struct gb_stress_obs *o, double last_late)
{
	const struct gb_stress_schedule s = { GB_PROFILE_RAMP, 400, 10, 0.5 };

	gb_stress_obs_init(o, 0);
	o->ran = true;
	o->steady_from_s = gb_stress_steady_from(&s);
	for (int t = 1; t <= 400; t++) {
		double v = t < 100   ? 820
			   : t < 200 ? 800
			   : t < 300 ? 750
			   : t > 385 ? last_late
				     : 700;

		gb_stress_obs_add_throughput(o, 0, t, v + (t % 3));
	}
}

static void test_verdict_ramp(void **state)
{
	struct gb_stress_schedule s = { GB_PROFILE_RAMP, 400, 10, 0.5 };
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	const struct gb_stress_check *k;
	struct gb_stress_obs o;
	double at;
	size_t n;

	(void)state;
	/* the final step of four starts at 3/4 of the duration; other profiles judge all of it */
	assert_true(gb_stress_steady_from(&s) == 300);
	assert_true(gb_stress_load_level(&s, gb_stress_steady_from(&s)) == 1.0);
	assert_true(gb_stress_load_level(&s, gb_stress_steady_from(&s) - 1e-9) < 1.0);
	s.profile = GB_PROFILE_PULSE;
	assert_true(gb_stress_steady_from(&s) == 0);
	s.profile = GB_PROFILE_SUSTAINED;
	assert_true(gb_stress_steady_from(&s) == 0);

	gb_stress_thresholds_default(&th);
	/* 800 at 50 % load and 700 at 100 %: 12.5 % apart, and healthy */
	obs_ramp(&o, 700);
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	k = find(c, n, "throughput_drop");
	if (k->status != GB_STATUS_PASSED)
		fail_msg("%s", k->message);
	/* settled is the final step's level, so peers compare full load with full load */
	assert_true(gb_stress_settled(&o, 0) >= 700 && gb_stress_settled(&o, 0) <= 702);
	gb_stress_obs_release(&o);

	/* a 20 % fall late in the final step fails, and says when */
	obs_ramp(&o, 560);
	assert_true(fabs(gb_stress_drop(&o, 0, &at) - 0.2) < 0.01);
	assert_true(at >= 375);
	assert_int_equal(status_of(&o, "throughput_drop", NAN), GB_STATUS_FAILED);
	gb_stress_obs_release(&o);

	/* stopped before the final step: nothing to judge, skipped with the reason */
	gb_stress_obs_init(&o, 0);
	o.ran = true;
	o.steady_from_s = 300;
	for (int t = 1; t <= 250; t++)
		gb_stress_obs_add_throughput(&o, 0, t, 700);
	assert_true(isnan(gb_stress_settled(&o, 0)));
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	k = find(c, n, "throughput_drop");
	assert_int_equal(k->status, GB_STATUS_SKIPPED);
	assert_non_null(strstr(k->message, "final, full-load step"));
	gb_stress_obs_release(&o);
}

static void test_verdict_telemetry(void **state)
{
	struct gb_stress_obs o;
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	size_t n;

	(void)state;
	obs_clean(&o);
	gb_stress_obs_missing(&o, "power_w");
	gb_stress_obs_missing(&o, "ecc_dbe");
	gb_stress_obs_missing(&o, "power_w");
	assert_string_equal(o.missing, "power_w,ecc_dbe");
	gb_stress_thresholds_default(&th);
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "telemetry")->status, GB_STATUS_WARNING);
	assert_non_null(strstr(find(c, n, "telemetry")->message, "power_w,ecc_dbe"));
	o.nvml = false;
	assert_int_equal(status_of(&o, "telemetry", NAN), GB_STATUS_WARNING);
	gb_stress_obs_release(&o);
}

/* The repeat rule with the self-check's outcome. */
static void test_verdict_repeat_pick(void **state)
{
	struct gb_stress_algo_pick fallback = { 8, 2, 1, { 40, 0 } };
	struct gb_stress_algo_pick none = { 2, 2, -1, { 3, 9 } };
	struct gb_stress_algo_pick first = { 8, 1, 0, { 0 } };
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct gb_stress_obs o;
	size_t n;

	(void)state;
	gb_stress_thresholds_default(&th);
	obs_clean(&o);
	gb_stress_obs_add_algo_pick(&o, &first, "fp64");
	gb_stress_obs_add_algo_pick(&o, &fallback, "fp16");
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	/* a fallback that repeats is still a pass, and says which */
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_PASSED);
	assert_non_null(strstr(find(c, n, "repeat")->message,
			       "no mismatch (fp16: algorithm 1 of 8 differed run to run"));
	assert_null(strstr(find(c, n, "repeat")->message, "fp64"));
	/* a phase that could not be compared is a warning, never a silent pass */
	gb_stress_obs_add_algo_pick(&o, &none, "bf16");
	assert_int_equal(o.repeat_uncompared, 1);
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_WARNING);
	assert_non_null(strstr(find(c, n, "repeat")->message, "1 phase could not be compared"));
	assert_non_null(strstr(find(c, n, "repeat")->message, "bf16: none of 2 algorithms"));
	/* mismatches in the compared phases still fail */
	o.repeat_mismatches = 4;
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_FAILED);
	/* and turned off is skipped whatever the self-check said */
	o.repeat_on = false;
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "repeat")->status, GB_STATUS_SKIPPED);
	gb_stress_obs_release(&o);
}

/*
 * --precision mixed: a series per precision, each judged against itself.
 * fp64 at 60 and fp16 at 700 TFLOP/s in the same intervals never make a
 * "drop"; a real fall of one of them fails and is named; peers compare
 * like with like.
 */
static void obs_mixed(struct gb_stress_obs *o, double fp16_late)
{
	static const char *const labels[] = { "fp64", "fp16" };

	gb_stress_obs_init(o, 0);
	gb_stress_obs_series(o, 2, labels);
	o->ran = true;
	for (int t = 1; t <= 80; t++) {
		gb_stress_obs_add_throughput(o, 0, t, 60.0 + (t % 2));
		gb_stress_obs_add_throughput(o, 1, t, t > 70 ? fp16_late : 700.0 + (t % 3));
	}
}

static void test_verdict_mixed_series(void **state)
{
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct gb_stress_obs o;
	const struct gb_stress_check *k;
	double peers[GB_STRESS_MAX_SERIES];
	char name[32];
	size_t n;

	(void)state;
	gb_stress_thresholds_default(&th);
	obs_mixed(&o, 700);
	assert_true(gb_stress_settled(&o, 0) >= 60 && gb_stress_settled(&o, 0) <= 61);
	assert_true(gb_stress_settled(&o, 1) >= 700 && gb_stress_settled(&o, 1) <= 702);
	assert_true(isnan(gb_stress_settled(&o, 2)));
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	k = find(c, n, "throughput_drop");
	if (k->status != GB_STATUS_PASSED)
		fail_msg("%s", k->message);
	assert_non_null(strstr(k->message, "fp64 60"));
	assert_non_null(strstr(k->message, "fp16 70"));
	gb_stress_obs_release(&o);

	/* fp16 falls 20% at the end: fails, named */
	obs_mixed(&o, 560);
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	k = find(c, n, "throughput_drop");
	assert_int_equal(k->status, GB_STATUS_FAILED);
	assert_non_null(strstr(k->message, "fp16 fell 20."));
	/* peers per series: fp64 12% behind the best fp64 fails even with fp16 level */
	peers[0] = 60.5 / 0.88;
	peers[1] = 701;
	n = gb_stress_judge(&o, &th, peers, c, ARRAY_LEN(c));
	k = find(c, n, "peer_throughput");
	assert_int_equal(k->status, GB_STATUS_FAILED);
	assert_non_null(strstr(k->message, "fp64 12."));
	peers[0] = 61;
	n = gb_stress_judge(&o, &th, peers, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "peer_throughput")->status, GB_STATUS_PASSED);
	/* a series without a peer value is not compared */
	peers[0] = peers[1] = NAN;
	n = gb_stress_judge(&o, &th, peers, c, ARRAY_LEN(c));
	assert_int_equal(find(c, n, "peer_throughput")->status, GB_STATUS_SKIPPED);
	/* throughput into a series the run does not have is ignored */
	gb_stress_obs_add_throughput(&o, 2, 1, 5);
	gb_stress_obs_add_throughput(&o, 7, 1, 5);
	assert_string_equal(gb_stress_series_name(&o, 0, name, sizeof(name)), "tflops_fp64");
	o.memtest = true;
	assert_string_equal(gb_stress_series_name(&o, 1, name, sizeof(name)), "mem_gbps_fp16");
	gb_stress_obs_release(&o);

	/* one unlabelled series: the plain names */
	gb_stress_obs_init(&o, 0);
	assert_int_equal(o.n_series, 1);
	assert_string_equal(gb_stress_series_name(&o, 0, name, sizeof(name)), "tflops");
	gb_stress_obs_series(&o, 9, NULL);
	assert_int_equal(o.n_series, GB_STRESS_MAX_SERIES);
	gb_stress_obs_release(&o);
}

/* Metrics of a mixed run: a metric set and a series per precision, and the ABFT ratio. */
static void test_metrics_mixed(void **state)
{
	const char *argv[] = { "gpubench", "stress" };
	struct gb_run run;
	struct gb_bench_result *b;
	struct gb_stress_obs o;
	const struct gb_metric *m;

	(void)state;
	obs_mixed(&o, 700);
	gb_stress_obs_add_abft_ratio(&o, 0.02);
	gb_stress_obs_add_abft_ratio(&o, NAN);
	gb_stress_obs_add_abft_ratio(&o, 0.005);
	gb_stress_obs_add_abft_ratio(&o, -1);
	assert_true(o.abft_max_ratio == 0.02);
	o.abft_on = true;
	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_stress_add_metrics(b, &o);
	assert_null(gb_bench_find_metric(b, "tflops", 0));
	m = gb_bench_find_metric(b, "tflops_fp64", 0);
	assert_non_null(m);
	assert_int_equal(m->n_samples, 80);
	assert_non_null(gb_bench_find_metric(b, "tflops_fp16_settled", 0));
	assert_non_null(gb_bench_find_metric(b, "tflops_fp16_min", 0));
	assert_int_equal(b->n_series, 2);
	assert_true(gb_bench_find_metric(b, "abft_max_ratio", 0)->value == 0.02);
	gb_run_release(&run);
	/* ABFT off: no ratio, null rather than 0 */
	o.abft_on = false;
	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_stress_add_metrics(b, &o);
	assert_true(isnan(gb_bench_find_metric(b, "abft_max_ratio", 0)->value));
	gb_run_release(&run);
	gb_stress_obs_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_clean),
		cmocka_unit_test(test_verdict_could_not_run),
		cmocka_unit_test(test_verdict_layers),
		cmocka_unit_test(test_verdict_names_element),
		cmocka_unit_test(test_cross_tie),
		cmocka_unit_test(test_verdict_hung_after_mismatches),
		cmocka_unit_test(test_verdict_throttle),
		cmocka_unit_test(test_time_share),
		cmocka_unit_test(test_viol_share),
		cmocka_unit_test(test_verdict_exact_shares),
		cmocka_unit_test(test_verdict_temperature),
		cmocka_unit_test(test_verdict_health),
		cmocka_unit_test(test_verdict_xid),
		cmocka_unit_test(test_verdict_throughput),
		cmocka_unit_test(test_verdict_ramp),
		cmocka_unit_test(test_verdict_telemetry),
		cmocka_unit_test(test_verdict_repeat_pick),
		cmocka_unit_test(test_verdict_mixed_series),
		cmocka_unit_test(test_metrics_mixed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
