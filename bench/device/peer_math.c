/* SPDX-License-Identifier: MIT */
/* peer_math.c - GPUs of one model compared with each other (see peer_math.h). */
#include "bench/device/peer_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int gb_peer_best(const double *v, size_t n, double *below)
{
	int best = -1;
	size_t usable = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(isfinite(v[i]) && v[i] > 0))
			continue;
		usable++;
		if (best < 0 || v[i] > v[best])
			best = (int)i;
	}
	for (size_t i = 0; i < n; i++)
		below[i] = best >= 0 && isfinite(v[i]) && v[i] > 0 ? (v[best] - v[i]) / v[best]
								   : NAN;
	return usable >= 2 ? best : -1;
}

bool gb_peer_fails(double below, double tol)
{
	return isfinite(below) && below > tol;
}

void gb_peer_message(char *buf, size_t len, const char *who, const char *what, double value,
		     double best, const char *best_who, const char *unit, double tol)
{
	char v[32], b[32];
	double below = best > 0 ? (best - value) / best : NAN;

	/* four significant digits, no trailing zeros: "99.5", "122.3", "1.52e+04" */
	snprintf(v, sizeof(v), "%.4g", value);
	snprintf(b, sizeof(b), "%.4g", best);
	if (gb_peer_fails(below, tol))
		snprintf(buf, len, "%s %s %.1f%% below its peers (%s vs best %s %s on %s)", who,
			 what, 100 * below, v, b, unit, best_who);
	else
		snprintf(buf, len, "%s %s within %.1f%% of its peers (%s, best %s %s on %s)", who,
			 what, 100 * (below > 0 ? below : 0), v, b, unit, best_who);
}

/* GPUs of one model: the same name and SM count (a MIG slice is not its parent). */
static bool same_model(const struct gb_run *run, int a, int b)
{
	const struct gb_device_info *da = gb_run_find_device(run, a);
	const struct gb_device_info *db = gb_run_find_device(run, b);

	if (!da || !db)
		return !da && !db; /* no records at all: group by the metric name alone */
	return da->name && db->name && !strcmp(da->name, db->name) &&
	       da->sm_count == db->sm_count;
}

static bool candidate(const struct gb_metric *m, bool (*want)(const struct gb_metric *))
{
	return m->better == GB_BETTER_HIGHER && m->device >= 0 && m->name &&
	       (!want || want(m));
}

/* metric j opens its group: no earlier candidate of the same name and model */
static bool opens_group(const struct gb_bench_result *b, const struct gb_run *run, size_t j,
			bool (*want)(const struct gb_metric *))
{
	for (size_t k = 0; k < j; k++)
		if (candidate(&b->metrics[k], want) &&
		    !strcmp(b->metrics[k].name, b->metrics[j].name) &&
		    same_model(run, b->metrics[k].device, b->metrics[j].device))
			return false;
	return true;
}

/*
 * A failed check per GPU more than tol below the best, naming it and the
 * best GPU; when none is, one passed check for the group (a line per
 * healthy GPU and metric would bury the finding), naming the model, the
 * GPUs, the furthest behind and the best.
 */
static size_t judge_group(struct gb_bench_result *b, const struct gb_run *run, const size_t *idx,
			  size_t n, const char *(*what)(const char *), double tol)
{
	double *v = calloc(n, sizeof(*v)), *below = calloc(n, sizeof(*below));
	size_t failed = 0, worst = 0;
	int best;

	if (!v || !below)
		abort();
	for (size_t i = 0; i < n; i++)
		v[i] = b->metrics[idx[i]].value;
	best = gb_peer_best(v, n, below);
	for (size_t i = 0; best >= 0 && i < n; i++) {
		/* metrics do not move when a check is added: m stays valid */
		const struct gb_metric *m = &b->metrics[idx[i]];
		char who[32], best_who[32], msg[320], name[160];

		if (isfinite(below[i]) && !(below[i] <= below[worst]))
			worst = i;
		if (!gb_peer_fails(below[i], tol))
			continue;
		snprintf(who, sizeof(who), "GPU %d", m->device);
		snprintf(best_who, sizeof(best_who), "GPU %d", b->metrics[idx[best]].device);
		snprintf(name, sizeof(name), "%s_peers", m->name);
		gb_peer_message(msg, sizeof(msg), who, what ? what(m->name) : m->name, v[i], v[best],
				best_who, m->unit ? m->unit : "", tol);
		gb_bench_add_check(b, name, GB_STATUS_FAILED, GB_SEV_ERROR, m->device, below[i], tol,
				   "%s", msg);
		failed++;
	}
	if (best >= 0 && !failed) {
		const struct gb_metric *m = &b->metrics[idx[best]];
		const struct gb_device_info *d = gb_run_find_device(run, m->device);
		char name[160];

		snprintf(name, sizeof(name), "%s_peers", m->name);
		gb_bench_add_check(b, name, GB_STATUS_PASSED, GB_SEV_ERROR, -1, below[worst], tol,
				   "%zu %s GPUs %s within %.1f%% of the best (GPU %d %.4g, best "
				   "%.4g %s on GPU %d; at most %.0f%%)",
				   n, d && d->name ? d->name : "", what ? what(m->name) : m->name,
				   100 * below[worst], b->metrics[idx[worst]].device, v[worst],
				   v[best], m->unit ? m->unit : "", m->device, 100 * tol);
	}
	free(v);
	free(below);
	return failed;
}

size_t gb_peer_checks(struct gb_bench_result *b, const struct gb_run *run,
		      bool (*want)(const struct gb_metric *m), const char *(*what)(const char *metric),
		      double tol)
{
	size_t n_metrics = b->n_metrics, failed = 0;
	size_t *idx = calloc(n_metrics ? n_metrics : 1, sizeof(*idx));

	if (!idx)
		abort();
	for (size_t j = 0; j < n_metrics; j++) {
		size_t n = 0;

		if (!candidate(&b->metrics[j], want) || !opens_group(b, run, j, want))
			continue;
		for (size_t k = j; k < n_metrics; k++)
			if (candidate(&b->metrics[k], want) &&
			    !strcmp(b->metrics[k].name, b->metrics[j].name) &&
			    same_model(run, b->metrics[j].device, b->metrics[k].device))
				idx[n++] = k;
		if (n >= 2)
			failed += judge_group(b, run, idx, n, what, tol);
	}
	free(idx);
	return failed;
}
