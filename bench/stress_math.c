/* SPDX-License-Identifier: MIT */
/*
 * stress_math.c - the arithmetic of `gpubench stress` that needs no GPU:
 * precisions, phases, the ABFT reference and bound, sizing, load profiles,
 * the cross-GPU vote, the hardware XID set and forensics; see stress_math.h.
 * The thresholds and verdict rules are in stress_verdict_math.c, the NVML
 * observation in stress_health_math.c.
 */
#include "bench/stress_math.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/options.h"
#include "report/json_util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ======================================================================= */
/* precisions                                                              */

const char *const gb_stress_prec_names[] = { "bf16", "fp16", "tf32", "fp32",
					     "fp64", "fp8",  "mixed", NULL };

/*
 * u_acc, the unit roundoff assumed for the accumulation:
 *  - fp64 (DMMA or DFMA) and fp32 on CUDA cores round to nearest: 2^-53, 2^-24.
 *  - tensor-core paths accumulating in FP32 (tf32, fp16, bf16): 2^-23, twice
 *    FP32's, because tensor cores align and normalise with truncation rather
 *    than rounding (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of
 *    NVIDIA tensor cores", PeerJ CS 2021).
 *  - fp8: 2^-13, because Hopper's FP8 tensor cores keep only about 14 bits
 *    while accumulating (DeepSeek-V3 technical report, section 3.3.2).
 * Random inputs have sig_bits significand bits so the stored value is the
 * generated one (TF32 data are generated with TF32's 11 bits, so the tensor
 * core's own rounding of FP32 inputs to TF32 changes nothing).
 */
static const struct gb_stress_gemm_type gemm_types[] = {
	{ GB_SP_BF16, GB_DT_BF16, GB_DT_F32, 8, 0x1p-23, 256, 24, GB_PREC_BF16 },
	{ GB_SP_FP16, GB_DT_F16, GB_DT_F32, 11, 0x1p-23, 2048, 24, GB_PREC_FP16 },
	{ GB_SP_TF32, GB_DT_F32, GB_DT_F32, 11, 0x1p-23, 2048, 24, GB_PREC_TF32 },
	{ GB_SP_FP32, GB_DT_F32, GB_DT_F32, 24, 0x1p-24, 1LL << 24, 24, GB_PREC_FP32 },
	{ GB_SP_FP64, GB_DT_F64, GB_DT_F64, 53, 0x1p-53, 1LL << 53, 53, GB_PREC_FP64 },
	/* FP8 accumulation: 14 exact bits (see gb_stress_exact_range) */
	{ GB_SP_FP8, GB_DT_E4M3, GB_DT_F32, 4, 0x1p-13, 16, 14, GB_PREC_FP8 },
};

int gb_stress_gemm_type(enum gb_stress_prec p, struct gb_stress_gemm_type *t)
{
	for (size_t i = 0; i < ARRAY_LEN(gemm_types); i++) {
		if (gemm_types[i].prec == p) {
			*t = gemm_types[i];
			return 0;
		}
	}
	return -1;
}

size_t gb_stress_expand_prec(enum gb_stress_prec p, enum gb_stress_prec out[2])
{
	if (p == GB_SP_MIXED) {
		/* DCGM targeted power mixes FP64 and FP16 GEMMs to draw the most power */
		out[0] = GB_SP_FP64;
		out[1] = GB_SP_FP16;
		return 2;
	}
	out[0] = p;
	return 1;
}

/* packed major * 10 + minor: fp16 7.0, bf16 and tf32 8.0, fp8 8.9 */
static int min_cc(enum gb_stress_prec p)
{
	switch (p) {
	case GB_SP_BF16:
	case GB_SP_TF32:
		return 80;
	case GB_SP_FP16:
	case GB_SP_MIXED:
		return 70;
	case GB_SP_FP8:
		return 89;
	default:
		return 0;
	}
}

const char *gb_stress_unsupported(enum gb_stress_prec p, int cc_major, int cc_minor, char *buf,
				  size_t len)
{
	int need = min_cc(p);

	if ((unsigned)p >= GB_SP_COUNT) {
		snprintf(buf, len, "unknown precision %d", (int)p);
		return buf;
	}
	if (cc_major * 10 + cc_minor >= need)
		return NULL;
	snprintf(buf, len, "%s needs compute capability %d.%d or newer (this GPU is %d.%d)",
		 gb_stress_prec_names[p], need / 10, need % 10, cc_major, cc_minor);
	return buf;
}

/* ======================================================================= */
/* phases                                                                  */

/* floor(sqrt(limit / mult)) with integer correction, for limit < 2^63 */
static int64_t isqrt_div(uint64_t limit, uint64_t mult)
{
	uint64_t q = mult ? limit / mult : limit;
	uint64_t r = (uint64_t)sqrt((double)q);

	while (r > 0 && r * r > q)
		r--;
	while ((r + 1) * (r + 1) <= q)
		r++;
	return (int64_t)r;
}

int64_t gb_stress_exact_range(enum gb_stress_prec p, uint64_t m, uint64_t n, uint64_t k)
{
	struct gb_stress_gemm_type t;
	uint64_t mn = m > n ? m : n;
	int64_t r, r_sum;

	if (gb_stress_gemm_type(p, &t) || !k || !mn)
		return 0;
	r = t.int_max;
	/* every partial sum of the dot product below 2^acc_exact_bits */
	r_sum = isqrt_div((1ULL << t.acc_exact_bits) - 1, k);
	if (r_sum < r)
		r = r_sum;
	/* row and column sums (mn terms of up to k r^2) below 2^53 in double */
	if (mn <= (1ULL << 53) / k) {
		r_sum = isqrt_div((1ULL << 53) - 1, mn * k);
		if (r_sum < r)
			r = r_sum;
	} else {
		r = 0;
	}
	return r;
}

size_t gb_stress_phases(enum gb_stress_prec p, bool exact, uint64_t m, uint64_t n, uint64_t k,
			struct gb_stress_phase *out, size_t max)
{
	enum gb_stress_prec ps[2];
	size_t np = gb_stress_expand_prec(p, ps), count = 0;

	for (size_t i = 0; i < np && count < max; i++)
		out[count++] = (struct gb_stress_phase){ ps[i], GB_STRESS_RANDOM, 0 };
	for (size_t i = 0; exact && i < np && count < max; i++) {
		int64_t r = gb_stress_exact_range(ps[i], m, n, k);

		/* no integer range fits this shape: that precision has no exact phase */
		if (r > 0)
			out[count++] = (struct gb_stress_phase){ ps[i], GB_STRESS_EXACT, r };
	}
	return count;
}

size_t gb_stress_batch_phase(size_t n_random, size_t n_exact, uint64_t batch)
{
	uint64_t cycle, c;

	if (!n_random)
		return n_exact ? (size_t)(batch % n_exact) : 0;
	if (!n_exact)
		return (size_t)(batch % n_random);
	/* three random rounds, then one exact round */
	cycle = 3 * (uint64_t)n_random + n_exact;
	c = batch % cycle;
	if (c < 3 * (uint64_t)n_random)
		return (size_t)(c % n_random);
	return n_random + (size_t)(c - 3 * (uint64_t)n_random);
}

