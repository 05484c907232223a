/* SPDX-License-Identifier: MIT */
/*
 * lt_internal.h - the simulated cuBLASLt's own structures (tests only).
 *
 * The opaque cuBLASLt handles are pointers to the structs below: the product
 * never looks inside them, it only hands them back. Every one starts with a
 * magic number, so a handle of the wrong kind, or one used after destroy, is
 * answered with the status the real library gives (INVALID_VALUE, or
 * NOT_INITIALIZED for a bad library handle) instead of a crash.
 *
 * Files:
 *   lt_api.c     handle, versions, status names, descriptors and their attributes
 *   lt_algo.c    the algorithm catalog, the problem check, the heuristic and
 *                the algo Init/Check/Cap/Config functions
 *   lt_matmul.c  cublasLtMatmul: argument checks, the CPU product, the cache
 */
#ifndef GPUBENCH_TESTS_SIM_CUBLASLT_LT_INTERNAL_H
#define GPUBENCH_TESTS_SIM_CUBLASLT_LT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cublasLt.h>

#include "tests/sim/sim.h"

/* nothing below is exported: the library's interface is cuBLASLt's (libcublasLt.map too) */
#pragma GCC visibility push(hidden)

#define LT_MAGIC_HANDLE 0x4c7448616e646c65ULL  /* "LtHandle" */
#define LT_MAGIC_DESC 0x4c74446573637231ULL
#define LT_MAGIC_LAYOUT 0x4c744c61796f7574ULL
#define LT_MAGIC_PREF 0x4c74507265663031ULL
#define LT_MAGIC_DEAD 0xdeadULL               /* written by destroy */

/* one more than the largest attribute value of each kind in cublasLt.h (CUDA 13.0) */
#define LT_DESC_ATTRS 39
#define LT_LAYOUT_ATTRS 9
#define LT_PREF_ATTRS 13

struct lt_handle {
	uint64_t magic;
	int device;             /* current device when it was created */
};

/* Attributes stored as raw bytes, each in the size cublasLt.h gives it (0 = no such attribute). */
struct lt_desc {
	uint64_t magic;
	unsigned char value[LT_DESC_ATTRS][8];
};

struct lt_layout {
	uint64_t magic;
	unsigned char value[LT_LAYOUT_ATTRS][8];
};

struct lt_pref {
	uint64_t magic;
	unsigned char value[LT_PREF_ATTRS][8];
};

/* the size of each attribute, 0 where cublasLt.h has none */
extern const size_t lt_desc_attr_size[LT_DESC_ATTRS];
extern const size_t lt_layout_attr_size[LT_LAYOUT_ATTRS];
extern const size_t lt_pref_attr_size[LT_PREF_ATTRS];

/* validated casts from the opaque handles; NULL when it is not a live one of that kind */
struct lt_handle *lt_handle_of(cublasLtHandle_t h);
struct lt_desc *lt_desc_of(cublasLtMatmulDesc_t d);
struct lt_layout *lt_layout_of(cublasLtMatrixLayout_t l);
struct lt_pref *lt_pref_of(cublasLtMatmulPreference_t p);

/* typed reads of stored attributes */
int32_t lt_desc_i32(const struct lt_desc *d, cublasLtMatmulDescAttributes_t a);
uint32_t lt_desc_u32(const struct lt_desc *d, cublasLtMatmulDescAttributes_t a);
int64_t lt_desc_i64(const struct lt_desc *d, cublasLtMatmulDescAttributes_t a);
const void *lt_desc_ptr(const struct lt_desc *d, cublasLtMatmulDescAttributes_t a);
uint64_t lt_pref_u64(const struct lt_pref *p, cublasLtMatmulPreferenceAttributes_t a);
uint32_t lt_pref_u32(const struct lt_pref *p, cublasLtMatmulPreferenceAttributes_t a);
float lt_pref_f32(const struct lt_pref *p, cublasLtMatmulPreferenceAttributes_t a);

/* A matrix layout, read out of its descriptor. */
struct lt_mat {
	cudaDataType_t type;
	int32_t order;
	uint64_t rows, cols;
	int64_t ld;
	int32_t batch;
	int64_t batch_stride;   /* elements */
	int64_t plane_offset;
	uint32_t batch_mode;
};
void lt_mat_read(const struct lt_layout *l, struct lt_mat *out);

