/* SPDX-License-Identifier: MIT */
/*
 * test_theory.c - unit tests for report/theory.c: computed peaks against
 * published spec-sheet figures hard-coded here (so a wrong catalog entry cannot
 * vouch for itself), bandwidth formulas, product classification and matching
 * of real CUDA device names to catalog entries.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/theory.h"

#include <math.h>
#include <string.h>

/* cmocka has no double comparison; these keep the failing expression in the message. */
#define assert_rel(a, b, rel) \
	assert_true(fabs((double)(a) - (double)(b)) <= (rel) * fabs((double)(b)))

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Spec sheets round, and some back-computed clocks are approximate: allow 2%. */
#define PEAK_TOL 0.02

/* Published dense figures from docs/theory.md (research: gemm_peaks.md 3.3 and 6). */
struct published {
	const char *key;
	enum gb_precision p;
	double tflops;
};

static const struct published published[] = {
	{ "a100-sxm4-80gb", GB_PREC_BF16, 312 },
	{ "a100-sxm4-80gb", GB_PREC_FP16, 312 },
	{ "a100-sxm4-80gb", GB_PREC_TF32, 156 },
	{ "a100-sxm4-80gb", GB_PREC_FP32, 19.5 },
	{ "a100-sxm4-80gb", GB_PREC_FP64, 9.7 },
	{ "a100-sxm4-80gb", GB_PREC_FP64_TC, 19.5 },
	{ "a100-sxm4-80gb", GB_PREC_INT8, 624 },
	{ "a100-pcie-80gb", GB_PREC_BF16, 312 },
	{ "a100-pcie-80gb", GB_PREC_FP32, 19.5 },
	{ "a100-40gb", GB_PREC_BF16, 312 },
	{ "a100-40gb", GB_PREC_FP64_TC, 19.5 },
	{ "a100-pcie-40gb", GB_PREC_TF32, 156 },
	{ "h100-sxm", GB_PREC_BF16, 989.4 },
	{ "h100-sxm", GB_PREC_FP16, 989.4 },
	{ "h100-sxm", GB_PREC_FP8, 1978.9 },
	{ "h100-sxm", GB_PREC_INT8, 1978.9 },
	{ "h100-sxm", GB_PREC_TF32, 494.7 },
	{ "h100-sxm", GB_PREC_FP32, 66.9 },
	{ "h100-sxm", GB_PREC_FP64, 33.5 },
	{ "h100-sxm", GB_PREC_FP64_TC, 66.9 },
	{ "h100-pcie", GB_PREC_BF16, 756 },
	{ "h100-pcie", GB_PREC_FP8, 1513 },
	{ "h100-pcie", GB_PREC_TF32, 378 },
	{ "h100-pcie", GB_PREC_FP32, 51.2 },
	{ "h100-pcie", GB_PREC_FP64, 25.6 },
	{ "h100-pcie", GB_PREC_FP64_TC, 51.2 },
	/* H100 NVL per GPU: datasheet sparse TF32 835, BF16 1671, FP8 3341 halved. */
	{ "h100-nvl", GB_PREC_FP64, 30 },
	{ "h100-nvl", GB_PREC_FP64_TC, 60 },
	{ "h100-nvl", GB_PREC_FP32, 60 },
	{ "h100-nvl", GB_PREC_TF32, 417.5 },
	{ "h100-nvl", GB_PREC_FP16, 835.5 },
	{ "h100-nvl", GB_PREC_BF16, 835.5 },
	{ "h100-nvl", GB_PREC_FP8, 1670.5 },
	{ "h100-nvl", GB_PREC_INT8, 1670.5 },
	{ "h200", GB_PREC_BF16, 989.4 },
	{ "h200", GB_PREC_FP8, 1978.9 },
	{ "h200", GB_PREC_TF32, 494.7 },
	{ "h200", GB_PREC_FP32, 66.9 },
	{ "h200", GB_PREC_FP64, 33.5 },
	{ "l40s", GB_PREC_FP32, 91.6 },
	{ "l40s", GB_PREC_TF32, 183 },
	{ "l40s", GB_PREC_BF16, 362 },
	{ "l40s", GB_PREC_FP8, 733 },
	{ "l40s", GB_PREC_INT8, 733 },
	{ "l4", GB_PREC_FP32, 30.3 },
	{ "l4", GB_PREC_TF32, 60 },
	{ "l4", GB_PREC_FP16, 121 },
	{ "l4", GB_PREC_BF16, 121 },
	{ "l4", GB_PREC_FP8, 242.5 },
	{ "l4", GB_PREC_INT8, 242.5 },
	{ "l4", GB_PREC_FP64, 0.47 },
	{ "rtx4090", GB_PREC_FP32, 82.6 },
	{ "rtx4090", GB_PREC_TF32, 82.6 },
	{ "rtx4090", GB_PREC_FP16, 165.2 },
	{ "rtx4090", GB_PREC_BF16, 165.2 },
	{ "rtx4090", GB_PREC_FP16_ACC16, 330.3 },
	{ "rtx4090", GB_PREC_FP8, 330.3 },
	{ "rtx4090", GB_PREC_INT8, 660.6 },
	{ "rtx3090", GB_PREC_FP32, 35.6 },
	{ "rtx3090", GB_PREC_TF32, 35.6 },
	{ "rtx3090", GB_PREC_FP16, 71 },
	{ "rtx3090", GB_PREC_FP16_ACC16, 142 },
	{ "rtx3090", GB_PREC_INT8, 284 },
	{ "t4", GB_PREC_FP32, 8.1 },
	{ "t4", GB_PREC_FP16, 65 },
	{ "t4", GB_PREC_INT8, 130 },
	{ "v100-sxm2", GB_PREC_FP32, 15.7 },
	{ "v100-sxm2", GB_PREC_FP16, 125 },
	{ "v100-sxm2", GB_PREC_FP64, 7.8 },
	{ "v100-pcie", GB_PREC_FP32, 14 },
	{ "v100-pcie", GB_PREC_FP16, 112 },
	{ "a10", GB_PREC_FP32, 31.2 },
	{ "a10", GB_PREC_TF32, 62.5 },
	{ "a10", GB_PREC_BF16, 125 },
	{ "a10", GB_PREC_INT8, 250 },
	{ "b200", GB_PREC_BF16, 2250 },
	{ "b200", GB_PREC_FP8, 4500 },
	{ "b200", GB_PREC_FP32, 75 },
	{ "b200", GB_PREC_FP64, 37 },
	{ "b200", GB_PREC_INT8, 4500 },
	/* HGX B300 per GPU, dense: B200's except the cut FP64 and INT8. */
	{ "b300", GB_PREC_FP64, 1.2 },
	{ "b300", GB_PREC_FP64_TC, 1.2 },
	{ "b300", GB_PREC_FP32, 75 },
	{ "b300", GB_PREC_TF32, 1125 },
	{ "b300", GB_PREC_BF16, 2250 },
	{ "b300", GB_PREC_FP8, 4500 },
	{ "b300", GB_PREC_INT8, 150 },
	{ "rtx5090", GB_PREC_FP32, 104.8 },
	{ "rtx5090", GB_PREC_TF32, 104.8 },
	{ "rtx5090", GB_PREC_BF16, 209.5 },
	{ "rtx5090", GB_PREC_FP16_ACC16, 419 },
	{ "rtx5090", GB_PREC_FP8, 419 },
	{ "rtx5090", GB_PREC_INT8, 838 },
};

