/* SPDX-License-Identifier: MIT */
/*
 * stress_workers.c - the workers of `gpubench stress`: one thread per GPU.
 * A worker's state and heartbeat, its CUDA error handling, the set-up and
 * tear-down of its stream, handle, buffers and per-phase algorithms, and the
 * GEMM load: batches of GEMMs into the result slots, fault injection, the
 * load profile's idle time, and the thread's entry point. What a batch's
 * results are checked against is in stress_verify.c, the memtest load in
 * stress_memtest.c. May use CUDA, cuBLASLt, NVML (violation counters), the
 * kernels and the CPU-only stress_math.h; never prints.
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

double run_time(const struct shared *sh)
{
	return gb_now_s() - sh->run_start_s;
}

bool abandoned(const struct worker *w)
{
	return __atomic_load_n(&w->abandon, __ATOMIC_ACQUIRE) != 0;
}

void give_up(struct worker *w)
{
	__atomic_store_n(&w->abandon, 1, __ATOMIC_RELEASE);
}

/* The monitor asks every worker to stop (an interrupt, --fail-early). */
void stop_everyone(struct shared *sh)
{
	__atomic_store_n(&sh->stop_all, 1, __ATOMIC_RELEASE);
}

bool should_stop(const struct worker *w)
{
	/* abandon first: an abandoned worker may outlive ctx, which is cmd/'s */
	return abandoned(w) || __atomic_load_n(&w->sh->stop_all, __ATOMIC_ACQUIRE) ||
	       gb_should_stop(w->sh->ctx);
}

/* The watchdog's patience with a worker: max(30 s, 10 x its longest batch). Under w->lock. */
double hang_limit_s(const struct worker *w)
{
	return fmax(STRESS_HANG_MIN_S, STRESS_HANG_BATCHES * w->max_batch_s);
}

void beat(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->heartbeat_s = gb_now_s();
	pthread_mutex_unlock(&w->lock);
}

/* A CUDA failure: sticky ones are a finding about the GPU, others could-not-run. */
void fail_cuda(struct worker *w, const char *what, cudaError_t e)
{
	char buf[160];

	gb_cuda_errstr(e, buf, sizeof(buf));
	pthread_mutex_lock(&w->lock);
	if (abandoned(w)) {
		/* already reported as hung; a call that returns late changes nothing */
	} else if (gb_cuda_error_is_sticky(e) && w->loaded) {
		w->state = W_FAILED;
		snprintf(w->cuda_failure, sizeof(w->cuda_failure),
			 "'%s' failed after %.0f s of load: %s; the context is lost, the GPU needs "
			 "a reset",
			 what, gb_now_s() - w->load_start_s, buf);
	} else {
		w->state = W_ERROR;
		snprintf(w->error, sizeof(w->error), "'%s' failed: %s", what, buf);
	}
	pthread_mutex_unlock(&w->lock);
}

__attribute__((format(printf, 2, 3)))
void fail_setup(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&w->lock);
	if (!abandoned(w)) {
		w->state = W_ERROR;
		va_start(ap, fmt);
		vsnprintf(w->error, sizeof(w->error), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&w->lock);
}

/*
 * Wait for an event by polling, so that a hung GPU leaves this thread
 * responsive: 0 done, -1 CUDA error (reported), -2 abandoned by the monitor.
 */
int wait_event(struct worker *w, cudaEvent_t ev, const char *what)
{
	for (;;) {
		cudaError_t e = cudaEventQuery(ev);

		if (e == cudaSuccess)
			return 0;
		if (e != cudaErrorNotReady) {
			fail_cuda(w, what, e);
			return -1;
		}
		if (abandoned(w))
			return -2;
		gb_sleep_s(0.0005);
	}
}

/* Queue a forensic record for the monitor, which adds the telemetry of the moment. */
void push_forensic(struct worker *w, const struct gb_stress_forensic *f)
{
	pthread_mutex_lock(&w->lock);
	if (w->n_forensics < STRESS_MAX_FORENSICS && w->n_pending < STRESS_MAX_FORENSICS) {
		w->pending[w->n_pending++] = *f;
		w->n_forensics++;
	} else {
		w->dropped++;
	}
	pthread_mutex_unlock(&w->lock);
}

/* ======================================================================= */
/* worker: GEMM setup                                                      */

void *slot_ptr(const struct worker *w, uint64_t slot)
{
	return (char *)w->slots + slot * w->sz.bytes_slot;
}

