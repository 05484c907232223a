/* SPDX-License-Identifier: MIT */
/*
 * bench.h - how a benchmark plugs into gpubench.
 *
 * Adding a benchmark takes five steps:
 *   1. bench/<name>.c: everything static except one
 *        const struct gb_bench gb_bench_<name> = { .name = "<name>", ... };
 *      run() has the nccl-tests shape: allocate (every handle starts NULL),
 *      warm up, timed loop with CUDA events until the stop flag, verify in a
 *      separate pass, add metrics and checks, `goto out` cleanup in reverse.
 *   2. one line X(<name>) in bench/bench_list.h.
 *   3. kernels in kernels/<name>.cu behind extern "C" gb_launch_* launchers,
 *      declared in kernels/kernels.h.
 *   4. a core test tests/test_<name>.c for what needs no GPU (shape and byte
 *      arithmetic, option errors via tests/cli) and a gpu-labelled test that
 *      exits 77 without a GPU.
 *   5. a line and an example in README.md.
 * `gpubench <name> -h` must work on a machine with no GPU: it only reads the
 * option table.
 *
 * Rules: a benchmark never prints and never exits. It reports through the
 * result model (gb_bench_add_metric/_check/_series) and returns 0, or a
 * negative value after setting the result status to ERROR with a reason.
 * Skipped is not failed: supported() returns a reason string instead.
 * A GPU it cannot use any more (sticky CUDA error, hung) gets a
 * `device_lost` check (gb_cuda_fail() in gpu.h, gb_bench_device_lost() in
 * lost_math.h), so `run` leaves it out of later steps. Its progress lines
 * and stop-flag polls are the heartbeat of the process watchdog (cmd/): a
 * step that can be silent for more than two minutes says so first with
 * gb_expect_silence().
 */
#ifndef GPUBENCH_BENCH_BENCH_H
#define GPUBENCH_BENCH_BENCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "bench/options.h"
#include "bench/device/clock.h"
#include "report/result.h"

/* What a running benchmark may use; owned by cmd/. */
struct gb_ctx {
	struct gb_run *run;              /* devices[] filled, telemetry appended here */
	const int *devices;              /* resolved --devices (CUDA indices) */
	size_t n_devices;
	volatile sig_atomic_t *stop;     /* set on SIGINT/SIGTERM: finish the current sample and return */
	double run_start_s;              /* monotonic time the run started, for telemetry t_s */
	bool nvml;                       /* NVML loaded: telemetry available */
	int quiet;
	/* progress reporting goes through cmd/ (bench never prints); may be NULL */
	void (*progress)(void *user, const char *line);
	void *progress_user;
	/*
	 * Liveness for cmd/'s watchdog, called by gb_progress() (line: the
	 * progress line), gb_should_stop() (line NULL) and gb_expect_silence()
	 * (expect_s > 0), from any thread; may be NULL. A benchmark needs no
	 * call of its own: its progress lines and stop-flag polls are the beat.
	 */
	void (*beat)(void *user, const char *line, double expect_s);
	void *beat_user;
	/*
	 * A live status block that cmd/ redraws in place of the previous one:
	 * offered only when stderr is a terminal (not with -q or the report on
	 * stdout), else NULL. text is the whole block, one '\n' between lines
	 * and none at the end; NULL clears it. A benchmark that shows one
	 * instead of periodic progress lines calls gb_status(), which beats too.
	 */
	void (*status)(void *user, const char *text);
	void *status_user;
};

enum gb_bench_flags {
	GB_BENCH_NEEDS_GPU = 1 << 0,
	GB_BENCH_NEEDS_2GPUS = 1 << 1,
};

struct gb_bench {
	const char *name;                /* also the subcommand name */
	const char *summary;             /* one line for `gpubench help` */
	const char *usage;               /* "gpubench gemm [options]" */
	const struct gb_opt *opts;       /* benchmark options, GB_OPT_END-terminated */
	size_t params_size;
	void (*set_defaults)(void *params);
	/* cross-field checks after parsing; 0, or -1 with one line in err (exit 2) */
	int (*validate)(const void *params, char *err, size_t errlen);
	/* NULL if it can run on these devices, else a reason written to buf (skipped) */
	const char *(*supported)(const struct gb_ctx *ctx, const void *params, char *buf,
				 size_t len);
	int (*run)(struct gb_ctx *ctx, const void *params, struct gb_bench_result *res);
	unsigned flags;
	const char *unavailable_reason;  /* non-NULL: compiled out, running it exits 4 */
};

/* Find a benchmark by name; NULL if none. */
const struct gb_bench *gb_bench_find(const char *name);
/* The registered benchmarks, n in *n. */
const struct gb_bench *const *gb_bench_all(size_t *n);

/* Report progress through ctx (printed only when ctx->progress is set; always a beat). */
void gb_progress(const struct gb_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Say that the next stretch may pass without progress or stop-flag polls
 * for up to seconds (one long step, a slow collective), so the process
 * watchdog waits at least that long before calling the benchmark hung.
 * Holds until the benchmark returns.
 */
void gb_expect_silence(const struct gb_ctx *ctx, double seconds);

/*
 * The lock of the run's result model for threads other than the
 * benchmark's own (a telemetry sampler appending samples), so the watchdog
 * can write the report of a hung run without reading a half-grown array.
 */
void gb_run_model_lock(void);
void gb_run_model_unlock(void);
/* Take it within timeout_s; false when it could not (the holder is stuck). */
bool gb_run_model_lock_within(double timeout_s);

/* Show (or with NULL clear) the live status block; always a beat, as gb_progress() is. */
static inline void gb_status(const struct gb_ctx *ctx, const char *text)
{
	if (ctx->beat)
		ctx->beat(ctx->beat_user, text, 0);
	if (ctx->status)
		ctx->status(ctx->status_user, text);
}

/* Whether to stop (SIGINT/SIGTERM); each call is also a beat for the watchdog. */
static inline bool gb_should_stop(const struct gb_ctx *ctx)
{
	if (ctx->beat)
		ctx->beat(ctx->beat_user, NULL, 0);
	/* set by a signal handler, read by every worker thread: atomic, not just volatile */
	return ctx->stop && __atomic_load_n(ctx->stop, __ATOMIC_RELAXED);
}

#endif
