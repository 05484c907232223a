/* SPDX-License-Identifier: MIT */
/*
 * events.c - events: a record is a zero-length operation on its stream whose
 * fence carries the simulated time at which the stream reached it, so
 * cudaEventElapsedTime reports simulated milliseconds.
 */
#include "tests/sim/runtime/rt.h"

#include <stdlib.h>

struct rt_event {
	int device;                 /* current device at creation: records must be on it */
	unsigned int flags;
	bool destroyed;
	const void *site;
	struct rt_fence *fence;     /* the latest record, NULL if never recorded */
	struct rt_event *next_all;
};

static struct rt_event *all_events; /* under rt_table_lock; never freed, to catch stale handles */

static cudaError_t event_get(cudaEvent_t handle, const char *call, struct rt_event **out)
{
	struct rt_event *ev;
	bool destroyed = false;

	pthread_mutex_lock(&rt_table_lock);
	for (ev = all_events; ev && ev != (struct rt_event *)handle; ev = ev->next_all)
		;
	if (ev)
		destroyed = ev->destroyed;
	pthread_mutex_unlock(&rt_table_lock);
	if (!ev || destroyed) {
		gbsim_log("%s: event %p %s", call, (void *)handle,
			  ev ? "used after cudaEventDestroy" : "is not an event this process created");
		return cudaErrorInvalidResourceHandle;
	}
	*out = ev;
	return cudaSuccess;
}

/* The event's latest record, referenced (NULL if never recorded). */
static struct rt_fence *event_fence(struct rt_event *ev)
{
	struct rt_fence *f;

	pthread_mutex_lock(&rt_table_lock);
	f = rt_fence_ref(ev->fence);
	pthread_mutex_unlock(&rt_table_lock);
	return f;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	const unsigned int known = cudaEventBlockingSync | cudaEventDisableTiming |
				   cudaEventInterprocess;
	struct rt_event *ev;
	cudaError_t e;

	if (!event || (flags & ~known))
		return rt_ret(cudaErrorInvalidValue);
	if ((e = rt_sticky(gbsim_current_device())) != cudaSuccess)
		return rt_ret(e);
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return rt_ret(cudaErrorMemoryAllocation);
	ev->device = gbsim_current_device();
	ev->flags = flags;
	ev->site = __builtin_return_address(0);
	pthread_mutex_lock(&rt_table_lock);
	ev->next_all = all_events;
	all_events = ev;
	pthread_mutex_unlock(&rt_table_lock);
	*event = (cudaEvent_t)ev;
	return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	struct rt_event *ev;
	struct rt_fence *f;
	cudaError_t e = event_get(event, "cudaEventDestroy", &ev);

	if (e != cudaSuccess)
		return rt_ret(e);
	pthread_mutex_lock(&rt_table_lock);
	ev->destroyed = true;
	f = ev->fence;
	ev->fence = NULL;
	pthread_mutex_unlock(&rt_table_lock);
	rt_fence_unref(f);
	return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	struct gbsim_work mark = {.what = "cudaEventRecord", .seconds = 0};
	struct rt_event *ev;
	struct rt_stream *s;
	struct rt_fence *f = NULL, *old;
	cudaError_t e;

	if ((e = event_get(event, "cudaEventRecord", &ev)) != cudaSuccess ||
	    (e = rt_stream_get(stream, &s)) != cudaSuccess)
		return rt_ret(e);
	if (ev->device != s->device) {
		gbsim_log("cudaEventRecord: event of GPU %d recorded on a stream of GPU %d",
			  ev->device, s->device);
		return rt_ret(cudaErrorInvalidResourceHandle);
	}
	if ((e = rt_sticky(s->device)) != cudaSuccess)
		return rt_ret(e);
	if ((e = rt_stream_enqueue(s, &mark, false, NULL, 0, &f)) != cudaSuccess)
		return rt_ret(e);
	if (!f)
		return cudaSuccess; /* captured into a graph: the event keeps its last record */
	pthread_mutex_lock(&rt_table_lock);
	old = ev->fence;
	ev->fence = f;
	pthread_mutex_unlock(&rt_table_lock);
	rt_fence_unref(old);
	return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
	struct rt_event *ev;
	struct rt_fence *f;
	double end;
	bool done;
	cudaError_t e = event_get(event, "cudaEventQuery", &ev);