int alloc_dev(struct worker *w, void **p, uint64_t bytes, const char *what)
{
	cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
	char b[32], buf[160];

	if (e == cudaSuccess)
		return 0;
	*p = NULL;
	gb_format_bytes(b, sizeof(b), (double)bytes);
	fail_setup(w, "cannot allocate %s for %s: %s", b, what,
		   gb_cuda_errstr(e, buf, sizeof(buf)));
	return -1;
}

/* Size the slots to this GPU's free memory at the common dimension. */
static int size_worker(struct worker *w)
{
	const struct shared *sh = w->sh;
	size_t free_b = 0, total_b = 0;
	char err[256];

	WCUDA(w, cudaMemGetInfo(&free_b, &total_b), fail);
	if (gb_stress_size((double)free_b, sh->p->mem_frac, sh->n, sh->phases, sh->n_phases,
			   STRESS_FIXED_BYTES, &w->sz, err, sizeof(err))) {
		fail_setup(w, "%s", err);
		return -1;
	}
	return 0;
fail:
	return -1;
}

static int alloc_common(struct worker *w)
{
	const struct shared *sh = w->sh;
	uint64_t n = sh->n;

	if (alloc_dev(w, &w->workspace, STRESS_WORKSPACE, "the cuBLASLt workspace") ||
	    alloc_dev(w, (void **)&w->col, n * sizeof(double), "column sums") ||
	    alloc_dev(w, (void **)&w->row, n * sizeof(double), "row sums") ||
	    alloc_dev(w, (void **)&w->dv, sizeof(*w->dv), "verification records") ||
	    alloc_dev(w, (void **)&w->dflip, 2 * sizeof(*w->dflip), "the injection record") ||
	    alloc_dev(w, &w->delem, sizeof(double), "an element") ||
	    alloc_dev(w, (void **)&w->fp8_scale, sizeof(float), "the FP8 scale") ||
	    alloc_dev(w, &w->slots, w->sz.slots * w->sz.bytes_slot, "the result slots"))
		return -1;
	WCUDA(w, cudaMallocHost((void **)&w->hv, sizeof(*w->hv)), fail);
	WCUDA(w, cudaMallocHost((void **)&w->hflip, 2 * sizeof(*w->hflip)), fail);
	WCUDA(w, cudaMallocHost(&w->helem, sizeof(double)), fail);
	return 0;
fail:
	return -1;
}

static uint64_t algo_fingerprint(const cublasLtMatmulAlgo_t *a)
{
	uint64_t h = 0;

	for (size_t i = 0; i < sizeof(a->data) / sizeof(a->data[0]); i++)
		h = gb_stress_mix64(h ^ a->data[i]);
	return h;
}

/* The phase's cuBLASLt descriptors: TN, n^3, at the precision its types name. */
static int phase_desc(struct worker *w, struct wphase *ph, const struct gb_stress_gemm_type *t)
{
	uint64_t n = w->sh->n;
	const char *what = NULL;
	cublasStatus_t st;
	char b[160];

	/* peak_prec is the gpubench precision of the flavour (fp16 accumulates in FP32) */
	st = gb_lt_matmul_create(w->sh->lt, &ph->mm, t->peak_prec, t->in, t->out, n, n, n,
				 w->fp8_scale, STRESS_WORKSPACE, &what);
	if (st != CUBLAS_STATUS_SUCCESS) {
		fail_setup(w, "'%s' failed: %s", what, gb_cublaslt_errstr(st, b, sizeof(b)));
		return -1;
	}
	return 0;
}

/* Pin candidate c of a phase for the whole run (repeat-and-compare needs one algorithm). */
void pin_algo(struct wphase *ph, int c)
{
	ph->algo = ph->cand[c].algo;
	ph->algo_index = c;
	ph->algo_fp = algo_fingerprint(&ph->algo);
}

/*
 * The heuristic's candidates, its first pinned for now: make_references
 * replaces it for a random phase when it does not repeat bit for bit.
 */
static int phase_algo(struct worker *w, struct wphase *ph, const struct gb_stress_phase *sp)
{
	int n = 0;

	WLT(w, gb_lt_matmul_algos(&ph->mm, w->lt, ph->cand, GB_STRESS_MAX_ALGOS, &n), fail);
	if (n < 1) {
		fail_setup(w, "cuBLASLt offers no algorithm for %s %llu^3 on this GPU",
			   gb_stress_prec_names[sp->prec], (unsigned long long)w->sh->n);
		return -1;
	}
	ph->n_cand = n;
	ph->compare = !w->sh->p->no_repeat;
	ph->repeatable = true;
	pin_algo(ph, 0);
	return 0;
fail:
	return -1;
}

