/* SPDX-License-Identifier: MIT */
/*
 * metric_directions.h - the one table that says, for every metric a
 * benchmark writes, which way is better (higher, lower, or none: an
 * observation) and whether it is a throughput (CPU only).
 *
 * Why one table: the direction decides what `compare` gates. Written at
 * each call site it drifted (stress's GEMM count read "lower is better";
 * sm_mhz_mean was "higher" in stress and "none" in gemm). The table wins
 * over what a benchmark passes to gb_bench_add_metric/value, and compare
 * applies it to saved reports too, so a baseline written by an older build
 * is judged by today's rules.
 *
 * An observation (GB_BETTER_NONE) is something a run may or may not see:
 * telemetry (clocks, power, temperature, throttling), fits that need
 * enough usable sizes, a settled window that may hold too few intervals.
 * compare lists its changes but never gates on it, and its absence never
 * makes B incomplete.
 *
 * docs/report-format.md ("Metric directions") lists the same rows in the
 * same order; test_metric_directions checks that they agree, and the sim
 * test sim_gate_metric_directions runs every benchmark on every shipped
 * machine and fails on a metric no row matches.
 */
#ifndef GPUBENCH_REPORT_METRIC_DIRECTIONS_H
#define GPUBENCH_REPORT_METRIC_DIRECTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "report/better.h"

struct gb_metric_direction {
	const char *bench;   /* the benchmark's name ("gemm") */
	const char *pattern; /* a shell glob over the metric's name ("tflops_*") */
	enum gb_better better;
	bool throughput;     /* work per time: per watt and per dollar mean something */
	const char *why;     /* one line for the docs */
};

/* The rows, first match wins; *n is set to their count. */
const struct gb_metric_direction *gb_metric_directions(size_t *n);

/* The row for bench's metric, or NULL when the table does not know it. */
const struct gb_metric_direction *gb_metric_direction_find(const char *bench, const char *metric);

/* The table's direction for the metric, else fallback (a metric the table does not know). */
enum gb_better gb_metric_better(const char *bench, const char *metric, enum gb_better fallback);

/*
 * Whether per watt and per dollar apply: the table's word, else (a metric
 * it does not know) a unit that is a rate ("TFLOP/s", "GB/s") and a
 * direction of higher.
 */
bool gb_metric_is_throughput(const char *bench, const char *metric, const char *unit,
			     enum gb_better better);

#endif
