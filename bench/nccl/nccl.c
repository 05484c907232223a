/* SPDX-License-Identifier: MIT */
/*
 * nccl.c - `gpubench nccl`: NCCL collectives over a size sweep, timed and
 * checked the way nccl-tests does it, so the numbers compare directly.
 *
 * Shape of a run (nccl-tests' TimeTest): for every collective, type,
 * operator and size, out-of-place then in-place: `warmup` untimed
 * operations, then `samples` timed loops of `iters` operations between CUDA
 * events on every GPU's stream (or one CUDA graph of them, --graph); a
 * loop's time per operation is the slowest GPU's elapsed / iters, and the
 * row's time is the median of the loops, with their spread. Every
 * operation works on its own slice of buffers at least twice the L2 size
 * (nccl_math.h, rotation), so small sizes are not timed from the cache.
 * Then, separately, a correctness pass: fill the send buffers with
 * predictable data, poison the receive buffers, run once, and count wrong
 * elements on the device.
 *
 * Local GPUs are driven from this one thread as one communicator with
 * grouped calls. Two kinds of communicator, for two different risks:
 *
 *   - Joining the job is where a rank that never comes makes everyone
 *     wait. The communicators are created non-blocking (NCCL 2.14+), so
 *     that wait is polled against --timeout and can be aborted.
 *   - Timing must not measure the host. A non-blocking group hands every
 *     ncclGroupEnd to a new thread and returns ncclInProgress, so each
 *     operation would cost a thread start and a poll, and at small sizes
 *     the GPU would idle between operations. The operations therefore run
 *     on blocking communicators split off the non-blocking ones
 *     (ncclCommSplit, 2.18+; the split itself is still non-blocking and
 *     polled), which launch inline as nccl-tests' do. A blocking call
 *     that does not return within --timeout (a peer died while NCCL waits
 *     for it) is ended by a watchdog thread that aborts the communicators;
 *     waits on the GPU are polled events, as before.
 *
 * Both kinds, the watchdog and the tear-down live in nccl_comm.c, which
 * `gpubench scaling` shares.
 *
 * With an NCCL older than 2.18 the operations run on the non-blocking
 * communicators, polled with a short spin; the report says which
 * ("launch"). Every failure ends in an error naming rank and GPU (after
 * ncclCommAbort), never in a process that waits forever.
 *
 * Which GPU hung: after each operation posted, every local rank's stream
 * records a progress mark (a disable-timing event; the last GB_NCCL_MARKS
 * kept; none inside a graph capture, and none in the timed loops of
 * operations below GB_NCCL_MARK_MIN_BYTES, whose time an event record's host
 * cost could inflate where the loop is bound by the host's enqueueing). When a wait times out, the rank with
 * more marks still incomplete than every other is behind: its collective
 * never completed while its peers finished it and wait at the next. The
 * error names that rank; under MPI each rank records its count in
 * extra.progress and rank 0 compares them (cmd/cmd_nccl.c). When no rank
 * is behind (all stuck alike, or it hung longer ago than the marks kept),
 * the error names the first rank still busy.
 *
 * A wrong correctness pass names the lowest rank whose output had wrong
 * elements, and its GPU (the row's wrong_rank and wrong_gpu; the check's
 * device).
 *
 * The files: this one is the command (its entry points and parameters);
 * nccl_sweep.c the sweep and a run's engine, nccl_timing.c an operation
 * posted and timed, nccl_verify.c the correctness pass, nccl_ranks.c the
 * local ranks' errors, waits and buffers, all over bench/nccl/nccl_internal.h;
 * the arithmetic is nccl_math.c (CPU only, unit-tested).
 */
#include "bench/nccl/nccl_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/nccl/nccl_math.h"

#if GPUBENCH_HAVE_NCCL

#include "bench/device/gpu.h"
#include "bench/device/nccl_dl.h"

/* ---- public entry points ---- */

int gb_nccl_load(const char *path, char *err, size_t errlen)
{
	return gb_nccl_dl_load(path, err, errlen);
}

