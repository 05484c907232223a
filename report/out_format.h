/* SPDX-License-Identifier: MIT */
/*
 * out_format.h - the names of --format and their enum, on their own so that
 * a header below the dispatcher (compare.h) can name a format without
 * including formats.h. Types only; no .c file.
 */
#ifndef GPUBENCH_REPORT_OUT_FORMAT_H
#define GPUBENCH_REPORT_OUT_FORMAT_H

/*
 * The names of --format, in the order of enum gb_out_format. A macro so the
 * option tables in cmd/ and the list here are the same text.
 */
#define GB_OUT_FORMAT_NAMES "text", "json", "markdown", "csv", "junit", "prometheus", "html"

enum gb_out_format {
	GB_OUT_TEXT = 0,   /* the terminal summary (text.c) */
	GB_OUT_JSON,       /* the report itself (json.c) */
	GB_OUT_MARKDOWN,   /* for $GITHUB_STEP_SUMMARY and merge requests */
	GB_OUT_CSV,        /* one row per metric, RFC 4180 */
	GB_OUT_JUNIT,      /* JUnit XML: one testsuite per benchmark, one testcase per check */
	GB_OUT_PROMETHEUS, /* text exposition format for node_exporter's textfile collector */
	GB_OUT_HTML,       /* one self-contained page with inline SVG charts */
	GB_OUT_COUNT
};

#endif
