/* SPDX-License-Identifier: MIT */
/*
 * twins_copy.c - CPU twins of kernels/copy.cu: the stream blocker, pattern
 * fill and verify, the SM copies (one-way and split-warp two-way), STREAM
 * and the pointer chase.
 *
 * The data come from the kernels' own functions (kernels/copy_hd.h,
 * bench/device/copy_math.h), so a pattern the simulated GPU writes or checks is
 * the one a real GPU writes or checks, bit for bit.
 *
 * Time model. Traffic to the launching GPU's own memory (and to managed
 * memory) goes into cost->bytes, which the runtime charges at the GPU's
 * memory bandwidth. Traffic that crosses a link (pinned host memory over
 * PCIe, a peer's memory over NVLink or PCIe) is charged here, in
 * cost->fixed_s, at the link's per-direction bandwidth from the machine
 * file times its efficiency (below); the two directions of a link are
 * independent (full duplex), so a two-way copy takes the longer of the two.
 * The pointer chase costs a fixed latency per dependent load, by where the
 * ring lies (see chase_step_s). These are plausible figures, not
 * measurements: the simulator proves the plumbing, not the hardware.
 */
#define _POSIX_C_SOURCE 200809L

#include "tests/sim/sim.h"
#include "tests/sim/vclock.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "kernels/copy_hd.h"
#include "tests/sim/catalog.h"

/*
 * The share of a link's per-direction bandwidth SM loads and stores reach is
 * the runtime copy model's (tests/sim/runtime/timing.c), from the machine
 * file's "efficiency": nvlink (0.85) over NVLink, pcie (0.85) over the GPU's
 * own PCIe link to host memory, pcie_p2p (0.8) peer to peer over PCIe
 * (measured Gen4 x16 copies reach about 26 of 31.5 GB/s, NVLink 3 about 250
 * of 300).
 */
/* the spin twin looks at its flag again after this much simulated time, doubling */
#define SPIN_POLL_FIRST_S 1e-6
#define SPIN_POLL_MAX_S 1e-3

/* ---------------------------------------------------------------- traffic */

/* one pointer range a kernel reads or writes */
struct range {
	const void *p;
	size_t bytes;
	bool write;
};

static double pcie_bps(const struct gbsim_gpu *g)
{
	double bps = gbsim_pcie_bps(g->pcie_gen, g->pcie_width);

	/* a machine file without PCIe facts: a Gen4 x16 slot, as the runtime assumes */
	return bps > 0 ? bps : gbsim_pcie_bps(4, 16);
}

/* bytes/s SM traffic reaches in one direction from GPU `me` to memory of `kind` on `peer` */
static double link_bps(int me, enum gbsim_mem_kind kind, int peer)
{
	const struct gbsim_machine *m = gbsim_machine();
	const struct gbsim_efficiency *eff = &m->efficiency;

	if (kind == GBSIM_MEM_DEVICE && peer >= 0 && peer < m->gpu_count) {
		if (m->nvlinks[me][peer] > 0 && gbsim_nvlink_link_bps(m->nvlink_gen) > 0)
			return eff->nvlink * m->nvlinks[me][peer] *
			       gbsim_nvlink_link_bps(m->nvlink_gen);
		/* P2P over PCIe runs at the slower of the two GPUs' links */
		return eff->pcie_p2p * fmin(pcie_bps(&m->gpus[me]), pcie_bps(&m->gpus[peer]));
	}
	return eff->pcie * pcie_bps(&m->gpus[me]);
}

/* true when a range is memory of the launching GPU itself (no link crossed) */
static bool is_local(const struct gbsim_launch *l, enum gbsim_mem_kind kind, int dev)
{
	if (kind == GBSIM_MEM_DEVICE)
		return dev == l->device;
	/* managed memory migrates to the GPU that touches it; unknown memory has
	 * already failed gbsim_check_access */
	return kind != GBSIM_MEM_HOST;
}

/* Charge the ranges: local bytes to cost->bytes, link bytes as link time. */
static void charge(const struct gbsim_launch *l, struct gbsim_cost *cost, const struct range *r,
		   int n)
{
	double in_s = 0, out_s = 0;

	for (int i = 0; i < n; i++) {
		int dev = -1;
		enum gbsim_mem_kind kind;

		if (!r[i].bytes)
			continue;
		kind = gbsim_mem_kind(r[i].p, r[i].bytes, &dev);
		if (is_local(l, kind, dev))
			cost->bytes += (double)r[i].bytes;
		else if (r[i].write)
			out_s += (double)r[i].bytes / link_bps(l->device, kind, dev);
		else
			in_s += (double)r[i].bytes / link_bps(l->device, kind, dev);
	}
	cost->fixed_s += in_s > out_s ? in_s : out_s;
}

