/* SPDX-License-Identifier: MIT */
/*
 * load.c - a JSON report back into the result model: the inverse of json.c,
 * for compare and report, which read files gpubench (or another producer of
 * the schema) wrote, possibly on another machine, possibly edited by hand.
 *
 * A report is input, not trusted state: every field is type-checked, and the
 * first bad one is named by its path ("benchmarks[2].metrics[0].value must be
 * a number or null") instead of being guessed at. Absent optional fields and
 * sections read as unknown (NAN, -1, NULL), the writer's own conventions;
 * keys this build does not know are ignored, so a newer minor producer of
 * schema 1 still loads. Depth is fixed by the layout (the parser itself caps
 * nesting, which bounds the copies of params and extra), and the file size is
 * capped so a wrong file cannot exhaust memory. The typed field readers
 * that name the path of a bad field are in load_get.c.
 */
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fault_action.h"
#include "published.h"
#include "theory.h"
#include "report/load_internal.h"

#define REPORT_MAX_BYTES ((size_t)256 << 20)
#define SCHEMA_PREFIX "gpubench.report/"
#define SCHEMA_VERSION 1

/* the peaks arrays in struct gb_peaks are sized for every precision */
_Static_assert(GB_PREC_COUNT <= 16, "struct gb_peaks arrays are too small for GB_PREC_COUNT");

/* ---- sections ---- */

static int load_tool(struct ld *ld, const cJSON *doc, struct gb_tool_info *t)
{
	const cJSON *o, *bw;

	if (get_obj(ld, doc, "", "tool", &o) || get_str(ld, o, "tool", "version", &t->version) ||
	    get_str(ld, o, "tool", "git", &t->git) ||
	    get_obj(ld, o, "tool", "built_with", &bw) ||
	    get_int(ld, bw, "tool.built_with", "cuda", &t->built_cuda) ||
	    get_int(ld, bw, "tool.built_with", "cublas", &t->built_cublas) ||
	    get_int(ld, bw, "tool.built_with", "nccl", &t->built_nccl) ||
	    get_str(ld, bw, "tool.built_with", "mpi", &t->built_mpi) ||
	    get_str(ld, bw, "tool.built_with", "cuda_archs", &t->cuda_archs))
		return -1;
	return 0;
}

static int load_run(struct ld *ld, const cJSON *doc, struct gb_run *run)
{
	const cJSON *o;
	size_t argc = (size_t)run->argc;

	if (get_obj(ld, doc, "", "run", &o) || get_str(ld, o, "run", "command", &run->command) ||
	    get_str_array(ld, o, "run", "command_line", &run->argv, &argc))
		return -1;
	run->argc = (int)argc; /* fits: each entry takes bytes of a file capped at 256 MiB */
	if (!run->argv) /* gb_run_release expects an argv even when argc is 0 */
		run->argv = gb_xrealloc(NULL, sizeof(char *));
	if (get_str(ld, o, "run", "started_at", &run->started_at) ||
	    get_str(ld, o, "run", "finished_at", &run->finished_at) ||
	    get_str(ld, o, "run", "reason", &run->reason) ||
	    get_int(ld, o, "run", "exit_code", &run->exit_code))
		return -1;
	/* the writer copies host.hostname here; it is read from host, falling back to this */
	if (get_str(ld, o, "run", "hostname", &run->host.hostname))
		return -1;
	if (o && !absent(child(o, "status")))
		return get_status(ld, o, "run", "status", &run->status);
	return 0;
}

