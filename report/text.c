/* SPDX-License-Identifier: MIT */
/*
 * text.c - the human summary: what a person at a terminal reads. The JSON
 * report holds everything; this shows what matters, with units and spread.
 * Unknown values print as '-', never as -1 or 0.0. A fleet report (report
 * --merge) names the node of every GPU and has a table of nodes.
 */
#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "report/format_util.h"
#include "fault_action.h"
#include "published.h"
#include "run_summary.h"
#include "theory.h"

static const char *status_color(enum gb_status s)
{
	switch (s) {
	case GB_STATUS_PASSED:
		return "\033[32m";
	case GB_STATUS_WARNING:
	case GB_STATUS_SKIPPED:
		return "\033[33m";
	default:
		return "\033[31m";
	}
}

static void print_status(FILE *out, enum gb_status s, const struct gb_text_opts *o)
{
	if (o->color)
		fprintf(out, "%s%s\033[0m", status_color(s), gb_status_name(s));
	else
		fputs(gb_status_name(s), out);
}

/* "1.23" style with a dash for unknown */
static void num(FILE *out, const char *fmt, double v)
{
	if (isfinite(v))
		fprintf(out, fmt, v);
	else
		fputs("-", out);
}

static void print_peaks(FILE *out, const struct gb_device_info *d)
{
	fputs("    peak TFLOPS     ", out);
	for (int p = 0; p < GB_PREC_COUNT; p++)
		fprintf(out, "%10s", gb_precision_name(p));
	fputs("\n      spec sheet    ", out);
	for (int p = 0; p < GB_PREC_COUNT; p++) {
		fputs("  ", out);
		num(out, "%8.1f", d->peaks.spec[p] > 0 ? d->peaks.spec[p] / 1e12 : NAN);
		if (!(d->peaks.spec[p] > 0))
			fputs("       ", out);
	}
	fputs("\n      at max clock  ", out);
	for (int p = 0; p < GB_PREC_COUNT; p++) {
		fputs("  ", out);
		num(out, "%8.1f", d->peaks.max_clock[p] > 0 ? d->peaks.max_clock[p] / 1e12 : NAN);
		if (!(d->peaks.max_clock[p] > 0))
			fputs("       ", out);
	}
	fputs("\n    memory GB/s     spec ", out);
	num(out, "%.0f", d->peaks.mem_bw_bps_spec / 1e9);
	fputs(", from clocks ", out);
	num(out, "%.0f", d->peaks.mem_bw_bps / 1e9);
	fputs("\n    PCIe GB/s/dir   max ", out);
	num(out, "%.1f", d->peaks.pcie_bps / 1e9);
	fputs(", current (idle) ", out);
	num(out, "%.1f", d->peaks.pcie_bps_current / 1e9);
	if (isfinite(d->peaks.nvlink_bps)) {
		fputs(", NVLink ", out);
		num(out, "%.0f", d->peaks.nvlink_bps / 1e9);
	}
	fputc('\n', out);
}

/* an int that is unknown at or below zero: "-" */
static void int_or_dash(FILE *out, const char *fmt, int v)
{
	if (v > 0)
		fprintf(out, fmt, v);
	else
		fputs("-", out);
}

/* What healthy GPUs of this model reach, measured by others (report/published.h). */
static void print_published_figures(FILE *out, const struct gb_device_info *d)
{
	const char *sep = "";

	if (!d->spec_key)
		return;
	if (gb_published_count(d->spec_key) == 0) {
		fputs("    measured by others: nothing published for this model yet\n", out);
		return;
	}
	fputs("    measured by others: ", out);
	for (size_t i = 0; i < GB_PUBLISHED_N_FIGURES; i++) {
		const struct gb_published_kind *k = &gb_published_figures[i];
		const struct gb_published *f = gb_published_get(d->spec_key, k->figure);

		if (!f)
			continue;
		fprintf(out, "%s%s %.4g %s", sep, k->label, f->value, k->unit);
		sep = "; ";
	}
	fputs(" (docs/published.md)\n", out);
}

