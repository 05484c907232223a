/* SPDX-License-Identifier: MIT */
/*
 * gemm.h - device-side data and verification kernels for GEMM-shaped work
 * (kernels/fill.cu, kernels/verify.cu). Plain C; launchers only enqueue on
 * the given stream and return cudaGetLastError().
 *
 * Data: each element is a pure function of (seed, index) through a
 * splitmix64 hash, so any element can be recomputed anywhere and a fill is
 * identical whatever the grid. Floats are uniform in [-1, 1] rounded to
 * nearest into the storage type (the distribution NVIDIA's GEMM methodology
 * asks for; zeros would run faster and hide unwritten outputs); int8 is
 * uniform over the integers [-GB_GEMM_INT8_MAX, GB_GEMM_INT8_MAX].
 *
 * Layout of the reference (see bench/gemm/gemm_math.h): D = A^T B, A stored
 * k x m column-major (lda = k), B k x n (ldb = k), D m x n (ldd given).
 */
#ifndef GPUBENCH_KERNELS_GEMM_H
#define GPUBENCH_KERNELS_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "kernels/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Fill n elements of type t at p from the seed: element i is
 * value(seed, first_index + i), so a slab filled in pieces equals one filled
 * at once. GB_DT_I32 is filled like int8 (small integers).
 */
cudaError_t gb_launch_fill_random(void *p, enum gb_dtype t, size_t n, uint64_t seed,
				  uint64_t first_index, cudaStream_t stream);

/*
 * Poison n elements so that an output the GEMM did not write is caught:
 * quiet NaN with a recognisable payload for float types (f64
 * 0x7FF8DEAD0000BAD0, f32 0x7FC0DEAD, f16 0x7EAD, bf16 0x7FED, e4m3 0x7F),
 * 0x7F in every byte for integers (int32 0x7F7F7F7F, above any int8 GEMM
 * sum).
 */
cudaError_t gb_launch_fill_poison(void *p, enum gb_dtype t, size_t n, cudaStream_t stream);

/*
 * FP64 reference for a sample of outputs: for each i < n_samples with
 * (row, col) = (rc[2i], rc[2i+1]),
 *   ref[i]   = sum_l A[l + row * k] * B[l + col * k]   (in double)
 *   scale[i] = sum_l |A[..] * B[..]| / sqrt(k)
 * reading A and B in their storage type t_ab and converting exactly. One
 * warp per sample, lanes striding over l: the reads of a warp are
 * contiguous (A and B columns are contiguous in TN), unlike one thread per
 * sample.
 */
cudaError_t gb_launch_gemm_reference(const void *a, const void *b, enum gb_dtype t_ab, uint64_t k,
				     const uint32_t *rc, size_t n_samples, double *ref,
				     double *scale, cudaStream_t stream);

/* Counters of one comparison; zero them (cudaMemsetAsync) before the launch. */
struct gb_verify_counters {
	unsigned long long checked;       /* samples compared */
	unsigned long long mismatches;    /* error above the bound, or NaN */
	unsigned long long nans;          /* got (or ref) NaN */
	unsigned long long max_err_bits;  /* largest finite error, as the bits of a double */
	unsigned long long first_bad_inv; /* ~(index of the first mismatch); 0 = none */
};

/*
 * Compare D (type t_d, leading dimension ldd) at the samples with the
 * reference: err = |got - ref| / (|ref| + scale) (gb_gemm_rel_error), a
 * mismatch when err > bound or got is NaN. got[i] receives D at sample i as
 * a double (for the report's first mismatch). Counts on the device with
 * atomics; nothing is copied back here.
 */
cudaError_t gb_launch_gemm_compare(const void *d, enum gb_dtype t_d, uint64_t ldd,
				   const uint32_t *rc, size_t n_samples, const double *ref,
				   const double *scale, double bound, double *got,
				   struct gb_verify_counters *counters, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
