/* SPDX-License-Identifier: MIT */
/*
 * run_fleet.c - `gpubench run` as one rank per node, a fleet report at
 * rank 0 (see run_fleet.h for the steps).
 */
#include "run_fleet.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"
#include "bench/device/mpi_dl.h"
#include "bench/device/mpi_world.h"
#include "log.h"
#include "report/exitcodes.h"
#include "report/fleet.h"
#include "report/json.h"
#include "report/outfile.h"

/* What every rank tells rank 0 before anything runs (same binary everywhere: raw bytes). */
struct hello {
	int32_t local_size; /* ranks on this rank's host, itself included */
	int32_t usage_rc;   /* its own option checks: 0, or the exit code */
	char host[128];
};

struct fleet {
	const struct gb_fleet_cfg *cfg;
	struct gb_mpi_world w;
	struct gb_run local;	    /* this node's report */
	struct gb_mpi_parts hellos; /* rank 0: every rank's hello */
	char node_path[4096];	    /* this node's report beside -o; "" without --node-reports */
	double t_go;		    /* when the go decision arrived here: every rank at once */
	double t_end;		    /* when this node's suite ended */
	double waited_s;	    /* rank 0: how long it waited for the reports */
};

/* ---- stopping ---- */

/* Stop the whole job after a failed exchange (gb_mpi_stop_job: rank 0 gets to write first). */
static int stop_job(const struct fleet *f, int code)
{
	gb_mpi_stop_job(&f->w, code);
	return code;
}

/* ---- waiting for the other side ---- */

/* How long rank 0 may take, after its gather ended, to merge and write before it broadcasts. */
#define FLEET_WRITE_S 120.0

/*
 * When a wait for the other side ends: --timeout after the later of the
 * suite's expected end (t_go + suite_s, the same moment on every rank) and
 * this node's own end. Counted from the own end alone, a node without a GPU,
 * done in seconds, would give up on one still in a 4 h burnin (and abort
 * the job), and rank 0 without a GPU would mark healthy nodes missing.
 */
static double fleet_deadline(const struct fleet *f)
{
	return fmax(f->t_go + f->cfg->suite_s, f->t_end) + f->cfg->timeout_s;
}

/*
 * Let the next exchange wait until deadline, one second at least. factor:
 * how many of w.timeout_s the exchange waits (gb_mpi_bcast waits two).
 */
static void wait_until(struct fleet *f, double deadline, double factor)
{
	f->w.timeout_s = fmax(1.0, deadline - gb_wall_now_s()) / factor;
}

/* Rank 0, before any node measured: a report that says why nothing ran. */
static void write_error_report(const struct fleet *f, const char *why)
{
	const struct gb_fleet_cfg *cfg = f->cfg;
	struct gb_run run;

	gb_cmd_run_begin(&run, "run", cfg->argc, cfg->argv);
	gb_run_set_status(&run, GB_STATUS_ERROR, why);
	gb_cmd_run_finish(&run, cfg->common, false);
	gb_run_release(&run);
}

static int world_fail(const struct fleet *f, const char *err)
{
	gb_error("%s", err);
	return stop_job(f, GB_EXIT_CANNOT_RUN);
}

/* ---- step 1-2: who is where, and may we run ---- */

static const struct hello *hello_of(const struct gb_mpi_parts *p, int r)
{
	if (!p || r >= p->n || !p->arrived[r] || p->len[r] != sizeof(struct hello))
		return NULL;
	return (const struct hello *)p->data[r];
}

static const char *host_of_rank(const struct fleet *f, int r)
{
	const struct hello *h = hello_of(&f->hellos, r);

	return h ? h->host : NULL;
}

/* Rank 0: the first two ranks on one host, as one line; false when every rank is alone. */
static bool shared_host(const struct gb_mpi_parts *hellos, char *why, size_t len)
{
	for (int a = 0; a < hellos->n; a++) {
		const struct hello *ha = hello_of(hellos, a);

		for (int b = a + 1; ha && ha->local_size > 1 && b < hellos->n; b++) {
			const struct hello *hb = hello_of(hellos, b);

			if (!hb || strcmp(ha->host, hb->host))
				continue;
			snprintf(why, len,
				 "ranks %d and %d are both on host '%s': each rank runs the suite "
				 "on every GPU of its host, so they would compete for the same "
				 "GPUs; start one rank per node (mpirun --map-by ppr:1:node, srun "
				 "--ntasks-per-node=1)",
				 a, b, ha->host);
			return true;
		}
	}
	return false;
}

