/* SPDX-License-Identifier: MIT */
/* nccl_comm.c - bounded NCCL communicators of local ranks (see nccl_comm.h). */
#include "bench/device/nccl_comm.h"

#if GPUBENCH_HAVE_NCCL

#include <math.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "bench/device/gpu.h"
#include "bench/device/nccl_dl.h"

/* How late a watchdog may notice a passed deadline (timeouts are at least 1 s). */
#define WATCHDOG_RESOLUTION_S 0.05
/* Spin (yielding) this long on a non-blocking call before sleeping between polls. */
#define POLL_SPIN_S 0.002
/*
 * How soon a hurried rank's call is ended: far longer than a thread needs
 * from arming its watchdog to entering the call it watches, so a hurry can
 * never abort a comm its thread is about to enter (deadline_math.h).
 */
#define HURRY_GRACE_S 1.0

static bool nccl_ok(ncclResult_t r)
{
	return r == ncclSuccess || r == ncclInProgress;
}

void gb_nccl_poll_pause(double since)
{
	/*
	 * Yield at first (an operation launched by NCCL's thread is ready within
	 * microseconds, and a sleep would add tens of them to each one), then
	 * sleep, so a long wait does not burn a core that NCCL's own threads need.
	 */
	if (gb_now_s() - since < POLL_SPIN_S)
		gb_yield();
	else
		gb_sleep_s(50e-6); /* short next to any wait worth sleeping */
}

ncclResult_t gb_nccl_comm_query(ncclComm_t c)
{
	ncclResult_t a = ncclSuccess, r;

	if (!c)
		return ncclSuccess;
	r = gb_nccl.ncclCommGetAsyncError(c, &a);
	return r != ncclSuccess ? r : a;
}

/* ---- aborting ---- */

/* fn on every communicator, the blocking splits first (they hold the GPU work). */
static void each_comm(const struct gb_nccl_comms *s, void (*fn)(ncclComm_t))
{
	for (int i = 0; i < s->n; i++)
		if (s->comm[i] && s->comm[i] != s->parent[i])
			fn(s->comm[i]);
	for (int i = 0; i < s->n; i++)
		if (s->parent[i])
			fn(s->parent[i]);
}

static void abort_one(ncclComm_t c)
{
	gb_nccl.ncclCommAbort(c);
}

/* In-flight work stops, nothing is freed (NCCL 2.28+). */
static void revoke_one(ncclComm_t c)
{
	gb_nccl.ncclCommRevoke(c, 0);
}

static void abort_all(const struct gb_nccl_comms *s)
{
	each_comm(s, abort_one);
}

/* Drop every handle: the communicators are gone (aborted, or never made). */
static void forget_all(struct gb_nccl_comms *s)
{
	for (int i = 0; i < s->n; i++)
		s->comm[i] = s->parent[i] = NULL;
}

void gb_nccl_comms_abort(struct gb_nccl_comms *s)
{
	abort_all(s);
	forget_all(s);
}

/*
 * On the watchdog's thread, when a watched call of the driving thread passed
 * the timeout: the call must be made to return. ncclCommRevoke (NCCL 2.28+)
 * raises the abort flag every NCCL wait checks without freeing anything;
 * the driving thread then aborts the communicators itself once out of the
 * call (gb_nccl_comms_unwatch). Older NCCL has only ncclCommAbort, which
 * also frees: once the last local rank is aborted, NCCL reclaims them all,
 * under a thread that may still be inside a call. That risk is taken there
 * because the other choice is a thread that never returns. The driving
 * thread touches no handle while inside the watched call, and learns of this
 * from gb_deadline_disarm().
 */
static bool fire_all(void *user, const char *what)
{
	struct gb_nccl_comms *s = user;

	(void)what;
	if (gb_nccl.ncclCommRevoke) {
		each_comm(s, revoke_one);
		s->revoked = true;
	} else {
		abort_all(s);
	}
	return true;
}

/* Rank j was aborted and its thread has not yet come out of the call (rank_mu held). */
static bool aborted_in_call(const struct gb_nccl_comms *s, int except)
{
	for (int j = 0; j < s->n; j++)
		if (j != except && s->aborted[j] && s->in_call[j])
			return true;
	return false;
}

/*
 * The same for one rank's own thread: only that rank's comm, the one its
 * thread is inside. The other ranks' threads may be using theirs; they are
 * ended by their own watchdogs (gb_nccl_comms_hurry_ranks), and the parents,
 * which no rank thread touches, by the driving thread afterwards. One abort
 * at a time, and none while an aborted rank's thread is still returning out
 * of NCCL: this abort may be the last local rank's, which frees every local
 * rank's communicator (nccl_comm.h); false makes the watchdog ask again.
 */
