/* SPDX-License-Identifier: MIT */
/*
 * compare_internal.h - what the compare files (compare.c, compare_key.c,
 * compare_tolerance.c, compare_words.c, compare_print.c) share and nobody
 * else uses.
 */
#ifndef GPUBENCH_REPORT_COMPARE_INTERNAL_H
#define GPUBENCH_REPORT_COMPARE_INTERNAL_H

#include <stddef.h>

#include "report/compare_tolerance.h"

struct gb_compare;

/* ---- a growable string (compare_key.c) ---- */

struct sbuf {
	char *s;
	size_t n, cap;
};

void sb_add(struct sbuf *b, const char *s);
char *sb_take(struct sbuf *b);

/* the tolerance that applies to bench/metric (compare_tolerance.c) */
double tolerance_for(const struct gb_compare_opts *o, const char *bench, const char *metric);

/* "unchanged", "improvement", ... indexed by enum gb_cmp_class (compare_words.c) */
extern const char *const class_names[];

/* "regression", "B incomplete", "regression, B incomplete" or "passed" (compare_words.c) */
const char *result_words(const struct gb_compare *c);

#endif
