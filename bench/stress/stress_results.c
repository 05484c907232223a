/* SPDX-License-Identifier: MIT */
/*
 * stress_results.c - `gpubench stress`'s results once the workers are
 * done: each worker's counters and the monitor's telemetry joined into the
 * observations the verdict reads, the cross-GPU digest vote, the peers'
 * throughput, the injected fault's check, the verdict's metrics and checks
 * (stress_verdict_math.c), and the per-GPU JSON (algorithms, phases, first
 * corrupt elements). May use the workers' and the monitor's state and
 * stress_math.h; no CUDA call.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/device/deadline_math.h"
#include "bench/device/cublaslt_dl.h"
#include "bench/device/gpu.h"
#include "bench/device/lt_matmul.h"
#include "bench/device/nvml.h"
#include "bench/stress/stress_internal.h"
#include "bench/stress/stress_math.h"
#include "kernels/kernels.h"
#include "report/json_util.h"
#include "report/thresholds.h"

/* ======================================================================= */
/* results                                                                 */

static void worker_to_obs(struct worker *w, struct gb_stress_obs *o, const struct shared *sh)
{
	const struct stress_params *p = sh->p;

	pthread_mutex_lock(&w->lock);
	o->memtest = p->memtest;
	o->ecc = w->info ? w->info->ecc : -1;
	o->tp_unit = p->memtest ? "GB/s" : "TFLOP/s";
	o->abft_on = !p->no_abft;
	o->exact_on = !p->no_exact && sh->n_exact > 0;
	o->repeat_on = !p->no_repeat;
	o->cross_on = !p->no_cross;
	o->gemms = w->gemms;
	o->batches = w->batches;
	o->abft_mismatches = w->abft;
	o->exact_mismatches = w->exact;
	o->repeat_mismatches = w->repeat;
	o->nan_count = w->nonfinite;
	o->abft_first = w->abft_first;
	o->exact_first = w->exact_first;
	o->mem_errors = w->mem_errors;
	o->mem_bytes_tested = w->mem_bytes;
	o->viol = w->viol;
	for (size_t ph = 0; !p->memtest && ph < sh->n_phases; ph++) {
		gb_stress_obs_add_abft_ratio(o, w->ph[ph].abft_max_ratio);
		if (w->ph[ph].picked)
			gb_stress_obs_add_algo_pick(o, &w->ph[ph].pick,
						    gb_stress_prec_names[sh->phases[ph].prec]);
	}
	/*
	 * Verified batches count even when the GPU hung or erred later: their
	 * mismatches are findings. could_run still reports the hang (o->error),
	 * and clean counts of an unfinished load are not passes (the verdict).
	 */
	o->ran = w->batches > 0;
	/* memtest runs no load profile */
	o->steady_from_s = p->memtest ? 0 : gb_stress_steady_from(&sh->sched);
	if (w->load_s > o->load_s)
		o->load_s = w->load_s;
	if (w->state == W_ERROR || w->state == W_HUNG)
		snprintf(o->error, sizeof(o->error), "%s", w->error);
	else if (w->state == W_STARTING)
		snprintf(o->error, sizeof(o->error), "never started");
	if (w->state == W_FAILED)
		snprintf(o->cuda_failure, sizeof(o->cuda_failure), "%s", w->cuda_failure);
	if (!o->ran && !o->error[0] && gb_should_stop(sh->ctx))
		snprintf(o->error, sizeof(o->error), "interrupted before the first result");
	pthread_mutex_unlock(&w->lock);
}

/* GPUs compare digests with GPUs of the same model; exact phases with every GPU. */
static bool same_group(const struct worker *a, const struct worker *b, size_t phase,
		       bool exact)
{
	if (exact)
		return true;
	return a->info && b->info && a->info->name && b->info->name &&
	       !strcmp(a->info->name, b->info->name) && a->info->sm_count == b->info->sm_count &&
	       a->ph[phase].algo_fp == b->ph[phase].algo_fp;
}

