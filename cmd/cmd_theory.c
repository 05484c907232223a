/* SPDX-License-Identifier: MIT */
/*
 * cmd_theory.c - `gpubench theory`: a catalog GPU's spec-sheet peaks and the
 * predicted data-parallel scaling of N of them over a link, optionally priced
 * and side by side with a second configuration. Pure arithmetic on
 * report/theory.c and report/scaling.c: it needs no GPU and never probes one.
 * The text output and --list are in cmd_theory_text.c (shared types:
 * cmd_theory_internal.h).
 */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#include "cmd/cmd_theory_internal.h"
#include "log.h"
#include "report/exitcodes.h"
#include "report/published.h"
#include "report/scaling.h"
#include "report/theory.h"

static const char theory_usage[] =
	"gpubench theory --gpu NAME [--count N] [--link NAME] [--grad-bytes SIZE] "
	"[--step-ms MS | --step-tflop TFLOP] [--price USD] [--compare NAME ...] [options]\n"
	"       gpubench theory --list";
static const char theory_summary[] =
	"Spec-sheet peaks of a GPU from the built-in catalog, and the predicted speedup of N of "
	"them training data-parallel: compute plus the exposed gradient all-reduce, as a "
	"no-overlap to perfect-overlap range. --price adds the cost per TFLOPS-hour; --compare "
	"prints a second configuration beside the first. Needs no GPU. Model: docs/scaling.md.";

/* Defaults that are not expressible as a parsed value (0 / -1 mean "not given"). */
#define DEFAULT_STEP_MS 200.0
#define DEFAULT_MFU 0.5
#define MAX_NAME 64

/* In enum gb_precision order, for the --precision option. */
const char *const precision_choices[] = {
	"fp64", "fp64_tc", "fp32", "tf32", "fp16", "bf16", "fp16acc16", "fp8", "int8", NULL,
};
_Static_assert(sizeof(precision_choices) / sizeof(precision_choices[0]) == GB_PREC_COUNT + 1,
	       "precision_choices must follow enum gb_precision");

