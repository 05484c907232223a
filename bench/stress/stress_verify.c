/* SPDX-License-Identifier: MIT */
/*
 * stress_verify.c - the verification of `gpubench stress`'s results on
 * the worker's thread: ABFT row and column checksums and the exact phases'
 * checksums (enqueued after each batch, read back and turned into forensics
 * and located corrupt elements), the injected fault's attribution, the
 * per-phase reference results with the start-up repeatability self-check
 * that pins an algorithm, the repeat-and-compare digests that the cross-GPU
 * vote uses, and the references' recheck after the load. May use CUDA,
 * cuBLASLt, the kernels, stress_workers.c's helpers and stress_math.h.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/device/deadline_math.h"
#include "bench/device/cublaslt_dl.h"
#include "bench/device/gpu.h"
#include "bench/device/lt_matmul.h"
#include "bench/device/nvml.h"
#include "bench/stress/stress_internal.h"
#include "bench/stress/stress_math.h"
#include "kernels/kernels.h"
#include "report/json_util.h"
#include "report/thresholds.h"

/* ======================================================================= */
/* worker: verification                                                    */

static bool sums_on(const struct shared *sh, size_t phase)
{
	return sh->phases[phase].mode == GB_STRESS_EXACT || !sh->p->no_abft;
}

/* Enqueue the verification of slots [first, first + count) (mod the working range). */
int enqueue_verify(struct worker *w, size_t phase, const uint64_t *slot, size_t count,
		   bool compare)
{
	const struct shared *sh = w->sh;
	const struct wphase *ph = &w->ph[phase];
	uint64_t n = sh->n;
	bool sums = sums_on(sh, phase);

	WCUDA(w, cudaMemsetAsync(w->dv, 0, sizeof(*w->dv), w->stream), fail);
	for (size_t i = 0; i < count; i++) {
		if (sums) {
			WCUDA(w, cudaMemsetAsync(w->col, 0, n * sizeof(double), w->stream), fail);
			WCUDA(w, cudaMemsetAsync(w->row, 0, n * sizeof(double), w->stream), fail);
		}
		WCUDA(w, gb_launch_stress_verify(slot_ptr(w, slot[i]),
						 compare && ph->compare ? slot_ptr(w, phase) : NULL,
						 ph->t_out, n, n,
						 (uint32_t)slot[i], sums ? w->col : NULL,
						 sums ? w->row : NULL, w->dv, w->stream), fail);
		if (sums)
			WCUDA(w, gb_launch_stress_check_sums(w->col, w->row, ph->col_exp, ph->col_bound,
							     ph->row_exp, ph->row_bound, n, n,
							     (uint32_t)slot[i], w->dv, w->stream),
			      fail);
	}
	WCUDA(w, cudaMemcpyAsync(w->hv, w->dv, sizeof(*w->dv), cudaMemcpyDeviceToHost, w->stream),
	      fail);
	WCUDA(w, cudaMemcpyAsync(w->hflip, w->dflip, 2 * sizeof(*w->hflip), cudaMemcpyDeviceToHost,
				 w->stream), fail);
	WCUDA(w, cudaEventRecord(w->ev[2], w->stream), fail);
	return 0;
fail:
	return -1;
}

static double decode(enum gb_dtype t, unsigned long long bits)
{
	if (t == GB_DT_F64) {
		double d;

		memcpy(&d, &bits, sizeof(d));
		return d;
	} else {
		uint32_t u = (uint32_t)bits;
		float f;

		memcpy(&f, &u, sizeof(f));
		return f;
	}
}

static bool is_injected(const struct worker *w, uint64_t batch, uint32_t slot, int64_t row,
			int64_t col)
{
	const struct injection *in = &w->inj;

	return in->done && in->batch == batch && in->slot == slot &&
	       (row < 0 || row == in->row) && (col < 0 || col == in->col);
}

void forensic_base(const struct worker *w, struct gb_stress_forensic *f, const char *layer,
		   uint64_t batch, uint32_t slot)
{
	gb_stress_forensic_init(f);
	f->device = w->dev;
	f->t_s = run_time(w->sh);
	f->layer = layer;
	f->batch = batch;
	f->slot = slot;
}

