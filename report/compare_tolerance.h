/* SPDX-License-Identifier: MIT */
/*
 * compare_tolerance.h - compare's options and the per-metric tolerances
 * (compare_tolerance.c), below compare.h, which includes this.
 */
#ifndef GPUBENCH_REPORT_COMPARE_TOLERANCE_H
#define GPUBENCH_REPORT_COMPARE_TOLERANCE_H

#include <stdbool.h>
#include <stddef.h>

/* A per-metric tolerance: a glob over the metric name, or "bench/metric" when it has a '/'. */
struct gb_tolerance_rule {
	char *pattern;
	double fraction;
};

struct gb_compare_opts {
	double tolerance;                      /* fraction of A; default 0.05 */
	const struct gb_tolerance_rule *rules; /* first match wins over tolerance */
	size_t n_rules;
	double spread_k;                       /* default 2 */
	double price_a, price_b;               /* $ per GPU-hour; NAN when not given */
	bool allow_missing;                    /* B incomplete is listed, not failed */
};

/*
 * Parse "tflops_*=3%,gemm/time_*=10%" into rules (percentages need '%').
 * Returns 0, or -1 with one line in err naming the bad entry.
 */
int gb_tolerance_rules_parse(const char *spec, struct gb_tolerance_rule **rules, size_t *n,
			     char *err, size_t errlen);
void gb_tolerance_rules_free(struct gb_tolerance_rule *rules, size_t n);

#endif
