/* SPDX-License-Identifier: MIT */
/*
 * test_published.c - report/published.c: the compiled-in figures parse, every
 * one names its source, each model is a catalog key, the metrics map to the
 * figures that measure the same thing, and a report carries the comparison
 * through the JSON writer and back through the loader.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/json.h"
#include "report/published.h"
#include "report/result.h"
#include "report/theory.h"

/* The figures issue 28 asked for, as verified at their sources (report/published.json). */
static void test_figures_are_there(void **state)
{
	const struct gb_published *p;

	(void)state;
	assert_int_equal(gb_published_ok(), 0);
	p = gb_published_get("h100-sxm", "gemm_bf16_tflops");
	assert_non_null(p);
	assert_true(fabs(p->value - 794.5) < 1e-9);
	assert_non_null(strstr(p->source, "ml-engineering"));
	assert_true(p->n_sources >= 2);
	p = gb_published_get("a100-sxm4-80gb", "allreduce_busbw_gbps_8gpu");
	assert_non_null(p);
	assert_true(p->value > 200 && p->value < 250);
	/* a range stands for its middle */
	p = gb_published_get("rtx4090", "h2d_gbps");
	assert_non_null(p);
	assert_true(isfinite(p->low) && isfinite(p->high));
	assert_true(fabs(p->value - (p->low + p->high) / 2) < 1e-9);
	/* what no source measured is absent, not guessed */
	assert_null(gb_published_get("rtx4090", "gemm_fp8_tflops"));
	assert_null(gb_published_get("h100-sxm", "no_such_figure"));
	assert_null(gb_published_get("no-such-gpu", "gemm_bf16_tflops"));
}

/* Every entry of the file: a catalog model, a known figure, a value or range, a source. */
static void test_every_entry_is_sourced(void **state)
{
	cJSON *doc = cJSON_Parse((const char *)gb_published_json), *model, *fig, *e;
	int n = 0;

	(void)state;
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring,
			    GB_PUBLISHED_SCHEMA);
	cJSON_ArrayForEach(model, cJSON_GetObjectItem(doc, "models"))
	{
		assert_non_null(gb_gpu_spec_by_key(model->string));
		cJSON_ArrayForEach(fig, model)
		{
			int known = 0;

			for (size_t i = 0; i < GB_PUBLISHED_N_FIGURES; i++)
				known |= strcmp(fig->string, gb_published_figures[i].figure) == 0;
			assert_true(known);
			cJSON_ArrayForEach(e, fig)
			{
				const cJSON *v = cJSON_GetObjectItem(e, "value"),
					    *lo = cJSON_GetObjectItem(e, "low");

				assert_true(cJSON_IsNumber(v) || cJSON_IsNumber(lo));
				assert_true(cJSON_IsString(cJSON_GetObjectItem(e, "source")));
				assert_true(cJSON_IsString(cJSON_GetObjectItem(e, "conditions")));
				assert_true(cJSON_IsString(cJSON_GetObjectItem(e, "quote")));
				n++;
			}
		}
	}
	assert_true(n >= 30);
	cJSON_Delete(doc);
}

static void test_metric_to_figure(void **state)
{
	(void)state;
	assert_string_equal(gb_published_figure_of("gemm", "tflops_bf16", 0, 1),
			    "gemm_bf16_tflops");
	assert_string_equal(gb_published_figure_of("gemm", "tflops_fp8", 0, 1), "gemm_fp8_tflops");
	assert_null(gb_published_figure_of("gemm", "tflops_fp32", 0, 1));
	assert_null(gb_published_figure_of("gemm", "sm_mhz_mean_bf16", 0, 1));
	assert_string_equal(gb_published_figure_of("bandwidth", "h2d_ce_pinned_gbps", 0, 1),
			    "h2d_gbps");
	/* the sources count a device copy's bytes read plus written: DRAM traffic */
	assert_string_equal(gb_published_figure_of("bandwidth", "d2d_ce_dram_gbps", 0, 1),
			    "device_copy_gbps");
	assert_null(gb_published_figure_of("bandwidth", "d2d_ce_gbps", 0, 1));
	assert_null(gb_published_figure_of("bandwidth", "h2d_sm_pinned_gbps", 0, 1));
	assert_string_equal(gb_published_figure_of("p2p", "uni_ce_to_gpu3_gbps", 1, 8),
			    "nvlink_oneway_gbps");
	assert_null(gb_published_figure_of("p2p", "uni_ce_to_gpu3_gbps", 0, 8));
	assert_null(gb_published_figure_of("p2p", "bidir_ce_to_gpu3_gbps", 1, 8));
	assert_string_equal(gb_published_figure_of("nccl", "allreduce_busbw_peak_gbps", 0, 8),
			    "allreduce_busbw_gbps_8gpu");
	assert_null(gb_published_figure_of("nccl", "allreduce_busbw_peak_gbps", 0, 2));
	assert_null(gb_published_figure_of("nccl", "allgather_busbw_peak_gbps", 0, 8));
}

static struct gb_metric *add_metric(struct gb_bench_result *b, const char *name, int dev,
				    double v)
{
	return gb_bench_add_value(b, name, "TFLOP/s", GB_BETTER_HIGHER, dev, v, NAN);
}

