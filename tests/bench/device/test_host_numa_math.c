/* SPDX-License-Identifier: MIT */
/*
 * test_host_numa_math.c - unit tests for bench/device/host_numa_math.c: kernel CPU
 * lists (what sysfs local_cpulist and node cpulist hold), the sysfs name
 * of a PCI function from CUDA/NVML bus ids, and the node most of a buffer's
 * pages are on from move_pages(2) status values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "bench/device/host_numa_math.h"

#define BITS 256
#define LONG_BITS (8 * sizeof(unsigned long))

static bool bit(const unsigned long *m, size_t i)
{
	return (m[i / LONG_BITS] >> (i % LONG_BITS)) & 1ul;
}

static void test_cpulist_parse(void **state)
{
	unsigned long m[GB_MASK_LONGS(BITS)];
	char buf[128];

	(void)state;
	/* a two-socket host: the GPU's socket has CPUs 0-31 and their SMT siblings 64-95 */
	assert_int_equal(gb_cpulist_parse("0-31,64-95\n", m, BITS), 64);
	assert_true(bit(m, 0) && bit(m, 31) && bit(m, 64) && bit(m, 95));
	assert_false(bit(m, 32) || bit(m, 63) || bit(m, 96));
	gb_cpulist_format(m, BITS, buf, sizeof(buf));
	assert_string_equal(buf, "0-31,64-95");
	/* single CPUs, overlaps counted once */
	assert_int_equal(gb_cpulist_parse("3,5,5,4-6", m, BITS), 4);
	gb_cpulist_format(m, BITS, buf, sizeof(buf));
	assert_string_equal(buf, "3-6");
	assert_int_equal(gb_cpulist_parse("7", m, BITS), 1);
	gb_cpulist_format(m, BITS, buf, sizeof(buf));
	assert_string_equal(buf, "7");
	/* a memory-only node (GH200's GPU memory) has an empty list */
	assert_int_equal(gb_cpulist_parse("\n", m, BITS), 0);
	assert_int_equal(gb_cpulist_parse("", m, BITS), 0);
	gb_cpulist_format(m, BITS, buf, sizeof(buf));
	assert_string_equal(buf, "");
	/* malformed, reversed or out of range: refused */
	assert_int_equal(gb_cpulist_parse("a-b", m, BITS), -1);
	assert_int_equal(gb_cpulist_parse("5-3", m, BITS), -1);
	assert_int_equal(gb_cpulist_parse("0-300", m, BITS), -1);
	assert_int_equal(gb_cpulist_parse("1;2", m, BITS), -1);
	assert_int_equal(gb_cpulist_parse("1-", m, BITS), -1);
	assert_int_equal(gb_cpulist_parse("-1", m, BITS), -1);
}

static void test_pci_sysfs_name(void **state)
{
	char buf[32];

	(void)state;
	/* NVML's 8-digit domain, CUDA's 4-digit one, upper case: all one sysfs name */
	assert_true(gb_pci_sysfs_name("00000000:65:00.0", buf, sizeof(buf)));
	assert_string_equal(buf, "0000:65:00.0");
	assert_true(gb_pci_sysfs_name("0000:C1:00.0", buf, sizeof(buf)));
	assert_string_equal(buf, "0000:c1:00.0");
	assert_true(gb_pci_sysfs_name("00000001:0A:1F.7", buf, sizeof(buf)));
	assert_string_equal(buf, "0001:0a:1f.7");
	/* a domain sysfs cannot write in four digits */
	assert_false(gb_pci_sysfs_name("10000000:0a:1f.7", buf, sizeof(buf)));
	/* nothing that could name another path */
	assert_false(gb_pci_sysfs_name(NULL, buf, sizeof(buf)));
	assert_false(gb_pci_sysfs_name("", buf, sizeof(buf)));
	assert_false(gb_pci_sysfs_name("0000:65:00.0/../../x", buf, sizeof(buf)));
	assert_false(gb_pci_sysfs_name("../0:65:00.0", buf, sizeof(buf)));
	assert_false(gb_pci_sysfs_name("0000:65:00", buf, sizeof(buf)));
	assert_false(gb_pci_sysfs_name("0000:6g:00.0", buf, sizeof(buf)));
	/* too small a buffer is a refusal, not a truncated name */
	assert_false(gb_pci_sysfs_name("0000:65:00.0", buf, 8));
}

static void test_pages_majority(void **state)
{
	const int all0[] = { 0, 0, 0, 0 };
	const int split[] = { 1, 1, 0, 1, -EFAULT };
	const int none[] = { -ENOENT, -EFAULT };
	const int tie[] = { 3, 1, 3, 1 };
	size_t on = 9, placed = 9;

	(void)state;
	assert_int_equal(gb_pages_majority(all0, 4, &on, &placed), 0);
	assert_int_equal(on, 4);
	assert_int_equal(placed, 4);
	/* a bind that failed part way shows as a split; unplaceable pages are not counted */
	assert_int_equal(gb_pages_majority(split, 5, &on, &placed), 1);
	assert_int_equal(on, 3);
	assert_int_equal(placed, 4);
	/* pages the driver mapped itself: the kernel gives no node */
	assert_int_equal(gb_pages_majority(none, 2, &on, &placed), -1);
	assert_int_equal(on, 0);
	assert_int_equal(placed, 0);
	/* a tie goes to the lower node, so the answer does not depend on page order */
	assert_int_equal(gb_pages_majority(tie, 4, &on, &placed), 1);
	assert_int_equal(on, 2);
	assert_int_equal(gb_pages_majority(all0, 0, &on, &placed), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist_parse),
		cmocka_unit_test(test_pci_sysfs_name),
		cmocka_unit_test(test_pages_majority),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
