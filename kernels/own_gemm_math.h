/* SPDX-License-Identifier: MIT */
/*
 * own_gemm_math.h - the CPU-side arithmetic of gpubench's own GEMM kernels
 * (kernels/sgemm_tiled.cu, sgemm.cu, mma.cu, wgmma.cu): which kernel runs
 * which precision on which GPU and shape, their tile sizes, grids and
 * shared-memory bytes, and the index maps the kernels use. It lives in
 * gpubench_core and is unit tested without a GPU (tests/kernels/test_own_gemm_math.c);
 * the launchers call the same functions, so what the tests check is what runs.
 *
 * Layout: the one of bench/gemm/gemm_math.h (cuBLASLt "TN"): D = A^T B with A
 * stored k x m and B k x n column-major (lda = ldb = k), D m x n column-major
 * (ldd = m). Every row of A^T and every column of B is contiguous along k.
 *
 * Inside the kernels the roles are swapped: they compute the row-major
 * product O = X Y^T with X = B (R = n rows), Y = A (C = m rows), both K-major,
 * and O[r][c] stored at out[c + r * m]. O is D's memory read row-major, so
 * the two adjacent accumulators a tensor-core fragment gives each thread land
 * next to each other in memory (along m) instead of m elements apart.
 *
 * The static inline functions below are compiled into the kernels too
 * (GB_OWN_HD is __host__ __device__ under nvcc).
 */
#ifndef GPUBENCH_BENCH_OWN_GEMM_MATH_H
#define GPUBENCH_BENCH_OWN_GEMM_MATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/theory.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define GB_OWN_HD __host__ __device__
#else
#define GB_OWN_HD
#endif

/* gpubench's kernels, in --impl order after "cublaslt" */
enum gb_own_gemm {
	GB_OWN_TILED = 0,  /* shared-memory tiled SGEMM: the textbook baseline */
	GB_OWN_SGEMM,      /* block/warp/register-tiled SGEMM */
	GB_OWN_MMA,        /* FP16/BF16 mma.sync + ldmatrix + cp.async (sm_80+) */
	GB_OWN_WGMMA,      /* FP16/BF16 wgmma + TMA + mbarrier pipeline (sm_90a) */
	GB_OWN_COUNT
};

/* "tiled", "sgemm", "mma", "wgmma"; "unknown" otherwise */
const char *gb_own_gemm_name(enum gb_own_gemm kind);

/* ---- tile sizes (block tile is tile_m rows x tile_n columns of D) ---- */

/* tiled: one output per thread, a 32 x 32 tile of D per block */
#define GB_TILED_TILE 32

/* sgemm: 128 x 128 block tile, k-slices of 8, 256 threads of 8 x 8 outputs */
#define GB_SGEMM_TILE 128
#define GB_SGEMM_BK 8
#define GB_SGEMM_THREADS 256
/* floats of padding per shared-memory row: the transposed stores stay conflict-free */
#define GB_SGEMM_PAD 4

/* mma: 128 x 128 block tile, k-slices of 32 halves (64-byte rows), 8 warps of 64 x 32 */
#define GB_MMA_TILE 128
#define GB_MMA_BK 32
#define GB_MMA_THREADS 256
#define GB_MMA_MIN_STAGES 3
#define GB_MMA_MAX_STAGES 4

/*
 * wgmma: 128 (n) x 256 (m) block tile, k-slices of 64 halves (one 128-byte
 * swizzle row), 4 stages; one producer warpgroup (TMA) and two consumer
 * warpgroups of m64n256k16 each.
 */
#define GB_WGMMA_TILE_M 256
#define GB_WGMMA_TILE_N 128
#define GB_WGMMA_BK 64
#define GB_WGMMA_STAGES 4
#define GB_WGMMA_THREADS 384
/* the 128-byte swizzle repeats every 8 rows of 128 bytes; TMA needs that alignment */
#define GB_WGMMA_SMEM_ALIGN 1024

/* consecutive blocks walk GB_OWN_GROUP tile columns of D before moving on (L2 reuse) */
#define GB_OWN_GROUP 8

/* ---- what a kernel runs on ---- */

/* the precisions a kernel computes: fp32 for tiled/sgemm, fp16 and bf16 for mma/wgmma */
bool gb_own_gemm_runs_prec(enum gb_own_gemm kind, enum gb_precision p);