/* gbsim_check_access on every non-empty range, the first error returned */
static cudaError_t check_all(const struct gbsim_launch *l, const struct range *r, int n,
			     const char *const *what)
{
	for (int i = 0; i < n; i++) {
		cudaError_t e;

		if (!r[i].bytes)
			continue;
		e = gbsim_check_access(l->device, r[i].p, r[i].bytes, what[i]);
		if (e != cudaSuccess)
			return e;
	}
	return cudaSuccess;
}

/* ---------------------------------------------------------------- replays */

/*
 * A launch whose writes are a pure function of what it reads (the SM copies,
 * STREAM) that comes again on the same ranges, grid and scalar, with none of
 * its ranges written since (their write stamps, sim.h): its destinations
 * already hold what it would write, and it is not done again, as the runtime's
 * copy memo skips a repeated copy. bandwidth's and p2p's loops are the same
 * launch thousands of times a simulated second. These twins declare their
 * writes: they flush the deferred writes of their ranges and report what they
 * write.
 */
#define REPLAY_SLOTS 8
#define REPLAY_RANGES 4

struct replay {
	const char *kernel;          /* NULL: a free slot */
	dim3 grid, block;
	double scalar;
	int n;
	struct range r[REPLAY_RANGES];
	struct gbsim_mem_stamp st[REPLAY_RANGES];
	uint64_t last;
};

static pthread_mutex_t replay_lock = PTHREAD_MUTEX_INITIALIZER;
static struct replay replays[GBSIM_MAX_GPUS][REPLAY_SLOTS];
static uint64_t replay_clock;

/* The stamps of every range; false when one is not device memory (never replayed). */
static bool stamps_of(const struct range *r, int n, struct gbsim_mem_stamp *st)
{
	for (int i = 0; i < n; i++)
		if (r[i].bytes && !gbsim_mem_stamp(r[i].p, r[i].bytes, &st[i]))
			return false;
	return true;
}

static bool same_launch(const struct replay *x, const struct gbsim_launch *l,
			const struct range *r, int n, double scalar,
			const struct gbsim_mem_stamp *st)
{
	if (x->kernel != l->kernel || x->n != n || memcmp(&x->scalar, &scalar, sizeof(scalar)) ||
	    memcmp(&x->grid, &l->grid, sizeof(dim3)) || memcmp(&x->block, &l->block, sizeof(dim3)))
		return false;
	for (int i = 0; i < n; i++)
		if (x->r[i].p != r[i].p || x->r[i].bytes != r[i].bytes ||
		    (r[i].bytes && (x->st[i].epoch != st[i].epoch ||
				    x->st[i].version != st[i].version)))
			return false;
	return true;
}

/* Before computing: deferred writes land; true when this very launch has already run. */
static bool replay_hit(const struct gbsim_launch *l, const struct range *r, int n,
		       double scalar)
{
	struct gbsim_mem_stamp st[REPLAY_RANGES];
	bool hit = false;

	for (int i = 0; i < n; i++)
		gbsim_mem_flush(r[i].p, r[i].bytes);
	if (n > REPLAY_RANGES || !stamps_of(r, n, st))
		return false;
	pthread_mutex_lock(&replay_lock);
	for (int i = 0; i < REPLAY_SLOTS && !hit; i++) {
		struct replay *x = &replays[l->device][i];

		if (x->kernel && same_launch(x, l, r, n, scalar, st)) {
			x->last = ++replay_clock;
			hit = true;
		}
	}
	pthread_mutex_unlock(&replay_lock);
	return hit;
}

/* After computing: report the writes, and remember the launch with the stamps they left. */
static void replay_note(const struct gbsim_launch *l, const struct range *r, int n,
			double scalar)
{
	struct gbsim_mem_stamp st[REPLAY_RANGES];
	struct replay *victim = NULL;

	for (int i = 0; i < n; i++)
		if (r[i].write && r[i].bytes)
			gbsim_mem_wrote(r[i].p, r[i].bytes);
	if (n > REPLAY_RANGES || !stamps_of(r, n, st))
		return;
	pthread_mutex_lock(&replay_lock);
	for (int i = 0; i < REPLAY_SLOTS; i++) {
		struct replay *x = &replays[l->device][i];

		if (!victim || !x->kernel || (victim->kernel && x->last < victim->last))
			victim = x;
	}
	*victim = (struct replay){ .kernel = l->kernel, .grid = l->grid, .block = l->block,
				   .scalar = scalar, .n = n, .last = ++replay_clock };
	memcpy(victim->r, r, (size_t)n * sizeof(*r));
	memcpy(victim->st, st, (size_t)n * sizeof(*st));
	pthread_mutex_unlock(&replay_lock);
}

