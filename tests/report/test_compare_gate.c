/* SPDX-License-Identifier: MIT */
/*
 * test_compare_gate.c - issue 26's findings about `compare`, each on a pair
 * of reports built here the way the benchmarks write them:
 *
 * The gate holds:
 * - telemetry-derived metrics that one run observed and the next did not
 *   (gemm's pct_of_observed_clock_peak_fp32, sm_mhz_mean_fp32,
 *   power_w_mean_fp32, temp_c_max_fp32) do not make B incomplete;
 * - stress's tflops_settled with a value in A and null in B is no
 *   regression, with or without --allow-missing;
 * - stress's gemms is higher-is-better, also in a baseline an older build
 *   wrote as lower-is-better (1102 -> 652 GEMMs regresses);
 * - scaling's measured sizing in params (gemms_per_step 808 vs 807) does not
 *   split the key, so a drop of speedup_n2 1.903 -> 1.631 is a regression
 *   even with --allow-missing, and worker_compute_ms_n2 names GPU 1.
 *
 * Side by side is a comparison (A100 against RTX 4090):
 * - p2p skipped in B (no peer access) is "not applicable", exit 0, and so
 *   are metrics with no counterpart; a benchmark that errored in B still
 *   makes B incomplete;
 * - per watt and per dollar only for throughput (never MHz);
 * - the GPU index in every format (text, Markdown, CSV, HTML, JSON);
 * - the same words in every format ("worse in B", never "regressions").
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

#include "report/compare.h"
#include "report/result.h"

/* ---- helpers ---- */

static struct gb_bench_result *bench(struct gb_run *run, const char *name)
{
	struct gb_bench_result *b = gb_run_add_bench(run, name);

	for (size_t i = 0; i < run->n_devices; i++)
		gb_bench_add_device(b, (int)i);
	return b;
}

static void node(struct gb_run *run, const char *model, int gpus, double power_limit)
{
	gb_run_init(run, "run", 0, NULL);
	run->host.hostname = gb_strdup("node");
	for (int i = 0; i < gpus; i++) {
		struct gb_device_info *d = gb_run_add_device(run);

		d->index = i;
		d->name = gb_strdup(model);
		d->power_limit_w = power_limit;
	}
}

/* five samples around center, spread 1% */
static void rate(struct gb_bench_result *b, const char *name, const char *unit, int dev,
		 double center)
{
	double s[5] = { center * 0.99, center * 0.995, center, center * 1.005, center * 1.01 };

	gb_bench_add_metric(b, name, unit, GB_BETTER_HIGHER, dev, s, 5, NAN);
}

static void run_compare(const struct gb_run *a, const struct gb_run *b, bool allow,
			struct gb_compare *c)
{
	struct gb_compare_opts o;
	char err[256];

	gb_compare_opts_init(&o);
	o.allow_missing = allow;
	if (gb_compare_runs(a, "a.json", b, "b.json", &o, c, err, sizeof(err)))
		fail_msg("%s", err);
}

static const struct gb_cmp_row *row(const struct gb_compare *c, const char *bench,
				    const char *metric, int dev)
{
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct gb_cmp_row *r = &c->rows[i];
		int d = r->a.device >= 0 ? r->a.device : r->b.device;

		if (!strcmp(r->bench, bench) && !strcmp(r->metric, metric) && d == dev)
			return r;
	}
	fail_msg("no row %s/%s on %d", bench, metric, dev);
	return NULL;
}

static char *print(const struct gb_compare *c, enum gb_out_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(gb_compare_print(c, f, m), 0);
	fclose(m);
	return buf;
}

static void assert_has(const char *s, const char *needle)
{
	if (!strstr(s, needle))
		fail_msg("'%s' not in:\n%s", needle, s);
}

static void assert_lacks(const char *s, const char *needle)
{
	if (strstr(s, needle))
		fail_msg("'%s' unexpectedly in:\n%s", needle, s);
}

/* ---- the gate holds ---- */

