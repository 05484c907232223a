/* SPDX-License-Identifier: MIT */
/*
 * test_own_gemm.c - gpubench's own GEMM kernels on a real GPU, driven
 * through the gemm descriptor with --impl exactly as cmd/ drives it: every
 * kernel verifies against the FP64 reference (poisoned output first) at odd
 * sizes, at sizes that are not multiples of its tiles, at tiny sizes and at
 * a large one; cuBLASLt runs alongside and the ratio is reported; a
 * corrupted output is caught; a kernel that does not apply to a precision,
 * device or shape is a SKIPPED check with its reason; the wgmma launcher
 * refuses a non-Hopper device without launching, and on Hopper its host-side
 * state (padded-k scratch, cached maps, several streams, release) keeps
 * every result exact. Exits 77 without a GPU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/gemm/gemm_math.h"
#include "bench/device/gpu.h"
#include "bench/device/nvml.h"
#include "kernels/own_gemm_math.h"
#include "cmd/cli.h"
#include "gpu_test.h"
#include "kernels/own_gemm.h"
#include "report/result.h"

extern const struct gb_bench gb_bench_gemm;
#define GB_FIXTURE_BENCH gb_bench_gemm
#include "bench_fixture.h"

/* at most this many arguments per run here */
#define MAX_ARGS 24

/*
 * fixture_run with --iters 2 on the simulated GPU: its CPU runs every own
 * kernel launch (the twins keep products, not the epilogue's stores), and a
 * duration's worth is thousands of launches per shape. What is checked does
 * not change: five timed samples, verification, the ratio to cuBLASLt.
 */
static struct gb_bench_result *run_gemm(struct fixture *f, const char *const *args, int n)
{
	const char *a[MAX_ARGS + 2];

	assert_true(n <= MAX_ARGS);
	return fixture_run(f, a, gb_test_sim_args(args, n, a, "--iters", "2"));
}

static bool is_hopper(const struct fixture *f)
{
	return dev0(f)->cc_major == 9 && dev0(f)->cc_minor == 0;
}

/*
 * One run of `impl` at precision `prec` and m x n x k; expects a pass with
 * the kernel's verification, metrics, cuBLASLt's too, and the ratio.
 * `sampled`: more than 2^20 outputs, so the 64 x 64 grid with the corners.
 */
static void expect_impl_verified(const char *impl, const char *prec, const char *m,
				 const char *n, const char *k, bool sampled)
{
	const char *args[] = { "--impl", impl, "--precision", prec, "--m", m, "--n", n, "--k", k,
			       "--warmup", sampled ? "200ms" : "0s", "--duration",
			       sampled ? "100ms" : "20ms", "--samples", "5" };
	struct fixture f;
	struct gb_bench_result *r;
	const struct gb_check *own, *cublas;
	const struct gb_metric *mt;
	char name[96];

	fixture_open(&f);
	r = run_gemm(&f, args, 16);
	if (r->status != GB_STATUS_PASSED) {
		dump(r);
		fail_msg("%s %s %sx%sx%s: status %s", impl, prec, m, n, k,
			 gb_status_name(r->status));
	}
	snprintf(name, sizeof(name), "verify_%s_%s", prec, impl);
	own = find_check(r, name);
	if (!own)
		dump(r);
	assert_non_null(own);
	assert_int_equal(own->status, GB_STATUS_PASSED);
	assert_true(own->observed <= own->threshold);
	assert_non_null(strstr(own->message, sampled ? "4096 sampled outputs" : "sampled outputs"));
	/* cuBLASLt ran too, verified against the same bound */
	snprintf(name, sizeof(name), "verify_%s", prec);
	cublas = find_check(r, name);
	assert_non_null(cublas);
	assert_int_equal(cublas->status, GB_STATUS_PASSED);
	assert_true(own->threshold == cublas->threshold);
	snprintf(name, sizeof(name), "tflops_%s_%s", prec, impl);
	mt = gb_bench_find_metric(r, name, 0);
	assert_non_null(mt);
	assert_true(mt->value > 0);
	assert_int_equal(mt->n_samples, 5);
	snprintf(name, sizeof(name), "tflops_%s", prec);
	assert_non_null(gb_bench_find_metric(r, name, 0));
	snprintf(name, sizeof(name), "pct_of_cublas_%s_%s", prec, impl);
	mt = gb_bench_find_metric(r, name, 0);
	assert_non_null(mt);
	assert_true(mt->value > 0);
	fixture_close(&f);
}

