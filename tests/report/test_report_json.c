/* SPDX-License-Identifier: MIT */
/*
 * test_report_json.c - unit tests for the JSON report: write (report/json.c)
 * and load (report/load.c) are exact inverses, the verdict and exit codes,
 * the loader's errors on bad and hostile input, the atomic write, and the
 * writer's output against docs/report.schema.json.
 *
 * Environment (set by ctest; set it by hand otherwise):
 *   GPUBENCH_TEST_DATA  tests/data, for report_example.json
 *   GPUBENCH_SCHEMA     docs/report.schema.json; the schema tests fail without it
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/json.h"
#include "report/result.h"

#include <cjson/cJSON.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/device/nvml.h"
#include "report/exitcodes.h"
#include "report/host.h"
#include "report/theory.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* both NULL, or equal strings */
#define assert_str_or_null(a, b)                                  \
	do {                                                      \
		const char *a_ = (a), *b_ = (b);                  \
		if (!a_ || !b_)                                   \
			assert_ptr_equal(a_, b_);                 \
		else                                              \
			assert_string_equal(a_, b_);              \
	} while (0)

/* both NaN, or equal: cJSON prints doubles with enough digits to round-trip */
#define assert_num(a, b)                                                          \
	do {                                                                      \
		double a_ = (a), b_ = (b);                                        \
		if (isnan(a_) || isnan(b_))                                       \
			assert_true(isnan(a_) && isnan(b_));                      \
		else                                                              \
			assert_true(a_ == b_);                                    \
	} while (0)

/* peaks go through TFLOPS and GB/s on disk: equal up to the scaling's rounding */
#define assert_scaled(a, b)                                                       \
	do {                                                                      \
		double a_ = (a), b_ = (b);                                        \
		if (isnan(a_) || isnan(b_))                                       \
			assert_true(isnan(a_) && isnan(b_));                      \
		else                                                              \
			assert_true(fabs(a_ - b_) <= 1e-12 * fabs(b_));           \
	} while (0)

/* ---- temporary folder per test ---- */

struct tmp {
	char dir[64];
	char path[128];
};

static void tmp_make(struct tmp *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/gb_test_report.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/report.json", t->dir);
}

