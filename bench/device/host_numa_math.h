/* SPDX-License-Identifier: MIT */
/*
 * host_numa_math.h - the parsing behind placing host buffers and the
 * benchmark thread next to a GPU (bench/device/host_numa.c does the system calls):
 * Linux CPU lists ("0-31,64-95"), the sysfs name of a PCI function, and
 * which NUMA node most of a buffer's pages are on. No CUDA, no system
 * calls: everything here is unit-tested (tests/bench/device/test_host_numa_math.c).
 */
#ifndef GPUBENCH_BENCH_HOST_NUMA_MATH_H
#define GPUBENCH_BENCH_HOST_NUMA_MATH_H

#include <stdbool.h>
#include <stddef.h>

/* CPUs and nodes a mask can hold (the kernel's largest NR_CPUS is 8192). */
#define GB_CPU_BITS 8192
#define GB_MASK_LONGS(bits) ((bits) / (8 * sizeof(unsigned long)))

/*
 * Parse a kernel CPU or node list ("0-31,64-95\n", "3", "") into mask (nbits
 * bits, cleared first). Returns the number of entries set, or -1 on a
 * malformed list or an entry at or above nbits. An empty list is 0: a
 * memory-only NUMA node has no CPUs.
 */
int gb_cpulist_parse(const char *text, unsigned long *mask, size_t nbits);

/* The same mask written back as a list ("0-31,64-95"); "" when empty. */
void gb_cpulist_format(const unsigned long *mask, size_t nbits, char *buf, size_t len);

/*
 * The sysfs directory name of a PCI function from a CUDA or NVML bus id:
 * "00000000:65:00.0" and "0000:65:00.0" both give "0000:65:00.0"
 * (four-digit domain, lowercase hex). Returns false for anything else, so
 * nothing outside /sys/bus/pci/devices can be named.
 */
bool gb_pci_sysfs_name(const char *bus_id, char *buf, size_t len);

/*
 * Where a buffer's pages are, from move_pages(2) status values (a node
 * number, or a negative errno for a page the kernel cannot place). Returns
 * the node holding the most pages, -1 when no page had a node; *on_node
 * gets that node's page count and *placed the count of pages with any node.
 */
int gb_pages_majority(const int *status, size_t n, size_t *on_node, size_t *placed);

#endif