static void forensics_elems(struct worker *w, const struct gb_stress_verify *v, size_t phase,
			    uint64_t batch)
{
	enum gb_dtype t = w->ph[phase].t_out;
	unsigned n = v->n_elem < GB_STRESS_MAX_RECORDS ? v->n_elem : GB_STRESS_MAX_RECORDS;

	for (unsigned k = 0; k < n; k++) {
		const struct gb_stress_elem_rec *r = &v->elem[k];
		struct gb_stress_forensic f;

		forensic_base(w, &f, "repeat", batch, r->slot);
		f.row = r->row;
		f.col = r->col;
		f.type = t;
		f.have_bits = true;
		f.expected_bits = r->expected_bits;
		f.got_bits = r->got_bits;
		f.expected = decode(t, r->expected_bits);
		f.got = decode(t, r->got_bits);
		f.injected = is_injected(w, batch, r->slot, r->row, r->col);
		push_forensic(w, &f);
	}
}

/* Read element (row, col) of a slot back; NAN if that fails. */
static double read_elem(struct worker *w, enum gb_dtype t, uint32_t slot, uint32_t row,
			uint32_t col, unsigned long long *bits)
{
	size_t es = gb_dtype_size(t);
	const char *src = (const char *)slot_ptr(w, slot) + ((uint64_t)row + (uint64_t)col * w->sh->n) * es;

	*bits = 0;
	if (cudaMemcpyAsync(w->helem, src, es, cudaMemcpyDeviceToHost, w->stream) != cudaSuccess ||
	    cudaEventRecord(w->ev[2], w->stream) != cudaSuccess || wait_event(w, w->ev[2], "read"))
		return NAN;
	if (es == 8)
		memcpy(bits, w->helem, 8);
	else
		*bits = *(const uint32_t *)w->helem;
	return decode(t, *bits);
}

/* The pass's failing checksums as the CPU-side records gb_stress_locate() reads. */
static size_t sum_fails(const struct gb_stress_verify *v, struct gb_stress_sum_fail *out)
{
	unsigned n = v->n_sum < GB_STRESS_MAX_RECORDS ? v->n_sum : GB_STRESS_MAX_RECORDS;

	for (unsigned k = 0; k < n; k++) {
		out[k].slot = v->sum[k].slot;
		out[k].index = v->sum[k].index;
		out[k].is_row = v->sum[k].is_row;
	}
	return n;
}

/* The failing row checksum `row` of a slot (present: gb_stress_locate found it). */
static const struct gb_stress_sum_rec *row_rec(const struct gb_stress_verify *v, size_t n,
					      uint32_t slot, uint32_t row)
{
	for (size_t k = 0; k < n; k++)
		if (v->sum[k].slot == slot && v->sum[k].is_row && v->sum[k].index == row)
			return &v->sum[k];
	return NULL;
}

/*
 * Whether a located element needs its details (a read back and an O(k)
 * recomputation): for the layer's first element, or while forensics are
 * still recorded. A GPU that corrupts every GEMM must not pay that for
 * every one of them, only count it.
 */
static bool want_detail(struct worker *w, const struct gb_stress_corrupt *first)
{
	bool want;

	pthread_mutex_lock(&w->lock);
	want = !first->have || w->n_forensics < STRESS_MAX_FORENSICS;
	pthread_mutex_unlock(&w->lock);
	return want;
}

/*
 * The located element (row, col) of a slot: its value read back, the value
 * it should have recomputed on the CPU from the generator (exact in exact
 * phases; in random ones the GPU's rounding is not known, so the value is
 * known only within the checksums' bound, tol), and which bits differ.
 * The checksum residual is no estimate of it: a flip to 3e38 swamps the
 * column's other elements in the double sum, and observed - expected
 * then is the flipped value minus the whole column's expected sum.
 */
static void corrupt_detail(struct worker *w, size_t phase, uint32_t slot, uint32_t row,
			   uint32_t col, double tol, struct gb_stress_corrupt *e)
{
	unsigned long long got_bits;

	e->type = w->ph[phase].t_out;
	e->row = row;
	e->col = col;
	e->got = read_elem(w, e->type, slot, row, col, &got_bits);
	e->got_bits = got_bits;
	e->read = !isnan(e->got) || got_bits != 0;
	e->expected = gb_stress_element(&w->sh->phases[phase], (uint64_t)w->sh->p->seed, w->sh->n,
					row, col);
	if (e->read)
		gb_stress_explain(e->type, got_bits, e->expected, tol, &e->diff);
}