/* number of entries in the folder, "." and ".." aside */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* remove the folder and the few plain files a test put in it */
static void tmp_remove(struct tmp *t)
{
	DIR *d = opendir(t->dir);
	struct dirent *e;
	char p[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", t->dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(t->dir);
}

static void write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* ---- a run with every part of the model filled ---- */

static void build_run(struct gb_run *run)
{
	static const char *const argv[] = { "gpubench", "gemm", "--dtype", "bf16", "--json",
					    "r.json" };
	const double tflops[] = { 700.5, 710.25, 720.0, 705.125, 715.75 };
	const double with_nan[] = { 1.0, NAN, 3.0 };
	struct gb_device_info *d;
	struct gb_link *l;
	struct gb_bench_result *b, *skipped;
	struct gb_metric *m;
	struct gb_series *s;
	struct gb_telemetry_sample t;

	gb_run_init(run, "gemm", (int)ARRAY_LEN(argv), argv);
	run->tool.version = gb_strdup("0.1.0");
	run->tool.git = gb_strdup("3f9c2a7d41be");
	run->tool.built_cuda = 12080;
	run->tool.built_cublas = 120803;
	run->tool.built_nccl = -1;
	run->tool.built_mpi = NULL;
	run->tool.cuda_archs = gb_strdup("80,89,90");
	run->finished_at = gb_strdup("2026-11-22T10:00:14Z");
	run->host.hostname = gb_strdup("node-17");
	run->host.os = gb_strdup("Debian GNU/Linux 12 (bookworm)");
	run->host.kernel = gb_strdup("6.1.0-26-amd64");
	run->host.cpu = gb_strdup("AMD EPYC 9654 \"Genoa\" \\ 96-Core"); /* quotes, backslash */
	run->host.driver_version = gb_strdup("580.65.06");
	run->host.cuda_driver_version = 13000;
	run->host.cuda_runtime_version = -1;
	gb_run_add_env(run, "CUDA_VISIBLE_DEVICES", "0,1");
	gb_run_add_env(run, "NCCL_DEBUG", "WARN");

	d = gb_run_add_device(run);
	d->index = 0;
	d->name = gb_strdup("NVIDIA H100 80GB HBM3");
	d->uuid = gb_strdup("GPU-5e2d7c1a-9b3f-4c8e-a1d2-6f7b8c9d0e1f");
	d->pci_bus_id = gb_strdup("00000000:18:00.0");
	d->brand = gb_strdup("NVIDIA");
	d->spec_key = gb_strdup("h100-sxm");
	d->cc_major = 9;
	d->cc_minor = 0;
	d->sm_count = 132;
	d->memory_bytes = 85520809984.0;
	d->l2_bytes = 52428800.0;
	d->max_sm_mhz = 1980;
	d->max_mem_mhz = 2619;
	d->mem_bus_bits = 5120;
	d->pcie_gen = d->pcie_max_gen = 5;
	d->pcie_width = 8;
	d->pcie_max_width = 16;
	d->pcie_gpu_max_gen = 6; /* unlike max_gen: a mix-up of the two fields shows */
	d->power_limit_w = 700.0;
	d->ecc = 0; /* false must not read back as unknown */
	d->numa_node = 1;
	d->nvlink_up = 18;
	d->nvlink_gen = 4;
	d->peaks.spec[GB_PREC_BF16] = 989.4e12;
	d->peaks.spec[GB_PREC_FP64] = 33.5e12;
	d->peaks.max_clock[GB_PREC_BF16] = 132 * 4096 * 1980e6;
	d->peaks.max_clock[GB_PREC_INT8] = 132 * 8192 * 1980e6;
	d->peaks.mem_bw_bps_spec = 3.35e12;
	d->peaks.mem_bw_bps = 2 * 2619e6 * 5120 / 8;
	d->peaks.pcie_bps = 63.015e9;
	d->peaks.pcie_bps_current = 31.5e9;
	d->peaks.nvlink_bps = 450e9;
	d = gb_run_add_device(run); /* all unknown but the index */
	d->index = 1;

	l = gb_run_add_link(run, 0, 1, "nvlink");
	l->nvlink_count = 18;
	l->p2p_access = 1;
	gb_run_add_link(run, 1, 0, NULL); /* unknown type, count and access */

	b = gb_run_add_bench(run, "gemm");
	gb_bench_param_str(b, "dtype", "bf16");
	gb_bench_param_num(b, "m", 8192);
	gb_bench_param_num(b, "alpha", NAN);
	gb_bench_param_bool(b, "tf32", false);
	cJSON_AddNumberToObject(gb_bench_extra(b), "flops_per_gemm", 1099511627776.0);
	cJSON_AddItemToObject(gb_bench_extra(b), "sizes", cJSON_CreateIntArray((int[]){ 1, 2 }, 2));
	gb_bench_add_device(b, 0);
	gb_bench_add_device(b, 1);
	b->started_s = 0.5;
	b->duration_s = 10.25;
	m = gb_bench_add_metric(b, "tflops", "TFLOP/s", GB_BETTER_HIGHER, 0, tflops,
				ARRAY_LEN(tflops), 989.4);
	m->description = gb_strdup("dense bf16 GEMM, 2*m*n*k FLOP per call");
	gb_bench_add_value(b, "time_us", "us", GB_BETTER_LOWER, 0, 1480.92, NAN);
	/* a NaN sample: no stats, value unknown, and the NaN itself written as null */
	gb_bench_add_metric(b, "broken", "GB/s", GB_BETTER_NONE, -1, with_nan, ARRAY_LEN(with_nan),
			    NAN);
	s = gb_bench_add_series(b, "tflops_over_time", "s", "TFLOP/s", 0);
	gb_series_push(s, 1.0, 700.5);
	gb_series_push(s, 2.0, NAN);
	gb_series_push(s, 3.0, 720.0);
	gb_bench_add_check(b, "efficiency_vs_spec", GB_STATUS_PASSED, GB_SEV_ERROR, 0, 0.7225,
			   0.7, "bf16 reached %.1f%% of peak", 72.25);
	gb_bench_add_check(b, "min_tflops", GB_STATUS_FAILED, GB_SEV_ERROR, 1, 610.0, 650.0,
			   "device 1 reached %.0f TFLOP/s, below %.0f", 610.0, 650.0);
	gb_bench_add_check(b, "clock_throttle", GB_STATUS_WARNING, GB_SEV_WARNING, -1, NAN, NAN,
			   "clocks held back by power cap");

	skipped = gb_run_add_bench(run, "bandwidth");
	gb_bench_set_status(skipped, GB_STATUS_SKIPPED, "needs 2 GPUs with peer access");

	memset(&t, 0, sizeof(t));
	t.device = 0;
	t.t_s = 1.5;
	t.temp_c = 61;
	t.power_w = 698.75;
	t.sm_mhz = 1755;
	t.mem_mhz = 2619;
	t.util_pct = 100;
	t.mem_used_bytes = 1610612736.0;
	t.clock_event_reasons = GB_CLK_SW_POWER_CAP | GB_CLK_HW_SLOWDOWN;
	t.have_reasons = true;
	t.tflops = 742.25;
	gb_run_add_telemetry(run, &t);
	t.device = 1;
	t.t_s = 2.5;
	t.util_pct = NAN;
	t.clock_event_reasons = 0;
	t.have_reasons = false;
	t.tflops = NAN;
	gb_run_add_telemetry(run, &t);

	gb_run_verdict(run);
	run->exit_code = gb_exit_code_for_status(run->verdict);
}

static void assert_stats_equal(const struct gb_stats *a, const struct gb_stats *b)
{
	assert_int_equal(a->n, b->n);
	if (a->n == 0)
		return;
	assert_num(a->min, b->min);
	assert_num(a->p05, b->p05);
	assert_num(a->median, b->median);
	assert_num(a->mean, b->mean);
	assert_num(a->p95, b->p95);
	assert_num(a->p99, b->p99);
	assert_num(a->max, b->max);
	assert_num(a->stdev, b->stdev);
	assert_num(a->cv, b->cv);
}

static void assert_json_equal(const cJSON *a, const cJSON *b)
{
	if (!a || !b) {
		assert_ptr_equal(a, b);
		return;
	}
	assert_true(cJSON_Compare(a, b, 1));
}

static void assert_device_equal(const struct gb_device_info *a, const struct gb_device_info *b)
{
	assert_int_equal(a->index, b->index);
	assert_str_or_null(a->name, b->name);
	assert_str_or_null(a->uuid, b->uuid);
	assert_str_or_null(a->pci_bus_id, b->pci_bus_id);
	assert_str_or_null(a->brand, b->brand);
	assert_str_or_null(a->spec_key, b->spec_key);
	assert_int_equal(a->cc_major, b->cc_major);
	assert_int_equal(a->cc_minor, b->cc_minor);
	assert_int_equal(a->sm_count, b->sm_count);
	assert_num(a->memory_bytes, b->memory_bytes);
	assert_num(a->l2_bytes, b->l2_bytes);
	assert_num(a->max_sm_mhz, b->max_sm_mhz);
	assert_num(a->max_mem_mhz, b->max_mem_mhz);
	assert_int_equal(a->mem_bus_bits, b->mem_bus_bits);
	assert_int_equal(a->pcie_gen, b->pcie_gen);
	assert_int_equal(a->pcie_width, b->pcie_width);
	assert_int_equal(a->pcie_max_gen, b->pcie_max_gen);
	assert_int_equal(a->pcie_max_width, b->pcie_max_width);
	assert_int_equal(a->pcie_gpu_max_gen, b->pcie_gpu_max_gen);
	assert_num(a->power_limit_w, b->power_limit_w);
	assert_int_equal(a->ecc, b->ecc);
	assert_int_equal(a->numa_node, b->numa_node);
	assert_int_equal(a->nvlink_up, b->nvlink_up);
	assert_int_equal(a->nvlink_gen, b->nvlink_gen);
	for (int p = 0; p < GB_PREC_COUNT; p++) {
		assert_scaled(a->peaks.spec[p], b->peaks.spec[p]);
		assert_scaled(a->peaks.max_clock[p], b->peaks.max_clock[p]);
	}
	assert_scaled(a->peaks.mem_bw_bps_spec, b->peaks.mem_bw_bps_spec);
	assert_scaled(a->peaks.mem_bw_bps, b->peaks.mem_bw_bps);
	assert_scaled(a->peaks.pcie_bps, b->peaks.pcie_bps);
	assert_scaled(a->peaks.pcie_bps_current, b->peaks.pcie_bps_current);
	assert_scaled(a->peaks.nvlink_bps, b->peaks.nvlink_bps);
}

static void assert_bench_equal(const struct gb_bench_result *a, const struct gb_bench_result *b)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->status, b->status);
	assert_str_or_null(a->reason, b->reason);
	assert_json_equal(a->params, b->params);
	/* NULL extra is written as {}: compare what a reader sees */
	if (a->extra || b->extra) {
		cJSON *empty = cJSON_CreateObject();

		assert_json_equal(a->extra ? a->extra : empty, b->extra ? b->extra : empty);
		cJSON_Delete(empty);
	}
	assert_int_equal(a->n_devices, b->n_devices);
	for (size_t i = 0; i < a->n_devices; i++)
		assert_int_equal(a->devices[i], b->devices[i]);
	assert_num(a->started_s, b->started_s);
	assert_num(a->duration_s, b->duration_s);

	assert_int_equal(a->n_metrics, b->n_metrics);
	for (size_t i = 0; i < a->n_metrics; i++) {
		const struct gb_metric *x = &a->metrics[i], *y = &b->metrics[i];

		assert_string_equal(x->name, y->name);
		assert_str_or_null(x->unit, y->unit);
		assert_int_equal(x->better, y->better);
		assert_int_equal(x->device, y->device);
		assert_num(x->value, y->value);
		assert_num(x->peak, y->peak);
		assert_num(x->efficiency, y->efficiency);
		assert_stats_equal(&x->stats, &y->stats);
		assert_int_equal(x->n_samples, y->n_samples);
		for (size_t j = 0; j < x->n_samples; j++)
			assert_num(x->samples[j], y->samples[j]);
		assert_str_or_null(x->description, y->description);
	}
	assert_int_equal(a->n_series, b->n_series);
	for (size_t i = 0; i < a->n_series; i++) {
		const struct gb_series *x = &a->series[i], *y = &b->series[i];

		assert_string_equal(x->name, y->name);
		assert_str_or_null(x->x_unit, y->x_unit);
		assert_str_or_null(x->y_unit, y->y_unit);
		assert_int_equal(x->device, y->device);
		assert_int_equal(x->n, y->n);
		for (size_t j = 0; j < x->n; j++) {
			assert_num(x->x[j], y->x[j]);
			assert_num(x->y[j], y->y[j]);
		}
	}
	assert_int_equal(a->n_checks, b->n_checks);
	for (size_t i = 0; i < a->n_checks; i++) {
		const struct gb_check *x = &a->checks[i], *y = &b->checks[i];

		assert_string_equal(x->name, y->name);
		assert_int_equal(x->status, y->status);
		assert_int_equal(x->severity, y->severity);
		assert_int_equal(x->device, y->device);
		assert_num(x->observed, y->observed);
		assert_num(x->threshold, y->threshold);
		assert_str_or_null(x->message, y->message);
	}
}

