/* SPDX-License-Identifier: MIT */
/*
 * comm.c - communicators of the simulated NCCL: unique ids, init (blocking
 * and non-blocking), split, finalize, destroy, abort, revoke, their
 * asynchronous state, errors, group calls, and the leak report at exit.
 *
 * Ranks of one unique id rendezvous in the id's clique: each init registers
 * its rank at once (never blocking), in this process and in the id's
 * shared segment (xproc.c), so ranks may be in several processes; the
 * clique is complete when every rank has joined, wherever it is (polled:
 * another process's join wakes nobody here). A blocking init outside a group then
 * waits for that, a non-blocking one returns ncclInProgress and its state
 * (ncclCommGetAsyncError) stays ncclInProgress until then. Inside
 * ncclGroupStart/End the waits move to ncclGroupEnd, so one thread can
 * init every rank, as NCCL documents. A split works the same way on the
 * parent's clique (across processes: through the parent's segment, see
 * "split of a communicator whose ranks are in several processes"). Abort
 * and revoke wake every wait (host or stream
 * worker) of that communicator, which then returns with the operation
 * failed; a communicator's memory outlives its handle until the last piece
 * of work queued on it is gone, so a stream worker never touches freed
 * memory.
 *
 * Stricter than NCCL, on purpose (each logged): ncclCommDestroy of a
 * communicator with work still queued is an error (NCCL would finalize
 * implicitly and wait), and every communicator not destroyed or aborted at
 * exit is reported as a leak (fatal with GBSIM_LEAKS_FATAL=1, as the runtime's).
 */
/* clock_gettime, kill, shm_open, ftruncate */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "nccl_sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t gbn_mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t gbn_cv = PTHREAD_COND_INITIALIZER;

static struct ncclComm *comms;     /* every comm not yet freed */
static struct gbn_clique *cliques; /* every clique not yet freed */
static char last_error[512];       /* ncclGetLastError */
static pthread_mutex_t error_mu = PTHREAD_MUTEX_INITIALIZER; /* a leaf lock: last_error */
static uint64_t ids_made;

/* The first bytes of every unique id this library makes. */
static const char id_magic[8] = "gbsimnc";

struct gbn_split {
	uint64_t seq;                  /* the parent ranks' count of splits */
	int arrived;
	int *color, *key;              /* by parent rank */
	struct ncclComm **child;       /* by parent rank; NULL: no colour, or its rank failed */
	struct ncclComm **parent;      /* by parent rank; NULL once released */
	struct gbn_split *next;
};

/* ---- errors ---- */

ncclResult_t gbn_fail(ncclResult_t r, const char *fmt, ...)
{
	char msg[sizeof(last_error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the text NCCL's caller reads may change under it, as with NCCL's own buffer */
	pthread_mutex_lock(&error_mu);
	snprintf(last_error, sizeof(last_error), "%s", msg);
	pthread_mutex_unlock(&error_mu);
	gbsim_log("nccl: %s", msg);
	return r;
}

const char *ncclGetErrorString(ncclResult_t r)
{
	switch (r) {
	case ncclSuccess:
		return "no error";
	case ncclUnhandledCudaError:
		return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
	case ncclSystemError:
		return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
	case ncclInternalError:
		return "internal error - please report this issue to the NCCL developers";
	case ncclInvalidArgument:
		return "invalid argument (run with NCCL_DEBUG=WARN for details)";
	case ncclInvalidUsage:
		return "invalid usage (run with NCCL_DEBUG=WARN for details)";
	case ncclRemoteError:
		return "remote process exited or there was a network error";
	case ncclInProgress:
		return "NCCL operation in progress";
	default:
		return "unknown result code";
	}
}

const char *ncclGetLastError(ncclComm_t comm)
{
	(void)comm; /* NCCL keeps one text per process too */
	return last_error;
}

ncclResult_t ncclGetVersion(int *version)
{
	if (!version)
		return gbn_fail(ncclInvalidArgument, "ncclGetVersion: version is NULL");
	*version = GBN_VERSION;
	return ncclSuccess;
}

/*
 * An id: the magic, then this process's pid, a count and the host's clock,
 * so ids made by different processes (the ranks of an MPI job, or tests
 * running side by side) never name the same shared segment (xproc.c).
 */
ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
	uint32_t pid = (uint32_t)getpid();
	struct timespec ts;
	uint64_t n, ns;

	if (!id)
		return gbn_fail(ncclInvalidArgument, "ncclGetUniqueId: uniqueId is NULL");
	pthread_mutex_lock(&gbn_mu);
	n = ++ids_made;
	pthread_mutex_unlock(&gbn_mu);
	clock_gettime(CLOCK_REALTIME, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, id_magic, sizeof(id_magic));
	memcpy(id->internal + 8, &pid, sizeof(pid));
	memcpy(id->internal + 12, &n, sizeof(n));
	memcpy(id->internal + 20, &ns, sizeof(ns));
	return ncclSuccess;
}

void gbn_timed_wait_locked(long us)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += us * 1000;
	t.tv_sec += t.tv_nsec / 1000000000;
	t.tv_nsec %= 1000000000;
	pthread_cond_timedwait(&gbn_cv, &gbn_mu, &t);
}

