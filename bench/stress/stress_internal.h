/* SPDX-License-Identifier: MIT */
/*
 * stress_internal.h - what the pieces of `gpubench stress` share and nothing
 * outside them may include: the parameters, the state every worker reads, one
 * worker's and the monitor's state, the workers' CUDA error macros, and the
 * functions one piece calls in another (grouped by the file that defines them).
 * GPU side: it names CUDA and cuBLASLt types; the CPU-only arithmetic is in
 * stress_math.h.
 */
#ifndef GPUBENCH_BENCH_STRESS_INTERNAL_H
#define GPUBENCH_BENCH_STRESS_INTERNAL_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/device/cublaslt_dl.h"
#include "bench/device/gpu.h"
#include "bench/device/lt_matmul.h"
#include "bench/stress/stress_math.h"

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

/* stress_workers.c */
double run_time(const struct shared *sh);
bool abandoned(const struct worker *w);
void give_up(struct worker *w);
void stop_everyone(struct shared *sh);
bool should_stop(const struct worker *w);
double hang_limit_s(const struct worker *w);
void beat(struct worker *w);
void fail_cuda(struct worker *w, const char *what, cudaError_t e);
__attribute__((format(printf, 2, 3)))
void fail_setup(struct worker *w, const char *fmt, ...);
int wait_event(struct worker *w, cudaEvent_t ev, const char *what);
void push_forensic(struct worker *w, const struct gb_stress_forensic *f);
void *slot_ptr(const struct worker *w, uint64_t slot);
int alloc_dev(struct worker *w, void **p, uint64_t bytes, const char *what);
void pin_algo(struct wphase *ph, int c);
int run_gemm(struct worker *w, size_t phase, uint64_t slot);
const char *worker_pci(const struct worker *w);
void load_began(struct worker *w);
void *worker_main(void *arg);

/* stress_verify.c */
int enqueue_verify(struct worker *w, size_t phase, const uint64_t *slot, size_t count,
		   bool compare);
void forensic_base(const struct worker *w, struct gb_stress_forensic *f, const char *layer,
		   uint64_t batch, uint32_t slot);
void take_verify(struct worker *w, size_t phase, uint64_t batch, bool injected_batch);
int make_references(struct worker *w);
void recheck_references(struct worker *w);

/* stress_memtest.c */
void memtest_load(struct worker *w);

/* stress_monitor.c */
void drain_forensics(struct monitor *m, size_t i);
const char *state_name(enum wstate s);
void progress(struct monitor *m);
void monitor_loop(struct monitor *m, const struct gb_stress_thresholds *th);

/* stress_results.c */
void report(struct gb_bench_result *res, struct monitor *m,
	    const struct gb_stress_thresholds *th);

#endif
