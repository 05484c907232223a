/* SPDX-License-Identifier: MIT */
/*
 * streams.c - streams, their worker threads, fences, and the host's clock.
 *
 * Every stream has a FIFO of operations and one worker thread (started at its
 * first operation) that runs them in order, so queued work really runs
 * asynchronously: a host thread can release a spinning kernel through mapped
 * memory while copies wait behind it, as on a GPU.
 *
 * Each operation ends by completing a fence that carries its simulated end
 * time. An operation waits, before it starts, for the fences it depends on:
 * events it was told to wait for (cudaStreamWaitEvent), and the implicit
 * ordering of the legacy stream 0, which waits for every blocking stream of
 * its device and is waited for by them (non-blocking streams take no part).
 *
 * cudaStreamPerThread is a stream of its own for each host thread and
 * device, made at its first use: a blocking stream (it waits for the legacy
 * stream and the legacy stream for it, as the CUDA docs say of the
 * per-thread default stream), but no other stream waits for it as for the
 * legacy stream, and it waits for no other. It cannot be destroyed and is no
 * leak.
 *
 * Lazy mode (machine "lazy": true): queued operations run only once the host
 * synchronises (stream, event or device sync, a blocking copy, a free) or
 * queries (cudaStreamQuery, cudaEventQuery); each such point lets everything
 * queued so far, on every stream, run. Releasing every stream rather than the
 * one waited for keeps collectives, whose ranks wait for each other across
 * streams, from deadlocking. A missing synchronisation then reads stale data
 * instead of getting lucky.
 */
#include "tests/sim/runtime/rt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t fence_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fence_cond; /* a channel of the simulated clock: fences computed */

static struct rt_stream legacy[GBSIM_MAX_GPUS];
static bool legacy_ready[GBSIM_MAX_GPUS];
static struct rt_stream *all_streams; /* user streams, newest first, under rt_table_lock */
/*
 * User streams made so far per device, under rt_table_lock. A stream's id,
 * which seeds its noise, counts per device, not per process: threads that
 * each drive a GPU of their own then number their streams the same way
 * whichever of them gets here first.
 */
static int streams_made[GBSIM_MAX_GPUS];

static bool lazy_mode(void)
{
	return gbsim_machine()->lazy;
}

/* ---- fences ---- */

static struct rt_fence *fence_new(struct rt_stream *s, uint64_t seq)
{
	struct rt_fence *f = calloc(1, sizeof(*f));

	if (!f)
		rt_fatal("out of host memory for a fence");
	f->refs = 1;
	f->stream = s;
	f->seq = seq;
	return f;
}

struct rt_fence *rt_fence_ref(struct rt_fence *f)
{
	if (f) {
		pthread_mutex_lock(&fence_lock);
		f->refs++;
		pthread_mutex_unlock(&fence_lock);
	}
	return f;
}

void rt_fence_unref(struct rt_fence *f)
{
	bool last;

	if (!f)
		return;
	pthread_mutex_lock(&fence_lock);
	last = --f->refs == 0;
	pthread_mutex_unlock(&fence_lock);
	if (last)
		free(f);
}

static void fence_complete(struct rt_fence *f, double end_s)
{
	pthread_mutex_lock(&fence_lock);
	f->end_s = end_s;
	f->done = true;
	gbsim_vc_wake(&fence_cond);
	pthread_mutex_unlock(&fence_lock);
}

static void lazy_release(struct rt_fence *f);

/*
 * Has f's operation run (computed) and has the clock reached its end
 * (visible)? The host sees an operation complete at its simulated end,
 * never earlier, as on a GPU; a worker needs only the computed result.
 */
static bool fence_visible_locked(const struct rt_fence *f)
{
	return f->done && gbsim_vc_now() >= f->end_s;
}

/* Wait (fence_lock held) until f is computed and, for the host, visible. */
static void fence_wait_locked(struct rt_fence *f, bool visible)
{
	while (!f->done || (visible && !fence_visible_locked(f)))
		gbsim_vc_wait(&fence_cond, &fence_lock, f->done ? f->end_s : INFINITY);
}

double rt_fence_wait(struct rt_fence *f)
{
	double end;

	if (lazy_mode())
		lazy_release(f);
	pthread_mutex_lock(&fence_lock);
	fence_wait_locked(f, true);
	end = f->end_s;
	pthread_mutex_unlock(&fence_lock);
	return end;
}