static int upload(struct worker *w, double **dst, const double *src, uint64_t n)
{
	if (alloc_dev(w, (void **)dst, n * sizeof(double), "checksum references"))
		return -1;
	WCUDA(w, cudaMemcpyAsync(*dst, src, n * sizeof(double), cudaMemcpyHostToDevice, w->stream),
	      fail);
	return 0;
fail:
	return -1;
}

static int phase_setup(struct worker *w, size_t i)
{
	const struct shared *sh = w->sh;
	const struct gb_stress_phase *sp = &sh->phases[i];
	const struct gb_abft_ref *ref = &sh->refs[i];
	struct wphase *ph = &w->ph[i];
	struct gb_stress_gemm_type t;
	uint64_t elems = sh->n * sh->n;
	int64_t r = sp->mode == GB_STRESS_EXACT ? sp->r : 0;

	gb_stress_gemm_type(sp->prec, &t);
	ph->t_in = t.in;
	ph->t_out = t.out;
	if (alloc_dev(w, &ph->a, elems * gb_dtype_size(t.in), "input A") ||
	    alloc_dev(w, &ph->b, elems * gb_dtype_size(t.in), "input B"))
		return -1;
	/* the same keys as the CPU reference: the seed is shared by every GPU */
	WCUDA(w, gb_launch_stress_fill(ph->a, t.in, elems, gb_stress_key((uint64_t)sh->p->seed, 0),
				       t.sig_bits, r, w->stream), fail);
	WCUDA(w, gb_launch_stress_fill(ph->b, t.in, elems, gb_stress_key((uint64_t)sh->p->seed, 1),
				       t.sig_bits, r, w->stream), fail);
	if (upload(w, &ph->col_exp, ref->col_exp, sh->n) ||
	    upload(w, &ph->col_bound, ref->col_bound, sh->n) ||
	    upload(w, &ph->row_exp, ref->row_exp, sh->n) ||
	    upload(w, &ph->row_bound, ref->row_bound, sh->n))
		return -1;
	if (phase_desc(w, ph, &t) || phase_algo(w, ph, sp))
		return -1;
	return 0;
fail:
	return -1;
}

static int worker_setup(struct worker *w)
{
	static const float one = 1.0f;

	WCUDA(w, cudaSetDevice(w->dev), fail);
	WCUDA(w, cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking), fail);
	for (int i = 0; i < 3; i++)
		WCUDA(w, cudaEventCreate(&w->ev[i]), fail);
	beat(w);
	if (size_worker(w) || alloc_common(w))
		return -1;
	WCUDA(w, cudaMemcpyAsync(w->fp8_scale, &one, sizeof(one), cudaMemcpyHostToDevice,
				 w->stream), fail);
	WLT(w, w->sh->lt->cublasLtCreate(&w->lt), fail);
	for (size_t i = 0; i < w->sh->n_phases; i++) {
		if (phase_setup(w, i))
			return -1;
		beat(w);
	}
	WCUDA(w, cudaStreamSynchronize(w->stream), fail);
	beat(w);
	return 0;
fail:
	return -1;
}

static void worker_teardown(struct worker *w)
{
	const struct gb_cublaslt *lt = w->sh->lt;

	for (size_t i = 0; i < GB_STRESS_MAX_PHASES; i++) {
		struct wphase *ph = &w->ph[i];

		gb_lt_matmul_destroy(&ph->mm);
		cudaFree(ph->row_bound);
		cudaFree(ph->row_exp);
		cudaFree(ph->col_bound);
		cudaFree(ph->col_exp);
		cudaFree(ph->b);
		cudaFree(ph->a);
	}
	if (lt && w->lt)
		lt->cublasLtDestroy(w->lt);
	cudaFreeHost(w->helem);
	cudaFreeHost(w->hflip);
	cudaFreeHost(w->hv);
	cudaFree(w->slots);
	cudaFree(w->fp8_scale);
	cudaFree(w->delem);
	cudaFree(w->dflip);
	cudaFree(w->dv);
	cudaFree(w->row);
	cudaFree(w->col);
	cudaFree(w->workspace);
	for (int i = 0; i < 3; i++)
		if (w->ev[i])
			cudaEventDestroy(w->ev[i]);
	if (w->stream)
		cudaStreamDestroy(w->stream);
}

/* ======================================================================= */
/* worker: GEMM load                                                       */

