/* SPDX-License-Identifier: MIT */
/*
 * test_deadline.c - unit tests for bench/device/deadline_math.c, the watchdog that
 * ends a blocking NCCL call: it fires once a deadline passes and makes a
 * "blocked call" (here, a loop waiting for the fire) return; it stays quiet
 * when the call beats the deadline; it can be re-armed after firing; it
 * stops at once even while armed far ahead; hurrying brings an armed
 * deadline forward, never back, and never fires a call that returned (nor
 * one armed after the hurry); and a fire that declines is asked again.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/device/deadline_math.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

struct fires {
	atomic_int n;
	const char *what;
};

static bool on_fire(void *user, const char *what)
{
	struct fires *f = user;

	f->what = what;
	atomic_fetch_add(&f->n, 1);
	return true;
}

/* A fire that may not act until `allowed` (another thread still in the way). */
struct held_fires {
	atomic_int asked, n;
	atomic_bool allowed;
};

static bool on_fire_when_allowed(void *user, const char *what)
{
	struct held_fires *f = user;

	(void)what;
	atomic_fetch_add(&f->asked, 1);
	if (!atomic_load(&f->allowed))
		return false;
	atomic_fetch_add(&f->n, 1);
	return true;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
	struct timespec t = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&t, NULL);
}

/* A call that returns only when the deadline fires (or after 10 s: a test failure). */
static void blocked_call(struct fires *f)
{
	double give_up = now_s() + 10;

	while (atomic_load(&f->n) == 0 && now_s() < give_up)
		sleep_s(0.001);
}

static void test_fires_and_unblocks(void **state)
{
	struct fires f = { 0, NULL };
	struct gb_deadline *w = gb_deadline_start(on_fire, &f, 0.005);
	double t0 = now_s(), took;

	(void)state;
	assert_non_null(w);
	gb_deadline_arm(w, 0.05, "ncclGroupEnd");
	blocked_call(&f);
	took = now_s() - t0;
	assert_true(gb_deadline_disarm(w));
	assert_int_equal(atomic_load(&f.n), 1);
	assert_string_equal(f.what, "ncclGroupEnd");
	/* not before the deadline, and not much after it */
	assert_true(took >= 0.05);
	assert_true(took < 2);
	/* disarm reports a firing once */
	assert_false(gb_deadline_disarm(w));
	gb_deadline_stop(w);
}

static void test_quiet_when_in_time(void **state)
{
	struct fires f = { 0, NULL };
	struct gb_deadline *w = gb_deadline_start(on_fire, &f, 0.005);

	(void)state;
	for (int i = 0; i < 1000; i++) {
		gb_deadline_arm(w, 0.2, "a fast call");
		assert_false(gb_deadline_disarm(w));
	}
	sleep_s(0.3); /* past every deadline, but nothing is armed */
	assert_int_equal(atomic_load(&f.n), 0);
	gb_deadline_stop(w);
}

static void test_rearm_after_firing(void **state)
{
	struct fires f = { 0, NULL };
	struct gb_deadline *w = gb_deadline_start(on_fire, &f, 0.005);

	(void)state;
	gb_deadline_arm(w, 0.01, "first");
	blocked_call(&f);
	assert_true(gb_deadline_disarm(w));
	gb_deadline_arm(w, 5, "second");
	assert_false(gb_deadline_disarm(w));
	atomic_store(&f.n, 0);
	gb_deadline_arm(w, 0.01, "third");
	blocked_call(&f);
	assert_true(gb_deadline_disarm(w));
	assert_string_equal(f.what, "third");
	gb_deadline_stop(w);
}

static void test_stop_while_armed(void **state)
{
	struct fires f = { 0, NULL };
	struct gb_deadline *w = gb_deadline_start(on_fire, &f, 0.5);
	double t0 = now_s();

	(void)state;
	gb_deadline_arm(w, 3600, "a long wait");
	gb_deadline_stop(w);
	assert_true(now_s() - t0 < 1);
	assert_int_equal(atomic_load(&f.n), 0);
	gb_deadline_stop(NULL);
}

/* Another thread's failure hurries a call that was watched far ahead: it is ended soon. */
static void test_hurry_ends_a_long_wait(void **state)
{
	struct fires f = { 0, NULL };
	struct gb_deadline *w = gb_deadline_start(on_fire, &f, 0.005);
	double t0 = now_s(), took;

	(void)state;
	gb_deadline_arm(w, 3600, "ncclAllReduce");
	gb_deadline_hurry(w, 0.05);
	blocked_call(&f);
	took = now_s() - t0;
	assert_true(gb_deadline_disarm(w));
	assert_string_equal(f.what, "ncclAllReduce");
	/* no sooner than the grace it was given, and long before the hour */
	assert_true(took >= 0.05);
	assert_true(took < 2);
	gb_deadline_stop(w);
}

