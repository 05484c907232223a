/* SPDX-License-Identifier: MIT */
/*
 * test_own_gemm_math.c - unit tests for kernels/own_gemm_math.c, the CPU side
 * of gpubench's own GEMM kernels: which kernel runs which precision, device
 * and shape; launch shapes (grids, tiles, shared memory within each
 * architecture's limits, mma's stage choice); and the index maps the
 * kernels share with this file: the grouped tile order, the per-thread
 * output maps of sgemm and mma.sync (each must cover its tile exactly once)
 * and mma's shared-memory swizzle (a bijection, conflict-free for ldmatrix
 * and cp.async); wgmma's padded-k arithmetic. wgmma's index maps are tested
 * in test_wgmma_layout.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/gemm/gemm_math.h"
#include "kernels/own_gemm_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* per-architecture limits, from cudaDeviceGetAttribute on each part */
static const struct gb_own_gemm_device a100 = { 8, 0, 167936, 166912 };  /* 164 / 163 KiB */
static const struct gb_own_gemm_device l40s = { 8, 9, 102400, 101376 };  /* 100 / 99 KiB */
static const struct gb_own_gemm_device h100 = { 9, 0, 233472, 232448 };  /* 228 / 227 KiB */
static const struct gb_own_gemm_device *const devices[] = { &a100, &l40s, &h100 };

/* ---- names and requirements ---- */

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(gb_own_gemm_name(GB_OWN_TILED), "tiled");
	assert_string_equal(gb_own_gemm_name(GB_OWN_SGEMM), "sgemm");
	assert_string_equal(gb_own_gemm_name(GB_OWN_MMA), "mma");
	assert_string_equal(gb_own_gemm_name(GB_OWN_WGMMA), "wgmma");
	assert_string_equal(gb_own_gemm_name(GB_OWN_COUNT), "unknown");
}

static void test_precisions(void **state)
{
	(void)state;
	for (int i = 0; i < GB_GEMM_N_PRECS; i++) {
		enum gb_precision p = gb_gemm_precs[i];
		bool fp32 = p == GB_PREC_FP32, half = p == GB_PREC_FP16 || p == GB_PREC_BF16;

		assert_int_equal(gb_own_gemm_runs_prec(GB_OWN_TILED, p), fp32);
		assert_int_equal(gb_own_gemm_runs_prec(GB_OWN_SGEMM, p), fp32);
		assert_int_equal(gb_own_gemm_runs_prec(GB_OWN_MMA, p), half);
		assert_int_equal(gb_own_gemm_runs_prec(GB_OWN_WGMMA, p), half);
	}
	/* tf32 stores fp32 but is another computation; fp16acc16 accumulates in fp16 */
	assert_false(gb_own_gemm_runs_prec(GB_OWN_SGEMM, GB_PREC_TF32));
	assert_false(gb_own_gemm_runs_prec(GB_OWN_MMA, GB_PREC_FP16_ACC16));
}

