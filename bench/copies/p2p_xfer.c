/* SPDX-License-Identifier: MIT */
/*
 * p2p_xfer.c - one cell of `gpubench p2p`: how a transfer between two GPUs
 * is issued (copy engine, SM copy, staged, pointer chase), poisoned and
 * verified, timed on both GPUs behind one blocker, and turned into the
 * cell's median, metric and data verdict. Uses the copy engine, the copy
 * conventions, the peer rules (bench/device/peer_math.h) and the kernels.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench/copies/p2p_internal.h"
#include "bench/device/peer_math.h"
#include "kernels/kernels.h"

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
		p2p_note(t, x, what);
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
int p2p_measure(struct p2p *t, const struct xfer *x)
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
