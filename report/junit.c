/* SPDX-License-Identifier: MIT */
/*
 * junit.c - the report as JUnit XML, which every CI system renders: one
 * <testsuite> per benchmark, one <testcase> per check. A failed check is a
 * <failure>, a check that could not run an <error>, a skipped one <skipped/>;
 * a benchmark without checks is one test case with the benchmark's own
 * status, so a benchmark that could not run never disappears from the
 * summary. Metrics go into <properties>, warnings into <system-out>.
 * Every <testsuite> has the properties simulated (true/false, from
 * host.simulated) and, when simulated, simulated_machine: CI shows a test
 * suite apart from its report, so each one says whether it was measured.
 *
 * gb_compare_junit writes a comparison the same way: one <testsuite> per
 * benchmark, one <testcase> per compared metric (a <failure> when it
 * regressed, <skipped/> when it is in A only), and one per reason B is
 * incomplete (a <failure>, or <skipped/> with --allow-missing). Its
 * suites carry simulated too, and the machine of each side when simulated.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "report/format_util.h"
#include "report/writers.h"

/* What a test case is, in JUnit's vocabulary. */
enum jcase { J_PASS, J_FAILURE, J_ERROR, J_SKIPPED };

static enum jcase jcase_of(enum gb_status s)
{
	switch (s) {
	case GB_STATUS_PASSED:
	case GB_STATUS_WARNING:
		return J_PASS;
	case GB_STATUS_FAILED:
		return J_FAILURE;
	case GB_STATUS_SKIPPED:
	case GB_STATUS_NOT_BUILT:
		return J_SKIPPED;
	case GB_STATUS_ERROR:
	case GB_STATUS_INTERRUPTED:
		break;
	}
	return J_ERROR;
}

/*
 * Does the benchmark's own status need a test case of its own? Always when
 * it has no checks; otherwise when it did not pass and no check says so
 * (e.g. it ran out of memory after two checks had passed).
 */
static bool needs_status_case(const struct gb_bench_result *b)
{
	enum jcase want = jcase_of(b->status);

	if (b->n_checks == 0)
		return true;
	if (want == J_PASS)
		return false;
	for (size_t i = 0; i < b->n_checks; i++)
		if (jcase_of(b->checks[i].status) == want)
			return false;
	return true;
}

struct jcount {
	size_t tests, failures, errors, skipped;
};

static void count_case(struct jcount *c, enum jcase k)
{
	c->tests++;
	if (k == J_FAILURE)
		c->failures++;
	else if (k == J_ERROR)
		c->errors++;
	else if (k == J_SKIPPED)
		c->skipped++;
}

static struct jcount count_bench(const struct gb_bench_result *b)
{
	struct jcount c = { 0, 0, 0, 0 };

	for (size_t i = 0; i < b->n_checks; i++)
		count_case(&c, jcase_of(b->checks[i].status));
	if (needs_status_case(b))
		count_case(&c, jcase_of(b->status));
	return c;
}

static void attr(FILE *out, const char *name, const char *value)
{
	fprintf(out, " %s=\"", name);
	gb_fmt_xml(out, value ? value : "", 1);
	fputc('"', out);
}

static void attr_counts(FILE *out, const struct jcount *c)
{
	fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\"", c->tests,
		c->failures, c->errors, c->skipped);
}

static void attr_time(FILE *out, double seconds)
{
	fprintf(out, " time=\"%.3f\"", isfinite(seconds) && seconds > 0 ? seconds : 0.0);
}

/* <failure message="..." type="failed">message + detail</failure>, or <error>, <skipped> */
static void case_outcome(FILE *out, enum jcase k, enum gb_status st, const char *message,
			 const char *detail)
{
	static const char *const tags[] = { NULL, "failure", "error", "skipped" };

	if (k == J_PASS)
		return;
	fprintf(out, "\t\t\t<%s", tags[k]);
	attr(out, "message", message);
	attr(out, "type", gb_status_name(st));
	if (k == J_SKIPPED || !detail) {
		fputs("/>\n", out);
		return;
	}
	fputc('>', out);
	gb_fmt_xml(out, detail, 0);
	fprintf(out, "</%s>\n", tags[k]);
}

