/* SPDX-License-Identifier: MIT */
/*
 * thresholds.c - the built-in pass/fail rules of `gpubench run`, the
 * --thresholds file that overrides them, and applying them to a run: one
 * check per matched metric, plus "GPUs of the same model within 10% of
 * each other". The rules are data (one table, one column per profile), so
 * a reviewer reads them in one place and docs/thresholds.md can mirror them.
 * Reading the --thresholds file is in thresholds_file.c.
 */
#include "thresholds.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/format_util.h"
#include "gemm_size.h"
#include "theory.h"
#include "report/thresholds_internal.h"

const char *const gb_threshold_profiles[] = { "quick", "acceptance", "burnin", NULL };
#define N_PROFILES 3

static const char *const peak_names[] = {
	[GB_PEAK_AUTO] = "auto",         [GB_PEAK_METRIC] = "metric",
	[GB_PEAK_TFLOPS] = "tflops",     [GB_PEAK_MEMORY] = "memory",
	[GB_PEAK_PCIE] = "pcie",         [GB_PEAK_NVLINK] = "nvlink",
	[GB_PEAK_PCIE_GEN] = "pcie_gen", [GB_PEAK_PCIE_WIDTH] = "pcie_width",
};

const char *gb_peak_kind_name(enum gb_peak_kind k)
{
	return (size_t)k < GB_PEAK_COUNT ? peak_names[k] : "auto";
}

int gb_peak_kind_from_name(const char *name)
{
	for (int k = 0; name && k < GB_PEAK_COUNT; k++)
		if (!strcmp(peak_names[k], name))
			return k;
	return -1;
}

/*
 * The built-in rules. Efficiencies are fractions of the GPU's own peak:
 * the spec-sheet figure when the GPU is in the catalog, else the figure at
 * its max clock. quick follows the numbers (BF16 GEMM 70% of peak,
 * host<->device 75% of the link, memory 80% of spec); acceptance and burnin
 * run longer and warmer, so they ask a little more. cuBLAS reaches 75-95%
 * of spec on large BF16 GEMMs, copies 85-92% of theory (research notes).
 */
struct builtin {
	const char *metric;
	const char *bench; /* NULL: every benchmark */
	enum gb_link_class link;
	double min_eff[N_PROFILES];
	double max_value[N_PROFILES];
	enum gb_peak_kind peak;
	enum gb_severity sev;
	bool off; /* matched, and not judged: keeps a broader rule below from applying */
};