static enum gb_cross worse(enum gb_cross a, enum gb_cross b)
{
	static const int rank[] = { [GB_CROSS_NONE] = 0, [GB_CROSS_AGREE] = 1,
				    [GB_CROSS_UNDECIDED] = 2, [GB_CROSS_OUTLIER] = 3 };

	return rank[b] > rank[a] ? b : a;
}

static void cross_vote(struct monitor *m)
{
	uint64_t *d = calloc(m->n, sizeof(*d));
	bool *valid = calloc(m->n, sizeof(*valid));
	enum gb_cross *out = calloc(m->n, sizeof(*out));

	if (!d || !valid || !out || m->sh->p->memtest)
		goto done;
	for (size_t p = 0; p < m->sh->n_phases; p++) {
		bool exact = m->sh->phases[p].mode == GB_STRESS_EXACT;

		for (size_t i = 0; i < m->n; i++) {
			/* the group of GPU i: those that computed the same thing */
			for (size_t j = 0; j < m->n; j++) {
				valid[j] = m->w[j].ph[p].digest_ok && m->w[j].ph[p].repeatable &&
					   m->obs[j].ran && same_group(&m->w[i], &m->w[j], p, exact);
				d[j] = m->w[j].ph[p].digest;
			}
			if (!valid[i])
				continue;
			gb_stress_cross_vote(d, valid, m->n, out);
			m->obs[i].cross = worse(m->obs[i].cross, out[i]);
		}
	}
	for (size_t i = 0; i < m->n; i++)
		snprintf(m->obs[i].cross_detail, sizeof(m->obs[i].cross_detail),
			 "(reference digests of %zu phase%s)", m->sh->n_phases,
			 m->sh->n_phases > 1 ? "s" : "");
done:
	free(d);
	free(valid);
	free(out);
}

/*
 * The best settled throughput of each series among the GPUs of the same
 * model, this one included, into best[]; false when it has no peer.
 */
static bool peer_best(struct monitor *m, size_t i, double *best)
{
	size_t peers = 0;
	int *best_dev = m->obs[i].peer_best_dev;

	for (size_t s = 0; s < GB_STRESS_MAX_SERIES; s++) {
		best[s] = NAN;
		best_dev[s] = -1;
	}
	for (size_t j = 0; j < m->n; j++) {
		if (!m->w[i].info || !m->w[j].info || !m->w[j].info->name || !m->w[i].info->name ||
		    strcmp(m->w[i].info->name, m->w[j].info->name) ||
		    m->w[i].info->sm_count != m->w[j].info->sm_count)
			continue;
		peers++;
		for (size_t s = 0; s < m->obs[j].n_series; s++) {
			double v = gb_stress_settled(&m->obs[j], s);

			if (isfinite(v) && !(v <= best[s])) {
				best[s] = v;
				best_dev[s] = m->w[j].dev;
			}
		}
	}
	return peers >= 2;
}

/*
 * Whether any batch of this GPU could take the injected flip: false when
 * ABFT is off, no exact phase ran and repeat-and-compare found no
 * bit-reproducible algorithm for any random phase (known only at run time;
 * what the options alone rule out, stress_validate refuses).
 */
static bool injectable(const struct worker *w)
{
	const struct shared *sh = w->sh;

	if (sh->p->memtest)
		return true;
	for (size_t p = 0; p < sh->n_phases; p++)
		if (gb_stress_inject_ok(sh->phases[p].mode, !sh->p->no_abft, w->ph[p].compare))
			return true;
	return false;
}

