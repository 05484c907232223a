/* SPDX-License-Identifier: MIT */
/*
 * scaling_measure.c - the measurements of `gpubench scaling`: sizing the
 * step (calibration of one GEMM), and the phases N = 1 .. W (the workers'
 * threads in lockstep, the all-reduce sweep, the solo passes that name a
 * straggler) (main thread). Uses CUDA and bench/scaling/scaling_internal.h; never
 * prints, never exits.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bench/scaling/scaling_internal.h"
#include "report/stats.h"

/* ---- sizing the step ---- */

/* count GEMMs on w alone between its events; *sec the device time. */
static int worker_timed_gemms(struct worker *w, uint64_t count, double *sec)
{
	float ms = 0;

	W_CUDA(w, cudaEventRecord(w->t0, w->cs));
	if (sc_gemms(w, count))
		return -1;
	W_CUDA(w, cudaEventRecord(w->t1, w->cs));
	if (sc_worker_wait(w, w->t1, "timing GEMMs"))
		return -1;
	W_CUDA(w, cudaEventElapsedTime(&ms, w->t0, w->t1));
	*sec = (double)ms * 1e-3;
	return 0;
}

static int worker_set_device(struct worker *w)
{
	W_CUDA(w, cudaSetDevice(w->dev));
	return 0;
}

static uint64_t batch_for(double seconds, double per_gemm_s)
{
	double b = per_gemm_s > 0 ? floor(seconds / per_gemm_s + 0.5) : 1;

	return b < 1 ? 1 : b > 1000 ? 1000 : (uint64_t)b;
}

/*
 * One GEMM's time on the first worker alone: GEMMs until SC_CAL_WARM_S has
 * passed (clocks and power settle, modules load), then the median of
 * SC_CAL_REPS batches of about SC_CAL_BATCH_S.
 */
static int calibrate(struct sc *s)
{
	struct worker *w = &s->w[0];
	double t_start = gb_now_s(), sec = 0, per_gemm_s = 0, reps[SC_CAL_REPS];
	uint64_t batch = 1;

	gb_progress(s->ctx, "scaling: timing the %s %llu^3 GEMM on GPU %d", s->bf16 ? "bf16" : "fp32",
		    (unsigned long long)s->n, w->dev);
	if (worker_set_device(w))
		return sc_fail_from(s, w);
	do {
		if (worker_timed_gemms(w, batch, &sec))
			return sc_fail_from(s, w);
		per_gemm_s = sec / (double)batch;
		batch = batch_for(0.1, per_gemm_s);
	} while (gb_now_s() - t_start < SC_CAL_WARM_S && !gb_should_stop(s->ctx));
	batch = batch_for(SC_CAL_BATCH_S, per_gemm_s);
	for (int r = 0; r < SC_CAL_REPS; r++) {
		if (worker_timed_gemms(w, batch, &sec))
			return sc_fail_from(s, w);
		reps[r] = sec / (double)batch;
	}
	s->t_gemm_s = gb_percentile(reps, SC_CAL_REPS, 50);
	return 0;
}

/* The step's GEMM count, from work or from the calibration, and the final plan. */
int sc_size_step(struct sc *s)
{
	const struct gb_scaling_params *p = s->p;
	uint64_t count;

	if (calibrate(s))
		return -1;
	if (gb_scaling_step_by_work(p))
		count = gb_scaling_gemms_for_work(p->step_tflop * 1e12, s->n);
	else
		count = gb_scaling_gemms_for_time(gb_scaling_target_step_ms(p) * 1e-3, s->t_gemm_s);
	if (!count || gb_scaling_plan_make(s->plan.grad_bytes, gb_scaling_bucket_bytes(p), count,
					   s->plan.overlap, &s->plan)) {
		gb_bench_set_status(s->res, GB_STATUS_ERROR,
				    "cannot size the step: a GEMM took %.3g ms", s->t_gemm_s * 1e3);
		return -1;
	}
	/*
	 * a step may legitimately take long: wait ten of them before calling it
	 * hung; whole seconds, because the messages print it with %g
	 */
	s->timeout_s = ceil(SC_TIMEOUT_S + 10.0 * (double)count * s->t_gemm_s);
	gb_expect_silence(s->ctx, s->timeout_s + 30); /* its own timeouts speak first */
	return 0;
}

/* ---- phases ---- */

