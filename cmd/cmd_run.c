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
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_list.h"
#include "bench/device/gpu.h"
#include "bench/device/lost_math.h"
#include "bench/device/nvml.h"
#include "cmd/suite_math.h"
#include "cmd.h"
#include "launcher.h"
#include "log.h"
#include "report/exitcodes.h"
#include "report/fleet.h"
#include "report/json.h"
#include "report/published.h"
#include "report/thresholds.h"
#include "run_fleet.h"

enum run_profile { PROFILE_QUICK = 0, PROFILE_ACCEPTANCE, PROFILE_BURNIN };
static const char *const profile_names[] = { "quick", "acceptance", "burnin", NULL };

/* --only and --skip: a bit per benchmark, in GB_BENCHES order */
#define BENCH_NAME(name) #name,
static const char *const step_names[] = { GB_BENCHES(BENCH_NAME) NULL };
#undef BENCH_NAME

struct run_params {
	int profile;
	const char *thresholds; /* --thresholds FILE: overrides of the profile's built-ins */
	bool plan;              /* --plan: print the steps and check their options, run nothing */
	bool node_reports;      /* fleet: keep each node's report beside -o */
	double timeout_s;       /* fleet: how long node reports are waited for */
	double suite_s;         /* fleet: --suite-time, the suite's expected length (NAN: the profile's) */
	bool no_fleet;          /* under a launcher, still run alone (no MPI) */
	uint32_t only;          /* --only: the steps to run (0: every one) */
	uint32_t skip;          /* --skip: the steps to leave out */
	double stress_s;        /* --stress-duration: stress's length (0: the profile's) */
	int expect;             /* --expect: EXPECT_SPEC, or also EXPECT_PUBLISHED */
	double expect_tol;      /* --expect-tolerance: NAN for each figure's own */
};

/* --expect: the spec sheet only, or also what healthy GPUs reach (report/published.h) */
enum { EXPECT_SPEC, EXPECT_PUBLISHED };
static const char *const expect_names[] = { "spec", "published", NULL };

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
 * The sizes of each profile's steps, as profile_table and the benchmarks'
 * defaults have them: the most a step uses. On a GPU with little memory run
 * halves them to fit (cmd/suite_math.h) and adds the smaller ones as
 * options after the profile's, so the report's params say what ran.
 */
#define MiB (1ULL << 20)
static const struct gb_suite_sizes profile_sizes[] = {
	[PROFILE_QUICK] = { 8192, 256 * MiB, 256 * MiB, 256 * MiB, 256 * MiB },
	[PROFILE_ACCEPTANCE] = { 8192, 512 * MiB, 256 * MiB, 1024 * MiB, 256 * MiB },
	[PROFILE_BURNIN] = { 8192, 512 * MiB, 256 * MiB, 1024 * MiB, 256 * MiB },
};
#undef MiB

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

static double smallest_memory(const struct gb_run *run, const struct gb_common *c);

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

/*
 * Set --NAME to value in buf, a space-separated option string: its value
 * replaced where the option is there already (an option is given once),
 * else appended.
 */
static void set_opt(char *buf, size_t len, const char *name, const char *value)
{
	char key[48], rest[512];
	char *at = buf, *val, *end;
	size_t klen = (size_t)snprintf(key, sizeof(key), "--%s ", name), n;

	while ((at = strstr(at, key)) && at != buf && at[-1] != ' ')
		at += klen;
	if (!at) {
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s%s%s", n ? " " : "", key, value);
		return;
	}
	val = at + klen;
	end = strchr(val, ' ');
	snprintf(rest, sizeof(rest), "%s", end ? end : "");
	snprintf(val, len - (size_t)(val - buf), "%s%s", value, rest);
}

