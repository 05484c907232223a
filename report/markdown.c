/* SPDX-License-Identifier: MIT */
/*
 * markdown.c - the report as GitHub-flavoured Markdown, fit for a CI job
 * summary ($GITHUB_STEP_SUMMARY) or a merge-request comment: the verdict
 * first, then what failed, then the tables a reviewer scans. An info
 * report adds what info is for: each GPU's PCIe link (current and max),
 * NVLink, power limit, ECC and peaks, and the topology grid. A fleet report
 * names each GPU's node and has a table of nodes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "report/format_util.h"
#include "report/writers.h"
#include "theory.h"

static const char *status_icon(enum gb_status s)
{
	switch (s) {
	case GB_STATUS_PASSED:
		return "\xE2\x9C\x85"; /* check mark */
	case GB_STATUS_WARNING:
		return "\xE2\x9A\xA0\xEF\xB8\x8F"; /* warning sign */
	case GB_STATUS_FAILED:
		return "\xE2\x9D\x8C"; /* cross mark */
	case GB_STATUS_SKIPPED:
	case GB_STATUS_NOT_BUILT:
		return "\xE2\x8F\xAD\xEF\xB8\x8F"; /* next track */
	case GB_STATUS_ERROR:
	case GB_STATUS_INTERRUPTED:
		break;
	}
	return "\xF0\x9F\x9B\x91"; /* stop sign */
}

static void md_num(FILE *out, double v)
{
	char buf[48];

	gb_fmt_human(buf, sizeof(buf), v);
	fputs(buf, out);
}

struct fleet_view {
	struct gb_fleet_node *nodes; /* NULL unless a fleet report */
	size_t n;
};

static const char *node_of(const struct fleet_view *fv, int device)
{
	return fv->nodes ? gb_fleet_node_of(fv->nodes, fv->n, device) : NULL;
}

static void md_device(FILE *out, int device, const struct fleet_view *fv)
{
	const char *node = fv ? node_of(fv, device) : NULL;

	if (device < 0) {
		fputs("all", out);
		return;
	}
	fprintf(out, "%d", device);
	if (node) {
		fputs(" (", out);
		gb_fmt_md(out, node);
		fputc(')', out);
	}
}

static void print_header(const struct gb_run *run, FILE *out, const struct fleet_view *fv)
{
	char sim[600];

	fprintf(out, "## %s gpubench %s: %s\n\n", status_icon(run->verdict),
		run->command ? run->command : "report", gb_status_name(run->verdict));
	gb_fmt_simulated(sim, sizeof(sim), run);
	if (sim[0]) {
		fputs("> **", out);
		gb_fmt_md(out, sim);
		fputs("**\n\n", out);
	}
	fputs("| | |\n|---|---|\n| host | ", out);
	gb_fmt_md(out, run->host.hostname ? run->host.hostname : "-");
	fputs(" |\n| started | ", out);
	gb_fmt_md(out, run->started_at ? run->started_at : "-");
	fputs(" |\n| gpubench | ", out);
	gb_fmt_md(out, run->tool.version ? run->tool.version : "-");
	fputs(" (git ", out);
	gb_fmt_md(out, run->tool.git ? run->tool.git : "-");
	fputs(") |\n| driver | ", out);
	gb_fmt_md(out, run->host.driver_version ? run->host.driver_version : "-");
	fputs(" |\n", out);
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];

		const char *node = node_of(fv, d->index);

		fprintf(out, "| GPU %d | ", d->index);
		if (node) {
			gb_fmt_md(out, node);
			fputs(": ", out);
		}
		gb_fmt_md(out, d->name ? d->name : "unknown");
		if (d->pci_bus_id) {
			fputs(" (", out);
			gb_fmt_md(out, d->pci_bus_id);
			fputc(')', out);
		}
		fputs(" |\n", out);
	}
	if (run->reason) {
		fputs("| reason | ", out);
		gb_fmt_md(out, run->reason);
		fputs(" |\n", out);
	}
	fputc('\n', out);
}

static bool is_bad(enum gb_status s)
{
	return s == GB_STATUS_FAILED || s == GB_STATUS_ERROR;
}

static void check_row(FILE *out, const struct gb_bench_result *b, const struct gb_check *c,
		      const struct fleet_view *fv)
{
	fprintf(out, "| %s ", status_icon(c->status));
	gb_fmt_md(out, b->name);
	fputs(" | ", out);
	gb_fmt_md(out, c->name);
	fputs(" | ", out);
	md_device(out, c->device, fv);
	fputs(" | ", out);
	md_num(out, c->observed);
	fputs(" | ", out);
	md_num(out, c->threshold);
	fputs(" | ", out);
	gb_fmt_md(out, c->message);
	fputs(" |\n", out);
}

/* Failed and errored checks first, so the reason for a red build is on top. */
static void print_checks(const struct gb_run *run, FILE *out, bool bad,
			 const struct fleet_view *fv)
{
	bool any = false;

	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_checks; j++) {
			if (is_bad(b->checks[j].status) != bad)
				continue;
			if (!any)
				fprintf(out, "### %s\n\n| benchmark | check | GPU | observed | "
					     "threshold | message |\n|---|---|---|---:|---:|---|\n",
					bad ? "Failed checks" : "Checks");
			any = true;
			check_row(out, b, &b->checks[j], fv);
		}
	}
	if (any)
		fputc('\n', out);
}

