/* SPDX-License-Identifier: MIT */
/*
 * deadline_math.c - a watchdog for a blocking call (see deadline_math.h).
 *
 * One thread wakes every `resolution` on a condition variable against
 * gb_now_s's clock (bench/device/clock.h: monotonic, so wall clock steps do not
 * fire it early or late; simulated under the simulator) and compares the
 * deadline with the clock. Arming and disarming only write
 * the deadline under the lock, without waking the thread, so they are
 * cheap enough to bracket each operation of a timed loop. Firing runs the
 * callback with the lock held: a disarm that races with a firing returns
 * after the callback finished, never while it is half done. A callback that
 * declines leaves the deadline armed, so the next look asks again.
 */
#include "bench/device/deadline_math.h"
#include "bench/device/clock.h"

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
	double deadline_s; /* on gb_now_s()'s clock */
	const char *what;
};

static void *deadline_main(void *arg)
{
	struct gb_deadline *w = arg;

	pthread_mutex_lock(&w->lock);
	while (!w->quit) {
		double next = gb_now_s() + w->resolution_s;

		if (w->armed && gb_now_s() >= w->deadline_s && w->fire(w->user, w->what)) {
			w->armed = false;
			w->fired = true;
		}
		gb_cond_wait_until(&w->cond, &w->lock, next);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct gb_deadline *gb_deadline_start(gb_deadline_fire_fn fire, void *user, double resolution_s)
{
	struct gb_deadline *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fire = fire;
	w->user = user;
	w->resolution_s = resolution_s > 0.001 ? resolution_s : 0.001;
	pthread_mutex_init(&w->lock, NULL);
	gb_cond_init(&w->cond);
	if (gb_thread_start(&w->thread, deadline_main, w)) {
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

void gb_deadline_arm(struct gb_deadline *w, double seconds, const char *what)
{
	double deadline_s = gb_now_s() + seconds;

	pthread_mutex_lock(&w->lock);
	w->deadline_s = deadline_s;
	w->what = what;
	w->fired = false;
	w->armed = true;
	pthread_mutex_unlock(&w->lock);
}

void gb_deadline_hurry(struct gb_deadline *w, double seconds)
{
	double soon_s = gb_now_s() + seconds;

	pthread_mutex_lock(&w->lock);
	if (w->armed && soon_s < w->deadline_s)
		w->deadline_s = soon_s;
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
	gb_cond_signal(cond);
	pthread_mutex_unlock(lock);
	gb_thread_join(thread);
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
