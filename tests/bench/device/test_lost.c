/* SPDX-License-Identifier: MIT */
/*
 * test_lost.c - lost GPUs without a GPU: the sticky-error list
 * (bench/device/lost_math.c), the `device_lost` mark and how `run` reads it back
 * from fake results (which GPUs later steps keep, and the skipped check
 * naming each one left out), and the "info" findings of GPU collection
 * (bench/device/info_math.c).
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

#include "bench/device/info_math.h"
#include "bench/device/lost_math.h"
#include "report/result.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void run_new(struct gb_run *run)
{
	const char *argv[] = { "gpubench", "run" };

	gb_run_init(run, "run", 2, argv);
}

/* ---- the sticky list (G-1) ---- */

static void test_sticky_codes(void **state)
{
	/* driver_types.h (CUDA 13): each leaves the process unable to use the GPU */
	static const int sticky[] = { 214, 220, 226, 700, 702, 710, 714, 715,
				      716, 717, 718, 719, 721, 810, 911, 999 };
	/* out of memory, invalid value, not ready, busy in exclusive mode, no device */
	static const int not_sticky[] = { 0, 1, 2, 46, 100, 101, 600, 209 };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(sticky); i++) {
		if (!gb_cuda_code_is_sticky(sticky[i]))
			fail_msg("CUDA error %d should be sticky", sticky[i]);
	}
	for (size_t i = 0; i < ARRAY_LEN(not_sticky); i++) {
		if (gb_cuda_code_is_sticky(not_sticky[i]))
			fail_msg("CUDA error %d should not be sticky", not_sticky[i]);
	}
}

/* ---- the mark ---- */

static void test_device_lost_mark(void **state)
{
	struct gb_run run;
	struct gb_bench_result *res;

	(void)state;
	run_new(&run);
	res = gb_run_add_bench(&run, "gemm");
	assert_false(gb_bench_device_is_lost(res, 1));
	gb_bench_device_lost(res, 1, GB_STATUS_FAILED, "'cudaMemcpy' failed on GPU %d: %s", 1,
			     "cudaErrorContained");
	assert_true(gb_bench_device_is_lost(res, 1));
	assert_false(gb_bench_device_is_lost(res, 0));
	/* a finding: the benchmark fails, with the reason */
	assert_int_equal(res->status, GB_STATUS_FAILED);
	assert_string_equal(res->checks[0].name, "device_lost");
	assert_int_equal(res->checks[0].severity, GB_SEV_ERROR);
	assert_non_null(strstr(res->reason, "cudaErrorContained"));
	gb_run_release(&run);
}

/* ---- reading the marks back (10-B) ---- */

/* Fake results as the benchmarks write them today. */
static void fake_results(struct gb_run *run)
{
	struct gb_bench_result *gemm = gb_run_add_bench(run, "gemm");
	struct gb_bench_result *stress = gb_run_add_bench(run, "stress");

	/* gemm: GPU 2 hit a sticky error; an ordinary check failed on GPU 0 */
	gb_bench_add_check(gemm, "bf16_efficiency", GB_STATUS_FAILED, GB_SEV_ERROR, 0, 0.5, 0.7,
			   "bf16 at 50%% of peak");
	gb_bench_add_check(gemm, "device_lost", GB_STATUS_ERROR, GB_SEV_ERROR, 2, NAN, NAN,
			   "device 2 hit an unrecoverable CUDA error");
	/* stress: GPU 3 hung (its watchdog), GPU 1 had a sticky error, GPU 0 passed */
	gb_bench_add_check(stress, "could_run", GB_STATUS_PASSED, GB_SEV_INFO, 0, 10, NAN, "ran");
	gb_bench_add_check(stress, "could_run", GB_STATUS_ERROR, GB_SEV_ERROR, 3, NAN, NAN,
			   "could not run: hung: no progress for 31 s (limit 30 s); the GPU was "
			   "abandoned");
	gb_bench_add_check(stress, "cuda_error", GB_STATUS_FAILED, GB_SEV_ERROR, 1, NAN, NAN,
			   "'cudaEventQuery' failed after 12 s of load: cudaErrorIllegalAddress");
	gb_bench_add_check(stress, "cuda_error", GB_STATUS_PASSED, GB_SEV_INFO, 0, NAN, NAN,
			   "no CUDA error");
	/* a check of no device never loses one */
	gb_bench_add_check(stress, "device_lost", GB_STATUS_ERROR, GB_SEV_ERROR, -1, NAN, NAN,
			   "hung: everything");
}

