/* SPDX-License-Identifier: MIT */
/*
 * kexec_check.cc - memcheck and racecheck for kernels run by the executor.
 *
 * The kernels' translation units are compiled with -fsanitize=thread but
 * linked without ThreadSanitizer's runtime: the compiler's instrumentation
 * then calls the __tsan_read / __tsan_write hooks below before every load
 * and store of the kernel's code, with the address and size. That sees
 * every access, global, shared or local, without a line of the kernels
 * changed. Each access of a running CUDA thread is classified:
 *   its own stack (locals, by-value arguments)          fine
 *   the launch's arguments (param space)                 reads fine
 *   the shared window (the thread_local __shared__ arrays, see
 *   cuda_host_shim.h), within the launch's dynamic size  racecheck
 *   an allocation of the runtime (cudaMalloc)            fine
 *   the executable's own image                           reads fine
 *   anything else                                        memcheck: the grid stops
 * Racecheck keeps, per shared byte, the last writer and reader and the
 * barrier interval (epoch) of each; an access by another thread in the same
 * interval, not ordered by a warp collective of their warp, is a hazard
 * (RAW, WAR, WAW), reported once per address and kind as racecheck does.
 */
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include "tests/kexec/kexec_internal.h"

/* one thread_local of the executor's own, to find the shared window (the TLS block) */
static thread_local unsigned char tls_probe;

namespace gb_kx {

namespace {

struct shadow {
	uint32_t w_epoch, r_epoch;
	uint32_t w_wsync, r_wsync;
	uint16_t w_tid, r_tid;
	uint16_t pending;  /* cp.async or TMA copies in flight into this byte */
	uint16_t async_reads;  /* wgmma.mma_async reads of this byte not yet completed */
};
constexpr uint16_t kManyReaders = 0xffff;
constexpr uint16_t kAsyncCopy = 0xfffe;  /* a cp.async no wait_group has completed */
constexpr unsigned kMaxPrinted = 20;

bool ready;
uintptr_t win_lo, win_hi;         /* the shared window: the executable's TLS block */
std::vector<shadow> shadows;
std::vector<std::pair<uintptr_t, uintptr_t>> image;   /* the executable's loaded segments */
std::map<uintptr_t, size_t> allocs;                    /* cudaMalloc'd ranges */
std::set<std::tuple<int, uintptr_t, const char *>> reported;  /* racecheck: once each */
struct gb_kx_findings found;
unsigned printed;

int phdr_cb(struct dl_phdr_info *info, size_t, void *)
{
	/* the first object is the executable itself */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) &ph = info->dlpi_phdr[i];

