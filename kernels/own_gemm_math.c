/* SPDX-License-Identifier: MIT */
/*
 * own_gemm_math.c - the CPU-side arithmetic of gpubench's own GEMM kernels;
 * see own_gemm_math.h. No CUDA here: tests/kernels/test_own_gemm_math.c checks all
 * of it on any machine, and the launchers in kernels/ call it for their grids.
 */
#include "kernels/own_gemm_math.h"

#include <stdio.h>

static const char *const names[GB_OWN_COUNT] = { "tiled", "sgemm", "mma", "wgmma" };

static bool kind_valid(enum gb_own_gemm kind)
{
	return (int)kind >= 0 && kind < GB_OWN_COUNT;
}

const char *gb_own_gemm_name(enum gb_own_gemm kind)
{
	return kind_valid(kind) ? names[kind] : "unknown";
}

bool gb_own_gemm_runs_prec(enum gb_own_gemm kind, enum gb_precision p)
{
	switch (kind) {
	case GB_OWN_TILED:
	case GB_OWN_SGEMM:
		return p == GB_PREC_FP32;
	case GB_OWN_MMA:
	case GB_OWN_WGMMA:
		return p == GB_PREC_FP16 || p == GB_PREC_BF16;
	default:
		return false;
	}
}

const char *gb_own_gemm_unsupported_reason(enum gb_own_gemm kind, enum gb_precision p,
					   int cc_major, int cc_minor, int device, char *buf,
					   size_t len)
{
	const char *name = gb_own_gemm_name(kind);

	if (!kind_valid(kind)) {
		snprintf(buf, len, "unknown kernel %d", (int)kind);
		return buf;
	}
	if (!gb_own_gemm_runs_prec(kind, p)) {
		snprintf(buf, len, "%s computes %s only, not %s", name,
			 kind <= GB_OWN_SGEMM ? "fp32" : "fp16 and bf16", gb_precision_name(p));
		return buf;
	}
	if (kind == GB_OWN_WGMMA) {
		if (cc_major == 9 && cc_minor == 0)
			return NULL;
		snprintf(buf, len, "wgmma needs compute capability 9.0 (sm_90a code runs on "
			 "Hopper only); device %d is %d.%d", device, cc_major, cc_minor);
		return buf;
	}
	/* tiled and sgemm are plain FP32 code, built for every target from sm_75 */
	if (kind <= GB_OWN_SGEMM || cc_major * 10 + cc_minor >= 80)
		return NULL;
	snprintf(buf, len, "mma needs compute capability 8.0 (mma.sync m16n8k16 on bf16, "
		 "cp.async); device %d is %d.%d", device, cc_major, cc_minor);
	return buf;
}

int gb_own_gemm_check_shape(enum gb_own_gemm kind, uint64_t m, uint64_t n, uint64_t k,
			    char *err, size_t len)
{
	if (!m || !n || !k) {
		snprintf(err, len, "%s needs m, n and k of at least 1 (got %llux%llux%llu)",
			 gb_own_gemm_name(kind), (unsigned long long)m, (unsigned long long)n,
			 (unsigned long long)k);
		return -1;
	}
	/* TMA coordinates are 32-bit signed; a k-slice starts up to 64 beyond the last k */
	if (kind == GB_OWN_WGMMA &&
	    (m > INT32_MAX || n > INT32_MAX || k > (uint64_t)INT32_MAX - GB_WGMMA_BK)) {
		snprintf(err, len, "wgmma needs m and n below 2^31 and k below 2^31 - 64: TMA "
			 "coordinates are 32-bit (got %llux%llux%llu)", (unsigned long long)m,
			 (unsigned long long)n, (unsigned long long)k);
		return -1;
	}
	return 0;
}

bool gb_own_gemm_pads_k(enum gb_own_gemm kind, uint64_t k)
{
	return kind == GB_OWN_WGMMA && k % 8 != 0;
}

uint64_t gb_wgmma_pitch(uint64_t k)
{
	return (k + 7) / 8 * 8;
}

/* 256 bytes: cudaMalloc's alignment, so B's copy is aligned like a buffer of its own */
#define SCRATCH_ALIGN 256

