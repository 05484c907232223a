/* SPDX-License-Identifier: MIT */
/*
 * test_gemm_math.c - unit tests for bench/gemm/gemm_math.c: FLOP counting, the
 * precision support table, shape rules, the --search grid, rotating-buffer
 * counts, the pre-selection warm-up, the run-to-run CV of --repeat, the
 * best shapes --search re-runs, the names of cuBLASLt's tiles and stages,
 * sampled coordinates, and the verification error bound, which is
 * checked against dot products simulated on the CPU: inputs rounded to the
 * storage format, accumulated in that precision, compared with an exact
 * (long double) reference. A correct result must stay within the bound; the
 * same result with a flipped high bit must exceed it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/gemm/gemm_math.h"
#include "bench/device/lt_names.h"
#include "cmd/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MiB (1024.0 * 1024.0)

/* ---- FLOPs and names ---- */

static void test_flops(void **state)
{
	(void)state;
	assert_near(gb_gemm_flops(8192, 8192, 8192), 1099511627776.0, 0);
	/* the CUTLASS example shape: 2mnk, not CUTLASS's 2(mnk + mn) */
	assert_near(gb_gemm_flops(3456, 4096, 4096), 115964116992.0, 0);
	assert_near(gb_gemm_flops(1, 1, 1), 2.0, 0);
	/* no integer overflow at the largest accepted dimension */
	assert_near(gb_gemm_flops(GB_GEMM_MAX_DIM, GB_GEMM_MAX_DIM, GB_GEMM_MAX_DIM),
		    2.0 * pow(262144.0, 3), 0);
	assert_string_equal(gb_gemm_rate_unit(GB_PREC_INT8), "TOP/s");
	assert_string_equal(gb_gemm_rate_unit(GB_PREC_BF16), "TFLOP/s");
}

static void test_precision_names(void **state)
{
	(void)state;
	for (int i = 0; i < GB_GEMM_N_PRECS; i++) {
		assert_non_null(gb_gemm_prec_choices[i]);
		assert_string_equal(gb_gemm_prec_choices[i], gb_precision_name(gb_gemm_precs[i]));
		assert_int_equal(gb_gemm_prec_index(gb_gemm_precs[i]), i);
	}
	assert_null(gb_gemm_prec_choices[GB_GEMM_N_PRECS]);
	assert_int_equal(gb_gemm_prec_index(GB_PREC_FP64_TC), -1);
}

/*
 * --precision as gemm declares it (GB_OPTF_MARK_ALL): "all" is told apart
 * from a list naming all eight, because all skips per shape what does not
 * fit where a list is a usage error.
 */