int gb_nccl_loaded_version(void)
{
	return gb_nccl.ncclGetVersion ? gb_nccl.version : -1;
}

int gb_nccl_unique_id(unsigned char id[GB_NCCL_ID_BYTES], char *err, size_t errlen)
{
	ncclUniqueId u;
	ncclResult_t r;

	_Static_assert(sizeof(u) == GB_NCCL_ID_BYTES, "ncclUniqueId size");
	if (!gb_nccl.ncclGetUniqueId) {
		snprintf(err, errlen, "NCCL is not loaded");
		return -1;
	}
	r = gb_nccl.ncclGetUniqueId(&u);
	if (r != ncclSuccess) {
		snprintf(err, errlen, "'ncclGetUniqueId' failed: %s%s%s",
			 gb_nccl.ncclGetErrorString(r), *gb_nccl_last_error(NULL) ? ": " : "",
			 gb_nccl_last_error(NULL));
		return -1;
	}
	memcpy(id, &u, sizeof(u));
	return 0;
}

/* The theoretical bus bandwidth of the local GPUs' links. */
static double local_theory(const struct gb_ctx *ctx, char *basis, size_t len)
{
	struct gb_nccl_rank_link r[GB_DEVICE_LIST_MAX];
	size_t n = ctx->n_devices < GB_DEVICE_LIST_MAX ? ctx->n_devices : GB_DEVICE_LIST_MAX;

	for (size_t i = 0; i < n; i++) {
		const struct gb_device_info *d = gb_run_find_device(ctx->run, ctx->devices[i]);

		r[i] = (struct gb_nccl_rank_link){ ctx->run->host.hostname, -1, -1, NAN };
		if (d)
			gb_nccl_rank_link_of(d, ctx->run->host.hostname, &r[i]);
	}
	return gb_nccl_link_theory(r, n, gb_nccl_pairs_nvlink(ctx->run, ctx->devices, n), basis,
				   len);
}

static int nccl_run(struct gb_ctx *ctx, const void *params, struct gb_bench_result *res)
{
	struct engine e;
	unsigned char id[GB_NCCL_ID_BYTES];
	char err[512], basis[256];
	double theory;
	int rc;

	nc_engine_init(&e, ctx, params, res, NULL);
	if (gb_nccl_load(NULL, err, sizeof(err)) || gb_nccl_unique_id(id, err, sizeof(err))) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "%s", err);
		return -1;
	}
	gb_nccl_record_params(res, params, e.nranks);
	rc = nc_engine_run(&e, 0, id);
	theory = local_theory(ctx, basis, sizeof(basis));
	gb_nccl_fill_result(res, e.rows, e.n_rows, e.nranks, theory, basis);
	nc_engine_finish(&e);
	return rc;
}

int gb_nccl_run_world(struct gb_ctx *ctx, const void *params, const struct gb_mpi_world *w,
		      const unsigned char id[GB_NCCL_ID_BYTES], struct gb_bench_result *res)
{
	struct engine e;
	int rc;

	if (ctx->n_devices != 1) {
		gb_bench_set_status(res, GB_STATUS_ERROR,
				    "internal: a rank drives exactly one GPU");
		return -1;
	}
	nc_engine_init(&e, ctx, params, res, w);
	gb_nccl_record_params(res, params, e.nranks);
	rc = nc_engine_run(&e, w->rank, id);
	/* this rank's own view; rank 0 recomputes the whole from every rank's rows */
	gb_nccl_fill_result(res, e.rows, e.n_rows, e.nranks, NAN, NULL);
	nc_engine_finish(&e);
	return rc;
}

#else /* built without NCCL: the command is listed, and says so */

#define GB_NCCL_NOT_BUILT "gpubench was built without NCCL"

int gb_nccl_load(const char *path, char *err, size_t errlen)
{
	(void)path;
	snprintf(err, errlen, "%s", GB_NCCL_NOT_BUILT);
	return -1;
}

int gb_nccl_loaded_version(void)
{
	return -1;
}

