/* SPDX-License-Identifier: MIT */
/*
 * run_fleet.h - `gpubench run` started by mpirun or srun with more than one
 * process: one rank per node runs the suite on its node's GPUs, and rank 0
 * writes one fleet report (report/fleet.h) with a row per node.
 *
 *   1. every rank joins the world and tells rank 0 its host, how many ranks
 *      share that host and whether its options were usable there;
 *   2. rank 0 decides and broadcasts: two ranks on one host would fight over
 *      the same GPUs, so the job stops with exit 2 and one line on rank 0;
 *      so does an option one node cannot use;
 *   3. rank 0 writes a provisional fleet report (no node arrived yet), so a
 *      job ended by another node's watchdog still leaves one; every rank
 *      runs the suite (its own watchdog, its own thresholds) and finishes
 *      its node report (kept beside -o with --node-reports);
 *   4. rank 0 writes the provisional report again with its own node in;
 *      neither is written when -o is "-" (one document on stdout);
 *   5. every report goes to rank 0 (point to point, with a deadline: --timeout
 *      after the later of the suite's expected end, counted from the go
 *      decision, and the node's own end, the same for every wait); rank 0
 *      merges them, each node labelled by its host; a rank whose report did
 *      not arrive or cannot be read is a node of status error naming its rank
 *      and host; rank 0 writes -o and prints the fleet summary;
 *   6. rank 0 broadcasts the fleet's exit code and every rank exits with it.
 *      When a rank did not answer, rank 0 writes the report and ends the job
 *      (MPI_Abort with that code) instead, so nothing hangs.
 */
#ifndef GPUBENCH_CMD_RUN_FLEET_H
#define GPUBENCH_CMD_RUN_FLEET_H

#include <stdbool.h>

#include "cmd.h"
#include "launcher.h"

/* How long joining and the first exchange may take, at most (--timeout may lower it). */
#define GB_FLEET_JOIN_S 120.0

/* Measure this node into run with the options in c: 0, or -1 after one error line. */
typedef int gb_fleet_measure_fn(struct gb_run *run, struct gb_common *c, void *user);

struct gb_fleet_cfg {
	const struct gb_launcher *launcher;
	struct gb_common *common; /* the user's options: -o is the fleet report */
	const char *host;	  /* this node's name (gb_launcher_hostname) */
	bool node_reports;	  /* keep each node's report beside -o */
	double timeout_s;	  /* how long node reports are waited for, past suite_s */
	double suite_s;		  /* how long the suite is expected to take on a node */
	int usage_rc;		  /* this rank's own option checks: 0, or the exit code */
	int argc;
	const char **argv;
	gb_fleet_measure_fn *measure;
	void *user;
};

/* Run as one rank of the fleet; returns the exit code every rank shares. */
int gb_run_fleet(const struct gb_fleet_cfg *cfg);

#endif
