/* SPDX-License-Identifier: MIT */
/*
 * fleet.c - the fleet merge (see fleet.h): node reports into one report,
 * then the median and MAD of every metric across the fleet and a check for
 * every GPU or node that stands out.
 */
#include "fleet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/compare_key.h"
#include "fault_action.h"
#include "report/format_util.h"
#include "host.h"

/* A merged benchmark and, per metric, the node it came from. */
struct merged {
	size_t bench;       /* index in out->benches */
	char *key;          /* name + params key */
	const char **hosts; /* parallel to the bench's metrics */
	int *node_devs;     /* the same: each metric's GPU as its node numbers it (-1: none) */
	size_t n_hosts;
};

struct merge {
	struct gb_run *out;
	struct merged *m;
	size_t n_m;
};

static const char *host_of(const struct gb_run *run, const char *name)
{
	return run->host.hostname ? run->host.hostname : name;
}

static int remap(const struct gb_run *in, int offset, int device)
{
	int pos = gb_fmt_device_pos(in, device);

	return pos < 0 ? -1 : offset + pos;
}

/* ---- copying ---- */

static void copy_device(struct gb_run *out, const struct gb_device_info *d, int index)
{
	struct gb_device_info *c = gb_run_add_device(out);

	*c = *d;
	c->index = index;
	c->name = gb_strdup(d->name);
	c->uuid = gb_strdup(d->uuid);
	c->pci_bus_id = gb_strdup(d->pci_bus_id);
	c->brand = gb_strdup(d->brand);
	c->spec_key = gb_strdup(d->spec_key);
}

static void copy_tool(struct gb_tool_info *t, const struct gb_tool_info *s)
{
	t->version = gb_strdup(s->version);
	t->git = gb_strdup(s->git);
	t->built_cuda = s->built_cuda;
	t->built_cublas = s->built_cublas;
	t->built_nccl = s->built_nccl;
	t->built_mpi = gb_strdup(s->built_mpi);
	t->cuda_archs = gb_strdup(s->cuda_archs);
}

/*
 * worst first: a fleet is as good as its worst node. A finding (failed)
 * outranks an interrupted node, as it does in the verdict (result.h).
 */
static int status_rank(enum gb_status s)
{
	static const int rank[] = {
		[GB_STATUS_SKIPPED] = 0, [GB_STATUS_PASSED] = 1,    [GB_STATUS_WARNING] = 2,
		[GB_STATUS_NOT_BUILT] = 3, [GB_STATUS_ERROR] = 4,   [GB_STATUS_INTERRUPTED] = 5,
		[GB_STATUS_FAILED] = 6,
	};

	return (size_t)s < sizeof(rank) / sizeof(rank[0]) ? rank[s] : 4;
}

static struct merged *find_merged(struct merge *mg, const struct gb_bench_result *src,
				  const char *host, bool *created)
{
	char *pk = gb_params_key_versioned(src->params);
	char *key = gb_strdupf("%s\x1f%s", src->name, pk);
	struct gb_bench_result *b;
	struct merged *m;

	free(pk);
	*created = false;
	for (size_t i = 0; i < mg->n_m; i++) {
		if (!strcmp(mg->m[i].key, key)) {
			free(key);
			return &mg->m[i];
		}
	}
	mg->m = gb_xrealloc(mg->m, sizeof(*mg->m) * (mg->n_m + 1));
	m = &mg->m[mg->n_m++];
	memset(m, 0, sizeof(*m));
	m->key = key;
	m->bench = mg->out->n_benches;
	b = gb_run_add_bench(mg->out, src->name);
	cJSON_Delete(b->params);
	b->params = cJSON_Duplicate(src->params, 1);
	b->status = src->status;
	if (src->reason)
		b->reason = gb_strdupf("%s: %s", host, src->reason);
	b->started_s = src->started_s;
	b->duration_s = src->duration_s;
	*created = true;
	return m;
}

static void merge_status(struct gb_bench_result *b, const struct gb_bench_result *src,
			 const char *host)
{
	if (status_rank(src->status) <= status_rank(b->status))
		return;
	/* the reason goes with the status it explains */
	b->status = src->status;
	free(b->reason);
	b->reason = src->reason ? gb_strdupf("%s: %s", host, src->reason) : NULL;
}

