/* SPDX-License-Identifier: MIT */
/*
 * test_formats.c - every output format on a synthetic run full of awkward
 * cases (names with quotes, pipes, commas, angle brackets, newlines and
 * invalid UTF-8; checks of every status; a benchmark without checks; NaN):
 * JUnit parsed as XML by Python's minidom, Prometheus lines matched against
 * the exposition grammar, CSV rows counted by an RFC 4180 reader, Markdown
 * tables, and an HTML page that is self-contained and escaped. Also what
 * info is for in every format (PCIe current and max, NVLink, power, ECC,
 * peaks, topology), '-' for unknown values in the text, the topology grid,
 * a fleet report's nodes, and gpubench compare as JUnit, Prometheus, HTML.
 * Simulated reports say so in every machine format: a simulated column on
 * every CSV row, a simulated property on every JUnit test suite, a
 * simulated label on every Prometheus sample ("false" when measured).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/compare.h"
#include "report/fleet.h"
#include "report/formats.h"
#include "report/prom_names.h"
#include "report/json.h"
#include "report/result.h"
#include "report/text.h"
#include "report/theory.h"

#define NASTY "we<ird> & \"quoted\", 'single' | pipe\nnewline \xff\xfe bad utf-8"

static void make_run(struct gb_run *run)
{
	static const double bw[] = { 10, 20, 30, 40, 45 };
	const char *argv[] = { "gpubench", "run" };
	struct gb_bench_result *b;
	struct gb_series *s;

	gb_run_init(run, "run", 2, argv);
	run->host.hostname = gb_strdup("node \"7\"");
	run->finished_at = gb_strdup("2026-11-22T10:04:10Z");
	for (int i = 0; i < 2; i++) {
		struct gb_device_info *d = gb_run_add_device(run);

		d->index = i;
		d->name = gb_strdup(i ? NASTY : "NVIDIA H100 80GB HBM3");
		d->uuid = gb_strdupf("GPU-%d", i);
		d->peaks.spec[5] = 989.4e12;
	}
	b = gb_run_add_bench(run, "gemm");
	gb_bench_param_str(b, "dtype", "bf16");
	gb_bench_add_metric(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, bw, 5, 989.4);
	gb_bench_add_value(b, "tflops_fp16", "TFLOP/s", GB_BETTER_HIGHER, 1, 700, 989.4);
	gb_bench_add_value(b, "weird-name.x", NASTY, GB_BETTER_NONE, -1, 1.5, NAN)->description =
		gb_strdup("a \\ backslash\nand a newline");
	gb_bench_add_value(b, "unknown", "s", GB_BETTER_LOWER, 0, NAN, NAN);
	gb_bench_add_check(b, "eff", GB_STATUS_PASSED, GB_SEV_ERROR, 0, 0.75, 0.7, "fine");
	gb_bench_add_check(b, "eff", GB_STATUS_FAILED, GB_SEV_ERROR, 1, 0.62, 0.7, "%s", NASTY);
	gb_bench_add_check(b, "hot", GB_STATUS_WARNING, GB_SEV_WARNING, 1, 93, 90, "warm");
	gb_bench_add_check(b, "ecc", GB_STATUS_ERROR, GB_SEV_ERROR, -1, NAN, NAN, "no NVML");
	gb_bench_add_check(b, "p2p", GB_STATUS_SKIPPED, GB_SEV_INFO, -1, NAN, NAN, "one GPU");
	b->duration_s = 12.5;
	s = gb_bench_add_series(b, "bw_vs_size", "B", "GB/s", 0);
	for (int i = 0; i < 10; i++)
		gb_series_push(s, 4096.0 * pow(4, i), 10.0 * i);
	gb_run_add_bench(run, "bandwidth"); /* passed, no checks */
	b = gb_run_add_bench(run, "nccl");
	gb_bench_set_status(b, GB_STATUS_NOT_BUILT, "built without NCCL");
	for (int i = 0; i < 20; i++) {
		struct gb_telemetry_sample t = { .device = i % 2, .t_s = i, .temp_c = 40 + i,
						 .power_w = 300 + i, .sm_mhz = 1900, .tflops = NAN };

		gb_run_add_telemetry(run, &t);
	}
	gb_run_verdict(run);
	run->exit_code = gb_exit_code_for_status(run->verdict);
}

static char *render(const struct gb_run *run, enum gb_out_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(gb_report_format(run, f, m), 0);
	fclose(m);
	return buf;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* ---- names ---- */

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(gb_out_format_from_name("junit"), GB_OUT_JUNIT);
	assert_int_equal(gb_out_format_from_name("yaml"), -1);
	assert_string_equal(gb_out_format_names[GB_OUT_PROMETHEUS], "prometheus");
	assert_null(gb_out_format_names[GB_OUT_COUNT]);
	assert_int_equal(gb_out_format_from_path("out/report.HTML"), GB_OUT_HTML);
	assert_int_equal(gb_out_format_from_path("summary.md"), GB_OUT_MARKDOWN);
	assert_int_equal(gb_out_format_from_path("node.prom"), GB_OUT_PROMETHEUS);
	assert_int_equal(gb_out_format_from_path("a.dir/report"), -1);
	assert_int_equal(gb_out_format_from_path("report"), -1);
}

/* ---- JUnit ---- */

static void test_junit_is_xml(void **state)
{
	struct gb_run run;
	char path[] = "/tmp/gb_test_junit.XXXXXX", cmd[512];
	char *xml;
	int fd;

	(void)state;
	make_run(&run);
	xml = render(&run, GB_OUT_JUNIT);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_file(path, xml);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' %s",
		 path);
	assert_int_equal(system(cmd), 0);
	/* gemm: 5 checks; bandwidth: 1 case for its status; nccl: 1 skipped case */
	assert_non_null(strstr(xml, "<testsuites name=\"gpubench run\" tests=\"7\" failures=\"1\" "
				    "errors=\"1\" skipped=\"2\""));
	assert_non_null(strstr(xml, "<failure message=\"we&lt;ird&gt; &amp; &quot;quoted&quot;"));
	assert_non_null(strstr(xml, "<error message=\"no NVML\""));
	assert_non_null(strstr(xml, "<skipped message=\"built without NCCL\""));
	assert_non_null(strstr(xml, "<testcase classname=\"bandwidth\" name=\"bandwidth\""));
	assert_null(strstr(xml, "\xff"));
	unlink(path);
	free(xml);
	gb_run_release(&run);
}

/* ---- Prometheus ---- */

static regex_t re_help, re_type, re_sample;

