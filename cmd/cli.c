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
 */
#include "cli.h"
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* internal parse status: 0 or the reason a value was rejected */
enum pstat {
	P_OK = 0,
	P_BAD = -1,  /* malformed */
	P_NEG = -2,  /* negative where that is never valid */
	P_BIG = -3,  /* does not fit the type */
	P_UNIT = -4, /* a bare number where a unit or % is required */
	P_FRAC = -5, /* not a whole number */
};

#define TWO_POW_64 18446744073709551616.0
#define TWO_POW_63 9223372036854775808.0
#define NAME_MAX_LEN 63 /* longest option name considered for typo hints */
#define USAGE_MAX_WIDTH 32 /* widest option column in --help */

struct unit {
	const char *name;
	uint64_t mult;
};

static const struct unit size_units[] = {
	{"", 1},
	{"b", 1},
	{"k", 1ULL << 10},
	{"kib", 1ULL << 10},
	{"kb", 1000ULL},
	{"m", 1ULL << 20},
	{"mib", 1ULL << 20},
	{"mb", 1000000ULL},
	{"g", 1ULL << 30},
	{"gib", 1ULL << 30},
	{"gb", 1000000000ULL},
	{"t", 1ULL << 40},
	{"tib", 1ULL << 40},
	{"tb", 1000000000000ULL},
	/* petabytes: 'theory --grad-bytes' and '--bucket' reach 1 PiB */
	{"p", 1ULL << 50},
	{"pib", 1ULL << 50},
	{"pb", 1000000000000000ULL},
	{NULL, 0},
};

static const struct unit count_units[] = {
	{"", 1},
	{"k", 1ULL << 10},
	{"m", 1ULL << 20},
	{"g", 1ULL << 30},
	{"t", 1ULL << 40},
	{NULL, 0},
};

/* ------------------------------------------------------------------------ */
/* small text helpers                                                       */

/* snprintf at buf[*pos], keeping *pos within len so later appends are no-ops */
GB_PRINTF(4, 5)
static void append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
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
static void join_choices(char *buf, size_t len, const char *const *choices)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (size_t i = 0; choices && choices[i]; i++)
		append(buf, len, &pos, "%s%s", i ? ", " : "", choices[i]);
}

static void trim_zeros(char *num)
{
	char *end;

	if (!strchr(num, '.'))
		return;
	end = num + strlen(num);
	while (end > num && end[-1] == '0')
		*--end = '\0';
	if (end > num && end[-1] == '.')
		end[-1] = '\0';
}

void gb_format_bytes(char *buf, size_t len, double bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	const size_t n_units = sizeof(units) / sizeof(units[0]);
	const char *sign = "";
	char num[48];
	double v = bytes;
	size_t u = 0;

	if (!buf || !len)
		return;
	if (!isfinite(bytes)) {
		snprintf(buf, len, "%g B", bytes);
		return;
	}
	if (v < 0) {
		sign = "-";
		v = -v;
	}
	for (;;) {
		int decimals = u == 0 || v >= 100 ? 0 : v >= 10 ? 1 : 2;
		double scale = pow(10.0, decimals);
		double r = round(v * scale) / scale;

		if (r < 1024 || u + 1 == n_units) {
			snprintf(num, sizeof(num), "%.*f", decimals, r);
			break;
		}
		v /= 1024;
		u++;
	}
	trim_zeros(num);
	snprintf(buf, len, "%s%s %s", sign, num, units[u]);
}

/* "500ms", "30s", "10m", "1.5h" (seconds in, shortest exact unit out) */
static void format_duration(char *buf, size_t len, double s)
{
	if (s > 0 && s < 1)
		snprintf(buf, len, "%gms", s * 1000.0);
	else if (s >= 3600 && fmod(s, 3600) == 0)
		snprintf(buf, len, "%gh", s / 3600);
	else if (s >= 60 && fmod(s, 60) == 0)
		snprintf(buf, len, "%gm", s / 60);
	else
		snprintf(buf, len, "%gs", s);
}

