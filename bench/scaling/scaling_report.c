/* SPDX-License-Identifier: MIT */
/*
 * scaling_report.c - the result of `gpubench scaling`: per N the step
 * metrics, the model's range (report/scaling.h) and the check placing the
 * speedup in it, each phase's extra JSON, and the run's parameters. Reads
 * the measured state of bench/scaling/scaling_internal.h; no CUDA call; never
 * prints, never exits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench/scaling/scaling_internal.h"
#include "report/stats.h"

static const char *const ar_mode_names[] = { "none", "nccl", "local_copy" };

/* ---- reporting ---- */

static const char *per_n(const char *base, int n, char *buf, size_t len)
{
	snprintf(buf, len, "%s_n%d", base, n);
	return buf;
}

/* Metrics of step time, throughput, speedup and efficiency; the median speedup (NAN if none). */
static double add_step_metrics(struct sc *s, const struct phase *ph, double t1, double work,
			       int gpus)
{
	size_t c = ph->n_steps;
	double *ms = calloc(c, sizeof(double)), *sp = calloc(c, sizeof(double));
	double *eff = calloc(c, sizeof(double)), *tf = calloc(c, sizeof(double));
	double median = NAN;
	char nm[64];

	if (!ms || !sp || !eff || !tf)
		goto out;
	for (size_t i = 0; i < c; i++)
		ms[i] = ph->step_s[i] * 1e3;
	gb_bench_add_metric(s->res, per_n("step_ms", ph->n, nm, sizeof(nm)), "ms",
			    GB_BETTER_LOWER, -1, ms, c, NAN);
	if (gb_scaling_speedups(ph->n, t1, work, ph->step_s, c, sp, eff, tf))
		goto out;
	for (size_t i = 0; i < c; i++)
		eff[i] *= 100;
	gb_bench_add_metric(s->res, per_n("throughput_tflops", ph->n, nm, sizeof(nm)),
			    "TFLOP/s", GB_BETTER_HIGHER, -1, tf, c, NAN);
	/* the ideal is one per GPU: N, or fewer when workers share GPUs */
	gb_bench_add_metric(s->res, per_n("speedup", ph->n, nm, sizeof(nm)), "x",
			    GB_BETTER_HIGHER, -1, sp, c, (double)gpus);
	gb_bench_add_metric(s->res, per_n("efficiency", ph->n, nm, sizeof(nm)), "%",
			    GB_BETTER_HIGHER, -1, eff, c, 100);
	median = gb_percentile(sp, c, 50);
out:
	free(tf);
	free(eff);
	free(sp);
	free(ms);
	return median;
}

/* How the all-reduce of a phase is priced; false with a reason when it cannot be. */
static bool phase_link(const struct sc *s, const struct phase *ph, struct gb_ar_link *link,
		       const char **source, char *why, size_t len)
{
	const struct gb_link_model *m;

	memset(link, 0, sizeof(*link));
	*source = "none";
	if (s->p->workload != GB_SCALING_WL_DDP)
		return true;
	if (s->p->link >= 0) {
		m = gb_link_model_by_name(gb_link_model_names[s->p->link]);
		*source = m ? m->label : "?";
		return gb_scaling_nominal_link(m, gb_scaling_nvlinks_among(s->ctx->run, s->dev,
									   (size_t)ph->n),
					       link, why, len) == 0;
	}
	*source = "measured";
	if (ph->fit_ok) {
		*link = ph->link;
		return true;
	}
	snprintf(why, len, "cannot price the all-reduce: the sweep of %zu sizes gave no finite "
		 "bandwidth", ph->n_sweep);
	return false;
}

