/* SPDX-License-Identifier: MIT */
/*
 * mpi_world.c - ranks, and exchanges with a deadline (see mpi_world.h).
 */
#include "bench/device/mpi_world.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/device/clock.h"
#include "bench/device/mpi_dl.h"

#if GPUBENCH_HAVE_MPI
/*
 * MPI's entry points and predefined handles are those of the library loaded
 * at run time (gb_mpi, mpi_dl.h): never the names in mpi.h, which would
 * link libmpi into every gpubench.
 */
#include "report/exitcodes.h"
#endif

static void set_host(struct gb_mpi_world *w, const char *host)
{
	if (host && *host)
		snprintf(w->host, sizeof(w->host), "%s", host);
	else if (gethostname(w->host, sizeof(w->host)) != 0)
		snprintf(w->host, sizeof(w->host), "unknown");
	w->host[sizeof(w->host) - 1] = '\0';
}

static void one_rank(struct gb_mpi_world *w, double timeout_s, const char *host)
{
	memset(w, 0, sizeof(*w));
	w->size = w->local_size = 1;
	w->timeout_s = timeout_s;
	set_host(w, host);
}

int gb_mpi_world_init(struct gb_mpi_world *w, int launcher_size, double timeout_s, char *err,
		      size_t errlen)
{
	return gb_mpi_world_init_host(w, launcher_size, timeout_s, NULL, err, errlen);
}

void gb_mpi_stop_job(const struct gb_mpi_world *w, int code)
{
	if (!w->active)
		return; /* MPI never started (e.g. it could not be loaded): no job to stop */
	if (w->rank != 0) {
		double grace = w->timeout_s < 10 ? w->timeout_s : 10;
		struct timespec ts = { (time_t)grace, 0 };

		nanosleep(&ts, NULL);
	}
	gb_mpi_abort(w, code);
}

void gb_mpi_parts_free(struct gb_mpi_parts *parts)
{
	for (int r = 0; parts->data && r < parts->n; r++)
		free(parts->data[r]);
	free(parts->data);
	free(parts->len);
	free(parts->arrived);
	memset(parts, 0, sizeof(*parts));
}

static void parts_alloc(struct gb_mpi_parts *parts, int n, const void *mine, size_t len)
{
	parts->n = n;
	parts->data = calloc((size_t)n, sizeof(char *));
	parts->len = calloc((size_t)n, sizeof(size_t));
	parts->arrived = calloc((size_t)n, sizeof(bool));
	if (!parts->data || !parts->len || !parts->arrived)
		abort(); /* a few hundred bytes: nothing sensible to do without them */
	parts->data[0] = malloc(len + 1);
	if (!parts->data[0])
		abort();
	memcpy(parts->data[0], mine, len);
	parts->data[0][len] = '\0';
	parts->len[0] = len;
	parts->arrived[0] = true;
}

#if GPUBENCH_HAVE_MPI

bool gb_mpi_built(void)
{
	return true;
}

const char *gb_mpi_built_version(void)
{
	return GB_MPI_HEADER_VERSION;
}

bool gb_mpi_running(void)
{
	int init = 0, fin = 0;

	if (!gb_mpi_dl_loaded())
		return false;
	gb_mpi.MPI_Initialized(&init);
	gb_mpi.MPI_Finalized(&fin);
	return init && !fin;
}

/*
 * Waits on other processes run on the real clock (bench/device/clock.h's gb_wall_*):
 * under the simulator each rank's simulated clock is its own. Polling, not
 * blocking, is the point: sleep briefly between tests (0.2 ms).
 */
static void nap(void)
{
	gb_wall_sleep_s(200e-6);
}