static uint32_t parse_precisions(const char *val)
{
	uint32_t mask = 0;
	const struct gb_opt opts[] = {
		{ GB_OPT_ENUM_LIST, 0, "precision", 0, "LIST", "", 0, 0, gb_gemm_prec_choices,
		  GB_OPTF_MARK_ALL },
		{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
	};
	const struct gb_opt_set set = { opts, &mask };
	const char *argv[] = { "--precision", val };
	size_t npos = 0;

	assert_int_equal(gb_cli_parse(&set, 1, 2, argv, NULL, 0, &npos), GB_CLI_OK);
	return mask;
}

static void test_precision_all_marked(void **state)
{
	const uint32_t every = (1u << GB_GEMM_N_PRECS) - 1;

	(void)state;
	assert_true(GB_GEMM_N_PRECS < 31);  /* room for the mark */
	assert_int_equal(parse_precisions("all"), every | GB_ENUM_LIST_ALL);
	assert_int_equal(parse_precisions("fp64,fp32,tf32,fp16,bf16,fp16acc16,fp8,int8"), every);
	assert_int_equal(parse_precisions("bf16"), 1u << gb_gemm_prec_index(GB_PREC_BF16));
	assert_int_equal(parse_precisions("bf16,all") & GB_ENUM_LIST_ALL, GB_ENUM_LIST_ALL);
}

static void test_types(void **state)
{
	(void)state;
	assert_int_equal(gb_dtype_size(GB_DT_F64), 8);
	assert_int_equal(gb_dtype_size(GB_DT_F32), 4);
	assert_int_equal(gb_dtype_size(GB_DT_F16), 2);
	assert_int_equal(gb_dtype_size(GB_DT_BF16), 2);
	assert_int_equal(gb_dtype_size(GB_DT_E4M3), 1);
	assert_int_equal(gb_dtype_size(GB_DT_I8), 1);
	assert_int_equal(gb_dtype_size(GB_DT_I32), 4);
	assert_int_equal(gb_dtype_size(GB_DT_COUNT), 0);
	assert_near(gb_dtype_unit_roundoff(GB_DT_F16), 0x1p-11, 0);
	assert_near(gb_dtype_unit_roundoff(GB_DT_BF16), 0x1p-8, 0);
	assert_near(gb_dtype_unit_roundoff(GB_DT_I8), 0, 0);

	assert_int_equal(gb_gemm_input_type(GB_PREC_TF32), GB_DT_F32);
	assert_int_equal(gb_gemm_input_type(GB_PREC_FP16_ACC16), GB_DT_F16);
	assert_int_equal(gb_gemm_input_type(GB_PREC_FP8), GB_DT_E4M3);
	assert_int_equal(gb_gemm_output_type(GB_PREC_FP8), GB_DT_BF16);
	assert_int_equal(gb_gemm_output_type(GB_PREC_INT8), GB_DT_I32);
	assert_int_equal(gb_gemm_output_type(GB_PREC_BF16), GB_DT_BF16);
	assert_int_equal(gb_gemm_output_type(GB_PREC_FP64), GB_DT_F64);
}

/* ---- support table ---- */

struct support_row {
	int major, minor;
	bool fp64, fp32, tf32, fp16, bf16, fp16acc16, fp8, int8;
};

static void test_support_table(void **state)
{
	static const struct support_row rows[] = {
		{ 7, 0, true, true, false, true, false, true, false, false },
		{ 7, 5, true, true, false, true, false, true, false, true },
		{ 8, 0, true, true, true, true, true, true, false, true },
		{ 8, 6, true, true, true, true, true, true, false, true },
		{ 8, 9, true, true, true, true, true, true, true, true },
		{ 9, 0, true, true, true, true, true, true, true, true },
		{ 10, 0, true, true, true, true, true, true, true, true },
		{ 12, 0, true, true, true, true, true, true, true, true },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(rows); i++) {
		const struct support_row *r = &rows[i];
		bool want[GB_GEMM_N_PRECS] = { r->fp64, r->fp32, r->tf32, r->fp16,
					       r->bf16, r->fp16acc16, r->fp8, r->int8 };

		for (int p = 0; p < GB_GEMM_N_PRECS; p++)
			assert_int_equal(gb_gemm_prec_supported(gb_gemm_precs[p], r->major,
								r->minor), want[p]);
	}
	assert_false(gb_gemm_prec_supported(GB_PREC_FP64_TC, 9, 0));
	assert_false(gb_gemm_prec_supported(GB_PREC_FP32, -1, -1));
}

static void test_unsupported_reason(void **state)
{
	char buf[160];

	(void)state;
	assert_null(gb_gemm_unsupported_reason(GB_PREC_FP8, 9, 0, 0, buf, sizeof(buf)));
	assert_non_null(gb_gemm_unsupported_reason(GB_PREC_FP8, 8, 0, 0, buf, sizeof(buf)));
	assert_string_equal(buf, "fp8 needs compute capability 8.9 or newer (device 0 is 8.0)");
	gb_gemm_unsupported_reason(GB_PREC_BF16, 7, 5, 3, buf, sizeof(buf));
	assert_string_equal(buf, "bf16 needs compute capability 8.0 or newer (device 3 is 7.5)");
	gb_gemm_unsupported_reason(GB_PREC_INT8, 7, 0, 1, buf, sizeof(buf));
	assert_string_equal(buf, "int8 needs compute capability 7.5 or newer (device 1 is 7.0)");
}

static void test_peak_precision(void **state)
{
	(void)state;
	/* DGEMM uses the FP64 tensor cores where they exist */
	assert_int_equal(gb_gemm_peak_precision(GB_PREC_FP64, 8, 0), GB_PREC_FP64_TC);
	assert_int_equal(gb_gemm_peak_precision(GB_PREC_FP64, 9, 0), GB_PREC_FP64_TC);
	assert_int_equal(gb_gemm_peak_precision(GB_PREC_FP64, 8, 9), GB_PREC_FP64);
	assert_int_equal(gb_gemm_peak_precision(GB_PREC_BF16, 9, 0), GB_PREC_BF16);
	assert_int_equal(gb_gemm_peak_precision(GB_PREC_FP16_ACC16, 8, 9), GB_PREC_FP16_ACC16);
}

/* ---- shapes ---- */

static void test_alignment(void **state)
{
	char err[160];

	(void)state;
	assert_int_equal(gb_gemm_dim_multiple(GB_PREC_FP8), 16);
	assert_int_equal(gb_gemm_dim_multiple(GB_PREC_INT8), 16);
	assert_int_equal(gb_gemm_dim_multiple(GB_PREC_BF16), 1);
	assert_int_equal(gb_gemm_check_shape(GB_PREC_FP8, 272, 528, 144, err, sizeof(err)), 0);
	assert_int_equal(gb_gemm_check_shape(GB_PREC_INT8, 272, 528, 144, err, sizeof(err)), 0);
	assert_int_equal(gb_gemm_check_shape(GB_PREC_FP16, 257, 511, 129, err, sizeof(err)), 0);
	assert_int_equal(gb_gemm_check_shape(GB_PREC_FP8, 257, 511, 129, err, sizeof(err)), -1);
	assert_string_equal(err, "fp8 needs m, n and k to be multiples of 16 (got 257x511x129)");
	/* k alone off by 8 is enough */
	assert_int_equal(gb_gemm_check_shape(GB_PREC_INT8, 256, 256, 136, err, sizeof(err)), -1);
	assert_int_equal(gb_gemm_check_shape(GB_PREC_FP32, 0, 16, 16, err, sizeof(err)), -1);
	assert_int_equal(gb_gemm_check_shape(GB_PREC_FP32, GB_GEMM_MAX_DIM + 1, 16, 16, err,
					     sizeof(err)), -1);
}

static void test_shape_product(void **state)
{
	const uint64_t m[] = { 1024, 2048 }, n[] = { 512 }, k[] = { 64, 128, 256 };
	struct gb_gemm_shape s[8];

	(void)state;
	assert_int_equal(gb_gemm_shape_product(m, 2, n, 1, k, 3, s, ARRAY_LEN(s)), 6);
	assert_int_equal(s[0].m, 1024);
	assert_int_equal(s[0].k, 64);
	assert_int_equal(s[2].k, 256);
	assert_int_equal(s[3].m, 2048);
	assert_int_equal(s[5].n, 512);
	/* too small an array: the full count comes back, nothing written past max */
	memset(s, 0, sizeof(s));
	assert_int_equal(gb_gemm_shape_product(m, 2, n, 1, k, 3, s, 2), 6);
	assert_int_equal(s[2].m, 0);
}

static void test_search_grid(void **state)
{
	struct gb_gemm_shape s[GB_GEMM_MAX_SHAPES];
	size_t n = gb_gemm_search_grid(s, ARRAY_LEN(s));
	char err[160];

	(void)state;
	assert_int_equal(n, 144);
	assert_true(n <= GB_GEMM_MAX_SHAPES);
	assert_int_equal(s[0].m, 2048);
	assert_int_equal(s[0].n, 2048);
	assert_int_equal(s[0].k, 2048);
	assert_int_equal(s[n - 1].m, 16384);
	assert_int_equal(s[n - 1].k, 16384);
	for (size_t i = 0; i < n; i++) {
		/* every grid shape runs every precision */
		for (int p = 0; p < GB_GEMM_N_PRECS; p++)
			assert_int_equal(gb_gemm_check_shape(gb_gemm_precs[p], s[i].m, s[i].n,
							     s[i].k, err, sizeof(err)), 0);
		for (size_t j = 0; j < i; j++)
			assert_false(s[i].m == s[j].m && s[i].n == s[j].n && s[i].k == s[j].k);
	}
}

/* ---- rotating buffers ---- */

static void test_rotating_copies(void **state)
{
	(void)state;
	/* 50 MiB L2 (H100): footprint >= 100 MiB */
	assert_int_equal(gb_gemm_rotating_copies(256 * MiB, 50 * MiB), 2);  /* bf16 8192^3 */
	assert_int_equal(gb_gemm_rotating_copies(4 * MiB, 50 * MiB), 25);   /* bf16 1024^3 */
	assert_int_equal(gb_gemm_rotating_copies(32 * MiB, 50 * MiB), 4);   /* fp32 2048^3 */
	assert_int_equal(gb_gemm_rotating_copies(50 * MiB, 50 * MiB), 2);   /* exactly 2x L2 */
	assert_int_equal(gb_gemm_rotating_copies(49 * MiB, 50 * MiB), 3);  /* 2 x 49 < 100 */
	/* 40 MiB L2 (A100): footprint >= 80 MiB */
	assert_int_equal(gb_gemm_rotating_copies(256 * MiB, 40 * MiB), 2);
	assert_int_equal(gb_gemm_rotating_copies(4 * MiB, 40 * MiB), 20);
	assert_int_equal(gb_gemm_rotating_copies(32 * MiB, 40 * MiB), 3);
	assert_int_equal(gb_gemm_rotating_copies(0.5 * MiB, 40 * MiB), 160);
	/* never fewer than 2, unknown L2 taken as 128 MiB */
	assert_int_equal(gb_gemm_rotating_copies(4096 * MiB, 40 * MiB), 2);
	assert_int_equal(gb_gemm_rotating_copies(4 * MiB, NAN), 64);
	assert_int_equal(gb_gemm_rotating_copies(4 * MiB, 0), 64);
	assert_int_equal(gb_gemm_rotating_copies(0, 40 * MiB), 2);
	/* tiny problems are capped */
	assert_int_equal(gb_gemm_rotating_copies(1, 40 * MiB), 1u << 24);
	assert_int_equal(gb_gemm_align_up(1), 256);
	assert_int_equal(gb_gemm_align_up(256), 256);
	assert_int_equal(gb_gemm_align_up(257), 512);
}

/* copies capped to free memory, with max(free / 16, 16 MiB) left over */
static void test_copies_that_fit(void **state)
{
	(void)state;
	/* plenty of memory: what was wanted */
	assert_int_equal(gb_gemm_copies_that_fit(25, 4 * MiB, 2 * MiB, 80000 * MiB), 25);
	/* 256 MiB free, 16 MiB headroom, 2 MiB for D: 238 MiB / 4 MiB = 59 of 256 wanted */
	assert_int_equal(gb_gemm_copies_that_fit(256, 4 * MiB, 2 * MiB, 256 * MiB), 59);
	/* 1 GiB free: headroom 64 MiB, (1024 - 64 - 0) / 4 = 240 */
	assert_int_equal(gb_gemm_copies_that_fit(1000, 4 * MiB, 0, 1024 * MiB), 240);
	/* exactly fitting is fitting: 16 + 2 + 2 x 1 = 20 MiB */
	assert_int_equal(gb_gemm_copies_that_fit(5, 1 * MiB, 2 * MiB, 20 * MiB), 2);
	/* not even one with the headroom: one, the caller reports what does not fit */
	assert_int_equal(gb_gemm_copies_that_fit(4, 64 * MiB, 0, 70 * MiB), 1);
	assert_int_equal(gb_gemm_copies_that_fit(4, 64 * MiB, 0, 0), 1);
	/* degenerate sizes: what was wanted, never 0 */
	assert_int_equal(gb_gemm_copies_that_fit(2, 0, 0, 100 * MiB), 2);
	assert_int_equal(gb_gemm_copies_that_fit(0, 4 * MiB, 0, 100 * MiB), 1);
}

/* ---- timing helpers ---- */

static void test_batch_and_settle(void **state)
{
	const double settled[] = { 0.9, 1.3, 1.00, 1.01, 1.015 };
	const double moving[] = { 1.0, 1.01, 1.05 };
	const double bad[] = { 1.0, 0.0, 1.0 };

	(void)state;
	assert_int_equal(gb_gemm_batch_iters(50, 2.0, 10, 1e-3), 50);
	assert_int_equal(gb_gemm_batch_iters(0, 2.0, 10, 1e-3), 200);
	assert_int_equal(gb_gemm_batch_iters(0, 2.0, 10, 1.0), 1);     /* slow GEMM: 1 each */
	assert_int_equal(gb_gemm_batch_iters(0, 2.0, 10, 1e-12), 1000000);
	assert_int_equal(gb_gemm_batch_iters(0, 2.0, 10, NAN), 1);
	assert_true(gb_gemm_settled(settled, ARRAY_LEN(settled), 0.02));
	assert_false(gb_gemm_settled(settled, 2, 0.02));
	assert_false(gb_gemm_settled(moving, ARRAY_LEN(moving), 0.02));
	assert_false(gb_gemm_settled(bad, ARRAY_LEN(bad), 0.02));
}

static void test_preselect_warmup(void **state)
{
	(void)state;
	assert_near(gb_gemm_preselect_warmup_s(3.0, 8), GB_GEMM_PRESELECT_WARMUP_S, 0);
	assert_near(gb_gemm_preselect_warmup_s(0.2, 8), 0.2, 0);   /* bounded by --warmup */
	assert_near(gb_gemm_preselect_warmup_s(0.0, 8), 0, 0);     /* --warmup 0s: none */
	assert_near(gb_gemm_preselect_warmup_s(3.0, 1), 0, 0);     /* nothing to choose */
	assert_near(gb_gemm_preselect_warmup_s(NAN, 8), 0, 0);
}

/* ---- run-to-run spread ---- */

static void test_cv(void **state)
{
	const double same[] = { 760, 760, 760, 760, 760 };
	/* mean 100, sample stdev sqrt(((-2)^2 + 0 + 2^2) / 2) = 2: cv 2% */
	const double three[] = { 98, 100, 102 };
	/* rates near 1000 TFLOP/s whose spread is a hundred-thousandth of that */
	const double close[] = { 1000.00, 1000.01, 999.99, 1000.00, 1000.00 };
	const double with_nan[] = { 1, NAN, 1 };
	const double with_inf[] = { 1, INFINITY, 1 };
	const double zero_mean[] = { -1, 1 };

	(void)state;
	assert_near(gb_gemm_cv(same, ARRAY_LEN(same)), 0, 0);
	assert_near(gb_gemm_cv(three, ARRAY_LEN(three)), 0.02, 1e-15);
	assert_near(gb_gemm_cv(close, ARRAY_LEN(close)), sqrt(0.0002 / 4) / 1000, 1e-12);
	assert_true(isnan(gb_gemm_cv(three, 1)));  /* one run has no spread */
	assert_true(isnan(gb_gemm_cv(three, 0)));
	assert_true(isnan(gb_gemm_cv(with_nan, ARRAY_LEN(with_nan))));
	assert_true(isnan(gb_gemm_cv(with_inf, ARRAY_LEN(with_inf))));
	assert_true(isnan(gb_gemm_cv(zero_mean, ARRAY_LEN(zero_mean))));
}

static void test_run_medians(void **state)
{
	/* three runs of four samples; the medians are 2.5, 10 and NaN (a run with a NaN) */
	const double samples[] = { 4, 1, 3, 2, 10, 10, 9, 11, 5, NAN, 5, 5 };
	double med[3];

	(void)state;
	gb_gemm_run_medians(samples, 4, 3, med);
	assert_near(med[0], 2.5, 0);
	assert_near(med[1], 10, 0);
	assert_true(isnan(med[2]));
	assert_true(isnan(gb_gemm_cv(med, 3)));  /* so the cv of these runs is NaN too */
}

static void test_run_cv_verdict(void **state)
{
	(void)state;
	assert_int_equal(GB_GEMM_RUN_CV_MIN_RUNS, 5);  /* issue 3: "over 5 runs" */
	assert_near(GB_GEMM_RUN_CV_MAX, 0.01, 0);      /* "at most 1%" */
	assert_int_equal(gb_gemm_run_cv_verdict(0.004, 5), GB_GEMM_CV_WITHIN);
	assert_int_equal(gb_gemm_run_cv_verdict(0.01, 5), GB_GEMM_CV_WITHIN);  /* at most */
	assert_int_equal(gb_gemm_run_cv_verdict(0.0101, 5), GB_GEMM_CV_ABOVE);
	assert_int_equal(gb_gemm_run_cv_verdict(0.5, 20), GB_GEMM_CV_ABOVE);
	/* fewer than 5 runs: no judgement either way, even when the spread is large */
	assert_int_equal(gb_gemm_run_cv_verdict(0.001, 4), GB_GEMM_CV_TOO_FEW);
	assert_int_equal(gb_gemm_run_cv_verdict(0.5, 2), GB_GEMM_CV_TOO_FEW);
	/* never fail open: a cv that could not be computed is no pass */
	assert_int_equal(gb_gemm_run_cv_verdict(NAN, 5), GB_GEMM_CV_INVALID);
}

/* ---- --search's best shapes ---- */

static void test_top_k(void **state)
{
	/* 0 is a shape that was not measured; NaN and inf never rank */
	const double v[] = { 500, 0, 790, NAN, 640, 790, INFINITY, 700, -3 };
	size_t out[GB_GEMM_SEARCH_TUNE_SHAPES + 2];

	(void)state;
	assert_int_equal(gb_gemm_top_k(v, ARRAY_LEN(v), 3, out), 3);
	/* equal values: the lower index first */
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 5);
	assert_int_equal(out[2], 7);
	assert_int_equal(gb_gemm_top_k(v, ARRAY_LEN(v), 5, out), 5);
	assert_int_equal(out[3], 4);
	assert_int_equal(out[4], 0);
	/* fewer usable values than asked for */
	assert_int_equal(gb_gemm_top_k(v, 2, 3, out), 1);
	assert_int_equal(out[0], 0);
	assert_int_equal(gb_gemm_top_k(v + 1, 1, 3, out), 0);
	assert_int_equal(gb_gemm_top_k(v, ARRAY_LEN(v), 0, out), 0);
	/* ascending input: every value displaces the last */
	{
		const double up[] = { 1, 2, 3, 4, 5, 6 };

		assert_int_equal(gb_gemm_top_k(up, ARRAY_LEN(up), 3, out), 3);
		assert_int_equal(out[0], 5);
		assert_int_equal(out[1], 4);
		assert_int_equal(out[2], 3);
	}
}