static void copy_metric(struct merge *mg, struct merged *m, const struct gb_metric *s, int dev,
			const char *host)
{
	struct gb_bench_result *b = &mg->out->benches[m->bench];
	struct gb_metric *c = gb_bench_add_value(b, s->name, s->unit, s->better, dev, s->value,
						 s->peak);

	c->stats = s->stats;
	if (isfinite(s->efficiency))
		c->efficiency = s->efficiency;
	if (s->n_samples) {
		c->samples = gb_xrealloc(NULL, sizeof(double) * s->n_samples);
		memcpy(c->samples, s->samples, sizeof(double) * s->n_samples);
		c->n_samples = s->n_samples;
	}
	c->description = s->device >= 0 ? gb_strdupf("host '%s', GPU %d", host, s->device)
					 : gb_strdupf("host '%s'", host);
	m->hosts = gb_xrealloc(m->hosts, sizeof(*m->hosts) * (m->n_hosts + 1));
	m->node_devs = gb_xrealloc(m->node_devs, sizeof(*m->node_devs) * (m->n_hosts + 1));
	m->node_devs[m->n_hosts] = s->device;
	m->hosts[m->n_hosts++] = host;
}

static void copy_bench(struct merge *mg, const struct gb_bench_result *src,
		       const struct gb_run *in, int offset, const char *host)
{
	bool created;
	struct merged *m = find_merged(mg, src, host, &created);
	struct gb_bench_result *b = &mg->out->benches[m->bench];

	if (!created)
		merge_status(b, src, host);
	for (size_t i = 0; i < src->n_devices; i++)
		gb_bench_add_device(b, remap(in, offset, src->devices[i]));
	for (size_t i = 0; i < src->n_metrics; i++)
		copy_metric(mg, m, &src->metrics[i], remap(in, offset, src->metrics[i].device),
			    host);
	for (size_t i = 0; i < src->n_series; i++) {
		const struct gb_series *s = &src->series[i];
		struct gb_series *c = gb_bench_add_series(b, s->name, s->x_unit, s->y_unit,
							  remap(in, offset, s->device));

		for (size_t k = 0; k < s->n; k++)
			gb_series_push(c, s->x[k], s->y[k]);
	}
	for (size_t i = 0; i < src->n_checks; i++) {
		const struct gb_check *c = &src->checks[i];
		struct gb_check *copy;

		copy = gb_bench_add_check(b, c->name, c->status, c->severity,
					  remap(in, offset, c->device), c->observed, c->threshold,
					  "%s: %s", host, c->message ? c->message : "");
		gb_check_set_xids(copy, c->xids, c->n_xids);
	}
}

static cJSON *node_json(const struct gb_run *in, const char *name, int offset)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *devs = cJSON_AddArrayToObject(o, "devices");

	cJSON_AddStringToObject(o, "host", host_of(in, name));
	cJSON_AddStringToObject(o, "file", name);
	if (in->started_at)
		cJSON_AddStringToObject(o, "started_at", in->started_at);
	cJSON_AddStringToObject(o, "verdict", gb_status_name(in->verdict));
	cJSON_AddStringToObject(o, "status", gb_status_name(in->status));
	if (in->reason)
		cJSON_AddStringToObject(o, "reason", in->reason);
	else
		cJSON_AddNullToObject(o, "reason");
	for (size_t i = 0; i < in->n_devices; i++)
		cJSON_AddItemToArray(devs, cJSON_CreateNumber(offset + (int)i));
	return o;
}

