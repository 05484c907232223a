/* SPDX-License-Identifier: MIT */
/*
 * test_wgmma_layout.c - the `wgmma` kernel's data path (kernels/wgmma.cu,
 * kernels/wgmma_layout.h) emulated on the CPU, end to end, over whole grids
 * of block tiles: the producer's TMA loads into the 4-stage ring, each
 * consumer warpgroup's four wgmma.m64n256k16 per slice through the matrix
 * descriptors the kernel builds, and the epilogue's stores through the
 * accumulator map. The result must equal the reference O = X Y^T (D = A^T B
 * in gemm's layout) exactly, every output written once.
 *
 * The kernel's side (tile base, stage and consumer offsets, descriptor,
 * k16 advance, accumulator map, output index, pair stores, tile order,
 * padded pitch) calls the same functions wgmma.cu calls. The hardware's
 * side is written from the documents, independently of the kernel, in
 * kernels/wgmma_layout.h (gb_wgmma_tma_smem_addr, gb_wgmma_hw_*), where the
 * CPU executor's TMA and wgmma (tests/kexec/) use the same models:
 *
 *   TMA      box element (row, e) lands at the CUDA C++ Programming Guide's
 *            SWIZZLE_128B index relation (16-byte chunk x of 128-byte row y
 *            goes to chunk ((y + (dst / 128) % 8) % 8) ^ x;
 *            gb_wgmma_tma_smem_addr, spot-checked below); out-of-bounds
 *            elements (past the map's dims) read as zero (cuda.h,
 *            cuTensorMapEncodeTiled, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE).
 *   wgmma    operand element (row, k) is read where the PTX ISA's descriptor
 *            says ("Matrix Descriptor Format" and "Canonical Layouts" of the
 *            asynchronous warpgroup level matrix shared memory layout):
 *            fields start, LBO, SBO (<< 4), base offset, swizzle mode;
 *            K-major layout ((8,m),(T,2k)):((S T,SBO),(1,T)) in elements
 *            (T = 8 halves, S = 8, 4, 2 for 128-, 64-, 32-byte swizzle;
 *            no swizzle: ((8,m),(T,2k)):((1T,SBO),(1,LBO))), then
 *            Swizzle<B,4,3> on the byte address (bits 4.. ^= bits 7..,
 *            B = 3, 2, 1 bits): written with CuTe's bit formula, not with
 *            the TMA rule above, so the two documents are checked against
 *            each other.
 *   D        register i of thread t holds the element CUTLASS's
 *            CLayout_64xN gives (the PTX ISA figure "WGMMA .m64nNk16
 *            register fragment layout for accumulator matrix D" in CuTe
 *            form): index 128 (t%4) + (t/4)%8 + 16 (t/32) + 64 (i%2) +
 *            8 ((i/2)%2) + 512 (i/4), row index % 64, column index / 64.
 *
 * Values are small integers, so every sum is exact. A mutation of one
 * index (LBO and SBO swapped, a wrong swizzle mode, a consumer offset, the
 * accumulator map) makes this test fail; docs/kernels.md lists the ones
 * tried.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kernels/own_gemm_math.h"
#include "kernels/wgmma_layout.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* a shared-memory window larger than any dynamic base plus the kernel's area */
#define SMEM_WINDOW (256 * 1024)
/* output not written yet */
#define POISON INT64_MIN

/* ---- the hardware, from the documents ---- */

/* the shared memory of one block, and the range the kernel's dynamic area owns */
struct smem {
	uint8_t bytes[SMEM_WINDOW];
	uint32_t lo, hi;
};

static void smem_put(struct smem *sm, uint32_t addr, int16_t v)
{
	assert_true(addr % 2 == 0 && addr >= sm->lo && addr + 2 <= sm->hi);
	memcpy(&sm->bytes[addr], &v, 2);
}

static int16_t smem_get(const struct smem *sm, uint32_t addr)
{
	int16_t v;

	assert_true(addr % 2 == 0 && addr >= sm->lo && addr + 2 <= sm->hi);
	memcpy(&v, &sm->bytes[addr], 2);
	return v;
}

/* a 2-D tensor map: rows x dim0 elements, rows `pitch` elements apart */
struct tmap {
	const int16_t *g;
	uint64_t dim0, rows, pitch;
	unsigned box0, box_rows;
};

