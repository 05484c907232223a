/* SPDX-License-Identifier: MIT */
/*
 * gemm_verify.c - the verification pass of a gemm job: poison D, one
 * GEMM, an FP64 reference on a sample of outputs compared on the device
 * against a bound (bench/gemm/gemm_math.h, kernels/kernels.h), and the
 * --inject-fault test hook. Uses gemm_job.c's launches.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm/gemm_internal.h"
#include "bench/device/gpu.h"
#include "kernels/kernels.h"

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
bool chosen_algo_config(const struct gb_cublaslt *lt, const struct gemm_job *j,
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
int job_verify(const struct gemm_params *p, struct gb_bench_result *res,
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

