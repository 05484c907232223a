/* SPDX-License-Identifier: MIT */
/*
 * scaling_workers.c - the workers of `gpubench scaling`: the abortable
 * barrier that keeps them in lockstep, the errors each worker's thread
 * writes for main to report, the bounded wait on an event, and the step a
 * worker's thread loops over (its GEMM slices, each bucket's reduction
 * handed to scaling_allreduce.c). Uses CUDA, cuBLASLt and
 * bench/scaling/scaling_internal.h; never prints, never exits.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench/scaling/scaling_internal.h"

/* Once per run: sc_worker_wait() asks the gate outside phases too (calibration, sweep). */
void sc_gate_init(struct gate *g, volatile sig_atomic_t *stop_flag)
{
	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->stop_flag = stop_flag;
}

/* Before a phase: n workers, nobody failed. */
void sc_gate_arm(struct gate *g, size_t n)
{
	pthread_mutex_lock(&g->mu);
	g->n = n;
	g->arrived = 0;
	g->failed = false;
	g->first = -1;
	g->stop = false;
	pthread_mutex_unlock(&g->mu);
}

void sc_gate_destroy(struct gate *g)
{
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
}

/*
 * Wait until all n arrived: 0 to go on, 1 to stop (the last to arrive saw
 * SIGINT, so all stop at the same step), -1 when a worker failed.
 */
static int gate_wait(struct gate *g)
{
	unsigned long gen;
	int rc;

	pthread_mutex_lock(&g->mu);
	gen = g->gen;
	if (!g->failed && ++g->arrived == g->n) {
		g->arrived = 0;
		g->gen++;
		g->stop = g->stop_flag && *g->stop_flag;
		gb_cond_broadcast(&g->cv);
	}
	while (!g->failed && gen == g->gen)
		gb_cond_wait(&g->cv, &g->mu);
	rc = g->failed ? -1 : g->stop ? 1 : 0;
	pthread_mutex_unlock(&g->mu);
	return rc;
}

