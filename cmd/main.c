/* SPDX-License-Identifier: MIT */
/*
 * main.c - gpubench's entry point: the table of commands (git's cmd_struct
 * idea), help and version. Every command is reachable with `-h` on a machine
 * without a GPU; only commands that measure probe the GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#if GPUBENCH_HAVE_NCCL
#include <nccl.h>
#endif

#include "bench/bench.h"
#include "bench/device/mpi_world.h"
#include "build_info.h"
#include "cmd.h"
#include "log.h"
#include "report/exitcodes.h"

static int cmd_help(int argc, const char **argv);
static int cmd_version(int argc, const char **argv);

/* Non-benchmark commands; benchmarks are appended from bench_list.h. */
static const struct gb_cmd base_commands[] = {
	{ "info", cmd_info, "devices, topology and theoretical peaks", GB_CMD_NEEDS_GPU, NULL },
	{ "run", cmd_run, "the acceptance suite: every benchmark that applies, one verdict",
	  GB_CMD_NEEDS_GPU, NULL },
	{ "theory", cmd_theory, "spec-sheet peaks and predicted multi-GPU scaling (no GPU needed)",
	  0, NULL },
	{ "compare", cmd_compare, "compare two reports: changes, regressions, other GPU models", 0,
	  NULL },
	{ "report", cmd_report, "print a saved report in any format, or merge nodes into a fleet",
	  0, NULL },
	{ "help", cmd_help, "show help for gpubench or a command", 0, NULL },
	{ "version", cmd_version, "show the version and what it was built with", 0, NULL },
};
#define N_BASE (sizeof(base_commands) / sizeof(base_commands[0]))

/*
 * Benchmarks with a front end of their own (nccl: several processes under
 * mpirun/srun). Listed in the benchmark order, dispatched to fn instead of
 * cmd_bench; `gpubench run` still runs them through the gb_bench interface.
 */
static gb_cmd_fn *bench_front_end(const char *name)
{
	return !strcmp(name, "nccl") ? cmd_nccl : NULL;
}

#define MAX_CMDS 64

static struct gb_cmd commands[MAX_CMDS];
static size_t n_commands;

static void build_table(void)
{
	size_t nb;
	const struct gb_bench *const *benches = gb_bench_all(&nb);

	if (n_commands)
		return;
	for (size_t i = 0; i < N_BASE; i++)
		commands[n_commands++] = base_commands[i];
	for (size_t i = 0; i < nb && n_commands < MAX_CMDS; i++) {
		struct gb_cmd c = { benches[i]->name, NULL, benches[i]->summary, GB_CMD_NEEDS_GPU,
				    benches[i] };

		c.fn = bench_front_end(c.name);
		if (c.fn)
			c.bench = NULL;
		commands[n_commands++] = c;
	}
}

const struct gb_cmd *gb_cmd_all(size_t *n)
{
	build_table();
	*n = n_commands;
	return commands;
}