#define P(f) offsetof(struct theory_params, f)
static const struct gb_opt theory_opts[] = {
	{ GB_OPT_STRING, 0, "gpu", P(gpu), "NAME",
	  "GPU from the catalog: a key (h100-sxm) or a name (\"RTX 4090\"); see --list", 0, 0,
	  NULL, 0 },
	{ GB_OPT_BOOL, 0, "list", P(list), NULL, "list the catalog of GPUs and exit", 0, 0, NULL,
	  0 },
	{ GB_OPT_COUNT, 0, "count", P(count), "N", "GPUs training data-parallel (default 1)", 1,
	  64, NULL, 0 },
	{ GB_OPT_ENUM, 0, "link", P(link), "NAME",
	  "all-reduce interconnect (default: the GPU's NVLink when N > 1, else its PCIe; "
	  "GeForce without P2P)",
	  0, 0, gb_link_model_names, 0 },
	{ GB_OPT_SIZE, 0, "grad-bytes", P(grad_bytes), "SIZE",
	  "gradient bytes all-reduced per step (default 1G)", 0, 0x1p50, NULL, 0 },
	{ GB_OPT_SIZE, 0, "bucket", P(bucket_bytes), "SIZE",
	  "all-reduce bucket size (default 25M, as PyTorch DDP)", 1, 0x1p50, NULL, 0 },
	{ GB_OPT_DOUBLE, 0, "step-ms", P(step_ms), "MS",
	  "one GPU's compute time per step in ms (default 200)", 1e-3, 1e7, NULL, 0 },
	{ GB_OPT_DOUBLE, 0, "step-tflop", P(step_tflop), "TFLOP",
	  "work per step in TFLOP instead: step = work / (--precision peak x --mfu)", 1e-9, 1e12,
	  NULL, 0 },
	{ GB_OPT_PERCENT, 0, "mfu", P(mfu), "PCT",
	  "fraction of the peak a training step reaches, for --step-tflop (default 50%)", 0.01, 1,
	  NULL, 0 },
	{ GB_OPT_PERCENT, 0, "overhead", P(overhead), "PCT",
	  "delta: compute slowdown from NCCL running beside it; lowers the no-overlap bound "
	  "only (default 2%)", 0, 1, NULL, 0 },
	{ GB_OPT_DOUBLE, 0, "busbw", P(busbw_gbps), "GBPS",
	  "all-reduce bus bandwidth in GB/s, e.g. measured by 'gpubench nccl' (default: the "
	  "link's nominal)",
	  1e-3, 1e6, NULL, 0 },
	{ GB_OPT_DOUBLE, 0, "alpha-us", P(alpha_us), "US",
	  "all-reduce latency per ring step in us (default: NCCL's per-hop figure)", 0, 1e6, NULL,
	  0 },
	{ GB_OPT_DOUBLE, 0, "price", P(price), "USD",
	  "price per GPU-hour in dollars: adds the cost per TFLOPS-hour", 1e-4, 1e6, NULL, 0 },
	{ GB_OPT_ENUM, 0, "precision", P(precision), "NAME",
	  "precision of the headline TFLOPS for --price and --step-tflop (default bf16)", 0, 0,
	  precision_choices, 0 },
	{ GB_OPT_STRING, 0, "compare", P(compare), "NAME",
	  "a second GPU to print beside the first (same --count, gradients and work)", 0, 0, NULL,
	  0 },
	{ GB_OPT_ENUM, 0, "compare-link", P(compare_link), "NAME",
	  "the second GPU's interconnect (default as for --link)", 0, 0, gb_link_model_names, 0 },
	{ GB_OPT_DOUBLE, 0, "compare-price", P(compare_price), "USD",
	  "the second GPU's price per GPU-hour", 1e-4, 1e6, NULL, 0 },
	{ GB_OPT_DOUBLE, 0, "compare-step-ms", P(compare_step_ms), "MS",
	  "the second GPU's step in ms (default: --step-ms x the ratio of the two peaks)", 1e-3,
	  1e7, NULL, 0 },
	GB_OPT_REFUSED('d', "devices", "does not apply: 'theory' uses no GPU (see --gpu)"),
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};
#undef P

static void theory_defaults(struct theory_params *p)
{
	memset(p, 0, sizeof(*p));
	p->count = 1;
	p->link = -1;
	p->grad_bytes = UINT64_C(1) << 30;
	p->bucket_bytes = (uint64_t)GB_DDP_BUCKET_BYTES;
	p->overhead = GB_SCALING_DELTA_DEFAULT;
	p->alpha_us = -1;
	p->precision = GB_PREC_BF16;
	p->compare_link = -1;
}

/* ---- finding a GPU by a key, a name, or close to one ---- */

/* Lowercase letters and digits only: "RTX-4090" and "rtx 4090" both fold to "rtx4090". */
static void fold_alnum(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++)
		if (isalnum((unsigned char)*s))
			buf[n++] = (char)tolower((unsigned char)*s);
	buf[n] = '\0';
}

/*
 * Edit distance from a to the closest prefix of b: a typo or a truncation
 * ("h1000", "rtx40") stays close to the key it was meant to be.
 */
static size_t prefix_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[MAX_NAME + 1], cur[MAX_NAME + 1];
	size_t best;

	if (la > MAX_NAME || lb > MAX_NAME)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(prev));
	}
	best = prev[0];
	for (size_t j = 1; j <= lb; j++)
		if (prev[j] < best)
			best = prev[j];
	return best;
}

/* How far name is from s: 0 when it names s's model or is part of its key. */
static size_t spec_distance(const struct gb_gpu_spec *s, const char *name, const char *folded)
{
	char key[MAX_NAME + 1];

	/* With the entry's own SM count, "NVIDIA H100" resolves to SXM or PCIe alike. */
	if (gb_gpu_spec_match(name, s->sm_count) == s)
		return 0;
	fold_alnum(s->key, key, sizeof(key));
	if (folded[0] && strstr(key, folded))
		return 0;
	return prefix_distance(folded, key);
}

