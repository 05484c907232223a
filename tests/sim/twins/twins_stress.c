/* SPDX-License-Identifier: MIT */
/*
 * twins_stress.c - CPU twins of the kernels of kernels/stress.cu: the
 * input fill, the fused verification pass, the checksum comparison, the
 * cross-GPU digest, the fault injection and the memtest write/verify.
 *
 * Each twin writes what its kernel writes, from the same GB_HD code
 * (bench/stress/stress_math.h: the generator, the memtest patterns and the digest
 * word; kernels/stress_hd.h: the flipped bit and the checksum test). The
 * GPU adds its counters with atomics in an order no one can predict; a twin
 * runs the threads one after another, so its records are the first
 * mismatches in (block column, block row, column, row) order and its sums
 * are added block after block. Within a block the sums are added in the
 * kernel's own order (the shuffle tree of each warp, then the warps in
 * turn), so a twin's checksums are bitwise those of a GPU whose blocks
 * finished in launch order.
 *
 * The kernels reduce within warps and index rows by their own block size,
 * so a twin accepts only the launch shapes the launchers make (a 1-D block
 * of whole warps; 256 threads for verify; one thread for the flip) and
 * reports any other as a launch failure naming the shape: it would be a
 * change to stress.cu that the twin must follow.
 */
#include "tests/sim/sim.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/stress/stress_math.h"
#include "kernels/stress.h"
#include "kernels/stress_hd.h"

/* stress.cu's GB_THREADS and GB_VERIFY_COLS: one verify block is 256 rows x 32 columns */
#define VERIFY_ROWS 256u
#define VERIFY_COLS 32u
#define WARP 32u

#define ARG(l, i, type) (*(type *)(l)->args[i])

/* ---- launch shapes and memory ---- */

/* A shape the twin does not model: logged, and a launch failure (the launch checks below
 * refuse it first, not sticky: gbsim_twin_checks_stress). */
static cudaError_t bad_shape(const struct gbsim_launch *l, const char *want)
{
	gbsim_log("twin of '%s' models only %s, got grid (%u,%u,%u) block (%u,%u,%u)", l->kernel,
		  want, l->grid.x, l->grid.y, l->grid.z, l->block.x, l->block.y, l->block.z);
	return cudaErrorLaunchFailure;
}

/* A 1-D grid of 1-D blocks of whole warps (the warp reductions assume full warps). */
static cudaError_t need_1d_warps(const struct gbsim_launch *l)
{
	if (l->grid.y != 1 || l->grid.z != 1 || l->block.y != 1 || l->block.z != 1 ||
	    l->block.x == 0 || l->block.x % WARP)
		return bad_shape(l, "1-D grids of 1-D blocks of whole warps");
	return cudaSuccess;
}

/* Threads in a 1-D launch: every index a non-striding kernel covers. */
static uint64_t threads_1d(const struct gbsim_launch *l)
{
	return (uint64_t)l->grid.x * l->block.x;
}

/* gbsim_check_access of n elements of `size` bytes (nothing to check when n is 0). */
static cudaError_t touch(const struct gbsim_launch *l, const void *p, uint64_t n, size_t size,
			 const char *what)
{
	if (!n)
		return cudaSuccess;
	if (n > SIZE_MAX / size) {
		gbsim_log("%s: %s spans %llu elements of %zu bytes, beyond any allocation",
			  l->kernel, what, (unsigned long long)n, size);
		return cudaErrorIllegalAddress;
	}
	return gbsim_check_access(l->device, p, (size_t)(n * size), what);
}

static void set_cost(struct gbsim_cost *cost, double flops, double bytes)
{
	cost->flops = flops;
	cost->prec = GBSIM_FP64;
	cost->bytes = bytes;
	cost->fixed_s = 0;
}

static unsigned long long bits_of_double(double x)
{
	unsigned long long u;

	memcpy(&u, &x, sizeof(u));
	return u;
}

/* ---- fill: p[i] = gb_from_double<T>(gb_stress_value(...)) (dtype.cuh's conversions) ---- */

static void store_f64(void *p, uint64_t i, double v)
{
	((double *)p)[i] = v;
}

/* __double2float_rn: the C conversion rounds to nearest even too */
static void store_f32(void *p, uint64_t i, double v)
{
	((float *)p)[i] = (float)v;
}

/* the 16- and 8-bit types go through float, as gb_from_double<T> does */
static void store_f16(void *p, uint64_t i, double v)
{
	((uint16_t *)p)[i] = gbsim_f16_from_float((float)v);
}

