/* SPDX-License-Identifier: MIT */
/*
 * thresholds_file.c - the --thresholds file: parsing and checking the JSON
 * document (rules, spread, the stress section) into gb_thresholds, with one
 * error line naming the file and the path of what is wrong. The rules
 * themselves and applying them are in thresholds.c. Uses report/units.h's
 * percent parser and bench/stress/stress_math.h's stress limits (arrows up a
 * layer, left as they were).
 */
#include "thresholds.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/stress_thresholds.h"
#include "report/units.h"
#include "report/thresholds_internal.h"

#define THRESHOLDS_MAX_BYTES ((size_t)1 << 20)

/* ------------------------------------------------------------------------ */
/* the thresholds file                                                      */

struct tf {
	const char *name;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4))) static int tf_fail(struct tf *f, const char *path,
							 const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(f->err, f->errlen, "'%s': %s%s%s", f->name, path, *path ? " " : "", what);
	gb_str_printable(f->err);
	return -1;
}

/* "80%" or 0.8 -> 0.8 */
static int get_fraction(struct tf *f, const cJSON *v, const char *path, double lo, double hi,
			double *out)
{
	double x = NAN;

	if (cJSON_IsNumber(v))
		x = v->valuedouble;
	else if (cJSON_IsString(v) && gb_parse_percent(v->valuestring, &x))
		x = NAN;
	if (!isfinite(x) || x < lo || x > hi)
		return tf_fail(f, path,
			       "must be a fraction from %g to %g (0.8) or a percentage (\"80%%\")",
			       lo, hi);
	*out = x;
	return 0;
}

static int get_number(struct tf *f, const cJSON *v, const char *path, double *out)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return tf_fail(f, path, "must be a number");
	*out = v->valuedouble;
	return 0;
}

static int get_string(struct tf *f, const cJSON *v, const char *path, char **out)
{
	if (!cJSON_IsString(v) || !v->valuestring[0])
		return tf_fail(f, path, "must be a non-empty string");
	*out = gb_strdup(v->valuestring);
	return 0;
}

/* Keys outside the list are errors: a misspelt "min_efficency" must not pass unnoticed. */
static int known_keys(struct tf *f, const cJSON *obj, const char *path,
		      const char *const *keys, const char *list)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, obj) {
		bool ok = false;

		for (size_t i = 0; keys[i] && !ok; i++)
			ok = !strcmp(keys[i], e->string);
		if (!ok)
			return tf_fail(f, path, "has an unknown key '%.64s' (expected %s)", e->string,
				       list);
	}
	return 0;
}

static int rule_enum_fields(struct tf *f, const cJSON *o, const char *path,
			    struct gb_threshold *r)
{
	const cJSON *v;
	char sub[96];
	int k;

	v = cJSON_GetObjectItemCaseSensitive(o, "peak");
	if (v) {
		snprintf(sub, sizeof(sub), "%s.peak", path);
		k = cJSON_IsString(v) ? gb_peak_kind_from_name(v->valuestring) : -1;
		if (k < 0)
			return tf_fail(f, sub, "must be one of auto, metric, tflops, memory, pcie, "
					       "nvlink, pcie_gen, pcie_width");
		r->peak = (enum gb_peak_kind)k;
	}
	v = cJSON_GetObjectItemCaseSensitive(o, "severity");
	if (v) {
		snprintf(sub, sizeof(sub), "%s.severity", path);
		if (!cJSON_IsString(v) ||
		    (strcmp(v->valuestring, "error") && strcmp(v->valuestring, "warning")))
			return tf_fail(f, sub, "must be \"error\" or \"warning\"");
		r->severity = strcmp(v->valuestring, "error") ? GB_SEV_WARNING : GB_SEV_ERROR;
	}
	v = cJSON_GetObjectItemCaseSensitive(o, "link");
	if (v) {
		snprintf(sub, sizeof(sub), "%s.link", path);
		k = -1;
		for (int i = 0; cJSON_IsString(v) && link_class_names[i]; i++)
			if (!strcmp(link_class_names[i], v->valuestring))
				k = i;
		if (k < 0)
			return tf_fail(f, sub, "must be one of any, nvlink, pcie, pcie_host");
		r->link = (enum gb_link_class)k;
	}
	v = cJSON_GetObjectItemCaseSensitive(o, "off");
	if (v) {
		snprintf(sub, sizeof(sub), "%s.off", path);
		if (!cJSON_IsBool(v))
			return tf_fail(f, sub, "must be true or false");
		r->off = cJSON_IsTrue(v);
	}
	return 0;
}

