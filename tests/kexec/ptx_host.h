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

/* sm_90a (kexec_wgmma.cc) */
void gb_ptx_mbarrier_init(uint32_t bar, uint32_t count);
void gb_ptx_fence_mbarrier_init();
void gb_ptx_mbarrier_arrive(uint32_t bar);
void gb_ptx_mbarrier_arrive_expect_tx(uint32_t bar, uint32_t bytes);
bool gb_ptx_mbarrier_try_wait_parity(uint32_t bar, uint32_t parity);
void gb_ptx_tma_load_2d(uint32_t dst, const void *map, uint32_t bar, int c0, int c1);
void gb_ptx_wgmma_fence();
void gb_ptx_wgmma_commit_group();
void gb_kx_wgmma_wait_group(int pending);
template <int kPending> static inline void gb_ptx_wgmma_wait_group()
{
	gb_kx_wgmma_wait_group(kPending);
}
void gb_kx_setmaxnreg(bool inc, int regs);
template <int kRegs> static inline void gb_ptx_setmaxnreg_inc()
{
	gb_kx_setmaxnreg(true, kRegs);
}
template <int kRegs> static inline void gb_ptx_setmaxnreg_dec()
{
	gb_kx_setmaxnreg(false, kRegs);
}
void gb_ptx_wgmma_m64n256k16_bf16(float (&d)[128], uint64_t da, uint64_t db);
void gb_ptx_wgmma_m64n256k16_f16(float (&d)[128], uint64_t da, uint64_t db);

#endif
