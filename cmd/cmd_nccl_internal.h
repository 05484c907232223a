/* SPDX-License-Identifier: MIT */
/*
 * cmd_nccl_internal.h - what cmd_nccl.c (options, the one-process and the
 * MPI world flows) and cmd_nccl_merge.c (rank 0's one report from every
 * rank's) share.
 * May use: cmd/ headers, bench/device/mpi_world.h, bench/nccl/nccl_math.h, report/ headers.
 */
#ifndef GPUBENCH_CMD_NCCL_INTERNAL_H
#define GPUBENCH_CMD_NCCL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "bench/device/mpi_world.h"
#include "bench/nccl/nccl_math.h"
#include "cmd/cmd.h"
#include "cmd/launcher.h"

struct nccl_cmd {
	struct gb_common common;
	void *params;
	struct gb_launcher launch;
};

/* What every rank tells rank 0 before anything runs (same binary everywhere: raw bytes). */
struct hello {
	int32_t ready;
	int32_t local_rank;
	int32_t device; /* CUDA index this rank uses, -1 none */
	int32_t pid;
	char host[128];
	char pci[32];
	char uuid[64];
	char gpu[96];
	char reason[512]; /* why not ready */
};

struct world_run {
	struct nccl_cmd *nc;
	struct gb_mpi_world w;
	struct gb_run local; /* this rank's own report */
	struct hello me;
	int device;
};

struct merge {
	struct world_run *wr;
	const struct gb_mpi_parts *hellos, *frags;
	struct gb_run *runs; /* every rank's report, parsed; runs[r].command NULL if none */
	char **unreadable;   /* why rank r's report could not be read, NULL if it could */
	int n;
	char no_answer[96];
};

/* cmd_nccl.c */
struct gb_nccl_row *rows_of(const struct gb_bench_result *b, size_t *n);
void rank_label(char *buf, size_t len, int r, const struct hello *h);
const struct hello *hello_of(const struct gb_mpi_parts *p, int r);

/* cmd_nccl_merge.c: rank 0 merges every rank's report into final */
void merge(struct merge *m, struct gb_run *final);

#endif
