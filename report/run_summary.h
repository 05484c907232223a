/* SPDX-License-Identifier: MIT */
/*
 * run_summary.h - the last screen of `gpubench run` (CPU only): how many
 * steps ran, how many checks passed, failed and were skipped, and the
 * failures grouped by cause, so that one slow GPU reads as one line ("GPU 1
 * is 15% slower than its peers: 37 checks") and not as 37.
 */
#ifndef GPUBENCH_REPORT_RUN_SUMMARY_H
#define GPUBENCH_REPORT_RUN_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "result.h"

struct gb_run_tally {
	/* benchmarks (steps_failed: failed or could not run), and the checks of all of them */
	size_t steps, steps_passed, steps_failed, steps_skipped;
	size_t passed, failed, skipped, warnings;
};

void gb_run_tally(const struct gb_run *run, struct gb_run_tally *t);

/*
 * Whether a failed check is about throughput (speed against a peak or
 * against other GPUs): *_efficiency, *_same_model and the peer comparisons.
 */
bool gb_check_is_throughput(const char *name);

/*
 * The lines before run's verdict: "steps: ...", "checks: ...", then, when
 * something failed, "failed, by cause:" and one line per cause: per GPU,
 * its throughput failures as one line (slower than its peers by the median
 * of its same-model shortfalls, or below its peaks), every other kind of
 * check as one line each; then the steps that could not run.
 */
void gb_run_summary_print(const struct gb_run *run, FILE *out);

#endif
