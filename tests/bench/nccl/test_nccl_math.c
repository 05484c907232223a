/* SPDX-License-Identifier: MIT */
/*
 * test_nccl_math.c - unit tests for bench/nccl/nccl_math.c: nccl-tests' bus
 * bandwidth factors and byte counts for every collective at 1, 2, 3 and 8
 * ranks, the size sweep and per-rank shapes, the predictable data and the
 * expected value of every received element (checked against a brute-force
 * model), tolerances, the theoretical link bandwidth, the summary and its
 * alpha-beta fit on a synthetic sweep, samples and their spread, buffer
 * rotation, the points NCCL does not work on, combining ranks' rows, the
 * report (metrics, checks, the one-rank note) and the option table and
 * checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/nccl/nccl_math.h"
#include "cmd/cli.h"
#include "report/result.h"
#include "report/stats.h"
#include "report/theory.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))
#define assert_rel(a, b, rel)                                                                      \
	assert_true(fabs((double)(a) - (double)(b)) <= (rel)*fabs((double)(b)))
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define KiB 1024ULL
#define MiB (1024ULL * KiB)
#define GiB (1024ULL * MiB)

static const int rank_counts[] = { 1, 2, 3, 8 };

/* ---- factors and byte counts ---- */

static double expected_factor(int c, int n)
{
	switch (c) {
	case GB_NCCL_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case GB_NCCL_ALLGATHER:
	case GB_NCCL_REDUCESCATTER:
	case GB_NCCL_ALLTOALL:
		return (double)(n - 1) / n;
	default: /* broadcast, reduce */
		return 1.0;
	}
}

static void test_busbw_factors(void **state)
{
	(void)state;
	for (int c = 0; c < GB_NCCL_COLL_COUNT; c++) {
		for (size_t k = 0; k < ARRAY_LEN(rank_counts); k++) {
			int n = rank_counts[k];

			assert_near(gb_busbw_factor(gb_nccl_coll_names[c], n),
				    expected_factor(c, n), 1e-12);
		}
	}
	/* spot values: all-reduce on 8 ranks moves 2*7/8 of the data over each link */
	assert_near(gb_busbw_factor("allreduce", 8), 1.75, 1e-12);
	assert_near(gb_busbw_factor("allreduce", 2), 1.0, 1e-12);
	assert_near(gb_busbw_factor("allgather", 1), 0.0, 1e-12);
	assert_near(gb_busbw_factor("broadcast", 1), 1.0, 1e-12);
}

static void test_row_bandwidth(void **state)
{
	(void)state;
	for (int c = 0; c < GB_NCCL_COLL_COUNT; c++) {
		for (size_t k = 0; k < ARRAY_LEN(rank_counts); k++) {
			int n = rank_counts[k];
			struct gb_nccl_shape s;
			struct gb_nccl_row r = { .coll = c,
						 .dtype = GB_NCCL_FLOAT,
						 .time_us = 1000 };
			double sharded = c == GB_NCCL_ALLGATHER || c == GB_NCCL_REDUCESCATTER ||
					 c == GB_NCCL_ALLTOALL;

			assert_int_equal(gb_nccl_shape_of(c, 64 * MiB, GB_NCCL_FLOAT, n, &s), 0);
			gb_nccl_row_shape(&r, &s, n);
			/* algbw bytes: count x 4, times n for the sharded collectives */
			assert_near(r.algbytes, (double)s.param_count * 4 * (sharded ? n : 1), 0);
			gb_nccl_row_bw(&r, n);
			assert_rel(r.algbw_gbps, r.algbytes / 1e-3 / 1e9, 1e-12);
			assert_rel(r.busbw_gbps + 1e-300,
				   r.algbw_gbps * expected_factor(c, n) + 1e-300, 1e-12);
		}
	}
}

static void test_row_bandwidth_bad_time(void **state)
{
	struct gb_nccl_row r = { .coll = GB_NCCL_ALLREDUCE, .algbytes = 1e6, .time_us = 0 };

	(void)state;
	gb_nccl_row_bw(&r, 2);
	assert_true(isnan(r.algbw_gbps) && isnan(r.busbw_gbps));
}

/* ---- sweep and shapes ---- */

static void test_sweep(void **state)
{
	uint64_t s[GB_NCCL_SWEEP_MAX];
	size_t n;

	(void)state;
	/* the default: 8 B .. 1 GiB by 2 is 28 sizes, as nccl-tests -b 8 -e 1G -f 2 */
	n = gb_nccl_sweep(8, GiB, 2, s, ARRAY_LEN(s));
	assert_int_equal(n, 28);
	assert_int_equal(s[0], 8);
	assert_int_equal(s[27], GiB);
	for (size_t i = 1; i < n; i++)
		assert_int_equal(s[i], 2 * s[i - 1]);
	/* off-grid max: the last size is the last step below it (nccl-tests' loop) */
	n = gb_nccl_sweep(1 * KiB, 100 * KiB, 4, s, ARRAY_LEN(s));
	assert_int_equal(n, 4);
	assert_int_equal(s[3], 64 * KiB);
	/* one size */
	assert_int_equal(gb_nccl_sweep(1 * MiB, 1 * MiB, 2, s, ARRAY_LEN(s)), 1);
	/* bad input */
	assert_int_equal(gb_nccl_sweep(0, 1 * MiB, 2, s, ARRAY_LEN(s)), 0);
	assert_int_equal(gb_nccl_sweep(2 * MiB, 1 * MiB, 2, s, ARRAY_LEN(s)), 0);
	assert_int_equal(gb_nccl_sweep(8, 1 * MiB, 1, s, ARRAY_LEN(s)), 0);
	/* cap: never writes past it, and the largest size cannot overflow */
	assert_int_equal(gb_nccl_sweep(1, UINT64_MAX, 2, s, 5), 5);
	assert_int_equal(gb_nccl_sweep(1, UINT64_MAX, 2, s, ARRAY_LEN(s)), 64);
}

static void test_shapes(void **state)
{
	struct gb_nccl_shape s;

	(void)state;
	/* whole-buffer collectives: count = bytes / type size on every rank */
	assert_int_equal(gb_nccl_shape_of(GB_NCCL_ALLREDUCE, 1 * MiB, GB_NCCL_FLOAT, 3, &s), 0);
	assert_int_equal(s.param_count, 262144);
	assert_int_equal(s.send_count, 262144);
	assert_int_equal(s.recv_count, 262144);
	/* allgather over 3 ranks: 262144/3 = 87381, down to a multiple of 4 floats (16 B) */
	assert_int_equal(gb_nccl_shape_of(GB_NCCL_ALLGATHER, 1 * MiB, GB_NCCL_FLOAT, 3, &s), 0);
	assert_int_equal(s.param_count, 87380);
	assert_int_equal(s.send_count, 87380);
	assert_int_equal(s.recv_count, 3 * 87380);
	assert_int_equal(s.inplace_send_offset, 87380);
	/* reducescatter mirrors it */
	assert_int_equal(gb_nccl_shape_of(GB_NCCL_REDUCESCATTER, 1 * MiB, GB_NCCL_HALF, 3, &s), 0);
	assert_int_equal(s.param_count, 174760); /* 524288/3 = 174762 -> multiple of 8 */
	assert_int_equal(s.recv_count, 174760);
	assert_int_equal(s.send_count, 3 * 174760);
	assert_int_equal(s.inplace_recv_offset, 174760);
	/* alltoall: the per-peer chunk, send and receive both n chunks */
	assert_int_equal(gb_nccl_shape_of(GB_NCCL_ALLTOALL, 1 * MiB, GB_NCCL_DOUBLE, 8, &s), 0);
	assert_int_equal(s.param_count, 16384);
	assert_int_equal(s.send_count, 131072);
	assert_int_equal(s.recv_count, 131072);
	/* too small for one aligned element per rank */
	assert_int_equal(gb_nccl_shape_of(GB_NCCL_ALLGATHER, 8, GB_NCCL_FLOAT, 8, &s), -1);
	assert_int_equal(gb_nccl_shape_of(GB_NCCL_ALLREDUCE, 2, GB_NCCL_FLOAT, 1, &s), -1);
	assert_int_equal(gb_nccl_shape_of(GB_NCCL_ALLREDUCE, 8, GB_NCCL_FLOAT, 0, &s), -1);
	/* every chunk of every type is 16-byte aligned */
	for (int t = 0; t < GB_NCCL_DTYPE_COUNT; t++) {
		assert_int_equal(gb_nccl_shape_of(GB_NCCL_ALLGATHER, 1000003, t, 7, &s), 0);
		assert_int_equal(s.param_count * gb_nccl_dtype_size(t) % 16, 0);
	}
}

