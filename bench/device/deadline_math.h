/* SPDX-License-Identifier: MIT */
/*
 * deadline_math.h - a watchdog for one call that may block for ever.
 *
 * A benchmark that must call a library function that can wait without
 * limit (a blocking NCCL group that waits for a rank that died) arms the
 * deadline around the call. If the call has not returned when the deadline
 * passes, the deadline's thread calls `fire`, which must make the call
 * return (ncclCommRevoke or ncclCommAbort does, for NCCL); the caller
 * learns from gb_deadline_disarm() that it happened. (cmd/watchdog.h is another thing:
 * the whole process's limit.)
 *
 * Plain pthreads and bench/device/clock.h, no CUDA: it lives with the CPU-only
 * code (the *_math.c files make up gpubench_core) so the unit tests can
 * drive it without a GPU.
 */
#ifndef GPUBENCH_BENCH_DEADLINE_MATH_H
#define GPUBENCH_BENCH_DEADLINE_MATH_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

struct gb_deadline;

/*
 * Called on the deadline's thread when an armed deadline passes, with the
 * `what` given to gb_deadline_arm(). The deadline's lock is held, so it
 * must not call gb_deadline_*; gb_deadline_disarm() waits until it returns.
 * true: it ended the call (disarm will say so). false: it may not act yet
 * (another thread must first get out of the way, see nccl_comm.c); the
 * deadline stays armed and passed, so it is asked again at the next look,
 * until it agrees or the call is disarmed.
 */
typedef bool (*gb_deadline_fire_fn)(void *user, const char *what);

/*
 * Start the thread; NULL when it cannot be started. It looks at the
 * deadline every resolution_s (>= 0.001), so it fires at most that late:
 * arming and disarming then cost one uncontended lock, never a wake-up, and
 * can bracket every operation of a timed loop.
 */
struct gb_deadline *gb_deadline_start(gb_deadline_fire_fn fire, void *user,
				      double resolution_s);

/* Fire after `seconds` unless disarmed first. `what` must outlive the arming. */
void gb_deadline_arm(struct gb_deadline *w, double seconds, const char *what);

/*
 * Bring an armed deadline forward to at most `seconds` from now (a later
 * deadline is left alone); nothing happens when it is not armed, so a call
 * that already returned is never fired at. For ending a watched call early
 * because its peers have given up: since the deadline can only move to
 * `seconds` after now, and now is after the arming, it still fires no
 * sooner than `seconds` after gb_deadline_arm(), which leaves the watched
 * thread that long to get from arming into the call it watches.
 */
void gb_deadline_hurry(struct gb_deadline *w, double seconds);

/*
 * Stop the countdown. true when it fired since gb_deadline_arm()
 * (fire has then returned); false when the call beat the deadline.
 */
bool gb_deadline_disarm(struct gb_deadline *w);

/* Stop the thread and free. NULL is fine. */
void gb_deadline_stop(struct gb_deadline *w);

/*
 * End a helper thread that waits on cond under lock until *quit: set *quit
 * under the lock, wake it, join it, then destroy lock and cond (the owner
 * frees the rest). The deadline's thread, the telemetry sampler and the
 * process watchdog all stop this way.
 */
void gb_thread_quit_join(pthread_t thread, pthread_mutex_t *lock, pthread_cond_t *cond,
			 bool *quit);

#endif
