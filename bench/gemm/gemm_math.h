/* SPDX-License-Identifier: MIT */
/*
 * gemm_math.h - the CPU-only arithmetic of the gemm benchmark (in
 * gpubench_core, unit tested without a GPU): FLOP counting, the precisions
 * and their storage types, which compute capability supports which
 * precision, shape rules, the verification error bound, the --search shape
 * grid and its best shapes, the sampled output coordinates, the
 * rotating-buffer count, the run-to-run spread of --repeat and the names of
 * cuBLASLt's tile and stage configurations.
 *
 * Layout convention used everywhere (cuBLASLt "TN"): D = A^T B with
 *   A stored k x m column-major (lda = k), so op(A) = A^T is m x k,
 *   B stored k x n column-major (ldb = k),
 *   D stored m x n column-major (ldd = m).
 * Both operands of one dot product are then contiguous in memory, and FP8
 * and INT8, which need TN on Ada and Hopper, use the same layout as the rest.
 */
#ifndef GPUBENCH_BENCH_GEMM_MATH_H
#define GPUBENCH_BENCH_GEMM_MATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/device/dtype_math.h"
#include "kernels/dtype.h"
#include "report/theory.h"

#ifdef __cplusplus
extern "C" {
#endif

/* element types: kernels/dtype.h and bench/device/dtype_math.h; cuBLASLt names: bench/device/lt_names.h */

/* ---- precisions ---- */

/* The precisions gemm measures, in --precision order. */
#define GB_GEMM_N_PRECS 8
extern const enum gb_precision gb_gemm_precs[GB_GEMM_N_PRECS];
/* --precision choices (names from gb_precision_name), NULL-terminated */
extern const char *const gb_gemm_prec_choices[GB_GEMM_N_PRECS + 1];
/* index of p in gb_gemm_precs, -1 if gemm does not measure p (e.g. fp64_tc) */
int gb_gemm_prec_index(enum gb_precision p);

/* A and B storage type of a precision (tf32 stores FP32, fp16acc16 FP16) */
enum gb_dtype gb_gemm_input_type(enum gb_precision p);
/* D (and C) storage type: FP8 writes BF16, INT8 writes INT32, the rest their input type */
enum gb_dtype gb_gemm_output_type(enum gb_precision p);

/*
 * Minimum compute capability of a precision on cuBLASLt's tensor-core or
 * CUDA-core paths: fp64/fp32 any; fp16/fp16acc16 7.0; int8 7.5; tf32/bf16
 * 8.0; fp8 8.9. Packed as major * 10 + minor.
 */
int gb_gemm_min_cc(enum gb_precision p);
bool gb_gemm_prec_supported(enum gb_precision p, int cc_major, int cc_minor);
/*
 * NULL when device `device` (compute capability cc_major.cc_minor) supports
 * p; else a one-line reason in buf, e.g. "fp8 needs compute capability 8.9
 * or newer (device 0 is 8.0)".
 */
const char *gb_gemm_unsupported_reason(enum gb_precision p, int cc_major, int cc_minor,
				       int device, char *buf, size_t len);

/*
 * The peak table entry a precision is judged against: fp64 GEMM runs on the
 * FP64 tensor cores (DMMA) where the architecture has them (sm_80, sm_90,
 * sm_100), so its peak is GB_PREC_FP64_TC there and GB_PREC_FP64 elsewhere.
 */
enum gb_precision gb_gemm_peak_precision(enum gb_precision p, int cc_major, int cc_minor);

/* "TFLOP/s", or "TOP/s" for int8 (integer operations are not floating point) */
const char *gb_gemm_rate_unit(enum gb_precision p);

/* ---- arithmetic ---- */

/* 2 m n k: one multiply and one add per inner-product term (no epilogue) */
double gb_gemm_flops(uint64_t m, uint64_t n, uint64_t k);

/* ---- shapes ---- */

struct gb_gemm_shape {
	uint64_t m, n, k;
};

/* largest accepted m, n or k: int8 sums stay below 2^30 (64 * 64 * 2^18) */
#define GB_GEMM_MAX_DIM 262144
/* most shapes one run may measure (the Cartesian product of --m, --n, --k) */
#define GB_GEMM_MAX_SHAPES 1024

/* every dimension of p must be a multiple of this (16 for fp8 and int8, else 1) */
unsigned gb_gemm_dim_multiple(enum gb_precision p);
/*
 * 0 when p can run at m x n x k; else -1 and a one-line reason in err, e.g.
 * "fp8 needs m, n and k to be multiples of 16 (got 1000x1000x1000)".
 */
int gb_gemm_check_shape(enum gb_precision p, uint64_t m, uint64_t n, uint64_t k, char *err,
			size_t len);

/*
 * The Cartesian product of the m, n and k lists into out (at most max; m
 * varies slowest). Returns the number of shapes of the full product, which
 * is larger than max when it did not fit.
 */
size_t gb_gemm_shape_product(const uint64_t *m, size_t nm, const uint64_t *n, size_t nn,
			     const uint64_t *k, size_t nk, struct gb_gemm_shape *out, size_t max);

/*
 * The default --search grid (MAMF-style): m and n in {2048, 4096, 6144,
 * 8192, 12288, 16384}, k in {2048, 4096, 8192, 16384}: 144 shapes, all
 * multiples of 256 so every precision can run them. Same return as above.
 */
size_t gb_gemm_search_grid(struct gb_gemm_shape *out, size_t max);

/* ---- memory ---- */

/*
 * Copies of A and B to rotate through so that the inputs do not stay in L2:
 * the smallest count whose footprint (copies x bytes_ab) is at least twice
 * l2_bytes, and never fewer than 2. An unknown L2 (NaN or <= 0) is taken as
 * 128 MiB, larger than any GPU's so far.
 */
uint64_t gb_gemm_rotating_copies(double bytes_ab, double l2_bytes);

/* free memory a run leaves unclaimed by its copies: 1/16 of it, at least this */
#define GB_GEMM_MIN_HEADROOM_BYTES (16.0 * 1024 * 1024)

/*
 * The rotating copies to allocate: `wanted` (gb_gemm_rotating_copies), or
 * fewer when copies x bytes_ab + other_bytes (D and the like) would leave
 * less than the headroom of free_bytes (max(free / 16, 16 MiB), for what
 * the run allocates later): a small GPU with a large L2 would otherwise run
 * out of memory for copies that only defeat the cache. Never below 1: when
 * not even one copy fits with the headroom, one is tried and the caller's
 * own check reports what does not fit.
 */
uint64_t gb_gemm_copies_that_fit(uint64_t wanted, double bytes_ab, double other_bytes,
				 double free_bytes);

/* bytes rounded up to the 256-byte alignment cuBLASLt prefers for every operand */
uint64_t gb_gemm_align_up(uint64_t bytes);

/* ---- timing ---- */

/*
 * GEMMs per timed sample: `iters` when > 0, else enough to make `samples`
 * samples last `duration_s` together at t_gemm_s per GEMM (at least 1, at
 * most 1e6).
 */
uint64_t gb_gemm_batch_iters(int64_t iters, double duration_s, unsigned samples, double t_gemm_s);

/*
 * Warm-up settles when the last GB_GEMM_SETTLE_WINDOWS window times agree
 * within tol (max / min - 1 <= tol, e.g. 0.02).
 */
#define GB_GEMM_SETTLE_WINDOWS 3
bool gb_gemm_settled(const double *window_s, size_t n, double tol);

/*
 * Before cuBLASLt's candidates are timed, the heuristic's first pick runs
 * for this long (at most --warmup), so that they are compared at settled
 * clocks rather than during the first seconds' boost.
 */
#define GB_GEMM_PRESELECT_WARMUP_S 1.0
/* that warm-up in seconds: 0 when there is nothing to choose (fewer than 2 candidates) */
double gb_gemm_preselect_warmup_s(double warmup_s, int n_candidates);

/* ---- run-to-run spread (--repeat) ---- */

/* issue 3's goal: the CV of the median over at least 5 runs is at most 1% */
#define GB_GEMM_RUN_CV_MAX 0.01
#define GB_GEMM_RUN_CV_MIN_RUNS 5

/*
 * The median of each run: samples holds n_runs runs of per_run samples one
 * after another; medians[r] gets the median of run r (NaN for a run with a
 * sample that is not finite).
 */
void gb_gemm_run_medians(const double *samples, size_t per_run, size_t n_runs, double *medians);

/*
 * Coefficient of variation of v[0..n): sample standard deviation (n - 1)
 * over the mean, a fraction. NaN when n < 2, a value is not finite, or the
 * mean is not positive (rates are positive; anything else means nothing).
 */
double gb_gemm_cv(const double *v, size_t n);

enum gb_gemm_cv_verdict {
	GB_GEMM_CV_WITHIN = 0,  /* at least GB_GEMM_RUN_CV_MIN_RUNS runs, cv <= max */
	GB_GEMM_CV_ABOVE,       /* at least GB_GEMM_RUN_CV_MIN_RUNS runs, cv > max */
	GB_GEMM_CV_TOO_FEW,     /* fewer runs: too few to judge the goal */
	GB_GEMM_CV_INVALID,     /* enough runs, but the cv is NaN */
};
/* How a run-to-run cv over n_runs runs stands against GB_GEMM_RUN_CV_MAX. */
enum gb_gemm_cv_verdict gb_gemm_run_cv_verdict(double cv, size_t n_runs);

/* ---- --search ---- */

/* the sweep's best shapes that --search re-runs with every candidate timed */
#define GB_GEMM_SEARCH_TUNE_SHAPES 3

/*
 * The indices of the k largest positive, finite values of v[0..n), largest
 * first (equal values: the lower index first), into out (room for k).
 * Returns how many were written: min(k, number of such values).
 */
size_t gb_gemm_top_k(const double *v, size_t n, size_t k, size_t *out);

/* ---- verification ---- */

/*
 * All m x n outputs are checked up to this many, and while m * n * k (the
 * reference's multiply-adds) stays within GB_GEMM_VERIFY_ALL_MACS; above
 * either, a 64 x 64 grid. The second limit keeps a long k from making the
 * reference (a warp per output, reading a whole row of A and column of B,
 * from memory once A outgrows the L2) take minutes: 1024^3 is still checked
 * in full, 1024 x 1024 x 65536 is not.
 */
#define GB_GEMM_VERIFY_ALL_MAX (1u << 20)
#define GB_GEMM_VERIFY_ALL_MACS (1ull << 33)
#define GB_GEMM_VERIFY_GRID 64

/*
 * Output coordinates to verify for an m x n x k GEMM: every element within
 * the limits above, else 64 evenly spaced rows x 64 evenly spaced columns,
 * which include the first and last row and column, so the four corners too.
 * Writes (row, col) pairs to rc[2i], rc[2i+1] when rc is not NULL (room for
 * max pairs) and returns the number of samples.
 */
size_t gb_gemm_sample_coords(uint64_t m, uint64_t n, uint64_t k, uint32_t *rc, size_t max);

/*
 * The error measure for one output element:
 *   |got - ref| / (|ref| + sum_abs / sqrt(k))
 * with ref the exact dot product of the stored inputs and sum_abs = sum of
 * |a_i b_i|. sum_abs / sqrt(k) is the typical size of |ref| and of the
 * partial sums for random-sign data, so the measure stays meaningful where a
 * dot product cancels to nearly zero. NaN when got or ref is NaN.
 */
double gb_gemm_rel_error(double got, double ref, double sum_abs, uint64_t k);

/*
 * Largest gb_gemm_rel_error a correct result of precision p with inner
 * dimension k may show:
 *   bound = 2 u_out + 3 u_in + 5 (u_acc + u_ref) sqrt(k)
 * u_out: rounding of the result to the output format; u_in: rounding of the
 * inputs inside the unit (tf32 only); u_acc: accumulation; u_ref = 2^-53 for
 * the FP64 reference. int8 is exact: 0. See gemm_math.c and docs/gemm.md for
 * why each constant.
 */
double gb_gemm_error_bound(enum gb_precision p, uint64_t k);

/*
 * cuBLASLt's split-K reduction schemes that sum the partial results in the
 * output format (CUBLASLT_REDUCTION_SCHEME_INPLACE and _OUTPUT_TYPE; gemm.c
 * checks the values against cublasLt.h).
 */
#define GB_LT_REDUCTION_INPLACE 1
#define GB_LT_REDUCTION_OUTPUT_TYPE 4

/*
 * What to add to gb_gemm_error_bound for the algorithm that ran: a split-K
 * algorithm (splitk > 1) that reduces in the output format rounds each
 * output splitk - 1 more times, 2 u_out each, as the single output rounding
 * is counted. 0 for other algorithms, and for formats with no output
 * rounding (FP32 and FP64 outputs, int8).
 */
double gb_gemm_split_k_slack(enum gb_precision p, int64_t splitk, int64_t reduction_scheme);

/* The unit roundoffs behind gb_gemm_error_bound (documentation and tests). */
struct gb_gemm_error_model {
	double u_in, u_acc, u_out;
};
void gb_gemm_error_model(enum gb_precision p, struct gb_gemm_error_model *em);

/*
 * Test hook (--inject-fault): flip the second-highest bit of one element in
 * place, the top exponent bit of a floating-point format (bit 30 of an
 * int32), which changes the value by a large factor.
 */
void gb_gemm_flip_high_bit(void *elem, enum gb_dtype t);

#ifdef __cplusplus
}
#endif

#endif
