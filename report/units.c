/* SPDX-License-Identifier: MIT */
/*
 * units.c - sizes, counts, durations and percents in the units people type
 * and read (see units.h): gb_format_bytes, and the value parsers the option
 * parser, the thresholds files and compare share. No messages: a parse
 * returns why it failed and the caller words the error.
 * May use: the C library only.
 */
#include "report/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

enum pstat parse_size_ex(const char *s, uint64_t *bytes)
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

enum pstat parse_count_ex(const char *s, int64_t *count)
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

enum pstat parse_duration_ex(const char *s, double *seconds)
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

enum pstat parse_percent_ex(const char *s, double *fraction)
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

enum pstat parse_double_ex(const char *s, double *v)
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
