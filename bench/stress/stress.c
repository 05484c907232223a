/* SPDX-License-Identifier: MIT */
/*
 * stress.c - `gpubench stress`: the burn-in.
 *
 * One worker thread per GPU, each with its own CUDA stream, cuBLASLt handle
 * and deadline, runs GEMMs whose results fill the requested share of memory
 * (gpu-burn's result slots) and verifies every one of them:
 *   1. ABFT row and column checksums against a CPU reference with a
 *      rounding-error bound (random data, full power);
 *   2. exact phases: small-integer inputs whose products are exact, so any
 *      difference is an error (checksums compared with bound 0);
 *   3. repeat-and-compare: with the cuBLASLt algorithm pinned, every result
 *      must equal its phase's reference result bit for bit (the pinned
 *      algorithm is the heuristic's first that repeats bit for bit at
 *      start-up, so a library kernel that is not deterministic is not
 *      taken for a fault);
 *   4. across GPUs: digests of each phase's reference result are compared,
 *      and with three or more GPUs a majority names the outlier.
 * The main thread is the monitor: every interval it samples NVML for each
 * GPU (stress_health_math.c), turns the workers' device-timed GEMM seconds
 * into TFLOPS, polls XID events, reports progress, and watches heartbeats:
 * a worker without progress for max(30 s, 10 batches) is declared hung, its
 * GPU is reported as could-not-run and the others finish. A worker that
 * meets a sticky CUDA error marks its GPU failed and stops. Each phase has
 * its own batch size (phases differ in speed), and throughput is kept per
 * concrete precision, so "mixed" is judged like with like.
 *
 * The arithmetic (bounds, sizing, schedules, verdict rules, forensics) is
 * in the CPU-only stress_math.c, stress_verdict_math.c and
 * stress_health_math.c; the GPU side is split by concern: the workers
 * (stress_workers.c, stress_memtest.c), the verification
 * (stress_verify.c), the monitor and watchdog (stress_monitor.c), the
 * telemetry join, vote and verdict output (stress_results.c), sharing
 * stress_internal.h. This file holds the options, the thresholds, the
 * sizing and the run: it starts the workers, runs the monitor and joins
 * them. Nothing here prints: progress goes through gb_progress().
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
/* options                                                                 */

enum progress_mode { PROGRESS_AUTO = 0, PROGRESS_TTY, PROGRESS_JSONL, PROGRESS_NONE };
static const char *const progress_names[] = { "auto", "tty", "jsonl", "none", NULL };

