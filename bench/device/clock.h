/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the one clock gpubench reads, and every wait that depends on it.
 *
 * Every duration, deadline, watchdog, sampler interval and sleep of the
 * product goes through these functions, never through clock_gettime,
 * nanosleep or pthread's timed waits directly. In gpubench they are the real
 * thing: CLOCK_MONOTONIC and pthreads. In gpubench-sim, the simulated CUDA
 * runtime exports `gbsim_clock_ops` (found with dlsym, as gbsim_report_label
 * is in report/host.c; no environment variable is read), and every call goes
 * to the simulator's clock instead: simulated time, which moves only when
 * every thread of the process waits (tests/sim/vclock.h). So a simulated run
 * takes the same simulated time, and writes the same report, however slow or
 * busy the CPU that computes it.
 *
 * For that the simulator must see every wait: a thread that the product
 * starts goes through gb_thread_start, and a condition variable it waits on
 * is woken through gb_cond_signal/gb_cond_broadcast. A wait the simulator does
 * not see (a plain pthread_cond_wait on an event another thread of ours
 * brings) would stop simulated time for good.
 *
 * Waits on other processes (MPI ranks, the fleet's nodes, the reader of a
 * FIFO) are the exception, gb_wall_*: another process's simulated clock is its
 * own, so only the real clock can bound them.
 *
 * CPU-only: part of gpubench_core.
 */
#ifndef GPUBENCH_BENCH_CLOCK_H
#define GPUBENCH_BENCH_CLOCK_H

#include <pthread.h>
#include <stdbool.h>

/* Seconds on the monotonic clock (simulated seconds under the simulator). */
double gb_now_s(void);

/* Sleep seconds (none if <= 0); a signal does not cut it short. */
void gb_sleep_s(double seconds);

/* The pause of a spinning wait: sched_yield, or a microsecond of simulated time. */
void gb_yield(void);

/* Make a condition variable whose timed waits run on gb_now_s's clock. */
void gb_cond_init(pthread_cond_t *cond);

/*
 * Wait on cond (mutex held) until woken or until gb_now_s() reaches
 * deadline_s (INFINITY: no limit). false: the deadline passed. Wakes may be
 * spurious, as pthread's: loop on the condition.
 */
bool gb_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex, double deadline_s);
/*
 * The same wait for a thread that only observes the others (the telemetry
 * sampler). Under the simulator its deadline comes due only after every other
 * thread has done what it does at that simulated instant, so a sample taken
 * when it returns lands on the same side of a benchmark's step boundary
 * however the host schedules the threads. On the real clock there are no
 * such instants and it is gb_cond_wait_until.
 */
bool gb_cond_wait_observer_until(pthread_cond_t *cond, pthread_mutex_t *mutex,
				 double deadline_s);
void gb_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex);
void gb_cond_signal(pthread_cond_t *cond);
void gb_cond_broadcast(pthread_cond_t *cond);

/* pthread_create with default attributes; 0 or the error number. */
int gb_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);
void gb_thread_join(pthread_t thread);
/* Join unless gb_now_s() reaches deadline_s first; false: still running. */
bool gb_thread_join_until(pthread_t thread, double deadline_s);

/* Lock unless gb_now_s() reaches deadline_s first; false: not locked. */
bool gb_mutex_lock_until(pthread_mutex_t *mutex, double deadline_s);

/* The real monotonic clock and a real sleep, for waits on other processes. */
double gb_wall_now_s(void);
void gb_wall_sleep_s(double seconds);

/*
 * What the simulator exports as `gbsim_clock_ops` (tests/sim/runtime/
 * vclock.c). Deadlines are on its now_s() scale. cond_wake wakes every
 * waiter of cond; the simulator's waits do not use cond itself.
 */
struct gb_clock_ops {
	double (*now_s)(void);
	void (*sleep_s)(double seconds);
	void (*yield)(void);
	bool (*cond_wait_until)(pthread_cond_t *cond, pthread_mutex_t *mutex, double deadline_s);
	bool (*cond_wait_observer_until)(pthread_cond_t *cond, pthread_mutex_t *mutex,
					 double deadline_s);
	void (*cond_wake)(pthread_cond_t *cond);
	int (*thread_start)(pthread_t *thread, void *(*fn)(void *), void *arg);
	bool (*thread_join_until)(pthread_t thread, double deadline_s);
	bool (*mutex_lock_until)(pthread_mutex_t *mutex, double deadline_s);
};

#endif
