/* SPDX-License-Identifier: MIT */
/*
 * gemm.c - matrix-multiply throughput per precision with cuBLASLt, against
 * the GPU's spec-sheet, max-clock and observed-clock peaks, with every
 * result verified on the device. docs/gemm.md describes the method.
 *
 * For each device, precision and shape (a "job"):
 *   setup    random inputs from the seed, rotated among enough copies that
 *            they exceed 2x L2; cuBLASLt descriptors in the TN layout
 *   select   the heuristic's top candidates (32 MiB workspace), timed
 *            briefly after up to 1 s of the first one (clocks settle
 *            first); the fastest is kept and named in the report (algorithm,
 *            tile, stages, split-K)
 *   warm-up  windows of back-to-back GEMMs until three agree within 2% or
 *            --warmup has passed
 *   measure  --samples CUDA-event-timed batches of back-to-back GEMMs,
 *            --repeat times (the CV of their medians: run-to-run spread)
 *   verify   a separate pass: poison D, one GEMM, FP64 reference on a
 *            sample of outputs, compared on the device against a bound
 *   teardown in reverse order
 * --search runs each shape of a grid with the heuristic's first pick
 * (MAMF-style), then re-runs the best three as above.
 * cuBLASLt is loaded with dlopen (bench/cublaslt_dl.c): when it is missing
 * the benchmark is an ERROR, the binary still starts and reports.
 *
 * --impl adds gpubench's own kernels (kernels/own_gemm.h, docs/kernels.md):
 * each runs on the job's buffers right after cuBLASLt (which always runs:
 * it is the yardstick), with the same warm-up, timing and verification
 * passes, and is reported as tflops_<p>_<impl> and pct_of_cublas_<p>_<impl>.
 * A kernel that does not apply to a precision, device or shape is a
 * SKIPPED check saying why.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/cublaslt_dl.h"
#include "bench/gemm_math.h"
#include "bench/peer_math.h"
#include "bench/gpu.h"
#include "bench/lost_math.h"
#include "bench/lt_matmul.h"
#include "bench/nvml.h"
#include "bench/own_gemm_math.h"
#include "bench/telemetry.h"
#include "kernels/kernels.h"
#include "report/theory.h"

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

/* ---- options ---- */

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
static const char *const impl_names[GEMM_N_IMPLS + 2] = { "cublaslt", "tiled", "sgemm", "mma",
							  "wgmma", "cublas", NULL };
_Static_assert(GEMM_N_IMPLS == GB_OWN_COUNT + 1, "one --impl name per own kernel");
#define GEMM_OWN_IMPLS (((1u << GEMM_N_IMPLS) - 1) & ~(1u << GEMM_IMPL_CUBLASLT))

static enum gb_own_gemm own_kind(enum gemm_impl i)
{
	return (enum gb_own_gemm)(i - GEMM_IMPL_TILED);
}

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

static const struct gb_opt gemm_opts[] = {
	{ GB_OPT_ENUM_LIST, 0, "precision", offsetof(struct gemm_params, precisions), "LIST",
	  "precisions to measure (default: every one the GPU supports except fp16acc16; all "
	  "skips per shape what a shape does not fit)", 0, 0, gb_gemm_prec_choices,
	  GB_OPTF_MARK_ALL },
	{ GB_OPT_COUNT, 0, "size", offsetof(struct gemm_params, size), "N",
	  "square problem m = n = k = N (default 8192)", 1, GB_GEMM_MAX_DIM, NULL, 0 },
	{ GB_OPT_INT_LIST, 0, "m", offsetof(struct gemm_params, m), "LIST",
	  "rows of D: 4096 or 1024,8192 or 1K:16K:x2 (overrides --size)", 1, GB_GEMM_MAX_DIM,
	  NULL, 0 },
	{ GB_OPT_INT_LIST, 0, "n", offsetof(struct gemm_params, n), "LIST",
	  "columns of D (overrides --size)", 1, GB_GEMM_MAX_DIM, NULL, 0 },
	{ GB_OPT_INT_LIST, 0, "k", offsetof(struct gemm_params, k), "LIST",
	  "inner dimension (overrides --size); shapes are the product of --m, --n, --k", 1,
	  GB_GEMM_MAX_DIM, NULL, 0 },
	{ GB_OPT_COUNT, 0, "iters", offsetof(struct gemm_params, iters), "N",
	  "GEMMs per timed sample (default 0: as many as --duration allows)", 0, 1e9, NULL, 0 },
	{ GB_OPT_DURATION, 0, "duration", offsetof(struct gemm_params, duration_s), "TIME",
	  "timed phase per shape (default 2s; 250ms per shape with --search)", 0.001, 3600, NULL,
	  0 },
	{ GB_OPT_DURATION, 0, "warmup", offsetof(struct gemm_params, warmup_s), "TIME",
	  "longest warm-up; it ends earlier once 3 windows agree within 2% (default 3s)", 0, 3600,
	  NULL, 0 },
	{ GB_OPT_COUNT, 0, "samples", offsetof(struct gemm_params, samples), "N",
	  "timed samples (CUDA-event-timed batches) per shape (default 10)", 5, 100000, NULL, 0 },
	{ GB_OPT_COUNT, 0, "repeat", offsetof(struct gemm_params, repeat), "N",
	  "timed phases per shape, back to back; N >= 2 reports the CV of their medians, N >= 5 "
	  "checks it against 1% (default 1)", 1, 1000, NULL, 0 },
	{ GB_OPT_BOOL, 0, "search", offsetof(struct gemm_params, search), NULL,
	  "sweep a shape grid (or --m/--n/--k) for one precision (default bf16), report the best; "
	  "then re-run the best 3 with every candidate timed", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "verify", offsetof(struct gemm_params, verify), NULL,
	  "check results against an FP64 reference (default on; --no-verify skips)", 0, 0, NULL,
	  0 },
	{ GB_OPT_ENUM_LIST, 0, "impl", offsetof(struct gemm_params, impls), "LIST",
	  "GEMM implementations: cublaslt (or its alias cublas), or gpubench's own kernels tiled "
	  "and sgemm (fp32), mma and wgmma (fp16, bf16), each reported against cuBLASLt run "
	  "alongside (default cublaslt)", 0, 0, impl_names, 0 },
	{ GB_OPT_COUNT, 0, "seed", offsetof(struct gemm_params, seed), "N",
	  "seed of the random inputs (default 1)", 0, 0, NULL, 0 },
	{ GB_OPT_PERCENT, 0, "peer-tolerance", offsetof(struct gemm_params, peer_tol), "PCT",
	  "fail a GPU more than this below the best GPU of its model (default 10%)", 0, 1, NULL,
	  0 },
	{ GB_OPT_BOOL, 0, "inject-fault", offsetof(struct gemm_params, inject_fault), NULL,
	  "flip a high bit of one output before verification (tests)", 0, 0, NULL,
	  GB_OPTF_HIDDEN },
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};

static void gemm_set_defaults(void *pv)
{
	struct gemm_params *p = pv;

	memset(p, 0, sizeof(*p));
	p->size = 8192;
	p->duration_s = -1;
	p->warmup_s = 3.0;
	p->samples = 10;
	p->repeat = 1;
	p->verify = true;
	p->impls = 1u << GEMM_IMPL_CUBLASLT;
	p->seed = 1;
	p->peer_tol = GB_PEER_TOLERANCE_DEFAULT;
}

/* --precision's precisions, a mask over gb_gemm_precs (0: the default set) */
static uint32_t prec_mask(const struct gemm_params *p)
{
	return p->precisions & ~GB_ENUM_LIST_ALL;
}

/*
 * --precision all names no precision in particular: like the default set, it
 * skips per shape the precisions a shape does not fit, where an explicit
 * list is a usage error.
 */
static bool prec_all(const struct gemm_params *p)
{
	return (p->precisions & GB_ENUM_LIST_ALL) != 0;
}

/* --impl as a mask over enum gemm_impl, the alias folded into cublaslt */
static uint32_t impl_mask(const struct gemm_params *p)
{
	uint32_t m = p->impls & ((1u << GEMM_N_IMPLS) - 1);

	if (p->impls & (1u << GEMM_IMPL_ALIAS_CUBLAS))
		m |= 1u << GEMM_IMPL_CUBLASLT;
	return m;
}

/*
 * The shapes a run measures: --search's grid, or the product of --m, --n and
 * --k (each defaulting to --size).
 */
static size_t gemm_shapes(const struct gemm_params *p, struct gb_gemm_shape *out, size_t max)
{
	uint64_t size = (uint64_t)p->size;
	bool lists = p->m.n || p->n.n || p->k.n;

	if (p->search && !lists)
		return gb_gemm_search_grid(out, max);
	return gb_gemm_shape_product(p->m.n ? p->m.v : &size, p->m.n ? p->m.n : 1,
				     p->n.n ? p->n.v : &size, p->n.n ? p->n.n : 1,
				     p->k.n ? p->k.v : &size, p->k.n ? p->k.n : 1, out, max);
}

