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
 * stress_health_math.c; this file only drives the GPUs. It never prints:
 * progress goes through gb_progress().
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
#include "bench/deadline_math.h"
#include "bench/cublaslt_dl.h"
#include "bench/gpu.h"
#include "bench/lt_matmul.h"
#include "bench/nvml.h"
#include "bench/stress_math.h"
#include "kernels/kernels.h"
#include "report/json_util.h"
#include "report/thresholds.h"

/*
 * cuBLASLt's workspace, as gemm uses (Hopper's fastest kernels want one).
 * Split-K keeps bitwise repeatability: its reductions are sequenced by
 * counters in the workspace or done in a separate pass (cublasLt.h), and
 * cuBLAS documents cublasLtMatmul with a user-owned workspace as bitwise
 * reproducible run to run; the start-up self-check confirms it per phase.
 */
#define STRESS_WORKSPACE (32ULL << 20)
#define STRESS_FIXED_BYTES (STRESS_WORKSPACE + (16ULL << 20)) /* + checksums and records */
#define STRESS_BATCH_TARGET_S 0.25           /* one batch of GEMMs lasts about this */
#define STRESS_HANG_MIN_S 30.0               /* a heartbeat older than this ... */
#define STRESS_HANG_BATCHES 10.0             /* ... and than this many batches: hung */
#define STRESS_MAX_FORENSICS 32              /* recorded per GPU; the rest are counted */
#define STRESS_INJECT_AT 0.3                 /* --inject-fault at this share of the duration */
#define STRESS_MEM_SHRINK 0.95               /* memtest: retry a failed allocation this much smaller */
#define STRESS_REPRO_RUNS 2                  /* runs of a candidate compared with its first */

/* ======================================================================= */
/* options                                                                 */

enum progress_mode { PROGRESS_AUTO = 0, PROGRESS_TTY, PROGRESS_JSONL, PROGRESS_NONE };
static const char *const progress_names[] = { "auto", "tty", "jsonl", "none", NULL };

struct stress_params {
	double duration_s;
	int precision;        /* enum gb_stress_prec */
	double mem_frac;
	int profile;          /* enum gb_stress_profile */
	double period_s;      /* --period; 0: not given (PULSE_PERIOD_S) */
	double duty;          /* --duty; 0: not given (PULSE_DUTY) */
	double interval_s;
	bool fail_early;
	bool inject_fault;
	bool memtest;
	bool no_abft, no_exact, no_repeat, no_cross;
	double temp_limit_c;  /* NAN: the thresholds' (85 by default) */
	double peer_tol;      /* --peer-tolerance; NAN: the thresholds' peer_slow_max (10%) */
	const char *thresholds;
	int progress;         /* enum progress_mode */
	int64_t size;         /* 0: automatic */
	int64_t seed;
};

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
/* shared state                                                            */

/* What every worker reads and nobody writes once the workers run. */
struct shared {
	const struct stress_params *p;
	struct gb_ctx *ctx;
	const struct gb_cublaslt *lt;
	struct gb_stress_phase phases[GB_STRESS_MAX_PHASES];
	struct gb_abft_ref refs[GB_STRESS_MAX_PHASES];
	size_t n_phases, n_random, n_exact;
	/* throughput series: random phase s is series s (one per concrete precision) */
	size_t n_series;
	const char *series_label[GB_STRESS_MAX_SERIES];
	uint64_t n;                     /* m = n = k */
	struct gb_stress_schedule sched;
	double inject_at_s;             /* seconds into each worker's load */
	double run_start_s;             /* ctx's, copied: a leaked worker must not read ctx */
	int stop_all;                   /* interrupt or --fail-early; __atomic (stop_everyone()) */
};

enum wstate { W_STARTING = 0, W_RUNNING, W_DONE, W_FAILED, W_ERROR, W_HUNG };

struct injection {
	bool done;
	uint64_t batch;
	uint32_t slot, row, col;
	uint64_t word;                  /* memtest: the flipped word's index */
	double t_s;
	char caught[64];                /* "repeat, abft" */
	struct gb_stress_forensic f;
};

/* One phase's device side in one worker. */
struct wphase {
	void *a, *b;
	double *col_exp, *col_bound, *row_exp, *row_bound;
	struct gb_lt_matmul mm;         /* descriptors, types, alpha and beta */
	cublasLtMatmulHeuristicResult_t cand[GB_STRESS_MAX_ALGOS]; /* the heuristic's, in order */
	int n_cand;
	struct gb_stress_algo_pick pick; /* which candidate repeated bit for bit */
	bool picked;                    /* pick holds a self-check (random phases) */
	bool compare;                   /* repeat-and-compare runs for this phase */
	cublasLtMatmulAlgo_t algo;
	int algo_index;                 /* the pinned candidate's index in cand[] */
	uint64_t algo_fp;               /* fingerprint: GPUs compare digests only with the same algo */
	enum gb_dtype t_in, t_out;
	uint64_t digest;
	bool digest_ok;
	bool digest_changed;
	bool repeatable;                /* false: no candidate repeated; no cross-GPU digest either */
	double abft_max_ratio;          /* under the worker's lock; NaN none */
};

/* What memtest is doing, for its forensics. */
struct mt_where {
	uint64_t pass;                  /* from 1 */
	char pattern[64];
};

struct worker {
	struct shared *sh;
	size_t idx;
	int dev;
	const struct gb_device_info *info;
	pthread_t thread;
	bool started;

	/* the worker's own (no lock) */
	cudaStream_t stream;
	cudaEvent_t ev[3];
	cublasLtHandle_t lt;
	void *workspace, *slots;
	float *fp8_scale;
	double *col, *row;
	struct gb_stress_verify *dv, *hv;
	unsigned long long *dflip, *hflip;
	void *delem, *helem;
	struct wphase ph[GB_STRESS_MAX_PHASES];
	struct gb_stress_sizing sz;
	struct gb_stress_batcher batcher;
	uint64_t cursor;
	uint64_t mt_bytes;              /* memtest: the tested region at w->slots */
	struct mt_where mt;
	double load_start_s;            /* gb_now_s() when load began */
	struct gb_stress_viol viol;     /* NVML violation counters at load start and end */

	/* shared with the monitor, under lock */
	pthread_mutex_t lock;
	enum wstate state;
	char error[256], cuda_failure[256];
	double heartbeat_s, max_batch_s, load_s;
	/* per series: FLOPs (bytes for memtest) and device seconds since the last tick */
	double work_acc[GB_STRESS_MAX_SERIES], busy_acc[GB_STRESS_MAX_SERIES];
	uint64_t gemms, batches, abft, exact, repeat, nonfinite, mem_errors, mem_bytes;
	struct gb_stress_forensic pending[STRESS_MAX_FORENSICS];
	size_t n_pending, n_forensics, dropped;
	/* the first corrupted element the abft and exact checksums located, and how many */
	struct gb_stress_corrupt abft_first, exact_first;
	struct injection inj;
	bool loaded;

	/* the monitor gave up on this worker: touch nothing. Set under lock, read by the
	 * worker between calls without it: __atomic (abandoned(), give_up()) */
	int abandon;
};

static double run_time(const struct shared *sh)
{
	return gb_now_s() - sh->run_start_s;
}

static bool abandoned(const struct worker *w)
{
	return __atomic_load_n(&w->abandon, __ATOMIC_ACQUIRE) != 0;
}

static void give_up(struct worker *w)
{
	__atomic_store_n(&w->abandon, 1, __ATOMIC_RELEASE);
}

/* The monitor asks every worker to stop (an interrupt, --fail-early). */
static void stop_everyone(struct shared *sh)
{
	__atomic_store_n(&sh->stop_all, 1, __ATOMIC_RELEASE);
}

static bool should_stop(const struct worker *w)
{
	/* abandon first: an abandoned worker may outlive ctx, which is cmd/'s */
	return abandoned(w) || __atomic_load_n(&w->sh->stop_all, __ATOMIC_ACQUIRE) ||
	       gb_should_stop(w->sh->ctx);
}

/* The watchdog's patience with a worker: max(30 s, 10 x its longest batch). Under w->lock. */
static double hang_limit_s(const struct worker *w)
{
	return fmax(STRESS_HANG_MIN_S, STRESS_HANG_BATCHES * w->max_batch_s);
}

static void beat(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->heartbeat_s = gb_now_s();
	pthread_mutex_unlock(&w->lock);
}

