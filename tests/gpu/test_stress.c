/* SPDX-License-Identifier: MIT */
/*
 * test_stress.c - `gpubench stress` on a real GPU, driven through its public
 * descriptor (gb_bench_stress: defaults, option table, validate, run) as
 * cmd/ drives it: a short run of every precision the GPU supports passes
 * every verification layer, pins a self-checked algorithm per phase and
 * reports how much of the ABFT bound its checksums used; mixed gives each
 * precision its own batch size and throughput; --inject-fault is caught
 * (GEMM and memtest, with the word's address and pattern); a pulse profile
 * and the memtest pass; and a run stopped from another thread after 2 s
 * returns promptly with what it measured, which the run then reports as
 * interrupted (exit 130). Exits 77 (skipped) without a GPU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"
#include "bench/device/gpu.h"
#include "bench/device/nvml.h"
#include "bench/stress/stress_math.h"
#include "cmd/cli.h"
#include "gpu_test.h"
#include "report/exitcodes.h"
#include "report/json.h"
#include "report/result.h"

extern const struct gb_bench gb_bench_stress;
#define GB_FIXTURE_BENCH gb_bench_stress
#include "bench_fixture.h"

static void want_check(const struct gb_bench_result *r, const char *name, enum gb_status st)
{
	const struct gb_check *c = find_check(r, name);

	if (!c || c->status != st) {
		dump(r);
		fail_msg("check '%s' is %s, expected %s", name, c ? gb_status_name(c->status) : "absent",
			 gb_status_name(st));
	}
}

/*
 * Passed, or warnings only; a failure is accepted only from rules about the
 * machine's environment (a hot or throttled GPU), never from verification.
 */
static void expect_pass(const struct gb_bench_result *r)
{
	static const char *const env_rules[] = { "temperature", "throttle", "throughput_drop",
						 "peer_throughput" };

	if (r->status == GB_STATUS_PASSED || r->status == GB_STATUS_WARNING)
		return;
	if (r->status == GB_STATUS_FAILED) {
		for (size_t i = 0; i < r->n_checks; i++) {
			bool env = false;

			if (r->checks[i].status != GB_STATUS_FAILED)
				continue;
			for (size_t k = 0; k < sizeof(env_rules) / sizeof(env_rules[0]); k++)
				env |= !strcmp(r->checks[i].name, env_rules[k]);
			if (!env) {
				dump(r);
				fail_msg("check %s failed", r->checks[i].name);
			}
			fprintf(stderr, "note: environment finding: %s\n", r->checks[i].message);
		}
		return;
	}
	dump(r);
	fail_msg("stress %s", gb_status_name(r->status));
}

static double metric(const struct gb_bench_result *r, const char *name)
{
	const struct gb_metric *m = gb_bench_find_metric(r, name, 0);

	return m ? m->value : NAN;
}

/* extra.gpus[0].phases[i] */
static const cJSON *phase_json(const struct gb_bench_result *r, int i)
{
	const cJSON *gpus = cJSON_GetObjectItem(r->extra, "gpus");

	return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(gpus, 0), "phases"), i);
}

/* the phases of GPU 0, each of which holds a reference slot */
static int n_phases(const struct gb_bench_result *r)
{
	const cJSON *gpus = cJSON_GetObjectItem(r->extra, "gpus");

	return cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(gpus, 0), "phases"));
}

/*
 * Every phase pinned an algorithm; random phases checked it repeats bit for
 * bit and used less than the whole ABFT bound (the headroom an H100 shows).
 */
