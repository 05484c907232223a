/* SPDX-License-Identifier: MIT */
/*
 * gemm_size.h - how much of a large GEMM's efficiency a smaller one can
 * reach (CPU only): the model behind "limits follow the size that ran"
 * (docs/thresholds.md, "GEMMs smaller than 8192^3").
 *
 * The built-in TFLOPS limits (70% of the BF16 peak, ...) are written for
 * run's 8192^3 GEMM. A smaller GEMM reaches less on a healthy GPU for two
 * reasons every GPU shares, and the limit is scaled by both:
 *
 *  - tile quantisation: the output is cut into 128 x 128 tiles, one per SM
 *    at a time; when the tiles do not fill whole waves of the GPU's SMs, the
 *    last wave leaves SMs idle. The share is waves / ceil(waves), taken
 *    relative to the same share at 8192^3 (the limit already holds that);
 *  - a fixed cost per GEMM (launch, pipeline fill and drain), 5 us, against
 *    the GEMM's time at the limit's own rate: t / (t + 5 us).
 *
 * When the product of the two is below 0.4, a GEMM of that size says
 * more about its size than about the GPU: its efficiency is not judged (the
 * check is skipped with that reason; the same-model comparison still
 * applies).
 */
#ifndef GPUBENCH_REPORT_GEMM_SIZE_H
#define GPUBENCH_REPORT_GEMM_SIZE_H

/* the GEMM the built-in limits are written for: run's profiles, 8192^3 */
#define GB_GEMM_LIMIT_REF_N 8192.0
/* the output tile of the quantisation model */
#define GB_GEMM_SIZE_TILE 128.0
/* a GEMM's fixed cost, seconds: launch, fill and drain */
#define GB_GEMM_SIZE_FIXED_S 5e-6
/* below this share, efficiency at that size is not judged */
#define GB_GEMM_SIZE_MIN_SHARE 0.4

/*
 * The share of the reference GEMM's efficiency an m x n x k GEMM can reach
 * on a GPU of sm_count SMs, where limit_flops is the rate the limit asks
 * (peak x min efficiency, FLOP/s): in (0, 1], 1 at and above 8192^3 (by
 * work) and when sm_count or limit_flops is unknown (<= 0 or NAN: the
 * limit then stays as written). NAN for a shape that is not positive.
 */
double gb_gemm_size_share(double m, double n, double k, int sm_count, double limit_flops);

#endif
