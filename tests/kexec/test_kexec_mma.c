/* SPDX-License-Identifier: MIT */
/*
 * test_kexec_mma.c - kernels/mma.cu run as written on the executor: its
 * loaders, swizzle, cp.async stage ring (commit and wait_group), ldmatrix
 * and mma.sync m16n8k16, emulated from the PTX ISA (kexec_ptx.cc), on small
 * and ragged shapes, k a multiple of 8 (cp.async) and not (element-wise
 * loads), 3 and 4 stages, FP16 and BF16, against an FP64 reference of the
 * stored 16-bit inputs, with memcheck and racecheck watching.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "kernels/kernels.h"
#include "tests/kexec/kexec_test.h"

/* the devices of test_own_gemm_math.c: 4 stages fit an A100, 3 an L40S */
static void use_a100(void) { gb_kx_set_device(8, 0, 167936, 166912); }
static void use_l40s(void) { gb_kx_set_device(8, 9, 102400, 101376); }

static float to_float(uint16_t h, enum gb_dtype t)
{
	return t == GB_DT_BF16 ? kx_bf16_to_float(h) : kx_f16_to_float(h);
}

static uint16_t from_float(float f, enum gb_dtype t)
{
	return t == GB_DT_BF16 ? kx_bf16_from_float(f) : kx_f16_from_float(f);
}

/*
 * D = A^T B against FP64 over the stored inputs: the accumulation is FP32
 * (k u sum |a b| at most, doubled for order), and D is rounded once to the
 * 16-bit type (half an ulp of it: 2^-11 relative for f16, 2^-8 for bf16).
 */
static void check_shape(enum gb_dtype t, uint64_t m, uint64_t n, uint64_t k, uint64_t seed)
{
	uint16_t *a = malloc(k * m * 2), *b = malloc(k * n * 2), *d = malloc(m * n * 2);
	const double round = t == GB_DT_BF16 ? 0x1p-8 : 0x1p-11;
	uint64_t s = seed;

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(d);
	for (uint64_t i = 0; i < k * m; i++)
		a[i] = from_float(kx_rand_pm1(&s), t);
	for (uint64_t i = 0; i < k * n; i++)
		b[i] = from_float(kx_rand_pm1(&s), t);

	void *da = kx_upload(a, k * m * 2), *db = kx_upload(b, k * n * 2), *dd = kx_alloc(m * n * 2);

	gb_kx_reset_findings();
	assert_int_equal(gb_launch_gemm_mma(da, db, dd, t, m, n, k, 0), cudaSuccess);
	kx_assert_clean();
	kx_download(d, dd, m * n * 2);
	for (uint64_t j = 0; j < n; j++)
		for (uint64_t i = 0; i < m; i++) {
			double ref = 0, mag = 0;

			for (uint64_t l = 0; l < k; l++) {
				double p = (double)to_float(a[l + i * k], t) * to_float(b[l + j * k], t);

				ref += p;
				mag += fabs(p);
			}
			double got = to_float(d[i + j * m], t);

			if (!(fabs(got - ref) <=
			      round * fabs(ref) + 2.0 * (double)k * 0x1p-24 * mag + 1e-30))
				fail_msg("%s m %llu n %llu k %llu: D[%llu, %llu] = %.6g, FP64 %.6g",
					 t == GB_DT_BF16 ? "bf16" : "f16", (unsigned long long)m,
					 (unsigned long long)n, (unsigned long long)k,
					 (unsigned long long)i, (unsigned long long)j, got, ref);
		}
	kx_free(da);
	kx_free(db);
	kx_free(dd);
	free(a);
	free(b);
	free(d);
}

/* m, n, k: ragged tiles; k past one slice (32), not a multiple of 8, more slices than stages */
static const uint64_t shapes[][3] = {
	{ 1, 1, 8 }, { 130, 9, 40 }, { 17, 129, 32 }, { 128, 128, 160 }, { 33, 20, 13 }, { 6, 140, 70 },
};

static void run_shapes(enum gb_dtype t, uint64_t seed)
{
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		check_shape(t, shapes[i][0], shapes[i][1], shapes[i][2], seed + i);
}

static void test_mma_f16_four_stages(void **state)
{
	(void)state;
	use_a100();
	run_shapes(GB_DT_F16, 1);
}

static void test_mma_bf16_three_stages(void **state)
{
	(void)state;
	use_l40s();
	run_shapes(GB_DT_BF16, 50);
}

/* before sm_80 the launcher refuses: the kernel is a trap there */
static void test_mma_refuses_sm75(void **state)
{
	unsigned long before = gb_kx_launches();

	(void)state;
	gb_kx_set_device(7, 5, 65536, 65536);
	assert_int_equal(gb_launch_gemm_mma((void *)8, (void *)8, (void *)8, GB_DT_F16, 8, 8, 8, 0),
			 cudaErrorNoKernelImageForDevice);
	assert_int_equal(gb_kx_launches(), before);
	use_a100();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mma_f16_four_stages),
		cmocka_unit_test(test_mma_bf16_three_stages),
		cmocka_unit_test(test_mma_refuses_sm75),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
