/* SPDX-License-Identifier: MIT */
/*
 * test_thresholds.c - unit tests for report/thresholds.c: the built-in
 * rules of each profile, overrides from a thresholds file, malformed files
 * (one line naming the field, nothing changed), the warning for a GPU with
 * no known peak, peaks taken from the device when the metric has none, the
 * link-at-max rule, and "GPUs of the same model within 10%".
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
#include <unistd.h>

#include <cjson/cJSON.h>

#include "report/result.h"
#include "report/theory.h"
#include "report/thresholds.h"

/* ---- helpers ---- */

/* A run with n H100-like GPUs (names and peaks known unless anonymous). */
static struct gb_bench_result *make_run(struct gb_run *run, int n, const char *model,
					bool peaks, const char *bench)
{
	struct gb_bench_result *b;

	gb_run_init(run, "run", 0, NULL);
	for (int i = 0; i < n; i++) {
		struct gb_device_info *d = gb_run_add_device(run);

		d->index = i;
		d->name = gb_strdup(model);
		d->pcie_max_gen = 5;
		d->pcie_max_width = 16;
		if (peaks) {
			d->peaks.spec[GB_PREC_BF16] = 989.4e12;
			d->peaks.max_clock[GB_PREC_BF16] = 1070.5e12;
			d->peaks.mem_bw_bps_spec = 3350e9;
			d->peaks.pcie_bps = 63.015e9;
		}
	}
	b = gb_run_add_bench(run, bench);
	for (int i = 0; i < n; i++)
		gb_bench_add_device(b, i);
	return b;
}

static const struct gb_check *find_check(const struct gb_bench_result *b, const char *name,
					 int device)
{
	for (size_t i = 0; i < b->n_checks; i++)
		if (!strcmp(b->checks[i].name, name) && b->checks[i].device == device)
			return &b->checks[i];
	return NULL;
}

static void apply_profile(struct gb_run *run, const char *profile)
{
	struct gb_thresholds t;

	assert_int_equal(gb_thresholds_builtin(&t, profile), 0);
	gb_thresholds_apply(&t, run);
	gb_thresholds_release(&t);
}

/* thresholds from JSON text over the quick built-ins; returns gb_thresholds_from_json's rc */
static int from_text(struct gb_thresholds *t, const char *json, char *err, size_t errlen)
{
	cJSON *doc = cJSON_Parse(json);
	int rc;

	assert_non_null(doc);
	assert_int_equal(gb_thresholds_builtin(t, "quick"), 0);
	rc = gb_thresholds_from_json(t, doc, "t.json", err, errlen);
	cJSON_Delete(doc);
	return rc;
}

/* ---- built-ins ---- */

static void test_builtin_bf16(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = make_run(&run, 2, "NVIDIA H100 80GB HBM3", true, "gemm");
	const struct gb_check *c;

	(void)state;
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, 742, 989.4);
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 1, 614.4, 989.4);
	apply_profile(&run, "quick");
	c = find_check(b, "tflops_bf16_efficiency", 0);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	assert_true(fabs(c->threshold - 0.70) < 1e-12);
	c = find_check(b, "tflops_bf16_efficiency", 1);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_FAILED);
	assert_true(fabs(c->observed - 614.4 / 989.4) < 1e-12);
	assert_non_null(strstr(c->message, "tflops_bf16 on GPU 1 is 614.4 TFLOP/s, 62.1% of"));
	assert_non_null(strstr(c->message, "below 70%"));
	assert_int_equal(b->status, GB_STATUS_FAILED);
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_FAILED);
	gb_run_release(&run);
}

/* acceptance is stricter than quick */
static void test_profiles_differ(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b;
	struct gb_thresholds t;

	(void)state;
	b = make_run(&run, 1, "H", true, "gemm");
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, 712, 989.4);
	apply_profile(&run, "quick");
	assert_int_equal(find_check(b, "tflops_bf16_efficiency", 0)->status, GB_STATUS_PASSED);
	gb_run_release(&run);
	b = make_run(&run, 1, "H", true, "gemm");
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, 712, 989.4);
	apply_profile(&run, "acceptance");
	assert_int_equal(find_check(b, "tflops_bf16_efficiency", 0)->status, GB_STATUS_FAILED);
	gb_run_release(&run);
	assert_int_equal(gb_thresholds_builtin(&t, "nightly"), -1);
}

