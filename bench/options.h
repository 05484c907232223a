/* SPDX-License-Identifier: MIT */
/*
 * options.h - options as data: the types a benchmark (or a command) uses to
 * declare its option table. Data only; the parser that reads these tables and
 * prints --help from them is cmd/cli.c (cmd/cli.h). Lives below cmd/ so that
 * bench/ declares its options without depending on the command layer.
 *
 * Each command declares `static const struct gb_opt opts[]` whose entries
 * name a field of its params struct by offset, a type, a range and one help
 * line (value formats: see cmd/cli.h).
 *
 * May use: the C library only (and report/units.h, for gb_format_bytes that
 * option users print sizes with).
 */
#ifndef GPUBENCH_BENCH_OPTIONS_H
#define GPUBENCH_BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* not needed here; bench/ files had it through cmd/cli.h */

#include "report/units.h"

enum gb_opt_type {
	GB_OPT_END = 0,
	GB_OPT_BOOL,      /* bool; --name sets true, --no-name sets false */
	GB_OPT_COUNT,     /* int64_t within [min, max] */
	GB_OPT_SIZE,      /* uint64_t bytes within [min, max] */
	GB_OPT_DURATION,  /* double seconds within [min, max] */
	GB_OPT_PERCENT,   /* double fraction; min/max given as fractions */
	GB_OPT_DOUBLE,    /* double within [min, max] */
	GB_OPT_ENUM,      /* int index into choices */
	GB_OPT_ENUM_LIST, /* uint32_t bitmask over choices; "all" sets every bit */
	GB_OPT_STRING,    /* const char * (points into argv) */
	GB_OPT_INT_LIST,  /* struct gb_int_list, each value within [min, max], size suffixes allowed */
	GB_OPT_DEVICES,   /* struct gb_device_list */
};

enum gb_opt_flags {
	GB_OPTF_ALLOW_DUP = 1 << 0, /* devices: "0,0" is allowed (two workers on one GPU) */
	GB_OPTF_HIDDEN = 1 << 1,    /* parsed but not listed in --help */
	GB_OPTF_MARK_ALL = 1 << 2,  /* enum list: "all" also sets GB_ENUM_LIST_ALL */
	/*
	 * A spelling this command refuses (renamed, a short letter that means
	 * something else in another command, an option that does not apply):
	 * giving it is exit 2 with "'<spelling>' <help>", so help says why and
	 * what to type instead. Hidden from --help and from "did you mean";
	 * type GB_OPT_BOOL, no field. Searched like any option, so a table
	 * before the common one refuses a common option for its command.
	 */
	GB_OPTF_REFUSED = 1 << 3,
};

/*
 * With GB_OPTF_MARK_ALL, "all" sets this bit beside every choice's, so a
 * command can tell "all" (nothing named in particular) from a list that
 * names each choice. Such an option has fewer than 31 choices.
 */
#define GB_ENUM_LIST_ALL (UINT32_C(1) << 31)

struct gb_opt {
	enum gb_opt_type type;
	char short_name;            /* 0 if none */
	const char *long_name;      /* without dashes */
	size_t offset;              /* offsetof(params struct, field) */
	const char *argh;           /* placeholder in help: "SIZE" */
	const char *help;           /* one line */
	double min, max;            /* accepted range (numeric types, list elements) */
	const char *const *choices; /* NULL-terminated, for ENUM and ENUM_LIST */
	unsigned flags;
};

/* A table entry for a spelling refused: gives "'<spelling>' <why>" (exit 2). */
#define GB_OPT_REFUSED(short_letter, old_long, why)                                         \
	{ GB_OPT_BOOL, short_letter, old_long, 0, NULL, why, 0, 0, NULL,                    \
	  GB_OPTF_HIDDEN | GB_OPTF_REFUSED }

#define GB_INT_LIST_MAX 256
struct gb_int_list {
	uint64_t v[GB_INT_LIST_MAX];
	size_t n;
};

#define GB_DEVICE_LIST_MAX 64
struct gb_device_list {
	bool all;                   /* "all" (the default when nothing was given) */
	int idx[GB_DEVICE_LIST_MAX];
	size_t n;
};

/* One table and the struct its offsets point into. */
struct gb_opt_set {
	const struct gb_opt *opts;  /* terminated by type == GB_OPT_END */
	void *base;
};

#endif