static const struct gb_gpu_spec *must_key(const char *key)
{
	const struct gb_gpu_spec *s = gb_gpu_spec_by_key(key);

	if (!s)
		fail_msg("catalog has no entry '%s'", key);
	return s;
}

/* ---- precisions ---- */

static void test_precision_names(void **state)
{
	static const char *const want[GB_PREC_COUNT] = {
		"fp64", "fp64_tc", "fp32", "tf32", "fp16", "bf16", "fp16acc16", "fp8", "int8",
	};

	(void)state;
	for (int p = 0; p < GB_PREC_COUNT; p++) {
		assert_string_equal(gb_precision_name(p), want[p]);
		assert_int_equal(gb_precision_from_name(want[p]), p);
		assert_int_equal(gb_precision_from_name(gb_precision_name(p)), p);
	}
	assert_int_equal(gb_precision_from_name("BF16"), GB_PREC_BF16);
	assert_int_equal(gb_precision_from_name("fp4"), -1);
	assert_int_equal(gb_precision_from_name(""), -1);
	assert_int_equal(gb_precision_from_name(NULL), -1);
	assert_non_null(gb_precision_name(GB_PREC_COUNT));
}

static void test_precision_is_tensor(void **state)
{
	(void)state;
	assert_false(gb_precision_is_tensor(GB_PREC_FP64));
	assert_false(gb_precision_is_tensor(GB_PREC_FP32));
	assert_true(gb_precision_is_tensor(GB_PREC_FP64_TC));
	assert_true(gb_precision_is_tensor(GB_PREC_TF32));
	assert_true(gb_precision_is_tensor(GB_PREC_FP16_ACC16));
	assert_true(gb_precision_is_tensor(GB_PREC_INT8));
	/* DMMA is quoted at the boost clock, the low-precision tensor math is not. */
	assert_false(gb_precision_uses_tensor_clock(GB_PREC_FP64_TC));
	assert_false(gb_precision_uses_tensor_clock(GB_PREC_FP32));
	assert_true(gb_precision_uses_tensor_clock(GB_PREC_BF16));
	assert_true(gb_precision_uses_tensor_clock(GB_PREC_FP8));
}