/* every verify_ check of a multi-shape run passed; returns how many belong to impl */
static size_t expect_all_verified(const struct gb_bench_result *r, const char *impl)
{
	size_t n = 0;
	char tag[32];

	snprintf(tag, sizeof(tag), "_%s_", impl);
	if (r->status != GB_STATUS_PASSED)
		dump(r);
	assert_int_equal(r->status, GB_STATUS_PASSED);
	for (size_t i = 0; i < r->n_checks; i++) {
		if (strncmp(r->checks[i].name, "verify_", 7))
			continue;
		if (r->checks[i].status != GB_STATUS_PASSED)
			dump(r);
		assert_int_equal(r->checks[i].status, GB_STATUS_PASSED);
		if (strstr(r->checks[i].name, tag))
			n++;
	}
	return n;
}

/* ---- FP32 kernels ---- */

static void test_fp32_odd_sizes(void **state)
{
	(void)state;
	/* k odd: scalar loads; k % 4 == 0 but not of the tile: vector loads, partial slice */
	expect_impl_verified("tiled", "fp32", "257", "511", "129", false);
	expect_impl_verified("sgemm", "fp32", "257", "511", "129", false);
	expect_impl_verified("sgemm", "fp32", "257", "511", "132", false);
	expect_impl_verified("sgemm", "fp32", "130", "97", "1000", false);
}

static void test_fp32_tiny_shapes(void **state)
{
	static const char *const args[] = { "--impl", "tiled,sgemm", "--precision", "fp32",
					     "--m", "1,3,129", "--n", "1,7", "--k", "1,5,8",
					     "--warmup", "0s", "--duration", "10ms", "--samples",
					     "5" };
	struct fixture f;
	struct gb_bench_result *r;

	(void)state;
	fixture_open(&f);
	r = run_gemm(&f, args, 16);
	assert_int_equal(expect_all_verified(r, "tiled"), 18);
	assert_int_equal(expect_all_verified(r, "sgemm"), 18);
	fixture_close(&f);
}

/* ---- mma ---- */

static void test_mma_odd_sizes(void **state)
{
	(void)state;
	/* k % 8 != 0: the element-wise path; k % 8 == 0, k % 32 != 0: cp.async zero-fill */
	expect_impl_verified("mma", "bf16", "257", "511", "129", false);
	expect_impl_verified("mma", "fp16", "257", "511", "129", false);
	expect_impl_verified("mma", "bf16", "257", "511", "136", false);
	expect_impl_verified("mma", "fp16", "257", "511", "136", false);
	/* m odd: the pair stores fall back to single elements */
	expect_impl_verified("mma", "bf16", "255", "130", "1000", false);
}

static void test_mma_tiny_shapes(void **state)
{
	static const char *const args[] = { "--impl", "mma", "--precision", "bf16", "--m",
					     "1,2,129", "--n", "1,9", "--k", "1,8,40", "--warmup",
					     "0s", "--duration", "10ms", "--samples", "5" };
	struct fixture f;
	struct gb_bench_result *r;

	(void)state;
	fixture_open(&f);
	r = run_gemm(&f, args, 16);
	assert_int_equal(expect_all_verified(r, "mma"), 18);
	fixture_close(&f);
}

/* ---- wgmma ---- */

static void test_wgmma_sizes(void **state)
{
	static const char *const odd_k[] = { "--impl", "wgmma", "--precision", "bf16", "--m",
					     "257", "--n", "511", "--k", "129", "--warmup", "0s",
					     "--duration", "10ms", "--samples", "5" };
	struct fixture f;
	struct gb_bench_result *r;
	const struct gb_check *c;

	(void)state;
	fixture_open(&f);
	if (!is_hopper(&f)) {
		/* not sm_90: skipped with the reason, cuBLASLt still measured */
		r = run_gemm(&f, odd_k, 16);
		c = find_check(r, "impl_wgmma_bf16");
		if (!c)
			dump(r);
		assert_non_null(c);
		assert_int_equal(c->status, GB_STATUS_SKIPPED);
		assert_non_null(strstr(c->message, "compute capability 9.0"));
		assert_int_equal(r->status, GB_STATUS_PASSED);
		assert_non_null(gb_bench_find_metric(r, "tflops_bf16", 0));
		assert_null(gb_bench_find_metric(r, "tflops_bf16_wgmma", 0));
		fixture_close(&f);
		return;
	}
	fixture_close(&f);
	/* k % 8 != 0: A and B copied to a padded pitch first, never skipped */
	expect_impl_verified("wgmma", "bf16", "257", "511", "129", false);
	expect_impl_verified("wgmma", "fp16", "257", "511", "129", false);
	expect_impl_verified("wgmma", "fp16", "255", "130", "1001", false);
	/* partial tiles in m, n and k (one k-slice of 64 partly filled) */
	expect_impl_verified("wgmma", "bf16", "257", "511", "136", false);
	expect_impl_verified("wgmma", "fp16", "257", "511", "136", false);
	expect_impl_verified("wgmma", "bf16", "300", "1000", "520", false);
	expect_impl_verified("wgmma", "fp16", "255", "129", "1024", false);
}

