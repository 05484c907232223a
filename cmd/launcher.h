/* SPDX-License-Identifier: MIT */
/*
 * launcher.h - whether mpirun or srun started this process, from the
 * environment (only cmd/ reads it), and the small things every command that
 * runs as one rank of many needs: this node's name, and keeping ranks other
 * than 0 quiet while they would repeat rank 0's messages.
 *
 * Used by `gpubench nccl` (one rank per GPU) and `gpubench run` (one rank
 * per node, a fleet report at rank 0).
 */
#ifndef GPUBENCH_CMD_LAUNCHER_H
#define GPUBENCH_CMD_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>

struct gb_launcher {
	int size;	  /* processes it started; 0 when not started by one */
	int rank;	  /* this process's rank as the launcher numbers it */
	const char *name; /* "mpirun (Open MPI)", "a PMI launcher", "srun"; NULL if none */
};

/*
 * Open MPI's mpirun, PMI launchers (MPICH, Intel MPI, srun --mpi=pmi2) and
 * Slurm's srun, in that order of preference.
 */
void gb_launcher_detect(struct gb_launcher *l);

/*
 * This node's name for fleet reports: the host name; in gpubench-sim the
 * machine file's "hostname" when it has one (docs/simulation.md), so ranks
 * on one machine, each with its own machine file, act as different nodes.
 */
void gb_launcher_hostname(char *buf, size_t len);

/* Where stdout and stderr went before gb_launcher_mute(). */
struct gb_muted {
	int out, err;
};

/* Send stdout and stderr to /dev/null (when on) until gb_launcher_unmute(). */
void gb_launcher_mute(struct gb_muted *m, bool on);
void gb_launcher_unmute(struct gb_muted *m);

#endif