/* cp.async.bulk.tensor.2d with CU_TENSOR_MAP_SWIZZLE_128B: the box at (c0, c1) to dst */
static void tma_load(struct smem *sm, uint32_t dst, const struct tmap *m, uint64_t c0,
		     uint64_t c1)
{
	/* the guide's requirements for the 128-byte swizzle: 128-byte aligned
	 * destination, inner box dimension at most the 128-byte span */
	assert_int_equal(dst % 128, 0);
	assert_true(m->box0 * 2 <= GB_WGMMA_SWIZZLE_BYTES);
	assert_int_equal(m->pitch * 2 % 16, 0);  /* cuda.h: globalStrides multiple of 16 */
	for (unsigned r = 0; r < m->box_rows; r++)
		for (unsigned e = 0; e < m->box0; e++) {
			uint64_t row = c1 + r, col = c0 + e;
			int16_t v = row < m->rows && col < m->dim0 ? m->g[row * m->pitch + col] : 0;

			smem_put(sm, gb_wgmma_tma_smem_addr(dst, r, e), v);
		}
}

/* where wgmma reads element (row, k): kernels/wgmma_layout.h's model, which must be well formed */
static uint32_t desc_addr(uint64_t desc, unsigned row, unsigned k)
{
	int valid;
	uint32_t addr = gb_wgmma_hw_desc_addr(desc, row, k, &valid);

	assert_true(valid);
	return addr;
}

/* one warpgroup's 128 x 128 accumulators */
typedef int64_t wg_acc[128][128];

/* wgmma.mma_async.m64n256k16, A and B from shared memory, both K-major: d += A B^T */
static void wgmma_m64n256k16(const struct smem *sm, wg_acc d, uint64_t da, uint64_t db)
{
	static int16_t a[64][16], b[256][16];

	for (unsigned r = 0; r < 64; r++)
		for (unsigned k = 0; k < 16; k++)
			a[r][k] = smem_get(sm, desc_addr(da, r, k));
	for (unsigned c = 0; c < 256; c++)
		for (unsigned k = 0; k < 16; k++)
			b[c][k] = smem_get(sm, desc_addr(db, c, k));
	for (unsigned t = 0; t < 128; t++)
		for (unsigned i = 0; i < 128; i++) {
			unsigned r, c;
			int64_t s = 0;

			gb_wgmma_hw_acc(t, i, &r, &c);
			for (unsigned k = 0; k < 16; k++)
				s += (int64_t)a[r][k] * b[c][k];
			d[t][i] += s;
		}
}

/* ---- the problem ---- */

struct problem {
	unsigned m, n, k;
	uint32_t dyn;        /* where the dynamic shared memory starts */
	int16_t *a, *b;      /* gemm's layout: A k x m, B k x n, column-major (ld = k) */
	int16_t *ya, *xb;    /* what TMA reads: A's and B's rows at gb_wgmma_pitch(k) */
	uint64_t pitch;
	int64_t *out;        /* D, m x n column-major */
	unsigned char *writes;
};

/* small values, from a fixed LCG: every sum stays exact */
static int16_t small_value(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return (int16_t)((*state >> 24) % 7) - 3;
}

/*
 * The operands as the launcher hands them to TMA: A and B themselves when
 * k % 8 == 0, else copies with pitch roundup(k, 8). The pad columns get
 * garbage here, not the launcher's zeros: the maps' k bounds them, so they
 * must never be read (a read shows as a wrong sum).
 */
static int16_t *operand(const int16_t *src, unsigned rows, unsigned k, uint64_t pitch)
{
	int16_t *p = malloc(rows * pitch * sizeof(*p));

	assert_non_null(p);
	for (uint64_t i = 0; i < rows * pitch; i++)
		p[i] = 0x7FFF;
	for (unsigned r = 0; r < rows; r++)
		memcpy(p + r * pitch, src + (size_t)r * k, (size_t)k * sizeof(*p));
	return p;
}