/* ---- cuBLASLt names (values from cublasLt.h; bench/device/lt_matmul.c asserts every one) ---- */

static void test_lt_names(void **state)
{
	(void)state;
	assert_string_equal(gb_lt_tile_name(0), "undefined");
	assert_string_equal(gb_lt_tile_name(1), "8x8");
	assert_string_equal(gb_lt_tile_name(18), "128x64");
	assert_string_equal(gb_lt_tile_name(20), "128x128");
	assert_string_equal(gb_lt_tile_name(23), "128x256");
	assert_string_equal(gb_lt_tile_name(24), "256x128");
	assert_string_equal(gb_lt_tile_name(634), "512x1024");  /* the last in CUDA 13.0 */
	assert_null(gb_lt_tile_name(635));                      /* past it: a newer cuBLASLt */
	assert_null(gb_lt_tile_name(UINT32_MAX));
	assert_string_equal(gb_lt_stages_name(0), "undefined");
	assert_string_equal(gb_lt_stages_name(1), "16x1");
	assert_string_equal(gb_lt_stages_name(16), "64x4");
	assert_string_equal(gb_lt_stages_name(35), "64xAUTO");
	assert_string_equal(gb_lt_stages_name(38), "768xAUTO");
	assert_null(gb_lt_stages_name(29));                     /* a gap in the enum */
	assert_null(gb_lt_stages_name(30));
	assert_null(gb_lt_stages_name(39));
	/* every named value reads "<rows>x<cols>" (stages: "<k>x<count>" or "<k>xAUTO") */
	for (uint32_t i = 1; i < 635; i++) {
		const char *n = gb_lt_tile_name(i);
		unsigned a, b;
		char end;

		assert_non_null(n);
		assert_int_equal(sscanf(n, "%ux%u%c", &a, &b, &end), 2);
	}
}

