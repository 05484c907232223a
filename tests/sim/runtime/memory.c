/* SPDX-License-Identifier: MIT */
/*
 * memory.c - allocations and copies. Every kind of GPU memory is plain host
 * memory (aligned to 256 bytes, as cudaMalloc's), so twins dereference device
 * pointers directly; a table remembers what each range is, so copies, kernels
 * and frees can be checked against it as strictly as the real runtime does.
 * Freed ranges are remembered too (the newest 16384), to name a use after
 * free or a double free for what it is. Their address space stays reserved
 * (PROT_NONE, the memory itself returned) until they leave that list, so
 * malloc cannot hand the same addresses to the host meanwhile: a pageable
 * buffer is never mistaken for freed device memory, and a host access to
 * freed memory faults at once.
 */
#include "tests/sim/runtime/rt.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct rt_alloc {
	uintptr_t base;
	size_t size;
	enum gbsim_mem_kind kind;   /* DEVICE, HOST, MANAGED; FREED once freed */
	int device;                 /* DEVICE: owner; others: the device current at allocation */
	unsigned int flags;
	const void *site;
	uint64_t version;           /* write stamp of the whole: moved by gbsim_mem_wrote (sim.h) */
	/*
	 * Ranges written since (offset from base, end, version), disjoint, each
	 * newer than version: a write of part moves the stamp of that part only,
	 * so an operand beside a GEMM's output in one allocation keeps its stamp.
	 */
	struct rt_seg {
		size_t start, end;
		uint64_t version;
	} *segs;
	int n_segs, cap_segs;
};

#define MAX_FREED 16384

static size_t mapped_len(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return size ? (size + page - 1) / page * page : page;
}