static int load_host(struct ld *ld, const cJSON *doc, struct gb_host_info *h)
{
	const cJSON *o;
	int simulated = -1;

	if (get_obj(ld, doc, "", "host", &o))
		return -1;
	if (!o)
		return 0;
	if (!absent(child(o, "hostname")) && get_str(ld, o, "host", "hostname", &h->hostname))
		return -1;
	if (get_str(ld, o, "host", "os", &h->os) || get_str(ld, o, "host", "kernel", &h->kernel) ||
	    get_str(ld, o, "host", "cpu", &h->cpu) ||
	    get_str(ld, o, "host", "driver_version", &h->driver_version) ||
	    get_int(ld, o, "host", "cuda_driver_version", &h->cuda_driver_version) ||
	    get_int(ld, o, "host", "cuda_runtime_version", &h->cuda_runtime_version) ||
	    get_int(ld, o, "host", "cublaslt_version", &h->cublaslt_version) ||
	    get_int(ld, o, "host", "nccl_version", &h->nccl_version))
		return -1;
	/* absent in reports older than the simulator: measured */
	if (get_tristate(ld, o, "host", "simulated", &simulated) ||
	    get_str(ld, o, "host", "simulated_machine", &h->simulated_machine))
		return -1;
	h->simulated = simulated == 1;
	/* printed as part of one line: a hand-edited label cannot forge a second */
	gb_str_printable(h->simulated_machine);
	return 0;
}

static int load_env(struct ld *ld, const cJSON *doc, struct gb_run *run)
{
	const cJSON *o, *e;
	size_t n = 0, i = 0;

	if (get_obj(ld, doc, "", "environment", &o))
		return -1;
	if (!o)
		return 0;
	cJSON_ArrayForEach(e, o) {
		if (!cJSON_IsString(e) && !cJSON_IsNull(e))
			return fail(ld, "environment", e->string ? e->string : "",
				    "must be a string or null");
		n++;
	}
	run->env = alloc_array(n, sizeof(*run->env));
	run->n_env = n;
	cJSON_ArrayForEach(e, o) {
		run->env[i].key = gb_strdup(e->string ? e->string : "");
		run->env[i].value = cJSON_IsString(e) ? gb_strdup(e->valuestring) : NULL;
		i++;
	}
	return 0;
}

/* {"fp64": 9.7, ...} TFLOPS -> FLOP/s by precision; unknown keys ignored */
static int load_tflops(struct ld *ld, const cJSON *peaks, const char *path, const char *key,
		       double *flops)
{
	const cJSON *o;
	char sub[256];

	if (get_obj(ld, peaks, path, key, &o))
		return -1;
	snprintf(sub, sizeof(sub), "%s.%s", path, key);
	for (int p = 0; p < GB_PREC_COUNT; p++) {
		if (get_num(ld, o, sub, gb_precision_name((enum gb_precision)p), &flops[p]))
			return -1;
		flops[p] *= 1e12; /* NAN stays NAN */
	}
	return 0;
}

/* GB/s -> bytes/s */
static int get_gbps(struct ld *ld, const cJSON *obj, const char *path, const char *key, double *bps)
{
	if (get_num(ld, obj, path, key, bps))
		return -1;
	*bps *= 1e9;
	return 0;
}

static int load_peaks(struct ld *ld, const cJSON *dev, const char *path, struct gb_peaks *pk)
{
	const cJSON *o;
	char sub[256];

	if (get_obj(ld, dev, path, "peaks", &o))
		return -1;
	snprintf(sub, sizeof(sub), "%s.peaks", path);
	if (load_tflops(ld, o, sub, "tflops_spec", pk->spec) ||
	    load_tflops(ld, o, sub, "tflops_max_clock", pk->max_clock) ||
	    get_gbps(ld, o, sub, "memory_bw_gbps_spec", &pk->mem_bw_bps_spec) ||
	    get_gbps(ld, o, sub, "memory_bw_gbps", &pk->mem_bw_bps) ||
	    get_gbps(ld, o, sub, "pcie_gbps_per_direction", &pk->pcie_bps) ||
	    get_gbps(ld, o, sub, "pcie_gbps_per_direction_current", &pk->pcie_bps_current) ||
	    get_gbps(ld, o, sub, "nvlink_gbps_per_direction", &pk->nvlink_bps))
		return -1;
	return 0;
}

