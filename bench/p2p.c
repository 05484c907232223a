/* SPDX-License-Identifier: MIT */
/*
 * p2p.c - `gpubench p2p`: N x N matrices over every ordered pair of GPUs:
 * one-way and two-way bandwidth by the copy engine and by SM kernels with
 * peer access enabled, the same copy with peer access disabled (the driver
 * stages it through host memory), and latency by pointer chase and by small
 * copies. Rows are the source GPU (the reader for the pointer chase),
 * columns the destination; the diagonal holds the device-local figures.
 *
 * The method is bandwidth.c's (spin-kernel release, warm-up inside the
 * blocked region, CUDA events, median of samples) with the streams of both
 * GPUs of a pair behind one host-mapped flag. Staged copies are timed
 * without the blocker: the driver may need the host thread to move them.
 * Every path is first checked one copy at a time, then verified again after
 * each timed sample, because a peer path the driver advertises can still
 * deliver wrong data (RTX 4090 history). Findings: "P2P advertised but data
 * wrong", "P2P slower than staged through the host", "NVLink link down".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench.h"
#include "copy_engine.h"
#include "copy_math.h"
#include "peer_math.h"
#include "gpu.h"
#include "kernels/kernels.h"
#include "report/theory.h"
#include "telemetry.h"

struct p2p_params {
	uint64_t bytes; /* --bytes; 0: not given (DEFAULT_COPY_BYTES) */
	int64_t samples;
	int64_t loops;
	bool latency_only;
	bool no_verify;
	double peer_tol; /* --peer-tolerance: a pair this far below its like pairs' best fails */
};

static const struct gb_opt p2p_opts[] = {
	{ GB_OPT_SIZE, 0, "bytes", offsetof(struct p2p_params, bytes), "SIZE",
	  "bytes per bandwidth copy (default 256M; not with --latency-only)", 16,
	  64.0 * 1024 * 1024 * 1024, NULL, 0 },
	{ GB_OPT_COUNT, 'n', "samples", offsetof(struct p2p_params, samples), "N",
	  "samples per cell; the median is reported (default 5)", 3, 1000, NULL, 0 },
	/* every copy of a sample queues behind the blocker (see GB_CE_MAX_LOOPS) */
	{ GB_OPT_COUNT, 0, "loops", offsetof(struct p2p_params, loops), "N",
	  "copies timed together in one sample (default 16)", 1, GB_CE_MAX_LOOPS, NULL, 0 },
	{ GB_OPT_BOOL, 0, "latency-only", offsetof(struct p2p_params, latency_only), NULL,
	  "measure only the latency matrices", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "no-verify", offsetof(struct p2p_params, no_verify), NULL,
	  "do not check the copied data", 0, 0, NULL, 0 },
	{ GB_OPT_PERCENT, 0, "peer-tolerance", offsetof(struct p2p_params, peer_tol), "PCT",
	  "fail a GPU pair more than this below the best pair of the same GPU model and link "
	  "(default 10%)", 0, 1, NULL, 0 },
	GB_OPT_REFUSED('s', "size",
		       "is now '--bytes' (bytes per copy; '--size' is a GEMM dimension in "
		       "gemm and stress)"),
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};

static void p2p_defaults(void *params)
{
	struct p2p_params *p = params;

	memset(p, 0, sizeof(*p));
	p->samples = 5;
	p->loops = 16;
	p->peer_tol = GB_PEER_TOLERANCE_DEFAULT;
}

static int p2p_validate(const void *params, char *err, size_t errlen)
{
	const struct p2p_params *p = params;

	if (p->latency_only && p->bytes) {
		snprintf(err, errlen,
			 "'--bytes' does not apply with '--latency-only': latency is timed with "
			 "16-byte copies");
		return -1;
	}
	if (p->bytes % GB_COPY_GRAIN) {
		snprintf(err, errlen, "--bytes must be a multiple of %u bytes (got %llu)",
			 GB_COPY_GRAIN, (unsigned long long)p->bytes);
		return -1;
	}
	return 0;
}

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

static double *cell(struct p2p *t, enum matrix m, size_t i, size_t j)
{
	return &t->mat[m][i * t->n + j];
}

static size_t idx_of(const struct p2p *t, const struct pdev *d)
{
	return (size_t)(d - t->d);
}

static void note(struct p2p *t, const struct xfer *x, const char *what)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "matrix", matrices[x->m].json);
	cJSON_AddNumberToObject(o, "from", x->a->dev);
	cJSON_AddNumberToObject(o, "to", x->b->dev);
	cJSON_AddStringToObject(o, "note", what);
	cJSON_AddItemToArray(t->notes, o);
}

/* ---- resources ---- */

/* bytes per bandwidth copy: --bytes, else the default */
static uint64_t bandwidth_bytes(const struct p2p_params *p)
{
	return p->bytes ? p->bytes : DEFAULT_COPY_BYTES;
}

/* What each GPU's source and destination hold: latency alone needs one small copy. */
static uint64_t buffer_bytes(const struct p2p_params *p)
{
	return p->latency_only ? SMALL_COPY_BYTES : bandwidth_bytes(p);
}

/* Source and destination of --bytes each: "cannot allocate 2 x 256 MiB of device memory ..." */
static int alloc_buffers(struct p2p *t, struct pdev *d, size_t bytes)
{
	cudaError_t e = cudaMalloc(&d->src, bytes);

	if (e == cudaSuccess)
		e = cudaMalloc(&d->dst, bytes);
	if (e == cudaSuccess)
		return 0;
	return gb_ce_alloc_error(t->res, e, 2, (double)bytes, "device memory", d->dev);
}

