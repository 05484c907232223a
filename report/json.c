/* SPDX-License-Identifier: MIT */
/*
 * json.c - the result model as a JSON document, and the atomic file write.
 *
 * Conventions (docs/report-format.md): snake_case keys; units in key names
 * or in a "unit" field; NAN and -1 "unknown" values become null; peaks in
 * TFLOPS (TOPS for int8) and bandwidths in decimal GB/s.
 */
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "report/clock_reasons.h"
#include "json_util.h"
#include "outfile.h"
#include "fault_action.h"
#include "published.h"
#include "theory.h"

static cJSON *num_array(const double *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, isfinite(v[i]) ? cJSON_CreateNumber(v[i]) : cJSON_CreateNull());
	return a;
}

static cJSON *str_array(char *const *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

static cJSON *tool_json(const struct gb_tool_info *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *bw = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", "gpubench");
	gb_json_add_str(o, "version", t->version);
	gb_json_add_str(o, "git", t->git);
	gb_json_add_int(bw, "cuda", t->built_cuda);
	gb_json_add_int(bw, "cublas", t->built_cublas);
	gb_json_add_int(bw, "nccl", t->built_nccl);
	gb_json_add_str(bw, "mpi", t->built_mpi);
	gb_json_add_str(bw, "cuda_archs", t->cuda_archs);
	cJSON_AddItemToObject(o, "built_with", bw);
	return o;
}

static cJSON *run_json(const struct gb_run *run)
{
	cJSON *o = cJSON_CreateObject();

	gb_json_add_str(o, "command", run->command);
	cJSON_AddItemToObject(o, "command_line", str_array(run->argv, (size_t)run->argc));
	gb_json_add_str(o, "started_at", run->started_at);
	gb_json_add_str(o, "finished_at", run->finished_at);
	gb_json_add_str(o, "hostname", run->host.hostname);
	cJSON_AddStringToObject(o, "status", gb_status_name(run->status));
	gb_json_add_str(o, "reason", run->reason);
	cJSON_AddNumberToObject(o, "exit_code", run->exit_code);
	return o;
}

static cJSON *host_json(const struct gb_host_info *h)
{
	cJSON *o = cJSON_CreateObject();

	gb_json_add_str(o, "hostname", h->hostname);
	gb_json_add_str(o, "os", h->os);
	gb_json_add_str(o, "kernel", h->kernel);
	gb_json_add_str(o, "cpu", h->cpu);
	gb_json_add_str(o, "driver_version", h->driver_version);
	gb_json_add_cuda_version(o, "cuda_driver_version", h->cuda_driver_version);
	gb_json_add_int(o, "cuda_runtime_version", h->cuda_runtime_version);
	gb_json_add_int(o, "cublaslt_version", h->cublaslt_version);
	gb_json_add_int(o, "nccl_version", h->nccl_version);
	cJSON_AddBoolToObject(o, "simulated", h->simulated);
	gb_json_add_str(o, "simulated_machine", h->simulated_machine);
	return o;
}

/* {"fp64": 9.7, ...} in TFLOPS from FLOP/s, one key per precision */
static cJSON *tflops_by_precision(const double *flops)
{
	cJSON *o = cJSON_CreateObject();

	for (int p = 0; p < GB_PREC_COUNT; p++)
		gb_json_add_num(o, gb_precision_name(p), isfinite(flops[p]) ? flops[p] / 1e12 : NAN);
	return o;
}

static cJSON *peaks_json(const struct gb_peaks *pk)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "tflops_spec", tflops_by_precision(pk->spec));
	cJSON_AddItemToObject(o, "tflops_max_clock", tflops_by_precision(pk->max_clock));
	gb_json_add_num(o, "memory_bw_gbps_spec", pk->mem_bw_bps_spec / 1e9);
	gb_json_add_num(o, "memory_bw_gbps", pk->mem_bw_bps / 1e9);
	gb_json_add_num(o, "pcie_gbps_per_direction", pk->pcie_bps / 1e9);
	gb_json_add_num(o, "pcie_gbps_per_direction_current", pk->pcie_bps_current / 1e9);
	gb_json_add_num(o, "nvlink_gbps_per_direction", pk->nvlink_bps / 1e9);
	return o;
}