static void test_dtype_facts(void **state)
{
	static const size_t sizes[GB_NCCL_DTYPE_COUNT] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2 };

	(void)state;
	for (int t = 0; t < GB_NCCL_DTYPE_COUNT; t++)
		assert_int_equal(gb_nccl_dtype_size(t), sizes[t]);
	assert_string_equal(gb_nccl_dtype_names[GB_NCCL_BFLOAT16], "bfloat16");
	assert_null(gb_nccl_dtype_names[GB_NCCL_DTYPE_COUNT]);
	assert_true(gb_nccl_coll_reduces(GB_NCCL_REDUCESCATTER));
	assert_false(gb_nccl_coll_reduces(GB_NCCL_ALLGATHER));
	assert_true(gb_nccl_coll_rooted(GB_NCCL_BROADCAST));
	assert_false(gb_nccl_coll_rooted(GB_NCCL_ALLREDUCE));
	assert_false(gb_nccl_coll_has_inplace(GB_NCCL_ALLTOALL));
}

/* ---- the correctness pass ---- */

static void test_input_pattern(void **state)
{
	int hist[5] = { 0 };

	(void)state;
	for (uint64_t i = 0; i < 4000; i++) {
		int v = gb_nccl_input(GB_NCCL_SUM, 7, 3, i),
		    p = gb_nccl_input(GB_NCCL_PROD, 7, 3, i);

		assert_in_range(v, 1, 4); /* never zero */
		assert_in_range(p, 1, 2);
		hist[v]++;
		/* a pure function of (seed, rank, index) */
		assert_int_equal(v, gb_nccl_input(GB_NCCL_SUM, 7, 3, i));
	}
	for (int v = 1; v <= 4; v++)
		assert_in_range(hist[v], 800, 1200); /* each value about a quarter of the time */
	/* ranks and seeds give different data */
	assert_true(gb_nccl_hash(1, 0, 5) != gb_nccl_hash(1, 1, 5));
	assert_true(gb_nccl_hash(1, 0, 5) != gb_nccl_hash(2, 0, 5));
}

/* Brute force: what rank `rank` must hold at element k, from the inputs alone. */
static void model(const struct gb_nccl_expect *e, uint64_t k, double *f, uint64_t *u)
{
	uint64_t pc = e->param_count;
	int pat = e->redop;

	if (e->coll == GB_NCCL_BROADCAST || e->coll == GB_NCCL_ALLGATHER ||
	    e->coll == GB_NCCL_ALLTOALL) {
		int src = e->coll == GB_NCCL_BROADCAST ? e->root : (int)(k / pc);
		uint64_t idx = e->coll == GB_NCCL_BROADCAST   ? k
			       : e->coll == GB_NCCL_ALLGATHER ? k % pc
							      : (uint64_t)e->rank * pc + k % pc;
		int v = gb_nccl_input(GB_NCCL_SUM, e->seed, src, idx);

		*f = v;
		*u = gb_nccl_wrap(e->dtype, (uint64_t)v);
		return;
	}
	{
		uint64_t idx = e->coll == GB_NCCL_REDUCESCATTER ? (uint64_t)e->rank * pc + k : k;
		double acc = pat == GB_NCCL_PROD  ? 1
			     : pat == GB_NCCL_MAX ? 0
			     : pat == GB_NCCL_MIN ? 99
						  : 0;
		uint64_t iacc = pat == GB_NCCL_PROD ? 1 : pat == GB_NCCL_MIN ? 99 : 0;

		for (int s = 0; s < e->nranks; s++) {
			int v = gb_nccl_input(pat, e->seed, s, idx);

			if (pat == GB_NCCL_PROD) {
				acc *= v;
				iacc *= (uint64_t)v;
			} else if (pat == GB_NCCL_MAX) {
				acc = fmax(acc, v);
				iacc = iacc > (uint64_t)v ? iacc : (uint64_t)v;
			} else if (pat == GB_NCCL_MIN) {
				acc = fmin(acc, v);
				iacc = iacc < (uint64_t)v ? iacc : (uint64_t)v;
			} else {
				acc += v;
				iacc += (uint64_t)v;
			}
		}
		iacc = gb_nccl_wrap(e->dtype, iacc);
		if (pat == GB_NCCL_AVG) {
			acc /= e->nranks;
			iacc = gb_nccl_int_avg(e->dtype, iacc, e->nranks);
		}
		*f = acc;
		*u = iacc;
	}
}

static void test_expected_every_collective(void **state)
{
	(void)state;
	for (int c = 0; c < GB_NCCL_COLL_COUNT; c++)
		for (int op = 0; op < GB_NCCL_REDOP_COUNT; op++)
			for (int t = 0; t < GB_NCCL_DTYPE_COUNT; t++)
				for (size_t k = 0; k < ARRAY_LEN(rank_counts); k++) {
					int n = rank_counts[k];
					struct gb_nccl_expect e = {
						.coll = c,
						.redop = op,
						.dtype = t,
						.nranks = n,
						.rank = n - 1,
						.root = n > 1 ? 1 : 0,
						.param_count = 8,
						.seed = 42,
					};
					uint64_t recv =
						c == GB_NCCL_ALLGATHER || c == GB_NCCL_ALLTOALL
							? 8 * (uint64_t)n
							: 8;

					for (uint64_t i = 0; i < recv; i++) {
						double f, mf;
						uint64_t u, mu;

						gb_nccl_expected(&e, i, &f, &u);
						model(&e, i, &mf, &mu);
						assert_near(f, mf, 1e-12);
						assert_int_equal(u, mu);
					}
				}
}