const struct gb_cmd *gb_cmd_find(const char *name)
{
	build_table();
	for (size_t i = 0; i < n_commands; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* "'comapre' is not a gpubench command; did you mean 'compare'?" (the options' matcher) */
static int unknown_command(const char *name, const char *see)
{
	const char *names[MAX_CMDS];
	size_t n;
	const struct gb_cmd *cmds = gb_cmd_all(&n);
	const char *best;

	for (size_t i = 0; i < n; i++)
		names[i] = cmds[i].name;
	best = gb_cli_closest(name, names, n);
	if (best)
		gb_error("'%s' is not a gpubench command; did you mean '%s'?", name, best);
	else
		gb_error("'%s' is not a gpubench command; see '%s'", name, see);
	return GB_EXIT_USAGE;
}

static void print_main_usage(FILE *out)
{
	size_t n;
	const struct gb_cmd *cmds = gb_cmd_all(&n);

	fputs("usage: gpubench <command> [options]\n\n"
	      "GPU benchmarking and burn-in: compute, memory, links, collectives, sustained load,\n"
	      "each measured against the GPU's theoretical peak, in one JSON report.\n\n"
	      "commands:\n",
	      out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %-12s %s\n", cmds[i].name, cmds[i].summary);
	fputs("\n'gpubench <command> --help' describes a command's options.\n"
	      "exit codes: 0 every check passed, 1 a check failed (also when then interrupted),\n"
	      "            2 usage or bad input, 3 could not run (no driver, no GPU, library\n"
	      "            missing), 4 not built in, 130 interrupted (the report is still written)\n",
	      out);
}

static int run_command(const struct gb_cmd *c, int argc, const char **argv)
{
	if (c->bench)
		return cmd_bench(c->bench, argc, argv);
	return c->fn(argc, argv);
}

static int cmd_help(int argc, const char **argv)
{
	const struct gb_cmd *c;
	const char *help_argv[] = { NULL, "--help" };

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_main_usage(stdout);
		return GB_EXIT_OK;
	}
	c = gb_cmd_find(argv[1]);
	if (!c)
		return unknown_command(argv[1], "gpubench help");
	help_argv[0] = c->name;
	return run_command(c, 2, help_argv);
}

static void print_version(FILE *out)
{
	int rt = 0;

	cudaRuntimeGetVersion(&rt);
	fprintf(out, "gpubench %s (git %s)\n", GPUBENCH_VERSION, GPUBENCH_GIT);
	fprintf(out, "built with CUDA %s (runtime %d.%d, static), cuBLAS %d.%d.%d (loaded at run time)",
		GPUBENCH_CUDA_TOOLKIT, rt / 1000, (rt % 1000) / 10, CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR,
		CUBLAS_VER_PATCH);
#if GPUBENCH_HAVE_NCCL
	fprintf(out, ", NCCL %d.%d.%d (loaded at run time)", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
#else
	fputs(", without NCCL", out);
#endif
	/* the header's MPI: the library is opened only under a launcher with several ranks */
	if (gb_mpi_built())
		fprintf(out, ", MPI (%s, loaded at run time)\n", gb_mpi_built_version());
	else
		fputs(", without MPI\n", out);
	fprintf(out, "CUDA architectures: %s\n", GPUBENCH_CUDA_ARCHS);
}

/* The same facts as one JSON object, for --json as every command has it. */
static int print_version_json(FILE *out)
{
	cJSON *o = cJSON_CreateObject(), *built;
	char *text;
	int rt = 0, rc;

	cudaRuntimeGetVersion(&rt);
	cJSON_AddStringToObject(o, "name", "gpubench");
	cJSON_AddStringToObject(o, "version", GPUBENCH_VERSION);
	cJSON_AddStringToObject(o, "git", GPUBENCH_GIT);
	built = cJSON_AddObjectToObject(o, "built_with");
	cJSON_AddStringToObject(built, "cuda_toolkit", GPUBENCH_CUDA_TOOLKIT);
	cJSON_AddNumberToObject(built, "cuda_runtime", rt);
	cJSON_AddNumberToObject(built, "cublas",
				CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH);
#if GPUBENCH_HAVE_NCCL
	cJSON_AddNumberToObject(built, "nccl", NCCL_MAJOR * 10000 + NCCL_MINOR * 100 + NCCL_PATCH);
#else
	cJSON_AddNullToObject(built, "nccl");
#endif
	if (gb_mpi_built())
		cJSON_AddStringToObject(built, "mpi", gb_mpi_built_version());
	else
		cJSON_AddNullToObject(built, "mpi");
	cJSON_AddStringToObject(built, "cuda_architectures", GPUBENCH_CUDA_ARCHS);
	text = cJSON_Print(o);
	rc = text && fprintf(out, "%s\n", text) > 0 ? 0 : -1;
	cJSON_free(text);
	cJSON_Delete(o);
	return rc;
}

static int cmd_version(int argc, const char **argv)
{
	bool json = argc > 1 && !strcmp(argv[1], "--json");

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("usage: gpubench version [--json]\n\nShow the version, git commit, and the CUDA, "
		     "cuBLAS, NCCL and MPI it was built with.\n\noptions:\n"
		     "      --json  the same as one JSON object\n"
		     "  -h, --help  show this help");
		return GB_EXIT_OK;
	}
	if (argc > 1 + json) {
		gb_error("unexpected argument '%s'", argv[1 + json]);
		return GB_EXIT_USAGE;
	}
	if (json)
		return print_version_json(stdout) ? GB_EXIT_CANNOT_RUN : GB_EXIT_OK;
	print_version(stdout);
	return GB_EXIT_OK;
}

/* stdout may be a closed pipe or a full disk: a lost result must not exit 0 (git's rule) */
static int finish_stdout(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		gb_error("cannot write to standard output");
		return code == GB_EXIT_OK ? GB_EXIT_CANNOT_RUN : code;
	}
	return code;
}

int main(int argc, char **argv)
{
	const char **args = (const char **)argv;
	const struct gb_cmd *c;

	if (argc < 2) {
		print_main_usage(stderr);
		return GB_EXIT_USAGE;
	}
	if (!strcmp(args[1], "-h") || !strcmp(args[1], "--help"))
		return finish_stdout(cmd_help(1, args + 1));
	if (!strcmp(args[1], "--version") || !strcmp(args[1], "-V"))
		return finish_stdout(cmd_version(1, args + 1));
	c = gb_cmd_find(args[1]);
	if (!c) {
		if (args[1][0] == '-') {
			gb_error("unknown option '%s'; see 'gpubench --help'", args[1]);
			return GB_EXIT_USAGE;
		}
		return unknown_command(args[1], "gpubench --help");
	}
	return finish_stdout(run_command(c, argc - 1, args + 1));
}
