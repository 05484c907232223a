/* SPDX-License-Identifier: MIT */
/*
 * stress_monitor.c - the monitor of `gpubench stress`, on the main
 * thread while the workers run: every interval it samples telemetry, turns
 * the workers' device seconds into throughput, moves their forensics into
 * the report, watches their heartbeats (the watchdog: a worker without
 * progress past its hang limit is given up), stops early on a finding with
 * --fail-early, and reports progress (lines, JSONL, a live status). May use
 * NVML through stress_health_math.c and the workers' state under their locks;
 * no CUDA call.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/device/deadline_math.h"
#include "bench/device/cublaslt_dl.h"
#include "bench/device/gpu.h"
#include "bench/device/lt_matmul.h"
#include "bench/device/nvml.h"
#include "bench/stress/stress_internal.h"
#include "bench/stress/stress_math.h"
#include "kernels/kernels.h"
#include "report/json_util.h"
#include "report/thresholds.h"

/* ======================================================================= */
/* monitor                                                                 */

static bool finished(enum wstate s)
{
	return s == W_DONE || s == W_FAILED || s == W_ERROR || s == W_HUNG;
}

/* Move a worker's pending forensics to the report, with the telemetry of the moment. */
void drain_forensics(struct monitor *m, size_t i)
{
	struct worker *w = &m->w[i];
	struct gb_stress_forensic f[STRESS_MAX_FORENSICS];
	size_t n;

	pthread_mutex_lock(&w->lock);
	n = w->n_pending;
	memcpy(f, w->pending, n * sizeof(f[0]));
	w->n_pending = 0;
	pthread_mutex_unlock(&w->lock);
	for (size_t k = 0; k < n; k++) {
		if (m->mon_ok && m->mon.have_last && m->mon.have_last[i]) {
			f[k].have_tel = true;
			f[k].tel = m->mon.last[i];
		}
		cJSON_AddItemToArray(m->forensics, gb_stress_forensic_json(&f[k]));
	}
}

/*
 * The interval's throughput of worker i (TFLOP/s, or GB/s for memtest) per
 * series into tp[], NAN for a series with no batch; returns all series
 * together (work over device time), NAN if idle.
 */
static double take_throughput(struct monitor *m, size_t i, double *tp, double *load_t)
{
	struct worker *w = &m->w[i];
	double work[GB_STRESS_MAX_SERIES], busy[GB_STRESS_MAX_SERIES], all_w = 0, all_b = 0;
	double unit = m->sh->p->memtest ? 1e9 : 1e12;

	pthread_mutex_lock(&w->lock);
	memcpy(work, w->work_acc, sizeof(work));
	memcpy(busy, w->busy_acc, sizeof(busy));
	memset(w->work_acc, 0, sizeof(w->work_acc));
	memset(w->busy_acc, 0, sizeof(w->busy_acc));
	*load_t = w->loaded ? gb_now_s() - w->load_start_s : NAN;
	pthread_mutex_unlock(&w->lock);
	for (size_t s = 0; s < GB_STRESS_MAX_SERIES; s++) {
		tp[s] = busy[s] > 0 ? work[s] / busy[s] / unit : NAN;
		all_w += work[s];
		all_b += busy[s];
	}
	return all_b > 0 ? all_w / all_b / unit : NAN;
}

static void sample_tick(struct monitor *m)
{
	double t = run_time(m->sh);

	for (size_t i = 0; i < m->n; i++) {
		double load_t;

		m->tp[i] = take_throughput(m, i, m->tp_series[i], &load_t);
		for (size_t s = 0; isfinite(load_t) && s < m->obs[i].n_series; s++)
			gb_stress_obs_add_throughput(&m->obs[i], s, load_t, m->tp_series[i][s]);
	}
	if (!m->mon_ok)
		return;
	gb_stress_monitor_sample(&m->mon, t, m->tp, m->samples);
	for (size_t i = 0; i < m->n; i++)
		if (m->mon.have_last[i] && m->mon.last[i].t_s == t) {
			gb_run_model_lock(); /* the watchdog may be writing the report */
			gb_run_add_telemetry(m->sh->ctx->run, &m->samples[i]);
			gb_run_model_unlock();
		}
	gb_stress_monitor_poll_xids(&m->mon, 0);
}

/* Hung workers: no heartbeat for max(30 s, 10 batches). */
static void watchdog(struct monitor *m)
{
	double now = gb_now_s();

	for (size_t i = 0; i < m->n; i++) {
		struct worker *w = &m->w[i];
		double limit, stale;

		pthread_mutex_lock(&w->lock);
		limit = hang_limit_s(w);
		stale = now - w->heartbeat_s;
		if (!finished(w->state) && w->started && stale > limit) {
			w->state = W_HUNG;
			give_up(w);
			snprintf(w->error, sizeof(w->error),
				 "hung: no progress for %.0f s (limit %.0f s); the GPU was abandoned",
				 stale, limit);
		}
		pthread_mutex_unlock(&w->lock);
	}
}

static uint64_t findings(struct worker *w)
{
	uint64_t f;

	pthread_mutex_lock(&w->lock);
	f = w->abft + w->exact + w->repeat + w->nonfinite + w->mem_errors +
	    (w->state == W_FAILED);
	pthread_mutex_unlock(&w->lock);
	return f;
}

