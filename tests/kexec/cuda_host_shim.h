/* SPDX-License-Identifier: MIT */
/*
 * cuda_host_shim.h - CUDA C++'s device side for g++, force-included
 * (-include) before each of the kernels' .cu files in the host build (GB_KEXEC). With
 * it the kernels compile unchanged as C++17 and run on the executor:
 *   __shared__              thread_local: the block's threads are fibers of
 *                           one OS thread and blocks run one at a time, so
 *                           each block has the one copy to itself (and the
 *                           executable's TLS block is the shared window
 *                           memcheck and racecheck watch)
 *   threadIdx .. gridDim    the running fiber's
 *   __syncthreads           a barrier of the block's fibers
 *   shuffles, votes,        collectives of the warp's fibers: every lane of
 *   __reduce_*_sync         the mask must arrive, as on the GPU
 *   atomics                 checked like any access, then done (fibers never
 *                           interleave inside one)
 *   PTX (kernels/ptx.cuh)   emulated from the PTX ISA (ptx_host.h)
 *   clock64                 nanoseconds (only differences are used)
 * Plain loads and stores need nothing here: the instrumentation of
 * -fsanitize=thread reports each one to kexec_check.cc.
 */
#ifndef GPUBENCH_TESTS_KEXEC_CUDA_HOST_SHIM_H
#define GPUBENCH_TESTS_KEXEC_CUDA_HOST_SHIM_H

#ifndef __cplusplus
#error "cuda_host_shim.h is for the C++ host build of the kernels' .cu files"
#endif

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tests/kexec/kexec_device.h"
#include "tests/kexec/kexec_launch.h"

#undef __shared__
#define __shared__ thread_local
#define __launch_bounds__(...)
/* a by-value kernel parameter either way; TMA reads the map wherever it is */
#undef __grid_constant__
#define __grid_constant__

#define threadIdx (gb_kx_thread_idx())
#define blockIdx (gb_kx_block_idx())
#define blockDim (gb_kx_block_dim())
#define gridDim (gb_kx_grid_dim())

static inline void __syncthreads() { gb_kx_syncthreads(); }
static inline void __syncwarp(unsigned mask = 0xffffffffu)
{
	gb_kx_warp_collective(GB_KX_SYNCWARP, mask, 0, 0, 32);
}
/* fibers switch only at barriers: every store is visible to every later load */
static inline void __threadfence() {}
static inline void __threadfence_block() {}
static inline void __threadfence_system() {}
[[noreturn]] static inline void __trap() { gb_kx_trap(); }
/* the SM clock: the kernels only take differences (watchdogs), nanoseconds do */
static inline long long clock64() { return (long long)gb_kx_globaltimer(); }

/* ---- warp shuffles and votes ---- */

template <typename T>
static inline T gb_kx_shfl(gb_kx_warp_op op, unsigned mask, T v, int param, int width)
{
	static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
		      "shuffles move up to 8 bytes");
	uint64_t bits = 0;
	T r;

	memcpy(&bits, &v, sizeof v);
	bits = gb_kx_warp_collective(op, mask, bits, param, width);
	memcpy(&r, &bits, sizeof r);
	return r;
}

template <typename T> static inline T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
	return gb_kx_shfl(GB_KX_SHFL_IDX, mask, v, src, width);
}
template <typename T>
static inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
	return gb_kx_shfl(GB_KX_SHFL_UP, mask, v, (int)delta, width);
}
template <typename T>
static inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
	return gb_kx_shfl(GB_KX_SHFL_DOWN, mask, v, (int)delta, width);
}
template <typename T>
static inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32)
{
	return gb_kx_shfl(GB_KX_SHFL_XOR, mask, v, lane_mask, width);
}
static inline unsigned __ballot_sync(unsigned mask, int pred)
{
	return (unsigned)gb_kx_warp_collective(GB_KX_BALLOT, mask, pred != 0, 0, 32);
}
static inline int __any_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) != 0; }
static inline int __all_sync(unsigned mask, int pred)
{
	return __ballot_sync(mask, pred) == __ballot_sync(mask, 1);
}
static inline unsigned __reduce_add_sync(unsigned mask, unsigned v)
{
	return (unsigned)gb_kx_warp_collective(GB_KX_REDUCE_ADD, mask, v, 0, 32);
}

/* ---- atomics ---- */

