/* SPDX-License-Identifier: MIT */
/*
 * result.c - building and freeing the result model (see result.h), and the
 * verdict: the one place that turns benchmark and check statuses into the
 * status of the whole run.
 */
#include "result.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "exitcodes.h"
#include "metric_directions.h"

static const char *const status_names[] = {
	[GB_STATUS_PASSED] = "passed",       [GB_STATUS_WARNING] = "warning",
	[GB_STATUS_FAILED] = "failed",       [GB_STATUS_SKIPPED] = "skipped",
	[GB_STATUS_ERROR] = "error",         [GB_STATUS_NOT_BUILT] = "not_built",
	[GB_STATUS_INTERRUPTED] = "interrupted",
};
static const char *const better_names[] = { "none", "higher", "lower" };
static const char *const severity_names[] = { "info", "warning", "error" };

static int index_of(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

#define NAMES_N(a) (sizeof(a) / sizeof((a)[0]))

const char *gb_status_name(enum gb_status s)
{
	return (size_t)s < NAMES_N(status_names) ? status_names[s] : "unknown";
}

int gb_status_from_name(const char *name)
{
	return index_of(status_names, NAMES_N(status_names), name);
}

const char *gb_better_name(enum gb_better b)
{
	return (size_t)b < NAMES_N(better_names) ? better_names[b] : "none";
}

int gb_better_from_name(const char *name)
{
	return index_of(better_names, NAMES_N(better_names), name);
}

const char *gb_severity_name(enum gb_severity s)
{
	return (size_t)s < NAMES_N(severity_names) ? severity_names[s] : "info";
}

int gb_severity_from_name(const char *name)
{
	return index_of(severity_names, NAMES_N(severity_names), name);
}

/* ---- memory ---- */

void *gb_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fputs("gpubench: fatal: out of host memory\n", stderr);
		abort();
	}
	return q;
}

char *gb_strdup(const char *s)
{
	size_t n;
	char *d;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	d = gb_xrealloc(NULL, n);
	memcpy(d, s, n);
	return d;
}

