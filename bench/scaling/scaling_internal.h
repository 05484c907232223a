/* SPDX-License-Identifier: MIT */
/*
 * scaling_internal.h - private to the files of `gpubench scaling`
 * (bench/scaling*.c, not scaling_math.c): the constants of a run, its state
 * (the workers, the phases, the gate that keeps the workers in lockstep) and
 * the functions one of those files calls in another. bench/scaling/scaling.c says
 * how a run goes; no other file includes this one.
 */
#ifndef GPUBENCH_BENCH_SCALING_INTERNAL_H
#define GPUBENCH_BENCH_SCALING_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/device/cublaslt_dl.h"
#include "bench/device/dtype_math.h"
#include "bench/device/gpu.h"
#include "bench/scaling/scaling_math.h"
#include "report/scaling.h"

#if GPUBENCH_HAVE_NCCL
#include "bench/device/nccl_comm.h"
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

/* A CUDA call on a worker's thread: on failure, w->err says which and the caller returns -1. */
#define W_CUDA(w, call)                                     \
	do {                                                     \
		cudaError_t w_e_ = (call);                       \
		if (w_e_ != cudaSuccess)                         \
			return sc_cuda_werr((w), w_e_, #call);   \
	} while (0)

/* ---- the workers (scaling_workers.c): the gate, their errors, waits and step loop ---- */

void sc_gate_init(struct gate *g, volatile sig_atomic_t *stop_flag);
void sc_gate_arm(struct gate *g, size_t n);
void sc_gate_destroy(struct gate *g);
bool sc_gate_failed(struct gate *g);
void sc_nap(void);
int sc_werr(struct worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sc_cuda_werr(struct worker *w, cudaError_t e, const char *what);
int sc_fail_from(struct sc *s, const struct worker *w);
void sc_workers_fail(struct worker *w);
int sc_worker_wait(struct worker *w, cudaEvent_t ev, const char *what);
int sc_gemms(struct worker *w, uint64_t count);
void *sc_worker_main(void *arg);

/* ---- the all-reduce (scaling_allreduce.c): NCCL communicators, a step's buckets ---- */

int sc_comm_check(struct worker *w, const char *what);
void sc_hurry_nccl(struct sc *s);
int sc_comms_init(struct sc *s, int n);
void sc_comms_destroy(struct sc *s, bool clean);
int sc_group_allreduce(struct sc *s, int n, uint64_t count);
int sc_reduce_after(struct worker *w, cudaEvent_t ev, int from, int to);

/* ---- set-up and tear-down (scaling_setup.c) ---- */

int sc_resolve_workers(struct sc *s);
void sc_choose_precision(struct sc *s);
int sc_load_libraries(struct sc *s);
int sc_plan_setup(struct sc *s);
int sc_setup_all(struct sc *s);
void sc_teardown_all(struct sc *s);

/* ---- sizing and phases (scaling_measure.c) ---- */

int sc_size_step(struct sc *s);
enum ar_mode sc_mode_for(const struct sc *s, int n);
int sc_run_phases(struct sc *s);

/* ---- reporting (scaling_report.c) ---- */

void sc_report(struct sc *s);
void sc_record_params(const struct sc *s);
void sc_record_sizing(const struct sc *s);

#endif
