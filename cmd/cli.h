/* SPDX-License-Identifier: MIT */
/*
 * cli.h - options as data: one table per command, one shared parser (CPU only).
 *
 * Each command declares `static const struct gb_opt opts[]` whose entries
 * name a field of its params struct by offset, a type, a range and one help
 * line. gb_cli_parse() does every suffix, range and error message, and
 * gb_cli_usage() prints --help from the same tables so the two never drift.
 *
 * Value formats (the type decides which apply):
 *   size      4096, 4K, 4KiB, 1M, 1G, 1T, 1P (binary); 4KB, 1MB, 1GB, 1TB, 1PB
 *             (decimal); 1.5G
 *   count     1000, 4K (= 4096), 1e6
 *   duration  500ms, 30s, 10m, 1h, 1.5h (a unit is required)
 *   percent   90% (stored as the fraction 0.9)
 *   enum      one of the choices
 *   enum list a,b,c or all (stored as a bitmask of choice indices)
 *   int list  1024,2048 or a range start:stop:step (linear) or start:stop:x2 (geometric)
 *   devices   0,2 or 0-3 or all (indices as the process sees them, i.e. after CUDA_VISIBLE_DEVICES)
 * Every rejection is one line naming the option and the accepted range.
 */
#ifndef GPUBENCH_CMD_CLI_H
#define GPUBENCH_CMD_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/options.h" /* the option types: struct gb_opt, enum gb_opt_type, lists */

enum gb_cli_result {
	GB_CLI_OK = 0,
	GB_CLI_HELP = 1,            /* -h/--help was given: print usage, exit 0 */
	GB_CLI_ERROR = -1           /* one line already printed: exit 2 */
};

/*
 * Parse argv[0..argc) (argv[0] is the first argument, not the program or
 * command name) against every set. Positional arguments are collected into
 * positional[] (up to max_positional; more is an error) and counted in
 * *n_positional. "--" ends options.
 */
enum gb_cli_result gb_cli_parse(const struct gb_opt_set *sets, size_t n_sets, int argc,
				const char *const *argv, const char **positional,
				size_t max_positional, size_t *n_positional);

/*
 * The "did you mean" matcher of unknown options, for any list of names (the
 * command table uses it): the candidate at most 2 edits from typed (fewer
 * than typed is long), else the first that typed is a prefix of (typed at
 * least 2 characters); NULL when none is close. Returns the candidate itself.
 */
const char *gb_cli_closest(const char *typed, const char *const *candidates, size_t n);

/* Print "usage: ...", the summary and every option of every set, help-style. */
void gb_cli_usage(FILE *out, const char *usage, const char *summary,
		  const struct gb_opt_set *sets, size_t n_sets);

/* ---- value parsers (gb_parse_size, ...): report/units.h ---- */

/*
 * Resolve a device list against the number of visible devices: "all" becomes
 * 0..count-1. Returns 0, or -1 after printing one error line naming the
 * first index beyond the last GPU.
 */
int gb_device_list_resolve(struct gb_device_list *list, int count);

#endif
