/* SPDX-License-Identifier: MIT */
/*
 * own_gemm_twin.c - the product and the launch checks the twins of the own
 * GEMM kernels share (own_gemm_twin.h says what and why).
 */
#include "tests/sim/twins/own_gemm_twin.h"

#include "kernels/own_gemm_math.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

size_t gbsim_gemm_elem_bytes(enum gbsim_gemm_elem e)
{
	return e == GBSIM_GEMM_F32 ? 4 : 2;
}

uint64_t gbsim_gemm_operand_bytes(const struct gbsim_gemm_operand *op)
{
	if (!op->rows || !op->k)
		return 0;
	return (op->rows - 1) * op->pitch_bytes + op->k * gbsim_gemm_elem_bytes(op->elem);
}

/* element (row, l) widened to float; zero outside the operand */
static float operand_at(const struct gbsim_gemm_operand *op, uint64_t row, uint64_t l)
{
	const unsigned char *p;
	uint16_t h;
	float f;

	if (row >= op->rows || l >= op->k)
		return 0.0f;
	p = (const unsigned char *)op->base + row * op->pitch_bytes +
	    l * gbsim_gemm_elem_bytes(op->elem);
	switch (op->elem) {
	case GBSIM_GEMM_F32:
		memcpy(&f, p, sizeof(f));
		return f;
	case GBSIM_GEMM_F16:
		memcpy(&h, p, sizeof(h));
		return gbsim_f16_to_float(h);
	case GBSIM_GEMM_BF16:
	default:
		memcpy(&h, p, sizeof(h));
		return gbsim_bf16_to_float(h);
	}
}

/* ---- the result cache (own_gemm_twin.h says what and why) ---- */

/* more products than gemm rotates through: 43 copies of 257x511x129 bf16 fill 2x 4 MiB */
#define GEMM_CACHE_ENTRIES 512
/* kept products in all: 4 of 4096^2, or thousands of the sizes the sim tests use */
#define GEMM_CACHE_MAX_BYTES ((size_t)256 << 20)

struct gemm_cache_entry {
	uint64_t key[2];
	float *o;        /* NULL: a free slot */
	size_t bytes;
	uint64_t used;   /* cache clock at the last hit, for LRU */
	int pins;        /* launches copying from o: not evicted meanwhile */
};

static pthread_mutex_t gemm_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gemm_cache_entry gemm_cache[GEMM_CACHE_ENTRIES];
static uint64_t gemm_cache_clock, gemm_cache_hits, gemm_cache_misses;
static size_t gemm_cache_bytes;

static bool gemm_cache_enabled(void)
{
	const char *e = getenv("GPUBENCH_SIM_OWN_GEMM_CACHE");

	return !(e && e[0] == '0');
}


/* everything the product depends on: shapes, types, pitches, and both operands' bytes */
static void gemm_cache_key(const struct gbsim_gemm_operand *x, const struct gbsim_gemm_operand *y,
			   unsigned rows_x, unsigned rows_y, uint64_t k_loop, uint64_t key[2])
{
	uint64_t shape[11] = { (uint64_t)x->elem, x->rows, x->k, x->pitch_bytes,
			       (uint64_t)y->elem, y->rows, y->k, y->pitch_bytes,
			       rows_x, rows_y, k_loop };

	key[0] = 0x243f6a8885a308d3ULL;
	key[1] = 0x13198a2e03707344ULL;
	gbsim_hash_bytes(key, shape, sizeof(shape));
	gbsim_hash_bytes(key, x->base, (size_t)gbsim_gemm_operand_bytes(x));
	gbsim_hash_bytes(key, y->base, (size_t)gbsim_gemm_operand_bytes(y));
}

/* the entry for key, pinned, or NULL (counts the hit or the miss) */
static struct gemm_cache_entry *gemm_cache_pin(const uint64_t key[2])
{
	struct gemm_cache_entry *hit = NULL;

	pthread_mutex_lock(&gemm_cache_lock);
	for (int i = 0; i < GEMM_CACHE_ENTRIES && !hit; i++) {
		struct gemm_cache_entry *e = &gemm_cache[i];

		if (e->o && e->key[0] == key[0] && e->key[1] == key[1])
			hit = e;
	}
	if (hit) {
		hit->pins++;
		hit->used = ++gemm_cache_clock;
		gemm_cache_hits++;
	} else {
		gemm_cache_misses++;
	}
	pthread_mutex_unlock(&gemm_cache_lock);
	return hit;
}