#define P(f) offsetof(struct stress_params, f)
static const struct gb_opt stress_opts[] = {
	{ GB_OPT_DURATION, 't', "duration", P(duration_s), "TIME",
	  "how long to load every GPU (default 10m)", 1, 30 * 86400.0, NULL, 0 },
	{ GB_OPT_ENUM, 0, "precision", P(precision), "NAME",
	  "GEMM precision (default bf16; mixed runs fp64 and fp16 GEMMs in turn)", 0, 0,
	  gb_stress_prec_names, 0 },
	{ GB_OPT_PERCENT, 'm', "mem", P(mem_frac), "PCT",
	  "share of free memory to fill with inputs and result slots (default 90%)", 0.01, 0.98,
	  NULL, 0 },
	{ GB_OPT_ENUM, 0, "profile", P(profile), "NAME",
	  "load over time: sustained, pulse (full load and idle in turn), ramp (25% steps)", 0, 0,
	  gb_stress_profile_names, 0 },
	{ GB_OPT_DURATION, 0, "period", P(period_s), "TIME",
	  "pulse period (default 10s; pulse only)", 1, 3600, NULL, 0 },
	{ GB_OPT_PERCENT, 0, "duty", P(duty), "PCT",
	  "pulse: share of each period under load (default 50%; pulse only)", 0.05, 0.95, NULL, 0 },
	{ GB_OPT_DURATION, 0, "interval", P(interval_s), "TIME",
	  "telemetry and throughput sampling interval (default 1s)", 0.1, 60, NULL, 0 },
	{ GB_OPT_BOOL, 0, "fail-early", P(fail_early), NULL,
	  "stop every GPU at the first finding", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "inject-fault", P(inject_fault), NULL,
	  "self-test: flip one bit of one result per GPU; the checker must catch it", 0, 0, NULL,
	  0 },
	{ GB_OPT_BOOL, 0, "memtest", P(memtest), NULL,
	  "test memory (walking ones and zeros, moving inversions, random) instead of GEMMs", 0,
	  0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "no-abft", P(no_abft), NULL,
	  "skip the row and column checksums of random-data GEMMs", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "no-exact", P(no_exact), NULL, "skip the exact (small-integer) phases",
	  0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "no-repeat", P(no_repeat), NULL,
	  "skip the bitwise comparison with each phase's reference result", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "no-cross", P(no_cross), NULL,
	  "skip the comparison of result digests across GPUs", 0, 0, NULL, 0 },
	{ GB_OPT_DOUBLE, 0, "temp-limit", P(temp_limit_c), "C",
	  "fail a GPU that gets hotter than this (default 85)", 20, 150, NULL, 0 },
	{ GB_OPT_PERCENT, 0, "peer-tolerance", P(peer_tol), "PCT",
	  "fail a GPU more than this below the best GPU of its model (default 10%)", 0, 1, NULL,
	  0 },
	{ GB_OPT_STRING, 0, "thresholds", P(thresholds), "FILE",
	  "thresholds file, the same as run's: its \"stress\" section sets the limits "
	  "(docs/thresholds.md)", 0, 0, NULL, 0 },
	{ GB_OPT_ENUM, 0, "progress", P(progress), "MODE",
	  "progress on stderr: a line per GPU (tty), one JSON object per line (jsonl), or none",
	  0, 0, progress_names, 0 },
	{ GB_OPT_COUNT, 0, "size", P(size), "N",
	  "GEMM dimension m = n = k, a multiple of 256 (default: the largest power of two up to "
	  "8192 that fits)",
	  0, 16384, NULL, 0 },
	{ GB_OPT_COUNT, 0, "seed", P(seed), "N", "seed of the input data, the same on every GPU",
	  0, 4294967295.0, NULL, 0 },
	GB_OPT_REFUSED('p', NULL,
		       "is no longer short for '--precision'; use '--precision' ('-p' is "
		       "run's '--profile')"),
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};
#undef P

static void stress_defaults(void *pv)
{
	struct stress_params *p = pv;

	memset(p, 0, sizeof(*p));
	p->duration_s = 600;
	p->precision = GB_SP_BF16;
	p->mem_frac = 0.9;
	p->profile = GB_PROFILE_SUSTAINED;
	p->interval_s = 1;
	p->temp_limit_c = NAN;
	p->peer_tol = NAN;
	p->progress = PROGRESS_AUTO;
	p->seed = 1;
}

/* a key only the thresholds file of `run` (docs/thresholds.md) has at its top */
static bool is_run_format(const cJSON *doc)
{
	static const char *const keys[] = { "schema", "description", "same_model_max_spread",
					    "thresholds", "stress" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (cJSON_GetObjectItemCaseSensitive(doc, keys[i]))
			return true;
	return false;
}

/* "'f.json': x" -> "x": the caller names the file already */
static void drop_name_prefix(char *why, const char *path)
{
	size_t n = strlen(path);

	if (why[0] == '\'' && !strncmp(why + 1, path, n) && !strncmp(why + 1 + n, "': ", 3))
		memmove(why, why + n + 4, strlen(why + n + 4) + 1);
}

/*
 * One file for `run` and `stress`: the run format ({"thresholds": [...],
 * "stress": {...}}) is checked whole, as `run` would, and its "stress"
 * section applies here; a flat {"temp_limit_c": 83} (stress's own, older
 * form) still works. 0, or -1 with the reason in why.
 */
static int parse_thresholds_text(const char *text, const char *path,
				 struct gb_stress_thresholds *th, char *why, size_t len)
{
	cJSON *doc = cJSON_Parse(text);
	struct gb_thresholds run_rules;
	char *section;
	int rc;

	if (!cJSON_IsObject(doc) || !is_run_format(doc)) {
		cJSON_Delete(doc);
		return gb_stress_thresholds_parse(text, th, why, len);
	}
	memset(&run_rules, 0, sizeof(run_rules));
	run_rules.same_model_spread = NAN;
	rc = gb_thresholds_from_json(&run_rules, doc, path, why, len);
	gb_thresholds_release(&run_rules);
	drop_name_prefix(why, path);
	if (!rc && cJSON_GetObjectItemCaseSensitive(doc, "stress")) {
		section = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(doc, "stress"));
		rc = gb_stress_thresholds_parse(section, th, why, len);
		cJSON_free(section);
	}
	cJSON_Delete(doc);
	return rc;
}