		if (ph.p_type == PT_LOAD)
			image.emplace_back(info->dlpi_addr + ph.p_vaddr,
					   info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
		if (ph.p_type == PT_TLS) {
#if defined(__x86_64__)
			/* TLS variant II: the executable's block ends at the thread pointer */
			uintptr_t tp = (uintptr_t)__builtin_thread_pointer();
			size_t align = ph.p_align ? ph.p_align : 1;
			size_t off = (ph.p_memsz + align - 1) / align * align;

			win_lo = tp - off;
			win_hi = win_lo + ph.p_memsz;
#else
#error "kexec: the shared window is found for x86-64 TLS only"
#endif
		}
	}
	return 1;
}

/* extern __shared__ arrays inside the window; registered before main, whatever the order */
std::vector<std::pair<uintptr_t, uintptr_t>> &dynamic_arrays()
{
	static std::vector<std::pair<uintptr_t, uintptr_t>> v;

	return v;
}

bool within(uintptr_t a, size_t n, uintptr_t lo, uintptr_t hi)
{
	return a >= lo && a + n <= hi && a + n >= a;
}

const char *kind_name(access k)
{
	return k == access::read || k == access::async_read ? "read"
	       : k == access::atomic				   ? "atomic"
								   : "write";
}

/* the allocation nearest to a, for "N bytes after the nearest allocation" */
void print_nearest(uintptr_t a)
{
	auto it = allocs.upper_bound(a);
	uintptr_t best = 0;
	size_t bytes = 0;

	if (it != allocs.begin()) {
		auto p = std::prev(it);
		best = p->first, bytes = p->second;
	}
	if (it != allocs.end() && (!best || it->first - a < a - (best + bytes)))
		best = it->first, bytes = it->second;
	if (!best)
		return;
	if (a >= best + bytes)
		fprintf(stderr, "=========     and is %zu bytes after the nearest allocation at %p of "
			"size %zu bytes\n", (size_t)(a - best - bytes), (void *)best, bytes);
	else if (a < best)
		fprintf(stderr, "=========     and is %zu bytes before the nearest allocation at %p "
			"of size %zu bytes\n", (size_t)(best - a), (void *)best, bytes);
}

bool global_ok(uintptr_t a, size_t n)
{
	auto it = allocs.upper_bound(a);

	if (it == allocs.begin())
		return false;
	--it;
	return within(a, n, it->first, it->first + it->second);
}

bool image_ok(uintptr_t a, size_t n)
{
	for (auto &r : image)
		if (within(a, n, r.first, r.second))
			return true;
	return false;
}

/* whether a recorded access of thread `tid` at (epoch, wsync) is ordered before cur's */
bool ordered(uint32_t epoch, uint16_t tid, uint32_t wsync)
{
	if (epoch != blk.epoch || tid == cur->linear)
		return true;
	if (tid < kAsyncCopy && tid / 32 == cur->warp && wsync < blk.warp_sync[cur->warp])
		return true;
	return false;
}

void report_hazard(const char *kind, uintptr_t a, uint16_t other, const char *other_role,
		   const char *my_role)
{
	found.racecheck++;
	if (!reported.insert(std::make_tuple(kind[0] << 8 | kind[2], a & ~(uintptr_t)3, run->kernel)).second ||
	    printed >= kMaxPrinted)
		return;
	printed++;
	fprintf(stderr, "========= Error: Potential %s hazard detected at __shared__ 0x%zx in block "
		"(%u,%u,%u) of %s:\n", kind, (size_t)(a - win_lo), blk.idx.x, blk.idx.y,
		blk.idx.z, run->kernel);
	if (other == kManyReaders)
		fprintf(stderr, "=========     %s by several threads\n", other_role);
	else if (other == kAsyncCopy)
		fprintf(stderr, "=========     %s\n", other_role);
	else
		print_thread_line(other_role, other);
	print_thread_line(my_role, cur->linear);
}

void race_access(uintptr_t a, size_t n, access kind)
{
	const uint32_t wsync = blk.warp_sync[cur->warp];
	const uint16_t me = (uint16_t)cur->linear;

	for (size_t i = 0; i < n; i++) {
		shadow &s = shadows[a + i - win_lo];

		if (s.pending)
			report_hazard("RAW", a + i, kAsyncCopy,
				      "Write by an asynchronous copy (cp.async, TMA) not completed yet",
				      kind == access::read ? "Read Thread" : "Write Thread");
		if (!ordered(s.w_epoch, s.w_tid, s.w_wsync))
			report_hazard(kind == access::read ? "RAW" : "WAW", a + i, s.w_tid,
				      "Write Thread",
				      kind == access::read ? "Read Thread" : "Write Thread");
		if (kind != access::read && s.async_reads)
			report_hazard("WAR", a + i, kAsyncCopy,
				      "Read by a wgmma.mma_async that no wait_group has completed yet",
				      "Write Thread");
		if (kind == access::read) {
			if (s.r_epoch == blk.epoch && s.r_tid != me)
				s.r_tid = kManyReaders;
			else
				s.r_tid = me;
			s.r_epoch = blk.epoch;
			s.r_wsync = wsync;
		} else {
			if (!ordered(s.r_epoch, s.r_tid, s.r_wsync))
				report_hazard("WAR", a + i, s.r_tid, "Read Thread", "Write Thread");
			s.w_epoch = blk.epoch;
			s.w_tid = me;
			s.w_wsync = wsync;
		}
	}
}

/*
 * The async proxy against itself: a TMA write to bytes that an issued
 * wgmma has not read yet (WAR: the stage was handed back too early), a
 * wgmma read of bytes whose TMA has not landed (RAW: read before the full
 * barrier's phase completed). Its accesses are ordered with the threads' by
 * mbarriers and wgmma.wait_group, which these marks follow, not by
 * __syncthreads, so they take no part in the generic hazards.
 */
void async_access(uintptr_t a, size_t n, access kind)
{
	for (size_t i = 0; i < n; i++) {
		const shadow &s = shadows[a + i - win_lo];

		if (kind == access::async_write && s.async_reads)
			report_hazard("WAR", a + i, kAsyncCopy,
				      "Read by a wgmma.mma_async that no wait_group has completed yet",
				      "Write (cp.async.bulk.tensor) issued by thread");
		if (kind == access::async_read && s.pending)
			report_hazard("RAW", a + i, kAsyncCopy,
				      "Write by a cp.async.bulk.tensor not completed yet",
				      "Read (wgmma.mma_async) by thread");
	}
}

}  // namespace

