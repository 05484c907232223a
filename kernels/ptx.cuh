/* SPDX-License-Identifier: MIT */
/*
 * ptx.cuh - every inline PTX instruction of the kernels' .cu files, one wrapper each,
 * named gb_ptx_<instruction>. Under nvcc each is the asm statement the
 * kernels had written inline, operands, constraints and clobbers unchanged,
 * so the machine code is the same (the SASS was compared when they moved
 * here). The host build of the kernels (tests/kexec/, GB_KEXEC) gets the
 * same names from tests/kexec/ptx_host.h instead, emulated from the PTX ISA,
 * so the kernels' code runs unchanged on the CPU.
 *
 * Shared-memory operands are 32-bit shared-window addresses
 * (__cvta_generic_to_shared), as the instructions take them.
 */
#ifndef GPUBENCH_KERNELS_PTX_CUH
#define GPUBENCH_KERNELS_PTX_CUH

#include <stdint.h>

#ifndef GB_KEXEC

/* %globaltimer: nanoseconds, at the same rate whatever the SM clock */
static __device__ __forceinline__ unsigned long long gb_ptx_globaltimer()
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800

/* cp.async.cg 16 bytes global -> shared; src_bytes 0 writes zeros and reads nothing */
static __device__ __forceinline__ void gb_ptx_cp_async16(uint32_t dst, const void *src,
							 uint32_t src_bytes)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
		     "r"(src_bytes)
		     : "memory");
}

static __device__ __forceinline__ void gb_ptx_cp_async_commit()
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* wait until at most kPending of this thread's committed groups are in flight */
template <int kPending> static __device__ __forceinline__ void gb_ptx_cp_async_wait()
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

static __device__ __forceinline__ void gb_ptx_ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(addr));
}

/* mma.sync m16n8k16, row.col, FP32 accumulate in place: bf16 and f16 inputs */
static __device__ __forceinline__ void gb_ptx_mma_m16n8k16_bf16(float (&c)[4],
								const uint32_t (&a)[4],
								const uint32_t (&b)[2])
{
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
		     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
		     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

static __device__ __forceinline__ void gb_ptx_mma_m16n8k16_f16(float (&c)[4],
							       const uint32_t (&a)[4],
							       const uint32_t (&b)[2])
{
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
		     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
		     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* st.shared.v4.b32: 16 bytes at a shared address */
static __device__ __forceinline__ void gb_ptx_st_shared_v4(uint32_t addr, uint32_t a, uint32_t b,
							   uint32_t c, uint32_t d)
{
	asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(a), "r"(b),
		     "r"(c), "r"(d)
		     : "memory");
}

#endif /* sm_80 */

#endif /* !GB_KEXEC */

#endif