#define X NAN /* no limit in this profile */
static const struct builtin builtins[] = {
	/* metric, benchmark, link; min efficiency, max value by profile; peak, severity, off */
	{ "tflops_bf16*", NULL, GB_LINK_ANY,
	  { 0.70, 0.75, 0.75 }, { X, X, X }, GB_PEAK_TFLOPS, GB_SEV_ERROR, false },
	{ "tflops_fp16*", NULL, GB_LINK_ANY,
	  { 0.70, 0.75, 0.75 }, { X, X, X }, GB_PEAK_TFLOPS, GB_SEV_ERROR, false },
	{ "tflops_*", NULL, GB_LINK_ANY,
	  { 0.50, 0.55, 0.55 }, { X, X, X }, GB_PEAK_TFLOPS, GB_SEV_ERROR, false },
	/* pageable copies are bound by the host's memcpy, not the link: not judged against it */
	{ "h2d_*pageable*", NULL, GB_LINK_ANY,
	  { X, X, X }, { X, X, X }, GB_PEAK_PCIE, GB_SEV_ERROR, true },
	{ "d2h_*pageable*", NULL, GB_LINK_ANY,
	  { X, X, X }, { X, X, X }, GB_PEAK_PCIE, GB_SEV_ERROR, true },
	/* the link's figure is what the copy engines reach from pinned memory */
	{ "h2d_ce_pinned_gbps*", NULL, GB_LINK_ANY,
	  { 0.75, 0.80, 0.80 }, { X, X, X }, GB_PEAK_PCIE, GB_SEV_ERROR, false },
	{ "d2h_ce_pinned_gbps*", NULL, GB_LINK_ANY,
	  { 0.75, 0.80, 0.80 }, { X, X, X }, GB_PEAK_PCIE, GB_SEV_ERROR, false },
	/*
	 * Not judged against the link: SM-driven host copies reach about 55% of it
	 * on an H100 (nvbandwidth issue 24), managed copies pay page migration, and
	 * a fitted asymptote is a model, not a measurement.
	 */
	{ "h2d_*", NULL, GB_LINK_ANY, { X, X, X }, { X, X, X }, GB_PEAK_PCIE, GB_SEV_ERROR, true },
	{ "d2h_*", NULL, GB_LINK_ANY, { X, X, X }, { X, X, X }, GB_PEAK_PCIE, GB_SEV_ERROR, true },
	{ "d2d_*gbps", NULL, GB_LINK_ANY,
	  { 0.80, 0.82, 0.82 }, { X, X, X }, GB_PEAK_MEMORY, GB_SEV_ERROR, false },
	{ "stream_*gbps", NULL, GB_LINK_ANY,
	  { 0.80, 0.82, 0.82 }, { X, X, X }, GB_PEAK_MEMORY, GB_SEV_ERROR, false },
	{ "memory_*gbps", NULL, GB_LINK_ANY,
	  { 0.80, 0.82, 0.82 }, { X, X, X }, GB_PEAK_MEMORY, GB_SEV_ERROR, false },
	{ "nvlink_*gbps", NULL, GB_LINK_ANY,
	  { 0.70, 0.75, 0.75 }, { X, X, X }, GB_PEAK_NVLINK, GB_SEV_ERROR, false },
	/* the link under load at the slot's maximum generation and width */
	{ "pcie_gen*", NULL, GB_LINK_ANY,
	  { 1, 1, 1 }, { X, X, X }, GB_PEAK_PCIE_GEN, GB_SEV_ERROR, false },
	{ "pcie_width*", NULL, GB_LINK_ANY,
	  { 1, 1, 1 }, { X, X, X }, GB_PEAK_PCIE_WIDTH, GB_SEV_ERROR, false },
	/*
	 * Traffic between GPUs, by how they are joined (docs/thresholds.md): the
	 * metric's own peak is the link's rate (nccl: the ring's slowest link;
	 * p2p: the pair's). NCCL reaches about 80% of NVLink (20 of 25 GB/s a
	 * link) and of a PCIe link with peer access, less at run's fitted sizes;
	 * without peer access it goes through host memory, about half of that.
	 */
	{ "*busbw_peak_gbps", "nccl", GB_LINK_NVLINK, { 0.50, 0.55, 0.55 }, { X, X, X },
	  GB_PEAK_METRIC, GB_SEV_ERROR, false },
	{ "*busbw_peak_gbps", "nccl", GB_LINK_PCIE, { 0.50, 0.55, 0.55 }, { X, X, X },
	  GB_PEAK_METRIC, GB_SEV_ERROR, false },
	{ "*busbw_peak_gbps", "nccl", GB_LINK_PCIE_HOST, { 0.25, 0.25, 0.25 }, { X, X, X },
	  GB_PEAK_METRIC, GB_SEV_ERROR, false },
	/* one-way copy-engine copies between peers: 85-90% of NVLink, 80-90% of PCIe */
	{ "uni_ce_to_gpu*_gbps", "p2p", GB_LINK_NVLINK, { 0.70, 0.75, 0.75 }, { X, X, X },
	  GB_PEAK_METRIC, GB_SEV_ERROR, false },
	{ "uni_ce_to_gpu*_gbps", "p2p", GB_LINK_PCIE, { 0.65, 0.70, 0.70 }, { X, X, X },
	  GB_PEAK_METRIC, GB_SEV_ERROR, false },
	/* hot, not broken: a warning */
	{ "temp_c_max*", NULL, GB_LINK_ANY,
	  { X, X, X }, { X, 90, 90 }, GB_PEAK_METRIC, GB_SEV_WARNING, false },
};
#undef X
#define N_BUILTINS (sizeof(builtins) / sizeof(builtins[0]))

/* GPUs of one model: the slowest at most 10% below the best (gpu-fryer's rule) */
#define SAME_MODEL_SPREAD 0.10

/* ---- the rule list ---- */

struct gb_threshold *push_rule(struct gb_thresholds *t)
{
	struct gb_threshold *r;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 32;
		t->rules = gb_xrealloc(t->rules, sizeof(*t->rules) * t->cap);
	}
	r = &t->rules[t->n++];
	memset(r, 0, sizeof(*r));
	r->min_efficiency = r->min_value = r->max_value = NAN;
	r->severity = GB_SEV_ERROR;
	return r;
}

void free_rules(struct gb_threshold *rules, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rules[i].metric);
		free(rules[i].bench);
	}
	free(rules);
}

void gb_thresholds_release(struct gb_thresholds *t)
{
	free_rules(t->rules, t->n);
	free(t->source);
	memset(t, 0, sizeof(*t));
}