static void copy_node(struct merge *mg, const struct gb_run *in, const char *name, int offset,
		      cJSON *nodes)
{
	struct gb_run *out = mg->out;
	const char *host = host_of(in, name);

	for (size_t i = 0; i < in->n_devices; i++)
		copy_device(out, &in->devices[i], offset + (int)i);
	for (size_t i = 0; i < in->n_benches; i++)
		copy_bench(mg, &in->benches[i], in, offset, host);
	for (size_t i = 0; i < in->n_telemetry; i++) {
		struct gb_telemetry_sample t = in->telemetry[i];

		t.device = remap(in, offset, t.device);
		gb_run_add_telemetry(out, &t);
	}
	cJSON_AddItemToArray(nodes, node_json(in, name, offset));
	if (in->started_at && (!out->started_at || strcmp(in->started_at, out->started_at) < 0)) {
		free(out->started_at);
		out->started_at = gb_strdup(in->started_at);
	}
	if (in->finished_at &&
	    (!out->finished_at || strcmp(in->finished_at, out->finished_at) > 0)) {
		free(out->finished_at);
		out->finished_at = gb_strdup(in->finished_at);
	}
}

static bool could_not_finish(enum gb_status s)
{
	return s == GB_STATUS_ERROR || s == GB_STATUS_NOT_BUILT || s == GB_STATUS_INTERRUPTED;
}

/*
 * A node that could not finish has no benchmark saying so (no GPU: none at
 * all), so without this the fleet would pass without it: a check names it,
 * and the fleet benchmark takes the worst such status.
 */
static void note_node_status(struct gb_bench_result *fleet, const struct gb_run *in,
			     const char *name)
{
	const char *host = host_of(in, name);
	const char *why = in->reason ? in->reason : gb_status_name(in->status);

	if (!could_not_finish(in->status))
		return;
	gb_bench_add_check(fleet, "node_status", in->status, GB_SEV_ERROR, -1, NAN, NAN,
			   "%s: %s", host, why);
	if (status_rank(in->status) <= status_rank(fleet->status))
		return;
	fleet->status = in->status;
	free(fleet->reason);
	fleet->reason = gb_strdupf("%s: %s", host, why);
}

/* ---- outliers ---- */

static const char *model_of(const struct gb_run *run, const struct gb_metric *m)
{
	const char *name = gb_fmt_device_name(run, m->device);

	if (m->device < 0)
		return "node";
	return name ? name : "unknown GPU";
}

static bool in_group(const struct gb_run *run, const struct gb_metric *x,
		     const struct gb_metric *y)
{
	return isfinite(y->value) && !strcmp(x->name, y->name) &&
	       (x->device < 0) == (y->device < 0) && !strcmp(model_of(run, x), model_of(run, y));
}

/*
 * where the value is: "'node-3' GPU 6 (GPU 2 on that node, NVIDIA H100 80GB
 * HBM3)". The fleet's index alone would send whoever reads it on node-3 to
 * the wrong GPU (or to one it does not have): the node's own index goes too.
 */
static char *where(const struct gb_run *run, const struct gb_metric *m, const char *host,
		   int node_dev)
{
	if (m->device < 0)
		return gb_strdupf("'%s'", host);
	return gb_strdupf("'%s' GPU %d (GPU %d on that node, %s)", host, m->device, node_dev,
			  model_of(run, m));
}

/* 1 / Phi^-1(3/4): the MAD of normal noise times this is its standard deviation */
#define GB_FLEET_MAD_SIGMA 1.4826

/* Below the median is bad for higher-is-better, above for lower-is-better. */
static bool bad_side(const struct gb_metric *m, double median)
{
	return (m->better == GB_BETTER_HIGHER && m->value < median) ||
	       (m->better == GB_BETTER_LOWER && m->value > median);
}

struct group_stats {
	size_t n;
	double median, mad, spread, k;
	size_t outliers;
};

