/* SPDX-License-Identifier: MIT */
/* host_numa.c - NUMA binding, page placement and CPU affinity (see host_numa.h). */
#include "bench/device/host_numa.h"

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GB_MPOL_DEFAULT 0
#define GB_MPOL_BIND 2
#define LONG_BITS (8 * sizeof(unsigned long))
/* pages of a buffer whose node is looked up: enough to see a split placement */
#define PAGES_SAMPLED 64

/* The first line of a small sysfs file into buf; false if it cannot be read. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	return ok;
}

int gb_pci_numa_node(const char *bus_id)
{
	char name[32], path[96], line[32];
	char *end;
	long v;

	if (!gb_pci_sysfs_name(bus_id, name, sizeof(name)))
		return -1;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", name);
	if (!read_line(path, line, sizeof(line)))
		return -1;
	v = strtol(line, &end, 10);
	return end != line && v >= 0 && v < GB_NODE_BITS ? (int)v : -1;
}

bool gb_numa_node_has_cpus(int node)
{
	unsigned long mask[GB_MASK_LONGS(GB_CPU_BITS)];
	char path[96], line[4096] = "";

	if (node < 0)
		return false;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	/* an empty file (memory-only node) reads as no line at all */
	read_line(path, line, sizeof(line));
	return gb_cpulist_parse(line, mask, GB_CPU_BITS) > 0;
}

/*
 * The kernel reads maxnode - 1 bits (an old off-by-one that libnuma also
 * pays: it passes size + 1), so the whole mask is passed as GB_NODE_BITS + 1.
 * The previous policy, which need not be the default (numactl --interleave),
 * is saved first.
 */
bool gb_numa_bind(int node, struct gb_numa_saved *saved)
{
#if defined(SYS_set_mempolicy) && defined(SYS_get_mempolicy)
	unsigned long mask[GB_MASK_LONGS(GB_NODE_BITS)] = { 0 };

	saved->mode = -1;
	if (node < 0 || node >= GB_NODE_BITS)
		return false;
	if (syscall(SYS_get_mempolicy, &saved->mode, saved->mask, GB_NODE_BITS + 1, NULL, 0) != 0)
		saved->mode = -1;
	mask[(size_t)node / LONG_BITS] |= 1ul << ((size_t)node % LONG_BITS);
	return syscall(SYS_set_mempolicy, GB_MPOL_BIND, mask, GB_NODE_BITS + 1) == 0;
#else
	(void)node;
	saved->mode = -1;
	return false;
#endif
}

void gb_numa_unbind(const struct gb_numa_saved *saved)
{
#if defined(SYS_set_mempolicy) && defined(SYS_get_mempolicy)
	/* get_mempolicy returned the mode with its flags, as set_mempolicy takes them */
	if (saved->mode < 0 ||
	    syscall(SYS_set_mempolicy, saved->mode, saved->mask, GB_NODE_BITS + 1) != 0)
		syscall(SYS_set_mempolicy, GB_MPOL_DEFAULT, NULL, 0);
#else
	(void)saved;
#endif
}

int gb_numa_pages_node(const void *buf, size_t bytes, double *fraction)
{
#ifdef SYS_move_pages
	long page = sysconf(_SC_PAGESIZE);
	size_t n_pages, n = 0, on = 0, placed = 0;
	void *pages[PAGES_SAMPLED];
	int status[PAGES_SAMPLED];
	int node;

	*fraction = 0;
	if (!buf || page <= 0 || bytes == 0)
		return -1;
	n_pages = (bytes + (size_t)page - 1) / (size_t)page;
	for (size_t k = 0; k < PAGES_SAMPLED && k < n_pages; k++) {
		/* spread over the buffer: a bind that failed halfway shows as a split */
		size_t i = n_pages <= PAGES_SAMPLED ? k : k * (n_pages / PAGES_SAMPLED);

		pages[n] = (void *)(((uintptr_t)buf & ~((uintptr_t)page - 1)) + i * (size_t)page);
		status[n++] = -1;
	}
	/* nodes == NULL: move nothing, only report where each page is */
	if (syscall(SYS_move_pages, 0, (unsigned long)n, pages, NULL, status, 0) != 0)
		return -1;
	node = gb_pages_majority(status, n, &on, &placed);
	if (node >= 0)
		*fraction = (double)on / (double)placed;
	return node;
#else
	(void)buf;
	(void)bytes;
	*fraction = 0;
	return -1;
#endif
}

bool gb_cpu_pin_near(const char *bus_id, struct gb_cpu_saved *saved, char *cpus, size_t len)
{
	unsigned long local[GB_MASK_LONGS(GB_CPU_BITS)];
	cpu_set_t *now = CPU_ALLOC(GB_CPU_BITS), *want = CPU_ALLOC(GB_CPU_BITS);
	size_t size = CPU_ALLOC_SIZE(GB_CPU_BITS);
	char name[32], path[96], line[4096] = "";
	bool ok = false;
	int n = 0;

	saved->valid = false;
	if (!now || !want) {
		snprintf(cpus, len, "out of memory");
		goto out;
	}
	if (!gb_pci_sysfs_name(bus_id, name, sizeof(name))) {
		snprintf(cpus, len, "the GPU's PCI bus id is unknown");
		goto out;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/local_cpulist", name);
	if (!read_line(path, line, sizeof(line)) || gb_cpulist_parse(line, local, GB_CPU_BITS) <= 0) {
		snprintf(cpus, len, "%s cannot be read", path);
		goto out;
	}
	if (sched_getaffinity(0, size, now) != 0) {
		snprintf(cpus, len, "sched_getaffinity refused");
		goto out;
	}
	/* only the local CPUs this thread may already use: a cpuset must not be widened */
	CPU_ZERO_S(size, want);
	memset(saved->mask, 0, sizeof(saved->mask));
	for (size_t c = 0; c < GB_CPU_BITS; c++) {
		if (!CPU_ISSET_S(c, size, now))
			continue;
		saved->mask[c / LONG_BITS] |= 1ul << (c % LONG_BITS);
		if ((local[c / LONG_BITS] >> (c % LONG_BITS)) & 1ul) {
			CPU_SET_S(c, size, want);
			n++;
		}
	}
	if (n == 0) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(cpus, len, "none of the GPU's local CPUs (%s) is allowed to this process",
			 line);
		goto out;
	}
	if (sched_setaffinity(0, size, want) != 0) {
		snprintf(cpus, len, "sched_setaffinity refused");
		goto out;
	}
	saved->valid = ok = true;
	for (size_t c = 0; c < GB_CPU_BITS; c++)
		if (!CPU_ISSET_S(c, size, want))
			local[c / LONG_BITS] &= ~(1ul << (c % LONG_BITS));
	gb_cpulist_format(local, GB_CPU_BITS, cpus, len);
out:
	CPU_FREE(now);
	CPU_FREE(want);
	return ok;
}

void gb_cpu_unpin(const struct gb_cpu_saved *saved)
{
	cpu_set_t *set;
	size_t size = CPU_ALLOC_SIZE(GB_CPU_BITS);

	if (!saved->valid || !(set = CPU_ALLOC(GB_CPU_BITS)))
		return;
	CPU_ZERO_S(size, set);
	for (size_t c = 0; c < GB_CPU_BITS; c++)
		if ((saved->mask[c / LONG_BITS] >> (c % LONG_BITS)) & 1ul)
			CPU_SET_S(c, size, set);
	sched_setaffinity(0, size, set);
	CPU_FREE(set);
}
