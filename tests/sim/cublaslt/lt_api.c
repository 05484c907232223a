/* SPDX-License-Identifier: MIT */
/*
 * lt_api.c - the simulated cuBLASLt: library handle, versions, status names,
 * and the matmul, layout and preference descriptors with their attributes.
 *
 * Attributes are kept as raw bytes in the size cublasLt.h documents for each,
 * so Set and Get behave as the real ones do: a wrong size, a NULL buffer or
 * an attribute that does not exist is CUBLAS_STATUS_INVALID_VALUE. Whether a
 * value can be honoured is decided when it is used (heuristic, matmul).
 */
#include "tests/sim/cublaslt/lt_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

/* ---------------------------------------------------------------- attribute tables */

const size_t lt_desc_attr_size[LT_DESC_ATTRS] = {
	[CUBLASLT_MATMUL_DESC_COMPUTE_TYPE] = 4,
	[CUBLASLT_MATMUL_DESC_SCALE_TYPE] = 4,
	[CUBLASLT_MATMUL_DESC_POINTER_MODE] = 4,
	[CUBLASLT_MATMUL_DESC_TRANSA] = 4,
	[CUBLASLT_MATMUL_DESC_TRANSB] = 4,
	[CUBLASLT_MATMUL_DESC_TRANSC] = 4,
	[CUBLASLT_MATMUL_DESC_FILL_MODE] = 4,
	[CUBLASLT_MATMUL_DESC_EPILOGUE] = 4,
	[CUBLASLT_MATMUL_DESC_BIAS_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE] = 8,
	[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD] = 8,
	[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE] = 8,
	[CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE] = 8,
	[CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET] = 4,
	[CUBLASLT_MATMUL_DESC_A_SCALE_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_B_SCALE_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_C_SCALE_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_D_SCALE_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_AMAX_D_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE] = 4,
	[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_FAST_ACCUM] = 1,
	[CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE] = 4,
	[CUBLASLT_MATMUL_DESC_A_SCALE_MODE] = 4,
	[CUBLASLT_MATMUL_DESC_B_SCALE_MODE] = 4,
	[CUBLASLT_MATMUL_DESC_C_SCALE_MODE] = 4,
	[CUBLASLT_MATMUL_DESC_D_SCALE_MODE] = 4,
	[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE] = 4,
	[CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE] = 4,
	[CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR] = sizeof(void *),
};

const size_t lt_layout_attr_size[LT_LAYOUT_ATTRS] = {
	[CUBLASLT_MATRIX_LAYOUT_TYPE] = 4,
	[CUBLASLT_MATRIX_LAYOUT_ORDER] = 4,
	[CUBLASLT_MATRIX_LAYOUT_ROWS] = 8,
	[CUBLASLT_MATRIX_LAYOUT_COLS] = 8,
	[CUBLASLT_MATRIX_LAYOUT_LD] = 8,
	[CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT] = 4,
	[CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET] = 8,
	[CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET] = 8,
	[CUBLASLT_MATRIX_LAYOUT_BATCH_MODE] = 4,
};

const size_t lt_pref_attr_size[LT_PREF_ATTRS] = {
	[CUBLASLT_MATMUL_PREF_SEARCH_MODE] = 4,
	[CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES] = 8,
	[CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK] = 4,
	[CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES] = 4,
	[CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES] = 4,
	[CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES] = 4,
	[CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES] = 4,
	[CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT] = 4,
	[CUBLASLT_MATMUL_PREF_IMPL_MASK] = 8,
};

static void put_i32(unsigned char *v, int32_t x)
{
	memcpy(v, &x, sizeof(x));
}

static void put_i64(unsigned char *v, int64_t x)
{
	memcpy(v, &x, sizeof(x));
}

/* Set one raw attribute: the checks cublasLt.h documents for every Set function. */
static cublasStatus_t attr_set(unsigned char (*value)[8], const size_t *sizes, size_t count,
			       int attr, const void *buf, size_t size)
{
	if (attr < 0 || (size_t)attr >= count || !sizes[attr] || !buf || size != sizes[attr])
		return CUBLAS_STATUS_INVALID_VALUE;
	memcpy(value[attr], buf, size);
	return CUBLAS_STATUS_SUCCESS;
}

/*
 * Get one raw attribute: size 0 asks for the size (sizeWritten required),
 * otherwise the buffer must be there and of the attribute's size.
 */
