/* SPDX-License-Identifier: MIT */
/*
 * compare_print.c - the compare document: JSON (schema gpubench.compare/1), and the
 * text, Markdown and CSV tables; gb_compare_print dispatches to these and to
 * the JUnit, Prometheus and HTML writers (junit.c, prometheus.c, html.c),
 * which never call back here.
 */
#include "report/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/compare_internal.h"
#include "report/format_util.h"
#include "report/json_util.h"

/* ------------------------------------------------------------------------ */
/* the compare document                                                     */

static cJSON *side_json(const struct gb_cmp_side *s)
{
	cJSON *o = cJSON_CreateObject();

	gb_json_add_int(o, "device", s->device);
	gb_json_add_num(o, "value", s->value);
	gb_json_add_num(o, "stdev", s->stdev);
	gb_json_add_num(o, "efficiency", s->efficiency);
	gb_json_add_num(o, "power_w", s->power_w);
	gb_json_add_str(o, "power_source", s->power_source);
	gb_json_add_num(o, "per_watt", s->per_watt);
	gb_json_add_num(o, "per_dollar", s->per_dollar);
	return o;
}

static cJSON *row_json(const struct gb_compare *c, const struct gb_cmp_row *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "benchmark", r->bench);
	cJSON_AddStringToObject(o, "metric", r->metric);
	cJSON_AddStringToObject(o, "device_model", r->model);
	cJSON_AddStringToObject(o, "params", r->params);
	gb_json_add_str(o, "unit", r->unit);
	cJSON_AddStringToObject(o, "better", gb_better_name(r->better));
	cJSON_AddItemToObject(o, "a", side_json(&r->a));
	cJSON_AddItemToObject(o, "b", side_json(&r->b));
	gb_json_add_num(o, "ratio", r->ratio);
	gb_json_add_num(o, "change_pct", r->change_pct);
	gb_json_add_num(o, "tolerance", r->tolerance);
	gb_json_add_num(o, "noise", r->noise);
	cJSON_AddStringToObject(o, "class", gb_cmp_class_name(r->cls, c->different_models));
	return o;
}

static cJSON *input_json(const char *file, const char *host, const char *models, double price)
{
	cJSON *o = cJSON_CreateObject();

	gb_json_add_str(o, "file", file);
	gb_json_add_str(o, "hostname", host);
	gb_json_add_str(o, "devices", models);
	gb_json_add_num(o, "price_per_gpu_hour", price);
	return o;
}

static cJSON *missing_json(const struct gb_cmp_missing *m, bool with_side)
{
	cJSON *o = cJSON_CreateObject();

	if (with_side)
		cJSON_AddStringToObject(o, "side", m->side == 'A' ? "a" : "b");

	cJSON_AddStringToObject(o, "kind", gb_cmp_missing_kind_name(m->kind));
	gb_json_add_str(o, "benchmark", m->bench);
	gb_json_add_int(o, "device", m->device);
	cJSON_AddStringToObject(o, "status", gb_status_name(m->status));
	gb_json_add_str(o, "reason", m->reason);
	cJSON_AddNumberToObject(o, "metrics_a", (double)m->metrics_a);
	cJSON_AddStringToObject(o, "message", m->message);
	return o;
}

/* [{"name": "cuBLASLt", "a": "13.1.0", "b": "13.2.0"}, ...]: empty when nothing changed */
static cJSON *software_json(const struct gb_compare *c)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < c->n_software; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", c->software[i].name);
		cJSON_AddStringToObject(o, "a", c->software[i].a);
		cJSON_AddStringToObject(o, "b", c->software[i].b);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