/* gemm on two GPUs; with_telemetry: the job's telemetry metrics, as when the sampler saw it */
static void gemm_fp32(struct gb_run *run, bool tel0, bool tel1, double tflops1)
{
	struct gb_bench_result *g = bench(run, "gemm");
	bool tel[2] = { tel0, tel1 };

	gb_bench_param_str(g, "precision", "auto");
	gb_bench_param_num(g, "m", 2048);
	for (int d = 0; d < 2; d++) {
		rate(g, "tflops_fp32", "TFLOP/s", d, d ? tflops1 : 80);
		rate(g, "pct_of_max_clock_peak_fp32", "%", d, (d ? tflops1 : 80) / 0.9);
		if (!tel[d])
			continue;
		rate(g, "pct_of_observed_clock_peak_fp32", "%", d, 95);
		gb_bench_add_value(g, "sm_mhz_mean_fp32", "MHz", GB_BETTER_NONE, d, 2520, NAN);
		gb_bench_add_value(g, "power_w_mean_fp32", "W", GB_BETTER_NONE, d, 270, NAN);
		gb_bench_add_value(g, "temp_c_max_fp32", "C", GB_BETTER_LOWER, d, 45, NAN);
	}
}

static void test_telemetry_seen_once_is_not_a_loss(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;

	(void)state;
	node(&a, "NVIDIA GeForce RTX 4090", 2, 450);
	node(&b, "NVIDIA GeForce RTX 4090", 2, 450);
	gemm_fp32(&a, true, true, 80);
	gemm_fp32(&b, true, false, 80); /* GPU 1's job ended before the sampler saw it */
	run_compare(&a, &b, false, &c);
	assert_int_equal(c.n_missing, 0);
	assert_false(gb_compare_failed(&c));
	assert_string_equal(gb_compare_result_words(&c), "passed");
	assert_int_equal(row(&c, "gemm", "pct_of_observed_clock_peak_fp32", 1)->cls,
			 GB_CMP_ONLY_A);
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

static void stress(struct gb_run *run, double settled, double gemms1, bool old_direction)
{
	struct gb_bench_result *s = bench(run, "stress");

	gb_bench_param_num(s, "m", 1024);
	for (int d = 0; d < 2; d++) {
		struct gb_metric *m;

		rate(s, "tflops", "TFLOP/s", d, 150);
		gb_bench_add_value(s, "tflops_settled", "TFLOP/s", GB_BETTER_HIGHER, d,
				   d ? settled : 150, NAN);
		m = gb_bench_add_value(s, "gemms", "count", GB_BETTER_LOWER, d, d ? gemms1 : 1102,
				       NAN);
		gb_bench_add_value(s, "sm_mhz_mean", "MHz", GB_BETTER_HIGHER, d, 2520, NAN);
		if (old_direction) /* what a report of an older build says */
			m->better = GB_BETTER_LOWER;
	}
}

static void test_settled_null_in_b(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;

	(void)state;
	node(&a, "NVIDIA GeForce RTX 4090", 2, 450);
	node(&b, "NVIDIA GeForce RTX 4090", 2, 450);
	stress(&a, 150, 1102, false);
	stress(&b, NAN, 1102, false); /* "too few intervals" on GPU 1 */
	for (int allow = 0; allow < 2; allow++) {
		run_compare(&a, &b, allow, &c);
		assert_int_not_equal(row(&c, "stress", "tflops_settled", 1)->cls,
				     GB_CMP_REGRESSION);
		assert_int_equal(c.n_missing, 0);
		assert_false(gb_compare_failed(&c));
		gb_compare_release(&c);
	}
	gb_run_release(&a);
	gb_run_release(&b);
}

static void test_stress_gemms_higher_is_better(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;
	char *s;

	(void)state;
	/* a slow GPU 1 does 652 GEMMs where it did 1102: a regression naming it */
	node(&a, "NVIDIA GeForce RTX 4090", 2, 450);
	node(&b, "NVIDIA GeForce RTX 4090", 2, 450);
	stress(&a, 150, 1102, true);
	stress(&b, 150, 652, true);
	run_compare(&a, &b, false, &c);
	assert_int_equal(row(&c, "stress", "gemms", 1)->better, GB_BETTER_HIGHER);
	assert_int_equal(row(&c, "stress", "gemms", 1)->cls, GB_CMP_REGRESSION);
	assert_true(gb_compare_failed(&c));
	s = print(&c, GB_OUT_TEXT);
	assert_has(s, "\n  stress gemms on GPU 1: 1102 -> 652 count (-40.8%)\n");
	free(s);
	gb_compare_release(&c);
	gb_run_release(&b);
	/* 9.5% more GEMMs is an improvement */
	node(&b, "NVIDIA GeForce RTX 4090", 2, 450);
	stress(&b, 150, 1207, true);
	run_compare(&a, &b, false, &c);
	assert_int_equal(row(&c, "stress", "gemms", 1)->cls, GB_CMP_IMPROVEMENT);
	assert_false(gb_compare_failed(&c));
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

/* scaling as a report of the build before: the measured sizing in params */
static void scaling(struct gb_run *run, double gemms_per_step, double speedup, double compute1)
{
	struct gb_bench_result *s = bench(run, "scaling");
	double sp[3] = { speedup * 0.999, speedup, speedup * 1.001 };
	double eff[3] = { sp[0] * 50, sp[1] * 50, sp[2] * 50 };

	gb_bench_param_str(s, "workload", "ddp");
	gb_bench_param_num(s, "gemm_size", 8192);
	gb_bench_param_num(s, "gemms_per_step", gemms_per_step);
	gb_bench_param_num(s, "work_tflop_per_step", gemms_per_step * 2 * 8192.0 * 8192 * 8192 / 1e12);
	gb_bench_add_metric(s, "speedup_n2", "x", GB_BETTER_HIGHER, -1, sp, 3, 2);
	gb_bench_add_metric(s, "efficiency_n2", "%", GB_BETTER_HIGHER, -1, eff, 3, 100);
	gb_bench_add_value(s, "worker_compute_ms_n2", "ms", GB_BETTER_LOWER, 0, 100, NAN);
	gb_bench_add_value(s, "worker_compute_ms_n2", "ms", GB_BETTER_LOWER, 1, compute1, NAN);
}

static void test_scaling_drop_is_a_regression(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;
	char *s;

	(void)state;
	node(&a, "NVIDIA A100-SXM4-80GB", 2, 400);
	node(&b, "NVIDIA A100-SXM4-80GB", 2, 400);
	scaling(&a, 808, 1.903, 100);
	scaling(&b, 807, 1.631, 117.6); /* GPU 1 at 85% */
	for (int allow = 0; allow < 2; allow++) {
		run_compare(&a, &b, allow, &c);
		assert_int_equal(c.count[GB_CMP_ONLY_A] + c.count[GB_CMP_ONLY_B], 0);
		assert_int_equal(row(&c, "scaling", "speedup_n2", -1)->cls, GB_CMP_REGRESSION);
		assert_int_equal(row(&c, "scaling", "efficiency_n2", -1)->cls, GB_CMP_REGRESSION);
		assert_int_equal(row(&c, "scaling", "worker_compute_ms_n2", 1)->cls,
				 GB_CMP_REGRESSION);
		assert_int_equal(row(&c, "scaling", "worker_compute_ms_n2", 0)->cls,
				 GB_CMP_UNCHANGED);
		assert_null(strstr(row(&c, "scaling", "speedup_n2", -1)->params, "gemms_per_step"));
		assert_true(gb_compare_failed(&c));
		s = print(&c, GB_OUT_TEXT);
		assert_has(s, "  scaling speedup_n2 on all GPUs: 1.903 -> 1.631 x (-14.3%)\n");
		assert_has(s, "  scaling worker_compute_ms_n2 on GPU 1: 100 -> 117.6 ms (+17.6%)\n");
		free(s);
		gb_compare_release(&c);
	}
	gb_run_release(&a);
	gb_run_release(&b);
}

/* ---- side by side ---- */

/* gemm, stress and p2p of a node; p2p skipped where there is no peer access */
static void node_benches(struct gb_run *run, double tflops, double watts, bool peer)
{
	struct gb_bench_result *g = bench(run, "gemm"), *s, *p;

	gb_bench_param_num(g, "m", 2048);
	for (int d = 0; d < 2; d++) {
		rate(g, "tflops_bf16", "TFLOP/s", d, tflops);
		gb_bench_add_value(g, "power_w_mean_bf16", "W", GB_BETTER_NONE, d, watts, NAN);
		gb_bench_add_value(g, "sm_mhz_mean_bf16", "MHz", GB_BETTER_NONE, d, 1400, NAN);
	}
	s = bench(run, "stress");
	for (int d = 0; d < 2; d++)
		gb_bench_add_value(s, "sm_mhz_mean", "MHz", GB_BETTER_HIGHER, d, 1400, NAN);
	p = bench(run, "p2p");
	if (!peer) {
		gb_bench_set_status(p, GB_STATUS_SKIPPED, "no pair of GPUs has peer access");
		return;
	}
	rate(p, "uni_ce_to_gpu1_gbps", "GB/s", 0, 250);
	rate(p, "uni_ce_to_gpu0_gbps", "GB/s", 1, 250);
}

static void side_by_side(struct gb_run *a, struct gb_run *b, struct gb_compare *c)
{
	struct gb_compare_opts o;
	char err[256];

	node(a, "NVIDIA A100-SXM4-80GB", 2, 400);
	node(b, "NVIDIA GeForce RTX 4090", 2, 450);
	node_benches(a, 250, 400, true);
	node_benches(b, 150, 300, false);
	gb_compare_opts_init(&o);
	o.price_a = 1.8;
	o.price_b = 0.4;
	if (gb_compare_runs(a, "a100.json", b, "rtx4090.json", &o, c, err, sizeof(err)))
		fail_msg("%s", err);
}

static void test_side_by_side_not_applicable(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;
	cJSON *doc, *na;
	char *s;

	(void)state;
	side_by_side(&a, &b, &c);
	assert_true(c.different_models);
	assert_int_equal(c.n_missing, 0);
	assert_false(gb_compare_failed(&c));
	assert_int_equal(c.n_na, 1);
	assert_int_equal(c.na[0].side, 'B');
	assert_string_equal(c.na[0].bench, "p2p");
	assert_string_equal(c.na[0].message,
			    "p2p does not apply to B (skipped: no pair of GPUs has peer access); "
			    "A measured 2 metrics");
	s = print(&c, GB_OUT_TEXT);
	assert_has(s, "Not applicable (other hardware; listed, not failed):\n  p2p does not apply");
	assert_has(s, "result: passed (side by side, not gated)\n");
	assert_lacks(s, "incomplete");
	free(s);
	s = print(&c, GB_OUT_JSON);
	doc = cJSON_Parse(s);
	na = cJSON_GetObjectItem(doc, "not_applicable");
	assert_int_equal(cJSON_GetArraySize(na), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(na, 0), "side")->valuestring,
			    "b");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "incomplete")), 0);
	assert_int_equal(cJSON_GetObjectItem(doc, "exit_code")->valueint, 0);
	cJSON_Delete(doc);
	free(s);
	s = print(&c, GB_OUT_JUNIT);
	assert_has(s, "name=\"applies to B\"");
	assert_lacks(s, "<failure");
	free(s);
	gb_compare_release(&c);
	/* the other way round: p2p does not apply to A */
	if (gb_compare_runs(&b, "rtx4090.json", &a, "a100.json", &(struct gb_compare_opts){
				    .tolerance = 0.05, .spread_k = 2, .price_a = NAN,
				    .price_b = NAN },
			    &c, (char[256]){ 0 }, 256))
		fail();
	assert_int_equal(c.n_na, 1);
	assert_int_equal(c.na[0].side, 'A');
	assert_false(gb_compare_failed(&c));
	gb_compare_release(&c);
	/* a benchmark that errored in B is still a B that could not run */
	gb_bench_set_status(&b.benches[0], GB_STATUS_ERROR, "out of memory");
	if (gb_compare_runs(&a, "a100.json", &b, "rtx4090.json", &(struct gb_compare_opts){
				    .tolerance = 0.05, .spread_k = 2, .price_a = NAN,
				    .price_b = NAN },
			    &c, (char[256]){ 0 }, 256))
		fail();
	assert_int_equal(c.n_missing, 1);
	assert_true(gb_compare_failed(&c));
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