static cublasStatus_t attr_get(const unsigned char (*value)[8], const size_t *sizes, size_t count,
			       int attr, void *buf, size_t size, size_t *written)
{
	if (attr < 0 || (size_t)attr >= count || !sizes[attr])
		return CUBLAS_STATUS_INVALID_VALUE;
	if (!size) {
		if (!written)
			return CUBLAS_STATUS_INVALID_VALUE;
		*written = sizes[attr];
		return CUBLAS_STATUS_SUCCESS;
	}
	if (!buf || size != sizes[attr])
		return CUBLAS_STATUS_INVALID_VALUE;
	memcpy(buf, value[attr], size);
	if (written)
		*written = size;
	return CUBLAS_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- casts and reads */

struct lt_handle *lt_handle_of(cublasLtHandle_t h)
{
	struct lt_handle *p = (struct lt_handle *)(void *)h;

	return p && p->magic == LT_MAGIC_HANDLE ? p : NULL;
}

struct lt_desc *lt_desc_of(cublasLtMatmulDesc_t d)
{
	struct lt_desc *p = (struct lt_desc *)(void *)d;

	return p && p->magic == LT_MAGIC_DESC ? p : NULL;
}

struct lt_layout *lt_layout_of(cublasLtMatrixLayout_t l)
{
	struct lt_layout *p = (struct lt_layout *)(void *)l;

	return p && p->magic == LT_MAGIC_LAYOUT ? p : NULL;
}

struct lt_pref *lt_pref_of(cublasLtMatmulPreference_t pr)
{
	struct lt_pref *p = (struct lt_pref *)(void *)pr;

	return p && p->magic == LT_MAGIC_PREF ? p : NULL;
}

int32_t lt_desc_i32(const struct lt_desc *d, cublasLtMatmulDescAttributes_t a)
{
	int32_t x;

	memcpy(&x, d->value[a], sizeof(x));
	return x;
}

uint32_t lt_desc_u32(const struct lt_desc *d, cublasLtMatmulDescAttributes_t a)
{
	uint32_t x;

	memcpy(&x, d->value[a], sizeof(x));
	return x;
}

int64_t lt_desc_i64(const struct lt_desc *d, cublasLtMatmulDescAttributes_t a)
{
	int64_t x;

	memcpy(&x, d->value[a], sizeof(x));
	return x;
}

const void *lt_desc_ptr(const struct lt_desc *d, cublasLtMatmulDescAttributes_t a)
{
	const void *x;

	memcpy(&x, d->value[a], sizeof(x));
	return x;
}

uint64_t lt_pref_u64(const struct lt_pref *p, cublasLtMatmulPreferenceAttributes_t a)
{
	uint64_t x;

	memcpy(&x, p->value[a], sizeof(x));
	return x;
}

uint32_t lt_pref_u32(const struct lt_pref *p, cublasLtMatmulPreferenceAttributes_t a)
{
	uint32_t x;

	memcpy(&x, p->value[a], sizeof(x));
	return x;
}

float lt_pref_f32(const struct lt_pref *p, cublasLtMatmulPreferenceAttributes_t a)
{
	float x;

	memcpy(&x, p->value[a], sizeof(x));
	return x;
}

void lt_mat_read(const struct lt_layout *l, struct lt_mat *out)
{
	uint32_t type;

	memcpy(&type, l->value[CUBLASLT_MATRIX_LAYOUT_TYPE], 4);
	out->type = (cudaDataType_t)type;
	memcpy(&out->order, l->value[CUBLASLT_MATRIX_LAYOUT_ORDER], 4);
	memcpy(&out->rows, l->value[CUBLASLT_MATRIX_LAYOUT_ROWS], 8);
	memcpy(&out->cols, l->value[CUBLASLT_MATRIX_LAYOUT_COLS], 8);
	memcpy(&out->ld, l->value[CUBLASLT_MATRIX_LAYOUT_LD], 8);
	memcpy(&out->batch, l->value[CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT], 4);
	memcpy(&out->batch_stride, l->value[CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET], 8);
	memcpy(&out->plane_offset, l->value[CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET], 8);
	memcpy(&out->batch_mode, l->value[CUBLASLT_MATRIX_LAYOUT_BATCH_MODE], 4);
}

void lt_say(const char *fn, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gbsim_log("%s: %s", fn, msg);
}

size_t lt_type_size(cudaDataType_t t)
{
	switch (t) {
	case CUDA_R_64F:
		return 8;
	case CUDA_R_32F:
	case CUDA_R_32I:
		return 4;
	case CUDA_R_16F:
	case CUDA_R_16BF:
		return 2;
	case CUDA_R_8I:
	case CUDA_R_8F_E4M3:
		return 1;
	default:
		return 0;  /* E5M2, complex, 4-bit ...: not simulated */
	}
}

const char *lt_type_name(cudaDataType_t t)
{
	switch (t) {
	case CUDA_R_64F:
		return "CUDA_R_64F";
	case CUDA_R_32F:
		return "CUDA_R_32F";
	case CUDA_R_32I:
		return "CUDA_R_32I";
	case CUDA_R_16F:
		return "CUDA_R_16F";
	case CUDA_R_16BF:
		return "CUDA_R_16BF";
	case CUDA_R_8I:
		return "CUDA_R_8I";
	case CUDA_R_8F_E4M3:
		return "CUDA_R_8F_E4M3";
	case CUDA_R_8F_E5M2:
		return "CUDA_R_8F_E5M2";
	default:
		return "another cudaDataType";
	}
}

/* ---------------------------------------------------------------- library */

cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle)
{
	struct lt_handle *h;
	int count = 0, dev = 0;

	if (!lightHandle)
		return CUBLAS_STATUS_INVALID_VALUE;
	/* the real library needs a usable device to create its context */
	if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1 ||
	    cudaGetDevice(&dev) != cudaSuccess) {
		gbsim_log("cublasLtCreate: no CUDA device");
		return CUBLAS_STATUS_NOT_INITIALIZED;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return CUBLAS_STATUS_ALLOC_FAILED;
	h->magic = LT_MAGIC_HANDLE;
	h->device = dev;
	*lightHandle = (cublasLtHandle_t)(void *)h;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle)
{
	struct lt_handle *h = lt_handle_of(lightHandle);

	if (!h)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	h->magic = LT_MAGIC_DEAD;
	free(h);
	return CUBLAS_STATUS_SUCCESS;
}

