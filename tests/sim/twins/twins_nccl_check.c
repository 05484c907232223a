/* SPDX-License-Identifier: MIT */
/*
 * twins_nccl_check.c - CPU twins of the kernels of kernels/nccl_check.cu:
 * fill a send buffer with gb_nccl_input() and count the received elements
 * that are not gb_nccl_expected(), for each of NCCL's ten element types.
 *
 * The values come from the same inline code the kernels compile
 * (bench/nccl/nccl_math.h); the element conversions are those of the kernel's
 * elem<T>, with __float2half_rn and __float2bfloat16_rn done by
 * tests/sim/twins/sim_float.c. Both kernels stride over the whole grid, so
 * any grid covers every element; the verify kernel's count is a warp
 * reduction (gb_count_grid), so its twin accepts only 1-D blocks of whole
 * warps, as the launcher makes.
 */
#include "tests/sim/sim.h"

#include <stdint.h>
#include <string.h>

#include "bench/nccl/nccl_math.h"
#include "kernels/nccl.h"

#define ARG(l, i, type) (*(type *)(l)->args[i])

/* How elem<T> of nccl_check.cu stores, widens and compares one element type. */
struct elem_type {
	size_t size;
	bool is_float;
	/* elem<T>::from_int */
	void (*from_int)(void *buf, uint64_t j, int v);
	/* floating point: elem<T>::to_double and elem<T>::round */
	double (*to_double)(const void *buf, uint64_t j);
	double (*round)(double v);
	/* integers: elem<T>::bits, the element's bits zero-extended */
	uint64_t (*bits)(const void *buf, uint64_t j);
};

/* ---- integers: (T)v, compared as the unsigned type's bits ---- */

#define INT_ELEM(name, T, UT)                                                                      \
	static void from_int_##name(void *buf, uint64_t j, int v)                                  \
	{                                                                                          \
		((T *)buf)[j] = (T)v;                                                              \
	}                                                                                          \
	static uint64_t bits_##name(const void *buf, uint64_t j)                                   \
	{                                                                                          \
		return (uint64_t)(UT)((const T *)buf)[j];                                          \
	}                                                                                          \
	static const struct elem_type elem_##name = {sizeof(T), false, from_int_##name, NULL,      \
						     NULL, bits_##name};

INT_ELEM(i8, int8_t, uint8_t)
INT_ELEM(u8, uint8_t, uint8_t)
INT_ELEM(i32, int32_t, uint32_t)
INT_ELEM(u32, uint32_t, uint32_t)
INT_ELEM(i64, int64_t, uint64_t)
INT_ELEM(u64, uint64_t, uint64_t)

/* ---- float and double ---- */

static void from_int_f32(void *buf, uint64_t j, int v)
{
	((float *)buf)[j] = (float)v;
}

static double to_double_f32(const void *buf, uint64_t j)
{
	return ((const float *)buf)[j];
}

static double round_f32(double v)
{
	return (double)(float)v;
}

static void from_int_f64(void *buf, uint64_t j, int v)
{
	((double *)buf)[j] = v;
}

static double to_double_f64(const void *buf, uint64_t j)
{
	return ((const double *)buf)[j];
}

static double round_f64(double v)
{
	return v;
}

/* ---- __half and __nv_bfloat16: through float, as the kernel's intrinsics ---- */

static void from_int_f16(void *buf, uint64_t j, int v)
{
	((uint16_t *)buf)[j] = gbsim_f16_from_float((float)v);
}

static double to_double_f16(const void *buf, uint64_t j)
{
	return gbsim_f16_to_float(((const uint16_t *)buf)[j]);
}

static double round_f16(double v)
{
	return gbsim_f16_to_float(gbsim_f16_from_float((float)v));
}

static void from_int_bf16(void *buf, uint64_t j, int v)
{
	((uint16_t *)buf)[j] = gbsim_bf16_from_float((float)v);
}

static double to_double_bf16(const void *buf, uint64_t j)
{
	return gbsim_bf16_to_float(((const uint16_t *)buf)[j]);
}

