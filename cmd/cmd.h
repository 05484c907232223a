/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the command layer: the table of commands, the options every
 * measuring command shares, and the steps every command takes (set up the
 * report, probe the GPU, write the report, pick the exit code).
 *
 * Only cmd/ prints results, reads the environment and decides exit codes.
 */
#ifndef GPUBENCH_CMD_CMD_H
#define GPUBENCH_CMD_CMD_H

#include <signal.h>
#include <stdbool.h>

#include "cli.h"
#include "report/formats.h"
#include "report/result.h"

struct gb_bench;

/* A command: argv[0] is the command name. Returns the process exit code. */
typedef int gb_cmd_fn(int argc, const char **argv);

enum gb_cmd_flags {
	GB_CMD_NEEDS_GPU = 1 << 0, /* probes the GPU; exit 3 when it cannot */
};

struct gb_cmd {
	const char *name;
	gb_cmd_fn *fn;
	const char *summary;
	unsigned flags;
	const struct gb_bench *bench; /* for benchmark commands, else NULL */
};

/* Output formats of --format: the list in report/formats.h, in the same order. */
enum gb_format {
	GB_FORMAT_TEXT = GB_OUT_TEXT,
	GB_FORMAT_JSON = GB_OUT_JSON,
	GB_FORMAT_MARKDOWN = GB_OUT_MARKDOWN,
	GB_FORMAT_CSV = GB_OUT_CSV,
	GB_FORMAT_JUNIT = GB_OUT_JUNIT,
	GB_FORMAT_PROMETHEUS = GB_OUT_PROMETHEUS,
	GB_FORMAT_HTML = GB_OUT_HTML,
};
extern const char *const gb_format_names[];

/* Options every measuring command takes. */
struct gb_common {
	struct gb_device_list devices;
	const char *output;  /* -o FILE: the report, in the format of FILE's extension */
	bool json;           /* --json: the JSON report on stdout instead of text */
	int format;          /* enum gb_format */
	bool quiet;
	bool verbose;
	bool no_color;
};
extern const struct gb_opt gb_common_opts[];
/* The common options without --devices (its first entry), for commands that use no GPU. */
extern const struct gb_opt *const gb_output_opts;
void gb_common_defaults(struct gb_common *c);

/*
 * Set by SIGINT/SIGTERM once gb_cmd_catch_signals() has run: 1 after the
 * first signal (finish the current sample, write the partial report, exit
 * 130), 2 after a second one (the watchdog, when running, writes the report
 * at once and exits 130; without it the second signal kills). A third
 * signal always kills. Installed with SA_RESTART, so no thread's system
 * call fails with EINTR because of it.
 */
extern volatile sig_atomic_t gb_stop_flag;
void gb_cmd_catch_signals(void);

/*
 * Start the process watchdog (cmd/watchdog.h) for run: a phase without a
 * beat for GPUBENCH_WATCHDOG (default 120 s, or longer when the benchmark
 * says so), or still running GPUBENCH_STOP_GRACE (default 30 s) after a
 * stop signal, gets the running benchmark marked `error` ("hung: no
 * progress for N s on GPU x in gemm"), the report written (-o, and stdout
 * when a report format was asked for) and the process _exit()ed: 3 (or 1
 * when a check had already failed), 130 when a signal came first.
 * Idempotent; gb_cmd_run_one_bench() starts it too. Call after
 * gb_cmd_run_begin() so the setup phase is covered.
 */
void gb_cmd_watchdog_start(struct gb_run *run, const struct gb_common *c, bool device_detail);

/* Name the phase the watchdog watches ("GPU setup"; a benchmark's name with
 * its index in run->benches, else -1) and count its start as a beat. */
void gb_cmd_watchdog_phase(const char *name, long bench_index);

/*
 * Start a run: tool and host facts, whitelisted environment, command line.
 * cmd_name is e.g. "info"; argv the full command line (argv[0] "gpubench").
 */
void gb_cmd_run_begin(struct gb_run *run, const char *cmd_name, int argc, const char **argv);

/*
 * Validate the common options before anything long starts: the report path
 * must be writable (a file is created and removed there), and the watchdog
 * variables must parse. Returns 0 or -1 after one error line.
 */
int gb_cmd_check_common(const struct gb_common *c);

/*
 * Probe the GPU, load NVML, collect devices into run. What the report must
 * show (NVML missing or partial, a GPU that cannot be read, a slot slower
 * than its GPU) becomes an "info" entry in run->benchmarks. Returns 0 when
 * at least one GPU can run; otherwise sets the run's status to ERROR with
 * the reason, prints it as one error line and returns -1 (the caller still
 * writes the report).
 */
int gb_cmd_gpu_setup(struct gb_run *run);

/*
 * Record the versions of cuBLASLt and NCCL as loaded at run time (they may
 * differ from the ones built against); null in the report where one cannot
 * be loaded.
 */
void gb_cmd_library_versions(struct gb_run *run);

/*
 * Finish: verdict, exit code, the JSON report (-o, --json), the text
 * summary (unless --json/-q). Returns the process exit code; usage errors
 * never get here. When a benchmark lost a GPU (hung or sticky error), the
 * process _exit()s here instead, after flushing stdout, so that no CUDA
 * teardown can block behind a GPU that never answers.
 */
int gb_cmd_run_finish(struct gb_run *run, const struct gb_common *c, bool device_detail);

/*
 * _exit(code) now, stdout flushed, when run lost a GPU (hung or sticky
 * error); else return. gb_cmd_run_finish() does it, except while MPI is up
 * (MPI_Finalize must run first): a command that ran as one rank calls it
 * again after gb_mpi_world_finalize().
 */
void gb_cmd_exit_if_gpu_lost(const struct gb_run *run, int code);

/*
 * Run one benchmark with already-parsed params on c->devices (resolved):
 * support check (skipped with its reason), run, timing, interruption.
 * Returns its result, appended to run.
 */
struct gb_bench_result *gb_cmd_run_one_bench(const struct gb_bench *bench, struct gb_run *run,
					     const struct gb_common *c, const void *params);

/*
 * Resolve device lists that a benchmark declares in its own options (scaling
 * takes "0,0") against the visible GPUs. 0, or -1 after one error line.
 */
int gb_cmd_resolve_bench_devices(const struct gb_bench *bench, void *params, int count);

/* Parse a command's options: returns -1 to continue, or the exit code to return now. */
int gb_cmd_parse(const char *usage, const char *summary, const struct gb_opt_set *sets,
		 size_t n_sets, int argc, const char **argv, const char **positional,
		 size_t max_positional, size_t *n_positional);

/* The commands. */
int cmd_info(int argc, const char **argv);
int cmd_run(int argc, const char **argv);
int cmd_compare(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_theory(int argc, const char **argv);
int cmd_bench(const struct gb_bench *bench, int argc, const char **argv);
/* nccl: one process for all local GPUs, or one rank per GPU under mpirun/srun */
int cmd_nccl(int argc, const char **argv);

/* The command table, for help and dispatch. */
const struct gb_cmd *gb_cmd_find(const char *name);
const struct gb_cmd *gb_cmd_all(size_t *n);

#endif