/* A metric without a peak of its own is measured against the device's. */
static void test_device_peaks(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = make_run(&run, 1, "H", true, "bandwidth");
	const struct gb_check *c;

	(void)state;
	gb_bench_add_value(b, "h2d_ce_pinned_gbps", "GB/s", GB_BETTER_HIGHER, 0, 40.0, NAN);
	gb_bench_add_value(b, "memory_copy_gbps", "GB/s", GB_BETTER_HIGHER, 0, 2900, NAN);
	gb_bench_add_value(b, "tflops_bf16_8192x8192x8192", "TFLOP/s", GB_BETTER_HIGHER, 0, 800,
			   NAN);
	apply_profile(&run, "quick");
	c = find_check(b, "h2d_ce_pinned_gbps_efficiency", 0);
	assert_int_equal(c->status, GB_STATUS_FAILED); /* 63% of the link, below 75% */
	assert_true(fabs(c->observed - 40.0 / 63.015) < 1e-9);
	assert_non_null(strstr(c->message, "PCIe"));
	c = find_check(b, "memory_copy_gbps_efficiency", 0);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	assert_true(fabs(c->observed - 2900.0 / 3350) < 1e-9);
	c = find_check(b, "tflops_bf16_8192x8192x8192_efficiency", 0);
	assert_true(fabs(c->observed - 800 / 989.4) < 1e-9);
	assert_true(fabs(c->threshold - 0.70) < 1e-12);
	assert_non_null(strstr(c->message, "spec-sheet"));
	gb_run_release(&run);
}

/* An unknown GPU still gets checked: a warning, never a silent skip. */
static void test_unknown_gpu_warns(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = make_run(&run, 1, "NVIDIA Mystery 9000", false, "gemm");
	const struct gb_check *c;

	(void)state;
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, 500, NAN);
	apply_profile(&run, "quick");
	c = find_check(b, "tflops_bf16_efficiency", 0);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_WARNING);
	assert_non_null(strstr(c->message, "no peak is known for 'NVIDIA Mystery 9000'"));
	assert_non_null(strstr(c->message, "relative checks still apply"));
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_WARNING);
	gb_run_release(&run);
}

/* Stress's throughputs name no precision: no TFLOPS check, and no false "no peak" warning. */
static void test_throughput_without_precision(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = make_run(&run, 1, "NVIDIA H100 80GB HBM3", true, "stress");

	(void)state;
	gb_bench_add_value(b, "tflops_settled", "TFLOP/s", GB_BETTER_HIGHER, 0, 700, NAN);
	gb_bench_add_value(b, "tflops_min", "TFLOP/s", GB_BETTER_HIGHER, 0, 650, NAN);
	apply_profile(&run, "quick");
	assert_null(find_check(b, "tflops_settled_efficiency", 0));
	assert_null(find_check(b, "tflops_min_efficiency", 0));
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_PASSED);
	gb_run_release(&run);
}

/*
 * A GPU not in the catalog is judged against its max-clock peaks, and a
 * spec_unknown warning per GPU says so (issue 9: "an unknown GPU still gets
 * the relative checks and a warning").
 */
static void test_spec_unknown_warns(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = make_run(&run, 2, "NVIDIA H800", false, "gemm");
	const struct gb_check *c;

	(void)state;
	for (int i = 0; i < 2; i++) {
		run.devices[i].sm_count = 132;
		run.devices[i].peaks.max_clock[GB_PREC_BF16] = 835.6e12;
		run.devices[i].peaks.mem_bw_bps = 3938e9;
		gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, i, 700, NAN);
		gb_bench_add_value(b, "memory_copy_gbps", "GB/s", GB_BETTER_HIGHER, i, 3400, NAN);
	}
	apply_profile(&run, "quick");
	c = find_check(b, "tflops_bf16_efficiency", 1);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	assert_non_null(strstr(c->message, "of the peak at max clock"));
	c = find_check(b, "spec_unknown", 1);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_WARNING);
	assert_string_equal(c->message,
			    "GPU 1 'NVIDIA H800' is not in the spec-sheet catalog: efficiency "
			    "is judged with TFLOPS against the peak at its max clock and memory "
			    "bandwidth against the bandwidth from its clocks");
	assert_non_null(find_check(b, "spec_unknown", 0));
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_WARNING);
	assert_int_equal(run.n_verdict_warnings, 2);
	gb_run_release(&run);
	/* a GPU with its spec sheet gets no such warning */
	b = make_run(&run, 1, "NVIDIA H100 80GB HBM3", true, "gemm");
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, 800, NAN);
	apply_profile(&run, "quick");
	assert_null(find_check(b, "spec_unknown", 0));
	gb_run_release(&run);
}

