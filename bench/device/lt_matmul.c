/* SPDX-License-Identifier: MIT */
/*
 * lt_matmul.c - the shared cuBLASLt TN GEMM set-up; see lt_matmul.h.
 */
#include "bench/device/lt_matmul.h"

#include <string.h>

#include "bench/device/lt_names.h"

/*
 * gpubench_core names tiles and stages from bench/device/lt_names.h without
 * cublasLt.h; here, where the header is at hand, every entry is held to it,
 * so a renumbered or misspelt name fails the build rather than a report.
 */
#define GB_LT_CHECK_TILE(name, value) \
	_Static_assert(CUBLASLT_MATMUL_TILE_##name == (value), "tile " #name);
#define GB_LT_CHECK_STAGES(name, value) \
	_Static_assert(CUBLASLT_MATMUL_STAGES_##name == (value), "stages " #name);
GB_LT_TILES(GB_LT_CHECK_TILE)
GB_LT_STAGES(GB_LT_CHECK_STAGES)
#undef GB_LT_CHECK_TILE
#undef GB_LT_CHECK_STAGES
_Static_assert(CUBLASLT_MATMUL_TILE_UNDEFINED == 0 && CUBLASLT_MATMUL_STAGES_UNDEFINED == 0,
	       "0 reads as undefined");
/* a newer header may append names (they read as unknown), never end before ours */
_Static_assert(GB_LT_TILE_END <= CUBLASLT_MATMUL_TILE_END, "tile list past the header's end");
_Static_assert(GB_LT_STAGES_END <= CUBLASLT_MATMUL_STAGES_END, "stages list past the header's end");

void gb_lt_precision(enum gb_precision p, struct gb_lt_precision *out)
{
	memset(out, 0, sizeof(*out));
	switch (p) {
	case GB_PREC_FP64:
	case GB_PREC_FP64_TC:
		out->compute = CUBLAS_COMPUTE_64F;
		out->scale = CUDA_R_64F;
		out->alpha.f64 = 1.0;
		return;
	case GB_PREC_FP16_ACC16:
		/* COMPUTE_16F takes half alpha and beta: a float 1.0f would read as 0 */
		out->compute = CUBLAS_COMPUTE_16F;
		out->scale = CUDA_R_16F;
		out->alpha.f16 = 0x3C00;  /* 1.0 */
		return;
	case GB_PREC_INT8:
		/* COMPUTE_32I with CUDA_R_32I scale: int32 alpha and beta */
		out->compute = CUBLAS_COMPUTE_32I;
		out->scale = CUDA_R_32I;
		out->alpha.i32 = 1;
		return;
	case GB_PREC_TF32:
		out->compute = CUBLAS_COMPUTE_32F_FAST_TF32;
		break;
	case GB_PREC_FP32:  /* plain FP32: never let it become TF32 */
	case GB_PREC_FP16:
	case GB_PREC_BF16:
	case GB_PREC_FP8:
	default:
		out->compute = CUBLAS_COMPUTE_32F;
		break;
	}
	out->scale = CUDA_R_32F;
	out->alpha.f32 = 1.0f;
}

cudaDataType_t gb_lt_cuda_type(enum gb_dtype t)
{
	switch (t) {
	case GB_DT_F64:
		return CUDA_R_64F;
	case GB_DT_F16:
		return CUDA_R_16F;
	case GB_DT_BF16:
		return CUDA_R_16BF;
	case GB_DT_E4M3:
		return CUDA_R_8F_E4M3;
	case GB_DT_I8:
		return CUDA_R_8I;
	case GB_DT_I32:
		return CUDA_R_32I;
	case GB_DT_F32:
	default:
		return CUDA_R_32F;
	}
}

cublasStatus_t gb_lt_matmul_create(const struct gb_cublaslt *lt, struct gb_lt_matmul *mm,
				   enum gb_precision p, enum gb_dtype t_ab, enum gb_dtype t_cd,
				   uint64_t m, uint64_t n, uint64_t k, const float *ab_scale,
				   uint64_t workspace_bytes, const char **what)
{
	cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	cudaDataType_t ab = gb_lt_cuda_type(t_ab), cd = gb_lt_cuda_type(t_cd);
	const char *step = NULL;
	cublasStatus_t st = CUBLAS_STATUS_SUCCESS;

	mm->lt = lt;
	gb_lt_precision(p, &mm->prec);
#define GB_LT_STEP(name, call)                      \
	do {                                        \
		step = name;                        \
		if ((st = (call)) != CUBLAS_STATUS_SUCCESS) \
			goto out;                   \
	} while (0)
	GB_LT_STEP("cublasLtMatmulDescCreate",
		   lt->cublasLtMatmulDescCreate(&mm->op, mm->prec.compute, mm->prec.scale));
	GB_LT_STEP("cublasLtMatmulDescSetAttribute(TRANSA)",
		   lt->cublasLtMatmulDescSetAttribute(mm->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
						      sizeof(ta)));
	GB_LT_STEP("cublasLtMatmulDescSetAttribute(TRANSB)",
		   lt->cublasLtMatmulDescSetAttribute(mm->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
						      sizeof(tb)));
	if (t_ab == GB_DT_E4M3) {
		/* the attribute's value is the device pointer itself */
		const void *sp = ab_scale;

		step = "FP8 A/B scale (no device pointer given)";
		if (!sp) {
			st = CUBLAS_STATUS_INVALID_VALUE;
			goto out;
		}
		GB_LT_STEP("cublasLtMatmulDescSetAttribute(A_SCALE_POINTER)",
			   lt->cublasLtMatmulDescSetAttribute(
				   mm->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sp, sizeof(sp)));
		GB_LT_STEP("cublasLtMatmulDescSetAttribute(B_SCALE_POINTER)",
			   lt->cublasLtMatmulDescSetAttribute(
				   mm->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sp, sizeof(sp)));
	}
	/* TN: A is k x m (op(A) = A^T is m x k), B is k x n, C = D is m x n */
	GB_LT_STEP("cublasLtMatrixLayoutCreate(A)",
		   lt->cublasLtMatrixLayoutCreate(&mm->la, ab, k, m, (int64_t)k));
	GB_LT_STEP("cublasLtMatrixLayoutCreate(B)",
		   lt->cublasLtMatrixLayoutCreate(&mm->lb, ab, k, n, (int64_t)k));
	GB_LT_STEP("cublasLtMatrixLayoutCreate(C/D)",
		   lt->cublasLtMatrixLayoutCreate(&mm->lc, cd, m, n, (int64_t)m));
	/* the preference's default workspace is 0, which rules out split-K and stream-K kernels */
	GB_LT_STEP("cublasLtMatmulPreferenceCreate", lt->cublasLtMatmulPreferenceCreate(&mm->pref));
	GB_LT_STEP("cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)",
		   lt->cublasLtMatmulPreferenceSetAttribute(
			   mm->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
			   sizeof(workspace_bytes)));
#undef GB_LT_STEP
	step = NULL;
out:
	if (what)
		*what = step;
	return st;
}

void gb_lt_matmul_destroy(struct gb_lt_matmul *mm)
{
	const struct gb_cublaslt *lt = mm->lt;

	/* reverse order of creation */
	if (lt && mm->pref)
		lt->cublasLtMatmulPreferenceDestroy(mm->pref);
	if (lt && mm->lc)
		lt->cublasLtMatrixLayoutDestroy(mm->lc);
	if (lt && mm->lb)
		lt->cublasLtMatrixLayoutDestroy(mm->lb);
	if (lt && mm->la)
		lt->cublasLtMatrixLayoutDestroy(mm->la);
	if (lt && mm->op)
		lt->cublasLtMatmulDescDestroy(mm->op);
	memset(mm, 0, sizeof(*mm));
}

cublasStatus_t gb_lt_matmul_algos(const struct gb_lt_matmul *mm, cublasLtHandle_t handle,
				  cublasLtMatmulHeuristicResult_t *out, int max, int *n)
{
	int returned = 0, kept = 0;
	cublasStatus_t st;

	*n = 0;
	if (max < 1)
		return CUBLAS_STATUS_INVALID_VALUE;
	memset(out, 0, sizeof(*out) * (size_t)max);
	st = mm->lt->cublasLtMatmulAlgoGetHeuristic(handle, mm->op, mm->la, mm->lb, mm->lc, mm->lc,
						    mm->pref, max, out, &returned);
	/* the heuristic says NOT_SUPPORTED when it has nothing to offer: zero candidates */
	if (st == CUBLAS_STATUS_NOT_SUPPORTED)
		return CUBLAS_STATUS_SUCCESS;
	if (st != CUBLAS_STATUS_SUCCESS)
		return st;
	if (returned > max)
		returned = max;
	for (int i = 0; i < returned; i++)
		if (out[i].state == CUBLAS_STATUS_SUCCESS)
			out[kept++] = out[i];
	*n = kept;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t gb_lt_matmul_run(const struct gb_lt_matmul *mm, cublasLtHandle_t handle,
				const void *a, const void *b, void *d,
				const cublasLtMatmulAlgo_t *algo, void *workspace,
				size_t workspace_bytes, cudaStream_t stream)
{
	/* C = D (beta is 0): in place, which every algorithm supports */
	return mm->lt->cublasLtMatmul(handle, mm->op, &mm->prec.alpha, a, mm->la, b, mm->lb,
				      &mm->prec.beta, d, mm->lc, d, mm->lc, algo, workspace,
				      workspace_bytes, stream);
}

void gb_lt_algo_config(const struct gb_cublaslt *lt, const cublasLtMatmulAlgo_t *algo,
		       struct gb_lt_algo_config *out)
{
	/* each attribute in the type cublasLt.h gives it; a wrong size would fail the call */
	int32_t id, splitk;
	uint32_t tile, stages, red, swz, custom;
	uint16_t inner, cluster;
	size_t w = 0;

	memset(out, 0xff, sizeof(*out));  /* every field -1: not reported */
#define GB_ALGO_ATTR(attr, var, field)                                                    \
	if (lt->cublasLtMatmulAlgoConfigGetAttribute(algo, attr, &var, sizeof(var), &w) == \
	    CUBLAS_STATUS_SUCCESS)                                                         \
		out->field = (int64_t)var;
	GB_ALGO_ATTR(CUBLASLT_ALGO_CONFIG_ID, id, id)
	GB_ALGO_ATTR(CUBLASLT_ALGO_CONFIG_TILE_ID, tile, tile)
	GB_ALGO_ATTR(CUBLASLT_ALGO_CONFIG_STAGES_ID, stages, stages)
	GB_ALGO_ATTR(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, splitk, splitk)
	GB_ALGO_ATTR(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, red, reduction_scheme)
	GB_ALGO_ATTR(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, swz, cta_swizzling)
	GB_ALGO_ATTR(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, custom, custom_option)
	GB_ALGO_ATTR(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, inner, inner_shape_id)
	GB_ALGO_ATTR(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, cluster, cluster_shape_id)
#undef GB_ALGO_ATTR
}