static void test_expected_values(void **state)
{
	struct gb_nccl_expect e = {
		.coll = GB_NCCL_ALLREDUCE,
		.redop = GB_NCCL_SUM,
		.dtype = GB_NCCL_FLOAT,
		.nranks = 2,
		.rank = 0,
		.root = 0,
		.param_count = 100,
		.seed = 9,
	};
	double f;
	uint64_t u;

	(void)state;
	/* sum over 2 ranks is the two inputs added */
	gb_nccl_expected(&e, 17, &f, &u);
	assert_near(f, gb_nccl_input(GB_NCCL_SUM, 9, 0, 17) + gb_nccl_input(GB_NCCL_SUM, 9, 1, 17),
		    0);
	/* one rank: every collective returns the input unchanged (avg divides by 1) */
	e.nranks = 1;
	e.redop = GB_NCCL_AVG;
	gb_nccl_expected(&e, 17, &f, &u);
	assert_near(f, gb_nccl_input(GB_NCCL_AVG, 9, 0, 17), 0);
	/* broadcast: the root's data on every rank */
	e = (struct gb_nccl_expect){ .coll = GB_NCCL_BROADCAST,
				     .dtype = GB_NCCL_INT32,
				     .nranks = 4,
				     .rank = 2,
				     .root = 3,
				     .param_count = 100,
				     .seed = 9 };
	gb_nccl_expected(&e, 5, &f, &u);
	assert_int_equal(u, (uint64_t)gb_nccl_input(GB_NCCL_SUM, 9, 3, 5));
	/* alltoall: element s*pc+j of rank r is what rank s sent to r */
	e = (struct gb_nccl_expect){ .coll = GB_NCCL_ALLTOALL,
				     .dtype = GB_NCCL_INT32,
				     .nranks = 4,
				     .rank = 2,
				     .param_count = 10,
				     .seed = 9 };
	gb_nccl_expected(&e, 3 * 10 + 4, &f, &u);
	assert_int_equal(u, (uint64_t)gb_nccl_input(GB_NCCL_SUM, 9, 3, 2 * 10 + 4));
}

static void test_integer_wrap(void **state)
{
	struct gb_nccl_expect e = {
		.coll = GB_NCCL_ALLREDUCE,
		.redop = GB_NCCL_SUM,
		.dtype = GB_NCCL_UINT8,
		.nranks = 200,
		.param_count = 4,
		.seed = 1,
	};
	double f;
	uint64_t u;

	(void)state;
	/* 200 ranks of 1..4 overflow uint8: the expected value wraps as the type does */
	gb_nccl_expected(&e, 0, &f, &u);
	assert_true(f > 255);
	assert_int_equal(u, (uint64_t)f % 256);
	assert_int_equal(gb_nccl_wrap(GB_NCCL_INT32, 0x1FFFFFFFFULL), 0xFFFFFFFFULL);
	assert_int_equal(gb_nccl_wrap(GB_NCCL_UINT64, UINT64_MAX), UINT64_MAX);
	/* signed avg divides the sign-extended sum: int8 0xF0 (-16) / 2 = -8 (0xF8) */
	assert_int_equal(gb_nccl_int_avg(GB_NCCL_INT8, 0xF0, 2), 0xF8);
	assert_int_equal(gb_nccl_int_avg(GB_NCCL_UINT8, 0xF0, 2), 0x78);
	assert_int_equal(gb_nccl_int_avg(GB_NCCL_INT32, 7, 2), 3);
}

static void test_tolerance(void **state)
{
	(void)state;
	/* exact: integers, data movement, max/min/prod, small sums */
	assert_near(gb_nccl_tolerance(GB_NCCL_INT32, GB_NCCL_ALLREDUCE, GB_NCCL_AVG, 8), 0, 0);
	assert_near(gb_nccl_tolerance(GB_NCCL_HALF, GB_NCCL_ALLGATHER, GB_NCCL_SUM, 8), 0, 0);
	assert_near(gb_nccl_tolerance(GB_NCCL_HALF, GB_NCCL_ALLREDUCE, GB_NCCL_MAX, 8), 0, 0);
	assert_near(gb_nccl_tolerance(GB_NCCL_BFLOAT16, GB_NCCL_ALLREDUCE, GB_NCCL_PROD, 8), 0, 0);
	/* bfloat16 sums of 1..4 stay exact up to 64 ranks (4 x 64 = 256 = 2^8) */
	assert_near(gb_nccl_tolerance(GB_NCCL_BFLOAT16, GB_NCCL_ALLREDUCE, GB_NCCL_SUM, 64), 0, 0);
	assert_true(gb_nccl_tolerance(GB_NCCL_BFLOAT16, GB_NCCL_ALLREDUCE, GB_NCCL_SUM, 65) > 0);
	assert_near(gb_nccl_tolerance(GB_NCCL_HALF, GB_NCCL_REDUCE, GB_NCCL_SUM, 512), 0, 0);
	/* avg divides: 2 n ulp */
	assert_near(gb_nccl_tolerance(GB_NCCL_FLOAT, GB_NCCL_ALLREDUCE, GB_NCCL_AVG, 8),
		    16.0 * ldexp(1, -23), 1e-20);
	/* the comparison: exact, tolerance, NaN never */
	assert_true(gb_nccl_value_ok(3, 3, 0));
	assert_false(gb_nccl_value_ok(3.001, 3, 0));
	assert_true(gb_nccl_value_ok(3.001, 3, 1e-3));
	assert_false(gb_nccl_value_ok(NAN, 3, 1));
	assert_false(gb_nccl_value_ok(NAN, NAN, 1));
	assert_true(gb_nccl_value_ok(INFINITY, INFINITY, 0)); /* overflow on both sides agrees */
}

/* x rounded to nearest even with a p-bit significand (normal numbers: all that occur here). */
static double round_bits(double x, int p)
{
	int e;
	double m = frexp(x, &e);

	return ldexp(nearbyint(ldexp(m, p)), e - p);
}

/*
 * NCCL computes a floating-point avg as a pre-multiplied sum: every input
 * times 1/n rounded to the type, each product and each partial sum rounded
 * again (FuncPreMulSum). The tolerance the GPU check applies must accept
 * that result for every rank count, in the types where it matters most,
 * against the expected value as the verify kernel rounds it (via float).
 */
static void test_avg_premulsum(void **state)
{
	static const int types[] = { GB_NCCL_HALF, GB_NCCL_BFLOAT16, GB_NCCL_FLOAT };

	(void)state;
	for (size_t k = 0; k < ARRAY_LEN(types); k++) {
		int t = types[k], p = gb_nccl_dtype_precision(t);

		for (int n = 1; n <= 64; n++) {
			struct gb_nccl_expect e = { .coll = GB_NCCL_ALLREDUCE, .redop = GB_NCCL_AVG,
						    .dtype = t, .nranks = n, .param_count = 256,
						    .seed = 42 };
			double scale = round_bits(1.0 / n, p);
			double tol = gb_nccl_tolerance(t, GB_NCCL_ALLREDUCE, GB_NCCL_AVG, n);

			for (uint64_t i = 0; i < 256; i++) {
				double f, sum = 0;
				uint64_t u;

				for (int r = 0; r < n; r++) {
					double v = gb_nccl_input(GB_NCCL_AVG, e.seed, r, i);

					sum = round_bits(sum + round_bits(v * scale, p), p);
				}
				gb_nccl_expected(&e, i, &f, &u);
				if (!gb_nccl_value_ok(sum, round_bits(round_bits(f, 24), p), tol))
					fail_msg("%s avg, %d ranks, element %llu: %.9g not within %g "
						 "of %.9g",
						 gb_nccl_dtype_names[t], n, (unsigned long long)i, sum,
						 tol, f);
			}
		}
	}
}

