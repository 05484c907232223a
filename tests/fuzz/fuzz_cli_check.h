/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cli_check.h - what "the options parser behaved" means, shared by the
 * libFuzzer harness (fuzz_cli.c) and the regression test that replays every
 * saved crash (tests/report/test_fuzz_regressions.c).
 *
 * The input is an argument vector: arguments separated by NUL or newline (a
 * separator at the very end adds no empty argument; two in a row give one).
 * It is parsed by gb_cli_parse against two option sets that use every option
 * type, flag and kind of range (a benchmark's own table plus the shared
 * one, as commands do), once allowing two positionals and once allowing none.
 * Then:
 *   - an error is exactly one line on stderr, "gpubench: error: ...\n";
 *     success and --help print nothing;
 *   - after success every field holds a value its table entry allows: counts,
 *     sizes, durations, percentages and doubles within range (or non-negative
 *     when the entry has none), enums and enum lists among the choices, int
 *     lists of at most GB_INT_LIST_MAX values within range, device lists of at
 *     most GB_DEVICE_LIST_MAX non-negative indices without repeats (unless
 *     allowed), strings pointing into argv;
 *   - every parsed device list resolves against 0, 1, 3, 64 and 100 GPUs:
 *     either one error line, or only indices below the count;
 *   - the shared value parsers (gb_parse_size, ...) on each argument never
 *     return a non-finite number or a negative duration.
 * Each check returns NULL when all is well, else what broke (fuzz_common.h).
 * stderr is captured by swapping the stdio stream (glibc: stderr is a
 * variable), so a sanitizer report, which writes to fd 2, is never lost.
 */
#ifndef GPUBENCH_TESTS_FUZZ_CLI_CHECK_H
#define GPUBENCH_TESTS_FUZZ_CLI_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "fuzz_common.h"

#define FZC_MAX_ARGS 64
#define FZC_MAX_POS 2

struct fzc_params {
	bool flag;
	bool xbool;                   /* short name only */
	int64_t iters;                /* [1, 1e6] */
	int64_t offset;               /* [-10, 10]: negative values allowed */
	int64_t plain;                /* no range: non-negative */
	int64_t atleast;              /* [2, inf) */
	int64_t konly;                /* short name only, [1, 100] */
	int64_t hidden;               /* GB_OPTF_HIDDEN */
	int64_t longname;             /* a name longer than the parser's hint limit */
	uint64_t size;                /* [1, 1 TiB] */
	uint64_t anysize;             /* no range */
	uint64_t minsize;             /* [4 KiB, inf) */
	double duration;              /* [1 ms, 1 day] */
	double anydur;                /* no range */
	double pct;                   /* [0, 1] */
	double ratio;                 /* [0.5, 4] */
	double anydbl;                /* no range */
	double negdbl;                /* [-1e6, -1] */
	int enm;
	uint32_t mask;
	uint32_t widemask;            /* 34 choices: more than a 32-bit mask holds */
	const char *str;
	struct gb_int_list sizes;     /* each in [1, 1 GiB] */
	struct gb_int_list anyints;   /* no range */
	struct gb_device_list devices;
	struct gb_device_list workers; /* GB_OPTF_ALLOW_DUP */
};

struct fzc_common {
	struct gb_device_list devices; /* the same long name as a benchmark's: first set wins */
	const char *output;
	bool json;
	int format;
	bool quiet;
	bool verbose;
};

static const char *const fzc_three[] = { "fp32", "tf32", "bf16", NULL };
static const char *const fzc_wide[] = {
	"c0",  "c1",  "c2",  "c3",  "c4",  "c5",  "c6",  "c7",  "c8",  "c9",  "c10", "c11",
	"c12", "c13", "c14", "c15", "c16", "c17", "c18", "c19", "c20", "c21", "c22", "c23",
	"c24", "c25", "c26", "c27", "c28", "c29", "c30", "c31", "c32", "c33", NULL
};
static const char *const fzc_formats[] = { "text", "json", NULL };

#define FZC_P(f) offsetof(struct fzc_params, f)
#define FZC_C(f) offsetof(struct fzc_common, f)

