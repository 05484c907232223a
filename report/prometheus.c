/* SPDX-License-Identifier: MIT */
/*
 * prometheus.c - the report in Prometheus text exposition format (0.0.4),
 * for node_exporter's textfile collector: write it to
 * <dir>/gpubench.prom.$$ and rename it to <dir>/gpubench.prom.
 *
 * Every metric is a gauge named gpubench_<benchmark>_<metric> with labels
 * device, gpu (model), uuid and unit; every check is
 * gpubench_check_passed{benchmark,check,device,status} 1 or 0 (0 for
 * failed, error and skipped: a check that did not run is not passed); the
 * verdict is gpubench_verdict_status{status=...}, 1 on the current status
 * and 0 on the others. All samples of a family are written together under
 * one # HELP and # TYPE, as the format requires.
 *
 * Every GPU the report describes is exported as gpubench_info_* gauges
 * (labels device, gpu, uuid): PCIe generation and width, current and max
 * (gpubench_info_pcie_gen{device="0",gpu="..."} 5), NVLink links up, power
 * limit, ECC, clocks, SM count, memory, and the theoretical peaks
 * (gpubench_info_peak_flops{precision,clock}, memory, PCIe, NVLink, in
 * FLOP/s and bytes/s); the topology as gpubench_info_p2p_access{device,peer,
 * link}. Unknown values are left out, never written as 0 or -1, so
 * node_exporter can alert on a link below its maximum.
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
#include "formats.h"
#include "theory.h"

/* the families written below; a metric whose name would collide gets a suffix */
static const char *const fixed_families[] = {
	"gpubench_check_passed", "gpubench_benchmark_passed", "gpubench_verdict_status",
	"gpubench_exit_code",    "gpubench_report_timestamp_seconds", "gpubench_info",
};

/* [a-zA-Z_:][a-zA-Z0-9_:]*, other characters as '_' (the prefix makes the first valid) */
static char *family_name(const char *bench, const char *metric)
{
	char *s = gb_strdupf("gpubench_%s_%s", bench, metric);

	for (char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != ':')
			*p = '_';
	for (size_t i = 0; i < sizeof(fixed_families) / sizeof(fixed_families[0]); i++) {
		/* gpubench_info_* belongs to the device gauges below */
		if (!strcmp(s, fixed_families[i]) || !strncmp(s, "gpubench_info_", 14)) {
			char *t = gb_strdupf("%s_metric", s);

			free(s);
			return t;
		}
	}
	return s;
}

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

static void device_labels(FILE *out, bool *first, const struct gb_run *run, int device)
{
	const struct gb_device_info *d = gb_fmt_device(run, device);
	char idx[16];

	if (device < 0)
		return;
	snprintf(idx, sizeof(idx), "%d", device);
	label(out, first, "device", idx);
	if (d && d->name)
		label(out, first, "gpu", d->name);
	if (d && d->uuid)
		label(out, first, "uuid", d->uuid);
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
	bool dup; /* same family and device as an earlier one: tell them apart by params */
};

static void metric_sample(FILE *out, const struct gb_run *run, const struct entry *e)
{
	bool first = true;

	fputs(e->family, out);
	fputc('{', out);
	device_labels(out, &first, run, e->m->device);
	label(out, &first, "unit", e->m->unit ? e->m->unit : "");
	if (e->dup) {
		char *key = gb_params_key(e->b->params);

		label(out, &first, "params", key);
		free(key);
	}
	end_labels(out, &first, run->host.simulated);
	value(out, e->m->value);
}

static void family_header(FILE *out, const struct entry *e)
{
	fprintf(out, "# HELP %s ", e->family);
	help_text(out, e->m->description ? e->m->description : e->m->name);
	if (e->m->unit) {
		fputs(" (", out);
		help_text(out, e->m->unit);
		fputc(')', out);
	}
	fprintf(out, "\n# TYPE %s gauge\n", e->family);
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
			e->family = family_name(b->name, b->metrics[j].name);
			e->b = b;
			e->m = &b->metrics[j];
			e->dup = false;
			for (size_t k = 0; k < n; k++)
				if (!strcmp(entries[k].family, e->family) &&
				    entries[k].m->device == e->m->device)
					e->dup = entries[k].dup = true;
			n++;
		}
	}
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

