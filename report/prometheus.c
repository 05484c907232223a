/* SPDX-License-Identifier: MIT */
/*
 * prometheus.c - the report in Prometheus text exposition format (0.0.4),
 * for node_exporter's textfile collector (gpubench ... -o DIR/gpubench.prom:
 * outfile.c writes DIR/gpubench.prom.tmp.XXXXXX and renames it, and the
 * collector reads only *.prom). Names follow Prometheus' conventions
 * (docs/formats.md lists them): a gpubench_ prefix, base units in the name
 * (prom_names.c: seconds, bytes_per_second, flops, ratio, hertz), every
 * family a gauge (a value of the last run, so none ends in _total), and
 * the GPU as labels gpu (CUDA index), uuid and model.
 *
 * Metric <metric> of benchmark <bench> is gpubench_<bench>_<metric without
 * its unit words>_<base unit>, its value converted; a check is the state
 * set gpubench_check_status{benchmark,check,gpu,...,status} (1 on its
 * status, 0 on the other four), a benchmark and the verdict the same over
 * all seven statuses; the run's start is gpubench_last_run_timestamp_seconds.
 * All samples of a family are written together under one # HELP and
 * # TYPE, and no two samples of a family have the same labels (params,
 * then repeat, tell repeats apart).
 *
 * Every GPU the report describes is exported as gpubench_gpu_* gauges:
 * PCIe generation and width, current and max, NVLink links up, power
 * limit, ECC, clocks, SMs, memory, and the theoretical peaks in FLOP/s and
 * bytes/s; the topology as gpubench_gpu_p2p_access{gpu,...,peer,link}.
 * Unknown values are left out, never written as 0 or -1, so node_exporter
 * can alert on a link below its maximum.
 *
 * Every sample's last label is simulated="true" or "false" (host.simulated):
 * once scraped, a sample is far from the comment line at the top of the
 * file, and a simulated number must not pass for a measured one in a
 * dashboard or an alert. A label, not a separate series, so every query
 * can filter on it (simulated="false") without a join.
 *
 * gb_compare_prometheus writes a comparison: gpubench_compare_value{side},
 * _ratio and _regression per row, _incomplete per reason B is incomplete,
 * and _failed and _exit_code for the gate, each with the simulated label
 * of both reports (compare refuses to mix them).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare.h"
#include "report/format_util.h"
#include "report/writers.h"
#include "prom_names.h"
#include "theory.h"

/* label values escape backslash, double quote and newline */
static void label_value(FILE *out, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '"')
			fputs("\\\"", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else
			fputc(*p, out);
	}
}

/* HELP text escapes backslash and newline only */
static void help_text(FILE *out, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else
			fputc(*p, out);
	}
}

/* ,name="value" (the first label writes no comma: *first tracks it) */
static void label(FILE *out, bool *first, const char *name, const char *value)
{
	fprintf(out, "%s%s=\"", *first ? "" : ",", name);
	label_value(out, value);
	fputc('"', out);
	*first = false;
}

/* the last label of every sample, and the end of the label set */
static void end_labels(FILE *out, bool *first, bool simulated)
{
	label(out, first, "simulated", gb_fmt_bool(simulated));
	fputc('}', out);
}

/* family{simulated="..."}: a sample with no other label */
static void bare_sample(FILE *out, const char *family, bool simulated)
{
	bool first = true;

	fprintf(out, "%s{", family);
	end_labels(out, &first, simulated);
}

/* gpu (the CUDA index), uuid and model of a GPU of the report; nothing for device -1 */
static void device_labels(FILE *out, bool *first, const struct gb_run *run, int device)
{
	const struct gb_device_info *d = gb_fmt_device(run, device);
	char idx[16];

	if (device < 0)
		return;
	snprintf(idx, sizeof(idx), "%d", device);
	label(out, first, "gpu", idx);
	if (d && d->uuid)
		label(out, first, "uuid", d->uuid);
	if (d && d->name)
		label(out, first, "model", d->name);
}

static void value(FILE *out, double v)
{
	char buf[48];

	gb_fmt_exact(buf, sizeof(buf), v);
	fprintf(out, " %s\n", buf);
}

