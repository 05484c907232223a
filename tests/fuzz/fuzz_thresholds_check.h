/* SPDX-License-Identifier: MIT */
/*
 * fuzz_thresholds_check.h - what "the thresholds file loader behaved" means,
 * shared by the libFuzzer harness (fuzz_thresholds.c) and the regression test
 * that replays every saved crash (tests/report/test_fuzz_regressions.c).
 *
 * For one input (bytes meant to be a --thresholds file, report/thresholds.c):
 *   - cJSON_ParseWithLength; input that is not JSON is not the loader's business;
 *   - gb_thresholds_from_json on top of the built-in 'quick' rules either
 *     succeeds, or fails with exactly one non-empty line in err (no control
 *     characters) and leaves the rules exactly as they were, as thresholds.h
 *     promises;
 *   - after success every rule the file added is one the format allows: a
 *     non-empty metric glob, a non-empty benchmark glob or none, an efficiency
 *     of [0, 2] or none (docs/thresholds.md), finite bounds or none, a known peak kind and
 *     severity, some limit unless "off"; the spread is [0, 1] or off;
 *   - the rules are applied to a small run (three GPUs, two of one model,
 *     metrics of every kind the built-ins know, one without a value), which
 *     then gets its verdict and must survive the JSON round trip of
 *     fuzz_report_check.h (the checks' messages end up in the report).
 * Each check returns NULL when all is well, else what broke (fuzz_common.h).
 */
#ifndef GPUBENCH_TESTS_FUZZ_THRESHOLDS_CHECK_H
#define GPUBENCH_TESTS_FUZZ_THRESHOLDS_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz_common.h"
#include "fuzz_report_check.h"
#include "report/result.h"
#include "report/theory.h"
#include "report/thresholds.h"

FZ_STATIC void fzt_metric(struct gb_bench_result *b, const char *name, const char *unit, int device,
			  double value, double peak)
{
	gb_bench_add_value(b, name, unit, GB_BETTER_HIGHER, device, value, peak);
}

FZ_STATIC void fzt_device(struct gb_run *run, int index, const char *name, bool peaks)
{
	struct gb_device_info *d = gb_run_add_device(run);

	d->index = index;
	d->name = gb_strdup(name);
	d->pcie_gen = d->pcie_max_gen = 5;
	d->pcie_width = d->pcie_max_width = 16;
	if (!peaks)
		return;
	for (int p = 0; p < GB_PREC_COUNT; p++) {
		d->peaks.spec[p] = 100e12 * (p + 1);
		d->peaks.max_clock[p] = 90e12 * (p + 1);
	}
	d->peaks.spec[GB_PREC_FP8] = NAN; /* spec unknown: the max-clock figure applies */
	d->peaks.mem_bw_bps_spec = 3.35e12;
	d->peaks.mem_bw_bps = 3.3e12;
	d->peaks.pcie_bps = 63e9;
	d->peaks.pcie_bps_current = 63e9;
	d->peaks.nvlink_bps = 450e9;
}

/* a run with something for every kind of rule to judge */
FZ_STATIC void fzt_make_run(struct gb_run *run)
{
	struct gb_bench_result *b;

	gb_run_init(run, "run", 0, NULL);
	fzt_device(run, 0, "NVIDIA H100 80GB HBM3", true);
	fzt_device(run, 1, "NVIDIA H100 80GB HBM3", true);
	fzt_device(run, 2, "Unknown GPU", false);

	b = gb_run_add_bench(run, "gemm");
	fzt_metric(b, "tflops_bf16", "TFLOP/s", 0, 700, NAN);
	fzt_metric(b, "tflops_bf16", "TFLOP/s", 1, 500, NAN);
	fzt_metric(b, "tflops_bf16", "TFLOP/s", 2, 300, NAN);
	fzt_metric(b, "tflops_fp64_tc_min", "TFLOP/s", 0, 50, NAN);
	fzt_metric(b, "tflops_fp8", "TFLOP/s", 1, 1500, NAN);
	fzt_metric(b, "tflops_int8", "TOPS", -1, 1000, NAN);
	fzt_metric(b, "tflops_bogus", "TFLOP/s", 0, 10, NAN);
	fzt_metric(b, "tflops_fp32", "TFLOP/s", 0, NAN, NAN);
	fzt_metric(b, "own_peak", "widgets", 0, 3, 4);
	fzt_metric(b, "own_peak", "widgets", 1, 4, 4);

	b = gb_run_add_bench(run, "bandwidth");
	fzt_metric(b, "h2d_pinned_gbps", "GB/s", 0, 50, NAN);
	fzt_metric(b, "d2h_pinned_gbps", "MB/s", 1, 50000, NAN);
	fzt_metric(b, "memory_copy_gbps", "GB/s", 0, 3000, NAN);
	fzt_metric(b, "d2d_copy_gbps", "GiB/s", 2, 1000, NAN);
	fzt_metric(b, "nvlink_bidir_gbps", "GB/s", 0, 700, NAN);
	fzt_metric(b, "pcie_gen", NULL, 0, 4, NAN);
	fzt_metric(b, "pcie_width", NULL, 1, 16, NAN);
	fzt_metric(b, "pcie_width", NULL, 2, 8, NAN);

	b = gb_run_add_bench(run, "stress");
	fzt_metric(b, "mismatches", "count", 0, 0, NAN);
	fzt_metric(b, "nan_count", "count", 1, 2, NAN);
	fzt_metric(b, "xid_events", "count", 0, 1, NAN);
	fzt_metric(b, "ecc_dbe_volatile", "count", 1, 0, NAN);
	fzt_metric(b, "temp_c_max", "C", 0, 95, NAN);
	fzt_metric(b, "temp_c_max", "C", 1, -1e308, NAN);

	b = gb_run_add_bench(run, "p2p");
	gb_bench_set_status(b, GB_STATUS_SKIPPED, "p2p needs 2 GPUs, found 1");
	fzt_metric(b, "p2p_gbps", "GB/s", 0, 1, NAN);
}

