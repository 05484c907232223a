/* SPDX-License-Identifier: MIT */
/*
 * common.c - what every measuring command does around its measurement:
 * shared options, signals, the GPU probe, the report and the exit code.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#if GPUBENCH_HAVE_NCCL
#include <nccl.h>
#endif
#include "bench/bench.h"
#include "bench/device/cublaslt_dl.h"
#include "bench/device/mpi_world.h"
#include "bench/nccl/nccl.h"
#include "bench/device/gpu.h"
#include "bench/device/info_math.h"
#include "bench/device/lost_math.h"
#include "bench/device/nvml.h"
#include "build_info.h"
#include "cmd.h"
#include "log.h"
#include "status_line.h"
#include "watchdog.h"
#include "report/exitcodes.h"
#include "report/host.h"
#include "report/json.h"
#include "report/outfile.h"
#include "report/fault_action.h"
#include "report/published.h"
#include "report/text.h"

extern char **environ;

const char *const gb_format_names[] = { GB_OUT_FORMAT_NAMES, NULL };

const struct gb_opt gb_common_opts[] = {
	/* first: gb_output_opts is this table without it */
	{ GB_OPT_DEVICES, 'd', "devices", offsetof(struct gb_common, devices), "LIST",
	  "GPUs to use: 0,2 or 0-3 or all (after CUDA_VISIBLE_DEVICES)", 0, 0, NULL, 0 },
	{ GB_OPT_STRING, 'o', "output", offsetof(struct gb_common, output), "FILE",
	  "write the report to FILE in the format of its extension (.html, .md, .csv, .xml, "
	  ".prom, .txt; else JSON), also on failure and Ctrl-C; a link's target, a device or a "
	  "FIFO is written, never replaced; '-': JSON on stdout, the summary then on stderr", 0,
	  0, NULL, 0 },
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

/* --devices is gb_common_opts[0]: the rest is every option of the output */
const struct gb_opt *const gb_output_opts = &gb_common_opts[1];

void gb_common_defaults(struct gb_common *c)
{
	memset(c, 0, sizeof(*c));
	c->devices.all = true;
	c->format = GB_FORMAT_TEXT;
}

volatile sig_atomic_t gb_stop_flag;

/* monotonic time the run began, for benchmark start offsets */
static double run_start_s;

/* The watchdog of this process and what it needs to write the report. */
static struct {
	struct gb_runwatch *wd;
	struct gb_run *run;
	const struct gb_common *c;
	bool device_detail;
} guard;
/* read by the signal handler: a watchdog will end the run on a second signal */
static volatile sig_atomic_t watchdog_on;

/* Limits from the environment (README: "A hung GPU and interrupts"). */
static double wd_limit_s = GB_WD_LIMIT_S, wd_grace_s = GB_WD_STOP_GRACE_S;

static void on_signal(int sig)
{
	/* stores through __atomic (lock-free for int, so safe in a handler): threads read it */
	if (!__atomic_load_n(&gb_stop_flag, __ATOMIC_RELAXED)) {
		/* first: stop gracefully and still write the report */
		__atomic_store_n(&gb_stop_flag, 1, __ATOMIC_RELAXED);
		/* with no watchdog to end the run, the second signal must be able to */
		if (!watchdog_on)
			signal(sig, SIG_DFL);
		return;
	}
	/* second: the watchdog writes the report now and exits; a third kills */
	__atomic_store_n(&gb_stop_flag, 2, __ATOMIC_RELAXED);
	signal(sig, SIG_DFL);
}

void gb_cmd_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* the handler only sets a flag: a read, write or socket call in any
	 * thread (NCCL and MPI bootstrap, --json on a pipe) resumes instead of
	 * failing with EINTR */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* GPUBENCH_WATCHDOG and GPUBENCH_STOP_GRACE; 0, or -1 with one line in err. */