static void problem_init(struct problem *p, unsigned m, unsigned n, unsigned k, uint32_t dyn)
{
	uint32_t seed = m * 7919u + n * 104729u + k;

	memset(p, 0, sizeof(*p));
	p->m = m;
	p->n = n;
	p->k = k;
	p->dyn = dyn;
	p->a = malloc((size_t)k * m * sizeof(*p->a));
	p->b = malloc((size_t)k * n * sizeof(*p->b));
	p->out = malloc((size_t)m * n * sizeof(*p->out));
	p->writes = calloc((size_t)m * n, 1);
	assert_true(p->a && p->b && p->out && p->writes);
	for (size_t i = 0; i < (size_t)k * m; i++)
		p->a[i] = small_value(&seed);
	for (size_t i = 0; i < (size_t)k * n; i++)
		p->b[i] = small_value(&seed);
	for (size_t i = 0; i < (size_t)m * n; i++)
		p->out[i] = POISON;
	p->pitch = gb_own_gemm_pads_k(GB_OWN_WGMMA, k) ? gb_wgmma_pitch(k) : k;
	p->ya = operand(p->a, m, k, p->pitch);
	p->xb = operand(p->b, n, k, p->pitch);
}

static void problem_free(struct problem *p)
{
	free(p->a);
	free(p->b);
	free(p->ya);
	free(p->xb);
	free(p->out);
	free(p->writes);
}

/* ---- the kernel, as wgmma.cu runs it ---- */

static void store(struct problem *p, uint64_t idx, int64_t v)
{
	assert_true(idx < (uint64_t)p->m * p->n);
	assert_int_equal(p->writes[idx], 0);
	p->writes[idx] = 1;
	p->out[idx] = v;
}

/* block b of the grid: producer, both consumers, epilogue */
static void run_block(struct problem *p, struct smem *sm, unsigned b, unsigned tiles_m,
		      unsigned tiles_n, wg_acc *d)
{
	const struct tmap map_x = { p->xb, p->k, p->n, p->pitch, GB_WGMMA_BK, GB_WGMMA_TILE_N };
	const struct tmap map_y = { p->ya, p->k, p->m, p->pitch, GB_WGMMA_BK, GB_WGMMA_TILE_M };
	const uint32_t tiles = gb_wgmma_tiles_base(p->dyn);
	const unsigned n_slices = (p->k + GB_WGMMA_BK - 1) / GB_WGMMA_BK;
	unsigned tm, tn, s = 0;

	gb_own_gemm_tile_of(b, tiles_m, tiles_n, &tm, &tn);
	const unsigned r0 = tn * GB_WGMMA_TILE_N, c0 = tm * GB_WGMMA_TILE_M;

	memset(d, 0, 2 * sizeof(wg_acc));
	for (unsigned sl = 0; sl < n_slices; sl++) {
		tma_load(sm, gb_wgmma_stage_x(tiles, s), &map_x, (uint64_t)sl * GB_WGMMA_BK, r0);
		tma_load(sm, gb_wgmma_stage_y(tiles, s), &map_y, (uint64_t)sl * GB_WGMMA_BK, c0);
		for (unsigned cw = 0; cw < 2; cw++) {
			uint32_t xs = gb_wgmma_consumer_x(gb_wgmma_stage_x(tiles, s), cw);
			uint64_t dx = gb_wgmma_desc(xs);
			uint64_t dy = gb_wgmma_desc(gb_wgmma_stage_y(tiles, s));

			for (unsigned kk = 0; kk < GB_WGMMA_KSTEPS; kk++)
				wgmma_m64n256k16(sm, d[cw], gb_wgmma_desc_k16(dx, kk),
						 gb_wgmma_desc_k16(dy, kk));
		}
		if (++s == GB_WGMMA_STAGES)
			s = 0;
	}
	for (unsigned cw = 0; cw < 2; cw++)
		for (unsigned t = 0; t < 128; t++)
			for (unsigned i = 0; i < 128; i += 2) {
				unsigned r = r0 + cw * GB_WGMMA_CONSUMER_ROWS;
				unsigned c = c0 + gb_wgmma_acc_col(t, i);
				uint64_t idx;

				r += gb_wgmma_acc_row(t, i);
				if (r >= p->n || c >= p->m)
					continue;
				idx = gb_wgmma_out_index(r, c, p->m);
				if (gb_wgmma_store_pair(c, p->m)) {
					/* one 4-byte store: D is aligned, so idx must be even */
					assert_int_equal(idx % 2, 0);
					store(p, idx, d[cw][t][i]);
					store(p, idx + 1, d[cw][t][i + 1]);
				} else {
					store(p, idx, d[cw][t][i]);
					if (c + 1 < p->m)
						store(p, idx + 1, d[cw][t][i + 1]);
				}
			}
}

