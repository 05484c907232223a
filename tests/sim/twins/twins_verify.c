/* SPDX-License-Identifier: MIT */
/*
 * twins_verify.c - CPU twins of kernels/verify.cu: the FP64 reference dot
 * products of sampled GEMM outputs, and their comparison with the GEMM's D.
 *
 * The reference adds in the kernel's order, so it holds the same bits: lane
 * j of a sample's warp sums the products of l = j, j + 32, j + 64, ... in
 * turn, then the shuffle tree adds lane j + 16 into lane j, then j + 8, 4,
 * 2 and 1 (warp_sum). Every product is rounded to double before it is
 * added (the kernel's PTX has mul.f64 then add.f64: the product is also
 * used by fabs, so nvcc does not fuse it); products of FP32 and narrower
 * inputs are exact in double anyway. The comparison uses the kernel's own
 * formula (kernels/verify_hd.h). Neither kernel has a grid-stride loop, so
 * only the samples the grid covers are computed, as on a GPU.
 */
#include "tests/sim/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gemm.h"
#include "kernels/verify_hd.h"

#define WARP 32

/* ---------------------------------------------------------------- element types */

/* one storage type: its size and its exact widening to double (gb_to_double) */
struct elem_type {
	const char *name;          /* for messages */
	size_t size;
	double (*to_double)(const void *p, size_t i);
	double floor_abs;          /* GB_VERIFY_FLOOR_* of verify_hd.h, as the kernel's */
};

static double f64_at(const void *p, size_t i)
{
	return ((const double *)p)[i];
}

static double f32_at(const void *p, size_t i)
{
	return ((const float *)p)[i];
}

static double f16_at(const void *p, size_t i)
{
	return gbsim_f16_to_float(((const uint16_t *)p)[i]);
}

static double bf16_at(const void *p, size_t i)
{
	return gbsim_bf16_to_float(((const uint16_t *)p)[i]);
}

static double e4m3_at(const void *p, size_t i)
{
	return gbsim_e4m3_to_float(((const uint8_t *)p)[i]);
}

static double i8_at(const void *p, size_t i)
{
	return ((const int8_t *)p)[i];
}

static double i32_at(const void *p, size_t i)
{
	return ((const int32_t *)p)[i];
}

static const struct elem_type t_f64 = { "double", 8, f64_at, 0 };
static const struct elem_type t_f32 = { "float", 4, f32_at, GB_VERIFY_FLOOR_F32 };
static const struct elem_type t_f16 = { "__half", 2, f16_at, GB_VERIFY_FLOOR_F16 };
static const struct elem_type t_bf16 = { "__nv_bfloat16", 2, bf16_at, GB_VERIFY_FLOOR_BF16 };
static const struct elem_type t_e4m3 = { "__nv_fp8_e4m3", 1, e4m3_at, GB_VERIFY_FLOOR_E4M3 };
static const struct elem_type t_i8 = { "signed char", 1, i8_at, 0 };
static const struct elem_type t_i32 = { "int", 4, i32_at, 0 };

/* threads of the launch along x: both kernels index with x only */
static size_t grid_threads(const struct gbsim_launch *l)
{
	return (size_t)l->grid.x * l->block.x;
}

/* ---------------------------------------------------------------- reference */

/* x[0..k) widened to double, exactly (gb_to_double) */
static void widen(const struct elem_type *t, const void *x, uint64_t k, double *out)
{
	for (uint64_t l = 0; l < k; l++)
		out[l] = t->to_double(x, l);
}

/* the sample's dot products in the kernel's order: per-lane sums, then the shuffle tree */
static void reference_sample(const double *a, const double *b, uint64_t k, double *sum_out,
			     double *sum_abs_out)
{
	double sum[WARP] = { 0 }, sum_abs[WARP] = { 0 };

	/* lane l % 32 takes term l: each lane still adds its terms in increasing l */
	for (uint64_t l = 0; l < k; l++) {
		/* volatile: a compiler allowed to fuse would turn this into an FMA */
		volatile double p = a[l] * b[l];

		sum[l % WARP] += p;
		sum_abs[l % WARP] += fabs(p);
	}
	/* __shfl_down_sync tree: lane j adds lane j + off; only lane 0's total is kept */
	for (unsigned off = WARP / 2; off > 0; off /= 2) {
		for (unsigned j = 0; j < off; j++) {
			sum[j] += sum[j + off];
			sum_abs[j] += sum_abs[j + off];
		}
	}
	*sum_out = sum[0];
	*sum_abs_out = sum_abs[0];
}

/*
 * reference_kernel<T>(const T *a, const T *b, uint64_t k, const uint32_t *rc, size_t n,
 *                     double *ref, double *scale)
 * One warp per sample: warp w of the grid computes sample w, if w < n.
 */