/* ---- theory ---- */

static void test_link_theory(void **state)
{
	struct gb_nccl_rank_link r[3] = {
		{ "n1", 18, 4, 63e9 },
		{ "n1", 18, 4, 63e9 },
		{ "n1", 18, 4, 31.5e9 },
	};
	char basis[256];
	double bps;

	(void)state;
	/* H100 SXM: 18 NVLink 4 links x 25 GB/s = 450 GB/s per direction */
	bps = gb_nccl_link_theory(r, 3, true, basis, sizeof(basis));
	assert_near(bps, 450e9, 1);
	assert_non_null(strstr(basis, "18 links"));
	/* the slowest GPU bounds it */
	r[1].nvlink_up = 12;
	assert_near(gb_nccl_link_theory(r, 3, true, basis, sizeof(basis)), 300e9, 1);
	assert_non_null(strstr(basis, "rank 1"));
	/* no NVLink between every pair: the slowest PCIe link */
	assert_near(gb_nccl_link_theory(r, 3, false, basis, sizeof(basis)), 31.5e9, 1);
	assert_non_null(strstr(basis, "PCIe"));
	/* one rank: nothing crosses a link */
	assert_true(isnan(gb_nccl_link_theory(r, 1, true, basis, sizeof(basis))));
	assert_non_null(strstr(basis, "one rank"));
	/* two hosts: the network bounds it, unknown here */
	r[2].host = "n2";
	assert_true(isnan(gb_nccl_link_theory(r, 3, true, basis, sizeof(basis))));
	assert_non_null(strstr(basis, "2 hosts"));
	/* unknown rates are never invented */
	r[2].host = "n1";
	r[0].pcie_bps = NAN;
	assert_true(isnan(gb_nccl_link_theory(r, 3, false, basis, sizeof(basis))));
	r[0].nvlink_gen = 0;
	assert_true(isnan(gb_nccl_link_theory(r, 3, true, basis, sizeof(basis))));
}

static void test_pairs_and_rank_link(void **state)
{
	struct gb_run run;
	struct gb_device_info *d;
	struct gb_nccl_rank_link rl;
	int devs[3] = { 0, 1, 2 };

	(void)state;
	memset(&run, 0, sizeof(run));
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			if (a != b)
				gb_run_add_link(&run, a, b,
						a < 2 && b < 2 ? "nvlink" : "pcie_switch");
	assert_true(gb_nccl_pairs_nvlink(&run, devs, 2));
	assert_false(gb_nccl_pairs_nvlink(&run, devs, 3));
	assert_false(gb_nccl_pairs_nvlink(&run, devs, 1));
	d = gb_run_add_device(&run);
	gb_device_info_init(d);
	d->cc_major = 9;
	d->cc_minor = 0;
	d->nvlink_up = 18;
	d->peaks.pcie_bps = 63e9;
	d->peaks.pcie_bps_current = 3.938e9; /* an idle link, dropped to Gen1 x16 */
	gb_nccl_rank_link_of(d, "h", &rl);
	assert_int_equal(rl.nvlink_gen, 4); /* from sm_90 when NVML did not say */
	assert_near(rl.pcie_bps, 63e9, 0);  /* the maximum, never the idle reading */
	d->peaks.pcie_bps = NAN;
	gb_nccl_rank_link_of(d, "h", &rl);
	assert_near(rl.pcie_bps, 3.938e9, 0); /* the current link when the maximum is unknown */
	gb_run_release(&run);
}

/* ---- rows, summary, report ---- */

/* A sweep following t = 10 us + S / 100 GB/s exactly. */
static size_t synthetic_rows(struct gb_nccl_row *rows, int nranks, bool inplace)
{
	size_t n = 0;

	for (uint64_t sz = 1 * KiB; sz <= 256 * MiB; sz *= 4) {
		struct gb_nccl_shape s;
		struct gb_nccl_row *r = &rows[n++];

		memset(r, 0, sizeof(*r));
		r->coll = GB_NCCL_ALLREDUCE;
		r->dtype = GB_NCCL_FLOAT;
		r->redop = GB_NCCL_SUM;
		r->root = -1;
		r->inplace = inplace;
		gb_nccl_shape_of(GB_NCCL_ALLREDUCE, sz, GB_NCCL_FLOAT, nranks, &s);
		gb_nccl_row_shape(r, &s, nranks);
		r->time_us = 10 + r->algbytes / 100e9 * 1e6;
		r->n_samples = 5;
		r->time_cv = 0.005; /* within GB_NCCL_SPREAD_MAX */
		r->time_stdev_us = r->time_cv * r->time_us;
		r->time_min_us = 0.99 * r->time_us;
		r->time_max_us = 1.01 * r->time_us;
		gb_nccl_row_bw(r, nranks);
	}
	return n;
}

static const struct gb_check *find_check(const struct gb_bench_result *b, const char *name)
{
	for (size_t i = 0; i < b->n_checks; i++)
		if (!strcmp(b->checks[i].name, name))
			return &b->checks[i];
	return NULL;
}

static void test_summary_fit(void **state)
{
	struct gb_nccl_row rows[32];
	struct gb_nccl_summary s;
	size_t n = synthetic_rows(rows, 4, false);

	(void)state;
	rows[3].nwrong = 5;
	assert_int_equal(gb_nccl_summarize(rows, n, 4, &s), 0);
	assert_true(s.fit_ok);
	assert_rel(s.alpha_us, 10, 1e-6);
	assert_rel(s.beta_gbps, 100, 1e-6);
	assert_rel(s.beta_bus_gbps, 150, 1e-6); /* x 2(4-1)/4 */
	assert_near(s.r2, 1, 1e-9);
	assert_near(s.latency_smallest_us, rows[0].time_us, 0);
	assert_int_equal(s.smallest_bytes, 1 * KiB);
	assert_int_equal(s.largest_bytes, 256 * MiB);
	assert_near(s.busbw_largest_gbps, rows[n - 1].busbw_gbps, 0);
	assert_near(s.busbw_peak_gbps, rows[n - 1].busbw_gbps, 0); /* bandwidth grows with size */
	assert_true(s.busbw_peak_gbps < 150);
	assert_int_equal(s.nwrong, 5);
	assert_int_equal(s.first_wrong, 3);
	assert_int_equal(gb_nccl_summarize(rows, 0, 4, &s), -1);
}

static void test_row_json_round_trip(void **state)
{
	struct gb_nccl_row rows[32], back;
	cJSON *o;

	(void)state;
	assert_true(synthetic_rows(rows, 2, true) > 2);
	rows[1].nwrong = 0;
	rows[1].wrong_rank = 3;
	rows[1].wrong_gpu = 1;
	o = gb_nccl_row_to_json(&rows[1]);
	assert_string_equal(cJSON_GetObjectItem(o, "placement")->valuestring, "in_place");
	assert_string_equal(cJSON_GetObjectItem(o, "type")->valuestring, "float");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "root")));
	assert_int_equal(gb_nccl_row_from_json(o, &back), 0);
	assert_true(back.inplace);
	assert_int_equal(back.size, rows[1].size);
	assert_int_equal(back.count, rows[1].count);
	assert_int_equal(back.root, -1);
	assert_int_equal(back.nwrong, 0);
	assert_int_equal(back.wrong_rank, 3);
	assert_int_equal(back.wrong_gpu, 1);
	assert_near(back.time_us, rows[1].time_us, 1e-9);
	assert_near(back.time_min_us, rows[1].time_min_us, 1e-9);
	assert_near(back.time_max_us, rows[1].time_max_us, 1e-9);
	assert_near(back.time_stdev_us, rows[1].time_stdev_us, 1e-9);
	assert_near(back.time_cv, rows[1].time_cv, 1e-12);
	assert_int_equal(back.n_samples, 5);
	assert_false(back.untimed);
	assert_null(cJSON_GetObjectItem(o, "skipped"));
	cJSON_Delete(o);
	o = cJSON_Parse("{\"collective\":\"nope\",\"type\":\"float\",\"placement\":\"in_place\"}");
	assert_int_equal(gb_nccl_row_from_json(o, &back), -1);
	cJSON_Delete(o);
}

