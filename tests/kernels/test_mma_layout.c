/* SPDX-License-Identifier: MIT */
/*
 * test_mma_layout.c - the index maps of the `mma` kernel (kernels/mma.cu,
 * kernels/mma_layout.h) run through an emulation of the instructions they
 * feed, on the CPU, without a GPU.
 *
 * The emulator follows the kernel's schedule for every block of a grid:
 * all 256 threads copy their chunks of each k-slice into an image of the
 * block's shared memory with the kernel's loader functions (cp.async copies
 * land only when the kernel's wait_group lets them, the element-wise path
 * stores at once), the stage ring moves with the kernel's functions, every
 * warp issues ldmatrix.x4 with the kernel's per-lane row addresses and
 * routes the registers as the kernel does, mma.m16n8k16 multiplies the
 * fragments, and the epilogue stores through the kernel's output map.
 * Operands are small integers, exact in FP32, so the output must equal
 * X Y^T exactly, every element written once.
 *
 * ldmatrix, mma.m16n8k16 and cp.async are written here from the PTX ISA
 * (quoted at each), independently of the kernel's code: they are the oracle
 * the kernel's indices are checked against. Beside the product, the
 * emulator fails on an unaligned or out-of-tile ldmatrix row, a read of a
 * shared-memory slot a cp.async may still be writing (a missing wait or a
 * stage refilled too early), and a global read outside X or Y. Separate
 * tests check that the ldmatrix phases and the shared-memory stores are
 * free of bank conflicts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernels/own_gemm_math.h"
#include "kernels/mma_layout.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define WARPS (GB_MMA_THREADS / 32)
/* what unwritten shared memory holds: far from the small operands, so reading it shows */
#define SMEM_POISON 0x3fff

/* per-architecture limits (as in test_own_gemm_math.c): 4 stages fit A100, 3 fit L40S */
static const struct gb_own_gemm_device a100 = { 8, 0, 167936, 166912 };
static const struct gb_own_gemm_device l40s = { 8, 9, 102400, 101376 };

/* ---- the PTX oracle ---- */

/* element h (0 low, 1 high) of a .b32 register holding two 16-bit values */
static int16_t half_of(uint32_t reg, unsigned h)
{
	return (int16_t)(uint16_t)(reg >> (16 * h));
}

/*
 * One block's shared memory: 16-bit elements at byte offsets, and per
 * 16-byte slot the cp.async copies issued into it and not yet waited for.
 */
struct smem {
	uint16_t *h;
	unsigned char *in_flight;
	unsigned bytes;
};

/*
 * ldmatrix.sync.aligned.m8n8.x4.shared.b16, PTX ISA "Warp-level matrix load
 * instruction: ldmatrix": "Each address corresponds to the start of a matrix
 * row. Addresses addr0-addr7 correspond to the rows of the first matrix,
 * addresses addr8-addr15 correspond to the rows of the second matrix, and so
 * on" (.x4: threads 0-7, 8-15, 16-23, 24-31 give addr0-7 ... addr24-31).
 * "When reading 8x8 matrices, a group of four consecutive threads loads 16
 * bytes. The matrix addresses must be naturally aligned accordingly." "Each
 * thread in a warp loads fragments of a row, with thread 0 receiving the
 * first fragment in its register r, and so on. A group of four threads loads
 * an entire row of the matrix" (figure "ldmatrix fragment layout for one 8x8
 * Matrix with 16-bit elements": thread t holds row t/4, columns 2(t%4) and
 * 2(t%4)+1, the lower column in the low half). "When .num = .x4, elements of
 * the third and fourth matrices are loaded in the subsequent destination
 * registers."
 */
static void ldmatrix_x4(const struct smem *sm, const unsigned addr[32], uint32_t out[32][4])
{
	for (unsigned j = 0; j < 4; j++) {
		for (unsigned i = 0; i < 8; i++) {
			unsigned a = addr[8 * j + i];

			assert_int_equal(a % 16, 0);
			assert_true(a + 16 <= sm->bytes);
			/* a cp.async may still be writing this row: a race on the GPU */
			assert_int_equal(sm->in_flight[a / 16], 0);
		}
		for (unsigned t = 0; t < 32; t++) {
			unsigned a = addr[8 * j + t / 4] + 4 * (t % 4);

			out[t][j] = (uint32_t)sm->h[a / 2] | (uint32_t)sm->h[a / 2 + 1] << 16;
		}
	}
}