/* gbsim_log("<fn>: <message>"); nothing when fn is NULL (a heuristic probing quietly) */
void lt_say(const char *fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* bytes per element of a cudaDataType_t the simulator computes with; 0 for any other */
size_t lt_type_size(cudaDataType_t t);
const char *lt_type_name(cudaDataType_t t);

/* How the product is computed (what the compute type and the types ask for). */
enum lt_acc {
	LT_ACC_F64,             /* COMPUTE_64F: double */
	LT_ACC_F32,             /* COMPUTE_32F and its FAST variants: float FMA */
	LT_ACC_F16,             /* COMPUTE_16F: every partial sum rounded to half */
	LT_ACC_I32              /* COMPUTE_32I, and int8 inputs under COMPUTE_32F: exact int32 */
};

/* what rounding the inputs see before the multiply */
enum lt_input_round {
	LT_IN_EXACT,
	LT_IN_TF32,             /* COMPUTE_32F_FAST_TF32 on a GPU with TF32 (cc >= 8.0) */
	LT_IN_F16,              /* COMPUTE_32F_FAST_16F */
	LT_IN_BF16              /* COMPUTE_32F_FAST_16BF */
};

/*
 * One matmul problem, checked: everything the heuristic, the algorithm
 * check and the product itself need, read out of the descriptors.
 */
struct lt_problem {
	cublasComputeType_t compute;
	cudaDataType_t scale;
	int32_t pointer_mode;
	cublasOperation_t transa, transb;
	struct lt_mat a, b, c, d;
	uint64_t m, n, k;
	int32_t batch;
	bool fp8;                   /* A or B is an FP8 type */
	enum lt_acc acc;
	enum lt_input_round in_round;
	enum gbsim_precision prec;  /* which peak the flops run at */
	const void *scale_ptr[4];   /* A, B, C, D scale device pointers (may be NULL) */
	void *amax_d;
	int device;
	int cc;                     /* major * 10 + minor */
	int sm_count;               /* the descriptor's SM_COUNT_TARGET, else the device's */
	bool geforce;
};

/*
 * Read and check a problem: the type combination against cuBLASLt's table,
 * the layouts (column order, ld >= rows, dimensions that agree), the
 * descriptor attributes the simulator does not implement, and what the
 * device can run (FP8 needs cc 8.9, BF16 and TF32 8.0). Returns the status
 * the real library gives and logs why with gbsim_log, prefixed with `fn`.
 */
cublasStatus_t lt_problem_read(const char *fn, cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t la,
			       cublasLtMatrixLayout_t lb, cublasLtMatrixLayout_t lc,
			       cublasLtMatrixLayout_t ld, struct lt_problem *p);

/* The configuration an algo structure carries (cublasLtMatmulAlgo_t.data). */
struct lt_algo_cfg {
	int32_t id;
	uint32_t tile, stages;
	int32_t splitk;
	uint32_t reduction, swizzle, custom;
	uint16_t inner_shape, cluster_shape;
	uint32_t signature;         /* of the types it was made for */
};

bool lt_algo_read(const cublasLtMatmulAlgo_t *algo, struct lt_algo_cfg *cfg);
void lt_algo_write(cublasLtMatmulAlgo_t *algo, const struct lt_algo_cfg *cfg);
uint32_t lt_problem_signature(const struct lt_problem *p);

/*
 * What one algorithm needs of a problem and what it costs: alignment of
 * every pointer and leading dimension (bytes), workspace, waves, and a
 * time factor relative to the device's peak (1 = the best the model gives).
 */
struct lt_algo_need {
	uint32_t align_bytes;
	size_t workspace_bytes;
	float waves;
	double time_factor;
	int32_t splitk;             /* the effective split (tile UNDEFINED -> default) */
	uint32_t tile;
	uint32_t reduction;
};

/*
 * Check an algorithm against a problem (no pointers yet): CUBLAS_STATUS_SUCCESS
 * and *need filled, or NOT_SUPPORTED / INVALID_VALUE with a logged reason.
 */
cublasStatus_t lt_algo_fit(const char *fn, const struct lt_problem *p,
			   const struct lt_algo_cfg *cfg, struct lt_algo_need *need);

/* The heuristic: up to max algorithms for p under the preference; their count. */
int lt_heuristic(const struct lt_problem *p, const struct lt_pref *pref, size_t max_workspace,
		 cublasLtMatmulHeuristicResult_t *out, int max);

/* storage bytes of D elements */
double lt_problem_bytes(const struct lt_problem *p, bool reads_c);

#pragma GCC visibility pop

#endif