static void gemm_cache_drop(struct gemm_cache_entry *e)
{
	gemm_cache_bytes -= e->bytes;
	free(e->o);
	memset(e, 0, sizeof(*e));
}

/* least recently used unpinned entry holding a product, or NULL (lock held) */
static struct gemm_cache_entry *gemm_cache_oldest(void)
{
	struct gemm_cache_entry *old = NULL;

	for (int i = 0; i < GEMM_CACHE_ENTRIES; i++) {
		struct gemm_cache_entry *e = &gemm_cache[i];

		if (e->o && !e->pins && (!old || e->used < old->used))
			old = e;
	}
	return old;
}

/* a free slot, evicting as needed to fit bytes more; NULL when it cannot (lock held) */
static struct gemm_cache_entry *gemm_cache_make_room(size_t bytes)
{
	struct gemm_cache_entry *old;

	if (bytes > GEMM_CACHE_MAX_BYTES)
		return NULL;
	while (gemm_cache_bytes + bytes > GEMM_CACHE_MAX_BYTES && (old = gemm_cache_oldest()))
		gemm_cache_drop(old);
	if (gemm_cache_bytes + bytes > GEMM_CACHE_MAX_BYTES)
		return NULL;
	for (int i = 0; i < GEMM_CACHE_ENTRIES; i++)
		if (!gemm_cache[i].o)
			return &gemm_cache[i];
	if ((old = gemm_cache_oldest()))
		gemm_cache_drop(old);
	return old;
}

/*
 * Keep o under key, pinned, and return its entry; NULL when it stays the
 * caller's (no room, or another launch stored the same key meanwhile).
 */
static struct gemm_cache_entry *gemm_cache_put(const uint64_t key[2], float *o, size_t bytes)
{
	struct gemm_cache_entry *e = NULL;
	bool known = false;

	pthread_mutex_lock(&gemm_cache_lock);
	for (int i = 0; i < GEMM_CACHE_ENTRIES; i++)
		known |= gemm_cache[i].o && gemm_cache[i].key[0] == key[0] &&
			 gemm_cache[i].key[1] == key[1];
	if (!known && (e = gemm_cache_make_room(bytes))) {
		*e = (struct gemm_cache_entry){ { key[0], key[1] }, o, bytes, ++gemm_cache_clock,
						1 };
		gemm_cache_bytes += bytes;
	}
	pthread_mutex_unlock(&gemm_cache_lock);
	return e;
}

void gbsim_gemm_cache_stats(uint64_t *hits, uint64_t *misses)
{
	pthread_mutex_lock(&gemm_cache_lock);
	*hits = gemm_cache_hits;
	*misses = gemm_cache_misses;
	pthread_mutex_unlock(&gemm_cache_lock);
}

void gbsim_gemm_cache_clear(void)
{
	pthread_mutex_lock(&gemm_cache_lock);
	for (int i = 0; i < GEMM_CACHE_ENTRIES; i++)
		if (gemm_cache[i].o && !gemm_cache[i].pins)
			gemm_cache_drop(&gemm_cache[i]);
	gemm_cache_hits = gemm_cache_misses = 0;
	pthread_mutex_unlock(&gemm_cache_lock);
}

/* ---- the product ---- */

static cudaError_t gemm_widen(struct gbsim_gemm_product *p, const char *kernel,
			      const struct gbsim_gemm_operand *x,
			      const struct gbsim_gemm_operand *y)
{
	const unsigned rows_x = p->rows_x, rows_y = p->rows_y;
	const uint64_t k_loop = p->k_loop;
	size_t nx = (size_t)rows_x * (size_t)k_loop, ny = (size_t)rows_y * (size_t)k_loop;

	if (k_loop > SIZE_MAX / 4 / (rows_x > rows_y ? rows_x : rows_y) ||
	    !(p->x = malloc(nx * sizeof(float))) || !(p->yt = malloc(ny * sizeof(float)))) {
		gbsim_log("%s: no host memory for a %u x %u x %llu product", kernel, rows_y,
			  rows_x, (unsigned long long)k_loop);
		gbsim_gemm_product_free(p);
		return cudaErrorMemoryAllocation;
	}
	for (uint64_t r = 0; r < rows_x; r++)
		for (uint64_t l = 0; l < k_loop; l++)
			p->x[r * k_loop + l] = operand_at(x, r, l);
	/* read Y row by row (contiguous along k), write its transpose */
	for (uint64_t c = 0; c < rows_y; c++)
		for (uint64_t l = 0; l < k_loop; l++)
			p->yt[l * rows_y + c] = operand_at(y, c, l);
	return cudaSuccess;
}

