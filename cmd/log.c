/* SPDX-License-Identifier: MIT */
/* log.c - stderr diagnostics; see log.h for the message style. */
#include "log.h"

#include <stdatomic.h>
#include <stdio.h>

#include "report/result.h"
#include "status_line.h"

static int verbosity;
/* the live block on stderr, if one is shown: a diagnostic goes above it, not through it */
static _Atomic(struct gb_status_line *) live_block;

void gb_log_set_live_block(struct gb_status_line *s)
{
	atomic_store(&live_block, s);
}

void gb_log_drop_live_block(void)
{
	struct gb_status_line *s = atomic_exchange(&live_block, NULL);

	/* a writer stuck on a paused terminal is not waited for long: the report matters more */
	if (s)
		gb_status_line_abandon(s, 1.0);
}

void gb_log_set_verbosity(int level)
{
	verbosity = level;
}

int gb_log_verbosity(void)
{
	return verbosity;
}

/* one line, always: a message that quotes user input must not break the line */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[2048], line[2100];
	struct gb_status_line *live = atomic_load(&live_block);

	vsnprintf(msg, sizeof(msg), fmt, ap);
	gb_str_printable(msg);
	snprintf(line, sizeof(line), "gpubench: %s%s", prefix, msg);
	if (live)
		gb_status_line_print(live, line);
	else
		fprintf(stderr, "%s\n", line);
}

int gb_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void gb_warn(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void gb_note(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	vreport("note: ", fmt, ap);
	va_end(ap);
}

void gb_debug(const char *fmt, ...)
{
	va_list ap;

	if (verbosity <= 0)
		return;
	va_start(ap, fmt);
	vreport("debug: ", fmt, ap);
	va_end(ap);
}