static int popcount32(uint32_t v)
{
	int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

static int gemm_validate(const void *pv, char *err, size_t len)
{
	const struct gemm_params *p = pv;
	struct gb_gemm_shape *shapes;
	size_t n = gemm_shapes(p, NULL, 0);
	int rc = 0;

	if (n > GB_GEMM_MAX_SHAPES) {
		snprintf(err, len, "--m, --n and --k give %zu shapes; at most %d", n,
			 GB_GEMM_MAX_SHAPES);
		return -1;
	}
	if (p->search && (p->impls & GEMM_OWN_IMPLS)) {
		snprintf(err, len, "--search measures cuBLASLt only; drop --impl's own kernels");
		return -1;
	}
	if (p->search && popcount32(prec_mask(p)) > 1) {
		snprintf(err, len, "--search sweeps one precision at a time; got %d in --precision",
			 popcount32(prec_mask(p)));
		return -1;
	}
	if (p->search && p->repeat > 1) {
		snprintf(err, len, "--repeat measures fixed shapes; drop it with --search");
		return -1;
	}
	/* all: the precisions that do not fit a shape are skipped at run time */
	if (prec_all(p))
		return 0;
	shapes = malloc(sizeof(*shapes) * (n ? n : 1));
	if (!shapes) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	gemm_shapes(p, shapes, n);
	/* a precision named explicitly must fit every shape; the default set skips at run time */
	for (int i = 0; i < GB_GEMM_N_PRECS && !rc; i++) {
		if (!(prec_mask(p) & (1u << i)))
			continue;
		for (size_t s = 0; s < n && !rc; s++)
			rc = gb_gemm_check_shape(gb_gemm_precs[i], shapes[s].m, shapes[s].n,
						 shapes[s].k, err, len);
	}
	free(shapes);
	return rc;
}

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
	/* cuBLASLt: descriptors, types, alpha and beta (bench/lt_matmul.h) */
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

static void shape_str(char *buf, size_t len, const struct gb_gemm_shape *s)
{
	snprintf(buf, len, "%llux%llux%llu", (unsigned long long)s->m, (unsigned long long)s->n,
		 (unsigned long long)s->k);
}

/* "fp32" for cuBLASLt, "fp32 sgemm" for an own kernel: messages name what ran */
static void job_label(char *buf, size_t len, const struct gemm_job *j)
{
	if (j->impl == GEMM_IMPL_CUBLASLT)
		snprintf(buf, len, "%s", gb_precision_name(j->prec));
	else
		snprintf(buf, len, "%s %s", gb_precision_name(j->prec), impl_names[j->impl]);
}

static void bytes_str(char *buf, size_t len, double bytes)
{
	gb_format_bytes(buf, len, bytes);
}

/* "out of memory: ..." naming every buffer of the job and what the device has */
static void oom_error(struct gb_bench_result *res, const struct gemm_dev *g,
		      const struct gemm_job *j, const char *what)
{
	char shape[80], a[32], b[32], d[32], fr[32], tot[32];
	size_t free_b = 0, total_b = 0;

	(void)cudaGetLastError();  /* an allocation failure is not sticky: clear it */
	cudaMemGetInfo(&free_b, &total_b);
	shape_str(shape, sizeof(shape), &j->s);
	bytes_str(a, sizeof(a), (double)j->a_stride);
	bytes_str(b, sizeof(b), (double)j->b_stride);
	bytes_str(d, sizeof(d), (double)j->d_bytes);
	bytes_str(fr, sizeof(fr), (double)free_b);
	bytes_str(tot, sizeof(tot), (double)total_b);
	gb_bench_set_status(res, GB_STATUS_ERROR,
			    "out of memory allocating %s for %s %s on device %d: A %llu x %s, "
			    "B %llu x %s, D %s, workspace 32 MiB; %s of %s free",
			    what, gb_precision_name(j->prec), shape, g->dev,
			    (unsigned long long)j->copies, a, (unsigned long long)j->copies, b, d,
			    fr, tot);
}

static int dev_alloc(struct gb_bench_result *res, const struct gemm_dev *g,
		     const struct gemm_job *j, void **p, size_t bytes, const char *what)
{
	cudaError_t e = cudaMalloc(p, bytes);
	char buf[160];

	if (e == cudaSuccess)
		return 0;
	*p = NULL;
	if (e == cudaErrorMemoryAllocation) {
		oom_error(res, g, j, what);
		return -1;
	}
	gb_bench_set_status(res, GB_STATUS_ERROR, "'cudaMalloc' of %zu bytes for %s failed: %s",
			    bytes, what, gb_cuda_errstr(e, buf, sizeof(buf)));
	return -1;
}

/* ---- setup and teardown ---- */

static void job_teardown(struct gemm_job *j)
{
	/* reverse order of job_setup; every handle may still be NULL */
	gb_lt_matmul_destroy(&j->mm);
	cudaFree(j->scale);
	cudaFree(j->d);
	cudaFree(j->b);
	cudaFree(j->a);
	j->scale = NULL;
	j->d = j->b = j->a = NULL;
}

/*
 * params.rotating_copies: the fewest copies any job used; and, the first
 * time free memory held fewer than 2x L2 needs, a note saying so, since
 * the L2 may then serve some operands and flatter the rate.
 */
static void note_rotation(struct gb_bench_result *res, const struct gemm_dev *g,
			  const struct gemm_job *j)
{
	const cJSON *seen = cJSON_GetObjectItemCaseSensitive(res->params, "rotating_copies");
	char shape[80], note[256];

	if (!cJSON_IsNumber(seen) || (double)j->copies < seen->valuedouble)
		gb_bench_param_num(res, "rotating_copies", (double)j->copies);
	if (j->copies >= j->copies_wanted ||
	    cJSON_GetObjectItemCaseSensitive(res->params, "rotation_note"))
		return;
	shape_str(shape, sizeof(shape), &j->s);
	snprintf(note, sizeof(note),
		 "device %d, %s %s: %llu rotating copies of A and B, of the %llu that 2x L2 "
		 "needs, fit in free memory; the L2 may serve some operands",
		 g->dev, gb_precision_name(j->prec), shape, (unsigned long long)j->copies,
		 (unsigned long long)j->copies_wanted);
	gb_bench_param_str(res, "rotation_note", note);
}

static int job_setup(const struct gemm_params *p, struct gb_bench_result *res,
		     const struct gb_cublaslt *lt, struct gemm_dev *g, struct gemm_job *j)
{
	const struct gb_gemm_shape *s = &j->s;
	size_t free_b = 0, total_b = 0, need;
	uint64_t seed = (uint64_t)p->seed;
	const char *what = NULL;
	cublasStatus_t st;
	char buf[160];
	int rc = 0;

	j->t_ab = gb_gemm_input_type(j->prec);
	j->t_d = gb_gemm_output_type(j->prec);
	j->flops = gb_gemm_flops(s->m, s->n, s->k);
	j->a_bytes = (size_t)(s->k * s->m * gb_dtype_size(j->t_ab));
	j->b_bytes = (size_t)(s->k * s->n * gb_dtype_size(j->t_ab));
	j->d_bytes = (size_t)(s->m * s->n * gb_dtype_size(j->t_d));
	j->a_stride = (size_t)gb_gemm_align_up(j->a_bytes);
	j->b_stride = (size_t)gb_gemm_align_up(j->b_bytes);
	j->copies_wanted = gb_gemm_rotating_copies((double)(j->a_stride + j->b_stride),
						   g->info->l2_bytes);
	GB_CUDA_GOTO(res, cudaMemGetInfo(&free_b, &total_b), out);
	j->copies = gb_gemm_copies_that_fit(j->copies_wanted, (double)(j->a_stride + j->b_stride),
					    (double)j->d_bytes, (double)free_b);
	note_rotation(res, g, j);

	/* say what does not fit before trying, with every size involved */
	need = (size_t)j->copies * (j->a_stride + j->b_stride) + j->d_bytes;
	if (need > free_b) {
		oom_error(res, g, j, "the operands");
		rc = -1;
		goto out;
	}
	if (dev_alloc(res, g, j, &j->a, (size_t)j->copies * j->a_stride, "A") ||
	    dev_alloc(res, g, j, &j->b, (size_t)j->copies * j->b_stride, "B") ||
	    dev_alloc(res, g, j, &j->d, j->d_bytes, "D")) {
		rc = -1;
		goto out;
	}
	/* A and B from different seeds; the padding between copies is filled too (harmless) */
	GB_CUDA_GOTO(res, gb_launch_fill_random(j->a, j->t_ab,
						j->copies * j->a_stride / gb_dtype_size(j->t_ab),
						2 * seed, 0, g->stream), out);
	GB_CUDA_GOTO(res, gb_launch_fill_random(j->b, j->t_ab,
						j->copies * j->b_stride / gb_dtype_size(j->t_ab),
						2 * seed + 1, 0, g->stream), out);
	GB_CUDA_GOTO(res, gb_launch_fill_poison(j->d, j->t_d, s->m * s->n, g->stream), out);

	if (j->prec == GB_PREC_FP8) {
		/* per-tensor scales of 1: the inputs are already in E4M3's range */
		static const float one = 1.0f;

		if (dev_alloc(res, g, j, (void **)&j->scale, sizeof(float), "the FP8 scale")) {
			rc = -1;
			goto out;
		}
		GB_CUDA_GOTO(res, cudaMemcpyAsync(j->scale, &one, sizeof(one),
						  cudaMemcpyHostToDevice, g->stream), out);
	}
	st = gb_lt_matmul_create(lt, &j->mm, j->prec, j->t_ab, j->t_d, s->m, s->n, s->k, j->scale,
				 GEMM_WORKSPACE_BYTES, &what);
	if (st != CUBLAS_STATUS_SUCCESS) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "'%s' failed for %s on device %d: %s",
				    what, gb_precision_name(j->prec), g->dev,
				    gb_cublaslt_errstr(st, buf, sizeof(buf)));
		rc = -1;
		goto out;
	}
	GB_CUDA_GOTO(res, cudaStreamSynchronize(g->stream), out);
out:
	return rc;
}

/* ---- running GEMMs ---- */

/* one GEMM with one of gpubench's own kernels, same operands and layout as cuBLASLt's */
static cudaError_t own_launch(const struct gemm_job *j, const void *a, const void *b,
			      cudaStream_t stream)
{
	const struct gb_gemm_shape *s = &j->s;

	switch (j->impl) {
	case GEMM_IMPL_TILED:
		return gb_launch_sgemm_tiled(a, b, j->d, s->m, s->n, s->k, stream);
	case GEMM_IMPL_SGEMM:
		return gb_launch_sgemm(a, b, j->d, s->m, s->n, s->k, stream);
	case GEMM_IMPL_MMA:
		return gb_launch_gemm_mma(a, b, j->d, j->t_ab, s->m, s->n, s->k, stream);
	case GEMM_IMPL_WGMMA:
		return gb_launch_gemm_wgmma(a, b, j->d, j->t_ab, s->m, s->n, s->k, stream);
	case GEMM_IMPL_CUBLASLT:
	case GEMM_N_IMPLS:
	default:
		return cudaErrorInvalidValue;
	}
}

/*
 * One GEMM of the job's implementation on copy `copy` of A and B. An own
 * kernel's launch error lands in j->launch_err and reads as
 * CUBLAS_STATUS_EXECUTION_FAILED here, so the loops stop the same way.
 */
static cublasStatus_t gemm_once(const struct gemm_dev *g, struct gemm_job *j, int cand,
				uint64_t copy)
{
	const char *a = (const char *)j->a + (copy % j->copies) * j->a_stride;
	const char *b = (const char *)j->b + (copy % j->copies) * j->b_stride;

	if (j->impl != GEMM_IMPL_CUBLASLT) {
		j->launch_err = own_launch(j, a, b, g->stream);
		return j->launch_err == cudaSuccess ? CUBLAS_STATUS_SUCCESS
						    : CUBLAS_STATUS_EXECUTION_FAILED;
	}
	return gb_lt_matmul_run(&j->mm, g->lt, a, b, j->d, &j->cand[cand].algo, g->workspace,
				GEMM_WORKSPACE_BYTES, g->stream);
}

/*
 * count back-to-back GEMMs with candidate cand between two events, rotating
 * inputs; *seconds the elapsed device time. A launch that cuBLASLt refuses
 * returns its status in *st (rc 0) so candidate timing can skip it.
 */
static int run_batch(struct gb_bench_result *res, const struct gemm_dev *g, struct gemm_job *j,
		     int cand, uint64_t count, double *seconds, cublasStatus_t *st)
{
	float ms = 0;
	int rc = 0;

	*st = CUBLAS_STATUS_SUCCESS;
	GB_CUDA_GOTO(res, cudaEventRecord(g->ev0, g->stream), out);
	for (uint64_t i = 0; i < count && *st == CUBLAS_STATUS_SUCCESS; i++)
		*st = gemm_once(g, j, cand, j->next++);
	GB_CUDA_GOTO(res, cudaEventRecord(g->ev1, g->stream), out);
	GB_CUDA_GOTO(res, cudaEventSynchronize(g->ev1), out);
	GB_CUDA_GOTO(res, cudaEventElapsedTime(&ms, g->ev0, g->ev1), out);
	/*
	 * Events resolve about 0.5 us: a batch of tiny GEMMs can read 0, and
	 * every rate below divides by this. Never report less than one tick.
	 */
	*seconds = ms > 0 ? ms * 1e-3 : 0.5e-6;
out:
	return rc;
}

/* a launch that failed: the benchmark ERROR, naming cuBLASLt's status or the kernel's error */
static void launch_failed(struct gb_bench_result *res, const struct gemm_job *j,
			  cublasStatus_t st)
{
	char buf[160];

	if (j->impl == GEMM_IMPL_CUBLASLT)
		gb_bench_set_status(res, GB_STATUS_ERROR, "'cublasLtMatmul' failed: %s",
				    gb_cublaslt_errstr(st, buf, sizeof(buf)));
	else
		gb_bench_set_status(res, GB_STATUS_ERROR, "launching the %s kernel failed: %s",
				    impl_names[j->impl],
				    gb_cuda_errstr(j->launch_err, buf, sizeof(buf)));
}

/* as run_batch, but a refused launch is an error */
static int run_timed(struct gb_bench_result *res, const struct gemm_dev *g, struct gemm_job *j,
		     uint64_t count, double *seconds)
{
	cublasStatus_t st;
	int rc = run_batch(res, g, j, j->best, count, seconds, &st);

	if (!rc && st != CUBLAS_STATUS_SUCCESS) {
		launch_failed(res, j, st);
		rc = -1;
	}
	return rc;
}