static bool fire_rank(void *user, const char *what)
{
	struct gb_nccl_rank_watch *rw = user;
	struct gb_nccl_comms *s = rw->set;
	bool fired = false;

	(void)what;
	pthread_mutex_lock(&s->rank_mu);
	if (!aborted_in_call(s, rw->i)) {
		if (s->comm[rw->i] && s->comm[rw->i] != s->parent[rw->i])
			gb_nccl.ncclCommAbort(s->comm[rw->i]);
		s->aborted[rw->i] = true;
		fired = true;
	}
	pthread_mutex_unlock(&s->rank_mu);
	return fired;
}

/* Rank i's thread enters (true) or has left (false) a watched call. */
static void set_in_call(struct gb_nccl_comms *s, int i, bool in)
{
	pthread_mutex_lock(&s->rank_mu);
	s->in_call[i] = in;
	pthread_mutex_unlock(&s->rank_mu);
}

/* ---- errors ---- */

int gb_nccl_comms_fail(struct gb_nccl_comms *s, int i, ncclResult_t r, const char *what)
{
	const char *last = gb_nccl_last_error(i >= 0 ? s->comm[i] : NULL);

	if (i >= 0)
		gb_bench_set_status(s->res, GB_STATUS_ERROR,
				    "'%s' failed on rank %d (GPU %d%s%s): %s%s%s", what, s->rank[i],
				    s->dev[i], s->host ? ", host " : "", s->host ? s->host : "",
				    gb_nccl.ncclGetErrorString(r), *last ? ": " : "", last);
	else
		gb_bench_set_status(s->res, GB_STATUS_ERROR, "'%s' failed: %s%s%s", what,
				    gb_nccl.ncclGetErrorString(r), *last ? ": " : "", last);
	gb_nccl_comms_abort(s);
	return -1;
}

/* "rank R (GPU G)", with ", host H" inside the brackets under a launcher */
static void rank_words(const struct gb_nccl_comms *s, int i, char *b, size_t n)
{
	snprintf(b, n, "rank %d (GPU %d%s%s)", s->rank[i], s->dev[i], s->host ? ", host " : "",
		 s->host ? s->host : "");
}

int gb_nccl_comms_timed_out(struct gb_nccl_comms *s, int i, const char *what)
{
	char who[320];

	rank_words(s, i, who, sizeof(who));
	gb_bench_set_status(s->res, GB_STATUS_ERROR,
			    "%s did not finish within %g s on %s: a rank stopped answering or a "
			    "link hangs",
			    what, s->timeout_s, who);
	/* no one GPU is behind: the finding is the run's, for its action (docs/faults.md) */
	gb_bench_add_check(s->res, "collective_timeout", GB_STATUS_ERROR, GB_SEV_ERROR, -1, NAN,
			   s->timeout_s, "%s did not finish within %g s on %s", what, s->timeout_s,
			   who);
	gb_nccl_comms_abort(s);
	return -1;
}

int gb_nccl_comms_hung(struct gb_nccl_comms *s, int i, const char *what)
{
	char who[320];

	rank_words(s, i, who, sizeof(who));
	gb_bench_set_status(s->res, GB_STATUS_ERROR,
			    "%s did not finish within %g s: %s hangs: its collective never "
			    "completed while the other ranks here finished it and wait at the next",
			    what, s->timeout_s, who);
	/* the GPU that hung, as a check: its action, and escalation by UUID (docs/faults.md) */
	gb_bench_add_check(s->res, "rank_hung", GB_STATUS_ERROR, GB_SEV_ERROR, s->dev[i], NAN,
			   s->timeout_s, "%s hangs: its collective never completed in %g s while "
			   "its peers finished it", who, s->timeout_s);
	gb_nccl_comms_abort(s);
	return -1;
}

/* ---- watching blocking calls ---- */

void gb_nccl_comms_watch(struct gb_nccl_comms *s, const char *what)
{
	gb_deadline_arm(s->wd, s->timeout_s, what);
}

int gb_nccl_comms_unwatch(struct gb_nccl_comms *s, const char *what)
{
	if (!gb_deadline_disarm(s->wd))
		return 0;
	if (!s->revoked)
		forget_all(s); /* the watchdog aborted them all */
	s->revoked = false;
	return gb_nccl_comms_timed_out(s, 0, what); /* aborts what is left, on this thread */
}

/* in_call is set before arming and cleared after disarming: it covers every firing. */
void gb_nccl_comms_watch_rank(struct gb_nccl_comms *s, int i, const char *what)
{
	set_in_call(s, i, true);
	gb_deadline_arm(s->rw[i].wd, s->timeout_s, what);
}

