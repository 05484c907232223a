/* SPDX-License-Identifier: MIT */
/*
 * thresholds_internal.h - what thresholds.c shares with thresholds_file.c
 * and nobody else uses: the growable rule list and the link class names.
 */
#ifndef GPUBENCH_REPORT_THRESHOLDS_INTERNAL_H
#define GPUBENCH_REPORT_THRESHOLDS_INTERNAL_H

#include <stddef.h>

#include "report/thresholds.h"

/* a new rule at the end of t's list: no limits (NAN), severity error */
struct gb_threshold *push_rule(struct gb_thresholds *t);
void free_rules(struct gb_threshold *rules, size_t n);
/* "any", "nvlink", "pcie", "pcie_host", NULL: indexed by enum gb_link_class */
extern const char *const link_class_names[];

#endif