static int open_dev(struct p2p *t, struct pdev *d, size_t bytes)
{
	struct gb_bench_result *res = t->res;
	int rc = 0;

	GB_CUDA_GOTO(res, gb_ce_stream_open(&d->cs, d->dev, t->flag), out);
	/* no kernel may be loaded for the first time behind a blocked stream (copy.h) */
	GB_CUDA_GOTO(res, gb_copy_preload(), out);
	GB_CUDA_GOTO(res, cudaDeviceGetAttribute(&d->sm_count, cudaDevAttrMultiProcessorCount, d->dev),
		     out);
	GB_CUDA_GOTO(res, cudaMalloc((void **)&d->bad, sizeof(*d->bad)), out);
	GB_CUDA_GOTO(res, cudaMalloc((void **)&d->sink, sizeof(*d->sink)), out);
	if ((rc = alloc_buffers(t, d, bytes)))
		goto out;
	GB_CUDA_GOTO(res, cudaMalloc(&d->chase, CHASE_BYTES), out);
	d->seed = SEED_BASE + (uint64_t)d->dev;
	GB_CUDA_GOTO(res, gb_launch_pattern_fill(d->src, bytes, d->seed, d->sm_count, d->cs.s), out);
	GB_CUDA_GOTO(res, gb_launch_chase_init(d->chase, CHASE_BYTES, CHASE_STRIDE, d->cs.s), out);
	GB_CUDA_GOTO(res, cudaStreamSynchronize(d->cs.s), out);
out:
	return rc;
}

static void close_dev(struct pdev *d)
{
	/* free even when the device cannot be made current: cudaFree finds the pointer's
	 * device itself, and returning early would leak every buffer */
	if (cudaSetDevice(d->dev) == cudaSuccess)
		cudaDeviceSynchronize();
	/* cudaFree(NULL) does nothing: what open_dev never allocated is skipped */
	cudaFree(d->chase);
	cudaFree(d->dst);
	cudaFree(d->src);
	cudaFree(d->sink);
	cudaFree(d->bad);
	gb_ce_stream_close(&d->cs);
}

/* Peer access from a to b on or off; "already so" is not an error. */
static cudaError_t set_peer(int a, int b, bool on)
{
	cudaError_t e = cudaSetDevice(a);

	if (e != cudaSuccess)
		return e;
	e = on ? cudaDeviceEnablePeerAccess(b, 0) : cudaDeviceDisablePeerAccess(b);
	if (e == cudaErrorPeerAccessAlreadyEnabled || e == cudaErrorPeerAccessNotEnabled) {
		cudaGetLastError();
		e = cudaSuccess;
	}
	return e;
}

/* ---- one transfer ---- */

/* Which GPU runs direction i, and which copy it makes. */
static struct pdev *runner(const struct xfer *x, int i)
{
	return i == 0 ? x->a : x->b;
}

static cudaError_t issue(const struct xfer *x, int i)
{
	struct pdev *from = i == 0 ? x->a : x->b, *to = i == 0 ? x->b : x->a;
	struct pdev *r = runner(x, i);
	cudaError_t e = cudaSetDevice(r->dev);

	if (e != cudaSuccess)
		return e;
	switch (x->path) {
	case P_CE:
	case P_BIDIR_CE:
		return cudaMemcpyAsync(to->dst, from->src, x->bytes, cudaMemcpyDefault, r->cs.s);
	case P_STAGED:
	case P_BIDIR_STAGED:
		return cudaMemcpyPeerAsync(to->dst, to->dev, from->src, from->dev, x->bytes, r->cs.s);
	case P_SM:
		/* the source GPU's SMs write into the destination's memory */
		return gb_launch_sm_copy(to->dst, from->src, x->bytes, r->sm_count, r->cs.s);
	case P_BIDIR_SM:
		/* even warps push a -> b, odd warps pull b -> a, all on a's SMs */
		return gb_launch_sm_copy_bidir(x->b->dst, x->a->src, x->a->dst, x->b->src, x->bytes,
					       r->sm_count, r->cs.s);
	case P_CHASE:
		return gb_launch_chase(x->b->chase, CHASE_STEPS, x->a->sink, r->cs.s);
	}
	return cudaErrorInvalidValue;
}

/* Streams (GPUs) a transfer keeps busy: two for two-way copy-engine copies. */
static int n_streams(const struct xfer *x)
{
	return x->path == P_BIDIR_CE || x->path == P_BIDIR_STAGED ? 2 : 1;
}

/* Destinations a transfer writes: two for every two-way form. */
static int n_dsts(const struct xfer *x)
{
	return x->path == P_BIDIR_CE || x->path == P_BIDIR_SM || x->path == P_BIDIR_STAGED ? 2 : 1;
}

static int poison(struct p2p *t, const struct xfer *x)
{
	struct gb_bench_result *res = t->res;
	int rc = 0;

	for (int i = 0; i < n_dsts(x); i++) {
		struct pdev *to = i == 0 ? x->b : x->a;

		GB_CUDA_GOTO(res, cudaSetDevice(to->dev), out);
		GB_CUDA_GOTO(res, gb_launch_pattern_fill(to->dst, x->bytes, SEED_POISON,
							 to->sm_count, to->cs.s),
			     out);
		GB_CUDA_GOTO(res, cudaStreamSynchronize(to->cs.s), out);
	}
out:
	return rc;
}

