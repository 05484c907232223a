/* SPDX-License-Identifier: MIT */
/*
 * compare.c - two reports side by side (see compare.h for the rules): the
 * match key, the regression gate that tells a real change from noise, the
 * cross-model view (efficiency, per watt, per dollar), the findings that
 * make B incomplete, and the compare document in text, Markdown, CSV and
 * JSON (JUnit, Prometheus and HTML are in junit.c, prometheus.c, html.c).
 */
#include "compare.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd/cli.h"
#include "json_util.h"
#include "metric_directions.h"
#include "thresholds.h"

static const char *const class_names[] = {
	[GB_CMP_UNCHANGED] = "unchanged", [GB_CMP_IMPROVEMENT] = "improvement",
	[GB_CMP_REGRESSION] = "regression", [GB_CMP_CHANGED] = "changed",
	[GB_CMP_ONLY_A] = "only_a",         [GB_CMP_ONLY_B] = "only_b",
};

const char *gb_cmp_class_name(enum gb_cmp_class c, bool different_models)
{
	if (different_models && c == GB_CMP_IMPROVEMENT)
		return "b_better";
	if (different_models && c == GB_CMP_REGRESSION)
		return "b_worse";
	return (size_t)c < GB_CMP_CLASS_COUNT ? class_names[c] : "unknown";
}

void gb_compare_opts_init(struct gb_compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->tolerance = 0.05;
	o->spread_k = 2;
	o->price_a = o->price_b = NAN;
}

/* ---- a growable string ---- */

struct sbuf {
	char *s;
	size_t n, cap;
};

static void sb_add(struct sbuf *b, const char *s)
{
	size_t len = strlen(s);

	if (b->n + len + 1 > b->cap) {
		b->cap = (b->n + len + 1) * 2;
		b->s = gb_xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, len + 1);
	b->n += len;
}

static char *sb_take(struct sbuf *b)
{
	return b->s ? b->s : gb_strdup("");
}

/* ---- tolerances ---- */

void gb_tolerance_rules_free(struct gb_tolerance_rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rules[i].pattern);
	free(rules);
}

static char *trimmed(const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return gb_strdupf("%.*s", (int)len, s);
}

static int parse_rule(const char *item, size_t len, struct gb_tolerance_rule *r, char *err,
		      size_t errlen)
{
	char *text = trimmed(item, len);
	char *eq = strchr(text, '=');
	char *value;
	double f;

	r->pattern = NULL;
	if (!eq || eq == text) {
		snprintf(err, errlen, "cannot parse '%s' as a metric tolerance: expected "
				      "NAME=PERCENT like 'tflops_*=3%%'", text);
		free(text);
		return -1;
	}
	value = trimmed(eq + 1, strlen(eq + 1));
	if (gb_parse_percent(value, &f) || f < 0) {
		snprintf(err, errlen, "cannot parse '%s' in '%s' as a percentage like 3%%", value,
			 text);
		free(value);
		free(text);
		return -1;
	}
	r->pattern = trimmed(text, (size_t)(eq - text));
	r->fraction = f;
	free(value);
	free(text);
	return 0;
}

