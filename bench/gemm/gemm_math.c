/* SPDX-License-Identifier: MIT */
/*
 * gemm_math.c - the CPU-only arithmetic of the gemm benchmark; see
 * gemm_math.h. Nothing here touches CUDA, so all of it is unit tested in
 * tests/bench/gemm/test_gemm_math.c on any machine.
 */
#include "bench/gemm/gemm_math.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/device/lt_names.h"
#include "report/stats.h"

const enum gb_precision gb_gemm_precs[GB_GEMM_N_PRECS] = {
	GB_PREC_FP64, GB_PREC_FP32, GB_PREC_TF32, GB_PREC_FP16,
	GB_PREC_BF16, GB_PREC_FP16_ACC16, GB_PREC_FP8, GB_PREC_INT8,
};

/* must spell gb_precision_name() of the entry above (checked by the unit test) */
const char *const gb_gemm_prec_choices[GB_GEMM_N_PRECS + 1] = {
	"fp64", "fp32", "tf32", "fp16", "bf16", "fp16acc16", "fp8", "int8", NULL,
};

int gb_gemm_prec_index(enum gb_precision p)
{
	for (int i = 0; i < GB_GEMM_N_PRECS; i++)
		if (gb_gemm_precs[i] == p)
			return i;
	return -1;
}

enum gb_dtype gb_gemm_input_type(enum gb_precision p)
{
	switch (p) {
	case GB_PREC_FP64:
	case GB_PREC_FP64_TC:
		return GB_DT_F64;
	case GB_PREC_FP16:
	case GB_PREC_FP16_ACC16:
		return GB_DT_F16;
	case GB_PREC_BF16:
		return GB_DT_BF16;
	case GB_PREC_FP8:
		return GB_DT_E4M3;
	case GB_PREC_INT8:
		return GB_DT_I8;
	case GB_PREC_FP32:
	case GB_PREC_TF32:
	default:
		return GB_DT_F32;
	}
}

enum gb_dtype gb_gemm_output_type(enum gb_precision p)
{
	/* FP8 output would need a D scale and amax to be meaningful: BF16 is what
	 * NVIDIA's FP8 samples and training frameworks write. */
	if (p == GB_PREC_FP8)
		return GB_DT_BF16;
	if (p == GB_PREC_INT8)
		return GB_DT_I32;
	return gb_gemm_input_type(p);
}

int gb_gemm_min_cc(enum gb_precision p)
{
	switch (p) {
	case GB_PREC_FP16:
	case GB_PREC_FP16_ACC16:
		return 70;  /* Volta tensor cores */
	case GB_PREC_INT8:
		return 75;  /* Turing IMMA */
	case GB_PREC_TF32:
	case GB_PREC_BF16:
		return 80;  /* Ampere */
	case GB_PREC_FP8:
		return 89;  /* Ada and Hopper */
	case GB_PREC_FP64:
	case GB_PREC_FP32:
	default:
		return 0;   /* CUDA cores everywhere */
	}
}

bool gb_gemm_prec_supported(enum gb_precision p, int cc_major, int cc_minor)
{
	if (gb_gemm_prec_index(p) < 0 || cc_major < 0)
		return false;
	return cc_major * 10 + cc_minor >= gb_gemm_min_cc(p);
}

const char *gb_gemm_unsupported_reason(enum gb_precision p, int cc_major, int cc_minor,
				       int device, char *buf, size_t len)
{
	int need = gb_gemm_min_cc(p);

	if (gb_gemm_prec_index(p) < 0) {
		snprintf(buf, len, "gemm does not measure '%s'", gb_precision_name(p));
		return buf;
	}
	if (gb_gemm_prec_supported(p, cc_major, cc_minor))
		return NULL;
	snprintf(buf, len, "%s needs compute capability %d.%d or newer (device %d is %d.%d)",
		 gb_precision_name(p), need / 10, need % 10, device, cc_major, cc_minor);
	return buf;
}