static void test_wgmma_tiny_shapes(void **state)
{
	static const char *const args[] = { "--impl", "wgmma", "--precision", "fp16", "--m",
					     "1,2,257", "--n", "1,129", "--k", "1,8,71",
					     "--warmup", "0s", "--duration", "10ms", "--samples",
					     "5" };
	struct fixture f;
	struct gb_bench_result *r;

	(void)state;
	fixture_open(&f);
	if (!is_hopper(&f)) {
		fixture_close(&f);
		skip();
	}
	r = run_gemm(&f, args, 16);
	assert_int_equal(expect_all_verified(r, "wgmma"), 18);
	fixture_close(&f);
}

/* the launcher checks the device before touching anything */
static void test_wgmma_launcher_refuses(void **state)
{
	int major = 0, minor = 0;
	cudaError_t e;

	(void)state;
	assert_int_equal(cudaSetDevice(0), cudaSuccess);
	assert_int_equal(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0),
			 cudaSuccess);
	assert_int_equal(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0),
			 cudaSuccess);
	/* not fp16/bf16, a zero or 2^31 dimension: refused on any device */
	e = gb_launch_gemm_wgmma(NULL, NULL, NULL, GB_DT_F32, 64, 64, 64, 0);
	assert_int_equal(e, cudaErrorInvalidValue);
	e = gb_launch_gemm_wgmma(NULL, NULL, NULL, GB_DT_BF16, 0, 64, 64, 0);
	assert_int_equal(e, cudaErrorInvalidValue);
	e = gb_launch_gemm_wgmma(NULL, NULL, NULL, GB_DT_BF16, 64, 64, 1ull << 31, 0);
	assert_int_equal(e, cudaErrorInvalidValue);
	e = gb_launch_gemm_mma(NULL, NULL, NULL, GB_DT_E4M3, 64, 64, 64, 0);
	assert_int_equal(e, cudaErrorInvalidValue);
	e = gb_launch_sgemm(NULL, NULL, NULL, 0, 64, 64, 0);
	assert_int_equal(e, cudaErrorInvalidValue);
	if (major != 9 || minor != 0) {
		e = gb_launch_gemm_wgmma(NULL, NULL, NULL, GB_DT_BF16, 64, 64, 64, 0);
		assert_int_equal(e, cudaErrorNoKernelImageForDevice);
		/* k % 8 != 0 is refused for the device too, before any copy */
		e = gb_launch_gemm_wgmma(NULL, NULL, NULL, GB_DT_BF16, 64, 64, 63, 0);
		assert_int_equal(e, cudaErrorNoKernelImageForDevice);
	}
	/* nothing was launched, nothing is left behind */
	assert_int_equal(cudaGetLastError(), cudaSuccess);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
}

/*
 * The wgmma launcher's host-side state, on Hopper, through direct launches
 * checked exactly (small integers: every sum is exact in fp16 and bf16):
 * padded k (scratch allocated, grown, re-zeroed for a new layout), k % 8
 * == 0 after it, rotating operand pointers (cached tensor maps), a second
 * stream on the same scratch, and gb_wgmma_release with launches after it.
 */
struct wg_bufs {
	uint16_t *a, *b, *d;     /* device: 3 copies of A and of B, D */
	uint16_t *ha, *hb, *hd;  /* host mirrors of one copy */
	size_t max_ab, max_d;    /* elements per copy, of D */
};

