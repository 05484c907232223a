/* SPDX-License-Identifier: MIT */
/*
 * kexec_wgmma.cc - kernels/ptx.cuh's sm_90a wrappers (kernels/wgmma.cu's
 * mbarrier, TMA, wgmma and setmaxnreg) emulated from the PTX ISA for the
 * executor. Where an element lands or is read, the models are
 * kernels/wgmma_layout.h's hardware side (gb_wgmma_tma_smem_addr,
 * gb_wgmma_hw_desc_addr, gb_wgmma_hw_acc), the ones tests/kernels/test_wgmma_layout.c
 * checks the data path against: one model of the documents, not two.
 *
 * Timing: the asynchronous operations complete as late as the ISA allows,
 * so that a kernel which reads too early or hands a buffer back too early
 * sees stale data and racecheck names it:
 *   cp.async.bulk.tensor  lands when a thread waits on its mbarrier and the
 *                         phase lacks nothing else (its arrivals are done);
 *                         from issue to landing its bytes are marked
 *                         pending (a read of them is a RAW hazard)
 *   wgmma.mma_async       computes at the wgmma.wait_group that completes
 *                         its group; from issue to then its operand bytes
 *                         are marked read (a write to them, by a thread or
 *                         a TMA issued meanwhile, is a WAR hazard)
 * An mbarrier wait whose phase never completes leaves its thread waiting;
 * when no thread of the block can move, the scheduler reports the hang.
 */
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda.h>

#include "kernels/wgmma_layout.h"
#include "tests/kexec/kexec_internal.h"
#include "tests/kexec/ptx_host.h"

using namespace gb_kx;

