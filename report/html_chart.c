/* SPDX-License-Identifier: MIT */
/*
 * html_chart.c - what both HTML pages (html.c, html_compare.c) draw with:
 * the palette and stylesheet, escaping, and the small inline-SVG chart
 * engine (axes, ticks on linear and log scales, lines, legends). Uses
 * format_util.h and result.h only; it knows no benchmark and no compare.
 */
#include "report/html_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/format_util.h"

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))

const char *color_of(size_t i)
{
	return palette[i % N_PALETTE];
}

/* stroke-dasharray of line i: solid for the first round of colours */
static const char *dash_of(size_t i)
{
	static const char *const dashes[] = { "none", "6 3", "2 2", "8 2 2 2" };

	return dashes[(i / N_PALETTE) % 4];
}

double opacity_of(size_t i)
{
	static const double op[] = { 1, 0.6, 0.35, 0.8 };

	return op[(i / N_PALETTE) % 4];
}

const char css[] =
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

void esc(FILE *out, const char *s)
{
	gb_fmt_xml(out, s, 0);
}

void human(FILE *out, double v)
{
	char buf[48];

	gb_fmt_human(buf, sizeof(buf), v);
	fputs(buf, out);
}

void badge(FILE *out, enum gb_status s)
{
	fprintf(out, "<span class=\"badge %s\">%s</span>", gb_status_name(s), gb_status_name(s));
}

/* ------------------------------------------------------------------------ */
/* SVG charts                                                               */

static double px(const struct chart *c, double x)
{
	double f = c->log_x ? (log10(x) - log10(c->x0)) / (log10(c->x1) - log10(c->x0))
			    : (x - c->x0) / (c->x1 - c->x0);

	return c->l + f * (c->r - c->l);
}

double py(const struct chart *c, double y)
{
	return c->b - (y - c->y0) / (c->y1 - c->y0) * (c->b - c->t);
}

/* 1, 2 or 5 times a power of ten, at least x */
double nice_step(double x)
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
void set_y_range(struct chart *c, double ymin, double ymax)
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

void set_x_range(struct chart *c, double xmin, double xmax, const char *x_unit)
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
void chart_open(struct chart *c, const char *title, const char *xlabel,
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

void chart_close(struct chart *c)
{
	fputs("</svg>\n", c->out);
}

/* Line number `style`, broken where a value is unknown; dots too when there are few points. */
void chart_line(struct chart *c, const double *x, const double *y, size_t n,
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
void chart_reserve_legend(struct chart *c, const char *const *names, size_t n)
{
	size_t rows = legend_rows(c, names, n);

	if (rows > 1) {
		c->t += LEGEND_ROW * (double)(rows - 1);
		c->h += LEGEND_ROW * (double)(rows - 1);
		c->b += LEGEND_ROW * (double)(rows - 1);
	}
}

/* Legend entries left to right under the title, wrapped like chart_reserve_legend. */
void chart_legend(struct chart *c, const char *const *names, size_t n)
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
char *gpu_label(const struct gb_run *run, int device)
{
	const char *name = gb_fmt_device_name(run, device);

	if (device < 0)
		return gb_strdup("all GPUs");
	if (name && !one_model(run))
		return gb_strdupf("GPU %d %s", device, name);
	return gb_strdupf("GPU %d", device);
}

/* axis title from a unit: "time (s)", "size (B)", else the unit */
char *axis_title(const char *unit, const char *fallback)
{
	if (!unit)
		return gb_strdup(fallback);
	if (!strcmp(unit, "s"))
		return gb_strdup("time (s)");
	if (!strcmp(unit, "B") || !strcmp(unit, "bytes"))
		return gb_strdup("size (bytes)");
	return gb_strdup(unit);
}

void chart_init(struct chart *c, FILE *out, double w, double h)
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
