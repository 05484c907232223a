/* SPDX-License-Identifier: MIT */
/*
 * test_nccl_loader.c - the NCCL loader keeps to the library cmd/ named.
 * cmd/ loads GPUBENCH_NCCL_LIBRARY before any benchmark runs; a benchmark
 * then loads with NULL ("whatever cmd/ chose"). When the named library
 * cannot be loaded, the benchmark must fail naming it, not quietly load
 * the system's libnccl.so.2 instead. Needs no GPU (only dlopen), but links
 * the GPU library, hence its place among the gpu tests. Exits 77 when
 * gpubench was built without NCCL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "bench/nccl/nccl.h"

#define MISSING "/nonexistent/gpubench-test/libnccl.so.2"

static void test_named_library_sticks(void **state)
{
	char err[512] = "";

	(void)state;
	assert_int_equal(gb_nccl_load(MISSING, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot load NCCL ('" MISSING "')"));
	/* the benchmark's own load: the same library, the same failure */
	err[0] = '\0';
	assert_int_equal(gb_nccl_load(NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, MISSING));
	assert_int_equal(gb_nccl_loaded_version(), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_library_sticks),
	};

	if (gb_bench_nccl.unavailable_reason)
		return 77;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