int gb_tolerance_rules_parse(const char *spec, struct gb_tolerance_rule **rules, size_t *n,
			     char *err, size_t errlen)
{
	const char *p = spec;

	*rules = NULL;
	*n = 0;
	while (p && *p) {
		size_t len = strcspn(p, ",");

		*rules = gb_xrealloc(*rules, sizeof(**rules) * (*n + 1));
		if (parse_rule(p, len, &(*rules)[*n], err, errlen)) {
			gb_tolerance_rules_free(*rules, *n);
			*rules = NULL;
			*n = 0;
			return -1;
		}
		(*n)++;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

static double tolerance_for(const struct gb_compare_opts *o, const char *bench,
			    const char *metric)
{
	char *full = gb_strdupf("%s/%s", bench, metric);
	double tol = o->tolerance;

	for (size_t i = 0; i < o->n_rules; i++) {
		const char *subject = strchr(o->rules[i].pattern, '/') ? full : metric;

		if (!fnmatch(o->rules[i].pattern, subject, 0)) {
			tol = o->rules[i].fraction;
			break;
		}
	}
	free(full);
	return tol;
}

/* ---- the match key ---- */

/* a key ending in suffix */
static bool ends_with(const char *key, const char *suffix)
{
	size_t len = strlen(key), n = strlen(suffix);

	return len > n && !strcmp(key + len - n, suffix);
}

/* gb_param_ignored, with the software versions left in the key or not */
static bool param_ignored(const char *key, bool keep_versions)
{
	/* how long or how often */
	static const char *const prefixes[] = { "duration", "warmup", "iterations", "iters",
						"samples",  "repeat", "runs",       "seed",
						"timeout" };
	/*
	 * How the numbers were taken, written down for the reader: texts that a
	 * new gpubench may word differently, and choices the library version or
	 * the memory made (nccl's launch and alltoall, gemm's rotation). In the
	 * key they would make a baseline from an older build match nothing.
	 */
	static const char *const method[] = { "layout",    "data",          "flop_count",
					      "rotation",  "rotating_copies", "rotation_bytes",
					      "timing",    "launch",        "alltoall",
					      "statistic", "allreduce" };
	/*
	 * What a run measured rather than what the user configured: scaling's
	 * calibration (in extra.sizing since, but in params of older reports,
	 * where 808 GEMMs a step against 807 made every row a different test).
	 */
	static const char *const measured[] = { "gemms_per_step", "work_tflop_per_step" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(key, prefixes[i], strlen(prefixes[i])))
			return true;
	for (size_t i = 0; i < sizeof(method) / sizeof(method[0]); i++)
		if (!strcmp(key, method[i]))
			return true;
	for (size_t i = 0; i < sizeof(measured) / sizeof(measured[0]); i++)
		if (!strcmp(key, measured[i]))
			return true;
	/* the software measured with (compare says when it differs, software.h) and notes */
	return ends_with(key, "_s") || ends_with(key, "_ms") ||
	       (!keep_versions && ends_with(key, "_version")) || ends_with(key, "_note");
}

bool gb_param_ignored(const char *key)
{
	return param_ignored(key, false);
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static char *param_value(const cJSON *v)
{
	char *printed, *copy;

	if (cJSON_IsString(v))
		return gb_strdup(v->valuestring);
	if (cJSON_IsNumber(v))
		return gb_strdupf("%.15g", v->valuedouble);
	printed = cJSON_PrintUnformatted(v);
	copy = gb_strdup(printed ? printed : "null");
	cJSON_free(printed);
	return copy;
}

static char *params_key(const struct cJSON *params, bool keep_versions)
{
	const cJSON *e;
	const char **keys = NULL;
	size_t n = 0;
	struct sbuf sb = { NULL, 0, 0 };

	cJSON_ArrayForEach(e, params) {
		if (!e->string || param_ignored(e->string, keep_versions))
			continue;
		keys = gb_xrealloc(keys, sizeof(*keys) * (n + 1));
		keys[n++] = e->string;
	}
	/* sorted, so the order a benchmark wrote them in does not matter */
	if (n)
		qsort(keys, n, sizeof(*keys), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char *v = param_value(cJSON_GetObjectItemCaseSensitive(params, keys[i]));

		if (i)
			sb_add(&sb, ",");
		sb_add(&sb, keys[i]);
		sb_add(&sb, "=");
		sb_add(&sb, v);
		free(v);
	}
	free(keys);
	return sb_take(&sb);
}

char *gb_params_key(const struct cJSON *params)
{
	return params_key(params, false);
}

char *gb_params_key_versioned(const struct cJSON *params)
{
	return params_key(params, true);
}

static const char *pos_name(const struct gb_run *run, int pos)
{
	return pos >= 0 && run->devices[pos].name ? run->devices[pos].name : "unknown";
}

/* rank of the device among the report's GPUs of its model */
static int model_rank(const struct gb_run *run, int pos)
{
	int rank = 0;

	for (int i = 0; i < pos; i++)
		if (!strcmp(pos_name(run, i), pos_name(run, pos)))
			rank++;
	return rank;
}

/* how many of run's GPUs have this UUID */
static int uuid_count(const struct gb_run *run, const char *uuid)
{
	int n = 0;

	for (size_t i = 0; i < run->n_devices; i++)
		n += run->devices[i].uuid && !strcmp(run->devices[i].uuid, uuid);
	return n;
}

/*
 * The GPU at pos is the same physical GPU in other: its UUID is once in
 * each report. (A fleet of simulated nodes may repeat a machine file's
 * UUIDs; those GPUs are paired by rank instead.)
 */
static bool uuid_paired(const struct gb_run *run, int pos, const struct gb_run *other)
{
	const char *uuid = run->devices[pos].uuid;

	return uuid && *uuid && uuid_count(run, uuid) == 1 && uuid_count(other, uuid) == 1;
}

/* rank of the GPU at pos among run's GPUs of its model that are not paired by UUID */
static int unpaired_rank(const struct gb_run *run, int pos, const struct gb_run *other)
{
	int rank = 0;

	for (int i = 0; i < pos; i++)
		if (!strcmp(pos_name(run, i), pos_name(run, pos)) && !uuid_paired(run, i, other))
			rank++;
	return rank;
}

/*
 * Which GPU of the other report the GPU at pos is compared with, as a key
 * both sides compute alike: the same UUID (the same GPU, wherever its CUDA
 * index moved: with GPU 1 of 8 hidden, A's GPU 7 is B's GPU 6), else the same
 * model and rank among the GPUs of that model left unpaired (another node,
 * or a GPU replaced). Across different models, the position.
 */
static char *gpu_key(const struct gb_run *run, int pos, const struct gb_run *other, bool cross)
{
	if (cross)
		return gb_strdupf("#%d", pos);
	if (uuid_paired(run, pos, other))
		return gb_strdupf("uuid:%s", run->devices[pos].uuid);
	return gb_strdupf("%s#%d", pos_name(run, pos), unpaired_rank(run, pos, other));
}

/* One metric of one report, keyed. */
struct ent {
	char *key;
	char *params;
	const struct gb_bench_result *b;
	const struct gb_metric *m;
	bool used;
};

/* gpu_key of each of run's GPUs, by position, computed once per report */
static char **gpu_keys(const struct gb_run *run, const struct gb_run *other, bool cross)
{
	char **keys = gb_xrealloc(NULL, sizeof(*keys) * (run->n_devices ? run->n_devices : 1));

	for (size_t i = 0; i < run->n_devices; i++)
		keys[i] = gpu_key(run, (int)i, other, cross);
	return keys;
}

static void free_keys(char **keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

static char *gpu_part(const struct gb_run *run, const struct gb_metric *m, char *const *keys)
{
	int pos = gb_fmt_device_pos(run, m->device);

	if (m->device < 0)
		return gb_strdup("all");
	if (pos < 0) /* a device the report does not describe: its index is all we know */
		return gb_strdupf("unknown#%d", m->device);
	return gb_strdup(keys[pos]);
}

static struct ent *collect(const struct gb_run *run, const struct gb_run *other, bool cross,
			   size_t *n)
{
	struct ent *e = NULL;
	size_t total = 0, k = 0;
	char **keys = gpu_keys(run, other, cross);

	for (size_t i = 0; i < run->n_benches; i++)
		total += run->benches[i].n_metrics;
	e = gb_xrealloc(NULL, sizeof(*e) * (total ? total : 1));
	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];
		char *pk = gb_params_key(b->params);

		for (size_t j = 0; j < b->n_metrics; j++, k++) {
			char *gpu = gpu_part(run, &b->metrics[j], keys);

			/* \x1f cannot be typed into a name by accident */
			e[k].key = gb_strdupf("%s\x1f%s\x1f%s\x1f%s", b->name, b->metrics[j].name,
					      gpu, pk);
			e[k].params = gb_strdup(pk);
			e[k].b = b;
			e[k].m = &b->metrics[j];
			e[k].used = false;
			free(gpu);
		}
		free(pk);
	}
	free_keys(keys, run->n_devices);
	*n = total;
	return e;
}

static void free_ents(struct ent *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(e[i].key);
		free(e[i].params);
	}
	free(e);
}

static bool has_model(const struct gb_run *run, const char *name)
{
	for (size_t i = 0; i < run->n_devices; i++)
		if (!strcmp(pos_name(run, (int)i), name))
			return true;
	return false;
}

/* No GPU model in common (and both have GPUs): compare hardware, not runs. */
static bool models_differ(const struct gb_run *a, const struct gb_run *b)
{
	if (!a->n_devices || !b->n_devices)
		return false;
	for (size_t i = 0; i < a->n_devices; i++)
		if (has_model(b, pos_name(a, (int)i)))
			return false;
	return true;
}

/* "2x NVIDIA H100 80GB HBM3, 1x NVIDIA A100-SXM4-80GB" */
static char *models_summary(const struct gb_run *run)
{
	struct sbuf sb = { NULL, 0, 0 };

	for (size_t i = 0; i < run->n_devices; i++) {
		const char *name = pos_name(run, (int)i);
		size_t count = 0;
		char *part;

		if (model_rank(run, (int)i) != 0)
			continue;
		for (size_t j = 0; j < run->n_devices; j++)
			count += !strcmp(pos_name(run, (int)j), name);
		part = gb_strdupf("%s%zux %s", sb.n ? ", " : "", count, name);
		sb_add(&sb, part);
		free(part);
	}
	return sb.s ? sb.s : gb_strdup("no GPUs");
}

/* ---- one side of a row ---- */

/*
 * The benchmark's own mean power for metric m: "power_w_mean" with m's
 * suffix first (gemm reports tflops_bf16 with power_w_mean_bf16), then the
 * plain names. NAN when there is none.
 */
static double power_metric(const struct gb_bench_result *b, const struct gb_metric *m)
{
	const char *us = strchr(m->name, '_');
	char *own = gb_strdupf("power_w_mean%s", us ? us : "");
	const char *const names[] = { own, "power_w_mean", "power_w", "power_w_median" };
	double w = NAN;

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]) && isnan(w); k++) {
		const struct gb_metric *p = gb_bench_find_metric(b, names[k], m->device);

		if (p && isfinite(p->value) && p->value > 0)
			w = p->value;
	}
	free(own);
	return w;
}

/* mean telemetry power of a device while the benchmark ran (or over the run) */
static double telemetry_power(const struct gb_run *run, const struct gb_bench_result *b,
			      int device)
{
	bool window = isfinite(b->started_s) && isfinite(b->duration_s);
	double sum = 0;
	size_t n = 0;

	for (int pass = 0; pass < 2 && n == 0; pass++) {
		for (size_t i = 0; i < run->n_telemetry; i++) {
			const struct gb_telemetry_sample *t = &run->telemetry[i];

			if (t->device != device || !isfinite(t->power_w))
				continue;
			if (pass == 0 && (!window || t->t_s < b->started_s ||
					  t->t_s > b->started_s + b->duration_s))
				continue;
			sum += t->power_w;
			n++;
		}
	}
	return n ? sum / (double)n : NAN;
}

/* The power a per-watt figure divides by, in order of how close it is to the measurement. */
static double power_of(const struct gb_run *run, const struct gb_bench_result *b,
		       const struct gb_metric *m, const char **src)
{
	const struct gb_device_info *d;
	int device = m->device;
	double p;

	*src = NULL;
	if (device < 0)
		return NAN;
	p = power_metric(b, m);
	if (isfinite(p)) {
		*src = "metric";
		return p;
	}
	p = telemetry_power(run, b, device);
	if (isfinite(p) && p > 0) {
		*src = "telemetry";
		return p;
	}
	d = gb_fmt_device(run, device);
	if (d && isfinite(d->power_limit_w) && d->power_limit_w > 0) {
		*src = "power_limit";
		return d->power_limit_w;
	}
	return NAN;
}

