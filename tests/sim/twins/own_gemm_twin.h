/* SPDX-License-Identifier: MIT */
/*
 * own_gemm_twin.h - what the twins of gpubench's own GEMM kernels share
 * (twins_sgemm_tiled.c, twins_sgemm.c, twins_mma.c, twins_wgmma.c): the
 * product O = X Y^T of one launch on the CPU, in the kernels' declared
 * precision (inputs as their storage type, FP32 accumulation), and the
 * checks every one of them makes on its launch shape.
 *
 * Every kernel computes O = X Y^T with X = B (rows_x = n rows) and Y = A
 * (rows_y = m rows), both K-major, O[r][c] stored at D[c + r m]
 * (kernels/own_gemm_math.h). A twin builds the product once per launch, then
 * walks the launch's blocks through the kernel's own index maps
 * (gb_own_gemm_tile_of, mma_layout.h, wgmma_layout.h) and stores exactly
 * the elements the kernel's epilogue stores: a host-side bug (a grid too
 * small, a wrong leading dimension, a buffer too short) shows as poison
 * left in D or as an access error, as on a GPU.
 *
 * What a twin cannot do is prove the kernel right: it computes what the
 * kernel is meant to compute. Each output is a sequential FP32 fmaf chain
 * over k, which is bit for bit what sgemm_tiled and sgemm do; tensor cores
 * add in an order and internal precision of their own, so mma and wgmma
 * agree with their twins to within FP32 accumulation error, not bit for bit.
 *
 * Also here: the driver's tensor-map functions that wgmma.cu reaches through
 * cudaGetDriverEntryPointByVersion (defined in twins_wgmma.c), so the fake
 * runtime can hand them out.
 */
#ifndef GPUBENCH_TESTS_SIM_TWINS_OWN_GEMM_TWIN_H
#define GPUBENCH_TESTS_SIM_TWINS_OWN_GEMM_TWIN_H

#include <cuda.h>

#include <stddef.h>
#include <stdint.h>

#include "tests/sim/sim.h"

/* storage types of the own kernels' operands and outputs */
enum gbsim_gemm_elem {
	GBSIM_GEMM_F32,
	GBSIM_GEMM_F16,
	GBSIM_GEMM_BF16
};

/* bytes of one element */
size_t gbsim_gemm_elem_bytes(enum gbsim_gemm_elem e);

/*
 * One K-major operand as the kernel reads it: `rows` rows of `k` elements,
 * row i at base + i * pitch_bytes. Anything past the last row or past k
 * reads as zero (the kernels' zero-filled edges, TMA's bounds handling).
 */
struct gbsim_gemm_operand {
	const void *base;
	enum gbsim_gemm_elem elem;
	uint64_t rows;
	uint64_t k;
	uint64_t pitch_bytes;
};

/* bytes from base that the operand spans (0 when it has no element) */
uint64_t gbsim_gemm_operand_bytes(const struct gbsim_gemm_operand *op);

/*
 * O = X Y^T for r < rows_x, c < rows_y over l < k_loop, in FP32: X widened
 * to float row-major, Y widened and transposed so that the inner loop of a
 * tile (i-k-j order) walks contiguous memory.
 */
struct gbsim_gemm_product {
	float *x;                  /* rows_x x k_loop */
	float *yt;                 /* k_loop x rows_y */
	unsigned rows_x, rows_y;
	uint64_t k_loop;
	/*
	 * The whole product O[r][c] at o[r * rows_y + c] when it came from (or
	 * went into) the result cache; x and yt are then NULL. entry: the pinned
	 * cache entry holding o, NULL when o is this product's own to free.
	 */
	float *o;
	void *entry;
};

/*
 * Widen both operands; cudaErrorMemoryAllocation when the CPU has no room
 * (after logging which kernel). The operands' pointers must have been
 * checked (gbsim_check_access) first.
 *
 * Result cache: gemm's timed loops launch the same kernel on the same
 * operands thousands of times, and computing every launch was minutes of
 * CPU per test. So the whole product is computed once and kept, keyed by a
 * digest of everything it depends on: both operands' bytes (their spans),
 * their element types, rows, k and pitches, and k_loop, never their
 * addresses. A launch whose operands hash to a known key copies its tiles
 * from the kept product; a write to an operand changes its digest, so the
 * next launch computes again. The operands are hashed on every launch:
 * write stamps (sim.h) cannot vouch for them, since every kernel launch,
 * this one included, moves the global write epoch. Entries are evicted
 * least recently used within a byte budget, never while a launch uses
 * them. GPUBENCH_SIM_OWN_GEMM_CACHE=0 turns the cache off.
 */
cudaError_t gbsim_gemm_product_init(struct gbsim_gemm_product *p, const char *kernel,
				    const struct gbsim_gemm_operand *x,
				    const struct gbsim_gemm_operand *y, unsigned rows_x,
				    unsigned rows_y, uint64_t k_loop);
void gbsim_gemm_product_free(struct gbsim_gemm_product *p);

/* launches served from the result cache and launches that computed, since the start or a clear */
void gbsim_gemm_cache_stats(uint64_t *hits, uint64_t *misses);
/* drop every unpinned entry and zero the counts (tests) */
void gbsim_gemm_cache_clear(void);

/* the widest block tile a twin asks for (wgmma's 256 along m) */
#define GBSIM_GEMM_MAX_TILE 256