/* "9.0" -> 9, 0; null -> -1, -1 */
static int get_cc(struct ld *ld, const cJSON *o, const char *path, struct gb_device_info *d)
{
	const cJSON *v = child(o, "cc");
	int major, minor, end = 0;

	d->cc_major = d->cc_minor = -1;
	if (absent(v))
		return 0;
	/* the first-character test keeps sscanf from accepting " 9.0" or "+9.0" */
	if (!cJSON_IsString(v) || v->valuestring[0] < '0' || v->valuestring[0] > '9' ||
	    sscanf(v->valuestring, "%3d.%3d%n", &major, &minor, &end) != 2 ||
	    v->valuestring[end] != '\0' || minor < 0)
		return fail(ld, path, "cc", "must be a string \"major.minor\" or null");
	d->cc_major = major;
	d->cc_minor = minor;
	return 0;
}

static int load_device(struct ld *ld, const cJSON *o, const char *path, struct gb_device_info *d)
{
	const cJSON *clocks, *pcie, *nvlink;
	char sub[256];

	gb_device_info_init(d);
	if (!cJSON_IsObject(o))
		return fail(ld, path, "", "must be an object");
	if (get_int(ld, o, path, "index", &d->index) || get_str(ld, o, path, "name", &d->name) ||
	    get_str(ld, o, path, "uuid", &d->uuid) ||
	    get_str(ld, o, path, "pci_bus_id", &d->pci_bus_id) ||
	    get_str(ld, o, path, "brand", &d->brand) ||
	    get_str(ld, o, path, "spec_key", &d->spec_key) || get_cc(ld, o, path, d) ||
	    get_int(ld, o, path, "sm_count", &d->sm_count) ||
	    get_num(ld, o, path, "memory_bytes", &d->memory_bytes) ||
	    get_num(ld, o, path, "l2_bytes", &d->l2_bytes) ||
	    get_int(ld, o, path, "memory_bus_bits", &d->mem_bus_bits) ||
	    get_num(ld, o, path, "power_limit_w", &d->power_limit_w) ||
	    get_tristate(ld, o, path, "ecc", &d->ecc) ||
	    get_int(ld, o, path, "numa_node", &d->numa_node))
		return -1;
	if (get_obj(ld, o, path, "clocks", &clocks) || get_obj(ld, o, path, "pcie", &pcie) ||
	    get_obj(ld, o, path, "nvlink", &nvlink))
		return -1;
	snprintf(sub, sizeof(sub), "%s.clocks", path);
	if (get_num(ld, clocks, sub, "max_sm_mhz", &d->max_sm_mhz) ||
	    get_num(ld, clocks, sub, "max_mem_mhz", &d->max_mem_mhz))
		return -1;
	snprintf(sub, sizeof(sub), "%s.pcie", path);
	if (get_int(ld, pcie, sub, "gen", &d->pcie_gen) ||
	    get_int(ld, pcie, sub, "width", &d->pcie_width) ||
	    get_int(ld, pcie, sub, "max_gen", &d->pcie_max_gen) ||
	    get_int(ld, pcie, sub, "max_width", &d->pcie_max_width) ||
	    get_int(ld, pcie, sub, "gpu_max_gen", &d->pcie_gpu_max_gen))
		return -1;
	snprintf(sub, sizeof(sub), "%s.nvlink", path);
	if (get_int(ld, nvlink, sub, "links_up", &d->nvlink_up) ||
	    get_int(ld, nvlink, sub, "gen", &d->nvlink_gen) ||
	    get_int(ld, nvlink, sub, "version_raw", &d->nvlink_version_raw) ||
	    get_power_source(ld, o, path, &d->power_source))
		return -1;
	return load_peaks(ld, o, path, &d->peaks);
}