int gb_thresholds_builtin(struct gb_thresholds *t, const char *profile)
{
	int p = -1;

	memset(t, 0, sizeof(*t));
	for (int i = 0; profile && gb_threshold_profiles[i]; i++)
		if (!strcmp(gb_threshold_profiles[i], profile))
			p = i;
	if (p < 0)
		return -1;
	for (size_t i = 0; i < N_BUILTINS; i++) {
		const struct builtin *b = &builtins[i];
		struct gb_threshold *r;

		if (!b->off && !isfinite(b->min_eff[p]) && !isfinite(b->max_value[p]))
			continue;
		r = push_rule(t);
		r->metric = gb_strdup(b->metric);
		r->bench = b->bench ? gb_strdup(b->bench) : NULL;
		r->link = b->link;
		r->sized = true;
		r->off = b->off;
		r->min_efficiency = b->min_eff[p];
		r->max_value = b->max_value[p];
		r->peak = b->peak;
		r->severity = b->sev;
	}
	t->same_model_spread = SAME_MODEL_SPREAD;
	t->source = gb_strdupf("built-in '%s'", profile);
	return 0;
}

static bool rule_matches(const struct gb_threshold *r, const char *bench, const char *metric)
{
	return !fnmatch(r->metric, metric, 0) && (!r->bench || !fnmatch(r->bench, bench, 0));
}

const struct gb_threshold *gb_thresholds_match(const struct gb_thresholds *t, const char *bench,
					       const char *metric)
{
	for (size_t i = 0; i < t->n; i++)
		if (!t->rules[i].link && rule_matches(&t->rules[i], bench, metric))
			return &t->rules[i];
	return NULL;
}

const char *const link_class_names[] = { "any", "nvlink", "pcie", "pcie_host", NULL };

const char *gb_link_class_name(enum gb_link_class c)
{
	return c < GB_LINK_COUNT ? link_class_names[c] : "?";
}

/* How GPUs a and b are joined: NVLink, PCIe with peer access, or through the host. */
static enum gb_link_class pair_class(const struct gb_run *run, int a, int b)
{
	const struct gb_link *l = gb_run_find_link(run, a, b);

	if (l && l->type && !strcmp(l->type, "nvlink"))
		return GB_LINK_NVLINK;
	return l && l->p2p_access == 1 ? GB_LINK_PCIE : GB_LINK_PCIE_HOST;
}

/* the slower of two classes: NVLink, then PCIe, then through the host */
static enum gb_link_class slower(enum gb_link_class x, enum gb_link_class y)
{
	return x > y ? x : y;
}

/*
 * The link a metric's traffic crosses: p2p's "..._to_gpuN_..." the pair's
 * (the metric's GPU and N); any other the slowest pair of the benchmark's
 * GPUs (a collective's ring). ANY when it ran on one GPU.
 */
static enum gb_link_class metric_link(const struct gb_run *run, const struct gb_bench_result *b,
				      const struct gb_metric *m)
{
	const char *to = strstr(m->name, "_to_gpu");
	enum gb_link_class c = GB_LINK_ANY;
	int peer;

	if (to && m->device >= 0 && sscanf(to, "_to_gpu%d", &peer) == 1 && peer != m->device)
		return pair_class(run, m->device, peer);
	for (size_t i = 0; i < b->n_devices; i++)
		for (size_t j = 0; j < b->n_devices; j++)
			if (b->devices[i] != b->devices[j])
				c = slower(c, pair_class(run, b->devices[i], b->devices[j]));
	return c;
}

/* The rule that decides m in b (first match), link classes included; NULL if none. */
static const struct gb_threshold *match_in_run(const struct gb_thresholds *t,
					       const struct gb_run *run,
					       const struct gb_bench_result *b,
					       const struct gb_metric *m)
{
	enum gb_link_class c = GB_LINK_COUNT;

	for (size_t i = 0; i < t->n; i++) {
		const struct gb_threshold *r = &t->rules[i];

		if (!rule_matches(r, b->name, m->name))
			continue;
		if (r->link && c == GB_LINK_COUNT)
			c = metric_link(run, b, m);
		if (!r->link || r->link == c)
			return r;
	}
	return NULL;
}

/* ---- peaks ---- */

/* "tflops_bf16" -> bf16, "tflops_fp64_tc" -> fp64_tc, "tflops_bf16_min" -> bf16; -1 if none */
static int precision_of(const char *metric)
{
	char buf[64];
	char *cut;
	int p;

	if (strncmp(metric, "tflops_", 7))
		return -1;
	snprintf(buf, sizeof(buf), "%s", metric + 7);
	while ((p = gb_precision_from_name(buf)) < 0 && (cut = strrchr(buf, '_')))
		*cut = '\0';
	return p;
}