/* ---- sampled coordinates ---- */

static bool has_pair(const uint32_t *rc, size_t n, uint32_t r, uint32_t c)
{
	for (size_t i = 0; i < n; i++)
		if (rc[2 * i] == r && rc[2 * i + 1] == c)
			return true;
	return false;
}

static void test_sample_coords(void **state)
{
	uint32_t *rc = malloc(sizeof(uint32_t) * 2 * GB_GEMM_VERIFY_ALL_MAX);
	size_t n;

	(void)state;
	assert_non_null(rc);
	/* up to 1M outputs: all of them, column-major */
	n = gb_gemm_sample_coords(257, 511, 1000, rc, GB_GEMM_VERIFY_ALL_MAX);
	assert_int_equal(n, 257 * 511);
	assert_int_equal(rc[0], 0);
	assert_int_equal(rc[1], 0);
	assert_int_equal(rc[2], 1);
	assert_int_equal(rc[3], 0);
	assert_int_equal(rc[2 * (n - 1)], 256);
	assert_int_equal(rc[2 * (n - 1) + 1], 510);
	assert_int_equal(gb_gemm_sample_coords(1024, 1024, 8192, NULL, 0), 1u << 20);
	/* a long k: the reference would take minutes, so the grid */
	assert_int_equal(gb_gemm_sample_coords(1024, 1024, 8193, NULL, 0), 4096);
	assert_int_equal(gb_gemm_sample_coords(100, 100, 1u << 18, NULL, 0), 100 * 100);
	/* beyond: 64 x 64 with the corners */
	n = gb_gemm_sample_coords(8192, 8192, 8192, rc, GB_GEMM_VERIFY_ALL_MAX);
	assert_int_equal(n, 4096);
	assert_true(has_pair(rc, n, 0, 0));
	assert_true(has_pair(rc, n, 8191, 0));
	assert_true(has_pair(rc, n, 0, 8191));
	assert_true(has_pair(rc, n, 8191, 8191));
	for (size_t i = 0; i < n; i++)
		assert_true(rc[2 * i] < 8192 && rc[2 * i + 1] < 8192);
	/* a narrow matrix: every column, 64 rows */
	n = gb_gemm_sample_coords(100000, 20, 64, rc, GB_GEMM_VERIFY_ALL_MAX);
	assert_int_equal(n, 64 * 20);
	assert_true(has_pair(rc, n, 99999, 19));
	/* writes nothing past max */
	rc[2] = 12345;
	assert_int_equal(gb_gemm_sample_coords(8192, 8192, 8192, rc, 1), 4096);
	assert_int_equal(rc[2], 12345);
	free(rc);
}