static void outlier_check(const struct gb_run *run, struct gb_bench_result *b,
			  const struct merged *mm, size_t j, const struct group_stats *g)
{
	const struct gb_metric m = b->metrics[j];
	double dist = fabs(m.value - g->median) / g->spread;
	double bound = m.value < g->median ? g->median - g->k * g->spread
					   : g->median + g->k * g->spread;
	char name[160], val[48], med[48];
	char *at = where(run, &m, mm->hosts[j], mm->node_devs[j]);
	/*
	 * Only a measured value (with samples, so a spread of its own) fails a
	 * node: a derived one (a fit's alpha or n_half, a count) moves by several
	 * percent with no fault behind it, and is a warning to look at.
	 */
	bool bad = bad_side(&m, g->median) && m.stats.n > 0;

	snprintf(name, sizeof(name), "%s_fleet_outlier", m.name);
	gb_fmt_human(val, sizeof(val), m.value);
	gb_fmt_human(med, sizeof(med), g->median);
	gb_bench_add_check(b, name, bad ? GB_STATUS_FAILED : GB_STATUS_WARNING,
			   bad ? GB_SEV_ERROR : GB_SEV_WARNING, m.device, m.value, bound,
			   "%s on %s is %s %s, %.1f MADs %s the fleet median %s (more than %g)",
			   m.name, at, val, m.unit ? m.unit : "", dist,
			   m.value < g->median ? "below" : "above", med, g->k);
	free(at);
}

static void group_summary(struct gb_bench_result *b, const struct gb_metric *first,
			  const char *model, const struct group_stats *g)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(gb_bench_extra(b), "fleet");
	cJSON *o = cJSON_CreateObject();
	char name[160], med[48];

	if (!arr)
		arr = cJSON_AddArrayToObject(b->extra, "fleet");
	cJSON_AddStringToObject(o, "metric", first->name);
	cJSON_AddStringToObject(o, "model", model);
	cJSON_AddNumberToObject(o, "n", (double)g->n);
	cJSON_AddNumberToObject(o, "median", g->median);
	cJSON_AddNumberToObject(o, "mad", g->mad);
	cJSON_AddNumberToObject(o, "outliers", (double)g->outliers);
	cJSON_AddItemToArray(arr, o);
	if (g->outliers)
		return;
	snprintf(name, sizeof(name), "%s_fleet", first->name);
	gb_fmt_human(med, sizeof(med), g->median);
	gb_bench_add_check(b, name, GB_STATUS_PASSED, GB_SEV_ERROR, -1, NAN, g->k,
			   "%s (%s): all %zu values within %g MADs of the fleet median %s",
			   first->name, model, g->n, g->k, med);
}

static void check_group(const struct gb_run *run, struct gb_bench_result *b,
			const struct merged *mm, size_t j, double k)
{
	const struct gb_metric first = b->metrics[j];
	size_t n_metrics = b->n_metrics, n = 0;
	double *v = gb_xrealloc(NULL, sizeof(double) * n_metrics);
	struct group_stats g = { 0, 0, 0, 0, k, 0 };

	for (size_t i = j; i < n_metrics; i++)
		if (in_group(run, &first, &b->metrics[i]))
			v[n++] = b->metrics[i].value;
	g.n = n;
	if (n >= 3) {
		g.median = gb_percentile(v, n, 50);
		g.mad = gb_mad(v, n);
		/* the MAD scaled to a standard deviation (normal noise): k of them is k sigma */
		g.spread = fmax(GB_FLEET_MAD_SIGMA * g.mad, fmax(0.01 * fabs(g.median), 1e-12));
		for (size_t i = j; i < n_metrics; i++) {
			if (!in_group(run, &first, &b->metrics[i]) ||
			    fabs(b->metrics[i].value - g.median) <= k * g.spread)
				continue;
			g.outliers++;
			outlier_check(run, b, mm, i, &g);
		}
		group_summary(b, &first, model_of(run, &first), &g);
	}
	free(v);
}

static bool group_seen(const struct gb_run *run, const struct gb_bench_result *b, size_t j)
{
	for (size_t i = 0; i < j; i++)
		if (isfinite(b->metrics[i].value) && in_group(run, &b->metrics[i], &b->metrics[j]))
			return true;
	return false;
}

static void find_outliers(struct gb_run *out, const struct merged *mm, double k)
{
	struct gb_bench_result *b = &out->benches[mm->bench];
	size_t n_metrics = b->n_metrics;

	for (size_t j = 0; j < n_metrics; j++)
		if (isfinite(b->metrics[j].value) && !group_seen(out, b, j))
			check_group(out, b, mm, j, k);
}

/* ---- the same node twice ---- */