static void store_bf16(void *p, uint64_t i, double v)
{
	((uint16_t *)p)[i] = gbsim_bf16_from_float((float)v);
}

static void store_e4m3(void *p, uint64_t i, double v)
{
	((uint8_t *)p)[i] = gbsim_e4m3_from_float((float)v);
}

typedef void store_fn(void *p, uint64_t i, double v);

/* fill_kernel<T>(T *p, size_t n, uint64_t key, int sig_bits, int64_t r): grid-stride, any grid */
static cudaError_t fill_as(const struct gbsim_launch *l, struct gbsim_cost *cost, size_t size,
			   store_fn *store)
{
	void *p = ARG(l, 0, void *);
	uint64_t n = ARG(l, 1, uint64_t), key = ARG(l, 2, uint64_t);
	int sig_bits = ARG(l, 3, int);
	int64_t r = ARG(l, 4, int64_t);
	cudaError_t e = touch(l, p, n, size, "fill_kernel p");

	if (e != cudaSuccess)
		return e;
	for (uint64_t i = 0; i < n; i++)
		store(p, i, gb_stress_value(key, i, sig_bits, r));
	set_cost(cost, 0, (double)n * (double)size);
	return cudaSuccess;
}

static cudaError_t fill_f64(const struct gbsim_launch *l, struct gbsim_cost *c)
{
	return fill_as(l, c, 8, store_f64);
}

static cudaError_t fill_f32(const struct gbsim_launch *l, struct gbsim_cost *c)
{
	return fill_as(l, c, 4, store_f32);
}

static cudaError_t fill_f16(const struct gbsim_launch *l, struct gbsim_cost *c)
{
	return fill_as(l, c, 2, store_f16);
}

static cudaError_t fill_bf16(const struct gbsim_launch *l, struct gbsim_cost *c)
{
	return fill_as(l, c, 2, store_bf16);
}

static cudaError_t fill_e4m3(const struct gbsim_launch *l, struct gbsim_cost *c)
{
	return fill_as(l, c, 1, store_e4m3);
}

/* ---- the fused verification pass ---- */

/* Element k of an F32 or F64 slot: its value widened to double, and its bits (bits_of). */
static double load_elem(const void *p, uint64_t k, bool f64, unsigned long long *bits)
{
	if (f64) {
		double d = ((const double *)p)[k];

		*bits = bits_of_double(d);
		return d;
	} else {
		float f = ((const float *)p)[k];
		uint32_t u;

		memcpy(&u, &f, sizeof(u));
		*bits = u;
		return f;
	}
}

/* warp_sum's shuffle butterfly as lane 0 ends it: lane l adds lane l + o, o = 16, 8, .., 1 */
static double warp_tree_sum(double x[WARP])
{
	for (unsigned o = WARP / 2; o > 0; o /= 2)
		for (unsigned lane = 0; lane < o; lane++)
			x[lane] += x[lane + o];
	return x[0];
}

/* What one verify launch found, merged into the caller's gb_stress_verify at the end. */
struct verify_found {
	unsigned long long diffs, nonfinite;
	unsigned n_rec; /* records kept, the first GB_STRESS_MAX_RECORDS */
	struct gb_stress_elem_rec rec[GB_STRESS_MAX_RECORDS];
};

struct verify_args {
	const void *c, *ref;
	bool f64;
	uint64_t m, n;
	uint32_t slot;
	double *col, *row;
};

/* Row i, column j (0 outside the matrix): count, compare and record, as one thread does. */
static double verify_elem(const struct verify_args *a, uint64_t i, uint64_t j,
			  struct verify_found *f, bool *any)
{
	uint64_t k = i + j * a->m;
	unsigned long long got, want;
	double x;

	if (i >= a->m || j >= a->n)
		return 0;
	*any = true;
	x = load_elem(a->c, k, a->f64, &got);
	f->nonfinite += !isfinite(x);
	if (!a->ref)
		return x;
	load_elem(a->ref, k, a->f64, &want);
	if (want != got && f->diffs++ < GB_STRESS_MAX_RECORDS)
		f->rec[f->n_rec++] = (struct gb_stress_elem_rec){a->slot, (uint32_t)i, (uint32_t)j,
								  0, want, got};
	return x;
}

/*
 * verify_elem for the 32 rows i .. i + 31 of column j, all inside the matrix:
 * the same counts and records, with the branches out of the loop (stress
 * verifies every GEMM it runs, so this is most of the simulator's stress time).
 */