/* ---- error bound, against CPU-simulated dot products ---- */

/* splitmix64 and a uniform [-1, 1) value, as the device fill does */
static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static double uniform(uint64_t seed, uint64_t i)
{
	return (double)(mix64(seed * 0x632BE59BD9B4E019ULL + i) >> 11) * 0x1p-53 * 2.0 - 1.0;
}

/* round to p significand bits, exponent of the smallest normal emin; trunc: toward zero */
static double round_fmt(double x, int p, int emin, bool trunc_mode)
{
	int e;
	double s;

	if (x == 0 || !isfinite(x))
		return x;
	frexp(x, &e);
	if (e - 1 < emin)
		e = emin + 1;
	s = ldexp(x, p - e);
	s = trunc_mode ? trunc(s) : nearbyint(s);
	return ldexp(s, e - p);
}

static double rnd16(double x)
{
	return round_fmt(x, 11, -14, false);
}

static double rndbf16(double x)
{
	return round_fmt(x, 8, -126, false);
}

/* encode a value already representable as FP16 */
static uint16_t enc16(double v)
{
	uint16_t sign = v < 0 ? 0x8000 : 0;
	int e;
	double a = fabs(v), f;

	if (a == 0)
		return sign;
	f = frexp(a, &e);  /* a = f * 2^e, f in [0.5, 1) */
	if (e - 1 < -14)   /* subnormal */
		return sign | (uint16_t)nearbyint(ldexp(a, 24));
	return sign | (uint16_t)((e - 1 + 15) << 10) | ((uint16_t)nearbyint(ldexp(f, 11)) & 0x3ff);
}

