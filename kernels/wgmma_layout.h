/* SPDX-License-Identifier: MIT */
/*
 * wgmma_layout.h - where every element goes in the `wgmma` kernel
 * (kernels/wgmma.cu): where the 1024-byte-aligned tiles start in dynamic
 * shared memory, which stage and which consumer's rows a slice occupies,
 * where TMA's 128-byte swizzle puts each element of a box, the shared-memory
 * matrix descriptor wgmma reads an operand through (and its advance per k16
 * step), which accumulator register of which thread holds which element of
 * the m64nNk16 result, and where that element lands in D.
 *
 * The kernel computes these indices only through the functions below, and
 * tests/kernels/test_wgmma_layout.c runs them through an emulation of TMA (from the
 * CUDA C++ Programming Guide) and of wgmma's descriptor addressing and
 * accumulator fragment (from the PTX ISA), over whole grids of block tiles,
 * and checks O = X Y^T exactly: a wrong index fails on a machine without a
 * GPU instead of as a verification failure (or a hang) on one.
 *
 * Names follow the kernel: O = X Y^T, X (rows r, along n: 128 per block,
 * 64 per consumer warpgroup) is wgmma's A operand and Y (rows c, along m:
 * 256 per block) its B operand, both K-major in global and shared memory.
 *
 * Plain C11 and CUDA: static inline only, GB_HD is __host__ __device__ under
 * nvcc. The arguments are constants or loop counters that unrolling makes
 * constants, so nvcc folds these to the expressions the kernel had inline.
 */
#ifndef GPUBENCH_KERNELS_WGMMA_LAYOUT_H
#define GPUBENCH_KERNELS_WGMMA_LAYOUT_H

#include <stdint.h>

#include "kernels/own_gemm_math.h"
#include "kernels/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- shape (GB_WGMMA_TILE_M/_N, _BK, _STAGES, _THREADS: own_gemm_math.h) ---- */

/*
 * The swizzle: TMA's CU_TENSOR_MAP_SWIZZLE_128B and the descriptor's mode
 * 1. One k-slice row of a tile (64 halves) is exactly one 128-byte swizzle
 * row, and the pattern repeats every 8 rows (1024 bytes).
 */
#define GB_WGMMA_SWIZZLE_BYTES 128
#define GB_WGMMA_ATOM_BYTES (8 * GB_WGMMA_SWIZZLE_BYTES)
/* a stage is X's tile (128 rows, 16 KiB) then Y's (256 rows, 32 KiB) */
#define GB_WGMMA_X_BYTES (GB_WGMMA_TILE_N * GB_WGMMA_BK * 2)
#define GB_WGMMA_Y_BYTES (GB_WGMMA_TILE_M * GB_WGMMA_BK * 2)
#define GB_WGMMA_STAGE_BYTES (GB_WGMMA_X_BYTES + GB_WGMMA_Y_BYTES)
/* rows of X each consumer warpgroup owns: wgmma's M */
#define GB_WGMMA_CONSUMER_ROWS 64
/* k16 steps per slice: 4 */
#define GB_WGMMA_KSTEPS (GB_WGMMA_BK / 16)

/* ---- shared memory: tiles and stages ---- */

/*
 * The first tile byte for a dynamic shared-memory area at `dyn` (its
 * shared-state-space address): rounded up to 1024 bytes, so the 128-byte
 * swizzle pattern of every tile starts at row 0 of the pattern (the
 * descriptor's base offset can then be 0, and TMA's pattern offset
 * (dst / 128) % 8 is 0 too). GB_WGMMA_SMEM_ALIGN bytes of slack are part of
 * gb_own_gemm_smem_bytes.
 */
static inline GB_HD uint32_t gb_wgmma_tiles_base(uint32_t dyn)
{
	return (dyn + GB_WGMMA_SMEM_ALIGN - 1) & ~(uint32_t)(GB_WGMMA_SMEM_ALIGN - 1);
}

/* X's tile of stage s (TMA writes the producer's 128-row box here) */
static inline GB_HD uint32_t gb_wgmma_stage_x(uint32_t tiles, unsigned s)
{
	return tiles + s * (uint32_t)GB_WGMMA_STAGE_BYTES;
}

/* Y's tile of stage s (the 256-row box), right after X's */
static inline GB_HD uint32_t gb_wgmma_stage_y(uint32_t tiles, unsigned s)
{
	return gb_wgmma_stage_x(tiles, s) + GB_WGMMA_X_BYTES;
}

/* rows 64 cw .. 64 cw + 63 of a stage's X tile: consumer cw's wgmma A operand */
static inline GB_HD uint32_t gb_wgmma_consumer_x(uint32_t stage_x, unsigned cw)
{
	return stage_x + cw * (uint32_t)(GB_WGMMA_CONSUMER_ROWS * GB_WGMMA_SWIZZLE_BYTES);
}

/* ---- TMA: where a box lands ---- */

