/* SPDX-License-Identifier: MIT */
/*
 * p2p_checks.c - what `gpubench p2p` concludes from its matrices: P2P
 * slower than staged, NVLink links down, pairs against like pairs, the
 * summary checks, and the matrices written into extra. CPU arithmetic over
 * the result model and the run's topology (bench/device/peer_math.h); no CUDA call.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench/copies/p2p_internal.h"
#include "bench/device/peer_math.h"
#include "report/theory.h"

/* ---- findings ---- */

/* One cell of one form (one-way or two-way) against its staged twin. */
static void check_staged_cell(struct p2p *t, size_t i, size_t j, enum matrix peer,
			      enum matrix staged)
{
	double p = *cell(t, peer, i, j), s = *cell(t, staged, i, j);
	bool two = peer == M_BIDIR_CE;

	if (!gb_p2p_slower_than_staged(p, s, STAGED_MARGIN))
		return;
	t->slower++;
	gb_bench_add_check(t->res, "p2p_vs_staged", GB_STATUS_FAILED, GB_SEV_WARNING, t->d[i].dev, p,
			   s,
			   "P2P slower than staged through the host: GPU %d %s GPU %d %s%.1f GB/s "
			   "with peer access, %.1f GB/s staged",
			   t->d[i].dev, two ? "<->" : "->", t->d[j].dev, two ? "two-way " : "", p, s);
}

void p2p_check_staged(struct p2p *t)
{
	for (size_t i = 0; i < t->n; i++) {
		for (size_t j = 0; j < t->n; j++) {
			if (i == j)
				continue;
			check_staged_cell(t, i, j, M_UNI_CE, M_STAGED);
			check_staged_cell(t, i, j, M_BIDIR_CE, M_BIDIR_STAGED);
		}
	}
}

/* Whether the run's topology shows NVLink from GPU i to another GPU of the run. */
static bool nvlink_to_peer(const struct p2p *t, size_t i)
{
	for (size_t j = 0; j < t->n; j++) {
		const struct gb_link *l = gb_run_find_link(t->ctx->run, t->d[i].dev, t->d[j].dev);

		if (j != i && l && l->type && !strcmp(l->type, "nvlink"))
			return true;
	}
	return false;
}

/*
 * "NVLink link down", judged against the catalog's link count with what
 * else is known (gb_nvlink_judge): a PCIe card without a bridge, or one SXM
 * GPU given alone to a VM, shows its links inactive without a fault.
 */
void p2p_check_nvlink(struct p2p *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct gb_device_info *d = t->d[i].info;
		const struct gb_gpu_spec *spec = d ? gb_gpu_spec_match(d->name, d->sm_count) : NULL;
		struct gb_nvlink_view v = {
			.links_up = d ? d->nvlink_up : -1,
			.links_expected = spec ? spec->nvlink_links : 0,
			.pcie_board = spec && strstr(spec->key, "pcie"),
			.n_gpus = (int)t->n,
			.nvlink_peer = nvlink_to_peer(t, i),
		};
		char msg[256];
		int sev = GB_SEV_INFO, st = gb_nvlink_judge(&v, &sev, msg, sizeof(msg));

		if (st < 0)
			continue; /* no NVLink expected, or NVML could not say */
		gb_bench_add_check(t->res, "nvlink_links_up", (enum gb_status)st,
				   (enum gb_severity)sev, t->d[i].dev, (double)v.links_up,
				   (double)v.links_expected, "GPU %d: %s (%s)", t->d[i].dev, msg,
				   spec->name);
	}
}

/* ---- pairs against like pairs ---- */

/* pairs compare when both ends are of one model each and the link is the same */
static void pair_key(struct p2p *t, size_t i, size_t j, char *buf, size_t len)
{
	const struct gb_device_info *a = t->d[i].info, *b = t->d[j].info;
	const struct gb_link *l = gb_run_find_link(t->ctx->run, t->d[i].dev, t->d[j].dev);
	char link[48];

	gb_p2p_topology_label(l ? l->type : NULL, l ? l->nvlink_count : -1, link, sizeof(link));
	snprintf(buf, len, "%s/%d|%s/%d|%s", a && a->name ? a->name : "?", a ? a->sm_count : -1,
		 b && b->name ? b->name : "?", b ? b->sm_count : -1, link);
}

/*
 * One group: the pairs of key (i0, j0) in matrix m. A failed check per pair
 * more than --peer-tolerance below the best pair, naming both; one passed
 * check for the group when none is.
 */
