/* SPDX-License-Identifier: MIT */
/*
 * test_gemm.c - the gemm benchmark on a real GPU, driven through its public
 * descriptor (gb_bench_gemm: defaults, option table, validate, run) exactly
 * as cmd/ drives it: every supported precision verifies at odd sizes and at
 * a large size, a corrupted output is caught, an unsupported precision is
 * skipped with its reason, the chosen algorithm is named (tile, stages),
 * --search reports its best shape first-pick and tuned, --repeat reports
 * the run-to-run CV, --precision all skips per shape what a shape does not
 * fit, and --impl cublas is cuBLASLt.
 * Exits 77 (skipped) without a GPU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"
#include "bench/gemm/gemm_math.h"
#include "bench/device/gpu.h"
#include "bench/device/lt_matmul.h"
#include "bench/device/nvml.h"
#include "cmd/cli.h"
#include "gpu_test.h"
#include "report/result.h"

extern const struct gb_bench gb_bench_gemm;
#define GB_FIXTURE_BENCH gb_bench_gemm
#include "bench_fixture.h"

/* at most this many arguments per run here */
#define MAX_ARGS 24

/*
 * fixture_run with --iters 2 on the simulated GPU, whose CPU computes each
 * GEMM (the fake cuBLASLt keeps results, but every rotating copy of A and B
 * is another product): what is checked does not change.
 */
static struct gb_bench_result *run_gemm(struct fixture *f, const char *const *args, int n)
{
	const char *a[MAX_ARGS + 2];

	assert_true(n <= MAX_ARGS);
	return fixture_run(f, a, gb_test_sim_args(args, n, a, "--iters", "2"));
}

/* `on_gpu` on a real GPU, `on_sim` (the same property, a size the CPU computes) on the simulator */
static const char *sim_size(const char *on_gpu, const char *on_sim)
{
	return gb_test_on_simulator() ? on_sim : on_gpu;
}

/* a passed run of one precision with its metric and its verification */
static void expect_verified(const struct gb_bench_result *r, enum gb_precision p, bool several)
{
	char name[96];
	const struct gb_check *c;
	const struct gb_metric *m;

	if (r->status != GB_STATUS_PASSED) {
		dump(r);
		fail_msg("%s: status %s", gb_precision_name(p), gb_status_name(r->status));
	}
	if (several)
		return;
	snprintf(name, sizeof(name), "verify_%s", gb_precision_name(p));
	c = find_check(r, name);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_PASSED);
	assert_true(c->observed <= c->threshold);
	snprintf(name, sizeof(name), "tflops_%s", gb_precision_name(p));
	m = gb_bench_find_metric(r, name, 0);
	assert_non_null(m);
	assert_true(m->value > 0);
	assert_int_equal(m->n_samples, 5);
	assert_string_equal(m->unit, gb_gemm_rate_unit(p));
}

static const char *dim(enum gb_precision p, int which)
{
	/* odd where the precision allows; int8/fp8 need multiples of 16 */
	static const char *const odd[] = { "257", "511", "129" };
	static const char *const by16[] = { "272", "528", "144" };

	return gb_gemm_dim_multiple(p) > 1 ? by16[which] : odd[which];
}

static void test_odd_sizes_every_precision(void **state)
{
	struct fixture f;
	int tested = 0;

	(void)state;
	for (int i = 0; i < GB_GEMM_N_PRECS; i++) {
		enum gb_precision p = gb_gemm_precs[i];
		const char *args[] = { "--precision", gb_gemm_prec_choices[i], "--m", dim(p, 0),
				       "--n", dim(p, 1), "--k", dim(p, 2), "--warmup", "0s",
				       "--duration", "20ms", "--samples", "5" };

		fixture_open(&f);
		if (!gb_gemm_prec_supported(p, dev0(&f)->cc_major, dev0(&f)->cc_minor)) {
			fixture_close(&f);
			continue;
		}
		expect_verified(run_gemm(&f, args, 14), p, false);
		tested++;
		fixture_close(&f);
	}
	assert_true(tested >= 2);
}

/*
 * the default set at a size beyond the all-elements limit: 64 x 64 samples
 * with corners (1040^2 > 2^20 outputs on the simulator, a multiple of 16)
 */
