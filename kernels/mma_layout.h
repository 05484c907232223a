/* SPDX-License-Identifier: MIT */
/*
 * mma_layout.h - where every element goes in the `mma` kernel
 * (kernels/mma.cu): which thread copies which 16-byte chunk of a k-slice
 * into which swizzled shared-memory slot, which stage holds a slice, which
 * row address each lane gives ldmatrix, which ldmatrix register feeds which
 * mma operand, and which element of O each accumulator is.
 *
 * The kernel computes its indices only through these functions, and
 * tests/kernels/test_mma_layout.c runs the same functions through an emulation of
 * cp.async, ldmatrix and mma.m16n8k16 written from the PTX ISA, over whole
 * grids of block tiles, and checks O = X Y^T exactly: a wrong index fails on
 * a machine without a GPU instead of as a verification failure on one.
 *
 * What is not here, and why: the A and B fragment layouts of mma.m16n8k16
 * are the hardware's, produced by ldmatrix; the kernel never computes them,
 * so they live in the test as the independent PTX oracle the kernel's
 * indices are checked against. The C layout is here (gb_mma_acc_row/col,
 * kernels/own_gemm_math.h) because the epilogue computes it.
 *
 * Names follow the kernel: O = X Y^T, X (rows r, along n) is mma's
 * row-major A operand and Y (rows c, along m) its column-major B operand,
 * both K-major in memory and in shared memory.
 *
 * Plain C11 and CUDA: static inline only, GB_HD is __host__ __device__ under
 * nvcc. Every argument but the thread and lane is a loop counter that
 * unrolling makes a constant, so nvcc folds these to the code it generated
 * when the expressions were written inline (same registers, no spills:
 * docs/kernels.md, "Compiler report").
 */
#ifndef GPUBENCH_KERNELS_MMA_LAYOUT_H
#define GPUBENCH_KERNELS_MMA_LAYOUT_H

#include "kernels/own_gemm_math.h"
#include "kernels/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- shape (GB_MMA_TILE, _BK, _THREADS, _MIN/MAX_STAGES: own_gemm_math.h) ---- */

/* 16-byte chunks (8 halves of k) per 64-byte shared-memory row: 4 */
#define GB_MMA_CHUNKS (GB_MMA_BK * 2 / 16)
/* chunks each thread copies per operand per slice: 128 rows x 4 / 256 = 2 */
#define GB_MMA_LOADS (GB_MMA_TILE * GB_MMA_CHUNKS / GB_MMA_THREADS)
/* one operand's slice in shared memory: 8 KiB; a stage is X then Y */
#define GB_MMA_TILE_BYTES (GB_MMA_TILE * GB_MMA_BK * 2)
#define GB_MMA_STAGE_BYTES (2 * GB_MMA_TILE_BYTES)
/* 8 warps as 2 (r) x 4 (c), each 64 x 32 of O = 4 x 4 m16n8 tiles */
#define GB_MMA_WARPS_C 4
#define GB_MMA_WARP_R 64
#define GB_MMA_WARP_C 32
#define GB_MMA_MI (GB_MMA_WARP_R / 16)
#define GB_MMA_NI (GB_MMA_WARP_C / 8)
/* k16 steps per slice: 2 (each covers 2 chunks) */
#define GB_MMA_KSTEPS (GB_MMA_BK / 16)

/*
 * cp.async groups still allowed in flight when slice s is read. A macro,
 * not a function: it is a template argument (wait_group takes an
 * immediate). The prologue commits stages - 1 groups and each slice one
 * more, group g holding slice g; waiting until at most stages - 2 are
 * pending at slice s leaves groups 0..s complete.
 */
#define GB_MMA_WAIT_PENDING(stages) ((stages) - 2)

/* ---- global -> shared: the loader ---- */

/*
 * Chunk i (0..GB_MMA_LOADS-1) of thread t is chunk q = t + 256 i of the
 * tile: row q / 4, chunk q % 4. Consecutive threads take consecutive
 * chunks, so a warp reads 8 whole 64-byte row pieces of global memory, and
 * the 8 threads of a store phase write 2 whole rows, whose 8 chunks the
 * swizzle spreads over 8 bank groups.
 */
static inline GB_HD unsigned gb_mma_load_row(unsigned t, unsigned i)
{
	return (t + i * GB_MMA_THREADS) / GB_MMA_CHUNKS;
}
static inline GB_HD unsigned gb_mma_load_chunk(unsigned t, unsigned i)
{
	return (t + i * GB_MMA_THREADS) % GB_MMA_CHUNKS;
}

/* the first k of chunk `chunk` of slice `slice` */
static inline GB_HD unsigned gb_mma_load_k(unsigned slice, unsigned chunk)
{
	return slice * GB_MMA_BK + chunk * 8;
}

/*
 * The matrix row that tile row `row` of a tile starting at row0 reads, for
 * a matrix of `rows` rows: past the edge, the last row. Those rows are
 * computed and never stored, so the k loop needs no row tests.
 */
static inline GB_HD unsigned gb_mma_src_row(unsigned row0, unsigned row, unsigned rows)
{
	return row0 + row < rows - 1 ? row0 + row : rows - 1;
}

/* The store slot is gb_mma_smem_offset(row, chunk) (own_gemm_math.h): the swizzle. */

/* ---- the stage ring ---- */