/* Count a located element in its layer; the first one's details are kept. */
static void count_corrupt(struct worker *w, bool exact, const struct gb_stress_corrupt *e)
{
	pthread_mutex_lock(&w->lock);
	gb_stress_corrupt_add(exact ? &w->exact_first : &w->abft_first, e);
	pthread_mutex_unlock(&w->lock);
}

/*
 * Checksum records into forensics. failed_sums: the pass's failing
 * checksums, kept or not. One failing row and one failing column in a
 * slot locate the element (gb_stress_locate): it is read back and
 * explained (corrupt_detail), counted in its layer, and recorded.
 */
static void forensics_sums(struct worker *w, const struct gb_stress_verify *v, size_t phase,
			   uint64_t batch, uint64_t failed_sums)
{
	bool exact = w->sh->phases[phase].mode == GB_STRESS_EXACT;
	const char *layer = exact ? "exact" : "abft";
	const struct gb_stress_corrupt *first = exact ? &w->exact_first : &w->abft_first;
	struct gb_stress_sum_fail fails[GB_STRESS_MAX_RECORDS];
	size_t n = sum_fails(v, fails);

	for (size_t k = 0; k < n; k++) {
		const struct gb_stress_sum_rec *c = &v->sum[k], *r;
		struct gb_stress_forensic f;
		struct gb_stress_corrupt e;
		uint32_t row, col;
		bool located = gb_stress_locate(fails, n, failed_sums, c->slot, &row, &col);

		if (located && c->is_row)
			continue; /* reported with its column */
		forensic_base(w, &f, layer, batch, c->slot);
		f.type = w->ph[phase].t_out;
		f.sum_observed = c->observed;
		f.sum_expected = c->expected;
		f.sum_bound = c->bound;
		if (c->is_row)
			f.row = c->index;
		else
			f.col = c->index;
		if (located) {
			f.row = row;
			f.col = col;
		}
		f.injected = is_injected(w, batch, c->slot, f.row, f.col);
		if (!located) {
			push_forensic(w, &f);
			continue;
		}
		gb_stress_corrupt_init(&e);
		e.batch = batch;
		e.t_s = f.t_s;
		if (f.injected || want_detail(w, first)) {
			r = row_rec(v, n, c->slot, row);
			corrupt_detail(w, phase, c->slot, row, col,
				       r ? fmin(c->bound, r->bound) : c->bound, &e);
			f.got = e.got;
			f.got_bits = e.got_bits;
			f.expected = e.expected;
			/* exact phases know every bit; random ones when one flip explains it */
			f.have_bits = e.read && (exact || e.diff.n_bits == 1);
			f.expected_bits = e.diff.expected_bits;
		}
		push_forensic(w, &f); /* counted as dropped when the record is full */
		/* --inject-fault's flip is not the GPU's corruption */
		if (!f.injected)
			count_corrupt(w, exact, &e);
	}
}

static void forensic_nonfinite(struct worker *w, const struct gb_stress_verify *v, uint64_t batch,
			       uint64_t count)
{
	struct gb_stress_forensic f;

	/* without repeat or checksums the elements are not located: say so once per batch */
	if (!count || v->n_elem || v->n_sum)
		return;
	forensic_base(w, &f, "nan", batch, 0);
	f.slot = -1;
	f.got = NAN;
	push_forensic(w, &f);
}

/*
 * The injected flip shows in the batch's counts: one element in repeat, its
 * row and column checksums, and the non-finite count when it became
 * infinite. Take those out (it is not a hardware error) and note who caught it.
 */