static void verify_warp_inside(const struct verify_args *a, uint64_t i, uint64_t j,
			       struct verify_found *f, double x[WARP])
{
	uint64_t k = i + j * a->m;
	size_t size = a->f64 ? 8 : 4;
	const unsigned char *c = (const unsigned char *)a->c + k * size;
	unsigned long long nonfinite = 0;

	if (a->f64) {
		memcpy(x, c, WARP * sizeof(double));
	} else {
		float v[WARP];

		memcpy(v, c, sizeof(v));
		for (unsigned lane = 0; lane < WARP; lane++)
			x[lane] = v[lane];
	}
	for (unsigned lane = 0; lane < WARP; lane++)
		nonfinite += !isfinite(x[lane]);
	f->nonfinite += nonfinite;
	/* equal bytes are equal bits: only a warp that differs is walked element by element */
	if (!a->ref || !memcmp(c, (const unsigned char *)a->ref + k * size, WARP * size))
		return;
	for (unsigned lane = 0; lane < WARP; lane++) {
		unsigned long long got, want;

		load_elem(a->c, k + lane, a->f64, &got);
		load_elem(a->ref, k + lane, a->f64, &want);
		if (want != got && f->diffs++ < GB_STRESS_MAX_RECORDS)
			f->rec[f->n_rec++] = (struct gb_stress_elem_rec){
				a->slot, (uint32_t)(i + lane), (uint32_t)j, 0, want, got};
	}
}

/*
 * Block (bx, by): thread t owns row i = bx 256 + t and walks the block's 32
 * columns; column sums are each warp's shuffle tree, then the 8 warps in
 * order, added once per block; row sums are each thread's running sum over
 * its 32 columns, added when the thread saw any element.
 */
static void verify_block(const struct verify_args *a, uint64_t bx, uint64_t by,
			 struct verify_found *f)
{
	double part[VERIFY_COLS][VERIFY_ROWS / WARP], racc[VERIFY_ROWS] = {0};
	bool any[VERIFY_ROWS] = {false};
	uint64_t i0 = bx * VERIFY_ROWS, j0 = by * VERIFY_COLS;

	for (unsigned cj = 0; cj < VERIFY_COLS; cj++)
		for (unsigned w = 0; w < VERIFY_ROWS / WARP; w++) {
			double lane_x[WARP];
			uint64_t first = i0 + w * WARP;

			if (first + WARP <= a->m && j0 + cj < a->n) {
				verify_warp_inside(a, first, j0 + cj, f, lane_x);
				for (unsigned lane = 0; lane < WARP; lane++) {
					any[w * WARP + lane] = true;
					racc[w * WARP + lane] += lane_x[lane];
				}
				part[cj][w] = warp_tree_sum(lane_x);
				continue;
			}
			for (unsigned lane = 0; lane < WARP; lane++) {
				unsigned t = w * WARP + lane;

				lane_x[lane] = verify_elem(a, i0 + t, j0 + cj, f, &any[t]);
				racc[t] += lane_x[lane];
			}
			part[cj][w] = warp_tree_sum(lane_x);
		}
	if (a->col)
		for (unsigned cj = 0; cj < VERIFY_COLS && j0 + cj < a->n; cj++) {
			double s = 0;

			for (unsigned w = 0; w < VERIFY_ROWS / WARP; w++)
				s += part[cj][w];
			a->col[j0 + cj] += s;
		}
	if (a->row)
		for (unsigned t = 0; t < VERIFY_ROWS; t++)
			if (any[t])
				a->row[i0 + t] += racc[t];
}

/* Add a launch's findings to *v (only touched when there is something to add, as the GPU does). */
static cudaError_t verify_merge(const struct gbsim_launch *l, struct gb_stress_verify *v,
				const struct verify_found *f)
{
	cudaError_t e;

	if (!f->diffs && !f->nonfinite)
		return cudaSuccess;
	e = touch(l, v, 1, sizeof(*v), "verify_kernel v");
	if (e != cudaSuccess)
		return e;
	gbsim_mem_wrote(v, sizeof(*v));
	v->repeat_diffs += f->diffs;
	v->nonfinite += f->nonfinite;
	/* record_elem: claim a record only while the count is below the limit */
	for (unsigned r = 0; r < f->n_rec && v->n_elem < GB_STRESS_MAX_RECORDS; r++)
		v->elem[v->n_elem++] = f->rec[r];
	return cudaSuccess;
}

