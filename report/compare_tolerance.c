/* SPDX-License-Identifier: MIT */
/*
 * compare_tolerance.c - the per-metric tolerances of compare: parsing "tflops_*=3%,..."
 * and the tolerance that applies to one metric. Uses report/units.h's percent
 * parser (an arrow up a layer, left as it was).
 */
#include "report/compare_tolerance.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/units.h"
#include "report/compare_internal.h"
#include "report/result.h"

/* ---- tolerances ---- */

void gb_tolerance_rules_free(struct gb_tolerance_rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rules[i].pattern);
	free(rules);
}

static char *trimmed(const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return gb_strdupf("%.*s", (int)len, s);
}

static int parse_rule(const char *item, size_t len, struct gb_tolerance_rule *r, char *err,
		      size_t errlen)
{
	char *text = trimmed(item, len);
	char *eq = strchr(text, '=');
	char *value;
	double f;

	r->pattern = NULL;
	if (!eq || eq == text) {
		snprintf(err, errlen, "cannot parse '%s' as a metric tolerance: expected "
				      "NAME=PERCENT like 'tflops_*=3%%'", text);
		free(text);
		return -1;
	}
	value = trimmed(eq + 1, strlen(eq + 1));
	if (gb_parse_percent(value, &f) || f < 0) {
		snprintf(err, errlen, "cannot parse '%s' in '%s' as a percentage like 3%%", value,
			 text);
		free(value);
		free(text);
		return -1;
	}
	r->pattern = trimmed(text, (size_t)(eq - text));
	r->fraction = f;
	free(value);
	free(text);
	return 0;
}

int gb_tolerance_rules_parse(const char *spec, struct gb_tolerance_rule **rules, size_t *n,
			     char *err, size_t errlen)
{
	const char *p = spec;

	*rules = NULL;
	*n = 0;
	while (p && *p) {
		size_t len = strcspn(p, ",");

		*rules = gb_xrealloc(*rules, sizeof(**rules) * (*n + 1));
		if (parse_rule(p, len, &(*rules)[*n], err, errlen)) {
			gb_tolerance_rules_free(*rules, *n);
			*rules = NULL;
			*n = 0;
			return -1;
		}
		(*n)++;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

double tolerance_for(const struct gb_compare_opts *o, const char *bench,
			    const char *metric)
{
	char *full = gb_strdupf("%s/%s", bench, metric);
	double tol = o->tolerance;

	for (size_t i = 0; i < o->n_rules; i++) {
		const char *subject = strchr(o->rules[i].pattern, '/') ? full : metric;

		if (!fnmatch(o->rules[i].pattern, subject, 0)) {
			tol = o->rules[i].fraction;
			break;
		}
	}
	free(full);
	return tol;
}
