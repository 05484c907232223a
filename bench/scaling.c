/* SPDX-License-Identifier: MIT */
/*
 * scaling.c - `gpubench scaling`: what 1, 2, ... N GPUs gain over one on a
 * compute stream (gemm) or a synthetic data-parallel training step (ddp),
 * measured, and placed against the model of report/scaling.h.
 *
 * How a run goes (docs/scaling.md, "Measuring"):
 *   setup     one worker per --devices entry (a GPU may repeat: 0,0): its
 *             own compute and communication streams, cuBLASLt handle, GEMM
 *             operands and gradient buffer, all allocated up front
 *   size      the step's GEMM count: from --step-tflop (work / 2n^3), or
 *             from --step-ms and GEMMs timed on the first worker alone
 *   phases    N = 1, then 2 .. W: one host thread per worker, all in
 *             lockstep (a barrier before every step); a step is timed with
 *             CUDA events on each worker, and its time is the slowest's.
 *             ddp all-reduces over an NCCL communicator of the N GPUs (one
 *             rank at N = 1, so one GPU runs the whole path); a worker list
 *             that repeats a GPU cannot have one (NCCL allows one rank per
 *             GPU), so there the all-reduce is a device-local copy of the
 *             same bytes and the result is reported as contention
 *   price     for N >= 2 distinct GPUs: the all-reduce alone over a few
 *             sizes, fitted t = alpha + S/beta (unless --link)
 *   report    per N: step time, throughput, speedup and efficiency with
 *             their spread over steps, the model's no-overlap and
 *             perfect-overlap range, and a check placing the speedup in it
 * NCCL (bench/nccl_comm.h): the communicators join non-blocking, so that
 * wait is polled against a deadline, and the steps and the sweep run on
 * their blocking splits (NCCL 2.19.1+), so an all-reduce returns once
 * enqueued and no host polling lands inside a timed step. Every blocking
 * NCCL call is watched:
 * past the timeout, or soon after another worker failed, a watchdog aborts
 * the communicator it is blocked in. Waits on the GPU poll events with a
 * deadline, and a failed worker releases the others, so a hung GPU or link
 * ends in an error, not a process that waits forever. Never prints, never
 * exits.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/cublaslt_dl.h"
#include "bench/dtype_math.h"
#include "bench/gpu.h"
#include "bench/scaling_math.h"
#include "bench/telemetry.h"
#include "kernels/kernels.h"
#include "report/scaling.h"
#include "report/stats.h"

#if GPUBENCH_HAVE_NCCL
#include "bench/nccl_comm.h"
#include "bench/nccl_dl.h"
#endif

/* PyTorch and the cuBLAS docs: 32 MiB lets Hopper's split-K and stream-K kernels run */
#define SC_WORKSPACE_BYTES (32u << 20)
/* longest wait for anything, on top of ten expected steps */
#define SC_TIMEOUT_S 120.0
/* between polls of an event or a communicator: short next to any step */
#define SC_NAP_NS 100000L
/* calibration: GEMMs until clocks settle, then the median of batches of ~20 ms */
#define SC_CAL_WARM_S 0.5
#define SC_CAL_BATCH_S 0.02
#define SC_CAL_REPS 5
/* the all-reduce sweep, per size (nccl-tests' defaults are 5 and 20) */
#define SC_SWEEP_WARMUP 5
#define SC_SWEEP_ITERS 20
#define SC_TELEMETRY_INTERVAL_S 0.1

/* How a phase reduces its gradients. */
enum ar_mode { AR_NONE = 0, AR_NCCL, AR_COPY };
static const char *const ar_mode_names[] = { "none", "nccl", "local_copy" };

/* ---- an abortable barrier: the lockstep of the workers ---- */

struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t n, arrived;
	unsigned long gen;
	bool failed;                    /* a worker failed: everyone leaves */
	int first;                      /* the slot of the worker that failed first, -1 none */
	bool stop;                      /* the last to arrive saw the stop flag */
	volatile sig_atomic_t *stop_flag;
};

/* Once per run: worker_wait() asks the gate outside phases too (calibration, sweep). */
static void gate_init(struct gate *g, volatile sig_atomic_t *stop_flag)
{
	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->stop_flag = stop_flag;
}

/* Before a phase: n workers, nobody failed. */
static void gate_arm(struct gate *g, size_t n)
{
	pthread_mutex_lock(&g->mu);
	g->n = n;
	g->arrived = 0;
	g->failed = false;
	g->first = -1;
	g->stop = false;
	pthread_mutex_unlock(&g->mu);
}

static void gate_destroy(struct gate *g)
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

static bool gate_failed(struct gate *g)
{
	bool f;

	pthread_mutex_lock(&g->mu);
	f = g->failed;
	pthread_mutex_unlock(&g->mu);
	return f;
}

/* ---- state ---- */

struct sc;

struct worker {
	int slot;                 /* position in the worker list: the NCCL rank */
	int dev;                  /* CUDA index */
	struct sc *s;
	cudaStream_t cs, ns;      /* compute, communication */
	cudaEvent_t t0, t1;       /* step (or batch) start and end */
	cudaEvent_t comm_done;
	cudaEvent_t *slice_done;  /* one per compute slice */
	cudaEvent_t compute_done; /* after the last slice, timed: the step's compute part */
	int n_slice_ev;
	cublasLtHandle_t lt;
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t la, lb, lc;
	cublasLtMatmulPreference_t pref;
	cublasLtMatmulAlgo_t algo;
	void *a, *b, *d, *ws;
	float *grad, *scratch;    /* scratch: the copy that replaces the all-reduce */
	double *step_s;           /* this phase's timed steps */
	double *compute_s;        /* each timed step's compute slices alone (t0 to the last) */
	size_t n_steps;
	char err[640];            /* set by this worker's thread only; main reports it */
};

/* One worker count's results (or one GPU alone: a solo pass of the gemm workload). */
struct phase {
	int n;
	int first;                /* workers first .. first + n - 1 (0 except in a solo pass) */
	enum ar_mode mode;
	double *step_s;           /* the slowest worker's time per step */
	size_t n_steps;
	double worker_s[GB_DEVICE_LIST_MAX]; /* each worker's median step, seconds */
	/* each worker's median compute part of a step: a ddp step waits for the
	 * all-reduce, so only this says which GPU computes slowly */
	double worker_compute_s[GB_DEVICE_LIST_MAX];
	size_t n_sweep;
	double sweep_bytes[GB_SCALING_SWEEP_MAX], sweep_s[GB_SCALING_SWEEP_MAX];
	bool fit_ok;
	struct gb_alpha_beta fit;
	struct gb_ar_link link;   /* the fit as the model's per-step price */
};

struct sc {
	struct gb_ctx *ctx;
	const struct gb_scaling_params *p;
	struct gb_bench_result *res;
	const struct gb_cublaslt *lt;
	int dev[GB_DEVICE_LIST_MAX];
	size_t n_workers;
	struct worker *w;
	struct phase *ph;
	size_t n_phases;          /* phases run (measured or not) */
	/* gemm: each distinct GPU's median step alone (the first from N = 1): names a straggler */
	int solo_dev[GB_DEVICE_LIST_MAX];
	double solo_s[GB_DEVICE_LIST_MAX];
	size_t n_solo;
	struct gb_scaling_plan plan;
	uint64_t n;               /* GEMM side */
	bool bf16;                /* else fp32 (a GPU older than compute capability 8.0) */
	double t_gemm_s;          /* one GEMM on the first worker alone */
	double timeout_s;
	uint64_t grad_alloc;      /* gradient buffer per worker: the gradients or the sweep */
	bool any_repeat;
	enum ar_mode mode;        /* of the phase running */
	struct gate gate;
#if GPUBENCH_HAVE_NCCL
	struct gb_nccl_comms comms; /* of the NCCL phase running: rank i is worker i */
#endif
	char note[256];           /* why fp32, when it is */
};

