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

/*
 * sm_90a: wgmma.cu's mbarrier, TMA, wgmma and setmaxnreg. Only its object
 * (built for 90a-real alone) calls them; elsewhere they are never compiled.
 */
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)

static __device__ __forceinline__ void gb_ptx_mbarrier_init(uint32_t bar, uint32_t count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* makes the initialised barriers visible to the async proxy (TMA's complete_tx) */
static __device__ __forceinline__ void gb_ptx_fence_mbarrier_init()
{
	asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

static __device__ __forceinline__ void gb_ptx_mbarrier_arrive(uint32_t bar)
{
	asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* one arrival, and `bytes` more transaction bytes the phase waits for */
static __device__ __forceinline__ void gb_ptx_mbarrier_arrive_expect_tx(uint32_t bar,
									uint32_t bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
		     "r"(bytes)
		     : "memory");
}

/* whether the phase of parity `parity` has completed (may suspend a while first) */
static __device__ __forceinline__ bool gb_ptx_mbarrier_try_wait_parity(uint32_t bar,
								       uint32_t parity)
{
	uint32_t done;

	asm volatile("{\n"
		     ".reg .pred p;\n"
		     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
		     "selp.u32 %0, 1, 0, p;\n"
		     "}\n"
		     : "=r"(done)
		     : "r"(bar), "r"(parity)
		     : "memory");
	return done != 0;
}

/* TMA: the box at (c0, c1) of the tensor map `map` into shared memory, completing on `bar` */
static __device__ __forceinline__ void gb_ptx_tma_load_2d(uint32_t dst, const void *map,
							  uint32_t bar, int c0, int c1)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
		     ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
		     "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
		     : "memory");
}

static __device__ __forceinline__ void gb_ptx_wgmma_fence()
{
	asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

static __device__ __forceinline__ void gb_ptx_wgmma_commit_group()
{
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int kPending> static __device__ __forceinline__ void gb_ptx_wgmma_wait_group()
{
	asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

template <int kRegs> static __device__ __forceinline__ void gb_ptx_setmaxnreg_inc()
{
	asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

template <int kRegs> static __device__ __forceinline__ void gb_ptx_setmaxnreg_dec()
{
	asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

/* the 128 accumulators of m64n256 as operands %0..%127 */
#define GB_PTX_WGMMA_D \
	"{%0, %1, %2, %3, %4, %5, %6, %7, " \
	"%8, %9, %10, %11, %12, %13, %14, %15, " \
	"%16, %17, %18, %19, %20, %21, %22, %23, " \
	"%24, %25, %26, %27, %28, %29, %30, %31, " \
	"%32, %33, %34, %35, %36, %37, %38, %39, " \
	"%40, %41, %42, %43, %44, %45, %46, %47, " \
	"%48, %49, %50, %51, %52, %53, %54, %55, " \
	"%56, %57, %58, %59, %60, %61, %62, %63, " \
	"%64, %65, %66, %67, %68, %69, %70, %71, " \
	"%72, %73, %74, %75, %76, %77, %78, %79, " \
	"%80, %81, %82, %83, %84, %85, %86, %87, " \
	"%88, %89, %90, %91, %92, %93, %94, %95, " \
	"%96, %97, %98, %99, %100, %101, %102, %103, " \
	"%104, %105, %106, %107, %108, %109, %110, %111, " \
	"%112, %113, %114, %115, %116, %117, %118, %119, " \
	"%120, %121, %122, %123, %124, %125, %126, %127}"

#define GB_PTX_WGMMA_D_REGS(d) \
	"+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), \
	"+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
	"+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), \
	"+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
	"+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), \
	"+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
	"+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
	"+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
	"+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), \
	"+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
	"+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), \
	"+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
	"+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), \
	"+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
	"+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), \
	"+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
	"+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), \
	"+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
	"+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), \
	"+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
	"+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
	"+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
	"+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), \
	"+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
	"+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), \
	"+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
	"+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), \
	"+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
	"+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), \
	"+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
	"+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), \
	"+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

/*
 * D += A B^T for one k16 step of m64n256k16, A and B from shared memory
 * through their matrix descriptors, FP32 accumulators; scale-d = 1 (the
 * accumulators start at zero), no negation or transpose
 */
static __device__ __forceinline__ void gb_ptx_wgmma_m64n256k16_bf16(float (&d)[128],
								    uint64_t da, uint64_t db)
{
	asm volatile("{\n"
		     ".reg .pred p;\n"
		     "setp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " GB_PTX_WGMMA_D
		     ", %128, %129, p, 1, 1, 0, 0;\n"
		     "}\n"
		     : GB_PTX_WGMMA_D_REGS(d)
		     : "l"(da), "l"(db), "r"(1));
}

static __device__ __forceinline__ void gb_ptx_wgmma_m64n256k16_f16(float (&d)[128], uint64_t da,
								   uint64_t db)
{
	asm volatile("{\n"
		     ".reg .pred p;\n"
		     "setp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " GB_PTX_WGMMA_D
		     ", %128, %129, p, 1, 1, 0, 0;\n"
		     "}\n"
		     : GB_PTX_WGMMA_D_REGS(d)
		     : "l"(da), "l"(db), "r"(1));
}

#endif /* sm_90a */

#endif /* !GB_KEXEC */

#endif
