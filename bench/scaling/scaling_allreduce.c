/* SPDX-License-Identifier: MIT */
/*
 * scaling_allreduce.c - the gradient all-reduce of `gpubench scaling`'s
 * ddp workload: the NCCL communicators of a phase (bench/device/nccl_comm.h: joined
 * non-blocking, stepped on blocking splits under a watchdog), a worker's
 * all-reduce and the sweep's grouped one, and a step's buckets reduced on
 * the communication stream (or copied where a GPU repeats). Built without
 * NCCL, the same functions fail with a reason. Uses CUDA, NCCL (loaded at
 * run time) and bench/scaling/scaling_internal.h; never prints, never exits.
 */
#include "bench/scaling/scaling_internal.h"

#if GPUBENCH_HAVE_NCCL
#include "bench/device/nccl_dl.h"
#endif

/* ---- NCCL ---- */

#if GPUBENCH_HAVE_NCCL

static bool nccl_ok(ncclResult_t r)
{
	return r == ncclSuccess || r == ncclInProgress;
}

/* w's communicator in the phase running, NULL when the phase has none (or it was aborted). */
static ncclComm_t worker_comm(const struct worker *w)
{
	const struct gb_nccl_comms *c = &w->s->comms;

	return w->s->mode == AR_NCCL && w->slot < c->n ? c->comm[w->slot] : NULL;
}

static int nccl_werr(struct worker *w, ncclResult_t r, const char *what)
{
	const char *last = gb_nccl_last_error(worker_comm(w));

	return sc_werr(w, "'%s' failed on rank %d (GPU %d): %s%s%s", what, w->slot, w->dev,
		       gb_nccl.ncclGetErrorString(r), *last ? ": " : "", last);
}

/* w's communicator: 1 a call in progress, 0 idle, -1 an asynchronous error (in w->err) */
static int comm_state(struct worker *w, const char *what)
{
	ncclResult_t a = gb_nccl_comm_query(worker_comm(w));

	if (a == ncclInProgress)
		return 1;
	return a == ncclSuccess ? 0 : nccl_werr(w, a, what);
}

int sc_comm_check(struct worker *w, const char *what)
{
	return comm_state(w, what) < 0 ? -1 : 0;
}

/* A worker failed: the others' watched NCCL calls end soon, not at the timeout. */
void sc_hurry_nccl(struct sc *s)
{
	if (s->mode == AR_NCCL)
		gb_nccl_comms_hurry_ranks(&s->comms);
}

/*
 * The comms the steps and the sweep use: blocking splits only where NCCL
 * lets the workers' watchdogs abort from several threads at once (2.19.1,
 * bench/device/nccl_comm.h); before, the parents, polled. params.launch records
 * which ran.
 */
static int comms_for_steps(struct sc *s)
{
	if (gb_nccl.version >= GB_NCCL_CONCURRENT_ABORT) {
		if (gb_nccl_comms_split(&s->comms))
			return -1;
	} else {
		gb_nccl_comms_use_parents(&s->comms);
	}
	gb_bench_param_str(s->res, "launch",
			   s->comms.blocking
				   ? "blocking communicators (split off non-blocking ones)"
				   : "non-blocking communicators (NCCL before 2.19.1: each "
				     "all-reduce is polled until enqueued, inside the step)");
	return 0;
}

/*
 * The communicators of workers 0..n-1, ranks in worker order (main thread):
 * non-blocking parents, so joining is bounded, and their blocking splits for
 * the steps and the sweep (bench/device/nccl_comm.h), with a watchdog per worker
 * for the calls each worker's thread makes on its own.
 */
int sc_comms_init(struct sc *s, int n)
{
	ncclUniqueId id;
	ncclResult_t r = gb_nccl.ncclGetUniqueId(&id);

	if (r != ncclSuccess) {
		gb_bench_set_status(s->res, GB_STATUS_ERROR, "'ncclGetUniqueId' failed: %s%s%s",
				    gb_nccl.ncclGetErrorString(r),
				    *gb_nccl_last_error(NULL) ? ": " : "", gb_nccl_last_error(NULL));
		return -1;
	}
	if (gb_nccl_comms_start(&s->comms, s->res, s->dev, n, 0, n, s->timeout_s, NULL, true))
		return -1;
	if (gb_nccl_comms_init(&s->comms, &id) || comms_for_steps(s))
		return -1;
	return 0;
}

/* Finalized and destroyed when clean, else aborted; then the watchdogs stop (main thread). */
void sc_comms_destroy(struct sc *s, bool clean)
{
	gb_nccl_comms_destroy(&s->comms, clean);
	gb_nccl_comms_stop(&s->comms);
}

/*
 * NCCL before 2.19.1 (comms_for_steps): the all-reduce on a non-blocking
 * communicator, polled until enqueued, which puts host time into the step
 * (params.launch says so).
 */