static void compile(regex_t *re, const char *pattern)
{
	assert_int_equal(regcomp(re, pattern, REG_EXTENDED | REG_NOSUB), 0);
}

#define NAME "[a-zA-Z_:][a-zA-Z0-9_:]*"
#define LABEL "[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\n]|\\\\[\\\\\"n])*\""
#define VALUE "(-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?|NaN|[-+]Inf)"

/*
 * every line: # HELP, # TYPE, another comment or a sample; each family's samples
 * together, declared once; no series (name and labels) twice; _total only on a
 * counter
 */
static void check_exposition(const char *text)
{
	char *copy = strdup(text), *save = NULL, *families[256], **series = NULL;
	size_t n_fam = 0, n_series = 0;

	compile(&re_help, "^# HELP " NAME " .*$");
	compile(&re_type, "^# TYPE " NAME " (gauge|counter|untyped)$");
	compile(&re_sample, "^" NAME "(\\{(" LABEL "(," LABEL ")*)?\\})? " VALUE "$");
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[256];

		if (!strncmp(line, "# HELP ", 7)) {
			assert_int_equal(regexec(&re_help, line, 0, NULL, 0), 0);
			continue;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			if (regexec(&re_type, line, 0, NULL, 0))
				fail_msg("bad TYPE line: %s", line);
			sscanf(line + 7, "%255s", name);
			if (strlen(name) > 6 && !strcmp(name + strlen(name) - 6, "_total") &&
			    !strstr(line, " counter"))
				fail_msg("_total on a family that is not a counter: %s", line);
			for (size_t i = 0; i < n_fam; i++)
				if (!strcmp(families[i], name))
					fail_msg("family %s declared twice", name);
			families[n_fam++] = strdup(name);
			continue;
		}
		if (line[0] == '#') /* any other # line is a comment (the simulated GPU's) */
			continue;
		if (regexec(&re_sample, line, 0, NULL, 0))
			fail_msg("not an exposition line: %s", line);
		/* the sample belongs to the last declared family */
		assert_true(n_fam > 0);
		assert_int_equal(strncmp(line, families[n_fam - 1], strlen(families[n_fam - 1])), 0);
		/* the series is the line without its value */
		*strrchr(line, ' ') = '\0';
		for (size_t i = 0; i < n_series; i++)
			if (!strcmp(series[i], line))
				fail_msg("series written twice: %s", line);
		series = realloc(series, sizeof(*series) * (n_series + 1));
		series[n_series++] = line;
	}
	for (size_t i = 0; i < n_fam; i++)
		free(families[i]);
	free(series);
	free(copy);
	regfree(&re_help);
	regfree(&re_type);
	regfree(&re_sample);
}

static void test_prometheus(void **state)
{
	struct gb_run run;
	char *text;

	(void)state;
	make_run(&run);
	free(run.started_at);
	run.started_at = gb_strdup("2026-11-22T10:00:00Z");
	text = render(&run, GB_OUT_PROMETHEUS);
	check_exposition(text);
	/* TFLOP/s in FLOP/s, named by the base unit; the GPU as gpu, uuid and model */
	assert_non_null(strstr(text, "# TYPE gpubench_gemm_bf16_flops gauge\n"
				     "gpubench_gemm_bf16_flops{gpu=\"0\",uuid=\"GPU-0\",model=\"NVIDIA "
				     "H100 80GB HBM3\",simulated=\"false\"} 30000000000000\n"));
	assert_null(strstr(text, "tflops_bf16{"));
	/* an unknown unit keeps the name and the value */
	assert_non_null(strstr(text, "# TYPE gpubench_gemm_weird_name_x gauge"));
	assert_non_null(strstr(text, "\\\"quoted\\\""));
	/* a check is a state set of its five statuses */
	assert_non_null(strstr(text, "gpubench_check_status{benchmark=\"gemm\",check=\"eff\","
				     "gpu=\"0\",uuid=\"GPU-0\",model=\"NVIDIA H100 80GB HBM3\","
				     "status=\"passed\",simulated=\"false\"} 1\n"));
	assert_non_null(strstr(text, "gpubench_check_status{benchmark=\"gemm\",check=\"eff\","
				     "gpu=\"0\",uuid=\"GPU-0\",model=\"NVIDIA H100 80GB HBM3\","
				     "status=\"failed\",simulated=\"false\"} 0\n"));
	assert_non_null(strstr(text, "gpubench_check_status{benchmark=\"gemm\",check=\"ecc\","
				     "status=\"error\",simulated=\"false\"} 1\n"));
	assert_non_null(strstr(text, "gpubench_check_status{benchmark=\"gemm\",check=\"ecc\","
				     "status=\"passed\",simulated=\"false\"} 0\n"));
	assert_non_null(strstr(text, "gpubench_benchmark_status{benchmark=\"nccl\","
				     "status=\"not_built\",simulated=\"false\"} 1\n"));
	assert_non_null(strstr(text, "gpubench_benchmark_duration_seconds{benchmark=\"gemm\","
				     "simulated=\"false\"} 12.5\n"));
	assert_non_null(strstr(text, "gpubench_last_run_timestamp_seconds{simulated=\"false\"} "
				     "1795341600\n"));
	assert_non_null(strstr(text, "gpubench_build_info{version=\""));
	assert_non_null(strstr(text, "gpubench_verdict_status{status=\"failed\","
				     "simulated=\"false\"} 1\n"));
	assert_non_null(strstr(text, "gpubench_verdict_status{status=\"passed\","
				     "simulated=\"false\"} 0\n"));
	assert_non_null(strstr(text, "gpubench_report_timestamp_seconds{simulated=\"false\"} "
				     "1795341850\n"));
	assert_null(strstr(text, "gpubench_gemm_unknown")); /* NaN is left out */
	free(text);
	gb_run_release(&run);
}

/* family name of bench/metric in unit */
static void assert_family(const char *bench, const char *metric, const char *unit, int keep,
			  const char *want)
{
	char *got = gb_prom_metric_family(bench, metric, gb_prom_unit_of(unit), keep);

	assert_string_equal(got, want);
	free(got);
}

