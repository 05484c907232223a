/* SPDX-License-Identifier: MIT */
/*
 * telemetry.c - the background NVML sampler; see telemetry.h.
 *
 * One thread per sampler reads every device each interval, appends the
 * samples to the run (one lock shared by all samplers, because several
 * benchmarks or workers may sample at once while the run's array grows) and
 * folds them into a per-device summary window under the sampler's own lock.
 * The thread sleeps on a condition variable against gb_now_s's clock
 * (bench/device/clock.h), so gb_sampler_stop() returns at once instead of after a
 * whole interval, and sleeps as an observer, so under the simulator a sample
 * due at the instant a step begins or ends always comes after the step's own
 * mark or summary (the count in a window is the simulated time's alone).
 */
#include "bench/device/telemetry.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "bench/device/deadline_math.h"
#include "bench/device/nvml.h"
#include "report/result.h"

/* throttling that costs throughput; power capping alone is normal operation under load */
#define GB_THROTTLE_BITS \
	(GB_CLK_HW_SLOWDOWN | GB_CLK_SW_THERMAL | GB_CLK_HW_THERMAL | GB_CLK_HW_POWER_BRAKE)

/* running sums of one device's window; each field counts its own valid samples */
struct window {
	size_t n;                  /* samples read */
	size_t n_sm, n_mem, n_power, n_temp, n_reasons, n_throttled;
	double sm_sum, sm_min, mem_sum, power_sum, power_max, temp_max;
	uint64_t reasons;
};

struct gb_sampler {
	struct gb_ctx *ctx;
	size_t n;
	int *devices;              /* CUDA indices */
	char **pci;                /* their PCI bus ids; NULL when unknown */
	struct window *win;
	const volatile double *hint;
	double interval_s;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
};

static void window_reset(struct window *w)
{
	memset(w, 0, sizeof(*w));
	w->sm_min = INFINITY;
	w->power_max = -INFINITY;
	w->temp_max = -INFINITY;
}

static void window_add(struct window *w, const struct gb_telemetry_sample *s)
{
	w->n++;
	if (isfinite(s->sm_mhz)) {
		w->n_sm++;
		w->sm_sum += s->sm_mhz;
		w->sm_min = fmin(w->sm_min, s->sm_mhz);
	}
	if (isfinite(s->mem_mhz)) {
		w->n_mem++;
		w->mem_sum += s->mem_mhz;
	}
	if (isfinite(s->power_w)) {
		w->n_power++;
		w->power_sum += s->power_w;
		w->power_max = fmax(w->power_max, s->power_w);
	}
	if (isfinite(s->temp_c)) {
		w->n_temp++;
		w->temp_max = fmax(w->temp_max, s->temp_c);
	}
	if (s->have_reasons) {
		w->n_reasons++;
		w->reasons |= s->clock_event_reasons;
		if (s->clock_event_reasons & GB_THROTTLE_BITS)
			w->n_throttled++;
	}
}

static const char *pci_of(const struct gb_run *run, int dev)
{
	const struct gb_device_info *d = gb_run_find_device(run, dev);

	return d ? d->pci_bus_id : NULL;
}

static void sample_all(struct gb_sampler *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct gb_telemetry_sample t;

		memset(&t, 0, sizeof(t));
		t.temp_c = t.power_w = t.sm_mhz = t.mem_mhz = t.util_pct = NAN;
		t.mem_used_bytes = t.tflops = NAN;
		if (!s->pci[i] || gb_nvml_sample(s->pci[i], &t))
			continue;
		t.device = s->devices[i];
		t.t_s = gb_now_s() - s->ctx->run_start_s;
		if (s->hint) /* written by the benchmark's threads */
			__atomic_load(&s->hint[i], &t.tflops, __ATOMIC_RELAXED);
		gb_run_model_lock(); /* the watchdog may be writing the report */
		gb_run_add_telemetry(s->ctx->run, &t);
		gb_run_model_unlock();
		pthread_mutex_lock(&s->lock);
		window_add(&s->win[i], &t);
		pthread_mutex_unlock(&s->lock);
	}
}