/*
 * The A fragment of mma.m16n8k16 .f16/.bf16 (.row), PTX ISA "Matrix
 * Fragments for mma.m16n8k16 with floating point type": four .f16x2
 * registers hold a0..a7, low to high, and
 *   row = groupID      for ai where 0 <= i < 2 || 4 <= i < 6
 *         groupID + 8  otherwise
 *   col = threadID_in_group * 2 + (i & 0x1)      for ai where i < 4
 *         threadID_in_group * 2 + (i & 0x1) + 8  for ai where i >= 4
 * with groupID = %laneid >> 2, threadID_in_group = %laneid % 4.
 */
static void mma_a_matrix(const uint32_t a[32][4], int16_t m[16][16])
{
	unsigned char seen[16][16] = { { 0 } };

	for (unsigned lane = 0; lane < 32; lane++) {
		unsigned g = lane >> 2, tig = lane % 4;

		for (unsigned i = 0; i < 8; i++) {
			unsigned row = (i < 2 || (4 <= i && i < 6)) ? g : g + 8;
			unsigned col = tig * 2 + (i & 1) + (i >= 4 ? 8 : 0);

			assert_int_equal(seen[row][col]++, 0);
			m[row][col] = half_of(a[lane][i / 2], i % 2);
		}
	}
}

/*
 * The B fragment (.col), same section: two .f16x2 registers hold b0..b3, and
 *   row = threadID_in_group * 2 + (i & 0x1)      for bi where i < 2
 *         threadID_in_group * 2 + (i & 0x1) + 8  for bi where i >= 2
 *   col = groupID
 * (row is k, col is n).
 */
static void mma_b_matrix(const uint32_t b[32][2], int16_t m[16][8])
{
	unsigned char seen[16][8] = { { 0 } };

	for (unsigned lane = 0; lane < 32; lane++) {
		unsigned g = lane >> 2, tig = lane % 4;

		for (unsigned i = 0; i < 4; i++) {
			unsigned row = tig * 2 + (i & 1) + (i >= 2 ? 8 : 0);

			assert_int_equal(seen[row][g]++, 0);
			m[row][g] = half_of(b[lane][i / 2], i % 2);
		}
	}
}

/*
 * mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 d, a, b, c
 * with d = c: D = A B + C. The C/D fragment (.f32), same section: c0..c3 and
 *   row = groupID      for ci where i < 2
 *         groupID + 8  for ci where i >= 2
 *   col = threadID_in_group * 2 + (i & 0x1)
 * The sums are of small integers, so FP32 holds them exactly in any order.
 */
static void mma_m16n8k16(float d[32][4], const uint32_t a[32][4], const uint32_t b[32][2])
{
	int16_t am[16][16], bm[16][8];

	mma_a_matrix(a, am);
	mma_b_matrix(b, bm);
	for (unsigned lane = 0; lane < 32; lane++) {
		unsigned g = lane >> 2, tig = lane % 4;

		for (unsigned i = 0; i < 4; i++) {
			unsigned row = i < 2 ? g : g + 8, col = tig * 2 + (i & 1);
			long sum = 0;

			for (unsigned kk = 0; kk < 16; kk++)
				sum += (long)am[row][kk] * bm[kk][col];
			d[lane][i] += (float)sum;
		}
	}
}

/*
 * cp.async.cg.shared.global [dst], [src], 16, src_size: PTX ISA
 * "cp.async": copies src_size bytes and fills the rest of the 16 with
 * zeros; the copy is complete only once cp.async.wait_group N returns with
 * its group among the completed ("cp.async.wait_group instruction will
 * cause executing thread to wait till only N or fewer of the most recent
 * cp.async-groups are pending and all the prior cp.async-groups committed
 * by the executing threads are complete"). Until then the bytes may land at
 * any moment: the emulator lands them as late as allowed and fails a read
 * of a slot with a copy in flight.
 */
