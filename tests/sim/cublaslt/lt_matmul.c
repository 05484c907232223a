/* SPDX-License-Identifier: MIT */
/*
 * lt_matmul.c - cublasLtMatmul on the CPU, in stream order.
 *
 * The call checks what the real library checks before it launches (handle,
 * descriptors, algorithm, workspace, operand alignment) and answers with the
 * same status; the product itself is queued on the stream with
 * gbsim_enqueue and runs on the stream's worker, where every pointer is
 * checked with gbsim_check_access as a kernel's loads would fault.
 *
 * Arithmetic, per output element, in the order a sequential dot product
 * takes (k ascending):
 *   COMPUTE_64F           double FMA
 *   COMPUTE_32F, FP32 in  float FMA (FFMA)
 *   COMPUTE_32F, 16-bit, FP8 or FAST_* in: inputs converted (FAST_TF32
 *                         rounds them with gbsim_tf32_round, FAST_16F/16BF to
 *                         half/bfloat16), products exact, float accumulation
 *   COMPUTE_16F           float sums of 16 products, each added to a half
 *                         accumulator with one rounding (HMMA, k = 16 per step)
 *   int8                  exact int32 (wrapping as the hardware does)
 * then the epilogue alpha * scaleA * scaleB * acc + beta * scaleC * C in the
 * compute type (C is not read when beta is 0), amax of that before the D
 * scale, the D scale for FP8 D, and one rounding to D's type.
 *
 * Split-K rounds where the reduction scheme says the partial results live
 * (see finish_column): OUTPUT_TYPE rounds each split's partial to D's type,
 * INPLACE also rounds every running sum, COMPUTE_TYPE rounds once at the end.
 * bench/gemm/gemm_math.c's gb_gemm_split_k_slack is what the product allows for.
 *
 * The CPU cost: gemm and stress size their batches from simulated time, so
 * thousands of identical GEMMs are queued. A small cache keyed by a 128-bit
 * hash of the inputs (A, B, C when read, scales, alpha, beta, shape, types,
 * algorithm) returns the stored D of an identical call: O(mk + kn + mn)
 * instead of O(mnk), and the same bits a recomputation would give.
 * GPUBENCH_SIM_LT_CACHE=0 turns it off. gemm rotates among hundreds of
 * distinct inputs, so there every call is computed: 16- and 8-bit operands
 * convert through tables, the inner loops have AVX2/FMA clones, and the
 * common FP32-accumulate epilogue stores from float (store_float_column).
 */
#include "tests/sim/cublaslt/lt_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

/* ---------------------------------------------------------------- elements */

static double load(cudaDataType_t t, const void *base, size_t idx)
{
	const unsigned char *b = base;
	uint16_t h;
	float f;
	double d;
	int32_t i;

	switch (t) {
	case CUDA_R_64F:
		memcpy(&d, b + 8 * idx, 8);
		return d;
	case CUDA_R_32F:
		memcpy(&f, b + 4 * idx, 4);
		return f;
	case CUDA_R_16F:
		memcpy(&h, b + 2 * idx, 2);
		return gbsim_f16_to_float(h);
	case CUDA_R_16BF:
		memcpy(&h, b + 2 * idx, 2);
		return gbsim_bf16_to_float(h);
	case CUDA_R_8F_E4M3:
		return gbsim_e4m3_to_float(b[idx]);
	case CUDA_R_8I:
		return (int8_t)b[idx];
	case CUDA_R_32I:
		memcpy(&i, b + 4 * idx, 4);
		return i;
	default:
		return NAN;
	}
}