enum gb_precision gb_gemm_peak_precision(enum gb_precision p, int cc_major, int cc_minor)
{
	if (p == GB_PREC_FP64 &&
	    gb_flops_per_clk_per_sm(cc_major, cc_minor, GB_PREC_FP64_TC, GB_CLASS_DATACENTER) > 0)
		return GB_PREC_FP64_TC;
	return p;
}

const char *gb_gemm_rate_unit(enum gb_precision p)
{
	return p == GB_PREC_INT8 ? "TOP/s" : "TFLOP/s";
}

double gb_gemm_flops(uint64_t m, uint64_t n, uint64_t k)
{
	/* in double: 2 x 262144^3 overflows nothing, and rates are doubles anyway */
	return 2.0 * (double)m * (double)n * (double)k;
}

unsigned gb_gemm_dim_multiple(enum gb_precision p)
{
	/*
	 * FP8 and INT8 tensor-core kernels in cuBLASLt load 16 one-byte elements
	 * at a time along k (lda = ldb = k in TN) and need 16-byte aligned
	 * leading dimensions for D; asking for multiples of 16 in all three
	 * dimensions keeps every operand on that alignment.
	 */
	return p == GB_PREC_FP8 || p == GB_PREC_INT8 ? 16 : 1;
}

int gb_gemm_check_shape(enum gb_precision p, uint64_t m, uint64_t n, uint64_t k, char *err,
			size_t len)
{
	unsigned mult = gb_gemm_dim_multiple(p);

	if (!m || !n || !k || m > GB_GEMM_MAX_DIM || n > GB_GEMM_MAX_DIM || k > GB_GEMM_MAX_DIM) {
		snprintf(err, len, "m, n and k must be between 1 and %d (got %llux%llux%llu)",
			 GB_GEMM_MAX_DIM, (unsigned long long)m, (unsigned long long)n,
			 (unsigned long long)k);
		return -1;
	}
	if (m % mult || n % mult || k % mult) {
		snprintf(err, len, "%s needs m, n and k to be multiples of %u (got %llux%llux%llu)",
			 gb_precision_name(p), mult, (unsigned long long)m, (unsigned long long)n,
			 (unsigned long long)k);
		return -1;
	}
	return 0;
}

size_t gb_gemm_shape_product(const uint64_t *m, size_t nm, const uint64_t *n, size_t nn,
			     const uint64_t *k, size_t nk, struct gb_gemm_shape *out, size_t max)
{
	size_t total = nm * nn * nk, i = 0;

	for (size_t a = 0; a < nm; a++)
		for (size_t b = 0; b < nn; b++)
			for (size_t c = 0; c < nk; c++, i++)
				if (out && i < max)
					out[i] = (struct gb_gemm_shape){ m[a], n[b], k[c] };
	return total;
}

size_t gb_gemm_search_grid(struct gb_gemm_shape *out, size_t max)
{
	/*
	 * MAMF sweeps thousands of shapes for hours; this grid spans the sizes
	 * that reach peak on A100 through B200 (2K..16K, including the 1.5x
	 * steps 6144 and 12288 that change the wave count) in about 144 x
	 * (--duration + set-up), minutes rather than hours.
	 */
	static const uint64_t mn[] = { 2048, 4096, 6144, 8192, 12288, 16384 };
	static const uint64_t kk[] = { 2048, 4096, 8192, 16384 };
	size_t nmn = sizeof(mn) / sizeof(mn[0]), nkk = sizeof(kk) / sizeof(kk[0]);

	return gb_gemm_shape_product(mn, nmn, mn, nmn, kk, nkk, out, max);
}

uint64_t gb_gemm_rotating_copies(double bytes_ab, double l2_bytes)
{
	double l2 = isfinite(l2_bytes) && l2_bytes > 0 ? l2_bytes : 128.0 * 1024 * 1024;
	double copies;

	if (!(bytes_ab > 0))
		return 2;
	copies = ceil(2.0 * l2 / bytes_ab);
	if (copies < 2)
		return 2;
	/* a few-byte problem would otherwise ask for millions of copies */
	if (copies > (double)(1u << 24))
		return 1u << 24;
	return (uint64_t)copies;
}