static void attribute_injection(struct worker *w, struct gb_stress_verify *v, size_t phase)
{
	struct injection *in = &w->inj;
	enum gb_dtype t = w->ph[phase].t_out;
	const char *sums = w->sh->phases[phase].mode == GB_STRESS_EXACT ? "exact" : "abft";
	unsigned n = v->n_sum < GB_STRESS_MAX_RECORDS ? v->n_sum : GB_STRESS_MAX_RECORDS;
	uint64_t matched = 0;
	size_t used = 0;

	in->caught[0] = '\0';
	if (!w->sh->p->no_repeat && v->repeat_diffs) {
		v->repeat_diffs--;
		used += (size_t)snprintf(in->caught + used, sizeof(in->caught) - used, "repeat");
	}
	for (unsigned k = 0; k < n; k++)
		matched += v->sum[k].slot == in->slot &&
			   v->sum[k].index == (v->sum[k].is_row ? in->row : in->col);
	if (v->n_sum > GB_STRESS_MAX_RECORDS && v->sum_mismatches >= 2)
		matched = 2;
	if (matched && sums_on(w->sh, phase)) {
		v->sum_mismatches -= matched < v->sum_mismatches ? matched : v->sum_mismatches;
		snprintf(in->caught + used, sizeof(in->caught) - used, "%s%s", used ? ", " : "",
			 sums);
		used = strlen(in->caught);
	}
	if (!isfinite(decode(t, w->hflip[1])) && v->nonfinite) {
		v->nonfinite--;
		snprintf(in->caught + used, sizeof(in->caught) - used, "%snan", used ? ", " : "");
	}
	in->f.type = t;
	in->f.have_bits = true;
	in->f.expected_bits = w->hflip[0];
	in->f.got_bits = w->hflip[1];
	in->f.expected = decode(t, w->hflip[0]);
	in->f.got = decode(t, w->hflip[1]);
}

/* Fold a finished verification into the counters and forensics. */
void take_verify(struct worker *w, size_t phase, uint64_t batch, bool injected_batch)
{
	struct gb_stress_verify v = *w->hv;
	/*
	 * Every failing checksum of the pass, before the injected flip's are
	 * taken out: the records are complete only when this many were kept
	 * (n_sum stops counting once the records are full, so it cannot say).
	 */
	uint64_t failed_sums = v.sum_mismatches;
	bool exact = w->sh->phases[phase].mode == GB_STRESS_EXACT;
	struct wphase *ph = &w->ph[phase];
	double ratio = decode(GB_DT_F64, v.max_ratio_bits);

	if (injected_batch)
		attribute_injection(w, &v, phase);
	forensics_elems(w, &v, phase, batch);
	forensics_sums(w, &v, phase, batch, failed_sums);
	forensic_nonfinite(w, &v, batch, v.nonfinite);
	pthread_mutex_lock(&w->lock);
	w->repeat += v.repeat_diffs;
	w->nonfinite += v.nonfinite;
	if (exact)
		w->exact += v.sum_mismatches;
	else
		w->abft += v.sum_mismatches;
	/*
	 * The injected flip's checksums would swamp the headroom of the others:
	 * skip that batch. A batch whose sums all match exactly (no bits: ratio
	 * 0, as when few-bit inputs make the accumulation exact) used none of
	 * the bound, and says 0, not "no ratio".
	 */
	if (!exact && !injected_batch && sums_on(w->sh, phase) &&
	    (isnan(ph->abft_max_ratio) || ratio > ph->abft_max_ratio))
		ph->abft_max_ratio = ratio;
	pthread_mutex_unlock(&w->lock);
}

static int digest_slot(struct worker *w, size_t phase, uint64_t *out)
{
	uint64_t words = w->sh->n * w->sh->n * gb_dtype_size(w->ph[phase].t_out) / 4;

	WCUDA(w, cudaMemsetAsync(w->dflip, 0, sizeof(*w->dflip), w->stream), fail);
	WCUDA(w, gb_launch_stress_digest(slot_ptr(w, phase), words, w->dflip, w->stream), fail);
	WCUDA(w, cudaMemcpyAsync(w->hflip, w->dflip, sizeof(*w->hflip), cudaMemcpyDeviceToHost,
				 w->stream), fail);
	WCUDA(w, cudaEventRecord(w->ev[2], w->stream), fail);
	if (wait_event(w, w->ev[2], "digest"))
		return -1;
	*out = w->hflip[0];
	return 0;
fail:
	return -1;
}

