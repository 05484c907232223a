/* SPDX-License-Identifier: MIT */
/*
 * p2p_internal.h - what the files of `gpubench p2p` share: the parsed
 * options, the matrices and how a cell is measured, the run's state, and
 * the functions one of those files calls in another. Private to
 * bench/p2p*.c. It may use the device layer (bench.h, gpu.h) and the copy
 * engine (copy_engine.h); nothing of another benchmark.
 */
#ifndef GPUBENCH_BENCH_P2P_INTERNAL_H
#define GPUBENCH_BENCH_P2P_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "bench/bench.h"
#include "bench/device/copy_engine.h"
#include "bench/device/copy_math.h"
#include "bench/device/gpu.h"

struct p2p_params {
	uint64_t bytes; /* --bytes; 0: not given (DEFAULT_COPY_BYTES) */
	int64_t samples;
	int64_t loops;
	bool latency_only;
	bool no_verify;
	double peer_tol; /* --peer-tolerance: a pair this far below its like pairs' best fails */
};

/* ---- state ---- */

#define SEED_BASE 0xBAADF00DULL
#define SEED_POISON 0xCAFEBABEULL
/* a single copy checked before timing, this many times per path */
#define SINGLE_CHECKS 3
/* pointer chase: nvbandwidth's 2 MiB ring with 128-byte steps */
#define CHASE_BYTES (2u << 20)
#define CHASE_STRIDE 128u
#define CHASE_STEPS 20000ull
/* small-copy latency: the copy size and how many are queued per sample */
#define SMALL_COPY_BYTES GB_COPY_GRAIN
#define SMALL_COPIES 100
/* bytes per bandwidth copy without --bytes */
#define DEFAULT_COPY_BYTES (256ull << 20)
/* P2P within this fraction of staged is noise, not a finding */
#define STAGED_MARGIN 0.05

struct pdev {
	int dev;
	int sm_count;
	const struct gb_device_info *info;
	struct gb_ce_stream cs;    /* its stream, events and view of the shared flag */
	unsigned long long *bad;   /* mismatch counter */
	unsigned long long *sink;  /* pointer-chase result */
	void *src, *dst, *chase;
	uint64_t seed;             /* the pattern of src */
};

enum matrix {
	M_UNI_CE = 0,
	M_UNI_SM,
	M_BIDIR_CE,
	M_BIDIR_SM,
	M_STAGED,
	M_BIDIR_STAGED,
	M_LATENCY,
	M_LATENCY_COPY,
	M_LATENCY_COPY_STAGED,
	M_COUNT
};

static const struct {
	const char *json;  /* key in extra */
	const char *stem;  /* metric name stem */
	const char *unit;  /* "GB/s" or "us" */
	const char *title; /* what a table of it is headed (extra.matrices) */
} matrices[M_COUNT] = {
	[M_UNI_CE] = { "uni_ce_gbps", "uni_ce", "GB/s", "one-way, copy engine, peer access" },
	[M_UNI_SM] = { "uni_sm_gbps", "uni_sm", "GB/s", "one-way, SM copy, peer access" },
	[M_BIDIR_CE] = { "bidir_ce_gbps", "bidir_ce", "GB/s",
			 "two-way sum, copy engine, peer access" },
	[M_BIDIR_SM] = { "bidir_sm_gbps", "bidir_sm", "GB/s", "two-way sum, SM copy, peer access" },
	[M_STAGED] = { "staged_gbps", "staged", "GB/s",
		       "one-way, peer access disabled (staged through the host)" },
	[M_BIDIR_STAGED] = { "bidir_staged_gbps", "bidir_staged", "GB/s",
			     "two-way sum, peer access disabled (staged through the host)" },
	[M_LATENCY] = { "latency_us", "latency", "us", "pointer-chase latency per load" },
	[M_LATENCY_COPY] = { "latency_copy_us", "latency_copy", "us",
			     "16-byte copy latency, peer access" },
	[M_LATENCY_COPY_STAGED] = { "latency_copy_staged_us", "latency_copy_staged", "us",
				    "16-byte copy latency, staged through the host" },
};

/* How one cell is measured. */
enum path { P_CE, P_SM, P_BIDIR_CE, P_BIDIR_SM, P_STAGED, P_BIDIR_STAGED, P_CHASE };

struct xfer {
	enum matrix m;
	enum path path;
	struct pdev *a, *b;        /* source and destination (a reads b for the chase) */
	size_t bytes;
	long loops;
	int warmup;                /* operations queued before the start event */
	bool blocker;
	bool latency;              /* value in us per copy rather than GB/s */
	bool peer;                 /* uses peer access */
};

struct p2p {
	const struct p2p_params *p;
	struct gb_ctx *ctx;
	struct gb_bench_result *res;
	size_t n;
	struct pdev *d;
	struct gb_ce_flag *flag;   /* the stream blocker: one flag for every GPU */
	double *mat[M_COUNT];      /* n x n each, NAN where nothing was measured */
	double *bad;               /* n x n mismatched words over every path, NAN if unverified */
	double *access;            /* n x n cudaDeviceCanAccessPeer, NAN unknown */
	double *samples;
	bool verify;
	cJSON *notes;              /* cells that could not be measured, and why */
	int wrong_p2p, wrong_other, slower, p2p_pairs;
};

static inline double *cell(struct p2p *t, enum matrix m, size_t i, size_t j)
{
	return &t->mat[m][i * t->n + j];
}

static inline size_t idx_of(const struct p2p *t, const struct pdev *d)
{
	return (size_t)(d - t->d);
}

/* p2p.c: a line for extra.notes about one cell */
void p2p_note(struct p2p *t, const struct xfer *x, const char *what);

/* p2p_xfer.c: warm-up, samples and verification of one cell */
int p2p_measure(struct p2p *t, const struct xfer *x);

/* p2p_checks.c: the findings, pairs against like pairs, and the matrices in extra */
void p2p_check_staged(struct p2p *t);
void p2p_check_nvlink(struct p2p *t);
void p2p_check_pair_peers(struct p2p *t);
void p2p_summary_checks(struct p2p *t, const char *single_reason);
void p2p_add_matrices(struct p2p *t, const char *single_reason);

#endif
