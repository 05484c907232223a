/* SPDX-License-Identifier: MIT */
/*
 * nccl_hd.h - what `gpubench nccl` can measure (collectives, NCCL's data
 * types, reduction operators) and its correctness pass: the predictable
 * input of every rank and the value every received element must have. One
 * definition, compiled for the device by kernels/nccl_check.cu and for the
 * CPU by bench/nccl/nccl_math.h's users (the unit tests, the report), so the
 * verify kernel and the tests cannot disagree about what "correct" means.
 *
 * Plain C11 and CUDA: enums and static inline functions only.
 */
#ifndef GPUBENCH_KERNELS_NCCL_HD_H
#define GPUBENCH_KERNELS_NCCL_HD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GB_NCCL_HD __host__ __device__
#else
#define GB_NCCL_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- what can be measured ---- */

enum gb_nccl_coll {
	GB_NCCL_ALLREDUCE = 0,
	GB_NCCL_ALLGATHER,
	GB_NCCL_REDUCESCATTER,
	GB_NCCL_BROADCAST,
	GB_NCCL_REDUCE,
	GB_NCCL_ALLTOALL,
	GB_NCCL_COLL_COUNT
};

/* NCCL's own type names (nccl-tests -d); fp8 is left out: its sums are not exact */
enum gb_nccl_dtype {
	GB_NCCL_INT8 = 0,
	GB_NCCL_UINT8,
	GB_NCCL_INT32,
	GB_NCCL_UINT32,
	GB_NCCL_INT64,
	GB_NCCL_UINT64,
	GB_NCCL_HALF,
	GB_NCCL_FLOAT,
	GB_NCCL_DOUBLE,
	GB_NCCL_BFLOAT16,
	GB_NCCL_DTYPE_COUNT
};

enum gb_nccl_redop {
	GB_NCCL_SUM = 0,
	GB_NCCL_PROD,
	GB_NCCL_MAX,
	GB_NCCL_MIN,
	GB_NCCL_AVG,
	GB_NCCL_REDOP_COUNT
};

/* ---- the correctness pass: predictable data and the expected result ---- */

/*
 * Input element i of rank r: pseudo-random small integers, 1..4 (1..2 for
 * prod), a pure function of (seed, rank, i). Small integers make every sum,
 * product, max and min exact in every type for the rank counts that matter
 * (sums up to 4n are exact in bfloat16 up to 64 ranks, in half up to 512),
 * so the check can demand bit-exact results; only avg divides and gets a
 * tolerance (gb_nccl_tolerance). Never zeros: those hide unwritten outputs.
 */