static const struct gb_opt fzc_opts[] = {
	{ .type = GB_OPT_BOOL, .short_name = 'f', .long_name = "flag", .offset = FZC_P(flag),
	  .help = "a switch" },
	{ .type = GB_OPT_BOOL, .short_name = 'x', .offset = FZC_P(xbool), .help = "short only" },
	{ .type = GB_OPT_COUNT, .short_name = 'n', .long_name = "iters", .offset = FZC_P(iters),
	  .help = "iterations", .min = 1, .max = 1000000 },
	{ .type = GB_OPT_COUNT, .long_name = "offset", .offset = FZC_P(offset),
	  .help = "signed", .min = -10, .max = 10 },
	{ .type = GB_OPT_COUNT, .long_name = "plain", .offset = FZC_P(plain), .help = "no range" },
	{ .type = GB_OPT_COUNT, .long_name = "at-least", .offset = FZC_P(atleast),
	  .help = "unbounded above", .min = 2, .max = INFINITY },
	{ .type = GB_OPT_COUNT, .short_name = 'k', .offset = FZC_P(konly), .help = "short only",
	  .min = 1, .max = 100 },
	{ .type = GB_OPT_COUNT, .long_name = "debug-hidden", .offset = FZC_P(hidden),
	  .help = "hidden", .flags = GB_OPTF_HIDDEN },
	{ .type = GB_OPT_COUNT,
	  .long_name = "a-very-long-option-name-that-is-longer-than-the-parser-hint-limit-of-63",
	  .offset = FZC_P(longname), .help = "long name" },
	{ .type = GB_OPT_SIZE, .short_name = 's', .long_name = "size", .offset = FZC_P(size),
	  .argh = "SIZE", .help = "bytes", .min = 1, .max = 1099511627776.0 },
	{ .type = GB_OPT_SIZE, .long_name = "any-size", .offset = FZC_P(anysize),
	  .help = "no range" },
	{ .type = GB_OPT_SIZE, .long_name = "min-size", .offset = FZC_P(minsize),
	  .help = "unbounded above", .min = 4096, .max = INFINITY },
	{ .type = GB_OPT_DURATION, .short_name = 't', .long_name = "duration",
	  .offset = FZC_P(duration), .help = "time", .min = 0.001, .max = 86400 },
	{ .type = GB_OPT_DURATION, .long_name = "any-duration", .offset = FZC_P(anydur),
	  .help = "no range" },
	{ .type = GB_OPT_PERCENT, .short_name = 'p', .long_name = "threshold",
	  .offset = FZC_P(pct), .help = "fraction", .min = 0, .max = 1 },
	{ .type = GB_OPT_DOUBLE, .long_name = "ratio", .offset = FZC_P(ratio), .help = "ratio",
	  .min = 0.5, .max = 4 },
	{ .type = GB_OPT_DOUBLE, .long_name = "any-double", .offset = FZC_P(anydbl),
	  .help = "no range" },
	{ .type = GB_OPT_DOUBLE, .long_name = "negative", .offset = FZC_P(negdbl),
	  .help = "negative range", .min = -1e6, .max = -1 },
	{ .type = GB_OPT_ENUM, .short_name = 'e', .long_name = "precision", .offset = FZC_P(enm),
	  .help = "one", .choices = fzc_three },
	{ .type = GB_OPT_ENUM_LIST, .long_name = "precisions", .offset = FZC_P(mask),
	  .help = "several", .choices = fzc_three },
	{ .type = GB_OPT_ENUM_LIST, .long_name = "wide", .offset = FZC_P(widemask),
	  .help = "34 choices", .choices = fzc_wide },
	{ .type = GB_OPT_STRING, .short_name = 'S', .long_name = "name", .offset = FZC_P(str),
	  .help = "a string" },
	{ .type = GB_OPT_INT_LIST, .long_name = "sizes", .offset = FZC_P(sizes),
	  .help = "a sweep", .min = 1, .max = 1073741824.0 },
	{ .type = GB_OPT_INT_LIST, .long_name = "ints", .offset = FZC_P(anyints),
	  .help = "no range" },
	{ .type = GB_OPT_DEVICES, .short_name = 'D', .long_name = "devices",
	  .offset = FZC_P(devices), .help = "GPUs" },
	{ .type = GB_OPT_DEVICES, .long_name = "workers", .offset = FZC_P(workers),
	  .help = "repeats allowed", .flags = GB_OPTF_ALLOW_DUP },
	{ .type = GB_OPT_END },
};