double gbn_wall_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void gbn_wait_locked(void)
{
	gbsim_vc_wait(&gbn_cv, &gbn_mu, INFINITY);
}

void gbn_broadcast(void)
{
	pthread_cond_broadcast(&gbn_cv);
	gbsim_vc_wake(&gbn_cv);
}

/* ---- communicator objects ---- */

static bool known_locked(const struct ncclComm *c)
{
	for (const struct ncclComm *k = comms; k; k = k->next)
		if (k == c)
			return true;
	return false;
}

ncclResult_t gbn_comm_check_locked(const struct ncclComm *c, const char *what)
{
	if (!c)
		return gbn_fail(ncclInvalidArgument, "%s: comm is NULL", what);
	if (!known_locked(c) || c->magic != GBN_COMM_MAGIC)
		return gbn_fail(ncclInvalidArgument, "%s: %p is not a communicator (destroyed?)", what,
				(const void *)c);
	if (c->released)
		return gbn_fail(ncclInvalidUsage,
				"%s: rank %d (GPU %d): the communicator was destroyed or aborted",
				what, c->rank, c->device);
	return ncclSuccess;
}

static struct ncclComm *comm_new_locked(bool blocking, int device)
{
	struct ncclComm *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->magic = GBN_COMM_MAGIC;
	c->blocking = blocking;
	c->device = device;
	c->rank = -1;
	c->async = ncclSuccess;
	c->next = comms;
	comms = c;
	return c;
}

/* Give c its place in clique k (the peers' per-pair counters too). */
static int comm_place_locked(struct ncclComm *c, struct gbn_clique *k, int rank)
{
	c->sent = calloc((size_t)k->nranks, sizeof(*c->sent));
	c->received = calloc((size_t)k->nranks, sizeof(*c->received));
	if (!c->sent || !c->received)
		return -1;
	c->clique = k;
	c->rank = rank;
	c->nranks = k->nranks;
	k->ranks[rank] = c;
	k->members++;
	return 0;
}

static void clique_unlink_locked(struct gbn_clique *k)
{
	for (struct gbn_clique **p = &cliques; *p; p = &(*p)->next)
		if (*p == k) {
			*p = k->next;
			return;
		}
}

static void split_free(struct gbn_split *s)
{
	free(s->color);
	free(s->key);
	free(s->child);
	free(s->parent);
	free(s);
}

static void clique_free_locked(struct gbn_clique *k)
{
	clique_unlink_locked(k);
	gbn_clique_free_rdvs_locked(k);
	gbn_xp_close_locked(k);
	while (k->splits) {
		struct gbn_split *s = k->splits;

		k->splits = s->next;
		split_free(s);
	}
	free(k->ranks);
	free(k);
}

static void comm_unlink_locked(struct ncclComm *c)
{
	for (struct ncclComm **p = &comms; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			return;
		}
}

/* Free c once its handle is gone and nothing (work, a waiting thread) still uses it. */
static void comm_maybe_free_locked(struct ncclComm *c)
{
	struct gbn_clique *k = c->clique;

	if (!c->released || c->outstanding > 0 || c->waiting > 0 || c->holders > 0)
		return;
	comm_unlink_locked(c);
	if (k && --k->members == 0)
		clique_free_locked(k);
	c->magic = 0;
	free(c->sent);
	free(c->received);
	free(c);
}

void gbn_comm_work_done_locked(struct ncclComm *c)
{
	c->outstanding--;
	gbn_broadcast();
	comm_maybe_free_locked(c);
}

static void xp_progress_locked(struct ncclComm *c);

ncclResult_t gbn_comm_state_locked(struct ncclComm *c)
{
	xp_progress_locked(c);
	if (c->async != ncclSuccess)
		return c->async;
	if (c->split_waiting)
		return ncclInProgress;
	if (!c->clique)
		return ncclInternalError;
	if (!c->clique->complete)
		return ncclInProgress;
	if (c->clique->result != ncclSuccess)
		return c->clique->result;
	if (c->split_child && (c->split_child->split_waiting || c->split_child->xp_parent))
		return ncclInProgress; /* a split of this parent is under way */
	if (c->phase == GBN_FINALIZING) {
		if (c->outstanding > 0)
			return ncclInProgress;
		c->phase = GBN_FINALIZED;
	}
	if (c->revoked && c->waiting > 0)
		return ncclInProgress; /* revoked: quiescent once no worker is inside an operation */
	return ncclSuccess;
}

