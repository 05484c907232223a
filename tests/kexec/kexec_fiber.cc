/* SPDX-License-Identifier: MIT */
/*
 * kexec_fiber.cc - the block scheduler: each CUDA thread of a block is a
 * fiber (ucontext) with its own stack; the scheduler runs every runnable
 * fiber in turn until it blocks (a barrier, a warp collective) or exits, and
 * releases a barrier when every live thread it waits for has arrived. Blocks
 * run one after the other, so a block's __shared__ variables (thread_local
 * in the host build) are its own while it runs.
 *
 * Cooperative fibers rather than OS threads: a run is deterministic, a
 * barrier costs a context switch instead of a futex, and "every thread
 * blocked, none can proceed" is a hang the scheduler can name.
 */
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "tests/kexec/kexec_internal.h"

namespace gb_kx {

thread *cur;
block blk;
launch *run;

namespace {

/* a thread's stack: the kernels keep accumulators and fragments there */
constexpr size_t kStackBytes = 256 * 1024;
constexpr size_t kGuardBytes = 4096;
constexpr unsigned kWarp = 32;

ucontext_t sched_ctx;
std::vector<thread> pool;       /* reused from block to block: the stacks are costly */
void (*entry_fn)(void *);
void *entry_ctx;
uint32_t next_epoch = 1;
unsigned long n_launches;

void alloc_stack(thread &t)
{
	void *p = mmap(nullptr, kStackBytes + kGuardBytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		perror("kexec: cannot map a fiber stack");
		abort();
	}
	/* the stack grows down into the guard page: an overflow faults at once */
	mprotect(p, kGuardBytes, PROT_NONE);
	t.stack = (unsigned char *)p + kGuardBytes;
	t.stack_bytes = kStackBytes;
}

void fiber_main()
{
	entry_fn(entry_ctx);
	async_thread_exit(*cur);
	cur->st = state::exited;
	blk.live--;
	/* uc_link returns to the scheduler */
}

void switch_to_scheduler()
{
	thread *me = cur;

	cur = nullptr;
	swapcontext(&me->ctx, &sched_ctx);
	cur = me;
}

uint3 thread_index(unsigned linear, dim3 b)
{
	return make_uint3(linear % b.x, linear / b.x % b.y, linear / (b.x * b.y));
}

/* every live thread at __syncthreads: the barrier opens */
bool release_block_barrier()
{
	std::vector<thread> &ts = *blk.threads;
	unsigned waiting = 0;

	for (thread &t : ts)
		waiting += t.st == state::at_barrier;
	if (waiting == 0 || waiting != blk.live)
		return false;
	for (thread &t : ts)
		if (t.st == state::at_barrier)
			t.st = state::runnable;
	blk.epoch = next_epoch++;
	return true;
}

void report_deadlock()
{
	std::vector<thread> &ts = *blk.threads;
	unsigned barrier = 0, warp = 0, mbar = 0;

	for (thread &t : ts) {
		barrier += t.st == state::at_barrier;
		warp += t.st == state::at_warp;
		mbar += t.st == state::waiting;
	}
	report_sync("========= Error: the block hangs: %u live thread(s), %u at __syncthreads, %u in "
		    "a warp collective whose lanes never all arrive, %u waiting on an mbarrier "
		    "phase that never completes, in block (%u,%u,%u) of %s",
		    blk.live, barrier, warp, mbar, blk.idx.x, blk.idx.y, blk.idx.z, run->kernel);
}

/* run one block to completion; false when the grid was stopped */
bool run_block(uint3 bidx, unsigned n)
{
	std::vector<thread> &ts = pool;

	blk.threads = &ts;
	blk.idx = bidx;
	blk.live = n;
	blk.epoch = next_epoch++;
	blk.warp_sync.assign((n + kWarp - 1) / kWarp, 0);
	block_start_shared();
	wgmma_block_start();
	for (unsigned i = 0; i < n; i++) {
		thread &t = ts[i];

		t.tid = thread_index(i, run->blk);
		t.linear = i;
		t.warp = i / kWarp;
		t.lane = i % kWarp;
		t.st = state::runnable;
		getcontext(&t.ctx);
		t.ctx.uc_stack.ss_sp = t.stack;
		t.ctx.uc_stack.ss_size = t.stack_bytes;
		t.ctx.uc_link = &sched_ctx;
		makecontext(&t.ctx, fiber_main, 0);
	}
	while (blk.live) {
		bool progress = false;

		for (unsigned i = 0; i < n && !run->aborted; i++) {
			if (ts[i].st == state::waiting && ts[i].ready(ts[i]))
				ts[i].st = state::runnable;
			if (ts[i].st != state::runnable)
				continue;
			cur = &ts[i];
			swapcontext(&sched_ctx, &ts[i].ctx);
			cur = nullptr;
			progress = true;
		}
		if (run->aborted)
			return false;
		progress |= release_block_barrier();
		if (!progress && blk.live) {
			report_deadlock();
			run->aborted = true;
			run->error = cudaErrorLaunchTimeout;
			return false;
		}
	}
	return true;
}

/* the result of collective `op` for lane `me` of the lanes in `ts` */
uint64_t collective_result(thread *const *lanes, const thread &me, unsigned width)
{
	const unsigned base = me.lane / width * width, off = me.lane % width;
	unsigned src = me.lane;
	uint64_t acc = 0;

	switch (me.op) {
	case GB_KX_SHFL_IDX:
		src = base + (unsigned)me.param % width;
		break;
	case GB_KX_SHFL_UP:
		src = off >= (unsigned)me.param ? me.lane - me.param : me.lane;
		break;
	case GB_KX_SHFL_DOWN:
		src = off + (unsigned)me.param < width ? me.lane + me.param : me.lane;
		break;
	case GB_KX_SHFL_XOR:
		src = (off ^ (unsigned)me.param) < width ? base + (off ^ (unsigned)me.param)
							   : me.lane;
		break;
	case GB_KX_BALLOT:
		for (unsigned l = 0; l < kWarp; l++)
			if (lanes[l] && lanes[l]->in)
				acc |= 1ull << l;
		return acc;
	case GB_KX_REDUCE_ADD:
		for (unsigned l = 0; l < kWarp; l++)
			if (lanes[l])
				acc = (uint32_t)(acc + lanes[l]->in);
		return acc;
	default:
		return 0;
	}
	/* reading a lane outside the mask is undefined; it gives the lane's own value here */
	return lanes[src] ? lanes[src]->in : me.in;
}

/* all lanes of the mask have arrived: compute every result and let them go */
void complete_collective(thread &me)
{
	std::vector<thread> &ts = *blk.threads;
	thread *lanes[kWarp] = {};
	const unsigned first = me.warp * kWarp;

	for (unsigned l = 0; l < kWarp; l++)
		if (me.mask >> l & 1)
			lanes[l] = &ts[first + l];
	if (me.op == GB_KX_INSTRUCTION) {
		thread *self = cur;

		me.custom(lanes);
		cur = self;
	} else {
		for (unsigned l = 0; l < kWarp; l++)
			if (lanes[l])
				lanes[l]->out =
					collective_result(lanes, *lanes[l], (unsigned)me.width);
	}
	for (unsigned l = 0; l < kWarp; l++)
		if (lanes[l])
			lanes[l]->st = state::runnable;
	blk.warp_sync[me.warp]++;
}

/* whether every lane of me's mask waits in the same collective; a finding when one cannot */
bool collective_ready(thread &me)
{
	std::vector<thread> &ts = *blk.threads;
	const unsigned first = me.warp * kWarp;

	for (unsigned l = 0; l < kWarp; l++) {
		if (!(me.mask >> l & 1))
			continue;
		if (first + l >= ts.size() || first + l >= run->blk.x * run->blk.y * run->blk.z ||
		    ts[first + l].st == state::exited) {
			report_sync("========= Error: warp collective with lane %u in its mask 0x%08x, "
				    "which has exited or does not exist, by thread (%u,%u,%u) in "
				    "block (%u,%u,%u) of %s",
				    l, me.mask, me.tid.x, me.tid.y, me.tid.z, blk.idx.x, blk.idx.y,
				    blk.idx.z, run->kernel);
			abort_grid(cudaErrorLaunchFailure);
		}
		const thread &o = ts[first + l];

		if (o.st != state::at_warp)
			return false;
		if (o.op != me.op || o.mask != me.mask ||
		    (me.op == GB_KX_INSTRUCTION && o.custom != me.custom)) {
			report_sync("========= Error: lanes %u and %u of warp %u meet in different warp "
				    "collectives (op %d mask 0x%08x, op %d mask 0x%08x) in block "
				    "(%u,%u,%u) of %s",
				    me.lane, l, me.warp, me.op, me.mask, o.op, o.mask, blk.idx.x,
				    blk.idx.y, blk.idx.z, run->kernel);
			abort_grid(cudaErrorLaunchFailure);
		}
	}
	return true;
}

}  // namespace

void run_as(thread *t)
{
	cur = t;
}

void warp_instruction(void *operands, void (*emulate)(thread *const lanes[32]))
{
	cur->custom = emulate;
	gb_kx_warp_collective(GB_KX_INSTRUCTION, 0xffffffffu, (uint64_t)(uintptr_t)operands, 0,
			      32);
}

void block_until(bool (*ready)(thread &), uint32_t bar, uint32_t parity)
{
	cur->ready = ready;
	cur->wait_bar = bar;
	cur->wait_parity = parity;
	cur->st = state::waiting;
	switch_to_scheduler();
}

[[noreturn]] void abort_grid(cudaError_t e)
{
	run->aborted = true;
	if (run->error == cudaSuccess)
		run->error = e;
	/* this fiber never runs again; its stack is reused by the next block */
	cur = nullptr;
	setcontext(&sched_ctx);
	abort();
}

}  // namespace gb_kx

