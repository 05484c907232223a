/* SPDX-License-Identifier: MIT */
/*
 * test_sim_cublaslt.c - the simulated libcublasLt.so.13 (tests/sim/cublaslt/),
 * loaded as gpubench loads cuBLASLt (bench/device/cublaslt_dl.c, dlopen) and driven
 * through the product's own set-up, bench/device/lt_matmul.c: every gemm precision
 * against an FP64 reference under the product's verification bound
 * (bench/gemm/gemm_math.c), every algorithm the heuristic offers, then each
 * rejection the real library makes, with its status code.
 *
 * The library is found from GBSIM_TEST_CUBLASLT (a path), else the
 * GBSIM_CUBLASLT_PATH the build defines, else "libcublasLt.so.13".
 *
 * Built two ways (link with report/theory.c, which the machine loader carries):
 *   - against the simulated runtime (libcudart.so.13, tests/sim/runtime/),
 *     with GPUBENCH_SIM_MACHINE naming a machine file: the real set-up;
 *   - with -DGBSIM_LT_TEST_STUBS: this file defines the few runtime and
 *     gbsim_* functions the library needs (memory is host memory, work runs
 *     at once), so the library can be tested before and apart from the
 *     runtime. Link with -rdynamic so the dlopen'd library finds them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

/*
 * The product code this test drives, compiled into it: tests/sim/CMakeLists.txt
 * links the simulator's tests with the simulated runtime and the machine
 * loader (which carries report/theory.c) only, not with gpubench_gpu. These
 * six files need nothing else.
 */
#include "bench/device/cublaslt_dl.c"
#include "bench/device/dtype_math.c"
#include "bench/gemm/gemm_math.c"
#include "bench/device/lt_names_math.c"
#include "bench/device/lt_matmul.c"
#include "report/stats.c"
#include "tests/sim/sim.h"

#ifndef GBSIM_CUBLASLT_PATH
#define GBSIM_CUBLASLT_PATH "libcublasLt.so.13"
#endif

#define WORKSPACE_BYTES (32u << 20)

/* ======================================================================= */
/* stand-ins for the simulated runtime (GBSIM_LT_TEST_STUBS builds only)    */

#ifdef GBSIM_LT_TEST_STUBS

static int stub_device_count = 1;
static int stub_cc = 90;
static cudaError_t stub_sticky = cudaSuccess;
static int stub_logs;

struct stub_alloc {
	const char *p;
	size_t bytes;
};
static struct stub_alloc stub_allocs[256];

cudaError_t cudaGetDeviceCount(int *count)
{
	*count = stub_device_count;
	return stub_device_count ? cudaSuccess : cudaErrorNoDevice;
}

cudaError_t cudaGetDevice(int *device)
{
	*device = 0;
	return stub_device_count ? cudaSuccess : cudaErrorNoDevice;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	(void)device;
	memset(prop, 0, sizeof(*prop));
	snprintf(prop->name, sizeof(prop->name), "stub GPU %d.%d", stub_cc / 10, stub_cc % 10);
	prop->major = stub_cc / 10;
	prop->minor = stub_cc % 10;
	prop->multiProcessorCount = 132;
	return cudaSuccess;
}

const char *cudaGetErrorName(cudaError_t error)
{
	return error == cudaSuccess ? "cudaSuccess" : "cudaError (stub)";
}

cudaError_t cudaMalloc(void **p, size_t bytes)
{
	for (size_t i = 0; i < sizeof(stub_allocs) / sizeof(stub_allocs[0]); i++)
		if (!stub_allocs[i].p) {
			/* cudaMalloc gives at least 256-byte alignment */
			*p = aligned_alloc(256, (bytes + 255) / 256 * 256);
			stub_allocs[i].p = *p;
			stub_allocs[i].bytes = bytes;
			return *p ? cudaSuccess : cudaErrorMemoryAllocation;
		}
	return cudaErrorMemoryAllocation;
}

cudaError_t cudaFree(void *p)
{
	for (size_t i = 0; i < sizeof(stub_allocs) / sizeof(stub_allocs[0]); i++)
		if (p && stub_allocs[i].p == p) {
			free(p);
			stub_allocs[i].p = NULL;
			return cudaSuccess;
		}
	return p ? cudaErrorInvalidValue : cudaSuccess;
}

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
	*p = malloc(bytes);
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaFreeHost(void *p)
{
	free(p);
	return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
	(void)kind;
	memcpy(dst, src, bytes);
	return cudaSuccess;
}

cudaError_t cudaMemset(void *dst, int value, size_t bytes)
{
	memset(dst, value, bytes);
	return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
	return stub_sticky;
}

const struct gbsim_machine *gbsim_machine(void)
{
	static struct gbsim_machine m = { .gpu_count = 1 };

	return &m;
}

cudaError_t gbsim_check_access(int device, const void *p, size_t bytes, const char *what)
{
	const char *c = p;

	(void)device;
	for (size_t i = 0; i < sizeof(stub_allocs) / sizeof(stub_allocs[0]); i++)
		if (stub_allocs[i].p && c >= stub_allocs[i].p &&
		    c + bytes <= stub_allocs[i].p + stub_allocs[i].bytes)
			return cudaSuccess;
	gbsim_log("%s: %zu bytes at %p are not device memory", what, bytes, p);
	return cudaErrorIllegalAddress;
}

int gbsim_current_device(void)
{
	return 0;
}

int gbsim_stream_device(cudaStream_t s)
{
	(void)s;
	return 0;
}

