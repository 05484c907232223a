/* SPDX-License-Identifier: MIT */
/*
 * writers.h - the report writers formats.c dispatches to, one file each:
 * markdown.c, csv.c, junit.c, prometheus.c, html.c. Each takes a finished
 * run (verdict computed) and a stream, writes the whole document and
 * returns 0, or -1 when the stream reported an error. They use
 * format_util.h, never formats.h.
 */
#ifndef GPUBENCH_REPORT_WRITERS_H
#define GPUBENCH_REPORT_WRITERS_H

#include <stdio.h>

#include "report/result.h"

int gb_report_markdown(const struct gb_run *run, FILE *out);
int gb_report_csv(const struct gb_run *run, FILE *out);
int gb_report_junit(const struct gb_run *run, FILE *out);
int gb_report_prometheus(const struct gb_run *run, FILE *out);
int gb_report_html(const struct gb_run *run, FILE *out);

#endif
