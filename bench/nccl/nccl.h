/* SPDX-License-Identifier: MIT */
/*
 * nccl.h - `gpubench nccl` beyond the gb_bench interface: what cmd/cmd_nccl.c
 * needs to run one rank of a job started by mpirun or srun.
 *
 * gb_bench_nccl.run() is the one-process form: one process drives every
 * selected local GPU as one communicator with grouped calls (this is what
 * `gpubench run` uses). With several processes each rank drives one GPU:
 * cmd/ sets up the world (bench/device/mpi_world.h), has rank 0 make the NCCL id
 * with gb_nccl_unique_id() and broadcast it, then every rank calls
 * gb_nccl_run_world() and rank 0 merges every rank's result.
 *
 * Built without NCCL these exist too and fail with "gpubench was built
 * without NCCL" (cmd/ checks gb_bench_nccl.unavailable_reason first).
 */
#ifndef GPUBENCH_BENCH_NCCL_H
#define GPUBENCH_BENCH_NCCL_H

#include <stddef.h>

#include "bench/bench.h"
#include "bench/device/mpi_world.h"

/* Size of an ncclUniqueId (NCCL_UNIQUE_ID_BYTES), carried as opaque bytes. */
#define GB_NCCL_ID_BYTES 128

extern const struct gb_bench gb_bench_nccl;

/*
 * Load NCCL (path NULL: "libnccl.so.2"; cmd/ passes GPUBENCH_NCCL_LIBRARY).
 * Once loaded, later calls (and the benchmark's own) are no-ops. 0, or -1
 * with "cannot load NCCL ('libnccl.so.2'): <dlerror>" in err.
 */
int gb_nccl_load(const char *path, char *err, size_t errlen);

/* ncclGetVersion of the loaded library (22809 for 2.28.9), -1 if not loaded. */
int gb_nccl_loaded_version(void);

/* A fresh ncclUniqueId into id (NCCL loaded). 0, or -1 with one line in err. */
int gb_nccl_unique_id(unsigned char id[GB_NCCL_ID_BYTES], char *err, size_t errlen);

/* The parameters of a run into res->params (also for a rank that did not run). */
void gb_nccl_record_params(struct gb_bench_result *res, const void *params, int nranks);

/* The --timeout of parsed params, seconds. */
double gb_nccl_timeout_s(const void *params);

/*
 * One rank of a multi-process run: ctx->devices[0] is this rank's GPU, w
 * says which rank of how many, id is rank 0's ncclUniqueId. Fills res with
 * this rank's rows (its own times and wrong-element counts) in extra.rows;
 * rank 0 combines every rank's rows with gb_nccl_rows_combine() and
 * gb_nccl_fill_result(). Returns 0, or -1 with res set to ERROR.
 */
int gb_nccl_run_world(struct gb_ctx *ctx, const void *params, const struct gb_mpi_world *w,
		      const unsigned char id[GB_NCCL_ID_BYTES], struct gb_bench_result *res);

#endif