cudaError_t gbsim_enqueue(cudaStream_t s, const struct gbsim_work *w)
{
	cudaError_t e;

	(void)s;
	assert_true(w->seconds > 0);
	/* run at once, the error sticky as on a GPU */
	e = w->run(w->ctx);
	if (e != cudaSuccess && stub_sticky == cudaSuccess)
		stub_sticky = e;
	if (w->free_ctx)
		w->free_ctx(w->ctx);
	return cudaSuccess;
}

double gbsim_cost_seconds(int device, const struct gbsim_cost *c)
{
	(void)device;
	return 5e-6 + c->flops / 1e15 + c->bytes / 3e12 + c->fixed_s;
}

/* no write stamps here: the library hashes every operand and writes D at once */
bool gbsim_mem_stamp(const void *p, size_t bytes, struct gbsim_mem_stamp *out)
{
	(void)p, (void)bytes, (void)out;
	return false;
}

void gbsim_mem_wrote(const void *p, size_t bytes)
{
	(void)p, (void)bytes;
}

void gbsim_set_deferred_hooks(void (*flush)(const void *p, size_t bytes),
			      void (*forget)(const void *base, size_t size),
			      bool (*content)(const void *p, size_t bytes, uint64_t digest[2]))
{
	(void)flush, (void)forget, (void)content;
}