/* v rounded to nearest even into type t (integers: nearest, saturating for int8) */
static void store(cudaDataType_t t, void *base, size_t idx, double v)
{
	unsigned char *b = base;
	uint16_t h;
	float f;
	int32_t i;

	switch (t) {
	case CUDA_R_64F:
		memcpy(b + 8 * idx, &v, 8);
		return;
	case CUDA_R_32F:
		f = (float)v;
		memcpy(b + 4 * idx, &f, 4);
		return;
	case CUDA_R_16F:
		h = gbsim_f16_from_double(v);
		memcpy(b + 2 * idx, &h, 2);
		return;
	case CUDA_R_16BF:
		h = gbsim_bf16_from_double(v);
		memcpy(b + 2 * idx, &h, 2);
		return;
	case CUDA_R_8F_E4M3:
		b[idx] = gbsim_e4m3_from_double(v);
		return;
	case CUDA_R_8I:
		v = isnan(v) ? 0 : nearbyint(v);
		b[idx] = (unsigned char)(int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
		return;
	case CUDA_R_32I:
		/* the int32 epilogue has already wrapped v into range */
		i = (int32_t)v;
		memcpy(b + 4 * idx, &i, 4);
		return;
	default:
		return;
	}
}

/* what storing v in type t and reading it back gives */
static double round_to(cudaDataType_t t, double v)
{
	unsigned char tmp[8];

	store(t, tmp, 0, v);
	return load(t, tmp, 0);
}

/* ---------------------------------------------------------------- the queued work */

struct lt_work {
	struct lt_problem p;
	struct lt_algo_need need;
	const void *a, *b, *c;
	void *d, *workspace;
	unsigned char alpha[8], beta[8];  /* host pointer mode: the values at call time */
	const void *alpha_dev, *beta_dev; /* device pointer mode: read when it runs */
	int device;                        /* the stream's */
};

/* the values the product needs, read when the work runs */
struct lt_calc {
	const struct lt_work *w;
	double alpha, beta;
	float scale[4];          /* A, B, C, D; 1 when not set */
	float alpha_ab;          /* alpha * scaleA * scaleB in float, as the FP32 epilogue uses */
	float beta_c;            /* beta * scaleC */
	bool amax;
	float amax_value;
};

static size_t scale_bytes(cudaDataType_t t)
{
	return lt_type_size(t);
}

static double scalar_value(cudaDataType_t t, const void *p)
{
	return load(t, p, 0);
}

/* bytes a matrix's kernel may touch: the last column's end, in the last batch */
static size_t mat_extent(const struct lt_mat *x)
{
	size_t es = lt_type_size(x->type);
	size_t one = ((size_t)(x->cols - 1) * (size_t)x->ld + (size_t)x->rows) * es;

	return one + (size_t)(x->batch - 1) * (size_t)x->batch_stride * es;
}

static cudaError_t read_scalars(struct lt_calc *x)
{
	const struct lt_work *w = x->w;
	size_t sb = scale_bytes(w->p.scale);
	cudaError_t e;

	if (w->p.pointer_mode == CUBLASLT_POINTER_MODE_DEVICE) {
		if ((e = gbsim_check_access(w->device, w->alpha_dev, sb, "cublasLtMatmul alpha")) ||
		    (e = gbsim_check_access(w->device, w->beta_dev, sb, "cublasLtMatmul beta")))
			return e;
		x->alpha = scalar_value(w->p.scale, w->alpha_dev);
		x->beta = scalar_value(w->p.scale, w->beta_dev);
	} else {
		x->alpha = scalar_value(w->p.scale, w->alpha);
		x->beta = scalar_value(w->p.scale, w->beta);
	}
	for (int i = 0; i < 4; i++) {
		static const char *const what[4] = {
			"cublasLtMatmul A scale", "cublasLtMatmul B scale",
			"cublasLtMatmul C scale", "cublasLtMatmul D scale",
		};
		const void *sp = w->p.scale_ptr[i];

		x->scale[i] = 1.0f;
		if (!sp)
			continue;
		if ((e = gbsim_check_access(w->device, sp, sizeof(float), what[i])))
			return e;
		memcpy(&x->scale[i], sp, sizeof(float));
	}
	x->alpha_ab = (float)x->alpha * x->scale[0] * x->scale[1];
	x->beta_c = (float)x->beta * x->scale[2];
	x->amax = w->p.amax_d != NULL;
	return cudaSuccess;
}

static cudaError_t check_operands(const struct lt_calc *x)
{
	const struct lt_work *w = x->w;
	cudaError_t e;

	if ((e = gbsim_check_access(w->device, w->a, mat_extent(&w->p.a), "cublasLtMatmul A")) ||
	    (e = gbsim_check_access(w->device, w->b, mat_extent(&w->p.b), "cublasLtMatmul B")) ||
	    (e = gbsim_check_access(w->device, w->d, mat_extent(&w->p.d), "cublasLtMatmul D")))
		return e;
	/* C is not read when beta is 0, as on the GPU */
	if (x->beta != 0 &&
	    (e = gbsim_check_access(w->device, w->c, mat_extent(&w->p.c), "cublasLtMatmul C")))
		return e;
	if (w->need.workspace_bytes &&
	    (e = gbsim_check_access(w->device, w->workspace, w->need.workspace_bytes,
				    "cublasLtMatmul workspace")))
		return e;
	if (x->amax &&
	    (e = gbsim_check_access(w->device, w->p.amax_d, sizeof(float), "cublasLtMatmul amax")))
		return e;
	return cudaSuccess;
}

/* ---------------------------------------------------------------- inner loops */

/* restrict: the operands, column and accumulators never overlap, so the loops vectorise */

/*
 * acc[i] += at[p][i] * bj[p] for p in [p0, p1): column j of one split.
 * FP32 and FP64 need a fused multiply-add (FFMA, DFMA); x86-64 gets a clone
 * with the FMA instruction where the CPU has it, fma()/fmaf() elsewhere.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LT_FMA_CLONES __attribute__((target_clones("fma", "default")))
/*
 * The loops without FMA: 256-bit vectors where the CPU has AVX2 (8 floats or
 * int32 per instruction; SSE2 has no 32-bit multiply), the baseline elsewhere.
 * -std=c11 keeps mul + add separate (no contraction), so the bits are the same.
 */
#define LT_VEC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LT_FMA_CLONES
#define LT_VEC_CLONES
#endif

LT_FMA_CLONES
static void col_f32_fma(const float *restrict at, const float *restrict bj, size_t m, size_t p0,
			size_t p1, float *restrict acc)
{
	for (size_t p = p0; p < p1; p++) {
		const float b = bj[p];
		const float *ap = at + p * m;

		for (size_t i = 0; i < m; i++)
			acc[i] = fmaf(ap[i], b, acc[i]);
	}
}

LT_FMA_CLONES
static void col_f64_fma(const double *restrict at, const double *restrict bj, size_t m,
			size_t p0, size_t p1, double *restrict acc)
{
	for (size_t p = p0; p < p1; p++) {
		const double b = bj[p];
		const double *ap = at + p * m;

		for (size_t i = 0; i < m; i++)
			acc[i] = fma(ap[i], b, acc[i]);
	}
}

/* inputs of at most 12 significant bits: every product is exact in float, so mul + add = FMA */
LT_VEC_CLONES
static void col_f32_exact_products(const float *restrict at, const float *restrict bj, size_t m,
				   size_t p0, size_t p1, float *restrict acc)
{
	for (size_t p = p0; p < p1; p++) {
		const float b = bj[p];
		const float *ap = at + p * m;

		for (size_t i = 0; i < m; i++)
			acc[i] += ap[i] * b;
	}
}

/*
 * COMPUTE_16F: as HMMA with half accumulators (mma.m16n8k16), each step of
 * 16 products is summed exactly enough (float, products exact) and added to
 * the half accumulator with one rounding to half.
 */
#define LT_F16_STEP 16

static void col_f16_acc(const float *at, const float *bj, size_t m, size_t p0, size_t p1,
			float *acc, float *step)
{
	for (size_t q = p0; q < p1; q += LT_F16_STEP) {
		size_t q1 = q + LT_F16_STEP < p1 ? q + LT_F16_STEP : p1;

		memset(step, 0, m * sizeof(*step));
		col_f32_exact_products(at, bj, m, q, q1, step);
		for (size_t i = 0; i < m; i++)
			acc[i] = gbsim_f16_to_float(
				gbsim_f16_from_double((double)acc[i] + (double)step[i]));
	}
}

LT_VEC_CLONES
static void col_i32(const int32_t *restrict at, const int32_t *restrict bj, size_t m, size_t p0,
		    size_t p1, int32_t *restrict acc)
{
	for (size_t p = p0; p < p1; p++) {
		const uint32_t b = (uint32_t)bj[p];
		const int32_t *ap = at + p * m;

		/* unsigned arithmetic: wraps as the hardware's int32 adds do, no UB */
		for (size_t i = 0; i < m; i++)
			acc[i] = (int32_t)((uint32_t)acc[i] + (uint32_t)ap[i] * b);
	}
}

/* ---------------------------------------------------------------- the product */

/* one operand converted to the compute representation, with the input rounding */
static double input_value(const struct lt_problem *p, cudaDataType_t t, const void *base,
			  size_t idx)
{
	double v = load(t, base, idx);

	switch (p->in_round) {
	case LT_IN_TF32:
		return gbsim_tf32_round((float)v);
	case LT_IN_F16:
		return gbsim_f16_to_float(gbsim_f16_from_float((float)v));
	case LT_IN_BF16:
		return gbsim_bf16_to_float(gbsim_bf16_from_float((float)v));
	default:
		return v;
	}
}

/*
 * input_value of every bit pattern of a 16- or 8-bit input type, one table per
 * (type, input rounding), built on first use: a GEMM converts m k + k n
 * operands, and the conversions' branches cost more than the lookups.
 */
#define LT_IN_ROUNDS 4

static pthread_mutex_t in_table_lock = PTHREAD_MUTEX_INITIALIZER;
static double *in_tables[4][LT_IN_ROUNDS]; /* 16F, 16BF, E4M3, 8I */

static int in_table_slot(cudaDataType_t t)
{
	switch (t) {
	case CUDA_R_16F:
		return 0;
	case CUDA_R_16BF:
		return 1;
	case CUDA_R_8F_E4M3:
		return 2;
	case CUDA_R_8I:
		return 3;
	default:
		return -1;
	}
}

/* the table for operands of type t, or NULL (wider types, or no memory: convert each) */
static const double *in_table(const struct lt_problem *p, cudaDataType_t t)
{
	int slot = in_table_slot(t);
	size_t count = lt_type_size(t) == 2 ? 65536 : 256;
	double *tab;

	if (slot < 0 || (unsigned)p->in_round >= LT_IN_ROUNDS)
		return NULL;
	pthread_mutex_lock(&in_table_lock);
	tab = in_tables[slot][p->in_round];
	if (!tab && (tab = malloc(count * sizeof(*tab)))) {
		for (size_t v = 0; v < count; v++) {
			/* as wide as load() may read, so no branch reads past it */
			unsigned char bytes[8] = { 0 };
			uint16_t bits = (uint16_t)v;

			memcpy(bytes, &bits, count == 256 ? 1 : 2);
			tab[v] = input_value(p, t, bytes, 0);
		}
		in_tables[slot][p->in_round] = tab;
	}
	pthread_mutex_unlock(&in_table_lock);
	return tab;
}

/* input_value through the type's table when it has one */
static double table_value(const struct lt_problem *p, const double *tab, cudaDataType_t t,
			  const void *base, size_t idx)
{
	uint16_t bits;

	if (!tab)
		return input_value(p, t, base, idx);
	if (lt_type_size(t) == 1)
		return tab[((const unsigned char *)base)[idx]];
	memcpy(&bits, (const unsigned char *)base + 2 * idx, 2);
	return tab[bits];
}

/* the compute representation: which of the three arrays a value goes to */
struct lt_arrays {
	size_t es;                 /* 4 or 8 */
	void *at, *bj, *acc, *sum; /* at: k x m (i fastest); bj: k; acc, sum: m */
	float *step;               /* m: COMPUTE_16F's exact 16-product steps */
	double *dval;              /* m: split-K partial results, rounded to D */
};

static void put_value(const struct lt_problem *p, void *arr, size_t idx, double v)
{
	if (p->acc == LT_ACC_F64)
		((double *)arr)[idx] = v;
	else if (p->acc == LT_ACC_I32)
		((int32_t *)arr)[idx] = (int32_t)v;
	else
		((float *)arr)[idx] = (float)v;
}

static double get_value(const struct lt_problem *p, const void *arr, size_t idx)
{
	if (p->acc == LT_ACC_F64)
		return ((const double *)arr)[idx];
	if (p->acc == LT_ACC_I32)
		return ((const int32_t *)arr)[idx];
	return ((const float *)arr)[idx];
}

static bool exact_products(const struct lt_problem *p)
{
	return p->in_round != LT_IN_EXACT || p->a.type == CUDA_R_16F ||
	       p->a.type == CUDA_R_16BF || p->fp8;
}

static void column(const struct lt_problem *p, const struct lt_arrays *r, size_t p0, size_t p1)
{
	size_t m = (size_t)p->m;

	memset(r->acc, 0, m * r->es);
	switch (p->acc) {
	case LT_ACC_F64:
		col_f64_fma(r->at, r->bj, m, p0, p1, r->acc);
		break;
	case LT_ACC_I32:
		col_i32(r->at, r->bj, m, p0, p1, r->acc);
		break;
	case LT_ACC_F16:
		col_f16_acc(r->at, r->bj, m, p0, p1, r->acc, r->step);
		break;
	default:
		if (exact_products(p))
			col_f32_exact_products(r->at, r->bj, m, p0, p1, r->acc);
		else
			col_f32_fma(r->at, r->bj, m, p0, p1, r->acc);
		break;
	}
}

/* alpha * scales * acc (+ beta * scaleC * c when with_c), in the compute type */
static double epilogue(const struct lt_calc *x, double acc, double c, bool with_c)
{
	const struct lt_problem *p = &x->w->p;
	bool add_c = with_c && x->beta != 0;

	switch (p->acc) {
	case LT_ACC_F64:
		return add_c ? x->alpha * acc + x->beta * c : x->alpha * acc;
	case LT_ACC_I32:
		if (p->scale == CUDA_R_32I) {
			/* int32 alpha and beta: wrapping int32 arithmetic */
			uint32_t v = (uint32_t)(int32_t)x->alpha * (uint32_t)(int32_t)acc;

			if (add_c)
				v += (uint32_t)(int32_t)x->beta * (uint32_t)(int32_t)c;
			return (int32_t)v;
		}
		/* float scale: the int32 sum converted, then the FP32 epilogue */
		return add_c ? (float)((float)x->alpha * (float)acc + (float)x->beta * (float)c)
			     : (float)((float)x->alpha * (float)acc);
	case LT_ACC_F16:
	default: {
		float v = x->alpha_ab * (float)acc;

		if (add_c)
			v = v + x->beta_c * (float)c;
		return v;
	}
	}
}

/* the epilogue's value on its way to D: amax, then the D scale for an FP8 D */
static double to_d(struct lt_calc *x, double v)
{
	const struct lt_problem *p = &x->w->p;

	if (x->amax && fabs(v) > x->amax_value)
		x->amax_value = (float)fabs(v);
	if (p->d.type == CUDA_R_8F_E4M3)
		v = (float)v * x->scale[3];
	return v;
}

/* the value of element (i, j) of op(A) or op(B) in batch b */
static size_t a_index(const struct lt_problem *p, uint64_t i, uint64_t kk, int32_t b)
{
	size_t off = (size_t)b * (size_t)p->a.batch_stride;

	return off + (p->transa == CUBLAS_OP_N ? (size_t)(i + kk * (uint64_t)p->a.ld)
					       : (size_t)(kk + i * (uint64_t)p->a.ld));
}

static size_t b_index(const struct lt_problem *p, uint64_t kk, uint64_t j, int32_t b)
{
	size_t off = (size_t)b * (size_t)p->b.batch_stride;

	return off + (p->transb == CUBLAS_OP_N ? (size_t)(kk + j * (uint64_t)p->b.ld)
					       : (size_t)(j + kk * (uint64_t)p->b.ld));
}

/*
 * The last step of finish_column for the common case, with fewer calls per
 * element: float accumulators (COMPUTE_32F, 16F), no amax, D in FP32, FP16
 * or BF16. The arithmetic is epilogue's float arithmetic; the value is a
 * float, so converting it from float rounds as store's conversion from
 * double does. false: not this case, nothing written.
 */
static bool store_float_column(const struct lt_calc *x, const float *sum, size_t c_off,
			       void *out)
{
	const struct lt_work *w = x->w;
	const struct lt_problem *p = &w->p;
	cudaDataType_t dt = p->d.type;
	size_t m = (size_t)p->m;

	if ((p->acc != LT_ACC_F32 && p->acc != LT_ACC_F16) || x->amax ||
	    (dt != CUDA_R_32F && dt != CUDA_R_16F && dt != CUDA_R_16BF))
		return false;
	for (size_t i = 0; i < m; i++) {
		float v = x->alpha_ab * sum[i];
		uint16_t h;

		if (x->beta != 0)
			v = v + x->beta_c * (float)load(p->c.type, w->c, c_off + i);
		if (dt == CUDA_R_32F) {
			memcpy((float *)out + i, &v, sizeof(v));
			continue;
		}
		h = dt == CUDA_R_16F ? gbsim_f16_from_float(v) : gbsim_bf16_from_float(v);
		memcpy((uint16_t *)out + i, &h, sizeof(h));
	}
	return true;
}

/*
 * Column j of D (one batch) from its splits, into out (m packed elements of
 * D's type). The reduction scheme decides where the roundings fall:
 *   COMPUTE_TYPE  partial sums added in the compute type, one epilogue;
 *   OUTPUT_TYPE   each split's partial stored in D's type (rounded) in the
 *                 workspace, the stored partials added in the compute type,
 *                 one epilogue and one rounding to D;
 *   INPLACE       D itself accumulates: the first split's result (with
 *                 beta C) rounded to D, each further alpha * partial rounded
 *                 to D and added, the sum rounded again.
 */
static void finish_column(struct lt_calc *x, struct lt_arrays *r, int32_t b, uint64_t j,
			  void *out)
{
	const struct lt_work *w = x->w;
	const struct lt_problem *p = &w->p;
	size_t m = (size_t)p->m, s = (size_t)w->need.splitk, chunk = (size_t)(p->k + s - 1) / s;
	bool inplace = s > 1 && w->need.reduction == CUBLASLT_REDUCTION_SCHEME_INPLACE;
	bool in_output = s > 1 && w->need.reduction == CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
	size_t c_off = (size_t)b * (size_t)p->c.batch_stride + (size_t)j * (size_t)p->c.ld;

	for (size_t sp = 0; sp < s; sp++) {
		size_t p0 = sp * chunk, p1 = p0 + chunk > p->k ? (size_t)p->k : p0 + chunk;

		column(p, r, p0, p1);
		for (size_t i = 0; i < m; i++) {
			double acc = get_value(p, r->acc, i);

			if (inplace) {
				bool with_c = sp == 0 && x->beta != 0;
				double cv = with_c ? load(p->c.type, w->c, c_off + i) : 0;
				double part = round_to(p->d.type, epilogue(x, acc, cv, with_c));

				r->dval[i] = sp ? round_to(p->d.type, r->dval[i] + part) : part;
				continue;
			}
			if (in_output)
				acc = round_to(p->d.type, acc);
			put_value(p, r->sum, i, sp ? get_value(p, r->sum, i) + acc : acc);
		}
	}
	if (!inplace && store_float_column(x, r->sum, c_off, out))
		return;
	for (size_t i = 0; i < m; i++) {
		double v;

		if (inplace) {
			v = r->dval[i];
		} else {
			double cv = x->beta != 0 ? load(p->c.type, w->c, c_off + i) : 0;

			v = to_d(x, epilogue(x, get_value(p, r->sum, i), cv, true));
		}
		store(p->d.type, out, i, v);
	}
}

/* the whole product into out: m x n x batch packed elements of D's type */
static int compute(struct lt_calc *x, void *out)
{
	const struct lt_work *w = x->w;
	const struct lt_problem *p = &w->p;
	size_t m = (size_t)p->m, n = (size_t)p->n, k = (size_t)p->k;
	size_t es = p->acc == LT_ACC_F64 ? 8 : 4, ds = lt_type_size(p->d.type);
	struct lt_arrays r = { es,
			       malloc(es * m * k), malloc(es * k), malloc(es * m), malloc(es * m),
			       malloc(sizeof(float) * m), malloc(sizeof(double) * m) };
	const double *ta = in_table(p, p->a.type), *tb = in_table(p, p->b.type);
	int rc = 0;

	if (!r.at || !r.bj || !r.acc || !r.sum || !r.step || !r.dval) {
		rc = -1;
		goto out;
	}
	for (int32_t b = 0; b < p->batch; b++) {
		for (size_t kk = 0; kk < k; kk++)
			for (size_t i = 0; i < m; i++)
				put_value(p, r.at, kk * m + i,
					  table_value(p, ta, p->a.type, w->a, a_index(p, i, kk, b)));
		for (size_t j = 0; j < n; j++) {
			for (size_t kk = 0; kk < k; kk++)
				put_value(p, r.bj, kk,
					  table_value(p, tb, p->b.type, w->b, b_index(p, kk, j, b)));
			finish_column(x, &r, b, j, (char *)out + ((size_t)b * n + j) * m * ds);
		}
	}
out:
	free(r.at);
	free(r.bj);
	free(r.acc);
	free(r.sum);
	free(r.step);
	free(r.dval);
	return rc;
}

/* packed result -> D with its leading dimension and batch stride */
static void write_d_at(const struct lt_problem *p, void *d, const void *packed)
{
	size_t m = (size_t)p->m, ds = lt_type_size(p->d.type);

	for (int32_t b = 0; b < p->batch; b++)
		for (uint64_t j = 0; j < p->n; j++)
			memcpy((char *)d + ((size_t)b * (size_t)p->d.batch_stride +
					    (size_t)j * (size_t)p->d.ld) * ds,
			       (const char *)packed + ((size_t)b * (size_t)p->n + j) * m * ds,
			       m * ds);
}

static void write_d(const struct lt_work *w, const void *packed)
{
	write_d_at(&w->p, w->d, packed);
}

/* ---------------------------------------------------------------- the cache */

/*
 * gemm rotates among enough copies of A and B to exceed twice the L2 (about
 * 100 with 256^3 FP64 on an H100), so the cache holds many results, within
 * a byte budget; the least recently used go first. One result may take a
 * quarter of it: stress's default 4096^2 FP32 results are 64 MiB each, and a
 * product not kept is computed again at every GEMM (minutes of CPU each).
 */
#define LT_CACHE_ENTRIES 1024
#define LT_CACHE_BUDGET_BYTES ((size_t)1 << 30)

struct lt_cache_entry {
	uint64_t key[2];
	size_t bytes;
	void *data;
	float amax;
	uint64_t used;
	int pins;     /* deferred writes of D still to copy it: not evicted meanwhile */
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lt_cache_entry cache[LT_CACHE_ENTRIES];
static uint64_t cache_clock;
static size_t cache_bytes;

static bool cache_enabled(void)
{
	const char *e = getenv("GPUBENCH_SIM_LT_CACHE");

	return !(e && e[0] == '0');
}


/*
 * The digest of an operand's bytes, remembered with the operand's write
 * stamp (sim.h): while nothing may have written it, the stamp is unchanged
 * and the digest is not computed again. gemm queues thousands of GEMMs on
 * the same A and B, and hashing them was most of a call's time.
 */
#define LT_MEMO_ENTRIES 1024

struct lt_memo {
	const void *p;
	size_t bytes;
	struct gbsim_mem_stamp stamp;
	uint64_t digest[2];
};

static struct lt_memo memo[LT_MEMO_ENTRIES]; /* under cache_lock, one slot per (p, bytes) hash */

static struct lt_memo *memo_slot(const void *p, size_t bytes)
{
	uint64_t h = ((uint64_t)(uintptr_t)p >> 8) * 0x9e3779b97f4a7c15ULL ^ bytes;

	return &memo[(h >> 40) % LT_MEMO_ENTRIES];
}

static void operand_digest(const void *p, size_t bytes, uint64_t digest[2])
{
	struct gbsim_mem_stamp st;
	bool stamped = gbsim_mem_stamp(p, bytes, &st);
	struct lt_memo *e = memo_slot(p, bytes);
	bool known;

	if (stamped) {
		pthread_mutex_lock(&cache_lock);
		known = e->p == p && e->bytes == bytes && e->stamp.epoch == st.epoch &&
			e->stamp.version == st.version;
		if (known)
			memcpy(digest, e->digest, sizeof(e->digest));
		pthread_mutex_unlock(&cache_lock);
		if (known)
			return;
	}
	digest[0] = 0x3c6ef372fe94f82bULL;
	digest[1] = 0xa54ff53a5f1d36f1ULL;
	gbsim_hash_bytes(digest, p, bytes);
	if (!stamped)
		return;
	pthread_mutex_lock(&cache_lock);
	*e = (struct lt_memo){ p, bytes, st, { digest[0], digest[1] } };
	pthread_mutex_unlock(&cache_lock);
}

static void operand_into_key(uint64_t key[2], const void *p, size_t bytes)
{
	uint64_t digest[2];

	operand_digest(p, bytes, digest);
	gbsim_hash_bytes(key, digest, sizeof(digest));
}

/* everything the result depends on */
static void cache_key(const struct lt_calc *x, uint64_t key[2])
{
	const struct lt_work *w = x->w;
	struct {
		struct lt_problem p;
		int32_t splitk;
		uint32_t reduction;
		double alpha, beta;
		float scale[4];
	} k;

	memset(&k, 0, sizeof(k));
	k.p = w->p;
	/* pointers are not part of the key (their contents are); the device is not either */
	memset(k.p.scale_ptr, 0, sizeof(k.p.scale_ptr));
	k.p.amax_d = NULL;
	k.p.device = 0;
	k.p.sm_count = 0;
	k.splitk = w->need.splitk;
	k.reduction = w->need.reduction;
	k.alpha = x->alpha;
	k.beta = x->beta;
	memcpy(k.scale, x->scale, sizeof(k.scale));
	key[0] = 0x243f6a8885a308d3ULL;
	key[1] = 0x13198a2e03707344ULL;
	gbsim_hash_bytes(key, &k, sizeof(k));
	operand_into_key(key, w->a, mat_extent(&w->p.a));
	operand_into_key(key, w->b, mat_extent(&w->p.b));
	if (x->beta != 0)
		operand_into_key(key, w->c, mat_extent(&w->p.c));
}

/* The entry stored for key, pinned (unpin it when its D is written), or NULL. */
static struct lt_cache_entry *cache_pin(const uint64_t key[2], size_t bytes, float *amax)
{
	struct lt_cache_entry *hit = NULL;

	pthread_mutex_lock(&cache_lock);
	for (int i = 0; i < LT_CACHE_ENTRIES && !hit; i++) {
		struct lt_cache_entry *e = &cache[i];

		if (e->data && e->bytes == bytes && e->key[0] == key[0] && e->key[1] == key[1]) {
			*amax = e->amax;
			e->used = ++cache_clock;
			e->pins++;
			hit = e;
		}
	}
	pthread_mutex_unlock(&cache_lock);
	return hit;
}

static void cache_unpin(struct lt_cache_entry *e)
{
	pthread_mutex_lock(&cache_lock);
	e->pins--;
	pthread_mutex_unlock(&cache_lock);
}

/* the least recently used unpinned entry, or a free one; NULL if all are pinned (cache_lock held) */
static struct lt_cache_entry *cache_victim(void)
{
	struct lt_cache_entry *victim = NULL;

	for (int i = 0; i < LT_CACHE_ENTRIES; i++) {
		if (!cache[i].data)
			return &cache[i];
		if (!cache[i].pins && (!victim || cache[i].used < victim->used))
			victim = &cache[i];
	}
	return victim;
}

/* the least recently used unpinned entry that holds a result, or NULL (cache_lock held) */
static struct lt_cache_entry *cache_oldest(void)
{
	struct lt_cache_entry *old = NULL;

	for (int i = 0; i < LT_CACHE_ENTRIES; i++)
		if (cache[i].data && !cache[i].pins && (!old || cache[i].used < old->used))
			old = &cache[i];
	return old;
}

static void cache_drop(struct lt_cache_entry *e)
{
	cache_bytes -= e->bytes;
	free(e->data);
	memset(e, 0, sizeof(*e));
}

/*
 * Keep a copy of a result, pinned; NULL when it is not kept (too big, no
 * host memory, or every entry pinned): the caller then writes D at once.
 */
static struct lt_cache_entry *cache_put(const uint64_t key[2], const void *data, size_t bytes,
					float amax)
{
	struct lt_cache_entry *slot = NULL, *old;
	void *copy;

	if (bytes > LT_CACHE_BUDGET_BYTES / 4 || !(copy = malloc(bytes)))
		return NULL;
	memcpy(copy, data, bytes);
	pthread_mutex_lock(&cache_lock);
	/* make room within the budget, then take a free (or the oldest) entry */
	while (cache_bytes + bytes > LT_CACHE_BUDGET_BYTES && (old = cache_oldest()))
		cache_drop(old);
	if (cache_bytes + bytes <= LT_CACHE_BUDGET_BYTES && (slot = cache_victim())) {
		if (slot->data)
			cache_drop(slot);
		*slot = (struct lt_cache_entry){ { key[0], key[1] }, bytes, copy, amax,
						 ++cache_clock, 1 };
		cache_bytes += bytes;
	}
	pthread_mutex_unlock(&cache_lock);
	if (!slot)
		free(copy);
	return slot;
}

/* ---------------------------------------------------------------- deferred writes of D */

/*
 * A GEMM whose result is in the cache does not copy it to D at once: D is
 * remembered as holding that entry, and the copy happens only when someone
 * may look (sim.h gbsim_set_deferred_hooks): before any kernel, copy or
 * collective, before a GEMM that reads the range, or never, when the next
 * GEMM into the same D replaces it. So gemm's thousands of timed GEMMs into
 * one D cost a lookup each. The bits D ends up with are the same.
 */
/*
 * Enough for every result slot stress keeps on every GPU (1024^2 FP32 slots in
 * half of a 512 MiB GPU are about 60 a GPU): a full table writes its oldest
 * entry at each GEMM, a copy of a whole D every time.
 */
#define LT_PENDING_MAX 1024

struct lt_pending {
	void *d;                   /* NULL: a free slot */
	size_t extent;             /* bytes from d the write covers */
	struct lt_problem p;       /* D's layout */
	struct lt_cache_entry *e;  /* the result, pinned */
};

static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER; /* before cache_lock */
static struct lt_pending pending[LT_PENDING_MAX];
static _Atomic int n_pending;

static bool overlaps(const void *a, size_t an, const void *b, size_t bn)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y + bn && y < x + an;
}

/* pending_lock held: copy one deferred result to its D and free the slot */
static void pending_write(struct lt_pending *q)
{
	write_d_at(&q->p, q->d, q->e->data);
	cache_unpin(q->e);
	memset(q, 0, sizeof(*q));
	n_pending--;
}

/* Write every deferred D that overlaps [p, p + bytes) (bytes 0: every one). */
static void flush_range(const void *p, size_t bytes)
{
	if (!atomic_load(&n_pending))
		return;
	pthread_mutex_lock(&pending_lock);
	for (int i = 0; i < LT_PENDING_MAX; i++)
		if (pending[i].d && (!bytes || overlaps(p, bytes, pending[i].d, pending[i].extent)))
			pending_write(&pending[i]);
	pthread_mutex_unlock(&pending_lock);
}


/* Drop, unwritten, the deferred writes into [base, base + size) (size 0: all): it is freed. */
static void forget_range(const void *base, size_t size)
{
	pthread_mutex_lock(&pending_lock);
	for (int i = 0; i < LT_PENDING_MAX; i++) {
		struct lt_pending *q = &pending[i];

		if (q->d && (!size || overlaps(base, size, q->d, q->extent))) {
			cache_unpin(q->e);
			memset(q, 0, sizeof(*q));
			n_pending--;
		}
	}
	pthread_mutex_unlock(&pending_lock);
}

/* D's elements fill its extent with no gap: its bytes are the packed result's, and nothing else */
static bool dense_d(const struct lt_problem *p)
{
	return (uint64_t)p->d.ld == p->m &&
	       (p->batch == 1 || (uint64_t)p->d.batch_stride == p->m * p->n);
}

/* Is [p, p + bytes) exactly one deferred D? Its name: the result's key, D's type and shape. */
static bool deferred_content(const void *p, size_t bytes, uint64_t digest[2])
{
	bool found = false;

	if (!atomic_load(&n_pending))
		return false;
	pthread_mutex_lock(&pending_lock);
	for (int i = 0; i < LT_PENDING_MAX && !found; i++) {
		const struct lt_pending *q = &pending[i];
		uint64_t shape[4];

		if (q->d != p || q->extent != bytes || !dense_d(&q->p))
			continue;
		shape[0] = (uint64_t)q->p.d.type;
		shape[1] = q->p.m;
		shape[2] = q->p.n;
		shape[3] = (uint64_t)q->p.batch;
		digest[0] = 0x6c742064656665ull; /* "lt defe": apart from hashes of bytes */
		digest[1] = 0x7272656420445full;
		gbsim_hash_bytes(digest, q->e->key, sizeof(q->e->key));
		gbsim_hash_bytes(digest, shape, sizeof(shape));
		found = true;
	}
	pthread_mutex_unlock(&pending_lock);
	return found;
}

__attribute__((constructor)) static void register_deferred_writes(void)
{
	gbsim_set_deferred_hooks(flush_range, forget_range, deferred_content);
}

/*
 * D will hold entry e (pinned by the caller; this takes the pin over): an
 * earlier deferred write to exactly this D is replaced unwritten, one that
 * overlaps it otherwise is written first.
 */
static void defer_d(const struct lt_work *w, struct lt_cache_entry *e)
{
	size_t extent = mat_extent(&w->p.d);
	struct lt_pending *free_slot = NULL;

	pthread_mutex_lock(&pending_lock);
	for (int i = 0; i < LT_PENDING_MAX; i++) {
		struct lt_pending *q = &pending[i];

		if (q->d == w->d && q->extent == extent && !memcmp(&q->p.d, &w->p.d, sizeof(q->p.d)) &&
		    q->p.m == w->p.m && q->p.n == w->p.n && q->p.batch == w->p.batch) {
			cache_unpin(q->e);
			memset(q, 0, sizeof(*q));
			n_pending--;
		} else if (q->d && overlaps(q->d, q->extent, w->d, extent)) {
			pending_write(q);
		}
		if (!q->d && !free_slot)
			free_slot = q;
	}
	if (!free_slot) { /* full: the oldest is as good as any */
		free_slot = &pending[0];
		pending_write(free_slot);
	}
	*free_slot = (struct lt_pending){ w->d, extent, w->p, e };
	n_pending++;
	pthread_mutex_unlock(&pending_lock);
	gbsim_mem_wrote(w->d, mat_extent(&w->p.d));
}

/* ---------------------------------------------------------------- work callbacks */

/* whether [p, p + bytes) is device memory (stamped), which only queued work reads */
static bool device_range(const void *p, size_t bytes)
{
	struct gbsim_mem_stamp st;

	return gbsim_mem_stamp(p, bytes, &st);
}

/* D now, not deferred: after any older deferred write to it, which must not land later */
static void write_result(const struct lt_work *w, const void *packed)
{
	flush_range(w->d, mat_extent(&w->p.d));
	write_d(w, packed);
	gbsim_mem_wrote(w->d, mat_extent(&w->p.d));
}

/*
 * A "bitflip_gemm" fault (docs/simulation.md) on this GPU, triggered
 * (after_s; the launch and allocation counts are the runtime's and not
 * seen here): every GEMM's output element (m/2, n/2) of batch 0 has its
 * second-highest bit flipped (a float's top exponent bit: far outside any
 * rounding bound). D is written first, so the flip is not cached.
 */
static bool bitflip_active(int device)
{
	const struct gbsim_machine *m = gbsim_machine();

	for (int i = 0; i < m->fault_count; i++) {
		const struct gbsim_fault *f = &m->faults[i];

		if (f->kind == GBSIM_FAULT_BITFLIP_GEMM && (f->gpu < 0 || f->gpu == device) &&
		    (f->after_s < 0 || gbsim_now_s() >= f->after_s))
			return true;
	}
	return false;
}

static void flip_if_faulty(const struct lt_work *w)
{
	size_t es = lt_type_size(w->p.d.type);
	size_t at = ((size_t)(w->p.n / 2) * (size_t)w->p.d.ld + (size_t)(w->p.m / 2)) * es;
	unsigned char *byte;

	if (!bitflip_active(w->device))
		return;
	flush_range(w->d, mat_extent(&w->p.d));
	byte = (unsigned char *)w->d + at + es - 1; /* little-endian: the top byte */
	*byte ^= 0x40;
	gbsim_mem_wrote(w->d, mat_extent(&w->p.d));
}

static cudaError_t work_run(void *ctx)
{
	struct lt_work *w = ctx;
	struct lt_calc x = { .w = w };
	size_t bytes = (size_t)(w->p.m * w->p.n) * (size_t)w->p.batch * lt_type_size(w->p.d.type);
	struct lt_cache_entry *kept = NULL;
	bool use_cache = cache_enabled();
	uint64_t key[2];
	void *packed;
	cudaError_t e;

	if ((e = read_scalars(&x)) || (e = check_operands(&x)))
		return e;
	/* what this GEMM reads must hold its deferred results first */
	flush_range(w->a, mat_extent(&w->p.a));
	flush_range(w->b, mat_extent(&w->p.b));
	if (x.beta != 0)
		flush_range(w->c, mat_extent(&w->p.c));
	if (use_cache) {
		cache_key(&x, key);
		kept = cache_pin(key, bytes, &x.amax_value);
		if (kept && device_range(w->d, mat_extent(&w->p.d)))
			goto deliver;
		if (kept) { /* D in host memory: written at once, as below */
			write_result(w, kept->data);
			cache_unpin(kept);
			kept = NULL;
			goto done;
		}
	}
	packed = malloc(bytes);
	if (!packed) {
		gbsim_log("cublasLtMatmul: out of host memory for a %zu-byte result", bytes);
		return cudaErrorMemoryAllocation;
	}
	if (compute(&x, packed)) {
		free(packed);
		gbsim_log("cublasLtMatmul: out of host memory for the product");
		return cudaErrorMemoryAllocation;
	}
	if (use_cache)
		kept = cache_put(key, packed, bytes, x.amax_value);
	if (kept && !device_range(w->d, mat_extent(&w->p.d))) {
		cache_unpin(kept); /* the host may read host memory any time: no deferring */
		kept = NULL;
	}
	if (!kept)
		write_result(w, packed);
	free(packed);
deliver:
	if (kept)
		defer_d(w, kept);
done:
	if (x.amax) {
		memcpy(w->p.amax_d, &x.amax_value, sizeof(float));
		gbsim_mem_wrote(w->p.amax_d, sizeof(float));
	}
	flip_if_faulty(w);
	return cudaSuccess;
}

static void work_free(void *ctx)
{
	free(ctx);
}

/* simulated seconds: 2mnk at the precision's peak, slowed by the algorithm's factor */
static double work_seconds(const struct lt_work *w, bool reads_c)
{
	const struct lt_problem *p = &w->p;
	struct gbsim_cost c;

	memset(&c, 0, sizeof(c));
	c.flops = 2.0 * (double)p->m * (double)p->n * (double)p->k * (double)p->batch *
		  w->need.time_factor;
	c.prec = p->prec;
	/*
	 * The catalog's FP16 figure is the FP32-accumulate rate, which GeForce
	 * parts run at half the FP16-accumulate one: COMPUTE_16F goes twice as fast.
	 */
	if (p->geforce && p->acc == LT_ACC_F16)
		c.flops /= 2;
	c.bytes = lt_problem_bytes(p, reads_c) + 2.0 * (double)w->need.workspace_bytes;
	return gbsim_cost_seconds(w->device, &c);
}

/* ---------------------------------------------------------------- cublasLtMatmul */

/* the largest power of two, up to 256, that the address is a multiple of */
static uint32_t pointer_alignment(const void *ptr)
{
	uintptr_t a = (uintptr_t)ptr;
	uintptr_t low = a & (~a + 1);

	return !a || low > 256 ? 256 : (uint32_t)low;
}

/* algo NULL: the implicit heuristic query, knowing the pointers' alignment */
static cublasStatus_t pick_algo(const struct lt_problem *p, const void *const ptr[4],
				size_t workspace_bytes, cublasLtMatmulAlgo_t *algo)
{
	static const cublasLtMatmulPreferenceAttributes_t aligns[4] = {
		CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
		CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
		CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
		CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
	};
	cublasLtMatmulHeuristicResult_t r;
	cublasLtMatmulPreference_t pref;
	int n;

	if (cublasLtMatmulPreferenceCreate(&pref) != CUBLAS_STATUS_SUCCESS)
		return CUBLAS_STATUS_ALLOC_FAILED;
	for (int i = 0; i < 4; i++) {
		uint32_t a = pointer_alignment(ptr[i]);

		cublasLtMatmulPreferenceSetAttribute(pref, aligns[i], &a, sizeof(a));
	}
	n = lt_heuristic(p, lt_pref_of(pref), workspace_bytes, &r, 1);
	cublasLtMatmulPreferenceDestroy(pref);
	if (n < 1) {
		lt_say("cublasLtMatmul", "no algorithm for these descriptors and pointers");
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	*algo = r.algo;
	return CUBLAS_STATUS_SUCCESS;
}

/* what the chosen algorithm needs of the call: workspace, alignment, C and D agreeing */
static cublasStatus_t call_check(const struct lt_problem *p, const struct lt_algo_need *need,
				 const void *const ptr[4], void *workspace, size_t ws_bytes)
{
	static const char *const names[4] = { "A", "B", "C", "D" };

	if (need->workspace_bytes > ws_bytes || (need->workspace_bytes && !workspace)) {
		lt_say("cublasLtMatmul", "the algorithm needs %zu bytes of workspace, %zu given",
		       need->workspace_bytes, workspace ? ws_bytes : 0);
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	for (int i = 0; i < 4; i++)
		if (ptr[i] && (uintptr_t)ptr[i] % need->align_bytes) {
			lt_say("cublasLtMatmul", "%s at %p is not %u-byte aligned, as the "
			       "algorithm needs", names[i], ptr[i], need->align_bytes);
			return CUBLAS_STATUS_NOT_SUPPORTED;
		}
	if (ptr[2] == ptr[3] && (p->c.ld != p->d.ld || p->c.type != p->d.type ||
				 p->c.batch_stride != p->d.batch_stride)) {
		lt_say("cublasLtMatmul", "C and D are one buffer with different layouts");
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t enqueue(struct lt_work *w, cudaStream_t stream, bool reads_c)
{
	struct gbsim_work gw;
	cudaError_t e;

	memset(&gw, 0, sizeof(gw));
	gw.what = "cublasLtMatmul";
	gw.run = work_run;
	gw.ctx = w;
	gw.free_ctx = work_free;
	gw.seconds = work_seconds(w, reads_c);
	gw.writes_declared = true; /* D and amax, through gbsim_mem_wrote */
	e = gbsim_enqueue(stream, &gw);
	if (e != cudaSuccess) {
		/* not queued: the runtime did not take the context */
		free(w);
		lt_say("cublasLtMatmul", "the stream refused the work: %s", cudaGetErrorName(e));
		return CUBLAS_STATUS_EXECUTION_FAILED;
	}
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
			      const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
			      const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
			      const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
			      cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
			      void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream)
{
	const char *fn = "cublasLtMatmul";
	struct lt_work *w;
	struct lt_problem p;
	struct lt_algo_cfg cfg;
	struct lt_algo_need need;
	cublasLtMatmulAlgo_t chosen;
	const void *ptr[4] = { A, B, C, D };
	bool host_mode, reads_c;
	cublasStatus_t st;

	if (!lt_handle_of(lightHandle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (!alpha || !beta || !A || !B || !D) {
		lt_say(fn, "alpha, beta, A, B or D is NULL");
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	if ((st = lt_problem_read(fn, computeDesc, Adesc, Bdesc, Cdesc, Ddesc, &p)))
		return st;
	host_mode = p.pointer_mode == CUBLASLT_POINTER_MODE_HOST;
	reads_c = !host_mode || scalar_value(p.scale, beta) != 0;
	if (!C && reads_c) {
		lt_say(fn, "C is NULL and beta is not 0");
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	if (algo)
		chosen = *algo;
	else if ((st = pick_algo(&p, ptr, workspaceSizeInBytes, &chosen)))
		return st;
	if (!lt_algo_read(&chosen, &cfg)) {
		lt_say(fn, "the algo was not initialised (AlgoInit or the heuristic)");
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	if ((st = lt_algo_fit(fn, &p, &cfg, &need)) ||
	    (st = call_check(&p, &need, ptr, workspace, workspaceSizeInBytes)))
		return st;
	w = calloc(1, sizeof(*w));
	if (!w)
		return CUBLAS_STATUS_ALLOC_FAILED;
	w->p = p;
	w->need = need;
	w->a = A;
	w->b = B;
	w->c = C ? C : D;
	w->d = D;
	w->workspace = workspace;
	w->device = gbsim_stream_device(stream);
	if (host_mode) {
		memcpy(w->alpha, alpha, scale_bytes(p.scale));
		memcpy(w->beta, beta, scale_bytes(p.scale));
	} else {
		w->alpha_dev = alpha;
		w->beta_dev = beta;
	}
	return enqueue(w, stream, reads_c);
}
