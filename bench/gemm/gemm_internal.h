/* SPDX-License-Identifier: MIT */
/*
 * gemm_internal.h - what the gemm benchmark's files share and nothing
 * else uses: its constants, the --impl enum, the parameters, the per
 * device, per job and per run state, and the functions one of its files
 * calls in another. bench/gemm/gemm.c opens with the method; the files:
 *   gemm.c         options, validation, the per-device loop, the entry
 *   gemm_job.c     one job: buffers, launches, candidate selection,
 *                  warm-up and the timed phases
 *   gemm_verify.c  the FP64-referenced check of a job's output
 *   gemm_report.c  metrics, checks and extra.runs of a finished job
 *   gemm_shape.c   normal mode: a shape with cuBLASLt then own kernels
 *   gemm_search.c  --search over a grid of shapes
 * Private to bench/gemm*.c: no other file includes it.
 */
#ifndef GPUBENCH_BENCH_GEMM_INTERNAL_H
#define GPUBENCH_BENCH_GEMM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/device/cublaslt_dl.h"
#include "bench/gemm/gemm_math.h"
#include "bench/device/lt_matmul.h"
#include "kernels/own_gemm_math.h"
#include "bench/device/telemetry.h"

/* PyTorch and the cuBLAS docs: 32 MiB lets Hopper's split-K/stream-K kernels run */
#define GEMM_WORKSPACE_BYTES (32u << 20)
/* heuristic candidates timed per job (NVIDIA's LtSgemmSimpleAutoTuning uses 8) */
#define GEMM_CANDIDATES 8
/* time spent timing candidates, at most (a slow FP64 GEMM then keeps the top one) */
#define GEMM_SELECT_BUDGET_S 1.0
/* each candidate: 3 batches of about 10 ms, median */
#define GEMM_SELECT_REPS 3
#define GEMM_SELECT_BATCH_S 0.01
/* batches of the warm-up before selection: long enough to keep the GPU busy */
#define GEMM_PRESELECT_BATCH_S 0.05
#define GEMM_SETTLE_TOL 0.02
#define GEMM_MAX_WINDOWS 4096
#define GEMM_TELEMETRY_INTERVAL_S 0.1
#define GEMM_DEFAULT_DURATION_S 2.0
#define GEMM_SEARCH_DURATION_S 0.25
#define GEMM_SEARCH_WARMUP_S 0.25

/* cuBLASLt, then gpubench's own kernels in enum gb_own_gemm order */
enum gemm_impl {
	GEMM_IMPL_CUBLASLT = 0,
	GEMM_IMPL_TILED,
	GEMM_IMPL_SGEMM,
	GEMM_IMPL_MMA,
	GEMM_IMPL_WGMMA,
	GEMM_N_IMPLS
};
/*
 * --impl's choices: one name per enum gemm_impl, then "cublas", the
 * spelling issue 3 uses, as an alias of cublaslt (impl_mask folds it; the
 * report always says cublaslt).
 */
#define GEMM_IMPL_ALIAS_CUBLAS GEMM_N_IMPLS
#define GEMM_OWN_IMPLS (((1u << GEMM_N_IMPLS) - 1) & ~(1u << GEMM_IMPL_CUBLASLT))

struct gemm_params {
	uint32_t precisions;     /* bitmask over gb_gemm_prec_choices; 0: auto */
	int64_t size;
	struct gb_int_list m, n, k;
	int64_t iters;           /* GEMMs per sample; 0: from --duration */
	double duration_s;       /* < 0: auto (2 s, or 0.25 s per shape with --search) */
	double warmup_s;
	int64_t samples;
	int64_t repeat;          /* timed phases per job, for the run-to-run spread */
	bool search;
	bool verify;
	uint32_t impls;
	int64_t seed;
	bool inject_fault;       /* test hook: corrupt one output before verification */
	double peer_tol;         /* --peer-tolerance: a GPU this far below its model's best fails */
};

/* ---- per device and per job state ---- */

struct gemm_dev {
	int dev;                         /* CUDA index */
	size_t slot;                     /* position in ctx->devices (telemetry) */
	const struct gb_device_info *info;
	cudaStream_t stream;
	cudaEvent_t ev0, ev1;
	cublasLtHandle_t lt;
	void *workspace;
	struct gb_own_gemm_device own;   /* the limits own kernels' launch shapes depend on */
};

struct verify_outcome {
	bool done;
	enum gb_status status;
	size_t n_samples;
	double max_err, bound;
	char msg[512];
};

struct gemm_job {
	enum gemm_impl impl;
	enum gb_precision prec;
	struct gb_gemm_shape s;
	enum gb_dtype t_ab, t_d;
	double flops;                    /* per GEMM */
	/* buffers: copies of A and of B in two slabs, one D */
	uint64_t copies;
	uint64_t copies_wanted;          /* for >= 2x L2; more than copies when memory is short */
	size_t a_bytes, b_bytes, d_bytes, a_stride, b_stride;
	void *a, *b, *d;
	float *scale;                    /* FP8 A/B scale, 1.0f on the device */
	/* cuBLASLt: descriptors, types, alpha and beta (bench/device/lt_matmul.h) */
	struct gb_lt_matmul mm;
	cublasLtMatmulHeuristicResult_t cand[GEMM_CANDIDATES];
	double cand_s[GEMM_CANDIDATES];  /* per-GEMM time, INFINITY when it failed */
	int n_cand, n_timed, best;
	uint64_t next;                   /* rotation counter */
	cudaError_t launch_err;          /* own kernels: why the last launch failed */
	struct gb_own_gemm_launch plan;  /* own kernels: the launch shape, for the report */
	/* results */
	double t_gemm_s;
	double preselect_s;              /* warm-up before the candidates were timed */
	double warmup_done_s;
	size_t warmup_windows;
	bool settled;
	uint64_t batch;
	double *tflops;                  /* every sample of every run, run after run */
	size_t n_tflops;
	size_t n_runs, per_run;          /* --repeat: complete runs, samples in each */
	struct gb_telemetry_summary tel;
	struct verify_outcome ver;
	bool measured;
};