void gbsim_log(const char *fmt, ...)
{
	va_list ap;

	stub_logs++;
	fputs("gpubench-sim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* x rounded to nearest even with p significand bits, exponent >= emin (subnormals below) */
static double stub_round(double x, int p, int emin)
{
	double q;
	int e;

	if (x == 0 || !isfinite(x))
		return x;
	e = ilogb(x);
	if (e < emin)
		e = emin;
	q = ldexp(1.0, e - (p - 1));
	return nearbyint(x / q) * q;
}

uint16_t gbsim_f16_from_double(double x)
{
	uint16_t s = signbit(x) ? 0x8000 : 0;
	double r = stub_round(fabs(x), 11, -14);
	int e;

	if (isnan(x))
		return 0x7e00;
	if (r > 65504)
		return s | 0x7c00;
	if (r == 0)
		return s;
	e = ilogb(r);
	if (e < -14)
		return s | (uint16_t)ldexp(r, 24);
	return s | (uint16_t)((e + 15) << 10) | (uint16_t)(ldexp(r, 10 - e) - 1024);
}

uint16_t gbsim_f16_from_float(float x)
{
	return gbsim_f16_from_double(x);
}

float gbsim_f16_to_float(uint16_t h)
{
	int e = (h >> 10) & 0x1f;
	double v = e == 0x1f ? ((h & 0x3ff) ? NAN : INFINITY)
		   : e ? ldexp((h & 0x3ff) + 1024, e - 25) : ldexp(h & 0x3ff, -24);

	return (float)(h & 0x8000 ? -v : v);
}

uint16_t gbsim_bf16_from_double(double x)
{
	float f;
	uint32_t u;

	if (isnan(x))
		return 0x7fc0;
	f = (float)stub_round(x, 8, -126);  /* exact in float, inf beyond its range */
	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16);
}

uint16_t gbsim_bf16_from_float(float x)
{
	return gbsim_bf16_from_double(x);
}

float gbsim_bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

uint8_t gbsim_e4m3_from_double(double x)
{
	uint8_t s = signbit(x) ? 0x80 : 0;
	double r = stub_round(fabs(x), 4, -6);
	int e;

	if (isnan(x))
		return 0x7f;
	if (r > 448)
		r = 448;  /* saturating */
	if (r == 0)
		return s;
	e = ilogb(r);
	if (e < -6)
		return s | (uint8_t)ldexp(r, 9);
	return s | (uint8_t)((e + 7) << 3) | (uint8_t)(ldexp(r, 3 - e) - 8);
}

uint8_t gbsim_e4m3_from_float(float x)
{
	return gbsim_e4m3_from_double(x);
}

float gbsim_e4m3_to_float(uint8_t v)
{
	int e = (v >> 3) & 0xf;
	double m = v & 7, r;

	if (e == 0xf && m == 7)
		return NAN;
	r = e ? ldexp(m + 8, e - 10) : ldexp(m, -9);
	return (float)(v & 0x80 ? -r : r);
}

float gbsim_tf32_round(float x)
{
	return (float)stub_round(x, 11, -126);
}

#define SIM_STUBS 1
#else
#define SIM_STUBS 0
#endif

/* ======================================================================= */
/* helpers                                                                  */

static const struct gb_cublaslt *lt;
static cublasLtHandle_t handle;

static int setup(void **state)
{
	const char *path = getenv("GBSIM_TEST_CUBLASLT");
	char err[512];

	(void)state;
	if (gb_cublaslt_load_from(path && *path ? path : GBSIM_CUBLASLT_PATH, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	lt = gb_cublaslt();
	return lt->cublasLtCreate(&handle) == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return lt->cublasLtDestroy(handle) == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}

static uint64_t rng_state;

static double uniform(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng_state >> 11) * 0x1p-53 * 2.0 - 1.0;
}

/* one element of type t near v (int8: an integer in [-64, 64]) */
static void put(void *base, size_t i, enum gb_dtype t, double v)
{
	unsigned char *b = base;
	uint16_t h;
	float f;
	int32_t i32;

	switch (t) {
	case GB_DT_F64:
		memcpy(b + 8 * i, &v, 8);
		break;
	case GB_DT_F32:
		f = (float)v;
		memcpy(b + 4 * i, &f, 4);
		break;
	case GB_DT_F16:
		h = gbsim_f16_from_double(v);
		memcpy(b + 2 * i, &h, 2);
		break;
	case GB_DT_BF16:
		h = gbsim_bf16_from_double(v);
		memcpy(b + 2 * i, &h, 2);
		break;
	case GB_DT_E4M3:
		b[i] = gbsim_e4m3_from_double(v);
		break;
	case GB_DT_I8:
		b[i] = (unsigned char)(int8_t)lrint(v * GB_GEMM_INT8_MAX);
		break;
	default:
		i32 = (int32_t)lrint(v);
		memcpy(b + 4 * i, &i32, 4);
		break;
	}
}

static double get(const void *base, size_t i, enum gb_dtype t)
{
	return gb_dtype_to_double((const char *)base + i * gb_dtype_size(t), t);
}

/*
 * A k x cols column-major operand on the host and on the device. The host
 * copy is pinned: the simulated runtime's heap-backed device memory makes a
 * pageable buffer at a freed device address read as "use after free".
 */
struct operand {
	void *host, *dev;
	size_t bytes;
};

static void operand_make(struct operand *o, enum gb_dtype t, size_t elems, uint64_t seed)
{
	o->bytes = elems * gb_dtype_size(t);
	assert_int_equal(cudaMallocHost(&o->host, o->bytes), cudaSuccess);
	rng_state = seed;
	for (size_t i = 0; i < elems; i++)
		put(o->host, i, t, uniform());
	assert_int_equal(cudaMalloc(&o->dev, o->bytes), cudaSuccess);
	assert_int_equal(cudaMemcpy(o->dev, o->host, o->bytes, cudaMemcpyHostToDevice),
			 cudaSuccess);
}

static void operand_free(struct operand *o)
{
	cudaFreeHost(o->host);
	cudaFree(o->dev);
}

/* one TN problem at a gemm precision, set up by the product's bench/device/lt_matmul.c */
struct problem {
	enum gb_precision prec;
	enum gb_dtype t_ab, t_d;
	uint64_t m, n, k;
	struct operand a, b;
	void *d_dev, *ws, *d_host;
	float *scale_dev;
	struct gb_lt_matmul mm;
};

static void problem_make(struct problem *p, enum gb_precision prec, uint64_t m, uint64_t n,
			 uint64_t k, float scale)
{
	const char *what = NULL;

	memset(p, 0, sizeof(*p));
	p->prec = prec;
	p->t_ab = gb_gemm_input_type(prec);
	p->t_d = gb_gemm_output_type(prec);
	p->m = m, p->n = n, p->k = k;
	operand_make(&p->a, p->t_ab, k * m, 1);
	operand_make(&p->b, p->t_ab, k * n, 2);
	assert_int_equal(cudaMalloc(&p->d_dev, m * n * gb_dtype_size(p->t_d)), cudaSuccess);
	assert_int_equal(cudaMalloc(&p->ws, WORKSPACE_BYTES), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&p->scale_dev, sizeof(float)), cudaSuccess);
	assert_int_equal(cudaMemcpy(p->scale_dev, &scale, sizeof(scale), cudaMemcpyHostToDevice),
			 cudaSuccess);
	assert_int_equal(cudaMallocHost(&p->d_host, m * n * gb_dtype_size(p->t_d)), cudaSuccess);
	assert_int_equal(gb_lt_matmul_create(lt, &p->mm, prec, p->t_ab, p->t_d, m, n, k,
					     p->scale_dev, WORKSPACE_BYTES, &what),
			 CUBLAS_STATUS_SUCCESS);
}

static void problem_free(struct problem *p)
{
	gb_lt_matmul_destroy(&p->mm);
	operand_free(&p->a);
	operand_free(&p->b);
	cudaFree(p->d_dev);
	cudaFree(p->ws);
	cudaFree(p->scale_dev);
	cudaFreeHost(p->d_host);
}

static cublasStatus_t problem_run(struct problem *p, const cublasLtMatmulAlgo_t *algo)
{
	cublasStatus_t st = gb_lt_matmul_run(&p->mm, handle, p->a.dev, p->b.dev, p->d_dev, algo,
					     p->ws, WORKSPACE_BYTES, 0);

	if (st == CUBLAS_STATUS_SUCCESS) {
		assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
		size_t bytes = p->m * p->n * gb_dtype_size(p->t_d);

		assert_int_equal(cudaMemcpy(p->d_host, p->d_dev, bytes, cudaMemcpyDeviceToHost),
				 cudaSuccess);
	}
	return st;
}

/* worst gb_gemm_rel_error of D against the FP64 reference, scaled by ab_scale^2 */
static double problem_max_error(const struct problem *p, double ab_scale)
{
	double worst = 0;

	for (uint64_t j = 0; j < p->n; j++)
		for (uint64_t i = 0; i < p->m; i++) {
			double ref = 0, sum_abs = 0, got, e;

			for (uint64_t kk = 0; kk < p->k; kk++) {
				double x = get(p->a.host, kk + i * p->k, p->t_ab) *
					   get(p->b.host, kk + j * p->k, p->t_ab);

				ref += x;
				sum_abs += fabs(x);
			}
			ref *= ab_scale * ab_scale;
			sum_abs *= ab_scale * ab_scale;
			got = get(p->d_host, i + j * p->m, p->t_d);
			e = gb_gemm_rel_error(got, ref, sum_abs, p->k);
			if (isnan(e) || e > worst)
				worst = isnan(e) ? INFINITY : e;
		}
	return worst;
}

/* ======================================================================= */
/* every precision, every algorithm, against the product's bound            */

/* the machine file's GPU may not have a precision: test_reject_* cover that */
static void skip_unless_supported(enum gb_precision prec)
{
	struct cudaDeviceProp prop;
	int dev = 0;

	assert_int_equal(cudaGetDevice(&dev), cudaSuccess);
	assert_int_equal(cudaGetDeviceProperties(&prop, dev), cudaSuccess);
	if (!gb_gemm_prec_supported(prec, prop.major, prop.minor))
		skip();
}

static void check_precision(enum gb_precision prec)
{
	cublasLtMatmulHeuristicResult_t cand[8];
	struct problem p;
	int n = 0;

	skip_unless_supported(prec);
	/* 48 x 40 leaves most SMs idle: the heuristic adds a split-K candidate (k = 256) */
	problem_make(&p, prec, 48, 40, 256, 1.0f);
	assert_int_equal(gb_lt_matmul_algos(&p.mm, handle, cand, 8, &n), CUBLAS_STATUS_SUCCESS);
	assert_true(n >= 2);
	for (int c = 0; c < n; c++) {
		struct gb_lt_algo_config cfg;
		double bound, err;

		gb_lt_algo_config(lt, &cand[c].algo, &cfg);
		assert_true(cfg.id >= 0 && cfg.tile > 0 && cfg.stages > 0 && cfg.splitk >= 1);
		assert_true(cand[c].wavesCount > 0);
		assert_true(cfg.splitk == 1 || cand[c].workspaceSize > 0);
		memset(p.d_host, 0xff, p.m * p.n * gb_dtype_size(p.t_d));
		assert_int_equal(problem_run(&p, &cand[c].algo), CUBLAS_STATUS_SUCCESS);
		bound = gb_gemm_error_bound(prec, p.k) +
			gb_gemm_split_k_slack(prec, cfg.splitk, cfg.reduction_scheme);
		err = problem_max_error(&p, 1.0);
		print_message("%s: algo %lld tile %lld stages %lld split-K %lld reduction %lld "
			      "workspace %zu waves %.3f: error %.3g, bound %.3g\n",
			      gb_precision_name(prec), (long long)cfg.id, (long long)cfg.tile,
			      (long long)cfg.stages, (long long)cfg.splitk,
			      (long long)cfg.reduction_scheme, cand[c].workspaceSize,
			      (double)cand[c].wavesCount, err, bound);
		if (err > bound)
			fail_msg("%s algo %lld (split-K %lld): error %g above the bound %g",
				 gb_precision_name(prec), (long long)cfg.id, (long long)cfg.splitk,
				 err, bound);
	}
	problem_free(&p);
}

static void test_fp64(void **state)
{
	(void)state;
	check_precision(GB_PREC_FP64);
}

static void test_fp32(void **state)
{
	(void)state;
	check_precision(GB_PREC_FP32);
}

static void test_tf32(void **state)
{
	(void)state;
	check_precision(GB_PREC_TF32);
}

static void test_fp16(void **state)
{
	(void)state;
	check_precision(GB_PREC_FP16);
}

static void test_bf16(void **state)
{
	(void)state;
	check_precision(GB_PREC_BF16);
}

static void test_fp16acc16(void **state)
{
	(void)state;
	check_precision(GB_PREC_FP16_ACC16);
}

static void test_fp8(void **state)
{
	(void)state;
	check_precision(GB_PREC_FP8);
}

static void test_int8(void **state)
{
	(void)state;
	check_precision(GB_PREC_INT8);
}

/* FP32 on CUDA cores is FFMA in k order: the same bits as a sequential fmaf loop */
static void test_fp32_bits(void **state)
{
	cublasLtMatmulHeuristicResult_t cand[8];
	struct problem p;
	int n = 0;

	(void)state;
	problem_make(&p, GB_PREC_FP32, 32, 24, 100, 1.0f);
	assert_int_equal(gb_lt_matmul_algos(&p.mm, handle, cand, 8, &n), CUBLAS_STATUS_SUCCESS);
	assert_int_equal(problem_run(&p, &cand[0].algo), CUBLAS_STATUS_SUCCESS);
	for (uint64_t j = 0; j < p.n; j++)
		for (uint64_t i = 0; i < p.m; i++) {
			float acc = 0;

			for (uint64_t kk = 0; kk < p.k; kk++)
				acc = fmaf((float)get(p.a.host, kk + i * p.k, GB_DT_F32),
					   (float)get(p.b.host, kk + j * p.k, GB_DT_F32), acc);
			assert_true(acc == (float)get(p.d_host, i + j * p.m, GB_DT_F32));
		}
	problem_free(&p);
}

/* the FP8 A and B scales multiply the product (cuBLASLt: alpha * scaleA * scaleB * AB) */
static void test_fp8_scale(void **state)
{
	cublasLtMatmulHeuristicResult_t cand[8];
	struct problem p;
	int n = 0;

	(void)state;
	skip_unless_supported(GB_PREC_FP8);
	problem_make(&p, GB_PREC_FP8, 32, 32, 64, 0.5f);
	assert_int_equal(gb_lt_matmul_algos(&p.mm, handle, cand, 8, &n), CUBLAS_STATUS_SUCCESS);
	assert_true(n >= 1);
	assert_int_equal(problem_run(&p, &cand[0].algo), CUBLAS_STATUS_SUCCESS);
	assert_true(problem_max_error(&p, 0.5) <= gb_gemm_error_bound(GB_PREC_FP8, p.k));
	problem_free(&p);
}

/* identical calls give identical bits (the result cache must not change them) */
static void test_repeatable(void **state)
{
	cublasLtMatmulHeuristicResult_t cand[8];
	struct problem p;
	void *first;
	size_t bytes;
	int n = 0;

	(void)state;
	problem_make(&p, GB_PREC_BF16, 64, 64, 64, 1.0f);
	bytes = p.m * p.n * gb_dtype_size(p.t_d);
	first = malloc(bytes);
	assert_non_null(first);
	assert_int_equal(gb_lt_matmul_algos(&p.mm, handle, cand, 8, &n), CUBLAS_STATUS_SUCCESS);
	assert_int_equal(problem_run(&p, &cand[0].algo), CUBLAS_STATUS_SUCCESS);
	memcpy(first, p.d_host, bytes);
	for (int r = 0; r < 3; r++) {
		assert_int_equal(cudaMemset(p.d_dev, 0, bytes), cudaSuccess);
		assert_int_equal(problem_run(&p, &cand[0].algo), CUBLAS_STATUS_SUCCESS);
		assert_memory_equal(first, p.d_host, bytes);
	}
	/* new inputs, new result: the cache keys on contents, not on pointers */
	put(p.a.host, 0, p.t_ab, 0.75);
	assert_int_equal(cudaMemcpy(p.a.dev, p.a.host, p.a.bytes, cudaMemcpyHostToDevice),
			 cudaSuccess);
	assert_int_equal(problem_run(&p, &cand[0].algo), CUBLAS_STATUS_SUCCESS);
	assert_true(problem_max_error(&p, 1.0) <= gb_gemm_error_bound(GB_PREC_BF16, p.k));
	free(first);
	problem_free(&p);
}

/*
 * The result cache trusts a device operand's write stamp instead of hashing
 * it, and defers writing D: every way memory is written must show in the
 * next result, and a deferred D must land before anything else touches D.
 */
static void check_against_reference(struct problem *p, const cublasLtMatmulAlgo_t *algo)
{
	assert_int_equal(problem_run(p, algo), CUBLAS_STATUS_SUCCESS);
	assert_true(problem_max_error(p, 1.0) <= gb_gemm_error_bound(p->prec, p->k));
}

static void test_cache_sees_writes(void **state)
{
	cublasLtMatmulHeuristicResult_t cand[8];
	struct problem p;
	struct operand other;
	size_t d_bytes;
	void *first;
	int n = 0;

	(void)state;
	problem_make(&p, GB_PREC_BF16, 64, 64, 64, 1.0f);
	d_bytes = p.m * p.n * gb_dtype_size(p.t_d);
	first = malloc(d_bytes);
	assert_non_null(first);
	assert_int_equal(gb_lt_matmul_algos(&p.mm, handle, cand, 8, &n), CUBLAS_STATUS_SUCCESS);
	check_against_reference(&p, &cand[0].algo);
	memcpy(first, p.d_host, d_bytes);
	/* hit on repeat: same bits */
	check_against_reference(&p, &cand[0].algo);
	assert_memory_equal(first, p.d_host, d_bytes);
	/* a deferred D lands before a memset of D, not after it */
	assert_int_equal(gb_lt_matmul_run(&p.mm, handle, p.a.dev, p.b.dev, p.d_dev, &cand[0].algo,
					  p.ws, WORKSPACE_BYTES, 0), CUBLAS_STATUS_SUCCESS);
	assert_int_equal(cudaMemset(p.d_dev, 0, d_bytes), cudaSuccess);
	assert_int_equal(cudaMemcpy(p.d_host, p.d_dev, d_bytes, cudaMemcpyDeviceToHost),
			 cudaSuccess);
	for (size_t i = 0; i < d_bytes; i++)
		assert_int_equal(((unsigned char *)p.d_host)[i], 0);
	/* memset of A */
	assert_int_equal(cudaMemset(p.a.dev, 0, p.a.bytes), cudaSuccess);
	memset(p.a.host, 0, p.a.bytes);
	check_against_reference(&p, &cand[0].algo);
	/* device-to-device copy into A */
	operand_make(&other, p.t_ab, p.a.bytes / gb_dtype_size(p.t_ab), 7);
	assert_int_equal(cudaMemcpy(p.a.dev, other.dev, p.a.bytes, cudaMemcpyDeviceToDevice),
			 cudaSuccess);
	memcpy(p.a.host, other.host, p.a.bytes);
	check_against_reference(&p, &cand[0].algo);
	/* a matmul's D read back as an operand: A freed, D reallocated where A was */
	assert_int_equal(cudaFree(p.a.dev), cudaSuccess);
	assert_int_equal(cudaMalloc(&p.a.dev, p.a.bytes), cudaSuccess);
	assert_int_equal(cudaMemcpy(p.a.dev, p.a.host, p.a.bytes, cudaMemcpyHostToDevice),
			 cudaSuccess);
	check_against_reference(&p, &cand[0].algo);
	operand_free(&other);
	free(first);
	problem_free(&p);
}

/* freed and reallocated at the same address, unwritten: no stale digest */
static void test_cache_realloc(void **state)
{
	struct gbsim_mem_stamp s1, s2;
	void *x, *y;

	(void)state;
	assert_int_equal(cudaMalloc(&x, 4096), cudaSuccess);
	assert_true(gbsim_mem_stamp(x, 4096, &s1));
	assert_int_equal(cudaFree(x), cudaSuccess);
	assert_int_equal(cudaMalloc(&y, 4096), cudaSuccess);
	assert_true(gbsim_mem_stamp(y, 4096, &s2));
	assert_true(s1.version != s2.version);
	gbsim_mem_wrote(y, 0);
	assert_true(gbsim_mem_stamp(y, 4096, &s1));
	assert_true(s1.version != s2.version);
	/* host memory is never stamped: the host writes it unseen */
	assert_false(gbsim_mem_stamp(&s1, sizeof(s1), &s2));
	assert_false(gbsim_mem_stamp(y, 8192, &s2));
	assert_int_equal(cudaFree(y), cudaSuccess);
}

/* ======================================================================= */
/* rejections, with the real status codes                                   */

/* descriptors for D (m x n) = op(A) op(B), C = D, with explicit types and ops */
struct raw {
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t a, b, c;
	cublasLtMatmulPreference_t pref;
};

static void raw_make(struct raw *r, cublasComputeType_t compute, cudaDataType_t scale,
		     cudaDataType_t tab, cudaDataType_t tcd, cublasOperation_t ta,
		     cublasOperation_t tb, uint64_t m, uint64_t n, uint64_t k, int64_t lda)
{
	uint64_t ws = WORKSPACE_BYTES;

	assert_int_equal(lt->cublasLtMatmulDescCreate(&r->op, compute, scale),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmulDescSetAttribute(r->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
							    sizeof(ta)), CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmulDescSetAttribute(r->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
							    sizeof(tb)), CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatrixLayoutCreate(&r->a, tab, ta == CUBLAS_OP_N ? m : k,
							ta == CUBLAS_OP_N ? k : m, lda),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatrixLayoutCreate(&r->b, tab, tb == CUBLAS_OP_N ? k : n,
							tb == CUBLAS_OP_N ? n : k,
							(int64_t)(tb == CUBLAS_OP_N ? k : n)),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatrixLayoutCreate(&r->c, tcd, m, n, (int64_t)m),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmulPreferenceCreate(&r->pref), CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmulPreferenceSetAttribute(
				 r->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
				 sizeof(ws)), CUBLAS_STATUS_SUCCESS);
}

static void raw_free(struct raw *r)
{
	lt->cublasLtMatmulPreferenceDestroy(r->pref);
	lt->cublasLtMatrixLayoutDestroy(r->c);
	lt->cublasLtMatrixLayoutDestroy(r->b);
	lt->cublasLtMatrixLayoutDestroy(r->a);
	lt->cublasLtMatmulDescDestroy(r->op);
}

static cublasStatus_t raw_heuristic(const struct raw *r, cublasLtMatmulHeuristicResult_t *out,
				    int max, int *n)
{
	return lt->cublasLtMatmulAlgoGetHeuristic(handle, r->op, r->a, r->b, r->c, r->c, r->pref,
						  max, out, n);
}

static void test_reject_fp8_not_tn(void **state)
{
	cublasLtMatmulHeuristicResult_t res[4];
	struct raw r;
	int n = -1;

	(void)state;
	raw_make(&r, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_OP_N,
		 CUBLAS_OP_N, 32, 32, 32, 32);
	assert_int_equal(raw_heuristic(&r, res, 4, &n), CUBLAS_STATUS_NOT_SUPPORTED);
	assert_int_equal(n, 0);
	raw_free(&r);
}

static void test_reject_types(void **state)
{
	cublasLtMatmulHeuristicResult_t res[4];
	struct raw r;
	int n = -1;

	(void)state;
	/* FP16 inputs with a BF16 output is no row of the table */
	raw_make(&r, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF, CUBLAS_OP_T,
		 CUBLAS_OP_N, 32, 32, 32, 32);
	assert_int_equal(raw_heuristic(&r, res, 4, &n), CUBLAS_STATUS_NOT_SUPPORTED);
	raw_free(&r);
	/* COMPUTE_16F takes a half scale type */
	raw_make(&r, CUBLAS_COMPUTE_16F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F, CUBLAS_OP_T,
		 CUBLAS_OP_N, 32, 32, 32, 32);
	assert_int_equal(raw_heuristic(&r, res, 4, &n), CUBLAS_STATUS_NOT_SUPPORTED);
	raw_free(&r);
	/* FP8 scale pointers on FP16 inputs: INVALID_VALUE (cublasLt.h) */
	raw_make(&r, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F, CUBLAS_OP_T,
		 CUBLAS_OP_N, 32, 32, 32, 32);
	{
		const void *sp = &r;

		assert_int_equal(lt->cublasLtMatmulDescSetAttribute(
					 r.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sp,
					 sizeof(sp)), CUBLAS_STATUS_SUCCESS);
	}
	assert_int_equal(raw_heuristic(&r, res, 4, &n), CUBLAS_STATUS_INVALID_VALUE);
	raw_free(&r);
}

static void test_reject_ld(void **state)
{
	cublasLtMatmulHeuristicResult_t res[4];
	struct raw r;
	int n = -1;

	(void)state;
	/* A is k x m = 64 x 32 with lda 48 < 64 rows */
	raw_make(&r, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_OP_T,
		 CUBLAS_OP_N, 32, 32, 64, 48);
	assert_int_equal(raw_heuristic(&r, res, 4, &n), CUBLAS_STATUS_INVALID_VALUE);
	raw_free(&r);
}

static void test_reject_fp8_old_gpu(void **state)
{
	cublasLtMatmulHeuristicResult_t res[4];
	struct cudaDeviceProp prop;
	struct raw r;
	int n = -1, dev = 0;

	(void)state;
#if SIM_STUBS
	stub_cc = 80;
#endif
	assert_int_equal(cudaGetDevice(&dev), cudaSuccess);
	assert_int_equal(cudaGetDeviceProperties(&prop, dev), cudaSuccess);
	if (prop.major * 10 + prop.minor >= 89)
		skip();  /* this machine file's GPU runs FP8 */
	raw_make(&r, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_OP_T,
		 CUBLAS_OP_N, 32, 32, 32, 32);
	assert_int_equal(raw_heuristic(&r, res, 4, &n), CUBLAS_STATUS_NOT_SUPPORTED);
	raw_free(&r);
#if SIM_STUBS
	stub_cc = 90;
#endif
}

/* a fast algorithm refuses A 4 bytes off its 16-byte alignment; the unaligned one computes */
static void test_misaligned(void **state)
{
	cublasLtMatmulHeuristicResult_t res[8];
	const uint32_t align4 = 4;
	const float one = 1.0f, zero = 0.0f;
	struct raw r;
	float *a = NULL, *b = NULL, *d = NULL;
	int n = 0;

	(void)state;
	raw_make(&r, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_OP_T,
		 CUBLAS_OP_N, 32, 32, 32, 32);
	assert_int_equal(cudaMalloc((void **)&a, 32 * 33 * 4), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&b, 32 * 32 * 4), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&d, 32 * 32 * 4), cudaSuccess);
	assert_int_equal(cudaMemset(a, 0, 32 * 33 * 4), cudaSuccess);
	assert_int_equal(cudaMemset(b, 0, 32 * 32 * 4), cudaSuccess);
	assert_int_equal(raw_heuristic(&r, res, 8, &n), CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmul(handle, r.op, &one, a + 1, r.a, b, r.b, &zero, d, r.c,
					    d, r.c, &res[0].algo, NULL, 0, 0),
			 CUBLAS_STATUS_NOT_SUPPORTED);
	/* no algo: the implicit heuristic sees the pointers and picks one that runs */
	assert_int_equal(lt->cublasLtMatmul(handle, r.op, &one, a + 1, r.a, b, r.b, &zero, d, r.c,
					    d, r.c, NULL, NULL, 0, 0),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	/* promise only 4-byte alignment: what the heuristic offers then runs */
	assert_int_equal(lt->cublasLtMatmulPreferenceSetAttribute(
				 r.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align4, 4),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(raw_heuristic(&r, res, 8, &n), CUBLAS_STATUS_SUCCESS);
	assert_true(n >= 1);
	assert_int_equal(lt->cublasLtMatmul(handle, r.op, &one, a + 1, r.a, b, r.b, &zero, d, r.c,
					    d, r.c, &res[0].algo, NULL, 0, 0),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
	cudaFree(a);
	cudaFree(b);
	cudaFree(d);
	raw_free(&r);
}

/* a split-K algorithm (Init + Config) needs workspace: none given is INVALID_VALUE */
static void test_workspace(void **state)
{
	cublasLtMatmulHeuristicResult_t chk;
	cublasLtMatmulAlgo_t algo;
	const int32_t splitk = 4;
	const uint32_t red = CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
	const float one = 1.0f, zero = 0.0f;
	struct raw r;
	float *a = NULL, *b = NULL, *d = NULL;

	(void)state;
	raw_make(&r, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_OP_T,
		 CUBLAS_OP_N, 32, 32, 256, 256);
	assert_int_equal(cudaMalloc((void **)&a, 256 * 32 * 4), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&b, 256 * 32 * 4), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&d, 32 * 32 * 4), cudaSuccess);
	assert_int_equal(lt->cublasLtMatmulAlgoInit(handle, CUBLAS_COMPUTE_32F, CUDA_R_32F,
						    CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
						    6, &algo), CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmulAlgoConfigSetAttribute(
				 &algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof(splitk)),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmulAlgoConfigSetAttribute(
				 &algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red, sizeof(red)),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmulAlgoCheck(handle, r.op, r.a, r.b, r.c, r.c, &algo,
						     &chk), CUBLAS_STATUS_SUCCESS);
	assert_true(chk.workspaceSize >= 4 * 32 * 32 * 4);
	assert_int_equal(lt->cublasLtMatmul(handle, r.op, &one, a, r.a, b, r.b, &zero, d, r.c, d,
					    r.c, &algo, NULL, 0, 0),
			 CUBLAS_STATUS_INVALID_VALUE);
	cudaFree(a);
	cudaFree(b);
	cudaFree(d);
	raw_free(&r);
}