/* ---- per-SM rates ---- */

static void test_rates_table(void **state)
{
	(void)state;
	assert_rel(gb_flops_per_clk_per_sm(8, 0, GB_PREC_FP16, GB_CLASS_DATACENTER), 2048, 0);
	assert_rel(gb_flops_per_clk_per_sm(9, 0, GB_PREC_FP8, GB_CLASS_DATACENTER), 8192, 0);
	assert_rel(gb_flops_per_clk_per_sm(10, 0, GB_PREC_BF16, GB_CLASS_DATACENTER), 8192, 0);
	assert_rel(gb_flops_per_clk_per_sm(8, 0, GB_PREC_FP64_TC, GB_CLASS_DATACENTER), 128, 0);
	assert_rel(gb_flops_per_clk_per_sm(9, 0, GB_PREC_FP64_TC, GB_CLASS_DATACENTER), 256, 0);
	assert_rel(gb_flops_per_clk_per_sm(10, 0, GB_PREC_FP64_TC, GB_CLASS_DATACENTER), 128, 0);
	assert_rel(gb_flops_per_clk_per_sm(8, 6, GB_PREC_FP32, GB_CLASS_DATACENTER), 256, 0);
	assert_rel(gb_flops_per_clk_per_sm(7, 5, GB_PREC_INT8, GB_CLASS_DATACENTER), 2048, 0);
	/* sm_121 follows sm_120. */
	for (int p = 0; p < GB_PREC_COUNT; p++)
		assert_rel(gb_flops_per_clk_per_sm(12, 1, p, GB_CLASS_GEFORCE),
			   gb_flops_per_clk_per_sm(12, 0, p, GB_CLASS_GEFORCE), 0);
}

/* B300 (sm_103) is B200 except for its cut FP64 and INT8. */
static void test_rates_b300(void **state)
{
	static const enum gb_precision same[] = { GB_PREC_FP32, GB_PREC_TF32, GB_PREC_FP16,
						  GB_PREC_BF16, GB_PREC_FP16_ACC16, GB_PREC_FP8 };
	const enum gb_product_class dc = GB_CLASS_DATACENTER;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(same); i++)
		assert_rel(gb_flops_per_clk_per_sm(10, 3, same[i], dc),
			   gb_flops_per_clk_per_sm(10, 0, same[i], dc), 0);
	/* 1.2 TFLOPS / (148 SMs x 1965 MHz) and 150 TOPS / (148 x 1860 MHz) */
	assert_rel(gb_flops_per_clk_per_sm(10, 3, GB_PREC_FP64, dc), 4.125, 0);
	assert_rel(gb_flops_per_clk_per_sm(10, 3, GB_PREC_FP64_TC, dc), 4.125, 0);
	assert_rel(gb_flops_per_clk_per_sm(10, 3, GB_PREC_INT8, dc), 545, 0);
	/* About 1/31 of B200's FP64 and 1/30 of its INT8, as the datasheets say. */
	assert_true(gb_flops_per_clk_per_sm(10, 3, GB_PREC_FP64, dc) <
		    gb_flops_per_clk_per_sm(10, 0, GB_PREC_FP64, dc) / 30);
	assert_true(gb_flops_per_clk_per_sm(10, 3, GB_PREC_INT8, dc) <
		    gb_flops_per_clk_per_sm(10, 0, GB_PREC_INT8, dc) / 30);
	/* Still NVLink 5 */
	assert_int_equal(gb_nvlink_gen_for_cc(10, 3), 5);
}