/* Wait until c is no longer in progress, or is aborted or revoked (locked). */
static ncclResult_t wait_ready_locked(struct ncclComm *c, const char *what)
{
	ncclResult_t r;

	c->holders++;
	/* timed: ranks in other processes join without a broadcast here */
	while ((r = gbn_comm_state_locked(c)) == ncclInProgress && !c->revoked)
		gbn_timed_wait_locked(1000);
	c->holders--;
	if (r == ncclInProgress)
		r = gbn_fail(ncclRemoteError, "%s: rank %d (GPU %d): aborted while waiting", what,
			     c->rank, c->device);
	else if (r != ncclSuccess)
		gbn_fail(r, "%s: rank %d (GPU %d): %s", what, c->rank, c->device,
			 ncclGetErrorString(r));
	comm_maybe_free_locked(c);
	return r;
}

/* ---- groups: per thread, as NCCL's are ---- */

static _Thread_local int group_depth;
static _Thread_local ncclResult_t group_error;
static _Thread_local bool group_nonblocking; /* a non-blocking comm takes part */
static _Thread_local struct gbn_op **group_ops;
static _Thread_local int group_nops, group_ops_cap;
static _Thread_local struct ncclComm **group_waits; /* inits, splits, finalizes */
static _Thread_local int group_nwaits, group_waits_cap;

bool gbn_in_group(void)
{
	return group_depth > 0;
}

/* Grow a thread-local array of pointers; false when out of memory. */
static bool grow(void ***a, int n, int *cap)
{
	void **p;

	if (n < *cap)
		return true;
	p = realloc(*a, (size_t)(*cap ? 2 * *cap : 16) * sizeof(**a));
	if (!p)
		return false;
	*a = p;
	*cap = *cap ? 2 * *cap : 16;
	return true;
}

void gbn_group_add_op(struct gbn_op *op, struct ncclComm *c)
{
	if (!grow((void ***)&group_ops, group_nops, &group_ops_cap)) {
		group_error = gbn_fail(ncclSystemError, "ncclGroupEnd: out of host memory");
		gbn_op_free(op);
		return;
	}
	group_ops[group_nops++] = op;
	group_nonblocking |= !c->blocking;
}

void gbn_group_fail(ncclResult_t r)
{
	if (group_depth > 0 && group_error == ncclSuccess)
		group_error = r;
}

/* c must be waited for at ncclGroupEnd (locked): held until then. */
static void group_note_locked(struct ncclComm *c)
{
	group_nonblocking |= !c->blocking;
	if (!grow((void ***)&group_waits, group_nwaits, &group_waits_cap)) {
		group_error = gbn_fail(ncclSystemError, "ncclGroupEnd: out of host memory");
		return;
	}
	c->holders++;
	group_waits[group_nwaits++] = c;
}

/*
 * The end of a call that makes or changes c (locked): inside a group the
 * wait moves to ncclGroupEnd; a blocking call waits; a non-blocking one
 * returns ncclInProgress (its state tells when it is done).
 */
static ncclResult_t finish_call_locked(struct ncclComm *c, const char *what)
{
	if (group_depth > 0) {
		group_note_locked(c);
		return ncclSuccess;
	}
	if (c->blocking)
		return wait_ready_locked(c, what);
	return ncclInProgress;
}

ncclResult_t ncclGroupStart(void)
{
	if (group_depth == 0) {
		group_error = ncclSuccess;
		group_nonblocking = false;
	}
	group_depth++;
	return ncclSuccess;
}

/* The waits of a group that closed (locked): each held comm let go. */
static ncclResult_t group_wait_locked(struct ncclComm **waits, int n, bool wait)
{
	ncclResult_t r = ncclSuccess;

	for (int i = 0; i < n; i++) {
		struct ncclComm *c = waits[i];

		if (wait && r == ncclSuccess) {
			ncclResult_t w = wait_ready_locked(c, "ncclGroupEnd");

			if (w != ncclSuccess)
				r = w;
		}
		c->holders--;
		comm_maybe_free_locked(c);
	}
	return r;
}

ncclResult_t ncclGroupEnd(void)
{
	struct gbn_op **ops = group_ops;
	struct ncclComm **waits = group_waits;
	int nops = group_nops, nwaits = group_nwaits;
	ncclResult_t r = group_error, w;
	bool nonblocking = group_nonblocking;

	if (group_depth == 0)
		return gbn_fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
	if (--group_depth > 0)
		return ncclSuccess;
	group_ops = NULL;
	group_waits = NULL;
	group_nops = group_nwaits = group_ops_cap = group_waits_cap = 0;
	if (r == ncclSuccess) {
		r = gbn_enqueue_group(ops, nops);
	} else {
		for (int i = 0; i < nops; i++)
			gbn_op_free(ops[i]);
	}
	free(ops);
	pthread_mutex_lock(&gbn_mu);
	w = group_wait_locked(waits, nwaits, r == ncclSuccess && !nonblocking);
	pthread_mutex_unlock(&gbn_mu);
	free(waits);
	if (r == ncclSuccess)
		r = w;
	return r == ncclSuccess && nonblocking ? ncclInProgress : r;
}

