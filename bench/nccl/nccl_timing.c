/* SPDX-License-Identifier: MIT */
/*
 * nccl_timing.c - one operation of `gpubench nccl` and its timing: an
 * operation posted on every local rank (grouped, on its buffer slice, with a
 * progress mark after it), captured into CUDA graphs with --graph, and the
 * timed loops between CUDA events whose slowest GPU gives a sample. Uses
 * CUDA, NCCL (loaded at run time) and bench/nccl/nccl_internal.h; never prints,
 * never exits.
 */
#include "bench/nccl/nccl_internal.h"

#if GPUBENCH_HAVE_NCCL

#include <stdlib.h>

#include "bench/device/gpu.h"
#include "bench/device/nccl_dl.h"

static const ncclDataType_t nccl_types[GB_NCCL_DTYPE_COUNT] = {
	[GB_NCCL_INT8] = ncclInt8,	[GB_NCCL_UINT8] = ncclUint8,
	[GB_NCCL_INT32] = ncclInt32,	[GB_NCCL_UINT32] = ncclUint32,
	[GB_NCCL_INT64] = ncclInt64,	[GB_NCCL_UINT64] = ncclUint64,
	[GB_NCCL_HALF] = ncclFloat16,	[GB_NCCL_FLOAT] = ncclFloat32,
	[GB_NCCL_DOUBLE] = ncclFloat64, [GB_NCCL_BFLOAT16] = ncclBfloat16,
};

static const ncclRedOp_t nccl_ops[GB_NCCL_REDOP_COUNT] = {
	[GB_NCCL_SUM] = ncclSum, [GB_NCCL_PROD] = ncclProd, [GB_NCCL_MAX] = ncclMax,
	[GB_NCCL_MIN] = ncclMin, [GB_NCCL_AVG] = ncclAvg,
};

/*
 * The smallest operation (bytes sent per rank) that a timed loop marks: from
 * here an operation takes tens of microseconds on any link, so the microsecond
 * of host time an event record costs hides behind the GPU's work. Smaller
 * ones (the latency end of the sweep) are timed exactly as nccl-tests times
 * them; a hang there is named by the first rank still busy.
 */
#define GB_NCCL_MARK_MIN_BYTES (1u << 20)

/* ---- one operation ---- */

/* The buffers of o on g, `offset` bytes into the span (a rotation slice). */
void nc_op_buffers(const struct gpu *g, const struct op *o, uint64_t offset, char **send,
		   char **recv)
{
	size_t elt = gb_nccl_dtype_size(o->dtype);
	char *s = g->send + offset, *r = g->recv + offset;

	*send = s;
	*recv = r;
	if (!o->inplace)
		return;
	switch (o->coll) {
	case GB_NCCL_ALLGATHER: /* this rank's chunk of the output is its input */
		*send = r + (size_t)g->rank * o->shape.inplace_send_offset * elt;
		break;
	case GB_NCCL_REDUCESCATTER: /* the output is this rank's chunk of the input */
		*recv = s + (size_t)g->rank * o->shape.inplace_recv_offset * elt;
		break;
	default:
		*send = r;
		break;
	}
}

static ncclResult_t alltoall(const struct engine *e, int i, const char *s, char *r, size_t count,
			     ncclDataType_t t, size_t elt)
{
	const struct gpu *g = &e->g[i];
	ncclComm_t c = e->comms.comm[i];
	ncclResult_t rr = ncclSuccess, end;

	if (gb_nccl.ncclAlltoAll)
		return gb_nccl.ncclAlltoAll(s, r, count, t, c, g->stream);
	/* before NCCL 2.28: NCCL's documented all-to-all, a send and a receive per peer */
	gb_nccl.ncclGroupStart();
	for (int p = 0; p < e->nranks && nc_nccl_ok(rr); p++) {
		rr = gb_nccl.ncclSend(s + (size_t)p * count * elt, count, t, p, c, g->stream);
		if (nc_nccl_ok(rr))
			rr = gb_nccl.ncclRecv(r + (size_t)p * count * elt, count, t, p, c, g->stream);
	}
	end = gb_nccl.ncclGroupEnd(); /* nested in post()'s group: it only closes this level */
	return nc_nccl_ok(rr) ? end : rr;
}