/* A worker's wait for an operation it depends on: its result, not its time. */
static double fence_wait_computed(struct rt_fence *f)
{
	double end;

	if (lazy_mode())
		lazy_release(f);
	pthread_mutex_lock(&fence_lock);
	fence_wait_locked(f, false);
	end = f->end_s;
	pthread_mutex_unlock(&fence_lock);
	return end;
}

bool rt_fence_poll(struct rt_fence *f, double *end_s)
{
	bool done;

	if (lazy_mode())
		lazy_release(f);
	/*
	 * Whether the operation has run yet is a matter of CPU speed: answer at
	 * the end of this simulated instant, when every worker has run what it
	 * can, so that the answer is the simulated time's alone.
	 */
	gbsim_vc_settle();
	pthread_mutex_lock(&fence_lock);
	done = fence_visible_locked(f);
	if (done && end_s)
		*end_s = f->end_s;
	pthread_mutex_unlock(&fence_lock);
	return done;
}

void rt_query_pending(struct rt_fence *f)
{
	pthread_mutex_lock(&fence_lock);
	if (!fence_visible_locked(f)) {
		double until = gbsim_vc_now() + RT_QUERY_S;

		if (f->done && f->end_s < until)
			until = f->end_s;
		gbsim_vc_wait(&fence_cond, &fence_lock, until);
	}
	pthread_mutex_unlock(&fence_lock);
}

static bool fence_done(struct rt_fence *f)
{
	bool done;

	pthread_mutex_lock(&fence_lock);
	done = fence_visible_locked(f);
	pthread_mutex_unlock(&fence_lock);
	return done;
}

double rt_host_now(void)
{
	return gbsim_vc_now();
}

/* ---- the worker ---- */

static _Thread_local bool on_worker;
static _Thread_local double worker_now_s;

void rt_set_now(bool worker, double now_s)
{
	on_worker = worker;
	worker_now_s = now_s;
}

double gbsim_now_s(void)
{
	return on_worker ? worker_now_s : rt_host_now();
}

static void free_op(struct rt_op *op)
{
	for (int i = 0; i < op->ndeps; i++)
		rt_fence_unref(op->deps[i]);
	free(op->deps);
	rt_fence_unref(op->fence);
	free(op);
}

/* Run one op: it starts once its dependencies are done and the stream is free. */
static void run_op(struct rt_stream *s, struct rt_op *op)
{
	double start = op->host_s > s->clock_s ? op->host_s : s->clock_s;
	double seconds = 0, end;
	cudaError_t err = cudaSuccess;

	for (int i = 0; i < op->ndeps; i++) {
		double dep_end = fence_wait_computed(op->deps[i]);

		if (dep_end > start)
			start = dep_end;
	}
	if (op->work.run && rt_sticky(s->device) == cudaSuccess) {
		bool undeclared = !op->work.writes_declared;

		rt_set_now(true, start);
		if (undeclared)
			rt_mem_undeclared_work(true);
		err = op->work.run(op->work.ctx);
		if (undeclared)
			rt_mem_undeclared_work(false);
		seconds = op->work.seconds >= 0 ? op->work.seconds
			  : op->work.duration_fn ? op->work.duration_fn(op->work.ctx) : 0;
		rt_set_now(false, 0);
		if (err != cudaSuccess)
			rt_set_sticky(s->device, err, op->work.what ? op->work.what : "work");
		if (seconds > 0)
			seconds *= rt_noise_factor(s->id, op->seq);
		if (seconds < 0)
			seconds = 0;
	}
	if (op->work.free_ctx && !op->keep_ctx)
		op->work.free_ctx(op->work.ctx);
	end = start + seconds;
	s->clock_s = end;
	fence_complete(op->fence, end);
}

static bool runnable(const struct rt_stream *s)
{
	return s->head && s->head->seq <= s->released;
}

static void *worker_main(void *arg)
{
	struct rt_stream *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct rt_op *op;

		while (!runnable(s) && !(s->stop && !s->head))
			gbsim_vc_wait(&s->cond, &s->lock, INFINITY);
		if (!runnable(s))
			break; /* destroyed and drained */
		op = s->head;
		s->head = op->next;
		if (!s->head)
			s->tail = NULL;
		pthread_mutex_unlock(&s->lock);
		run_op(s, op);
		free_op(op);
		pthread_mutex_lock(&s->lock);
	}
	s->worker_started = false;
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* with s->lock held */
static void start_worker(struct rt_stream *s)
{
	if (s->worker_started)
		return;
	/* a participant of the simulated clock: while it computes, the clock holds */
	if (rt_vc_thread_start_detached(worker_main, s) != 0)
		rt_fatal("cannot start a stream worker thread");
	s->worker_started = true;
}

