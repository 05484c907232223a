/* SPDX-License-Identifier: MIT */
/*
 * twins_wgmma.c - the CPU twins of kernels/wgmma.cu (the Hopper wgmma + TMA
 * GEMM), and the driver's tensor-map functions the launcher encodes its
 * operands with.
 *
 * The tensor maps. wgmma.cu gets cuTensorMapEncodeTiled and
 * cuTensorMapReplaceAddress from cudaGetDriverEntryPointByVersion; the fake
 * runtime hands out gbsim_drv_* below instead. They check their arguments
 * as cuda.h documents them (CUDA_ERROR_INVALID_VALUE otherwise) and keep
 * what the twin needs (address, dims, strides, box, element type, swizzle)
 * in the 128-byte opaque map, tagged so that a map not made here is known.
 * The packed 4- and 6-bit types are not simulated (CUDA_ERROR_NOT_SUPPORTED).
 *
 * The kernel. O = X Y^T with X = B (rows_x = n), Y = A (rows_y = m), O[r][c]
 * at out[c + r m]; block b computes the 128 (n) x 256 (m) tile of
 * gb_own_gemm_tile_of. Its producer loads 64 x 128 boxes of map_x and
 * 64 x 256 boxes of map_y at (64 sl, tile origin) for every slice sl <
 * ceil(k / 64); TMA reads elements past the map's dims as zero. The twin
 * reads the operands through the maps it is passed, by the same rule: what
 * the maps describe is what it multiplies (a map on the wrong buffer or of
 * the wrong shape gives the wrong product, as on a GPU). Two consumer
 * warpgroups of 128 threads store their m64n256 accumulators through
 * wgmma_layout.h (gb_wgmma_acc_row/_col, _out_index, _store_pair); the twin
 * runs that epilogue loop, so it stores exactly what the kernel stores,
 * rounded to nearest into the storage type. FP32 accumulation in k order:
 * within FP32 accumulation error of the tensor cores, not bit for bit.
 *
 * A launch the kernel cannot run is refused with the error a GPU gives:
 * a device other than compute capability 9.0 has no sm_90a image
 * (cudaErrorNoKernelImageForDevice); a map whose box, element size or
 * swizzle differs from the kernel's would leave the mbarrier pipeline
 * waiting for bytes that never come until the watchdog traps
 * (cudaErrorLaunchFailure; a box of the right bytes but another shape would
 * compute garbage on a GPU, which the simulator refuses the same way).
 */
#include "tests/sim/twins/own_gemm_twin.h"
#include "tests/sim/twins/twins.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/wgmma_layout.h"

/* ---- the opaque map ---- */

/* "GBSIMTMA": a map this file encoded */
#define TMAP_MAGIC 0x414D544D49534247ull
#define TMAP_MAX_RANK 5

struct tmap {
	uint64_t magic;
	uint64_t address;
	uint64_t dims[TMAP_MAX_RANK];
	uint64_t strides[TMAP_MAX_RANK - 1];  /* bytes, of dimensions 1 .. rank - 1 */
	uint32_t box[TMAP_MAX_RANK];
	uint8_t elem_strides[TMAP_MAX_RANK];
	uint8_t rank, dtype, interleave, swizzle, l2, oob;
};

_Static_assert(sizeof(struct tmap) <= sizeof(CUtensorMap), "the map fits the opaque bytes");

static void tmap_write(CUtensorMap *map, const struct tmap *t)
{
	memset(map, 0, sizeof(*map));
	memcpy(map->opaque, t, sizeof(*t));
}

/* 0 and *t filled when map (a CUtensorMap, perhaps a kernel argument's copy) is one of ours */
static int tmap_read(const void *map, struct tmap *t)
{
	memcpy(t, map, sizeof(*t));
	return t->magic == TMAP_MAGIC ? 0 : -1;
}

/* ---- cuTensorMapEncodeTiled ---- */

