/* SPDX-License-Identifier: MIT */
/*
 * vclock.h - simulated time (tests/sim/runtime/vclock.c), after the
 * deterministic simulation of FoundationDB and TigerBeetle.
 *
 * One clock for the whole process, in simulated seconds from 0. It moves only
 * when every *participant* waits: the main thread, every thread gpubench
 * starts (through bench/device/clock.h, which the runtime serves as
 * gbsim_clock_ops), and every simulated stream's worker. A participant that
 * computes (a kernel twin, a cuBLASLt product, the product's own arithmetic)
 * holds the clock where it is, however long the CPU takes. When all of them
 * wait, the clock jumps to the earliest deadline among them, and the waiters
 * whose deadline that is wake up. So the simulated time a run takes, and
 * every number it reports, depends on the machine file and the seed, not on
 * the CPU.
 *
 * Waking someone counts them as running at once, before the waker goes on:
 * otherwise the waker could wait next and let the clock jump while the one it
 * woke has not run yet. A wait that the clock cannot see (a plain
 * pthread_cond_wait on something another participant will do) stops the clock
 * for good; when every participant waits with no deadline at all, nothing can
 * ever happen again, and the simulator says so and aborts ("simulated
 * deadlock") rather than hang.
 *
 * Lock order: any lock of the caller, then the clock's (a leaf).
 */
#ifndef GPUBENCH_TESTS_SIM_VCLOCK_H
#define GPUBENCH_TESTS_SIM_VCLOCK_H

#include <pthread.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Simulated seconds since the process started. */
double gbsim_vc_now(void);

/*
 * Wait on chan (any address, the same one its waker names) with mutex held:
 * mutex is released while waiting and held again on return. Returns when
 * woken through chan (true) or when the clock reaches deadline_s (false;
 * INFINITY: never). Spurious wakes happen: loop on the condition.
 */
bool gbsim_vc_wait(const void *chan, pthread_mutex_t *mutex, double deadline_s);
/*
 * The same wait for an observer: when its deadline comes, it wakes only once
 * no other waiter is due at that instant, i.e. after every thread has done
 * what it does at that time. Two observers due together wake together.
 */
bool gbsim_vc_wait_observer(const void *chan, pthread_mutex_t *mutex, double deadline_s);
/* Wake every waiter of chan; they count as running from now. */
void gbsim_vc_wake(const void *chan);

/* Let simulated time pass: until the clock reaches now + seconds. */
void gbsim_vc_sleep(double seconds);

/*
 * Wait for the end of this simulated instant: until every other participant
 * waits, without moving the clock. Then whatever the others do at this time
 * is done, so looking at memory they write without waking anyone (a flag in
 * mapped memory) gives the same answer however the threads were scheduled.
 */
void gbsim_vc_settle(void);

/*
 * Start a thread that takes part in the clock: it counts as running from this
 * call until it returns. Joinable (pthread_create's default).
 */
int gbsim_vc_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);
/* Join such a thread unless the clock reaches deadline_s first (false). */
bool gbsim_vc_thread_join(pthread_t thread, double deadline_s);

#ifdef __cplusplus
}
#endif

#endif
