/* SPDX-License-Identifier: MIT */
/*
 * html.c - the report as one self-contained HTML page: inline CSS and
 * inline SVG charts, no scripts and no external resources, so it can be
 * mailed, attached to a CI run or opened offline years later.
 *
 * Charts are drawn by the small SVG helpers below: a line chart for every
 * series (bandwidth against size gets a log x axis when x spans more than
 * two decades), a grouped bar chart of TFLOPS per precision and GPU (metrics
 * named tflops_*), and per GPU the telemetry timeline: temperature, power,
 * SM clock and TFLOPS against time. Every string from the report is escaped.
 * A fleet report (report --merge) adds a table of nodes and names each GPU's
 * node. gb_compare_html writes a comparison the same way: both reports, why
 * B is incomplete, a chart of the change per metric and the full table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "compare.h"
#include "fleet.h"
#include "report/format_util.h"
#include "report/writers.h"

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))
/* past the palette, lines get dashes and bars get lighter: up to this many per chart */
#define MAX_SERIES 32

static const char *color_of(size_t i)
{
	return palette[i % N_PALETTE];
}

/* stroke-dasharray of line i: solid for the first round of colours */
static const char *dash_of(size_t i)
{
	static const char *const dashes[] = { "none", "6 3", "2 2", "8 2 2 2" };

	return dashes[(i / N_PALETTE) % 4];
}

static double opacity_of(size_t i)
{
	static const double op[] = { 1, 0.6, 0.35, 0.8 };

	return op[(i / N_PALETTE) % 4];
}

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;"
	"color:#1d2125;background:#f6f7f9}"
	"main{max-width:1180px;margin:0 auto;padding:24px}"
	"header{background:#fff;border-bottom:1px solid #dde1e6;padding:18px 24px}"
	"h1{font-size:22px;margin:0 0 6px}h2{font-size:18px;margin:28px 0 10px}"
	"h3{font-size:16px;margin:18px 0 8px}"
	".meta{color:#5b6570;margin:0}"
	".badge{display:inline-block;padding:2px 10px;border-radius:10px;font-size:13px;"
	"font-weight:600;vertical-align:middle;margin-left:8px;color:#fff}"
	".passed{background:#2e7d32}.warning{background:#c77700}.failed{background:#c62828}"
	".skipped,.not_built{background:#6b7280}.error,.interrupted{background:#7b1fa2}"
	"table{border-collapse:collapse;background:#fff;width:100%;margin:6px 0 12px}"
	"th,td{border:1px solid #e1e4e8;padding:4px 8px;text-align:left;vertical-align:top}"
	"th{background:#eef1f4;font-weight:600}td.num{text-align:right;"
	"font-variant-numeric:tabular-nums;white-space:nowrap}"
	".bar{background:#e3e8ee;height:8px;width:100px;display:inline-block;"
	"margin-right:6px;border-radius:4px;overflow:hidden}"
	".bar span{display:block;height:8px;background:#1f77b4}"
	".card{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:12px 16px;"
	"margin:10px 0}"
	".charts{display:flex;flex-wrap:wrap;gap:12px}"
	".charts svg{background:#fff;border:1px solid #dde1e6;border-radius:6px}"
	"ul.findings{margin:6px 0;padding-left:20px}ul.findings li{margin:2px 0}"
	".fail{color:#c62828}.warn{color:#9a5b00}"
	"footer{color:#5b6570;font-size:12px;margin:30px 0 10px}";

/* ---- small output helpers ---- */

static void esc(FILE *out, const char *s)
{
	gb_fmt_xml(out, s, 0);
}

static void human(FILE *out, double v)
{
	char buf[48];

	gb_fmt_human(buf, sizeof(buf), v);
	fputs(buf, out);
}

static void badge(FILE *out, enum gb_status s)
{
	fprintf(out, "<span class=\"badge %s\">%s</span>", gb_status_name(s), gb_status_name(s));
}

/* ------------------------------------------------------------------------ */
/* SVG charts                                                               */

struct chart {
	FILE *out;
	double w, h;           /* the svg element */
	double l, r, t, b;     /* the plot area in pixels */
	double x0, x1, y0, y1; /* the data range shown */
	bool log_x;
	bool bytes_x;          /* x is a size in bytes: binary tick labels */
	bool no_x_ticks;       /* categories along x: the caller labels them */
};