/*
 * Verification answers, per GPU: stress verifies every GEMM it runs, the same
 * product thousands of times a simulated second, and simulated time gives it
 * all the GEMMs the GPU would run, however slow the CPU. An answer is a pure
 * function of what the launch reads, named by gbsim_mem_digest (a deferred
 * cuBLASLt result is named without being written), so it is kept: the counts,
 * the records (their slot is the launch's), and the column and row sums as
 * they stand after adding to zeroed arrays. A launch whose arrays are not all
 * zero computes, so a replay gives the bits a computation would.
 */
#define VERIFY_MEMO 8

struct verify_key {
	uint64_t c[2], ref[2];
	bool has_ref, f64, col, row;
	uint64_t m, n, grid_x, grid_y;
};

struct verify_memo {
	struct verify_key key;
	bool used;
	uint64_t last;                 /* memo clock of its last use */
	struct verify_found f;
	double *col, *row;             /* n and m sums, or NULL */
};

static pthread_mutex_t verify_memo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct verify_memo verify_memo[GBSIM_MAX_GPUS][VERIFY_MEMO];
static uint64_t verify_memo_clock;

/* The launch's key; false when a range it reads has no name (not device memory). */
static bool verify_key_of(const struct gbsim_launch *l, const struct verify_args *a,
			  uint64_t span, size_t size, struct verify_key *k)
{
	memset(k, 0, sizeof(*k));
	k->has_ref = a->ref != NULL;
	k->f64 = a->f64;
	k->col = a->col != NULL;
	k->row = a->row != NULL;
	k->m = a->m;
	k->n = a->n;
	k->grid_x = l->grid.x;
	k->grid_y = l->grid.y;
	if (!span || !gbsim_mem_digest(a->c, span * size, k->c))
		return false;
	return !a->ref || gbsim_mem_digest(a->ref, span * size, k->ref);
}

static bool all_zero(const double *x, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (x[i] != 0 || signbit(x[i]))
			return false;
	return true;
}

/* Replay a kept answer into the launch's arrays; false if there is none to replay. */
static bool verify_replay(const struct gbsim_launch *l, const struct verify_args *a,
			  const struct verify_key *k, struct verify_found *f)
{
	bool hit = false;

	if ((a->col && !all_zero(a->col, a->n)) || (a->row && !all_zero(a->row, a->m)))
		return false;
	pthread_mutex_lock(&verify_memo_lock);
	for (int i = 0; i < VERIFY_MEMO && !hit; i++) {
		struct verify_memo *e = &verify_memo[l->device][i];

		if (!e->used || memcmp(&e->key, k, sizeof(*k)))
			continue;
		*f = e->f;
		for (unsigned r = 0; r < f->n_rec; r++)
			f->rec[r].slot = a->slot;
		if (a->col)
			memcpy(a->col, e->col, a->n * sizeof(double));
		if (a->row)
			memcpy(a->row, e->row, a->m * sizeof(double));
		e->last = ++verify_memo_clock;
		hit = true;
	}
	pthread_mutex_unlock(&verify_memo_lock);
	return hit;
}

/* Keep an answer computed from zeroed arrays (the least recently used goes). */
static void verify_keep(const struct gbsim_launch *l, const struct verify_args *a,
			const struct verify_key *k, const struct verify_found *f)
{
	struct verify_memo *slot = NULL;

	pthread_mutex_lock(&verify_memo_lock);
	for (int i = 0; i < VERIFY_MEMO; i++) {
		struct verify_memo *e = &verify_memo[l->device][i];

		if (!slot || !e->used || (slot->used && e->last < slot->last))
			slot = e;
	}
	free(slot->col);
	free(slot->row);
	memset(slot, 0, sizeof(*slot));
	slot->col = a->col ? malloc(a->n * sizeof(double)) : NULL;
	slot->row = a->row ? malloc(a->m * sizeof(double)) : NULL;
	if ((!a->col || slot->col) && (!a->row || slot->row)) {
		if (a->col)
			memcpy(slot->col, a->col, a->n * sizeof(double));
		if (a->row)
			memcpy(slot->row, a->row, a->m * sizeof(double));
		slot->key = *k;
		slot->f = *f;
		slot->used = true;
		slot->last = ++verify_memo_clock;
	}
	pthread_mutex_unlock(&verify_memo_lock);
}

