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
 */
#include "nccl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "nccl_math.h"

#if GPUBENCH_HAVE_NCCL

#include "copy_math.h"

#include <cuda_runtime_api.h>

#include "../kernels/kernels.h"
#include "../report/json_util.h"
#include "gpu.h"
#include "nccl_comm.h"
#include "nccl_dl.h"
#include "telemetry.h"

/* Telemetry while the sweep runs: often enough for a group of a few tenths of a second. */
#define TELEMETRY_INTERVAL_S 0.1

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

/* One local GPU: one rank of the communicator. */
struct gpu {
	int dev; /* CUDA index */
	int rank;
	cudaStream_t stream;
	cudaEvent_t start, stop, done;
	cudaEvent_t mark[GB_NCCL_MARKS]; /* progress: one after each operation posted */
	uint64_t marked;		 /* operations marked so far */
	char *send, *recv; /* e->span bytes each: the slices operations rotate over */
	unsigned long long *nwrong; /* device counter of the correctness pass */
	cudaGraph_t graph;
	cudaGraphExec_t exec;
};

struct engine {
	const struct gb_nccl_params *p;
	struct gb_bench_result *res;
	struct gb_ctx *ctx;
	const struct gb_mpi_world *world; /* NULL: one process */
	const char *host;
	struct gpu *g;
	int n; /* local GPUs */
	int nranks;
	struct gb_nccl_comms comms; /* the communicators of the local GPUs, e->g's order */
	uint64_t span; /* bytes of each send and receive buffer */
	uint64_t sizes[GB_NCCL_SWEEP_MAX];
	size_t n_sizes;
	struct gb_sampler *sampler; /* NULL without NVML */
	cJSON *telemetry;	    /* extra.telemetry: one entry per group and GPU */
	struct gb_nccl_row *rows;
	size_t n_rows, cap_rows;
	bool capturing; /* the streams are being captured into graphs: no progress marks */
	bool timing;    /* in a timed loop: progress marks only on large operations */
};

/*
 * The smallest operation (bytes sent per rank) that a timed loop marks: from
 * here an operation takes tens of microseconds on any link, so the microsecond
 * of host time an event record costs hides behind the GPU's work. Smaller
 * ones (the latency end of the sweep) are timed exactly as nccl-tests times
 * them; a hang there is named by the first rank still busy.
 */
#define GB_NCCL_MARK_MIN_BYTES (1u << 20)

/* One point of the sweep. */
struct op {
	enum gb_nccl_coll coll;
	enum gb_nccl_dtype dtype;
	int redop; /* -1 for collectives that do not reduce */
	int root;  /* -1 for collectives without a root */
	bool inplace;
	struct gb_nccl_shape shape;
	struct gb_nccl_rotation rot;
	uint64_t turn; /* operations posted at this point so far: picks the next slice */
	uint64_t seed;
};

/* ---- errors and waits ---- */

static bool nccl_ok(ncclResult_t r)
{
	return r == ncclSuccess || r == ncclInProgress;
}

/*
 * Set the benchmark ERROR for a failed CUDA call on g and abort the
 * communicators: after a failure they may be stuck mid-operation, and only
 * an abort cannot hang.
 */
static int cuda_fail(struct engine *e, const struct gpu *g, cudaError_t c, const char *what)
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
static int wait_gpus(struct engine *e, const char *what)
{
	double start = gb_now_s(), deadline = start + e->p->timeout_s;
	int incomplete[GB_DEVICE_LIST_MAX];
	cudaError_t c;

	for (int i = 0; i < e->n; i++) {
		if ((c = cudaSetDevice(e->g[i].dev)) != cudaSuccess ||
		    (c = cudaEventRecord(e->g[i].done, e->g[i].stream)) != cudaSuccess)
			return cuda_fail(e, &e->g[i], c, "cudaEventRecord");
	}
	for (;;) {
		int busy = -1;

		for (int i = 0; i < e->n; i++) {
			c = cudaEventQuery(e->g[i].done);
			if (c == cudaErrorNotReady)
				busy = busy < 0 ? i : busy;
			else if (c != cudaSuccess)
				return cuda_fail(e, &e->g[i], c, what);
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
static uint64_t point_bytes(const struct gb_nccl_shape *s, enum gb_nccl_dtype t)
{
	uint64_t big = s->send_count > s->recv_count ? s->send_count : s->recv_count;

	return big * gb_nccl_dtype_size(t);
}

/* The largest buffer any point of the sweep needs, per GPU. */
static uint64_t largest_point(const struct engine *e)
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
				if (point_bytes(&s, t) > most)
					most = point_bytes(&s, t);
			}
		}
	}
	return most;
}

/* The largest L2 of the local GPUs, NAN when none is known. */
static double largest_l2(const struct engine *e)
{
	double l2 = NAN;

	for (int i = 0; i < e->n; i++) {
		const struct gb_device_info *d = gb_run_find_device(e->ctx->run, e->g[i].dev);

		if (d && d->l2_bytes > 0 && !(d->l2_bytes <= l2))
			l2 = d->l2_bytes;
	}
	return l2;
}