static void test_unsupported_reasons(void **state)
{
	char buf[256];
	const char *r;

	(void)state;
	assert_null(gb_own_gemm_unsupported_reason(GB_OWN_TILED, GB_PREC_FP32, 8, 0, 0, buf,
						   sizeof(buf)));
	assert_null(gb_own_gemm_unsupported_reason(GB_OWN_SGEMM, GB_PREC_FP32, 9, 0, 0, buf,
						   sizeof(buf)));
	assert_null(gb_own_gemm_unsupported_reason(GB_OWN_MMA, GB_PREC_BF16, 8, 9, 0, buf,
						   sizeof(buf)));
	assert_null(gb_own_gemm_unsupported_reason(GB_OWN_MMA, GB_PREC_FP16, 12, 0, 0, buf,
						   sizeof(buf)));
	assert_null(gb_own_gemm_unsupported_reason(GB_OWN_WGMMA, GB_PREC_BF16, 9, 0, 0, buf,
						   sizeof(buf)));

	r = gb_own_gemm_unsupported_reason(GB_OWN_SGEMM, GB_PREC_BF16, 9, 0, 0, buf, sizeof(buf));
	assert_non_null(r);
	assert_string_equal(r, "sgemm computes fp32 only, not bf16");
	r = gb_own_gemm_unsupported_reason(GB_OWN_MMA, GB_PREC_FP32, 9, 0, 0, buf, sizeof(buf));
	assert_string_equal(r, "mma computes fp16 and bf16 only, not fp32");
	/* wgmma: sm_90a machine code, so 9.0 alone; Blackwell (10.0) does not run it */
	r = gb_own_gemm_unsupported_reason(GB_OWN_WGMMA, GB_PREC_BF16, 8, 0, 1, buf, sizeof(buf));
	assert_string_equal(r, "wgmma needs compute capability 9.0 (sm_90a code runs on Hopper "
			       "only); device 1 is 8.0");
	assert_non_null(gb_own_gemm_unsupported_reason(GB_OWN_WGMMA, GB_PREC_FP16, 10, 0, 0, buf,
						       sizeof(buf)));
	/* the precision is named before the architecture */
	r = gb_own_gemm_unsupported_reason(GB_OWN_WGMMA, GB_PREC_FP8, 8, 0, 0, buf, sizeof(buf));
	assert_string_equal(r, "wgmma computes fp16 and bf16 only, not fp8");
	/* sm_75 (T4): the FP32 kernels run, mma needs sm_80's instructions */
	assert_null(gb_own_gemm_unsupported_reason(GB_OWN_TILED, GB_PREC_FP32, 7, 5, 2, buf,
						   sizeof(buf)));
	assert_null(gb_own_gemm_unsupported_reason(GB_OWN_SGEMM, GB_PREC_FP32, 7, 5, 2, buf,
						   sizeof(buf)));
	r = gb_own_gemm_unsupported_reason(GB_OWN_MMA, GB_PREC_BF16, 7, 5, 2, buf, sizeof(buf));
	assert_string_equal(r, "mma needs compute capability 8.0 (mma.sync m16n8k16 on bf16, "
			       "cp.async); device 2 is 7.5");
}

static void test_shapes(void **state)
{
	char err[256];

	(void)state;
	for (int kind = 0; kind < GB_OWN_COUNT; kind++) {
		assert_int_equal(gb_own_gemm_check_shape(kind, 4096, 4096, 4096, err, sizeof(err)),
				 0);
		assert_int_equal(gb_own_gemm_check_shape(kind, 257, 511, 136, err, sizeof(err)), 0);
		assert_int_equal(gb_own_gemm_check_shape(kind, 1, 1, 8, err, sizeof(err)), 0);
		assert_int_equal(gb_own_gemm_check_shape(kind, 0, 1, 8, err, sizeof(err)), -1);
	}
	/* any k, wgmma's too (k % 8 != 0 is copied to a padded pitch, never refused) */
	for (int kind = 0; kind < GB_OWN_COUNT; kind++) {
		assert_int_equal(gb_own_gemm_check_shape(kind, 257, 511, 129, err, sizeof(err)), 0);
		assert_int_equal(gb_own_gemm_check_shape(kind, 3, 5, 1, err, sizeof(err)), 0);
		assert_int_equal(gb_own_gemm_check_shape(kind, 1, 1, 7, err, sizeof(err)), 0);
	}
	/* wgmma: TMA coordinates are 32-bit signed */
	assert_int_equal(gb_own_gemm_check_shape(GB_OWN_WGMMA, 1ull << 31, 8, 8, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "TMA coordinates are 32-bit"));
	assert_non_null(strstr(err, "2147483648x8x8"));
	assert_int_equal(gb_own_gemm_check_shape(GB_OWN_WGMMA, 8, (1ull << 31) - 1, 8, err,
						 sizeof(err)),
			 0);
	assert_int_equal(gb_own_gemm_check_shape(GB_OWN_WGMMA, 8, 8, (1ull << 31) - 64, err,
						 sizeof(err)),
			 -1);
	assert_int_equal(gb_own_gemm_check_shape(GB_OWN_WGMMA, 8, 8, (1ull << 31) - 65, err,
						 sizeof(err)),
			 0);
	assert_int_equal(gb_own_gemm_check_shape(GB_OWN_MMA, 1ull << 31, 8, 8, err, sizeof(err)),
			 0);
}