static void expect_phases(const struct gb_bench_result *r)
{
	const cJSON *ph;

	for (int i = 0; (ph = phase_json(r, i)) != NULL; i++) {
		const cJSON *algo = cJSON_GetObjectItem(ph, "algo");
		bool random = !strcmp(cJSON_GetObjectItem(ph, "mode")->valuestring, "random");
		const cJSON *ratio = cJSON_GetObjectItem(ph, "abft_max_ratio");

		assert_non_null(algo);
		assert_true(cJSON_GetObjectItem(algo, "pinned")->valueint >= 1);
		assert_true(cJSON_IsTrue(cJSON_GetObjectItem(algo, "reproducible")));
		if (!random)
			continue;
		assert_true(cJSON_IsTrue(cJSON_GetObjectItem(algo, "self_checked")));
		fprintf(stderr, "  %s: pinned algorithm %d of %d, ABFT max ratio %g\n",
			cJSON_GetObjectItem(ph, "precision")->valuestring,
			cJSON_GetObjectItem(algo, "pinned")->valueint,
			cJSON_GetObjectItem(algo, "candidates")->valueint,
			cJSON_IsNumber(ratio) ? ratio->valuedouble : NAN);
		assert_true(cJSON_IsNumber(ratio) && ratio->valuedouble >= 0 && ratio->valuedouble < 1);
	}
}

/*
 * A short stress's duration: on the simulated GPU, 1 s of simulated time
 * holds many batches of these 1024^3 GEMMs (the checks under test are per
 * batch), and the CPU computes every one of them; a real GPU gets the full
 * time, for its first batches' algorithm search and warm clocks.
 */
static const char *short_run(const char *on_gpu)
{
	return gb_test_on_simulator() ? "1s" : on_gpu;
}

static void test_each_precision(void **state)
{
	const char *const precs[] = { "bf16", "fp16", "tf32", "fp32", "fp64", "fp8", "mixed" };

	(void)state;
	for (size_t i = 0; i < sizeof(precs) / sizeof(precs[0]); i++) {
		const char *args[] = { "--duration", short_run("6s"), "--size", "1024",
				       "--mem",      "20%",           "--interval", "500ms",
				       "--progress", "none",          "--precision", precs[i] };
		struct fixture f;
		const struct gb_bench_result *r;
		char why[160];
		int p;

		fixture_open(&f);
		for (p = 0; gb_stress_prec_names[p] && strcmp(gb_stress_prec_names[p], precs[i]); p++)
			;
		if (gb_stress_unsupported((enum gb_stress_prec)p, dev0(&f)->cc_major,
					  dev0(&f)->cc_minor, why, sizeof(why))) {
			fprintf(stderr, "skipping %s: %s\n", precs[i], why);
			fixture_close(&f);
			continue;
		}
		r = fixture_run(&f, args, sizeof(args) / sizeof(args[0]));
		fprintf(stderr, "%s: %.4g TFLOP/s settled, %g GEMMs\n", precs[i],
			metric(r, "tflops_settled"), metric(r, "gemms"));
		expect_pass(r);
		want_check(r, "could_run", GB_STATUS_PASSED);
		want_check(r, "abft", GB_STATUS_PASSED);
		want_check(r, "exact", GB_STATUS_PASSED);
		want_check(r, "repeat", GB_STATUS_PASSED);
		want_check(r, "nan", GB_STATUS_PASSED);
		assert_true(metric(r, "gemms") > 0);
		if (strcmp(precs[i], "mixed")) {
			assert_true(metric(r, "tflops") > 0);
		} else {
			assert_true(metric(r, "tflops_fp64") > 0);
			assert_true(metric(r, "tflops_fp16") > 0);
		}
		assert_true(metric(r, "repeat_mismatches") == 0);
		assert_true(metric(r, "abft_max_ratio") < 1);
		expect_phases(r);
		fixture_close(&f);
	}
}

/*
 * Mixed at full size: each phase sizes its own batches, so an fp64 batch
 * is not sized from the fp16 one before it (2.8 s of fp64 per 22 ms of fp16
 * on an H100 when they shared one size), and each precision has its own
 * throughput.
 */