static int watchdog_env(char *err, size_t len)
{
	const char *v = getenv("GPUBENCH_WATCHDOG");

	if (v && *v && gb_runwatch_parse_s("GPUBENCH_WATCHDOG", v, &wd_limit_s, err, len))
		return -1;
	v = getenv("GPUBENCH_STOP_GRACE");
	if (v && *v && gb_runwatch_parse_s("GPUBENCH_STOP_GRACE", v, &wd_grace_s, err, len))
		return -1;
	return 0;
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
	if (gb_mpi_built())
		t->built_mpi = gb_strdup(gb_mpi_built_version());
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

/* -o names standard output ("-", /dev/stdout): then stdout carries the JSON and nothing else */
static bool report_to_stdout(const struct gb_common *c)
{
	return c->output && gb_out_is_stdout(c->output);
}

int gb_cmd_check_common(const struct gb_common *c)
{
	char err[512];

	if (c->output && gb_report_check_writable(c->output, err, sizeof(err)))
		return gb_error("%s", err);
	if (watchdog_env(err, sizeof(err)))
		return gb_error("%s", err);
	/* --json is --format json: a second, different format would make one silently win */
	if (c->json && c->format != GB_FORMAT_TEXT && c->format != GB_FORMAT_JSON)
		return gb_error("'--json' and '--format %s' both choose the format of stdout; use one",
				gb_format_names[c->format]);
	if (!report_to_stdout(c))
		return 0;
	if (c->json || c->format == GB_FORMAT_JSON)
		return gb_error("'-o %s' and '%s' both write the report to stdout; use one",
				c->output, c->json ? "--json" : "--format json");
	if (c->format != GB_FORMAT_TEXT)
		return gb_error("'-o %s' writes the JSON report to stdout, '--format %s' would mix "
				"into it; use one",
				c->output, gb_format_names[c->format]);
	return 0;
}

/*
 * The versions of the libraries loaded so far, into the host section,
 * loading nothing: `run` and `info` load both up front, a single benchmark
 * (gemm, stress, scaling, nccl) records what it loaded after it ran, so
 * that compare can say a cuBLASLt or NCCL upgrade is what changed between
 * two reports.
 */
static void note_loaded_libraries(struct gb_run *run)
{
	const struct gb_cublaslt *lt = gb_cublaslt();

	if (lt && run->host.cublaslt_version < 0)
		run->host.cublaslt_version = (int)lt->version;
	if (run->host.nccl_version < 0)
		run->host.nccl_version = gb_nccl_loaded_version();
}

void gb_cmd_library_versions(struct gb_run *run)
{
	char err[512];

	/* a missing library is not an error here: the version stays null, and the
	 * benchmark that needs the library says so when it runs */
	if (gb_cublaslt_load(err, sizeof(err)) != 0)
		gb_debug("%s", err);
	if (gb_nccl_load(getenv("GPUBENCH_NCCL_LIBRARY"), err, sizeof(err)) != 0)
		gb_debug("%s", err);
	note_loaded_libraries(run);
}

/*
 * What collection found goes into the report (an "info" entry with a check
 * per finding) and, one line each, to stderr: the report is the artefact of
 * a burn-in run, so a warning that only reached the terminal would be lost.
 */
static void setup_notes(struct gb_run *run, const struct gb_info_notes *notes)
{
	const struct gb_bench_result *res = gb_info_notes_apply(run, notes);

	for (size_t i = 0; res && i < res->n_checks; i++) {
		const struct gb_check *ck = &res->checks[i];

		/* the NVML load failure was already said, in the words of the loader */
		if (!strcmp(ck->name, "nvml"))
			continue;
		if (ck->status == GB_STATUS_ERROR)
			gb_error("%s", ck->message);
		else
			gb_warn("%s", ck->message);
	}
	for (size_t i = 0; i < notes->n; i++)
		if (notes->dev[i].nvml_asked && notes->dev[i].nvml.unsupported[0])
			gb_debug("GPU %d has no %s (not supported)", notes->dev[i].device,
				 notes->dev[i].nvml.unsupported);
}

int gb_cmd_gpu_setup(struct gb_run *run)
{
	char reason[512], ver[96];
	const char *nvml_lib = getenv("GPUBENCH_NVML_LIBRARY");
	struct gb_info_notes *notes;
	int count = 0, good;

	gb_cmd_watchdog_phase("GPU setup", -1);
	/* stopped before any GPU was touched: nothing to measure, say so */
	if (gb_stop_flag) {
		gb_run_set_status(run, GB_STATUS_INTERRUPTED, "interrupted during GPU setup");
		return -1;
	}
	if (gb_gpu_probe(&count, getenv("CUDA_VISIBLE_DEVICES"), reason, sizeof(reason)) !=
	    GB_PROBE_OK) {
		gb_run_set_status(run, GB_STATUS_ERROR, reason);
		return gb_error("%s", reason);
	}
	notes = gb_xrealloc(NULL, sizeof(*notes));
	memset(notes, 0, sizeof(*notes));
	if (gb_nvml_load(nvml_lib, notes->nvml_error, sizeof(notes->nvml_error)) == 0) {
		if (gb_nvml_driver_version(ver, sizeof(ver)) == 0)
			run->host.driver_version = gb_strdup(ver);
	} else {
		gb_warn("telemetry unavailable: %s", notes->nvml_error);
	}
	good = gb_devices_collect_noted(run, notes);
	if (good <= 0) {
		free(notes);
		gb_run_set_status(run, GB_STATUS_ERROR, "cannot read CUDA device properties");
		return gb_error("cannot read CUDA device properties of any GPU");
	}
	setup_notes(run, notes);
	free(notes);
	gb_cmd_watchdog_phase("start-up", -1);
	return 0;
}

/* Colours allowed at all: not with --no-color, nor with NO_COLOR set */
static bool color_allowed(const struct gb_common *c)
{
	const char *nc = getenv("NO_COLOR");

	return !c->no_color && !(nc && *nc);
}

static bool use_color(const struct gb_common *c)
{
	return color_allowed(c) && isatty(STDOUT_FILENO);
}

/*
 * Verdict, exit code, the JSON report (-o) and what stdout should carry.
 * summary false: only what was asked for as a report (-o, --json, a named
 * --format), as the watchdog writes it.
 */
static int write_outputs(struct gb_run *run, const struct gb_common *c, bool device_detail,
			 bool summary)
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
	gb_published_annotate(run);
	gb_fault_actions_annotate(run);
	code = gb_exit_code_for_status(run->verdict);
	run->exit_code = code;
	if (c->output && gb_report_write_output(run, c->output, err, sizeof(err))) {
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
	} else if (!c->quiet && summary && report_to_stdout(c)) {
		/* stdout holds the JSON report alone, so that a pipe can parse it */
		topts.color = color_allowed(c) && isatty(STDERR_FILENO);
		gb_text_print(run, stderr, &topts);
	} else if (!c->quiet && summary) {
		gb_text_print(run, stdout, &topts);
	}
	return code;
}

