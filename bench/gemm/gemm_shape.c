/* SPDX-License-Identifier: MIT */
/*
 * gemm_shape.c - gemm's normal mode: one precision and shape on one
 * device, cuBLASLt first (the yardstick), then each own kernel --impl
 * asked for on the same buffers, and the SKIPPED checks of those that do
 * not apply. Uses gemm_job.c to run and gemm_report.c to report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gemm/gemm_internal.h"

/* ---- normal mode: every precision x shape ---- */

void note_skip(struct gemm_state *st, struct gb_bench_result *res, int dev,
	       enum gb_precision prec, const char *suffix, const char *reason)
{
	char name[160];

	snprintf(name, sizeof(name), "precision_%s%s", gb_precision_name(prec), suffix);
	gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, dev, NAN, NAN, "%s", reason);
	if (!st->skipped[0])
		snprintf(st->skipped, sizeof(st->skipped), "%s", reason);
}

void note_impl_skip(struct gemm_state *st, struct gb_bench_result *res, int dev,
		    enum gemm_impl impl, enum gb_precision prec, const char *suffix,
		    const char *reason)
{
	char name[160];

	snprintf(name, sizeof(name), "impl_%s_%s%s", impl_names[impl], gb_precision_name(prec),
		 suffix);
	gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, dev, NAN, NAN, "%s", reason);
	if (!st->skipped[0])
		snprintf(st->skipped, sizeof(st->skipped), "%s", reason);
}

/* an own kernel's job on the buffers of the cuBLASLt job `base` (which keeps owning them) */
static void own_job_from(struct gemm_job *o, const struct gemm_job *base, enum gemm_impl impl,
			 const struct gemm_dev *g)
{
	memset(o, 0, sizeof(*o));
	o->impl = impl;
	o->prec = base->prec;
	o->s = base->s;
	o->t_ab = base->t_ab;
	o->t_d = base->t_d;
	o->flops = base->flops;
	o->copies = base->copies;
	o->copies_wanted = base->copies_wanted;
	o->a_bytes = base->a_bytes;
	o->b_bytes = base->b_bytes;
	o->d_bytes = base->d_bytes;
	o->a_stride = base->a_stride;
	o->b_stride = base->b_stride;
	o->a = base->a;
	o->b = base->b;
	o->d = base->d;
	o->best = 0;
	/* for the report only: the launcher computes the same plan itself */
	if (gb_own_gemm_plan(own_kind(impl), o->s.m, o->s.n, o->s.k, &g->own, &o->plan))
		memset(&o->plan, 0, sizeof(o->plan));
}

/* one own kernel, timed and verified like cuBLASLt; returns -1 when the device is lost */
static int run_own(struct gb_ctx *ctx, const struct gemm_params *p, struct gb_bench_result *res,
		   struct gemm_state *st, struct gemm_dev *g, const struct gemm_job *base,
		   enum gemm_impl impl, bool several, const struct job_mode *mode)
{
	struct gemm_job o;
	enum gb_status before = res->status;
	char *before_reason = gb_strdup(res->reason);
	char shape[80], name[160];
	int lost = 0;

	own_job_from(&o, base, impl, g);
	shape_str(shape, sizeof(shape), &o.s);
	if (run_phases(ctx, p, res, st, g, &o, mode)) {
		snprintf(name, sizeof(name), "run_%s_%s_%s", gb_precision_name(o.prec),
			 impl_names[impl], shape);
		record_error(res, before, before_reason, g->dev, name);
		before_reason = NULL;
		lost = device_lost(res, g) ? -1 : 0;
	}
	if (o.measured) {
		double med = gb_percentile(o.tflops, o.n_tflops, 50);
		char pct[48] = "", spread[64];

		if (base->measured)
			snprintf(pct, sizeof(pct), ", %.0f%% of cuBLASLt",
				 100 * med / gb_percentile(base->tflops, base->n_tflops, 50));
		report_job(res, g, &o, several, base, "");
		report_repeat(res, g, &o, several);
		report_verify(p, res, g, &o, several);
		cJSON_AddItemToArray(st->runs, job_json(st->lt, g, &o));
		st->ran++;
		repeat_str(spread, sizeof(spread), &o);
		gb_progress(ctx, "gemm: GPU %d %s %s %s: %.1f %s (median of %zu%s)%s%s%s", g->dev,
			    gb_precision_name(o.prec), impl_names[impl], shape, med,
			    gb_gemm_rate_unit(o.prec), o.n_tflops, pct, spread,
			    o.ver.done ? ", verification " : "",
			    o.ver.done ? gb_status_name(o.ver.status) : "");
	}
	job_release(&o);
	free(before_reason);
	return lost;
}

