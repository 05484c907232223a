/* SPDX-License-Identifier: MIT */
/*
 * lt_algo.c - what the simulated cuBLASLt accepts, and its algorithms.
 *
 * The problem check follows cuBLASLt's documented type table
 * (cublasLtMatmul, "Datatypes supported"): compute type, scale type and the
 * A/B/C/D types must be one of its rows, or the answer is
 * CUBLAS_STATUS_NOT_SUPPORTED. FP8 and int8 (IMMA with column order) run in
 * the TN layout only (A transposed, B not), FP8 needs compute capability
 * 8.9 and BF16 8.0. Layout errors (ld < rows, dimensions that do not agree)
 * are CUBLAS_STATUS_INVALID_VALUE.
 *
 * The algorithms are a small invented catalog, not NVIDIA's: enough to give
 * the heuristic a few candidates with different tiles, a split-K one that
 * needs workspace, and an unaligned fallback, each with its configuration
 * readable and settable as on the real library:
 *
 *   id  class          alignment  tiles            split-K   note
 *   31  tensor         16 B       128x256 256x128  no        best for large shapes
 *   21  tensor         16 B       128x128 ...      yes       the all-rounder
 *   6   tensor, simt   16 B       64x64            yes       offered with splitk > 1
 *   0   simt           16 B       128x64 64x64     yes       CUDA-core FP32/FP64
 *   1   tensor*, simt  element    64x64            no        misaligned operands
 *   (* not for FP8 and int8, whose kernels all need 16-byte alignment)
 *
 * Times: each algorithm has a factor over the device's modelled peak, and
 * tile quantisation (waves / ceil(waves)) slows shapes that leave SMs idle,
 * so split-K wins for small m x n with a long k, as on a real GPU.
 */
#include "tests/sim/cublaslt/lt_internal.h"

#include <math.h>
#include <string.h>

#include <cuda_runtime_api.h>

#define LT_ALGO_MAGIC 0x53696d41u  /* "SimA", in the high half of data[0] */

enum lt_class {
	LT_CLASS_NONE,
	LT_CLASS_TENSOR,         /* 16-bit, TF32, FP64 with DMMA */
	LT_CLASS_TENSOR_STRICT,  /* FP8, int8: 16-byte aligned tensor kernels only */
	LT_CLASS_SIMT            /* FP32, FP64 without DMMA: CUDA cores */
};

struct lt_algo_def {
	int32_t id;
	uint32_t align;                /* bytes; 0 = the element size */
	uint32_t tiles[3], stages[2];  /* [0] is the default */
	bool splitk;
	uint32_t reduction_mask;
	uint32_t swizzle_max, custom_max;
	double factor_tensor, factor_simt;  /* time over the modelled peak per class */
};

#define RED_ALL (CUBLASLT_REDUCTION_SCHEME_INPLACE | CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE | \
		 CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE)

static const struct lt_algo_def algo_defs[] = {
	{ 31, 16, { CUBLASLT_MATMUL_TILE_128x256, CUBLASLT_MATMUL_TILE_256x128, 0 },
	  { CUBLASLT_MATMUL_STAGES_64x4, 0 }, false, 0, 1, 0, 1.00, 0 },
	{ 21, 16, { CUBLASLT_MATMUL_TILE_128x128, CUBLASLT_MATMUL_TILE_128x64,
		    CUBLASLT_MATMUL_TILE_64x128 },
	  { CUBLASLT_MATMUL_STAGES_64x3, CUBLASLT_MATMUL_STAGES_64x4 }, true, RED_ALL, 1, 1, 1.05,
	  0 },
	{ 6, 16, { CUBLASLT_MATMUL_TILE_64x64, 0, 0 }, { CUBLASLT_MATMUL_STAGES_32x6, 0 }, true,
	  RED_ALL, 0, 0, 1.15, 1.10 },
	{ 0, 16, { CUBLASLT_MATMUL_TILE_128x64, CUBLASLT_MATMUL_TILE_64x64, 0 },
	  { CUBLASLT_MATMUL_STAGES_16x2, 0 }, true, RED_ALL, 1, 0, 0, 1.00 },
	{ 1, 0, { CUBLASLT_MATMUL_TILE_64x64, 0, 0 }, { CUBLASLT_MATMUL_STAGES_16x2, 0 }, false, 0,
	  0, 0, 4.00, 1.50 },
};

/* the heuristic's order of ids per class, before ranking by time */
static const int32_t ids_tensor[] = { 31, 21, 6, 1 };
static const int32_t ids_strict[] = { 31, 21 };
static const int32_t ids_simt[] = { 0, 6, 1 };

static const struct lt_algo_def *algo_def(int32_t id)
{
	for (size_t i = 0; i < sizeof(algo_defs) / sizeof(algo_defs[0]); i++)
		if (algo_defs[i].id == id)
			return &algo_defs[i];
	return NULL;
}

static size_t class_ids(enum lt_class c, const int32_t **ids)
{
	switch (c) {
	case LT_CLASS_TENSOR:
		*ids = ids_tensor;
		return sizeof(ids_tensor) / sizeof(ids_tensor[0]);
	case LT_CLASS_TENSOR_STRICT:
		*ids = ids_strict;
		return sizeof(ids_strict) / sizeof(ids_strict[0]);
	case LT_CLASS_SIMT:
		*ids = ids_simt;
		return sizeof(ids_simt) / sizeof(ids_simt[0]);
	default:
		*ids = NULL;
		return 0;
	}
}

static bool in_list(const uint32_t *list, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] && list[i] == v)
			return true;
	return false;
}

/* ---------------------------------------------------------------- types */

static bool is_fp8(cudaDataType_t t)
{
	return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2;
}

/* The acceleration a type combination gets on a device of compute capability cc. */
static enum lt_class problem_class(cublasComputeType_t compute, cudaDataType_t ta, int cc)
{
	if (is_fp8(ta) || ta == CUDA_R_8I)
		return LT_CLASS_TENSOR_STRICT;
	switch (compute) {
	case CUBLAS_COMPUTE_64F:
	case CUBLAS_COMPUTE_64F_PEDANTIC:
		/* DMMA: A100, H100, B200 (sm_80, sm_90, sm_100), not the GeForce-class dies */
		return cc == 80 || cc == 90 || cc == 100 ? LT_CLASS_TENSOR : LT_CLASS_SIMT;
	case CUBLAS_COMPUTE_32F:
	case CUBLAS_COMPUTE_32F_PEDANTIC:
		return ta == CUDA_R_32F ? LT_CLASS_SIMT : LT_CLASS_TENSOR;
	case CUBLAS_COMPUTE_32F_FAST_TF32:
	case CUBLAS_COMPUTE_32F_FAST_16BF:
		return cc >= 80 ? LT_CLASS_TENSOR : LT_CLASS_SIMT;
	default:
		return cc >= 70 ? LT_CLASS_TENSOR : LT_CLASS_SIMT;
	}
}

