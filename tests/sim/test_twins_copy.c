/* SPDX-License-Identifier: MIT */
/*
 * test_twins_copy.c - the CPU twins of kernels/copy.cu: the pattern written
 * out again here from splitmix64's definition, verify counting a planted
 * error, the copies (including the split-warp copy's dependence on the
 * grid), STREAM values against the C library's own arithmetic, the pointer
 * chase landing where the ring says, the blocker released by another
 * thread or timing out in wall time, and link traffic charged as link time.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <time.h>

#include "tests/sim/twin_test.h"
#include "tests/sim/vclock.h"

#include "kernels/copy.h"
#include "tests/sim/catalog.h"

extern const struct gbsim_twin gbsim_twins_copy[];

#define K_SPIN "spin_kernel(int const volatile*, int*, unsigned long long)"
#define K_FILL "fill_kernel(uint4*, unsigned long, unsigned long)"
#define K_VERIFY "verify_kernel(uint4 const*, unsigned long, unsigned long, unsigned long long*)"
#define K_COPY "sm_copy_kernel(uint4*, uint4 const*, unsigned long)"
#define K_BIDIR "sm_copy_bidir_kernel(uint4*, uint4 const*, uint4*, uint4 const*, unsigned long)"
#define K_FILL_DOUBLE "fill_double_kernel(double2*, unsigned long, unsigned long)"
#define K_STREAM(op)                                                                       \
	"void stream_kernel<" #op ">(double2*, double2 const*, double2 const*, double, "    \
	"unsigned long)"
#define K_STREAM_VERIFY                                                                    \
	"stream_verify_kernel(int, double2 const*, unsigned long, unsigned long, double, "  \
	"unsigned long, unsigned long long*)"
#define K_CHASE_INIT "chase_init_kernel(char*, unsigned long, unsigned long)"
#define K_CHASE "chase_kernel(unsigned long long const*, unsigned long long, unsigned long long*)"

/* 64-bit word `index` of the pattern of seed: splitmix64 at (index + 1) steps */
static uint64_t pattern_ref(uint64_t seed, uint64_t index)
{
	uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static cudaError_t run(const char *kernel, unsigned grid, unsigned block, void **args,
		       struct gbsim_cost *cost)
{
	return twin_run(gbsim_twins_copy, kernel, grid, block, args, cost);
}

static cudaError_t pattern_fill(void *buf, size_t words, uint64_t seed)
{
	void *args[] = { &buf, &words, &seed };
	struct gbsim_cost cost;

	return run(K_FILL, 6, 256, args, &cost);
}

static unsigned long long pattern_verify(const void *buf, size_t words, uint64_t seed)
{
	unsigned long long *count = dev_alloc(sizeof(*count)), n;
	void *args[] = { &buf, &words, &seed, &count };
	struct gbsim_cost cost;

	*count = 0;
	assert_int_equal(run(K_VERIFY, 6, 256, args, &cost), cudaSuccess);
	n = *count;
	cudaFree(count);
	return n;
}

static void fill_is_the_pattern_and_verify_counts(void **state)
{
	const size_t words = 1000;
	uint64_t *buf = dev_alloc(words * 16);

	(void)state;
	assert_int_equal(pattern_fill(buf, words, 99), cudaSuccess);
	/* in memory, 16-byte word i is 64-bit pattern words 2i and 2i + 1 */
	for (size_t i = 0; i < 2 * words; i++)
		assert_true(buf[i] == pattern_ref(99, i));
	assert_int_equal(pattern_verify(buf, words, 99), 0);
	assert_int_equal(pattern_verify(buf, words, 98), words);
	buf[17] ^= 1ULL << 40;  /* word 8 */
	buf[18] ^= 1;           /* word 9 */
	buf[19] ^= 1;           /* word 9 again: still one word */
	assert_int_equal(pattern_verify(buf, words, 99), 2);
	cudaFree(buf);
}

static void sm_copy_copies_and_counts_dram_traffic(void **state)
{
	size_t words = 513, bytes = words * 16;
	void *src = dev_alloc(bytes), *dst = dev_alloc(bytes);
	void *args[] = { &dst, &src, &words };
	struct gbsim_cost cost;

	(void)state;
	assert_int_equal(pattern_fill(src, words, 5), cudaSuccess);
	assert_int_equal(run(K_COPY, 2, 256, args, &cost), cudaSuccess);
	assert_memory_equal(dst, src, bytes);
	/* device-local: read and write both in this GPU's memory, no link time */
	assert_true(cost.bytes == 2.0 * bytes);
	assert_true(cost.fixed_s == 0);
	cudaFree(src);
	cudaFree(dst);
}

/*
 * reading pinned host memory crosses PCIe: charged at the link's bandwidth
 * times the machine's pcie efficiency (the simulator's own rates), not as DRAM
 */
static void host_reads_cost_link_time(void **state)
{
	const struct gbsim_gpu *g = &gbsim_machine()->gpus[0];
	size_t words = 1 << 16, bytes = words * 16;
	void *src = pinned_alloc(bytes), *dst = dev_alloc(bytes);
	void *args[] = { &dst, &src, &words };
	struct gbsim_cost cost;
	double bps = gbsim_pcie_bps(g->pcie_gen, g->pcie_width) *
		     gbsim_machine()->efficiency.pcie;

	(void)state;
	assert_true(bps > 0);
	assert_int_equal(run(K_COPY, 132, 256, args, &cost), cudaSuccess);
	assert_true(cost.bytes == (double)bytes);  /* only the write is local */
	assert_true(fabs(cost.fixed_s * bps / (double)bytes - 1) < 1e-9);
	cudaFreeHost(src);
	cudaFree(dst);
}

/*
 * Even warps copy 0, odd warps copy 1, each thread striding by half the
 * grid: with 256-thread blocks both copies are whole; with three 32-thread
 * blocks (warps 0, 2 even, warp 1 odd, stride 48) copy 1 misses words
 * 32..47 and 80..95, as it would on a GPU.
 */
static void bidir_copy_follows_the_grid(void **state)
{
	size_t words = 96, bytes = words * 16;
	uint64_t *s0 = dev_alloc(bytes), *s1 = dev_alloc(bytes);
	uint64_t *d0 = dev_alloc(bytes), *d1 = dev_alloc(bytes);
	void *args[] = { &d0, &s0, &d1, &s1, &words };
	struct gbsim_cost cost;

	(void)state;
	assert_int_equal(pattern_fill(s0, words, 1), cudaSuccess);
	assert_int_equal(pattern_fill(s1, words, 2), cudaSuccess);
	assert_int_equal(run(K_BIDIR, 2, 256, args, &cost), cudaSuccess);
	assert_memory_equal(d0, s0, bytes);
	assert_memory_equal(d1, s1, bytes);
	assert_true(cost.bytes == 4.0 * bytes);

	memset(d0, 0, bytes);
	memset(d1, 0, bytes);
	assert_int_equal(run(K_BIDIR, 3, 32, args, &cost), cudaSuccess);
	assert_memory_equal(d0, s0, bytes);
	for (size_t w = 0; w < words; w++) {
		bool missed = (w >= 32 && w < 48) || w >= 80;

		assert_true(d1[2 * w] == (missed ? 0 : s1[2 * w]));
	}
	/* one thread would stride by zero forever: refused */
	assert_int_equal(run(K_BIDIR, 1, 1, args, &cost), cudaErrorLaunchTimeout);
	cudaFree(s0);
	cudaFree(s1);
	cudaFree(d0);
	cudaFree(d1);
}

static double pattern_double_ref(uint64_t seed, uint64_t i)
{
	return ldexp((double)(pattern_ref(seed, i) >> 11), -53) + 1.0;
}

/* the STREAM value of element i, with the C library's correctly rounded operations */
static double stream_ref(int op, uint64_t i, double q)
{
	double x = pattern_double_ref(10, i), y = pattern_double_ref(20, i);

	switch (op) {
	case GB_STREAM_COPY:
		return x;
	case GB_STREAM_SCALE:
		return q * x;
	case GB_STREAM_ADD:
		return x + y;
	default:
		return fma(q, y, x);
	}
}

static unsigned long long stream_verify(int op, const double *dst, size_t n2, double q)
{
	unsigned long long *count = dev_alloc(sizeof(*count)), bad;
	uint64_t sx = 10, sy = 20;
	void *args[] = { &op, &dst, &sx, &sy, &q, &n2, &count };
	struct gbsim_cost cost;

	*count = 0;
	assert_int_equal(run(K_STREAM_VERIFY, 4, 256, args, &cost), cudaSuccess);
	bad = *count;
	cudaFree(count);
	return bad;
}

static void stream_kernels_and_their_check(void **state)
{
	static const char *const kernels[] = { K_STREAM(0), K_STREAM(1), K_STREAM(2),
					       K_STREAM(3) };
	size_t n2 = 1001, bytes = n2 * 16;
	double *x = dev_alloc(bytes), *y = dev_alloc(bytes), *d = dev_alloc(bytes);
	double q = 0.4142135623730951;
	uint64_t sx = 10, sy = 20;
	void *fx[] = { &x, &n2, &sx }, *fy[] = { &y, &n2, &sy };
	struct gbsim_cost cost;

	(void)state;
	assert_int_equal(run(K_FILL_DOUBLE, 4, 256, fx, &cost), cudaSuccess);
	assert_int_equal(run(K_FILL_DOUBLE, 4, 256, fy, &cost), cudaSuccess);
	for (size_t i = 0; i < 2 * n2; i++)
		assert_true(x[i] == pattern_double_ref(10, i) && x[i] >= 1.0 && x[i] < 2.0);
	for (int op = 0; op < 4; op++) {
		void *args[] = { &d, &x, &y, &q, &n2 };

		memset(d, 0, bytes);
		assert_int_equal(run(kernels[op], 4, 256, args, &cost), cudaSuccess);
		for (size_t i = 0; i < 2 * n2; i++)
			assert_true(d[i] == stream_ref(op, i, q));
		/* BabelStream's byte counts: copy and scale 2 arrays, add and triad 3 */
		assert_true(cost.bytes == (op < GB_STREAM_ADD ? 2.0 : 3.0) * bytes);
		assert_int_equal(stream_verify(op, d, n2, q), 0);
		d[2 * n2 - 1] = -d[2 * n2 - 1];
		assert_int_equal(stream_verify(op, d, n2, q), 1);
	}
	/* a NaN never passes, even where the expected value is NaN-free */
	d[0] = NAN;
	assert_int_equal(stream_verify(GB_STREAM_TRIAD, d, n2, q), 2);
	cudaFree(x);
	cudaFree(y);
	cudaFree(d);
}

static void chase_follows_the_ring(void **state)
{
	size_t stride = 128, nodes = 64, bytes = stride * nodes;
	char *ring = dev_alloc(bytes);
	unsigned long long *sink = dev_alloc(sizeof(*sink)), steps = 3 * nodes + 5;
	void *init[] = { &ring, &nodes, &stride }, *chase[] = { &ring, &steps, &sink };
	struct gbsim_cost cost;

	(void)state;
	assert_int_equal(run(K_CHASE_INIT, 1, 256, init, &cost), cudaSuccess);
	assert_int_equal(run(K_CHASE, 1, 1, chase, &cost), cudaSuccess);
	assert_true(*sink == (unsigned long long)(uintptr_t)(ring + 5 * stride));
	/* a latency per dependent load, not bytes */
	assert_true(cost.fixed_s > steps * 0.1e-6 && cost.fixed_s < steps * 2e-6);
	/* a ring that leads out of its allocation is an illegal address */
	*(unsigned long long *)(ring + 2 * stride) = (unsigned long long)(uintptr_t)(ring + bytes);
	assert_int_equal(run(K_CHASE, 1, 1, chase, &cost), cudaErrorIllegalAddress);
	cudaFree(ring);
	cudaFree(sink);
}

/* ---------------------------------------------------------------- the blocker */

struct flag {
	int release, timed_out;
};

/* released 20 ms of simulated time later, by a thread that takes part in the clock */
static void *release_later(void *arg)
{
	struct flag *f = arg;

	gbsim_vc_sleep(0.02);
	__atomic_store_n(&f->release, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static cudaError_t spin(struct flag *f, unsigned long long timeout_ns, struct gbsim_cost *cost)
{
	int *release = &f->release, *timed_out = &f->timed_out;
	void *args[] = { &release, &timed_out, &timeout_ns };

	return run(K_SPIN, 1, 1, args, cost);
}

static void spin_waits_for_the_host(void **state)
{
	struct flag *f = pinned_alloc(sizeof(*f));
	struct gbsim_cost cost;
	pthread_t t;
	double t0;

	(void)state;
	/* released already: returns at once */
	f->release = 1;
	f->timed_out = 0;
	assert_int_equal(spin(f, 1000000000ull, &cost), cudaSuccess);
	assert_int_equal(f->timed_out, 0);
	assert_true(cost.fixed_s == 0 && cost.bytes == 0 && cost.flops == 0);

	/* released by another thread after 20 ms: lasts until it sees that (within a poll), no timeout */
	f->release = 0;
	assert_int_equal(gbsim_vc_thread_start(&t, release_later, f), 0);
	t0 = gbsim_vc_now();
	assert_int_equal(spin(f, 10ull * 1000000000ull, &cost), cudaSuccess);
	assert_true(gbsim_vc_now() - t0 >= 0.02 && gbsim_vc_now() - t0 < 0.0211);
	assert_true(gbsim_vc_thread_join(t, INFINITY));
	assert_int_equal(f->timed_out, 0);
	assert_true(cost.fixed_s >= 0.02 && cost.fixed_s < 0.0211);

	/* never released: gives up at the timeout, in simulated time */
	f->release = 0;
	t0 = gbsim_vc_now();
	assert_int_equal(spin(f, 30ull * 1000000ull, &cost), cudaSuccess);
	assert_true(fabs(gbsim_vc_now() - t0 - 0.03) < 1e-9);
	assert_int_equal(f->timed_out, 1);
	assert_true(fabs(cost.fixed_s - 0.03) < 1e-9);
	cudaFreeHost(f);
}

/* the flag must be memory the GPU can reach: pageable memory is an illegal address */
static void spin_checks_its_pointers(void **state)
{
	struct flag local = { 1, 0 };
	struct gbsim_cost cost;

	(void)state;
	assert_int_equal(spin(&local, 1000, &cost), cudaErrorIllegalAddress);
}

static void every_kernel_has_a_twin(void **state)
{
	static const char *const names[] = {
		K_SPIN, K_FILL, K_VERIFY, K_COPY, K_BIDIR, K_FILL_DOUBLE, K_STREAM(0),
		K_STREAM(1), K_STREAM(2), K_STREAM(3), K_STREAM_VERIFY, K_CHASE_INIT, K_CHASE,
	};
	size_t rows = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_non_null(twin_find(gbsim_twins_copy, names[i]));
	while (gbsim_twins_copy[rows].name)
		rows++;
	assert_int_equal(rows, sizeof(names) / sizeof(names[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fill_is_the_pattern_and_verify_counts),
		cmocka_unit_test(sm_copy_copies_and_counts_dram_traffic),
		cmocka_unit_test(host_reads_cost_link_time),
		cmocka_unit_test(bidir_copy_follows_the_grid),
		cmocka_unit_test(stream_kernels_and_their_check),
		cmocka_unit_test(chase_follows_the_ring),
		cmocka_unit_test(spin_waits_for_the_host),
		cmocka_unit_test(spin_checks_its_pointers),
		cmocka_unit_test(every_kernel_has_a_twin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