static void test_geforce_half_rate(void **state)
{
	static const int archs[][2] = { { 7, 5 }, { 8, 6 }, { 8, 9 }, { 12, 0 } };
	static const enum gb_precision halved[] = { GB_PREC_FP16, GB_PREC_BF16, GB_PREC_TF32,
						    GB_PREC_FP8 };
	static const enum gb_precision full[] = { GB_PREC_FP64, GB_PREC_FP32,
						  GB_PREC_FP16_ACC16, GB_PREC_INT8 };

	(void)state;
	for (size_t a = 0; a < ARRAY_LEN(archs); a++) {
		int ma = archs[a][0], mi = archs[a][1];

		for (size_t i = 0; i < ARRAY_LEN(halved); i++) {
			double dc = gb_flops_per_clk_per_sm(ma, mi, halved[i], GB_CLASS_DATACENTER);

			/* Unsupported combinations stay 0 (0 / 2). */
			assert_rel(gb_flops_per_clk_per_sm(ma, mi, halved[i], GB_CLASS_GEFORCE),
				   dc / 2, 0);
		}
		for (size_t i = 0; i < ARRAY_LEN(full); i++) {
			double dc = gb_flops_per_clk_per_sm(ma, mi, full[i], GB_CLASS_DATACENTER);

			assert_rel(gb_flops_per_clk_per_sm(ma, mi, full[i], GB_CLASS_GEFORCE), dc,
				   0);
		}
		/* FP16 accumulate is full rate: twice the GeForce FP32-accumulate rate. */
		assert_rel(gb_flops_per_clk_per_sm(ma, mi, GB_PREC_FP16_ACC16, GB_CLASS_GEFORCE),
			   2 * gb_flops_per_clk_per_sm(ma, mi, GB_PREC_FP16, GB_CLASS_GEFORCE), 0);
	}
	/* Datacenter dies have no GeForce SKU: the class changes nothing there. */
	assert_rel(gb_flops_per_clk_per_sm(9, 0, GB_PREC_BF16, GB_CLASS_GEFORCE), 4096, 0);
	/* On datacenter parts FP16 accumulate runs at the FP16 rate. */
	assert_rel(gb_flops_per_clk_per_sm(8, 9, GB_PREC_FP16_ACC16, GB_CLASS_DATACENTER),
		   gb_flops_per_clk_per_sm(8, 9, GB_PREC_FP16, GB_CLASS_DATACENTER), 0);
}

static void test_unsupported(void **state)
{
	const enum gb_product_class dc = GB_CLASS_DATACENTER;

	(void)state;
	assert_true(gb_flops_per_clk_per_sm(7, 0, GB_PREC_BF16, dc) == 0);
	assert_true(gb_flops_per_clk_per_sm(7, 5, GB_PREC_BF16, dc) == 0);
	assert_true(gb_flops_per_clk_per_sm(8, 0, GB_PREC_FP8, dc) == 0);
	assert_true(gb_flops_per_clk_per_sm(8, 6, GB_PREC_FP8, dc) == 0);
	assert_true(gb_flops_per_clk_per_sm(7, 5, GB_PREC_TF32, dc) == 0);
	assert_true(gb_flops_per_clk_per_sm(7, 0, GB_PREC_TF32, dc) == 0);
	assert_true(gb_flops_per_clk_per_sm(7, 0, GB_PREC_INT8, dc) == 0);
	assert_true(gb_flops_per_clk_per_sm(8, 6, GB_PREC_FP64_TC, dc) == 0);
	assert_true(gb_flops_per_clk_per_sm(8, 9, GB_PREC_FP64_TC, dc) == 0);
	assert_true(gb_flops_per_clk_per_sm(12, 0, GB_PREC_FP64_TC, dc) == 0);
	/* Unknown architectures and precisions. */
	assert_true(gb_flops_per_clk_per_sm(6, 1, GB_PREC_FP32, dc) == 0);
	assert_true(gb_flops_per_clk_per_sm(11, 0, GB_PREC_FP32, dc) == 0);
	assert_true(gb_flops_per_clk_per_sm(8, 0, GB_PREC_COUNT, dc) == 0);
	assert_true(gb_peak_flops(7, 0, GB_PREC_BF16, dc, 80, 1530) == 0);
	assert_true(gb_peak_flops(8, 0, GB_PREC_FP8, dc, 108, 1410) == 0);
	assert_true(gb_peak_flops(7, 5, GB_PREC_TF32, dc, 40, 1590) == 0);
}

static void test_peak_flops_formula(void **state)
{
	(void)state;
	assert_rel(gb_peak_flops(8, 0, GB_PREC_FP16, GB_CLASS_DATACENTER, 108, 1410),
		   108.0 * 2048 * 1410e6, 1e-12);
	assert_rel(gb_peak_flops(9, 0, GB_PREC_BF16, GB_CLASS_DATACENTER, 132, 1830), 989.4e12,
		   1e-3);
	assert_true(gb_peak_flops(8, 0, GB_PREC_FP16, GB_CLASS_DATACENTER, 0, 1410) == 0);
	assert_true(gb_peak_flops(8, 0, GB_PREC_FP16, GB_CLASS_DATACENTER, 108, 0) == 0);
	assert_true(gb_peak_flops(8, 0, GB_PREC_FP16, GB_CLASS_DATACENTER, 108, NAN) == 0);
}

/* ---- catalog figures ---- */

