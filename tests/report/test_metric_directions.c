/* SPDX-License-Identifier: MIT */
/*
 * test_metric_directions.c - the one table of metric directions
 * (report/metric_directions.c): it agrees with docs/report-format.md row
 * for row, its first match wins, it overrides what a benchmark passes, and
 * the directions issue 26 found wrong are right (stress's gemms is higher
 * is better; sm_mhz_mean is an observation in stress and in gemm; no
 * per-watt figure for a clock).
 *
 * Environment (set by ctest): GPUBENCH_SCHEMA (docs/report.schema.json),
 * whose folder holds report-format.md.
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

#include "report/metric_directions.h"
#include "report/result.h"

/* ---- the docs' table ---- */

struct doc_row {
	char bench[64], pattern[96], better[16], throughput[8];
};

/* the text between the first two backticks of cell, into out */
static int code_cell(const char *cell, char *out, size_t len)
{
	const char *a = strchr(cell, '`'), *b = a ? strchr(a + 1, '`') : NULL;

	if (!a || !b || (size_t)(b - a - 1) >= len)
		return -1;
	memcpy(out, a + 1, (size_t)(b - a - 1));
	out[b - a - 1] = '\0';
	return 0;
}

/* a plain cell, trimmed */
static int word_cell(const char *cell, size_t n, char *out, size_t len)
{
	while (n && *cell == ' ') {
		cell++;
		n--;
	}
	while (n && cell[n - 1] == ' ')
		n--;
	if (n >= len)
		return -1;
	memcpy(out, cell, n);
	out[n] = '\0';
	return 0;
}

/* "| `gemm` | `tflops_*` | higher | yes | ... |" */
static int parse_row(const char *line, struct doc_row *r)
{
	const char *cells[6];
	const char *p = line;

	for (int i = 0; i < 6; i++) {
		p = strchr(p, '|');
		if (!p)
			return -1;
		cells[i] = ++p;
	}
	if (code_cell(cells[0], r->bench, sizeof(r->bench)) ||
	    code_cell(cells[1], r->pattern, sizeof(r->pattern)))
		return -1;
	return word_cell(cells[2], (size_t)(cells[3] - cells[2] - 1), r->better,
			 sizeof(r->better)) ||
	       word_cell(cells[3], (size_t)(cells[4] - cells[3] - 1), r->throughput,
			 sizeof(r->throughput));
}

static size_t read_doc_rows(struct doc_row *rows, size_t max)
{
	const char *schema = getenv("GPUBENCH_SCHEMA");
	char path[1024], line[1024];
	bool in = false;
	size_t n = 0;
	FILE *f;

	assert_non_null(schema);
	snprintf(path, sizeof(path), "%.*s/report-format.md",
		 (int)(strrchr(schema, '/') - schema), schema);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "#### Metric directions", 22)) {
			in = true;
			continue;
		}
		if (in && line[0] == '#')
			break;
		if (!in || strncmp(line, "| `", 3))
			continue;
		assert_true(n < max);
		if (parse_row(line, &rows[n]))
			fail_msg("cannot read the row '%s' of %s", line, path);
		n++;
	}
	fclose(f);
	return n;
}

static void test_docs_list_every_row(void **state)
{
	static struct doc_row doc[256];
	size_t n, nd = read_doc_rows(doc, 256);
	const struct gb_metric_direction *t = gb_metric_directions(&n);

	(void)state;
	assert_true(n > 40);
	if (nd != n)
		fail_msg("docs/report-format.md lists %zu directions, the code %zu", nd, n);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(doc[i].bench, t[i].bench) || strcmp(doc[i].pattern, t[i].pattern))
			fail_msg("row %zu: docs `%s` `%s`, code `%s` `%s`", i + 1, doc[i].bench,
				 doc[i].pattern, t[i].bench, t[i].pattern);
		if (strcmp(doc[i].better, gb_better_name(t[i].better)))
			fail_msg("%s/%s: docs say %s, the code %s", t[i].bench, t[i].pattern,
				 doc[i].better, gb_better_name(t[i].better));
		if (strcmp(doc[i].throughput, t[i].throughput ? "yes" : "no"))
			fail_msg("%s/%s: throughput differs", t[i].bench, t[i].pattern);
	}
}

/* ---- what the table says ---- */

static void expect(const char *bench, const char *metric, enum gb_better want)
{
	const struct gb_metric_direction *d = gb_metric_direction_find(bench, metric);

	if (!d)
		fail_msg("%s/%s has no direction", bench, metric);
	if (d->better != want)
		fail_msg("%s/%s: %s, expected %s (row %s)", bench, metric,
			 gb_better_name(d->better), gb_better_name(want), d->pattern);
}