using namespace gb_kx;

uint3 gb_kx_thread_idx() { return cur->tid; }
uint3 gb_kx_block_idx() { return blk.idx; }
dim3 gb_kx_block_dim() { return run->blk; }
dim3 gb_kx_grid_dim() { return run->grid; }

void gb_kx_syncthreads()
{
	cur->st = state::at_barrier;
	switch_to_scheduler();
}

uint64_t gb_kx_warp_collective(gb_kx_warp_op op, unsigned mask, uint64_t value, int param,
			       int width)
{
	thread &me = *cur;

	if (!(mask >> me.lane & 1)) {
		report_sync("========= Error: thread (%u,%u,%u) in block (%u,%u,%u) of %s runs a warp "
			    "collective whose mask 0x%08x leaves out its own lane %u",
			    me.tid.x, me.tid.y, me.tid.z, blk.idx.x, blk.idx.y, blk.idx.z,
			    run->kernel, mask, me.lane);
		abort_grid(cudaErrorLaunchFailure);
	}
	me.op = op;
	me.mask = mask;
	me.in = value;
	me.param = param;
	me.width = width <= 0 || width > 32 ? 32 : width;
	me.st = state::at_warp;
	if (collective_ready(me))
		complete_collective(me);
	else
		switch_to_scheduler();
	return me.out;
}