static void test_published_peaks(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(published); i++) {
		const struct published *w = &published[i];
		const struct gb_gpu_spec *s = must_key(w->key);
		double got = gb_gpu_spec_peak_flops(s, w->p) / 1e12;

		if (fabs(got - w->tflops) > PEAK_TOL * w->tflops)
			fail_msg("%s %s: computed %.2f TFLOPS, published %.2f", w->key,
				 gb_precision_name(w->p), got, w->tflops);
		/* The catalog must carry the same published figure. */
		if (fabs(s->spec_tflops[w->p] - w->tflops) > 0.005 * w->tflops)
			fail_msg("%s %s: catalog says %.2f, published %.2f", w->key,
				 gb_precision_name(w->p), s->spec_tflops[w->p], w->tflops);
	}
}

static void test_catalog_consistent(void **state)
{
	(void)state;
	for (const struct gb_gpu_spec *s = gb_gpu_catalog(); s->key; s++) {
		for (int p = 0; p < GB_PREC_COUNT; p++) {
			double got = gb_gpu_spec_peak_flops(s, p) / 1e12;
			double spec = s->spec_tflops[p];

			if ((got > 0) != (spec > 0))
				fail_msg("%s %s: computed %.2f but spec %.2f", s->key,
					 gb_precision_name(p), got, spec);
			if (spec > 0 && fabs(got - spec) > PEAK_TOL * spec)
				fail_msg("%s %s: computed %.2f TFLOPS, spec %.2f", s->key,
					 gb_precision_name(p), got, spec);
		}
	}
}

static void test_catalog_fields(void **state)
{
	(void)state;
	for (const struct gb_gpu_spec *s = gb_gpu_catalog(); s->key; s++) {
		assert_ptr_equal(gb_gpu_spec_by_key(s->key), s);
		for (const char *c = s->key; *c; c++)
			assert_false(*c >= 'A' && *c <= 'Z');
		assert_non_null(s->name);
		assert_non_null(s->match[0]);
		assert_non_null(s->source);
		assert_true(s->sm_count > 0 && s->boost_mhz > 0 && s->tensor_mhz > 0);
		assert_true(s->tensor_mhz <= s->boost_mhz);
		assert_true(s->memory_gb > 0 && s->mem_bw_bps > 0 && s->tdp_w > 0);
		assert_true(s->pcie_gen >= 3 && s->pcie_gen <= 6);
		assert_true((s->nvlink_gen > 0) == (s->nvlink_links > 0));
		assert_int_equal(s->cls, gb_product_class_of(s->name, NULL));
		/* The display name is itself a name that must find its entry. */
		assert_ptr_equal(gb_gpu_spec_match(s->name, s->sm_count), s);
	}
	assert_ptr_equal(gb_gpu_spec_by_key("H100-SXM"), must_key("h100-sxm"));
	assert_null(gb_gpu_spec_by_key("h100"));
	assert_null(gb_gpu_spec_by_key(NULL));
	assert_true(gb_gpu_spec_peak_flops(NULL, GB_PREC_FP32) == 0);
}

static void test_catalog_clocks(void **state)
{
	const struct gb_gpu_spec *h100 = must_key("h100-sxm");
	const struct gb_gpu_spec *b200 = must_key("b200");

	(void)state;
	assert_rel(h100->boost_mhz, 1980, 0);
	assert_rel(h100->tensor_mhz, 1830, 0);
	assert_rel(must_key("h200")->tensor_mhz, 1830, 0);
	assert_rel(must_key("h100-pcie")->boost_mhz, 1755, 0);
	assert_rel(must_key("h100-pcie")->tensor_mhz, 1620, 0);
	assert_rel(b200->boost_mhz, 1965, 0);
	assert_rel(b200->tensor_mhz, 1860, 0);
	assert_int_equal(must_key("h100-sxm")->sm_count, 132);
	assert_int_equal(must_key("h100-pcie")->sm_count, 114);
	assert_int_equal(must_key("l4")->sm_count, 58);
	/* H100 NVL: the full 132 SMs of the SXM part at PCIe-card clocks. */
	assert_int_equal(must_key("h100-nvl")->sm_count, 132);
	assert_rel(must_key("h100-nvl")->boost_mhz, 1776, 0);
	assert_rel(must_key("h100-nvl")->tensor_mhz, 1545, 0);
	assert_rel(must_key("h100-nvl")->memory_gb, 94, 0);
	assert_rel(must_key("h100-nvl")->mem_bw_bps, 3.9e12, 1e-3);
	assert_int_equal(must_key("h100-nvl")->pcie_gen, 5);
	assert_int_equal(must_key("b300")->sm_count, 148);
	assert_int_equal(must_key("b300")->cc_minor, 3);
	assert_int_equal(must_key("b300")->pcie_gen, 6);
	/* Spec memory bandwidth, B/s. */
	assert_rel(h100->mem_bw_bps, 3.35e12, 1e-3);
	assert_rel(must_key("a100-sxm4-80gb")->mem_bw_bps, 2039e9, 1e-3);
	assert_rel(must_key("l4")->mem_bw_bps, 300e9, 1e-3);
	assert_rel(must_key("rtx4090")->mem_bw_bps, 1008e9, 1e-3);
}