static uint64_t batch_for(double seconds, double t_gemm_s, uint64_t max)
{
	double b = t_gemm_s > 0 ? floor(seconds / t_gemm_s + 0.5) : 1;

	if (b < 1)
		return 1;
	return b > (double)max ? max : (uint64_t)b;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/*
 * Run the heuristic's first pick back to back for `seconds` before the
 * candidates are timed. A cold GPU runs above its sustained clock for its
 * first seconds, and candidates a percent apart, compared then, need not
 * rank as they will once power has settled. A refused first pick ends this
 * early: selection then says why.
 */
static int job_preselect_warmup(struct gb_ctx *ctx, struct gb_bench_result *res,
				const struct gemm_dev *g, struct gemm_job *j, double seconds)
{
	cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
	double t_start = gb_now_s(), sec = 0;
	uint64_t batch = 1;
	int rc = 0;

	while (gb_now_s() - t_start < seconds && st == CUBLAS_STATUS_SUCCESS &&
	       !gb_should_stop(ctx)) {
		rc = run_batch(res, g, j, 0, batch, &sec, &st);
		if (rc)
			break;
		/* the first batch is one GEMM (and the module load); later ones ~50 ms */
		batch = batch_for(GEMM_PRESELECT_BATCH_S, sec / (double)batch, 1000000);
	}
	j->preselect_s = gb_now_s() - t_start;
	return rc;
}

/*
 * Time the heuristic's candidates and keep the fastest, after a warm-up of
 * up to GB_GEMM_PRESELECT_WARMUP_S with the first one. Each gets one
 * untimed launch (module load, and cuBLASLt may still refuse it), then the
 * median of GEMM_SELECT_REPS batches of ~10 ms. Slow GEMMs shrink the work
 * to fit GEMM_SELECT_BUDGET_S, down to trusting the heuristic's first pick.
 */
static int job_select(struct gb_ctx *ctx, struct gb_bench_result *res,
		      const struct gemm_dev *g, struct gemm_job *j, const struct job_mode *mode)
{
	int max_candidates = mode->max_candidates;
	cublasStatus_t st = CUBLAS_STATUS_SUCCESS, last_refusal = CUBLAS_STATUS_SUCCESS;
	int n = 0, reps = GEMM_SELECT_REPS;
	uint64_t batch = 1;
	double t0 = 0, sec, pre_s;
	char buf[160], shape[80];
	int rc = 0;

	if (max_candidates > GEMM_CANDIDATES)
		max_candidates = GEMM_CANDIDATES;
	/* the usable ones, in the heuristic's order */
	GB_CUBLASLT_GOTO(res, gb_lt_matmul_algos(&j->mm, g->lt, j->cand, max_candidates, &n), out);
	j->n_cand = n;
	shape_str(shape, sizeof(shape), &j->s);
	if (!n) {
		gb_bench_set_status(res, GB_STATUS_ERROR,
				    "cuBLASLt offers no algorithm for %s %s on device %d",
				    gb_precision_name(j->prec), shape, g->dev);
		rc = -1;
		goto out;
	}
	pre_s = gb_gemm_preselect_warmup_s(mode->warmup_s, n);
	if (pre_s > 0)
		gb_progress(ctx, "gemm: GPU %d %s %s: warming up %.1f s, then timing %d "
			    "algorithms", g->dev, gb_precision_name(j->prec), shape, pre_s, n);
	rc = job_preselect_warmup(ctx, res, g, j, pre_s);
	if (rc)
		goto out;
	j->best = -1;
	for (int i = 0; i < n; i++)
		j->cand_s[i] = INFINITY;
	j->n_timed = 0;
	for (int i = 0; i < n && !gb_should_stop(ctx); i++) {
		double reps_s[GEMM_SELECT_REPS];

		rc = run_batch(res, g, j, i, 1, &sec, &st);  /* untimed */
		if (rc)
			goto out;
		if (st != CUBLAS_STATUS_SUCCESS) {
			last_refusal = st;
			continue;
		}
		if (j->best < 0) {
			/* the first usable candidate sizes the batches for all */
			rc = run_batch(res, g, j, i, 1, &t0, &st);
			if (rc)
				goto out;
			batch = batch_for(GEMM_SELECT_BATCH_S, t0, 1000);
			if (t0 * n * reps * (double)batch > GEMM_SELECT_BUDGET_S)
				reps = 1;
			j->best = i;
			j->cand_s[i] = t0;
			if (t0 * n > GEMM_SELECT_BUDGET_S) {
				/* too slow to compare: the heuristic's first pick it is */
				j->n_timed = 1;
				break;
			}
		}
		for (int r = 0; r < reps && st == CUBLAS_STATUS_SUCCESS; r++) {
			rc = run_batch(res, g, j, i, batch, &sec, &st);
			if (rc)
				goto out;
			reps_s[r] = sec / (double)batch;
		}
		if (st != CUBLAS_STATUS_SUCCESS) {
			last_refusal = st;
			j->cand_s[i] = INFINITY;
			continue;
		}
		qsort(reps_s, (size_t)reps, sizeof(reps_s[0]), cmp_double);
		j->cand_s[i] = reps_s[reps / 2];
		j->n_timed++;
		if (j->cand_s[i] < j->cand_s[j->best])
			j->best = i;
	}
	/* the first usable candidate may have been refused in its timed batches */
	if (j->best >= 0 && !isfinite(j->cand_s[j->best]))
		j->best = -1;
	if (j->best < 0 && !gb_should_stop(ctx)) {
		gb_bench_set_status(res, GB_STATUS_ERROR,
				    "cuBLASLt refused all %d algorithms for %s %s on device %d: %s",
				    n, gb_precision_name(j->prec), shape, g->dev,
				    gb_cublaslt_errstr(last_refusal, buf, sizeof(buf)));
		rc = -1;
		goto out;
	}
	if (j->best >= 0)
		j->t_gemm_s = j->cand_s[j->best];
out:
	return rc;
}

/*
 * Run windows of back-to-back GEMMs until GB_GEMM_SETTLE_WINDOWS of them
 * agree within 2% (clocks and power have settled) or warmup_s has passed.
 */
static int job_warmup(struct gb_ctx *ctx, struct gb_bench_result *res,
		      const struct gemm_dev *g, struct gemm_job *j, double warmup_s)
{
	double window_s = fmin(fmax(warmup_s / 10, 0.05), 0.5);
	uint64_t per_window = batch_for(window_s, j->t_gemm_s, 1000000);
	double *per_gemm = malloc(sizeof(double) * GEMM_MAX_WINDOWS);
	double t_start = gb_now_s(), sec;
	size_t n = 0;
	int rc = 0;

	if (!per_gemm) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "out of host memory");
		return -1;
	}
	while (n < GEMM_MAX_WINDOWS && gb_now_s() - t_start < warmup_s && !gb_should_stop(ctx)) {
		rc = run_timed(res, g, j, per_window, &sec);
		if (rc)
			goto out;
		per_gemm[n++] = sec / (double)per_window;
		j->t_gemm_s = per_gemm[n - 1];
		if (gb_gemm_settled(per_gemm, n, GEMM_SETTLE_TOL)) {
			j->settled = true;
			break;
		}
	}
out:
	j->warmup_windows = n;
	j->warmup_done_s = gb_now_s() - t_start;
	free(per_gemm);
	return rc;
}

/* one timed phase: --samples batches appended to j->tflops */
static int measure_run(struct gb_ctx *ctx, struct gb_bench_result *res, struct gemm_state *st,
		       const struct gemm_dev *g, struct gemm_job *j)
{
	double sec;
	int rc = 0;

	for (size_t i = 0; i < j->per_run && !gb_should_stop(ctx); i++) {
		rc = run_timed(res, g, j, j->batch, &sec);
		if (rc)
			break;
		j->tflops[j->n_tflops++] = j->flops * (double)j->batch / sec / 1e12;
		if (st->hint)
			/* read by the telemetry sampler's thread: atomic, and a hint only */
			__atomic_store(&st->hint[g->slot], &j->tflops[j->n_tflops - 1],
				       __ATOMIC_RELAXED);
	}
	return rc;
}

/*
 * mode->repeat timed phases back to back, with one batch size, so that
 * their medians differ only by what the GPU did. A phase cut short by the
 * stop flag is kept as samples but does not count as a run.
 */
static int job_measure(struct gb_ctx *ctx, const struct gemm_params *p, struct gb_bench_result *res,
		       struct gemm_state *st, const struct gemm_dev *g, struct gemm_job *j,
		       const struct job_mode *mode)
{
	size_t runs = mode->repeat > 1 ? (size_t)mode->repeat : 1;
	char shape[80], what[48];
	int rc = 0;

	j->per_run = (size_t)p->samples;
	j->batch = gb_gemm_batch_iters(p->iters, mode->duration_s, (unsigned)j->per_run,
				       j->t_gemm_s);
	j->tflops = calloc(j->per_run * runs, sizeof(double));
	if (!j->tflops) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "out of host memory");
		return -1;
	}
	shape_str(shape, sizeof(shape), &j->s);
	job_label(what, sizeof(what), j);
	gb_sampler_mark(st->sampler);
	for (size_t r = 0; r < runs && !gb_should_stop(ctx); r++) {
		rc = measure_run(ctx, res, st, g, j);
		if (rc)
			goto out;
		if (j->n_tflops == (r + 1) * j->per_run)
			j->n_runs++;
		if (runs > 1 && j->n_runs == r + 1)
			gb_progress(ctx, "gemm: GPU %d %s %s: run %zu of %zu: %.1f %s (median)",
				    g->dev, what, shape, r + 1, runs,
				    gb_percentile(j->tflops + r * j->per_run, j->per_run, 50),
				    gb_gemm_rate_unit(j->prec));
	}
	j->measured = j->n_tflops > 0;
out:
	gb_sampler_summary(st->sampler, g->slot, &j->tel);
	if (st->hint) {
		double none = NAN;

		__atomic_store(&st->hint[g->slot], &none, __ATOMIC_RELAXED);
	}
	return rc;
}

/* ---- verification ---- */

static int verify_free(uint32_t *rc_h, uint32_t *rc_d, double *ref, double *scale, double *got,
		       struct gb_verify_counters *cnt)
{
	cudaFree(cnt);
	cudaFree(got);
	cudaFree(scale);
	cudaFree(ref);
	cudaFree(rc_d);
	free(rc_h);
	return 0;
}

/* --inject-fault: flip the top exponent bit of one sampled output, as a bad GPU might */
static int inject_fault(struct gb_bench_result *res, const struct gemm_dev *g,
			const struct gemm_job *j, const uint32_t *rc_h, size_t n_samples)
{
	size_t i = n_samples / 2, es = gb_dtype_size(j->t_d);
	size_t off = ((size_t)rc_h[2 * i] + (size_t)rc_h[2 * i + 1] * j->s.m) * es;
	unsigned char elem[8];
	int rc = 0;

	GB_CUDA_GOTO(res, cudaMemcpyAsync(elem, (char *)j->d + off, es, cudaMemcpyDeviceToHost,
					  g->stream), out);
	GB_CUDA_GOTO(res, cudaStreamSynchronize(g->stream), out);
	gb_gemm_flip_high_bit(elem, j->t_d);
	GB_CUDA_GOTO(res, cudaMemcpyAsync((char *)j->d + off, elem, es, cudaMemcpyHostToDevice,
					  g->stream), out);
	GB_CUDA_GOTO(res, cudaStreamSynchronize(g->stream), out);
out:
	return rc;
}

_Static_assert(GB_LT_REDUCTION_INPLACE == CUBLASLT_REDUCTION_SCHEME_INPLACE &&
		       GB_LT_REDUCTION_OUTPUT_TYPE == CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE,
	       "gemm_math.h's reduction schemes are cublasLt.h's");

/* The configuration of the job's chosen cuBLASLt algorithm; false when it has none. */
static bool chosen_algo_config(const struct gb_cublaslt *lt, const struct gemm_job *j,
			       struct gb_lt_algo_config *c)
{
	if (j->impl != GEMM_IMPL_CUBLASLT || j->best < 0 || j->best >= j->n_cand)
		return false;
	gb_lt_algo_config(lt, &j->cand[j->best].algo, c);
	return true;
}

/* The error bound's share for the chosen cuBLASLt algorithm's split-K reduction. */
static double split_k_slack(const struct gemm_job *j)
{
	struct gb_lt_algo_config c;

	if (!chosen_algo_config(gb_cublaslt(), j, &c))
		return 0;
	return gb_gemm_split_k_slack(j->prec, c.splitk, c.reduction_scheme);
}

/*
 * Separate pass after timing: poison D, one GEMM with the chosen algorithm
 * on the first copy of A and B, FP64 reference on the sampled outputs,
 * comparison on the device. The outcome lands in j->ver.
 */