/* fp16 or bf16 bits of a small integer v (|v| <= 2), exactly */
static uint16_t bits_of_int(enum gb_dtype t, int v)
{
	static const uint16_t f16[] = { 0xC000, 0xBC00, 0x0000, 0x3C00, 0x4000 };
	static const uint16_t bf16[] = { 0xC000, 0xBF80, 0x0000, 0x3F80, 0x4000 };

	return t == GB_DT_F16 ? f16[v + 2] : bf16[v + 2];
}

static double value_of_bits(enum gb_dtype t, uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	int e = (h >> 10) & 0x1F;
	double v;
	float f;

	if (t == GB_DT_BF16) {
		memcpy(&f, &u, sizeof(f));
		return f;
	}
	if (e == 0x1F)
		return NAN;
	v = e ? ldexp(1024 + (h & 0x3FF), e - 25) : ldexp(h & 0x3FF, -24);
	return h & 0x8000 ? -v : v;
}

/* one launch of m x n x k on copy `copy` of A and B, D checked against the host */
static void wg_check(struct wg_bufs *w, enum gb_dtype t, unsigned m, unsigned n, unsigned k,
		     unsigned copy, cudaStream_t stream)
{
	/* fp16: |sum| <= 4k <= 2048 for k <= 512; bf16: values -1..1, |sum| <= k <= 256 */
	const int range = t == GB_DT_F16 ? 2 : 1;
	uint16_t *a = w->a + copy * w->max_ab, *b = w->b + copy * w->max_ab;
	uint32_t seed = m * 31u + n * 17u + k + copy * 101u;

	assert_true(k <= (t == GB_DT_F16 ? 512u : 256u));
	assert_true((size_t)k * m <= w->max_ab && (size_t)k * n <= w->max_ab);
	assert_true((size_t)m * n <= w->max_d);
	for (size_t i = 0; i < (size_t)k * (m + n); i++) {
		int v;

		seed = seed * 1664525u + 1013904223u;
		v = (int)((seed >> 24) % (unsigned)(2 * range + 1)) - range;
		if (i < (size_t)k * m)
			w->ha[i] = bits_of_int(t, v);
		else
			w->hb[i - (size_t)k * m] = bits_of_int(t, v);
	}
	assert_int_equal(cudaMemcpy(a, w->ha, (size_t)k * m * 2, cudaMemcpyHostToDevice),
			 cudaSuccess);
	assert_int_equal(cudaMemcpy(b, w->hb, (size_t)k * n * 2, cudaMemcpyHostToDevice),
			 cudaSuccess);
	/* 0xFFFF is a NaN in both types: an unwritten output cannot pass */
	assert_int_equal(cudaMemset(w->d, 0xFF, (size_t)m * n * 2), cudaSuccess);
	/* the copies and the memset go on the legacy stream, which a non-blocking one does not wait for */
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	assert_int_equal(gb_launch_gemm_wgmma(a, b, w->d, t, m, n, k, stream), cudaSuccess);
	assert_int_equal(cudaStreamSynchronize(stream), cudaSuccess);
	assert_int_equal(cudaMemcpy(w->hd, w->d, (size_t)m * n * 2, cudaMemcpyDeviceToHost),
			 cudaSuccess);
	for (unsigned r = 0; r < n; r++)
		for (unsigned c = 0; c < m; c++) {
			double ref = 0, got = value_of_bits(t, w->hd[c + (size_t)r * m]);

			for (unsigned kk = 0; kk < k; kk++)
				ref += value_of_bits(t, w->ha[kk + (size_t)c * k]) *
				       value_of_bits(t, w->hb[kk + (size_t)r * k]);
			if (got != ref)
				fail_msg("wgmma %ux%ux%u copy %u: D[%u][%u] = %g, expected %g",
					 m, n, k, copy, c, r, got, ref);
		}
}

