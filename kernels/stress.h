/* SPDX-License-Identifier: MIT */
/*
 * stress.h - kernels of `gpubench stress` (kernels/stress.cu), plain C.
 *
 * Data follow bench/stress/stress_math.h: element idx of a matrix is
 * gb_stress_value(key, idx, sig_bits, r), the same function the CPU
 * reference sums, and results C are m x n column-major (F32, or F64 for
 * fp64). Every launcher only enqueues on the given stream and returns
 * cudaGetLastError(); counters and records are written with atomics into a
 * device struct the caller zeroes and copies back.
 */
#ifndef GPUBENCH_KERNELS_STRESS_H
#define GPUBENCH_KERNELS_STRESS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "kernels/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the first failures of each kind are recorded with their coordinates */
#define GB_STRESS_MAX_RECORDS 16

struct gb_stress_elem_rec {
	uint32_t slot, row, col, pad;
	unsigned long long expected_bits, got_bits; /* reference and result element */
};

struct gb_stress_sum_rec {
	uint32_t slot, index, is_row, pad;
	double observed, expected, bound;
};

/* What the verification of one batch found. Zero it before the batch. */
struct gb_stress_verify {
	unsigned long long repeat_diffs;   /* elements whose bits differ from the reference */
	unsigned long long nonfinite;      /* NaN or infinite elements */
	unsigned long long sum_mismatches; /* row and column checksums outside their bound */
	/*
	 * The largest |observed - expected| / bound of the checksums with a
	 * bound > 0 (random phases), as the bits of a non-negative double:
	 * those order like the integers, so atomicMax keeps the largest. 0 none.
	 */
	unsigned long long max_ratio_bits;
	unsigned int n_elem, n_sum;        /* records claimed (can exceed GB_STRESS_MAX_RECORDS) */
	struct gb_stress_elem_rec elem[GB_STRESS_MAX_RECORDS];
	struct gb_stress_sum_rec sum[GB_STRESS_MAX_RECORDS];
};

/*
 * Fill n elements of type t (F64, F32, F16, BF16, E4M3) with
 * gb_stress_value(key, i, sig_bits, r) for i in [0, n): random data when
 * r == 0, integers in [-r, r] otherwise. Values are exactly representable.
 */
cudaError_t gb_launch_stress_fill(void *p, enum gb_dtype t, size_t n, uint64_t key, int sig_bits,
				  int64_t r, cudaStream_t stream);

/*
 * One pass over result slot c (m x n, type F32 or F64): when col and row
 * are not NULL, add its column sums (n) and row sums (m) into them in double
 * (zero them first); when ref is not NULL, compare every element's bits
 * with ref's; always count NaN and infinite elements. Results go to v,
 * records tagged with `slot`.
 */
cudaError_t gb_launch_stress_verify(const void *c, const void *ref, enum gb_dtype t, uint64_t m,
				    uint64_t n, uint32_t slot, double *col, double *row,
				    struct gb_stress_verify *v, cudaStream_t stream);

/*
 * Compare the sums with the reference: a mismatch when
 * !(|observed - expected| <= bound), NaN included; and keep the largest
 * finite |observed - expected| / bound in v->max_ratio_bits, so a run shows
 * how much of the bound healthy results use. n columns, m rows.
 */
cudaError_t gb_launch_stress_check_sums(const double *col, const double *row,
					const double *col_exp, const double *col_bound,
					const double *row_exp, const double *row_bound, uint64_t m,
					uint64_t n, uint32_t slot, struct gb_stress_verify *v,
					cudaStream_t stream);

/*
 * XOR gb_stress_digest_word(word[i], i) over n_words 32-bit words into
 * *digest (zero it first): an order-independent digest, equal on every GPU
 * that holds the same bits.
 */
cudaError_t gb_launch_stress_digest(const void *p, size_t n_words, unsigned long long *digest,
				    cudaStream_t stream);

/*
 * --inject-fault: flip one exponent bit of element `index` of c (F32 or
 * F64) so the value grows by 2^64 or more, or becomes infinite or tiny when
 * it cannot grow; bits[0] gets the element's bits before, bits[1] after.
 */
cudaError_t gb_launch_stress_flip(void *c, enum gb_dtype t, uint64_t index,
				  unsigned long long *bits, cudaStream_t stream);

/* ---- memtest over 32-bit words; patterns are gb_memtest_word() ---- */

struct gb_memtest_rec {
	unsigned long long word; /* index of the 32-bit word in the tested region */
	uint32_t expected, got;
};

/* What one verify pass found. Zero it before the pass. */
struct gb_memtest_report {
	unsigned long long failures;
	unsigned int n_rec, pad;
	struct gb_memtest_rec rec[GB_STRESS_MAX_RECORDS];
};

/* p[i] = gb_memtest_word(kind, param, seed, i) */
cudaError_t gb_launch_memtest_write(uint32_t *p, size_t n_words, int kind, uint32_t param,
				    uint64_t seed, cudaStream_t stream);

/*
 * Check p[i] against the pattern, counting and recording failures; with
 * rewrite_complement, write ~pattern into each word after reading it (one
 * step of moving inversions).
 */
cudaError_t gb_launch_memtest_verify(uint32_t *p, size_t n_words, int kind, uint32_t param,
				     uint64_t seed, int rewrite_complement,
				     struct gb_memtest_report *r, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
