/* SPDX-License-Identifier: MIT */
/*
 * cli.c - the one table-driven option parser and --help printer (see cli.h).
 *
 * Everything a user types after a command goes through here: long and short
 * options, value parsing with unit suffixes, range checks, and the one-line
 * error messages. It knows nothing about benchmarks or GPUs. Device lists are
 * resolved against a count that the caller supplies.
 *
 * Conventions that cli.h leaves open:
 *   - an option given twice keeps the last value (lists are replaced, not merged);
 *   - a numeric option whose table entry has min == max == 0 has no range, but
 *     negative values are still rejected;
 *   - a max of INFINITY (or anything >= 2^63) means "no upper bound";
 *   - fractional sizes are rounded to the nearest byte ("0.1K" is 102 bytes);
 *   - after "--name", a following "--word" is not taken as its value
 *     ("option '--name' needs a value"); use "--name=--word" for that.
 *
 * This file holds the range checks, the setters and the parser itself; the
 * value syntax is in cli_values.c, lists and devices in cli_lists.c, --help
 * in cli_help.c (shared declarations: cli_internal.h).
 */
#include "cli.h"
#include "log.h"
#include "cmd/cli_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NAME_MAX_LEN 63 /* longest option name considered for typo hints */

/* ------------------------------------------------------------------------ */
/* range checks                                                             */

bool has_range(const struct gb_opt *o)
{
	return o->min != 0 || o->max != 0;
}

bool unbounded_above(double max)
{
	return isinf(max) || max >= TWO_POW_63;
}

/* subject is "--iters" or "each value of --sizes" */
int check_range(const struct gb_opt *o, enum gb_opt_type type, double v, const char *subject)
{
	char lo[48], hi[48], got[48];
	bool inexact = type == GB_OPT_DURATION || type == GB_OPT_PERCENT ||
		       type == GB_OPT_DOUBLE;
	double slack_lo = inexact ? 1e-9 * fabs(o->min) : 0;
	double slack_hi = inexact ? 1e-9 * fabs(o->max) : 0;

	format_value(got, sizeof(got), type, v);
	if (!has_range(o)) {
		if (v >= 0)
			return 0;
		return gb_error("%s cannot be negative (got %s)", subject, got);
	}
	if (v >= o->min - slack_lo && (unbounded_above(o->max) || v <= o->max + slack_hi))
		return 0;
	format_value(lo, sizeof(lo), type, o->min);
	if (unbounded_above(o->max))
		return gb_error("%s must be at least %s (got %s)", subject, lo, got);
	format_value(hi, sizeof(hi), type, o->max);
	return gb_error("%s must be between %s and %s (got %s)", subject, lo, hi, got);
}

/* ------------------------------------------------------------------------ */
/* setters, one per type; each prints one line and returns -1 on error     */

static int set_count(const struct gb_opt *o, int64_t *field, const char *val, const char *nm)
{
	int64_t v;

	switch (parse_count_ex(val, &v)) {
	case P_OK:
		break;
	case P_BIG:
		return gb_error("invalid value '%s' for %s: too large", val, nm);
	default:
		return gb_error(
			"invalid value '%s' for %s: expected a whole number like 1000, 4K, 1e6",
			val, nm);
	}
	if (check_range(o, GB_OPT_COUNT, (double)v, nm))
		return -1;
	*field = v;
	return 0;
}

static int size_error(enum pstat st, const char *val, const char *nm)
{
	switch (st) {
	case P_NEG:
		return gb_error("invalid value '%s' for %s: a size cannot be negative", val, nm);
	case P_BIG:
		return gb_error("invalid value '%s' for %s: too large", val, nm);
	default:
		return gb_error("invalid value '%s' for %s: expected a size like 4096, 64K, 1G",
				val, nm);
	}
}

