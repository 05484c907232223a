/* SPDX-License-Identifier: MIT */
/*
 * stats.c - sample statistics, the α–β (Hockney) fit and nccl-tests bandwidth
 * conventions (CPU only).
 *
 * Samples are never sorted in place: callers keep raw samples in measurement
 * order for reports and outlier plots, so every order statistic works on a
 * malloc'd copy.
 */
#include "report/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	/* Inputs are finite here, so a plain three-way compare is a total order. */
	return (x > y) - (x < y);
}

static int all_finite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

/* Sorted copy of v[0..n), or NULL on allocation failure. */
static double *sorted_copy(const double *v, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

/*
 * numpy's default ("linear") percentile: position h = (n-1) p/100 between
 * order statistics, interpolated. Matching numpy lets users check a report
 * against their own post-processing.
 */
static double percentile_sorted(const double *s, size_t n, double p)
{
	double h = (double)(n - 1) * (p / 100.0);
	size_t lo = (size_t)floor(h);
	double frac;

	if (lo >= n - 1)
		return s[n - 1];
	frac = h - (double)lo;
	/* a + f(b - a) stays within [a, b] and is exact at f = 0. */
	return s[lo] + frac * (s[lo + 1] - s[lo]);
}

/*
 * Mean with a second, corrective pass: the residual sum of (x - mean) recovers
 * most of the rounding error of the first sum, which matters for long runs of
 * nearly equal timings.
 */
static double mean_of(const double *v, size_t n)
{
	double sum = 0.0, corr = 0.0, m;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	m = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		corr += v[i] - m;
	return m + corr / (double)n;
}

int gb_stats_compute(struct gb_stats *st, const double *samples, size_t n)
{
	double *s;
	double ss = 0.0;

	if (!st)
		return -1;
	memset(st, 0, sizeof(*st));
	if (n == 0 || !samples || !all_finite(samples, n))
		return -1;
	s = sorted_copy(samples, n);
	if (!s)
		return -1;

	st->min = s[0];
	st->max = s[n - 1];
	st->mean = mean_of(s, n);
	st->median = percentile_sorted(s, n, 50.0);
	st->p05 = percentile_sorted(s, n, 5.0);
	st->p95 = percentile_sorted(s, n, 95.0);
	st->p99 = percentile_sorted(s, n, 99.0);

	/* Two-pass variance: sum of squared deviations avoids the cancellation of
	 * sum(x^2) - n mean^2 when the spread is tiny relative to the mean. */
	if (n >= 2) {
		for (size_t i = 0; i < n; i++) {
			double d = s[i] - st->mean;

			ss += d * d;
		}
		st->stdev = sqrt(ss / (double)(n - 1));
	}
	st->cv = st->mean != 0.0 ? st->stdev / st->mean : 0.0;
	free(s);

	/* Set n last so a failed call can never leave a half-filled "valid" struct. */
	st->n = n;
	return 0;
}

double gb_percentile(const double *samples, size_t n, double p)
{
	double *s;
	double r;

	if (n == 0 || !samples || !(p >= 0.0 && p <= 100.0) || !all_finite(samples, n))
		return NAN;
	s = sorted_copy(samples, n);
	if (!s)
		return NAN;
	r = percentile_sorted(s, n, p);
	free(s);
	return r;
}

double gb_mad(const double *samples, size_t n)
{
	double *s;
	double med, r;

	if (n == 0 || !samples || !all_finite(samples, n))
		return NAN;
	s = sorted_copy(samples, n);
	if (!s)
		return NAN;
	med = percentile_sorted(s, n, 50.0);
	/* Reuse the copy for the absolute deviations; it is ours to overwrite. */
	for (size_t i = 0; i < n; i++)
		s[i] = fabs(s[i] - med);
	qsort(s, n, sizeof(*s), cmp_double);
	r = percentile_sorted(s, n, 50.0);
	free(s);
	return r;
}

/*
 * Weighted least squares with weights 1/t^2, i.e. minimising relative
 * residuals. Timing noise is roughly proportional to the time, and a sweep
 * spans ~8 orders of magnitude: unweighted, the largest sizes decide
 * everything and 1% noise at 1 GiB (hundreds of microseconds) swamps a
 * latency of a few microseconds. Relative weighting lets the small sizes
 * decide alpha and the large ones beta.
 */
int gb_fit_alpha_beta(struct gb_alpha_beta *fit, const double *bytes, const double *seconds,
		      size_t n)
{
	double sw = 0.0, mx = 0.0, my = 0.0, sxx = 0.0, sxy = 0.0, syy = 0.0, ssr = 0.0;
	double slope, icept;
	int distinct = 0;

	if (!fit || !bytes || !seconds || n < 2)
		return -1;
	if (!all_finite(bytes, n) || !all_finite(seconds, n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!(seconds[i] > 0.0))
			return -1; /* a non-positive time is a measurement error, not data */
		if (bytes[i] != bytes[0])
			distinct = 1;
	}
	if (!distinct)
		return -1;

	/* weighted means, then centred sums: avoids cancellation across the size range */
	for (size_t i = 0; i < n; i++) {
		double w = 1.0 / (seconds[i] * seconds[i]);

		sw += w;
		mx += w * bytes[i];
		my += w * seconds[i];
	}
	mx /= sw;
	my /= sw;
	for (size_t i = 0; i < n; i++) {
		double w = 1.0 / (seconds[i] * seconds[i]);
		double dx = bytes[i] - mx;
		double dy = seconds[i] - my;

		sxx += w * dx * dx;
		sxy += w * dx * dy;
		syy += w * dy * dy;
	}
	if (!(sxx > 0.0))
		return -1;
	slope = sxy / sxx;
	/* A flat or falling time-vs-size line has no finite bandwidth. */
	if (!(slope > 0.0))
		return -1;
	icept = my - slope * mx;

	/* Weighted residuals of the unclamped line, so r2 describes the actual fit. */
	for (size_t i = 0; i < n; i++) {
		double r = (seconds[i] - (icept + slope * bytes[i])) / seconds[i];

		ssr += r * r;
	}

	/* a negative latency is unphysical: noise pushed the intercept below zero */
	fit->alpha_s = icept > 0.0 ? icept : 0.0;
	fit->beta_bps = 1.0 / slope;
	fit->r2 = syy > 0.0 ? 1.0 - ssr / syy : 1.0;
	fit->n_half_bytes = fit->alpha_s * fit->beta_bps;
	return 0;
}

enum coll_kind {
	COLL_ALLREDUCE, /* busbw 2(n-1)/n, S = count * size */
	COLL_SHARDED,   /* busbw (n-1)/n, S = count * size * nranks */
	COLL_ROOTED,    /* busbw 1, S = count * size */
};

static const struct {
	const char *name;
	enum coll_kind kind;
} collectives[] = {
	{ "allreduce", COLL_ALLREDUCE },
	{ "reducescatter", COLL_SHARDED },
	{ "allgather", COLL_SHARDED },
	{ "alltoall", COLL_SHARDED },
	{ "gather", COLL_SHARDED },
	{ "scatter", COLL_SHARDED },
	{ "broadcast", COLL_ROOTED },
	{ "reduce", COLL_ROOTED },
	{ "sendrecv", COLL_ROOTED },
};

/* Kind of the named collective, or -1 if unknown. */
static int coll_lookup(const char *name)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < sizeof(collectives) / sizeof(collectives[0]); i++)
		if (strcmp(name, collectives[i].name) == 0)
			return (int)collectives[i].kind;
	return -1;
}

double gb_busbw_factor(const char *collective, int nranks)
{
	int kind = coll_lookup(collective);
	double n = (double)nranks;

	if (kind < 0 || nranks < 1)
		return NAN;
	switch ((enum coll_kind)kind) {
	case COLL_ALLREDUCE:
		return 2.0 * (n - 1.0) / n;
	case COLL_SHARDED:
		return (n - 1.0) / n;
	case COLL_ROOTED:
		return 1.0;
	}
	return NAN;
}

double gb_algbw_bytes(const char *collective, double count, double type_size, int nranks)
{
	int kind = coll_lookup(collective);

	if (kind < 0 || nranks < 1)
		return NAN;
	/* Sharded collectives move nranks per-rank buffers' worth of data. */
	if (kind == COLL_SHARDED)
		return count * type_size * (double)nranks;
	return count * type_size;
}