static void test_lost_scan(void **state)
{
	struct gb_lost_set set = { .n = 0 };
	struct gb_run run;
	const struct gb_lost *l;

	(void)state;
	run_new(&run);
	fake_results(&run);
	assert_int_equal(gb_lost_scan(&set, &run.benches[0]), 1);
	assert_int_equal(gb_lost_scan(&set, &run.benches[1]), 2);
	assert_int_equal(set.n, 3);
	assert_null(gb_lost_find(&set, 0));
	l = gb_lost_find(&set, 2);
	assert_non_null(l);
	assert_string_equal(l->bench, "gemm");
	assert_false(l->hung);
	l = gb_lost_find(&set, 3);
	assert_non_null(l);
	assert_string_equal(l->bench, "stress");
	assert_true(l->hung);
	assert_non_null(strstr(l->reason, "hung: no progress for 31 s"));
	assert_false(gb_lost_find(&set, 1)->hung);
	assert_true(gb_lost_any_hung(&set));
	/* scanning again adds nothing: the first reason stays */
	assert_int_equal(gb_lost_scan(&set, &run.benches[1]), 0);
	assert_int_equal(set.n, 3);
	gb_run_release(&run);
}

/* What `run` does for a later step: keep the rest, note each one left out. */
static void test_lost_filter_and_note(void **state)
{
	static const int all[] = { 0, 1, 2, 3, 4 };
	struct gb_lost_set set = { .n = 0 };
	struct gb_bench_result *p2p;
	struct gb_run run;
	int keep[8];
	size_t n;

	(void)state;
	run_new(&run);
	fake_results(&run);
	for (size_t i = 0; i < run.n_benches; i++)
		gb_lost_scan(&set, &run.benches[i]);
	n = gb_lost_filter(&set, all, ARRAY_LEN(all), keep);
	assert_int_equal(n, 2);
	assert_int_equal(keep[0], 0);
	assert_int_equal(keep[1], 4);

	p2p = gb_run_add_bench(&run, "p2p");
	assert_int_equal(gb_lost_note(&set, all, ARRAY_LEN(all), p2p), 3);
	assert_int_equal(p2p->n_checks, 3);
	assert_string_equal(p2p->checks[0].name, "lost_gpu");
	assert_int_equal(p2p->checks[0].status, GB_STATUS_SKIPPED);
	assert_int_equal(p2p->checks[0].device, 1);
	assert_string_equal(p2p->checks[0].message,
			    "GPU 1 lost in stress: 'cudaEventQuery' failed after 12 s of load: "
			    "cudaErrorIllegalAddress");
	assert_string_equal(p2p->checks[1].message,
			    "GPU 2 lost in gemm: device 2 hit an unrecoverable CUDA error");
	/* skipped checks neither fail the step nor make it lose anything */
	assert_int_equal(p2p->status, GB_STATUS_PASSED);
	assert_int_equal(gb_lost_scan(&set, p2p), 0);
	/* nothing lost, nothing noted */
	set.n = 0;
	assert_int_equal(gb_lost_filter(&set, all, ARRAY_LEN(all), keep), ARRAY_LEN(all));
	assert_false(gb_lost_any_hung(&set));
	gb_run_release(&run);
}

/* ---- findings of GPU collection (10-E, G-6, G-3) ---- */

static struct gb_info_notes *notes_new(size_t n)
{
	struct gb_info_notes *notes = calloc(1, sizeof(*notes));

	assert_non_null(notes);
	notes->n = n;
	for (size_t i = 0; i < n; i++) {
		notes->dev[i].device = (int)i;
		notes->dev[i].nvml.gpu_max_pcie_gen = -1;
	}
	return notes;
}

static void add_devices(struct gb_run *run, size_t n, int max_gen)
{
	for (size_t i = 0; i < n; i++) {
		struct gb_device_info *d = gb_run_add_device(run);

		d->index = (int)i;
		d->pcie_max_gen = max_gen;
	}
}