static void test_wgmma_padded_k(void **state)
{
	struct gb_own_gemm_launch l;

	(void)state;
	/* only wgmma, only k % 8 != 0 */
	assert_true(gb_own_gemm_pads_k(GB_OWN_WGMMA, 129));
	assert_true(gb_own_gemm_pads_k(GB_OWN_WGMMA, 1));
	assert_false(gb_own_gemm_pads_k(GB_OWN_WGMMA, 136));
	assert_false(gb_own_gemm_pads_k(GB_OWN_MMA, 129));
	assert_false(gb_own_gemm_pads_k(GB_OWN_SGEMM, 1));
	/* pitch: k rounded up to 8 halves (16 bytes) */
	assert_int_equal(gb_wgmma_pitch(1), 8);
	assert_int_equal(gb_wgmma_pitch(8), 8);
	assert_int_equal(gb_wgmma_pitch(129), 136);
	assert_int_equal(gb_wgmma_pitch(8191), 8192);
	/* scratch: A's m rows, B's n rows from the next 256-byte boundary */
	assert_int_equal(gb_wgmma_scratch_b_offset(257, 129), 70144);  /* 69904 up to 256 */
	assert_int_equal(gb_wgmma_scratch_b_offset(257, 129) % 256, 0);
	assert_int_equal(gb_wgmma_scratch_bytes(257, 511, 129),
			 gb_wgmma_scratch_b_offset(257, 129) + 511 * 136 * 2);
	assert_int_equal(gb_wgmma_scratch_b_offset(128, 8191), 128 * 8192 * 2);
	assert_int_equal(gb_wgmma_scratch_bytes(257, 511, 136), 0);
	/* the plan says so, for the report */
	assert_int_equal(gb_own_gemm_plan(GB_OWN_WGMMA, 257, 511, 129, &h100, &l), 0);
	assert_true(l.padded_k);
	assert_int_equal(l.scratch_bytes, gb_wgmma_scratch_bytes(257, 511, 129));
	assert_true(l.edge);
	assert_int_equal(gb_own_gemm_plan(GB_OWN_WGMMA, 8192, 8192, 8192, &h100, &l), 0);
	assert_false(l.padded_k);
	assert_int_equal(l.scratch_bytes, 0);
	/* the other kernels read any k directly */
	assert_int_equal(gb_own_gemm_plan(GB_OWN_MMA, 257, 511, 129, &h100, &l), 0);
	assert_false(l.padded_k);
	assert_int_equal(l.scratch_bytes, 0);
}

/* ---- launch shapes ---- */