FZ_STATIC bool fzt_opt_glob(const char *s)
{
	return !s || *s;
}

/* the rules t holds beyond the first `before`, and its spread, as the format allows */
FZ_STATIC const char *fzt_check_rules(const struct gb_thresholds *t, size_t before)
{
	if (!isnan(t->same_model_spread) &&
	    !(t->same_model_spread >= 0 && t->same_model_spread <= 1))
		return fz_fail("thresholds-rule", "same_model_spread %g", t->same_model_spread);
	for (size_t i = 0; i + before < t->n; i++) {
		const struct gb_threshold *r = &t->rules[i]; /* the file's rules come first */
		double e = r->min_efficiency;

		if (!r->metric || !*r->metric || !fzt_opt_glob(r->bench))
			return fz_fail("thresholds-rule", "rule %zu: empty glob", i);
		if (!isnan(e) && !(e >= 0 && e <= 2))
			return fz_fail("thresholds-rule", "rule %zu: min_efficiency %g", i, e);
		if ((!isnan(r->min_value) && !isfinite(r->min_value)) ||
		    (!isnan(r->max_value) && !isfinite(r->max_value)))
			return fz_fail("thresholds-rule", "rule %zu: a bound is infinite", i);
		if ((int)r->peak < 0 || r->peak >= GB_PEAK_COUNT)
			return fz_fail("thresholds-rule", "rule %zu: peak kind %d", i,
				       (int)r->peak);
		if (r->severity != GB_SEV_ERROR && r->severity != GB_SEV_WARNING)
			return fz_fail("thresholds-rule", "rule %zu: severity %d", i,
				       (int)r->severity);
		if (!r->off && isnan(e) && isnan(r->min_value) && isnan(r->max_value))
			return fz_fail("thresholds-rule", "rule %zu: no limit and not off", i);
	}
	return NULL;
}

/* The loader on one parsed document. */
FZ_STATIC const char *fzt_check_doc(const cJSON *doc)
{
	struct gb_thresholds t, before;
	struct gb_run run;
	char err[1024] = "";
	const char *why = NULL;
	int rc;

	if (gb_thresholds_builtin(&t, "quick"))
		return fz_fail("thresholds-builtin", "the built-in 'quick' rules do not load");
	before = t;
	rc = gb_thresholds_from_json(&t, doc, "fuzz.json", err, sizeof(err));
	if (rc) {
		why = fz_check_err_line(err, "thresholds");
		if (!why && memcmp(&t, &before, sizeof(t)))
			why = fz_fail("thresholds-changed-on-error",
				      "a failed load changed the rules: %s", err);
		gb_thresholds_release(&t);
		return why;
	}
	if (t.n < before.n)
		why = fz_fail("thresholds-rule", "the rules went from %zu to %zu", before.n, t.n);
	if (!why)
		why = fzt_check_rules(&t, before.n);
	if (!why) {
		(void)gb_thresholds_match(&t, "gemm", "tflops_bf16");
		(void)gb_thresholds_match(&t, "", "");
		fzt_make_run(&run);
		gb_thresholds_apply(&t, &run);
		gb_run_verdict(&run);
		why = fzr_round_trip(&run);
		gb_run_release(&run);
	}
	gb_thresholds_release(&t);
	return why;
}

/* The loader on bytes, as the fuzzer gives them. */
FZ_STATIC const char *fzt_check_bytes(const uint8_t *data, size_t size)
{
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	const char *why;

	if (!doc)
		return NULL;
	why = fzt_check_doc(doc);
	cJSON_Delete(doc);
	return why;
}

/* gb_thresholds_load_file on a saved input: one clean line on error, or good rules. */
FZ_STATIC const char *fzt_check_file(const char *path)
{
	struct gb_thresholds t;
	char err[1024] = "";
	const char *why = NULL;

	memset(&t, 0, sizeof(t));
	t.same_model_spread = NAN;
	if (gb_thresholds_load_file(&t, path, err, sizeof(err)))
		why = fz_check_err_line(err, "thresholds");
	else
		why = fzt_check_rules(&t, 0);
	gb_thresholds_release(&t);
	return why;
}

#endif