static int load_devices(struct ld *ld, const cJSON *doc, struct gb_run *run)
{
	const cJSON *arr, *e;
	size_t n, i = 0;
	char path[64];

	if (get_arr(ld, doc, "", "devices", &arr, &n))
		return -1;
	run->devices = alloc_array(n, sizeof(*run->devices));
	run->n_devices = n;
	cJSON_ArrayForEach(e, arr) {
		snprintf(path, sizeof(path), "devices[%zu]", i);
		if (load_device(ld, e, path, &run->devices[i]))
			return -1;
		i++;
	}
	return 0;
}

static int load_topology(struct ld *ld, const cJSON *doc, struct gb_run *run)
{
	const cJSON *arr, *e;
	size_t n, i = 0;
	char path[64];

	if (get_arr(ld, doc, "", "topology", &arr, &n))
		return -1;
	run->links = alloc_array(n, sizeof(*run->links));
	run->n_links = n;
	cJSON_ArrayForEach(e, arr) {
		struct gb_link *l = &run->links[i];

		snprintf(path, sizeof(path), "topology[%zu]", i++);
		if (!cJSON_IsObject(e))
			return fail(ld, path, "", "must be an object");
		if (get_req_int(ld, e, path, "a", &l->a) || get_req_int(ld, e, path, "b", &l->b) ||
		    get_str(ld, e, path, "type", &l->type) ||
		    get_int(ld, e, path, "nvlink_count", &l->nvlink_count) ||
		    get_tristate(ld, e, path, "p2p_access", &l->p2p_access))
			return -1;
		/* gb_run_add_link never leaves a link untyped */
		if (!l->type)
			l->type = gb_strdup("unknown");
	}
	return 0;
}

/* stats object, or null when the metric has no samples (stats.n == 0) */
static int load_stats(struct ld *ld, const cJSON *m, const char *path, struct gb_stats *st)
{
	const cJSON *o;
	char sub[256];

	memset(st, 0, sizeof(*st));
	if (get_obj(ld, m, path, "stats", &o))
		return -1;
	if (!o)
		return 0;
	snprintf(sub, sizeof(sub), "%s.stats", path);
	if (get_count(ld, o, sub, "n", &st->n) || get_num(ld, o, sub, "min", &st->min) ||
	    get_num(ld, o, sub, "p05", &st->p05) || get_num(ld, o, sub, "median", &st->median) ||
	    get_num(ld, o, sub, "mean", &st->mean) || get_num(ld, o, sub, "p95", &st->p95) ||
	    get_num(ld, o, sub, "p99", &st->p99) || get_num(ld, o, sub, "max", &st->max) ||
	    get_num(ld, o, sub, "stdev", &st->stdev) || get_num(ld, o, sub, "cv", &st->cv))
		return -1;
	return 0;
}

static int load_metric(struct ld *ld, const cJSON *o, const char *path, struct gb_metric *m)
{
	int better = 0;

	m->value = m->peak = m->efficiency = NAN;
	m->device = -1;
	if (!cJSON_IsObject(o))
		return fail(ld, path, "", "must be an object");
	if (get_req_str(ld, o, path, "name", &m->name) || get_str(ld, o, path, "unit", &m->unit) ||
	    get_int(ld, o, path, "device", &m->device) ||
	    get_num(ld, o, path, "value", &m->value) || get_num(ld, o, path, "peak", &m->peak) ||
	    get_num(ld, o, path, "efficiency", &m->efficiency) ||
	    load_stats(ld, o, path, &m->stats) ||
	    get_num_array(ld, o, path, "samples", &m->samples, &m->n_samples) ||
	    get_str(ld, o, path, "description", &m->description))
		return -1;
	/* "better" is optional for other producers: none is the neutral reading */
	if (!absent(child(o, "better"))) {
		if (get_enum(ld, o, path, "better", gb_better_from_name, "none, higher, lower",
			     &better))
			return -1;
		m->better = (enum gb_better)better;
	}
	return 0;
}

