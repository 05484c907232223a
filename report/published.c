/* SPDX-License-Identifier: MIT */
/*
 * published.c - the published figures of report/published.json: parsed once,
 * looked up by model and figure, and set on the metrics they compare with.
 */
#include "published.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "theory.h"

/* the parsed file; strings of the table point into it, so it is never freed */
static cJSON *g_doc;
static struct gb_published *g_table;
static size_t g_n;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static double num_or_nan(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str_or_null(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The first entry of one figure; 0 when it has a value or a range and a source. */
static int read_figure(const char *model, const cJSON *fig, struct gb_published *out)
{
	const cJSON *first = cJSON_GetArrayItem(fig, 0);

	if (!cJSON_IsArray(fig) || !cJSON_IsObject(first))
		return -1;
	memset(out, 0, sizeof(*out));
	out->model = model;
	out->figure = fig->string;
	out->value = num_or_nan(first, "value");
	out->low = num_or_nan(first, "low");
	out->high = num_or_nan(first, "high");
	out->source = str_or_null(first, "source");
	out->url = str_or_null(first, "url");
	out->conditions = str_or_null(first, "conditions");
	out->n_sources = (size_t)cJSON_GetArraySize(fig);
	if (!isfinite(out->value) && isfinite(out->low) && isfinite(out->high))
		out->value = (out->low + out->high) / 2;
	else if (!isfinite(out->value) && isfinite(out->low))
		out->value = out->low; /* "830+": a floor stands for itself */
	return isfinite(out->value) && out->value > 0 && out->source ? 0 : -1;
}

static void load_once(void)
{
	const cJSON *models, *model, *fig;
	size_t cap = 0;

	g_doc = cJSON_ParseWithLength((const char *)gb_published_json, gb_published_json_len);
	if (!g_doc || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(g_doc, "schema")) ||
	    strcmp(cJSON_GetObjectItemCaseSensitive(g_doc, "schema")->valuestring,
		   GB_PUBLISHED_SCHEMA) != 0)
		return;
	models = cJSON_GetObjectItemCaseSensitive(g_doc, "models");
	cJSON_ArrayForEach(model, models)
	{
		cJSON_ArrayForEach(fig, model)
		{
			if (g_n == cap) {
				cap = cap ? cap * 2 : 64;
				g_table = gb_xrealloc(g_table, cap * sizeof(*g_table));
			}
			if (read_figure(model->string, fig, &g_table[g_n]) == 0)
				g_n++;
		}
	}
}

int gb_published_ok(void)
{
	pthread_once(&g_once, load_once);
	return g_n > 0 ? 0 : -1;
}

const struct gb_published *gb_published_get(const char *model, const char *figure)
{
	if (!model || !figure)
		return NULL;
	pthread_once(&g_once, load_once);
	for (size_t i = 0; i < g_n; i++)
		if (strcmp(g_table[i].model, model) == 0 && strcmp(g_table[i].figure, figure) == 0)
			return &g_table[i];
	return NULL;
}

/*
 * Tolerances (docs/published.md): a GEMM's rate follows its clock, which
 * cooling, power limit and data move by 10-15% between healthy GPUs (DCGM
 * keeps 0.75x, gpu-fryer 10% below the best); host copies differ by copy
 * method (the sources mix SM and copy-engine copies) and by the host; device
 * copies, NVLink and all-reduce sit close to their published figures (Azure's
 * health checks pass all-reduce 4% below its measurement).
 */
const struct gb_published_kind gb_published_figures[GB_PUBLISHED_N_FIGURES] = {
	{ "gemm_bf16_tflops", "bf16 GEMM", "TFLOP/s", GB_PREC_BF16, 0.15 },
	{ "gemm_fp16_tflops", "fp16 GEMM", "TFLOP/s", GB_PREC_FP16, 0.15 },
	{ "gemm_fp8_tflops", "fp8 GEMM", "TFLOP/s", GB_PREC_FP8, 0.15 },
	{ "device_copy_gbps", "device copy (read+write)", "GB/s", -1, 0.10 },
	{ "h2d_gbps", "host to device, pinned", "GB/s", -1, 0.15 },
	{ "d2h_gbps", "device to host, pinned", "GB/s", -1, 0.15 },
	{ "nvlink_oneway_gbps", "GPU to GPU, one way", "GB/s", -1, 0.10 },
	{ "allreduce_busbw_gbps_8gpu", "8-GPU all-reduce busbw", "GB/s", -1, 0.10 },
};

size_t gb_published_count(const char *model)
{
	size_t n = 0;

	if (!model)
		return 0;
	pthread_once(&g_once, load_once);
	for (size_t i = 0; i < g_n; i++)
		n += strcmp(g_table[i].model, model) == 0;
	return n;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/*
 * Which of our metrics measure what the sources measured. Copies: the host
 * figures are pinned copies; device_copy counts bytes read plus written (as
 * BabelStream does), which is d2d's DRAM traffic, not its payload.
 */
const char *gb_published_figure_of(const char *bench, const char *metric, int peer_nvlink,
				   int nranks)
{
	static const struct {
		const char *bench, *metric, *figure;
	} exact[] = {
		{ "gemm", "tflops_bf16", "gemm_bf16_tflops" },
		{ "gemm", "tflops_fp16", "gemm_fp16_tflops" },
		{ "gemm", "tflops_fp8", "gemm_fp8_tflops" },
		{ "bandwidth", "h2d_ce_pinned_gbps", "h2d_gbps" },
		{ "bandwidth", "d2h_ce_pinned_gbps", "d2h_gbps" },
		{ "bandwidth", "d2d_ce_dram_gbps", "device_copy_gbps" },
	};

	if (!bench || !metric)
		return NULL;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(bench, exact[i].bench) == 0 && strcmp(metric, exact[i].metric) == 0)
			return exact[i].figure;
	/* p2p's one-way copy-engine cells between two GPUs: "uni_ce_to_gpu3_gbps" */
	if (strcmp(bench, "p2p") == 0 && peer_nvlink && starts_with(metric, "uni_ce_to_gpu") &&
	    ends_with(metric, "_gbps"))
		return "nvlink_oneway_gbps";
	/* the published all-reduce figures are of 8 GPUs, at their best size */
	if (strcmp(bench, "nccl") == 0 && nranks == 8 && starts_with(metric, "allreduce") &&
	    ends_with(metric, "_busbw_peak_gbps"))
		return "allreduce_busbw_gbps_8gpu";
	return NULL;
}

/* "uni_ce_to_gpu3_gbps" -> 3, -1 if not of that form */
static int peer_of(const char *metric)
{
	const char *p = strstr(metric, "_to_gpu");
	char *end;
	long v;

	if (!p)
		return -1;
	v = strtol(p + strlen("_to_gpu"), &end, 10);
	return end != p + strlen("_to_gpu") && v >= 0 && v < 4096 ? (int)v : -1;
}

static bool link_is_nvlink(const struct gb_run *run, int a, int b)
{
	const struct gb_link *l = gb_run_find_link(run, a, b);

	return l && l->type && strcmp(l->type, "nvlink") == 0;
}

/* The model every GPU of the bench shares, NULL if they differ or one is unknown. */
static const char *shared_model(const struct gb_run *run, const struct gb_bench_result *b)
{
	const char *key = NULL;

	for (size_t i = 0; i < b->n_devices; i++) {
		const struct gb_device_info *d = gb_run_find_device(run, b->devices[i]);

		if (!d || !d->spec_key || (key && strcmp(key, d->spec_key) != 0))
			return NULL;
		key = d->spec_key;
	}
	return key;
}

static const struct gb_published *figure_for(const struct gb_run *run,
					     const struct gb_bench_result *b,
					     const struct gb_metric *m)
{
	const struct gb_device_info *d = gb_run_find_device(run, m->device);
	const char *model = m->device >= 0 ? (d ? d->spec_key : NULL) : shared_model(run, b);
	int nvlink = m->device >= 0 && link_is_nvlink(run, m->device, peer_of(m->name));
	const char *figure =
		gb_published_figure_of(b->name, m->name, nvlink, (int)b->n_devices);

	return figure && model ? gb_published_get(model, figure) : NULL;
}

void gb_published_annotate(struct gb_run *run)
{
	for (size_t i = 0; i < run->n_benches; i++) {
		struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_metrics; j++)
			b->metrics[j].published = figure_for(run, b, &b->metrics[j]);
	}
}

