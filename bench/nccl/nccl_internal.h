/* SPDX-License-Identifier: MIT */
/*
 * nccl_internal.h - private to the files of `gpubench nccl` (bench/nccl*.c
 * but nccl_math.c, nccl_comm.c and nccl_dl.c): the state of a run (the
 * engine, its local GPUs, a point of the sweep) and the functions one of
 * those files calls in another. bench/nccl/nccl.c says how a run goes; no other
 * file includes this one. Without NCCL it declares nothing more than
 * bench/nccl/nccl.h.
 */
#ifndef GPUBENCH_BENCH_NCCL_INTERNAL_H
#define GPUBENCH_BENCH_NCCL_INTERNAL_H

#include "bench/nccl/nccl.h"

#if GPUBENCH_HAVE_NCCL

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench/device/nccl_comm.h"
#include "bench/nccl/nccl_math.h"
#include "bench/device/telemetry.h"

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

/* ---- the local ranks (nccl_ranks.c): errors, bounded waits, buffers ---- */

bool nc_nccl_ok(ncclResult_t r);
int nc_cuda_fail(struct engine *e, const struct gpu *g, cudaError_t c, const char *what);
int nc_wait_gpus(struct engine *e, const char *what);
uint64_t nc_point_bytes(const struct gb_nccl_shape *s, enum gb_nccl_dtype t);
uint64_t nc_largest_point(const struct engine *e);
double nc_largest_l2(const struct engine *e);
int nc_alloc_gpu(struct engine *e, struct gpu *g);
void nc_free_gpu(struct gpu *g);

/* ---- one operation and its timing (nccl_timing.c) ---- */

void nc_op_buffers(const struct gpu *g, const struct op *o, uint64_t offset, char **send,
		   char **recv);
int nc_post_at(struct engine *e, const struct op *o, uint64_t offset);
int nc_time_op(struct engine *e, struct op *o, struct gb_nccl_row *row);

/* ---- the correctness pass (nccl_verify.c) ---- */

int nc_check_op(struct engine *e, const struct op *o, struct gb_nccl_row *row);

/* ---- the sweep and a whole run (nccl_sweep.c) ---- */

int nc_engine_run(struct engine *e, int first_rank, const unsigned char *id);
void nc_engine_init(struct engine *e, struct gb_ctx *ctx, const void *params,
		    struct gb_bench_result *res, const struct gb_mpi_world *w);
void nc_engine_finish(struct engine *e);

#endif /* GPUBENCH_HAVE_NCCL */
#endif