struct copy {
	unsigned group, off;
	int16_t v[8];
};

struct copies {
	struct copy *c;
	size_t n, cap, head;
	unsigned committed, completed;
};

static void cp_async(struct smem *sm, struct copies *q, unsigned off, const int16_t v[8])
{
	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 1024;
		q->c = realloc(q->c, q->cap * sizeof(*q->c));
		assert_non_null(q->c);
	}
	q->c[q->n].group = q->committed;
	q->c[q->n].off = off;
	memcpy(q->c[q->n].v, v, sizeof(q->c[q->n].v));
	q->n++;
	sm->in_flight[off / 16]++;
}

static void cp_async_commit(struct copies *q)
{
	q->committed++;
}

static void cp_async_wait(struct smem *sm, struct copies *q, unsigned pending)
{
	while (q->committed - q->completed > pending) {
		for (; q->head < q->n && q->c[q->head].group == q->completed; q->head++) {
			const struct copy *c = &q->c[q->head];

			memcpy(&sm->h[c->off / 2], c->v, sizeof(c->v));
			sm->in_flight[c->off / 16]--;
		}
		q->completed++;
	}
}

/* ---- the kernel, emulated ---- */

/* a GEMM as the kernel sees it: O = X Y^T, X rows_x x k, Y rows_y x k, K-major */
struct problem {
	unsigned rows_x, rows_y, k;
	const int16_t *x, *y;
	struct gb_own_gemm_launch plan;  /* stages, vector path, tiles, grid */
};

/* one block's state: shared memory, copies in flight, every warp's accumulators */
struct block {
	unsigned r0, c0;
	struct smem sm;
	struct copies q;
	float acc[WARPS][GB_MMA_MI][GB_MMA_NI][32][4];
	uint32_t af[GB_MMA_MI][32][4], bf[GB_MMA_NI][32][2];  /* one warp's fragments */
};

/*
 * load_operand: one operand's slice into the tile at byte `tile` of shared
 * memory, every thread's chunks, on the vector path (cp.async, whole chunks
 * in or out: k % 8 == 0) or the element path (guarded loads, one
 * synchronous 16-byte store).
 */
static void load_operand(struct block *bl, const struct problem *p, unsigned tile,
			 const int16_t *m, unsigned rows, unsigned row0, unsigned slice)
{
	for (unsigned t = 0; t < GB_MMA_THREADS; t++)
		for (unsigned i = 0; i < GB_MMA_LOADS; i++) {
			unsigned row = gb_mma_load_row(t, i), ch = gb_mma_load_chunk(t, i);
			unsigned off = tile + gb_mma_smem_offset(row, ch);
			unsigned src = gb_mma_src_row(row0, row, rows);
			unsigned kk = gb_mma_load_k(slice, ch);
			int16_t v[8] = { 0 };

			assert_true(row < GB_MMA_TILE && src < rows);
			assert_true(off % 16 == 0 && off + 16 <= bl->sm.bytes);
			if (p->plan.vector_loads) {
				assert_int_equal(p->k % 8, 0);
				if (kk < p->k)
					memcpy(v, &m[(size_t)src * p->k + kk], sizeof(v));
				cp_async(&bl->sm, &bl->q, off, v);
				continue;
			}
			for (unsigned e = 0; e < 8; e++)
				v[e] = kk + e < p->k ? m[(size_t)src * p->k + kk + e] : 0;
			assert_int_equal(bl->sm.in_flight[off / 16], 0);
			memcpy(&bl->sm.h[off / 2], v, sizeof(v));
		}
}

static void load_slice(struct block *bl, const struct problem *p, unsigned stage, unsigned slice)
{
	load_operand(bl, p, gb_mma_stage_x(stage), p->x, p->rows_x, bl->r0, slice);
	load_operand(bl, p, gb_mma_stage_y(stage), p->y, p->rows_y, bl->c0, slice);
}