static const struct gb_gpu_spec *find_folded_key(const char *folded)
{
	char key[MAX_NAME + 1];

	for (const struct gb_gpu_spec *s = gb_gpu_catalog(); s->key; s++) {
		fold_alnum(s->key, key, sizeof(key));
		if (!strcmp(key, folded))
			return s;
	}
	return NULL;
}

/* The keys closest to name, comma separated; "" when none is close. */
static void suggest(const char *name, const char *folded, char *buf, size_t len)
{
	size_t best = SIZE_MAX, limit = strlen(folded) / 3, pos = 0;

	buf[0] = '\0';
	/* Nothing to compare: every key would be equally close. */
	if (!folded[0])
		return;
	for (const struct gb_gpu_spec *s = gb_gpu_catalog(); s->key; s++) {
		size_t d = spec_distance(s, name, folded);

		best = d < best ? d : best;
	}
	if (best > (limit > 1 ? limit : 1))
		return;
	for (const struct gb_gpu_spec *s = gb_gpu_catalog(); s->key && pos < len; s++) {
		if (spec_distance(s, name, folded) != best)
			continue;
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", pos ? ", " : "", s->key);
	}
}

/* A key, a key spelled loosely, or a device name that names one model; else an error line. */
static const struct gb_gpu_spec *resolve_gpu(const char *name)
{
	char folded[MAX_NAME + 1], hint[256];
	const struct gb_gpu_spec *s = gb_gpu_spec_by_key(name);

	if (s)
		return s;
	fold_alnum(name, folded, sizeof(folded));
	if ((s = find_folded_key(folded)) || (s = gb_gpu_spec_match(name, 0)))
		return s;
	suggest(name, folded, hint, sizeof(hint));
	if (hint[0])
		gb_error("unknown GPU '%s'; did you mean: %s?", name, hint);
	else
		gb_error("unknown GPU '%s'; see 'gpubench theory --list'", name);
	return NULL;
}

/* ---- one configuration: a GPU, a count, a link, a step, a price ---- */

static const char *const step_source_names[] = { "given", "default", "work", "scaled" };

/* Bridged PCIe boards (A100/H100 PCIe) join pairs only: beyond 2 GPUs the ring uses PCIe. */
static bool nvlink_reaches(const struct gb_gpu_spec *s, int count)
{
	return s->nvlink_gen > 0 && (count == 2 || !strstr(s->key, "pcie"));
}

/*
 * The link a user of this GPU most likely has. GeForce boards get no P2P over
 * PCIe from the stock driver (RTX 4090 confirmed, research 5.4; the 3090 and
 * 5090 assumed alike), so they default to the host-staged path.
 */
static const struct gb_link_model *default_link(const struct gb_gpu_spec *s, int count)
{
	char name[32];

	if (count > 1 && nvlink_reaches(s, count))
		snprintf(name, sizeof(name), "nvlink%d", s->nvlink_gen);
	else if (s->cls == GB_CLASS_GEFORCE && (s->pcie_gen == 4 || s->pcie_gen == 5))
		snprintf(name, sizeof(name), "pcie%d-nop2p", s->pcie_gen);
	else
		snprintf(name, sizeof(name), "pcie%d", s->pcie_gen);
	return gb_link_model_by_name(name);
}

double headline_flops(const struct gb_gpu_spec *s, enum gb_precision p)
{
	double spec = s->spec_tflops[p] * 1e12;

	return spec > 0 ? spec : gb_gpu_spec_peak_flops(s, p);
}

/*
 * A link the GPU cannot have would price the all-reduce at another
 * generation's bandwidth: NVLink only of the GPU's own generation (an A100
 * has NVLink3, never NVLink5), PCIe at most at the GPU's generation (a slower
 * slot is possible, a faster one runs at the GPU's). -1 after one line.
 */