static void test_combine_ranks(void **state)
{
	struct gb_nccl_row a[32], b[32], out[32];
	const struct gb_nccl_row *parts[2] = { a, b };
	size_t n = synthetic_rows(a, 2, false), ns[2] = { n, n };

	(void)state;
	synthetic_rows(b, 2, false);
	for (size_t i = 0; i < n; i++) {
		b[i].time_us = 3 * a[i].time_us; /* the mean is twice a's time */
		a[i].nwrong = i == 2 ? 0 : 1;
		a[i].wrong_rank = i == 2 ? -1 : 0;
		a[i].wrong_gpu = i == 2 ? -1 : 5;
		b[i].nwrong = i == 2 ? 4 : 0;
		b[i].wrong_rank = i == 2 ? 1 : -1;
		b[i].wrong_gpu = i == 2 ? 0 : -1;
	}
	assert_int_equal(gb_nccl_rows_combine(parts, ns, 2, 2, out), 0);
	assert_rel(out[0].time_us, 2 * a[0].time_us, 1e-12);
	assert_rel(out[0].algbw_gbps, a[0].algbw_gbps / 2, 1e-9);
	assert_int_equal(out[2].nwrong, 4);
	assert_int_equal(out[3].nwrong, 1);
	/* the rank whose output was wrong, and its GPU, whichever part saw it */
	assert_int_equal(out[2].wrong_rank, 1);
	assert_int_equal(out[2].wrong_gpu, 0);
	assert_int_equal(out[3].wrong_rank, 0);
	assert_int_equal(out[3].wrong_gpu, 5);
	assert_int_equal(out[0].wrong_rank, 0);
	/* ranks that measured different points do not combine */
	b[1].size++;
	assert_int_equal(gb_nccl_rows_combine(parts, ns, 2, 2, out), -1);
	ns[1] = n - 1;
	assert_int_equal(gb_nccl_rows_combine(parts, ns, 2, 2, out), -1);
}

static void test_group_names(void **state)
{
	struct gb_nccl_row r = { .coll = GB_NCCL_REDUCESCATTER,
				 .dtype = GB_NCCL_HALF,
				 .redop = GB_NCCL_MAX,
				 .inplace = true };
	char name[96];

	(void)state;
	gb_nccl_group_name(&r, false, false, name, sizeof(name));
	assert_string_equal(name, "reducescatter_inplace");
	gb_nccl_group_name(&r, true, true, name, sizeof(name));
	assert_string_equal(name, "reducescatter_half_max_inplace");
	r.redop = -1;
	r.inplace = false;
	gb_nccl_group_name(&r, false, true, name, sizeof(name));
	assert_string_equal(name, "reducescatter");
}

static const struct gb_metric *metric(const struct gb_bench_result *b, const char *name)
{
	return gb_bench_find_metric(b, name, -1);
}

/*
 * Three groups: nine series, so the series array grows while a group's are
 * added; every series must still hold one point per timed size (a pointer
 * kept across an add once wrote them into freed memory).
 */
static void test_fill_result_many_series(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b;
	struct gb_nccl_row rows[96];
	size_t per = synthetic_rows(rows, 8, false), n = per;

	(void)state;
	n += synthetic_rows(rows + n, 8, true);
	n += synthetic_rows(rows + n, 8, false);
	for (size_t i = 2 * per; i < n; i++)
		rows[i].coll = GB_NCCL_ALLGATHER;
	for (size_t i = 0; i < n; i++)
		rows[i].nwrong = 0;
	memset(&run, 0, sizeof(run));
	gb_run_init(&run, "nccl", 0, NULL);
	b = gb_run_add_bench(&run, "nccl");
	gb_nccl_fill_result(b, rows, n, 8, 450e9, NULL);
	assert_int_equal(b->n_series, 9);
	for (size_t i = 0; i < b->n_series; i++) {
		if (b->series[i].n != per)
			fail_msg("series %s has %zu points, not %zu", b->series[i].name,
				 b->series[i].n, per);
	}
	gb_run_release(&run);
}

static void test_fill_result(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b;
	struct gb_nccl_row rows[64];
	size_t n = synthetic_rows(rows, 8, false);
	const struct gb_metric *m;
	const struct gb_check *c;
	const cJSON *extra;

	(void)state;
	n += synthetic_rows(rows + n, 8, true);
	for (size_t i = 0; i < n; i++)
		rows[i].nwrong = 0;
	rows[n - 2].nwrong = 7; /* in-place, one size */
	rows[n - 2].wrong_rank = 5;
	rows[n - 2].wrong_gpu = 1;
	memset(&run, 0, sizeof(run));
	gb_run_init(&run, "nccl", 0, NULL);
	b = gb_run_add_bench(&run, "nccl");
	gb_nccl_fill_result(b, rows, n, 8, 450e9, "NVLink 4: 18 links");
	m = metric(b, "allreduce_busbw_peak_gbps");
	assert_non_null(m);
	assert_near(m->peak, 450, 1e-9);
	assert_non_null(metric(b, "allreduce_inplace_busbw_largest_gbps"));
	assert_non_null(metric(b, "allreduce_latency_smallest_us"));
	assert_non_null(metric(b, "allreduce_alpha_us"));
	assert_non_null(metric(b, "allreduce_beta_gbps"));
	assert_int_equal(b->n_series, 6);
	/* correctness and timing spread for each placement */
	assert_int_equal(b->n_checks, 4);
	assert_int_equal(find_check(b, "allreduce_correct")->status, GB_STATUS_PASSED);
	c = find_check(b, "allreduce_inplace_correct");
	assert_int_equal(c->status, GB_STATUS_FAILED);
	assert_non_null(strstr(c->message, "7 wrong elements"));
	assert_non_null(strstr(c->message, "in-place"));
	/* the check names the GPU whose output was wrong, not the communicator */
	assert_int_equal(c->device, 1);
	assert_non_null(strstr(c->message, "rank 5 (GPU 1)"));
	assert_int_equal(find_check(b, "allreduce_correct")->device, -1);
	c = find_check(b, "allreduce_timing_spread");
	assert_int_equal(c->status, GB_STATUS_PASSED);
	assert_near(c->observed, 0.5, 1e-9); /* percent */
	assert_near(c->threshold, 2, 1e-9);
	assert_int_equal(find_check(b, "allreduce_inplace_timing_spread")->status,
			 GB_STATUS_PASSED);
	assert_int_equal(b->status, GB_STATUS_FAILED); /* a failed check fails the benchmark */
	extra = b->extra;
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(extra, "rows")), (int)n);
	assert_null(cJSON_GetObjectItem(extra, "note"));
	gb_run_release(&run);
}