bool gb_nccl_comms_unwatch_rank(struct gb_nccl_comms *s, int i)
{
	bool fired = gb_deadline_disarm(s->rw[i].wd);

	set_in_call(s, i, false);
	if (!fired)
		return false;
	s->comm[i] = NULL; /* aborted: only the parent is left, for the driving thread */
	return true;
}

void gb_nccl_comms_hurry_ranks(struct gb_nccl_comms *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->rw[i].wd)
			gb_deadline_hurry(s->rw[i].wd, HURRY_GRACE_S);
}

/* ---- waiting on non-blocking work ---- */

int gb_nccl_comms_state(struct gb_nccl_comms *s, int i, bool parent, const char *what)
{
	ncclComm_t c = parent ? s->parent[i] : s->comm[i];
	ncclResult_t a = gb_nccl_comm_query(c);

	if (a == ncclInProgress)
		return 1;
	return a == ncclSuccess ? 0 : gb_nccl_comms_fail(s, i, a, what);
}

int gb_nccl_comms_wait(struct gb_nccl_comms *s, bool parents, const char *what)
{
	double start = gb_now_s(), deadline = start + s->timeout_s;

	for (;;) {
		int busy = -1;

		for (int i = 0; i < s->n; i++) {
			int st = gb_nccl_comms_state(s, i, parents, what);

			if (st < 0)
				return -1;
			if (st > 0 && busy < 0)
				busy = i;
		}
		if (busy < 0)
			return 0;
		if (gb_now_s() > deadline)
			return gb_nccl_comms_timed_out(s, busy, what);
		gb_nccl_poll_pause(start);
	}
}

int gb_nccl_comms_end_group(struct gb_nccl_comms *s, int failed, ncclResult_t r, bool parents,
			    const char *what)
{
	ncclResult_t end;

	gb_nccl_comms_watch(s, what);
	end = gb_nccl.ncclGroupEnd(); /* a group is always closed, even after a failure */
	if (gb_nccl_comms_unwatch(s, what))
		return -1;
	if (failed >= 0)
		return gb_nccl_comms_fail(s, failed, r, what);
	if (!nccl_ok(end))
		return gb_nccl_comms_fail(s, -1, end, "ncclGroupEnd");
	return end == ncclInProgress ? gb_nccl_comms_wait(s, parents, what) : 0;
}

/* ---- set-up ---- */

/* A CUDA call failed inside a group of calls on every rank: close it, abort, give rc back. */
static int group_abandoned(struct gb_nccl_comms *s, int rc)
{
	gb_nccl.ncclGroupEnd();
	gb_nccl_comms_abort(s);
	return rc;
}

int gb_nccl_comms_start(struct gb_nccl_comms *s, struct gb_bench_result *res, const int *dev,
			int n, int first_rank, int nranks, double timeout_s, const char *host,
			bool per_rank)
{
	memset(s, 0, sizeof(*s));
	s->res = res;
	s->host = host;
	s->timeout_s = timeout_s;
	s->nranks = nranks;
	if (n < 0 || n > GB_DEVICE_LIST_MAX) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "internal: %d local ranks (at most %d)",
				    n, GB_DEVICE_LIST_MAX);
		return -1;
	}
	s->n = n;
	for (int i = 0; i < n; i++) {
		s->dev[i] = dev[i];
		s->rank[i] = first_rank + i;
		s->rw[i].set = s;
		s->rw[i].i = i;
	}
	if (pthread_mutex_init(&s->rank_mu, NULL)) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "cannot make the watchdogs' lock");
		return -1;
	}
	s->rank_mu_ready = true;
	s->wd = gb_deadline_start(fire_all, s, WATCHDOG_RESOLUTION_S);
	for (int i = 0; per_rank && s->wd && i < n; i++)
		if (!(s->rw[i].wd = gb_deadline_start(fire_rank, &s->rw[i], WATCHDOG_RESOLUTION_S)))
			break;
	if (!s->wd || (per_rank && n > 0 && !s->rw[n - 1].wd)) {
		gb_nccl_comms_stop(s);
		gb_bench_set_status(res, GB_STATUS_ERROR, "cannot start the watchdog thread");
		return -1;
	}
	return 0;
}