/* Fresh pages, page aligned (so 256-byte aligned as cudaMalloc's). */
static void *map_pages(size_t size)
{
	void *p = mmap(NULL, mapped_len(size), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Give the memory back but keep the addresses reserved and inaccessible. */
static void retire_pages(uintptr_t base, size_t size)
{
	if (mmap((void *)base, mapped_len(size), PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
		munmap((void *)base, mapped_len(size));
}

static struct rt_alloc *allocs;  /* live, under rt_table_lock */
/* versions are never reused, so a freed and reallocated range never matches an old stamp */
static uint64_t version_clock;   /* under rt_table_lock */
static _Atomic uint64_t write_epoch = 1;
/* set once, when the fake cuBLASLt loads; read by every stream's worker */
static _Atomic(void (*)(const void *, size_t)) deferred_flush;
static _Atomic(bool (*)(const void *, size_t, uint64_t[2])) deferred_content;
static _Atomic(void (*)(const void *, size_t)) deferred_forget;
static size_t n_allocs, cap_allocs;
static struct rt_alloc *freed;   /* ring of freed ranges */
static size_t n_freed, next_freed;
static size_t used_bytes[GBSIM_MAX_GPUS];
static long alloc_count[GBSIM_MAX_GPUS];

/* Write every deferred result to its device memory (the fake cuBLASLt's, if loaded). */
static void flush_deferred(void)
{
	void (*flush)(const void *, size_t) = atomic_load(&deferred_flush);

	if (flush)
		flush(NULL, 0);
}

void gbsim_mem_flush(const void *p, size_t bytes)
{
	void (*flush)(const void *, size_t) = atomic_load(&deferred_flush);

	if (flush && bytes)
		flush(p, bytes);
}

/* with rt_table_lock held */
static struct rt_alloc *find_live(uintptr_t p)
{
	for (size_t i = n_allocs; i-- > 0;)
		if (p >= allocs[i].base && p - allocs[i].base < (allocs[i].size ? allocs[i].size : 1))
			return &allocs[i];
	return NULL;
}

/* with rt_table_lock held */
static const struct rt_alloc *find_freed(uintptr_t p)
{
	for (size_t k = 0; k < n_freed; k++) {
		const struct rt_alloc *a = &freed[(next_freed + MAX_FREED - 1 - k) % MAX_FREED];

		if (p >= a->base && p - a->base < (a->size ? a->size : 1))
			return a;
	}
	return NULL;
}

enum gbsim_mem_kind gbsim_mem_kind(const void *p, size_t bytes, int *device)
{
	uintptr_t u = (uintptr_t)p;
	enum gbsim_mem_kind kind = GBSIM_MEM_UNKNOWN;
	const struct rt_alloc *a;

	if (device)
		*device = -1;
	pthread_mutex_lock(&rt_table_lock);
	if ((a = find_live(u))) {
		if (bytes <= a->size - (u - a->base)) {
			kind = a->kind;
			if (device && kind == GBSIM_MEM_DEVICE)
				*device = a->device;
		}
	} else if (find_freed(u)) {
		kind = GBSIM_MEM_FREED;
	}
	pthread_mutex_unlock(&rt_table_lock);
	return kind;
}

/* Why [p, p + bytes) is not what it should be, for a log line. */
static const char *describe(const void *p, size_t bytes)
{
	uintptr_t u = (uintptr_t)p;
	const char *why = "not memory the simulated runtime allocated";
	const struct rt_alloc *a;

	pthread_mutex_lock(&rt_table_lock);
	if ((a = find_live(u)) && bytes > a->size - (u - a->base))
		why = "beyond the end of its allocation";
	else if (!a && find_freed(u))
		why = "freed (use after free)";
	pthread_mutex_unlock(&rt_table_lock);
	return why;
}

cudaError_t gbsim_check_access(int device, const void *p, size_t bytes, const char *what)
{
	int owner;
	enum gbsim_mem_kind kind;

	if (bytes == 0)
		return cudaSuccess;
	kind = gbsim_mem_kind(p, bytes, &owner);
	switch (kind) {
	case GBSIM_MEM_HOST:
	case GBSIM_MEM_MANAGED:
		return cudaSuccess;
	case GBSIM_MEM_DEVICE:
		if (owner == device || rt_peer_enabled(device, owner))
			return cudaSuccess;
		gbsim_log("%s: GPU %d touched %p (%zu bytes) on GPU %d without peer access "
			  "(cudaDeviceEnablePeerAccess)", what ? what : "kernel", device, p, bytes, owner);
		return cudaErrorIllegalAddress;
	default:
		gbsim_log("%s: GPU %d touched %p (%zu bytes): %s", what ? what : "kernel", device, p,
			  bytes, describe(p, bytes));
		return cudaErrorIllegalAddress;
	}
}

/* ---- allocation ---- */

long rt_alloc_count(int device)
{
	long n;

	if (device < 0 || device >= GBSIM_MAX_GPUS)
		return 0;
	pthread_mutex_lock(&rt_table_lock);
	n = alloc_count[device];
	pthread_mutex_unlock(&rt_table_lock);
	return n;
}

static cudaError_t track(void *p, size_t size, enum gbsim_mem_kind kind, int device,
			 unsigned int flags, const void *site)
{
	if (n_allocs == cap_allocs) {
		size_t cap = cap_allocs ? cap_allocs * 2 : 256;
		struct rt_alloc *grown = realloc(allocs, cap * sizeof(*grown));

		if (!grown)
			return cudaErrorMemoryAllocation;
		allocs = grown;
		cap_allocs = cap;
	}
	allocs[n_allocs++] = (struct rt_alloc){.base = (uintptr_t)p, .size = size, .kind = kind,
					       .device = device, .flags = flags, .site = site,
					       .version = ++version_clock};
	return cudaSuccess;
}

static cudaError_t allocate(void **out, size_t size, enum gbsim_mem_kind kind, unsigned int flags,
			    const void *site)
{
	int dev = gbsim_current_device();
	const struct gbsim_gpu *g = &gbsim_machine()->gpus[dev];
	size_t rounded = (size + 255) & ~(size_t)255;
	cudaError_t e;
	long number;
	void *p;

	if (!out)
		return cudaErrorInvalidValue;
	if ((e = rt_sticky(dev)) != cudaSuccess)
		return e;
	*out = NULL;
	if (size == 0)
		return cudaSuccess;
	if (rounded < size)
		return cudaErrorMemoryAllocation;
	pthread_mutex_lock(&rt_table_lock);
	number = ++alloc_count[dev];
	pthread_mutex_unlock(&rt_table_lock);
	if (kind == GBSIM_MEM_DEVICE && rt_fault_active(GBSIM_FAULT_OOM, dev, -1, number)) {
		gbsim_log("fault 'oom': allocation %ld on GPU %d fails", number, dev);
		return cudaErrorMemoryAllocation;
	}
	pthread_mutex_lock(&rt_table_lock);
	if (kind == GBSIM_MEM_DEVICE && rounded > g->memory_bytes - used_bytes[dev]) {
		pthread_mutex_unlock(&rt_table_lock);
		return cudaErrorMemoryAllocation;
	}
	p = map_pages(rounded);
	if (p && track(p, size, kind, dev, flags, site) != cudaSuccess) {
		munmap(p, mapped_len(rounded));
		p = NULL;
	}
	if (p && kind == GBSIM_MEM_DEVICE)
		used_bytes[dev] += rounded;
	pthread_mutex_unlock(&rt_table_lock);
	if (!p)
		return cudaErrorMemoryAllocation;
	*out = p;
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	return rt_ret(allocate(devPtr, size, GBSIM_MEM_DEVICE, 0, __builtin_return_address(0)));
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	return rt_ret(allocate(ptr, size, GBSIM_MEM_HOST, cudaHostAllocDefault,
			       __builtin_return_address(0)));
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	const unsigned int known = cudaHostAllocPortable | cudaHostAllocMapped |
				   cudaHostAllocWriteCombined;

	if (flags & ~known)
		return rt_ret(cudaErrorInvalidValue);
	return rt_ret(allocate(pHost, size, GBSIM_MEM_HOST, flags, __builtin_return_address(0)));
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
	if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
		return rt_ret(cudaErrorInvalidValue);
	return rt_ret(allocate(devPtr, size, GBSIM_MEM_MANAGED, flags, __builtin_return_address(0)));
}

/* with rt_table_lock held: remember gone as freed, releasing the oldest reservation */
static void remember_freed(struct rt_alloc gone)
{
	struct rt_alloc *slot = &freed[next_freed];

	if (n_freed == MAX_FREED)
		munmap((void *)slot->base, mapped_len(slot->size));
	retire_pages(gone.base, gone.size);
	gone.kind = GBSIM_MEM_FREED;
	*slot = gone;
	next_freed = (next_freed + 1) % MAX_FREED;
	if (n_freed < MAX_FREED)
		n_freed++;
}

/* Drop the record of base (a live allocation of one of kinds), remembering it as freed. */
static cudaError_t release(void *ptr, bool host_api, const char *call)
{
	uintptr_t u = (uintptr_t)ptr;
	struct rt_alloc *a;
	struct rt_alloc gone;
	void (*forget)(const void *, size_t);
	bool all;
	int dev;

	if (!ptr)
		return cudaSuccess;
	pthread_mutex_lock(&rt_table_lock);
	a = find_live(u);
	if (!a || a->base != u || (a->kind == GBSIM_MEM_HOST) != host_api) {
		const char *why = a ? (a->base != u ? "not the start of an allocation"
				       : host_api ? "not pinned host memory" : "pinned host memory")
				  : find_freed(u) ? "already freed (double free)"
				  : "not memory the simulated runtime allocated";

		pthread_mutex_unlock(&rt_table_lock);
		gbsim_log("%s(%p): %s", call, ptr, why);
		return cudaErrorInvalidValue;
	}
	dev = a->device;
	all = a->kind != GBSIM_MEM_DEVICE;
	gone = *a;
	pthread_mutex_unlock(&rt_table_lock);
	/* as on a GPU, a free waits for the device (any device may use host memory) */
	/*
	 * a GPU stopped by a "hang" fault never drains: a real free of pinned
	 * memory waits for the calling thread's context, not for another GPU's
	 */
	for (int d = 0; d < rt_device_count(); d++)
		if ((all && !rt_hung(d)) || d == dev)
			rt_device_sync(d);
	/* outside rt_table_lock: the hook takes its own lock, and flushing stamps under it */
	forget = atomic_load(&deferred_forget);
	if (forget && !all)
		forget((const void *)gone.base, gone.size ? gone.size : 1);
	pthread_mutex_lock(&rt_table_lock);
	a = find_live(u);
	if (!a || a->base != u) {
		pthread_mutex_unlock(&rt_table_lock);
		gbsim_log("%s(%p): already freed (double free)", call, ptr);
		return cudaErrorInvalidValue;
	}
	gone = *a;
	free(gone.segs);
	gone.segs = NULL;
	*a = allocs[--n_allocs];
	if (gone.kind == GBSIM_MEM_DEVICE)
		used_bytes[gone.device] -= (gone.size + 255) & ~(size_t)255;
	remember_freed(gone);
	pthread_mutex_unlock(&rt_table_lock);
	return rt_sticky(dev);
}

static void init_freed(void)
{
	freed = calloc(MAX_FREED, sizeof(*freed));
	if (!freed)
		rt_fatal("out of host memory for the allocation table");
}

static pthread_once_t freed_once = PTHREAD_ONCE_INIT;

cudaError_t cudaFree(void *devPtr)
{
	pthread_once(&freed_once, init_freed);
	return rt_ret(release(devPtr, false, "cudaFree"));
}

cudaError_t cudaFreeHost(void *ptr)
{
	pthread_once(&freed_once, init_freed);
	return rt_ret(release(ptr, true, "cudaFreeHost"));
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
	if (!pDevice || flags != 0)
		return rt_ret(cudaErrorInvalidValue);
	if (gbsim_mem_kind(pHost, 1, NULL) != GBSIM_MEM_HOST) {
		gbsim_log("cudaHostGetDevicePointer(%p): %s", pHost,
			  gbsim_mem_kind(pHost, 1, NULL) == GBSIM_MEM_UNKNOWN
				  ? "not pinned host memory" : describe(pHost, 1));
		return rt_ret(cudaErrorInvalidValue);
	}
	*pDevice = pHost; /* unified addressing: the same address on the device */
	return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
	int dev = gbsim_current_device();
	uint64_t total = gbsim_machine()->gpus[dev].memory_bytes;
	cudaError_t e;

	if (!free_bytes || !total_bytes)
		return rt_ret(cudaErrorInvalidValue);
	if ((e = rt_sticky(dev)) != cudaSuccess)
		return rt_ret(e);
	pthread_mutex_lock(&rt_table_lock);
	*free_bytes = (size_t)(total - used_bytes[dev]);
	pthread_mutex_unlock(&rt_table_lock);
	*total_bytes = (size_t)total;
	return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
	int dev;
	enum gbsim_mem_kind kind = gbsim_mem_kind(ptr, 1, &dev);

	if (!attributes)
		return rt_ret(cudaErrorInvalidValue);
	memset(attributes, 0, sizeof(*attributes));
	attributes->device = kind == GBSIM_MEM_DEVICE ? dev : gbsim_current_device();
	attributes->type = kind == GBSIM_MEM_DEVICE ? cudaMemoryTypeDevice
			   : kind == GBSIM_MEM_HOST ? cudaMemoryTypeHost
			   : kind == GBSIM_MEM_MANAGED ? cudaMemoryTypeManaged
			   : cudaMemoryTypeUnregistered;
	if (kind != GBSIM_MEM_UNKNOWN && kind != GBSIM_MEM_FREED) {
		attributes->devicePointer = (void *)ptr;
		if (kind != GBSIM_MEM_DEVICE)
			attributes->hostPointer = (void *)ptr;
	}
	return cudaSuccess;
}

/* ---- copies ---- */

struct copy_ctx {
	void *dst;
	const void *src;             /* the source, or staged, a copy taken when queued */
	size_t width, height, dpitch, spitch;
	bool memset;
	int value;
	void *staged;
	int src_device, dst_device;  /* the GPU of each end in device memory; else -1 */
};

/*
 * A "p2p_corrupt" fault (docs/simulation.md): a copy between two GPUs, one
 * of them the fault's, delivers one wrong byte per 4 KiB (the first of each
 * row's 4 KiB blocks flipped), as a broken P2P path on consumer boards did.
 */
static void corrupt_peer_copy(const struct copy_ctx *c)
{
	if (c->memset || c->src_device < 0 || c->dst_device < 0 || c->src_device == c->dst_device)
		return;
	if (!rt_fault_active(GBSIM_FAULT_P2P_CORRUPT, c->src_device, -1, -1) &&
	    !rt_fault_active(GBSIM_FAULT_P2P_CORRUPT, c->dst_device, -1, -1))
		return;
	for (size_t row = 0; row < c->height; row++)
		for (size_t at = 0; at < c->width; at += 4096)
			((unsigned char *)c->dst)[row * c->dpitch + at] ^= 0x01;
}

/*
 * Repeated device-to-device copies. A benchmark copies the same source to
 * the same destination thousands of times (p2p and bandwidth's copy-engine
 * loops, 16 x 5 samples of up to 128 MiB), and the CPU doing each memmove
 * made those steps minutes long. Such copies declare their writes (sim.h),
 * so the stamps of both ends say whether anything touched them since the
 * last identical copy; if nothing did, the destination already holds the
 * result and the copy only costs its simulated time. Direct-mapped by the
 * copy's addresses; a miss or a collision just copies.
 */
#define COPY_MEMO_SLOTS 64

struct copy_memo {
	const void *dst, *src;
	size_t width, height, dpitch, spitch;
	struct gbsim_mem_stamp src_stamp, dst_stamp; /* both ends after the copy */
	bool used;
};

static struct copy_memo copy_memo[COPY_MEMO_SLOTS]; /* under copy_memo_lock */
static pthread_mutex_t copy_memo_lock = PTHREAD_MUTEX_INITIALIZER;

static bool stamp_equal(const struct gbsim_mem_stamp *a, const struct gbsim_mem_stamp *b)
{
	return a->epoch == b->epoch && a->version == b->version;
}

static size_t copy_memo_slot(const struct copy_ctx *c)
{
	uint64_t h = (uint64_t)(uintptr_t)c->dst * 0x9e3779b97f4a7c15ULL ^
		     (uint64_t)(uintptr_t)c->src * 0xc2b2ae3d27d4eb4fULL ^ c->width ^ c->height;

	return (size_t)(h >> 58) % COPY_MEMO_SLOTS;
}

static bool copy_memo_same(const struct copy_memo *m, const struct copy_ctx *c)
{
	return m->used && m->dst == c->dst && m->src == c->src && m->width == c->width &&
	       m->height == c->height && m->dpitch == c->dpitch && m->spitch == c->spitch;
}

/* Both ends' stamps now; false when either is not one live device allocation. */
static bool copy_stamps(const struct copy_ctx *c, struct gbsim_mem_stamp *src,
			struct gbsim_mem_stamp *dst)
{
	size_t dext = c->dpitch * (c->height - 1) + c->width;
	size_t sext = c->spitch * (c->height - 1) + c->width;

	return gbsim_mem_stamp(c->src, sext, src) && gbsim_mem_stamp(c->dst, dext, dst);
}

/* true: this exact copy ran last and nothing wrote either end since */
static bool copy_memo_hit(const struct copy_ctx *c)
{
	struct gbsim_mem_stamp src, dst;
	const struct copy_memo *m = &copy_memo[copy_memo_slot(c)];
	bool hit;

	if (!copy_stamps(c, &src, &dst))
		return false;
	pthread_mutex_lock(&copy_memo_lock);
	hit = copy_memo_same(m, c) && stamp_equal(&m->src_stamp, &src) &&
	      stamp_equal(&m->dst_stamp, &dst);
	pthread_mutex_unlock(&copy_memo_lock);
	return hit;
}

static void copy_memo_note(const struct copy_ctx *c)
{
	struct copy_memo m = {c->dst, c->src, c->width, c->height, c->dpitch, c->spitch,
			      {0, 0}, {0, 0}, true};

	if (!copy_stamps(c, &m.src_stamp, &m.dst_stamp))
		return;
	pthread_mutex_lock(&copy_memo_lock);
	copy_memo[copy_memo_slot(c)] = m;
	pthread_mutex_unlock(&copy_memo_lock);
}

/* A copy between two device allocations (the ones the copy memo may skip). */
static bool device_to_device(const struct copy_ctx *c)
{
	return !c->memset && c->src_device >= 0 && c->dst_device >= 0;
}

static size_t extent(size_t pitch, size_t width, size_t height)
{
	return height ? pitch * (height - 1) + width : 0;
}

static void copy_rows(const struct copy_ctx *c)
{
	for (size_t row = 0; row < c->height; row++) {
		char *d = (char *)c->dst + row * c->dpitch;

		if (c->memset)
			memset(d, c->value, c->width);
		else if (c->width)
			memmove(d, (const char *)c->src + row * c->spitch, c->width);
	}
	corrupt_peer_copy(c);
}

static cudaError_t copy_run(void *arg)
{
	struct copy_ctx *c = arg;

	/*
	 * Declared writes (its only device write is its destination): the runtime
	 * flushed no deferred write, so those on either end land first.
	 */
	if (c->src_device >= 0)
		gbsim_mem_flush(c->src, extent(c->spitch, c->width, c->height));
	if (c->dst_device >= 0)
		gbsim_mem_flush(c->dst, extent(c->dpitch, c->width, c->height));
	/* a p2p_corrupt fault that starts now must corrupt this copy: never skipped then */
	if (device_to_device(c) &&
	    !rt_fault_active(GBSIM_FAULT_P2P_CORRUPT, c->src_device, -1, -1) &&
	    !rt_fault_active(GBSIM_FAULT_P2P_CORRUPT, c->dst_device, -1, -1) &&
	    copy_memo_hit(c))
		return cudaSuccess;
	/* before and after: a stamp taken while the bytes move never matches a later one */
	if (c->dst_device >= 0)
		gbsim_mem_wrote(c->dst, extent(c->dpitch, c->width, c->height));
	copy_rows(c);
	if (c->dst_device >= 0)
		gbsim_mem_wrote(c->dst, extent(c->dpitch, c->width, c->height));
	if (device_to_device(c))
		copy_memo_note(c);
	return cudaSuccess;
}

static void copy_free(void *arg)
{
	struct copy_ctx *c = arg;

	free(c->staged);
	free(c);
}

struct side {
	enum gbsim_mem_kind kind;
	int device;
};

static bool host_side_ok(enum gbsim_mem_kind k)
{
	return k == GBSIM_MEM_UNKNOWN || k == GBSIM_MEM_HOST || k == GBSIM_MEM_MANAGED;
}

static bool device_side_ok(enum gbsim_mem_kind k)
{
	return k == GBSIM_MEM_DEVICE || k == GBSIM_MEM_MANAGED || k == GBSIM_MEM_HOST;
}

static const char *kind_name(enum gbsim_mem_kind k)
{
	switch (k) {
	case GBSIM_MEM_DEVICE: return "device memory";
	case GBSIM_MEM_HOST: return "pinned host memory";
	case GBSIM_MEM_MANAGED: return "managed memory";
	case GBSIM_MEM_FREED: return "freed memory";
	default: return "pageable host memory";
	}
}

/* Classify one side of a copy; a partly-ours or freed range is an error. */
static cudaError_t classify(const char *call, const char *role, const void *p, size_t extent,
			    struct side *s)
{
	uintptr_t u = (uintptr_t)p;
	bool partial;

	s->kind = gbsim_mem_kind(p, extent, &s->device);
	pthread_mutex_lock(&rt_table_lock);
	partial = s->kind == GBSIM_MEM_UNKNOWN && find_live(u);
	pthread_mutex_unlock(&rt_table_lock);
	if (!p && extent) {
		gbsim_log("%s: the %s is NULL", call, role);
		return cudaErrorInvalidValue;
	}
	if (s->kind == GBSIM_MEM_FREED || partial) {
		gbsim_log("%s: the %s %p (%zu bytes) is %s", call, role, p, extent,
			  describe(p, extent));
		return cudaErrorInvalidValue;
	}
	return cudaSuccess;
}

/* Check the declared kind against what the pointers really are. */
static cudaError_t check_kind(const char *call, enum cudaMemcpyKind kind, const struct side *d,
			      const struct side *s)
{
	bool ok;

	switch (kind) {
	case cudaMemcpyHostToHost: ok = host_side_ok(s->kind) && host_side_ok(d->kind); break;
	case cudaMemcpyHostToDevice: ok = host_side_ok(s->kind) && device_side_ok(d->kind); break;
	case cudaMemcpyDeviceToHost: ok = device_side_ok(s->kind) && host_side_ok(d->kind); break;
	case cudaMemcpyDeviceToDevice: ok = device_side_ok(s->kind) && device_side_ok(d->kind); break;
	case cudaMemcpyDefault: ok = true; break;
	default:
		gbsim_log("%s: copy kind %d does not exist", call, (int)kind);
		return cudaErrorInvalidMemcpyDirection;
	}
	if (!ok)
		gbsim_log("%s: kind %d copies from %s to %s", call, (int)kind, kind_name(s->kind),
			  kind_name(d->kind));
	return ok ? cudaSuccess : cudaErrorInvalidValue;
}

/*
 * Queue a (2D) copy on s after checking it. blocking: the call is cudaMemcpy
 * or cudaMemcpyPeer, which returns once the copy is done, as the CUDA docs'
 * "API synchronization behavior" says, except from device memory to device
 * memory: no host-side synchronisation then, only the legacy stream's order.
 * An asynchronous call blocks only where the host side demands it.
 */
static cudaError_t queue_copy(const char *call, struct rt_stream *s, void *dst, size_t dpitch,
			      const void *src, size_t spitch, size_t width, size_t height,
			      enum cudaMemcpyKind kind, bool blocking)
{
	size_t dext = height ? dpitch * (height - 1) + width : 0;
	size_t sext = height ? spitch * (height - 1) + width : 0;
	struct side d, sr;
	struct copy_ctx *c;
	struct gbsim_work w = {.what = call, .run = copy_run, .free_ctx = copy_free};
	struct rt_fence *f = NULL;
	cudaError_t e;

	if ((e = rt_sticky(s->device)) != cudaSuccess)
		return e;
	if (!width || !height)
		return cudaSuccess;
	if ((e = classify(call, "destination", dst, dext, &d)) != cudaSuccess ||
	    (e = classify(call, "source", src, sext, &sr)) != cudaSuccess ||
	    (e = check_kind(call, kind, &d, &sr)) != cudaSuccess)
		return e;
	c = calloc(1, sizeof(*c));
	if (!c)
		return cudaErrorMemoryAllocation;
	*c = (struct copy_ctx){dst, src, width, height, dpitch, spitch, false, 0, NULL,
			       sr.kind == GBSIM_MEM_DEVICE ? sr.device : -1,
			       d.kind == GBSIM_MEM_DEVICE ? d.device : -1};
	/* pageable source: the runtime stages it before returning, so the caller may reuse it */
	if (sr.kind == GBSIM_MEM_UNKNOWN && d.kind != GBSIM_MEM_UNKNOWN && !blocking) {
		if (!(c->staged = malloc(sext))) {
			free(c);
			return cudaErrorMemoryAllocation;
		}
		memcpy(c->staged, src, sext);
		c->src = c->staged;
	}
	/* pageable destination: the call returns only once the data is there */
	if (d.kind == GBSIM_MEM_UNKNOWN && sr.kind != GBSIM_MEM_UNKNOWN)
		blocking = true;
	/* device to device: queued on s, the host goes on (cudaMemcpy's documented behaviour) */
	if (d.kind == GBSIM_MEM_DEVICE && sr.kind == GBSIM_MEM_DEVICE)
		blocking = false;
	w.ctx = c;
	w.writes_declared = true; /* copy_run reports its device write */
	w.seconds = rt_copy_seconds(width * height, sr.device, sr.kind, d.device, d.kind);
	if ((e = rt_stream_enqueue(s, &w, false, NULL, 0, blocking ? &f : NULL)) != cudaSuccess)
		return e;
	if (f) {
		rt_fence_wait(f);
		rt_fence_unref(f);
	}
	return rt_sticky(s->device);
}

static cudaError_t legacy_of_current(struct rt_stream **s)
{
	return rt_stream_get(NULL, s);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	struct rt_stream *s;
	cudaError_t e = legacy_of_current(&s);

	if (e == cudaSuccess)
		e = queue_copy("cudaMemcpy", s, dst, count, src, count, count, 1, kind, true);
	return rt_ret(e);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
			    cudaStream_t stream)
{
	struct rt_stream *s;
	cudaError_t e = rt_stream_get(stream, &s);

	if (e == cudaSuccess)
		e = queue_copy("cudaMemcpyAsync", s, dst, count, src, count, count, 1, kind, false);
	return rt_ret(e);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
			      size_t width, size_t height, enum cudaMemcpyKind kind,
			      cudaStream_t stream)
{
	struct rt_stream *s;
	cudaError_t e;

	if (width > dpitch || width > spitch)
		return rt_ret(cudaErrorInvalidPitchValue);
	if ((e = rt_stream_get(stream, &s)) == cudaSuccess)
		e = queue_copy("cudaMemcpy2DAsync", s, dst, dpitch, src, spitch, width, height, kind,
			       false);
	return rt_ret(e);
}

static cudaError_t check_peer_side(const char *call, const char *role, const void *p,
				   size_t count, int device)
{
	int owner;
	enum gbsim_mem_kind k;

	if (!rt_device_valid(device))
		return cudaErrorInvalidDevice;
	k = gbsim_mem_kind(p, count, &owner);
	if (k == GBSIM_MEM_DEVICE && owner == device)
		return cudaSuccess;
	gbsim_log("%s: the %s %p (%zu bytes) is not device memory of GPU %d: %s", call, role, p,
		  count, device, k == GBSIM_MEM_DEVICE ? "it is on another GPU" : describe(p, count));
	return cudaErrorInvalidValue;
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
				size_t count, cudaStream_t stream)
{
	struct rt_stream *s;
	cudaError_t e;

	if (count == 0)
		return cudaSuccess;
	if ((e = rt_stream_get(stream, &s)) != cudaSuccess ||
	    (e = check_peer_side("cudaMemcpyPeerAsync", "destination", dst, count, dstDevice)) !=
		    cudaSuccess ||
	    (e = check_peer_side("cudaMemcpyPeerAsync", "source", src, count, srcDevice)) !=
		    cudaSuccess)
		return rt_ret(e);
	return rt_ret(queue_copy("cudaMemcpyPeerAsync", s, dst, count, src, count, count, 1,
				 cudaMemcpyDeviceToDevice, false));
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
	struct rt_stream *s;
	cudaError_t e;

	if (count == 0)
		return cudaSuccess;
	if ((e = legacy_of_current(&s)) != cudaSuccess ||
	    (e = check_peer_side("cudaMemcpyPeer", "destination", dst, count, dstDevice)) !=
		    cudaSuccess ||
	    (e = check_peer_side("cudaMemcpyPeer", "source", src, count, srcDevice)) != cudaSuccess)
		return rt_ret(e);
	return rt_ret(queue_copy("cudaMemcpyPeer", s, dst, count, src, count, count, 1,
				 cudaMemcpyDeviceToDevice, true));
}

static cudaError_t queue_memset(const char *call, struct rt_stream *s, void *p, int value,
				size_t count)
{
	struct side d;
	struct copy_ctx *c;
	struct gbsim_cost cost = {.bytes = (double)count};
	struct gbsim_work w = {.what = call, .run = copy_run, .free_ctx = copy_free};
	cudaError_t e;

	if ((e = rt_sticky(s->device)) != cudaSuccess)
		return e;
	if (!count)
		return cudaSuccess;
	if ((e = classify(call, "destination", p, count, &d)) != cudaSuccess)
		return e;
	if (!device_side_ok(d.kind)) {
		gbsim_log("%s: %p is %s", call, p, kind_name(d.kind));
		return cudaErrorInvalidValue;
	}
	if (!(c = calloc(1, sizeof(*c))))
		return cudaErrorMemoryAllocation;
	*c = (struct copy_ctx){p, NULL, count, 1, count, count, true, value, NULL, -1,
			       d.kind == GBSIM_MEM_DEVICE ? d.device : -1};
	w.ctx = c;
	w.writes_declared = true; /* copy_run reports its device write */
	w.seconds = gbsim_cost_seconds(s->device, &cost);
	return rt_stream_enqueue(s, &w, false, NULL, 0, NULL);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	struct rt_stream *s;
	cudaError_t e = rt_stream_get(stream, &s);

	if (e == cudaSuccess)
		e = queue_memset("cudaMemsetAsync", s, devPtr, value, count);
	return rt_ret(e);
}

/* asynchronous for device memory, as the runtime documents */
cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	struct rt_stream *s;
	cudaError_t e = legacy_of_current(&s);

	if (e == cudaSuccess)
		e = queue_memset("cudaMemset", s, devPtr, value, count);
	return rt_ret(e);
}

static cudaError_t prefetch_run(void *arg)
{
	(void)arg; /* the data is already everywhere: only the time is simulated */
	return cudaSuccess;
}

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
				 unsigned int flags, cudaStream_t stream)
{
	struct gbsim_work w = {.what = "cudaMemPrefetchAsync", .run = prefetch_run};
	struct rt_stream *s;
	cudaError_t e;
	bool to_device = location.type == cudaMemLocationTypeDevice;

	if (flags != 0 || (!to_device && location.type != cudaMemLocationTypeHost))
		return rt_ret(cudaErrorInvalidValue);
	if (to_device && !rt_device_valid(location.id))
		return rt_ret(cudaErrorInvalidDevice);
	if ((e = rt_stream_get(stream, &s)) != cudaSuccess)
		return rt_ret(e);
	if (count && gbsim_mem_kind(devPtr, count, NULL) != GBSIM_MEM_MANAGED) {
		gbsim_log("cudaMemPrefetchAsync(%p, %zu): not managed memory", devPtr, count);
		return rt_ret(cudaErrorInvalidValue);
	}
	w.seconds = to_device ? rt_copy_seconds(count, -1, GBSIM_MEM_HOST, location.id,
						GBSIM_MEM_DEVICE)
			      : rt_copy_seconds(count, s->device, GBSIM_MEM_DEVICE, -1, GBSIM_MEM_HOST);
	return rt_ret(rt_stream_enqueue(s, &w, false, NULL, 0, NULL));
}

/* ---- leaks and reset ---- */

void rt_memory_leaks(int device, struct rt_leak_mem *dev, struct rt_leak_mem *pinned)
{
	memset(dev, 0, sizeof(*dev));
	memset(pinned, 0, sizeof(*pinned));
	pthread_mutex_lock(&rt_table_lock);
	for (size_t i = 0; i < n_allocs; i++) {
		const struct rt_alloc *a = &allocs[i];
		struct rt_leak_mem *l = a->kind == GBSIM_MEM_HOST ? pinned : dev;

		if (a->device != device)
			continue;
		if (!l->count)
			l->first_site = a->site;
		l->count++;
		l->bytes += a->size;
	}
	pthread_mutex_unlock(&rt_table_lock);
}

void rt_memory_reset(int device)
{
	void (*forget)(const void *, size_t) = atomic_load(&deferred_forget);

	pthread_once(&freed_once, init_freed);
	if (forget)
		forget(NULL, 0); /* every deferred write: a reset is rare */
	pthread_mutex_lock(&rt_table_lock);
	for (size_t i = 0; i < n_allocs;) {
		struct rt_alloc gone = allocs[i];

		if (gone.device != device || gone.kind == GBSIM_MEM_HOST) {
			i++;
			continue;
		}
		free(gone.segs);
		gone.segs = NULL;
		allocs[i] = allocs[--n_allocs];
		remember_freed(gone);
	}
	used_bytes[device] = 0;
	pthread_mutex_unlock(&rt_table_lock);
}

/* ---- write stamps and deferred writes (sim.h) ---- */

bool gbsim_mem_stamp(const void *p, size_t bytes, struct gbsim_mem_stamp *out)
{
	uintptr_t u = (uintptr_t)p;
	const struct rt_alloc *a;
	bool ok = false;

	pthread_mutex_lock(&rt_table_lock);
	a = find_live(u);
	if (a && a->kind == GBSIM_MEM_DEVICE && bytes <= a->size - (u - a->base)) {
		size_t start = u - a->base, end = start + bytes;

		out->epoch = atomic_load(&write_epoch);
		out->version = a->version;
		for (int i = 0; i < a->n_segs; i++)
			if (a->segs[i].start < end && start < a->segs[i].end &&
			    a->segs[i].version > out->version)
				out->version = a->segs[i].version;
		ok = true;
	}
	pthread_mutex_unlock(&rt_table_lock);
	return ok;
}

/* Segments a write may track per allocation; past that, the whole allocation moves. */
#define MAX_SEGS 64

/* Room for two more segments (a write and the tail of one it splits); false: none to be had. */
static bool seg_room_locked(struct rt_alloc *a)
{
	int cap = a->cap_segs ? a->cap_segs * 2 : 8;
	struct rt_seg *grown;

	if (a->n_segs + 2 <= a->cap_segs)
		return true;
	if (cap > MAX_SEGS)
		return false;
	grown = realloc(a->segs, (size_t)cap * sizeof(*grown));
	if (!grown)
		return false;
	a->segs = grown;
	a->cap_segs = cap;
	return true;
}

/*
 * [start, end) of a was written (rt_table_lock held): older segments lose
 * what it covers. With no room to track it, the whole allocation moves:
 * stamps of untouched ranges change too, which costs a hash, never a
 * wrong match.
 */
static void note_write_locked(struct rt_alloc *a, size_t start, size_t end)
{
	uint64_t version = ++version_clock;

	if (!seg_room_locked(a)) {
		a->n_segs = 0;
		a->version = version;
		return;
	}
	for (int i = 0; i < a->n_segs;) {
		struct rt_seg *s = &a->segs[i];

		if (s->end <= start || end <= s->start) {
			i++;
		} else if (s->start < start && end < s->end) {
			/* the write falls inside: the part after it becomes a segment of its own */
			a->segs[a->n_segs++] = (struct rt_seg){ end, s->end, s->version };
			s->end = start;
			i++;
		} else if (s->start < start) {
			s->end = start;
			i++;
		} else if (end < s->end) {
			s->start = end;
			i++;
		} else {
			*s = a->segs[--a->n_segs];
		}
	}
	a->segs[a->n_segs++] = (struct rt_seg){ start, end, version };
}

void gbsim_mem_wrote(const void *p, size_t bytes)
{
	uintptr_t u = (uintptr_t)p;
	struct rt_alloc *a;

	pthread_mutex_lock(&rt_table_lock);
	if ((a = find_live(u))) {
		size_t start = u - a->base;

		if (!bytes || bytes > a->size - start) {
			a->n_segs = 0;
			a->version = ++version_clock;
		} else {
			note_write_locked(a, start, start + bytes);
		}
	}
	pthread_mutex_unlock(&rt_table_lock);
}

void gbsim_set_deferred_hooks(void (*flush)(const void *p, size_t bytes),
			      void (*forget)(const void *base, size_t size),
			      bool (*content)(const void *p, size_t bytes, uint64_t digest[2]))
{
	atomic_store(&deferred_flush, flush);
	atomic_store(&deferred_forget, forget);
	atomic_store(&deferred_content, content);
}

/* ---- content digests (sim.h gbsim_mem_digest) ---- */

#define DIGEST_MEMO 64

struct digest_memo {
	const void *p;
	size_t bytes;
	struct gbsim_mem_stamp st;
	uint64_t h[2];
	uint64_t used;
};

static pthread_mutex_t digest_lock = PTHREAD_MUTEX_INITIALIZER;
static struct digest_memo digest_memo[DIGEST_MEMO];
static uint64_t digest_clock;

static bool same_stamp(const struct gbsim_mem_stamp *a, const struct gbsim_mem_stamp *b)
{
	return a->epoch == b->epoch && a->version == b->version;
}

/* A digest taken under this stamp (digest_lock held); NULL if none. */
static struct digest_memo *digest_find(const void *p, size_t bytes,
				       const struct gbsim_mem_stamp *st)
{
	for (int i = 0; i < DIGEST_MEMO; i++) {
		struct digest_memo *d = &digest_memo[i];

		if (d->p == p && d->bytes == bytes && same_stamp(&d->st, st))
			return d;
	}
	return NULL;
}

static void digest_keep(const void *p, size_t bytes, const struct gbsim_mem_stamp *st,
			const uint64_t h[2])
{
	struct digest_memo *victim = &digest_memo[0];

	pthread_mutex_lock(&digest_lock);
	for (int i = 1; i < DIGEST_MEMO; i++)
		if (digest_memo[i].used < victim->used)
			victim = &digest_memo[i];
	*victim = (struct digest_memo){ p, bytes, *st, { h[0], h[1] }, ++digest_clock };
	pthread_mutex_unlock(&digest_lock);
}

bool gbsim_mem_digest(const void *p, size_t bytes, uint64_t digest[2])
{
	bool (*content)(const void *, size_t, uint64_t[2]) = atomic_load(&deferred_content);
	struct gbsim_mem_stamp st, after;
	struct digest_memo *d;

	if (!gbsim_mem_stamp(p, bytes, &st))
		return false;
	if (content && content(p, bytes, digest))
		return true;
	pthread_mutex_lock(&digest_lock);
	if ((d = digest_find(p, bytes, &st))) {
		d->used = ++digest_clock;
		digest[0] = d->h[0];
		digest[1] = d->h[1];
	}
	pthread_mutex_unlock(&digest_lock);
	if (d)
		return true;
	gbsim_mem_flush(p, bytes); /* a deferred result that covers part of it lands first */
	gbsim_mem_stamp(p, bytes, &st);
	digest[0] = 0x6279746573206f66ull; /* "bytes of" */
	digest[1] = (uint64_t)bytes;
	gbsim_hash_bytes(digest, p, bytes);
	/* kept only if nothing wrote the range while it was read */
	if (gbsim_mem_stamp(p, bytes, &after) && same_stamp(&st, &after))
		digest_keep(p, bytes, &st, digest);
	return true;
}

void rt_mem_undeclared_work(bool before)
{
	atomic_fetch_add(&write_epoch, 1);
	if (before)
		flush_deferred();
}