static void test_fill_result_one_rank(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b;
	struct gb_nccl_row rows[32];
	size_t n = synthetic_rows(rows, 1, false);
	const struct gb_metric *m;
	const cJSON *note;

	(void)state;
	for (size_t i = 0; i < n; i++)
		rows[i].nwrong = 0;
	memset(&run, 0, sizeof(run));
	gb_run_init(&run, "nccl", 0, NULL);
	b = gb_run_add_bench(&run, "nccl");
	gb_nccl_fill_result(b, rows, n, 1, NAN, "one rank: nothing crosses a link");
	/* busbw is 0 by definition, algbw is what there is to read */
	m = metric(b, "allreduce_busbw_peak_gbps");
	assert_near(m->value, 0, 0);
	assert_true(isnan(m->peak));
	assert_true(metric(b, "allreduce_algbw_peak_gbps")->value > 0);
	note = cJSON_GetObjectItem(b->extra, "note");
	assert_non_null(note);
	assert_non_null(strstr(note->valuestring, "0 by definition"));
	assert_int_equal(b->status, GB_STATUS_PASSED);
	gb_run_release(&run);
}

/* One rank, in place: NCCL returns at once, so those rows are checked but not timed. */
static void test_fill_result_untimed(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b;
	struct gb_nccl_row rows[64], back;
	size_t n = synthetic_rows(rows, 1, false), m;
	const struct gb_check *c;
	cJSON *o;

	(void)state;
	m = synthetic_rows(rows + n, 1, true);
	for (size_t i = 0; i < n + m; i++) {
		rows[i].nwrong = 0;
		if (rows[i].inplace) {
			gb_nccl_row_samples(&rows[i], NULL, 0);
			gb_nccl_row_bw(&rows[i], 1);
		}
	}
	assert_true(rows[n].untimed && isnan(rows[n].time_us) && isnan(rows[n].algbw_gbps));
	memset(&run, 0, sizeof(run));
	gb_run_init(&run, "nccl", 0, NULL);
	b = gb_run_add_bench(&run, "nccl");
	gb_nccl_fill_result(b, rows, n + m, 1, NAN, NULL);
	/* the out-of-place group as usual; the in-place one has no numbers to report */
	assert_non_null(metric(b, "allreduce_algbw_peak_gbps"));
	assert_null(metric(b, "allreduce_inplace_algbw_peak_gbps"));
	assert_null(metric(b, "allreduce_inplace_latency_smallest_us"));
	assert_int_equal(b->n_series, 3);
	c = find_check(b, "allreduce_inplace_timed");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_SKIPPED);
	assert_non_null(strstr(c->message, GB_NCCL_NOOP_REASON));
	assert_int_equal(find_check(b, "allreduce_inplace_correct")->status, GB_STATUS_PASSED);
	assert_null(find_check(b, "allreduce_inplace_timing_spread"));
	assert_int_equal(b->status, GB_STATUS_PASSED); /* skipped timing is not a failure */
	assert_non_null(strstr(cJSON_GetObjectItem(b->extra, "note")->valuestring,
			       "not timed"));
	/* the row says why, and reads back untimed */
	o = gb_nccl_row_to_json(&rows[n]);
	assert_string_equal(cJSON_GetObjectItem(o, "skipped")->valuestring, GB_NCCL_NOOP_REASON);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "time_us")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "algbw")));
	assert_int_equal(gb_nccl_row_from_json(o, &back), 0);
	assert_true(back.untimed);
	assert_int_equal(back.n_samples, 0);
	cJSON_Delete(o);
	gb_run_release(&run);
}

/* A large size whose samples spread too much: a WARNING naming the size, not a failure. */
static void test_fill_result_spread_warning(void **state)
{
	struct gb_run run;
	struct gb_bench_result *b;
	struct gb_nccl_row rows[32];
	size_t n = synthetic_rows(rows, 8, false);
	const struct gb_check *c;

	(void)state;
	for (size_t i = 0; i < n; i++)
		rows[i].nwrong = 0;
	rows[n - 1].time_cv = 0.05; /* 256 MiB */
	memset(&run, 0, sizeof(run));
	gb_run_init(&run, "nccl", 0, NULL);
	b = gb_run_add_bench(&run, "nccl");
	gb_nccl_fill_result(b, rows, n, 8, NAN, NULL);
	c = find_check(b, "allreduce_timing_spread");
	assert_int_equal(c->status, GB_STATUS_WARNING);
	assert_near(c->observed, 5, 1e-9);
	assert_non_null(strstr(c->message, "256 MiB"));
	assert_non_null(strstr(c->message, "5.00%"));
	assert_int_equal(b->status, GB_STATUS_PASSED);
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_WARNING);
	gb_run_release(&run);
}

/* ---- samples, spread, rotation, no-op points ---- */

static void test_row_samples(void **state)
{
	static const double t[] = { 12, 10, 100, 11, 13 };
	static const double bad[] = { 10, NAN };
	struct gb_nccl_row r;
	struct gb_stats st;

	(void)state;
	memset(&r, 0, sizeof(r));
	gb_nccl_row_samples(&r, t, ARRAY_LEN(t));
	gb_stats_compute(&st, t, ARRAY_LEN(t));
	assert_false(r.untimed);
	assert_int_equal(r.n_samples, 5);
	assert_near(r.time_us, 12, 0); /* the median: one slow loop does not move it */
	assert_near(r.time_min_us, 10, 0);
	assert_near(r.time_max_us, 100, 0);
	assert_near(r.time_stdev_us, st.stdev, 1e-12);
	assert_near(r.time_cv, st.stdev / st.mean, 1e-12);
	/* one sample has no spread */
	gb_nccl_row_samples(&r, t, 1);
	assert_int_equal(r.n_samples, 1);
	assert_near(r.time_us, 12, 0);
	assert_true(isnan(r.time_cv));
	/* nothing, or a sample that is not a number: untimed, never a made-up time */
	gb_nccl_row_samples(&r, NULL, 0);
	assert_true(r.untimed && isnan(r.time_us) && r.n_samples == 0);
	gb_nccl_row_samples(&r, bad, ARRAY_LEN(bad));
	assert_true(r.untimed && isnan(r.time_us));
}

static struct gb_nccl_row spread_row(uint64_t size, int samples, double cv)
{
	struct gb_nccl_row r;

	memset(&r, 0, sizeof(r));
	r.size = size;
	r.time_us = 100;
	r.n_samples = samples;
	r.time_cv = cv;
	return r;
}

static void test_lagging_rank(void **state)
{
	const int behind[] = { 1, 2 }, alike[] = { 2, 2 }, tie[] = { 0, 3, 3 }, one[] = { 4 };
	const int third[] = { 1, 1, 2, 1 }, none[] = { 0, 0, 0 };

	(void)state;
	/* rank 1 still has its hung collective and the next one to do; rank 0 only the next */
	assert_int_equal(gb_nccl_lagging_rank(behind, 2), 1);
	assert_int_equal(gb_nccl_lagging_rank(third, 4), 2);
	assert_int_equal(gb_nccl_lagging_rank(alike, 2), -1); /* every rank stuck alike */
	assert_int_equal(gb_nccl_lagging_rank(tie, 3), -1);   /* two ranks behind: no culprit */
	assert_int_equal(gb_nccl_lagging_rank(one, 1), -1);   /* nobody to be behind */
	assert_int_equal(gb_nccl_lagging_rank(none, 3), -1);
	assert_int_equal(gb_nccl_lagging_rank(none, 0), -1);
}

