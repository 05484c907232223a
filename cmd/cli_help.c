/* SPDX-License-Identifier: MIT */
/*
 * cli_help.c - --help printed from the same option tables the parser reads
 * (see cli.h), and the small text helpers both use for their lines.
 * May use: cmd/cli.h, cmd/cli_internal.h, cmd/log.h, the C library.
 */
#include "cmd/cli.h"
#include "cmd/cli_internal.h"
#include "cmd/log.h"

#include <stdarg.h>
#include <string.h>

#define USAGE_MAX_WIDTH 32 /* widest option column in --help */

/* ------------------------------------------------------------------------ */
/* small text helpers                                                       */

/* snprintf at buf[*pos], keeping *pos within len so later appends are no-ops */
GB_PRINTF(4, 5)
void append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	*pos += (size_t)n;
	if (*pos >= len)
		*pos = len - 1;
}

/* "a, b, c" */
void join_choices(char *buf, size_t len, const char *const *choices)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (size_t i = 0; choices && choices[i]; i++)
		append(buf, len, &pos, "%s%s", i ? ", " : "", choices[i]);
}

/* ------------------------------------------------------------------------ */
/* --help                                                                   */

static const char *default_argh(enum gb_opt_type type)
{
	switch (type) {
	case GB_OPT_COUNT:
		return "N";
	case GB_OPT_SIZE:
		return "SIZE";
	case GB_OPT_DURATION:
		return "TIME";
	case GB_OPT_PERCENT:
		return "PCT";
	case GB_OPT_DOUBLE:
		return "X";
	case GB_OPT_ENUM:
		return "NAME";
	case GB_OPT_ENUM_LIST:
	case GB_OPT_INT_LIST:
	case GB_OPT_DEVICES:
		return "LIST";
	case GB_OPT_STRING:
		return "STR";
	default:
		return "";
	}
}

/* "  -s, --size SIZE" */
static void usage_left(const struct gb_opt *o, char *buf, size_t len)
{
	size_t pos = 0;

	if (o->short_name)
		append(buf, len, &pos, "  -%c%s", o->short_name, o->long_name ? ", " : "");
	else
		append(buf, len, &pos, "      ");
	if (o->long_name)
		append(buf, len, &pos, "--%s", o->long_name);
	if (o->type != GB_OPT_BOOL)
		append(buf, len, &pos, " %s", o->argh ? o->argh : default_argh(o->type));
}

/* "[1..1000000]", "[one of: a, b]" or "" */
static void usage_extra(const struct gb_opt *o, char *buf, size_t len)
{
	enum gb_opt_type type = o->type;
	char lo[48], hi[48], list[512];

	buf[0] = '\0';
	switch (type) {
	case GB_OPT_ENUM:
		join_choices(list, sizeof(list), o->choices);
		snprintf(buf, len, "[one of: %s]", list);
		return;
	case GB_OPT_ENUM_LIST:
		join_choices(list, sizeof(list), o->choices);
		snprintf(buf, len, "[any of: %s; or all]", list);
		return;
	case GB_OPT_COUNT:
	case GB_OPT_SIZE:
	case GB_OPT_DURATION:
	case GB_OPT_PERCENT:
	case GB_OPT_DOUBLE:
	case GB_OPT_INT_LIST:
		break;
	default:
		return;
	}
	if (!has_range(o))
		return;
	format_value(lo, sizeof(lo), type, o->min);
	format_value(hi, sizeof(hi), type, o->max);
	snprintf(buf, len, "[%s%s%s%s]", type == GB_OPT_INT_LIST ? "each " : "",
		 unbounded_above(o->max) ? ">= " : lo, unbounded_above(o->max) ? lo : "..",
		 unbounded_above(o->max) ? "" : hi);
}

static void usage_line(FILE *out, const char *left, const char *help, const char *extra,
		       int width)
{
	int n = (int)strlen(left);

	if (n > width)
		fprintf(out, "%s\n%*s  ", left, width, "");
	else
		fprintf(out, "%-*s  ", width, left);
	fprintf(out, "%s%s%s\n", help, *help && *extra ? " " : "", extra);
}

void gb_cli_usage(FILE *out, const char *usage, const char *summary,
		  const struct gb_opt_set *sets, size_t n_sets)
{
	static const char help_left[] = "  -h, --help";
	int width = (int)strlen(help_left);
	char left[160], extra[600];

	for (size_t s = 0; s < n_sets; s++) {
		for (const struct gb_opt *o = sets[s].opts; o && o->type != GB_OPT_END; o++) {
			if (o->flags & GB_OPTF_HIDDEN)
				continue;
			usage_left(o, left, sizeof(left));
			/* a left part longer than the cap goes on a line of its own */
			if ((int)strlen(left) > width && strlen(left) <= USAGE_MAX_WIDTH)
				width = (int)strlen(left);
		}
	}
	fprintf(out, "usage: %s\n", usage ? usage : "gpubench");
	if (summary && *summary)
		fprintf(out, "\n%s\n", summary);
	fputs("\noptions:\n", out);
	for (size_t s = 0; s < n_sets; s++) {
		for (const struct gb_opt *o = sets[s].opts; o && o->type != GB_OPT_END; o++) {
			if (o->flags & GB_OPTF_HIDDEN)
				continue;
			usage_left(o, left, sizeof(left));
			usage_extra(o, extra, sizeof(extra));
			usage_line(out, left, o->help ? o->help : "", extra, width);
		}
	}
	usage_line(out, help_left, "show this help", "", width);
}
