/* SPDX-License-Identifier: MIT */
/*
 * stress_verify_math.c - the arithmetic of `gpubench stress`'s
 * verification, CPU-only: the ABFT checksum reference and its rounding-error
 * bound, the checksums' check, the cross-GPU digest vote, and locating a
 * corrupted element from the checksums that disagree (its bits, the value
 * it should have had, the text and JSON of it). See stress_math.h. May use
 * the C library and cJSON; no CUDA.
 */
#include "bench/stress/stress_math.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_util.h"

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
 * Measured on the CPU (tests/bench/stress/test_stress_math.c, k = 8192, tau = 64), the
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