/* ======================================================================= */
/* ABFT                                                                    */

/*
 * Why these bounds. For C = A^T B computed in floating point, Huang and
 * Abraham's checksums compare e^T C with (e^T A^T) B and C e with A^T (B e),
 * both computed here in O((m + n) k) from the inputs. A correct C differs
 * from the exact product only by rounding; a checksum over len elements
 * then differs by
 *
 *   sum_i err_ij,   err_ij = rounding error of the dot product C(i, j).
 *
 * RIGOROUS: |err_ij| <= gamma_k (|A|^T |B|)_ij with gamma_k = k u/(1 - k u)
 * whatever the summation order (Higham, "Accuracy and Stability of
 * Numerical Algorithms", 3.1), so |sum_i err_ij| <= gamma_k (e^T |A|^T |B|)_j
 * = gamma_k abs_sum: never a false alarm, but for k = 8192 in FP32 it is
 * about 5e-4 x the sum of |products| and lets through everything but
 * flips of the highest exponent bits.
 *
 * PROBABILISTIC (the default for random data): rounding errors behave as
 * independent zero-mean variables (Higham and Mary, "A new approach to
 * probabilistic rounding error analysis", SISC 2019), so a dot product's
 * error grows like sqrt(k) u times the size of its partial sums, and
 * independent errors of len elements add in quadrature. For the zero-mean
 * inputs the stress generates, the size of the partial sums is that of the
 * elements themselves, whose expected 2-norm over the checksum is
 *   scale_j = sqrt(sum_p (sum_i A(i,p)^2) B(p,j)^2)
 * (the cross terms of E[sum_i C_ij^2] vanish). Hence
 *   bound = tau u_acc sqrt(k) scale_j.
 * Measured on the CPU (tests/test_stress_math.c, k = 8192, tau = 64), the
 * bound is about 200 standard deviations of the checksum error under
 * round-to-nearest (FP32 on CUDA cores, FP64). Truncation is biased within
 * a dot product and its error grows like k^1.5 instead of k: with the
 * tensor-core model of Fasi et al. (blocks of 4 products summed exactly,
 * each block added to the FP32 accumulator with truncation, V100's and the
 * worst of the parts they measured; u_acc doubled) the bound is 14 standard
 * deviations at k = 8192, 28 with blocks of 8. Sequential truncation of
 * every single addition, which no NVIDIA GEMM does, would leave only 4 at
 * k = 8192 (19 at k = 1024): hence GB_STRESS_N_MAX, and tau can be raised
 * from a thresholds file ("abft_tau") should a library ever do that.
 * What it catches at k = m = n = 8192 in FP32: an error above about 1 in a
 * checksum whose elements are about 30, i.e. every exponent flip that makes
 * an element larger and the top mantissa bits of all but the smallest
 * elements; smaller errors are left to the exact phases and to
 * repeat-and-compare.
 *
 * Both kinds add gamma_{len+k}(2^-53) abs_sum twice: the checksums are
 * summed in double, here and on the GPU, in any order (atomics).
 *
 * EXACT: integer data in the ranges of gb_stress_exact_range make every
 * product, partial sum, element and checksum an integer below 2^53, so every
 * sum is exact in any order and the bound is 0: any difference is an error.
 */
static double gamma_n(double n, double u)
{
	return n * u / (1.0 - n * u);
}

double gb_stress_abft_bound(enum gb_abft_kind kind, double u_acc, double tau, uint64_t k,
			    uint64_t len, double scale, double abs_sum)
{
	double floor_d = 2.0 * gamma_n((double)(len + k), 0x1p-53) * abs_sum;

	switch (kind) {
	case GB_ABFT_EXACT:
		return 0.0;
	case GB_ABFT_RIGOROUS:
		return gamma_n((double)k, u_acc) * abs_sum + floor_d;
	case GB_ABFT_PROBABILISTIC:
	default:
		return (tau > 0 ? tau : GB_STRESS_ABFT_TAU) * u_acc * sqrt((double)k) * scale +
		       floor_d;
	}
}

enum gb_abft_kind gb_stress_abft_kind(const struct gb_stress_phase *ph)
{
	return ph->mode == GB_STRESS_EXACT ? GB_ABFT_EXACT : GB_ABFT_PROBABILISTIC;
}

void gb_stress_abft_release(struct gb_abft_ref *r)
{
	if (!r)
		return;
	free(r->col_exp);
	free(r->col_bound);
	free(r->row_exp);
	free(r->row_bound);
	memset(r, 0, sizeof(*r));
}

/* per-index sums over the columns of one matrix: plain, of squares, of |x| */
struct colsums {
	double *s, *q, *a;
};

static void colsums_add(struct colsums *cs, const double *x, uint64_t k)
{
	for (uint64_t p = 0; p < k; p++) {
		cs->s[p] += x[p];
		cs->q[p] += x[p] * x[p];
		cs->a[p] += fabs(x[p]);
	}
}

/* dot products of x with the three sums: plain, squares (x^2), |x| */
static void colsums_dot(const struct colsums *cs, const double *x, uint64_t k, double *e,
			double *scale2, double *abs_sum)
{
	double se = 0, sq = 0, sa = 0;

	for (uint64_t p = 0; p < k; p++) {
		se += cs->s[p] * x[p];
		sq += cs->q[p] * x[p] * x[p];
		sa += cs->a[p] * fabs(x[p]);
	}
	*e = se;
	*scale2 = sq;
	*abs_sum = sa;
}

static int alloc_ref(struct gb_abft_ref *out, uint64_t m, uint64_t n, uint64_t k)
{
	memset(out, 0, sizeof(*out));
	out->m = m;
	out->n = n;
	out->k = k;
	out->col_exp = calloc(n, sizeof(double));
	out->col_bound = calloc(n, sizeof(double));
	out->row_exp = calloc(m, sizeof(double));
	out->row_bound = calloc(m, sizeof(double));
	if (!out->col_exp || !out->col_bound || !out->row_exp || !out->row_bound) {
		gb_stress_abft_release(out);
		return -1;
	}
	return 0;
}

static bool stopped(const volatile sig_atomic_t *stop)
{
	return stop && *stop;
}