/*
 * A MIG slice (the parent's name, fewer SMs) has no spec sheet: compute is
 * judged at its own max clock; memory against the whole GPU's clocks is a
 * guide, so a miss there warns instead of failing.
 */
static void test_mig_slice(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = make_run(&run, 1, "NVIDIA H100 80GB HBM3", false, "gemm");
	const struct gb_check *c;

	(void)state;
	assert_null(gb_gpu_spec_match("NVIDIA H100 80GB HBM3", 60));
	run.devices[0].sm_count = 60;
	run.devices[0].peaks.max_clock[GB_PREC_BF16] = 60 * 4096 * 1980e6; /* 486.7 TFLOPS */
	run.devices[0].peaks.mem_bw_bps = 3352e9;
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, 360, NAN);
	gb_bench_add_value(b, "memory_copy_gbps", "GB/s", GB_BETTER_HIGHER, 0, 1500, NAN);
	apply_profile(&run, "quick");
	c = find_check(b, "tflops_bf16_efficiency", 0);
	assert_int_equal(c->status, GB_STATUS_PASSED); /* 74% of the slice, not 36% of 989 */
	c = find_check(b, "memory_copy_gbps_efficiency", 0);
	assert_int_equal(c->status, GB_STATUS_WARNING);
	assert_int_equal(c->severity, GB_SEV_WARNING);
	assert_non_null(strstr(c->message, "a partial GPU: a guide, not a limit"));
	c = find_check(b, "spec_unknown", 0);
	assert_non_null(c);
	assert_non_null(strstr(c->message, "GPU 0 'NVIDIA H100 80GB HBM3' has 60 SMs, not the 132 "
					   "of catalog entry 'h100-sxm' (a MIG slice"));
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_WARNING);
	gb_run_release(&run);
}

static void test_link_at_max_and_findings(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = make_run(&run, 2, "H", true, "bandwidth");
	const struct gb_check *c;

	(void)state;
	gb_bench_add_value(b, "pcie_gen", NULL, GB_BETTER_HIGHER, 0, 4, NAN);
	gb_bench_add_value(b, "pcie_width", NULL, GB_BETTER_HIGHER, 0, 16, NAN);
	gb_bench_add_value(b, "temp_c_max_bf16", "C", GB_BETTER_LOWER, 1, 93, NAN);
	gb_bench_add_value(b, "h2d_ce_pinned_gbps", "GB/s", GB_BETTER_HIGHER, 1, NAN, NAN);
	gb_bench_add_value(b, "h2d_ce_pageable_gbps", "GB/s", GB_BETTER_HIGHER, 1, 9, NAN);
	apply_profile(&run, "acceptance");
	c = find_check(b, "pcie_gen_at_max", 0);
	assert_int_equal(c->status, GB_STATUS_FAILED);
	assert_non_null(strstr(c->message, "pcie_gen on GPU 0 is 4 under load, below"));
	assert_int_equal(find_check(b, "pcie_width_at_max", 0)->status, GB_STATUS_PASSED);
	/* too hot is a warning, not a failure */
	assert_int_equal(find_check(b, "temp_c_max_bf16_max", 1)->status, GB_STATUS_WARNING);
	/* a value that is not there is never a pass: the check says it was skipped */
	assert_int_equal(find_check(b, "h2d_ce_pinned_gbps", 1)->status, GB_STATUS_SKIPPED);
	/* pageable copies are not judged against the link */
	assert_null(find_check(b, "h2d_ce_pageable_gbps_efficiency", 1));
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_FAILED);
	gb_run_release(&run);
}

