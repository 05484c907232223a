/* SPDX-License-Identifier: MIT */
/*
 * test_compare.c - unit tests for report/compare.c and report/fleet.c: the
 * regression gate on saved report pairs (regression, noise within the
 * spread, improvement, metrics on one side only, different GPU models,
 * per-metric tolerances, nothing in common, bad files), the match key, the
 * compare document in every format, and the fleet merge with its outliers.
 *
 * Environment (set by ctest): GPUBENCH_TEST_DATA (tests/data, the saved
 * pairs written by tests/data/make_compare_data.py); GPUBENCH_SCHEMA
 * (docs/report.schema.json) to validate the merged fleet report.
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

#include "report/compare.h"
#include "report/fleet.h"
#include "report/json.h"
#include "report/result.h"

/* ---- helpers ---- */

static void data_path(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("GPUBENCH_TEST_DATA");

	assert_non_null(dir);
	snprintf(buf, len, "%s/%s", dir, name);
}

static void load(const char *name, struct gb_run *run)
{
	char path[1024], err[512];

	data_path(path, sizeof(path), name);
	if (gb_report_load_file(path, run, err, sizeof(err)))
		fail_msg("%s", err);
}

/* compare two files of tests/data with the given options */
static void compare_files(const char *a, const char *b, const struct gb_compare_opts *o,
			  struct gb_compare *c)
{
	struct gb_run ra, rb;
	char err[512];

	load(a, &ra);
	load(b, &rb);
	if (gb_compare_runs(&ra, a, &rb, b, o, c, err, sizeof(err)))
		fail_msg("%s", err);
	gb_run_release(&ra);
	gb_run_release(&rb);
}

static const struct gb_cmp_row *row(const struct gb_compare *c, const char *metric, int dev_a)
{
	for (size_t i = 0; i < c->n_rows; i++)
		if (!strcmp(c->rows[i].metric, metric) &&
		    (c->rows[i].a.device == dev_a || (dev_a < 0 && c->rows[i].a.device < 0)))
			return &c->rows[i];
	fail_msg("no row for %s on device %d", metric, dev_a);
	return NULL;
}

/* A run with one device of the given model and one benchmark. */
static struct gb_bench_result *tiny_run(struct gb_run *run, const char *model, const char *bench)
{
	struct gb_device_info *d;
	struct gb_bench_result *b;

	gb_run_init(run, "run", 0, NULL);
	run->host.hostname = gb_strdup("node");
	d = gb_run_add_device(run);
	d->index = 0;
	d->name = gb_strdup(model);
	d->power_limit_w = 400;
	b = gb_run_add_bench(run, bench);
	gb_bench_add_device(b, 0);
	return b;
}

static void add_samples(struct gb_bench_result *b, const char *name, enum gb_better better,
			double center, double spread)
{
	double s[5] = { center - spread, center - spread / 2, center, center + spread / 2,
			center + spread };

	gb_bench_add_metric(b, name, "GB/s", better, 0, s, 5, NAN);
}

/* ---- the saved pairs ---- */

static void test_regression(void **state)
{
	struct gb_compare c;
	struct gb_compare_opts o;
	const struct gb_cmp_row *r;

	(void)state;
	gb_compare_opts_init(&o);
	compare_files("base.json", "regressed.json", &o, &c);
	assert_false(c.different_models);
	/*
	 * tflops_bf16 and pct_of_max_clock_peak_bf16, on both GPUs; the share of
	 * the observed clock's peak is an observation (telemetry), never gated
	 */
	assert_int_equal(c.count[GB_CMP_REGRESSION], 4);
	assert_int_equal(row(&c, "pct_of_observed_clock_peak_bf16", 0)->better, GB_BETTER_NONE);
	assert_int_not_equal(row(&c, "pct_of_observed_clock_peak_bf16", 0)->cls,
			     GB_CMP_REGRESSION);
	assert_true(gb_compare_regressed(&c));
	r = row(&c, "tflops_bf16", 0);
	assert_int_equal(r->cls, GB_CMP_REGRESSION);
	assert_true(fabs(r->ratio - 0.90) < 0.01);
	assert_true(r->change_pct < -9 && r->change_pct > -11);
	assert_string_equal(r->model, "NVIDIA H100 80GB HBM3");
	/* the durations differ in nothing here, but the key never holds them */
	assert_null(strstr(r->params, "duration_s"));
	assert_non_null(strstr(r->params, "m=256"));
	assert_int_equal(row(&c, "pct_of_max_clock_peak_bf16", 1)->cls, GB_CMP_REGRESSION);
	assert_int_equal(row(&c, "tflops_fp32", 0)->cls, GB_CMP_UNCHANGED);
	gb_compare_release(&c);
}

static void test_noise_within_spread_passes(void **state)
{
	struct gb_compare c;
	struct gb_compare_opts o;
	const struct gb_cmp_row *r;

	(void)state;
	gb_compare_opts_init(&o);
	compare_files("base.json", "noisy.json", &o, &c);
	r = row(&c, "tflops_bf16", 0);
	/* 7% down, more than the 5% tolerance, but inside 2 x the combined stdev */
	assert_true(r->change_pct < -5);
	assert_true(fabs(r->b.value - r->a.value) < r->noise);
	assert_int_equal(r->cls, GB_CMP_UNCHANGED);
	assert_false(gb_compare_regressed(&c));
	/* with k = 0 the spread no longer protects it */
	gb_compare_release(&c);
	o.spread_k = 0;
	compare_files("base.json", "noisy.json", &o, &c);
	assert_int_equal(row(&c, "tflops_bf16", 0)->cls, GB_CMP_REGRESSION);
	gb_compare_release(&c);
}

static void test_improvement_and_one_side(void **state)
{
	struct gb_compare c;
	struct gb_compare_opts o;

	(void)state;
	gb_compare_opts_init(&o);
	compare_files("base.json", "improved.json", &o, &c);
	/* tflops_bf16 and pct_of_max_clock_peak_bf16, on both GPUs (not the observation) */
	assert_int_equal(c.count[GB_CMP_IMPROVEMENT], 4);
	assert_int_equal(c.count[GB_CMP_ONLY_A], 2); /* d2h_ce_pinned_gbps not measured in B */
	assert_int_equal(c.count[GB_CMP_ONLY_B], 4); /* the PCIe link read under load in B */
	assert_int_equal(c.count[GB_CMP_REGRESSION], 0);
	assert_false(gb_compare_regressed(&c));
	assert_int_equal(row(&c, "tflops_bf16", 1)->cls, GB_CMP_IMPROVEMENT);
	assert_int_equal(row(&c, "d2h_ce_pinned_gbps", 0)->cls, GB_CMP_ONLY_A);
	assert_int_equal(row(&c, "pcie_width_under_load", -1)->cls, GB_CMP_ONLY_B); /* no A side */
	gb_compare_release(&c);
}