static void test_wgmma_launcher_state(void **state)
{
	/* copies 256 bytes apart, as gemm's rotation places them (TMA wants 16) */
	struct wg_bufs w = { .max_ab = 90112, .max_d = 300 * 300 };
	cudaStream_t s1 = NULL, s2 = NULL;
	int major = 0, minor = 0;

	(void)state;
	assert_int_equal(cudaSetDevice(0), cudaSuccess);
	assert_int_equal(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0),
			 cudaSuccess);
	assert_int_equal(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0),
			 cudaSuccess);
	if (major != 9 || minor != 0)
		skip();
	assert_int_equal(cudaMalloc((void **)&w.a, 3 * w.max_ab * 2), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&w.b, 3 * w.max_ab * 2), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&w.d, w.max_d * 2), cudaSuccess);
	w.ha = malloc(w.max_ab * 2);
	w.hb = malloc(w.max_ab * 2);
	w.hd = malloc(w.max_d * 2);
	assert_true(w.ha && w.hb && w.hd);
	assert_int_equal(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
	assert_int_equal(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);

	wg_check(&w, GB_DT_F16, 70, 50, 13, 0, s1);    /* padded: scratch allocated */
	wg_check(&w, GB_DT_F16, 300, 200, 77, 0, s1);  /* padded: scratch grown */
	wg_check(&w, GB_DT_F16, 70, 50, 13, 0, s1);    /* smaller layout: re-zeroed */
	wg_check(&w, GB_DT_F16, 70, 50, 16, 0, s1);    /* k % 8 == 0: A and B directly */
	wg_check(&w, GB_DT_BF16, 129, 257, 131, 0, s1);
	/* one shape on rotating copies: cached maps, their address swapped in */
	for (unsigned copy = 0; copy < 3; copy++)
		wg_check(&w, GB_DT_F16, 200, 100, 24, copy, s1);
	for (unsigned copy = 0; copy < 3; copy++)
		wg_check(&w, GB_DT_BF16, 200, 100, 21, copy, s1);
	/* another stream on the same scratch */
	wg_check(&w, GB_DT_F16, 100, 90, 45, 0, s2);
	wg_check(&w, GB_DT_F16, 100, 90, 45, 1, s1);
	/* released, then used again */
	assert_int_equal(gb_wgmma_release(), cudaSuccess);
	wg_check(&w, GB_DT_F16, 64, 64, 7, 0, s2);
	wg_check(&w, GB_DT_BF16, 257, 129, 64, 0, s1);
	assert_int_equal(gb_wgmma_release(), cudaSuccess);
	assert_int_equal(gb_wgmma_release(), cudaSuccess);  /* twice is harmless */

	assert_int_equal(cudaStreamDestroy(s2), cudaSuccess);
	assert_int_equal(cudaStreamDestroy(s1), cudaSuccess);
	free(w.ha);
	free(w.hb);
	free(w.hd);
	assert_int_equal(cudaFree(w.d), cudaSuccess);
	assert_int_equal(cudaFree(w.b), cudaSuccess);
	assert_int_equal(cudaFree(w.a), cudaSuccess);
	assert_int_equal(cudaGetLastError(), cudaSuccess);
}

/* ---- large sizes ---- */

static void test_large(void **state)
{
	struct fixture f;
	bool hopper;

	(void)state;
	if (gb_test_on_simulator()) {
		/* nine products of up to 4096^3 in the twins: an hour of CPU */
		fprintf(stderr, "skipped on the simulated GPU: 4096^3 on the CPU\n");
		skip();
	}
	fixture_open(&f);
	hopper = is_hopper(&f);
	fixture_close(&f);
	expect_impl_verified("tiled", "fp32", "4096", "4096", "4096", true);
	expect_impl_verified("sgemm", "fp32", "4096", "4096", "4096", true);
	expect_impl_verified("mma", "bf16", "4096", "4096", "4096", true);
	expect_impl_verified("mma", "fp16", "4096", "4096", "4096", true);
	if (hopper) {
		expect_impl_verified("wgmma", "bf16", "4096", "4096", "4096", true);
		expect_impl_verified("wgmma", "fp16", "4096", "4096", "4096", true);
		/* not a multiple of any tile, still past the all-outputs limit */
		expect_impl_verified("wgmma", "bf16", "4000", "3000", "2056", true);
		/* k % 8 != 0: the padded copies at size */
		expect_impl_verified("wgmma", "fp16", "4000", "3000", "2049", true);
	}
	expect_impl_verified("sgemm", "fp32", "4000", "3000", "2049", true);
	expect_impl_verified("mma", "bf16", "4000", "3000", "2056", true);
}

/* ---- reporting rules ---- */