char *gb_str_printable(char *s)
{
	for (unsigned char *p = (unsigned char *)s; p && *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

char *gb_strdupf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return gb_strdup("");
	s = gb_xrealloc(NULL, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* Grow *arr (element size elem) so that index *n is valid; returns the new zeroed slot. */
static void *grow(void *arr_ptr, size_t *n, size_t *cap, size_t elem)
{
	void **arr = arr_ptr;
	char *slot;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*arr = gb_xrealloc(*arr, *cap * elem);
	}
	slot = (char *)*arr + *n * elem;
	memset(slot, 0, elem);
	(*n)++;
	return slot;
}

/* ---- run ---- */

void gb_now_iso8601(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void gb_run_init(struct gb_run *run, const char *command, int argc, const char *const *argv)
{
	char now[32];

	memset(run, 0, sizeof(*run));
	run->command = gb_strdup(command);
	run->argc = argc;
	run->argv = gb_xrealloc(NULL, sizeof(char *) * (size_t)(argc > 0 ? argc : 1));
	for (int i = 0; i < argc; i++)
		run->argv[i] = gb_strdup(argv[i]);
	gb_now_iso8601(now, sizeof(now));
	run->started_at = gb_strdup(now);
	run->status = GB_STATUS_PASSED;
	run->verdict = GB_STATUS_SKIPPED;
	run->host.cuda_driver_version = -1;
	run->host.cuda_runtime_version = -1;
	run->host.cublaslt_version = -1;
	run->host.nccl_version = -1;
	run->tool.built_cublas = -1;
	run->tool.built_nccl = -1;
}

void gb_run_set_status(struct gb_run *run, enum gb_status st, const char *reason)
{
	run->status = st;
	free(run->reason);
	run->reason = gb_strdup(reason);
}

struct gb_bench_result *gb_run_add_bench(struct gb_run *run, const char *name)
{
	struct gb_bench_result *b =
		grow(&run->benches, &run->n_benches, &run->cap_benches, sizeof(*b));

	b->name = gb_strdup(name);
	b->status = GB_STATUS_PASSED;
	b->params = cJSON_CreateObject();
	b->started_s = NAN;
	b->duration_s = NAN;
	return b;
}

void gb_device_info_init(struct gb_device_info *d)
{
	memset(d, 0, sizeof(*d));
	d->index = -1;
	d->cc_major = d->cc_minor = -1;
	d->sm_count = -1;
	d->memory_bytes = d->l2_bytes = NAN;
	d->max_sm_mhz = d->max_mem_mhz = NAN;
	d->mem_bus_bits = -1;
	d->pcie_gen = d->pcie_width = d->pcie_max_gen = d->pcie_max_width = -1;
	d->pcie_gpu_max_gen = -1;
	d->power_limit_w = NAN;
	d->ecc = -1;
	d->numa_node = -1;
	d->nvlink_up = -1;
	d->nvlink_gen = -1;
	d->nvlink_version_raw = -1;
	for (size_t i = 0; i < NAMES_N(d->peaks.spec); i++)
		d->peaks.spec[i] = d->peaks.max_clock[i] = NAN;
	d->peaks.mem_bw_bps_spec = d->peaks.mem_bw_bps = NAN;
	d->peaks.pcie_bps = d->peaks.pcie_bps_current = d->peaks.nvlink_bps = NAN;
}

struct gb_device_info *gb_run_add_device(struct gb_run *run)
{
	size_t cap = run->n_devices;
	struct gb_device_info *d = grow(&run->devices, &run->n_devices, &cap, sizeof(*d));

	/* devices are added once at start: grow one at a time (cap == n) */
	gb_device_info_init(d);
	return d;
}

struct gb_link *gb_run_add_link(struct gb_run *run, int a, int b, const char *type)
{
	size_t cap = run->n_links;
	struct gb_link *l = grow(&run->links, &run->n_links, &cap, sizeof(*l));

	l->a = a;
	l->b = b;
	l->type = gb_strdup(type ? type : "unknown");
	l->nvlink_count = -1;
	l->p2p_access = -1;
	return l;
}

const struct gb_device_info *gb_run_find_device(const struct gb_run *run, int index)
{
	for (size_t i = 0; run && i < run->n_devices; i++)
		if (run->devices[i].index == index)
			return &run->devices[i];
	return NULL;
}

const struct gb_link *gb_run_find_link(const struct gb_run *run, int a, int b)
{
	for (size_t i = 0; run && i < run->n_links; i++)
		if (run->links[i].a == a && run->links[i].b == b)
			return &run->links[i];
	return NULL;
}

void gb_run_add_env(struct gb_run *run, const char *key, const char *value)
{
	size_t cap = run->n_env;
	struct gb_kv *kv = grow(&run->env, &run->n_env, &cap, sizeof(*kv));

	kv->key = gb_strdup(key);
	kv->value = gb_strdup(value);
}

void gb_run_add_telemetry(struct gb_run *run, const struct gb_telemetry_sample *s)
{
	struct gb_telemetry_sample *t =
		grow(&run->telemetry, &run->n_telemetry, &run->cap_telemetry, sizeof(*t));

	*t = *s;
}

static bool index_in(int v, const int *idx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (idx[i] == v)
			return true;
	return false;
}

static void release_device(struct gb_device_info *d);

void gb_run_keep_devices(struct gb_run *run, const int *idx, size_t n)
{
	size_t kept = 0;

	for (size_t i = 0; i < run->n_devices; i++) {
		if (index_in(run->devices[i].index, idx, n))
			run->devices[kept++] = run->devices[i];
		else
			release_device(&run->devices[i]);
	}
	run->n_devices = kept;
	kept = 0;
	for (size_t i = 0; i < run->n_links; i++) {
		struct gb_link *l = &run->links[i];

		if (index_in(l->a, idx, n) && index_in(l->b, idx, n))
			run->links[kept++] = *l;
		else
			free(l->type);
	}
	run->n_links = kept;
}

/* ---- benchmark result ---- */

void gb_bench_set_status(struct gb_bench_result *b, enum gb_status st, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	b->status = st;
	if (!fmt)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(b->reason);
	b->reason = gb_strdup(buf);
}

void gb_bench_param_num(struct gb_bench_result *b, const char *key, double v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(b->params, key);
	if (isfinite(v))
		cJSON_AddNumberToObject(b->params, key, v);
	else
		cJSON_AddNullToObject(b->params, key);
}

void gb_bench_param_str(struct gb_bench_result *b, const char *key, const char *v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(b->params, key);
	if (v)
		cJSON_AddStringToObject(b->params, key, v);
	else
		cJSON_AddNullToObject(b->params, key);
}

void gb_bench_param_bool(struct gb_bench_result *b, const char *key, bool v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(b->params, key);
	cJSON_AddBoolToObject(b->params, key, v);
}

void gb_bench_add_device(struct gb_bench_result *b, int device)
{
	for (size_t i = 0; i < b->n_devices; i++)
		if (b->devices[i] == device)
			return;
	b->devices = gb_xrealloc(b->devices, sizeof(int) * (b->n_devices + 1));
	b->devices[b->n_devices++] = device;
}

static struct gb_metric *new_metric(struct gb_bench_result *b, const char *name, const char *unit,
				    enum gb_better better, int device, double peak)
{
	struct gb_metric *m = grow(&b->metrics, &b->n_metrics, &b->cap_metrics, sizeof(*m));

	m->name = gb_strdup(name);
	m->unit = gb_strdup(unit);
	/* the one table of directions wins; a metric it does not know keeps the caller's */
	m->better = gb_metric_better(b->name, name, better);
	m->device = device;
	m->value = NAN;
	m->peak = peak;
	m->efficiency = NAN;
	return m;
}

static void set_efficiency(struct gb_metric *m)
{
	if (isfinite(m->peak) && m->peak > 0 && isfinite(m->value))
		m->efficiency = m->value / m->peak;
	else
		m->efficiency = NAN;
}

struct gb_metric *gb_bench_add_metric(struct gb_bench_result *b, const char *name,
				      const char *unit, enum gb_better better, int device,
				      const double *samples, size_t n, double peak)
{
	struct gb_metric *m = new_metric(b, name, unit, better, device, peak);

	if (n > 0) {
		m->samples = gb_xrealloc(NULL, sizeof(double) * n);
		memcpy(m->samples, samples, sizeof(double) * n);
		m->n_samples = n;
		/* a NaN sample leaves stats.n == 0 and the value NaN: never a silent pass */
		if (gb_stats_compute(&m->stats, samples, n) == 0)
			m->value = m->stats.median;
	}
	set_efficiency(m);
	return m;
}

struct gb_metric *gb_bench_add_value(struct gb_bench_result *b, const char *name,
				     const char *unit, enum gb_better better, int device,
				     double value, double peak)
{
	struct gb_metric *m = new_metric(b, name, unit, better, device, peak);

	m->value = value;
	set_efficiency(m);
	return m;
}

struct gb_metric *gb_bench_find_metric(const struct gb_bench_result *b, const char *name,
				       int device)
{
	for (size_t i = 0; i < b->n_metrics; i++)
		if (b->metrics[i].device == device && !strcmp(b->metrics[i].name, name))
			return &b->metrics[i];
	return NULL;
}

struct gb_check *gb_bench_add_check(struct gb_bench_result *b, const char *name,
				    enum gb_status status, enum gb_severity sev, int device,
				    double observed, double threshold, const char *fmt, ...)
{
	struct gb_check *c = grow(&b->checks, &b->n_checks, &b->cap_checks, sizeof(*c));
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	c->name = gb_strdup(name);
	c->status = status;
	c->severity = sev;
	c->device = device;
	c->observed = observed;
	c->threshold = threshold;
	c->message = gb_strdup(buf);
	/* reporting a failure and counting it are one call */
	if (status == GB_STATUS_FAILED && b->status != GB_STATUS_INTERRUPTED) {
		b->status = GB_STATUS_FAILED;
		if (!b->reason)
			b->reason = gb_strdupf("%s: %s", name, buf);
	} else if (status == GB_STATUS_ERROR && b->status == GB_STATUS_PASSED) {
		b->status = GB_STATUS_ERROR;
		if (!b->reason)
			b->reason = gb_strdupf("%s: %s", name, buf);
	}
	return c;
}

void gb_check_set_xids(struct gb_check *c, const unsigned long long *xids, size_t n)
{
	unsigned long long *copy = n ? gb_xrealloc(NULL, n * sizeof(*copy)) : NULL;

	if (n)
		memcpy(copy, xids, n * sizeof(*copy));
	free(c->xids);
	c->xids = copy;
	c->n_xids = n;
}

struct gb_series *gb_bench_add_series(struct gb_bench_result *b, const char *name,
				      const char *x_unit, const char *y_unit, int device)
{
	struct gb_series *s = grow(&b->series, &b->n_series, &b->cap_series, sizeof(*s));

	s->name = gb_strdup(name);
	s->x_unit = gb_strdup(x_unit);
	s->y_unit = gb_strdup(y_unit);
	s->device = device;
	return s;
}

void gb_series_push(struct gb_series *s, double x, double y)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->x = gb_xrealloc(s->x, sizeof(double) * s->cap);
		s->y = gb_xrealloc(s->y, sizeof(double) * s->cap);
	}
	s->x[s->n] = x;
	s->y[s->n] = y;
	s->n++;
}

struct cJSON *gb_bench_extra(struct gb_bench_result *b)
{
	if (!b->extra)
		b->extra = cJSON_CreateObject();
	return b->extra;
}

/* ---- verdict ---- */

static void push_str(char ***list, size_t *n, char *s)
{
	*list = gb_xrealloc(*list, sizeof(char *) * (*n + 1));
	(*list)[(*n)++] = s;
}

static void collect_check_findings(struct gb_run *run, const struct gb_bench_result *b)
{
	for (size_t j = 0; j < b->n_checks; j++) {
		const struct gb_check *c = &b->checks[j];
		char dev[24] = "";

		if (c->device >= 0)
			snprintf(dev, sizeof(dev), " (device %d)", c->device);
		if (c->status == GB_STATUS_FAILED)
			push_str(&run->verdict_failed, &run->n_verdict_failed,
				 gb_strdupf("%s/%s%s: %s", b->name, c->name, dev, c->message));
		else if (c->status == GB_STATUS_WARNING || c->status == GB_STATUS_ERROR)
			push_str(&run->verdict_warnings, &run->n_verdict_warnings,
				 gb_strdupf("%s/%s%s: %s", b->name, c->name, dev, c->message));
	}
}

static void free_str_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

void gb_run_verdict(struct gb_run *run)
{
	bool failed = false, error = false, warning = false, ran = false, interrupted = false;

	free_str_list(run->verdict_failed, run->n_verdict_failed);
	free_str_list(run->verdict_warnings, run->n_verdict_warnings);
	run->verdict_failed = run->verdict_warnings = NULL;
	run->n_verdict_failed = run->n_verdict_warnings = 0;

	for (size_t i = 0; i < run->n_benches; i++) {
		const struct gb_bench_result *b = &run->benches[i];

		collect_check_findings(run, b);
		switch (b->status) {
		case GB_STATUS_FAILED:
			failed = ran = true;
			break;
		case GB_STATUS_ERROR:
		case GB_STATUS_NOT_BUILT:
			error = true;
			push_str(&run->verdict_warnings, &run->n_verdict_warnings,
				 gb_strdupf("%s could not run: %s", b->name,
					    b->reason ? b->reason : "no reason given"));
			break;
		case GB_STATUS_INTERRUPTED:
			interrupted = true;
			break;
		case GB_STATUS_WARNING:
			warning = ran = true;
			break;
		case GB_STATUS_PASSED:
			ran = true;
			break;
		case GB_STATUS_SKIPPED:
			break;
		}
	}
	if (run->status == GB_STATUS_ERROR || run->status == GB_STATUS_NOT_BUILT)
		error = true;
	if (run->status == GB_STATUS_INTERRUPTED)
		interrupted = true;

	/*
	 * A finding outranks an interrupt: a bit flip found before Ctrl-C is
	 * still a bad GPU, and exit 130 reads as "cancelled" to CI and
	 * schedulers. run.status stays "interrupted"; the verdict says so too.
	 * A failed check counts even where its benchmark's status did not
	 * become failed (gb_bench_add_check keeps an interrupted one).
	 */
	failed = failed || run->n_verdict_failed > 0;
	if (failed) {
		run->verdict = GB_STATUS_FAILED;
		if (interrupted)
			push_str(&run->verdict_warnings, &run->n_verdict_warnings,
				 gb_strdup("interrupted: the run was stopped before it finished; "
					   "the failures above were found before that"));
	} else if (interrupted)
		run->verdict = GB_STATUS_INTERRUPTED;
	else if (run->status == GB_STATUS_NOT_BUILT && !ran)
		run->verdict = GB_STATUS_NOT_BUILT;
	else if (error)
		run->verdict = GB_STATUS_ERROR;
	else if (!ran)
		run->verdict = run->status == GB_STATUS_PASSED && run->n_benches == 0
				       ? GB_STATUS_PASSED
				       : GB_STATUS_SKIPPED;
	else
		run->verdict = warning || run->n_verdict_warnings ? GB_STATUS_WARNING
								  : GB_STATUS_PASSED;
}

int gb_exit_code_for_status(enum gb_status st)
{
	switch (st) {
	case GB_STATUS_PASSED:
	case GB_STATUS_WARNING:
		return GB_EXIT_OK;
	case GB_STATUS_FAILED:
		return GB_EXIT_CHECK_FAILED;
	case GB_STATUS_NOT_BUILT:
		return GB_EXIT_NOT_BUILT;
	case GB_STATUS_INTERRUPTED:
		return GB_EXIT_INTERRUPTED;
	case GB_STATUS_SKIPPED: /* nothing could be measured: never a pass */
	case GB_STATUS_ERROR:
		break;
	}
	return GB_EXIT_CANNOT_RUN;
}

/* ---- release ---- */

static void release_bench(struct gb_bench_result *b)
{
	free(b->name);
	free(b->reason);
	cJSON_Delete(b->params);
	cJSON_Delete(b->extra);
	free(b->devices);
	for (size_t i = 0; i < b->n_metrics; i++) {
		free(b->metrics[i].name);
		free(b->metrics[i].unit);
		free(b->metrics[i].samples);
		free(b->metrics[i].description);
	}
	free(b->metrics);
	for (size_t i = 0; i < b->n_checks; i++) {
		free(b->checks[i].name);
		free(b->checks[i].message);
		free(b->checks[i].action_because);
		free(b->checks[i].xids);
	}
	free(b->checks);
	for (size_t i = 0; i < b->n_series; i++) {
		free(b->series[i].name);
		free(b->series[i].x_unit);
		free(b->series[i].y_unit);
		free(b->series[i].x);
		free(b->series[i].y);
	}
	free(b->series);
}

static void release_device(struct gb_device_info *d)
{
	free(d->name);
	free(d->uuid);
	free(d->pci_bus_id);
	free(d->brand);
	free(d->spec_key);
}

void gb_run_release(struct gb_run *run)
{
	free(run->tool.version);
	free(run->tool.git);
	free(run->tool.built_mpi);
	free(run->tool.cuda_archs);
	free(run->command);
	for (int i = 0; i < run->argc; i++)
		free(run->argv[i]);
	free(run->argv);
	free(run->started_at);
	free(run->finished_at);
	free(run->reason);
	free(run->host.hostname);
	free(run->host.os);
	free(run->host.kernel);
	free(run->host.cpu);
	free(run->host.driver_version);
	free(run->host.simulated_machine);
	for (size_t i = 0; i < run->n_env; i++) {
		free(run->env[i].key);
		free(run->env[i].value);
	}
	free(run->env);
	for (size_t i = 0; i < run->n_devices; i++)
		release_device(&run->devices[i]);
	free(run->devices);
	for (size_t i = 0; i < run->n_links; i++)
		free(run->links[i].type);
	free(run->links);
	for (size_t i = 0; i < run->n_benches; i++)
		release_bench(&run->benches[i]);
	free(run->benches);
	free(run->telemetry);
	free_str_list(run->verdict_failed, run->n_verdict_failed);
	free_str_list(run->verdict_warnings, run->n_verdict_warnings);
	memset(run, 0, sizeof(*run));
}
