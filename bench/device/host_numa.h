/* SPDX-License-Identifier: MIT */
/*
 * host_numa.h - host memory and the benchmark thread next to a GPU, without
 * libnuma: the NUMA node of the GPU's PCI function, binding allocations to
 * it (set_mempolicy), checking where pages landed (move_pages) and pinning
 * the calling thread to the GPU's local CPUs (sched_setaffinity). Each call
 * saves what it changes so it can be put back; a call the kernel refuses
 * (a container's seccomp profile, a kernel without NUMA) reports failure
 * and changes nothing. The parsing is in host_numa_math.h.
 */
#ifndef GPUBENCH_BENCH_HOST_NUMA_H
#define GPUBENCH_BENCH_HOST_NUMA_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/device/host_numa_math.h"

/* Node masks of up to 1024 nodes (the kernel's largest MAX_NUMNODES). */
#define GB_NODE_BITS 1024

/* The NUMA node of the PCI function bus_id from sysfs, -1 when unknown or not NUMA. */
int gb_pci_numa_node(const char *bus_id);

/* Whether node has CPUs: false for a memory-only node (GH200's GPU memory) or an unknown one. */
bool gb_numa_node_has_cpus(int node);

/* The thread's memory policy before a bind, put back by gb_numa_unbind(). */
struct gb_numa_saved {
	int mode; /* -1: unknown, restore the default */
	unsigned long mask[GB_MASK_LONGS(GB_NODE_BITS)];
};

/* Bind this thread's allocations to node; false (nothing changed) if refused. */
bool gb_numa_bind(int node, struct gb_numa_saved *saved);
void gb_numa_unbind(const struct gb_numa_saved *saved);

/*
 * The node most of buf's pages are on, from up to 64 pages spread over it
 * (they must have been touched); -1 when the kernel places none of them
 * (pages the driver mapped itself, or no move_pages). *fraction gets the
 * share of the placed pages on that node.
 */
int gb_numa_pages_node(const void *buf, size_t bytes, double *fraction);

/* The thread's CPU affinity before a pin, put back by gb_cpu_unpin(). */
struct gb_cpu_saved {
	bool valid;
	unsigned long mask[GB_MASK_LONGS(GB_CPU_BITS)];
};

/*
 * Pin the calling thread to the CPUs local to PCI function bus_id that it is
 * allowed to use (a cpuset may allow fewer). Returns true when pinned, with
 * the CPU list in cpus; false with a reason in cpus and nothing changed.
 */
bool gb_cpu_pin_near(const char *bus_id, struct gb_cpu_saved *saved, char *cpus, size_t len);
void gb_cpu_unpin(const struct gb_cpu_saved *saved);

#endif
