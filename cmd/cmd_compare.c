/* SPDX-License-Identifier: MIT */
/*
 * cmd_compare.c - `gpubench compare A.json B.json`: two saved reports side
 * by side, and a CI gate that fails on a real regression but not on noise,
 * and never fails open: a B that lacks what A measured (a benchmark, a
 * metric, a GPU) or could not run it (a benchmark error, interrupted,
 * skipped; B's run ended early) fails too, with one warning line per reason,
 * unless --allow-missing.
 * Exit 0 passed (and every side-by-side comparison of different GPU models
 * that could be made), 1 regression or B incomplete, 2 bad input (a file
 * that is not a gpubench report, a newer schema, two reports with nothing
 * in common, a simulated report against a measured one). The rules are in
 * report/compare.h and docs/compare.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "log.h"
#include "report/compare.h"
#include "report/exitcodes.h"
#include "report/fault_action.h"
#include "report/json.h"
#include "report/outfile.h"

struct compare_params {
	double tolerance;
	const char *metric_tolerance;
	const char *price;
	int format;
	const char *output;
	bool json; /* --json: --format json, as in every command */
	bool quiet;
	bool allow_missing;
};

static const struct gb_opt compare_opts[] = {
	{ GB_OPT_PERCENT, 0, "tolerance", offsetof(struct compare_params, tolerance), "PCT",
	  "a metric worse by more than this (and than the noise) is a regression (default 5%)", 0,
	  10, NULL, 0 },
	{ GB_OPT_STRING, 0, "metric-tolerance", offsetof(struct compare_params, metric_tolerance),
	  "LIST", "per-metric tolerances, first match wins: 'tflops_*=3%,h2d_*=10%'", 0, 0, NULL,
	  0 },
	{ GB_OPT_STRING, 0, "price", offsetof(struct compare_params, price), "USD,USD",
	  "$ per GPU-hour of A and of B, for performance per dollar: 2.5,1.8", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "allow-missing", offsetof(struct compare_params, allow_missing), NULL,
	  "list what B lacks or could not run (benchmarks, metrics, GPUs) without failing", 0,
	  0, NULL, 0 },
	{ GB_OPT_ENUM, 0, "format", offsetof(struct compare_params, format), "FMT",
	  "format of stdout: text, json, markdown, csv, junit, prometheus or html", 0, 0,
	  gb_format_names, 0 },
	{ GB_OPT_BOOL, 0, "json", offsetof(struct compare_params, json), NULL,
	  "print the comparison as JSON on stdout (--format json)", 0, 0, NULL, 0 },
	{ GB_OPT_STRING, 'o', "output", offsetof(struct compare_params, output), "FILE",
	  "write the comparison to FILE in the format of its extension (.html, .md, .csv, .xml, "
	  ".prom, .txt; else JSON, schema gpubench.compare/1; '-': JSON on stdout, the table "
	  "then goes to stderr)", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 'q', "quiet", offsetof(struct compare_params, quiet), NULL,
	  "print nothing on stdout; the exit code says whether it regressed", 0, 0, NULL, 0 },
	GB_OPT_REFUSED('t', NULL,
		       "is no longer short for '--tolerance'; use '--tolerance' ('-t' is "
		       "stress's '--duration')"),
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};

/* "2.5,1.8" -> $ per GPU-hour of A and B */
static int parse_prices(const char *s, struct gb_compare_opts *o)
{
	const char *comma = strchr(s, ',');
	char a[64];

	if (comma && (size_t)(comma - s) < sizeof(a)) {
		snprintf(a, sizeof(a), "%.*s", (int)(comma - s), s);
		if (!gb_parse_double(a, &o->price_a) && !gb_parse_double(comma + 1, &o->price_b) &&
		    o->price_a > 0 && o->price_b > 0)
			return 0;
	}
	return gb_error("cannot parse '%s' as --price: expected the $ per GPU-hour of A and of "
			"B, e.g. 2.5,1.8",
			s);
}

/* -o names standard output ("-", /dev/stdout) */
static bool json_on_stdout(const struct compare_params *cp)
{
	return cp->output && gb_out_is_stdout(cp->output);
}

struct formatted {
	const struct gb_compare *cmp;
	enum gb_out_format format;
};

static int write_formatted(const void *ctx, FILE *out)
{
	const struct formatted *w = ctx;

	return gb_compare_print(w->cmp, w->format, out);
}

/* --json is --format json; with another --format, or with '-o -', one would silently win */
static int resolve_json(struct compare_params *cp)
{
	if (!cp->json)
		return 0;
	if (cp->format != GB_FORMAT_TEXT && cp->format != GB_FORMAT_JSON)
		return gb_error("'--json' and '--format %s' both choose the format of stdout; use one",
				gb_format_names[cp->format]);
	if (json_on_stdout(cp))
		return gb_error("'-o %s' and '--json' both write the comparison to stdout; use one",
				cp->output);
	cp->format = GB_FORMAT_JSON;
	return 0;
}