uint64_t gb_gemm_copies_that_fit(uint64_t wanted, double bytes_ab, double other_bytes,
				 double free_bytes)
{
	double headroom = free_bytes / 16 > GB_GEMM_MIN_HEADROOM_BYTES
				  ? free_bytes / 16
				  : GB_GEMM_MIN_HEADROOM_BYTES;
	double fit;

	if (!(bytes_ab > 0) || wanted < 1)
		return wanted < 1 ? 1 : wanted;
	fit = floor((free_bytes - headroom - other_bytes) / bytes_ab);
	if (!(fit >= 1))
		return 1;
	return fit < (double)wanted ? (uint64_t)fit : wanted;
}

uint64_t gb_gemm_align_up(uint64_t bytes)
{
	return (bytes + 255) & ~(uint64_t)255;
}

uint64_t gb_gemm_batch_iters(int64_t iters, double duration_s, unsigned samples, double t_gemm_s)
{
	double b;

	if (iters > 0)
		return (uint64_t)iters;
	if (!(t_gemm_s > 0) || !(duration_s > 0) || !samples)
		return 1;
	b = floor(duration_s / samples / t_gemm_s + 0.5);
	if (b < 1)
		return 1;
	return b > 1e6 ? 1000000u : (uint64_t)b;
}

bool gb_gemm_settled(const double *window_s, size_t n, double tol)
{
	double lo = INFINITY, hi = 0;

	if (n < GB_GEMM_SETTLE_WINDOWS)
		return false;
	for (size_t i = n - GB_GEMM_SETTLE_WINDOWS; i < n; i++) {
		if (!(window_s[i] > 0))
			return false;
		lo = fmin(lo, window_s[i]);
		hi = fmax(hi, window_s[i]);
	}
	return hi / lo - 1.0 <= tol;
}

double gb_gemm_preselect_warmup_s(double warmup_s, int n_candidates)
{
	if (n_candidates < 2 || !(warmup_s > 0))
		return 0;
	return fmin(warmup_s, GB_GEMM_PRESELECT_WARMUP_S);
}

/* ---- run-to-run spread ---- */

void gb_gemm_run_medians(const double *samples, size_t per_run, size_t n_runs, double *medians)
{
	/* gb_percentile is NaN for a run with a non-finite sample: such a run has no median */
	for (size_t r = 0; r < n_runs; r++)
		medians[r] = gb_percentile(samples + r * per_run, per_run, 50);
}

double gb_gemm_cv(const double *v, size_t n)
{
	double mean = 0, ss = 0;

	if (n < 2)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return NAN;
		mean += v[i];
	}
	mean /= (double)n;
	if (!(mean > 0))
		return NAN;
	/* two passes: the spread of rates near 1000 is far below their size */
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return sqrt(ss / (double)(n - 1)) / mean;
}

enum gb_gemm_cv_verdict gb_gemm_run_cv_verdict(double cv, size_t n_runs)
{
	if (n_runs < GB_GEMM_RUN_CV_MIN_RUNS)
		return GB_GEMM_CV_TOO_FEW;
	if (isnan(cv))
		return GB_GEMM_CV_INVALID;
	return cv <= GB_GEMM_RUN_CV_MAX ? GB_GEMM_CV_WITHIN : GB_GEMM_CV_ABOVE;
}

/* ---- --search ---- */

size_t gb_gemm_top_k(const double *v, size_t n, size_t k, size_t *out)
{
	size_t got = 0;

	/* insertion into a list of at most k, kept sorted; k is small (3) */
	for (size_t i = 0; i < n; i++) {
		size_t at;

		if (!(v[i] > 0) || !isfinite(v[i]))
			continue;
		/* strictly greater moves ahead, so an equal value keeps its lower index first */
		for (at = got; at > 0 && v[i] > v[out[at - 1]]; at--)
			;
		if (at >= k)
			continue;
		if (got < k)
			got++;
		memmove(out + at + 1, out + at, sizeof(*out) * (got - 1 - at));
		out[at] = i;
	}
	return got;
}