static cJSON *device_json(const struct gb_device_info *d)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *clocks = cJSON_CreateObject();
	cJSON *pcie = cJSON_CreateObject();
	cJSON *nvlink = cJSON_CreateObject();
	char cc[16];

	gb_json_add_int(o, "index", d->index);
	gb_json_add_str(o, "name", d->name);
	gb_json_add_str(o, "uuid", d->uuid);
	gb_json_add_str(o, "pci_bus_id", d->pci_bus_id);
	gb_json_add_str(o, "brand", d->brand);
	gb_json_add_str(o, "spec_key", d->spec_key);
	snprintf(cc, sizeof(cc), "%d.%d", d->cc_major, d->cc_minor);
	gb_json_add_str(o, "cc", d->cc_major >= 0 ? cc : NULL);
	gb_json_add_int(o, "sm_count", d->sm_count);
	gb_json_add_num(o, "memory_bytes", d->memory_bytes);
	gb_json_add_num(o, "l2_bytes", d->l2_bytes);
	gb_json_add_num(clocks, "max_sm_mhz", d->max_sm_mhz);
	gb_json_add_num(clocks, "max_mem_mhz", d->max_mem_mhz);
	cJSON_AddItemToObject(o, "clocks", clocks);
	gb_json_add_int(o, "memory_bus_bits", d->mem_bus_bits);
	gb_json_add_int(pcie, "gen", d->pcie_gen);
	gb_json_add_int(pcie, "width", d->pcie_width);
	gb_json_add_int(pcie, "max_gen", d->pcie_max_gen);
	gb_json_add_int(pcie, "max_width", d->pcie_max_width);
	gb_json_add_int(pcie, "gpu_max_gen", d->pcie_gpu_max_gen);
	cJSON_AddItemToObject(o, "pcie", pcie);
	gb_json_add_num(o, "power_limit_w", d->power_limit_w);
	gb_json_add_str(o, "power_source", d->power_source);
	if (d->ecc >= 0)
		cJSON_AddBoolToObject(o, "ecc", d->ecc);
	else
		cJSON_AddNullToObject(o, "ecc");
	gb_json_add_int(o, "numa_node", d->numa_node);
	gb_json_add_int(nvlink, "links_up", d->nvlink_up);
	gb_json_add_int(nvlink, "gen", d->nvlink_gen);
	gb_json_add_int(nvlink, "version_raw", d->nvlink_version_raw);
	cJSON_AddItemToObject(o, "nvlink", nvlink);
	cJSON_AddItemToObject(o, "peaks", peaks_json(&d->peaks));
	return o;
}

static cJSON *link_json(const struct gb_link *l)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "a", l->a);
	cJSON_AddNumberToObject(o, "b", l->b);
	gb_json_add_str(o, "type", l->type);
	gb_json_add_int(o, "nvlink_count", l->nvlink_count);
	if (l->p2p_access >= 0)
		cJSON_AddBoolToObject(o, "p2p_access", l->p2p_access);
	else
		cJSON_AddNullToObject(o, "p2p_access");
	return o;
}

static cJSON *stats_json(const struct gb_stats *st)
{
	cJSON *o;

	if (st->n == 0)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "n", (double)st->n);
	gb_json_add_num(o, "min", st->min);
	gb_json_add_num(o, "p05", st->p05);
	gb_json_add_num(o, "median", st->median);
	gb_json_add_num(o, "mean", st->mean);
	gb_json_add_num(o, "p95", st->p95);
	gb_json_add_num(o, "p99", st->p99);
	gb_json_add_num(o, "max", st->max);
	gb_json_add_num(o, "stdev", st->stdev);
	gb_json_add_num(o, "cv", st->cv);
	return o;
}

/*
 * What healthy GPUs of this model reach (report/published.h), the value as a
 * fraction of it, and where the figure comes from; null when there is none.
 */