/* base units in the name, unit words out, no name that reads as another type */
static void test_prom_names(void **state)
{
	const struct gb_prom_unit *u = gb_prom_unit_of("GB/s");

	(void)state;
	assert_non_null(u);
	assert_true(u->scale == 1e9);
	assert_string_equal(u->suffix, "bytes_per_second");
	assert_true(gb_prom_unit_of("us")->scale == 1e-6);
	assert_true(gb_prom_unit_of("%")->scale == 0.01);
	assert_true(gb_prom_unit_of("MHz")->scale == 1e6);
	assert_null(gb_prom_unit_of("furlongs"));
	assert_family("gemm", "tflops_bf16", "TFLOP/s", 0, "gpubench_gemm_bf16_flops");
	assert_family("gemm", "tflops_int8", "TOP/s", 0, "gpubench_gemm_int8_ops");
	assert_family("bandwidth", "h2d_ce_pinned_gbps", "GB/s", 0,
		      "gpubench_bandwidth_h2d_ce_pinned_bytes_per_second");
	assert_family("bandwidth", "n_half_bytes", "B", 0, "gpubench_bandwidth_n_half_bytes");
	assert_family("nccl", "allreduce_alpha_us", "us", 0, "gpubench_nccl_allreduce_alpha_seconds");
	assert_family("scaling", "efficiency_n2", "%", 0, "gpubench_scaling_efficiency_n2_ratio");
	assert_family("stress", "sm_mhz_mean", "MHz", 0, "gpubench_stress_sm_mean_hertz");
	assert_family("stress", "temp_c_max", "C", 0, "gpubench_stress_temp_max_celsius");
	assert_family("stress", "tflops", "TFLOP/s", 0, "gpubench_stress_flops");
	assert_family("stress", "xid_count", "count", 0, "gpubench_stress_xid_events");
	/* keep_units: two metrics that would share a family keep their unit words */
	assert_family("p2p", "x_gbps", "GB/s", 1, "gpubench_p2p_x_gbps_bytes_per_second");
	/* an unknown unit: the name as it is, sanitized, lowercase */
	assert_family("gemm", "Weird-Name.x", "furlongs", 0, "gpubench_gemm_weird_name_x");
	/* never a histogram's or a counter's tail, never a family of the report's own */
	assert_family("stress", "errors_total", "", 0, "gpubench_stress_errors_total_value");
	assert_family("stress", "gemm_count", "", 0, "gpubench_stress_gemm_count_value");
	assert_family("gpu", "memory", "B", 0, "gpubench_bench_gpu_memory_bytes");
}

/* the same metric twice on one GPU: params, then repeat, keep the series apart */
static void test_prom_repeats(void **state)
{
	const char *argv[] = { "gpubench", "gemm" };
	struct gb_run run;
	char *text;

	(void)state;
	gb_run_init(&run, "gemm", 2, argv);
	for (int k = 0; k < 3; k++) {
		struct gb_bench_result *b = gb_run_add_bench(&run, "gemm");

		gb_bench_param_str(b, "dtype", k == 2 ? "fp16" : "bf16");
		gb_bench_add_value(b, "tflops", "TFLOP/s", GB_BETTER_HIGHER, 0, 100 + k, NAN);
		/* a name of its own that loses its unit words to the same family */
		gb_bench_add_value(b, "tflops_x", "TFLOP/s", GB_BETTER_HIGHER, 0, 200, NAN);
		gb_bench_add_value(b, "x_gflops", "GFLOP/s", GB_BETTER_HIGHER, 0, 300, NAN);
		gb_bench_add_check(b, "eff", GB_STATUS_PASSED, GB_SEV_ERROR, 0, 1, 1, "ok");
	}
	gb_run_verdict(&run);
	text = render(&run, GB_OUT_PROMETHEUS);
	check_exposition(text); /* no series twice */
	assert_non_null(strstr(text, "gpubench_gemm_flops{gpu=\"0\",params=\"dtype=bf16\","
				     "simulated=\"false\"} 100000000000000\n"));
	assert_non_null(strstr(text, "gpubench_gemm_flops{gpu=\"0\",params=\"dtype=bf16\","
				     "repeat=\"2\",simulated=\"false\"} 101000000000000\n"));
	assert_non_null(strstr(text, "gpubench_gemm_flops{gpu=\"0\",params=\"dtype=fp16\","
				     "simulated=\"false\"} 102000000000000\n"));
	assert_non_null(strstr(text, "# TYPE gpubench_gemm_tflops_x_flops gauge\n"));
	assert_non_null(strstr(text, "# TYPE gpubench_gemm_x_gflops_flops gauge\n"));
	assert_non_null(strstr(text, "gpubench_check_status{benchmark=\"gemm\",check=\"eff\","
				     "gpu=\"0\",params=\"dtype=bf16\",repeat=\"2\","
				     "status=\"passed\",simulated=\"false\"} 1\n"));
	assert_non_null(strstr(text, "gpubench_benchmark_status{benchmark=\"gemm\","
				     "params=\"dtype=fp16\",status=\"passed\",simulated=\"false\"} 1\n"));
	free(text);
	gb_run_release(&run);
}

/* ---- CSV ---- */

/* Fields per record of RFC 4180 text; fails on a record with another count than want. */
static size_t csv_records(const char *s, size_t want)
{
	size_t records = 0, fields = 1;
	bool quoted = false;

	for (const char *p = s; *p; p++) {
		if (quoted) {
			if (*p == '"' && p[1] == '"')
				p++;
			else if (*p == '"')
				quoted = false;
		} else if (*p == '"') {
			quoted = true;
		} else if (*p == ',') {
			fields++;
		} else if (*p == '\r' && p[1] == '\n') {
			if (fields != want)
				fail_msg("record %zu has %zu fields", records, fields);
			records++;
			fields = 1;
			p++;
		} else if (*p == '\n') {
			fail_msg("bare LF outside quotes in record %zu", records);
		}
	}
	assert_false(quoted);
	return records;
}

static void test_csv(void **state)
{
	struct gb_run run;
	char *text;

	(void)state;
	make_run(&run);
	text = render(&run, GB_OUT_CSV);
	assert_true(!strncmp(text, "benchmark,metric,device,value,unit,median,min,max,stdev,cv,"
				   "peak,efficiency,simulated\r\n", 86));
	assert_int_equal(csv_records(text, 13), 5); /* header + 4 metrics */
	assert_non_null(strstr(text, "gemm,tflops_bf16,0,30,TFLOP/s,30,10,45,"));
	assert_non_null(strstr(text, "gemm,tflops_fp16,1,700,TFLOP/s,,,,,,989.4,"
				     "0.7074994946432182,false\r\n"));
	assert_non_null(strstr(text, "\"we<ird> & \"\"quoted\"\", 'single' | pipe\n"));
	free(text);
	gb_run_release(&run);
}

/* ---- Markdown ---- */