static int alloc_gpu(struct engine *e, struct gpu *g)
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

static void free_gpu(struct gpu *g)
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

/* ---- one operation ---- */

/* The buffers of o on g, `offset` bytes into the span (a rotation slice). */
static void op_buffers(const struct gpu *g, const struct op *o, uint64_t offset, char **send,
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
	for (int p = 0; p < e->nranks && nccl_ok(rr); p++) {
		rr = gb_nccl.ncclSend(s + (size_t)p * count * elt, count, t, p, c, g->stream);
		if (nccl_ok(rr))
			rr = gb_nccl.ncclRecv(r + (size_t)p * count * elt, count, t, p, c, g->stream);
	}
	end = gb_nccl.ncclGroupEnd(); /* nested in post()'s group: it only closes this level */
	return nccl_ok(rr) ? end : rr;
}

static ncclResult_t post_one(const struct engine *e, int i, const struct op *o, uint64_t offset)
{
	const struct gpu *g = &e->g[i];
	ncclComm_t c = e->comms.comm[i];
	ncclDataType_t t = nccl_types[o->dtype];
	ncclRedOp_t op = o->redop >= 0 ? nccl_ops[o->redop] : ncclSum;
	size_t n = o->shape.param_count;
	char *s, *r;

	op_buffers(g, o, offset, &s, &r);
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
			return cuda_fail(e, g, c, "cudaEventRecord");
		g->marked++;
	}
	return 0;
}

/* Enqueue one operation on every local GPU as one group, `offset` bytes into the buffers. */
static int post_at(struct engine *e, const struct op *o, uint64_t offset)
{
	ncclResult_t r = ncclSuccess;
	int failed = -1;

	gb_nccl.ncclGroupStart();
	for (int i = 0; i < e->n && failed < 0; i++) {
		r = post_one(e, i, o, offset);
		if (!nccl_ok(r))
			failed = i;
	}
	if (gb_nccl_comms_end_group(&e->comms, failed, r, false, gb_nccl_coll_names[o->coll]))
		return -1;
	return mark_all(e, o);
}