/*
 * A check's action (report/fault_action.h): the table's own row is derived
 * again after loading (gb_fault_actions_annotate); what the file adds is the
 * escalation, kept as the steps from "escalated_from" up to "do" and why.
 */
static int load_action(struct ld *ld, const cJSON *o, const char *path, struct gb_check *c)
{
	const cJSON *a = child(o, "action");
	char sub[300], *act = NULL, *from = NULL;
	int rc, to, base;

	if (absent(a))
		return 0;
	snprintf(sub, sizeof(sub), "%s.action", path);
	if (!cJSON_IsObject(a))
		return fail(ld, path, "action", "must be an object or null");
	rc = get_str(ld, a, sub, "do", &act) || get_str(ld, a, sub, "escalated_from", &from) ||
	     get_str(ld, a, sub, "because", &c->action_because);
	to = gb_action_from_name(act);
	base = gb_action_from_name(from);
	if (!rc && (to < 0 || (from && base < 0)))
		rc = fail(ld, sub, to < 0 ? "do" : "escalated_from",
			  "must be none, run_again, reset_gpu, reboot, drain_inspect or replace");
	if (!rc && from && to > base && c->action_because)
		c->action_steps = to - base;
	free(act);
	free(from);
	return rc;
}

static int load_check(struct ld *ld, const cJSON *o, const char *path, struct gb_check *c)
{
	int sev = 0;

	c->observed = c->threshold = NAN;
	c->device = -1;
	if (!cJSON_IsObject(o))
		return fail(ld, path, "", "must be an object");
	/* a check without a status must not read as passed: it is required */
	if (get_req_str(ld, o, path, "name", &c->name) ||
	    get_status(ld, o, path, "status", &c->status) ||
	    get_int(ld, o, path, "device", &c->device) ||
	    get_num(ld, o, path, "observed", &c->observed) ||
	    get_num(ld, o, path, "threshold", &c->threshold) ||
	    get_str(ld, o, path, "message", &c->message) ||
	    get_count_array(ld, o, path, "xids", &c->xids, &c->n_xids) ||
	    load_action(ld, o, path, c))
		return -1;
	if (!absent(child(o, "severity"))) {
		if (get_enum(ld, o, path, "severity", gb_severity_from_name,
			     "info, warning, error", &sev))
			return -1;
		c->severity = (enum gb_severity)sev;
	}
	return 0;
}

static int load_series(struct ld *ld, const cJSON *o, const char *path, struct gb_series *s)
{
	size_t ny;

	s->device = -1;
	if (!cJSON_IsObject(o))
		return fail(ld, path, "", "must be an object");
	if (get_req_str(ld, o, path, "name", &s->name) ||
	    get_str(ld, o, path, "x_unit", &s->x_unit) ||
	    get_str(ld, o, path, "y_unit", &s->y_unit) ||
	    get_int(ld, o, path, "device", &s->device) ||
	    get_num_array(ld, o, path, "x", &s->x, &s->n) ||
	    get_num_array(ld, o, path, "y", &s->y, &ny))
		return -1;
	s->cap = s->n;
	/* the model keeps one count for both: a mismatch has no meaning */
	if (ny != s->n)
		return fail(ld, path, "y", "must have as many entries as x");
	return 0;
}

/* The metrics, series or checks array of a benchmark. */
#define LOAD_LIST(ld, bench_obj, path, key, arr_field, n_field, cap_field, loader)            \
	do {                                                                                  \
		const cJSON *arr_, *e_;                                                       \
		size_t n_, i_ = 0;                                                            \
		char sub_[256];                                                               \
		if (get_arr(ld, bench_obj, path, key, &arr_, &n_))                            \
			return -1;                                                            \
		arr_field = alloc_array(n_, sizeof(*arr_field));                              \
		n_field = cap_field = n_;                                                     \
		cJSON_ArrayForEach(e_, arr_) {                                                \
			snprintf(sub_, sizeof(sub_), "%s.%s[%zu]", path, key, i_);            \
			if (loader(ld, e_, sub_, &arr_field[i_]))                             \
				return -1;                                                    \
			i_++;                                                                 \
		}                                                                             \
	} while (0)