/*
 * Only the copy engines from pinned memory are held to the link; SM copies,
 * managed memory and fitted asymptotes are reported, not judged. Bandwidth's
 * link readings under load meet the pcie_gen* and pcie_width* rules.
 */
static void test_host_copies_and_link_metrics(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = make_run(&run, 1, "H", true, "bandwidth");

	(void)state;
	gb_bench_add_value(b, "d2h_ce_pinned_gbps", "GB/s", GB_BETTER_HIGHER, 0, 55.0, NAN);
	gb_bench_add_value(b, "h2d_sm_pinned_gbps", "GB/s", GB_BETTER_HIGHER, 0, 35.0, NAN);
	gb_bench_add_value(b, "h2d_ce_managed_gbps", "GB/s", GB_BETTER_HIGHER, 0, 20.0, NAN);
	gb_bench_add_value(b, "h2d_ce_pinned_beta_gbps", "GB/s", GB_BETTER_HIGHER, 0, 30.0, NAN);
	gb_bench_add_value(b, "pcie_gen_under_load", "gen", GB_BETTER_HIGHER, 0, 4, NAN);
	gb_bench_add_value(b, "pcie_width_under_load", "lanes", GB_BETTER_HIGHER, 0, 16, NAN);
	apply_profile(&run, "quick");
	assert_int_equal(find_check(b, "d2h_ce_pinned_gbps_efficiency", 0)->status,
			 GB_STATUS_PASSED); /* 87% of 63 GB/s */
	assert_null(find_check(b, "h2d_sm_pinned_gbps_efficiency", 0));
	assert_null(find_check(b, "h2d_ce_managed_gbps_efficiency", 0));
	assert_null(find_check(b, "h2d_ce_pinned_beta_gbps_efficiency", 0));
	assert_int_equal(find_check(b, "pcie_gen_under_load_at_max", 0)->status, GB_STATUS_FAILED);
	assert_int_equal(find_check(b, "pcie_width_under_load_at_max", 0)->status,
			 GB_STATUS_PASSED);
	gb_run_release(&run);
}

/* Skipped benchmarks keep their reason; no checks are invented for them. */
static void test_skipped_untouched(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = make_run(&run, 1, "H", true, "p2p");

	(void)state;
	gb_bench_set_status(b, GB_STATUS_SKIPPED, "p2p needs 2 GPUs, found 1");
	apply_profile(&run, "quick");
	assert_int_equal(b->n_checks, 0);
	assert_int_equal(b->status, GB_STATUS_SKIPPED);
	gb_run_release(&run);
}

/* ---- same model ---- */

static void test_same_model_outlier(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = make_run(&run, 3, "NVIDIA H100 80GB HBM3", false, "gemm");
	const struct gb_check *c;

	(void)state;
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, 740, NAN);
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 1, 735, NAN);
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 2, 650, NAN);
	apply_profile(&run, "quick");
	c = find_check(b, "tflops_bf16_same_model", 2);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_FAILED);
	assert_true(fabs(c->observed - 90.0 / 740) < 1e-9);
	assert_non_null(strstr(c->message, "12.2% below GPU 0"));
	assert_null(find_check(b, "tflops_bf16_same_model", 1));
	/* the unknown GPU gets its relative check and a warning for the absolute one */
	assert_int_equal(find_check(b, "tflops_bf16_efficiency", 0)->status, GB_STATUS_WARNING);
	gb_run_release(&run);
}

static void test_same_model_passes_and_models_apart(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = make_run(&run, 3, "A", true, "gemm");
	const struct gb_check *c;

	(void)state;
	free(run.devices[2].name);
	run.devices[2].name = gb_strdup("B"); /* another model: never compared with A */
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, 740, 989.4);
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 1, 700, 989.4);
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 2, 300, 989.4);
	apply_profile(&run, "quick");
	c = find_check(b, "tflops_bf16_same_model", -1);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	assert_non_null(strstr(c->message, "2 A GPUs within 5.4%"));
	assert_null(find_check(b, "tflops_bf16_same_model", 2));
	gb_run_release(&run);
}

/* ---- the file ---- */