/* Each destination against the pattern of its source, on the destination GPU. */
static int verify(struct p2p *t, const struct xfer *x, long long *bad)
{
	struct gb_bench_result *res = t->res;
	long long one = 0;
	int rc = 0;

	*bad = 0;
	for (int i = 0; i < n_dsts(x); i++) {
		struct pdev *from = i == 0 ? x->a : x->b, *to = i == 0 ? x->b : x->a;

		GB_CUDA_GOTO(res, cudaSetDevice(to->dev), out);
		if ((rc = gb_ce_verify(res, to->cs.s, to->dst, x->bytes, from->seed, to->bad,
				       to->sm_count, &one)))
			goto out;
		*bad += one;
	}
out:
	return rc;
}

static cudaError_t issue_cb(void *user, int i)
{
	return issue(user, i);
}

/*
 * loops operations per stream, timed by events on each stream's own GPU
 * (events of two GPUs cannot be subtracted). sec[i] per stream.
 */
static int timed(struct p2p *t, const struct xfer *x, double sec[2])
{
	struct gb_ce_stream *streams[2] = { &runner(x, 0)->cs, &runner(x, 1)->cs };
	struct gb_ce_sample smp = {
		.st = streams,
		.n = n_streams(x),
		.flag = x->blocker ? t->flag : NULL,
		.warmup = x->warmup,
		.loops = x->loops,
		/* staged copies may run on this thread: queue both directions in turn */
		.interleave = !x->blocker,
		.issue = issue_cb,
		.user = (void *)x,
	};

	return gb_ce_time(t->res, &smp, sec);
}

/* Correctness before speed: single copies, each poisoned first and verified after. */
static int check_singles(struct p2p *t, const struct xfer *x, long long *bad)
{
	struct gb_bench_result *res = t->res;
	long long one = 0;
	int rc = 0;

	for (int k = 0; k < SINGLE_CHECKS; k++) {
		if ((rc = poison(t, x)))
			goto out;
		for (int i = 0; i < n_streams(x); i++)
			GB_CUDA_GOTO(res, issue(x, i), out);
		for (int i = 0; i < n_streams(x); i++) {
			GB_CUDA_GOTO(res, cudaSetDevice(runner(x, i)->dev), out);
			GB_CUDA_GOTO(res, cudaStreamSynchronize(runner(x, i)->cs.s), out);
		}
		if ((rc = verify(t, x, &one)))
			goto out;
		*bad += one;
	}
out:
	return rc;
}

static double sample_value(const struct xfer *x, const double sec[2])
{
	double counted = (double)x->bytes * n_dsts(x);

	if (!(sec[0] > 0))
		return NAN;
	if (x->path == P_CHASE)
		return sec[0] / ((double)CHASE_STEPS * (double)x->loops) * 1e6;
	if (x->latency)
		return sec[0] / (double)x->loops * 1e6;
	/* two directions that start together end with the slower one */
	return gb_copy_gbps(counted, x->loops, n_streams(x) == 2 ? fmax(sec[0], sec[1]) : sec[0]);
}

static double peak_of(struct p2p *t, const struct xfer *x)
{
	const struct gb_device_info *ia = x->a->info, *ib = x->b->info;
	const struct gb_link *l = gb_run_find_link(t->ctx->run, x->a->dev, x->b->dev);
	struct gb_copy_theory th = { NAN, NAN, NAN };
	double pa = ia ? ia->peaks.pcie_bps : NAN, pb = ib ? ib->peaks.pcie_bps : NAN;
	int gen = ia ? (ia->nvlink_gen > 0 ? ia->nvlink_gen
					   : gb_nvlink_gen_for_cc(ia->cc_major, ia->cc_minor))
		     : 0;

	if (x->latency)
		return NAN;
	if (x->a == x->b) {
		th.mem_bw_bps = gb_copy_mem_bps(ia);
		return gb_copy_ceiling_bps(GB_CT_D2D, &th) / 1e9;
	}
	th.pcie_bps = isfinite(pa) && isfinite(pb) ? fmin(pa, pb) : NAN;
	th.peer_bps = gb_p2p_peer_bps(l ? l->type : NULL, l ? l->nvlink_count : -1, gen, pa, pb);
	if (x->path == P_STAGED)
		return gb_copy_ceiling_bps(GB_CT_P2P_STAGED, &th) / 1e9;
	/* each direction crosses both host links, one each way: twice the one-way bound */
	if (x->path == P_BIDIR_STAGED)
		return 2 * gb_copy_ceiling_bps(GB_CT_P2P_STAGED, &th) / 1e9;
	return gb_copy_ceiling_bps(n_dsts(x) == 2 ? GB_CT_P2P_BIDIR : GB_CT_P2P_UNI, &th) / 1e9;
}

static void add_cell_metric(struct p2p *t, const struct xfer *x, size_t n)
{
	char name[96];

	if (x->a == x->b)
		snprintf(name, sizeof(name), "%s_local_%s", matrices[x->m].stem,
			 x->latency ? "us" : "gbps");
	else
		snprintf(name, sizeof(name), "%s_to_gpu%d_%s", matrices[x->m].stem, x->b->dev,
			 x->latency ? "us" : "gbps");
	gb_bench_add_metric(t->res, name, matrices[x->m].unit,
			    x->latency ? GB_BETTER_LOWER : GB_BETTER_HIGHER, x->a->dev, t->samples,
			    n, peak_of(t, x));
}

