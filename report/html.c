/* SPDX-License-Identifier: MIT */
/*
 * html.c - the report as one self-contained HTML page: inline CSS and
 * inline SVG charts, no scripts and no external resources, so it can be
 * mailed, attached to a CI run or opened offline years later.
 *
 * Charts are drawn by the small SVG helpers of html_chart.c: a line chart for every
 * series (bandwidth against size gets a log x axis when x spans more than
 * two decades), a grouped bar chart of TFLOPS per precision and GPU (metrics
 * named tflops_*), and per GPU the telemetry timeline: temperature, power,
 * SM clock and TFLOPS against time. Every string from the report is escaped.
 * A fleet report (report --merge) adds a table of nodes and names each GPU's
 * node. gb_compare_html (html_compare.c) writes a comparison the same way.
 */
#include "report/html_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fleet.h"
#include "report/format_util.h"
#include "report/writers.h"

/* ------------------------------------------------------------------------ */
/* series charts                                                            */

static bool same_group(const struct gb_bench_result *b1, const struct gb_series *s1,
		       const struct gb_bench_result *b2, const struct gb_series *s2)
{
	return !strcmp(b1->name, b2->name) && !strcmp(s1->name, s2->name);
}

static void minmax(const double *v, size_t n, double *lo, double *hi)
{
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		*lo = fmin(*lo, v[i]);
		*hi = fmax(*hi, v[i]);
	}
}

static char *series_label(const struct gb_run *run, const struct gb_series *s)
{
	if (s->device < 0)
		return gb_strdup(s->name);
	return gpu_label(run, s->device);
}

/* One chart for series i of bench bi and every later series of the same name. */
static void series_chart(FILE *out, const struct gb_run *run, size_t bi, size_t si)
{
	const struct gb_bench_result *b = &run->benches[bi];
	const struct gb_series *first = &b->series[si];
	const struct gb_series *list[MAX_SERIES];
	char *labels[MAX_SERIES] = { NULL }, *title, *xl, *yl;
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	size_t n = 0;
	struct chart c;

	for (size_t j = si; j < b->n_series; j++) {
		if (!same_group(b, first, b, &b->series[j]))
			continue;
		if (n < MAX_SERIES)
			list[n] = &b->series[j];
		n++;
	}
	/* more lines than a chart can tell apart: the first MAX_SERIES, and the title says so */
	if (n > MAX_SERIES) {
		title = gb_strdupf("%s: %s (the first %d of %zu)", b->name, first->name,
				   MAX_SERIES, n);
		n = MAX_SERIES;
	} else {
		title = gb_strdupf("%s: %s", b->name, first->name);
	}
	for (size_t k = 0; k < n; k++) {
		minmax(list[k]->x, list[k]->n, &xlo, &xhi);
		minmax(list[k]->y, list[k]->n, &ylo, &yhi);
		labels[k] = series_label(run, list[k]);
	}
	chart_init(&c, out, 560, 300);
	chart_reserve_legend(&c, (const char *const *)labels, n);
	set_x_range(&c, xlo, xhi, first->x_unit);
	set_y_range(&c, ylo, yhi);
	xl = axis_title(first->x_unit, "x");
	yl = axis_title(first->y_unit, "y");
	chart_open(&c, title, xl, yl);
	for (size_t k = 0; k < n; k++)
		chart_line(&c, list[k]->x, list[k]->y, list[k]->n, k);
	chart_legend(&c, (const char *const *)labels, n);
	chart_close(&c);
	for (size_t k = 0; k < n; k++)
		free(labels[k]);
	free(title);
	free(xl);
	free(yl);
}

/* true when an earlier series of the bench had the same name (its chart has it) */
static bool drawn_before(const struct gb_bench_result *b, size_t si)
{
	for (size_t j = 0; j < si; j++)
		if (same_group(b, &b->series[j], b, &b->series[si]))
			return true;
	return false;
}

static void series_charts(FILE *out, const struct gb_run *run)
{
	for (size_t i = 0; i < run->n_benches; i++)
		for (size_t j = 0; j < run->benches[i].n_series; j++)
			if (!drawn_before(&run->benches[i], j))
				series_chart(out, run, i, j);
}