/* defaults, the --thresholds file, then --temp-limit */
static int load_thresholds(const struct stress_params *p, struct gb_stress_thresholds *th,
			   char *err, size_t len)
{
	char why[256];
	FILE *f = NULL;
	char *text = NULL;
	long size;
	int rc = -1;

	gb_stress_thresholds_default(th);
	if (p->thresholds) {
		f = fopen(p->thresholds, "rb");
		if (!f) {
			snprintf(err, len, "cannot read thresholds '%s': %s", p->thresholds,
				 strerror(errno));
			return -1;
		}
		if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || size > (1L << 20) ||
		    fseek(f, 0, SEEK_SET) || !(text = calloc(1, (size_t)size + 1)) ||
		    fread(text, 1, (size_t)size, f) != (size_t)size) {
			snprintf(err, len, "cannot read thresholds '%s': not a readable file under 1 MiB",
				 p->thresholds);
			goto out;
		}
		if (parse_thresholds_text(text, p->thresholds, th, why, sizeof(why))) {
			snprintf(err, len, "invalid thresholds '%s': %s", p->thresholds, why);
			goto out;
		}
	}
	if (!isnan(p->temp_limit_c))
		th->temp_limit_c = p->temp_limit_c;
	if (!isnan(p->peer_tol))
		th->peer_slow_max = p->peer_tol;
	rc = 0;
out:
	if (f)
		fclose(f);
	free(text);
	return rc;
}

/* the pulse's shape without --period and --duty */
#define PULSE_PERIOD_S 10.0
#define PULSE_DUTY 0.5

static double pulse_period_s(const struct stress_params *p)
{
	return p->period_s > 0 ? p->period_s : PULSE_PERIOD_S;
}

static double pulse_duty(const struct stress_params *p)
{
	return p->duty > 0 ? p->duty : PULSE_DUTY;
}

/* --period and --duty shape the pulse: with another profile they would be ignored */
static int check_pulse_options(const struct stress_params *p, char *err, size_t len)
{
	const char *given = p->period_s > 0 ? "--period" : p->duty > 0 ? "--duty" : NULL;

	if (!given || p->profile == GB_PROFILE_PULSE)
		return 0;
	snprintf(err, len, "'%s' applies only with '--profile pulse' (the profile is '%s')", given,
		 gb_stress_profile_names[p->profile]);
	return -1;
}

static int stress_validate(const void *pv, char *err, size_t len)
{
	const struct stress_params *p = pv;
	struct gb_stress_thresholds th;

	if (check_pulse_options(p, err, len))
		return -1;
	if (p->size && (p->size < GB_STRESS_N_MIN || p->size % 256)) {
		snprintf(err, len, "--size must be a multiple of 256, at least 256 (got %lld)",
			 (long long)p->size);
		return -1;
	}
	if (p->interval_s > p->duration_s) {
		snprintf(err, len, "--interval (%gs) is longer than --duration (%gs)", p->interval_s,
			 p->duration_s);
		return -1;
	}
	if (p->inject_fault && !p->memtest &&
	    gb_stress_inject_options((enum gb_stress_prec)p->precision, (uint64_t)p->size,
				     !p->no_abft, !p->no_exact, !p->no_repeat, err, len))
		return -1;
	return load_thresholds(p, &th, err, len);
}