static void check_case(FILE *out, const struct gb_bench_result *b, const struct gb_check *c)
{
	char name[256], obs[48], thr[48], *detail;
	enum jcase k = jcase_of(c->status);

	if (c->device >= 0)
		snprintf(name, sizeof(name), "%s (GPU %d)", c->name, c->device);
	else
		snprintf(name, sizeof(name), "%s", c->name);
	fputs("\t\t<testcase", out);
	attr(out, "classname", b->name);
	attr(out, "name", name);
	fputs(" time=\"0\">\n", out);
	gb_fmt_human(obs, sizeof(obs), c->observed);
	gb_fmt_human(thr, sizeof(thr), c->threshold);
	detail = gb_strdupf("%s\nobserved: %s, threshold: %s, severity: %s",
			    c->message ? c->message : "", obs, thr, gb_severity_name(c->severity));
	case_outcome(out, k, c->status, c->message, detail);
	free(detail);
	if (c->status == GB_STATUS_WARNING) {
		fputs("\t\t\t<system-out>warning: ", out);
		gb_fmt_xml(out, c->message, 0);
		fputs("</system-out>\n", out);
	}
	fputs("\t\t</testcase>\n", out);
}

static void status_case(FILE *out, const struct gb_bench_result *b)
{
	const char *why = b->reason ? b->reason : gb_status_name(b->status);

	fputs("\t\t<testcase", out);
	attr(out, "classname", b->name);
	attr(out, "name", b->n_checks ? "status" : b->name);
	attr_time(out, b->duration_s);
	fputs(">\n", out);
	case_outcome(out, jcase_of(b->status), b->status, why, why);
	fputs("\t\t</testcase>\n", out);
}

/* <property name="name" value="value"/>, value escaped */
static void property(FILE *out, const char *name, const char *value)
{
	fputs("\t\t\t<property", out);
	attr(out, "name", name);
	attr(out, "value", value);
	fputs("/>\n", out);
}

/* simulated, and the machine file when there is one: numbers not measured say so */
static void simulated_properties(FILE *out, const struct gb_run *run)
{
	property(out, "simulated", gb_fmt_bool(run->host.simulated));
	if (run->host.simulated && run->host.simulated_machine)
		property(out, "simulated_machine", run->host.simulated_machine);
}

/* metric values as properties: what CI shows next to a test suite */
static void properties(FILE *out, const struct gb_run *run, const struct gb_bench_result *b)
{
	char name[256], val[96];

	fputs("\t\t<properties>\n", out);
	property(out, "status", gb_status_name(b->status));
	simulated_properties(out, run);
	for (size_t i = 0; i < b->n_metrics; i++) {
		const struct gb_metric *m = &b->metrics[i];
		const char *dev = gb_fmt_device_name(run, m->device);

		if (m->device >= 0)
			snprintf(name, sizeof(name), "%s.gpu%d", m->name, m->device);
		else
			snprintf(name, sizeof(name), "%s", m->name);
		gb_fmt_human(val, sizeof(val), m->value);
		fputs("\t\t\t<property", out);
		attr(out, "name", name);
		fputs(" value=\"", out);
		gb_fmt_xml(out, val, 1);
		fputc(' ', out);
		gb_fmt_xml(out, m->unit ? m->unit : "", 1);
		if (dev) {
			fputs(" (", out);
			gb_fmt_xml(out, dev, 1);
			fputc(')', out);
		}
		fputs("\"/>\n", out);
	}
	fputs("\t\t</properties>\n", out);
}

static void suite(FILE *out, const struct gb_run *run, const struct gb_bench_result *b)
{
	struct jcount c = count_bench(b);

	fputs("\t<testsuite", out);
	attr(out, "name", b->name);
	attr_counts(out, &c);
	attr_time(out, b->duration_s);
	attr(out, "hostname", run->host.hostname ? run->host.hostname : "unknown");
	if (run->started_at)
		attr(out, "timestamp", run->started_at);
	fputs(">\n", out);
	properties(out, run, b);
	for (size_t i = 0; i < b->n_checks; i++)
		check_case(out, b, &b->checks[i]);
	if (needs_status_case(b))
		status_case(out, b);
	fputs("\t</testsuite>\n", out);
}

/* a run where nothing ran (no GPU) is one suite saying why, never an empty pass */
static void run_suite(FILE *out, const struct gb_run *run)
{
	struct jcount c = { 0, 0, 0, 0 };
	const char *why = run->reason ? run->reason : gb_status_name(run->verdict);

	count_case(&c, jcase_of(run->verdict));
	fputs("\t<testsuite", out);
	attr(out, "name", run->command ? run->command : "gpubench");
	attr_counts(out, &c);
	fputs(" time=\"0\">\n\t\t<properties>\n", out);
	simulated_properties(out, run);
	fputs("\t\t</properties>\n\t\t<testcase", out);
	attr(out, "classname", "gpubench");
	attr(out, "name", "run");
	fputs(" time=\"0\">\n", out);
	case_outcome(out, jcase_of(run->verdict), run->verdict, why, why);
	fputs("\t\t</testcase>\n\t</testsuite>\n", out);
}