/* --fail-early: a verification finding, a hardware XID or a temperature over the limit */
static bool any_finding(struct monitor *m, const struct gb_stress_thresholds *th)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct gb_stress_obs *o = &m->obs[i];

		if (findings(&m->w[i]) || (o->n_temp && o->temp_max > th->temp_limit_c))
			return true;
		for (size_t k = 0; k < o->n_xids; k++)
			if (gb_stress_xid_is_hardware(o->xids[k]))
				return true;
	}
	return false;
}

const char *state_name(enum wstate s)
{
	static const char *const names[] = { "starting", "running", "done", "failed", "error", "hung" };

	return names[s];
}

/* Worker i at this moment, as the progress line shows it. */
static void progress_of(struct monitor *m, size_t i, struct gb_stress_progress *p)
{
	struct worker *w = &m->w[i];
	const struct gb_telemetry_sample *s = m->mon_ok && m->mon.have_last[i] ? &m->mon.last[i] : NULL;
	double dur = m->sh->p->duration_s, load_s;
	enum wstate st;

	memset(p, 0, sizeof(*p));
	p->errors = findings(w);
	pthread_mutex_lock(&w->lock);
	load_s = w->loaded ? gb_now_s() - w->load_start_s : 0;
	st = w->state;
	pthread_mutex_unlock(&w->lock);
	p->device = w->dev;
	p->t_s = run_time(m->sh);
	p->frac = fmin(1.0, load_s / dur);
	p->eta_s = finished(st) ? 0 : dur - load_s;
	p->memtest = m->sh->p->memtest;
	p->n_tp = m->obs[i].n_series;
	for (size_t k = 0; k < p->n_tp && k < GB_STRESS_MAX_SERIES; k++) {
		p->tp_label[k] = m->obs[i].tp[k].label;
		p->tp[k] = m->tp_series[i][k];
	}
	p->tp_total = m->tp[i];
	p->temp_c = s ? s->temp_c : NAN;
	p->power_w = s ? s->power_w : NAN;
	p->sm_mhz = s ? s->sm_mhz : NAN;
	p->state = state_name(st);
}

/* One line per GPU (gb_stress_progress_text / _jsonl). */
static void progress_line(struct monitor *m, size_t i)
{
	struct gb_stress_progress p;
	char line[512];

	progress_of(m, i, &p);
	if (m->jsonl)
		gb_stress_progress_jsonl(&p, line, sizeof(line));
	else
		gb_stress_progress_text(&p, line, sizeof(line));
	gb_progress(m->sh->ctx, "%s", line);
}

/*
 * The live status: a line per GPU that cmd/ redraws in place on a terminal
 * (bench never prints). Text, one '\n' between lines; NULL clears it.
 * gb_status() is also a beat for the watchdog, as a progress line is.
 */
static void live_status(struct monitor *m, bool clear)
{
	const struct gb_ctx *ctx = m->sh->ctx;
	size_t len = m->n * 256 + 1, used = 0;
	char *text;

	if (!m->live || !ctx->status)
		return;
	if (clear || !(text = malloc(len))) {
		gb_status(ctx, NULL);
		return;
	}
	text[0] = '\0';
	for (size_t i = 0; i < m->n && used + 256 <= len; i++) {
		struct gb_stress_progress p;

		progress_of(m, i, &p);
		if (i)
			text[used++] = '\n';
		gb_stress_progress_text(&p, text + used, 255);
		used += strlen(text + used);
	}
	gb_status(ctx, text);
	free(text);
}

void progress(struct monitor *m)
{
	live_status(m, false);
	if (!m->jsonl && (!m->progress_every || m->tick % m->progress_every))
		return;
	for (size_t i = 0; i < m->n; i++)
		progress_line(m, i);
}

static bool all_finished(struct monitor *m)
{
	for (size_t i = 0; i < m->n; i++) {
		enum wstate s;

		pthread_mutex_lock(&m->w[i].lock);
		s = m->w[i].state;
		pthread_mutex_unlock(&m->w[i].lock);
		if (m->w[i].started && !finished(s))
			return false;
	}
	return true;
}

void monitor_loop(struct monitor *m, const struct gb_stress_thresholds *th)
{
	double next = gb_now_s() + m->sh->p->interval_s;

	for (;;) {
		bool done = all_finished(m);

		/* nap until the tick, waking early when every worker is done */
		while (!done && gb_now_s() < next) {
			gb_sleep_s(fmin(0.05, next - gb_now_s()));
			done = all_finished(m);
		}
		next += m->sh->p->interval_s;
		m->tick++;
		sample_tick(m);
		for (size_t i = 0; i < m->n; i++)
			drain_forensics(m, i);
		watchdog(m);
		if (gb_should_stop(m->sh->ctx) || (m->sh->p->fail_early && any_finding(m, th)))
			stop_everyone(m->sh);
		if (done || all_finished(m))
			break;
		progress(m);
	}
	/* the final state of every GPU, as lines that stay */
	live_status(m, true);
	for (size_t i = 0; (m->jsonl || m->progress_every || m->live) && i < m->n; i++)
		progress_line(m, i);
}
