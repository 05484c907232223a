/* SPDX-License-Identifier: MIT */
/*
 * load_get.c - the typed field readers of load.c: one field of a report
 * (a number, a whole number in range, a string, an enum, an array) read
 * with its type checked, or the first bad one named by its path
 * ("benchmarks[2].metrics[0].value must be a number or null"). Uses cJSON
 * and result.h only.
 */
#include "report/load_internal.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* Print "<where>: <path>.<key> <what>" once: the first error is the useful one. */
__attribute__((format(printf, 4, 5))) int fail(struct ld *ld, const char *path,
						       const char *key, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (ld->failed)
		return -1;
	ld->failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* keys of environment come from the input: keep them short in the message */
	if (ld->file)
		snprintf(ld->err, ld->errlen, "'%s': %s%s%.64s %s", ld->file, path,
			 *path && *key ? "." : "", key, what);
	else
		snprintf(ld->err, ld->errlen, "report: %s%s%.64s %s", path,
			 *path && *key ? "." : "", key, what);
	gb_str_printable(ld->err);
	return -1;
}

/* "'x.json' is not a gpubench report" or "report is not a gpubench report" */
__attribute__((format(printf, 2, 3))) int fail_doc(struct ld *ld, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (ld->failed)
		return -1;
	ld->failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (ld->file)
		snprintf(ld->err, ld->errlen, "'%s' %s", ld->file, what);
	else
		snprintf(ld->err, ld->errlen, "report %s", what);
	gb_str_printable(ld->err);
	return -1;
}

const cJSON *child(const cJSON *obj, const char *key)
{
	return obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

bool absent(const cJSON *v)
{
	return !v || cJSON_IsNull(v);
}

/*
 * A double, null -> NAN. A number too large for a double (1e999) parses as
 * infinity: the writer never emits one, so it is a bad file, said as such,
 * never a silent null.
 */
int get_num(struct ld *ld, const cJSON *obj, const char *path, const char *key, double *out)
{
	const cJSON *v = child(obj, key);

	*out = NAN;
	if (absent(v))
		return 0;
	if (!cJSON_IsNumber(v))
		return fail(ld, path, key, "must be a number or null");
	if (!isfinite(v->valuedouble))
		return fail(ld, path, key, "is out of the range of a double");
	*out = v->valuedouble;
	return 0;
}

/* a JSON number that is a whole value in [lo, hi], checked before converting (UB otherwise) */
bool whole_in(const cJSON *v, double lo, double hi)
{
	double d = v->valuedouble;

	return cJSON_IsNumber(v) && isfinite(d) && d == floor(d) && d >= lo && d <= hi;
}

/* An int where -1 (null) means unknown, the writer's add_int convention. */
int get_int(struct ld *ld, const cJSON *obj, const char *path, const char *key, int *out)
{
	const cJSON *v = child(obj, key);

	*out = -1;
	if (absent(v))
		return 0;
	if (!whole_in(v, INT_MIN, INT_MAX))
		return fail(ld, path, key, "must be an integer or null");
	*out = (int)v->valuedouble;
	return 0;
}

/* An int that must be there (link ends). */
int get_req_int(struct ld *ld, const cJSON *obj, const char *path, const char *key, int *out)
{
	const cJSON *v = child(obj, key);

	if (!v || !whole_in(v, INT_MIN, INT_MAX))
		return fail(ld, path, key, "must be an integer");
	*out = (int)v->valuedouble;
	return 0;
}

/* An owned string copy, null -> NULL; replaces (and frees) what *out held. */
int get_str(struct ld *ld, const cJSON *obj, const char *path, const char *key, char **out)
{
	const cJSON *v = child(obj, key);

	free(*out);
	*out = NULL;
	if (absent(v))
		return 0;
	if (!cJSON_IsString(v))
		return fail(ld, path, key, "must be a string or null");
	*out = gb_strdup(v->valuestring);
	return 0;
}

/* Names are what compare matches on and text prints: they must be there. */
int get_req_str(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		       char **out)
{
	const cJSON *v = child(obj, key);

	free(*out);
	*out = NULL;
	if (!cJSON_IsString(v))
		return fail(ld, path, key, "must be a string");
	*out = gb_strdup(v->valuestring);
	return 0;
}

/* true/false/null -> 1/0/-1 (ecc, p2p_access) */
int get_tristate(struct ld *ld, const cJSON *obj, const char *path, const char *key,
			int *out)
{
	const cJSON *v = child(obj, key);

	*out = -1;
	if (absent(v))
		return 0;
	if (!cJSON_IsBool(v))
		return fail(ld, path, key, "must be true, false or null");
	*out = cJSON_IsTrue(v) ? 1 : 0;
	return 0;
}

/* devices[].power_source: one of the writer's static names, or NULL */
int get_power_source(struct ld *ld, const cJSON *obj, const char *path, const char **out)
{
	static const char *const names[] = { "instant", "average_1s" };
	const cJSON *v = child(obj, "power_source");

	*out = NULL;
	if (absent(v))
		return 0;
	for (size_t i = 0; cJSON_IsString(v) && i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(v->valuestring, names[i])) {
			*out = names[i];
			return 0;
		}
	}
	return fail(ld, path, "power_source", "must be \"instant\", \"average_1s\" or null");
}