static void test_injected_fault_caught(void **state)
{
	static const char *const impls[][2] = { { "sgemm", "fp32" }, { "mma", "bf16" },
						 { "wgmma", "fp16" } };

	(void)state;
	for (size_t i = 0; i < sizeof(impls) / sizeof(impls[0]); i++) {
		const char *args[] = { "--impl", impls[i][0], "--precision", impls[i][1], "--m",
				       "257", "--n", "511", "--k", "136", "--warmup", "0s",
				       "--duration", "10ms", "--samples", "5", "--inject-fault" };
		struct fixture f;
		struct gb_bench_result *r;
		const struct gb_check *c;
		char name[64];

		fixture_open(&f);
		if (!strcmp(impls[i][0], "wgmma") && !is_hopper(&f)) {
			fixture_close(&f);
			continue;
		}
		r = run_gemm(&f, args, 17);
		snprintf(name, sizeof(name), "verify_%s_%s", impls[i][1], impls[i][0]);
		c = find_check(r, name);
		if (!c || c->status != GB_STATUS_FAILED)
			dump(r);
		assert_non_null(c);
		assert_int_equal(c->status, GB_STATUS_FAILED);
		assert_non_null(strstr(c->message, "1 of "));
		assert_non_null(strstr(c->message, impls[i][0]));
		assert_int_equal(r->status, GB_STATUS_FAILED);
		fixture_close(&f);
	}
}

static void test_precision_mismatch_skipped(void **state)
{
	static const char *const args[] = { "--impl", "sgemm,mma", "--precision", "bf16,fp32",
					     "--size", "256", "--warmup", "0s", "--duration",
					     "10ms", "--samples", "5" };
	struct fixture f;
	struct gb_bench_result *r;
	const struct gb_check *c;

	(void)state;
	fixture_open(&f);
	r = run_gemm(&f, args, 12);
	if (r->status != GB_STATUS_PASSED)
		dump(r);
	assert_int_equal(r->status, GB_STATUS_PASSED);
	c = find_check(r, "impl_sgemm_bf16");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_SKIPPED);
	assert_string_equal(c->message, "sgemm computes fp32 only, not bf16");
	c = find_check(r, "impl_mma_fp32");
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_SKIPPED);
	/* the combinations that apply ran, cuBLASLt too */
	assert_non_null(gb_bench_find_metric(r, "tflops_fp32_sgemm", 0));
	assert_non_null(gb_bench_find_metric(r, "tflops_bf16_mma", 0));
	assert_non_null(gb_bench_find_metric(r, "tflops_fp32", 0));
	assert_non_null(gb_bench_find_metric(r, "tflops_bf16", 0));
	assert_null(gb_bench_find_metric(r, "tflops_bf16_sgemm", 0));
	assert_null(gb_bench_find_metric(r, "tflops_fp32_mma", 0));
	fixture_close(&f);
}

/* --impl mma alone, no --precision: fp16 and bf16 only, each with cuBLASLt */
static void test_default_precisions_follow_impl(void **state)
{
	static const char *const args[] = { "--impl", "mma", "--size", "256", "--warmup", "0s",
					     "--duration", "10ms", "--samples", "5" };
	struct fixture f;
	struct gb_bench_result *r;

	(void)state;
	fixture_open(&f);
	r = run_gemm(&f, args, 10);
	if (r->status != GB_STATUS_PASSED)
		dump(r);
	assert_int_equal(r->status, GB_STATUS_PASSED);
	assert_non_null(gb_bench_find_metric(r, "tflops_fp16_mma", 0));
	assert_non_null(gb_bench_find_metric(r, "tflops_bf16_mma", 0));
	assert_non_null(gb_bench_find_metric(r, "tflops_bf16", 0));
	assert_null(gb_bench_find_metric(r, "tflops_fp32", 0));
	assert_null(gb_bench_find_metric(r, "tflops_fp64", 0));
	fixture_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wgmma_launcher_refuses),
		cmocka_unit_test(test_fp32_odd_sizes),
		cmocka_unit_test(test_fp32_tiny_shapes),
		cmocka_unit_test(test_mma_odd_sizes),
		cmocka_unit_test(test_mma_tiny_shapes),
		cmocka_unit_test(test_wgmma_sizes),
		cmocka_unit_test(test_wgmma_tiny_shapes),
		cmocka_unit_test(test_wgmma_launcher_state),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_injected_fault_caught),
		cmocka_unit_test(test_precision_mismatch_skipped),
		cmocka_unit_test(test_default_precisions_follow_impl),
	};

	gb_test_require_gpu();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
