/* SPDX-License-Identifier: MIT */
/*
 * twins_fill.c - CPU twins of kernels/fill.cu: the seeded random fill and
 * the poison fill.
 *
 * Element i of a random fill is computed with the kernel's own functions
 * (kernels/fill_hash.h) and rounded into the storage type the way
 * kernels/dtype.cuh's gb_from_double does it on the device: to float first
 * (__double2float_rn), then to the 16- or 8-bit type (__float2half_rn,
 * __float2bfloat16_rn, __nv_fp8_e4m3(float)), double rounding included, so
 * the simulated GPU holds the same bits as a real one. Both kernels are
 * grid-stride loops: whatever the grid, every element is written once.
 */
#include "tests/sim/sim.h"


#include "kernels/fill_hash.h"

/* the launch's arguments:
 * fill_random_kernel<T>(T *p, size_t n, uint64_t seed, uint64_t first) */
struct random_args {
	void *p;
	size_t n;
	uint64_t seed, first;
};

static struct random_args random_args_of(const struct gbsim_launch *l)
{
	struct random_args a;

	a.p = *(void **)l->args[0];
	a.n = *(size_t *)l->args[1];
	a.seed = *(uint64_t *)l->args[2];
	a.first = *(uint64_t *)l->args[3];
	return a;
}

/* check the output range, and charge its bytes (written once, never read) */
static cudaError_t claim_output(const struct gbsim_launch *l, struct gbsim_cost *cost, void *p,
				size_t n, size_t elem_bytes, const char *what)
{
	cost->bytes = (double)n * (double)elem_bytes;
	if (!n)
		return cudaSuccess;
	return gbsim_check_access(l->device, p, n * elem_bytes, what);
}

/* the uniform double of element i, as value_of<T> starts from it */
static double uniform_at(const struct random_args *a, size_t i)
{
	return gb_fill_uniform_pm1(gb_fill_hash_at(a->seed, a->first + i));
}

static int small_int_at(const struct random_args *a, size_t i)
{
	return gb_fill_small_int(gb_fill_hash_at(a->seed, a->first + i));
}

/*
 * One twin per storage type. STORE(i) is the value of element i in the
 * type's bits; the loop, the check and the cost are shared.
 */
#define RANDOM_TWIN(fn, ctype, STORE)                                                      \
	static cudaError_t fn(const struct gbsim_launch *l, struct gbsim_cost *cost)       \
	{                                                                                  \
		struct random_args a = random_args_of(l);                                  \
		ctype *out = a.p;                                                          \
		cudaError_t e = claim_output(l, cost, a.p, a.n, sizeof(ctype),             \
					     "fill_random_kernel arg p");                  \
                                                                                           \
		if (e != cudaSuccess)                                                      \
			return e;                                                          \
		for (size_t i = 0; i < a.n; i++)                                           \
			out[i] = STORE(i);                                                 \
		return cudaSuccess;                                                        \
	}

#define STORE_F64(i) uniform_at(&a, i)
#define STORE_F32(i) ((float)uniform_at(&a, i))
#define STORE_F16(i) gbsim_f16_from_float((float)uniform_at(&a, i))
#define STORE_BF16(i) gbsim_bf16_from_float((float)uniform_at(&a, i))
#define STORE_E4M3(i) gbsim_e4m3_from_float((float)uniform_at(&a, i))
#define STORE_I8(i) ((int8_t)small_int_at(&a, i))
#define STORE_I32(i) ((int32_t)small_int_at(&a, i))

RANDOM_TWIN(fill_random_f64, double, STORE_F64)
RANDOM_TWIN(fill_random_f32, float, STORE_F32)
RANDOM_TWIN(fill_random_f16, uint16_t, STORE_F16)
RANDOM_TWIN(fill_random_bf16, uint16_t, STORE_BF16)
RANDOM_TWIN(fill_random_e4m3, uint8_t, STORE_E4M3)
RANDOM_TWIN(fill_random_i8, int8_t, STORE_I8)
RANDOM_TWIN(fill_random_i32, int32_t, STORE_I32)

/* fill_pattern_kernel<U>(U *p, size_t n, U pattern): n copies of pattern */
#define PATTERN_TWIN(fn, ctype)                                                            \
	static cudaError_t fn(const struct gbsim_launch *l, struct gbsim_cost *cost)       \
	{                                                                                  \
		ctype *out = *(ctype **)l->args[0];                                        \
		size_t n = *(size_t *)l->args[1];                                          \
		ctype pattern = *(ctype *)l->args[2];                                      \
		cudaError_t e = claim_output(l, cost, out, n, sizeof(ctype),               \
					     "fill_pattern_kernel arg p");                 \
                                                                                           \
		if (e != cudaSuccess)                                                      \
			return e;                                                          \
		for (size_t i = 0; i < n; i++)                                             \
			out[i] = pattern;                                                  \
		return cudaSuccess;                                                        \
	}

PATTERN_TWIN(fill_pattern_u8, uint8_t)
PATTERN_TWIN(fill_pattern_u16, uint16_t)
PATTERN_TWIN(fill_pattern_u32, uint32_t)
PATTERN_TWIN(fill_pattern_u64, uint64_t)

#define RANDOM_NAME(t) \
	"void fill_random_kernel<" t ">(" t "*, unsigned long, unsigned long, unsigned long)"
#define PATTERN_NAME(t) "void fill_pattern_kernel<" t ">(" t "*, unsigned long, " t ")"

const struct gbsim_twin gbsim_twins_fill[] = {
	{ RANDOM_NAME("double"), fill_random_f64, false },
	{ RANDOM_NAME("float"), fill_random_f32, false },
	{ RANDOM_NAME("__half"), fill_random_f16, false },
	{ RANDOM_NAME("__nv_bfloat16"), fill_random_bf16, false },
	{ RANDOM_NAME("__nv_fp8_e4m3"), fill_random_e4m3, false },
	{ RANDOM_NAME("signed char"), fill_random_i8, false },
	{ RANDOM_NAME("int"), fill_random_i32, false },
	{ PATTERN_NAME("unsigned char"), fill_pattern_u8, false },
	{ PATTERN_NAME("unsigned short"), fill_pattern_u16, false },
	{ PATTERN_NAME("unsigned int"), fill_pattern_u32, false },
	{ PATTERN_NAME("unsigned long"), fill_pattern_u64, false },
	{ NULL, NULL, false },
};
