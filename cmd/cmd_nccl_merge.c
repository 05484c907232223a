/* SPDX-License-Identifier: MIT */
/*
 * cmd_nccl_merge.c - `gpubench nccl` under mpirun/srun, rank 0's step 5: every
 * rank's report (JSON, gathered by cmd_nccl.c) merged into one report: one
 * nccl entry, the devices and links of every rank, extra.ranks[] with each
 * rank's host, GPU, status and reason, and the job's status.
 * May use: cmd/cmd_nccl_internal.h, cmd/, bench/ and report/ headers, cJSON.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"
#include "bench/device/gpu.h"
#include "bench/device/mpi_dl.h"
#include "bench/device/mpi_world.h"
#include "bench/nccl/nccl.h"
#include "bench/nccl/nccl_math.h"
#include "bench/device/nvml.h"
#include "cmd/cmd.h"
#include "cmd/cmd_nccl_internal.h"
#include "cmd/launcher.h"
#include "cmd/log.h"
#include "report/exitcodes.h"
#include "report/formats.h"
#include "report/json.h"
#include "report/json_util.h"

/* ---- rank 0: one report from every rank's ---- */

/* calloc that never returns NULL: these are a few bytes per rank */
static void *zalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		abort();
	return p;
}

/* m->n as a count for allocations (never below 1) */
static size_t count_of(const struct merge *m)
{
	return m->n > 0 ? (size_t)m->n : 1;
}

static void parse_fragments(struct merge *m)
{
	m->runs = zalloc(count_of(m), sizeof(*m->runs));
	m->unreadable = zalloc(count_of(m), sizeof(char *));
	for (int r = 0; m->frags && r < m->n && r < m->frags->n; r++) {
		cJSON *doc = m->frags->arrived[r] ? cJSON_Parse(m->frags->data[r]) : NULL;
		char err[256];

		if (m->frags->arrived[r] && !doc)
			m->unreadable[r] = gb_strdup("its report is not JSON");
		else if (doc && gb_report_from_json(doc, &m->runs[r], err, sizeof(err)))
			m->unreadable[r] = gb_strdupf("its report cannot be read: %s", err);
		cJSON_Delete(doc);
	}
}

static struct gb_bench_result *nccl_of(const struct gb_run *run)
{
	for (size_t i = 0; run && i < run->n_benches; i++)
		if (run->benches[i].name && !strcmp(run->benches[i].name, "nccl"))
			return &run->benches[i];
	return NULL;
}

static struct gb_device_info *device_of(struct gb_run *run, int index)
{
	for (size_t i = 0; run && i < run->n_devices; i++)
		if (run->devices[i].index == index)
			return &run->devices[i];
	return NULL;
}

/* Status and reason of rank r as the merged report lists it. */
static void rank_status(const struct merge *m, int r, const char **status, const char **reason)
{
	const struct hello *h = hello_of(m->hellos, r);
	const struct gb_bench_result *b = nccl_of(&m->runs[r]);

	if (!h || (!m->runs[r].command && m->frags)) {
		*status = gb_status_name(GB_STATUS_ERROR);
		*reason = m->unreadable[r] ? m->unreadable[r] : m->no_answer;
		return;
	}
	if (!h->ready) {
		*status = gb_status_name(GB_STATUS_ERROR);
		*reason = h->reason;
		return;
	}
	*status = b ? gb_status_name(b->status) : gb_status_name(GB_STATUS_SKIPPED);
	*reason = b && b->reason ? b->reason : NULL;
}

static cJSON *host_info_json(const struct gb_host_info *h)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "os", h->os ? h->os : "");
	cJSON_AddStringToObject(o, "kernel", h->kernel ? h->kernel : "");
	cJSON_AddStringToObject(o, "cpu", h->cpu ? h->cpu : "");
	if (h->driver_version)
		cJSON_AddStringToObject(o, "driver_version", h->driver_version);
	else
		cJSON_AddNullToObject(o, "driver_version");
	gb_json_add_cuda_version(o, "cuda_driver_version", h->cuda_driver_version);
	return o;
}