/* Compute the answer: every block, after the deferred writes of what it reads land. */
static void verify_compute(const struct gbsim_launch *l, const struct verify_args *a,
			   uint64_t span, size_t size, struct verify_found *f)
{
	gbsim_mem_flush(a->c, span * size);
	if (a->ref)
		gbsim_mem_flush(a->ref, span * size);
	for (uint64_t by = 0; by < l->grid.y; by++)
		for (uint64_t bx = 0; bx < l->grid.x; bx++)
			verify_block(a, bx, by, f);
}

/*
 * verify_kernel<T>(const T *c, const T *ref, uint64_t m, uint64_t n,
 * uint32_t slot, double *col, double *row, gb_stress_verify *v): rows are
 * indexed by the 256-thread block, so the grid decides what is covered.
 * Declared writes: col, row and v.
 */
static cudaError_t verify_as(const struct gbsim_launch *l, struct gbsim_cost *cost, bool f64)
{
	struct verify_args a = {
		.c = ARG(l, 0, const void *), .ref = ARG(l, 1, const void *), .f64 = f64,
		.m = ARG(l, 2, uint64_t), .n = ARG(l, 3, uint64_t), .slot = ARG(l, 4, uint32_t),
		.col = ARG(l, 5, double *), .row = ARG(l, 6, double *),
	};
	struct gb_stress_verify *v = ARG(l, 7, struct gb_stress_verify *);
	size_t size = f64 ? 8 : 4;
	uint64_t rows, cols, span;
	struct verify_found f = {0};
	struct verify_key key;
	bool named, fresh;
	cudaError_t e;

	if (l->block.x != VERIFY_ROWS || l->block.y != 1 || l->block.z != 1 || l->grid.z != 1)
		return bad_shape(l, "256-thread 1-D blocks in a 2-D grid");
	rows = (uint64_t)l->grid.x * VERIFY_ROWS;
	cols = (uint64_t)l->grid.y * VERIFY_COLS;
	rows = rows < a.m ? rows : a.m;
	cols = cols < a.n ? cols : a.n;
	/* the elements read lie in [0, (cols - 1) m + rows) */
	span = rows && cols ? (cols - 1) * a.m + rows : 0;
	if ((e = touch(l, a.c, span, size, "verify_kernel c")) != cudaSuccess ||
	    (a.ref && (e = touch(l, a.ref, span, size, "verify_kernel ref")) != cudaSuccess) ||
	    (a.col && (e = touch(l, a.col, cols, 8, "verify_kernel col")) != cudaSuccess) ||
	    (a.row && (e = touch(l, a.row, rows, 8, "verify_kernel row")) != cudaSuccess))
		return e;
	named = verify_key_of(l, &a, span, size, &key);
	if (!named || !verify_replay(l, &a, &key, &f)) {
		fresh = (!a.col || all_zero(a.col, a.n)) && (!a.row || all_zero(a.row, a.m));
		verify_compute(l, &a, span, size, &f);
		if (named && fresh)
			verify_keep(l, &a, &key, &f);
	}
	if (a.col)
		gbsim_mem_wrote(a.col, a.n * sizeof(double));
	if (a.row)
		gbsim_mem_wrote(a.row, a.m * sizeof(double));
	set_cost(cost, a.col ? 2.0 * (double)span : 0,
		 (double)span * (double)size * (a.ref ? 2 : 1) +
			 (a.col ? 16.0 * (double)(a.m + a.n) : 0));
	return verify_merge(l, v, &f);
}

static cudaError_t verify_f64(const struct gbsim_launch *l, struct gbsim_cost *c)
{
	return verify_as(l, c, true);
}

static cudaError_t verify_f32(const struct gbsim_launch *l, struct gbsim_cost *c)
{
	return verify_as(l, c, false);
}

/* ---- checksum comparison ---- */

/*
 * check_sums_kernel(col, row, col_exp, col_bound, row_exp, row_bound, m, n,
 * slot, v): thread idx < n checks column idx, n <= idx < n + m row idx - n;
 * one thread per sum, so the grid decides what is checked.
 */
