/* SPDX-License-Identifier: MIT */
/*
 * bandwidth.c - `gpubench bandwidth`: host<->device copies (one way and both
 * at once), device-local copies and STREAM, each over a size sweep, by the
 * copy engine and by SM kernels, from pinned, pageable and managed memory.
 *
 * Method (nvbandwidth's): every copy of a sample is queued behind a spin
 * kernel that waits on a host-mapped flag, warm-up copies included, so host
 * enqueue time is not measured and concurrent copies start together; CUDA
 * events bracket `loops` copies; at least 3 samples, the median is the
 * value; the destination is poisoned before and verified on the device
 * after every sample. Pageable copies cannot sit behind a blocked stream
 * (the runtime stages them through the host thread, which would wait on the
 * blocker) and managed prefetches must be undone between copies, so those
 * are timed with plain events. The sweep is fitted to t = alpha + n/beta;
 * beta only where the sweep can pin it (see add_fit). The halves of a
 * two-way copy are timed again under a 2x interferer (measure_halves).
 * The PCIe link is read through NVML while pinned copies run: idle links
 * drop to Gen1, so only a reading under load says how the link trained.
 * Host buffers and the thread go next to the GPU (bench/host_numa.h), and
 * the report says where the pages really landed.
 *
 * Conventions are in bench/copy_math.h and docs/bandwidth.md.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench.h"
#include "peer_math.h"
#include "copy_engine.h"
#include "copy_math.h"
#include "gpu.h"
#include "host_numa.h"
#include "kernels/kernels.h"
#include "nvml.h"
#include "report/theory.h"
#include "telemetry.h"

/* ---- options ---- */

enum { OPT_H2D = 0, OPT_D2H, OPT_BIDIR, OPT_D2D, OPT_STREAM };
static const char *const test_choices[] = { "h2d", "d2h", "bidir", "d2d", "stream", NULL };
/* indices match enum gb_copy_memory */
static const char *const memory_choices[] = { "pinned", "pageable", "managed", NULL };
/* indices match enum gb_copy_method */
static const char *const method_choices[] = { "ce", "sm", NULL };

struct bw_params {
	uint32_t tests;    /* bitmask over test_choices */
	uint32_t memory;   /* bitmask over memory_choices */
	uint32_t methods;  /* bitmask over method_choices */
	uint64_t min_size;
	uint64_t max_size;
	int64_t factor;
	int64_t samples;
	int64_t loops;
	bool no_verify;
	double peer_tol;   /* --peer-tolerance: a GPU this far below its model's best fails */
};

#define GIB (1024.0 * 1024.0 * 1024.0)

static const struct gb_opt bw_opts[] = {
	{ GB_OPT_ENUM_LIST, 0, "tests", offsetof(struct bw_params, tests), "LIST",
	  "tests to run (default all)", 0, 0, test_choices, 0 },
	GB_OPT_REFUSED('t', NULL,
		       "is no longer short for '--tests'; use '--tests' ('-t' is stress's "
		       "'--duration')"),
	{ GB_OPT_ENUM_LIST, 0, "memory", offsetof(struct bw_params, memory), "LIST",
	  "host memory for h2d/d2h/bidir (default pinned)", 0, 0, memory_choices, 0 },
	{ GB_OPT_ENUM_LIST, 0, "method", offsetof(struct bw_params, methods), "LIST",
	  "copy engine (ce), SM kernel (sm) or both (default both)", 0, 0, method_choices, 0 },
	{ GB_OPT_SIZE, 0, "min-size", offsetof(struct bw_params, min_size), "SIZE",
	  "smallest copy of the sweep (default 4K)", 16, 64 * GIB, NULL, 0 },
	{ GB_OPT_SIZE, 0, "max-size", offsetof(struct bw_params, max_size), "SIZE",
	  "largest copy of the sweep, the headline size (default 512M, as nvbandwidth)", 16,
	  64 * GIB, NULL, 0 },
	{ GB_OPT_COUNT, 0, "factor", offsetof(struct bw_params, factor), "N",
	  "size step of the sweep (default 2)", 2, 1024, NULL, 0 },
	{ GB_OPT_COUNT, 'n', "samples", offsetof(struct bw_params, samples), "N",
	  "samples per size; the median is reported (default 5)", 3, 1000, NULL, 0 },
	/* every copy of a sample queues behind the blocker (see GB_CE_MAX_LOOPS) */
	{ GB_OPT_COUNT, 0, "loops", offsetof(struct bw_params, loops), "N",
	  "copies timed together in one sample (default 16)", 1, GB_CE_MAX_LOOPS, NULL, 0 },
	{ GB_OPT_BOOL, 0, "no-verify", offsetof(struct bw_params, no_verify), NULL,
	  "do not check the copied data after each sample", 0, 0, NULL, 0 },
	{ GB_OPT_PERCENT, 0, "peer-tolerance", offsetof(struct bw_params, peer_tol), "PCT",
	  "fail a GPU more than this below the best GPU of its model (default 10%)", 0, 1, NULL,
	  0 },
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};

static void bw_defaults(void *params)
{
	struct bw_params *p = params;

	memset(p, 0, sizeof(*p));
	p->tests = (1u << OPT_H2D) | (1u << OPT_D2H) | (1u << OPT_BIDIR) | (1u << OPT_D2D) |
		   (1u << OPT_STREAM);
	p->memory = 1u << GB_MEM_PINNED;
	p->methods = (1u << GB_CM_CE) | (1u << GB_CM_SM);
	p->min_size = 4 * 1024;
	p->max_size = 512ull * 1024 * 1024;
	p->factor = 2;
	p->samples = 5;
	p->loops = 16;
	p->peer_tol = GB_PEER_TOLERANCE_DEFAULT;
}

static int bw_validate(const void *params, char *err, size_t errlen)
{
	const struct bw_params *p = params;

	return gb_copy_check_sweep(p->min_size, p->max_size, (uint64_t)p->factor, err, errlen);
}

/* ---- state ---- */

/* Patterns: sources, the second source of a two-way test, and the poison. */
#define SEED_SRC 0xBAADF00DULL
#define SEED_SRC2 0x5EED5EEDULL
#define SEED_POISON 0xCAFEBABEULL
#define STREAM_Q 3.0
/* untimed runs at the largest size before a sweep: clocks and link speed settle */
#define WARMUP_SECONDS 0.2
#define WARMUP_MAX_RUNS 50
/* NVML telemetry while the copies run: clocks, power, throttling */
#define TELEMETRY_INTERVAL_S 0.1
/*
 * The link is read after the release, once per sample: a sample must keep
 * it busy long enough (about 10 ms at Gen5) or the reading is of an idle
 * link that has dropped to Gen1, a false "downtrained" finding.
 */
#define LINK_READ_MIN_BYTES (512.0 * 1024 * 1024)

struct dev_state {
	int dev;
	int sm_count;
	bool managed_ok;          /* the GPU can prefetch managed memory */
	const struct gb_device_info *info;
	struct gb_copy_theory theory;
	struct gb_ce_flag *flag;  /* the stream blocker */
	struct gb_ce_stream cs[2]; /* one per direction of a two-way CE copy; cs[0] for the rest */
	unsigned long long *bad;  /* device mismatch counter */
	void *d[3];               /* device buffers of max_size; d[2] doubles as scratch */
	void *h[2];               /* host buffers of the memory kind under test */
	void *h_view[2];          /* what a kernel can dereference for h[], NULL if nothing */
	enum gb_copy_memory hmem;
	/* where host buffers go: the node of the GPU's PCI function (NVML's when sysfs has
	 * none), -1 when unknown or memory-only (GH200 reports its GPU memory as a node) */
	int host_node;
	const char *host_node_from; /* "pci_sysfs", "nvml", or NULL */
	char host_node_note[160];   /* why host_node is -1, or "" */
	bool numa_bound;          /* pinned buffers bound to host_node (and seen there, if visible) */
	int pinned_node_seen;     /* where most pinned pages are, -1 when the kernel does not say */
	int pageable_node_seen;   /* the same for pageable buffers */
	double pinned_node_frac, pageable_node_frac;
	char cpus[256];           /* CPUs the thread ran the host tests on, or why not pinned */
	bool cpus_pinned;
	struct cudaMemLocation managed_host; /* where a managed d2h prefetch goes */
	bool read_link;           /* read the PCIe link during the next blocked run */
	int link_gen, link_width; /* best seen under load; -1 when never read */
	long long mismatches;     /* over every verified sample; -1 when nothing verified */
	char first_bad[200];      /* which test first showed wrong data */
	cJSON *not_run;           /* [{test, method, memory, reason}] */
	cJSON *curves;            /* {test: [{bytes, gbps, cv, min, max, n}]}: spread per size */
	cJSON *fits;              /* [{test, points, alpha_us, beta_gbps, ..., beta_note}] */
	cJSON *notes;             /* [strings]: what was measured differently, and why */
	/* the spread goal (CV <= 2% at >= 64 MiB) over pinned and device tests */
	int spread_points, spread_high;
	double spread_worst_cv;
	char spread_worst[96];
};