cJSON *gb_compare_to_json(const struct gb_compare *c)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON *sum = cJSON_CreateObject();
	cJSON *rows, *missing;
	bool bad = gb_compare_failed(c);

	cJSON_AddStringToObject(doc, "schema", GB_COMPARE_SCHEMA);
	cJSON_AddItemToObject(doc, "a", input_json(c->name_a, c->host_a, c->models_a, c->price_a));
	cJSON_AddItemToObject(doc, "b", input_json(c->name_b, c->host_b, c->models_b, c->price_b));
	cJSON_AddStringToObject(doc, "mode",
				c->different_models ? "different_models" : "same_models");
	cJSON_AddBoolToObject(doc, "simulated", c->simulated);
	cJSON_AddItemToObject(doc, "software_changes", software_json(c));
	cJSON_AddNumberToObject(doc, "tolerance", c->tolerance);
	cJSON_AddNumberToObject(doc, "spread_k", c->spread_k);
	for (int k = 0; k < GB_CMP_CLASS_COUNT; k++)
		cJSON_AddNumberToObject(sum, class_names[k], (double)c->count[k]);
	cJSON_AddItemToObject(doc, "summary", sum);
	cJSON_AddBoolToObject(doc, "regressed", gb_compare_regressed(c));
	cJSON_AddBoolToObject(doc, "allow_missing", c->allow_missing);
	missing = cJSON_AddArrayToObject(doc, "incomplete");
	for (size_t i = 0; i < c->n_missing; i++)
		cJSON_AddItemToArray(missing, missing_json(&c->missing[i], false));
	missing = cJSON_AddArrayToObject(doc, "not_applicable");
	for (size_t i = 0; i < c->n_na; i++)
		cJSON_AddItemToArray(missing, missing_json(&c->na[i], true));
	cJSON_AddStringToObject(doc, "result", gb_compare_result_words(c));
	cJSON_AddStringToObject(doc, "status", bad ? "failed" : "passed");
	cJSON_AddNumberToObject(doc, "exit_code", bad ? 1 : 0);
	rows = cJSON_AddArrayToObject(doc, "rows");
	for (size_t i = 0; i < c->n_rows; i++)
		cJSON_AddItemToArray(rows, row_json(c, &c->rows[i]));
	return doc;
}

/* ------------------------------------------------------------------------ */
/* text, Markdown and CSV                                                   */

/* A table of strings, printed aligned (text) or as a Markdown table. */
struct tbl {
	size_t ncol, nrows;
	char **cells; /* nrows x ncol, row 0 the header */
	const bool *right;
};

static void tbl_add(struct tbl *t, char **row)
{
	t->cells = gb_xrealloc(t->cells, sizeof(char *) * t->ncol * (t->nrows + 1));
	memcpy(t->cells + t->nrows * t->ncol, row, sizeof(char *) * t->ncol);
	t->nrows++;
}

static void tbl_free(struct tbl *t)
{
	for (size_t i = 0; i < t->nrows * t->ncol; i++)
		free(t->cells[i]);
	free(t->cells);
}

static void tbl_text(const struct tbl *t, FILE *out)
{
	size_t w[16] = { 0 };

	for (size_t r = 0; r < t->nrows; r++)
		for (size_t k = 0; k < t->ncol && k < 16; k++)
			if (strlen(t->cells[r * t->ncol + k]) > w[k])
				w[k] = strlen(t->cells[r * t->ncol + k]);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t k = 0; k < t->ncol && k < 16; k++) {
			const char *s = t->cells[r * t->ncol + k];
			int width = (int)w[k];

			if (k)
				fputs("  ", out);
			if (t->right[k])
				fprintf(out, "%*s", width, s);
			else if (k + 1 < t->ncol)
				fprintf(out, "%-*s", width, s);
			else
				fputs(s, out);
		}
		fputc('\n', out);
	}
}

static void tbl_markdown(const struct tbl *t, FILE *out)
{
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t k = 0; k < t->ncol; k++) {
			fputs("| ", out);
			gb_fmt_md(out, t->cells[r * t->ncol + k]);
			fputc(' ', out);
		}
		fputs("|\n", out);
		if (r == 0) {
			for (size_t k = 0; k < t->ncol; k++)
				fputs(t->right[k] ? "|---:" : "|---", out);
			fputs("|\n", out);
		}
	}
}

static char *hum(double v)
{
	char buf[48];

	gb_fmt_human(buf, sizeof(buf), v);
	return gb_strdup(buf);
}

static char *pct(double fraction)
{
	return isfinite(fraction) ? gb_strdupf("%.1f%%", fraction * 100) : gb_strdup("-");
}

static char *device_cell(const struct gb_cmp_row *r)
{
	int dev = r->a.device >= 0 ? r->a.device : r->b.device;

	if (dev < 0)
		return gb_strdup(r->model);
	return gb_strdupf("%d %s", dev, r->model);
}

static bool any_params(const struct gb_compare *c)
{
	for (size_t i = 0; i < c->n_rows; i++)
		if (c->rows[i].params[0])
			return true;
	return false;
}