/* bytes per element; 0 for the packed sub-byte types this file does not simulate */
static unsigned tmap_elem_bytes(CUtensorMapDataType t)
{
	switch (t) {
	case CU_TENSOR_MAP_DATA_TYPE_UINT8:
		return 1;
	case CU_TENSOR_MAP_DATA_TYPE_UINT16:
	case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
	case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
		return 2;
	case CU_TENSOR_MAP_DATA_TYPE_UINT32:
	case CU_TENSOR_MAP_DATA_TYPE_INT32:
	case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
	case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
	case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
	case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ:
		return 4;
	case CU_TENSOR_MAP_DATA_TYPE_UINT64:
	case CU_TENSOR_MAP_DATA_TYPE_INT64:
	case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
		return 8;
	default:
		return 0;
	}
}

static bool tmap_float_type(CUtensorMapDataType t)
{
	return t == CU_TENSOR_MAP_DATA_TYPE_FLOAT16 || t == CU_TENSOR_MAP_DATA_TYPE_FLOAT32 ||
	       t == CU_TENSOR_MAP_DATA_TYPE_FLOAT64 || t == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 ||
	       t == CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ || t == CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 ||
	       t == CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ;
}

/* the packed types: documented, valid, but not simulated here */
static bool tmap_packed_type(CUtensorMapDataType t)
{
	return t == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B ||
	       t == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B ||
	       t == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B;
}

/* the global address rule: 16 bytes, 32 with 32-byte interleave */
static bool tmap_address_ok(const void *p, CUtensorMapInterleave interleave)
{
	return (uintptr_t)p % (interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16) == 0;
}

/* the largest inner box a swizzle mode takes, in bytes (0: no limit) */
static unsigned tmap_swizzle_span(CUtensorMapSwizzle s)
{
	switch (s) {
	case CU_TENSOR_MAP_SWIZZLE_32B:
		return 32;
	case CU_TENSOR_MAP_SWIZZLE_64B:
		return 64;
	case CU_TENSOR_MAP_SWIZZLE_NONE:
		return 0;
	default:
		return 128;
	}
}

/* the enums in range and their pairings; NULL when fine, else why not */
static const char *tmap_modes_bad(CUtensorMapDataType type, cuuint32_t rank,
				  CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
				  CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob)
{
	if (rank < 1 || rank > TMAP_MAX_RANK)
		return "tensorRank outside 1..5";
	if ((unsigned)interleave > CU_TENSOR_MAP_INTERLEAVE_32B)
		return "interleave out of range";
	if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE && rank < 3)
		return "an interleaved layout needs tensorRank >= 3";
	if ((unsigned)swizzle > CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B)
		return "swizzle out of range";
	if (interleave == CU_TENSOR_MAP_INTERLEAVE_32B && swizzle != CU_TENSOR_MAP_SWIZZLE_32B)
		return "32-byte interleave needs the 32-byte swizzle";
	if ((unsigned)l2 > CU_TENSOR_MAP_L2_PROMOTION_L2_256B)
		return "l2Promotion out of range";
	if ((unsigned)oob > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
		return "oobFill out of range";
	if (oob != CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE && !tmap_float_type(type))
		return "a NaN fill needs a floating-point type";
	return NULL;
}

