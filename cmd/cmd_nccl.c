/* SPDX-License-Identifier: MIT */
/*
 * cmd_nccl.c - `gpubench nccl`, the MPI-aware front end of the nccl
 * benchmark.
 *
 * Started alone, one process drives every selected GPU (gb_bench_nccl, the
 * same code `gpubench run` uses). Started by mpirun or srun, every process
 * is one rank with one GPU:
 *
 *   1. each rank probes its GPU, picks one by its local rank and loads NCCL;
 *   2. rank 0 gathers every rank's "hello" (host, GPU, ready or why not);
 *   3. rank 0 decides: only when every rank is ready does it make the NCCL
 *      id, and it broadcasts the decision (a rank that cannot run must not
 *      leave the others waiting inside ncclCommInitRank);
 *   4. every rank measures (or records why it did not);
 *   5. rank 0 gathers every rank's report as JSON, merges them into one
 *      report (one nccl entry, extra.ranks[] with every rank's host, GPU,
 *      status and reason), prints and writes it; other ranks stay quiet;
 *   6. rank 0 broadcasts the exit code, so every process exits alike.
 *
 * Every exchange has a deadline (--timeout). When a rank does not answer,
 * rank 0 writes the report with what it has, names the rank, and aborts the
 * job (MPI_Abort), so nothing hangs.
 *
 * Step 5's merge is in cmd_nccl_merge.c (shared types: cmd_nccl_internal.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"
#include "bench/device/gpu.h"
#include "bench/device/mpi_dl.h"
#include "bench/device/mpi_world.h"
#include "bench/nccl/nccl.h"
#include "bench/nccl/nccl_math.h"
#include "bench/device/nvml.h"
#include "cmd.h"
#include "cmd/cmd_nccl_internal.h"
#include "launcher.h"
#include "log.h"
#include "report/exitcodes.h"
#include "report/formats.h"
#include "report/json.h"
#include "report/json_util.h"

/* ---- the nccl-tests table on stdout ---- */

/* One placement: time, its spread over the samples (CV), bandwidths and wrong elements. */
static void print_row_half(const struct gb_nccl_row *r)
{
	if (!r) {
		printf("  %8s %5s %7s %7s %6s", "N/A", "N/A", "N/A", "N/A", "N/A");
		return;
	}
	if (r->untimed) /* nothing to time (one rank, in place): checked only */
		printf("  %8s %5s %7s %7s", "skipped", "-", "-", "-");
	else if (isfinite(r->time_cv))
		printf("  %8.2f %5.1f %7.2f %7.2f", r->time_us, 100 * r->time_cv, r->algbw_gbps,
		       r->busbw_gbps);
	else
		printf("  %8.2f %5s %7.2f %7.2f", r->time_us, "-", r->algbw_gbps, r->busbw_gbps);
	printf(" %6lld", (long long)r->nwrong);
}

/* The in-place row matching an out-of-place one, if measured. */
static const struct gb_nccl_row *partner(const struct gb_nccl_row *rows, size_t n,
					 const struct gb_nccl_row *r, bool inplace)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].inplace == inplace && rows[i].coll == r->coll &&
		    rows[i].dtype == r->dtype && rows[i].redop == r->redop &&
		    rows[i].size == r->size)
			return &rows[i];
	return NULL;
}

