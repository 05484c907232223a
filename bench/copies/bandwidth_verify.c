/* SPDX-License-Identifier: MIT */
/*
 * bandwidth_verify.c - `gpubench bandwidth`'s data checks: source patterns,
 * the poison written before every sample, and the on-device verification of
 * what each copy wrote (through the scratch buffer where no kernel can reach
 * the memory). Uses the copy engine's pattern check and the kernels.
 */
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "bench/copies/bandwidth_internal.h"
#include "kernels/kernels.h"

/* ---- fill and verify any buffer, through the scratch buffer when no kernel can reach it ---- */

static int fill_buf(struct bw *b, struct dev_state *st, void *ptr, void *view, size_t bytes,
		    uint64_t seed)
{
	struct gb_bench_result *res = b->res;
	int rc = 0;

	cudaStream_t s = st->cs[0].s;

	if (view) {
		GB_CUDA_GOTO(res, gb_launch_pattern_fill(view, bytes, seed, st->sm_count, s), out);
	} else {
		GB_CUDA_GOTO(res, gb_launch_pattern_fill(st->d[2], bytes, seed, st->sm_count, s), out);
		GB_CUDA_GOTO(res, cudaMemcpyAsync(ptr, st->d[2], bytes, cudaMemcpyDefault, s), out);
	}
	GB_CUDA_GOTO(res, cudaStreamSynchronize(s), out);
out:
	return rc;
}

static int verify_buf(struct bw *b, struct dev_state *st, const void *ptr, const void *view,
		      size_t bytes, uint64_t seed, long long *bad)
{
	struct gb_bench_result *res = b->res;
	int rc = 0;

	if (!view) {
		GB_CUDA_GOTO(res, cudaMemcpyAsync(st->d[2], ptr, bytes, cudaMemcpyDefault,
						  st->cs[0].s),
			     out);
		view = st->d[2];
	}
	rc = gb_ce_verify(res, st->cs[0].s, view, bytes, seed, st->bad, st->sm_count, bad);
out:
	return rc;
}

/* ---- one test ---- */

/* Sources get their pattern once per test, at the largest size (patterns are by position). */
int bw_setup_sources(struct bw *b, struct dev_state *st, const struct op *op)
{
	struct gb_bench_result *res = b->res;
	int rc = 0;

	if (gb_copy_test_is_stream(op->test)) {
		size_t n = b->max_bytes / sizeof(double);

		GB_CUDA_GOTO(res, gb_launch_pattern_fill_double(op->slot[0].src_view, n, SEED_SRC,
								st->sm_count, st->cs[0].s),
			     out);
		GB_CUDA_GOTO(res, gb_launch_pattern_fill_double(op->slot[1].src_view, n, SEED_SRC2,
								st->sm_count, st->cs[0].s),
			     out);
		GB_CUDA_GOTO(res, cudaStreamSynchronize(st->cs[0].s), out);
		return 0;
	}
	if (bw_managed_ce(op))
		return fill_buf(b, st, (void *)bw_managed_buf(op), (void *)bw_managed_buf(op), b->max_bytes,
				SEED_SRC);
	for (int i = 0; i < op->nslots && rc == 0; i++)
		rc = fill_buf(b, st, (void *)op->slot[i].src, op->slot[i].src_view, b->max_bytes,
			      op->slot[i].seed);
out:
	return rc;
}

/* Overwrite what the copy will write, so a copy that writes nothing cannot pass. */
int bw_poison(struct bw *b, struct dev_state *st, const struct op *op)
{
	int rc = 0;

	if (bw_managed_ce(op))
		return 0; /* migrated, not copied: the pages themselves are checked */
	for (int i = 0; i < op->nslots && rc == 0; i++)
		if (op->slot[i].dst)
			rc = fill_buf(b, st, op->slot[i].dst, op->slot[i].dst_view, op->bytes,
				      SEED_POISON);
	return rc;
}

int bw_verify_op(struct bw *b, struct dev_state *st, const struct op *op, long long *bad)
{
	struct gb_bench_result *res = b->res;
	long long one = 0;
	int rc = 0;

	*bad = 0;
	if (gb_copy_test_is_stream(op->test)) {
		GB_CUDA_GOTO(res, cudaMemsetAsync(st->bad, 0, sizeof(*st->bad), st->cs[0].s), out);
		GB_CUDA_GOTO(res, gb_launch_stream_verify(bw_stream_op(op->test), op->slot[0].dst_view,
							  SEED_SRC, SEED_SRC2, STREAM_Q,
							  op->bytes / sizeof(double), st->bad,
							  st->sm_count, st->cs[0].s),
			     out);
		return gb_ce_read_counter(res, st->cs[0].s, st->bad, bad);
	}
	if (bw_managed_ce(op))
		return verify_buf(b, st, bw_managed_buf(op), bw_managed_buf(op), op->bytes, SEED_SRC, bad);
	for (int i = 0; i < op->nslots && rc == 0; i++) {
		rc = verify_buf(b, st, op->slot[i].dst, op->slot[i].dst_view, op->bytes,
				op->slot[i].seed, &one);
		*bad += one;
	}
out:
	return rc;
}

void bw_note_mismatches(struct dev_state *st, const struct op *op, long long bad)
{
	char base[64], size[32];

	if (st->mismatches < 0)
		st->mismatches = 0;
	if (bad <= 0)
		return;
	if (st->mismatches == 0) {
		bw_metric_base(base, sizeof(base), op);
		gb_format_bytes(size, sizeof(size), (double)op->bytes);
		snprintf(st->first_bad, sizeof(st->first_bad),
			 "%s at %s: %lld of %zu 16-byte words wrong", base, size, bad,
			 op->bytes / GB_COPY_GRAIN);
	}
	st->mismatches += bad;
}
