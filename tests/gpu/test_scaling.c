/* SPDX-License-Identifier: MIT */
/*
 * test_scaling.c - gpu-labelled test of `gpubench scaling` through its
 * public descriptor. On one GPU: the gemm and ddp workloads run end to end
 * (N = 1 only, passed with the "needs two GPUs" reason); `--devices 0,0`
 * runs two workers on GPU 0, reports contention (the all-reduce replaced by
 * a device-local copy, at N = 1 too), and its N = 1 part agrees with a plain
 * one-GPU run of the same work; with two or more GPUs, N = 2 gets the
 * model's range and a check placing the speedup in it, and gemm times each
 * GPU alone. Exits 77 without a GPU; the ddp cases are skipped (with the
 * reason) when libnccl.so.2 cannot be loaded.
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

#include <cjson/cJSON.h>

#include "bench/bench.h"
#include "bench/device/gpu.h"
#include "bench/scaling/scaling_math.h"
#include "gpu_test.h"

extern const struct gb_bench gb_bench_scaling;
#define GB_FIXTURE_BENCH gb_bench_scaling
#include "bench_fixture.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* N = 1 of two runs of the same work on the same GPU agree within this (short steps jitter) */
#define SAME_WORK_TOL 0.25

static int n_gpus;

/*
 * `on_gpu` on a real GPU, `on_sim` on the simulated one, whose CPU computes
 * every distinct GEMM (2048^3 is seconds there): a smaller GEMM and step,
 * the same properties checked.
 */
static const char *sim_or(const char *on_gpu, const char *on_sim)
{
	return gb_test_on_simulator() ? on_sim : on_gpu;
}

/*
 * Run `gpubench scaling ARGS...` with the run's devices 0..n_dev-1 (what
 * cmd/ passes when --devices is not given; a --devices in args overrides),
 * without NVML: no telemetry.
 */
static void run_scaling(struct fixture *f, int n_dev, const char *const *args, int n_args)
{
	fixture_open_devices(f, n_dev);
	fixture_run(f, args, n_args);
}

/* ddp needs libnccl.so.2: without it the case is skipped, saying why. */
static bool nccl_missing(const struct fixture *f)
{
	if (f->rc && f->res->reason && strstr(f->res->reason, "needs NCCL")) {
		fprintf(stderr, "skipped: %s\n", f->res->reason);
		return true;
	}
	return false;
}

static double metric(const struct fixture *f, const char *name)
{
	const struct gb_metric *m = gb_bench_find_metric(f->res, name, -1);

	assert_non_null(m);
	assert_true(isfinite(m->value));
	return m->value;
}

static const cJSON *phase(const struct fixture *f, int i)
{
	const cJSON *phases = cJSON_GetObjectItem(f->res->extra, "phases");

	assert_true(cJSON_IsArray(phases));
	assert_true(cJSON_GetArraySize(phases) > i);
	return cJSON_GetArrayItem(phases, i);
}

/* One GPU, N = 1: passed, with the reason, and a speedup of 1 against itself. */
static void assert_single_gpu(const struct fixture *f, const char *allreduce)
{
	const struct gb_metric *step;

	assert_int_equal(f->rc, 0);
	assert_int_equal(f->res->status, GB_STATUS_PASSED);
	assert_non_null(f->res->reason);
	assert_non_null(strstr(f->res->reason, GB_SCALING_ONE_GPU_REASON));
	step = gb_bench_find_metric(f->res, "step_ms_n1", -1);
	assert_non_null(step);
	assert_int_equal(step->n_samples, 5);
	assert_true(step->value > 0);
	assert_true(fabs(metric(f, "speedup_n1") - 1) < 0.05);
	assert_true(metric(f, "throughput_tflops_n1") > 0);
	assert_string_equal(cJSON_GetObjectItem(phase(f, 0), "allreduce")->valuestring, allreduce);
	assert_null(gb_bench_find_metric(f->res, "step_ms_n2", -1));
}

static void test_gemm_one_gpu(void **state)
{
	const char *const args[] = { "--workload", "gemm", "--devices", "0", "--steps", "5",
				     "--warmup-steps", "1", "--step-ms", "20",
				     "--gemm-size", sim_or("2048", "512") };
	struct fixture *f = *state;

	const cJSON *alone;

	run_scaling(f, 1, args, (int)ARRAY_LEN(args));
	assert_single_gpu(f, "none");
	/* measured sizing is in extra, never in params (compare's match key) */
	assert_null(cJSON_GetObjectItem(f->res->params, "gemms_per_step"));
	assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(f->res->extra, "sizing"),
					"gemms_per_step")
			    ->valuedouble >= 1);
	/* the one GPU alone is N = 1 itself */
	alone = cJSON_GetObjectItem(f->res->extra, "alone");
	assert_int_equal(cJSON_GetArraySize(alone), 1);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(alone, 0), "device")->valueint, 0);
	assert_true(fabs(cJSON_GetObjectItem(cJSON_GetArrayItem(alone, 0), "step_ms_median")
				 ->valuedouble / metric(f, "step_ms_n1") - 1) < 0.1);
}

