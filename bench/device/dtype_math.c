/* SPDX-License-Identifier: MIT */
/*
 * dtype_math.c - sizes, names, unit roundoffs and decoding of the element
 * types in kernels/dtype.h; see dtype_math.h. No CUDA: unit tested in
 * tests/bench/gemm/test_gemm_math.c.
 */
#include "bench/device/dtype_math.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct dtype_info {
	const char *name;
	size_t size;
	int significand_bits; /* including the hidden bit; 0 for integers */
};

static const struct dtype_info dtypes[GB_DT_COUNT] = {
	[GB_DT_F64] = { "f64", 8, 53 },
	[GB_DT_F32] = { "f32", 4, 24 },
	[GB_DT_F16] = { "f16", 2, 11 },
	[GB_DT_BF16] = { "bf16", 2, 8 },
	[GB_DT_E4M3] = { "e4m3", 1, 4 },
	[GB_DT_I8] = { "i8", 1, 0 },
	[GB_DT_I32] = { "i32", 4, 0 },
};

static bool dtype_valid(enum gb_dtype t)
{
	return (int)t >= 0 && t < GB_DT_COUNT;
}

size_t gb_dtype_size(enum gb_dtype t)
{
	return dtype_valid(t) ? dtypes[t].size : 0;
}

const char *gb_dtype_name(enum gb_dtype t)
{
	return dtype_valid(t) ? dtypes[t].name : "unknown";
}

double gb_dtype_unit_roundoff(enum gb_dtype t)
{
	if (!dtype_valid(t) || !dtypes[t].significand_bits)
		return 0;
	return ldexp(1.0, -dtypes[t].significand_bits);
}

static double half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f;
	double mant = h & 0x3ff, v;

	if (e == 0x1f)
		v = mant ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(mant, -24);
	else
		v = ldexp(mant + 1024, e - 25);
	return h & 0x8000 ? -v : v;
}

static double e4m3_to_double(uint8_t x)
{
	int e = (x >> 3) & 0xf;
	double mant = x & 7, v;

	if (e == 0xf && (x & 7) == 7)
		return NAN;  /* E4M3 has no infinity; S.1111.111 is NaN */
	if (e == 0)
		v = ldexp(mant, -9);
	else
		v = ldexp(mant + 8, e - 10);
	return x & 0x80 ? -v : v;
}

double gb_dtype_to_double(const void *elem, enum gb_dtype t)
{
	switch (t) {
	case GB_DT_F64: {
		double d;

		memcpy(&d, elem, sizeof(d));
		return d;
	}
	case GB_DT_F32: {
		float f;

		memcpy(&f, elem, sizeof(f));
		return f;
	}
	case GB_DT_F16: {
		uint16_t h;

		memcpy(&h, elem, sizeof(h));
		return half_to_double(h);
	}
	case GB_DT_BF16: {
		uint16_t h;
		uint32_t u;
		float f;

		memcpy(&h, elem, sizeof(h));
		u = (uint32_t)h << 16;
		memcpy(&f, &u, sizeof(f));
		return f;
	}
	case GB_DT_E4M3:
		return e4m3_to_double(*(const uint8_t *)elem);
	case GB_DT_I8:
		return *(const int8_t *)elem;
	case GB_DT_I32: {
		int32_t i;

		memcpy(&i, elem, sizeof(i));
		return i;
	}
	default:
		return NAN;
	}
}