static void assert_strs_equal(char *const *a, size_t na, char *const *b, size_t nb)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
		assert_string_equal(a[i], b[i]);
}

static void assert_run_equal(const struct gb_run *a, const struct gb_run *b)
{
	assert_str_or_null(a->tool.version, b->tool.version);
	assert_str_or_null(a->tool.git, b->tool.git);
	assert_int_equal(a->tool.built_cuda, b->tool.built_cuda);
	assert_int_equal(a->tool.built_cublas, b->tool.built_cublas);
	assert_int_equal(a->tool.built_nccl, b->tool.built_nccl);
	assert_str_or_null(a->tool.built_mpi, b->tool.built_mpi);
	assert_str_or_null(a->tool.cuda_archs, b->tool.cuda_archs);
	assert_str_or_null(a->command, b->command);
	assert_strs_equal(a->argv, (size_t)a->argc, b->argv, (size_t)b->argc);
	assert_int_equal(a->host.simulated, b->host.simulated);
	assert_str_or_null(a->host.simulated_machine, b->host.simulated_machine);
	assert_str_or_null(a->started_at, b->started_at);
	assert_str_or_null(a->finished_at, b->finished_at);
	assert_int_equal(a->status, b->status);
	assert_str_or_null(a->reason, b->reason);
	assert_int_equal(a->exit_code, b->exit_code);
	assert_str_or_null(a->host.hostname, b->host.hostname);
	assert_str_or_null(a->host.os, b->host.os);
	assert_str_or_null(a->host.kernel, b->host.kernel);
	assert_str_or_null(a->host.cpu, b->host.cpu);
	assert_str_or_null(a->host.driver_version, b->host.driver_version);
	assert_int_equal(a->host.cuda_driver_version, b->host.cuda_driver_version);
	assert_int_equal(a->host.cuda_runtime_version, b->host.cuda_runtime_version);

	assert_int_equal(a->n_env, b->n_env);
	for (size_t i = 0; i < a->n_env; i++) {
		assert_string_equal(a->env[i].key, b->env[i].key);
		assert_str_or_null(a->env[i].value, b->env[i].value);
	}
	assert_int_equal(a->n_devices, b->n_devices);
	for (size_t i = 0; i < a->n_devices; i++)
		assert_device_equal(&a->devices[i], &b->devices[i]);
	assert_int_equal(a->n_links, b->n_links);
	for (size_t i = 0; i < a->n_links; i++) {
		assert_int_equal(a->links[i].a, b->links[i].a);
		assert_int_equal(a->links[i].b, b->links[i].b);
		assert_str_or_null(a->links[i].type, b->links[i].type);
		assert_int_equal(a->links[i].nvlink_count, b->links[i].nvlink_count);
		assert_int_equal(a->links[i].p2p_access, b->links[i].p2p_access);
	}
	assert_int_equal(a->n_benches, b->n_benches);
	for (size_t i = 0; i < a->n_benches; i++)
		assert_bench_equal(&a->benches[i], &b->benches[i]);
	assert_int_equal(a->n_telemetry, b->n_telemetry);
	for (size_t i = 0; i < a->n_telemetry; i++) {
		const struct gb_telemetry_sample *x = &a->telemetry[i], *y = &b->telemetry[i];

		assert_int_equal(x->device, y->device);
		assert_num(x->t_s, y->t_s);
		assert_num(x->temp_c, y->temp_c);
		assert_num(x->power_w, y->power_w);
		assert_num(x->sm_mhz, y->sm_mhz);
		assert_num(x->mem_mhz, y->mem_mhz);
		assert_num(x->util_pct, y->util_pct);
		assert_num(x->mem_used_bytes, y->mem_used_bytes);
		assert_num(x->tflops, y->tflops);
		assert_int_equal(x->have_reasons, y->have_reasons);
		assert_int_equal(x->clock_event_reasons, y->clock_event_reasons);
	}
	assert_int_equal(a->verdict, b->verdict);
	assert_strs_equal(a->verdict_failed, a->n_verdict_failed, b->verdict_failed,
			  b->n_verdict_failed);
	assert_strs_equal(a->verdict_warnings, a->n_verdict_warnings, b->verdict_warnings,
			  b->n_verdict_warnings);
}

/* ---- round trip ---- */

