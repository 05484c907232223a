/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c - `gpubench report FILE`: a saved report in any format
 * (text, json, markdown, csv, junit, prometheus, html), and
 * `gpubench report --merge A.json B.json ...`: many nodes' reports merged
 * into one fleet report with the outlying GPUs and nodes marked.
 *
 * Rendering judges nothing, so `report FILE` exits 0 once written (the
 * verdict stays in the report). The merge adds checks (outliers), so it
 * exits with the merged verdict's code, like a run. Bad input exits 2. A node
 * given twice (the same GPU UUIDs, or the same host and GPUs) is merged once
 * with a warning on stderr and in the report (report/fleet.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "log.h"
#include "report/exitcodes.h"
#include "report/fleet.h"
#include "report/json.h"

#define MAX_REPORTS 1024

struct report_params {
	int format; /* -1: from -o's extension, else text on stdout, json in a file */
	const char *output;
	bool json;  /* --json: --format json, as in every command */
	bool merge;
};

static const struct gb_opt report_opts[] = {
	{ GB_OPT_ENUM, 0, "format", offsetof(struct report_params, format), "FMT",
	  "output format (default: text on stdout; with -o, from the file's extension, else json; "
	  "json with '-o -')",
	  0, 0, gb_format_names, 0 },
	{ GB_OPT_STRING, 'o', "output", offsetof(struct report_params, output), "FILE",
	  "write the output to FILE (atomically) instead of stdout", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "json", offsetof(struct report_params, json), NULL,
	  "the JSON report (--format json)", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "merge", offsetof(struct report_params, merge), NULL,
	  "merge the reports of many nodes into one fleet report with outliers marked", 0, 0,
	  NULL, 0 },
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};

struct render {
	const struct gb_run *run;
	enum gb_out_format format;
};

static int write_render(const void *ctx, FILE *out)
{
	const struct render *r = ctx;

	return gb_report_format(r->run, r->format, out);
}

static enum gb_out_format pick_format(const struct report_params *rp)
{
	if (rp->format >= 0)
		return (enum gb_out_format)rp->format;
	if (rp->json)
		return GB_OUT_JSON;
	/* '-o -' is the JSON report on stdout, a file the format of its extension */
	return rp->output ? gb_out_format_for_output(rp->output) : GB_OUT_TEXT;
}

static int emit(const struct gb_run *run, const struct report_params *rp)
{
	struct render r = { run, pick_format(rp) };
	char err[1024];

	if (gb_fmt_write_file(rp->output ? rp->output : "-", write_render, &r, err, sizeof(err)))
		return gb_error("%s", err);
	return 0;
}

static int render_one(const char *path, const struct report_params *rp)
{
	struct gb_run run;
	char err[1024];
	int rc;

	if (gb_report_load_file(path, &run, err, sizeof(err))) {
		gb_error("%s", err);
		return GB_EXIT_USAGE;
	}
	rc = emit(&run, rp) ? GB_EXIT_CANNOT_RUN : GB_EXIT_OK;
	gb_run_release(&run);
	return rc;
}

static void release_all(struct gb_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		gb_run_release(&runs[i]);
	free(runs);
}

static int merge(const char **files, size_t n, const struct report_params *rp, int argc,
		 const char **argv)
{
	struct gb_run *runs = gb_xrealloc(NULL, sizeof(*runs) * n);
	const struct gb_run **ptrs = gb_xrealloc(NULL, sizeof(*ptrs) * n);
	struct gb_run out;
	char err[1024], now[32];
	size_t loaded = 0;
	int rc = GB_EXIT_USAGE;

	for (; loaded < n; loaded++) {
		if (gb_report_load_file(files[loaded], &runs[loaded], err, sizeof(err))) {
			gb_error("%s", err);
			goto out;
		}
		ptrs[loaded] = &runs[loaded];
	}
	gb_fleet_run_init(&out, argc, argv);
	if (gb_fleet_merge(ptrs, files, n, GB_FLEET_MAD_K, &out, err, sizeof(err))) {
		gb_error("%s", err);
		gb_run_release(&out);
		goto out;
	}
	/* a node given twice is merged once: say so where the user looks */
	for (size_t j = 0; out.n_benches && j < out.benches[0].n_checks; j++)
		if (!strcmp(out.benches[0].checks[j].name, "duplicate_node"))
			gb_warn("%s", out.benches[0].checks[j].message);
	gb_now_iso8601(now, sizeof(now));
	if (!out.finished_at)
		out.finished_at = gb_strdup(now);
	gb_run_verdict(&out);
	out.exit_code = gb_exit_code_for_status(out.verdict);
	rc = emit(&out, rp) ? GB_EXIT_CANNOT_RUN : out.exit_code;
	gb_run_release(&out);
out:
	release_all(runs, loaded);
	free(ptrs);
	return rc;
}

int cmd_report(int argc, const char **argv)
{
	static const char usage[] = "gpubench report FILE [--format FMT | --json] [-o OUT]\n"
				    "       gpubench report --merge A.json B.json ... [-o fleet.json]";
	static const char summary[] =
		"Print a saved report as text, json, markdown (CI job summaries), csv, junit (one "
		"test case per check), prometheus (node_exporter's textfile collector) or html (one "
		"page with charts). With --merge, merge the reports of many nodes into one fleet "
		"report: the median of every metric across the fleet, and a failed check for every "
		"GPU or node more than 3 MADs from it on the bad side.";
	struct report_params rp = { .format = -1 };
	struct gb_opt_set sets[] = { { report_opts, &rp } };
	const char *files[MAX_REPORTS];
	size_t n = 0;
	char err[512];
	int rc;

	rc = gb_cmd_parse(usage, summary, sets, 1, argc, argv, files, MAX_REPORTS, &n);
	if (rc >= 0)
		return rc;
	if (rp.json && rp.format >= 0 && rp.format != GB_FORMAT_JSON) {
		gb_error("'--json' and '--format %s' both choose the format; use one",
			 gb_format_names[rp.format]);
		return GB_EXIT_USAGE;
	}
	if (rp.output && gb_report_check_writable(rp.output, err, sizeof(err))) {
		gb_error("%s", err);
		return GB_EXIT_USAGE;
	}
	if (rp.merge) {
		if (n < 2) {
			gb_error("--merge needs at least two reports");
			return GB_EXIT_USAGE;
		}
		return merge(files, n, &rp, argc, argv);
	}
	if (n != 1) {
		gb_error("report needs one report file: gpubench report FILE (or --merge A B ...)");
		return GB_EXIT_USAGE;
	}
	return render_one(files[0], &rp);
}