struct bw {
	const struct bw_params *p;
	struct gb_ctx *ctx;
	struct gb_bench_result *res;
	uint64_t sizes[GB_COPY_SWEEP_MAX];
	size_t n_sizes;
	size_t max_bytes;
	bool verify;
	double *cur;              /* this size's samples, GB/s */
	double *last;             /* the largest size's samples, for the headline metric */
	size_t n_last;
	double *half[2];          /* the largest size's bidir CE halves, each under a 2x interferer */
	size_t n_half[2];
	struct gb_sampler *sampler; /* NULL without NVML */
	cJSON *dev_extra;         /* extra.devices */
};

/* One end of a copy: a pointer for the copy engine, one for kernels, and its pattern. */
struct slot {
	void *dst, *dst_view;
	const void *src;
	void *src_view;
	uint64_t seed;            /* what dst must hold after the copy */
};

struct op {
	enum gb_copy_test test;
	enum gb_copy_method method;
	enum gb_copy_memory mem;
	size_t bytes;
	int nstreams;             /* 2 for bidirectional copy-engine copies */
	int nslots;               /* copies per operation: 2 for bidirectional */
	struct slot slot[2];
};

/* A sweep's results. */
struct curve {
	double size[GB_COPY_SWEEP_MAX];
	double gbps[GB_COPY_SWEEP_MAX]; /* median per size */
	struct gb_stats stats[GB_COPY_SWEEP_MAX]; /* spread per size */
	size_t n;
	double last_size;
};

/* ---- small helpers ---- */

static cJSON *num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static bool test_selected(const struct bw *b, int opt)
{
	return b->p->tests & (1u << opt);
}

static bool method_selected(const struct bw *b, enum gb_copy_method m)
{
	return b->p->methods & (1u << m);
}

/* The GPU, or the host side of a managed migration (the GPU's node when it took one). */
static struct cudaMemLocation location(const struct dev_state *st, bool device)
{
	struct cudaMemLocation loc;

	if (!device)
		return st->managed_host;
	memset(&loc, 0, sizeof(loc));
	loc.type = cudaMemLocationTypeDevice;
	loc.id = st->dev;
	return loc;
}

static enum gb_stream_op stream_op(enum gb_copy_test t)
{
	switch (t) {
	case GB_CT_STREAM_SCALE:
		return GB_STREAM_SCALE;
	case GB_CT_STREAM_ADD:
		return GB_STREAM_ADD;
	case GB_CT_STREAM_TRIAD:
		return GB_STREAM_TRIAD;
	default:
		return GB_STREAM_COPY;
	}
}

static bool is_host_test(enum gb_copy_test t)
{
	return t == GB_CT_H2D || t == GB_CT_D2H || t == GB_CT_BIDIR;
}

/* "h2d_ce_pinned", "d2d_sm", "stream_triad" */
static void metric_base(char *buf, size_t len, const struct op *op)
{
	if (gb_copy_test_is_stream(op->test))
		snprintf(buf, len, "%s", gb_copy_test_name(op->test));
	else if (op->mem == GB_MEM_DEVICE)
		snprintf(buf, len, "%s_%s", gb_copy_test_name(op->test),
			 gb_copy_method_name(op->method));
	else
		snprintf(buf, len, "%s_%s_%s", gb_copy_test_name(op->test),
			 gb_copy_method_name(op->method), gb_copy_memory_name(op->mem));
}

static void add_not_run(struct dev_state *st, enum gb_copy_test t, enum gb_copy_method m,
			enum gb_copy_memory mem, const char *reason)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "test", gb_copy_test_name(t));
	cJSON_AddStringToObject(o, "method", gb_copy_method_name(m));
	cJSON_AddStringToObject(o, "memory", gb_copy_memory_name(mem));
	cJSON_AddStringToObject(o, "reason", reason);
	cJSON_AddItemToArray(st->not_run, o);
}

/* ---- per-device resources ---- */

static void dev_state_init(struct dev_state *st, int dev)
{
	memset(st, 0, sizeof(*st));
	st->dev = dev;
	st->link_gen = st->link_width = -1;
	st->mismatches = -1;
	st->hmem = GB_MEM_DEVICE;
	st->host_node = -1;
	st->pinned_node_seen = st->pageable_node_seen = -1;
	st->managed_host.type = cudaMemLocationTypeHost;
	st->not_run = cJSON_CreateArray();
	st->curves = cJSON_CreateObject();
	st->fits = cJSON_CreateArray();
	st->notes = cJSON_CreateArray();
}