static void nap(void)
{
	gb_sleep_s(SC_NAP_NS * 1e-9);
}

/* ---- worker-side errors: each thread writes its own, main reports the first ---- */

static int werr(struct worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int werr(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int cuda_werr(struct worker *w, cudaError_t e, const char *what)
{
	char b[160];

	return werr(w, "'%s' failed on worker %d (GPU %d): %s", what, w->slot, w->dev,
		    gb_cuda_errstr(e, b, sizeof(b)));
}

#define W_CUDA(w, call)                                     \
	do {                                                     \
		cudaError_t w_e_ = (call);                       \
		if (w_e_ != cudaSuccess)                         \
			return cuda_werr((w), w_e_, #call);      \
	} while (0)

/* The benchmark ERROR with what w reported (main thread). */
static int fail_from(struct sc *s, const struct worker *w)
{
	gb_bench_set_status(s->res, GB_STATUS_ERROR, "%s",
			    w->err[0] ? w->err : "internal: a worker failed without a reason");
	return -1;
}

/* ---- NCCL ---- */

#if GPUBENCH_HAVE_NCCL

static bool nccl_ok(ncclResult_t r)
{
	return r == ncclSuccess || r == ncclInProgress;
}

/* w's communicator in the phase running, NULL when the phase has none (or it was aborted). */
static ncclComm_t worker_comm(const struct worker *w)
{
	const struct gb_nccl_comms *c = &w->s->comms;

	return w->s->mode == AR_NCCL && w->slot < c->n ? c->comm[w->slot] : NULL;
}

static int nccl_werr(struct worker *w, ncclResult_t r, const char *what)
{
	const char *last = gb_nccl_last_error(worker_comm(w));

	return werr(w, "'%s' failed on rank %d (GPU %d): %s%s%s", what, w->slot, w->dev,
		    gb_nccl.ncclGetErrorString(r), *last ? ": " : "", last);
}

/* w's communicator: 1 a call in progress, 0 idle, -1 an asynchronous error (in w->err) */
static int comm_state(struct worker *w, const char *what)
{
	ncclResult_t a = gb_nccl_comm_query(worker_comm(w));

	if (a == ncclInProgress)
		return 1;
	return a == ncclSuccess ? 0 : nccl_werr(w, a, what);
}

static int comm_check(struct worker *w, const char *what)
{
	return comm_state(w, what) < 0 ? -1 : 0;
}

/* A worker failed: the others' watched NCCL calls end soon, not at the timeout. */
static void hurry_nccl(struct sc *s)
{
	if (s->mode == AR_NCCL)
		gb_nccl_comms_hurry_ranks(&s->comms);
}

/*
 * The comms the steps and the sweep use: blocking splits only where NCCL
 * lets the workers' watchdogs abort from several threads at once (2.19.1,
 * bench/nccl_comm.h); before, the parents, polled. params.launch records
 * which ran.
 */
static int comms_for_steps(struct sc *s)
{
	if (gb_nccl.version >= GB_NCCL_CONCURRENT_ABORT) {
		if (gb_nccl_comms_split(&s->comms))
			return -1;
	} else {
		gb_nccl_comms_use_parents(&s->comms);
	}
	gb_bench_param_str(s->res, "launch",
			   s->comms.blocking
				   ? "blocking communicators (split off non-blocking ones)"
				   : "non-blocking communicators (NCCL before 2.19.1: each "
				     "all-reduce is polled until enqueued, inside the step)");
	return 0;
}

/*
 * The communicators of workers 0..n-1, ranks in worker order (main thread):
 * non-blocking parents, so joining is bounded, and their blocking splits for
 * the steps and the sweep (bench/nccl_comm.h), with a watchdog per worker
 * for the calls each worker's thread makes on its own.
 */
static int comms_init(struct sc *s, int n)
{
	ncclUniqueId id;
	ncclResult_t r = gb_nccl.ncclGetUniqueId(&id);

	if (r != ncclSuccess) {
		gb_bench_set_status(s->res, GB_STATUS_ERROR, "'ncclGetUniqueId' failed: %s%s%s",
				    gb_nccl.ncclGetErrorString(r),
				    *gb_nccl_last_error(NULL) ? ": " : "", gb_nccl_last_error(NULL));
		return -1;
	}
	if (gb_nccl_comms_start(&s->comms, s->res, s->dev, n, 0, n, s->timeout_s, NULL, true))
		return -1;
	if (gb_nccl_comms_init(&s->comms, &id) || comms_for_steps(s))
		return -1;
	return 0;
}

/* Finalized and destroyed when clean, else aborted; then the watchdogs stop (main thread). */
static void comms_destroy(struct sc *s, bool clean)
{
	gb_nccl_comms_destroy(&s->comms, clean);
	gb_nccl_comms_stop(&s->comms);
}

/*
 * NCCL before 2.19.1 (comms_for_steps): the all-reduce on a non-blocking
 * communicator, polled until enqueued, which puts host time into the step
 * (params.launch says so).
 */
static int worker_allreduce_polled(struct worker *w, float *p, uint64_t count)
{
	double deadline = gb_now_s() + w->s->timeout_s;
	ncclResult_t r = gb_nccl.ncclAllReduce(p, p, count, ncclFloat32, ncclSum, worker_comm(w),
					       w->ns);
	int st;

	if (!nccl_ok(r))
		return nccl_werr(w, r, "ncclAllReduce");
	/* non-blocking: the next NCCL call must wait until this one is enqueued */
	while (r == ncclInProgress && (st = comm_state(w, "ncclAllReduce")) != 0) {
		if (st < 0 || gate_failed(&w->s->gate))
			return -1;
		if (gb_now_s() > deadline)
			return werr(w, "ncclAllReduce was not enqueued within %.0f s on rank %d (GPU %d)",
				    w->s->timeout_s, w->slot, w->dev);
		nap();
	}
	return 0;
}

/*
 * One in-place all-reduce on w's own blocking communicator (worker thread):
 * it returns once enqueued, with no polling, so the next slice's GEMMs
 * follow at once. A call that blocks (a lost GPU, or a peer whose worker
 * failed before its first all-reduce connected) is ended by w's watchdog,
 * at the timeout or soon after another worker failed.
 */
static int worker_allreduce(struct worker *w, float *p, uint64_t count)
{
	struct gb_nccl_comms *c = &w->s->comms;
	ncclResult_t r;

	if (!c->blocking)
		return worker_allreduce_polled(w, p, count);
	gb_nccl_comms_watch_rank(c, w->slot, "ncclAllReduce");
	/*
	 * A hurry shortens only an armed watch: a worker that failed before this
	 * arming hurried nothing of ours, and the call would wait for it for the
	 * whole timeout. workers_fail() marks the gate before it hurries, so
	 * either the gate says so here or its hurry finds this watch armed.
	 */
	if (gate_failed(&w->s->gate)) {
		gb_nccl_comms_unwatch_rank(c, w->slot);
		return -1;
	}
	r = gb_nccl.ncclAllReduce(p, p, count, ncclFloat32, ncclSum, c->comm[w->slot], w->ns);
	if (gb_nccl_comms_unwatch_rank(c, w->slot)) {
		if (gate_failed(&w->s->gate))
			return werr(w, "ncclAllReduce on rank %d (GPU %d) was aborted: another "
				    "worker failed", w->slot, w->dev);
		return werr(w, "ncclAllReduce did not return within %g s on rank %d (GPU %d): a "
			    "GPU stopped answering or a link hangs", c->timeout_s, w->slot, w->dev);
	}
	return r == ncclSuccess ? 0 : nccl_werr(w, r, "ncclAllReduce");
}

/* One in-place all-reduce of count floats on every one of the first n workers, grouped. */
static int group_allreduce(struct sc *s, int n, uint64_t count)
{
	ncclResult_t r = ncclSuccess;
	int failed = -1;

	gb_nccl.ncclGroupStart();
	for (int i = 0; i < n && failed < 0; i++) {
		r = gb_nccl.ncclAllReduce(s->w[i].grad, s->w[i].grad, count, ncclFloat32, ncclSum,
					  s->comms.comm[i], s->w[i].ns);
		if (!nccl_ok(r))
			failed = i;
	}
	/* blocking (NCCL 2.19.1+): launched inline under the watchdog; before: polled */
	return gb_nccl_comms_end_group(&s->comms, failed, r, false, "ncclAllReduce");
}

#else /* built without NCCL: ddp cannot run, and says so before any of these is reached */

static int comm_check(struct worker *w, const char *what)
{
	(void)w;
	(void)what;
	return 0;
}

static void hurry_nccl(struct sc *s)
{
	(void)s;
}

static int comms_init(struct sc *s, int n)
{
	(void)n;
	gb_bench_set_status(s->res, GB_STATUS_ERROR, "gpubench was built without NCCL");
	return -1;
}

static void comms_destroy(struct sc *s, bool clean)
{
	(void)s;
	(void)clean;
}

static int worker_allreduce(struct worker *w, float *p, uint64_t count)
{
	(void)p;
	(void)count;
	return werr(w, "gpubench was built without NCCL");
}

static int group_allreduce(struct sc *s, int n, uint64_t count)
{
	(void)n;
	(void)count;
	gb_bench_set_status(s->res, GB_STATUS_ERROR, "gpubench was built without NCCL");
	return -1;
}

#endif

/* w failed: the others leave at their next wait or barrier, or their watched call ends. */
static void workers_fail(struct worker *w)
{
	gate_fail(&w->s->gate, w->slot);
	hurry_nccl(w->s);
}

/* ---- waiting ---- */

/*
 * Wait for ev without blocking forever: an NCCL error, another worker's
 * failure or the timeout ends the wait (-1, w->err set unless it was
 * another worker's failure, which that worker reports).
 */
static int worker_wait(struct worker *w, cudaEvent_t ev, const char *what)
{
	double deadline = gb_now_s() + w->s->timeout_s;

	for (;;) {
		cudaError_t e = cudaEventQuery(ev);

		if (e == cudaSuccess)
			return 0;
		if (e != cudaErrorNotReady)
			return cuda_werr(w, e, what);
		if (comm_check(w, what) || gate_failed(&w->s->gate))
			return -1;
		if (gb_now_s() > deadline)
			return werr(w,
				    "%s did not finish within %.0f s on worker %d (GPU %d): a GPU "
				    "stopped answering or a link hangs",
				    what, w->s->timeout_s, w->slot, w->dev);
		nap();
	}
}

/* ---- one step ---- */

static int gemms(struct worker *w, uint64_t count)
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
			return werr(w, "'cublasLtMatmul' failed on worker %d (GPU %d): %s", w->slot,
				    w->dev, gb_cublaslt_errstr(st, b, sizeof(b)));
	}
	return 0;
}

/* Bucket i of the gradients on the communication stream: all-reduced, or copied. */
static int reduce_bucket(struct worker *w, int i)
{
	uint64_t first, count;

	gb_scaling_bucket(&w->s->plan, i, &first, &count);
	if (!count)
		return 0;
	if (w->s->mode == AR_COPY) {
		W_CUDA(w, cudaMemcpyAsync(w->scratch + first, w->grad + first,
					  count * GB_SCALING_GRAD_ELEM_BYTES, cudaMemcpyDeviceToDevice,
					  w->ns));
		return 0;
	}
	return worker_allreduce(w, w->grad + first, count);
}

/* Wait on the communication stream for ev, then reduce buckets [from, to). */
static int reduce_after(struct worker *w, cudaEvent_t ev, int from, int to)
{
	W_CUDA(w, cudaStreamWaitEvent(w->ns, ev, 0));
	for (int i = from; i < to; i++)
		if (reduce_bucket(w, i))
			return -1;
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
		if (gemms(w, count))
			return -1;
		W_CUDA(w, cudaEventRecord(w->slice_done[i], w->cs));
		if (reduce && pl->overlap && reduce_after(w, w->slice_done[i], i, i + 1))
			return -1;
	}
	W_CUDA(w, cudaEventRecord(w->compute_done, w->cs));
	if (reduce && !pl->overlap && reduce_after(w, w->slice_done[0], 0, pl->n_buckets))
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

	if (post_step(w) || worker_wait(w, w->t1, "a step"))
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
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct sc *s = w->s;
	int64_t total = s->p->warmup_steps + s->p->steps;
	cudaError_t e = cudaSetDevice(w->dev); /* the current device is per thread */

	if (e != cudaSuccess) {
		cuda_werr(w, e, "cudaSetDevice");
		workers_fail(w);
		return NULL;
	}
	for (int64_t k = 0; k < total; k++) {
		if (gate_wait(&s->gate))
			break;
		if (worker_step(w, k >= s->p->warmup_steps)) {
			workers_fail(w);
			break;
		}
	}
	return NULL;
}

