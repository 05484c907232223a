/* SPDX-License-Identifier: MIT */
/*
 * test_kexec_checks.c - the executor's checks find what they are for, each
 * on a kernel with one planted bug (kx_planted_bugs.cc): an out-of-bounds
 * global store and one past the dynamic shared memory (memcheck: the launch
 * fails with cudaErrorIllegalAddress, as on a GPU), shared memory read
 * without a barrier (racecheck), and a shuffle whose mask names an exited
 * lane (synccheck).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cuda_runtime_api.h>

#include "tests/kexec/kexec_test.h"

cudaError_t gb_kx_planted_oob_global(float *p, unsigned n);
cudaError_t gb_kx_planted_race(float *out);
cudaError_t gb_kx_planted_shuffle(float *out);
cudaError_t gb_kx_planted_oob_shared(float *out);

static void test_memcheck_global(void **state)
{
	float *p = kx_alloc(100 * sizeof *p);

	(void)state;
	gb_kx_reset_findings();
	assert_int_equal(gb_kx_planted_oob_global(p, 100), cudaErrorIllegalAddress);
	assert_int_equal(gb_kx_findings().memcheck, 1);
	assert_int_equal(gb_kx_findings().racecheck, 0);
	gb_kx_reset_findings();
	kx_free(p);
}

static void test_memcheck_dynamic_shared(void **state)
{
	float *p = kx_alloc(64 * sizeof *p);

	(void)state;
	gb_kx_reset_findings();
	assert_int_equal(gb_kx_planted_oob_shared(p), cudaErrorIllegalAddress);
	assert_int_equal(gb_kx_findings().memcheck, 1);
	gb_kx_reset_findings();
	kx_free(p);
}

static void test_racecheck(void **state)
{
	float *p = kx_alloc(256 * sizeof *p);

	(void)state;
	gb_kx_reset_findings();
	assert_int_equal(gb_kx_planted_race(p), cudaSuccess);
	assert_true(gb_kx_findings().racecheck > 0);
	assert_int_equal(gb_kx_findings().memcheck, 0);
	gb_kx_reset_findings();
	kx_free(p);
}

static void test_synccheck_shuffle(void **state)
{
	float *p = kx_alloc(64 * sizeof *p);

	(void)state;
	gb_kx_reset_findings();
	assert_int_not_equal(gb_kx_planted_shuffle(p), cudaSuccess);
	assert_int_equal(gb_kx_findings().synccheck, 1);
	gb_kx_reset_findings();
	kx_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memcheck_global),
		cmocka_unit_test(test_memcheck_dynamic_shared),
		cmocka_unit_test(test_racecheck),
		cmocka_unit_test(test_synccheck_shuffle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