/* One metric sample to print under its family. */
struct entry {
	char *family;
	const struct gb_bench_result *b;
	const struct gb_metric *m;
	const struct gb_prom_unit *u;
	bool dup;   /* same family and GPU as another: told apart by params */
	int repeat; /* same family, GPU and params as an earlier one: its count, else 0 */
};

static void metric_sample(FILE *out, const struct gb_run *run, const struct entry *e)
{
	bool first = true;

	fputs(e->family, out);
	fputc('{', out);
	device_labels(out, &first, run, e->m->device);
	if (e->dup) {
		char *key = gb_params_key(e->b->params);

		label(out, &first, "params", key);
		free(key);
	}
	if (e->repeat) {
		char n[16];

		snprintf(n, sizeof(n), "%d", e->repeat + 1);
		label(out, &first, "repeat", n);
	}
	end_labels(out, &first, run->host.simulated);
	value(out, e->m->value * (e->u ? e->u->scale : 1));
}

static void family_header(FILE *out, const struct entry *e)
{
	fprintf(out, "# HELP %s ", e->family);
	if (e->m->description) {
		help_text(out, e->m->description);
	} else {
		help_text(out, e->b->name);
		fputs(" metric", out);
	}
	/* the report's name and unit: what a reader of the JSON knows it by */
	fputs(" (", out);
	help_text(out, e->m->name);
	if (e->u && e->u->scale != 1) {
		fprintf(out, " in %s x %g", e->u->unit, e->u->scale);
	} else if (e->m->unit && *e->m->unit) {
		fputs(" in ", out);
		help_text(out, e->m->unit);
	}
	fprintf(out, ")\n# TYPE %s gauge\n", e->family);
}

static void name_entries(struct entry *entries, size_t n, bool keep_units)
{
	for (size_t i = 0; i < n; i++) {
		free(entries[i].family);
		entries[i].family = gb_prom_metric_family(entries[i].b->name, entries[i].m->name,
							  entries[i].u, keep_units);
	}
}

/* Two metrics of different names that lose their unit words to one family keep them. */
static void split_families(struct entry *entries, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < i; k++) {
			struct entry *a = &entries[k], *b = &entries[i];

			if (strcmp(a->family, b->family) || !strcmp(a->m->name, b->m->name))
				continue;
			free(a->family);
			free(b->family);
			a->family = gb_prom_metric_family(a->b->name, a->m->name, a->u, 1);
			b->family = gb_prom_metric_family(b->b->name, b->m->name, b->u, 1);
		}
	}
}

static bool same_params(const struct gb_bench_result *a, const struct gb_bench_result *b)
{
	char *ka = gb_params_key(a->params), *kb = gb_params_key(b->params);
	bool same = !strcmp(ka, kb);

	free(ka);
	free(kb);
	return same;
}

/* params where one family has one GPU twice; repeat where even params are the same */
static void mark_duplicates(struct entry *entries, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < i; k++) {
			struct entry *a = &entries[k], *b = &entries[i];

			if (strcmp(a->family, b->family) || a->m->device != b->m->device)
				continue;
			a->dup = b->dup = true;
			if (a->b == b->b || same_params(a->b, b->b))
				b->repeat++;
		}
	}
}

static size_t collect(const struct gb_run *run, struct entry *entries)
{
	size_t n = 0;

	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_metrics; j++) {
			struct entry *e = &entries[n];

			/* an unknown value is left out: NaN would read as a measurement */
			if (!isfinite(b->metrics[j].value))
				continue;
			memset(e, 0, sizeof(*e));
			e->b = b;
			e->m = &b->metrics[j];
			e->u = gb_prom_unit_of(e->m->unit);
			n++;
		}
	}
	name_entries(entries, n, false);
	split_families(entries, n);
	mark_duplicates(entries, n);
	return n;
}

