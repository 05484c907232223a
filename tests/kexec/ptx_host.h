/* SPDX-License-Identifier: MIT */
/*
 * ptx_host.h - kernels/ptx.cuh's wrappers in the host build: the same names
 * and signatures, emulated by kexec_ptx.cc from the PTX ISA (each function
 * there quotes the ISA text it follows). Included by cuda_host_shim.h.
 */
#ifndef GPUBENCH_TESTS_KEXEC_PTX_HOST_H
#define GPUBENCH_TESTS_KEXEC_PTX_HOST_H

#include <cstdint>

unsigned long long gb_ptx_globaltimer();

void gb_ptx_cp_async16(uint32_t dst, const void *src, uint32_t src_bytes);
void gb_ptx_cp_async_commit();
void gb_kx_cp_async_wait(int pending);
template <int kPending> static inline void gb_ptx_cp_async_wait()
{
	gb_kx_cp_async_wait(kPending);
}

void gb_ptx_ldmatrix_x4(uint32_t (&r)[4], uint32_t addr);
void gb_ptx_mma_m16n8k16_bf16(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]);
void gb_ptx_mma_m16n8k16_f16(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]);
void gb_ptx_st_shared_v4(uint32_t addr, uint32_t a, uint32_t b, uint32_t c, uint32_t d);

#endif