static void add_model_metrics(struct sc *s, int n, const struct gb_scaling_out *out,
			      const struct gb_ar_link *link)
{
	char nm[64];

	gb_bench_add_value(s->res, per_n("predicted_no_overlap", n, nm, sizeof(nm)), "x",
			   GB_BETTER_HIGHER, -1, out->speedup_no_overlap, n);
	gb_bench_add_value(s->res, per_n("predicted_perfect_overlap", n, nm, sizeof(nm)),
			   "x", GB_BETTER_HIGHER, -1, out->speedup_perfect, n);
	if (s->p->workload != GB_SCALING_WL_DDP)
		return;
	gb_bench_add_value(s->res, per_n("predicted_no_overlap_max", n, nm, sizeof(nm)), "x",
			   GB_BETTER_HIGHER, -1, out->speedup_no_overlap_max, n);
	gb_bench_add_value(s->res, per_n("predicted_allreduce_ms", n, nm, sizeof(nm)), "ms",
			   GB_BETTER_LOWER, -1, out->t_allreduce_s * 1e3, NAN);
	gb_bench_add_value(s->res, per_n("allreduce_alpha_us", n, nm, sizeof(nm)), "us",
			   GB_BETTER_LOWER, -1, link->alpha_s * 1e6, NAN);
	gb_bench_add_value(s->res, per_n("allreduce_busbw_gbps", n, nm, sizeof(nm)), "GB/s",
			   GB_BETTER_HIGHER, -1, link->busbw_bps / 1e9, NAN);
}

static void sweep_json(const struct phase *ph, cJSON *o)
{
	cJSON *arr, *fit;

	if (!ph->n_sweep)
		return;
	arr = cJSON_AddArrayToObject(o, "allreduce_sweep");
	for (size_t i = 0; i < ph->n_sweep; i++) {
		cJSON *pt = cJSON_CreateObject();

		cJSON_AddNumberToObject(pt, "bytes", ph->sweep_bytes[i]);
		cJSON_AddNumberToObject(pt, "time_us", ph->sweep_s[i] * 1e6);
		cJSON_AddItemToArray(arr, pt);
	}
	if (!ph->fit_ok)
		return;
	fit = cJSON_AddObjectToObject(o, "allreduce_fit");
	cJSON_AddNumberToObject(fit, "alpha_us", ph->fit.alpha_s * 1e6);
	cJSON_AddNumberToObject(fit, "algbw_gbps", ph->fit.beta_bps / 1e9);
	cJSON_AddNumberToObject(fit, "r2", ph->fit.r2);
}

/* What a phase's check states and explains a gap with: storage for the words in t. */
struct phase_words {
	char link[96];
	char cause[160];
};

static void phase_facts(const struct sc *s, const struct phase *ph, struct gb_scaling_facts *f,
			struct phase_words *t)
{
	const struct gb_run *run = s->ctx->run;
	const struct gb_link_model *m =
		s->p->link >= 0 ? gb_link_model_by_name(gb_link_model_names[s->p->link]) : NULL;
	size_t n = (size_t)ph->n;
	int links;

	gb_scaling_facts_init(f);
	f->overlap = s->plan.overlap;
	f->p2p_access = gb_scaling_p2p_among(run, s->dev, n);
	f->transport = gb_scaling_transport(run, s->dev, n, t->cause, sizeof(t->cause));
	f->transport_cause = t->cause[0] ? t->cause : NULL;
	f->link_measured = s->p->link < 0;
	/* a measured price already went through whatever path the GPUs have */
	f->link_host_staged = f->link_measured || (m && !m->p2p);
	if (m) {
		/* the nominal link as given, with the NVLink count it was priced at */
		links = gb_scaling_nvlinks_among(run, s->dev, n);
		if (m->nvlink_gen > 0 && links > 0)
			snprintf(t->link, sizeof(t->link), "%s × %d", m->label, links);
		else
			snprintf(t->link, sizeof(t->link), "%s", m->label);
		f->link = t->link;
	} else if (f->link_measured) {
		f->link = gb_scaling_link_label(run, s->dev, n,
						f->transport && strcmp(f->transport, "P2P"),
						t->link, sizeof(t->link));
	}
}

/* ddp below its range: the GPU whose compute part is slowest, if one is, after the why */
static void name_compute_straggler(const struct sc *s, const struct phase *ph,
				   struct gb_scaling_judgement *j)
{
	char who[256];
	size_t used = strlen(j->message);

	if (gb_scaling_compute_straggler(s->dev, ph->worker_compute_s, (size_t)ph->n, who,
					 sizeof(who)) &&
	    used < sizeof(j->message))
		snprintf(j->message + used, sizeof(j->message) - used, "; %s", who);
}

