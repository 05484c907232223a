/* SPDX-License-Identifier: MIT */
/*
 * cmd_run.c - `gpubench run`: the acceptance suite. One probe, then every
 * benchmark that applies to this machine with the profile's settings, one
 * report and one verdict. Each benchmark's profile settings are written as
 * the command-line options a user would type, parsed by the same option
 * tables, so `gpubench <bench> <those options>` reproduces any step.
 *
 * Started by mpirun or srun with more than one process, every rank is one
 * node: it runs the same suite on its node's GPUs and rank 0 writes one
 * fleet report (run_fleet.h). Alone, nothing of that happens.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/lost_math.h"
#include "cmd.h"
#include "launcher.h"
#include "log.h"
#include "report/exitcodes.h"
#include "report/fleet.h"
#include "report/json.h"
#include "report/thresholds.h"
#include "run_fleet.h"

enum run_profile { PROFILE_QUICK = 0, PROFILE_ACCEPTANCE, PROFILE_BURNIN };
static const char *const profile_names[] = { "quick", "acceptance", "burnin", NULL };

struct run_params {
	int profile;
	const char *thresholds; /* --thresholds FILE: overrides of the profile's built-ins */
	bool plan;              /* --plan: print the steps and check their options, run nothing */
	bool node_reports;      /* fleet: keep each node's report beside -o */
	double timeout_s;       /* fleet: how long node reports are waited for */
	bool no_fleet;          /* under a launcher, still run alone (no MPI) */
};

/* Options per benchmark and profile; NULL: the benchmark's own defaults. */
struct profile_args {
	const char *bench;
	const char *args[3]; /* quick, acceptance, burnin */
};

static const struct profile_args profile_table[] = {
	{ "gemm", { "--precision bf16,fp32 --size 8192 --warmup 2s --duration 1s",
		    "--warmup 5s --duration 3s", "--warmup 10s --duration 10s" } },
	/* 5 samples at least, as everywhere (median and spread need them) */
	{ "bandwidth", { "--max-size 256M --samples 5", NULL, NULL } },
	{ "p2p", { "--samples 5", NULL, NULL } },
	{ "nccl", { "--max-bytes 256M", "--max-bytes 1G", "--max-bytes 1G" } },
	{ "stress", { "--duration 30s", "--duration 10m", "--duration 4h" } },
	{ "scaling", { "--workload ddp --steps 10 --warmup-steps 2",
		       "--workload ddp --steps 20 --overlap", "--workload ddp --steps 50 --overlap" } },
};

/*
 * How long each profile is expected to take on a node of 8 GPUs: stress's
 * duration (30 s, 10 min, 4 h) and a generous allowance for the other
 * steps. A fleet's waits for the other nodes start from it (run_fleet.h),
 * so a node that ends early does not give up on one still measuring.
 */
static const double profile_suite_s[] = { 15 * 60.0, 45 * 60.0, 4.5 * 3600 };

static const char *profile_args_for(const char *bench, int profile)
{
	for (size_t i = 0; i < sizeof(profile_table) / sizeof(profile_table[0]); i++)
		if (!strcmp(profile_table[i].bench, bench))
			return profile_table[i].args[profile];
	return NULL;
}

/* Split a space-separated argument string into argv (no quoting needed here). */
static size_t split_args(char *s, const char **argv, size_t max)
{
	size_t n = 0;

	for (char *tok = s, *save = NULL; n < max && (tok = strtok_r(tok, " ", &save)); tok = NULL)
		argv[n++] = tok;
	return n;
}

/*
 * --thresholds FILE reaches the suite's stress step too: one file holds the
 * rules of `run` and, in its "stress" section, stress's own limits.
 */
static int thresholds_param(const struct gb_bench *b, const char *file, void *params)
{
	const char *argv[] = { "--thresholds", file };
	struct gb_opt_set set = { b->opts, params };
	size_t npos = 0;

	if (!file || strcmp(b->name, "stress"))
		return 0;
	return gb_cli_parse(&set, 1, 2, argv, NULL, 0, &npos) == GB_CLI_OK ? 0 : -1;
}