/* Rank 0: -1 to go on, else the exit code for every rank (the one line printed). */
static int decide(const struct fleet *f)
{
	char why[768];

	if (f->cfg->usage_rc)
		return f->cfg->usage_rc; /* rank 0 said why already */
	for (int r = 1; r < f->hellos.n; r++) {
		const struct hello *h = hello_of(&f->hellos, r);

		if (h && h->usage_rc) {
			gb_error("rank %d on host '%s' cannot use these options (a file they name "
				 "is missing or cannot be written on that node)",
				 r, h->host);
			return h->usage_rc;
		}
	}
	if (shared_host(&f->hellos, why, sizeof(why))) {
		gb_error("%s", why);
		return GB_EXIT_USAGE;
	}
	return -1;
}

/* Rank 0 after a rank did not say hello: the report says so, then the job ends. */
static int hello_missing(struct fleet *f)
{
	char why[512] = "a rank did not answer";

	for (int r = 1; r < f->hellos.n; r++) {
		if (f->hellos.arrived[r])
			continue;
		snprintf(why, sizeof(why), "rank %d did not answer within %g s: it stopped or hangs",
			 r, f->w.timeout_s);
		gb_error("%s", why);
	}
	write_error_report(f, why);
	return stop_job(f, GB_EXIT_CANNOT_RUN);
}

/* Steps 1-2: -1 to go on and measure, else the exit code for this rank. */
static int agree(struct fleet *f)
{
	struct hello me;
	char err[512];
	int32_t exit_now = -1;
	int rc;

	memset(&me, 0, sizeof(me));
	me.local_size = f->w.local_size;
	me.usage_rc = f->cfg->usage_rc;
	snprintf(me.host, sizeof(me.host), "%s", f->w.host);
	rc = gb_mpi_gather(&f->w, 0, &me, sizeof(me), &f->hellos, err, sizeof(err));
	if (rc < 0)
		return world_fail(f, err);
	if (rc > 0)
		return hello_missing(f);
	if (f->w.rank == 0)
		exit_now = decide(f);
	if (gb_mpi_bcast(&f->w, &exit_now, sizeof(exit_now), "the go/no-go decision", err,
			 sizeof(err)))
		return world_fail(f, err);
	f->t_go = gb_wall_now_s();
	return exit_now;
}

/* ---- step 3: this node ---- */

/*
 * Options for what this rank writes itself: its node report (beside -o with
 * --node-reports, else none), nothing on stdout. Rank 0 keeps its progress
 * lines; the fleet summary is its stdout.
 */
static struct gb_common node_options(const struct fleet *f)
{
	struct gb_common c = *f->cfg->common;

	c.output = f->node_path[0] ? f->node_path : NULL;
	c.quiet = true;
	c.json = false;
	c.format = GB_FORMAT_TEXT;
	return c;
}

/*
 * Run the suite here and finish this node's report. The watchdog writes,
 * when it fires, to -o on rank 0 (what exists then is its node's report)
 * and to the node report elsewhere.
 */
static void measure_node(struct fleet *f, struct gb_common *watch, struct gb_common *node)
{
	const struct gb_fleet_cfg *cfg = f->cfg;
	struct gb_common *c = f->w.rank == 0 ? cfg->common : watch;

	gb_cmd_run_begin(&f->local, "run", cfg->argc, cfg->argv);
	/* the node's name in the fleet (gb_launcher_hostname's) */
	free(f->local.host.hostname);
	f->local.host.hostname = gb_strdup(f->w.host);
	gb_cmd_watchdog_start(&f->local, c, false);
	if (cfg->measure(&f->local, c, cfg->user))
		gb_run_set_status(&f->local, GB_STATUS_ERROR,
				  "--devices names a GPU this node does not have");
	gb_cmd_run_finish(&f->local, node, false);
	f->t_end = gb_wall_now_s();
}

/* ---- step 4-5: the fleet report at rank 0 ---- */

/* What rank 0 merges: one report per rank, real or standing in for a missing one. */
struct nodes {
	int n;
	struct gb_run *runs;
	const struct gb_run **ptrs;
	char **names;
	bool *missing;
};