static int link_impossible(const struct theory_config *c, bool primary)
{
	const struct gb_gpu_spec *s = c->spec;
	const char *opt = primary ? "--link" : "--compare-link";

	if (c->link->nvlink_gen > 0 && c->link->nvlink_gen != s->nvlink_gen)
		return gb_error("'%s' has NVLink%d, not '%s'; drop '%s' or use 'nvlink%d'",
				s->key, s->nvlink_gen, c->link->name, opt, s->nvlink_gen);
	if (s->pcie_gen > 0 && c->link->pcie_gen > s->pcie_gen)
		return gb_error("'%s' is a PCIe Gen%d GPU, it cannot run '%s'; use '%s pcie%d' "
				"or lower", s->key, s->pcie_gen, c->link->name, opt, s->pcie_gen);
	return 0;
}

static int set_link(struct theory_config *c, int link_index, const struct theory_params *p,
		    bool primary)
{
	struct gb_ar_link nominal;

	c->link_given = link_index >= 0;
	c->link = c->link_given ? &gb_link_models(NULL)[link_index]
				: default_link(c->spec, (int)p->count);
	if (!c->link)
		return gb_error("no default link for '%s'; give '--link'", c->spec->key);
	if (gb_link_nominal(c->link, c->spec->nvlink_links, &nominal))
		return gb_error("'%s' has no NVLink; use '--%slink pcie%d' or 'pcie%d-nop2p'",
				c->spec->key, primary ? "" : "compare-", c->spec->pcie_gen,
				c->spec->pcie_gen);
	if (c->link_given && link_impossible(c, primary))
		return -1;
	c->in.link = nominal;
	/* A measured price replaces the nominal one, for the first configuration only. */
	if (primary && p->busbw_gbps > 0) {
		c->in.link.busbw_bps = p->busbw_gbps * 1e9;
		c->link_measured = true;
	}
	if (primary && p->alpha_us >= 0)
		c->in.link.alpha_s = p->alpha_us * 1e-6;
	return 0;
}

static int need_headline(const struct theory_config *c, const struct theory_params *p,
			 const char *why)
{
	if (c->headline_flops > 0)
		return 0;
	return gb_error("'%s' has no %s peak, needed for %s; choose another '--precision'",
			c->spec->key, precision_choices[p->precision], why);
}

static double mfu_of(const struct theory_params *p)
{
	return p->mfu > 0 ? p->mfu : DEFAULT_MFU;
}

/* The primary's step: given, default, or from --step-tflop. */
static int set_step(struct theory_config *c, const struct theory_params *p)
{
	if (p->step_tflop > 0) {
		if (need_headline(c, p, "'--step-tflop'"))
			return -1;
		c->in.t_compute_s = gb_step_time_from_work(p->step_tflop * 1e12, c->headline_flops,
							   mfu_of(p));
		c->step_source = STEP_FROM_WORK;
	} else {
		c->in.t_compute_s = (p->step_ms > 0 ? p->step_ms : DEFAULT_STEP_MS) * 1e-3;
		c->step_source = p->step_ms > 0 ? STEP_GIVEN : STEP_DEFAULT;
	}
	return 0;
}

/* The compared GPU does the same work: from --step-tflop, given, or scaled by peak. */
static int set_compare_step(struct theory_config *c, const struct theory_config *first,
			    const struct theory_params *p)
{
	if (p->compare_step_ms > 0) {
		c->in.t_compute_s = p->compare_step_ms * 1e-3;
		c->step_source = STEP_GIVEN;
		return 0;
	}
	if (p->step_tflop > 0)
		return set_step(c, p);
	if (need_headline(first, p, "scaling the step to '--compare'") ||
	    need_headline(c, p, "scaling the step; give '--compare-step-ms'"))
		return -1;
	c->in.t_compute_s = first->in.t_compute_s * first->headline_flops / c->headline_flops;
	c->step_source = STEP_SCALED;
	return 0;
}