/* ======================================================================= */
/* descriptors and the algorithm API                                        */

static void test_attributes(void **state)
{
	cublasLtMatmulDesc_t op;
	int32_t v = CUBLAS_OP_T, got = 0;
	int64_t wrong = 0;
	size_t written = 0;

	(void)state;
	assert_int_equal(lt->cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &v,
							    sizeof(v)), CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &got,
							    sizeof(got), &written),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(got, CUBLAS_OP_T);
	assert_int_equal(written, sizeof(got));
	/* wrong size, no buffer, no such attribute */
	assert_int_equal(lt->cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &wrong,
							    sizeof(wrong)),
			 CUBLAS_STATUS_INVALID_VALUE);
	assert_int_equal(lt->cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, NULL,
							    sizeof(v)),
			 CUBLAS_STATUS_INVALID_VALUE);
	assert_int_equal(lt->cublasLtMatmulDescSetAttribute(op, (cublasLtMatmulDescAttributes_t)9,
							    &v, sizeof(v)),
			 CUBLAS_STATUS_INVALID_VALUE);
	assert_int_equal(lt->cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE,
							    NULL, 0, &written),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(written, 4);
	assert_int_equal(lt->cublasLtMatmulDescDestroy(op), CUBLAS_STATUS_SUCCESS);
	/* an unknown compute type */
	assert_int_equal(lt->cublasLtMatmulDescCreate(&op, (cublasComputeType_t)12, CUDA_R_32F),
			 CUBLAS_STATUS_INVALID_VALUE);
	assert_string_equal(lt->cublasLtGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED),
			    "CUBLAS_STATUS_NOT_SUPPORTED");
	assert_int_equal(lt->version / 10000, CUBLAS_VER_MAJOR);
}