/* A CUDA failure: sticky ones are a finding about the GPU, others could-not-run. */
static void fail_cuda(struct worker *w, const char *what, cudaError_t e)
{
	char buf[160];

	gb_cuda_errstr(e, buf, sizeof(buf));
	pthread_mutex_lock(&w->lock);
	if (abandoned(w)) {
		/* already reported as hung; a call that returns late changes nothing */
	} else if (gb_cuda_error_is_sticky(e) && w->loaded) {
		w->state = W_FAILED;
		snprintf(w->cuda_failure, sizeof(w->cuda_failure),
			 "'%s' failed after %.0f s of load: %s; the context is lost, the GPU needs "
			 "a reset",
			 what, gb_now_s() - w->load_start_s, buf);
	} else {
		w->state = W_ERROR;
		snprintf(w->error, sizeof(w->error), "'%s' failed: %s", what, buf);
	}
	pthread_mutex_unlock(&w->lock);
}

__attribute__((format(printf, 2, 3)))
static void fail_setup(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&w->lock);
	if (!abandoned(w)) {
		w->state = W_ERROR;
		va_start(ap, fmt);
		vsnprintf(w->error, sizeof(w->error), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&w->lock);
}

#define WCUDA(w, call, label)                               \
	do {                                                \
		cudaError_t we_ = (call);                   \
		if (we_ != cudaSuccess) {                   \
			fail_cuda((w), #call, we_);         \
			goto label;                         \
		}                                           \
	} while (0)

#define WLT(w, call, label)                                                               \
	do {                                                                              \
		cublasStatus_t ws_ = (call);                                              \
		if (ws_ != CUBLAS_STATUS_SUCCESS) {                                       \
			char wb_[160];                                                    \
			fail_setup((w), "'%s' failed: %s", #call,                         \
				   gb_cublaslt_errstr(ws_, wb_, sizeof(wb_)));            \
			goto label;                                                       \
		}                                                                         \
	} while (0)

/*
 * Wait for an event by polling, so that a hung GPU leaves this thread
 * responsive: 0 done, -1 CUDA error (reported), -2 abandoned by the monitor.
 */
static int wait_event(struct worker *w, cudaEvent_t ev, const char *what)
{
	for (;;) {
		cudaError_t e = cudaEventQuery(ev);

		if (e == cudaSuccess)
			return 0;
		if (e != cudaErrorNotReady) {
			fail_cuda(w, what, e);
			return -1;
		}
		if (abandoned(w))
			return -2;
		gb_sleep_s(0.0005);
	}
}

/* Queue a forensic record for the monitor, which adds the telemetry of the moment. */
static void push_forensic(struct worker *w, const struct gb_stress_forensic *f)
{
	pthread_mutex_lock(&w->lock);
	if (w->n_forensics < STRESS_MAX_FORENSICS && w->n_pending < STRESS_MAX_FORENSICS) {
		w->pending[w->n_pending++] = *f;
		w->n_forensics++;
	} else {
		w->dropped++;
	}
	pthread_mutex_unlock(&w->lock);
}

/* ======================================================================= */
/* worker: GEMM setup                                                      */

static void *slot_ptr(const struct worker *w, uint64_t slot)
{
	return (char *)w->slots + slot * w->sz.bytes_slot;
}

static int alloc_dev(struct worker *w, void **p, uint64_t bytes, const char *what)
{
	cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
	char b[32], buf[160];

	if (e == cudaSuccess)
		return 0;
	*p = NULL;
	gb_format_bytes(b, sizeof(b), (double)bytes);
	fail_setup(w, "cannot allocate %s for %s: %s", b, what,
		   gb_cuda_errstr(e, buf, sizeof(buf)));
	return -1;
}

/* Size the slots to this GPU's free memory at the common dimension. */
static int size_worker(struct worker *w)
{
	const struct shared *sh = w->sh;
	size_t free_b = 0, total_b = 0;
	char err[256];

	WCUDA(w, cudaMemGetInfo(&free_b, &total_b), fail);
	if (gb_stress_size((double)free_b, sh->p->mem_frac, sh->n, sh->phases, sh->n_phases,
			   STRESS_FIXED_BYTES, &w->sz, err, sizeof(err))) {
		fail_setup(w, "%s", err);
		return -1;
	}
	return 0;
fail:
	return -1;
}

static int alloc_common(struct worker *w)
{
	const struct shared *sh = w->sh;
	uint64_t n = sh->n;

	if (alloc_dev(w, &w->workspace, STRESS_WORKSPACE, "the cuBLASLt workspace") ||
	    alloc_dev(w, (void **)&w->col, n * sizeof(double), "column sums") ||
	    alloc_dev(w, (void **)&w->row, n * sizeof(double), "row sums") ||
	    alloc_dev(w, (void **)&w->dv, sizeof(*w->dv), "verification records") ||
	    alloc_dev(w, (void **)&w->dflip, 2 * sizeof(*w->dflip), "the injection record") ||
	    alloc_dev(w, &w->delem, sizeof(double), "an element") ||
	    alloc_dev(w, (void **)&w->fp8_scale, sizeof(float), "the FP8 scale") ||
	    alloc_dev(w, &w->slots, w->sz.slots * w->sz.bytes_slot, "the result slots"))
		return -1;
	WCUDA(w, cudaMallocHost((void **)&w->hv, sizeof(*w->hv)), fail);
	WCUDA(w, cudaMallocHost((void **)&w->hflip, 2 * sizeof(*w->hflip)), fail);
	WCUDA(w, cudaMallocHost(&w->helem, sizeof(double)), fail);
	return 0;
fail:
	return -1;
}

static uint64_t algo_fingerprint(const cublasLtMatmulAlgo_t *a)
{
	uint64_t h = 0;

	for (size_t i = 0; i < sizeof(a->data) / sizeof(a->data[0]); i++)
		h = gb_stress_mix64(h ^ a->data[i]);
	return h;
}

/* The phase's cuBLASLt descriptors: TN, n^3, at the precision its types name. */
static int phase_desc(struct worker *w, struct wphase *ph, const struct gb_stress_gemm_type *t)
{
	uint64_t n = w->sh->n;
	const char *what = NULL;
	cublasStatus_t st;
	char b[160];

	/* peak_prec is the gpubench precision of the flavour (fp16 accumulates in FP32) */
	st = gb_lt_matmul_create(w->sh->lt, &ph->mm, t->peak_prec, t->in, t->out, n, n, n,
				 w->fp8_scale, STRESS_WORKSPACE, &what);
	if (st != CUBLAS_STATUS_SUCCESS) {
		fail_setup(w, "'%s' failed: %s", what, gb_cublaslt_errstr(st, b, sizeof(b)));
		return -1;
	}
	return 0;
}

/* Pin candidate c of a phase for the whole run (repeat-and-compare needs one algorithm). */
static void pin_algo(struct wphase *ph, int c)
{
	ph->algo = ph->cand[c].algo;
	ph->algo_index = c;
	ph->algo_fp = algo_fingerprint(&ph->algo);
}

/*
 * The heuristic's candidates, its first pinned for now: make_references
 * replaces it for a random phase when it does not repeat bit for bit.
 */
static int phase_algo(struct worker *w, struct wphase *ph, const struct gb_stress_phase *sp)
{
	int n = 0;

	WLT(w, gb_lt_matmul_algos(&ph->mm, w->lt, ph->cand, GB_STRESS_MAX_ALGOS, &n), fail);
	if (n < 1) {
		fail_setup(w, "cuBLASLt offers no algorithm for %s %llu^3 on this GPU",
			   gb_stress_prec_names[sp->prec], (unsigned long long)w->sh->n);
		return -1;
	}
	ph->n_cand = n;
	ph->compare = !w->sh->p->no_repeat;
	ph->repeatable = true;
	pin_algo(ph, 0);
	return 0;
fail:
	return -1;
}

static int upload(struct worker *w, double **dst, const double *src, uint64_t n)
{
	if (alloc_dev(w, (void **)dst, n * sizeof(double), "checksum references"))
		return -1;
	WCUDA(w, cudaMemcpyAsync(*dst, src, n * sizeof(double), cudaMemcpyHostToDevice, w->stream),
	      fail);
	return 0;
fail:
	return -1;
}

static int phase_setup(struct worker *w, size_t i)
{
	const struct shared *sh = w->sh;
	const struct gb_stress_phase *sp = &sh->phases[i];
	const struct gb_abft_ref *ref = &sh->refs[i];
	struct wphase *ph = &w->ph[i];
	struct gb_stress_gemm_type t;
	uint64_t elems = sh->n * sh->n;
	int64_t r = sp->mode == GB_STRESS_EXACT ? sp->r : 0;

	gb_stress_gemm_type(sp->prec, &t);
	ph->t_in = t.in;
	ph->t_out = t.out;
	if (alloc_dev(w, &ph->a, elems * gb_dtype_size(t.in), "input A") ||
	    alloc_dev(w, &ph->b, elems * gb_dtype_size(t.in), "input B"))
		return -1;
	/* the same keys as the CPU reference: the seed is shared by every GPU */
	WCUDA(w, gb_launch_stress_fill(ph->a, t.in, elems, gb_stress_key((uint64_t)sh->p->seed, 0),
				       t.sig_bits, r, w->stream), fail);
	WCUDA(w, gb_launch_stress_fill(ph->b, t.in, elems, gb_stress_key((uint64_t)sh->p->seed, 1),
				       t.sig_bits, r, w->stream), fail);
	if (upload(w, &ph->col_exp, ref->col_exp, sh->n) ||
	    upload(w, &ph->col_bound, ref->col_bound, sh->n) ||
	    upload(w, &ph->row_exp, ref->row_exp, sh->n) ||
	    upload(w, &ph->row_bound, ref->row_bound, sh->n))
		return -1;
	if (phase_desc(w, ph, &t) || phase_algo(w, ph, sp))
		return -1;
	return 0;
fail:
	return -1;
}

static int worker_setup(struct worker *w)
{
	static const float one = 1.0f;

	WCUDA(w, cudaSetDevice(w->dev), fail);
	WCUDA(w, cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking), fail);
	for (int i = 0; i < 3; i++)
		WCUDA(w, cudaEventCreate(&w->ev[i]), fail);
	beat(w);
	if (size_worker(w) || alloc_common(w))
		return -1;
	WCUDA(w, cudaMemcpyAsync(w->fp8_scale, &one, sizeof(one), cudaMemcpyHostToDevice,
				 w->stream), fail);
	WLT(w, w->sh->lt->cublasLtCreate(&w->lt), fail);
	for (size_t i = 0; i < w->sh->n_phases; i++) {
		if (phase_setup(w, i))
			return -1;
		beat(w);
	}
	WCUDA(w, cudaStreamSynchronize(w->stream), fail);
	beat(w);
	return 0;
fail:
	return -1;
}