static void fill_side(struct gb_cmp_side *s, const struct gb_run *run, const struct ent *e,
		      double price, bool throughput)
{
	const struct gb_metric *m = e->m;
	double gpus = m->device >= 0 ? 1 : (double)(e->b->n_devices ? e->b->n_devices : 1);

	s->device = m->device;
	s->value = m->value;
	s->stdev = m->stats.n >= 2 && isfinite(m->stats.stdev) ? m->stats.stdev : 0;
	s->efficiency = gb_metric_efficiency(run, m);
	s->power_w = NAN;
	s->power_source = NULL;
	s->per_watt = s->per_dollar = NAN;
	/* per watt and per dollar mean something for a throughput only (never a clock, a %) */
	if (!throughput || !isfinite(m->value))
		return;
	s->power_w = power_of(run, e->b, m, &s->power_source);
	if (isfinite(s->power_w))
		s->per_watt = m->value / s->power_w;
	if (isfinite(price) && price > 0)
		s->per_dollar = m->value / (price * gpus);
}

static void empty_side(struct gb_cmp_side *s)
{
	s->device = -1;
	s->value = s->efficiency = s->power_w = s->per_watt = s->per_dollar = NAN;
	s->stdev = 0;
	s->power_source = NULL;
}

/* ---- classification ---- */

static enum gb_cmp_class classify(struct gb_cmp_row *r)
{
	double a = r->a.value, b = r->b.value;
	double diff = b - a, rel;

	if (!isfinite(a))
		return isfinite(b) ? GB_CMP_ONLY_B : GB_CMP_UNCHANGED;
	if (!isfinite(b)) /* it stopped being measured: never a silent pass */
		return r->better == GB_BETTER_NONE ? GB_CMP_CHANGED : GB_CMP_REGRESSION;
	rel = a != 0 ? diff / fabs(a) : (diff == 0 ? 0 : copysign(INFINITY, diff));
	if (fabs(rel) <= r->tolerance || fabs(diff) <= r->noise)
		return GB_CMP_UNCHANGED;
	if (r->better == GB_BETTER_NONE)
		return GB_CMP_CHANGED;
	if ((r->better == GB_BETTER_HIGHER) == (diff > 0))
		return GB_CMP_IMPROVEMENT;
	return GB_CMP_REGRESSION;
}

static struct gb_cmp_row *new_row(struct gb_compare *c)
{
	struct gb_cmp_row *r;

	if (c->n_rows == c->cap_rows) {
		c->cap_rows = c->cap_rows ? c->cap_rows * 2 : 32;
		c->rows = gb_xrealloc(c->rows, sizeof(*c->rows) * c->cap_rows);
	}
	r = &c->rows[c->n_rows++];
	memset(r, 0, sizeof(*r));
	empty_side(&r->a);
	empty_side(&r->b);
	r->ratio = r->change_pct = r->noise = NAN;
	return r;
}

static char *display_model(const struct gb_run *ra, const struct ent *ea, const struct gb_run *rb,
			   const struct ent *eb)
{
	const struct gb_metric *m = ea ? ea->m : eb->m;
	const struct gb_run *run = ea ? ra : rb;
	const char *na, *nb;

	if (m->device < 0)
		return gb_strdup("all");
	if (!ea || !eb)
		return gb_strdup(pos_name(run, gb_fmt_device_pos(run, m->device)));
	na = pos_name(ra, gb_fmt_device_pos(ra, ea->m->device));
	nb = pos_name(rb, gb_fmt_device_pos(rb, eb->m->device));
	return strcmp(na, nb) ? gb_strdupf("%s / %s", na, nb) : gb_strdup(na);
}

static void add_row(struct gb_compare *c, const struct gb_compare_opts *o,
		    const struct gb_run *ra, const struct ent *ea, const struct gb_run *rb,
		    const struct ent *eb)
{
	const struct ent *e = ea ? ea : eb;
	struct gb_cmp_row *r = new_row(c);
	bool throughput;

	r->bench = gb_strdup(e->b->name);
	r->metric = gb_strdup(e->m->name);
	r->model = display_model(ra, ea, rb, eb);
	r->params = gb_strdup(e->params);
	r->unit = gb_strdup(e->m->unit);
	/* today's table, also for a report an older build wrote with another direction */
	r->better = gb_metric_better(r->bench, r->metric, e->m->better);
	throughput = gb_metric_is_throughput(r->bench, r->metric, r->unit, r->better);
	r->tolerance = tolerance_for(o, r->bench, r->metric);
	if (ea)
		fill_side(&r->a, ra, ea, o->price_a, throughput);
	if (eb)
		fill_side(&r->b, rb, eb, o->price_b, throughput);
	if (!ea) {
		r->cls = GB_CMP_ONLY_B;
	} else if (!eb) {
		r->cls = GB_CMP_ONLY_A;
	} else {
		r->noise = o->spread_k * sqrt(r->a.stdev * r->a.stdev + r->b.stdev * r->b.stdev);
		if (isfinite(r->a.value) && isfinite(r->b.value) && r->a.value != 0) {
			r->ratio = r->b.value / r->a.value;
			r->change_pct = (r->b.value - r->a.value) / fabs(r->a.value) * 100;
		}
		r->cls = classify(r);
	}
	c->count[r->cls]++;
}

static const struct ent *find_unused(struct ent *list, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++) {
		if (!list[i].used && !strcmp(list[i].key, key)) {
			list[i].used = true;
			return &list[i];
		}
	}
	return NULL;
}

static void header_fields(struct gb_compare *c, const struct gb_run *a, const char *name_a,
			  const struct gb_run *b, const char *name_b,
			  const struct gb_compare_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->name_a = gb_strdup(name_a);
	c->name_b = gb_strdup(name_b);
	c->host_a = gb_strdup(a->host.hostname);
	c->host_b = gb_strdup(b->host.hostname);
	c->models_a = models_summary(a);
	c->models_b = models_summary(b);
	c->different_models = models_differ(a, b);
	c->tolerance = o->tolerance;
	c->spread_k = o->spread_k;
	c->price_a = o->price_a;
	c->price_b = o->price_b;
	c->allow_missing = o->allow_missing;
	c->n_software = gb_software_changes(&a->host, &b->host, c->software);
	c->simulated = a->host.simulated && b->host.simulated;
	if (c->simulated) {
		c->sim_a = gb_strdup(a->host.simulated_machine);
		c->sim_b = gb_strdup(b->host.simulated_machine);
	}
}

/* ---- B incomplete: never fail open ---- */

static bool ended_early(enum gb_status s)
{
	return s == GB_STATUS_ERROR || s == GB_STATUS_INTERRUPTED;
}

/* could not measure: error, interrupted, skipped, not built */
static bool did_not_run(enum gb_status s)
{
	return ended_early(s) || s == GB_STATUS_SKIPPED || s == GB_STATUS_NOT_BUILT;
}

static size_t values_in(const struct gb_bench_result *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->n_metrics; i++)
		n += isfinite(b->metrics[i].value) != 0;
	return n;
}

/* B's benchmark for A's: the same name and parameters, else the first of the same name */
static const struct gb_bench_result *counterpart(const struct gb_run *b,
						 const struct gb_bench_result *ba)
{
	const struct gb_bench_result *by_name = NULL, *found = NULL;
	char *key = gb_params_key(ba->params);

	for (size_t i = 0; i < b->n_benches && !found; i++) {
		char *k;

		if (strcmp(b->benches[i].name, ba->name))
			continue;
		if (!by_name)
			by_name = &b->benches[i];
		k = gb_params_key(b->benches[i].params);
		if (!strcmp(k, key))
			found = &b->benches[i];
		free(k);
	}
	free(key);
	return found ? found : by_name;
}

/* bench already has a finding: B incomplete, or (either side) not applicable */
static bool already_missing(const struct gb_compare *c, const char *bench)
{
	for (size_t i = 0; i < c->n_missing; i++)
		if (c->missing[i].bench && !strcmp(c->missing[i].bench, bench))
			return true;
	for (size_t i = 0; i < c->n_na; i++)
		if (c->na[i].bench && !strcmp(c->na[i].bench, bench))
			return true;
	return false;
}

