/* SPDX-License-Identifier: MIT */
/*
 * cmd_theory_text.c - `gpubench theory`'s text output: a label column, then
 * one column per configuration (identity, peaks, published figures, scaling,
 * price, summary, notes), and the catalog for --list. Reads the configurations
 * cmd_theory.c built; computes nothing new.
 * May use: cmd/cmd_theory_internal.h, cmd/ and report/ headers, the C library.
 */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmd.h"
#include "cmd/cmd_theory_internal.h"
#include "cmd/log.h"
#include "report/exitcodes.h"
#include "report/published.h"
#include "report/scaling.h"
#include "report/theory.h"

/* ---- text output: a label column, then one column per configuration ---- */

#define LABEL_W 32
#define COL_W 30
#define CELL 96

/* Terminal columns of a UTF-8 string: count every byte that does not continue a character. */
static int display_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* Pad to width, and keep at least one space before the next column when s is wider. */
static void put_padded(FILE *out, const char *s, int width)
{
	int w = display_width(s);

	fputs(s, out);
	do
		fputc(' ', out);
	while (++w < width);
}

typedef void cell_fn(const struct theory_config *c, const struct theory_params *p, char *buf,
		     size_t len);

static void row(FILE *out, const char *label, cell_fn *fn, const struct theory_config *cfg,
		size_t n, const struct theory_params *p)
{
	char cell[CELL];

	put_padded(out, label, LABEL_W);
	for (size_t i = 0; i < n; i++) {
		fn(&cfg[i], p, cell, sizeof(cell));
		if (i + 1 < n)
			put_padded(out, cell, COL_W);
		else
			fputs(cell, out);
	}
	fputc('\n', out);
}

/* "989.4", "0.25", "1978.9": four significant digits, five from 1000 up. */
static void fmt_tflops(char *buf, size_t len, double tflops)
{
	if (!(tflops > 0))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*g", tflops >= 1000 ? 5 : 4, tflops);
}

static void cell_key(const struct theory_config *c, const struct theory_params *p, char *b,
		     size_t n)
{
	(void)p;
	snprintf(b, n, "%s", c->spec->key);
}

static void cell_name(const struct theory_config *c, const struct theory_params *p, char *b,
		      size_t n)
{
	(void)p;
	snprintf(b, n, "%s", c->spec->name);
}

static void cell_arch(const struct theory_config *c, const struct theory_params *p, char *b,
		      size_t n)
{
	(void)p;
	snprintf(b, n, "sm_%d%d, %d SMs", c->spec->cc_major, c->spec->cc_minor,
		 c->spec->sm_count);
}

static void cell_clocks(const struct theory_config *c, const struct theory_params *p, char *b,
			size_t n)
{
	(void)p;
	snprintf(b, n, "%.0f / %.0f MHz", c->spec->boost_mhz, c->spec->tensor_mhz);
}

static void cell_memory(const struct theory_config *c, const struct theory_params *p, char *b,
			size_t n)
{
	(void)p;
	snprintf(b, n, "%.0f GB, %.0f GB/s", c->spec->memory_gb, c->spec->mem_bw_bps / 1e9);
}

static void cell_pcie(const struct theory_config *c, const struct theory_params *p, char *b,
		      size_t n)
{
	(void)p;
	snprintf(b, n, "Gen%d x16, %.1f GB/s", c->spec->pcie_gen,
		 gb_pcie_bandwidth_bps(c->spec->pcie_gen, 16) / 1e9);
}

static void cell_nvlink(const struct theory_config *c, const struct theory_params *p, char *b,
			size_t n)
{
	const struct gb_gpu_spec *s = c->spec;

	(void)p;
	if (s->nvlink_gen <= 0 || s->nvlink_links <= 0)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "gen %d × %d, %.0f GB/s", s->nvlink_gen, s->nvlink_links,
			 s->nvlink_links * gb_nvlink_link_bps(s->nvlink_gen) / 1e9);
}

static void cell_tdp(const struct theory_config *c, const struct theory_params *p, char *b,
		     size_t n)
{
	(void)p;
	snprintf(b, n, "%.0f W", c->spec->tdp_w);
}

