/* SPDX-License-Identifier: MIT */
/*
 * sim_float.c - the narrow number formats on the CPU, bit for bit as the
 * CUDA conversions named in sim.h produce them on the device:
 *
 *   f16, bf16   round to nearest even, overflow to infinity, NaN becomes the
 *               canonical 0x7fff (what cvt.rn.f16.f32 / cvt.rn.bf16.f32 give).
 *               The double versions round ONCE, as cvt.rn.f16.f64 and
 *               cvt.rn.bf16.f64 do: the double is first rounded to float
 *               "to odd" (truncate, then set the last bit if anything was
 *               cut off), which keeps enough information for the second
 *               rounding to be exact (float's 24 bits >= 11 + 2 and 8 + 2).
 *   e4m3        __nv_fp8_e4m3(x): round to nearest even with __NV_SATFINITE,
 *               so anything beyond 448 (infinity included) becomes +-448;
 *               the float constructor makes every NaN the positive NaN 0x7f,
 *               the double one keeps the sign (0xff for a negative NaN).
 *               This is a transcription of __nv_cvt_double_to_fp8 in
 *               cuda_fp8.hpp, which the device's cvt.rn.satfinite.e4m3x2.f32
 *               matches for every finite input.
 *   tf32        round to nearest even to 10 stored mantissa bits (see
 *               gbsim_tf32_round for why).
 *
 * Plain C11, no CUDA headers beyond sim.h: the fake runtime, cuBLASLt and
 * the twins all link it.
 */
#include "tests/sim/sim.h"

#include <math.h>
#include <string.h>