/* ------------------------------------------------------------------------ */
/* TFLOPS per precision                                                     */

#define MAX_CATS 16
#define MAX_DEVS MAX_SERIES

struct bars {
	char *cats[MAX_CATS];
	size_t n_cats;
	int devs[MAX_DEVS];
	size_t n_devs;
	double v[MAX_CATS][MAX_DEVS];
	double peak[MAX_CATS][MAX_DEVS];
	bool truncated; /* more GPUs or precisions than fit: the title says so */
};

/* "tflops_bf16" -> "bf16"; "tflops" -> the dtype/precision parameter; else NULL */
static const char *precision_of(const struct gb_bench_result *b, const struct gb_metric *m)
{
	static const char *const keys[] = { "dtype", "precision" };

	if (!strncmp(m->name, "tflops_", 7) && m->name[7])
		return m->name + 7;
	if (strcmp(m->name, "tflops"))
		return NULL;
	for (size_t i = 0; i < 2; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(b->params, keys[i]);

		if (cJSON_IsString(v))
			return v->valuestring;
	}
	return b->name;
}

static size_t slot(char **names, size_t *n, size_t max, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return i;
	if (*n == max)
		return max;
	names[*n] = gb_strdup(name);
	return (*n)++;
}

static size_t dev_slot(struct bars *bs, int dev)
{
	for (size_t i = 0; i < bs->n_devs; i++)
		if (bs->devs[i] == dev)
			return i;
	if (bs->n_devs == MAX_DEVS)
		return MAX_DEVS;
	bs->devs[bs->n_devs] = dev;
	return bs->n_devs++;
}

static void collect_bars(const struct gb_run *run, struct bars *bs)
{
	memset(bs, 0, sizeof(*bs));
	for (size_t c = 0; c < MAX_CATS; c++)
		for (size_t d = 0; d < MAX_DEVS; d++)
			bs->v[c][d] = bs->peak[c][d] = NAN;
	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_metrics; j++) {
			const struct gb_metric *m = &b->metrics[j];
			const char *prec = precision_of(b, m);
			size_t c, d;

			if (!prec || !isfinite(m->value))
				continue;
			c = slot(bs->cats, &bs->n_cats, MAX_CATS, prec);
			d = dev_slot(bs, m->device);
			if (c == MAX_CATS || d == MAX_DEVS) {
				bs->truncated = true;
				continue;
			}
			if (isfinite(bs->v[c][d]))
				continue;
			bs->v[c][d] = m->value;
			bs->peak[c][d] = m->peak;
		}
	}
}

static void bar_labels(const struct gb_run *run, const struct bars *bs, char **labels)
{
	for (size_t d = 0; d < bs->n_devs; d++)
		labels[d] = gpu_label(run, bs->devs[d]);
}

static void bar(struct chart *c, double x, double w, double v, size_t style)
{
	fprintf(c->out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
		"fill-opacity=\"%.2f\"><title>%.4g</title></rect>\n",
		x + 1, py(c, v), fmax(w - 2, 1), py(c, c->y0) - py(c, v), color_of(style),
		opacity_of(style), v);
}

/* the peak as a dashed cap over the bar: how far the bar is from it */
static void peak_cap(struct chart *c, double x, double w, double peak)
{
	fprintf(c->out,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1d2125\" "
		"stroke-dasharray=\"3 2\"/>\n",
		x, py(c, peak), x + w, py(c, peak));
}

static void draw_bars(struct chart *c, const struct bars *bs)
{
	double slot_w = (c->r - c->l) / (double)bs->n_cats;
	double bar_w = fmin(36, slot_w * 0.8 / (double)bs->n_devs);

	for (size_t k = 0; k < bs->n_cats; k++) {
		double mid = c->l + slot_w * ((double)k + 0.5);
		double x = mid - bar_w * (double)bs->n_devs / 2;

		for (size_t d = 0; d < bs->n_devs; d++, x += bar_w) {
			if (isfinite(bs->v[k][d]))
				bar(c, x, bar_w, bs->v[k][d], d);
			if (isfinite(bs->peak[k][d]) && bs->peak[k][d] > 0)
				peak_cap(c, x, bar_w, bs->peak[k][d]);
		}
		fprintf(c->out,
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">", mid,
			c->b + 15);
		esc(c->out, bs->cats[k]);
		fputs("</text>\n", c->out);
	}
}

