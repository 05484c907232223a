/* SPDX-License-Identifier: MIT */
/*
 * gemm_search.c - gemm --search: one precision over a grid of shapes,
 * each with the heuristic's first pick, then the best shapes re-run with
 * every candidate timed, reported as the best shape, the geometric mean
 * and one verification check. Uses gemm_job.c and gemm_report.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm/gemm_internal.h"

/* ---- --search: one precision over a grid of shapes ---- */

struct search_acc {
	size_t done, verified, failed;
	size_t best;                   /* index into shapes, SIZE_MAX if none */
	double *best_samples;          /* owned: the best shape's samples */
	size_t best_n;
	double *medians;               /* per finished shape */
	char first_fail[512];
	double worst_ratio;            /* largest max_err / bound among verified runs */
	/* the re-runs of the best shapes with every candidate timed */
	size_t tuned_done, tuned_verified;
	size_t tuned_best;             /* index into shapes, SIZE_MAX if none */
	double tuned_median;
	double *tuned_samples;         /* owned: the best re-run's samples */
	size_t tuned_n;
	char tuned_algo[160];          /* algo_str() of the best re-run */
};

/* a run's verification outcome into the one verify_<p>_search check */
static void search_take_verify(struct search_acc *a, const struct gemm_job *j)
{
	if (!j->ver.done)
		return;
	a->verified++;
	if (j->ver.bound > 0)
		a->worst_ratio = fmax(a->worst_ratio, j->ver.max_err / j->ver.bound);
	if (j->ver.status != GB_STATUS_PASSED) {
		a->failed++;
		if (!a->first_fail[0])
			snprintf(a->first_fail, sizeof(a->first_fail), "%s", j->ver.msg);
	}
}

static void search_take(struct search_acc *a, struct gemm_job *j, size_t i, double median,
			const double *medians_by_shape)
{
	a->medians[a->done++] = median;
	if (a->best == SIZE_MAX || median > medians_by_shape[a->best]) {
		a->best = i;
		free(a->best_samples);
		a->best_samples = j->tflops;   /* ownership moves here */
		a->best_n = j->n_tflops;
		j->tflops = NULL;
	}
	search_take_verify(a, j);
}

static void search_take_tuned(struct search_acc *a, struct gemm_job *j, size_t i, double median,
			      const char *algo)
{
	a->tuned_done++;
	if (a->tuned_best == SIZE_MAX || median > a->tuned_median) {
		a->tuned_best = i;
		a->tuned_median = median;
		free(a->tuned_samples);
		a->tuned_samples = j->tflops;  /* ownership moves here */
		a->tuned_n = j->n_tflops;
		j->tflops = NULL;
		snprintf(a->tuned_algo, sizeof(a->tuned_algo), "%s", algo);
	}
	if (j->ver.done)
		a->tuned_verified++;
	search_take_verify(a, j);
}

static double geomean(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += log(v[i]);
	return n ? exp(s / (double)n) : NAN;
}

/* "best_m" (or "best_m_gpu1" with several GPUs) = the shape's m, and n, k */
static void best_params(struct gb_bench_result *res, const char *prefix, int dev,
			bool several_devices, const struct gb_gemm_shape *s)
{
	const uint64_t dims[3] = { s->m, s->n, s->k };
	static const char *const names[3] = { "m", "n", "k" };
	char key[64];

	for (int i = 0; i < 3; i++) {
		if (several_devices)
			snprintf(key, sizeof(key), "%s_%s_gpu%d", prefix, names[i], dev);
		else
			snprintf(key, sizeof(key), "%s_%s", prefix, names[i]);
		gb_bench_param_num(res, key, (double)dims[i]);
	}
}

/*
 * search_tuned_tflops_<p>: the best of the re-runs with every candidate
 * timed, beside the sweep's first-pick search_best_tflops_<p>.
 */
static void search_report_tuned(struct gb_bench_result *res, const struct gemm_dev *g,
				enum gb_precision prec, const struct gb_gemm_shape *shapes,
				const struct search_acc *a, bool several_devices)
{
	const struct gb_device_info *d = g->info;
	enum gb_precision pp = gb_gemm_peak_precision(prec, d->cc_major, d->cc_minor);
	char name[160], shape[80];
	struct gb_metric *m;

	if (!a->tuned_done)
		return;
	shape_str(shape, sizeof(shape), &shapes[a->tuned_best]);
	snprintf(name, sizeof(name), "search_tuned_tflops_%s", gb_precision_name(prec));
	m = gb_bench_add_metric(res, name, gb_gemm_rate_unit(prec), GB_BETTER_HIGHER, g->dev,
				a->tuned_samples, a->tuned_n, judged_peak(d, pp));
	m->description = gb_strdupf("best of the sweep's top %zu shapes, each re-run with the "
				    "fastest of up to %d cuBLASLt candidates: %s%s",
				    a->tuned_done, GEMM_CANDIDATES, shape, a->tuned_algo);
	best_params(res, "best_tuned", g->dev, several_devices, &shapes[a->tuned_best]);
}