size_t cublasLtGetVersion(void)
{
	return CUBLAS_VERSION;
}

size_t cublasLtGetCudartVersion(void)
{
	return CUDART_VERSION;
}

const char *cublasLtGetStatusName(cublasStatus_t status)
{
	switch (status) {
	case CUBLAS_STATUS_SUCCESS:
		return "CUBLAS_STATUS_SUCCESS";
	case CUBLAS_STATUS_NOT_INITIALIZED:
		return "CUBLAS_STATUS_NOT_INITIALIZED";
	case CUBLAS_STATUS_ALLOC_FAILED:
		return "CUBLAS_STATUS_ALLOC_FAILED";
	case CUBLAS_STATUS_INVALID_VALUE:
		return "CUBLAS_STATUS_INVALID_VALUE";
	case CUBLAS_STATUS_ARCH_MISMATCH:
		return "CUBLAS_STATUS_ARCH_MISMATCH";
	case CUBLAS_STATUS_MAPPING_ERROR:
		return "CUBLAS_STATUS_MAPPING_ERROR";
	case CUBLAS_STATUS_EXECUTION_FAILED:
		return "CUBLAS_STATUS_EXECUTION_FAILED";
	case CUBLAS_STATUS_INTERNAL_ERROR:
		return "CUBLAS_STATUS_INTERNAL_ERROR";
	case CUBLAS_STATUS_NOT_SUPPORTED:
		return "CUBLAS_STATUS_NOT_SUPPORTED";
	case CUBLAS_STATUS_LICENSE_ERROR:
		return "CUBLAS_STATUS_LICENSE_ERROR";
	default:
		return "CUBLAS_STATUS_UNKNOWN";
	}
}

const char *cublasLtGetStatusString(cublasStatus_t status)
{
	switch (status) {
	case CUBLAS_STATUS_SUCCESS:
		return "the operation completed successfully";
	case CUBLAS_STATUS_NOT_INITIALIZED:
		return "the library was not initialized";
	case CUBLAS_STATUS_ALLOC_FAILED:
		return "the resource allocation failed";
	case CUBLAS_STATUS_INVALID_VALUE:
		return "an invalid numeric value was used as an argument";
	case CUBLAS_STATUS_ARCH_MISMATCH:
		return "an absent device architectural feature is required";
	case CUBLAS_STATUS_MAPPING_ERROR:
		return "an access to GPU memory space failed";
	case CUBLAS_STATUS_EXECUTION_FAILED:
		return "the GPU program failed to execute";
	case CUBLAS_STATUS_INTERNAL_ERROR:
		return "an internal operation failed";
	case CUBLAS_STATUS_NOT_SUPPORTED:
		return "the functionality requested is not supported";
	case CUBLAS_STATUS_LICENSE_ERROR:
		return "an error was detected when checking the current licensing";
	default:
		return "unknown error";
	}
}

/* ---------------------------------------------------------------- matmul descriptor */