static void test_mixed_batches(void **state)
{
	/*
	 * The simulated GPU's CPU cannot compute a full-size fp64 GEMM within the
	 * run (tests/sim): there the dimension is 1024, which still gives each
	 * precision its own batches (and its slots fill 1 GiB).
	 */
	const char *args[] = { "--duration", gb_test_on_simulator() ? "2s" : "10s", "--mem", "50%",
			       "--interval", "500ms", "--progress", "none", "--precision", "mixed",
			       "--size", "1024" };
	const int n_args = gb_test_on_simulator() ? 12 : 10;
	const cJSON *gpu;
	struct fixture f;
	const struct gb_bench_result *r;
	double max_batch_s;
	int fp64_batch, fp16_batch, working;
	char why[160];

	(void)state;
	fixture_open(&f);
	if (gb_stress_unsupported(GB_SP_MIXED, dev0(&f)->cc_major, dev0(&f)->cc_minor, why,
				  sizeof(why))) {
		fprintf(stderr, "skipping mixed: %s\n", why);
		fixture_close(&f);
		return;
	}
	r = fixture_run(&f, args, n_args);
	expect_pass(r);
	gpu = cJSON_GetArrayItem(cJSON_GetObjectItem(r->extra, "gpus"), 0);
	max_batch_s = cJSON_GetObjectItem(gpu, "max_batch_s")->valuedouble;
	fprintf(stderr, "mixed: fp64 %.4g, fp16 %.4g TFLOP/s; batches of %d and %d GEMMs; longest "
			"batch %.2f s\n",
		metric(r, "tflops_fp64_settled"), metric(r, "tflops_fp16_settled"),
		cJSON_GetObjectItem(phase_json(r, 0), "batch_gemms")->valueint,
		cJSON_GetObjectItem(phase_json(r, 1), "batch_gemms")->valueint, max_batch_s);
	assert_true(max_batch_s < 1.0);
	/*
	 * fp64 GEMMs are the slow ones: fewer per batch, unless fp16's batch is
	 * already every working slot (a GPU with little memory, as the simulated
	 * ones: then both are the slots, and the time per batch tells them apart)
	 */
	fp64_batch = cJSON_GetObjectItem(phase_json(r, 0), "batch_gemms")->valueint;
	fp16_batch = cJSON_GetObjectItem(phase_json(r, 1), "batch_gemms")->valueint;
	working = cJSON_GetObjectItem(gpu, "slots")->valueint - n_phases(r);
	fprintf(stderr, "mixed: %d working slots\n", working);
	if (fp16_batch < working)
		assert_true(fp64_batch < fp16_batch);
	else
		assert_true(fp64_batch <= fp16_batch);
	assert_true(metric(r, "tflops_fp16") > 2 * metric(r, "tflops_fp64"));
	fixture_close(&f);
}

static const cJSON *injected_forensic(const struct gb_bench_result *r)
{
	const cJSON *fs = cJSON_GetObjectItem(r->extra, "forensics"), *f;

	cJSON_ArrayForEach(f, fs)
		if (cJSON_IsTrue(cJSON_GetObjectItem(f, "injected")))
			return f;
	return NULL;
}

static void inject(const char *const *extra, int n_extra, const char *layer)
{
	const char *args[16] = { "--duration", short_run("6s"), "--size", "1024", "--mem", "20%",
				 "--progress", "none", "--inject-fault" };
	int n = 9;
	struct fixture f;
	const struct gb_bench_result *r;
	const struct gb_check *c;

	for (int i = 0; i < n_extra; i++)
		args[n++] = extra[i];
	fixture_open(&f);
	r = fixture_run(&f, args, n);
	want_check(r, "fault_injection", GB_STATUS_PASSED);
	c = find_check(r, "fault_injection");
	if (!strstr(c->message, layer))
		fail_msg("'%s' does not name %s", c->message, layer);
	/* the injected flip is not a hardware error */
	expect_pass(r);
	assert_non_null(injected_forensic(r));
	/* a memory word is named by its address and the pattern that found it */
	if (!strcmp(layer, "memtest")) {
		const cJSON *rec = injected_forensic(r);

		fprintf(stderr, "%s\n", cJSON_GetObjectItem(rec, "message")->valuestring);
		assert_true(cJSON_IsString(cJSON_GetObjectItem(rec, "address")));
		assert_true(cJSON_IsString(cJSON_GetObjectItem(rec, "pattern")));
		assert_true(cJSON_GetObjectItem(rec, "pass")->valueint >= 1);
	}
	fixture_close(&f);
}

