/* SPDX-License-Identifier: MIT */
/*
 * test_kexec_wgmma.c - kernels/wgmma.cu run as written on the executor: its
 * producer warpgroup's TMA loads (the launcher's tensor maps, encoded by the
 * executor's cuTensorMapEncodeTiled), the 4-stage mbarrier ring, the
 * consumers' wgmma.mma_async m64n256k16 through their matrix descriptors,
 * fences, commit and wait_group, setmaxnreg and the predicated epilogue,
 * emulated from the PTX ISA (kexec_wgmma.cc), on small and ragged shapes
 * (m, n not multiples of the 256 x 128 tile; k below, off and across the
 * 64-element slice, more slices than stages; k % 8 != 0, the launcher's
 * padded copy), FP16 and BF16, against an FP64 reference of the stored
 * 16-bit inputs, with memcheck and racecheck watching.
 *
 * And the pipeline bounds: copies of wgmma.cu with one bound changed
 * (CMakeLists.txt, GB_KX_WGMMA_PLANTS) must fail the same check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/own_gemm.h"
#include "tests/kexec/kexec_test.h"

typedef cudaError_t (*gemm_fn)(const void *a, const void *b, void *d, enum gb_dtype t,
			       uint64_t m, uint64_t n, uint64_t k, cudaStream_t stream);

/* the planted-bug copies of the launcher (tests/kexec/CMakeLists.txt) */
cudaError_t gb_kx_wgmma_planted_wait_group(const void *a, const void *b, void *d,
					   enum gb_dtype t, uint64_t m, uint64_t n, uint64_t k,
					   cudaStream_t stream);
cudaError_t gb_kx_wgmma_planted_k_loop(const void *a, const void *b, void *d, enum gb_dtype t,
				       uint64_t m, uint64_t n, uint64_t k, cudaStream_t stream);
cudaError_t gb_kx_wgmma_planted_full_parity(const void *a, const void *b, void *d,
					    enum gb_dtype t, uint64_t m, uint64_t n, uint64_t k,
					    cudaStream_t stream);
cudaError_t gb_kx_wgmma_planted_empty_ring(const void *a, const void *b, void *d,
					   enum gb_dtype t, uint64_t m, uint64_t n, uint64_t k,
					   cudaStream_t stream);

/* what one run gave: the launch's error, the checkers' findings, the elements out of bound */
struct outcome {
	cudaError_t e;
	struct gb_kx_findings f;
	uint64_t bad;
};

static float to_float(uint16_t h, enum gb_dtype t)
{
	return t == GB_DT_BF16 ? kx_bf16_to_float(h) : kx_f16_to_float(h);
}

static uint16_t from_float(float f, enum gb_dtype t)
{
	return t == GB_DT_BF16 ? kx_bf16_from_float(f) : kx_f16_from_float(f);
}

/*
 * Whether fn computes D = A^T B (gemm's layout: A k x m, B k x n, D m x n,
 * column-major) within the bound, cleanly: the launch succeeds, no checker
 * finds anything, every element of D is within FP32 accumulation over k
 * (k u sum |a b|, doubled for order; u = 2^-24) plus one rounding to the
 * 16-bit type (2^-11 relative for f16, 2^-8 for bf16) of the FP64 sum over
 * the stored inputs. What failed is printed, and kept in *out when given.
 */