/* Parse the profile's options into params; -1 is a bug in profile_table. */
static int profile_params(const struct gb_bench *b, int profile, void *params)
{
	const char *args = profile_args_for(b->name, profile);
	const char *argv[32];
	struct gb_opt_set set = { b->opts, params };
	char *copy;
	size_t n, npos = 0;
	int rc;

	if (b->set_defaults)
		b->set_defaults(params);
	if (!args)
		return 0;
	copy = strdup(args);
	n = split_args(copy, argv, 32);
	rc = gb_cli_parse(&set, 1, (int)n, argv, NULL, 0, &npos) == GB_CLI_OK ? 0 : -1;
	free(copy);
	return rc;
}

/*
 * One step on the GPUs not lost so far: a GPU that an earlier step found
 * hung or with a sticky error is left out (it would hang this step too, or
 * fail it as a whole), and the step says so with a skipped check per GPU.
 */
static void run_step(const struct gb_bench *b, struct gb_run *run, const struct gb_common *c,
		     const void *params, struct gb_lost_set *lost)
{
	struct gb_common step = *c;
	struct gb_bench_result *res;

	step.devices.all = false;
	step.devices.n = gb_lost_filter(lost, c->devices.idx, c->devices.n, step.devices.idx);
	if (!step.devices.n && lost->n) {
		res = gb_run_add_bench(run, b->name);
		gb_bench_set_status(res, GB_STATUS_SKIPPED, "no GPU left: GPU %d lost in %s: %s",
				    lost->gpu[0].device, lost->gpu[0].bench, lost->gpu[0].reason);
	} else {
		if (!c->quiet)
			fprintf(stderr, "gpubench: run: %s\n", b->name);
		res = gb_cmd_run_one_bench(b, run, &step, params);
	}
	gb_lost_note(lost, c->devices.idx, c->devices.n, res);
	gb_lost_scan(lost, res);
}

static void run_suite(struct gb_run *run, const struct gb_common *c, int profile,
		      const char *thresholds)
{
	size_t nb;
	const struct gb_bench *const *benches = gb_bench_all(&nb);
	struct gb_lost_set *lost = gb_xrealloc(NULL, sizeof(*lost));

	lost->n = 0;
	/* a GPU that setup could not read ("info" entry) is lost from the start */
	for (size_t i = 0; i < run->n_benches; i++)
		gb_lost_scan(lost, &run->benches[i]);
	for (size_t i = 0; i < nb && !gb_stop_flag; i++) {
		const struct gb_bench *b = benches[i];
		void *params = calloc(1, b->params_size ? b->params_size : 1);

		if (profile_params(b, profile, params) || thresholds_param(b, thresholds, params) ||
		    gb_cmd_resolve_bench_devices(b, params, (int)run->n_devices)) {
			struct gb_bench_result *res = gb_run_add_bench(run, b->name);

			gb_bench_set_status(res, GB_STATUS_ERROR, "internal: bad '%s' profile options",
					    profile_names[profile]);
		} else {
			run_step(b, run, c, params, lost);
		}
		free(params);
	}
	free(lost);
}

static const struct gb_opt run_opts[] = {
	{ GB_OPT_ENUM, 'p', "profile", offsetof(struct run_params, profile), "NAME",
	  "quick (minutes), acceptance (longer, stricter) or burnin (hours)", 0, 0, profile_names,
	  0 },
	{ GB_OPT_STRING, 0, "thresholds", offsetof(struct run_params, thresholds), "FILE",
	  "JSON file overriding the built-in pass/fail thresholds (docs/thresholds.md)", 0, 0,
	  NULL, 0 },
	{ GB_OPT_BOOL, 0, "plan", offsetof(struct run_params, plan), NULL,
	  "print the benchmark commands of the profile and check them; measure nothing", 0, 0,
	  NULL, 0 },
	{ GB_OPT_BOOL, 0, "node-reports", offsetof(struct run_params, node_reports), NULL,
	  "under mpirun/srun: each node also writes its own report beside -o, as "
	  "STEM.HOST.json (ignored without a launcher)",
	  0, 0, NULL, 0 },
	{ GB_OPT_DURATION, 0, "timeout", offsetof(struct run_params, timeout_s), "DURATION",
	  "under mpirun/srun: how long the nodes wait for each other after the longest expected "
	  "suite of the profile (or their own end, if later); a node not in by then is reported "
	  "missing (default 30m; ignored without a launcher)",
	  1, 7 * 24 * 3600.0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "no-fleet", offsetof(struct run_params, no_fleet), NULL,
	  "under mpirun/srun: no fleet, each process runs alone and writes its own report (give "
	  "each its own -o; merge them with 'report --merge'); ignored without a launcher",
	  0, 0, NULL, 0 },
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};