static void test_different_models(void **state)
{
	struct gb_compare c;
	struct gb_compare_opts o;
	const struct gb_cmp_row *r;

	(void)state;
	gb_compare_opts_init(&o);
	o.price_a = 2.5;
	o.price_b = 0.5;
	compare_files("base.json", "other_model.json", &o, &c);
	assert_true(c.different_models);
	assert_false(gb_compare_regressed(&c)); /* other hardware is not a regression */
	r = row(&c, "tflops_bf16", 0);
	assert_string_equal(r->model, "NVIDIA H100 80GB HBM3 / NVIDIA GeForce RTX 4090");
	/* the simulated 256^3 GEMM: 17 of 989 TFLOP/s on the H100, 10.9 of 165 on the 4090 */
	assert_true(fabs(r->a.efficiency - 0.01715) < 0.0001);
	assert_true(fabs(r->b.efficiency - 0.06575) < 0.0001);
	/* per watt from the benchmark's power_w_mean_bf16 metric */
	assert_string_equal(r->a.power_source, "metric");
	assert_true(fabs(r->a.per_watt - r->a.value / 420.0) < 1e-9);
	assert_true(fabs(r->b.per_watt - r->b.value / 270.0) < 1e-9);
	assert_true(fabs(r->a.per_dollar - r->a.value / 2.5) < 1e-9);
	assert_true(fabs(r->b.per_dollar - r->b.value / 0.5) < 1e-9);
	assert_string_equal(gb_cmp_class_name(r->cls, true), "b_worse");
	/* latency has no per-watt figure: it is not a throughput */
	assert_true(isnan(row(&c, "h2d_ce_pinned_alpha_us", 0)->a.per_watt));
	/* nor has a percentage, though higher is better */
	assert_true(isnan(row(&c, "pct_of_max_clock_peak_bf16", 0)->a.per_watt));
	assert_true(isnan(row(&c, "pct_of_max_clock_peak_bf16", 0)->b.per_dollar));
	/* GPU 1 of A meets GPU 1 of B: side by side too, never gated */
	assert_string_equal(gb_cmp_class_name(row(&c, "tflops_bf16", 1)->cls, true), "b_worse");
	gb_compare_release(&c);
}