/* a bound or value of an option, in the units the user types */
static void format_value(char *buf, size_t len, enum gb_opt_type type, double v)
{
	switch (type) {
	case GB_OPT_SIZE:
		gb_format_bytes(buf, len, v);
		break;
	case GB_OPT_DURATION:
		format_duration(buf, len, v);
		break;
	case GB_OPT_PERCENT:
		snprintf(buf, len, "%g%%", v * 100.0);
		break;
	case GB_OPT_COUNT:
	case GB_OPT_INT_LIST:
		if (fabs(v) < 1e15)
			snprintf(buf, len, "%.0f", v);
		else
			snprintf(buf, len, "%g", v);
		break;
	default:
		snprintf(buf, len, "%g", v);
		break;
	}
}

/* ------------------------------------------------------------------------ */
/* value parsers                                                            */

/*
 * Length of the decimal number at the start of s: [sign] digits [. digits]
 * [e [sign] digits], at least one mantissa digit; 0 if there is none.
 * *is_int is false when there is a fraction or an exponent.
 */
static size_t scan_number(const char *s, bool sign, bool *is_int)
{
	size_t i = 0, digits = 0;

	*is_int = true;
	if (sign && (s[i] == '-' || s[i] == '+'))
		i++;
	while (isdigit((unsigned char)s[i])) {
		i++;
		digits++;
	}
	if (s[i] == '.') {
		*is_int = false;
		i++;
		while (isdigit((unsigned char)s[i])) {
			i++;
			digits++;
		}
	}
	if (!digits)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		size_t j = i + 1;

		if (s[j] == '-' || s[j] == '+')
			j++;
		if (isdigit((unsigned char)s[j])) {
			while (isdigit((unsigned char)s[j]))
				j++;
			i = j;
			*is_int = false;
		}
	}
	return i;
}

/* strtod over exactly s[0..n) (already checked by scan_number) */
static enum pstat to_double(const char *s, size_t n, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (end != s + n)
		return P_BAD;
	if (errno == ERANGE && fabs(x) > 1.0)
		return P_BIG;
	if (!isfinite(x))
		return P_BIG;
	*v = x;
	return P_OK;
}

static int find_unit(const struct unit *units, const char *s, uint64_t *mult)
{
	for (size_t i = 0; units[i].name; i++) {
		if (!strcasecmp(s, units[i].name)) {
			*mult = units[i].mult;
			return 0;
		}
	}
	return -1;
}

static enum pstat parse_size_ex(const char *s, uint64_t *bytes)
{
	bool is_int;
	uint64_t mult;
	size_t n;
	double x;
	enum pstat st;

	if (!s)
		return P_BAD;
	if (s[0] == '-') {
		n = scan_number(s, true, &is_int);
		return n && !find_unit(size_units, s + n, &mult) ? P_NEG : P_BAD;
	}
	n = scan_number(s, false, &is_int);
	if (!n || find_unit(size_units, s + n, &mult))
		return P_BAD;
	if (is_int) {
		unsigned long long v;
		char *end;

		errno = 0;
		v = strtoull(s, &end, 10);
		if (end != s + n)
			return P_BAD;
		if (errno == ERANGE || v > UINT64_MAX / mult)
			return P_BIG;
		*bytes = (uint64_t)v * mult;
		return P_OK;
	}
	st = to_double(s, n, &x);
	if (st)
		return st;
	x = floor(x * (double)mult + 0.5);
	if (!isfinite(x) || x >= TWO_POW_64)
		return P_BIG;
	*bytes = (uint64_t)x;
	return P_OK;
}

static enum pstat parse_count_ex(const char *s, int64_t *count)
{
	bool is_int;
	uint64_t mult;
	size_t n;
	double x;
	enum pstat st;

