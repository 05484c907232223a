/* SPDX-License-Identifier: MIT */
/*
 * nccl.c - `gpubench nccl`: NCCL collectives over a size sweep, timed and
 * checked the way nccl-tests does it, so the numbers compare directly.
 *
 * Shape of a run (nccl-tests' TimeTest): for every collective, type,
 * operator and size, out-of-place then in-place: `warmup` untimed
 * operations, then `iters` operations between CUDA events on every GPU's
 * stream (or one CUDA graph of them, --graph), time per operation = the
 * slowest GPU's elapsed / iters. Then, separately, a correctness pass:
 * fill the send buffers with predictable data, poison the receive
 * buffers, run once, and count wrong elements on the device.
 *
 * Local GPUs are driven from this one thread as one communicator with
 * grouped calls. Communicators are non-blocking (NCCL 2.14+): every wait
 * polls ncclCommGetAsyncError and the CUDA events against --timeout, so a
 * rank that died or a hung link ends in an error naming rank and GPU
 * (after ncclCommAbort), never in a process that waits forever.
 */
#include "nccl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nccl_math.h"

#if GPUBENCH_HAVE_NCCL

#include "copy_math.h"

#include <cuda_runtime_api.h>

#include "../kernels/kernels.h"
#include "gpu.h"
#include "nccl_dl.h"

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
	ncclComm_t comm;
	cudaStream_t stream;
	cudaEvent_t start, stop, done;
	char *send, *recv;
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
	size_t send_bytes, recv_bytes; /* per GPU, the largest any point needs */
	uint64_t sizes[GB_NCCL_SWEEP_MAX];
	size_t n_sizes;
	struct gb_nccl_row *rows;
	size_t n_rows, cap_rows;
};

/* One point of the sweep. */
struct op {
	enum gb_nccl_coll coll;
	enum gb_nccl_dtype dtype;
	int redop; /* -1 for collectives that do not reduce */
	int root;  /* -1 for collectives without a root */
	bool inplace;
	struct gb_nccl_shape shape;
	uint64_t seed;
};

/* ---- errors and waits ---- */

static void nap(void)
{
	struct timespec ts = { 0, 50000 }; /* 50 us: short next to any timed loop */

	nanosleep(&ts, NULL);
}

static bool nccl_ok(ncclResult_t r)
{
	return r == ncclSuccess || r == ncclInProgress;
}

static void abort_comms(struct engine *e);

/*
 * Set the benchmark ERROR for a failed NCCL call on g (NULL: no GPU in
 * particular) and abort the communicators: after a failure they may be
 * stuck mid-operation, and only an abort cannot hang.
 */
static int nccl_fail(struct engine *e, const struct gpu *g, ncclResult_t r, const char *what)
{
	const char *last = gb_nccl_last_error(g ? g->comm : NULL);

	if (g)
		gb_bench_set_status(e->res, GB_STATUS_ERROR,
				    "'%s' failed on rank %d (GPU %d%s%s): %s%s%s", what, g->rank,
				    g->dev, e->host ? ", host " : "", e->host ? e->host : "",
				    gb_nccl.ncclGetErrorString(r), *last ? ": " : "", last);
	else
		gb_bench_set_status(e->res, GB_STATUS_ERROR, "'%s' failed: %s%s%s", what,
				    gb_nccl.ncclGetErrorString(r), *last ? ": " : "", last);
	abort_comms(e);
	return -1;
}

/* The same for a CUDA call on g. */
static int cuda_fail(struct engine *e, const struct gpu *g, cudaError_t c, const char *what)
{
	char b[160];

	gb_bench_set_status(e->res, GB_STATUS_ERROR, "'%s' failed on rank %d (GPU %d): %s", what,
			    g->rank, g->dev, gb_cuda_errstr(c, b, sizeof(b)));
	abort_comms(e);
	return -1;
}

static void abort_comms(struct engine *e)
{
	for (int i = 0; i < e->n; i++) {
		if (e->g[i].comm)
			gb_nccl.ncclCommAbort(e->g[i].comm);
		e->g[i].comm = NULL;
	}
}

