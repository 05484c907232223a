/* SPDX-License-Identifier: MIT */
/*
 * nccl_sweep.c - the sweep of `gpubench nccl` and a whole run: every
 * collective, type, operator, size and placement timed then checked, each
 * group of points with its telemetry; and a run's engine: its checks, the
 * communicators joined (bench/device/nccl_comm.h), the buffers, the sweep, the
 * tear-down. Uses CUDA, NCCL (loaded at run time), telemetry and
 * bench/nccl/nccl_internal.h; never prints, never exits.
 */
#include "bench/nccl/nccl_internal.h"

#if GPUBENCH_HAVE_NCCL

#include <stdlib.h>
#include <string.h>

#include "bench/device/gpu.h"
#include "bench/device/nccl_dl.h"
#include "report/json_util.h"

/* Telemetry while the sweep runs: often enough for a group of a few tenths of a second. */
#define TELEMETRY_INTERVAL_S 0.1

/* ---- the sweep ---- */

static void push_row(struct engine *e, const struct gb_nccl_row *r)
{
	if (e->n_rows == e->cap_rows) {
		e->cap_rows = e->cap_rows ? 2 * e->cap_rows : 64;
		e->rows = gb_xrealloc(e->rows, e->cap_rows * sizeof(*e->rows));
	}
	e->rows[e->n_rows++] = *r;
}

static int run_point(struct engine *e, struct op *o)
{
	struct gb_nccl_row row = {
		.coll = (int)o->coll,
		.dtype = (int)o->dtype,
		.redop = o->redop,
		.root = o->root,
		.inplace = o->inplace,
		.nwrong = -1,
	};

	gb_nccl_row_shape(&row, &o->shape, e->nranks);
	gb_nccl_rotation_of(nc_point_bytes(&o->shape, o->dtype), e->span, &o->rot);
	o->turn = 0;
	if (gb_nccl_noop(o->coll, o->dtype, o->redop, e->nranks, o->inplace))
		gb_nccl_row_samples(&row, NULL, 0); /* nothing to time: only checked */
	else if (nc_time_op(e, o, &row))
		return -1;
	if (nc_check_op(e, o, &row))
		return -1;
	gb_nccl_row_bw(&row, e->nranks);
	push_row(e, &row);
	return 0;
}

/* Whether o's placement is timed: as asked, and in-place only where NCCL defines it. */
static bool placement_wanted(const struct engine *e, const struct op *o)
{
	if (!o->inplace)
		return gb_nccl_want_outofplace(e->p);
	return gb_nccl_want_inplace(e->p) && gb_nccl_coll_has_inplace(o->coll);
}

/* What the GPUs looked like while one group ran, into e->telemetry; starts the next window. */
static void group_telemetry(struct engine *e, const struct op *o)
{
	for (int i = 0; e->sampler && i < e->n; i++) {
		struct gb_telemetry_summary t;
		cJSON *j;

		gb_sampler_summary(e->sampler, (size_t)i, &t);
		if (!t.valid)
			continue;
		j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "collective", gb_nccl_coll_names[o->coll]);
		cJSON_AddStringToObject(j, "type", gb_nccl_dtype_names[o->dtype]);
		cJSON_AddStringToObject(j, "redop",
					o->redop >= 0 ? gb_nccl_redop_names[o->redop] : "none");
		cJSON_AddNumberToObject(j, "device", e->g[i].dev);
		cJSON_AddNumberToObject(j, "samples", (double)t.n);
		gb_json_add_num(j, "sm_mhz_mean", t.sm_mhz_mean);
		gb_json_add_num(j, "sm_mhz_min", t.sm_mhz_min);
		gb_json_add_num(j, "mem_mhz_mean", t.mem_mhz_mean);
		gb_json_add_num(j, "power_w_max", t.power_w_max);
		gb_json_add_num(j, "temp_c_max", t.temp_c_max);
		gb_json_add_num(j, "throttled_frac", t.throttled_frac);
		cJSON_AddItemToArray(e->telemetry, j);
	}
	if (e->sampler)
		gb_sampler_mark(e->sampler);
}