	if (!s)
		return P_BAD;
	n = scan_number(s, true, &is_int);
	if (!n || find_unit(count_units, s + n, &mult))
		return P_BAD;
	if (is_int) {
		long long v;
		char *end;
		int64_t m = (int64_t)mult;

		errno = 0;
		v = strtoll(s, &end, 10);
		if (end != s + n)
			return P_BAD;
		if (errno == ERANGE || v > INT64_MAX / m || v < INT64_MIN / m)
			return P_BIG;
		*count = (int64_t)v * m;
		return P_OK;
	}
	st = to_double(s, n, &x);
	if (st)
		return st;
	x *= (double)mult;
	if (!isfinite(x) || fabs(x) >= TWO_POW_63)
		return P_BIG;
	if (x != floor(x))
		return P_FRAC;
	*count = (int64_t)x;
	return P_OK;
}

static enum pstat parse_duration_ex(const char *s, double *seconds)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {{"ms", 1e-3}, {"s", 1}, {"m", 60}, {"h", 3600}};
	bool is_int;
	size_t n;
	double x;
	enum pstat st;

	if (!s)
		return P_BAD;
	n = scan_number(s, true, &is_int);
	if (!n)
		return P_BAD;
	if (!s[n])
		return P_UNIT;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(s + n, units[i].name))
			continue;
		st = to_double(s, n, &x);
		if (st)
			return st;
		if (x < 0)
			return P_NEG;
		x *= units[i].mult;
		if (!isfinite(x))
			return P_BIG;
		*seconds = x;
		return P_OK;
	}
	return P_BAD;
}

static enum pstat parse_percent_ex(const char *s, double *fraction)
{
	bool is_int;
	size_t n;
	double x;
	enum pstat st;

	if (!s)
		return P_BAD;
	n = scan_number(s, true, &is_int);
	if (!n)
		return P_BAD;
	if (!s[n])
		return P_UNIT;
	if (strcmp(s + n, "%"))
		return P_BAD;
	st = to_double(s, n, &x);
	if (st)
		return st;
	*fraction = x / 100.0;
	return P_OK;
}

static enum pstat parse_double_ex(const char *s, double *v)
{
	bool is_int;
	size_t n;

	if (!s)
		return P_BAD;
	n = scan_number(s, true, &is_int);
	if (!n || s[n])
		return P_BAD;
	return to_double(s, n, v);
}

int gb_parse_size(const char *s, uint64_t *bytes)
{
	return parse_size_ex(s, bytes) ? -1 : 0;
}

int gb_parse_count(const char *s, int64_t *count)
{
	return parse_count_ex(s, count) ? -1 : 0;
}

int gb_parse_duration(const char *s, double *seconds)
{
	return parse_duration_ex(s, seconds) ? -1 : 0;
}

int gb_parse_percent(const char *s, double *fraction)
{
	return parse_percent_ex(s, fraction) ? -1 : 0;
}