/* one warp's k16 step on the slice in `stage`: 4 + 2 ldmatrix.x4, 16 mma */
static void warp_kstep(struct block *bl, unsigned warp, unsigned stage, unsigned ks)
{
	unsigned addr[32];

	for (unsigned mi = 0; mi < GB_MMA_MI; mi++) {
		for (unsigned lane = 0; lane < 32; lane++)
			addr[lane] = gb_mma_stage_x(stage) + gb_mma_ldsm_x(warp, mi, ks, lane);
		ldmatrix_x4(&bl->sm, addr, bl->af[mi]);
	}
	for (unsigned nj = 0; nj < GB_MMA_NI / 2; nj++) {
		uint32_t r[32][4];

		for (unsigned lane = 0; lane < 32; lane++)
			addr[lane] = gb_mma_stage_y(stage) + gb_mma_ldsm_y(warp, nj, ks, lane);
		ldmatrix_x4(&bl->sm, addr, r);
		for (unsigned lane = 0; lane < 32; lane++)
			for (unsigned j = 0; j < 4; j++)
				bl->bf[gb_mma_ldsm_y_tile(nj, j)][lane][gb_mma_ldsm_y_reg(j)] =
					r[lane][j];
	}
	for (unsigned mi = 0; mi < GB_MMA_MI; mi++)
		for (unsigned ni = 0; ni < GB_MMA_NI; ni++)
			mma_m16n8k16(bl->acc[warp][mi][ni], bl->af[mi], bl->bf[ni]);
}

/* the k loop with its prologue, as in mma_kernel: one commit group per slice, empty or not */
static void k_loop(struct block *bl, const struct problem *p)
{
	const unsigned stages = p->plan.stages;
	const unsigned n_slices = (p->k + GB_MMA_BK - 1) / GB_MMA_BK;
	unsigned stage = 0;

	for (unsigned s = 0; s + 1 < stages; s++) {
		if (s < n_slices)
			load_slice(bl, p, s, s);
		cp_async_commit(&bl->q);
	}
	for (unsigned s = 0; s < n_slices; s++) {
		/* the barrier after the wait: every warp is past slice s - 1 (sequential here) */
		cp_async_wait(&bl->sm, &bl->q, GB_MMA_WAIT_PENDING(stages));
		if (s + stages - 1 < n_slices)
			load_slice(bl, p, gb_mma_stage_refill(stage, stages), s + stages - 1);
		cp_async_commit(&bl->q);
		for (unsigned warp = 0; warp < WARPS; warp++)
			for (unsigned ks = 0; ks < GB_MMA_KSTEPS; ks++)
				warp_kstep(bl, warp, stage, ks);
		stage = gb_mma_stage_next(stage, stages);
	}
	cp_async_wait(&bl->sm, &bl->q, 0);
}

/* one lane's m16n8 tile (mi, ni): pairs (0, 1) and (2, 3), stored as the kernel does */
static void store_tile(const struct block *bl, const struct problem *p, unsigned warp,
		       unsigned lane, unsigned mi, unsigned ni, float *out, unsigned char *writes)
{
	for (unsigned i = 0; i < 4; i += 2) {
		const float *v = &bl->acc[warp][mi][ni][lane][i];
		unsigned r = bl->r0 + gb_mma_out_row(warp, mi, lane, i);
		unsigned c = bl->c0 + gb_mma_out_col(warp, ni, lane, i);
		unsigned n = gb_mma_out_count(r, c, p->rows_x, p->rows_y);
		size_t o = (size_t)r * p->rows_y + c;

		/* a 4-byte pair store must be 4-byte aligned */
		if (gb_mma_pair_aligned(p->rows_y) && n == 2)
			assert_int_equal(o % 2, 0);
		for (unsigned e = 0; e < n; e++) {
			out[o + e] = v[e];
			writes[o + e]++;
		}
	}
}

/* the epilogue: O[r][c] at out[r rows_y + c]; `writes` counts stores per element */
static void epilogue(const struct block *bl, const struct problem *p, float *out,
		     unsigned char *writes)
{
	for (unsigned warp = 0; warp < WARPS; warp++)
		for (unsigned lane = 0; lane < 32; lane++)
			for (unsigned mi = 0; mi < GB_MMA_MI; mi++)
				for (unsigned ni = 0; ni < GB_MMA_NI; ni++)
					store_tile(bl, p, warp, lane, mi, ni, out, writes);
}