static void test_round_trip(void **state)
{
	struct gb_run run, back;
	struct tmp t;
	char err[512] = "";

	(void)state;
	build_run(&run);
	tmp_make(&t);
	assert_int_equal(gb_report_write_file(&run, t.path, err, sizeof(err)), 0);
	/* the temporary file was renamed over the report: nothing else is left */
	assert_int_equal(dir_entries(t.dir), 1);

	assert_int_equal(gb_report_load_file(t.path, &back, err, sizeof(err)), 0);
	assert_run_equal(&run, &back);

	/* spot checks that do not rely on the comparison helpers */
	assert_int_equal(back.n_benches, 2);
	assert_int_equal(back.benches[0].metrics[0].n_samples, 5);
	assert_true(back.benches[0].metrics[0].value == 710.25);
	assert_int_equal(back.benches[0].metrics[0].stats.n, 5);
	assert_int_equal(back.benches[0].metrics[2].stats.n, 0);
	assert_true(isnan(back.benches[0].metrics[2].samples[1]));
	assert_true(isnan(back.benches[0].series[0].y[1]));
	assert_true(back.devices[0].peaks.spec[GB_PREC_BF16] == 989.4e12);
	assert_int_equal(back.devices[0].ecc, 0);
	assert_int_equal(back.devices[1].ecc, -1);
	assert_int_equal(back.devices[1].cc_major, -1);
	assert_true(isnan(back.devices[1].peaks.spec[GB_PREC_BF16]));
	assert_string_equal(back.links[1].type, "unknown");
	assert_true(back.telemetry[0].have_reasons);
	assert_int_equal(back.telemetry[0].clock_event_reasons,
			 GB_CLK_SW_POWER_CAP | GB_CLK_HW_SLOWDOWN);
	assert_false(back.telemetry[1].have_reasons);
	assert_int_equal(back.verdict, GB_STATUS_FAILED);
	assert_int_equal(back.exit_code, GB_EXIT_CHECK_FAILED);

	gb_run_release(&back);
	gb_run_release(&run);
	tmp_remove(&t);
}

static cJSON *first_device(cJSON *doc)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "devices"), 0);
}

/* write -> load -> write gives the same bytes: nothing is lost or invented */
static void test_round_trip_is_a_fixed_point(void **state)
{
	struct gb_run run, back;
	cJSON *a, *b;
	char err[512] = "";

	(void)state;
	build_run(&run);
	a = gb_report_to_json(&run);
	assert_int_equal(gb_report_from_json(a, &back, err, sizeof(err)), 0);
	b = gb_report_to_json(&back);
	/* peaks go through a division and a multiplication: test_round_trip compares them */
	cJSON_DeleteItemFromObjectCaseSensitive(first_device(a), "peaks");
	cJSON_DeleteItemFromObjectCaseSensitive(first_device(b), "peaks");
	assert_true(cJSON_Compare(a, b, 1));
	cJSON_Delete(a);
	cJSON_Delete(b);
	gb_run_release(&back);
	gb_run_release(&run);
}

static void test_written_json_layout(void **state)
{
	struct gb_run run;
	cJSON *doc, *tel, *reasons, *m;

	(void)state;
	build_run(&run);
	doc = gb_report_to_json(&run);
	assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, GB_REPORT_SCHEMA);
	tel = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "telemetry"), 0);
	reasons = cJSON_GetObjectItem(tel, "clock_event_reasons");
	assert_true(cJSON_IsArray(reasons));
	assert_int_equal(cJSON_GetArraySize(reasons), 2);
	assert_string_equal(cJSON_GetArrayItem(reasons, 0)->valuestring, "sw_power_cap");
	assert_string_equal(cJSON_GetArrayItem(reasons, 1)->valuestring, "hw_slowdown");
	assert_true(cJSON_GetObjectItem(tel, "clock_event_mask")->valuedouble == 12.0);
	tel = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "telemetry"), 1);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(tel, "clock_event_reasons")));
	/* unknown numbers are null, never strings or NaN */
	m = cJSON_GetArrayItem(
		cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "benchmarks"), 0),
				    "metrics"),
		2);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(m, "value")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(m, "stats")));
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "samples"), 1)));
	cJSON_Delete(doc);
	gb_run_release(&run);
}

/* ---- verdict and exit codes ---- */

static void test_verdict_failed_list(void **state)
{
	struct gb_run run;

	(void)state;
	build_run(&run);
	assert_int_equal(run.verdict, GB_STATUS_FAILED);
	assert_int_equal(run.benches[0].status, GB_STATUS_FAILED);
	assert_int_equal(run.n_verdict_failed, 1);
	assert_string_equal(run.verdict_failed[0],
			    "gemm/min_tflops (device 1): device 1 reached 610 TFLOP/s, below 650");
	assert_int_equal(run.n_verdict_warnings, 1);
	assert_string_equal(run.verdict_warnings[0],
			    "gemm/clock_throttle: clocks held back by power cap");
	assert_int_equal(gb_exit_code_for_status(run.verdict), 1);
	gb_run_release(&run);
}

/*
 * A finding outranks an interrupt (README "Exit codes"): a run that found a
 * failure and was then stopped exits 1, not 130, keeps run.status
 * "interrupted" and says so in a warning; without a finding it is interrupted.
 */
static void test_verdict_failed_then_interrupted(void **state)
{
	const char *argv[] = { "gpubench", "stress" };
	struct gb_run run;
	struct gb_bench_result *b;

	(void)state;
	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_bench_add_check(b, "exact_mismatches", GB_STATUS_FAILED, GB_SEV_ERROR, 0, 1, 0,
			   "1 bit flip on GPU 0");
	run.status = GB_STATUS_INTERRUPTED;
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_FAILED);
	assert_int_equal(gb_exit_code_for_status(run.verdict), 1);
	assert_int_equal(run.status, GB_STATUS_INTERRUPTED);
	assert_int_equal(run.n_verdict_failed, 1);
	assert_int_equal(run.n_verdict_warnings, 1);
	assert_non_null(strstr(run.verdict_warnings[0], "interrupted"));
	/* an interrupted benchmark with a passed one and no finding: interrupted, 130 */
	gb_run_release(&run);
	gb_run_init(&run, "run", 2, argv);
	gb_run_add_bench(&run, "gemm");
	gb_bench_set_status(gb_run_add_bench(&run, "stress"), GB_STATUS_INTERRUPTED, "stopped");
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_INTERRUPTED);
	assert_int_equal(gb_exit_code_for_status(run.verdict), 130);
	/* interrupted still outranks a benchmark that could not run */
	gb_bench_set_status(gb_run_add_bench(&run, "p2p"), GB_STATUS_ERROR, "no peer");
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_INTERRUPTED);
	gb_run_release(&run);
}

/*
 * Stopped first, then a failed check (a verify pass that still ran): the
 * benchmark stays interrupted, yet its finding decides the exit code.
 */
static void test_verdict_interrupted_bench_with_failed_check(void **state)
{
	const char *argv[] = { "gpubench", "stress" };
	struct gb_run run;
	struct gb_bench_result *b;

	(void)state;
	gb_run_init(&run, "stress", 2, argv);
	b = gb_run_add_bench(&run, "stress");
	gb_bench_set_status(b, GB_STATUS_INTERRUPTED, "stopped");
	gb_bench_add_check(b, "exact_mismatches", GB_STATUS_FAILED, GB_SEV_ERROR, 0, 1, 0,
			   "1 bit flip on GPU 0");
	assert_int_equal(b->status, GB_STATUS_INTERRUPTED);
	gb_run_verdict(&run);
	assert_int_equal(run.n_verdict_failed, 1);
	assert_int_equal(run.verdict, GB_STATUS_FAILED);
	assert_int_equal(gb_exit_code_for_status(run.verdict), 1);
	assert_int_equal(run.n_verdict_warnings, 1);
	assert_non_null(strstr(run.verdict_warnings[0], "interrupted"));
	gb_run_release(&run);
}