static void test_power_sources(void **state)
{
	struct gb_run a, b;
	struct gb_bench_result *ba = tiny_run(&a, "X", "gemm");
	struct gb_bench_result *bb = tiny_run(&b, "Y", "gemm");
	struct gb_telemetry_sample t = { .device = 0, .t_s = 5, .power_w = 300 };
	struct gb_compare c;
	struct gb_compare_opts o;
	char err[256];

	(void)state;
	gb_bench_add_value(ba, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, 100, NAN);
	gb_bench_add_value(bb, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, 50, NAN);
	gb_bench_add_value(ba, "tflops_fp8", "TFLOP/s", GB_BETTER_HIGHER, 0, 200, NAN);
	gb_bench_add_value(bb, "tflops_fp8", "TFLOP/s", GB_BETTER_HIGHER, 0, 100, NAN);
	/* gemm's naming: the power while that precision ran */
	gb_bench_add_value(ba, "power_w_mean_fp8", "W", GB_BETTER_NONE, 0, 500, NAN);
	ba->started_s = 1;
	ba->duration_s = 10;
	gb_run_add_telemetry(&a, &t);
	gb_compare_opts_init(&o);
	assert_int_equal(gb_compare_runs(&a, "a", &b, "b", &o, &c, err, sizeof(err)), 0);
	assert_string_equal(c.rows[0].a.power_source, "telemetry");
	assert_true(fabs(c.rows[0].a.per_watt - 100.0 / 300) < 1e-12);
	assert_string_equal(c.rows[0].b.power_source, "power_limit");
	assert_true(fabs(c.rows[0].b.per_watt - 50.0 / 400) < 1e-12);
	assert_string_equal(c.rows[1].a.power_source, "metric");
	assert_true(fabs(c.rows[1].a.per_watt - 200.0 / 500) < 1e-12);
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

static void test_tolerance_per_metric(void **state)
{
	struct gb_tolerance_rule *rules;
	struct gb_compare_opts o;
	struct gb_compare c;
	size_t n;
	char err[256];

	(void)state;
	gb_compare_opts_init(&o);
	/* *_bf16: tflops_bf16 and the pct_of_*_peak_bf16 values derived from it */
	assert_int_equal(gb_tolerance_rules_parse("h2d_*=1%, *_bf16 = 15%", &rules, &n, err,
						  sizeof(err)),
			 0);
	assert_int_equal(n, 2);
	assert_string_equal(rules[1].pattern, "*_bf16");
	assert_true(fabs(rules[1].fraction - 0.15) < 1e-12);
	o.rules = rules;
	o.n_rules = n;
	compare_files("base.json", "regressed.json", &o, &c);
	assert_false(gb_compare_regressed(&c));
	assert_true(fabs(row(&c, "tflops_bf16", 0)->tolerance - 0.15) < 1e-12);
	assert_true(fabs(row(&c, "tflops_fp32", 0)->tolerance - 0.05) < 1e-12);
	gb_compare_release(&c);
	gb_tolerance_rules_free(rules, n);

	/* bench/metric patterns, and a global tolerance */
	assert_int_equal(gb_tolerance_rules_parse("gemm/*_bf16=12%", &rules, &n, err,
						  sizeof(err)),
			 0);
	o.rules = rules;
	o.n_rules = n;
	compare_files("base.json", "regressed.json", &o, &c);
	assert_false(gb_compare_regressed(&c));
	gb_compare_release(&c);
	gb_tolerance_rules_free(rules, n);
	o.rules = NULL;
	o.n_rules = 0;
	o.tolerance = 0.20;
	compare_files("base.json", "regressed.json", &o, &c);
	assert_false(gb_compare_regressed(&c));
	gb_compare_release(&c);

	/* malformed lists say which entry */
	assert_int_equal(gb_tolerance_rules_parse("tflops_*", &rules, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'tflops_*'"));
	assert_int_equal(gb_tolerance_rules_parse("a=3%,b=3", &rules, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'3'"));
	assert_int_equal(gb_tolerance_rules_parse("=3%", &rules, &n, err, sizeof(err)), -1);
}

static void test_nothing_in_common(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;
	struct gb_compare_opts o;
	char err[256];

	(void)state;
	add_samples(tiny_run(&a, "X", "gemm"), "tflops_bf16", GB_BETTER_HIGHER, 10, 1);
	add_samples(tiny_run(&b, "X", "bandwidth"), "h2d_gbps", GB_BETTER_HIGHER, 10, 1);
	gb_compare_opts_init(&o);
	assert_int_equal(gb_compare_runs(&a, "a.json", &b, "b.json", &o, &c, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "'a.json' and 'b.json' have no metric in common");
	assert_null(c.rows);
	gb_run_release(&a);
	gb_run_release(&b);
}

/* A params difference that matters (dtype) splits the key; one that does not (duration) doesn't. */
static void test_params_key(void **state)
{
	cJSON *p = cJSON_Parse("{\"n\": 4096, \"dtype\": \"bf16\", \"duration_s\": 10, "
			       "\"warmup_s\": 2, \"seed\": 7, \"samples\": 5, \"iterations\": 20, "
			       "\"interval_ms\": 100, \"sizes\": [1, 2], \"pinned\": true}");
	char *key = gb_params_key(p);

	(void)state;
	assert_string_equal(key, "dtype=bf16,n=4096,pinned=true,sizes=[1,2]");
	assert_true(gb_param_ignored("duration"));
	assert_true(gb_param_ignored("timeout_s"));
	assert_false(gb_param_ignored("size"));
	assert_false(gb_param_ignored("dtype"));
	/* the software and the method's descriptions are not what is measured */
	assert_true(gb_param_ignored("cublaslt_version"));
	assert_true(gb_param_ignored("nccl_version"));
	assert_true(gb_param_ignored("rotation_note"));
	assert_true(gb_param_ignored("layout"));
	assert_true(gb_param_ignored("rotating_copies"));
	assert_false(gb_param_ignored("precision"));
	assert_false(gb_param_ignored("impl"));
	assert_false(gb_param_ignored("version"));
	free(key);
	cJSON_Delete(p);
	/* the fleet merge keeps the versions (nodes on different libraries stay apart) */
	p = cJSON_Parse("{\"m\": 256, \"cublaslt_version\": \"13.1.0\", \"layout\": \"TN\"}");
	key = gb_params_key(p);
	assert_string_equal(key, "m=256");
	free(key);
	key = gb_params_key_versioned(p);
	assert_string_equal(key, "cublaslt_version=13.1.0,m=256");
	free(key);
	cJSON_Delete(p);
}

static void test_params_split_rows(void **state)
{
	struct gb_run a, b;
	struct gb_bench_result *ba = tiny_run(&a, "X", "gemm");
	struct gb_bench_result *bb = tiny_run(&b, "X", "gemm");
	struct gb_compare c;
	struct gb_compare_opts o;
	char err[256];

	(void)state;
	gb_bench_param_str(ba, "dtype", "bf16");
	gb_bench_param_num(ba, "duration_s", 1);
	gb_bench_param_str(bb, "dtype", "bf16");
	gb_bench_param_num(bb, "duration_s", 60); /* a longer run is still the same test */
	gb_bench_add_value(ba, "tflops", "TFLOP/s", GB_BETTER_HIGHER, 0, 100, NAN);
	gb_bench_add_value(bb, "tflops", "TFLOP/s", GB_BETTER_HIGHER, 0, 101, NAN);
	gb_compare_opts_init(&o);
	assert_int_equal(gb_compare_runs(&a, "a", &b, "b", &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_rows, 1);
	assert_int_equal(c.rows[0].cls, GB_CMP_UNCHANGED);
	gb_compare_release(&c);
	gb_bench_param_str(bb, "dtype", "fp16"); /* another precision is another test */
	assert_int_equal(gb_compare_runs(&a, "a", &b, "b", &o, &c, err, sizeof(err)), -1);
	gb_run_release(&a);
	gb_run_release(&b);
}

/* Directions: lower-is-better, no direction, and a value that vanished. */
static void test_directions(void **state)
{
	struct gb_run a, b;
	struct gb_bench_result *ba = tiny_run(&a, "X", "bw");
	struct gb_bench_result *bb = tiny_run(&b, "X", "bw");
	struct gb_compare c;
	struct gb_compare_opts o;
	char err[256];

	(void)state;
	gb_bench_add_value(ba, "latency_us", "us", GB_BETTER_LOWER, 0, 2.0, NAN);
	gb_bench_add_value(bb, "latency_us", "us", GB_BETTER_LOWER, 0, 2.5, NAN);
	gb_bench_add_value(ba, "clock_mhz", "MHz", GB_BETTER_NONE, 0, 1000, NAN);
	gb_bench_add_value(bb, "clock_mhz", "MHz", GB_BETTER_NONE, 0, 1500, NAN);
	gb_bench_add_value(ba, "gbps", "GB/s", GB_BETTER_HIGHER, 0, 10, NAN);
	gb_bench_add_value(bb, "gbps", "GB/s", GB_BETTER_HIGHER, 0, NAN, NAN);
	gb_bench_add_value(ba, "zero", "GB/s", GB_BETTER_HIGHER, 0, 0, NAN);
	gb_bench_add_value(bb, "zero", "GB/s", GB_BETTER_HIGHER, 0, 0, NAN);
	gb_compare_opts_init(&o);
	assert_int_equal(gb_compare_runs(&a, "a", &b, "b", &o, &c, err, sizeof(err)), 0);
	assert_int_equal(row(&c, "latency_us", 0)->cls, GB_CMP_REGRESSION);
	assert_int_equal(row(&c, "clock_mhz", 0)->cls, GB_CMP_CHANGED);
	assert_int_equal(row(&c, "gbps", 0)->cls, GB_CMP_REGRESSION); /* never fail open */
	assert_int_equal(row(&c, "zero", 0)->cls, GB_CMP_UNCHANGED);
	assert_true(isnan(row(&c, "zero", 0)->ratio));
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

/* Files that are not reports, or are too new, fail to load with a clear line. */
static void test_bad_files(void **state)
{
	char dir[] = "/tmp/gb_test_compare.XXXXXX", path[128], err[512];
	struct gb_run run;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.json", dir);
	f = fopen(path, "w");
	fputs("{\"hello\": 1}", f);
	fclose(f);
	assert_int_equal(gb_report_load_file(path, &run, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not a gpubench report"));
	f = fopen(path, "w");
	fputs("{\"schema\": \"gpubench.report/2\"}", f);
	fclose(f);
	assert_int_equal(gb_report_load_file(path, &run, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "newer"));
	f = fopen(path, "w");
	fputs("not json at all", f);
	fclose(f);
	assert_int_equal(gb_report_load_file(path, &run, err, sizeof(err)), -1);
	unlink(path);
	rmdir(dir);
}

/* ---- output ---- */

static char *print_to_string(const struct gb_compare *c, enum gb_out_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(gb_compare_print(c, f, m), 0);
	fclose(m);
	return buf;
}

/* c printed in format f contains needle */
static void assert_prints(const struct gb_compare *c, enum gb_out_format f, const char *needle)
{
	char *s = print_to_string(c, f);

	if (!strstr(s, needle))
		fail_msg("'%s' not in:\n%s", needle, s);
	free(s);
}

static void test_outputs(void **state)
{
	struct gb_compare c;
	struct gb_compare_opts o;
	cJSON *doc, *rows, *sum;
	char *s;

	(void)state;
	gb_compare_opts_init(&o);
	compare_files("base.json", "regressed.json", &o, &c);
	s = print_to_string(&c, GB_OUT_JSON);
	doc = cJSON_Parse(s);
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, GB_COMPARE_SCHEMA);
	assert_string_equal(cJSON_GetObjectItem(doc, "status")->valuestring, "failed");
	assert_int_equal(cJSON_GetObjectItem(doc, "exit_code")->valueint, 1);
	sum = cJSON_GetObjectItem(doc, "summary");
	assert_int_equal(cJSON_GetObjectItem(sum, "regression")->valueint, 4);
	rows = cJSON_GetObjectItem(doc, "rows");
	assert_int_equal(cJSON_GetArraySize(rows), (int)c.n_rows);
	/* rows in the reports' order: gemm's fp32 metrics (6 a GPU), then tflops_bf16 */
	assert_string_equal(
		cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "class")->valuestring,
		"unchanged");
	assert_string_equal(
		cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 6), "metric")->valuestring,
		"tflops_bf16");
	assert_string_equal(
		cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 6), "class")->valuestring,
		"regression");
	cJSON_Delete(doc);
	free(s);
	assert_prints(&c, GB_OUT_TEXT, "regression");
	assert_prints(&c, GB_OUT_TEXT, "result: failed");
	assert_prints(&c, GB_OUT_MARKDOWN, "| benchmark | metric | GPU | A | B | B/A | change |");
	s = print_to_string(&c, GB_OUT_CSV);
	assert_true(!strncmp(s, "benchmark,metric,device_model,device_a,device_b,params,unit,a,b,"
			       "ratio", 67));
	/* each side's GPU index in its own columns */
	assert_non_null(strstr(s, "\r\ngemm,tflops_bf16,NVIDIA H100 80GB HBM3,1,1,"));
	/* the saved reports come from gpubench-sim: every row says so, last */
	assert_non_null(strstr(s, ",per_dollar_a,per_dollar_b,simulated\r\n"));
	assert_non_null(strstr(s, ",regression,"));
	assert_null(strstr(s, ",false\r\n"));
	free(s);
	/* every format: a comparison is also a test suite, metrics and a page */
	s = print_to_string(&c, GB_OUT_JUNIT);
	assert_non_null(strstr(s, "<testcase classname=\"gemm\" name=\"tflops_bf16 (GPU 0 "
				  "NVIDIA H100 80GB HBM3; "));
	assert_non_null(strstr(s, "<failure message=\"regression: A 16.97, B 15.27 TFLOP/s (-10.0%"));
	assert_non_null(strstr(s, "failures=\"4\""));
	assert_non_null(strstr(s, "<property name=\"simulated\" value=\"true\"/>\n"
				  "\t\t\t<property name=\"simulated_machine_a\" "
				  "value=\"8x-h100-nvlink "
				  "(tests/sim/machines/8x-h100-nvlink.json)\"/>\n"));
	free(s);
	s = print_to_string(&c, GB_OUT_PROMETHEUS);
	assert_non_null(strstr(s, "gpubench_compare_failed{simulated=\"true\"} 1\n"));
	assert_non_null(strstr(s, "gpubench_compare_rows{class=\"regression\","
				  "simulated=\"true\"} 4\n"));
	assert_non_null(strstr(s, "gpubench_compare_regression{benchmark=\"gemm\",metric=\""
				  "tflops_bf16\",device=\"0\""));
	free(s);
	s = print_to_string(&c, GB_OUT_HTML);
	assert_true(!strncmp(s, "<!DOCTYPE html>", 15));
	assert_non_null(strstr(s, "<tr class=\"regression\">"));
	assert_non_null(strstr(s, "<svg"));
	assert_null(strstr(s, "<script"));
	free(s);
	assert_int_equal(gb_compare_print(&c, GB_OUT_COUNT, stdout), -1);
	gb_compare_release(&c);
}

/* ---- B incomplete: the gate never fails open ---- */

/* A: gemm and bandwidth measured; B: the same, then changed by the test */
static void pair(struct gb_run *a, struct gb_run *b)
{
	struct gb_run *runs[2] = { a, b };

	for (int k = 0; k < 2; k++) {
		struct gb_bench_result *g = tiny_run(runs[k], "X", "gemm");
		struct gb_bench_result *w = gb_run_add_bench(runs[k], "bandwidth");

		add_samples(g, "tflops_bf16", GB_BETTER_HIGHER, 100, 1);
		add_samples(g, "tflops_fp16", GB_BETTER_HIGHER, 100, 1);
		gb_bench_add_device(w, 0);
		add_samples(w, "h2d_gbps", GB_BETTER_HIGHER, 50, 1);
	}
}

/* B's gemm could not run and measured nothing */
static void break_gemm(struct gb_run *b, enum gb_status st, const char *why)
{
	struct gb_bench_result *g = &b->benches[0];

	for (size_t i = 0; i < g->n_metrics; i++) {
		free(g->metrics[i].name);
		free(g->metrics[i].unit);
		free(g->metrics[i].samples);
	}
	g->n_metrics = 0;
	gb_bench_set_status(g, st, "%s", why);
}

static void compare_pair(struct gb_run *a, struct gb_run *b, bool allow, struct gb_compare *c)
{
	struct gb_compare_opts o;
	char err[256];

	gb_compare_opts_init(&o);
	o.allow_missing = allow;
	if (gb_compare_runs(a, "a.json", b, "b.json", &o, c, err, sizeof(err)))
		fail_msg("%s", err);
}

static void test_b_bench_did_not_run(void **state)
{
	static const enum gb_status sts[] = { GB_STATUS_ERROR, GB_STATUS_INTERRUPTED,
					      GB_STATUS_SKIPPED, GB_STATUS_NOT_BUILT };
	static const char *const words[] = { "(error: out of memory)",
					     "(interrupted: out of memory)",
					     "(skipped: out of memory)", "(not_built: out of memory)" };

	(void)state;
	for (size_t k = 0; k < sizeof(sts) / sizeof(sts[0]); k++) {
		struct gb_run a, b;
		struct gb_compare c;
		cJSON *doc;
		char *s;

		pair(&a, &b);
		break_gemm(&b, sts[k], "out of memory");
		compare_pair(&a, &b, false, &c);
		assert_false(gb_compare_regressed(&c));
		assert_true(gb_compare_failed(&c));
		assert_int_equal(c.n_missing, 1);
		assert_string_equal(c.missing[0].bench, "gemm");
		assert_int_equal(c.missing[0].status, sts[k]);
		assert_int_equal(c.missing[0].metrics_a, 2);
		assert_non_null(strstr(c.missing[0].message, "gemm did not run in B"));
		assert_non_null(strstr(c.missing[0].message, words[k]));
		/* the one-sided metrics are still listed */
		assert_int_equal(c.count[GB_CMP_ONLY_A], 2);
		s = print_to_string(&c, GB_OUT_TEXT);
		assert_non_null(strstr(s, "B incomplete (fails the gate"));
		assert_non_null(strstr(s, "result: failed (B incomplete)"));
		free(s);
		s = print_to_string(&c, GB_OUT_JSON);
		doc = cJSON_Parse(s);
		assert_non_null(doc);
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "incomplete")), 1);
		assert_int_equal(cJSON_GetObjectItem(doc, "exit_code")->valueint, 1);
		assert_string_equal(cJSON_GetObjectItem(doc, "status")->valuestring, "failed");
		assert_true(cJSON_IsFalse(cJSON_GetObjectItem(doc, "regressed")));
		cJSON_Delete(doc);
		free(s);
		gb_compare_release(&c);
		/* --allow-missing: listed, not failed */
		compare_pair(&a, &b, true, &c);
		assert_int_equal(c.n_missing, 1);
		assert_false(gb_compare_failed(&c));
		s = print_to_string(&c, GB_OUT_TEXT);
		assert_non_null(strstr(s, "listed, not failed: --allow-missing"));
		assert_non_null(strstr(s, "result: passed"));
		free(s);
		gb_compare_release(&c);
		gb_run_release(&a);
		gb_run_release(&b);
	}
}

static void test_b_run_ended_early(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;
	struct gb_compare_opts o;
	char err[256];

	(void)state;
	/* interrupted after gemm: bandwidth is missing from B */
	pair(&a, &b);
	gb_run_release(&b);
	add_samples(tiny_run(&b, "X", "gemm"), "tflops_bf16", GB_BETTER_HIGHER, 100, 1);
	add_samples(&b.benches[0], "tflops_fp16", GB_BETTER_HIGHER, 100, 1);
	gb_run_set_status(&b, GB_STATUS_INTERRUPTED, "stopped by SIGINT");
	compare_pair(&a, &b, false, &c);
	assert_true(gb_compare_failed(&c));
	assert_int_equal(c.n_missing, 2);
	assert_null(c.missing[0].bench);
	assert_string_equal(c.missing[0].message,
			    "B's run ended early (interrupted: stopped by SIGINT)");
	assert_string_equal(c.missing[1].bench, "bandwidth");
	assert_non_null(strstr(c.missing[1].message,
			       "bandwidth is missing from B, whose run ended interrupted"));
	gb_compare_release(&c);
	/* the same B with a run that passed: bandwidth is still missing, and that fails too */
	b.status = GB_STATUS_PASSED;
	compare_pair(&a, &b, false, &c);
	assert_int_equal(c.n_missing, 1);
	assert_int_equal(c.missing[0].kind, GB_MISS_BENCHMARK);
	assert_string_equal(c.missing[0].message, "bandwidth is missing from B; A measured 1 metric");
	assert_true(gb_compare_failed(&c));
	assert_int_equal(c.count[GB_CMP_ONLY_A], 1);
	gb_compare_release(&c);
	compare_pair(&a, &b, true, &c);
	assert_false(gb_compare_failed(&c));
	gb_compare_release(&c);
	gb_run_release(&b);
	/* no GPU at all in B: a gate failure with its reason, not "nothing in common" */
	gb_run_init(&b, "run", 0, NULL);
	gb_run_set_status(&b, GB_STATUS_ERROR, "no NVIDIA driver");
	compare_pair(&a, &b, false, &c);
	assert_true(gb_compare_failed(&c));
	assert_int_equal(c.n_missing, 3);
	assert_int_equal(c.count[GB_CMP_ONLY_A], 3);
	gb_compare_release(&c);
	/* ... and with --allow-missing, nothing in common is bad input again */
	gb_compare_opts_init(&o);
	o.allow_missing = true;
	assert_int_equal(gb_compare_runs(&a, "a.json", &b, "b.json", &o, &c, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "'a.json' and 'b.json' have no metric in common");
	gb_run_release(&a);
	gb_run_release(&b);
}

/* What A measured and B lacks fails by default: a metric, a GPU (issue 19, item 2) */
static void test_b_lacks_metric_or_gpu(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;
	struct gb_device_info *d;
	cJSON *doc;
	char *s;

	(void)state;
	/* a metric dropped from a gemm that ran */
	pair(&a, &b);
	free(b.benches[0].metrics[1].name);
	b.benches[0].metrics[1].name = gb_strdup("tflops_fp16_renamed");
	compare_pair(&a, &b, false, &c);
	assert_true(gb_compare_failed(&c));
	assert_int_equal(c.n_missing, 1);
	assert_int_equal(c.missing[0].kind, GB_MISS_METRICS);
	assert_string_equal(c.missing[0].bench, "gemm");
	assert_string_equal(c.missing[0].message,
			    "gemm in B lacks 1 metric A measured: tflops_fp16 (GPU 0)");
	/* the metric only B has is listed, and fails nothing */
	assert_int_equal(c.count[GB_CMP_ONLY_B], 1);
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);

	/* A has two GPUs of the model, B one: the GPU is the finding, not its metrics */
	pair(&a, &b);
	d = gb_run_add_device(&a);
	d->index = 1;
	d->name = gb_strdup("X");
	{
		double v[5] = { 99, 99.5, 100, 100.5, 101 };

		gb_bench_add_metric(&a.benches[0], "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 1, v,
				    5, NAN);
		gb_bench_add_metric(&a.benches[1], "h2d_gbps", "GB/s", GB_BETTER_HIGHER, 1, v, 5,
				    NAN);
	}
	compare_pair(&a, &b, false, &c);
	assert_true(gb_compare_failed(&c));
	assert_int_equal(c.n_missing, 1);
	assert_int_equal(c.missing[0].kind, GB_MISS_GPU);
	assert_int_equal(c.missing[0].device, 1);
	assert_null(c.missing[0].bench);
	assert_int_equal(c.missing[0].metrics_a, 2);
	assert_string_equal(c.missing[0].message,
			    "GPU 1 (X) of A is missing from B; A measured 2 metrics on it");
	s = print_to_string(&c, GB_OUT_JSON);
	doc = cJSON_Parse(s);
	assert_non_null(doc);
	assert_string_equal(
		cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "incomplete"), 0),
				    "kind")
			->valuestring,
		"gpu");
	cJSON_Delete(doc);
	free(s);
	gb_compare_release(&c);
	compare_pair(&a, &b, true, &c);
	assert_false(gb_compare_failed(&c));
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