static void print_rows(const struct gb_nccl_row *rows, size_t n)
{
	double bus_sum = 0;
	long long wrong = 0;
	size_t nbus = 0;

	printf("#%48s  %-37s  %s\n", "", "out-of-place", "in-place");
	printf("# %10s %12s %8s %6s %5s  %8s %5s %7s %7s %6s  %8s %5s %7s %7s %6s\n", "size",
	       "count", "type", "redop", "root", "time", "cv", "algbw", "busbw", "#wrong", "time",
	       "cv", "algbw", "busbw", "#wrong");
	printf("# %10s %12s %8s %6s %5s  %8s %5s %7s %7s %6s  %8s %5s %7s %7s %6s\n", "(B)",
	       "(elements)", "", "", "", "(us)", "(%)", "(GB/s)", "(GB/s)", "", "(us)", "(%)",
	       "(GB/s)", "(GB/s)", "");
	for (size_t i = 0; i < n; i++) {
		const struct gb_nccl_row *r = &rows[i], *out, *in;

		/* one line per size: out-of-place, and its in-place partner beside it */
		if (r->inplace && partner(rows, n, r, false))
			continue;
		if (i == 0 || r->coll != rows[i - 1].coll)
			printf("# %s\n", gb_nccl_coll_names[r->coll]);
		out = r->inplace ? NULL : r;
		in = partner(rows, n, r, true);
		printf("  %10llu %12llu %8s %6s %5d", (unsigned long long)r->size,
		       (unsigned long long)r->count, gb_nccl_dtype_names[r->dtype],
		       r->redop >= 0 ? gb_nccl_redop_names[r->redop] : "none", r->root);
		print_row_half(out);
		print_row_half(in);
		putchar('\n');
	}
	for (size_t i = 0; i < n; i++) {
		if (isfinite(rows[i].busbw_gbps)) {
			bus_sum += rows[i].busbw_gbps;
			nbus++;
		}
		wrong += rows[i].nwrong > 0 ? rows[i].nwrong : 0;
	}
	printf("# wrong elements: %lld %s\n", wrong, wrong ? "FAILED" : "OK");
	if (nbus)
		printf("# avg bus bandwidth: %.3f GB/s\n", bus_sum / (double)nbus);
}

/* Rows of the nccl entry of a report, as extra.rows holds them; *n rows, NULL if none. */
struct gb_nccl_row *rows_of(const struct gb_bench_result *b, size_t *n)
{
	const cJSON *arr =
		b && b->extra ? cJSON_GetObjectItemCaseSensitive(b->extra, "rows") : NULL;
	struct gb_nccl_row *rows;
	size_t k = 0;
	const cJSON *it;

	*n = 0;
	if (!cJSON_IsArray(arr) || !cJSON_GetArraySize(arr))
		return NULL;
	rows = calloc((size_t)cJSON_GetArraySize(arr), sizeof(*rows));
	if (!rows)
		return NULL;
	cJSON_ArrayForEach(it, arr) if (gb_nccl_row_from_json(it, &rows[k]) == 0) k++;
	*n = k;
	return rows;
}

static void print_table(const struct gb_run *run, const struct gb_common *c)
{
	char sim[320];
	size_t n = 0;
	struct gb_nccl_row *rows;

	if (c->quiet || c->json || c->format == GB_FORMAT_JSON || !run->n_benches)
		return;
	rows = rows_of(&run->benches[run->n_benches - 1], &n);
	/* the table is the summary's first part: a simulated run says so above it */
	gb_fmt_simulated(sim, sizeof(sim), run);
	if (n && *sim)
		printf("%s\n", sim);
	if (n)
		print_rows(rows, n);
	free(rows);
}

/* ---- options ---- */

/*
 * '--inplace' and '--outofplace' each say "only this placement": both at
 * once contradict each other, and neither silently winning nor timing both
 * is what either asked for (both placements is the default: give neither).
 */
static int placement_conflict(const void *params)
{
	const struct gb_nccl_params *p = params;

	if (p->inplace && p->outofplace)
		return gb_error("'--inplace' and '--outofplace' each time one placement only; "
				"give one, or neither for both");
	return 0;
}

/* Parse and check the options; -1 to go on, else the exit code (messages on rank 0 only). */
static int parse(struct nccl_cmd *nc, int argc, const char **argv, bool quiet)
{
	const struct gb_bench *b = &gb_bench_nccl;
	struct gb_opt_set sets[] = { { b->opts, nc->params }, { gb_common_opts, &nc->common } };
	struct gb_muted m;
	char err[512];
	int rc;

	gb_common_defaults(&nc->common);
	b->set_defaults(nc->params);
	gb_launcher_mute(&m, quiet);
	rc = gb_cmd_parse(b->usage, b->summary, sets, 2, argc, argv, NULL, 0, NULL);
	if (rc < 0 && placement_conflict(nc->params))
		rc = GB_EXIT_USAGE;
	if (rc < 0 && b->validate(nc->params, err, sizeof(err))) {
		gb_error("%s", err);
		rc = GB_EXIT_USAGE;
	}
	gb_launcher_unmute(&m);
	return rc;
}

/* ---- one process: every selected local GPU ---- */