/* ---- init ---- */

static ncclResult_t config_blocking(const ncclConfig_t *cfg, bool dflt, bool *blocking,
				    const char *what)
{
	*blocking = dflt;
	if (!cfg)
		return ncclSuccess;
	if (cfg->magic != 0xcafebeef || cfg->size < offsetof(ncclConfig_t, cgaClusterSize))
		return gbn_fail(ncclInvalidArgument,
				"%s: config was not set with NCCL_CONFIG_INITIALIZER", what);
	if (cfg->blocking != NCCL_CONFIG_UNDEF_INT)
		*blocking = cfg->blocking != 0;
	return ncclSuccess;
}

static struct gbn_clique *clique_new_locked(int nranks)
{
	struct gbn_clique *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->ranks = calloc((size_t)nranks, sizeof(*k->ranks));
	if (!k->ranks) {
		free(k);
		return NULL;
	}
	k->nranks = nranks;
	k->result = ncclSuccess;
	k->next = cliques;
	cliques = k;
	return k;
}

static struct gbn_clique *clique_of_id_locked(const ncclUniqueId *id, int nranks)
{
	struct gbn_clique *k;

	for (k = cliques; k; k = k->next)
		if (k->from_id && !memcmp(k->id, id->internal, sizeof(k->id)))
			return k;
	k = clique_new_locked(nranks);
	if (k) {
		memcpy(k->id, id->internal, sizeof(k->id));
		k->from_id = true;
	}
	return k;
}

/*
 * Every rank is there: the clique is usable unless two ranks share a GPU
 * (NCCL refuses). Only ranks of this process are compared: a CUDA index
 * names a GPU only within its process.
 */
static void clique_complete_locked(struct gbn_clique *k)
{
	k->complete = true;
	k->from_id = false; /* an id serves one communicator */
	for (int a = 0; a < k->nranks; a++)
		for (int b = a + 1; b < k->nranks; b++)
			if (k->ranks[a] && k->ranks[b] && k->ranks[a]->device == k->ranks[b]->device &&
			    k->result == ncclSuccess)
				k->result = gbn_fail(ncclInvalidUsage,
						     "duplicate GPU detected: rank %d and rank %d "
						     "both on CUDA device %d",
						     a, b, k->ranks[a]->device);
	gbn_broadcast();
}

/* A clique of a unique id is complete once every rank joined, here or in another process. */
static void clique_poll_locked(struct gbn_clique *k)
{
	if (!k->complete && gbn_xp_all_joined_locked(k))
		clique_complete_locked(k);
}

static ncclResult_t init_checks(ncclComm_t *comm, int nranks, const ncclUniqueId *id, int rank,
				const char *what)
{
	if (!comm)
		return gbn_fail(ncclInvalidArgument, "%s: comm is NULL", what);
	*comm = NULL;
	if (nranks < 1 || nranks > GBN_MAX_RANKS)
		return gbn_fail(ncclInvalidArgument, "%s: nranks %d is not in 1..%d", what, nranks,
				GBN_MAX_RANKS);
	if (rank < 0 || rank >= nranks)
		return gbn_fail(ncclInvalidArgument, "%s: rank %d is not in 0..%d", what, rank,
				nranks - 1);
	if (memcmp(id->internal, id_magic, sizeof(id_magic)))
		return gbn_fail(ncclInvalidArgument, "%s: the unique id does not come from "
				"ncclGetUniqueId", what);
	return ncclSuccess;
}

