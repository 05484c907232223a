/* SPDX-License-Identifier: MIT */
/* watchdog.c - the process-wide watchdog (see watchdog.h). */
#include "watchdog.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/device/clock.h"
#include "bench/device/deadline_math.h"
#include "cli.h"
#include "report/result.h"

struct gb_runwatch {
	struct gb_runwatch_cfg cfg;
	pthread_t thread;
	pthread_mutex_t lock;      /* guards clock, phase, last_line, phase_user, done */
	pthread_cond_t wake;       /* stop() wakes the thread at once */
	struct gb_wd_clock clock;
	char phase[64];
	char last_line[256];
	void *phase_user;
	bool done;
	atomic_int claimed;        /* 0 free, 1 finish path, 2 watchdog */
};

enum gb_wd_fire gb_wd_decide(struct gb_wd_clock *c, double now, int stop_level, double *silent_s,
			     double *limit_s)
{
	double silent = now - c->last_beat_s;
	double limit = c->limit_s > 0 ? fmax(c->limit_s, c->hint_s) : 0;

	if (silent_s)
		*silent_s = silent;
	if (limit_s)
		*limit_s = limit;
	if (stop_level >= 2)
		return GB_WD_SECOND_SIGNAL;
	if (stop_level >= 1) {
		/* beats after the signal do not count: finishing is what is awaited */
		if (c->stop_seen_s < 0)
			c->stop_seen_s = now;
		if (c->grace_s > 0 && now - c->stop_seen_s >= c->grace_s)
			return GB_WD_STOP_TIMEOUT;
	}
	if (limit > 0 && silent >= limit)
		return GB_WD_HUNG;
	return GB_WD_NONE;
}

/* Decide under the lock; on a fire, fill ev. */
static enum gb_wd_fire check(struct gb_runwatch *w, struct gb_wd_event *ev)
{
	int stop = w->cfg.stop ? (int)__atomic_load_n(w->cfg.stop, __ATOMIC_RELAXED) : 0;
	double now = gb_now_s();
	enum gb_wd_fire why;

	memset(ev, 0, sizeof(*ev));
	pthread_mutex_lock(&w->lock);
	why = gb_wd_decide(&w->clock, now, stop, &ev->silent_s, &ev->limit_s);
	ev->why = why;
	ev->since_stop_s = w->clock.stop_seen_s < 0 ? -1 : now - w->clock.stop_seen_s;
	snprintf(ev->phase, sizeof(ev->phase), "%s", w->phase);
	snprintf(ev->last_line, sizeof(ev->last_line), "%s", w->last_line);
	ev->phase_user = w->phase_user;
	pthread_mutex_unlock(&w->lock);
	return why;
}

/* Sleep up to poll_s, or until stop(); true when told to end. */
static bool nap(struct gb_runwatch *w)
{
	double until = gb_now_s() + w->cfg.poll_s;
	bool done;

	pthread_mutex_lock(&w->lock);
	while (!w->done && gb_cond_wait_until(&w->wake, &w->lock, until))
		;
	done = w->done;
	pthread_mutex_unlock(&w->lock);
	return done;
}

static void *watch(void *arg)
{
	struct gb_runwatch *w = arg;
	struct gb_wd_event ev;

	while (!nap(w)) {
		if (check(w, &ev) == GB_WD_NONE)
			continue;
		/* the finish path got there first: it writes the report, not us */
		if (!atomic_compare_exchange_strong(&w->claimed, &(int){ 0 }, 2))
			break;
		w->cfg.fire(w->cfg.user, &ev);
		break;
	}
	return NULL;
}

struct gb_runwatch *gb_runwatch_start(const struct gb_runwatch_cfg *cfg)
{
	struct gb_runwatch *w = calloc(1, sizeof(*w));
	sigset_t block, old;
	int rc;

	if (!w)
		return NULL;
	w->cfg = *cfg;
	if (w->cfg.poll_s <= 0)
		w->cfg.poll_s = GB_WD_POLL_S;
	w->clock.limit_s = cfg->limit_s;
	w->clock.grace_s = cfg->grace_s;
	w->clock.last_beat_s = gb_now_s();
	w->clock.stop_seen_s = -1;
	snprintf(w->phase, sizeof(w->phase), "start-up");
	atomic_init(&w->claimed, 0);
	pthread_mutex_init(&w->lock, NULL);
	gb_cond_init(&w->wake);
	/* the thread inherits a mask with SIGINT/SIGTERM blocked: signals go to
	 * the threads that do the work, never interrupt the one that watches */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = gb_thread_start(&w->thread, watch, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

void gb_runwatch_beat(struct gb_runwatch *w, const char *line, double expect_s)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->clock.last_beat_s = gb_now_s();
	if (line)
		snprintf(w->last_line, sizeof(w->last_line), "%s", line);
	if (expect_s > w->clock.hint_s)
		w->clock.hint_s = expect_s;
	pthread_mutex_unlock(&w->lock);
}

void gb_runwatch_phase(struct gb_runwatch *w, const char *name, void *phase_user)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	snprintf(w->phase, sizeof(w->phase), "%s", name ? name : "");
	w->phase_user = phase_user;
	w->last_line[0] = '\0';
	w->clock.hint_s = 0;
	w->clock.last_beat_s = gb_now_s();
	pthread_mutex_unlock(&w->lock);
}

bool gb_runwatch_claim(struct gb_runwatch *w)
{
	int free_ = 0;

	return !w || atomic_compare_exchange_strong(&w->claimed, &free_, 1);
}

bool gb_runwatch_fired(struct gb_runwatch *w)
{
	return w && atomic_load(&w->claimed) == 2;
}

void gb_runwatch_stop(struct gb_runwatch *w)
{
	if (!w)
		return;
	gb_thread_quit_join(w->thread, &w->lock, &w->wake, &w->done);
	free(w);
}

int gb_runwatch_parse_s(const char *name, const char *value, double *seconds, char *err,
			size_t errlen)
{
	if (!strcmp(value, "0") || !strcmp(value, "off")) {
		*seconds = 0;
		return 0;
	}
	if (gb_parse_duration(value, seconds) || !isfinite(*seconds) || *seconds <= 0 ||
	    *seconds > 1e7) {
		char shown[65];

		/* the environment is input: no control character reaches the terminal */
		snprintf(shown, sizeof(shown), "%s", value);
		gb_str_printable(shown);
		snprintf(err, errlen,
			 "invalid value '%s' for %s: expected a duration like 90s, 10m or 1h, or off",
			 shown, name);
		return -1;
	}
	return 0;
}