int gb_nccl_comms_init(struct gb_nccl_comms *s, const void *id_bytes)
{
	ncclUniqueId id;
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	ncclResult_t r = ncclSuccess;
	int rc = 0, failed = -1;

	memcpy(&id, id_bytes, sizeof(id));
	cfg.blocking = 0; /* every wait is ours to bound */
	gb_nccl.ncclGroupStart();
	for (int i = 0; i < s->n && failed < 0; i++) {
		GB_CUDA_GOTO_DEV(s->res, s->dev[i], cudaSetDevice(s->dev[i]), group_done);
		r = gb_nccl.ncclCommInitRankConfig(&s->parent[i], s->nranks, id, s->rank[i], &cfg);
		if (!nccl_ok(r))
			failed = i;
	}
group_done:
	if (rc)
		return group_abandoned(s, rc);
	return gb_nccl_comms_end_group(s, failed, r, true, "ncclCommInitRankConfig");
}

void gb_nccl_comms_use_parents(struct gb_nccl_comms *s)
{
	for (int i = 0; i < s->n; i++)
		s->comm[i] = s->parent[i];
	s->blocking = false;
}

/*
 * The split is a group on the non-blocking parents, so it runs on NCCL's
 * thread and is polled like the init; an abort of a parent also ends a
 * split in progress.
 */
int gb_nccl_comms_split(struct gb_nccl_comms *s)
{
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	ncclResult_t r = ncclSuccess;
	int rc = 0, failed = -1;

	if (!gb_nccl.ncclCommSplit) {
		gb_nccl_comms_use_parents(s);
		return 0;
	}
	cfg.blocking = 1;
	gb_nccl.ncclGroupStart();
	for (int i = 0; i < s->n && failed < 0; i++) {
		GB_CUDA_GOTO_DEV(s->res, s->dev[i], cudaSetDevice(s->dev[i]), group_done);
		r = gb_nccl.ncclCommSplit(s->parent[i], 0, s->rank[i], &s->comm[i], &cfg);
		if (!nccl_ok(r))
			failed = i;
	}
group_done:
	if (rc)
		return group_abandoned(s, rc);
	if (gb_nccl_comms_end_group(s, failed, r, true, "ncclCommSplit"))
		return -1;
	for (int i = 0; i < s->n; i++)
		if (!s->comm[i])
			return gb_nccl_comms_fail(s, i, ncclInternalError, "ncclCommSplit");
	s->blocking = true;
	return 0;
}

/* ---- tear-down ---- */

/*
 * Flush what one set of communicators has outstanding, so the peers end in
 * a clean state: the blocking splits (parents false) or the parents. One
 * group, because a blocking finalize of one local rank may wait for the
 * others, which in a loop would wait for ever.
 */
static int finalize_set(struct gb_nccl_comms *s, bool parents)
{
	ncclResult_t r = ncclSuccess;
	int failed = -1;

	gb_nccl.ncclGroupStart();
	for (int i = 0; i < s->n && failed < 0; i++) {
		ncclComm_t c = parents ? s->parent[i] : s->comm[i];

		if (!c || (!parents && c == s->parent[i]))
			continue;
		r = gb_nccl.ncclCommFinalize(c);
		if (!nccl_ok(r))
			failed = i;
	}
	return gb_nccl_comms_end_group(s, failed, r, parents, "ncclCommFinalize");
}

/* Finalize the splits, then the communicators they came from: 0, or -1 (aborted). */
static int finalize_all(struct gb_nccl_comms *s)
{
	if (!gb_nccl.ncclCommFinalize)
		return 0;
	return finalize_set(s, false) || finalize_set(s, true) ? -1 : 0;
}

/* Destroy one communicator; anything but success (or in progress) falls back to abort. */
static void destroy_one(ncclComm_t c)
{
	ncclResult_t r = gb_nccl.ncclCommDestroy(c);

	if (!nccl_ok(r))
		gb_nccl.ncclCommAbort(c);
}

void gb_nccl_comms_destroy(struct gb_nccl_comms *s, bool clean)
{
	if (clean && finalize_all(s))
		clean = false;
	if (!clean) {
		gb_nccl_comms_abort(s);
		return;
	}
	for (int i = 0; i < s->n; i++)
		if (s->comm[i] && s->comm[i] != s->parent[i])
			destroy_one(s->comm[i]);
	for (int i = 0; i < s->n; i++)
		if (s->parent[i])
			destroy_one(s->parent[i]);
	forget_all(s);
}

void gb_nccl_comms_stop(struct gb_nccl_comms *s)
{
	/* the watchdogs first: none may fire at a handle the abort below frees */
	for (int i = 0; i < s->n; i++) {
		gb_deadline_stop(s->rw[i].wd);
		s->rw[i].wd = NULL;
	}
	gb_deadline_stop(s->wd);
	s->wd = NULL;
	gb_nccl_comms_abort(s);
	if (s->rank_mu_ready)
		pthread_mutex_destroy(&s->rank_mu);
	s->rank_mu_ready = false;
}

#endif
