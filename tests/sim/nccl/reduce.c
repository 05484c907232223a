/* SPDX-License-Identifier: MIT */
/*
 * reduce.c - the element arithmetic of the simulated NCCL.
 *
 * Order: the reduction of element i runs over ranks 0, 1, ..., n-1 in that
 * fixed order, each step rounded to the type, so a run is reproducible.
 * Real NCCL's ring reduces in ring order starting at a rank that depends on
 * the chunk, so sums of floats may differ in the last bits; the product's
 * verification allows for that (bench/nccl/nccl_math.h, gb_nccl_tolerance).
 *
 * Per type, as NCCL's device code does it:
 *   float, double     in the type
 *   half, bfloat16    each step in float, rounded back to the type
 *   integers          in the type, wrapping (max/min signed for signed types)
 *   avg               floats: every input pre-multiplied by 1/n (rounded to
 *                     the type), then summed; integers: summed, then divided
 *   max, min          a > b ? a : b; NaN handling is not modelled
 * The fp8 types are not simulated: gbn_type_size returns 0 and the call fails.
 */
#include "nccl_sim.h"

#include <string.h>

size_t gbn_type_size(ncclDataType_t t)
{
	switch (t) {
	case ncclInt8:
	case ncclUint8:
		return 1;
	case ncclFloat16:
	case ncclBfloat16:
		return 2;
	case ncclInt32:
	case ncclUint32:
	case ncclFloat32:
		return 4;
	case ncclInt64:
	case ncclUint64:
	case ncclFloat64:
		return 8;
	default:
		return 0;
	}
}

const char *gbn_type_name(ncclDataType_t t)
{
	static const char *const names[] = { "int8",  "uint8",	"int32", "uint32",
					     "int64", "uint64", "half",	 "float",
					     "double", "bfloat16", "fp8e4m3", "fp8e5m2" };

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "unknown type";
}

const char *gbn_op_name(ncclRedOp_t op)
{
	static const char *const names[] = { "sum", "prod", "max", "min", "avg" };

	return (unsigned)op < sizeof(names) / sizeof(names[0]) ? names[op] : "unknown operator";
}

/* ---- floating point: every value travels as double, rounded to the type ---- */

static double load_f(ncclDataType_t t, const void *p, size_t i)
{
	switch (t) {
	case ncclFloat16:
		return gbsim_f16_to_float(((const uint16_t *)p)[i]);
	case ncclBfloat16:
		return gbsim_bf16_to_float(((const uint16_t *)p)[i]);
	case ncclFloat32:
		return ((const float *)p)[i];
	default:
		return ((const double *)p)[i];
	}
}

static void store_f(ncclDataType_t t, void *p, size_t i, double v)
{
	switch (t) {
	case ncclFloat16:
		((uint16_t *)p)[i] = gbsim_f16_from_float((float)v);
		break;
	case ncclBfloat16:
		((uint16_t *)p)[i] = gbsim_bf16_from_float((float)v);
		break;
	case ncclFloat32:
		((float *)p)[i] = (float)v;
		break;
	default:
		((double *)p)[i] = v;
		break;
	}
}

/* v rounded to the precision one step of t is computed in (float for the 16-bit types) */
static double round_to(ncclDataType_t t, double v)
{
	switch (t) {
	case ncclFloat16:
		return gbsim_f16_to_float(gbsim_f16_from_float((float)v));
	case ncclBfloat16:
		return gbsim_bf16_to_float(gbsim_bf16_from_float((float)v));
	case ncclFloat32:
		return (float)v;
	default:
		return v;
	}
}

/* one step of op in t: computed in float for float/half/bf16 (as the device does), then rounded */
static double step_f(ncclDataType_t t, ncclRedOp_t op, double a, double b)
{
	double r;

	if (t == ncclFloat64) {
		switch (op) {
		case ncclProd:
			return a * b;
		case ncclMax:
			return a > b ? a : b;
		case ncclMin:
			return a < b ? a : b;
		default:
			return a + b;
		}
	}
	switch (op) {
	case ncclProd:
		r = (float)a * (float)b;
		break;
	case ncclMax:
		r = a > b ? a : b;
		break;
	case ncclMin:
		r = a < b ? a : b;
		break;
	default:
		r = (float)a + (float)b;
		break;
	}
	return round_to(t, r);
}