/*
 * NULL when `kind` can run precision p on device `device` of compute
 * capability cc_major.cc_minor; else a one-line reason in buf, e.g. "sgemm
 * computes fp32 only, not bf16" or "wgmma needs compute capability 9.0
 * (sm_90a code runs on Hopper only); device 0 is 8.0".
 */
const char *gb_own_gemm_unsupported_reason(enum gb_own_gemm kind, enum gb_precision p,
					   int cc_major, int cc_minor, int device, char *buf,
					   size_t len);

/*
 * 0 when `kind` computes m x n x k; else -1 and a one-line reason in err.
 * Every kernel takes any m, n, k >= 1 with predicated edge tiles; the only
 * other rule is wgmma's, whose TMA coordinates are 32-bit signed: m and n
 * at most 2^31 - 1, k at most 2^31 - 1 - 64 (far beyond any GPU's memory
 * for k and for m = n; a tall, thin m or n could reach it).
 */
int gb_own_gemm_check_shape(enum gb_own_gemm kind, uint64_t m, uint64_t n, uint64_t k,
			    char *err, size_t len);

/*
 * wgmma with k % 8 != 0. TMA needs each row of A and B (k halves) to start
 * on a 16-byte boundary, so the row pitch must be a multiple of 8 halves.
 * When it is not, the launcher first copies A and B (cudaMemcpy2DAsync on
 * the launch stream, inside the timed region) into a scratch buffer with
 * pitch gb_wgmma_pitch(k) and zeroed pad columns, and TMA reads that.
 * The timing then includes the copy: reports say so ("padded_k").
 */
bool gb_own_gemm_pads_k(enum gb_own_gemm kind, uint64_t k);

/* the row pitch, in elements, that TMA reads A and B with: k rounded up to 8 */
uint64_t gb_wgmma_pitch(uint64_t k);

/*
 * The scratch bytes a padded wgmma launch needs (0 when k % 8 == 0): A's
 * m rows, then B's n rows at gb_wgmma_scratch_b_offset, each of pitch
 * gb_wgmma_pitch(k) halves. B starts 256-byte aligned, as cudaMalloc's
 * base does: TMA wants 16 (cuda.h), the programming guide 128 with a
 * swizzle.
 */
uint64_t gb_wgmma_scratch_bytes(uint64_t m, uint64_t n, uint64_t k);
uint64_t gb_wgmma_scratch_b_offset(uint64_t m, uint64_t k);

/* ---- launch shape ---- */

/* The device limits a launch shape depends on (cudaDeviceGetAttribute). */
struct gb_own_gemm_device {
	int cc_major, cc_minor;
	size_t smem_per_sm;          /* cudaDevAttrMaxSharedMemoryPerMultiprocessor */
	size_t smem_per_block_optin; /* cudaDevAttrMaxSharedMemoryPerBlockOptin */
};

struct gb_own_gemm_launch {
	unsigned grid;               /* blocks, a 1-D grid of tiles_m x tiles_n */
	unsigned threads;            /* per block */
	size_t smem_bytes;           /* dynamic shared memory per block (0: static only) */
	size_t smem_static;          /* static shared memory per block */
	unsigned tile_m, tile_n, tile_k;
	unsigned tiles_m, tiles_n;   /* ceil(m / tile_m), ceil(n / tile_n) */
	unsigned stages;             /* shared-memory buffers of the k loop */
	bool vector_loads;           /* 16-byte loads along k: k a multiple of 16 bytes */
	bool edge;                   /* some tile is partial in m, n or k (predicated) */
	bool padded_k;               /* wgmma: A and B copied to a pitch of roundup(k, 8) first */
	uint64_t scratch_bytes;      /* device memory for those copies (0 if none) */
};

/*
 * The launch shape of `kind` for m x n x k on dev. Returns 0, or -1 when
 * the shape is out of range (a dimension 0, or more than 2^31 - 1 blocks)
 * or the kernel's shared memory does not fit the device.
 */
int gb_own_gemm_plan(enum gb_own_gemm kind, uint64_t m, uint64_t n, uint64_t k,
		     const struct gb_own_gemm_device *dev, struct gb_own_gemm_launch *out);

/*
 * mma's pipeline depth: GB_MMA_MAX_STAGES when two blocks of that many
 * stages fit an SM's shared memory (A100, H100: 2 x 64 KiB), else
 * GB_MMA_MIN_STAGES (sm_89's 100 KiB: 2 x 48 KiB), so two blocks of 8 warps
 * stay resident everywhere.
 */