static void run_block(const struct problem *p, unsigned b, float *out, unsigned char *writes)
{
	struct block *bl = calloc(1, sizeof(*bl));
	unsigned bytes = p->plan.stages * GB_MMA_STAGE_BYTES;

	assert_non_null(bl);
	bl->sm.bytes = bytes;
	bl->sm.h = malloc(bytes);
	bl->sm.in_flight = calloc(bytes / 16, 1);
	assert_non_null(bl->sm.h);
	assert_non_null(bl->sm.in_flight);
	for (unsigned i = 0; i < bytes / 2; i++)
		bl->sm.h[i] = SMEM_POISON;
	gb_mma_block_origin(b, p->plan.tiles_m, p->plan.tiles_n, &bl->r0, &bl->c0);
	k_loop(bl, p);
	assert_int_equal(bl->q.head, bl->q.n);  /* every copy landed */
	epilogue(bl, p, out, writes);
	free(bl->q.c);
	free(bl->sm.in_flight);
	free(bl->sm.h);
	free(bl);
}

/* small integers in [-7, 7] from a fixed LCG: products and sums stay exact in FP32 */
static void fill(int16_t *m, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		m[i] = (int16_t)((int)(seed >> 16) % 15 - 7);
	}
}

/*
 * The GEMM D = A^T B of m x n x k as the launcher hands it to the kernel
 * (X = B, rows_x = n; Y = A, rows_y = m), planned for `dev`, emulated over
 * the whole grid: every output written once and equal to X Y^T.
 */
static void check_gemm(unsigned m, unsigned n, unsigned k, const struct gb_own_gemm_device *dev,
		       unsigned want_stages, bool want_vec)
{
	struct problem p = { .rows_x = n, .rows_y = m, .k = k };
	int16_t *x = malloc((size_t)n * k * sizeof(*x)), *y = malloc((size_t)m * k * sizeof(*y));
	float *out = malloc((size_t)n * m * sizeof(*out));
	unsigned char *writes = calloc((size_t)n * m, 1);

	assert_true(x && y && out && writes);
	assert_int_equal(gb_own_gemm_plan(GB_OWN_MMA, m, n, k, dev, &p.plan), 0);
	assert_int_equal(p.plan.stages, want_stages);
	assert_int_equal(p.plan.vector_loads, want_vec);
	/* the launcher sets the shared-memory attribute for exactly this size */
	assert_int_equal(p.plan.smem_bytes, (size_t)p.plan.stages * GB_MMA_STAGE_BYTES);
	fill(x, (size_t)n * k, 1 + m);
	fill(y, (size_t)m * k, 2 + n);
	p.x = x;
	p.y = y;
	for (size_t i = 0; i < (size_t)n * m; i++)
		out[i] = NAN;
	for (unsigned b = 0; b < p.plan.grid; b++)
		run_block(&p, b, out, writes);
	for (unsigned r = 0; r < n; r++)
		for (unsigned c = 0; c < m; c++) {
			long ref = 0;

			for (unsigned kk = 0; kk < k; kk++)
				ref += (long)x[(size_t)r * k + kk] * y[(size_t)c * k + kk];
			assert_int_equal(writes[(size_t)r * m + c], 1);
			if (out[(size_t)r * m + c] != (float)ref)
				fail_msg("O[%u][%u] = %g, X Y^T has %ld (m %u n %u k %u)", r, c,
					 (double)out[(size_t)r * m + c], ref, m, n, k);
		}
	free(writes);
	free(out);
	free(y);
	free(x);
}

/* one 128 x 128 block tile, 4 stages (A100/H100), 6 k-slices: the ring wraps */
static void test_tile_4_stages(void **state)
{
	(void)state;
	check_gemm(GB_MMA_TILE, GB_MMA_TILE, 6 * GB_MMA_BK, &a100, GB_MMA_MAX_STAGES, true);
}