static void test_exit_codes(void **state)
{
	(void)state;
	assert_int_equal(gb_exit_code_for_status(GB_STATUS_PASSED), 0);
	assert_int_equal(gb_exit_code_for_status(GB_STATUS_WARNING), 0);
	assert_int_equal(gb_exit_code_for_status(GB_STATUS_FAILED), 1);
	assert_int_equal(gb_exit_code_for_status(GB_STATUS_ERROR), 3);
	assert_int_equal(gb_exit_code_for_status(GB_STATUS_SKIPPED), 3);
	assert_int_equal(gb_exit_code_for_status(GB_STATUS_NOT_BUILT), 4);
	assert_int_equal(gb_exit_code_for_status(GB_STATUS_INTERRUPTED), 130);
}

/* ---- load errors ---- */

/* Load text from a file; expect failure with exactly msg (%s = the path). */
static void expect_load_error(const char *text, size_t len, const char *msg_fmt)
{
	struct gb_run run;
	struct tmp t;
	char err[512] = "", want[512];

	tmp_make(&t);
	write_text(t.path, text, len);
	snprintf(want, sizeof(want), msg_fmt, t.path);
	assert_int_equal(gb_report_load_file(t.path, &run, err, sizeof(err)), -1);
	assert_string_equal(err, want);
	/* a failed load leaves nothing to free, and releasing again is harmless */
	gb_run_release(&run);
	tmp_remove(&t);
}

#define EXPECT_LOAD_ERROR(text, fmt) expect_load_error(text, strlen(text), fmt)

static void test_load_missing_file(void **state)
{
	struct gb_run run;
	char err[512] = "";

	(void)state;
	assert_int_equal(gb_report_load_file("/nonexistent/x.json", &run, err, sizeof(err)), -1);
	assert_string_equal(err, "cannot read '/nonexistent/x.json': No such file or directory");
	gb_run_release(&run);
	assert_int_equal(gb_report_load_file("/tmp", &run, err, sizeof(err)), -1);
	assert_string_equal(err, "cannot read '/tmp': Is a directory");
	gb_run_release(&run);
}

static void test_load_not_json(void **state)
{
	static const char nul_inside[] = "{\"schema\": \"gpubench.report/1\"}\0{";

	(void)state;
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", oops}",
			  "'%s' is not JSON (error near byte 33)");
	EXPECT_LOAD_ERROR("", "'%s' is not JSON (it is empty)");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\"} trailing",
			  "'%s' is not JSON (error near byte 32)");
	/* text after a NUL would be silently dropped by the parser */
	expect_load_error(nul_inside, sizeof(nul_inside) - 1,
			  "'%s' is not JSON (error near byte 31)");
}

static void test_load_not_a_report(void **state)
{
	(void)state;
	EXPECT_LOAD_ERROR("[1, 2, 3]", "'%s' is not a gpubench report");
	EXPECT_LOAD_ERROR("\"gpubench.report/1\"", "'%s' is not a gpubench report");
	EXPECT_LOAD_ERROR("{\"benchmarks\": []}", "'%s' is not a gpubench report");
	EXPECT_LOAD_ERROR("{\"schema\": 1}", "'%s' is not a gpubench report");
	EXPECT_LOAD_ERROR("{\"schema\": \"other.report/1\"}", "'%s' is not a gpubench report");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/x\"}",
			  "'%s' has an unrecognised schema 'gpubench.report/x'");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/0\"}",
			  "'%s' has an unrecognised schema 'gpubench.report/0'");
}

static void test_load_newer_schema(void **state)
{
	(void)state;
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/2\"}",
			  "'%s' uses schema gpubench.report/2, newer than this gpubench "
			  "understands (1)");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/99999999999999999999\"}",
			  "'%s' uses schema gpubench.report/99999999999999999999, newer than "
			  "this gpubench understands (1)");
}

static void test_load_wrong_types(void **state)
{
	(void)state;
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": ["
			  "{\"name\": \"a\", \"status\": \"passed\"},"
			  "{\"name\": \"b\", \"status\": \"passed\"},"
			  "{\"name\": \"gemm\", \"status\": \"passed\", \"metrics\": "
			  "[{\"name\": \"tflops\", \"value\": \"742.5\"}]}]}",
			  "'%s': benchmarks[2].metrics[0].value must be a number or null");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": {}}",
			  "'%s': benchmarks must be an array");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": [42]}",
			  "'%s': benchmarks[0] must be an object");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": "
			  "[{\"name\": \"g\"}]}",
			  "'%s': benchmarks[0].status must be one of passed, warning, failed, "
			  "skipped, error, not_built, interrupted");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": [{\"name\": \"g\","
			  "\"status\": \"ok\"}]}",
			  "'%s': benchmarks[0].status must be one of passed, warning, failed, "
			  "skipped, error, not_built, interrupted");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": [{\"status\": "
			  "\"passed\"}]}",
			  "'%s': benchmarks[0].name must be a string");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": [{\"name\": \"g\","
			  "\"status\": \"passed\", \"metrics\": [{\"name\": \"t\", "
			  "\"samples\": [1, \"2\"]}]}]}",
			  "'%s': benchmarks[0].metrics[0].samples[1] must be a number or null");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": [{\"name\": \"g\","
			  "\"status\": \"passed\", \"metrics\": [{\"name\": \"t\", "
			  "\"stats\": {\"n\": -3}}]}]}",
			  "'%s': benchmarks[0].metrics[0].stats.n must be a non-negative integer");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": [{\"name\": \"g\","
			  "\"status\": \"passed\", \"metrics\": [{\"name\": \"t\", "
			  "\"device\": 1e300}]}]}",
			  "'%s': benchmarks[0].metrics[0].device must be an integer or null");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": [{\"name\": \"g\","
			  "\"status\": \"passed\", \"series\": [{\"name\": \"s\", "
			  "\"x\": [1, 2], \"y\": [1]}]}]}",
			  "'%s': benchmarks[0].series[0].y must have as many entries as x");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": [{\"name\": \"g\","
			  "\"status\": \"passed\", \"checks\": [{\"name\": \"c\", "
			  "\"status\": \"passed\", \"severity\": \"fatal\"}]}]}",
			  "'%s': benchmarks[0].checks[0].severity must be one of info, warning, "
			  "error");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": [{\"name\": \"g\","
			  "\"status\": \"passed\", \"params\": [1]}]}",
			  "'%s': benchmarks[0].params must be an object or null");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"benchmarks\": [{\"name\": \"g\","
			  "\"status\": \"passed\", \"devices\": [0, 1.5]}]}",
			  "'%s': benchmarks[0].devices[1] must be an integer");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"devices\": [{\"cc\": \"nine\"}]}",
			  "'%s': devices[0].cc must be a string \"major.minor\" or null");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"devices\": [{\"peaks\": "
			  "{\"tflops_spec\": {\"bf16\": \"989\"}}}]}",
			  "'%s': devices[0].peaks.tflops_spec.bf16 must be a number or null");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"devices\": [{\"ecc\": 1}]}",
			  "'%s': devices[0].ecc must be true, false or null");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"topology\": [{\"a\": 0}]}",
			  "'%s': topology[0].b must be an integer");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"telemetry\": "
			  "[{\"clock_event_mask\": -1}]}",
			  "'%s': telemetry[0].clock_event_mask must be a non-negative integer "
			  "or null");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"telemetry\": "
			  "[{\"clock_event_reasons\": [4]}]}",
			  "'%s': telemetry[0].clock_event_reasons must hold strings");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"environment\": {\"X\": 1}}",
			  "'%s': environment.X must be a string or null");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"run\": {\"command_line\": "
			  "[\"gpubench\", null]}}",
			  "'%s': run.command_line[1] must be a string");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"host\": \"h\"}",
			  "'%s': host must be an object or null");
	EXPECT_LOAD_ERROR("{\"schema\": \"gpubench.report/1\", \"verdict\": {\"status\": "
			  "\"passed\", \"failed\": \"none\"}}",
			  "'%s': verdict.failed must be an array");
}