static void test_large_default_set(void **state)
{
	const char *const args[] = { "--size", sim_size("4096", "1040"), "--warmup", "200ms",
				     "--duration", "100ms", "--samples", "5" };
	struct fixture f;
	struct gb_bench_result *r;
	size_t verified = 0;

	(void)state;
	fixture_open(&f);
	/* a duration, not --iters: the telemetry sampler needs the 100 ms to see the run */
	r = fixture_run(&f, args, 8);
	if (r->status != GB_STATUS_PASSED)
		dump(r);
	assert_int_equal(r->status, GB_STATUS_PASSED);
	for (size_t i = 0; i < r->n_checks; i++) {
		if (strncmp(r->checks[i].name, "verify_", 7))
			continue;
		assert_int_equal(r->checks[i].status, GB_STATUS_PASSED);
		assert_non_null(strstr(r->checks[i].message, "4096 sampled outputs"));
		verified++;
	}
	/* every precision the device supports, fp16acc16 excepted */
	assert_true(verified >= 4);
	assert_null(find_check(r, "verify_fp16acc16"));
	/* with NVML, the sampler recorded the run and the clock-based metrics exist */
	if (f.ctx.nvml) {
		assert_true(f.run.n_telemetry > 0);
		/*
		 * the sampler ticks in wall time: on the simulator a phase of 100 ms
		 * of simulated time can pass between two ticks, so per-precision
		 * clock metrics are checked on a real GPU only
		 */
		if (!gb_test_on_simulator()) {
			assert_non_null(gb_bench_find_metric(r, "sm_mhz_mean_bf16", 0));
			assert_non_null(
				gb_bench_find_metric(r, "pct_of_observed_clock_peak_bf16", 0));
		}
	}
	{
		/* tflops's samples, scaled: the same count, the same median in percent */
		const struct gb_metric *pct =
			gb_bench_find_metric(r, "pct_of_max_clock_peak_bf16", 0);
		const struct gb_metric *tf = gb_bench_find_metric(r, "tflops_bf16", 0);

		assert_non_null(pct);
		assert_non_null(tf);
		assert_int_equal(pct->n_samples, tf->n_samples);
		assert_true(tf->n_samples > 0);
		assert_true(fabs(pct->value / (pct->samples[0] / tf->samples[0] * tf->value) - 1) <
			    1e-9);
	}
	fixture_close(&f);
}

static void test_injected_fault_caught(void **state)
{
	static const enum gb_precision precs[] = { GB_PREC_FP32, GB_PREC_BF16, GB_PREC_INT8,
						   GB_PREC_FP64 };

	(void)state;
	for (size_t i = 0; i < sizeof(precs) / sizeof(precs[0]); i++) {
		enum gb_precision p = precs[i];
		const char *args[] = { "--precision", gb_precision_name(p), "--m", dim(p, 0), "--n",
				       dim(p, 1), "--k", dim(p, 2), "--warmup", "0s", "--duration",
				       "10ms", "--samples", "5", "--inject-fault" };
		struct fixture f;
		struct gb_bench_result *r;
		const struct gb_check *c;
		char name[64];

		fixture_open(&f);
		if (!gb_gemm_prec_supported(p, dev0(&f)->cc_major, dev0(&f)->cc_minor)) {
			fixture_close(&f);
			continue;
		}
		r = run_gemm(&f, args, 15);
		snprintf(name, sizeof(name), "verify_%s", gb_precision_name(p));
		c = find_check(r, name);
		if (!c || c->status != GB_STATUS_FAILED)
			dump(r);
		assert_non_null(c);
		assert_int_equal(c->status, GB_STATUS_FAILED);
		assert_int_equal(r->status, GB_STATUS_FAILED);
		assert_non_null(strstr(c->message, "1 of "));
		assert_non_null(strstr(c->message, "first at row"));
		fixture_close(&f);
	}
}

static void test_unsupported_is_skipped(void **state)
{
	static const char *const args[] = { "--precision", "fp8", "--size", "256", "--warmup",
					     "0s", "--duration", "10ms", "--samples", "5" };
	struct fixture f;
	struct gb_bench_result *r;
	const struct gb_check *c;

	(void)state;
	fixture_open(&f);
	if (gb_gemm_prec_supported(GB_PREC_FP8, dev0(&f)->cc_major, dev0(&f)->cc_minor)) {
		fixture_close(&f);
		skip();
	}
	r = run_gemm(&f, args, 10);
	assert_int_equal(r->status, GB_STATUS_SKIPPED);
	assert_non_null(r->reason);
	assert_non_null(strstr(r->reason, "fp8 needs compute capability 8.9"));
	c = find_check(r, "precision_fp8");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_SKIPPED);
	fixture_close(&f);
}