/* Whether MPI is running: then MPI_Finalize must run, so no _exit(). */
static bool mpi_active(void)
{
	return gb_mpi_running();
}

/*
 * End the process now, report written: a GPU given up on may still hold a
 * thread in a kernel or a driver call, and the CUDA runtime's teardown at
 * exit() can block behind it, so the process would never end.
 */
static void exit_now(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		gb_error("cannot write to standard output");
		if (code == GB_EXIT_OK)
			code = GB_EXIT_CANNOT_RUN;
	}
	fflush(stderr);
	_exit(code);
}

/* After the report: _exit() when a GPU was lost (hung or sticky), see exit_now(). */
void gb_cmd_exit_if_gpu_lost(const struct gb_run *run, int code)
{
	struct gb_lost_set *lost = gb_xrealloc(NULL, sizeof(*lost));
	size_t n;

	lost->n = 0;
	for (size_t i = 0; i < run->n_benches; i++)
		gb_lost_scan(lost, &run->benches[i]);
	n = lost->n;
	free(lost);
	if (n && !mpi_active()) {
		gb_debug("a GPU was lost: exiting without CUDA teardown");
		exit_now(code);
	}
}

int gb_cmd_run_finish(struct gb_run *run, const struct gb_common *c, bool device_detail)
{
	int code;

	/* the watchdog is writing the report: it exits when done, so wait for it */
	if (!gb_runwatch_claim(guard.wd))
		for (;;)
			pause();
	watchdog_on = 0;
	gb_runwatch_stop(guard.wd);
	guard.wd = NULL;
	code = write_outputs(run, c, device_detail, true);
	gb_cmd_exit_if_gpu_lost(run, code);
	gb_nvml_unload();
	return code;
}

/* "GPU 0" or "GPUs 0,1,2" for res's devices; "" when it has none. */
static void devices_str(const struct gb_bench_result *res, char *buf, size_t len)
{
	size_t used;

	buf[0] = '\0';
	if (!res || !res->n_devices)
		return;
	used = (size_t)snprintf(buf, len, "GPU%s ", res->n_devices > 1 ? "s" : "");
	for (size_t i = 0; i < res->n_devices && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "",
					 res->devices[i]);
}