static cudaError_t reference(const struct gbsim_launch *l, struct gbsim_cost *cost,
			     const struct elem_type *t)
{
	const char *a = *(const char **)l->args[0], *b = *(const char **)l->args[1];
	uint64_t k = *(uint64_t *)l->args[2];
	const uint32_t *rc = *(const uint32_t **)l->args[3];
	size_t n = *(size_t *)l->args[4];
	double *ref = *(double **)l->args[5], *scale = *(double **)l->args[6];
	size_t warps = grid_threads(l) / WARP, samples = n < warps ? n : warps;
	double *wa, *wb;
	cudaError_t e;

	if (l->block.x % WARP) {
		/* a warp would span two blocks: its shuffles mix lanes the twin cannot model */
		gbsim_log("reference_kernel<%s> needs whole warps per block, got %u threads",
			  t->name, l->block.x);
		return cudaErrorLaunchFailure;
	}
	if (!samples)
		return cudaSuccess;
	if ((e = gbsim_check_access(l->device, rc, 2 * samples * sizeof(*rc),
				    "reference_kernel arg rc")) ||
	    (e = gbsim_check_access(l->device, ref, samples * sizeof(*ref),
				    "reference_kernel arg ref")) ||
	    (e = gbsim_check_access(l->device, scale, samples * sizeof(*scale),
				    "reference_kernel arg scale")))
		return e;
	if (!(wa = malloc(2 * k * sizeof(double)))) {
		gbsim_log("reference_kernel<%s>: out of host memory for k = %llu", t->name,
			  (unsigned long long)k);
		return cudaErrorMemoryAllocation;
	}
	wb = wa + k;
	for (size_t w = 0; w < samples; w++) {
		const char *col_a = a + (uint64_t)rc[2 * w] * k * t->size;
		const char *col_b = b + (uint64_t)rc[2 * w + 1] * k * t->size;
		double sum, sum_abs;

		if ((e = gbsim_check_access(l->device, col_a, k * t->size,
					    "reference_kernel arg a")) ||
		    (e = gbsim_check_access(l->device, col_b, k * t->size,
					    "reference_kernel arg b")))
			break;
		widen(t, col_a, k, wa);
		widen(t, col_b, k, wb);
		reference_sample(wa, wb, k, &sum, &sum_abs);
		ref[w] = sum;
		scale[w] = sum_abs / sqrt((double)k);
	}
	free(wa);
	if (e != cudaSuccess)
		return e;
	/* a multiply and two adds in FP64 per term; two columns read, two doubles written */
	cost->flops = 3.0 * (double)samples * (double)k;
	cost->prec = GBSIM_FP64;
	cost->bytes = (double)samples * (2.0 * (double)k * (double)t->size + 2 * sizeof(*rc) +
					 sizeof(*ref) + sizeof(*scale));
	return cudaSuccess;
}

/* ---------------------------------------------------------------- compare */

/* what one thread of compare_kernel finds; the kernel counts these with ballots */
static void compare_one(struct gb_verify_counters *c, size_t i, double got, double r, double s,
			double bound, double floor_abs)
{
	bool bad;

	if (isnan(got) || isnan(r)) {
		c->nans++;
		bad = true;
	} else {
		double err = gb_verify_err(got, r, s, floor_abs);
		unsigned long long bits;

		bad = err > bound;
		/* atomicMax on the bits: non-negative doubles order like their bit patterns */
		memcpy(&bits, &err, sizeof(bits));
		if (bits > c->max_err_bits)
			c->max_err_bits = bits;
	}
	c->checked++;
	if (bad) {
		c->mismatches++;
		if (~(unsigned long long)i > c->first_bad_inv)
			c->first_bad_inv = ~(unsigned long long)i;
	}
}

/*
 * compare_kernel<T>(const T *d, uint64_t ldd, const uint32_t *rc, size_t n, const double *ref,
 *                   const double *scale, double bound, double *got_out, gb_verify_counters *c)
 * Thread i of the grid compares sample i, if i < n.
 */
