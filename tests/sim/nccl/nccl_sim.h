/* SPDX-License-Identifier: MIT */
/*
 * nccl_sim.h - the simulated libnccl.so.2: internal interface of its files.
 *
 *   comm.c    unique ids, communicators (init, split, finalize, destroy,
 *             abort, revoke), their asynchronous state, errors, groups,
 *             and the leak report at exit
 *   coll.c    the collectives and send/receive: argument checks, the work
 *             queued on the rank's stream, the rendezvous of the ranks'
 *             stream workers, and the data movement
 *   reduce.c  element arithmetic of every NCCL type and operator
 *   cost.c    the simulated duration of an operation (the cost model)
 *   fault.c   the machine file's nccl_wrong and nccl_hang faults
 *
 *   xproc.c   the ranks of one communicator in several processes: the
 *             segment of POSIX shared memory each unique id names
 *
 * One simulated GPU per rank. The ranks of a communicator may be in one
 * process (one thread or several) or in several processes on one host
 * (`mpirun -np 2 gpubench-sim nccl`): every communicator made from a unique
 * id registers its ranks in a shared segment named from the id (xproc.c);
 * when every rank is in this process the segment is only the join's meeting
 * place and everything else stays in this process's memory, else (xp) the
 * collectives meet in the segment (coll.c, "across processes"). Every piece
 * of this process's state below is guarded by the one lock gbn_mu; gbn_cv is
 * broadcast whenever anything a waiter may wait for changes (a rank joined,
 * a split completed, an operation completed or was abandoned, a
 * communicator was aborted or revoked, queued work was freed); waits that
 * depend on another process poll (gbn_timed_wait_locked).
 */
#ifndef GPUBENCH_TESTS_SIM_NCCL_SIM_H
#define GPUBENCH_TESTS_SIM_NCCL_SIM_H

/*
 * nccl.h declares a few functions "()" (no prototype); the simulator's
 * include path names the toolkit with -I, not -isystem, so say it here.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/sim/sim.h"
#include "tests/sim/vclock.h"

/* The version this library says it is: the header's it was built against. */
#define GBN_VERSION NCCL_VERSION_CODE
/* Most ranks in one communicator (one process drives them all). */
#define GBN_MAX_RANKS 64
#define GBN_COMM_MAGIC 0x6e63636cu /* "nccl" */

/* nccl.h declares these without a prototype, "()": give them one */
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);

extern pthread_mutex_t gbn_mu;
extern pthread_cond_t gbn_cv;

struct gbn_rdv;
struct gbn_post;
struct gbn_split;

/* ---- the shared segment of one communicator (xproc.c) ---- */

/* Splits of one parent whose colours a rank keeps at once (by sequence number, modulo). */
#define GBN_XP_SPLITS 4

/* One rank's slot: written by that rank only, read by every rank. */
struct gbn_xp_rank {
	atomic_int joined;              /* 1 once pid and device are written */
	int pid;
	int device;                     /* CUDA index in its process (the cost model's) */
	atomic_uint_least64_t arrived;  /* collectives it has staged its data for (k + 1) */
	atomic_uint_least64_t left;     /* collectives it has finished reading (k + 1) */
	/* the latest collective it arrived at: its clock and arguments */
	double start_s;
	int kind, type, op, root;
	uint64_t count;
	int bad;                        /* its buffers may not be touched: nobody's data moves */
	atomic_uint_least64_t split_seq[GBN_XP_SPLITS]; /* split k + 1 posted in slot k % SPLITS */
	int color[GBN_XP_SPLITS], key[GBN_XP_SPLITS];
};

struct gbn_xp_seg {
	atomic_int nranks;              /* set by the first rank to map it */
	atomic_int joined;
	struct gbn_xp_rank r[GBN_MAX_RANKS];
	/* then, from gbn_xp_stage(), each rank's staging area of the collective in flight */
};