static void print_metrics(FILE *out, const struct gb_run *run)
{
	size_t total = 0, n;
	struct entry *entries;
	bool *done;

	for (size_t i = 0; i < run->n_benches; i++)
		total += run->benches[i].n_metrics;
	entries = gb_xrealloc(NULL, sizeof(*entries) * (total ? total : 1));
	done = gb_xrealloc(NULL, sizeof(*done) * (total ? total : 1));
	n = collect(run, entries);
	memset(done, 0, sizeof(*done) * (total ? total : 1));
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		family_header(out, &entries[i]);
		for (size_t j = i; j < n; j++) {
			if (!done[j] && !strcmp(entries[j].family, entries[i].family)) {
				metric_sample(out, run, &entries[j]);
				done[j] = true;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		free(entries[i].family);
	free(entries);
	free(done);
}

static void gauge_header(FILE *out, const char *family, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", family, help, family);
}

/* ---- statuses as state sets: one series per status, 1 on the current one ---- */

/* the statuses a check can have; a benchmark and the verdict can have all seven */
static const enum gb_status check_states[] = { GB_STATUS_PASSED, GB_STATUS_WARNING,
					       GB_STATUS_FAILED, GB_STATUS_SKIPPED,
					       GB_STATUS_ERROR };

static int params_dup_bench(const struct gb_run *run, size_t i)
{
	for (size_t k = 0; k < run->n_benches; k++)
		if (k != i && !strcmp(run->benches[k].name, run->benches[i].name))
			return 1;
	return 0;
}

/* how many earlier checks of the run have this check's benchmark name, name and GPU */
static int check_repeat(const struct gb_run *run, size_t bi, size_t ci, bool *dup)
{
	const struct gb_bench_result *b = &run->benches[bi];
	const struct gb_check *c = &b->checks[ci];
	int before = 0;

	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *o = &run->benches[i];

		if (strcmp(o->name, b->name))
			continue;
		for (size_t j = 0; j < o->n_checks; j++) {
			if ((i == bi && j == ci) || strcmp(o->checks[j].name, c->name) ||
			    o->checks[j].device != c->device)
				continue;
			*dup = true;
			if ((i < bi || (i == bi && j < ci)) && (i == bi || same_params(o, b)))
				before++;
		}
	}
	return before;
}

static void check_labels(FILE *out, bool *first, const struct gb_run *run, size_t bi, size_t ci)
{
	const struct gb_bench_result *b = &run->benches[bi];
	const struct gb_check *c = &b->checks[ci];
	bool dup = false;
	int repeat = check_repeat(run, bi, ci, &dup);

	label(out, first, "benchmark", b->name);
	label(out, first, "check", c->name);
	device_labels(out, first, run, c->device);
	if (dup) {
		char *key = gb_params_key(b->params);

		label(out, first, "params", key);
		free(key);
	}
	if (repeat) {
		char n[16];

		snprintf(n, sizeof(n), "%d", repeat + 1);
		label(out, first, "repeat", n);
	}
}

static void print_checks(FILE *out, const struct gb_run *run)
{
	bool header = false;

	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_checks; j++) {
			if (!header)
				gauge_header(out, "gpubench_check_status",
					     "the status of a check: one series per status (passed, "
					     "warning, failed, skipped, error), 1 on the check's own, "
					     "0 on the others; skipped and error are not a pass");
			header = true;
			for (size_t s = 0; s < sizeof(check_states) / sizeof(check_states[0]); s++) {
				bool first = true;

				fputs("gpubench_check_status{", out);
				check_labels(out, &first, run, i, j);
				label(out, &first, "status", gb_status_name(check_states[s]));
				end_labels(out, &first, run->host.simulated);
				fprintf(out, " %d\n", b->checks[j].status == check_states[s]);
			}
		}
	}
}

static void bench_labels(FILE *out, bool *first, const struct gb_run *run, size_t i)
{
	label(out, first, "benchmark", run->benches[i].name);
	if (params_dup_bench(run, i)) {
		char *key = gb_params_key(run->benches[i].params);
		char n[24];
		int repeat = 0;

		label(out, first, "params", key);
		free(key);
		for (size_t k = 0; k < i; k++)
			repeat += !strcmp(run->benches[k].name, run->benches[i].name) &&
				  same_params(&run->benches[k], &run->benches[i]);
		if (repeat) {
			snprintf(n, sizeof(n), "%d", repeat + 1);
			label(out, first, "repeat", n);
		}
	}
}