static cJSON *published_json(const struct gb_metric *m)
{
	const struct gb_published *p = m->published;
	cJSON *o;

	if (!p)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "figure", p->figure);
	cJSON_AddStringToObject(o, "model", p->model);
	gb_json_add_num(o, "value", p->value);
	gb_json_add_num(o, "low", p->low);
	gb_json_add_num(o, "high", p->high);
	gb_json_add_num(o, "fraction", m->value / p->value);
	gb_json_add_str(o, "source", p->source);
	gb_json_add_str(o, "url", p->url);
	gb_json_add_str(o, "conditions", p->conditions);
	cJSON_AddNumberToObject(o, "sources", (double)p->n_sources);
	return o;
}

static cJSON *metric_json(const struct gb_metric *m)
{
	cJSON *o = cJSON_CreateObject();

	gb_json_add_str(o, "name", m->name);
	gb_json_add_str(o, "unit", m->unit);
	cJSON_AddStringToObject(o, "better", gb_better_name(m->better));
	gb_json_add_int(o, "device", m->device);
	gb_json_add_num(o, "value", m->value);
	gb_json_add_num(o, "peak", m->peak);
	gb_json_add_num(o, "efficiency", m->efficiency);
	cJSON_AddItemToObject(o, "stats", stats_json(&m->stats));
	cJSON_AddItemToObject(o, "samples", num_array(m->samples, m->n_samples));
	if (m->description)
		cJSON_AddStringToObject(o, "description", m->description);
	cJSON_AddItemToObject(o, "published", published_json(m));
	return o;
}

/*
 * What to do about a fault finding (report/fault_action.h): the action, why,
 * its source, and when the GPU failed again elsewhere the table's action it
 * went up from and because of what; null for a check that found no fault.
 */
static cJSON *action_json(const struct gb_check *c)
{
	cJSON *o;
	bool up = c->action && c->action_because && gb_check_action(c) != c->action->act;

	if (!c->action)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "do", gb_action_name(gb_check_action(c)));
	cJSON_AddStringToObject(o, "why", c->action->why);
	cJSON_AddStringToObject(o, "source", c->action->source);
	gb_json_add_str(o, "escalated_from", up ? gb_action_name(c->action->act) : NULL);
	gb_json_add_str(o, "because", up ? c->action_because : NULL);
	return o;
}

/* The XIDs a check saw, as numbers (jq: .checks[] | select(.xids) | .xids[]). */
static cJSON *xids_json(const struct gb_check *c)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; a && i < c->n_xids; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)c->xids[i]));
	return a;
}

static cJSON *check_json(const struct gb_check *c)
{
	cJSON *o = cJSON_CreateObject();

	gb_json_add_str(o, "name", c->name);
	cJSON_AddStringToObject(o, "status", gb_status_name(c->status));
	cJSON_AddStringToObject(o, "severity", gb_severity_name(c->severity));
	gb_json_add_int(o, "device", c->device);
	gb_json_add_num(o, "observed", c->observed);
	gb_json_add_num(o, "threshold", c->threshold);
	gb_json_add_str(o, "message", c->message);
	if (c->n_xids)
		cJSON_AddItemToObject(o, "xids", xids_json(c));
	cJSON_AddItemToObject(o, "action", action_json(c));
	return o;
}

static cJSON *series_json(const struct gb_series *s)
{
	cJSON *o = cJSON_CreateObject();

	gb_json_add_str(o, "name", s->name);
	gb_json_add_str(o, "x_unit", s->x_unit);
	gb_json_add_str(o, "y_unit", s->y_unit);
	gb_json_add_int(o, "device", s->device);
	cJSON_AddItemToObject(o, "x", num_array(s->x, s->n));
	cJSON_AddItemToObject(o, "y", num_array(s->y, s->n));
	return o;
}