/* The reason the watchdog gives, as precise as the phase allows. */
static void fire_reason(const struct gb_wd_event *ev, const struct gb_bench_result *res,
			char *buf, size_t len)
{
	char where[320], devs[256], last[300] = "";
	const char *gpus;

	devices_str(res, devs, sizeof(devs));
	gpus = devs[0] ? devs : "its GPUs";
	if (res)
		snprintf(where, sizeof(where), "on %s in %s", gpus, ev->phase);
	else
		snprintf(where, sizeof(where), "during %s", ev->phase);
	if (ev->last_line[0])
		snprintf(last, sizeof(last), "; last progress: '%s'", ev->last_line);
	switch (ev->why) {
	case GB_WD_SECOND_SIGNAL:
		if (res)
			snprintf(where, sizeof(where), "%s on %s", ev->phase, gpus);
		else
			snprintf(where, sizeof(where), "%s", ev->phase);
		snprintf(buf, len,
			 "interrupted twice: gave up waiting for %s (no progress for %.0f s%s)", where,
			 ev->silent_s, last);
		break;
	case GB_WD_STOP_TIMEOUT:
		snprintf(buf, len,
			 "hung: no progress for %.0f s %s, and still running %.0f s after the stop "
			 "signal%s",
			 ev->silent_s, where, ev->since_stop_s, last);
		break;
	default:
		snprintf(buf, len, "hung: no progress for %.0f s %s (limit %.0f s%s)", ev->silent_s,
			 where, ev->limit_s, last);
		break;
	}
}

/*
 * A hang is a fault finding with an action (report/fault_action.c): a "hung"
 * check on the benchmark that hung, or, when none had started (a driver call
 * in the GPU setup), on a "setup" entry of its own. After a stop signal the
 * run is the user's to end (interrupted, not judged): no finding then.
 */
static void add_hung_check(struct gb_run *run, struct gb_bench_result *res,
			   const struct gb_wd_event *ev, const char *why)
{
	if (ev->why != GB_WD_HUNG)
		return;
	if (!res)
		res = gb_run_add_bench(run, "setup");
	gb_bench_add_check(res, "hung", GB_STATUS_ERROR, GB_SEV_ERROR,
			   res->n_devices == 1 ? res->devices[0] : -1, ev->silent_s, ev->limit_s,
			   "%s", why);
}

/*
 * The watchdog fired (its thread): mark the running benchmark and the run,
 * write the report as the finish path would, and end the process without
 * CUDA teardown (the main thread is stuck in a call that may never return).
 */
static void on_watchdog(void *user, const struct gb_wd_event *ev)
{
	struct gb_run *run = guard.run;
	size_t idx = (size_t)(uintptr_t)ev->phase_user;
	struct gb_bench_result *res = idx && idx <= run->n_benches ? &run->benches[idx - 1] : NULL;
	char why[1024];

	(void)user;
	/* a sampler thread may be appending telemetry; a stuck holder is not waited for */
	if (!gb_run_model_lock_within(2.0))
		gb_debug("the result model is busy; writing the report anyway");
	/* the process ends here: a live block left on screen would sit under the report */
	gb_log_drop_live_block();
	fire_reason(ev, res, why, sizeof(why));
	gb_error("%s", why);
	add_hung_check(run, res, ev, why);
	if (res)
		gb_bench_set_status(res, ev->why == GB_WD_SECOND_SIGNAL ? GB_STATUS_INTERRUPTED
									: GB_STATUS_ERROR,
				    "%s", why);
	gb_run_set_status(run, gb_stop_flag ? GB_STATUS_INTERRUPTED : GB_STATUS_ERROR, why);
	exit_now(write_outputs(run, guard.c, guard.device_detail, false));
}