static void search_report(const struct gemm_params *p, struct gb_bench_result *res,
			  const struct gemm_dev *g, enum gb_precision prec,
			  const struct gb_gemm_shape *shapes, const struct search_acc *a,
			  bool several_devices)
{
	const struct gb_device_info *d = g->info;
	enum gb_precision pp = gb_gemm_peak_precision(prec, d->cc_major, d->cc_minor);
	const char *pn = gb_precision_name(prec), *unit = gb_gemm_rate_unit(prec);
	char name[160], shape[80];
	struct gb_metric *m;
	double *sorted;

	if (!a->done)
		return;
	shape_str(shape, sizeof(shape), &shapes[a->best]);
	snprintf(name, sizeof(name), "search_best_tflops_%s", pn);
	m = gb_bench_add_metric(res, name, unit, GB_BETTER_HIGHER, g->dev, a->best_samples,
				a->best_n, judged_peak(d, pp));
	m->description = gb_strdupf("best of %zu shapes: %s (cuBLASLt heuristic's first algorithm)",
				    a->done, shape);
	sorted = malloc(sizeof(double) * a->done);
	if (sorted) {
		memcpy(sorted, a->medians, sizeof(double) * a->done);
		snprintf(name, sizeof(name), "search_median_tflops_%s", pn);
		gb_bench_add_value(res, name, unit, GB_BETTER_HIGHER, g->dev,
				   gb_percentile(sorted, a->done, 50), NAN);
		free(sorted);
	}
	snprintf(name, sizeof(name), "search_geomean_tflops_%s", pn);
	gb_bench_add_value(res, name, unit, GB_BETTER_HIGHER, g->dev, geomean(a->medians, a->done),
			   NAN);
	best_params(res, "best", g->dev, several_devices, &shapes[a->best]);
	search_report_tuned(res, g, prec, shapes, a, several_devices);
	snprintf(name, sizeof(name), "verify_%s_search", pn);
	if (!p->verify)
		gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, g->dev, NAN, NAN,
				   "verification disabled by --no-verify");
	else if (a->failed)
		gb_bench_add_check(res, name, GB_STATUS_FAILED, GB_SEV_ERROR, g->dev,
				   (double)a->failed, 0,
				   "%zu of %zu runs (shapes and tuned re-runs) failed "
				   "verification; first: %s", a->failed, a->verified,
				   a->first_fail);
	else if (a->verified)
		gb_bench_add_check(res, name, GB_STATUS_PASSED, GB_SEV_INFO, g->dev,
				   a->worst_ratio, 1,
				   "%zu shapes and %zu tuned re-runs match the FP64 reference; "
				   "worst error %.2f of its bound", a->verified - a->tuned_verified,
				   a->tuned_verified, a->worst_ratio);
}

/*
 * Re-run the sweep's best GB_GEMM_SEARCH_TUNE_SHAPES shapes as a normal run
 * measures one: a warm-up, every candidate of the heuristic timed, the
 * fastest kept. The sweep takes the heuristic's first pick per shape, as
 * mamf-finder does, and can sit a few percent below what cuBLASLt reaches on
 * its best shape; both numbers are reported. Returns -1 when the device is
 * lost.
 */
static int search_tune(struct gb_ctx *ctx, const struct gemm_params *p,
		       struct gb_bench_result *res, struct gemm_state *st, struct gemm_dev *g,
		       enum gb_precision prec, const struct gb_gemm_shape *shapes,
		       const double *by_shape, size_t n_shapes, struct search_acc *acc)
{
	struct job_mode mode = {
		.max_candidates = GEMM_CANDIDATES,
		.warmup_s = p->warmup_s,
		.duration_s = p->duration_s > 0 ? p->duration_s : GEMM_DEFAULT_DURATION_S,
		.repeat = 1,
	};
	size_t top[GB_GEMM_SEARCH_TUNE_SHAPES];
	size_t n_top = gb_gemm_top_k(by_shape, n_shapes, GB_GEMM_SEARCH_TUNE_SHAPES, top);
	const char *pn = gb_precision_name(prec);
	cJSON *tuned = cJSON_GetObjectItemCaseSensitive(gb_bench_extra(res), "search_tuned");
	int lost = 0;

	if (!tuned)
		tuned = cJSON_AddArrayToObject(gb_bench_extra(res), "search_tuned");
	if (n_top)
		gb_progress(ctx, "gemm: GPU %d search %s: re-running the best %zu shapes with "
			    "up to %d candidates each", g->dev, pn, n_top, GEMM_CANDIDATES);
	for (size_t t = 0; t < n_top && !lost && !gb_should_stop(ctx); t++) {
		struct gemm_job j;
		enum gb_status before = res->status;
		char *before_reason = gb_strdup(res->reason);
		char shape[80], algo[160];
		double med;
		cJSON *o;

		memset(&j, 0, sizeof(j));
		j.prec = prec;
		j.s = shapes[top[t]];
		j.best = -1;
		shape_str(shape, sizeof(shape), &j.s);
		if (run_job(ctx, p, res, st, g, &j, &mode)) {
			job_failed(res, before, before_reason, g, &j);
			lost = device_lost(res, g) ? -1 : 0;
		} else {
			free(before_reason);
		}
		if (j.measured) {
			med = gb_percentile(j.tflops, j.n_tflops, 50);
			algo_str(algo, sizeof(algo), st->lt, &j);
			o = job_json(st->lt, g, &j);
			cJSON_AddNumberToObject(o, "tflops", med);
			cJSON_AddNumberToObject(o, "first_pick_tflops", by_shape[top[t]]);
			cJSON_AddItemToArray(tuned, o);
			gb_progress(ctx, "gemm: GPU %d search %s tuned %s: %.1f %s (first pick "
				    "%.1f)%s%s%s", g->dev, pn, shape, med, gb_gemm_rate_unit(prec),
				    by_shape[top[t]], algo, j.ver.done ? ", verification " : "",
				    j.ver.done ? gb_status_name(j.ver.status) : "");
			search_take_tuned(acc, &j, top[t], med, algo);
		}
		job_release(&j);
	}
	return lost;
}