static void print_device_detail(FILE *out, const struct gb_device_info *d, const char *node)
{
	char now[32], max[32];

	fprintf(out, "GPU %d  ", d->index);
	if (node)
		fprintf(out, "%s  ", node);
	fprintf(out, "%s  (", d->name ? d->name : "?");
	if (d->cc_major > 0)
		fprintf(out, "sm_%d%d", d->cc_major, d->cc_minor >= 0 ? d->cc_minor : 0);
	else
		fputs("sm -", out);
	fputs(", ", out);
	int_or_dash(out, "%d", d->sm_count);
	fprintf(out, " SMs, %s)\n", d->spec_key ? d->spec_key : "not in catalog");
	fprintf(out, "    uuid %s  pci %s  numa ", d->uuid ? d->uuid : "-",
		d->pci_bus_id ? d->pci_bus_id : "-");
	if (d->numa_node >= 0)
		fprintf(out, "%d\n", d->numa_node);
	else
		fputs("-\n", out);
	fputs("    memory ", out);
	num(out, "%.1f GiB", d->memory_bytes / (1024.0 * 1024 * 1024));
	fputs(", L2 ", out);
	num(out, "%.0f MiB", d->l2_bytes / (1024.0 * 1024));
	fputs(", bus ", out);
	int_or_dash(out, "%d bits", d->mem_bus_bits);
	fputs("; clocks max SM ", out);
	num(out, "%.0f", d->max_sm_mhz);
	fputs(" MHz, memory ", out);
	num(out, "%.0f", d->max_mem_mhz);
	fputs(" MHz\n", out);
	/* the device record is read before any load: H100s idle at Gen1 */
	gb_fmt_pcie(now, sizeof(now), d->pcie_gen, d->pcie_width);
	gb_fmt_pcie(max, sizeof(max), d->pcie_max_gen, d->pcie_max_width);
	fprintf(out, "    PCIe %s%s (max %s", now, strcmp(now, "-") ? " (idle)" : "", max);
	/* the slot holds the GPU back: say what the GPU itself could do */
	if (d->pcie_gpu_max_gen > d->pcie_max_gen && d->pcie_max_gen > 0)
		fprintf(out, "; the GPU does gen %d", d->pcie_gpu_max_gen);
	fputs("); power limit ", out);
	num(out, "%.0f W", d->power_limit_w);
	fprintf(out, "; ECC %s; NVLink links up ", d->ecc < 0 ? "-" : d->ecc ? "on" : "off");
	if (d->nvlink_up >= 0)
		fprintf(out, "%d\n", d->nvlink_up);
	else
		fputs("-\n", out);
	print_peaks(out, d);
	print_published_figures(out, d);
}

/* "NV18 yes", "SYS no", "PHB -" */
static void link_cell(char *buf, size_t len, const struct gb_link *l)
{
	char abbrev[16];

	if (!l) {
		snprintf(buf, len, "-");
		return;
	}
	gb_fmt_link(abbrev, sizeof(abbrev), l);
	snprintf(buf, len, "%s %s", abbrev,
		 l->p2p_access < 0 ? "-" : l->p2p_access ? "yes" : "no");
}

/* two GPUs: two lines say it best */
static void topology_list(FILE *out, const struct gb_run *run)
{
	fputs("\ntopology (row -> column: link type, P2P access)\n", out);
	for (size_t i = 0; i < run->n_links; i++) {
		const struct gb_link *l = &run->links[i];

		fprintf(out, "  GPU %d -> GPU %d  %-16s", l->a, l->b, l->type ? l->type : "unknown");
		if (l->nvlink_count > 0)
			fprintf(out, " %d links", l->nvlink_count);
		fprintf(out, "  p2p %s\n",
			l->p2p_access < 0 ? "unknown" : l->p2p_access ? "yes" : "no");
	}
}