/* Time the operations enqueued on w's communication stream since t0 (main thread). */
static int worker_comm_elapsed(struct worker *w, double *sec)
{
	float ms = 0;

	W_CUDA(w, cudaSetDevice(w->dev));
	W_CUDA(w, cudaEventRecord(w->t1, w->ns));
	if (sc_worker_wait(w, w->t1, "the all-reduce sweep"))
		return -1;
	W_CUDA(w, cudaEventElapsedTime(&ms, w->t0, w->t1));
	*sec = (double)ms * 1e-3;
	return 0;
}

static int worker_comm_mark(struct worker *w)
{
	W_CUDA(w, cudaSetDevice(w->dev));
	W_CUDA(w, cudaEventRecord(w->t0, w->ns));
	return 0;
}

/* One sweep size: the slowest GPU's time per all-reduce of count floats. */
static int sweep_point(struct sc *s, int n, uint64_t count, double *sec)
{
	double worst = 0, t = 0;

	for (int i = 0; i < SC_SWEEP_WARMUP; i++)
		if (sc_group_allreduce(s, n, count))
			return -1;
	for (int i = 0; i < n; i++)
		if (worker_comm_mark(&s->w[i]))
			return sc_fail_from(s, &s->w[i]);
	for (int i = 0; i < SC_SWEEP_ITERS; i++)
		if (sc_group_allreduce(s, n, count))
			return -1;
	for (int i = 0; i < n; i++) {
		if (worker_comm_elapsed(&s->w[i], &t))
			return sc_fail_from(s, &s->w[i]);
		worst = fmax(worst, t);
	}
	*sec = worst / SC_SWEEP_ITERS;
	return 0;
}

/* The all-reduce alone at a few sizes on the first n workers, then its fitted price. */
static int sweep(struct sc *s, struct phase *ph)
{
	uint64_t sizes[GB_SCALING_SWEEP_MAX];
	size_t n_sizes = gb_scaling_sweep_sizes(gb_scaling_bucket_max_bytes(&s->plan), sizes,
						GB_SCALING_SWEEP_MAX);

	gb_progress(s->ctx, "scaling: %d GPUs: timing the all-reduce alone at %zu sizes", ph->n,
		    n_sizes);
	for (size_t k = 0; k < n_sizes && !gb_should_stop(s->ctx); k++) {
		if (sweep_point(s, ph->n, sizes[k] / GB_SCALING_GRAD_ELEM_BYTES,
				&ph->sweep_s[ph->n_sweep]))
			return -1;
		ph->sweep_bytes[ph->n_sweep++] = (double)sizes[k];
	}
	ph->fit_ok = gb_scaling_link_from_sweep(ph->sweep_bytes, ph->sweep_s, ph->n_sweep, ph->n,
						&ph->fit, &ph->link) == 0;
	return 0;
}