/* the whole grid, then every output against the reference */
static void emulate(unsigned m, unsigned n, unsigned k, uint32_t dyn)
{
	static struct smem sm;
	static wg_acc d[2];
	struct gb_own_gemm_launch l;
	const struct gb_own_gemm_device h100 = { 9, 0, 233472, 232448 };
	struct problem p;

	problem_init(&p, m, n, k, dyn);
	assert_int_equal(gb_own_gemm_plan(GB_OWN_WGMMA, m, n, k, &h100, &l), 0);
	/* the kernel may touch only its dynamic area: what the plan asks for, from dyn */
	memset(sm.bytes, 0xA5, sizeof(sm.bytes));
	sm.lo = dyn;
	sm.hi = dyn + (uint32_t)l.smem_bytes;
	assert_true(sm.hi <= SMEM_WINDOW);
	for (unsigned b = 0; b < l.grid; b++)
		run_block(&p, &sm, b, l.tiles_m, l.tiles_n, d);
	for (unsigned c = 0; c < m; c++)
		for (unsigned r = 0; r < n; r++) {
			int64_t ref = 0;

			for (unsigned kk = 0; kk < k; kk++)
				ref += (int64_t)p.a[kk + (size_t)c * k] * p.b[kk + (size_t)r * k];
			if (p.out[c + (size_t)r * m] != ref)
				fail_msg("%ux%ux%u (dyn 0x%x): D[%u][%u] = %lld, expected %lld",
					 m, n, k, dyn, c, r, (long long)p.out[c + (size_t)r * m],
					 (long long)ref);
		}
	problem_free(&p);
}

/* ---- tests ---- */

/* the models agree with the documents' examples before they judge the kernel */
static void test_models(void **state)
{
	unsigned r, c;

	(void)state;
	/* TMA, guide's index relation: row y, chunk x -> chunk ((y + offset) % 8) ^ x */
	assert_int_equal(gb_wgmma_tma_smem_addr(1024, 0, 0), 1024);
	assert_int_equal(gb_wgmma_tma_smem_addr(1024, 1, 0), 1024 + 128 + 16);
	assert_int_equal(gb_wgmma_tma_smem_addr(1024, 3, 8 * 5 + 1), 1024 + 3 * 128 + (6 << 4) + 2);
	/* a destination one row into the pattern (offset 1) shifts it by a row */
	assert_int_equal(gb_wgmma_tma_smem_addr(1024 + 128, 0, 0), 1024 + 128 + 16);
	assert_int_equal(gb_wgmma_tma_smem_addr(1024 + 128, 7, 0), 1024 + 128 + 7 * 128);
	/* ... which is the absolute-address XOR CuTe's Swizzle<3,4,3> describes */
	for (uint32_t dst = 0; dst < 4096; dst += 128)
		for (unsigned row = 0; row < 16; row++)
			for (unsigned e = 0; e < 64; e++)
				assert_int_equal(gb_wgmma_tma_smem_addr(dst, row, e),
						 gb_wgmma_hw_swizzle(dst + row * 128 + e * 2, 3));
	/* wgmma, 128-byte swizzle, SBO 1024: row 9 is row 1 of the second group */
	assert_int_equal(desc_addr(gb_wgmma_desc(2048), 9, 0), (2048 + 1024 + 128) ^ 16);
	assert_int_equal(desc_addr(gb_wgmma_desc(2048), 0, 15), 2048 + 30);
	/* the PTX ISA figure: thread 0 holds (0,0) (0,1) (8,0) (8,1) (0,8) ... */
	gb_wgmma_hw_acc(0, 2, &r, &c);
	assert_true(r == 8 && c == 0);
	gb_wgmma_hw_acc(0, 4, &r, &c);
	assert_true(r == 0 && c == 8);
	gb_wgmma_hw_acc(37, 0, &r, &c);
	assert_true(r == 17 && c == 2);
}