static void check_plan(enum gb_own_gemm kind, uint64_t m, uint64_t n, uint64_t k,
		       const struct gb_own_gemm_device *dev)
{
	struct gb_own_gemm_launch l;

	assert_int_equal(gb_own_gemm_plan(kind, m, n, k, dev, &l), 0);
	assert_int_equal(l.tiles_m, (m + l.tile_m - 1) / l.tile_m);
	assert_int_equal(l.tiles_n, (n + l.tile_n - 1) / l.tile_n);
	assert_int_equal(l.grid, l.tiles_m * l.tiles_n);
	/* the tiles cover D and no tile is wholly outside it */
	assert_true((uint64_t)l.tiles_m * l.tile_m >= m);
	assert_true((uint64_t)(l.tiles_m - 1) * l.tile_m < m);
	assert_true((uint64_t)l.tiles_n * l.tile_n >= n);
	assert_true((uint64_t)(l.tiles_n - 1) * l.tile_n < n);
	assert_int_equal(l.edge, m % l.tile_m || n % l.tile_n || k % l.tile_k);
	assert_true(l.threads > 0 && l.threads <= 1024 && l.threads % 32 == 0);
	/* fits the device: static + dynamic within the block limit, and a block on an SM */
	assert_true(l.smem_static <= 48 * 1024);
	assert_true(l.smem_bytes + l.smem_static <= dev->smem_per_block_optin);
	assert_true(l.smem_bytes + l.smem_static + GB_OWN_SMEM_RESERVED <= dev->smem_per_sm);
	assert_int_equal(l.smem_bytes, gb_own_gemm_smem_bytes(kind, l.stages));
	assert_int_equal(l.padded_k, gb_own_gemm_pads_k(kind, k));
	assert_int_equal(l.scratch_bytes, l.padded_k ? gb_wgmma_scratch_bytes(m, n, k) : 0);
}

static void test_plan_every_kernel(void **state)
{
	static const uint64_t shapes[][3] = {
		{ 4096, 4096, 4096 }, { 8192, 8192, 8192 }, { 257, 511, 136 }, { 1, 1, 8 },
		{ 128, 128, 32 }, { 256, 128, 64 }, { 1000, 3, 4000 }, { 262144, 256, 64 },
		{ 257, 511, 129 }, { 3, 5, 1 },
	};

	(void)state;
	for (size_t d = 0; d < ARRAY_LEN(devices); d++)
		for (size_t s = 0; s < ARRAY_LEN(shapes); s++)
			for (int kind = 0; kind < GB_OWN_COUNT; kind++) {
				if (kind == GB_OWN_WGMMA && devices[d] != &h100)
					continue;
				check_plan(kind, shapes[s][0], shapes[s][1], shapes[s][2],
					   devices[d]);
			}
}

