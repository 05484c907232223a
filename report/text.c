/* SPDX-License-Identifier: MIT */
/*
 * text.c - the human summary: what a person at a terminal reads. The JSON
 * report holds everything; this shows what matters, with units and spread.
 */
#include "text.h"

#include <math.h>
#include <string.h>

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
	fputs(", current ", out);
	num(out, "%.1f", d->peaks.pcie_bps_current / 1e9);
	if (isfinite(d->peaks.nvlink_bps)) {
		fputs(", NVLink ", out);
		num(out, "%.0f", d->peaks.nvlink_bps / 1e9);
	}
	fputc('\n', out);
}

static void print_device_detail(FILE *out, const struct gb_device_info *d)
{
	fprintf(out, "GPU %d  %s  (sm_%d%d, %d SMs, %s)\n", d->index, d->name ? d->name : "?",
		d->cc_major, d->cc_minor, d->sm_count, d->spec_key ? d->spec_key : "not in catalog");
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
	fprintf(out, ", bus %d bits; clocks max SM ", d->mem_bus_bits);
	num(out, "%.0f", d->max_sm_mhz);
	fputs(" MHz, memory ", out);
	num(out, "%.0f", d->max_mem_mhz);
	fputs(" MHz\n", out);
	fprintf(out, "    PCIe gen %d x%d (max gen %d x%d); power limit ", d->pcie_gen, d->pcie_width,
		d->pcie_max_gen, d->pcie_max_width);
	num(out, "%.0f W", d->power_limit_w);
	fprintf(out, "; ECC %s; NVLink links up %d\n",
		d->ecc < 0 ? "unknown" : d->ecc ? "on" : "off", d->nvlink_up);
	print_peaks(out, d);
}

static void print_topology(FILE *out, const struct gb_run *run)
{
	if (run->n_devices < 2)
		return;
	fputs("\ntopology (row -> column: link type, P2P access)\n", out);
	for (size_t i = 0; i < run->n_links; i++) {
		const struct gb_link *l = &run->links[i];

		fprintf(out, "  GPU %d -> GPU %d  %-16s", l->a, l->b, l->type);
		if (l->nvlink_count > 0)
			fprintf(out, " %d links", l->nvlink_count);
		fprintf(out, "  p2p %s\n",
			l->p2p_access < 0 ? "unknown" : l->p2p_access ? "yes" : "no");
	}
}

static void print_versions(FILE *out, const struct gb_run *run)
{
	const struct gb_host_info *h = &run->host;

	fprintf(out, "host %s  driver %s  CUDA driver %d.%d  runtime %d.%d",
		h->hostname ? h->hostname : "-", h->driver_version ? h->driver_version : "-",
		h->cuda_driver_version / 1000, (h->cuda_driver_version % 1000) / 10,
		h->cuda_runtime_version / 1000, (h->cuda_runtime_version % 1000) / 10);
	/* encodings: cuBLASLt major*10000 + minor*100 + patch, NCCL the same */
	if (h->cublaslt_version >= 0)
		fprintf(out, "  cuBLASLt %d.%d.%d", h->cublaslt_version / 10000,
			(h->cublaslt_version / 100) % 100, h->cublaslt_version % 100);
	if (h->nccl_version >= 0)
		fprintf(out, "  NCCL %d.%d.%d", h->nccl_version / 10000,
			(h->nccl_version / 100) % 100, h->nccl_version % 100);
	fputc('\n', out);
}

static void print_metric(FILE *out, const struct gb_metric *m)
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
	fputc('\n', out);
}

static void print_bench(FILE *out, const struct gb_bench_result *b, const struct gb_text_opts *o)
{
	fprintf(out, "\n%s: ", b->name);
	print_status(out, b->status, o);
	if (b->reason)
		fprintf(out, " (%s)", b->reason);
	fputc('\n', out);
	for (size_t i = 0; i < b->n_metrics; i++)
		print_metric(out, &b->metrics[i]);
	for (size_t i = 0; i < b->n_checks; i++) {
		const struct gb_check *c = &b->checks[i];

		fputs("    check ", out);
		print_status(out, c->status, o);
		fprintf(out, " %s: %s\n", c->name, c->message ? c->message : "");
	}
}

void gb_text_print(const struct gb_run *run, FILE *out, const struct gb_text_opts *o)
{
	print_versions(out, run);
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];

		if (o->device_detail) {
			fputc('\n', out);
			print_device_detail(out, d);
		} else {
			fprintf(out, "GPU %d  %s  %s\n", d->index, d->name ? d->name : "?",
				d->pci_bus_id ? d->pci_bus_id : "");
		}
	}
	if (o->device_detail)
		print_topology(out, run);
	for (size_t i = 0; i < run->n_benches; i++)
		print_bench(out, &run->benches[i], o);
	fputs("\nverdict: ", out);
	print_status(out, run->verdict, o);
	if (run->reason)
		fprintf(out, " (%s)", run->reason);
	fputc('\n', out);
	for (size_t i = 0; i < run->n_verdict_failed; i++)
		fprintf(out, "  failed: %s\n", run->verdict_failed[i]);
	for (size_t i = 0; i < run->n_verdict_warnings; i++)
		fprintf(out, "  warning: %s\n", run->verdict_warnings[i]);
}