static void test_ddp_one_gpu(void **state)
{
	const char *const args[] = { "--devices", "0", "--steps", "5", "--warmup-steps", "1",
				     "--step-ms", "20", "--gemm-size", sim_or("2048", "512"),
					    "--grad-bytes", "16M", "--bucket", "4M", "--overlap" };
	struct fixture *f = *state;
	const char *launch;

	run_scaling(f, 1, args, (int)ARRAY_LEN(args));
	if (nccl_missing(f))
		skip();
	/* the whole path on one rank: buckets, overlap, the communicator */
	assert_single_gpu(f, "nccl");
	assert_int_equal(cJSON_GetObjectItem(f->res->params, "n_buckets")->valuedouble, 4);
	/*
	 * timed on blocking communicators, no host polling inside the step, where
	 * NCCL can abort from several threads at once (2.19.1); before, polled
	 */
	launch = cJSON_GetObjectItem(f->res->params, "launch")->valuestring;
	if (cJSON_GetObjectItem(f->res->params, "nccl_version")->valuedouble >= 21901)
		assert_non_null(strstr(launch, "blocking communicators (split"));
	else
		assert_non_null(strstr(launch, "non-blocking communicators (NCCL before 2.19.1"));
}

/* Two workers on GPU 0: contention, reported as such; N = 1 agrees with a plain run. */
static void test_two_workers_one_gpu(void **state)
{
	const char *const plain[] = { "--devices", "0", "--steps", "5", "--warmup-steps", "2",
				     "--step-tflop", sim_or("2", "0.2"),
				     "--gemm-size", sim_or("4096", "512"), "--grad-bytes", "16M",
				     "--bucket", "4M" };
	const char *const twice[] = { "--devices", "0,0", "--steps", "5", "--warmup-steps", "2",
				     "--step-tflop", sim_or("2", "0.2"),
				     "--gemm-size", sim_or("4096", "512"), "--grad-bytes", "16M",
				     "--bucket", "4M" };
	struct fixture *f = *state, g;
	const struct gb_check *c;
	double one, one_plain, two;

	run_scaling(&g, 1, plain, (int)ARRAY_LEN(plain));
	if (nccl_missing(&g)) {
		fixture_close(&g);
		skip();
	}
	assert_single_gpu(&g, "nccl");
	one_plain = metric(&g, "step_ms_n1");
	fixture_close(&g);

	run_scaling(f, 1, twice, (int)ARRAY_LEN(twice));
	assert_int_equal(f->rc, 0);
	assert_int_equal(f->res->status, GB_STATUS_PASSED);
	assert_non_null(strstr(f->res->reason, "contention"));
	assert_string_equal(cJSON_GetObjectItem(f->res->params, "workers")->valuestring, "0,0");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(f->res->params, "contention")));
	/* the result names the one GPU used */
	assert_int_equal(f->res->n_devices, 1);
	assert_int_equal(f->res->devices[0], 0);
	/* N = 1 is the same measurement as the plain run: same work, same GPU */
	one = metric(f, "step_ms_n1");
	assert_true(fabs(one / one_plain - 1) < SAME_WORK_TOL);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(phase(f, 0), "contention")));
	/* the baseline copies the same bytes as the contention phase: like for like */
	assert_string_equal(cJSON_GetObjectItem(phase(f, 0), "allreduce")->valuestring,
			    "local_copy");
	/*
	 * N = 2 shares the GPU: about twice the step, about 1x, marked contention.
	 * The simulated GPU gives each stream the whole GPU (its cost model has
	 * no shared SMs), so there the step stays one worker's: only the host
	 * side below is checked.
	 */
	two = metric(f, "step_ms_n2");
	if (!gb_test_on_simulator()) {
		assert_true(two > 1.3 * one && two < 3.0 * one);
		assert_true(metric(f, "speedup_n2") > 0.6 && metric(f, "speedup_n2") < 1.5);
	} else {
		fprintf(stderr, "note: simulated GPU: N = 2 on one GPU took %.2fx N = 1's step; "
				"the simulator does not model shared SMs, so not judged\n", two / one);
	}
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(phase(f, 1), "contention")));
	assert_string_equal(cJSON_GetObjectItem(phase(f, 1), "allreduce")->valuestring,
			    "local_copy");
	c = find_check(f->res, "contention_n2");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	assert_non_null(strstr(c->message, "device-local copy of the same bytes, at N = 1 too"));
	/* no model, no scaling check, for workers that share a GPU */
	assert_null(find_check(f->res, "scaling_n2"));
	assert_null(gb_bench_find_metric(f->res, "predicted_no_overlap_n2", -1));
}