/* one row of cuBLASLt's table of FP8 C/D types (A/B FP8, compute and scale 32F) */
static bool fp8_cd_ok(cudaDataType_t tc, cudaDataType_t td)
{
	if (tc == CUDA_R_32F)
		return td == CUDA_R_32F;
	if (tc == CUDA_R_16BF || tc == CUDA_R_16F)
		return td == tc || is_fp8(td);
	return false;
}

/*
 * The rows of cuBLASLt's type table the simulator computes: 0 and *acc,
 * *prec, *in_round, or -1 when the combination is not in the table.
 */
static int combo_check(cublasComputeType_t compute, cudaDataType_t scale, cudaDataType_t ta,
		       cudaDataType_t tb, cudaDataType_t tc, cudaDataType_t td, enum lt_acc *acc,
		       enum gbsim_precision *prec, enum lt_input_round *in_round)
{
	*in_round = LT_IN_EXACT;
	switch (compute) {
	case CUBLAS_COMPUTE_16F:
	case CUBLAS_COMPUTE_16F_PEDANTIC:
		*acc = LT_ACC_F16;
		*prec = GBSIM_FP16;
		return scale == CUDA_R_16F && ta == CUDA_R_16F && tb == CUDA_R_16F &&
			       tc == CUDA_R_16F && td == CUDA_R_16F ? 0 : -1;
	case CUBLAS_COMPUTE_64F:
	case CUBLAS_COMPUTE_64F_PEDANTIC:
		*acc = LT_ACC_F64;
		*prec = GBSIM_FP64;
		return scale == CUDA_R_64F && ta == CUDA_R_64F && tb == CUDA_R_64F &&
			       tc == CUDA_R_64F && td == CUDA_R_64F ? 0 : -1;
	case CUBLAS_COMPUTE_32I:
	case CUBLAS_COMPUTE_32I_PEDANTIC:
		*acc = LT_ACC_I32;
		*prec = GBSIM_INT8;
		if (ta != CUDA_R_8I || tb != CUDA_R_8I || tc != td)
			return -1;
		return (scale == CUDA_R_32I && tc == CUDA_R_32I) ||
			       (scale == CUDA_R_32F && tc == CUDA_R_8I) ? 0 : -1;
	case CUBLAS_COMPUTE_32F_FAST_TF32:
	case CUBLAS_COMPUTE_32F_FAST_16F:
	case CUBLAS_COMPUTE_32F_FAST_16BF:
		*acc = LT_ACC_F32;
		*prec = compute == CUBLAS_COMPUTE_32F_FAST_TF32 ? GBSIM_TF32
			: compute == CUBLAS_COMPUTE_32F_FAST_16F ? GBSIM_FP16 : GBSIM_BF16;
		*in_round = compute == CUBLAS_COMPUTE_32F_FAST_TF32 ? LT_IN_TF32
			    : compute == CUBLAS_COMPUTE_32F_FAST_16F ? LT_IN_F16 : LT_IN_BF16;
		return scale == CUDA_R_32F && ta == CUDA_R_32F && tb == CUDA_R_32F &&
			       tc == CUDA_R_32F && td == CUDA_R_32F ? 0 : -1;
	case CUBLAS_COMPUTE_32F:
	case CUBLAS_COMPUTE_32F_PEDANTIC:
		break;
	default:
		return -1;  /* the emulated compute types: not simulated */
	}
	*acc = LT_ACC_F32;
	if (scale != CUDA_R_32F)
		return -1;
	if (is_fp8(ta) || is_fp8(tb)) {
		*prec = GBSIM_FP8;
		if (!is_fp8(ta) || !is_fp8(tb) || (ta == CUDA_R_8F_E5M2 && tb == CUDA_R_8F_E5M2))
			return -1;
		return fp8_cd_ok(tc, td) ? 0 : -1;
	}
	if (ta != tb || tc != td)
		return -1;
	switch (ta) {
	case CUDA_R_32F:
		*prec = GBSIM_FP32;
		return tc == CUDA_R_32F ? 0 : -1;
	case CUDA_R_16F:
		*prec = GBSIM_FP16;
		return tc == CUDA_R_16F || tc == CUDA_R_32F ? 0 : -1;
	case CUDA_R_16BF:
		*prec = GBSIM_BF16;
		return tc == CUDA_R_16BF || tc == CUDA_R_32F ? 0 : -1;
	case CUDA_R_8I:
		/* IMMA accumulates in int32, then converts for the FP32 epilogue */
		*prec = GBSIM_INT8;
		*acc = LT_ACC_I32;
		return tc == CUDA_R_32F ? 0 : -1;
	default:
		return -1;
	}
}

/* ---------------------------------------------------------------- problem */

/* the current device's compute capability and SM count, through the (fake) runtime */
static int device_info(int *device, int *cc, int *sm_count)
{
	struct cudaDeviceProp prop;

	if (cudaGetDevice(device) != cudaSuccess ||
	    cudaGetDeviceProperties(&prop, *device) != cudaSuccess)
		return -1;
	*cc = prop.major * 10 + prop.minor;
	*sm_count = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
	return 0;
}