static void record_bad(struct p2p *t, const struct xfer *x, long long bad)
{
	double *b = &t->bad[idx_of(t, x->a) * t->n + idx_of(t, x->b)];
	int p2p_access = (int)(isfinite(t->access[idx_of(t, x->a) * t->n + idx_of(t, x->b)])
				       ? t->access[idx_of(t, x->a) * t->n + idx_of(t, x->b)]
				       : -1);
	char what[200];

	*b = (isfinite(*b) ? *b : 0) + (double)bad;
	switch (gb_p2p_data_verdict(p2p_access, x->peer, bad)) {
	case GB_P2P_DATA_WRONG_ADVERTISED:
		t->wrong_p2p++;
		gb_bench_add_check(t->res, "p2p_data", GB_STATUS_FAILED, GB_SEV_ERROR, x->a->dev,
				   (double)bad, 0,
				   "P2P advertised but data wrong: GPU %d -> GPU %d (%s), %lld 16-byte "
				   "words wrong",
				   x->a->dev, x->b->dev, matrices[x->m].json, bad);
		break;
	case GB_P2P_DATA_WRONG:
		t->wrong_other++;
		snprintf(what, sizeof(what), "%lld 16-byte words wrong", bad);
		note(t, x, what);
		gb_bench_add_check(t->res, "data_verified", GB_STATUS_FAILED, GB_SEV_ERROR, x->a->dev,
				   (double)bad, 0, "copied data is wrong: GPU %d -> GPU %d (%s), %lld "
				   "16-byte words wrong",
				   x->a->dev, x->b->dev, matrices[x->m].json, bad);
		break;
	default:
		break;
	}
}

/* Warm-up, samples, verification: the median goes into the matrix. */
static int measure(struct p2p *t, const struct xfer *x)
{
	double sec[2] = { NAN, NAN }, v;
	long long bad = 0, one = 0;
	size_t n = 0;
	int rc = 0;

	if (t->verify && x->path != P_CHASE && (rc = check_singles(t, x, &bad)))
		return rc;
	if ((rc = timed(t, x, sec)))
		return rc;
	for (int64_t s = 0; s < t->p->samples && !gb_should_stop(t->ctx); s++) {
		bool check = t->verify && x->path != P_CHASE;

		if (check && (rc = poison(t, x)))
			return rc;
		if ((rc = timed(t, x, sec)))
			return rc;
		if (check && (rc = verify(t, x, &one)))
			return rc;
		bad += one;
		v = sample_value(x, sec);
		/* a time below the events' resolution has no value; one NaN would make every
		 * statistic of the cell NaN */
		if (isfinite(v) && v > 0)
			t->samples[n++] = v;
	}
	if (t->verify && x->path != P_CHASE)
		record_bad(t, x, bad);
	if (n == 0)
		return 0;
	*cell(t, x->m, idx_of(t, x->a), idx_of(t, x->b)) = gb_percentile(t->samples, n, 50);
	add_cell_metric(t, x, n);
	return 0;
}

static int run_cell(struct p2p *t, enum matrix m, enum path path, struct pdev *a, struct pdev *b)
{
	struct xfer x = {
		.m = m,
		.path = path,
		.a = a,
		.b = b,
		.bytes = (size_t)bandwidth_bytes(t->p),
		.loops = (long)t->p->loops,
		.warmup = GB_CE_WARMUP,
		/* the driver may need the host thread to stage: never block its stream */
		.blocker = path != P_STAGED && path != P_BIDIR_STAGED,
		.latency = m >= M_LATENCY,
		.peer = a != b && path != P_STAGED && path != P_BIDIR_STAGED,
	};

	if (m == M_LATENCY_COPY || m == M_LATENCY_COPY_STAGED) {
		x.bytes = SMALL_COPY_BYTES;
		x.loops = SMALL_COPIES;
	} else if (path == P_CHASE) {
		/* one launch is CHASE_STEPS dependent loads already: tens of milliseconds */
		x.loops = 1;
		x.warmup = 1;
	}
	if (gb_should_stop(t->ctx))
		return 0;
	return measure(t, &x);
}

/* ---- the matrix ---- */

static int run_local(struct p2p *t, struct pdev *a)
{
	int rc = 0;

	gb_progress(t->ctx, "p2p: GPU %d local", a->dev);
	if (!t->p->latency_only) {
		if ((rc = run_cell(t, M_UNI_CE, P_CE, a, a)) || (rc = run_cell(t, M_UNI_SM, P_SM, a, a)))
			return rc;
	}
	if ((rc = run_cell(t, M_LATENCY, P_CHASE, a, a)))
		return rc;
	return run_cell(t, M_LATENCY_COPY, P_CE, a, a);
}

/*
 * The pair with peer access off, both ways. This code disables it after
 * each pair, but another user of the same contexts may have left it on
 * (NCCL enables peer access and does not disable it), and a "staged" copy
 * with peer access on would be a peer copy. Refused: the staged cells stay
 * empty, with a note.
 */