/* Worker slot `who` failed (the first to call this is the one the report names). */
static void gate_fail(struct gate *g, int who)
{
	pthread_mutex_lock(&g->mu);
	if (!g->failed)
		g->first = who;
	g->failed = true;
	gb_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

bool sc_gate_failed(struct gate *g)
{
	bool f;

	pthread_mutex_lock(&g->mu);
	f = g->failed;
	pthread_mutex_unlock(&g->mu);
	return f;
}

void sc_nap(void)
{
	gb_sleep_s(SC_NAP_NS * 1e-9);
}

/* ---- worker-side errors: each thread writes its own, main reports the first ---- */


int sc_werr(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return -1;
}

int sc_cuda_werr(struct worker *w, cudaError_t e, const char *what)
{
	char b[160];

	return sc_werr(w, "'%s' failed on worker %d (GPU %d): %s", what, w->slot, w->dev,
		       gb_cuda_errstr(e, b, sizeof(b)));
}


/* The benchmark ERROR with what w reported (main thread). */
int sc_fail_from(struct sc *s, const struct worker *w)
{
	gb_bench_set_status(s->res, GB_STATUS_ERROR, "%s",
			    w->err[0] ? w->err : "internal: a worker failed without a reason");
	return -1;
}


/* w failed: the others leave at their next wait or barrier, or their watched call ends. */
void sc_workers_fail(struct worker *w)
{
	gate_fail(&w->s->gate, w->slot);
	sc_hurry_nccl(w->s);
}

/* ---- waiting ---- */

/*
 * Wait for ev without blocking forever: an NCCL error, another worker's
 * failure or the timeout ends the wait (-1, w->err set unless it was
 * another worker's failure, which that worker reports).
 */
int sc_worker_wait(struct worker *w, cudaEvent_t ev, const char *what)
{
	double deadline = gb_now_s() + w->s->timeout_s;

	for (;;) {
		cudaError_t e = cudaEventQuery(ev);

		if (e == cudaSuccess)
			return 0;
		if (e != cudaErrorNotReady)
			return sc_cuda_werr(w, e, what);
		if (sc_comm_check(w, what) || sc_gate_failed(&w->s->gate))
			return -1;
		if (gb_now_s() > deadline)
			return sc_werr(w,
				       "%s did not finish within %.0f s on worker %d (GPU %d): a GPU "
				       "stopped answering or a link hangs",
				       what, w->s->timeout_s, w->slot, w->dev);
		sc_nap();
	}
}

/* ---- one step ---- */

int sc_gemms(struct worker *w, uint64_t count)
{
	static const float one = 1.0f, zero = 0.0f;
	const struct gb_cublaslt *lt = w->s->lt;
	char b[160];

	for (uint64_t i = 0; i < count; i++) {
		/* D = A^T B in place of C (beta 0): the same operands every time, as a layer would */
		cublasStatus_t st = lt->cublasLtMatmul(w->lt, w->op, &one, w->a, w->la, w->b, w->lb,
						       &zero, w->d, w->lc, w->d, w->lc, &w->algo,
						       w->ws, SC_WORKSPACE_BYTES, w->cs);

		if (st != CUBLAS_STATUS_SUCCESS)
			return sc_werr(w, "'cublasLtMatmul' failed on worker %d (GPU %d): %s", w->slot,
				       w->dev, gb_cublaslt_errstr(st, b, sizeof(b)));
	}
	return 0;
}



/*
 * Enqueue one step between t0 and t1 on the compute stream: the compute
 * slices, each followed (--overlap) by its bucket's reduction on the
 * communication stream, or all buckets after the last slice; the step ends
 * when both streams are done.
 */
static int post_step(struct worker *w)
{
	const struct gb_scaling_plan *pl = &w->s->plan;
	bool reduce = w->s->mode != AR_NONE && pl->n_buckets > 0;

	W_CUDA(w, cudaEventRecord(w->t0, w->cs));
	for (int i = 0; i < pl->n_slices; i++) {
		uint64_t first, count;

		gb_scaling_slice(pl, i, &first, &count);
		if (sc_gemms(w, count))
			return -1;
		W_CUDA(w, cudaEventRecord(w->slice_done[i], w->cs));
		if (reduce && pl->overlap && sc_reduce_after(w, w->slice_done[i], i, i + 1))
			return -1;
	}
	W_CUDA(w, cudaEventRecord(w->compute_done, w->cs));
	if (reduce && !pl->overlap && sc_reduce_after(w, w->slice_done[0], 0, pl->n_buckets))
		return -1;
	if (reduce) {
		W_CUDA(w, cudaEventRecord(w->comm_done, w->ns));
		W_CUDA(w, cudaStreamWaitEvent(w->cs, w->comm_done, 0));
	}
	W_CUDA(w, cudaEventRecord(w->t1, w->cs));
	return 0;
}

static int worker_step(struct worker *w, bool timed)
{
	float ms = 0, compute_ms = 0;

	if (post_step(w) || sc_worker_wait(w, w->t1, "a step"))
		return -1;
	if (!timed)
		return 0;
	W_CUDA(w, cudaEventElapsedTime(&ms, w->t0, w->t1));
	/* the compute stream waits for the reduction only after its last slice */
	W_CUDA(w, cudaEventElapsedTime(&compute_ms, w->t0, w->compute_done));
	w->compute_s[w->n_steps] = (double)compute_ms * 1e-3;
	w->step_s[w->n_steps++] = (double)ms * 1e-3;
	return 0;
}

/* A worker's thread: warm-up and timed steps, each after the barrier. */
void *sc_worker_main(void *arg)
{
	struct worker *w = arg;
	struct sc *s = w->s;
	int64_t total = s->p->warmup_steps + s->p->steps;
	cudaError_t e = cudaSetDevice(w->dev); /* the current device is per thread */

	if (e != cudaSuccess) {
		sc_cuda_werr(w, e, "cudaSetDevice");
		sc_workers_fail(w);
		return NULL;
	}
	for (int64_t k = 0; k < total; k++) {
		if (gate_wait(&s->gate))
			break;
		if (worker_step(w, k >= s->p->warmup_steps)) {
			sc_workers_fail(w);
			break;
		}
	}
	return NULL;
}