static cudaError_t check_sums(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	const double *col = ARG(l, 0, const double *), *row = ARG(l, 1, const double *);
	const double *col_exp = ARG(l, 2, const double *), *col_bound = ARG(l, 3, const double *);
	const double *row_exp = ARG(l, 4, const double *), *row_bound = ARG(l, 5, const double *);
	uint64_t m = ARG(l, 6, uint64_t), n = ARG(l, 7, uint64_t);
	uint32_t slot = ARG(l, 8, uint32_t);
	struct gb_stress_verify *v = ARG(l, 9, struct gb_stress_verify *);
	uint64_t total, ncol, nrow, bad = 0;
	struct gb_stress_sum_rec rec[GB_STRESS_MAX_RECORDS];
	double max_ratio = 0;
	cudaError_t e;

	if ((e = need_1d_warps(l)) != cudaSuccess)
		return e;
	total = threads_1d(l);
	total = total < n + m ? total : n + m;
	ncol = total < n ? total : n;
	nrow = total - ncol;
	if ((e = touch(l, col, ncol, 8, "check_sums_kernel col")) != cudaSuccess ||
	    (e = touch(l, col_exp, ncol, 8, "check_sums_kernel col_exp")) != cudaSuccess ||
	    (e = touch(l, col_bound, ncol, 8, "check_sums_kernel col_bound")) != cudaSuccess ||
	    (e = touch(l, row, nrow, 8, "check_sums_kernel row")) != cudaSuccess ||
	    (e = touch(l, row_exp, nrow, 8, "check_sums_kernel row_exp")) != cudaSuccess ||
	    (e = touch(l, row_bound, nrow, 8, "check_sums_kernel row_bound")) != cudaSuccess)
		return e;
	for (uint64_t idx = 0; idx < total; idx++) {
		bool is_row = idx >= n;
		uint64_t k = is_row ? idx - n : idx;
		double obs = is_row ? row[k] : col[k];
		double expected = is_row ? row_exp[k] : col_exp[k];
		double bound = is_row ? row_bound[k] : col_bound[k];
		double ratio;

		bool fails = gb_stress_sum_fails(obs, expected, bound, &ratio);

		if (fails && bad++ < GB_STRESS_MAX_RECORDS)
			rec[bad - 1] = (struct gb_stress_sum_rec){slot, (uint32_t)k, is_row, 0, obs,
								  expected, bound};
		/* warp_max's fmax, then atomicMax on the bits of a non-negative double */
		max_ratio = fmax(max_ratio, ratio);
	}
	set_cost(cost, 3.0 * (double)total, 24.0 * (double)total);
	if (!bad && !(max_ratio > 0))
		return cudaSuccess;
	if ((e = touch(l, v, 1, sizeof(*v), "check_sums_kernel v")) != cudaSuccess)
		return e;
	gbsim_mem_wrote(v, sizeof(*v));
	v->sum_mismatches += bad;
	/* claim a record only while the count is below the limit */
	for (uint64_t r = 0; r < bad && r < GB_STRESS_MAX_RECORDS; r++)
		if (v->n_sum < GB_STRESS_MAX_RECORDS)
			v->sum[v->n_sum++] = rec[r];
	if (max_ratio > 0 && bits_of_double(max_ratio) > v->max_ratio_bits)
		v->max_ratio_bits = bits_of_double(max_ratio);
	return cudaSuccess;
}

/* ---- digest ---- */

/* Digests of whole slots, per GPU, by the slot's content name (as the verification answers). */
#define DIGEST_MEMO 8

struct digest_memo {
	uint64_t name[2], n, d, last;
	bool used;
};

static pthread_mutex_t digest_memo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct digest_memo digest_memo[GBSIM_MAX_GPUS][DIGEST_MEMO];
static uint64_t digest_memo_clock;

/* The XOR of gb_stress_digest_word over p[0 .. n), or what it was for the same bytes. */
static uint64_t digest_of(int device, const uint32_t *p, uint64_t n)
{
	struct digest_memo *e, *victim = NULL;
	uint64_t name[2], d = 0;
	bool named = n && gbsim_mem_digest(p, n * 4, name);

	pthread_mutex_lock(&digest_memo_lock);
	for (int i = 0; named && i < DIGEST_MEMO; i++) {
		e = &digest_memo[device][i];
		if (e->used && e->n == n && e->name[0] == name[0] && e->name[1] == name[1]) {
			e->last = ++digest_memo_clock;
			d = e->d;
			pthread_mutex_unlock(&digest_memo_lock);
			return d;
		}
		if (!victim || !e->used || (victim->used && e->last < victim->last))
			victim = e;
	}
	pthread_mutex_unlock(&digest_memo_lock);
	gbsim_mem_flush(p, n * 4);
	for (uint64_t i = 0; i < n; i++)
		d ^= gb_stress_digest_word(p[i], i);
	if (named) {
		pthread_mutex_lock(&digest_memo_lock);
		*victim = (struct digest_memo){ { name[0], name[1] }, n, d, ++digest_memo_clock,
						true };
		pthread_mutex_unlock(&digest_memo_lock);
	}
	return d;
}