/* An object section; absent or null -> *out NULL (read as all unknown). */
int get_obj(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		   const cJSON **out)
{
	const cJSON *v = child(obj, key);

	*out = NULL;
	if (absent(v))
		return 0;
	if (!cJSON_IsObject(v))
		return fail(ld, path, key, "must be an object or null");
	*out = v;
	return 0;
}

/* An array and its length; absent or null -> empty. */
int get_arr(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		   const cJSON **out, size_t *n)
{
	const cJSON *v = child(obj, key);
	const cJSON *e;

	*out = NULL;
	*n = 0;
	if (absent(v))
		return 0;
	if (!cJSON_IsArray(v))
		return fail(ld, path, key, "must be an array");
	*out = v;
	/* counted here as size_t: cJSON_GetArraySize returns an int */
	cJSON_ArrayForEach(e, v)
		(*n)++;
	return 0;
}

/* One of a fixed set of names (status, better, severity). */
int get_enum(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		    int (*from_name)(const char *), const char *choices, int *out)
{
	const cJSON *v = child(obj, key);
	int i = cJSON_IsString(v) ? from_name(v->valuestring) : -1;

	if (i < 0)
		return fail(ld, path, key, "must be one of %s", choices);
	*out = i;
	return 0;
}

#define STATUS_CHOICES "passed, warning, failed, skipped, error, not_built, interrupted"

int get_status(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		      enum gb_status *out)
{
	int i = 0;

	if (get_enum(ld, obj, path, key, gb_status_from_name, STATUS_CHOICES, &i))
		return -1;
	*out = (enum gb_status)i;
	return 0;
}

/* A count (stats.n): a whole number, 0 .. 2^53 (beyond that a double is not exact). */
int get_count(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		     size_t *out)
{
	const cJSON *v = child(obj, key);

	*out = 0;
	if (!v || !whole_in(v, 0, 9007199254740992.0))
		return fail(ld, path, key, "must be a non-negative integer");
	*out = (size_t)v->valuedouble;
	return 0;
}

/* Zeroed array of n elements; NULL for none. n is bounded by the file size cap. */
void *alloc_array(size_t n, size_t elem)
{
	void *p;

	if (n == 0)
		return NULL;
	if (n > SIZE_MAX / elem)
		abort(); /* unreachable: n counts elements of a parsed document */
	p = gb_xrealloc(NULL, n * elem);
	memset(p, 0, n * elem);
	return p;
}

/* [1.5, null, ...] -> doubles with null as NAN; absent -> none. */
int get_num_array(struct ld *ld, const cJSON *obj, const char *path, const char *key,
			 double **out, size_t *n)
{
	const cJSON *arr, *e;
	size_t i = 0;
	char sub[256];

	*out = NULL;
	if (get_arr(ld, obj, path, key, &arr, n))
		return -1;
	*out = alloc_array(*n, sizeof(double));
	cJSON_ArrayForEach(e, arr) {
		if (cJSON_IsNull(e)) {
			(*out)[i] = NAN;
		} else if (cJSON_IsNumber(e) && isfinite(e->valuedouble)) {
			(*out)[i] = e->valuedouble;
		} else {
			snprintf(sub, sizeof(sub), "%s[%zu]", key, i);
			return fail(ld, path, sub,
				    cJSON_IsNumber(e) ? "is out of the range of a double"
						      : "must be a number or null");
		}
		i++;
	}
	return 0;
}

/* [79, 48] -> whole numbers from 0 to 2^53; absent -> none. */
int get_count_array(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		    unsigned long long **out, size_t *n)
{
	const cJSON *arr, *e;
	size_t i = 0;
	char sub[256];

	*out = NULL;
	if (get_arr(ld, obj, path, key, &arr, n))
		return -1;
	*out = alloc_array(*n, sizeof(**out));
	cJSON_ArrayForEach(e, arr) {
		if (!whole_in(e, 0, 9007199254740992.0)) {
			snprintf(sub, sizeof(sub), "%s[%zu]", key, i);
			return fail(ld, path, sub, "must be a non-negative integer");
		}
		(*out)[i++] = (unsigned long long)e->valuedouble;
	}
	return 0;
}

/* ["a", "b"] -> owned strings; absent -> none. Frees *out's old entries first. */
int get_str_array(struct ld *ld, const cJSON *obj, const char *path, const char *key,
			 char ***out, size_t *n)
{
	const cJSON *arr, *e;
	size_t i = 0, count;
	char sub[256];

	if (get_arr(ld, obj, path, key, &arr, &count))
		return -1;
	/* check every entry before allocating, so a failure leaves *out consistent */
	cJSON_ArrayForEach(e, arr) {
		if (!cJSON_IsString(e)) {
			snprintf(sub, sizeof(sub), "%s[%zu]", key, i);
			return fail(ld, path, sub, "must be a string");
		}
		i++;
	}
	for (size_t j = 0; j < *n; j++)
		free((*out)[j]);
	free(*out);
	*out = alloc_array(count, sizeof(char *));
	*n = count;
	i = 0;
	cJSON_ArrayForEach(e, arr)
		(*out)[i++] = gb_strdup(e->valuestring);
	return 0;
}