static void print_benches(FILE *out, const struct gb_run *run)
{
	bool any_duration = false;

	if (!run->n_benches)
		return;
	gauge_header(out, "gpubench_benchmark_status",
		     "the status of a benchmark: one series per status, 1 on the benchmark's "
		     "own, 0 on the others");
	for (size_t i = 0; i < run->n_benches; i++) {
		for (int s = GB_STATUS_PASSED; s <= GB_STATUS_INTERRUPTED; s++) {
			bool first = true;

			fputs("gpubench_benchmark_status{", out);
			bench_labels(out, &first, run, i);
			label(out, &first, "status", gb_status_name((enum gb_status)s));
			end_labels(out, &first, run->host.simulated);
			fprintf(out, " %d\n", run->benches[i].status == (enum gb_status)s);
		}
	}
	for (size_t i = 0; i < run->n_benches; i++) {
		bool first = true;

		if (!isfinite(run->benches[i].duration_s))
			continue;
		if (!any_duration)
			gauge_header(out, "gpubench_benchmark_duration_seconds",
				     "how long the benchmark ran");
		any_duration = true;
		fputs("gpubench_benchmark_duration_seconds{", out);
		bench_labels(out, &first, run, i);
		end_labels(out, &first, run->host.simulated);
		value(out, run->benches[i].duration_s);
	}
}

/* "2026-11-22T10:00:00Z" -> seconds since the epoch, NAN if it does not parse */
static double iso_to_epoch(const char *s)
{
	struct tm tm;
	const char *end;

	if (!s)
		return NAN;
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return NAN;
	return (double)timegm(&tm);
}

static void timestamp(FILE *out, const char *family, const char *help, const char *iso,
		      bool sim)
{
	double t = iso_to_epoch(iso);

	if (!isfinite(t))
		return;
	gauge_header(out, family, help);
	bare_sample(out, family, sim);
	value(out, t);
}

static void print_run(FILE *out, const struct gb_run *run)
{
	bool sim = run->host.simulated;
	bool first = true;

	gauge_header(out, "gpubench_verdict_status",
		     "the verdict of the run: one series per status, 1 on the run's, 0 on the "
		     "others");
	for (int s = GB_STATUS_PASSED; s <= GB_STATUS_INTERRUPTED; s++) {
		bool first_s = true;

		fputs("gpubench_verdict_status{", out);
		label(out, &first_s, "status", gb_status_name((enum gb_status)s));
		end_labels(out, &first_s, sim);
		fprintf(out, " %d\n", run->verdict == (enum gb_status)s);
	}
	gauge_header(out, "gpubench_exit_code",
		     "the exit code the run ended with (0 passed, 1 a check failed, 3 could "
		     "not run, 130 interrupted)");
	bare_sample(out, "gpubench_exit_code", sim);
	fprintf(out, " %d\n", run->exit_code);
	timestamp(out, "gpubench_last_run_timestamp_seconds",
		  "when the run started, in seconds since the epoch: alert when it is stale",
		  run->started_at, sim);
	timestamp(out, "gpubench_report_timestamp_seconds",
		  "when the run finished, in seconds since the epoch",
		  run->finished_at ? run->finished_at : run->started_at, sim);
	gauge_header(out, "gpubench_build_info", "1, with the gpubench build as labels");
	fputs("gpubench_build_info{", out);
	label(out, &first, "version", run->tool.version ? run->tool.version : "unknown");
	label(out, &first, "git", run->tool.git ? run->tool.git : "unknown");
	end_labels(out, &first, sim);
	fputs(" 1\n", out);
	first = true;
	gauge_header(out, "gpubench_run_info", "1, with the command and host of the run as labels");
	fputs("gpubench_run_info{", out);
	label(out, &first, "command", run->command ? run->command : "unknown");
	label(out, &first, "host", run->host.hostname ? run->host.hostname : "unknown");
	end_labels(out, &first, sim);
	fputs(" 1\n", out);
}

/* ---- the GPUs: what info reports, as gauges in base units ---- */

static double pos_int(int v)
{
	return v > 0 ? (double)v : NAN;
}

static double known_int(int v)
{
	return v >= 0 ? (double)v : NAN;
}

static double pos_num(double v)
{
	return isfinite(v) && v > 0 ? v : NAN;
}