static void tflops_chart(FILE *out, const struct gb_run *run)
{
	struct bars bs;
	struct chart c;
	char *labels[MAX_DEVS] = { NULL };
	double hi = -INFINITY;

	collect_bars(run, &bs);
	if (bs.n_cats == 0)
		return;
	for (size_t k = 0; k < bs.n_cats; k++)
		for (size_t d = 0; d < bs.n_devs; d++) {
			if (isfinite(bs.v[k][d]))
				hi = fmax(hi, bs.v[k][d]);
			if (isfinite(bs.peak[k][d]))
				hi = fmax(hi, bs.peak[k][d]);
		}
	chart_init(&c, out, fmin(1100, fmax(560, 120 + 40.0 * (double)(bs.n_cats * bs.n_devs))),
		   300);
	bar_labels(run, &bs, labels);
	chart_reserve_legend(&c, (const char *const *)labels, bs.n_devs);
	set_x_range(&c, 0, 1, NULL);
	set_y_range(&c, 0, hi);
	c.no_x_ticks = true;
	chart_open(&c,
		   bs.truncated ? "TFLOPS per precision (dashed: peak; the first 32 GPUs)"
				: "TFLOPS per precision (dashed: peak)",
		   "precision", "TFLOP/s");
	draw_bars(&c, &bs);
	chart_legend(&c, (const char *const *)labels, bs.n_devs);
	chart_close(&c);
	for (size_t d = 0; d < bs.n_devs; d++)
		free(labels[d]);
	for (size_t k = 0; k < bs.n_cats; k++)
		free(bs.cats[k]);
}

/* ------------------------------------------------------------------------ */
/* telemetry timeline                                                       */

enum tele_q { Q_TEMP, Q_POWER, Q_SM, Q_TFLOPS, Q_COUNT };

static double tele_value(const struct gb_telemetry_sample *t, enum tele_q q)
{
	switch (q) {
	case Q_TEMP:
		return t->temp_c;
	case Q_POWER:
		return t->power_w;
	case Q_SM:
		return t->sm_mhz;
	case Q_TFLOPS:
	case Q_COUNT:
		break;
	}
	return t->tflops;
}

static void tele_chart(FILE *out, const struct gb_run *run, int dev, enum tele_q q)
{
	static const char *const titles[] = { "temperature", "power", "SM clock", "TFLOPS" };
	static const char *const units[] = { ("\xC2\xB0" "C"), "W", "MHz", "TFLOP/s" };
	double *x = gb_xrealloc(NULL, sizeof(double) * (run->n_telemetry + 1));
	double *y = gb_xrealloc(NULL, sizeof(double) * (run->n_telemetry + 1));
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	size_t n = 0;
	struct chart c;
	char *title;

	for (size_t i = 0; i < run->n_telemetry; i++) {
		if (run->telemetry[i].device != dev)
			continue;
		x[n] = run->telemetry[i].t_s;
		y[n++] = tele_value(&run->telemetry[i], q);
	}
	minmax(x, n, &xlo, &xhi);
	minmax(y, n, &ylo, &yhi);
	/* a quantity the GPU never reported (TFLOPS outside a stress run) gets no chart */
	if (isfinite(ylo)) {
		chart_init(&c, out, 275, 210);
		c.l = 54;
		set_x_range(&c, xlo, xhi, NULL);
		c.log_x = false;
		set_y_range(&c, ylo, yhi);
		title = gb_strdupf("GPU %d %s", dev, titles[q]);
		chart_open(&c, title, "time (s)", units[q]);
		chart_line(&c, x, y, n, (size_t)q);
		chart_close(&c);
		free(title);
	}
	free(x);
	free(y);
}

static bool seen_device(const struct gb_run *run, size_t upto, int dev)
{
	for (size_t i = 0; i < upto; i++)
		if (run->telemetry[i].device == dev)
			return true;
	return false;
}