static void test_plan_values(void **state)
{
	struct gb_own_gemm_launch l;

	(void)state;
	/* tiled: 32 x 32 threads, one output each */
	assert_int_equal(gb_own_gemm_plan(GB_OWN_TILED, 257, 511, 129, &a100, &l), 0);
	assert_int_equal(l.threads, 1024);
	assert_int_equal(l.tiles_m, 9);
	assert_int_equal(l.tiles_n, 16);
	assert_int_equal(l.smem_bytes, 0);
	assert_int_equal(l.smem_static, 8320);  /* ptxas: 8320 bytes smem */
	assert_true(l.edge);

	/* sgemm: float4 loads only when k % 4 == 0 */
	assert_int_equal(gb_own_gemm_plan(GB_OWN_SGEMM, 4096, 4096, 4096, &a100, &l), 0);
	assert_int_equal(l.grid, 32 * 32);
	assert_int_equal(l.threads, 256);
	assert_int_equal(l.smem_static, 16896);  /* ptxas: 16896 bytes smem */
	assert_true(l.vector_loads);
	assert_false(l.edge);
	assert_int_equal(gb_own_gemm_plan(GB_OWN_SGEMM, 257, 511, 129, &a100, &l), 0);
	assert_false(l.vector_loads);
	assert_true(l.edge);
	assert_int_equal(l.grid, 3 * 4);

	/* mma: 4 stages where two blocks of 64 KiB fit (A100, H100), 3 on sm_89 */
	assert_int_equal(gb_own_gemm_plan(GB_OWN_MMA, 8192, 8192, 8192, &a100, &l), 0);
	assert_int_equal(l.stages, 4);
	assert_int_equal(l.smem_bytes, 65536);
	assert_int_equal(gb_own_gemm_plan(GB_OWN_MMA, 8192, 8192, 8192, &h100, &l), 0);
	assert_int_equal(l.stages, 4);
	assert_int_equal(gb_own_gemm_plan(GB_OWN_MMA, 8192, 8192, 8192, &l40s, &l), 0);
	assert_int_equal(l.stages, 3);
	assert_int_equal(l.smem_bytes, 49152);
	assert_true(2 * (l.smem_bytes + GB_OWN_SMEM_RESERVED) <= l40s.smem_per_sm);
	/* k % 8 != 0: the element-wise path, 3 stages everywhere */
	assert_int_equal(gb_own_gemm_plan(GB_OWN_MMA, 257, 511, 129, &h100, &l), 0);
	assert_false(l.vector_loads);
	assert_int_equal(l.stages, 3);
	assert_int_equal(gb_own_gemm_plan(GB_OWN_MMA, 257, 511, 136, &h100, &l), 0);
	assert_true(l.vector_loads);
	assert_int_equal(l.stages, 4);

	/* wgmma: 256 (m) x 128 (n) tiles, 384 threads, 4 stages of 48 KiB + alignment slack */
	assert_int_equal(gb_own_gemm_plan(GB_OWN_WGMMA, 8192, 8192, 8192, &h100, &l), 0);
	assert_int_equal(l.threads, 384);
	assert_int_equal(l.tile_m, 256);
	assert_int_equal(l.tile_n, 128);
	assert_int_equal(l.tile_k, 64);
	assert_int_equal(l.grid, 32 * 64);
	assert_int_equal(l.smem_bytes, 4 * 49152 + 1024);
	assert_false(l.edge);
	assert_int_equal(gb_own_gemm_plan(GB_OWN_WGMMA, 257, 511, 136, &h100, &l), 0);
	assert_int_equal(l.tiles_m, 2);
	assert_int_equal(l.tiles_n, 4);
	assert_true(l.edge);
	/* does not fit an A100's 163 KiB; any k (k % 8 != 0: padded copies) */
	assert_int_equal(gb_own_gemm_plan(GB_OWN_WGMMA, 8192, 8192, 8192, &a100, &l), -1);
	assert_int_equal(gb_own_gemm_plan(GB_OWN_WGMMA, 8192, 8192, 8191, &h100, &l), 0);
	assert_true(l.padded_k);
	assert_true(l.edge);
	/* zero dimensions and unknown kernels */
	assert_int_equal(gb_own_gemm_plan(GB_OWN_SGEMM, 0, 8, 8, &h100, &l), -1);
	assert_int_equal(gb_own_gemm_plan(GB_OWN_COUNT, 8, 8, 8, &h100, &l), -1);
}

static void test_mma_stages(void **state)
{
	struct gb_own_gemm_device a10 = { 8, 6, 102400, 101376 };

	(void)state;
	assert_int_equal(gb_own_gemm_mma_stages(&a100), GB_MMA_MAX_STAGES);
	assert_int_equal(gb_own_gemm_mma_stages(&h100), GB_MMA_MAX_STAGES);
	assert_int_equal(gb_own_gemm_mma_stages(&l40s), GB_MMA_MIN_STAGES);
	assert_int_equal(gb_own_gemm_mma_stages(&a10), GB_MMA_MIN_STAGES);
	assert_int_equal(gb_own_gemm_smem_bytes(GB_OWN_MMA, 3), 3 * 16384);
	assert_int_equal(gb_own_gemm_smem_bytes(GB_OWN_TILED, 1), 0);
}

static void test_floors(void **state)
{
	(void)state;
	/* 8192^3 bf16: A and B read, D written once */
	assert_true(gb_own_gemm_min_bytes(8192, 8192, 8192, 2, 2) == 3.0 * 8192 * 8192 * 2);
	assert_true(gb_own_gemm_min_bytes(4096, 4096, 4096, 4, 4) == 3.0 * 4096 * 4096 * 4);
	assert_true(gb_own_gemm_min_bytes(100, 200, 300, 2, 4) ==
		    (100.0 * 300 + 200.0 * 300) * 2 + 100.0 * 200 * 4);
}

/* ---- index maps ---- */