static int load_bench(struct ld *ld, const cJSON *o, const char *path, struct gb_bench_result *b)
{
	const cJSON *v, *devs, *e;
	size_t i = 0, n;
	char sub[256];

	b->started_s = b->duration_s = NAN;
	if (!cJSON_IsObject(o))
		return fail(ld, path, "", "must be an object");
	/* a benchmark without a status must not read as passed: it is required */
	if (get_req_str(ld, o, path, "name", &b->name) ||
	    get_status(ld, o, path, "status", &b->status) ||
	    get_str(ld, o, path, "reason", &b->reason) ||
	    get_num(ld, o, path, "started_s", &b->started_s) ||
	    get_num(ld, o, path, "duration_s", &b->duration_s))
		return -1;

	/* params and extra are free-form: copied whole (the parser bounds their depth) */
	if (get_obj(ld, o, path, "params", &v))
		return -1;
	b->params = v ? cJSON_Duplicate(v, 1) : cJSON_CreateObject();
	if (get_obj(ld, o, path, "extra", &v))
		return -1;
	b->extra = v ? cJSON_Duplicate(v, 1) : NULL;
	if (!b->params || (v && !b->extra)) {
		fputs("gpubench: fatal: out of host memory\n", stderr);
		abort(); /* as gb_xrealloc: the model treats OOM as unrecoverable */
	}

	if (get_arr(ld, o, path, "devices", &devs, &n))
		return -1;
	b->devices = alloc_array(n, sizeof(int));
	b->n_devices = n;
	cJSON_ArrayForEach(e, devs) {
		if (!whole_in(e, INT_MIN, INT_MAX)) {
			snprintf(sub, sizeof(sub), "devices[%zu]", i);
			return fail(ld, path, sub, "must be an integer");
		}
		b->devices[i++] = (int)e->valuedouble;
	}

	LOAD_LIST(ld, o, path, "metrics", b->metrics, b->n_metrics, b->cap_metrics, load_metric);
	LOAD_LIST(ld, o, path, "series", b->series, b->n_series, b->cap_series, load_series);
	LOAD_LIST(ld, o, path, "checks", b->checks, b->n_checks, b->cap_checks, load_check);
	return 0;
}

static int load_benches(struct ld *ld, const cJSON *doc, struct gb_run *run)
{
	const cJSON *arr, *e;
	size_t n, i = 0;
	char path[64];

	if (get_arr(ld, doc, "", "benchmarks", &arr, &n))
		return -1;
	run->benches = alloc_array(n, sizeof(*run->benches));
	run->n_benches = run->cap_benches = n;
	cJSON_ArrayForEach(e, arr) {
		snprintf(path, sizeof(path), "benchmarks[%zu]", i);
		if (load_bench(ld, e, path, &run->benches[i]))
			return -1;
		i++;
	}
	return 0;
}

/* clock_event_mask: a whole number in [0, 2^64) */
static int get_mask(struct ld *ld, const cJSON *o, const char *path, struct gb_telemetry_sample *t)
{
	const cJSON *v = child(o, "clock_event_mask");

	t->clock_event_reasons = 0;
	t->have_reasons = false;
	if (absent(v))
		return 0;
	if (!whole_in(v, 0, 18446744073709549568.0)) /* largest double below 2^64 */
		return fail(ld, path, "clock_event_mask", "must be a non-negative integer or null");
	t->clock_event_reasons = (uint64_t)v->valuedouble;
	t->have_reasons = true;
	return 0;
}