void check_init()
{
	if (ready)
		return;
	ready = true;
	dl_iterate_phdr(phdr_cb, nullptr);
	if (!within((uintptr_t)&tls_probe, 1, win_lo, win_hi)) {
		fprintf(stderr, "kexec: cannot find the shared window (TLS block)\n");
		abort();
	}
	shadows.assign(win_hi - win_lo, shadow());
}

void block_start_shared()
{
	/* unwritten shared memory reads as NaN (0xff bytes), never as a plausible 0 */
	memset((void *)win_lo, 0xff, win_hi - win_lo);
}

bool in_shared(const void *p, size_t n)
{
	return within((uintptr_t)p, n, win_lo, win_hi);
}

uintptr_t shared_base()
{
	return win_lo;
}

void print_thread_line(const char *role, unsigned linear)
{
	uint3 t = make_uint3(linear % run->blk.x, linear / run->blk.x % run->blk.y,
			     linear / (run->blk.x * run->blk.y));

	fprintf(stderr, "=========     %s (%u,%u,%u) in block (%u,%u,%u)\n", role, t.x, t.y, t.z,
		blk.idx.x, blk.idx.y, blk.idx.z);
}

void report_memcheck(const char *what, const void *p, size_t n, access kind)
{
	found.memcheck++;
	fprintf(stderr, "========= Invalid %s %s of size %zu bytes\n", what, kind_name(kind), n);
	fprintf(stderr, "=========     at %s\n", run->kernel);
	print_thread_line("by thread", cur->linear);
	fprintf(stderr, "=========     Address %p is out of bounds\n", p);
	if (!strcmp(what, "__global__"))
		print_nearest((uintptr_t)p);
}

void report_sync(const char *fmt, ...)
{
	va_list ap;

	found.synccheck++;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void count_racecheck()
{
	found.racecheck++;
}

void check_access(const void *p, size_t n, access kind)
{
	const uintptr_t a = (uintptr_t)p;

	if (!cur)
		return;
	if (within(a, n, (uintptr_t)cur->stack, (uintptr_t)cur->stack + cur->stack_bytes))
		return;
	if (kind == access::read &&
	    within(a, n, (uintptr_t)run->params, (uintptr_t)run->params + run->params_bytes))
		return;
	if (within(a, n, win_lo, win_hi)) {
		for (auto &d : dynamic_arrays())
			if (a + n > d.first && a < d.second &&
			    !within(a, n, d.first, d.first + run->dyn_smem)) {
				report_memcheck("__shared__", p, n, kind);
				abort_grid(cudaErrorIllegalAddress);
			}
		if (kind == access::async_read || kind == access::async_write)
			async_access(a, n, kind);
		else
			race_access(a, n, kind);
		return;
	}
	if (global_ok(a, n) ||
	    ((kind == access::read || kind == access::async_read) && image_ok(a, n)))
		return;
	report_memcheck("__global__", p, n, kind);
	abort_grid(cudaErrorIllegalAddress);
}

void note_async_pending(const void *p, size_t n, int delta)
{
	for (size_t i = 0; i < n; i++)
		shadows[(uintptr_t)p + i - win_lo].pending += delta;
}

void note_async_reads(const void *p, size_t n, int delta)
{
	for (size_t i = 0; i < n; i++)
		shadows[(uintptr_t)p + i - win_lo].async_reads += delta;
}

void register_allocation(const void *p, size_t bytes)
{
	allocs[(uintptr_t)p] = bytes;
}

bool unregister_allocation(const void *p, size_t *bytes)
{
	auto it = allocs.find((uintptr_t)p);

	if (it == allocs.end())
		return false;
	if (bytes)
		*bytes = it->second;
	allocs.erase(it);
	return true;
}

}  // namespace gb_kx