static int worker_allreduce_polled(struct worker *w, float *p, uint64_t count)
{
	double deadline = gb_now_s() + w->s->timeout_s;
	ncclResult_t r = gb_nccl.ncclAllReduce(p, p, count, ncclFloat32, ncclSum, worker_comm(w),
					       w->ns);
	int st;

	if (!nccl_ok(r))
		return nccl_werr(w, r, "ncclAllReduce");
	/* non-blocking: the next NCCL call must wait until this one is enqueued */
	while (r == ncclInProgress && (st = comm_state(w, "ncclAllReduce")) != 0) {
		if (st < 0 || sc_gate_failed(&w->s->gate))
			return -1;
		if (gb_now_s() > deadline)
			return sc_werr(w, "ncclAllReduce was not enqueued within %.0f s on rank %d (GPU %d)",
				       w->s->timeout_s, w->slot, w->dev);
		sc_nap();
	}
	return 0;
}

/*
 * One in-place all-reduce on w's own blocking communicator (worker thread):
 * it returns once enqueued, with no polling, so the next slice's GEMMs
 * follow at once. A call that blocks (a lost GPU, or a peer whose worker
 * failed before its first all-reduce connected) is ended by w's watchdog,
 * at the timeout or soon after another worker failed.
 */
static int worker_allreduce(struct worker *w, float *p, uint64_t count)
{
	struct gb_nccl_comms *c = &w->s->comms;
	ncclResult_t r;

	if (!c->blocking)
		return worker_allreduce_polled(w, p, count);
	gb_nccl_comms_watch_rank(c, w->slot, "ncclAllReduce");
	/*
	 * A hurry shortens only an armed watch: a worker that failed before this
	 * arming hurried nothing of ours, and the call would wait for it for the
	 * whole timeout. sc_workers_fail() marks the gate before it hurries, so
	 * either the gate says so here or its hurry finds this watch armed.
	 */
	if (sc_gate_failed(&w->s->gate)) {
		gb_nccl_comms_unwatch_rank(c, w->slot);
		return -1;
	}
	r = gb_nccl.ncclAllReduce(p, p, count, ncclFloat32, ncclSum, c->comm[w->slot], w->ns);
	if (gb_nccl_comms_unwatch_rank(c, w->slot)) {
		if (sc_gate_failed(&w->s->gate))
			return sc_werr(w, "ncclAllReduce on rank %d (GPU %d) was aborted: another "
				       "worker failed", w->slot, w->dev);
		return sc_werr(w, "ncclAllReduce did not return within %g s on rank %d (GPU %d): a "
			       "GPU stopped answering or a link hangs", c->timeout_s, w->slot, w->dev);
	}
	return r == ncclSuccess ? 0 : nccl_werr(w, r, "ncclAllReduce");
}

/* One in-place all-reduce of count floats on every one of the first n workers, grouped. */
int sc_group_allreduce(struct sc *s, int n, uint64_t count)
{
	ncclResult_t r = ncclSuccess;
	int failed = -1;

	gb_nccl.ncclGroupStart();
	for (int i = 0; i < n && failed < 0; i++) {
		r = gb_nccl.ncclAllReduce(s->w[i].grad, s->w[i].grad, count, ncclFloat32, ncclSum,
					  s->comms.comm[i], s->w[i].ns);
		if (!nccl_ok(r))
			failed = i;
	}
	/* blocking (NCCL 2.19.1+): launched inline under the watchdog; before: polled */
	return gb_nccl_comms_end_group(&s->comms, failed, r, false, "ncclAllReduce");
}

#else /* built without NCCL: ddp cannot run, and says so before any of these is reached */

int sc_comm_check(struct worker *w, const char *what)
{
	(void)w;
	(void)what;
	return 0;
}

void sc_hurry_nccl(struct sc *s)
{
	(void)s;
}

int sc_comms_init(struct sc *s, int n)
{
	(void)n;
	gb_bench_set_status(s->res, GB_STATUS_ERROR, "gpubench was built without NCCL");
	return -1;
}

void sc_comms_destroy(struct sc *s, bool clean)
{
	(void)s;
	(void)clean;
}

static int worker_allreduce(struct worker *w, float *p, uint64_t count)
{
	(void)p;
	(void)count;
	return sc_werr(w, "gpubench was built without NCCL");
}

int sc_group_allreduce(struct sc *s, int n, uint64_t count)
{
	(void)n;
	(void)count;
	gb_bench_set_status(s->res, GB_STATUS_ERROR, "gpubench was built without NCCL");
	return -1;
}

#endif

/* Bucket i of the gradients on the communication stream: all-reduced, or copied. */
static int reduce_bucket(struct worker *w, int i)
{
	uint64_t first, count;

	gb_scaling_bucket(&w->s->plan, i, &first, &count);
	if (!count)
		return 0;
	if (w->s->mode == AR_COPY) {
		W_CUDA(w, cudaMemcpyAsync(w->scratch + first, w->grad + first,
					  count * GB_SCALING_GRAD_ELEM_BYTES, cudaMemcpyDeviceToDevice,
					  w->ns));
		return 0;
	}
	return worker_allreduce(w, w->grad + first, count);
}

/* Wait on the communication stream for ev, then reduce buckets [from, to). */
int sc_reduce_after(struct worker *w, cudaEvent_t ev, int from, int to)
{
	W_CUDA(w, cudaStreamWaitEvent(w->ns, ev, 0));
	for (int i = from; i < to; i++)
		if (reduce_bucket(w, i))
			return -1;
	return 0;
}