static void injection_check(struct gb_bench_result *res, const struct worker *w,
			    const struct gb_stress_obs *o, cJSON *forensics)
{
	const struct injection *in = &w->inj;

	if (!w->sh->p->inject_fault)
		return;
	if (!in->done && o->ran && !injectable(w)) {
		gb_bench_add_check(res, "fault_injection", GB_STATUS_ERROR, GB_SEV_ERROR, w->dev,
				   NAN, NAN,
				   "the fault was never injected: with --no-abft and no exact "
				   "phase only repeat-and-compare could catch it, and no phase "
				   "had a bit-reproducible algorithm to compare with");
		return;
	}
	if (!in->done) {
		gb_bench_add_check(res, "fault_injection", GB_STATUS_ERROR, GB_SEV_ERROR, w->dev, NAN,
				   NAN,
				   "the fault was never injected (the load ran %.0f s, injection due "
				   "at %.0f s)",
				   o->load_s, w->sh->inject_at_s);
		return;
	}
	cJSON_AddItemToArray(forensics, gb_stress_forensic_json(&in->f));
	if (in->caught[0])
		gb_bench_add_check(res, "fault_injection", GB_STATUS_PASSED, GB_SEV_INFO, w->dev, 1,
				   1, "the injected bit flip at %.1f s was caught by: %s", in->t_s,
				   in->caught);
	else
		gb_bench_add_check(res, "fault_injection", GB_STATUS_FAILED, GB_SEV_ERROR, w->dev, 0,
				   1,
				   "the injected bit flip at %.1f s was NOT caught: the checker "
				   "is broken",
				   in->t_s);
}

/* The pinned algorithm of a phase and how it was chosen (forensics for a repeat finding). */
static cJSON *algo_json(const struct worker *w, const struct wphase *ph)
{
	cJSON *a = cJSON_CreateObject(), *bad = cJSON_AddArrayToObject(a, "not_reproducible");
	struct gb_lt_algo_config cfg;
	const char *tile, *stages;
	char hex[24];

	/* numbered from 1 in the heuristic's order: 1 is its first choice */
	cJSON_AddNumberToObject(a, "candidates", ph->n_cand);
	cJSON_AddNumberToObject(a, "pinned", ph->algo_index + 1);
	cJSON_AddBoolToObject(a, "self_checked", ph->picked);
	cJSON_AddBoolToObject(a, "reproducible", ph->repeatable);
	for (int c = 0; ph->picked && c < ph->pick.n_tried; c++) {
		cJSON *o;

		if (!ph->pick.diffs[c])
			continue;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "algorithm", c + 1);
		cJSON_AddNumberToObject(o, "elements_differing", (double)ph->pick.diffs[c]);
		cJSON_AddItemToArray(bad, o);
	}
	snprintf(hex, sizeof(hex), "0x%016llx", (unsigned long long)ph->algo_fp);
	cJSON_AddStringToObject(a, "fingerprint", hex);
	gb_lt_algo_config(w->sh->lt, &ph->algo, &cfg);
	gb_json_add_int(a, "id", cfg.id);
	tile = cfg.tile >= 0 ? gb_lt_tile_name((uint32_t)cfg.tile) : NULL;
	stages = cfg.stages >= 0 ? gb_lt_stages_name((uint32_t)cfg.stages) : NULL;
	gb_json_add_str(a, "tile", tile);
	gb_json_add_str(a, "stages", stages);
	gb_json_add_int(a, "splitk", cfg.splitk);
	gb_json_add_int(a, "reduction_scheme", cfg.reduction_scheme);
	return a;
}