/* ---- limits follow the GEMM size that ran (issue 26) ---- */

/* one A100-like GPU (108 SMs, 312 TFLOP/s BF16) whose gemm ran n x n x n */
static struct gb_bench_result *gemm_at(struct gb_run *run, double n, int sms, double peak_tf,
				       double tflops)
{
	struct gb_bench_result *b = make_run(run, 1, "NVIDIA A100-SXM4-80GB", true, "gemm");

	run->devices[0].sm_count = sms;
	run->devices[0].peaks.spec[GB_PREC_BF16] = peak_tf * 1e12;
	gb_bench_param_num(b, "m", n);
	gb_bench_param_num(b, "n", n);
	gb_bench_param_num(b, "k", n);
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, tflops, NAN);
	apply_profile(run, "quick");
	return b;
}

/*
 * The finding: 2x-a100-nvlink's run halved its GEMMs to 2048^3 and failed
 * "196.1 TFLOP/s, 62.9% of its peak, below 70%". At 2048^3 on 108 SMs the
 * 128x128 tiles fill 2.37 waves (79% of them busy, against 97% at 8192^3)
 * and a 5 us fixed cost is 8% of the GEMM's time at the limit's rate.
 */
static void test_gemm_limit_follows_size(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = gemm_at(&run, 2048, 108, 312, 196.1);
	const struct gb_check *c = find_check(b, "tflops_bf16_efficiency", 0);
	double q = (256.0 / 108 / 3) / (4096.0 / 108 / 38);
	double t = 2 * 2048.0 * 2048 * 2048 / (312e12 * 0.7);

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	assert_true(fabs(c->threshold - 0.7 * q * t / (t + 5e-6)) < 1e-9);
	assert_non_null(strstr(c->message, "70% for 8192^3, scaled to the 2048x2048x2048 GEMM"));
	gb_run_release(&run);
	/* a slow GPU at that size still fails: half of what the size allows */
	b = gemm_at(&run, 2048, 108, 312, 0.25 * 312);
	c = find_check(b, "tflops_bf16_efficiency", 0);
	assert_int_equal(c->status, GB_STATUS_FAILED);
	gb_run_release(&run);
	/* at 8192^3 the limit is the written one */
	b = gemm_at(&run, 8192, 108, 312, 0.69 * 312);
	c = find_check(b, "tflops_bf16_efficiency", 0);
	assert_int_equal(c->status, GB_STATUS_FAILED);
	assert_true(fabs(c->threshold - 0.70) < 1e-12);
	gb_run_release(&run);
}

/* 1024^3 on 132 SMs: 64 tiles, under half the SMs busy: not judged, and says why */
static void test_gemm_too_small_not_judged(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = gemm_at(&run, 1024, 132, 989.4, 0.31 * 989.4);
	const struct gb_check *c = find_check(b, "tflops_bf16_efficiency", 0);

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_SKIPPED);
	assert_true(fabs(c->observed - 0.31) < 1e-9);
	assert_non_null(strstr(c->message, "not judged against 70%: a 1024x1024x1024 GEMM"));
	assert_int_equal(b->status, GB_STATUS_PASSED);
	gb_run_release(&run);
}

/* ---- traffic between GPUs judged by link type (issue 26) ---- */

static struct gb_bench_result *nccl_on(struct gb_run *run, const char *type, int p2p,
				       double busbw, double peak)
{
	struct gb_bench_result *b = make_run(run, 2, "NVIDIA GeForce RTX 4090", true, "nccl");
	struct gb_link *l = gb_run_add_link(run, 0, 1, type);

	l->p2p_access = p2p;
	l = gb_run_add_link(run, 1, 0, type);
	l->p2p_access = p2p;
	gb_bench_add_value(b, "allreduce_busbw_peak_gbps", "GB/s", GB_BETTER_HIGHER, -1, busbw,
			   peak);
	apply_profile(run, "quick");
	return b;
}

