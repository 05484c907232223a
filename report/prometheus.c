/* SPDX-License-Identifier: MIT */
/*
 * prometheus.c - the report in Prometheus text exposition format (0.0.4),
 * for node_exporter's textfile collector: write it to
 * <dir>/gpubench.prom.$$ and rename it to <dir>/gpubench.prom.
 *
 * Every metric is a gauge named gpubench_<benchmark>_<metric> with labels
 * device, gpu (model), uuid and unit; every check is
 * gpubench_check_passed{benchmark,check,device,status} 1 or 0 (0 for
 * failed, error and skipped: a check that did not run is not passed); the
 * verdict is gpubench_verdict_status{status=...}, 1 on the current status
 * and 0 on the others. All samples of a family are written together under
 * one # HELP and # TYPE, as the format requires.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare.h"
#include "formats.h"

/* the families written below; a metric whose name would collide gets a suffix */
static const char *const fixed_families[] = {
	"gpubench_check_passed", "gpubench_benchmark_passed", "gpubench_verdict_status",
	"gpubench_exit_code",    "gpubench_report_timestamp_seconds", "gpubench_info",
};

/* [a-zA-Z_:][a-zA-Z0-9_:]*, other characters as '_' (the prefix makes the first valid) */
static char *family_name(const char *bench, const char *metric)
{
	char *s = gb_strdupf("gpubench_%s_%s", bench, metric);

	for (char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != ':')
			*p = '_';
	for (size_t i = 0; i < sizeof(fixed_families) / sizeof(fixed_families[0]); i++) {
		if (!strcmp(s, fixed_families[i])) {
			char *t = gb_strdupf("%s_metric", s);

			free(s);
			return t;
		}
	}
	return s;
}

/* label values escape backslash, double quote and newline */
static void label_value(FILE *out, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '"')
			fputs("\\\"", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else
			fputc(*p, out);
	}
}

/* HELP text escapes backslash and newline only */
static void help_text(FILE *out, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else
			fputc(*p, out);
	}
}

/* ,name="value" (the first label writes no comma: *first tracks it) */
static void label(FILE *out, bool *first, const char *name, const char *value)
{
	fprintf(out, "%s%s=\"", *first ? "" : ",", name);
	label_value(out, value);
	fputc('"', out);
	*first = false;
}

static void device_labels(FILE *out, bool *first, const struct gb_run *run, int device)
{
	const struct gb_device_info *d = gb_fmt_device(run, device);
	char idx[16];

	if (device < 0)
		return;
	snprintf(idx, sizeof(idx), "%d", device);
	label(out, first, "device", idx);
	if (d && d->name)
		label(out, first, "gpu", d->name);
	if (d && d->uuid)
		label(out, first, "uuid", d->uuid);
}

static void value(FILE *out, double v)
{
	char buf[48];

	gb_fmt_exact(buf, sizeof(buf), v);
	fprintf(out, " %s\n", buf);
}

/* One metric sample to print under its family. */
struct entry {
	char *family;
	const struct gb_bench_result *b;
	const struct gb_metric *m;
	bool dup; /* same family and device as an earlier one: tell them apart by params */
};

static void metric_sample(FILE *out, const struct gb_run *run, const struct entry *e)
{
	bool first = true;

	fputs(e->family, out);
	fputc('{', out);
	device_labels(out, &first, run, e->m->device);
	label(out, &first, "unit", e->m->unit ? e->m->unit : "");
	if (e->dup) {
		char *key = gb_params_key(e->b->params);

		label(out, &first, "params", key);
		free(key);
	}
	fputc('}', out);
	value(out, e->m->value);
}

static void family_header(FILE *out, const struct entry *e)
{
	fprintf(out, "# HELP %s ", e->family);
	help_text(out, e->m->description ? e->m->description : e->m->name);
	if (e->m->unit) {
		fputs(" (", out);
		help_text(out, e->m->unit);
		fputc(')', out);
	}
	fprintf(out, "\n# TYPE %s gauge\n", e->family);
}

static size_t collect(const struct gb_run *run, struct entry *entries)
{
	size_t n = 0;

	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_metrics; j++) {
			struct entry *e = &entries[n];

			/* an unknown value is left out: NaN would read as a measurement */
			if (!isfinite(b->metrics[j].value))
				continue;
			e->family = family_name(b->name, b->metrics[j].name);
			e->b = b;
			e->m = &b->metrics[j];
			e->dup = false;
			for (size_t k = 0; k < n; k++)
				if (!strcmp(entries[k].family, e->family) &&
				    entries[k].m->device == e->m->device)
					e->dup = entries[k].dup = true;
			n++;
		}
	}
	return n;
}