static void test_inject_fault(void **state)
{
	const char *no_abft_repeat[] = { "--no-abft", "--no-repeat" };
	const char *repeat_only[] = { "--no-abft", "--no-exact" };
	const char *memtest[] = { "--memtest" };

	(void)state;
	inject(NULL, 0, "abft");
	inject(NULL, 0, "repeat");
	inject(repeat_only, 2, "repeat");
	inject(no_abft_repeat, 2, "exact");
	inject(memtest, 1, "memtest");
}

static void test_memtest(void **state)
{
	const char *args[] = { "--memtest", "--duration", short_run("5s"), "--mem", "10%",
			       "--progress", "none" };
	struct fixture f;
	const struct gb_bench_result *r;

	(void)state;
	fixture_open(&f);
	r = fixture_run(&f, args, sizeof(args) / sizeof(args[0]));
	expect_pass(r);
	want_check(r, "memtest", GB_STATUS_PASSED);
	assert_true(metric(r, "mem_errors") == 0);
	assert_true(metric(r, "mem_gbps") > 0);
	fixture_close(&f);
}

static void test_pulse(void **state)
{
	const char *args[] = { "--duration", gb_test_on_simulator() ? "2s" : "8s", "--size", "1024",
			       "--mem", "20%", "--profile", "pulse", "--period",
			       gb_test_on_simulator() ? "1s" : "2s", "--progress", "jsonl" };
	struct fixture f;
	const struct gb_bench_result *r;

	(void)state;
	fixture_open(&f);
	r = fixture_run(&f, args, sizeof(args) / sizeof(args[0]));
	expect_pass(r);
	want_check(r, "repeat", GB_STATUS_PASSED);
	fixture_close(&f);
}

struct bg {
	struct fixture *f;
	double returned_s;
};

static void *bg_run(void *arg)
{
	struct bg *b = arg;

	gb_bench_stress.run(&b->f->ctx, b->f->params, b->f->res);
	b->returned_s = gb_now_s();
	return NULL;
}

/* Ctrl-C: the stop flag set from another thread after 2 s of a 60 s run. */
static void test_interrupt(void **state)
{
	/* 512 on the simulated GPU, whose CPU takes seconds for the first 2048^3 GEMM */
	const char *args[] = { "--duration", "60s", "--size",
			       gb_test_on_simulator() ? "512" : "2048", "--mem", "30%",
			       "--progress", "none" };
	char path[] = "/tmp/gpubench-stress-XXXXXX", err[256];
	struct fixture f;
	struct bg b = { &f, 0 };
	pthread_t th;
	double stop_at;
	int fd;

	(void)state;
	fixture_open(&f);
	fixture_parse(&f, args, sizeof(args) / sizeof(args[0]));
	/* through bench/device/clock.h: on the simulator, 2 s of simulated time */
	assert_int_equal(gb_thread_start(&th, bg_run, &b), 0);
	gb_sleep_s(2);
	stop_at = gb_now_s();
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED); /* the workers read it */
	gb_thread_join(th);
	/* the current batch and the reference recheck finish, nothing more */
	assert_true(b.returned_s - stop_at < 15);
	assert_true(metric(f.res, "gemms") > 0);
	want_check(f.res, "could_run", GB_STATUS_PASSED);
	want_check(f.res, "repeat", GB_STATUS_PASSED);
	/* what cmd/ does on a signal: the result and the run are interrupted, exit 130 */
	if (f.res->status != GB_STATUS_FAILED)
		f.res->status = GB_STATUS_INTERRUPTED;
	f.run.status = GB_STATUS_INTERRUPTED;
	gb_run_verdict(&f.run);
	assert_int_equal(gb_exit_code_for_status(f.run.verdict), GB_EXIT_INTERRUPTED);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(gb_report_write_file(&f.run, path, err, sizeof(err)), 0);
	unlink(path);
	fixture_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_precision),
		cmocka_unit_test(test_mixed_batches),
		cmocka_unit_test(test_inject_fault),
		cmocka_unit_test(test_memtest),
		cmocka_unit_test(test_pulse),
		cmocka_unit_test(test_interrupt),
	};

	gb_test_require_gpu();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