/*
 * The whole product into p->o from the widened operands, by the same tile
 * routine (same chains, same bits), then the operands freed; on no memory
 * for o, p stays widened and uncached.
 */
static void gemm_compute_whole(struct gbsim_gemm_product *p, const uint64_t key[2])
{
	const size_t bytes = (size_t)p->rows_x * p->rows_y * sizeof(float);
	float *o = malloc(bytes);

	if (!o)
		return;
	gbsim_gemm_tile(p, 0, p->rows_x, 0, p->rows_y, o);
	free(p->x);
	free(p->yt);
	p->x = p->yt = NULL;
	p->o = o;
	p->entry = gemm_cache_put(key, o, bytes);
}

cudaError_t gbsim_gemm_product_init(struct gbsim_gemm_product *p, const char *kernel,
				    const struct gbsim_gemm_operand *x,
				    const struct gbsim_gemm_operand *y, unsigned rows_x,
				    unsigned rows_y, uint64_t k_loop)
{
	struct gemm_cache_entry *hit;
	uint64_t key[2];
	cudaError_t e;

	memset(p, 0, sizeof(*p));
	p->rows_x = rows_x;
	p->rows_y = rows_y;
	p->k_loop = k_loop;
	if (!rows_x || !rows_y || !k_loop)
		return cudaSuccess;  /* nothing to widen: every output is +0 */
	if (!gemm_cache_enabled())
		return gemm_widen(p, kernel, x, y);
	gemm_cache_key(x, y, rows_x, rows_y, k_loop, key);
	if ((hit = gemm_cache_pin(key))) {
		p->o = hit->o;
		p->entry = hit;
		return cudaSuccess;
	}
	if ((e = gemm_widen(p, kernel, x, y)))
		return e;
	gemm_compute_whole(p, key);
	return cudaSuccess;
}

void gbsim_gemm_product_free(struct gbsim_gemm_product *p)
{
	struct gemm_cache_entry *e = p->entry;

	if (e) {
		pthread_mutex_lock(&gemm_cache_lock);
		e->pins--;
		pthread_mutex_unlock(&gemm_cache_lock);
	} else {
		free(p->o);
	}
	free(p->x);
	free(p->yt);
	p->x = p->yt = p->o = NULL;
	p->entry = NULL;
}

/*
 * The inner loop is all the twins' CPU time. With FMA instructions it
 * vectorises across j (each output's chain stays in l order, and an fma
 * instruction rounds exactly as fmaf does, so the bits do not change);
 * without them every fmaf is a libm call: 1 GFLOP/s, against 7 at -O2 and
 * 25 at -O3 with them (measured on the build machine). x86-64's baseline
 * has no FMA: GCC and clang build both versions and pick one when the
 * library loads.
 */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define GEMM_TILE_CLONES __attribute__((target_clones("fma", "default")))
#endif
#endif
#ifndef GEMM_TILE_CLONES
#define GEMM_TILE_CLONES
#endif

GEMM_TILE_CLONES
void gbsim_gemm_tile(const struct gbsim_gemm_product *p, unsigned r0, unsigned nr, unsigned c0,
		     unsigned nc, float *tile)
{
	if (p->o) {
		for (unsigned i = 0; i < nr; i++)
			memcpy(tile + (size_t)i * nc, p->o + (size_t)(r0 + i) * p->rows_y + c0,
			       nc * sizeof(float));
		return;
	}
	for (unsigned i = 0; i < nr; i++) {
		float *restrict acc = tile + (size_t)i * nc;
		const float *xr = p->x ? p->x + (size_t)(r0 + i) * p->k_loop : NULL;

		for (unsigned j = 0; j < nc; j++)
			acc[j] = 0.0f;
		if (!xr)
			continue;
		/* i-k-j: one X element against a contiguous run of Y^T, the chain in l order */
		for (uint64_t l = 0; l < p->k_loop; l++) {
			const float xv = xr[l];
			const float *restrict yl = p->yt + l * p->rows_y + c0;

			for (unsigned j = 0; j < nc; j++)
				acc[j] = fmaf(xv, yl[j], acc[j]);
		}
	}
}

void gbsim_gemm_store(void *out, enum gbsim_gemm_elem e, uint64_t index, float v)
{
	uint16_t h;

	switch (e) {
	case GBSIM_GEMM_F32:
		memcpy((float *)out + index, &v, sizeof(v));
		return;
	case GBSIM_GEMM_F16:
		h = gbsim_f16_from_float(v);  /* __float2half_rn, as gb_from_float / gb_pack2 */
		break;
	case GBSIM_GEMM_BF16:
	default:
		h = gbsim_bf16_from_float(v); /* __float2bfloat16_rn */
		break;
	}
	memcpy((uint16_t *)out + index, &h, sizeof(h));
}