static void print_checks(FILE *out, const struct gb_run *run)
{
	bool header = false;

	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_checks; j++) {
			const struct gb_check *c = &b->checks[j];
			bool first = true;
			bool ok = c->status == GB_STATUS_PASSED || c->status == GB_STATUS_WARNING;

			if (!header)
				fputs("# HELP gpubench_check_passed 1 when the check passed (warnings "
				      "included), 0 when it failed, could not run or was skipped\n"
				      "# TYPE gpubench_check_passed gauge\n",
				      out);
			header = true;
			fputs("gpubench_check_passed{", out);
			label(out, &first, "benchmark", b->name);
			label(out, &first, "check", c->name);
			device_labels(out, &first, run, c->device);
			label(out, &first, "status", gb_status_name(c->status));
			end_labels(out, &first, run->host.simulated);
			fprintf(out, " %d\n", ok ? 1 : 0);
		}
	}
}

static void print_benches(FILE *out, const struct gb_run *run)
{
	if (!run->n_benches)
		return;
	fputs("# HELP gpubench_benchmark_passed 1 when the benchmark ran and passed (warnings "
	      "included), else 0\n# TYPE gpubench_benchmark_passed gauge\n",
	      out);
	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];
		bool first = true;
		bool ok = b->status == GB_STATUS_PASSED || b->status == GB_STATUS_WARNING;

		fputs("gpubench_benchmark_passed{", out);
		label(out, &first, "benchmark", b->name);
		label(out, &first, "status", gb_status_name(b->status));
		end_labels(out, &first, run->host.simulated);
		fprintf(out, " %d\n", ok ? 1 : 0);
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

static void print_run(FILE *out, const struct gb_run *run)
{
	double t = iso_to_epoch(run->finished_at ? run->finished_at : run->started_at);
	bool sim = run->host.simulated;
	bool first = true;

	fputs("# HELP gpubench_verdict_status the verdict of the run: 1 on its status, 0 on the "
	      "others\n# TYPE gpubench_verdict_status gauge\n",
	      out);
	for (int s = GB_STATUS_PASSED; s <= GB_STATUS_INTERRUPTED; s++) {
		bool first_s = true;

		fputs("gpubench_verdict_status{", out);
		label(out, &first_s, "status", gb_status_name((enum gb_status)s));
		end_labels(out, &first_s, sim);
		fprintf(out, " %d\n", run->verdict == (enum gb_status)s);
	}
	fputs("# HELP gpubench_exit_code the exit code the run ended with\n"
	      "# TYPE gpubench_exit_code gauge\n",
	      out);
	bare_sample(out, "gpubench_exit_code", sim);
	fprintf(out, " %d\n", run->exit_code);
	if (isfinite(t)) {
		fputs("# HELP gpubench_report_timestamp_seconds when the run finished, so stale "
		      "files can be alerted on\n# TYPE gpubench_report_timestamp_seconds gauge\n",
		      out);
		bare_sample(out, "gpubench_report_timestamp_seconds", sim);
		value(out, t);
	}
	fputs("# HELP gpubench_info the gpubench build and command that wrote the report\n"
	      "# TYPE gpubench_info gauge\ngpubench_info{",
	      out);
	label(out, &first, "version", run->tool.version ? run->tool.version : "unknown");
	label(out, &first, "git", run->tool.git ? run->tool.git : "unknown");
	label(out, &first, "command", run->command ? run->command : "unknown");
	label(out, &first, "host", run->host.hostname ? run->host.hostname : "unknown");
	end_labels(out, &first, sim);
	fputs(" 1\n", out);
}