/* byte offsets of stage `stage`'s X and Y tiles in dynamic shared memory */
static inline GB_HD unsigned gb_mma_stage_x(unsigned stage)
{
	return stage * GB_MMA_STAGE_BYTES;
}
static inline GB_HD unsigned gb_mma_stage_y(unsigned stage)
{
	return stage * GB_MMA_STAGE_BYTES + GB_MMA_TILE_BYTES;
}

/*
 * Slice s lives in stage s % stages. The prologue puts slice s (< stages -
 * 1) in stage s; the k loop steps a counter instead of dividing.
 */
static inline GB_HD unsigned gb_mma_stage_next(unsigned stage, unsigned stages)
{
	return stage + 1 == stages ? 0 : stage + 1;
}

/*
 * While slice s is read from `stage`, slice s + stages - 1 is copied into
 * the stage before it: slice s - 1's, which every warp has finished by the
 * barrier that starts slice s. Any other stage holds a slice not yet read.
 */
static inline GB_HD unsigned gb_mma_stage_refill(unsigned stage, unsigned stages)
{
	return stage == 0 ? stages - 1 : stage - 1;
}

/* ---- shared -> registers: ldmatrix ---- */

/* the first row (along r) and column (along c) of warp w's 64 x 32 piece of the tile */
static inline GB_HD unsigned gb_mma_warp_row(unsigned warp)
{
	return warp / GB_MMA_WARPS_C * GB_MMA_WARP_R;
}
static inline GB_HD unsigned gb_mma_warp_col(unsigned warp)
{
	return warp % GB_MMA_WARPS_C * GB_MMA_WARP_C;
}

/*
 * X, mma's A: the byte offset in the X tile of the row `lane` gives
 * ldmatrix.x4 for m16 tile mi at k16 step ks. Lanes 0-15 give rows 0-15 at
 * the step's first 8 k, lanes 16-31 the same rows at the next 8, so the four
 * 8x8 matrices are (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15,
 * 8-15): registers 0-3 are a0a1, a2a3, a4a5, a6a7 of mma's A fragment as
 * they come, with no shuffling.
 */
static inline GB_HD unsigned gb_mma_ldsm_x(unsigned warp, unsigned mi, unsigned ks, unsigned lane)
{
	return gb_mma_smem_offset(gb_mma_warp_row(warp) + mi * 16 + (lane & 15),
				  ks * 2 + (lane >> 4));
}

/*
 * Y, mma's B (column-major B = rows of Y): one ldmatrix.x4 loads two n8
 * tiles, 2 nj and 2 nj + 1. Lanes 0-7 give rows 0-7 at k 0-7, lanes 8-15
 * rows 0-7 at k 8-15, lanes 16-23 rows 8-15 at k 0-7, lanes 24-31 rows 8-15
 * at k 8-15: registers 0-3 are b0b1 and b2b3 of tile 2 nj, then of 2 nj + 1
 * (gb_mma_ldsm_y_tile/_reg).
 */
static inline GB_HD unsigned gb_mma_ldsm_y(unsigned warp, unsigned nj, unsigned ks, unsigned lane)
{
	return gb_mma_smem_offset(gb_mma_warp_col(warp) + nj * 16 + (lane & 7) + (lane >> 4) * 8,
				  ks * 2 + ((lane >> 3) & 1));
}

/* register j (0..3) of pair nj's Y ldmatrix.x4 is register _reg of n8 tile _tile's B fragment */
static inline GB_HD unsigned gb_mma_ldsm_y_tile(unsigned nj, unsigned j)
{
	return 2 * nj + j / 2;
}
static inline GB_HD unsigned gb_mma_ldsm_y_reg(unsigned j)
{
	return j % 2;
}

/* ---- registers -> global: the epilogue ---- */

/* block b's tile of O starts at row r0 (along X, n) and column c0 (along Y, m) */
static inline GB_HD void gb_mma_block_origin(unsigned b, unsigned tiles_m, unsigned tiles_n,
					     unsigned *r0, unsigned *c0)
{
	unsigned tm, tn;

	gb_own_gemm_tile_of(b, tiles_m, tiles_n, &tm, &tn);
	*r0 = tn * GB_MMA_TILE;
	*c0 = tm * GB_MMA_TILE;
}

/* accumulator i (0..3) of m16n8 tile (mi, ni) of `lane` in `warp`: row, column in the block tile */
static inline GB_HD unsigned gb_mma_out_row(unsigned warp, unsigned mi, unsigned lane, unsigned i)
{
	return gb_mma_warp_row(warp) + mi * 16 + gb_mma_acc_row(lane, i);
}
static inline GB_HD unsigned gb_mma_out_col(unsigned warp, unsigned ni, unsigned lane, unsigned i)
{
	return gb_mma_warp_col(warp) + ni * 8 + gb_mma_acc_col(lane, i);
}

/*
 * How many of the pair O[r][c], O[r][c + 1] (c even) lie inside the rows_x
 * x rows_y output: 0, 1 (c + 1 is past the last column) or 2. Rows and
 * columns past the edge were computed from clamped rows and are dropped.
 */
static inline GB_HD unsigned gb_mma_out_count(unsigned r, unsigned c, unsigned rows_x,
					      unsigned rows_y)
{
	if (r >= rows_x || c >= rows_y)
		return 0;
	return c + 1 < rows_y ? 2 : 1;
}

/*
 * Whether a pair may be stored as one 4-byte word: c is even, so element
 * r rows_y + c is at an even index for every r exactly when rows_y (m) is
 * even.
 */
static inline GB_HD int gb_mma_pair_aligned(unsigned rows_y)
{
	return rows_y % 2 == 0;
}

#ifdef __cplusplus
}
#endif

#endif
