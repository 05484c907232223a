/* SPDX-License-Identifier: MIT */
/*
 * test_cuda_fail.c - what a failed CUDA call does to a benchmark's result
 * (gb_cuda_fail, GB_CUDA_GOTO_DEV, GB_CUDA_GOTO in bench/device/gpu.h): a sticky
 * error marks the GPU lost and the benchmark FAILED, any other error is
 * could-not-run, and a finding or an interruption already there outranks
 * it. The errors are given as values, so no GPU is needed; it links the GPU
 * library (the CUDA runtime), hence its place among the gpu tests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "bench/device/gpu.h"
#include "bench/device/lost_math.h"
#include "report/result.h"

static struct gb_bench_result *new_result(struct gb_run *run)
{
	const char *argv[] = { "gpubench", "gemm" };

	gb_run_init(run, "gemm", 2, argv);
	return gb_run_add_bench(run, "gemm");
}

static const struct gb_check *find_check(const struct gb_bench_result *res, const char *name)
{
	for (size_t i = 0; i < res->n_checks; i++)
		if (res->checks[i].name && !strcmp(res->checks[i].name, name))
			return &res->checks[i];
	return NULL;
}

/* the macros as a benchmark uses them: rc and a label */
static int call_on(struct gb_bench_result *res, int dev, cudaError_t e)
{
	int rc = 0;

	GB_CUDA_GOTO_DEV(res, dev, e, out);
out:
	return rc;
}

static int call_here(struct gb_bench_result *res, cudaError_t e)
{
	int rc = 0;

	GB_CUDA_GOTO(res, e, out);
out:
	return rc;
}

static void test_sticky_marks_the_gpu_lost(void **state)
{
	struct gb_run run;
	struct gb_bench_result *res = new_result(&run);
	const struct gb_check *c;

	(void)state;
	assert_int_equal(call_on(res, 1, cudaErrorIllegalAddress), -1);
	assert_int_equal(res->status, GB_STATUS_FAILED);
	c = find_check(res, GB_CHECK_DEVICE_LOST);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_FAILED);
	assert_int_equal(c->device, 1);
	assert_non_null(strstr(c->message, "failed on GPU 1: cudaErrorIllegalAddress"));
	assert_true(gb_bench_device_is_lost(res, 1));
	assert_false(gb_bench_device_is_lost(res, 0));
	gb_run_release(&run);
}

static void test_other_errors_are_could_not_run(void **state)
{
	struct gb_run run;
	struct gb_bench_result *res = new_result(&run);

	(void)state;
	assert_int_equal(call_on(res, 2, cudaErrorMemoryAllocation), -1);
	assert_int_equal(res->status, GB_STATUS_ERROR);
	assert_non_null(strstr(res->reason, "failed on GPU 2: cudaErrorMemoryAllocation"));
	assert_null(find_check(res, GB_CHECK_DEVICE_LOST));
	assert_false(gb_bench_device_is_lost(res, 2));
	gb_run_release(&run);
}

static void test_a_finding_outranks_could_not_run(void **state)
{
	struct gb_run run;
	struct gb_bench_result *res = new_result(&run);
	const struct gb_check *c;

	(void)state;
	gb_bench_set_status(res, GB_STATUS_FAILED, "wrong results on GPU 0");
	assert_int_equal(call_on(res, 0, cudaErrorInvalidValue), -1);
	assert_int_equal(res->status, GB_STATUS_FAILED);
	assert_string_equal(res->reason, "wrong results on GPU 0");
	c = find_check(res, "cuda_call");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_ERROR);
	gb_run_release(&run);
}

/*
 * GB_CUDA_GOTO names no device: a sticky error still makes the benchmark
 * FAILED with a device_lost check, on whichever device the thread has
 * current (with no driver here CUDA may not say, so only its kind is pinned).
 */
static void test_implied_device_sticky(void **state)
{
	struct gb_run run;
	struct gb_bench_result *res = new_result(&run);
	const struct gb_check *c;

	(void)state;
	assert_int_equal(call_here(res, cudaErrorLaunchFailure), -1);
	assert_int_equal(res->status, GB_STATUS_FAILED);
	c = find_check(res, GB_CHECK_DEVICE_LOST);
	assert_non_null(c);
	assert_int_equal(c->device, gb_cuda_current_device());
	assert_non_null(strstr(c->message, "cudaErrorLaunchFailure"));
	gb_run_release(&run);
}

static void test_unknown_device_message(void **state)
{
	struct gb_run run;
	struct gb_bench_result *res = new_result(&run);

	(void)state;
	assert_int_equal(gb_cuda_fail(res, -1, "cudaMemcpy(...)", cudaErrorInvalidValue, "x.c", 7),
			 -1);
	assert_int_equal(res->status, GB_STATUS_ERROR);
	assert_non_null(strstr(res->reason, "'cudaMemcpy(...)' failed: cudaErrorInvalidValue"));
	assert_non_null(strstr(res->reason, "at x.c:7"));
	gb_run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sticky_marks_the_gpu_lost),
		cmocka_unit_test(test_other_errors_are_could_not_run),
		cmocka_unit_test(test_a_finding_outranks_could_not_run),
		cmocka_unit_test(test_implied_device_sticky),
		cmocka_unit_test(test_unknown_device_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