static cudaError_t compare(const struct gbsim_launch *l, struct gbsim_cost *cost,
			   const struct elem_type *t)
{
	const char *d = *(const char **)l->args[0];
	uint64_t ldd = *(uint64_t *)l->args[1];
	const uint32_t *rc = *(const uint32_t **)l->args[2];
	size_t n = *(size_t *)l->args[3];
	const double *ref = *(const double **)l->args[4], *scale = *(const double **)l->args[5];
	double bound = *(double *)l->args[6];
	double *got_out = *(double **)l->args[7];
	struct gb_verify_counters *c = *(struct gb_verify_counters **)l->args[8];
	size_t threads = grid_threads(l), samples = n < threads ? n : threads;
	cudaError_t e;

	if (!samples)
		return cudaSuccess;
	if ((e = gbsim_check_access(l->device, rc, 2 * samples * sizeof(*rc),
				    "compare_kernel arg rc")) ||
	    (e = gbsim_check_access(l->device, ref, samples * sizeof(*ref),
				    "compare_kernel arg ref")) ||
	    (e = gbsim_check_access(l->device, scale, samples * sizeof(*scale),
				    "compare_kernel arg scale")) ||
	    (e = gbsim_check_access(l->device, got_out, samples * sizeof(*got_out),
				    "compare_kernel arg got")) ||
	    (e = gbsim_check_access(l->device, c, sizeof(*c), "compare_kernel arg counters")))
		return e;
	for (size_t i = 0; i < samples; i++) {
		const char *elem = d + (rc[2 * i] + (uint64_t)rc[2 * i + 1] * ldd) * t->size;
		double got;

		if ((e = gbsim_check_access(l->device, elem, t->size, "compare_kernel arg d")))
			return e;
		got = t->to_double(elem, 0);
		got_out[i] = got;
		compare_one(c, i, got, ref[i], scale[i], bound, t->floor_abs);
	}
	/* one element of D (a 32-byte sector), rc, ref, scale and got per sample */
	cost->bytes = (double)samples * (32.0 + 2 * sizeof(*rc) + 3 * sizeof(double));
	return cudaSuccess;
}

/* ---------------------------------------------------------------- the table */

#define VERIFY_TWINS(tag, var)                                                             \
	static cudaError_t reference_##tag(const struct gbsim_launch *l,                   \
					   struct gbsim_cost *cost)                        \
	{                                                                                  \
		return reference(l, cost, &var);                                           \
	}                                                                                  \
	static cudaError_t compare_##tag(const struct gbsim_launch *l, struct gbsim_cost *cost) \
	{                                                                                  \
		return compare(l, cost, &var);                                             \
	}

VERIFY_TWINS(f64, t_f64)
VERIFY_TWINS(f32, t_f32)
VERIFY_TWINS(f16, t_f16)
VERIFY_TWINS(bf16, t_bf16)
VERIFY_TWINS(e4m3, t_e4m3)
VERIFY_TWINS(i8, t_i8)
VERIFY_TWINS(i32, t_i32)

#define REFERENCE_NAME(t)                                                                  \
	"void reference_kernel<" t ">(" t " const*, " t " const*, unsigned long, "          \
	"unsigned int const*, unsigned long, double*, double*)"
#define COMPARE_NAME(t)                                                                    \
	"void compare_kernel<" t ">(" t " const*, unsigned long, unsigned int const*, "     \
	"unsigned long, double const*, double const*, double, double*, gb_verify_counters*)"

const struct gbsim_twin gbsim_twins_verify[] = {
	{ REFERENCE_NAME("double"), reference_f64, false },
	{ REFERENCE_NAME("float"), reference_f32, false },
	{ REFERENCE_NAME("__half"), reference_f16, false },
	{ REFERENCE_NAME("__nv_bfloat16"), reference_bf16, false },
	{ REFERENCE_NAME("__nv_fp8_e4m3"), reference_e4m3, false },
	{ REFERENCE_NAME("signed char"), reference_i8, false },
	{ REFERENCE_NAME("int"), reference_i32, false },
	{ COMPARE_NAME("double"), compare_f64, false },
	{ COMPARE_NAME("float"), compare_f32, false },
	{ COMPARE_NAME("__half"), compare_f16, false },
	{ COMPARE_NAME("__nv_bfloat16"), compare_bf16, false },
	{ COMPARE_NAME("__nv_fp8_e4m3"), compare_e4m3, false },
	{ COMPARE_NAME("signed char"), compare_i8, false },
	{ COMPARE_NAME("int"), compare_i32, false },
	{ NULL, NULL, false },
};

/* reference_kernel's whole warps, at the launch (sim.h, struct gbsim_twin_check): not sticky */
static cudaError_t reference_launch_check(const struct gbsim_launch *l)
{
	if (l->block.x % WARP) {
		gbsim_log("%s needs whole warps per block, got %u threads", l->kernel, l->block.x);
		return cudaErrorInvalidConfiguration;
	}
	return cudaSuccess;
}

const struct gbsim_twin_check gbsim_twin_checks_verify[] = {
	{ reference_f64, reference_launch_check },
	{ reference_f32, reference_launch_check },
	{ reference_f16, reference_launch_check },
	{ reference_bf16, reference_launch_check },
	{ reference_e4m3, reference_launch_check },
	{ reference_i8, reference_launch_check },
	{ reference_i32, reference_launch_check },
	{ NULL, NULL },
};
