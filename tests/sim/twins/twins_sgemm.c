/* SPDX-License-Identifier: MIT */
/*
 * twins_sgemm.c - the CPU twins of kernels/sgemm.cu: the 128 x 128
 * register-tiled SGEMM, O = X Y^T in FP32 with X = B (rows_x = n),
 * Y = A (rows_y = m), O[r][c] at out[c + r m] (own_gemm_math.h).
 *
 * Block b of the 1-D grid computes the tile gb_own_gemm_tile_of gives; its
 * 256 threads store 8 x 8 outputs each at gb_sgemm_row/col, as float4 when
 * m % 4 == 0 and the four columns exist, else one by one. The twin walks the
 * same threads and stores the same elements. Every output is fmaf over
 * l = 0..k-1 in order (each thread's accumulators run through the slices in
 * k order), which the shared product reproduces bit for bit. Blocks of
 * grid rows past the first (grid.y, grid.z) recompute the same tiles.
 *
 * The two instances differ in their loads: <true> reads float4 along k and
 * needs 16-byte aligned rows (k % 4 == 0, A and B 16-byte aligned), which
 * the twin checks (cudaErrorMisalignedAddress otherwise); <false> reads
 * floats.
 */
#include "tests/sim/twins/own_gemm_twin.h"
#include "tests/sim/twins/twins.h"

#include <stdlib.h>

#include "kernels/own_gemm_math.h"

#define SGEMM_TILE GB_SGEMM_TILE

struct sgemm_args {
	const float *x, *y;
	float *out;
	unsigned rows_x, rows_y, k, tiles_m, tiles_n;
};

static struct sgemm_args sgemm_args_of(const struct gbsim_launch *l)
{
	struct sgemm_args s;

	s.x = *(const float **)l->args[0];
	s.y = *(const float **)l->args[1];
	s.out = *(float **)l->args[2];
	s.rows_x = *(const unsigned *)l->args[3];
	s.rows_y = *(const unsigned *)l->args[4];
	s.k = *(const unsigned *)l->args[5];
	s.tiles_m = *(const unsigned *)l->args[6];
	s.tiles_n = *(const unsigned *)l->args[7];
	return s;
}

static cudaError_t sgemm_check(const struct gbsim_launch *l, const struct sgemm_args *s,
			       bool vec, const struct gbsim_gemm_operand *x,
			       const struct gbsim_gemm_operand *y)
{
	const size_t in_align = vec ? 16 : 4, out_align = s->rows_y % 4 == 0 ? 16 : 4;
	cudaError_t e;

	if ((e = gbsim_gemm_check_block(l, GB_SGEMM_THREADS, 1, GB_SGEMM_THREADS)) ||
	    (e = gbsim_gemm_check_rows(l, s->rows_x, s->rows_y, s->k)) ||
	    (e = gbsim_gemm_check_align(l, s->x, in_align, "x")) ||
	    (e = gbsim_gemm_check_align(l, s->y, in_align, "y")) ||
	    (e = gbsim_gemm_check_align(l, s->out, out_align, "out")))
		return e;
	if (vec && s->k % 4) {
		gbsim_log("%s: float4 loads along k = %u (not a multiple of 4) misalign every "
			  "odd row", l->kernel, s->k);
		return cudaErrorMisalignedAddress;
	}
	if ((e = gbsim_gemm_check_operand(l, x, "sgemm_kernel x")) ||
	    (e = gbsim_gemm_check_operand(l, y, "sgemm_kernel y")))
		return e;
	if (s->rows_x && s->rows_y)
		e = gbsim_check_access(l->device, s->out,
				       (size_t)s->rows_x * s->rows_y * sizeof(float),
				       "sgemm_kernel out");
	return e;
}

