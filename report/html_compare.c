/* SPDX-License-Identifier: MIT */
/*
 * html_compare.c - gb_compare_html: a comparison as one self-contained
 * page, like the report's (html.c): both reports, why B is incomplete, a
 * chart of the change per metric and the full table. Uses html_chart.c's
 * helpers, compare_words.c's words and format_util.h; compare never calls
 * back into anything but gb_compare_html.
 */
#include "report/html_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/compare.h"
#include "report/format_util.h"

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
