/* SPDX-License-Identifier: MIT */
/*
 * fleet.h - many nodes' reports merged into one fleet report, with the
 * GPUs or nodes that stand out from the rest marked (CPU only).
 *
 * The result is an ordinary gpubench report with command "fleet", so every
 * format, compare and the schema work on it unchanged:
 *   - devices: every node's GPUs, renumbered 0..N-1 in input order;
 *   - benchmarks: one per benchmark name and parameters (the compare key, see
 *     compare.h), holding every node's metrics (device renumbered, the node
 *     named in the metric's description), series and checks (the message
 *     prefixed with the node); its status is the worst of the nodes';
 *   - a first benchmark "fleet" whose extra.nodes lists each node (host,
 *     file, verdict, its GPUs' new indices);
 *   - per metric and GPU model: the median and MAD across the fleet in the
 *     benchmark's extra.fleet, and one check per outlier, a value more than
 *     mad_k MADs from the median (the MAD is floored at 1% of the median, so
 *     identical nodes do not make noise an outlier). An outlier on the bad
 *     side fails; one on the good side warns (is it measuring the same
 *     thing?). Groups of fewer than 3 values have no median to stand out from.
 *   - telemetry of every node, device renumbered.
 */
#ifndef GPUBENCH_REPORT_FLEET_H
#define GPUBENCH_REPORT_FLEET_H

#include <stddef.h>

#include "result.h"

#define GB_FLEET_MAD_K 3.0

/*
 * Merge runs[0..n) (labelled names[i], their file names) into out, which the
 * caller has set up with gb_run_init(out, "fleet", ...). Returns 0, or -1
 * with one line in err (no reports given).
 */
int gb_fleet_merge(const struct gb_run *const *runs, const char *const *names, size_t n,
		   double mad_k, struct gb_run *out, char *err, size_t errlen);

#endif
