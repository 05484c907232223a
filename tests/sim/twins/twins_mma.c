/* SPDX-License-Identifier: MIT */
/*
 * twins_mma.c - the CPU twins of kernels/mma.cu: the FP16/BF16 mma.sync
 * GEMM, O = X Y^T with X = B (rows_x = n), Y = A (rows_y = m), both K-major,
 * O[r][c] at out[c + r m]; inputs in the storage type, FP32 accumulation,
 * each output rounded to nearest into the storage type (gb_from_float,
 * gb_pack2: __float2half_rn / __float2bfloat16_rn per element).
 *
 * Block b computes the 128 x 128 tile at gb_mma_block_origin; the twin then
 * runs the kernel's epilogue loop (warp, lane, m16 tile mi, n8 tile ni, half
 * h) through mma_layout.h's gb_mma_out_row/_col/_count, so it stores exactly
 * the elements the kernel's threads store. The tensor cores' summation
 * order is their own: the twin's FP32 chain agrees with the GPU to within
 * FP32 accumulation error, not bit for bit.
 *
 * Instances <T, stages, kVec>: kVec loads 16-byte chunks with cp.async and
 * needs k % 8 == 0 and 16-byte aligned X and Y (checked:
 * cudaErrorMisalignedAddress); every instance indexes stages x 16 KiB of
 * dynamic shared memory (checked: cudaErrorIllegalAddress when the launch
 * gave less). Pairs go out as one 4-byte store when m is even, so D must
 * then be 4-byte aligned.
 */
#include "tests/sim/twins/own_gemm_twin.h"
#include "tests/sim/twins/twins.h"

#include <stdlib.h>

#include "kernels/mma_layout.h"

#define MMA_WARPS (GB_MMA_THREADS / 32)

struct mma_args {
	const void *x, *y;
	void *out;
	unsigned rows_x, rows_y, k, tiles_m, tiles_n;
};

/* one instance: element type, pipeline depth, vector loads */
struct mma_instance {
	enum gbsim_gemm_elem elem;
	unsigned stages;
	bool vec;
};

static struct mma_args mma_args_of(const struct gbsim_launch *l)
{
	struct mma_args a;

	a.x = *(const void **)l->args[0];
	a.y = *(const void **)l->args[1];
	a.out = *(void **)l->args[2];
	a.rows_x = *(const unsigned *)l->args[3];
	a.rows_y = *(const unsigned *)l->args[4];
	a.k = *(const unsigned *)l->args[5];
	a.tiles_m = *(const unsigned *)l->args[6];
	a.tiles_n = *(const unsigned *)l->args[7];
	return a;
}

static cudaError_t mma_check(const struct gbsim_launch *l, const struct mma_args *a,
			     const struct mma_instance *in, const struct gbsim_gemm_operand *x,
			     const struct gbsim_gemm_operand *y)
{
	const size_t in_align = in->vec ? 16 : 2;
	const size_t out_align = gb_mma_pair_aligned(a->rows_y) ? 4 : 2;
	cudaError_t e;

	if ((e = gbsim_gemm_check_block(l, GB_MMA_THREADS, 1, GB_MMA_THREADS)) ||
	    (e = gbsim_gemm_check_shared(l, (size_t)in->stages * GB_MMA_STAGE_BYTES)) ||
	    (e = gbsim_gemm_check_rows(l, a->rows_x, a->rows_y, a->k)) ||
	    (e = gbsim_gemm_check_align(l, a->x, in_align, "x")) ||
	    (e = gbsim_gemm_check_align(l, a->y, in_align, "y")) ||
	    (e = gbsim_gemm_check_align(l, a->out, out_align, "out")))
		return e;
	if (in->vec && a->k % 8) {
		gbsim_log("%s: 16-byte cp.async along k = %u (not a multiple of 8) misaligns "
			  "every odd row", l->kernel, a->k);
		return cudaErrorMisalignedAddress;
	}
	if ((e = gbsim_gemm_check_operand(l, x, "mma_kernel x")) ||
	    (e = gbsim_gemm_check_operand(l, y, "mma_kernel y")))
		return e;
	if (a->rows_x && a->rows_y)
		e = gbsim_check_access(l->device, a->out, (size_t)a->rows_x * a->rows_y * 2,
				       "mma_kernel out");
	return e;
}

/* the epilogue of one lane: 4 x 4 m16n8 tiles, two accumulator pairs each */
static uint64_t mma_store_lane(const struct mma_args *a, enum gbsim_gemm_elem elem,
			       unsigned warp, unsigned lane, unsigned r0, unsigned c0,
			       unsigned nr, unsigned nc, const float *tile)
{
	uint64_t stored = 0;

	for (unsigned mi = 0; mi < GB_MMA_MI; mi++) {
		for (unsigned ni = 0; ni < GB_MMA_NI; ni++) {
			for (unsigned h = 0; h < 2; h++) {
				const unsigned r = r0 + gb_mma_out_row(warp, mi, lane, 2 * h);
				const unsigned c = c0 + gb_mma_out_col(warp, ni, lane, 2 * h);
				const unsigned n_out = gb_mma_out_count(r, c, a->rows_x, a->rows_y);

				for (unsigned e = 0; e < n_out; e++) {
					if (r - r0 >= nr || c + e - c0 >= nc)
						continue;  /* unsigned wrap-around only */
					gbsim_gemm_store(a->out, elem,
							 (uint64_t)r * a->rows_y + c + e,
							 tile[(size_t)(r - r0) * nc + (c + e - c0)]);
					stored++;
				}
			}
		}
	}
	return stored;
}