static ncclResult_t post_one(const struct engine *e, int i, const struct op *o, uint64_t offset)
{
	const struct gpu *g = &e->g[i];
	ncclComm_t c = e->comms.comm[i];
	ncclDataType_t t = nccl_types[o->dtype];
	ncclRedOp_t op = o->redop >= 0 ? nccl_ops[o->redop] : ncclSum;
	size_t n = o->shape.param_count;
	char *s, *r;

	nc_op_buffers(g, o, offset, &s, &r);
	switch (o->coll) {
	case GB_NCCL_ALLREDUCE:
		return gb_nccl.ncclAllReduce(s, r, n, t, op, c, g->stream);
	case GB_NCCL_ALLGATHER:
		return gb_nccl.ncclAllGather(s, r, n, t, c, g->stream);
	case GB_NCCL_REDUCESCATTER:
		return gb_nccl.ncclReduceScatter(s, r, n, t, op, c, g->stream);
	case GB_NCCL_BROADCAST:
		return gb_nccl.ncclBroadcast(s, r, n, t, o->root, c, g->stream);
	case GB_NCCL_REDUCE:
		return gb_nccl.ncclReduce(s, r, n, t, op, o->root, c, g->stream);
	case GB_NCCL_ALLTOALL:
		return alltoall(e, i, s, r, n, t, gb_nccl_dtype_size(o->dtype));
	default:
		return ncclInvalidArgument;
	}
}

/*
 * A progress mark on every GPU after the operation just posted: a
 * disable-timing event, a few bytes the GPU writes between two kernels.
 * Not inside a graph capture (capturing), where it would be a graph node,
 * nor after a small operation of a timed loop (GB_NCCL_MARK_MIN_BYTES).
 */
static int mark_all(struct engine *e, const struct op *o)
{
	uint64_t bytes = o->shape.send_count * gb_nccl_dtype_size(o->dtype);
	bool skip = e->capturing || (e->timing && bytes < GB_NCCL_MARK_MIN_BYTES);
	cudaError_t c;

	for (int i = 0; i < e->n && !skip; i++) {
		struct gpu *g = &e->g[i];

		if ((c = cudaSetDevice(g->dev)) != cudaSuccess ||
		    (c = cudaEventRecord(g->mark[g->marked % GB_NCCL_MARKS], g->stream)) !=
			    cudaSuccess)
			return nc_cuda_fail(e, g, c, "cudaEventRecord");
		g->marked++;
	}
	return 0;
}

/* Enqueue one operation on every local GPU as one group, `offset` bytes into the buffers. */
int nc_post_at(struct engine *e, const struct op *o, uint64_t offset)
{
	ncclResult_t r = ncclSuccess;
	int failed = -1;

	gb_nccl.ncclGroupStart();
	for (int i = 0; i < e->n && failed < 0; i++) {
		r = post_one(e, i, o, offset);
		if (!nc_nccl_ok(r))
			failed = i;
	}
	if (gb_nccl_comms_end_group(&e->comms, failed, r, false, gb_nccl_coll_names[o->coll]))
		return -1;
	return mark_all(e, o);
}

/* Enqueue the next operation of the timed or warm-up loops, on the next slice. */
static int post(struct engine *e, struct op *o)
{
	return nc_post_at(e, o, gb_nccl_rotation_offset(&o->rot, o->turn++));
}

/* ---- timing ---- */

/* Capture --iters operations on every GPU's stream into one graph per GPU. */
static int capture(struct engine *e, struct op *o)
{
	int rc = 0, began = 0;
	cudaError_t c = cudaSuccess;

	for (; began < e->n; began++) {
		if ((c = cudaSetDevice(e->g[began].dev)) != cudaSuccess ||
		    (c = cudaStreamBeginCapture(e->g[began].stream,
						cudaStreamCaptureModeThreadLocal)) != cudaSuccess) {
			rc = nc_cuda_fail(e, &e->g[began], c, "cudaStreamBeginCapture");
			break;
		}
	}
	e->capturing = true;
	for (int64_t k = 0; k < e->p->iters && !rc; k++)
		rc = post(e, o);
	e->capturing = false;
	/* end every capture that began, even after a failure, so the streams stay usable */
	for (int i = 0; i < began; i++) {
		cudaSetDevice(e->g[i].dev);
		c = cudaStreamEndCapture(e->g[i].stream, &e->g[i].graph);
		if (c != cudaSuccess && !rc)
			rc = nc_cuda_fail(e, &e->g[i], c, "cudaStreamEndCapture");
	}
	for (int i = 0; i < e->n && !rc; i++) {
		cudaSetDevice(e->g[i].dev);
		c = cudaGraphInstantiate(&e->g[i].exec, e->g[i].graph, 0);
		if (c != cudaSuccess) {
			rc = nc_cuda_fail(e, &e->g[i], c, "cudaGraphInstantiate");
			break;
		}
		/* a graph's first launch would otherwise upload it inside the timed events */
		c = cudaGraphUpload(e->g[i].exec, e->g[i].stream);
		if (c != cudaSuccess)
			rc = nc_cuda_fail(e, &e->g[i], c, "cudaGraphUpload");
	}
	return rc;
}