static double g_sm(const struct gb_device_info *d) { return pos_int(d->sm_count); }
static double g_mem(const struct gb_device_info *d) { return pos_num(d->memory_bytes); }
static double g_l2(const struct gb_device_info *d) { return pos_num(d->l2_bytes); }
static double g_sm_hz(const struct gb_device_info *d) { return pos_num(d->max_sm_mhz) * 1e6; }
static double g_mem_hz(const struct gb_device_info *d) { return pos_num(d->max_mem_mhz) * 1e6; }
static double g_bus(const struct gb_device_info *d) { return pos_int(d->mem_bus_bits) / 8; }
static double g_gen(const struct gb_device_info *d) { return pos_int(d->pcie_gen); }
static double g_width(const struct gb_device_info *d) { return pos_int(d->pcie_width); }
static double g_max_gen(const struct gb_device_info *d) { return pos_int(d->pcie_max_gen); }
static double g_max_width(const struct gb_device_info *d) { return pos_int(d->pcie_max_width); }
static double g_power(const struct gb_device_info *d) { return pos_num(d->power_limit_w); }
static double g_ecc(const struct gb_device_info *d) { return known_int(d->ecc); }
static double g_nvl(const struct gb_device_info *d) { return known_int(d->nvlink_up); }
static double g_nvl_gen(const struct gb_device_info *d) { return pos_int(d->nvlink_gen); }
static double g_numa(const struct gb_device_info *d) { return known_int(d->numa_node); }

static const struct dev_gauge {
	const char *family;
	const char *help;
	double (*get)(const struct gb_device_info *d);
} dev_gauges[] = {
	{ "gpubench_gpu_multiprocessors", "streaming multiprocessors (SMs)", g_sm },
	{ "gpubench_gpu_memory_bytes", "device memory", g_mem },
	{ "gpubench_gpu_l2_cache_bytes", "L2 cache", g_l2 },
	{ "gpubench_gpu_max_sm_clock_hertz", "maximum SM clock", g_sm_hz },
	{ "gpubench_gpu_max_memory_clock_hertz", "maximum memory clock", g_mem_hz },
	{ "gpubench_gpu_memory_bus_width_bytes", "memory bus width (bits / 8)", g_bus },
	{ "gpubench_gpu_pcie_link_generation", "PCIe generation now (idle when read by info)",
	  g_gen },
	{ "gpubench_gpu_pcie_link_width", "PCIe lanes now (idle when read by info)", g_width },
	{ "gpubench_gpu_pcie_link_max_generation", "maximum PCIe generation of the link",
	  g_max_gen },
	{ "gpubench_gpu_pcie_link_max_width", "maximum PCIe lanes of the link", g_max_width },
	{ "gpubench_gpu_power_limit_watts", "power limit", g_power },
	{ "gpubench_gpu_ecc_enabled", "1 when ECC is on, 0 when off", g_ecc },
	{ "gpubench_gpu_nvlink_links_up", "NVLink links up", g_nvl },
	{ "gpubench_gpu_nvlink_generation", "NVLink generation", g_nvl_gen },
	{ "gpubench_gpu_numa_node", "NUMA node of the GPU", g_numa },
};

static bool any_device_value(const struct gb_run *run, double (*get)(const struct gb_device_info *))
{
	for (size_t i = 0; i < run->n_devices; i++)
		if (isfinite(get(&run->devices[i])))
			return true;
	return false;
}

/* gpu, uuid and model of d itself (not looked up by index: a report may repeat one) */
static void own_labels(FILE *out, bool *first, const struct gb_device_info *d)
{
	char idx[16];

	snprintf(idx, sizeof(idx), "%d", d->index);
	label(out, first, "gpu", idx);
	if (d->uuid)
		label(out, first, "uuid", d->uuid);
	if (d->name)
		label(out, first, "model", d->name);
}

static void device_identity(FILE *out, const struct gb_run *run)
{
	gauge_header(out, "gpubench_gpu_info",
		     "1 for every GPU of the report, with its identity as labels");
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];
		char cc[24];
		bool first = true;

		snprintf(cc, sizeof(cc), "%d.%d", d->cc_major, d->cc_minor);
		fputs("gpubench_gpu_info{", out);
		own_labels(out, &first, d);
		label(out, &first, "pci_bus_id", d->pci_bus_id ? d->pci_bus_id : "");
		label(out, &first, "cc", d->cc_major > 0 ? cc : "");
		label(out, &first, "spec", d->spec_key ? d->spec_key : "unknown");
		end_labels(out, &first, run->host.simulated);
		fputs(" 1\n", out);
	}
}