static void test_side_by_side_per_watt_and_dollar(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;
	const struct gb_cmp_row *r;

	(void)state;
	side_by_side(&a, &b, &c);
	r = row(&c, "gemm", "tflops_bf16", 1);
	assert_true(fabs(r->a.per_watt - 250.0 / 400) < 1e-9);
	assert_true(fabs(r->b.per_watt - 150.0 / 300) < 1e-9);
	assert_true(fabs(r->a.per_dollar - 250 / 1.8) < 1e-9);
	assert_true(fabs(r->b.per_dollar - 150 / 0.4) < 1e-9);
	/* a clock is not a throughput, whatever direction the report gives it */
	r = row(&c, "stress", "sm_mhz_mean", 0);
	assert_true(isnan(r->a.per_watt) && isnan(r->b.per_watt));
	assert_true(isnan(r->a.per_dollar) && isnan(r->b.per_dollar));
	r = row(&c, "gemm", "sm_mhz_mean_bf16", 0);
	assert_true(isnan(r->a.per_watt) && isnan(r->b.per_dollar));
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

static void test_side_by_side_gpu_index_and_words(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;
	char *s;

	(void)state;
	side_by_side(&a, &b, &c);
	/* GPU 1 of each, its own row, with its index, in every format */
	s = print(&c, GB_OUT_TEXT);
	assert_has(s, "benchmark  metric");
	assert_has(s, "  GPU  ");
	assert_has(s, "gemm       tflops_bf16 (TFLOP/s)         1   250   150  0.600");
	assert_has(s, "2 worse in B");
	assert_has(s, "; changes not gated\n");
	assert_lacks(s, "regression");
	free(s);
	s = print(&c, GB_OUT_MARKDOWN);
	assert_has(s, "| benchmark | metric | GPU | A | B |");
	assert_has(s, "| gemm | tflops_bf16 (TFLOP/s) | 1 | 250 | 150 |");
	assert_has(s, "2 worse in B");
	assert_lacks(s, "regression");
	free(s);
	s = print(&c, GB_OUT_CSV);
	assert_has(s, "\r\ngemm,tflops_bf16,NVIDIA A100-SXM4-80GB / NVIDIA GeForce RTX 4090,1,1,");
	free(s);
	s = print(&c, GB_OUT_HTML);
	assert_has(s, "<td class=\"gpu\">1 NVIDIA A100-SXM4-80GB / NVIDIA GeForce RTX 4090</td>");
	assert_has(s, "2 worse in B");
	assert_has(s, "changes not gated");
	assert_lacks(s, "regressions");
	free(s);
	s = print(&c, GB_OUT_PROMETHEUS);
	assert_has(s, "gpubench_compare_rows{class=\"b_worse\",simulated=\"false\"} 2\n");
	assert_has(s, "gpubench_compare_not_applicable{benchmark=\"p2p\",side=\"b\"");
	free(s);
	s = print(&c, GB_OUT_JSON);
	assert_has(s, "\"mode\":\t\"different_models\"");
	assert_has(s, "\"result\":\t\"passed (side by side, not gated)\"");
	free(s);
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_telemetry_seen_once_is_not_a_loss),
		cmocka_unit_test(test_settled_null_in_b),
		cmocka_unit_test(test_stress_gemms_higher_is_better),
		cmocka_unit_test(test_scaling_drop_is_a_regression),
		cmocka_unit_test(test_side_by_side_not_applicable),
		cmocka_unit_test(test_side_by_side_per_watt_and_dollar),
		cmocka_unit_test(test_side_by_side_gpu_index_and_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