/*
 * The two-GPU ddp cases: the product's default GEMM size on a GPU, 512 on the
 * simulated one (whose CPU computes each distinct GEMM), with a quarter of
 * the gradients.
 */
static void run_two_gpu_ddp(struct fixture *f, const char *const *args, int n)
{
	const char *a[16];

	run_scaling(f, 2, a, gb_test_sim_args(args, n, a, "--gemm-size", "512"));
}

static void test_two_gpus(void **state)
{
	const char *const args[] = { "--steps", "5", "--warmup-steps", "2", "--step-ms", "50",
				     "--grad-bytes", sim_or("64M", "16M"), "--overlap" };
	struct fixture *f = *state;
	const struct gb_check *c;

	if (n_gpus < 2) {
		fprintf(stderr, "note: one GPU: N = 2 needs two\n");
		return;
	}
	run_two_gpu_ddp(f, args, (int)ARRAY_LEN(args));
	if (nccl_missing(f))
		skip();
	assert_int_equal(f->rc, 0);
	assert_true(metric(f, "speedup_n2") > 0);
	assert_true(metric(f, "predicted_no_overlap_n2") <=
		    metric(f, "predicted_no_overlap_max_n2"));
	assert_true(metric(f, "predicted_no_overlap_max_n2") <=
		    metric(f, "predicted_perfect_overlap_n2"));
	assert_true(metric(f, "allreduce_busbw_gbps_n2") > 0);
	c = find_check(f->res, "scaling_n2");
	assert_non_null(c);
	assert_true(c->status == GB_STATUS_PASSED || c->status == GB_STATUS_WARNING);
	/* one line: measured, expected, the price */
	assert_non_null(strstr(c->message, "× measured, "));
	assert_non_null(strstr(c->message, "measured on these GPUs"));
	assert_true(cJSON_IsArray(cJSON_GetObjectItem(phase(f, 1), "allreduce_sweep")));
	assert_true(cJSON_IsObject(cJSON_GetObjectItem(phase(f, 1), "transport")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(phase(f, 1), "per_worker")), 2);
	assert_true(cJSON_IsTrue(
		cJSON_GetObjectItem(cJSON_GetObjectItem(phase(f, 1), "predicted"), "overlap")));
}

/* Without --overlap: judged against the no-overlap range, never told anything hid. */
static void test_two_gpus_no_overlap(void **state)
{
	const char *const args[] = { "--steps", "5", "--warmup-steps", "2", "--step-ms", "50",
				     "--grad-bytes", sim_or("64M", "16M") };
	struct fixture *f = *state;
	const struct gb_check *c;

	if (n_gpus < 2) {
		fprintf(stderr, "note: one GPU: N = 2 needs two\n");
		return;
	}
	run_two_gpu_ddp(f, args, (int)ARRAY_LEN(args));
	if (nccl_missing(f))
		skip();
	assert_int_equal(f->rc, 0);
	c = find_check(f->res, "scaling_n2");
	assert_non_null(c);
	assert_non_null(strstr(c->message, "expected without overlap"));
	assert_null(strstr(c->message, "hid"));
}

/* gemm on two GPUs: each alone first, so a straggler can be named. */
static void test_two_gpus_gemm(void **state)
{
	const char *const args[] = { "--workload", "gemm", "--steps", "5", "--warmup-steps",
				     "1", "--step-ms", "20", "--gemm-size", sim_or("2048", "512") };
	struct fixture *f = *state;
	const cJSON *alone;

	if (n_gpus < 2) {
		fprintf(stderr, "note: one GPU: timing each GPU alone needs two\n");
		return;
	}
	run_scaling(f, 2, args, (int)ARRAY_LEN(args));
	assert_int_equal(f->rc, 0);
	alone = cJSON_GetObjectItem(f->res->extra, "alone");
	assert_int_equal(cJSON_GetArraySize(alone), 2);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(alone, 1), "device")->valueint, 1);
	assert_true(cJSON_GetObjectItem(cJSON_GetArrayItem(alone, 1), "step_ms_median")
			    ->valuedouble > 0);
	assert_non_null(find_check(f->res, "scaling_n2"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gemm_one_gpu, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_ddp_one_gpu, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_two_workers_one_gpu, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_two_gpus, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_two_gpus_no_overlap, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_two_gpus_gemm, fixture_setup,
						fixture_teardown),
	};

	n_gpus = gb_test_require_gpu();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