/* Elements of slot `slot` whose bits differ from the phase's reference slot. */
static int compare_slots(struct worker *w, size_t phase, uint64_t slot, uint64_t *diffs)
{
	uint64_t n = w->sh->n;

	WCUDA(w, cudaMemsetAsync(w->dv, 0, sizeof(*w->dv), w->stream), fail);
	WCUDA(w, gb_launch_stress_verify(slot_ptr(w, slot), slot_ptr(w, phase), w->ph[phase].t_out,
					 n, n, (uint32_t)slot, NULL, NULL, w->dv, w->stream),
	      fail);
	WCUDA(w, cudaMemcpyAsync(w->hv, w->dv, sizeof(*w->dv), cudaMemcpyDeviceToHost, w->stream),
	      fail);
	WCUDA(w, cudaEventRecord(w->ev[2], w->stream), fail);
	if (wait_event(w, w->ev[2], "compare"))
		return -1;
	*diffs = w->hv->repeat_diffs;
	return 0;
fail:
	return -1;
}

struct repro {
	struct worker *w;
	size_t phase;
};

/*
 * gb_stress_pick_algo's trial: candidate c computes the reference, then
 * STRESS_REPRO_RUNS more results into the first working slot (the load
 * overwrites it), each compared bit for bit with the reference.
 */
static int repro_trial(void *user, int c, uint64_t *diffs)
{
	struct repro *r = user;
	struct worker *w = r->w;
	uint64_t scratch = w->sh->n_phases;

	pin_algo(&w->ph[r->phase], c);
	*diffs = 0;
	if (run_gemm(w, r->phase, r->phase))
		return -1;
	for (int k = 0; k < STRESS_REPRO_RUNS; k++) {
		uint64_t d = 0;

		if (run_gemm(w, r->phase, scratch) || compare_slots(w, r->phase, scratch, &d))
			return -1;
		*diffs = d > *diffs ? d : *diffs;
		beat(w);
	}
	return 0;
}

/*
 * A random phase's reference with an algorithm that repeats bit for bit
 * (see gb_stress_pick_algo). Without one the phase is not compared, here
 * or across GPUs, and the report says so. Exact phases need no such check:
 * every partial sum is an integer, exact in any order, so any algorithm
 * gives the same bits and a difference can only be an error.
 */
static int reference_gemm(struct worker *w, size_t p)
{
	const struct stress_params *prm = w->sh->p;
	struct wphase *ph = &w->ph[p];
	struct repro r = { w, p };

	if (w->sh->phases[p].mode == GB_STRESS_EXACT || (prm->no_repeat && prm->no_cross))
		return run_gemm(w, p, p);
	if (gb_stress_pick_algo(ph->n_cand, repro_trial, &r, &ph->pick))
		return -1;
	ph->picked = true;
	if (ph->pick.chosen >= 0)
		return 0; /* its trial computed the reference last */
	ph->compare = false;
	ph->repeatable = false;
	pin_algo(ph, 0);
	return run_gemm(w, p, p);
}

/* Each phase's reference result: computed once, verified by its checksums, digested. */
int make_references(struct worker *w)
{
	for (size_t p = 0; p < w->sh->n_phases; p++) {
		uint64_t slot = p;

		if (reference_gemm(w, p))
			return -1;
		if (enqueue_verify(w, p, &slot, 1, false) || wait_event(w, w->ev[2], "verify"))
			return -1;
		take_verify(w, p, 0, false);
		if (digest_slot(w, p, &w->ph[p].digest))
			return -1;
		w->ph[p].digest_ok = true;
		beat(w);
	}
	return 0;
}

/* After the load: every reference must still hold what it held (memory retention). */
void recheck_references(struct worker *w)
{
	for (size_t p = 0; p < w->sh->n_phases; p++) {
		uint64_t d, slot = p;

		if (digest_slot(w, p, &d))
			return;
		if (d == w->ph[p].digest)
			continue;
		w->ph[p].digest_changed = true;
		pthread_mutex_lock(&w->lock);
		w->repeat++;
		pthread_mutex_unlock(&w->lock);
		/* the checksums say where, when they can */
		if (enqueue_verify(w, p, &slot, 1, false) || wait_event(w, w->ev[2], "verify"))
			return;
		take_verify(w, p, w->batches, false);
	}
}