/* columns: benchmark metric device A B B/A change result [params] */
static void same_model_table(const struct gb_compare *c, struct tbl *t)
{
	static const bool right[] = { false, false, false, true, true, true, true, false, false };
	char *head[] = { gb_strdup("benchmark"), gb_strdup("metric"), gb_strdup("GPU"),
			 gb_strdup("A"),         gb_strdup("B"),      gb_strdup("B/A"),
			 gb_strdup("change"),    gb_strdup("result"), gb_strdup("params") };

	t->ncol = any_params(c) ? 9 : 8;
	t->right = right;
	if (t->ncol == 8)
		free(head[8]);
	tbl_add(t, head);
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct gb_cmp_row *r = &c->rows[i];
		char *row[9] = {
			gb_strdup(r->bench),
			r->unit ? gb_strdupf("%s (%s)", r->metric, r->unit) : gb_strdup(r->metric),
			device_cell(r),
			hum(r->a.value),
			hum(r->b.value),
			isfinite(r->ratio) ? gb_strdupf("%.3f", r->ratio) : gb_strdup("-"),
			isfinite(r->change_pct) ? gb_strdupf("%+.1f%%", r->change_pct)
						: gb_strdup("-"),
			gb_strdup(gb_cmp_class_name(r->cls, false)),
			t->ncol == 9 ? gb_strdup(r->params) : NULL,
		};

		tbl_add(t, row);
	}
}

/*
 * The GPU of a row across models, by index (the models are in the header):
 * "1", "all" for a metric of no single GPU, "0/1" when A's and B's indexes
 * differ.
 */
static char *gpu_index_cell(const struct gb_cmp_row *r)
{
	if (r->a.device < 0 && r->b.device < 0)
		return gb_strdup("all");
	if (r->a.device >= 0 && r->b.device >= 0 && r->a.device != r->b.device)
		return gb_strdupf("%d/%d", r->a.device, r->b.device);
	return gb_strdupf("%d", r->a.device >= 0 ? r->a.device : r->b.device);
}

/* columns: benchmark metric GPU A B B/A %peak A %peak B per-W A per-W B per-$ A per-$ B result */
static void cross_model_table(const struct gb_compare *c, struct tbl *t)
{
	static const bool right[] = { false, false, true, true, true, true, true,
				      true,  true,  true, true, true,  false };
	char *head[] = { gb_strdup("benchmark"), gb_strdup("metric"),   gb_strdup("GPU"),
			 gb_strdup("A"),         gb_strdup("B"),        gb_strdup("B/A"),
			 gb_strdup("% peak A"),  gb_strdup("% peak B"), gb_strdup("per W A"),
			 gb_strdup("per W B"),   gb_strdup("per $ A"),  gb_strdup("per $ B"),
			 gb_strdup("result") };

	t->ncol = 13;
	t->right = right;
	tbl_add(t, head);
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct gb_cmp_row *r = &c->rows[i];
		char *row[13] = {
			gb_strdup(r->bench),
			r->unit ? gb_strdupf("%s (%s)", r->metric, r->unit) : gb_strdup(r->metric),
			gpu_index_cell(r),
			hum(r->a.value),
			hum(r->b.value),
			isfinite(r->ratio) ? gb_strdupf("%.3f", r->ratio) : gb_strdup("-"),
			pct(r->a.efficiency),
			pct(r->b.efficiency),
			hum(r->a.per_watt),
			hum(r->b.per_watt),
			hum(r->a.per_dollar),
			hum(r->b.per_dollar),
			gb_strdup(gb_cmp_class_name(r->cls, true)),
		};

		tbl_add(t, row);
	}
}

static void build_table(const struct gb_compare *c, struct tbl *t)
{
	memset(t, 0, sizeof(*t));
	if (c->different_models)
		cross_model_table(c, t);
	else
		same_model_table(c, t);
}

/* "3 regressions, 1 improvement, ..." in every format (gb_compare_summary_words) */
static void summary_line(const struct gb_compare *c, FILE *out)
{
	char buf[512];

	gb_compare_summary_words(c, buf, sizeof(buf));
	fprintf(out, "%s\n", buf);
}

static void power_note(const struct gb_compare *c, FILE *out)
{
	const char *src_a = NULL, *src_b = NULL;

	for (size_t i = 0; i < c->n_rows && !(src_a && src_b); i++) {
		if (!src_a)
			src_a = c->rows[i].a.power_source;
		if (!src_b)
			src_b = c->rows[i].b.power_source;
	}
	fprintf(out, "per W: throughput per watt of %s power in A, %s power in B; per $: per "
		     "$/GPU-hour (%s)\n",
		src_a ? src_a : "unknown", src_b ? src_b : "unknown",
		isfinite(c->price_a) || isfinite(c->price_b) ? "--price" : "give --price A,B");
}

