/* SPDX-License-Identifier: MIT */
/*
 * compare_key.c - the match key of compare and of the fleet merge: which parameters
 * decide what is measured, and the canonical "k=v,..." key of the rest; and
 * the growable string it is built with. Uses cJSON and result.h only.
 */
#include "report/compare_key.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/compare_internal.h"
#include "report/result.h"

/* ---- a growable string ---- */

void sb_add(struct sbuf *b, const char *s)
{
	size_t len = strlen(s);

	if (b->n + len + 1 > b->cap) {
		b->cap = (b->n + len + 1) * 2;
		b->s = gb_xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, len + 1);
	b->n += len;
}

char *sb_take(struct sbuf *b)
{
	return b->s ? b->s : gb_strdup("");
}

/* ---- the match key ---- */

/* a key ending in suffix */
static bool ends_with(const char *key, const char *suffix)
{
	size_t len = strlen(key), n = strlen(suffix);

	return len > n && !strcmp(key + len - n, suffix);
}

/* gb_param_ignored, with the software versions left in the key or not */
static bool param_ignored(const char *key, bool keep_versions)
{
	/* how long or how often */
	static const char *const prefixes[] = { "duration", "warmup", "iterations", "iters",
						"samples",  "repeat", "runs",       "seed",
						"timeout" };
	/*
	 * How the numbers were taken, written down for the reader: texts that a
	 * new gpubench may word differently, and choices the library version or
	 * the memory made (nccl's launch and alltoall, gemm's rotation). In the
	 * key they would make a baseline from an older build match nothing.
	 */
	static const char *const method[] = { "layout",    "data",          "flop_count",
					      "rotation",  "rotating_copies", "rotation_bytes",
					      "timing",    "launch",        "alltoall",
					      "statistic", "allreduce" };
	/*
	 * What a run measured rather than what the user configured: scaling's
	 * calibration (in extra.sizing since, but in params of older reports,
	 * where 808 GEMMs a step against 807 made every row a different test).
	 */
	static const char *const measured[] = { "gemms_per_step", "work_tflop_per_step" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(key, prefixes[i], strlen(prefixes[i])))
			return true;
	for (size_t i = 0; i < sizeof(method) / sizeof(method[0]); i++)
		if (!strcmp(key, method[i]))
			return true;
	for (size_t i = 0; i < sizeof(measured) / sizeof(measured[0]); i++)
		if (!strcmp(key, measured[i]))
			return true;
	/* the software measured with (compare says when it differs, software.h) and notes */
	return ends_with(key, "_s") || ends_with(key, "_ms") ||
	       (!keep_versions && ends_with(key, "_version")) || ends_with(key, "_note");
}

bool gb_param_ignored(const char *key)
{
	return param_ignored(key, false);
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static char *param_value(const cJSON *v)
{
	char *printed, *copy;

	if (cJSON_IsString(v))
		return gb_strdup(v->valuestring);
	if (cJSON_IsNumber(v))
		return gb_strdupf("%.15g", v->valuedouble);
	printed = cJSON_PrintUnformatted(v);
	copy = gb_strdup(printed ? printed : "null");
	cJSON_free(printed);
	return copy;
}

static char *params_key(const struct cJSON *params, bool keep_versions)
{
	const cJSON *e;
	const char **keys = NULL;
	size_t n = 0;
	struct sbuf sb = { NULL, 0, 0 };

	cJSON_ArrayForEach(e, params) {
		if (!e->string || param_ignored(e->string, keep_versions))
			continue;
		keys = gb_xrealloc(keys, sizeof(*keys) * (n + 1));
		keys[n++] = e->string;
	}
	/* sorted, so the order a benchmark wrote them in does not matter */
	if (n)
		qsort(keys, n, sizeof(*keys), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char *v = param_value(cJSON_GetObjectItemCaseSensitive(params, keys[i]));

		if (i)
			sb_add(&sb, ",");
		sb_add(&sb, keys[i]);
		sb_add(&sb, "=");
		sb_add(&sb, v);
		free(v);
	}
	free(keys);
	return sb_take(&sb);
}

char *gb_params_key(const struct cJSON *params)
{
	return params_key(params, false);
}

char *gb_params_key_versioned(const struct cJSON *params)
{
	return params_key(params, true);
}