static cJSON *bench_json(const struct gb_bench_result *b)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *devs = cJSON_CreateArray();
	cJSON *arr;

	gb_json_add_str(o, "name", b->name);
	cJSON_AddStringToObject(o, "status", gb_status_name(b->status));
	gb_json_add_str(o, "reason", b->reason);
	cJSON_AddItemToObject(o, "params",
			      b->params ? cJSON_Duplicate(b->params, 1) : cJSON_CreateObject());
	for (size_t i = 0; i < b->n_devices; i++)
		cJSON_AddItemToArray(devs, cJSON_CreateNumber(b->devices[i]));
	cJSON_AddItemToObject(o, "devices", devs);
	gb_json_add_num(o, "started_s", b->started_s);
	gb_json_add_num(o, "duration_s", b->duration_s);
	arr = cJSON_AddArrayToObject(o, "metrics");
	for (size_t i = 0; i < b->n_metrics; i++)
		cJSON_AddItemToArray(arr, metric_json(&b->metrics[i]));
	arr = cJSON_AddArrayToObject(o, "series");
	for (size_t i = 0; i < b->n_series; i++)
		cJSON_AddItemToArray(arr, series_json(&b->series[i]));
	arr = cJSON_AddArrayToObject(o, "checks");
	for (size_t i = 0; i < b->n_checks; i++)
		cJSON_AddItemToArray(arr, check_json(&b->checks[i]));
	cJSON_AddItemToObject(o, "extra", b->extra ? cJSON_Duplicate(b->extra, 1)
						   : cJSON_CreateObject());
	return o;
}

static cJSON *telemetry_json(const struct gb_telemetry_sample *t)
{
	cJSON *o = cJSON_CreateObject();
	char names[256];

	gb_json_add_int(o, "device", t->device);
	gb_json_add_num(o, "t_s", t->t_s);
	gb_json_add_num(o, "temp_c", t->temp_c);
	gb_json_add_num(o, "power_w", t->power_w);
	gb_json_add_num(o, "sm_mhz", t->sm_mhz);
	gb_json_add_num(o, "mem_mhz", t->mem_mhz);
	gb_json_add_num(o, "util_pct", t->util_pct);
	gb_json_add_num(o, "mem_used_bytes", t->mem_used_bytes);
	gb_json_add_num(o, "tflops", t->tflops);
	if (t->have_reasons) {
		cJSON *arr = cJSON_AddArrayToObject(o, "clock_event_reasons");

		gb_nvml_reasons_str(t->clock_event_reasons, names, sizeof(names));
		for (char *tok = names, *save = NULL; (tok = strtok_r(tok, ",", &save));
		     tok = NULL)
			cJSON_AddItemToArray(arr, cJSON_CreateString(tok));
		cJSON_AddNumberToObject(o, "clock_event_mask", (double)t->clock_event_reasons);
	} else {
		cJSON_AddNullToObject(o, "clock_event_reasons");
		cJSON_AddNullToObject(o, "clock_event_mask");
	}
	return o;
}

static cJSON *verdict_json(const struct gb_run *run)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "status", gb_status_name(run->verdict));
	cJSON_AddNumberToObject(o, "exit_code", run->exit_code);
	cJSON_AddItemToObject(o, "failed", str_array(run->verdict_failed, run->n_verdict_failed));
	cJSON_AddItemToObject(o, "warnings",
			      str_array(run->verdict_warnings, run->n_verdict_warnings));
	return o;
}

cJSON *gb_report_to_json(const struct gb_run *run)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON *env = cJSON_CreateObject();
	cJSON *arr;

	cJSON_AddStringToObject(doc, "schema", GB_REPORT_SCHEMA);
	cJSON_AddItemToObject(doc, "tool", tool_json(&run->tool));
	cJSON_AddItemToObject(doc, "run", run_json(run));
	cJSON_AddItemToObject(doc, "host", host_json(&run->host));
	for (size_t i = 0; i < run->n_env; i++)
		gb_json_add_str(env, run->env[i].key, run->env[i].value);
	cJSON_AddItemToObject(doc, "environment", env);
	arr = cJSON_AddArrayToObject(doc, "devices");
	for (size_t i = 0; i < run->n_devices; i++)
		cJSON_AddItemToArray(arr, device_json(&run->devices[i]));
	arr = cJSON_AddArrayToObject(doc, "topology");
	for (size_t i = 0; i < run->n_links; i++)
		cJSON_AddItemToArray(arr, link_json(&run->links[i]));
	arr = cJSON_AddArrayToObject(doc, "benchmarks");
	for (size_t i = 0; i < run->n_benches; i++)
		cJSON_AddItemToArray(arr, bench_json(&run->benches[i]));
	arr = cJSON_AddArrayToObject(doc, "telemetry");
	for (size_t i = 0; i < run->n_telemetry; i++)
		cJSON_AddItemToArray(arr, telemetry_json(&run->telemetry[i]));
	cJSON_AddItemToObject(doc, "verdict", verdict_json(run));
	return doc;
}