/* the same with 3 stages (sm_89's shared memory), 5 k-slices */
static void test_tile_3_stages(void **state)
{
	(void)state;
	check_gemm(GB_MMA_TILE, GB_MMA_TILE, 5 * GB_MMA_BK, &l40s, GB_MMA_MIN_STAGES, true);
}

/* 2 x 3 blocks with partial tiles in m and n, k % 32 != 0 (cp.async zero-fill), m even */
static void test_edges_vector(void **state)
{
	(void)state;
	check_gemm(200, 300, 104, &a100, GB_MMA_MAX_STAGES, true);
}

/* odd m: no pair stores; the last column of a pair falls outside */
static void test_edges_odd_m(void **state)
{
	(void)state;
	check_gemm(129, 130, 72, &l40s, GB_MMA_MIN_STAGES, true);
}

/* k % 8 != 0: the element-wise path, 3 stages whatever the device */
static void test_element_path(void **state)
{
	(void)state;
	check_gemm(130, 129, 77, &a100, GB_MMA_MIN_STAGES, false);
}

/* fewer slices than the prologue fills: one slice, tiny m and n */
static void test_one_slice(void **state)
{
	(void)state;
	check_gemm(3, 5, 8, &a100, GB_MMA_MAX_STAGES, true);
	check_gemm(5, 3, 3, &a100, GB_MMA_MIN_STAGES, false);
}

/* ---- the stage ring ---- */

/* the counter is s % stages; the refill stage holds slice s - 1, never one still to read */
static void test_stage_ring(void **state)
{
	(void)state;
	for (unsigned stages = GB_MMA_MIN_STAGES; stages <= GB_MMA_MAX_STAGES; stages++) {
		unsigned stage = 0;

		for (unsigned s = 0; s < 50; s++) {
			assert_int_equal(stage, s % stages);
			assert_int_equal(gb_mma_stage_refill(stage, stages),
					 (s + stages - 1) % stages);
			stage = gb_mma_stage_next(stage, stages);
		}
	}
	/* stages fit in the planned shared memory, X before Y, no overlap */
	assert_int_equal(gb_mma_stage_y(0), GB_MMA_TILE_BYTES);
	assert_int_equal(gb_mma_stage_x(1), GB_MMA_STAGE_BYTES);
	assert_int_equal(gb_own_gemm_smem_bytes(GB_OWN_MMA, GB_MMA_MAX_STAGES),
			 gb_mma_stage_y(GB_MMA_MAX_STAGES - 1) + GB_MMA_TILE_BYTES);
}

/* ---- shared-memory banks ---- */

/*
 * 32 banks of 4 bytes. A 16-byte access per thread is served 8 threads at a
 * time (128 bytes); ldmatrix reads one 8x8 matrix (8 rows of 16 bytes) per
 * phase. A phase is conflict-free when its 8 rows cover the 32 banks once.
 * The dynamic shared memory is 128-byte aligned (__align__(128)), so banks
 * follow from the offsets.
 */
static void assert_phase_conflict_free(const unsigned off[8])
{
	uint32_t banks = 0;

	for (unsigned i = 0; i < 8; i++)
		for (unsigned w = 0; w < 4; w++) {
			uint32_t bit = 1u << ((off[i] / 4 + w) % 32);

			assert_int_equal(banks & bit, 0);
			banks |= bit;
		}
}

/* the 4 phases (8x8 matrices) of each ldmatrix.x4 of one warp's k16 step */
static void check_ldmatrix_phases(unsigned stage, unsigned warp, unsigned ks)
{
	unsigned off[8];

	for (unsigned j = 0; j < 4; j++) {
		for (unsigned mi = 0; mi < GB_MMA_MI; mi++) {
			for (unsigned i = 0; i < 8; i++)
				off[i] = gb_mma_stage_x(stage) +
					 gb_mma_ldsm_x(warp, mi, ks, 8 * j + i);
			assert_phase_conflict_free(off);
		}
		for (unsigned nj = 0; nj < GB_MMA_NI / 2; nj++) {
			for (unsigned i = 0; i < 8; i++)
				off[i] = gb_mma_stage_y(stage) +
					 gb_mma_ldsm_y(warp, nj, ks, 8 * j + i);
			assert_phase_conflict_free(off);
		}
	}
}