static cublasStatus_t matmul(struct worker *w, size_t phase, uint64_t slot)
{
	struct wphase *ph = &w->ph[phase];
	void *c = slot_ptr(w, slot);

	/* the pinned algorithm and the same workspace every time: bitwise repeatable */
	return gb_lt_matmul_run(&ph->mm, w->lt, ph->a, ph->b, c, &ph->algo, w->workspace,
				STRESS_WORKSPACE, w->stream);
}

/*
 * One GEMM of a phase into a slot; a failure is reported. cuBLASLt answers
 * with its own status, so a launch refused because an earlier kernel lost
 * the context reads as EXECUTION_FAILED: the CUDA error behind it decides.
 * A sticky one goes through fail_cuda like any other (under load: the GPU
 * failed, a finding); anything else could not run. Neither query blocks:
 * a sticky error is what every later call answers.
 */
int run_gemm(struct worker *w, size_t phase, uint64_t slot)
{
	cublasStatus_t st = matmul(w, phase, slot);
	cudaError_t e;
	char b[160];

	if (st == CUBLAS_STATUS_SUCCESS)
		return 0;
	e = cudaGetLastError();
	if (e == cudaSuccess)
		e = cudaStreamQuery(w->stream);
	if (gb_cuda_error_is_sticky(e)) {
		fail_cuda(w, "cublasLtMatmul", e);
		return -1;
	}
	fail_setup(w, "'cublasLtMatmul' failed: %s", gb_cublaslt_errstr(st, b, sizeof(b)));
	return -1;
}

/* The slots of the next batch of a phase: working slots, round robin. */
static size_t next_slots(struct worker *w, size_t phase, uint64_t *slot, size_t max)
{
	uint64_t working = w->sz.slots - w->sh->n_phases;
	uint64_t want = gb_stress_batcher_next(&w->batcher, phase);
	size_t g = want < max ? (size_t)want : max;

	if (g > working)
		g = (size_t)working;
	for (size_t i = 0; i < g; i++) {
		slot[i] = w->sh->n_phases + w->cursor;
		w->cursor = (w->cursor + 1) % working;
	}
	return g;
}

static int maybe_inject(struct worker *w, uint64_t batch, uint64_t slot, size_t phase)
{
	struct injection *in = &w->inj;
	uint64_t n = w->sh->n;

	if (!w->sh->p->inject_fault || in->done ||
	    gb_now_s() - w->load_start_s < w->sh->inject_at_s)
		return 0;
	/*
	 * Only into a batch that a layer looks at (gb_stress_inject_ok). With
	 * ABFT on, wait for a random-data batch: an exact one would be caught
	 * by "repeat, exact" and ABFT, the default layer, would go untested one
	 * run in four. With --no-abft a random batch counts only when its phase
	 * is compared (a phase with no bit-reproducible algorithm is not), else
	 * the flip waits for an exact batch.
	 */
	if (!gb_stress_inject_ok(w->sh->phases[phase].mode, !w->sh->p->no_abft,
				 w->ph[phase].compare))
		return 0;
	in->done = true;
	in->batch = batch;
	in->slot = (uint32_t)slot;
	in->row = (uint32_t)(n / 2);
	in->col = (uint32_t)(n / 2);
	in->t_s = run_time(w->sh);
	forensic_base(w, &in->f, "injected", batch, in->slot);
	in->f.row = in->row;
	in->f.col = in->col;
	in->f.injected = true;
	WCUDA(w, gb_launch_stress_flip(slot_ptr(w, slot), w->ph[phase].t_out,
				       in->row + (uint64_t)in->col * n, w->dflip, w->stream), fail);
	return 1;
fail:
	return -1;
}

/*
 * Account a finished batch: throughput (random phases only: phase p < n_random
 * is series p), heartbeat, and the phase's next batch size.
 */
static void account_batch(struct worker *w, size_t phase, size_t g, double busy_s, double wall_s)
{
	double n = (double)w->sh->n;

	pthread_mutex_lock(&w->lock);
	if (phase < w->sh->n_random && phase < GB_STRESS_MAX_SERIES) {
		w->work_acc[phase] += 2.0 * n * n * n * (double)g;
		w->busy_acc[phase] += busy_s;
	}
	w->gemms += g;
	w->batches++;
	w->heartbeat_s = gb_now_s();
	if (wall_s > w->max_batch_s)
		w->max_batch_s = wall_s;
	w->load_s = gb_now_s() - w->load_start_s;
	pthread_mutex_unlock(&w->lock);
	gb_stress_batcher_done(&w->batcher, phase, g, busy_s);
}

