/* SPDX-License-Identifier: MIT */
/*
 * formats.c - the list of output formats and the dispatch from a format to
 * its writer. Only cmd/ calls it; the writers never call back here: the
 * helpers they share live below them in format_util.c.
 */
#include "formats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <fcntl.h>
#include <libgen.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "outfile.h"
#include "text.h"
#include "report/writers.h"

const char *const gb_out_format_names[] = { GB_OUT_FORMAT_NAMES, NULL };

_Static_assert(sizeof(gb_out_format_names) / sizeof(gb_out_format_names[0]) == GB_OUT_COUNT + 1,
	       "GB_OUT_FORMAT_NAMES and enum gb_out_format disagree");

int gb_out_format_from_name(const char *name)
{
	for (int i = 0; name && gb_out_format_names[i]; i++)
		if (!strcmp(gb_out_format_names[i], name))
			return i;
	return -1;
}

int gb_out_format_from_path(const char *path)
{
	static const struct {
		const char *ext;
		enum gb_out_format f;
	} exts[] = {
		{ ".html", GB_OUT_HTML },      { ".htm", GB_OUT_HTML },  { ".md", GB_OUT_MARKDOWN },
		{ ".markdown", GB_OUT_MARKDOWN },
		{ ".csv", GB_OUT_CSV },        { ".xml", GB_OUT_JUNIT }, { ".json", GB_OUT_JSON },
		{ ".prom", GB_OUT_PROMETHEUS }, { ".txt", GB_OUT_TEXT },
	};
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (!dot || strchr(dot, '/'))
		return -1;
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		if (!strcasecmp(dot, exts[i].ext))
			return (int)exts[i].f;
	return -1;
}

enum gb_out_format gb_out_format_for_output(const char *path)
{
	int f = gb_out_is_stdout(path) ? -1 : gb_out_format_from_path(path);

	return f >= 0 ? (enum gb_out_format)f : GB_OUT_JSON;
}

struct formatted {
	const struct gb_run *run;
	enum gb_out_format format;
};

static int write_formatted(const void *ctx, FILE *out)
{
	const struct formatted *w = ctx;

	return gb_report_format(w->run, w->format, out);
}

int gb_report_write_output(const struct gb_run *run, const char *path, char *err,
			   size_t errlen)
{
	struct formatted w = { run, gb_out_format_for_output(path) };

	/* the JSON report's own writer words its errors as a report's */
	if (w.format == GB_OUT_JSON)
		return gb_report_write_file(run, path, err, errlen);
	return gb_fmt_write_file(path, write_formatted, &w, err, errlen);
}

int gb_report_format(const struct gb_run *run, enum gb_out_format f, FILE *out)
{
	/* saved reports have no terminal: no colours; info's full device sheet for info */
	struct gb_text_opts topts = { .color = false,
				      .device_detail = run->command &&
						       !strcmp(run->command, "info") };

	switch (f) {
	case GB_OUT_TEXT:
		gb_text_print(run, out, &topts);
		return gb_fmt_finish(out);
	case GB_OUT_JSON:
		return gb_report_print(run, out) ? -1 : gb_fmt_finish(out);
	case GB_OUT_MARKDOWN:
		return gb_report_markdown(run, out);
	case GB_OUT_CSV:
		return gb_report_csv(run, out);
	case GB_OUT_JUNIT:
		return gb_report_junit(run, out);
	case GB_OUT_PROMETHEUS:
		return gb_report_prometheus(run, out);
	case GB_OUT_HTML:
		return gb_report_html(run, out);
	case GB_OUT_COUNT:
		break;
	}
	return -1;
}