int gb_stress_abft_build(gb_stress_column_fn *column, void *user, uint64_t m, uint64_t n,
			 uint64_t k, enum gb_abft_kind kind, double u_acc, double tau,
			 const volatile sig_atomic_t *stop, struct gb_abft_ref *out)
{
	double *buf = calloc(k ? k : 1, sizeof(double));
	double *mem = calloc(6 * (k ? k : 1), sizeof(double));
	struct colsums sa, sb;
	double e, s2, ab;
	int rc = -1;

	if (!buf || !mem || alloc_ref(out, m, n, k))
		goto out;
	sa = (struct colsums){ mem, mem + k, mem + 2 * k };
	sb = (struct colsums){ mem + 3 * k, mem + 4 * k, mem + 5 * k };
	/* pass 1: sums over the rows of the product (A's storage columns) */
	for (uint64_t i = 0; i < m; i++) {
		if (stopped(stop))
			goto stop;
		column(user, 0, i, buf, k);
		colsums_add(&sa, buf, k);
	}
	/* pass 2: each column checksum, and the sums over B's columns */
	for (uint64_t j = 0; j < n; j++) {
		if (stopped(stop))
			goto stop;
		column(user, 1, j, buf, k);
		colsums_dot(&sa, buf, k, &e, &s2, &ab);
		out->col_exp[j] = e;
		out->col_bound[j] = gb_stress_abft_bound(kind, u_acc, tau, k, m, sqrt(s2), ab);
		colsums_add(&sb, buf, k);
	}
	/* pass 3: each row checksum */
	for (uint64_t i = 0; i < m; i++) {
		if (stopped(stop))
			goto stop;
		column(user, 0, i, buf, k);
		colsums_dot(&sb, buf, k, &e, &s2, &ab);
		out->row_exp[i] = e;
		out->row_bound[i] = gb_stress_abft_bound(kind, u_acc, tau, k, n, sqrt(s2), ab);
	}
	rc = 0;
	goto out;
stop:
	gb_stress_abft_release(out);
	rc = -2;
out:
	free(buf);
	free(mem);
	return rc;
}

/* the generator as a column source */
struct gen_source {
	uint64_t key[2];
	int sig_bits;
	int64_t r;
};

static void gen_column(void *user, unsigned matrix, uint64_t col, double *out, uint64_t k)
{
	const struct gen_source *g = user;
	uint64_t base = col * k;

	for (uint64_t p = 0; p < k; p++)
		out[p] = gb_stress_value(g->key[matrix], base + p, g->sig_bits, g->r);
}

int gb_stress_abft_reference(const struct gb_stress_phase *ph, uint64_t seed, uint64_t m,
			     uint64_t n, uint64_t k, double tau, const volatile sig_atomic_t *stop,
			     struct gb_abft_ref *out)
{
	struct gb_stress_gemm_type t;
	struct gen_source g;

	if (gb_stress_gemm_type(ph->prec, &t))
		return -1;
	g.key[0] = gb_stress_key(seed, 0);
	g.key[1] = gb_stress_key(seed, 1);
	g.sig_bits = t.sig_bits;
	g.r = ph->mode == GB_STRESS_EXACT ? ph->r : 0;
	return gb_stress_abft_build(gen_column, &g, m, n, k, gb_stress_abft_kind(ph), t.u_acc,
				    tau, stop, out);
}

double gb_stress_element(const struct gb_stress_phase *ph, uint64_t seed, uint64_t k, uint64_t row,
			 uint64_t col)
{
	struct gb_stress_gemm_type t;
	uint64_t ka = gb_stress_key(seed, 0), kb = gb_stress_key(seed, 1);
	int64_t r = ph->mode == GB_STRESS_EXACT ? ph->r : 0;
	double s = 0;

	if (gb_stress_gemm_type(ph->prec, &t))
		return NAN;
	for (uint64_t p = 0; p < k; p++)
		s += gb_stress_value(ka, p + row * k, t.sig_bits, r) *
		     gb_stress_value(kb, p + col * k, t.sig_bits, r);
	return s;
}

void gb_stress_abft_sums(const double *c, uint64_t m, uint64_t n, double *col, double *row)
{
	for (uint64_t i = 0; i < m; i++)
		row[i] = 0;
	for (uint64_t j = 0; j < n; j++) {
		double s = 0;

		for (uint64_t i = 0; i < m; i++) {
			s += c[i + j * m];
			row[i] += c[i + j * m];
		}
		col[j] = s;
	}
}

uint64_t gb_stress_abft_check(const struct gb_abft_ref *r, const double *col, const double *row,
			      int64_t *first_col, int64_t *first_row)
{
	uint64_t bad = 0;

	*first_col = *first_row = -1;
	for (uint64_t j = 0; j < r->n; j++) {
		/* written so that NaN fails */
		if (!(fabs(col[j] - r->col_exp[j]) <= r->col_bound[j])) {
			if (*first_col < 0)
				*first_col = (int64_t)j;
			bad++;
		}
	}
	for (uint64_t i = 0; i < r->m; i++) {
		if (!(fabs(row[i] - r->row_exp[i]) <= r->row_bound[i])) {
			if (*first_row < 0)
				*first_row = (int64_t)i;
			bad++;
		}
	}
	return bad;
}

/* ======================================================================= */
/* sizing                                                                  */

static uint64_t inputs_bytes(const struct gb_stress_phase *ph, size_t n_phases, uint64_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n_phases; i++) {
		struct gb_stress_gemm_type t;

		if (!gb_stress_gemm_type(ph[i].prec, &t))
			sum += 2 * n * n * gb_dtype_size(t.in);
	}
	return sum;
}

static uint64_t slot_bytes(const struct gb_stress_phase *ph, size_t n_phases, uint64_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n_phases; i++) {
		struct gb_stress_gemm_type t;

		if (!gb_stress_gemm_type(ph[i].prec, &t) && gb_dtype_size(t.out) > out)
			out = gb_dtype_size(t.out);
	}
	return n * n * out;
}

/* working slots (beyond the references) that fit in budget at dimension n */
static int64_t working_slots(double budget, const struct gb_stress_phase *ph, size_t n_phases,
			     uint64_t n, uint64_t fixed)
{
	double left = budget - (double)inputs_bytes(ph, n_phases, n) - (double)fixed;
	double slot = (double)slot_bytes(ph, n_phases, n);

	if (left <= 0 || slot <= 0)
		return -1;
	return (int64_t)floor(left / slot) - (int64_t)n_phases;
}

static void fill_sizing(struct gb_stress_sizing *out, const struct gb_stress_phase *ph,
			size_t n_phases, uint64_t n, uint64_t slots, uint64_t fixed)
{
	out->n = n;
	out->slots = slots;
	out->bytes_inputs = inputs_bytes(ph, n_phases, n);
	out->bytes_slot = slot_bytes(ph, n_phases, n);
	out->bytes_total = out->bytes_inputs + slots * out->bytes_slot + fixed;
}

int gb_stress_size(double free_bytes, double fraction, uint64_t n_req,
		   const struct gb_stress_phase *ph, size_t n_phases, uint64_t fixed_bytes,
		   struct gb_stress_sizing *out, char *err, size_t len)
{
	double budget = free_bytes * fraction;
	uint64_t n = n_req ? n_req : GB_STRESS_N_MAX;
	int64_t w;
	char need[32], have[32];