/* "simulated GPU (A: m1; B: m2): these numbers are not measurements", or "" */
static void simulated_line(const struct gb_compare *c, char *buf, size_t len)
{
	buf[0] = '\0';
	if (c->simulated)
		snprintf(buf, len, "simulated GPU (A: %s; B: %s): these numbers are not measurements",
			 c->sim_a ? c->sim_a : "unknown machine",
			 c->sim_b ? c->sim_b : "unknown machine");
}

static void text_header(const struct gb_compare *c, FILE *out)
{
	char sim[1200], sw[512];

	simulated_line(c, sim, sizeof(sim));
	if (sim[0])
		fprintf(out, "%s\n", sim);
	fprintf(out, "A  '%s'  %s  %s\nB  '%s'  %s  %s\n", c->name_a, c->host_a ? c->host_a : "-",
		c->models_a, c->name_b, c->host_b ? c->host_b : "-", c->models_b);
	if (gb_software_changes_line(sw, sizeof(sw), c->software, c->n_software))
		fprintf(out, "software changed: %s\n", sw);
	if (c->different_models)
		fputs("different GPU models: side by side, changes not gated\n", out);
	else
		fprintf(out,
			"regression: worse by more than the tolerance (%.1f%% unless set per "
			"metric) and by more than %g x the combined stdev\n",
			c->tolerance * 100, c->spread_k);
}

static void missing_text(const struct gb_compare *c, FILE *out)
{
	if (c->n_na) {
		fprintf(out, "\n%s:\n", GB_CMP_NA_TITLE);
		for (size_t i = 0; i < c->n_na; i++)
			fprintf(out, "  %s\n", c->na[i].message);
	}
	if (!c->n_missing)
		return;
	fprintf(out, "\nB incomplete (%s):\n",
		c->allow_missing ? "listed, not failed: --allow-missing"
				 : "fails the gate; --allow-missing lists it only");
	for (size_t i = 0; i < c->n_missing; i++)
		fprintf(out, "  %s\n", c->missing[i].message);
}

/* the regressions again, one line each, where a long table would hide them */
static void regressions_text(const struct gb_compare *c, FILE *out, const char *bullet)
{
	char line[512];

	if (!gb_compare_regressed(c))
		return;
	fprintf(out, "\nRegressions (fail the gate):\n");
	for (size_t i = 0; i < c->n_rows; i++) {
		if (c->rows[i].cls != GB_CMP_REGRESSION)
			continue;
		gb_cmp_row_line(&c->rows[i], line, sizeof(line));
		fprintf(out, "%s%s\n", bullet, line);
	}
}

static void print_text(const struct gb_compare *c, FILE *out)
{
	struct tbl t;

	text_header(c, out);
	if (c->different_models)
		power_note(c, out);
	fputc('\n', out);
	build_table(c, &t);
	tbl_text(&t, out);
	tbl_free(&t);
	missing_text(c, out);
	regressions_text(c, out, "  ");
	fputc('\n', out);
	summary_line(c, out);
	if (gb_compare_failed(c))
		fprintf(out, "result: failed (%s)\n", result_words(c));
	else
		fprintf(out, "result: %s\n", result_words(c));
}

static void print_markdown(const struct gb_compare *c, FILE *out)
{
	struct tbl t;
	bool bad = gb_compare_failed(c);
	char sim[1200], sw[512];

	fprintf(out, "## %s gpubench compare: %s\n\n", bad ? "\xE2\x9D\x8C" : "\xE2\x9C\x85",
		bad ? result_words(c) : c->different_models ? result_words(c) : "no regression");
	simulated_line(c, sim, sizeof(sim));
	if (sim[0]) {
		fputs("> **", out);
		gb_fmt_md(out, sim);
		fputs("**\n\n", out);
	}
	fputs("| | file | host | GPUs |\n|---|---|---|---|\n| A | ", out);
	gb_fmt_md(out, c->name_a);
	fputs(" | ", out);
	gb_fmt_md(out, c->host_a ? c->host_a : "-");
	fputs(" | ", out);
	gb_fmt_md(out, c->models_a);
	fputs(" |\n| B | ", out);
	gb_fmt_md(out, c->name_b);
	fputs(" | ", out);
	gb_fmt_md(out, c->host_b ? c->host_b : "-");
	fputs(" | ", out);
	gb_fmt_md(out, c->models_b);
	fputs(" |\n\n", out);
	if (gb_software_changes_line(sw, sizeof(sw), c->software, c->n_software)) {
		fputs("Software changed: ", out);
		gb_fmt_md(out, sw);
		fputs("\n\n", out);
	}
	if (c->different_models)
		fputs("Different GPU models: side by side, changes not gated.\n\n", out);
	if (c->n_na) {
		fprintf(out, "### %s\n\n", GB_CMP_NA_TITLE);
		for (size_t i = 0; i < c->n_na; i++) {
			fputs("- ", out);
			gb_fmt_md(out, c->na[i].message);
			fputc('\n', out);
		}
		fputc('\n', out);
	}
	if (c->n_missing) {
		fprintf(out, "### B incomplete (%s)\n\n",
			c->allow_missing ? "listed, not failed: --allow-missing"
					 : "fails the gate");
		for (size_t i = 0; i < c->n_missing; i++) {
			fputs("- ", out);
			gb_fmt_md(out, c->missing[i].message);
			fputc('\n', out);
		}
		fputc('\n', out);
	}
	build_table(c, &t);
	tbl_markdown(&t, out);
	tbl_free(&t);
	if (gb_compare_regressed(c)) {
		char line[512];

		fputs("\n### Regressions (fail the gate)\n\n", out);
		for (size_t i = 0; i < c->n_rows; i++) {
			if (c->rows[i].cls != GB_CMP_REGRESSION)
				continue;
			gb_cmp_row_line(&c->rows[i], line, sizeof(line));
			fputs("- ", out);
			gb_fmt_md(out, line);
			fputc('\n', out);
		}
	}
	fputc('\n', out);
	summary_line(c, out);
}