static bool has_uuid(const struct gb_run *run, const char *uuid)
{
	for (size_t i = 0; i < run->n_devices; i++)
		if (run->devices[i].uuid && !strcmp(run->devices[i].uuid, uuid))
			return true;
	return false;
}

/* same hostname and the same GPUs (by UUID; none counts as the same) */
static bool same_node(const struct gb_run *x, const struct gb_run *y)
{
	if (!x->host.hostname || !y->host.hostname || strcmp(x->host.hostname, y->host.hostname) ||
	    x->n_devices != y->n_devices)
		return false;
	for (size_t i = 0; i < x->n_devices; i++)
		if (!x->devices[i].uuid || !has_uuid(y, x->devices[i].uuid))
			return false;
	return true;
}

/* the first UUID of x that y has too, NULL if none */
static const char *shared_uuid(const struct gb_run *x, const struct gb_run *y)
{
	for (size_t i = 0; i < x->n_devices; i++)
		if (x->devices[i].uuid && x->devices[i].uuid[0] && has_uuid(y, x->devices[i].uuid))
			return x->devices[i].uuid;
	return NULL;
}

/*
 * Why report j repeats a node already merged (an earlier report i that
 * kept[i]), as a message; NULL when it does not.
 */
static char *duplicate_of(const struct gb_run *const *runs, const char *const *names,
			  const bool *kept, size_t j)
{
	for (size_t i = 0; i < j; i++) {
		const char *uuid;

		if (!kept[i])
			continue;
		uuid = shared_uuid(runs[j], runs[i]);
		if (uuid)
			return gb_str_printable(gb_strdupf(
				"'%s' holds GPU %s, as '%s' does: the same node merged twice would "
				"count twice toward every fleet median, so '%s' is left out",
				names[j], uuid, names[i], names[j]));
		if (same_node(runs[j], runs[i]))
			return gb_str_printable(gb_strdupf(
				"'%s' is the same node as '%s' ('%s', same GPUs), so it is left out",
				names[j], names[i], runs[i]->host.hostname));
	}
	return NULL;
}

/*
 * A GPU (by UUID) that failed in another report given to the merge too, the
 * same node's earlier run left out above included, gets its actions one step
 * up (report/fault_action.h). Each fleet GPU is judged against the start of
 * the report it came from, so a report given twice is no recurrence.
 */
static void escalate_repeats(struct gb_run *out, const struct gb_run *const *runs, size_t n)
{
	const char **self_of = gb_xrealloc(NULL, sizeof(char *) * (out->n_devices + 1));

	for (size_t d = 0; d < out->n_devices; d++) {
		self_of[d] = NULL;
		for (size_t i = 0; i < n && !self_of[d]; i++)
			for (size_t p = 0; p < runs[i]->n_devices && !self_of[d]; p++)
				if (out->devices[d].uuid && runs[i]->devices[p].uuid &&
				    !strcmp(out->devices[d].uuid, runs[i]->devices[p].uuid))
					self_of[d] = runs[i]->started_at;
	}
	gb_fault_actions_escalate_fleet(out, self_of, runs, n);
	free(self_of);
}

void gb_fleet_run_init(struct gb_run *out, int argc, const char *const *argv)
{
	const char **full = gb_xrealloc(NULL, sizeof(char *) * (size_t)(argc + 1));

	full[0] = "gpubench";
	for (int i = 0; i < argc; i++)
		full[i + 1] = argv[i];
	gb_run_init(out, "fleet", argc + 1, full);
	free(full);
}

