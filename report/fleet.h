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
 *
 * A node whose run could not finish (run status error, not_built or
 * interrupted: no GPU, a hang, a node that never reported) is never lost in
 * the fleet's verdict: its node entry carries its status and reason, a
 * check "node_status" with that status names it on the fleet benchmark, and
 * the fleet benchmark's status is the worst of them, so the verdict is at
 * least that (a finding elsewhere still outranks it, as in result.h).
 *
 * The same node merged twice would count twice toward every median and
 * could hide itself as an outlier, so each node is merged once: a report
 * that holds a GPU UUID an earlier report holds, or has the same hostname
 * and the same set of GPUs (a report given twice, also one of no GPUs), is
 * left out, and a warning check "duplicate_node" on the fleet benchmark
 * names both files (so the verdict is at least a warning). The first report
 * of a node wins.
 */
#ifndef GPUBENCH_REPORT_FLEET_H
#define GPUBENCH_REPORT_FLEET_H

#include <stddef.h>

#include "result.h"

#define GB_FLEET_MAD_K 3.0

/*
 * Set out up as a fleet report whose command line is "gpubench" and argv
 * (the command's own arguments, e.g. "report --merge a.json b.json").
 */
void gb_fleet_run_init(struct gb_run *out, int argc, const char *const *argv);

/*
 * Merge runs[0..n) (labelled names[i], their file names) into out, which the
 * caller has set up with gb_fleet_run_init(). Returns 0, or -1
 * with one line in err (no reports given; simulated reports mixed with
 * measured ones). The merged report is simulated when its nodes are.
 */
int gb_fleet_merge(const struct gb_run *const *runs, const char *const *names, size_t n,
		   double mad_k, struct gb_run *out, char *err, size_t errlen);

/*
 * A node whose report never reached the fleet (`gpubench run` under mpirun:
 * a rank that stopped, hangs, or sent something unreadable), as a report to
 * merge: command "run", hostname host (NULL: "unknown"), status error with
 * a reason that names the rank and host. why says what went wrong; NULL
 * means the report did not arrive within waited_s. node is initialised
 * here; release it with gb_run_release.
 */
void gb_fleet_missing_node(struct gb_run *node, int rank, const char *host, double waited_s,
			   const char *why);

/*
 * The node report kept beside the fleet report: "out/fleet.json" and host
 * "node-3" give "out/fleet.node-3.json" (a trailing ".json" is taken off
 * output first, and every character of host other than letters, digits,
 * '.', '-' and '_' becomes '_', so a host name cannot leave the folder).
 * Returns 0, or -1 when it does not fit in len.
 */
int gb_fleet_node_report_path(char *buf, size_t len, const char *output, const char *host);

/* One node of a fleet report, as the renderings show it. */
struct gb_fleet_node {
	const char *host;    /* borrowed from the report; "?" when missing */
	const char *file;
	const char *verdict;
	int *devices;        /* the node's GPUs, as indices of the fleet report (owned) */
	size_t n_devices;
	size_t failed;       /* failed checks on its GPUs or naming it */
	size_t warnings;     /* warning checks the same way */
};

/*
 * The nodes of a fleet report (extra.nodes of its "fleet" benchmark) with
 * their failed and warning checks; NULL with *n = 0 when run is not a fleet
 * report. Release with gb_fleet_nodes_free.
 */
struct gb_fleet_node *gb_fleet_nodes(const struct gb_run *run, size_t *n);
void gb_fleet_nodes_free(struct gb_fleet_node *nodes, size_t n);
/* The host of fleet GPU device, NULL when no node holds it. */
const char *gb_fleet_node_of(const struct gb_fleet_node *nodes, size_t n, int device);
/* "0-3,6" for a list of indices into buf */
void gb_fleet_device_list(char *buf, size_t len, const int *devices, size_t n);

#endif