static void rt_stream_release_locked(struct rt_stream *s, uint64_t seq)
{
	if (seq > s->released) {
		s->released = seq;
		gbsim_vc_wake(&s->cond);
	}
}

void rt_stream_release(struct rt_stream *s, uint64_t seq)
{
	pthread_mutex_lock(&s->lock);
	rt_stream_release_locked(s, seq);
	pthread_mutex_unlock(&s->lock);
}

static void release_queued(struct rt_stream *s)
{
	pthread_mutex_lock(&s->lock);
	rt_stream_release_locked(s, s->enqueued);
	pthread_mutex_unlock(&s->lock);
}

/* Lazy mode: the host lets everything queued so far run; a worker only what it needs. */
static void lazy_release(struct rt_fence *f)
{
	if (on_worker) {
		rt_stream_release(f->stream, f->seq);
		return;
	}
	pthread_mutex_lock(&rt_table_lock);
	for (int d = 0; d < GBSIM_MAX_GPUS; d++)
		if (legacy_ready[d])
			release_queued(&legacy[d]);
	for (struct rt_stream *t = all_streams; t; t = t->next_all)
		release_queued(t);
	pthread_mutex_unlock(&rt_table_lock);
}

/* ---- registry ---- */

static void stream_init(struct rt_stream *s, int id, int device, unsigned int flags, bool is_legacy)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->device = device;
	s->flags = flags;
	s->legacy = is_legacy;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
}

static struct rt_stream *legacy_stream(int device)
{
	pthread_mutex_lock(&rt_table_lock);
	if (!legacy_ready[device]) {
		stream_init(&legacy[device], device, device, 0, true);
		legacy_ready[device] = true;
	}
	pthread_mutex_unlock(&rt_table_lock);
	return &legacy[device];
}

/* This thread's per-thread default stream on device, made at its first use. */
static _Thread_local struct rt_stream *per_thread[GBSIM_MAX_GPUS];

static struct rt_stream *per_thread_stream(int device)
{
	struct rt_stream *s = per_thread[device];

	if (s)
		return s;
	if (!(s = malloc(sizeof(*s))))
		rt_fatal("out of host memory for a per-thread stream");
	pthread_mutex_lock(&rt_table_lock);
	/* numbered as user streams are: ids 0 .. GBSIM_MAX_GPUS-1 are the legacy streams */
	stream_init(s, GBSIM_MAX_GPUS * (1 + streams_made[device]++) + device, device,
		    cudaStreamDefault, false);
	s->per_thread = true;
	s->next_all = all_streams;
	all_streams = s;
	pthread_mutex_unlock(&rt_table_lock);
	per_thread[device] = s;
	return s;
}

cudaError_t rt_stream_get(cudaStream_t handle, struct rt_stream **out)
{
	struct rt_stream *s;
	bool destroyed = false;

	if (handle == NULL || handle == cudaStreamLegacy) {
		*out = legacy_stream(gbsim_current_device());
		return cudaSuccess;
	}
	if (handle == cudaStreamPerThread) {
		*out = per_thread_stream(gbsim_current_device());
		return cudaSuccess;
	}
	pthread_mutex_lock(&rt_table_lock);
	for (s = all_streams; s && s != (struct rt_stream *)handle; s = s->next_all)
		;
	if (s)
		destroyed = s->destroyed;
	pthread_mutex_unlock(&rt_table_lock);
	if (!s) {
		gbsim_log("stream %p is not a stream this process created", (void *)handle);
		return cudaErrorInvalidResourceHandle;
	}
	if (destroyed) {
		gbsim_log("stream %p used after cudaStreamDestroy", (void *)handle);
		return cudaErrorInvalidResourceHandle;
	}
	*out = s;
	return cudaSuccess;
}

/* The last fence of t, referenced, if t's work is still pending. */
static struct rt_fence *pending_last(struct rt_stream *t)
{
	struct rt_fence *f;

	pthread_mutex_lock(&t->lock);
	f = t->last ? rt_fence_ref(t->last) : NULL;
	pthread_mutex_unlock(&t->lock);
	if (f && fence_done(f)) {
		rt_fence_unref(f);
		f = NULL;
	}
	return f;
}

