/* SPDX-License-Identifier: MIT */
/*
 * nccl_comm.h - the NCCL communicators of a benchmark's local ranks, made so
 * that no wait is unbounded and no timed operation is polled from the host.
 * Shared by `gpubench nccl` (bench/nccl/nccl.c) and `gpubench scaling`
 * (bench/scaling/scaling.c); docs/nccl.md, "Launching without timing the host".
 *
 * Two communicators per local rank, for two different risks:
 *
 *   parent  created non-blocking (NCCL 2.14+): joining the job is where a
 *           rank that never comes makes everyone wait, and a non-blocking
 *           init is polled against the timeout and can be aborted.
 *   comm    what operations use: a blocking split of the parent
 *           (ncclCommSplit, 2.18+; the split itself is a group on the
 *           parents, polled like the init). A non-blocking call hands every
 *           ncclGroupEnd to an NCCL thread and returns ncclInProgress, so
 *           each operation would cost a thread start and a host poll; a
 *           blocking one launches inline, as nccl-tests' communicators do.
 *           Without ncclCommSplit (NCCL before 2.18) comm is the parent and
 *           `blocking` is false: callers then poll, as before.
 *
 * A blocking call can still wait for ever (a peer that never comes to a
 * connection NCCL sets up on first use, a full launch queue behind a hung
 * kernel). Such calls are bracketed by a watchdog (bench/device/deadline_math.h)
 * that, once the timeout has passed inside the call, aborts communicators,
 * which is what makes a blocked NCCL call return:
 *
 *   gb_nccl_comms_watch/unwatch  one thread drives every local rank (grouped
 *                     calls): the watchdog aborts every communicator
 *   gb_nccl_comms_watch_rank/unwatch_rank  one thread per rank, each calling
 *                     NCCL on its own comm: each rank has its own watchdog,
 *                     which aborts that rank's comm only, the one its
 *                     thread is blocked in; no thread's handle is freed
 *                     under another thread that may be about to use it
 *
 * Per-rank aborts are serialised (one lock for the set), and a rank is not
 * aborted while a rank aborted before it still has its thread inside the
 * call (that watchdog asks again at its next look). Two reasons, both from
 * NCCL's source: ncclCommAbort from several threads at once could hang
 * before 2.19.1 (NVIDIA/nccl#992), and aborting the last local rank of a
 * communicator frees those of every local rank (commReclaim), which would
 * free the one another thread is still returning out of. Even so, callers
 * with a thread per rank should use blocking splits only from 2.19.1
 * (GB_NCCL_CONCURRENT_ABORT), else gb_nccl_comms_use_parents() and poll.
 *
 * Errors of calls made on the driving thread (everything but the _rank
 * calls) set res's status ERROR with one line ("'ncclCommSplit' failed on
 * rank 1 (GPU 1): ...", "... did not finish within 120 s on rank 0 (GPU 0):
 * a rank stopped answering or a link hangs") and abort every communicator,
 * since after a failure they may be stuck mid-operation and only an abort
 * cannot hang. Only with GPUBENCH_HAVE_NCCL.
 */
#ifndef GPUBENCH_BENCH_NCCL_COMM_H
#define GPUBENCH_BENCH_NCCL_COMM_H

#if GPUBENCH_HAVE_NCCL

#include <pthread.h>
#include <stdbool.h>

#include "bench/bench.h"
#include "bench/device/deadline_math.h"
#include "bench/device/nccl_dl.h"

/* The first NCCL whose ncclCommAbort may run on several threads at once (2.19.1). */
#define GB_NCCL_CONCURRENT_ABORT 21901

struct gb_nccl_comms;

/* What a rank's own watchdog needs to abort that rank's comm. */
struct gb_nccl_rank_watch {
	struct gb_nccl_comms *set;
	int i;                 /* local rank index */
	struct gb_deadline *wd;
};

struct gb_nccl_comms {
	struct gb_bench_result *res; /* where errors land */
	const char *host;            /* named in messages; NULL: one process */
	double timeout_s;            /* longest wait for anything */
	int n;                       /* local ranks */
	int nranks;                  /* ranks of the job */
	int dev[GB_DEVICE_LIST_MAX]; /* CUDA index of each local rank */
	int rank[GB_DEVICE_LIST_MAX];
	ncclComm_t parent[GB_DEVICE_LIST_MAX]; /* non-blocking: joins the job, polled */
	ncclComm_t comm[GB_DEVICE_LIST_MAX];   /* operations: parent's blocking split, or parent */
	bool blocking;                         /* comm is a blocking split */
	struct gb_deadline *wd;                /* watch(): revokes (or aborts) every communicator */
	bool revoked;                          /* wd revoked them: the driving thread aborts */
	struct gb_nccl_rank_watch rw[GB_DEVICE_LIST_MAX]; /* watch_rank(): one per rank */
	pthread_mutex_t rank_mu;               /* per-rank aborts, one at a time; guards: */
	bool rank_mu_ready;
	bool in_call[GB_DEVICE_LIST_MAX];      /* rank i's thread is between watch and unwatch */
	bool aborted[GB_DEVICE_LIST_MAX];      /* rank i's watchdog aborted comm[i] */
};