static void test_info_nothing_to_say(void **state)
{
	struct gb_info_notes *notes = notes_new(2);
	struct gb_run run;

	(void)state;
	run_new(&run);
	add_devices(&run, 2, 5);
	notes->dev[0].nvml_asked = notes->dev[1].nvml_asked = true;
	notes->dev[0].nvml.gpu_max_pcie_gen = 5;
	/* a feature the GPU lacks is not a finding */
	snprintf(notes->dev[1].nvml.unsupported, sizeof(notes->dev[1].nvml.unsupported), "ecc");
	notes->dev[1].nvml.n_unsupported = 1;
	assert_null(gb_info_notes_apply(&run, notes));
	assert_int_equal(run.n_benches, 0);
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_PASSED);
	gb_run_release(&run);
	free(notes);
}

static void test_info_nvml_missing(void **state)
{
	struct gb_info_notes *notes = notes_new(1);
	struct gb_bench_result *res;
	struct gb_run run;

	(void)state;
	run_new(&run);
	add_devices(&run, 1, -1);
	snprintf(notes->nvml_error, sizeof(notes->nvml_error),
		 "cannot load 'libnvidia-ml.so.1': not found");
	res = gb_info_notes_apply(&run, notes);
	assert_non_null(res);
	assert_int_equal(res->status, GB_STATUS_WARNING);
	assert_int_equal(res->n_checks, 1);
	assert_string_equal(res->checks[0].name, "nvml");
	assert_int_equal(res->checks[0].device, -1);
	assert_non_null(strstr(res->checks[0].message,
			       "telemetry unavailable: cannot load 'libnvidia-ml.so.1'"));
	assert_non_null(strstr(res->reason, "telemetry unavailable"));
	gb_run_verdict(&run);
	/* a warning in the report, not a failure: exit 0 */
	assert_int_equal(run.verdict, GB_STATUS_WARNING);
	assert_int_equal(gb_exit_code_for_status(run.verdict), 0);
	assert_int_equal(run.n_verdict_warnings, 1);
	gb_run_release(&run);
	free(notes);
}

/* One GPU that cannot be read is reported and lost; the others are untouched. */
static void test_info_unreadable_gpu(void **state)
{
	struct gb_info_notes *notes = notes_new(3);
	struct gb_lost_set set = { .n = 0 };
	struct gb_bench_result *res;
	static const int all[] = { 0, 1, 2 };
	int keep[3];
	struct gb_run run;

	(void)state;
	run_new(&run);
	add_devices(&run, 3, 4);
	snprintf(notes->dev[1].cuda_error, sizeof(notes->dev[1].cuda_error),
		 "'cudaGetDeviceProperties' failed: cudaErrorUnknown (unknown error)");
	res = gb_info_notes_apply(&run, notes);
	assert_non_null(res);
	assert_int_equal(res->status, GB_STATUS_ERROR);
	assert_int_equal(res->n_checks, 1);
	assert_string_equal(res->checks[0].name, "device_lost");
	assert_int_equal(res->checks[0].device, 1);
	assert_non_null(strstr(res->checks[0].message, "cannot read the properties of GPU 1"));
	assert_int_equal(gb_lost_scan(&set, res), 1);
	assert_int_equal(gb_lost_filter(&set, all, 3, keep), 2);
	assert_int_equal(keep[0], 0);
	assert_int_equal(keep[1], 2);
	gb_run_release(&run);
	free(notes);
}

static void test_info_slot_slower(void **state)
{
	struct gb_info_notes *notes = notes_new(2);
	struct gb_bench_result *res;
	struct gb_run run;

	(void)state;
	run_new(&run);
	add_devices(&run, 2, 4);
	notes->dev[0].nvml_asked = notes->dev[1].nvml_asked = true;
	notes->dev[0].nvml.gpu_max_pcie_gen = 5; /* a Gen5 GPU in a Gen4 slot */
	notes->dev[1].nvml.gpu_max_pcie_gen = 4; /* a Gen4 GPU in a Gen4 slot */
	res = gb_info_notes_apply(&run, notes);
	assert_non_null(res);
	assert_int_equal(res->n_checks, 1);
	assert_string_equal(res->checks[0].name, "pcie_slot");
	assert_int_equal(res->checks[0].device, 0);
	assert_string_equal(res->checks[0].message,
			    "GPU 0 supports PCIe Gen5 but its slot allows Gen4 at most; host "
			    "transfers are judged against Gen4");
	gb_run_release(&run);
	free(notes);
}