static bool peer_off(struct p2p *t, struct pdev *a, struct pdev *b)
{
	struct xfer where = { .m = M_STAGED, .a = a, .b = b };
	cudaError_t e = set_peer(a->dev, b->dev, false);
	char why[200], what[260];

	if (e == cudaSuccess)
		e = set_peer(b->dev, a->dev, false);
	if (e == cudaSuccess)
		return true;
	gb_cuda_errstr(e, why, sizeof(why));
	snprintf(what, sizeof(what), "peer access could not be disabled, so nothing was staged: %s",
		 why);
	note(t, &where, what);
	cudaGetLastError();
	return false;
}

static int run_staged(struct p2p *t, struct pdev *a, struct pdev *b)
{
	int rc = 0;

	if (!peer_off(t, a, b))
		return 0;
	if (!t->p->latency_only && ((rc = run_cell(t, M_STAGED, P_STAGED, a, b)) ||
				    (rc = run_cell(t, M_BIDIR_STAGED, P_BIDIR_STAGED, a, b))))
		return rc;
	return run_cell(t, M_LATENCY_COPY_STAGED, P_STAGED, a, b);
}

static int run_peer(struct p2p *t, struct pdev *a, struct pdev *b, bool both_ways)
{
	int rc = 0;

	if (!t->p->latency_only) {
		if ((rc = run_cell(t, M_UNI_CE, P_CE, a, b)) || (rc = run_cell(t, M_UNI_SM, P_SM, a, b)) ||
		    (rc = run_cell(t, M_BIDIR_SM, P_BIDIR_SM, a, b)))
			return rc;
		if (both_ways && (rc = run_cell(t, M_BIDIR_CE, P_BIDIR_CE, a, b)))
			return rc;
	}
	if ((rc = run_cell(t, M_LATENCY, P_CHASE, a, b)))
		return rc;
	return run_cell(t, M_LATENCY_COPY, P_CE, a, b);
}

/* Peer access for the pair, on for the peer cells, then off again for the next pair. */
static int run_pair(struct p2p *t, struct pdev *a, struct pdev *b)
{
	size_t i = idx_of(t, a), j = idx_of(t, b);
	bool ab = t->access[i * t->n + j] == 1, ba = t->access[j * t->n + i] == 1;
	struct xfer where = { .m = M_UNI_CE, .a = a, .b = b };
	char why[200];
	cudaError_t e;
	int rc;

	gb_progress(t->ctx, "p2p: GPU %d -> GPU %d", a->dev, b->dev);
	if ((rc = run_staged(t, a, b)) || !ab)
		return rc;
	t->p2p_pairs++;
	e = set_peer(a->dev, b->dev, true);
	if (e == cudaSuccess && ba)
		e = set_peer(b->dev, a->dev, true);
	if (e != cudaSuccess) {
		/* advertised but refused (e.g. too many peers): say so, keep going */
		gb_cuda_errstr(e, why, sizeof(why));
		note(t, &where, why);
		cudaGetLastError();
	} else {
		rc = run_peer(t, a, b, ba);
	}
	set_peer(a->dev, b->dev, false);
	if (ba)
		set_peer(b->dev, a->dev, false);
	return rc;
}

/* ---- findings ---- */

/* One cell of one form (one-way or two-way) against its staged twin. */
static void check_staged_cell(struct p2p *t, size_t i, size_t j, enum matrix peer,
			      enum matrix staged)
{
	double p = *cell(t, peer, i, j), s = *cell(t, staged, i, j);
	bool two = peer == M_BIDIR_CE;

	if (!gb_p2p_slower_than_staged(p, s, STAGED_MARGIN))
		return;
	t->slower++;
	gb_bench_add_check(t->res, "p2p_vs_staged", GB_STATUS_FAILED, GB_SEV_WARNING, t->d[i].dev, p,
			   s,
			   "P2P slower than staged through the host: GPU %d %s GPU %d %s%.1f GB/s "
			   "with peer access, %.1f GB/s staged",
			   t->d[i].dev, two ? "<->" : "->", t->d[j].dev, two ? "two-way " : "", p, s);
}

static void check_staged(struct p2p *t)
{
	for (size_t i = 0; i < t->n; i++) {
		for (size_t j = 0; j < t->n; j++) {
			if (i == j)
				continue;
			check_staged_cell(t, i, j, M_UNI_CE, M_STAGED);
			check_staged_cell(t, i, j, M_BIDIR_CE, M_BIDIR_STAGED);
		}
	}
}

/* Whether the run's topology shows NVLink from GPU i to another GPU of the run. */
static bool nvlink_to_peer(const struct p2p *t, size_t i)
{
	for (size_t j = 0; j < t->n; j++) {
		const struct gb_link *l = gb_run_find_link(t->ctx->run, t->d[i].dev, t->d[j].dev);

		if (j != i && l && l->type && !strcmp(l->type, "nvlink"))
			return true;
	}
	return false;
}

/*
 * "NVLink link down", judged against the catalog's link count with what
 * else is known (gb_nvlink_judge): a PCIe card without a bridge, or one SXM
 * GPU given alone to a VM, shows its links inactive without a fault.
 */