/* dims, strides, box and element strides; NULL when fine, else why not */
static const char *tmap_shape_bad(cuuint32_t rank, unsigned esize,
				  CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
				  const cuuint64_t *dim, const cuuint64_t *stride,
				  const cuuint32_t *box, const cuuint32_t *estride)
{
	const unsigned span = tmap_swizzle_span(swizzle);

	for (cuuint32_t i = 0; i < rank; i++) {
		if (!dim[i] || dim[i] > (1ull << 32))
			return "a globalDim is 0 or above 2^32";
		if (!box[i] || box[i] > 256)
			return "a boxDim is 0 or above 256";
		if (!estride[i] || estride[i] > 8)
			return "an elementStride is 0 or above 8";
	}
	for (cuuint32_t i = 0; i + 1 < rank; i++) {
		if (stride[i] % 16 || stride[i] >= (1ull << 40))
			return "a globalStride is not a multiple of 16 below 2^40";
		if (interleave == CU_TENSOR_MAP_INTERLEAVE_32B && stride[i] % 32)
			return "32-byte interleave needs strides that are multiples of 32";
		/* a stride spans the dimensions below it (cuda.h's formula, padding >= 0):
		 * stride[i] >= stride[i - 1] * dim[i], tested without the product's overflow */
		if (i ? stride[i] / dim[i] < stride[i - 1] : stride[0] < dim[0] * esize)
			return "a globalStride is smaller than the dimensions below it";
	}
	if (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE && box[0] * esize % 16)
		return "the inner box is not a multiple of 16 bytes";
	if (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE && span && box[0] * esize > span)
		return "the inner box is wider than the swizzle";
	return NULL;
}