/* ======================================================================= */
/* run                                                                     */

static void record_params(const struct stress_params *p, const struct shared *sh,
			  struct gb_bench_result *res, const struct gb_stress_thresholds *th)
{
	cJSON *extra = gb_bench_extra(res), *phases = cJSON_AddArrayToObject(extra, "phases");

	gb_bench_param_num(res, "duration_s", p->duration_s);
	gb_bench_param_str(res, "precision", gb_stress_prec_names[p->precision]);
	gb_bench_param_num(res, "mem_fraction", p->mem_frac);
	gb_bench_param_str(res, "profile", gb_stress_profile_names[p->profile]);
	gb_bench_param_num(res, "period_s", pulse_period_s(p));
	gb_bench_param_num(res, "duty", pulse_duty(p));
	gb_bench_param_num(res, "interval_s", p->interval_s);
	gb_bench_param_bool(res, "fail_early", p->fail_early);
	gb_bench_param_bool(res, "inject_fault", p->inject_fault);
	gb_bench_param_bool(res, "memtest", p->memtest);
	gb_bench_param_bool(res, "abft", !p->no_abft);
	gb_bench_param_bool(res, "exact", !p->no_exact);
	gb_bench_param_bool(res, "repeat", !p->no_repeat);
	gb_bench_param_bool(res, "cross", !p->no_cross);
	gb_bench_param_num(res, "temp_limit_c", th->temp_limit_c);
	gb_bench_param_str(res, "thresholds", p->thresholds);
	gb_bench_param_num(res, "seed", (double)p->seed);
	if (!p->memtest) {
		gb_bench_param_num(res, "m", (double)sh->n);
		gb_bench_param_num(res, "n", (double)sh->n);
		gb_bench_param_num(res, "k", (double)sh->n);
		gb_bench_param_num(res, "abft_tau", th->abft_tau);
		gb_bench_param_num(res, "workspace_bytes", (double)STRESS_WORKSPACE);
	}
	for (size_t i = 0; i < sh->n_phases && !p->memtest; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "precision", gb_stress_prec_names[sh->phases[i].prec]);
		cJSON_AddStringToObject(o, "mode", sh->phases[i].mode == GB_STRESS_EXACT ? "exact"
											  : "random");
		cJSON_AddNumberToObject(o, "int_range", (double)sh->phases[i].r);
		cJSON_AddItemToArray(phases, o);
	}
}

/* The common GEMM size: --size, or the largest that fits every GPU's total memory. */
static int choose_size(struct shared *sh, struct gb_bench_result *res)
{
	const struct stress_params *p = sh->p;
	struct gb_stress_phase ph[GB_STRESS_MAX_PHASES];
	uint64_t n = p->size ? (uint64_t)p->size : GB_STRESS_N_MAX;
	char err[256];

	for (size_t i = 0; !p->size && i < sh->ctx->n_devices; i++) {
		const struct gb_device_info *d = gb_run_find_device(sh->ctx->run, sh->ctx->devices[i]);
		struct gb_stress_sizing sz;
		size_t np = gb_stress_phases((enum gb_stress_prec)p->precision, !p->no_exact, n, n, n,
					     ph, GB_STRESS_MAX_PHASES);

		if (!d || !(d->memory_bytes > 0))
			continue;
		if (gb_stress_size(d->memory_bytes, p->mem_frac, 0, ph, np, STRESS_FIXED_BYTES, &sz,
				   err, sizeof(err)) == 0 && sz.n < n)
			n = sz.n;
	}
	sh->n = n;
	sh->n_phases = gb_stress_phases((enum gb_stress_prec)p->precision, !p->no_exact, n, n, n,
					sh->phases, GB_STRESS_MAX_PHASES);
	sh->n_random = 0;
	for (size_t i = 0; i < sh->n_phases; i++)
		sh->n_random += sh->phases[i].mode == GB_STRESS_RANDOM;
	sh->n_exact = sh->n_phases - sh->n_random;
	/* a series per random phase, labelled only when there are several */
	sh->n_series = sh->n_random < GB_STRESS_MAX_SERIES ? sh->n_random : GB_STRESS_MAX_SERIES;
	for (size_t i = 0; sh->n_series > 1 && i < sh->n_series; i++)
		sh->series_label[i] = gb_stress_prec_names[sh->phases[i].prec];
	if (!sh->n_phases) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "no GEMM phase fits %llu^3",
				    (unsigned long long)n);
		return -1;
	}
	return 0;
}