static int run_one_process(struct nccl_cmd *nc, int argc, const char **argv)
{
	struct gb_run run;
	char err[512];
	int rc;

	if (gb_cmd_check_common(&nc->common))
		return GB_EXIT_USAGE;
	gb_cmd_catch_signals();
	gb_cmd_run_begin(&run, "nccl", argc, argv);
	gb_cmd_watchdog_start(&run, &nc->common, false); /* so GPU setup is watched too */
	if (gb_bench_nccl.unavailable_reason) {
		gb_error("nccl: %s", gb_bench_nccl.unavailable_reason);
		gb_run_set_status(&run, GB_STATUS_NOT_BUILT, gb_bench_nccl.unavailable_reason);
	} else if (gb_cmd_gpu_setup(&run) == 0) {
		if (gb_device_list_resolve(&nc->common.devices, (int)run.n_devices)) {
			gb_run_release(&run);
			return GB_EXIT_USAGE;
		}
		if (gb_nccl_load(getenv("GPUBENCH_NCCL_LIBRARY"), err, sizeof(err))) {
			gb_error("%s", err);
			gb_bench_set_status(gb_run_add_bench(&run, "nccl"), GB_STATUS_ERROR, "%s",
					    err);
		} else {
			gb_cmd_run_one_bench(&gb_bench_nccl, &run, &nc->common, nc->params);
		}
		print_table(&run, &nc->common);
	}
	rc = gb_cmd_run_finish(&run, &nc->common, false);
	gb_run_release(&run);
	return rc;
}

/* ---- several processes: one rank per GPU ---- */

/* Rank 0's answer. */
struct decision {
	int32_t go;	  /* every rank ready: measure */
	int32_t exit_now; /* >= 0: stop at once with this exit code (a usage error on rank 0) */
	unsigned char id[GB_NCCL_ID_BYTES];
	char why[512]; /* why not, for the ready ranks' reports */
};

static void hello_device(struct world_run *wr)
{
	const struct gb_device_info *d = NULL;

	for (size_t i = 0; i < wr->local.n_devices; i++)
		if (wr->local.devices[i].index == wr->device)
			d = &wr->local.devices[i];
	wr->me.device = wr->device;
	if (!d)
		return;
	snprintf(wr->me.pci, sizeof(wr->me.pci), "%s", d->pci_bus_id ? d->pci_bus_id : "");
	snprintf(wr->me.uuid, sizeof(wr->me.uuid), "%s", d->uuid ? d->uuid : "");
	snprintf(wr->me.gpu, sizeof(wr->me.gpu), "%s", d->name ? d->name : "");
}

/*
 * Pick this rank's GPU: with one visible GPU (the launcher bound one per
 * rank, e.g. srun --gpus-per-task=1) that one; otherwise the local rank-th
 * of --devices. 0, or -1 with the reason in me.reason.
 */
static int pick_device(struct world_run *wr)
{
	struct gb_device_list *dl = &wr->nc->common.devices;
	struct gb_muted m;
	int bad;

	gb_launcher_mute(&m, true);
	bad = gb_device_list_resolve(dl, (int)wr->local.n_devices);
	gb_launcher_unmute(&m);
	if (bad || dl->n == 0) {
		snprintf(wr->me.reason, sizeof(wr->me.reason),
			 "--devices names a GPU this host does not have (it has %zu)",
			 wr->local.n_devices);
		return -1;
	}
	if (dl->n > 1 && wr->w.local_rank >= (int)dl->n) {
		snprintf(wr->me.reason, sizeof(wr->me.reason),
			 "%d ranks on this host but %zu GPUs selected: NCCL needs one GPU per rank",
			 wr->w.local_size, dl->n);
		return -1;
	}
	wr->device = dl->idx[dl->n == 1 ? 0 : wr->w.local_rank];
	return 0;
}

/* Probe, pick a GPU, load NCCL: fill wr->me. Messages are rank 0's to print, per rank. */
static void local_setup(struct world_run *wr)
{
	struct gb_muted m;
	char err[512];
	int probe;

	memset(&wr->me, 0, sizeof(wr->me));
	wr->device = -1;
	wr->me.local_rank = wr->w.local_rank;
	wr->me.pid = (int32_t)getpid();
	snprintf(wr->me.host, sizeof(wr->me.host), "%s", wr->w.host);
	gb_launcher_mute(&m, true);
	probe = gb_cmd_gpu_setup(&wr->local);
	gb_launcher_unmute(&m);
	if (probe) {
		snprintf(wr->me.reason, sizeof(wr->me.reason), "%s",
			 wr->local.reason ? wr->local.reason : "cannot use the GPU");
	} else if (pick_device(wr) == 0) {
		hello_device(wr);
		if (gb_nccl_load(getenv("GPUBENCH_NCCL_LIBRARY"), err, sizeof(err)))
			snprintf(wr->me.reason, sizeof(wr->me.reason), "%s", err);
		else
			wr->me.ready = 1;
	}
	wr->me.device = wr->device;
}