CUresult gbsim_drv_cuTensorMapEncodeTiled(CUtensorMap *tensorMap,
					  CUtensorMapDataType tensorDataType,
					  cuuint32_t tensorRank, void *globalAddress,
					  const cuuint64_t *globalDim,
					  const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
					  const cuuint32_t *elementStrides,
					  CUtensorMapInterleave interleave,
					  CUtensorMapSwizzle swizzle,
					  CUtensorMapL2promotion l2Promotion,
					  CUtensorMapFloatOOBfill oobFill)
{
	const unsigned esize = tmap_elem_bytes(tensorDataType);
	struct tmap t;
	const char *why;

	if (tmap_packed_type(tensorDataType)) {
		gbsim_log("cuTensorMapEncodeTiled: packed type %d is not simulated",
			  (int)tensorDataType);
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	if (!tensorMap || (uintptr_t)tensorMap % 64)
		why = "tensorMap is not 64-byte aligned";
	else if (!esize)
		why = "tensorDataType out of range";
	else if ((why = tmap_modes_bad(tensorDataType, tensorRank, interleave, swizzle,
				       l2Promotion, oobFill)))
		;
	else if (!globalDim || !boxDim || !elementStrides || (tensorRank > 1 && !globalStrides))
		why = "an array argument is NULL";
	else if (!tmap_address_ok(globalAddress, interleave))
		why = "globalAddress is not 16-byte aligned (32 with 32-byte interleave)";
	else
		why = tmap_shape_bad(tensorRank, esize, interleave, swizzle, globalDim,
				     globalStrides, boxDim, elementStrides);
	if (why) {
		gbsim_log("cuTensorMapEncodeTiled: %s", why);
		return CUDA_ERROR_INVALID_VALUE;
	}
	memset(&t, 0, sizeof(t));
	t.magic = TMAP_MAGIC;
	t.address = (uint64_t)(uintptr_t)globalAddress;
	for (cuuint32_t i = 0; i < tensorRank; i++) {
		t.dims[i] = globalDim[i];
		t.box[i] = boxDim[i];
		t.elem_strides[i] = (uint8_t)elementStrides[i];
		if (i + 1 < tensorRank)
			t.strides[i] = globalStrides[i];
	}
	t.rank = (uint8_t)tensorRank;
	t.dtype = (uint8_t)tensorDataType;
	t.interleave = (uint8_t)interleave;
	t.swizzle = (uint8_t)swizzle;
	t.l2 = (uint8_t)l2Promotion;
	t.oob = (uint8_t)oobFill;
	tmap_write(tensorMap, &t);
	return CUDA_SUCCESS;
}

CUresult gbsim_drv_cuTensorMapReplaceAddress(CUtensorMap *tensorMap, void *globalAddress)
{
	struct tmap t;

	if (!tensorMap || (uintptr_t)tensorMap % 64 || tmap_read(tensorMap, &t)) {
		gbsim_log("cuTensorMapReplaceAddress: not a tensor map from cuTensorMapEncodeTiled");
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (!tmap_address_ok(globalAddress, (CUtensorMapInterleave)t.interleave)) {
		gbsim_log("cuTensorMapReplaceAddress: globalAddress %p breaks the map's alignment",
			  globalAddress);
		return CUDA_ERROR_INVALID_VALUE;
	}
	t.address = (uint64_t)(uintptr_t)globalAddress;
	tmap_write(tensorMap, &t);
	return CUDA_SUCCESS;
}

/* ---- the kernel ---- */

struct wgmma_args {
	struct tmap map_x, map_y;
	void *out;
	unsigned rows_x, rows_y, k, tiles_m, tiles_n;
};

/* the 2-D K-major operand a map describes, as the kernel (elements of type elem) reads it */
static struct gbsim_gemm_operand wgmma_operand(const struct tmap *t, enum gbsim_gemm_elem elem)
{
	struct gbsim_gemm_operand op;

	op.base = (const void *)(uintptr_t)t->address;
	op.elem = elem;
	op.k = t->dims[0];
	op.rows = t->dims[1];
	op.pitch_bytes = t->strides[0];
	return op;
}

/*
 * A map the kernel can use for an operand of box_rows-row boxes: ours, 2-D,
 * 2-byte elements, 64 x box_rows boxes of consecutive rows, no interleave,
 * the 128-byte swizzle the descriptors assume.
 */
static cudaError_t wgmma_check_map(const struct gbsim_launch *l, const void *map,
				   struct tmap *t, unsigned box_rows, enum gbsim_gemm_elem elem,
				   const char *what)
{
	const CUtensorMapDataType want = elem == GBSIM_GEMM_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
								  : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;

	if (tmap_read(map, t)) {
		gbsim_log("%s: %s is not a tensor map from cuTensorMapEncodeTiled", l->kernel, what);
		return cudaErrorLaunchFailure;
	}
	if (t->rank != 2 || tmap_elem_bytes((CUtensorMapDataType)t->dtype) != 2 ||
	    t->box[0] != GB_WGMMA_BK || t->box[1] != box_rows || t->elem_strides[1] != 1 ||
	    t->interleave != CU_TENSOR_MAP_INTERLEAVE_NONE ||
	    t->swizzle != CU_TENSOR_MAP_SWIZZLE_128B) {
		gbsim_log("%s: %s is not a 2-d map of 2-byte elements in %ux%u boxes with the "
			  "128-byte swizzle",
			  l->kernel, what, GB_WGMMA_BK, box_rows);
		return cudaErrorLaunchFailure;
	}
	/* TMA copies bytes: the kernel reads them as its own type, right or not */
	if (t->dtype != (uint8_t)want)
		gbsim_log("%s: %s has element type %d, the kernel reads it as %s", l->kernel, what,
			  (int)t->dtype, elem == GBSIM_GEMM_BF16 ? "bf16" : "fp16");
	return cudaSuccess;
}

static cudaError_t wgmma_args_of(const struct gbsim_launch *l, enum gbsim_gemm_elem elem,
				 struct wgmma_args *a)
{
	cudaError_t e;

	if ((e = wgmma_check_map(l, l->args[0], &a->map_x, GB_WGMMA_TILE_N, elem, "map_x")) ||
	    (e = wgmma_check_map(l, l->args[1], &a->map_y, GB_WGMMA_TILE_M, elem, "map_y")))
		return e;
	a->out = *(void **)l->args[2];
	a->rows_x = *(const unsigned *)l->args[3];
	a->rows_y = *(const unsigned *)l->args[4];
	a->k = *(const unsigned *)l->args[5];
	a->tiles_m = *(const unsigned *)l->args[6];
	a->tiles_n = *(const unsigned *)l->args[7];
	return cudaSuccess;
}

/* the device, the block, shared memory, and every byte the kernel touches */
static cudaError_t wgmma_check(const struct gbsim_launch *l, const struct wgmma_args *a,
			       const struct gbsim_gemm_operand *x,
			       const struct gbsim_gemm_operand *y)
{
	const size_t smem = (size_t)GB_WGMMA_STAGES * GB_WGMMA_STAGE_BYTES + GB_WGMMA_SMEM_ALIGN;
	cudaError_t e;

	if (l->gpu && (l->gpu->cc_major != 9 || l->gpu->cc_minor != 0)) {
		gbsim_log("%s: built for sm_90a only, device %d is compute capability %d.%d",
			  l->kernel, l->device, l->gpu->cc_major, l->gpu->cc_minor);
		return cudaErrorNoKernelImageForDevice;
	}
	if ((e = gbsim_gemm_check_block(l, GB_WGMMA_THREADS, 1, GB_WGMMA_THREADS)) ||
	    (e = gbsim_gemm_check_shared(l, smem)) ||
	    (e = gbsim_gemm_check_align(l, a->out, a->rows_y % 2 ? 2 : 4, "out")) ||
	    (e = gbsim_gemm_check_operand(l, x, "wgmma_kernel map_x")) ||
	    (e = gbsim_gemm_check_operand(l, y, "wgmma_kernel map_y")))
		return e;
	if (a->rows_x && a->rows_y)
		e = gbsim_check_access(l->device, a->out, (size_t)a->rows_x * a->rows_y * 2,
				       "wgmma_kernel out");
	return e;
}

/* the epilogue of consumer warpgroup cw, thread tid: 64 accumulator pairs */
static uint64_t wgmma_store_thread(const struct wgmma_args *a, enum gbsim_gemm_elem elem,
				   unsigned cw, unsigned tid, unsigned r0, unsigned c0,
				   unsigned nr, unsigned nc, const float *tile)
{
	uint64_t stored = 0;

	for (unsigned i = 0; i < 128; i += 2) {
		const unsigned r = r0 + cw * GB_WGMMA_CONSUMER_ROWS + gb_wgmma_acc_row(tid, i);
		const unsigned c = c0 + gb_wgmma_acc_col(tid, i);
		/* one 4-byte pair (gb_wgmma_store_pair) or o[0], then o[1] while c + 1
		 * exists: the same elements either way; wgmma_check vetted alignment */
		const unsigned n = c + 1 < a->rows_y ? 2 : 1;

		if (r >= a->rows_x || c >= a->rows_y)
			continue;
		for (unsigned e = 0; e < n; e++) {
			if (r - r0 >= nr || c + e - c0 >= nc)
				continue;  /* unsigned wrap-around only */
			gbsim_gemm_store(a->out, elem, gb_wgmma_out_index(r, c + e, a->rows_y),
					 tile[(size_t)(r - r0) * nc + (c + e - c0)]);
			stored++;
		}
	}
	return stored;
}

/* k the kernel sums over: whole 64-wide slices, zero past each map's k */
static uint64_t wgmma_k_loop(const struct wgmma_args *a)
{
	const uint64_t slices_k = ((uint64_t)a->k + GB_WGMMA_BK - 1) / GB_WGMMA_BK * GB_WGMMA_BK;
	const uint64_t maps_k = a->map_x.dims[0] > a->map_y.dims[0] ? a->map_x.dims[0]
								     : a->map_y.dims[0];

	return slices_k < maps_k ? slices_k : maps_k;
}

static cudaError_t wgmma_blocks(const struct gbsim_launch *l, const struct wgmma_args *a,
				enum gbsim_gemm_elem elem, const struct gbsim_gemm_product *p,
				float *tile, uint64_t *stored)
{
	cudaError_t e = cudaSuccess;

	for (unsigned b = 0; b < l->grid.x && !e; b++) {
		unsigned tm, tn, r0, c0, nr, nc;

		if ((e = gbsim_gemm_tile_of(l, b, a->tiles_m, a->tiles_n, &tm, &tn)))
			break;
		r0 = tn * GB_WGMMA_TILE_N;
		c0 = tm * GB_WGMMA_TILE_M;
		nr = gbsim_gemm_clamp(r0, GB_WGMMA_TILE_N, a->rows_x);
		nc = gbsim_gemm_clamp(c0, GB_WGMMA_TILE_M, a->rows_y);
		if (!nr || !nc)
			continue;
		gbsim_gemm_tile(p, r0, nr, c0, nc, tile);
		for (unsigned cw = 0; cw < 2; cw++)
			for (unsigned tid = 0; tid < 128; tid++)
				*stored += wgmma_store_thread(a, elem, cw, tid, r0, c0, nr, nc,
							      tile);
	}
	return e;
}

static cudaError_t wgmma_run(const struct gbsim_launch *l, struct gbsim_cost *cost,
			     enum gbsim_gemm_elem elem)
{
	struct wgmma_args a;
	struct gbsim_gemm_operand x, y;
	struct gbsim_gemm_product p;
	uint64_t stored = 0;
	float *tile;
	cudaError_t e;

	if ((e = wgmma_args_of(l, elem, &a)))
		return e;
	x = wgmma_operand(&a.map_x, elem);
	y = wgmma_operand(&a.map_y, elem);
	if ((e = wgmma_check(l, &a, &x, &y)))
		return e;
	if (!(tile = malloc(sizeof(float) * GB_WGMMA_TILE_N * GB_WGMMA_TILE_M)))
		return cudaErrorMemoryAllocation;
	if ((e = gbsim_gemm_product_init(&p, l->kernel, &x, &y, a.rows_x, a.rows_y,
					 wgmma_k_loop(&a)))) {
		free(tile);
		return e;
	}
	e = wgmma_blocks(l, &a, elem, &p, tile, &stored);
	gbsim_gemm_product_free(&p);
	free(tile);
	gbsim_gemm_cost(cost, elem == GBSIM_GEMM_BF16 ? GBSIM_BF16 : GBSIM_FP16, a.k,
			((uint64_t)a.rows_x + a.rows_y) * a.k * 2, stored, 2,
			(uint64_t)l->grid.y * l->grid.z);
	return e;
}

static cudaError_t twin_wgmma_f16(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	return wgmma_run(l, cost, GBSIM_GEMM_F16);
}

static cudaError_t twin_wgmma_bf16(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	return wgmma_run(l, cost, GBSIM_GEMM_BF16);
}

const struct gbsim_twin gbsim_twins_wgmma[] = {
	{ "void wgmma_kernel<__half>(CUtensorMap_st, CUtensorMap_st, __half*, unsigned int, "
	  "unsigned int, unsigned int, unsigned int, unsigned int)",
	  twin_wgmma_f16, false },
	{ "void wgmma_kernel<__nv_bfloat16>(CUtensorMap_st, CUtensorMap_st, __nv_bfloat16*, "
	  "unsigned int, unsigned int, unsigned int, unsigned int, unsigned int)",
	  twin_wgmma_bf16, false },
	{ NULL, NULL, false },
};

/* the device and the block shape, at the launch (sim.h, struct gbsim_twin_check) */
static cudaError_t wgmma_launch_check(const struct gbsim_launch *l)
{
	if (l->gpu && (l->gpu->cc_major != 9 || l->gpu->cc_minor != 0)) {
		gbsim_log("%s: built for sm_90a only, device %d is compute capability %d.%d",
			  l->kernel, l->device, l->gpu->cc_major, l->gpu->cc_minor);
		return cudaErrorNoKernelImageForDevice;
	}
	return gbsim_gemm_launch_block(l, GB_WGMMA_THREADS, 1, GB_WGMMA_THREADS);
}

const struct gbsim_twin_check gbsim_twin_checks_wgmma[] = {
	{ twin_wgmma_f16, wgmma_launch_check },
	{ twin_wgmma_bf16, wgmma_launch_check },
	{ NULL, NULL },
};