unsigned gb_own_gemm_mma_stages(const struct gb_own_gemm_device *dev);

/* dynamic shared-memory bytes of one block with `stages` buffers (0: static only) */
size_t gb_own_gemm_smem_bytes(enum gb_own_gemm kind, unsigned stages);

/* Shared memory one block reserves beyond what it asks for (1 KiB on sm_80 and later). */
#define GB_OWN_SMEM_RESERVED 1024

/*
 * FLOP and byte floors of one GEMM: 2mnk operations, and the bytes that must
 * cross DRAM at least once: A and B read, D written (elem_in, elem_out bytes
 * per element). The byte floor over the FLOPs is the arithmetic intensity a
 * kernel can at best reach.
 */
double gb_own_gemm_min_bytes(uint64_t m, uint64_t n, uint64_t k, size_t elem_in,
			     size_t elem_out);

/* ---- index maps shared with the kernels ---- */

/*
 * Block b of the 1-D grid -> tile (tm, tn) of D: GB_OWN_GROUP tile columns
 * at a time, down all tile rows of the group before the next group, so the
 * blocks running at once share their B tiles and a band of A. A bijection
 * onto [0, tiles_m) x [0, tiles_n) for any counts (the last group may be
 * narrower).
 */
static inline GB_OWN_HD void gb_own_gemm_tile_of(unsigned b, unsigned tiles_m, unsigned tiles_n,
						 unsigned *tm, unsigned *tn)
{
	unsigned per_group = GB_OWN_GROUP * tiles_m;
	unsigned group = b / per_group;
	unsigned first_n = group * GB_OWN_GROUP;
	unsigned width = tiles_n - first_n < GB_OWN_GROUP ? tiles_n - first_n : GB_OWN_GROUP;
	unsigned in_group = b % per_group;

	*tn = first_n + in_group % width;
	*tm = in_group / width;
}

/*
 * sgemm: thread t (0..255) of a block owns outputs (i, j), i, j in 0..7, at
 * row r (along n, X) and column c (along m, Y) of the 128 x 128 block tile.
 * Warps are 4 (r) x 2 (c) of 32 x 64; lanes 4 x 8 of two 4 x 4 sub-blocks
 * 16 rows and 32 columns apart, so each float4 a warp reads from shared
 * memory is either the same for 8 lanes (broadcast) or one of 8 consecutive
 * ones (conflict-free).
 */
static inline GB_OWN_HD unsigned gb_sgemm_row(unsigned t, unsigned i)
{
	return (t / 32 / 2) * 32 + (t % 32 / 8) * 4 + (i / 4) * 16 + i % 4;
}
static inline GB_OWN_HD unsigned gb_sgemm_col(unsigned t, unsigned j)
{
	return (t / 32 % 2) * 64 + (t % 8) * 4 + (j / 4) * 32 + j % 4;
}

/*
 * mma: byte offset of 16-byte chunk `chunk` (0..3) of row `row` in a
 * shared-memory tile of 64-byte rows (32 halves of k). The chunk index is
 * XORed with bits 1-2 of the row, so the 8 rows one ldmatrix phase reads at
 * the same logical chunk fall in 8 different 16-byte bank groups.
 */
static inline GB_OWN_HD unsigned gb_mma_smem_offset(unsigned row, unsigned chunk)
{
	return row * 64u + ((chunk ^ ((row >> 1) & 3u)) << 4);
}

/*
 * Accumulator i (0..3) of lane l in an m16n8 mma.sync tile: row (along n)
 * l/4, +8 for i >= 2; column (along m) 2 (l % 4) + i % 2.
 */
static inline GB_OWN_HD unsigned gb_mma_acc_row(unsigned lane, unsigned i)
{
	return lane / 4 + 8 * (i / 2);
}
static inline GB_OWN_HD unsigned gb_mma_acc_col(unsigned lane, unsigned i)
{
	return (lane % 4) * 2 + i % 2;
}

/*
 * wgmma's index maps (tiles and stages in shared memory, TMA's swizzle, the
 * matrix descriptor, the accumulator fragment and the epilogue) are in
 * kernels/wgmma_layout.h, with an emulation of the whole data path in
 * tests/kernels/test_wgmma_layout.c.
 */

#ifdef __cplusplus
}
#endif

#endif