namespace {

constexpr unsigned kWarp = 32;

/* ---- mbarrier ---- */

/*
 * The 64-bit mbarrier object (its encoding is opaque in the ISA; this one
 * keeps the state the ISA names in the object itself): pending arrival
 * count (bits 0-19), expected arrival count (20-39), tx-count (40-62),
 * current phase parity (63). The ISA bounds both counts and the tx-count
 * by 2^20 - 1. Shared memory starts as 0xff bytes (kexec_check.cc), which
 * no initialised object can be.
 */
struct mbar {
	uint32_t pending, expected, tx;
	unsigned phase;
};
constexpr uint32_t kCountMax = (1u << 20) - 1;
constexpr uint64_t kUninitialised = ~0ull;

uint64_t *mbar_at(uint32_t bar)
{
	uint64_t *p = static_cast<uint64_t *>(gb_kx_shared_ptr(bar));

	if (bar % 8 || !in_shared(p, 8)) {
		report_memcheck("__shared__", p, 8, access::atomic);
		abort_grid(bar % 8 ? cudaErrorMisalignedAddress : cudaErrorIllegalAddress);
	}
	return p;
}

mbar mbar_load(const uint64_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return { (uint32_t)(v & kCountMax), (uint32_t)(v >> 20 & kCountMax),
		 (uint32_t)(v >> 40 & 0x7fffff), (unsigned)(v >> 63) };
}

void mbar_store(uint64_t *p, const mbar &m)
{
	const uint64_t v = (uint64_t)m.pending | (uint64_t)m.expected << 20 | (uint64_t)m.tx << 40 |
			   (uint64_t)m.phase << 63;

	memcpy(p, &v, 8);
}

/* an initialised mbarrier of the running thread's block, checked as that thread's access */
uint64_t *mbar_checked(uint32_t bar, const char *op)
{
	uint64_t *p = mbar_at(bar);
	uint64_t v;

	check_access(p, 8, access::async_write);
	memcpy(&v, p, 8);
	if (v == kUninitialised) {
		report_sync("========= Error: %s on the mbarrier at __shared__ 0x%x before its "
			    "mbarrier.init, by thread (%u,%u,%u) in block (%u,%u,%u) of %s",
			    op, bar, cur->tid.x, cur->tid.y, cur->tid.z, blk.idx.x, blk.idx.y,
			    blk.idx.z, run->kernel);
		abort_grid(cudaErrorLaunchFailure);
	}
	return p;
}

/*
 * PTX ISA "Phase Completion of the mbarrier object": the current phase
 * completes when the pending arrival count and the tx-count are both zero;
 * the object then moves to the next phase, the pending count reset to the
 * expected count.
 */
void mbar_maybe_complete(mbar &m)
{
	if (m.pending == 0 && m.tx == 0) {
		m.phase ^= 1;
		m.pending = m.expected;
	}
}

[[noreturn]] void mbar_misuse(uint32_t bar, const char *what)
{
	report_sync("========= Error: mbarrier at __shared__ 0x%x: %s, in block (%u,%u,%u) of %s",
		    bar, what, blk.idx.x, blk.idx.y, blk.idx.z, run->kernel);
	abort_grid(cudaErrorLaunchFailure);
}

/* ---- TMA: cp.async.bulk.tensor.2d, tile mode, 128-byte swizzle ---- */

struct tma_copy {
	uint32_t dst, bar, bytes;
	tensor_map map;
	int64_t c0, c1;
};

std::vector<tma_copy> copies;  /* issued, not landed, in issue order */

unsigned char *copy_dst(const tma_copy &c)
{
	return static_cast<unsigned char *>(gb_kx_shared_ptr(c.dst));
}

/*
 * The copy lands: box element (r, e) is global element (c1 + r, c0 + e),
 * or zero when that is outside the tensor's dims (CU_TENSOR_MAP_FLOAT_OOB_
 * FILL_NONE fills zeros), written where the 128-byte swizzle puts it
 * (gb_wgmma_tma_smem_addr: the CUDA C++ Programming Guide's index
 * relation). Then complete_tx on its mbarrier with the whole box's bytes,
 * zero-filled parts included (PTX ISA: the tx-count is decremented by the
 * bytes the copy writes to shared memory).
 */
void land(const tma_copy &c)
{
	const tensor_map &m = c.map;

	for (unsigned r = 0; r < m.box[1]; r++)
		for (unsigned e = 0; e < m.box[0]; e++) {
			const int64_t row = c.c1 + r, col = c.c0 + e;
			uint16_t v = 0;

			if (row >= 0 && (uint64_t)row < m.dims[1] && col >= 0 &&
			    (uint64_t)col < m.dims[0])
				memcpy(&v, m.base + (uint64_t)row * m.strides[0] + (uint64_t)col * 2, 2);
			memcpy(gb_kx_shared_ptr(gb_wgmma_tma_smem_addr(c.dst, r, e)), &v, 2);
		}
	note_async_pending(copy_dst(c), c.bytes, -1);

	uint64_t *p = mbar_at(c.bar);
	mbar mb = mbar_load(p);

	if (c.bytes > mb.tx)
		mbar_misuse(c.bar, "a TMA's complete_tx exceeds the bytes its phase expects "
				   "(arrive.expect_tx asked for fewer than the boxes bring)");
	mb.tx -= c.bytes;
	mbar_maybe_complete(mb);
	mbar_store(p, mb);
}

/*
 * mbarrier.test_wait.parity semantics: "phaseParity ... the parity of the
 * current phase or the immediately preceding phase": true when the phase of
 * that parity has completed, that is when the current phase's parity
 * differs. Copies still in flight on the barrier land first if nothing but
 * their bytes is missing (the latest moment they can).
 */
bool phase_done(uint32_t bar, uint32_t parity)
{
	mbar m = mbar_load(mbar_at(bar));

	if (m.phase != (parity & 1))
		return true;
	if (m.pending != 0)
		return false;
	for (size_t i = 0; i < copies.size();) {
		if (copies[i].bar == bar) {
			const tma_copy c = copies[i];

			copies.erase(copies.begin() + (long)i);
			land(c);
		} else {
			i++;
		}
	}
	return mbar_load(mbar_at(bar)).phase != (parity & 1);
}

bool wait_ready(thread &t)
{
	return phase_done(t.wait_bar, t.wait_parity);
}

/* ---- wgmma ---- */

struct mma_op {
	float *d[kWarp];  /* each lane's 128 accumulators */
	uint64_t da, db;
	uint32_t high_a, high_b;  /* the start addresses' bits above the descriptor's 18 */
	bool bf16;
};

/*
 * A descriptor keeps bits 4-17 of its start address: on the GPU a block's
 * whole shared window (at most 228 KiB) lies below 2^18, so nothing is
 * lost. The executor's window is the executable's TLS block, which holds
 * every kernel's shared arrays and can be larger; the bits above 17 are
 * those that put the start inside the launch's dynamic shared array (where
 * wgmma.cu's operands live), the first such address at or after its base.
 */
uint32_t start_high_bits(uint64_t desc)
{
	const uint32_t start = (uint32_t)(desc & 0x3FFF) << 4;
	const uint32_t base = run->dyn_array ? gb_kx_shared_addr(run->dyn_array) : 0;

	return base + ((start - base) & 0x3FFFFu) - start;
}

/* one warp's wgmma state (.sync is per warp; the four warps of a warpgroup keep the same) */
struct warp_mma {
	std::vector<mma_op> open;
	std::vector<std::vector<mma_op>> committed;
	bool fenced = false;
};

std::vector<warp_mma> warps;

warp_mma &warp_of(const thread &t)
{
	if (warps.size() <= t.warp)
		warps.resize(t.warp + 1);
	return warps[t.warp];
}

/*
 * Every operand element (row, k) the warp's part of an m64n256k16 reads:
 * A rows 16 q .. 16 q + 15 for warp q (0..3) of its warpgroup (the rows of
 * its accumulators, gb_wgmma_hw_acc), all 256 rows of B, k 0..15; fn(ptr)
 * for each.
 */
template <typename F> void for_each_operand(const mma_op &op, unsigned q, F fn)
{
	int valid;

	for (unsigned r = 0; r < 16; r++)
		for (unsigned k = 0; k < 16; k++)
			fn(0u, r, k,
			   gb_kx_shared_ptr(op.high_a +
					    gb_wgmma_hw_desc_addr(op.da, 16 * q + r, k, &valid)));
	for (unsigned c = 0; c < 256; c++)
		for (unsigned k = 0; k < 16; k++)
			fn(1u, c, k,
			   gb_kx_shared_ptr(op.high_b + gb_wgmma_hw_desc_addr(op.db, c, k, &valid)));
}

/*
 * D = A B^T + D (scale-d 1, no negation, both operands K-major from shared
 * memory through their descriptors), the warp's 16 rows: lane l of warp q
 * holds thread 32 q + l's accumulators (gb_wgmma_hw_acc). The products of
 * 16-bit values are exact; each accumulator's k16 sum is taken in double
 * and rounded once to FP32, within what the hardware's FP32 accumulation
 * may differ by.
 */
void mma_execute(const mma_op &op, unsigned q)
{
	static float a[16][16], b[256][16];

	for_each_operand(op, q, [&](unsigned which, unsigned row, unsigned k, void *p) {
		uint16_t h;

		memcpy(&h, p, 2);
		note_async_reads(p, 2, -1);
		(which ? b[row][k] : a[row][k]) = half_bits_to_float(h, op.bf16);
	});
	for (unsigned l = 0; l < kWarp; l++)
		for (unsigned i = 0; i < 128; i++) {
			unsigned row, col;
			double sum = op.d[l][i];

			gb_wgmma_hw_acc(32 * q + l, i, &row, &col);
			for (unsigned k = 0; k < 16; k++)
				sum += (double)a[row - 16 * q][k] * b[col][k];
			op.d[l][i] = (float)sum;
		}
}

struct mma_operands {
	float *d;
	uint64_t da, db;
	bool bf16;
};

[[noreturn]] void wgmma_misuse(thread *const lanes[kWarp], const char *what)
{
	report_sync("========= Error: %s, warp %u in block (%u,%u,%u) of %s", what, lanes[0]->warp,
		    blk.idx.x, blk.idx.y, blk.idx.z, run->kernel);
	abort_grid(cudaErrorLaunchFailure);
}

/*
 * wgmma.mma_async.sync.aligned.m64n256k16.f32.{bf16,f16}: checked and
 * queued in the warp's open group. "The mandatory .aligned qualifier
 * indicates that all threads in the warpgroup must execute the same
 * wgmma.mma_async": the descriptors must agree across the lanes. A
 * wgmma.fence must come first ("before the first wgmma.mma_async" and after
 * register accesses: the emulation asks for one after each wait_group).
 * The descriptors must be well formed and every byte they name inside the
 * shared window (memcheck), and none of them may still be waiting for a
 * TMA (racecheck: RAW).
 */
void mma_issue(thread *const lanes[kWarp])
{
	const mma_operands &o0 = *static_cast<mma_operands *>((void *)lanes[0]->in);
	warp_mma &w = warp_of(*lanes[0]);
	const unsigned q = lanes[0]->warp % 4;
	mma_op op;
	int valid_a, valid_b;

	op.da = o0.da;
	op.db = o0.db;
	op.high_a = start_high_bits(op.da);
	op.high_b = start_high_bits(op.db);
	op.bf16 = o0.bf16;
	for (unsigned l = 0; l < kWarp; l++) {
		const mma_operands &o = *static_cast<mma_operands *>((void *)lanes[l]->in);

		if (o.da != op.da || o.db != op.db)
			wgmma_misuse(lanes, "wgmma.mma_async: the lanes' descriptors differ (.aligned)");
		op.d[l] = o.d;
	}
	if (!w.fenced)
		wgmma_misuse(lanes, "wgmma.mma_async without a wgmma.fence since the last wait_group");
	gb_wgmma_hw_desc_addr(op.da, 0, 0, &valid_a);
	gb_wgmma_hw_desc_addr(op.db, 0, 0, &valid_b);
	if (!valid_a || !valid_b)
		wgmma_misuse(lanes, "wgmma.mma_async: a matrix descriptor breaks the PTX ISA's "
				    "\"Matrix Descriptor Format\"");
	run_as(lanes[0]);
	for_each_operand(op, q, [&](unsigned, unsigned, unsigned, void *p) {
		if (!in_shared(p, 2)) {
			report_memcheck("__shared__", p, 2, access::async_read);
			abort_grid(cudaErrorIllegalAddress);
		}
		check_access(p, 2, access::async_read);
	});
	for_each_operand(op, q, [&](unsigned, unsigned, unsigned, void *p) {
		note_async_reads(p, 2, +1);
	});
	w.open.push_back(op);
}

void mma(float (&d)[128], uint64_t da, uint64_t db, bool bf16)
{
	mma_operands o = { d, da, db, bf16 };

	warp_instruction(&o, mma_issue);
}

void fence_emulate(thread *const lanes[kWarp])
{
	warp_of(*lanes[0]).fenced = true;
}

/* "wgmma.commit_group: commits all prior uncommitted wgmma.mma_async operations" (even none) */
void commit_emulate(thread *const lanes[kWarp])
{
	warp_mma &w = warp_of(*lanes[0]);

	w.committed.push_back(std::move(w.open));
	w.open.clear();
}

/*
 * wgmma.wait_group N: "wait until N or fewer of the most recent
 * wgmma-groups are pending and all the prior wgmma-groups committed by the
 * executing threads are complete". The completed groups compute now, in
 * order; the accumulators may then be accessed, so the next mma_async needs
 * a fence again.
 */
void wait_emulate(thread *const lanes[kWarp])
{
	warp_mma &w = warp_of(*lanes[0]);
	const int pending = *static_cast<int *>((void *)lanes[0]->in);
	const unsigned q = lanes[0]->warp % 4;

	run_as(lanes[0]);
	while (w.committed.size() > (size_t)pending) {
		for (const mma_op &op : w.committed.front())
			mma_execute(op, q);
		w.committed.erase(w.committed.begin());
	}
	w.fenced = false;
}

/* setmaxnreg.{inc,dec}.sync.aligned.u32: "imm-reg-count ... in the range 24 to 256 ... multiple of 8" */
void setmaxnreg_emulate(thread *const lanes[kWarp])
{
	const int regs = *static_cast<int *>((void *)lanes[0]->in);

	if (regs < 24 || regs > 256 || regs % 8)
		wgmma_misuse(lanes, "setmaxnreg: a register count outside 24..256 or not a multiple "
				    "of 8");
}

/* a warp-wide instruction with one integer operand (an immediate: lane 0's is the warp's) */
void warp_op(void (*emulate)(thread *const lanes[kWarp]), int operand)
{
	warp_instruction(&operand, emulate);
}

}  // namespace