static void worker_teardown(struct worker *w)
{
	const struct gb_cublaslt *lt = w->sh->lt;

	for (size_t i = 0; i < GB_STRESS_MAX_PHASES; i++) {
		struct wphase *ph = &w->ph[i];

		gb_lt_matmul_destroy(&ph->mm);
		cudaFree(ph->row_bound);
		cudaFree(ph->row_exp);
		cudaFree(ph->col_bound);
		cudaFree(ph->col_exp);
		cudaFree(ph->b);
		cudaFree(ph->a);
	}
	if (lt && w->lt)
		lt->cublasLtDestroy(w->lt);
	cudaFreeHost(w->helem);
	cudaFreeHost(w->hflip);
	cudaFreeHost(w->hv);
	cudaFree(w->slots);
	cudaFree(w->fp8_scale);
	cudaFree(w->delem);
	cudaFree(w->dflip);
	cudaFree(w->dv);
	cudaFree(w->row);
	cudaFree(w->col);
	cudaFree(w->workspace);
	for (int i = 0; i < 3; i++)
		if (w->ev[i])
			cudaEventDestroy(w->ev[i]);
	if (w->stream)
		cudaStreamDestroy(w->stream);
}

/* ======================================================================= */
/* worker: verification                                                    */

static bool sums_on(const struct shared *sh, size_t phase)
{
	return sh->phases[phase].mode == GB_STRESS_EXACT || !sh->p->no_abft;
}

/* Enqueue the verification of slots [first, first + count) (mod the working range). */
static int enqueue_verify(struct worker *w, size_t phase, const uint64_t *slot, size_t count,
			  bool compare)
{
	const struct shared *sh = w->sh;
	const struct wphase *ph = &w->ph[phase];
	uint64_t n = sh->n;
	bool sums = sums_on(sh, phase);

	WCUDA(w, cudaMemsetAsync(w->dv, 0, sizeof(*w->dv), w->stream), fail);
	for (size_t i = 0; i < count; i++) {
		if (sums) {
			WCUDA(w, cudaMemsetAsync(w->col, 0, n * sizeof(double), w->stream), fail);
			WCUDA(w, cudaMemsetAsync(w->row, 0, n * sizeof(double), w->stream), fail);
		}
		WCUDA(w, gb_launch_stress_verify(slot_ptr(w, slot[i]),
						 compare && ph->compare ? slot_ptr(w, phase) : NULL,
						 ph->t_out, n, n,
						 (uint32_t)slot[i], sums ? w->col : NULL,
						 sums ? w->row : NULL, w->dv, w->stream), fail);
		if (sums)
			WCUDA(w, gb_launch_stress_check_sums(w->col, w->row, ph->col_exp, ph->col_bound,
							     ph->row_exp, ph->row_bound, n, n,
							     (uint32_t)slot[i], w->dv, w->stream),
			      fail);
	}
	WCUDA(w, cudaMemcpyAsync(w->hv, w->dv, sizeof(*w->dv), cudaMemcpyDeviceToHost, w->stream),
	      fail);
	WCUDA(w, cudaMemcpyAsync(w->hflip, w->dflip, 2 * sizeof(*w->hflip), cudaMemcpyDeviceToHost,
				 w->stream), fail);
	WCUDA(w, cudaEventRecord(w->ev[2], w->stream), fail);
	return 0;
fail:
	return -1;
}

static double decode(enum gb_dtype t, unsigned long long bits)
{
	if (t == GB_DT_F64) {
		double d;

		memcpy(&d, &bits, sizeof(d));
		return d;
	} else {
		uint32_t u = (uint32_t)bits;
		float f;

		memcpy(&f, &u, sizeof(f));
		return f;
	}
}

static bool is_injected(const struct worker *w, uint64_t batch, uint32_t slot, int64_t row,
			int64_t col)
{
	const struct injection *in = &w->inj;

	return in->done && in->batch == batch && in->slot == slot &&
	       (row < 0 || row == in->row) && (col < 0 || col == in->col);
}

static void forensic_base(const struct worker *w, struct gb_stress_forensic *f, const char *layer,
			  uint64_t batch, uint32_t slot)
{
	gb_stress_forensic_init(f);
	f->device = w->dev;
	f->t_s = run_time(w->sh);
	f->layer = layer;
	f->batch = batch;
	f->slot = slot;
}

static void forensics_elems(struct worker *w, const struct gb_stress_verify *v, size_t phase,
			    uint64_t batch)
{
	enum gb_dtype t = w->ph[phase].t_out;
	unsigned n = v->n_elem < GB_STRESS_MAX_RECORDS ? v->n_elem : GB_STRESS_MAX_RECORDS;

	for (unsigned k = 0; k < n; k++) {
		const struct gb_stress_elem_rec *r = &v->elem[k];
		struct gb_stress_forensic f;

		forensic_base(w, &f, "repeat", batch, r->slot);
		f.row = r->row;
		f.col = r->col;
		f.type = t;
		f.have_bits = true;
		f.expected_bits = r->expected_bits;
		f.got_bits = r->got_bits;
		f.expected = decode(t, r->expected_bits);
		f.got = decode(t, r->got_bits);
		f.injected = is_injected(w, batch, r->slot, r->row, r->col);
		push_forensic(w, &f);
	}
}

/* Read element (row, col) of a slot back; NAN if that fails. */
static double read_elem(struct worker *w, enum gb_dtype t, uint32_t slot, uint32_t row,
			uint32_t col, unsigned long long *bits)
{
	size_t es = gb_dtype_size(t);
	const char *src = (const char *)slot_ptr(w, slot) + ((uint64_t)row + (uint64_t)col * w->sh->n) * es;

	*bits = 0;
	if (cudaMemcpyAsync(w->helem, src, es, cudaMemcpyDeviceToHost, w->stream) != cudaSuccess ||
	    cudaEventRecord(w->ev[2], w->stream) != cudaSuccess || wait_event(w, w->ev[2], "read"))
		return NAN;
	if (es == 8)
		memcpy(bits, w->helem, 8);
	else
		*bits = *(const uint32_t *)w->helem;
	return decode(t, *bits);
}

/* The pass's failing checksums as the CPU-side records gb_stress_locate() reads. */
static size_t sum_fails(const struct gb_stress_verify *v, struct gb_stress_sum_fail *out)
{
	unsigned n = v->n_sum < GB_STRESS_MAX_RECORDS ? v->n_sum : GB_STRESS_MAX_RECORDS;

	for (unsigned k = 0; k < n; k++) {
		out[k].slot = v->sum[k].slot;
		out[k].index = v->sum[k].index;
		out[k].is_row = v->sum[k].is_row;
	}
	return n;
}