struct ref_job {
	struct shared *sh;
	size_t phase;
	double tau;
	int rc;
};

static void *ref_main(void *arg)
{
	struct ref_job *j = arg;
	uint64_t n = j->sh->n;

	/* Ctrl-C is honoured here too: a few seconds of hashing per phase at 8192 */
	j->rc = gb_stress_abft_reference(&j->sh->phases[j->phase], (uint64_t)j->sh->p->seed, n, n,
					 n, j->tau, j->sh->ctx->stop, &j->sh->refs[j->phase]);
	return NULL;
}

/* The CPU checksum references of every phase, in parallel (O(n^2) each, shared by all GPUs). */
static int build_references(struct shared *sh, double tau, struct gb_bench_result *res)
{
	struct ref_job jobs[GB_STRESS_MAX_PHASES];
	pthread_t th[GB_STRESS_MAX_PHASES];
	bool started[GB_STRESS_MAX_PHASES] = { false };
	bool stopped = false;
	int rc = 0;

	for (size_t i = 0; i < sh->n_phases; i++) {
		jobs[i] = (struct ref_job){ sh, i, tau, -1 };
		started[i] = gb_thread_start(&th[i], ref_main, &jobs[i]) == 0;
		if (!started[i])
			ref_main(&jobs[i]);
	}
	for (size_t i = 0; i < sh->n_phases; i++) {
		if (started[i])
			gb_thread_join(th[i]);
		stopped |= jobs[i].rc == -2;
		rc |= jobs[i].rc;
	}
	if (stopped)
		gb_bench_set_status(res, GB_STATUS_INTERRUPTED,
				    "interrupted while computing the checksum references");
	else if (rc)
		gb_bench_set_status(res, GB_STATUS_ERROR,
				    "out of host memory for the checksum references");
	return rc ? -1 : 0;
}

static int progress_every(const struct stress_params *p, const struct gb_ctx *ctx, bool *jsonl,
			  bool *live)
{
	double every_s;

	*jsonl = p->progress == PROGRESS_JSONL;
	*live = false;
	if (p->progress == PROGRESS_NONE || *jsonl)
		return 0;
	/* cmd/ offers the status channel only on a terminal: it replaces the periodic lines */
	*live = ctx->status != NULL;
	if (*live)
		return 0;
	/* a terminal gets a line per GPU every 5 s; a log file every minute */
	every_s = p->progress == PROGRESS_TTY || isatty(STDERR_FILENO) ? 5.0 : 60.0;
	return (int)fmax(1.0, floor(every_s / p->interval_s + 0.5));
}

static int start_workers(struct monitor *m, uint64_t throttle_mask)
{
	const char **pci = calloc(m->n ? m->n : 1, sizeof(*pci));
	int rc = 0;

	if (!pci)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		struct worker *w = &m->w[i];

		w->sh = m->sh;
		w->idx = i;
		w->dev = m->sh->ctx->devices[i];
		w->info = gb_run_find_device(m->sh->ctx->run, w->dev);
		pci[i] = worker_pci(w);
		gb_stress_obs_init(&m->obs[i], w->dev);
		gb_stress_obs_series(&m->obs[i], m->sh->n_series, m->sh->series_label);
		pthread_mutex_init(&w->lock, NULL);
		w->heartbeat_s = gb_now_s();
		gb_stress_viol_init(&w->viol);
		gb_stress_corrupt_init(&w->abft_first);
		gb_stress_corrupt_init(&w->exact_first);
		for (size_t p = 0; p < GB_STRESS_MAX_PHASES; p++)
			w->ph[p].abft_max_ratio = NAN;
	}
	m->mon_ok = gb_stress_monitor_begin(&m->mon, pci, m->obs, m->n, throttle_mask) == 0;
	free(pci);
	for (size_t i = 0; i < m->n; i++) {
		struct worker *w = &m->w[i];
		char why[160];
		const char *no = m->sh->p->memtest || !w->info
					 ? NULL
					 : gb_stress_unsupported((enum gb_stress_prec)m->sh->p->precision,
								 w->info->cc_major, w->info->cc_minor,
								 why, sizeof(why));

		if (no) {
			fail_setup(w, "%s", no);
			continue;
		}
		w->started = gb_thread_start(&w->thread, worker_main, w) == 0;
		if (!w->started) {
			fail_setup(w, "cannot start a worker thread");
			rc = -1;
		}
	}
	return rc;
}