int gb_report_junit(const struct gb_run *run, FILE *out)
{
	struct jcount total = { 0, 0, 0, 0 };
	double time_s = 0;
	char name[128];

	for (size_t i = 0; i < run->n_benches; i++) {
		struct jcount c = count_bench(&run->benches[i]);

		total.tests += c.tests;
		total.failures += c.failures;
		total.errors += c.errors;
		total.skipped += c.skipped;
		if (isfinite(run->benches[i].duration_s))
			time_s += run->benches[i].duration_s;
	}
	if (run->n_benches == 0)
		count_case(&total, jcase_of(run->verdict));
	snprintf(name, sizeof(name), "gpubench %s", run->command ? run->command : "report");
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", out);
	attr(out, "name", name);
	attr_counts(out, &total);
	attr_time(out, time_s);
	fputs(">\n", out);
	if (run->n_benches == 0)
		run_suite(out, run);
	for (size_t i = 0; i < run->n_benches; i++)
		suite(out, run, &run->benches[i]);
	fputs("</testsuites>\n", out);
	return gb_fmt_finish(out);
}

/* ------------------------------------------------------------------------ */
/* gpubench compare as JUnit: one test case per row, a failure per regression */

/* What a compare row is in JUnit: only a regression fails; a row on one side is skipped. */
static enum jcase cmp_case(const struct gb_compare *c, const struct gb_cmp_row *r)
{
	if (r->cls == GB_CMP_REGRESSION && !c->different_models)
		return J_FAILURE;
	if (r->cls == GB_CMP_ONLY_A)
		return J_SKIPPED;
	return J_PASS;
}

static enum jcase missing_case(const struct gb_compare *c)
{
	return c->allow_missing ? J_SKIPPED : J_FAILURE;
}

/* the benchmark of a compare finding ("run" for B's run as a whole, "gpu" for a GPU) */
static const char *missing_bench(const struct gb_cmp_missing *m)
{
	return gb_cmp_missing_subject(m);
}

/* the suites in order of first appearance: rows' benchmarks, then findings' */
static size_t cmp_suites(const struct gb_compare *c, const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_rows + c->n_missing + c->n_na; i++) {
		const char *b = i < c->n_rows ? c->rows[i].bench
				: i < c->n_rows + c->n_missing
					? missing_bench(&c->missing[i - c->n_rows])
					: missing_bench(&c->na[i - c->n_rows - c->n_missing]);
		bool seen = false;

		for (size_t k = 0; k < n && !seen; k++)
			seen = !strcmp(names[k], b);
		if (!seen && n < max)
			names[n++] = b;
	}
	return n;
}

static struct jcount cmp_count(const struct gb_compare *c, const char *bench)
{
	struct jcount k = { 0, 0, 0, 0 };

	for (size_t i = 0; i < c->n_rows; i++)
		if (!bench || !strcmp(c->rows[i].bench, bench))
			count_case(&k, cmp_case(c, &c->rows[i]));
	for (size_t i = 0; i < c->n_missing; i++)
		if (!bench || !strcmp(missing_bench(&c->missing[i]), bench))
			count_case(&k, missing_case(c));
	for (size_t i = 0; i < c->n_na; i++)
		if (!bench || !strcmp(missing_bench(&c->na[i]), bench))
			count_case(&k, J_SKIPPED);
	return k;
}

/* "tflops_bf16 (GPU 0 NVIDIA H100 80GB HBM3; dtype=bf16)" */
static char *row_name(const struct gb_cmp_row *r)
{
	int dev = r->a.device >= 0 ? r->a.device : r->b.device;
	char *gpu = dev >= 0 ? gb_strdupf("GPU %d %s", dev, r->model) : gb_strdup(r->model);
	char *s = r->params[0] ? gb_strdupf("%s (%s; %s)", r->metric, gpu, r->params)
			       : gb_strdupf("%s (%s)", r->metric, gpu);

	free(gpu);
	return s;
}