static double px(const struct chart *c, double x)
{
	double f = c->log_x ? (log10(x) - log10(c->x0)) / (log10(c->x1) - log10(c->x0))
			    : (x - c->x0) / (c->x1 - c->x0);

	return c->l + f * (c->r - c->l);
}

static double py(const struct chart *c, double y)
{
	return c->b - (y - c->y0) / (c->y1 - c->y0) * (c->b - c->t);
}

/* 1, 2 or 5 times a power of ten, at least x */
static double nice_step(double x)
{
	double e = pow(10, floor(log10(x)));
	double f = x / e;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * e;
}

/* "4K", "256M", "1G" for a power of two number of bytes */
static void bytes_label(char *buf, size_t len, double v)
{
	static const char units[] = "BKMGTP";
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%g", v);
	else
		snprintf(buf, len, "%g%c", v, units[u]);
}

static void tick_label(const struct chart *c, char *buf, size_t len, double v, bool x)
{
	if (x && c->bytes_x)
		bytes_label(buf, len, v);
	else
		gb_fmt_human(buf, len, v);
}

static void x_tick(const struct chart *c, double v)
{
	char lab[32];
	double x = px(c, v);

	tick_label(c, lab, sizeof(lab), v, true);
	fprintf(c->out,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eceff2\"/>"
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\" "
		"fill=\"#5b6570\">%s</text>\n",
		x, c->t, x, c->b, x, c->b + 15, lab);
}

static void x_ticks_log(const struct chart *c)
{
	if (c->bytes_x) {
		/* powers of two, spaced so that about seven fit */
		double lo = ceil(log2(c->x0)), hi = floor(log2(c->x1));
		double step = fmax(1, ceil((hi - lo) / 7));

		for (double e = lo; e <= hi; e += step)
			x_tick(c, pow(2, e));
		return;
	}
	for (double e = ceil(log10(c->x0)); e <= floor(log10(c->x1)); e++)
		x_tick(c, pow(10, e));
}

static void x_ticks_linear(const struct chart *c)
{
	double step = nice_step((c->x1 - c->x0) / 6);

	for (double v = ceil(c->x0 / step) * step; v <= c->x1 + step * 1e-9; v += step)
		x_tick(c, v);
}

static void y_ticks(const struct chart *c)
{
	double step = nice_step((c->y1 - c->y0) / 5);
	char lab[32];

	for (double v = ceil(c->y0 / step) * step; v <= c->y1 + step * 1e-9; v += step) {
		double y = py(c, v);

		tick_label(c, lab, sizeof(lab), v, false);
		fprintf(c->out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eceff2\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" "
			"fill=\"#5b6570\">%s</text>\n",
			c->l, y, c->r, y, c->l - 6, y + 4, lab);
	}
}

/* Round the y range out to whole ticks; a zero baseline for non-negative data. */
static void set_y_range(struct chart *c, double ymin, double ymax)
{
	double step;

	if (!isfinite(ymin) || !isfinite(ymax)) {
		ymin = 0;
		ymax = 1;
	}
	c->y0 = ymin >= 0 ? 0 : ymin;
	if (ymax <= c->y0)
		ymax = c->y0 + (fabs(c->y0) > 0 ? fabs(c->y0) : 1);
	step = nice_step((ymax * 1.05 - c->y0) / 5);
	c->y1 = ceil(ymax * 1.05 / step) * step;
	if (c->y0 < 0)
		c->y0 = floor(c->y0 / step) * step;
}

static void set_x_range(struct chart *c, double xmin, double xmax, const char *x_unit)
{
	if (!isfinite(xmin) || !isfinite(xmax)) {
		xmin = 0;
		xmax = 1;
	}
	/* more than two decades: a log axis, or the small sizes vanish at the left edge */
	c->log_x = xmin > 0 && xmax / xmin > 100;
	c->bytes_x = x_unit && (!strcmp(x_unit, "B") || !strcmp(x_unit, "bytes") ||
				!strcmp(x_unit, "byte"));
	if (xmax <= xmin) {
		xmax = xmin + (c->log_x ? xmin : 1);
		if (xmax <= xmin)
			xmax = xmin + 1;
	}
	c->x0 = xmin;
	c->x1 = xmax;
}