	memset(out, 0, sizeof(*out));
	if (!n_phases || !(budget > 0)) {
		snprintf(err, len, "no memory to test (%.0f bytes free)", free_bytes);
		return -1;
	}
	/* auto: the largest power of two with room for two working slots */
	for (; !n_req && n > GB_STRESS_N_MIN; n /= 2)
		if (working_slots(budget, ph, n_phases, n, fixed_bytes) >= 2)
			break;
	w = working_slots(budget, ph, n_phases, n, fixed_bytes);
	if (w < 1) {
		fill_sizing(out, ph, n_phases, n, n_phases + 1, fixed_bytes);
		gb_format_bytes(need, sizeof(need), (double)out->bytes_total);
		gb_format_bytes(have, sizeof(have), budget);
		snprintf(err, len,
			 "%llu x %llu GEMMs need %s (inputs, %zu reference and 1 working slot), "
			 "%.0f%% of free memory is %s",
			 (unsigned long long)n, (unsigned long long)n, need, n_phases,
			 fraction * 100.0, have);
		return -1;
	}
	fill_sizing(out, ph, n_phases, n, n_phases + (uint64_t)w, fixed_bytes);
	return 0;
}

uint64_t gb_stress_batch_gemms(double t_gemm_s, double target_s, uint64_t max)
{
	double g;

	if (!max)
		return 1;
	if (!(t_gemm_s > 0) || !(target_s > 0))
		return 1;
	g = floor(target_s / t_gemm_s + 0.5);
	if (g < 1)
		return 1;
	if (g > (double)max)
		return max;
	return (uint64_t)g;
}

void gb_stress_batcher_init(struct gb_stress_batcher *b, uint64_t max, double target_s)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
	b->target_s = target_s;
}

uint64_t gb_stress_batcher_next(const struct gb_stress_batcher *b, size_t phase)
{
	if (phase >= GB_STRESS_MAX_PHASES || !b->gemms[phase])
		return 1;
	return b->gemms[phase];
}

void gb_stress_batcher_done(struct gb_stress_batcher *b, size_t phase, uint64_t gemms,
			    double busy_s)
{
	if (phase >= GB_STRESS_MAX_PHASES || !gemms)
		return;
	/* only this phase's own speed decides its next batch */
	b->gemms[phase] = gb_stress_batch_gemms(busy_s / (double)gemms, b->target_s, b->max);
}

/* ======================================================================= */
/* the pinned algorithm                                                    */

int gb_stress_pick_algo(int n_cand, gb_stress_algo_trial_fn *trial, void *user,
			struct gb_stress_algo_pick *out)
{
	memset(out, 0, sizeof(*out));
	out->n_cand = n_cand;
	out->chosen = -1;
	for (int c = 0; c < n_cand && c < GB_STRESS_MAX_ALGOS; c++) {
		uint64_t diffs = 0;

		if (trial(user, c, &diffs))
			return -1;
		out->diffs[c] = diffs;
		out->n_tried = c + 1;
		if (!diffs) {
			out->chosen = c;
			break;
		}
	}
	return 0;
}