/* three or more: an nvidia-smi topo -m style grid, row -> column */
static void topology_grid(FILE *out, const struct gb_run *run)
{
	size_t n = run->n_devices, w = 4;
	char cell[48];

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			if (i == j)
				continue;
			link_cell(cell, sizeof(cell),
				  gb_run_find_link(run, run->devices[i].index,
						   run->devices[j].index));
			if (strlen(cell) > w)
				w = strlen(cell);
		}
	}
	fputs("\ntopology (row -> column: link, P2P access)\n        ", out);
	for (size_t j = 0; j < n; j++) {
		snprintf(cell, sizeof(cell), "GPU%d", run->devices[j].index);
		fprintf(out, "  %-*s", (int)w, cell);
	}
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		snprintf(cell, sizeof(cell), "GPU%d", run->devices[i].index);
		fprintf(out, "  %-6s", cell);
		for (size_t j = 0; j < n; j++) {
			if (i == j)
				snprintf(cell, sizeof(cell), "X");
			else
				link_cell(cell, sizeof(cell),
					  gb_run_find_link(run, run->devices[i].index,
							   run->devices[j].index));
			fprintf(out, "  %-*s", (int)w, cell);
		}
		fputc('\n', out);
	}
	fprintf(out, "  %s\n", gb_fmt_link_legend);
}

static void print_topology(FILE *out, const struct gb_run *run)
{
	if (run->n_devices < 2 || !run->n_links)
		return;
	if (run->n_devices == 2)
		topology_list(out, run);
	else
		topology_grid(out, run);
}

static void print_versions(FILE *out, const struct gb_run *run)
{
	const struct gb_host_info *h = &run->host;
	char drv[16], rt[16], lt[24], nccl[24];

	gb_fmt_cuda_version(drv, sizeof(drv), h->cuda_driver_version);
	gb_fmt_cuda_version(rt, sizeof(rt), h->cuda_runtime_version);
	gb_fmt_lib_version(lt, sizeof(lt), h->cublaslt_version);
	gb_fmt_lib_version(nccl, sizeof(nccl), h->nccl_version);
	fprintf(out, "host %s  driver %s  CUDA driver %s  runtime %s",
		h->hostname ? h->hostname : "-", h->driver_version ? h->driver_version : "-", drv,
		rt);
	/* the libraries only when loaded: a run that used none has no version to show */
	if (h->cublaslt_version >= 0)
		fprintf(out, "  cuBLASLt %s", lt);
	if (h->nccl_version >= 0)
		fprintf(out, "  NCCL %s", nccl);
	fputc('\n', out);
}

static void print_metric(FILE *out, const struct gb_metric *m, const char *node)
{
	fprintf(out, "    %-28s", m->name);
	if (m->device >= 0)
		fprintf(out, " GPU %d ", m->device);
	else
		fputs("       ", out);
	num(out, "%12.4g", m->value);
	fprintf(out, " %-9s", m->unit ? m->unit : "");
	if (m->stats.n > 1)
		fprintf(out, "  cv %.2f%% (n=%zu, %.4g..%.4g)", m->stats.cv * 100, m->stats.n,
			m->stats.min, m->stats.max);
	if (isfinite(m->efficiency))
		fprintf(out, "  %.1f%% of peak", m->efficiency * 100);
	if (m->published && isfinite(m->value))
		fprintf(out, "  %.0f%% of published %s (%.4g)",
			m->value / m->published->value * 100, m->published->model,
			m->published->value);
	if (node)
		fprintf(out, "  [%s]", node);
	fputc('\n', out);
}

struct fleet_view {
	struct gb_fleet_node *nodes; /* NULL unless a fleet report */
	size_t n;
};

static const char *node_of(const struct fleet_view *fv, int device)
{
	return fv->nodes ? gb_fleet_node_of(fv->nodes, fv->n, device) : NULL;
}

/*
 * A merged fleet's own entry holds the fleet-wide checks (outliers, nodes
 * that could not run); its status is not the fleet's verdict, so it is not
 * printed: the one verdict is the "verdict:" line at the end.
 */
static bool is_fleet_entry(const struct gb_bench_result *b, const struct fleet_view *fv)
{
	return fv->nodes && !strcmp(b->name, "fleet");
}

/* " → action: reset the GPU" and, when the GPU failed again elsewhere, why it went up */
static void print_action(FILE *out, const struct gb_check *c)
{
	char what[1024];

	gb_fault_action_text(c, what, sizeof(what));
	fputs(what, out);
}