static void mpi_error(int code, const char *call, char *err, size_t errlen)
{
	char text[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (gb_mpi.MPI_Error_string(code, text, &len) != MPI_SUCCESS)
		snprintf(text, sizeof(text), "error %d", code);
	snprintf(err, errlen, "'%s' failed: %s", call, text);
}

/*
 * A communicator of its own for the barrier before timed loops: a rank that
 * failed earlier never enters that barrier, and a barrier left pending on
 * MPI_COMM_WORLD would then be matched against the next world collective
 * (the exit-code broadcast), which is erroneous. Made when has_barrier_comm.
 */
static MPI_Comm barrier_comm;
static bool has_barrier_comm;

/*
 * Collective requests given up on after a timeout. MPI forbids freeing or
 * cancelling a non-blocking collective, and finalizing with one pending is
 * erroneous (it may hang): gb_mpi_world_finalize() gives them a last chance
 * and aborts the job instead of finalizing when one never completes.
 */
#define MAX_ABANDONED 16
static MPI_Request abandoned[MAX_ABANDONED];
static int n_abandoned;
static bool abandoned_lost; /* more than MAX_ABANDONED: cannot finalize safely */

static void abandon(MPI_Request *req)
{
	if (*req == gb_mpi.request_null)
		return;
	if (n_abandoned < MAX_ABANDONED)
		abandoned[n_abandoned++] = *req;
	else
		abandoned_lost = true;
	*req = gb_mpi.request_null;
}

/* Poll one request until it completes (0), the deadline passes (1) or MPI fails (-1). */
static int wait_req(MPI_Request *req, double deadline, const char *call, char *err, size_t errlen)
{
	for (;;) {
		int flag = 0, rc = gb_mpi.MPI_Test(req, &flag, MPI_STATUS_IGNORE);

		if (rc != MPI_SUCCESS) {
			mpi_error(rc, call, err, errlen);
			return -1;
		}
		if (flag)
			return 0;
		if (gb_wall_now_s() > deadline)
			return 1;
		nap();
	}
}

/*
 * Complete a non-blocking collective just posted (rc: what posting it
 * returned) by deadline: 0; -1 with err set on an MPI error; 1 on a
 * timeout, the request abandoned (the caller says what did not arrive).
 */
static int finish_collective(int rc, MPI_Request *req, double deadline, const char *call,
			     char *err, size_t errlen)
{
	if (rc != MPI_SUCCESS) {
		mpi_error(rc, call, err, errlen);
		return -1;
	}
	rc = wait_req(req, deadline, call, err, errlen);
	if (rc > 0)
		abandon(req);
	return rc;
}

static void not_joined(const struct gb_mpi_world *w, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "rank %d on host %s: not every one of the %d ranks joined within %g s (a rank "
		 "stopped or hangs)",
		 w->rank, w->host, w->size, w->timeout_s);
}

/*
 * Local rank and size from every rank's host name. Not MPI_Comm_split_type:
 * that is a blocking collective, and a rank that never arrives would hang
 * everyone inside it; an all-gather can be polled against the deadline.
 */
static int local_ranks(struct gb_mpi_world *w, char *err, size_t errlen)
{
	size_t hl = sizeof(w->host);
	char *all = calloc((size_t)w->size, hl);
	MPI_Request req;
	int rc;

	if (!all)
		abort();
	rc = gb_mpi.MPI_Iallgather(w->host, (int)hl, gb_mpi.type_char, all, (int)hl,
				   gb_mpi.type_char, gb_mpi.comm_world, &req);
	rc = finish_collective(rc, &req, gb_wall_now_s() + w->timeout_s, "MPI_Iallgather", err, errlen);
	if (rc > 0) {
		not_joined(w, err, errlen);
		return -1; /* all is left allocated: the abandoned gather may still fill it */
	}
	for (int r = 0; r < w->size && rc == 0; r++) {
		if (strncmp(all + (size_t)r * hl, w->host, hl))
			continue;
		w->local_rank += r < w->rank;
		w->local_size++;
	}
	free(all);
	return rc ? -1 : 0;
}

/* The barrier's own communicator, duplicated without blocking (a dup is a collective). */
static int dup_barrier_comm(const struct gb_mpi_world *w, char *err, size_t errlen)
{
	MPI_Request req;
	int rc = gb_mpi.MPI_Comm_idup(gb_mpi.comm_world, &barrier_comm, &req);

	rc = finish_collective(rc, &req, gb_wall_now_s() + w->timeout_s, "MPI_Comm_idup", err, errlen);
	if (rc > 0)
		not_joined(w, err, errlen);
	/* when it failed, it is not usable, and never freed */
	has_barrier_comm = rc == 0;
	return rc ? -1 : 0;
}

