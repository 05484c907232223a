/* SPDX-License-Identifier: MIT */
/*
 * test_runwatch.c - the process watchdog (cmd/watchdog.c) on the CPU: the
 * deadline arithmetic as pure data, then the thread itself with short
 * limits and a fire callback that records instead of exiting.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "cmd/watchdog.h"

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - floor(s)) * 1e9) };

	nanosleep(&ts, NULL);
}

static struct gb_wd_clock clock_at(double limit, double grace, double beat)
{
	struct gb_wd_clock c = { .limit_s = limit, .grace_s = grace, .last_beat_s = beat,
				 .hint_s = 0, .stop_seen_s = -1 };

	return c;
}

/* ---- the decision ---- */

static void test_decide_silence(void **state)
{
	struct gb_wd_clock c = clock_at(120, 30, 1000);
	double silent, limit;

	(void)state;
	assert_int_equal(gb_wd_decide(&c, 1000, 0, &silent, &limit), GB_WD_NONE);
	assert_int_equal(gb_wd_decide(&c, 1119.9, 0, &silent, &limit), GB_WD_NONE);
	assert_true(fabs(silent - 119.9) < 1e-9);
	assert_true(limit == 120);
	assert_int_equal(gb_wd_decide(&c, 1120, 0, &silent, NULL), GB_WD_HUNG);
	assert_int_equal(gb_wd_decide(&c, 5000, 0, NULL, NULL), GB_WD_HUNG);
	/* a beat starts the count again */
	c.last_beat_s = 5000;
	assert_int_equal(gb_wd_decide(&c, 5001, 0, NULL, NULL), GB_WD_NONE);
}

/* The benchmark's own expectation raises the limit, never lowers it. */
static void test_decide_hint(void **state)
{
	struct gb_wd_clock c = clock_at(120, 30, 0);
	double limit;

	(void)state;
	c.hint_s = 300;
	assert_int_equal(gb_wd_decide(&c, 299, 0, NULL, &limit), GB_WD_NONE);
	assert_true(limit == 300);
	assert_int_equal(gb_wd_decide(&c, 300, 0, NULL, NULL), GB_WD_HUNG);
	c.hint_s = 10;
	assert_int_equal(gb_wd_decide(&c, 119, 0, NULL, &limit), GB_WD_NONE);
	assert_true(limit == 120);
}

static void test_decide_off(void **state)
{
	struct gb_wd_clock c = clock_at(0, 0, 0);

	(void)state;
	assert_int_equal(gb_wd_decide(&c, 1e9, 0, NULL, NULL), GB_WD_NONE);
	/* no grace: a first signal alone never fires; a second always does */
	assert_int_equal(gb_wd_decide(&c, 1e9, 1, NULL, NULL), GB_WD_NONE);
	assert_int_equal(gb_wd_decide(&c, 2e9, 1, NULL, NULL), GB_WD_NONE);
	assert_int_equal(gb_wd_decide(&c, 2e9, 2, NULL, NULL), GB_WD_SECOND_SIGNAL);
}

/* After a stop signal the run has the grace period to finish, beats or not. */
static void test_decide_stop(void **state)
{
	struct gb_wd_clock c = clock_at(120, 30, 100);

	(void)state;
	assert_int_equal(gb_wd_decide(&c, 110, 1, NULL, NULL), GB_WD_NONE);
	assert_true(c.stop_seen_s == 110);
	c.last_beat_s = 135; /* still beating: finishing is what counts */
	assert_int_equal(gb_wd_decide(&c, 139.9, 1, NULL, NULL), GB_WD_NONE);
	assert_int_equal(gb_wd_decide(&c, 140, 1, NULL, NULL), GB_WD_STOP_TIMEOUT);
	/* the first sight is latched */
	assert_true(c.stop_seen_s == 110);
	/* a second signal at any time */
	c = clock_at(120, 30, 100);
	assert_int_equal(gb_wd_decide(&c, 101, 2, NULL, NULL), GB_WD_SECOND_SIGNAL);
	/* silence still counts before the grace runs out */
	c = clock_at(120, 30, 0);
	assert_int_equal(gb_wd_decide(&c, 125, 1, NULL, NULL), GB_WD_HUNG);
}

static void test_parse(void **state)
{
	char err[256];
	double s = -1;

	(void)state;
	assert_int_equal(gb_runwatch_parse_s("GPUBENCH_WATCHDOG", "10m", &s, err, sizeof(err)), 0);
	assert_true(s == 600);
	assert_int_equal(gb_runwatch_parse_s("GPUBENCH_WATCHDOG", "90s", &s, err, sizeof(err)), 0);
	assert_true(s == 90);
	assert_int_equal(gb_runwatch_parse_s("GPUBENCH_WATCHDOG", "off", &s, err, sizeof(err)), 0);
	assert_true(s == 0);
	assert_int_equal(gb_runwatch_parse_s("GPUBENCH_WATCHDOG", "0", &s, err, sizeof(err)), 0);
	assert_true(s == 0);
	assert_int_equal(gb_runwatch_parse_s("GPUBENCH_WATCHDOG", "10", &s, err, sizeof(err)), -1);
	assert_string_equal(err, "invalid value '10' for GPUBENCH_WATCHDOG: expected a duration "
				 "like 90s, 10m or 1h, or off");
	assert_int_equal(gb_runwatch_parse_s("GPUBENCH_STOP_GRACE", "-5s", &s, err, sizeof(err)),
			 -1);
	/* input is quoted without control characters */
	assert_int_equal(gb_runwatch_parse_s("X", "a\nb\x1b", &s, err, sizeof(err)), -1);
	assert_null(strchr(err, '\n'));
	assert_null(strchr(err, '\x1b'));
}

/* ---- the thread ---- */