/* N >= 2 distinct GPUs: the model's range, and a check placing the measured speedup in it. */
static void judge_phase(struct sc *s, const struct phase *ph, double t1, double measured,
			cJSON *o, struct gb_series *ser_lo, struct gb_series *ser_hi)
{
	struct gb_scaling_in in;
	struct gb_scaling_out out;
	struct gb_scaling_facts facts;
	struct gb_scaling_spread spread;
	struct gb_scaling_judgement j;
	struct gb_ar_link link;
	struct phase_words words;
	const char *source;
	char why[256], nm[64];
	bool compute_only = s->p->workload != GB_SCALING_WL_DDP;
	double lo, hi;
	cJSON *pred, *tr;

	per_n("scaling", ph->n, nm, sizeof(nm));
	if (!phase_link(s, ph, &link, &source, why, sizeof(why))) {
		gb_bench_add_check(s->res, nm, GB_STATUS_SKIPPED, GB_SEV_INFO, -1, measured, NAN, "%s",
				   why);
		return;
	}
	gb_scaling_model_in(ph->n, t1, &s->plan, gb_scaling_bucket_bytes(s->p), &link, &in);
	if (gb_scaling_predict(&in, &out)) {
		gb_bench_add_check(s->res, nm, GB_STATUS_SKIPPED, GB_SEV_INFO, -1, measured, NAN,
				   "the model cannot price this step (inputs out of range)");
		return;
	}
	add_model_metrics(s, ph->n, &out, &link);
	gb_series_push(ser_lo, ph->n, out.speedup_no_overlap);
	gb_series_push(ser_hi, ph->n, out.speedup_perfect);
	phase_facts(s, ph, &facts, &words);
	gb_scaling_spread_init(&spread);
	if (compute_only) {
		gb_scaling_spread_alone(&spread, s->solo_dev, s->solo_s, s->n_solo);
		gb_scaling_spread_together(&spread, s->dev, ph->worker_s, (size_t)ph->n);
	}
	gb_scaling_judge(&in, &out, measured, &facts, &spread, compute_only, &j);
	if (!compute_only && j.place == GB_PLACE_BELOW)
		name_compute_straggler(s, ph, &j);
	/* the threshold is the bottom of the accepted range */
	gb_bench_add_check(s->res, nm, j.status, j.severity, -1, measured,
			   compute_only ? GB_SCALING_COMPUTE_EFF_MIN * ph->n
					: out.speedup_no_overlap,
			   "%s", j.message);
	gb_scaling_expected(&out, &facts, &lo, &hi);
	if (compute_only) {
		lo = GB_SCALING_COMPUTE_EFF_MIN * ph->n;
		hi = ph->n;
	}
	pred = cJSON_AddObjectToObject(o, "predicted");
	cJSON_AddNumberToObject(pred, "no_overlap", out.speedup_no_overlap);
	cJSON_AddNumberToObject(pred, "no_overlap_max", out.speedup_no_overlap_max);
	cJSON_AddNumberToObject(pred, "perfect_overlap", out.speedup_perfect);
	cJSON_AddBoolToObject(pred, "overlap", facts.overlap);
	cJSON_AddNumberToObject(pred, "expected_low", lo);
	cJSON_AddNumberToObject(pred, "expected_high", hi);
	cJSON_AddNumberToObject(pred, "allreduce_ms", out.t_allreduce_s * 1e3);
	cJSON_AddNumberToObject(pred, "last_bucket_ms", out.t_last_bucket_s * 1e3);
	cJSON_AddNumberToObject(pred, "delta", in.delta);
	cJSON_AddStringToObject(pred, "link", source);
	if (facts.link)
		cJSON_AddStringToObject(pred, "link_label", facts.link);
	if (!compute_only) {
		tr = cJSON_AddObjectToObject(o, "transport");
		if (facts.transport)
			cJSON_AddStringToObject(tr, "likely", facts.transport);
		else
			cJSON_AddNullToObject(tr, "likely");
		if (facts.transport_cause)
			cJSON_AddStringToObject(tr, "cause", facts.transport_cause);
		cJSON_AddStringToObject(tr, "source", "the run's NCCL_* environment and topology");
	}
	cJSON_AddNumberToObject(pred, "alpha_us", link.alpha_s * 1e6);
	cJSON_AddNumberToObject(pred, "busbw_gbps", link.busbw_bps / 1e9);
	cJSON_AddStringToObject(o, "place", gb_scaling_place_name(j.place));
	cJSON_AddStringToObject(o, "explanation", j.message);
}