[[noreturn]] void gb_kx_trap()
{
	report_sync("========= Error: __trap() by thread (%u,%u,%u) in block (%u,%u,%u) of %s",
		    cur->tid.x, cur->tid.y, cur->tid.z, blk.idx.x, blk.idx.y, blk.idx.z,
		    run->kernel);
	abort_grid(cudaErrorLaunchFailure);
}

unsigned long long gb_kx_globaltimer()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* the limits cudaLaunchKernel enforces before anything runs */
static cudaError_t check_config(const void *func, dim3 grid, dim3 b, size_t dyn_smem)
{
	const unsigned long long threads = (unsigned long long)b.x * b.y * b.z;

	if (!grid.x || !grid.y || !grid.z || !threads)
		return cudaErrorInvalidConfiguration;
	if (threads > 1024 || b.x > 1024 || b.y > 1024 || b.z > 64)
		return cudaErrorInvalidConfiguration;
	if (grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535)
		return cudaErrorInvalidConfiguration;
	/* above 48 KiB only with cudaFuncAttributeMaxDynamicSharedMemorySize */
	if (dyn_smem > 48 * 1024 && dyn_smem > func_max_dyn_smem(func))
		return cudaErrorInvalidValue;
	return cudaSuccess;
}

cudaError_t gb_kx_run_grid(const char *kernel, const void *func, dim3 grid, dim3 b,
			   size_t dyn_smem, const void *dyn_array, void (*fn)(void *), void *ctx,
			   const void *params, size_t params_bytes)
{
	launch l = { kernel, grid, b, dyn_smem, static_cast<const unsigned char *>(dyn_array),
		     params, params_bytes, false, cudaSuccess };
	const unsigned n = b.x * b.y * b.z;
	cudaError_t e = check_config(func, grid, b, dyn_smem);

	if (e != cudaSuccess) {
		set_last_error(e);
		return e;
	}
	check_init();
	n_launches++;
	while (pool.size() < n) {
		pool.emplace_back();
		alloc_stack(pool.back());
		pool.back().async = nullptr;
	}
	run = &l;
	entry_fn = fn;
	entry_ctx = ctx;
	for (unsigned z = 0; z < grid.z; z++)
		for (unsigned y = 0; y < grid.y; y++)
			for (unsigned x = 0; x < grid.x; x++)
				if (!run_block(make_uint3(x, y, z), n))
					goto out;
out:
	if (l.aborted)
		for (unsigned i = 0; i < n; i++)
			async_thread_exit(pool[i]);
	run = nullptr;
	set_last_error(l.error);
	return l.error;
}

extern "C" unsigned long gb_kx_launches(void)
{
	return n_launches;
}