static void test_algo_api(void **state)
{
	int ids[8], n = 0;
	cublasLtMatmulAlgo_t algo;
	uint32_t tiles[8], tile = 0;
	size_t written = 0;
	int32_t id = 5;
	bool found = false;

	(void)state;
	assert_int_equal(lt->cublasLtMatmulAlgoGetIds(handle, CUBLAS_COMPUTE_32F, CUDA_R_32F,
						      CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF,
						      CUDA_R_16BF, 8, ids, &n),
			 CUBLAS_STATUS_SUCCESS);
	assert_true(n >= 2);
	assert_int_equal(lt->cublasLtMatmulAlgoInit(handle, CUBLAS_COMPUTE_32F, CUDA_R_32F,
						    CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF,
						    CUDA_R_16BF, ids[0], &algo),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_TILE_IDS,
							       NULL, 0, &written),
			 CUBLAS_STATUS_SUCCESS);
	assert_true(written >= 4 && written <= sizeof(tiles));
	assert_int_equal(lt->cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_TILE_IDS,
							       tiles, sizeof(tiles), &written),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmulAlgoConfigSetAttribute(
				 &algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tiles[0], sizeof(tiles[0])),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(lt->cublasLtMatmulAlgoConfigGetAttribute(
				 &algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof(tile),
				 &written), CUBLAS_STATUS_SUCCESS);
	assert_int_equal(tile, tiles[0]);
	for (size_t i = 0; i < written / 4; i++)
		found = found || tiles[i] == tile;
	assert_true(found);
	/* the id is read-only; an id these types lack: NOT_SUPPORTED; an unknown id: INVALID */
	assert_int_equal(lt->cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID,
								  &id, sizeof(id)),
			 CUBLAS_STATUS_INVALID_VALUE);
	assert_int_equal(lt->cublasLtMatmulAlgoInit(handle, CUBLAS_COMPUTE_32F, CUDA_R_32F,
						    CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF,
						    CUDA_R_16BF, 0, &algo),
			 CUBLAS_STATUS_NOT_SUPPORTED);
	assert_int_equal(lt->cublasLtMatmulAlgoInit(handle, CUBLAS_COMPUTE_32F, CUDA_R_32F,
						    CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF,
						    CUDA_R_16BF, 9999, &algo),
			 CUBLAS_STATUS_INVALID_VALUE);
}