static void test_nccl_by_link_type(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b;
	const struct gb_check *c;

	(void)state;
	/* the finding: 3.3 GB/s, 10.6% of the link, through host memory: fails */
	b = nccl_on(&run, "pcie_host_bridge", 0, 3.3, 31.5);
	c = find_check(b, "allreduce_busbw_peak_gbps_efficiency", -1);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_FAILED);
	assert_true(fabs(c->threshold - 0.25) < 1e-12);
	gb_run_release(&run);
	/* a healthy pair without peer access: about 42% of the link */
	b = nccl_on(&run, "pcie_host_bridge", 0, 13.3, 31.5);
	assert_int_equal(find_check(b, "allreduce_busbw_peak_gbps_efficiency", -1)->status,
			 GB_STATUS_PASSED);
	gb_run_release(&run);
	/* with peer access the same 42% is too little */
	b = nccl_on(&run, "pcie_switch", 1, 13.3, 31.5);
	c = find_check(b, "allreduce_busbw_peak_gbps_efficiency", -1);
	assert_int_equal(c->status, GB_STATUS_FAILED);
	assert_true(fabs(c->threshold - 0.50) < 1e-12);
	gb_run_release(&run);
	/* NVLink: its own limit */
	b = nccl_on(&run, "nvlink", 1, 150, 300);
	c = find_check(b, "allreduce_busbw_peak_gbps_efficiency", -1);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	assert_true(fabs(c->threshold - 0.50) < 1e-12);
	gb_run_release(&run);
}

/* p2p's one-way copies against the pair's link; a file rule may name a link class */
static void test_p2p_by_link_type(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b = make_run(&run, 2, "NVIDIA A100-SXM4-80GB", true, "p2p");
	struct gb_thresholds t;
	char err[256];

	(void)state;
	gb_run_add_link(&run, 0, 1, "nvlink")->p2p_access = 1;
	gb_run_add_link(&run, 1, 0, "nvlink")->p2p_access = 1;
	gb_bench_add_value(b, "uni_ce_to_gpu1_gbps", "GB/s", GB_BETTER_HIGHER, 0, 255, 300);
	gb_bench_add_value(b, "uni_ce_to_gpu0_gbps", "GB/s", GB_BETTER_HIGHER, 1, 150, 300);
	apply_profile(&run, "quick");
	assert_int_equal(find_check(b, "uni_ce_to_gpu1_gbps_efficiency", 0)->status,
			 GB_STATUS_PASSED);
	assert_int_equal(find_check(b, "uni_ce_to_gpu0_gbps_efficiency", 1)->status,
			 GB_STATUS_FAILED);
	gb_run_release(&run);
	assert_int_equal(from_text(&t,
				   "{\"thresholds\": [{\"metric\": \"*busbw*\", \"link\": "
				   "\"nvlink\", \"min_efficiency\": 0.9}]}",
				   err, sizeof(err)),
			 0);
	assert_int_equal(t.rules[0].link, GB_LINK_NVLINK);
	gb_thresholds_release(&t);
	assert_int_equal(from_text(&t, "{\"thresholds\": [{\"metric\": \"x\", \"link\": "
				       "\"pci\", \"min_efficiency\": 0.9}]}",
				   err, sizeof(err)),
			 -1);
	assert_string_equal(err, "'t.json': thresholds[0].link must be one of any, nvlink, pcie, "
				 "pcie_host");
	gb_thresholds_release(&t);
}