static int job_verify(const struct gemm_params *p, struct gb_bench_result *res,
		      const struct gemm_dev *g, struct gemm_job *j)
{
	size_t n = gb_gemm_sample_coords(j->s.m, j->s.n, j->s.k, NULL, 0);
	uint32_t *rc_h = NULL, *rc_d = NULL;
	double *ref = NULL, *scale = NULL, *got = NULL;
	struct gb_verify_counters *cnt = NULL, c;
	struct verify_outcome *v = &j->ver;
	cublasStatus_t st;
	char shape[80], what[48];
	int rc = 0;

	shape_str(shape, sizeof(shape), &j->s);
	job_label(what, sizeof(what), j);
	rc_h = malloc(sizeof(uint32_t) * 2 * n);
	if (!rc_h) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "out of host memory");
		rc = -1;
		goto out;
	}
	gb_gemm_sample_coords(j->s.m, j->s.n, j->s.k, rc_h, n);
	if (dev_alloc(res, g, j, (void **)&rc_d, sizeof(uint32_t) * 2 * n, "verification") ||
	    dev_alloc(res, g, j, (void **)&ref, sizeof(double) * n, "verification") ||
	    dev_alloc(res, g, j, (void **)&scale, sizeof(double) * n, "verification") ||
	    dev_alloc(res, g, j, (void **)&got, sizeof(double) * n, "verification") ||
	    dev_alloc(res, g, j, (void **)&cnt, sizeof(*cnt), "verification")) {
		rc = -1;
		goto out;
	}
	GB_CUDA_GOTO(res, cudaMemcpyAsync(rc_d, rc_h, sizeof(uint32_t) * 2 * n,
					  cudaMemcpyHostToDevice, g->stream), out);
	GB_CUDA_GOTO(res, gb_launch_fill_poison(j->d, j->t_d, j->s.m * j->s.n, g->stream), out);
	st = gemm_once(g, j, j->best, 0);
	if (st != CUBLAS_STATUS_SUCCESS) {
		launch_failed(res, j, st);
		rc = -1;
		goto out;
	}
	if (p->inject_fault) {
		rc = inject_fault(res, g, j, rc_h, n);
		if (rc)
			goto out;
	}
	GB_CUDA_GOTO(res, gb_launch_gemm_reference(j->a, j->b, j->t_ab, j->s.k, rc_d, n, ref, scale,
						   g->stream), out);
	GB_CUDA_GOTO(res, cudaMemsetAsync(cnt, 0, sizeof(*cnt), g->stream), out);
	v->bound = gb_gemm_error_bound(j->prec, j->s.k) + split_k_slack(j);
	GB_CUDA_GOTO(res, gb_launch_gemm_compare(j->d, j->t_d, j->s.m, rc_d, n, ref, scale,
						 v->bound, got, cnt, g->stream), out);
	GB_CUDA_GOTO(res, cudaMemcpyAsync(&c, cnt, sizeof(c), cudaMemcpyDeviceToHost, g->stream),
		     out);
	GB_CUDA_GOTO(res, cudaStreamSynchronize(g->stream), out);

	v->done = true;
	v->n_samples = n;
	memcpy(&v->max_err, &c.max_err_bits, sizeof(v->max_err));
	if (c.checked != n) {
		/* never fail open: a comparison that did not see every sample is no pass */
		v->status = GB_STATUS_ERROR;
		snprintf(v->msg, sizeof(v->msg),
			 "verification compared %llu of %zu samples of %s %s", c.checked, n, what,
			 shape);
	} else if (c.mismatches) {
		size_t bad = (size_t)~c.first_bad_inv;
		double want = NAN, have = NAN, sc = NAN;

		if (bad < n) {
			GB_CUDA_GOTO(res, cudaMemcpy(&want, ref + bad, sizeof(want),
						     cudaMemcpyDeviceToHost), out);
			GB_CUDA_GOTO(res, cudaMemcpy(&have, got + bad, sizeof(have),
						     cudaMemcpyDeviceToHost), out);
			GB_CUDA_GOTO(res, cudaMemcpy(&sc, scale + bad, sizeof(sc),
						     cudaMemcpyDeviceToHost), out);
		}
		v->status = GB_STATUS_FAILED;
		snprintf(v->msg, sizeof(v->msg),
			 "%llu of %zu sampled outputs of %s %s wrong (%llu NaN); first at row %u, "
			 "column %u: expected %.9g, got %.9g (error %.3g, bound %.3g)",
			 c.mismatches, n, what, shape, c.nans,
			 bad < n ? rc_h[2 * bad] : 0, bad < n ? rc_h[2 * bad + 1] : 0, want, have,
			 fabs(have - want) / (fabs(want) + sc), v->bound);
	} else {
		v->status = GB_STATUS_PASSED;
		snprintf(v->msg, sizeof(v->msg),
			 "%zu sampled outputs of %s %s match the FP64 reference: max error %.3g, "
			 "bound %.3g",
			 n, what, shape, v->max_err, v->bound);
	}
out:
	verify_free(rc_h, rc_d, ref, scale, got, cnt);
	return rc;
}

/* ---- one job from start to end ---- */

/*
 * An own kernel has no candidates to choose from: one launch loads its
 * module (and must not fail), one more times a GEMM, and a batch of about
 * 10 ms refines that when it fits the selection budget.
 */
static int own_select(struct gb_ctx *ctx, struct gb_bench_result *res,
		      const struct gemm_dev *g, struct gemm_job *j)
{
	double t0 = 0, sec = 0;
	uint64_t batch;
	int rc;

	j->best = 0;
	rc = run_timed(res, g, j, 1, &t0);
	if (!rc && !gb_should_stop(ctx))
		rc = run_timed(res, g, j, 1, &t0);
	if (!rc && !gb_should_stop(ctx)) {
		batch = batch_for(GEMM_SELECT_BATCH_S, t0, 1000);
		if (batch > 1 && t0 * (double)batch <= GEMM_SELECT_BUDGET_S) {
			rc = run_timed(res, g, j, batch, &sec);
			if (!rc)
				t0 = sec / (double)batch;
		}
	}
	j->t_gemm_s = t0;
	return rc;
}

/* select (cuBLASLt) or time once (own kernel), warm up, measure, verify, on set-up buffers */
static int run_phases(struct gb_ctx *ctx, const struct gemm_params *p,
		      struct gb_bench_result *res, struct gemm_state *st, struct gemm_dev *g,
		      struct gemm_job *j, const struct job_mode *mode)
{
	char shape[80], what[48];
	int rc = 0;

	shape_str(shape, sizeof(shape), &j->s);
	job_label(what, sizeof(what), j);
	if (!gb_should_stop(ctx))
		rc = j->impl == GEMM_IMPL_CUBLASLT ? job_select(ctx, res, g, j, mode)
						   : own_select(ctx, res, g, j);
	if (!rc && !gb_should_stop(ctx)) {
		gb_progress(ctx, "gemm: GPU %d %s %s: warming up (up to %.1f s)", g->dev, what,
			    shape, mode->warmup_s);
		rc = job_warmup(ctx, res, g, j, mode->warmup_s);
	}
	if (!rc && !gb_should_stop(ctx))
		rc = job_measure(ctx, p, res, st, g, j, mode);
	if (!rc && !gb_should_stop(ctx) && p->verify && j->measured)
		rc = job_verify(p, res, g, j);
	return rc;
}

static int run_job(struct gb_ctx *ctx, const struct gemm_params *p, struct gb_bench_result *res,
		   struct gemm_state *st, struct gemm_dev *g, struct gemm_job *j,
		   const struct job_mode *mode)
{
	int rc = job_setup(p, res, st->lt, g, j);

	if (!rc)
		rc = run_phases(ctx, p, res, st, g, j, mode);
	job_teardown(j);
	return rc;
}

static void job_release(struct gemm_job *j)
{
	free(j->tflops);
	j->tflops = NULL;
}

/* ---- reporting ---- */

static double tera(double flops)
{
	return isfinite(flops) && flops > 0 ? flops / 1e12 : NAN;
}

static const char *tile_name(int64_t id)
{
	return id >= 0 && id <= UINT32_MAX ? gb_lt_tile_name((uint32_t)id) : NULL;
}

static const char *stages_name(int64_t id)
{
	return id >= 0 && id <= UINT32_MAX ? gb_lt_stages_name((uint32_t)id) : NULL;
}

/* key: the name, or null when this build has no name for the id (a newer cuBLASLt) */
static void add_name(cJSON *o, const char *key, const char *name)
{
	if (name)
		cJSON_AddStringToObject(o, key, name);
	else
		cJSON_AddNullToObject(o, key);
}

/* The attributes cuBLASLt reported (ids as numbers, tile and stages also named). */
static void add_config(cJSON *o, const struct gb_cublaslt *lt, const cublasLtMatmulAlgo_t *a)
{
	struct gb_lt_algo_config c;

	gb_lt_algo_config(lt, a, &c);
#define GB_CFG_NUM(field, key) \
	if (c.field >= 0)      \
		cJSON_AddNumberToObject(o, key, (double)c.field);
	GB_CFG_NUM(id, "algo_id")
	GB_CFG_NUM(tile, "tile_id")
	if (c.tile >= 0)
		add_name(o, "tile", tile_name(c.tile));
	GB_CFG_NUM(stages, "stages_id")
	if (c.stages >= 0)
		add_name(o, "stages", stages_name(c.stages));
	GB_CFG_NUM(splitk, "splitk")
	GB_CFG_NUM(reduction_scheme, "reduction_scheme")
	GB_CFG_NUM(cta_swizzling, "cta_swizzling")
	GB_CFG_NUM(custom_option, "custom_option")
	GB_CFG_NUM(inner_shape_id, "inner_shape_id")
	GB_CFG_NUM(cluster_shape_id, "cluster_shape_id")
#undef GB_CFG_NUM
}

/* "128x256"; "id 700" for an id this build cannot name; "?" when not reported */
static void lt_name_str(char *buf, size_t len, const char *name, int64_t id)
{
	if (id < 0)
		snprintf(buf, len, "?");
	else if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "id %lld", (long long)id);
}

/*
 * ", algo 66, tile 128x256, stages 64x4, split-K 1" for the job's chosen
 * cuBLASLt algorithm, for progress lines and descriptions; "" when the job
 * has none (an own kernel, or nothing was chosen).
 */
static void algo_str(char *buf, size_t len, const struct gb_cublaslt *lt,
		     const struct gemm_job *j)
{
	struct gb_lt_algo_config c;
	char tile[32], stages[32];

	buf[0] = '\0';
	if (!chosen_algo_config(lt, j, &c))
		return;
	lt_name_str(tile, sizeof(tile), tile_name(c.tile), c.tile);
	lt_name_str(stages, sizeof(stages), stages_name(c.stages), c.stages);
	snprintf(buf, len, ", algo %lld, tile %s, stages %s, split-K %lld", (long long)c.id, tile,
		 stages, (long long)c.splitk);
}

static cJSON *job_json(const struct gb_cublaslt *lt, const struct gemm_dev *g,
		       const struct gemm_job *j)
{
	cJSON *o = cJSON_CreateObject(), *algo, *cands;
	char reasons[256];

	cJSON_AddNumberToObject(o, "device", g->dev);
	cJSON_AddStringToObject(o, "impl", impl_names[j->impl]);
	cJSON_AddStringToObject(o, "precision", gb_precision_name(j->prec));
	cJSON_AddNumberToObject(o, "m", (double)j->s.m);
	cJSON_AddNumberToObject(o, "n", (double)j->s.n);
	cJSON_AddNumberToObject(o, "k", (double)j->s.k);
	cJSON_AddStringToObject(o, "a_type", gb_dtype_name(j->t_ab));
	cJSON_AddStringToObject(o, "d_type", gb_dtype_name(j->t_d));
	cJSON_AddNumberToObject(o, "rotating_copies", (double)j->copies);
	cJSON_AddNumberToObject(o, "rotating_copies_wanted", (double)j->copies_wanted);
	cJSON_AddNumberToObject(o, "gemms_per_sample", (double)j->batch);
	if (j->impl == GEMM_IMPL_CUBLASLT)
		cJSON_AddNumberToObject(o, "preselect_warmup_s", j->preselect_s);
	cJSON_AddNumberToObject(o, "warmup_s", j->warmup_done_s);
	cJSON_AddNumberToObject(o, "warmup_windows", (double)j->warmup_windows);
	cJSON_AddBoolToObject(o, "warmup_settled", j->settled);
	if (j->n_runs > 1) {
		cJSON *runs = cJSON_AddArrayToObject(o, "run_medians");
		double med;

		for (size_t r = 0; r < j->n_runs; r++) {
			med = gb_percentile(j->tflops + r * j->per_run, j->per_run, 50);
			cJSON_AddItemToArray(runs, isfinite(med) ? cJSON_CreateNumber(med)
								 : cJSON_CreateNull());
		}
	}
	if (j->best >= 0 && j->best < j->n_cand) {
		algo = cJSON_AddObjectToObject(o, "algorithm");
		add_config(algo, lt, &j->cand[j->best].algo);
		cJSON_AddNumberToObject(algo, "workspace_bytes",
					(double)j->cand[j->best].workspaceSize);
		cJSON_AddNumberToObject(algo, "waves", j->cand[j->best].wavesCount);
		cJSON_AddNumberToObject(algo, "heuristic_rank", j->best);
		cJSON_AddBoolToObject(algo, "fp8_fast_accum", false);
	}
	if (j->impl != GEMM_IMPL_CUBLASLT && j->plan.grid) {
		cJSON *k = cJSON_AddObjectToObject(o, "kernel");

		cJSON_AddNumberToObject(k, "tile_m", j->plan.tile_m);
		cJSON_AddNumberToObject(k, "tile_n", j->plan.tile_n);
		cJSON_AddNumberToObject(k, "tile_k", j->plan.tile_k);
		cJSON_AddNumberToObject(k, "threads", j->plan.threads);
		cJSON_AddNumberToObject(k, "blocks", j->plan.grid);
		cJSON_AddNumberToObject(k, "stages", j->plan.stages);
		cJSON_AddNumberToObject(k, "smem_bytes",
					(double)(j->plan.smem_bytes + j->plan.smem_static));
		cJSON_AddBoolToObject(k, "vector_loads", j->plan.vector_loads);
		cJSON_AddBoolToObject(k, "edge_tiles", j->plan.edge);
		cJSON_AddBoolToObject(k, "padded_k", j->plan.padded_k);
		cJSON_AddNumberToObject(k, "scratch_bytes", (double)j->plan.scratch_bytes);
	}
	cands = j->impl == GEMM_IMPL_CUBLASLT ? cJSON_AddArrayToObject(o, "candidates") : NULL;
	for (int i = 0; cands && i < j->n_cand; i++) {
		cJSON *c = cJSON_CreateObject();

		add_config(c, lt, &j->cand[i].algo);
		if (isfinite(j->cand_s[i]))
			cJSON_AddNumberToObject(c, "tflops", j->flops / j->cand_s[i] / 1e12);
		else
			cJSON_AddNullToObject(c, "tflops");
		cJSON_AddItemToArray(cands, c);
	}
	if (j->tel.valid) {
		cJSON *t = cJSON_AddObjectToObject(o, "telemetry");

		cJSON_AddNumberToObject(t, "samples", (double)j->tel.n);
		if (isfinite(j->tel.sm_mhz_mean)) {
			cJSON_AddNumberToObject(t, "sm_mhz_mean", j->tel.sm_mhz_mean);
			cJSON_AddNumberToObject(t, "sm_mhz_min", j->tel.sm_mhz_min);
		}
		if (isfinite(j->tel.power_w_mean)) {
			cJSON_AddNumberToObject(t, "power_w_mean", j->tel.power_w_mean);
			cJSON_AddNumberToObject(t, "power_w_max", j->tel.power_w_max);
		}
		if (isfinite(j->tel.temp_c_max))
			cJSON_AddNumberToObject(t, "temp_c_max", j->tel.temp_c_max);
		if (isfinite(j->tel.throttled_frac))
			cJSON_AddNumberToObject(t, "throttled_frac", j->tel.throttled_frac);
		gb_nvml_reasons_str(j->tel.reasons_union, reasons, sizeof(reasons));
		cJSON_AddStringToObject(t, "clock_event_reasons", reasons);
	}
	return o;
}