static void print_identity(FILE *out, const struct theory_config *cfg, size_t n,
			   const struct theory_params *p)
{
	row(out, "GPU", cell_key, cfg, n, p);
	row(out, "name", cell_name, cfg, n, p);
	row(out, "architecture", cell_arch, cfg, n, p);
	row(out, "clocks (boost / tensor)", cell_clocks, cfg, n, p);
	row(out, "memory", cell_memory, cfg, n, p);
	row(out, "PCIe per direction", cell_pcie, cfg, n, p);
	row(out, "NVLink per direction", cell_nvlink, cfg, n, p);
	row(out, "TDP", cell_tdp, cfg, n, p);
}

static void print_peaks(FILE *out, const struct theory_config *cfg, size_t n)
{
	char label[40], cell[CELL], spec[24], tab[24];

	fputs("\npeak TFLOPS per GPU (TOPS for int8), dense: spec sheet / tables at spec clock\n",
	      out);
	for (int pr = 0; pr < GB_PREC_COUNT; pr++) {
		snprintf(label, sizeof(label), "  %s", gb_precision_name(pr));
		put_padded(out, label, LABEL_W);
		for (size_t i = 0; i < n; i++) {
			fmt_tflops(spec, sizeof(spec), cfg[i].spec->spec_tflops[pr]);
			fmt_tflops(tab, sizeof(tab),
				   gb_gpu_spec_peak_flops(cfg[i].spec, pr) / 1e12);
			snprintf(cell, sizeof(cell), "%s / %s", spec, tab);
			if (i + 1 < n)
				put_padded(out, cell, COL_W);
			else
				fputs(cell, out);
		}
		fputc('\n', out);
	}
}

static void published_cell(const struct gb_gpu_spec *s, size_t row, char *b, size_t n)
{
	const struct gb_published *f = gb_published_get(s->key, gb_published_figures[row].figure);
	int pr = gb_published_figures[row].precision;

	if (!f)
		snprintf(b, n, "-");
	else if (pr >= 0 && s->spec_tflops[pr] > 0)
		snprintf(b, n, "%.4g %s, %.0f%% of spec", f->value, gb_published_figures[row].unit,
			 f->value / s->spec_tflops[pr] * 100);
	else
		snprintf(b, n, "%.4g %s", f->value, gb_published_figures[row].unit);
}

/* What healthy GPUs of the model reach, measured by others (docs/published.md). */
static void print_published(FILE *out, const struct theory_config *cfg, size_t n)
{
	char label[48], cell[CELL];

	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= gb_published_count(cfg[i].spec->key) > 0;
	if (!any) {
		fputs("\nmeasured by others: nothing published for this model yet "
		      "(docs/published.md)\n",
		      out);
		return;
	}
	fputs("\nmeasured by others: what healthy GPUs reach (sources: docs/published.md)\n", out);
	for (size_t r = 0; r < GB_PUBLISHED_N_FIGURES; r++) {
		snprintf(label, sizeof(label), "  %s", gb_published_figures[r].label);
		put_padded(out, label, LABEL_W);
		for (size_t i = 0; i < n; i++) {
			published_cell(cfg[i].spec, r, cell, sizeof(cell));
			if (i + 1 < n)
				put_padded(out, cell, COL_W);
			else
				fputs(cell, out);
		}
		fputc('\n', out);
	}
}

static void cell_step(const struct theory_config *c, const struct theory_params *p, char *b,
		      size_t n)
{
	static const char *const why[] = { "", "", " (from work)", " (scaled by peak)" };

	(void)p;
	snprintf(b, n, "%.1f ms%s", c->in.t_compute_s * 1e3, why[c->step_source]);
}

static void cell_link(const struct theory_config *c, const struct theory_params *p, char *b,
		      size_t n)
{
	(void)p;
	snprintf(b, n, "%s%s", c->link->name, c->link_given ? "" : " (default)");
}

static void cell_busbw(const struct theory_config *c, const struct theory_params *p, char *b,
		       size_t n)
{
	(void)p;
	snprintf(b, n, "%.1f GB/s%s", c->in.link.busbw_bps / 1e9,
		 c->link_measured ? " (given)" : c->link->placeholder ? " (placeholder)"
								      : " (nominal)");
}

static void cell_alpha(const struct theory_config *c, const struct theory_params *p, char *b,
		       size_t n)
{
	(void)p;
	snprintf(b, n, "%.1f us per step", c->in.link.alpha_s * 1e6);
}

static void cell_buckets(const struct theory_config *c, const struct theory_params *p, char *b,
			 size_t n)
{
	char sz[32];

	(void)p;
	gb_format_bytes(sz, sizeof(sz), c->out.bucket_bytes);
	if (c->out.n_buckets > 0)
		snprintf(b, n, "%d × %s", c->out.n_buckets, sz);
	else
		snprintf(b, n, "none");
}

