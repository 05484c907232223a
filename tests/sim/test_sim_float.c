/* SPDX-License-Identifier: MIT */
/*
 * test_sim_float.c - the simulator's number conversions (tests/sim/twins/
 * sim_float.c) against independent oracles: decoding is checked on every
 * code against the format's definition (sign, exponent, mantissa), and
 * encoding against a brute-force "nearest representable value, ties to the
 * even code" search over the decoded codes, plus the special cases of the
 * CUDA conversions (NaN, infinity, e4m3 saturation, the double versions
 * rounding once).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "tests/sim/sim.h"

/* a small deterministic generator (xorshift64*) */
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static float float_of(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint32_t bits_of(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* a finite float with an exponent in [lo, hi] (unbiased), random sign and mantissa */
static float random_float(int lo, int hi)
{
	uint64_t r = rng();
	int e = lo + (int)(r % (uint64_t)(hi - lo + 1));

	return float_of(((uint32_t)((r >> 40) & 1) << 31) | ((uint32_t)(e + 127) << 23) |
			((uint32_t)(r >> 8) & 0x7fffffu));
}

/* the definition of a binary format: (-1)^s 2^(e - bias) 1.m, subnormal at e = 0 */
static double decode(unsigned s, unsigned e, unsigned m, int man_bits, int bias)
{
	double mag = e == 0 ? ldexp((double)m, 1 - bias - man_bits)
			    : ldexp(1.0 + ldexp((double)m, -man_bits), (int)e - bias);

	return s ? -mag : mag;
}

/*
 * Brute force: the code among `codes` (finite, non-negative, ascending by
 * value) nearest to |x|, ties to the even code, with the sign of x; codes
 * beyond the largest finite value saturate (the caller handles overflow).
 */
static unsigned nearest_code(double x, const double *value, unsigned n_codes, unsigned sign_bit)
{
	double ax = fabs(x);
	unsigned best = 0;

	for (unsigned c = 1; c < n_codes; c++) {
		double dc = fabs(value[c] - ax), db = fabs(value[best] - ax);

		if (dc < db || (dc == db && (c & 1u) == 0))
			best = c;
	}
	return signbit(x) ? best | sign_bit : best;
}

/* ---------------------------------------------------------------- f16 */

static void f16_decodes_every_code(void **state)
{
	(void)state;
	for (unsigned h = 0; h < 0x10000; h++) {
		unsigned s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
		float f = gbsim_f16_to_float((uint16_t)h);

		if (e == 0x1f) {
			assert_true(m ? isnan(f) : isinf(f));
			continue;
		}
		assert_true((double)f == decode(s, e, m, 10, 15));
		assert_int_equal(signbit(f) != 0, s);
	}
}

/*
 * Round to nearest even, checked on h = convert(x): neither neighbouring code
 * of the same sign is closer to x, and on a tie h is the even code. Codes
 * whose magnitude is at or above inf_code are infinities and NaNs.
 */
static void assert_nearest(uint16_t h, double x, float (*to_float)(uint16_t), unsigned inf_code)
{
	double got = to_float(h);

	for (int step = -1; step <= 1; step += 2) {
		uint16_t nb = (uint16_t)(h + step);
		double other;

		if ((nb & 0x7fffu) >= inf_code || ((nb ^ h) & 0x8000u))
			continue;
		other = to_float(nb);
		assert_true(fabs(got - x) <= fabs(other - x));
		if (fabs(got - x) == fabs(other - x))
			assert_int_equal(h & 1u, 0);
	}
}

static void f16_rounds_to_nearest_even(void **state)
{
	(void)state;
	for (int i = 0; i < 200000; i++) {
		/* 2^-26 .. 2^15: zero, subnormals, normals, and the overflow to infinity */
		float x = random_float(-26, 15);
		uint16_t h = gbsim_f16_from_float(x);

		if ((h & 0x7fffu) == 0x7c00u) {
			assert_true(fabs((double)x) >= 65520.0);
			continue;
		}
		assert_int_equal(h & 0x8000u, signbit(x) ? 0x8000u : 0);
		assert_nearest(h, x, gbsim_f16_to_float, 0x7c00u);
	}
	/* every finite half converts back to itself */
	for (unsigned c = 0; c < 0x7c00; c++)
		assert_int_equal(gbsim_f16_from_float(gbsim_f16_to_float((uint16_t)c)), c);
}

static void f16_specials(void **state)
{
	(void)state;
	assert_int_equal(gbsim_f16_from_float(65504.0f), 0x7bff);
	assert_int_equal(gbsim_f16_from_float(65519.99f), 0x7bff);
	assert_int_equal(gbsim_f16_from_float(65520.0f), 0x7c00);  /* the tie rounds to infinity */
	assert_int_equal(gbsim_f16_from_float(-1e30f), 0xfc00);
	assert_int_equal(gbsim_f16_from_float(INFINITY), 0x7c00);
	assert_int_equal(gbsim_f16_from_float(-INFINITY), 0xfc00);
	assert_int_equal(gbsim_f16_from_float(NAN), 0x7fff);
	assert_int_equal(gbsim_f16_from_float(-NAN), 0x7fff);
	assert_int_equal(gbsim_f16_from_float(-0.0f), 0x8000);
	assert_int_equal(gbsim_f16_from_float(0x1p-24f), 0x0001);
	assert_int_equal(gbsim_f16_from_float(0x1p-25f), 0x0000); /* tie to even: zero */
	assert_int_equal(gbsim_f16_from_float(0x1.8p-25f), 0x0001);
	assert_int_equal(gbsim_f16_from_float(0x1.8p-24f), 0x0002); /* 1.5 ulp: tie to even */
}

/* ---------------------------------------------------------------- bf16 */

static void bf16_decodes_every_code(void **state)
{
	(void)state;
	for (unsigned h = 0; h < 0x10000; h++) {
		unsigned s = h >> 15, e = (h >> 7) & 0xff, m = h & 0x7f;
		float f = gbsim_bf16_to_float((uint16_t)h);

		if (e == 0xff) {
			assert_true(m ? isnan(f) : isinf(f));
			continue;
		}
		assert_true((double)f == decode(s, e, m, 7, 127));
	}
}

static void bf16_rounds_to_nearest_even(void **state)
{
	(void)state;
	for (int i = 0; i < 200000; i++) {
		float x = random_float(-140, 127);
		uint16_t h = gbsim_bf16_from_float(x);

		if ((h & 0x7fffu) == 0x7f80u) {
			assert_true(fabs((double)x) >= 0x1.fep127);
			continue;
		}
		assert_nearest(h, x, gbsim_bf16_to_float, 0x7f80u);
	}
}

static void bf16_specials(void **state)
{
	(void)state;
	assert_int_equal(gbsim_bf16_from_float(1.0f), 0x3f80);
	assert_int_equal(gbsim_bf16_from_float(float_of(0x3f808000u)), 0x3f80); /* tie, even */
	assert_int_equal(gbsim_bf16_from_float(float_of(0x3f818000u)), 0x3f82); /* tie, up */
	assert_int_equal(gbsim_bf16_from_float(float_of(0x7f7fffffu)), 0x7f80); /* to infinity */
	assert_int_equal(gbsim_bf16_from_float(-INFINITY), 0xff80);
	assert_int_equal(gbsim_bf16_from_float(NAN), 0x7fff);
	assert_int_equal(gbsim_bf16_from_float(-0.0f), 0x8000);
}

/* ---------------------------------------------------------------- from double */

/*
 * __double2half and __double2bfloat16 round once: going through float first
 * would round 1 + 2^-11 + 2^-40 to the tie 1 + 2^-11 and then to 1.
 */
static void double_versions_round_once(void **state)
{
	double x16 = 1.0 + 0x1p-11 + 0x1p-40, xb = 1.0 + 0x1p-8 + 0x1p-40;

	(void)state;
	assert_int_equal(gbsim_f16_from_float((float)x16), 0x3c00);
	assert_int_equal(gbsim_f16_from_double(x16), 0x3c01);
	assert_int_equal(gbsim_f16_from_double(-x16), 0xbc01);
	assert_int_equal(gbsim_bf16_from_float((float)xb), 0x3f80);
	assert_int_equal(gbsim_bf16_from_double(xb), 0x3f81);
	/* exact ties still go to even */
	assert_int_equal(gbsim_f16_from_double(1.0 + 0x1p-11), 0x3c00);
	assert_int_equal(gbsim_bf16_from_double(1.0 + 0x1p-8), 0x3f80);
	/* beyond float's range and below it */
	assert_int_equal(gbsim_f16_from_double(1e300), 0x7c00);
	assert_int_equal(gbsim_bf16_from_double(-1e300), 0xff80);
	assert_int_equal(gbsim_f16_from_double(1e-300), 0x0000);
	assert_int_equal(gbsim_bf16_from_double(1e-300), 0x0000);
	assert_int_equal(gbsim_f16_from_double(NAN), 0x7fff);
	/* where float holds x exactly, the two versions agree */
	for (int i = 0; i < 100000; i++) {
		float x = random_float(-30, 20);

		assert_int_equal(gbsim_f16_from_double(x), gbsim_f16_from_float(x));
		assert_int_equal(gbsim_bf16_from_double(x), gbsim_bf16_from_float(x));
	}
}

/* ---------------------------------------------------------------- e4m3 */

static void e4m3_decodes_every_code(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 256; v++) {
		float f = gbsim_e4m3_to_float((uint8_t)v);

		if ((v & 0x7f) == 0x7f) {
			assert_true(isnan(f));
			continue;
		}
		assert_true((double)f == decode(v >> 7, (v >> 3) & 0xf, v & 7, 3, 7));
	}
	assert_true(gbsim_e4m3_to_float(0x7e) == 448.0f);
	assert_true(gbsim_e4m3_to_float(0x01) == 0x1p-9f);
}

static void e4m3_rounds_to_nearest_even(void **state)
{
	double value[0x7f];

	(void)state;
	for (unsigned c = 0; c < 0x7f; c++)
		value[c] = gbsim_e4m3_to_float((uint8_t)c);
	for (int i = 0; i < 100000; i++) {
		/* 2^-12 .. 2^9: zero, subnormals, normals, and saturation above 448 */
		double x = (double)random_float(-12, 9);
		uint8_t want = (uint8_t)nearest_code(x, value, 0x7f, 0x80);

		assert_int_equal(gbsim_e4m3_from_double(x), want);
		assert_int_equal(gbsim_e4m3_from_float((float)x), want);
	}
	for (unsigned c = 0; c < 0x7f; c++)
		assert_int_equal(gbsim_e4m3_from_float((float)value[c]), c);
}

static void e4m3_saturates_and_nans(void **state)
{
	(void)state;
	/* __NV_SATFINITE: out of range, infinity included, becomes +-448 */
	assert_int_equal(gbsim_e4m3_from_float(464.0f), 0x7e);
	assert_int_equal(gbsim_e4m3_from_float(1e9f), 0x7e);
	assert_int_equal(gbsim_e4m3_from_float(-1e9f), 0xfe);
	assert_int_equal(gbsim_e4m3_from_float(INFINITY), 0x7e);
	assert_int_equal(gbsim_e4m3_from_double(-INFINITY), 0xfe);
	/* NaN: the float constructor canonicalises to 0x7f; the double one keeps the sign */
	assert_int_equal(gbsim_e4m3_from_float(NAN), 0x7f);
	assert_int_equal(gbsim_e4m3_from_float(-NAN), 0x7f);
	assert_int_equal(gbsim_e4m3_from_double(NAN), 0x7f);
	assert_int_equal(gbsim_e4m3_from_double(-NAN), 0xff);
	/* the smallest subnormal is 2^-9; half of it is a tie to zero */
	assert_int_equal(gbsim_e4m3_from_float(0x1p-10f), 0x00);
	assert_int_equal(gbsim_e4m3_from_float(0x1.01p-10f), 0x01);
	assert_int_equal(gbsim_e4m3_from_float(-0.0f), 0x80);
	assert_int_equal(gbsim_e4m3_from_float(0.0f), 0x00);
}

/* ---------------------------------------------------------------- tf32 */

static void tf32_rounds_to_nearest_even(void **state)
{
	(void)state;
	assert_true(gbsim_tf32_round(1.0f + 0x1p-11f) == 1.0f);                 /* tie, even */
	assert_true(gbsim_tf32_round(1.0f + 0x1p-10f + 0x1p-11f) == 1.0f + 0x1p-9f); /* tie, up */
	assert_true(gbsim_tf32_round(1.0f + 0x1p-11f + 0x1p-20f) == 1.0f + 0x1p-10f);
	assert_true(gbsim_tf32_round(-1.0f - 0x1p-11f - 0x1p-20f) == -1.0f - 0x1p-10f);
	assert_true(isinf(gbsim_tf32_round(INFINITY)));
	assert_true(isnan(gbsim_tf32_round(NAN)));
	assert_true(isinf(gbsim_tf32_round(float_of(0x7f7fffffu)))); /* past the largest tf32 */
	for (int i = 0; i < 200000; i++) {
		float x = random_float(-126, 126), t = gbsim_tf32_round(x);
		uint32_t u = bits_of(t);
		double err = fabs((double)t - (double)x), ulp = ldexp(fabs((double)t), -10);

		/* 10 mantissa bits left, within half a TF32 unit of x, ties to even */
		assert_int_equal(u & 0x1fffu, 0);
		assert_true(err <= ulp / 2 * (1 + 0x1p-10));
		if ((bits_of(x) & 0x1fffu) == 0x1000u)
			assert_int_equal(u & 0x2000u, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(f16_decodes_every_code),
		cmocka_unit_test(f16_rounds_to_nearest_even),
		cmocka_unit_test(f16_specials),
		cmocka_unit_test(bf16_decodes_every_code),
		cmocka_unit_test(bf16_rounds_to_nearest_even),
		cmocka_unit_test(bf16_specials),
		cmocka_unit_test(double_versions_round_once),
		cmocka_unit_test(e4m3_decodes_every_code),
		cmocka_unit_test(e4m3_rounds_to_nearest_even),
		cmocka_unit_test(e4m3_saturates_and_nans),
		cmocka_unit_test(tf32_rounds_to_nearest_even),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