/* the kernel's accumulator map is the PTX fragment, and covers the tile once */
static void test_acc_map(void **state)
{
	unsigned char *seen = calloc(64 * 256, 1);

	(void)state;
	assert_non_null(seen);
	for (unsigned t = 0; t < 128; t++)
		for (unsigned i = 0; i < 128; i++) {
			unsigned r = gb_wgmma_acc_row(t, i), c = gb_wgmma_acc_col(t, i), mr, mc;

			gb_wgmma_hw_acc(t, i, &mr, &mc);
			assert_int_equal(r, mr);
			assert_int_equal(c, mc);
			assert_int_equal(seen[r * 256 + c], 0);
			seen[r * 256 + c] = 1;
			if (i % 2 == 0) {
				assert_int_equal(gb_wgmma_acc_row(t, i + 1), r);
				assert_int_equal(gb_wgmma_acc_col(t, i + 1), c + 1);
			}
		}
	free(seen);
}

static void test_descriptor_bits(void **state)
{
	uint64_t d = gb_wgmma_desc(0x400);

	(void)state;
	assert_int_equal(d & 0x3fff, 0x400 >> 4);          /* start address >> 4 */
	assert_int_equal((d >> 16) & 0x3fff, 1);           /* LBO 16 bytes ("assumed 1") */
	assert_int_equal((d >> 32) & 0x3fff, 1024 >> 4);   /* SBO 1024 bytes */
	assert_int_equal((d >> 49) & 7, 0);                /* base offset */
	assert_int_equal(d >> 62, 1);                      /* 128-byte swizzle */
	assert_true(d == 0x4000004000010040ULL);
	/* only bits 4-17 of the address are encoded; a k16 step is +32 bytes */
	assert_true(gb_wgmma_desc_k16(gb_wgmma_desc(0x12345670u), 1) ==
		    gb_wgmma_desc(0x12345670u + 0x20));
	assert_int_equal(gb_wgmma_desc(0x40000) & 0x3fff, 0);
	/* the last tile's last k16 step stays inside the 14-bit field */
	assert_true((gb_wgmma_desc_k16(gb_wgmma_desc(232448 - 1024), GB_WGMMA_KSTEPS - 1) &
		     0x3fff) == (232448 - 1024 + 32 * (GB_WGMMA_KSTEPS - 1)) >> 4);
}

static void test_shared_memory_plan(void **state)
{
	static const uint32_t bases[] = { 0x10, 0x80, 0x400, 0x480, 0x7F0 };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bases); i++) {
		uint32_t tiles = gb_wgmma_tiles_base(bases[i]);
		uint32_t end = gb_wgmma_stage_x(tiles, GB_WGMMA_STAGES);

		assert_int_equal(tiles % GB_WGMMA_ATOM_BYTES, 0);
		assert_true(tiles >= bases[i]);
		/* the stages fit what the plan asks for, alignment slack included */
		assert_true(end - bases[i] <=
			    gb_own_gemm_smem_bytes(GB_OWN_WGMMA, GB_WGMMA_STAGES));
		for (unsigned s = 0; s < GB_WGMMA_STAGES; s++) {
			assert_int_equal(gb_wgmma_stage_x(tiles, s) % GB_WGMMA_ATOM_BYTES, 0);
			assert_int_equal(gb_wgmma_stage_y(tiles, s) % GB_WGMMA_ATOM_BYTES, 0);
			assert_int_equal(gb_wgmma_consumer_x(gb_wgmma_stage_x(tiles, s), 1) %
						 GB_WGMMA_ATOM_BYTES,
					 0);
		}
	}
}

/* one whole block tile (256 m x 128 n), no edges; 5 slices wrap the 4-stage ring */
static void test_emulate_full_tile(void **state)
{
	(void)state;
	emulate(256, 128, 5 * 64, 0x480);
}

/* four blocks with partial tiles in m, n and k; k % 8 != 0 (padded pitch); m odd */
static void test_emulate_edges_padded(void **state)
{
	(void)state;
	emulate(299, 200, 137, 0x80);
	emulate(300, 130, 72, 0x10);
}

/* tiny, and a grid wider than one group of the tile order */
static void test_emulate_tiny_and_wide(void **state)
{
	(void)state;
	emulate(1, 1, 1, 0x480);
	emulate(2, 3, 9, 0x480);
	emulate(300, 128 * 9 + 5, 16, 0x480);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_models),
		cmocka_unit_test(test_acc_map),
		cmocka_unit_test(test_descriptor_bits),
		cmocka_unit_test(test_shared_memory_plan),
		cmocka_unit_test(test_emulate_full_tile),
		cmocka_unit_test(test_emulate_edges_padded),
		cmocka_unit_test(test_emulate_tiny_and_wide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