static void test_spread_judge(void **state)
{
	struct gb_nccl_row rows[4];
	int64_t w;

	(void)state;
	rows[0] = spread_row(1 * MiB, 5, 0.50); /* small sizes are not judged */
	rows[1] = spread_row(64 * MiB, 5, 0.010);
	rows[2] = spread_row(128 * MiB, 5, 0.015);
	rows[3] = spread_row(1 * GiB, 5, 0.005);
	assert_int_equal(gb_nccl_spread_judge(rows, 4, &w), GB_NCCL_SPREAD_WITHIN);
	assert_int_equal(w, 2);
	rows[3].time_cv = 0.021;
	assert_int_equal(gb_nccl_spread_judge(rows, 4, &w), GB_NCCL_SPREAD_ABOVE);
	assert_int_equal(w, 3);
	/* exactly the bound passes */
	rows[3].time_cv = GB_NCCL_SPREAD_MAX;
	assert_int_equal(gb_nccl_spread_judge(rows, 4, &w), GB_NCCL_SPREAD_WITHIN);
	/* an untimed row is not judged */
	rows[3].time_cv = 0.5;
	rows[3].untimed = true;
	assert_int_equal(gb_nccl_spread_judge(rows, 4, &w), GB_NCCL_SPREAD_WITHIN);
	assert_int_equal(w, 2);
	assert_int_equal(gb_nccl_spread_judge(rows, 1, &w), GB_NCCL_SPREAD_NO_LARGE);
	assert_int_equal(w, -1);
	for (int i = 1; i < 3; i++) {
		rows[i].n_samples = 1;
		rows[i].time_cv = NAN;
	}
	assert_int_equal(gb_nccl_spread_judge(rows, 3, &w), GB_NCCL_SPREAD_TOO_FEW);
	assert_int_equal(w, -1);
}

static void test_rotation(void **state)
{
	static const uint64_t points[] = { 1, 8, 255, 256, 1000, 4 * KiB, 3 * MiB + 16,
					   32 * MiB, 100 * MiB, 1 * GiB };
	struct gb_nccl_rotation r;
	uint64_t span;

	(void)state;
	/* at least twice the L2, the largest point when that is more, 256-byte multiples */
	assert_int_equal(gb_nccl_rotation_span(1 * MiB, 50e6), 100000000ULL);
	assert_int_equal(gb_nccl_rotation_span(1 * MiB, 40000001), 80000256ULL);
	assert_int_equal(gb_nccl_rotation_span(1 * GiB, 50e6), 1 * GiB);
	assert_int_equal(gb_nccl_rotation_span(1 * MiB, NAN), GB_NCCL_ROTATION_FALLBACK_BYTES);
	assert_int_equal(gb_nccl_rotation_span(1 * MiB, 0), GB_NCCL_ROTATION_FALLBACK_BYTES);
	span = gb_nccl_rotation_span(1 * GiB, 50e6);
	for (size_t i = 0; i < ARRAY_LEN(points); i++) {
		gb_nccl_rotation_of(points[i], span, &r);
		assert_true(r.stride >= points[i]);
		assert_int_equal(r.stride % GB_NCCL_ROTATION_ALIGN, 0);
		assert_true(r.slots >= 1);
		/* every slice is aligned and inside the buffers, whatever the turn */
		for (uint64_t turn = 0; turn < 3 * r.slots && turn < 100000; turn += 1 + turn / 7) {
			uint64_t off = gb_nccl_rotation_offset(&r, turn);

			assert_int_equal(off % GB_NCCL_ROTATION_ALIGN, 0);
			assert_true(off + points[i] <= span);
		}
	}
	/* 4 KiB in a 1 GiB span: consecutive operations never share a slice before wrapping */
	gb_nccl_rotation_of(4 * KiB, span, &r);
	assert_int_equal(r.slots, GiB / (4 * KiB));
	assert_int_equal(gb_nccl_rotation_offset(&r, 0), 0);
	assert_int_equal(gb_nccl_rotation_offset(&r, 1), 4 * KiB);
	assert_int_equal(gb_nccl_rotation_offset(&r, r.slots), 0);
	/* the largest point has one slot: it is always at the start */
	gb_nccl_rotation_of(1 * GiB, span, &r);
	assert_int_equal(r.slots, 1);
	assert_int_equal(gb_nccl_rotation_offset(&r, 7), 0);
}

static void test_noop_points(void **state)
{
	(void)state;
	/* one rank in place: nothing to do for NCCL */
	assert_true(gb_nccl_noop(GB_NCCL_ALLREDUCE, GB_NCCL_FLOAT, GB_NCCL_SUM, 1, true));
	assert_true(gb_nccl_noop(GB_NCCL_ALLREDUCE, GB_NCCL_HALF, GB_NCCL_MAX, 1, true));
	assert_true(gb_nccl_noop(GB_NCCL_ALLGATHER, GB_NCCL_FLOAT, -1, 1, true));
	assert_true(gb_nccl_noop(GB_NCCL_REDUCESCATTER, GB_NCCL_INT8, GB_NCCL_PROD, 1, true));
	assert_true(gb_nccl_noop(GB_NCCL_BROADCAST, GB_NCCL_DOUBLE, -1, 1, true));
	assert_true(gb_nccl_noop(GB_NCCL_REDUCE, GB_NCCL_FLOAT, GB_NCCL_MIN, 1, true));
	/* integer avg divides after the sum: with one rank that is nothing either */
	assert_true(gb_nccl_noop(GB_NCCL_ALLREDUCE, GB_NCCL_INT32, GB_NCCL_AVG, 1, true));
	/* float avg multiplies by 1/n in a kernel: there is work to time */
	assert_false(gb_nccl_noop(GB_NCCL_ALLREDUCE, GB_NCCL_FLOAT, GB_NCCL_AVG, 1, true));
	assert_false(gb_nccl_noop(GB_NCCL_REDUCE, GB_NCCL_BFLOAT16, GB_NCCL_AVG, 1, true));
	/* out of place NCCL copies; with two ranks it communicates */
	assert_false(gb_nccl_noop(GB_NCCL_ALLREDUCE, GB_NCCL_FLOAT, GB_NCCL_SUM, 1, false));
	assert_false(gb_nccl_noop(GB_NCCL_ALLREDUCE, GB_NCCL_FLOAT, GB_NCCL_SUM, 2, true));
	/* all-to-all has no in-place form */
	assert_false(gb_nccl_noop(GB_NCCL_ALLTOALL, GB_NCCL_FLOAT, -1, 1, true));
}