static void reduce_f(ncclDataType_t t, ncclRedOp_t op, int n, const void *const *src, size_t off,
		     void *dst, size_t count)
{
	double scale = round_to(t, 1.0 / n);

	for (size_t i = 0; i < count; i++) {
		double acc = load_f(t, src[0], off + i);

		if (op == ncclAvg)
			acc = round_to(t, acc * scale);
		for (int r = 1; r < n; r++) {
			double v = load_f(t, src[r], off + i);

			if (op == ncclAvg)
				v = round_to(t, v * scale);
			acc = step_f(t, op, acc, v);
		}
		store_f(t, dst, i, acc);
	}
}

/* ---- integers: sign- or zero-extended to 64 bits, wrapped back on store ---- */

static bool type_signed(ncclDataType_t t)
{
	return t == ncclInt8 || t == ncclInt32 || t == ncclInt64;
}

static uint64_t load_u(ncclDataType_t t, const void *p, size_t i)
{
	switch (t) {
	case ncclInt8:
		return (uint64_t)(int64_t)((const int8_t *)p)[i];
	case ncclUint8:
		return ((const uint8_t *)p)[i];
	case ncclInt32:
		return (uint64_t)(int64_t)((const int32_t *)p)[i];
	case ncclUint32:
		return ((const uint32_t *)p)[i];
	default:
		return ((const uint64_t *)p)[i];
	}
}

static void store_u(ncclDataType_t t, void *p, size_t i, uint64_t v)
{
	switch (t) {
	case ncclInt8:
	case ncclUint8:
		((uint8_t *)p)[i] = (uint8_t)v;
		break;
	case ncclInt32:
	case ncclUint32:
		((uint32_t *)p)[i] = (uint32_t)v;
		break;
	default:
		((uint64_t *)p)[i] = v;
		break;
	}
}

/* v as the type holds it, extended again: the wrap of one step in the type */
static uint64_t wrap_u(ncclDataType_t t, uint64_t v)
{
	uint64_t out = 0;

	store_u(t, &out, 0, v);
	return load_u(t, &out, 0);
}

static bool less_u(ncclDataType_t t, uint64_t a, uint64_t b)
{
	return type_signed(t) ? (int64_t)a < (int64_t)b : a < b;
}

static uint64_t step_u(ncclDataType_t t, ncclRedOp_t op, uint64_t a, uint64_t b)
{
	switch (op) {
	case ncclProd:
		return wrap_u(t, a * b);
	case ncclMax:
		return less_u(t, a, b) ? b : a;
	case ncclMin:
		return less_u(t, b, a) ? b : a;
	default: /* sum, and avg's sum */
		return wrap_u(t, a + b);
	}
}

static uint64_t divide_u(ncclDataType_t t, uint64_t sum, int n)
{
	if (type_signed(t))
		return (uint64_t)((int64_t)sum / n);
	return sum / (uint64_t)n;
}

static void reduce_u(ncclDataType_t t, ncclRedOp_t op, int n, const void *const *src, size_t off,
		     void *dst, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		uint64_t acc = load_u(t, src[0], off + i);

		for (int r = 1; r < n; r++)
			acc = step_u(t, op, acc, load_u(t, src[r], off + i));
		if (op == ncclAvg)
			acc = divide_u(t, acc, n);
		store_u(t, dst, i, acc);
	}
}

/*
 * The same arithmetic, one tight loop per native type and operator: a
 * collective of a few hundred MiB would otherwise spend most of its
 * wall-clock time in the per-element dispatch above. Integers step in
 * their unsigned twin (wrapping, as the device does), compare as their
 * own type; floats step in the type. reduce_f/reduce_u stay the reference
 * for half and bfloat16, which have no native C type.
 */
#define GBN_LOOP(T, STEP)                                                                          \
	for (size_t i = 0; i < count; i++) {                                                       \
		T acc = ((const T *)src[0])[off + i];                                              \
		for (int r = 1; r < n; r++) {                                                      \
			T v = ((const T *)src[r])[off + i];                                        \
			acc = STEP;                                                                \
		}                                                                                  \
		((T *)dst)[i] = acc;                                                               \
	}