/* The frame, the title, axis labels and ticks; the caller draws the data. */
static void chart_open(struct chart *c, const char *title, const char *xlabel,
		       const char *ylabel)
{
	FILE *out = c->out;

	fprintf(out, "<svg width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">",
		c->w, c->h, c->w, c->h);
	fputs("<title>", out);
	esc(out, title);
	fprintf(out, "</title>\n<text x=\"%.1f\" y=\"18\" font-size=\"13\" font-weight=\"600\">",
		c->l);
	esc(out, title);
	fputs("</text>\n", out);
	/* a bar chart labels its categories itself */
	if (!c->no_x_ticks && c->log_x)
		x_ticks_log(c);
	else if (!c->no_x_ticks)
		x_ticks_linear(c);
	y_ticks(c);
	fprintf(out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		"stroke=\"#9aa4ae\"/>\n",
		c->l, c->t, c->r - c->l, c->b - c->t);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">",
		(c->l + c->r) / 2, c->h - 6);
	esc(out, xlabel);
	if (c->log_x)
		fputs(" (log scale)", out);
	fprintf(out,
		"</text>\n<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\" "
		"font-size=\"11\">",
		(c->t + c->b) / 2);
	esc(out, ylabel);
	fputs("</text>\n", out);
}

static void chart_close(struct chart *c)
{
	fputs("</svg>\n", c->out);
}

/* Line number `style`, broken where a value is unknown; dots too when there are few points. */
static void chart_line(struct chart *c, const double *x, const double *y, size_t n,
		       size_t style)
{
	const char *color = color_of(style);

	bool open = false;

	for (size_t i = 0; i < n; i++) {
		bool ok = isfinite(x[i]) && isfinite(y[i]) && (!c->log_x || x[i] > 0);

		if (ok && !open)
			fprintf(c->out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
					"stroke-dasharray=\"%s\" points=\"",
				color, dash_of(style));
		if (ok)
			fprintf(c->out, "%.1f,%.1f ", px(c, x[i]), py(c, y[i]));
		if (!ok && open)
			fputs("\"/>\n", c->out);
		open = ok;
	}
	if (open)
		fputs("\"/>\n", c->out);
	if (n > 40)
		return;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && isfinite(y[i]) && (!c->log_x || x[i] > 0))
			fprintf(c->out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>",
				px(c, x[i]), py(c, y[i]), color);
	fputc('\n', c->out);
}

#define LEGEND_ROW 14.0

/* width of a legend entry: a swatch and the text at about 6.5 px per character */
static double legend_w(const char *name)
{
	return 24 + 6.5 * (double)strlen(name);
}

/* Rows the legend needs between the title and the plot, wrapping at the chart's width. */
static size_t legend_rows(const struct chart *c, const char *const *names, size_t n)
{
	double x = c->l;
	size_t rows = n ? 1 : 0;

	for (size_t i = 0; i < n; i++) {
		if (x + legend_w(names[i]) > c->r && x > c->l) {
			rows++;
			x = c->l;
		}
		x += legend_w(names[i]);
	}
	return rows;
}

/* Make room for the legend: call before chart_open. */
static void chart_reserve_legend(struct chart *c, const char *const *names, size_t n)
{
	size_t rows = legend_rows(c, names, n);

	if (rows > 1) {
		c->t += LEGEND_ROW * (double)(rows - 1);
		c->h += LEGEND_ROW * (double)(rows - 1);
		c->b += LEGEND_ROW * (double)(rows - 1);
	}
}

/* Legend entries left to right under the title, wrapped like chart_reserve_legend. */
static void chart_legend(struct chart *c, const char *const *names, size_t n)
{
	double x = c->l, y = 30;

	for (size_t i = 0; i < n; i++) {
		if (x + legend_w(names[i]) > c->r && x > c->l) {
			x = c->l;
			y += LEGEND_ROW;
		}
		fprintf(c->out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"4\" stroke-dasharray=\"%s\" stroke-opacity=\"%.2f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">",
			x, y - 3, x + 13, y - 3, color_of(i), dash_of(i), opacity_of(i), x + 16, y);
		esc(c->out, names[i]);
		fputs("</text>\n", c->out);
		x += legend_w(names[i]);
	}
}