/* ---- bandwidth ---- */

static void test_mem_bandwidth(void **state)
{
	(void)state;
	assert_rel(gb_mem_bandwidth_bps(2619, 5120), 3352e9, 1e-3);  /* H100 SXM */
	assert_rel(gb_mem_bandwidth_bps(1593, 5120), 2039e9, 1e-3);  /* A100 80GB SXM */
	assert_rel(gb_mem_bandwidth_bps(1215, 5120), 1555e9, 1e-3);  /* A100 40GB */
	assert_rel(gb_mem_bandwidth_bps(10501, 384), 1008e9, 1e-3);  /* RTX 4090 */
	assert_rel(gb_mem_bandwidth_bps(877, 4096), 898e9, 1e-3);    /* V100 */
	assert_rel(gb_mem_bandwidth_bps(14001, 512), 1792e9, 1e-3);  /* RTX 5090 */
	/* The formula agrees with the catalog within a couple of percent. */
	assert_rel(gb_mem_bandwidth_bps(2619, 5120), must_key("h100-sxm")->mem_bw_bps, 0.01);
	assert_true(gb_mem_bandwidth_bps(0, 5120) == 0);
	assert_true(gb_mem_bandwidth_bps(1593, 0) == 0);
	assert_true(gb_mem_bandwidth_bps(-1, 384) == 0);
}

static void test_pcie(void **state)
{
	(void)state;
	assert_rel(gb_pcie_bandwidth_bps(1, 16), 4.0e9, 1e-9);
	assert_rel(gb_pcie_bandwidth_bps(2, 16), 8.0e9, 1e-9);
	assert_rel(gb_pcie_bandwidth_bps(3, 16), 15.75e9, 1e-3);
	assert_rel(gb_pcie_bandwidth_bps(4, 16), 31.5e9, 1e-3);
	assert_rel(gb_pcie_bandwidth_bps(5, 16), 63.0e9, 1e-3);
	assert_rel(gb_pcie_bandwidth_bps(6, 16), 121.0e9, 1e-3);
	assert_rel(gb_pcie_bandwidth_bps(4, 8), gb_pcie_bandwidth_bps(4, 16) / 2, 1e-12);
	assert_rel(gb_pcie_bandwidth_bps(3, 1), 15.75e9 / 16, 1e-3);
	assert_true(gb_pcie_bandwidth_bps(0, 16) == 0);
	assert_true(gb_pcie_bandwidth_bps(7, 16) == 0);
	assert_true(gb_pcie_bandwidth_bps(-1, 16) == 0);
	assert_true(gb_pcie_bandwidth_bps(4, 0) == 0);
	assert_true(gb_pcie_bandwidth_bps(4, 33) == 0);
}

static void test_nvlink(void **state)
{
	static const struct {
		const char *key;
		double gbps;
	} totals[] = { { "a100-sxm4-80gb", 300 }, { "h100-sxm", 450 }, { "h200", 450 },
		       { "b200", 900 }, { "b300", 900 }, { "v100-sxm2", 150 },
		       /* the H100 NVL bridge: "600 GB/s" both ways */
		       { "h100-nvl", 300 } };

	(void)state;
	assert_rel(gb_nvlink_link_bps(1), 20e9, 1e-12);
	assert_rel(gb_nvlink_link_bps(2), 25e9, 1e-12);
	assert_rel(gb_nvlink_link_bps(3), 25e9, 1e-12);
	assert_rel(gb_nvlink_link_bps(4), 25e9, 1e-12);
	assert_rel(gb_nvlink_link_bps(5), 50e9, 1e-12);
	assert_true(gb_nvlink_link_bps(0) == 0);
	assert_true(gb_nvlink_link_bps(6) == 0);
	assert_int_equal(gb_nvlink_gen_for_cc(6, 0), 1);
	assert_int_equal(gb_nvlink_gen_for_cc(7, 0), 2);
	assert_int_equal(gb_nvlink_gen_for_cc(8, 0), 3);
	assert_int_equal(gb_nvlink_gen_for_cc(9, 0), 4);
	assert_int_equal(gb_nvlink_gen_for_cc(10, 0), 5);
	assert_int_equal(gb_nvlink_gen_for_cc(7, 5), 0);
	assert_int_equal(gb_nvlink_gen_for_cc(8, 6), 0);
	assert_int_equal(gb_nvlink_gen_for_cc(8, 9), 0);
	assert_int_equal(gb_nvlink_gen_for_cc(12, 0), 0);
	/* Per-direction totals: A100 300, H100 450, B200 900 GB/s. */
	for (size_t i = 0; i < ARRAY_LEN(totals); i++) {
		const struct gb_gpu_spec *s = must_key(totals[i].key);

		assert_int_equal(s->nvlink_gen, gb_nvlink_gen_for_cc(s->cc_major, s->cc_minor));
		assert_rel(s->nvlink_links * gb_nvlink_link_bps(s->nvlink_gen),
			   totals[i].gbps * 1e9, 1e-12);
	}
}