/* "rank 2 on host n1 (GPU 1)" */
void rank_label(char *buf, size_t len, int r, const struct hello *h)
{
	if (!h)
		snprintf(buf, len, "rank %d (host unknown)", r);
	else if (h->device >= 0)
		snprintf(buf, len, "rank %d on host %s (GPU %d)", r, h->host, h->device);
	else
		snprintf(buf, len, "rank %d on host %s", r, h->host);
}

/* A hello that arrived whole, else NULL. */
const struct hello *hello_of(const struct gb_mpi_parts *p, int r)
{
	if (!p || r >= p->n || !p->arrived[r] || p->len[r] != sizeof(struct hello))
		return NULL;
	return (const struct hello *)p->data[r];
}

/* Two ranks on one host with the same GPU: NCCL would fail; say so first. */
static bool duplicate_gpu(const struct gb_mpi_parts *hellos, char *why, size_t len)
{
	for (int a = 0; a < hellos->n; a++) {
		const struct hello *ha = hello_of(hellos, a);

		for (int b = a + 1; ha && ha->ready && b < hellos->n; b++) {
			const struct hello *hb = hello_of(hellos, b);

			if (hb && hb->ready && !strcmp(ha->host, hb->host) && *ha->uuid &&
			    !strcmp(ha->uuid, hb->uuid)) {
				snprintf(why, len,
					 "ranks %d and %d on host %s both use GPU %s: NCCL needs "
					 "one "
					 "GPU per rank",
					 a, b, ha->host, ha->pci);
				return true;
			}
		}
	}
	return false;
}

/* Rank 0: measure only when every rank answered and is ready. */
static void decide(const struct gb_mpi_parts *hellos, int usage_rc, struct decision *d)
{
	char err[512], label[192];
	int not_ready = 0;

	memset(d, 0, sizeof(*d));
	d->exit_now = usage_rc ? usage_rc : -1;
	for (int r = 0; r < hellos->n; r++) {
		const struct hello *h = hello_of(hellos, r);

		if (h && h->ready)
			continue;
		if (!not_ready++) {
			rank_label(label, sizeof(label), r, h);
			snprintf(d->why, sizeof(d->why), "not run: %s could not run", label);
		}
	}
	if (not_ready > 1)
		snprintf(d->why + strlen(d->why), sizeof(d->why) - strlen(d->why),
			 " (and %d more ranks)", not_ready - 1);
	if (not_ready || duplicate_gpu(hellos, d->why, sizeof(d->why)))
		return;
	if (gb_nccl_unique_id(d->id, err, sizeof(err))) {
		snprintf(d->why, sizeof(d->why), "not run: rank 0: %s", err);
		return;
	}
	d->go = 1;
}

static void progress_line(void *user, const char *line)
{
	(void)user;
	fprintf(stderr, "gpubench: %s\n", line);
}

/* This rank's part: measure with the others, or record why it did not. */
static void measure(struct world_run *wr, const struct decision *d)
{
	struct gb_bench_result *res = gb_run_add_bench(&wr->local, "nccl");
	int dev = wr->device;
	struct gb_ctx ctx = {
		.run = &wr->local,
		.devices = &dev,
		.n_devices = 1,
		.stop = &gb_stop_flag,
		.run_start_s = gb_now_s(),
		.nvml = gb_nvml_loaded(),
		.quiet = wr->nc->common.quiet,
		.progress = wr->w.rank == 0 && !wr->nc->common.quiet ? progress_line : NULL,
	};
	double t0 = gb_now_s();

	if (dev >= 0)
		gb_bench_add_device(res, dev);
	if (!wr->me.ready || !d->go)
		gb_nccl_record_params(res, wr->nc->params, wr->w.size);
	if (!wr->me.ready) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "%s", wr->me.reason);
		return;
	}
	if (!d->go) {
		gb_bench_set_status(res, GB_STATUS_SKIPPED, "%s", d->why);
		return;
	}
	gb_nccl_run_world(&ctx, wr->nc->params, &wr->w, d->id, res);
	res->duration_s = gb_now_s() - t0;
	if (gb_stop_flag && res->status != GB_STATUS_FAILED)
		res->status = GB_STATUS_INTERRUPTED;
}