/* One model in the whole run: legends say "GPU 1", the GPU table says which model. */
static bool one_model(const struct gb_run *run)
{
	for (size_t i = 1; i < run->n_devices; i++)
		if (!run->devices[i].name || !run->devices[0].name ||
		    strcmp(run->devices[i].name, run->devices[0].name))
			return false;
	return true;
}

/* "GPU 1", or "GPU 1 NVIDIA A100-SXM4-80GB" when the run mixes models */
static char *gpu_label(const struct gb_run *run, int device)
{
	const char *name = gb_fmt_device_name(run, device);

	if (device < 0)
		return gb_strdup("all GPUs");
	if (name && !one_model(run))
		return gb_strdupf("GPU %d %s", device, name);
	return gb_strdupf("GPU %d", device);
}

/* axis title from a unit: "time (s)", "size (B)", else the unit */
static char *axis_title(const char *unit, const char *fallback)
{
	if (!unit)
		return gb_strdup(fallback);
	if (!strcmp(unit, "s"))
		return gb_strdup("time (s)");
	if (!strcmp(unit, "B") || !strcmp(unit, "bytes"))
		return gb_strdup("size (bytes)");
	return gb_strdup(unit);
}

static void chart_init(struct chart *c, FILE *out, double w, double h)
{
	memset(c, 0, sizeof(*c));
	c->out = out;
	c->w = w;
	c->h = h;
	c->l = 62;
	c->r = w - 16;
	c->t = 44;
	c->b = h - 36;
}

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

static void td_num(FILE *out, double v)
{
	fputs("<td class=\"num\">", out);
	human(out, v);
	fputs("</td>", out);
}

static void td_text(FILE *out, const char *s)
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

/* ------------------------------------------------------------------------ */
/* gpubench compare                                                         */

static const char cmp_css[] =
	"tr.regression td,tr.b_worse td{background:#fdecea}"
	"tr.improvement td,tr.b_better td{background:#e8f5e9}"
	"tr.only_a td,tr.only_b td{color:#5b6570}"
	".chg{display:inline-block;width:120px;height:8px;background:#eef1f4;position:relative;"
	"margin-right:6px;vertical-align:middle}"
	".chg span{position:absolute;top:0;height:8px}"
	"td.params{font-size:12px;word-break:break-all;max-width:240px}"
	"td.gpu{font-size:12px;max-width:200px}";

/* the change as a bar around a centre line, scaled to +-scale percent */
static void change_cell(FILE *out, const struct gb_cmp_row *r, double scale, bool diff_models)
{
	double w, pct = r->change_pct;
	bool good;

	if (!isfinite(pct)) {
		fputs("<td class=\"num\">-</td>", out);
		return;
	}
	w = fmin(fabs(pct) / scale, 1) * 60;
	good = r->better == GB_BETTER_NONE ? true
					    : (r->better == GB_BETTER_HIGHER) == (pct >= 0);
	fprintf(out,
		"<td class=\"num\"><span class=\"chg\"><span style=\"left:%.1fpx;width:%.1fpx;"
		"background:%s\"></span></span>%+.1f%%</td>",
		pct >= 0 ? 60.0 : 60 - w, w,
		r->cls == GB_CMP_UNCHANGED || diff_models ? "#9aa4ae"
		: good                               ? "#2e7d32"
						     : "#c62828",
		pct);
}