static void telemetry_charts(FILE *out, const struct gb_run *run)
{
	if (!run->n_telemetry)
		return;
	fputs("<h2>Telemetry</h2>\n", out);
	for (size_t i = 0; i < run->n_telemetry; i++) {
		int dev = run->telemetry[i].device;
		const char *name = gb_fmt_device_name(run, dev);

		if (seen_device(run, i, dev))
			continue;
		fprintf(out, "<h3>GPU %d ", dev);
		esc(out, name ? name : "");
		fputs("</h3>\n<div class=\"charts\">\n", out);
		for (int q = 0; q < Q_COUNT; q++)
			tele_chart(out, run, dev, (enum tele_q)q);
		fputs("</div>\n", out);
	}
}

/* ------------------------------------------------------------------------ */
/* page sections                                                            */

static void page_header(FILE *out, const struct gb_run *run)
{
	const char *host = run->host.hostname ? run->host.hostname : "unknown host";
	char sim[600];

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      out);
	fprintf(out, "gpubench %s ", run->command ? run->command : "report");
	esc(out, host);
	fprintf(out, ": %s</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>gpubench ",
		gb_status_name(run->verdict), css);
	esc(out, run->command ? run->command : "report");
	fputs(" on ", out);
	esc(out, host);
	badge(out, run->verdict);
	fputs("</h1>\n<p class=\"meta\">started ", out);
	esc(out, run->started_at ? run->started_at : "-");
	fputs(" &middot; finished ", out);
	esc(out, run->finished_at ? run->finished_at : "-");
	fputs(" &middot; gpubench ", out);
	esc(out, run->tool.version ? run->tool.version : "-");
	fputs(" (git ", out);
	esc(out, run->tool.git ? run->tool.git : "-");
	fputs(") &middot; driver ", out);
	esc(out, run->host.driver_version ? run->host.driver_version : "-");
	if (run->host.os) {
		fputs(" &middot; ", out);
		esc(out, run->host.os);
	}
	fputs("</p>\n", out);
	gb_fmt_simulated(sim, sizeof(sim), run);
	if (sim[0]) {
		fputs("<p class=\"simulated\"><strong>", out);
		esc(out, sim);
		fputs("</strong></p>\n", out);
	}
	fputs("</header>\n<main>\n", out);
}

/*
 * What the badge means, for a verdict that has no reason and no findings to
 * list: "every check passed" only when that is so, never for a run that
 * could not run, was stopped or measured nothing.
 */
static const char *verdict_words(enum gb_status verdict)
{
	switch (verdict) {
	case GB_STATUS_PASSED:
		return "every check passed";
	case GB_STATUS_WARNING:
		return "passed with warnings";
	case GB_STATUS_FAILED:
		return "a check failed";
	case GB_STATUS_SKIPPED:
		return "nothing was measured: every benchmark was skipped";
	case GB_STATUS_ERROR:
		return "the run could not be completed (no reason was recorded)";
	case GB_STATUS_NOT_BUILT:
		return "nothing was measured: not built in";
	case GB_STATUS_INTERRUPTED:
		return "the run was interrupted: its results are partial";
	}
	return "unknown verdict";
}

static void verdict_section(FILE *out, const struct gb_run *run)
{
	fputs("<h2>Verdict</h2>\n<div class=\"card\">", out);
	badge(out, run->verdict);
	if (run->reason) {
		fputs(" ", out);
		esc(out, run->reason);
	}
	if (!run->reason && !run->n_verdict_failed && !run->n_verdict_warnings) {
		fputs(" ", out);
		esc(out, verdict_words(run->verdict));
	}
	fputs("\n<ul class=\"findings\">\n", out);
	for (size_t i = 0; i < run->n_verdict_failed; i++) {
		fputs("<li class=\"fail\">failed: ", out);
		esc(out, run->verdict_failed[i]);
		fputs("</li>\n", out);
	}
	for (size_t i = 0; i < run->n_verdict_warnings; i++) {
		fputs("<li class=\"warn\">warning: ", out);
		esc(out, run->verdict_warnings[i]);
		fputs("</li>\n", out);
	}
	fputs("</ul></div>\n", out);
}