/*
 * digest_kernel(const uint32_t *p, size_t n, unsigned long long *digest):
 * XOR of gb_stress_digest_word(p[i], i) into *digest. The GPU XORs each
 * warp's share only when it is not 0; the twin writes whenever n > 0 (all
 * shares 0 at once is a 2^-64 event per warp).
 */
static cudaError_t digest(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	const uint32_t *p = ARG(l, 0, const uint32_t *);
	uint64_t n = ARG(l, 1, uint64_t);
	unsigned long long *out = ARG(l, 2, unsigned long long *), d = 0;
	cudaError_t e;

	if ((e = need_1d_warps(l)) != cudaSuccess)
		return e;
	if ((e = touch(l, p, n, 4, "digest_kernel p")) != cudaSuccess)
		return e;
	d = digest_of(l->device, p, n);
	set_cost(cost, 0, 4.0 * (double)n);
	if (!n)
		return cudaSuccess;
	if ((e = touch(l, out, 1, sizeof(*out), "digest_kernel digest")) != cudaSuccess)
		return e;
	*out ^= d;
	gbsim_mem_wrote(out, sizeof(*out));
	return cudaSuccess;
}

/* ---- fault injection ---- */

/* flip_kernel(void *c, int is_f64, uint64_t index, unsigned long long *out): one thread */
static cudaError_t flip(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	void *c = ARG(l, 0, void *);
	int is_f64 = ARG(l, 1, int);
	uint64_t index = ARG(l, 2, uint64_t);
	unsigned long long *out = ARG(l, 3, unsigned long long *);
	size_t size = is_f64 ? 8 : 4;
	cudaError_t e;

	if ((uint64_t)l->grid.x * l->grid.y * l->grid.z * l->block.x * l->block.y * l->block.z != 1)
		return bad_shape(l, "one thread");
	if (index > (SIZE_MAX - size) / size) {
		gbsim_log("%s: element %llu is beyond any allocation", l->kernel,
			  (unsigned long long)index);
		return cudaErrorIllegalAddress;
	}
	if ((e = touch(l, (char *)c + index * size, 1, size, "flip_kernel c")) != cudaSuccess ||
	    (e = touch(l, out, 2, sizeof(*out), "flip_kernel out")) != cudaSuccess)
		return e;
	if (is_f64) {
		unsigned long long *p = (unsigned long long *)c + index, b = *p;

		out[0] = b;
		*p = b = gb_stress_flipped64(b);
		out[1] = b;
	} else {
		uint32_t *p = (uint32_t *)c + index, b = *p;

		out[0] = b;
		*p = b = gb_stress_flipped32(b);
		out[1] = b;
	}
	set_cost(cost, 0, 2.0 * (double)size + 16);
	return cudaSuccess;
}

/* ---- memtest ---- */

/* memtest_write_kernel(uint32_t *p, size_t n, int kind, uint32_t param, uint64_t seed) */
static cudaError_t memtest_write(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	uint32_t *p = ARG(l, 0, uint32_t *);
	uint64_t n = ARG(l, 1, uint64_t), seed = ARG(l, 4, uint64_t);
	int kind = ARG(l, 2, int);
	uint32_t param = ARG(l, 3, uint32_t);
	cudaError_t e = touch(l, p, n, 4, "memtest_write_kernel p");

	if (e != cudaSuccess)
		return e;
	for (uint64_t i = 0; i < n; i++)
		p[i] = gb_memtest_word(kind, param, seed, i);
	set_cost(cost, 0, 4.0 * (double)n);
	return cudaSuccess;
}

/*
 * memtest_verify_kernel(uint32_t *p, size_t n, int kind, uint32_t param,
 * uint64_t seed, int rewrite, gb_memtest_report *r): count and record the
 * words that differ from the pattern; with rewrite, each word then gets the
 * pattern's complement.
 */