namespace gb_kx {

void wgmma_block_start()
{
	for (const tma_copy &c : copies)
		note_async_pending(copy_dst(c), c.bytes, -1);
	copies.clear();
	for (size_t wi = 0; wi < warps.size(); wi++) {
		auto unmark = [&](const mma_op &op) {
			for_each_operand(op, wi % 4, [](unsigned, unsigned, unsigned, void *p) {
				note_async_reads(p, 2, -1);
			});
		};
		for (const mma_op &op : warps[wi].open)
			unmark(op);
		for (const auto &g : warps[wi].committed)
			for (const mma_op &op : g)
				unmark(op);
	}
	warps.clear();
}

}  // namespace gb_kx

/* mbarrier.init.shared::cta.b64 [bar], count: phase 0, pending = expected = count, tx 0 */
void gb_ptx_mbarrier_init(uint32_t bar, uint32_t count)
{
	uint64_t *p = mbar_at(bar);

	check_access(p, 8, access::async_write);
	if (count < 1 || count > kCountMax)
		mbar_misuse(bar, "mbarrier.init with a count outside 1 .. 2^20 - 1");
	mbar_store(p, { count, count, 0, 0 });
}

/* fence.mbarrier_init.release.cluster: orders the inits before the async proxy's use; nothing to do */
void gb_ptx_fence_mbarrier_init() {}

