/* SPDX-License-Identifier: MIT */
/*
 * stats.h - sample statistics and model fits (CPU only).
 *
 * Every measured number in a report carries its spread: a struct gb_stats
 * computed from the raw samples. The α–β fit turns a size sweep of copy or
 * collective times into latency and asymptotic bandwidth.
 */
#ifndef GPUBENCH_REPORT_STATS_H
#define GPUBENCH_REPORT_STATS_H

#include <stddef.h>

struct gb_stats {
	size_t n;      /* number of samples; 0 means "no statistics" */
	double min;
	double max;
	double mean;
	double median;
	double stdev;  /* sample standard deviation (n-1); 0 when n < 2 */
	double cv;     /* stdev / mean (a fraction, not %); 0 when mean == 0 */
	double p05;    /* percentiles by linear interpolation between order statistics */
	double p95;
	double p99;
};

/*
 * Fill *st from samples[0..n). NaN samples are rejected: returns -1 and leaves
 * st->n = 0 if n == 0 or any sample is NaN/Inf, else 0. Does not modify samples.
 */
int gb_stats_compute(struct gb_stats *st, const double *samples, size_t n);

/* p-th percentile (0..100) of samples by linear interpolation; NaN if n == 0 */
double gb_percentile(const double *samples, size_t n, double p);

/* Median absolute deviation (unscaled); NaN if n == 0. Used for fleet outliers. */
double gb_mad(const double *samples, size_t n);

/*
 * Weighted least-squares fit (weights 1/t^2: relative residuals) of
 * t = alpha + bytes / beta (Hockney model) to a sweep.
 * bytes[i] in bytes, seconds[i] in seconds. On success fills alpha_s (latency,
 * seconds), beta_bps (asymptotic bandwidth, bytes/s) and r2 (coefficient of
 * determination) and returns 0. Returns -1 with fewer than 2 distinct sizes, a
 * non-positive slope (no finite bandwidth) or non-finite input. alpha may be
 * clamped to 0 when the fit gives a small negative intercept; r2 is then that
 * of the unclamped fit.
 */
struct gb_alpha_beta {
	double alpha_s;
	double beta_bps;
	double r2;
	double n_half_bytes; /* alpha * beta: the size at which half of beta is reached */
};
int gb_fit_alpha_beta(struct gb_alpha_beta *fit, const double *bytes, const double *seconds,
		      size_t n);

/*
 * Bus-bandwidth factor for a collective over nranks ranks, following
 * nccl-tests' doc/PERFORMANCE.md: busbw = algbw * factor. "allreduce" gives
 * 2(n-1)/n; "reducescatter", "allgather", "alltoall", "gather" and "scatter"
 * give (n-1)/n (0 for one rank: nothing crosses a link); "broadcast", "reduce"
 * and "sendrecv" give 1. NaN for an unknown name or nranks < 1.
 */
double gb_busbw_factor(const char *collective, int nranks);

/*
 * Byte count S in algbw = S / t for a collective, following nccl-tests'
 * doc/PERFORMANCE.md, where count is the per-rank element count:
 * count * type_size for "allreduce", "broadcast", "reduce" and "sendrecv";
 * count * type_size * nranks for "reducescatter", "allgather", "alltoall",
 * "gather" and "scatter". NaN for an unknown name or nranks < 1.
 */
double gb_algbw_bytes(const char *collective, double count, double type_size, int nranks);

#endif