uint64_t gb_wgmma_scratch_b_offset(uint64_t m, uint64_t k)
{
	uint64_t a_bytes = m * gb_wgmma_pitch(k) * 2;

	return (a_bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
}

uint64_t gb_wgmma_scratch_bytes(uint64_t m, uint64_t n, uint64_t k)
{
	if (!gb_own_gemm_pads_k(GB_OWN_WGMMA, k))
		return 0;
	return gb_wgmma_scratch_b_offset(m, k) + n * gb_wgmma_pitch(k) * 2;
}

size_t gb_own_gemm_smem_bytes(enum gb_own_gemm kind, unsigned stages)
{
	switch (kind) {
	case GB_OWN_MMA:
		/* X and Y tiles of 128 rows x 64 bytes per stage */
		return (size_t)stages * 2 * GB_MMA_TILE * GB_MMA_BK * 2;
	case GB_OWN_WGMMA:
		/* X (128 rows) and Y (256 rows) of 128 bytes per stage, and slack to align
		 * the tiles to 1024 bytes by hand: the dynamic base is only 16-byte aligned */
		return (size_t)stages * (GB_WGMMA_TILE_N + GB_WGMMA_TILE_M) * GB_WGMMA_BK * 2 +
		       GB_WGMMA_SMEM_ALIGN;
	case GB_OWN_TILED:
	case GB_OWN_SGEMM:
	default:
		return 0;
	}
}

static size_t smem_static(enum gb_own_gemm kind)
{
	switch (kind) {
	case GB_OWN_TILED:
		/* A tile padded to 33 columns, B tile 32 */
		return (size_t)GB_TILED_TILE * (GB_TILED_TILE + 1) * 4 +
		       (size_t)GB_TILED_TILE * GB_TILED_TILE * 4;
	case GB_OWN_SGEMM:
		/* X and Y, two buffers of 8 k-rows x (128 + pad) floats */
		return (size_t)2 * 2 * GB_SGEMM_BK * (GB_SGEMM_TILE + GB_SGEMM_PAD) * 4;
	case GB_OWN_WGMMA:
		/* a full and an empty mbarrier per stage (64 bytes), rounded up to the
		 * 128-byte alignment of the dynamic area that follows (ptxas: 128) */
		return 128;
	default:
		return 0;
	}
}

unsigned gb_own_gemm_mma_stages(const struct gb_own_gemm_device *dev)
{
	size_t two = 2 * (gb_own_gemm_smem_bytes(GB_OWN_MMA, GB_MMA_MAX_STAGES) +
			  GB_OWN_SMEM_RESERVED);

	return dev->smem_per_sm >= two ? GB_MMA_MAX_STAGES : GB_MMA_MIN_STAGES;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

int gb_own_gemm_plan(enum gb_own_gemm kind, uint64_t m, uint64_t n, uint64_t k,
		     const struct gb_own_gemm_device *dev, struct gb_own_gemm_launch *out)
{
	struct gb_own_gemm_launch l = { 0 };
	uint64_t blocks;
	size_t total;

	if (!kind_valid(kind) || !m || !n || !k)
		return -1;
	switch (kind) {
	case GB_OWN_TILED:
		l.threads = GB_TILED_TILE * GB_TILED_TILE;
		l.tile_m = l.tile_n = l.tile_k = GB_TILED_TILE;
		l.stages = 1;
		l.vector_loads = false;
		break;
	case GB_OWN_SGEMM:
		l.threads = GB_SGEMM_THREADS;
		l.tile_m = l.tile_n = GB_SGEMM_TILE;
		l.tile_k = GB_SGEMM_BK;
		l.stages = 2;
		l.vector_loads = k % 4 == 0;
		break;
	case GB_OWN_MMA:
		l.threads = GB_MMA_THREADS;
		l.tile_m = l.tile_n = GB_MMA_TILE;
		l.tile_k = GB_MMA_BK;
		l.vector_loads = k % 8 == 0;
		/* the element-wise fallback keeps the shallower pipeline: it is not about speed */
		l.stages = l.vector_loads ? gb_own_gemm_mma_stages(dev) : GB_MMA_MIN_STAGES;
		break;
	case GB_OWN_WGMMA:
		l.threads = GB_WGMMA_THREADS;
		l.tile_m = GB_WGMMA_TILE_M;
		l.tile_n = GB_WGMMA_TILE_N;
		l.tile_k = GB_WGMMA_BK;
		l.stages = GB_WGMMA_STAGES;
		l.vector_loads = true;  /* TMA, on A and B or on their padded copies */
		l.padded_k = gb_own_gemm_pads_k(kind, k);
		l.scratch_bytes = gb_wgmma_scratch_bytes(m, n, k);
		break;
	default:
		return -1;
	}
	l.smem_bytes = gb_own_gemm_smem_bytes(kind, l.stages);
	l.smem_static = smem_static(kind);
	total = l.smem_bytes + l.smem_static;
	if (total > 48 * 1024 && total > dev->smem_per_block_optin)
		return -1;
	if (l.smem_bytes && total + GB_OWN_SMEM_RESERVED > dev->smem_per_sm)
		return -1;
	l.tiles_m = (unsigned)ceil_div(m, l.tile_m);
	l.tiles_n = (unsigned)ceil_div(n, l.tile_n);
	blocks = ceil_div(m, l.tile_m) * ceil_div(n, l.tile_n);
	if (blocks > 0x7fffffffu || ceil_div(m, l.tile_m) > 0xffffffffu / GB_OWN_GROUP)
		return -1;
	l.grid = (unsigned)blocks;
	l.edge = m % l.tile_m || n % l.tile_n || k % l.tile_k;
	*out = l;
	return 0;
}

double gb_own_gemm_min_bytes(uint64_t m, uint64_t n, uint64_t k, size_t elem_in,
			     size_t elem_out)
{
	return ((double)m * (double)k + (double)n * (double)k) * (double)elem_in +
	       (double)m * (double)n * (double)elem_out;
}