static cudaError_t mma_run(const struct gbsim_launch *l, struct gbsim_cost *cost,
			   const struct mma_instance *in)
{
	const struct mma_args a = mma_args_of(l);
	const uint64_t pitch = (uint64_t)a.k * 2;
	const struct gbsim_gemm_operand x = { a.x, in->elem, a.rows_x, a.k, pitch };
	const struct gbsim_gemm_operand y = { a.y, in->elem, a.rows_y, a.k, pitch };
	struct gbsim_gemm_product p;
	uint64_t stored = 0;
	float *tile;
	cudaError_t e;

	if ((e = mma_check(l, &a, in, &x, &y)))
		return e;
	if (!(tile = malloc(sizeof(float) * GB_MMA_TILE * GB_MMA_TILE)))
		return cudaErrorMemoryAllocation;
	if ((e = gbsim_gemm_product_init(&p, l->kernel, &x, &y, a.rows_x, a.rows_y, a.k))) {
		free(tile);
		return e;
	}
	for (unsigned b = 0; b < l->grid.x && !e; b++) {
		unsigned tm, tn, r0, c0, nr, nc;

		/* checks the divisors, then the kernel's own origin */
		if ((e = gbsim_gemm_tile_of(l, b, a.tiles_m, a.tiles_n, &tm, &tn)))
			break;
		gb_mma_block_origin(b, a.tiles_m, a.tiles_n, &r0, &c0);
		nr = gbsim_gemm_clamp(r0, GB_MMA_TILE, a.rows_x);
		nc = gbsim_gemm_clamp(c0, GB_MMA_TILE, a.rows_y);
		if (!nr || !nc)
			continue;
		gbsim_gemm_tile(&p, r0, nr, c0, nc, tile);
		for (unsigned w = 0; w < MMA_WARPS; w++)
			for (unsigned lane = 0; lane < 32; lane++)
				stored += mma_store_lane(&a, in->elem, w, lane, r0, c0, nr, nc,
							 tile);
	}
	gbsim_gemm_product_free(&p);
	free(tile);
	gbsim_gemm_cost(cost, in->elem == GBSIM_GEMM_BF16 ? GBSIM_BF16 : GBSIM_FP16, a.k,
			((uint64_t)a.rows_x + a.rows_y) * pitch, stored, 2,
			(uint64_t)l->grid.y * l->grid.z);
	return e;
}

/* one twin per instance the launcher can pick (launch_type in mma.cu) */
#define MMA_TWIN(fn, elem, stages, vec)                                                  \
	static cudaError_t fn(const struct gbsim_launch *l, struct gbsim_cost *cost)     \
	{                                                                                \
		static const struct mma_instance in = { elem, stages, vec };             \
		return mma_run(l, cost, &in);                                            \
	}

MMA_TWIN(twin_mma_f16_3_scalar, GBSIM_GEMM_F16, GB_MMA_MIN_STAGES, false)
MMA_TWIN(twin_mma_f16_3_vec, GBSIM_GEMM_F16, GB_MMA_MIN_STAGES, true)
MMA_TWIN(twin_mma_f16_4_vec, GBSIM_GEMM_F16, GB_MMA_MAX_STAGES, true)
MMA_TWIN(twin_mma_bf16_3_scalar, GBSIM_GEMM_BF16, GB_MMA_MIN_STAGES, false)
MMA_TWIN(twin_mma_bf16_3_vec, GBSIM_GEMM_BF16, GB_MMA_MIN_STAGES, true)
MMA_TWIN(twin_mma_bf16_4_vec, GBSIM_GEMM_BF16, GB_MMA_MAX_STAGES, true)

#define MMA_PARAMS(t) \
	"(" t " const*, " t " const*, " t "*, unsigned int, unsigned int, unsigned int, " \
	"unsigned int, unsigned int)"

const struct gbsim_twin gbsim_twins_mma[] = {
	{ "void mma_kernel<__half, 3, false>" MMA_PARAMS("__half"), twin_mma_f16_3_scalar, false },
	{ "void mma_kernel<__half, 3, true>" MMA_PARAMS("__half"), twin_mma_f16_3_vec, false },
	{ "void mma_kernel<__half, 4, true>" MMA_PARAMS("__half"), twin_mma_f16_4_vec, false },
	{ "void mma_kernel<__nv_bfloat16, 3, false>" MMA_PARAMS("__nv_bfloat16"),
	  twin_mma_bf16_3_scalar, false },
	{ "void mma_kernel<__nv_bfloat16, 3, true>" MMA_PARAMS("__nv_bfloat16"),
	  twin_mma_bf16_3_vec, false },
	{ "void mma_kernel<__nv_bfloat16, 4, true>" MMA_PARAMS("__nv_bfloat16"),
	  twin_mma_bf16_4_vec, false },
	{ NULL, NULL, false },
};

/* the block shape, at the launch (sim.h, struct gbsim_twin_check) */
static cudaError_t mma_launch_check(const struct gbsim_launch *l)
{
	return gbsim_gemm_launch_block(l, GB_MMA_THREADS, 1, GB_MMA_THREADS);
}

const struct gbsim_twin_check gbsim_twin_checks_mma[] = {
	{ twin_mma_f16_3_scalar, mma_launch_check },
	{ twin_mma_f16_3_vec, mma_launch_check },
	{ twin_mma_f16_4_vec, mma_launch_check },
	{ twin_mma_bf16_3_scalar, mma_launch_check },
	{ twin_mma_bf16_3_vec, mma_launch_check },
	{ twin_mma_bf16_4_vec, mma_launch_check },
	{ NULL, NULL },
};
