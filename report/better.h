/* SPDX-License-Identifier: MIT */
/*
 * better.h - which way a metric is better, on its own so that the table of
 * directions (metric_directions.h) can name it without including result.h,
 * whose result.c calls that table. Types only; no .c file.
 */
#ifndef GPUBENCH_REPORT_BETTER_H
#define GPUBENCH_REPORT_BETTER_H

enum gb_better { GB_BETTER_NONE = 0, GB_BETTER_HIGHER, GB_BETTER_LOWER };

#endif