static cJSON *phase_json(const struct sc *s, const struct phase *ph, int gpus)
{
	cJSON *o = cJSON_CreateObject(), *devs = cJSON_AddArrayToObject(o, "devices"), *ws;

	cJSON_AddNumberToObject(o, "workers", ph->n);
	for (int i = 0; i < ph->n; i++)
		cJSON_AddItemToArray(devs, cJSON_CreateNumber(s->dev[i]));
	/* each worker's own median: the step time is the slowest's, this says whose */
	ws = cJSON_AddArrayToObject(o, "per_worker");
	for (int i = 0; i < ph->n; i++) {
		cJSON *w = cJSON_CreateObject();

		cJSON_AddNumberToObject(w, "device", s->dev[i]);
		if (isfinite(ph->worker_s[i]))
			cJSON_AddNumberToObject(w, "step_ms_median", ph->worker_s[i] * 1e3);
		else
			cJSON_AddNullToObject(w, "step_ms_median");
		if (isfinite(ph->worker_compute_s[i]))
			cJSON_AddNumberToObject(w, "compute_ms_median",
						ph->worker_compute_s[i] * 1e3);
		else
			cJSON_AddNullToObject(w, "compute_ms_median");
		cJSON_AddItemToArray(ws, w);
	}
	cJSON_AddNumberToObject(o, "gpus", gpus);
	cJSON_AddBoolToObject(o, "contention", gpus < ph->n);
	cJSON_AddStringToObject(o, "allreduce", ar_mode_names[ph->mode]);
	cJSON_AddNumberToObject(o, "steps", (double)ph->n_steps);
	if (ph->n_steps)
		cJSON_AddNumberToObject(o, "step_ms_median",
					gb_percentile(ph->step_s, ph->n_steps, 50) * 1e3);
	sweep_json(ph, o);
	return o;
}

/*
 * Each worker's median compute per step, as a metric of its GPU: a slow GPU
 * lowers speedup_nN, a metric of all of them, and this says which one it is
 * (compare names the GPU). Only where every worker has a GPU of its own.
 */
static void add_worker_metrics(struct sc *s, const struct phase *ph, int gpus)
{
	char nm[64];

	if (gpus < ph->n)
		return;
	for (int i = 0; i < ph->n; i++)
		gb_bench_add_value(s->res, per_n("worker_compute_ms", ph->n, nm, sizeof(nm)), "ms",
				   GB_BETTER_LOWER, s->dev[i], ph->worker_compute_s[i] * 1e3, NAN)
			->description = gb_strdup("median compute part of this worker's step");
}

static void report_phase(struct sc *s, const struct phase *ph, double t1, double work,
			 struct gb_series *ser[3], cJSON *phases)
{
	int gpus = (int)gb_scaling_distinct(s->dev, (size_t)ph->n);
	double measured = add_step_metrics(s, ph, t1, work, gpus);
	cJSON *o = phase_json(s, ph, gpus);
	struct gb_scaling_judgement j;
	char devs[256], nm[64];

	add_worker_metrics(s, ph, gpus);
	cJSON_AddItemToArray(phases, o);
	if (isnan(measured))
		return;
	cJSON_AddNumberToObject(o, "speedup_median", measured);
	cJSON_AddNumberToObject(o, "efficiency_median", measured / ph->n);
	gb_series_push(ser[0], ph->n, measured);
	if (ph->n < 2)
		return;
	if (gpus < ph->n) {
		gb_scaling_devices_str(s->dev, (size_t)ph->n, devs, sizeof(devs));
		gb_scaling_judge_contention(ph->n, gpus, devs, measured, ph->mode == AR_COPY,
					    s->ph[0].mode == AR_COPY, &j);
		gb_bench_add_check(s->res, per_n("contention", ph->n, nm, sizeof(nm)),
				   j.status, j.severity, -1, measured, NAN, "%s", j.message);
		cJSON_AddStringToObject(o, "explanation", j.message);
		return;
	}
	judge_phase(s, ph, t1, measured, o, ser[1], ser[2]);
}

/* gemm: every distinct GPU's median step alone. */
static void report_solos(struct sc *s)
{
	cJSON *arr;

	if (!s->n_solo)
		return;
	arr = cJSON_AddArrayToObject(gb_bench_extra(s->res), "alone");
	for (size_t i = 0; i < s->n_solo; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "device", s->solo_dev[i]);
		if (isfinite(s->solo_s[i]))
			cJSON_AddNumberToObject(o, "step_ms_median", s->solo_s[i] * 1e3);
		else
			cJSON_AddNullToObject(o, "step_ms_median");
		cJSON_AddItemToArray(arr, o);
	}
}