struct dot {
	double got;    /* result in the output format, as a double */
	double ref;    /* exact dot product of the stored inputs */
	double sum_abs;
};

/* One dot product of length k as precision p computes it (sequential order, the worst). */
static struct dot simulate(enum gb_precision p, uint64_t k, uint64_t seed)
{
	long double ref = 0;
	double sum_abs = 0, dacc = 0, part = 0;
	float facc = 0;
	struct dot d;

	for (uint64_t i = 0; i < k; i++) {
		double a = uniform(2 * seed + 1, i), b = uniform(2 * seed + 2, i);

		switch (p) {
		case GB_PREC_FP32:
		case GB_PREC_TF32:
			a = (float)a;
			b = (float)b;
			break;
		case GB_PREC_FP16:
		case GB_PREC_FP16_ACC16:
			a = rnd16(a);
			b = rnd16(b);
			break;
		case GB_PREC_BF16:
			a = rndbf16(a);
			b = rndbf16(b);
			break;
		case GB_PREC_FP8:
			a = round_fmt(a, 4, -6, false);
			b = round_fmt(b, 4, -6, false);
			break;
		default:
			break;
		}
		ref += (long double)a * b;
		sum_abs += fabs(a * b);
		switch (p) {
		case GB_PREC_FP32:
			facc = fmaf((float)a, (float)b, facc);
			break;
		case GB_PREC_TF32:
			/* TF32 inputs truncated to 10 mantissa bits, FP32 accumulation */
			facc += (float)(round_fmt(a, 11, -126, true) *
					round_fmt(b, 11, -126, true));
			break;
		case GB_PREC_FP16:
		case GB_PREC_BF16:
			facc += (float)(a * b);  /* exact product, FP32 sum */
			break;
		case GB_PREC_FP16_ACC16:
			dacc = rnd16(dacc + a * b);
			break;
		case GB_PREC_FP8:
			/* 14-bit truncating accumulator, promoted to FP32 every 128 terms */
			part = round_fmt(part + a * b, 14, -126, true);
			if ((i + 1) % 128 == 0) {
				facc += (float)part;
				part = 0;
			}
			break;
		default:
			dacc += a * b;
			break;
		}
	}
	switch (p) {
	case GB_PREC_FP32:
	case GB_PREC_TF32:
		d.got = facc;
		break;
	case GB_PREC_FP16:
		d.got = rnd16(facc);
		break;
	case GB_PREC_BF16:
		d.got = rndbf16(facc);
		break;
	case GB_PREC_FP16_ACC16:
		d.got = dacc;
		break;
	case GB_PREC_FP8:
		d.got = rndbf16(facc + (float)part);
		break;
	default:
		d.got = dacc;
		break;
	}
	d.ref = (double)ref;
	d.sum_abs = sum_abs;
	return d;
}

/* the simulated result stored in its output format (flip tests need the bits) */
static void store(enum gb_precision p, double v, unsigned char *out)
{
	enum gb_dtype t = gb_gemm_output_type(p);
	float f = (float)v;
	uint32_t u;
	uint16_t h;

	switch (t) {
	case GB_DT_F64:
		memcpy(out, &v, 8);
		break;
	case GB_DT_F32:
		memcpy(out, &f, 4);
		break;
	case GB_DT_F16:
		h = enc16(v);
		memcpy(out, &h, 2);
		break;
	case GB_DT_BF16:
		memcpy(&u, &f, 4);  /* v is already a BF16 value: the low half is zero */
		h = (uint16_t)(u >> 16);
		memcpy(out, &h, 2);
		break;
	default:
		fail_msg("unexpected output type %s", gb_dtype_name(t));
	}
}

#define SIM_K 8192
#define SIM_DOTS 24

static void test_bound_values(void **state)
{
	(void)state;
	assert_near(gb_gemm_error_bound(GB_PREC_INT8, 8192), 0, 0);
	/* the figures quoted in gemm_math.c and docs/gemm.md */
	assert_true(gb_gemm_error_bound(GB_PREC_FP64, SIM_K) < 1.1e-13);
	assert_true(gb_gemm_error_bound(GB_PREC_FP32, SIM_K) < 3e-5);
	assert_true(gb_gemm_error_bound(GB_PREC_FP16, SIM_K) < 1.1e-3);
	assert_true(gb_gemm_error_bound(GB_PREC_BF16, SIM_K) < 8e-3);
	assert_true(gb_gemm_error_bound(GB_PREC_TF32, SIM_K) < 3.1e-3);
	assert_true(gb_gemm_error_bound(GB_PREC_FP8, SIM_K) < 6.5e-2);
	assert_true(gb_gemm_error_bound(GB_PREC_FP16_ACC16, SIM_K) < 0.23);
	/* grows with k, never negative */
	for (int p = 0; p < GB_GEMM_N_PRECS; p++) {
		if (gb_gemm_precs[p] == GB_PREC_INT8)
			continue;
		assert_true(gb_gemm_error_bound(gb_gemm_precs[p], 1) > 0);
		assert_true(gb_gemm_error_bound(gb_gemm_precs[p], 65536) >
			    gb_gemm_error_bound(gb_gemm_precs[p], 1024));
	}
}