/* check, then charge: the prologue of every bulk twin */
static cudaError_t claim(const struct gbsim_launch *l, struct gbsim_cost *cost,
			 const struct range *r, int n, const char *const *what)
{
	cudaError_t e = check_all(l, r, n, what);

	if (e == cudaSuccess)
		charge(l, cost, r, n);
	return e;
}

/* ---------------------------------------------------------------- blocker */

/*
 * spin_kernel(const volatile int *release, int *timed_out, unsigned long long timeout_ns)
 *
 * Blocks this stream's worker until the host stores a non-zero *release, or
 * until timeout_ns of simulated time (the GPU's global timer) have passed
 * since the kernel's simulated start, then sets *timed_out. The flag lies in mapped
 * pinned memory the host writes while we poll, hence the atomic loads; the
 * store wakes no one, so the twin looks again after a little simulated time,
 * from SPIN_POLL_FIRST_S doubling up to SPIN_POLL_MAX_S, and each look comes
 * at the end of its simulated instant, after the host's stores of that
 * time. The kernel lasts until it sees the release (or gives up), like the
 * real spin.
 */
static cudaError_t spin(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	const int *release = *(const int **)l->args[0];
	int *timed_out = *(int **)l->args[1];
	unsigned long long timeout_ns = *(unsigned long long *)l->args[2];
	double start = gbsim_now_s(), poll = SPIN_POLL_FIRST_S; /* the kernel's simulated start */
	double give_up = start + (double)timeout_ns * 1e-9;
	cudaError_t e;

	if ((e = gbsim_check_access(l->device, release, sizeof(int),
				    "spin_kernel arg release")) ||
	    (e = gbsim_check_access(l->device, timed_out, sizeof(int),
				    "spin_kernel arg timed_out")))
		return e;
	for (;;) {
		double now;

		gbsim_vc_settle(); /* the host's stores of this instant first */
		if (__atomic_load_n(release, __ATOMIC_ACQUIRE))
			break;
		now = gbsim_vc_now();
		if (now >= give_up) {
			__atomic_store_n(timed_out, 1, __ATOMIC_SEQ_CST);
			break;
		}
		gbsim_vc_sleep(fmin(poll, give_up - now));
		poll = fmin(poll * 2, SPIN_POLL_MAX_S);
	}
	cost->fixed_s = fmax(0, fmin(gbsim_vc_now(), give_up) - start);
	return cudaSuccess;
}

/* ---------------------------------------------------------------- patterns */

/* fill_kernel(uint4 *buf, size_t words, uint64_t seed) */
static cudaError_t fill(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	uint4 *buf = *(uint4 **)l->args[0];
	size_t words = *(size_t *)l->args[1];
	uint64_t seed = *(uint64_t *)l->args[2];
	const struct range r[] = { { buf, words * sizeof(uint4), true } };
	static const char *const what[] = { "fill_kernel arg buf" };
	cudaError_t e = claim(l, cost, r, 1, what);

	if (e != cudaSuccess)
		return e;
	for (size_t i = 0; i < words; i++)
		buf[i] = gb_copy_pattern_word(seed, i);
	return cudaSuccess;
}

/* verify_kernel(const uint4 *buf, size_t words, uint64_t seed, unsigned long long *mismatches) */
static cudaError_t verify(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	const uint4 *buf = *(const uint4 **)l->args[0];
	size_t words = *(size_t *)l->args[1];
	uint64_t seed = *(uint64_t *)l->args[2];
	unsigned long long *mismatches = *(unsigned long long **)l->args[3];
	const struct range r[] = { { buf, words * sizeof(uint4), false },
				   { mismatches, sizeof(*mismatches), true } };
	static const char *const what[] = { "verify_kernel arg buf",
					    "verify_kernel arg mismatches" };
	unsigned long long bad = 0;
	cudaError_t e = claim(l, cost, r, 2, what);

	if (e != cudaSuccess)
		return e;
	for (size_t i = 0; i < words; i++) {
		uint4 v = buf[i], w = gb_copy_pattern_word(seed, i);

		bad += v.x != w.x || v.y != w.y || v.z != w.z || v.w != w.w;
	}
	/* the kernel adds (atomicAdd) to what the caller zeroed */
	*mismatches += bad;
	return cudaSuccess;
}