/* descriptor settings the simulator does not compute: refused, and said so */
static cublasStatus_t desc_unsimulated(const char *fn, const struct lt_desc *d)
{
	static const cublasLtMatmulDescAttributes_t modes[] = {
		CUBLASLT_MATMUL_DESC_A_SCALE_MODE, CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
		CUBLASLT_MATMUL_DESC_C_SCALE_MODE, CUBLASLT_MATMUL_DESC_D_SCALE_MODE,
		CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE,
	};
	int32_t pm = lt_desc_i32(d, CUBLASLT_MATMUL_DESC_POINTER_MODE);

	if (lt_desc_u32(d, CUBLASLT_MATMUL_DESC_EPILOGUE) != CUBLASLT_EPILOGUE_DEFAULT) {
		lt_say(fn, "epilogue %u is not simulated",
		       lt_desc_u32(d, CUBLASLT_MATMUL_DESC_EPILOGUE));
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	if (pm != CUBLASLT_POINTER_MODE_HOST && pm != CUBLASLT_POINTER_MODE_DEVICE) {
		lt_say(fn, "pointer mode %d is not simulated", (int)pm);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (lt_desc_i32(d, modes[i])) {
			lt_say(fn, "scale modes other than scalar are not simulated");
			return CUBLAS_STATUS_NOT_SUPPORTED;
		}
	if (lt_desc_ptr(d, CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER) ||
	    lt_desc_ptr(d, CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR)) {
		lt_say(fn, "D out scales and emulation are not simulated");
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	if (lt_desc_i32(d, CUBLASLT_MATMUL_DESC_TRANSC) != CUBLAS_OP_N ||
	    lt_desc_i32(d, CUBLASLT_MATMUL_DESC_FILL_MODE) != CUBLAS_FILL_MODE_FULL) {
		lt_say(fn, "only TRANSC = N and FILL_MODE_FULL are supported");
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	return CUBLAS_STATUS_SUCCESS;
}

/* one layout: column order, a simulated type, ld >= rows, sizes that fit in int32 */
static cublasStatus_t mat_check(const char *fn, const char *name, const struct lt_mat *x)
{
	if (x->order != CUBLASLT_ORDER_COL || x->plane_offset ||
	    x->batch_mode != CUBLASLT_BATCH_MODE_STRIDED) {
		lt_say(fn, "%s: only column order, strided batches and real types are "
			  "simulated", name);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	if (!lt_type_size(x->type)) {
		lt_say(fn, "%s: type %s (%d) is not simulated", name, lt_type_name(x->type),
			  (int)x->type);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	if (!x->rows || !x->cols || x->batch < 1) {
		lt_say(fn, "%s: empty matrix (%llu x %llu, batch %d)", name,
			  (unsigned long long)x->rows, (unsigned long long)x->cols, (int)x->batch);
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	if (x->ld < 0 || (uint64_t)x->ld < x->rows) {
		lt_say(fn, "%s: ld %lld is less than its %llu rows", name, (long long)x->ld,
			  (unsigned long long)x->rows);
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	if (x->rows > INT32_MAX || x->cols > INT32_MAX) {
		lt_say(fn, "%s: dimensions beyond int32", name);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	return CUBLAS_STATUS_SUCCESS;
}

/* op(A) m x k, op(B) k x n, C and D m x n, one batch count */
static cublasStatus_t shapes_check(const char *fn, struct lt_problem *p)
{
	uint64_t ak = p->transa == CUBLAS_OP_N ? p->a.cols : p->a.rows;
	uint64_t bk = p->transb == CUBLAS_OP_N ? p->b.rows : p->b.cols;

	p->m = p->transa == CUBLAS_OP_N ? p->a.rows : p->a.cols;
	p->n = p->transb == CUBLAS_OP_N ? p->b.cols : p->b.rows;
	p->k = ak;
	if (ak != bk || p->c.rows != p->m || p->c.cols != p->n || p->d.rows != p->m ||
	    p->d.cols != p->n) {
		lt_say(fn, "dimensions do not agree: op(A) %llux%llu, op(B) %llux%llu, "
			  "C %llux%llu, D %llux%llu", (unsigned long long)p->m,
			  (unsigned long long)ak, (unsigned long long)bk, (unsigned long long)p->n,
			  (unsigned long long)p->c.rows, (unsigned long long)p->c.cols,
			  (unsigned long long)p->d.rows, (unsigned long long)p->d.cols);
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	if (p->a.batch != p->b.batch || p->a.batch != p->c.batch || p->a.batch != p->d.batch) {
		lt_say(fn, "batch counts differ (%d, %d, %d, %d)", (int)p->a.batch,
			  (int)p->b.batch, (int)p->c.batch, (int)p->d.batch);
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	p->batch = p->a.batch;
	return CUBLAS_STATUS_SUCCESS;
}

/* FP8 scale and amax pointers: only for FP8 inputs (cublasLt.h: INVALID_VALUE otherwise) */
static cublasStatus_t scales_check(const char *fn, const struct lt_desc *d, struct lt_problem *p)
{
	static const cublasLtMatmulDescAttributes_t attrs[4] = {
		CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
		CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER,
	};
	bool any = false;

	for (int i = 0; i < 4; i++) {
		p->scale_ptr[i] = lt_desc_ptr(d, attrs[i]);
		any = any || p->scale_ptr[i];
	}
	p->amax_d = (void *)(uintptr_t)lt_desc_ptr(d, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER);
	if ((any || p->amax_d) && !p->fp8) {
		lt_say(fn, "scale or amax pointers are set for %s inputs (FP8 only)",
		       lt_type_name(p->a.type));
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	return CUBLAS_STATUS_SUCCESS;
}

/* what the device can run: FP8 from cc 8.9, BF16 from 8.0; TN for FP8 and int8 */
static cublasStatus_t device_check(const char *fn, struct lt_problem *p)
{
	bool tn = p->transa == CUBLAS_OP_T && p->transb == CUBLAS_OP_N;

	if (p->fp8 && p->cc < 89) {
		lt_say(fn, "FP8 needs compute capability 8.9 (device %d is %d.%d)", p->device,
		       p->cc / 10, p->cc % 10);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	if ((p->a.type == CUDA_R_16BF || p->in_round == LT_IN_BF16) && p->cc < 80) {
		lt_say(fn, "BF16 needs compute capability 8.0 (device %d is %d.%d)", p->device,
		       p->cc / 10, p->cc % 10);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	if ((p->fp8 || p->a.type == CUDA_R_8I) && !tn) {
		lt_say(fn, "%s needs the TN layout (A transposed, B not)", p->fp8 ? "FP8" : "int8");
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	/* TF32 rounding only where tensor cores have it; older GPUs compute plain FP32 */
	if (p->in_round == LT_IN_TF32 && p->cc < 80) {
		p->in_round = LT_IN_EXACT;
		p->prec = GBSIM_FP32;
	}
	return CUBLAS_STATUS_SUCCESS;
}

static cublasOperation_t real_op(int32_t op)
{
	/* conjugate transpose of a real matrix is its transpose */
	return op == CUBLAS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T;
}

cublasStatus_t lt_problem_read(const char *fn, cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t la,
			       cublasLtMatrixLayout_t lb, cublasLtMatrixLayout_t lc,
			       cublasLtMatrixLayout_t ld, struct lt_problem *p)
{
	const struct lt_desc *d = lt_desc_of(op);
	const struct lt_layout *l[4] = { lt_layout_of(la), lt_layout_of(lb), lt_layout_of(lc),
					 lt_layout_of(ld) };
	struct lt_mat *mats[4] = { &p->a, &p->b, &p->c, &p->d };
	static const char *const names[4] = { "A", "B", "C", "D" };
	cublasStatus_t st;
	int32_t smt;

	memset(p, 0, sizeof(*p));
	if (!d || !l[0] || !l[1] || !l[2] || !l[3]) {
		lt_say(fn, "a descriptor is NULL or was destroyed");
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	if ((st = desc_unsimulated(fn, d)) != CUBLAS_STATUS_SUCCESS)
		return st;
	p->compute = (cublasComputeType_t)lt_desc_i32(d, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE);
	p->scale = (cudaDataType_t)lt_desc_i32(d, CUBLASLT_MATMUL_DESC_SCALE_TYPE);
	p->pointer_mode = lt_desc_i32(d, CUBLASLT_MATMUL_DESC_POINTER_MODE);
	p->transa = real_op(lt_desc_i32(d, CUBLASLT_MATMUL_DESC_TRANSA));
	p->transb = real_op(lt_desc_i32(d, CUBLASLT_MATMUL_DESC_TRANSB));
	for (int i = 0; i < 4; i++) {
		lt_mat_read(l[i], mats[i]);
		if ((st = mat_check(fn, names[i], mats[i])) != CUBLAS_STATUS_SUCCESS)
			return st;
	}
	if ((st = shapes_check(fn, p)) != CUBLAS_STATUS_SUCCESS)
		return st;
	if (combo_check(p->compute, p->scale, p->a.type, p->b.type, p->c.type, p->d.type, &p->acc,
			&p->prec, &p->in_round)) {
		lt_say(fn, "compute type %d, scale %s, A %s, B %s, C %s, D %s is not a "
			  "combination cuBLASLt supports", (int)p->compute,
			  lt_type_name(p->scale), lt_type_name(p->a.type), lt_type_name(p->b.type),
			  lt_type_name(p->c.type), lt_type_name(p->d.type));
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	p->fp8 = is_fp8(p->a.type);
	if ((st = scales_check(fn, d, p)) != CUBLAS_STATUS_SUCCESS)
		return st;
	if (device_info(&p->device, &p->cc, &p->sm_count)) {
		lt_say(fn, "no current device");
		return CUBLAS_STATUS_NOT_INITIALIZED;
	}
	smt = lt_desc_i32(d, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET);
	if (smt > 0 && smt < p->sm_count)
		p->sm_count = smt;
	if (p->device >= 0 && p->device < gbsim_machine()->gpu_count)
		p->geforce = gbsim_machine()->gpus[p->device].geforce;
	return device_check(fn, p);
}

uint32_t lt_problem_signature(const struct lt_problem *p)
{
	uint32_t v[6] = { (uint32_t)p->compute, (uint32_t)p->scale, (uint32_t)p->a.type,
			  (uint32_t)p->b.type, (uint32_t)p->c.type, (uint32_t)p->d.type };
	uint32_t h = 2166136261u;  /* FNV-1a */

	for (int i = 0; i < 6; i++) {
		h ^= v[i];
		h *= 16777619u;
	}
	return h;
}

static uint32_t types_signature(cublasComputeType_t compute, cudaDataType_t scale,
				cudaDataType_t ta, cudaDataType_t tb, cudaDataType_t tc,
				cudaDataType_t td)
{
	struct lt_problem p;

	memset(&p, 0, sizeof(p));
	p.compute = compute;
	p.scale = scale;
	p.a.type = ta;
	p.b.type = tb;
	p.c.type = tc;
	p.d.type = td;
	return lt_problem_signature(&p);
}

double lt_problem_bytes(const struct lt_problem *p, bool reads_c)
{
	double per = (double)lt_type_size(p->a.type) * (double)(p->m * p->k) +
		     (double)lt_type_size(p->b.type) * (double)(p->k * p->n) +
		     (double)lt_type_size(p->d.type) * (double)(p->m * p->n);

	if (reads_c)
		per += (double)lt_type_size(p->c.type) * (double)(p->m * p->n);
	return per * (double)p->batch;
}

/* ---------------------------------------------------------------- algo structure */

/*
 * cublasLtMatmulAlgo_t.data: [0] magic and id, [1] tile and stages,
 * [2] split-K and reduction scheme, [3] swizzle and custom option,
 * [4] inner and cluster shape and the types' signature, [5] numerical flags.
 */
bool lt_algo_read(const cublasLtMatmulAlgo_t *algo, struct lt_algo_cfg *cfg)
{
	if (!algo || (uint32_t)(algo->data[0] >> 32) != LT_ALGO_MAGIC)
		return false;
	cfg->id = (int32_t)(uint32_t)algo->data[0];
	cfg->tile = (uint32_t)algo->data[1];
	cfg->stages = (uint32_t)(algo->data[1] >> 32);
	cfg->splitk = (int32_t)(uint32_t)algo->data[2];
	cfg->reduction = (uint32_t)(algo->data[2] >> 32);
	cfg->swizzle = (uint32_t)algo->data[3];
	cfg->custom = (uint32_t)(algo->data[3] >> 32);
	cfg->inner_shape = (uint16_t)algo->data[4];
	cfg->cluster_shape = (uint16_t)(algo->data[4] >> 16);
	cfg->signature = (uint32_t)(algo->data[4] >> 32);
	return true;
}

void lt_algo_write(cublasLtMatmulAlgo_t *algo, const struct lt_algo_cfg *cfg)
{
	uint64_t flags = algo->data[5];

	memset(algo, 0, sizeof(*algo));
	algo->data[0] = (uint64_t)LT_ALGO_MAGIC << 32 | (uint32_t)cfg->id;
	algo->data[1] = (uint64_t)cfg->stages << 32 | cfg->tile;
	algo->data[2] = (uint64_t)cfg->reduction << 32 | (uint32_t)cfg->splitk;
	algo->data[3] = (uint64_t)cfg->custom << 32 | cfg->swizzle;
	algo->data[4] = (uint64_t)cfg->signature << 32 | (uint64_t)cfg->cluster_shape << 16 |
			cfg->inner_shape;
	algo->data[5] = flags;
}

/* cublasLtNumericalImplFlags_t of an algorithm class for these types */
static uint64_t impl_flags(enum lt_class cls, enum lt_acc acc, cudaDataType_t ta,
			   enum lt_input_round in_round)
{
	uint64_t f = 0;

	if (cls == LT_CLASS_SIMT)
		f |= CUBLASLT_NUMERICAL_IMPL_FLAGS_FMA;
	else if (ta == CUDA_R_8I)
		f |= CUBLASLT_NUMERICAL_IMPL_FLAGS_IMMA;
	else if (ta == CUDA_R_64F)
		f |= CUBLASLT_NUMERICAL_IMPL_FLAGS_DMMA;
	else
		f |= CUBLASLT_NUMERICAL_IMPL_FLAGS_HMMA;
	f |= acc == LT_ACC_F64 ? CUBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_64F
	     : acc == LT_ACC_F16 ? CUBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_16F
	     : acc == LT_ACC_I32 ? CUBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_32I
				 : CUBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_32F;
	if (in_round == LT_IN_TF32)
		f |= CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_TF32;
	else if (in_round == LT_IN_F16 || ta == CUDA_R_16F)
		f |= CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16F;
	else if (in_round == LT_IN_BF16 || ta == CUDA_R_16BF)
		f |= CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16BF;
	else if (ta == CUDA_R_64F)
		f |= CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_64F;
	else if (ta == CUDA_R_8I)
		f |= CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_8I;
	else if (ta == CUDA_R_8F_E4M3)
		f |= CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_8F_E4M3;
	else
		f |= CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_32F;
	return f;
}

/* an algorithm with its defaults, as cublasLtMatmulAlgoInit leaves it */
static void algo_init(cublasLtMatmulAlgo_t *algo, int32_t id, uint32_t signature, uint64_t flags)
{
	struct lt_algo_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.id = id;
	cfg.splitk = 1;
	cfg.signature = signature;
	memset(algo, 0, sizeof(*algo));
	algo->data[5] = flags;
	lt_algo_write(algo, &cfg);
}

/* ---------------------------------------------------------------- fit and cost */

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* tile dimensions from the tile enum's name: 128x256 -> 128, 256 */
static void tile_dims(uint32_t tile, uint64_t *tm, uint64_t *tn)
{
	switch (tile) {
	case CUBLASLT_MATMUL_TILE_128x256:
		*tm = 128, *tn = 256;
		return;
	case CUBLASLT_MATMUL_TILE_256x128:
		*tm = 256, *tn = 128;
		return;
	case CUBLASLT_MATMUL_TILE_128x128:
		*tm = 128, *tn = 128;
		return;
	case CUBLASLT_MATMUL_TILE_128x64:
		*tm = 128, *tn = 64;
		return;
	case CUBLASLT_MATMUL_TILE_64x128:
		*tm = 64, *tn = 128;
		return;
	default:
		*tm = 64, *tn = 64;
		return;
	}
}

/* every pointer-carrying dimension a multiple of the alignment (bytes) */
static bool lds_aligned(const struct lt_problem *p, uint32_t align)
{
	const struct lt_mat *mats[4] = { &p->a, &p->b, &p->c, &p->d };

	for (int i = 0; i < 4; i++) {
		size_t es = lt_type_size(mats[i]->type);

		if (((uint64_t)mats[i]->ld * es) % align)
			return false;
		if (mats[i]->batch > 1 && ((uint64_t)mats[i]->batch_stride * es) % align)
			return false;
	}
	return true;
}

static size_t splitk_workspace(const struct lt_problem *p, int32_t splitk, uint32_t reduction,
			       uint64_t tiles)
{
	size_t mn = (size_t)(p->m * p->n) * (size_t)p->batch;
	size_t acc_bytes = p->acc == LT_ACC_F64 ? 8 : 4;

	if (splitk <= 1)
		return 0;
	if (reduction == CUBLASLT_REDUCTION_SCHEME_INPLACE)
		return (size_t)tiles * 4;  /* one arrival counter per output tile */
	/* every split's partial D, in the compute or in the output type */
	return (size_t)splitk * mn *
	       (reduction == CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE ? acc_bytes
								    : lt_type_size(p->d.type));
}

static cublasStatus_t cfg_check(const char *fn, const struct lt_algo_def *def,
				const struct lt_algo_cfg *cfg, const struct lt_problem *p)
{
	if (cfg->tile && !in_list(def->tiles, 3, cfg->tile)) {
		lt_say(fn, "algo %d has no tile %u", (int)def->id, cfg->tile);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	if (cfg->stages && !in_list(def->stages, 2, cfg->stages)) {
		lt_say(fn, "algo %d has no stages %u", (int)def->id, cfg->stages);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	if (cfg->splitk < 1 || (uint64_t)cfg->splitk > p->k) {
		lt_say(fn, "split-K %d for k = %llu", (int)cfg->splitk,
			  (unsigned long long)p->k);
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	if (cfg->splitk > 1 && (!def->splitk || p->acc == LT_ACC_I32 || p->fp8 ||
				!(cfg->reduction & def->reduction_mask))) {
		lt_say(fn, "algo %d cannot split k %d ways with reduction scheme %u",
		       (int)def->id, (int)cfg->splitk, cfg->reduction);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	if (cfg->reduction & ~(uint32_t)CUBLASLT_REDUCTION_SCHEME_MASK ||
	    (cfg->reduction & (cfg->reduction - 1))) {
		lt_say(fn, "reduction scheme %u is not one scheme", cfg->reduction);
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	if (cfg->swizzle > def->swizzle_max || cfg->custom > def->custom_max) {
		lt_say(fn, "algo %d: swizzle %u or custom option %u out of range", (int)def->id,
		       cfg->swizzle, cfg->custom);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t lt_algo_fit(const char *fn, const struct lt_problem *p,
			   const struct lt_algo_cfg *cfg, struct lt_algo_need *need)
{
	const struct lt_algo_def *def = algo_def(cfg->id);
	enum lt_class cls = problem_class(p->compute, p->a.type, p->cc);
	const int32_t *ids;
	size_t n_ids = class_ids(cls, &ids);
	bool offered = false;
	uint64_t tm, tn, tiles;
	double factor, waves;
	cublasStatus_t st;

	if (!def) {
		lt_say(fn, "unknown algo id %d", (int)cfg->id);
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	if (cfg->signature != lt_problem_signature(p)) {
		lt_say(fn, "algo %d was made for other types than the descriptors'", (int)cfg->id);
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	for (size_t i = 0; i < n_ids; i++)
		offered = offered || ids[i] == cfg->id;
	if (!offered) {
		lt_say(fn, "algo %d does not run these types on device %d", (int)cfg->id,
			  p->device);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	if ((st = cfg_check(fn, def, cfg, p)) != CUBLAS_STATUS_SUCCESS)
		return st;
	need->align_bytes = def->align;
	if (!need->align_bytes) {
		need->align_bytes = (uint32_t)lt_type_size(p->a.type);
	}
	if (!lds_aligned(p, need->align_bytes)) {
		lt_say(fn, "algo %d needs leading dimensions and batch strides that are "
			  "multiples of %u bytes", (int)cfg->id, need->align_bytes);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	need->tile = cfg->tile ? cfg->tile : def->tiles[0];
	need->splitk = cfg->splitk;
	need->reduction = cfg->splitk > 1 ? cfg->reduction : CUBLASLT_REDUCTION_SCHEME_NONE;
	tile_dims(need->tile, &tm, &tn);
	tiles = ceil_div(p->m, tm) * ceil_div(p->n, tn) * (uint64_t)p->batch;
	need->workspace_bytes = splitk_workspace(p, cfg->splitk, need->reduction, tiles);
	waves = (double)(tiles * (uint64_t)cfg->splitk) / (double)p->sm_count;
	need->waves = (float)waves;
	factor = cls == LT_CLASS_SIMT ? def->factor_simt : def->factor_tensor;
	/*
	 * The cost model's FP64 peak is the CUDA-core rate; DMMA runs at twice
	 * it on sm_80 and sm_90 (report/theory.c: fp64_tc), at the same on sm_100.
	 */
	if (cls == LT_CLASS_TENSOR && p->acc == LT_ACC_F64 && p->cc < 100)
		factor *= 0.5;
	/* SMs left idle in the last wave, and the split-K reduction pass */
	factor *= ceil(waves) / waves;
	if (cfg->splitk > 1)
		factor *= 1.0 + 0.03 * (double)cfg->splitk;
	need->time_factor = factor;
	return CUBLAS_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- heuristic */

/* the split the heuristic proposes for algo 6: enough CTAs to fill the GPU, >= 64 of k each */
static int32_t propose_splitk(const struct lt_problem *p)
{
	uint64_t tiles = ceil_div(p->m, 64) * ceil_div(p->n, 64) * (uint64_t)p->batch;
	int32_t s = 1;

	while (s < 8 && tiles * (uint64_t)(2 * s) <= (uint64_t)p->sm_count &&
	       p->k / (uint64_t)(2 * s) >= 64)
		s *= 2;
	return s;
}

/* the first reduction scheme the preference allows, output type first */
static uint32_t propose_reduction(uint32_t mask)
{
	if (mask & CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE)
		return CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
	if (mask & CUBLASLT_REDUCTION_SCHEME_INPLACE)
		return CUBLASLT_REDUCTION_SCHEME_INPLACE;
	if (mask & CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE)
		return CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
	return CUBLASLT_REDUCTION_SCHEME_NONE;
}

struct lt_cand {
	cublasLtMatmulHeuristicResult_t r;
	double factor;
};

static bool pref_allows(const struct lt_pref *pref, const struct lt_algo_need *need,
			uint64_t flags, size_t max_workspace)
{
	static const cublasLtMatmulPreferenceAttributes_t aligns[4] = {
		CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
		CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
		CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
		CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
	};
	float max_waves;

	if (need->workspace_bytes > max_workspace)
		return false;
	if (!pref)
		return true;
	/* the caller promises this alignment: algorithms that need more are out */
	for (int i = 0; i < 4; i++)
		if (lt_pref_u32(pref, aligns[i]) % need->align_bytes)
			return false;
	max_waves = lt_pref_f32(pref, CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT);
	if (max_waves > 0 && need->waves > max_waves)
		return false;
	return (flags & lt_pref_u64(pref, CUBLASLT_MATMUL_PREF_IMPL_MASK)) == flags;
}

/* one candidate configuration of algorithm id, if it fits; *c filled */
static bool candidate(const struct lt_problem *p, const struct lt_pref *pref, size_t max_ws,
		      int32_t id, struct lt_cand *c)
{
	enum lt_class cls = problem_class(p->compute, p->a.type, p->cc);
	uint64_t flags = impl_flags(cls, p->acc, p->a.type, p->in_round);
	uint32_t red_mask = pref ? lt_pref_u32(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK)
				 : CUBLASLT_REDUCTION_SCHEME_MASK;
	struct lt_algo_cfg cfg;
	struct lt_algo_need need;
	const struct lt_algo_def *def = algo_def(id);

	memset(c, 0, sizeof(*c));
	algo_init(&c->r.algo, id, lt_problem_signature(p), flags);
	lt_algo_read(&c->r.algo, &cfg);
	cfg.tile = def->tiles[0];
	cfg.stages = def->stages[0];
	cfg.swizzle = def->swizzle_max;
	if (id == 6) {
		/* the split-K algorithm is only offered where splitting helps */
		cfg.splitk = propose_splitk(p);
		cfg.reduction = propose_reduction(red_mask);
		if (cfg.splitk < 2 || !cfg.reduction || p->acc == LT_ACC_I32 || p->fp8 ||
		    p->acc == LT_ACC_F16)
			return false;
	}
	if (p->cc >= 90 && cls != LT_CLASS_SIMT)
		cfg.cluster_shape = CUBLASLT_CLUSTER_SHAPE_1x1x1;
	if (cls != LT_CLASS_SIMT)
		cfg.inner_shape = CUBLASLT_MATMUL_INNER_SHAPE_MMA16816;
	lt_algo_write(&c->r.algo, &cfg);
	if (lt_algo_fit(NULL, p, &cfg, &need) != CUBLAS_STATUS_SUCCESS) {
		return false;
	}
	if (!pref_allows(pref, &need, flags, max_ws))
		return false;
	c->r.workspaceSize = need.workspace_bytes;
	c->r.state = CUBLAS_STATUS_SUCCESS;
	c->r.wavesCount = need.waves;
	c->factor = need.time_factor;
	return true;
}

int lt_heuristic(const struct lt_problem *p, const struct lt_pref *pref, size_t max_workspace,
		 cublasLtMatmulHeuristicResult_t *out, int max)
{
	const int32_t *ids;
	size_t n_ids = class_ids(problem_class(p->compute, p->a.type, p->cc), &ids);
	struct lt_cand c[8];
	int n = 0, limit_id = -1;

	if (pref && lt_pref_u32(pref, CUBLASLT_MATMUL_PREF_SEARCH_MODE) ==
			    CUBLASLT_SEARCH_LIMITED_BY_ALGO_ID) {
		struct lt_algo_cfg cfg;

		/* out[0].algo holds the id to search, from cublasLtMatmulAlgoInit */
		if (!lt_algo_read(&out[0].algo, &cfg))
			return 0;
		limit_id = cfg.id;
	}
	for (size_t i = 0; i < n_ids && n < 8; i++)
		if ((limit_id < 0 || ids[i] == limit_id) &&
		    candidate(p, pref, max_workspace, ids[i], &c[n]))
			n++;
	/* fastest first, as the heuristic ranks them; insertion sort keeps ties in order */
	for (int i = 1; i < n; i++) {
		struct lt_cand x = c[i];
		int j = i;

		for (; j > 0 && c[j - 1].factor > x.factor; j--)
			c[j] = c[j - 1];
		c[j] = x;
	}
	if (n > max)
		n = max;
	for (int i = 0; i < n; i++)
		out[i] = c[i].r;
	return n;
}

/* ---------------------------------------------------------------- public algo API */

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle,
					      cublasLtMatmulDesc_t operationDesc,
					      cublasLtMatrixLayout_t Adesc,
					      cublasLtMatrixLayout_t Bdesc,
					      cublasLtMatrixLayout_t Cdesc,
					      cublasLtMatrixLayout_t Ddesc,
					      cublasLtMatmulPreference_t preference,
					      int requestedAlgoCount,
					      cublasLtMatmulHeuristicResult_t
						      heuristicResultsArray[],
					      int *returnAlgoCount)
{
	const char *fn = "cublasLtMatmulAlgoGetHeuristic";
	const struct lt_pref *pref = lt_pref_of(preference);
	struct lt_problem p;
	cublasStatus_t st;
	size_t max_ws;
	int n;

	if (!lt_handle_of(lightHandle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (requestedAlgoCount < 1 || !heuristicResultsArray || !returnAlgoCount ||
	    (preference && !pref))
		return CUBLAS_STATUS_INVALID_VALUE;
	*returnAlgoCount = 0;
	if ((st = lt_problem_read(fn, operationDesc, Adesc, Bdesc, Cdesc, Ddesc, &p)) !=
	    CUBLAS_STATUS_SUCCESS)
		return st;
	max_ws = pref ? (size_t)lt_pref_u64(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES) : 0;
	n = lt_heuristic(&p, pref, max_ws, heuristicResultsArray, requestedAlgoCount);
	*returnAlgoCount = n;
	if (!n) {
		lt_say(fn, "no algorithm fits the preference (workspace %zu bytes)", max_ws);
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t lightHandle,
					cublasComputeType_t computeType, cudaDataType_t scaleType,
					cudaDataType_t Atype, cudaDataType_t Btype,
					cudaDataType_t Ctype, cudaDataType_t Dtype,
					int requestedAlgoCount, int algoIdsArray[],
					int *returnAlgoCount)
{
	enum lt_acc acc;
	enum gbsim_precision prec;
	enum lt_input_round in_round;
	const int32_t *ids;
	size_t n_ids;
	int dev, cc, sms, n = 0;

	if (!lt_handle_of(lightHandle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (requestedAlgoCount < 1 || !algoIdsArray || !returnAlgoCount)
		return CUBLAS_STATUS_INVALID_VALUE;
	*returnAlgoCount = 0;
	if (combo_check(computeType, scaleType, Atype, Btype, Ctype, Dtype, &acc, &prec,
			&in_round) || device_info(&dev, &cc, &sms))
		return CUBLAS_STATUS_NOT_SUPPORTED;
	n_ids = class_ids(problem_class(computeType, Atype, cc), &ids);
	for (size_t i = 0; i < n_ids && n < requestedAlgoCount; i++)
		algoIdsArray[n++] = ids[i];
	*returnAlgoCount = n;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t lightHandle,
				      cublasComputeType_t computeType, cudaDataType_t scaleType,
				      cudaDataType_t Atype, cudaDataType_t Btype,
				      cudaDataType_t Ctype, cudaDataType_t Dtype, int algoId,
				      cublasLtMatmulAlgo_t *algo)
{
	enum lt_acc acc;
	enum gbsim_precision prec;
	enum lt_input_round in_round;
	const int32_t *ids;
	size_t n_ids;
	int dev, cc, sms;
	enum lt_class cls;

	if (!lt_handle_of(lightHandle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (!algo || !algo_def(algoId))
		return CUBLAS_STATUS_INVALID_VALUE;
	if (combo_check(computeType, scaleType, Atype, Btype, Ctype, Dtype, &acc, &prec,
			&in_round) || device_info(&dev, &cc, &sms))
		return CUBLAS_STATUS_NOT_SUPPORTED;
	cls = problem_class(computeType, Atype, cc);
	n_ids = class_ids(cls, &ids);
	for (size_t i = 0; i < n_ids; i++)
		if (ids[i] == algoId) {
			algo_init(algo, algoId,
				  types_signature(computeType, scaleType, Atype, Btype, Ctype,
						  Dtype),
				  impl_flags(cls, acc, Atype, in_round));
			return CUBLAS_STATUS_SUCCESS;
		}
	return CUBLAS_STATUS_NOT_SUPPORTED;
}

cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t lightHandle,
				       cublasLtMatmulDesc_t operationDesc,
				       cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
				       cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
				       const cublasLtMatmulAlgo_t *algo,
				       cublasLtMatmulHeuristicResult_t *result)
{
	const char *fn = "cublasLtMatmulAlgoCheck";
	struct lt_problem p;
	struct lt_algo_cfg cfg;
	struct lt_algo_need need;
	cublasLtMatmulAlgo_t copy;
	cublasStatus_t st;

	if (!lt_handle_of(lightHandle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (!algo || !result || !lt_algo_read(algo, &cfg))
		return CUBLAS_STATUS_INVALID_VALUE;
	copy = *algo;  /* result->algo may be *algo */
	if ((st = lt_problem_read(fn, operationDesc, Adesc, Bdesc, Cdesc, Ddesc, &p)) !=
	    CUBLAS_STATUS_SUCCESS)
		return st;
	if ((st = lt_algo_fit(fn, &p, &cfg, &need)) != CUBLAS_STATUS_SUCCESS)
		return st;
	memset(result, 0, sizeof(*result));
	result->algo = copy;
	result->workspaceSize = need.workspace_bytes;
	result->state = CUBLAS_STATUS_SUCCESS;
	result->wavesCount = need.waves;
	return CUBLAS_STATUS_SUCCESS;
}

/* write one capability: a scalar of exactly its size, or an array (size 0: how much) */
static cublasStatus_t cap_put(const void *value, size_t value_size, bool array, void *buf,
			      size_t size, size_t *written)
{
	if (!size) {
		if (!written)
			return CUBLAS_STATUS_INVALID_VALUE;
		*written = value_size;
		return CUBLAS_STATUS_SUCCESS;
	}
	if (!buf || (array ? size < value_size : size != value_size))
		return CUBLAS_STATUS_INVALID_VALUE;
	memcpy(buf, value, value_size);
	if (written)
		*written = value_size;
	return CUBLAS_STATUS_SUCCESS;
}

static size_t list_len(const uint32_t *list, size_t max)
{
	size_t n = 0;

	while (n < max && list[n])
		n++;
	return n;
}

cublasStatus_t cublasLtMatmulAlgoCapGetAttribute(const cublasLtMatmulAlgo_t *algo,
						 cublasLtMatmulAlgoCapAttributes_t attr, void *buf,
						 size_t sizeInBytes, size_t *sizeWritten)
{
	struct lt_algo_cfg cfg;
	const struct lt_algo_def *def;
	int32_t i32 = 0;
	uint32_t u32 = 0;
	uint64_t u64;

	if (!lt_algo_read(algo, &cfg) || !(def = algo_def(cfg.id)))
		return CUBLAS_STATUS_INVALID_VALUE;
	switch (attr) {
	case CUBLASLT_ALGO_CAP_SPLITK_SUPPORT:
		i32 = def->splitk;
		break;
	case CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK:
		u32 = def->reduction_mask;
		return cap_put(&u32, 4, false, buf, sizeInBytes, sizeWritten);
	case CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT:
		u32 = def->swizzle_max;
		return cap_put(&u32, 4, false, buf, sizeInBytes, sizeWritten);
	case CUBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT:
	case CUBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT:
		i32 = 1;
		break;
	case CUBLASLT_ALGO_CAP_UPLO_SUPPORT:
	case CUBLASLT_ALGO_CAP_CUSTOM_MEMORY_ORDER:
	case CUBLASLT_ALGO_CAP_LD_NEGATIVE:
	case CUBLASLT_ALGO_CAP_POINTER_ARRAY_BATCH_SUPPORT:
	case CUBLASLT_ALGO_CAP_FLOATING_POINT_EMULATION_SUPPORT:
		i32 = 0;
		break;
	case CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX:
		i32 = (int32_t)def->custom_max;
		break;
	case CUBLASLT_ALGO_CAP_TILE_IDS:
		return cap_put(def->tiles, 4 * list_len(def->tiles, 3), true, buf, sizeInBytes,
			       sizeWritten);
	case CUBLASLT_ALGO_CAP_STAGES_IDS:
		return cap_put(def->stages, 4 * list_len(def->stages, 2), true, buf, sizeInBytes,
			       sizeWritten);
	case CUBLASLT_ALGO_CAP_POINTER_MODE_MASK:
		u32 = CUBLASLT_POINTER_MODE_MASK_HOST | CUBLASLT_POINTER_MODE_MASK_DEVICE;
		return cap_put(&u32, 4, false, buf, sizeInBytes, sizeWritten);
	case CUBLASLT_ALGO_CAP_EPILOGUE_MASK:
		u32 = CUBLASLT_EPILOGUE_DEFAULT;
		return cap_put(&u32, 4, false, buf, sizeInBytes, sizeWritten);
	case CUBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS:
		u64 = algo->data[5];
		return cap_put(&u64, 8, false, buf, sizeInBytes, sizeWritten);
	case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES:
	case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES:
	case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES:
	case CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES:
		/* 0 (element alignment) reads as 1: the types are not known here */
		u32 = def->align ? def->align : 1;
		return cap_put(&u32, 4, false, buf, sizeInBytes, sizeWritten);
	default:
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	return cap_put(&i32, 4, false, buf, sizeInBytes, sizeWritten);
}

/* size of each configuration attribute (cublasLt.h), 0 for none */
static size_t config_size(cublasLtMatmulAlgoConfigAttributes_t attr)
{
	switch (attr) {
	case CUBLASLT_ALGO_CONFIG_ID:
	case CUBLASLT_ALGO_CONFIG_TILE_ID:
	case CUBLASLT_ALGO_CONFIG_SPLITK_NUM:
	case CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME:
	case CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING:
	case CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION:
	case CUBLASLT_ALGO_CONFIG_STAGES_ID:
		return 4;
	case CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID:
	case CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID:
		return 2;
	default:
		return 0;
	}
}

cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t *algo,
						    cublasLtMatmulAlgoConfigAttributes_t attr,
						    void *buf, size_t sizeInBytes,
						    size_t *sizeWritten)
{
	struct lt_algo_cfg cfg;
	size_t size = config_size(attr);
	uint32_t v32 = 0;
	uint16_t v16 = 0;

	if (!lt_algo_read(algo, &cfg) || !size)
		return CUBLAS_STATUS_INVALID_VALUE;
	switch (attr) {
	case CUBLASLT_ALGO_CONFIG_ID:
		v32 = (uint32_t)cfg.id;
		break;
	case CUBLASLT_ALGO_CONFIG_TILE_ID:
		v32 = cfg.tile;
		break;
	case CUBLASLT_ALGO_CONFIG_SPLITK_NUM:
		v32 = (uint32_t)cfg.splitk;
		break;
	case CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME:
		v32 = cfg.reduction;
		break;
	case CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING:
		v32 = cfg.swizzle;
		break;
	case CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION:
		v32 = cfg.custom;
		break;
	case CUBLASLT_ALGO_CONFIG_STAGES_ID:
		v32 = cfg.stages;
		break;
	case CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID:
		v16 = cfg.inner_shape;
		break;
	default:
		v16 = cfg.cluster_shape;
		break;
	}
	return cap_put(size == 4 ? (const void *)&v32 : (const void *)&v16, size, false, buf,
		       sizeInBytes, sizeWritten);
}

cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t *algo,
						    cublasLtMatmulAlgoConfigAttributes_t attr,
						    const void *buf, size_t sizeInBytes)
{
	struct lt_algo_cfg cfg;
	size_t size = config_size(attr);
	uint32_t v32 = 0;
	uint16_t v16 = 0;

	/* the id is read-only: set by cublasLtMatmulAlgoInit */
	if (!lt_algo_read(algo, &cfg) || !size || attr == CUBLASLT_ALGO_CONFIG_ID || !buf ||
	    sizeInBytes != size)
		return CUBLAS_STATUS_INVALID_VALUE;
	if (size == 4)
		memcpy(&v32, buf, 4);
	else
		memcpy(&v16, buf, 2);
	switch (attr) {
	case CUBLASLT_ALGO_CONFIG_TILE_ID:
		cfg.tile = v32;
		break;
	case CUBLASLT_ALGO_CONFIG_SPLITK_NUM:
		cfg.splitk = (int32_t)v32;
		break;
	case CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME:
		cfg.reduction = v32;
		break;
	case CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING:
		cfg.swizzle = v32;
		break;
	case CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION:
		cfg.custom = v32;
		break;
	case CUBLASLT_ALGO_CONFIG_STAGES_ID:
		cfg.stages = v32;
		break;
	case CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID:
		cfg.inner_shape = v16;
		break;
	default:
		cfg.cluster_shape = v16;
		break;
	}
	lt_algo_write(algo, &cfg);
	return CUBLAS_STATUS_SUCCESS;
}