/* one sample with the device's labels and one more label (name NULL for none) */
static void device_sample(FILE *out, const char *family, const struct gb_run *run,
			  const struct gb_device_info *d, const char *name, const char *val,
			  double v)
{
	bool first = true;

	fputs(family, out);
	fputc('{', out);
	own_labels(out, &first, d);
	if (name)
		label(out, &first, name, val);
	end_labels(out, &first, run->host.simulated);
	value(out, v);
}

static void device_peaks(FILE *out, const struct gb_run *run)
{
	static const char *const clocks[] = { "spec", "max_clock" };
	bool any = false;

	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];

		for (int p = 0; p < GB_PREC_COUNT; p++) {
			for (int k = 0; k < 2; k++) {
				double v = pos_num(k ? d->peaks.max_clock[p] : d->peaks.spec[p]);
				bool first = true;

				if (!isfinite(v))
					continue;
				if (!any)
					gauge_header(out, "gpubench_gpu_peak_flops",
						     "theoretical peak in FLOP/s (OP/s for int8) at the "
						     "spec-sheet clock or the device's max clock");
				any = true;
				fputs("gpubench_gpu_peak_flops{", out);
				own_labels(out, &first, d);
				label(out, &first, "precision",
				      gb_precision_name((enum gb_precision)p));
				label(out, &first, "clock", clocks[k]);
				end_labels(out, &first, run->host.simulated);
				value(out, v);
			}
		}
	}
}

static double p_mem_spec(const struct gb_device_info *d) { return pos_num(d->peaks.mem_bw_bps_spec); }
static double p_mem_clk(const struct gb_device_info *d) { return pos_num(d->peaks.mem_bw_bps); }
static double p_pcie(const struct gb_device_info *d) { return pos_num(d->peaks.pcie_bps); }
static double p_pcie_now(const struct gb_device_info *d) { return pos_num(d->peaks.pcie_bps_current); }
static double p_nvlink(const struct gb_device_info *d) { return pos_num(d->peaks.nvlink_bps); }

/* a family of device peaks; label (when not NULL) tells its figures apart */
static const struct peak_family {
	const char *family;
	const char *help;
	const char *label;
	const char *vals[2];
	double (*get[2])(const struct gb_device_info *d);
} peak_families[] = {
	{ "gpubench_gpu_peak_memory_bytes_per_second",
	  "theoretical memory bandwidth in bytes/s: the spec sheet's, or from clocks and bus "
	  "width",
	  "source", { "spec", "clocks" }, { p_mem_spec, p_mem_clk } },
	{ "gpubench_gpu_peak_pcie_bytes_per_second",
	  "PCIe bandwidth per direction in bytes/s at the link's max or current generation and "
	  "width",
	  "link", { "max", "current" }, { p_pcie, p_pcie_now } },
	{ "gpubench_gpu_peak_nvlink_bytes_per_second",
	  "NVLink bandwidth per direction in bytes/s, all links up", NULL, { NULL, NULL },
	  { p_nvlink, NULL } },
};

static void device_pair(FILE *out, const struct gb_run *run, const struct peak_family *f)
{
	bool any = false;

	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];

		for (int k = 0; k < 2 && f->get[k]; k++) {
			double v = f->get[k](d);

			if (!isfinite(v))
				continue;
			if (!any)
				gauge_header(out, f->family, f->help);
			any = true;
			device_sample(out, f->family, run, d, f->label, f->vals[k], v);
		}
	}
}