int gb_fleet_merge(const struct gb_run *const *runs, const char *const *names, size_t n,
		   double mad_k, struct gb_run *out, char *err, size_t errlen)
{
	struct merge mg = { out, NULL, 0 };
	struct gb_bench_result *fleet;
	cJSON *nodes;
	int offset = 0;

	bool *kept;
	char **dup;
	size_t n_kept = 0;

	if (n == 0) {
		snprintf(err, errlen, "no reports to merge");
		return -1;
	}
	/* simulated numbers are not measurements: they never set a fleet median for real ones */
	for (size_t j = 1; j < n; j++) {
		if (runs[j]->host.simulated != runs[0]->host.simulated) {
			size_t s = runs[0]->host.simulated ? 0 : j;

			snprintf(err, errlen,
				 "cannot merge a simulated report with measured ones: '%s' is "
				 "simulated, '%s' is measured",
				 names[s], names[s == 0 ? j : 0]);
			return -1;
		}
	}
	out->host.simulated = runs[0]->host.simulated;
	out->host.simulated_machine = gb_strdup(runs[0]->host.simulated_machine);
	kept = gb_xrealloc(NULL, sizeof(*kept) * n);
	dup = gb_xrealloc(NULL, sizeof(*dup) * n);
	for (size_t j = 0; j < n; j++) {
		dup[j] = duplicate_of(runs, names, kept, j);
		kept[j] = dup[j] == NULL;
		n_kept += kept[j];
	}
	copy_tool(&out->tool, &runs[0]->tool);
	free(out->started_at);
	out->started_at = NULL;
	out->host.hostname = gb_strdupf("fleet of %zu node%s", n_kept, n_kept == 1 ? "" : "s");
	fleet = gb_run_add_bench(out, "fleet");
	gb_bench_param_num(fleet, "nodes", (double)n_kept);
	gb_bench_param_num(fleet, "mad_k", mad_k);
	nodes = cJSON_AddArrayToObject(gb_bench_extra(fleet), "nodes");
	for (size_t i = 0; i < n; i++) {
		if (dup[i]) {
			gb_bench_add_check(fleet, "duplicate_node", GB_STATUS_WARNING, GB_SEV_WARNING,
					   -1, NAN, NAN, "%s", dup[i]);
			free(dup[i]);
			continue;
		}
		copy_node(&mg, runs[i], names[i], offset, nodes);
		note_node_status(fleet, runs[i], names[i]);
		offset += (int)runs[i]->n_devices;
	}
	free(kept);
	free(dup);
	escalate_repeats(out, runs, n);
	for (size_t i = 0; i < mg.n_m; i++) {
		find_outliers(out, &mg.m[i], mad_k);
		free(mg.m[i].key);
		free(mg.m[i].hosts);
		free(mg.m[i].node_devs);
	}
	free(mg.m);
	return 0;
}

void gb_fleet_missing_node(struct gb_run *node, int rank, const char *host, double waited_s,
			   const char *why)
{
	char *reason;

	gb_run_init(node, "run", 0, NULL);
	/* it never ran here: no times of its own (gb_run_init's "now" would be invented) */
	free(node->started_at);
	free(node->finished_at);
	node->started_at = node->finished_at = NULL;
	node->host.hostname = gb_strdup(host && *host ? host : "unknown");
	/* the stand-in comes from this process: simulated exactly when the fleet is */
	gb_host_simulation(&node->host);
	if (why)
		reason = gb_strdupf("rank %d on host '%s': %s", rank, node->host.hostname, why);
	else
		reason = gb_strdupf("rank %d on host '%s': its report did not arrive within %g s "
				    "(the rank stopped, hangs or is still running)",
				    rank, node->host.hostname, waited_s);
	gb_run_set_status(node, GB_STATUS_ERROR, gb_str_printable(reason));
	free(reason);
	gb_run_verdict(node);
}

int gb_fleet_node_report_path(char *buf, size_t len, const char *output, const char *host)
{
	size_t stem = strlen(output), used;
	int n;

	if (stem >= 5 && !strcmp(output + stem - 5, ".json"))
		stem -= 5;
	n = snprintf(buf, len, "%.*s.", (int)stem, output);
	if (n < 0 || (size_t)n >= len)
		return -1;
	used = (size_t)n;
	for (const char *h = host && *host ? host : "unknown"; *h; h++) {
		char c = *h;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';

		if (used + 1 >= len)
			return -1;
		buf[used++] = ok ? c : '_';
	}
	n = snprintf(buf + used, len - used, ".json");
	return n < 0 || (size_t)n >= len - used ? -1 : 0;
}

/* ---- the nodes of a fleet report, for the renderings ---- */