/* every ldmatrix.x4 the kernel issues: every stage, warp and k16 step */
static void test_ldmatrix_banks(void **state)
{
	(void)state;
	for (unsigned stage = 0; stage < GB_MMA_MAX_STAGES; stage++)
		for (unsigned warp = 0; warp < WARPS; warp++)
			for (unsigned ks = 0; ks < GB_MMA_KSTEPS; ks++)
				check_ldmatrix_phases(stage, warp, ks);
}

/* the loader's 16-byte stores (cp.async or st.shared.v4): each quarter warp, each chunk i */
static void test_store_banks(void **state)
{
	(void)state;
	for (unsigned stage = 0; stage < GB_MMA_MAX_STAGES; stage++)
		for (unsigned q = 0; q < GB_MMA_THREADS / 8; q++)
			for (unsigned i = 0; i < GB_MMA_LOADS; i++) {
				unsigned off[8];

				for (unsigned e = 0; e < 8; e++) {
					unsigned t = 8 * q + e;

					off[e] = gb_mma_stage_y(stage) +
						 gb_mma_smem_offset(gb_mma_load_row(t, i),
								    gb_mma_load_chunk(t, i));
				}
				assert_phase_conflict_free(off);
			}
}

/* the loader covers each tile exactly once */
static void test_loader_covers_tile(void **state)
{
	unsigned char seen[GB_MMA_TILE_BYTES / 16] = { 0 };

	(void)state;
	for (unsigned t = 0; t < GB_MMA_THREADS; t++)
		for (unsigned i = 0; i < GB_MMA_LOADS; i++) {
			unsigned row = gb_mma_load_row(t, i), ch = gb_mma_load_chunk(t, i);

			assert_true(row < GB_MMA_TILE && ch < GB_MMA_CHUNKS);
			assert_int_equal(seen[gb_mma_smem_offset(row, ch) / 16]++, 0);
		}
	/* clamped rows: inside the matrix, the identity inside it */
	assert_int_equal(gb_mma_src_row(128, 5, 300), 133);
	assert_int_equal(gb_mma_src_row(256, 100, 300), 299);
	assert_int_equal(gb_mma_src_row(0, 127, 1), 0);
}

/* the epilogue map covers the 128 x 128 block tile once (the emulation checks values) */
static void test_out_map_covers_tile(void **state)
{
	unsigned char *seen = calloc(GB_MMA_TILE * GB_MMA_TILE, 1);

	(void)state;
	assert_non_null(seen);
	for (unsigned warp = 0; warp < WARPS; warp++)
		for (unsigned lane = 0; lane < 32; lane++)
			for (unsigned mi = 0; mi < GB_MMA_MI; mi++)
				for (unsigned ni = 0; ni < GB_MMA_NI; ni++)
					for (unsigned i = 0; i < 4; i++) {
						unsigned r = gb_mma_out_row(warp, mi, lane, i);
						unsigned c = gb_mma_out_col(warp, ni, lane, i);

						assert_true(r < GB_MMA_TILE && c < GB_MMA_TILE);
						assert_int_equal(seen[r * GB_MMA_TILE + c]++, 0);
					}
	free(seen);
	assert_int_equal(gb_mma_out_count(5, 6, 10, 8), 2);
	assert_int_equal(gb_mma_out_count(5, 6, 10, 7), 1);
	assert_int_equal(gb_mma_out_count(5, 8, 10, 8), 0);
	assert_int_equal(gb_mma_out_count(10, 0, 10, 8), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tile_4_stages),
		cmocka_unit_test(test_tile_3_stages),
		cmocka_unit_test(test_edges_vector),
		cmocka_unit_test(test_edges_odd_m),
		cmocka_unit_test(test_element_path),
		cmocka_unit_test(test_one_slice),
		cmocka_unit_test(test_stage_ring),
		cmocka_unit_test(test_ldmatrix_banks),
		cmocka_unit_test(test_store_banks),
		cmocka_unit_test(test_loader_covers_tile),
		cmocka_unit_test(test_out_map_covers_tile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