/*
 * --plan: each step as the command a user could type, after parsing its
 * options exactly as the suite will, so a bad profile entry is found without
 * a GPU (the CLI tests run this for every profile).
 */
static int print_plan(int profile)
{
	size_t nb;
	const struct gb_bench *const *benches = gb_bench_all(&nb);
	int rc = GB_EXIT_OK;

	for (size_t i = 0; i < nb; i++) {
		const struct gb_bench *b = benches[i];
		const char *args = profile_args_for(b->name, profile);
		void *params = calloc(1, b->params_size ? b->params_size : 1);

		if (profile_params(b, profile, params)) {
			gb_error("profile '%s': invalid options for '%s': %s", profile_names[profile],
				 b->name, args ? args : "");
			rc = GB_EXIT_CANNOT_RUN;
		} else {
			printf("gpubench %s%s%s\n", b->name, args ? " " : "", args ? args : "");
		}
		free(params);
	}
	return rc;
}

/* ---- a fleet: one rank per node under mpirun or srun ---- */

/*
 * The profile's expected duration; GPUBENCH_TEST_FLEET_SUITE_S=DURATION
 * (tests only, not in the README) replaces it, so that tests without a GPU
 * need not wait for a suite that ends at once.
 */
static double suite_seconds(int profile)
{
	const char *v = getenv("GPUBENCH_TEST_FLEET_SUITE_S");
	double s;

	if (v && *v && !gb_parse_duration(v, &s) && s >= 0)
		return s;
	return profile_suite_s[profile];
}

struct suite {
	int profile;
	const struct gb_thresholds *thr;
	const char *thresholds_file; /* --thresholds, for the stress step */
};

/*
 * Measure this process's GPUs into run and judge them: what a run does
 * alone, and each node of a fleet. -1 when --devices names a GPU that is
 * not here; a machine where nothing can run is a report saying why, 0.
 */
static int measure_suite(struct gb_run *run, struct gb_common *c, void *user)
{
	const struct suite *s = user;

	gb_cmd_library_versions(run);
	if (gb_cmd_gpu_setup(run))
		return 0; /* the node's report says why: it could not run */
	if (gb_device_list_resolve(&c->devices, (int)run->n_devices))
		return -1;
	run_suite(run, c, s->profile, s->thresholds_file);
	gb_thresholds_apply(s->thr, run);
	return 0;
}

/*
 * --thresholds FILE over the profile's built-ins already in thr: a bad file
 * is found before hours of measuring, not after. 0, or -1 after one line.
 */
static int load_thresholds(const struct run_params *rp, struct gb_thresholds *thr)
{
	char err[512];

	if (rp->thresholds && gb_thresholds_load_file(thr, rp->thresholds, err, sizeof(err)))
		return gb_error("%s", err);
	return 0;
}

/*
 * The options as this rank can use them: -o is rank 0's (another node may
 * not even have its folder), the node report is every rank's own. 0, or the
 * exit code after one line.
 */
static int fleet_checks(const struct run_params *rp, const struct gb_common *common,
			const struct gb_launcher *l, const char *host, struct gb_thresholds *thr)
{
	struct gb_common mine = *common;
	char err[512], path[4096];

	if (l->rank != 0)
		mine.output = NULL;
	if (gb_cmd_check_common(&mine))
		return GB_EXIT_USAGE;
	if (rp->node_reports && (!common->output || !strcmp(common->output, "-"))) {
		gb_error("--node-reports needs -o FILE: each node's report is written beside it");
		return GB_EXIT_USAGE;
	}
	if (rp->node_reports &&
	    gb_fleet_node_report_path(path, sizeof(path), common->output, host)) {
		gb_error("cannot name this node's report beside '%s': the path is too long",
			 common->output);
		return GB_EXIT_USAGE;
	}
	if (rp->node_reports && gb_report_check_writable(path, err, sizeof(err))) {
		gb_error("%s", err);
		return GB_EXIT_USAGE;
	}
	return load_thresholds(rp, thr) ? GB_EXIT_USAGE : 0;
}