/* "_8192x8192x8192" when a run measures several shapes, so metric names stay unique */
static void name_suffix(char *buf, size_t len, const struct gemm_job *j, bool several)
{
	buf[0] = '\0';
	if (several)
		snprintf(buf, len, "_%llux%llux%llu", (unsigned long long)j->s.m,
			 (unsigned long long)j->s.n, (unsigned long long)j->s.k);
}

/* The peak a precision is judged against: the spec sheet when known, else the max clock. */
static double judged_peak(const struct gb_device_info *d, enum gb_precision pp)
{
	double spec = tera(d->peaks.spec[pp]);

	return isfinite(spec) ? spec : tera(d->peaks.max_clock[pp]);
}

/* "" for cuBLASLt, "_sgemm" for an own kernel: metric and check names */
static void impl_tag(char *buf, size_t len, const struct gemm_job *j)
{
	buf[0] = '\0';
	if (j->impl != GEMM_IMPL_CUBLASLT)
		snprintf(buf, len, "_%s", impl_names[j->impl]);
}

/*
 * A metric that is tflops over a fixed reference, in percent: the same
 * samples scaled, so it has tflops's median and spread (compare judges a
 * change by the spread; a single value would let noise in tflops fail it).
 */
static void add_percent_of(struct gb_bench_result *res, const char *name, int dev,
			   const struct gemm_job *j, double ref)
{
	double *pct = gb_xrealloc(NULL, sizeof(double) * (j->n_tflops ? j->n_tflops : 1));

	for (size_t i = 0; i < j->n_tflops; i++)
		pct[i] = 100 * j->tflops[i] / ref;
	gb_bench_add_metric(res, name, "%", GB_BETTER_HIGHER, dev, pct, j->n_tflops, NAN);
	free(pct);
}

/*
 * The metrics of one measured job. For an own kernel, cublas is the
 * cuBLASLt job of the same precision and shape from this run: the ratio of
 * medians becomes pct_of_cublas_<p>_<impl> (absent when cuBLASLt was not
 * measured). algo: algo_str() of the job, for the description.
 */
static void report_job(struct gb_bench_result *res, const struct gemm_dev *g,
		       const struct gemm_job *j, bool several, const struct gemm_job *cublas,
		       const char *algo)
{
	const struct gb_device_info *d = g->info;
	enum gb_precision pp = gb_gemm_peak_precision(j->prec, d->cc_major, d->cc_minor);
	const char *pn = gb_precision_name(j->prec), *unit = gb_gemm_rate_unit(j->prec);
	double maxc = tera(d->peaks.max_clock[pp]);
	char sfx[64], tag[16], name[160], shape[80];
	struct gb_metric *m;

	name_suffix(sfx, sizeof(sfx), j, several);
	impl_tag(tag, sizeof(tag), j);
	shape_str(shape, sizeof(shape), &j->s);
	snprintf(name, sizeof(name), "tflops_%s%s%s", pn, tag, sfx);
	m = gb_bench_add_metric(res, name, unit, GB_BETTER_HIGHER, g->dev, j->tflops, j->n_tflops,
				judged_peak(d, pp));
	if (j->impl == GEMM_IMPL_CUBLASLT)
		m->description = gb_strdupf("cuBLASLt %s GEMM %s (TN, 2mnk), %llu per sample%s; "
					    "peak: %s %s", pn, shape,
					    (unsigned long long)j->batch, algo,
					    isfinite(tera(d->peaks.spec[pp])) ? "spec sheet"
									      : "max clock",
					    gb_precision_name(pp));
	else
		m->description = gb_strdupf("gpubench's %s kernel, %s GEMM %s (TN, 2mnk), %llu "
					    "per sample; peak: %s %s", impl_names[j->impl], pn,
					    shape, (unsigned long long)j->batch,
					    isfinite(tera(d->peaks.spec[pp])) ? "spec sheet"
									      : "max clock",
					    gb_precision_name(pp));
	if (cublas && cublas->measured && cublas->n_tflops) {
		double ref = gb_percentile(cublas->tflops, cublas->n_tflops, 50);

		snprintf(name, sizeof(name), "pct_of_cublas_%s%s%s", pn, tag, sfx);
		if (ref > 0) {
			add_percent_of(res, name, g->dev, j, ref);
			m = gb_bench_find_metric(res, name, g->dev);
		} else {
			m = gb_bench_add_value(res, name, "%", GB_BETTER_HIGHER, g->dev, NAN, NAN);
		}
		m->description = gb_strdupf("tflops_%s%s%s's samples over the median of "
					    "cuBLASLt's tflops_%s%s, same run", pn, tag, sfx, pn,
					    sfx);
	}
	if (isfinite(maxc) && maxc > 0) {
		snprintf(name, sizeof(name), "pct_of_max_clock_peak_%s%s%s", pn, tag, sfx);
		add_percent_of(res, name, g->dev, j, maxc);
	}
	if (!j->tel.valid)
		return;
	if (isfinite(j->tel.sm_mhz_mean)) {
		double obs = tera(gb_peak_flops(d->cc_major, d->cc_minor, pp,
						gb_product_class_of(d->name, d->brand), d->sm_count,
						j->tel.sm_mhz_mean));

		if (isfinite(obs) && obs > 0) {
			snprintf(name, sizeof(name), "pct_of_observed_clock_peak_%s%s%s", pn, tag,
				 sfx);
			add_percent_of(res, name, g->dev, j, obs);
		}
		snprintf(name, sizeof(name), "sm_mhz_mean_%s%s%s", pn, tag, sfx);
		gb_bench_add_value(res, name, "MHz", GB_BETTER_NONE, g->dev, j->tel.sm_mhz_mean,
				   NAN);
	}
	if (isfinite(j->tel.power_w_mean)) {
		snprintf(name, sizeof(name), "power_w_mean_%s%s%s", pn, tag, sfx);
		gb_bench_add_value(res, name, "W", GB_BETTER_NONE, g->dev, j->tel.power_w_mean,
				   NAN);
	}
	if (isfinite(j->tel.temp_c_max)) {
		snprintf(name, sizeof(name), "temp_c_max_%s%s%s", pn, tag, sfx);
		gb_bench_add_value(res, name, "C", GB_BETTER_LOWER, g->dev, j->tel.temp_c_max, NAN);
	}
}

/* ", run-to-run CV 0.31% over 5 runs" with --repeat, for progress lines; else "" */
static void repeat_str(char *buf, size_t len, const struct gemm_job *j)
{
	double med[1000];  /* --repeat is at most 1000 */
	size_t n = j->n_runs < 1000 ? j->n_runs : 1000;

	buf[0] = '\0';
	if (n < 2)
		return;
	gb_gemm_run_medians(j->tflops, j->per_run, n, med);
	snprintf(buf, len, ", run-to-run CV %.2f%% over %zu runs", 100 * gb_gemm_cv(med, n), n);
}

/*
 * --repeat: the medians of the job's runs as run_median_tflops_<p> (their
 * spread in its stats) and their CV as run_cv_<p> in %, with a run_cv_<p>
 * check against issue 3's 1% once there are enough runs to judge. A spread
 * above it is a warning, not a failure: the results were right, the GPU
 * did not hold its rate from run to run (clocks, power, temperature).
 */
static void report_repeat(struct gb_bench_result *res, const struct gemm_dev *g,
			  const struct gemm_job *j, bool several)
{
	const char *pn = gb_precision_name(j->prec);
	char sfx[64], tag[16], name[160], shape[80], what[48];
	double med[1000], cv;  /* --repeat is at most 1000 */
	size_t n = j->n_runs < 1000 ? j->n_runs : 1000;
	struct gb_metric *m;

	if (n < 2)
		return;
	name_suffix(sfx, sizeof(sfx), j, several);
	impl_tag(tag, sizeof(tag), j);
	shape_str(shape, sizeof(shape), &j->s);
	job_label(what, sizeof(what), j);
	gb_gemm_run_medians(j->tflops, j->per_run, n, med);
	cv = gb_gemm_cv(med, n);
	snprintf(name, sizeof(name), "run_median_tflops_%s%s%s", pn, tag, sfx);
	m = gb_bench_add_metric(res, name, gb_gemm_rate_unit(j->prec), GB_BETTER_HIGHER, g->dev,
				med, n, NAN);
	m->description = gb_strdupf("median of each of %zu timed phases of %zu samples, back to "
				    "back after one warm-up", n, j->per_run);
	snprintf(name, sizeof(name), "run_cv_%s%s%s", pn, tag, sfx);
	m = gb_bench_add_value(res, name, "%", GB_BETTER_LOWER, g->dev, 100 * cv, NAN);
	m->description = gb_strdupf("coefficient of variation of run_median_tflops_%s%s%s", pn,
				    tag, sfx);
	switch (gb_gemm_run_cv_verdict(cv, n)) {
	case GB_GEMM_CV_WITHIN:
		gb_bench_add_check(res, name, GB_STATUS_PASSED, GB_SEV_INFO, g->dev, 100 * cv,
				   100 * GB_GEMM_RUN_CV_MAX,
				   "the medians of %zu runs of %s %s vary by %.2f%% (CV), within "
				   "%.0f%%", n, what, shape, 100 * cv, 100 * GB_GEMM_RUN_CV_MAX);
		break;
	case GB_GEMM_CV_ABOVE:
		gb_bench_add_check(res, name, GB_STATUS_WARNING, GB_SEV_WARNING, g->dev, 100 * cv,
				   100 * GB_GEMM_RUN_CV_MAX,
				   "the medians of %zu runs of %s %s vary by %.2f%% (CV), above "
				   "%.0f%%: the rate moved between runs (see clocks, power and "
				   "temperature)", n, what, shape, 100 * cv,
				   100 * GB_GEMM_RUN_CV_MAX);
		break;
	case GB_GEMM_CV_TOO_FEW:
		gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, g->dev, 100 * cv,
				   100 * GB_GEMM_RUN_CV_MAX,
				   "%zu runs of %s %s: judging the run-to-run CV takes at least %d",
				   n, what, shape, GB_GEMM_RUN_CV_MIN_RUNS);
		break;
	case GB_GEMM_CV_INVALID:
		gb_bench_add_check(res, name, GB_STATUS_ERROR, GB_SEV_ERROR, g->dev, NAN,
				   100 * GB_GEMM_RUN_CV_MAX,
				   "a run of %s %s has no median: no run-to-run CV", what, shape);
		break;
	}
}

static void report_verify(const struct gemm_params *p, struct gb_bench_result *res,
			  const struct gemm_dev *g, const struct gemm_job *j, bool several)
{
	char sfx[64], tag[16], name[160];

	name_suffix(sfx, sizeof(sfx), j, several);
	impl_tag(tag, sizeof(tag), j);
	snprintf(name, sizeof(name), "verify_%s%s%s", gb_precision_name(j->prec), tag, sfx);
	if (!p->verify) {
		gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, g->dev, NAN, NAN,
				   "verification disabled by --no-verify");
		return;
	}
	if (!j->ver.done)
		return;
	gb_bench_add_check(res, name, j->ver.status,
			   j->ver.status == GB_STATUS_PASSED ? GB_SEV_INFO : GB_SEV_ERROR, g->dev,
			   j->ver.max_err, j->ver.bound, "%s", j->ver.msg);
}

/*
 * A job failed: the GB_*_GOTO macros set the benchmark ERROR with the
 * reason. Record that as a check naming device, precision and shape so the
 * other jobs still run and are reported, and keep an earlier FAILED status:
 * a finding outranks a could-not-run.
 */
static void record_error(struct gb_bench_result *res, enum gb_status before, char *before_reason,
			 int dev, const char *name)
{
	char *why = gb_strdup(res->reason ? res->reason : "unknown error");

	if (before == GB_STATUS_FAILED) {
		res->status = GB_STATUS_FAILED;
		free(res->reason);
		res->reason = before_reason;
		before_reason = NULL;
	}
	gb_bench_add_check(res, name, GB_STATUS_ERROR, GB_SEV_ERROR, dev, NAN, NAN, "%s", why);
	free(why);
	free(before_reason);
}