static int timed_out(struct engine *e, const struct gpu *g, const char *what)
{
	gb_bench_set_status(e->res, GB_STATUS_ERROR,
			    "%s did not finish within %g s on rank %d (GPU %d%s%s): a rank stopped "
			    "answering or a link hangs",
			    what, e->p->timeout_s, g->rank, g->dev, e->host ? ", host " : "",
			    e->host ? e->host : "");
	abort_comms(e);
	return -1;
}

/* An asynchronous NCCL error on any comm: 1 still in progress, 0 idle, -1 error (set). */
static int comm_state(struct engine *e, struct gpu *g, const char *what)
{
	ncclResult_t a = ncclSuccess, r;

	if (!g->comm)
		return 0;
	r = gb_nccl.ncclCommGetAsyncError(g->comm, &a);
	if (r != ncclSuccess)
		a = r;
	if (a == ncclInProgress)
		return 1;
	return a == ncclSuccess ? 0 : nccl_fail(e, g, a, what);
}

/* Wait, up to --timeout, until no comm has a non-blocking call in progress. */
static int wait_comms(struct engine *e, const char *what)
{
	double deadline = gb_now_s() + e->p->timeout_s;

	for (;;) {
		int busy = -1;

		for (int i = 0; i < e->n; i++) {
			int st = comm_state(e, &e->g[i], what);

			if (st < 0)
				return -1;
			if (st > 0 && busy < 0)
				busy = i;
		}
		if (busy < 0)
			return 0;
		if (gb_now_s() > deadline)
			return timed_out(e, &e->g[busy], what);
		nap();
	}
}

/* Wait, up to --timeout, until every GPU's stream has drained (polling, never blocking). */
static int wait_gpus(struct engine *e, const char *what)
{
	double deadline = gb_now_s() + e->p->timeout_s;
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
			if (comm_state(e, &e->g[i], what) < 0)
				return -1;
		}
		if (busy < 0)
			return 0;
		if (gb_now_s() > deadline)
			return timed_out(e, &e->g[busy], what);
		nap();
	}
}

/* ---- set-up and tear-down ---- */

/* The largest send and receive buffer any point of the sweep needs, per GPU. */
static void buffer_sizes(struct engine *e)
{
	e->send_bytes = e->recv_bytes = 16;
	for (int c = 0; c < GB_NCCL_COLL_COUNT; c++) {
		for (int t = 0; t < GB_NCCL_DTYPE_COUNT; t++) {
			size_t elt = gb_nccl_dtype_size(t);

			if (!(e->p->colls & (1u << c)) || !(e->p->dtypes & (1u << t)))
				continue;
			for (size_t i = 0; i < e->n_sizes; i++) {
				struct gb_nccl_shape s;

				if (gb_nccl_shape_of(c, e->sizes[i], t, e->nranks, &s))
					continue;
				if (s.send_count * elt > e->send_bytes)
					e->send_bytes = s.send_count * elt;
				if (s.recv_count * elt > e->recv_bytes)
					e->recv_bytes = s.recv_count * elt;
			}
		}
	}
}

static int alloc_gpu(struct engine *e, struct gpu *g)
{
	int rc = 0;

	GB_CUDA_GOTO(e->res, cudaSetDevice(g->dev), out);
	GB_CUDA_GOTO(e->res, cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), out);
	GB_CUDA_GOTO(e->res, cudaEventCreate(&g->start), out);
	GB_CUDA_GOTO(e->res, cudaEventCreate(&g->stop), out);
	GB_CUDA_GOTO(e->res, cudaEventCreateWithFlags(&g->done, cudaEventDisableTiming), out);
	GB_CUDA_GOTO(e->res, cudaMalloc((void **)&g->send, e->send_bytes), out);
	GB_CUDA_GOTO(e->res, cudaMalloc((void **)&g->recv, e->recv_bytes), out);
	GB_CUDA_GOTO(e->res, cudaMalloc((void **)&g->nwrong, sizeof(*g->nwrong)), out);
	/* never time zeros: fill both buffers once with the pattern */
	GB_CUDA_GOTO(e->res,
		     gb_launch_nccl_fill(g->send, e->send_bytes, GB_NCCL_UINT8, GB_NCCL_SUM, 0,
					 g->rank, 0, g->stream),
		     out);
	GB_CUDA_GOTO(e->res,
		     gb_launch_nccl_fill(g->recv, e->recv_bytes, GB_NCCL_UINT8, GB_NCCL_SUM, 1,
					 g->rank, 0, g->stream),
		     out);