static void test_file_overrides(void **state)
{
	struct gb_thresholds t;
	struct gb_run run;
	struct gb_bench_result *b;
	char err[512];

	(void)state;
	assert_int_equal(
		from_text(&t,
			  "{\"schema\": \"gpubench.thresholds/1\", \"same_model_max_spread\": \"5%\","
			  " \"thresholds\": ["
			  "{\"metric\": \"tflops_bf16\", \"min_efficiency\": \"80%\"},"
			  "{\"metric\": \"tflops_fp16\", \"off\": true},"
			  "{\"metric\": \"temp_c_max*\", \"max_value\": 85},"
			  "{\"metric\": \"h2d_*\", \"benchmark\": \"other\", \"min_efficiency\": 0.1}"
			  "]}",
			  err, sizeof(err)),
		0);
	assert_true(fabs(t.same_model_spread - 0.05) < 1e-12);
	assert_non_null(strstr(t.source, "'t.json'"));
	assert_true(fabs(gb_thresholds_match(&t, "gemm", "tflops_bf16")->min_efficiency - 0.8) <
		    1e-12);
	/* a rule for another benchmark does not match this one: the built-in does */
	assert_true(fabs(gb_thresholds_match(&t, "bandwidth", "h2d_ce_pinned_gbps")->min_efficiency -
			 0.75) < 1e-12);
	b = make_run(&run, 2, "H", true, "gemm");
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, 750, 989.4);
	gb_bench_add_value(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 1, 700, 989.4);
	gb_bench_add_value(b, "tflops_fp16", "TFLOP/s", GB_BETTER_HIGHER, 0, 100, 989.4);
	gb_bench_add_value(b, "temp_c_max", "C", GB_BETTER_LOWER, 0, 88, NAN);
	gb_thresholds_apply(&t, &run);
	assert_int_equal(find_check(b, "tflops_bf16_efficiency", 0)->status, GB_STATUS_FAILED);
	assert_null(find_check(b, "tflops_fp16_efficiency", 0));
	assert_int_equal(find_check(b, "temp_c_max_max", 0)->status, GB_STATUS_FAILED);
	/* 6.7% apart: fine at 10%, not at the file's 5% */
	assert_int_equal(find_check(b, "tflops_bf16_same_model", 1)->status, GB_STATUS_FAILED);
	gb_run_release(&run);
	gb_thresholds_release(&t);
}

static void test_file_same_model_off(void **state)
{
	struct gb_thresholds t;
	char err[512];

	(void)state;
	assert_int_equal(from_text(&t, "{\"same_model_max_spread\": null}", err, sizeof(err)), 0);
	assert_true(isnan(t.same_model_spread));
	gb_thresholds_release(&t);
}

struct bad_case {
	const char *json;
	const char *message;
};

/* one file for run and stress: run takes its rules and accepts stress's section */
static void test_stress_section(void **state)
{
	struct gb_thresholds t;
	char err[512] = "";
	size_t n_quick;

	(void)state;
	assert_int_equal(gb_thresholds_builtin(&t, "quick"), 0);
	n_quick = t.n;
	gb_thresholds_release(&t);
	assert_int_equal(from_text(&t,
				   "{\"thresholds\": [{\"metric\": \"tflops_bf16*\", "
				   "\"min_efficiency\": 0.8}], \"same_model_max_spread\": \"5%\", "
				   "\"stress\": {\"temp_limit_c\": 83, \"throttle_mask\": "
				   "[\"hw_slowdown\"]}}",
				   err, sizeof(err)),
			 0);
	assert_int_equal(t.n, n_quick + 1);
	assert_string_equal(t.rules[0].metric, "tflops_bf16*");
	assert_float_equal(t.same_model_spread, 0.05, 1e-12);
	gb_thresholds_release(&t);
}