/*
 * The shared-memory byte where cp.async.bulk.tensor with
 * CU_TENSOR_MAP_SWIZZLE_128B puts element e (0..63) of row `row` of a box
 * of 64 16-bit elements per row written at `dst`. Rows are 128 bytes;
 * inside one, 16-byte chunk x goes to chunk ((row + offset) % 8) ^ x with
 * offset = (dst / 128) % 8 (CUDA C++ Programming Guide, "TMA Swizzle",
 * table "Swizzle Pattern Pointer Offset Formula and Index Relation": the
 * pattern is a function of the absolute address, repeating every 1024
 * bytes). The kernel never computes this (TMA does); it is here so that
 * the emulation places boxes by the same rule the launcher's tensor maps
 * ask for.
 */
static inline GB_HD uint32_t gb_wgmma_tma_smem_addr(uint32_t dst, unsigned row, unsigned e)
{
	unsigned offset = (dst / 128) % 8;
	unsigned chunk = (e * 2) / 16, in_chunk = (e * 2) % 16;

	return dst + row * 128u + ((((row + offset) % 8) ^ chunk) << 4) + in_chunk;
}

/* ---- the shared-memory matrix descriptor ---- */

/*
 * PTX ISA, "Matrix Descriptor Format" (asynchronous warpgroup level matrix
 * shared memory layout): matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4,
 * for the start address (bits 0-13), the leading dimension byte offset
 * (16-29) and the stride dimension byte offset (32-45).
 */
static inline GB_HD uint64_t gb_wgmma_desc_encode(uint32_t x)
{
	return (uint64_t)((x & 0x3FFFFu) >> 4);
}

/* LBO: for swizzled K-major layouts "not used, assumed to be 1" (PTX ISA) */
#define GB_WGMMA_DESC_LBO 16u
/* SBO: K-major, "the offset from the first 8 rows to the next 8 rows": 8 x 128 B */
#define GB_WGMMA_DESC_SBO 1024u
/* bits 62-63: 0 none, 1 128-byte, 2 64-byte, 3 32-byte swizzle */
#define GB_WGMMA_DESC_MODE_128B 1u

/*
 * The descriptor of a K-major operand tile at `smem_addr` in the layout TMA
 * writes: the PTX ISA's canonical K-major 128B-swizzle layout,
 * Swizzle<3,4,3> o ((8,m),(T,2k)):((8T,SBO),(1,T)) with T = 8 halves:
 * rows 128 bytes apart inside a group of 8, groups SBO = 1024 bytes apart,
 * k contiguous. Base offset (bits 49-51) 0: every tile starts on a
 * 1024-byte pattern boundary (gb_wgmma_tiles_base, and every offset below
 * is a multiple of 1024 except the k16 advance, which stays in row 0).
 */
static inline GB_HD uint64_t gb_wgmma_desc(uint32_t smem_addr)
{
	return gb_wgmma_desc_encode(smem_addr) | gb_wgmma_desc_encode(GB_WGMMA_DESC_LBO) << 16 |
	       gb_wgmma_desc_encode(GB_WGMMA_DESC_SBO) << 32 |
	       (uint64_t)GB_WGMMA_DESC_MODE_128B << 62;
}

/*
 * The descriptor of k16 step kk (0..3) of a slice: the operand starts 16
 * halves (32 bytes) further along its row, +2 in the start address field
 * (bytes >> 4). wgmma forms the unswizzled address (start + row offsets +
 * 2 k) and only then XORs bits 4-6 with bits 7-9; a step of 32 kk < 128
 * bytes leaves bits 7-9 (the row) alone, so the XOR still matches the one
 * TMA applied. CUTLASS's descriptor iterator and fast.cu step along k the
 * same way. The field cannot carry: the largest start (227 KiB >> 4) plus
 * 6 stays below 2^14.
 */
static inline GB_HD uint64_t gb_wgmma_desc_k16(uint64_t desc, unsigned kk)
{
	return desc + (uint64_t)kk * (16 * 2 >> 4);
}

/* ---- accumulators and the epilogue ---- */

/*
 * Accumulator i (0..N/2-1) of thread t (0..127) of a warpgroup in a wgmma
 * m64nNk16 f32 result (PTX ISA, "Matrix Fragments for wgmma.mma_async.m64nNk16",
 * the figure of accumulator D): warp t/32 holds rows 16 (t/32) + (t%32)/4,
 * +8 for odd i/2; the registers walk 8-column chunks, 2 adjacent columns
 * each, so (i, i + 1) for even i is a pair of adjacent columns.
 */
static inline GB_HD unsigned gb_wgmma_acc_row(unsigned t, unsigned i)
{
	return (t / 32) * 16 + (t % 32) / 4 + 8 * ((i / 2) % 2);
}
static inline GB_HD unsigned gb_wgmma_acc_col(unsigned t, unsigned i)
{
	return (i / 4) * 8 + (t % 4) * 2 + i % 2;
}