static const struct gb_opt fzc_common_opts[] = {
	{ .type = GB_OPT_DEVICES, .short_name = 'd', .long_name = "devices",
	  .offset = FZC_C(devices), .help = "GPUs" },
	{ .type = GB_OPT_STRING, .short_name = 'o', .long_name = "output", .offset = FZC_C(output),
	  .help = "report" },
	{ .type = GB_OPT_BOOL, .long_name = "json", .offset = FZC_C(json), .help = "json" },
	{ .type = GB_OPT_ENUM, .long_name = "format", .offset = FZC_C(format), .help = "format",
	  .choices = fzc_formats },
	{ .type = GB_OPT_BOOL, .short_name = 'q', .long_name = "quiet", .offset = FZC_C(quiet),
	  .help = "quiet" },
	{ .type = GB_OPT_BOOL, .short_name = 'v', .long_name = "verbose", .offset = FZC_C(verbose),
	  .help = "verbose" },
	{ .type = GB_OPT_END },
};


/* stderr into a memory stream while fn runs; the text is malloc'd into *text */
struct fzc_capture {
	FILE *saved;
	FILE *mem;
	char *text;
	size_t len;
};

FZ_STATIC void fzc_capture_start(struct fzc_capture *c)
{
	c->text = NULL;
	c->len = 0;
	c->mem = open_memstream(&c->text, &c->len);
	if (!c->mem)
		abort();
	fflush(stderr);
	c->saved = stderr;
	stderr = c->mem;
}

FZ_STATIC void fzc_capture_stop(struct fzc_capture *c)
{
	stderr = c->saved;
	fclose(c->mem); /* sets text and len */
}

/* "gpubench: error: <text>\n", one line; NULL when so */
FZ_STATIC const char *fzc_one_error_line(const char *text, size_t len, const char *what,
					 const char *id)
{
	static const char prefix[] = "gpubench: error: ";

	if (len <= sizeof(prefix) || strncmp(text, prefix, sizeof(prefix) - 1))
		return fz_fail(id, "%s: the error does not start with '%s': '%.500s'", what, prefix,
				text);
	if (text[len - 1] != '\n' || memchr(text, '\n', len - 1) || strlen(text) != len)
		return fz_fail(id, "%s: the error is not exactly one line: '%.500s'", what, text);
	return NULL;
}

FZ_STATIC bool fzc_has_range(const struct gb_opt *o)
{
	return o->min != 0 || o->max != 0;
}

/* a value of a numeric option, against the entry's range, with cli.c's slack for doubles */
FZ_STATIC bool fzc_in_range(const struct gb_opt *o, double v, bool inexact)
{
	double lo = o->min - (inexact ? 1e-9 * fabs(o->min) : 0);
	double hi = o->max + (inexact ? 1e-9 * fabs(o->max) : 0);

	if (isnan(v))
		return false;
	if (!fzc_has_range(o))
		return v >= 0;
	return v >= lo && (isinf(o->max) || o->max >= 9223372036854775808.0 || v <= hi);
}

FZ_STATIC size_t fzc_n_choices(const char *const *c)
{
	size_t n = 0;

	while (c && c[n])
		n++;
	return n;
}

FZ_STATIC const char *fzc_check_devices(const struct gb_opt *o, const struct gb_device_list *l)
{
	if (l->all)
		return l->n == 0 ? NULL
				 : fz_fail("devices-invalid", "--%s: 'all' with %zu indices",
					   o->long_name, l->n);
	if (l->n == 0 || l->n > GB_DEVICE_LIST_MAX)
		return fz_fail("devices-invalid", "--%s: %zu devices", o->long_name, l->n);
	for (size_t i = 0; i < l->n; i++) {
		if (l->idx[i] < 0)
			return fz_fail("devices-invalid", "--%s: negative device %d", o->long_name,
				       l->idx[i]);
		for (size_t j = 0; j < i && !(o->flags & GB_OPTF_ALLOW_DUP); j++)
			if (l->idx[j] == l->idx[i])
				return fz_fail("devices-invalid", "--%s: device %d twice",
					       o->long_name, l->idx[i]);
	}
	return NULL;
}