/* The label of rank r's node in the fleet: its node report's path, else "rank r". */
static char *node_name(const struct fleet *f, int r, const char *host)
{
	char path[4096];
	const char *out = f->cfg->common->output;

	if (f->cfg->node_reports && out &&
	    gb_fleet_node_report_path(path, sizeof(path), out, host ? host : "unknown") == 0)
		return gb_strdup(path);
	return gb_strdupf("rank %d", r);
}

/* Rank r's report from what arrived (NULL: nothing yet); a stand-in when it cannot be read. */
static void node_from(const struct fleet *f, struct nodes *nd, int r, const struct gb_mpi_parts *p)
{
	cJSON *doc = p && r < p->n && p->arrived[r] ? cJSON_Parse(p->data[r]) : NULL;
	char err[512], why[600];

	nd->missing[r] = true;
	if (doc && gb_report_from_json(doc, &nd->runs[r], err, sizeof(err)) == 0) {
		nd->missing[r] = false;
	} else if (doc || (p && r < p->n && p->arrived[r])) {
		snprintf(why, sizeof(why), "its report cannot be read: %s",
			 doc ? err : "it is not JSON");
		gb_fleet_missing_node(&nd->runs[r], r, host_of_rank(f, r), 0, why);
	} else if (!p) {
		gb_fleet_missing_node(&nd->runs[r], r, host_of_rank(f, r), 0,
				      "its report had not arrived when this report was written "
				      "(the job ended first)");
	} else {
		gb_fleet_missing_node(&nd->runs[r], r, host_of_rank(f, r), f->waited_s, NULL);
	}
	cJSON_Delete(doc);
}

/*
 * Every rank's report; rank 0's own is local (NULL: not measured yet, a
 * stand-in like the others').
 */
static void nodes_collect(const struct fleet *f, struct nodes *nd, const struct gb_run *local,
			  const struct gb_mpi_parts *p)
{
	nd->n = f->w.size;
	nd->runs = calloc((size_t)nd->n, sizeof(*nd->runs));
	nd->ptrs = calloc((size_t)nd->n, sizeof(*nd->ptrs));
	nd->names = calloc((size_t)nd->n, sizeof(*nd->names));
	nd->missing = calloc((size_t)nd->n, sizeof(*nd->missing));
	if (!nd->runs || !nd->ptrs || !nd->names || !nd->missing)
		abort();
	for (int r = 0; r < nd->n; r++) {
		if (r == 0 && local)
			nd->ptrs[r] = local;
		else {
			node_from(f, nd, r, p);
			nd->ptrs[r] = &nd->runs[r];
		}
		nd->names[r] = node_name(f, r, nd->ptrs[r]->host.hostname);
	}
}

static void nodes_free(struct nodes *nd)
{
	for (int r = 0; r < nd->n; r++)
		if (nd->ptrs[r] == &nd->runs[r])
			gb_run_release(&nd->runs[r]);
	for (int r = 0; r < nd->n; r++)
		free(nd->names[r]);
	free(nd->runs);
	free(nd->ptrs);
	free(nd->names);
	free(nd->missing);
}

/* extra.launcher and extra.ranks of the fleet benchmark: which rank was which node. */
static void note_ranks(const struct fleet *f, const struct nodes *nd, struct gb_run *out)
{
	cJSON *extra = gb_bench_extra(&out->benches[0]), *ranks;

	cJSON_AddStringToObject(extra, "launcher", f->cfg->launcher->name);
	ranks = cJSON_AddArrayToObject(extra, "ranks");
	for (int r = 0; r < nd->n; r++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "rank", r);
		cJSON_AddStringToObject(o, "host", nd->ptrs[r]->host.hostname
							   ? nd->ptrs[r]->host.hostname
							   : "unknown");
		cJSON_AddStringToObject(o, "node", nd->names[r]);
		cJSON_AddBoolToObject(o, "report_arrived", !nd->missing[r]);
		cJSON_AddItemToArray(ranks, o);
	}
}

