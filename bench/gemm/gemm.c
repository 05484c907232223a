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
 * cuBLASLt is loaded with dlopen (bench/device/cublaslt_dl.c): when it is missing
 * the benchmark is an ERROR, the binary still starts and reports.
 *
 * --impl adds gpubench's own kernels (kernels/own_gemm.h, docs/kernels.md):
 * each runs on the job's buffers right after cuBLASLt (which always runs:
 * it is the yardstick), with the same warm-up, timing and verification
 * passes, and is reported as tflops_<p>_<impl> and pct_of_cublas_<p>_<impl>.
 * A kernel that does not apply to a precision, device or shape is a
 * SKIPPED check saying why.
 *
 * This file holds the options, the per-device loop and the entry;
 * bench/gemm/gemm_internal.h lists the files that hold the rest.
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
#include "bench/device/cublaslt_dl.h"
#include "bench/gemm/gemm_internal.h"
#include "bench/gemm/gemm_math.h"
#include "bench/device/peer_math.h"
#include "bench/device/gpu.h"
#include "bench/device/lost_math.h"
#include "bench/device/lt_matmul.h"
#include "bench/device/nvml.h"
#include "kernels/own_gemm_math.h"
#include "bench/device/telemetry.h"
#include "kernels/kernels.h"
#include "report/theory.h"

/* ---- options ---- */

/* --impl's choices (GEMM_IMPL_ALIAS_CUBLAS: bench/gemm/gemm_internal.h) */
const char *const impl_names[GEMM_N_IMPLS + 2] = { "cublaslt", "tiled", "sgemm", "mma",
							  "wgmma", "cublas", NULL };
_Static_assert(GEMM_N_IMPLS == GB_OWN_COUNT + 1, "one --impl name per own kernel");

enum gb_own_gemm own_kind(enum gemm_impl i)
{
	return (enum gb_own_gemm)(i - GEMM_IMPL_TILED);
}

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