/* ---- classification and matching ---- */

static void test_product_class(void **state)
{
	static const char *const geforce[] = {
		"NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 3090", "GeForce GTX 1080 Ti",
		"NVIDIA TITAN RTX", "NVIDIA TITAN V", "titan xp", "RTX 4090", "RTX 3090 Ti",
		"NVIDIA RTX 5090", "RTX 2080 SUPER", "RTX3060", "RTX 5050",
		"nvidia geforce rtx 5090",
	};
	static const char *const not_geforce[] = {
		"NVIDIA RTX A6000", "NVIDIA RTX 6000 Ada Generation",
		"NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
		"NVIDIA RTX 5000 Ada Generation",
		"NVIDIA RTX 4000 SFF Ada Generation", "NVIDIA RTX 2000 Ada Generation",
		"NVIDIA RTX 4500 Ada Generation", "NVIDIA RTX 5880 Ada Generation",
		"Quadro RTX 8000", "Quadro RTX 5000", "NVIDIA L40S", "Tesla T4",
		"NVIDIA H100 80GB HBM3", "NVIDIA A10", "NVIDIA RTX 40900", "",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(geforce); i++)
		if (gb_product_class_of(geforce[i], NULL) != GB_CLASS_GEFORCE)
			fail_msg("'%s' should be GeForce", geforce[i]);
	for (size_t i = 0; i < ARRAY_LEN(not_geforce); i++)
		if (gb_product_class_of(not_geforce[i], NULL) != GB_CLASS_DATACENTER)
			fail_msg("'%s' should not be GeForce", not_geforce[i]);
	/* The NVML brand decides when the name does not. */
	assert_int_equal(gb_product_class_of("NVIDIA Graphics Device", "GeForce"),
			 GB_CLASS_GEFORCE);
	assert_int_equal(gb_product_class_of("NVIDIA Graphics Device", "NVIDIA GeForce"),
			 GB_CLASS_GEFORCE);
	assert_int_equal(gb_product_class_of("NVIDIA Graphics Device", "TITAN"), GB_CLASS_GEFORCE);
	assert_int_equal(gb_product_class_of(NULL, "Titan RTX"), GB_CLASS_GEFORCE);
	assert_int_equal(gb_product_class_of("NVIDIA RTX A6000", "NVIDIA RTX"),
			 GB_CLASS_DATACENTER);
	assert_int_equal(gb_product_class_of("Quadro RTX 5000", "Quadro"), GB_CLASS_DATACENTER);
	assert_int_equal(gb_product_class_of(NULL, NULL), GB_CLASS_DATACENTER);
}

struct name_case {
	const char *name;
	int sm_count;
	const char *key; /* NULL: must not match */
};