using namespace gb_kx;

void gb_kx_register_dynamic_smem(void *base, size_t bytes)
{
	dynamic_arrays().emplace_back((uintptr_t)base, (uintptr_t)base + bytes);
}

uint32_t gb_kx_shared_addr(const void *p)
{
	check_init();
	return (uint32_t)((uintptr_t)p - win_lo);
}

void *gb_kx_shared_ptr(uint32_t addr)
{
	return (void *)(win_lo + addr);
}

extern "C" struct gb_kx_findings gb_kx_findings(void)
{
	return found;
}

extern "C" void gb_kx_reset_findings(void)
{
	found = {};
	reported.clear();
	printed = 0;
}

/* ---- the instrumentation's hooks (ThreadSanitizer's ABI, our runtime) ---- */

#define GB_KX_HOOKS(n)                                                                             \
	extern "C" void __tsan_read##n(void *p) { check_access(p, n, access::read); }              \
	extern "C" void __tsan_write##n(void *p) { check_access(p, n, access::write); }            \
	extern "C" void __tsan_unaligned_read##n(void *p) { check_access(p, n, access::read); }    \
	extern "C" void __tsan_unaligned_write##n(void *p) { check_access(p, n, access::write); }

GB_KX_HOOKS(1)
GB_KX_HOOKS(2)
GB_KX_HOOKS(4)
GB_KX_HOOKS(8)
GB_KX_HOOKS(16)

extern "C" void __tsan_read_range(void *p, unsigned long n) { check_access(p, n, access::read); }
extern "C" void __tsan_write_range(void *p, unsigned long n) { check_access(p, n, access::write); }
extern "C" void __tsan_init(void) {}
extern "C" void __tsan_func_entry(void *) {}
extern "C" void __tsan_func_exit(void) {}

/*
 * Atomics of host code in the kernels' files (the launchers' std::atomic
 * caches): done as asked, with the compiler's builtins. A kernel's own
 * atomics are CUDA's (kexec_atomic.cc).
 */
#define GB_KX_ATOMIC_HOOKS(bits, type)                                                             \
	extern "C" type __tsan_atomic##bits##_load(const volatile type *p, int)                    \
	{                                                                                          \
		return __atomic_load_n(p, __ATOMIC_SEQ_CST);                                       \
	}                                                                                          \
	extern "C" void __tsan_atomic##bits##_store(volatile type *p, type v, int)                 \
	{                                                                                          \
		__atomic_store_n(p, v, __ATOMIC_SEQ_CST);                                          \
	}                                                                                          \
	extern "C" type __tsan_atomic##bits##_exchange(volatile type *p, type v, int)              \
	{                                                                                          \
		return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                \
	}                                                                                          \
	extern "C" type __tsan_atomic##bits##_fetch_add(volatile type *p, type v, int)             \
	{                                                                                          \
		return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                                 \
	}                                                                                          \
	extern "C" int __tsan_atomic##bits##_compare_exchange_strong(volatile type *p, type *c,    \
								     type v, int, int)             \
	{                                                                                          \
		return __atomic_compare_exchange_n(p, c, v, false, __ATOMIC_SEQ_CST,               \
						   __ATOMIC_SEQ_CST);                              \
	}

GB_KX_ATOMIC_HOOKS(8, uint8_t)
GB_KX_ATOMIC_HOOKS(16, uint16_t)
GB_KX_ATOMIC_HOOKS(32, uint32_t)
GB_KX_ATOMIC_HOOKS(64, uint64_t)

extern "C" void __tsan_atomic_thread_fence(int)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