static void *sampler_main(void *arg)
{
	struct gb_sampler *s = arg;
	/* the first sample is due now, after what the benchmark does at its start */
	double until = gb_now_s();

	for (;;) {
		bool stop;

		pthread_mutex_lock(&s->lock);
		/* a wake-up (spurious or not): wait on; the deadline ends the wait */
		while (!s->stop && gb_cond_wait_observer_until(&s->cond, &s->lock, until))
			;
		stop = s->stop;
		pthread_mutex_unlock(&s->lock);
		if (stop)
			break;
		sample_all(s);
		until = gb_now_s() + s->interval_s;
	}
	return NULL;
}

static void sampler_free(struct gb_sampler *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->pci && i < s->n; i++)
		free(s->pci[i]);
	free(s->pci);
	free(s->devices);
	free(s->win);
	free(s);
}

struct gb_sampler *gb_sampler_start(struct gb_ctx *ctx, const int *devices, size_t n,
				    double interval_s, const volatile double *tflops_hint)
{
	struct gb_sampler *s;
	bool cond_ok = false, lock_ok = false;

	/*
	 * NVML's own state is the truth: ctx->nvml may be left unset by a
	 * caller that loaded NVML anyway, and sampling then still works.
	 */
	if ((!ctx->nvml && !gb_nvml_loaded()) || !n || !devices)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ctx = ctx;
	s->n = n;
	s->hint = tflops_hint;
	s->interval_s = interval_s >= 0.05 ? interval_s : 0.05;
	s->devices = calloc(n, sizeof(*s->devices));
	s->pci = calloc(n, sizeof(*s->pci));
	s->win = calloc(n, sizeof(*s->win));
	if (!s->devices || !s->pci || !s->win)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		const char *pci = pci_of(ctx->run, devices[i]);

		s->devices[i] = devices[i];
		s->pci[i] = pci ? strdup(pci) : NULL;
		window_reset(&s->win[i]);
	}
	if (pthread_mutex_init(&s->lock, NULL))
		goto fail;
	lock_ok = true;
	gb_cond_init(&s->cond);
	cond_ok = true;
	if (gb_thread_start(&s->thread, sampler_main, s))
		goto fail;
	return s;
fail:
	if (cond_ok)
		pthread_cond_destroy(&s->cond);
	if (lock_ok)
		pthread_mutex_destroy(&s->lock);
	sampler_free(s);
	return NULL;
}

void gb_sampler_mark(struct gb_sampler *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++)
		window_reset(&s->win[i]);
	pthread_mutex_unlock(&s->lock);
}

void gb_sampler_summary(struct gb_sampler *s, size_t i, struct gb_telemetry_summary *out)
{
	struct window w;

	memset(out, 0, sizeof(*out));
	out->sm_mhz_mean = out->sm_mhz_min = out->mem_mhz_mean = NAN;
	out->power_w_mean = out->power_w_max = out->temp_c_max = out->throttled_frac = NAN;
	if (!s || i >= s->n)
		return;
	pthread_mutex_lock(&s->lock);
	w = s->win[i];
	pthread_mutex_unlock(&s->lock);
	out->n = w.n;
	out->valid = w.n > 0;
	if (w.n_sm) {
		out->sm_mhz_mean = w.sm_sum / (double)w.n_sm;
		out->sm_mhz_min = w.sm_min;
	}
	if (w.n_mem)
		out->mem_mhz_mean = w.mem_sum / (double)w.n_mem;
	if (w.n_power) {
		out->power_w_mean = w.power_sum / (double)w.n_power;
		out->power_w_max = w.power_max;
	}
	if (w.n_temp)
		out->temp_c_max = w.temp_max;
	out->reasons_union = w.reasons;
	if (w.n_reasons)
		out->throttled_frac = (double)w.n_throttled / (double)w.n_reasons;
}

void gb_sampler_stop(struct gb_sampler *s)
{
	if (!s)
		return;
	gb_thread_quit_join(s->thread, &s->lock, &s->cond, &s->stop);
	sampler_free(s);
}