/* ---------------------------------------------------------------- SM copies */

/* sm_copy_kernel(uint4 *dst, const uint4 *src, size_t words): grid-stride, any grid */
static cudaError_t sm_copy(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	uint4 *dst = *(uint4 **)l->args[0];
	const uint4 *src = *(const uint4 **)l->args[1];
	size_t words = *(size_t *)l->args[2];
	const struct range r[] = { { dst, words * sizeof(uint4), true },
				   { src, words * sizeof(uint4), false } };
	static const char *const what[] = { "sm_copy_kernel arg dst", "sm_copy_kernel arg src" };
	cudaError_t e = claim(l, cost, r, 2, what);

	if (e != cudaSuccess || replay_hit(l, r, 2, 0))
		return e;
	if (words)
		memmove(dst, src, words * sizeof(uint4));
	replay_note(l, r, 2, 0);
	return cudaSuccess;
}

/*
 * sm_copy_bidir_kernel(dst0, src0, dst1, src1, words): the split depends on
 * the grid (even warps copy 0, odd warps copy 1, each thread striding by half
 * the grid), so the twin walks the grid's threads as the kernel does; with
 * the launcher's 256-thread blocks that is two whole copies.
 */
static cudaError_t sm_copy_bidir(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	uint4 *dst[2] = { *(uint4 **)l->args[0], *(uint4 **)l->args[2] };
	const uint4 *src[2] = { *(const uint4 **)l->args[1], *(const uint4 **)l->args[3] };
	size_t words = *(size_t *)l->args[4], bytes = words * sizeof(uint4);
	size_t threads = (size_t)l->grid.x * l->block.x, half = threads / 2;
	const struct range r[] = { { dst[0], bytes, true },
				   { src[0], bytes, false },
				   { dst[1], bytes, true },
				   { src[1], bytes, false } };
	static const char *const what[] = {
		"sm_copy_bidir_kernel arg dst0", "sm_copy_bidir_kernel arg src0",
		"sm_copy_bidir_kernel arg dst1", "sm_copy_bidir_kernel arg src1"
	};
	cudaError_t e = claim(l, cost, r, 4, what);

	if (e != cudaSuccess)
		return e;
	if (words && half == 0) {
		/* one thread strides by zero: the kernel would never end */
		gbsim_log("sm_copy_bidir_kernel launched with %zu thread(s) never ends", threads);
		return cudaErrorLaunchTimeout;
	}
	if (threads % 64 == 0) {
		/*
		 * Whole pairs of warps: warp pair p's even warp starts at p*32 and
		 * its lanes cover [p*32, p*32+32), so the starts tile [0, half)
		 * and, striding by half, each way's copy is whole. Copy in memory
		 * order: walking the threads' strides (below) thrashes the cache
		 * and made the bidirectional sweep take seconds per size.
		 */
		if (replay_hit(l, r, 4, 0))
			return cudaSuccess;
		memmove(dst[0], src[0], bytes);
		memmove(dst[1], src[1], bytes);
		replay_note(l, r, 4, 0);
		return cudaSuccess;
	}
	for (int i = 0; i < 4; i++)
		gbsim_mem_flush(r[i].p, r[i].bytes);
	for (size_t gtid = 0; gtid < threads; gtid++) {
		size_t warp = gtid >> 5, lane = gtid & 31;
		int way = (int)(warp & 1);

		for (size_t i = (warp >> 1) * 32 + lane; i < words; i += half)
			dst[way][i] = src[way][i];
	}
	gbsim_mem_wrote(dst[0], bytes);
	gbsim_mem_wrote(dst[1], bytes);
	return cudaSuccess;
}

/* ---------------------------------------------------------------- STREAM */

/* fill_double_kernel(double2 *buf, size_t n2, uint64_t seed) */
static cudaError_t fill_double(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	double2 *buf = *(double2 **)l->args[0];
	size_t n2 = *(size_t *)l->args[1];
	uint64_t seed = *(uint64_t *)l->args[2];
	const struct range r[] = { { buf, n2 * sizeof(double2), true } };
	static const char *const what[] = { "fill_double_kernel arg buf" };
	cudaError_t e = claim(l, cost, r, 1, what);

	if (e != cudaSuccess)
		return e;
	for (size_t i = 0; i < n2; i++) {
		buf[i].x = gb_copy_pattern_double(seed, 2 * (uint64_t)i);
		buf[i].y = gb_copy_pattern_double(seed, 2 * (uint64_t)i + 1);
	}
	return cudaSuccess;
}

