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
 *
 * This file holds the options, the GPUs' resources, peer access and the
 * walk over the matrix; p2p_xfer.c measures one cell, p2p_checks.c draws
 * the findings and writes the matrices; what they share is in
 * p2p_internal.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/device/copy_engine.h"
#include "bench/device/copy_math.h"
#include "bench/device/peer_math.h"
#include "bench/device/gpu.h"
#include "kernels/kernels.h"
#include "bench/device/telemetry.h"
#include "bench/copies/p2p_internal.h"

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

void p2p_note(struct p2p *t, const struct xfer *x, const char *what)
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

/* ---- one cell: what is measured (p2p_xfer.c measures it) ---- */

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
	return p2p_measure(t, &x);
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
	p2p_note(t, &where, what);
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
		p2p_note(t, &where, why);
		cudaGetLastError();
	} else {
		rc = run_peer(t, a, b, ba);
	}
	set_peer(a->dev, b->dev, false);
	if (ba)
		set_peer(b->dev, a->dev, false);
	return rc;
}

/* ---- the run ---- */

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
		p2p_check_staged(&t);
		p2p_check_nvlink(&t);
		p2p_check_pair_peers(&t);
		p2p_summary_checks(&t, single_reason);
	}
	gb_sampler_stop(sampler);
	if (t.mat[0])
		p2p_add_matrices(&t, single_reason);
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