/* Every size, out-of-place then in-place, of one collective, type and operator. */
static int sweep_group(struct engine *e, struct op *o)
{
	char lo[32], hi[32];

	gb_format_bytes(lo, sizeof(lo), (double)e->sizes[0]);
	gb_format_bytes(hi, sizeof(hi), (double)e->sizes[e->n_sizes - 1]);
	gb_progress(e->ctx, "nccl: %s %s%s%s, %d ranks, %s to %s", gb_nccl_coll_names[o->coll],
		    gb_nccl_dtype_names[o->dtype], o->redop >= 0 ? " " : "",
		    o->redop >= 0 ? gb_nccl_redop_names[o->redop] : "", e->nranks, lo, hi);
	if (e->sampler)
		gb_sampler_mark(e->sampler);
	for (size_t i = 0; i < e->n_sizes && !gb_should_stop(e->ctx); i++) {
		if (gb_nccl_shape_of(o->coll, e->sizes[i], o->dtype, e->nranks, &o->shape))
			continue; /* too small to give every rank an element */
		o->seed = ((uint64_t)o->coll << 48) ^ ((uint64_t)o->dtype << 40) ^
			  ((uint64_t)(o->redop + 1) << 32) ^ (uint64_t)(i + 1);
		for (int place = 0; place < 2; place++) {
			o->inplace = place == 1;
			if (!placement_wanted(e, o))
				continue;
			if (run_point(e, o))
				return -1;
		}
	}
	group_telemetry(e, o);
	return 0;
}

/* One collective and type: once per selected operator, or once if it does not reduce. */
static int sweep_ops(struct engine *e, enum gb_nccl_coll c, enum gb_nccl_dtype t)
{
	bool reduces = gb_nccl_coll_reduces(c);

	for (int r = reduces ? 0 : -1; r < (reduces ? GB_NCCL_REDOP_COUNT : 0); r++) {
		struct op o = {
			.coll = c,
			.dtype = t,
			.redop = r,
			.root = gb_nccl_coll_rooted(c) ? (int)gb_nccl_root(e->p) : -1,
		};

		if (r >= 0 && !(e->p->redops & (1u << r)))
			continue;
		if (gb_should_stop(e->ctx))
			return 0; /* cmd/ marks the result interrupted */
		if (sweep_group(e, &o))
			return -1;
	}
	return 0;
}

static int sweep(struct engine *e)
{
	for (int c = 0; c < GB_NCCL_COLL_COUNT; c++)
		for (int t = 0; t < GB_NCCL_DTYPE_COUNT; t++)
			if ((e->p->colls & (1u << c)) && (e->p->dtypes & (1u << t)) &&
			    sweep_ops(e, c, t))
				return -1;
	return 0;
}

/* ---- a whole run ---- */

static int engine_check(struct engine *e)
{
	bool rooted = false;

	for (int c = 0; c < GB_NCCL_COLL_COUNT; c++)
		rooted |= (e->p->colls & (1u << c)) && gb_nccl_coll_rooted(c);
	if (rooted && gb_nccl_root(e->p) >= e->nranks) {
		gb_bench_set_status(e->res, GB_STATUS_ERROR,
				    "--root %lld is not a rank: this run has %d (0..%d)",
				    (long long)gb_nccl_root(e->p), e->nranks, e->nranks - 1);
		return -1;
	}
	e->n_sizes = gb_nccl_sweep(e->p->min_bytes, e->p->max_bytes, (uint64_t)e->p->factor,
				   e->sizes, GB_NCCL_SWEEP_MAX);
	if (!e->n_sizes) {
		gb_bench_set_status(e->res, GB_STATUS_ERROR, "the size sweep is empty");
		return -1;
	}
	return 0;
}

