/* SPDX-License-Identifier: MIT */
/*
 * twin_test.h - helpers of the tests that call kernel twins directly
 * (tests/sim/test_twins_*.c): find a twin by its kernel name in a table and
 * run it as the runtime would for a <<<grid, block>>> launch on device 0,
 * with memory from the simulated runtime's cudaMalloc / cudaMallocHost.
 * Include after cmocka.h.
 */
#ifndef GPUBENCH_TESTS_SIM_TWIN_TEST_H
#define GPUBENCH_TESTS_SIM_TWIN_TEST_H

#include <stdlib.h>
#include <string.h>

#include "tests/sim/sim.h"

/* The twin of `kernel` in table, failing the test if it is missing or listed twice. */
static inline gbsim_twin_fn twin_find(const struct gbsim_twin *table, const char *kernel)
{
	gbsim_twin_fn fn = NULL;

	for (const struct gbsim_twin *t = table; t->name; t++) {
		if (strcmp(t->name, kernel) == 0) {
			assert_null(fn); /* a name listed twice */
			fn = t->run;
		}
	}
	if (!fn)
		fail_msg("no twin named '%s'", kernel);
	return fn;
}

/* Run the twin of `kernel` with a 1-D launch; *cost starts zeroed. */
static inline cudaError_t twin_run(const struct gbsim_twin *table, const char *kernel,
				   unsigned grid, unsigned block, void **args,
				   struct gbsim_cost *cost)
{
	struct gbsim_launch l;

	memset(&l, 0, sizeof(l));
	memset(cost, 0, sizeof(*cost));
	l.kernel = kernel;
	l.grid.x = grid;
	l.grid.y = l.grid.z = 1;
	l.block.x = block;
	l.block.y = l.block.z = 1;
	l.args = args;
	l.device = 0;
	l.gpu = &gbsim_machine()->gpus[0];
	return twin_find(table, kernel)(&l, cost);
}

/* Device memory of device 0 from the simulated runtime, failing the test if it cannot. */
static inline void *dev_alloc(size_t bytes)
{
	void *p = NULL;

	assert_int_equal(cudaMalloc(&p, bytes), cudaSuccess);
	return p;
}

/* Pinned host memory from the simulated runtime. */
static inline void *pinned_alloc(size_t bytes)
{
	void *p = NULL;

	assert_int_equal(cudaMallocHost(&p, bytes), cudaSuccess);
	return p;
}

#endif