static void test_search(void **state)
{
	static const char *const args[] = { "--search", "--m", "512,1024", "--n", "512", "--k",
					     "256", "--warmup", "0s", "--duration", "10ms",
					     "--samples", "5" };
	struct fixture f;
	struct gb_bench_result *r;
	const struct gb_metric *m;
	const cJSON *best_m, *tuned;

	(void)state;
	fixture_open(&f);
	r = run_gemm(&f, args, 13);
	if (r->status != GB_STATUS_PASSED)
		dump(r);
	assert_int_equal(r->status, GB_STATUS_PASSED);
	m = gb_bench_find_metric(r, "search_best_tflops_bf16", 0);
	assert_non_null(m);
	assert_true(m->value > 0);
	best_m = cJSON_GetObjectItemCaseSensitive(r->params, "best_m");
	assert_non_null(best_m);
	assert_true(best_m->valuedouble == 512 || best_m->valuedouble == 1024);
	assert_int_equal(r->n_series, 1);
	assert_int_equal(r->series[0].n, 2);
	assert_non_null(find_check(r, "verify_bf16_search"));
	/* both shapes re-run with every candidate timed; the best of those reported apart */
	m = gb_bench_find_metric(r, "search_tuned_tflops_bf16", 0);
	assert_non_null(m);
	assert_true(m->value > 0);
	assert_non_null(cJSON_GetObjectItemCaseSensitive(r->params, "best_tuned_m"));
	tuned = cJSON_GetObjectItemCaseSensitive(r->extra, "search_tuned");
	assert_int_equal(cJSON_GetArraySize(tuned), 2);
	assert_non_null(strstr(find_check(r, "verify_bf16_search")->message, "2 tuned re-runs"));
	fixture_close(&f);
}

/* the chosen algorithm carries tile and stages names beside their ids */
static void test_algorithm_named(void **state)
{
	const char *const args[] = { "--precision", "bf16", "--size", sim_size("1024", "512"),
				     "--warmup", "300ms", "--duration", "20ms", "--samples", "5" };
	struct fixture f;
	struct gb_bench_result *r;
	const cJSON *run, *algo, *tile, *stages, *pre;
	const struct gb_metric *m;

	(void)state;
	fixture_open(&f);
	/* a duration, not --iters: the candidates are timed after the whole warm-up */
	r = fixture_run(&f, args, 10);
	expect_verified(r, GB_PREC_BF16, false);
	run = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r->extra, "runs"), 0);
	algo = cJSON_GetObjectItemCaseSensitive(run, "algorithm");
	assert_non_null(algo);
	tile = cJSON_GetObjectItemCaseSensitive(algo, "tile");
	stages = cJSON_GetObjectItemCaseSensitive(algo, "stages");
	assert_non_null(tile);
	assert_non_null(stages);
	/* a name from this build's table, or null for an id it does not know: never absent */
	assert_true(cJSON_IsString(tile) || cJSON_IsNull(tile));
	assert_true(cJSON_IsString(stages) || cJSON_IsNull(stages));
	if (cJSON_IsString(tile))
		assert_string_equal(tile->valuestring,
				    gb_lt_tile_name((uint32_t)cJSON_GetObjectItemCaseSensitive(
							    algo, "tile_id")->valuedouble));
	/* with candidates to choose from, they were timed after --warmup's 300 ms with the first */
	pre = cJSON_GetObjectItemCaseSensitive(run, "preselect_warmup_s");
	assert_non_null(pre);
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(run, "candidates")) >= 2)
		assert_true(pre->valuedouble >= 0.3 && pre->valuedouble < 2.0);
	else
		assert_true(pre->valuedouble < 0.1);
	m = gb_bench_find_metric(r, "tflops_bf16", 0);
	assert_non_null(strstr(m->description, ", tile "));
	fixture_close(&f);
}

/* --repeat 5: five timed phases, the CV of their medians as a metric and a check */
static void test_repeat(void **state)
{
	const char *const args[] = { "--precision", "bf16", "--size", sim_size("2048", "512"),
				     "--warmup", "500ms", "--duration", "50ms", "--samples", "5",
				     "--repeat", "5" };
	struct fixture f;
	struct gb_bench_result *r;
	const struct gb_metric *m, *med;
	const struct gb_check *c;

	(void)state;
	fixture_open(&f);
	r = run_gemm(&f, args, 12);
	if (r->status != GB_STATUS_PASSED)
		dump(r);
	assert_int_equal(r->status, GB_STATUS_PASSED);
	m = gb_bench_find_metric(r, "tflops_bf16", 0);
	assert_non_null(m);
	assert_int_equal(m->n_samples, 25);  /* every sample of every run */
	med = gb_bench_find_metric(r, "run_median_tflops_bf16", 0);
	assert_non_null(med);
	assert_int_equal(med->n_samples, 5);
	m = gb_bench_find_metric(r, "run_cv_bf16", 0);
	assert_non_null(m);
	assert_true(m->value >= 0 && isfinite(m->value));
	assert_true(fabs(m->value - 100 * med->stats.cv) < 1e-9);
	c = find_check(r, "run_cv_bf16");
	assert_non_null(c);
	/* a spread above 1% is a warning about the GPU, never a failed result */
	assert_true(c->status == GB_STATUS_PASSED || c->status == GB_STATUS_WARNING);
	assert_int_equal(c->status == GB_STATUS_PASSED, m->value <= 1.0);
	fixture_close(&f);
}