/*
 * B after a cuBLASLt and driver upgrade, with a newer gpubench that words
 * its method differently: every metric still matches (the gate compares the
 * upgrade instead of calling gemm missing), and the versions that differ
 * are listed, in the text and the JSON.
 */
static void test_software_upgrade(void **state)
{
	struct gb_run a, b;
	struct gb_run *runs[2] = { &a, &b };
	struct gb_compare c;
	struct gb_compare_opts o;
	char err[256];
	char *s;

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct gb_bench_result *g = tiny_run(runs[k], "X", "gemm");

		add_samples(g, "tflops_bf16", GB_BETTER_HIGHER, 100, 1);
		gb_bench_param_str(g, "precision", "bf16");
		gb_bench_param_str(g, "cublaslt_version", k ? "13.2.0" : "13.1.0");
		gb_bench_param_str(g, "rotation", k ? "copies of A and B, newer words" : "copies");
		runs[k]->host.driver_version = gb_strdup(k ? "590.44.01" : "580.65.06");
		runs[k]->host.cuda_runtime_version = 13000;
		runs[k]->host.cublaslt_version = k ? 130200 : 130100;
		runs[k]->host.nccl_version = k ? 22703 : -1; /* A loaded no NCCL: no change */
	}
	gb_compare_opts_init(&o);
	assert_int_equal(gb_compare_runs(&a, "a.json", &b, "b.json", &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_missing, 0);
	assert_int_equal(c.count[GB_CMP_UNCHANGED], 1);
	assert_int_equal(c.count[GB_CMP_ONLY_A] + c.count[GB_CMP_ONLY_B], 0);
	assert_string_equal(row(&c, "tflops_bf16", 0)->params, "precision=bf16");
	assert_int_equal(c.n_software, 2);
	assert_string_equal(c.software[0].name, "driver");
	assert_string_equal(c.software[1].name, "cuBLASLt");
	assert_string_equal(c.software[1].a, "13.1.0");
	assert_string_equal(c.software[1].b, "13.2.0");
	assert_prints(&c, GB_OUT_TEXT, "\nsoftware changed: driver 580.65.06 -> 590.44.01, "
				       "cuBLASLt 13.1.0 -> 13.2.0\n");
	assert_prints(&c, GB_OUT_JSON, "\"software_changes\"");
	assert_prints(&c, GB_OUT_JSON, "\"13.2.0\"");
	assert_prints(&c, GB_OUT_MARKDOWN, "Software changed: driver 580.65.06 -> 590.44.01");
	assert_prints(&c, GB_OUT_HTML, "<p>Software changed: driver 580.65.06 -&gt; 590.44.01");
	gb_compare_release(&c);

	/* the same software: nothing listed */
	gb_compare_opts_init(&o);
	assert_int_equal(gb_compare_runs(&a, "a.json", &a, "a.json", &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_software, 0);
	s = print_to_string(&c, GB_OUT_TEXT);
	assert_null(strstr(s, "software changed"));
	free(s);
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

/* run with n GPUs of model X at CUDA indexes 0..: uuids[i] measuring tflops_bf16 around tflops[i] */
static void uuid_run(struct gb_run *run, const char *const *uuids, const double *tflops, int n)
{
	struct gb_bench_result *g = tiny_run(run, "X", "gemm");

	run->devices[0].uuid = gb_strdup(uuids[0]);
	for (int i = 1; i < n; i++) {
		struct gb_device_info *d = gb_run_add_device(run);

		d->index = i;
		d->name = gb_strdup("X");
		d->uuid = gb_strdup(uuids[i]);
		gb_bench_add_device(g, i);
	}
	for (int i = 0; i < n; i++) {
		double t = tflops[i], v[5] = { t - 1, t - 0.5, t, t + 0.5, t + 1 };

		gb_bench_add_metric(g, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, i, v, 5, NAN);
	}
}

/* the row of A's GPU dev_a: B's GPU dev_b, unchanged */
static void expect_paired(const struct gb_compare *c, int dev_a, int dev_b)
{
	const struct gb_cmp_row *r = row(c, "tflops_bf16", dev_a);

	assert_int_equal(r->b.device, dev_b);
	assert_int_equal(r->cls, GB_CMP_UNCHANGED);
}

/*
 * The same node with a GPU hidden (CUDA indexes shift): GPUs are paired by
 * UUID, so the hidden one is the missing GPU and the others still compare
 * with themselves (by rank, GPU 2 was called missing and GPU 1 compared
 * with what was GPU 2, a 10% regression). A GPU replaced (a new UUID)
 * pairs by rank with the one it replaced.
 */
static void test_gpus_paired_by_uuid(void **state)
{
	static const char *const three[] = { "GPU-a", "GPU-b", "GPU-c" };
	static const char *const hidden[] = { "GPU-a", "GPU-c" };
	static const char *const replaced[] = { "GPU-a", "GPU-n", "GPU-c" };
	static const double t_three[] = { 100, 110, 100 }, t_hidden[] = { 100, 100 };
	struct gb_run a, b;
	struct gb_compare c;

	(void)state;
	uuid_run(&a, three, t_three, 3);
	uuid_run(&b, hidden, t_hidden, 2);
	compare_pair(&a, &b, false, &c);
	assert_int_equal(c.n_missing, 1);
	assert_int_equal(c.missing[0].kind, GB_MISS_GPU);
	assert_int_equal(c.missing[0].device, 1);
	assert_string_equal(c.missing[0].message,
			    "GPU 1 (X) of A is missing from B; A measured 1 metric on it");
	expect_paired(&c, 0, 0);
	expect_paired(&c, 2, 1);
	assert_int_equal(c.count[GB_CMP_ONLY_A], 1);
	assert_int_equal(c.count[GB_CMP_REGRESSION], 0);
	gb_compare_release(&c);
	gb_run_release(&b);

	uuid_run(&b, replaced, t_three, 3);
	compare_pair(&a, &b, false, &c);
	assert_int_equal(c.n_missing, 0);
	for (int i = 0; i < 3; i++)
		expect_paired(&c, i, i);
	assert_int_equal(c.count[GB_CMP_ONLY_A] + c.count[GB_CMP_ONLY_B], 0);
	gb_compare_release(&c);
	gb_run_release(&b);
	gb_run_release(&a);
}

/* Simulated numbers are never compared with measured ones; two simulated reports are */
static void test_simulated_refused(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;
	struct gb_compare_opts o;
	char err[512];
	char *s;

	(void)state;
	pair(&a, &b);
	b.host.simulated = true;
	b.host.simulated_machine = gb_strdup("h100-sxm (h100-sxm.json)");
	gb_compare_opts_init(&o);
	assert_int_equal(gb_compare_runs(&a, "a.json", &b, "b.json", &o, &c, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "cannot compare a simulated report with a measured one: "
				 "'b.json' is simulated (h100-sxm (h100-sxm.json)), 'a.json' is "
				 "measured");
	assert_int_equal(gb_compare_runs(&b, "b.json", &a, "a.json", &o, &c, err, sizeof(err)),
			 -1);
	/* --allow-missing does not relax it */
	o.allow_missing = true;
	assert_int_equal(gb_compare_runs(&a, "a.json", &b, "b.json", &o, &c, err, sizeof(err)),
			 -1);
	compare_pair(&b, &b, false, &c);
	assert_true(c.simulated);
	s = print_to_string(&c, GB_OUT_TEXT);
	/* the first line, before any number */
	{
		static const char line[] = "simulated GPU (A: h100-sxm (h100-sxm.json); B: h100-sxm "
					   "(h100-sxm.json)): these numbers are not measurements\n";

		assert_int_equal(strncmp(s, line, sizeof(line) - 1), 0);
	}
	free(s);
	/* the machine formats: a column, a property with both machines, a label */
	assert_prints(&c, GB_OUT_CSV,
		      ",per_dollar_b,simulated\r\ngemm,tflops_bf16,X,0,0,,GB/s,100,100,1,");
	assert_prints(&c, GB_OUT_CSV, ",unchanged,,,0.25,0.25,,,true\r\n");
	assert_prints(&c, GB_OUT_JUNIT, "\t\t\t<property name=\"simulated\" value=\"true\"/>\n"
					"\t\t\t<property name=\"simulated_machine_a\" "
					"value=\"h100-sxm (h100-sxm.json)\"/>\n"
					"\t\t\t<property name=\"simulated_machine_b\" "
					"value=\"h100-sxm (h100-sxm.json)\"/>\n");
	assert_prints(&c, GB_OUT_PROMETHEUS, "gpubench_compare_failed{simulated=\"true\"} 0\n");
	gb_compare_release(&c);
	/* two measured reports: false, and no machine */
	compare_pair(&a, &a, false, &c);
	assert_false(c.simulated);
	assert_prints(&c, GB_OUT_CSV, ",unchanged,,,0.25,0.25,,,false\r\n");
	assert_prints(&c, GB_OUT_JUNIT, "\t\t\t<property name=\"simulated\" value=\"false\"/>\n"
					"\t\t</properties>\n");
	assert_prints(&c, GB_OUT_PROMETHEUS, "gpubench_compare_failed{simulated=\"false\"} 0\n");
	s = print_to_string(&c, GB_OUT_JUNIT);
	assert_null(strstr(s, "simulated_machine"));
	free(s);
	s = print_to_string(&c, GB_OUT_CSV);
	assert_null(strstr(s, ",true\r\n"));
	free(s);
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

/* A that did not measure a benchmark, or a B whose benchmark ran: nothing to report */
static void test_incomplete_only_from_b(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;

	(void)state;
	pair(&a, &b);
	break_gemm(&a, GB_STATUS_ERROR, "A's own trouble");
	compare_pair(&a, &b, false, &c);
	assert_int_equal(c.n_missing, 0);
	assert_false(gb_compare_failed(&c));
	gb_compare_release(&c);
	/* a failed benchmark in B ran: its metrics are compared, not missing */
	gb_bench_set_status(&b.benches[1], GB_STATUS_FAILED, "a finding");
	compare_pair(&b, &b, false, &c);
	assert_int_equal(c.n_missing, 0);
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

/* ---- fleet ---- */

static void fleet_node(struct gb_run *run, const char *host, double t0, double t1)
{
	struct gb_bench_result *b;
	double s0[3] = { t0 - 1, t0, t0 + 1 }, s1[3] = { t1 - 1, t1, t1 + 1 };

	gb_run_init(run, "run", 0, NULL);
	run->host.hostname = gb_strdup(host);
	for (int i = 0; i < 2; i++) {
		struct gb_device_info *d = gb_run_add_device(run);

		d->index = i;
		d->name = gb_strdup("NVIDIA H100 80GB HBM3");
	}
	b = gb_run_add_bench(run, "gemm");
	gb_bench_param_str(b, "dtype", "bf16");
	gb_bench_add_metric(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, s0, 3, 989.4);
	gb_bench_add_metric(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 1, s1, 3, 989.4);
	gb_bench_add_value(b, "host_ms", "ms", GB_BETTER_LOWER, -1, 5, NAN);
	gb_run_verdict(run);
}

static void test_fleet_merge(void **state)
{
	struct gb_run nodes[4], out;
	const struct gb_run *ptrs[4];
	const char *names[] = { "n1.json", "n2.json", "n3.json", "n4.json" };
	const struct gb_bench_result *g;
	const cJSON *fl;
	char err[256];
	size_t outliers = 0;

	(void)state;
	fleet_node(&nodes[0], "node-1", 742, 740);
	fleet_node(&nodes[1], "node-2", 741, 739);
	fleet_node(&nodes[2], "node-3", 743, 612); /* one slow GPU */
	fleet_node(&nodes[3], "node-4", 740, 741);
	for (int i = 0; i < 4; i++)
		ptrs[i] = &nodes[i];
	gb_run_init(&out, "fleet", 0, NULL);
	assert_int_equal(gb_fleet_merge(ptrs, names, 4, GB_FLEET_MAD_K, &out, err, sizeof(err)), 0);
	assert_int_equal(out.n_devices, 8);
	assert_int_equal(out.devices[5].index, 5);
	assert_string_equal(out.benches[0].name, "fleet");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(out.benches[0].extra, "nodes")),
			 4);
	assert_int_equal(out.n_benches, 2);
	g = &out.benches[1];
	assert_int_equal(g->n_metrics, 12);
	for (size_t i = 0; i < g->n_checks; i++) {
		if (strcmp(g->checks[i].name, "tflops_bf16_fleet_outlier"))
			continue;
		outliers++;
		assert_int_equal(g->checks[i].status, GB_STATUS_FAILED);
		assert_int_equal(g->checks[i].device, 5); /* node-3's GPU 1 */
		assert_non_null(strstr(g->checks[i].message, "'node-3' GPU 5"));
		/* and as node-3 numbers it, so it can be found there */
		assert_non_null(strstr(g->checks[i].message, "(GPU 1 on that node, NVIDIA H100"));
		assert_non_null(strstr(g->checks[i].message, "below the fleet median"));
	}
	assert_int_equal(outliers, 1);
	fl = cJSON_GetObjectItem(g->extra, "fleet");
	assert_int_equal(cJSON_GetArraySize(fl), 2); /* tflops_bf16 per model, host_ms per node */
	gb_run_verdict(&out);
	assert_int_equal(out.verdict, GB_STATUS_FAILED);
	gb_run_release(&out);
	for (int i = 0; i < 4; i++)
		gb_run_release(&nodes[i]);
}

/* another host with GPUs of its own */
static void make_node(struct gb_run *run, const char *host)
{
	free(run->host.hostname);
	run->host.hostname = gb_strdup(host);
	for (size_t i = 0; i < run->n_devices; i++) {
		free(run->devices[i].uuid);
		run->devices[i].uuid = gb_strdupf("GPU-%s-%zu", host, i);
	}
}

/*
 * The same node twice would count twice toward every median: it is merged
 * once, the later report left out with a warning naming both files.
 */
static void test_fleet_duplicates(void **state)
{
	struct gb_run n[3], out;
	const struct gb_run *ptrs[3] = { &n[0], &n[1], &n[2] };
	const char *names[] = { "n1.json", "n2.json", "n3.json" };
	const struct gb_bench_result *fl;
	char err[512];

	(void)state;
	for (int i = 0; i < 3; i++) {
		char host[16];

		fleet_node(&n[i], "node", 742, 740);
		snprintf(host, sizeof(host), "node-%d", i + 1);
		make_node(&n[i], host);
	}
	gb_run_init(&out, "fleet", 0, NULL);
	assert_int_equal(gb_fleet_merge(ptrs, names, 3, GB_FLEET_MAD_K, &out, err, sizeof(err)), 0);
	assert_int_equal(out.n_devices, 6);
	assert_int_equal(out.benches[0].n_checks, 0);
	gb_run_release(&out);
	/* a GPU in two reports: the later report is left out */
	free(n[2].devices[1].uuid);
	n[2].devices[1].uuid = gb_strdup(n[0].devices[1].uuid);
	gb_run_init(&out, "fleet", 0, NULL);
	assert_int_equal(gb_fleet_merge(ptrs, names, 3, GB_FLEET_MAD_K, &out, err, sizeof(err)), 0);
	assert_int_equal(out.n_devices, 4);
	assert_string_equal(out.host.hostname, "fleet of 2 nodes");
	fl = &out.benches[0];
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(fl->extra, "nodes")), 2);
	assert_int_equal(fl->n_checks, 1);
	assert_string_equal(fl->checks[0].name, "duplicate_node");
	assert_int_equal(fl->checks[0].status, GB_STATUS_WARNING);
	assert_string_equal(fl->checks[0].message,
			    "'n3.json' holds GPU GPU-node-1-1, as 'n1.json' does: the same node "
			    "merged twice would count twice toward every fleet median, so "
			    "'n3.json' is left out");
	gb_run_verdict(&out);
	assert_int_equal(out.verdict, GB_STATUS_WARNING);
	gb_run_release(&out);
	/* the same host with no GPUs twice (two reports of a node without a driver) */
	for (int i = 0; i < 3; i++) {
		gb_run_release(&n[i]);
		gb_run_init(&n[i], "run", 0, NULL);
		n[i].host.hostname = gb_strdupf("node-%d", i == 2 ? 1 : i + 1);
	}
	gb_run_init(&out, "fleet", 0, NULL);
	assert_int_equal(gb_fleet_merge(ptrs, names, 3, GB_FLEET_MAD_K, &out, err, sizeof(err)), 0);
	assert_int_equal(out.benches[0].n_checks, 1);
	assert_string_equal(out.benches[0].checks[0].message,
			    "'n3.json' is the same node as 'n1.json' ('node-1', same GPUs), so it "
			    "is left out");
	gb_run_release(&out);
	for (int i = 0; i < 3; i++)
		gb_run_release(&n[i]);
}

/* The renderings' view of a fleet: each node, its GPUs and its findings. */
static void test_fleet_nodes(void **state)
{
	struct gb_run nodes[4], out;
	const struct gb_run *ptrs[4];
	const char *names[] = { "n1.json", "n2.json", "n3.json", "n4.json" };
	struct gb_fleet_node *fn;
	char err[256], list[64];
	size_t n;
	int devs[] = { 0, 1, 2, 5, 7, 8 };

	(void)state;
	for (int i = 0; i < 4; i++) {
		char host[16];

		snprintf(host, sizeof(host), "node-%d", i + 1);
		fleet_node(&nodes[i], host, 742, i == 2 ? 612 : 740);
		make_node(&nodes[i], host);
		ptrs[i] = &nodes[i];
	}
	assert_null(gb_fleet_nodes(&nodes[0], &n));
	assert_int_equal(n, 0);
	gb_run_init(&out, "fleet", 0, NULL);
	assert_int_equal(gb_fleet_merge(ptrs, names, 4, GB_FLEET_MAD_K, &out, err, sizeof(err)), 0);
	fn = gb_fleet_nodes(&out, &n);
	assert_int_equal(n, 4);
	assert_string_equal(fn[2].host, "node-3");
	assert_string_equal(fn[2].file, "n3.json");
	assert_int_equal(fn[2].n_devices, 2);
	assert_int_equal(fn[2].devices[1], 5);
	assert_int_equal(fn[2].failed, 1); /* the slow GPU */
	assert_int_equal(fn[0].failed, 0);
	assert_string_equal(gb_fleet_node_of(fn, n, 5), "node-3");
	assert_null(gb_fleet_node_of(fn, n, 8));
	gb_fleet_nodes_free(fn, n);
	gb_fleet_device_list(list, sizeof(list), devs, 6);
	assert_string_equal(list, "0-2,5,7-8");
	gb_fleet_device_list(list, sizeof(list), devs, 0);
	assert_string_equal(list, "-");
	gb_run_release(&out);
	for (int i = 0; i < 4; i++)
		gb_run_release(&nodes[i]);
}

/*
 * A node that could not finish (no GPU, a rank whose report never came)
 * has no benchmark saying so: the fleet must not pass without it.
 */
static void test_fleet_node_status(void **state)
{
	struct gb_run n[3], out;
	const struct gb_run *ptrs[3] = { &n[0], &n[1], &n[2] };
	const char *names[] = { "rank 0", "rank 1", "rank 2" };
	const struct gb_bench_result *fl;
	const cJSON *node;
	char err[256];

	(void)state;
	fleet_node(&n[0], "node-1", 742, 740);
	make_node(&n[0], "node-1");
	fleet_node(&n[1], "node-2", 742, 740);
	make_node(&n[1], "node-2");
	gb_fleet_missing_node(&n[2], 2, "node-3", 30, NULL);
	assert_int_equal(n[2].status, GB_STATUS_ERROR);
	assert_int_equal(n[2].verdict, GB_STATUS_ERROR);
	assert_null(n[2].started_at); /* it never ran: no invented time */
	assert_string_equal(n[2].host.hostname, "node-3");
	assert_string_equal(n[2].reason, "rank 2 on host 'node-3': its report did not arrive "
					 "within 30 s (the rank stopped, hangs or is still running)");
	gb_run_init(&out, "fleet", 0, NULL);
	assert_int_equal(gb_fleet_merge(ptrs, names, 3, GB_FLEET_MAD_K, &out, err, sizeof(err)), 0);
	fl = &out.benches[0];
	assert_int_equal(fl->status, GB_STATUS_ERROR);
	assert_int_equal(fl->n_checks, 1);
	assert_string_equal(fl->checks[0].name, "node_status");
	assert_int_equal(fl->checks[0].status, GB_STATUS_ERROR);
	assert_non_null(strstr(fl->checks[0].message, "node-3: rank 2 on host 'node-3'"));
	node = cJSON_GetArrayItem(cJSON_GetObjectItem(fl->extra, "nodes"), 2);
	assert_string_equal(cJSON_GetObjectItem(node, "host")->valuestring, "node-3");
	assert_string_equal(cJSON_GetObjectItem(node, "verdict")->valuestring, "error");
	assert_string_equal(cJSON_GetObjectItem(node, "status")->valuestring, "error");
	assert_non_null(strstr(cJSON_GetObjectItem(node, "reason")->valuestring, "rank 2"));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(
		cJSON_GetObjectItem(fl->extra, "nodes"), 0), "reason")));
	gb_run_verdict(&out);
	assert_int_equal(out.verdict, GB_STATUS_ERROR); /* not passed: a node is missing */
	gb_run_release(&out);
	/* an interrupted node outranks one that could not run; a finding outranks both */
	gb_run_set_status(&n[1], GB_STATUS_INTERRUPTED, "interrupted");
	gb_run_init(&out, "fleet", 0, NULL);
	assert_int_equal(gb_fleet_merge(ptrs, names, 3, GB_FLEET_MAD_K, &out, err, sizeof(err)), 0);
	assert_int_equal(out.benches[0].status, GB_STATUS_INTERRUPTED);
	assert_int_equal(out.benches[0].n_checks, 2);
	gb_run_verdict(&out);
	assert_int_equal(out.verdict, GB_STATUS_INTERRUPTED);
	gb_run_release(&out);
	gb_run_release(&n[2]);
	gb_fleet_missing_node(&n[2], 7, NULL, 0, "its report cannot be read: not JSON");
	assert_string_equal(n[2].reason,
			    "rank 7 on host 'unknown': its report cannot be read: not JSON");
	for (int i = 0; i < 3; i++)
		gb_run_release(&n[i]);
}