/* The ranks of one communicator: those that joined one unique id, or one split colour. */
struct gbn_clique {
	unsigned char id[NCCL_UNIQUE_ID_BYTES]; /* the unique id (zeros for a split) */
	bool from_id;                   /* found by id while ranks join */
	int nranks;
	int joined;
	bool complete;                  /* every rank joined */
	ncclResult_t result;            /* of joining: success, or why the clique is unusable */
	struct ncclComm **ranks;        /* by rank; NULL once that rank's comm is released */
	int members;                    /* comm objects still pointing here */
	struct gbn_rdv *rdvs;           /* collectives some rank has begun */
	struct gbn_post *posts;         /* sends waiting to be received */
	struct gbn_split *splits;       /* splits of this clique some rank has called */
	struct gbn_xp_seg *seg;         /* its shared segment (NULL: this process only) */
	size_t seg_bytes;
	char seg_name[96];
	bool seg_linked;                /* the name still exists (unlinked once all joined) */
	bool xp;                        /* ranks in other processes: collectives use seg */
	struct gbn_clique *next;
};

enum gbn_phase {
	GBN_LIVE,
	GBN_FINALIZING,                 /* ncclCommFinalize: waiting for queued work to drain */
	GBN_FINALIZED
};

struct ncclComm {
	uint32_t magic;
	struct gbn_clique *clique;      /* NULL while a split child waits for its split */
	int rank, nranks;
	int device;                     /* the CUDA device current at init */
	bool blocking;
	enum gbn_phase phase;
	ncclResult_t async;             /* a sticky error, else ncclSuccess */
	bool revoked;                   /* abort or revoke: operations stop */
	bool released;                  /* destroyed or aborted: the handle is gone */
	struct ncclComm *split_child;   /* this rank's child of a split still in progress */
	bool split_waiting;             /* a split child whose split has not completed */
	struct gbn_split *split_rec;    /* that split (while split_waiting) */
	int split_slot;                 /* this child's parent rank in split_rec */
	uint64_t colls_begun;           /* collectives begun on the stream worker */
	uint64_t splits_called;
	uint64_t *sent, *received;      /* per peer: sends and receives begun */
	long outstanding;               /* work queued whose context is not yet freed */
	long waiting;                   /* stream workers inside a rendezvous */
	long holders;                   /* host threads that hold the handle inside a call */
	/* a split child of a parent whose ranks are in several processes (xp), until ready */
	struct ncclComm *xp_parent;
	uint64_t xp_split_seq;
	int xp_color;
	struct ncclComm *next;          /* every comm ever made and not yet freed */
};

/* ---- comm.c ---- */

