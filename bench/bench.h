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
 */
#ifndef GPUBENCH_BENCH_BENCH_H
#define GPUBENCH_BENCH_BENCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "../cmd/cli.h"
#include "../report/result.h"

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

/* Seconds on the monotonic clock. */
double gb_now_s(void);

/* Report progress through ctx (no-op when ctx->progress is NULL). */
void gb_progress(const struct gb_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline bool gb_should_stop(const struct gb_ctx *ctx)
{
	return ctx->stop && *ctx->stop;
}

#endif