/* The failing row checksum `row` of a slot (present: gb_stress_locate found it). */
static const struct gb_stress_sum_rec *row_rec(const struct gb_stress_verify *v, size_t n,
					      uint32_t slot, uint32_t row)
{
	for (size_t k = 0; k < n; k++)
		if (v->sum[k].slot == slot && v->sum[k].is_row && v->sum[k].index == row)
			return &v->sum[k];
	return NULL;
}

/*
 * Whether a located element needs its details (a read back and an O(k)
 * recomputation): for the layer's first element, or while forensics are
 * still recorded. A GPU that corrupts every GEMM must not pay that for
 * every one of them, only count it.
 */
static bool want_detail(struct worker *w, const struct gb_stress_corrupt *first)
{
	bool want;

	pthread_mutex_lock(&w->lock);
	want = !first->have || w->n_forensics < STRESS_MAX_FORENSICS;
	pthread_mutex_unlock(&w->lock);
	return want;
}

/*
 * The located element (row, col) of a slot: its value read back, the value
 * it should have recomputed on the CPU from the generator (exact in exact
 * phases; in random ones the GPU's rounding is not known, so the value is
 * known only within the checksums' bound, tol), and which bits differ.
 * The checksum residual is no estimate of it: a flip to 3e38 swamps the
 * column's other elements in the double sum, and observed - expected
 * then is the flipped value minus the whole column's expected sum.
 */
static void corrupt_detail(struct worker *w, size_t phase, uint32_t slot, uint32_t row,
			   uint32_t col, double tol, struct gb_stress_corrupt *e)
{
	unsigned long long got_bits;

	e->type = w->ph[phase].t_out;
	e->row = row;
	e->col = col;
	e->got = read_elem(w, e->type, slot, row, col, &got_bits);
	e->got_bits = got_bits;
	e->read = !isnan(e->got) || got_bits != 0;
	e->expected = gb_stress_element(&w->sh->phases[phase], (uint64_t)w->sh->p->seed, w->sh->n,
					row, col);
	if (e->read)
		gb_stress_explain(e->type, got_bits, e->expected, tol, &e->diff);
}

/* Count a located element in its layer; the first one's details are kept. */
static void count_corrupt(struct worker *w, bool exact, const struct gb_stress_corrupt *e)
{
	pthread_mutex_lock(&w->lock);
	gb_stress_corrupt_add(exact ? &w->exact_first : &w->abft_first, e);
	pthread_mutex_unlock(&w->lock);
}

/*
 * Checksum records into forensics. failed_sums: the pass's failing
 * checksums, kept or not. One failing row and one failing column in a
 * slot locate the element (gb_stress_locate): it is read back and
 * explained (corrupt_detail), counted in its layer, and recorded.
 */
static void forensics_sums(struct worker *w, const struct gb_stress_verify *v, size_t phase,
			   uint64_t batch, uint64_t failed_sums)
{
	bool exact = w->sh->phases[phase].mode == GB_STRESS_EXACT;
	const char *layer = exact ? "exact" : "abft";
	const struct gb_stress_corrupt *first = exact ? &w->exact_first : &w->abft_first;
	struct gb_stress_sum_fail fails[GB_STRESS_MAX_RECORDS];
	size_t n = sum_fails(v, fails);

	for (size_t k = 0; k < n; k++) {
		const struct gb_stress_sum_rec *c = &v->sum[k], *r;
		struct gb_stress_forensic f;
		struct gb_stress_corrupt e;
		uint32_t row, col;
		bool located = gb_stress_locate(fails, n, failed_sums, c->slot, &row, &col);

		if (located && c->is_row)
			continue; /* reported with its column */
		forensic_base(w, &f, layer, batch, c->slot);
		f.type = w->ph[phase].t_out;
		f.sum_observed = c->observed;
		f.sum_expected = c->expected;
		f.sum_bound = c->bound;
		if (c->is_row)
			f.row = c->index;
		else
			f.col = c->index;
		if (located) {
			f.row = row;
			f.col = col;
		}
		f.injected = is_injected(w, batch, c->slot, f.row, f.col);
		if (!located) {
			push_forensic(w, &f);
			continue;
		}
		gb_stress_corrupt_init(&e);
		e.batch = batch;
		e.t_s = f.t_s;
		if (f.injected || want_detail(w, first)) {
			r = row_rec(v, n, c->slot, row);
			corrupt_detail(w, phase, c->slot, row, col,
				       r ? fmin(c->bound, r->bound) : c->bound, &e);
			f.got = e.got;
			f.got_bits = e.got_bits;
			f.expected = e.expected;
			/* exact phases know every bit; random ones when one flip explains it */
			f.have_bits = e.read && (exact || e.diff.n_bits == 1);
			f.expected_bits = e.diff.expected_bits;
		}
		push_forensic(w, &f); /* counted as dropped when the record is full */
		/* --inject-fault's flip is not the GPU's corruption */
		if (!f.injected)
			count_corrupt(w, exact, &e);
	}
}

static void forensic_nonfinite(struct worker *w, const struct gb_stress_verify *v, uint64_t batch,
			       uint64_t count)
{
	struct gb_stress_forensic f;

	/* without repeat or checksums the elements are not located: say so once per batch */
	if (!count || v->n_elem || v->n_sum)
		return;
	forensic_base(w, &f, "nan", batch, 0);
	f.slot = -1;
	f.got = NAN;
	push_forensic(w, &f);
}

/*
 * The injected flip shows in the batch's counts: one element in repeat, its
 * row and column checksums, and the non-finite count when it became
 * infinite. Take those out (it is not a hardware error) and note who caught it.
 */
static void attribute_injection(struct worker *w, struct gb_stress_verify *v, size_t phase)
{
	struct injection *in = &w->inj;
	enum gb_dtype t = w->ph[phase].t_out;
	const char *sums = w->sh->phases[phase].mode == GB_STRESS_EXACT ? "exact" : "abft";
	unsigned n = v->n_sum < GB_STRESS_MAX_RECORDS ? v->n_sum : GB_STRESS_MAX_RECORDS;
	uint64_t matched = 0;
	size_t used = 0;

	in->caught[0] = '\0';
	if (!w->sh->p->no_repeat && v->repeat_diffs) {
		v->repeat_diffs--;
		used += (size_t)snprintf(in->caught + used, sizeof(in->caught) - used, "repeat");
	}
	for (unsigned k = 0; k < n; k++)
		matched += v->sum[k].slot == in->slot &&
			   v->sum[k].index == (v->sum[k].is_row ? in->row : in->col);
	if (v->n_sum > GB_STRESS_MAX_RECORDS && v->sum_mismatches >= 2)
		matched = 2;
	if (matched && sums_on(w->sh, phase)) {
		v->sum_mismatches -= matched < v->sum_mismatches ? matched : v->sum_mismatches;
		snprintf(in->caught + used, sizeof(in->caught) - used, "%s%s", used ? ", " : "",
			 sums);
		used = strlen(in->caught);
	}
	if (!isfinite(decode(t, w->hflip[1])) && v->nonfinite) {
		v->nonfinite--;
		snprintf(in->caught + used, sizeof(in->caught) - used, "%snan", used ? ", " : "");
	}
	in->f.type = t;
	in->f.have_bits = true;
	in->f.expected_bits = w->hflip[0];
	in->f.got_bits = w->hflip[1];
	in->f.expected = decode(t, w->hflip[0]);
	in->f.got = decode(t, w->hflip[1]);
}

/* Fold a finished verification into the counters and forensics. */
static void take_verify(struct worker *w, size_t phase, uint64_t batch, bool injected_batch)
{
	struct gb_stress_verify v = *w->hv;
	/*
	 * Every failing checksum of the pass, before the injected flip's are
	 * taken out: the records are complete only when this many were kept
	 * (n_sum stops counting once the records are full, so it cannot say).
	 */
	uint64_t failed_sums = v.sum_mismatches;
	bool exact = w->sh->phases[phase].mode == GB_STRESS_EXACT;
	struct wphase *ph = &w->ph[phase];
	double ratio = decode(GB_DT_F64, v.max_ratio_bits);

	if (injected_batch)
		attribute_injection(w, &v, phase);
	forensics_elems(w, &v, phase, batch);
	forensics_sums(w, &v, phase, batch, failed_sums);
	forensic_nonfinite(w, &v, batch, v.nonfinite);
	pthread_mutex_lock(&w->lock);
	w->repeat += v.repeat_diffs;
	w->nonfinite += v.nonfinite;
	if (exact)
		w->exact += v.sum_mismatches;
	else
		w->abft += v.sum_mismatches;
	/*
	 * The injected flip's checksums would swamp the headroom of the others:
	 * skip that batch. A batch whose sums all match exactly (no bits: ratio
	 * 0, as when few-bit inputs make the accumulation exact) used none of
	 * the bound, and says 0, not "no ratio".
	 */
	if (!exact && !injected_batch && sums_on(w->sh, phase) &&
	    (isnan(ph->abft_max_ratio) || ratio > ph->abft_max_ratio))
		ph->abft_max_ratio = ratio;
	pthread_mutex_unlock(&w->lock);
}