static int load_telemetry(struct ld *ld, const cJSON *doc, struct gb_run *run)
{
	const cJSON *arr, *e, *names;
	size_t n, i = 0, n_names;
	char path[64];

	if (get_arr(ld, doc, "", "telemetry", &arr, &n))
		return -1;
	run->telemetry = alloc_array(n, sizeof(*run->telemetry));
	run->n_telemetry = run->cap_telemetry = n;
	cJSON_ArrayForEach(e, arr) {
		struct gb_telemetry_sample *t = &run->telemetry[i];

		snprintf(path, sizeof(path), "telemetry[%zu]", i++);
		if (!cJSON_IsObject(e))
			return fail(ld, path, "", "must be an object");
		if (get_int(ld, e, path, "device", &t->device) ||
		    get_num(ld, e, path, "t_s", &t->t_s) ||
		    get_num(ld, e, path, "temp_c", &t->temp_c) ||
		    get_num(ld, e, path, "power_w", &t->power_w) ||
		    get_num(ld, e, path, "sm_mhz", &t->sm_mhz) ||
		    get_num(ld, e, path, "mem_mhz", &t->mem_mhz) ||
		    get_num(ld, e, path, "util_pct", &t->util_pct) ||
		    get_num(ld, e, path, "mem_used_bytes", &t->mem_used_bytes) ||
		    get_num(ld, e, path, "tflops", &t->tflops) || get_mask(ld, e, path, t))
			return -1;
		/*
		 * The names are the mask spelled out for readers; the mask is what
		 * the model keeps. They are only type-checked here.
		 */
		if (get_arr(ld, e, path, "clock_event_reasons", &names, &n_names))
			return -1;
		for (const cJSON *s = names ? names->child : NULL; s; s = s->next)
			if (!cJSON_IsString(s))
				return fail(ld, path, "clock_event_reasons", "must hold strings");
	}
	return 0;
}

static int load_verdict(struct ld *ld, const cJSON *doc, struct gb_run *run)
{
	const cJSON *o;
	int exit_code;

	if (get_obj(ld, doc, "", "verdict", &o))
		return -1;
	if (!o) {
		/* a producer that leaves it out gets the verdict gpubench would give */
		gb_run_verdict(run);
		return 0;
	}
	if (get_status(ld, o, "verdict", "status", &run->verdict) ||
	    get_int(ld, o, "verdict", "exit_code", &exit_code) ||
	    get_str_array(ld, o, "verdict", "failed", &run->verdict_failed,
			  &run->n_verdict_failed) ||
	    get_str_array(ld, o, "verdict", "warnings", &run->verdict_warnings,
			  &run->n_verdict_warnings))
		return -1;
	/* the writer puts the same exit code in run and verdict; either may be missing */
	if (run->exit_code < 0)
		run->exit_code = exit_code;
	return 0;
}

/* "gpubench.report/<N>": 0 if N is one this build reads, else -1 with the reason. */
static int check_schema(struct ld *ld, const cJSON *doc)
{
	const cJSON *v = cJSON_IsObject(doc) ? child(doc, "schema") : NULL;
	const char *s, *num;
	size_t digits;

	if (!cJSON_IsString(v) || strncmp(v->valuestring, SCHEMA_PREFIX, strlen(SCHEMA_PREFIX)))
		return fail_doc(ld, "is not a gpubench report");
	s = v->valuestring;
	num = s + strlen(SCHEMA_PREFIX);
	digits = strspn(num, "0123456789");
	if (digits == 0 || num[digits] != '\0' || num[0] == '0')
		return fail_doc(ld, "has an unrecognised schema '%.64s'", s);
	/* more than 9 digits cannot be parsed into an int, and is newer anyway */
	if (digits > 9 || strtol(num, NULL, 10) > SCHEMA_VERSION)
		return fail_doc(ld, "uses schema %.64s, newer than this gpubench understands (%d)",
				s, SCHEMA_VERSION);
	return 0;
}