/* every device list resolves to indices below the GPU count, or fails in one line */
FZ_STATIC const char *fzc_check_resolve(const struct gb_device_list *parsed)
{
	static const int counts[] = { 0, 1, 3, 64, 100 };

	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		struct gb_device_list l = *parsed;
		size_t want_all = counts[k] < GB_DEVICE_LIST_MAX ? (size_t)counts[k]
								 : GB_DEVICE_LIST_MAX;
		struct fzc_capture cap;
		const char *why = NULL;
		int rc;

		fzc_capture_start(&cap);
		rc = gb_device_list_resolve(&l, counts[k]);
		fzc_capture_stop(&cap);
		if (rc == 0) {
			if (cap.len)
				why = fz_fail("resolve-printed",
					      "resolve: success printed '%.300s'", cap.text);
			else if (l.n > GB_DEVICE_LIST_MAX || (parsed->all && l.n != want_all))
				why = fz_fail("resolve-count",
					      "resolve: %zu devices for a count of %d", l.n,
					      counts[k]);
			for (size_t i = 0; !why && i < l.n; i++)
				if (l.idx[i] < 0 || l.idx[i] >= counts[k])
					why = fz_fail("resolve-index",
						      "resolve: device %d kept with %d GPUs",
						      l.idx[i], counts[k]);
		} else if (rc == -1) {
			why = fzc_one_error_line(cap.text, cap.len, "resolve",
						 "resolve-error-line");
		} else {
			why = fz_fail("resolve-rc", "resolve returned %d", rc);
		}
		free(cap.text);
		if (why)
			return why;
	}
	return NULL;
}

FZ_STATIC bool fzc_points_into(const char *p, const char *buf, size_t len)
{
	return p >= buf && p <= buf + len;
}

/* every field of one set after a successful parse */
FZ_STATIC const char *fzc_check_fields(const struct gb_opt *opts, const void *base, const char *buf,
				       size_t len)
{
	for (const struct gb_opt *o = opts; o->type != GB_OPT_END; o++) {
		const char *f = (const char *)base + o->offset;
		const char *nm = o->long_name ? o->long_name : "(short)";
		const char *why = NULL;
		double v;

		switch (o->type) {
		case GB_OPT_BOOL:
			break;
		case GB_OPT_COUNT:
			v = (double)*(const int64_t *)(const void *)f;
			if (!fzc_in_range(o, v, false))
				why = fz_fail("value-range", "--%s: %.17g is out of range", nm, v);
			break;
		case GB_OPT_SIZE:
			v = (double)*(const uint64_t *)(const void *)f;
			if (!fzc_in_range(o, v, false))
				why = fz_fail("value-range", "--%s: %.17g is out of range", nm, v);
			break;
		case GB_OPT_DURATION:
		case GB_OPT_PERCENT:
		case GB_OPT_DOUBLE:
			v = *(const double *)(const void *)f;
			if (!isfinite(v) || !fzc_in_range(o, v, true))
				why = fz_fail("value-range", "--%s: %.17g is out of range", nm, v);
			break;
		case GB_OPT_ENUM: {
			int e = *(const int *)(const void *)f;

			if (e < 0 || (size_t)e >= fzc_n_choices(o->choices))
				why = fz_fail("enum-range", "--%s: enum index %d", nm, e);
			break;
		}
		case GB_OPT_ENUM_LIST: {
			uint32_t m = *(const uint32_t *)(const void *)f;
			size_t n = fzc_n_choices(o->choices);
			uint32_t all = n >= 32 ? UINT32_MAX : (UINT32_C(1) << n) - 1;

			if (m & ~all)
				why = fz_fail("enum-range", "--%s: mask 0x%x beyond the choices",
					      nm, m);
			break;
		}
		case GB_OPT_STRING: {
			const char *s = *(const char *const *)(const void *)f;

			if (s && !fzc_points_into(s, buf, len))
				why = fz_fail("string-pointer",
					      "--%s: the string does not point into argv", nm);
			break;
		}
		case GB_OPT_INT_LIST: {
			const struct gb_int_list *l = (const void *)f;

			if (l->n > GB_INT_LIST_MAX)
				why = fz_fail("list-length", "--%s: %zu values", nm, l->n);
			for (size_t i = 0; !why && i < l->n; i++)
				if (fzc_has_range(o) && !fzc_in_range(o, (double)l->v[i], false))
					why = fz_fail("list-range", "--%s: value %llu out of range",
						      nm, (unsigned long long)l->v[i]);
			break;
		}
		case GB_OPT_DEVICES:
			why = fzc_check_devices(o, (const void *)f);
			if (!why)
				why = fzc_check_resolve((const void *)f);
			break;
		case GB_OPT_END:
			break;
		}
		if (why)
			return why;
	}
	return NULL;
}