static void cmp_row_case(FILE *out, const struct gb_compare *c, const struct gb_cmp_row *r)
{
	char va[48], vb[48], *name = row_name(r), *msg;
	enum jcase k = cmp_case(c, r);

	gb_fmt_human(va, sizeof(va), r->a.value);
	gb_fmt_human(vb, sizeof(vb), r->b.value);
	if (isfinite(r->change_pct))
		msg = gb_strdupf("%s: A %s, B %s %s (%+.1f%%; tolerance %.1f%%, noise %.4g)",
				 gb_cmp_class_name(r->cls, c->different_models), va, vb,
				 r->unit ? r->unit : "", r->change_pct, r->tolerance * 100,
				 r->noise);
	else
		msg = gb_strdupf("%s: A %s, B %s %s", gb_cmp_class_name(r->cls, c->different_models),
				 va, vb, r->unit ? r->unit : "");
	fputs("\t\t<testcase", out);
	attr(out, "classname", r->bench);
	attr(out, "name", name);
	fputs(" time=\"0\">\n", out);
	case_outcome(out, k, k == J_FAILURE ? GB_STATUS_FAILED : GB_STATUS_SKIPPED, msg, msg);
	if (k == J_PASS) {
		fputs("\t\t\t<system-out>", out);
		gb_fmt_xml(out, msg, 0);
		fputs("</system-out>\n", out);
	}
	fputs("\t\t</testcase>\n", out);
	free(msg);
	free(name);
}

static void cmp_missing_case(FILE *out, const struct gb_compare *c, const struct gb_cmp_missing *m)
{
	fputs("\t\t<testcase", out);
	attr(out, "classname", missing_bench(m));
	attr(out, "name", "complete in B");
	fputs(" time=\"0\">\n", out);
	case_outcome(out, missing_case(c), m->status, m->message, m->message);
	fputs("\t\t</testcase>\n", out);
}

/* across models: what cannot exist on one side's GPUs, a skipped case "applies to B" */
static void cmp_na_case(FILE *out, const struct gb_cmp_missing *m)
{
	fputs("\t\t<testcase", out);
	attr(out, "classname", missing_bench(m));
	attr(out, "name", m->side == 'A' ? "applies to A" : "applies to B");
	fputs(" time=\"0\">\n", out);
	case_outcome(out, J_SKIPPED, GB_STATUS_SKIPPED, m->message, m->message);
	fputs("\t\t</testcase>\n", out);
}

/* compare refuses a simulated report against a measured one: both sides are the same */
static void cmp_simulated_properties(FILE *out, const struct gb_compare *c)
{
	property(out, "simulated", gb_fmt_bool(c->simulated));
	if (c->simulated && c->sim_a)
		property(out, "simulated_machine_a", c->sim_a);
	if (c->simulated && c->sim_b)
		property(out, "simulated_machine_b", c->sim_b);
}

int gb_compare_junit(const struct gb_compare *c, FILE *out)
{
	size_t max = c->n_rows + c->n_missing + c->n_na + 1;
	const char **suites = gb_xrealloc(NULL, sizeof(char *) * max);
	size_t n = cmp_suites(c, suites, max);
	struct jcount total = cmp_count(c, NULL);
	char *title = gb_strdupf("gpubench compare %s %s", c->name_a, c->name_b);

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", out);
	attr(out, "name", title);
	attr_counts(out, &total);
	fputs(" time=\"0\">\n", out);
	for (size_t s = 0; s < n; s++) {
		struct jcount k = cmp_count(c, suites[s]);

		fputs("\t<testsuite", out);
		attr(out, "name", suites[s]);
		attr_counts(out, &k);
		fputs(" time=\"0\"", out);
		attr(out, "hostname", c->host_b ? c->host_b : "unknown");
		fputs(">\n\t\t<properties>\n", out);
		property(out, "a", c->name_a);
		property(out, "b", c->name_b);
		property(out, "mode", c->different_models ? "different_models" : "same_models");
		cmp_simulated_properties(out, c);
		fputs("\t\t</properties>\n", out);
		for (size_t i = 0; i < c->n_missing; i++)
			if (!strcmp(missing_bench(&c->missing[i]), suites[s]))
				cmp_missing_case(out, c, &c->missing[i]);
		for (size_t i = 0; i < c->n_na; i++)
			if (!strcmp(missing_bench(&c->na[i]), suites[s]))
				cmp_na_case(out, &c->na[i]);
		for (size_t i = 0; i < c->n_rows; i++)
			if (!strcmp(c->rows[i].bench, suites[s]))
				cmp_row_case(out, c, &c->rows[i]);
		fputs("\t</testsuite>\n", out);
	}
	fputs("</testsuites>\n", out);
	free(title);
	free(suites);
	return gb_fmt_finish(out);
}
