/* SPDX-License-Identifier: MIT */
/*
 * test_run_summary.c - run's last screen (report/run_summary.c): the counts
 * of steps and checks, and failures grouped by cause, so that one slow GPU
 * is one line naming it, not one line per check (issue 26).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/result.h"
#include "report/run_summary.h"

/* the summary as text */
static char *summary_of(const struct gb_run *run)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	gb_run_summary_print(run, f);
	fclose(f);
	return buf;
}

static size_t lines_of(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* GPU 1 15% slower than GPU 0 in gemm (2 metrics) and bandwidth (3), plus one below its peak */
static void slow_gpu_run(struct gb_run *run)
{
	struct gb_bench_result *g, *bw, *p2p;

	gb_run_init(run, "run", 0, NULL);
	g = gb_run_add_bench(run, "gemm");
	gb_bench_add_check(g, "verify_bf16", GB_STATUS_PASSED, GB_SEV_ERROR, 0, 0, 0, "ok");
	gb_bench_add_check(g, "verify_bf16", GB_STATUS_PASSED, GB_SEV_ERROR, 1, 0, 0, "ok");
	gb_bench_add_check(g, "tflops_bf16_same_model", GB_STATUS_FAILED, GB_SEV_ERROR, 1, 0.15,
			   0.1, "tflops_bf16 on GPU 1 is 15.0%% below GPU 0");
	gb_bench_add_check(g, "tflops_fp32_same_model", GB_STATUS_FAILED, GB_SEV_ERROR, 1, 0.14,
			   0.1, "tflops_fp32 on GPU 1 is 14.0%% below GPU 0");
	gb_bench_add_check(g, "tflops_fp32_efficiency", GB_STATUS_FAILED, GB_SEV_ERROR, 1, 0.45,
			   0.5, "below 50%%");
	bw = gb_run_add_bench(run, "bandwidth");
	for (int i = 0; i < 3; i++)
		gb_bench_add_check(bw, "d2d_ce_gbps_same_model", GB_STATUS_FAILED, GB_SEV_ERROR, 1,
				   0.16, 0.1, "d2d on GPU 1 is 16%% below GPU 0");
	gb_bench_add_check(bw, "h2d_ce_pinned_gbps_efficiency", GB_STATUS_SKIPPED, GB_SEV_ERROR,
			   0, NAN, NAN, "no value");
	p2p = gb_run_add_bench(run, "p2p");
	gb_bench_set_status(p2p, GB_STATUS_SKIPPED, "p2p needs 2 GPUs with peer access");
	gb_run_verdict(run);
}

static void test_slow_gpu_one_cause(void **state)
{
	struct gb_run run;
	struct gb_run_tally t;
	char *s;

	(void)state;
	slow_gpu_run(&run);
	gb_run_tally(&run, &t);
	assert_int_equal(t.steps, 3);
	assert_int_equal(t.steps_failed, 2);
	assert_int_equal(t.steps_skipped, 1);
	assert_int_equal(t.passed, 2);
	assert_int_equal(t.failed, 6);
	assert_int_equal(t.skipped, 1);
	s = summary_of(&run);
	assert_non_null(strstr(s, "steps: 3: 0 passed, 2 failed, 1 skipped\n"));
	assert_non_null(strstr(s, "checks: 2 passed, 6 failed, 1 skipped, 0 warnings\n"));
	/* the median of 14, 15, 16, 16, 16 */
	assert_non_null(strstr(s, "failed, by cause:\n  GPU 1 is 16% slower than its peers: 6 "
				  "checks (gemm 3, bandwidth 3)\n"));
	/* one cause: the whole summary is four lines after its blank one */
	assert_int_equal(lines_of(s), 5);
	free(s);
	gb_run_release(&run);
}

/* other kinds of failures: a line per kind, with its first message; an error step says why */
static void test_mixed_causes(void **state)
{
	struct gb_run run;
	struct gb_bench_result *st, *nc;
	char *s;

	(void)state;
	gb_run_init(&run, "run", 0, NULL);
	st = gb_run_add_bench(&run, "stress");
	gb_bench_add_check(st, "xid", GB_STATUS_FAILED, GB_SEV_ERROR, 0, 79, 0,
			   "GPU 0: Xid 79 (fallen off the bus)");
	gb_bench_add_check(st, "tflops_bf16_efficiency", GB_STATUS_FAILED, GB_SEV_ERROR, 0, 0.3,
			   0.7, "below 70%%");
	nc = gb_run_add_bench(&run, "nccl");
	gb_bench_set_status(nc, GB_STATUS_ERROR, "built without NCCL");
	gb_run_verdict(&run);
	s = summary_of(&run);
	assert_non_null(strstr(s, "  GPU 0 is below its peak throughput: 1 check (stress 1)\n"));
	assert_non_null(
		strstr(s, "  GPU 0: xid failed: 1 check (stress 1): GPU 0: Xid 79 (fallen off "
			  "the bus)\n"));
	assert_non_null(strstr(s, "  nccl could not run: built without NCCL\n"));
	free(s);
	gb_run_release(&run);
}

/* a healthy run: counts, no cause section */
static void test_passed(void **state)
{
	struct gb_run run;
	struct gb_bench_result *g;
	char *s;

	(void)state;
	gb_run_init(&run, "run", 0, NULL);
	g = gb_run_add_bench(&run, "gemm");
	gb_bench_add_check(g, "verify_bf16", GB_STATUS_PASSED, GB_SEV_ERROR, 0, 0, 0, "ok");
	gb_bench_add_check(g, "temp", GB_STATUS_WARNING, GB_SEV_WARNING, 0, 91, 90, "hot");
	gb_run_verdict(&run);
	s = summary_of(&run);
	assert_string_equal(s, "\nsteps: 1: 1 passed, 0 failed, 0 skipped\n"
			       "checks: 1 passed, 0 failed, 0 skipped, 1 warnings\n");
	free(s);
	gb_run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slow_gpu_one_cause),
		cmocka_unit_test(test_mixed_causes),
		cmocka_unit_test(test_passed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
