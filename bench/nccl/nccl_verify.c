/* SPDX-License-Identifier: MIT */
/*
 * nccl_verify.c - the correctness pass of `gpubench nccl`, apart from the
 * timing as in nccl-tests: send buffers filled with predictable data,
 * receive buffers poisoned, one operation, and the wrong elements counted on
 * the device; the lowest rank with any is named. Uses CUDA, the fill and
 * check kernels and bench/nccl/nccl_internal.h; never prints, never exits.
 */
#include "bench/nccl/nccl_internal.h"

#if GPUBENCH_HAVE_NCCL

#include "bench/device/gpu.h"
#include "kernels/kernels.h"

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

	nc_op_buffers(g, o, 0, &s, &r);
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
	nc_op_buffers(g, o, 0, &s, &r);
	GB_CUDA_GOTO(e->res, cudaSetDevice(g->dev), out);
	GB_CUDA_GOTO(e->res,
		     gb_launch_nccl_verify(r, o->shape.recv_count, 0, &x, g->nwrong, g->stream),
		     out);
out:
	return rc;
}

/* The correctness pass of o: row's nwrong, and the first rank (and GPU) with wrong elements. */
int nc_check_op(struct engine *e, const struct op *o, struct gb_nccl_row *row)
{
	int64_t *nwrong = &row->nwrong;
	int rc = 0;

	*nwrong = 0;
	for (int i = 0; i < e->n; i++)
		if (prepare(e, &e->g[i], o))
			return -1;
	if (nc_post_at(e, o, 0))
		return -1;
	for (int i = 0; i < e->n; i++)
		if (verify(e, &e->g[i], o))
			return -1;
	if (nc_wait_gpus(e, "the correctness check"))
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

#endif