static int set_size(const struct gb_opt *o, uint64_t *field, const char *val, const char *nm)
{
	uint64_t v;
	enum pstat st = parse_size_ex(val, &v);

	if (st)
		return size_error(st, val, nm);
	if (check_range(o, GB_OPT_SIZE, (double)v, nm))
		return -1;
	*field = v;
	return 0;
}

static int set_duration(const struct gb_opt *o, double *field, const char *val, const char *nm)
{
	double v;

	switch (parse_duration_ex(val, &v)) {
	case P_OK:
		break;
	case P_UNIT:
		return gb_error("value '%s' for %s needs a unit: 30s, 10m, 1h", val, nm);
	case P_NEG:
		return gb_error("invalid value '%s' for %s: a duration cannot be negative",
				val, nm);
	case P_BIG:
		return gb_error("invalid value '%s' for %s: too large", val, nm);
	default:
		return gb_error(
			"invalid value '%s' for %s: expected a duration like 500ms, 30s, 10m, 1h",
			val, nm);
	}
	if (check_range(o, GB_OPT_DURATION, v, nm))
		return -1;
	*field = v;
	return 0;
}

static int set_percent(const struct gb_opt *o, double *field, const char *val, const char *nm)
{
	double v;

	switch (parse_percent_ex(val, &v)) {
	case P_OK:
		break;
	case P_UNIT:
		return gb_error("value '%s' for %s needs a percent sign, e.g. 90%%", val, nm);
	case P_BIG:
		return gb_error("invalid value '%s' for %s: too large", val, nm);
	default:
		return gb_error("invalid value '%s' for %s: expected a percentage like 90%%",
				val, nm);
	}
	if (check_range(o, GB_OPT_PERCENT, v, nm))
		return -1;
	*field = v;
	return 0;
}

static int set_double(const struct gb_opt *o, double *field, const char *val, const char *nm)
{
	double v;

	switch (parse_double_ex(val, &v)) {
	case P_OK:
		break;
	case P_BIG:
		return gb_error("invalid value '%s' for %s: too large", val, nm);
	default:
		return gb_error("invalid value '%s' for %s: expected a number like 1.5", val, nm);
	}
	if (check_range(o, GB_OPT_DOUBLE, v, nm))
		return -1;
	*field = v;
	return 0;
}

static int find_choice(const char *const *choices, const char *s, size_t len)
{
	for (int i = 0; choices && choices[i]; i++) {
		if (strlen(choices[i]) == len && !strncmp(choices[i], s, len))
			return i;
	}
	return -1;
}

static int set_enum(const struct gb_opt *o, int *field, const char *val, const char *nm)
{
	char list[512];
	int i = find_choice(o->choices, val, strlen(val));

	if (i < 0) {
		join_choices(list, sizeof(list), o->choices);
		return gb_error("invalid value '%s' for %s: expected one of: %s", val, nm, list);
	}
	*field = i;
	return 0;
}

static uint32_t all_choices_mask(const char *const *choices)
{
	uint32_t mask = 0;

	for (unsigned i = 0; choices && choices[i] && i < 32; i++)
		mask |= UINT32_C(1) << i;
	return mask;
}