static void test_combine_spread(void **state)
{
	struct gb_nccl_row a[32], b[32], out[32];
	const struct gb_nccl_row *parts[2] = { a, b };
	size_t n = synthetic_rows(a, 2, false), ns[2] = { n, n };

	(void)state;
	synthetic_rows(b, 2, false);
	a[0].time_min_us = 1;
	b[0].time_max_us = 1e6;
	a[0].time_cv = 0.3; /* the first rank's: the widest must survive the later ones */
	b[0].n_samples = 3;
	a[1].time_cv = NAN; /* one rank with a single sample: the other's spread stands */
	b[2].untimed = true;
	assert_int_equal(gb_nccl_rows_combine(parts, ns, 2, 2, out), 0);
	assert_near(out[0].time_min_us, 1, 0);
	assert_near(out[0].time_max_us, 1e6, 0);
	assert_near(out[0].time_cv, 0.3, 0);
	assert_int_equal(out[0].n_samples, 3);
	assert_near(out[1].time_cv, b[1].time_cv, 0);
	/* one rank without a time: the point has none */
	assert_true(out[2].untimed && isnan(out[2].time_us) && isnan(out[2].busbw_gbps));
}

/* A report from before --samples: one loop per size, no spread fields. */
static void test_row_json_old_report(void **state)
{
	struct gb_nccl_row r;
	cJSON *o = cJSON_Parse("{\"collective\":\"allreduce\",\"placement\":\"out_of_place\","
			       "\"size\":1024,\"count\":256,\"type\":\"float\",\"redop\":\"sum\","
			       "\"root\":null,\"algbytes\":1024,\"time_us\":5,\"algbw\":0.2,"
			       "\"busbw\":0.2,\"nwrong\":0}");

	(void)state;
	assert_int_equal(gb_nccl_row_from_json(o, &r), 0);
	assert_false(r.untimed);
	assert_int_equal(r.n_samples, 1);
	assert_near(r.time_us, 5, 0);
	assert_true(isnan(r.time_cv));
	cJSON_Delete(o);
}

/* ---- options ---- */

static int parse(struct gb_nccl_params *p, const char *const *argv, int argc)
{
	struct gb_opt_set set = { gb_nccl_opts, p };
	size_t npos = 0;

	gb_nccl_set_defaults(p);
	return gb_cli_parse(&set, 1, argc, argv, NULL, 0, &npos);
}

static void test_options_defaults(void **state)
{
	struct gb_nccl_params p;
	char err[256];

	(void)state;
	assert_int_equal(parse(&p, NULL, 0), GB_CLI_OK);
	assert_int_equal(p.colls, 1u << GB_NCCL_ALLREDUCE);
	assert_int_equal(p.dtypes, 1u << GB_NCCL_FLOAT);
	assert_int_equal(p.redops, 1u << GB_NCCL_SUM);
	assert_int_equal(p.min_bytes, 8);
	assert_int_equal(p.max_bytes, GiB);
	assert_int_equal(p.factor, 2);
	assert_true(gb_nccl_want_inplace(&p) && gb_nccl_want_outofplace(&p));
	assert_int_equal(p.iters, 20);
	assert_int_equal(p.samples, 5);
	assert_near(p.timeout_s, 120, 0);
	assert_int_equal(gb_nccl_validate(&p, err, sizeof(err)), 0);
}

static void test_options_values(void **state)
{
	static const char *const a[] = {
		"--op", "all", "--dtype", "half,bfloat16", "--redop", "max,avg", "-b", "1K",
		"-e", "64M", "-f", "4", "--inplace", "--graph", "--timeout", "30s", "--samples", "9",
	};
	struct gb_nccl_params p;
	char err[256];

	(void)state;
	assert_int_equal(parse(&p, a, (int)ARRAY_LEN(a)), GB_CLI_OK);
	assert_int_equal(p.colls, (1u << GB_NCCL_COLL_COUNT) - 1);
	assert_int_equal(p.dtypes, (1u << GB_NCCL_HALF) | (1u << GB_NCCL_BFLOAT16));
	assert_int_equal(p.redops, (1u << GB_NCCL_MAX) | (1u << GB_NCCL_AVG));
	assert_int_equal(p.min_bytes, KiB);
	assert_int_equal(p.max_bytes, 64 * MiB);
	assert_int_equal(p.factor, 4);
	assert_true(p.graph);
	assert_int_equal(p.samples, 9);
	assert_true(gb_nccl_want_inplace(&p));
	assert_false(gb_nccl_want_outofplace(&p));
	assert_near(p.timeout_s, 30, 0);
	assert_int_equal(gb_nccl_validate(&p, err, sizeof(err)), 0);
}

static void test_options_errors(void **state)
{
	static const char *const factor1[] = { "--factor", "1" };
	static const char *const bad_op[] = { "--op", "allreduce,gather" };
	static const char *const bad_dtype[] = { "--dtype", "fp8" };
	static const char *const zero_iters[] = { "--iters", "0" };
	static const char *const zero_samples[] = { "--samples", "0" };
	static const char *const many_samples[] = { "--samples", "1001" };
	static const char *const min_above[] = { "--min-bytes", "1G", "--max-bytes", "8M" };
	struct gb_nccl_params p;
	char err[256];

	(void)state;
	assert_int_equal(parse(&p, factor1, 2), GB_CLI_ERROR);
	assert_int_equal(parse(&p, bad_op, 2), GB_CLI_ERROR);
	assert_int_equal(parse(&p, bad_dtype, 2), GB_CLI_ERROR);
	assert_int_equal(parse(&p, zero_iters, 2), GB_CLI_ERROR);
	assert_int_equal(parse(&p, zero_samples, 2), GB_CLI_ERROR);
	assert_int_equal(parse(&p, many_samples, 2), GB_CLI_ERROR);
	/* a cross-field error is the validator's, one line naming both options */
	assert_int_equal(parse(&p, min_above, 4), GB_CLI_OK);
	assert_int_equal(gb_nccl_validate(&p, err, sizeof(err)), -1);
	assert_string_equal(err, "--min-bytes (1 GiB) is above --max-bytes (8 MiB)");
	gb_nccl_set_defaults(&p);
	p.factor = 1;
	assert_int_equal(gb_nccl_validate(&p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--factor"));
	gb_nccl_set_defaults(&p);
	p.dtypes = 0;
	assert_int_equal(gb_nccl_validate(&p, err, sizeof(err)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busbw_factors),
		cmocka_unit_test(test_row_bandwidth),
		cmocka_unit_test(test_row_bandwidth_bad_time),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_dtype_facts),
		cmocka_unit_test(test_input_pattern),
		cmocka_unit_test(test_expected_every_collective),
		cmocka_unit_test(test_expected_values),
		cmocka_unit_test(test_integer_wrap),
		cmocka_unit_test(test_tolerance),
		cmocka_unit_test(test_avg_premulsum),
		cmocka_unit_test(test_link_theory),
		cmocka_unit_test(test_pairs_and_rank_link),
		cmocka_unit_test(test_summary_fit),
		cmocka_unit_test(test_row_json_round_trip),
		cmocka_unit_test(test_combine_ranks),
		cmocka_unit_test(test_group_names),
		cmocka_unit_test(test_fill_result),
		cmocka_unit_test(test_fill_result_many_series),
		cmocka_unit_test(test_fill_result_one_rank),
		cmocka_unit_test(test_fill_result_untimed),
		cmocka_unit_test(test_fill_result_spread_warning),
		cmocka_unit_test(test_row_samples),
		cmocka_unit_test(test_spread_judge),
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_noop_points),
		cmocka_unit_test(test_combine_spread),
		cmocka_unit_test(test_row_json_old_report),
		cmocka_unit_test(test_lagging_rank),
		cmocka_unit_test(test_options_defaults),
		cmocka_unit_test(test_options_values),
		cmocka_unit_test(test_options_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