static int rule_limits(struct tf *f, const cJSON *o, const char *path, struct gb_threshold *r)
{
	const cJSON *v;
	char sub[96];

	v = cJSON_GetObjectItemCaseSensitive(o, "min_efficiency");
	snprintf(sub, sizeof(sub), "%s.min_efficiency", path);
	if (v && get_fraction(f, v, sub, 0, 2, &r->min_efficiency))
		return -1;
	v = cJSON_GetObjectItemCaseSensitive(o, "min_value");
	snprintf(sub, sizeof(sub), "%s.min_value", path);
	if (v && get_number(f, v, sub, &r->min_value))
		return -1;
	v = cJSON_GetObjectItemCaseSensitive(o, "max_value");
	snprintf(sub, sizeof(sub), "%s.max_value", path);
	if (v && get_number(f, v, sub, &r->max_value))
		return -1;
	if (!r->off && !isfinite(r->min_efficiency) && !isfinite(r->min_value) &&
	    !isfinite(r->max_value))
		return tf_fail(f, path, "sets no limit: give min_efficiency, min_value, max_value "
					"or \"off\": true");
	return 0;
}

static int parse_rule(struct tf *f, const cJSON *o, size_t i, struct gb_threshold *r)
{
	static const char *const keys[] = { "metric",    "benchmark", "min_efficiency",
					    "min_value", "max_value", "peak",
					    "severity",  "off",       "description",
					    "link",      NULL };
	const cJSON *v;
	char path[64], sub[96];

	snprintf(path, sizeof(path), "thresholds[%zu]", i);
	if (!cJSON_IsObject(o))
		return tf_fail(f, path, "must be an object");
	if (known_keys(f, o, path, keys,
		       "metric, benchmark, min_efficiency, min_value, max_value, peak, severity, "
		       "off, description, link"))
		return -1;
	snprintf(sub, sizeof(sub), "%s.metric", path);
	if (get_string(f, cJSON_GetObjectItemCaseSensitive(o, "metric"), sub, &r->metric))
		return -1;
	v = cJSON_GetObjectItemCaseSensitive(o, "benchmark");
	snprintf(sub, sizeof(sub), "%s.benchmark", path);
	if (v && get_string(f, v, sub, &r->bench))
		return -1;
	if (rule_enum_fields(f, o, path, r) || rule_limits(f, o, path, r))
		return -1;
	return 0;
}

/* "same_model_max_spread": 0.1, "10%", or null/false for off */
static int parse_spread(struct tf *f, const cJSON *doc, double *spread)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "same_model_max_spread");

	if (!v)
		return 0;
	if (cJSON_IsNull(v) || cJSON_IsFalse(v)) {
		*spread = NAN;
		return 0;
	}
	return get_fraction(f, v, "same_model_max_spread", 0, 1, spread);
}

static int check_doc_schema(struct tf *f, const cJSON *doc)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "schema");

	if (!v)
		return 0;
	if (!cJSON_IsString(v) || strncmp(v->valuestring, "gpubench.thresholds/", 20))
		return tf_fail(f, "schema", "must be \"%s\"", GB_THRESHOLDS_SCHEMA);
	if (strcmp(v->valuestring, GB_THRESHOLDS_SCHEMA))
		return tf_fail(f, "schema", "'%.64s' is newer than this gpubench understands (%s)",
			       v->valuestring, GB_THRESHOLDS_SCHEMA);
	return 0;
}

/* Parse every rule into a fresh list; t is touched only when all of them are good. */
static int parse_rules(struct tf *f, const cJSON *arr, struct gb_thresholds *tmp)
{
	const cJSON *e;
	size_t i = 0;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return tf_fail(f, "thresholds", "must be an array of rules");
	cJSON_ArrayForEach(e, arr) {
		if (parse_rule(f, e, i++, push_rule(tmp)))
			return -1;
	}
	return 0;
}

