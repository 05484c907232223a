/* SPDX-License-Identifier: MIT */
/*
 * nccl_math.h - the CPU-only arithmetic behind `gpubench nccl`: options and
 * their checks, the size sweep, how many elements and bytes each collective
 * moves (nccl-tests' conventions), the predictable data of the correctness
 * pass and the value every received element must have, the theoretical bus
 * bandwidth of the links the ranks share, the per-collective summary with
 * its alpha-beta fit, and the rows, metrics and checks of the report.
 * Everything here is testable without a GPU; bench/nccl/nccl.c only measures.
 *
 * Conventions (nccl-tests' doc/PERFORMANCE.md, kept so numbers compare):
 *   algbw = S / t, S = count x type size for allreduce, broadcast, reduce
 *           and count x type size x nranks for allgather, reducescatter,
 *           alltoall, where count is the per-rank element count;
 *   busbw = algbw x 2(n-1)/n (allreduce), (n-1)/n (allgather,
 *           reducescatter, alltoall), 1 (broadcast, reduce).
 * GB/s are decimal (1e9 bytes/s). With one rank nothing crosses a link, so
 * the (n-1)/n factors make bus bandwidth 0 by definition.
 *
 * The data pattern and the expected values are defined here, once, as
 * inline functions that nvcc also compiles for the device
 * (kernels/nccl_check.cu includes this header), so the verify kernel and the
 * unit tests cannot disagree about what "correct" means.
 */
#ifndef GPUBENCH_BENCH_NCCL_MATH_H
#define GPUBENCH_BENCH_NCCL_MATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/nccl_hd.h"

#ifndef __CUDACC__
#include "bench/options.h"
#endif


