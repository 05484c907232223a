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
	const char *output;  /* -o FILE: the JSON report */
	bool json;           /* --json: the JSON report on stdout instead of text */
	int format;          /* enum gb_format */
	bool quiet;
	bool verbose;
	bool no_color;
};
extern const struct gb_opt gb_common_opts[];
void gb_common_defaults(struct gb_common *c);

/* Set by SIGINT/SIGTERM once gb_cmd_catch_signals() has run. */
extern volatile sig_atomic_t gb_stop_flag;
void gb_cmd_catch_signals(void);

/*
 * Start a run: tool and host facts, whitelisted environment, command line.
 * cmd_name is e.g. "info"; argv the full command line (argv[0] "gpubench").
 */
void gb_cmd_run_begin(struct gb_run *run, const char *cmd_name, int argc, const char **argv);

/*
 * Validate the common options before anything long starts: the report path
 * must be writable. Returns 0 or -1 after one error line.
 */
int gb_cmd_check_common(const struct gb_common *c);

/*
 * Probe the GPU, load NVML, collect devices into run. Returns 0 when GPUs
 * can run; otherwise sets the run's status to ERROR with the reason, prints
 * it as one error line and returns -1 (the caller still writes the report).
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
 * never get here.
 */
int gb_cmd_run_finish(struct gb_run *run, const struct gb_common *c, bool device_detail);

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