/* what a job may do; set by the caller (normal run or --search) */
struct job_mode {
	int max_candidates;
	double warmup_s;
	double duration_s;
	int64_t repeat;                  /* timed phases, back to back */
};

struct gemm_state {
	const struct gb_cublaslt *lt;
	struct gb_sampler *sampler;
	volatile double *hint;           /* per ctx->devices slot: TFLOPS of the last sample */
	size_t ran;                      /* jobs that produced a metric */
	char skipped[256];               /* first reason something was skipped */
	cJSON *runs;                     /* extra.runs */
};

/* --impl's names, one per enum gemm_impl then the alias (bench/gemm/gemm.c) */
extern const char *const impl_names[GEMM_N_IMPLS + 2];

/* bench/gemm/gemm.c */
enum gb_own_gemm own_kind(enum gemm_impl i);

/* bench/gemm/gemm_job.c */
void shape_str(char *buf, size_t len, const struct gb_gemm_shape *s);
void job_label(char *buf, size_t len, const struct gemm_job *j);
int dev_alloc(struct gb_bench_result *res, const struct gemm_dev *g,
	      const struct gemm_job *j, void **p, size_t bytes, const char *what);
void job_teardown(struct gemm_job *j);
int job_setup(const struct gemm_params *p, struct gb_bench_result *res,
	      const struct gb_cublaslt *lt, struct gemm_dev *g, struct gemm_job *j);
cublasStatus_t gemm_once(const struct gemm_dev *g, struct gemm_job *j, int cand,
			 uint64_t copy);
void launch_failed(struct gb_bench_result *res, const struct gemm_job *j,
		   cublasStatus_t st);
int run_phases(struct gb_ctx *ctx, const struct gemm_params *p,
	       struct gb_bench_result *res, struct gemm_state *st, struct gemm_dev *g,
	       struct gemm_job *j, const struct job_mode *mode);
int run_job(struct gb_ctx *ctx, const struct gemm_params *p, struct gb_bench_result *res,
	    struct gemm_state *st, struct gemm_dev *g, struct gemm_job *j,
	    const struct job_mode *mode);
void job_release(struct gemm_job *j);

/* bench/gemm/gemm_verify.c */
bool chosen_algo_config(const struct gb_cublaslt *lt, const struct gemm_job *j,
			struct gb_lt_algo_config *c);
int job_verify(const struct gemm_params *p, struct gb_bench_result *res,
	       const struct gemm_dev *g, struct gemm_job *j);

/* bench/gemm/gemm_report.c */
void algo_str(char *buf, size_t len, const struct gb_cublaslt *lt,
	      const struct gemm_job *j);
cJSON *job_json(const struct gb_cublaslt *lt, const struct gemm_dev *g,
		const struct gemm_job *j);
void name_suffix(char *buf, size_t len, const struct gemm_job *j, bool several);
double judged_peak(const struct gb_device_info *d, enum gb_precision pp);
void report_job(struct gb_bench_result *res, const struct gemm_dev *g,
		const struct gemm_job *j, bool several, const struct gemm_job *cublas,
		const char *algo);
void repeat_str(char *buf, size_t len, const struct gemm_job *j);
void report_repeat(struct gb_bench_result *res, const struct gemm_dev *g,
		   const struct gemm_job *j, bool several);
void report_verify(const struct gemm_params *p, struct gb_bench_result *res,
		   const struct gemm_dev *g, const struct gemm_job *j, bool several);
void record_error(struct gb_bench_result *res, enum gb_status before, char *before_reason,
		  int dev, const char *name);
void job_failed(struct gb_bench_result *res, enum gb_status before, char *before_reason,
		const struct gemm_dev *g, const struct gemm_job *j);
bool device_lost(struct gb_bench_result *res, const struct gemm_dev *g);

/* bench/gemm/gemm_shape.c */
void note_skip(struct gemm_state *st, struct gb_bench_result *res, int dev,
	       enum gb_precision prec, const char *suffix, const char *reason);
void note_impl_skip(struct gemm_state *st, struct gb_bench_result *res, int dev,
		    enum gemm_impl impl, enum gb_precision prec, const char *suffix,
		    const char *reason);
int run_shape(struct gb_ctx *ctx, const struct gemm_params *p, struct gb_bench_result *res,
	      struct gemm_state *st, struct gemm_dev *g, enum gb_precision prec,
	      const struct gb_gemm_shape *s, bool several, uint32_t own_impls);

/* bench/gemm/gemm_search.c */
int run_search(struct gb_ctx *ctx, const struct gemm_params *p, struct gb_bench_result *res,
	       struct gemm_state *st, struct gemm_dev *g, enum gb_precision prec,
	       const struct gb_gemm_shape *shapes, size_t n_shapes, bool several_devices);

#endif /* GPUBENCH_BENCH_GEMM_INTERNAL_H */