/* ---- the world flow ---- */

/* Stop the whole job after a failed exchange (gb_mpi_stop_job: rank 0 gets to write first). */
static int stop_job(struct world_run *wr)
{
	gb_mpi_stop_job(&wr->w, GB_EXIT_CANNOT_RUN);
	return GB_EXIT_CANNOT_RUN;
}

static int world_fail(struct world_run *wr, const char *err)
{
	gb_error("%s", err);
	return stop_job(wr);
}

/* Rank 0: merge, print, write; the exit code of the run. */
static int finish_root(struct world_run *wr, const struct gb_mpi_parts *hellos,
		       const struct gb_mpi_parts *frags)
{
	struct merge m = { .wr = wr, .hellos = hellos, .frags = frags, .n = wr->w.size };

	snprintf(m.no_answer, sizeof(m.no_answer),
		 "did not answer within %g s: it stopped or hangs", wr->w.timeout_s);

	merge(&m, &wr->local);
	print_table(&wr->local, &wr->nc->common);
	return gb_cmd_run_finish(&wr->local, &wr->nc->common, false);
}

/* Rank 0 after a rank did not answer: the report with what arrived, then stop everyone. */
static int abort_root(struct world_run *wr, const struct gb_mpi_parts *hellos,
		      const struct gb_mpi_parts *frags, const char *what)
{
	const struct gb_mpi_parts *p = frags ? frags : hellos;

	for (int r = 1; r < p->n; r++)
		if (!p->arrived[r])
			gb_error("rank %d did not answer within %g s (%s): it stopped or hangs", r,
				 wr->w.timeout_s, what);
	finish_root(wr, hellos, frags);
	gb_mpi_abort(&wr->w, GB_EXIT_CANNOT_RUN);
	return GB_EXIT_CANNOT_RUN;
}

/* Steps 3-6 once the hellos are in. */
static int world_measure(struct world_run *wr, struct gb_mpi_parts *hellos, int usage_rc)
{
	struct decision d;
	struct gb_mpi_parts frags;
	char err[512], *json = NULL;
	int rc, code = GB_EXIT_CANNOT_RUN;
	cJSON *doc;

	if (wr->w.rank == 0)
		decide(hellos, usage_rc, &d);
	if (gb_mpi_bcast(&wr->w, &d, sizeof(d), "the go/no-go decision", err, sizeof(err)))
		return world_fail(wr, err);
	if (d.exit_now >= 0)
		return d.exit_now;
	measure(wr, &d);
	doc = gb_report_to_json(&wr->local);
	json = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	rc = gb_mpi_gather(&wr->w, 1, json, strlen(json), &frags, err, sizeof(err));
	free(json);
	if (rc < 0)
		return world_fail(wr, err);
	if (rc > 0)
		code = abort_root(wr, hellos, &frags, "sending its results");
	else if (wr->w.rank == 0)
		code = finish_root(wr, hellos, &frags);
	gb_mpi_parts_free(&frags);
	if (gb_mpi_bcast(&wr->w, &code, sizeof(code), "the exit code", err, sizeof(err)))
		return world_fail(wr, err);
	return code;
}

static int world_flow(struct world_run *wr, int argc, const char **argv)
{
	struct gb_mpi_parts hellos;
	char err[512];
	int usage_rc = 0, rc;

	gb_cmd_run_begin(&wr->local, "nccl", argc, argv);
	if (wr->w.rank == 0 && gb_cmd_check_common(&wr->nc->common))
		usage_rc = GB_EXIT_USAGE;
	local_setup(wr);
	rc = gb_mpi_gather(&wr->w, 0, &wr->me, sizeof(wr->me), &hellos, err, sizeof(err));
	if (rc < 0)
		return world_fail(wr, err);
	if (rc > 0)
		rc = abort_root(wr, &hellos, NULL, "saying whether it can run");
	else
		rc = world_measure(wr, &hellos, usage_rc);
	gb_mpi_parts_free(&hellos);
	return rc;
}