/* One batch: G GEMMs into working slots, timed on the device, then verified. */
static int run_batch(struct worker *w, uint64_t batch)
{
	const struct shared *sh = w->sh;
	size_t phase = gb_stress_batch_phase(sh->n_random, sh->n_exact, batch - 1);
	uint64_t slot[4096];
	size_t g = next_slots(w, phase, slot, sizeof(slot) / sizeof(slot[0]));
	double t0 = gb_now_s();
	float ms = 0;
	int inj;

	WCUDA(w, cudaEventRecord(w->ev[0], w->stream), fail);
	for (size_t i = 0; i < g; i++) {
		/* a call that returns after the monitor gave up: queue nothing more */
		if (abandoned(w) || run_gemm(w, phase, slot[i]))
			return -1;
	}
	WCUDA(w, cudaEventRecord(w->ev[1], w->stream), fail);
	inj = maybe_inject(w, batch, slot[0], phase);
	if (inj < 0 || enqueue_verify(w, phase, slot, g, !sh->p->no_repeat))
		return -1;
	if (wait_event(w, w->ev[2], "batch"))
		return -1;
	WCUDA(w, cudaEventElapsedTime(&ms, w->ev[0], w->ev[1]), fail);
	take_verify(w, phase, batch, inj > 0);
	account_batch(w, phase, g, ms / 1e3, gb_now_s() - t0);
	return 0;
fail:
	return -1;
}

/* Idle as the load profile asks, in short naps so stop and the heartbeat stay live. */
static void profile_idle(struct worker *w, double busy_s, double deadline)
{
	double t = gb_now_s() - w->load_start_s;
	double until = gb_now_s() + gb_stress_idle_after(&w->sh->sched, t, busy_s);

	if (until > deadline)
		until = deadline;
	while (gb_now_s() < until && !should_stop(w)) {
		gb_sleep_s(fmin(0.05, until - gb_now_s()));
		beat(w);
	}
}

/* The GPU's bus id for NVML, NULL when unknown. */
const char *worker_pci(const struct worker *w)
{
	return w->info ? w->info->pci_bus_id : NULL;
}

/*
 * Read NVML's violation counters at the start or end of the load. Read
 * into a copy and stored under the lock: the monitor takes w->viol under it
 * even from a worker it gave up on.
 */
static void viol_read(struct worker *w, bool end)
{
	struct gb_stress_viol v;

	pthread_mutex_lock(&w->lock);
	v = w->viol;
	pthread_mutex_unlock(&w->lock);
	gb_stress_viol_read(&v, worker_pci(w), end, gb_now_s());
	pthread_mutex_lock(&w->lock);
	w->viol = v;
	pthread_mutex_unlock(&w->lock);
}

/*
 * The load begins now: running, and NVML's violation counters read, so the
 * exact throttle shares cover the load and not the set-up before it.
 */
void load_began(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->state = W_RUNNING;
	w->loaded = true;
	w->load_start_s = gb_now_s();
	w->heartbeat_s = w->load_start_s;
	pthread_mutex_unlock(&w->lock);
	viol_read(w, false);
}

static void gemm_load(struct worker *w)
{
	double deadline;
	uint64_t batch = 1; /* batch 0 made the references */

	if (worker_setup(w))
		return;
	load_began(w);
	deadline = w->load_start_s + w->sh->p->duration_s;
	gb_stress_batcher_init(&w->batcher, w->sz.slots - w->sh->n_phases, STRESS_BATCH_TARGET_S);
	if (make_references(w))
		return;
	while (!should_stop(w) && gb_now_s() < deadline) {
		double t0 = gb_now_s();

		if (run_batch(w, batch++))
			return;
		profile_idle(w, gb_now_s() - t0, deadline);
	}
	if (!abandoned(w))
		recheck_references(w);
}

void *worker_main(void *arg)
{
	struct worker *w = arg;

	beat(w);
	if (w->sh->p->memtest)
		memtest_load(w);
	else
		gemm_load(w);
	/* abandoned: the GPU may be wedged in a call; touch nothing of it */
	if (abandoned(w))
		return NULL;
	if (w->loaded)
		viol_read(w, true);
	worker_teardown(w);
	pthread_mutex_lock(&w->lock);
	if (w->state == W_RUNNING || w->state == W_STARTING)
		w->state = W_DONE;
	w->heartbeat_s = gb_now_s();
	pthread_mutex_unlock(&w->lock);
	return NULL;
}