static int gemm_ok_out(gemm_fn fn, enum gb_dtype t, uint64_t m, uint64_t n, uint64_t k,
		       uint64_t seed, struct outcome *out)
{
	uint16_t *a = malloc(k * m * 2), *b = malloc(k * n * 2), *d = malloc(m * n * 2);
	const double round = t == GB_DT_BF16 ? 0x1p-8 : 0x1p-11;
	const char *name = t == GB_DT_BF16 ? "bf16" : "f16";
	uint64_t s = seed, bad = 0;
	struct gb_kx_findings f;
	cudaError_t e;

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(d);
	for (uint64_t i = 0; i < k * m; i++)
		a[i] = from_float(kx_rand_pm1(&s), t);
	for (uint64_t i = 0; i < k * n; i++)
		b[i] = from_float(kx_rand_pm1(&s), t);

	void *da = kx_upload(a, k * m * 2), *db = kx_upload(b, k * n * 2), *dd = kx_alloc(m * n * 2);
	unsigned long before = gb_kx_launches();

	gb_kx_reset_findings();
	e = fn(da, db, dd, t, m, n, k, 0);
	f = gb_kx_findings();
	kx_download(d, dd, m * n * 2);
	for (uint64_t j = 0; j < n && e == cudaSuccess; j++)
		for (uint64_t i = 0; i < m; i++) {
			double ref = 0, mag = 0;

			for (uint64_t l = 0; l < k; l++) {
				double p = (double)to_float(a[l + i * k], t) * to_float(b[l + j * k], t);

				ref += p;
				mag += fabs(p);
			}
			double got = to_float(d[i + j * m], t);

			if (fabs(got - ref) <= round * fabs(ref) + 2.0 * (double)k * 0x1p-24 * mag + 1e-30)
				continue;
			if (!bad++)
				fprintf(stderr, "%s m %llu n %llu k %llu: D[%llu, %llu] = %.6g, FP64 %.6g\n",
					name, (unsigned long long)m, (unsigned long long)n,
					(unsigned long long)k, (unsigned long long)i,
					(unsigned long long)j, got, ref);
		}
	if (e != cudaSuccess || gb_kx_launches() != before + 1 || f.memcheck || f.racecheck ||
	    f.synccheck || bad)
		fprintf(stderr, "%s m %llu n %llu k %llu: launch %d (%lu launches), findings %lu/%lu/%lu "
			"(memcheck/racecheck/synccheck), %llu wrong elements\n", name,
			(unsigned long long)m, (unsigned long long)n, (unsigned long long)k, (int)e,
			gb_kx_launches() - before, f.memcheck, f.racecheck, f.synccheck,
			(unsigned long long)bad);
	kx_free(da);
	kx_free(db);
	kx_free(dd);
	free(a);
	free(b);
	free(d);
	if (out)
		*out = (struct outcome){ e, f, bad };
	return e == cudaSuccess && gb_kx_launches() == before + 1 && !f.memcheck && !f.racecheck &&
	       !f.synccheck && !bad;
}

static int gemm_ok(gemm_fn fn, enum gb_dtype t, uint64_t m, uint64_t n, uint64_t k,
		   uint64_t seed)
{
	return gemm_ok_out(fn, t, m, n, k, seed, NULL);
}

/*
 * m, n, k. The block tile is 256 (m) x 128 (n), k-slices of 64, 4 stages:
 * ragged tiles in m and n (2 x 2 blocks, one of them a corner); k a slice
 * multiple with more slices than stages (the ring wraps and the empty
 * barriers' phases turn); k off the slice with k % 8 == 0 (TMA's
 * out-of-range zeros in k); k % 8 != 0 (the padded copy) across 7 slices;
 * one element.
 */
static const uint64_t shapes[][3] = {
	{ 300, 130, 320 }, { 40, 20, 72 }, { 17, 140, 390 }, { 1, 1, 1 },
};

static void run_shapes(enum gb_dtype t, uint64_t seed)
{
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		assert_true(gemm_ok(gb_launch_gemm_wgmma, t, shapes[i][0], shapes[i][1],
				    shapes[i][2], seed + i));
}

static void test_wgmma_f16(void **state)
{
	(void)state;
	run_shapes(GB_DT_F16, 1);
}

static void test_wgmma_bf16(void **state)
{
	(void)state;
	run_shapes(GB_DT_BF16, 50);
}

/*
 * Whether the planted copy exists: one whose text left wgmma.cu is a stub
 * answering cudaErrorNotYetImplemented (tests/kexec/CMakeLists.txt), which
 * must fail here rather than pass as "caught". The real launcher refuses
 * m = 0 before any CUDA call.
 */
