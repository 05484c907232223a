/* SPDX-License-Identifier: MIT */
/* run_summary.c - run's last screen: counts and failures by cause (run_summary.h). */
#include "run_summary.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

bool gb_check_is_throughput(const char *name)
{
	return name && (ends_with(name, "_efficiency") || ends_with(name, "_same_model") ||
			strstr(name, "peer") != NULL);
}

static bool check_failed(const struct gb_check *c)
{
	return c->status == GB_STATUS_FAILED || c->status == GB_STATUS_ERROR;
}

void gb_run_tally(const struct gb_run *run, struct gb_run_tally *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		t->steps++;
		if (b->status == GB_STATUS_FAILED || b->status == GB_STATUS_ERROR)
			t->steps_failed++;
		else if (b->status == GB_STATUS_PASSED || b->status == GB_STATUS_WARNING)
			t->steps_passed++;
		else
			t->steps_skipped++;
		for (size_t j = 0; j < b->n_checks; j++) {
			const struct gb_check *c = &b->checks[j];

			t->passed += c->status == GB_STATUS_PASSED;
			t->failed += check_failed(c);
			t->skipped += c->status == GB_STATUS_SKIPPED;
			t->warnings += c->status == GB_STATUS_WARNING;
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* " (gemm 8, bandwidth 20)": how many of the device's failed checks each benchmark has */
static void per_bench(const struct gb_run *run, int device, bool throughput, const char *name,
		      char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < run->n_benches && used < len; i++) {
		const struct gb_bench_result *b = &run->benches[i];
		size_t n = 0;

		for (size_t j = 0; j < b->n_checks; j++) {
			const struct gb_check *c = &b->checks[j];

			n += check_failed(c) && c->device == device &&
			     (name ? !strcmp(c->name, name)
				   : gb_check_is_throughput(c->name) == throughput);
		}
		if (n)
			used += (size_t)snprintf(buf + used, len - used, "%s%s %zu",
						 used ? ", " : " (", b->name, n);
	}
	if (used && used < len)
		snprintf(buf + used, len - used, ")");
}

/* The device's failed checks: how many, how many about throughput, the same-model shortfalls. */
struct dev_failures {
	size_t n, n_throughput, n_slow;
	double *slow; /* observed shortfalls of failed *_same_model checks */
};

static void failures_of(const struct gb_run *run, int device, struct dev_failures *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_checks; j++) {
			const struct gb_check *c = &b->checks[j];

			if (!check_failed(c) || c->device != device)
				continue;
			f->n++;
			f->n_throughput += gb_check_is_throughput(c->name);
			if ((ends_with(c->name, "_same_model") || strstr(c->name, "peer")) &&
			    isfinite(c->observed) && c->observed > 0 && c->observed < 1) {
				f->slow = realloc(f->slow, (f->n_slow + 1) * sizeof(double));
				if (f->slow)
					f->slow[f->n_slow++] = c->observed;
			}
		}
	}
}

static void gpu_label(char *buf, size_t len, int device)
{
	if (device >= 0)
		snprintf(buf, len, "GPU %d", device);
	else
		snprintf(buf, len, "the machine");
}

/* one line for the device's throughput failures */
static void print_throughput(FILE *out, const struct gb_run *run, int device,
			     struct dev_failures *f)
{
	char gpu[32], benches[256];

	gpu_label(gpu, sizeof(gpu), device);
	per_bench(run, device, true, NULL, benches, sizeof(benches));
	if (f->n_slow) {
		qsort(f->slow, f->n_slow, sizeof(double), cmp_double);
		fprintf(out, "  %s is %.0f%% slower than its peers: %zu check%s%s\n", gpu,
			100 * f->slow[f->n_slow / 2], f->n_throughput,
			f->n_throughput == 1 ? "" : "s", benches);
	} else {
		fprintf(out, "  %s is below its peak throughput: %zu check%s%s\n", gpu,
			f->n_throughput, f->n_throughput == 1 ? "" : "s", benches);
	}
}

/* whether an earlier failed check of the device has this name (it has its line already) */
static bool name_seen(const struct gb_run *run, int device, size_t bi, size_t ci,
		      const char *name)
{
	for (size_t i = 0; i <= bi; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < (i == bi ? ci : b->n_checks); j++)
			if (check_failed(&b->checks[j]) && b->checks[j].device == device &&
			    !strcmp(b->checks[j].name, name))
				return true;
	}
	return false;
}

/* one line per other kind of failed check of the device: its name, count, first message */
static void print_other(FILE *out, const struct gb_run *run, int device)
{
	char gpu[32], benches[256];

	gpu_label(gpu, sizeof(gpu), device);
	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_checks; j++) {
			const struct gb_check *c = &b->checks[j];
			size_t n = 0;

			if (!check_failed(c) || c->device != device ||
			    gb_check_is_throughput(c->name) || name_seen(run, device, i, j, c->name))
				continue;
			per_bench(run, device, false, c->name, benches, sizeof(benches));
			for (size_t k = 0; k < run->n_benches; k++)
				for (size_t l = 0; l < run->benches[k].n_checks; l++)
					n += check_failed(&run->benches[k].checks[l]) &&
					     run->benches[k].checks[l].device == device &&
					     !strcmp(run->benches[k].checks[l].name, c->name);
			fprintf(out, "  %s: %s failed: %zu check%s%s: %s\n", gpu, c->name, n,
				n == 1 ? "" : "s", benches, c->message ? c->message : "");
		}
	}
}

/* every device a failed check names, ascending, then -1 (none) last */
static void print_causes(FILE *out, const struct gb_run *run)
{
	int hi = -1;

	for (size_t i = 0; i < run->n_benches; i++)
		for (size_t j = 0; j < run->benches[i].n_checks; j++)
			if (run->benches[i].checks[j].device > hi)
				hi = run->benches[i].checks[j].device;
	for (int d = 0; d <= hi + 1; d++) {
		int device = d <= hi ? d : -1;
		struct dev_failures f;

		failures_of(run, device, &f);
		if (f.n_throughput)
			print_throughput(out, run, device, &f);
		if (f.n > f.n_throughput)
			print_other(out, run, device);
		free(f.slow);
	}
	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];
		bool has_failed_check = false;

		for (size_t j = 0; j < b->n_checks; j++)
			has_failed_check |= check_failed(&b->checks[j]);
		if ((b->status == GB_STATUS_ERROR || b->status == GB_STATUS_FAILED) &&
		    !has_failed_check)
			fprintf(out, "  %s %s: %s\n", b->name,
				b->status == GB_STATUS_ERROR ? "could not run" : "failed",
				b->reason ? b->reason : "no reason given");
	}
}

void gb_run_summary_print(const struct gb_run *run, FILE *out)
{
	struct gb_run_tally t;

	gb_run_tally(run, &t);
	fprintf(out, "\nsteps: %zu: %zu passed, %zu failed, %zu skipped\n", t.steps,
		t.steps_passed, t.steps_failed, t.steps_skipped);
	fprintf(out, "checks: %zu passed, %zu failed, %zu skipped, %zu warnings\n", t.passed,
		t.failed, t.skipped, t.warnings);
	if (t.steps_failed || t.failed) {
		fprintf(out, "failed, by cause:\n");
		print_causes(out, run);
	}
}