static void cell_allreduce(const struct theory_config *c, const struct theory_params *p,
			   char *b, size_t n)
{
	(void)p;
	snprintf(b, n, "%.2f / %.2f ms", c->out.t_allreduce_s * 1e3,
		 c->out.t_last_bucket_s * 1e3);
}

static void cell_speedup(const struct theory_config *c, const struct theory_params *p, char *b,
			 size_t n)
{
	(void)p;
	snprintf(b, n, "%.2f–%.2f× (ideal %d×)", c->out.speedup_no_overlap,
		 c->out.speedup_perfect, c->in.n_gpus);
}

/* A run that cannot overlap: the no-overlap speedup with and without the overhead. */
static void cell_no_overlap(const struct theory_config *c, const struct theory_params *p,
			    char *b, size_t n)
{
	(void)p;
	snprintf(b, n, "%.2f–%.2f×", c->out.speedup_no_overlap, c->out.speedup_no_overlap_max);
}

static void cell_efficiency(const struct theory_config *c, const struct theory_params *p,
			    char *b, size_t n)
{
	(void)p;
	snprintf(b, n, "%.1f–%.1f%%", c->out.efficiency_no_overlap * 100,
		 c->out.efficiency_perfect * 100);
}

/* Throughput against one GPU of the first configuration: speedup x (its step / this step). */
static void cell_throughput(const struct theory_config *c, const struct theory_params *p,
			    char *b, size_t n)
{
	(void)p;
	snprintf(b, n, "%.2f–%.2f", c->out.speedup_no_overlap * c->rel_speed,
		 c->out.speedup_perfect * c->rel_speed);
}

static void print_scaling(FILE *out, const struct theory_config *cfg, size_t n,
			  const struct theory_params *p)
{
	char gb[32], label[64];

	gb_format_bytes(gb, sizeof(gb), (double)p->grad_bytes);
	fprintf(out, "\nscaling of %d GPUs: %s of gradients per step, overhead %.0f%%\n",
		(int)p->count, gb, p->overhead * 100);
	row(out, "step on one GPU", cell_step, cfg, n, p);
	row(out, "all-reduce link", cell_link, cfg, n, p);
	row(out, "bus bandwidth", cell_busbw, cfg, n, p);
	row(out, "latency", cell_alpha, cfg, n, p);
	row(out, "buckets", cell_buckets, cfg, n, p);
	row(out, "all-reduce: all / last bucket", cell_allreduce, cfg, n, p);
	row(out, "speedup: no / perfect overlap", cell_speedup, cfg, n, p);
	row(out, "without overlap", cell_no_overlap, cfg, n, p);
	row(out, "efficiency", cell_efficiency, cfg, n, p);
	if (n > 1) {
		snprintf(label, sizeof(label), "throughput (1× %s = 1)", cfg[0].spec->key);
		row(out, label, cell_throughput, cfg, n, p);
	}
}

static void cell_price(const struct theory_config *c, const struct theory_params *p, char *b,
		       size_t n)
{
	(void)p;
	if (isnan(c->price))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "$%.2f per GPU-hour", c->price);
}

static void cell_cost1(const struct theory_config *c, const struct theory_params *p, char *b,
		       size_t n)
{
	(void)p;
	if (isnan(c->price))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "$%#.3g",
			 gb_cost_per_tflops_hour(c->price, c->headline_flops / 1e12));
}

static void cell_cost_n(const struct theory_config *c, const struct theory_params *p, char *b,
			size_t n)
{
	double tf = c->headline_flops / 1e12;

	(void)p;
	if (isnan(c->price))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "$%#.3g–%#.3g",
			 gb_cost_per_tflops_hour_scaled(c->price, c->in.n_gpus, tf,
							c->out.speedup_perfect),
			 gb_cost_per_tflops_hour_scaled(c->price, c->in.n_gpus, tf,
							c->out.speedup_no_overlap));
}

static void print_price(FILE *out, const struct theory_config *cfg, size_t n,
			const struct theory_params *p)
{
	char label[64];
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= !isnan(cfg[i].price);
	if (!any)
		return;
	fprintf(out, "\ncost per delivered %s TFLOPS-hour (spec-sheet peak)\n",
		precision_choices[p->precision]);
	row(out, "price", cell_price, cfg, n, p);
	row(out, "one GPU", cell_cost1, cfg, n, p);
	snprintf(label, sizeof(label), "%d GPUs, after scaling losses", (int)p->count);
	row(out, label, cell_cost_n, cfg, n, p);
}

