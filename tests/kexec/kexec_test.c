/* SPDX-License-Identifier: MIT */
/* kexec_test.c - the executor tests' shared helpers (kexec_test.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "tests/kexec/kexec_test.h"

void *kx_alloc(size_t bytes)
{
	void *p = NULL;

	assert_int_equal(cudaMalloc(&p, bytes), cudaSuccess);
	return p;
}

void *kx_upload(const void *host, size_t bytes)
{
	void *p = kx_alloc(bytes);

	assert_int_equal(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
	return p;
}

void kx_download(void *host, const void *dev, size_t bytes)
{
	assert_int_equal(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
}

void kx_free(void *dev)
{
	assert_int_equal(cudaFree(dev), cudaSuccess);
}

void kx_assert_clean(void)
{
	struct gb_kx_findings f = gb_kx_findings();

	assert_int_equal(f.memcheck, 0);
	assert_int_equal(f.racecheck, 0);
	assert_int_equal(f.synccheck, 0);
}

float kx_f16_to_float(uint16_t h)
{
	int e = h >> 10 & 0x1f, m = h & 0x3ff;
	float v;

	if (e == 0x1f)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexpf((float)m, -24);
	else
		v = ldexpf((float)(m | 0x400), e - 25);
	return h & 0x8000 ? -v : v;
}

float kx_bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

uint16_t kx_f16_from_float(float f)
{
	/*
	 * every f16 is exact in float, and the finite non-negative ones grow
	 * with their bits: find the neighbours by bisection, pick the nearer,
	 * ties to even (no infinity: beyond the largest finite, the largest)
	 */
	uint16_t sign = signbit(f) ? 0x8000 : 0, lo = 0, hi = 0x7c00;
	float a = fabsf(f);

	while (hi - lo > 1) {
		uint16_t mid = (uint16_t)((lo + hi) / 2);

		if (kx_f16_to_float(mid) <= a)
			lo = mid;
		else
			hi = mid;
	}
	if (hi < 0x7c00) {
		float el = a - kx_f16_to_float(lo), eh = kx_f16_to_float(hi) - a;

		if (eh < el || (eh == el && !(hi & 1)))
			lo = hi;
	}
	return sign | lo;
}

uint16_t kx_bf16_from_float(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof u);
	u += 0x7fff + (u >> 16 & 1);
	return (uint16_t)(u >> 16);
}

uint64_t kx_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

float kx_rand_pm1(uint64_t *s)
{
	return (float)((int)(kx_rand(s) >> 52) - 2048) / 2048.0f;
}
