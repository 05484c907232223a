/* SPDX-License-Identifier: MIT */
/*
 * test_suite_math.c - `run`'s step sizes on GPUs with little memory
 * (cmd/suite_math.c): unchanged on big GPUs, halved to fit on small ones,
 * never below the minimum nor above the profile.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cmd/suite_math.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

static const struct gb_suite_sizes quick = {
	.gemm_n = 8192, .bandwidth_bytes = 256 * MiB, .p2p_bytes = 256 * MiB,
	.nccl_bytes = 256 * MiB, .grad_bytes = 256 * MiB,
};

static void assert_sizes(const struct gb_suite_sizes *s, uint64_t n, uint64_t bw, uint64_t p2p,
			 uint64_t nccl, uint64_t grad)
{
	assert_int_equal(s->gemm_n, n);
	assert_int_equal(s->bandwidth_bytes, bw);
	assert_int_equal(s->p2p_bytes, p2p);
	assert_int_equal(s->nccl_bytes, nccl);
	assert_int_equal(s->grad_bytes, grad);
}

/* 12 GiB and more: the profile as written (an H100's 80 GiB, a 4090's 24 GB) */
static void test_big_gpus_unchanged(void **state)
{
	struct gb_suite_sizes s;

	(void)state;
	gb_suite_fit_sizes(&quick, 80.0 * GiB, &s);
	assert_sizes(&s, 8192, 256 * MiB, 256 * MiB, 256 * MiB, 256 * MiB);
	gb_suite_fit_sizes(&quick, 24e9, &s);
	assert_sizes(&s, 8192, 256 * MiB, 256 * MiB, 256 * MiB, 256 * MiB);
	/* exactly 1/16: three 8192^2 fp32 matrices are 768 MiB */
	gb_suite_fit_sizes(&quick, 12.0 * GiB, &s);
	assert_int_equal(s.gemm_n, 8192);
}

/* acceptance's 1 GiB collectives: unchanged from 16 GiB, halved below */
static void test_acceptance_collectives(void **state)
{
	const struct gb_suite_sizes acceptance = {
		.gemm_n = 8192, .bandwidth_bytes = 512 * MiB, .p2p_bytes = 256 * MiB,
		.nccl_bytes = 1024 * MiB, .grad_bytes = 256 * MiB,
	};
	struct gb_suite_sizes s;

	(void)state;
	gb_suite_fit_sizes(&acceptance, 16.0 * GiB, &s);
	assert_sizes(&s, 8192, 512 * MiB, 256 * MiB, 1024 * MiB, 256 * MiB);
	gb_suite_fit_sizes(&acceptance, 12.0 * GiB, &s);
	assert_sizes(&s, 8192, 512 * MiB, 256 * MiB, 512 * MiB, 256 * MiB);
}

/* a MIG slice and small simulated GPUs: each size halved until its buffers fit */
static void test_small_gpus_halved(void **state)
{
	struct gb_suite_sizes s;

	(void)state;
	gb_suite_fit_sizes(&quick, 4.75 * GiB, &s); /* a 1g.5gb slice */
	assert_sizes(&s, 4096, 256 * MiB, 256 * MiB, 256 * MiB, 256 * MiB);
	gb_suite_fit_sizes(&quick, 1.0 * GiB, &s);
	assert_sizes(&s, 2048, 64 * MiB, 128 * MiB, 64 * MiB, 64 * MiB);
	gb_suite_fit_sizes(&quick, 128.0 * MiB, &s);
	assert_sizes(&s, 512, 8 * MiB, 16 * MiB, 8 * MiB, 8 * MiB);
}

/* tiny or unknown memory: the minimum, or the profile */
static void test_bounds(void **state)
{
	struct gb_suite_sizes s, small = quick;

	(void)state;
	gb_suite_fit_sizes(&quick, 1.0 * MiB, &s);
	assert_sizes(&s, GB_SUITE_GEMM_N_MIN, GB_SUITE_BYTES_MIN, GB_SUITE_BYTES_MIN,
		     GB_SUITE_BYTES_MIN, GB_SUITE_BYTES_MIN);
	gb_suite_fit_sizes(&quick, 0, &s);
	assert_sizes(&s, 8192, 256 * MiB, 256 * MiB, 256 * MiB, 256 * MiB);
	gb_suite_fit_sizes(&quick, -1, &s);
	assert_int_equal(s.gemm_n, 8192);
	/* a profile size already below the minimum is kept, never raised */
	small.gemm_n = 128;
	small.nccl_bytes = 4096;
	gb_suite_fit_sizes(&small, 1.0 * MiB, &s);
	assert_int_equal(s.gemm_n, 128);
	assert_int_equal(s.nccl_bytes, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_big_gpus_unchanged),
		cmocka_unit_test(test_acceptance_collectives),
		cmocka_unit_test(test_small_gpus_halved),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