static void csv_num(FILE *out, double v)
{
	char buf[48];

	gb_fmt_exact(buf, sizeof(buf), v);
	fprintf(out, ",%s", buf);
}

/*
 * One row per compared metric. The last column, simulated, says whether both
 * reports came from gpubench-sim (compare refuses a simulated report against
 * a measured one, so one word holds for both), on every row: a row copied
 * out of the file still says it; last so the other columns keep their place.
 */
static void print_csv(const struct gb_compare *c, FILE *out)
{
	fputs("benchmark,metric,device_model,device_a,device_b,params,unit,a,b,ratio,change_pct,"
	      "tolerance,noise,"
	      "class,efficiency_a,efficiency_b,per_watt_a,per_watt_b,per_dollar_a,per_dollar_b,"
	      "simulated\r\n",
	      out);
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct gb_cmp_row *r = &c->rows[i];

		gb_fmt_csv(out, r->bench);
		fputc(',', out);
		gb_fmt_csv(out, r->metric);
		fputc(',', out);
		gb_fmt_csv(out, r->model);
		/* each side's CUDA index; empty for a metric of no single GPU or a side without it */
		fputc(',', out);
		if (r->a.device >= 0)
			fprintf(out, "%d", r->a.device);
		fputc(',', out);
		if (r->b.device >= 0)
			fprintf(out, "%d", r->b.device);
		fputc(',', out);
		gb_fmt_csv(out, r->params);
		fputc(',', out);
		gb_fmt_csv(out, r->unit);
		csv_num(out, r->a.value);
		csv_num(out, r->b.value);
		csv_num(out, r->ratio);
		csv_num(out, r->change_pct);
		csv_num(out, r->tolerance);
		csv_num(out, r->noise);
		fprintf(out, ",%s", gb_cmp_class_name(r->cls, c->different_models));
		csv_num(out, r->a.efficiency);
		csv_num(out, r->b.efficiency);
		csv_num(out, r->a.per_watt);
		csv_num(out, r->b.per_watt);
		csv_num(out, r->a.per_dollar);
		csv_num(out, r->b.per_dollar);
		fprintf(out, ",%s\r\n", gb_fmt_bool(c->simulated));
	}
}

int gb_compare_print(const struct gb_compare *c, enum gb_out_format f, FILE *out)
{
	cJSON *doc;
	char *text;

	switch (f) {
	case GB_OUT_TEXT:
		print_text(c, out);
		break;
	case GB_OUT_MARKDOWN:
		print_markdown(c, out);
		break;
	case GB_OUT_CSV:
		print_csv(c, out);
		break;
	case GB_OUT_JUNIT:
		return gb_compare_junit(c, out);
	case GB_OUT_PROMETHEUS:
		return gb_compare_prometheus(c, out);
	case GB_OUT_HTML:
		return gb_compare_html(c, out);
	case GB_OUT_JSON:
		doc = gb_compare_to_json(c);
		text = cJSON_Print(doc);
		cJSON_Delete(doc);
		if (!text)
			return -1;
		fputs(text, out);
		fputc('\n', out);
		cJSON_free(text);
		break;
	default:
		return -1;
	}
	return gb_fmt_finish(out);
}