#ifdef __cplusplus
extern "C" {
#endif

/* ---- what can be measured: the enums of kernels/nccl_hd.h ---- */

/* NULL-terminated, indexed by the enums above (also the option choices) */
extern const char *const gb_nccl_coll_names[];
extern const char *const gb_nccl_dtype_names[];
extern const char *const gb_nccl_redop_names[];

size_t gb_nccl_dtype_size(enum gb_nccl_dtype t);
/* true for allreduce, reducescatter, reduce: they take a reduction operator */
bool gb_nccl_coll_reduces(enum gb_nccl_coll c);
/* true for broadcast and reduce: they take a root */
bool gb_nccl_coll_rooted(enum gb_nccl_coll c);
/* false for alltoall: NCCL does not define an in-place all-to-all */
bool gb_nccl_coll_has_inplace(enum gb_nccl_coll c);

/* ---- options ---- */

struct gb_nccl_params {
	uint32_t colls;	 /* bitmask over gb_nccl_coll_names */
	uint32_t dtypes; /* bitmask over gb_nccl_dtype_names */
	uint32_t redops; /* bitmask over gb_nccl_redop_names */
	uint64_t min_bytes;
	uint64_t max_bytes;
	int64_t factor;
	int64_t iters;	 /* timed operations per sample */
	int64_t samples; /* timed loops per size: the median and spread of their times */
	int64_t warmup;	 /* untimed operations per size before them */
	int64_t root;     /* --root; -1: not given (rank 0): read it through gb_nccl_root() */
	bool inplace;	  /* only in-place (both, or neither: both placements) */
	bool outofplace;  /* only out-of-place */
	bool graph;	  /* capture the timed operations in a CUDA graph and replay it */
	double timeout_s; /* longest wait for a collective or another rank */
};

/* Most --samples: the timed loops of one size keep their times on the stack. */
#define GB_NCCL_SAMPLES_MAX 1000

#ifndef __CUDACC__
/* The option table (struct gb_nccl_params offsets), shared by the command and the tests. */
extern const struct gb_opt gb_nccl_opts[];
#endif
/*
 * Defaults: allreduce, float, sum, 8 B to 1 GiB x2, 5 samples of 20
 * iterations after 5 warm-up ones, root 0, 120 s.
 */
void gb_nccl_set_defaults(void *params);
/* The root rank of broadcast and reduce: --root, else 0. */
int64_t gb_nccl_root(const struct gb_nccl_params *p);
/*
 * Cross-field checks: 0, or -1 with one line in err
 * ("--min-bytes (1 GiB) is above --max-bytes (8 MiB)").
 */
int gb_nccl_validate(const void *params, char *err, size_t errlen);
/* Out-of-place and in-place as the options select them (neither given: both). */
bool gb_nccl_want_outofplace(const struct gb_nccl_params *p);
bool gb_nccl_want_inplace(const struct gb_nccl_params *p);

/* ---- sizes and shapes ---- */

/* Most points in one sweep (factor >= 2 over 64-bit sizes never needs more). */
#define GB_NCCL_SWEEP_MAX 64

/*
 * nccl-tests' sweep: min, min*factor, min*factor^2, ... while <= max.
 * Returns the number of sizes written (at most cap); 0 on bad input
 * (min 0, factor < 2, min above max).
 */
size_t gb_nccl_sweep(uint64_t min_bytes, uint64_t max_bytes, uint64_t factor, uint64_t *out,
		     size_t cap);

/*
 * Element counts per rank of one collective at a sweep size, as nccl-tests'
 * *GetCollByteCount: the sharded collectives split `bytes` over the ranks in
 * chunks rounded down to 16 bytes, so every rank's chunk stays aligned.
 */
struct gb_nccl_shape {
	uint64_t send_count;          /* elements in each rank's send buffer */
	uint64_t recv_count;          /* elements in each rank's receive buffer */
	uint64_t param_count;         /* the count passed to NCCL: nccl-tests' "count" */
	uint64_t inplace_send_offset; /* in-place: send = recv + rank x this (allgather) */
	uint64_t inplace_recv_offset; /* in-place: recv = send + rank x this (reducescatter) */
};

/* 0, or -1 when the size gives no element per rank (or bad input). */
int gb_nccl_shape_of(enum gb_nccl_coll c, uint64_t bytes, enum gb_nccl_dtype t, int nranks,
		     struct gb_nccl_shape *s);

/* ---- buffer rotation: time memory, not the L2 cache ---- */

/*
 * Every operation of the timed loop works on its own slice of the buffers,
 * as nccl-tests shifts its buffers by one operation's bytes per iteration:
 * operation `turn` of a point starts `offset` bytes into both the send and
 * the receive buffer. The buffers span at
 * least twice the largest L2 of the GPUs, so a size that fits in L2 is read
 * from memory as it would be in a real job, not from the cache the previous
 * operation filled. Slices are 256-byte aligned, as cudaMalloc's buffers
 * are, so rotation never makes an operation take a slower unaligned path.
 */
#define GB_NCCL_ROTATION_ALIGN 256
/* The span when the L2 size is unknown: twice the largest L2 of current GPUs. */
#define GB_NCCL_ROTATION_FALLBACK_BYTES (256ULL << 20)

struct gb_nccl_rotation {
	uint64_t stride; /* bytes between the slices of consecutive operations */
	uint64_t slots;	 /* slices in the span, at least 1 */
};

/*
 * Bytes to allocate for each of the send and receive buffers: the largest
 * point's buffer, and at least 2 x l2_bytes (GB_NCCL_ROTATION_FALLBACK_BYTES
 * when l2_bytes is not positive), rounded up to GB_NCCL_ROTATION_ALIGN.
 */
uint64_t gb_nccl_rotation_span(uint64_t largest_bytes, double l2_bytes);
/* The slices of a point whose buffers need point_bytes within span bytes. */
void gb_nccl_rotation_of(uint64_t point_bytes, uint64_t span_bytes, struct gb_nccl_rotation *r);
/* Byte offset of operation `turn`: stride x (turn mod slots). */
uint64_t gb_nccl_rotation_offset(const struct gb_nccl_rotation *r, uint64_t turn);

/* ---- points NCCL does not work on ---- */

/* Why a row was not timed. */
#define GB_NCCL_NOOP_REASON "single rank: NCCL does no work in place"

/*
 * true when NCCL returns without doing anything, so there is nothing to
 * time: one rank, in place, and any operator but float avg (NCCL's one-rank
 * path copies only when the buffers differ, and runs a kernel only for the
 * 1/n pre-multiplication of float avg).
 */
bool gb_nccl_noop(enum gb_nccl_coll c, enum gb_nccl_dtype t, int redop, int nranks, bool inplace);

/* Bytes S of algbw = S / t for one operation of this shape. */
double gb_nccl_algbw_bytes(enum gb_nccl_coll c, const struct gb_nccl_shape *s, enum gb_nccl_dtype t,
			   int nranks);

/* ---- theory: the links the ranks share ---- */

/* What one rank's GPU offers for collectives. */
struct gb_nccl_rank_link {
	const char *host; /* hostname, NULL if unknown */
	int nvlink_up;	  /* NVLink links up, <= 0 none or unknown */
	int nvlink_gen;	  /* NVLink generation, <= 0 unknown */
	double pcie_bps;  /* host link per direction (maximum, else current), NAN unknown */
};

/*
 * Theoretical bus bandwidth of the links the ranks share, bytes/s per
 * direction (the figure busbw compares with): when every pair of ranks is
 * joined by NVLink, the slowest GPU's links up x per-link rate of its
 * generation (NCCL spreads rings over all links, through NVSwitch or a
 * direct mesh); otherwise the slowest GPU's PCIe link. NAN, with the reason
 * in basis, for one rank (nothing crosses a link), ranks on several hosts
 * (the network bounds it and its rate is unknown here) or unknown links.
 * basis gets one line saying how the figure was reached.
 */
double gb_nccl_link_theory(const struct gb_nccl_rank_link *r, size_t n, bool all_pairs_nvlink,
			   char *basis, size_t len);

struct gb_device_info;
struct gb_run;

/*
 * A rank's link figures from its device record (the NVLink generation from
 * the compute capability when NVML did not say).
 */
void gb_nccl_rank_link_of(const struct gb_device_info *d, const char *host,
			  struct gb_nccl_rank_link *out);

/* true when every ordered pair of devs[0..n) is an "nvlink" link in run's topology. */
bool gb_nccl_pairs_nvlink(const struct gb_run *run, const int *devs, size_t n);

/* ---- rows, summary, report ---- */

/* One line of nccl-tests' table: one collective at one size and placement. */
struct gb_nccl_row {
	int coll;  /* enum gb_nccl_coll */
	int dtype; /* enum gb_nccl_dtype */
	int redop; /* enum gb_nccl_redop, -1 for collectives that do not reduce */
	int root;  /* -1 for collectives without a root */
	bool inplace;
	uint64_t size;	 /* bytes: the larger of one rank's send and receive buffers */
	uint64_t count;	 /* elements: the count passed to NCCL */
	double algbytes; /* S of algbw */
	double time_us;	 /* per operation: the median of the samples; NAN when untimed */
	double time_min_us, time_max_us, time_stdev_us;
	double time_cv; /* stdev / mean of the samples, a fraction; NAN below 2 samples */
	int n_samples;	/* timed loops behind time_us, 0 when untimed */
	bool untimed;	/* nothing to time (GB_NCCL_NOOP_REASON) */
	double algbw_gbps;
	double busbw_gbps;
	int64_t nwrong; /* wrong elements over all ranks, -1 when not checked */
	int wrong_rank; /* the lowest rank whose output had wrong elements, -1 if none */
	int wrong_gpu;	/* that rank's CUDA index (on its host), -1 if none */
};

/* Fill size, count and algbytes of a row from its shape; no rank is wrong yet (-1). */
void gb_nccl_row_shape(struct gb_nccl_row *r, const struct gb_nccl_shape *s, int nranks);
/*
 * The time of a row from its samples (per-operation microseconds, one per
 * timed loop): the median, min, max, stdev and CV. Marks the row untimed
 * (NAN times) when n is 0 or a sample is not finite.
 */
void gb_nccl_row_samples(struct gb_nccl_row *r, const double *time_us, size_t n);
/* algbw and busbw from time_us (NAN when the time is not positive). */
void gb_nccl_row_bw(struct gb_nccl_row *r, int nranks);

/* Rows as JSON objects with nccl-tests' column names, and back. */
struct cJSON *gb_nccl_row_to_json(const struct gb_nccl_row *r);
int gb_nccl_row_from_json(const struct cJSON *o, struct gb_nccl_row *r);

/*
 * Combine every rank's rows of one run (rows[k][0..n[k]), the same sweep on
 * every rank) into out[0..n[0]): the time is the mean over ranks of each
 * rank's median (nccl-tests' default -a 1), the spread the widest any rank
 * saw (min of the minima, max of the maxima, the largest stdev and CV),
 * wrong elements are summed, bandwidths recomputed for nranks. A row is
 * untimed when any rank's is. Returns 0, or -1 when the ranks' rows do not
 * line up.
 */
int gb_nccl_rows_combine(const struct gb_nccl_row *const *rows, const size_t *n, size_t parts,
			 int nranks, struct gb_nccl_row *out);

/* The headline numbers of one collective and placement over its sweep. */
struct gb_nccl_summary {
	size_t n;
	double busbw_peak_gbps;
	double algbw_peak_gbps;
	double busbw_largest_gbps;
	double latency_smallest_us;
	uint64_t smallest_bytes, largest_bytes;
	bool fit_ok;
	double alpha_us;      /* latency of the fit t = alpha + S / beta */
	double beta_gbps;     /* asymptotic algbw */
	double beta_bus_gbps; /* the same as bus bandwidth: beta x the busbw factor */
	double r2;
	size_t n_timed;	     /* rows with a time */
	int64_t nwrong;	     /* total, -1 when nothing was checked */
	int64_t first_wrong; /* index of the first row with wrong elements, -1 if none */
};

/*
 * Summarize rows (one collective, type, operator and placement); untimed
 * rows count for correctness only. 0, or -1 if n == 0.
 */
int gb_nccl_summarize(const struct gb_nccl_row *rows, size_t n, int nranks,
		      struct gb_nccl_summary *s);

/*
 * The performance goal of issue 6: at sizes of GB_NCCL_SPREAD_MIN_BYTES and
 * above, the samples of a size vary by at most GB_NCCL_SPREAD_MAX (CV). Below
 * that, launch jitter dominates a few-microsecond operation and the spread
 * says little about the links.
 */
#define GB_NCCL_SPREAD_MAX 0.02
#define GB_NCCL_SPREAD_MIN_BYTES (64ULL << 20)

enum gb_nccl_spread {
	GB_NCCL_SPREAD_WITHIN,	 /* every large size within the bound */
	GB_NCCL_SPREAD_ABOVE,	 /* a large size varies more */
	GB_NCCL_SPREAD_NO_LARGE, /* no timed size reaches GB_NCCL_SPREAD_MIN_BYTES */
	GB_NCCL_SPREAD_TOO_FEW,	 /* fewer than 2 samples: no spread to judge */
};

/*
 * Progress marks: each local rank records one event after each operation it
 * posts (the last GB_NCCL_MARKS kept). When a wait times out, incomplete[i]
 * is how many of rank i's kept marks have not completed. Every rank posted
 * the same operations, so the rank with the most incomplete marks is the one
 * behind: its collective stopped completing while its peers finished that
 * one and wait at the next. Returns that local rank, or -1 when no single
 * rank is behind the others (all alike, or a tie for the most).
 */
#define GB_NCCL_MARKS 8
int gb_nccl_lagging_rank(const int *incomplete, int n);

/*
 * Judge the timing spread of one group's rows; *worst gets the index of the
 * large row with the highest CV (the one the check names), or -1.
 */
enum gb_nccl_spread gb_nccl_spread_judge(const struct gb_nccl_row *rows, size_t n,
					 int64_t *worst);

/*
 * The name of a row's group: "allreduce", with "_half" when the rows hold
 * several types, "_max" when several operators, "_inplace" for in-place.
 */
void gb_nccl_group_name(const struct gb_nccl_row *r, bool multi_dtype, bool multi_redop, char *buf,
			size_t len);

struct gb_bench_result;

/*
 * Everything the report says about a sweep, from its rows: per group
 * (collective, type, operator, placement) the metrics (peak busbw and busbw
 * at the largest size against the theoretical link bandwidth, peak algbw,
 * latency at the smallest size, alpha and beta), the series (bytes against
 * busbw, algbw and time), a correctness check (FAILED naming the first size
 * with wrong elements), a timing-spread check (WARNING above
 * GB_NCCL_SPREAD_MAX at large sizes), and extra.rows with every row. A group
 * with no timed row (GB_NCCL_NOOP_REASON) gets no metrics or series and a
 * SKIPPED `<g>_timed` check instead. theory_bps may be NAN; basis may be
 * NULL. With one rank, extra.note says that bus bandwidth is 0 by
 * definition and that algbw is the figure to read.
 */
void gb_nccl_fill_result(struct gb_bench_result *res, const struct gb_nccl_row *rows, size_t n,
			 int nranks, double theory_bps, const char *basis);

#ifdef __cplusplus
}
#endif

#endif