/* One line for extra.devices[].notes. */
static void add_note(struct dev_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_note(struct dev_state *st, const char *fmt, ...)
{
	char line[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(st->notes, cJSON_CreateString(line));
}

/*
 * The node host buffers belong on: the PCI function's node from sysfs,
 * else NVML's. A node without CPUs is GPU memory exposed as a node (GH200):
 * host buffers bound there would sit in HBM, so nothing is bound.
 */
static void choose_host_node(struct dev_state *st)
{
	const struct gb_device_info *d = st->info;
	int node = gb_pci_numa_node(d ? d->pci_bus_id : NULL);

	st->host_node_from = "pci_sysfs";
	if (node < 0) {
		node = d ? d->numa_node : -1;
		st->host_node_from = "nvml";
	}
	if (node < 0) {
		st->host_node_from = NULL;
		snprintf(st->host_node_note, sizeof(st->host_node_note),
			 "the GPU's NUMA node is unknown (no NUMA, or neither sysfs nor NVML says)");
	} else if (!gb_numa_node_has_cpus(node)) {
		snprintf(st->host_node_note, sizeof(st->host_node_note),
			 "NUMA node %d (from %s) has no CPUs: it is memory, likely the GPU's own, "
			 "so host buffers are not bound to it",
			 node, st->host_node_from);
		st->host_node_from = NULL;
		node = -1;
	}
	st->host_node = node;
}

static int dev_open(struct bw *b, struct dev_state *st)
{
	struct gb_bench_result *res = b->res;
	int rc = 0, managed = 0;

	GB_CUDA_GOTO(res, cudaSetDevice(st->dev), out);
	/* an error an earlier step tolerated must not surface in this device's first launch */
	cudaGetLastError();
	/* no kernel may be loaded for the first time behind a blocked stream (copy.h) */
	GB_CUDA_GOTO(res, gb_copy_preload(), out);
	GB_CUDA_GOTO(res, cudaDeviceGetAttribute(&st->sm_count, cudaDevAttrMultiProcessorCount, st->dev),
		     out);
	GB_CUDA_GOTO(res, cudaDeviceGetAttribute(&managed, cudaDevAttrConcurrentManagedAccess, st->dev),
		     out);
	st->managed_ok = managed != 0;
	GB_CUDA_GOTO(res, gb_ce_flag_alloc(&st->flag, st->dev), out);
	for (int i = 0; i < 2; i++)
		GB_CUDA_GOTO(res, gb_ce_stream_open(&st->cs[i], st->dev, st->flag), out);
	GB_CUDA_GOTO(res, cudaMalloc((void **)&st->bad, sizeof(*st->bad)), out);
	for (int i = 0; i < 3; i++) {
		cudaError_t e = cudaMalloc(&st->d[i], b->max_bytes);

		/* "cannot allocate 3 x 512 MiB of device memory for device 0: ...; 2 GiB free" */
		if (e != cudaSuccess)
			return gb_ce_alloc_error(res, e, 3, (double)b->max_bytes, "device memory",
						 st->dev);
	}
out:
	return rc;
}

static void free_host(struct dev_state *st)
{
	for (int i = 0; i < 2; i++) {
		if (!st->h[i])
			continue;
		if (st->hmem == GB_MEM_PINNED)
			cudaFreeHost(st->h[i]);
		else if (st->hmem == GB_MEM_MANAGED)
			cudaFree(st->h[i]);
		else
			free(st->h[i]);
		st->h[i] = st->h_view[i] = NULL;
	}
	st->hmem = GB_MEM_DEVICE;
}

static void dev_close(struct dev_state *st)
{
	/* let any spin kernel still queued finish before its flag is freed */
	gb_ce_flag_set(st->flag, 1);
	cudaSetDevice(st->dev);
	cudaDeviceSynchronize();
	free_host(st);
	/* cudaFree(NULL) does nothing: what dev_open never allocated is skipped */
	for (int i = 0; i < 3; i++)
		cudaFree(st->d[i]);
	cudaFree(st->bad);
	for (int i = 0; i < 2; i++)
		gb_ce_stream_close(&st->cs[i]);
	gb_ce_flag_free(st->flag);
	st->flag = NULL;
	/* what teardown could not do is not this run's error, nor the next device's */
	cudaGetLastError();
	cJSON_Delete(st->not_run);
	cJSON_Delete(st->curves);
	cJSON_Delete(st->fits);
	cJSON_Delete(st->notes);
	st->not_run = st->curves = st->fits = st->notes = NULL;
}

static cudaError_t alloc_one_host(void **p, void **view, size_t bytes, enum gb_copy_memory mem)
{
	cudaError_t e;

	*view = NULL;
	switch (mem) {
	case GB_MEM_PINNED:
		e = cudaHostAlloc(p, bytes, cudaHostAllocPortable | cudaHostAllocMapped);
		if (e == cudaSuccess)
			e = cudaHostGetDevicePointer(view, *p, 0);
		return e;
	case GB_MEM_MANAGED:
		e = cudaMallocManaged(p, bytes, cudaMemAttachGlobal);
		if (e == cudaSuccess)
			*view = *p;
		return e;
	default:
		*p = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
		if (!*p)
			return cudaErrorMemoryAllocation;
		/* touch every page now, under the NUMA policy, not inside a timed copy */
		memset(*p, 0, bytes);
		return cudaSuccess;
	}
}

static cudaError_t alloc_pair(struct dev_state *st, size_t bytes, enum gb_copy_memory mem)
{
	cudaError_t e = cudaSuccess;

	st->hmem = mem;
	for (int i = 0; i < 2 && e == cudaSuccess; i++)
		e = alloc_one_host(&st->h[i], &st->h_view[i], bytes, mem);
	return e;
}

/* "pinned host memory (NUMA node 0)": what an allocation error names */
static void host_kind(char *buf, size_t len, enum gb_copy_memory mem, int node, bool retried)
{
	const char *what = mem == GB_MEM_PINNED	    ? "pinned host memory"
			   : mem == GB_MEM_MANAGED ? "managed memory"
						    : "pageable host memory";

	if (retried)
		snprintf(buf, len, "%s (NUMA node %d, then any node)", what, node);
	else if (node >= 0)
		snprintf(buf, len, "%s (NUMA node %d)", what, node);
	else
		snprintf(buf, len, "%s", what);
}

/*
 * Managed pages prefetched to the host go to the GPU's node when the driver
 * takes a host NUMA location (CUDA 12.2+), else wherever the host puts them.
 * An untimed prefetch tries it once.
 */
static int set_managed_host(struct bw *b, struct dev_state *st)
{
	struct gb_bench_result *res = b->res;
	int rc = 0;

	st->managed_host.type = cudaMemLocationTypeHost;
	st->managed_host.id = 0;
#if CUDART_VERSION >= 12020
	/* without concurrent managed access no managed test runs: nothing to try */
	if (st->host_node >= 0 && st->managed_ok) {
		struct cudaMemLocation loc = { .type = cudaMemLocationTypeHostNuma,
					       .id = st->host_node };
		cudaError_t e = cudaMemPrefetchAsync(st->h[0], b->max_bytes, loc, 0, st->cs[0].s);

		if (e == cudaSuccess)
			e = cudaStreamSynchronize(st->cs[0].s);
		if (e == cudaSuccess) {
			st->managed_host = loc;
			return 0;
		}
		(void)cudaGetLastError();
		add_note(st, "managed memory: a prefetch to host NUMA node %d was refused (%s); "
			     "d2h migrations go to the host without a node",
			 st->host_node, cudaGetErrorName(e));
	}
#endif
	GB_CUDA_GOTO(res, cudaStreamSynchronize(st->cs[0].s), out);
out:
	return rc;
}

/* Where the kernel put the pages of a pinned or pageable buffer, for the report. */
static void observe_placement(struct dev_state *st, enum gb_copy_memory mem, size_t bytes)
{
	double frac = 0;
	int node = gb_numa_pages_node(st->h[0], bytes, &frac);

	if (mem == GB_MEM_PINNED) {
		st->pinned_node_seen = node;
		st->pinned_node_frac = frac;
		/* bound, but the pages are elsewhere: the bind did not take */
		if (node >= 0 && st->numa_bound && (node != st->host_node || frac < 1))
			st->numa_bound = false;
	} else if (mem == GB_MEM_PAGEABLE) {
		st->pageable_node_seen = node;
		st->pageable_node_frac = frac;
	}
}

/*
 * Two host buffers of the kind under test. Pinned and pageable pages are
 * placed on the GPU's NUMA node (bound with set_mempolicy while they are
 * allocated and first touched); if that fails the allocation is retried
 * unbound and the report says numa_bound: false. Where the pages landed is
 * then read back (move_pages), where the kernel says.
 */
static int alloc_host(struct bw *b, struct dev_state *st, enum gb_copy_memory mem)
{
	struct gb_numa_saved saved;
	bool bound = mem != GB_MEM_MANAGED && gb_numa_bind(st->host_node, &saved);
	bool retried = false;
	cudaError_t e = alloc_pair(st, b->max_bytes, mem);
	char kind[96];

	if (bound)
		gb_numa_unbind(&saved);
	if (e != cudaSuccess && bound) {
		/* the node may be short of memory: any node beats not running */
		cudaGetLastError();
		free_host(st);
		bound = false;
		retried = true;
		e = alloc_pair(st, b->max_bytes, mem);
	}
	if (e != cudaSuccess) {
		host_kind(kind, sizeof(kind), mem, mem == GB_MEM_MANAGED ? -1 : st->host_node,
			  retried);
		return gb_ce_alloc_error(b->res, e, 2, (double)b->max_bytes, kind, st->dev);
	}
	if (mem == GB_MEM_PINNED)
		st->numa_bound = bound;
	if (mem == GB_MEM_MANAGED)
		return set_managed_host(b, st);
	observe_placement(st, mem, b->max_bytes);
	return 0;
}

/* ---- fill and verify any buffer, through the scratch buffer when no kernel can reach it ---- */

static int fill_buf(struct bw *b, struct dev_state *st, void *ptr, void *view, size_t bytes,
		    uint64_t seed)
{
	struct gb_bench_result *res = b->res;
	int rc = 0;

	cudaStream_t s = st->cs[0].s;

	if (view) {
		GB_CUDA_GOTO(res, gb_launch_pattern_fill(view, bytes, seed, st->sm_count, s), out);
	} else {
		GB_CUDA_GOTO(res, gb_launch_pattern_fill(st->d[2], bytes, seed, st->sm_count, s), out);
		GB_CUDA_GOTO(res, cudaMemcpyAsync(ptr, st->d[2], bytes, cudaMemcpyDefault, s), out);
	}
	GB_CUDA_GOTO(res, cudaStreamSynchronize(s), out);
out:
	return rc;
}

static int verify_buf(struct bw *b, struct dev_state *st, const void *ptr, const void *view,
		      size_t bytes, uint64_t seed, long long *bad)
{
	struct gb_bench_result *res = b->res;
	int rc = 0;

	if (!view) {
		GB_CUDA_GOTO(res, cudaMemcpyAsync(st->d[2], ptr, bytes, cudaMemcpyDefault,
						  st->cs[0].s),
			     out);
		view = st->d[2];
	}
	rc = gb_ce_verify(res, st->cs[0].s, view, bytes, seed, st->bad, st->sm_count, bad);
out:
	return rc;
}

/* ---- operations ---- */

static void set_slot(struct slot *s, void *dst, void *dst_view, const void *src, void *src_view,
		     uint64_t seed)
{
	s->dst = dst;
	s->dst_view = dst_view;
	s->src = src;
	s->src_view = src_view;
	s->seed = seed;
}

static void make_op(struct op *op, struct dev_state *st, enum gb_copy_test t,
		    enum gb_copy_method m, enum gb_copy_memory mem, size_t bytes)
{
	memset(op, 0, sizeof(*op));
	op->test = t;
	op->method = m;
	op->mem = mem;
	op->bytes = bytes;
	op->nstreams = op->nslots = 1;
	switch (t) {
	case GB_CT_H2D:
		set_slot(&op->slot[0], st->d[0], st->d[0], st->h[0], st->h_view[0], SEED_SRC);
		break;
	case GB_CT_D2H:
		set_slot(&op->slot[0], st->h[0], st->h_view[0], st->d[0], st->d[0], SEED_SRC);
		break;
	case GB_CT_BIDIR:
		set_slot(&op->slot[0], st->d[0], st->d[0], st->h[0], st->h_view[0], SEED_SRC);
		set_slot(&op->slot[1], st->h[1], st->h_view[1], st->d[1], st->d[1], SEED_SRC2);
		op->nslots = 2;
		/* the SM form is one split-warp kernel; the copy engine needs a stream per direction */
		op->nstreams = m == GB_CM_CE ? 2 : 1;
		break;
	case GB_CT_D2D:
		set_slot(&op->slot[0], st->d[1], st->d[1], st->d[0], st->d[0], SEED_SRC);
		break;
	default: /* STREAM: dst d[2], x d[0], y d[1] */
		set_slot(&op->slot[0], st->d[2], st->d[2], st->d[0], st->d[0], SEED_SRC);
		set_slot(&op->slot[1], NULL, NULL, st->d[1], st->d[1], SEED_SRC2);
		break;
	}
}

static bool managed_ce(const struct op *op)
{
	return op->mem == GB_MEM_MANAGED && op->method == GB_CM_CE;
}

/* The managed buffer of a managed test: the source of h2d, the destination of d2h. */
static const void *managed_buf(const struct op *op)
{
	return op->test == GB_CT_H2D ? op->slot[0].src : op->slot[0].dst;
}

/* Enqueue one operation on stream i (the copy of slot i). */
static cudaError_t issue(struct dev_state *st, const struct op *op, int i)
{
	const struct slot *s = &op->slot[i];

	if (gb_copy_test_is_stream(op->test))
		return gb_launch_stream(stream_op(op->test), s->dst_view, s->src_view,
					op->slot[1].src_view, STREAM_Q, op->bytes / sizeof(double),
					st->sm_count, st->cs[0].s);
	if (managed_ce(op))
		/* "copying" managed memory is migrating it: prefetch it across the link */
		return cudaMemPrefetchAsync(managed_buf(op), op->bytes,
					    location(st, op->test == GB_CT_H2D), 0, st->cs[0].s);
	if (op->method == GB_CM_CE)
		return cudaMemcpyAsync(s->dst, s->src, op->bytes, cudaMemcpyDefault, st->cs[i].s);
	if (op->nslots == 2)
		return gb_launch_sm_copy_bidir(op->slot[0].dst_view, op->slot[0].src_view,
					       op->slot[1].dst_view, op->slot[1].src_view, op->bytes,
					       st->sm_count, st->cs[0].s);
	return gb_launch_sm_copy(s->dst_view, s->src_view, op->bytes, st->sm_count, st->cs[0].s);
}

/* Put a managed buffer back on the side the next timed migration starts from. */
static cudaError_t managed_reset(struct dev_state *st, const struct op *op)
{
	bool to_device = op->method == GB_CM_CE && op->test == GB_CT_D2H;

	return cudaMemPrefetchAsync(managed_buf(op), op->bytes, location(st, to_device), 0,
				    st->cs[0].s);
}

/* ---- timing ---- */

/* The link as NVML reports it now, while copies run; keeps the best reading. */
static void read_link_under_load(struct dev_state *st)
{
	struct gb_device_info tmp;

	if (!gb_nvml_loaded() || !st->info || !st->info->pci_bus_id)
		return;
	gb_device_info_init(&tmp);
	tmp.pci_bus_id = gb_strdup(st->info->pci_bus_id);
	gb_nvml_fill_device(&tmp, NULL, 0);
	/* the best reading: a link may still be ramping up in the first one */
	if (tmp.pcie_gen > st->link_gen)
		st->link_gen = tmp.pcie_gen;
	if (tmp.pcie_width > st->link_width)
		st->link_width = tmp.pcie_width;
	free(tmp.pci_bus_id);
	free(tmp.name);
	free(tmp.uuid);
	free(tmp.brand);
	free(tmp.spec_key);
}

struct issue_ctx {
	struct dev_state *st;
	const struct op *op;
};

static cudaError_t issue_cb(void *user, int i)
{
	const struct issue_ctx *c = user;

	return issue(c->st, c->op, i);
}

static void released_cb(void *user)
{
	const struct issue_ctx *c = user;

	if (c->st->read_link)
		read_link_under_load(c->st);
}

/*
 * loops copies per stream behind the blocker (pinned and device memory):
 * warm-up copies and the start events are queued before the release, so all
 * streams start together and enqueue cost is outside the events. Without
 * the blocker (pageable), the same sequence runs as it is queued.
 */
static int timed_streams(struct bw *b, struct dev_state *st, const struct op *op, bool blocker,
			 const long *loops_of, double sec[2])
{
	struct issue_ctx c = { st, op };
	struct gb_ce_stream *streams[2] = { &st->cs[0], &st->cs[1] };
	struct gb_ce_sample smp = {
		.st = streams,
		.n = op->nstreams,
		.flag = blocker ? st->flag : NULL,
		.warmup = GB_CE_WARMUP,
		.loops = (long)b->p->loops,
		.issue = issue_cb,
		.user = &c,
		.released = released_cb,
	};

	if (loops_of) {
		smp.loops_of[0] = loops_of[0];
		smp.loops_of[1] = loops_of[1];
	}
	return gb_ce_time(b->res, &smp, sec);
}

/*
 * Managed memory: each migration is timed on its own, after an untimed
 * prefetch puts the pages back where it starts, and the times are summed.
 */
static int timed_managed(struct bw *b, struct dev_state *st, const struct op *op, double *sec)
{
	struct gb_bench_result *res = b->res;
	struct gb_ce_stream *cs = &st->cs[0];
	int rc = 0;
	double total = 0, one = 0;

	for (long l = 0; l < (long)b->p->loops; l++) {
		GB_CUDA_GOTO(res, managed_reset(st, op), out);
		GB_CUDA_GOTO(res, cudaEventRecord(cs->start, cs->s), out);
		GB_CUDA_GOTO(res, issue(st, op, 0), out);
		GB_CUDA_GOTO(res, cudaEventRecord(cs->stop, cs->s), out);
		if ((rc = gb_ce_elapsed(res, cs, &one)))
			goto out;
		total += one;
	}
	*sec = total;
out:
	return rc;
}

static int timed_run(struct bw *b, struct dev_state *st, const struct op *op, double sec[2])
{
	if (op->mem == GB_MEM_MANAGED)
		return timed_managed(b, st, op, &sec[0]);
	return timed_streams(b, st, op, op->mem != GB_MEM_PAGEABLE, NULL, sec);
}

/* ---- one test ---- */

/* Sources get their pattern once per test, at the largest size (patterns are by position). */
static int setup_sources(struct bw *b, struct dev_state *st, const struct op *op)
{
	struct gb_bench_result *res = b->res;
	int rc = 0;

	if (gb_copy_test_is_stream(op->test)) {
		size_t n = b->max_bytes / sizeof(double);

		GB_CUDA_GOTO(res, gb_launch_pattern_fill_double(op->slot[0].src_view, n, SEED_SRC,
								st->sm_count, st->cs[0].s),
			     out);
		GB_CUDA_GOTO(res, gb_launch_pattern_fill_double(op->slot[1].src_view, n, SEED_SRC2,
								st->sm_count, st->cs[0].s),
			     out);
		GB_CUDA_GOTO(res, cudaStreamSynchronize(st->cs[0].s), out);
		return 0;
	}
	if (managed_ce(op))
		return fill_buf(b, st, (void *)managed_buf(op), (void *)managed_buf(op), b->max_bytes,
				SEED_SRC);
	for (int i = 0; i < op->nslots && rc == 0; i++)
		rc = fill_buf(b, st, (void *)op->slot[i].src, op->slot[i].src_view, b->max_bytes,
			      op->slot[i].seed);
out:
	return rc;
}

/* Overwrite what the copy will write, so a copy that writes nothing cannot pass. */
static int poison(struct bw *b, struct dev_state *st, const struct op *op)
{
	int rc = 0;

	if (managed_ce(op))
		return 0; /* migrated, not copied: the pages themselves are checked */
	for (int i = 0; i < op->nslots && rc == 0; i++)
		if (op->slot[i].dst)
			rc = fill_buf(b, st, op->slot[i].dst, op->slot[i].dst_view, op->bytes,
				      SEED_POISON);
	return rc;
}

static int verify_op(struct bw *b, struct dev_state *st, const struct op *op, long long *bad)
{
	struct gb_bench_result *res = b->res;
	long long one = 0;
	int rc = 0;

	*bad = 0;
	if (gb_copy_test_is_stream(op->test)) {
		GB_CUDA_GOTO(res, cudaMemsetAsync(st->bad, 0, sizeof(*st->bad), st->cs[0].s), out);
		GB_CUDA_GOTO(res, gb_launch_stream_verify(stream_op(op->test), op->slot[0].dst_view,
							  SEED_SRC, SEED_SRC2, STREAM_Q,
							  op->bytes / sizeof(double), st->bad,
							  st->sm_count, st->cs[0].s),
			     out);
		return gb_ce_read_counter(res, st->cs[0].s, st->bad, bad);
	}
	if (managed_ce(op))
		return verify_buf(b, st, managed_buf(op), managed_buf(op), op->bytes, SEED_SRC, bad);
	for (int i = 0; i < op->nslots && rc == 0; i++) {
		rc = verify_buf(b, st, op->slot[i].dst, op->slot[i].dst_view, op->bytes,
				op->slot[i].seed, &one);
		*bad += one;
	}
out:
	return rc;
}

static void note_mismatches(struct dev_state *st, const struct op *op, long long bad)
{
	char base[64], size[32];

	if (st->mismatches < 0)
		st->mismatches = 0;
	if (bad <= 0)
		return;
	if (st->mismatches == 0) {
		metric_base(base, sizeof(base), op);
		gb_format_bytes(size, sizeof(size), (double)op->bytes);
		snprintf(st->first_bad, sizeof(st->first_bad),
			 "%s at %s: %lld of %zu 16-byte words wrong", base, size, bad,
			 op->bytes / GB_COPY_GRAIN);
	}
	st->mismatches += bad;
}

/*
 * GB/s of one sample into b->cur[k]; false when a time was not positive
 * (below the events' resolution), so the sample is not kept: one NaN would
 * make the median and every statistic of the size NaN. Both directions of
 * a two-way copy start together, so the pair ends with the slower one.
 */
static bool sample_gbps(struct bw *b, const struct op *op, const double sec[2], size_t k)
{
	double counted = gb_copy_counted_bytes(op->test, (double)op->bytes);
	double t = op->nstreams == 2 ? fmax(sec[0], sec[1]) : sec[0];

	b->cur[k] = gb_copy_gbps(counted, (long)b->p->loops, t);
	return isfinite(b->cur[k]);
}

/* Poison, one timed sample, verify: what every sample of every path does. */
static int one_sample(struct bw *b, struct dev_state *st, const struct op *op,
		      const long *loops_of, bool read_link, double sec[2])
{
	long long bad = 0;
	int rc;

	if (b->verify && (rc = poison(b, st, op)))
		return rc;
	st->read_link = read_link;
	rc = loops_of ? timed_streams(b, st, op, true, loops_of, sec) : timed_run(b, st, op, sec);
	st->read_link = false;
	if (rc)
		return rc;
	if (b->verify) {
		if ((rc = verify_op(b, st, op, &bad)))
			return rc;
		note_mismatches(st, op, bad);
	}
	return 0;
}

static int run_size(struct bw *b, struct dev_state *st, const struct op *op, bool largest,
		    struct curve *c)
{
	bool read_link = largest && is_host_test(op->test) && op->mem == GB_MEM_PINNED &&
			 (double)op->bytes * (double)b->p->loops >= LINK_READ_MIN_BYTES;
	size_t n = 0;
	int rc = 0;

	for (int64_t s = 0; s < b->p->samples && !gb_should_stop(b->ctx); s++) {
		double sec[2] = { NAN, NAN };

		if ((rc = one_sample(b, st, op, NULL, read_link, sec)))
			return rc;
		if (sample_gbps(b, op, sec, n))
			n++;
	}
	if (n == 0)
		return 0;
	c->size[c->n] = (double)op->bytes;
	c->gbps[c->n] = gb_percentile(b->cur, n, 50);
	gb_stats_compute(&c->stats[c->n], b->cur, n);
	c->n++;
	c->last_size = (double)op->bytes;
	memcpy(b->last, b->cur, n * sizeof(double));
	b->n_last = n;
	return 0;
}

/*
 * The halves of a two-way copy-engine copy. In the two-way sample both
 * directions start together but one ends first, and the other then runs
 * alone at its one-way speed, so bytes / time of the slower direction would
 * overstate what it does under contention. Each half is timed again with
 * the other direction given twice the copies (nvbandwidth's interferer), so
 * it runs under load from start to end; a sample in which the interferer
 * still ended first says nothing and is dropped.
 */
static int measure_halves(struct bw *b, struct dev_state *st, const struct op *op)
{
	long loops = (long)b->p->loops;
	int rc = 0;

	for (int d = 0; d < 2; d++) {
		long loops_of[2];
		int dropped = 0;

		loops_of[d] = loops;
		loops_of[1 - d] = 2 * loops;
		b->n_half[d] = 0;
		for (int64_t s = 0; s < b->p->samples && !gb_should_stop(b->ctx); s++) {
			double sec[2] = { NAN, NAN }, v;

			if ((rc = one_sample(b, st, op, loops_of, false, sec)))
				return rc;
			v = gb_copy_gbps((double)op->bytes, loops, sec[d]);
			if (!(sec[1 - d] >= sec[d]))
				dropped++;
			else if (isfinite(v))
				b->half[d][b->n_half[d]++] = v;
		}
		if (dropped)
			add_note(st,
				 "bidir halves: %d of %lld %s samples dropped: the other direction, "
				 "given twice the copies, still ended first",
				 dropped, (long long)b->p->samples, d ? "d2h" : "h2d");
	}
	return 0;
}

/* Untimed runs at the largest size until clocks and the link have come up. */
static int warm_up(struct bw *b, struct dev_state *st, const struct op *op)
{
	double t0 = gb_now_s(), sec[2];
	int rc = 0;

	for (int i = 0; i < WARMUP_MAX_RUNS && rc == 0 && !gb_should_stop(b->ctx); i++) {
		rc = timed_run(b, st, op, sec);
		if (gb_now_s() - t0 >= WARMUP_SECONDS)
			break;
	}
	return rc;
}

static void add_fit_value(struct bw *b, const struct dev_state *st, const char *base,
			  const char *suffix, const char *unit, enum gb_better better, double v,
			  double peak)
{
	char name[96];

	snprintf(name, sizeof(name), "%s_%s", base, suffix);
	gb_bench_add_value(b->res, name, unit, better, st->dev, v, peak);
}

/*
 * The fit t = alpha + n/beta of a sweep. alpha (latency) comes from every
 * size. beta comes from the sizes that measure the path rather than a cache
 * (device tests: a footprint of 2 x L2 or more) and is reported only when
 * that fit can pin it (gb_copy_beta_usable); otherwise extra.devices[].fits
 * says why it is missing, since a short or latency-bound sweep gives a slope
 * that is noise.
 */
static void add_fit(struct bw *b, struct dev_state *st, const char *base, const struct op *op,
		    const struct curve *c, double peak_gbps)
{
	struct gb_alpha_beta all, mem;
	double floor = gb_copy_fit_min_size(op->test, st->info ? st->info->l2_bytes : NAN);
	double largest = gb_copy_counted_bytes(op->test, c->last_size);
	size_t n_all = 0, n_mem = 0;
	bool have_all, have_mem, usable = false;
	char why[256] = "", fl[32];
	cJSON *o = cJSON_CreateObject();

	have_all = gb_copy_fit(op->test, c->size, c->gbps, c->n, 0, &all, &n_all) == 0;
	have_mem = floor > 0 ? gb_copy_fit(op->test, c->size, c->gbps, c->n, floor, &mem, &n_mem) == 0
			     : have_all;
	if (floor <= 0) {
		mem = all;
		n_mem = n_all;
	}
	if (have_mem) {
		usable = gb_copy_beta_usable(&mem, largest, peak_gbps * 1e9, why, sizeof(why));
	} else if (floor > 0) {
		gb_format_bytes(fl, sizeof(fl), floor);
		snprintf(why, sizeof(why),
			 "fewer than 2 sizes of %s or more (a footprint of twice the L2 cache): "
			 "smaller copies measure the cache",
			 fl);
	} else {
		snprintf(why, sizeof(why), "fewer than 2 sizes with a positive slope to fit");
	}
	if (have_all)
		add_fit_value(b, st, base, "alpha_us", "us", GB_BETTER_LOWER, all.alpha_s * 1e6, NAN);
	if (usable) {
		add_fit_value(b, st, base, "beta_gbps", "GB/s", GB_BETTER_HIGHER, mem.beta_bps / 1e9,
			      peak_gbps);
		add_fit_value(b, st, base, "n_half_bytes", "B", GB_BETTER_LOWER, mem.n_half_bytes,
			      NAN);
	}
	if (have_mem || have_all)
		add_fit_value(b, st, base, "fit_r2", "1", GB_BETTER_NONE,
			      have_mem ? mem.r2 : all.r2, NAN);
	cJSON_AddStringToObject(o, "test", base);
	cJSON_AddNumberToObject(o, "points", (double)c->n);
	cJSON_AddItemToObject(o, "alpha_us", num_or_null(have_all ? all.alpha_s * 1e6 : NAN));
	cJSON_AddItemToObject(o, "beta_min_size", num_or_null(floor > 0 ? floor : NAN));
	cJSON_AddNumberToObject(o, "beta_points", (double)(have_mem ? n_mem : 0));
	cJSON_AddItemToObject(o, "beta_gbps", num_or_null(usable ? mem.beta_bps / 1e9 : NAN));
	cJSON_AddItemToObject(o, "n_half_bytes", num_or_null(usable ? mem.n_half_bytes : NAN));
	cJSON_AddItemToObject(o, "r2", num_or_null(have_mem ? mem.r2 : have_all ? all.r2 : NAN));
	if (!usable)
		cJSON_AddStringToObject(o, "beta_note", why);
	cJSON_AddItemToArray(st->fits, o);
}

/* Per-size spread, and the spread goal (CV <= 2% from 64 MiB) on pinned and device tests. */
static void add_curve_extra(struct dev_state *st, const char *base, const struct op *op,
			    const struct curve *c)
{
	cJSON *pts = cJSON_AddArrayToObject(st->curves, base);
	/* pageable and managed copies ride on the host's memcpy and page faults: recorded,
	 * not judged */
	bool judged = op->mem == GB_MEM_PINNED || op->mem == GB_MEM_DEVICE;
	char size[32];

	for (size_t i = 0; i < c->n; i++) {
		const struct gb_stats *sx = &c->stats[i];
		cJSON *p = cJSON_CreateObject();

		cJSON_AddNumberToObject(p, "bytes", c->size[i]);
		cJSON_AddItemToObject(p, "gbps", num_or_null(c->gbps[i]));
		cJSON_AddItemToObject(p, "cv", num_or_null(sx->n ? sx->cv : NAN));
		cJSON_AddItemToObject(p, "min", num_or_null(sx->n ? sx->min : NAN));
		cJSON_AddItemToObject(p, "max", num_or_null(sx->n ? sx->max : NAN));
		cJSON_AddNumberToObject(p, "n", (double)sx->n);
		cJSON_AddItemToArray(pts, p);
		if (!judged || sx->n < 2 || c->size[i] < GB_COPY_SPREAD_MIN_BYTES)
			continue;
		st->spread_points++;
		if (!gb_copy_spread_high(c->size[i], sx->cv))
			continue;
		st->spread_high++;
		if (sx->cv > st->spread_worst_cv) {
			st->spread_worst_cv = sx->cv;
			gb_format_bytes(size, sizeof(size), c->size[i]);
			snprintf(st->spread_worst, sizeof(st->spread_worst), "%s at %s", base, size);
		}
	}
}

static const char *convention_of(const struct op *op)
{
	if (op->test == GB_CT_D2D)
		return "payload counted once (DRAM traffic is twice this)";
	if (op->test == GB_CT_BIDIR)
		return "both directions summed, each byte counted once per direction";
	if (gb_copy_test_is_stream(op->test))
		return "bytes read plus bytes written";
	return "each byte counted once per direction";
}

static void add_scaled_metric(struct bw *b, struct dev_state *st, const char *name,
			      const double *samples, size_t n_samples, double scale, double peak,
			      const char *desc)
{
	double v[1000];
	size_t n = n_samples < 1000 ? n_samples : 1000;
	struct gb_metric *m;

	for (size_t i = 0; i < n; i++)
		v[i] = samples[i] * scale;
	m = gb_bench_add_metric(b->res, name, "GB/s", GB_BETTER_HIGHER, st->dev, v, n, peak);
	m->description = gb_strdup(desc);
}

static void report_curve(struct bw *b, struct dev_state *st, const struct op *op,
			 const struct curve *c)
{
	double peak = gb_copy_ceiling_bps(op->test, &st->theory) / 1e9;
	char base[64], name[96], size[32], desc[256];
	struct gb_series *series;

	if (c->n == 0)
		return;
	metric_base(base, sizeof(base), op);
	gb_format_bytes(size, sizeof(size), c->last_size);
	snprintf(name, sizeof(name), "%s_gbps", base);
	snprintf(desc, sizeof(desc), "%s at %s; decimal GB/s, %s", base, size, convention_of(op));
	add_scaled_metric(b, st, name, b->last, b->n_last, 1.0, peak, desc);
	if (op->test == GB_CT_D2D) {
		snprintf(name, sizeof(name), "%s_dram_gbps", base);
		snprintf(desc, sizeof(desc), "%s at %s as DRAM traffic: bytes read plus written",
			 base, size);
		add_scaled_metric(b, st, name, b->last, b->n_last, 2.0, st->theory.mem_bw_bps / 1e9,
				  desc);
	}
	for (int i = 0; i < 2 && op->test == GB_CT_BIDIR && op->nstreams == 2; i++) {
		if (!b->n_half[i])
			continue;
		snprintf(name, sizeof(name), "%s_%s_gbps", base, i ? "d2h" : "h2d");
		snprintf(desc, sizeof(desc),
			 "the %s half of %s at %s, timed while %s ran twice as many copies, so "
			 "under two-way load throughout",
			 i ? "d2h" : "h2d", base, size, i ? "h2d" : "d2h");
		add_scaled_metric(b, st, name, b->half[i], b->n_half[i], 1.0,
				  st->theory.pcie_bps / 1e9, desc);
	}
	series = gb_bench_add_series(b->res, base, "B", "GB/s", st->dev);
	for (size_t i = 0; i < c->n; i++)
		gb_series_push(series, c->size[i], c->gbps[i]);
	add_curve_extra(st, base, op, c);
	add_fit(b, st, base, op, c, peak);
}

static int run_test(struct bw *b, struct dev_state *st, enum gb_copy_test t,
		    enum gb_copy_method m, enum gb_copy_memory mem)
{
	const char *why = gb_copy_unsupported(t, m, mem);
	struct curve c;
	struct op op;
	char base[64];
	int rc;

	if (!why && mem == GB_MEM_MANAGED && !st->managed_ok)
		why = "this GPU cannot prefetch managed memory (no concurrent managed access)";
	if (why) {
		add_not_run(st, t, m, mem, why);
		return 0;
	}
	memset(&c, 0, sizeof(c));
	make_op(&op, st, t, m, mem, b->max_bytes);
	metric_base(base, sizeof(base), &op);
	gb_progress(b->ctx, "bandwidth: GPU %d: %s over %zu sizes", st->dev, base, b->n_sizes);
	if ((rc = setup_sources(b, st, &op)) || (rc = warm_up(b, st, &op)))
		return rc;
	for (size_t i = 0; i < b->n_sizes && !gb_should_stop(b->ctx); i++) {
		op.bytes = b->sizes[i];
		if ((rc = run_size(b, st, &op, i + 1 == b->n_sizes, &c)))
			return rc;
	}
	b->n_half[0] = b->n_half[1] = 0;
	/* op.bytes is the largest size that ran (the sweep may have been stopped) */
	if (op.nstreams == 2 && c.n && !gb_should_stop(b->ctx) &&
	    (rc = measure_halves(b, st, &op)))
		return rc;
	report_curve(b, st, &op, &c);
	return 0;
}

static int run_host_tests(struct bw *b, struct dev_state *st, enum gb_copy_memory mem)
{
	static const struct {
		int opt;
		enum gb_copy_test test;
	} tests[] = { { OPT_H2D, GB_CT_H2D }, { OPT_D2H, GB_CT_D2H }, { OPT_BIDIR, GB_CT_BIDIR } };
	struct gb_cpu_saved cpus;
	int rc;

	/*
	 * The thread on the GPU's own CPUs, as nvbandwidth does: pageable copies
	 * are staged by this thread's memcpy, and first touch happens here too.
	 * Only CPUs it may already use: never wider than the cpuset it was given.
	 */
	st->cpus_pinned = gb_cpu_pin_near(st->info ? st->info->pci_bus_id : NULL, &cpus, st->cpus,
					  sizeof(st->cpus));
	if ((rc = alloc_host(b, st, mem))) {
		gb_cpu_unpin(&cpus);
		return rc;
	}
	for (size_t t = 0; t < 3 && rc == 0; t++) {
		if (!test_selected(b, tests[t].opt))
			continue;
		for (int m = 0; m < GB_CM_COUNT && rc == 0 && !gb_should_stop(b->ctx); m++)
			if (method_selected(b, (enum gb_copy_method)m))
				rc = run_test(b, st, tests[t].test, (enum gb_copy_method)m, mem);
	}
	free_host(st);
	gb_cpu_unpin(&cpus);
	return rc;
}

static int run_device_tests(struct bw *b, struct dev_state *st)
{
	int rc = 0;

	for (int m = 0; m < GB_CM_COUNT && rc == 0 && test_selected(b, OPT_D2D); m++)
		if (method_selected(b, (enum gb_copy_method)m) && !gb_should_stop(b->ctx))
			rc = run_test(b, st, GB_CT_D2D, (enum gb_copy_method)m, GB_MEM_DEVICE);
	/* STREAM is SM kernels by nature: --method does not apply to it */
	for (int t = GB_CT_STREAM_COPY; t <= GB_CT_STREAM_TRIAD && rc == 0; t++)
		if (test_selected(b, OPT_STREAM) && !gb_should_stop(b->ctx))
			rc = run_test(b, st, (enum gb_copy_test)t, GB_CM_SM, GB_MEM_DEVICE);
	return rc;
}

/* ---- checks and extra ---- */

static void check_data(struct bw *b, const struct dev_state *st)
{
	if (!b->verify) {
		gb_bench_add_check(b->res, "data_verified", GB_STATUS_SKIPPED, GB_SEV_INFO, st->dev,
				   NAN, NAN, "verification disabled by --no-verify");
	} else if (st->mismatches < 0) {
		gb_bench_add_check(b->res, "data_verified", GB_STATUS_SKIPPED, GB_SEV_INFO, st->dev,
				   NAN, NAN, "no copy ran, so nothing was verified");
	} else if (st->mismatches > 0) {
		gb_bench_add_check(b->res, "data_verified", GB_STATUS_FAILED, GB_SEV_ERROR, st->dev,
				   (double)st->mismatches, 0,
				   "copied data is wrong: %lld 16-byte words in all; first %s",
				   st->mismatches, st->first_bad);
	} else {
		gb_bench_add_check(b->res, "data_verified", GB_STATUS_PASSED, GB_SEV_INFO, st->dev, 0,
				   0, "every copy of every sample matched its source pattern");
	}
}

/* The run-to-run spread goal of issue 5: CV at most 2% from 64 MiB up. */
static void check_spread(struct bw *b, const struct dev_state *st)
{
	if (st->spread_points == 0)
		gb_bench_add_check(b->res, "sample_spread", GB_STATUS_SKIPPED, GB_SEV_INFO, st->dev,
				   NAN, GB_COPY_SPREAD_MAX_CV,
				   "no pinned or device test ran at 64 MiB or more with 2 samples or "
				   "more: the spread goal was not judged");
	else if (st->spread_high)
		gb_bench_add_check(b->res, "sample_spread", GB_STATUS_WARNING, GB_SEV_WARNING,
				   st->dev, st->spread_worst_cv, GB_COPY_SPREAD_MAX_CV,
				   "samples spread more than %.0f%% (CV) at %d of %d sizes of 64 MiB "
				   "or more; worst %.1f%% (%s): clocks, the link or other load moved "
				   "during the run",
				   GB_COPY_SPREAD_MAX_CV * 100, st->spread_high, st->spread_points,
				   st->spread_worst_cv * 100, st->spread_worst);
	else
		gb_bench_add_check(b->res, "sample_spread", GB_STATUS_PASSED, GB_SEV_INFO, st->dev,
				   NAN, GB_COPY_SPREAD_MAX_CV,
				   "samples within %.0f%% (CV) at all %d sizes of 64 MiB or more",
				   GB_COPY_SPREAD_MAX_CV * 100, st->spread_points);
}

/*
 * The link as read under load, as values the run's thresholds can judge (and
 * a --thresholds file relax). No peak: the thresholds take the link's
 * maximum from the device record, as for any other benchmark's reading.
 */
static void add_link_metrics(struct bw *b, const struct dev_state *st)
{
	struct gb_metric *m;

	if (st->link_gen > 0) {
		m = gb_bench_add_value(b->res, "pcie_gen_under_load", "gen", GB_BETTER_HIGHER,
				       st->dev, st->link_gen, NAN);
		m->description = gb_strdup("PCIe generation NVML reported while pinned copies of "
					   "512 MiB or more a sample ran (best reading)");
	}
	if (st->link_width > 0) {
		m = gb_bench_add_value(b->res, "pcie_width_under_load", "lanes", GB_BETTER_HIGHER,
				       st->dev, st->link_width, NAN);
		m->description = gb_strdup("PCIe width NVML reported while pinned copies of "
					   "512 MiB or more a sample ran (best reading)");
	}
}

static void check_link(struct bw *b, const struct dev_state *st)
{
	const struct gb_device_info *d = st->info;
	char msg[256];
	int r;

	if (st->link_gen < 0) {
		gb_bench_add_check(b->res, "pcie_link_under_load", GB_STATUS_SKIPPED, GB_SEV_INFO,
				   st->dev, NAN, NAN, "%s",
				   gb_nvml_loaded()
					   ? "no pinned host copy ran long enough (512 MiB a sample at "
					     "the largest size) for the link to be read under load"
					   : "NVML not loaded: the link could not be read under load");
		return;
	}
	r = gb_pcie_downtrain(st->link_gen, st->link_width, d ? d->pcie_max_gen : -1,
			      d ? d->pcie_max_width : -1, msg, sizeof(msg));
	if (r < 0)
		gb_bench_add_check(b->res, "pcie_link_under_load", GB_STATUS_SKIPPED, GB_SEV_INFO,
				   st->dev, NAN, NAN, "%s", msg);
	else
		gb_bench_add_check(b->res, "pcie_link_under_load",
				   r ? GB_STATUS_FAILED : GB_STATUS_PASSED,
				   r ? GB_SEV_ERROR : GB_SEV_INFO, st->dev,
				   gb_pcie_bandwidth_bps(st->link_gen, st->link_width) / 1e9,
				   gb_pcie_bandwidth_bps(d->pcie_max_gen, d->pcie_max_width) / 1e9,
				   "%s", msg);
}

/* What the GPU looked like while this device's tests ran ("are the clocks locked?"). */
static void add_telemetry(struct bw *b, size_t k, cJSON *o)
{
	struct gb_telemetry_summary sum;
	cJSON *t;

	if (!b->sampler)
		return;
	gb_sampler_summary(b->sampler, k, &sum);
	if (!sum.valid)
		return;
	t = cJSON_AddObjectToObject(o, "telemetry");
	cJSON_AddNumberToObject(t, "samples", (double)sum.n);
	cJSON_AddItemToObject(t, "sm_mhz_mean", num_or_null(sum.sm_mhz_mean));
	cJSON_AddItemToObject(t, "sm_mhz_min", num_or_null(sum.sm_mhz_min));
	cJSON_AddItemToObject(t, "mem_mhz_mean", num_or_null(sum.mem_mhz_mean));
	cJSON_AddItemToObject(t, "power_w_max", num_or_null(sum.power_w_max));
	cJSON_AddItemToObject(t, "temp_c_max", num_or_null(sum.temp_c_max));
	cJSON_AddItemToObject(t, "throttled_frac", num_or_null(sum.throttled_frac));
}

/* Where host buffers and the thread were placed, and what the kernel says of the pages. */
static void add_host_extra(const struct dev_state *st, cJSON *o)
{
	cJSON_AddItemToObject(o, "host_node", num_or_null(st->host_node >= 0 ? st->host_node : NAN));
	if (st->host_node_from)
		cJSON_AddStringToObject(o, "host_node_from", st->host_node_from);
	else
		cJSON_AddNullToObject(o, "host_node_from");
	if (st->host_node_note[0])
		cJSON_AddStringToObject(o, "host_node_note", st->host_node_note);
	cJSON_AddBoolToObject(o, "numa_bound", st->numa_bound);
	cJSON_AddItemToObject(o, "pinned_node_observed",
			      num_or_null(st->pinned_node_seen >= 0 ? st->pinned_node_seen : NAN));
	cJSON_AddItemToObject(o, "pinned_on_node_fraction",
			      num_or_null(st->pinned_node_seen >= 0 ? st->pinned_node_frac : NAN));
	cJSON_AddItemToObject(o, "pageable_node_observed",
			      num_or_null(st->pageable_node_seen >= 0 ? st->pageable_node_seen
								      : NAN));
	cJSON_AddItemToObject(o, "pageable_on_node_fraction",
			      num_or_null(st->pageable_node_seen >= 0 ? st->pageable_node_frac
								      : NAN));
	cJSON_AddBoolToObject(o, "cpus_pinned", st->cpus_pinned);
	if (st->cpus[0])
		cJSON_AddStringToObject(o, st->cpus_pinned ? "cpus" : "cpus_note", st->cpus);
	cJSON_AddStringToObject(o, "managed_host_location",
				st->managed_host.type == cudaMemLocationTypeHost ? "host" : "host_numa");
}

static void add_device_extra(struct bw *b, struct dev_state *st, size_t k)
{
	cJSON *o = cJSON_CreateObject(), *link, *th;
	const struct gb_device_info *d = st->info;

	cJSON_AddNumberToObject(o, "device", st->dev);
	cJSON_AddItemToObject(o, "numa_node", num_or_null(d && d->numa_node >= 0 ? d->numa_node
									  : NAN));
	add_host_extra(st, o);
	link = cJSON_AddObjectToObject(o, "pcie_under_load");
	cJSON_AddItemToObject(link, "gen", num_or_null(st->link_gen > 0 ? st->link_gen : NAN));
	cJSON_AddItemToObject(link, "width", num_or_null(st->link_width > 0 ? st->link_width : NAN));
	cJSON_AddItemToObject(link, "max_gen",
			      num_or_null(d && d->pcie_max_gen > 0 ? d->pcie_max_gen : NAN));
	cJSON_AddItemToObject(link, "max_width",
			      num_or_null(d && d->pcie_max_width > 0 ? d->pcie_max_width : NAN));
	th = cJSON_AddObjectToObject(o, "theory_gbps");
	cJSON_AddItemToObject(th, "pcie_per_direction", num_or_null(st->theory.pcie_bps / 1e9));
	cJSON_AddItemToObject(th, "memory", num_or_null(st->theory.mem_bw_bps / 1e9));
	cJSON_AddItemToObject(o, "mismatched_words",
			      num_or_null(st->mismatches >= 0 ? (double)st->mismatches : NAN));
	cJSON_AddItemToObject(o, "not_run", st->not_run);
	cJSON_AddItemToObject(o, "curves", st->curves);
	cJSON_AddItemToObject(o, "fits", st->fits);
	cJSON_AddItemToObject(o, "notes", st->notes);
	st->not_run = st->curves = st->fits = st->notes = NULL;
	add_telemetry(b, k, o);
	cJSON_AddItemToArray(b->dev_extra, o);
}

static void set_theory(struct dev_state *st)
{
	const struct gb_device_info *d = st->info;

	st->theory.pcie_bps = d ? d->peaks.pcie_bps : NAN;
	st->theory.mem_bw_bps = gb_copy_mem_bps(d);
	st->theory.peer_bps = NAN;
}

static int run_device(struct bw *b, size_t k)
{
	int dev = b->ctx->devices[k];
	struct dev_state st;
	bool host_tests = test_selected(b, OPT_H2D) || test_selected(b, OPT_D2H) ||
			  test_selected(b, OPT_BIDIR);
	int rc;

	dev_state_init(&st, dev);
	if (b->sampler)
		gb_sampler_mark(b->sampler);
	st.info = gb_run_find_device(b->ctx->run, dev);
	set_theory(&st);
	choose_host_node(&st);
	rc = dev_open(b, &st);
	for (int mem = 0; mem < GB_MEM_DEVICE && rc == 0 && host_tests; mem++)
		if ((b->p->memory & (1u << mem)) && !gb_should_stop(b->ctx))
			rc = run_host_tests(b, &st, (enum gb_copy_memory)mem);
	if (rc == 0)
		rc = run_device_tests(b, &st);
	if (rc == 0) {
		check_data(b, &st);
		check_link(b, &st);
		add_link_metrics(b, &st);
		check_spread(b, &st);
	}
	add_device_extra(b, &st, k);
	dev_close(&st);
	return rc;
}

static void join_choices(char *buf, size_t len, uint32_t mask, const char *const *choices)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; choices[i] && pos < len; i++)
		if (mask & (1u << i))
			pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", pos ? "," : "",
						choices[i]);
}

