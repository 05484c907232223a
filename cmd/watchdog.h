/* SPDX-License-Identifier: MIT */
/*
 * watchdog.h - the process-wide watchdog: a run whose benchmark stops
 * making progress (a kernel or a driver call that never returns) still ends,
 * with its report written, instead of hanging forever.
 *
 * Benchmarks beat through their context (every gb_progress() and
 * gb_should_stop() call, see bench/bench.h); cmd/ names the phase that is
 * running. A thread wakes a few times a second and decides, with
 * gb_wd_decide():
 *   - no beat for max(limit, the benchmark's own hint): hung;
 *   - the stop flag set (SIGINT/SIGTERM) and the run not finished within
 *     the grace period: hung after the signal;
 *   - the stop flag at 2 (a second signal): give up waiting at once.
 * It then calls the fire callback once, which in gpubench writes the report
 * and _exit()s; the callback may return (tests), and the thread ends.
 *
 * The finish path and the watchdog race for the report with
 * gb_runwatch_claim(): whoever claims first writes it, the other never does.
 *
 * CPU only, in the core library, so the deadline arithmetic and the thread
 * are unit-tested (tests/cmd/test_runwatch.c).
 */
#ifndef GPUBENCH_CMD_WATCHDOG_H
#define GPUBENCH_CMD_WATCHDOG_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* Defaults: generous, because a false "hung" ends a healthy run. */
#define GB_WD_LIMIT_S 120.0      /* no beat for this long: hung */
#define GB_WD_STOP_GRACE_S 30.0  /* after a stop signal: this long to finish */
#define GB_WD_POLL_S 0.25

enum gb_wd_fire {
	GB_WD_NONE = 0,
	GB_WD_HUNG,          /* no beat for the limit */
	GB_WD_STOP_TIMEOUT,  /* a stop signal, and no finish within the grace period */
	GB_WD_SECOND_SIGNAL, /* a second stop signal */
};

/* The clock the decision reads (pure data: see gb_wd_decide()). */
struct gb_wd_clock {
	double limit_s;      /* no beat for this long is hung; 0: never hung by silence */
	double grace_s;      /* after the first stop signal; 0: no limit */
	double last_beat_s;  /* monotonic time of the last beat (or phase start) */
	double hint_s;       /* the running phase's own expected silence, 0 if none */
	double stop_seen_s;  /* when the stop flag was first seen; < 0 until then */
};

/*
 * What to do at monotonic time now with the stop flag at stop_level (0, 1,
 * 2 or more). Latches the first sight of the stop flag into c. *silent_s
 * (may be NULL) gets the seconds since the last beat; *limit_s (may be
 * NULL) the silence limit that applied.
 */
enum gb_wd_fire gb_wd_decide(struct gb_wd_clock *c, double now, int stop_level, double *silent_s,
			     double *limit_s);

/* What the fire callback is told. */
struct gb_wd_event {
	enum gb_wd_fire why;
	double silent_s;          /* since the last beat */
	double limit_s;           /* the silence limit that applied */
	double since_stop_s;      /* since the first stop signal, < 0 if none */
	char phase[64];           /* what was running: "GPU setup", "gemm", ... */
	char last_line[256];      /* the last progress line of the phase, "" if none */
	void *phase_user;         /* what gb_runwatch_phase() was given */
};

typedef void gb_wd_fire_fn(void *user, const struct gb_wd_event *ev);

struct gb_runwatch_cfg {
	double limit_s;           /* GB_WD_LIMIT_S; 0 turns the silence check off */
	double grace_s;           /* GB_WD_STOP_GRACE_S; 0 turns it off */
	double poll_s;            /* GB_WD_POLL_S */
	volatile sig_atomic_t *stop; /* the stop flag (1: first signal, 2: second) */
	gb_wd_fire_fn *fire;
	void *user;
};

struct gb_runwatch;

/* Start the thread (signals blocked in it). NULL when it cannot start. */
struct gb_runwatch *gb_runwatch_start(const struct gb_runwatch_cfg *cfg);

/* A beat: now is "progress". line (may be NULL) is kept as the last progress
 * line; expect_s > 0 raises the silence allowed for the rest of the phase. */
void gb_runwatch_beat(struct gb_runwatch *w, const char *line, double expect_s);

/* A new phase: its name, a pointer for the fire callback, and a fresh beat;
 * the last line and the hint are cleared. */
void gb_runwatch_phase(struct gb_runwatch *w, const char *name, void *phase_user);

/*
 * Claim the right to write the report: true for the first caller only.
 * The finish path calls it before writing; the watchdog calls it before
 * firing, and does not fire when it loses.
 */
bool gb_runwatch_claim(struct gb_runwatch *w);

/* Whether the watchdog has claimed (it is firing or has fired). */
bool gb_runwatch_fired(struct gb_runwatch *w);

/* Stop the thread and free. Call after gb_runwatch_claim() won, or in tests. NULL is fine. */
void gb_runwatch_stop(struct gb_runwatch *w);

/*
 * Parse a duration for the watchdog's environment variables: "90s", "10m",
 * "1h" (the options' syntax), or "0" / "off" for off (0). Returns 0, or -1
 * with a one-line reason in err.
 */
int gb_runwatch_parse_s(const char *name, const char *value, double *seconds, char *err,
			size_t errlen);

#endif
