/* SPDX-License-Identifier: MIT */
/*
 * prom_names.c - report units in Prometheus base units, and the family name
 * of each metric (prom_names.h). The table is every unit gpubench's
 * benchmarks write; tests/sim/prom checks that a report of every benchmark
 * has no other.
 */
#include "prom_names.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

/* A unit, its base unit, and the words that name it inside metric names. */
struct unit_row {
	struct gb_prom_unit u;
	const char *words[4];
};

/*
 * FLOP/s has no base unit in the conventions; "flops" is what the theory
 * gauges used already (gpubench_gpu_peak_flops), int8 rates are "ops".
 * A speedup ("x") is a ratio that may exceed 1; counts have no unit word.
 */
static const struct unit_row units[] = {
	{ { "TFLOP/s", 1e12, "flops" }, { "tflops", "tflop" } },
	{ { "GFLOP/s", 1e9, "flops" }, { "gflops", "gflop" } },
	{ { "TOP/s", 1e12, "ops" }, { "tops", "tflops" } },
	{ { "TB/s", 1e12, "bytes_per_second" }, { "tbps", "tb" } },
	{ { "GB/s", 1e9, "bytes_per_second" }, { "gbps", "gb", "bw" } },
	{ { "MB/s", 1e6, "bytes_per_second" }, { "mbps", "mb" } },
	{ { "s", 1, "seconds" }, { "s", "sec", "seconds" } },
	{ { "ms", 1e-3, "seconds" }, { "ms" } },
	{ { "us", 1e-6, "seconds" }, { "us" } },
	{ { "ns", 1e-9, "seconds" }, { "ns" } },
	{ { "%", 0.01, "ratio" }, { "pct", "percent" } },
	{ { "fraction", 1, "ratio" }, { "fraction", "ratio" } },
	{ { "ratio", 1, "ratio" }, { "ratio", "fraction" } },
	{ { "x", 1, "ratio" }, { "x" } },
	{ { "C", 1, "celsius" }, { "c", "celsius" } },
	{ { "W", 1, "watts" }, { "w", "watts" } },
	{ { "MHz", 1e6, "hertz" }, { "mhz" } },
	{ { "B", 1, "bytes" }, { "b", "bytes" } },
	{ { "bytes", 1, "bytes" }, { "b", "bytes" } },
	{ { "count", 1, "" }, { "count" } },
	{ { "1", 1, "" }, { NULL } },
	{ { "", 1, "" }, { NULL } },
};

const struct gb_prom_unit *gb_prom_unit_of(const char *unit)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(units[i].u.unit, unit ? unit : ""))
			return &units[i].u;
	return NULL;
}

static const struct unit_row *row_of(const struct gb_prom_unit *u)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (&units[i].u == u)
			return &units[i];
	return NULL;
}

static int is_unit_word(const struct unit_row *r, const char *w, size_t n)
{
	for (size_t i = 0; r && i < 4 && r->words[i]; i++)
		if (strlen(r->words[i]) == n && !strncmp(r->words[i], w, n))
			return 1;
	return 0;
}

/* lowercase, [a-z0-9_] kept, anything else '_' */
static void sanitize(char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		*s = isalnum(c) ? (char)tolower(c) : '_';
	}
}

/* s's words (split at '_') without r's unit words, joined by '_' again, into out */
static void drop_unit_words(const char *s, const struct unit_row *r, char *out)
{
	size_t o = 0;

	while (*s) {
		size_t n = strcspn(s, "_");

		if (n && !is_unit_word(r, s, n)) {
			if (o)
				out[o++] = '_';
			memcpy(out + o, s, n);
			o += n;
		}
		s += n;
		if (*s == '_')
			s++;
	}
	out[o] = '\0';
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail) && (n == t || s[n - t - 1] == '_');
}

/* families of the report's own (prometheus.c): a benchmark's metric never takes one */
static const char *const reserved[] = {
	"gpubench_gpu_",	"gpubench_check_", "gpubench_benchmark_", "gpubench_verdict_",
	"gpubench_exit_",	"gpubench_report_", "gpubench_last_run_", "gpubench_build_",
	"gpubench_run_",	"gpubench_compare_",
};

/* counts whose name is only "what" + count: what is counted, in the plural */
static const char *const renamed[][2] = {
	{ "xid_count", "xid_events" },
	{ "nan_count", "nan_elements" },
};

char *gb_prom_metric_family(const char *bench, const char *metric, const struct gb_prom_unit *u,
			    int keep_units)
{
	static const char *const tails[] = { "total", "count", "sum", "bucket", "info" };
	char *name, *stem, *s;

	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (!strcmp(metric, renamed[i][0]))
			metric = renamed[i][1];
	name = gb_strdupf("%s", metric);

	sanitize(name);
	stem = gb_xrealloc(NULL, strlen(name) + 1);
	drop_unit_words(name, keep_units || !u ? NULL : row_of(u), stem);
	/* a name that was its unit alone ("tflops") is the benchmark's: gpubench_stress_flops */
	s = gb_strdupf("gpubench_%s%s%s", bench, *stem ? "_" : "", stem);
	sanitize(s + 9);
	free(name);
	free(stem);
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
		if (!strncmp(s, reserved[i], strlen(reserved[i]))) {
			char *t = gb_strdupf("gpubench_bench_%s", s + 9);

			free(s);
			s = t;
			break;
		}
	}
	if (u && *u->suffix && !ends_with(s, u->suffix)) {
		char *t = gb_strdupf("%s_%s", s, u->suffix);

		free(s);
		s = t;
	}
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		if (ends_with(s, tails[i])) {
			char *t = gb_strdupf("%s_value", s);

			free(s);
			return t;
		}
	}
	return s;
}