static void record_params(struct bw *b)
{
	const struct bw_params *p = b->p;
	struct gb_bench_result *res = b->res;
	char list[128];
	cJSON *extra = gb_bench_extra(res), *units, *sizes;

	join_choices(list, sizeof(list), p->tests, test_choices);
	gb_bench_param_str(res, "tests", list);
	join_choices(list, sizeof(list), p->memory, memory_choices);
	gb_bench_param_str(res, "memory", list);
	join_choices(list, sizeof(list), p->methods, method_choices);
	gb_bench_param_str(res, "method", list);
	gb_bench_param_num(res, "min_size", (double)p->min_size);
	gb_bench_param_num(res, "max_size", (double)p->max_size);
	gb_bench_param_num(res, "factor", (double)p->factor);
	gb_bench_param_num(res, "samples", (double)p->samples);
	gb_bench_param_num(res, "loops", (double)p->loops);
	gb_bench_param_num(res, "warmup_copies", GB_CE_WARMUP);
	gb_bench_param_bool(res, "verify", b->verify);
	gb_bench_param_str(res, "statistic", "median");
	units = cJSON_AddObjectToObject(extra, "units");
	cJSON_AddStringToObject(units, "gbps",
				"GB/s = 1e9 bytes/s; each byte counted once per direction; bidir "
				"sums both directions; d2d counts the payload once (the _dram_ "
				"metrics count bytes read plus written); STREAM counts bytes read "
				"plus written (copy, scale 2 arrays; add, triad 3)");
	cJSON_AddStringToObject(units, "alpha_us", "latency of one copy from the fit t = alpha + n/beta");
	cJSON_AddStringToObject(units, "sizes", "bytes per buffer");
	sizes = cJSON_AddArrayToObject(extra, "sizes");
	for (size_t i = 0; i < b->n_sizes; i++)
		cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)b->sizes[i]));
	b->dev_extra = cJSON_AddArrayToObject(extra, "devices");
}

