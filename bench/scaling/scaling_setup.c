/* SPDX-License-Identifier: MIT */
/*
 * scaling_setup.c - what a `gpubench scaling` run sets up before it
 * measures and tears down after: the worker list, the precision, the plan
 * of a step, the libraries, and each worker's streams, events, cuBLASLt
 * GEMM and buffers (main thread). Uses CUDA, cuBLASLt, NCCL's loader and
 * bench/scaling/scaling_internal.h; never prints, never exits.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/scaling/scaling_internal.h"
#include "kernels/kernels.h"

#if GPUBENCH_HAVE_NCCL
#include "bench/device/nccl_dl.h"
#endif

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

/* The GEMM of every step: n x n x n, TN layout (as bench/gemm/gemm.c), cuBLASLt's first pick. */
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

/* ---- the benchmark ---- */

/* The worker list: --devices of this command (repeats allowed), else the run's devices. */
int sc_resolve_workers(struct sc *s)
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
void sc_choose_precision(struct sc *s)
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
		if (sc_mode_for(s, (int)i + 1) == AR_NCCL)
			return true;
	return false;
}

int sc_load_libraries(struct sc *s)
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
int sc_plan_setup(struct sc *s)
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

int sc_setup_all(struct sc *s)
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

void sc_teardown_all(struct sc *s)
{
	for (size_t i = 0; s->w && i < s->n_workers; i++)
		worker_teardown(s, &s->w[i]);
	for (size_t i = 0; s->ph && i < s->n_workers; i++)
		free(s->ph[i].step_s);
	free(s->ph);
	free(s->w);
}