/*
 * O[r][c] of the whole product, stored at D[c + r m] (own_gemm_math.h: O is
 * D's memory read row-major, rows_y = m): the pair (c, c + 1) is adjacent.
 */
static inline GB_HD uint64_t gb_wgmma_out_index(unsigned r, unsigned c, unsigned rows_y)
{
	return (uint64_t)r * rows_y + c;
}

/*
 * Whether accumulators (i, i + 1) at column c go out as one 4-byte pair: m
 * (rows_y) even keeps every even column's address 4-byte aligned, and
 * column c + 1 must exist. Otherwise each is stored alone (c + 1 only when
 * it exists).
 */
static inline GB_HD int gb_wgmma_store_pair(unsigned c, unsigned rows_y)
{
	return rows_y % 2 == 0 && c + 1 < rows_y;
}


/* ---- the hardware's side, from the documents (never called by the kernel) ---- */

/*
 * What TMA and wgmma do, written from the documents independently of the
 * kernel's index functions above, for the emulations that run the kernel
 * against them: tests/kernels/test_wgmma_layout.c (the data path alone) and the CPU
 * executor's wgmma.mma_async (tests/kexec/kexec_wgmma.cc, the kernel as
 * written). One model, so the two cannot disagree.
 */

/* CuTe's Swizzle<B,4,3> on a byte address: bits [4, 4+B) ^= bits [7, 7+B) */
static inline uint32_t gb_wgmma_hw_swizzle(uint32_t addr, unsigned bits)
{
	uint32_t mask = ((1u << bits) - 1) << 4;

	return addr ^ ((addr >> 3) & mask);
}

/*
 * The shared-memory byte where wgmma reads element (row, k) of a K-major
 * 16-bit operand named by `desc`, PTX ISA "Matrix Descriptor Format" and
 * "Canonical Layouts" (asynchronous warpgroup level matrix shared memory
 * layout): fields start, LBO, SBO (<< 4), base offset, swizzle mode;
 * K-major layout ((8,m),(T,2k)):((S T,SBO),(1,T)) in elements (T = 8
 * halves, S = 8, 4, 2 for 128-, 64-, 32-byte swizzle; no swizzle:
 * ((8,m),(T,2k)):((1T,SBO),(1,LBO))), then Swizzle<B,4,3> on the byte
 * address (B = 3, 2, 1). *valid is cleared when the descriptor breaks the
 * format: bits it leaves unused set, a swizzled layout's LBO other than the
 * "assumed 1", or a base offset that is not where the start address puts
 * the pattern.
 */
static inline uint32_t gb_wgmma_hw_desc_addr(uint64_t desc, unsigned row, unsigned k, int *valid)
{
	const uint32_t start = (uint32_t)(desc & 0x3FFF) << 4;
	const uint32_t lbo = (uint32_t)((desc >> 16) & 0x3FFF) << 4;
	const uint32_t sbo = (uint32_t)((desc >> 32) & 0x3FFF) << 4;
	const unsigned base_offset = (unsigned)(desc >> 49) & 7, mode = (unsigned)(desc >> 62);
	const unsigned t = 8; /* T: 16-bit elements per 128 bits */
	/* 128-, 64-, 32-byte swizzle: 8-row group rows 8T, 4T, 2T elements apart */
	static const unsigned swz_bits[4] = { 0, 3, 2, 1 };
	uint32_t addr;

	*valid = (desc & (3ull << 14 | 3ull << 30 | 7ull << 46 | 0x3FFull << 52)) == 0;
	if (mode == 0)
		return start + (row % 8) * t * 2 + (row / 8) * sbo + (k % t) * 2 + (k / t) * lbo;
	if (lbo >> 4 != 1 || ((start >> 7) & ((1u << swz_bits[mode]) - 1)) != base_offset)
		*valid = 0;
	addr = start + (row % 8) * ((1u << swz_bits[mode]) * t * 2) + (row / 8) * sbo +
	       (k % t) * 2 + (k / t) * t * 2;
	return gb_wgmma_hw_swizzle(addr, swz_bits[mode]);
}

/*
 * Thread t's (0..127) accumulator i of an m64nN f32 wgmma result: (row,
 * column), CUTLASS's CLayout_64xN (the PTX ISA figure "WGMMA .m64nNk16
 * register fragment layout for accumulator matrix D" in CuTe form): index
 * 128 (t%4) + (t/4)%8 + 16 (t/32) + 64 (i%2) + 8 ((i/2)%2) + 512 (i/4),
 * row index % 64, column index / 64.
 */
static inline void gb_wgmma_hw_acc(unsigned t, unsigned i, unsigned *row, unsigned *col)
{
	unsigned idx = 128 * (t % 4) + (t / 4) % 8 + 16 * (t / 32) + 64 * (i % 2) +
		       8 * ((i / 2) % 2) + 512 * (i / 4);

	*row = idx % 64;
	*col = idx / 64;
}

#ifdef __cplusplus
}
#endif

#endif