/* Hurrying moves a deadline earlier only: a sooner one still fires on time. */
static void test_hurry_never_delays(void **state)
{
	struct fires f = { 0, NULL };
	struct gb_deadline *w = gb_deadline_start(on_fire, &f, 0.005);
	double t0 = now_s();

	(void)state;
	gb_deadline_arm(w, 0.05, "soon");
	gb_deadline_hurry(w, 3600);
	blocked_call(&f);
	assert_true(now_s() - t0 < 2);
	assert_true(gb_deadline_disarm(w));
	gb_deadline_stop(w);
}

/*
 * A call that already returned (disarmed) is never fired at, and the hurry
 * does not carry over to the next arming: the watchdog may only abort
 * while the watched thread is inside its call.
 */
static void test_hurry_leaves_unarmed_alone(void **state)
{
	struct fires f = { 0, NULL };
	struct gb_deadline *w = gb_deadline_start(on_fire, &f, 0.005);

	(void)state;
	gb_deadline_arm(w, 5, "returned");
	assert_false(gb_deadline_disarm(w));
	gb_deadline_hurry(w, 0);
	sleep_s(0.1);
	assert_int_equal(atomic_load(&f.n), 0);
	gb_deadline_arm(w, 5, "next");
	sleep_s(0.1);
	assert_int_equal(atomic_load(&f.n), 0);
	assert_false(gb_deadline_disarm(w));
	gb_deadline_stop(w);
}

/*
 * A fire that declines is asked again at the next look, and fires once it
 * agrees: a rank's watchdog waits while another aborted rank's thread is
 * still inside NCCL (nccl_comm.c), then aborts. Until then nothing fired.
 */
static void test_declined_fire_is_asked_again(void **state)
{
	struct held_fires f;
	struct gb_deadline *w;
	double give_up;

	(void)state;
	atomic_init(&f.asked, 0);
	atomic_init(&f.n, 0);
	atomic_init(&f.allowed, false);
	w = gb_deadline_start(on_fire_when_allowed, &f, 0.005);
	assert_non_null(w);
	gb_deadline_arm(w, 0.01, "ncclAllReduce");
	give_up = now_s() + 10;
	while (atomic_load(&f.asked) < 3 && now_s() < give_up)
		sleep_s(0.001);
	assert_true(atomic_load(&f.asked) >= 3);
	assert_int_equal(atomic_load(&f.n), 0);
	atomic_store(&f.allowed, true);
	while (atomic_load(&f.n) == 0 && now_s() < give_up)
		sleep_s(0.001);
	assert_int_equal(atomic_load(&f.n), 1);
	assert_true(gb_deadline_disarm(w));
	gb_deadline_stop(w);
}

/* A call that returns while its fire still declines was not fired at, and is not asked again. */
static void test_declined_fire_then_disarmed(void **state)
{
	struct held_fires f;
	struct gb_deadline *w;
	double give_up = now_s() + 10;
	int asked;

	(void)state;
	atomic_init(&f.asked, 0);
	atomic_init(&f.n, 0);
	atomic_init(&f.allowed, false);
	w = gb_deadline_start(on_fire_when_allowed, &f, 0.005);
	assert_non_null(w);
	gb_deadline_arm(w, 0.01, "ncclAllReduce");
	while (atomic_load(&f.asked) == 0 && now_s() < give_up)
		sleep_s(0.001);
	assert_false(gb_deadline_disarm(w));
	asked = atomic_load(&f.asked);
	atomic_store(&f.allowed, true);
	sleep_s(0.05);
	assert_int_equal(atomic_load(&f.asked), asked);
	assert_int_equal(atomic_load(&f.n), 0);
	gb_deadline_stop(w);
}

/*
 * A hurry that comes before the arming is lost: the arming gets its full
 * time. So a thread must look for a failure that hurried the others after
 * arming, before its call (scaling_allreduce.c worker_allreduce), or it waits for
 * the dead peer until the timeout.
 */
static void test_hurry_before_arm_is_lost(void **state)
{
	struct fires f = { 0, NULL };
	struct gb_deadline *w = gb_deadline_start(on_fire, &f, 0.005);

	(void)state;
	gb_deadline_hurry(w, 0.01);
	gb_deadline_arm(w, 3600, "ncclAllReduce");
	sleep_s(0.1);
	assert_int_equal(atomic_load(&f.n), 0);
	assert_false(gb_deadline_disarm(w));
	gb_deadline_stop(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fires_and_unblocks),
		cmocka_unit_test(test_quiet_when_in_time),
		cmocka_unit_test(test_rearm_after_firing),
		cmocka_unit_test(test_stop_while_armed),
		cmocka_unit_test(test_hurry_ends_a_long_wait),
		cmocka_unit_test(test_hurry_never_delays),
		cmocka_unit_test(test_hurry_leaves_unarmed_alone),
		cmocka_unit_test(test_declined_fire_is_asked_again),
		cmocka_unit_test(test_declined_fire_then_disarmed),
		cmocka_unit_test(test_hurry_before_arm_is_lost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