static const char *const missing_kind_names[] = {
	[GB_MISS_RUN] = "run",         [GB_MISS_NOT_RUN] = "not_run",
	[GB_MISS_BENCHMARK] = "benchmark", [GB_MISS_METRICS] = "metrics",
	[GB_MISS_GPU] = "gpu",
};

const char *gb_cmp_missing_kind_name(enum gb_cmp_missing_kind k)
{
	return (size_t)k < sizeof(missing_kind_names) / sizeof(missing_kind_names[0])
		       ? missing_kind_names[k]
		       : "unknown";
}

const char *gb_cmp_missing_subject(const struct gb_cmp_missing *m)
{
	if (m->bench)
		return m->bench;
	return m->kind == GB_MISS_GPU ? "gpu" : "run";
}

static void fill_finding(struct gb_cmp_missing *m, enum gb_cmp_missing_kind kind,
			 const char *bench, enum gb_status st, const char *reason, size_t metrics_a,
			 char *message)
{
	m->side = 'B';
	m->kind = kind;
	m->device = -1;
	m->bench = gb_strdup(bench);
	m->status = st;
	m->reason = gb_str_printable(gb_strdup(reason));
	m->metrics_a = metrics_a;
	m->message = gb_str_printable(message);
}

/* a reason B is incomplete: fails the gate unless --allow-missing */
static void add_missing(struct gb_compare *c, enum gb_cmp_missing_kind kind, const char *bench,
			enum gb_status st, const char *reason, size_t metrics_a, char *message)
{
	c->missing = gb_xrealloc(c->missing, sizeof(*c->missing) * (c->n_missing + 1));
	fill_finding(&c->missing[c->n_missing++], kind, bench, st, reason, metrics_a, message);
}

/*
 * Across GPU models: what cannot exist on one side (p2p on a GPU without
 * peer access, fp8 on a GPU without it) is listed, never a failure.
 * side is the report that lacks it.
 */
static void add_not_applicable(struct gb_compare *c, char side, enum gb_cmp_missing_kind kind,
			       const char *bench, enum gb_status st, const char *reason,
			       size_t metrics, char *message)
{
	c->na = gb_xrealloc(c->na, sizeof(*c->na) * (c->n_na + 1));
	fill_finding(&c->na[c->n_na], kind, bench, st, reason, metrics, message);
	c->na[c->n_na++].side = side;
}

/* "(error: no GPU)" or "(error)" */
static char *status_why(enum gb_status st, const char *reason)
{
	return reason ? gb_strdupf("%s: %s", gb_status_name(st), reason)
		      : gb_strdup(gb_status_name(st));
}

/*
 * Across models, the other way round: a benchmark that could not exist on
 * A's hardware (skipped or not built there) and measured something in B.
 * Listed, never failed: its rows are only_b, and nothing in A was lost.
 */
static void find_not_applicable_in_a(struct gb_compare *c, const struct gb_run *a,
				     const struct gb_run *b)
{
	for (size_t i = 0; i < b->n_benches; i++) {
		const struct gb_bench_result *bb = &b->benches[i];
		const struct gb_bench_result *ba = counterpart(a, bb);
		size_t n = values_in(bb);
		char *why;

		if (n == 0 || !ba || !did_not_run(ba->status) || ended_early(ba->status) ||
		    already_missing(c, bb->name))
			continue;
		why = status_why(ba->status, ba->reason);
		add_not_applicable(c, 'A', GB_MISS_NOT_RUN, bb->name, ba->status, ba->reason, n,
				   gb_strdupf("%s does not apply to A (%s); B measured %zu metric%s",
					      bb->name, why, n, n == 1 ? "" : "s"));
		free(why);
	}
}

static void find_missing(struct gb_compare *c, const struct gb_run *a, const struct gb_run *b)
{
	if (ended_early(b->status)) {
		char *why = status_why(b->status, b->reason);

		add_missing(c, GB_MISS_RUN, NULL, b->status, b->reason, 0,
			    gb_strdupf("B's run ended early (%s)", why));
		free(why);
	}
	for (size_t i = 0; i < a->n_benches; i++) {
		const struct gb_bench_result *ba = &a->benches[i];
		const struct gb_bench_result *bb = counterpart(b, ba);
		size_t n = values_in(ba);
		char *why;

		if (n == 0 || already_missing(c, ba->name))
			continue;
		if (bb && did_not_run(bb->status) && c->different_models &&
		    !ended_early(bb->status)) {
			why = status_why(bb->status, bb->reason);
			add_not_applicable(c, 'B', GB_MISS_NOT_RUN, ba->name, bb->status,
					   bb->reason, n,
					   gb_strdupf("%s does not apply to B (%s); A measured %zu "
						      "metric%s",
						      ba->name, why, n, n == 1 ? "" : "s"));
			free(why);
		} else if (bb && did_not_run(bb->status)) {
			why = status_why(bb->status, bb->reason);
			add_missing(c, GB_MISS_NOT_RUN, ba->name, bb->status, bb->reason, n,
				    gb_strdupf("%s did not run in B (%s); A measured %zu metric%s",
					       ba->name, why, n, n == 1 ? "" : "s"));
			free(why);
		} else if (!bb && ended_early(b->status)) {
			add_missing(c, GB_MISS_BENCHMARK, ba->name, b->status, NULL, n,
				    gb_strdupf("%s is missing from B, whose run ended %s; A measured "
					       "%zu metric%s",
					       ba->name, gb_status_name(b->status), n,
					       n == 1 ? "" : "s"));
		}
	}
	if (c->different_models)
		find_not_applicable_in_a(c, a, b);
}

/* B has a GPU for A's device at position pos, by gpu_key: the same UUID, model and rank, or position */
static bool gpu_in_b(const struct gb_compare *c, const struct gb_run *a, const struct gb_run *b,
		     int pos)
{
	char *key = gpu_key(a, pos, b, c->different_models);
	char **keys_b = gpu_keys(b, a, c->different_models);
	bool found = false;

	for (size_t i = 0; i < b->n_devices && !found; i++)
		found = !strcmp(key, keys_b[i]);
	free_keys(keys_b, b->n_devices);
	free(key);
	return found;
}

/*
 * A measured it and B has no value: absent from B, or null there and not
 * already a regression. An observation (no direction: telemetry, a fit)
 * is something a run may or may not see: never a loss.
 */
static bool lost_in_b(const struct gb_cmp_row *r)
{
	return r->better != GB_BETTER_NONE && isfinite(r->a.value) && !isfinite(r->b.value) &&
	       r->cls != GB_CMP_REGRESSION;
}

static bool gpu_missing(const struct gb_compare *c, int device)
{
	for (size_t i = 0; i < c->n_missing; i++)
		if (c->missing[i].kind == GB_MISS_GPU && c->missing[i].device == device)
			return true;
	return false;
}

/* A's GPU with CUDA index dev has a counterpart in B (true for no GPU, and for one A does not describe) */
static bool a_gpu_in_b(const struct gb_compare *c, const struct gb_run *a, const struct gb_run *b,
		       int dev)
{
	int pos = gb_fmt_device_pos(a, dev);

	return pos < 0 || gpu_in_b(c, a, b, pos);
}

/*
 * A GPU of A that B does not have: one finding, which covers the metrics A
 * measured on it. Across different models a GPU count is hardware, not a
 * loss: no finding, and the metrics of A's extra GPUs stay only_a.
 */
static void find_absent_gpus(struct gb_compare *c, const struct gb_run *a, const struct gb_run *b)
{
	/* a B that ended early without seeing a GPU: its run's finding says why */
	if (c->different_models || (ended_early(b->status) && b->n_devices == 0))
		return;
	for (size_t p = 0; p < a->n_devices; p++) {
		int dev = a->devices[p].index;
		size_t n = 0;

		if (gpu_in_b(c, a, b, (int)p) || gpu_missing(c, dev))
			continue;
		/* everything A measured on it, observations too: the GPU is what is lost */
		for (size_t i = 0; i < c->n_rows; i++)
			n += isfinite(c->rows[i].a.value) && !isfinite(c->rows[i].b.value) &&
			     c->rows[i].a.device == dev;
		add_missing(c, GB_MISS_GPU, NULL, b->status, NULL, n,
			    gb_strdupf("GPU %d (%s) of A is missing from B; A measured %zu "
				       "metric%s on it",
				       dev, pos_name(a, (int)p), n, n == 1 ? "" : "s"));
		c->missing[c->n_missing - 1].device = dev;
	}
}