/* stream_kernel<OP>(double2 *dst, const double2 *x, const double2 *y, double q, size_t n2) */
static cudaError_t stream_op(const struct gbsim_launch *l, struct gbsim_cost *cost, int op)
{
	double2 *dst = *(double2 **)l->args[0];
	const double2 *x = *(const double2 **)l->args[1];
	const double2 *y = *(const double2 **)l->args[2];
	double q = *(double *)l->args[3];
	size_t n2 = *(size_t *)l->args[4], bytes = n2 * sizeof(double2);
	bool reads_y = op == GB_STREAM_ADD || op == GB_STREAM_TRIAD;
	const struct range r[] = { { dst, bytes, true },
				   { x, bytes, false },
				   { y, reads_y ? bytes : 0, false } };
	static const char *const what[] = { "stream_kernel arg dst", "stream_kernel arg x",
					    "stream_kernel arg y" };
	cudaError_t e = claim(l, cost, r, 3, what);

	if (e != cudaSuccess)
		return e;
	/* FP64 operations per element: scale and add 1, triad 2 (an FMA) */
	cost->flops = 2.0 * (double)n2 * (op == GB_STREAM_COPY ? 0 : op == GB_STREAM_TRIAD ? 2 : 1);
	cost->prec = GBSIM_FP64;
	if (replay_hit(l, r, 3, q))
		return cudaSuccess;
	for (size_t i = 0; i < n2; i++) {
		double2 a = x[i], b = { 0, 0 };

		if (reads_y)
			b = y[i];
		dst[i].x = gb_stream_value(op, a.x, b.x, q);
		dst[i].y = gb_stream_value(op, a.y, b.y, q);
	}
	replay_note(l, r, 3, q);
	return cudaSuccess;
}

static cudaError_t stream_copy(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	return stream_op(l, cost, GB_STREAM_COPY);
}

static cudaError_t stream_scale(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	return stream_op(l, cost, GB_STREAM_SCALE);
}

static cudaError_t stream_add(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	return stream_op(l, cost, GB_STREAM_ADD);
}

static cudaError_t stream_triad(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	return stream_op(l, cost, GB_STREAM_TRIAD);
}

