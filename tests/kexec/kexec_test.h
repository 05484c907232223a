/* SPDX-License-Identifier: MIT */
/*
 * kexec_test.h - what the executor's tests share: device buffers through
 * the executor's runtime, the "no findings" assertion, 16-bit float
 * conversions and a host random source. Plain C (cmocka).
 */
#ifndef GPUBENCH_TESTS_KEXEC_KEXEC_TEST_H
#define GPUBENCH_TESTS_KEXEC_KEXEC_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "tests/kexec/kexec.h"

/* cudaMalloc'd (poisoned with 0xff bytes), asserting success */
void *kx_alloc(size_t bytes);
/* cudaMalloc'd copy of host data */
void *kx_upload(const void *host, size_t bytes);
void kx_download(void *host, const void *dev, size_t bytes);
void kx_free(void *dev);

/* no memcheck, racecheck or synccheck finding since the last reset */
void kx_assert_clean(void);

float kx_f16_to_float(uint16_t h);
float kx_bf16_to_float(uint16_t h);
/* round to nearest even into the 16-bit formats (finite inputs) */
uint16_t kx_f16_from_float(float f);
uint16_t kx_bf16_from_float(float f);

/* splitmix64 stream: the tests' inputs */
uint64_t kx_rand(uint64_t *state);
/* uniform in [-1, 1) in steps of 2^-11: exact in FP32 and FP16 (not BF16) */
float kx_rand_pm1(uint64_t *state);

#endif
