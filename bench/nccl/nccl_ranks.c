/* SPDX-License-Identifier: MIT */
/*
 * nccl_ranks.c - the local ranks of `gpubench nccl`: their errors, the
 * bounded wait on every GPU's stream (and, when it times out, which rank is
 * behind, from the progress marks), the sizes their buffers need, and each
 * GPU's stream, events and buffers set up and torn down. Uses CUDA, NCCL
 * (loaded at run time) and bench/nccl/nccl_internal.h; never prints, never exits.
 */
#include "bench/nccl/nccl_internal.h"

#if GPUBENCH_HAVE_NCCL

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/device/gpu.h"
#include "bench/device/nccl_dl.h"
#include "kernels/kernels.h"

/* ---- errors and waits ---- */

bool nc_nccl_ok(ncclResult_t r)
{
	return r == ncclSuccess || r == ncclInProgress;
}

/*
 * Set the benchmark ERROR for a failed CUDA call on g and abort the
 * communicators: after a failure they may be stuck mid-operation, and only
 * an abort cannot hang.
 */
int nc_cuda_fail(struct engine *e, const struct gpu *g, cudaError_t c, const char *what)
{
	char b[160];

	gb_bench_set_status(e->res, GB_STATUS_ERROR, "'%s' failed on rank %d (GPU %d): %s", what,
			    g->rank, g->dev, gb_cuda_errstr(c, b, sizeof(b)));
	gb_nccl_comms_abort(&e->comms);
	return -1;
}

/*
 * incomplete[i]: local rank i's operations not completed (of its last
 * GB_NCCL_MARKS), now. Also into extra.progress, so that rank 0 of an MPI
 * job can tell which rank is behind the others when a wait timed out or a
 * communicator failed (cmd/cmd_nccl.c).
 */
static void record_progress(struct engine *e, int *incomplete)
{
	cJSON *arr;

	for (int i = 0; i < e->n; i++) {
		const struct gpu *g = &e->g[i];
		uint64_t kept = g->marked < GB_NCCL_MARKS ? g->marked : GB_NCCL_MARKS;

		incomplete[i] = 0;
		cudaSetDevice(g->dev);
		for (uint64_t k = 0; k < kept; k++)
			incomplete[i] += cudaEventQuery(g->mark[k]) == cudaErrorNotReady;
	}
	cudaGetLastError(); /* a query's error is not this run's finding: the wait's is */
	arr = cJSON_AddArrayToObject(gb_bench_extra(e->res), "progress");

	for (int i = 0; arr && i < e->n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "rank", e->g[i].rank);
		cJSON_AddNumberToObject(o, "device", e->g[i].dev);
		cJSON_AddNumberToObject(o, "incomplete_ops", incomplete[i]);
		cJSON_AddItemToArray(arr, o);
	}
}

/*
 * A wait timed out: name the local rank whose collective hung, known when
 * one rank's stream is behind the others' (gb_nccl_lagging_rank), else the
 * first one still busy.
 */
static int timed_out(struct engine *e, int busy, const char *what)
{
	int incomplete[GB_DEVICE_LIST_MAX], lag;

	record_progress(e, incomplete);
	lag = gb_nccl_lagging_rank(incomplete, e->n);
	if (lag >= 0)
		return gb_nccl_comms_hung(&e->comms, lag, what);
	return gb_nccl_comms_timed_out(&e->comms, busy, what);
}

/* Whether local rank i's communicator reports an error (a peer process gone, ...). */
static bool comm_failed(const struct engine *e, int i)
{
	ncclResult_t a = gb_nccl_comm_query(e->comms.comm[i]);

	return a != ncclSuccess && a != ncclInProgress;
}

/* Wait, up to --timeout, until every GPU's stream has drained (polling, never blocking). */
int nc_wait_gpus(struct engine *e, const char *what)
{
	double start = gb_now_s(), deadline = start + e->p->timeout_s;
	int incomplete[GB_DEVICE_LIST_MAX];
	cudaError_t c;

	for (int i = 0; i < e->n; i++) {
		if ((c = cudaSetDevice(e->g[i].dev)) != cudaSuccess ||
		    (c = cudaEventRecord(e->g[i].done, e->g[i].stream)) != cudaSuccess)
			return nc_cuda_fail(e, &e->g[i], c, "cudaEventRecord");
	}
	for (;;) {
		int busy = -1;

		for (int i = 0; i < e->n; i++) {
			c = cudaEventQuery(e->g[i].done);
			if (c == cudaErrorNotReady)
				busy = busy < 0 ? i : busy;
			else if (c != cudaSuccess)
				return nc_cuda_fail(e, &e->g[i], c, what);
			if (comm_failed(e, i))
				record_progress(e, incomplete); /* before the abort drains the streams */
			if (gb_nccl_comms_state(&e->comms, i, false, what) < 0)
				return -1;
		}
		if (busy < 0)
			return 0;
		if (gb_now_s() > deadline)
			return timed_out(e, busy, what);
		gb_nccl_poll_pause(start);
	}
}