static double round_bf16(double v)
{
	return gbsim_bf16_to_float(gbsim_bf16_from_float((float)v));
}

static const struct elem_type elem_f32 = {4, true, from_int_f32, to_double_f32, round_f32, NULL};
static const struct elem_type elem_f64 = {8, true, from_int_f64, to_double_f64, round_f64, NULL};
static const struct elem_type elem_f16 = {2, true, from_int_f16, to_double_f16, round_f16, NULL};
static const struct elem_type elem_bf16 = {2, true, from_int_bf16, to_double_bf16, round_bf16,
					   NULL};

/* ---- the kernels ---- */

static cudaError_t touch(const struct gbsim_launch *l, const void *p, uint64_t n, size_t size,
			 const char *what)
{
	if (!n)
		return cudaSuccess;
	if (n > SIZE_MAX / size) {
		gbsim_log("%s: %s spans %llu elements of %zu bytes, beyond any allocation",
			  l->kernel, what, (unsigned long long)n, size);
		return cudaErrorIllegalAddress;
	}
	return gbsim_check_access(l->device, p, (size_t)(n * size), what);
}

static void set_cost(struct gbsim_cost *cost, double bytes)
{
	cost->flops = 0;
	cost->prec = GBSIM_FP32;
	cost->bytes = bytes;
	cost->fixed_s = 0;
}

/*
 * fill_kernel<T>(T *buf, uint64_t count, int redop, uint64_t seed, int rank,
 * uint64_t first): buf[j] = from_int(gb_nccl_input(redop, seed, rank, first + j)).
 */
static cudaError_t fill_as(const struct gbsim_launch *l, struct gbsim_cost *cost,
			   const struct elem_type *t)
{
	void *buf = ARG(l, 0, void *);
	uint64_t count = ARG(l, 1, uint64_t), seed = ARG(l, 3, uint64_t);
	uint64_t first = ARG(l, 5, uint64_t);
	int redop = ARG(l, 2, int), rank = ARG(l, 4, int);
	cudaError_t e = touch(l, buf, count, t->size, "nccl fill_kernel buf");

	if (e != cudaSuccess)
		return e;
	for (uint64_t j = 0; j < count; j++)
		t->from_int(buf, j, gb_nccl_input(redop, seed, rank, first + j));
	set_cost(cost, (double)count * (double)t->size);
	return cudaSuccess;
}

/* element_ok<T>: the expected value rounded to the type, or the expected bits */
static bool element_ok(const struct elem_type *t, const void *buf, uint64_t j,
		       const struct gb_nccl_expect *x, uint64_t i, double tol)
{
	double f;
	uint64_t u;

	gb_nccl_expected(x, i, &f, &u);
	if (t->is_float)
		return gb_nccl_value_ok(t->to_double(buf, j), t->round(f), tol);
	return t->bits(buf, j) == u;
}

/*
 * verify_kernel<T>(const T *buf, uint64_t count, uint64_t first,
 * gb_nccl_expect e, double tol, unsigned long long *nwrong): add to *nwrong
 * the elements that are not the expected value (the GPU adds only a
 * non-zero warp total, so a clean buffer never touches nwrong).
 */
static cudaError_t verify_as(const struct gbsim_launch *l, struct gbsim_cost *cost,
			     const struct elem_type *t)
{
	const void *buf = ARG(l, 0, const void *);
	uint64_t count = ARG(l, 1, uint64_t), first = ARG(l, 2, uint64_t);
	struct gb_nccl_expect x = ARG(l, 3, struct gb_nccl_expect);
	double tol = ARG(l, 4, double);
	unsigned long long *nwrong = ARG(l, 5, unsigned long long *), wrong = 0;
	cudaError_t e;

	if (l->grid.y != 1 || l->grid.z != 1 || l->block.y != 1 || l->block.z != 1 ||
	    l->block.x == 0 || l->block.x % 32) {
		gbsim_log("twin of '%s' models only 1-D grids of 1-D blocks of whole warps, got "
			  "grid (%u,%u,%u) block (%u,%u,%u)",
			  l->kernel, l->grid.x, l->grid.y, l->grid.z, l->block.x, l->block.y,
			  l->block.z);
		return cudaErrorLaunchFailure;
	}
	if ((e = touch(l, buf, count, t->size, "nccl verify_kernel buf")) != cudaSuccess)
		return e;
	for (uint64_t j = 0; j < count; j++)
		wrong += !element_ok(t, buf, j, &x, first + j, tol);
	set_cost(cost, (double)count * (double)t->size);
	if (!wrong)
		return cudaSuccess;
	if ((e = touch(l, nwrong, 1, sizeof(*nwrong), "nccl verify_kernel nwrong")) != cudaSuccess)
		return e;
	*nwrong += wrong;
	return cudaSuccess;
}