/* Enqueue the next operation of the timed or warm-up loops, on the next slice. */
static int post(struct engine *e, struct op *o)
{
	return post_at(e, o, gb_nccl_rotation_offset(&o->rot, o->turn++));
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
			rc = cuda_fail(e, &e->g[began], c, "cudaStreamBeginCapture");
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
			rc = cuda_fail(e, &e->g[i], c, "cudaStreamEndCapture");
	}
	for (int i = 0; i < e->n && !rc; i++) {
		cudaSetDevice(e->g[i].dev);
		c = cudaGraphInstantiate(&e->g[i].exec, e->g[i].graph, 0);
		if (c != cudaSuccess) {
			rc = cuda_fail(e, &e->g[i], c, "cudaGraphInstantiate");
			break;
		}
		/* a graph's first launch would otherwise upload it inside the timed events */
		c = cudaGraphUpload(e->g[i].exec, e->g[i].stream);
		if (c != cudaSuccess)
			rc = cuda_fail(e, &e->g[i], c, "cudaGraphUpload");
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

	if (timed_loop(e, o) || wait_gpus(e, "the timed loop"))
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
static int time_op(struct engine *e, struct op *o, struct gb_nccl_row *row)
{
	double t[GB_NCCL_SAMPLES_MAX];
	size_t n = (size_t)e->p->samples;
	char err[512];
	int rc = 0;

	for (int64_t k = 0; k < e->p->warmup; k++)
		if (post(e, o))
			return -1;
	if (wait_gpus(e, "the warm-up"))
		return -1;
	if (e->p->graph && (capture(e, o) || wait_gpus(e, "the graph upload")))
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

/* ---- the correctness pass ---- */

static int pattern_redop(const struct op *o)
{
	return gb_nccl_coll_reduces(o->coll) ? o->redop : GB_NCCL_SUM;
}

/* Poison what will be received, then fill what is sent with the predictable data. */
static int prepare(struct engine *e, struct gpu *g, const struct op *o)
{
	size_t elt = gb_nccl_dtype_size(o->dtype);
	char *s, *r;
	int rc = 0;

	op_buffers(g, o, 0, &s, &r);
	GB_CUDA_GOTO(e->res, cudaSetDevice(g->dev), out);
	/* all-ones bytes are NaN in every float type and far from any expected integer */
	if (!o->inplace || o->coll == GB_NCCL_ALLGATHER)
		GB_CUDA_GOTO(e->res,
			     cudaMemsetAsync(g->recv, 0xff, o->shape.recv_count * elt, g->stream),
			     out);
	GB_CUDA_GOTO(e->res,
		     gb_launch_nccl_fill(s, o->shape.send_count, o->dtype, pattern_redop(o),
					 o->seed, g->rank, 0, g->stream),
		     out);
	GB_CUDA_GOTO(e->res, cudaMemsetAsync(g->nwrong, 0, sizeof(*g->nwrong), g->stream), out);
out:
	return rc;
}

/* Reduce defines only the root's output: the others are not checked (as nccl-tests). */
static bool checked_here(const struct gpu *g, const struct op *o)
{
	return o->coll != GB_NCCL_REDUCE || g->rank == o->root;
}

static int verify(struct engine *e, struct gpu *g, const struct op *o)
{
	struct gb_nccl_expect x = {
		.coll = (int)o->coll,
		.redop = pattern_redop(o),
		.dtype = (int)o->dtype,
		.nranks = e->nranks,
		.rank = g->rank,
		.root = o->root >= 0 ? o->root : 0,
		.param_count = o->shape.param_count,
		.seed = o->seed,
	};
	char *s, *r;
	int rc = 0;

	if (!checked_here(g, o))
		return 0;
	op_buffers(g, o, 0, &s, &r);
	GB_CUDA_GOTO(e->res, cudaSetDevice(g->dev), out);
	GB_CUDA_GOTO(e->res,
		     gb_launch_nccl_verify(r, o->shape.recv_count, 0, &x, g->nwrong, g->stream),
		     out);
out:
	return rc;
}

/* The correctness pass of o: row's nwrong, and the first rank (and GPU) with wrong elements. */
static int check_op(struct engine *e, const struct op *o, struct gb_nccl_row *row)
{
	int64_t *nwrong = &row->nwrong;
	int rc = 0;

	*nwrong = 0;
	for (int i = 0; i < e->n; i++)
		if (prepare(e, &e->g[i], o))
			return -1;
	if (post_at(e, o, 0))
		return -1;
	for (int i = 0; i < e->n; i++)
		if (verify(e, &e->g[i], o))
			return -1;
	if (wait_gpus(e, "the correctness check"))
		return -1;
	for (int i = 0; i < e->n; i++) {
		unsigned long long h = 0;

		if (!checked_here(&e->g[i], o))
			continue;
		GB_CUDA_GOTO(e->res, cudaSetDevice(e->g[i].dev), out);
		/*
		 * On the GPU's own stream, idle since the wait above, so the copy cannot
		 * hang; cudaMemcpy would run on the legacy stream and wait on any
		 * blocking stream of the device, including ones this run does not own.
		 */
		GB_CUDA_GOTO(e->res,
			     cudaMemcpyAsync(&h, e->g[i].nwrong, sizeof(h), cudaMemcpyDeviceToHost,
					     e->g[i].stream),
			     out);
		GB_CUDA_GOTO(e->res, cudaStreamSynchronize(e->g[i].stream), out);
		*nwrong += (int64_t)h;
		/* local ranks are in rank order: the first with wrong elements is the lowest */
		if (h && row->wrong_rank < 0) {
			row->wrong_rank = e->g[i].rank;
			row->wrong_gpu = e->g[i].dev;
		}
	}
out:
	return rc;
}

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
	gb_nccl_rotation_of(point_bytes(&o->shape, o->dtype), e->span, &o->rot);
	o->turn = 0;
	if (gb_nccl_noop(o->coll, o->dtype, o->redop, e->nranks, o->inplace))
		gb_nccl_row_samples(&row, NULL, 0); /* nothing to time: only checked */
	else if (time_op(e, o, &row))
		return -1;
	if (check_op(e, o, &row))
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
		e->span = gb_nccl_rotation_span(largest_point(e), largest_l2(e));
	for (int i = 0; i < e->n && !rc; i++)
		rc = alloc_gpu(e, &e->g[i]);
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
static int engine_run(struct engine *e, int first_rank, const unsigned char *id)
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
		free_gpu(&e->g[i]);
	free(e->g);
	e->g = NULL;
	return rc;
}

static void engine_init(struct engine *e, struct gb_ctx *ctx, const void *params,
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
static void engine_finish(struct engine *e)
{
	if (e->telemetry && cJSON_GetArraySize(e->telemetry) > 0)
		cJSON_AddItemToObject(gb_bench_extra(e->res), "telemetry", e->telemetry);
	else
		cJSON_Delete(e->telemetry);
	e->telemetry = NULL;
	free(e->rows);
	e->rows = NULL;
}

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

	engine_init(&e, ctx, params, res, NULL);
	if (gb_nccl_load(NULL, err, sizeof(err)) || gb_nccl_unique_id(id, err, sizeof(err))) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "%s", err);
		return -1;
	}
	gb_nccl_record_params(res, params, e.nranks);
	rc = engine_run(&e, 0, id);
	theory = local_theory(ctx, basis, sizeof(basis));
	gb_nccl_fill_result(res, e.rows, e.n_rows, e.nranks, theory, basis);
	engine_finish(&e);
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
	engine_init(&e, ctx, params, res, w);
	gb_nccl_record_params(res, params, e.nranks);
	rc = engine_run(&e, w->rank, id);
	/* this rank's own view; rank 0 recomputes the whole from every rank's rows */
	gb_nccl_fill_result(res, e.rows, e.n_rows, e.nranks, NAN, NULL);
	engine_finish(&e);
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