static inline GB_NCCL_HD uint64_t gb_nccl_hash(uint64_t seed, uint64_t rank, uint64_t i)
{
	uint64_t z = seed * 0xD1B54A32D192ED03ULL + rank * 0x9E3779B97F4A7C15ULL +
		     (i + 1) * 0xBF58476D1CE4E5B9ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static inline GB_NCCL_HD int gb_nccl_input(int redop, uint64_t seed, int rank, uint64_t i)
{
	uint64_t h = gb_nccl_hash(seed, (uint64_t)rank, i);

	return redop == GB_NCCL_PROD ? 1 + (int)(h & 1) : 1 + (int)(h & 3);
}

/* Everything a rank needs to know to predict its receive buffer. */
struct gb_nccl_expect {
	int coll;  /* enum gb_nccl_coll */
	int redop; /* enum gb_nccl_redop; ignored by collectives that do not reduce */
	int dtype; /* enum gb_nccl_dtype */
	int nranks;
	int rank; /* the rank whose receive buffer is checked */
	int root;
	uint64_t param_count;
	uint64_t seed;
};

static inline GB_NCCL_HD int gb_nccl_dtype_bits(int dtype)
{
	switch (dtype) {
	case GB_NCCL_INT8:
	case GB_NCCL_UINT8:
		return 8;
	case GB_NCCL_HALF:
	case GB_NCCL_BFLOAT16:
		return 16;
	case GB_NCCL_INT32:
	case GB_NCCL_UINT32:
	case GB_NCCL_FLOAT:
		return 32;
	default:
		return 64;
	}
}

static inline GB_NCCL_HD bool gb_nccl_dtype_float(int dtype)
{
	return dtype == GB_NCCL_HALF || dtype == GB_NCCL_FLOAT || dtype == GB_NCCL_DOUBLE ||
	       dtype == GB_NCCL_BFLOAT16;
}

static inline GB_NCCL_HD bool gb_nccl_dtype_signed(int dtype)
{
	return dtype == GB_NCCL_INT8 || dtype == GB_NCCL_INT32 || dtype == GB_NCCL_INT64;
}

/* The integer bits of v as a dtype of that width holds them (two's complement wrap). */
static inline GB_NCCL_HD uint64_t gb_nccl_wrap(int dtype, uint64_t v)
{
	int bits = gb_nccl_dtype_bits(dtype);

	return bits >= 64 ? v : v & ((1ULL << bits) - 1);
}

/* Integer avg: NCCL sums in the type, then divides (signed types as signed). */
static inline GB_NCCL_HD uint64_t gb_nccl_int_avg(int dtype, uint64_t wrapped_sum, int nranks)
{
	int bits = gb_nccl_dtype_bits(dtype);

	if (gb_nccl_dtype_signed(dtype)) {
		int64_t s = (int64_t)wrapped_sum;

		if (bits < 64 && (wrapped_sum >> (bits - 1)) & 1)
			s = (int64_t)(wrapped_sum | ~((1ULL << bits) - 1)); /* sign-extend */
		return gb_nccl_wrap(dtype, (uint64_t)(s / nranks));
	}
	return wrapped_sum / (uint64_t)nranks;
}

/*
 * Expected value of element i of e->rank's receive buffer (recv_count
 * elements; for reduce only the root's is defined). *f is the value for
 * floating-point types (exact before rounding to the type, except avg), *u
 * the bits for integer types, already wrapped to the type's width.
 */
static inline GB_NCCL_HD void gb_nccl_expected(const struct gb_nccl_expect *e, uint64_t i,
					       double *f, uint64_t *u)
{
	uint64_t pc = e->param_count ? e->param_count : 1, idx = i;
	int from = -1; /* a single source rank, or -1 for a reduction over all */
	double af;
	uint64_t au;

	switch (e->coll) {
	case GB_NCCL_BROADCAST:
		from = e->root;
		break;
	case GB_NCCL_REDUCESCATTER:
		idx = (uint64_t)e->rank * pc + i;
		break;
	case GB_NCCL_ALLGATHER:
		from = (int)(i / pc);
		idx = i % pc;
		break;
	case GB_NCCL_ALLTOALL:
		from = (int)(i / pc);
		idx = (uint64_t)e->rank * pc + i % pc;
		break;
	default: /* allreduce, reduce */
		break;
	}
	if (from >= 0) {
		int v = gb_nccl_input(GB_NCCL_SUM, e->seed, from, idx);

		*f = (double)v;
		*u = gb_nccl_wrap(e->dtype, (uint64_t)v);
		return;
	}
	af = gb_nccl_input(e->redop, e->seed, 0, idx);
	au = (uint64_t)af;
	for (int s = 1; s < e->nranks; s++) {
		int v = gb_nccl_input(e->redop, e->seed, s, idx);

		switch (e->redop) {
		case GB_NCCL_PROD:
			af *= v;
			au *= (uint64_t)v;
			break;
		case GB_NCCL_MAX:
			af = af > v ? af : v;
			au = au > (uint64_t)v ? au : (uint64_t)v;
			break;
		case GB_NCCL_MIN:
			af = af < v ? af : v;
			au = au < (uint64_t)v ? au : (uint64_t)v;
			break;
		default: /* sum, avg */
			af += v;
			au += (uint64_t)v;
			break;
		}
	}
	au = gb_nccl_wrap(e->dtype, au);
	if (e->redop == GB_NCCL_AVG) {
		af /= e->nranks;
		au = gb_nccl_int_avg(e->dtype, au, e->nranks);
	}
	*f = af;
	*u = au;
}

/* Significand bits (with the implicit one) of a floating-point type; 0 for integers. */
static inline GB_NCCL_HD int gb_nccl_dtype_precision(int dtype)
{
	switch (dtype) {
	case GB_NCCL_HALF:
		return 11;
	case GB_NCCL_BFLOAT16:
		return 8;
	case GB_NCCL_FLOAT:
		return 24;
	case GB_NCCL_DOUBLE:
		return 53;
	default:
		return 0;
	}
}

/*
 * Relative tolerance of a received floating-point element: 0 (bit-exact)
 * whenever the arithmetic is exact in the type, which is every case but avg
 * (a division, and NCCL pre-multiplies by 1/n in floating point) and sums
 * too large for the type's significand (more than 64 ranks in bfloat16).
 * Then 2 n ulp, the worst case of n roundings. Integers are always exact.
 */
static inline GB_NCCL_HD double gb_nccl_tolerance(int dtype, int coll, int redop, int nranks)
{
	int p = gb_nccl_dtype_precision(dtype);
	double eps, exact_limit;

	if (!p || coll == GB_NCCL_BROADCAST || coll == GB_NCCL_ALLGATHER ||
	    coll == GB_NCCL_ALLTOALL || redop == GB_NCCL_MAX || redop == GB_NCCL_MIN ||
	    redop == GB_NCCL_PROD)
		return 0.0;
	eps = 1.0 / (double)(1ULL << (p - 1));
	exact_limit = (double)(1ULL << p);
	if (redop == GB_NCCL_SUM && 4.0 * nranks <= exact_limit)
		return 0.0;
	return 2.0 * nranks * eps;
}

/* Whether a received floating-point value passes: NaN never does. */
static inline GB_NCCL_HD bool gb_nccl_value_ok(double got, double expected, double rel_tol)
{
	double d;

	if (got == expected)
		return true;
	d = got - expected;
	if (d < 0)
		d = -d;
	return rel_tol > 0 && d <= rel_tol * (expected < 0 ? -expected : expected);
}

#ifdef __cplusplus
}
#endif

#endif