#define NCCL_TWINS(name)                                                                           \
	static cudaError_t fill_##name(const struct gbsim_launch *l, struct gbsim_cost *c)         \
	{                                                                                          \
		return fill_as(l, c, &elem_##name);                                                \
	}                                                                                          \
	static cudaError_t verify_##name(const struct gbsim_launch *l, struct gbsim_cost *c)       \
	{                                                                                          \
		return verify_as(l, c, &elem_##name);                                              \
	}

NCCL_TWINS(i8)
NCCL_TWINS(u8)
NCCL_TWINS(i32)
NCCL_TWINS(u32)
NCCL_TWINS(i64)
NCCL_TWINS(u64)
NCCL_TWINS(f16)
NCCL_TWINS(f32)
NCCL_TWINS(f64)
NCCL_TWINS(bf16)

/* the names c++filt prints for the registered kernels of nccl_check.cu.o, T as spelt there */
#define NCCL_ENTRIES(T, name)                                                                      \
	{"void fill_kernel<" T ">(" T "*, unsigned long, int, unsigned long, int, "                \
	 "unsigned long)",                                                                         \
	 fill_##name, false},                                                                      \
		{"void verify_kernel<" T ">(" T " const*, unsigned long, unsigned long, "          \
		 "gb_nccl_expect, double, unsigned long long*)",                                   \
		 verify_##name, false}

const struct gbsim_twin gbsim_twins_nccl_check[] = {
	NCCL_ENTRIES("signed char", i8),
	NCCL_ENTRIES("unsigned char", u8),
	NCCL_ENTRIES("int", i32),
	NCCL_ENTRIES("unsigned int", u32),
	NCCL_ENTRIES("long", i64),
	NCCL_ENTRIES("unsigned long", u64),
	NCCL_ENTRIES("__half", f16),
	NCCL_ENTRIES("float", f32),
	NCCL_ENTRIES("double", f64),
	NCCL_ENTRIES("__nv_bfloat16", bf16),
	{NULL, NULL, false},
};

/* verify_kernel's shape, at the launch (sim.h, struct gbsim_twin_check): not sticky */
static cudaError_t verify_launch_check(const struct gbsim_launch *l)
{
	if (l->grid.y != 1 || l->grid.z != 1 || l->block.y != 1 || l->block.z != 1 ||
	    l->block.x == 0 || l->block.x % 32) {
		gbsim_log("twin of '%s' models only 1-D grids of 1-D blocks of whole warps, got "
			  "grid (%u,%u,%u) block (%u,%u,%u)",
			  l->kernel, l->grid.x, l->grid.y, l->grid.z, l->block.x, l->block.y,
			  l->block.z);
		return cudaErrorInvalidConfiguration;
	}
	return cudaSuccess;
}

#define NCCL_CHECK(name) {verify_##name, verify_launch_check}
const struct gbsim_twin_check gbsim_twin_checks_nccl_check[] = {
	NCCL_CHECK(i8),  NCCL_CHECK(u8),  NCCL_CHECK(i32), NCCL_CHECK(u32),  NCCL_CHECK(i64),
	NCCL_CHECK(u64), NCCL_CHECK(f16), NCCL_CHECK(f32), NCCL_CHECK(f64), NCCL_CHECK(bf16),
	{NULL, NULL},
};
#undef NCCL_CHECK
