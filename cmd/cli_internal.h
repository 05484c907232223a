/* SPDX-License-Identifier: MIT */
/*
 * cli_internal.h - what the pieces of the option parser share (cli.c,
 * cli_values.c, cli_lists.c, cli_help.c); not for use outside them.
 * May use: cmd/cli.h, cmd/log.h.
 */
#ifndef GPUBENCH_CMD_CLI_INTERNAL_H
#define GPUBENCH_CMD_CLI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/cli.h"
#include "cmd/log.h"


/* cli_values.c: values in the units the user types (parsing them: report/units.h) */
void format_value(char *buf, size_t len, enum gb_opt_type type, double v);

/* cli.c: range checks */
bool has_range(const struct gb_opt *o);
bool unbounded_above(double max);
int check_range(const struct gb_opt *o, enum gb_opt_type type, double v, const char *subject);

/* cli_lists.c: list setters (each prints one line and returns -1 on error) */
int set_int_list(const struct gb_opt *o, struct gb_int_list *field, const char *val,
		 const char *nm);
int set_devices(const struct gb_opt *o, struct gb_device_list *field, const char *val,
		const char *nm);

/* cli_help.c: text helpers */
GB_PRINTF(4, 5)
void append(char *buf, size_t len, size_t *pos, const char *fmt, ...);
void join_choices(char *buf, size_t len, const char *const *choices);

#endif