static void add_str_or_null(cJSON *o, const char *key, const char *v)
{
	if (v && *v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *rank_json(const struct merge *m, int r, int report_device)
{
	const struct hello *h = hello_of(m->hellos, r);
	cJSON *o = cJSON_CreateObject();
	const char *status, *reason;

	rank_status(m, r, &status, &reason);
	cJSON_AddNumberToObject(o, "rank", r);
	if (h) {
		cJSON_AddNumberToObject(o, "local_rank", h->local_rank);
		cJSON_AddStringToObject(o, "host", h->host);
		cJSON_AddNumberToObject(o, "pid", h->pid);
		if (h->device >= 0)
			cJSON_AddNumberToObject(o, "device", h->device);
		else
			cJSON_AddNullToObject(o, "device");
		add_str_or_null(o, "pci_bus_id", h->pci);
		add_str_or_null(o, "gpu", h->gpu);
	} else {
		cJSON_AddNullToObject(o, "host");
		cJSON_AddNullToObject(o, "device");
	}
	if (report_device >= 0)
		cJSON_AddNumberToObject(o, "report_device", report_device);
	else
		cJSON_AddNullToObject(o, "report_device");
	cJSON_AddStringToObject(o, "status", status);
	if (reason)
		cJSON_AddStringToObject(o, "reason", reason);
	else
		cJSON_AddNullToObject(o, "reason");
	if (m->runs[r].command)
		cJSON_AddItemToObject(o, "host_info", host_info_json(&m->runs[r].host));
	return o;
}

/* Release what a run no longer owns by moving it into a scratch run first. */
static void release_devices_and_benches(struct gb_run *run)
{
	struct gb_run scratch;

	memset(&scratch, 0, sizeof(scratch));
	scratch.devices = run->devices;
	scratch.n_devices = run->n_devices;
	scratch.benches = run->benches;
	scratch.n_benches = run->n_benches;
	run->devices = NULL;
	run->n_devices = 0;
	run->benches = NULL;
	run->n_benches = run->cap_benches = 0;
	gb_run_release(&scratch);
}

/*
 * devices[] of the merged report: the GPU of every rank, in rank order
 * (indices are as each rank's process saw them; extra.ranks maps them).
 * Returns each rank's position in devices[] (-1 none) in pos[].
 */
static void merge_devices(struct merge *m, struct gb_run *final, int *pos)
{
	for (int r = 0; r < m->n; r++) {
		const struct hello *h = hello_of(m->hellos, r);
		struct gb_device_info *d = h ? device_of(&m->runs[r], h->device) : NULL;

		pos[r] = -1;
		if (!d)
			continue;
		pos[r] = (int) final->n_devices;
		*gb_run_add_device(final) = *d;
		gb_device_info_init(d); /* stolen: the parsed run must not free its strings */
	}
}

/* Rank 0's topology, kept for the GPUs the ranks on its host use. */
static void merge_links(const struct merge *m, struct gb_run *final)
{
	size_t keep = 0;

	for (size_t i = 0; i < final->n_links; i++) {
		struct gb_link *l = &final->links[i];
		bool a = false, b = false;

		for (int r = 0; r < m->n; r++) {
			const struct hello *h = hello_of(m->hellos, r);

			if (!h || strcmp(h->host, m->wr->w.host))
				continue;
			a |= h->device == l->a;
			b |= h->device == l->b;
		}
		if (a && b)
			final->links[keep++] = *l;
		else
			free(l->type);
	}
	final->n_links = keep;
}

/* The links the ranks share: theory from every rank's GPU. */
static double merge_theory(const struct merge *m, char *basis, size_t len)
{
	struct gb_nccl_rank_link *rl = zalloc(count_of(m), sizeof(*rl));
	bool nvlink = m->n > 1;
	double bps;

	for (int r = 0; r < m->n; r++) {
		const struct hello *h = hello_of(m->hellos, r);
		struct gb_device_info *d = h ? device_of(&m->runs[r], h->device) : NULL;

		rl[r] = (struct gb_nccl_rank_link){ h ? h->host : NULL, -1, -1, NAN };
		if (d)
			gb_nccl_rank_link_of(d, h->host, &rl[r]);
		for (int q = 0; q < m->n && h; q++) {
			const struct hello *hq = hello_of(m->hellos, q);
			int pair[2] = { h->device, hq ? hq->device : -1 };

			if (q != r && hq && !strcmp(h->host, hq->host))
				nvlink = nvlink && gb_nccl_pairs_nvlink(&m->runs[r], pair, 2);
		}
	}
	bps = gb_nccl_link_theory(rl, (size_t)m->n, nvlink, basis, len);
	free(rl);
	return bps;
}

/* Every rank's rows, combined: time averaged over ranks, wrong elements summed. */
static void merge_rows(struct merge *m, struct gb_bench_result *res, double theory,
		       const char *basis)
{
	struct gb_nccl_row **rows = zalloc(count_of(m), sizeof(*rows)), *out = NULL;
	size_t *n = zalloc(count_of(m), sizeof(*n)), common = SIZE_MAX;
	for (int r = 0; r < m->n; r++) {
		rows[r] = rows_of(nccl_of(&m->runs[r]), &n[r]);
		common = n[r] < common ? n[r] : common;
	}
	/* a rank that stopped early measured a prefix of the same sweep */
	for (int r = 0; r < m->n; r++)
		n[r] = common;
	if (common && common != SIZE_MAX) {
		out = zalloc(common, sizeof(*out));
		if (gb_nccl_rows_combine((const struct gb_nccl_row *const *)rows, n, (size_t)m->n,
					 m->n, out))
			common = 0;
	} else {
		common = 0;
	}
	gb_nccl_fill_result(res, out, common, m->n, theory, basis);
	for (int r = 0; r < m->n; r++)
		free(rows[r]);
	free(rows);
	free(n);
	free(out);
}

static bool rows_in(const struct gb_bench_result *res)
{
	return res->extra &&
	       cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res->extra, "rows")) > 0;
}

/*
 * When a wait timed out, every rank recorded how many of its last
 * operations had not completed (bench/nccl/nccl.c, extra.progress). Every rank
 * posted the same operations, so a rank behind all the others is the one
 * whose collective hung: that rank, or -1 (not every rank said, or no
 * single rank is behind).
 */