int gb_mpi_world_init_host(struct gb_mpi_world *w, int launcher_size, double timeout_s,
			   const char *host, char *err, size_t errlen)
{
	int inited = 0, provided = 0, rc;

	one_rank(w, timeout_s, host);
	if (launcher_size <= 1)
		return 0; /* one process never needs the library */
	if (gb_mpi_dl_load(NULL, err, errlen))
		return -1;
	gb_mpi.MPI_Initialized(&inited);
	if (!inited) {
		rc = gb_mpi.MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
		if (rc != MPI_SUCCESS) {
			mpi_error(rc, "MPI_Init_thread", err, errlen);
			return -1;
		}
	}
	w->active = true;
	/* errors come back as codes, so a failure becomes a message, not an abort */
	gb_mpi.MPI_Comm_set_errhandler(gb_mpi.comm_world, gb_mpi.errors_return);
	gb_mpi.MPI_Comm_rank(gb_mpi.comm_world, &w->rank);
	gb_mpi.MPI_Comm_size(gb_mpi.comm_world, &w->size);
	if (w->size <= 1)
		return 0;
	w->local_size = 0;
	if (local_ranks(w, err, errlen))
		return -1;
	return dup_barrier_comm(w, err, errlen);
}

/* Whether every abandoned collective has completed by now (a short last chance). */
static bool drain_abandoned(const struct gb_mpi_world *w)
{
	double deadline = gb_wall_now_s() + (w->timeout_s < 5 ? w->timeout_s : 5);
	char err[160];

	for (int i = 0; i < n_abandoned; i++)
		if (abandoned[i] != gb_mpi.request_null &&
		    wait_req(&abandoned[i], deadline, "MPI_Test", err, sizeof(err)) != 0)
			return false;
	n_abandoned = 0;
	return !abandoned_lost;
}

void gb_mpi_world_finalize(struct gb_mpi_world *w)
{
	int finalized = 0;

	if (!w->active)
		return;
	gb_mpi.MPI_Finalized(&finalized);
	if (finalized) {
		w->active = false;
		return;
	}
	/*
	 * A collective that never completed means some rank never joined it:
	 * MPI_Finalize would be erroneous and may hang, so end the job instead.
	 * Rank 0 has written the report by now; the run was already an error.
	 */
	if (!drain_abandoned(w))
		gb_mpi.MPI_Abort(gb_mpi.comm_world, GB_EXIT_CANNOT_RUN);
	if (has_barrier_comm)
		gb_mpi.MPI_Comm_free(&barrier_comm);
	has_barrier_comm = false;
	gb_mpi.MPI_Finalize();
	w->active = false;
}

void gb_mpi_abort(const struct gb_mpi_world *w, int code)
{
	if (w->active)
		gb_mpi.MPI_Abort(gb_mpi.comm_world, code);
}

int gb_mpi_bcast(const struct gb_mpi_world *w, void *buf, size_t len, const char *what, char *err,
		 size_t errlen)
{
	MPI_Request req;
	int rc;

	if (!w->active || w->size < 2)
		return 0;
	if (len > INT_MAX) {
		snprintf(err, errlen, "cannot broadcast %s: %zu bytes is too large", what, len);
		return -1;
	}
	rc = gb_mpi.MPI_Ibcast(buf, (int)len, gb_mpi.type_byte, 0, gb_mpi.comm_world, &req);
	/* rank 0 may itself have waited a whole timeout for another rank first */
	rc = finish_collective(rc, &req, gb_wall_now_s() + 2 * w->timeout_s, "MPI_Ibcast", err, errlen);
	if (rc > 0)
		snprintf(err, errlen,
			 "rank %d on host %s: %s did not arrive from rank 0 within %g s", w->rank,
			 w->host, what, 2 * w->timeout_s);
	return rc ? -1 : 0;
}

int gb_mpi_barrier(const struct gb_mpi_world *w, const char *what, char *err, size_t errlen)
{
	MPI_Request req;
	int rc;

	if (!w->active || w->size < 2)
		return 0;
	rc = gb_mpi.MPI_Ibarrier(has_barrier_comm ? barrier_comm : gb_mpi.comm_world, &req);
	rc = finish_collective(rc, &req, gb_wall_now_s() + w->timeout_s, "MPI_Ibarrier", err, errlen);
	if (rc > 0)
		snprintf(err, errlen,
			 "rank %d on host %s: not every rank reached %s within %g s (a rank "
			 "stopped or hangs)",
			 w->rank, w->host, what, w->timeout_s);
	return rc ? -1 : 0;
}

