/* SPDX-License-Identifier: MIT */
/*
 * lt_matmul.h - the one cuBLASLt GEMM that gemm and stress (and any other
 * benchmark) set up: D = A^T B in the TN layout of bench/gemm/gemm_math.h,
 *   A stored k x m column-major (lda = k), op(A) = A^T,
 *   B stored k x n column-major (ldb = k),
 *   C = D stored m x n column-major (ldc = ldd = m), in place (beta = 0),
 * at one gpubench precision, with its compute type, scale type and the
 * alpha = 1, beta = 0 of that scale type (host pointer mode, the default).
 *
 * Written once here because every detail is a way to get a NOT_SUPPORTED or
 * a wrong answer on a real GPU: COMPUTE_32I takes int32 alpha and beta,
 * COMPUTE_16F half ones; FP8 needs the A and B scale pointers (device
 * floats) and, with a BF16 D, a BF16 C; plain FP32 must not become TF32;
 * the preference's default workspace of 0 rules out split-K and stream-K.
 * Operand pointers must keep the 256-byte alignment the heuristic assumes
 * (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES default): cudaMalloc'd
 * buffers, and offsets into them that are multiples of 256.
 */
#ifndef GPUBENCH_BENCH_LT_MATMUL_H
#define GPUBENCH_BENCH_LT_MATMUL_H

#include <stddef.h>
#include <stdint.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "bench/device/cublaslt_dl.h"
#include "bench/device/lt_names.h"
#include "kernels/dtype.h"
#include "report/theory.h"

/* alpha or beta in the scale type of a precision */
union gb_lt_scalar {
	double f64;
	float f32;
	int32_t i32;
	uint16_t f16;  /* IEEE half bits: C has no half type */
};

/* The compute type, scale type and alpha = 1, beta = 0 of a precision. */
struct gb_lt_precision {
	cublasComputeType_t compute;
	cudaDataType_t scale;
	union gb_lt_scalar alpha, beta;
};

/*
 * fp64: COMPUTE_64F, scale 64F; tf32: COMPUTE_32F_FAST_TF32; fp16acc16:
 * COMPUTE_16F, scale 16F; int8: COMPUTE_32I, scale 32I; fp32, fp16, bf16,
 * fp8 (and anything else): COMPUTE_32F, scale 32F.
 */
void gb_lt_precision(enum gb_precision p, struct gb_lt_precision *out);

/* The cudaDataType_t of a storage type (CUDA_R_32F for an unknown one). */
cudaDataType_t gb_lt_cuda_type(enum gb_dtype t);

/* One GEMM's descriptors. Zero it before gb_lt_matmul_create. */
struct gb_lt_matmul {
	const struct gb_cublaslt *lt;
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t la, lb, lc;  /* lc describes both C and D */
	cublasLtMatmulPreference_t pref;
	struct gb_lt_precision prec;
};

/*
 * Create the descriptors for D (m x n, type t_cd) = A^T B (A k x m, B k x n,
 * type t_ab) at precision p, with a preference allowing workspace_bytes.
 * ab_scale: for FP8 inputs, one device float used as both the A and the B
 * scale (required: cuBLASLt reads it on the device); ignored otherwise.
 * Returns CUBLAS_STATUS_SUCCESS, or the first failing status with *what
 * naming the call ("cublasLtMatrixLayoutCreate(A)"); what may be NULL.
 * On failure mm keeps what was created: gb_lt_matmul_destroy() frees it.
 */
cublasStatus_t gb_lt_matmul_create(const struct gb_cublaslt *lt, struct gb_lt_matmul *mm,
				   enum gb_precision p, enum gb_dtype t_ab, enum gb_dtype t_cd,
				   uint64_t m, uint64_t n, uint64_t k, const float *ab_scale,
				   uint64_t workspace_bytes, const char **what);

/* Destroy whatever mm holds (every handle may be NULL); mm is zeroed. */
void gb_lt_matmul_destroy(struct gb_lt_matmul *mm);

/*
 * Ask the heuristic for up to max algorithms and keep the usable ones
 * (state CUBLAS_STATUS_SUCCESS), in its order, at the start of out; *n gets
 * their count. "No algorithm" is *n == 0 with CUBLAS_STATUS_SUCCESS (the
 * heuristic itself answers NOT_SUPPORTED then); other failures return their
 * status.
 */
cublasStatus_t gb_lt_matmul_algos(const struct gb_lt_matmul *mm, cublasLtHandle_t handle,
				  cublasLtMatmulHeuristicResult_t *out, int max, int *n);

/* One D = A^T B with `algo` on `stream` (C = D, beta = 0: in place). */
cublasStatus_t gb_lt_matmul_run(const struct gb_lt_matmul *mm, cublasLtHandle_t handle,
				const void *a, const void *b, void *d,
				const cublasLtMatmulAlgo_t *algo, void *workspace,
				size_t workspace_bytes, cudaStream_t stream);

/*
 * What cuBLASLt's algorithm configuration says about one algorithm (the
 * CUBLASLT_ALGO_CONFIG_* attributes); a field the library would not report
 * is -1. tile and stages are enum values: gb_lt_tile_name() and
 * gb_lt_stages_name() (bench/gemm/gemm_math.h) name them.
 */
struct gb_lt_algo_config {
	int64_t id, tile, stages, splitk, reduction_scheme, cta_swizzling, custom_option,
		inner_shape_id, cluster_shape_id;
};
void gb_lt_algo_config(const struct gb_cublaslt *lt, const cublasLtMatmulAlgo_t *algo,
		       struct gb_lt_algo_config *out);

#endif
