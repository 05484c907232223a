/* SPDX-License-Identifier: MIT */
/*
 * compare.c - two reports side by side (see compare.h for the rules): the
 * matching of rows, the regression gate that tells a real change from
 * noise, the cross-model view (efficiency, per watt, per dollar) and the
 * findings that make B incomplete. The match key is in compare_key.c, the
 * tolerances in compare_tolerance.c, the words in compare_words.c, the
 * document in every format in compare_print.c (which this file never calls).
 */
#include "compare.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/compare_internal.h"
#include "json_util.h"
#include "report/format_util.h"
#include "metric_directions.h"
#include "thresholds.h"

void gb_compare_opts_init(struct gb_compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->tolerance = 0.05;
	o->spread_k = 2;
	o->price_a = o->price_b = NAN;
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