static int run_fleet(const struct run_params *rp, struct gb_common *common,
		     const struct gb_launcher *l, int argc, const char **argv)
{
	struct gb_thresholds thr;
	struct suite suite = { rp->profile, &thr, rp->thresholds };
	struct gb_fleet_cfg cfg = {
		.launcher = l, .common = common, .node_reports = rp->node_reports,
		.timeout_s = rp->timeout_s, .suite_s = suite_seconds(rp->profile),
		.argc = argc, .argv = argv,
		.measure = measure_suite, .user = &suite,
	};
	char host[128];
	struct gb_muted m;
	int rc;

	gb_launcher_hostname(host, sizeof(host));
	cfg.host = host;
	gb_thresholds_builtin(&thr, profile_names[rp->profile]);
	/* every rank checks the same options: rank 0 alone says what is wrong */
	gb_launcher_mute(&m, l->rank > 0);
	rc = fleet_checks(rp, common, l, host, &thr);
	if (rp->plan && !rc)
		rc = print_plan(rp->profile);
	gb_launcher_unmute(&m);
	if (!rp->plan) {
		cfg.usage_rc = rc;
		rc = gb_run_fleet(&cfg);
	}
	gb_thresholds_release(&thr);
	return rc;
}

/* One process, this machine's GPUs, one report: without a launcher, or with --no-fleet. */
static int run_alone(const struct run_params *rp, struct gb_common *common, int argc,
		     const char **argv)
{
	struct gb_thresholds thr;
	struct suite suite = { rp->profile, &thr, rp->thresholds };
	struct gb_run run;
	int rc;

	if (gb_cmd_check_common(common))
		return GB_EXIT_USAGE;
	if (rp->plan)
		return print_plan(rp->profile);
	gb_thresholds_builtin(&thr, profile_names[rp->profile]);
	if (load_thresholds(rp, &thr)) {
		gb_thresholds_release(&thr);
		return GB_EXIT_USAGE;
	}
	gb_log_set_verbosity(common->quiet ? -1 : common->verbose ? 1 : 0);
	gb_cmd_catch_signals();
	gb_cmd_run_begin(&run, "run", argc, argv);
	gb_cmd_watchdog_start(&run, common, false);
	if (measure_suite(&run, common, &suite)) {
		gb_run_release(&run);
		gb_thresholds_release(&thr);
		return GB_EXIT_USAGE;
	}
	gb_thresholds_release(&thr);
	rc = gb_cmd_run_finish(&run, common, false);
	gb_run_release(&run);
	return rc;
}

int cmd_run(int argc, const char **argv)
{
	static const char usage[] =
		"gpubench run [--profile quick|acceptance|burnin] [options]\n"
		"       mpirun --map-by ppr:1:node gpubench run [options] -o fleet.json";
	static const char summary[] =
		"Run the acceptance suite: info, then every benchmark that applies to these GPUs, "
		"in one report with one verdict. This is what `make run` does. Started by mpirun "
		"or srun with one rank per node, every node runs the suite and rank 0 writes one "
		"fleet report: a row per node, outliers more than 3 MADs from the fleet median "
		"marked, a node that did not report marked as missing.";
	struct run_params rp = { .profile = PROFILE_QUICK, .timeout_s = 1800 };
	struct gb_common common;
	struct gb_launcher launch;
	struct gb_muted m;
	struct gb_opt_set sets[] = { { run_opts, &rp }, { gb_common_opts, &common } };
	int rc;

	gb_launcher_detect(&launch);
	gb_common_defaults(&common);
	/* under a launcher every rank parses the same argv: one voice */
	gb_launcher_mute(&m, launch.rank > 0);
	rc = gb_cmd_parse(usage, summary, sets, 2, argc, argv, NULL, 0, NULL);
	gb_launcher_unmute(&m);
	if (rc >= 0)
		return rc;
	if (launch.size > 1 && !rp.no_fleet)
		return run_fleet(&rp, &common, &launch, argc, argv);
	return run_alone(&rp, &common, argc, argv);
}
