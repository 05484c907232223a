/* SPDX-License-Identifier: MIT */
/*
 * csv.c - the metrics of a report as CSV (RFC 4180: CRLF line ends, quoted
 * fields where needed), one row per metric, for spreadsheets and pandas.
 * Numbers are exact (they read back as the same double); unknown is empty.
 */
#include <math.h>

#include "formats.h"

static const char *const columns[] = {
	"benchmark", "metric", "device", "value", "unit", "median", "min",
	"max",       "stdev",  "cv",     "peak",  "efficiency", NULL,
};

static void num_field(FILE *out, double v)
{
	char buf[48];

	gb_fmt_exact(buf, sizeof(buf), v);
	fputc(',', out);
	fputs(buf, out);
}

static void metric_row(FILE *out, const struct gb_bench_result *b, const struct gb_metric *m)
{
	bool st = m->stats.n > 0;

	gb_fmt_csv(out, b->name);
	fputc(',', out);
	gb_fmt_csv(out, m->name);
	fputc(',', out);
	if (m->device >= 0)
		fprintf(out, "%d", m->device);
	num_field(out, m->value);
	fputc(',', out);
	gb_fmt_csv(out, m->unit);
	num_field(out, st ? m->stats.median : NAN);
	num_field(out, st ? m->stats.min : NAN);
	num_field(out, st ? m->stats.max : NAN);
	num_field(out, st ? m->stats.stdev : NAN);
	num_field(out, st ? m->stats.cv : NAN);
	num_field(out, m->peak);
	num_field(out, m->efficiency);
	fputs("\r\n", out);
}

int gb_report_csv(const struct gb_run *run, FILE *out)
{
	for (size_t i = 0; columns[i]; i++)
		fprintf(out, "%s%s", i ? "," : "", columns[i]);
	fputs("\r\n", out);
	for (size_t i = 0; i < run->n_benches; i++)
		for (size_t j = 0; j < run->benches[i].n_metrics; j++)
			metric_row(out, &run->benches[i], &run->benches[i].metrics[j]);
	return gb_fmt_finish(out);
}