/* Units in which a rate is reported, against the peaks' own (FLOP/s, bytes/s). */
static double unit_scale(const char *unit)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {
		{ "TFLOP/s", 1e12 }, { "TFLOPS", 1e12 }, { "TOP/s", 1e12 }, { "TOPS", 1e12 },
		{ "GFLOP/s", 1e9 },  { "GFLOPS", 1e9 },  { "GB/s", 1e9 },   { "TB/s", 1e12 },
		{ "MB/s", 1e6 },     { "B/s", 1 },       { "GiB/s", 1073741824.0 },
	};

	for (size_t i = 0; unit && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(units[i].unit, unit))
			return units[i].scale;
	return NAN;
}

static double positive(double v)
{
	return isfinite(v) && v > 0 ? v : NAN;
}

/* the device's peak of kind k in the device's own units (FLOP/s, bytes/s, gen, lanes) */
static double device_peak(const struct gb_device_info *d, enum gb_peak_kind k, int prec,
			  const char **what)
{
	double v = NAN;

	switch (k) {
	case GB_PEAK_TFLOPS:
		if (prec < 0)
			break;
		v = positive(d->peaks.spec[prec]);
		*what = "the spec-sheet peak";
		if (isfinite(v))
			break;
		v = positive(d->peaks.max_clock[prec]);
		*what = "the peak at max clock";
		break;
	case GB_PEAK_MEMORY:
		v = positive(d->peaks.mem_bw_bps_spec);
		*what = "the spec-sheet memory bandwidth";
		if (isfinite(v))
			break;
		v = positive(d->peaks.mem_bw_bps);
		*what = "the memory bandwidth from clocks";
		break;
	case GB_PEAK_PCIE:
		v = positive(d->peaks.pcie_bps);
		*what = "the PCIe link's bandwidth";
		break;
	case GB_PEAK_NVLINK:
		v = positive(d->peaks.nvlink_bps);
		*what = "the NVLink bandwidth";
		break;
	case GB_PEAK_PCIE_GEN:
		v = d->pcie_max_gen > 0 ? d->pcie_max_gen : NAN;
		*what = "the slot's maximum generation";
		break;
	case GB_PEAK_PCIE_WIDTH:
		v = d->pcie_max_width > 0 ? d->pcie_max_width : NAN;
		*what = "the slot's maximum width";
		break;
	case GB_PEAK_AUTO:
	case GB_PEAK_METRIC:
	case GB_PEAK_COUNT:
		break;
	}
	return v;
}

/* The kind the built-in rules give a metric name (tflops_* -> TFLOPS, ...). */
static enum gb_peak_kind builtin_kind(const char *metric)
{
	for (size_t i = 0; i < N_BUILTINS; i++)
		if (!fnmatch(builtins[i].metric, metric, 0) && builtins[i].peak != GB_PEAK_METRIC &&
		    !builtins[i].off &&
		    (builtins[i].peak != GB_PEAK_TFLOPS || precision_of(metric) >= 0))
			return builtins[i].peak;
	return GB_PEAK_METRIC;
}

static bool link_kind(enum gb_peak_kind k)
{
	return k == GB_PEAK_PCIE_GEN || k == GB_PEAK_PCIE_WIDTH;
}

double gb_metric_peak(const struct gb_run *run, const struct gb_metric *m, enum gb_peak_kind k,
		      const char **what)
{
	const struct gb_device_info *d = gb_fmt_device(run, m->device);
	double v, scale = 1;

	*what = "its peak";
	if (isfinite(m->peak) && m->peak > 0)
		return m->peak;
	if (k == GB_PEAK_AUTO)
		k = builtin_kind(m->name);
	if (!d || k == GB_PEAK_METRIC)
		return NAN;
	v = device_peak(d, k, precision_of(m->name), what);
	if (!link_kind(k))
		scale = unit_scale(m->unit);
	return v / scale;
}

double gb_metric_efficiency(const struct gb_run *run, const struct gb_metric *m)
{
	const char *what;
	double peak;

	if (isfinite(m->efficiency))
		return m->efficiency;
	peak = gb_metric_peak(run, m, GB_PEAK_AUTO, &what);
	return isfinite(peak) && isfinite(m->value) ? m->value / peak : NAN;
}

/* ---- applying ---- */

/* " on GPU 0" or "" */
static void on_gpu(char *buf, size_t len, int device)
{
	if (device >= 0)
		snprintf(buf, len, " on GPU %d", device);
	else
		buf[0] = '\0';
}

static enum gb_status miss_status(const struct gb_threshold *r)
{
	return r->severity == GB_SEV_ERROR ? GB_STATUS_FAILED : GB_STATUS_WARNING;
}

static const char *unit_of(const struct gb_metric *m)
{
	return m->unit ? m->unit : "";
}