static void test_tile_order_is_a_bijection(void **state)
{
	static const unsigned counts[][2] = {
		{ 1, 1 }, { 1, 9 }, { 9, 1 }, { 8, 8 }, { 32, 32 }, { 33, 17 }, { 5, 23 },
		{ 64, 7 },
	};

	(void)state;
	for (size_t c = 0; c < ARRAY_LEN(counts); c++) {
		unsigned tm_n = counts[c][0], tn_n = counts[c][1];
		unsigned char *seen = calloc((size_t)tm_n * tn_n, 1);

		assert_non_null(seen);
		for (unsigned b = 0; b < tm_n * tn_n; b++) {
			unsigned tm = ~0u, tn = ~0u;

			gb_own_gemm_tile_of(b, tm_n, tn_n, &tm, &tn);
			assert_true(tm < tm_n && tn < tn_n);
			assert_int_equal(seen[tm * tn_n + tn], 0);
			seen[tm * tn_n + tn] = 1;
		}
		free(seen);
	}
}

static void test_tile_order_groups(void **state)
{
	unsigned tm, tn;

	(void)state;
	/* the first GB_OWN_GROUP blocks are the group's tile columns at tile row 0 */
	for (unsigned b = 0; b < GB_OWN_GROUP; b++) {
		gb_own_gemm_tile_of(b, 32, 32, &tm, &tn);
		assert_int_equal(tm, 0);
		assert_int_equal(tn, b);
	}
	gb_own_gemm_tile_of(GB_OWN_GROUP, 32, 32, &tm, &tn);
	assert_int_equal(tm, 1);
	assert_int_equal(tn, 0);
	/* the second group starts after 8 x 32 blocks */
	gb_own_gemm_tile_of(GB_OWN_GROUP * 32, 32, 32, &tm, &tn);
	assert_int_equal(tm, 0);
	assert_int_equal(tn, GB_OWN_GROUP);
}

static void test_sgemm_thread_map(void **state)
{
	unsigned char *seen = calloc(GB_SGEMM_TILE * GB_SGEMM_TILE, 1);

	(void)state;
	assert_non_null(seen);
	for (unsigned t = 0; t < GB_SGEMM_THREADS; t++)
		for (unsigned i = 0; i < 8; i++)
			for (unsigned j = 0; j < 8; j++) {
				unsigned r = gb_sgemm_row(t, i), c = gb_sgemm_col(t, j);

				assert_true(r < GB_SGEMM_TILE && c < GB_SGEMM_TILE);
				assert_int_equal(seen[r * GB_SGEMM_TILE + c], 0);
				seen[r * GB_SGEMM_TILE + c] = 1;
			}
	free(seen);
	/* the kernel reads float4s at row(t, 0), row(t, 4), col(t, 0), col(t, 4) */
	for (unsigned t = 0; t < GB_SGEMM_THREADS; t++) {
		assert_int_equal(gb_sgemm_row(t, 0) % 4, 0);
		assert_int_equal(gb_sgemm_col(t, 0) % 4, 0);
		for (unsigned e = 0; e < 4; e++) {
			assert_int_equal(gb_sgemm_row(t, e), gb_sgemm_row(t, 0) + e);
			assert_int_equal(gb_sgemm_row(t, 4 + e), gb_sgemm_row(t, 0) + 16 + e);
			assert_int_equal(gb_sgemm_col(t, e), gb_sgemm_col(t, 0) + e);
			assert_int_equal(gb_sgemm_col(t, 4 + e), gb_sgemm_col(t, 0) + 32 + e);
		}
	}
	/* per warp: 4 distinct row float4s (broadcasts), 8 consecutive column float4s */
	for (unsigned w = 0; w < GB_SGEMM_THREADS / 32; w++) {
		unsigned rows[32], cols[32], nr = 0, nc = 0, cmin = ~0u, cmax = 0;

		for (unsigned l = 0; l < 32; l++) {
			unsigned r = gb_sgemm_row(w * 32 + l, 0), c = gb_sgemm_col(w * 32 + l, 0);
			unsigned x;

			for (x = 0; x < nr && rows[x] != r; x++)
				;
			if (x == nr)
				rows[nr++] = r;
			for (x = 0; x < nc && cols[x] != c; x++)
				;
			if (x == nc)
				cols[nc++] = c;
			cmin = c < cmin ? c : cmin;
			cmax = c > cmax ? c : cmax;
		}
		assert_int_equal(nr, 4);
		assert_int_equal(nc, 8);
		assert_int_equal(cmax - cmin, 28);
	}
}

