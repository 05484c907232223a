/* SPDX-License-Identifier: MIT */
/*
 * bandwidth_copy.c - `gpubench bandwidth`'s copies: one operation (h2d, d2h,
 * bidir, d2d or STREAM, by the copy engine or an SM kernel), how it is
 * issued and timed behind the blocker (or without it, for pageable and
 * managed memory), and the samples of one size, the halves of a two-way
 * copy and the warm-up. Uses the copy engine, the kernels and NVML (the
 * link read under load).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench/copies/bandwidth_internal.h"
#include "bench/device/nvml.h"
#include "kernels/kernels.h"

/* ---- small helpers ---- */

/* The GPU, or the host side of a managed migration (the GPU's node when it took one). */
static struct cudaMemLocation location(const struct dev_state *st, bool device)
{
	struct cudaMemLocation loc;

	if (!device)
		return st->managed_host;
	memset(&loc, 0, sizeof(loc));
	loc.type = cudaMemLocationTypeDevice;
	loc.id = st->dev;
	return loc;
}

enum gb_stream_op bw_stream_op(enum gb_copy_test t)
{
	switch (t) {
	case GB_CT_STREAM_SCALE:
		return GB_STREAM_SCALE;
	case GB_CT_STREAM_ADD:
		return GB_STREAM_ADD;
	case GB_CT_STREAM_TRIAD:
		return GB_STREAM_TRIAD;
	default:
		return GB_STREAM_COPY;
	}
}

static bool is_host_test(enum gb_copy_test t)
{
	return t == GB_CT_H2D || t == GB_CT_D2H || t == GB_CT_BIDIR;
}

/* ---- operations ---- */

static void set_slot(struct slot *s, void *dst, void *dst_view, const void *src, void *src_view,
		     uint64_t seed)
{
	s->dst = dst;
	s->dst_view = dst_view;
	s->src = src;
	s->src_view = src_view;
	s->seed = seed;
}

void bw_make_op(struct op *op, struct dev_state *st, enum gb_copy_test t,
		enum gb_copy_method m, enum gb_copy_memory mem, size_t bytes)
{
	memset(op, 0, sizeof(*op));
	op->test = t;
	op->method = m;
	op->mem = mem;
	op->bytes = bytes;
	op->nstreams = op->nslots = 1;
	switch (t) {
	case GB_CT_H2D:
		set_slot(&op->slot[0], st->d[0], st->d[0], st->h[0], st->h_view[0], SEED_SRC);
		break;
	case GB_CT_D2H:
		set_slot(&op->slot[0], st->h[0], st->h_view[0], st->d[0], st->d[0], SEED_SRC);
		break;
	case GB_CT_BIDIR:
		set_slot(&op->slot[0], st->d[0], st->d[0], st->h[0], st->h_view[0], SEED_SRC);
		set_slot(&op->slot[1], st->h[1], st->h_view[1], st->d[1], st->d[1], SEED_SRC2);
		op->nslots = 2;
		/* the SM form is one split-warp kernel; the copy engine needs a stream per direction */
		op->nstreams = m == GB_CM_CE ? 2 : 1;
		break;
	case GB_CT_D2D:
		set_slot(&op->slot[0], st->d[1], st->d[1], st->d[0], st->d[0], SEED_SRC);
		break;
	default: /* STREAM: dst d[2], x d[0], y d[1] */
		set_slot(&op->slot[0], st->d[2], st->d[2], st->d[0], st->d[0], SEED_SRC);
		set_slot(&op->slot[1], NULL, NULL, st->d[1], st->d[1], SEED_SRC2);
		break;
	}
}

bool bw_managed_ce(const struct op *op)
{
	return op->mem == GB_MEM_MANAGED && op->method == GB_CM_CE;
}

/* The managed buffer of a managed test: the source of h2d, the destination of d2h. */
const void *bw_managed_buf(const struct op *op)
{
	return op->test == GB_CT_H2D ? op->slot[0].src : op->slot[0].dst;
}