/* "NVIDIA H100 SXM5 80GB" -> "H100 SXM5 80GB": the vendor is the same for every entry. */
static const char *short_name(const struct gb_gpu_spec *s)
{
	return strncmp(s->name, "NVIDIA ", 7) ? s->name : s->name + 7;
}

static void print_summary(FILE *out, const struct theory_config *c)
{
	if (c->in.n_gpus == 1) {
		fprintf(out, "1× %s: 1× by definition (one GPU, nothing to all-reduce)\n",
			short_name(c->spec));
		return;
	}
	fprintf(out, "%d× %s over %s%s: %.2f–%.2f× predicted (ideal %d×), %.2f–%.2f× without "
		"overlap\n",
		c->in.n_gpus, short_name(c->spec), c->link->label,
		c->link_measured ? " at the given busbw" : "", c->out.speedup_no_overlap,
		c->out.speedup_perfect, c->in.n_gpus, c->out.speedup_no_overlap,
		c->out.speedup_no_overlap_max);
}

static void print_notes(FILE *out, const struct theory_config *cfg, size_t n, int count)
{
	for (size_t i = 0; i < n; i++)
		if (count > 1 && cfg[i].link->placeholder && !cfg[i].link_measured)
			fprintf(out,
				"note: the bandwidth of %s is a placeholder (docs/scaling.md); "
				"measure it with 'gpubench nccl'%s\n",
				cfg[i].link->label, i == 0 ? " and pass '--busbw'" : "");
	if (count > 8)
		fputs("note: more than 8 GPUs usually span nodes; the model assumes one link "
		      "domain and no network\n",
		      out);
}

void print_text(FILE *out, const struct theory_config *cfg, size_t n,
		const struct theory_params *p)
{
	print_identity(out, cfg, n, p);
	print_peaks(out, cfg, n);
	print_published(out, cfg, n);
	print_scaling(out, cfg, n, p);
	print_price(out, cfg, n, p);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++)
		print_summary(out, &cfg[i]);
	print_notes(out, cfg, n, (int)p->count);
}

/* ---- --list ---- */

void list_catalog(FILE *out)
{
	fprintf(out, "%-16s %-26s %-6s %4s %7s %10s %8s %8s %8s %5s %8s %6s\n", "key", "name",
		"arch", "SMs", "memory", "mem BW", "FP32", "BF16", "FP8", "PCIe", "NVLink", "TDP");
	for (const struct gb_gpu_spec *s = gb_gpu_catalog(); s->key; s++) {
		char arch[16], nvl[16], fp32[16], bf16[16], fp8[16];

		snprintf(arch, sizeof(arch), "sm_%d%d", s->cc_major, s->cc_minor);
		if (s->nvlink_gen > 0)
			snprintf(nvl, sizeof(nvl), "%d × %d", s->nvlink_gen, s->nvlink_links);
		else
			snprintf(nvl, sizeof(nvl), "-");
		fmt_tflops(fp32, sizeof(fp32), s->spec_tflops[GB_PREC_FP32]);
		/* Volta and Turing publish FP16 only; show it where BF16 does not exist. */
		fmt_tflops(bf16, sizeof(bf16),
			   s->spec_tflops[GB_PREC_BF16] > 0 ? s->spec_tflops[GB_PREC_BF16]
							    : s->spec_tflops[GB_PREC_FP16]);
		fmt_tflops(fp8, sizeof(fp8), s->spec_tflops[GB_PREC_FP8]);
		fprintf(out, "%-16s %-26s %-6s %4d %4.0f GB %5.0f GB/s %8s %8s %8s %5d ", s->key,
			s->name, arch, s->sm_count, s->memory_gb, s->mem_bw_bps / 1e9, fp32, bf16,
			fp8, s->pcie_gen);
		put_padded(out, nvl, 8);
		fprintf(out, " %4.0f W\n", s->tdp_w);
	}
	fputs("\nTFLOPS dense, from published spec sheets (BF16 column: FP16 on V100 and T4);\n"
	      "sources in docs/theory.md. 'gpubench theory --gpu KEY' prints one in full.\n",
	      out);
}
