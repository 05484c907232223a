/* SPDX-License-Identifier: MIT */
/*
 * common.c - what every measuring command does around its measurement:
 * shared options, signals, the GPU probe, the report and the exit code.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#if GPUBENCH_HAVE_NCCL
#include <nccl.h>
#endif
#if GPUBENCH_HAVE_MPI
#include <mpi.h>
#endif

#include "bench/bench.h"
#include "bench/cublaslt_dl.h"
#include "bench/nccl.h"
#include "bench/gpu.h"
#include "bench/nvml.h"
#include "build_info.h"
#include "cmd.h"
#include "log.h"
#include "report/exitcodes.h"
#include "report/host.h"
#include "report/json.h"
#include "report/text.h"

extern char **environ;

const char *const gb_format_names[] = { GB_OUT_FORMAT_NAMES, NULL };

const struct gb_opt gb_common_opts[] = {
	{ GB_OPT_DEVICES, 'd', "devices", offsetof(struct gb_common, devices), "LIST",
	  "GPUs to use: 0,2 or 0-3 or all (after CUDA_VISIBLE_DEVICES)", 0, 0, NULL, 0 },
	{ GB_OPT_STRING, 'o', "output", offsetof(struct gb_common, output), "FILE",
	  "write the JSON report to FILE (atomically; also on failure and Ctrl-C)", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "json", offsetof(struct gb_common, json), NULL,
	  "print the JSON report on stdout instead of the text summary", 0, 0, NULL, 0 },
	{ GB_OPT_ENUM, 0, "format", offsetof(struct gb_common, format), "FMT",
	  "format of the summary on stdout", 0, 0, gb_format_names, 0 },
	{ GB_OPT_BOOL, 'q', "quiet", offsetof(struct gb_common, quiet), NULL,
	  "print no summary or progress, only errors", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 'v', "verbose", offsetof(struct gb_common, verbose), NULL,
	  "print debugging detail on stderr", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "no-color", offsetof(struct gb_common, no_color), NULL,
	  "no colours in the summary (also NO_COLOR=1)", 0, 0, NULL, 0 },
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};

void gb_common_defaults(struct gb_common *c)
{
	memset(c, 0, sizeof(*c));
	c->devices.all = true;
	c->format = GB_FORMAT_TEXT;
}

volatile sig_atomic_t gb_stop_flag;

/* monotonic time the run began, for benchmark start offsets */
static double run_start_s;

static void on_signal(int sig)
{
	/* first signal: stop gracefully and still write the report; second: default action */
	gb_stop_flag = 1;
	signal(sig, SIG_DFL);
}

void gb_cmd_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void tool_info(struct gb_tool_info *t)
{
	t->version = gb_strdup(GPUBENCH_VERSION);
	t->git = gb_strdup(GPUBENCH_GIT);
	t->built_cuda = CUDART_VERSION;
	t->built_cublas = CUBLAS_VERSION;
#if GPUBENCH_HAVE_NCCL
	t->built_nccl = NCCL_VERSION_CODE;
#endif
#if GPUBENCH_HAVE_MPI
	{
		char v[MPI_MAX_LIBRARY_VERSION_STRING];
		int len = 0;

		/* allowed before MPI_Init */
		MPI_Get_library_version(v, &len);
		v[strcspn(v, "\n,")] = '\0';
		t->built_mpi = gb_strdup(v);
	}
#endif
	t->cuda_archs = gb_strdup(GPUBENCH_CUDA_ARCHS);
}

static void record_env(struct gb_run *run)
{
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char key[128];

		if (!eq || (size_t)(eq - *e) >= sizeof(key))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *e), *e);
		if (gb_env_is_whitelisted(key))
			gb_run_add_env(run, key, eq + 1);
	}
}

void gb_cmd_run_begin(struct gb_run *run, const char *cmd_name, int argc, const char **argv)
{
	/* record the whole command line, "gpubench" first */
	const char **full = gb_xrealloc(NULL, sizeof(char *) * (size_t)(argc + 1));

	full[0] = "gpubench";
	for (int i = 0; i < argc; i++)
		full[i + 1] = argv[i];
	gb_run_init(run, cmd_name, argc + 1, full);
	run_start_s = gb_now_s();
	free(full);
	tool_info(&run->tool);
	gb_host_collect(&run->host);
	gb_gpu_versions(&run->host);
	record_env(run);
}

int gb_cmd_check_common(const struct gb_common *c)
{
	char err[512];

	if (c->output && gb_report_check_writable(c->output, err, sizeof(err)))
		return gb_error("%s", err);
	if (c->output && c->json && !strcmp(c->output, "-"))
		return gb_error("'-o -' and '--json' both write the report to stdout; use one");
	return 0;
}

void gb_cmd_library_versions(struct gb_run *run)
{
	char err[512];

	/* a missing library is not an error here: the version stays null, and the
	 * benchmark that needs the library says so when it runs */
	if (gb_cublaslt_load(err, sizeof(err)) == 0)
		run->host.cublaslt_version = (int)gb_cublaslt()->version;
	else
		gb_debug("%s", err);
	if (gb_nccl_load(getenv("GPUBENCH_NCCL_LIBRARY"), err, sizeof(err)) == 0)
		run->host.nccl_version = gb_nccl_loaded_version();
	else
		gb_debug("%s", err);
}