static void check_pair_group(struct p2p *t, enum matrix m, size_t i0, size_t j0, bool *done)
{
	size_t n = 0, *pi = calloc(t->n * t->n, sizeof(*pi)), *pj = calloc(t->n * t->n, sizeof(*pj));
	double *v = calloc(t->n * t->n, sizeof(*v)), *below = calloc(t->n * t->n, sizeof(*below));
	char key0[256], key[256], name[48], who[32], best_who[32], msg[320], link[48];
	const struct gb_link *l = gb_run_find_link(t->ctx->run, t->d[i0].dev, t->d[j0].dev);
	size_t failed = 0;
	double worst = 0;
	int best;

	if (!pi || !pj || !v || !below)
		abort();
	pair_key(t, i0, j0, key0, sizeof(key0));
	for (size_t i = 0; i < t->n; i++)
		for (size_t j = 0; j < t->n; j++) {
			if (i == j || done[i * t->n + j] || !isfinite(*cell(t, m, i, j)))
				continue;
			pair_key(t, i, j, key, sizeof(key));
			if (strcmp(key, key0))
				continue;
			done[i * t->n + j] = true;
			pi[n] = i;
			pj[n] = j;
			v[n++] = *cell(t, m, i, j);
		}
	best = gb_peer_best(v, n, below);
	snprintf(name, sizeof(name), "%s_peers", matrices[m].stem);
	gb_p2p_topology_label(l ? l->type : NULL, l ? l->nvlink_count : -1, link, sizeof(link));
	for (size_t k = 0; best >= 0 && k < n; k++) {
		if (isfinite(below[k]) && below[k] > worst)
			worst = below[k];
		if (!gb_peer_fails(below[k], t->p->peer_tol))
			continue;
		failed++;
		snprintf(who, sizeof(who), "GPU %d -> %d", t->d[pi[k]].dev, t->d[pj[k]].dev);
		snprintf(best_who, sizeof(best_who), "GPU %d -> %d", t->d[pi[best]].dev,
			 t->d[pj[best]].dev);
		gb_peer_message(msg, sizeof(msg), who, matrices[m].stem, v[k], v[best], best_who,
				"GB/s", t->p->peer_tol);
		gb_bench_add_check(t->res, name, GB_STATUS_FAILED, GB_SEV_ERROR, t->d[pi[k]].dev,
				   below[k], t->p->peer_tol, "%s (%s)", msg, link);
	}
	if (best >= 0 && !failed)
		gb_bench_add_check(t->res, name, GB_STATUS_PASSED, GB_SEV_ERROR, -1, worst,
				   t->p->peer_tol,
				   "%s: %zu %s pairs within %.1f%% of the best (%.4g GB/s, GPU %d -> %d)",
				   matrices[m].stem, n, link, 100 * worst, v[best],
				   t->d[pi[best]].dev, t->d[pj[best]].dev);
	free(pi);
	free(pj);
	free(v);
	free(below);
}

/* the copy-engine bandwidth of every pair against the pairs like it */
void p2p_check_pair_peers(struct p2p *t)
{
	static const enum matrix judged[] = { M_UNI_CE, M_BIDIR_CE };
	bool *done = calloc(t->n * t->n, sizeof(*done));

	if (!done)
		abort();
	for (size_t k = 0; k < sizeof(judged) / sizeof(judged[0]); k++) {
		memset(done, 0, t->n * t->n * sizeof(*done));
		for (size_t i = 0; i < t->n; i++)
			for (size_t j = 0; j < t->n; j++)
				if (i != j && !done[i * t->n + j] &&
				    isfinite(*cell(t, judged[k], i, j)))
					check_pair_group(t, judged[k], i, j, done);
	}
	free(done);
}

