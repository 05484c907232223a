/* SPDX-License-Identifier: MIT */
/*
 * log.h - the one voice for diagnostics (git/curl style).
 *
 * Every diagnostic goes to stderr, prefixed "gpubench: error: ", "warning: " or
 * "note: ". Messages are lowercase, with no trailing period, failure first and
 * the subject in single quotes: gb_error("cannot parse '%s' as a size", arg).
 * stdout carries results only. bench/ never calls these for results; it may
 * not call them at all except through the result model.
 */
#ifndef GPUBENCH_CMD_LOG_H
#define GPUBENCH_CMD_LOG_H

#include <stdarg.h>

#define GB_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* print "gpubench: error: ..." and return -1, so `return gb_error(...)` reads well */
int gb_error(const char *fmt, ...) GB_PRINTF(1, 2);
void gb_warn(const char *fmt, ...) GB_PRINTF(1, 2);
void gb_note(const char *fmt, ...) GB_PRINTF(1, 2);
/* only printed when verbosity > 0 */
void gb_debug(const char *fmt, ...) GB_PRINTF(1, 2);

/*
 * While a live status block is shown on stderr (cmd/status_line.h), every
 * diagnostic is printed above it, so neither garbles the other; NULL when
 * the block is gone (before it is released).
 */
struct gb_status_line;
void gb_log_set_live_block(struct gb_status_line *s);
/* The process is ending (the watchdog): clear the live block for good, see gb_status_line_abandon(). */
void gb_log_drop_live_block(void);

/* -q lowers, -v raises; notes are silenced below 0, debug shown above 0 */
void gb_log_set_verbosity(int level);
int gb_log_verbosity(void);

#endif