/* ---- the GPUs: what info reports, as gauges ---- */

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
static double g_sm_mhz(const struct gb_device_info *d) { return pos_num(d->max_sm_mhz); }
static double g_mem_mhz(const struct gb_device_info *d) { return pos_num(d->max_mem_mhz); }
static double g_bus(const struct gb_device_info *d) { return pos_int(d->mem_bus_bits); }
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
	{ "gpubench_info_sm_count", "streaming multiprocessors", g_sm },
	{ "gpubench_info_memory_bytes", "device memory in bytes", g_mem },
	{ "gpubench_info_l2_bytes", "L2 cache in bytes", g_l2 },
	{ "gpubench_info_max_sm_clock_mhz", "maximum SM clock in MHz", g_sm_mhz },
	{ "gpubench_info_max_memory_clock_mhz", "maximum memory clock in MHz", g_mem_mhz },
	{ "gpubench_info_memory_bus_bits", "memory bus width in bits", g_bus },
	{ "gpubench_info_pcie_gen", "PCIe generation now (idle when read by info)", g_gen },
	{ "gpubench_info_pcie_width", "PCIe lanes now (idle when read by info)", g_width },
	{ "gpubench_info_pcie_max_gen", "maximum PCIe generation of the link", g_max_gen },
	{ "gpubench_info_pcie_max_width", "maximum PCIe lanes of the link", g_max_width },
	{ "gpubench_info_power_limit_watts", "power limit in watts", g_power },
	{ "gpubench_info_ecc_enabled", "1 when ECC is on, 0 when off", g_ecc },
	{ "gpubench_info_nvlink_links_up", "NVLink links up", g_nvl },
	{ "gpubench_info_nvlink_gen", "NVLink generation", g_nvl_gen },
	{ "gpubench_info_numa_node", "NUMA node of the GPU", g_numa },
};

static bool any_device_value(const struct gb_run *run, double (*get)(const struct gb_device_info *))
{
	for (size_t i = 0; i < run->n_devices; i++)
		if (isfinite(get(&run->devices[i])))
			return true;
	return false;
}

static void gauge_header(FILE *out, const char *family, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", family, help, family);
}

/* device, gpu and uuid of d itself (not looked up by index: a report may repeat one) */
static void own_labels(FILE *out, bool *first, const struct gb_device_info *d)
{
	char idx[16];

	snprintf(idx, sizeof(idx), "%d", d->index);
	label(out, first, "device", idx);
	if (d->name)
		label(out, first, "gpu", d->name);
	if (d->uuid)
		label(out, first, "uuid", d->uuid);
}

static void device_identity(FILE *out, const struct gb_run *run)
{
	gauge_header(out, "gpubench_info_gpu",
		     "1 for every GPU of the report, with its identity as labels");
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];
		char cc[24];
		bool first = true;

		snprintf(cc, sizeof(cc), "%d.%d", d->cc_major, d->cc_minor);
		fputs("gpubench_info_gpu{", out);
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
					gauge_header(out, "gpubench_info_peak_flops",
						     "theoretical peak in FLOP/s (OP/s for int8) at the "
						     "spec-sheet clock or the device's max clock");
				any = true;
				fputs("gpubench_info_peak_flops{", out);
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
	{ "gpubench_info_peak_memory_bytes_per_second",
	  "theoretical memory bandwidth in bytes/s: the spec sheet's, or from clocks and bus "
	  "width",
	  "source", { "spec", "clocks" }, { p_mem_spec, p_mem_clk } },
	{ "gpubench_info_peak_pcie_bytes_per_second",
	  "PCIe bandwidth per direction in bytes/s at the link's max or current generation and "
	  "width",
	  "link", { "max", "current" }, { p_pcie, p_pcie_now } },
	{ "gpubench_info_peak_nvlink_bytes_per_second",
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
			const char *family = pass ? "gpubench_info_nvlink_count"
						  : "gpubench_info_p2p_access";
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