/*
 * The own kernels in `impls` (those that apply to the precision and the
 * device) on the cuBLASLt job's buffers, after it. A shape a kernel cannot
 * compute is a SKIPPED check; with no buffers (set-up failed, and said so)
 * nothing runs. Returns -1 when the device is lost.
 */
static int run_own_impls(struct gb_ctx *ctx, const struct gemm_params *p,
			 struct gb_bench_result *res, struct gemm_state *st, struct gemm_dev *g,
			 const struct gemm_job *base, bool ready, uint32_t impls, bool several,
			 const struct job_mode *mode)
{
	const struct gb_gemm_shape *s = &base->s;
	char err[256], sfx[64];

	for (int i = GEMM_IMPL_TILED; i < GEMM_N_IMPLS && !gb_should_stop(ctx); i++) {
		if (!(impls & (1u << i)))
			continue;
		if (gb_own_gemm_check_shape(own_kind(i), s->m, s->n, s->k, err, sizeof(err))) {
			name_suffix(sfx, sizeof(sfx), base, several);
			note_impl_skip(st, res, g->dev, i, base->prec, sfx, err);
			continue;
		}
		if (ready && run_own(ctx, p, res, st, g, base, i, several, mode))
			return -1;
	}
	return 0;
}

/*
 * cuBLASLt at one precision and shape, then the own kernels of own_impls
 * on the same inputs. Returns -1 when the device is lost.
 */
int run_shape(struct gb_ctx *ctx, const struct gemm_params *p, struct gb_bench_result *res,
	      struct gemm_state *st, struct gemm_dev *g, enum gb_precision prec,
	      const struct gb_gemm_shape *s, bool several, uint32_t own_impls)
{
	struct job_mode mode = {
		.max_candidates = GEMM_CANDIDATES,
		.warmup_s = p->warmup_s,
		.duration_s = p->duration_s > 0 ? p->duration_s : GEMM_DEFAULT_DURATION_S,
		.repeat = p->repeat,
	};
	struct gemm_job j;
	enum gb_status before = res->status;
	char *before_reason = gb_strdup(res->reason);
	char shape[80], algo[160], spread[64];
	bool ready;
	int rc, lost = 0;

	memset(&j, 0, sizeof(j));
	j.impl = GEMM_IMPL_CUBLASLT;
	j.prec = prec;
	j.s = *s;
	j.best = -1;
	shape_str(shape, sizeof(shape), s);
	rc = job_setup(p, res, st->lt, g, &j);
	ready = rc == 0;
	if (!rc)
		rc = run_phases(ctx, p, res, st, g, &j, &mode);
	if (rc) {
		job_failed(res, before, before_reason, g, &j);
		before_reason = NULL;
		lost = device_lost(res, g) ? -1 : 0;
	}
	if (j.measured) {
		algo_str(algo, sizeof(algo), st->lt, &j);
		report_job(res, g, &j, several, NULL, algo);
		report_repeat(res, g, &j, several);
		report_verify(p, res, g, &j, several);
		cJSON_AddItemToArray(st->runs, job_json(st->lt, g, &j));
		st->ran++;
		repeat_str(spread, sizeof(spread), &j);
		gb_progress(ctx, "gemm: GPU %d %s %s: %.1f %s (median of %zu)%s%s%s%s", g->dev,
			    gb_precision_name(prec), shape, gb_percentile(j.tflops, j.n_tflops, 50),
			    gb_gemm_rate_unit(prec), j.n_tflops, algo, spread,
			    j.ver.done ? ", verification " : "",
			    j.ver.done ? gb_status_name(j.ver.status) : "");
	}
	if (!lost && own_impls)
		lost = run_own_impls(ctx, p, res, st, g, &j, ready, own_impls, several, &mode);
	job_teardown(&j);
	job_release(&j);
	free(before_reason);
	return lost;
}

