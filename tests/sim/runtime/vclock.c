/* SPDX-License-Identifier: MIT */
/*
 * vclock.c - simulated time (tests/sim/vclock.h), and the product's clock
 * (bench/device/clock.h) served from it as `gbsim_clock_ops`.
 *
 * State, all under one leaf lock: the clock, the number of participants
 * running (the main thread and the threads started here), the list of
 * waiters (each on its own stack, with its channel and deadline), and the
 * threads started here (so that a join can wait in simulated time).
 */
#include "tests/sim/vclock.h"
#include "tests/sim/runtime/rt.h"
#include "bench/device/clock.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * The product's clock reads this much more than the simulator's: a
 * monotonic clock that has run a while, so that no product code meets a
 * time of 0 (which it may take for "never").
 */
#define PRODUCT_EPOCH_S 10000.0
/* How long a spinning host thread lets pass per turn: about one query's cost. */
#define YIELD_S 1e-6
/* A timed mutex lock tries again this often. */
#define LOCK_RETRY_S 1e-3

struct waiter {
	struct waiter *next;
	const void *chan;
	double deadline_s;
	bool observer; /* due only when no one else is (gbsim_vc_wait_observer) */
	bool woken, timed_out;
};

struct vthread {
	struct vthread *next;
	pthread_t id;
	bool id_known, done, detached;
	void *(*fn)(void *);
	void *arg;
};

static pthread_mutex_t vc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t vc_cond = PTHREAD_COND_INITIALIZER;
static double now_s;
static int running = 1; /* the main thread */
static struct waiter *waiters;
static struct vthread *vthreads;

/*
 * GBSIM_VC_TRACE=FILE: every move of the clock, with the deadlines that woke
 * someone, appended to FILE; two runs that should agree can be diffed.
 */
static FILE *trace;
static pthread_once_t trace_once = PTHREAD_ONCE_INIT;

static void open_trace(void)
{
	const char *path = getenv("GBSIM_VC_TRACE");

	if (path && *path)
		trace = fopen(path, "w");
}

static void trace_move_locked(double from_s, double to_s, int woken)
{
	pthread_once(&trace_once, open_trace);
	if (trace)
		fprintf(trace, "%.9f -> %.9f: %d woken\n", from_s, to_s, woken);
}

double gbsim_vc_now(void)
{
	double t;

	pthread_mutex_lock(&vc_lock);
	t = now_s;
	pthread_mutex_unlock(&vc_lock);
	return t;
}

/* Everyone waits with no deadline: nothing can happen again (locked). */
static _Noreturn void deadlock_locked(void)
{
	int n = 0;

	for (struct waiter *w = waiters; w; w = w->next)
		n++;
	rt_fatal("simulated deadlock at %.6f s: all %d waiting threads wait with no deadline "
		 "for something no running thread can do", now_s, n);
}

/* Wake the waiters due now, observers or not (locked); how many. */
static int wake_due_locked(bool observers)
{
	int n = 0;

	for (struct waiter *w = waiters; w; w = w->next)
		if (!w->woken && w->observer == observers && w->deadline_s <= now_s) {
			w->woken = w->timed_out = true;
			running++;
			n++;
		}
	return n;
}

/*
 * When nobody runs, move the clock to the earliest deadline and wake its
 * waiters (locked); observers due then wake only when no one else is.
 */
static void advance_locked(void)
{
	while (running == 0) {
		double next = INFINITY;

		for (struct waiter *w = waiters; w; w = w->next)
			if (!w->woken && w->deadline_s < next)
				next = w->deadline_s;
		if (isinf(next)) {
			if (waiters)
				deadlock_locked();
			return;
		}
		double from_s = now_s;

		if (next > now_s)
			now_s = next;
		if (!wake_due_locked(false))
			wake_due_locked(true);
		trace_move_locked(from_s, now_s, running);
		pthread_cond_broadcast(&vc_cond);
	}
}