struct fired {
	atomic_int count;
	struct gb_wd_event ev;
	double at;
};

static void record(void *user, const struct gb_wd_event *ev)
{
	struct fired *f = user;

	f->ev = *ev;
	f->at = mono_s();
	atomic_fetch_add(&f->count, 1);
}

static struct gb_runwatch *start(struct fired *f, double limit, double grace,
				 volatile sig_atomic_t *stop)
{
	struct gb_runwatch_cfg cfg = { .limit_s = limit, .grace_s = grace, .poll_s = 0.01,
				       .stop = stop, .fire = record, .user = f };
	struct gb_runwatch *w;

	memset(f, 0, sizeof(*f));
	atomic_init(&f->count, 0);
	w = gb_runwatch_start(&cfg);
	assert_non_null(w);
	return w;
}

/* Wait up to 10 s for the callback (2 cores, other builds running). */
static bool wait_fired(struct fired *f)
{
	for (double t0 = mono_s(); mono_s() - t0 < 10;) {
		if (atomic_load(&f->count))
			return true;
		sleep_s(0.005);
	}
	return false;
}

static void test_thread_fires_on_silence(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct fired f;
	struct gb_runwatch *w = start(&f, 0.2, 30, &stop);
	double t0 = mono_s();
	int marker;

	(void)state;
	gb_runwatch_phase(w, "gemm", &marker);
	gb_runwatch_beat(w, "gemm: GPU 1 bf16: warming up", 0);
	assert_true(wait_fired(&f));
	assert_int_equal(f.ev.why, GB_WD_HUNG);
	assert_true(f.ev.silent_s >= 0.2);
	assert_true(f.at - t0 >= 0.2);
	assert_true(f.ev.limit_s == 0.2);
	assert_string_equal(f.ev.phase, "gemm");
	assert_string_equal(f.ev.last_line, "gemm: GPU 1 bf16: warming up");
	assert_ptr_equal(f.ev.phase_user, &marker);
	assert_true(f.ev.since_stop_s < 0);
	/* it fired and claimed the report: the finish path must not write it */
	assert_true(gb_runwatch_fired(w));
	assert_false(gb_runwatch_claim(w));
	sleep_s(0.1);
	assert_int_equal(atomic_load(&f.count), 1);
	gb_runwatch_stop(w);
}

/* Beats keep it quiet far past the limit; a new phase clears the line and hint. */
static void test_thread_beats_keep_quiet(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct fired f;
	struct gb_runwatch *w = start(&f, 0.5, 30, &stop);

	(void)state;
	gb_runwatch_phase(w, "bandwidth", NULL);
	for (int i = 0; i < 100; i++) { /* 1.5 s, three limits */
		gb_runwatch_beat(w, NULL, 0);
		sleep_s(0.015);
	}
	assert_int_equal(atomic_load(&f.count), 0);
	/* a hint of 1.5 s: silent for 1 s is fine */
	gb_runwatch_beat(w, "scaling: one long step", 1.5);
	sleep_s(1.0);
	assert_int_equal(atomic_load(&f.count), 0);
	/* a new phase drops the hint: silence now fires at 0.5 s */
	gb_runwatch_phase(w, "p2p", NULL);
	assert_true(wait_fired(&f));
	assert_int_equal(f.ev.why, GB_WD_HUNG);
	assert_string_equal(f.ev.phase, "p2p");
	assert_string_equal(f.ev.last_line, "");
	gb_runwatch_stop(w);
}

static void test_thread_stop_grace(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct fired f;
	struct gb_runwatch *w = start(&f, 60, 0.3, &stop);
	double t0;

	(void)state;
	gb_runwatch_phase(w, "stress", NULL);
	sleep_s(0.1);
	assert_int_equal(atomic_load(&f.count), 0);
	stop = 1;
	t0 = mono_s();
	assert_true(wait_fired(&f));
	assert_int_equal(f.ev.why, GB_WD_STOP_TIMEOUT);
	assert_true(f.at - t0 >= 0.3 - 0.02);
	assert_true(f.ev.since_stop_s >= 0.3);
	gb_runwatch_stop(w);
}

static void test_thread_second_signal(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct fired f;
	struct gb_runwatch *w = start(&f, 60, 30, &stop);

	(void)state;
	stop = 1;
	sleep_s(0.1);
	assert_int_equal(atomic_load(&f.count), 0);
	stop = 2;
	assert_true(wait_fired(&f));
	assert_int_equal(f.ev.why, GB_WD_SECOND_SIGNAL);
	gb_runwatch_stop(w);
}

/* The finish path claims first: the watchdog never fires after that. */
static void test_thread_claim_wins(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct fired f;
	struct gb_runwatch *w = start(&f, 0.05, 30, &stop);

	(void)state;
	assert_true(gb_runwatch_claim(w));
	assert_false(gb_runwatch_claim(w));
	sleep_s(0.3);
	assert_int_equal(atomic_load(&f.count), 0);
	assert_false(gb_runwatch_fired(w));
	gb_runwatch_stop(w);
	/* and stopping is prompt (no wait for the poll), NULL is fine */
	gb_runwatch_stop(NULL);
	gb_runwatch_beat(NULL, "x", 0);
	gb_runwatch_phase(NULL, "x", NULL);
	assert_true(gb_runwatch_claim(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide_silence),
		cmocka_unit_test(test_decide_hint),
		cmocka_unit_test(test_decide_off),
		cmocka_unit_test(test_decide_stop),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_thread_fires_on_silence),
		cmocka_unit_test(test_thread_beats_keep_quiet),
		cmocka_unit_test(test_thread_stop_grace),
		cmocka_unit_test(test_thread_second_signal),
		cmocka_unit_test(test_thread_claim_wins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