static const struct gb_published_kind *kind_of(const char *figure)
{
	for (size_t i = 0; i < GB_PUBLISHED_N_FIGURES; i++)
		if (strcmp(gb_published_figures[i].figure, figure) == 0)
			return &gb_published_figures[i];
	return NULL;
}

/* One metric against its figure: "published_gemm_bf16_tflops" on the metric's GPU. */
static void judge_metric(struct gb_bench_result *b, const struct gb_metric *m, double tolerance)
{
	const struct gb_published *p = m->published;
	const struct gb_published_kind *k = kind_of(p->figure);
	double tol = isfinite(tolerance) ? tolerance : k ? k->tolerance : 0.15;
	double floor_v = isfinite(p->low) ? p->low : p->value, limit = (1 - tol) * floor_v;
	char name[96];
	bool ok;

	snprintf(name, sizeof(name), "published_%s", p->figure);
	if (!isfinite(m->value)) {
		gb_bench_add_check(b, name, GB_STATUS_SKIPPED, GB_SEV_INFO, m->device, NAN, limit,
				   "%s was not measured: nothing to set against the published %.4g",
				   m->name, p->value);
		return;
	}
	ok = m->value >= limit;
	gb_bench_add_check(b, name, ok ? GB_STATUS_PASSED : GB_STATUS_FAILED,
			   ok ? GB_SEV_INFO : GB_SEV_ERROR, m->device, m->value, limit,
			   "%s is %.4g %s, %.0f%% of what healthy %s reach (%.4g, %s); %s %.0f%% "
			   "below it",
			   m->name, m->value, m->unit ? m->unit : "", m->value / p->value * 100,
			   p->model, p->value, p->source, ok ? "within" : "more than", tol * 100);
}

/* GPUs whose model has no figure: one skipped check each, so the run says so. */
static size_t note_unpublished(struct gb_run *run)
{
	struct gb_bench_result *b = run->n_benches ? &run->benches[0] : NULL;
	size_t n = 0;

	for (size_t i = 0; b && i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];

		if (d->spec_key && gb_published_count(d->spec_key) > 0)
			continue;
		gb_bench_add_check(b, "published_figures", GB_STATUS_SKIPPED, GB_SEV_INFO, d->index,
				   NAN, NAN,
				   "no published figures for %s (docs/published.md): GPU %d is judged "
				   "against the spec sheet only",
				   d->spec_key ? d->spec_key : d->name ? d->name : "this GPU", d->index);
		n++;
	}
	return n;
}

size_t gb_published_judge(struct gb_run *run, double tolerance)
{
	size_t n = 0, n_metrics;

	for (size_t i = 0; i < run->n_benches; i++) {
		struct gb_bench_result *b = &run->benches[i];

		/* checks are added to the same benchmark: walk only the metrics it had */
		n_metrics = b->n_metrics;
		for (size_t j = 0; j < n_metrics; j++) {
			if (!b->metrics[j].published)
				continue;
			judge_metric(b, &b->metrics[j], tolerance);
			n++;
		}
	}
	return n + note_unpublished(run);
}