#define GBN_NATIVE_INT(NAME, T, U)                                                                 \
	static void NAME(ncclRedOp_t op, int n, const void *const *src, size_t off, void *dst,     \
			 size_t count)                                                             \
	{                                                                                          \
		switch (op) {                                                                      \
		case ncclProd:                                                                     \
			GBN_LOOP(T, (T)(U)((U)acc * (U)v))                                         \
			break;                                                                     \
		case ncclMax:                                                                      \
			GBN_LOOP(T, v > acc ? v : acc)                                             \
			break;                                                                     \
		case ncclMin:                                                                      \
			GBN_LOOP(T, v < acc ? v : acc)                                             \
			break;                                                                     \
		default: /* sum; avg divides after */                                              \
			GBN_LOOP(T, (T)(U)((U)acc + (U)v))                                         \
			if (op == ncclAvg)                                                         \
				for (size_t i = 0; i < count; i++)                                 \
					((T *)dst)[i] = (T)(((T *)dst)[i] / (T)n);                 \
			break;                                                                     \
		}                                                                                  \
	}

#define GBN_NATIVE_FLOAT(NAME, T)                                                                  \
	static void NAME(ncclRedOp_t op, int n, const void *const *src, size_t off, void *dst,     \
			 size_t count)                                                             \
	{                                                                                          \
		T scale = (T)1 / (T)n;                                                             \
                                                                                                   \
		switch (op) {                                                                      \
		case ncclProd:                                                                     \
			GBN_LOOP(T, acc * v)                                                       \
			break;                                                                     \
		case ncclMax:                                                                      \
			GBN_LOOP(T, acc > v ? acc : v)                                             \
			break;                                                                     \
		case ncclMin:                                                                      \
			GBN_LOOP(T, acc < v ? acc : v)                                             \
			break;                                                                     \
		case ncclAvg: /* every input pre-multiplied by 1/n, then summed */                 \
			for (size_t i = 0; i < count; i++) {                                       \
				T acc = ((const T *)src[0])[off + i] * scale;                      \
				for (int r = 1; r < n; r++)                                        \
					acc = acc + ((const T *)src[r])[off + i] * scale;          \
				((T *)dst)[i] = acc;                                               \
			}                                                                          \
			break;                                                                     \
		default:                                                                           \
			GBN_LOOP(T, acc + v)                                                       \
			break;                                                                     \
		}                                                                                  \
	}

GBN_NATIVE_INT(reduce_i8, int8_t, uint8_t)
GBN_NATIVE_INT(reduce_u8, uint8_t, uint8_t)
GBN_NATIVE_INT(reduce_i32, int32_t, uint32_t)
GBN_NATIVE_INT(reduce_u32, uint32_t, uint32_t)
GBN_NATIVE_INT(reduce_i64, int64_t, uint64_t)
GBN_NATIVE_INT(reduce_u64, uint64_t, uint64_t)
GBN_NATIVE_FLOAT(reduce_f32, float)
GBN_NATIVE_FLOAT(reduce_f64, double)

typedef void native_fn(ncclRedOp_t op, int n, const void *const *src, size_t off, void *dst,
		       size_t count);

void gbn_reduce(ncclDataType_t t, ncclRedOp_t op, int n, const void *const *src, size_t off,
		void *dst, size_t count)
{
	static native_fn *const native[] = {
		[ncclInt8] = reduce_i8,	  [ncclUint8] = reduce_u8,   [ncclInt32] = reduce_i32,
		[ncclUint32] = reduce_u32, [ncclInt64] = reduce_i64, [ncclUint64] = reduce_u64,
		[ncclFloat32] = reduce_f32, [ncclFloat64] = reduce_f64,
	};

	if ((unsigned)t < sizeof(native) / sizeof(native[0]) && native[t])
		native[t](op, n, src, off, dst, count);
	else if (t == ncclFloat16 || t == ncclBfloat16)
		reduce_f(t, op, n, src, off, dst, count);
	else
		reduce_u(t, op, n, src, off, dst, count);
}