static void print_bench(FILE *out, const struct gb_bench_result *b, const struct gb_text_opts *o,
			const struct fleet_view *fv)
{
	if (is_fleet_entry(b, fv)) {
		if (!b->n_checks && !b->n_metrics)
			return;
		fputs("\nfleet checks\n", out);
	} else {
		fprintf(out, "\n%s: ", b->name);
		print_status(out, b->status, o);
		if (b->reason)
			fprintf(out, " (%s)", b->reason);
		fputc('\n', out);
	}
	for (size_t i = 0; i < b->n_metrics; i++)
		print_metric(out, &b->metrics[i], node_of(fv, b->metrics[i].device));
	for (size_t i = 0; i < b->n_checks; i++) {
		const struct gb_check *c = &b->checks[i];

		fputs("    check ", out);
		print_status(out, c->status, o);
		/* four GPUs give four lines of one name: each says whose it is */
		if (c->device >= 0)
			fprintf(out, " %s (GPU %d", c->name, c->device);
		else
			fprintf(out, " %s (machine-wide", c->name);
		if (node_of(fv, c->device))
			fprintf(out, ", %s", node_of(fv, c->device));
		fprintf(out, "): %s", c->message ? c->message : "");
		print_action(out, c);
		fputc('\n', out);
	}
}

/* one row per node, so a reader sees where an outlier is */
static void print_nodes(FILE *out, const struct fleet_view *fv)
{
	size_t wh = 4, wf = 4;
	char gpus[128];

	for (size_t i = 0; i < fv->n; i++) {
		if (strlen(fv->nodes[i].host) > wh)
			wh = strlen(fv->nodes[i].host);
		if (strlen(fv->nodes[i].file) > wf)
			wf = strlen(fv->nodes[i].file);
	}
	fprintf(out, "\nnodes (%zu)\n  %-*s  %-*s  %-11s  %-12s  %6s  %8s\n", fv->n, (int)wh,
		"node", (int)wf, "file", "own verdict", "GPUs", "failed", "warnings");
	for (size_t i = 0; i < fv->n; i++) {
		const struct gb_fleet_node *nd = &fv->nodes[i];

		gb_fleet_device_list(gpus, sizeof(gpus), nd->devices, nd->n_devices);
		fprintf(out, "  %-*s  %-*s  %-11s  %-12s  %6zu  %8zu\n", (int)wh, nd->host, (int)wf,
			nd->file, nd->verdict, gpus, nd->failed, nd->warnings);
	}
}

void gb_text_print(const struct gb_run *run, FILE *out, const struct gb_text_opts *o)
{
	struct fleet_view fv = { NULL, 0 };
	char sim[600];
	bool suite = run->command && !strcmp(run->command, "run");

	/* first, before any number: a simulated report must never pass for a measured one */
	gb_fmt_simulated(sim, sizeof(sim), run);
	if (sim[0])
		fprintf(out, "%s\n", sim);
	fv.nodes = gb_fleet_nodes(run, &fv.n);
	print_versions(out, run);
	if (fv.nodes)
		print_nodes(out, &fv);
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];
		const char *node = node_of(&fv, d->index);

		if (o->device_detail) {
			fputc('\n', out);
			print_device_detail(out, d, node);
		} else {
			fprintf(out, "GPU %d  %s%s%s  %s\n", d->index, node ? node : "",
				node ? "  " : "", d->name ? d->name : "?",
				d->pci_bus_id ? d->pci_bus_id : "");
		}
	}
	if (o->device_detail)
		print_topology(out, run);
	for (size_t i = 0; i < run->n_benches; i++)
		print_bench(out, &run->benches[i], o, &fv);
	/* run ends with one screen: counts and the failures by cause, not one line each */
	if (suite)
		gb_run_summary_print(run, out);
	fputs(suite ? "verdict: " : "\nverdict: ", out);
	print_status(out, run->verdict, o);
	if (run->reason)
		fprintf(out, " (%s)", run->reason);
	fputc('\n', out);
	for (size_t i = 0; !suite && i < run->n_verdict_failed; i++)
		fprintf(out, "  failed: %s\n", run->verdict_failed[i]);
	for (size_t i = 0; i < run->n_verdict_warnings; i++)
		fprintf(out, "  warning: %s\n", run->verdict_warnings[i]);
	gb_fleet_nodes_free(fv.nodes, fv.n);
}