static int load_doc(struct ld *ld, const cJSON *doc, struct gb_run *run)
{
	gb_run_init(run, NULL, 0, NULL);
	/* the loaded report's values replace gb_run_init's "now" defaults */
	run->exit_code = -1;
	if (check_schema(ld, doc) || load_tool(ld, doc, &run->tool) || load_run(ld, doc, run) ||
	    load_host(ld, doc, &run->host) || load_env(ld, doc, run) ||
	    load_devices(ld, doc, run) || load_topology(ld, doc, run) ||
	    load_benches(ld, doc, run) || load_telemetry(ld, doc, run) ||
	    load_verdict(ld, doc, run)) {
		/* nothing half-loaded escapes: the caller may release again, harmlessly */
		gb_run_release(run);
		return -1;
	}
	if (run->exit_code < 0)
		run->exit_code = gb_exit_code_for_status(run->verdict);
	/* derived from the devices' models, as the writer derived it */
	gb_published_annotate(run);
	gb_fault_actions_annotate(run);
	return 0;
}

int gb_report_from_json(const cJSON *doc, struct gb_run *run, char *err, size_t errlen)
{
	struct ld ld = { .file = NULL, .err = err, .errlen = errlen };

	return load_doc(&ld, doc, run);
}

static void too_large(const char *path, char *err, size_t errlen)
{
	snprintf(err, errlen, "'%s' is too large for a gpubench report (over %zu MiB)", path,
		 REPORT_MAX_BYTES >> 20);
}

/*
 * Read the whole file (regular or not: a pipe or /dev/stdin works) into a
 * NUL-terminated buffer, refusing more than REPORT_MAX_BYTES.
 */
static char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t cap, n = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(S_ISDIR(st.st_mode) ? EISDIR : errno));
		close(fd);
		return NULL;
	}
	/* a regular file says its size: refuse a big one before reading any of it */
	if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > REPORT_MAX_BYTES) {
		too_large(path, err, errlen);
		close(fd);
		return NULL;
	}
	/* start at the file's size when it has one, so a normal report is one read */
	cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 65536;
	buf = gb_xrealloc(NULL, cap + 1);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			if (cap > REPORT_MAX_BYTES) {
				too_large(path, err, errlen);
				goto fail;
			}
			cap = cap * 2 > REPORT_MAX_BYTES + 1 ? REPORT_MAX_BYTES + 1 : cap * 2;
			buf = gb_xrealloc(buf, cap + 1);
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > REPORT_MAX_BYTES) {
		too_large(path, err, errlen);
		goto fail;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}

int gb_report_load_file(const char *path, struct gb_run *run, char *err, size_t errlen)
{
	struct ld ld = { .file = path, .err = err, .errlen = errlen };
	const char *end = NULL;
	size_t len;
	char *text, *nul;
	cJSON *doc;
	int rc;

	memset(run, 0, sizeof(*run)); /* releasable whatever happens below */
	text = read_file(path, &len, err, errlen);
	if (!text)
		return -1;
	/* cJSON stops at a NUL: text after one would be silently ignored */
	nul = memchr(text, '\0', len);
	/*
	 * len + 1 includes the terminator: with require_null_terminated, cJSON
	 * 1.7 wants to see the NUL inside the length it was given, and so
	 * rejects trailing garbage after the document.
	 */
	doc = nul ? NULL : cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
	if (!doc) {
		size_t at = len;

		if (nul)
			at = (size_t)(nul - text);
		else if (end && end >= text && end <= text + len)
			at = (size_t)(end - text);

		if (len == 0)
			snprintf(err, errlen, "'%s' is not JSON (it is empty)", path);
		else
			snprintf(err, errlen, "'%s' is not JSON (error near byte %zu)", path, at);
		free(text);
		return -1;
	}
	free(text);
	rc = load_doc(&ld, doc, run);
	cJSON_Delete(doc);
	return rc;
}