/* Set GPU i's trained and maximum PCIe link. */
static void set_link(struct gb_run *run, int i, int gen, int width, int max_gen, int max_width)
{
	struct gb_device_info *d = &run->devices[i];

	d->pcie_gen = gen;
	d->pcie_width = width;
	d->pcie_max_gen = max_gen;
	d->pcie_max_width = max_width;
}

/*
 * A link narrower than its maximum is a warning naming the GPU and both
 * links; an idle GPU's lower generation at full width is no finding, nor is
 * a link NVML could not read.
 */
static void test_info_link_narrow(void **state)
{
	struct gb_info_notes *notes = notes_new(3);
	struct gb_bench_result *res;
	struct gb_run run;

	(void)state;
	run_new(&run);
	add_devices(&run, 3, 4);
	for (int i = 0; i < 3; i++)
		notes->dev[i].nvml_asked = true;
	set_link(&run, 0, 1, 16, 4, 16);  /* idle: Gen1, full width */
	set_link(&run, 1, 4, 8, 4, 16);   /* half the lanes */
	set_link(&run, 2, -1, -1, 4, 16); /* unknown */
	res = gb_info_notes_apply(&run, notes);
	assert_non_null(res);
	assert_int_equal(res->n_checks, 1);
	assert_string_equal(res->checks[0].name, "pcie_link");
	assert_int_equal(res->checks[0].device, 1);
	assert_int_equal(res->checks[0].status, GB_STATUS_WARNING);
	assert_true(res->checks[0].observed == 8 && res->checks[0].threshold == 16);
	assert_non_null(strstr(res->checks[0].message,
			       "GPU 1's PCIe link trained at Gen4 x8, card and slot allow Gen4 x16"));
	assert_int_equal(res->status, GB_STATUS_WARNING);
	gb_run_verdict(&run);
	/* a warning, as for the slot: the report says it, exit 0 */
	assert_int_equal(run.verdict, GB_STATUS_WARNING);
	assert_int_equal(gb_exit_code_for_status(run.verdict), 0);
	gb_run_release(&run);

	/* the same narrow link NVML was not asked about: nothing to say */
	notes->dev[1].nvml_asked = false;
	run_new(&run);
	add_devices(&run, 3, 4);
	set_link(&run, 1, 4, 8, 4, 16);
	assert_null(gb_info_notes_apply(&run, notes));
	gb_run_release(&run);
	free(notes);
}

/* A CUDA error with a known cause while counting GPUs says what to do; others say nothing more. */
static void test_probe_hints(void **state)
{
	(void)state;
	assert_non_null(strstr(gb_cuda_probe_hint(GB_CUDA_ERR_SYSTEM_NOT_READY), "fabric manager"));
	assert_non_null(strstr(gb_cuda_probe_hint(GB_CUDA_ERR_DRIVER_MISMATCH), "kernel module"));
	assert_non_null(strstr(gb_cuda_probe_hint(GB_CUDA_ERR_COMPAT_NOT_SUPPORTED), "cuda-compat"));
	assert_null(gb_cuda_probe_hint(0));
	assert_null(gb_cuda_probe_hint(100)); /* no device: its own message */
	assert_null(gb_cuda_probe_hint(999));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sticky_codes),
		cmocka_unit_test(test_device_lost_mark),
		cmocka_unit_test(test_lost_scan),
		cmocka_unit_test(test_lost_filter_and_note),
		cmocka_unit_test(test_info_nothing_to_say),
		cmocka_unit_test(test_info_nvml_missing),
		cmocka_unit_test(test_info_unreadable_gpu),
		cmocka_unit_test(test_info_slot_slower),
		cmocka_unit_test(test_info_link_narrow),
		cmocka_unit_test(test_probe_hints),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