static void job_failed(struct gb_bench_result *res, enum gb_status before, char *before_reason,
		       const struct gemm_dev *g, const struct gemm_job *j)
{
	char name[160], shape[80];

	shape_str(shape, sizeof(shape), &j->s);
	snprintf(name, sizeof(name), "run_%s_%s", gb_precision_name(j->prec), shape);
	record_error(res, before, before_reason, g->dev, name);
}

/*
 * After an error: true when the device's context is gone and nothing more can
 * run on it. It never blocks (a kernel that hangs is the watchdog's): a sticky
 * error is what every later call answers, so a query of the stream finds it.
 * cuBLASLt answers with its own status codes, so an error met there was not
 * yet judged as sticky: mark the GPU lost here, as gb_cuda_fail() would have.
 */
static bool device_lost(struct gb_bench_result *res, const struct gemm_dev *g)
{
	cudaError_t e = cudaGetLastError();

	if (e == cudaSuccess)
		e = cudaStreamQuery(g->stream);
	if (!gb_cuda_error_is_sticky(e))
		return false;
	if (!gb_bench_device_is_lost(res, g->dev))
		gb_cuda_fail(res, g->dev, "cudaStreamQuery(stream)", e, __FILE__, __LINE__);
	return true;
}

/* ---- normal mode: every precision x shape ---- */

static void note_skip(struct gemm_state *st, struct gb_bench_result *res, int dev,
		      enum gb_precision prec, const char *suffix, const char *reason)
{
	char name[160];

	snprintf(name, sizeof(name), "precision_%s%s", gb_precision_name(prec), suffix);
	gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, dev, NAN, NAN, "%s", reason);
	if (!st->skipped[0])
		snprintf(st->skipped, sizeof(st->skipped), "%s", reason);
}

static void note_impl_skip(struct gemm_state *st, struct gb_bench_result *res, int dev,
			   enum gemm_impl impl, enum gb_precision prec, const char *suffix,
			   const char *reason)
{
	char name[160];

	snprintf(name, sizeof(name), "impl_%s_%s%s", impl_names[impl], gb_precision_name(prec),
		 suffix);
	gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, dev, NAN, NAN, "%s", reason);
	if (!st->skipped[0])
		snprintf(st->skipped, sizeof(st->skipped), "%s", reason);
}

/* an own kernel's job on the buffers of the cuBLASLt job `base` (which keeps owning them) */
static void own_job_from(struct gemm_job *o, const struct gemm_job *base, enum gemm_impl impl,
			 const struct gemm_dev *g)
{
	memset(o, 0, sizeof(*o));
	o->impl = impl;
	o->prec = base->prec;
	o->s = base->s;
	o->t_ab = base->t_ab;
	o->t_d = base->t_d;
	o->flops = base->flops;
	o->copies = base->copies;
	o->copies_wanted = base->copies_wanted;
	o->a_bytes = base->a_bytes;
	o->b_bytes = base->b_bytes;
	o->d_bytes = base->d_bytes;
	o->a_stride = base->a_stride;
	o->b_stride = base->b_stride;
	o->a = base->a;
	o->b = base->b;
	o->d = base->d;
	o->best = 0;
	/* for the report only: the launcher computes the same plan itself */
	if (gb_own_gemm_plan(own_kind(impl), o->s.m, o->s.n, o->s.k, &g->own, &o->plan))
		memset(&o->plan, 0, sizeof(o->plan));
}

/* one own kernel, timed and verified like cuBLASLt; returns -1 when the device is lost */
static int run_own(struct gb_ctx *ctx, const struct gemm_params *p, struct gb_bench_result *res,
		   struct gemm_state *st, struct gemm_dev *g, const struct gemm_job *base,
		   enum gemm_impl impl, bool several, const struct job_mode *mode)
{
	struct gemm_job o;
	enum gb_status before = res->status;
	char *before_reason = gb_strdup(res->reason);
	char shape[80], name[160];
	int lost = 0;

	own_job_from(&o, base, impl, g);
	shape_str(shape, sizeof(shape), &o.s);
	if (run_phases(ctx, p, res, st, g, &o, mode)) {
		snprintf(name, sizeof(name), "run_%s_%s_%s", gb_precision_name(o.prec),
			 impl_names[impl], shape);
		record_error(res, before, before_reason, g->dev, name);
		before_reason = NULL;
		lost = device_lost(res, g) ? -1 : 0;
	}
	if (o.measured) {
		double med = gb_percentile(o.tflops, o.n_tflops, 50);
		char pct[48] = "", spread[64];

		if (base->measured)
			snprintf(pct, sizeof(pct), ", %.0f%% of cuBLASLt",
				 100 * med / gb_percentile(base->tflops, base->n_tflops, 50));
		report_job(res, g, &o, several, base, "");
		report_repeat(res, g, &o, several);
		report_verify(p, res, g, &o, several);
		cJSON_AddItemToArray(st->runs, job_json(st->lt, g, &o));
		st->ran++;
		repeat_str(spread, sizeof(spread), &o);
		gb_progress(ctx, "gemm: GPU %d %s %s %s: %.1f %s (median of %zu%s)%s%s%s", g->dev,
			    gb_precision_name(o.prec), impl_names[impl], shape, med,
			    gb_gemm_rate_unit(o.prec), o.n_tflops, pct, spread,
			    o.ver.done ? ", verification " : "",
			    o.ver.done ? gb_status_name(o.ver.status) : "");
	}
	job_release(&o);
	free(before_reason);
	return lost;
}

/*
 * The own kernels in `impls` (those that apply to the precision and the
 * device) on the cuBLASLt job's buffers, after it. A shape a kernel cannot
 * compute is a SKIPPED check; with no buffers (set-up failed, and said so)
 * nothing runs. Returns -1 when the device is lost.
 */
static int run_own_impls(struct gb_ctx *ctx, const struct gemm_params *p,
			 struct gb_bench_result *res, struct gemm_state *st, struct gemm_dev *g,
			 const struct gemm_job *base, bool ready, uint32_t impls, bool several,
			 const struct job_mode *mode)
{
	const struct gb_gemm_shape *s = &base->s;
	char err[256], sfx[64];

	for (int i = GEMM_IMPL_TILED; i < GEMM_N_IMPLS && !gb_should_stop(ctx); i++) {
		if (!(impls & (1u << i)))
			continue;
		if (gb_own_gemm_check_shape(own_kind(i), s->m, s->n, s->k, err, sizeof(err))) {
			name_suffix(sfx, sizeof(sfx), base, several);
			note_impl_skip(st, res, g->dev, i, base->prec, sfx, err);
			continue;
		}
		if (ready && run_own(ctx, p, res, st, g, base, i, several, mode))
			return -1;
	}
	return 0;
}

/*
 * cuBLASLt at one precision and shape, then the own kernels of own_impls
 * on the same inputs. Returns -1 when the device is lost.
 */
static int run_shape(struct gb_ctx *ctx, const struct gemm_params *p, struct gb_bench_result *res,
		     struct gemm_state *st, struct gemm_dev *g, enum gb_precision prec,
		     const struct gb_gemm_shape *s, bool several, uint32_t own_impls)
{
	struct job_mode mode = {
		.max_candidates = GEMM_CANDIDATES,
		.warmup_s = p->warmup_s,
		.duration_s = p->duration_s > 0 ? p->duration_s : GEMM_DEFAULT_DURATION_S,
		.repeat = p->repeat,
	};
	struct gemm_job j;
	enum gb_status before = res->status;
	char *before_reason = gb_strdup(res->reason);
	char shape[80], algo[160], spread[64];
	bool ready;
	int rc, lost = 0;

	memset(&j, 0, sizeof(j));
	j.impl = GEMM_IMPL_CUBLASLT;
	j.prec = prec;
	j.s = *s;
	j.best = -1;
	shape_str(shape, sizeof(shape), s);
	rc = job_setup(p, res, st->lt, g, &j);
	ready = rc == 0;
	if (!rc)
		rc = run_phases(ctx, p, res, st, g, &j, &mode);
	if (rc) {
		job_failed(res, before, before_reason, g, &j);
		before_reason = NULL;
		lost = device_lost(res, g) ? -1 : 0;
	}
	if (j.measured) {
		algo_str(algo, sizeof(algo), st->lt, &j);
		report_job(res, g, &j, several, NULL, algo);
		report_repeat(res, g, &j, several);
		report_verify(p, res, g, &j, several);
		cJSON_AddItemToArray(st->runs, job_json(st->lt, g, &j));
		st->ran++;
		repeat_str(spread, sizeof(spread), &j);
		gb_progress(ctx, "gemm: GPU %d %s %s: %.1f %s (median of %zu)%s%s%s%s", g->dev,
			    gb_precision_name(prec), shape, gb_percentile(j.tflops, j.n_tflops, 50),
			    gb_gemm_rate_unit(prec), j.n_tflops, algo, spread,
			    j.ver.done ? ", verification " : "",
			    j.ver.done ? gb_status_name(j.ver.status) : "");
	}
	if (!lost && own_impls)
		lost = run_own_impls(ctx, p, res, st, g, &j, ready, own_impls, several, &mode);
	job_teardown(&j);
	job_release(&j);
	free(before_reason);
	return lost;
}

/* ---- --search: one precision over a grid of shapes ---- */

struct search_acc {
	size_t done, verified, failed;
	size_t best;                   /* index into shapes, SIZE_MAX if none */
	double *best_samples;          /* owned: the best shape's samples */
	size_t best_n;
	double *medians;               /* per finished shape */
	char first_fail[512];
	double worst_ratio;            /* largest max_err / bound among verified runs */
	/* the re-runs of the best shapes with every candidate timed */
	size_t tuned_done, tuned_verified;
	size_t tuned_best;             /* index into shapes, SIZE_MAX if none */
	double tuned_median;
	double *tuned_samples;         /* owned: the best re-run's samples */
	size_t tuned_n;
	char tuned_algo[160];          /* algo_str() of the best re-run */
};

/* a run's verification outcome into the one verify_<p>_search check */
static void search_take_verify(struct search_acc *a, const struct gemm_job *j)
{
	if (!j->ver.done)
		return;
	a->verified++;
	if (j->ver.bound > 0)
		a->worst_ratio = fmax(a->worst_ratio, j->ver.max_err / j->ver.bound);
	if (j->ver.status != GB_STATUS_PASSED) {
		a->failed++;
		if (!a->first_fail[0])
			snprintf(a->first_fail, sizeof(a->first_fail), "%s", j->ver.msg);
	}
}

static void search_take(struct search_acc *a, struct gemm_job *j, size_t i, double median,
			const double *medians_by_shape)
{
	a->medians[a->done++] = median;
	if (a->best == SIZE_MAX || median > medians_by_shape[a->best]) {
		a->best = i;
		free(a->best_samples);
		a->best_samples = j->tflops;   /* ownership moves here */
		a->best_n = j->n_tflops;
		j->tflops = NULL;
	}
	search_take_verify(a, j);
}

static void search_take_tuned(struct search_acc *a, struct gemm_job *j, size_t i, double median,
			      const char *algo)
{
	a->tuned_done++;
	if (a->tuned_best == SIZE_MAX || median > a->tuned_median) {
		a->tuned_best = i;
		a->tuned_median = median;
		free(a->tuned_samples);
		a->tuned_samples = j->tflops;  /* ownership moves here */
		a->tuned_n = j->n_tflops;
		j->tflops = NULL;
		snprintf(a->tuned_algo, sizeof(a->tuned_algo), "%s", algo);
	}
	if (j->ver.done)
		a->tuned_verified++;
	search_take_verify(a, j);
}

static double geomean(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += log(v[i]);
	return n ? exp(s / (double)n) : NAN;
}

/* "best_m" (or "best_m_gpu1" with several GPUs) = the shape's m, and n, k */
static void best_params(struct gb_bench_result *res, const char *prefix, int dev,
			bool several_devices, const struct gb_gemm_shape *s)
{
	const uint64_t dims[3] = { s->m, s->n, s->k };
	static const char *const names[3] = { "m", "n", "k" };
	char key[64];

	for (int i = 0; i < 3; i++) {
		if (several_devices)
			snprintf(key, sizeof(key), "%s_%s_gpu%d", prefix, names[i], dev);
		else
			snprintf(key, sizeof(key), "%s_%s", prefix, names[i]);
		gb_bench_param_num(res, key, (double)dims[i]);
	}
}

/*
 * search_tuned_tflops_<p>: the best of the re-runs with every candidate
 * timed, beside the sweep's first-pick search_best_tflops_<p>.
 */