static void add_dep(struct rt_op *op, int *cap, struct rt_fence *f)
{
	if (!f)
		return;
	if (op->ndeps == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		op->deps = realloc(op->deps, (size_t)*cap * sizeof(*op->deps));
		if (!op->deps)
			rt_fatal("out of host memory for dependencies");
	}
	op->deps[op->ndeps++] = f;
}

/* The legacy stream's implicit ordering with the blocking streams of its device. */
static void implicit_deps(struct rt_stream *s, struct rt_op *op, int *cap)
{
	if (s->flags & cudaStreamNonBlocking)
		return;
	if (!s->legacy) {
		add_dep(op, cap, pending_last(legacy_stream(s->device)));
		return;
	}
	pthread_mutex_lock(&rt_table_lock);
	for (struct rt_stream *t = all_streams; t; t = t->next_all)
		if (t->device == s->device && !t->destroyed && !(t->flags & cudaStreamNonBlocking))
			add_dep(op, cap, pending_last(t));
	pthread_mutex_unlock(&rt_table_lock);
}

cudaError_t rt_stream_enqueue(struct rt_stream *s, const struct gbsim_work *w, bool keep_ctx,
			      struct rt_fence *const *deps, int ndeps, struct rt_fence **fence_out)
{
	struct rt_op *op;
	struct rt_graph *capture;
	int cap = 0;

	pthread_mutex_lock(&s->lock);
	capture = s->capture;
	pthread_mutex_unlock(&s->lock);
	if (capture) {
		if (fence_out)
			*fence_out = NULL;
		return rt_graph_capture(capture, w);
	}
	op = calloc(1, sizeof(*op));
	if (!op)
		rt_fatal("out of host memory for an operation");
	op->work = *w;
	op->keep_ctx = keep_ctx;
	for (int i = 0; i < ndeps; i++)
		add_dep(op, &cap, rt_fence_ref(deps[i]));
	implicit_deps(s, op, &cap);
	op->host_s = rt_host_now();

	pthread_mutex_lock(&s->lock);
	op->seq = ++s->enqueued;
	op->fence = fence_new(s, op->seq);
	rt_fence_unref(s->last);
	s->last = rt_fence_ref(op->fence);
	if (fence_out)
		*fence_out = rt_fence_ref(op->fence);
	if (s->tail)
		s->tail->next = op;
	else
		s->head = op;
	s->tail = op;
	if (!lazy_mode())
		s->released = s->enqueued;
	start_worker(s);
	gbsim_vc_wake(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return cudaSuccess;
}

static cudaError_t enqueue_marker(struct rt_stream *s, struct rt_fence **fence_out)
{
	struct gbsim_work w = {.what = "marker", .seconds = 0};

	return rt_stream_enqueue(s, &w, false, NULL, 0, fence_out);
}

cudaError_t rt_stream_sync(struct rt_stream *s)
{
	struct rt_fence *f = NULL;

	if (s->legacy)
		enqueue_marker(s, &f); /* picks up the blocking streams' work */
	else
		f = pending_last(s);
	if (f) {
		rt_fence_wait(f);
		rt_fence_unref(f);
	}
	return rt_sticky(s->device);
}

void rt_device_sync(int device)
{
	struct rt_fence **fences = NULL;
	int n = 0, cap = 0;
	struct rt_fence *f;

	if (!rt_device_valid(device))
		return;
	pthread_mutex_lock(&rt_table_lock);
	for (struct rt_stream *t = all_streams; t; t = t->next_all) {
		if (t->device != device || !(f = pending_last(t)))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			fences = realloc(fences, (size_t)cap * sizeof(*fences));
			if (!fences)
				rt_fatal("out of host memory for a device synchronisation");
		}
		fences[n++] = f;
	}
	pthread_mutex_unlock(&rt_table_lock);
	f = pending_last(legacy_stream(device));
	if (f) {
		rt_fence_wait(f);
		rt_fence_unref(f);
	}
	for (int i = 0; i < n; i++) {
		rt_fence_wait(fences[i]);
		rt_fence_unref(fences[i]);
	}
	free(fences);
}