/* The step times of a phase: the slowest worker's per step, and each worker's median. */
static int collect_steps(struct sc *s, struct phase *ph)
{
	struct worker *w = &s->w[ph->first];
	size_t n = (size_t)ph->n, count = w[0].n_steps;
	double *flat;

	for (size_t i = 0; i < n; i++) {
		ph->worker_s[i] = w[i].n_steps ? gb_percentile(w[i].step_s, w[i].n_steps, 50) : NAN;
		ph->worker_compute_s[i] =
			w[i].n_steps ? gb_percentile(w[i].compute_s, w[i].n_steps, 50) : NAN;
		count = w[i].n_steps < count ? w[i].n_steps : count;
	}
	if (!count)
		return 0;
	flat = malloc(sizeof(double) * n * count);
	ph->step_s = malloc(sizeof(double) * count);
	if (!flat || !ph->step_s) {
		free(flat);
		gb_bench_set_status(s->res, GB_STATUS_ERROR, "out of host memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		memcpy(flat + i * count, w[i].step_s, sizeof(double) * count);
	gb_scaling_step_max(flat, n, count, count, ph->step_s);
	ph->n_steps = count;
	free(flat);
	return 0;
}

/* Warm-up and timed steps on workers ph->first .. + ph->n, one thread each. */
static int run_steps(struct sc *s, struct phase *ph)
{
	pthread_t th[GB_DEVICE_LIST_MAX];
	struct worker *w = &s->w[ph->first];
	int n = ph->n, started = 0, rc = 0;

	sc_gate_arm(&s->gate, (size_t)n);
	for (int i = 0; i < n; i++) {
		w[i].n_steps = 0;
		w[i].err[0] = '\0';
	}
	for (; started < n; started++) {
		if (gb_thread_start(&th[started], sc_worker_main, &w[started])) {
			sc_werr(&w[started], "cannot start the thread of worker %d", w[started].slot);
			sc_workers_fail(&w[started]);
			break;
		}
	}
	for (int i = 0; i < started; i++)
		gb_thread_join(th[i]);
	if (sc_gate_failed(&s->gate)) {
		/*
		 * The worker that failed first says why; the others followed (a
		 * watched all-reduce aborted because of it says only that). Failing
		 * that, the first worker with a reason.
		 */
		int first = s->gate.first - ph->first;

		if (first < 0 || first >= n || !w[first].err[0]) {
			first = 0;
			while (first < n - 1 && !w[first].err[0])
				first++;
		}
		rc = sc_fail_from(s, &w[first]);
		sc_gate_arm(&s->gate, 0); /* the main thread's own waits go on */
	}
	return collect_steps(s, ph) ? -1 : rc;
}

static int run_phase(struct sc *s, struct phase *ph)
{
	char devs[256];
	int rc;

	gb_scaling_devices_str(s->dev, (size_t)ph->n, devs, sizeof(devs));
	gb_progress(s->ctx, "scaling: %d worker%s on GPU%s %s%s: %lld warm-up and %lld timed steps",
		    ph->n, ph->n == 1 ? "" : "s", strchr(devs, ',') ? "s" : "", devs,
		    ph->mode == AR_COPY ? " (contention: a GPU repeats)" : "",
		    (long long)s->p->warmup_steps, (long long)s->p->steps);
	s->mode = ph->mode;
	if (ph->mode == AR_NCCL && sc_comms_init(s, ph->n)) {
		sc_comms_destroy(s, false);
		return -1;
	}
	rc = run_steps(s, ph);
	if (!rc && ph->mode == AR_NCCL && ph->n >= 2 && s->p->link < 0 && !gb_should_stop(s->ctx))
		rc = sweep(s, ph);
	if (ph->mode == AR_NCCL)
		sc_comms_destroy(s, rc == 0);
	return rc;
}

enum ar_mode sc_mode_for(const struct sc *s, int n)
{
	if (s->p->workload != GB_SCALING_WL_DDP)
		return AR_NONE;
	if (gb_scaling_has_repeat(s->dev, (size_t)n))
		return AR_COPY;
	/* every later phase shares a GPU and copies: the baseline copies the same bytes */
	if (n == 1 && gb_scaling_baseline_copies(s->dev, s->n_workers))
		return AR_COPY;
	return AR_NCCL;
}

/* GPU dev was timed alone already */
static bool solo_has(const struct sc *s, int dev)
{
	for (size_t i = 0; i < s->n_solo; i++)
		if (s->solo_dev[i] == dev)
			return true;
	return false;
}

/*
 * gemm: every distinct GPU alone, the first from N = 1, the others on their
 * own worker here, so a GPU slower than the rest is named, not guessed at.
 */
static int run_solos(struct sc *s)
{
	const struct phase *one = &s->ph[0];

	if (!one->n_steps)
		return 0;
	s->solo_dev[0] = s->dev[0];
	s->solo_s[0] = one->worker_s[0];
	s->n_solo = 1;
	for (size_t i = 1; i < s->n_workers && !gb_should_stop(s->ctx); i++) {
		struct phase solo;
		int rc;

		if (solo_has(s, s->dev[i]))
			continue;
		memset(&solo, 0, sizeof(solo));
		solo.n = 1;
		solo.first = (int)i;
		solo.mode = AR_NONE;
		gb_progress(s->ctx, "scaling: GPU %d alone: %lld warm-up and %lld timed steps",
			    s->dev[i], (long long)s->p->warmup_steps, (long long)s->p->steps);
		s->mode = AR_NONE;
		rc = run_steps(s, &solo);
		free(solo.step_s);
		if (rc)
			return -1;
		s->solo_dev[s->n_solo] = s->dev[i];
		s->solo_s[s->n_solo++] = solo.worker_s[0];
	}
	return 0;
}

int sc_run_phases(struct sc *s)
{
	for (size_t i = 0; i < s->n_workers && !gb_should_stop(s->ctx); i++) {
		struct phase *ph = &s->ph[i];

		ph->n = (int)i + 1;
		ph->mode = sc_mode_for(s, ph->n);
		s->n_phases = i + 1;
		if (run_phase(s, ph))
			return -1;
		if (i == 0 && s->p->workload == GB_SCALING_WL_GEMM && run_solos(s))
			return -1;
	}
	return 0;
}