/* ======================================================================= */
/* worker: GEMM load                                                       */

static cublasStatus_t matmul(struct worker *w, size_t phase, uint64_t slot)
{
	struct wphase *ph = &w->ph[phase];
	void *c = slot_ptr(w, slot);

	/* the pinned algorithm and the same workspace every time: bitwise repeatable */
	return gb_lt_matmul_run(&ph->mm, w->lt, ph->a, ph->b, c, &ph->algo, w->workspace,
				STRESS_WORKSPACE, w->stream);
}

static int digest_slot(struct worker *w, size_t phase, uint64_t *out)
{
	uint64_t words = w->sh->n * w->sh->n * gb_dtype_size(w->ph[phase].t_out) / 4;

	WCUDA(w, cudaMemsetAsync(w->dflip, 0, sizeof(*w->dflip), w->stream), fail);
	WCUDA(w, gb_launch_stress_digest(slot_ptr(w, phase), words, w->dflip, w->stream), fail);
	WCUDA(w, cudaMemcpyAsync(w->hflip, w->dflip, sizeof(*w->hflip), cudaMemcpyDeviceToHost,
				 w->stream), fail);
	WCUDA(w, cudaEventRecord(w->ev[2], w->stream), fail);
	if (wait_event(w, w->ev[2], "digest"))
		return -1;
	*out = w->hflip[0];
	return 0;
fail:
	return -1;
}

/*
 * One GEMM of a phase into a slot; a failure is reported. cuBLASLt answers
 * with its own status, so a launch refused because an earlier kernel lost
 * the context reads as EXECUTION_FAILED: the CUDA error behind it decides.
 * A sticky one goes through fail_cuda like any other (under load: the GPU
 * failed, a finding); anything else could not run. Neither query blocks:
 * a sticky error is what every later call answers.
 */
static int run_gemm(struct worker *w, size_t phase, uint64_t slot)
{
	cublasStatus_t st = matmul(w, phase, slot);
	cudaError_t e;
	char b[160];

	if (st == CUBLAS_STATUS_SUCCESS)
		return 0;
	e = cudaGetLastError();
	if (e == cudaSuccess)
		e = cudaStreamQuery(w->stream);
	if (gb_cuda_error_is_sticky(e)) {
		fail_cuda(w, "cublasLtMatmul", e);
		return -1;
	}
	fail_setup(w, "'cublasLtMatmul' failed: %s", gb_cublaslt_errstr(st, b, sizeof(b)));
	return -1;
}

/* Elements of slot `slot` whose bits differ from the phase's reference slot. */
static int compare_slots(struct worker *w, size_t phase, uint64_t slot, uint64_t *diffs)
{
	uint64_t n = w->sh->n;

	WCUDA(w, cudaMemsetAsync(w->dv, 0, sizeof(*w->dv), w->stream), fail);
	WCUDA(w, gb_launch_stress_verify(slot_ptr(w, slot), slot_ptr(w, phase), w->ph[phase].t_out,
					 n, n, (uint32_t)slot, NULL, NULL, w->dv, w->stream),
	      fail);
	WCUDA(w, cudaMemcpyAsync(w->hv, w->dv, sizeof(*w->dv), cudaMemcpyDeviceToHost, w->stream),
	      fail);
	WCUDA(w, cudaEventRecord(w->ev[2], w->stream), fail);
	if (wait_event(w, w->ev[2], "compare"))
		return -1;
	*diffs = w->hv->repeat_diffs;
	return 0;
fail:
	return -1;
}

struct repro {
	struct worker *w;
	size_t phase;
};

/*
 * gb_stress_pick_algo's trial: candidate c computes the reference, then
 * STRESS_REPRO_RUNS more results into the first working slot (the load
 * overwrites it), each compared bit for bit with the reference.
 */
static int repro_trial(void *user, int c, uint64_t *diffs)
{
	struct repro *r = user;
	struct worker *w = r->w;
	uint64_t scratch = w->sh->n_phases;

	pin_algo(&w->ph[r->phase], c);
	*diffs = 0;
	if (run_gemm(w, r->phase, r->phase))
		return -1;
	for (int k = 0; k < STRESS_REPRO_RUNS; k++) {
		uint64_t d = 0;

		if (run_gemm(w, r->phase, scratch) || compare_slots(w, r->phase, scratch, &d))
			return -1;
		*diffs = d > *diffs ? d : *diffs;
		beat(w);
	}
	return 0;
}

/*
 * A random phase's reference with an algorithm that repeats bit for bit
 * (see gb_stress_pick_algo). Without one the phase is not compared, here
 * or across GPUs, and the report says so. Exact phases need no such check:
 * every partial sum is an integer, exact in any order, so any algorithm
 * gives the same bits and a difference can only be an error.
 */
static int reference_gemm(struct worker *w, size_t p)
{
	const struct stress_params *prm = w->sh->p;
	struct wphase *ph = &w->ph[p];
	struct repro r = { w, p };

	if (w->sh->phases[p].mode == GB_STRESS_EXACT || (prm->no_repeat && prm->no_cross))
		return run_gemm(w, p, p);
	if (gb_stress_pick_algo(ph->n_cand, repro_trial, &r, &ph->pick))
		return -1;
	ph->picked = true;
	if (ph->pick.chosen >= 0)
		return 0; /* its trial computed the reference last */
	ph->compare = false;
	ph->repeatable = false;
	pin_algo(ph, 0);
	return run_gemm(w, p, p);
}

/* Each phase's reference result: computed once, verified by its checksums, digested. */
static int make_references(struct worker *w)
{
	for (size_t p = 0; p < w->sh->n_phases; p++) {
		uint64_t slot = p;

		if (reference_gemm(w, p))
			return -1;
		if (enqueue_verify(w, p, &slot, 1, false) || wait_event(w, w->ev[2], "verify"))
			return -1;
		take_verify(w, p, 0, false);
		if (digest_slot(w, p, &w->ph[p].digest))
			return -1;
		w->ph[p].digest_ok = true;
		beat(w);
	}
	return 0;
}

/* The slots of the next batch of a phase: working slots, round robin. */
static size_t next_slots(struct worker *w, size_t phase, uint64_t *slot, size_t max)
{
	uint64_t working = w->sz.slots - w->sh->n_phases;
	uint64_t want = gb_stress_batcher_next(&w->batcher, phase);
	size_t g = want < max ? (size_t)want : max;

	if (g > working)
		g = (size_t)working;
	for (size_t i = 0; i < g; i++) {
		slot[i] = w->sh->n_phases + w->cursor;
		w->cursor = (w->cursor + 1) % working;
	}
	return g;
}

static int maybe_inject(struct worker *w, uint64_t batch, uint64_t slot, size_t phase)
{
	struct injection *in = &w->inj;
	uint64_t n = w->sh->n;

	if (!w->sh->p->inject_fault || in->done ||
	    gb_now_s() - w->load_start_s < w->sh->inject_at_s)
		return 0;
	/*
	 * Only into a batch that a layer looks at (gb_stress_inject_ok). With
	 * ABFT on, wait for a random-data batch: an exact one would be caught
	 * by "repeat, exact" and ABFT, the default layer, would go untested one
	 * run in four. With --no-abft a random batch counts only when its phase
	 * is compared (a phase with no bit-reproducible algorithm is not), else
	 * the flip waits for an exact batch.
	 */
	if (!gb_stress_inject_ok(w->sh->phases[phase].mode, !w->sh->p->no_abft,
				 w->ph[phase].compare))
		return 0;
	in->done = true;
	in->batch = batch;
	in->slot = (uint32_t)slot;
	in->row = (uint32_t)(n / 2);
	in->col = (uint32_t)(n / 2);
	in->t_s = run_time(w->sh);
	forensic_base(w, &in->f, "injected", batch, in->slot);
	in->f.row = in->row;
	in->f.col = in->col;
	in->f.injected = true;
	WCUDA(w, gb_launch_stress_flip(slot_ptr(w, slot), w->ph[phase].t_out,
				       in->row + (uint64_t)in->col * n, w->dflip, w->stream), fail);
	return 1;
fail:
	return -1;
}

