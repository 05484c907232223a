/* SPDX-License-Identifier: MIT */
/*
 * bandwidth_host.c - `gpubench bandwidth`'s per-device resources: the
 * blocker, streams and device buffers of one GPU, and the host buffers of
 * each memory kind (pinned, pageable, managed) placed on the GPU's NUMA
 * node, with where their pages really landed. Uses the copy engine and the
 * device layer's NUMA helpers (bench/device/host_numa.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench/copies/bandwidth_internal.h"
#include "bench/device/host_numa.h"
#include "kernels/kernels.h"

/* ---- per-device resources ---- */

void bw_dev_state_init(struct dev_state *st, int dev)
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
void bw_add_note(struct dev_state *st, const char *fmt, ...)
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
void bw_choose_host_node(struct dev_state *st)
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

int bw_dev_open(struct bw *b, struct dev_state *st)
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

void bw_free_host(struct dev_state *st)
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

void bw_dev_close(struct dev_state *st)
{
	/* let any spin kernel still queued finish before its flag is freed */
	gb_ce_flag_set(st->flag, 1);
	cudaSetDevice(st->dev);
	cudaDeviceSynchronize();
	bw_free_host(st);
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
		bw_add_note(st, "managed memory: a prefetch to host NUMA node %d was refused (%s); "
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
int bw_alloc_host(struct bw *b, struct dev_state *st, enum gb_copy_memory mem)
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
		bw_free_host(st);
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