static void drop_graphs(struct engine *e)
{
	for (int i = 0; i < e->n; i++) {
		cudaSetDevice(e->g[i].dev);
		if (e->g[i].exec)
			cudaGraphExecDestroy(e->g[i].exec);
		if (e->g[i].graph)
			cudaGraphDestroy(e->g[i].graph);
		e->g[i].exec = NULL;
		e->g[i].graph = NULL;
	}
}

/* Record every GPU's start (or stop) event on its stream. */
static int record_all(struct engine *e, bool start)
{
	int rc = 0;

	for (int i = 0; i < e->n; i++) {
		GB_CUDA_GOTO(e->res, cudaSetDevice(e->g[i].dev), out);
		GB_CUDA_GOTO(e->res,
			     cudaEventRecord(start ? e->g[i].start : e->g[i].stop, e->g[i].stream),
			     out);
	}
out:
	return rc;
}

/* The timed operations between the start and stop events of every GPU. */
static int timed_loop(struct engine *e, struct op *o)
{
	int rc = 0;

	if (record_all(e, true))
		return -1;
	if (e->p->graph) {
		for (int i = 0; i < e->n; i++) {
			GB_CUDA_GOTO(e->res, cudaSetDevice(e->g[i].dev), out);
			GB_CUDA_GOTO(e->res, cudaGraphLaunch(e->g[i].exec, e->g[i].stream), out);
		}
	} else {
		e->timing = true;
		for (int64_t k = 0; k < e->p->iters && !rc; k++)
			rc = post(e, o);
		e->timing = false;
		if (rc)
			return -1;
	}
	rc = record_all(e, false);
out:
	return rc;
}

/* One sample: a timed loop; its time per operation in us, the slowest local GPU's. */
static int timed_sample(struct engine *e, struct op *o, double *time_us)
{
	float worst = 0;
	int rc = 0;

	if (timed_loop(e, o) || nc_wait_gpus(e, "the timed loop"))
		return -1;
	for (int i = 0; i < e->n; i++) {
		float ms = 0;

		GB_CUDA_GOTO(e->res, cudaEventElapsedTime(&ms, e->g[i].start, e->g[i].stop), out);
		worst = ms > worst ? ms : worst;
	}
	*time_us = (double)worst * 1e3 / (double)e->p->iters;
out:
	return rc;
}

/* Warm up, then every sample of o; the row's time is their median, with their spread. */
int nc_time_op(struct engine *e, struct op *o, struct gb_nccl_row *row)
{
	double t[GB_NCCL_SAMPLES_MAX];
	size_t n = (size_t)e->p->samples;
	char err[512];
	int rc = 0;

	for (int64_t k = 0; k < e->p->warmup; k++)
		if (post(e, o))
			return -1;
	if (nc_wait_gpus(e, "the warm-up"))
		return -1;
	if (e->p->graph && (capture(e, o) || nc_wait_gpus(e, "the graph upload")))
		rc = -1;
	/*
	 * Every rank starts its timed loops together, as nccl-tests' barrier does:
	 * after the capture, whose host time differs from rank to rank and would
	 * otherwise land in the first timed operation of the ranks that waited.
	 */
	if (!rc && e->world && gb_mpi_barrier(e->world, "the timed loop", err, sizeof(err))) {
		gb_bench_set_status(e->res, GB_STATUS_ERROR, "%s", err);
		gb_nccl_comms_abort(&e->comms);
		rc = -1;
	}
	for (size_t s = 0; s < n && !rc; s++)
		rc = timed_sample(e, o, &t[s]);
	drop_graphs(e);
	if (!rc)
		gb_nccl_row_samples(row, t, n);
	return rc;
}

#endif
