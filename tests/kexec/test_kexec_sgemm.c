/* SPDX-License-Identifier: MIT */
/*
 * test_kexec_sgemm.c - kernels/sgemm.cu and kernels/sgemm_tiled.cu run as
 * written on the executor: small shapes, ragged edges in m and n, k not a
 * multiple of the k-slice, against an FP64 reference, with memcheck and
 * racecheck watching. A wrong loader, k-loop bound, buffer swap or edge
 * predicate fails here, not only on a GPU.
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

typedef cudaError_t (*sgemm_fn)(const float *, const float *, float *, uint64_t, uint64_t,
				uint64_t, cudaStream_t);

/*
 * D = A^T B (own_gemm.h's layout) on the executor, every element against
 * the FP64 sum: FP32 accumulation over k terms errs by at most about
 * k u sum |a b| (u = 2^-24); 2 k u leaves room for the kernel's order.
 */
static void check_shape(sgemm_fn launch, uint64_t m, uint64_t n, uint64_t k, uint64_t seed)
{
	float *a = malloc(k * m * sizeof *a), *b = malloc(k * n * sizeof *b);
	float *d = malloc(m * n * sizeof *d);
	uint64_t s = seed;

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(d);
	for (uint64_t i = 0; i < k * m; i++)
		a[i] = kx_rand_pm1(&s);
	for (uint64_t i = 0; i < k * n; i++)
		b[i] = kx_rand_pm1(&s);

	float *da = kx_upload(a, k * m * sizeof *a), *db = kx_upload(b, k * n * sizeof *b);
	float *dd = kx_alloc(m * n * sizeof *d);

	gb_kx_reset_findings();
	assert_int_equal(launch(da, db, dd, m, n, k, 0), cudaSuccess);
	kx_assert_clean();
	kx_download(d, dd, m * n * sizeof *d);
	for (uint64_t j = 0; j < n; j++) {
		for (uint64_t i = 0; i < m; i++) {
			double ref = 0, mag = 0;

			for (uint64_t l = 0; l < k; l++) {
				double p = (double)a[l + i * k] * b[l + j * k];

				ref += p;
				mag += fabs(p);
			}
			double got = d[i + j * m];

			if (!(fabs(got - ref) <= 2.0 * (double)k * 0x1p-24 * mag + 1e-30))
				fail_msg("m %llu n %llu k %llu: D[%llu, %llu] = %.9g, FP64 %.9g",
					 (unsigned long long)m, (unsigned long long)n,
					 (unsigned long long)k, (unsigned long long)i,
					 (unsigned long long)j, got, ref);
		}
	}
	kx_free(da);
	kx_free(db);
	kx_free(dd);
	free(a);
	free(b);
	free(d);
}

/* m, n, k: one element; ragged m and n; k below, at, off and over the slices */
static const uint64_t shapes[][3] = {
	{ 1, 1, 1 },     { 5, 7, 3 },     { 3, 130, 8 },   { 130, 3, 9 },  { 128, 128, 8 },
	{ 129, 131, 37 }, { 64, 200, 64 }, { 257, 5, 33 },  { 4, 4, 100 },  { 6, 9, 44 },
};

static void test_sgemm_shapes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		check_shape(gb_launch_sgemm, shapes[i][0], shapes[i][1], shapes[i][2], 11 + i);
}

static void test_sgemm_tiled_shapes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		check_shape(gb_launch_sgemm_tiled, shapes[i][0], shapes[i][1], shapes[i][2],
			    101 + i);
}

/* a dimension of 0 is refused before any launch */
static void test_sgemm_refuses_empty(void **state)
{
	unsigned long before = gb_kx_launches();

	(void)state;
	assert_int_equal(gb_launch_sgemm(NULL, NULL, NULL, 0, 4, 4, 0), cudaErrorInvalidValue);
	assert_int_equal(gb_launch_sgemm_tiled(NULL, NULL, NULL, 4, 0, 4, 0),
			 cudaErrorInvalidValue);
	assert_int_equal(gb_kx_launches(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sgemm_shapes),
		cmocka_unit_test(test_sgemm_tiled_shapes),
		cmocka_unit_test(test_sgemm_refuses_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