static void test_markdown(void **state)
{
	struct gb_run run;
	char *text, *failed, *metrics;

	(void)state;
	make_run(&run);
	text = render(&run, GB_OUT_MARKDOWN);
	assert_non_null(strstr(text, "gpubench run: failed"));
	failed = strstr(text, "### Failed checks");
	metrics = strstr(text, "| benchmark | metric | GPU | value | unit | CV | % of peak |");
	assert_non_null(failed);
	assert_non_null(metrics);
	assert_true(failed < metrics); /* what broke the build comes first */
	assert_non_null(strstr(text, "'single' \\| pipe newline"));
	assert_non_null(strstr(text, "we&lt;ird>"));
	free(text);
	gb_run_release(&run);
}

/* ---- HTML ---- */

static void test_html(void **state)
{
	struct gb_run run;
	char *html;

	(void)state;
	make_run(&run);
	html = render(&run, GB_OUT_HTML);
	assert_true(!strncmp(html, "<!DOCTYPE html>", 15));
	assert_non_null(strstr(html, "<svg"));
	assert_non_null(strstr(html, "(log scale)")); /* 4K..1G spans more than two decades */
	assert_non_null(strstr(html, "TFLOPS per precision"));
	assert_non_null(strstr(html, "GPU 1 temperature"));
	assert_null(strstr(html, "http://"));
	assert_null(strstr(html, "https://"));
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<link"));
	assert_null(strstr(html, "src="));
	assert_null(strstr(html, "we<ird>"));
	assert_non_null(strstr(html, "we&lt;ird&gt;"));
	assert_non_null(strstr(html, "</html>\n"));
	free(html);
	gb_run_release(&run);
}

/* A run where nothing ran still renders in every format. */
static void test_empty_run(void **state)
{
	struct gb_run run;

	(void)state;
	gb_run_init(&run, "info", 0, NULL);
	gb_run_set_status(&run, GB_STATUS_ERROR, "no NVIDIA driver");
	gb_run_verdict(&run);
	for (int f = 0; f < GB_OUT_COUNT; f++) {
		char *text = render(&run, (enum gb_out_format)f);

		assert_true(strlen(text) > 0);
		if (f == GB_OUT_JUNIT)
			assert_non_null(strstr(text, "<error message=\"no NVIDIA driver\""));
		free(text);
	}
	gb_run_release(&run);
}

/* ---- info: what it reports, in every format ---- */

/* An info run of n GPUs; GPU 1 has unknown PCIe, NVLink, bus width, ECC. */
static void make_info(struct gb_run *run, int n)
{
	const char *argv[] = { "gpubench", "info" };

	gb_run_init(run, "info", 2, argv);
	run->host.hostname = gb_strdup("node-1");
	run->host.cuda_driver_version = 0; /* no driver */
	run->host.cuda_runtime_version = 13000;
	for (int i = 0; i < n; i++) {
		struct gb_device_info *d = gb_run_add_device(run);
		bool known = i != 1;

		d->index = i;
		d->name = gb_strdup("NVIDIA H100 80GB HBM3");
		d->uuid = gb_strdupf("GPU-%d", i);
		d->pci_bus_id = gb_strdupf("00000000:%02X:00.0", 0x18 + i);
		d->spec_key = gb_strdup("h100-sxm");
		d->cc_major = 9;
		d->cc_minor = 0;
		d->sm_count = 132;
		d->memory_bytes = 85520809984.0;
		d->mem_bus_bits = known ? 5120 : -1;
		d->pcie_gen = known ? 1 : -1; /* idle */
		d->pcie_width = known ? 16 : -1;
		d->pcie_max_gen = known ? 5 : -1;
		d->pcie_max_width = known ? 16 : -1;
		d->power_limit_w = 700;
		d->ecc = known ? 1 : -1;
		d->nvlink_up = known ? 18 : -1;
		d->peaks.spec[GB_PREC_BF16] = 989.4e12;
		d->peaks.max_clock[GB_PREC_BF16] = 1070.5e12;
		d->peaks.mem_bw_bps_spec = 3350e9;
		d->peaks.pcie_bps = known ? 63.015e9 : NAN;
		d->peaks.pcie_bps_current = known ? 3.938e9 : NAN;
		d->peaks.nvlink_bps = known ? 450e9 : NAN;
	}
	for (int a = 0; a < n; a++) {
		for (int b = 0; b < n; b++) {
			struct gb_link *l;

			if (a == b)
				continue;
			l = gb_run_add_link(run, a, b, a + b == 1 ? "nvlink" : "cross_socket");
			l->nvlink_count = a + b == 1 ? 18 : 0;
			l->p2p_access = a + b == 1 ? 1 : 0;
		}
	}
	gb_run_verdict(run);
}

static char *render_text(const struct gb_run *run, bool detail)
{
	struct gb_text_opts o = { .color = false, .device_detail = detail };
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	gb_text_print(run, m, &o);
	fclose(m);
	return buf;
}

static void test_info_text(void **state)
{
	struct gb_run run;
	char *text;

	(void)state;
	make_info(&run, 3);
	run.devices[0].pcie_gpu_max_gen = 6; /* a faster GPU than its slot */
	run.devices[2].pcie_gpu_max_gen = 5; /* as fast as its slot: nothing to say */
	text = render_text(&run, true);
	/* unknown is '-', never -1 or 0.0 */
	assert_null(strstr(text, " -1"));
	assert_null(strstr(text, "x-1"));
	assert_null(strstr(text, "0.0  runtime"));
	assert_non_null(strstr(text, "CUDA driver -  runtime 13.0"));
	assert_non_null(strstr(text, "bus 5120 bits"));
	assert_non_null(strstr(text, "bus -; clocks"));
	assert_non_null(strstr(text, "PCIe gen 1 x16 (idle) (max gen 5 x16)"));
	assert_non_null(strstr(text, "PCIe - (max -)"));
	assert_non_null(strstr(text, "(max gen 5 x16; the GPU does gen 6)"));
	assert_null(strstr(text, "the GPU does gen 5"));
	assert_non_null(strstr(text, "ECC -; NVLink links up -\n"));
	assert_non_null(strstr(text, "NVLink links up 18\n"));
	/* three GPUs: a grid, row -> column, not N x (N-1) lines */
	assert_non_null(strstr(text, "topology (row -> column: link, P2P access)"));
	assert_non_null(strstr(text, "  GPU0    X         NV18 yes  SYS no  "));
	assert_non_null(strstr(text, "  GPU2    SYS no    SYS no    X"));
	assert_non_null(strstr(text, "NV<n> NVLink"));
	assert_null(strstr(text, "GPU 0 -> GPU 1"));
	free(text);
	gb_run_release(&run);
	/* two GPUs: the two lines read better than a grid */
	make_info(&run, 2);
	text = render_text(&run, true);
	assert_non_null(strstr(text, "GPU 0 -> GPU 1  nvlink           18 links  p2p yes"));
	assert_null(strstr(text, "GPU0 "));
	free(text);
	gb_run_release(&run);
}

