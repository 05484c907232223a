/* SPDX-License-Identifier: MIT */
/*
 * markdown.c - the report as GitHub-flavoured Markdown, fit for a CI job
 * summary ($GITHUB_STEP_SUMMARY) or a merge-request comment: the verdict
 * first, then what failed, then the tables a reviewer scans.
 */
#include <math.h>
#include <string.h>

#include "formats.h"

static const char *status_icon(enum gb_status s)
{
	switch (s) {
	case GB_STATUS_PASSED:
		return "\xE2\x9C\x85"; /* check mark */
	case GB_STATUS_WARNING:
		return "\xE2\x9A\xA0\xEF\xB8\x8F"; /* warning sign */
	case GB_STATUS_FAILED:
		return "\xE2\x9D\x8C"; /* cross mark */
	case GB_STATUS_SKIPPED:
	case GB_STATUS_NOT_BUILT:
		return "\xE2\x8F\xAD\xEF\xB8\x8F"; /* next track */
	case GB_STATUS_ERROR:
	case GB_STATUS_INTERRUPTED:
		break;
	}
	return "\xF0\x9F\x9B\x91"; /* stop sign */
}

static void md_num(FILE *out, double v)
{
	char buf[48];

	gb_fmt_human(buf, sizeof(buf), v);
	fputs(buf, out);
}

static void md_device(FILE *out, int device)
{
	if (device >= 0)
		fprintf(out, "%d", device);
	else
		fputs("all", out);
}

static void print_header(const struct gb_run *run, FILE *out)
{
	fprintf(out, "## %s gpubench %s: %s\n\n", status_icon(run->verdict),
		run->command ? run->command : "report", gb_status_name(run->verdict));
	fputs("| | |\n|---|---|\n| host | ", out);
	gb_fmt_md(out, run->host.hostname ? run->host.hostname : "-");
	fputs(" |\n| started | ", out);
	gb_fmt_md(out, run->started_at ? run->started_at : "-");
	fputs(" |\n| gpubench | ", out);
	gb_fmt_md(out, run->tool.version ? run->tool.version : "-");
	fputs(" (git ", out);
	gb_fmt_md(out, run->tool.git ? run->tool.git : "-");
	fputs(") |\n| driver | ", out);
	gb_fmt_md(out, run->host.driver_version ? run->host.driver_version : "-");
	fputs(" |\n", out);
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];

		fprintf(out, "| GPU %d | ", d->index);
		gb_fmt_md(out, d->name ? d->name : "unknown");
		if (d->pci_bus_id) {
			fputs(" (", out);
			gb_fmt_md(out, d->pci_bus_id);
			fputc(')', out);
		}
		fputs(" |\n", out);
	}
	if (run->reason) {
		fputs("| reason | ", out);
		gb_fmt_md(out, run->reason);
		fputs(" |\n", out);
	}
	fputc('\n', out);
}

static bool is_bad(enum gb_status s)
{
	return s == GB_STATUS_FAILED || s == GB_STATUS_ERROR;
}

static void check_row(FILE *out, const struct gb_bench_result *b, const struct gb_check *c)
{
	fprintf(out, "| %s ", status_icon(c->status));
	gb_fmt_md(out, b->name);
	fputs(" | ", out);
	gb_fmt_md(out, c->name);
	fputs(" | ", out);
	md_device(out, c->device);
	fputs(" | ", out);
	md_num(out, c->observed);
	fputs(" | ", out);
	md_num(out, c->threshold);
	fputs(" | ", out);
	gb_fmt_md(out, c->message);
	fputs(" |\n", out);
}

/* Failed and errored checks first, so the reason for a red build is on top. */
static void print_checks(const struct gb_run *run, FILE *out, bool bad)
{
	bool any = false;

	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_checks; j++) {
			if (is_bad(b->checks[j].status) != bad)
				continue;
			if (!any)
				fprintf(out, "### %s\n\n| benchmark | check | GPU | observed | "
					     "threshold | message |\n|---|---|---|---:|---:|---|\n",
					bad ? "Failed checks" : "Checks");
			any = true;
			check_row(out, b, &b->checks[j]);
		}
	}
	if (any)
		fputc('\n', out);
}

static void print_benches(const struct gb_run *run, FILE *out)
{
	if (!run->n_benches)
		return;
	fputs("### Benchmarks\n\n| benchmark | status | time (s) | reason |\n|---|---|---:|---|\n",
	      out);
	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		fputs("| ", out);
		gb_fmt_md(out, b->name);
		fprintf(out, " | %s %s | ", status_icon(b->status), gb_status_name(b->status));
		md_num(out, b->duration_s);
		fputs(" | ", out);
		gb_fmt_md(out, b->reason ? b->reason : "");
		fputs(" |\n", out);
	}
	fputc('\n', out);
}

static void metric_row(FILE *out, const struct gb_bench_result *b, const struct gb_metric *m)
{
	fputs("| ", out);
	gb_fmt_md(out, b->name);
	fputs(" | ", out);
	gb_fmt_md(out, m->name);
	fputs(" | ", out);
	md_device(out, m->device);
	fputs(" | ", out);
	md_num(out, m->value);
	fputs(" | ", out);
	gb_fmt_md(out, m->unit ? m->unit : "");
	fputs(" | ", out);
	if (m->stats.n > 1)
		fprintf(out, "%.2f%% (n=%zu)", m->stats.cv * 100, m->stats.n);
	fputs(" | ", out);
	if (isfinite(m->efficiency))
		fprintf(out, "%.1f%%", m->efficiency * 100);
	fputs(" |\n", out);
}

static void print_metrics(const struct gb_run *run, FILE *out)
{
	bool any = false;

	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_metrics; j++) {
			if (!any)
				fputs("### Metrics\n\n| benchmark | metric | GPU | value | unit | CV "
				      "| % of peak |\n|---|---|---|---:|---|---:|---:|\n",
				      out);
			any = true;
			metric_row(out, b, &b->metrics[j]);
		}
	}
	if (any)
		fputc('\n', out);
}

static void print_verdict_lists(const struct gb_run *run, FILE *out)
{
	if (run->n_verdict_warnings) {
		fputs("### Warnings\n\n", out);
		for (size_t i = 0; i < run->n_verdict_warnings; i++) {
			fputs("- ", out);
			gb_fmt_md(out, run->verdict_warnings[i]);
			fputc('\n', out);
		}
		fputc('\n', out);
	}
}

int gb_report_markdown(const struct gb_run *run, FILE *out)
{
	print_header(run, out);
	print_checks(run, out, true);
	print_verdict_lists(run, out);
	print_benches(run, out);
	print_metrics(run, out);
	print_checks(run, out, false);
	return gb_fmt_finish(out);
}