/* horizontal bars: the change of every row with one, worse to the left */
static void change_chart(FILE *out, const struct gb_compare *c, double scale)
{
	size_t n = 0, shown = 0;
	double row_h = 18, left = 330, width = 900, mid, h;

	for (size_t i = 0; i < c->n_rows; i++)
		n += isfinite(c->rows[i].change_pct);
	if (!n)
		return;
	n = n > 80 ? 80 : n;
	h = 40 + row_h * (double)n;
	mid = left + (width - left - 20) / 2;
	fprintf(out,
		"<h2>Change per metric</h2>\n<div class=\"charts\"><svg width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\"><title>change of B "
		"against A, percent</title>\n",
		width, h, width, h);
	fprintf(out,
		"<line x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#9aa4ae\"/>"
		"<text x=\"%.1f\" y=\"14\" font-size=\"11\" text-anchor=\"middle\">0%%</text>"
		"<text x=\"%.1f\" y=\"14\" font-size=\"11\" text-anchor=\"middle\">-%g%%</text>"
		"<text x=\"%.1f\" y=\"14\" font-size=\"11\" text-anchor=\"end\">+%g%%</text>\n",
		mid, mid, h - 10, mid, left, scale, width - 20, scale);
	for (size_t i = 0; i < c->n_rows && shown < n; i++) {
		const struct gb_cmp_row *r = &c->rows[i];
		double y = 24 + row_h * (double)shown, pct = r->change_pct, w;
		const char *color;
		char *label;

		if (!isfinite(pct))
			continue;
		shown++;
		w = fmin(fabs(pct) / scale, 1) * (mid - left);
		color = r->cls == GB_CMP_REGRESSION ? "#c62828"
			: r->cls == GB_CMP_IMPROVEMENT ? "#2e7d32"
						       : "#9aa4ae";
		label = r->a.device >= 0 ? gb_strdupf("%s/%s GPU %d", r->bench, r->metric,
						      r->a.device)
					 : gb_strdupf("%s/%s", r->bench, r->metric);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">",
			left - 6, y + 11);
		esc(out, label);
		fprintf(out,
			"</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" "
			"fill=\"%s\"><title>%+.2f%%</title></rect>\n",
			pct >= 0 ? mid : mid - w, y, fmax(w, 1), color, pct);
		free(label);
	}
	fputs("</svg></div>\n", out);
}