static int lagging_rank(const struct merge *m)
{
	int *incomplete = zalloc(count_of(m), sizeof(int)), seen = 0, lag = -1;

	for (int r = 0; r < m->n; r++) {
		struct gb_bench_result *b = nccl_of(&m->runs[r]);
		const cJSON *p = b && b->extra ? cJSON_GetObjectItemCaseSensitive(b->extra, "progress")
					       : NULL;
		const cJSON *it;

		cJSON_ArrayForEach(it, p) {
			const cJSON *rank = cJSON_GetObjectItemCaseSensitive(it, "rank");
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "incomplete_ops");

			if (cJSON_IsNumber(rank) && cJSON_IsNumber(n) && rank->valueint >= 0 &&
			    rank->valueint < m->n) {
				incomplete[rank->valueint] = n->valueint;
				seen++;
			}
		}
	}
	if (seen == m->n)
		lag = gb_nccl_lagging_rank(incomplete, m->n);
	free(incomplete);
	return lag;
}

/*
 * The first rank that did not pass sets the reason of the whole, unless a
 * rank is known to hang (behind every other): then that one. One line per
 * rank that did not pass.
 */
static void merge_status(struct merge *m, struct gb_run *final, struct gb_bench_result *res)
{
	char label[192], first[768] = "";
	int bad = 0, errors = 0, lag;

	for (int r = 0; r < m->n; r++) {
		const char *status, *reason;

		rank_status(m, r, &status, &reason);
		if (!strcmp(status, "passed") || !strcmp(status, "failed") ||
		    !strcmp(status, "warning") || !strcmp(status, "skipped"))
			continue;
		rank_label(label, sizeof(label), r, hello_of(m->hellos, r));
		gb_error("%s: %s", label, reason ? reason : status);
		errors += !strcmp(status, "error");
		if (!bad++)
			snprintf(first, sizeof(first), "%s: %s", label, reason ? reason : status);
	}
	if (!bad && !rows_in(res)) {
		/* everyone was ready, yet nothing ran (two ranks on one GPU, no NCCL id) */
		const struct gb_bench_result *b0 = nccl_of(&m->runs[0]);

		snprintf(first, sizeof(first), "%s",
			 b0 && b0->reason ? b0->reason : "no rank measured anything");
		gb_error("%s", first);
		bad = errors = 1;
	}
	if (!bad)
		return;
	if (bad > 1 && (lag = lagging_rank(m)) >= 0) {
		const char *status, *reason;

		rank_status(m, lag, &status, &reason);
		rank_label(label, sizeof(label), lag, hello_of(m->hellos, lag));
		snprintf(first, sizeof(first),
			 "%s hangs: its collective never completed while every other rank finished "
			 "it and waits at the next (%s)", label, reason ? reason : status);
	}
	if (bad > 1)
		snprintf(first + strlen(first), sizeof(first) - strlen(first),
			 " (and %d more ranks)", bad - 1);
	gb_bench_set_status(res, errors ? GB_STATUS_ERROR : GB_STATUS_INTERRUPTED, "%s", first);
	if (!rows_in(res))
		gb_run_set_status(final, GB_STATUS_ERROR, first);
}

void merge(struct merge *m, struct gb_run *final)
{
	struct gb_bench_result *res;
	int *pos = zalloc(count_of(m), sizeof(int));
	char basis[256];
	double theory;
	cJSON *ranks;

	parse_fragments(m);
	/* theory reads every rank's device record before merge_devices takes them over */
	theory = merge_theory(m, basis, sizeof(basis));
	release_devices_and_benches(final);
	merge_devices(m, final, pos);
	merge_links(m, final);
	res = gb_run_add_bench(final, "nccl");
	if (nccl_of(&m->runs[0]) && nccl_of(&m->runs[0])->params) {
		cJSON_Delete(res->params);
		res->params = cJSON_Duplicate(nccl_of(&m->runs[0])->params, 1);
	}
	for (int r = 0; r < m->n; r++)
		if (pos[r] >= 0)
			gb_bench_add_device(res, final->devices[pos[r]].index);
	merge_rows(m, res, theory, basis);
	cJSON_AddStringToObject(gb_bench_extra(res), "launcher", m->wr->nc->launch.name);
	ranks = cJSON_AddArrayToObject(gb_bench_extra(res), "ranks");
	for (int r = 0; r < m->n; r++)
		cJSON_AddItemToArray(ranks, rank_json(m, r, pos[r]));
	merge_status(m, final, res);
	for (int r = 0; r < m->n; r++) {
		const struct gb_bench_result *b = nccl_of(&m->runs[r]);

		/* the slowest rank's time is the job's */
		if (b && isfinite(b->duration_s) && !(b->duration_s <= res->duration_s))
			res->duration_s = b->duration_s;
	}
	free(pos);
	for (int r = 0; r < m->n; r++) {
		gb_run_release(&m->runs[r]);
		free(m->unreadable[r]);
	}
	free(m->runs);
	free(m->unreadable);
}