/* "1: 5120, 2: 12" for the tried candidates that differed; returns the length written */
static size_t list_diffs(const struct gb_stress_algo_pick *p, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int c = 0; c < p->n_tried && used < len; c++) {
		int w;

		if (!p->diffs[c])
			continue;
		w = snprintf(buf + used, len - used, "%s%d: %llu", used ? ", " : "", c + 1,
			     (unsigned long long)p->diffs[c]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return used;
}

const char *gb_stress_algo_pick_note(const struct gb_stress_algo_pick *p, const char *what,
				     char *buf, size_t len)
{
	char diffs[192], which[32];

	if (!len)
		return buf;
	buf[0] = '\0';
	/* the heuristic's first repeated (or nothing was tried): nothing to say */
	if (p->chosen == 0 || !p->n_tried)
		return buf;
	/* candidates are numbered from 1: "algorithm 1" is the heuristic's first choice */
	list_diffs(p, diffs, sizeof(diffs));
	if (p->chosen == 1)
		snprintf(which, sizeof(which), "algorithm 1");
	else
		snprintf(which, sizeof(which), "algorithms 1-%d", p->chosen);
	if (p->chosen > 0)
		snprintf(buf, len,
			 "%s: %s of %d differed run to run (%s elements), pinned algorithm %d",
			 what, which, p->n_cand, diffs, p->chosen + 1);
	else
		snprintf(buf, len,
			 "%s: none of %d algorithm%s repeated bit for bit (%s elements differed), "
			 "not compared",
			 what, p->n_tried, p->n_tried > 1 ? "s" : "", diffs);
	return buf;
}

/* ======================================================================= */
/* load profiles                                                           */

const char *const gb_stress_profile_names[] = { "sustained", "pulse", "ramp", NULL };

static int ramp_step(const struct gb_stress_schedule *s, double t)
{
	int step;

	if (!(s->duration_s > 0))
		return GB_STRESS_RAMP_STEPS - 1;
	step = (int)floor(t / s->duration_s * GB_STRESS_RAMP_STEPS);
	if (step < 0)
		step = 0;
	if (step > GB_STRESS_RAMP_STEPS - 1)
		step = GB_STRESS_RAMP_STEPS - 1;
	return step;
}

double gb_stress_load_level(const struct gb_stress_schedule *s, double t)
{
	switch (s->profile) {
	case GB_PROFILE_PULSE:
		if (!(s->period_s > 0))
			return 1.0;
		return fmod(t < 0 ? 0 : t, s->period_s) < s->duty * s->period_s ? 1.0 : 0.0;
	case GB_PROFILE_RAMP:
		return (double)(ramp_step(s, t) + 1) / GB_STRESS_RAMP_STEPS;
	case GB_PROFILE_SUSTAINED:
	default:
		return 1.0;
	}
}

double gb_stress_idle_after(const struct gb_stress_schedule *s, double t, double busy_s)
{
	double level = gb_stress_load_level(s, t), idle, next;

	if (level >= 1.0)
		return 0.0;
	if (level <= 0.0) {
		/* pulse off-phase: until the next period starts */
		return s->period_s - fmod(t < 0 ? 0 : t, s->period_s);
	}
	idle = busy_s * (1.0 - level) / level;
	/* never idle into the next, higher step */
	next = (ramp_step(s, t) + 1) * s->duration_s / GB_STRESS_RAMP_STEPS - t;
	if (next > 0 && idle > next)
		idle = next;
	return idle > 0 ? idle : 0.0;
}

double gb_stress_steady_from(const struct gb_stress_schedule *s)
{
	if (s->profile != GB_PROFILE_RAMP || !(s->duration_s > 0))
		return 0.0;
	/* the same boundary ramp_step() uses: the last of GB_STRESS_RAMP_STEPS equal steps */
	return (double)(GB_STRESS_RAMP_STEPS - 1) * s->duration_s / GB_STRESS_RAMP_STEPS;
}

/* ======================================================================= */
/* fault injection                                                         */

bool gb_stress_inject_ok(enum gb_stress_mode mode, bool abft, bool compared)
{
	if (mode == GB_STRESS_EXACT)
		return !abft;
	return abft || compared;
}

int gb_stress_inject_options(enum gb_stress_prec p, uint64_t n, bool abft, bool exact,
			     bool repeat, char *err, size_t len)
{
	struct gb_stress_phase ph[GB_STRESS_MAX_PHASES];
	uint64_t dim = n ? n : GB_STRESS_N_MAX;
	size_t np, n_exact = 0;

	if (!abft && !exact && !repeat) {
		snprintf(err, len,
			 "--inject-fault needs a layer that can catch it on one GPU; drop "
			 "--no-abft, --no-exact or --no-repeat");
		return -1;
	}
	if (abft || repeat)
		return 0;
	/* only exact phases are left; the automatic size is at most N_MAX (smaller only helps) */
	np = gb_stress_phases(p, true, dim, dim, dim, ph, GB_STRESS_MAX_PHASES);
	for (size_t i = 0; i < np; i++)
		n_exact += ph[i].mode == GB_STRESS_EXACT;
	if (n_exact)
		return 0;
	snprintf(err, len,
		 "--inject-fault with --no-abft and --no-repeat needs an exact phase, and %s at "
		 "--size %llu has none; drop --no-abft or --no-repeat, or use a smaller --size",
		 (unsigned)p < GB_SP_COUNT ? gb_stress_prec_names[p] : "this precision",
		 (unsigned long long)dim);
	return -1;
}

/* ======================================================================= */
/* cross-GPU vote                                                          */

void gb_stress_cross_vote(const uint64_t *digest, const bool *valid, size_t n,
			  enum gb_cross *out)
{
	size_t n_valid = 0, best = 0, best_i = 0;

	for (size_t i = 0; i < n; i++) {
		size_t same = 0;

		out[i] = GB_CROSS_NONE;
		if (!valid[i])
			continue;
		n_valid++;
		for (size_t j = 0; j < n; j++)
			same += valid[j] && digest[j] == digest[i];
		if (same > best) {
			best = same;
			best_i = i;
		}
	}
	if (n_valid < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		if (!valid[i])
			continue;
		if (best == n_valid)
			out[i] = GB_CROSS_AGREE;
		else if (2 * best > n_valid) /* a strict majority names the outliers */
			out[i] = digest[i] == digest[best_i] ? GB_CROSS_AGREE : GB_CROSS_OUTLIER;
		else
			out[i] = GB_CROSS_UNDECIDED;
	}
}

uint64_t gb_stress_digest(const uint32_t *words, size_t n)
{
	uint64_t d = 0;

	for (size_t i = 0; i < n; i++)
		d ^= gb_stress_digest_word(words[i], i);
	return d;
}

/* ======================================================================= */
/* XIDs                                                                    */

bool gb_stress_xid_is_hardware(unsigned long long xid)
{
	static const unsigned ranges[][2] = {
		{ 48, 48 },   { 56, 58 },   { 62, 64 },   { 68, 77 },   { 79, 86 },
		{ 88, 89 },   { 92, 92 },   { 94, 105 },  { 110, 120 }, { 122, 125 },
	};

	for (size_t i = 0; i < ARRAY_LEN(ranges); i++)
		if (xid >= ranges[i][0] && xid <= ranges[i][1])
			return true;
	return false;
}

/* ======================================================================= */
/* forensics                                                               */

size_t gb_stress_flipped_bits(uint64_t x, int *pos, size_t max)
{
	size_t count = 0;

	for (int b = 0; b < 64; b++) {
		if (!(x >> b & 1))
			continue;
		if (pos && count < max)
			pos[count] = b;
		count++;
	}
	return count;
}

const char *gb_stress_bit_field(enum gb_dtype t, int bit)
{
	int width, mant;

	switch (t) {
	case GB_DT_F64:
		width = 64, mant = 52;
		break;
	case GB_DT_F32:
		width = 32, mant = 23;
		break;
	case GB_DT_F16:
		width = 16, mant = 10;
		break;
	case GB_DT_BF16:
		width = 16, mant = 7;
		break;
	default:
		return "bit";
	}
	if (bit < 0 || bit >= width)
		return "none";
	if (bit == width - 1)
		return "sign";
	return bit >= mant ? "exponent" : "mantissa";
}

const char *gb_memtest_pattern_name(int kind, uint32_t param, bool then_complement, char *buf,
				    size_t len)
{
	switch (kind) {
	case GB_MT_WALK1:
	case GB_MT_WALK0:
		/* the bit at word 0; it moves with the address (gb_memtest_word) */
		snprintf(buf, len, "walking %s (bit %u)", kind == GB_MT_WALK1 ? "ones" : "zeros",
			 (unsigned)(param & 31u));
		break;
	case GB_MT_SOLID:
		if (then_complement)
			snprintf(buf, len, "moving inversions 0x%08x then 0x%08x", (unsigned)param,
				 (unsigned)~param);
		else
			snprintf(buf, len, "moving inversions 0x%08x", (unsigned)param);
		break;
	default:
		snprintf(buf, len, "random");
		break;
	}
	return buf;
}

void gb_stress_forensic_init(struct gb_stress_forensic *f)
{
	memset(f, 0, sizeof(*f));
	f->device = -1;
	f->t_s = NAN;
	f->layer = "unknown";
	f->slot = f->row = f->col = f->offset = -1;
	f->type = GB_DT_F32;
	f->expected = f->got = NAN;
	f->sum_observed = f->sum_expected = f->sum_bound = NAN;
}

/* "0x41f00000 (30)" */
static void format_value(char *buf, size_t len, enum gb_dtype t, bool have_bits, uint64_t bits,
			 double v)
{
	if (!have_bits)
		snprintf(buf, len, "%.9g", v);
	else if (t == GB_DT_F64)
		snprintf(buf, len, "0x%016llx (%.17g)", (unsigned long long)bits, v);
	else if (t == GB_DT_F32)
		snprintf(buf, len, "0x%08llx (%.9g)", (unsigned long long)bits, v);
	else
		snprintf(buf, len, "0x%08llx", (unsigned long long)bits);
}

/* "bits 27 (exponent), 3 (mantissa)" */
static void format_flips(char *buf, size_t len, enum gb_dtype t, uint64_t x)
{
	int pos[64];
	size_t n = gb_stress_flipped_bits(x, pos, 64), used = 0;

	buf[0] = '\0';
	if (!n) {
		snprintf(buf, len, "no bit differs");
		return;
	}
	used += (size_t)snprintf(buf, len, "flipped bit%s", n > 1 ? "s" : "");
	/* highest first: the most consequential flip leads */
	for (size_t i = n; i-- > 0 && used < len;) {
		int w = snprintf(buf + used, len - used, "%s %d (%s)", i + 1 == n ? "" : ",",
				 pos[i], gb_stress_bit_field(t, pos[i]));

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* "71 C, 650 W, 1755 MHz, sw_power_cap" */
static void format_tel(char *buf, size_t len, const struct gb_telemetry_sample *s)
{
	char part[4][160], reasons[160];
	size_t n = 0, used = 0;

	if (isfinite(s->temp_c))
		snprintf(part[n++], sizeof(part[0]), "%.0f C", s->temp_c);
	if (isfinite(s->power_w))
		snprintf(part[n++], sizeof(part[0]), "%.0f W", s->power_w);
	if (isfinite(s->sm_mhz))
		snprintf(part[n++], sizeof(part[0]), "%.0f MHz", s->sm_mhz);
	if (s->have_reasons) {
		gb_nvml_reasons_str(s->clock_event_reasons, reasons, sizeof(reasons));
		snprintf(part[n++], sizeof(part[0]), "%s", reasons[0] ? reasons : "no clock events");
	}
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", part[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* "offset 0x1000 (address 0x7f2a00001000), walking ones (bit 3), pass 2" */
static void format_memtest_where(char *buf, size_t len, const struct gb_stress_forensic *f)
{
	size_t used = (size_t)snprintf(buf, len, "offset 0x%llx", (unsigned long long)f->offset);

	if (f->address && used < len)
		used += (size_t)snprintf(buf + used, len - used, " (address 0x%llx)",
					 (unsigned long long)f->address);
	if (f->pattern[0] && used < len)
		used += (size_t)snprintf(buf + used, len - used, ", %s", f->pattern);
	if (f->pass && used < len)
		snprintf(buf + used, len - used, ", pass %llu", (unsigned long long)f->pass);
}

static void format_where(char *buf, size_t len, const struct gb_stress_forensic *f)
{
	if (f->offset >= 0)
		format_memtest_where(buf, len, f);
	else if (f->row >= 0 && f->col >= 0)
		snprintf(buf, len, "batch %llu slot %lld (row %lld, col %lld)",
			 (unsigned long long)f->batch, (long long)f->slot, (long long)f->row,
			 (long long)f->col);
	else if (f->col >= 0)
		snprintf(buf, len, "batch %llu slot %lld column %lld checksum",
			 (unsigned long long)f->batch, (long long)f->slot, (long long)f->col);
	else if (f->row >= 0)
		snprintf(buf, len, "batch %llu slot %lld row %lld checksum",
			 (unsigned long long)f->batch, (long long)f->slot, (long long)f->row);
	else
		snprintf(buf, len, "batch %llu slot %lld", (unsigned long long)f->batch,
			 (long long)f->slot);
}

void gb_stress_forensic_format(const struct gb_stress_forensic *f, char *buf, size_t len)
{
	char where[192], exp[64], got[64], flips[256], tel[224] = "", what[200];

	if (!buf || !len)
		return;
	format_where(where, sizeof(where), f);
	if (f->have_bits || isfinite(f->expected) || isfinite(f->got)) {
		format_value(exp, sizeof(exp), f->type, f->have_bits, f->expected_bits, f->expected);
		format_value(got, sizeof(got), f->type, f->have_bits, f->got_bits, f->got);
		if (f->have_bits)
			format_flips(flips, sizeof(flips), f->type, f->expected_bits ^ f->got_bits);
		else
			snprintf(flips, sizeof(flips), "bits unknown");
		snprintf(what, sizeof(what), "expected %s got %s, %s", exp, got, flips);
	} else {
		snprintf(what, sizeof(what), "sum %.9g expected %.9g (bound %.3g)", f->sum_observed,
			 f->sum_expected, f->sum_bound);
	}
	if (f->have_tel)
		format_tel(tel, sizeof(tel), &f->tel);
	snprintf(buf, len, "gpu %d at %.1f s, %s%s, %s: %s%s%s", f->device, f->t_s, f->layer,
		 f->injected ? " (injected on purpose)" : "", where, what, tel[0] ? "; " : "", tel);
}

static void add_bits(cJSON *o, const struct gb_stress_forensic *f)
{
	char hex[24];
	int pos[64];
	size_t n;
	cJSON *arr, *fields;
	int digits = f->type == GB_DT_F64 ? 16 : 8;

	if (!f->have_bits) {
		cJSON_AddNullToObject(o, "expected_bits");
		cJSON_AddNullToObject(o, "got_bits");
		cJSON_AddItemToObject(o, "flipped_bits", cJSON_CreateArray());
		return;
	}
	/* bit patterns as hex strings: exact, and readable next to the values */
	snprintf(hex, sizeof(hex), "0x%0*llx", digits, (unsigned long long)f->expected_bits);
	cJSON_AddStringToObject(o, "expected_bits", hex);
	snprintf(hex, sizeof(hex), "0x%0*llx", digits, (unsigned long long)f->got_bits);
	cJSON_AddStringToObject(o, "got_bits", hex);
	n = gb_stress_flipped_bits(f->expected_bits ^ f->got_bits, pos, 64);
	arr = cJSON_AddArrayToObject(o, "flipped_bits");
	fields = cJSON_AddArrayToObject(o, "flipped_fields");
	for (size_t i = n; i-- > 0;) {
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(pos[i]));
		cJSON_AddItemToArray(fields,
				     cJSON_CreateString(gb_stress_bit_field(f->type, pos[i])));
	}
}

static cJSON *tel_json(const struct gb_telemetry_sample *s)
{
	cJSON *t = cJSON_CreateObject();
	char reasons[160];

	gb_json_add_num(t, "t_s", s->t_s);
	gb_json_add_num(t, "temp_c", s->temp_c);
	gb_json_add_num(t, "power_w", s->power_w);
	gb_json_add_num(t, "sm_mhz", s->sm_mhz);
	gb_json_add_num(t, "mem_mhz", s->mem_mhz);
	gb_json_add_num(t, "util_pct", s->util_pct);
	if (s->have_reasons) {
		gb_nvml_reasons_str(s->clock_event_reasons, reasons, sizeof(reasons));
		cJSON_AddStringToObject(t, "clock_event_reasons", reasons);
	} else {
		cJSON_AddNullToObject(t, "clock_event_reasons");
	}
	return t;
}

struct cJSON *gb_stress_forensic_json(const struct gb_stress_forensic *f)
{
	cJSON *o = cJSON_CreateObject();
	char line[512];

	cJSON_AddNumberToObject(o, "device", f->device);
	gb_json_add_num(o, "t_s", f->t_s);
	cJSON_AddStringToObject(o, "layer", f->layer);
	cJSON_AddBoolToObject(o, "injected", f->injected);
	cJSON_AddNumberToObject(o, "batch", (double)f->batch);
	gb_json_add_int(o, "slot", f->slot);
	gb_json_add_int(o, "row", f->row);
	gb_json_add_int(o, "col", f->col);
	gb_json_add_int(o, "offset", f->offset);
	if (f->address) {
		char hex[24];

		/* an address, like a bit pattern, is an identifier: exact as hex */
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)f->address);
		cJSON_AddStringToObject(o, "address", hex);
	} else {
		cJSON_AddNullToObject(o, "address");
	}
	if (f->pattern[0])
		cJSON_AddStringToObject(o, "pattern", f->pattern);
	else
		cJSON_AddNullToObject(o, "pattern");
	gb_json_add_int(o, "pass", f->pass ? (int64_t)f->pass : -1);
	cJSON_AddStringToObject(o, "type", gb_dtype_name(f->type));
	gb_json_add_num(o, "expected", f->expected);
	gb_json_add_num(o, "got", f->got);
	add_bits(o, f);
	gb_json_add_num(o, "sum_observed", f->sum_observed);
	gb_json_add_num(o, "sum_expected", f->sum_expected);
	gb_json_add_num(o, "sum_bound", f->sum_bound);
	if (f->have_tel)
		cJSON_AddItemToObject(o, "telemetry", tel_json(&f->tel));
	else
		cJSON_AddNullToObject(o, "telemetry");
	gb_stress_forensic_format(f, line, sizeof(line));
	cJSON_AddStringToObject(o, "message", line);
	return o;
}

/* ======================================================================= */
/* locating a corrupted element from its checksums                         */

bool gb_stress_locate(const struct gb_stress_sum_fail *f, size_t n, uint64_t total, uint32_t slot,
		      uint32_t *row, uint32_t *col)
{
	size_t rows = 0, cols = 0, last = 0;

	for (size_t i = 0; i < n; i++) {
		if (f[i].slot != slot)
			continue;
		last = i;
		if (f[i].is_row) {
			rows++;
			*row = f[i].index;
		} else {
			cols++;
			*col = f[i].index;
		}
	}
	/* records left out may be this slot's unless another slot's came after its last */
	if (total > n && last + 1 >= n)
		return false;
	return rows == 1 && cols == 1;
}

int gb_stress_type_bits(enum gb_dtype t)
{
	switch (t) {
	case GB_DT_F64:
		return 64;
	case GB_DT_F32:
	case GB_DT_I32:
		return 32;
	case GB_DT_F16:
	case GB_DT_BF16:
		return 16;
	default:
		return 0;
	}
}

double gb_stress_bits_value(enum gb_dtype t, uint64_t bits)
{
	unsigned char elem[8];
	int width = gb_stress_type_bits(t);

	if (!width)
		return NAN;
	/* the element's bytes in memory order (little-endian, as on the GPU) */
	for (int i = 0; i < width / 8; i++)
		elem[i] = (unsigned char)(bits >> (8 * i));
	return gb_dtype_to_double(elem, t);
}

/*
 * Round |a| to a binary format with mant stored significand bits and
 * exponent bias `bias` (F16: 10, 15; BF16: 7, 127). Below 2^(1-bias) the
 * quantum stays 2^(1-bias-mant) (subnormals), and ((e + bias - 1) << mant)
 * + q is the encoding for normal and subnormal alike: a significand that
 * rounds up to 2^(mant+1) carries into the exponent by itself.
 */
static uint64_t ieee_bits(double a, int mant, int bias, int exp_bits)
{
	uint64_t inf = (((uint64_t)1 << exp_bits) - 1) << mant, bits;
	int e;
	double q;

	if (a == 0)
		return 0;
	if (isinf(a))
		return inf;
	frexp(a, &e);
	e--; /* a in [2^e, 2^(e+1)) */
	if (e < 1 - bias)
		e = 1 - bias;
	if (e > bias)
		return inf;
	q = nearbyint(ldexp(a, mant - e)); /* exact scaling, ties to even */
	bits = ((uint64_t)(e + bias - 1) << mant) + (uint64_t)q;
	return bits >= inf ? inf : bits;
}

uint64_t gb_stress_value_bits(enum gb_dtype t, double v)
{
	uint64_t sign, nan;

	switch (t) {
	case GB_DT_F64: {
		uint64_t b;

		memcpy(&b, &v, sizeof(b));
		return b;
	}
	case GB_DT_F32: {
		float f = (float)v;
		uint32_t b;

		memcpy(&b, &f, sizeof(b));
		return b;
	}
	case GB_DT_I32:
		if (isnan(v))
			return 0;
		v = nearbyint(v);
		return (uint32_t)(int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
	case GB_DT_F16:
	case GB_DT_BF16:
		sign = signbit(v) ? 0x8000u : 0;
		nan = t == GB_DT_F16 ? 0x7e00u : 0x7fc0u;
		if (isnan(v))
			return nan;
		return sign | (t == GB_DT_F16 ? ieee_bits(fabs(v), 10, 15, 5)
					      : ieee_bits(fabs(v), 7, 127, 8));
	default:
		return 0;
	}
}

/* The bit whose flip brings got closest to expected, within tol; -1 none. */
static int single_flip(enum gb_dtype t, uint64_t got_bits, double expected, double tol)
{
	int width = gb_stress_type_bits(t), best = -1;
	double best_d = INFINITY;

	for (int b = 0; b < width; b++) {
		double d = fabs(gb_stress_bits_value(t, got_bits ^ ((uint64_t)1 << b)) - expected);

		if (d <= tol && d < best_d) {
			best = b;
			best_d = d;
		}
	}
	return best;
}

void gb_stress_explain(enum gb_dtype t, uint64_t got_bits, double expected, double tol,
		       struct gb_stress_bitdiff *out)
{
	int width = gb_stress_type_bits(t), bit;
	uint64_t mask = width == 64 ? ~(uint64_t)0 : ((uint64_t)1 << width) - 1;
	int pos[64];

	got_bits &= mask;
	out->bit = -1;
	out->n_bits = -1;
	out->expected_bits = 0;
	if (!width || isnan(expected))
		return;
	out->expected_bits = got_bits;
	out->n_bits = 0;
	/* within tol: nothing to explain (NaN got is never within) */
	if (fabs(gb_stress_bits_value(t, got_bits) - expected) <= (tol > 0 ? tol : 0))
		return;
	bit = single_flip(t, got_bits, expected, tol > 0 ? tol : 0);
	if (bit >= 0) {
		out->n_bits = 1;
		out->bit = bit;
		out->expected_bits = got_bits ^ ((uint64_t)1 << bit);
		return;
	}
	out->expected_bits = gb_stress_value_bits(t, expected) & mask;
	out->n_bits = (int)gb_stress_flipped_bits(out->expected_bits ^ got_bits, pos, 64);
	if (out->n_bits == 1)
		out->bit = pos[0];
}

void gb_stress_corrupt_init(struct gb_stress_corrupt *c)
{
	memset(c, 0, sizeof(*c));
	c->t_s = NAN;
	c->type = GB_DT_F32;
	c->expected = c->got = NAN;
	c->diff.n_bits = -1;
	c->diff.bit = -1;
}

bool gb_stress_corrupt_add(struct gb_stress_corrupt *c, const struct gb_stress_corrupt *elem)
{
	uint64_t located = c->located + 1;

	if (c->have) {
		c->located = located;
		return false;
	}
	*c = *elem;
	c->have = true;
	c->located = located;
	return true;
}

/* "bit 30 (exponent) flipped", "3 bits differ", "within the rounding bound", "not read back" */
static void corrupt_bits_text(const struct gb_stress_corrupt *c, char *buf, size_t len)
{
	if (!c->read)
		snprintf(buf, len, "could not be read back");
	else if (c->diff.n_bits < 0)
		snprintf(buf, len, "expected value unknown");
	else if (c->diff.n_bits == 0)
		snprintf(buf, len, "within the rounding bound of the expected value");
	else if (c->diff.n_bits == 1)
		snprintf(buf, len, "bit %d (%s) flipped", c->diff.bit,
			 gb_stress_bit_field(c->type, c->diff.bit));
	else
		snprintf(buf, len, "%d bits differ", c->diff.n_bits);
}

const char *gb_stress_corrupt_text(const struct gb_stress_corrupt *c, char *buf, size_t len)
{
	char bits[96];

	buf[0] = '\0';
	if (!c->have)
		return buf;
	corrupt_bits_text(c, bits, sizeof(bits));
	snprintf(buf, len,
		 "first at row %u, column %u (batch %llu): %s, expected %.6g got %.6g; %llu "
		 "element%s located",
		 (unsigned)c->row, (unsigned)c->col, (unsigned long long)c->batch, bits, c->expected,
		 c->got, (unsigned long long)c->located, c->located == 1 ? "" : "s");
	return buf;
}

/* "0x47d2bb80": bits are identifiers, exact as hex in the type's width */
static void add_hex(cJSON *o, const char *key, enum gb_dtype t, uint64_t bits, bool known)
{
	char hex[24];

	if (!known) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	snprintf(hex, sizeof(hex), "0x%0*llx", gb_stress_type_bits(t) / 4, (unsigned long long)bits);
	cJSON_AddStringToObject(o, key, hex);
}

struct cJSON *gb_stress_corrupt_json(const struct gb_stress_corrupt *c)
{
	cJSON *o;
	char line[256];
	bool known = c->read && c->diff.n_bits >= 0;

	if (!c->have)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "row", c->row);
	cJSON_AddNumberToObject(o, "col", c->col);
	cJSON_AddNumberToObject(o, "batch", (double)c->batch);
	gb_json_add_num(o, "t_s", c->t_s);
	cJSON_AddStringToObject(o, "type", gb_dtype_name(c->type));
	gb_json_add_num(o, "expected", c->expected);
	gb_json_add_num(o, "got", c->read ? c->got : NAN);
	add_hex(o, "expected_bits", c->type, c->diff.expected_bits, known);
	add_hex(o, "got_bits", c->type, c->got_bits, c->read);
	gb_json_add_int(o, "bits_differ", known ? c->diff.n_bits : -1);
	gb_json_add_int(o, "bit", known ? c->diff.bit : -1);
	if (known && c->diff.bit >= 0)
		cJSON_AddStringToObject(o, "field", gb_stress_bit_field(c->type, c->diff.bit));
	else
		cJSON_AddNullToObject(o, "field");
	cJSON_AddNumberToObject(o, "located", (double)c->located);
	cJSON_AddStringToObject(o, "message", gb_stress_corrupt_text(c, line, sizeof(line)));
	return o;
}

/* ======================================================================= */
/* progress                                                                */

const char *gb_stress_fmt_eta(double s, char *buf, size_t len)
{
	if (!(s >= 0))
		snprintf(buf, len, "-");
	else if (s >= 3600)
		snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
	else if (s >= 60)
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(buf, len, "%.0fs", s);
	return buf;
}

/* a number, or "-" when unknown */
static const char *fmt_num(char *buf, size_t len, const char *fmt, double v)
{
	if (isfinite(v))
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* "705.2" or "fp64 61.2  fp16 702" */
static void format_tp(const struct gb_stress_progress *p, char *buf, size_t len)
{
	size_t used = 0;
	char v[24];

	buf[0] = '\0';
	for (size_t s = 0; s < p->n_tp && s < GB_STRESS_MAX_SERIES && used < len; s++) {
		const char *label = p->tp_label[s] ? p->tp_label[s] : "";
		int w = snprintf(buf + used, len - used, "%s%s%s%s", s ? "  " : "", label,
				 label[0] ? " " : "", fmt_num(v, sizeof(v), "%.4g", p->tp[s]));

		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (!p->n_tp)
		snprintf(buf, len, "-");
}

void gb_stress_progress_text(const struct gb_stress_progress *p, char *buf, size_t len)
{
	char eta[16], tp[96], v[3][24];
	bool running = p->state && !strcmp(p->state, "running");

	gb_stress_fmt_eta(p->eta_s, eta, sizeof(eta));
	format_tp(p, tp, sizeof(tp));
	snprintf(buf, len, "stress gpu %d: %3.0f%% eta %s  %s %s  %s C  %s W  %s MHz  errors %llu%s%s",
		 p->device, 100 * p->frac, eta, tp, p->memtest ? "GB/s" : "TFLOP/s",
		 fmt_num(v[0], sizeof(v[0]), "%.0f", p->temp_c),
		 fmt_num(v[1], sizeof(v[1]), "%.0f", p->power_w),
		 fmt_num(v[2], sizeof(v[2]), "%.0f", p->sm_mhz), (unsigned long long)p->errors,
		 running ? "" : "  ", running ? "" : (p->state ? p->state : "?"));
}

/* a JSON number, or null */
static const char *json_num(char *buf, size_t len, double v)
{
	snprintf(buf, len, isfinite(v) ? "%.6g" : "null", v);
	return buf;
}

void gb_stress_progress_jsonl(const struct gb_stress_progress *p, char *buf, size_t len)
{
	const char *unit = p->memtest ? "gbps" : "tflops";
	char v[5][24], extra[128] = "";
	size_t used = 0;

	/* with several series each is its own field too: "tflops_fp64":61.2 */
	for (size_t s = 0; p->n_tp > 1 && s < p->n_tp && s < GB_STRESS_MAX_SERIES; s++) {
		char n[24];
		int w;

		if (!p->tp_label[s] || !p->tp_label[s][0] || used >= sizeof(extra))
			continue;
		w = snprintf(extra + used, sizeof(extra) - used, ",\"%s_%s\":%s", unit,
			     p->tp_label[s], json_num(n, sizeof(n), p->tp[s]));
		if (w < 0)
			break;
		used += (size_t)w;
	}
	snprintf(buf, len,
		 "{\"type\":\"stress_progress\",\"gpu\":%d,\"t_s\":%.3f,\"progress\":%.4f,"
		 "\"eta_s\":%s,\"%s\":%s%s,\"temp_c\":%s,\"power_w\":%s,\"sm_mhz\":%s,"
		 "\"errors\":%llu,\"state\":\"%s\"}",
		 p->device, p->t_s, p->frac, json_num(v[0], sizeof(v[0]), p->eta_s), unit,
		 json_num(v[1], sizeof(v[1]), p->tp_total), extra,
		 json_num(v[2], sizeof(v[2]), p->temp_c), json_num(v[3], sizeof(v[3]), p->power_w),
		 json_num(v[4], sizeof(v[4]), p->sm_mhz), (unsigned long long)p->errors,
		 p->state ? p->state : "?");
}