/* Join rank of the clique of id (locked); *out set at once, as NCCL does. */
static ncclResult_t join_locked(ncclComm_t *out, int nranks, const ncclUniqueId *id, int rank,
				bool blocking, const char *what)
{
	struct gbn_clique *k = clique_of_id_locked(id, nranks);
	struct ncclComm *c;
	ncclResult_t r;

	if (!k)
		return gbn_fail(ncclSystemError, "%s: out of host memory", what);
	if (k->nranks != nranks)
		return gbn_fail(ncclInvalidUsage, "%s: rank %d says %d ranks, an earlier rank said %d",
				what, rank, nranks, k->nranks);
	if (k->ranks[rank])
		return gbn_fail(ncclInvalidUsage, "%s: rank %d joined twice", what, rank);
	r = gbn_xp_join_locked(k, rank, gbsim_current_device(), what);
	if (r != ncclSuccess)
		return r;
	c = comm_new_locked(blocking, gbsim_current_device());
	if (!c || comm_place_locked(c, k, rank)) {
		if (c) {
			c->released = true;
			comm_maybe_free_locked(c);
		}
		return gbn_fail(ncclSystemError, "%s: out of host memory", what);
	}
	k->joined++;
	clique_poll_locked(k);
	*out = c;
	return finish_call_locked(c, what);
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank,
				    ncclConfig_t *config)
{
	const char *what = "ncclCommInitRankConfig";
	bool blocking;
	ncclResult_t r = init_checks(comm, nranks, &id, rank, what);

	if (r == ncclSuccess)
		r = config_blocking(config, true, &blocking, what);
	if (r != ncclSuccess)
		return r;
	pthread_mutex_lock(&gbn_mu);
	r = join_locked(comm, nranks, &id, rank, blocking, what);
	pthread_mutex_unlock(&gbn_mu);
	return r;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
	return ncclCommInitRankConfig(comm, nranks, id, rank, NULL);
}

ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist)
{
	ncclUniqueId id;
	ncclResult_t r, end;
	int prev = 0;

	if (!comm || ndev < 1)
		return gbn_fail(ncclInvalidArgument, "ncclCommInitAll: comm is NULL or ndev < 1");
	r = ncclGetUniqueId(&id);
	if (r != ncclSuccess)
		return r;
	if (cudaGetDevice(&prev) != cudaSuccess)
		prev = 0;
	ncclGroupStart();
	for (int i = 0; i < ndev && r == ncclSuccess; i++) {
		if (cudaSetDevice(devlist ? devlist[i] : i) != cudaSuccess)
			r = gbn_fail(ncclUnhandledCudaError, "ncclCommInitAll: no CUDA device %d",
				     devlist ? devlist[i] : i);
		else
			r = ncclCommInitRank(&comm[i], ndev, id, i);
	}
	end = ncclGroupEnd();
	cudaSetDevice(prev);
	return r != ncclSuccess ? r : end;
}

/* ---- split ---- */

static struct gbn_split *split_of_locked(struct gbn_clique *k, uint64_t seq)
{
	struct gbn_split *s;
	size_t n = (size_t)k->nranks;

	for (s = k->splits; s; s = s->next)
		if (s->seq == seq)
			return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->color = calloc(n, sizeof(*s->color));
	s->key = calloc(n, sizeof(*s->key));
	s->child = calloc(n, sizeof(*s->child));
	s->parent = calloc(n, sizeof(*s->parent));
	if (!s->color || !s->key || !s->child || !s->parent) {
		split_free(s);
		return NULL;
	}
	s->seq = seq;
	s->next = k->splits;
	k->splits = s;
	return s;
}

/* Child c no longer waits for its split; its parent no longer has one under way. */
static void split_detach_locked(struct ncclComm *c)
{
	struct gbn_split *s = c->split_rec;

	if (s) {
		if (s->parent[c->split_slot] && s->parent[c->split_slot]->split_child == c)
			s->parent[c->split_slot]->split_child = NULL;
		s->child[c->split_slot] = NULL;
	}
	if (c->xp_parent && c->xp_parent->split_child == c)
		c->xp_parent->split_child = NULL;
	c->xp_parent = NULL;
	c->split_rec = NULL;
	c->split_waiting = false;
}

/* The ranks of one colour, by (key, parent rank); count returned. */
static int colour_members(const struct gbn_split *s, int nranks, int color, int *order)
{
	int n = 0;

	for (int r = 0; r < nranks; r++)
		if (s->color[r] == color)
			order[n++] = r;
	/* insertion sort by key; stable, so equal keys keep the parent's order */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && s->key[order[j]] < s->key[order[j - 1]]; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	return n;
}

/* One colour's new communicator: every member's child placed, or all of them failed. */
static void split_colour_locked(struct gbn_split *s, const int *order, int n)
{
	struct gbn_clique *k = NULL;
	bool whole = true;

	for (int i = 0; i < n; i++)
		whole &= s->child[order[i]] != NULL;
	if (whole)
		k = clique_new_locked(n);
	for (int i = 0; i < n; i++) {
		struct ncclComm *c = s->child[order[i]];

		if (!c)
			continue;
		split_detach_locked(c);
		if (!k || comm_place_locked(c, k, i))
			c->async = gbn_fail(ncclRemoteError,
					    "ncclCommSplit: rank %d (GPU %d): a rank of its colour "
					    "failed or was aborted during the split",
					    order[i], c->device);
	}
	if (k) {
		k->joined = n;
		k->complete = true;
	}
}

/* Every parent rank has called the split: make the new communicators. */
static void split_complete_locked(struct gbn_clique *pk, struct gbn_split *s)
{
	int order[GBN_MAX_RANKS];
	bool *done = calloc((size_t)pk->nranks, sizeof(*done));

	for (int r = 0; r < pk->nranks; r++) {
		int n;

		if (s->color[r] == NCCL_SPLIT_NOCOLOR || (done && done[r]))
			continue;
		n = colour_members(s, pk->nranks, s->color[r], order);
		for (int i = 0; done && i < n; i++)
			done[order[i]] = true;
		split_colour_locked(s, order, n);
		if (!done)
			break; /* out of memory: one colour is all this can do */
	}
	free(done);
	for (struct gbn_split **p = &pk->splits; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			break;
		}
	split_free(s);
	gbn_broadcast();
}