/*
 * The tile O[r0 .. r0 + nr) x [c0 .. c0 + nc) into tile[i * nc + j], each
 * element a sequential fmaf chain over l = 0, 1, ... k_loop - 1 from +0
 * (the order of the FP32 kernels' inner loops). The caller clamps the tile
 * to rows_x x rows_y; the twins' tile buffers hold nc <= GBSIM_GEMM_MAX_TILE
 * (the whole product, nc = rows_y, fills the result cache).
 */
void gbsim_gemm_tile(const struct gbsim_gemm_product *p, unsigned r0, unsigned nr, unsigned c0,
		     unsigned nc, float *tile);

/* one accumulator rounded to the output type and stored at out[index] */
void gbsim_gemm_store(void *out, enum gbsim_gemm_elem e, uint64_t index, float v);

/*
 * The launch's block shape against the one the kernel is written for:
 * cudaSuccess when equal; else logged, and cudaErrorLaunchOutOfResources
 * when it has more threads than the kernel's __launch_bounds__ (the launch
 * fails so on a GPU) or cudaErrorLaunchFailure otherwise (a GPU would
 * compute garbage from a partly loaded tile; the simulator refuses).
 */
cudaError_t gbsim_gemm_check_block(const struct gbsim_launch *l, unsigned x, unsigned y,
				   unsigned launch_bound);

/*
 * gbsim_gemm_check_block at the launch (struct gbsim_twin_check): a block
 * the kernel is not written for is cudaErrorInvalidConfiguration there,
 * returned by the launch and not sticky; above the launch bound still
 * cudaErrorLaunchOutOfResources, as a GPU's launch says.
 */
cudaError_t gbsim_gemm_launch_block(const struct gbsim_launch *l, unsigned x, unsigned y,
				    unsigned launch_bound);

/*
 * Dynamic shared memory the kernel indexes up to `need` bytes of:
 * cudaErrorIllegalAddress (logged) when the launch gave less, as the
 * out-of-range shared access would raise on a GPU.
 */
cudaError_t gbsim_gemm_check_shared(const struct gbsim_launch *l, size_t need);

/*
 * A pointer the kernel dereferences with `align`-byte accesses:
 * cudaErrorMisalignedAddress (logged) when it is not so aligned.
 */
cudaError_t gbsim_gemm_check_align(const struct gbsim_launch *l, const void *p, size_t align,
				   const char *what);

/*
 * Block b's tile (tm, tn) by gb_own_gemm_tile_of, the kernels' own map.
 * With tiles_m = 0, or a block past the last group of a grid larger than
 * tiles_m x tiles_n, that map divides by zero: undefined on a GPU, a crash
 * on the CPU, so the twin logs it and returns cudaErrorLaunchFailure.
 */
cudaError_t gbsim_gemm_tile_of(const struct gbsim_launch *l, unsigned b, unsigned tiles_m,
			       unsigned tiles_n, unsigned *tm, unsigned *tn);

/*
 * Kernels that clamp edge rows to the last one (sgemm, mma) clamp to row
 * 2^32 - 1 of an operand with no rows, so with k > 0 they read a tile of
 * rows it does not have: refused as cudaErrorIllegalAddress (logged); the
 * launchers never pass 0.
 */
cudaError_t gbsim_gemm_check_rows(const struct gbsim_launch *l, unsigned rows_x,
				  unsigned rows_y, unsigned k);

/* rows (or columns) of a tile starting at `first` of `size` that lie below `limit` */
unsigned gbsim_gemm_clamp(unsigned first, unsigned size, unsigned limit);

/* gbsim_check_access on an operand's whole span */
cudaError_t gbsim_gemm_check_operand(const struct gbsim_launch *l,
				     const struct gbsim_gemm_operand *op, const char *what);

/*
 * Cost of a launch that stored `stored` outputs of a k-deep product, `repeat`
 * times (blocks of a 1-D kernel's grid rows past the first recompute the
 * same tiles): 2 k flops per output at `prec`, bytes = both operands read
 * once plus every output written.
 */
void gbsim_gemm_cost(struct gbsim_cost *cost, enum gbsim_precision prec, uint64_t k,
		     uint64_t in_bytes, uint64_t stored, size_t out_elem_bytes, uint64_t repeat);

/* ---- the driver's tensor maps (twins_wgmma.c), as PFN_*_v12000 in cudaTypedefs.h ---- */

/*
 * cuTensorMapEncodeTiled: validates the arguments as cuda.h documents
 * (CUDA_ERROR_INVALID_VALUE otherwise) and keeps what the wgmma twin needs
 * inside the 128-byte opaque map.
 */
CUresult gbsim_drv_cuTensorMapEncodeTiled(CUtensorMap *tensorMap,
					  CUtensorMapDataType tensorDataType,
					  cuuint32_t tensorRank, void *globalAddress,
					  const cuuint64_t *globalDim,
					  const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
					  const cuuint32_t *elementStrides,
					  CUtensorMapInterleave interleave,
					  CUtensorMapSwizzle swizzle,
					  CUtensorMapL2promotion l2Promotion,
					  CUtensorMapFloatOOBfill oobFill);

/* cuTensorMapReplaceAddress: a map from the encoder, moved to another (aligned) address */
CUresult gbsim_drv_cuTensorMapReplaceAddress(CUtensorMap *tensorMap, void *globalAddress);

#endif
