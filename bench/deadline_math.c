/* SPDX-License-Identifier: MIT */
/*
 * deadline_math.c - a watchdog for a blocking call (see deadline_math.h).
 *
 * One thread wakes every `resolution` on a condition variable against
 * CLOCK_MONOTONIC (wall clock steps must not fire it early or late) and
 * compares the deadline with the clock. Arming and disarming only write
 * the deadline under the lock, without waking the thread, so they are
 * cheap enough to bracket each operation of a timed loop. Firing runs the
 * callback with the lock held: a disarm that races with a firing returns
 * after the callback finished, never while it is half done. A callback that
 * declines leaves the deadline armed, so the next look asks again.
 */
#include "deadline_math.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct gb_deadline {
	gb_deadline_fire_fn fire;
	void *user;
	double resolution_s;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* signalled only to stop */
	bool armed, fired, quit;
	struct timespec deadline;
	const char *what;
};

struct timespec gb_timespec_in(clockid_t clock, double seconds)
{
	struct timespec t;
	double whole;

	clock_gettime(clock, &t);
	if (!(seconds > 0))
		seconds = 0;
	if (seconds > 1e9)
		seconds = 1e9;
	t.tv_nsec += (long)(modf(seconds, &whole) * 1e9);
	t.tv_sec += (time_t)whole + t.tv_nsec / 1000000000L;
	t.tv_nsec %= 1000000000L;
	return t;
}

/* the deadline's condition variable runs on CLOCK_MONOTONIC */
static struct timespec after(double seconds)
{
	return gb_timespec_in(CLOCK_MONOTONIC, seconds);
}

static bool passed(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

static void *deadline_main(void *arg)
{
	struct gb_deadline *w = arg;

	pthread_mutex_lock(&w->lock);
	while (!w->quit) {
		struct timespec next = after(w->resolution_s);

		if (w->armed && passed(&w->deadline) && w->fire(w->user, w->what)) {
			w->armed = false;
			w->fired = true;
		}
		pthread_cond_timedwait(&w->cond, &w->lock, &next);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct gb_deadline *gb_deadline_start(gb_deadline_fire_fn fire, void *user, double resolution_s)
{
	struct gb_deadline *w = calloc(1, sizeof(*w));
	pthread_condattr_t attr;

	if (!w)
		return NULL;
	w->fire = fire;
	w->user = user;
	w->resolution_s = resolution_s > 0.001 ? resolution_s : 0.001;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&w->thread, NULL, deadline_main, w)) {
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

void gb_deadline_arm(struct gb_deadline *w, double seconds, const char *what)
{
	struct timespec deadline = after(seconds);

	pthread_mutex_lock(&w->lock);
	w->deadline = deadline;
	w->what = what;
	w->fired = false;
	w->armed = true;
	pthread_mutex_unlock(&w->lock);
}

/* a before b */
static bool earlier(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

void gb_deadline_hurry(struct gb_deadline *w, double seconds)
{
	struct timespec soon = after(seconds);

	pthread_mutex_lock(&w->lock);
	if (w->armed && earlier(&soon, &w->deadline))
		w->deadline = soon;
	pthread_mutex_unlock(&w->lock);
}

bool gb_deadline_disarm(struct gb_deadline *w)
{
	bool fired;

	pthread_mutex_lock(&w->lock);
	w->armed = false;
	fired = w->fired;
	w->fired = false;
	pthread_mutex_unlock(&w->lock);
	return fired;
}

void gb_thread_quit_join(pthread_t thread, pthread_mutex_t *lock, pthread_cond_t *cond,
			 bool *quit)
{
	pthread_mutex_lock(lock);
	*quit = true;
	pthread_cond_signal(cond);
	pthread_mutex_unlock(lock);
	pthread_join(thread, NULL);
	pthread_cond_destroy(cond);
	pthread_mutex_destroy(lock);
}

void gb_deadline_stop(struct gb_deadline *w)
{
	if (!w)
		return;
	gb_thread_quit_join(w->thread, &w->lock, &w->cond, &w->quit);
	free(w);
}