/* n evenly spaced indices in [0, len) including 0 and len - 1 (all when len <= n) */
static uint64_t spread(uint64_t i, uint64_t n, uint64_t len)
{
	if (n >= len)
		return i;
	if (n == 1)
		return 0;
	return i * (len - 1) / (n - 1);
}

size_t gb_gemm_sample_coords(uint64_t m, uint64_t n, uint64_t k, uint32_t *rc, size_t max)
{
	uint64_t nr, nc;
	size_t count = 0;

	if (!m || !n)
		return 0;
	/* m * n <= 2^20 first: with k <= 2^18 the product cannot overflow */
	if (m * n <= GB_GEMM_VERIFY_ALL_MAX && m * n * k <= GB_GEMM_VERIFY_ALL_MACS) {
		nr = m;
		nc = n;
	} else {
		nr = m < GB_GEMM_VERIFY_GRID ? m : GB_GEMM_VERIFY_GRID;
		nc = n < GB_GEMM_VERIFY_GRID ? n : GB_GEMM_VERIFY_GRID;
	}
	/* column-major order, like D, so neighbouring samples read neighbouring memory */
	for (uint64_t c = 0; c < nc; c++) {
		for (uint64_t r = 0; r < nr; r++, count++) {
			if (rc && count < max) {
				rc[2 * count] = (uint32_t)spread(r, nr, m);
				rc[2 * count + 1] = (uint32_t)spread(c, nc, n);
			}
		}
	}
	return count;
}

double gb_gemm_rel_error(double got, double ref, double sum_abs, uint64_t k)
{
	double den = fabs(ref) + (k ? sum_abs / sqrt((double)k) : 0);

	if (isnan(got) || isnan(ref))
		return NAN;
	if (got == ref)
		return 0;
	/* den == 0 only when every product was zero: any difference is infinite error */
	return den > 0 ? fabs(got - ref) / den : INFINITY;
}

/*
 * Unit roundoffs per precision (u = 2^-p, p significand bits):
 *   u_out  rounding of the FP32 (or FP16) accumulator to the output format.
 *   u_in   rounding of the inputs inside the unit: only TF32, which keeps 10
 *          of FP32's 23 stored mantissa bits; 2^-10 allows truncation rather
 *          than round-to-nearest.
 *   u_acc  the accumulator: 2^-53 FP64, 2^-24 FP32 on CUDA cores (FMA,
 *          round to nearest); 2^-23 for FP32 accumulation on tensor cores,
 *          whose adders align and truncate; 2^-11 FP16 accumulation; 2^-13
 *          for FP8, whose Hopper tensor cores keep about 14 bits in the
 *          accumulator between promotions to FP32 (DeepSeek-V3 report).
 * FP16, BF16 and FP8 inputs multiply exactly in FP32, so their u_in is 0.
 */
void gb_gemm_error_model(enum gb_precision p, struct gb_gemm_error_model *em)
{
	const double u64 = 0x1p-53, u32 = 0x1p-24, u_tc32 = 0x1p-23, u16 = 0x1p-11,
		     ubf16 = 0x1p-8;

	memset(em, 0, sizeof(*em));
	switch (p) {
	case GB_PREC_FP64:
	case GB_PREC_FP64_TC:
		em->u_acc = u64;
		break;
	case GB_PREC_FP32:
		em->u_acc = u32;
		break;
	case GB_PREC_TF32:
		em->u_in = 0x1p-10;
		em->u_acc = u_tc32;
		break;
	case GB_PREC_FP16:
		em->u_acc = u_tc32;
		em->u_out = u16;
		break;
	case GB_PREC_BF16:
		em->u_acc = u_tc32;
		em->u_out = ubf16;
		break;
	case GB_PREC_FP16_ACC16:
		em->u_acc = u16;
		em->u_out = u16;
		break;
	case GB_PREC_FP8:
		em->u_acc = 0x1p-13;
		em->u_out = ubf16;
		break;
	case GB_PREC_INT8:
	default:
		break;
	}
}