int gb_nccl_unique_id(unsigned char id[GB_NCCL_ID_BYTES], char *err, size_t errlen)
{
	(void)id;
	snprintf(err, errlen, "%s", GB_NCCL_NOT_BUILT);
	return -1;
}

static int nccl_run(struct gb_ctx *ctx, const void *params, struct gb_bench_result *res)
{
	(void)ctx;
	(void)params;
	gb_bench_set_status(res, GB_STATUS_NOT_BUILT, "%s", GB_NCCL_NOT_BUILT);
	return -1;
}

int gb_nccl_run_world(struct gb_ctx *ctx, const void *params, const struct gb_mpi_world *w,
		      const unsigned char id[GB_NCCL_ID_BYTES], struct gb_bench_result *res)
{
	(void)w;
	(void)id;
	return nccl_run(ctx, params, res);
}

#endif

/* ---- parameters in the report ---- */

static void param_mask(struct gb_bench_result *res, const char *key, uint32_t mask,
		       const char *const *names)
{
	char buf[256] = "";
	size_t pos = 0;

	for (int i = 0; names[i]; i++)
		if (mask & (1u << i))
			pos += (size_t)snprintf(buf + pos,
						pos < sizeof(buf) ? sizeof(buf) - pos : 0, "%s%s",
						pos ? "," : "", names[i]);
	gb_bench_param_str(res, key, buf);
}

void gb_nccl_record_params(struct gb_bench_result *res, const void *params, int nranks)
{
	const struct gb_nccl_params *p = params;

	param_mask(res, "op", p->colls, gb_nccl_coll_names);
	param_mask(res, "dtype", p->dtypes, gb_nccl_dtype_names);
	param_mask(res, "redop", p->redops, gb_nccl_redop_names);
	gb_bench_param_num(res, "min_bytes", (double)p->min_bytes);
	gb_bench_param_num(res, "max_bytes", (double)p->max_bytes);
	gb_bench_param_num(res, "factor", (double)p->factor);
	gb_bench_param_num(res, "iters", (double)p->iters);
	gb_bench_param_num(res, "samples", (double)p->samples);
	gb_bench_param_num(res, "warmup", (double)p->warmup);
	gb_bench_param_num(res, "root", (double)gb_nccl_root(p));
	gb_bench_param_bool(res, "out_of_place", gb_nccl_want_outofplace(p));
	gb_bench_param_bool(res, "in_place", gb_nccl_want_inplace(p));
	gb_bench_param_bool(res, "graph", p->graph);
	gb_bench_param_num(res, "timeout_s", p->timeout_s);
	gb_bench_param_num(res, "nranks", nranks);
	gb_bench_param_str(res, "timing",
			   "CUDA events around iters operations, each on its own buffer slice; "
			   "a sample = slowest GPU / iters (nccl-tests' per-operation time); "
			   "time_us = median of the samples");
	if (gb_nccl_loaded_version() > 0)
		gb_bench_param_num(res, "nccl_version", gb_nccl_loaded_version());
}

double gb_nccl_timeout_s(const void *params)
{
	return ((const struct gb_nccl_params *)params)->timeout_s;
}

const struct gb_bench gb_bench_nccl = {
	.name = "nccl",
	.summary = "NCCL collectives: time, algbw, busbw and wrong elements over a size sweep",
	.usage = "gpubench nccl [--op LIST] [--min-bytes SIZE] [--max-bytes SIZE] [--factor N] "
		 "[--dtype LIST] [--redop LIST] [--iters N] [--samples N] [--warmup-iters N] "
		 "[--inplace|--outofplace] "
		 "[--graph] [options]\n"
		 "       mpirun -np N gpubench nccl [options]   (one rank per GPU, any number of "
		 "nodes)",
	.opts = gb_nccl_opts,
	.params_size = sizeof(struct gb_nccl_params),
	.set_defaults = gb_nccl_set_defaults,
	.validate = gb_nccl_validate,
	.run = nccl_run,
	.flags = GB_BENCH_NEEDS_GPU,
#if !GPUBENCH_HAVE_NCCL
	.unavailable_reason = GB_NCCL_NOT_BUILT,
#endif
};