static uint64_t bits_of(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

/*
 * stream_verify_kernel(int op, const double2 *dst, uint64_t seed_x, uint64_t seed_y,
 *                      double q, size_t n2, unsigned long long *mismatches)
 */
static cudaError_t stream_verify(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	int op = *(int *)l->args[0];
	const double2 *dst = *(const double2 **)l->args[1];
	uint64_t seed_x = *(uint64_t *)l->args[2], seed_y = *(uint64_t *)l->args[3];
	double q = *(double *)l->args[4];
	size_t n2 = *(size_t *)l->args[5];
	unsigned long long *mismatches = *(unsigned long long **)l->args[6];
	const struct range r[] = { { dst, n2 * sizeof(double2), false },
				   { mismatches, sizeof(*mismatches), true } };
	static const char *const what[] = { "stream_verify_kernel arg dst",
					    "stream_verify_kernel arg mismatches" };
	unsigned long long bad = 0;
	cudaError_t e = claim(l, cost, r, 2, what);

	if (e != cudaSuccess)
		return e;
	for (uint64_t i = 0; i < n2; i++) {
		double e0 = gb_stream_value(op, gb_copy_pattern_double(seed_x, 2 * i),
					    gb_copy_pattern_double(seed_y, 2 * i), q);
		double e1 = gb_stream_value(op, gb_copy_pattern_double(seed_x, 2 * i + 1),
					    gb_copy_pattern_double(seed_y, 2 * i + 1), q);

		/* bits, as the kernel compares: NaN never passes, -0 is not +0 */
		bad += bits_of(dst[i].x) != bits_of(e0) || bits_of(dst[i].y) != bits_of(e1);
	}
	*mismatches += bad;
	return cudaSuccess;
}

/* ---------------------------------------------------------------- pointer chase */

/* chase_init_kernel(char *buf, size_t nodes, size_t stride): node i points at node i + 1 */
static cudaError_t chase_init(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	char *buf = *(char **)l->args[0];
	size_t nodes = *(size_t *)l->args[1], stride = *(size_t *)l->args[2];
	/* the kernel writes 8 bytes at the start of each node; each write is a 32-byte sector */
	const struct range r[] = { { buf, nodes ? (nodes - 1) * stride + 8 : 0, true } };
	static const char *const what[] = { "chase_init_kernel arg buf" };
	cudaError_t e = check_all(l, r, 1, what);

	if (e != cudaSuccess)
		return e;
	cost->bytes = 32.0 * (double)nodes;
	for (size_t i = 0; i < nodes; i++) {
		size_t next = i + 1 == nodes ? 0 : i + 1;
		unsigned long long addr = (unsigned long long)(uintptr_t)(buf + next * stride);

		memcpy(buf + i * stride, &addr, sizeof(addr));
	}
	return cudaSuccess;
}

/*
 * Seconds per dependent load: the product's ring (2 MiB) fits in L2, so a
 * local chase is an L2 hit (about 0.25 us); a peer's memory adds the link's
 * round trip (0.7 us over NVLink, 1.0 us over PCIe, as published P2P
 * latency figures suggest); pinned host memory is a PCIe round trip too.
 */
static double chase_step_s(const struct gbsim_launch *l, const void *ring)
{
	const struct gbsim_machine *m = gbsim_machine();
	int dev = -1;
	enum gbsim_mem_kind kind = gbsim_mem_kind(ring, sizeof(unsigned long long), &dev);

	if (is_local(l, kind, dev))
		return 0.25e-6;
	if (kind == GBSIM_MEM_DEVICE && dev >= 0 && m->nvlinks[l->device][dev] > 0)
		return 0.7e-6;
	return 1.0e-6;
}

/* chase_kernel(const unsigned long long *start, unsigned long long steps,
 *              unsigned long long *sink) */
static cudaError_t chase(const struct gbsim_launch *l, struct gbsim_cost *cost)
{
	const unsigned long long *p = *(const unsigned long long **)l->args[0];
	unsigned long long steps = *(unsigned long long *)l->args[1];
	unsigned long long *sink = *(unsigned long long **)l->args[2];
	cudaError_t e = gbsim_check_access(l->device, sink, sizeof(*sink), "chase_kernel arg sink");

	if (e != cudaSuccess)
		return e;
	if (steps)
		cost->fixed_s = (double)steps * chase_step_s(l, p);
	for (unsigned long long s = 0; s < steps; s++) {
		/* every load is checked: a ring built wrong walks out of its allocation */
		e = gbsim_check_access(l->device, p, sizeof(*p), "chase_kernel load");
		if (e != cudaSuccess)
			return e;
		p = (const unsigned long long *)(uintptr_t)__atomic_load_n(p, __ATOMIC_RELAXED);
	}
	*sink = (unsigned long long)(uintptr_t)p;
	return cudaSuccess;
}

const struct gbsim_twin gbsim_twins_copy[] = {
	{ "spin_kernel(int const volatile*, int*, unsigned long long)", spin, false },
	{ "fill_kernel(uint4*, unsigned long, unsigned long)", fill, false },
	{ "verify_kernel(uint4 const*, unsigned long, unsigned long, unsigned long long*)",
	  verify, false },
	{ "sm_copy_kernel(uint4*, uint4 const*, unsigned long)", sm_copy, true },
	{ "sm_copy_bidir_kernel(uint4*, uint4 const*, uint4*, uint4 const*, unsigned long)",
	  sm_copy_bidir, true },
	{ "fill_double_kernel(double2*, unsigned long, unsigned long)", fill_double, false },
	{ "void stream_kernel<0>(double2*, double2 const*, double2 const*, double, unsigned long)",
	  stream_copy, true },
	{ "void stream_kernel<1>(double2*, double2 const*, double2 const*, double, unsigned long)",
	  stream_scale, true },
	{ "void stream_kernel<2>(double2*, double2 const*, double2 const*, double, unsigned long)",
	  stream_add, true },
	{ "void stream_kernel<3>(double2*, double2 const*, double2 const*, double, unsigned long)",
	  stream_triad, true },
	{ "stream_verify_kernel(int, double2 const*, unsigned long, unsigned long, double, "
	  "unsigned long, unsigned long long*)",
	  stream_verify, false },
	{ "chase_init_kernel(char*, unsigned long, unsigned long)", chase_init, false },
	{ "chase_kernel(unsigned long long const*, unsigned long long, unsigned long long*)",
	  chase, false },
	{ NULL, NULL, false },
};