void gb_ptx_mbarrier_arrive(uint32_t bar)
{
	uint64_t *p = mbar_checked(bar, "mbarrier.arrive");
	mbar m = mbar_load(p);

	if (m.pending == 0)
		mbar_misuse(bar, "an arrival beyond the phase's expected count");
	m.pending--;
	mbar_maybe_complete(m);
	mbar_store(p, m);
}

/* expect-tx(bytes) (the tx-count grows by bytes), then an arrive-on */
void gb_ptx_mbarrier_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
	uint64_t *p = mbar_checked(bar, "mbarrier.arrive.expect_tx");
	mbar m = mbar_load(p);

	if ((uint64_t)m.tx + bytes > kCountMax)
		mbar_misuse(bar, "the tx-count passes 2^20 - 1");
	m.tx += bytes;
	mbar_store(p, m);
	gb_ptx_mbarrier_arrive(bar);
}

/*
 * mbarrier.try_wait.parity: "a potentially blocking instruction ... If the
 * phase is not complete, the executing thread may be suspended" until it
 * completes (or a system-dependent time limit). The emulation suspends the
 * thread until the phase completes, so it always returns true; a phase
 * that never completes is the scheduler's hang.
 */
bool gb_ptx_mbarrier_try_wait_parity(uint32_t bar, uint32_t parity)
{
	mbar_checked(bar, "mbarrier.try_wait.parity");
	if (!phase_done(bar, parity))
		block_until(wait_ready, bar, parity);
	return true;
}

