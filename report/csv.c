/* SPDX-License-Identifier: MIT */
/*
 * csv.c - the metrics of a report as CSV (RFC 4180: CRLF line ends, quoted
 * fields where needed), one row per metric, for spreadsheets and pandas.
 * An info report has no metrics: its CSV is one row per GPU instead, with
 * what info measures (PCIe current and max, NVLink, power limit, ECC,
 * peaks) and the GPU's links to the others in one "topology" field.
 * Numbers are exact (they read back as the same double); unknown is empty.
 * Every row of both ends with a "simulated" field (true/false,
 * host.simulated): a row copied out of the file into a spreadsheet or a
 * dataframe still says whether it was measured. It is the last column so
 * readers that take the others by position are undisturbed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/format_util.h"
#include "report/writers.h"
#include "theory.h"

static const char *const columns[] = {
	"benchmark", "metric", "device", "value", "unit", "median", "min",
	"max",       "stdev",  "cv",     "peak",  "efficiency", "simulated", NULL,
};

static void num_field(FILE *out, double v)
{
	char buf[48];

	gb_fmt_exact(buf, sizeof(buf), v);
	fputc(',', out);
	fputs(buf, out);
}

/* the last field of every row, then the row's end */
static void end_row(FILE *out, const struct gb_run *run)
{
	fprintf(out, ",%s\r\n", gb_fmt_bool(run->host.simulated));
}

static void metric_row(FILE *out, const struct gb_run *run, const struct gb_bench_result *b,
		       const struct gb_metric *m)
{
	bool st = m->stats.n > 0;

	gb_fmt_csv(out, b->name);
	fputc(',', out);
	gb_fmt_csv(out, m->name);
	fputc(',', out);
	if (m->device >= 0)
		fprintf(out, "%d", m->device);
	num_field(out, m->value);
	fputc(',', out);
	gb_fmt_csv(out, m->unit);
	num_field(out, st ? m->stats.median : NAN);
	num_field(out, st ? m->stats.min : NAN);
	num_field(out, st ? m->stats.max : NAN);
	num_field(out, st ? m->stats.stdev : NAN);
	num_field(out, st ? m->stats.cv : NAN);
	num_field(out, m->peak);
	num_field(out, m->efficiency);
	end_row(out, run);
}

/* ---- info: one row per GPU ---- */

static void int_field(FILE *out, int v, int min)
{
	fputc(',', out);
	if (v >= min)
		fprintf(out, "%d", v);
}

static void pos_field(FILE *out, double v)
{
	num_field(out, isfinite(v) && v > 0 ? v : NAN);
}

/* "1:NV18 p2p yes;2:SYS p2p no" */
static void topology_field(FILE *out, const struct gb_run *run, const struct gb_device_info *d)
{
	char *s = gb_strdup(""), cell[32];

	for (size_t i = 0; i < run->n_links; i++) {
		const struct gb_link *l = &run->links[i];
		char *t;

		if (l->a != d->index)
			continue;
		gb_fmt_link(cell, sizeof(cell), l);
		t = gb_strdupf("%s%s%d:%s p2p %s", s, *s ? ";" : "", l->b, cell,
			       l->p2p_access < 0 ? "unknown" : l->p2p_access ? "yes" : "no");
		free(s);
		s = t;
	}
	fputc(',', out);
	gb_fmt_csv(out, s);
	free(s);
}

static void device_header(FILE *out)
{
	fputs("device,name,uuid,pci_bus_id,cc,spec_key,sm_count,memory_bytes,l2_bytes,max_sm_mhz,"
	      "max_mem_mhz,memory_bus_bits,pcie_gen,pcie_width,pcie_max_gen,pcie_max_width,"
	      "power_limit_w,ecc,numa_node,nvlink_links_up,nvlink_gen",
	      out);
	for (int k = 0; k < 2; k++)
		for (int p = 0; p < GB_PREC_COUNT; p++)
			fprintf(out, ",peak_%s_%s_flops", gb_precision_name((enum gb_precision)p),
				k ? "max_clock" : "spec");
	fputs(",memory_bw_spec_bps,memory_bw_clocks_bps,pcie_bps_per_direction,"
	      "pcie_bps_per_direction_current,nvlink_bps_per_direction,topology,simulated\r\n",
	      out);
}

static void device_row(FILE *out, const struct gb_run *run, const struct gb_device_info *d)
{
	char cc[24] = "";

	fprintf(out, "%d,", d->index);
	gb_fmt_csv(out, d->name);
	fputc(',', out);
	gb_fmt_csv(out, d->uuid);
	fputc(',', out);
	gb_fmt_csv(out, d->pci_bus_id);
	if (d->cc_major > 0)
		snprintf(cc, sizeof(cc), "%d.%d", d->cc_major, d->cc_minor);
	fprintf(out, ",%s,", cc);
	gb_fmt_csv(out, d->spec_key);
	int_field(out, d->sm_count, 1);
	pos_field(out, d->memory_bytes);
	pos_field(out, d->l2_bytes);
	pos_field(out, d->max_sm_mhz);
	pos_field(out, d->max_mem_mhz);
	int_field(out, d->mem_bus_bits, 1);
	int_field(out, d->pcie_gen, 1);
	int_field(out, d->pcie_width, 1);
	int_field(out, d->pcie_max_gen, 1);
	int_field(out, d->pcie_max_width, 1);
	pos_field(out, d->power_limit_w);
	int_field(out, d->ecc, 0);
	int_field(out, d->numa_node, 0);
	int_field(out, d->nvlink_up, 0);
	int_field(out, d->nvlink_gen, 1);
	for (int k = 0; k < 2; k++)
		for (int p = 0; p < GB_PREC_COUNT; p++)
			pos_field(out, k ? d->peaks.max_clock[p] : d->peaks.spec[p]);
	pos_field(out, d->peaks.mem_bw_bps_spec);
	pos_field(out, d->peaks.mem_bw_bps);
	pos_field(out, d->peaks.pcie_bps);
	pos_field(out, d->peaks.pcie_bps_current);
	pos_field(out, d->peaks.nvlink_bps);
	topology_field(out, run, d);
	end_row(out, run);
}

int gb_report_csv(const struct gb_run *run, FILE *out)
{
	if (run->command && !strcmp(run->command, "info")) {
		device_header(out);
		for (size_t i = 0; i < run->n_devices; i++)
			device_row(out, run, &run->devices[i]);
		return gb_fmt_finish(out);
	}
	for (size_t i = 0; columns[i]; i++)
		fprintf(out, "%s%s", i ? "," : "", columns[i]);
	fputs("\r\n", out);
	for (size_t i = 0; i < run->n_benches; i++)
		for (size_t j = 0; j < run->benches[i].n_metrics; j++)
			metric_row(out, run, &run->benches[i], &run->benches[i].metrics[j]);
	return gb_fmt_finish(out);
}