/*
 * Account a finished batch: throughput (random phases only: phase p < n_random
 * is series p), heartbeat, and the phase's next batch size.
 */
static void account_batch(struct worker *w, size_t phase, size_t g, double busy_s, double wall_s)
{
	double n = (double)w->sh->n;

	pthread_mutex_lock(&w->lock);
	if (phase < w->sh->n_random && phase < GB_STRESS_MAX_SERIES) {
		w->work_acc[phase] += 2.0 * n * n * n * (double)g;
		w->busy_acc[phase] += busy_s;
	}
	w->gemms += g;
	w->batches++;
	w->heartbeat_s = gb_now_s();
	if (wall_s > w->max_batch_s)
		w->max_batch_s = wall_s;
	w->load_s = gb_now_s() - w->load_start_s;
	pthread_mutex_unlock(&w->lock);
	gb_stress_batcher_done(&w->batcher, phase, g, busy_s);
}

/* One batch: G GEMMs into working slots, timed on the device, then verified. */
static int run_batch(struct worker *w, uint64_t batch)
{
	const struct shared *sh = w->sh;
	size_t phase = gb_stress_batch_phase(sh->n_random, sh->n_exact, batch - 1);
	uint64_t slot[4096];
	size_t g = next_slots(w, phase, slot, sizeof(slot) / sizeof(slot[0]));
	double t0 = gb_now_s();
	float ms = 0;
	int inj;

	WCUDA(w, cudaEventRecord(w->ev[0], w->stream), fail);
	for (size_t i = 0; i < g; i++) {
		/* a call that returns after the monitor gave up: queue nothing more */
		if (abandoned(w) || run_gemm(w, phase, slot[i]))
			return -1;
	}
	WCUDA(w, cudaEventRecord(w->ev[1], w->stream), fail);
	inj = maybe_inject(w, batch, slot[0], phase);
	if (inj < 0 || enqueue_verify(w, phase, slot, g, !sh->p->no_repeat))
		return -1;
	if (wait_event(w, w->ev[2], "batch"))
		return -1;
	WCUDA(w, cudaEventElapsedTime(&ms, w->ev[0], w->ev[1]), fail);
	take_verify(w, phase, batch, inj > 0);
	account_batch(w, phase, g, ms / 1e3, gb_now_s() - t0);
	return 0;
fail:
	return -1;
}

/* Idle as the load profile asks, in short naps so stop and the heartbeat stay live. */
static void profile_idle(struct worker *w, double busy_s, double deadline)
{
	double t = gb_now_s() - w->load_start_s;
	double until = gb_now_s() + gb_stress_idle_after(&w->sh->sched, t, busy_s);

	if (until > deadline)
		until = deadline;
	while (gb_now_s() < until && !should_stop(w)) {
		gb_sleep_s(fmin(0.05, until - gb_now_s()));
		beat(w);
	}
}

/* After the load: every reference must still hold what it held (memory retention). */
static void recheck_references(struct worker *w)
{
	for (size_t p = 0; p < w->sh->n_phases; p++) {
		uint64_t d, slot = p;

		if (digest_slot(w, p, &d))
			return;
		if (d == w->ph[p].digest)
			continue;
		w->ph[p].digest_changed = true;
		pthread_mutex_lock(&w->lock);
		w->repeat++;
		pthread_mutex_unlock(&w->lock);
		/* the checksums say where, when they can */
		if (enqueue_verify(w, p, &slot, 1, false) || wait_event(w, w->ev[2], "verify"))
			return;
		take_verify(w, p, w->batches, false);
	}
}

/* The GPU's bus id for NVML, NULL when unknown. */
static const char *worker_pci(const struct worker *w)
{
	return w->info ? w->info->pci_bus_id : NULL;
}

/*
 * Read NVML's violation counters at the start or end of the load. Read
 * into a copy and stored under the lock: the monitor takes w->viol under it
 * even from a worker it gave up on.
 */
static void viol_read(struct worker *w, bool end)
{
	struct gb_stress_viol v;

	pthread_mutex_lock(&w->lock);
	v = w->viol;
	pthread_mutex_unlock(&w->lock);
	gb_stress_viol_read(&v, worker_pci(w), end, gb_now_s());
	pthread_mutex_lock(&w->lock);
	w->viol = v;
	pthread_mutex_unlock(&w->lock);
}

/*
 * The load begins now: running, and NVML's violation counters read, so the
 * exact throttle shares cover the load and not the set-up before it.
 */
static void load_began(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->state = W_RUNNING;
	w->loaded = true;
	w->load_start_s = gb_now_s();
	w->heartbeat_s = w->load_start_s;
	pthread_mutex_unlock(&w->lock);
	viol_read(w, false);
}

static void gemm_load(struct worker *w)
{
	double deadline;
	uint64_t batch = 1; /* batch 0 made the references */

	if (worker_setup(w))
		return;
	load_began(w);
	deadline = w->load_start_s + w->sh->p->duration_s;
	gb_stress_batcher_init(&w->batcher, w->sz.slots - w->sh->n_phases, STRESS_BATCH_TARGET_S);
	if (make_references(w))
		return;
	while (!should_stop(w) && gb_now_s() < deadline) {
		double t0 = gb_now_s();

		if (run_batch(w, batch++))
			return;
		profile_idle(w, gb_now_s() - t0, deadline);
	}
	if (!abandoned(w))
		recheck_references(w);
}

/* ======================================================================= */
/* worker: memtest                                                         */

/* One write or verify pass; 0, -1 on error (reported), -2 abandoned. */
struct mt_step {
	int kind;
	uint32_t param;
	int verify;      /* 0 write, 1 verify, 2 verify and write the complement */
};

static int memtest_alloc(struct worker *w, uint64_t *words)
{
	size_t free_b = 0, total_b = 0;
	double want;
	cudaError_t e = cudaSuccess;

	WCUDA(w, cudaMemGetInfo(&free_b, &total_b), fail);
	want = (double)free_b * w->sh->p->mem_frac;
	/* the largest allocation that succeeds, from the requested share down */
	for (int tries = 0; tries < 20; tries++, want *= STRESS_MEM_SHRINK) {
		uint64_t bytes = (uint64_t)want & ~((2ULL << 20) - 1);

		if (bytes < (2ULL << 20))
			break;
		e = cudaMalloc(&w->slots, bytes);
		if (e == cudaSuccess) {
			*words = bytes / 4;
			w->mt_bytes = bytes;
			return 0;
		}
		cudaGetLastError();
	}
	fail_cuda(w, "cudaMalloc (memtest region)", e == cudaSuccess ? cudaErrorMemoryAllocation : e);
fail:
	return -1;
}

static void memtest_forensics(struct worker *w, const struct gb_memtest_report *r)
{
	unsigned n = r->n_rec < GB_STRESS_MAX_RECORDS ? r->n_rec : GB_STRESS_MAX_RECORDS;

	for (unsigned k = 0; k < n; k++) {
		struct gb_stress_forensic f;

		forensic_base(w, &f, "memtest", 0, 0);
		f.slot = -1;
		f.offset = (int64_t)(r->rec[k].word * 4);
		/* the virtual address lets repeats across runs of one process be matched */
		f.address = (uint64_t)(uintptr_t)w->slots + r->rec[k].word * 4;
		f.pass = w->mt.pass;
		snprintf(f.pattern, sizeof(f.pattern), "%s", w->mt.pattern);
		f.type = GB_DT_I32;
		f.have_bits = true;
		f.expected_bits = r->rec[k].expected;
		f.got_bits = r->rec[k].got;
		f.injected = w->inj.done && r->rec[k].word == w->inj.word;
		push_forensic(w, &f);
	}
}

/*
 * --inject-fault in memtest mode: flip bit 0 of one word between a write and
 * its verify. Both copies go on the worker's stream, which does not
 * synchronise with the legacy default stream (cudaStreamNonBlocking): a
 * plain cudaMemcpy could land after the verify kernel had read the word.
 * The flipped word is staged in pinned memory that lives as long as the
 * worker, so the asynchronous copy reads it whenever it runs.
 */