/* tmp's rules, then t's: the file's rules are matched first */
static void splice_ahead(struct gb_thresholds *t, struct gb_thresholds *tmp)
{
	for (size_t i = 0; i < t->n; i++)
		*push_rule(tmp) = t->rules[i];
	free(t->rules);
	t->rules = tmp->rules;
	t->n = tmp->n;
	t->cap = tmp->cap;
	tmp->rules = NULL;
	tmp->n = tmp->cap = 0;
}

/*
 * "stress": {"temp_limit_c": 83, ...}: the stress benchmark's own limits, so
 * one file serves `run` and `stress` alike. Checked here too, so a typo in
 * it stops `run` before anything is measured.
 */
static int check_stress_section(struct tf *f, const cJSON *doc)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "stress");
	struct gb_stress_thresholds th;
	char why[256];
	char *text;
	int rc;

	if (!v)
		return 0;
	if (!cJSON_IsObject(v))
		return tf_fail(f, "stress", "must be an object like {\"temp_limit_c\": 83}");
	text = cJSON_PrintUnformatted(v);
	gb_stress_thresholds_default(&th);
	rc = gb_stress_thresholds_parse(text, &th, why, sizeof(why));
	cJSON_free(text);
	return rc ? tf_fail(f, "stress:", "%s", why) : 0;
}

int gb_thresholds_from_json(struct gb_thresholds *t, const struct cJSON *doc, const char *name,
			    char *err, size_t errlen)
{
	static const char *const keys[] = { "schema",	  "description", "same_model_max_spread",
					    "thresholds", "stress",	 NULL };
	struct tf f = { name, err, errlen };
	struct gb_thresholds tmp;
	double spread = t->same_model_spread;
	char *source;

	memset(&tmp, 0, sizeof(tmp));
	if (!cJSON_IsObject(doc))
		return tf_fail(&f, "", "must hold a JSON object with a \"thresholds\" array");
	if (known_keys(&f, doc, "", keys,
		       "schema, description, same_model_max_spread, thresholds, stress") ||
	    check_doc_schema(&f, doc) || check_stress_section(&f, doc) ||
	    parse_spread(&f, doc, &spread) ||
	    parse_rules(&f, cJSON_GetObjectItemCaseSensitive(doc, "thresholds"), &tmp)) {
		free_rules(tmp.rules, tmp.n);
		return -1;
	}
	splice_ahead(t, &tmp);
	t->same_model_spread = spread;
	source = gb_strdupf("%s + '%s'", t->source ? t->source : "no built-ins", name);
	free(t->source);
	t->source = source;
	return 0;
}

/* The whole file, NUL-terminated; capped, since a thresholds file is small. */
static char *slurp(const char *path, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	size_t n;

	if (!fp) {
		snprintf(err, errlen, "cannot read thresholds file '%s': %s", path,
			 strerror(errno));
		return NULL;
	}
	buf = gb_xrealloc(NULL, THRESHOLDS_MAX_BYTES + 1);
	n = fread(buf, 1, THRESHOLDS_MAX_BYTES + 1, fp);
	if (ferror(fp) || n > THRESHOLDS_MAX_BYTES) {
		snprintf(err, errlen, "cannot read thresholds file '%s': %s", path,
			 ferror(fp) ? strerror(errno) : "larger than 1 MiB");
		fclose(fp);
		free(buf);
		return NULL;
	}
	fclose(fp);
	buf[n] = '\0';
	return buf;
}

/* 1-based line of position p in text, for "not valid JSON (line 3)" */
static size_t line_of(const char *text, const char *p)
{
	size_t line = 1;

	for (const char *s = text; p && s < p && *s; s++)
		line += *s == '\n';
	return line;
}

int gb_thresholds_load_file(struct gb_thresholds *t, const char *path, char *err, size_t errlen)
{
	char *text = slurp(path, err, errlen);
	const char *end = NULL;
	cJSON *doc;
	int rc;

	if (!text)
		return -1;
	doc = cJSON_ParseWithOpts(text, &end, 1);
	if (!doc) {
		snprintf(err, errlen, "'%s' is not valid JSON (line %zu)", path,
			 line_of(text, cJSON_GetErrorPtr()));
		free(text);
		return -1;
	}
	rc = gb_thresholds_from_json(t, doc, path, err, errlen);
	cJSON_Delete(doc);
	free(text);
	return rc;
}