static void test_mma_swizzle(void **state)
{
	unsigned char seen[GB_MMA_TILE * 4] = { 0 };

	(void)state;
	/* a bijection of (row, chunk) onto the tile's 16-byte slots */
	for (unsigned row = 0; row < GB_MMA_TILE; row++)
		for (unsigned ch = 0; ch < 4; ch++) {
			unsigned off = gb_mma_smem_offset(row, ch);

			assert_int_equal(off % 16, 0);
			assert_true(off / 64 == row);  /* stays in its own row */
			assert_int_equal(seen[off / 16], 0);
			seen[off / 16] = 1;
		}
	/* ldmatrix: 8 consecutive rows from a multiple of 8, one logical chunk, one phase:
	 * 8 different 16-byte bank groups (offset / 16 mod 8) */
	for (unsigned r0 = 0; r0 < GB_MMA_TILE; r0 += 8)
		for (unsigned ch = 0; ch < 4; ch++) {
			unsigned mask = 0;

			for (unsigned r = r0; r < r0 + 8; r++)
				mask |= 1u << (gb_mma_smem_offset(r, ch) / 16 % 8);
			assert_int_equal(mask, 0xff);
		}
	/* cp.async: 8 consecutive loader threads write rows 2p and 2p+1, all 4 chunks */
	for (unsigned q0 = 0; q0 < GB_MMA_TILE * 4; q0 += 8) {
		unsigned mask = 0;

		for (unsigned q = q0; q < q0 + 8; q++)
			mask |= 1u << (gb_mma_smem_offset(q / 4, q % 4) / 16 % 8);
		assert_int_equal(mask, 0xff);
	}
}

static void test_mma_fragment_map(void **state)
{
	unsigned char seen[16 * 8] = { 0 };

	(void)state;
	for (unsigned lane = 0; lane < 32; lane++)
		for (unsigned i = 0; i < 4; i++) {
			unsigned r = gb_mma_acc_row(lane, i), c = gb_mma_acc_col(lane, i);

			assert_true(r < 16 && c < 8);
			assert_int_equal(seen[r * 8 + c], 0);
			seen[r * 8 + c] = 1;
		}
	/* the kernel stores (i, i + 1) for even i as one pair: same row, adjacent columns */
	for (unsigned lane = 0; lane < 32; lane++)
		for (unsigned i = 0; i < 4; i += 2) {
			assert_int_equal(gb_mma_acc_row(lane, i), gb_mma_acc_row(lane, i + 1));
			assert_int_equal(gb_mma_acc_col(lane, i) + 1, gb_mma_acc_col(lane, i + 1));
			assert_int_equal(gb_mma_acc_col(lane, i) % 2, 0);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_precisions),
		cmocka_unit_test(test_unsupported_reasons),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_wgmma_padded_k),
		cmocka_unit_test(test_plan_every_kernel),
		cmocka_unit_test(test_plan_values),
		cmocka_unit_test(test_mma_stages),
		cmocka_unit_test(test_floors),
		cmocka_unit_test(test_tile_order_is_a_bijection),
		cmocka_unit_test(test_tile_order_groups),
		cmocka_unit_test(test_sgemm_thread_map),
		cmocka_unit_test(test_mma_swizzle),
		cmocka_unit_test(test_mma_fragment_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