cudaError_t gbsim_gemm_check_block(const struct gbsim_launch *l, unsigned x, unsigned y,
				   unsigned launch_bound)
{
	unsigned long long threads =
		(unsigned long long)l->block.x * l->block.y * (unsigned long long)l->block.z;

	if (l->block.x == x && l->block.y == y && l->block.z == 1)
		return cudaSuccess;
	gbsim_log("%s: launched with block %ux%ux%u, the kernel is written for %ux%ux1",
		  l->kernel, l->block.x, l->block.y, l->block.z, x, y);
	return threads > launch_bound ? cudaErrorLaunchOutOfResources : cudaErrorLaunchFailure;
}

cudaError_t gbsim_gemm_launch_block(const struct gbsim_launch *l, unsigned x, unsigned y,
				    unsigned launch_bound)
{
	cudaError_t e = gbsim_gemm_check_block(l, x, y, launch_bound);

	return e == cudaErrorLaunchFailure ? cudaErrorInvalidConfiguration : e;
}

cudaError_t gbsim_gemm_check_shared(const struct gbsim_launch *l, size_t need)
{
	if (l->shared_bytes >= need)
		return cudaSuccess;
	gbsim_log("%s: %zu bytes of dynamic shared memory, the kernel indexes %zu", l->kernel,
		  l->shared_bytes, need);
	return cudaErrorIllegalAddress;
}

cudaError_t gbsim_gemm_check_align(const struct gbsim_launch *l, const void *p, size_t align,
				   const char *what)
{
	if ((uintptr_t)p % align == 0)
		return cudaSuccess;
	gbsim_log("%s: %s %p is not %zu-byte aligned for the kernel's accesses", l->kernel, what,
		  p, align);
	return cudaErrorMisalignedAddress;
}

cudaError_t gbsim_gemm_check_operand(const struct gbsim_launch *l,
				     const struct gbsim_gemm_operand *op, const char *what)
{
	uint64_t bytes = gbsim_gemm_operand_bytes(op);

	if (!bytes)
		return cudaSuccess;
	return gbsim_check_access(l->device, op->base, (size_t)bytes, what);
}

void gbsim_gemm_cost(struct gbsim_cost *cost, enum gbsim_precision prec, uint64_t k,
		     uint64_t in_bytes, uint64_t stored, size_t out_elem_bytes, uint64_t repeat)
{
	cost->flops = 2.0 * (double)k * (double)stored * (double)repeat;
	cost->prec = prec;
	cost->bytes = (double)in_bytes + (double)stored * (double)out_elem_bytes * (double)repeat;
	cost->fixed_s = 0.0;
}

cudaError_t gbsim_gemm_tile_of(const struct gbsim_launch *l, unsigned b, unsigned tiles_m,
			       unsigned tiles_n, unsigned *tm, unsigned *tn)
{
	/* the divisors of gb_own_gemm_tile_of, computed as it does */
	const unsigned per_group = GB_OWN_GROUP * tiles_m;
	const unsigned first_n = per_group ? b / per_group * GB_OWN_GROUP : 0;
	const unsigned width = tiles_n - first_n < GB_OWN_GROUP ? tiles_n - first_n : GB_OWN_GROUP;

	if (!per_group || !width) {
		gbsim_log("%s: block %u of tiles_m %u, tiles_n %u divides by zero in "
			  "gb_own_gemm_tile_of (undefined on a GPU)",
			  l->kernel, b, tiles_m, tiles_n);
		return cudaErrorLaunchFailure;
	}
	gb_own_gemm_tile_of(b, tiles_m, tiles_n, tm, tn);
	return cudaSuccess;
}

cudaError_t gbsim_gemm_check_rows(const struct gbsim_launch *l, unsigned rows_x,
				  unsigned rows_y, unsigned k)
{
	if ((rows_x && rows_y) || !k || !l->grid.x)
		return cudaSuccess;
	gbsim_log("%s: an operand has 0 rows and k = %u: the kernel reads rows it does not have",
		  l->kernel, k);
	return cudaErrorIllegalAddress;
}

unsigned gbsim_gemm_clamp(unsigned first, unsigned size, unsigned limit)
{
	if (first >= limit)
		return 0;
	return limit - first < size ? limit - first : size;
}