static void check_nvlink(struct p2p *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct gb_device_info *d = t->d[i].info;
		const struct gb_gpu_spec *spec = d ? gb_gpu_spec_match(d->name, d->sm_count) : NULL;
		struct gb_nvlink_view v = {
			.links_up = d ? d->nvlink_up : -1,
			.links_expected = spec ? spec->nvlink_links : 0,
			.pcie_board = spec && strstr(spec->key, "pcie"),
			.n_gpus = (int)t->n,
			.nvlink_peer = nvlink_to_peer(t, i),
		};
		char msg[256];
		int sev = GB_SEV_INFO, st = gb_nvlink_judge(&v, &sev, msg, sizeof(msg));

		if (st < 0)
			continue; /* no NVLink expected, or NVML could not say */
		gb_bench_add_check(t->res, "nvlink_links_up", (enum gb_status)st,
				   (enum gb_severity)sev, t->d[i].dev, (double)v.links_up,
				   (double)v.links_expected, "GPU %d: %s (%s)", t->d[i].dev, msg,
				   spec->name);
	}
}

/* ---- pairs against like pairs ---- */

/* pairs compare when both ends are of one model each and the link is the same */
static void pair_key(struct p2p *t, size_t i, size_t j, char *buf, size_t len)
{
	const struct gb_device_info *a = t->d[i].info, *b = t->d[j].info;
	const struct gb_link *l = gb_run_find_link(t->ctx->run, t->d[i].dev, t->d[j].dev);
	char link[48];

	gb_p2p_topology_label(l ? l->type : NULL, l ? l->nvlink_count : -1, link, sizeof(link));
	snprintf(buf, len, "%s/%d|%s/%d|%s", a && a->name ? a->name : "?", a ? a->sm_count : -1,
		 b && b->name ? b->name : "?", b ? b->sm_count : -1, link);
}

/*
 * One group: the pairs of key (i0, j0) in matrix m. A failed check per pair
 * more than --peer-tolerance below the best pair, naming both; one passed
 * check for the group when none is.
 */
static void check_pair_group(struct p2p *t, enum matrix m, size_t i0, size_t j0, bool *done)
{
	size_t n = 0, *pi = calloc(t->n * t->n, sizeof(*pi)), *pj = calloc(t->n * t->n, sizeof(*pj));
	double *v = calloc(t->n * t->n, sizeof(*v)), *below = calloc(t->n * t->n, sizeof(*below));
	char key0[256], key[256], name[48], who[32], best_who[32], msg[320], link[48];
	const struct gb_link *l = gb_run_find_link(t->ctx->run, t->d[i0].dev, t->d[j0].dev);
	size_t failed = 0;
	double worst = 0;
	int best;

	if (!pi || !pj || !v || !below)
		abort();
	pair_key(t, i0, j0, key0, sizeof(key0));
	for (size_t i = 0; i < t->n; i++)
		for (size_t j = 0; j < t->n; j++) {
			if (i == j || done[i * t->n + j] || !isfinite(*cell(t, m, i, j)))
				continue;
			pair_key(t, i, j, key, sizeof(key));
			if (strcmp(key, key0))
				continue;
			done[i * t->n + j] = true;
			pi[n] = i;
			pj[n] = j;
			v[n++] = *cell(t, m, i, j);
		}
	best = gb_peer_best(v, n, below);
	snprintf(name, sizeof(name), "%s_peers", matrices[m].stem);
	gb_p2p_topology_label(l ? l->type : NULL, l ? l->nvlink_count : -1, link, sizeof(link));
	for (size_t k = 0; best >= 0 && k < n; k++) {
		if (isfinite(below[k]) && below[k] > worst)
			worst = below[k];
		if (!gb_peer_fails(below[k], t->p->peer_tol))
			continue;
		failed++;
		snprintf(who, sizeof(who), "GPU %d -> %d", t->d[pi[k]].dev, t->d[pj[k]].dev);
		snprintf(best_who, sizeof(best_who), "GPU %d -> %d", t->d[pi[best]].dev,
			 t->d[pj[best]].dev);
		gb_peer_message(msg, sizeof(msg), who, matrices[m].stem, v[k], v[best], best_who,
				"GB/s", t->p->peer_tol);
		gb_bench_add_check(t->res, name, GB_STATUS_FAILED, GB_SEV_ERROR, t->d[pi[k]].dev,
				   below[k], t->p->peer_tol, "%s (%s)", msg, link);
	}
	if (best >= 0 && !failed)
		gb_bench_add_check(t->res, name, GB_STATUS_PASSED, GB_SEV_ERROR, -1, worst,
				   t->p->peer_tol,
				   "%s: %zu %s pairs within %.1f%% of the best (%.4g GB/s, GPU %d -> %d)",
				   matrices[m].stem, n, link, 100 * worst, v[best],
				   t->d[pi[best]].dev, t->d[pj[best]].dev);
	free(pi);
	free(pj);
	free(v);
	free(below);
}

/* the copy-engine bandwidth of every pair against the pairs like it */
static void check_pair_peers(struct p2p *t)
{
	static const enum matrix judged[] = { M_UNI_CE, M_BIDIR_CE };
	bool *done = calloc(t->n * t->n, sizeof(*done));

	if (!done)
		abort();
	for (size_t k = 0; k < sizeof(judged) / sizeof(judged[0]); k++) {
		memset(done, 0, t->n * t->n * sizeof(*done));
		for (size_t i = 0; i < t->n; i++)
			for (size_t j = 0; j < t->n; j++)
				if (i != j && !done[i * t->n + j] &&
				    isfinite(*cell(t, judged[k], i, j)))
					check_pair_group(t, judged[k], i, j, done);
	}
	free(done);
}