static void test_info_formats(void **state)
{
	struct gb_run run;
	char *text;

	(void)state;
	make_info(&run, 3);
	text = render(&run, GB_OUT_MARKDOWN);
	assert_non_null(strstr(text, "### GPUs"));
	assert_non_null(strstr(text, "| gen 1 x16 | gen 5 x16 | 700 | on | - | 18 |"));
	assert_non_null(strstr(text, "| - | - | 700 | - | - | - |"));
	assert_non_null(strstr(text, "### Theoretical peaks"));
	assert_non_null(strstr(text, "| 0 | spec sheet |"));
	assert_non_null(strstr(text, "989.4"));
	assert_non_null(strstr(text, "### Topology"));
	assert_non_null(strstr(text, "| **GPU0** | X | NV18 yes | SYS no |"));
	free(text);
	text = render(&run, GB_OUT_CSV);
	assert_true(!strncmp(text, "device,name,uuid,pci_bus_id,cc,spec_key,sm_count", 48));
	/* header + 3 GPUs */
	assert_int_equal(csv_records(text, 21 + 2 * GB_PREC_COUNT + 7), 4);
	assert_non_null(strstr(text, ",1,16,5,16,700,1,"));
	assert_non_null(strstr(text, ",nvlink_bps_per_direction,topology,simulated\r\n"));
	assert_non_null(strstr(text, ",1:NV18 p2p yes;2:SYS p2p no,false\r\n"));
	free(text);
	text = render(&run, GB_OUT_PROMETHEUS);
	check_exposition(text);
	assert_non_null(strstr(text, "gpubench_gpu_pcie_link_generation{gpu=\"0\",uuid=\"GPU-0\","
				     "model=\"NVIDIA H100 80GB HBM3\",simulated=\"false\"} 1\n"));
	assert_non_null(strstr(text, "gpubench_gpu_pcie_link_max_generation{gpu=\"0\""));
	assert_non_null(strstr(text, "gpubench_gpu_nvlink_links_up{gpu=\"0\""));
	assert_non_null(strstr(text, "gpubench_gpu_power_limit_watts{gpu=\"2\""));
	assert_non_null(strstr(text, "gpubench_gpu_ecc_enabled{gpu=\"0\""));
	assert_non_null(strstr(text, "gpubench_gpu_peak_flops{gpu=\"0\",uuid=\"GPU-0\",model=\"NVIDIA "
				     "H100 80GB HBM3\",precision=\"bf16\",clock=\"spec\","
				     "simulated=\"false\"} 989400000000000\n"));
	assert_non_null(strstr(text, "gpubench_gpu_peak_pcie_bytes_per_second{gpu=\"0\""));
	assert_non_null(strstr(text, "gpubench_gpu_p2p_access{gpu=\"0\",uuid=\"GPU-0\",model=\"NVIDIA "
				     "H100 80GB HBM3\",peer=\"1\",link=\"nvlink\","
				     "simulated=\"false\"} 1\n"));
	/* GPU 1's unknown link is left out, never written as -1 */
	assert_null(strstr(text, "gpubench_gpu_pcie_link_generation{gpu=\"1\""));
	assert_null(strstr(text, "} -1\n"));
	free(text);
	text = render(&run, GB_OUT_HTML);
	assert_non_null(strstr(text, "<td>gen 1 x16 / gen 5 x16</td>"));
	assert_non_null(strstr(text, "<td>- / -</td>"));
	free(text);
	gb_run_release(&run);
}

/* ---- a fleet report: every GPU's node, and a table of nodes ---- */

static void fleet_nodes(struct gb_run *nodes, struct gb_run *out)
{
	const struct gb_run *ptrs[3];
	const char *names[] = { "a.json", "b.json", "c.json" };
	char err[256];

	for (int i = 0; i < 3; i++) {
		const char *argv[] = { "gpubench", "run" };
		struct gb_bench_result *b;

		gb_run_init(&nodes[i], "run", 2, argv);
		nodes[i].host.hostname = gb_strdupf("node-%d", i + 1);
		for (int k = 0; k < 2; k++) {
			struct gb_device_info *d = gb_run_add_device(&nodes[i]);

			d->index = k;
			d->name = gb_strdup("NVIDIA H100 80GB HBM3");
			d->uuid = gb_strdupf("GPU-%d-%d", i, k);
		}
		b = gb_run_add_bench(&nodes[i], "gemm");
		for (int k = 0; k < 2; k++) {
			double v = i == 2 && k == 1 ? 600 : 740;
			const double smp[] = { v - 1, v, v + 1 };

			gb_bench_add_metric(b, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, k, smp, 3,
					    989.4);
		}
		gb_run_verdict(&nodes[i]);
		ptrs[i] = &nodes[i];
	}
	gb_run_init(out, "fleet", 0, NULL);
	assert_int_equal(gb_fleet_merge(ptrs, names, 3, GB_FLEET_MAD_K, out, err, sizeof(err)), 0);
	gb_run_verdict(out);
}

/* how many times needle occurs in text */
static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0, len = strlen(needle);

	/* by index: GCC's -Wdangling-pointer misreads pointers into open_memstream's buffer */
	for (size_t i = 0; text[i]; i++)
		n += !strncmp(text + i, needle, len);
	return n;
}

/*
 * What a fleet fails: a measured value (with samples) 3 scaled MADs off the
 * median; a derived one (no samples, e.g. a fit's n_half) only warns; and
 * 3.5 raw MADs is within 3 scaled ones (1.4826 x MAD), so not an outlier.
 */