/* The ranks could not even form the job: rank 0 still writes a report saying so. */
static int join_failed(struct world_run *wr, int argc, const char **argv, const char *err)
{
	/* before MPI is up every rank fails alike (no library, say): one voice, rank 0's */
	if (wr->w.active || wr->nc->launch.rank == 0)
		gb_error("cannot start the MPI job: %s", err);
	if (wr->w.rank == 0 && wr->nc->launch.rank == 0) {
		gb_cmd_run_begin(&wr->local, "nccl", argc, argv);
		gb_run_set_status(&wr->local, GB_STATUS_ERROR, err);
		gb_cmd_run_finish(&wr->local, &wr->nc->common, false);
		gb_run_release(&wr->local);
	}
	return stop_job(wr);
}

static int run_world(struct nccl_cmd *nc, int argc, const char **argv)
{
	struct world_run wr = { .nc = nc };
	char err[512];
	int rc;

	/* the library only now, with several ranks: one process never needs MPI installed */
	if (gb_mpi_dl_load(getenv("GPUBENCH_MPI_LIBRARY"), err, sizeof(err)) ||
	    gb_mpi_world_init(&wr.w, nc->launch.size, gb_nccl_timeout_s(nc->params), err,
			      sizeof(err)))
		return join_failed(&wr, argc, argv, err);
	if (wr.w.size != nc->launch.size) {
		if (nc->launch.rank == 0)
			gb_error("%s started %d processes but MPI sees %d: gpubench's MPI does not "
				 "match the launcher (with Slurm, try 'srun --mpi=pmix')",
				 nc->launch.name, nc->launch.size, wr.w.size);
		gb_mpi_world_finalize(&wr.w);
		return GB_EXIT_CANNOT_RUN;
	}
	gb_cmd_catch_signals();
	if (wr.w.rank != 0)
		nc->common.quiet = true; /* one voice: rank 0 prints and writes */
	gb_log_set_verbosity(nc->common.quiet ? -1 : nc->common.verbose ? 1 : 0);
	rc = world_flow(&wr, argc, argv);
	gb_mpi_world_finalize(&wr.w);
	/* gb_cmd_run_finish() could not _exit() while MPI was up: a lost GPU would block exit() */
	gb_cmd_exit_if_gpu_lost(&wr.local, rc);
	gb_run_release(&wr.local);
	return rc;
}

/* Launched by mpirun/srun but built without MPI: refuse, on rank 0 only. */
static int world_not_built(struct nccl_cmd *nc, int argc, const char **argv)
{
	struct gb_run run;
	int rc;

	if (nc->launch.rank != 0)
		return GB_EXIT_NOT_BUILT;
	gb_error("%s started %d processes, but gpubench was built without MPI: each would run "
		 "alone; rebuild with MPI (libopenmpi-dev), or run one process for all local GPUs",
		 nc->launch.name, nc->launch.size);
	if (gb_cmd_check_common(&nc->common))
		return GB_EXIT_USAGE;
	gb_cmd_run_begin(&run, "nccl", argc, argv);
	gb_run_set_status(&run, GB_STATUS_NOT_BUILT, "gpubench was built without MPI");
	rc = gb_cmd_run_finish(&run, &nc->common, false);
	gb_run_release(&run);
	return rc;
}

int cmd_nccl(int argc, const char **argv)
{
	struct nccl_cmd nc;
	int rc;

	memset(&nc, 0, sizeof(nc));
	gb_launcher_detect(&nc.launch);
	nc.params = calloc(1, gb_bench_nccl.params_size);
	if (!nc.params)
		return GB_EXIT_CANNOT_RUN;
	rc = parse(&nc, argc, argv, nc.launch.rank > 0);
	if (rc >= 0)
		goto out;
	gb_log_set_verbosity(nc.common.quiet ? -1 : nc.common.verbose ? 1 : 0);
	if (gb_bench_nccl.unavailable_reason && nc.launch.rank > 0) {
		/* built without NCCL: every rank exits alike, rank 0 alone says so and reports */
		rc = GB_EXIT_NOT_BUILT;
	} else if (nc.launch.size <= 1 || gb_bench_nccl.unavailable_reason) {
		rc = run_one_process(&nc, argc, argv);
	} else if (!gb_mpi_built()) {
		rc = world_not_built(&nc, argc, argv);
	} else {
		rc = run_world(&nc, argc, argv);
	}
out:
	free(nc.params);
	return rc;
}