static int memtest_inject(struct worker *w, uint64_t words)
{
	uint32_t *h = (uint32_t *)(void *)w->hflip; /* [0] read back, [1] written */
	uint32_t *p = (uint32_t *)w->slots + words / 2;
	uint32_t word;

	WCUDA(w, cudaMemcpyAsync(&h[0], p, sizeof(*h), cudaMemcpyDeviceToHost, w->stream), fail);
	WCUDA(w, cudaEventRecord(w->ev[2], w->stream), fail);
	if (wait_event(w, w->ev[2], "inject"))
		return -1;
	h[1] = h[0] ^ 1u;
	word = h[1];
	/* stream order puts the flip after the write pass and before the verify */
	WCUDA(w, cudaMemcpyAsync(p, &h[1], sizeof(*h), cudaMemcpyHostToDevice, w->stream), fail);
	w->inj.done = true;
	w->inj.word = words / 2;
	w->inj.t_s = run_time(w->sh);
	forensic_base(w, &w->inj.f, "injected", 0, 0);
	w->inj.f.slot = -1;
	w->inj.f.offset = (int64_t)(words / 2 * 4);
	w->inj.f.address = (uint64_t)(uintptr_t)p;
	w->inj.f.pass = w->mt.pass;
	snprintf(w->inj.f.pattern, sizeof(w->inj.f.pattern), "%s", w->mt.pattern);
	w->inj.f.injected = true;
	w->inj.f.type = GB_DT_I32;
	w->inj.f.have_bits = true;
	w->inj.f.expected_bits = word ^ 1u;
	w->inj.f.got_bits = word;
	return 0;
fail:
	return -1;
}

static int memtest_step(struct worker *w, const struct mt_step *s, uint64_t words, uint64_t seed)
{
	struct gb_memtest_report *dr = (struct gb_memtest_report *)(void *)w->dv;
	struct gb_memtest_report r;
	float ms = 0;
	double bytes = (double)words * 4 * (s->verify == 2 ? 2 : 1);
	bool inject;

	gb_memtest_pattern_name(s->kind, s->param, s->verify == 2, w->mt.pattern,
				sizeof(w->mt.pattern));
	inject = s->verify && w->sh->p->inject_fault && !w->inj.done &&
		 gb_now_s() - w->load_start_s >= w->sh->inject_at_s;
	if (inject && memtest_inject(w, words))
		return -1;
	WCUDA(w, cudaMemsetAsync(dr, 0, sizeof(*dr), w->stream), fail);
	WCUDA(w, cudaEventRecord(w->ev[0], w->stream), fail);
	if (s->verify)
		WCUDA(w, gb_launch_memtest_verify((uint32_t *)w->slots, words, s->kind, s->param, seed,
						  s->verify == 2, dr, w->stream), fail);
	else
		WCUDA(w, gb_launch_memtest_write((uint32_t *)w->slots, words, s->kind, s->param, seed,
						 w->stream), fail);
	WCUDA(w, cudaEventRecord(w->ev[1], w->stream), fail);
	WCUDA(w, cudaMemcpyAsync(w->hv, dr, sizeof(r), cudaMemcpyDeviceToHost, w->stream), fail);
	WCUDA(w, cudaEventRecord(w->ev[2], w->stream), fail);
	if (wait_event(w, w->ev[2], "memtest"))
		return -1;
	WCUDA(w, cudaEventElapsedTime(&ms, w->ev[0], w->ev[1]), fail);
	memcpy(&r, w->hv, sizeof(r));
	if (inject && r.failures) {
		r.failures--;
		snprintf(w->inj.caught, sizeof(w->inj.caught), "memtest");
	}
	memtest_forensics(w, &r);
	pthread_mutex_lock(&w->lock);
	w->mem_errors += r.failures;
	w->mem_bytes += (uint64_t)bytes;
	w->work_acc[0] += bytes;
	w->busy_acc[0] += ms / 1e3;
	w->batches++;
	w->heartbeat_s = gb_now_s();
	w->load_s = gb_now_s() - w->load_start_s;
	pthread_mutex_unlock(&w->lock);
	return 0;
fail:
	return -1;
}

/* One pass: walking ones and zeros (32 positions each), moving inversions, random. */
static size_t memtest_plan(struct mt_step *s, size_t max, uint64_t pass)
{
	static const uint32_t solid[] = { 0x00000000u, 0x55555555u, 0x33333333u, 0x0F0F0F0Fu };
	uint32_t rnd = (uint32_t)gb_stress_mix64(pass);
	size_t n = 0;

	for (int kind = GB_MT_WALK1; kind <= GB_MT_WALK0; kind++) {
		for (uint32_t b = 0; b < 32 && n + 2 <= max; b++) {
			s[n++] = (struct mt_step){ kind, b, 0 };
			s[n++] = (struct mt_step){ kind, b, 1 };
		}
	}
	/* moving inversions: p, then p -> ~p, ~p -> p, and p read once more */
	for (size_t i = 0; i <= sizeof(solid) / sizeof(solid[0]) && n + 4 <= max; i++) {
		uint32_t p = i < sizeof(solid) / sizeof(solid[0]) ? solid[i] : rnd;

		s[n++] = (struct mt_step){ GB_MT_SOLID, p, 0 };
		s[n++] = (struct mt_step){ GB_MT_SOLID, p, 2 };
		s[n++] = (struct mt_step){ GB_MT_SOLID, ~p, 2 };
		s[n++] = (struct mt_step){ GB_MT_SOLID, p, 1 };
	}
	if (n + 2 <= max) {
		s[n++] = (struct mt_step){ GB_MT_RANDOM, 0, 0 };
		s[n++] = (struct mt_step){ GB_MT_RANDOM, 0, 1 };
	}
	return n;
}

static void memtest_load(struct worker *w)
{
	struct mt_step plan[160];
	uint64_t words = 0;
	double deadline;

	WCUDA(w, cudaSetDevice(w->dev), out);
	WCUDA(w, cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking), out);
	for (int i = 0; i < 3; i++)
		WCUDA(w, cudaEventCreate(&w->ev[i]), out);
	if (alloc_dev(w, (void **)&w->dv, sizeof(struct gb_memtest_report), "memtest records"))
		return;
	WCUDA(w, cudaMallocHost((void **)&w->hv, sizeof(struct gb_memtest_report) > sizeof(*w->hv)
						       ? sizeof(struct gb_memtest_report)
						       : sizeof(*w->hv)), out);
	/* the --inject-fault staging words (memtest_inject) */
	WCUDA(w, cudaMallocHost((void **)&w->hflip, 2 * sizeof(*w->hflip)), out);
	if (memtest_alloc(w, &words))
		return;
	load_began(w);
	deadline = w->load_start_s + w->sh->p->duration_s;
	for (uint64_t pass = 0; !should_stop(w) && gb_now_s() < deadline; pass++) {
		size_t n = memtest_plan(plan, sizeof(plan) / sizeof(plan[0]), pass);
		uint64_t seed = gb_stress_mix64((uint64_t)w->sh->p->seed ^ pass);

		w->mt.pass = pass + 1;
		for (size_t i = 0; i < n && !should_stop(w) && gb_now_s() < deadline; i++)
			if (memtest_step(w, &plan[i], words, seed))
				return;
	}
out:
	return;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	beat(w);
	if (w->sh->p->memtest)
		memtest_load(w);
	else
		gemm_load(w);
	/* abandoned: the GPU may be wedged in a call; touch nothing of it */
	if (abandoned(w))
		return NULL;
	if (w->loaded)
		viol_read(w, true);
	worker_teardown(w);
	pthread_mutex_lock(&w->lock);
	if (w->state == W_RUNNING || w->state == W_STARTING)
		w->state = W_DONE;
	w->heartbeat_s = gb_now_s();
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* ======================================================================= */
/* monitor                                                                 */

struct monitor {
	struct shared *sh;
	struct worker *w;
	size_t n;
	struct gb_stress_obs *obs;
	struct gb_stress_monitor mon;
	bool mon_ok;
	struct gb_telemetry_sample *samples;
	double *tp;                     /* the last interval's throughput per GPU, all series */
	double (*tp_series)[GB_STRESS_MAX_SERIES]; /* ... and per series */
	cJSON *forensics;               /* array, moved into the report */
	int tick;
	int progress_every;             /* ticks between human progress lines; 0: none */
	bool jsonl;
	bool live;                      /* a live status line per GPU through ctx (a terminal) */
};

static bool finished(enum wstate s)
{
	return s == W_DONE || s == W_FAILED || s == W_ERROR || s == W_HUNG;
}

/* Move a worker's pending forensics to the report, with the telemetry of the moment. */
static void drain_forensics(struct monitor *m, size_t i)
{
	struct worker *w = &m->w[i];
	struct gb_stress_forensic f[STRESS_MAX_FORENSICS];
	size_t n;

	pthread_mutex_lock(&w->lock);
	n = w->n_pending;
	memcpy(f, w->pending, n * sizeof(f[0]));
	w->n_pending = 0;
	pthread_mutex_unlock(&w->lock);
	for (size_t k = 0; k < n; k++) {
		if (m->mon_ok && m->mon.have_last && m->mon.have_last[i]) {
			f[k].have_tel = true;
			f[k].tel = m->mon.last[i];
		}
		cJSON_AddItemToArray(m->forensics, gb_stress_forensic_json(&f[k]));
	}
}