/*
 * A worker that did not return by its deadline: it is stuck in the driver
 * (cleaning up after an error, or its GPU stopped answering). Leave it
 * behind; a GPU whose load had ended normally is now reported as hung, so
 * cmd/ knows it was lost and exits without the CUDA teardown that would
 * wait on it.
 */
static void leave_behind(struct worker *w, double waited_s)
{
	char why[sizeof(w->error)];

	pthread_detach(w->thread);
	pthread_mutex_lock(&w->lock);
	if (!abandoned(w) && w->state != W_FAILED && w->state != W_HUNG) {
		snprintf(why, sizeof(why), "hung: still cleaning up %.0f s after its load ended%s%s",
			 waited_s, w->state == W_ERROR ? ", after: " : "",
			 w->state == W_ERROR ? w->error : "");
		snprintf(w->error, sizeof(w->error), "%s", why);
		w->state = W_HUNG;
	}
	give_up(w);
	pthread_mutex_unlock(&w->lock);
}

/*
 * Join the workers. An abandoned (hung) one gets 2 s; the others as long
 * as the watchdog would give them between heartbeats, counted from now for
 * all of them, so N stuck GPUs cost one limit, not N. A worker still not
 * back is left behind (and its memory leaked).
 */
static bool join_workers(struct monitor *m)
{
	double start = gb_now_s(), longest = 2;
	bool leaked = false;

	for (size_t i = 0; i < m->n; i++) {
		pthread_mutex_lock(&m->w[i].lock);
		longest = fmax(longest, abandoned(&m->w[i]) ? 2 : hang_limit_s(&m->w[i]));
		pthread_mutex_unlock(&m->w[i].lock);
	}
	/* no stop-flag polls meanwhile: tell cmd/'s watchdog this silence is expected */
	gb_expect_silence(m->sh->ctx, longest + 5);
	for (size_t i = 0; i < m->n; i++) {
		struct worker *w = &m->w[i];
		double deadline;

		if (!w->started)
			continue;
		pthread_mutex_lock(&w->lock);
		deadline = start + (abandoned(w) ? 2 : hang_limit_s(w));
		pthread_mutex_unlock(&w->lock);
		if (!gb_thread_join_until(w->thread, deadline)) {
			leave_behind(w, gb_now_s() - start);
			leaked = true;
		}
	}
	return leaked;
}

static void monitor_release(struct monitor *m, bool leaked)
{
	for (size_t i = 0; i < m->n; i++)
		gb_stress_obs_release(&m->obs[i]);
	free(m->obs);
	free(m->samples);
	free(m->tp);
	free(m->tp_series);
	cJSON_Delete(m->forensics);
	/* a worker still stuck in a driver call may write into its struct */
	if (!leaked) {
		for (size_t i = 0; i < m->n; i++)
			pthread_mutex_destroy(&m->w[i].lock);
		free(m->w);
	}
}

/* The shared state ends with the run, unless a worker left behind may still read it. */
static void shared_release(struct shared *sh, bool leaked)
{
	if (!sh || leaked)
		return;
	for (size_t i = 0; i < GB_STRESS_MAX_PHASES; i++)
		gb_stress_abft_release(&sh->refs[i]);
	free(sh);
}