int gb_report_print(const struct gb_run *run, FILE *out)
{
	cJSON *doc = gb_report_to_json(run);
	char *text = cJSON_Print(doc);
	int rc = 0;

	if (!text || fputs(text, out) == EOF || fputc('\n', out) == EOF)
		rc = -1;
	cJSON_free(text);
	cJSON_Delete(doc);
	return rc;
}

/* dirname() may modify its argument: work on a copy */
static void parent_dir(const char *path, char *buf, size_t len)
{
	char *copy = gb_strdup(path);

	snprintf(buf, len, "%s", dirname(copy));
	free(copy);
}

/*
 * Create, write and remove a temporary file beside path, named as the
 * report's own temporary file will be. access() alone says yes to root on
 * any folder that is not on a read-only mount, so an immutable folder, a
 * quota or a full disk would only show after hours of measuring. 0, or -1
 * with errno set.
 */
static int probe_folder(const char *path)
{
	char *tmp = gb_strdupf("%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp), rc = 0, saved;

	if (fd < 0) {
		saved = errno;
		free(tmp);
		errno = saved;
		return -1;
	}
	if (write(fd, "{", 1) != 1)
		rc = -1;
	saved = errno;
	close(fd);
	unlink(tmp);
	free(tmp);
	errno = saved;
	return rc;
}

/* "cannot write 'x': why" (outfile.c) -> "cannot write report 'x': why": say what is lost */
static void report_words(const char *why, char *err, size_t errlen)
{
	if (!strncmp(why, "cannot write ", 13))
		snprintf(err, errlen, "cannot write report %s", why + 13);
	else
		snprintf(err, errlen, "%s", why);
}

/* A descriptor of ours (/dev/stdout) must be open for writing. */
static int check_fd(const char *path, int fd, char *err, size_t errlen)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
		snprintf(err, errlen, "cannot write report '%s': %s", path,
			 strerror(fl < 0 ? errno : EBADF));
		return -1;
	}
	return 0;
}

int gb_report_check_writable(const char *path, char *err, size_t errlen)
{
	struct gb_out_target t;
	char dir[4096], why[4400];

	if (gb_out_target_resolve(path, &t, why, sizeof(why))) {
		report_words(why, err, errlen);
		return -1;
	}
	switch (t.kind) {
	case GB_OUTK_STDOUT:
		return 0;
	case GB_OUTK_FD:
		return check_fd(path, t.fd, err, errlen);
	case GB_OUTK_DIRECT:
		/* never opened here: a reader of a FIFO would see the close as the end */
		if (access(t.path, W_OK) != 0) {
			snprintf(err, errlen, "cannot write report '%s': %s", path, strerror(errno));
			return -1;
		}
		return 0;
	case GB_OUTK_FILE:
		break;
	}
	if (t.exists && access(t.path, W_OK) != 0) {
		snprintf(err, errlen, "cannot write report '%s': %s", path, strerror(errno));
		return -1;
	}
	parent_dir(t.path, dir, sizeof(dir));
	if (access(dir, W_OK | X_OK) != 0 || probe_folder(t.path) != 0) {
		snprintf(err, errlen, "cannot write report '%s': folder '%s': %s", path, dir,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static int print_run(const void *run, FILE *out)
{
	return gb_report_print(run, out);
}

int gb_report_write_file(const struct gb_run *run, const char *path, char *err, size_t errlen)
{
	char why[512];

	if (gb_fmt_write_file(path, print_run, run, why, sizeof(why)) == 0)
		return 0;
	report_words(why, err, errlen);
	return -1;
}