/* How the run launched its operations and rotated its buffers, for the report. */
static void record_method(struct engine *e)
{
	gb_bench_param_str(e->res, "launch",
			   e->comms.blocking ? "blocking communicators (split off non-blocking ones)"
				       : "non-blocking communicators (NCCL before 2.18: small "
					 "sizes include host launch time)");
	gb_bench_param_num(e->res, "rotation_bytes", (double)e->span);
	if (e->p->colls & (1u << GB_NCCL_ALLTOALL))
		gb_bench_param_str(e->res, "alltoall",
				   gb_nccl.ncclAlltoAll ? "ncclAlltoAll"
							: "grouped ncclSend/ncclRecv per peer");
}

/* Set up, sweep, tear down; the watchdog and the GPUs are ready. */
static int engine_sweep(struct engine *e, const unsigned char *id)
{
	int rc = engine_check(e);

	/* set-up and a size point may each be silent up to the timeout: NCCL's own timeouts speak first */
	gb_expect_silence(e->ctx, e->p->timeout_s + 30);
	if (!rc)
		e->span = gb_nccl_rotation_span(nc_largest_point(e), nc_largest_l2(e));
	for (int i = 0; i < e->n && !rc; i++)
		rc = nc_alloc_gpu(e, &e->g[i]);
	if (!rc)
		rc = gb_nccl_comms_init(&e->comms, id);
	if (!rc)
		rc = gb_nccl_comms_split(&e->comms);
	if (!rc) {
		record_method(e);
		e->sampler = gb_sampler_start(e->ctx, e->ctx->devices, e->ctx->n_devices,
					      TELEMETRY_INTERVAL_S, NULL);
		gb_bench_param_bool(e->res, "telemetry", e->sampler != NULL);
		rc = sweep(e);
		gb_sampler_stop(e->sampler);
		e->sampler = NULL;
	}
	gb_nccl_comms_destroy(&e->comms, rc == 0);
	return rc;
}

/*
 * Run the sweep on e->n local GPUs that are ranks first_rank.. of e->nranks,
 * joining the communicator of id. Rows land in e->rows, telemetry in
 * e->telemetry.
 */
int nc_engine_run(struct engine *e, int first_rank, const unsigned char *id)
{
	int rc;

	e->g = calloc((size_t)e->n, sizeof(*e->g));
	e->telemetry = cJSON_CreateArray();
	if (!e->g) {
		gb_bench_set_status(e->res, GB_STATUS_ERROR, "out of host memory");
		return -1;
	}
	if (gb_nccl_comms_start(&e->comms, e->res, e->ctx->devices, e->n, first_rank, e->nranks,
				e->p->timeout_s, e->host, false)) {
		free(e->g);
		e->g = NULL;
		return -1;
	}
	/* an error an earlier step tolerated must not surface in the first kernel launch */
	cudaGetLastError();
	for (int i = 0; i < e->n; i++) {
		e->g[i].dev = e->ctx->devices[i];
		e->g[i].rank = first_rank + i;
	}
	rc = engine_sweep(e, id);
	gb_nccl_comms_stop(&e->comms);
	for (int i = 0; i < e->n; i++)
		nc_free_gpu(&e->g[i]);
	free(e->g);
	e->g = NULL;
	return rc;
}

void nc_engine_init(struct engine *e, struct gb_ctx *ctx, const void *params,
		    struct gb_bench_result *res, const struct gb_mpi_world *w)
{
	memset(e, 0, sizeof(*e));
	e->p = params;
	e->res = res;
	e->ctx = ctx;
	e->world = w;
	e->host = w ? w->host : NULL;
	e->n = (int)ctx->n_devices;
	e->nranks = w ? w->size : (int)ctx->n_devices;
}

/* The telemetry of the sweep into extra (after gb_nccl_fill_result made it). */
void nc_engine_finish(struct engine *e)
{
	if (e->telemetry && cJSON_GetArraySize(e->telemetry) > 0)
		cJSON_AddItemToObject(gb_bench_extra(e->res), "telemetry", e->telemetry);
	else
		cJSON_Delete(e->telemetry);
	e->telemetry = NULL;
	free(e->rows);
	e->rows = NULL;
}

#endif