#define TAG_BASE 1000

/* A rank other than 0: hand the length, then the bytes, to rank 0. */
static int gather_send(const struct gb_mpi_world *w, int tag, const void *mine, size_t len,
		       char *err, size_t errlen)
{
	uint64_t n = len;
	MPI_Request req[2];
	double deadline = gb_wall_now_s() + w->timeout_s;
	int rc;

	if (len > INT_MAX) {
		snprintf(err, errlen, "rank %d: report of %zu bytes is too large to send", w->rank,
			 len);
		return -1;
	}
	rc = gb_mpi.MPI_Isend(&n, 1, gb_mpi.type_uint64, 0, TAG_BASE + 2 * tag, gb_mpi.comm_world,
			      &req[0]);
	if (rc == MPI_SUCCESS)
		rc = gb_mpi.MPI_Isend(mine, (int)len, gb_mpi.type_byte, 0, TAG_BASE + 2 * tag + 1,
				      gb_mpi.comm_world, &req[1]);
	if (rc != MPI_SUCCESS) {
		mpi_error(rc, "MPI_Isend", err, errlen);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		rc = wait_req(&req[i], deadline, "MPI_Isend", err, errlen);
		if (rc > 0)
			snprintf(err, errlen,
				 "rank %d on host %s: rank 0 did not take this rank's results "
				 "within "
				 "%g s",
				 w->rank, w->host, w->timeout_s);
		if (rc)
			return -1;
	}
	return 0;
}

/* Rank 0's bookkeeping of one gather. */
struct gather {
	MPI_Request *lreq, *dreq;
	uint64_t *lens;
	int *phase; /* 0 waiting for the length, 1 for the bytes, 2 done */
};

/* Advance rank r's receive; returns 1 when something moved, 0 if not, -1 on error. */
static int gather_step(struct gather *g, struct gb_mpi_parts *parts, int r, int tag, char *err,
		       size_t errlen)
{
	int flag = 0, rc;

	if (g->phase[r] == 0) {
		rc = gb_mpi.MPI_Test(&g->lreq[r], &flag, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS || !flag)
			goto tested;
		if (g->lens[r] > INT_MAX) {
			snprintf(err, errlen, "rank %d announced %llu bytes: too large", r,
				 (unsigned long long)g->lens[r]);
			return -1;
		}
		parts->data[r] = calloc(g->lens[r] + 1, 1);
		if (!parts->data[r])
			abort();
		g->dreq[r] = gb_mpi.request_null; /* stays so if the receive cannot be posted */
		rc = gb_mpi.MPI_Irecv(parts->data[r], (int)g->lens[r], gb_mpi.type_byte, r,
				      TAG_BASE + 2 * tag + 1, gb_mpi.comm_world, &g->dreq[r]);
		g->phase[r] = 1;
		goto tested;
	}
	rc = gb_mpi.MPI_Test(&g->dreq[r], &flag, MPI_STATUS_IGNORE);
	if (rc == MPI_SUCCESS && flag) {
		parts->len[r] = g->lens[r];
		parts->arrived[r] = true;
		g->phase[r] = 2;
	}
tested:
	if (rc != MPI_SUCCESS) {
		mpi_error(rc, "MPI_Test", err, errlen);
		return -1;
	}
	return flag;
}

/*
 * Give up on the ranks that did not answer: cancel their receives. A buffer
 * a cancelled receive may still be writing into is left allocated on
 * purpose (the caller aborts the job right after a timeout): the rank's
 * data, and g->lens (set to NULL here, so the caller does not free it).
 */
static void gather_cancel(struct gather *g, struct gb_mpi_parts *parts, int n)
{
	bool lens_in_use = false;

	for (int r = 1; r < n; r++) {
		MPI_Request *req = g->phase[r] == 0   ? &g->lreq[r]
				   : g->phase[r] == 1 ? &g->dreq[r]
						      : NULL;

		if (!req || *req == gb_mpi.request_null)
			continue;
		lens_in_use |= g->phase[r] == 0;
		gb_mpi.MPI_Cancel(req);
		gb_mpi.MPI_Request_free(req);
		parts->data[r] = NULL;
	}
	if (lens_in_use)
		g->lens = NULL;
}