/* ---- set-up and tear-down ---- */

/* Bytes one rank's buffers need at a point: the larger of send and receive. */
uint64_t nc_point_bytes(const struct gb_nccl_shape *s, enum gb_nccl_dtype t)
{
	uint64_t big = s->send_count > s->recv_count ? s->send_count : s->recv_count;

	return big * gb_nccl_dtype_size(t);
}

/* The largest buffer any point of the sweep needs, per GPU. */
uint64_t nc_largest_point(const struct engine *e)
{
	uint64_t most = 16;

	for (int c = 0; c < GB_NCCL_COLL_COUNT; c++) {
		for (int t = 0; t < GB_NCCL_DTYPE_COUNT; t++) {
			if (!(e->p->colls & (1u << c)) || !(e->p->dtypes & (1u << t)))
				continue;
			for (size_t i = 0; i < e->n_sizes; i++) {
				struct gb_nccl_shape s;

				if (gb_nccl_shape_of(c, e->sizes[i], t, e->nranks, &s))
					continue;
				if (nc_point_bytes(&s, t) > most)
					most = nc_point_bytes(&s, t);
			}
		}
	}
	return most;
}

/* The largest L2 of the local GPUs, NAN when none is known. */
double nc_largest_l2(const struct engine *e)
{
	double l2 = NAN;

	for (int i = 0; i < e->n; i++) {
		const struct gb_device_info *d = gb_run_find_device(e->ctx->run, e->g[i].dev);

		if (d && d->l2_bytes > 0 && !(d->l2_bytes <= l2))
			l2 = d->l2_bytes;
	}
	return l2;
}

int nc_alloc_gpu(struct engine *e, struct gpu *g)
{
	int rc = 0;

	GB_CUDA_GOTO(e->res, cudaSetDevice(g->dev), out);
	GB_CUDA_GOTO(e->res, cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), out);
	GB_CUDA_GOTO(e->res, cudaEventCreate(&g->start), out);
	GB_CUDA_GOTO(e->res, cudaEventCreate(&g->stop), out);
	GB_CUDA_GOTO(e->res, cudaEventCreateWithFlags(&g->done, cudaEventDisableTiming), out);
	for (int k = 0; k < GB_NCCL_MARKS; k++)
		GB_CUDA_GOTO(e->res, cudaEventCreateWithFlags(&g->mark[k], cudaEventDisableTiming),
			     out);
	GB_CUDA_GOTO(e->res, cudaMalloc((void **)&g->send, e->span), out);
	GB_CUDA_GOTO(e->res, cudaMalloc((void **)&g->recv, e->span), out);
	GB_CUDA_GOTO(e->res, cudaMalloc((void **)&g->nwrong, sizeof(*g->nwrong)), out);
	/* never time zeros: fill both buffers once with the pattern */
	GB_CUDA_GOTO(e->res,
		     gb_launch_nccl_fill(g->send, e->span, GB_NCCL_UINT8, GB_NCCL_SUM, 0, g->rank,
					 0, g->stream),
		     out);
	GB_CUDA_GOTO(e->res,
		     gb_launch_nccl_fill(g->recv, e->span, GB_NCCL_UINT8, GB_NCCL_SUM, 1, g->rank,
					 0, g->stream),
		     out);
out:
	return rc;
}

void nc_free_gpu(struct gpu *g)
{
	cudaSetDevice(g->dev);
	if (g->exec)
		cudaGraphExecDestroy(g->exec);
	if (g->graph)
		cudaGraphDestroy(g->graph);
	cudaFree(g->nwrong);
	cudaFree(g->recv);
	cudaFree(g->send);
	for (int k = 0; k < GB_NCCL_MARKS; k++)
		if (g->mark[k])
			cudaEventDestroy(g->mark[k]);
	if (g->done)
		cudaEventDestroy(g->done);
	if (g->stop)
		cudaEventDestroy(g->stop);
	if (g->start)
		cudaEventDestroy(g->start);
	if (g->stream)
		cudaStreamDestroy(g->stream);
	/* what teardown could not do is not this run's error, nor the next benchmark's */
	cudaGetLastError();
}

#endif