void sc_report(struct sc *s)
{
	const struct phase *one = &s->ph[0];
	double work = (double)s->plan.gemms * gb_scaling_gemm_flop(s->n), t1;
	struct gb_series *ser[3];
	cJSON *phases;

	if (!s->n_phases || !one->n_steps)
		return;
	t1 = gb_percentile(one->step_s, one->n_steps, 50);
	ser[0] = gb_bench_add_series(s->res, "speedup", "workers", "x", -1);
	ser[1] = gb_bench_add_series(s->res, "predicted_no_overlap", "workers", "x", -1);
	ser[2] = gb_bench_add_series(s->res, "predicted_perfect_overlap", "workers", "x", -1);
	phases = cJSON_AddArrayToObject(gb_bench_extra(s->res), "phases");
	for (size_t i = 0; i < s->n_phases; i++)
		if (s->ph[i].n_steps)
			report_phase(s, &s->ph[i], t1, work, ser, phases);
	report_solos(s);
}

/* ---- parameters ---- */

void sc_record_params(const struct sc *s)
{
	const struct gb_scaling_params *p = s->p;
	struct gb_bench_result *res = s->res;
	char devs[256];

	gb_bench_param_str(res, "workload", gb_scaling_workload_names[p->workload]);
	gb_scaling_devices_str(s->dev, s->n_workers, devs, sizeof(devs));
	gb_bench_param_str(res, "workers", devs);
	gb_bench_param_bool(res, "contention", s->any_repeat);
	gb_bench_param_num(res, "steps", (double)p->steps);
	gb_bench_param_num(res, "warmup_steps", (double)p->warmup_steps);
	gb_bench_param_str(res, "step_source", gb_scaling_step_by_work(p) ? "step_tflop" : "step_ms");
	if (gb_scaling_step_by_work(p))
		gb_bench_param_num(res, "step_tflop", p->step_tflop);
	else
		gb_bench_param_num(res, "step_ms", gb_scaling_target_step_ms(p));
	gb_bench_param_str(res, "precision", s->bf16 ? "bf16" : "fp32");
	if (s->note[0])
		gb_bench_param_str(res, "precision_note", s->note);
	gb_bench_param_num(res, "gemm_size", (double)s->n);
	/* gemm times every distinct GPU alone before they run together (extra.alone) */
	gb_bench_param_bool(res, "each_gpu_alone", p->workload == GB_SCALING_WL_GEMM);
	if (p->workload == GB_SCALING_WL_DDP) {
		gb_bench_param_num(res, "grad_bytes", (double)s->plan.grad_bytes);
		gb_bench_param_num(res, "bucket_bytes", (double)gb_scaling_bucket_bytes(p));
		gb_bench_param_num(res, "n_buckets", s->plan.n_buckets);
		gb_bench_param_bool(res, "overlap", p->overlap);
		gb_bench_param_str(res, "link", p->link >= 0 ? gb_link_model_names[p->link]
							    : "measured");
		gb_bench_param_str(res, "allreduce", "fp32 sum, in place, one call per bucket");
		gb_bench_param_num(res, "delta", GB_SCALING_DELTA_DEFAULT);
	}
	gb_bench_param_str(res, "timing",
			   "CUDA events around each step on every worker; the step time is the "
			   "slowest worker's; workers start each step together (a barrier)");
}

/*
 * What calibration measured, in extra.sizing: not params, which are what
 * the user configured and the key compare matches runs by (a GEMM count of
 * 808 against 807 would make every metric of the two runs a different test).
 */
void sc_record_sizing(const struct sc *s)
{
	cJSON *o = cJSON_AddObjectToObject(gb_bench_extra(s->res), "sizing");

	cJSON_AddNumberToObject(o, "gemm_ms", s->t_gemm_s * 1e3);
	cJSON_AddNumberToObject(o, "gemms_per_step", (double)s->plan.gemms);
	cJSON_AddNumberToObject(o, "work_tflop_per_step",
				(double)s->plan.gemms * gb_scaling_gemm_flop(s->n) / 1e12);
}