out:
	return rc;
}

static int init_comms(struct engine *e, const unsigned char *id_bytes)
{
	ncclUniqueId id;
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	ncclResult_t r = ncclSuccess, end;
	int rc = 0, failed = -1;

	memcpy(&id, id_bytes, sizeof(id));
	cfg.blocking = 0; /* every wait is ours to bound */
	gb_nccl.ncclGroupStart();
	for (int i = 0; i < e->n && failed < 0; i++) {
		GB_CUDA_GOTO(e->res, cudaSetDevice(e->g[i].dev), end_group);
		r = gb_nccl.ncclCommInitRankConfig(&e->g[i].comm, e->nranks, id, e->g[i].rank,
						   &cfg);
		if (!nccl_ok(r))
			failed = i;
	}
end_group:
	end = gb_nccl.ncclGroupEnd();
	if (rc)
		return rc;
	if (failed >= 0)
		return nccl_fail(e, &e->g[failed], r, "ncclCommInitRankConfig");
	if (!nccl_ok(end))
		return nccl_fail(e, NULL, end, "ncclGroupEnd");
	return wait_comms(e, "ncclCommInitRankConfig");
}

static void destroy_comms(struct engine *e, bool clean)
{
	if (clean && gb_nccl.ncclCommFinalize) {
		/* finalize flushes outstanding work and leaves peers in a clean state */
		for (int i = 0; i < e->n; i++)
			if (e->g[i].comm && !nccl_ok(gb_nccl.ncclCommFinalize(e->g[i].comm)))
				clean = false;
		if (clean && wait_comms(e, "ncclCommFinalize"))
			clean = false;
	}
	if (!clean) {
		abort_comms(e);
		return;
	}
	for (int i = 0; i < e->n; i++)
		if (e->g[i].comm)
			gb_nccl.ncclCommDestroy(e->g[i].comm);
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

static void op_buffers(const struct gpu *g, const struct op *o, char **send, char **recv)
{
	size_t elt = gb_nccl_dtype_size(o->dtype);

	*send = g->send;
	*recv = g->recv;
	if (!o->inplace)
		return;
	switch (o->coll) {
	case GB_NCCL_ALLGATHER: /* this rank's chunk of the output is its input */
		*send = g->recv + (size_t)g->rank * o->shape.inplace_send_offset * elt;
		break;
	case GB_NCCL_REDUCESCATTER: /* the output is this rank's chunk of the input */
		*recv = g->send + (size_t)g->rank * o->shape.inplace_recv_offset * elt;
		break;
	default:
		*send = g->recv;
		break;
	}
}

static ncclResult_t alltoall(const struct engine *e, const struct gpu *g, const char *s, char *r,
			     size_t count, ncclDataType_t t, size_t elt)
{
	ncclResult_t rr = ncclSuccess, end;

	if (gb_nccl.ncclAlltoAll)
		return gb_nccl.ncclAlltoAll(s, r, count, t, g->comm, g->stream);
	/* before NCCL 2.28: NCCL's documented all-to-all, a send and a receive per peer */
	gb_nccl.ncclGroupStart();
	for (int p = 0; p < e->nranks && nccl_ok(rr); p++) {
		rr = gb_nccl.ncclSend(s + (size_t)p * count * elt, count, t, p, g->comm, g->stream);
		if (nccl_ok(rr))
			rr = gb_nccl.ncclRecv(r + (size_t)p * count * elt, count, t, p, g->comm,
					      g->stream);
	}
	end = gb_nccl.ncclGroupEnd();
	return nccl_ok(rr) ? end : rr;
}

static ncclResult_t post_one(const struct engine *e, const struct gpu *g, const struct op *o)
{
	ncclDataType_t t = nccl_types[o->dtype];
	ncclRedOp_t op = o->redop >= 0 ? nccl_ops[o->redop] : ncclSum;
	size_t n = o->shape.param_count;
	char *s, *r;

	op_buffers(g, o, &s, &r);
	switch (o->coll) {
	case GB_NCCL_ALLREDUCE:
		return gb_nccl.ncclAllReduce(s, r, n, t, op, g->comm, g->stream);
	case GB_NCCL_ALLGATHER:
		return gb_nccl.ncclAllGather(s, r, n, t, g->comm, g->stream);
	case GB_NCCL_REDUCESCATTER:
		return gb_nccl.ncclReduceScatter(s, r, n, t, op, g->comm, g->stream);
	case GB_NCCL_BROADCAST:
		return gb_nccl.ncclBroadcast(s, r, n, t, o->root, g->comm, g->stream);
	case GB_NCCL_REDUCE:
		return gb_nccl.ncclReduce(s, r, n, t, op, o->root, g->comm, g->stream);
	case GB_NCCL_ALLTOALL:
		return alltoall(e, g, s, r, n, t, gb_nccl_dtype_size(o->dtype));
	default:
		return ncclInvalidArgument;
	}
}

/* Enqueue one operation on every local GPU as one group. */
static int post(struct engine *e, const struct op *o)
{
	ncclResult_t r = ncclSuccess, end;
	int failed = -1;

	gb_nccl.ncclGroupStart();
	for (int i = 0; i < e->n && failed < 0; i++) {
		r = post_one(e, &e->g[i], o);
		if (!nccl_ok(r))
			failed = i;
	}
	end = gb_nccl.ncclGroupEnd(); /* a group is always closed, even after a failure */
	if (failed >= 0)
		return nccl_fail(e, &e->g[failed], r, gb_nccl_coll_names[o->coll]);
	if (!nccl_ok(end))
		return nccl_fail(e, NULL, end, "ncclGroupEnd");
	return end == ncclInProgress ? wait_comms(e, gb_nccl_coll_names[o->coll]) : 0;
}

/* ---- timing ---- */

/* Capture --iters operations on every GPU's stream into one graph per GPU. */
static int capture(struct engine *e, const struct op *o)
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
	for (int64_t k = 0; k < e->p->iters && !rc; k++)
		rc = post(e, o);
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

/* The timed operations between the start and stop events of every GPU. */
static int timed_loop(struct engine *e, const struct op *o)
{
	int rc = 0;

	for (int i = 0; i < e->n; i++) {
		GB_CUDA_GOTO(e->res, cudaSetDevice(e->g[i].dev), out);
		GB_CUDA_GOTO(e->res, cudaEventRecord(e->g[i].start, e->g[i].stream), out);
	}
	if (e->p->graph) {
		for (int i = 0; i < e->n; i++) {
			GB_CUDA_GOTO(e->res, cudaSetDevice(e->g[i].dev), out);
			GB_CUDA_GOTO(e->res, cudaGraphLaunch(e->g[i].exec, e->g[i].stream), out);
		}
	} else {
		for (int64_t k = 0; k < e->p->iters; k++)
			if (post(e, o))
				return -1;
	}
	for (int i = 0; i < e->n; i++) {
		GB_CUDA_GOTO(e->res, cudaSetDevice(e->g[i].dev), out);
		GB_CUDA_GOTO(e->res, cudaEventRecord(e->g[i].stop, e->g[i].stream), out);
	}
out:
	return rc;
}

/* Time per operation in us: the slowest local GPU's events over --iters. */
static int time_op(struct engine *e, const struct op *o, double *time_us)
{
	char err[512];
	float worst = 0;
	int rc = 0;

	for (int64_t k = 0; k < e->p->warmup; k++)
		if (post(e, o))
			return -1;
	if (wait_gpus(e, "the warm-up"))
		return -1;
	if (e->p->graph && (capture(e, o) || wait_gpus(e, "the graph upload")))
		goto out_err;
	/*
	 * Every rank starts its timed loop together, as nccl-tests' barrier does:
	 * after the capture, whose host time differs from rank to rank and would
	 * otherwise land in the first timed operation of the ranks that waited.
	 */
	if (e->world && gb_mpi_barrier(e->world, "the timed loop", err, sizeof(err))) {
		gb_bench_set_status(e->res, GB_STATUS_ERROR, "%s", err);
		abort_comms(e);
		goto out_err;
	}
	if (timed_loop(e, o) || wait_gpus(e, "the timed loop"))
		goto out_err;
	for (int i = 0; i < e->n; i++) {
		float ms = 0;

		GB_CUDA_GOTO(e->res, cudaEventElapsedTime(&ms, e->g[i].start, e->g[i].stop), out);
		worst = ms > worst ? ms : worst;
	}
	*time_us = (double)worst * 1e3 / (double)e->p->iters;
out:
	drop_graphs(e);
	return rc;
out_err:
	drop_graphs(e);
	return -1;
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

	op_buffers(g, o, &s, &r);
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
	op_buffers(g, o, &s, &r);
	GB_CUDA_GOTO(e->res, cudaSetDevice(g->dev), out);
	GB_CUDA_GOTO(e->res,
		     gb_launch_nccl_verify(r, o->shape.recv_count, 0, &x, g->nwrong, g->stream),
		     out);
out:
	return rc;
}

static int check_op(struct engine *e, const struct op *o, int64_t *nwrong)
{
	int rc = 0;

	*nwrong = 0;
	for (int i = 0; i < e->n; i++)
		if (prepare(e, &e->g[i], o))
			return -1;
	if (post(e, o))
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

static int run_point(struct engine *e, const struct op *o)
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
	if (time_op(e, o, &row.time_us) || check_op(e, o, &row.nwrong))
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

/* Every size, out-of-place then in-place, of one collective, type and operator. */
static int sweep_group(struct engine *e, struct op *o)
{
	char lo[32], hi[32];

	gb_format_bytes(lo, sizeof(lo), (double)e->sizes[0]);
	gb_format_bytes(hi, sizeof(hi), (double)e->sizes[e->n_sizes - 1]);
	gb_progress(e->ctx, "nccl: %s %s%s%s, %d ranks, %s to %s", gb_nccl_coll_names[o->coll],
		    gb_nccl_dtype_names[o->dtype], o->redop >= 0 ? " " : "",
		    o->redop >= 0 ? gb_nccl_redop_names[o->redop] : "", e->nranks, lo, hi);
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
			.root = gb_nccl_coll_rooted(c) ? (int)e->p->root : -1,
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
	if (rooted && e->p->root >= e->nranks) {
		gb_bench_set_status(e->res, GB_STATUS_ERROR,
				    "--root %lld is not a rank: this run has %d (0..%d)",
				    (long long)e->p->root, e->nranks, e->nranks - 1);
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

/*
 * Run the sweep on e->n local GPUs that are ranks first_rank.. of e->nranks,
 * joining the communicator of id. Rows land in e->rows.
 */
static int engine_run(struct engine *e, int first_rank, const unsigned char *id)
{
	int rc;

	e->g = calloc((size_t)e->n, sizeof(*e->g));
	if (!e->g) {
		gb_bench_set_status(e->res, GB_STATUS_ERROR, "out of host memory");
		return -1;
	}
	/* an error an earlier step tolerated must not surface in the first kernel launch */
	cudaGetLastError();
	for (int i = 0; i < e->n; i++) {
		e->g[i].dev = e->ctx->devices[i];
		e->g[i].rank = first_rank + i;
	}
	rc = engine_check(e);
	if (!rc)
		buffer_sizes(e);
	for (int i = 0; i < e->n && !rc; i++)
		rc = alloc_gpu(e, &e->g[i]);
	if (!rc)
		rc = init_comms(e, id);
	if (!rc)
		rc = sweep(e);
	destroy_comms(e, rc == 0);
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
	free(e.rows);
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
	free(e.rows);
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
	gb_bench_param_num(res, "warmup", (double)p->warmup);
	gb_bench_param_num(res, "root", (double)p->root);
	gb_bench_param_bool(res, "out_of_place", gb_nccl_want_outofplace(p));
	gb_bench_param_bool(res, "in_place", gb_nccl_want_inplace(p));
	gb_bench_param_bool(res, "graph", p->graph);
	gb_bench_param_num(res, "timeout_s", p->timeout_s);
	gb_bench_param_num(res, "nranks", nranks);
	gb_bench_param_str(res, "timing",
			   "CUDA events around iters operations; time = slowest "
			   "GPU / iters (nccl-tests' per-operation time)");
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
		 "[--dtype LIST] [--redop LIST] [--iters N] [--warmup N] [--inplace|--outofplace] "
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