static cudaError_t memtest_verify(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	uint32_t *p = ARG(l, 0, uint32_t *);
	uint64_t n = ARG(l, 1, uint64_t), seed = ARG(l, 4, uint64_t);
	int kind = ARG(l, 2, int), rewrite = ARG(l, 5, int);
	uint32_t param = ARG(l, 3, uint32_t);
	struct gb_memtest_report *r = ARG(l, 6, struct gb_memtest_report *);
	struct gb_memtest_rec rec[GB_STRESS_MAX_RECORDS];
	unsigned long long bad = 0;
	cudaError_t e;

	if ((e = need_1d_warps(l)) != cudaSuccess ||
	    (e = touch(l, p, n, 4, "memtest_verify_kernel p")) != cudaSuccess)
		return e;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t want = gb_memtest_word(kind, param, seed, i), got = p[i];

		if (got != want && bad++ < GB_STRESS_MAX_RECORDS)
			rec[bad - 1] = (struct gb_memtest_rec){i, want, got};
		if (rewrite)
			p[i] = ~want;
	}
	set_cost(cost, 0, 4.0 * (double)n * (rewrite ? 2 : 1));
	if (!bad)
		return cudaSuccess;
	if ((e = touch(l, r, 1, sizeof(*r), "memtest_verify_kernel r")) != cudaSuccess)
		return e;
	r->failures += bad;
	for (unsigned long long k = 0; k < bad && k < GB_STRESS_MAX_RECORDS &&
				       r->n_rec < GB_STRESS_MAX_RECORDS; k++)
		r->rec[r->n_rec++] = rec[k];
	return cudaSuccess;
}

/* names as c++filt prints the registered kernels of stress.cu.o */
const struct gbsim_twin gbsim_twins_stress[] = {
	{"void fill_kernel<double>(double*, unsigned long, unsigned long, int, long)", fill_f64, false},
	{"void fill_kernel<float>(float*, unsigned long, unsigned long, int, long)", fill_f32, false},
	{"void fill_kernel<__half>(__half*, unsigned long, unsigned long, int, long)", fill_f16, false},
	{"void fill_kernel<__nv_bfloat16>(__nv_bfloat16*, unsigned long, unsigned long, int, long)",
	 fill_bf16, false},
	{"void fill_kernel<__nv_fp8_e4m3>(__nv_fp8_e4m3*, unsigned long, unsigned long, int, long)",
	 fill_e4m3, false},
	{"void verify_kernel<double>(double const*, double const*, unsigned long, unsigned long, "
	 "unsigned int, double*, double*, gb_stress_verify*)",
	 verify_f64, true},
	{"void verify_kernel<float>(float const*, float const*, unsigned long, unsigned long, "
	 "unsigned int, double*, double*, gb_stress_verify*)",
	 verify_f32, true},
	{"check_sums_kernel(double const*, double const*, double const*, double const*, "
	 "double const*, double const*, unsigned long, unsigned long, unsigned int, "
	 "gb_stress_verify*)",
	 check_sums, true},
	{"digest_kernel(unsigned int const*, unsigned long, unsigned long long*)", digest, true},
	{"flip_kernel(void*, int, unsigned long, unsigned long long*)", flip, false},
	{"memtest_write_kernel(unsigned int*, unsigned long, int, unsigned int, unsigned long)",
	 memtest_write, false},
	{"memtest_verify_kernel(unsigned int*, unsigned long, int, unsigned int, unsigned long, "
	 "int, gb_memtest_report*)",
	 memtest_verify, false},
	{NULL, NULL, false},
};

/*
 * The shapes above, at the launch (sim.h, struct gbsim_twin_check): a shape
 * the twin does not model is cudaErrorInvalidConfiguration there, returned by
 * the launch and not sticky.
 */
static cudaError_t at_launch(cudaError_t e)
{
	return e == cudaErrorLaunchFailure ? cudaErrorInvalidConfiguration : e;
}

static cudaError_t launch_1d_warps(const struct gbsim_launch *l)
{
	return at_launch(need_1d_warps(l));
}

static cudaError_t launch_verify(const struct gbsim_launch *l)
{
	if (l->block.x != VERIFY_ROWS || l->block.y != 1 || l->block.z != 1 || l->grid.z != 1)
		return at_launch(bad_shape(l, "256-thread 1-D blocks in a 2-D grid"));
	return cudaSuccess;
}

static cudaError_t launch_one_thread(const struct gbsim_launch *l)
{
	if ((uint64_t)l->grid.x * l->grid.y * l->grid.z * l->block.x * l->block.y * l->block.z != 1)
		return at_launch(bad_shape(l, "one thread"));
	return cudaSuccess;
}

const struct gbsim_twin_check gbsim_twin_checks_stress[] = {
	{verify_f64, launch_verify},
	{verify_f32, launch_verify},
	{check_sums, launch_1d_warps},
	{digest, launch_1d_warps},
	{flip, launch_one_thread},
	{memtest_verify, launch_1d_warps},
	{NULL, NULL},
};