/* Set the last error text (ncclGetLastError) and log it; returns r. */
ncclResult_t gbn_fail(ncclResult_t r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A usable communicator handle (locked): ncclSuccess or the error, logged. */
ncclResult_t gbn_comm_check_locked(const struct ncclComm *c, const char *what);
/* The asynchronous state of c (locked): ncclInProgress, ncclSuccess or the error. */
ncclResult_t gbn_comm_state_locked(struct ncclComm *c);
/* One piece of queued work of c ends (locked): frees c once released and idle. */
void gbn_comm_work_done_locked(struct ncclComm *c);
/* Inside ncclGroupStart/End on this thread. */
bool gbn_in_group(void);

/* A deferred operation of a group on c, queued at ncclGroupEnd (coll.c makes them). */
struct gbn_op;
void gbn_group_add_op(struct gbn_op *op, struct ncclComm *c);
/* A call inside a group failed: ncclGroupEnd returns r and queues nothing. */
void gbn_group_fail(ncclResult_t r);

/*
 * Wait on gbn_cv (locked) for at most `us` microseconds of real time: for
 * waits that poll another process. The simulated clock cannot see another
 * process, so it holds while this thread polls.
 */
void gbn_timed_wait_locked(long us);
/* Wait on gbn_cv (locked) with no limit, in simulated time: for this process's own threads. */
void gbn_wait_locked(void);

/*
 * Real time that a wait for another process holds this process's simulated
 * clock (docs/simulation.md): the other process's clock is its own, so while
 * it has not arrived, time here stands still; past this much real time, the
 * other is taken as stuck and the clock moves on, so that the product's own
 * timeouts, in simulated time, can come.
 */
#define GBN_XP_HOLD_S 2.0
/*
 * A state query (ncclCommGetAsyncError) of a communicator that waits for
 * another process waits up to this much real time for it, holding the
 * clock, before it answers ncclInProgress: the product then sleeps a little
 * simulated time and asks again, so the clock drifts by that sleep per this
 * much real time, not per query, while the other process starts up.
 */
#define GBN_XP_QUERY_WAIT_S 0.02
/* Seconds on the real monotonic clock. */
double gbn_wall_s(void);
/* Wake every waiter of gbn_cv, of both kinds. */
void gbn_broadcast(void);

/* ---- xproc.c ---- */

/*
 * Rank `rank` of clique k (from a unique id) joins its shared segment
 * (locked): mapped at the first local join, the rank's slot written.
 * ncclSuccess, or the error (a rank joined twice, nranks disagree). Without
 * shared memory (logged once) the clique stays in this process.
 */
ncclResult_t gbn_xp_join_locked(struct gbn_clique *k, int rank, int device, const char *what);
/* Whether every rank of k has joined (locked); decides k->xp and unlinks the name. */
bool gbn_xp_all_joined_locked(struct gbn_clique *k);
/* k is freed: unmap its segment, and unlink its name if still there (locked). */
void gbn_xp_close_locked(struct gbn_clique *k);
/* At exit: unlink every name a join that never completed left (locked). */
void gbn_xp_unlink_all_locked(struct gbn_clique *cliques);
/* Bytes each rank may stage per collective, and rank r's staging area. */
size_t gbn_xp_stage_bytes(void);
void *gbn_xp_stage(struct gbn_xp_seg *seg, int r);
/* Whether the process of pid is gone (a peer that died). */
bool gbn_xp_pid_dead(int pid);
/* The unique id of the communicator of colour `color` of split `seq` of clique k. */
void gbn_xp_split_id(const struct gbn_clique *k, uint64_t seq, int color,
		     unsigned char id[NCCL_UNIQUE_ID_BYTES]);

/* ---- coll.c ---- */

/* Queue op on its stream (outside the lock): ncclSuccess or the error. */
ncclResult_t gbn_op_enqueue(struct gbn_op *op);
/* Queue a group's operations: p2p calls of one comm and stream become one batch. */
ncclResult_t gbn_enqueue_group(struct gbn_op **ops, int n);
void gbn_op_free(struct gbn_op *op);
/* A clique is freed: free what its rendezvous left behind (locked). */
void gbn_clique_free_rdvs_locked(struct gbn_clique *k);

/* ---- fault.c ---- */

/*
 * Whether a fault of this kind holds for an operation on device that starts
 * at now_s and is the nth (from 0) collective begun on that device; *value
 * (if not NULL) gets the fault's value.
 */
bool gbn_fault(enum gbsim_fault_kind kind, int device, double now_s, long nth, long *value);

/* ---- reduce.c ---- */

/* Bytes of one element; 0 for a type the simulator does not implement (fp8). */
size_t gbn_type_size(ncclDataType_t t);
const char *gbn_type_name(ncclDataType_t t);
const char *gbn_op_name(ncclRedOp_t op);
/*
 * dst[i] = reduction over ranks 0..n-1, in that order, of src[r][off + i],
 * for i in [0, count): the reduction NCCL's ring would do, each step rounded
 * to the type (avg: floats pre-multiplied by 1/n, integers summed then
 * divided). dst may be one of the src buffers at the same index.
 */
void gbn_reduce(ncclDataType_t t, ncclRedOp_t op, int n, const void *const *src, size_t off,
		void *dst, size_t count);

/* ---- cost.c ---- */

enum gbn_kind {
	GBN_ALLREDUCE,
	GBN_ALLGATHER,
	GBN_REDUCESCATTER,
	GBN_BROADCAST,
	GBN_REDUCE,
	GBN_ALLTOALL,
	GBN_P2P
};

/* Device of each rank, in rank order, for the ring. */
double gbn_ring_bw_bps(const int *device, int n);
/* Bandwidth of the direct path between two devices, bytes/s. */
double gbn_pair_bw_bps(int a, int b);
/* Per-step latency between two devices, seconds. */
double gbn_pair_latency_s(int a, int b);
/*
 * Seconds one collective of `bytes` (nccl-tests' S: count x size, times n
 * for the sharded collectives) takes on ranks on these devices.
 */
double gbn_coll_seconds(enum gbn_kind kind, size_t bytes, const int *device, int n);
/* Seconds to move `bytes` from device a to device b (a send/receive pair). */
double gbn_p2p_seconds(size_t bytes, int a, int b);

#endif