/* extra.gpus[].phases[]: per phase its batch size, pinned algorithm and ABFT headroom */
static cJSON *phases_json(const struct worker *w)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t p = 0; p < w->sh->n_phases; p++) {
		const struct gb_stress_phase *sp = &w->sh->phases[p];
		const struct wphase *ph = &w->ph[p];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "precision", gb_stress_prec_names[sp->prec]);
		cJSON_AddStringToObject(o, "mode", sp->mode == GB_STRESS_EXACT ? "exact" : "random");
		cJSON_AddNumberToObject(o, "batch_gemms",
					(double)gb_stress_batcher_next(&w->batcher, p));
		cJSON_AddBoolToObject(o, "compared", ph->compare);
		/* random phases only: exact ones have bound 0 */
		gb_json_add_num(o, "abft_max_ratio", ph->abft_max_ratio);
		if (ph->n_cand)
			cJSON_AddItemToObject(o, "algo", algo_json(w, ph));
		else
			cJSON_AddNullToObject(o, "algo");
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *gpu_json(const struct worker *w, const struct gb_stress_obs *o)
{
	cJSON *g = cJSON_CreateObject(), *dig = cJSON_AddArrayToObject(g, "reference_digests");
	char hex[24];

	cJSON_AddNumberToObject(g, "device", w->dev);
	cJSON_AddStringToObject(g, "state", state_name(w->state));
	cJSON_AddNumberToObject(g, "max_batch_s", w->max_batch_s);
	if (w->sh->p->memtest) {
		/* the tested region: forensics' addresses are base + offset */
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)(uintptr_t)w->slots);
		if (w->slots)
			cJSON_AddStringToObject(g, "memtest_base", hex);
		else
			cJSON_AddNullToObject(g, "memtest_base");
		cJSON_AddNumberToObject(g, "memtest_bytes", (double)w->mt_bytes);
	} else {
		cJSON_AddNumberToObject(g, "slots", (double)w->sz.slots);
		cJSON_AddNumberToObject(g, "bytes", (double)w->sz.bytes_total);
		cJSON_AddItemToObject(g, "phases", phases_json(w));
	}
	for (size_t p = 0; p < w->sh->n_phases && !w->sh->p->memtest; p++) {
		snprintf(hex, sizeof(hex), "0x%016llx", (unsigned long long)w->ph[p].digest);
		cJSON_AddItemToArray(dig, w->ph[p].digest_ok ? cJSON_CreateString(hex)
							      : cJSON_CreateNull());
		if (w->ph[p].digest_changed)
			cJSON_AddBoolToObject(g, "reference_changed", true);
	}
	cJSON_AddNumberToObject(g, "forensics_dropped", (double)w->dropped);
	if (!w->sh->p->memtest) {
		cJSON *first = cJSON_AddObjectToObject(g, "first_corrupt");

		cJSON_AddItemToObject(first, "abft", gb_stress_corrupt_json(&o->abft_first));
		cJSON_AddItemToObject(first, "exact", gb_stress_corrupt_json(&o->exact_first));
	}
	cJSON_AddStringToObject(g, "telemetry_missing", o->missing);
	return g;
}

void report(struct gb_bench_result *res, struct monitor *m,
	    const struct gb_stress_thresholds *th)
{
	cJSON *extra = gb_bench_extra(res), *gpus = cJSON_AddArrayToObject(extra, "gpus");
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];

	for (size_t i = 0; i < m->n; i++)
		worker_to_obs(&m->w[i], &m->obs[i], m->sh);
	cross_vote(m);
	for (size_t i = 0; i < m->n; i++) {
		double best[GB_STRESS_MAX_SERIES];
		bool peers = peer_best(m, i, best);
		size_t nc = gb_stress_judge(&m->obs[i], th, peers ? best : NULL, c,
					    sizeof(c) / sizeof(c[0]));

		gb_stress_add_metrics(res, &m->obs[i]);
		gb_stress_add_checks(res, m->w[i].dev, c, nc);
		injection_check(res, &m->w[i], &m->obs[i], m->forensics);
		cJSON_AddItemToArray(gpus, gpu_json(&m->w[i], &m->obs[i]));
	}
	/* GPUs that differ with no majority: the run's finding, no GPU's */
	if (gb_stress_cross_tie(m->obs, m->n, c))
		gb_bench_add_check(res, c->name, c->status, c->severity, -1, c->observed,
				   c->threshold, "%s", c->message);
	cJSON_AddItemToObject(extra, "forensics", m->forensics);
	m->forensics = NULL;
}