static void search_report_tuned(struct gb_bench_result *res, const struct gemm_dev *g,
				enum gb_precision prec, const struct gb_gemm_shape *shapes,
				const struct search_acc *a, bool several_devices)
{
	const struct gb_device_info *d = g->info;
	enum gb_precision pp = gb_gemm_peak_precision(prec, d->cc_major, d->cc_minor);
	char name[160], shape[80];
	struct gb_metric *m;

	if (!a->tuned_done)
		return;
	shape_str(shape, sizeof(shape), &shapes[a->tuned_best]);
	snprintf(name, sizeof(name), "search_tuned_tflops_%s", gb_precision_name(prec));
	m = gb_bench_add_metric(res, name, gb_gemm_rate_unit(prec), GB_BETTER_HIGHER, g->dev,
				a->tuned_samples, a->tuned_n, judged_peak(d, pp));
	m->description = gb_strdupf("best of the sweep's top %zu shapes, each re-run with the "
				    "fastest of up to %d cuBLASLt candidates: %s%s",
				    a->tuned_done, GEMM_CANDIDATES, shape, a->tuned_algo);
	best_params(res, "best_tuned", g->dev, several_devices, &shapes[a->tuned_best]);
}

static void search_report(const struct gemm_params *p, struct gb_bench_result *res,
			  const struct gemm_dev *g, enum gb_precision prec,
			  const struct gb_gemm_shape *shapes, const struct search_acc *a,
			  bool several_devices)
{
	const struct gb_device_info *d = g->info;
	enum gb_precision pp = gb_gemm_peak_precision(prec, d->cc_major, d->cc_minor);
	const char *pn = gb_precision_name(prec), *unit = gb_gemm_rate_unit(prec);
	char name[160], shape[80];
	struct gb_metric *m;
	double *sorted;

	if (!a->done)
		return;
	shape_str(shape, sizeof(shape), &shapes[a->best]);
	snprintf(name, sizeof(name), "search_best_tflops_%s", pn);
	m = gb_bench_add_metric(res, name, unit, GB_BETTER_HIGHER, g->dev, a->best_samples,
				a->best_n, judged_peak(d, pp));
	m->description = gb_strdupf("best of %zu shapes: %s (cuBLASLt heuristic's first algorithm)",
				    a->done, shape);
	sorted = malloc(sizeof(double) * a->done);
	if (sorted) {
		memcpy(sorted, a->medians, sizeof(double) * a->done);
		snprintf(name, sizeof(name), "search_median_tflops_%s", pn);
		gb_bench_add_value(res, name, unit, GB_BETTER_HIGHER, g->dev,
				   gb_percentile(sorted, a->done, 50), NAN);
		free(sorted);
	}
	snprintf(name, sizeof(name), "search_geomean_tflops_%s", pn);
	gb_bench_add_value(res, name, unit, GB_BETTER_HIGHER, g->dev, geomean(a->medians, a->done),
			   NAN);
	best_params(res, "best", g->dev, several_devices, &shapes[a->best]);
	search_report_tuned(res, g, prec, shapes, a, several_devices);
	snprintf(name, sizeof(name), "verify_%s_search", pn);
	if (!p->verify)
		gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, g->dev, NAN, NAN,
				   "verification disabled by --no-verify");
	else if (a->failed)
		gb_bench_add_check(res, name, GB_STATUS_FAILED, GB_SEV_ERROR, g->dev,
				   (double)a->failed, 0,
				   "%zu of %zu runs (shapes and tuned re-runs) failed "
				   "verification; first: %s", a->failed, a->verified,
				   a->first_fail);
	else if (a->verified)
		gb_bench_add_check(res, name, GB_STATUS_PASSED, GB_SEV_INFO, g->dev,
				   a->worst_ratio, 1,
				   "%zu shapes and %zu tuned re-runs match the FP64 reference; "
				   "worst error %.2f of its bound", a->verified - a->tuned_verified,
				   a->tuned_verified, a->worst_ratio);
}

/*
 * Re-run the sweep's best GB_GEMM_SEARCH_TUNE_SHAPES shapes as a normal run
 * measures one: a warm-up, every candidate of the heuristic timed, the
 * fastest kept. The sweep takes the heuristic's first pick per shape, as
 * mamf-finder does, and can sit a few percent below what cuBLASLt reaches on
 * its best shape; both numbers are reported. Returns -1 when the device is
 * lost.
 */
static int search_tune(struct gb_ctx *ctx, const struct gemm_params *p,
		       struct gb_bench_result *res, struct gemm_state *st, struct gemm_dev *g,
		       enum gb_precision prec, const struct gb_gemm_shape *shapes,
		       const double *by_shape, size_t n_shapes, struct search_acc *acc)
{
	struct job_mode mode = {
		.max_candidates = GEMM_CANDIDATES,
		.warmup_s = p->warmup_s,
		.duration_s = p->duration_s > 0 ? p->duration_s : GEMM_DEFAULT_DURATION_S,
		.repeat = 1,
	};
	size_t top[GB_GEMM_SEARCH_TUNE_SHAPES];
	size_t n_top = gb_gemm_top_k(by_shape, n_shapes, GB_GEMM_SEARCH_TUNE_SHAPES, top);
	const char *pn = gb_precision_name(prec);
	cJSON *tuned = cJSON_GetObjectItemCaseSensitive(gb_bench_extra(res), "search_tuned");
	int lost = 0;

	if (!tuned)
		tuned = cJSON_AddArrayToObject(gb_bench_extra(res), "search_tuned");
	if (n_top)
		gb_progress(ctx, "gemm: GPU %d search %s: re-running the best %zu shapes with "
			    "up to %d candidates each", g->dev, pn, n_top, GEMM_CANDIDATES);
	for (size_t t = 0; t < n_top && !lost && !gb_should_stop(ctx); t++) {
		struct gemm_job j;
		enum gb_status before = res->status;
		char *before_reason = gb_strdup(res->reason);
		char shape[80], algo[160];
		double med;
		cJSON *o;

		memset(&j, 0, sizeof(j));
		j.prec = prec;
		j.s = shapes[top[t]];
		j.best = -1;
		shape_str(shape, sizeof(shape), &j.s);
		if (run_job(ctx, p, res, st, g, &j, &mode)) {
			job_failed(res, before, before_reason, g, &j);
			lost = device_lost(res, g) ? -1 : 0;
		} else {
			free(before_reason);
		}
		if (j.measured) {
			med = gb_percentile(j.tflops, j.n_tflops, 50);
			algo_str(algo, sizeof(algo), st->lt, &j);
			o = job_json(st->lt, g, &j);
			cJSON_AddNumberToObject(o, "tflops", med);
			cJSON_AddNumberToObject(o, "first_pick_tflops", by_shape[top[t]]);
			cJSON_AddItemToArray(tuned, o);
			gb_progress(ctx, "gemm: GPU %d search %s tuned %s: %.1f %s (first pick "
				    "%.1f)%s%s%s", g->dev, pn, shape, med, gb_gemm_rate_unit(prec),
				    by_shape[top[t]], algo, j.ver.done ? ", verification " : "",
				    j.ver.done ? gb_status_name(j.ver.status) : "");
			search_take_tuned(acc, &j, top[t], med, algo);
		}
		job_release(&j);
	}
	return lost;
}

/* returns -1 when the device is lost */
static int run_search(struct gb_ctx *ctx, const struct gemm_params *p, struct gb_bench_result *res,
		      struct gemm_state *st, struct gemm_dev *g, enum gb_precision prec,
		      const struct gb_gemm_shape *shapes, size_t n_shapes, bool several_devices)
{
	struct job_mode mode = {
		.max_candidates = 1,  /* MAMF's practice: the library's default pick per shape */
		.warmup_s = p->warmup_s,
		.duration_s = p->duration_s > 0 ? p->duration_s : GEMM_SEARCH_DURATION_S,
		.repeat = 1,
	};
	struct search_acc acc = { .best = SIZE_MAX, .tuned_best = SIZE_MAX };
	double *by_shape = calloc(n_shapes, sizeof(double));
	char sname[160], shape[80], err[256];
	struct gb_series *series;
	cJSON *grid;
	int lost = 0;

	acc.medians = calloc(n_shapes, sizeof(double));
	if (!by_shape || !acc.medians) {
		free(by_shape);
		free(acc.medians);
		return 0;
	}
	snprintf(sname, sizeof(sname), "search_tflops_%s", gb_precision_name(prec));
	series = gb_bench_add_series(res, sname, "shape", gb_gemm_rate_unit(prec), g->dev);
	grid = cJSON_GetObjectItemCaseSensitive(gb_bench_extra(res), "search");
	if (!grid)
		grid = cJSON_AddArrayToObject(gb_bench_extra(res), "search");
	for (size_t i = 0; i < n_shapes && !gb_should_stop(ctx) && !lost; i++) {
		struct gemm_job j;
		enum gb_status before = res->status;
		char *before_reason;
		cJSON *o;

		shape_str(shape, sizeof(shape), &shapes[i]);
		if (gb_gemm_check_shape(prec, shapes[i].m, shapes[i].n, shapes[i].k, err,
					sizeof(err))) {
			char sfx[96];

			snprintf(sfx, sizeof(sfx), "_%s", shape);
			note_skip(st, res, g->dev, prec, sfx, err);
			continue;
		}
		gb_progress(ctx, "gemm: GPU %d search %s shape %zu of %zu: %s", g->dev,
			    gb_precision_name(prec), i + 1, n_shapes, shape);
		memset(&j, 0, sizeof(j));
		j.prec = prec;
		j.s = shapes[i];
		j.best = -1;
		before_reason = gb_strdup(res->reason);
		if (run_job(ctx, p, res, st, g, &j, &mode)) {
			job_failed(res, before, before_reason, g, &j);
			lost = device_lost(res, g) ? -1 : 0;
		} else {
			free(before_reason);
		}
		/* the GPU is warm after the first shape: later ones only settle */
		mode.warmup_s = fmin(p->warmup_s, GEMM_SEARCH_WARMUP_S);
		if (j.measured) {
			by_shape[i] = gb_percentile(j.tflops, j.n_tflops, 50);
			gb_series_push(series, (double)i, by_shape[i]);
			o = job_json(st->lt, g, &j);
			cJSON_AddNumberToObject(o, "tflops", by_shape[i]);
			cJSON_AddItemToArray(grid, o);
			search_take(&acc, &j, i, by_shape[i], by_shape);
		}
		job_release(&j);
	}
	if (acc.done && !lost && !gb_should_stop(ctx))
		lost = search_tune(ctx, p, res, st, g, prec, shapes, by_shape, n_shapes, &acc);
	if (acc.done) {
		search_report(p, res, g, prec, shapes, &acc, several_devices);
		st->ran++;
	}
	free(acc.tuned_samples);
	free(acc.best_samples);
	free(acc.medians);
	free(by_shape);
	return lost;
}

/* ---- per device ---- */

/* every precision the device supports except fp16acc16, which must be asked for */
static uint32_t default_precisions(const struct gb_device_info *d, bool search)
{
	uint32_t mask = 0;

	if (search)
		return 1u << gb_gemm_prec_index(GB_PREC_BF16);
	for (int i = 0; i < GB_GEMM_N_PRECS; i++)
		if (gb_gemm_precs[i] != GB_PREC_FP16_ACC16 &&
		    gb_gemm_prec_supported(gb_gemm_precs[i], d->cc_major, d->cc_minor))
			mask |= 1u << i;
	return mask;
}

static void device_teardown(const struct gb_cublaslt *lt, struct gemm_dev *g)
{
	(void)gb_wgmma_release(); /* wgmma's padded-k scratch of this (current) device */
	cudaFree(g->workspace);
	if (g->lt)
		lt->cublasLtDestroy(g->lt);
	if (g->ev1)
		cudaEventDestroy(g->ev1);
	if (g->ev0)
		cudaEventDestroy(g->ev0);
	if (g->stream)
		cudaStreamDestroy(g->stream);
}

/* the precisions the own kernels in impls compute, as a gb_gemm_precs mask */
static uint32_t own_precisions(uint32_t impls)
{
	uint32_t mask = 0;

	for (int i = GEMM_IMPL_TILED; i < GEMM_N_IMPLS; i++)
		for (int k = 0; k < GB_GEMM_N_PRECS && (impls & (1u << i)); k++)
			if (gb_own_gemm_runs_prec(own_kind(i), gb_gemm_precs[k]))
				mask |= 1u << k;
	return mask;
}

/*
 * The precisions to run on g: requested (or default) and supported; the rest
 * become SKIPPED checks. Without --precision, a run of own kernels alone
 * (cublaslt not named in --impl) defaults to the precisions they compute.
 */
static uint32_t runnable_precisions(const struct gemm_params *p, struct gb_bench_result *res,
				    struct gemm_state *st, const struct gemm_dev *g)
{
	uint32_t mask = prec_mask(p) ? prec_mask(p) : default_precisions(g->info, p->search);
	char buf[256];

	if (!prec_mask(p) && !(impl_mask(p) & (1u << GEMM_IMPL_CUBLASLT)) &&
	    own_precisions(impl_mask(p)))
		mask &= own_precisions(impl_mask(p));