/* The end of a split call for child c: as finish_call_locked, on the parent's terms. */
static ncclResult_t split_finish_locked(struct ncclComm *parent, struct ncclComm *c,
					const char *what)
{
	if (group_depth > 0) {
		group_nonblocking |= !parent->blocking;
		group_note_locked(c);
		return ncclSuccess;
	}
	if (!parent->blocking)
		return ncclInProgress;
	return wait_ready_locked(c, what);
}

/*
 * ---- split of a communicator whose ranks are in several processes ----
 *
 * Each parent rank posts its colour and key in its slot of the parent's
 * segment; once every rank has posted this split, each child computes its
 * colour's members (by key, then parent rank) and joins the communicator
 * of an id derived from the parent's, the split's number and the colour
 * (gbn_xp_split_id), as ncclCommInitRank would. Progress is polled from
 * the child's (or its parent's) state.
 */

/* Join child c's new communicator once every parent rank posted the split (locked). */
static void xp_split_join_locked(struct ncclComm *c)
{
	struct ncclComm *p = c->xp_parent;
	struct gbn_xp_seg *seg = p->clique->seg;
	int slot = (int)(c->xp_split_seq % GBN_XP_SPLITS), order[GBN_MAX_RANKS], n = 0, pos = -1;
	struct gbn_clique *k;
	ncclUniqueId id;

	for (int r = 0; r < p->nranks; r++)
		if (atomic_load(&seg->r[r].split_seq[slot]) != c->xp_split_seq + 1)
			return; /* not every rank has called it yet */
	for (int r = 0; r < p->nranks; r++)
		if (seg->r[r].color[slot] == c->xp_color)
			order[n++] = r;
	for (int i = 1; i < n; i++) /* by key; equal keys keep the parent's order */
		for (int j = i; j > 0 && seg->r[order[j]].key[slot] < seg->r[order[j - 1]].key[slot];
		     j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < n; i++)
		pos = order[i] == p->rank ? i : pos;
	gbn_xp_split_id(p->clique, c->xp_split_seq, c->xp_color, (unsigned char *)id.internal);
	c->split_waiting = false;
	k = clique_of_id_locked(&id, n);
	if (!k || k->nranks != n || pos < 0 ||
	    gbn_xp_join_locked(k, pos, c->device, "ncclCommSplit") != ncclSuccess ||
	    comm_place_locked(c, k, pos)) {
		c->async = gbn_fail(ncclSystemError, "ncclCommSplit: rank %d (GPU %d): cannot join "
				    "the new communicator", p->rank, c->device);
		return;
	}
	k->joined++;
	clique_poll_locked(k);
}

/* Move an xp split child on (locked): its split, then its new communicator's join. */
static void xp_child_progress_locked(struct ncclComm *c)
{
	struct ncclComm *p = c->xp_parent;

	if (!p)
		return;
	if (c->split_waiting && c->async == ncclSuccess)
		xp_split_join_locked(c);
	if (c->split_waiting)
		return;
	if (c->clique)
		clique_poll_locked(c->clique);
	if (!c->clique || c->clique->complete || c->async != ncclSuccess) {
		if (p->split_child == c)
			p->split_child = NULL;
		c->xp_parent = NULL;
	}
}

/* What another process may have done for c's state, read before it is judged (locked). */
static void xp_progress_locked(struct ncclComm *c)
{
	if (c->split_child && c->split_child->xp_parent == c)
		xp_child_progress_locked(c->split_child);
	if (c->xp_parent)
		xp_child_progress_locked(c);
	if (c->clique)
		clique_poll_locked(c->clique);
}

static ncclResult_t xp_split_locked(struct ncclComm *parent, int color, int key,
				    ncclComm_t *newcomm, bool blocking)
{
	struct gbn_xp_rank *me = &parent->clique->seg->r[parent->rank];
	uint64_t seq = parent->splits_called++;
	int slot = (int)(seq % GBN_XP_SPLITS);
	struct ncclComm *c;

	me->color[slot] = color;
	me->key[slot] = key;
	atomic_store(&me->split_seq[slot], seq + 1);
	if (color == NCCL_SPLIT_NOCOLOR)
		return ncclSuccess; /* no communicator for this rank */
	c = comm_new_locked(blocking, parent->device);
	if (!c)
		return gbn_fail(ncclSystemError, "ncclCommSplit: out of host memory");
	c->split_waiting = true;
	c->xp_parent = parent;
	c->xp_split_seq = seq;
	c->xp_color = color;
	parent->split_child = c;
	*newcomm = c;
	xp_child_progress_locked(c);
	return split_finish_locked(parent, c, "ncclCommSplit");
}