/* ---- set-up and tear-down (main thread) ---- */

static int dev_alloc(struct sc *s, const struct worker *w, void **p, size_t bytes,
		     const char *what)
{
	cudaError_t e = cudaMalloc(p, bytes);
	size_t free_b = 0, total_b = 0;
	char sz[32], fr[32], tot[32], b[160];

	if (e == cudaSuccess)
		return 0;
	*p = NULL;
	(void)cudaGetLastError(); /* an allocation failure is not sticky: clear it */
	cudaMemGetInfo(&free_b, &total_b);
	gb_format_bytes(sz, sizeof(sz), (double)bytes);
	gb_format_bytes(fr, sizeof(fr), (double)free_b);
	gb_format_bytes(tot, sizeof(tot), (double)total_b);
	gb_bench_set_status(s->res, GB_STATUS_ERROR,
			    "cannot allocate %s for %s of worker %d on GPU %d: %s; %s of %s free",
			    sz, what, w->slot, w->dev, gb_cuda_errstr(e, b, sizeof(b)), fr, tot);
	return -1;
}

/* The GEMM of every step: n x n x n, TN layout (as bench/gemm.c), cuBLASLt's first pick. */
static int gemm_setup(struct sc *s, struct worker *w)
{
	const struct gb_cublaslt *lt = s->lt;
	enum gb_dtype dt = s->bf16 ? GB_DT_BF16 : GB_DT_F32;
	cudaDataType_t ct = s->bf16 ? CUDA_R_16BF : CUDA_R_32F;
	cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	cublasLtMatmulHeuristicResult_t h;
	uint64_t ws = SC_WORKSPACE_BYTES, n = s->n;
	size_t bytes = (size_t)(n * n * gb_dtype_size(dt));
	int found = 0, rc = 0;

	if (dev_alloc(s, w, &w->a, bytes, "GEMM operand A") ||
	    dev_alloc(s, w, &w->b, bytes, "GEMM operand B") ||
	    dev_alloc(s, w, &w->d, bytes, "GEMM output D") ||
	    dev_alloc(s, w, &w->ws, SC_WORKSPACE_BYTES, "the cuBLASLt workspace"))
		return -1;
	/* random inputs: zeros multiply faster and draw less power than real data */
	GB_CUDA_GOTO(s->res, gb_launch_fill_random(w->a, dt, n * n, 2 * (uint64_t)w->slot + 1, 0,
						   w->cs), out);
	GB_CUDA_GOTO(s->res, gb_launch_fill_random(w->b, dt, n * n, 2 * (uint64_t)w->slot + 2, 0,
						   w->cs), out);
	GB_CUBLASLT_GOTO(s->res, lt->cublasLtMatmulDescCreate(&w->op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
			 out);
	GB_CUBLASLT_GOTO(s->res, lt->cublasLtMatmulDescSetAttribute(w->op, CUBLASLT_MATMUL_DESC_TRANSA,
								     &ta, sizeof(ta)), out);
	GB_CUBLASLT_GOTO(s->res, lt->cublasLtMatmulDescSetAttribute(w->op, CUBLASLT_MATMUL_DESC_TRANSB,
								     &tb, sizeof(tb)), out);
	GB_CUBLASLT_GOTO(s->res, lt->cublasLtMatrixLayoutCreate(&w->la, ct, n, n, (int64_t)n), out);
	GB_CUBLASLT_GOTO(s->res, lt->cublasLtMatrixLayoutCreate(&w->lb, ct, n, n, (int64_t)n), out);
	GB_CUBLASLT_GOTO(s->res, lt->cublasLtMatrixLayoutCreate(&w->lc, ct, n, n, (int64_t)n), out);
	GB_CUBLASLT_GOTO(s->res, lt->cublasLtMatmulPreferenceCreate(&w->pref), out);
	GB_CUBLASLT_GOTO(s->res, lt->cublasLtMatmulPreferenceSetAttribute(
					 w->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
					 sizeof(ws)), out);
	GB_CUBLASLT_GOTO(s->res, lt->cublasLtMatmulAlgoGetHeuristic(w->lt, w->op, w->la, w->lb,
								     w->lc, w->lc, w->pref, 1, &h,
								     &found), out);
	if (found < 1 || h.state != CUBLAS_STATUS_SUCCESS) {
		gb_bench_set_status(s->res, GB_STATUS_ERROR,
				    "cuBLASLt offers no algorithm for a %s %llux%llux%llu GEMM on "
				    "GPU %d", s->bf16 ? "bf16" : "fp32", (unsigned long long)n,
				    (unsigned long long)n, (unsigned long long)n, w->dev);
		return -1;
	}
	w->algo = h.algo;
out:
	return rc;
}

static int events_setup(struct sc *s, struct worker *w)
{
	int rc = 0;

	GB_CUDA_GOTO(s->res, cudaEventCreate(&w->t0), out);
	GB_CUDA_GOTO(s->res, cudaEventCreate(&w->t1), out);
	GB_CUDA_GOTO(s->res, cudaEventCreate(&w->compute_done), out);
	GB_CUDA_GOTO(s->res, cudaEventCreateWithFlags(&w->comm_done, cudaEventDisableTiming), out);
	w->slice_done = calloc((size_t)s->plan.n_slices, sizeof(*w->slice_done));
	if (!w->slice_done) {
		gb_bench_set_status(s->res, GB_STATUS_ERROR, "out of host memory");
		return -1;
	}
	for (; w->n_slice_ev < s->plan.n_slices; w->n_slice_ev++)
		GB_CUDA_GOTO(s->res, cudaEventCreateWithFlags(&w->slice_done[w->n_slice_ev],
							      cudaEventDisableTiming), out);
out:
	return rc;
}

/* Zeroed gradients: sums of zeros stay finite however often they are reduced. */
static int grad_setup(struct sc *s, struct worker *w)
{
	int rc = 0;

	if (dev_alloc(s, w, (void **)&w->grad, s->grad_alloc, "the gradients"))
		return -1;
	GB_CUDA_GOTO(s->res, cudaMemsetAsync(w->grad, 0, s->grad_alloc, w->cs), out);
	if (s->any_repeat &&
	    dev_alloc(s, w, (void **)&w->scratch, s->plan.grad_bytes, "the gradient copy"))
		return -1;
out:
	return rc;
}

static int worker_setup(struct sc *s, struct worker *w)
{
	int rc = 0;

	GB_CUDA_GOTO(s->res, cudaSetDevice(w->dev), out);
	GB_CUDA_GOTO(s->res, cudaStreamCreateWithFlags(&w->cs, cudaStreamNonBlocking), out);
	GB_CUDA_GOTO(s->res, cudaStreamCreateWithFlags(&w->ns, cudaStreamNonBlocking), out);
	if (events_setup(s, w))
		return -1;
	GB_CUBLASLT_GOTO(s->res, s->lt->cublasLtCreate(&w->lt), out);
	if (gemm_setup(s, w))
		return -1;
	if (s->p->workload == GB_SCALING_WL_DDP && grad_setup(s, w))
		return -1;
	w->step_s = calloc((size_t)s->p->steps, sizeof(double));
	w->compute_s = calloc((size_t)s->p->steps, sizeof(double));
	if (!w->step_s || !w->compute_s) {
		gb_bench_set_status(s->res, GB_STATUS_ERROR, "out of host memory");
		return -1;
	}
	GB_CUDA_GOTO(s->res, cudaStreamSynchronize(w->cs), out);
out:
	return rc;
}

static void worker_teardown(const struct sc *s, struct worker *w)
{
	const struct gb_cublaslt *lt = s->lt;

	cudaSetDevice(w->dev);
	free(w->step_s);
	free(w->compute_s);
	cudaFree(w->scratch);
	cudaFree(w->grad);
	if (w->pref)
		lt->cublasLtMatmulPreferenceDestroy(w->pref);
	if (w->lc)
		lt->cublasLtMatrixLayoutDestroy(w->lc);
	if (w->lb)
		lt->cublasLtMatrixLayoutDestroy(w->lb);
	if (w->la)
		lt->cublasLtMatrixLayoutDestroy(w->la);
	if (w->op)
		lt->cublasLtMatmulDescDestroy(w->op);
	cudaFree(w->ws);
	cudaFree(w->d);
	cudaFree(w->b);
	cudaFree(w->a);
	if (w->lt)
		lt->cublasLtDestroy(w->lt);
	for (int i = 0; i < w->n_slice_ev; i++)
		cudaEventDestroy(w->slice_done[i]);
	free(w->slice_done);
	if (w->comm_done)
		cudaEventDestroy(w->comm_done);
	if (w->compute_done)
		cudaEventDestroy(w->compute_done);
	if (w->t1)
		cudaEventDestroy(w->t1);
	if (w->t0)
		cudaEventDestroy(w->t0);
	if (w->ns)
		cudaStreamDestroy(w->ns);
	if (w->cs)
		cudaStreamDestroy(w->cs);
}

/* ---- sizing the step ---- */

/* count GEMMs on w alone between its events; *sec the device time. */
static int worker_timed_gemms(struct worker *w, uint64_t count, double *sec)
{
	float ms = 0;

	W_CUDA(w, cudaEventRecord(w->t0, w->cs));
	if (gemms(w, count))
		return -1;
	W_CUDA(w, cudaEventRecord(w->t1, w->cs));
	if (worker_wait(w, w->t1, "timing GEMMs"))
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
		return fail_from(s, w);
	do {
		if (worker_timed_gemms(w, batch, &sec))
			return fail_from(s, w);
		per_gemm_s = sec / (double)batch;
		batch = batch_for(0.1, per_gemm_s);
	} while (gb_now_s() - t_start < SC_CAL_WARM_S && !gb_should_stop(s->ctx));
	batch = batch_for(SC_CAL_BATCH_S, per_gemm_s);
	for (int r = 0; r < SC_CAL_REPS; r++) {
		if (worker_timed_gemms(w, batch, &sec))
			return fail_from(s, w);
		reps[r] = sec / (double)batch;
	}
	s->t_gemm_s = gb_percentile(reps, SC_CAL_REPS, 50);
	return 0;
}

/* The step's GEMM count, from work or from the calibration, and the final plan. */
static int size_step(struct sc *s)
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
	if (worker_wait(w, w->t1, "the all-reduce sweep"))
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
		if (group_allreduce(s, n, count))
			return -1;
	for (int i = 0; i < n; i++)
		if (worker_comm_mark(&s->w[i]))
			return fail_from(s, &s->w[i]);
	for (int i = 0; i < SC_SWEEP_ITERS; i++)
		if (group_allreduce(s, n, count))
			return -1;
	for (int i = 0; i < n; i++) {
		if (worker_comm_elapsed(&s->w[i], &t))
			return fail_from(s, &s->w[i]);
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

	gate_arm(&s->gate, (size_t)n);
	for (int i = 0; i < n; i++) {
		w[i].n_steps = 0;
		w[i].err[0] = '\0';
	}
	for (; started < n; started++) {
		if (gb_thread_start(&th[started], worker_main, &w[started])) {
			werr(&w[started], "cannot start the thread of worker %d", w[started].slot);
			workers_fail(&w[started]);
			break;
		}
	}
	for (int i = 0; i < started; i++)
		gb_thread_join(th[i]);
	if (gate_failed(&s->gate)) {
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
		rc = fail_from(s, &w[first]);
		gate_arm(&s->gate, 0); /* the main thread's own waits go on */
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
	if (ph->mode == AR_NCCL && comms_init(s, ph->n)) {
		comms_destroy(s, false);
		return -1;
	}
	rc = run_steps(s, ph);
	if (!rc && ph->mode == AR_NCCL && ph->n >= 2 && s->p->link < 0 && !gb_should_stop(s->ctx))
		rc = sweep(s, ph);
	if (ph->mode == AR_NCCL)
		comms_destroy(s, rc == 0);
	return rc;
}

static enum ar_mode mode_for(const struct sc *s, int n)
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

static int run_phases(struct sc *s)
{
	for (size_t i = 0; i < s->n_workers && !gb_should_stop(s->ctx); i++) {
		struct phase *ph = &s->ph[i];

		ph->n = (int)i + 1;
		ph->mode = mode_for(s, ph->n);
		s->n_phases = i + 1;
		if (run_phase(s, ph))
			return -1;
		if (i == 0 && s->p->workload == GB_SCALING_WL_GEMM && run_solos(s))
			return -1;
	}
	return 0;
}

/* ---- reporting ---- */

static const char *per_n(const char *base, int n, char *buf, size_t len)
{
	snprintf(buf, len, "%s_n%d", base, n);
	return buf;
}

/* Metrics of step time, throughput, speedup and efficiency; the median speedup (NAN if none). */
static double add_step_metrics(struct sc *s, const struct phase *ph, double t1, double work,
			       int gpus)
{
	size_t c = ph->n_steps;
	double *ms = calloc(c, sizeof(double)), *sp = calloc(c, sizeof(double));
	double *eff = calloc(c, sizeof(double)), *tf = calloc(c, sizeof(double));
	double median = NAN;
	char nm[64];

	if (!ms || !sp || !eff || !tf)
		goto out;
	for (size_t i = 0; i < c; i++)
		ms[i] = ph->step_s[i] * 1e3;
	gb_bench_add_metric(s->res, per_n("step_ms", ph->n, nm, sizeof(nm)), "ms",
			    GB_BETTER_LOWER, -1, ms, c, NAN);
	if (gb_scaling_speedups(ph->n, t1, work, ph->step_s, c, sp, eff, tf))
		goto out;
	for (size_t i = 0; i < c; i++)
		eff[i] *= 100;
	gb_bench_add_metric(s->res, per_n("throughput_tflops", ph->n, nm, sizeof(nm)),
			    "TFLOP/s", GB_BETTER_HIGHER, -1, tf, c, NAN);
	/* the ideal is one per GPU: N, or fewer when workers share GPUs */
	gb_bench_add_metric(s->res, per_n("speedup", ph->n, nm, sizeof(nm)), "x",
			    GB_BETTER_HIGHER, -1, sp, c, (double)gpus);
	gb_bench_add_metric(s->res, per_n("efficiency", ph->n, nm, sizeof(nm)), "%",
			    GB_BETTER_HIGHER, -1, eff, c, 100);
	median = gb_percentile(sp, c, 50);
out:
	free(tf);
	free(eff);
	free(sp);
	free(ms);
	return median;
}

/* How the all-reduce of a phase is priced; false with a reason when it cannot be. */
static bool phase_link(const struct sc *s, const struct phase *ph, struct gb_ar_link *link,
		       const char **source, char *why, size_t len)
{
	const struct gb_link_model *m;

	memset(link, 0, sizeof(*link));
	*source = "none";
	if (s->p->workload != GB_SCALING_WL_DDP)
		return true;
	if (s->p->link >= 0) {
		m = gb_link_model_by_name(gb_link_model_names[s->p->link]);
		*source = m ? m->label : "?";
		return gb_scaling_nominal_link(m, gb_scaling_nvlinks_among(s->ctx->run, s->dev,
									   (size_t)ph->n),
					       link, why, len) == 0;
	}
	*source = "measured";
	if (ph->fit_ok) {
		*link = ph->link;
		return true;
	}
	snprintf(why, len, "cannot price the all-reduce: the sweep of %zu sizes gave no finite "
		 "bandwidth", ph->n_sweep);
	return false;
}

static void add_model_metrics(struct sc *s, int n, const struct gb_scaling_out *out,
			      const struct gb_ar_link *link)
{
	char nm[64];

	gb_bench_add_value(s->res, per_n("predicted_no_overlap", n, nm, sizeof(nm)), "x",
			   GB_BETTER_HIGHER, -1, out->speedup_no_overlap, n);
	gb_bench_add_value(s->res, per_n("predicted_perfect_overlap", n, nm, sizeof(nm)),
			   "x", GB_BETTER_HIGHER, -1, out->speedup_perfect, n);
	if (s->p->workload != GB_SCALING_WL_DDP)
		return;
	gb_bench_add_value(s->res, per_n("predicted_no_overlap_max", n, nm, sizeof(nm)), "x",
			   GB_BETTER_HIGHER, -1, out->speedup_no_overlap_max, n);
	gb_bench_add_value(s->res, per_n("predicted_allreduce_ms", n, nm, sizeof(nm)), "ms",
			   GB_BETTER_LOWER, -1, out->t_allreduce_s * 1e3, NAN);
	gb_bench_add_value(s->res, per_n("allreduce_alpha_us", n, nm, sizeof(nm)), "us",
			   GB_BETTER_LOWER, -1, link->alpha_s * 1e6, NAN);
	gb_bench_add_value(s->res, per_n("allreduce_busbw_gbps", n, nm, sizeof(nm)), "GB/s",
			   GB_BETTER_HIGHER, -1, link->busbw_bps / 1e9, NAN);
}

static void sweep_json(const struct phase *ph, cJSON *o)
{
	cJSON *arr, *fit;

	if (!ph->n_sweep)
		return;
	arr = cJSON_AddArrayToObject(o, "allreduce_sweep");
	for (size_t i = 0; i < ph->n_sweep; i++) {
		cJSON *pt = cJSON_CreateObject();

		cJSON_AddNumberToObject(pt, "bytes", ph->sweep_bytes[i]);
		cJSON_AddNumberToObject(pt, "time_us", ph->sweep_s[i] * 1e6);
		cJSON_AddItemToArray(arr, pt);
	}
	if (!ph->fit_ok)
		return;
	fit = cJSON_AddObjectToObject(o, "allreduce_fit");
	cJSON_AddNumberToObject(fit, "alpha_us", ph->fit.alpha_s * 1e6);
	cJSON_AddNumberToObject(fit, "algbw_gbps", ph->fit.beta_bps / 1e9);
	cJSON_AddNumberToObject(fit, "r2", ph->fit.r2);
}

/* What a phase's check states and explains a gap with: storage for the words in t. */
struct phase_words {
	char link[96];
	char cause[160];
};

static void phase_facts(const struct sc *s, const struct phase *ph, struct gb_scaling_facts *f,
			struct phase_words *t)
{
	const struct gb_run *run = s->ctx->run;
	const struct gb_link_model *m =
		s->p->link >= 0 ? gb_link_model_by_name(gb_link_model_names[s->p->link]) : NULL;
	size_t n = (size_t)ph->n;
	int links;

	gb_scaling_facts_init(f);
	f->overlap = s->plan.overlap;
	f->p2p_access = gb_scaling_p2p_among(run, s->dev, n);
	f->transport = gb_scaling_transport(run, s->dev, n, t->cause, sizeof(t->cause));
	f->transport_cause = t->cause[0] ? t->cause : NULL;
	f->link_measured = s->p->link < 0;
	/* a measured price already went through whatever path the GPUs have */
	f->link_host_staged = f->link_measured || (m && !m->p2p);
	if (m) {
		/* the nominal link as given, with the NVLink count it was priced at */
		links = gb_scaling_nvlinks_among(run, s->dev, n);
		if (m->nvlink_gen > 0 && links > 0)
			snprintf(t->link, sizeof(t->link), "%s × %d", m->label, links);
		else
			snprintf(t->link, sizeof(t->link), "%s", m->label);
		f->link = t->link;
	} else if (f->link_measured) {
		f->link = gb_scaling_link_label(run, s->dev, n,
						f->transport && strcmp(f->transport, "P2P"),
						t->link, sizeof(t->link));
	}
}

/* ddp below its range: the GPU whose compute part is slowest, if one is, after the why */
static void name_compute_straggler(const struct sc *s, const struct phase *ph,
				   struct gb_scaling_judgement *j)
{
	char who[256];
	size_t used = strlen(j->message);

	if (gb_scaling_compute_straggler(s->dev, ph->worker_compute_s, (size_t)ph->n, who,
					 sizeof(who)) &&
	    used < sizeof(j->message))
		snprintf(j->message + used, sizeof(j->message) - used, "; %s", who);
}

/* N >= 2 distinct GPUs: the model's range, and a check placing the measured speedup in it. */
static void judge_phase(struct sc *s, const struct phase *ph, double t1, double measured,
			cJSON *o, struct gb_series *ser_lo, struct gb_series *ser_hi)
{
	struct gb_scaling_in in;
	struct gb_scaling_out out;
	struct gb_scaling_facts facts;
	struct gb_scaling_spread spread;
	struct gb_scaling_judgement j;
	struct gb_ar_link link;
	struct phase_words words;
	const char *source;
	char why[256], nm[64];
	bool compute_only = s->p->workload != GB_SCALING_WL_DDP;
	double lo, hi;
	cJSON *pred, *tr;

	per_n("scaling", ph->n, nm, sizeof(nm));
	if (!phase_link(s, ph, &link, &source, why, sizeof(why))) {
		gb_bench_add_check(s->res, nm, GB_STATUS_SKIPPED, GB_SEV_INFO, -1, measured, NAN, "%s",
				   why);
		return;
	}
	gb_scaling_model_in(ph->n, t1, &s->plan, gb_scaling_bucket_bytes(s->p), &link, &in);
	if (gb_scaling_predict(&in, &out)) {
		gb_bench_add_check(s->res, nm, GB_STATUS_SKIPPED, GB_SEV_INFO, -1, measured, NAN,
				   "the model cannot price this step (inputs out of range)");
		return;
	}
	add_model_metrics(s, ph->n, &out, &link);
	gb_series_push(ser_lo, ph->n, out.speedup_no_overlap);
	gb_series_push(ser_hi, ph->n, out.speedup_perfect);
	phase_facts(s, ph, &facts, &words);
	gb_scaling_spread_init(&spread);
	if (compute_only) {
		gb_scaling_spread_alone(&spread, s->solo_dev, s->solo_s, s->n_solo);
		gb_scaling_spread_together(&spread, s->dev, ph->worker_s, (size_t)ph->n);
	}
	gb_scaling_judge(&in, &out, measured, &facts, &spread, compute_only, &j);
	if (!compute_only && j.place == GB_PLACE_BELOW)
		name_compute_straggler(s, ph, &j);
	/* the threshold is the bottom of the accepted range */
	gb_bench_add_check(s->res, nm, j.status, j.severity, -1, measured,
			   compute_only ? GB_SCALING_COMPUTE_EFF_MIN * ph->n
					: out.speedup_no_overlap,
			   "%s", j.message);
	gb_scaling_expected(&out, &facts, &lo, &hi);
	if (compute_only) {
		lo = GB_SCALING_COMPUTE_EFF_MIN * ph->n;
		hi = ph->n;
	}
	pred = cJSON_AddObjectToObject(o, "predicted");
	cJSON_AddNumberToObject(pred, "no_overlap", out.speedup_no_overlap);
	cJSON_AddNumberToObject(pred, "no_overlap_max", out.speedup_no_overlap_max);
	cJSON_AddNumberToObject(pred, "perfect_overlap", out.speedup_perfect);
	cJSON_AddBoolToObject(pred, "overlap", facts.overlap);
	cJSON_AddNumberToObject(pred, "expected_low", lo);
	cJSON_AddNumberToObject(pred, "expected_high", hi);
	cJSON_AddNumberToObject(pred, "allreduce_ms", out.t_allreduce_s * 1e3);
	cJSON_AddNumberToObject(pred, "last_bucket_ms", out.t_last_bucket_s * 1e3);
	cJSON_AddNumberToObject(pred, "delta", in.delta);
	cJSON_AddStringToObject(pred, "link", source);
	if (facts.link)
		cJSON_AddStringToObject(pred, "link_label", facts.link);
	if (!compute_only) {
		tr = cJSON_AddObjectToObject(o, "transport");
		if (facts.transport)
			cJSON_AddStringToObject(tr, "likely", facts.transport);
		else
			cJSON_AddNullToObject(tr, "likely");
		if (facts.transport_cause)
			cJSON_AddStringToObject(tr, "cause", facts.transport_cause);
		cJSON_AddStringToObject(tr, "source", "the run's NCCL_* environment and topology");
	}
	cJSON_AddNumberToObject(pred, "alpha_us", link.alpha_s * 1e6);
	cJSON_AddNumberToObject(pred, "busbw_gbps", link.busbw_bps / 1e9);
	cJSON_AddStringToObject(o, "place", gb_scaling_place_name(j.place));
	cJSON_AddStringToObject(o, "explanation", j.message);
}

static cJSON *phase_json(const struct sc *s, const struct phase *ph, int gpus)
{
	cJSON *o = cJSON_CreateObject(), *devs = cJSON_AddArrayToObject(o, "devices"), *ws;

	cJSON_AddNumberToObject(o, "workers", ph->n);
	for (int i = 0; i < ph->n; i++)
		cJSON_AddItemToArray(devs, cJSON_CreateNumber(s->dev[i]));
	/* each worker's own median: the step time is the slowest's, this says whose */
	ws = cJSON_AddArrayToObject(o, "per_worker");
	for (int i = 0; i < ph->n; i++) {
		cJSON *w = cJSON_CreateObject();

		cJSON_AddNumberToObject(w, "device", s->dev[i]);
		if (isfinite(ph->worker_s[i]))
			cJSON_AddNumberToObject(w, "step_ms_median", ph->worker_s[i] * 1e3);
		else
			cJSON_AddNullToObject(w, "step_ms_median");
		if (isfinite(ph->worker_compute_s[i]))
			cJSON_AddNumberToObject(w, "compute_ms_median",
						ph->worker_compute_s[i] * 1e3);
		else
			cJSON_AddNullToObject(w, "compute_ms_median");
		cJSON_AddItemToArray(ws, w);
	}
	cJSON_AddNumberToObject(o, "gpus", gpus);
	cJSON_AddBoolToObject(o, "contention", gpus < ph->n);
	cJSON_AddStringToObject(o, "allreduce", ar_mode_names[ph->mode]);
	cJSON_AddNumberToObject(o, "steps", (double)ph->n_steps);
	if (ph->n_steps)
		cJSON_AddNumberToObject(o, "step_ms_median",
					gb_percentile(ph->step_s, ph->n_steps, 50) * 1e3);
	sweep_json(ph, o);
	return o;
}

/*
 * Each worker's median compute per step, as a metric of its GPU: a slow GPU
 * lowers speedup_nN, a metric of all of them, and this says which one it is
 * (compare names the GPU). Only where every worker has a GPU of its own.
 */
static void add_worker_metrics(struct sc *s, const struct phase *ph, int gpus)
{
	char nm[64];

	if (gpus < ph->n)
		return;
	for (int i = 0; i < ph->n; i++)
		gb_bench_add_value(s->res, per_n("worker_compute_ms", ph->n, nm, sizeof(nm)), "ms",
				   GB_BETTER_LOWER, s->dev[i], ph->worker_compute_s[i] * 1e3, NAN)
			->description = gb_strdup("median compute part of this worker's step");
}

static void report_phase(struct sc *s, const struct phase *ph, double t1, double work,
			 struct gb_series *ser[3], cJSON *phases)
{
	int gpus = (int)gb_scaling_distinct(s->dev, (size_t)ph->n);
	double measured = add_step_metrics(s, ph, t1, work, gpus);
	cJSON *o = phase_json(s, ph, gpus);
	struct gb_scaling_judgement j;
	char devs[256], nm[64];

	add_worker_metrics(s, ph, gpus);
	cJSON_AddItemToArray(phases, o);
	if (isnan(measured))
		return;
	cJSON_AddNumberToObject(o, "speedup_median", measured);
	cJSON_AddNumberToObject(o, "efficiency_median", measured / ph->n);
	gb_series_push(ser[0], ph->n, measured);
	if (ph->n < 2)
		return;
	if (gpus < ph->n) {
		gb_scaling_devices_str(s->dev, (size_t)ph->n, devs, sizeof(devs));
		gb_scaling_judge_contention(ph->n, gpus, devs, measured, ph->mode == AR_COPY,
					    s->ph[0].mode == AR_COPY, &j);
		gb_bench_add_check(s->res, per_n("contention", ph->n, nm, sizeof(nm)),
				   j.status, j.severity, -1, measured, NAN, "%s", j.message);
		cJSON_AddStringToObject(o, "explanation", j.message);
		return;
	}
	judge_phase(s, ph, t1, measured, o, ser[1], ser[2]);
}

/* gemm: every distinct GPU's median step alone. */
static void report_solos(struct sc *s)
{
	cJSON *arr;

	if (!s->n_solo)
		return;
	arr = cJSON_AddArrayToObject(gb_bench_extra(s->res), "alone");
	for (size_t i = 0; i < s->n_solo; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "device", s->solo_dev[i]);
		if (isfinite(s->solo_s[i]))
			cJSON_AddNumberToObject(o, "step_ms_median", s->solo_s[i] * 1e3);
		else
			cJSON_AddNullToObject(o, "step_ms_median");
		cJSON_AddItemToArray(arr, o);
	}
}

static void report(struct sc *s)
{
	const struct phase *one = &s->ph[0];
	double work = (double)s->plan.gemms * gb_scaling_gemm_flop(s->n), t1;
	struct gb_series *ser[3];
	cJSON *phases;

	if (!s->n_phases || !one->n_steps)
		return;
	t1 = gb_percentile(one->step_s, one->n_steps, 50);
	ser[0] = gb_bench_add_series(s->res, "speedup", "workers", "x", -1);
	ser[1] = gb_bench_add_series(s->res, "predicted_no_overlap", "workers", "x", -1);
	ser[2] = gb_bench_add_series(s->res, "predicted_perfect_overlap", "workers", "x", -1);
	phases = cJSON_AddArrayToObject(gb_bench_extra(s->res), "phases");
	for (size_t i = 0; i < s->n_phases; i++)
		if (s->ph[i].n_steps)
			report_phase(s, &s->ph[i], t1, work, ser, phases);
	report_solos(s);
}

/* ---- parameters ---- */

static void record_params(const struct sc *s)
{
	const struct gb_scaling_params *p = s->p;
	struct gb_bench_result *res = s->res;
	char devs[256];

	gb_bench_param_str(res, "workload", gb_scaling_workload_names[p->workload]);
	gb_scaling_devices_str(s->dev, s->n_workers, devs, sizeof(devs));
	gb_bench_param_str(res, "workers", devs);
	gb_bench_param_bool(res, "contention", s->any_repeat);
	gb_bench_param_num(res, "steps", (double)p->steps);
	gb_bench_param_num(res, "warmup_steps", (double)p->warmup_steps);
	gb_bench_param_str(res, "step_source", gb_scaling_step_by_work(p) ? "step_tflop" : "step_ms");
	if (gb_scaling_step_by_work(p))
		gb_bench_param_num(res, "step_tflop", p->step_tflop);
	else
		gb_bench_param_num(res, "step_ms", gb_scaling_target_step_ms(p));
	gb_bench_param_str(res, "precision", s->bf16 ? "bf16" : "fp32");
	if (s->note[0])
		gb_bench_param_str(res, "precision_note", s->note);
	gb_bench_param_num(res, "gemm_size", (double)s->n);
	/* gemm times every distinct GPU alone before they run together (extra.alone) */
	gb_bench_param_bool(res, "each_gpu_alone", p->workload == GB_SCALING_WL_GEMM);
	if (p->workload == GB_SCALING_WL_DDP) {
		gb_bench_param_num(res, "grad_bytes", (double)s->plan.grad_bytes);
		gb_bench_param_num(res, "bucket_bytes", (double)gb_scaling_bucket_bytes(p));
		gb_bench_param_num(res, "n_buckets", s->plan.n_buckets);
		gb_bench_param_bool(res, "overlap", p->overlap);
		gb_bench_param_str(res, "link", p->link >= 0 ? gb_link_model_names[p->link]
							    : "measured");
		gb_bench_param_str(res, "allreduce", "fp32 sum, in place, one call per bucket");
		gb_bench_param_num(res, "delta", GB_SCALING_DELTA_DEFAULT);
	}
	gb_bench_param_str(res, "timing",
			   "CUDA events around each step on every worker; the step time is the "
			   "slowest worker's; workers start each step together (a barrier)");
}

/*
 * What calibration measured, in extra.sizing: not params, which are what
 * the user configured and the key compare matches runs by (a GEMM count of
 * 808 against 807 would make every metric of the two runs a different test).
 */
static void record_sizing(const struct sc *s)
{
	cJSON *o = cJSON_AddObjectToObject(gb_bench_extra(s->res), "sizing");

	cJSON_AddNumberToObject(o, "gemm_ms", s->t_gemm_s * 1e3);
	cJSON_AddNumberToObject(o, "gemms_per_step", (double)s->plan.gemms);
	cJSON_AddNumberToObject(o, "work_tflop_per_step",
				(double)s->plan.gemms * gb_scaling_gemm_flop(s->n) / 1e12);
}

/* ---- the benchmark ---- */

/* The worker list: --devices of this command (repeats allowed), else the run's devices. */
static int resolve_workers(struct sc *s)
{
	const struct gb_device_list *l = &s->p->workers;
	bool own = !l->all && l->n > 0;
	const int *src = own ? l->idx : s->ctx->devices;
	size_t n = own ? l->n : s->ctx->n_devices;

	if (!n) {
		gb_bench_set_status(s->res, GB_STATUS_ERROR, "no GPU selected");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		/* cmd/ resolves the common --devices; this list it may not know about */
		if (!gb_run_find_device(s->ctx->run, src[i])) {
			gb_bench_set_status(s->res, GB_STATUS_ERROR,
					    "device index %d is beyond the last GPU (found %zu)",
					    src[i], s->ctx->run->n_devices);
			return -1;
		}
		s->dev[i] = src[i];
	}
	s->n_workers = n;
	s->any_repeat = gb_scaling_has_repeat(s->dev, n);
	if (own) {
		/* cmd/ listed the common --devices (all); the result names the GPUs really used */
		s->res->n_devices = 0;
		for (size_t i = 0; i < n; i++)
			gb_bench_add_device(s->res, s->dev[i]);
	}
	return 0;
}

/* bf16 when every GPU has it (compute capability 8.0), else fp32 everywhere: the same work. */
static void choose_precision(struct sc *s)
{
	s->bf16 = true;
	for (size_t i = 0; i < s->n_workers; i++) {
		const struct gb_device_info *d = gb_run_find_device(s->ctx->run, s->dev[i]);

		if (d && d->cc_major >= 0 && d->cc_major < 8 && s->bf16) {
			s->bf16 = false;
			snprintf(s->note, sizeof(s->note),
				 "bf16 needs compute capability 8.0 (GPU %d is %d.%d): fp32 GEMMs "
				 "instead", s->dev[i], d->cc_major, d->cc_minor);
		}
	}
	s->n = s->p->gemm_size > 0 ? (uint64_t)s->p->gemm_size
				   : s->bf16 ? GB_SCALING_GEMM_SIZE_BF16
					     : GB_SCALING_GEMM_SIZE_FP32;
}

/* Whether some phase all-reduces through NCCL: one that repeats a GPU copies instead. */
static bool needs_nccl(const struct sc *s)
{
	for (size_t i = 0; i < s->n_workers; i++)
		if (mode_for(s, (int)i + 1) == AR_NCCL)
			return true;
	return false;
}

static int load_libraries(struct sc *s)
{
	char err[512], ver[32];

	if (gb_cublaslt_load(err, sizeof(err))) {
		gb_bench_set_status(s->res, GB_STATUS_ERROR, "%s", err);
		return -1;
	}
	s->lt = gb_cublaslt();
	snprintf(ver, sizeof(ver), "%zu.%zu.%zu", s->lt->version / 10000,
		 s->lt->version / 100 % 100, s->lt->version % 100);
	gb_bench_param_str(s->res, "cublaslt_version", ver);
	if (!needs_nccl(s))
		return 0;
#if GPUBENCH_HAVE_NCCL
	if (gb_nccl_dl_load(NULL, err, sizeof(err))) {
		gb_bench_set_status(s->res, GB_STATUS_ERROR,
				    "ddp needs NCCL: %s (--workload gemm needs no NCCL)", err);
		return -1;
	}
	gb_bench_param_num(s->res, "nccl_version", gb_nccl.version);
	return 0;
#else
	gb_bench_set_status(s->res, GB_STATUS_ERROR,
			    "ddp needs NCCL, and gpubench was built without NCCL "
			    "(--workload gemm needs no NCCL)");
	return -1;
#endif
}

/* The plan before sizing (its slices and buckets; the GEMM count follows calibration). */
static int plan_setup(struct sc *s)
{
	const struct gb_scaling_params *p = s->p;
	uint64_t grad = p->workload == GB_SCALING_WL_DDP ? gb_scaling_grad_bytes(p) : 0;
	uint64_t sizes[GB_SCALING_SWEEP_MAX];
	size_t n;

	if (gb_scaling_plan_make(grad, gb_scaling_bucket_bytes(p), 1, p->overlap, &s->plan)) {
		gb_bench_set_status(s->res, GB_STATUS_ERROR, "internal: cannot plan the step");
		return -1;
	}
	/* the sweep all-reduces the gradient buffer in place: big enough for its largest size */
	n = gb_scaling_sweep_sizes(gb_scaling_bucket_max_bytes(&s->plan), sizes,
				   GB_SCALING_SWEEP_MAX);
	s->grad_alloc = s->plan.grad_bytes;
	if (grad && n && sizes[n - 1] > s->grad_alloc)
		s->grad_alloc = sizes[n - 1];
	s->timeout_s = SC_TIMEOUT_S;
	return 0;
}

static int setup_all(struct sc *s)
{
	s->w = calloc(s->n_workers, sizeof(*s->w));
	s->ph = calloc(s->n_workers, sizeof(*s->ph));
	if (!s->w || !s->ph) {
		gb_bench_set_status(s->res, GB_STATUS_ERROR, "out of host memory");
		return -1;
	}
	for (size_t i = 0; i < s->n_workers; i++) {
		s->w[i].slot = (int)i;
		s->w[i].dev = s->dev[i];
		s->w[i].s = s;
	}
	for (size_t i = 0; i < s->n_workers; i++)
		if (worker_setup(s, &s->w[i]))
			return -1;
	return 0;
}

static void teardown_all(struct sc *s)
{
	for (size_t i = 0; s->w && i < s->n_workers; i++)
		worker_teardown(s, &s->w[i]);
	for (size_t i = 0; s->ph && i < s->n_workers; i++)
		free(s->ph[i].step_s);
	free(s->ph);
	free(s->w);
}

static void final_status(struct sc *s)
{
	size_t gpus = gb_scaling_distinct(s->dev, s->n_workers);

	if (s->res->status != GB_STATUS_PASSED || gpus >= 2 || !s->n_phases)
		return;
	gb_bench_set_status(s->res, GB_STATUS_PASSED, "%s%s", GB_SCALING_ONE_GPU_REASON,
			    s->any_repeat ? "; the repeated GPU shows contention, not scaling" : "");
}

static struct gb_sampler *start_sampler(struct sc *s)
{
	int distinct[GB_DEVICE_LIST_MAX];
	size_t n = 0;

	for (size_t i = 0; i < s->n_workers; i++) {
		bool seen = false;

		for (size_t j = 0; j < n; j++)
			seen |= distinct[j] == s->dev[i];
		if (!seen)
			distinct[n++] = s->dev[i];
	}
	return gb_sampler_start(s->ctx, distinct, n, SC_TELEMETRY_INTERVAL_S, NULL);
}

static int scaling_run(struct gb_ctx *ctx, const void *params, struct gb_bench_result *res)
{
	struct sc s;
	struct gb_sampler *sampler = NULL;
	int rc = -1;

	memset(&s, 0, sizeof(s));
	s.ctx = ctx;
	s.p = params;
	s.res = res;
	if (resolve_workers(&s))
		return -1;
	choose_precision(&s);
	if (plan_setup(&s))
		return -1;
	record_params(&s);
	if (load_libraries(&s))
		return -1;
	gate_init(&s.gate, ctx->stop);
	if (setup_all(&s))
		goto out;
	sampler = start_sampler(&s);
	gb_bench_param_bool(res, "telemetry", sampler != NULL);
	if (size_step(&s))
		goto out;
	record_sizing(&s);
	rc = run_phases(&s);
out:
	gb_sampler_stop(sampler);
	report(&s);
	teardown_all(&s);
	gate_destroy(&s.gate);
	final_status(&s);
	return rc ? -1 : 0;
}

const struct gb_bench gb_bench_scaling = {
	.name = "scaling",
	.summary = "speedup of 1..N GPUs (GEMMs, or a synthetic DDP step) vs the data-parallel model",
	.usage = "gpubench scaling [--workload gemm|ddp] [--devices 0,1 | 0,0] [--steps N] "
		 "[--step-ms MS | --step-tflop TFLOP] [--grad-bytes SIZE] [--bucket SIZE] "
		 "[--overlap] [--link NAME] [options]",
	.opts = gb_scaling_opts,
	.params_size = sizeof(struct gb_scaling_params),
	.set_defaults = gb_scaling_set_defaults,
	.validate = gb_scaling_validate,
	.run = scaling_run,
	.flags = GB_BENCH_NEEDS_GPU,
};