void p2p_summary_checks(struct p2p *t, const char *single_reason)
{
	struct gb_bench_result *res = t->res;

	if (!t->verify) {
		gb_bench_add_check(res, "data_verified", GB_STATUS_SKIPPED, GB_SEV_INFO, -1, NAN, NAN,
				   "verification disabled by --no-verify");
	} else if (!t->wrong_other && !t->wrong_p2p) {
		gb_bench_add_check(res, "data_verified", GB_STATUS_PASSED, GB_SEV_INFO, -1, 0, 0,
				   "every copy checked matched its source pattern");
	}
	if (single_reason || !t->p2p_pairs) {
		gb_bench_add_check(res, "p2p_data", GB_STATUS_SKIPPED, GB_SEV_INFO, -1, NAN, NAN,
				   "%s", single_reason ? single_reason : "no pair has peer access");
		gb_bench_add_check(res, "p2p_vs_staged", GB_STATUS_SKIPPED, GB_SEV_INFO, -1, NAN, NAN,
				   "%s", single_reason ? single_reason : "no pair has peer access");
		return;
	}
	if (t->verify && !t->wrong_p2p)
		gb_bench_add_check(res, "p2p_data", GB_STATUS_PASSED, GB_SEV_INFO, -1, 0, 0,
				   "data through peer access verified on %d pairs", t->p2p_pairs);
	if (t->p->latency_only)
		gb_bench_add_check(res, "p2p_vs_staged", GB_STATUS_SKIPPED, GB_SEV_INFO, -1, NAN, NAN,
				   "--latency-only: no bandwidth measured");
	else if (!t->slower)
		gb_bench_add_check(res, "p2p_vs_staged", GB_STATUS_PASSED, GB_SEV_INFO, -1, NAN, NAN,
				   "P2P at least as fast as staged (within %.0f%%) on %d pairs",
				   STAGED_MARGIN * 100, t->p2p_pairs);
}

/* ---- report ---- */

/*
 * What a renderer needs to draw every matrix without knowing this file:
 * [{key, title, unit, better}] in display order. The key names the N x N
 * array in extra; rows and columns are extra.devices.
 */
static void add_matrix_list(cJSON *extra)
{
	cJSON *list = cJSON_AddArrayToObject(extra, "matrices");

	for (int m = 0; m < M_COUNT; m++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "key", matrices[m].json);
		cJSON_AddStringToObject(o, "title", matrices[m].title);
		cJSON_AddStringToObject(o, "unit", matrices[m].unit);
		cJSON_AddStringToObject(o, "better",
					strcmp(matrices[m].unit, "us") ? "higher" : "lower");
		cJSON_AddItemToArray(list, o);
	}
}

void p2p_add_matrices(struct p2p *t, const char *single_reason)
{
	cJSON *extra = gb_bench_extra(t->res), *devs, *units;
	const char **topo = gb_xrealloc(NULL, sizeof(char *) * t->n * t->n);
	char (*labels)[48] = gb_xrealloc(NULL, sizeof(*labels) * t->n * t->n);

	devs = cJSON_AddArrayToObject(extra, "devices");
	for (size_t i = 0; i < t->n; i++)
		cJSON_AddItemToArray(devs, cJSON_CreateNumber(t->d[i].dev));
	cJSON_AddStringToObject(extra, "rows", "source GPU (the reader for latency_us)");
	cJSON_AddStringToObject(extra, "columns", "destination GPU (the memory read for latency_us)");
	for (int m = 0; m < M_COUNT; m++)
		cJSON_AddItemToObject(extra, matrices[m].json, gb_matrix_json(t->mat[m], t->n, t->n));
	add_matrix_list(extra);
	cJSON_AddItemToObject(extra, "p2p_access", gb_matrix_json(t->access, t->n, t->n));
	cJSON_AddItemToObject(extra, "mismatched_words", gb_matrix_json(t->bad, t->n, t->n));
	for (size_t i = 0; i < t->n; i++) {
		for (size_t j = 0; j < t->n; j++) {
			const struct gb_link *l =
				gb_run_find_link(t->ctx->run, t->d[i].dev, t->d[j].dev);

			topo[i * t->n + j] = labels[i * t->n + j];
			if (i == j)
				snprintf(labels[i * t->n + j], sizeof(labels[0]), "local");
			else
				gb_p2p_topology_label(l ? l->type : NULL, l ? l->nvlink_count : -1,
						      labels[i * t->n + j], sizeof(labels[0]));
		}
	}
	cJSON_AddItemToObject(extra, "topology", gb_string_matrix_json(topo, t->n, t->n));
	units = cJSON_AddObjectToObject(extra, "units");
	cJSON_AddStringToObject(units, "gbps",
				"GB/s = 1e9 bytes/s, each byte counted once per direction; bidir "
				"sums both directions; the diagonal is a device-local copy (payload "
				"counted once)");
	cJSON_AddStringToObject(units, "latency_us",
				"microseconds per dependent load (pointer chase, 128-byte stride "
				"over 2 MiB)");
	cJSON_AddStringToObject(units, "latency_copy_us",
				"microseconds per 16-byte copy, queued back to back");
	if (single_reason)
		cJSON_AddStringToObject(extra, "reason", single_reason);
	cJSON_AddItemToObject(extra, "notes", t->notes);
	t->notes = NULL;
	free(labels);
	free(topo);
}