static int config_common(struct theory_config *c, const char *gpu, const struct theory_params *p)
{
	memset(c, 0, sizeof(*c));
	c->spec = resolve_gpu(gpu);
	if (!c->spec)
		return -1;
	gb_scaling_in_init(&c->in);
	c->in.n_gpus = (int)p->count;
	c->in.grad_bytes = (double)p->grad_bytes;
	c->in.bucket_bytes = (double)p->bucket_bytes;
	c->in.delta = p->overhead;
	c->headline_flops = headline_flops(c->spec, (enum gb_precision)p->precision);
	return 0;
}

static int config_finish(struct theory_config *c, const struct theory_params *p, double price)
{
	c->price = price > 0 ? price : NAN;
	if (price > 0 && need_headline(c, p, "'--price'"))
		return -1;
	if (gb_scaling_predict(&c->in, &c->out))
		return gb_error("cannot predict scaling for '%s': inputs out of range",
				c->spec->key);
	return 0;
}

static int build_primary(struct theory_config *c, const struct theory_params *p)
{
	if (config_common(c, p->gpu, p) || set_link(c, p->link, p, true) || set_step(c, p))
		return -1;
	c->rel_speed = 1;
	return config_finish(c, p, p->price);
}

static int build_compare(struct theory_config *c, const struct theory_config *first,
			 const struct theory_params *p)
{
	if (config_common(c, p->compare, p) || set_link(c, p->compare_link, p, false) ||
	    set_compare_step(c, first, p))
		return -1;
	c->rel_speed = first->in.t_compute_s / c->in.t_compute_s;
	return config_finish(c, p, p->compare_price);
}

/* ---- option checks that the tables cannot express ---- */

static int check_compare_opts(const struct theory_params *p)
{
	const char *orphan = p->compare_link >= 0     ? "--compare-link"
			     : p->compare_price > 0   ? "--compare-price"
			     : p->compare_step_ms > 0 ? "--compare-step-ms"
						      : NULL;

	if (!p->compare && orphan)
		return gb_error("'%s' needs '--compare NAME'", orphan);
	return 0;
}

static int check_params(const struct theory_params *p, const struct gb_common *c)
{
	if (p->list) {
		if (c->json || c->output || c->format != GB_FORMAT_TEXT)
			return gb_error("'--list' prints the catalog as text; drop '--json', "
					"'--format' and '-o'");
		if (p->gpu || p->compare)
			return gb_error("'--list' prints the whole catalog; drop '--%s'",
					p->gpu ? "gpu" : "compare");
		return 0;
	}
	if (!p->gpu)
		return gb_error("no GPU given: use '--gpu NAME' (see 'gpubench theory --list')");
	if (p->step_ms > 0 && p->step_tflop > 0)
		return gb_error("'--step-ms' and '--step-tflop' both set the step; use one");
	if (p->mfu > 0 && !(p->step_tflop > 0))
		return gb_error("'--mfu' applies to '--step-tflop' only; give '--step-tflop X' or "
				"drop '--mfu'");
	return check_compare_opts(p);
}

/* ---- the report ---- */

