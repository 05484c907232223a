/* SPDX-License-Identifier: MIT */
/*
 * mpi_world.h - the ranks of a run started by mpirun or srun: who we are,
 * which GPU is ours, and the few exchanges `gpubench nccl` needs (the NCCL
 * id from rank 0, a barrier, every rank's report at rank 0).
 *
 * Compiled with or without MPI. Without it (GPUBENCH_HAVE_MPI 0), or when
 * the launcher started one process, the world is one rank, every exchange
 * is a no-op and libmpi is never opened, so callers need no #if and a
 * single process needs no MPI installed.
 *
 * No wait here blocks forever: every exchange is a non-blocking MPI call
 * polled against a deadline (timeout_s), so a rank that died or hangs turns
 * into an error message naming what did not arrive, never a hung job. The
 * gather is point-to-point (one message per rank) rather than
 * MPI_Gather/Gatherv: a collective completes for all ranks or for none, so
 * on a timeout rank 0 could neither keep what did arrive nor say which rank
 * is missing.
 *
 * The launcher is detected by cmd/ (only cmd/ reads the environment) and
 * passed in as the number of processes it started.
 */
#ifndef GPUBENCH_BENCH_MPI_WORLD_H
#define GPUBENCH_BENCH_MPI_WORLD_H

#include <stdbool.h>
#include <stddef.h>

struct gb_mpi_world {
	int rank;
	int size;
	int local_rank; /* rank among the processes on this host: picks the GPU */
	int local_size;
	bool active;	  /* MPI was initialised here (size > 1) */
	double timeout_s; /* the longest any exchange waits */
	char host[128];
};

/* true when gpubench was built with MPI */
bool gb_mpi_built(void);

/*
 * The MPI whose mpi.h gpubench was built with, "Open MPI v4.1.4" (the
 * library itself is loaded only when a launcher starts several ranks, see
 * mpi_dl.h); NULL when built without MPI.
 */
const char *gb_mpi_built_version(void);

/* Whether MPI is up in this process (loaded, initialised, not finalized). */
bool gb_mpi_running(void);

/*
 * Join the world. launcher_size is the number of processes the launcher
 * says it started (0 or 1 when not launched by one): MPI is loaded
 * (gb_mpi_dl_load(NULL): the library cmd/ chose) and initialised only when
 * it is above 1 and gpubench was built with MPI; otherwise w is the
 * one-rank world. Local rank and size come from an all-gather of host
 * names polled against the deadline (MPI_Comm_split_type would block for
 * ever on a rank that never arrives). Returns 0, or -1 with one line in
 * err; when w->active is then true MPI is up and the caller should stop the
 * job with gb_mpi_abort() once it has reported.
 */
int gb_mpi_world_init(struct gb_mpi_world *w, int launcher_size, double timeout_s, char *err,
		      size_t errlen);

/*
 * The same, with this rank's host name given (NULL: gethostname()). cmd/
 * passes a name only for tests, where ranks on one machine pretend to be on
 * several nodes; local rank and size follow the names given.
 */
int gb_mpi_world_init_host(struct gb_mpi_world *w, int launcher_size, double timeout_s,
			   const char *host, char *err, size_t errlen);

/* Leave the world (MPI_Finalize when active). */
void gb_mpi_world_finalize(struct gb_mpi_world *w);

/* Stop every rank now (MPI_Abort with code) after an unrecoverable timeout. */
void gb_mpi_abort(const struct gb_mpi_world *w, int code);

/*
 * Stop the whole job after a failed exchange. A rank other than 0 first
 * gives rank 0 a moment (10 s, or the timeout if shorter) to write its
 * report and end the job itself: an abort from here would kill rank 0
 * mid-write. If rank 0 is the one that is gone, this aborts after the grace.
 */
void gb_mpi_stop_job(const struct gb_mpi_world *w, int code);

/*
 * Every rank gets rank 0's len bytes of buf. Waits up to twice the timeout
 * (rank 0 may first wait a whole timeout for a gather). 0, or -1 with one
 * line in err.
 */
int gb_mpi_bcast(const struct gb_mpi_world *w, void *buf, size_t len, const char *what, char *err,
		 size_t errlen);

/* Wait until every rank has arrived. 0, or -1 with one line in err. */
int gb_mpi_barrier(const struct gb_mpi_world *w, const char *what, char *err, size_t errlen);

/* What rank 0 holds after a gather: one part per rank. */
struct gb_mpi_parts {
	int n;
	char **data; /* data[r]: rank r's bytes, NUL-terminated; NULL if it did not arrive */
	size_t *len;
	bool *arrived;
};

/*
 * Send len bytes to rank 0. On rank 0 fill parts (parts->data[0] is a copy
 * of its own bytes) and wait at most timeout_s for the others. Returns 0
 * when everything arrived; on rank 0, 1 when some ranks did not answer in
 * time (parts->arrived says which; what arrived is kept); -1 with one line
 * in err on an MPI error, or on another rank when rank 0 did not take its
 * bytes in time. tag tells apart the gathers of one run.
 */
int gb_mpi_gather(const struct gb_mpi_world *w, int tag, const void *mine, size_t len,
		  struct gb_mpi_parts *parts, char *err, size_t errlen);
void gb_mpi_parts_free(struct gb_mpi_parts *parts);

#endif