/*
 * The interval's throughput of worker i (TFLOP/s, or GB/s for memtest) per
 * series into tp[], NAN for a series with no batch; returns all series
 * together (work over device time), NAN if idle.
 */
static double take_throughput(struct monitor *m, size_t i, double *tp, double *load_t)
{
	struct worker *w = &m->w[i];
	double work[GB_STRESS_MAX_SERIES], busy[GB_STRESS_MAX_SERIES], all_w = 0, all_b = 0;
	double unit = m->sh->p->memtest ? 1e9 : 1e12;

	pthread_mutex_lock(&w->lock);
	memcpy(work, w->work_acc, sizeof(work));
	memcpy(busy, w->busy_acc, sizeof(busy));
	memset(w->work_acc, 0, sizeof(w->work_acc));
	memset(w->busy_acc, 0, sizeof(w->busy_acc));
	*load_t = w->loaded ? gb_now_s() - w->load_start_s : NAN;
	pthread_mutex_unlock(&w->lock);
	for (size_t s = 0; s < GB_STRESS_MAX_SERIES; s++) {
		tp[s] = busy[s] > 0 ? work[s] / busy[s] / unit : NAN;
		all_w += work[s];
		all_b += busy[s];
	}
	return all_b > 0 ? all_w / all_b / unit : NAN;
}

static void sample_tick(struct monitor *m)
{
	double t = run_time(m->sh);

	for (size_t i = 0; i < m->n; i++) {
		double load_t;

		m->tp[i] = take_throughput(m, i, m->tp_series[i], &load_t);
		for (size_t s = 0; isfinite(load_t) && s < m->obs[i].n_series; s++)
			gb_stress_obs_add_throughput(&m->obs[i], s, load_t, m->tp_series[i][s]);
	}
	if (!m->mon_ok)
		return;
	gb_stress_monitor_sample(&m->mon, t, m->tp, m->samples);
	for (size_t i = 0; i < m->n; i++)
		if (m->mon.have_last[i] && m->mon.last[i].t_s == t) {
			gb_run_model_lock(); /* the watchdog may be writing the report */
			gb_run_add_telemetry(m->sh->ctx->run, &m->samples[i]);
			gb_run_model_unlock();
		}
	gb_stress_monitor_poll_xids(&m->mon, 0);
}

/* Hung workers: no heartbeat for max(30 s, 10 batches). */
static void watchdog(struct monitor *m)
{
	double now = gb_now_s();

	for (size_t i = 0; i < m->n; i++) {
		struct worker *w = &m->w[i];
		double limit, stale;

		pthread_mutex_lock(&w->lock);
		limit = hang_limit_s(w);
		stale = now - w->heartbeat_s;
		if (!finished(w->state) && w->started && stale > limit) {
			w->state = W_HUNG;
			give_up(w);
			snprintf(w->error, sizeof(w->error),
				 "hung: no progress for %.0f s (limit %.0f s); the GPU was abandoned",
				 stale, limit);
		}
		pthread_mutex_unlock(&w->lock);
	}
}

static uint64_t findings(struct worker *w)
{
	uint64_t f;

	pthread_mutex_lock(&w->lock);
	f = w->abft + w->exact + w->repeat + w->nonfinite + w->mem_errors +
	    (w->state == W_FAILED);
	pthread_mutex_unlock(&w->lock);
	return f;
}

/* --fail-early: a verification finding, a hardware XID or a temperature over the limit */
static bool any_finding(struct monitor *m, const struct gb_stress_thresholds *th)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct gb_stress_obs *o = &m->obs[i];

		if (findings(&m->w[i]) || (o->n_temp && o->temp_max > th->temp_limit_c))
			return true;
		for (size_t k = 0; k < o->n_xids; k++)
			if (gb_stress_xid_is_hardware(o->xids[k]))
				return true;
	}
	return false;
}

static const char *state_name(enum wstate s)
{
	static const char *const names[] = { "starting", "running", "done", "failed", "error", "hung" };

	return names[s];
}

/* Worker i at this moment, as the progress line shows it. */
static void progress_of(struct monitor *m, size_t i, struct gb_stress_progress *p)
{
	struct worker *w = &m->w[i];
	const struct gb_telemetry_sample *s = m->mon_ok && m->mon.have_last[i] ? &m->mon.last[i] : NULL;
	double dur = m->sh->p->duration_s, load_s;
	enum wstate st;

	memset(p, 0, sizeof(*p));
	p->errors = findings(w);
	pthread_mutex_lock(&w->lock);
	load_s = w->loaded ? gb_now_s() - w->load_start_s : 0;
	st = w->state;
	pthread_mutex_unlock(&w->lock);
	p->device = w->dev;
	p->t_s = run_time(m->sh);
	p->frac = fmin(1.0, load_s / dur);
	p->eta_s = finished(st) ? 0 : dur - load_s;
	p->memtest = m->sh->p->memtest;
	p->n_tp = m->obs[i].n_series;
	for (size_t k = 0; k < p->n_tp && k < GB_STRESS_MAX_SERIES; k++) {
		p->tp_label[k] = m->obs[i].tp[k].label;
		p->tp[k] = m->tp_series[i][k];
	}
	p->tp_total = m->tp[i];
	p->temp_c = s ? s->temp_c : NAN;
	p->power_w = s ? s->power_w : NAN;
	p->sm_mhz = s ? s->sm_mhz : NAN;
	p->state = state_name(st);
}

/* One line per GPU (gb_stress_progress_text / _jsonl). */
static void progress_line(struct monitor *m, size_t i)
{
	struct gb_stress_progress p;
	char line[512];

	progress_of(m, i, &p);
	if (m->jsonl)
		gb_stress_progress_jsonl(&p, line, sizeof(line));
	else
		gb_stress_progress_text(&p, line, sizeof(line));
	gb_progress(m->sh->ctx, "%s", line);
}

/*
 * The live status: a line per GPU that cmd/ redraws in place on a terminal
 * (bench never prints). Text, one '\n' between lines; NULL clears it.
 * gb_status() is also a beat for the watchdog, as a progress line is.
 */
static void live_status(struct monitor *m, bool clear)
{
	const struct gb_ctx *ctx = m->sh->ctx;
	size_t len = m->n * 256 + 1, used = 0;
	char *text;

	if (!m->live || !ctx->status)
		return;
	if (clear || !(text = malloc(len))) {
		gb_status(ctx, NULL);
		return;
	}
	text[0] = '\0';
	for (size_t i = 0; i < m->n && used + 256 <= len; i++) {
		struct gb_stress_progress p;

		progress_of(m, i, &p);
		if (i)
			text[used++] = '\n';
		gb_stress_progress_text(&p, text + used, 255);
		used += strlen(text + used);
	}
	gb_status(ctx, text);
	free(text);
}

static void progress(struct monitor *m)
{
	live_status(m, false);
	if (!m->jsonl && (!m->progress_every || m->tick % m->progress_every))
		return;
	for (size_t i = 0; i < m->n; i++)
		progress_line(m, i);
}

static bool all_finished(struct monitor *m)
{
	for (size_t i = 0; i < m->n; i++) {
		enum wstate s;

		pthread_mutex_lock(&m->w[i].lock);
		s = m->w[i].state;
		pthread_mutex_unlock(&m->w[i].lock);
		if (m->w[i].started && !finished(s))
			return false;
	}
	return true;
}

static void monitor_loop(struct monitor *m, const struct gb_stress_thresholds *th)
{
	double next = gb_now_s() + m->sh->p->interval_s;

	for (;;) {
		bool done = all_finished(m);

		/* nap until the tick, waking early when every worker is done */
		while (!done && gb_now_s() < next) {
			gb_sleep_s(fmin(0.05, next - gb_now_s()));
			done = all_finished(m);
		}
		next += m->sh->p->interval_s;
		m->tick++;
		sample_tick(m);
		for (size_t i = 0; i < m->n; i++)
			drain_forensics(m, i);
		watchdog(m);
		if (gb_should_stop(m->sh->ctx) || (m->sh->p->fail_early && any_finding(m, th)))
			stop_everyone(m->sh);
		if (done || all_finished(m))
			break;
		progress(m);
	}
	/* the final state of every GPU, as lines that stay */
	live_status(m, true);
	for (size_t i = 0; (m->jsonl || m->progress_every || m->live) && i < m->n; i++)
		progress_line(m, i);
}

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

static void report(struct gb_bench_result *res, struct monitor *m,
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