static bool bench_in(const struct gb_run *run, const char *name)
{
	for (size_t i = 0; i < run->n_benches; i++)
		if (!strcmp(run->benches[i].name, name))
			return true;
	return false;
}

/* Rows of bench that A measured and B lost, on a GPU B has (else the GPU is the finding). */
static size_t lost_rows(const struct gb_compare *c, const struct gb_run *a, const struct gb_run *b,
			const char *bench, struct sbuf *names)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_rows; i++) {
		const struct gb_cmp_row *r = &c->rows[i];
		char *item;

		if (strcmp(r->bench, bench) || !lost_in_b(r) || !a_gpu_in_b(c, a, b, r->a.device))
			continue;
		if (++n > 4)
			continue;
		item = r->a.device >= 0 ? gb_strdupf("%s%s (GPU %d)", n > 1 ? ", " : "",
						    r->metric, r->a.device)
					: gb_strdupf("%s%s", n > 1 ? ", " : "", r->metric);
		sb_add(names, item);
		free(item);
	}
	return n;
}

/* rows of bench with a value in A and none in B, observations too: a whole benchmark lost */
static size_t a_values_lost(const struct gb_compare *c, const char *bench)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_rows; i++)
		n += !strcmp(c->rows[i].bench, bench) && isfinite(c->rows[i].a.value) &&
		     !isfinite(c->rows[i].b.value);
	return n;
}

/* Across models: what B has no counterpart for is other hardware, not a loss. */
static void no_counterpart(struct gb_compare *c, const struct gb_run *b, const char *bench,
			   size_t n, const char *names)
{
	const char *s = n == 1 ? "" : "s";

	if (bench_in(b, bench))
		add_not_applicable(c, 'B', GB_MISS_METRICS, bench, b->status, NULL, n,
				   gb_strdupf("%s in B has no counterpart for %zu metric%s A "
					      "measured: %s%s",
					      bench, n, s, names, n > 4 ? ", ..." : ""));
	else
		add_not_applicable(c, 'B', GB_MISS_BENCHMARK, bench, b->status, NULL, n,
				   gb_strdupf("%s is not in B; A measured %zu metric%s", bench, n,
					      s));
}

/* One finding per benchmark whose measured metrics B lacks: the whole benchmark, or some metrics. */
static void find_absent_metrics(struct gb_compare *c, const struct gb_run *a,
				const struct gb_run *b)
{
	for (size_t i = 0; i < c->n_rows; i++) {
		const char *bench = c->rows[i].bench;
		struct sbuf names = { NULL, 0, 0 };
		size_t n;

		if (!lost_in_b(&c->rows[i]) || already_missing(c, bench))
			continue;
		n = lost_rows(c, a, b, bench, &names);
		if (n == 0) {
			free(names.s);
			continue;
		}
		if (!bench_in(b, bench))
			n = a_values_lost(c, bench);
		if (c->different_models)
			no_counterpart(c, b, bench, n, names.s);
		else if (!bench_in(b, bench))
			add_missing(c, GB_MISS_BENCHMARK, bench, b->status, NULL, n,
				    gb_strdupf("%s is missing from B; A measured %zu metric%s", bench,
					       n, n == 1 ? "" : "s"));
		else
			add_missing(c, GB_MISS_METRICS, bench, b->status, NULL, n,
				    gb_strdupf("%s in B lacks %zu metric%s A measured: %s%s", bench,
					       n, n == 1 ? "" : "s", names.s,
					       n > 4 ? ", ..." : ""));
		free(names.s);
	}
}

/* a finding that says B could not run (not merely that something is absent) */
static bool could_not_run(const struct gb_compare *c)
{
	for (size_t i = 0; i < c->n_missing; i++)
		if (c->missing[i].kind == GB_MISS_RUN || c->missing[i].kind == GB_MISS_NOT_RUN)
			return true;
	return false;
}

int gb_compare_runs(const struct gb_run *a, const char *name_a, const struct gb_run *b,
		    const char *name_b, const struct gb_compare_opts *o, struct gb_compare *out,
		    char *err, size_t errlen)
{
	size_t na, nb, matched = 0;
	struct ent *ea, *eb;

	/* simulated numbers are not measurements: never a baseline for real ones, nor the reverse */
	if (a->host.simulated != b->host.simulated) {
		const struct gb_run *sim = a->host.simulated ? a : b;

		snprintf(err, errlen,
			 "cannot compare a simulated report with a measured one: '%s' is simulated "
			 "(%s), '%s' is measured",
			 a->host.simulated ? name_a : name_b,
			 sim->host.simulated_machine ? sim->host.simulated_machine : "unknown machine",
			 a->host.simulated ? name_b : name_a);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	header_fields(out, a, name_a, b, name_b, o);
	find_missing(out, a, b);
	ea = collect(a, b, out->different_models, &na);
	eb = collect(b, a, out->different_models, &nb);
	for (size_t i = 0; i < na; i++) {
		const struct ent *m = find_unused(eb, nb, ea[i].key);

		matched += m != NULL;
		add_row(out, o, a, &ea[i], b, m);
	}
	for (size_t i = 0; i < nb; i++)
		if (!eb[i].used)
			add_row(out, o, a, NULL, b, &eb[i]);
	free_ents(ea, na);
	free_ents(eb, nb);
	find_absent_gpus(out, a, b);
	find_absent_metrics(out, a, b);
	/* a B that could not run has nothing in common with A: that is its finding */
	if (matched == 0 && (!could_not_run(out) || out->allow_missing)) {
		snprintf(err, errlen, "'%s' and '%s' have no metric in common", name_a, name_b);
		gb_compare_release(out);
		return -1;
	}
	return 0;
}

void gb_compare_release(struct gb_compare *c)
{
	for (size_t i = 0; i < c->n_rows; i++) {
		free(c->rows[i].bench);
		free(c->rows[i].metric);
		free(c->rows[i].model);
		free(c->rows[i].params);
		free(c->rows[i].unit);
	}
	free(c->rows);
	free(c->name_a);
	free(c->name_b);
	free(c->host_a);
	free(c->host_b);
	free(c->models_a);
	free(c->models_b);
	free(c->sim_a);
	free(c->sim_b);
	for (size_t i = 0; i < c->n_missing; i++) {
		free(c->missing[i].bench);
		free(c->missing[i].reason);
		free(c->missing[i].message);
	}
	free(c->missing);
	for (size_t i = 0; i < c->n_na; i++) {
		free(c->na[i].bench);
		free(c->na[i].reason);
		free(c->na[i].message);
	}
	free(c->na);
	memset(c, 0, sizeof(*c));
}

bool gb_compare_regressed(const struct gb_compare *c)
{
	return !c->different_models && c->count[GB_CMP_REGRESSION] > 0;
}

bool gb_compare_failed(const struct gb_compare *c)
{
	return gb_compare_regressed(c) || (c->n_missing > 0 && !c->allow_missing);
}

/* ------------------------------------------------------------------------ */
/* the compare document                                                     */

static cJSON *side_json(const struct gb_cmp_side *s)
{
	cJSON *o = cJSON_CreateObject();

	gb_json_add_int(o, "device", s->device);
	gb_json_add_num(o, "value", s->value);
	gb_json_add_num(o, "stdev", s->stdev);
	gb_json_add_num(o, "efficiency", s->efficiency);
	gb_json_add_num(o, "power_w", s->power_w);
	gb_json_add_str(o, "power_source", s->power_source);
	gb_json_add_num(o, "per_watt", s->per_watt);
	gb_json_add_num(o, "per_dollar", s->per_dollar);
	return o;
}

static cJSON *row_json(const struct gb_compare *c, const struct gb_cmp_row *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "benchmark", r->bench);
	cJSON_AddStringToObject(o, "metric", r->metric);
	cJSON_AddStringToObject(o, "device_model", r->model);
	cJSON_AddStringToObject(o, "params", r->params);
	gb_json_add_str(o, "unit", r->unit);
	cJSON_AddStringToObject(o, "better", gb_better_name(r->better));
	cJSON_AddItemToObject(o, "a", side_json(&r->a));
	cJSON_AddItemToObject(o, "b", side_json(&r->b));
	gb_json_add_num(o, "ratio", r->ratio);
	gb_json_add_num(o, "change_pct", r->change_pct);
	gb_json_add_num(o, "tolerance", r->tolerance);
	gb_json_add_num(o, "noise", r->noise);
	cJSON_AddStringToObject(o, "class", gb_cmp_class_name(r->cls, c->different_models));
	return o;
}

