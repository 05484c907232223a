/* SPDX-License-Identifier: MIT */
/*
 * gemm_job.c - one gemm job on one device: its buffers and cuBLASLt
 * descriptors, launches (cuBLASLt or an own kernel), the timing of the
 * heuristic's candidates, the warm-up until clocks settle and the timed
 * phases, in the order bench/gemm/gemm.c's opening comment gives. Uses the
 * device layer (bench/device/gpu.h, bench/device/telemetry.h), cuBLASLt through
 * bench/device/cublaslt_dl.h and bench/device/lt_matmul.h, kernels/kernels.h, and
 * gemm_verify.c for the verification pass.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/gemm/gemm_internal.h"
#include "bench/device/gpu.h"
#include "kernels/kernels.h"

void shape_str(char *buf, size_t len, const struct gb_gemm_shape *s)
{
	snprintf(buf, len, "%llux%llux%llu", (unsigned long long)s->m, (unsigned long long)s->n,
		 (unsigned long long)s->k);
}

/* "fp32" for cuBLASLt, "fp32 sgemm" for an own kernel: messages name what ran */
void job_label(char *buf, size_t len, const struct gemm_job *j)
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

int dev_alloc(struct gb_bench_result *res, const struct gemm_dev *g,
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

void job_teardown(struct gemm_job *j)
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

int job_setup(const struct gemm_params *p, struct gb_bench_result *res,
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
cublasStatus_t gemm_once(const struct gemm_dev *g, struct gemm_job *j, int cand,
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
void launch_failed(struct gb_bench_result *res, const struct gemm_job *j,
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
int run_phases(struct gb_ctx *ctx, const struct gemm_params *p,
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

int run_job(struct gb_ctx *ctx, const struct gemm_params *p, struct gb_bench_result *res,
	    struct gemm_state *st, struct gemm_dev *g, struct gemm_job *j,
	    const struct job_mode *mode)
{
	int rc = job_setup(p, res, st->lt, g, j);

	if (!rc)
		rc = run_phases(ctx, p, res, st, g, j, mode);
	job_teardown(j);
	return rc;
}

void job_release(struct gemm_job *j)
{
	free(j->tflops);
	j->tflops = NULL;
}