/* Enqueue one operation on stream i (the copy of slot i). */
static cudaError_t issue(struct dev_state *st, const struct op *op, int i)
{
	const struct slot *s = &op->slot[i];

	if (gb_copy_test_is_stream(op->test))
		return gb_launch_stream(bw_stream_op(op->test), s->dst_view, s->src_view,
					op->slot[1].src_view, STREAM_Q, op->bytes / sizeof(double),
					st->sm_count, st->cs[0].s);
	if (bw_managed_ce(op))
		/* "copying" managed memory is migrating it: prefetch it across the link */
		return cudaMemPrefetchAsync(bw_managed_buf(op), op->bytes,
					    location(st, op->test == GB_CT_H2D), 0, st->cs[0].s);
	if (op->method == GB_CM_CE)
		return cudaMemcpyAsync(s->dst, s->src, op->bytes, cudaMemcpyDefault, st->cs[i].s);
	if (op->nslots == 2)
		return gb_launch_sm_copy_bidir(op->slot[0].dst_view, op->slot[0].src_view,
					       op->slot[1].dst_view, op->slot[1].src_view, op->bytes,
					       st->sm_count, st->cs[0].s);
	return gb_launch_sm_copy(s->dst_view, s->src_view, op->bytes, st->sm_count, st->cs[0].s);
}

/* Put a managed buffer back on the side the next timed migration starts from. */
static cudaError_t managed_reset(struct dev_state *st, const struct op *op)
{
	bool to_device = op->method == GB_CM_CE && op->test == GB_CT_D2H;

	return cudaMemPrefetchAsync(bw_managed_buf(op), op->bytes, location(st, to_device), 0,
				    st->cs[0].s);
}

/* ---- timing ---- */

/* The link as NVML reports it now, while copies run; keeps the best reading. */
static void read_link_under_load(struct dev_state *st)
{
	struct gb_device_info tmp;

	if (!gb_nvml_loaded() || !st->info || !st->info->pci_bus_id)
		return;
	gb_device_info_init(&tmp);
	tmp.pci_bus_id = gb_strdup(st->info->pci_bus_id);
	gb_nvml_fill_device(&tmp, NULL, 0);
	/* the best reading: a link may still be ramping up in the first one */
	if (tmp.pcie_gen > st->link_gen)
		st->link_gen = tmp.pcie_gen;
	if (tmp.pcie_width > st->link_width)
		st->link_width = tmp.pcie_width;
	free(tmp.pci_bus_id);
	free(tmp.name);
	free(tmp.uuid);
	free(tmp.brand);
	free(tmp.spec_key);
}

struct issue_ctx {
	struct dev_state *st;
	const struct op *op;
};

static cudaError_t issue_cb(void *user, int i)
{
	const struct issue_ctx *c = user;

	return issue(c->st, c->op, i);
}

static void released_cb(void *user)
{
	const struct issue_ctx *c = user;

	if (c->st->read_link)
		read_link_under_load(c->st);
}

/*
 * loops copies per stream behind the blocker (pinned and device memory):
 * warm-up copies and the start events are queued before the release, so all
 * streams start together and enqueue cost is outside the events. Without
 * the blocker (pageable), the same sequence runs as it is queued.
 */
static int timed_streams(struct bw *b, struct dev_state *st, const struct op *op, bool blocker,
			 const long *loops_of, double sec[2])
{
	struct issue_ctx c = { st, op };
	struct gb_ce_stream *streams[2] = { &st->cs[0], &st->cs[1] };
	struct gb_ce_sample smp = {
		.st = streams,
		.n = op->nstreams,
		.flag = blocker ? st->flag : NULL,
		.warmup = GB_CE_WARMUP,
		.loops = (long)b->p->loops,
		.issue = issue_cb,
		.user = &c,
		.released = released_cb,
	};

	if (loops_of) {
		smp.loops_of[0] = loops_of[0];
		smp.loops_of[1] = loops_of[1];
	}
	return gb_ce_time(b->res, &smp, sec);
}

/*
 * Managed memory: each migration is timed on its own, after an untimed
 * prefetch puts the pages back where it starts, and the times are summed.
 */
static int timed_managed(struct bw *b, struct dev_state *st, const struct op *op, double *sec)
{
	struct gb_bench_result *res = b->res;
	struct gb_ce_stream *cs = &st->cs[0];
	int rc = 0;
	double total = 0, one = 0;

	for (long l = 0; l < (long)b->p->loops; l++) {
		GB_CUDA_GOTO(res, managed_reset(st, op), out);
		GB_CUDA_GOTO(res, cudaEventRecord(cs->start, cs->s), out);
		GB_CUDA_GOTO(res, issue(st, op, 0), out);
		GB_CUDA_GOTO(res, cudaEventRecord(cs->stop, cs->s), out);
		if ((rc = gb_ce_elapsed(res, cs, &one)))
			goto out;
		total += one;
	}
	*sec = total;
out:
	return rc;
}

static int timed_run(struct bw *b, struct dev_state *st, const struct op *op, double sec[2])
{
	if (op->mem == GB_MEM_MANAGED)
		return timed_managed(b, st, op, &sec[0]);
	return timed_streams(b, st, op, op->mem != GB_MEM_PAGEABLE, NULL, sec);
}