static void test_malformed_files(void **state)
{
	static const struct bad_case cases[] = {
		{ "[1, 2]", "'t.json': must hold a JSON object" },
		{ "{\"thresholds\": {}}", "'t.json': thresholds must be an array" },
		{ "{\"tresholds\": []}", "'t.json': has an unknown key 'tresholds'" },
		{ "{\"thresholds\": [{\"min_efficiency\": 0.8}]}",
		  "'t.json': thresholds[0].metric must be a non-empty string" },
		{ "{\"thresholds\": [{\"metric\": \"x\"}]}", "'t.json': thresholds[0] sets no limit" },
		{ "{\"thresholds\": [{\"metric\": \"x\", \"min_efficiency\": 80}]}",
		  "'t.json': thresholds[0].min_efficiency must be a fraction" },
		{ "{\"thresholds\": [{\"metric\": \"x\", \"min_efficiency\": \"80\"}]}",
		  "thresholds[0].min_efficiency must be a fraction" },
		{ "{\"thresholds\": [{\"metric\": \"x\", \"max_value\": \"85\"}]}",
		  "thresholds[0].max_value must be a number" },
		{ "{\"thresholds\": [{\"metric\": \"x\", \"max_value\": 1}, {\"metric\": \"y\", "
		  "\"min_efficency\": 0.5}]}",
		  "'t.json': thresholds[1] has an unknown key 'min_efficency'" },
		{ "{\"thresholds\": [{\"metric\": \"x\", \"max_value\": 1, \"severity\": \"fatal\"}]}",
		  "thresholds[0].severity must be \"error\" or \"warning\"" },
		{ "{\"thresholds\": [{\"metric\": \"x\", \"max_value\": 1, \"peak\": \"moon\"}]}",
		  "thresholds[0].peak must be one of" },
		{ "{\"schema\": \"gpubench.thresholds/2\"}", "newer than this gpubench understands" },
		{ "{\"same_model_max_spread\": 3}", "same_model_max_spread must be a fraction" },
		/* too large for a double: exit 2 naming the key, never a silent null */
		{ "{\"thresholds\": [{\"metric\": \"x\", \"max_value\": 1e999}]}",
		  "thresholds[0].max_value must be a number" },
		{ "{\"thresholds\": [{\"metric\": \"x\", \"min_efficiency\": -1e999}]}",
		  "thresholds[0].min_efficiency must be a fraction" },
		/* stress's section, shared with `run`: checked by run too */
		{ "{\"stress\": {\"temp_limt_c\": 80}}",
		  "'t.json': stress: unknown threshold 'temp_limt_c'" },
		{ "{\"stress\": {\"temp_limit_c\": 1e999}}", "'t.json': stress: 'temp_limit_c' must be" },
		{ "{\"stress\": [1]}", "'t.json': stress must be an object" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gb_thresholds t;
		char err[512] = "";
		size_t n_before;

		assert_int_equal(from_text(&t, cases[i].json, err, sizeof(err)), -1);
		if (!strstr(err, cases[i].message))
			fail_msg("case %zu: '%s' does not contain '%s'", i, err, cases[i].message);
		/* nothing half-applied: the built-ins are still all there is */
		n_before = t.n;
		assert_null(strstr(t.source, "t.json"));
		assert_true(n_before > 0);
		gb_thresholds_release(&t);
	}
}

static void test_load_file_errors(void **state)
{
	char dir[] = "/tmp/gb_test_thr.XXXXXX", path[128], err[512];
	struct gb_thresholds t;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.json", dir);
	assert_int_equal(gb_thresholds_builtin(&t, "quick"), 0);
	assert_int_equal(gb_thresholds_load_file(&t, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot read thresholds file"));
	f = fopen(path, "w");
	fputs("{\n  \"thresholds\": [\n    {\"metric\": \"x\",, }\n]}", f);
	fclose(f);
	assert_int_equal(gb_thresholds_load_file(&t, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not valid JSON (line 3)"));
	f = fopen(path, "w");
	fputs("{\"thresholds\": [{\"metric\": \"tflops_*\", \"min_efficiency\": 0.9}]}", f);
	fclose(f);
	assert_int_equal(gb_thresholds_load_file(&t, path, err, sizeof(err)), 0);
	assert_true(fabs(gb_thresholds_match(&t, "gemm", "tflops_bf16")->min_efficiency - 0.9) <
		    1e-12);
	gb_thresholds_release(&t);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_bf16),
		cmocka_unit_test(test_profiles_differ),
		cmocka_unit_test(test_device_peaks),
		cmocka_unit_test(test_unknown_gpu_warns),
		cmocka_unit_test(test_throughput_without_precision),
		cmocka_unit_test(test_spec_unknown_warns),
		cmocka_unit_test(test_mig_slice),
		cmocka_unit_test(test_link_at_max_and_findings),
		cmocka_unit_test(test_host_copies_and_link_metrics),
		cmocka_unit_test(test_skipped_untouched),
		cmocka_unit_test(test_same_model_outlier),
		cmocka_unit_test(test_same_model_passes_and_models_apart),
		cmocka_unit_test(test_gemm_limit_follows_size),
		cmocka_unit_test(test_gemm_too_small_not_judged),
		cmocka_unit_test(test_nccl_by_link_type),
		cmocka_unit_test(test_p2p_by_link_type),
		cmocka_unit_test(test_file_overrides),
		cmocka_unit_test(test_file_same_model_off),
		cmocka_unit_test(test_malformed_files),
		cmocka_unit_test(test_stress_section),
		cmocka_unit_test(test_load_file_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