static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
	return gb_kx_atomic_u64(p, GB_KX_ADD, v);
}
static inline unsigned atomicAdd(unsigned *p, unsigned v) { return gb_kx_atomic_u32(p, GB_KX_ADD, v); }
static inline int atomicAdd(int *p, int v) { return gb_kx_atomic_i32(p, GB_KX_ADD, v); }
static inline double atomicAdd(double *p, double v) { return gb_kx_atomic_add_f64(p, v); }
static inline float atomicAdd(float *p, float v) { return gb_kx_atomic_add_f32(p, v); }
static inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v)
{
	return gb_kx_atomic_u64(p, GB_KX_MAX, v);
}
static inline unsigned atomicMax(unsigned *p, unsigned v) { return gb_kx_atomic_u32(p, GB_KX_MAX, v); }
static inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v)
{
	return gb_kx_atomic_u64(p, GB_KX_MIN, v);
}
static inline unsigned long long atomicXor(unsigned long long *p, unsigned long long v)
{
	return gb_kx_atomic_u64(p, GB_KX_XOR, v);
}
static inline unsigned long long atomicOr(unsigned long long *p, unsigned long long v)
{
	return gb_kx_atomic_u64(p, GB_KX_OR, v);
}
static inline unsigned long long atomicExch(unsigned long long *p, unsigned long long v)
{
	return gb_kx_atomic_u64(p, GB_KX_EXCH, v);
}
static inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long c,
					   unsigned long long v)
{
	return gb_kx_atomic_cas_u64(p, c, v);
}
static inline unsigned atomicCAS(unsigned *p, unsigned c, unsigned v)
{
	return gb_kx_atomic_cas_u32(p, c, v);
}

/* ---- loads and stores with cache hints: plain accesses (instrumented) ---- */

template <typename T> static inline T __ldcg(const T *p) { return *p; }
template <typename T> static inline T __ldca(const T *p) { return *p; }
template <typename T> static inline T __ldcs(const T *p) { return *p; }
template <typename T> static inline T __ldg(const T *p) { return *p; }
template <typename T> static inline void __stcg(T *p, T v) { *p = v; }
template <typename T> static inline void __stcs(T *p, T v) { *p = v; }
template <typename T> static inline void __stwb(T *p, T v) { *p = v; }

/* ---- bit casts, conversions, integer intrinsics ---- */

template <typename To, typename From> static inline To gb_kx_bit_cast(From f)
{
	static_assert(sizeof(To) == sizeof(From), "bit casts keep the size");
	To t;

	memcpy(&t, &f, sizeof t);
	return t;
}
static inline long long __double_as_longlong(double x) { return gb_kx_bit_cast<long long>(x); }
static inline double __longlong_as_double(long long x) { return gb_kx_bit_cast<double>(x); }
static inline unsigned __float_as_uint(float x) { return gb_kx_bit_cast<unsigned>(x); }
static inline float __uint_as_float(unsigned x) { return gb_kx_bit_cast<float>(x); }
static inline int __float_as_int(float x) { return gb_kx_bit_cast<int>(x); }
static inline float __int_as_float(int x) { return gb_kx_bit_cast<float>(x); }
/* the host rounds to nearest even, as the _rn intrinsics do */
static inline float __double2float_rn(double x) { return (float)x; }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(unsigned x) { return x ? __builtin_clz(x) : 32; }
static inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }

/* CUDA's integer min and max (the floating ones are <cmath>'s fmin, fmax) */
static inline int min(int a, int b) { return a < b ? a : b; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline unsigned long long min(unsigned long long a, unsigned long long b)
{
	return a < b ? a : b;
}
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long max(unsigned long long a, unsigned long long b)
{
	return a > b ? a : b;
}

static inline size_t __cvta_generic_to_shared(const void *p) { return gb_kx_shared_addr(p); }

/* the runtime's C++ overloads on a kernel (cuda_runtime.h has them for nvcc only) */
template <typename F>
static inline cudaError_t cudaFuncSetAttribute(F *kernel, enum cudaFuncAttribute attr, int value)
{
	return cudaFuncSetAttribute((const void *)kernel, attr, value);
}
template <typename F>
static inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, F *kernel)
{
	return cudaFuncGetAttributes(attr, (const void *)kernel);
}

/* PTX wrappers (kernels/ptx.cuh) in the host build */
#include "tests/kexec/ptx_host.h"

#endif