static void test_rel_error(void **state)
{
	(void)state;
	assert_near(gb_gemm_rel_error(1.0, 1.0, 4.0, 16), 0, 0);
	/* |ref| + sum_abs / sqrt(k) = 1 + 4 / 4 = 2 */
	assert_near(gb_gemm_rel_error(1.5, 1.0, 4.0, 16), 0.25, 1e-15);
	/* a cancelled dot product is judged against the size of its terms */
	assert_near(gb_gemm_rel_error(0.01, 0.0, 4.0, 16), 0.01, 1e-15);
	assert_true(isnan(gb_gemm_rel_error(NAN, 1.0, 4.0, 16)));
	assert_true(isinf(gb_gemm_rel_error(1.0, 0.0, 0.0, 16)));
}

/* Correct results of length 8192 stay within the bound, for every float precision. */
static void test_bound_holds_for_correct_results(void **state)
{
	static const enum gb_precision precs[] = { GB_PREC_FP64, GB_PREC_FP32, GB_PREC_TF32,
						   GB_PREC_FP16, GB_PREC_BF16, GB_PREC_FP16_ACC16,
						   GB_PREC_FP8 };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(precs); i++) {
		double bound = gb_gemm_error_bound(precs[i], SIM_K), worst = 0;

		for (uint64_t s = 0; s < SIM_DOTS; s++) {
			struct dot d = simulate(precs[i], SIM_K, s + 1);
			double e = gb_gemm_rel_error(d.got, d.ref, d.sum_abs, SIM_K);

			assert_false(isnan(e));
			worst = fmax(worst, e);
		}
		if (!(worst <= bound))
			fail_msg("%s: correct result has error %.3g above the bound %.3g",
				 gb_precision_name(precs[i]), worst, bound);
		/* and the bound is not absurdly loose: within 40x of what rounding does */
		if (precs[i] != GB_PREC_FP64 && !(worst * 40 > bound))
			fail_msg("%s: bound %.3g is more than 40x the error seen (%.3g)",
				 gb_precision_name(precs[i]), bound, worst);
	}
}

/*
 * A BF16 result of a split-K algorithm that reduces in the output format
 * (cuBLASLt's INPLACE scheme): each split sums in FP32 and is rounded to
 * BF16, and the splits are added in BF16, in order.
 */
static struct dot simulate_split_bf16(uint64_t k, uint64_t splits, uint64_t seed)
{
	long double ref = 0;
	double sum_abs = 0, out = 0;
	struct dot d;

	for (uint64_t sp = 0; sp < splits; sp++) {
		float part = 0;

		for (uint64_t i = sp * (k / splits); i < (sp + 1) * (k / splits); i++) {
			double a = rndbf16(uniform(2 * seed + 1, i)), b = rndbf16(uniform(2 * seed + 2, i));

			ref += (long double)a * b;
			sum_abs += fabs(a * b);
			part += (float)(a * b);
		}
		out = rndbf16(out + rndbf16(part));
	}
	d.got = out;
	d.ref = (double)ref;
	d.sum_abs = sum_abs;
	return d;
}

/*
 * Split-K reduced in the output format rounds each output once per split:
 * the single-rounding bound is exceeded by correct results, the bound plus
 * gb_gemm_split_k_slack is not. Other schemes get no slack.
 */
static void check_split_k_slack_at(uint64_t k, bool *plain_exceeded)
{
	const uint64_t dots = 20000;
	double plain = gb_gemm_error_bound(GB_PREC_BF16, k);

	for (uint64_t splits = 2; splits <= 16; splits *= 2) {
		double bound = plain + gb_gemm_split_k_slack(GB_PREC_BF16, (int64_t)splits,
							     GB_LT_REDUCTION_INPLACE);
		double worst = 0;

		for (uint64_t s = 0; s < dots; s++) {
			struct dot d = simulate_split_bf16(k, splits, s + 1);

			worst = fmax(worst, gb_gemm_rel_error(d.got, d.ref, d.sum_abs, k));
		}
		if (!(worst <= bound))
			fail_msg("bf16 k %llu split-K %llu: correct result has error %.3g above %.3g",
				 (unsigned long long)k, (unsigned long long)splits, worst, bound);
		*plain_exceeded |= worst > plain;
	}
}

static void test_split_k_slack(void **state)
{
	bool plain_exceeded = false;

	(void)state;
	assert_near(gb_gemm_split_k_slack(GB_PREC_BF16, 1, GB_LT_REDUCTION_INPLACE), 0, 0);
	assert_near(gb_gemm_split_k_slack(GB_PREC_BF16, 8, 2 /* COMPUTE_TYPE */), 0, 0);
	assert_near(gb_gemm_split_k_slack(GB_PREC_FP32, 8, GB_LT_REDUCTION_OUTPUT_TYPE), 0, 0);
	assert_near(gb_gemm_split_k_slack(GB_PREC_BF16, 8, GB_LT_REDUCTION_OUTPUT_TYPE),
		    (4 * sqrt(8) + 14) * 0x1p-8, 1e-15);
	/* small k: the partial sums are as large as the result, and the sqrt(k) terms small */
	check_split_k_slack_at(128, &plain_exceeded);
	check_split_k_slack_at(1024, &plain_exceeded);
	assert_true(plain_exceeded);
}

/*
 * The same results with a flipped high bit exceed the bound: the top
 * exponent bit always; the top stored mantissa bit too wherever the bound is
 * below 1/8 (all but fp16acc16). Judged on typical elements (|ref| at least
 * sum_abs / sqrt(k)); a tiny cancelled element may hide a mantissa flip in
 * the rounding noise of its own partial sums.
 */