static ncclResult_t split_locked(struct ncclComm *parent, int color, int key, ncclComm_t *newcomm,
				 bool blocking)
{
	const char *what = "ncclCommSplit";
	struct gbn_clique *pk = parent->clique;
	struct gbn_split *s;
	struct ncclComm *c = NULL;
	ncclResult_t r = gbn_comm_state_locked(parent);

	if (r != ncclSuccess || parent->revoked)
		return gbn_fail(ncclInvalidUsage, "%s: rank %d (GPU %d): the parent is not ready (%s)",
				what, parent->rank, parent->device,
				parent->revoked ? "revoked" : ncclGetErrorString(r));
	if (pk->xp)
		return xp_split_locked(parent, color, key, newcomm, blocking);
	s = split_of_locked(pk, parent->splits_called);
	if (!s)
		return gbn_fail(ncclSystemError, "%s: out of host memory", what);
	if (color != NCCL_SPLIT_NOCOLOR) {
		c = comm_new_locked(blocking, parent->device);
		if (!c)
			return gbn_fail(ncclSystemError, "%s: out of host memory", what);
		c->split_waiting = true;
		c->split_rec = s;
		c->split_slot = parent->rank;
		parent->split_child = c;
	}
	parent->splits_called++;
	s->color[parent->rank] = color;
	s->key[parent->rank] = key;
	s->child[parent->rank] = c;
	s->parent[parent->rank] = parent;
	*newcomm = c;
	if (++s->arrived == pk->nranks)
		split_complete_locked(pk, s);
	if (!c)
		return ncclSuccess; /* NCCL_SPLIT_NOCOLOR: no communicator for this rank */
	return split_finish_locked(parent, c, what);
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
			   ncclConfig_t *config)
{
	ncclResult_t r;
	bool blocking;

	if (!newcomm)
		return gbn_fail(ncclInvalidArgument, "ncclCommSplit: newcomm is NULL");
	*newcomm = NULL;
	if (color < 0 && color != NCCL_SPLIT_NOCOLOR)
		return gbn_fail(ncclInvalidArgument, "ncclCommSplit: color %d is negative", color);
	pthread_mutex_lock(&gbn_mu);
	r = gbn_comm_check_locked(comm, "ncclCommSplit");
	if (r == ncclSuccess)
		r = config_blocking(config, comm->blocking, &blocking, "ncclCommSplit");
	if (r == ncclSuccess)
		r = split_locked(comm, color, key, newcomm, blocking);
	pthread_mutex_unlock(&gbn_mu);
	return r;
}

/* ---- state and queries ---- */

/* Does c wait on ranks of other processes (its own, its split's or its parent's)? (locked) */
static bool other_processes(const struct ncclComm *c)
{
	return (c->clique && c->clique->xp) || c->xp_parent ||
	       (c->split_child && c->split_child->xp_parent);
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
	ncclResult_t r;

	if (!asyncError)
		return gbn_fail(ncclInvalidArgument, "ncclCommGetAsyncError: asyncError is NULL");
	pthread_mutex_lock(&gbn_mu);
	r = gbn_comm_check_locked(comm, "ncclCommGetAsyncError");
	if (r == ncclSuccess) {
		double until_s = gbn_wall_s() + GBN_XP_QUERY_WAIT_S;

		*asyncError = gbn_comm_state_locked(comm);
		while (*asyncError == ncclInProgress && other_processes(comm) &&
		       gbn_wall_s() < until_s) {
			gbn_timed_wait_locked(1000);
			*asyncError = gbn_comm_state_locked(comm);
		}
	}
	pthread_mutex_unlock(&gbn_mu);
	return r;
}

/* One integer of a ready communicator, for the three queries below. */
static ncclResult_t query(const struct ncclComm *c, int *out, int which, const char *what)
{
	ncclResult_t r;

	if (!out)
		return gbn_fail(ncclInvalidArgument, "%s: the result pointer is NULL", what);
	pthread_mutex_lock(&gbn_mu);
	r = gbn_comm_check_locked(c, what);
	if (r == ncclSuccess && !c->clique)
		r = gbn_fail(ncclInvalidUsage, "%s: the communicator is not ready", what);
	if (r == ncclSuccess)
		*out = which == 0 ? c->nranks : which == 1 ? c->device : c->rank;
	pthread_mutex_unlock(&gbn_mu);
	return r;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
	return query(comm, count, 0, "ncclCommCount");
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
	return query(comm, device, 1, "ncclCommCuDevice");
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
	return query(comm, rank, 2, "ncclCommUserRank");
}