static cJSON *input_json(const char *file, const char *host, const char *models, double price)
{
	cJSON *o = cJSON_CreateObject();

	gb_json_add_str(o, "file", file);
	gb_json_add_str(o, "hostname", host);
	gb_json_add_str(o, "devices", models);
	gb_json_add_num(o, "price_per_gpu_hour", price);
	return o;
}

static cJSON *missing_json(const struct gb_cmp_missing *m, bool with_side)
{
	cJSON *o = cJSON_CreateObject();

	if (with_side)
		cJSON_AddStringToObject(o, "side", m->side == 'A' ? "a" : "b");

	cJSON_AddStringToObject(o, "kind", gb_cmp_missing_kind_name(m->kind));
	gb_json_add_str(o, "benchmark", m->bench);
	gb_json_add_int(o, "device", m->device);
	cJSON_AddStringToObject(o, "status", gb_status_name(m->status));
	gb_json_add_str(o, "reason", m->reason);
	cJSON_AddNumberToObject(o, "metrics_a", (double)m->metrics_a);
	cJSON_AddStringToObject(o, "message", m->message);
	return o;
}

/* [{"name": "cuBLASLt", "a": "13.1.0", "b": "13.2.0"}, ...]: empty when nothing changed */
static cJSON *software_json(const struct gb_compare *c)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < c->n_software; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", c->software[i].name);
		cJSON_AddStringToObject(o, "a", c->software[i].a);
		cJSON_AddStringToObject(o, "b", c->software[i].b);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

cJSON *gb_compare_to_json(const struct gb_compare *c)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON *sum = cJSON_CreateObject();
	cJSON *rows, *missing;
	bool bad = gb_compare_failed(c);

	cJSON_AddStringToObject(doc, "schema", GB_COMPARE_SCHEMA);
	cJSON_AddItemToObject(doc, "a", input_json(c->name_a, c->host_a, c->models_a, c->price_a));
	cJSON_AddItemToObject(doc, "b", input_json(c->name_b, c->host_b, c->models_b, c->price_b));
	cJSON_AddStringToObject(doc, "mode",
				c->different_models ? "different_models" : "same_models");
	cJSON_AddBoolToObject(doc, "simulated", c->simulated);
	cJSON_AddItemToObject(doc, "software_changes", software_json(c));
	cJSON_AddNumberToObject(doc, "tolerance", c->tolerance);
	cJSON_AddNumberToObject(doc, "spread_k", c->spread_k);
	for (int k = 0; k < GB_CMP_CLASS_COUNT; k++)
		cJSON_AddNumberToObject(sum, class_names[k], (double)c->count[k]);
	cJSON_AddItemToObject(doc, "summary", sum);
	cJSON_AddBoolToObject(doc, "regressed", gb_compare_regressed(c));
	cJSON_AddBoolToObject(doc, "allow_missing", c->allow_missing);
	missing = cJSON_AddArrayToObject(doc, "incomplete");
	for (size_t i = 0; i < c->n_missing; i++)
		cJSON_AddItemToArray(missing, missing_json(&c->missing[i], false));
	missing = cJSON_AddArrayToObject(doc, "not_applicable");
	for (size_t i = 0; i < c->n_na; i++)
		cJSON_AddItemToArray(missing, missing_json(&c->na[i], true));
	cJSON_AddStringToObject(doc, "result", gb_compare_result_words(c));
	cJSON_AddStringToObject(doc, "status", bad ? "failed" : "passed");
	cJSON_AddNumberToObject(doc, "exit_code", bad ? 1 : 0);
	rows = cJSON_AddArrayToObject(doc, "rows");
	for (size_t i = 0; i < c->n_rows; i++)
		cJSON_AddItemToArray(rows, row_json(c, &c->rows[i]));
	return doc;
}

/* ------------------------------------------------------------------------ */
/* text, Markdown and CSV                                                   */

/* A table of strings, printed aligned (text) or as a Markdown table. */
struct tbl {
	size_t ncol, nrows;
	char **cells; /* nrows x ncol, row 0 the header */
	const bool *right;
};

static void tbl_add(struct tbl *t, char **row)
{
	t->cells = gb_xrealloc(t->cells, sizeof(char *) * t->ncol * (t->nrows + 1));
	memcpy(t->cells + t->nrows * t->ncol, row, sizeof(char *) * t->ncol);
	t->nrows++;
}

static void tbl_free(struct tbl *t)
{
	for (size_t i = 0; i < t->nrows * t->ncol; i++)
		free(t->cells[i]);
	free(t->cells);
}

static void tbl_text(const struct tbl *t, FILE *out)
{
	size_t w[16] = { 0 };

	for (size_t r = 0; r < t->nrows; r++)
		for (size_t k = 0; k < t->ncol && k < 16; k++)
			if (strlen(t->cells[r * t->ncol + k]) > w[k])
				w[k] = strlen(t->cells[r * t->ncol + k]);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t k = 0; k < t->ncol && k < 16; k++) {
			const char *s = t->cells[r * t->ncol + k];
			int width = (int)w[k];

			if (k)
				fputs("  ", out);
			if (t->right[k])
				fprintf(out, "%*s", width, s);
			else if (k + 1 < t->ncol)
				fprintf(out, "%-*s", width, s);
			else
				fputs(s, out);
		}
		fputc('\n', out);
	}
}

static void tbl_markdown(const struct tbl *t, FILE *out)
{
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t k = 0; k < t->ncol; k++) {
			fputs("| ", out);
			gb_fmt_md(out, t->cells[r * t->ncol + k]);
			fputc(' ', out);
		}
		fputs("|\n", out);
		if (r == 0) {
			for (size_t k = 0; k < t->ncol; k++)
				fputs(t->right[k] ? "|---:" : "|---", out);
			fputs("|\n", out);
		}
	}
}

static char *hum(double v)
{
	char buf[48];

	gb_fmt_human(buf, sizeof(buf), v);
	return gb_strdup(buf);
}

static char *pct(double fraction)
{
	return isfinite(fraction) ? gb_strdupf("%.1f%%", fraction * 100) : gb_strdup("-");
}

static char *device_cell(const struct gb_cmp_row *r)
{
	int dev = r->a.device >= 0 ? r->a.device : r->b.device;

	if (dev < 0)
		return gb_strdup(r->model);
	return gb_strdupf("%d %s", dev, r->model);
}

static bool any_params(const struct gb_compare *c)
{
	for (size_t i = 0; i < c->n_rows; i++)
		if (c->rows[i].params[0])
			return true;
	return false;
}