/* the kernel's epilogue for thread t of a block at (r0, c0); tile holds O there */
static uint64_t sgemm_store_thread(const struct sgemm_args *s, unsigned t, unsigned r0,
				   unsigned c0, unsigned nr, unsigned nc, const float *tile)
{
	uint64_t stored = 0;

	for (unsigned i = 0; i < 8; i++) {
		const unsigned r = r0 + gb_sgemm_row(t, i);

		if (r >= s->rows_x)
			continue;
		for (unsigned h = 0; h < 2; h++) {
			const unsigned c = c0 + gb_sgemm_col(t, 4 * h);

			/* one float4 (m % 4 == 0, c + 3 < m) or predicated scalars: the
			 * elements with c + e < m either way; sgemm_check vetted alignment */
			for (unsigned e = 0; e < 4; e++) {
				if (c + e >= s->rows_y)
					continue;
				if (r - r0 >= nr || c + e - c0 >= nc)
					continue;  /* only with unsigned wrap-around: no tile there */
				s->out[(size_t)r * s->rows_y + c + e] =
					tile[(size_t)(r - r0) * nc + (c + e - c0)];
				stored++;
			}
		}
	}
	return stored;
}

static cudaError_t sgemm_run(const struct gbsim_launch *l, struct gbsim_cost *cost, bool vec)
{
	const struct sgemm_args s = sgemm_args_of(l);
	const uint64_t pitch = (uint64_t)s.k * 4;
	const struct gbsim_gemm_operand x = { s.x, GBSIM_GEMM_F32, s.rows_x, s.k, pitch };
	const struct gbsim_gemm_operand y = { s.y, GBSIM_GEMM_F32, s.rows_y, s.k, pitch };
	struct gbsim_gemm_product p;
	uint64_t stored = 0;
	float *tile;
	cudaError_t e;

	if ((e = sgemm_check(l, &s, vec, &x, &y)))
		return e;
	if (!(tile = malloc(sizeof(float) * SGEMM_TILE * SGEMM_TILE)))
		return cudaErrorMemoryAllocation;
	if ((e = gbsim_gemm_product_init(&p, l->kernel, &x, &y, s.rows_x, s.rows_y, s.k))) {
		free(tile);
		return e;
	}
	for (unsigned b = 0; b < l->grid.x && !e; b++) {
		unsigned tm, tn, r0, c0, nr, nc;

		if ((e = gbsim_gemm_tile_of(l, b, s.tiles_m, s.tiles_n, &tm, &tn)))
			break;
		r0 = tn * SGEMM_TILE;
		c0 = tm * SGEMM_TILE;
		nr = gbsim_gemm_clamp(r0, SGEMM_TILE, s.rows_x);
		nc = gbsim_gemm_clamp(c0, SGEMM_TILE, s.rows_y);
		if (!nr || !nc)
			continue;
		gbsim_gemm_tile(&p, r0, nr, c0, nc, tile);
		for (unsigned t = 0; t < GB_SGEMM_THREADS; t++)
			stored += sgemm_store_thread(&s, t, r0, c0, nr, nc, tile);
	}
	gbsim_gemm_product_free(&p);
	free(tile);
	gbsim_gemm_cost(cost, GBSIM_FP32, s.k, ((uint64_t)s.rows_x + s.rows_y) * pitch, stored, 4,
			(uint64_t)l->grid.y * l->grid.z);
	return e;
}

static cudaError_t twin_sgemm_vec(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	return sgemm_run(l, cost, true);
}

static cudaError_t twin_sgemm_scalar(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	return sgemm_run(l, cost, false);
}

const struct gbsim_twin gbsim_twins_sgemm[] = {
	{ "void sgemm_kernel<false>(float const*, float const*, float*, unsigned int, "
	  "unsigned int, unsigned int, unsigned int, unsigned int)",
	  twin_sgemm_scalar, false },
	{ "void sgemm_kernel<true>(float const*, float const*, float*, unsigned int, "
	  "unsigned int, unsigned int, unsigned int, unsigned int)",
	  twin_sgemm_vec, false },
	{ NULL, NULL, false },
};

/* the block shape, at the launch (sim.h, struct gbsim_twin_check) */
static cudaError_t sgemm_launch_check(const struct gbsim_launch *l)
{
	return gbsim_gemm_launch_block(l, GB_SGEMM_THREADS, 1, GB_SGEMM_THREADS);
}

const struct gbsim_twin_check gbsim_twin_checks_sgemm[] = {
	{ twin_sgemm_scalar, sgemm_launch_check },
	{ twin_sgemm_vec, sgemm_launch_check },
	{ NULL, NULL },
};