/* ---- finalize, destroy, abort, revoke ---- */

ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
	ncclResult_t r;

	pthread_mutex_lock(&gbn_mu);
	r = gbn_comm_check_locked(comm, "ncclCommFinalize");
	if (r == ncclSuccess && (comm->revoked || comm->phase != GBN_LIVE))
		r = gbn_fail(ncclInvalidUsage, "ncclCommFinalize: rank %d (GPU %d): %s", comm->rank,
			     comm->device, comm->revoked ? "the communicator was revoked"
							 : "finalized twice");
	if (r == ncclSuccess) {
		comm->phase = GBN_FINALIZING;
		r = finish_call_locked(comm, "ncclCommFinalize");
	}
	pthread_mutex_unlock(&gbn_mu);
	return r;
}

/* The handle is gone (locked): stop c's work, wake its waits, free when idle. */
static void release_locked(struct ncclComm *c)
{
	c->released = true;
	c->revoked = true;
	if (c->clique && c->clique->ranks[c->rank] == c)
		c->clique->ranks[c->rank] = NULL;
	if (c->split_waiting || c->xp_parent)
		split_detach_locked(c);
	if (c->split_child) {
		struct ncclComm *child = c->split_child;

		/* the split this parent was part of can no longer complete for its child */
		split_detach_locked(child);
		child->async = gbn_fail(ncclRemoteError,
					"ncclCommSplit: rank %d (GPU %d): the parent was aborted "
					"during the split", c->rank, c->device);
	}
	gbn_broadcast();
	comm_maybe_free_locked(c);
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
	ncclResult_t r;

	pthread_mutex_lock(&gbn_mu);
	r = gbn_comm_check_locked(comm, "ncclCommDestroy");
	if (r == ncclSuccess && comm->outstanding > 0)
		r = gbn_fail(ncclInvalidUsage,
			     "ncclCommDestroy: rank %d (GPU %d) still has %ld operations queued: "
			     "synchronize (or ncclCommFinalize) first, or ncclCommAbort",
			     comm->rank, comm->device, comm->outstanding);
	if (r == ncclSuccess)
		release_locked(comm);
	pthread_mutex_unlock(&gbn_mu);
	return r;
}

ncclResult_t ncclCommAbort(ncclComm_t comm)
{
	ncclResult_t r;

	if (!comm)
		return ncclSuccess; /* NCCL accepts NULL here */
	pthread_mutex_lock(&gbn_mu);
	r = gbn_comm_check_locked(comm, "ncclCommAbort");
	if (r == ncclSuccess)
		release_locked(comm);
	pthread_mutex_unlock(&gbn_mu);
	return r;
}

ncclResult_t ncclCommRevoke(ncclComm_t comm, int revokeFlags)
{
	ncclResult_t r;

	if (revokeFlags != NCCL_REVOKE_DEFAULT)
		return gbn_fail(ncclInvalidArgument, "ncclCommRevoke: revokeFlags %d is not 0",
				revokeFlags);
	pthread_mutex_lock(&gbn_mu);
	r = gbn_comm_check_locked(comm, "ncclCommRevoke");
	if (r == ncclSuccess) {
		comm->revoked = true;
		gbn_broadcast();
	}
	pthread_mutex_unlock(&gbn_mu);
	return r;
}

/* ---- the leak report ---- */

static pid_t owner_pid;

/*
 * At exit: every communicator never destroyed or aborted. With
 * GBSIM_LEAKS_FATAL=1 a leak ends the process with status 99, as the
 * runtime's own report does (tests/sim/runtime/leaks.c). This handler runs
 * before the runtime's (registered later), so a fatal NCCL leak cuts the
 * runtime's report short: the communicator is the leak to fix first.
 */
static void report_leaks(void)
{
	const char *fatal = getenv("GBSIM_LEAKS_FATAL");
	int leaks = 0;

	if (getpid() != owner_pid)
		return; /* a forked child: the communicators are its parent's */
	pthread_mutex_lock(&gbn_mu);
	gbn_xp_unlink_all_locked(cliques); /* no /dev/shm name outlives the process */
	for (const struct ncclComm *c = comms; c; c = c->next) {
		if (c->released)
			continue;
		leaks++;
		gbsim_log("leak: NCCL communicator %p (rank %d of %d, GPU %d) was never destroyed "
			  "or aborted", (const void *)c, c->rank, c->nranks, c->device);
	}
	pthread_mutex_unlock(&gbn_mu);
	if (!leaks)
		return;
	gbsim_log("leak: %d NCCL communicator%s not released", leaks, leaks == 1 ? "" : "s");
	if (fatal && !strcmp(fatal, "1")) {
		gbsim_log("leaks are fatal (GBSIM_LEAKS_FATAL=1): exit status 99");
		fflush(NULL);
		_exit(99);
	}
}

__attribute__((constructor)) static void register_leak_report(void)
{
	owner_pid = getpid();
	atexit(report_leaks);
}