/* all at a size fp8 and int8 cannot take (not a multiple of 16): skipped for it, the rest run */
static void test_all_skips_per_shape(void **state)
{
	const char *const args[] = { "--precision", "all", "--size", sim_size("1000", "200"),
				     "--warmup", "0s", "--duration", "10ms", "--samples", "5" };
	struct fixture f;
	struct gb_bench_result *r;
	const struct gb_check *c;

	(void)state;
	fixture_open(&f);
	r = run_gemm(&f, args, 10);
	if (r->status != GB_STATUS_PASSED)
		dump(r);
	assert_int_equal(r->status, GB_STATUS_PASSED);
	c = find_check(r, "precision_int8");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_SKIPPED);
	assert_non_null(strstr(c->message, "multiples of 16"));
	assert_non_null(find_check(r, "precision_fp8"));
	assert_non_null(find_check(r, "verify_fp32"));
	assert_non_null(gb_bench_find_metric(r, "tflops_fp16acc16", 0));
	fixture_close(&f);
}

/* --impl cublas is cuBLASLt under the name issue 3 uses; the report says cublaslt */
static void test_impl_alias(void **state)
{
	static const char *const args[] = { "--impl", "cublas", "--precision", "fp32", "--size",
					     "256", "--warmup", "0s", "--duration", "10ms" };
	struct fixture f;
	struct gb_bench_result *r;
	const cJSON *impl;

	(void)state;
	fixture_open(&f);
	r = run_gemm(&f, args, 10);
	assert_int_equal(r->status, GB_STATUS_PASSED);
	impl = cJSON_GetObjectItemCaseSensitive(r->params, "impl");
	assert_string_equal(impl->valuestring, "cublaslt");
	assert_non_null(gb_bench_find_metric(r, "tflops_fp32", 0));
	fixture_close(&f);
}

/* the compute and scale types, and alpha = 1 in the scale type, that cuBLASLt is given */
static void test_lt_precision_table(void **state)
{
	struct gb_lt_precision lp;

	(void)state;
	gb_lt_precision(GB_PREC_FP64, &lp);
	assert_int_equal(lp.compute, CUBLAS_COMPUTE_64F);
	assert_int_equal(lp.scale, CUDA_R_64F);
	assert_true(lp.alpha.f64 == 1.0 && lp.beta.f64 == 0.0);
	gb_lt_precision(GB_PREC_FP32, &lp);
	assert_int_equal(lp.compute, CUBLAS_COMPUTE_32F);  /* never TF32 */
	assert_int_equal(lp.scale, CUDA_R_32F);
	assert_true(lp.alpha.f32 == 1.0f && lp.beta.f32 == 0.0f);
	gb_lt_precision(GB_PREC_TF32, &lp);
	assert_int_equal(lp.compute, CUBLAS_COMPUTE_32F_FAST_TF32);
	gb_lt_precision(GB_PREC_FP16_ACC16, &lp);
	assert_int_equal(lp.compute, CUBLAS_COMPUTE_16F);
	assert_int_equal(lp.scale, CUDA_R_16F);
	assert_int_equal(lp.alpha.f16, 0x3C00);
	assert_int_equal(lp.beta.f16, 0);
	gb_lt_precision(GB_PREC_INT8, &lp);
	assert_int_equal(lp.compute, CUBLAS_COMPUTE_32I);
	assert_int_equal(lp.scale, CUDA_R_32I);
	assert_int_equal(lp.alpha.i32, 1);
	gb_lt_precision(GB_PREC_FP8, &lp);
	assert_int_equal(lp.compute, CUBLAS_COMPUTE_32F);
	assert_int_equal(lp.scale, CUDA_R_32F);
	assert_int_equal(gb_lt_cuda_type(GB_DT_E4M3), CUDA_R_8F_E4M3);
	assert_int_equal(gb_lt_cuda_type(GB_DT_I32), CUDA_R_32I);
	assert_int_equal(gb_lt_cuda_type(gb_gemm_output_type(GB_PREC_FP8)), CUDA_R_16BF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lt_precision_table),
		cmocka_unit_test(test_odd_sizes_every_precision),
		cmocka_unit_test(test_large_default_set),
		cmocka_unit_test(test_injected_fault_caught),
		cmocka_unit_test(test_unsupported_is_skipped),
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_algorithm_named),
		cmocka_unit_test(test_repeat),
		cmocka_unit_test(test_all_skips_per_shape),
		cmocka_unit_test(test_impl_alias),
	};

	gb_test_require_gpu();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