static void summary_checks(struct p2p *t, const char *single_reason)
{
	struct gb_bench_result *res = t->res;

	if (!t->verify) {
		gb_bench_add_check(res, "data_verified", GB_STATUS_SKIPPED, GB_SEV_INFO, -1, NAN, NAN,
				   "verification disabled by --no-verify");
	} else if (!t->wrong_other && !t->wrong_p2p) {
		gb_bench_add_check(res, "data_verified", GB_STATUS_PASSED, GB_SEV_INFO, -1, 0, 0,
				   "every copy checked matched its source pattern");
	}
	if (single_reason || !t->p2p_pairs) {
		gb_bench_add_check(res, "p2p_data", GB_STATUS_SKIPPED, GB_SEV_INFO, -1, NAN, NAN,
				   "%s", single_reason ? single_reason : "no pair has peer access");
		gb_bench_add_check(res, "p2p_vs_staged", GB_STATUS_SKIPPED, GB_SEV_INFO, -1, NAN, NAN,
				   "%s", single_reason ? single_reason : "no pair has peer access");
		return;
	}
	if (t->verify && !t->wrong_p2p)
		gb_bench_add_check(res, "p2p_data", GB_STATUS_PASSED, GB_SEV_INFO, -1, 0, 0,
				   "data through peer access verified on %d pairs", t->p2p_pairs);
	if (t->p->latency_only)
		gb_bench_add_check(res, "p2p_vs_staged", GB_STATUS_SKIPPED, GB_SEV_INFO, -1, NAN, NAN,
				   "--latency-only: no bandwidth measured");
	else if (!t->slower)
		gb_bench_add_check(res, "p2p_vs_staged", GB_STATUS_PASSED, GB_SEV_INFO, -1, NAN, NAN,
				   "P2P at least as fast as staged (within %.0f%%) on %d pairs",
				   STAGED_MARGIN * 100, t->p2p_pairs);
}

/* ---- report ---- */

/*
 * What a renderer needs to draw every matrix without knowing this file:
 * [{key, title, unit, better}] in display order. The key names the N x N
 * array in extra; rows and columns are extra.devices.
 */
static void add_matrix_list(cJSON *extra)
{
	cJSON *list = cJSON_AddArrayToObject(extra, "matrices");

	for (int m = 0; m < M_COUNT; m++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "key", matrices[m].json);
		cJSON_AddStringToObject(o, "title", matrices[m].title);
		cJSON_AddStringToObject(o, "unit", matrices[m].unit);
		cJSON_AddStringToObject(o, "better",
					strcmp(matrices[m].unit, "us") ? "higher" : "lower");
		cJSON_AddItemToArray(list, o);
	}
}

static void add_matrices(struct p2p *t, const char *single_reason)
{
	cJSON *extra = gb_bench_extra(t->res), *devs, *units;
	const char **topo = gb_xrealloc(NULL, sizeof(char *) * t->n * t->n);
	char (*labels)[48] = gb_xrealloc(NULL, sizeof(*labels) * t->n * t->n);

	devs = cJSON_AddArrayToObject(extra, "devices");
	for (size_t i = 0; i < t->n; i++)
		cJSON_AddItemToArray(devs, cJSON_CreateNumber(t->d[i].dev));
	cJSON_AddStringToObject(extra, "rows", "source GPU (the reader for latency_us)");
	cJSON_AddStringToObject(extra, "columns", "destination GPU (the memory read for latency_us)");
	for (int m = 0; m < M_COUNT; m++)
		cJSON_AddItemToObject(extra, matrices[m].json, gb_matrix_json(t->mat[m], t->n, t->n));
	add_matrix_list(extra);
	cJSON_AddItemToObject(extra, "p2p_access", gb_matrix_json(t->access, t->n, t->n));
	cJSON_AddItemToObject(extra, "mismatched_words", gb_matrix_json(t->bad, t->n, t->n));
	for (size_t i = 0; i < t->n; i++) {
		for (size_t j = 0; j < t->n; j++) {
			const struct gb_link *l =
				gb_run_find_link(t->ctx->run, t->d[i].dev, t->d[j].dev);

			topo[i * t->n + j] = labels[i * t->n + j];
			if (i == j)
				snprintf(labels[i * t->n + j], sizeof(labels[0]), "local");
			else
				gb_p2p_topology_label(l ? l->type : NULL, l ? l->nvlink_count : -1,
						      labels[i * t->n + j], sizeof(labels[0]));
		}
	}
	cJSON_AddItemToObject(extra, "topology", gb_string_matrix_json(topo, t->n, t->n));
	units = cJSON_AddObjectToObject(extra, "units");
	cJSON_AddStringToObject(units, "gbps",
				"GB/s = 1e9 bytes/s, each byte counted once per direction; bidir "
				"sums both directions; the diagonal is a device-local copy (payload "
				"counted once)");
	cJSON_AddStringToObject(units, "latency_us",
				"microseconds per dependent load (pointer chase, 128-byte stride "
				"over 2 MiB)");
	cJSON_AddStringToObject(units, "latency_copy_us",
				"microseconds per 16-byte copy, queued back to back");
	if (single_reason)
		cJSON_AddStringToObject(extra, "reason", single_reason);
	cJSON_AddItemToObject(extra, "notes", t->notes);
	t->notes = NULL;
	free(labels);
	free(topo);
}