static void assert_planted(gemm_fn fn, const char *name)
{
	if (fn(NULL, NULL, NULL, GB_DT_F16, 0, 0, 0, 0) == cudaErrorNotYetImplemented)
		fail_msg("the %s plant's text is no longer in kernels/wgmma.cu: update "
			 "GB_KX_WGMMA_PLANTS in tests/kexec/CMakeLists.txt", name);
}

/*
 * Each planted bug fails the check, and by the checker meant to catch it:
 *   wait_group   wgmma.wait_group 2, not 1: a stage goes back to the
 *                producer while the wgmma of its slice may still read it;
 *                the next TMA into it is a WAR hazard (racecheck; 6 slices,
 *                so the ring comes round)
 *   k_loop       the k-loop bound rounded down: the last partial slice is
 *                never multiplied (wrong sums)
 *   full_parity  the consumers wait on the full barrier's other parity, so
 *                not for the TMA: wgmma reads bytes not landed (racecheck RAW)
 *   empty_ring   one initial empty arrival too few: the producer waits for
 *                a stage nobody frees, the consumers for its data (a hang)
 * Each time the unchanged kernel passes the same shape.
 */
static void test_planted_pipeline_bounds_fail(void **state)
{
	struct outcome o;

	(void)state;
	assert_planted(gb_kx_wgmma_planted_wait_group, "wait_group");
	assert_planted(gb_kx_wgmma_planted_k_loop, "k_loop");
	assert_planted(gb_kx_wgmma_planted_full_parity, "full_parity");
	assert_planted(gb_kx_wgmma_planted_empty_ring, "empty_ring");
	assert_true(gemm_ok(gb_launch_gemm_wgmma, GB_DT_F16, 40, 20, 384, 7));
	assert_false(gemm_ok_out(gb_kx_wgmma_planted_wait_group, GB_DT_F16, 40, 20, 384, 7, &o));
	assert_true(o.f.racecheck > 0);
	assert_false(gemm_ok_out(gb_kx_wgmma_planted_full_parity, GB_DT_F16, 40, 20, 384, 7, &o));
	assert_true(o.f.racecheck > 0);
	assert_false(gemm_ok_out(gb_kx_wgmma_planted_empty_ring, GB_DT_F16, 40, 20, 384, 7, &o));
	assert_true(o.f.synccheck > 0 && o.e == cudaErrorLaunchTimeout);
	assert_true(gemm_ok(gb_launch_gemm_wgmma, GB_DT_F16, 40, 20, 100, 8));
	assert_false(gemm_ok_out(gb_kx_wgmma_planted_k_loop, GB_DT_F16, 40, 20, 100, 8, &o));
	assert_true(o.e == cudaSuccess && o.bad > 0);
}

/* sm_90a code runs on compute capability 9.0 only: the launcher refuses others unlaunched */
static void test_wgmma_refuses_other_devices(void **state)
{
	unsigned long before = gb_kx_launches();

	(void)state;
	/* the launcher reads a device's limits once, until gb_wgmma_release */
	assert_int_equal(gb_wgmma_release(), cudaSuccess);
	gb_kx_set_device(8, 0, 167936, 166912);
	assert_int_equal(gb_launch_gemm_wgmma((void *)256, (void *)256, (void *)256, GB_DT_F16, 8,
					      8, 8, 0),
			 cudaErrorNoKernelImageForDevice);
	assert_int_equal(gb_wgmma_release(), cudaSuccess);
	gb_kx_set_device(10, 0, 233472, 232448);
	assert_int_equal(gb_launch_gemm_wgmma((void *)256, (void *)256, (void *)256, GB_DT_F16, 8,
					      8, 8, 0),
			 cudaErrorNoKernelImageForDevice);
	assert_int_equal(gb_kx_launches(), before);
	assert_int_equal(gb_wgmma_release(), cudaSuccess);
	gb_kx_set_device(9, 0, 233472, 232448);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wgmma_f16),
		cmocka_unit_test(test_wgmma_bf16),
		cmocka_unit_test(test_planted_pipeline_bounds_fail),
		cmocka_unit_test(test_wgmma_refuses_other_devices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