static void test_fleet_outlier_rules(void **state)
{
	/* six GPUs: MAD 2 around 100; one measured and one derived value far below */
	static const double v[] = { 98, 100, 100, 102, 102, 98 };
	struct gb_run nodes[3], out;
	const struct gb_run *ptrs[3];
	const char *names[] = { "a.json", "b.json", "c.json" };
	const struct gb_bench_result *b;
	char err[256];
	int failed = 0, warned = 0, near = 0;

	(void)state;
	for (int i = 0; i < 3; i++) {
		const char *argv[] = { "gpubench", "run" };
		struct gb_bench_result *g;

		gb_run_init(&nodes[i], "run", 2, argv);
		nodes[i].host.hostname = gb_strdupf("node-%d", i + 1);
		g = gb_run_add_bench(&nodes[i], "bandwidth");
		for (int k = 0; k < 2; k++) {
			struct gb_device_info *d = gb_run_add_device(&nodes[i]);
			double x = v[2 * i + k], far = i == 2 && k == 1 ? 50 : x;
			double smp[] = { far - 0.1, far, far + 0.1 };
			/* 7 below the median 99 with a MAD of 2: 3.5 raw MADs, 2.4 scaled ones */
			double close = i == 1 && k == 0 ? 92 : x;

			d->index = k;
			d->name = gb_strdup("NVIDIA H100 80GB HBM3");
			gb_bench_add_metric(g, "h2d_gbps", "GB/s", GB_BETTER_HIGHER, k, smp, 3, NAN);
			gb_bench_add_value(g, "h2d_n_half_bytes", "B", GB_BETTER_LOWER, k,
					   i == 2 && k == 1 ? 1e9 : x, NAN);
			smp[0] = close - 0.1, smp[1] = close, smp[2] = close + 0.1;
			gb_bench_add_metric(g, "d2h_gbps", "GB/s", GB_BETTER_HIGHER, k, smp, 3, NAN);
		}
		gb_run_verdict(&nodes[i]);
		ptrs[i] = &nodes[i];
	}
	gb_run_init(&out, "fleet", 0, NULL);
	assert_int_equal(gb_fleet_merge(ptrs, names, 3, GB_FLEET_MAD_K, &out, err, sizeof(err)), 0);
	for (b = out.benches; strcmp(b->name, "bandwidth"); b++)
		assert_true(b + 1 < out.benches + out.n_benches);
	for (size_t c = 0; c < b->n_checks; c++) {
		const struct gb_check *k = &b->checks[c];

		failed += !strcmp(k->name, "h2d_gbps_fleet_outlier") && k->status == GB_STATUS_FAILED;
		warned += !strcmp(k->name, "h2d_n_half_bytes_fleet_outlier") &&
			  k->status == GB_STATUS_WARNING;
		near += !strcmp(k->name, "d2h_gbps_fleet_outlier");
	}
	assert_int_equal(failed, 1);
	assert_int_equal(warned, 1);
	assert_int_equal(near, 0);
	for (int i = 0; i < 3; i++)
		gb_run_release(&nodes[i]);
	gb_run_release(&out);
}

static void test_fleet_renderings(void **state)
{
	struct gb_run nodes[3], out;
	char *text;

	(void)state;
	fleet_nodes(nodes, &out);
	text = render_text(&out, false);
	assert_non_null(strstr(text, "nodes (3)"));
	/* node-3's own run passed; the fleet found its GPU 5 an outlier */
	assert_non_null(strstr(text, "  node-3  c.json  passed       4-5                1         0\n"));
	assert_non_null(strstr(text, "GPU 5  node-3  NVIDIA H100 80GB HBM3"));
	assert_non_null(strstr(text, "[node-3]\n"));
	/* the outlier fails the fleet: one verdict, stated once, at the end */
	assert_non_null(strstr(text, "\nverdict: failed\n"));
	assert_int_equal(count_of(text, "\nverdict: "), 1);
	assert_null(strstr(text, "\nfleet: "));
	free(text);
	text = render(&out, GB_OUT_MARKDOWN);
	assert_non_null(strstr(text, "### Nodes"));
	assert_non_null(strstr(text, "| node-3 | c.json | \xE2\x9C\x85 passed | 4-5 | 1 | 0 |"));
	assert_non_null(strstr(text, "| GPU 5 | node-3: NVIDIA H100 80GB HBM3 |"));
	assert_non_null(strstr(text, "| 5 (node-3) |"));
	free(text);
	text = render(&out, GB_OUT_HTML);
	assert_non_null(strstr(text, "<h2>Nodes</h2>"));
	assert_non_null(strstr(text, "<td>node-3</td><td>c.json</td>"));
	assert_non_null(strstr(text, "<th>node</th>"));
	assert_non_null(strstr(text, "<td class=\"num\">5 (node-3)</td>"));
	free(text);
	gb_run_release(&out);
	for (int i = 0; i < 3; i++)
		gb_run_release(&nodes[i]);
}

/* ---- simulated: a column, a property, a label ---- */

#define SIM_MACHINE "2x-h100-test (tests/sim/machines/2x-h100-test.json)"

static void set_simulated(struct gb_run *run, const char *machine)
{
	run->host.simulated = machine != NULL;
	free(run->host.simulated_machine);
	run->host.simulated_machine = machine ? gb_strdup(machine) : NULL;
}

/*
 * Every CSV record's last field: "simulated" in the header, want ("true" or
 * "false") in each row. Records end in CRLF; a quoted field holds bare LFs
 * only, so the split is by CRLF.
 */
static void assert_csv_simulated(const char *text, const char *want)
{
	char *copy = strdup(text), *p = copy;
	size_t rows = 0;

	for (char *end; (end = strstr(p, "\r\n")); p = end + 2, rows++) {
		const char *last;

		*end = '\0';
		last = strrchr(p, ',');
		assert_non_null(last);
		if (strcmp(last + 1, rows ? want : "simulated"))
			fail_msg("record %zu ends in '%s', not '%s'", rows, last + 1,
				 rows ? want : "simulated");
	}
	assert_string_equal(p, ""); /* nothing after the last CRLF */
	assert_true(rows >= 2);
	free(copy);
}

/* Every sample's last label is simulated="want" (# lines, HELP and TYPE included, are skipped) */
static void assert_prom_simulated(const char *text, const char *want)
{
	char *copy = strdup(text), *save = NULL, tail[64];
	size_t samples = 0;

	snprintf(tail, sizeof(tail), "simulated=\"%s\"} ", want);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *at = strstr(line, tail);

		if (line[0] == '#')
			continue;
		samples++;
		if (!at || (at[-1] != '{' && at[-1] != ','))
			fail_msg("a sample without simulated=\"%s\": %s", want, line);
		/* the last label: only the value follows it */
		if (strchr(at + strlen(tail), '"'))
			fail_msg("simulated is not the last label: %s", line);
	}
	assert_true(samples > 0);
	free(copy);
}

/* The simulated property once per <testsuite>, and the machine's exactly as often when given. */
static void assert_junit_simulated(const char *xml, const char *want, const char *machine)
{
	char prop[256];
	size_t suites = count_of(xml, "<testsuite ");

	assert_true(suites > 0);
	snprintf(prop, sizeof(prop), "<property name=\"simulated\" value=\"%s\"/>", want);
	assert_int_equal(count_of(xml, prop), suites);
	assert_int_equal(count_of(xml, "<property name=\"simulated\""), suites);
	if (machine) {
		snprintf(prop, sizeof(prop), "<property name=\"simulated_machine\" value=\"%s\"/>",
			 machine);
		assert_int_equal(count_of(xml, prop), suites);
	} else {
		assert_int_equal(count_of(xml, "simulated_machine"), 0);
	}
}