static void add_params(struct gb_bench_result *b, const struct theory_config *c,
		       const struct theory_params *p, bool primary)
{
	gb_bench_param_str(b, "gpu", c->spec->key);
	gb_bench_param_str(b, "gpu_name", c->spec->name);
	gb_bench_param_num(b, "count", c->in.n_gpus);
	gb_bench_param_str(b, "link", c->link->name);
	gb_bench_param_bool(b, "link_default", !c->link_given);
	gb_bench_param_bool(b, "link_placeholder", c->link->placeholder && !c->link_measured);
	gb_bench_param_bool(b, "busbw_given", c->link_measured);
	gb_bench_param_num(b, "alpha_us", c->in.link.alpha_s * 1e6);
	gb_bench_param_num(b, "grad_bytes", c->in.grad_bytes);
	gb_bench_param_num(b, "bucket_bytes", c->in.bucket_bytes);
	gb_bench_param_num(b, "overhead", c->in.delta);
	gb_bench_param_num(b, "step_ms", c->in.t_compute_s * 1e3);
	gb_bench_param_str(b, "step_source", step_source_names[c->step_source]);
	if (p->step_tflop > 0) {
		gb_bench_param_num(b, "step_tflop", p->step_tflop);
		gb_bench_param_num(b, "mfu", mfu_of(p));
	}
	gb_bench_param_str(b, "precision", precision_choices[p->precision]);
	gb_bench_param_str(b, "role", primary ? "primary" : "compare");
	if (!isnan(c->price))
		gb_bench_param_num(b, "price_per_gpu_hour", c->price);
}

static void add_peak_metrics(struct gb_bench_result *b, const struct gb_gpu_spec *s)
{
	for (int pr = 0; pr < GB_PREC_COUNT; pr++) {
		double spec = s->spec_tflops[pr], tab = gb_gpu_spec_peak_flops(s, pr) / 1e12;
		const char *unit = pr == GB_PREC_INT8 ? "TOP/s" : "TFLOP/s";
		char name[48];

		if (!(spec > 0) && !(tab > 0))
			continue;
		/* Spec sheet (null where unpublished) and tables at the spec clock, side by side */
		snprintf(name, sizeof(name), "peak_tflops_%s", gb_precision_name(pr));
		gb_bench_add_value(b, name, unit, GB_BETTER_HIGHER, -1, spec > 0 ? spec : NAN, NAN);
		snprintf(name, sizeof(name), "peak_tflops_%s_tables", gb_precision_name(pr));
		gb_bench_add_value(b, name, unit, GB_BETTER_HIGHER, -1, tab > 0 ? tab : NAN, NAN);
	}
	gb_bench_add_value(b, "mem_bw_gbps", "GB/s", GB_BETTER_HIGHER, -1, s->mem_bw_bps / 1e9,
			   NAN);
}

/* "published_gemm_bf16_tflops": the figure, its source in the description; none: absent. */
static void add_published_metrics(struct gb_bench_result *b, const struct gb_gpu_spec *s)
{
	for (size_t r = 0; r < GB_PUBLISHED_N_FIGURES; r++) {
		const struct gb_published *f = gb_published_get(s->key, gb_published_figures[r].figure);
		struct gb_metric *m;
		char name[64];

		if (!f)
			continue;
		snprintf(name, sizeof(name), "published_%s", f->figure);
		m = gb_bench_add_value(b, name, gb_published_figures[r].unit, GB_BETTER_HIGHER, -1,
				       f->value, NAN);
		m->description = gb_strdupf("measured by others: %s; %s", f->source,
					    f->conditions ? f->conditions : "conditions not stated");
	}
}

static void add_scaling_metrics(struct gb_bench_result *b, const struct theory_config *c)
{
	const struct gb_scaling_out *o = &c->out;

	gb_bench_add_value(b, "predicted_speedup_no_overlap", "x", GB_BETTER_HIGHER, -1,
			   o->speedup_no_overlap, o->speedup_ideal);
	gb_bench_add_value(b, "predicted_speedup_no_overlap_max", "x", GB_BETTER_HIGHER, -1,
			   o->speedup_no_overlap_max, o->speedup_ideal);
	gb_bench_add_value(b, "predicted_speedup_perfect_overlap", "x", GB_BETTER_HIGHER, -1,
			   o->speedup_perfect, o->speedup_ideal);
	gb_bench_add_value(b, "allreduce_ms", "ms", GB_BETTER_LOWER, -1, o->t_allreduce_s * 1e3,
			   NAN);
	gb_bench_add_value(b, "allreduce_last_bucket_ms", "ms", GB_BETTER_LOWER, -1,
			   o->t_last_bucket_s * 1e3, NAN);
	gb_bench_add_value(b, "busbw_gbps", "GB/s", GB_BETTER_HIGHER, -1,
			   c->in.link.busbw_bps / 1e9, NAN);
	gb_bench_add_value(b, "step_ms", "ms", GB_BETTER_LOWER, -1, c->in.t_compute_s * 1e3, NAN);
}