int gb_cmd_gpu_setup(struct gb_run *run)
{
	char reason[512], missing[512], nvml_err[512], ver[96];
	const char *nvml_lib = getenv("GPUBENCH_NVML_LIBRARY");
	int count = 0;

	if (gb_gpu_probe(&count, getenv("CUDA_VISIBLE_DEVICES"), reason, sizeof(reason)) !=
	    GB_PROBE_OK) {
		gb_run_set_status(run, GB_STATUS_ERROR, reason);
		return gb_error("%s", reason);
	}
	if (gb_nvml_load(nvml_lib, nvml_err, sizeof(nvml_err)) == 0) {
		if (gb_nvml_driver_version(ver, sizeof(ver)) == 0)
			run->host.driver_version = gb_strdup(ver);
	} else {
		gb_warn("telemetry unavailable: %s", nvml_err);
	}
	if (gb_devices_collect(run, missing, sizeof(missing))) {
		gb_run_set_status(run, GB_STATUS_ERROR, "cannot read CUDA device properties");
		return gb_error("cannot read CUDA device properties");
	}
	if (missing[0])
		gb_debug("NVML could not read: %s", missing);
	return 0;
}

static bool use_color(const struct gb_common *c)
{
	const char *nc = getenv("NO_COLOR");

	return !c->no_color && !(nc && *nc) && isatty(STDOUT_FILENO);
}

int gb_cmd_run_finish(struct gb_run *run, const struct gb_common *c, bool device_detail)
{
	char now[32], err[512];
	struct gb_text_opts topts = { .color = use_color(c), .device_detail = device_detail };
	int code;

	if (gb_stop_flag && run->status != GB_STATUS_ERROR)
		run->status = GB_STATUS_INTERRUPTED;
	gb_now_iso8601(now, sizeof(now));
	free(run->finished_at);
	run->finished_at = gb_strdup(now);
	gb_run_verdict(run);
	code = gb_exit_code_for_status(run->verdict);
	run->exit_code = code;
	if (c->output && gb_report_write_file(run, c->output, err, sizeof(err))) {
		gb_error("%s", err);
		if (code == GB_EXIT_OK)
			code = GB_EXIT_CANNOT_RUN;
	}
	if (c->json || c->format == GB_FORMAT_JSON) {
		if (gb_report_write_file(run, "-", err, sizeof(err)))
			gb_error("%s", err);
	} else if (c->format != GB_FORMAT_TEXT) {
		/* asked for by name, so printed even with -q, like --json */
		if (gb_report_format(run, (enum gb_out_format)c->format, stdout))
			gb_error("cannot write the %s report to standard output",
				 gb_format_names[c->format]);
	} else if (!c->quiet) {
		gb_text_print(run, stdout, &topts);
	}
	gb_nvml_unload();
	return code;
}

int gb_cmd_parse(const char *usage, const char *summary, const struct gb_opt_set *sets,
		 size_t n_sets, int argc, const char **argv, const char **positional,
		 size_t max_positional, size_t *n_positional)
{
	size_t dummy = 0;

	switch (gb_cli_parse(sets, n_sets, argc - 1, argv + 1, positional, max_positional,
			     n_positional ? n_positional : &dummy)) {
	case GB_CLI_HELP:
		gb_cli_usage(stdout, usage, summary, sets, n_sets);
		return GB_EXIT_OK;
	case GB_CLI_ERROR:
		return GB_EXIT_USAGE;
	case GB_CLI_OK:
		break;
	}
	return -1;
}

int gb_cmd_resolve_bench_devices(const struct gb_bench *bench, void *params, int count)
{
	for (const struct gb_opt *o = bench->opts; o && o->type != GB_OPT_END; o++) {
		struct gb_device_list *l;

		if (o->type != GB_OPT_DEVICES)
			continue;
		l = (struct gb_device_list *)((char *)params + o->offset);
		if (gb_device_list_resolve(l, count))
			return -1;
	}
	return 0;
}

/*
 * Progress lines go to stderr so stdout stays clean for results and --json.
 * A line that is a JSON object (stress --progress jsonl) goes out verbatim so
 * stderr stays valid JSON Lines for machines; the rest get the usual prefix.
 */
static void print_progress(void *user, const char *line)
{
	(void)user;
	if (line[0] == '{')
		fprintf(stderr, "%s\n", line);
	else
		fprintf(stderr, "gpubench: %s\n", line);
}

struct gb_bench_result *gb_cmd_run_one_bench(const struct gb_bench *bench, struct gb_run *run,
					     const struct gb_common *c, const void *params)
{
	struct gb_ctx ctx = {
		.run = run,
		.devices = c->devices.idx,
		.n_devices = c->devices.n,
		.stop = &gb_stop_flag,
		.run_start_s = gb_now_s(),
		.nvml = gb_nvml_loaded(),
		.quiet = c->quiet,
		.progress = c->quiet ? NULL : print_progress,
	};
	struct gb_bench_result *res = gb_run_add_bench(run, bench->name);
	char why[512];
	const char *reason;
	double t0 = gb_now_s();

	for (size_t i = 0; i < c->devices.n; i++)
		gb_bench_add_device(res, c->devices.idx[i]);
	if (bench->unavailable_reason) {
		gb_bench_set_status(res, GB_STATUS_NOT_BUILT, "%s", bench->unavailable_reason);
		return res;
	}
	reason = bench->supported ? bench->supported(&ctx, params, why, sizeof(why)) : NULL;
	if (reason) {
		gb_bench_set_status(res, GB_STATUS_SKIPPED, "%s", reason);
		gb_note("skipped: %s: %s", bench->name, reason);
		return res;
	}
	res->started_s = t0 - run_start_s;
	bench->run(&ctx, params, res);
	res->duration_s = gb_now_s() - t0;
	if (gb_stop_flag && res->status != GB_STATUS_FAILED)
		res->status = GB_STATUS_INTERRUPTED;
	return res;
}