int gb_parse_double(const char *s, double *v)
{
	return parse_double_ex(s, v) ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* range checks                                                             */

static bool has_range(const struct gb_opt *o)
{
	return o->min != 0 || o->max != 0;
}

static bool unbounded_above(double max)
{
	return isinf(max) || max >= TWO_POW_63;
}

/* subject is "--iters" or "each value of --sizes" */
static int check_range(const struct gb_opt *o, enum gb_opt_type type, double v,
		       const char *subject)
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

/* ---- int lists ---------------------------------------------------------- */

static int list_push(struct gb_int_list *l, uint64_t v, const char *nm)
{
	if (l->n >= GB_INT_LIST_MAX)
		return gb_error("%s has more than %d values", nm, GB_INT_LIST_MAX);
	l->v[l->n++] = v;
	return 0;
}

static int list_value(const char *s, const char *elem, const char *nm, uint64_t *v)
{
	switch (parse_size_ex(s, v)) {
	case P_OK:
		return 0;
	case P_NEG:
		return gb_error("invalid value '%s' in %s: values cannot be negative", elem, nm);
	case P_BIG:
		return gb_error("invalid value '%s' in %s: too large", elem, nm);
	default:
		return gb_error("invalid value '%s' in %s: expected a number like 1024 or 4K, "
				"or a range like 1K:1M:x2", elem, nm);
	}
}

/* number of values in a range, capped at GB_INT_LIST_MAX + 1 */
static size_t range_len(uint64_t start, uint64_t stop, uint64_t step, uint64_t factor)
{
	size_t n = 0;

	if (!factor) {
		uint64_t q = (stop - start) / step;

		return q >= GB_INT_LIST_MAX ? GB_INT_LIST_MAX + 1 : (size_t)q + 1;
	}
	for (uint64_t v = start; v <= stop && n <= GB_INT_LIST_MAX; v *= factor) {
		n++;
		if (v > stop / factor)
			break;
	}
	return n;
}

/* the step part of a range: "4K" (linear) or "x2" (geometric) */
static int range_step(const char *s, const char *elem, const char *nm, uint64_t *step,
		      uint64_t *factor)
{
	int64_t f;

	*step = 0;
	*factor = 0;
	if (s[0] == 'x' || s[0] == 'X') {
		if (parse_count_ex(s + 1, &f) || f < 2 || s[1] == '-' || s[1] == '+')
			return gb_error("invalid range '%s' for %s: the factor must be a whole "
					"number of at least 2, as in 1:64:x2", elem, nm);
		*factor = (uint64_t)f;
		return 0;
	}
	if (list_value(s, elem, nm, step))
		return -1;
	if (!*step)
		return gb_error("invalid range '%s' for %s: the step must be at least 1", elem, nm);
	return 0;
}

static int list_range(const struct gb_opt *o, struct gb_int_list *l, char *work,
		      const char *elem, const char *nm, const char *each)
{
	char *stop_s = strchr(work, ':');
	char *step_s = stop_s ? strchr(stop_s + 1, ':') : NULL;
	uint64_t start, stop, step, factor, v;
	size_t n;

	if (!step_s || strchr(step_s + 1, ':'))
		return gb_error("invalid range '%s' for %s: expected start:stop:step or "
				"start:stop:xF", elem, nm);
	*stop_s++ = '\0';
	*step_s++ = '\0';
	if (list_value(work, elem, nm, &start) || list_value(stop_s, elem, nm, &stop) ||
	    range_step(step_s, elem, nm, &step, &factor))
		return -1;
	if (start > stop)
		return gb_error("invalid range '%s' for %s: start is above stop", elem, nm);
	if (factor && !start)
		return gb_error("invalid range '%s' for %s: a geometric range cannot start at 0",
				elem, nm);
	n = range_len(start, stop, step, factor);
	if (n > GB_INT_LIST_MAX)
		return gb_error("range '%s' gives more than %d values for %s", elem,
				GB_INT_LIST_MAX, nm);
	v = start;
	for (size_t i = 0; i < n; i++) {
		if (check_range(o, GB_OPT_INT_LIST, (double)v, each) || list_push(l, v, nm))
			return -1;
		v = factor ? v * factor : v + step; /* may wrap after the last value; unused */
	}
	return 0;
}

static int list_elem(const struct gb_opt *o, struct gb_int_list *l, const char *s, size_t len,
		     const char *val, const char *nm, const char *each)
{
	char elem[96], work[96];
	uint64_t v;

	if (!len)
		return gb_error("empty element in %s list '%s'", nm, val);
	if (len >= sizeof(elem))
		return gb_error("invalid value '%.*s...' in %s: too long", 32, s, nm);
	memcpy(elem, s, len);
	elem[len] = '\0';
	memcpy(work, elem, len + 1);
	if (strchr(elem, ':'))
		return list_range(o, l, work, elem, nm, each);
	if (list_value(elem, elem, nm, &v) || check_range(o, GB_OPT_INT_LIST, (double)v, each))
		return -1;
	return list_push(l, v, nm);
}

static int set_int_list(const struct gb_opt *o, struct gb_int_list *field, const char *val,
			const char *nm)
{
	struct gb_int_list tmp;
	char each[96];
	const char *s = val;

	snprintf(each, sizeof(each), "each value of %s", nm);
	tmp.n = 0;
	if (!*val)
		return gb_error("invalid value '' for %s: expected a list like 1024,4096 or a "
				"range like 1K:1M:x2", nm);
	for (;;) {
		size_t len = strcspn(s, ",");

		if (list_elem(o, &tmp, s, len, val, nm, each))
			return -1;
		if (!s[len])
			break;
		s += len + 1;
	}
	memcpy(field->v, tmp.v, tmp.n * sizeof(tmp.v[0]));
	field->n = tmp.n;
	return 0;
}

/* ---- device lists -------------------------------------------------------- */

/* digits only, no sign; returns the number of characters used, 0 if none or too large */
static size_t scan_index(const char *s, size_t len, int *v)
{
	size_t i = 0;
	long acc = 0;

	while (i < len && isdigit((unsigned char)s[i])) {
		acc = acc * 10 + (s[i] - '0');
		if (acc > 1000000)
			return 0;
		i++;
	}
	*v = (int)acc;
	return i;
}

static int device_push(const struct gb_opt *o, struct gb_device_list *l, int d, const char *nm)
{
	if (!(o->flags & GB_OPTF_ALLOW_DUP)) {
		for (size_t i = 0; i < l->n; i++) {
			if (l->idx[i] == d)
				return gb_error("device %d is listed twice in %s", d, nm);
		}
	}
	if (l->n >= GB_DEVICE_LIST_MAX)
		return gb_error("%s lists more than %d devices", nm, GB_DEVICE_LIST_MAX);
	l->idx[l->n++] = d;
	return 0;
}

static int device_elem(const struct gb_opt *o, struct gb_device_list *l, const char *s,
		       size_t len, const char *val, const char *nm)
{
	int a, b;
	size_t i;

	if (!len)
		return gb_error("empty element in %s list '%s'", nm, val);
	if (s[0] == '-' && len > 1 && isdigit((unsigned char)s[1]))
		return gb_error("invalid device '%.*s' in %s: device indices cannot be negative",
				(int)len, s, nm);
	i = scan_index(s, len, &a);
	b = a;
	if (i && i < len && s[i] == '-') {
		size_t j = scan_index(s + i + 1, len - i - 1, &b);

		i = j ? i + 1 + j : 0;
	}
	if (!i || i != len)
		return gb_error("invalid device '%.*s' in %s: expected an index like 0, a range "
				"like 0-3, or all", (int)len, s, nm);
	if (a > b)
		return gb_error("invalid device range '%.*s' in %s: start is above end", (int)len,
				s, nm);
	for (int d = a; d <= b; d++) {
		if (device_push(o, l, d, nm))
			return -1;
	}
	return 0;
}

static int set_devices(const struct gb_opt *o, struct gb_device_list *field, const char *val,
		       const char *nm)
{
	struct gb_device_list tmp;
	const char *s = val;

	if (!strcmp(val, "all")) {
		field->all = true;
		field->n = 0;
		return 0;
	}
	if (!*val)
		return gb_error("invalid value '' for %s: expected an index like 0, a range like "
				"0-3, or all", nm);
	tmp.n = 0;
	for (;;) {
		size_t len = strcspn(s, ",");

		if (device_elem(o, &tmp, s, len, val, nm))
			return -1;
		if (!s[len])
			break;
		s += len + 1;
	}
	field->all = false;
	memcpy(field->idx, tmp.idx, tmp.n * sizeof(tmp.idx[0]));
	field->n = tmp.n;
	return 0;
}

int gb_device_list_resolve(struct gb_device_list *list, int count)
{
	if (count < 0)
		count = 0;
	if (list->all) {
		size_t n = count > GB_DEVICE_LIST_MAX ? GB_DEVICE_LIST_MAX : (size_t)count;

		for (size_t i = 0; i < n; i++)
			list->idx[i] = (int)i;
		list->n = n;
		return 0;
	}
	for (size_t i = 0; i < list->n; i++) {
		int d = list->idx[i];

		if (d < 0)
			return gb_error("device index %d is not valid", d);
		if (d < count)
			continue;
		if (count == 0)
			return gb_error("device index %d is beyond the last GPU (found none)", d);
		if (count == 1)
			return gb_error("device index %d is beyond the last GPU (found 1: 0)", d);
		return gb_error("device index %d is beyond the last GPU (found %d: 0..%d)", d,
				count, count - 1);
	}
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