static void add_cost_metric(struct gb_bench_result *b, const struct theory_config *c)
{
	struct gb_metric *m;

	if (isnan(c->price))
		return;
	/* The no-overlap bound: what a buyer pays at worst. */
	m = gb_bench_add_value(b, "cost_per_tflops_hour", "USD/TFLOPS-h", GB_BETTER_LOWER, -1,
			       gb_cost_per_tflops_hour_scaled(c->price, c->in.n_gpus,
							      c->headline_flops / 1e12,
							      c->out.speedup_no_overlap),
			       NAN);
	m->description = gb_strdup("per delivered TFLOPS-hour of the --precision spec peak, "
				   "N GPUs at the no-overlap speedup");
}

static void fill_result(struct gb_run *run, const struct theory_config *c,
			const struct theory_params *p, bool primary)
{
	struct gb_bench_result *b = gb_run_add_bench(run, primary ? "theory" : "theory_compare");

	add_params(b, c, p, primary);
	add_peak_metrics(b, c->spec);
	add_published_metrics(b, c->spec);
	add_scaling_metrics(b, c);
	add_cost_metric(b, c);
	b->duration_s = 0;
	b->started_s = 0;
}

/* ---- the command ---- */

static bool report_on_stdout(const struct gb_common *c)
{
	return c->output && !strcmp(c->output, "-");
}

static int theory_report(const struct theory_config *cfg, size_t n, const struct theory_params *p,
			 const struct gb_common *common, int argc, const char **argv)
{
	struct gb_common quiet = *common;
	struct gb_run run;
	int rc;

	gb_cmd_run_begin(&run, "theory", argc, argv);
	for (size_t i = 0; i < n; i++)
		fill_result(&run, &cfg[i], p, i == 0);
	/*
	 * The table is the text format: another --format (or --json) prints that
	 * format alone, so a CSV or XML reader gets nothing else. With '-o -'
	 * stdout holds the JSON report, so the table goes to stderr.
	 */
	if (!common->quiet && !common->json && common->format == GB_FORMAT_TEXT)
		print_text(report_on_stdout(common) ? stderr : stdout, cfg, n, p);
	/* The text above replaces the generic summary; -o and --format still go through here. */
	quiet.quiet = true;
	rc = gb_cmd_run_finish(&run, &quiet, false);
	gb_run_release(&run);
	return rc;
}

int cmd_theory(int argc, const char **argv)
{
	struct theory_params p;
	struct gb_common common;
	struct gb_opt_set sets[] = { { theory_opts, &p }, { gb_output_opts, &common } };
	struct theory_config cfg[2];
	size_t n = 1;
	int rc;

	theory_defaults(&p);
	gb_common_defaults(&common);
	rc = gb_cmd_parse(theory_usage, theory_summary, sets, 2, argc, argv, NULL, 0, NULL);
	if (rc >= 0)
		return rc;
	if (check_params(&p, &common) || gb_cmd_check_common(&common))
		return GB_EXIT_USAGE;
	gb_log_set_verbosity(common.quiet ? -1 : common.verbose ? 1 : 0);
	if (p.list) {
		list_catalog(stdout);
		return GB_EXIT_OK;
	}
	if (build_primary(&cfg[0], &p))
		return GB_EXIT_USAGE;
	if (p.compare && build_compare(&cfg[n++], &cfg[0], &p))
		return GB_EXIT_USAGE;
	return theory_report(cfg, n, &p, &common, argc, argv);
}