/*
 * GB/s of one sample into b->cur[k]; false when a time was not positive
 * (below the events' resolution), so the sample is not kept: one NaN would
 * make the median and every statistic of the size NaN. Both directions of
 * a two-way copy start together, so the pair ends with the slower one.
 */
static bool sample_gbps(struct bw *b, const struct op *op, const double sec[2], size_t k)
{
	double counted = gb_copy_counted_bytes(op->test, (double)op->bytes);
	double t = op->nstreams == 2 ? fmax(sec[0], sec[1]) : sec[0];

	b->cur[k] = gb_copy_gbps(counted, (long)b->p->loops, t);
	return isfinite(b->cur[k]);
}

/* Poison, one timed sample, verify: what every sample of every path does. */
static int one_sample(struct bw *b, struct dev_state *st, const struct op *op,
		      const long *loops_of, bool read_link, double sec[2])
{
	long long bad = 0;
	int rc;

	if (b->verify && (rc = bw_poison(b, st, op)))
		return rc;
	st->read_link = read_link;
	rc = loops_of ? timed_streams(b, st, op, true, loops_of, sec) : timed_run(b, st, op, sec);
	st->read_link = false;
	if (rc)
		return rc;
	if (b->verify) {
		if ((rc = bw_verify_op(b, st, op, &bad)))
			return rc;
		bw_note_mismatches(st, op, bad);
	}
	return 0;
}

int bw_run_size(struct bw *b, struct dev_state *st, const struct op *op, bool largest,
		struct curve *c)
{
	bool read_link = largest && is_host_test(op->test) && op->mem == GB_MEM_PINNED &&
			 (double)op->bytes * (double)b->p->loops >= LINK_READ_MIN_BYTES;
	size_t n = 0;
	int rc = 0;

	for (int64_t s = 0; s < b->p->samples && !gb_should_stop(b->ctx); s++) {
		double sec[2] = { NAN, NAN };

		if ((rc = one_sample(b, st, op, NULL, read_link, sec)))
			return rc;
		if (sample_gbps(b, op, sec, n))
			n++;
	}
	if (n == 0)
		return 0;
	c->size[c->n] = (double)op->bytes;
	c->gbps[c->n] = gb_percentile(b->cur, n, 50);
	gb_stats_compute(&c->stats[c->n], b->cur, n);
	c->n++;
	c->last_size = (double)op->bytes;
	memcpy(b->last, b->cur, n * sizeof(double));
	b->n_last = n;
	return 0;
}

/*
 * The halves of a two-way copy-engine copy. In the two-way sample both
 * directions start together but one ends first, and the other then runs
 * alone at its one-way speed, so bytes / time of the slower direction would
 * overstate what it does under contention. Each half is timed again with
 * the other direction given twice the copies (nvbandwidth's interferer), so
 * it runs under load from start to end; a sample in which the interferer
 * still ended first says nothing and is dropped.
 */
int bw_measure_halves(struct bw *b, struct dev_state *st, const struct op *op)
{
	long loops = (long)b->p->loops;
	int rc = 0;

	for (int d = 0; d < 2; d++) {
		long loops_of[2];
		int dropped = 0;

		loops_of[d] = loops;
		loops_of[1 - d] = 2 * loops;
		b->n_half[d] = 0;
		for (int64_t s = 0; s < b->p->samples && !gb_should_stop(b->ctx); s++) {
			double sec[2] = { NAN, NAN }, v;

			if ((rc = one_sample(b, st, op, loops_of, false, sec)))
				return rc;
			v = gb_copy_gbps((double)op->bytes, loops, sec[d]);
			if (!(sec[1 - d] >= sec[d]))
				dropped++;
			else if (isfinite(v))
				b->half[d][b->n_half[d]++] = v;
		}
		if (dropped)
			bw_add_note(st,
				 "bidir halves: %d of %lld %s samples dropped: the other direction, "
				 "given twice the copies, still ended first",
				 dropped, (long long)b->p->samples, d ? "d2h" : "h2d");
	}
	return 0;
}

/* Untimed runs at the largest size until clocks and the link have come up. */
int bw_warm_up(struct bw *b, struct dev_state *st, const struct op *op)
{
	double t0 = gb_now_s(), sec[2];
	int rc = 0;

	for (int i = 0; i < WARMUP_MAX_RUNS && rc == 0 && !gb_should_stop(b->ctx); i++) {
		rc = timed_run(b, st, op, sec);
		if (gb_now_s() - t0 >= WARMUP_SECONDS)
			break;
	}
	return rc;
}