/* The fleet's own stdout, as `report --merge` prints it. */
static void print_fleet(const struct gb_run *out, const struct gb_common *c)
{
	char err[512];

	if (c->json || c->format == GB_FORMAT_JSON) {
		if (gb_report_write_file(out, "-", err, sizeof(err)))
			gb_error("%s", err);
	} else if (c->format != GB_FORMAT_TEXT || !c->quiet) {
		/* -o - (or /dev/stdout) put the JSON there: the summary goes beside it, to stderr */
		bool json_on_stdout = c->output && gb_out_is_stdout(c->output);

		if (gb_report_format(out, (enum gb_out_format)c->format,
				     json_on_stdout ? stderr : stdout))
			gb_error("cannot write the %s report to standard %s",
				 gb_format_names[c->format], json_on_stdout ? "error" : "output");
	}
}

/* One line per node that could not finish (its check on the fleet benchmark says why). */
static void say_bad_nodes(const struct gb_run *out)
{
	const struct gb_bench_result *fl = &out->benches[0];

	for (size_t i = 0; i < fl->n_checks; i++)
		if (!strcmp(fl->checks[i].name, "node_status") && fl->checks[i].message)
			gb_error("%s", fl->checks[i].message);
}

/*
 * Merge, write -o and (final) print: the fleet's exit code. p NULL: a
 * provisional report, written before the others' reports are awaited;
 * local NULL: before rank 0's own suite too.
 */
static int fleet_report(const struct fleet *f, const struct gb_run *local,
			const struct gb_mpi_parts *p, bool final)
{
	const struct gb_common *c = f->cfg->common;
	struct nodes nd;
	struct gb_run out;
	char err[1024], now[32];
	int code;

	nodes_collect(f, &nd, local, p);
	gb_fleet_run_init(&out, f->cfg->argc, f->cfg->argv);
	if (gb_fleet_merge(nd.ptrs, (const char *const *)nd.names, (size_t)nd.n,
			   GB_FLEET_MAD_K, &out, err, sizeof(err))) {
		gb_error("%s", err);
		code = GB_EXIT_CANNOT_RUN;
		goto out;
	}
	note_ranks(f, &nd, &out);
	if (gb_stop_flag && out.status != GB_STATUS_ERROR)
		out.status = GB_STATUS_INTERRUPTED;
	gb_now_iso8601(now, sizeof(now));
	free(out.finished_at);
	out.finished_at = gb_strdup(now);
	gb_run_verdict(&out);
	code = out.exit_code = gb_exit_code_for_status(out.verdict);
	if (final)
		say_bad_nodes(&out);
	if (c->output && gb_report_write_output(&out, c->output, err, sizeof(err))) {
		gb_error("%s", err);
		if (code == GB_EXIT_OK)
			code = GB_EXIT_CANNOT_RUN;
	}
	if (final)
		print_fleet(&out, c);
	fflush(stdout);
out:
	gb_run_release(&out);
	nodes_free(&nd);
	return code;
}

/* ---- step 5-6: the exchange ---- */

/* Everyone: send this node's report; rank 0 merges. The exit code every rank returns. */
static int gather_reports(struct fleet *f)
{
	struct gb_mpi_parts parts;
	cJSON *doc = gb_report_to_json(&f->local);
	char *json = doc ? cJSON_PrintUnformatted(doc) : NULL, err[512];
	double t0 = gb_wall_now_s();
	int rc, code = GB_EXIT_CANNOT_RUN;

	cJSON_Delete(doc);
	if (!json)
		return world_fail(f, "out of memory while encoding this node's report");
	wait_until(f, fleet_deadline(f), 1);
	if (f->w.rank == 0 && gb_stop_flag && f->w.timeout_s > GB_FLEET_JOIN_S / 2)
		f->w.timeout_s = GB_FLEET_JOIN_S / 2; /* interrupted: every rank is stopping too */
	rc = gb_mpi_gather(&f->w, 1, json, strlen(json), &parts, err, sizeof(err));
	free(json);
	f->waited_s = round(gb_wall_now_s() - t0);
	if (rc < 0)
		return world_fail(f, err);
	if (f->w.rank == 0)
		code = fleet_report(f, &f->local, &parts, true);
	gb_mpi_parts_free(&parts);
	if (rc > 0) /* someone is missing, and may never join another exchange */
		return stop_job(f, code);
	/* rank 0 may gather until the deadline, then merge and write */
	wait_until(f, fleet_deadline(f) + FLEET_WRITE_S, 2);
	if (gb_mpi_bcast(&f->w, &code, sizeof(code), "the exit code", err, sizeof(err)))
		return world_fail(f, err);
	return code;
}