/*
 * cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
 * [dst], [map, {c0, c1}], [bar]: the box of the tensor map at coordinates
 * (c0, c1) (c0 innermost, signed: out-of-range parts read as zero) into
 * shared memory at dst, completing on bar. Emulated for what the kernels
 * use: 2-D maps of 16-bit elements with the 128-byte swizzle and 128-byte
 * box rows, element strides 1; the destination 128-byte aligned (the
 * guide's requirement for the swizzle modes). The source rows the box
 * reads are checked as the issuing thread's global reads, the destination
 * as the async proxy's write (a stage some uncompleted wgmma still reads is
 * a WAR hazard); the copy then lands later (phase_done).
 */
void gb_ptx_tma_load_2d(uint32_t dst, const void *map, uint32_t bar, int c0, int c1)
{
	tma_copy c;

	check_access(map, sizeof(CUtensorMap), access::read);
	memcpy(&c.map, map, sizeof c.map);
	if (c.map.magic != kTensorMapMagic) {
		report_sync("========= Error: cp.async.bulk.tensor with an operand that is not a tensor "
			    "map from cuTensorMapEncodeTiled, in block (%u,%u,%u) of %s",
			    blk.idx.x, blk.idx.y, blk.idx.z, run->kernel);
		abort_grid(cudaErrorLaunchFailure);
	}
	if (c.map.rank != 2 || c.map.elem_bytes != 2 || c.map.swizzle != CU_TENSOR_MAP_SWIZZLE_128B ||
	    c.map.box[0] * 2 != GB_WGMMA_SWIZZLE_BYTES || c.map.elem_strides[0] != 1 ||
	    c.map.elem_strides[1] != 1) {
		report_sync("========= Error: cp.async.bulk.tensor: the executor emulates 2-D maps of "
			    "16-bit elements, 128-byte swizzle, 128-byte box rows only (%s)",
			    run->kernel);
		abort_grid(cudaErrorNotSupported);
	}
	mbar_checked(bar, "cp.async.bulk.tensor's complete_tx");
	c.dst = dst;
	c.bar = bar;
	c.c0 = c0;
	c.c1 = c1;
	c.bytes = (uint32_t)c.map.box[0] * c.map.box[1] * 2;
	if (dst % 128 || !in_shared(copy_dst(c), c.bytes)) {
		report_memcheck("__shared__", copy_dst(c), c.bytes, access::async_write);
		abort_grid(dst % 128 ? cudaErrorMisalignedAddress : cudaErrorIllegalAddress);
	}
	check_access(copy_dst(c), c.bytes, access::async_write);
	for (unsigned r = 0; r < c.map.box[1]; r++) {
		const int64_t row = c.c1 + r;
		const int64_t lo = c.c0 < 0 ? 0 : c.c0;
		const int64_t hi = c.c0 + c.map.box[0] < (int64_t)c.map.dims[0]
					   ? c.c0 + c.map.box[0]
					   : (int64_t)c.map.dims[0];

		if (row < 0 || (uint64_t)row >= c.map.dims[1] || hi <= lo)
			continue;
		check_access(c.map.base + (uint64_t)row * c.map.strides[0] + (uint64_t)lo * 2,
			     (size_t)(hi - lo) * 2, access::read);
	}
	note_async_pending(copy_dst(c), c.bytes, +1);
	copies.push_back(c);
}

void gb_ptx_wgmma_fence()
{
	warp_instruction(nullptr, fence_emulate);
}

void gb_ptx_wgmma_commit_group()
{
	warp_instruction(nullptr, commit_emulate);
}

void gb_kx_wgmma_wait_group(int pending)
{
	warp_op(wait_emulate, pending);
}

void gb_kx_setmaxnreg(bool, int regs)
{
	warp_op(setmaxnreg_emulate, regs);
}

void gb_ptx_wgmma_m64n256k16_bf16(float (&d)[128], uint64_t da, uint64_t db)
{
	mma(d, da, db, true);
}

void gb_ptx_wgmma_m64n256k16_f16(float (&d)[128], uint64_t da, uint64_t db)
{
	mma(d, da, db, false);
}
