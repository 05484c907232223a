/* SPDX-License-Identifier: MIT */
/*
 * html_internal.h - what the HTML files share and nobody else uses: the
 * chart engine and page pieces of html_chart.c, and the table cells of
 * html.c that the compare page (html_compare.c) writes too.
 */
#ifndef GPUBENCH_REPORT_HTML_INTERNAL_H
#define GPUBENCH_REPORT_HTML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/result.h"

/* past the palette, lines get dashes and bars get lighter: up to this many per chart */
#define MAX_SERIES 32

struct chart {
	FILE *out;
	double w, h;           /* the svg element */
	double l, r, t, b;     /* the plot area in pixels */
	double x0, x1, y0, y1; /* the data range shown */
	bool log_x;
	bool bytes_x;          /* x is a size in bytes: binary tick labels */
	bool no_x_ticks;       /* categories along x: the caller labels them */
};

/* ---- html_chart.c ---- */

const char *color_of(size_t i);
double opacity_of(size_t i);
extern const char css[];
void esc(FILE *out, const char *s);
void human(FILE *out, double v);
void badge(FILE *out, enum gb_status s);
double py(const struct chart *c, double y);
double nice_step(double x);
void set_y_range(struct chart *c, double ymin, double ymax);
void set_x_range(struct chart *c, double xmin, double xmax, const char *x_unit);
void chart_open(struct chart *c, const char *title, const char *xlabel,
		       const char *ylabel);
void chart_close(struct chart *c);
void chart_line(struct chart *c, const double *x, const double *y, size_t n,
		       size_t style);
void chart_reserve_legend(struct chart *c, const char *const *names, size_t n);
void chart_legend(struct chart *c, const char *const *names, size_t n);
char *gpu_label(const struct gb_run *run, int device);
char *axis_title(const char *unit, const char *fallback);
void chart_init(struct chart *c, FILE *out, double w, double h);

/* ---- html.c ---- */

void td_num(FILE *out, double v);
void td_text(FILE *out, const char *s);

#endif