static int gather_root(const struct gb_mpi_world *w, int tag, struct gb_mpi_parts *parts, char *err,
		       size_t errlen)
{
	struct gather g;
	size_t n = (size_t)w->size;
	double deadline = gb_wall_now_s() + w->timeout_s;
	int pending = w->size - 1, rc = 0;

	g.lreq = calloc(n, sizeof(MPI_Request));
	g.dreq = calloc(n, sizeof(MPI_Request));
	g.lens = calloc(n, sizeof(uint64_t));
	g.phase = calloc(n, sizeof(int));
	if (!g.lreq || !g.dreq || !g.lens || !g.phase)
		abort();
	/* MPI_REQUEST_NULL need not be all-zero bits (it is not in Open MPI) */
	for (size_t r = 0; r < n; r++)
		g.lreq[r] = g.dreq[r] = gb_mpi.request_null;
	for (int r = 1; r < w->size; r++)
		if (gb_mpi.MPI_Irecv(&g.lens[r], 1, gb_mpi.type_uint64, r, TAG_BASE + 2 * tag,
				     gb_mpi.comm_world, &g.lreq[r]) != MPI_SUCCESS)
			g.phase[r] = 2; /* cannot even listen: counts as not answering */
	while (pending > 0) {
		bool moved = false;

		pending = 0;
		for (int r = 1; r < w->size && rc >= 0; r++) {
			if (g.phase[r] < 2) {
				rc = gather_step(&g, parts, r, tag, err, errlen);
				moved = moved || rc > 0;
			}
			pending += g.phase[r] < 2;
		}
		if (rc < 0) {
			/* every request is freed, even after an error */
			gather_cancel(&g, parts, w->size);
			break;
		}
		rc = 0;
		if (pending > 0 && gb_wall_now_s() > deadline) {
			gather_cancel(&g, parts, w->size);
			rc = 1;
			break;
		}
		if (!moved)
			nap();
	}
	for (int r = 1; r < w->size && rc == 0; r++)
		if (!parts->arrived[r])
			rc = 1;
	free(g.lreq);
	free(g.dreq);
	free(g.lens);
	free(g.phase);
	return rc;
}

int gb_mpi_gather(const struct gb_mpi_world *w, int tag, const void *mine, size_t len,
		  struct gb_mpi_parts *parts, char *err, size_t errlen)
{
	memset(parts, 0, sizeof(*parts));
	if (!w->active || w->size < 2) {
		parts_alloc(parts, 1, mine, len);
		return 0;
	}
	if (w->rank != 0)
		return gather_send(w, tag, mine, len, err, errlen);
	parts_alloc(parts, w->size, mine, len);
	return gather_root(w, tag, parts, err, errlen);
}

#else /* built without MPI: always one rank */

bool gb_mpi_built(void)
{
	return false;
}

const char *gb_mpi_built_version(void)
{
	return NULL;
}

bool gb_mpi_running(void)
{
	return false;
}

int gb_mpi_world_init_host(struct gb_mpi_world *w, int launcher_size, double timeout_s,
			   const char *host, char *err, size_t errlen)
{
	(void)launcher_size;
	(void)err;
	(void)errlen;
	one_rank(w, timeout_s, host);
	return 0;
}

void gb_mpi_world_finalize(struct gb_mpi_world *w)
{
	(void)w;
}

void gb_mpi_abort(const struct gb_mpi_world *w, int code)
{
	(void)w;
	(void)code;
}

int gb_mpi_bcast(const struct gb_mpi_world *w, void *buf, size_t len, const char *what, char *err,
		 size_t errlen)
{
	(void)w;
	(void)buf;
	(void)len;
	(void)what;
	(void)err;
	(void)errlen;
	return 0;
}

int gb_mpi_barrier(const struct gb_mpi_world *w, const char *what, char *err, size_t errlen)
{
	(void)w;
	(void)what;
	(void)err;
	(void)errlen;
	return 0;
}

int gb_mpi_gather(const struct gb_mpi_world *w, int tag, const void *mine, size_t len,
		  struct gb_mpi_parts *parts, char *err, size_t errlen)
{
	(void)w;
	(void)tag;
	(void)err;
	(void)errlen;
	memset(parts, 0, sizeof(*parts));
	parts_alloc(parts, 1, mine, len);
	return 0;
}

#endif