void gb_cmd_watchdog_start(struct gb_run *run, const struct gb_common *c, bool device_detail)
{
	char err[512];
	struct gb_runwatch_cfg cfg = {
		.poll_s = GB_WD_POLL_S, .stop = &gb_stop_flag, .fire = on_watchdog,
	};

	if (guard.wd)
		return;
	/* checked with the other options already; here only for callers that skip that */
	if (watchdog_env(err, sizeof(err)))
		gb_warn("%s; using the defaults", err);
	cfg.limit_s = wd_limit_s;
	cfg.grace_s = wd_grace_s;
	guard.run = run;
	guard.c = c;
	guard.device_detail = device_detail;
	guard.wd = gb_runwatch_start(&cfg);
	if (!guard.wd) {
		gb_warn("cannot start the watchdog thread: a hung GPU will hang this run");
		return;
	}
	watchdog_on = 1;
}

void gb_cmd_watchdog_phase(const char *name, long bench_index)
{
	gb_runwatch_phase(guard.wd, name, (void *)(uintptr_t)(bench_index + 1));
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
	struct gb_status_line *live = user;
	char buf[600];

	if (line[0] == '{')
		snprintf(buf, sizeof(buf), "%s", line);
	else
		snprintf(buf, sizeof(buf), "gpubench: %s", line);
	/* with a live block on screen the line goes above it, and the block below */
	if (live)
		gb_status_line_print(live, buf);
	else
		fprintf(stderr, "%s\n", buf);
}

/* The live status block (bench.h: gb_ctx.status) on stderr. */
static void show_status(void *user, const char *text)
{
	gb_status_line_show(user, text);
}

/* The report goes to stdout: the terminal is left to it and to plain lines. */
static bool report_on_stdout(const struct gb_common *c)
{
	return c->json || c->format == GB_FORMAT_JSON || report_to_stdout(c);
}

/*
 * A live block is for a person at a terminal: not with -q, not when the
 * report is on stdout, not when stderr is a file or a pipe (a log gets the
 * periodic lines instead). Colour follows --no-color and NO_COLOR.
 */
static bool offer_status(const struct gb_common *c, bool *color)
{
	*color = color_allowed(c);
	return !c->quiet && !report_on_stdout(c) && isatty(STDERR_FILENO);
}

/* The benchmark's beats (bench.h: gb_ctx.beat) into the watchdog. */
static void beat(void *user, const char *line, double expect_s)
{
	gb_runwatch_beat(user, line, expect_s);
}

struct gb_bench_result *gb_cmd_run_one_bench(const struct gb_bench *bench, struct gb_run *run,
					     const struct gb_common *c, const void *params)
{
	struct gb_ctx ctx = {
		.run = run,
		.devices = c->devices.idx,
		.n_devices = c->devices.n,
		.stop = &gb_stop_flag,
		.run_start_s = run_start_s, /* telemetry t_s: since the run, as started_s */
		.nvml = gb_nvml_loaded(),
		.quiet = c->quiet,
		.progress = c->quiet ? NULL : print_progress,
	};
	struct gb_status_line live = { 0 };
	struct gb_bench_result *res;
	char why[512];
	const char *reason;
	double t0 = gb_now_s();
	bool color;

	/* commands that did not start it (they may name no setup phase) get it here */
	gb_cmd_watchdog_start(run, c, false);
	ctx.beat = guard.wd ? beat : NULL;
	ctx.beat_user = guard.wd;
	res = gb_run_add_bench(run, bench->name);
	gb_cmd_watchdog_phase(bench->name, (long)(res - run->benches));

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
		snprintf(why, sizeof(why), "cleanup after %s", bench->name);
		gb_cmd_watchdog_phase(why, -1);
		return res;
	}
	if (offer_status(c, &color)) {
		gb_status_line_init(&live, stderr, color);
		ctx.status = show_status;
		ctx.status_user = &live;
		ctx.progress_user = &live;
		gb_log_set_live_block(&live);
	}
	res->started_s = t0 - run_start_s;
	bench->run(&ctx, params, res);
	/* a block left by Ctrl-C or an early return goes before the summary is printed */
	gb_log_set_live_block(NULL);
	gb_status_line_release(&live);
	/* what follows (the next step, the report) is no longer this benchmark's */
	snprintf(why, sizeof(why), "cleanup after %s", bench->name);
	gb_cmd_watchdog_phase(why, -1);
	res->duration_s = gb_now_s() - t0;
	note_loaded_libraries(run);
	if (gb_stop_flag && res->status != GB_STATUS_FAILED)
		res->status = GB_STATUS_INTERRUPTED;
	return res;
}