	if (e != cudaSuccess)
		return rt_ret(e);
	if (!(f = event_fence(ev)))
		return cudaSuccess; /* never recorded: nothing to wait for */
	done = rt_fence_poll(f, &end);
	if (!done)
		rt_query_pending(f);
	rt_fence_unref(f);
	if (!done)
		return cudaErrorNotReady;
	return rt_ret(rt_sticky(ev->device));
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	struct rt_event *ev;
	struct rt_fence *f;
	cudaError_t e = event_get(event, "cudaEventSynchronize", &ev);

	if (e != cudaSuccess)
		return rt_ret(e);
	if ((f = event_fence(ev))) {
		rt_fence_wait(f);
		rt_fence_unref(f);
	}
	return rt_ret(rt_sticky(ev->device));
}

/* A timing event's simulated timestamp; cudaErrorNotReady while pending. */
static cudaError_t event_time(struct rt_event *ev, double *t_s)
{
	struct rt_fence *f;
	bool done;

	if (ev->flags & cudaEventDisableTiming) {
		gbsim_log("cudaEventElapsedTime: event %p was created with cudaEventDisableTiming",
			  (void *)ev);
		return cudaErrorInvalidResourceHandle;
	}
	if (!(f = event_fence(ev))) {
		gbsim_log("cudaEventElapsedTime: event %p was never recorded", (void *)ev);
		return cudaErrorInvalidResourceHandle;
	}
	/* pending: the caller did not synchronise (lazy mode then releases it, too late) */
	done = rt_fence_poll(f, t_s);
	rt_fence_unref(f);
	return done ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	struct rt_event *a, *b;
	double ta, tb;
	cudaError_t e;

	if (!ms)
		return rt_ret(cudaErrorInvalidValue);
	if ((e = event_get(start, "cudaEventElapsedTime", &a)) != cudaSuccess ||
	    (e = event_get(end, "cudaEventElapsedTime", &b)) != cudaSuccess)
		return rt_ret(e);
	if (a->device != b->device) {
		gbsim_log("cudaEventElapsedTime: events of GPU %d and GPU %d", a->device, b->device);
		return rt_ret(cudaErrorInvalidResourceHandle);
	}
	if ((e = event_time(a, &ta)) != cudaSuccess || (e = event_time(b, &tb)) != cudaSuccess)
		return rt_ret(e);
	*ms = (float)((tb - ta) * 1e3);
	return rt_ret(rt_sticky(a->device));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
	struct gbsim_work mark = {.what = "cudaStreamWaitEvent", .seconds = 0};
	struct rt_event *ev;
	struct rt_stream *s;
	struct rt_fence *f;
	cudaError_t e;

	if (flags & ~(unsigned)cudaEventWaitExternal)
		return rt_ret(cudaErrorInvalidValue);
	if ((e = event_get(event, "cudaStreamWaitEvent", &ev)) != cudaSuccess ||
	    (e = rt_stream_get(stream, &s)) != cudaSuccess)
		return rt_ret(e);
	if ((e = rt_sticky(s->device)) != cudaSuccess)
		return rt_ret(e);
	if (!(f = event_fence(ev)))
		return cudaSuccess; /* never recorded: waits for nothing */
	e = rt_stream_enqueue(s, &mark, false, &f, 1, NULL);
	rt_fence_unref(f);
	return rt_ret(e);
}

int rt_event_leaks(int device)
{
	int n = 0;

	pthread_mutex_lock(&rt_table_lock);
	for (struct rt_event *ev = all_events; ev; ev = ev->next_all)
		n += ev->device == device && !ev->destroyed;
	pthread_mutex_unlock(&rt_table_lock);
	return n;
}

void rt_events_reset(int device)
{
	pthread_mutex_lock(&rt_table_lock);
	for (struct rt_event *ev = all_events; ev; ev = ev->next_all)
		if (ev->device == device)
			ev->destroyed = true;
	pthread_mutex_unlock(&rt_table_lock);
}