static void record_numa(struct bw *b)
{
	cJSON *d;
	bool all = b->dev_extra && cJSON_GetArraySize(b->dev_extra) > 0;

	cJSON_ArrayForEach(d, b->dev_extra)
		all = all && cJSON_IsTrue(cJSON_GetObjectItem(d, "numa_bound"));
	gb_bench_param_bool(b->res, "numa_bound", all);
}

/*
 * The figures peers are compared on: each test's headline bandwidth at the
 * largest size (a GB/s metric with samples), not the fit's extrapolation or
 * the curve's small sizes, which latency and noise decide; nor pageable
 * copies, which the host CPU's memcpy bounds, not the GPU or its link.
 */
static bool bw_rate_metric(const struct gb_metric *m)
{
	return m->unit && !strcmp(m->unit, "GB/s") && m->stats.n > 0 &&
	       !strstr(m->name, "pageable");
}

static int bw_run(struct gb_ctx *ctx, const void *params, struct gb_bench_result *res)
{
	struct bw b;
	int rc = 0;

	memset(&b, 0, sizeof(b));
	b.p = params;
	b.ctx = ctx;
	b.res = res;
	b.verify = !b.p->no_verify;
	b.n_sizes = gb_copy_sweep(b.p->min_size, b.p->max_size, (uint64_t)b.p->factor, b.sizes,
				  GB_COPY_SWEEP_MAX);
	if (b.n_sizes == 0) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "empty size sweep");
		return -1;
	}
	b.max_bytes = (size_t)b.sizes[b.n_sizes - 1];
	b.cur = gb_xrealloc(NULL, sizeof(double) * (size_t)b.p->samples);
	b.last = gb_xrealloc(NULL, sizeof(double) * (size_t)b.p->samples);
	for (int i = 0; i < 2; i++)
		b.half[i] = gb_xrealloc(NULL, sizeof(double) * (size_t)b.p->samples);
	record_params(&b);
	b.sampler = gb_sampler_start(ctx, ctx->devices, ctx->n_devices, TELEMETRY_INTERVAL_S, NULL);
	for (size_t k = 0; k < ctx->n_devices && rc == 0 && !gb_should_stop(ctx); k++)
		rc = run_device(&b, k);
	gb_sampler_stop(b.sampler);
	record_numa(&b);
	/* GPUs of one model against each other: a slow GPU's copies clear its own limit */
	if (rc == 0)
		gb_peer_checks(res, ctx->run, bw_rate_metric, NULL, b.p->peer_tol);
	free(b.cur);
	free(b.last);
	free(b.half[0]);
	free(b.half[1]);
	return rc;
}

const struct gb_bench gb_bench_bandwidth = {
	.name = "bandwidth",
	.summary = "host<->device, device-local and STREAM bandwidth over a size sweep",
	.usage = "gpubench bandwidth [options]",
	.opts = bw_opts,
	.params_size = sizeof(struct bw_params),
	.set_defaults = bw_defaults,
	.validate = bw_validate,
	.supported = NULL,
	.run = bw_run,
	.flags = GB_BENCH_NEEDS_GPU,
};