/* A run of two GPUs, one H100 SXM and one not in the catalog. */
static void make_run(struct gb_run *run)
{
	struct gb_device_info *d;
	struct gb_bench_result *b;
	static int devs[] = { 0, 1 };

	gb_run_init(run, "gemm", 0, NULL);
	d = gb_run_add_device(run);
	d->index = 0;
	d->name = gb_strdup("NVIDIA H100 80GB HBM3");
	d->spec_key = gb_strdup("h100-sxm");
	d = gb_run_add_device(run);
	d->index = 1;
	d->name = gb_strdup("Some Future GPU");
	b = gb_run_add_bench(run, "gemm");
	b->devices = malloc(sizeof(devs));
	memcpy(b->devices, devs, sizeof(devs));
	b->n_devices = 2;
	add_metric(b, "tflops_bf16", 0, 761);
	add_metric(b, "tflops_bf16", 1, 500);
	add_metric(b, "tflops_fp32", 0, 50);
}

static void test_annotate_write_load(void **state)
{
	struct gb_run run, back;
	cJSON *doc, *m0, *pub;
	char err[256];

	(void)state;
	make_run(&run);
	gb_published_annotate(&run);
	assert_non_null(run.benches[0].metrics[0].published);
	assert_null(run.benches[0].metrics[1].published); /* no model, no figure */
	assert_null(run.benches[0].metrics[2].published); /* fp32: nobody published it */
	doc = gb_report_to_json(&run);
	m0 = cJSON_GetArrayItem(cJSON_GetObjectItem(
					cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "benchmarks"), 0),
					"metrics"),
				0);
	pub = cJSON_GetObjectItem(m0, "published");
	assert_true(cJSON_IsObject(pub));
	assert_string_equal(cJSON_GetObjectItem(pub, "figure")->valuestring, "gemm_bf16_tflops");
	assert_true(fabs(cJSON_GetObjectItem(pub, "fraction")->valuedouble - 761 / 794.5) < 1e-9);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(
					   cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "benchmarks"), 0),
					   "metrics"),
				   1),
		"published")));
	assert_int_equal(gb_report_from_json(doc, &back, err, sizeof(err)), 0);
	assert_non_null(back.benches[0].metrics[0].published);
	assert_true(fabs(back.benches[0].metrics[0].published->value - 794.5) < 1e-9);
	cJSON_Delete(doc);
	gb_run_release(&back);
	gb_run_release(&run);
}

static const struct gb_check *find_check(const struct gb_bench_result *b, const char *name,
					 int device)
{
	for (size_t i = 0; i < b->n_checks; i++)
		if (strcmp(b->checks[i].name, name) == 0 && b->checks[i].device == device)
			return &b->checks[i];
	return NULL;
}

/* run --expect published: 15% below a GEMM figure is healthy, more is not. */
static void test_judge(void **state)
{
	struct gb_run run;
	const struct gb_check *c;

	(void)state;
	make_run(&run);
	/* GPU 0 reaches 761 of 794.5 (96%); a second H100 figure at 600 (76%) fails */
	add_metric(&run.benches[0], "tflops_fp8", 0, 1402.6 * 0.84);
	gb_published_annotate(&run);
	assert_int_equal(gb_published_judge(&run, NAN), 3);
	c = find_check(&run.benches[0], "published_gemm_bf16_tflops", 0);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	assert_true(fabs(c->threshold - 0.85 * 794.5) < 1e-9);
	assert_non_null(strstr(c->message, "96% of what healthy h100-sxm reach (794.5"));
	c = find_check(&run.benches[0], "published_gemm_fp8_tflops", 0);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_FAILED);
	assert_int_equal(run.benches[0].status, GB_STATUS_FAILED);
	/* the GPU no source measured: said, and skipped, never passed */
	c = find_check(&run.benches[0], "published_figures", 1);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_SKIPPED);
	assert_non_null(strstr(c->message, "spec sheet only"));
	gb_run_release(&run);

	/* a tolerance given: 20% lets 84% pass */
	make_run(&run);
	add_metric(&run.benches[0], "tflops_fp8", 0, 1402.6 * 0.84);
	gb_published_annotate(&run);
	gb_published_judge(&run, 0.20);
	assert_int_equal(find_check(&run.benches[0], "published_gemm_fp8_tflops", 0)->status,
			 GB_STATUS_PASSED);
	gb_run_release(&run);
}

/* A range is judged from its low end: the RTX 4090's host copies, 23.9..26.38 GB/s. */
static void test_judge_range(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b;
	struct gb_device_info *d;
	static int dev0[] = { 0 };

	(void)state;
	gb_run_init(&run, "bandwidth", 0, NULL);
	d = gb_run_add_device(&run);
	d->index = 0;
	d->spec_key = gb_strdup("rtx4090");
	b = gb_run_add_bench(&run, "bandwidth");
	b->devices = malloc(sizeof(dev0));
	memcpy(b->devices, dev0, sizeof(dev0));
	b->n_devices = 1;
	gb_bench_add_value(b, "h2d_ce_pinned_gbps", "GB/s", GB_BETTER_HIGHER, 0, 23.9 * 0.86, NAN);
	gb_bench_add_value(b, "d2h_ce_pinned_gbps", "GB/s", GB_BETTER_HIGHER, 0, 26.25 * 0.84, NAN);
	gb_published_annotate(&run);
	gb_published_judge(&run, NAN);
	assert_int_equal(find_check(b, "published_h2d_gbps", 0)->status, GB_STATUS_PASSED);
	assert_true(fabs(find_check(b, "published_h2d_gbps", 0)->threshold - 0.85 * 23.9) < 1e-9);
	assert_int_equal(find_check(b, "published_d2h_gbps", 0)->status, GB_STATUS_FAILED);
	assert_null(find_check(b, "published_figures", 0));
	gb_run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_figures_are_there),
		cmocka_unit_test(test_every_entry_is_sourced),
		cmocka_unit_test(test_metric_to_figure),
		cmocka_unit_test(test_annotate_write_load),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_judge_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