/* columns: benchmark metric device A B B/A change result [params] */
static void same_model_table(const struct gb_compare *c, struct tbl *t)
{
	static const bool right[] = { false, false, false, true, true, true, true, false, false };
	char *head[] = { gb_strdup("benchmark"), gb_strdup("metric"), gb_strdup("GPU"),
			 gb_strdup("A"),         gb_strdup("B"),      gb_strdup("B/A"),
			 gb_strdup("change"),    gb_strdup("result"), gb_strdup("params") };

	t->ncol = any_params(c) ? 9 : 8;
	t->right = right;
	if (t->ncol == 8)
		free(head[8]);
	tbl_add(t, head);
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct gb_cmp_row *r = &c->rows[i];
		char *row[9] = {
			gb_strdup(r->bench),
			r->unit ? gb_strdupf("%s (%s)", r->metric, r->unit) : gb_strdup(r->metric),
			device_cell(r),
			hum(r->a.value),
			hum(r->b.value),
			isfinite(r->ratio) ? gb_strdupf("%.3f", r->ratio) : gb_strdup("-"),
			isfinite(r->change_pct) ? gb_strdupf("%+.1f%%", r->change_pct)
						: gb_strdup("-"),
			gb_strdup(gb_cmp_class_name(r->cls, false)),
			t->ncol == 9 ? gb_strdup(r->params) : NULL,
		};

		tbl_add(t, row);
	}
}

/*
 * The GPU of a row across models, by index (the models are in the header):
 * "1", "all" for a metric of no single GPU, "0/1" when A's and B's indexes
 * differ.
 */
static char *gpu_index_cell(const struct gb_cmp_row *r)
{
	if (r->a.device < 0 && r->b.device < 0)
		return gb_strdup("all");
	if (r->a.device >= 0 && r->b.device >= 0 && r->a.device != r->b.device)
		return gb_strdupf("%d/%d", r->a.device, r->b.device);
	return gb_strdupf("%d", r->a.device >= 0 ? r->a.device : r->b.device);
}

/* columns: benchmark metric GPU A B B/A %peak A %peak B per-W A per-W B per-$ A per-$ B result */
static void cross_model_table(const struct gb_compare *c, struct tbl *t)
{
	static const bool right[] = { false, false, true, true, true, true, true,
				      true,  true,  true, true, true,  false };
	char *head[] = { gb_strdup("benchmark"), gb_strdup("metric"),   gb_strdup("GPU"),
			 gb_strdup("A"),         gb_strdup("B"),        gb_strdup("B/A"),
			 gb_strdup("% peak A"),  gb_strdup("% peak B"), gb_strdup("per W A"),
			 gb_strdup("per W B"),   gb_strdup("per $ A"),  gb_strdup("per $ B"),
			 gb_strdup("result") };

	t->ncol = 13;
	t->right = right;
	tbl_add(t, head);
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct gb_cmp_row *r = &c->rows[i];
		char *row[13] = {
			gb_strdup(r->bench),
			r->unit ? gb_strdupf("%s (%s)", r->metric, r->unit) : gb_strdup(r->metric),
			gpu_index_cell(r),
			hum(r->a.value),
			hum(r->b.value),
			isfinite(r->ratio) ? gb_strdupf("%.3f", r->ratio) : gb_strdup("-"),
			pct(r->a.efficiency),
			pct(r->b.efficiency),
			hum(r->a.per_watt),
			hum(r->b.per_watt),
			hum(r->a.per_dollar),
			hum(r->b.per_dollar),
			gb_strdup(gb_cmp_class_name(r->cls, true)),
		};

		tbl_add(t, row);
	}
}

static void build_table(const struct gb_compare *c, struct tbl *t)
{
	memset(t, 0, sizeof(*t));
	if (c->different_models)
		cross_model_table(c, t);
	else
		same_model_table(c, t);
}

/* "3 regressions, 1 improvement, ..." in every format (gb_compare_summary_words) */
static void summary_line(const struct gb_compare *c, FILE *out)
{
	char buf[512];

	gb_compare_summary_words(c, buf, sizeof(buf));
	fprintf(out, "%s\n", buf);
}

void gb_compare_summary_words(const struct gb_compare *c, char *buf, size_t len)
{
	size_t used = 0;

	static const char *const words[][2] = {
		[GB_CMP_UNCHANGED] = { "unchanged", "unchanged" },
		[GB_CMP_IMPROVEMENT] = { "improvement", "improvements" },
		[GB_CMP_REGRESSION] = { "regression", "regressions" },
		[GB_CMP_CHANGED] = { "changed (no direction)", "changed (no direction)" },
		[GB_CMP_ONLY_A] = { "only in A", "only in A" },
		[GB_CMP_ONLY_B] = { "only in B", "only in B" },
	};
	static const char *const cross_words[][2] = {
		{ "better in B", "better in B" },
		{ "worse in B", "worse in B" },
	};

	for (int k = 0; k < GB_CMP_CLASS_COUNT; k++) {
		const char *const *w = words[k];

		if (c->different_models && k == GB_CMP_IMPROVEMENT)
			w = cross_words[0];
		else if (c->different_models && k == GB_CMP_REGRESSION)
			w = cross_words[1];
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%zu %s", k ? ", " : "",
						 c->count[k], w[c->count[k] == 1 ? 0 : 1]);
	}
	if (c->n_na && used < len)
		used += (size_t)snprintf(buf + used, len - used, ", %zu not applicable", c->n_na);
	if (c->different_models && used < len)
		snprintf(buf + used, len - used, "; changes not gated");
}

static void power_note(const struct gb_compare *c, FILE *out)
{
	const char *src_a = NULL, *src_b = NULL;

	for (size_t i = 0; i < c->n_rows && !(src_a && src_b); i++) {
		if (!src_a)
			src_a = c->rows[i].a.power_source;
		if (!src_b)
			src_b = c->rows[i].b.power_source;
	}
	fprintf(out, "per W: throughput per watt of %s power in A, %s power in B; per $: per "
		     "$/GPU-hour (%s)\n",
		src_a ? src_a : "unknown", src_b ? src_b : "unknown",
		isfinite(c->price_a) || isfinite(c->price_b) ? "--price" : "give --price A,B");
}

/* "simulated GPU (A: m1; B: m2): these numbers are not measurements", or "" */
static void simulated_line(const struct gb_compare *c, char *buf, size_t len)
{
	buf[0] = '\0';
	if (c->simulated)
		snprintf(buf, len, "simulated GPU (A: %s; B: %s): these numbers are not measurements",
			 c->sim_a ? c->sim_a : "unknown machine",
			 c->sim_b ? c->sim_b : "unknown machine");
}

static void text_header(const struct gb_compare *c, FILE *out)
{
	char sim[1200], sw[512];

	simulated_line(c, sim, sizeof(sim));
	if (sim[0])
		fprintf(out, "%s\n", sim);
	fprintf(out, "A  '%s'  %s  %s\nB  '%s'  %s  %s\n", c->name_a, c->host_a ? c->host_a : "-",
		c->models_a, c->name_b, c->host_b ? c->host_b : "-", c->models_b);
	if (gb_software_changes_line(sw, sizeof(sw), c->software, c->n_software))
		fprintf(out, "software changed: %s\n", sw);
	if (c->different_models)
		fputs("different GPU models: side by side, changes not gated\n", out);
	else
		fprintf(out,
			"regression: worse by more than the tolerance (%.1f%% unless set per "
			"metric) and by more than %g x the combined stdev\n",
			c->tolerance * 100, c->spread_k);
}

/* "regression", "B incomplete", "regression, B incomplete" or "passed" */
static const char *result_words(const struct gb_compare *c)
{
	bool reg = gb_compare_regressed(c);
	bool inc = c->n_missing > 0 && !c->allow_missing;

	if (reg && inc)
		return "regression, B incomplete";
	if (reg)
		return "regression";
	if (inc)
		return "B incomplete";
	return c->different_models ? "passed (side by side, not gated)" : "passed";
}

const char *gb_compare_result_words(const struct gb_compare *c)
{
	return result_words(c);
}

static void missing_text(const struct gb_compare *c, FILE *out)
{
	if (c->n_na) {
		fprintf(out, "\n%s:\n", GB_CMP_NA_TITLE);
		for (size_t i = 0; i < c->n_na; i++)
			fprintf(out, "  %s\n", c->na[i].message);
	}
	if (!c->n_missing)
		return;
	fprintf(out, "\nB incomplete (%s):\n",
		c->allow_missing ? "listed, not failed: --allow-missing"
				 : "fails the gate; --allow-missing lists it only");
	for (size_t i = 0; i < c->n_missing; i++)
		fprintf(out, "  %s\n", c->missing[i].message);
}