/*
 * Start the watchdog thread(s) for n local ranks on GPUs dev[0..n-1], ranks
 * first_rank.. of nranks; per_rank also starts one per rank for
 * watch_rank(). No communicator yet. s must not move until
 * gb_nccl_comms_stop(). 0, or -1 with res's status ERROR.
 */
int gb_nccl_comms_start(struct gb_nccl_comms *s, struct gb_bench_result *res, const int *dev,
			int n, int first_rank, int nranks, double timeout_s, const char *host,
			bool per_rank);

/* Join the job of id (an ncclUniqueId): non-blocking parents, the wait polled. */
int gb_nccl_comms_init(struct gb_nccl_comms *s, const void *id);

/* The comms operations use: blocking splits (2.18+), else the parents themselves. */
int gb_nccl_comms_split(struct gb_nccl_comms *s);

/* Operations on the non-blocking parents themselves (polled; `blocking` false). */
void gb_nccl_comms_use_parents(struct gb_nccl_comms *s);

/*
 * Close a group of calls opened with ncclGroupStart (the call of local rank
 * failed, -1 for none, returned r): watched while it runs inline on blocking
 * comms, polled (parents true: the parents) while a non-blocking group runs
 * on NCCL's thread. 0, or -1 (ERROR set, every communicator aborted).
 */
int gb_nccl_comms_end_group(struct gb_nccl_comms *s, int failed, ncclResult_t r, bool parents,
			    const char *what);

/*
 * The state of non-blocking work on local rank i's comm (parent true: its
 * parent): 1 in progress, 0 idle (or no communicator), -1 an error (set).
 */
int gb_nccl_comms_state(struct gb_nccl_comms *s, int i, bool parent, const char *what);

/* Wait, up to the timeout, until no comm (parents true: no parent) is busy. */
int gb_nccl_comms_wait(struct gb_nccl_comms *s, bool parents, const char *what);

/* Between two polls of a wait that began at `since` (gb_now_s()): yield, then sleep. */
void gb_nccl_poll_pause(double since);

/*
 * The asynchronous state of one communicator, without side effects (for a
 * thread that owns c): ncclInProgress, ncclSuccess or the error.
 */
ncclResult_t gb_nccl_comm_query(ncclComm_t c);

/* Watch a call on the driving thread; unwatch: 0, or -1 when the watchdog ended it. */
void gb_nccl_comms_watch(struct gb_nccl_comms *s, const char *what);
int gb_nccl_comms_unwatch(struct gb_nccl_comms *s, const char *what);

/*
 * Watch a call on local rank i's own thread, on comm[i] (per_rank, blocking).
 * unwatch_rank: true when the watchdog ended the call by aborting comm[i],
 * which is then NULL; the caller reports it (res is not thread safe). Only
 * an armed watch is hurried: a thread that arms after another failed must
 * check for that failure itself, after watch_rank, and unwatch if so.
 */
void gb_nccl_comms_watch_rank(struct gb_nccl_comms *s, int i, const char *what);
bool gb_nccl_comms_unwatch_rank(struct gb_nccl_comms *s, int i);

/*
 * Another rank's thread failed: end every rank's watched call soon (within
 * about a second) instead of at the timeout. Calls that are not inside a
 * watch are left alone.
 */
void gb_nccl_comms_hurry_ranks(struct gb_nccl_comms *s);

/* ERROR for a failed NCCL call of local rank i (-1: none in particular); aborts. -1 */
int gb_nccl_comms_fail(struct gb_nccl_comms *s, int i, ncclResult_t r, const char *what);

/*
 * ERROR "what did not finish within ..." on local rank i (the first still
 * busy: no rank known to be behind); aborts. -1
 */
int gb_nccl_comms_timed_out(struct gb_nccl_comms *s, int i, const char *what);
/* The same when local rank i is known to be the one that hangs (behind the others). -1 */
int gb_nccl_comms_hung(struct gb_nccl_comms *s, int i, const char *what);

/* Abort every communicator, the splits first (they hold the GPU work), and forget them. */
void gb_nccl_comms_abort(struct gb_nccl_comms *s);

/*
 * End the communicators: finalized (flushed, the peers left clean) and
 * destroyed when clean, else (or when finalizing fails) aborted.
 */
void gb_nccl_comms_destroy(struct gb_nccl_comms *s, bool clean);

/* Abort what is left and stop the watchdog threads. A set never started is fine. */
void gb_nccl_comms_stop(struct gb_nccl_comms *s);

#endif
#endif