/* CSV, JUnit and Prometheus of run say simulated = want; machine is the JUnit property's */
static void assert_run_simulated(const struct gb_run *run, const char *want, const char *machine)
{
	char *text = render(run, GB_OUT_CSV);

	assert_csv_simulated(text, want);
	free(text);
	text = render(run, GB_OUT_JUNIT);
	assert_junit_simulated(text, want, machine);
	free(text);
	text = render(run, GB_OUT_PROMETHEUS);
	check_exposition(text);
	assert_prom_simulated(text, want);
	/* the comment stays: the first thing a person reading the file sees */
	if (machine)
		assert_true(!strncmp(text, "# simulated GPU (", 17));
	else
		assert_null(strstr(text, "simulated GPU"));
	free(text);
}

/* A synthetic run, a run with no benchmark, an info run: measured, then simulated. */
static void test_simulated_marks(void **state)
{
	struct gb_run run;
	char *text;

	(void)state;
	make_run(&run);
	assert_run_simulated(&run, "false", NULL);
	set_simulated(&run, SIM_MACHINE);
	assert_run_simulated(&run, "true", SIM_MACHINE);
	text = render(&run, GB_OUT_CSV);
	assert_non_null(strstr(text, "\r\ngemm,tflops_bf16,0,30,TFLOP/s,30,10,45,"));
	free(text);
	text = render(&run, GB_OUT_PROMETHEUS);
	assert_non_null(strstr(text, "gpubench_gemm_bf16_flops{gpu=\"0\",uuid=\"GPU-0\",model=\"NVIDIA "
				     "H100 80GB HBM3\",simulated=\"true\"} 30000000000000\n"));
	assert_non_null(strstr(text, "\ngpubench_exit_code{simulated=\"true\"} 1\n"));
	assert_non_null(strstr(text, "gpubench_build_info{version=\""));
	assert_non_null(strstr(text, "gpubench_run_info{command=\"run\","
				     "host=\"node \\\"7\\\"\",simulated=\"true\"} 1\n"));
	free(text);
	text = render(&run, GB_OUT_JUNIT);
	/* the property follows the suite's status, before the metrics */
	assert_non_null(strstr(text, "\t\t<properties>\n"
				     "\t\t\t<property name=\"status\" value=\"failed\"/>\n"
				     "\t\t\t<property name=\"simulated\" value=\"true\"/>\n"
				     "\t\t\t<property name=\"simulated_machine\" "
				     "value=\"" SIM_MACHINE "\"/>\n"
				     "\t\t\t<property name=\"tflops_bf16.gpu0\""));
	free(text);
	gb_run_release(&run);

	/* nothing ran: the one suite saying why says it too */
	gb_run_init(&run, "info", 0, NULL);
	gb_run_set_status(&run, GB_STATUS_ERROR, "no NVIDIA driver");
	gb_run_verdict(&run);
	text = render(&run, GB_OUT_JUNIT);
	assert_junit_simulated(text, "false", NULL);
	free(text);
	set_simulated(&run, SIM_MACHINE);
	text = render(&run, GB_OUT_JUNIT);
	assert_junit_simulated(text, "true", SIM_MACHINE);
	free(text);
	gb_run_release(&run);

	/* info: one CSV row per GPU, the gpubench_gpu_* gauges */
	make_info(&run, 3);
	assert_run_simulated(&run, "false", NULL);
	set_simulated(&run, SIM_MACHINE);
	assert_run_simulated(&run, "true", SIM_MACHINE);
	text = render(&run, GB_OUT_CSV);
	assert_non_null(strstr(text, ",1:NV18 p2p yes;2:SYS p2p no,true\r\n"));
	free(text);
	gb_run_release(&run);
}