static const cJSON *nodes_json(const struct gb_run *run)
{
	if (!run->command || strcmp(run->command, "fleet"))
		return NULL;
	for (size_t i = 0; i < run->n_benches; i++) {
		const cJSON *nodes;

		if (strcmp(run->benches[i].name, "fleet") || !run->benches[i].extra)
			continue;
		nodes = cJSON_GetObjectItemCaseSensitive(run->benches[i].extra, "nodes");
		if (cJSON_IsArray(nodes))
			return nodes;
	}
	return NULL;
}

static const char *str_item(const cJSON *o, const char *key, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) && v->valuestring ? v->valuestring : dflt;
}

static bool node_has(const struct gb_fleet_node *nd, int device)
{
	for (size_t i = 0; i < nd->n_devices; i++)
		if (nd->devices[i] == device)
			return true;
	return false;
}

/* a check of no GPU that names the node: "node-3: ..." or "... on 'node-3' ..." */
static bool names_node(const struct gb_check *c, const char *host)
{
	size_t len = strlen(host);
	char *quoted;
	bool hit;

	if (!c->message || !len)
		return false;
	if (!strncmp(c->message, host, len) && c->message[len] == ':')
		return true;
	quoted = gb_strdupf("'%s'", host);
	hit = strstr(c->message, quoted) != NULL;
	free(quoted);
	return hit;
}

static void count_checks(const struct gb_run *run, struct gb_fleet_node *nd)
{
	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		for (size_t j = 0; j < b->n_checks; j++) {
			const struct gb_check *c = &b->checks[j];
			bool mine = c->device >= 0 ? node_has(nd, c->device) : names_node(c, nd->host);

			if (!mine)
				continue;
			nd->failed += c->status == GB_STATUS_FAILED;
			nd->warnings += c->status == GB_STATUS_WARNING;
		}
	}
}

struct gb_fleet_node *gb_fleet_nodes(const struct gb_run *run, size_t *n)
{
	const cJSON *nodes = nodes_json(run), *e;
	struct gb_fleet_node *out = NULL;
	size_t k = 0;

	*n = 0;
	if (!nodes)
		return NULL;
	out = gb_xrealloc(NULL, sizeof(*out) * ((size_t)cJSON_GetArraySize(nodes) + 1));
	cJSON_ArrayForEach(e, nodes) {
		struct gb_fleet_node *nd = &out[k++];
		const cJSON *devs = cJSON_GetObjectItemCaseSensitive(e, "devices"), *d;

		memset(nd, 0, sizeof(*nd));
		nd->host = str_item(e, "host", "?");
		nd->file = str_item(e, "file", "-");
		nd->verdict = str_item(e, "verdict", "-");
		if (cJSON_IsArray(devs)) {
			nd->devices = gb_xrealloc(NULL,
						  sizeof(int) * ((size_t)cJSON_GetArraySize(devs) + 1));
			cJSON_ArrayForEach(d, devs)
				if (cJSON_IsNumber(d) && d->valuedouble >= 0 && d->valuedouble < 1e6)
					nd->devices[nd->n_devices++] = (int)d->valuedouble;
		}
		count_checks(run, nd);
	}
	*n = k;
	return out;
}

void gb_fleet_nodes_free(struct gb_fleet_node *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(nodes[i].devices);
	free(nodes);
}

const char *gb_fleet_node_of(const struct gb_fleet_node *nodes, size_t n, int device)
{
	for (size_t i = 0; i < n && device >= 0; i++)
		if (node_has(&nodes[i], device))
			return nodes[i].host;
	return NULL;
}

void gb_fleet_device_list(char *buf, size_t len, const int *devices, size_t n)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	if (!n) {
		snprintf(buf, len, "-");
		return;
	}
	for (size_t i = 0; i < n && used < len;) {
		size_t j = i;
		int w;

		while (j + 1 < n && devices[j + 1] == devices[j] + 1)
			j++;
		if (j > i)
			w = snprintf(buf + used, len - used, "%s%d-%d", i ? "," : "", devices[i],
				     devices[j]);
		else
			w = snprintf(buf + used, len - used, "%s%d", i ? "," : "", devices[i]);
		if (w < 0)
			break;
		used += (size_t)w;
		i = j + 1;
	}
}