static const struct name_case names[] = {
	{ "NVIDIA H100 80GB HBM3", 132, "h100-sxm" },
	{ "NVIDIA H100 80GB HBM3", 0, "h100-sxm" },
	{ "NVIDIA H100 PCIe", 114, "h100-pcie" },
	{ "NVIDIA H100 PCIe", 0, "h100-pcie" },
	{ "NVIDIA H100 NVL", 132, "h100-nvl" },
	{ "NVIDIA H100 NVL", 0, "h100-nvl" },
	{ "nvidia h100-nvl", 132, "h100-nvl" },
	{ "NVIDIA H200", 132, "h200" },
	{ "NVIDIA A100-SXM4-80GB", 108, "a100-sxm4-80gb" },
	{ "NVIDIA A100 80GB PCIe", 108, "a100-pcie-80gb" },
	{ "NVIDIA A100-SXM4-40GB", 108, "a100-40gb" },
	{ "NVIDIA A100-PCIE-40GB", 108, "a100-pcie-40gb" },
	{ "NVIDIA GeForce RTX 4090", 128, "rtx4090" },
	{ "NVIDIA GeForce RTX 3090", 82, "rtx3090" },
	{ "NVIDIA L40S", 142, "l40s" },
	{ "NVIDIA L4", 58, "l4" },
	{ "Tesla T4", 40, "t4" },
	{ "Tesla V100-SXM2-32GB", 80, "v100-sxm2" },
	{ "Tesla V100-SXM2-16GB", 80, "v100-sxm2" },
	{ "Tesla V100-PCIE-16GB", 80, "v100-pcie" },
	{ "NVIDIA A10", 72, "a10" },
	{ "NVIDIA B200", 148, "b200" },
	{ "NVIDIA B300 SXM6 AC", 148, "b300" },
	{ "NVIDIA B300", 0, "b300" },
	{ "NVIDIA GeForce RTX 5090", 170, "rtx5090" },
	{ "nvidia l40s", 0, "l40s" },
	/*
	 * A MIG slice reports its parent's name with fewer SMs: it is not the
	 * GPU on the spec sheet, so no entry (the max-clock peaks apply).
	 */
	{ "NVIDIA A100-SXM4-40GB MIG 1g.5gb", 14, NULL },
	{ "NVIDIA H100 80GB HBM3", 60, NULL },
	{ "NVIDIA H100 80GB HBM3", 16, NULL },
	{ "NVIDIA A100-SXM4-80GB", 42, NULL },
	{ "NVIDIA H100 NVL MIG 1g.12gb", 16, NULL },
	{ "NVIDIA H100 80GB HBM3", 0, "h100-sxm" },
	/* The SM count tells SXM from PCIe when the name does not. */
	{ "NVIDIA H100", 132, "h100-sxm" },
	{ "NVIDIA H100", 114, "h100-pcie" },
	{ "NVIDIA H100", 0, NULL },
	/* Other parts whose names contain a catalog name. */
	{ "NVIDIA H200 NVL", 132, NULL },
	{ "NVIDIA GeForce RTX 3090 Ti", 84, NULL },
	{ "NVIDIA GeForce RTX 4090 D", 114, NULL },
	{ "NVIDIA GeForce RTX 4090 Laptop GPU", 76, NULL },
	{ "NVIDIA L40", 142, NULL },
	{ "NVIDIA A10G", 80, NULL },
	{ "NVIDIA A100", 0, NULL },
	{ "NVIDIA GH200 480GB", 132, NULL },
	{ "NVIDIA GB200", 148, NULL },
	{ "NVIDIA GB300", 160, NULL },
	{ "Tesla V100S-PCIE-32GB", 80, NULL },
	{ "NVIDIA RTX A6000", 84, NULL },
	{ "NVIDIA T400", 6, NULL },
	{ "", 0, NULL },
};

static void test_name_match(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		const struct name_case *c = &names[i];
		const struct gb_gpu_spec *s = gb_gpu_spec_match(c->name, c->sm_count);
		const char *got = s ? s->key : "(none)";
		const char *want = c->key ? c->key : "(none)";

		if (strcmp(got, want) != 0)
			fail_msg("'%s' (%d SMs): matched %s, want %s", c->name, c->sm_count, got,
				 want);
	}
	assert_null(gb_gpu_spec_match(NULL, 132));
	/* the name alone still finds the parent, for messages */
	assert_string_equal(gb_gpu_spec_match_name("NVIDIA H100 80GB HBM3")->key, "h100-sxm");
	assert_string_equal(gb_gpu_spec_match_name("NVIDIA A100-SXM4-40GB MIG 1g.5gb")->key,
			    "a100-40gb");
	assert_string_equal(gb_gpu_spec_match_name("NVIDIA H100 NVL MIG 1g.12gb")->key,
			    "h100-nvl");
	assert_null(gb_gpu_spec_match_name("NVIDIA H100"));
	assert_null(gb_gpu_spec_match_name(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precision_names),
		cmocka_unit_test(test_precision_is_tensor),
		cmocka_unit_test(test_rates_table),
		cmocka_unit_test(test_rates_b300),
		cmocka_unit_test(test_geforce_half_rate),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_peak_flops_formula),
		cmocka_unit_test(test_published_peaks),
		cmocka_unit_test(test_catalog_consistent),
		cmocka_unit_test(test_catalog_fields),
		cmocka_unit_test(test_catalog_clocks),
		cmocka_unit_test(test_mem_bandwidth),
		cmocka_unit_test(test_pcie),
		cmocka_unit_test(test_nvlink),
		cmocka_unit_test(test_product_class),
		cmocka_unit_test(test_name_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