static void topology(FILE *out, const struct gb_run *run)
{
	bool any = false;

	for (int pass = 0; pass < 2; pass++) {
		any = false;
		for (size_t i = 0; i < run->n_links; i++) {
			const struct gb_link *l = &run->links[i];
			const char *family = pass ? "gpubench_gpu_nvlink_peer_links"
						  : "gpubench_gpu_p2p_access";
			int v = pass ? l->nvlink_count : l->p2p_access;
			char peer[16];
			bool first = true;

			if (v < 0)
				continue;
			if (!any)
				gauge_header(out, family,
					     pass ? "NVLink links from device to peer"
						  : "1 when device can access peer's memory "
						    "directly (P2P), 0 when not; link is the "
						    "topology between them");
			any = true;
			snprintf(peer, sizeof(peer), "%d", l->b);
			fputs(family, out);
			fputc('{', out);
			device_labels(out, &first, run, l->a);
			label(out, &first, "peer", peer);
			if (!pass)
				label(out, &first, "link", l->type ? l->type : "unknown");
			end_labels(out, &first, run->host.simulated);
			fprintf(out, " %d\n", v);
		}
	}
}

static void print_devices(FILE *out, const struct gb_run *run)
{
	if (!run->n_devices)
		return;
	device_identity(out, run);
	for (size_t g = 0; g < sizeof(dev_gauges) / sizeof(dev_gauges[0]); g++) {
		if (!any_device_value(run, dev_gauges[g].get))
			continue;
		gauge_header(out, dev_gauges[g].family, dev_gauges[g].help);
		for (size_t i = 0; i < run->n_devices; i++) {
			double v = dev_gauges[g].get(&run->devices[i]);

			if (isfinite(v))
				device_sample(out, dev_gauges[g].family, run, &run->devices[i],
					      NULL, NULL, v);
		}
	}
	device_peaks(out, run);
	for (size_t f = 0; f < sizeof(peak_families) / sizeof(peak_families[0]); f++)
		device_pair(out, run, &peak_families[f]);
	topology(out, run);
}

int gb_report_prometheus(const struct gb_run *run, FILE *out)
{
	char sim[600];

	/* a comment line (the format allows them): scraped numbers must not pass for measured ones */
	gb_fmt_simulated(sim, sizeof(sim), run);
	if (sim[0]) {
		fputs("# ", out);
		help_text(out, sim);
		fputc('\n', out);
	}
	print_devices(out, run);
	print_metrics(out, run);
	print_checks(out, run);
	print_benches(out, run);
	print_run(out, run);
	return gb_fmt_finish(out);
}

/* ------------------------------------------------------------------------ */
/* gpubench compare                                                         */

/* the row's labels; row="i" only where two rows would otherwise be one series */
static void row_labels(FILE *out, bool *first, const struct gb_compare *c, size_t i)
{
	const struct gb_cmp_row *r = &c->rows[i];
	int dev = r->a.device >= 0 ? r->a.device : r->b.device;
	char idx[24];
	bool dup = false;

	for (size_t k = 0; k < c->n_rows && !dup; k++) {
		const struct gb_cmp_row *o = &c->rows[k];
		int odev = o->a.device >= 0 ? o->a.device : o->b.device;

		dup = k != i && odev == dev && !strcmp(o->bench, r->bench) &&
		      !strcmp(o->metric, r->metric) && !strcmp(o->model, r->model) &&
		      !strcmp(o->params, r->params);
	}
	label(out, first, "benchmark", r->bench);
	label(out, first, "metric", r->metric);
	if (dev >= 0) {
		snprintf(idx, sizeof(idx), "%d", dev);
		label(out, first, "device", idx);
	}
	label(out, first, "gpu", r->model);
	if (r->params[0])
		label(out, first, "params", r->params);
	if (dup) {
		snprintf(idx, sizeof(idx), "%zu", i);
		label(out, first, "row", idx);
	}
}

static void cmp_values(FILE *out, const struct gb_compare *c)
{
	bool any = false;

	for (size_t i = 0; i < c->n_rows; i++) {
		for (int side = 0; side < 2; side++) {
			const struct gb_cmp_row *r = &c->rows[i];
			double v = side ? r->b.value : r->a.value;
			bool first = true;

			if (!isfinite(v))
				continue;
			if (!any)
				gauge_header(out, "gpubench_compare_value",
					     "the metric's value in report A or B (label side), in "
					     "its unit (label unit)");
			any = true;
			fputs("gpubench_compare_value{", out);
			label(out, &first, "side", side ? "b" : "a");
			row_labels(out, &first, c, i);
			label(out, &first, "unit", r->unit ? r->unit : "");
			end_labels(out, &first, c->simulated);
			value(out, v);
		}
	}
}