static void cmp_inputs(FILE *out, const struct gb_compare *c)
{
	const char *names[2] = { c->name_a, c->name_b };
	const char *hosts[2] = { c->host_a, c->host_b };
	const char *models[2] = { c->models_a, c->models_b };
	double prices[2] = { c->price_a, c->price_b };
	char sw[512];

	fputs("<h2>Reports</h2>\n<table><tr><th></th><th>file</th><th>host</th><th>GPUs</th>"
	      "<th>$ per GPU-hour</th></tr>\n",
	      out);
	for (int k = 0; k < 2; k++) {
		fprintf(out, "<tr><td>%s</td>", k ? "B" : "A");
		td_text(out, names[k]);
		td_text(out, hosts[k]);
		td_text(out, models[k]);
		td_num(out, prices[k]);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	if (gb_software_changes_line(sw, sizeof(sw), c->software, c->n_software)) {
		fputs("<p>Software changed: ", out);
		esc(out, sw);
		fputs("</p>\n", out);
	}
}

static void cmp_missing(FILE *out, const struct gb_compare *c)
{
	if (c->n_na) {
		fputs("<h2>", out);
		esc(out, GB_CMP_NA_TITLE);
		fputs("</h2>\n<div class=\"card\"><ul class=\"findings\">\n", out);
		for (size_t i = 0; i < c->n_na; i++) {
			fputs("<li>", out);
			esc(out, c->na[i].message);
			fputs("</li>\n", out);
		}
		fputs("</ul></div>\n", out);
	}
	if (!c->n_missing)
		return;
	fprintf(out, "<h2>B incomplete</h2>\n<div class=\"card\">%s\n<ul class=\"findings\">\n",
		c->allow_missing ? "listed, not failed (--allow-missing)" : "fails the gate");
	for (size_t i = 0; i < c->n_missing; i++) {
		fprintf(out, "<li class=\"%s\">", c->allow_missing ? "warn" : "fail");
		esc(out, c->missing[i].message);
		fputs("</li>\n", out);
	}
	fputs("</ul></div>\n", out);
}

static void cmp_table(FILE *out, const struct gb_compare *c, double scale)
{
	bool cross = c->different_models;

	fputs("<h2>Metrics</h2>\n<table><tr><th>benchmark</th><th>metric</th><th>GPU</th>"
	      "<th>params</th><th>A</th><th>B</th><th>unit</th><th>B/A</th><th>change</th>",
	      out);
	if (cross)
		fputs("<th>% peak A</th><th>% peak B</th><th>per W A</th><th>per W B</th>"
		      "<th>per $ A</th><th>per $ B</th>",
		      out);
	fputs("<th>result</th></tr>\n", out);
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct gb_cmp_row *r = &c->rows[i];
		const char *cls = gb_cmp_class_name(r->cls, cross);
		int dev = r->a.device >= 0 ? r->a.device : r->b.device;

		fprintf(out, "<tr class=\"%s\">", cls);
		td_text(out, r->bench);
		td_text(out, r->metric);
		fputs("<td class=\"gpu\">", out);
		if (dev >= 0)
			fprintf(out, "%d ", dev);
		esc(out, r->model);
		fputs("</td><td class=\"params\">", out);
		esc(out, r->params);
		fputs("</td>", out);
		td_num(out, r->a.value);
		td_num(out, r->b.value);
		td_text(out, r->unit ? r->unit : "");
		td_num(out, r->ratio);
		change_cell(out, r, scale, cross);
		if (cross) {
			td_num(out, r->a.efficiency * 100);
			td_num(out, r->b.efficiency * 100);
			td_num(out, r->a.per_watt);
			td_num(out, r->b.per_watt);
			td_num(out, r->a.per_dollar);
			td_num(out, r->b.per_dollar);
		}
		td_text(out, cls);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* the regressed rows again, one line each: the table may be long */
static void cmp_regressions(FILE *out, const struct gb_compare *c)
{
	char line[512];

	if (!gb_compare_regressed(c))
		return;
	fputs("<h2>Regressions (fail the gate)</h2>\n<div class=\"card\"><ul class=\"findings\">\n",
	      out);
	for (size_t i = 0; i < c->n_rows; i++) {
		if (c->rows[i].cls != GB_CMP_REGRESSION)
			continue;
		gb_cmp_row_line(&c->rows[i], line, sizeof(line));
		fputs("<li class=\"fail\">", out);
		esc(out, line);
		fputs("</li>\n", out);
	}
	fputs("</ul></div>\n", out);
}

int gb_compare_html(const struct gb_compare *c, FILE *out)
{
	enum gb_status st = gb_compare_failed(c) ? GB_STATUS_FAILED : GB_STATUS_PASSED;
	double scale = 0;
	char words[512];

	/* the bars' scale: the largest change, at least the tolerance, at most 100% */
	for (size_t i = 0; i < c->n_rows; i++)
		if (isfinite(c->rows[i].change_pct))
			scale = fmax(scale, fabs(c->rows[i].change_pct));
	scale = fmin(nice_step(fmax(scale, fmax(c->tolerance * 100, 1))), 100);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>gpubench compare ",
	      out);
	esc(out, c->name_a);
	fputs(" vs ", out);
	esc(out, c->name_b);
	fprintf(out, ": %s</title>\n<style>%s%s</style>\n</head>\n<body>\n<header>\n"
		     "<h1>gpubench compare",
		gb_compare_result_words(c), css, cmp_css);
	badge(out, st);
	fputs("</h1>\n<p class=\"meta\">", out);
	esc(out, c->name_a);
	fputs(" (A) against ", out);
	esc(out, c->name_b);
	if (c->different_models)
		fputs(" (B) &middot; different GPU models: side by side, changes not gated", out);
	else
		fprintf(out,
			" (B) &middot; a regression is worse by more than %.1f%% (unless set per "
			"metric) and by more than %g &times; the combined stdev",
			c->tolerance * 100, c->spread_k);
	fputs("</p>\n</header>\n<main>\n<h2>Result</h2>\n<div class=\"card\">", out);
	badge(out, st);
	fputc(' ', out);
	esc(out, gb_compare_result_words(c));
	/* the words text and Markdown print, so no format says "regressions" where another
	 * says "worse in B, changes not gated" */
	gb_compare_summary_words(c, words, sizeof(words));
	fputs(" &middot; ", out);
	esc(out, words);
	fputs("</div>\n", out);
	cmp_inputs(out, c);
	cmp_missing(out, c);
	cmp_regressions(out, c);
	change_chart(out, c, scale);
	cmp_table(out, c, scale);
	fputs("<footer>written by gpubench compare; every number is also in "
	      "<code>--format json</code></footer>\n</main>\n</body>\n</html>\n",
	      out);
	return gb_fmt_finish(out);
}