static void print_metrics(FILE *out, const struct gb_run *run)
{
	size_t total = 0, n;
	struct entry *entries;
	bool *done;

	for (size_t i = 0; i < run->n_benches; i++)
		total += run->benches[i].n_metrics;
	entries = gb_xrealloc(NULL, sizeof(*entries) * (total ? total : 1));
	done = gb_xrealloc(NULL, sizeof(*done) * (total ? total : 1));
	n = collect(run, entries);
	memset(done, 0, sizeof(*done) * (total ? total : 1));
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		family_header(out, &entries[i]);
		for (size_t j = i; j < n; j++) {
			if (!done[j] && !strcmp(entries[j].family, entries[i].family)) {
				metric_sample(out, run, &entries[j]);
				done[j] = true;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		free(entries[i].family);
	free(entries);
	free(done);
}

static void print_checks(FILE *out, const struct gb_run *run)
{
	bool header = false;

	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_checks; j++) {
			const struct gb_check *c = &b->checks[j];
			bool first = true;
			bool ok = c->status == GB_STATUS_PASSED || c->status == GB_STATUS_WARNING;

			if (!header)
				fputs("# HELP gpubench_check_passed 1 when the check passed (warnings "
				      "included), 0 when it failed, could not run or was skipped\n"
				      "# TYPE gpubench_check_passed gauge\n",
				      out);
			header = true;
			fputs("gpubench_check_passed{", out);
			label(out, &first, "benchmark", b->name);
			label(out, &first, "check", c->name);
			device_labels(out, &first, run, c->device);
			label(out, &first, "status", gb_status_name(c->status));
			fprintf(out, "} %d\n", ok ? 1 : 0);
		}
	}
}

static void print_benches(FILE *out, const struct gb_run *run)
{
	if (!run->n_benches)
		return;
	fputs("# HELP gpubench_benchmark_passed 1 when the benchmark ran and passed (warnings "
	      "included), else 0\n# TYPE gpubench_benchmark_passed gauge\n",
	      out);
	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];
		bool first = true;
		bool ok = b->status == GB_STATUS_PASSED || b->status == GB_STATUS_WARNING;

		fputs("gpubench_benchmark_passed{", out);
		label(out, &first, "benchmark", b->name);
		label(out, &first, "status", gb_status_name(b->status));
		fprintf(out, "} %d\n", ok ? 1 : 0);
	}
}

/* "2026-11-22T10:00:00Z" -> seconds since the epoch, NAN if it does not parse */
static double iso_to_epoch(const char *s)
{
	struct tm tm;
	const char *end;

	if (!s)
		return NAN;
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return NAN;
	return (double)timegm(&tm);
}

static void print_run(FILE *out, const struct gb_run *run)
{
	double t = iso_to_epoch(run->finished_at ? run->finished_at : run->started_at);
	bool first = true;

	fputs("# HELP gpubench_verdict_status the verdict of the run: 1 on its status, 0 on the "
	      "others\n# TYPE gpubench_verdict_status gauge\n",
	      out);
	for (int s = GB_STATUS_PASSED; s <= GB_STATUS_INTERRUPTED; s++)
		fprintf(out, "gpubench_verdict_status{status=\"%s\"} %d\n",
			gb_status_name((enum gb_status)s), run->verdict == (enum gb_status)s);
	fprintf(out, "# HELP gpubench_exit_code the exit code the run ended with\n"
		     "# TYPE gpubench_exit_code gauge\ngpubench_exit_code %d\n",
		run->exit_code);
	if (isfinite(t)) {
		fputs("# HELP gpubench_report_timestamp_seconds when the run finished, so stale "
		      "files can be alerted on\n# TYPE gpubench_report_timestamp_seconds gauge\n"
		      "gpubench_report_timestamp_seconds",
		      out);
		value(out, t);
	}
	fputs("# HELP gpubench_info the gpubench build and command that wrote the report\n"
	      "# TYPE gpubench_info gauge\ngpubench_info{",
	      out);
	label(out, &first, "version", run->tool.version ? run->tool.version : "unknown");
	label(out, &first, "git", run->tool.git ? run->tool.git : "unknown");
	label(out, &first, "command", run->command ? run->command : "unknown");
	label(out, &first, "host", run->host.hostname ? run->host.hostname : "unknown");
	fputs("} 1\n", out);
}

int gb_report_prometheus(const struct gb_run *run, FILE *out)
{
	print_metrics(out, run);
	print_checks(out, run);
	print_benches(out, run);
	print_run(out, run);
	return gb_fmt_finish(out);
}