void td_num(FILE *out, double v)
{
	fputs("<td class=\"num\">", out);
	human(out, v);
	fputs("</td>", out);
}

void td_text(FILE *out, const char *s)
{
	fputs("<td>", out);
	esc(out, s ? s : "-");
	fputs("</td>", out);
}

struct fleet_view {
	struct gb_fleet_node *nodes; /* NULL unless a fleet report */
	size_t n;
};

static void nodes_section(FILE *out, const struct fleet_view *fv)
{
	char gpus[128];

	fputs("<h2>Nodes</h2>\n<table><tr><th>node</th><th>file</th><th>own verdict</th><th>GPUs</th>"
	      "<th>failed checks</th><th>warnings</th></tr>\n",
	      out);
	for (size_t i = 0; i < fv->n; i++) {
		const struct gb_fleet_node *nd = &fv->nodes[i];
		int st = gb_status_from_name(nd->verdict);

		fputs("<tr>", out);
		td_text(out, nd->host);
		td_text(out, nd->file);
		fputs("<td>", out);
		if (st >= 0)
			badge(out, (enum gb_status)st);
		else
			esc(out, nd->verdict);
		fputs("</td>", out);
		gb_fleet_device_list(gpus, sizeof(gpus), nd->devices, nd->n_devices);
		td_text(out, gpus);
		fprintf(out, "<td class=\"num\">%zu</td><td class=\"num\">%zu</td></tr>\n",
			nd->failed, nd->warnings);
	}
	fputs("</table>\n", out);
}

static void devices_section(FILE *out, const struct gb_run *run, const struct fleet_view *fv)
{
	char now[32], max[32];

	if (!run->n_devices)
		return;
	fputs("<h2>GPUs</h2>\n<table><tr><th>GPU</th>", out);
	if (fv->nodes)
		fputs("<th>node</th>", out);
	fputs("<th>name</th><th>PCI bus</th><th>SMs</th>"
	      "<th>memory (GiB)</th><th>max SM MHz</th><th>PCIe (idle / max)</th>"
	      "<th>power limit (W)</th>"
	      "<th>BF16 peak (TFLOP/s)</th><th>memory peak (GB/s)</th></tr>\n",
	      out);
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];
		double bf16 = isfinite(d->peaks.spec[5]) ? d->peaks.spec[5] : d->peaks.max_clock[5];
		double mem = isfinite(d->peaks.mem_bw_bps_spec) ? d->peaks.mem_bw_bps_spec
								 : d->peaks.mem_bw_bps;

		fprintf(out, "<tr><td class=\"num\">%d</td>", d->index);
		if (fv->nodes)
			td_text(out, gb_fleet_node_of(fv->nodes, fv->n, d->index));
		td_text(out, d->name);
		td_text(out, d->pci_bus_id);
		td_num(out, d->sm_count > 0 ? d->sm_count : NAN);
		td_num(out, d->memory_bytes / (1024.0 * 1024 * 1024));
		td_num(out, d->max_sm_mhz);
		gb_fmt_pcie(now, sizeof(now), d->pcie_gen, d->pcie_width);
		gb_fmt_pcie(max, sizeof(max), d->pcie_max_gen, d->pcie_max_width);
		fprintf(out, "<td>%s / %s</td>", now, max);
		td_num(out, d->power_limit_w);
		td_num(out, bf16 / 1e12);
		td_num(out, mem / 1e9);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void efficiency_cell(FILE *out, double eff)
{
	if (!isfinite(eff)) {
		fputs("<td></td>", out);
		return;
	}
	fprintf(out,
		"<td class=\"num\"><span class=\"bar\"><span style=\"width:%.0f%%\"></span></span>"
		"%.1f%%</td>",
		fmin(fmax(eff * 100, 0), 100), eff * 100);
}

/* "5", or "5 (node-3)" in a fleet report */
static void td_gpu(FILE *out, int device, const struct fleet_view *fv)
{
	const char *node = fv->nodes ? gb_fleet_node_of(fv->nodes, fv->n, device) : NULL;

	fprintf(out, "<td class=\"num\">%d", device);
	if (node) {
		fputs(" (", out);
		esc(out, node);
		fputc(')', out);
	}
	fputs("</td>", out);
}