static void test_issue_26_directions(void **state)
{
	(void)state;
	/* more GEMMs in the same time is better (it read lower: 1102 -> 652 improved) */
	expect("stress", "gemms", GB_BETTER_HIGHER);
	/* one meaning of the clock: an observation in stress and in gemm */
	expect("stress", "sm_mhz_mean", GB_BETTER_NONE);
	expect("gemm", "sm_mhz_mean_bf16", GB_BETTER_NONE);
	expect("gemm", "sm_mhz_mean_fp32_sgemm", GB_BETTER_NONE);
	/* what a run may or may not observe is never gated */
	expect("gemm", "pct_of_observed_clock_peak_fp32", GB_BETTER_NONE);
	expect("gemm", "power_w_mean_fp32", GB_BETTER_NONE);
	expect("gemm", "temp_c_max_fp32", GB_BETTER_NONE);
	expect("stress", "tflops_settled", GB_BETTER_NONE);
	expect("stress", "tflops_fp16_settled", GB_BETTER_NONE);
	expect("stress", "mem_gbps_settled", GB_BETTER_NONE);
	/* first match wins: the specific rows before the general ones */
	expect("stress", "tflops", GB_BETTER_HIGHER);
	expect("stress", "tflops_min", GB_BETTER_HIGHER);
	expect("gemm", "tflops_bf16", GB_BETTER_HIGHER);
	expect("gemm", "pct_of_max_clock_peak_bf16", GB_BETTER_HIGHER);
	expect("bandwidth", "h2d_ce_pinned_gbps", GB_BETTER_HIGHER);
	expect("bandwidth", "h2d_ce_pinned_beta_gbps", GB_BETTER_NONE);
	expect("p2p", "latency_to_gpu1_us", GB_BETTER_LOWER);
	expect("nccl", "allreduce_busbw_peak_gbps", GB_BETTER_HIGHER);
	expect("nccl", "allreduce_latency_smallest_us", GB_BETTER_LOWER);
	expect("scaling", "speedup_n2", GB_BETTER_HIGHER);
	expect("scaling", "efficiency_n2", GB_BETTER_HIGHER);
	expect("scaling", "worker_compute_ms_n2", GB_BETTER_LOWER);
	expect("scaling", "predicted_no_overlap_n2", GB_BETTER_NONE);
	assert_null(gb_metric_direction_find("gemm", "made_up"));
	assert_null(gb_metric_direction_find("nosuch", "tflops_bf16"));
}

static void test_throughput(void **state)
{
	(void)state;
	assert_true(gb_metric_is_throughput("gemm", "tflops_bf16", "TFLOP/s", GB_BETTER_HIGHER));
	assert_true(gb_metric_is_throughput("p2p", "uni_ce_to_gpu1_gbps", "GB/s",
					    GB_BETTER_HIGHER));
	/* never a clock, a percentage, a speedup or a count */
	assert_false(gb_metric_is_throughput("stress", "sm_mhz_mean", "MHz", GB_BETTER_HIGHER));
	assert_false(gb_metric_is_throughput("gemm", "pct_of_max_clock_peak_bf16", "%",
					     GB_BETTER_HIGHER));
	assert_false(gb_metric_is_throughput("scaling", "speedup_n2", "x", GB_BETTER_HIGHER));
	assert_false(gb_metric_is_throughput("stress", "gemms", "count", GB_BETTER_HIGHER));
	/* a metric the table does not know: a rate that is better higher */
	assert_true(gb_metric_is_throughput("x", "y", "GB/s", GB_BETTER_HIGHER));
	assert_false(gb_metric_is_throughput("x", "y", "MHz", GB_BETTER_HIGHER));
}

/* the table wins over the caller; a metric it does not know keeps the caller's word */
static void test_table_wins(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b;

	(void)state;
	gb_run_init(&run, "stress", 0, NULL);
	b = gb_run_add_bench(&run, "stress");
	assert_int_equal(gb_bench_add_value(b, "gemms", "count", GB_BETTER_LOWER, 0, 10, NAN)->better,
			 GB_BETTER_HIGHER);
	assert_int_equal(
		gb_bench_add_value(b, "sm_mhz_mean", "MHz", GB_BETTER_HIGHER, 0, 10, NAN)->better,
		GB_BETTER_NONE);
	assert_int_equal(gb_bench_add_value(b, "new_thing", "x", GB_BETTER_LOWER, 0, 1, NAN)->better,
			 GB_BETTER_LOWER);
	gb_run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docs_list_every_row),
		cmocka_unit_test(test_issue_26_directions),
		cmocka_unit_test(test_throughput),
		cmocka_unit_test(test_table_wins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