static void test_flipped_bit_caught(void **state)
{
	static const enum gb_precision precs[] = { GB_PREC_FP64, GB_PREC_FP32, GB_PREC_TF32,
						   GB_PREC_FP16, GB_PREC_BF16, GB_PREC_FP16_ACC16,
						   GB_PREC_FP8 };
	/* position of the top stored mantissa bit per output type */
	int tested = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(precs); i++) {
		enum gb_precision p = precs[i];
		enum gb_dtype t = gb_gemm_output_type(p);
		double bound = gb_gemm_error_bound(p, SIM_K);
		int mant_top = t == GB_DT_F64 ? 51 : t == GB_DT_F32 ? 22 : t == GB_DT_F16 ? 9 : 6;

		for (uint64_t s = 0; s < SIM_DOTS; s++) {
			struct dot d = simulate(p, SIM_K, s + 1);
			unsigned char bits[8] = { 0 };
			double e;

			if (fabs(d.ref) < d.sum_abs / sqrt((double)SIM_K))
				continue;
			tested++;
			store(p, d.got, bits);
			assert_near(gb_dtype_to_double(bits, t), d.got, 0);
			gb_gemm_flip_high_bit(bits, t);
			e = gb_gemm_rel_error(gb_dtype_to_double(bits, t), d.ref, d.sum_abs, SIM_K);
			if (!(e > bound || isnan(e)))
				fail_msg("%s: exponent flip gives error %.3g within the bound %.3g",
					 gb_precision_name(p), e, bound);
			if (p == GB_PREC_FP16_ACC16)
				continue;
			store(p, d.got, bits);
			bits[mant_top / 8] ^= (unsigned char)(1u << (mant_top % 8));
			e = gb_gemm_rel_error(gb_dtype_to_double(bits, t), d.ref, d.sum_abs, SIM_K);
			if (!(e > bound))
				fail_msg("%s: mantissa flip gives error %.3g within the bound %.3g",
					 gb_precision_name(p), e, bound);
		}
	}
	assert_true(tested > 20);
}

static void test_int8_exact(void **state)
{
	int32_t v = 123456, w;
	unsigned char b[4];

	(void)state;
	/* |sum| <= k * 64 * 64 < 2^30 at the largest k: bit 30 is free, so a flip always shows */
	assert_true((double)GB_GEMM_MAX_DIM * GB_GEMM_INT8_MAX * GB_GEMM_INT8_MAX <= 0x1p30);
	memcpy(b, &v, 4);
	gb_gemm_flip_high_bit(b, GB_DT_I32);
	memcpy(&w, b, 4);
	assert_int_equal(w, v ^ (1 << 30));
	assert_true(gb_gemm_rel_error(w, v, 1e6, 1024) > gb_gemm_error_bound(GB_PREC_INT8, 1024));
}

static void test_decode(void **state)
{
	const uint16_t h_one = 0x3C00, h_neg_two = 0xC000, h_min_sub = 0x0001, h_nan = 0x7E00;
	const uint16_t bf_one = 0x3F80;
	const uint8_t e4_one = 0x38, e4_max = 0x7E, e4_nan = 0x7F, e4_min_sub = 0x01;
	const int8_t i8 = -64;

	(void)state;
	assert_near(gb_dtype_to_double(&h_one, GB_DT_F16), 1.0, 0);
	assert_near(gb_dtype_to_double(&h_neg_two, GB_DT_F16), -2.0, 0);
	assert_near(gb_dtype_to_double(&h_min_sub, GB_DT_F16), 0x1p-24, 0);
	assert_true(isnan(gb_dtype_to_double(&h_nan, GB_DT_F16)));
	assert_near(gb_dtype_to_double(&bf_one, GB_DT_BF16), 1.0, 0);
	assert_near(gb_dtype_to_double(&e4_one, GB_DT_E4M3), 1.0, 0);
	assert_near(gb_dtype_to_double(&e4_max, GB_DT_E4M3), 448.0, 0);
	assert_near(gb_dtype_to_double(&e4_min_sub, GB_DT_E4M3), 0x1p-9, 0);
	assert_true(isnan(gb_dtype_to_double(&e4_nan, GB_DT_E4M3)));
	assert_near(gb_dtype_to_double(&i8, GB_DT_I8), -64, 0);
	/* the encoder the flip test relies on round-trips */
	for (double v = -3.0; v <= 3.0; v += 0.0625)
		assert_near(gb_dtype_to_double(&(uint16_t){ enc16(v) }, GB_DT_F16), v, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flops),
		cmocka_unit_test(test_precision_names),
		cmocka_unit_test(test_precision_all_marked),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_support_table),
		cmocka_unit_test(test_unsupported_reason),
		cmocka_unit_test(test_peak_precision),
		cmocka_unit_test(test_alignment),
		cmocka_unit_test(test_shape_product),
		cmocka_unit_test(test_search_grid),
		cmocka_unit_test(test_rotating_copies),
		cmocka_unit_test(test_copies_that_fit),
		cmocka_unit_test(test_batch_and_settle),
		cmocka_unit_test(test_preselect_warmup),
		cmocka_unit_test(test_cv),
		cmocka_unit_test(test_run_medians),
		cmocka_unit_test(test_run_cv_verdict),
		cmocka_unit_test(test_top_k),
		cmocka_unit_test(test_lt_names),
		cmocka_unit_test(test_sample_coords),
		cmocka_unit_test(test_split_k_slack),
		cmocka_unit_test(test_bound_values),
		cmocka_unit_test(test_rel_error),
		cmocka_unit_test(test_bound_holds_for_correct_results),
		cmocka_unit_test(test_flipped_bit_caught),
		cmocka_unit_test(test_int8_exact),
		cmocka_unit_test(test_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