static void test_load_truncated(void **state)
{
	struct gb_run run, back;
	struct tmp t;
	char err[512] = "", want[512];
	char *text;
	size_t len;

	(void)state;
	build_run(&run);
	tmp_make(&t);
	assert_int_equal(gb_report_write_file(&run, t.path, err, sizeof(err)), 0);
	text = read_text(t.path, &len);
	write_text(t.path, text, len / 2);
	assert_int_equal(gb_report_load_file(t.path, &back, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "'%s' is not JSON (error near byte ", t.path);
	assert_int_equal(strncmp(err, want, strlen(want)), 0);
	free(text);
	gb_run_release(&back);
	gb_run_release(&run);
	tmp_remove(&t);
}

/* Hostile documents: no crash, a bounded answer either way. */
static void test_load_hostile(void **state)
{
	struct gb_run run;
	struct tmp t;
	char err[512];
	char *deep;
	size_t depth = 5000, n = 0;
	int fd;
	static const char huge[] =
		"{\"schema\": \"gpubench.report/1\", \"benchmarks\": [{\"name\": \"g\", "
		"\"status\": \"failed\", \"metrics\": [{\"name\": \"t\", \"value\": 1e999, "
		"\"samples\": [1, 5]}]}]}";
	static const char huge_sample[] =
		"{\"schema\": \"gpubench.report/1\", \"benchmarks\": [{\"name\": \"g\", "
		"\"status\": \"failed\", \"metrics\": [{\"name\": \"t\", \"value\": 1, "
		"\"samples\": [-1e999, 5]}]}]}";
	static const char null_value[] =
		"{\"schema\": \"gpubench.report/1\", \"benchmarks\": [{\"name\": \"g\", "
		"\"status\": \"failed\", \"metrics\": [{\"name\": \"t\", \"value\": null, "
		"\"samples\": [null, 5]}]}]}";

	(void)state;
	/* nesting deeper than the parser allows, inside free-form params */
	deep = malloc(depth * 2 + 256);
	assert_non_null(deep);
	n += (size_t)sprintf(deep, "{\"schema\": \"gpubench.report/1\", \"benchmarks\": "
				   "[{\"name\": \"g\", \"status\": \"passed\", \"params\": ");
	for (size_t i = 0; i < depth; i++)
		deep[n++] = '[';
	for (size_t i = 0; i < depth; i++)
		deep[n++] = ']';
	n += (size_t)sprintf(deep + n, "}]}");
	tmp_make(&t);
	write_text(t.path, deep, n);
	assert_int_equal(gb_report_load_file(t.path, &run, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not JSON"));
	gb_run_release(&run);
	free(deep);

	/* numbers past a double's range: a bad file naming the key, never a silent null */
	write_text(t.path, huge, strlen(huge));
	assert_int_equal(gb_report_load_file(t.path, &run, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "metrics[0]"));
	assert_non_null(strstr(err, "value is out of the range of a double"));
	gb_run_release(&run);
	write_text(t.path, huge_sample, strlen(huge_sample));
	assert_int_equal(gb_report_load_file(t.path, &run, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "samples[0] is out of the range of a double"));
	gb_run_release(&run);
	/* null stays unknown; no verdict in the file: recomputed, a failure never passes */
	write_text(t.path, null_value, strlen(null_value));
	assert_int_equal(gb_report_load_file(t.path, &run, err, sizeof(err)), 0);
	assert_true(isnan(run.benches[0].metrics[0].value));
	assert_true(isnan(run.benches[0].metrics[0].samples[0]));
	assert_true(run.benches[0].metrics[0].samples[1] == 5.0);
	assert_int_equal(run.verdict, GB_STATUS_FAILED);
	assert_int_equal(run.exit_code, GB_EXIT_CHECK_FAILED);
	gb_run_release(&run);

	/* over the size cap: refused before reading (a sparse file costs nothing) */
	fd = open(t.path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, ((off_t)256 << 20) + 1), 0);
	close(fd);
	assert_int_equal(gb_report_load_file(t.path, &run, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is too large for a gpubench report (over 256 MiB)"));
	gb_run_release(&run);
	tmp_remove(&t);
}

/* Another producer may leave out what it does not have: topology, telemetry, ... */
static void test_load_minimal(void **state)
{
	static const char doc[] = "{\"schema\": \"gpubench.report/1\", \"benchmarks\": "
				  "[{\"name\": \"gemm\", \"status\": \"passed\", \"metrics\": "
				  "[{\"name\": \"tflops\", \"value\": 700}]}]}";
	struct gb_run run;
	struct tmp t;
	char err[512] = "";

	(void)state;
	tmp_make(&t);
	write_text(t.path, doc, strlen(doc));
	assert_int_equal(gb_report_load_file(t.path, &run, err, sizeof(err)), 0);
	assert_null(run.command);
	assert_int_equal(run.argc, 0);
	assert_null(run.started_at); /* not "now": the file did not say */
	assert_int_equal(run.n_devices, 0);
	assert_int_equal(run.n_links, 0);
	assert_int_equal(run.n_telemetry, 0);
	assert_int_equal(run.host.cuda_driver_version, -1);
	assert_int_equal(run.n_benches, 1);
	assert_non_null(run.benches[0].params);
	assert_true(run.benches[0].metrics[0].value == 700.0);
	assert_true(isnan(run.benches[0].metrics[0].peak));
	assert_int_equal(run.benches[0].metrics[0].device, -1);
	assert_int_equal(run.benches[0].metrics[0].stats.n, 0);
	assert_int_equal(run.verdict, GB_STATUS_PASSED);
	assert_int_equal(run.exit_code, 0);
	gb_run_release(&run);
	tmp_remove(&t);
}

static void test_from_json_errors(void **state)
{
	struct gb_run run;
	char err[512] = "";
	cJSON *doc = cJSON_Parse("{\"schema\": \"gpubench.report/1\", \"devices\": [1]}");

	(void)state;
	assert_int_equal(gb_report_from_json(doc, &run, err, sizeof(err)), -1);
	assert_string_equal(err, "report: devices[0] must be an object");
	gb_run_release(&run);
	cJSON_Delete(doc);
	doc = cJSON_CreateArray();
	assert_int_equal(gb_report_from_json(doc, &run, err, sizeof(err)), -1);
	assert_string_equal(err, "report is not a gpubench report");
	gb_run_release(&run);
	cJSON_Delete(doc);
}

/* ---- atomic write ---- */

static void test_write_missing_folder(void **state)
{
	struct gb_run run;
	struct tmp t;
	char path[256], err[512] = "";
	struct stat st;

	(void)state;
	build_run(&run);
	tmp_make(&t);
	snprintf(path, sizeof(path), "%s/missing/report.json", t.dir);
	assert_int_equal(gb_report_write_file(&run, path, err, sizeof(err)), -1);
	assert_true(strlen(err) > 0);
	assert_non_null(strstr(err, "No such file or directory"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(dir_entries(t.dir), 0); /* nothing created */
	gb_run_release(&run);
	tmp_remove(&t);
}

/* Replacing an existing report: the new one is complete, no temporary file remains. */
static void test_write_replaces_atomically(void **state)
{
	struct gb_run run, back;
	struct tmp t;
	char err[512] = "";

	(void)state;
	build_run(&run);
	tmp_make(&t);
	write_text(t.path, "old", 3);
	assert_int_equal(gb_report_write_file(&run, t.path, err, sizeof(err)), 0);
	assert_int_equal(dir_entries(t.dir), 1);
	assert_int_equal(gb_report_load_file(t.path, &back, err, sizeof(err)), 0);
	assert_int_equal(back.n_benches, 2);
	gb_run_release(&back);
	gb_run_release(&run);
	tmp_remove(&t);
}

/*
 * A failed write leaves what was there untouched and no temporary file behind.
 * Tests run as root, where permissions do not stop a write: a directory in the
 * way of the final rename does.
 */
static void test_write_failure_leaves_no_trace(void **state)
{
	struct gb_run run;
	struct tmp t;
	char inner[256], err[512] = "";
	struct stat st;

	(void)state;
	build_run(&run);
	tmp_make(&t);
	assert_int_equal(mkdir(t.path, 0755), 0);
	snprintf(inner, sizeof(inner), "%s/keep", t.path);
	write_text(inner, "x", 1);
	assert_int_equal(gb_report_write_file(&run, t.path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot write report"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(dir_entries(t.dir), 1); /* the directory only: no temporary file */
	assert_int_equal(stat(inner, &st), 0);
	assert_int_equal(st.st_size, 1);
	unlink(inner);
	rmdir(t.path);
	gb_run_release(&run);
	tmp_remove(&t);
}

static void test_check_writable(void **state)
{
	struct tmp t;
	char path[256], err[512] = "";

	(void)state;
	tmp_make(&t);
	assert_int_equal(gb_report_check_writable(t.path, err, sizeof(err)), 0);
	assert_int_equal(gb_report_check_writable("-", err, sizeof(err)), 0);

	snprintf(path, sizeof(path), "%s/missing/report.json", t.dir);
	assert_int_equal(gb_report_check_writable(path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file or directory"));
	assert_int_equal(dir_entries(t.dir), 0);

	assert_int_equal(gb_report_check_writable(t.dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "it is a directory"));
	assert_int_equal(dir_entries(t.dir), 0);
	tmp_remove(&t);
}

/* -o through a symbolic link: the target is written, the link stays (issue 19) */
static void test_write_through_link(void **state)
{
	struct {
		char target[160], link[160];
	} p;
	struct gb_run run, back;
	struct tmp t;
	struct stat st;
	char err[512] = "";

	(void)state;
	build_run(&run);
	tmp_make(&t);
	snprintf(p.target, sizeof(p.target), "%s/target.json", t.dir);
	snprintf(p.link, sizeof(p.link), "%s/link.json", t.dir);
	write_text(p.target, "old\n", 4);
	assert_int_equal(chmod(p.target, 0600), 0);
	assert_int_equal(symlink("target.json", p.link), 0);
	assert_int_equal(gb_report_check_writable(p.link, err, sizeof(err)), 0);
	assert_int_equal(gb_report_write_file(&run, p.link, err, sizeof(err)), 0);
	assert_int_equal(lstat(p.link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* the replaced file keeps its mode */
	assert_int_equal(stat(p.target, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(gb_report_load_file(p.target, &back, err, sizeof(err)), 0);
	gb_run_release(&back);
	/* nothing left beside them */
	assert_int_equal(dir_entries(t.dir), 2);
	unlink(p.link);
	gb_run_release(&run);
	tmp_remove(&t);
}

/* -o a named pipe: written through to its reader, still a FIFO afterwards */
static void test_write_to_fifo(void **state)
{
	struct gb_run run;
	struct tmp t;
	struct stat st;
	char err[512] = "", buf[64] = "";
	int status = 0;
	pid_t child;

	(void)state;
	build_run(&run);
	tmp_make(&t);
	assert_int_equal(mkfifo(t.path, 0600), 0);
	/* the check must not open it: a reader would take the close for the end */
	assert_int_equal(gb_report_check_writable(t.path, err, sizeof(err)), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		int fd = open(t.path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

		/* drain the rest so the writer never blocks */
		while (n > 0 && read(fd, buf, sizeof(buf)) > 0)
			;
		_exit(n > 0 ? 0 : 1);
	}
	assert_int_equal(gb_report_write_file(&run, t.path, err, sizeof(err)), 0);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(lstat(t.path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	gb_run_release(&run);
	tmp_remove(&t);
}

/* what can never be a report: one line, before anything runs */
static void test_check_unwritable_kinds(void **state)
{
	struct tmp t;
	char path[256], err[512] = "";

	(void)state;
	tmp_make(&t);
	assert_int_equal(gb_report_check_writable("", err, sizeof(err)), -1);
	assert_string_equal(err, "cannot write report '': empty file name");
	snprintf(path, sizeof(path), "%s/loop", t.dir);
	assert_int_equal(symlink("loop", path), 0);
	assert_int_equal(gb_report_check_writable(path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "Too many levels of symbolic links"));
	unlink(path);
	tmp_remove(&t);
}

/* host.simulated: written, loaded back, absent in older reports, false without the simulator */
static void test_simulated_label(void **state)
{
	static const char old_report[] = "{\"schema\": \"gpubench.report/1\", \"host\": {}}";
	static const char bad_flag[] =
		"{\"schema\": \"gpubench.report/1\", \"host\": {\"simulated\": \"yes\"}}";
	struct gb_run run, back;
	struct gb_host_info host = { 0 };
	struct tmp t;
	char err[512] = "";

	(void)state;
	/* this test program has no gbsim_report_label: it is not the simulator */
	gb_host_simulation(&host);
	assert_false(host.simulated);
	assert_null(host.simulated_machine);

	build_run(&run);
	run.host.simulated = true;
	run.host.simulated_machine = gb_strdup("h100-sxm (tests/sim/machines/h100-sxm.json)");
	tmp_make(&t);
	assert_int_equal(gb_report_write_file(&run, t.path, err, sizeof(err)), 0);
	assert_int_equal(gb_report_load_file(t.path, &back, err, sizeof(err)), 0);
	assert_true(back.host.simulated);
	assert_string_equal(back.host.simulated_machine,
			    "h100-sxm (tests/sim/machines/h100-sxm.json)");
	gb_run_release(&back);

	write_text(t.path, old_report, sizeof(old_report) - 1);
	assert_int_equal(gb_report_load_file(t.path, &back, err, sizeof(err)), 0);
	assert_false(back.host.simulated);
	assert_null(back.host.simulated_machine);
	gb_run_release(&back);

	write_text(t.path, bad_flag, sizeof(bad_flag) - 1);
	assert_int_equal(gb_report_load_file(t.path, &back, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "host.simulated"));
	gb_run_release(&run);
	tmp_remove(&t);
}

/* ---- the example report and the schema ---- */

static const char *need_env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v)
		fail_msg("%s is not set: ctest sets it; by hand, export it (see the top of "
			 "tests/report/test_report_json.c)", name);
	/* the paths go into a shell command in single quotes */
	if (strchr(v, '\''))
		fail_msg("%s contains a single quote: '%s'", name, v);
	return v;
}

static void test_load_example(void **state)
{
	struct gb_run run;
	char path[4096], err[512] = "";
	const struct gb_bench_result *b;

	(void)state;
	snprintf(path, sizeof(path), "%s/report_example.json", need_env("GPUBENCH_TEST_DATA"));
	assert_int_equal(gb_report_load_file(path, &run, err, sizeof(err)), 0);
	assert_string_equal(run.command, "gemm");
	assert_int_equal(run.n_devices, 1);
	assert_int_equal(run.devices[0].cc_major, 9);
	assert_int_equal(run.devices[0].cc_minor, 0);
	assert_int_equal(run.devices[0].ecc, 1);
	assert_int_equal(run.devices[0].pcie_gpu_max_gen, -1); /* older than the field: unknown */
	assert_scaled(run.devices[0].peaks.spec[GB_PREC_BF16], 989.4e12);
	assert_scaled(run.devices[0].peaks.mem_bw_bps_spec, 3350e9);
	assert_int_equal(run.n_benches, 1);
	b = &run.benches[0];
	assert_string_equal(b->name, "gemm");
	assert_int_equal(b->status, GB_STATUS_PASSED);
	assert_int_equal(b->n_metrics, 2);
	assert_int_equal(b->metrics[0].n_samples, 10);
	assert_int_equal(b->metrics[0].stats.n, 10);
	assert_true(b->metrics[0].value == 742.45);
	assert_int_equal(b->metrics[1].better, GB_BETTER_LOWER);
	assert_int_equal(b->n_series, 1);
	assert_int_equal(b->series[0].n, 10);
	assert_int_equal(b->n_checks, 2);
	assert_int_equal(b->checks[1].status, GB_STATUS_WARNING);
	assert_int_equal(run.n_telemetry, 3);
	assert_true(run.telemetry[1].have_reasons);
	assert_int_equal(run.telemetry[1].clock_event_reasons, GB_CLK_SW_POWER_CAP);
	assert_false(run.telemetry[2].have_reasons);
	assert_int_equal(run.verdict, GB_STATUS_WARNING);
	assert_int_equal(run.n_verdict_warnings, 1);
	assert_int_equal(run.exit_code, 0);
	gb_run_release(&run);
}

/* run the validator on one report; its exit status */
static int validate(const char *report)
{
	char cmd[8192];
	int rc;

	snprintf(cmd, sizeof(cmd), "python3 '%s/../cli/validate_report.py' --strict '%s' '%s'",
		 need_env("GPUBENCH_TEST_DATA"), need_env("GPUBENCH_SCHEMA"), report);
	rc = system(cmd);
	if (rc == -1 || !WIFEXITED(rc))
		fail_msg("cannot run: %s", cmd);
	return WEXITSTATUS(rc);
}

static void test_example_matches_schema(void **state)
{
	char path[4096];

	(void)state;
	snprintf(path, sizeof(path), "%s/report_example.json", need_env("GPUBENCH_TEST_DATA"));
	assert_int_equal(validate(path), 0);
}

static void test_written_report_matches_schema(void **state)
{
	struct gb_run run;
	struct tmp t;
	char err[512] = "";

	(void)state;
	need_env("GPUBENCH_SCHEMA");
	build_run(&run);
	tmp_make(&t);
	assert_int_equal(gb_report_write_file(&run, t.path, err, sizeof(err)), 0);
	assert_int_equal(validate(t.path), 0);
	gb_run_release(&run);

	/* and a run that could not do anything: the smallest report */
	gb_run_init(&run, "info", 0, NULL);
	gb_run_set_status(&run, GB_STATUS_ERROR, "no NVIDIA driver found");
	gb_run_verdict(&run);
	run.exit_code = gb_exit_code_for_status(run.verdict);
	assert_int_equal(gb_report_write_file(&run, t.path, err, sizeof(err)), 0);
	assert_int_equal(validate(t.path), 0);
	gb_run_release(&run);
	tmp_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_is_a_fixed_point),
		cmocka_unit_test(test_written_json_layout),
		cmocka_unit_test(test_verdict_failed_list),
		cmocka_unit_test(test_verdict_failed_then_interrupted),
		cmocka_unit_test(test_verdict_interrupted_bench_with_failed_check),
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_load_missing_file),
		cmocka_unit_test(test_load_not_json),
		cmocka_unit_test(test_load_not_a_report),
		cmocka_unit_test(test_load_newer_schema),
		cmocka_unit_test(test_load_wrong_types),
		cmocka_unit_test(test_load_truncated),
		cmocka_unit_test(test_load_hostile),
		cmocka_unit_test(test_load_minimal),
		cmocka_unit_test(test_from_json_errors),
		cmocka_unit_test(test_write_missing_folder),
		cmocka_unit_test(test_write_replaces_atomically),
		cmocka_unit_test(test_write_failure_leaves_no_trace),
		cmocka_unit_test(test_check_writable),
		cmocka_unit_test(test_write_through_link),
		cmocka_unit_test(test_write_to_fifo),
		cmocka_unit_test(test_check_unwritable_kinds),
		cmocka_unit_test(test_simulated_label),
		cmocka_unit_test(test_load_example),
		cmocka_unit_test(test_example_matches_schema),
		cmocka_unit_test(test_written_report_matches_schema),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