static void cmp_ratios(FILE *out, const struct gb_compare *c)
{
	bool any = false;

	for (size_t i = 0; i < c->n_rows; i++) {
		bool first = true;

		if (!isfinite(c->rows[i].ratio))
			continue;
		if (!any)
			gauge_header(out, "gpubench_compare_ratio", "B / A of the metric");
		any = true;
		fputs("gpubench_compare_ratio{", out);
		row_labels(out, &first, c, i);
		end_labels(out, &first, c->simulated);
		value(out, c->rows[i].ratio);
	}
	if (!c->n_rows)
		return;
	gauge_header(out, "gpubench_compare_regression",
		     "1 when the metric regressed (worse than the tolerance and the noise, same "
		     "GPU models), else 0");
	for (size_t i = 0; i < c->n_rows; i++) {
		bool first = true;

		fputs("gpubench_compare_regression{", out);
		row_labels(out, &first, c, i);
		end_labels(out, &first, c->simulated);
		fprintf(out, " %d\n", c->rows[i].cls == GB_CMP_REGRESSION && !c->different_models);
	}
}

int gb_compare_prometheus(const struct gb_compare *c, FILE *out)
{
	bool failed = gb_compare_failed(c);

	cmp_values(out, c);
	cmp_ratios(out, c);
	gauge_header(out, "gpubench_compare_rows", "compared metrics per result class");
	for (int k = 0; k < GB_CMP_CLASS_COUNT; k++) {
		bool first = true;

		fputs("gpubench_compare_rows{", out);
		label(out, &first, "class",
		      gb_cmp_class_name((enum gb_cmp_class)k, c->different_models));
		end_labels(out, &first, c->simulated);
		fprintf(out, " %zu\n", c->count[k]);
	}
	if (c->n_missing) {
		gauge_header(out, "gpubench_compare_incomplete",
			     "1 for each reason B is incomplete: a benchmark, metric or GPU A "
			     "measured that B lacks or could not run (benchmark=\"run\": B's run "
			     "ended early; benchmark=\"gpu\": a GPU of A is missing)");
		for (size_t i = 0; i < c->n_missing; i++) {
			bool first = true;
			char idx[24];
			bool dup = false;

			for (size_t k = 0; k < i && !dup; k++)
				dup = !strcmp(gb_cmp_missing_subject(&c->missing[k]),
					      gb_cmp_missing_subject(&c->missing[i]));
			fputs("gpubench_compare_incomplete{", out);
			label(out, &first, "benchmark", gb_cmp_missing_subject(&c->missing[i]));
			label(out, &first, "status", gb_status_name(c->missing[i].status));
			if (dup) {
				snprintf(idx, sizeof(idx), "%zu", i);
				label(out, &first, "item", idx);
			}
			end_labels(out, &first, c->simulated);
			fputs(" 1\n", out);
		}
	}
	if (c->n_na) {
		gauge_header(out, "gpubench_compare_not_applicable",
			     "1 for each benchmark (or its metrics) that cannot exist on one side's "
			     "GPUs (side: the report that lacks it); listed, never failed");
		for (size_t i = 0; i < c->n_na; i++) {
			bool first = true;
			char idx[24], side[2] = { c->na[i].side == 'A' ? 'a' : 'b', '\0' };

			fputs("gpubench_compare_not_applicable{", out);
			label(out, &first, "benchmark", gb_cmp_missing_subject(&c->na[i]));
			label(out, &first, "side", side);
			snprintf(idx, sizeof(idx), "%zu", i);
			label(out, &first, "item", idx);
			end_labels(out, &first, c->simulated);
			fputs(" 1\n", out);
		}
	}
	gauge_header(out, "gpubench_compare_failed",
		     "1 when the gate failed (a regression, or B incomplete without "
		     "--allow-missing), else 0");
	bare_sample(out, "gpubench_compare_failed", c->simulated);
	fprintf(out, " %d\n", failed);
	gauge_header(out, "gpubench_compare_exit_code", "the exit code of gpubench compare");
	bare_sample(out, "gpubench_compare_exit_code", c->simulated);
	fprintf(out, " %d\n", failed ? 1 : 0);
	return gb_fmt_finish(out);
}