static void record_params(struct p2p *t)
{
	gb_bench_param_num(t->res, "size", (double)bandwidth_bytes(t->p));
	gb_bench_param_num(t->res, "samples", (double)t->p->samples);
	gb_bench_param_num(t->res, "loops", (double)t->p->loops);
	gb_bench_param_num(t->res, "warmup_copies", GB_CE_WARMUP);
	gb_bench_param_bool(t->res, "latency_only", t->p->latency_only);
	gb_bench_param_bool(t->res, "verify", t->verify);
	gb_bench_param_num(t->res, "chase_bytes", CHASE_BYTES);
	gb_bench_param_num(t->res, "chase_stride", CHASE_STRIDE);
	gb_bench_param_str(t->res, "statistic", "median");
}

static void init_access(struct p2p *t)
{
	for (size_t i = 0; i < t->n; i++) {
		for (size_t j = 0; j < t->n; j++) {
			int can = 0;

			t->access[i * t->n + j] = NAN;
			if (i == j)
				continue;
			if (cudaDeviceCanAccessPeer(&can, t->d[i].dev, t->d[j].dev) == cudaSuccess)
				t->access[i * t->n + j] = can ? 1 : 0;
			else
				cudaGetLastError(); /* unknown is recorded; the error must not
						     * surface in the next kernel launch */
		}
	}
}

static int alloc_state(struct p2p *t)
{
	struct gb_bench_result *res = t->res;
	size_t nn = t->n * t->n;
	int rc = 0;

	t->d = gb_xrealloc(NULL, sizeof(*t->d) * t->n);
	memset(t->d, 0, sizeof(*t->d) * t->n);
	for (int m = 0; m < M_COUNT; m++)
		t->mat[m] = gb_xrealloc(NULL, sizeof(double) * nn);
	t->bad = gb_xrealloc(NULL, sizeof(double) * nn);
	t->access = gb_xrealloc(NULL, sizeof(double) * nn);
	t->samples = gb_xrealloc(NULL, sizeof(double) * (size_t)t->p->samples);
	for (size_t k = 0; k < nn; k++) {
		for (int m = 0; m < M_COUNT; m++)
			t->mat[m][k] = NAN;
		t->bad[k] = NAN;
	}
	t->notes = cJSON_CreateArray();
	for (size_t i = 0; i < t->n; i++) {
		t->d[i].dev = t->ctx->devices[i];
		t->d[i].info = gb_run_find_device(t->ctx->run, t->d[i].dev);
	}
	/* on a GPU of the run: a mapped allocation opens a context on the current one */
	GB_CUDA_GOTO(res, gb_ce_flag_alloc(&t->flag, t->d[0].dev), out);
	init_access(t);
	for (size_t i = 0; i < t->n && rc == 0; i++)
		rc = open_dev(t, &t->d[i], (size_t)buffer_bytes(t->p));
out:
	return rc;
}

static void free_state(struct p2p *t)
{
	/* let any spin kernel still queued finish before the devices are synchronized */
	gb_ce_flag_set(t->flag, 1);
	for (size_t i = 0; t->d && i < t->n; i++)
		close_dev(&t->d[i]);
	gb_ce_flag_free(t->flag);
	/* what teardown could not do is not this run's error, nor the next benchmark's */
	cudaGetLastError();
	for (int m = 0; m < M_COUNT; m++)
		free(t->mat[m]);
	free(t->bad);
	free(t->access);
	free(t->samples);
	free(t->d);
	cJSON_Delete(t->notes);
}

static int p2p_run(struct gb_ctx *ctx, const void *params, struct gb_bench_result *res)
{
	struct p2p t;
	char single[96];
	const char *single_reason = NULL;
	struct gb_sampler *sampler;
	int rc;

	memset(&t, 0, sizeof(t));
	t.p = params;
	t.ctx = ctx;
	t.res = res;
	t.n = ctx->n_devices;
	t.verify = !t.p->no_verify;
	if (t.n == 0) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "no GPU selected");
		return -1;
	}
	if (t.n < 2) {
		snprintf(single, sizeof(single),
			 "p2p needs 2 GPUs, found %zu: only the device-local row was measured", t.n);
		single_reason = single;
	}
	record_params(&t);
	/* clocks, power and throttling land in the run's telemetry while the matrix runs */
	sampler = gb_sampler_start(ctx, ctx->devices, ctx->n_devices, 0.1, NULL);
	rc = alloc_state(&t);
	for (size_t i = 0; i < t.n && rc == 0; i++) {
		rc = run_local(&t, &t.d[i]);
		for (size_t j = 0; j < t.n && rc == 0; j++)
			if (i != j)
				rc = run_pair(&t, &t.d[i], &t.d[j]);
	}
	if (rc == 0) {
		check_staged(&t);
		check_nvlink(&t);
		check_pair_peers(&t);
		summary_checks(&t, single_reason);
	}
	gb_sampler_stop(sampler);
	if (t.mat[0])
		add_matrices(&t, single_reason);
	free_state(&t);
	return rc;
}

const struct gb_bench gb_bench_p2p = {
	.name = "p2p",
	.summary = "GPU-to-GPU bandwidth and latency matrices, with and without peer access",
	.usage = "gpubench p2p [options]",
	.opts = p2p_opts,
	.params_size = sizeof(struct p2p_params),
	.set_defaults = p2p_defaults,
	.validate = p2p_validate,
	.supported = NULL,
	.run = p2p_run,
	.flags = GB_BENCH_NEEDS_GPU,
};