static void check_link(struct gb_bench_result *b, const struct gb_metric *m,
		       const struct gb_threshold *r, double peak, const char *what)
{
	char name[160], gpu[32];
	double need = peak * r->min_efficiency;
	bool ok = m->value >= need;

	on_gpu(gpu, sizeof(gpu), m->device);
	snprintf(name, sizeof(name), "%s_at_max", m->name);
	gb_bench_add_check(b, name, ok ? GB_STATUS_PASSED : miss_status(r), r->severity,
			   m->device, m->value, need, "%s%s is %g under load, %s %s %g", m->name,
			   gpu, m->value, ok ? "at" : "below", what, peak);
}

/*
 * Decimals that show a percentage on the right side of its threshold: 74.99%
 * below 75% must not read "75.0%, below 75%".
 */
static int pct_decimals(double eff, double threshold)
{
	int dec = 1;

	while (dec < 4) {
		double shown = round(eff * 100 * pow(10, dec)) / pow(10, dec);

		if ((eff >= threshold) == (shown >= threshold * 100))
			break;
		dec++;
	}
	return dec;
}

/*
 * A GPU with fewer SMs than the catalog part its name matches: a MIG slice
 * (its parent's name, the slice's SMs) or a cut-down part. NULL otherwise.
 */
static const struct gb_gpu_spec *partial_of(const struct gb_device_info *d)
{
	const struct gb_gpu_spec *s = d ? gb_gpu_spec_match_name(d->name) : NULL;

	return s && d->sm_count > 0 && d->sm_count < s->sm_count ? s : NULL;
}