FZ_STATIC void fzc_defaults(struct fzc_params *p, struct fzc_common *c)
{
	memset(p, 0, sizeof(*p));
	memset(c, 0, sizeof(*c));
	p->iters = 10;
	p->atleast = 2;
	p->konly = 1;
	p->size = 4096;
	p->minsize = 4096;
	p->duration = 30;
	p->pct = 0.5;
	p->ratio = 1;
	p->negdbl = -1;
	p->mask = 1;
	p->sizes.v[0] = 7;
	p->sizes.n = 1;
	p->devices.all = true;
	p->workers.all = true;
	c->devices.all = true;
}

/* the shared value parsers on one argument */
FZ_STATIC const char *fzc_check_value_parsers(const char *s)
{
	uint64_t bytes;
	int64_t count;
	double d;

	(void)gb_parse_size(s, &bytes);
	(void)gb_parse_count(s, &count);
	if (gb_parse_duration(s, &d) == 0 && (!isfinite(d) || d < 0))
		return fz_fail("value-parser", "gb_parse_duration('%.200s') gave %g", s, d);
	if (gb_parse_percent(s, &d) == 0 && !isfinite(d))
		return fz_fail("value-parser", "gb_parse_percent('%.200s') gave %g", s, d);
	if (gb_parse_double(s, &d) == 0 && !isfinite(d))
		return fz_fail("value-parser", "gb_parse_double('%.200s') gave %g", s, d);
	return NULL;
}

/* One input: see the top of this file. */
FZ_STATIC const char *fzc_check_bytes(const uint8_t *data, size_t size)
{
	static struct fzc_params P; /* static: two int lists are 4 KiB, keep them off the stack */
	static struct fzc_common C;
	const struct gb_opt_set sets[] = { { fzc_opts, &P }, { fzc_common_opts, &C } };
	const char *argv[FZC_MAX_ARGS + 1];
	const char *pos[FZC_MAX_POS];
	const char *why = NULL;
	char *buf = malloc(size + 1);
	int argc = 0;
	size_t start = 0;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t i = 0; i <= size && argc < FZC_MAX_ARGS; i++) {
		if (i < size && buf[i] != '\0' && buf[i] != '\n')
			continue;
		if (i == size && start == size)
			break; /* a trailing separator adds no empty argument */
		buf[i] = '\0';
		argv[argc++] = buf + start;
		start = i + 1;
	}
	argv[argc] = NULL;

	for (int round = 0; round < 2 && !why; round++) {
		struct fzc_capture cap;
		size_t npos = 99;
		int rc;

		fzc_defaults(&P, &C);
		fzc_capture_start(&cap);
		if (round == 0)
			rc = gb_cli_parse(sets, 2, argc, argv, pos, FZC_MAX_POS, &npos);
		else
			rc = gb_cli_parse(sets, 2, argc, argv, NULL, 0, &npos);
		fzc_capture_stop(&cap);
		if (rc == GB_CLI_ERROR) {
			why = fzc_one_error_line(cap.text, cap.len, "parse", "parse-error-line");
		} else if (rc != GB_CLI_OK && rc != GB_CLI_HELP) {
			why = fz_fail("parse-rc", "gb_cli_parse returned %d", rc);
		} else if (cap.len) {
			why = fz_fail("printed-on-success",
				      "a parse that did not fail printed '%.500s'", cap.text);
		} else if (rc == GB_CLI_OK) {
			if (npos > (round == 0 ? FZC_MAX_POS : 0))
				why = fz_fail("positionals", "%zu positionals", npos);
			for (size_t i = 0; !why && round == 0 && i < npos; i++)
				if (!fzc_points_into(pos[i], buf, size))
					why = fz_fail("positionals",
						      "positional %zu does not point into argv", i);
			if (!why)
				why = fzc_check_fields(fzc_opts, &P, buf, size);
			if (!why)
				why = fzc_check_fields(fzc_common_opts, &C, buf, size);
		}
		free(cap.text);
	}
	for (int i = 0; i < argc && !why; i++)
		why = fzc_check_value_parsers(argv[i]);
	free(buf);
	return why;
}

#endif