/* Node reports beside the fleet report, and a host name cannot leave the folder. */
static void test_fleet_node_report_path(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(gb_fleet_node_report_path(buf, sizeof(buf), "out/fleet.json", "node-3"),
			 0);
	assert_string_equal(buf, "out/fleet.node-3.json");
	assert_int_equal(gb_fleet_node_report_path(buf, sizeof(buf), "fleet", "a.b_c"), 0);
	assert_string_equal(buf, "fleet.a.b_c.json");
	assert_int_equal(gb_fleet_node_report_path(buf, sizeof(buf), "r.json", "../x y"), 0);
	assert_string_equal(buf, "r..._x_y.json");
	assert_int_equal(gb_fleet_node_report_path(buf, sizeof(buf), "r.json", ""), 0);
	assert_string_equal(buf, "r.unknown.json");
	/* "fleet.node-30.json" is 18 characters: 19 bytes fit, 18 do not */
	assert_int_equal(gb_fleet_node_report_path(buf, 18, "fleet.json", "node-30"), -1);
	assert_int_equal(gb_fleet_node_report_path(buf, 19, "fleet.json", "node-30"), 0);
	assert_string_equal(buf, "fleet.node-30.json");
}

/* The merged report is an ordinary report: it matches the schema. */
static void test_fleet_matches_schema(void **state)
{
	struct gb_run a, b, c, out;
	const struct gb_run *ptrs[3] = { &a, &b, &c };
	const char *names[] = { "base.json", "regressed.json", "improved.json" };
	const char *schema = getenv("GPUBENCH_SCHEMA");
	char path[] = "/tmp/gb_test_fleet.XXXXXX", err[512], cmd[2048], script[1024];
	int fd;

	(void)state;
	if (!schema)
		skip();
	load("base.json", &a);
	load("regressed.json", &b);
	load("improved.json", &c);
	/* three runs of one node: made three nodes, or the merge refuses them */
	make_node(&b, "gpu-node-18");
	make_node(&c, "gpu-node-19");
	gb_run_init(&out, "fleet", 0, NULL);
	assert_int_equal(gb_fleet_merge(ptrs, names, 3, GB_FLEET_MAD_K, &out, err, sizeof(err)), 0);
	gb_run_verdict(&out);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(gb_report_write_file(&out, path, err, sizeof(err)), 0);
	data_path(script, sizeof(script), "../cli/validate_report.py");
	snprintf(cmd, sizeof(cmd), "python3 '%s' --strict '%s' '%s'", script, schema, path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
	gb_run_release(&out);
	gb_run_release(&a);
	gb_run_release(&b);
	gb_run_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regression),
		cmocka_unit_test(test_noise_within_spread_passes),
		cmocka_unit_test(test_improvement_and_one_side),
		cmocka_unit_test(test_different_models),
		cmocka_unit_test(test_power_sources),
		cmocka_unit_test(test_tolerance_per_metric),
		cmocka_unit_test(test_nothing_in_common),
		cmocka_unit_test(test_params_key),
		cmocka_unit_test(test_software_upgrade),
		cmocka_unit_test(test_params_split_rows),
		cmocka_unit_test(test_directions),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_b_bench_did_not_run),
		cmocka_unit_test(test_b_run_ended_early),
		cmocka_unit_test(test_incomplete_only_from_b),
		cmocka_unit_test(test_b_lacks_metric_or_gpu),
		cmocka_unit_test(test_gpus_paired_by_uuid),
		cmocka_unit_test(test_simulated_refused),
		cmocka_unit_test(test_fleet_merge),
		cmocka_unit_test(test_fleet_duplicates),
		cmocka_unit_test(test_fleet_nodes),
		cmocka_unit_test(test_fleet_node_status),
		cmocka_unit_test(test_fleet_node_report_path),
		cmocka_unit_test(test_fleet_matches_schema),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