/* Rank 0 writes provisional reports to -o, but not to stdout: one document there. */
static bool provisional(const struct fleet *f)
{
	const char *out = f->cfg->common->output;

	return f->w.rank == 0 && out && !gb_out_is_stdout(out);
}

static int fleet_flow(struct fleet *f)
{
	const struct gb_fleet_cfg *cfg = f->cfg;
	struct gb_common watch, node;
	int rc;

	if (cfg->node_reports && cfg->common->output &&
	    gb_fleet_node_report_path(f->node_path, sizeof(f->node_path), cfg->common->output,
				      f->w.host))
		f->node_path[0] = '\0';
	rc = agree(f);
	if (rc >= 0)
		return rc;
	watch = node = node_options(f);
	if (f->w.rank == 0 && !cfg->common->quiet)
		fprintf(stderr, "gpubench: run: fleet of %d nodes (%s): rank 0 on '%s' writes the "
				"fleet report\n",
			f->w.size, cfg->launcher->name, f->w.host);
	/* a job killed before rank 0's suite ends (a node's watchdog) still leaves a report */
	if (provisional(f))
		fleet_report(f, NULL, NULL, false);
	measure_node(f, &watch, &node);
	if (provisional(f))
		fleet_report(f, &f->local, NULL, false);
	return gather_reports(f);
}

/* The ranks could not even form the job: rank 0 still writes a report saying so. */
static int join_failed(const struct fleet *f, const char *err)
{
	if (f->cfg->launcher->rank == 0) /* one voice, as everywhere */
		gb_error("cannot start the MPI job: %s", err);
	if (f->w.rank == 0 && f->cfg->launcher->rank == 0 && !f->cfg->usage_rc)
		write_error_report(f, err);
	return stop_job(f, GB_EXIT_CANNOT_RUN);
}

/* Launched by mpirun/srun but built without MPI: refuse on every rank, rank 0 says why. */
static int not_built(const struct gb_fleet_cfg *cfg)
{
	if (cfg->launcher->rank != 0)
		return GB_EXIT_NOT_BUILT;
	gb_error("%s started %d processes, but gpubench was built without MPI: each would run "
		 "the suite alone and write the same report; rebuild with MPI (libopenmpi-dev), "
		 "or give each process its own -o with --no-fleet and merge with 'gpubench report "
		 "--merge'",
		 cfg->launcher->name, cfg->launcher->size);
	return cfg->usage_rc ? cfg->usage_rc : GB_EXIT_NOT_BUILT;
}

int gb_run_fleet(const struct gb_fleet_cfg *cfg)
{
	struct fleet f;
	char err[512];
	int rc;

	memset(&f, 0, sizeof(f));
	f.cfg = cfg;
	if (!gb_mpi_built())
		return not_built(cfg);
	/* the library only now, with several ranks: one process never needs MPI installed */
	if (gb_mpi_dl_load(getenv("GPUBENCH_MPI_LIBRARY"), err, sizeof(err)))
		return join_failed(&f, err);
	if (gb_mpi_world_init_host(&f.w, cfg->launcher->size, fmin(cfg->timeout_s, GB_FLEET_JOIN_S),
				   cfg->host, err, sizeof(err)))
		return join_failed(&f, err);
	if (f.w.size != cfg->launcher->size) {
		if (cfg->launcher->rank == 0)
			gb_error("%s started %d processes but MPI sees %d: gpubench's MPI does not "
				 "match the launcher (with Slurm, try 'srun --mpi=pmix'; --no-fleet runs "
				 "each process alone)",
				 cfg->launcher->name, cfg->launcher->size, f.w.size);
		gb_mpi_world_finalize(&f.w);
		return GB_EXIT_CANNOT_RUN;
	}
	gb_cmd_catch_signals();
	if (f.w.rank != 0)
		cfg->common->quiet = true; /* one voice: rank 0 prints the progress and the fleet */
	gb_log_set_verbosity(cfg->common->quiet ? -1 : cfg->common->verbose ? 1 : 0);
	rc = fleet_flow(&f);
	gb_mpi_parts_free(&f.hellos);
	gb_mpi_world_finalize(&f.w);
	/* gb_cmd_run_finish() could not _exit() while MPI was up: a lost GPU would block exit() */
	gb_cmd_exit_if_gpu_lost(&f.local, rc);
	gb_run_release(&f.local);
	return rc;
}