/*
 * Why the constants (inputs uniform in [-1, 1], error measured by
 * gb_gemm_rel_error, i.e. against |ref| + sum|a_i b_i| / sqrt(k)):
 *   - accumulation: rounding errors of random sign add like a random walk
 *     over partial sums of size ~sqrt(k) * rms(ab), giving a measure of
 *     ~0.5 u_acc sqrt(k) for one sequential dot product. A CPU simulation of
 *     20000 dot products of length 1024 (sequential, the worst order a
 *     kernel can use; tensor-core kernels sum in blocks and do better)
 *     peaked at 1.9 u_acc sqrt(k) for FP32 and 1.5 u_acc sqrt(k) for FP16
 *     accumulation; a million samples reach about 2.5. Factor 5: 2x margin.
 *   - input rounding (TF32): a bias of up to u_in relative to |ref| plus
 *     noise; the simulation peaked at 1.2 u_in. Factor 3.
 *   - output rounding: at most u_out |got|, and |got| ~ |ref| <= the
 *     denominator; factor 2 also covers a truncating conversion.
 *   - the FP64 reference itself rounds like an FP64 GEMM: u_ref = 2^-53.
 * Resulting bounds at k = 8192: fp64 1e-13, fp32 2.7e-5, tf32 3.0e-3, fp16
 * 1.0e-3, bf16 7.9e-3, fp8 6.3e-2, fp16acc16 0.22 (sequential FP16
 * accumulation really is that coarse), int8 0 (exact). A flipped exponent
 * bit or a flipped top mantissa bit moves a typical element by 25% or more
 * of its size, far above every bound except fp16acc16's, which still
 * catches exponent flips, NaNs and garbage.
 */
double gb_gemm_error_bound(enum gb_precision p, uint64_t k)
{
	struct gb_gemm_error_model em;
	const double u_ref = 0x1p-53;

	if (p == GB_PREC_INT8)
		return 0;  /* |sum| < 2^30: exact in int32 and in the FP64 reference */
	gb_gemm_error_model(p, &em);
	return 2.0 * em.u_out + 3.0 * em.u_in + 5.0 * (em.u_acc + u_ref) * sqrt((double)k);
}

double gb_gemm_split_k_slack(enum gb_precision p, int64_t splitk, int64_t reduction_scheme)
{
	struct gb_gemm_error_model em;
	const int64_t in_output = GB_LT_REDUCTION_INPLACE | GB_LT_REDUCTION_OUTPUT_TYPE;

	if (splitk <= 1 || !(reduction_scheme & in_output))
		return 0;
	gb_gemm_error_model(p, &em);
	/*
	 * Each of the splitk partial sums is rounded to the output type, and so is
	 * each of the splitk - 1 running sums (INPLACE). A partial of k/splitk
	 * random-sign products is typically (4/3)/sqrt(splitk) times the scale
	 * the error is measured against (sum_abs / sqrt(k), inputs uniform in
	 * [-1, 1]), and the largest of some 10^5 sampled outputs about 4.5 times
	 * that: the partials together add up to 4·sqrt(splitk) scales where a dot
	 * product cancels to nearly zero, the running sums to about 2 each.
	 */
	return em.u_out * (4.0 * sqrt((double)splitk) + 2.0 * (double)(splitk - 1));
}

void gb_gemm_flip_high_bit(void *elem, enum gb_dtype t)
{
	size_t size = gb_dtype_size(t);
	unsigned char *b = elem;
	unsigned bit;

	if (!size)
		return;
	/* the bit below the sign bit: top exponent bit of a float, bit 30 of an int32 */
	bit = (unsigned)(8 * size - 2);
	/* little-endian element: byte bit / 8 holds it */
	b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
}