/* returns -1 when the device is lost */
int run_search(struct gb_ctx *ctx, const struct gemm_params *p, struct gb_bench_result *res,
	       struct gemm_state *st, struct gemm_dev *g, enum gb_precision prec,
	       const struct gb_gemm_shape *shapes, size_t n_shapes, bool several_devices)
{
	struct job_mode mode = {
		.max_candidates = 1,  /* MAMF's practice: the library's default pick per shape */
		.warmup_s = p->warmup_s,
		.duration_s = p->duration_s > 0 ? p->duration_s : GEMM_SEARCH_DURATION_S,
		.repeat = 1,
	};
	struct search_acc acc = { .best = SIZE_MAX, .tuned_best = SIZE_MAX };
	double *by_shape = calloc(n_shapes, sizeof(double));
	char sname[160], shape[80], err[256];
	struct gb_series *series;
	cJSON *grid;
	int lost = 0;

	acc.medians = calloc(n_shapes, sizeof(double));
	if (!by_shape || !acc.medians) {
		free(by_shape);
		free(acc.medians);
		return 0;
	}
	snprintf(sname, sizeof(sname), "search_tflops_%s", gb_precision_name(prec));
	series = gb_bench_add_series(res, sname, "shape", gb_gemm_rate_unit(prec), g->dev);
	grid = cJSON_GetObjectItemCaseSensitive(gb_bench_extra(res), "search");
	if (!grid)
		grid = cJSON_AddArrayToObject(gb_bench_extra(res), "search");
	for (size_t i = 0; i < n_shapes && !gb_should_stop(ctx) && !lost; i++) {
		struct gemm_job j;
		enum gb_status before = res->status;
		char *before_reason;
		cJSON *o;

		shape_str(shape, sizeof(shape), &shapes[i]);
		if (gb_gemm_check_shape(prec, shapes[i].m, shapes[i].n, shapes[i].k, err,
					sizeof(err))) {
			char sfx[96];

			snprintf(sfx, sizeof(sfx), "_%s", shape);
			note_skip(st, res, g->dev, prec, sfx, err);
			continue;
		}
		gb_progress(ctx, "gemm: GPU %d search %s shape %zu of %zu: %s", g->dev,
			    gb_precision_name(prec), i + 1, n_shapes, shape);
		memset(&j, 0, sizeof(j));
		j.prec = prec;
		j.s = shapes[i];
		j.best = -1;
		before_reason = gb_strdup(res->reason);
		if (run_job(ctx, p, res, st, g, &j, &mode)) {
			job_failed(res, before, before_reason, g, &j);
			lost = device_lost(res, g) ? -1 : 0;
		} else {
			free(before_reason);
		}
		/* the GPU is warm after the first shape: later ones only settle */
		mode.warmup_s = fmin(p->warmup_s, GEMM_SEARCH_WARMUP_S);
		if (j.measured) {
			by_shape[i] = gb_percentile(j.tflops, j.n_tflops, 50);
			gb_series_push(series, (double)i, by_shape[i]);
			o = job_json(st->lt, g, &j);
			cJSON_AddNumberToObject(o, "tflops", by_shape[i]);
			cJSON_AddItemToArray(grid, o);
			search_take(&acc, &j, i, by_shape[i], by_shape);
		}
		job_release(&j);
	}
	if (acc.done && !lost && !gb_should_stop(ctx))
		lost = search_tune(ctx, p, res, st, g, prec, shapes, by_shape, n_shapes, &acc);
	if (acc.done) {
		search_report(p, res, g, prec, shapes, &acc, several_devices);
		st->ran++;
	}
	free(acc.tuned_samples);
	free(acc.best_samples);
	free(acc.medians);
	free(by_shape);
	return lost;
}