/* Compare, print, write; the exit code. Reports are loaded and released by the caller. */
static int compare_and_print(const struct gb_run *a, const char *pa, const struct gb_run *b,
			     const char *pb, const struct compare_params *cp,
			     const struct gb_compare_opts *o)
{
	struct gb_compare cmp;
	struct formatted file = { &cmp, GB_OUT_JSON };
	char err[1024];
	int rc;

	if (gb_compare_runs(a, pa, b, pb, o, &cmp, err, sizeof(err))) {
		gb_error("%s", err);
		return GB_EXIT_USAGE;
	}
	/* diagnostics on stderr, whatever the format and even with -q */
	for (size_t i = 0; i < cmp.n_missing; i++)
		gb_warn("B incomplete%s: %s",
			cmp.allow_missing ? " (allowed by --allow-missing)" : "",
			cmp.missing[i].message);
	rc = gb_compare_failed(&cmp) ? GB_EXIT_CHECK_FAILED : GB_EXIT_OK;
	if (cp->output)
		file.format = gb_out_format_for_output(cp->output);
	if (cp->output && gb_fmt_write_file(cp->output, write_formatted, &file, err, sizeof(err))) {
		gb_error("%s", err);
		rc = GB_EXIT_CANNOT_RUN;
	}
	/* with '-o -' stdout holds the JSON document alone: the table goes to stderr */
	if (!cp->quiet && gb_compare_print(&cmp, (enum gb_out_format)cp->format,
					   json_on_stdout(cp) ? stderr : stdout) != 0) {
		gb_error("cannot write to standard output");
		rc = GB_EXIT_CANNOT_RUN;
	}
	/* B's fault findings and what to do, a step up where A saw the same GPU fail */
	if (!cp->quiet && cp->format == GB_FORMAT_TEXT)
		gb_fault_actions_print(json_on_stdout(cp) ? stderr : stdout, b, "B");
	gb_compare_release(&cmp);
	return rc;
}

static int load_both(const char *pa, const char *pb, struct gb_run *a, struct gb_run *b)
{
	char err[1024];

	if (gb_report_load_file(pa, a, err, sizeof(err)))
		return gb_error("%s", err);
	if (gb_report_load_file(pb, b, err, sizeof(err))) {
		gb_run_release(a);
		return gb_error("%s", err);
	}
	return 0;
}

int cmd_compare(int argc, const char **argv)
{
	static const char usage[] =
		"gpubench compare A.json B.json [--tolerance 5%] [--metric-tolerance LIST] "
		"[--price A,B] [--allow-missing] [--format FMT | --json] [-o FILE]";
	static const char summary[] =
		"Compare report B against report A: every metric matched by benchmark, parameters "
		"and GPU model, with both values, the ratio and the change. Exits 1 when a metric "
		"is worse by more than the tolerance and by more than the two runs' combined "
		"spread; improvements and metrics only B has are listed, not failed. Also exits 1, "
		"with a warning, when B lacks what A measured (a benchmark, a metric, a GPU) or "
		"could not run it (a benchmark error, interrupted or skipped in B, or B's run ended "
		"early), unless --allow-missing. A simulated report (gpubench-sim) is never "
		"compared with a measured one (exit 2). "
		"Metrics without a direction (observations: clocks, power, temperature, fits) are "
		"listed, never gated, and never missing. "
		"Reports of different GPU models are shown side by side, one row per GPU (% of each "
		"one's peak; per watt, and per dollar with --price, for throughput only): their "
		"changes are not gated, what cannot exist on one side is listed as not applicable, "
		"and the exit code is 0 unless B could not run.";
	struct compare_params cp = { .tolerance = 0.05 };
	struct gb_opt_set sets[] = { { compare_opts, &cp } };
	struct gb_tolerance_rule *rules = NULL;
	struct gb_compare_opts o;
	const char *files[2];
	size_t n_files = 0, n_rules = 0;
	struct gb_run a, b;
	char err[512];
	int rc;

	rc = gb_cmd_parse(usage, summary, sets, 1, argc, argv, files, 2, &n_files);
	if (rc >= 0)
		return rc;
	if (n_files != 2) {
		gb_error("compare needs two reports: gpubench compare A.json B.json");
		return GB_EXIT_USAGE;
	}
	if (resolve_json(&cp))
		return GB_EXIT_USAGE;
	gb_compare_opts_init(&o);
	o.tolerance = cp.tolerance;
	o.allow_missing = cp.allow_missing;
	if (cp.price && parse_prices(cp.price, &o))
		return GB_EXIT_USAGE;
	if (cp.output && gb_report_check_writable(cp.output, err, sizeof(err))) {
		gb_error("%s", err);
		return GB_EXIT_USAGE;
	}
	if (json_on_stdout(&cp) && cp.format != GB_FORMAT_TEXT) {
		gb_error("'-o %s' writes the JSON comparison to stdout, '--format %s' would mix "
			 "into it; use one",
			 cp.output, gb_format_names[cp.format]);
		return GB_EXIT_USAGE;
	}
	if (cp.metric_tolerance && !*cp.metric_tolerance) {
		gb_error("--metric-tolerance needs at least one NAME=PCT rule");
		return GB_EXIT_USAGE;
	}
	if (cp.metric_tolerance &&
	    gb_tolerance_rules_parse(cp.metric_tolerance, &rules, &n_rules, err, sizeof(err))) {
		gb_error("--metric-tolerance: %s", err);
		return GB_EXIT_USAGE;
	}
	o.rules = rules;
	o.n_rules = n_rules;
	if (load_both(files[0], files[1], &a, &b)) {
		gb_tolerance_rules_free(rules, n_rules);
		return GB_EXIT_USAGE;
	}
	gb_fault_actions_escalate(&b, (const struct gb_run *[]){ &a }, 1);
	rc = compare_and_print(&a, files[0], &b, files[1], &cp, &o);
	gb_run_release(&a);
	gb_run_release(&b);
	gb_tolerance_rules_free(rules, n_rules);
	return rc;
}