static void metrics_table(FILE *out, const struct gb_bench_result *b, const struct fleet_view *fv)
{
	if (!b->n_metrics)
		return;
	fputs("<table><tr><th>metric</th><th>GPU</th><th>value</th><th>unit</th><th>CV</th>"
	      "<th>min</th><th>max</th><th>n</th><th>% of peak</th></tr>\n",
	      out);
	for (size_t i = 0; i < b->n_metrics; i++) {
		const struct gb_metric *m = &b->metrics[i];
		bool st = m->stats.n > 1;

		fputs("<tr>", out);
		td_text(out, m->name);
		if (m->device >= 0)
			td_gpu(out, m->device, fv);
		else
			fputs("<td>all</td>", out);
		td_num(out, m->value);
		td_text(out, m->unit ? m->unit : "");
		if (st)
			fprintf(out, "<td class=\"num\">%.2f%%</td>", m->stats.cv * 100);
		else
			fputs("<td></td>", out);
		td_num(out, st ? m->stats.min : NAN);
		td_num(out, st ? m->stats.max : NAN);
		if (m->stats.n)
			fprintf(out, "<td class=\"num\">%zu</td>", m->stats.n);
		else
			fputs("<td></td>", out);
		efficiency_cell(out, m->efficiency);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void checks_table(FILE *out, const struct gb_bench_result *b, const struct fleet_view *fv)
{
	if (!b->n_checks)
		return;
	fputs("<table><tr><th>check</th><th>GPU</th><th>status</th><th>observed</th>"
	      "<th>threshold</th><th>message</th></tr>\n",
	      out);
	for (size_t i = 0; i < b->n_checks; i++) {
		const struct gb_check *c = &b->checks[i];

		fputs("<tr>", out);
		td_text(out, c->name);
		if (c->device >= 0)
			td_gpu(out, c->device, fv);
		else
			fputs("<td></td>", out);
		fputs("<td>", out);
		badge(out, c->status);
		fputs("</td>", out);
		td_num(out, c->observed);
		td_num(out, c->threshold);
		td_text(out, c->message);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void bench_section(FILE *out, const struct gb_bench_result *b, const struct fleet_view *fv)
{
	fputs("<div class=\"card\"><h3>", out);
	esc(out, b->name);
	badge(out, b->status);
	fputs("</h3>\n", out);
	if (b->reason) {
		fputs("<p>", out);
		esc(out, b->reason);
		fputs("</p>\n", out);
	}
	metrics_table(out, b, fv);
	checks_table(out, b, fv);
	fputs("</div>\n", out);
}

/* any series, or any metric the TFLOPS chart shows */
static bool any_chart(const struct gb_run *run)
{
	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		if (b->n_series)
			return true;
		for (size_t j = 0; j < b->n_metrics; j++)
			if (precision_of(b, &b->metrics[j]) && isfinite(b->metrics[j].value))
				return true;
	}
	return false;
}

int gb_report_html(const struct gb_run *run, FILE *out)
{
	struct fleet_view fv = { NULL, 0 };

	fv.nodes = gb_fleet_nodes(run, &fv.n);
	page_header(out, run);
	verdict_section(out, run);
	if (fv.nodes)
		nodes_section(out, &fv);
	devices_section(out, run, &fv);
	if (any_chart(run)) {
		fputs("<h2>Charts</h2>\n<div class=\"charts\">\n", out);
		tflops_chart(out, run);
		series_charts(out, run);
		fputs("</div>\n", out);
	}
	telemetry_charts(out, run);
	if (run->n_benches)
		fputs("<h2>Benchmarks</h2>\n", out);
	for (size_t i = 0; i < run->n_benches; i++)
		bench_section(out, &run->benches[i], &fv);
	gb_fleet_nodes_free(fv.nodes, fv.n);
	fputs("<footer>written by gpubench ", out);
	esc(out, run->tool.version ? run->tool.version : "");
	fputs("; every number is also in the JSON report</footer>\n</main>\n</body>\n</html>\n",
	      out);
	return gb_fmt_finish(out);
}