/* tests/data's fixtures come from gpubench-sim; the measured one is the same with the flag off */
static void test_simulated_fixture(void **state)
{
	static const char machine[] = "8x-h100-nvlink (tests/sim/machines/8x-h100-nvlink.json)";
	const char *dir = getenv("GPUBENCH_TEST_DATA");
	char path[1024], err[512];
	struct gb_run run;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/base.json", dir);
	if (gb_report_load_file(path, &run, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(run.host.simulated);
	assert_string_equal(run.host.simulated_machine, machine);
	assert_run_simulated(&run, "true", machine);
	set_simulated(&run, NULL);
	assert_run_simulated(&run, "false", NULL);
	gb_run_release(&run);
}

/* ---- gpubench compare as JUnit, Prometheus and HTML ---- */

static char *render_cmp(const struct gb_compare *c, enum gb_out_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(gb_compare_print(c, f, m), 0);
	fclose(m);
	return buf;
}

/*
 * A: three metrics on a GPU with an awkward name; B: one regressed, one gone, p2p errored.
 * Both from the simulated machine when machine is not NULL.
 */
static void cmp_pair(struct gb_run *a, struct gb_run *b, struct gb_compare *c, bool allow,
		     const char *machine)
{
	struct gb_run *runs[2] = { a, b };
	struct gb_compare_opts o;
	char err[256];

	for (int k = 0; k < 2; k++) {
		struct gb_device_info *d;
		struct gb_bench_result *g, *p;

		gb_run_init(runs[k], "run", 0, NULL);
		runs[k]->host.hostname = gb_strdup("node");
		set_simulated(runs[k], machine);
		d = gb_run_add_device(runs[k]);
		d->index = 0;
		d->name = gb_strdup(NASTY);
		g = gb_run_add_bench(runs[k], "gemm");
		gb_bench_param_str(g, "dtype", NASTY);
		gb_bench_add_value(g, "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER, 0, k ? 600 : 740,
				   NAN);
		gb_bench_add_value(g, "tflops_fp16", "TFLOP/s", GB_BETTER_HIGHER, 0, 700, NAN);
		if (!k)
			gb_bench_add_value(g, "tflops_fp8", "TFLOP/s", GB_BETTER_HIGHER, 0, 1400, NAN);
		p = gb_run_add_bench(runs[k], "p2p");
		if (k)
			gb_bench_set_status(p, GB_STATUS_ERROR, "%s", NASTY);
		else
			gb_bench_add_value(p, "p2p_gbps", "GB/s", GB_BETTER_HIGHER, -1, 50, NAN);
	}
	gb_compare_opts_init(&o);
	o.allow_missing = allow;
	assert_int_equal(gb_compare_runs(a, "a.json", b, "b.json", &o, c, err, sizeof(err)), 0);
}

static void test_compare_formats(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;
	char path[] = "/tmp/gb_test_cmp_junit.XXXXXX", cmd[512];
	char *text;
	int fd;

	(void)state;
	cmp_pair(&a, &b, &c, false, NULL);
	text = render_cmp(&c, GB_OUT_JUNIT);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_file(path, text);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' %s",
		 path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
	/* 3 gemm rows (fp8 only in A: skipped), p2p's row and B incomplete's two cases (p2p did
	 * not run; gemm lacks fp8, which fails since issue 19) */
	assert_non_null(strstr(text, "tests=\"6\" failures=\"3\" errors=\"0\" skipped=\"2\""));
	assert_non_null(strstr(text, "<testcase classname=\"p2p\" name=\"complete in B\""));
	assert_non_null(strstr(text, "<failure message=\"p2p did not run in B (error: we&lt;ird"));
	assert_null(strstr(text, "\xff"));
	free(text);
	text = render_cmp(&c, GB_OUT_PROMETHEUS);
	check_exposition(text);
	assert_non_null(strstr(text, "gpubench_compare_incomplete{benchmark=\"p2p\","
				     "status=\"error\",simulated=\"false\"} 1\n"));
	assert_non_null(strstr(text, "gpubench_compare_value{side=\"a\",benchmark=\"gemm\","
				     "metric=\"tflops_bf16\",device=\"0\""));
	assert_non_null(strstr(text, "gpubench_compare_failed{simulated=\"false\"} 1\n"));
	free(text);
	text = render_cmp(&c, GB_OUT_HTML);
	assert_true(!strncmp(text, "<!DOCTYPE html>", 15));
	assert_non_null(strstr(text, "<h2>B incomplete</h2>"));
	assert_null(strstr(text, "we<ird>"));
	assert_null(strstr(text, "<script"));
	assert_null(strstr(text, "http"));
	assert_non_null(strstr(text, "</html>\n"));
	free(text);
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
	/* --allow-missing: the case is skipped, the gate is the regression alone */
	cmp_pair(&a, &b, &c, true, NULL);
	text = render_cmp(&c, GB_OUT_JUNIT);
	assert_non_null(strstr(text, "tests=\"6\" failures=\"1\" errors=\"0\" skipped=\"4\""));
	free(text);
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

/* compare's CSV, JUnit and Prometheus say whether both reports are simulated */
static void test_compare_simulated(void **state)
{
	struct gb_run a, b;
	struct gb_compare c;
	char *text;
	size_t suites;

	(void)state;
	cmp_pair(&a, &b, &c, false, NULL);
	text = render_cmp(&c, GB_OUT_CSV);
	assert_true(!strncmp(text, "benchmark,metric,device_model,device_a,device_b,params,unit,a,b,"
				   "ratio,change_pct,tolerance,noise,class,efficiency_a,efficiency_b,"
				   "per_watt_a,per_watt_b,per_dollar_a,per_dollar_b,simulated\r\n",
			     188));
	assert_int_equal(csv_records(text, 21), 1 + c.n_rows);
	assert_csv_simulated(text, "false");
	free(text);
	text = render_cmp(&c, GB_OUT_JUNIT);
	suites = count_of(text, "<testsuite ");
	assert_int_equal(count_of(text, "<property name=\"simulated\" value=\"false\"/>"), suites);
	assert_int_equal(count_of(text, "simulated_machine"), 0);
	free(text);
	text = render_cmp(&c, GB_OUT_PROMETHEUS);
	assert_prom_simulated(text, "false");
	free(text);
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);

	cmp_pair(&a, &b, &c, false, SIM_MACHINE);
	assert_true(c.simulated);
	text = render_cmp(&c, GB_OUT_CSV);
	assert_csv_simulated(text, "true");
	assert_non_null(strstr(text, ",regression,,,,,,,true\r\n"));
	free(text);
	text = render_cmp(&c, GB_OUT_JUNIT);
	suites = count_of(text, "<testsuite ");
	assert_true(suites > 0);
	assert_int_equal(count_of(text, "\t\t\t<property name=\"mode\" value=\"same_models\"/>\n"
					"\t\t\t<property name=\"simulated\" value=\"true\"/>\n"
					"\t\t\t<property name=\"simulated_machine_a\" value=\""
					SIM_MACHINE "\"/>\n"
					"\t\t\t<property name=\"simulated_machine_b\" value=\""
					SIM_MACHINE "\"/>\n"
					"\t\t</properties>\n"),
			 suites);
	free(text);
	text = render_cmp(&c, GB_OUT_PROMETHEUS);
	check_exposition(text);
	assert_prom_simulated(text, "true");
	assert_non_null(strstr(text, "\ngpubench_compare_failed{simulated=\"true\"} 1\n"));
	assert_non_null(strstr(text, "\ngpubench_compare_exit_code{simulated=\"true\"} 1\n"));
	free(text);
	gb_compare_release(&c);
	gb_run_release(&a);
	gb_run_release(&b);
}

/* machine formats print the shortest text that reads back as the same double */
static void test_exact_numbers(void **state)
{
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{ 741.917, "741.917" },
		{ 741.9169999999999, "741.9169999999999" }, /* another double: all digits kept */
		{ 0.1 + 0.2, "0.30000000000000004" },
		{ 989.4, "989.4" },
		{ 690, "690" },
		{ 1e-7, "1e-07" },
		{ 3.5e12, "3500000000000" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gb_fmt_exact(buf, sizeof(buf), cases[i].v);
		assert_string_equal(buf, cases[i].text);
		assert_true(strtod(buf, NULL) == cases[i].v);
	}
	gb_fmt_exact(buf, sizeof(buf), NAN);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),    cmocka_unit_test(test_junit_is_xml),
		cmocka_unit_test(test_prometheus), cmocka_unit_test(test_prom_names),
		cmocka_unit_test(test_prom_repeats), cmocka_unit_test(test_csv),
		cmocka_unit_test(test_markdown), cmocka_unit_test(test_html),
		cmocka_unit_test(test_empty_run),  cmocka_unit_test(test_info_text),
		cmocka_unit_test(test_info_formats), cmocka_unit_test(test_fleet_outlier_rules),
		cmocka_unit_test(test_fleet_renderings),
		cmocka_unit_test(test_compare_formats), cmocka_unit_test(test_exact_numbers),
		cmocka_unit_test(test_simulated_marks), cmocka_unit_test(test_simulated_fixture),
		cmocka_unit_test(test_compare_simulated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
