/* SPDX-License-Identifier: MIT */
/*
 * clock.c - gpubench's clock and waits (clock.h): CLOCK_MONOTONIC and
 * pthreads, or the simulator's `gbsim_clock_ops` when the process has them.
 */
#include "bench/device/clock.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <string.h>
#include <time.h>

static const struct gb_clock_ops *sim_ops;
static pthread_once_t sim_once = PTHREAD_ONCE_INIT;

/* Looked up once: the shipped gpubench has no such symbol anywhere in its process. */
static void find_sim_ops(void)
{
	sim_ops = dlsym(RTLD_DEFAULT, "gbsim_clock_ops");
}

static const struct gb_clock_ops *sim(void)
{
	pthread_once(&sim_once, find_sim_ops);
	return sim_ops;
}

double gb_wall_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gb_wall_sleep_s(double seconds)
{
	struct timespec ts;

	if (!(seconds > 0))
		return;
	if (seconds > 1e9)
		seconds = 1e9;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

double gb_now_s(void)
{
	return sim() ? sim()->now_s() : gb_wall_now_s();
}

void gb_sleep_s(double seconds)
{
	if (sim())
		sim()->sleep_s(seconds);
	else
		gb_wall_sleep_s(seconds);
}

void gb_yield(void)
{
	if (sim())
		sim()->yield();
	else
		sched_yield();
}

void gb_cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
}

/* An absolute CLOCK_MONOTONIC or CLOCK_REALTIME time for pthread, from a gb_now_s() deadline. */
static struct timespec abs_time(clockid_t clock, double deadline_s)
{
	double in_s = deadline_s - gb_wall_now_s(), whole;
	struct timespec t;

	clock_gettime(clock, &t);
	if (!(in_s > 0))
		in_s = 0;
	if (in_s > 1e9)
		in_s = 1e9; /* a time that never comes, without overflowing time_t */
	t.tv_nsec += (long)(modf(in_s, &whole) * 1e9);
	t.tv_sec += (time_t)whole + t.tv_nsec / 1000000000L;
	t.tv_nsec %= 1000000000L;
	return t;
}

bool gb_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex, double deadline_s)
{
	struct timespec t;

	if (sim())
		return sim()->cond_wait_until(cond, mutex, deadline_s);
	if (isinf(deadline_s)) {
		pthread_cond_wait(cond, mutex);
		return true;
	}
	t = abs_time(CLOCK_MONOTONIC, deadline_s); /* gb_cond_init's clock */
	return pthread_cond_timedwait(cond, mutex, &t) != ETIMEDOUT;
}

bool gb_cond_wait_observer_until(pthread_cond_t *cond, pthread_mutex_t *mutex,
				 double deadline_s)
{
	if (sim())
		return sim()->cond_wait_observer_until(cond, mutex, deadline_s);
	return gb_cond_wait_until(cond, mutex, deadline_s);
}

void gb_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
	gb_cond_wait_until(cond, mutex, INFINITY);
}

void gb_cond_signal(pthread_cond_t *cond)
{
	if (sim())
		sim()->cond_wake(cond);
	else
		pthread_cond_signal(cond);
}

void gb_cond_broadcast(pthread_cond_t *cond)
{
	if (sim())
		sim()->cond_wake(cond);
	else
		pthread_cond_broadcast(cond);
}

int gb_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	if (sim())
		return sim()->thread_start(thread, fn, arg);
	return pthread_create(thread, NULL, fn, arg);
}

void gb_thread_join(pthread_t thread)
{
	gb_thread_join_until(thread, INFINITY);
}

bool gb_thread_join_until(pthread_t thread, double deadline_s)
{
	struct timespec t;

	if (sim())
		return sim()->thread_join_until(thread, deadline_s);
	if (isinf(deadline_s))
		return pthread_join(thread, NULL) == 0;
	t = abs_time(CLOCK_REALTIME, deadline_s); /* pthread_timedjoin_np's clock */
	return pthread_timedjoin_np(thread, NULL, &t) == 0;
}

bool gb_mutex_lock_until(pthread_mutex_t *mutex, double deadline_s)
{
	struct timespec t;

	if (sim())
		return sim()->mutex_lock_until(mutex, deadline_s);
	t = abs_time(CLOCK_REALTIME, deadline_s); /* a mutex's timed lock runs on it */
	return pthread_mutex_timedlock(mutex, &t) == 0;
}