	for (int i = 0; i < GB_GEMM_N_PRECS; i++) {
		const char *why;

		if (!(mask & (1u << i)))
			continue;
		why = gb_gemm_unsupported_reason(gb_gemm_precs[i], g->info->cc_major,
						 g->info->cc_minor, g->dev, buf, sizeof(buf));
		if (why) {
			note_skip(st, res, g->dev, gb_gemm_precs[i], "", why);
			mask &= ~(1u << i);
		}
	}
	return mask;
}

/*
 * For each precision in mask, the own kernels of --impl that can run it on
 * g (own[i], a mask over enum gemm_impl); the rest become SKIPPED checks
 * impl_<impl>_<p> naming the reason.
 */
static void runnable_impls(const struct gemm_params *p, struct gb_bench_result *res,
			   struct gemm_state *st, const struct gemm_dev *g, uint32_t mask,
			   uint32_t own[GB_GEMM_N_PRECS])
{
	char buf[256];

	for (int i = 0; i < GB_GEMM_N_PRECS; i++) {
		own[i] = 0;
		if (!(mask & (1u << i)) || p->search)
			continue;
		for (int k = GEMM_IMPL_TILED; k < GEMM_N_IMPLS; k++) {
			const char *why;

			if (!(impl_mask(p) & (1u << k)))
				continue;
			why = gb_own_gemm_unsupported_reason(own_kind(k), gb_gemm_precs[i],
							     g->info->cc_major, g->info->cc_minor,
							     g->dev, buf, sizeof(buf));
			if (why)
				note_impl_skip(st, res, g->dev, k, gb_gemm_precs[i], "", why);
			else
				own[i] |= 1u << k;
		}
	}
}

/* the shared-memory limits of the current device, for own kernels' launch shapes */
static void own_device(struct gemm_dev *g)
{
	if (gb_own_gemm_device_query(&g->own) != cudaSuccess) {
		/* only the report's kernel object needs them: zeros, and the error forgotten */
		(void)cudaGetLastError();
		memset(&g->own, 0, sizeof(g->own));
		g->own.cc_major = g->info->cc_major;
		g->own.cc_minor = g->info->cc_minor;
	}
}

static void run_device(struct gb_ctx *ctx, const struct gemm_params *p,
		       struct gb_bench_result *res, struct gemm_state *st, size_t slot,
		       const struct gb_gemm_shape *shapes, size_t n_shapes)
{
	struct gemm_dev g = { .dev = ctx->devices[slot], .slot = slot };
	enum gb_status before = res->status;
	char *before_reason = gb_strdup(res->reason);
	bool several = n_shapes > 1, lost = false;
	char buf[256], sfx[64], name[64];
	uint32_t mask = 0, own[GB_GEMM_N_PRECS];
	int rc = 0;

	g.info = gb_run_find_device(ctx->run, g.dev);
	if (!g.info) {
		gb_bench_set_status(res, GB_STATUS_ERROR,
				    "device %d is not among the run's devices", g.dev);
		rc = -1;
		goto out;
	}
	/* decide before touching the GPU: a device with nothing to run gets no context */
	mask = runnable_precisions(p, res, st, &g);
	if (!mask)
		goto out;
	runnable_impls(p, res, st, &g, mask, own);
	GB_CUDA_GOTO(res, cudaSetDevice(g.dev), out);
	own_device(&g);
	GB_CUDA_GOTO(res, cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking), out);
	/* blocking sync: the host sleeps through long batches instead of spinning */
	GB_CUDA_GOTO(res, cudaEventCreateWithFlags(&g.ev0, cudaEventBlockingSync), out);
	GB_CUDA_GOTO(res, cudaEventCreateWithFlags(&g.ev1, cudaEventBlockingSync), out);
	GB_CUBLASLT_GOTO(res, st->lt->cublasLtCreate(&g.lt), out);
	GB_CUDA_GOTO(res, cudaMalloc(&g.workspace, GEMM_WORKSPACE_BYTES), out);

	for (int i = 0; i < GB_GEMM_N_PRECS && !lost && !gb_should_stop(ctx); i++) {
		enum gb_precision prec = gb_gemm_precs[i];

		if (!(mask & (1u << i)))
			continue;
		if (p->search) {
			lost = run_search(ctx, p, res, st, &g, prec, shapes, n_shapes,
					  ctx->n_devices > 1) != 0;
			continue;
		}
		for (size_t s = 0; s < n_shapes && !lost && !gb_should_stop(ctx); s++) {
			struct gemm_job shape_only = { .prec = prec, .s = shapes[s] };

			if (gb_gemm_check_shape(prec, shapes[s].m, shapes[s].n, shapes[s].k, buf,
						sizeof(buf))) {
				name_suffix(sfx, sizeof(sfx), &shape_only, several);
				note_skip(st, res, g.dev, prec, sfx, buf);
				continue;
			}
			lost = run_shape(ctx, p, res, st, &g, prec, &shapes[s], several,
					 own[i]) != 0;
		}
	}
	if (lost) {
		/* device_lost() marked it FAILED with the error; say what that cost */
		gb_bench_add_check(res, GB_CHECK_LOST_GPU_SKIPPED, GB_STATUS_SKIPPED, GB_SEV_INFO,
				   g.dev, NAN, NAN, "GPU %d is lost; its remaining precisions and "
				   "shapes were not run", g.dev);
	}
out:
	if (mask)
		device_teardown(st->lt, &g);
	if (rc) {
		snprintf(name, sizeof(name), "device_%d", g.dev);
		record_error(res, before, before_reason, g.dev, name);
	} else {
		free(before_reason);
	}
}

/* ---- the benchmark ---- */

static void list_str(char *buf, size_t len, const struct gb_int_list *l, int64_t dflt)
{
	size_t pos = 0;

	buf[0] = '\0';
	if (!l->n) {
		snprintf(buf, len, "%lld", (long long)dflt);
		return;
	}
	for (size_t i = 0; i < l->n && pos < len; i++)
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%llu", i ? "," : "",
					(unsigned long long)l->v[i]);
}

static void record_params(const struct gemm_params *p, struct gb_bench_result *res,
			  size_t n_shapes, const struct gb_gemm_shape *shapes)
{
	char buf[2048];
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; i < GB_GEMM_N_PRECS; i++)
		if (prec_mask(p) & (1u << i))
			pos += (size_t)snprintf(buf + pos, sizeof(buf) - pos, "%s%s",
						pos ? "," : "", gb_gemm_prec_choices[i]);
	gb_bench_param_str(res, "precision", prec_all(p) ? "all" : prec_mask(p) ? buf : "auto");
	pos = 0;
	buf[0] = '\0';
	for (int i = 0; i < GEMM_N_IMPLS; i++)
		if (impl_mask(p) & (1u << i))
			pos += (size_t)snprintf(buf + pos, sizeof(buf) - pos, "%s%s",
						pos ? "," : "", impl_names[i]);
	gb_bench_param_str(res, "impl", buf);
	if (n_shapes == 1) {
		gb_bench_param_num(res, "m", (double)shapes[0].m);
		gb_bench_param_num(res, "n", (double)shapes[0].n);
		gb_bench_param_num(res, "k", (double)shapes[0].k);
	} else if (p->search && !p->m.n && !p->n.n && !p->k.n) {
		gb_bench_param_str(res, "shapes", "default search grid");
	} else {
		list_str(buf, sizeof(buf), &p->m, p->size);
		gb_bench_param_str(res, "m", buf);
		list_str(buf, sizeof(buf), &p->n, p->size);
		gb_bench_param_str(res, "n", buf);
		list_str(buf, sizeof(buf), &p->k, p->size);
		gb_bench_param_str(res, "k", buf);
	}
	gb_bench_param_num(res, "n_shapes", (double)n_shapes);
	gb_bench_param_num(res, "iters", (double)p->iters);
	gb_bench_param_num(res, "duration_s", p->duration_s > 0 ? p->duration_s
					      : p->search ? GEMM_SEARCH_DURATION_S
							  : GEMM_DEFAULT_DURATION_S);
	gb_bench_param_num(res, "warmup_s", p->warmup_s);
	gb_bench_param_num(res, "samples", (double)p->samples);
	gb_bench_param_num(res, "repeat", (double)p->repeat);
	gb_bench_param_bool(res, "search", p->search);
	gb_bench_param_bool(res, "verify", p->verify);
	gb_bench_param_num(res, "seed", (double)p->seed);
	gb_bench_param_num(res, "workspace_bytes", GEMM_WORKSPACE_BYTES);
	gb_bench_param_num(res, "candidates", p->search ? 1 : GEMM_CANDIDATES);
	gb_bench_param_num(res, "preselect_warmup_s",
			   gb_gemm_preselect_warmup_s(p->warmup_s, GEMM_CANDIDATES));
	if (p->search) {
		gb_bench_param_num(res, "search_tuned_shapes", GB_GEMM_SEARCH_TUNE_SHAPES);
		gb_bench_param_num(res, "search_tuned_candidates", GEMM_CANDIDATES);
	}
	gb_bench_param_str(res, "layout", "TN (D = A^T B, column-major)");
	gb_bench_param_str(res, "data",
			   "uniform [-1, 1] from the seed; int8 integers in [-64, 64]");
	gb_bench_param_str(res, "flop_count", "2*m*n*k per GEMM");
	gb_bench_param_str(res, "rotation",
			   "copies of A and B totalling >= 2x L2, at least 2, as many as fit "
			   "in free memory less max(1/16, 16 MiB) of it");
}

/* the throughput metrics peers are compared on: "tflops_bf16", "tops_int8", per shape too */
static bool gemm_rate_metric(const struct gb_metric *m)
{
	return !strncmp(m->name, "tflops_", 7) || !strncmp(m->name, "tops_", 5);
}

/* "tflops_bf16" says "bf16" in a message */
static const char *gemm_rate_what(const char *name)
{
	const char *u = strchr(name, '_');

	return u ? u + 1 : name;
}

static int gemm_run(struct gb_ctx *ctx, const void *pv, struct gb_bench_result *res)
{
	const struct gemm_params *p = pv;
	struct gemm_state st;
	struct gb_gemm_shape *shapes = NULL;
	size_t n_shapes;
	char err[768], ver[32];
	int rc = 0;

	memset(&st, 0, sizeof(st));
	n_shapes = gemm_shapes(p, NULL, 0);
	shapes = malloc(sizeof(*shapes) * (n_shapes ? n_shapes : 1));
	if (!shapes) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "out of host memory");
		return -1;
	}
	gemm_shapes(p, shapes, n_shapes);
	record_params(p, res, n_shapes, shapes);
	if (gb_cublaslt_load(err, sizeof(err))) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "%s", err);
		rc = -1;
		goto out;
	}
	st.lt = gb_cublaslt();
	snprintf(ver, sizeof(ver), "%zu.%zu.%zu", st.lt->version / 10000,
		 st.lt->version / 100 % 100, st.lt->version % 100);
	gb_bench_param_str(res, "cublaslt_version", ver);
	st.runs = cJSON_AddArrayToObject(gb_bench_extra(res), "runs");
	st.hint = malloc(sizeof(double) * (ctx->n_devices ? ctx->n_devices : 1));
	if (!st.hint) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "out of host memory");
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < ctx->n_devices; i++)
		st.hint[i] = NAN;
	st.sampler = gb_sampler_start(ctx, ctx->devices, ctx->n_devices, GEMM_TELEMETRY_INTERVAL_S,
				      st.hint);
	gb_bench_param_bool(res, "telemetry", st.sampler != NULL);
	for (size_t i = 0; i < ctx->n_devices && !gb_should_stop(ctx); i++)
		run_device(ctx, p, res, &st, i, shapes, n_shapes);
	gb_sampler_stop(st.sampler);
	/* GPUs of one model against each other: one slow GPU clears its own limit */
	gb_peer_checks(res, ctx->run, gemm_rate_metric, gemm_rate_what, p->peer_tol);
	/* skipped is not failed, and nothing measured is never a pass */
	if (!st.ran && res->status == GB_STATUS_PASSED && !gb_should_stop(ctx))
		gb_bench_set_status(res, GB_STATUS_SKIPPED, "%s",
				    st.skipped[0] ? st.skipped : "nothing to measure");
	if (res->status == GB_STATUS_ERROR)
		rc = -1;
out:
	free((void *)st.hint);
	free(shapes);
	return rc;
}

const struct gb_bench gb_bench_gemm = {
	.name = "gemm",
	.summary = "matrix-multiply throughput per precision (cuBLASLt) vs peak, verified",
	.usage = "gpubench gemm [options]",
	.opts = gemm_opts,
	.params_size = sizeof(struct gemm_params),
	.set_defaults = gemm_set_defaults,
	.validate = gemm_validate,
	.supported = NULL,  /* per precision and device, at run time: SKIPPED checks */
	.run = gemm_run,
	.flags = GB_BENCH_NEEDS_GPU,
};