static void wake_locked(const void *chan)
{
	bool any = false;

	for (struct waiter *w = waiters; w; w = w->next)
		if (!w->woken && w->chan == chan) {
			w->woken = true;
			running++;
			any = true;
		}
	if (any)
		pthread_cond_broadcast(&vc_cond);
}

static void unlink_waiter_locked(struct waiter *me)
{
	for (struct waiter **p = &waiters; *p; p = &(*p)->next)
		if (*p == me) {
			*p = me->next;
			return;
		}
}

/*
 * Wait (locked) on chan until woken or deadline; mutex (if any) is released
 * once this thread is listed, so a waker that needs it finds the listing.
 * A deadline of now waits until every other participant waits too: the end
 * of this simulated instant.
 */
static bool wait_locked(const void *chan, pthread_mutex_t *mutex, double deadline_s,
			bool observer)
{
	struct waiter me = { .chan = chan, .deadline_s = deadline_s, .observer = observer };

	if (deadline_s < now_s) {
		if (mutex)
			pthread_mutex_unlock(mutex);
		return false;
	}
	me.next = waiters;
	waiters = &me;
	if (mutex)
		pthread_mutex_unlock(mutex);
	running--;
	advance_locked();
	while (!me.woken)
		pthread_cond_wait(&vc_cond, &vc_lock);
	unlink_waiter_locked(&me); /* whoever woke us counted us as running */
	return !me.timed_out;
}

static bool wait_on(const void *chan, pthread_mutex_t *mutex, double deadline_s, bool observer)
{
	bool woken;

	pthread_mutex_lock(&vc_lock);
	woken = wait_locked(chan, mutex, deadline_s, observer);
	pthread_mutex_unlock(&vc_lock);
	if (mutex)
		pthread_mutex_lock(mutex);
	return woken;
}

bool gbsim_vc_wait(const void *chan, pthread_mutex_t *mutex, double deadline_s)
{
	return wait_on(chan, mutex, deadline_s, false);
}

bool gbsim_vc_wait_observer(const void *chan, pthread_mutex_t *mutex, double deadline_s)
{
	return wait_on(chan, mutex, deadline_s, true);
}

void gbsim_vc_wake(const void *chan)
{
	pthread_mutex_lock(&vc_lock);
	wake_locked(chan);
	pthread_mutex_unlock(&vc_lock);
}

void gbsim_vc_sleep(double seconds)
{
	pthread_mutex_lock(&vc_lock);
	if (seconds > 0)
		wait_locked(NULL, NULL, now_s + seconds, false);
	pthread_mutex_unlock(&vc_lock);
}

void gbsim_vc_settle(void)
{
	pthread_mutex_lock(&vc_lock);
	wait_locked(NULL, NULL, now_s, false);
	pthread_mutex_unlock(&vc_lock);
}

/* ---- threads ---- */

static void *trampoline(void *arg)
{
	struct vthread *t = arg;
	void *ret = t->fn(t->arg);

	pthread_mutex_lock(&vc_lock);
	t->done = true;
	wake_locked(t);
	running--;
	advance_locked();
	if (t->detached) {
		for (struct vthread **p = &vthreads; *p; p = &(*p)->next)
			if (*p == t) {
				*p = t->next;
				break;
			}
		free(t);
	}
	pthread_mutex_unlock(&vc_lock);
	return ret;
}

/* A finished detached thread's id may come back: forget older records of it (locked). */
static void forget_id_locked(const struct vthread *keep)
{
	for (struct vthread **p = &vthreads; *p;) {
		struct vthread *t = *p;

		if (t != keep && t->id_known && pthread_equal(t->id, keep->id)) {
			*p = t->next;
			free(t);
		} else {
			p = &t->next;
		}
	}
}