static void print_benches(const struct gb_run *run, FILE *out)
{
	if (!run->n_benches)
		return;
	fputs("### Benchmarks\n\n| benchmark | status | time (s) | reason |\n|---|---|---:|---|\n",
	      out);
	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		fputs("| ", out);
		gb_fmt_md(out, b->name);
		fprintf(out, " | %s %s | ", status_icon(b->status), gb_status_name(b->status));
		md_num(out, b->duration_s);
		fputs(" | ", out);
		gb_fmt_md(out, b->reason ? b->reason : "");
		fputs(" |\n", out);
	}
	fputc('\n', out);
}

static void metric_row(FILE *out, const struct gb_bench_result *b, const struct gb_metric *m,
		       const struct fleet_view *fv)
{
	fputs("| ", out);
	gb_fmt_md(out, b->name);
	fputs(" | ", out);
	gb_fmt_md(out, m->name);
	fputs(" | ", out);
	md_device(out, m->device, fv);
	fputs(" | ", out);
	md_num(out, m->value);
	fputs(" | ", out);
	gb_fmt_md(out, m->unit ? m->unit : "");
	fputs(" | ", out);
	if (m->stats.n > 1)
		fprintf(out, "%.2f%% (n=%zu)", m->stats.cv * 100, m->stats.n);
	fputs(" | ", out);
	if (isfinite(m->efficiency))
		fprintf(out, "%.1f%%", m->efficiency * 100);
	fputs(" |\n", out);
}

static void print_metrics(const struct gb_run *run, FILE *out, const struct fleet_view *fv)
{
	bool any = false;

	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_metrics; j++) {
			if (!any)
				fputs("### Metrics\n\n| benchmark | metric | GPU | value | unit | CV "
				      "| % of peak |\n|---|---|---|---:|---|---:|---:|\n",
				      out);
			any = true;
			metric_row(out, b, &b->metrics[j], fv);
		}
	}
	if (any)
		fputc('\n', out);
}

static void print_verdict_lists(const struct gb_run *run, FILE *out)
{
	if (run->n_verdict_warnings) {
		fputs("### Warnings\n\n", out);
		for (size_t i = 0; i < run->n_verdict_warnings; i++) {
			fputs("- ", out);
			gb_fmt_md(out, run->verdict_warnings[i]);
			fputc('\n', out);
		}
		fputc('\n', out);
	}
}

/* ---- info: the GPUs in full, their peaks and the topology ---- */

static void md_int(FILE *out, int v)
{
	if (v > 0)
		fprintf(out, "%d", v);
	else
		fputc('-', out);
}

static void md_pcie(FILE *out, int gen, int width)
{
	char buf[32];

	gb_fmt_pcie(buf, sizeof(buf), gen, width);
	fputs(buf, out);
}

static void print_gpu_table(const struct gb_run *run, FILE *out)
{
	fputs("### GPUs\n\n| GPU | name | UUID | PCI bus | CC | SMs | memory (GiB) | max SM MHz | "
	      "max memory MHz | bus (bits) | PCIe now (idle) | PCIe max | power limit (W) | "
	      "ECC | NUMA | NVLink up |\n"
	      "|---:|---|---|---|---|---:|---:|---:|---:|---:|---|---|---:|---|---:|---:|\n",
	      out);
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];

		fprintf(out, "| %d | ", d->index);
		gb_fmt_md(out, d->name ? d->name : "-");
		fputs(" | ", out);
		gb_fmt_md(out, d->uuid ? d->uuid : "-");
		fputs(" | ", out);
		gb_fmt_md(out, d->pci_bus_id ? d->pci_bus_id : "-");
		if (d->cc_major > 0)
			fprintf(out, " | %d.%d | ", d->cc_major, d->cc_minor);
		else
			fputs(" | - | ", out);
		md_int(out, d->sm_count);
		fputs(" | ", out);
		md_num(out, d->memory_bytes / (1024.0 * 1024 * 1024));
		fputs(" | ", out);
		md_num(out, d->max_sm_mhz);
		fputs(" | ", out);
		md_num(out, d->max_mem_mhz);
		fputs(" | ", out);
		md_int(out, d->mem_bus_bits);
		fputs(" | ", out);
		md_pcie(out, d->pcie_gen, d->pcie_width);
		fputs(" | ", out);
		md_pcie(out, d->pcie_max_gen, d->pcie_max_width);
		fputs(" | ", out);
		md_num(out, d->power_limit_w);
		fprintf(out, " | %s | ", d->ecc < 0 ? "-" : d->ecc ? "on" : "off");
		if (d->numa_node >= 0)
			fprintf(out, "%d", d->numa_node);
		else
			fputc('-', out);
		fputs(" | ", out);
		if (d->nvlink_up >= 0)
			fprintf(out, "%d", d->nvlink_up);
		else
			fputc('-', out);
		fputs(" |\n", out);
	}
	fputc('\n', out);
}