static int set_enum_list(const struct gb_opt *o, uint32_t *field, const char *val, const char *nm)
{
	char list[512];
	uint32_t mask = 0;
	const char *s = val;

	join_choices(list, sizeof(list), o->choices);
	if (!*val)
		return gb_error("invalid value '' for %s: expected a list of: %s; or all",
				nm, list);
	for (;;) {
		size_t len = strcspn(s, ",");
		int i;

		if (!len)
			return gb_error("empty element in %s list '%s'", nm, val);
		if (len == 3 && !strncmp(s, "all", 3)) {
			mask |= all_choices_mask(o->choices);
			if (o->flags & GB_OPTF_MARK_ALL)
				mask |= GB_ENUM_LIST_ALL;
		} else {
			i = find_choice(o->choices, s, len);
			if (i < 0 || i >= 32)
				return gb_error(
					"invalid value '%.*s' in %s: expected one of: %s; or all",
					(int)len, s, nm, list);
			mask |= UINT32_C(1) << i;
		}
		if (!s[len])
			break;
		s += len + 1;
	}
	*field = mask;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* the parser                                                               */

#define SEEN_MAX 128 /* options one command line may set; more is refused */

/* An option already given on this command line, and how (for bools). */
struct seen_opt {
	const struct gb_opt *opt;
	bool negated;            /* bools: given as --no-name */
};

struct parser {
	const struct gb_opt_set *sets;
	size_t n_sets;
	int argc;
	const char *const *argv;
	int i; /* index of the argument being parsed */
	struct seen_opt seen[SEEN_MAX];
	size_t n_seen;
};

/* "--size", or "-s" for an option without a long name */
static void opt_label(const struct gb_opt *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
}

static const struct gb_opt *find_long(const struct parser *p, const char *name, size_t len,
				      void **base)
{
	for (size_t s = 0; s < p->n_sets; s++) {
		for (const struct gb_opt *o = p->sets[s].opts; o && o->type != GB_OPT_END; o++) {
			if (o->long_name && strlen(o->long_name) == len &&
			    !strncmp(o->long_name, name, len)) {
				*base = p->sets[s].base;
				return o;
			}
		}
	}
	return NULL;
}

static const struct gb_opt *find_short(const struct parser *p, char c, void **base)
{
	for (size_t s = 0; s < p->n_sets; s++) {
		for (const struct gb_opt *o = p->sets[s].opts; o && o->type != GB_OPT_END; o++) {
			if (o->short_name && o->short_name == c) {
				*base = p->sets[s].base;
				return o;
			}
		}
	}
	return NULL;
}

static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t row[NAME_MAX_LEN + 1];

	if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

struct hint {
	char best[NAME_MAX_LEN + 8];
	size_t dist;
	char prefix[NAME_MAX_LEN + 8];
};

static void hint_consider(struct hint *h, const char *typed, size_t tlen, const char *cand)
{
	size_t clen = strlen(cand);
	size_t d = edit_distance(typed, tlen, cand, clen);

	if (d < h->dist) {
		h->dist = d;
		snprintf(h->best, sizeof(h->best), "%s", cand);
	}
	if (!h->prefix[0] && tlen >= 2 && tlen < clen && !strncmp(typed, cand, tlen))
		snprintf(h->prefix, sizeof(h->prefix), "%s", cand);
}

/*
 * The suggestion: the closest name when at most 2 edits away (and fewer
 * edits than typed has characters), else the first name typed is a prefix
 * of; NULL when neither.
 */
static const char *hint_pick(const struct hint *h, size_t tlen)
{
	if (h->dist <= 2 && h->dist < tlen)
		return h->best;
	if (h->prefix[0])
		return h->prefix;
	return NULL;
}

/* the known long name closest to typed, or NULL */
static const char *closest_long(const struct parser *p, const char *typed, size_t tlen,
				struct hint *h)
{
	char no[NAME_MAX_LEN + 8];

	h->best[0] = '\0';
	h->prefix[0] = '\0';
	h->dist = SIZE_MAX;
	hint_consider(h, typed, tlen, "help");
	for (size_t s = 0; s < p->n_sets; s++) {
		for (const struct gb_opt *o = p->sets[s].opts; o && o->type != GB_OPT_END; o++) {
			if (!o->long_name || (o->flags & GB_OPTF_HIDDEN))
				continue;
			hint_consider(h, typed, tlen, o->long_name);
			if (o->type != GB_OPT_BOOL)
				continue;
			snprintf(no, sizeof(no), "no-%s", o->long_name);
			hint_consider(h, typed, tlen, no);
		}
	}
	return hint_pick(h, tlen);
}

const char *gb_cli_closest(const char *typed, const char *const *candidates, size_t n)
{
	struct hint h;
	size_t tlen = strlen(typed);
	const char *pick;

	h.best[0] = '\0';
	h.prefix[0] = '\0';
	h.dist = SIZE_MAX;
	for (size_t i = 0; i < n; i++)
		if (candidates[i])
			hint_consider(&h, typed, tlen, candidates[i]);
	pick = hint_pick(&h, tlen);
	/* the caller's string, not the copy in h */
	for (size_t i = 0; pick && i < n; i++)
		if (candidates[i] && !strcmp(candidates[i], pick))
			return candidates[i];
	return NULL;
}

static int unknown_long(const struct parser *p, const char *name, size_t len)
{
	struct hint h;
	const char *best = closest_long(p, name, len, &h);

	if (best)
		return gb_error("unknown option '--%.*s'; did you mean '--%s'?", (int)len, name,
				best);
	return gb_error("unknown option '--%.*s'; see --help", (int)len, name);
}

/* the next argument as a value; NULL when there is none or it is another long option */
static const char *next_value(struct parser *p)
{
	const char *v;

	if (p->i + 1 >= p->argc || !p->argv[p->i + 1])
		return NULL;
	v = p->argv[p->i + 1];
	if (v[0] == '-' && v[1] == '-')
		return NULL;
	p->i++;
	return v;
}

static int set_value(const struct gb_opt *o, void *base, const char *val)
{
	char nm[NAME_MAX_LEN + 8];
	void *field = (char *)base + o->offset;

	opt_label(o, nm, sizeof(nm));
	switch (o->type) {
	case GB_OPT_COUNT:
		return set_count(o, field, val, nm);
	case GB_OPT_SIZE:
		return set_size(o, field, val, nm);
	case GB_OPT_DURATION:
		return set_duration(o, field, val, nm);
	case GB_OPT_PERCENT:
		return set_percent(o, field, val, nm);
	case GB_OPT_DOUBLE:
		return set_double(o, field, val, nm);
	case GB_OPT_ENUM:
		return set_enum(o, field, val, nm);
	case GB_OPT_ENUM_LIST:
		return set_enum_list(o, field, val, nm);
	case GB_OPT_STRING:
		*(const char **)field = val;
		return 0;
	case GB_OPT_INT_LIST:
		return set_int_list(o, field, val, nm);
	case GB_OPT_DEVICES:
		return set_devices(o, field, val, nm);
	case GB_OPT_BOOL:
		*(bool *)field = true;
		return 0;
	case GB_OPT_END:
		break;
	}
	return gb_error("option '%s' has an unknown type %d", nm, (int)o->type);
}

/*
 * Every option holds one value, so a second one given would silently win
 * over the first ("--compare A --compare B" compared only B). A value
 * option given twice is refused, and so is a bool given both as --name and
 * --no-name; the same flag repeated (-v -v) says nothing new and passes.
 */
static int note_seen(struct parser *p, const struct gb_opt *o, bool negated)
{
	char nm[NAME_MAX_LEN + 8];

	opt_label(o, nm, sizeof(nm));
	for (size_t k = 0; k < p->n_seen; k++) {
		if (p->seen[k].opt != o)
			continue;
		if (o->type != GB_OPT_BOOL)
			return gb_error("option '%s' given twice; give it once", nm);
		if (p->seen[k].negated != negated)
			return gb_error("option '%s' given both as '%s' and '--no-%s'; give one",
					nm, nm, o->long_name ? o->long_name : nm);
		return 0;
	}
	if (p->n_seen >= SEEN_MAX)
		return gb_error("too many options (more than %d)", SEEN_MAX);
	p->seen[p->n_seen].opt = o;
	p->seen[p->n_seen].negated = negated;
	p->n_seen++;
	return 0;
}

/* "--name", "--name=value", "--name value", "--no-name"; 1 for help */
static int parse_long(struct parser *p, const char *arg)
{
	const char *name = arg + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct gb_opt *o;
	const char *val;
	void *base = NULL;
	bool negate = false;

	if (len == 4 && !strncmp(name, "help", 4))
		return 1;
	o = find_long(p, name, len, &base);
	if (!o && len > 3 && !strncmp(name, "no-", 3)) {
		o = find_long(p, name + 3, len - 3, &base);
		if (o && o->type != GB_OPT_BOOL)
			o = NULL;
		negate = true;
	}
	if (!o)
		return unknown_long(p, name, len);
	if (o->flags & GB_OPTF_REFUSED)
		return gb_error("'--%.*s' %s", (int)len, name, o->help);
	if (note_seen(p, o, negate))
		return -1;
	if (o->type == GB_OPT_BOOL) {
		if (eq)
			return gb_error("option '--%.*s' takes no value (got '%s')", (int)len, name,
					eq + 1);
		*(bool *)((char *)base + o->offset) = !negate;
		return 0;
	}
	val = eq ? eq + 1 : next_value(p);
	if (!val)
		return gb_error("option '--%.*s' needs a value", (int)len, name);
	return set_value(o, base, val);
}

/* "-size" where "--size" was meant (git's check_typos) */
static int single_dash_long(const struct parser *p, const char *arg)
{
	const char *name = arg + 1;
	size_t len = strcspn(name, "=");
	void *base;

	if (len < 2)
		return 0;
	if ((len == 4 && !strncmp(name, "help", 4)) || find_long(p, name, len, &base))
		return gb_error("unknown option '%s'; did you mean '-%.*s'?", arg, (int)len + 1,
				arg);
	return 0;
}

/* "-x", "-x value", "-xvalue", bundled bools "-vq"; 1 for help */
static int parse_short(struct parser *p, const char *arg)
{
	if (single_dash_long(p, arg))
		return -1;
	for (const char *c = arg + 1; *c; c++) {
		const struct gb_opt *o;
		const char *val;
		void *base = NULL;

		if (*c == 'h')
			return 1;
		o = find_short(p, *c, &base);
		if (!o)
			return gb_error("unknown option '-%c'; see --help", *c);
		if (o->flags & GB_OPTF_REFUSED)
			return gb_error("'-%c' %s", *c, o->help);
		if (note_seen(p, o, false))
			return -1;
		if (o->type == GB_OPT_BOOL) {
			if (c[1] == '=')
				return gb_error("option '-%c' takes no value (got '%s')", *c,
						c + 2);
			*(bool *)((char *)base + o->offset) = true;
			continue;
		}
		val = c[1] ? c + 1 : next_value(p);
		if (!val)
			return gb_error("option '-%c' needs a value", *c);
		return set_value(o, base, val);
	}
	return 0;
}

enum gb_cli_result gb_cli_parse(const struct gb_opt_set *sets, size_t n_sets, int argc,
				const char *const *argv, const char **positional,
				size_t max_positional, size_t *n_positional)
{
	struct parser p = { .sets = sets, .n_sets = n_sets, .argc = argc, .argv = argv };
	bool options_done = false;
	size_t npos = 0;

	if (n_positional)
		*n_positional = 0;
	for (p.i = 0; p.i < argc && argv[p.i]; p.i++) {
		const char *arg = argv[p.i];
		int rc;

		if (options_done || arg[0] != '-' || !arg[1]) {
			if (!positional || npos >= max_positional)
				return gb_error("unexpected argument '%s'", arg);
			positional[npos++] = arg;
			if (n_positional)
				*n_positional = npos;
			continue;
		}
		if (!strcmp(arg, "--")) {
			options_done = true;
			continue;
		}
		rc = arg[1] == '-' ? parse_long(&p, arg) : parse_short(&p, arg);
		if (rc < 0)
			return GB_CLI_ERROR;
		if (rc > 0)
			return GB_CLI_HELP;
	}
	return GB_CLI_OK;
}