static uint32_t bits_of_float(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float float_of_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint64_t bits_of_double(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

/*
 * x rounded to float "to odd": the float next to x towards zero, with its
 * last mantissa bit set when x was not exact. A later round-to-nearest to a
 * format with at most 22 significand bits then rounds as if from x itself.
 */
static float float_round_to_odd(double x)
{
	float f = (float)x;
	uint32_t u;

	if (isnan(x) || (double)f == x)
		return f;
	u = bits_of_float(f);
	/* (float)x rounded away from zero: step back one unit towards zero */
	if (fabs((double)f) > fabs(x))
		u--;
	return float_of_bits(u | 1u);
}

/* ---------------------------------------------------------------- f16 */

/*
 * F16C's vcvtps2ph with round-to-nearest-even is IEEE binary16 conversion,
 * bit for bit what the code below computes for every float but NaN (it keeps
 * a NaN's payload, the device makes it canonical): the fill and cuBLASLt
 * twins convert millions of elements, and the instruction is much cheaper.
 * The two paths were compared on all 2^32 floats (every non-NaN equal);
 * tests/sim/test_sim_float.c pins the soft path's cases through this one.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("f16c"))) static uint16_t f16_from_float_f16c(float x)
{
	return (uint16_t)_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* libgcc fills in the CPU's features before any of our code runs: this is one load */
static bool have_f16c(void)
{
	return __builtin_cpu_supports("f16c");
}
#define GBSIM_F16C(x) (have_f16c() && !isnan(x))
#else
#define GBSIM_F16C(x) false
#define f16_from_float_f16c(x) 0
#endif

/* the conversion without F16C; gbsim_f16_from_float picks the instruction when it can */
static uint16_t f16_from_float_soft(float x)
{
	uint32_t u = bits_of_float(x) & 0x7fffffffu;
	uint32_t sign = (bits_of_float(x) >> 16) & 0x8000u;
	uint32_t result, remainder;

	if (u >= 0x7f800000u)          /* infinity keeps its sign, NaN is canonical */
		return (uint16_t)(u == 0x7f800000u ? (sign | 0x7c00u) : 0x7fffu);
	if (u > 0x477fefffu) {         /* at or beyond 65520: rounds to infinity */
		return (uint16_t)(sign | 0x7c00u);
	} else if (u >= 0x38800000u) { /* normal in half */
		remainder = u << 19;
		result = sign | ((u - 0x38000000u) >> 13);
	} else if (u < 0x33000001u) {  /* at most 2^-25: rounds to zero */
		return (uint16_t)sign;
	} else {                       /* subnormal in half */
		uint32_t shift = 0x7eu - (u >> 23);
		uint32_t mantissa = (u & 0x7fffffu) | 0x800000u;

		remainder = mantissa << (32u - shift);
		result = sign | (mantissa >> shift);
	}
	/* remainder holds the cut-off bits, the half-way point at bit 31 */
	if (remainder > 0x80000000u || (remainder == 0x80000000u && (result & 1u)))
		result++;
	return (uint16_t)result;
}

uint16_t gbsim_f16_from_float(float x)
{
	if (GBSIM_F16C(x))
		return f16_from_float_f16c(x);
	return f16_from_float_soft(x);
}

uint16_t gbsim_f16_from_double(double x)
{
	return gbsim_f16_from_float(float_round_to_odd(x));
}

float gbsim_f16_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;

	if (exp == 0x1f)   /* infinity, or NaN with its payload kept */
		return float_of_bits(sign | 0x7f800000u | (man << 13));
	if (exp == 0) {    /* zero or subnormal: man * 2^-24, exact in float */
		float v = (float)man * 0x1p-24f;

		return sign ? -v : v;
	}
	return float_of_bits(sign | ((exp + 112u) << 23) | (man << 13));
}

/* ---------------------------------------------------------------- bf16 */

uint16_t gbsim_bf16_from_float(float x)
{
	uint32_t u = bits_of_float(x);
	uint32_t result = u >> 16, remainder = u << 16;

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return 0x7fffu;
	/* a carry out of the mantissa steps the exponent, up to infinity: as RNE wants */
	if (remainder > 0x80000000u || (remainder == 0x80000000u && (result & 1u)))
		result++;
	return (uint16_t)result;
}

uint16_t gbsim_bf16_from_double(double x)
{
	return gbsim_bf16_from_float(float_round_to_odd(x));
}

float gbsim_bf16_to_float(uint16_t h)
{
	return float_of_bits((uint32_t)h << 16);
}

/* ---------------------------------------------------------------- e4m3 */

/* e4m3: 4 exponent bits (bias 7), 3 mantissa bits, no infinity, NaN = S.1111.111 */
#define E4M3_MAXNORM 0x7eu                          /* 448 */
#define E4M3_NAN 0x7fu
#define DP_INF_BITS 0x7ff0000000000000ull
#define E4M3_MINDENORM_O2 0x3f50000000000000ull     /* 2^-10, half the smallest subnormal */
#define E4M3_OVERFLOW_THRESHOLD 0x407d000000000000ull /* 448 + half an ulp = 464 */
#define E4M3_MINNORM 0x3f90000000000000ull          /* 2^-6 */
#define E4M3_HALF_ULP (1ull << (53 - 4 - 1))        /* half an e4m3 ulp in a double's mantissa */

/* the finite, in-range, non-zero case of __nv_cvt_double_to_fp8 (E4M3) */
static uint8_t e4m3_round(uint64_t xbits)
{
	/* the exponent rebiased, wrapping below zero as the header's unsigned char does */
	uint8_t exp = (uint8_t)((((unsigned)(xbits >> 52)) & 0x7ffu) - 1023u + 7u);
	uint8_t mantissa = (uint8_t)((xbits >> (53 - 4)) & 0x7u);
	uint8_t res, shift;
	uint64_t round;

	if ((xbits & 0x7fffffffffffffffull) >= E4M3_MINNORM) {
		res = (uint8_t)((exp << 3) | mantissa);
		round = xbits & ((E4M3_HALF_ULP << 1) - 1);
		if (round > E4M3_HALF_ULP || (round == E4M3_HALF_ULP && (mantissa & 1u)))
			res++;
		return res;
	}
	/* subnormal: shift the mantissa with its hidden bit right by 1 - exp */
	shift = (uint8_t)(1u - exp);
	mantissa = (uint8_t)(mantissa | (1u << 3));
	res = (uint8_t)(mantissa >> shift);
	round = (xbits | (1ull << 52)) & ((E4M3_HALF_ULP << (shift + 1)) - 1);
	if (round > (E4M3_HALF_ULP << shift) || (round == (E4M3_HALF_ULP << shift) && (res & 1u)))
		res++;
	return res;
}

uint8_t gbsim_e4m3_from_double(double x)
{
	uint64_t xbits = bits_of_double(x);
	uint64_t absx = xbits & 0x7fffffffffffffffull;
	uint8_t sign = (uint8_t)((xbits >> 63) << 7);
	uint8_t res;

	if (absx <= E4M3_MINDENORM_O2)
		res = 0;
	else if (absx > DP_INF_BITS)
		res = E4M3_NAN;
	else if (absx > E4M3_OVERFLOW_THRESHOLD)
		res = E4M3_MAXNORM; /* __NV_SATFINITE, infinity included */
	else
		res = e4m3_round(xbits);
	return (uint8_t)(res | sign);
}

uint8_t gbsim_e4m3_from_float(float x)
{
	/* the header makes every NaN the positive canonical one before widening */
	if (isnan(x))
		return E4M3_NAN;
	return gbsim_e4m3_from_double((double)x);
}

float gbsim_e4m3_to_float(uint8_t v)
{
	unsigned exp = (v >> 3) & 0xfu, man = v & 0x7u;
	float mag;

	if ((v & 0x7fu) == E4M3_NAN)
		return NAN;
	if (exp == 0)
		mag = (float)man * 0x1p-9f;                    /* subnormal: man/8 * 2^-6 */
	else
		mag = ldexpf(1.0f + (float)man / 8.0f, (int)exp - 7);
	return (v & 0x80u) ? -mag : mag;
}

/* ---------------------------------------------------------------- tf32 */

/*
 * TF32 keeps float's 8 exponent bits and 10 of its 23 mantissa bits. How
 * cuBLASLt's CUBLAS_COMPUTE_32F_FAST_TF32 kernels reduce FP32 inputs is not
 * documented (PTX offers cvt.rna.tf32.f32, ties away from zero, and on
 * sm_90 cvt.rn.tf32.f32, ties to even; raw FP32 bits fed to mma ignore the
 * low 13). We choose round to nearest, ties to even: it differs from
 * ties-away only at exact ties and from truncation by at most one TF32 unit,
 * all inside the 2^-10 input roundoff gb_gemm_error_model allows for TF32.
 * Infinity and NaN pass through; a value past the largest TF32 rounds to
 * infinity, as a round-to-nearest conversion does.
 */
float gbsim_tf32_round(float x)
{
	uint32_t u = bits_of_float(x);
	uint32_t low = u & 0x1fffu, half = 0x1000u;

	if ((u & 0x7f800000u) == 0x7f800000u)
		return x;
	u &= ~0x1fffu;
	if (low > half || (low == half && (u & 0x2000u)))
		u += 0x2000u; /* a carry into the exponent is the correct rounding */
	return float_of_bits(u);
}