#if SIM_STUBS
static void test_create_without_device(void **state)
{
	cublasLtHandle_t h = NULL;

	(void)state;
	stub_device_count = 0;
	assert_int_equal(lt->cublasLtCreate(&h), CUBLAS_STATUS_NOT_INITIALIZED);
	stub_device_count = 1;
}
#endif

/*
 * A host stack buffer as A: the queued product faults as a kernel would,
 * with the sticky cudaErrorIllegalAddress. Last: the device is unusable after.
 */
static void test_bad_pointer(void **state)
{
	cublasLtMatmulHeuristicResult_t res[4];
	float host_a[32 * 32];
	const float one = 1.0f, zero = 0.0f;
	struct raw r;
	float *b = NULL, *d = NULL;
	int n = 0;

	(void)state;
	memset(host_a, 0, sizeof(host_a));
	raw_make(&r, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_OP_T,
		 CUBLAS_OP_N, 32, 32, 32, 32);
	assert_int_equal(cudaMalloc((void **)&b, 32 * 32 * 4), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&d, 32 * 32 * 4), cudaSuccess);
	assert_int_equal(raw_heuristic(&r, res, 4, &n), CUBLAS_STATUS_SUCCESS);
	/* launch-time checks pass: the fault is found when the work runs */
	assert_int_equal(lt->cublasLtMatmul(handle, r.op, &one, host_a, r.a, b, r.b, &zero, d,
					    r.c, d, r.c, &res[0].algo, NULL, 0, 0),
			 CUBLAS_STATUS_SUCCESS);
	assert_int_equal(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
	cudaFree(b);
	cudaFree(d);
	raw_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attributes),
		cmocka_unit_test(test_algo_api),
		cmocka_unit_test(test_fp64),
		cmocka_unit_test(test_fp32),
		cmocka_unit_test(test_tf32),
		cmocka_unit_test(test_fp16),
		cmocka_unit_test(test_bf16),
		cmocka_unit_test(test_fp16acc16),
		cmocka_unit_test(test_fp8),
		cmocka_unit_test(test_int8),
		cmocka_unit_test(test_fp32_bits),
		cmocka_unit_test(test_fp8_scale),
		cmocka_unit_test(test_repeatable),
#if !SIM_STUBS
		cmocka_unit_test(test_cache_sees_writes),
		cmocka_unit_test(test_cache_realloc),
#endif
		cmocka_unit_test(test_reject_fp8_not_tn),
		cmocka_unit_test(test_reject_types),
		cmocka_unit_test(test_reject_ld),
		cmocka_unit_test(test_reject_fp8_old_gpu),
		cmocka_unit_test(test_misaligned),
		cmocka_unit_test(test_workspace),
#if SIM_STUBS
		cmocka_unit_test(test_create_without_device),
#endif
		cmocka_unit_test(test_bad_pointer),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