static int stress_run(struct gb_ctx *ctx, const void *pv, struct gb_bench_result *res)
{
	const struct stress_params *p = pv;
	struct gb_stress_thresholds th;
	/* on the heap: a worker left behind in the driver still reads it after we return */
	struct shared *sh = calloc(1, sizeof(*sh));
	struct monitor m;
	char err[512];
	bool leaked = false;
	int rc = -1;

	memset(&m, 0, sizeof(m));
	if (!sh) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "out of host memory");
		return -1;
	}
	sh->p = p;
	sh->ctx = ctx;
	sh->run_start_s = ctx->run_start_s;
	sh->sched = (struct gb_stress_schedule){ (enum gb_stress_profile)p->profile, p->duration_s,
						 pulse_period_s(p), pulse_duty(p) };
	sh->inject_at_s = STRESS_INJECT_AT * p->duration_s;
	sh->n_series = 1;
	if (load_thresholds(p, &th, err, sizeof(err))) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "%s", err);
		goto out;
	}
	if (!p->memtest && gb_cublaslt_load(err, sizeof(err))) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "%s", err);
		goto out;
	}
	sh->lt = p->memtest ? NULL : gb_cublaslt();
	if (!p->memtest && choose_size(sh, res))
		goto out;
	if (!p->memtest && p->progress != PROGRESS_JSONL && p->progress != PROGRESS_NONE)
		gb_progress(ctx, "stress: %zu phase%s of %llu^3 GEMMs on %zu GPU%s for %.0f s; "
				 "computing the checksum references",
			    sh->n_phases, sh->n_phases > 1 ? "s" : "", (unsigned long long)sh->n,
			    ctx->n_devices, ctx->n_devices > 1 ? "s" : "", p->duration_s);
	if (!p->memtest && build_references(sh, th.abft_tau, res))
		goto out;
	record_params(p, sh, res, &th);
	m.sh = sh;
	m.n = ctx->n_devices;
	m.w = calloc(m.n ? m.n : 1, sizeof(*m.w));
	m.obs = calloc(m.n ? m.n : 1, sizeof(*m.obs));
	m.samples = calloc(m.n ? m.n : 1, sizeof(*m.samples));
	m.tp = calloc(m.n ? m.n : 1, sizeof(*m.tp));
	m.tp_series = calloc(m.n ? m.n : 1, sizeof(*m.tp_series));
	m.forensics = cJSON_CreateArray();
	if (!m.w || !m.obs || !m.samples || !m.tp || !m.tp_series) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "out of host memory");
		free(m.obs);
		free(m.samples);
		free(m.tp);
		free(m.tp_series);
		free(m.w);
		m.w = NULL;
		goto out;
	}
	m.progress_every = progress_every(p, ctx, &m.jsonl, &m.live);
	start_workers(&m, th.throttle_mask);
	monitor_loop(&m, &th);
	leaked = join_workers(&m);
	/* what the last batches found, and the last XIDs, before NVML lets go */
	for (size_t i = 0; i < m.n; i++)
		drain_forensics(&m, i);
	if (m.mon_ok) {
		gb_stress_monitor_poll_xids(&m.mon, 0);
		gb_stress_monitor_end(&m.mon);
	}
	report(res, &m, &th);
	rc = 0;
out:
	if (m.w)
		monitor_release(&m, leaked);
	else
		cJSON_Delete(m.forensics);
	shared_release(sh, leaked);
	return rc;
}

const struct gb_bench gb_bench_stress = {
	.name = "stress",
	.summary = "burn-in: GEMMs filling memory, every result verified four ways, telemetry verdict",
	.usage = "gpubench stress [options]",
	.opts = stress_opts,
	.params_size = sizeof(struct stress_params),
	.set_defaults = stress_defaults,
	.validate = stress_validate,
	.supported = NULL, /* per GPU at run time: a GPU that cannot run is ERROR, never skipped */
	.run = stress_run,
	.flags = GB_BENCH_NEEDS_GPU,
};