/* bytes as the option parser reads them, with the largest exact binary suffix */
static void fmt_size(char *buf, size_t len, uint64_t v)
{
	static const char suffix[] = "KMGT";
	int s = -1;

	while (s < 3 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		s++;
	}
	/* two plain calls: gcc 12's printf checker crashes (-fsanitize, -O0) on "%.*s" of &suffix[s] */
	if (s >= 0)
		snprintf(buf, len, "%llu%c", (unsigned long long)v, suffix[s]);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* --NAME fit in buf when the fitted value is below the profile's (max) */
static void set_smaller(char *buf, size_t len, const char *name, uint64_t fit, uint64_t max,
			bool bytes)
{
	char v[32];

	if (fit >= max)
		return;
	if (bytes)
		fmt_size(v, sizeof(v), fit);
	else
		snprintf(v, sizeof(v), "%llu", (unsigned long long)fit);
	set_opt(buf, len, name, v);
}

/*
 * The options in buf that shrink bench's sizes from the profile's (max) to
 * fit (see profile_sizes): none on GPUs of 16 GiB and more.
 */
static void fit_args(const char *bench, const struct gb_suite_sizes *max,
		     const struct gb_suite_sizes *fit, char *buf, size_t len)
{
	if (!strcmp(bench, "gemm")) {
		set_smaller(buf, len, "size", fit->gemm_n, max->gemm_n, false);
	} else if (!strcmp(bench, "bandwidth")) {
		set_smaller(buf, len, "max-size", fit->bandwidth_bytes, max->bandwidth_bytes, true);
	} else if (!strcmp(bench, "p2p")) {
		set_smaller(buf, len, "bytes", fit->p2p_bytes, max->p2p_bytes, true);
	} else if (!strcmp(bench, "nccl")) {
		set_smaller(buf, len, "max-bytes", fit->nccl_bytes, max->nccl_bytes, true);
	} else if (!strcmp(bench, "stress")) {
		/* its own sizing keeps the memory coverage: smaller GEMMs, more slots */
		set_smaller(buf, len, "size", fit->gemm_n, max->gemm_n, false);
	} else if (!strcmp(bench, "scaling")) {
		set_smaller(buf, len, "gemm-size", fit->gemm_n, max->gemm_n, false);
		set_smaller(buf, len, "grad-bytes", fit->grad_bytes, max->grad_bytes, true);
	}
}

/*
 * What a step's options depend on besides the profile and run's own options:
 * the GPUs the run uses. Plan and run both fill it (suite_ctx_of) and both
 * build every step's options from it with step_args, so the plan is what runs.
 */
struct suite_ctx {
	struct gb_suite_sizes fit; /* the profile's sizes, fitted to memory */
	double memory;             /* the smallest memory of the GPUs, bytes; 0: unknown */
	bool no_bf16;              /* a GPU without BF16 (compute capability below 8.0) */
};

static void suite_ctx_of(const struct gb_run *run, const struct gb_common *c, int profile,
			 struct suite_ctx *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->memory = run ? smallest_memory(run, c) : 0;
	gb_suite_fit_sizes(&profile_sizes[profile], sc->memory, &sc->fit);
	for (size_t i = 0; run && i < c->devices.n; i++) {
		const struct gb_device_info *d = gb_run_find_device(run, c->devices.idx[i]);

		if (d && d->cc_major > 0 && d->cc_major < 8)
			sc->no_bf16 = true;
	}
}

/*
 * The profile's options for bench with bf16 replaced by fp16 where a GPU has
 * no BF16 (a T4, a V100): the same tensor-core check at the precision the
 * GPU has (gemm's --precision list; stress's is added by precision_arg).
 */
static void profile_args_fitted(const char *bench, int profile, bool no_bf16, char *buf,
				size_t len)
{
	const char *args = profile_args_for(bench, profile);
	char *at;

	snprintf(buf, len, "%s", args ? args : "");
	while (no_bf16 && (at = strstr(buf, "bf16")))
		memcpy(at, "fp16", 4);
}

/* stress loads the GPUs with BF16 GEMMs by default: FP16 where BF16 does not exist */
static void precision_arg(const char *bench, const struct suite_ctx *sc, char *buf, size_t len)
{
	if (sc->no_bf16 && !strcmp(bench, "stress"))
		set_opt(buf, len, "precision", "fp16");
}

/*
 * Every option of a step, space-separated, in the order they are parsed:
 * the profile's (by capability), the sizes fitted to memory, stress's
 * precision, --stress-duration. `run --plan` prints this; `run` parses it.
 */
static void step_args(const char *bench, const struct run_params *rp, const struct suite_ctx *sc,
		      char *buf, size_t len)
{
	char dur[32];

	profile_args_fitted(bench, rp->profile, sc->no_bf16, buf, len);
	fit_args(bench, &profile_sizes[rp->profile], &sc->fit, buf, len);
	precision_arg(bench, sc, buf, len);
	if (rp->stress_s > 0 && !strcmp(bench, "stress")) {
		snprintf(dur, sizeof(dur), "%.17gs", rp->stress_s);
		set_opt(buf, len, "duration", dur);
	}
}

/* Parse args (space-separated options) into params over what is there; 0 or -1. */
static int parse_more(const struct gb_bench *b, const char *args, void *params)
{
	const char *argv[32];
	struct gb_opt_set set = { b->opts, params };
	char *copy = strdup(args);
	size_t n = split_args(copy, argv, 32), npos = 0;
	int rc = gb_cli_parse(&set, 1, (int)n, argv, NULL, 0, &npos) == GB_CLI_OK ? 0 : -1;

	free(copy);
	return rc;
}

/* The step's options (step_args) into params over its defaults; -1 is a bug in profile_table. */
static int args_params(const struct gb_bench *b, const char *args, void *params)
{
	if (b->set_defaults)
		b->set_defaults(params);
	return args[0] ? parse_more(b, args, params) : 0;
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

/* The smallest memory of the GPUs the run uses, bytes; 0 when none is known. */
static double smallest_memory(const struct gb_run *run, const struct gb_common *c)
{
	double least = 0;

	for (size_t i = 0; i < c->devices.n; i++) {
		const struct gb_device_info *d = gb_run_find_device(run, c->devices.idx[i]);

		if (d && d->memory_bytes > 0 && (!(least > 0) || d->memory_bytes < least))
			least = d->memory_bytes;
	}
	return least;
}

/* The reason a step is left out by --only or --skip, or NULL when it runs. */
static const char *left_out(const struct run_params *rp, const char *bench)
{
	for (size_t i = 0; step_names[i]; i++) {
		if (strcmp(step_names[i], bench))
			continue;
		if (rp->only && !(rp->only & (1u << i)))
			return "not in --only";
		if (rp->skip & (1u << i))
			return "left out by --skip";
	}
	return NULL;
}

/* The step's params: its options (step_args), then --thresholds. */
static int step_params(const struct gb_bench *b, const struct run_params *rp,
		       const struct suite_ctx *sc, const struct gb_run *run, void *params)
{
	char args[512];

	step_args(b->name, rp, sc, args, sizeof(args));
	if (args_params(b, args, params))
		return -1;
	if (thresholds_param(b, rp->thresholds, params))
		return -1;
	return gb_cmd_resolve_bench_devices(b, params, (int)run->n_devices);
}

/* One line when the sizes shrink, so a user who wonders why the GEMM is small knows. */
static void say_fitted(const struct gb_common *c, const struct suite_ctx *sc, int profile)
{
	char mem[32];

	if (!c->quiet && sc->no_bf16)
		fprintf(stderr, "gpubench: run: a GPU without BF16 (compute capability below "
			"8.0): gemm and stress use FP16 instead\n");
	/* a struct of uint64_t only: no padding to compare */
	if (c->quiet || !memcmp(&sc->fit, &profile_sizes[profile], sizeof(sc->fit)))
		return;
	gb_format_bytes(mem, sizeof(mem), sc->memory);
	fprintf(stderr, "gpubench: run: %s of GPU memory: sizes halved to fit, GEMMs of %llu^3 "
		"(each step's params say what it used)\n", mem,
		(unsigned long long)sc->fit.gemm_n);
}

static void run_suite(struct gb_run *run, const struct gb_common *c, const struct run_params *rp)
{
	size_t nb;
	const struct gb_bench *const *benches = gb_bench_all(&nb);
	struct gb_lost_set *lost = gb_xrealloc(NULL, sizeof(*lost));
	struct suite_ctx sc;

	lost->n = 0;
	/* a GPU that setup could not read ("info" entry) is lost from the start */
	for (size_t i = 0; i < run->n_benches; i++)
		gb_lost_scan(lost, &run->benches[i]);
	suite_ctx_of(run, c, rp->profile, &sc);
	say_fitted(c, &sc, rp->profile);
	for (size_t i = 0; i < nb && !gb_stop_flag; i++) {
		const struct gb_bench *b = benches[i];
		const char *why_not = left_out(rp, b->name);
		void *params = calloc(1, b->params_size ? b->params_size : 1);

		if (why_not) {
			gb_bench_set_status(gb_run_add_bench(run, b->name), GB_STATUS_SKIPPED, "%s",
					    why_not);
		} else if (step_params(b, rp, &sc, run, params)) {
			struct gb_bench_result *res = gb_run_add_bench(run, b->name);

			gb_bench_set_status(res, GB_STATUS_ERROR, "internal: bad '%s' profile options",
					    profile_names[rp->profile]);
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
	{ GB_OPT_ENUM_LIST, 0, "only", offsetof(struct run_params, only), "LIST",
	  "run only these steps (comma-separated: gemm, bandwidth, p2p, nccl, stress, "
	  "scaling); the others are in the report as skipped", 0, 0, step_names, 0 },
	{ GB_OPT_ENUM_LIST, 0, "skip", offsetof(struct run_params, skip), "LIST",
	  "leave these steps out (same names as --only); in the report as skipped", 0, 0,
	  step_names, 0 },
	{ GB_OPT_DURATION, 0, "stress-duration", offsetof(struct run_params, stress_s), "TIME",
	  "how long the stress step loads the GPUs, instead of the profile's (quick 30s, "
	  "acceptance 10m, burnin 4h)",
	  1, 30 * 86400.0, NULL, 0 },
	{ GB_OPT_ENUM, 0, "expect", offsetof(struct run_params, expect), "WHAT",
	  "what the GPUs are judged against: spec (the thresholds' share of the spec sheet, "
	  "default) or published (also what healthy GPUs of the model reach, measured by "
	  "others: docs/published.md)",
	  0, 0, expect_names, 0 },
	{ GB_OPT_PERCENT, 0, "expect-tolerance", offsetof(struct run_params, expect_tol), "PCT",
	  "with --expect published: how far below a published figure is still healthy, for "
	  "every figure (default: each figure's own, 10-15%)",
	  0, 0.9, NULL, 0 },
	{ GB_OPT_BOOL, 0, "plan", offsetof(struct run_params, plan), NULL,
	  "print the benchmark commands of the profile and check them; measure nothing", 0, 0,
	  NULL, 0 },
	{ GB_OPT_BOOL, 0, "node-reports", offsetof(struct run_params, node_reports), NULL,
	  "under mpirun/srun: each node also writes its own report beside -o, as "
	  "STEM.HOST.json (ignored without a launcher)",
	  0, 0, NULL, 0 },
	{ GB_OPT_DURATION, 0, "timeout", offsetof(struct run_params, timeout_s), "TIME",
	  "under mpirun/srun: how long the nodes wait for each other after the longest expected "
	  "suite of the profile (or their own end, if later); a node not in by then is reported "
	  "missing (default 30m; ignored without a launcher)",
	  1, 7 * 24 * 3600.0, NULL, 0 },
	{ GB_OPT_DURATION, 0, "suite-time", offsetof(struct run_params, suite_s), "TIME",
	  "under mpirun/srun: how long the suite is expected to take on a node, after which "
	  "--timeout starts (default: the profile's, quick 15m, acceptance 45m, burnin 4.5h, "
	  "longer by --stress-duration; give less when --only runs a few steps; ignored "
	  "without a launcher)",
	  0, 7 * 24 * 3600.0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "no-fleet", offsetof(struct run_params, no_fleet), NULL,
	  "under mpirun/srun: no fleet, each process runs alone and writes its own report (give "
	  "each its own -o; merge them with 'report --merge'); ignored without a launcher",
	  0, 0, NULL, 0 },
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};

/*
 * --plan: each step as the command a user could type, built by step_args
 * as the suite builds it and parsed the same way, so what it prints is what
 * runs and a bad profile entry is found without a GPU (the CLI tests run
 * this for every profile). run is the probed machine, or NULL where no GPU
 * could be probed: then the profile's sizes, which fit GPUs of 16 GiB and up.
 */
static int print_plan(const struct run_params *rp, const struct gb_run *run,
		      const struct gb_common *c)
{
	size_t nb;
	const struct gb_bench *const *benches = gb_bench_all(&nb);
	int rc = GB_EXIT_OK, profile = rp->profile;
	struct suite_ctx sc;
	char args[512];

	suite_ctx_of(run, c, profile, &sc);
	if (!run && !c->quiet)
		fprintf(stderr, "gpubench: run: no GPU to fit the sizes to: the profile's, for "
			"GPUs of 16 GiB and more\n");
	else
		say_fitted(c, &sc, profile);
	for (size_t i = 0; i < nb; i++) {
		const struct gb_bench *b = benches[i];
		void *params;

		if (left_out(rp, b->name))
			continue;
		params = calloc(1, b->params_size ? b->params_size : 1);
		step_args(b->name, rp, &sc, args, sizeof(args));
		if (args_params(b, args, params)) {
			gb_error("profile '%s': invalid options for '%s': %s",
				 profile_names[profile], b->name, args);
			rc = GB_EXIT_CANNOT_RUN;
		} else {
			printf("gpubench %s%s%s\n", b->name, args[0] ? " " : "", args);
		}
		free(params);
	}
	return rc;
}

/*
 * --plan alone: probe the GPUs (quietly: none is not an error here) so the
 * plan is fitted to them as the run will be; print it.
 */
static int plan_alone(const struct run_params *rp, struct gb_common *c, int argc,
		      const char **argv)
{
	struct gb_run run;
	char reason[512];
	int count = 0, rc;
	bool probed = gb_gpu_probe(&count, getenv("CUDA_VISIBLE_DEVICES"), reason,
				   sizeof(reason)) == GB_PROBE_OK && count > 0;

	gb_run_init(&run, "run", argc, argv);
	probed = probed && !gb_cmd_gpu_setup(&run) &&
		 !gb_device_list_resolve(&c->devices, (int)run.n_devices);
	rc = print_plan(rp, probed ? &run : NULL, c);
	gb_run_release(&run);
	gb_nvml_unload();
	return rc;
}

/* ---- a fleet: one rank per node under mpirun or srun ---- */

/* stress's --duration in the profile's options (profile_table), seconds; 0 if none */
static double profile_stress_seconds(int profile)
{
	const char *args = profile_args_for("stress", profile), *d;
	char tok[32];
	double s;

	d = args ? strstr(args, "--duration ") : NULL;
	if (!d || sscanf(d + strlen("--duration "), "%31s", tok) != 1 || gb_parse_duration(tok, &s))
		return 0;
	return s;
}

/*
 * --suite-time, else the profile's expected duration, longer by what
 * --stress-duration adds (a shorter stress keeps the allowance: the waits
 * stay generous). A user who runs one short step (--only bandwidth) says so,
 * and a missing node is reported minutes, not a profile's length, later.
 */
static double suite_seconds(const struct run_params *rp)
{
	double longer = rp->stress_s - profile_stress_seconds(rp->profile);

	if (!isnan(rp->suite_s))
		return rp->suite_s;
	return profile_suite_s[rp->profile] + (longer > 0 ? longer : 0);
}

struct suite {
	const struct run_params *rp;
	const struct gb_thresholds *thr;
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
	run_suite(run, c, s->rp);
	gb_thresholds_apply(s->thr, run);
	if (s->rp->expect == EXPECT_PUBLISHED) {
		gb_published_annotate(run);
		gb_published_judge(run, s->rp->expect_tol);
	}
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
	struct suite suite = { rp, &thr };
	struct gb_fleet_cfg cfg = {
		.launcher = l, .common = common, .node_reports = rp->node_reports,
		.timeout_s = rp->timeout_s, .suite_s = suite_seconds(rp),
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
		rc = print_plan(rp, NULL, common);
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
	struct suite suite = { rp, &thr };
	struct gb_run run;
	int rc;

	if (gb_cmd_check_common(common))
		return GB_EXIT_USAGE;
	if (rp->plan)
		return plan_alone(rp, common, argc, argv);
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
	struct run_params rp = { .profile = PROFILE_QUICK, .timeout_s = 1800, .expect_tol = NAN,
				 .suite_s = NAN };
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
	if (rc < 0 && rp.only && rp.skip) {
		gb_error("--only and --skip together: name the steps to run with one of them");
		rc = GB_EXIT_USAGE;
	}
	gb_launcher_unmute(&m);
	if (rc >= 0)
		return rc;
	if (launch.size > 1 && !rp.no_fleet)
		return run_fleet(&rp, &common, &launch, argc, argv);
	return run_alone(&rp, &common, argc, argv);
}