void gb_cmp_row_line(const struct gb_cmp_row *r, char *buf, size_t len)
{
	char va[48], vb[48], gpu[32];

	gb_fmt_human(va, sizeof(va), r->a.value);
	gb_fmt_human(vb, sizeof(vb), r->b.value);
	if (r->a.device >= 0 || r->b.device >= 0)
		snprintf(gpu, sizeof(gpu), "GPU %d", r->a.device >= 0 ? r->a.device : r->b.device);
	else
		snprintf(gpu, sizeof(gpu), "all GPUs");
	if (isfinite(r->change_pct))
		snprintf(buf, len, "%s %s on %s: %s -> %s %s (%+.1f%%)", r->bench, r->metric, gpu, va,
			 vb, r->unit ? r->unit : "", r->change_pct);
	else
		snprintf(buf, len, "%s %s on %s: %s -> %s %s", r->bench, r->metric, gpu, va, vb,
			 r->unit ? r->unit : "");
}

/* the regressions again, one line each, where a long table would hide them */
static void regressions_text(const struct gb_compare *c, FILE *out, const char *bullet)
{
	char line[512];

	if (!gb_compare_regressed(c))
		return;
	fprintf(out, "\nRegressions (fail the gate):\n");
	for (size_t i = 0; i < c->n_rows; i++) {
		if (c->rows[i].cls != GB_CMP_REGRESSION)
			continue;
		gb_cmp_row_line(&c->rows[i], line, sizeof(line));
		fprintf(out, "%s%s\n", bullet, line);
	}
}

static void print_text(const struct gb_compare *c, FILE *out)
{
	struct tbl t;

	text_header(c, out);
	if (c->different_models)
		power_note(c, out);
	fputc('\n', out);
	build_table(c, &t);
	tbl_text(&t, out);
	tbl_free(&t);
	missing_text(c, out);
	regressions_text(c, out, "  ");
	fputc('\n', out);
	summary_line(c, out);
	if (gb_compare_failed(c))
		fprintf(out, "result: failed (%s)\n", result_words(c));
	else
		fprintf(out, "result: %s\n", result_words(c));
}

static void print_markdown(const struct gb_compare *c, FILE *out)
{
	struct tbl t;
	bool bad = gb_compare_failed(c);
	char sim[1200], sw[512];

	fprintf(out, "## %s gpubench compare: %s\n\n", bad ? "\xE2\x9D\x8C" : "\xE2\x9C\x85",
		bad ? result_words(c) : c->different_models ? result_words(c) : "no regression");
	simulated_line(c, sim, sizeof(sim));
	if (sim[0]) {
		fputs("> **", out);
		gb_fmt_md(out, sim);
		fputs("**\n\n", out);
	}
	fputs("| | file | host | GPUs |\n|---|---|---|---|\n| A | ", out);
	gb_fmt_md(out, c->name_a);
	fputs(" | ", out);
	gb_fmt_md(out, c->host_a ? c->host_a : "-");
	fputs(" | ", out);
	gb_fmt_md(out, c->models_a);
	fputs(" |\n| B | ", out);
	gb_fmt_md(out, c->name_b);
	fputs(" | ", out);
	gb_fmt_md(out, c->host_b ? c->host_b : "-");
	fputs(" | ", out);
	gb_fmt_md(out, c->models_b);
	fputs(" |\n\n", out);
	if (gb_software_changes_line(sw, sizeof(sw), c->software, c->n_software)) {
		fputs("Software changed: ", out);
		gb_fmt_md(out, sw);
		fputs("\n\n", out);
	}
	if (c->different_models)
		fputs("Different GPU models: side by side, changes not gated.\n\n", out);
	if (c->n_na) {
		fprintf(out, "### %s\n\n", GB_CMP_NA_TITLE);
		for (size_t i = 0; i < c->n_na; i++) {
			fputs("- ", out);
			gb_fmt_md(out, c->na[i].message);
			fputc('\n', out);
		}
		fputc('\n', out);
	}
	if (c->n_missing) {
		fprintf(out, "### B incomplete (%s)\n\n",
			c->allow_missing ? "listed, not failed: --allow-missing"
					 : "fails the gate");
		for (size_t i = 0; i < c->n_missing; i++) {
			fputs("- ", out);
			gb_fmt_md(out, c->missing[i].message);
			fputc('\n', out);
		}
		fputc('\n', out);
	}
	build_table(c, &t);
	tbl_markdown(&t, out);
	tbl_free(&t);
	if (gb_compare_regressed(c)) {
		char line[512];

		fputs("\n### Regressions (fail the gate)\n\n", out);
		for (size_t i = 0; i < c->n_rows; i++) {
			if (c->rows[i].cls != GB_CMP_REGRESSION)
				continue;
			gb_cmp_row_line(&c->rows[i], line, sizeof(line));
			fputs("- ", out);
			gb_fmt_md(out, line);
			fputc('\n', out);
		}
	}
	fputc('\n', out);
	summary_line(c, out);
}

static void csv_num(FILE *out, double v)
{
	char buf[48];

	gb_fmt_exact(buf, sizeof(buf), v);
	fprintf(out, ",%s", buf);
}

/*
 * One row per compared metric. The last column, simulated, says whether both
 * reports came from gpubench-sim (compare refuses a simulated report against
 * a measured one, so one word holds for both), on every row: a row copied
 * out of the file still says it; last so the other columns keep their place.
 */
static void print_csv(const struct gb_compare *c, FILE *out)
{
	fputs("benchmark,metric,device_model,device_a,device_b,params,unit,a,b,ratio,change_pct,"
	      "tolerance,noise,"
	      "class,efficiency_a,efficiency_b,per_watt_a,per_watt_b,per_dollar_a,per_dollar_b,"
	      "simulated\r\n",
	      out);
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct gb_cmp_row *r = &c->rows[i];

		gb_fmt_csv(out, r->bench);
		fputc(',', out);
		gb_fmt_csv(out, r->metric);
		fputc(',', out);
		gb_fmt_csv(out, r->model);
		/* each side's CUDA index; empty for a metric of no single GPU or a side without it */
		fputc(',', out);
		if (r->a.device >= 0)
			fprintf(out, "%d", r->a.device);
		fputc(',', out);
		if (r->b.device >= 0)
			fprintf(out, "%d", r->b.device);
		fputc(',', out);
		gb_fmt_csv(out, r->params);
		fputc(',', out);
		gb_fmt_csv(out, r->unit);
		csv_num(out, r->a.value);
		csv_num(out, r->b.value);
		csv_num(out, r->ratio);
		csv_num(out, r->change_pct);
		csv_num(out, r->tolerance);
		csv_num(out, r->noise);
		fprintf(out, ",%s", gb_cmp_class_name(r->cls, c->different_models));
		csv_num(out, r->a.efficiency);
		csv_num(out, r->b.efficiency);
		csv_num(out, r->a.per_watt);
		csv_num(out, r->b.per_watt);
		csv_num(out, r->a.per_dollar);
		csv_num(out, r->b.per_dollar);
		fprintf(out, ",%s\r\n", gb_fmt_bool(c->simulated));
	}
}

int gb_compare_print(const struct gb_compare *c, enum gb_out_format f, FILE *out)
{
	cJSON *doc;
	char *text;

	switch (f) {
	case GB_OUT_TEXT:
		print_text(c, out);
		break;
	case GB_OUT_MARKDOWN:
		print_markdown(c, out);
		break;
	case GB_OUT_CSV:
		print_csv(c, out);
		break;
	case GB_OUT_JUNIT:
		return gb_compare_junit(c, out);
	case GB_OUT_PROMETHEUS:
		return gb_compare_prometheus(c, out);
	case GB_OUT_HTML:
		return gb_compare_html(c, out);
	case GB_OUT_JSON:
		doc = gb_compare_to_json(c);
		text = cJSON_Print(doc);
		cJSON_Delete(doc);
		if (!text)
			return -1;
		fputs(text, out);
		fputc('\n', out);
		cJSON_free(text);
		break;
	default:
		return -1;
	}
	return gb_fmt_finish(out);
}
