/* SPDX-License-Identifier: MIT */
/*
 * twins_sgemm_tiled.c - the CPU twin of kernels/sgemm_tiled.cu: the textbook
 * 32 x 32 tiled SGEMM, D = A^T B in FP32 (own_gemm.h's TN layout).
 *
 * Block (bx, by) of the 2-D grid computes D[i, j] for i in bx*32 + 0..31
 * (along m) and j in by*32 + 0..31 (along n), one output per thread, and
 * stores those inside m x n. Each output is fmaf(a, b, acc) over l = 0..k-1
 * from 0 (the zero-filled tail of the last slice adds nothing), which the
 * shared product reproduces bit for bit. grid.z > 1 recomputes the same
 * tiles (the kernel ignores blockIdx.z).
 */
#include "tests/sim/twins/own_gemm_twin.h"
#include "tests/sim/twins/twins.h"

#include "kernels/own_gemm_math.h"

#define TILED_TILE GB_TILED_TILE

/* what the kernel reads and writes */
struct tiled_args {
	const float *a, *b;
	float *d;
	unsigned m, n, k;
};

static struct tiled_args tiled_args_of(const struct gbsim_launch *l)
{
	struct tiled_args t;

	t.a = *(const float **)l->args[0];
	t.b = *(const float **)l->args[1];
	t.d = *(float **)l->args[2];
	t.m = *(const unsigned *)l->args[3];
	t.n = *(const unsigned *)l->args[4];
	t.k = *(const unsigned *)l->args[5];
	return t;
}

/* pointers, alignment and the block shape, before anything is touched */
static cudaError_t tiled_check(const struct gbsim_launch *l, const struct tiled_args *t,
			       const struct gbsim_gemm_operand *x,
			       const struct gbsim_gemm_operand *y)
{
	cudaError_t e;

	if ((e = gbsim_gemm_check_block(l, TILED_TILE, TILED_TILE, TILED_TILE * TILED_TILE)) ||
	    (e = gbsim_gemm_check_align(l, t->a, 4, "a")) ||
	    (e = gbsim_gemm_check_align(l, t->b, 4, "b")) ||
	    (e = gbsim_gemm_check_align(l, t->d, 4, "d")) ||
	    (e = gbsim_gemm_check_operand(l, y, "sgemm_tiled_kernel a")) ||
	    (e = gbsim_gemm_check_operand(l, x, "sgemm_tiled_kernel b")))
		return e;
	if (t->m && t->n)
		e = gbsim_check_access(l->device, t->d, (size_t)t->m * t->n * sizeof(float),
				       "sgemm_tiled_kernel d");
	return e;
}

/* block (bx, by): the kernel's epilogue, thread (tx, ty) storing D[i0 + tx, j0 + ty] */
static uint64_t tiled_block(const struct gbsim_gemm_product *p, const struct tiled_args *t,
			    unsigned bx, unsigned by, float *tile)
{
	const unsigned i0 = bx * TILED_TILE, j0 = by * TILED_TILE;
	unsigned nc, nr;
	uint64_t stored = 0;

	if (i0 >= t->m || j0 >= t->n)
		return 0;
	nc = t->m - i0 < TILED_TILE ? t->m - i0 : TILED_TILE;
	nr = t->n - j0 < TILED_TILE ? t->n - j0 : TILED_TILE;
	/* O = B A^T: row j (along n), column i (along m) */
	gbsim_gemm_tile(p, j0, nr, i0, nc, tile);
	for (unsigned ty = 0; ty < TILED_TILE; ty++) {
		for (unsigned tx = 0; tx < TILED_TILE; tx++) {
			const unsigned i = i0 + tx, j = j0 + ty;

			if (i < t->m && j < t->n) {
				t->d[i + (size_t)j * t->m] = tile[(size_t)ty * nc + tx];
				stored++;
			}
		}
	}
	return stored;
}

static cudaError_t twin_sgemm_tiled(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	const struct tiled_args t = tiled_args_of(l);
	/* X = B (n rows), Y = A (m rows), both k floats per row */
	const struct gbsim_gemm_operand x = { t.b, GBSIM_GEMM_F32, t.n, t.k, (uint64_t)t.k * 4 };
	const struct gbsim_gemm_operand y = { t.a, GBSIM_GEMM_F32, t.m, t.k, (uint64_t)t.k * 4 };
	struct gbsim_gemm_product p;
	float tile[TILED_TILE * TILED_TILE];
	uint64_t stored = 0;
	cudaError_t e;

	if ((e = tiled_check(l, &t, &x, &y)) ||
	    (e = gbsim_gemm_product_init(&p, l->kernel, &x, &y, t.n, t.m, t.k)))
		return e;
	for (unsigned by = 0; by < l->grid.y; by++)
		for (unsigned bx = 0; bx < l->grid.x; bx++)
			stored += tiled_block(&p, &t, bx, by, tile);
	gbsim_gemm_product_free(&p);
	gbsim_gemm_cost(cost, GBSIM_FP32, t.k, ((uint64_t)t.m + t.n) * t.k * 4, stored, 4,
			l->grid.z);
	return cudaSuccess;
}

const struct gbsim_twin gbsim_twins_sgemm_tiled[] = {
	{ "sgemm_tiled_kernel(float const*, float const*, float*, unsigned int, unsigned int, "
	  "unsigned int)",
	  twin_sgemm_tiled, false },
	{ NULL, NULL, false },
};

/* the block shape, at the launch (sim.h, struct gbsim_twin_check) */
static cudaError_t tiled_launch_check(const struct gbsim_launch *l)
{
	return gbsim_gemm_launch_block(l, TILED_TILE, TILED_TILE, TILED_TILE * TILED_TILE);
}

const struct gbsim_twin_check gbsim_twin_checks_sgemm_tiled[] = {
	{ twin_sgemm_tiled, tiled_launch_check },
	{ NULL, NULL },
};