static int start(pthread_t *thread, void *(*fn)(void *), void *arg, bool detached)
{
	struct vthread *t = calloc(1, sizeof(*t));
	pthread_attr_t attr;
	int rc;

	if (!t)
		return ENOMEM;
	t->fn = fn;
	t->arg = arg;
	t->detached = detached;
	pthread_mutex_lock(&vc_lock);
	t->next = vthreads;
	vthreads = t;
	running++; /* from now: the new thread may not have run yet when we wait next */
	pthread_attr_init(&attr);
	if (detached)
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* created under the lock, so a detached thread cannot end and free t before we note its id */
	rc = pthread_create(thread, &attr, trampoline, t);
	pthread_attr_destroy(&attr);
	if (rc) {
		vthreads = t->next;
		free(t);
		running--;
		advance_locked();
	} else {
		t->id = *thread;
		t->id_known = true;
		forget_id_locked(t);
	}
	pthread_mutex_unlock(&vc_lock);
	return rc;
}

int gbsim_vc_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	return start(thread, fn, arg, false);
}

int rt_vc_thread_start_detached(void *(*fn)(void *), void *arg)
{
	pthread_t thread;

	return start(&thread, fn, arg, true);
}

bool gbsim_vc_thread_join(pthread_t thread, double deadline_s)
{
	struct vthread *t = NULL, **p;
	bool done;

	pthread_mutex_lock(&vc_lock);
	for (p = &vthreads; *p; p = &(*p)->next)
		if ((*p)->id_known && !(*p)->detached && pthread_equal((*p)->id, thread)) {
			t = *p;
			break;
		}
	if (!t) {
		/* not one of ours: a plain join, which the clock cannot see */
		pthread_mutex_unlock(&vc_lock);
		return pthread_join(thread, NULL) == 0;
	}
	while (!t->done && wait_locked(t, NULL, deadline_s, false))
		;
	done = t->done;
	for (p = &vthreads; done && *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next; /* others may have been listed before it while we waited */
			break;
		}
	pthread_mutex_unlock(&vc_lock);
	if (!done)
		return false;
	free(t);
	return pthread_join(thread, NULL) == 0;
}

/* ---- the product's clock (bench/device/clock.h) ---- */

static double product_now_s(void)
{
	return PRODUCT_EPOCH_S + gbsim_vc_now();
}

static void product_sleep_s(double seconds)
{
	gbsim_vc_sleep(seconds);
}

static void product_yield(void)
{
	gbsim_vc_sleep(YIELD_S);
}

static bool product_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex,
				    double deadline_s)
{
	return gbsim_vc_wait(cond, mutex, deadline_s - PRODUCT_EPOCH_S);
}

static bool product_cond_wait_observer_until(pthread_cond_t *cond, pthread_mutex_t *mutex,
					     double deadline_s)
{
	return gbsim_vc_wait_observer(cond, mutex, deadline_s - PRODUCT_EPOCH_S);
}

static void product_cond_wake(pthread_cond_t *cond)
{
	gbsim_vc_wake(cond);
}

static bool product_join_until(pthread_t thread, double deadline_s)
{
	return gbsim_vc_thread_join(thread, deadline_s - PRODUCT_EPOCH_S);
}

static bool product_lock_until(pthread_mutex_t *mutex, double deadline_s)
{
	while (pthread_mutex_trylock(mutex) != 0) {
		if (product_now_s() >= deadline_s)
			return false;
		gbsim_vc_sleep(LOCK_RETRY_S);
	}
	return true;
}

__attribute__((visibility("default"))) const struct gb_clock_ops gbsim_clock_ops = {
	.now_s = product_now_s,
	.sleep_s = product_sleep_s,
	.yield = product_yield,
	.cond_wait_until = product_cond_wait_until,
	.cond_wait_observer_until = product_cond_wait_observer_until,
	.cond_wake = product_cond_wake,
	.thread_start = gbsim_vc_thread_start,
	.thread_join_until = product_join_until,
	.mutex_lock_until = product_lock_until,
};