/* ---- the public stream API ---- */

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
	int dev = gbsim_current_device();
	struct rt_stream *s;
	cudaError_t e;

	if (!pStream || (flags & ~(unsigned)cudaStreamNonBlocking))
		return rt_ret(cudaErrorInvalidValue);
	if ((e = rt_sticky(dev)) != cudaSuccess)
		return rt_ret(e);
	s = malloc(sizeof(*s));
	if (!s)
		return rt_ret(cudaErrorMemoryAllocation);
	pthread_mutex_lock(&rt_table_lock);
	/* ids 0 .. GBSIM_MAX_GPUS-1 are the legacy streams */
	stream_init(s, GBSIM_MAX_GPUS * (1 + streams_made[dev]++) + dev, dev, flags, false);
	s->site = __builtin_return_address(0);
	s->next_all = all_streams;
	all_streams = s;
	pthread_mutex_unlock(&rt_table_lock);
	*pStream = (cudaStream_t)s;
	return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
	return cudaStreamCreateWithFlags(pStream, cudaStreamDefault);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
	(void)priority; /* no scheduler to give it a meaning */
	return cudaStreamCreateWithFlags(pStream, flags);
}

/* Mark destroyed: its queued work still runs, as on a GPU; the handle is dead. */
static void stream_retire(struct rt_stream *s)
{
	s->destroyed = true;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	s->released = s->enqueued;
	gbsim_vc_wake(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	struct rt_stream *s;
	cudaError_t e;

	if (stream == NULL || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
		return rt_ret(cudaErrorInvalidResourceHandle);
	pthread_mutex_lock(&rt_table_lock);
	for (s = all_streams; s && s != (struct rt_stream *)stream; s = s->next_all)
		;
	if (s && !s->destroyed) {
		stream_retire(s);
		e = cudaSuccess;
	} else {
		e = cudaErrorInvalidResourceHandle;
	}
	pthread_mutex_unlock(&rt_table_lock);
	if (e != cudaSuccess)
		gbsim_log("cudaStreamDestroy: %p is %s", (void *)stream,
			  s ? "already destroyed" : "not a stream");
	return rt_ret(e);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	struct rt_stream *s;
	cudaError_t e = rt_stream_get(stream, &s);

	if (e != cudaSuccess)
		return rt_ret(e);
	return rt_ret(rt_stream_sync(s));
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	struct rt_stream *s;
	struct rt_fence *f;
	cudaError_t e = rt_stream_get(stream, &s);
	double end;

	if (e != cudaSuccess)
		return rt_ret(e);
	pthread_mutex_lock(&s->lock);
	f = s->last ? rt_fence_ref(s->last) : NULL;
	pthread_mutex_unlock(&s->lock);
	if (f) {
		bool done = rt_fence_poll(f, &end);

		if (!done)
			rt_query_pending(f);
		rt_fence_unref(f);
		if (!done)
			return cudaErrorNotReady; /* not an error: it does not stick as the last one */
	}
	return rt_ret(rt_sticky(s->device));
}

cudaError_t gbsim_enqueue(cudaStream_t handle, const struct gbsim_work *w)
{
	struct rt_stream *s;
	cudaError_t e;

	if (!w)
		return cudaErrorInvalidValue;
	if ((e = rt_stream_get(handle, &s)) != cudaSuccess)
		return e;
	if ((e = rt_sticky(s->device)) != cudaSuccess)
		return e;
	return rt_stream_enqueue(s, w, false, NULL, 0, NULL);
}

int gbsim_stream_device(cudaStream_t handle)
{
	struct rt_stream *s;

	return rt_stream_get(handle, &s) == cudaSuccess ? s->device : -1;
}

/* ---- capture, leaks and reset ---- */

void rt_stream_set_capture(struct rt_stream *s, struct rt_graph *g, struct rt_graph **old)
{
	pthread_mutex_lock(&s->lock);
	*old = s->capture;
	s->capture = g;
	pthread_mutex_unlock(&s->lock);
}

int rt_stream_leaks(int device, const void **first_site)
{
	int n = 0;

	pthread_mutex_lock(&rt_table_lock);
	for (struct rt_stream *t = all_streams; t; t = t->next_all)
		if (t->device == device && !t->destroyed && !t->per_thread) {
			n++;
			*first_site = t->site; /* newest first: the last one seen is the oldest */
		}
	pthread_mutex_unlock(&rt_table_lock);
	return n;
}

void rt_streams_reset(int device)
{
	pthread_mutex_lock(&rt_table_lock);
	for (struct rt_stream *t = all_streams; t; t = t->next_all)
		if (t->device == device && !t->destroyed && !t->per_thread)
			stream_retire(t); /* a per-thread stream lives as long as its thread's handle */
	pthread_mutex_unlock(&rt_table_lock);
}
