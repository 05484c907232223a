/* SPDX-License-Identifier: MIT */
/*
 * compare_words.c - what a compare says in words, the same in every format: the
 * class names, the findings' subjects, the gate's result and summary, one
 * row in a line. The writers (html.c, junit.c, prometheus.c) and
 * compare_print.c call down into it; it calls only format_util.c.
 */
#include "report/compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/compare_internal.h"
#include "report/format_util.h"

const char *const class_names[] = {
	[GB_CMP_UNCHANGED] = "unchanged", [GB_CMP_IMPROVEMENT] = "improvement",
	[GB_CMP_REGRESSION] = "regression", [GB_CMP_CHANGED] = "changed",
	[GB_CMP_ONLY_A] = "only_a",         [GB_CMP_ONLY_B] = "only_b",
};

const char *gb_cmp_class_name(enum gb_cmp_class c, bool different_models)
{
	if (different_models && c == GB_CMP_IMPROVEMENT)
		return "b_better";
	if (different_models && c == GB_CMP_REGRESSION)
		return "b_worse";
	return (size_t)c < GB_CMP_CLASS_COUNT ? class_names[c] : "unknown";
}

static const char *const missing_kind_names[] = {
	[GB_MISS_RUN] = "run",         [GB_MISS_NOT_RUN] = "not_run",
	[GB_MISS_BENCHMARK] = "benchmark", [GB_MISS_METRICS] = "metrics",
	[GB_MISS_GPU] = "gpu",
};

const char *gb_cmp_missing_kind_name(enum gb_cmp_missing_kind k)
{
	return (size_t)k < sizeof(missing_kind_names) / sizeof(missing_kind_names[0])
		       ? missing_kind_names[k]
		       : "unknown";
}

const char *gb_cmp_missing_subject(const struct gb_cmp_missing *m)
{
	if (m->bench)
		return m->bench;
	return m->kind == GB_MISS_GPU ? "gpu" : "run";
}

bool gb_compare_regressed(const struct gb_compare *c)
{
	return !c->different_models && c->count[GB_CMP_REGRESSION] > 0;
}

bool gb_compare_failed(const struct gb_compare *c)
{
	return gb_compare_regressed(c) || (c->n_missing > 0 && !c->allow_missing);
}

void gb_compare_summary_words(const struct gb_compare *c, char *buf, size_t len)
{
	size_t used = 0;

	static const char *const words[][2] = {
		[GB_CMP_UNCHANGED] = { "unchanged", "unchanged" },
		[GB_CMP_IMPROVEMENT] = { "improvement", "improvements" },
		[GB_CMP_REGRESSION] = { "regression", "regressions" },
		[GB_CMP_CHANGED] = { "changed (no direction)", "changed (no direction)" },
		[GB_CMP_ONLY_A] = { "only in A", "only in A" },
		[GB_CMP_ONLY_B] = { "only in B", "only in B" },
	};
	static const char *const cross_words[][2] = {
		{ "better in B", "better in B" },
		{ "worse in B", "worse in B" },
	};

	for (int k = 0; k < GB_CMP_CLASS_COUNT; k++) {
		const char *const *w = words[k];

		if (c->different_models && k == GB_CMP_IMPROVEMENT)
			w = cross_words[0];
		else if (c->different_models && k == GB_CMP_REGRESSION)
			w = cross_words[1];
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%zu %s", k ? ", " : "",
						 c->count[k], w[c->count[k] == 1 ? 0 : 1]);
	}
	if (c->n_na && used < len)
		used += (size_t)snprintf(buf + used, len - used, ", %zu not applicable", c->n_na);
	if (c->different_models && used < len)
		snprintf(buf + used, len - used, "; changes not gated");
}

/* "regression", "B incomplete", "regression, B incomplete" or "passed" */
const char *result_words(const struct gb_compare *c)
{
	bool reg = gb_compare_regressed(c);
	bool inc = c->n_missing > 0 && !c->allow_missing;

	if (reg && inc)
		return "regression, B incomplete";
	if (reg)
		return "regression";
	if (inc)
		return "B incomplete";
	return c->different_models ? "passed (side by side, not gated)" : "passed";
}

const char *gb_compare_result_words(const struct gb_compare *c)
{
	return result_words(c);
}

void gb_cmp_row_line(const struct gb_cmp_row *r, char *buf, size_t len)
{
	char va[48], vb[48], gpu[32];

	gb_fmt_human(va, sizeof(va), r->a.value);
	gb_fmt_human(vb, sizeof(vb), r->b.value);
	if (r->a.device >= 0 || r->b.device >= 0)
		snprintf(gpu, sizeof(gpu), "GPU %d", r->a.device >= 0 ? r->a.device : r->b.device);
	else
		snprintf(gpu, sizeof(gpu), "all GPUs");
	if (isfinite(r->change_pct))
		snprintf(buf, len, "%s %s on %s: %s -> %s %s (%+.1f%%)", r->bench, r->metric, gpu, va,
			 vb, r->unit ? r->unit : "", r->change_pct);
	else
		snprintf(buf, len, "%s %s on %s: %s -> %s %s", r->bench, r->metric, gpu, va, vb,
			 r->unit ? r->unit : "");
}