static bool compute_type_known(cublasComputeType_t c)
{
	switch (c) {
	case CUBLAS_COMPUTE_16F:
	case CUBLAS_COMPUTE_16F_PEDANTIC:
	case CUBLAS_COMPUTE_32F:
	case CUBLAS_COMPUTE_32F_PEDANTIC:
	case CUBLAS_COMPUTE_32F_FAST_16F:
	case CUBLAS_COMPUTE_32F_FAST_16BF:
	case CUBLAS_COMPUTE_32F_FAST_TF32:
	case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
	case CUBLAS_COMPUTE_64F:
	case CUBLAS_COMPUTE_64F_PEDANTIC:
	case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
	case CUBLAS_COMPUTE_32I:
	case CUBLAS_COMPUTE_32I_PEDANTIC:
		return true;
	default:
		return false;
	}
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc,
					cublasComputeType_t computeType, cudaDataType_t scaleType)
{
	struct lt_desc *d;

	if (!matmulDesc || !compute_type_known(computeType))
		return CUBLAS_STATUS_INVALID_VALUE;
	d = calloc(1, sizeof(*d));
	if (!d)
		return CUBLAS_STATUS_ALLOC_FAILED;
	d->magic = LT_MAGIC_DESC;
	put_i32(d->value[CUBLASLT_MATMUL_DESC_COMPUTE_TYPE], (int32_t)computeType);
	put_i32(d->value[CUBLASLT_MATMUL_DESC_SCALE_TYPE], (int32_t)scaleType);
	put_i32(d->value[CUBLASLT_MATMUL_DESC_POINTER_MODE], CUBLASLT_POINTER_MODE_HOST);
	put_i32(d->value[CUBLASLT_MATMUL_DESC_TRANSA], CUBLAS_OP_N);
	put_i32(d->value[CUBLASLT_MATMUL_DESC_TRANSB], CUBLAS_OP_N);
	put_i32(d->value[CUBLASLT_MATMUL_DESC_TRANSC], CUBLAS_OP_N);
	put_i32(d->value[CUBLASLT_MATMUL_DESC_FILL_MODE], CUBLAS_FILL_MODE_FULL);
	put_i32(d->value[CUBLASLT_MATMUL_DESC_EPILOGUE], CUBLASLT_EPILOGUE_DEFAULT);
	put_i32(d->value[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE], -1);
	put_i32(d->value[CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE], -1);
	*matmulDesc = (cublasLtMatmulDesc_t)(void *)d;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc)
{
	struct lt_desc *d = lt_desc_of(matmulDesc);

	if (!d)
		return CUBLAS_STATUS_INVALID_VALUE;
	d->magic = LT_MAGIC_DEAD;
	free(d);
	return CUBLAS_STATUS_SUCCESS;
}

/* values the setter itself refuses (the rest are judged when used) */
static bool desc_value_ok(cublasLtMatmulDescAttributes_t attr, const void *buf)
{
	int32_t v;

	switch (attr) {
	case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE:
		memcpy(&v, buf, sizeof(v));
		return compute_type_known((cublasComputeType_t)v);
	case CUBLASLT_MATMUL_DESC_TRANSA:
	case CUBLASLT_MATMUL_DESC_TRANSB:
	case CUBLASLT_MATMUL_DESC_TRANSC:
		memcpy(&v, buf, sizeof(v));
		return v == CUBLAS_OP_N || v == CUBLAS_OP_T || v == CUBLAS_OP_C;
	case CUBLASLT_MATMUL_DESC_POINTER_MODE:
		memcpy(&v, buf, sizeof(v));
		return v >= CUBLASLT_POINTER_MODE_HOST &&
		       v <= CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST;
	case CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET:
		memcpy(&v, buf, sizeof(v));
		return v >= 0;
	default:
		return true;
	}
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
					      cublasLtMatmulDescAttributes_t attr, const void *buf,
					      size_t sizeInBytes)
{
	struct lt_desc *d = lt_desc_of(matmulDesc);

	if (!d || (int)attr < 0 || (int)attr >= LT_DESC_ATTRS)
		return CUBLAS_STATUS_INVALID_VALUE;
	if (buf && sizeInBytes == lt_desc_attr_size[attr] && !desc_value_ok(attr, buf))
		return CUBLAS_STATUS_INVALID_VALUE;
	return attr_set(d->value, lt_desc_attr_size, LT_DESC_ATTRS, (int)attr, buf, sizeInBytes);
}

cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
					      cublasLtMatmulDescAttributes_t attr, void *buf,
					      size_t sizeInBytes, size_t *sizeWritten)
{
	const struct lt_desc *d = lt_desc_of(matmulDesc);

	if (!d)
		return CUBLAS_STATUS_INVALID_VALUE;
	return attr_get((const unsigned char(*)[8])d->value, lt_desc_attr_size, LT_DESC_ATTRS,
			(int)attr, buf, sizeInBytes, sizeWritten);
}

/* ---------------------------------------------------------------- matrix layout */

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type,
					  uint64_t rows, uint64_t cols, int64_t ld)
{
	struct lt_layout *l;

	if (!matLayout)
		return CUBLAS_STATUS_INVALID_VALUE;
	l = calloc(1, sizeof(*l));
	if (!l)
		return CUBLAS_STATUS_ALLOC_FAILED;
	l->magic = LT_MAGIC_LAYOUT;
	put_i32(l->value[CUBLASLT_MATRIX_LAYOUT_TYPE], (int32_t)type);
	put_i32(l->value[CUBLASLT_MATRIX_LAYOUT_ORDER], CUBLASLT_ORDER_COL);
	memcpy(l->value[CUBLASLT_MATRIX_LAYOUT_ROWS], &rows, 8);
	memcpy(l->value[CUBLASLT_MATRIX_LAYOUT_COLS], &cols, 8);
	put_i64(l->value[CUBLASLT_MATRIX_LAYOUT_LD], ld);
	put_i32(l->value[CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT], 1);
	*matLayout = (cublasLtMatrixLayout_t)(void *)l;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout)
{
	struct lt_layout *l = lt_layout_of(matLayout);

	if (!l)
		return CUBLAS_STATUS_INVALID_VALUE;
	l->magic = LT_MAGIC_DEAD;
	free(l);
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
						cublasLtMatrixLayoutAttribute_t attr,
						const void *buf, size_t sizeInBytes)
{
	struct lt_layout *l = lt_layout_of(matLayout);

	if (!l)
		return CUBLAS_STATUS_INVALID_VALUE;
	return attr_set(l->value, lt_layout_attr_size, LT_LAYOUT_ATTRS, (int)attr, buf,
			sizeInBytes);
}

cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
						cublasLtMatrixLayoutAttribute_t attr, void *buf,
						size_t sizeInBytes, size_t *sizeWritten)
{
	const struct lt_layout *l = lt_layout_of(matLayout);

	if (!l)
		return CUBLAS_STATUS_INVALID_VALUE;
	return attr_get((const unsigned char(*)[8])l->value, lt_layout_attr_size, LT_LAYOUT_ATTRS,
			(int)attr, buf, sizeInBytes, sizeWritten);
}

/* ---------------------------------------------------------------- preference */

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
	struct lt_pref *p;
	const uint32_t align_default = 256;
	const uint64_t impl_all = ~0ULL;

	if (!pref)
		return CUBLAS_STATUS_INVALID_VALUE;
	p = calloc(1, sizeof(*p));
	if (!p)
		return CUBLAS_STATUS_ALLOC_FAILED;
	p->magic = LT_MAGIC_PREF;
	put_i32(p->value[CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK],
		CUBLASLT_REDUCTION_SCHEME_MASK);
	memcpy(p->value[CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES], &align_default, 4);
	memcpy(p->value[CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES], &align_default, 4);
	memcpy(p->value[CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES], &align_default, 4);
	memcpy(p->value[CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES], &align_default, 4);
	memcpy(p->value[CUBLASLT_MATMUL_PREF_IMPL_MASK], &impl_all, 8);
	*pref = (cublasLtMatmulPreference_t)(void *)p;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
	struct lt_pref *p = lt_pref_of(pref);

	if (!p)
		return CUBLAS_STATUS_INVALID_VALUE;
	p->magic = LT_MAGIC_DEAD;
	free(p);
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
						    cublasLtMatmulPreferenceAttributes_t attr,
						    const void *buf, size_t sizeInBytes)
{
	struct lt_pref *p = lt_pref_of(pref);

	if (!p)
		return CUBLAS_STATUS_INVALID_VALUE;
	return attr_set(p->value, lt_pref_attr_size, LT_PREF_ATTRS, (int)attr, buf, sizeInBytes);
}

cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
						    cublasLtMatmulPreferenceAttributes_t attr,
						    void *buf, size_t sizeInBytes,
						    size_t *sizeWritten)
{
	const struct lt_pref *p = lt_pref_of(pref);

	if (!p)
		return CUBLAS_STATUS_INVALID_VALUE;
	return attr_get((const unsigned char(*)[8])p->value, lt_pref_attr_size, LT_PREF_ATTRS,
			(int)attr, buf, sizeInBytes, sizeWritten);
}