/* params[key] as a number, NAN when absent or not one (a list of shapes is a string) */
static double param_num(const struct gb_bench_result *b, const char *key)
{
	const cJSON *v = b->params ? cJSON_GetObjectItemCaseSensitive(b->params, key) : NULL;

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/*
 * A TFLOPS limit is written for run's 8192^3 GEMM (gemm_size.h). A benchmark
 * that ran one smaller GEMM (params m, n, k) is held to the limit times the
 * share of that efficiency its size allows, said in note. Returns the limit,
 * or NAN when that share is below 0.4 (GB_GEMM_SIZE_MIN_SHARE): not judged at that size.
 */
static double sized_limit(const struct gb_run *run, const struct gb_bench_result *b,
			  const struct gb_metric *m, const struct gb_threshold *r, double peak,
			  double *share, char *note, size_t len)
{
	const struct gb_device_info *d = gb_fmt_device(run, m->device);
	double dm = param_num(b, "m"), dn = param_num(b, "n"), dk = param_num(b, "k");
	double flops = peak * unit_scale(m->unit) * r->min_efficiency;

	note[0] = '\0';
	*share = 1;
	/* a file's limit is the user's, for the sizes they run: taken as written */
	if (!r->sized)
		return r->min_efficiency;
	*share = gb_gemm_size_share(dm, dn, dk, d ? d->sm_count : 0, flops);
	if (!isfinite(*share) || *share >= 1)
		return r->min_efficiency;
	snprintf(note, len,
		 " (%g%% for 8192^3, scaled to the %.0fx%.0fx%.0f GEMM that ran on %d SMs)",
		 r->min_efficiency * 100, dm, dn, dk, d->sm_count);
	return *share < GB_GEMM_SIZE_MIN_SHARE ? NAN : r->min_efficiency * *share;
}

/* The size that ran cannot be judged against the limit: a skipped check saying why. */
static void size_not_judged(struct gb_bench_result *b, const struct gb_metric *m,
			    const struct gb_threshold *r, double eff, double share)
{
	char name[160], gpu[32];

	on_gpu(gpu, sizeof(gpu), m->device);
	snprintf(name, sizeof(name), "%s_efficiency", m->name);
	gb_bench_add_check(b, name, GB_STATUS_SKIPPED, r->severity, m->device, eff, NAN,
			   "%s%s is %.1f%% of its peak, not judged against %g%%: a %.0fx%.0fx%.0f "
			   "GEMM can reach only %.0f%% of an 8192^3 one's efficiency here (tile "
			   "quantisation, a fixed cost per GEMM; docs/thresholds.md); relative "
			   "checks still apply",
			   m->name, gpu, eff * 100, r->min_efficiency * 100, param_num(b, "m"),
			   param_num(b, "n"), param_num(b, "k"), share * 100);
}

/* Efficiency against the GPU's own peak; a warning when no peak is known. */
static void check_efficiency(const struct gb_run *run, struct gb_bench_result *b,
			     const struct gb_metric *m, const struct gb_threshold *r)
{
	char name[160], gpu[32], val[48], pk[48];
	const char *what = "its peak", *model = gb_fmt_device_name(run, m->device);
	enum gb_peak_kind kind = r->peak == GB_PEAK_AUTO ? builtin_kind(m->name) : r->peak;
	double eff = m->efficiency, peak;
	/*
	 * A MIG slice's memory clock and bus width are the whole GPU's, but it
	 * gets only some of the memory: the device-wide memory peak is a guide,
	 * not a limit, so a miss there warns (spec_unknown says why).
	 */
	bool guide = kind == GB_PEAK_MEMORY && partial_of(gb_fmt_device(run, m->device));
	enum gb_status miss = guide ? GB_STATUS_WARNING : miss_status(r);
	enum gb_severity sev = guide ? GB_SEV_WARNING : r->severity;
	/* the benchmark's own efficiency wins: it knows its byte or FLOP convention */
	bool own = isfinite(eff) && eff > 0, ok;
	double limit, share;
	char note[160] = "";

	/*
	 * A throughput that names no precision (stress's tflops_settled and
	 * tflops_min, judged by stress's own rules) has no peak to be held to:
	 * the TFLOPS rule is not about it, and a "no peak is known" warning on a
	 * GPU whose peaks are known would mislead.
	 */
	if (kind == GB_PEAK_TFLOPS && precision_of(m->name) < 0 && !own)
		return;
	if (own) {
		peak = m->value / eff;
	} else {
		peak = gb_metric_peak(run, m, kind, &what);
		eff = m->value / peak;
	}
	limit = r->min_efficiency;
	if (kind == GB_PEAK_TFLOPS && isfinite(eff)) {
		limit = sized_limit(run, b, m, r, peak, &share, note, sizeof(note));
		if (!isfinite(limit)) {
			size_not_judged(b, m, r, eff, share);
			return;
		}
	}
	ok = eff >= limit;

	on_gpu(gpu, sizeof(gpu), m->device);
	snprintf(name, sizeof(name), "%s_efficiency", m->name);
	if (!isfinite(eff)) {
		gb_bench_add_check(b, name, GB_STATUS_WARNING, GB_SEV_WARNING, m->device, NAN,
				   r->min_efficiency,
				   "%s%s: no peak is known for '%s', so the check against %.0f%% "
				   "of peak could not be made (relative checks still apply)",
				   m->name, gpu, model ? model : "this GPU", r->min_efficiency * 100);
		return;
	}
	if (link_kind(kind) && !isfinite(m->efficiency)) {
		check_link(b, m, r, peak, what);
		return;
	}
	gb_fmt_human(val, sizeof(val), m->value);
	gb_fmt_human(pk, sizeof(pk), peak);
	gb_bench_add_check(b, name, ok ? GB_STATUS_PASSED : miss, sev, m->device, eff, limit,
			   "%s%s is %s %s, %.*f%% of %s %s, %s %.*g%%%s%s", m->name, gpu, val,
			   unit_of(m), pct_decimals(eff, limit), eff * 100, what, pk,
			   ok ? "at least" : "below", note[0] ? 3 : 6, limit * 100, note,
			   guide ? " (a partial GPU: a guide, not a limit)" : "");
}

static void check_bound(struct gb_bench_result *b, const struct gb_metric *m,
			const struct gb_threshold *r, bool is_max)
{
	char name[160], gpu[32], val[48], lim[48];
	double limit = is_max ? r->max_value : r->min_value;
	bool ok = is_max ? m->value <= limit : m->value >= limit;

	on_gpu(gpu, sizeof(gpu), m->device);
	snprintf(name, sizeof(name), "%s_%s", m->name, is_max ? "max" : "min");
	gb_fmt_human(val, sizeof(val), m->value);
	gb_fmt_human(lim, sizeof(lim), limit);
	gb_bench_add_check(b, name, ok ? GB_STATUS_PASSED : miss_status(r), r->severity,
			   m->device, m->value, limit, "%s%s is %s %s, %s %s", m->name, gpu, val,
			   unit_of(m),
			   ok ? (is_max ? "at most" : "at least") : (is_max ? "above" : "below"),
			   lim);
}

static void apply_rule(const struct gb_run *run, struct gb_bench_result *b,
		       const struct gb_metric *m, const struct gb_threshold *r)
{
	char gpu[32];

	if (!isfinite(m->value)) {
		/*
		 * Not measured (no telemetry, a layer turned off): the benchmark says
		 * why. The check is listed as skipped, never as passed.
		 */
		on_gpu(gpu, sizeof(gpu), m->device);
		gb_bench_add_check(b, m->name, GB_STATUS_SKIPPED, r->severity, m->device, NAN, NAN,
				   "%s%s has no value, so its threshold check could not be made",
				   m->name, gpu);
		return;
	}
	if (isfinite(r->min_efficiency))
		check_efficiency(run, b, m, r);
	if (isfinite(r->min_value))
		check_bound(b, m, r, false);
	if (isfinite(r->max_value))
		check_bound(b, m, r, true);
}

/* Only benchmarks that ran have numbers to judge; skipped ones keep their reason. */
static bool bench_ran(const struct gb_bench_result *b)
{
	return b->status == GB_STATUS_PASSED || b->status == GB_STATUS_WARNING ||
	       b->status == GB_STATUS_FAILED;
}

/* ---- same model within a spread ---- */

static bool same_group(const struct gb_run *run, const struct gb_metric *x,
		       const struct gb_metric *y)
{
	const char *nx = gb_fmt_device_name(run, x->device);
	const char *ny = gb_fmt_device_name(run, y->device);

	return x->device >= 0 && y->device >= 0 && nx && ny && !strcmp(x->name, y->name) &&
	       !strcmp(nx, ny);
}

static bool consistency_candidate(const struct gb_thresholds *t, const struct gb_bench_result *b,
				  const struct gb_metric *m)
{
	const struct gb_threshold *r = gb_thresholds_match(t, b->name, m->name);

	return m->better == GB_BETTER_HIGHER && m->device >= 0 && isfinite(m->value) &&
	       m->value > 0 && !(r && r->off);
}

/* The members of metric j's group: j and every later metric of the same name and model. */
static size_t group_of(const struct gb_thresholds *t, const struct gb_run *run,
		       const struct gb_bench_result *b, size_t j, size_t *idx, size_t max)
{
	size_t n = 0;

	for (size_t k = j; k < b->n_metrics && n < max; k++)
		if (consistency_candidate(t, b, &b->metrics[k]) &&
		    same_group(run, &b->metrics[j], &b->metrics[k]))
			idx[n++] = k;
	return n;
}

static bool group_seen(const struct gb_thresholds *t, const struct gb_run *run,
		       const struct gb_bench_result *b, size_t j)
{
	for (size_t k = 0; k < j; k++)
		if (consistency_candidate(t, b, &b->metrics[k]) &&
		    same_group(run, &b->metrics[k], &b->metrics[j]))
			return true;
	return false;
}

#define MAX_GROUP 256

static void check_group(const struct gb_thresholds *t, const struct gb_run *run,
			struct gb_bench_result *b, const size_t *idx, size_t n)
{
	char name[160], val[48], bestv[48];
	const struct gb_metric *first = &b->metrics[idx[0]];
	const char *model = gb_fmt_device_name(run, first->device);
	size_t best = idx[0];
	double worst = 0;
	bool failed = false;

	for (size_t i = 1; i < n; i++)
		if (b->metrics[idx[i]].value > b->metrics[best].value)
			best = idx[i];
	snprintf(name, sizeof(name), "%s_same_model", first->name);
	gb_fmt_human(bestv, sizeof(bestv), b->metrics[best].value);
	for (size_t i = 0; i < n; i++) {
		/* copies: adding a check does not move metrics, but keep it obvious */
		struct gb_metric m = b->metrics[idx[i]];
		double below = (b->metrics[best].value - m.value) / b->metrics[best].value;

		worst = fmax(worst, below);
		if (below <= t->same_model_spread)
			continue;
		failed = true;
		gb_fmt_human(val, sizeof(val), m.value);
		gb_bench_add_check(b, name, GB_STATUS_FAILED, GB_SEV_ERROR, m.device, below,
				   t->same_model_spread,
				   "%s on GPU %d is %s %s, %.1f%% below GPU %d (%s), the best %s "
				   "here; GPUs of one model should be within %.0f%%",
				   m.name, m.device, val, unit_of(&m), below * 100,
				   b->metrics[best].device, bestv, model,
				   t->same_model_spread * 100);
	}
	if (!failed)
		gb_bench_add_check(b, name, GB_STATUS_PASSED, GB_SEV_ERROR, -1, worst,
				   t->same_model_spread,
				   "%s: %zu %s GPUs within %.1f%% of the best (at most %.0f%%)",
				   first->name, n, model, worst * 100, t->same_model_spread * 100);
}

/*
 * The benchmark compared this metric's GPUs itself (a "<metric>_peers"
 * check, bench/device/peer_math.h, at its --peer-tolerance) at least as strictly
 * as spread: a second check of the same finding would count one slow GPU
 * twice. A stricter spread (a thresholds file's 5%) still applies.
 */
static bool peers_judged(const struct gb_bench_result *b, const char *metric, double spread)
{
	size_t len = strlen(metric);

	for (size_t i = 0; i < b->n_checks; i++)
		if (!strncmp(b->checks[i].name, metric, len) &&
		    !strcmp(b->checks[i].name + len, "_peers") &&
		    b->checks[i].threshold <= spread + 1e-12)
			return true;
	return false;
}

static void same_model(const struct gb_thresholds *t, const struct gb_run *run,
		       struct gb_bench_result *b)
{
	size_t idx[MAX_GROUP];
	size_t n_metrics = b->n_metrics;

	for (size_t j = 0; j < n_metrics; j++) {
		size_t n;

		if (!consistency_candidate(t, b, &b->metrics[j]) || group_seen(t, run, b, j) ||
		    peers_judged(b, b->metrics[j].name, t->same_model_spread))
			continue;
		n = group_of(t, run, b, j, idx, MAX_GROUP);
		if (n >= 2)
			check_group(t, run, b, idx, n);
	}
}

/* ---- a GPU without a spec sheet: say which peaks judged it ---- */

/* bit 0: TFLOPS judged against the max-clock peak; bit 1: memory against clocks */
static unsigned fallbacks_of(const struct gb_thresholds *t, const struct gb_run *run,
			     const struct gb_bench_result *b, int device)
{
	const struct gb_device_info *d = gb_fmt_device(run, device);
	unsigned used = 0;

	if (!d)
		return 0;
	for (size_t j = 0; j < b->n_metrics; j++) {
		const struct gb_metric *m = &b->metrics[j];
		const struct gb_threshold *r = gb_thresholds_match(t, b->name, m->name);
		enum gb_peak_kind kind;
		int prec;

		if (m->device != device || !r || r->off || !isfinite(r->min_efficiency) ||
		    !isfinite(m->value))
			continue;
		kind = r->peak == GB_PEAK_AUTO ? builtin_kind(m->name) : r->peak;
		prec = precision_of(m->name);
		if (kind == GB_PEAK_TFLOPS && prec >= 0 && !isfinite(positive(d->peaks.spec[prec])) &&
		    isfinite(positive(d->peaks.max_clock[prec])))
			used |= 1;
		if (kind == GB_PEAK_MEMORY && !isfinite(positive(d->peaks.mem_bw_bps_spec)) &&
		    isfinite(positive(d->peaks.mem_bw_bps)))
			used |= 2;
	}
	return used;
}

/*
 * One warning per GPU and benchmark whose efficiency checks fell back from
 * the spec sheet to the device's own peaks: an unknown GPU (not in the
 * catalog) or a partial one (a MIG slice) is judged, never skipped, and the
 * report says against what.
 */
static void spec_unknown(const struct gb_thresholds *t, const struct gb_run *run,
			 struct gb_bench_result *b)
{
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *d = &run->devices[i];
		const struct gb_gpu_spec *parent = partial_of(d);
		unsigned used = fallbacks_of(t, run, b, d->index);
		char *why, *what;

		if (!used || gb_fmt_device(run, d->index) != d)
			continue;
		if (parent)
			why = gb_strdupf("GPU %d '%s' has %d SMs, not the %d of catalog entry '%s' "
					 "(a MIG slice or a cut-down part), so no spec sheet "
					 "applies",
					 d->index, d->name, d->sm_count, parent->sm_count,
					 parent->key);
		else
			why = gb_strdupf("GPU %d '%s' is not in the spec-sheet catalog", d->index,
					 d->name ? d->name : "unknown");
		what = gb_strdupf("%s%s%s", used & 1 ? "TFLOPS against the peak at its max clock" : "",
				  used == 3 ? " and " : "",
				  used & 2 ? (parent ? "memory bandwidth against the whole GPU's "
						       "clocks (a guide: misses warn)"
						     : "memory bandwidth against the bandwidth from its "
						       "clocks")
					   : "");
		gb_bench_add_check(b, "spec_unknown", GB_STATUS_WARNING, GB_SEV_WARNING, d->index,
				   NAN, NAN, "%s: efficiency is judged with %s", why, what);
		free(why);
		free(what);
	}
}

void gb_thresholds_apply(const struct gb_thresholds *t, struct gb_run *run)
{
	for (size_t i = 0; i < run->n_benches; i++) {
		struct gb_bench_result *b = &run->benches[i];
		size_t n_metrics = b->n_metrics;

		if (!bench_ran(b))
			continue;
		for (size_t j = 0; j < n_metrics; j++) {
			const struct gb_threshold *r = match_in_run(t, run, b, &b->metrics[j]);

			if (r && !r->off)
				apply_rule(run, b, &b->metrics[j], r);
		}
		spec_unknown(t, run, b);
		if (isfinite(t->same_model_spread))
			same_model(t, run, b);
	}
}