static double tera(double flops)
{
	return flops > 0 ? flops / 1e12 : NAN;
}

static void print_peak_table(const struct gb_run *run, FILE *out)
{
	fputs("### Theoretical peaks\n\nTFLOPS (TOPS for int8) at the spec-sheet clock and at the "
	      "GPU's max clock; bandwidths in GB/s, PCIe and NVLink per direction.\n\n| GPU | "
	      "clock |",
	      out);
	for (int p = 0; p < GB_PREC_COUNT; p++)
		fprintf(out, " %s |", gb_precision_name((enum gb_precision)p));
	fputs(" memory | PCIe max | PCIe now (idle) | NVLink |\n|---:|---|", out);
	for (int p = 0; p < GB_PREC_COUNT + 4; p++)
		fputs("---:|", out);
	fputc('\n', out);
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];

		for (int k = 0; k < 2; k++) {
			fprintf(out, "| %d | %s |", d->index, k ? "max clock" : "spec sheet");
			for (int p = 0; p < GB_PREC_COUNT; p++) {
				fputc(' ', out);
				md_num(out, tera(k ? d->peaks.max_clock[p] : d->peaks.spec[p]));
				fputs(" |", out);
			}
			fputc(' ', out);
			md_num(out, (k ? d->peaks.mem_bw_bps : d->peaks.mem_bw_bps_spec) / 1e9);
			fputs(" | ", out);
			md_num(out, d->peaks.pcie_bps / 1e9);
			fputs(" | ", out);
			md_num(out, d->peaks.pcie_bps_current / 1e9);
			fputs(" | ", out);
			md_num(out, d->peaks.nvlink_bps / 1e9);
			fputs(" |\n", out);
		}
	}
	fputc('\n', out);
}

static void print_topology(const struct gb_run *run, FILE *out)
{
	char cell[32];

	if (run->n_devices < 2 || !run->n_links)
		return;
	fputs("### Topology\n\nrow \xE2\x86\x92 column: link, P2P access\n\n| |", out);
	for (size_t j = 0; j < run->n_devices; j++)
		fprintf(out, " GPU%d |", run->devices[j].index);
	fputs("\n|---|", out);
	for (size_t j = 0; j < run->n_devices; j++)
		fputs("---|", out);
	fputc('\n', out);
	for (size_t i = 0; i < run->n_devices; i++) {
		fprintf(out, "| **GPU%d** |", run->devices[i].index);
		for (size_t j = 0; j < run->n_devices; j++) {
			const struct gb_link *l =
				gb_run_find_link(run, run->devices[i].index, run->devices[j].index);

			if (i == j) {
				fputs(" X |", out);
				continue;
			}
			if (!l) {
				fputs(" - |", out);
				continue;
			}
			gb_fmt_link(cell, sizeof(cell), l);
			fprintf(out, " %s %s |", cell,
				l->p2p_access < 0 ? "-" : l->p2p_access ? "yes" : "no");
		}
		fputc('\n', out);
	}
	fprintf(out, "\n%s\n\n", gb_fmt_link_legend);
}

/* ---- fleet: one row per node ---- */

static void print_nodes(const struct fleet_view *fv, FILE *out)
{
	char gpus[128];

	fputs("### Nodes\n\n| node | file | own verdict | GPUs | failed checks | warnings |\n"
	      "|---|---|---|---|---:|---:|\n",
	      out);
	for (size_t i = 0; i < fv->n; i++) {
		const struct gb_fleet_node *nd = &fv->nodes[i];
		int st = gb_status_from_name(nd->verdict);

		fputs("| ", out);
		gb_fmt_md(out, nd->host);
		fputs(" | ", out);
		gb_fmt_md(out, nd->file);
		fputs(" | ", out);
		if (st >= 0)
			fprintf(out, "%s ", status_icon((enum gb_status)st));
		gb_fmt_md(out, nd->verdict);
		gb_fleet_device_list(gpus, sizeof(gpus), nd->devices, nd->n_devices);
		fprintf(out, " | %s | %zu | %zu |\n", gpus, nd->failed, nd->warnings);
	}
	fputc('\n', out);
}

int gb_report_markdown(const struct gb_run *run, FILE *out)
{
	struct fleet_view fv = { NULL, 0 };
	bool info = run->command && !strcmp(run->command, "info");

	fv.nodes = gb_fleet_nodes(run, &fv.n);
	print_header(run, out, &fv);
	print_checks(run, out, true, &fv);
	print_verdict_lists(run, out);
	if (fv.nodes)
		print_nodes(&fv, out);
	if (info && run->n_devices) {
		print_gpu_table(run, out);
		print_peak_table(run, out);
		print_topology(run, out);
	}
	print_benches(run, out);
	print_metrics(run, out, &fv);
	print_checks(run, out, false, &fv);
	gb_fleet_nodes_free(fv.nodes, fv.n);
	return gb_fmt_finish(out);
}
