/* SPDX-License-Identifier: MIT */
/*
 * kexec_device.h - the executor's entry points that the host build of the
 * kernels calls: the CUDA built-ins of cuda_host_shim.h and the launch of
 * kexec_launch.h end here. Out of line, in files that are not instrumented,
 * so that the executor's own bookkeeping is never taken for the kernel's
 * memory accesses.
 */
#ifndef GPUBENCH_TESTS_KEXEC_KEXEC_DEVICE_H
#define GPUBENCH_TESTS_KEXEC_KEXEC_DEVICE_H

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

/* built-in variables of the running thread */
uint3 gb_kx_thread_idx();
uint3 gb_kx_block_idx();
dim3 gb_kx_block_dim();
dim3 gb_kx_grid_dim();

/* __syncthreads */
void gb_kx_syncthreads();

/* warp collectives: one operation, all lanes of `mask` must take part */
enum gb_kx_warp_op {
	GB_KX_SHFL_IDX,
	GB_KX_SHFL_UP,
	GB_KX_SHFL_DOWN,
	GB_KX_SHFL_XOR,
	GB_KX_BALLOT,
	GB_KX_REDUCE_ADD,
	GB_KX_SYNCWARP,
	GB_KX_INSTRUCTION,  /* a warp-wide PTX instruction (kexec_internal.h) */
};
uint64_t gb_kx_warp_collective(gb_kx_warp_op op, unsigned mask, uint64_t value, int param,
			       int width);

/* atomics on global or shared memory: checked like any access, then done */
enum gb_kx_atomic_op { GB_KX_ADD, GB_KX_MAX, GB_KX_MIN, GB_KX_XOR, GB_KX_OR, GB_KX_AND, GB_KX_EXCH };
unsigned long long gb_kx_atomic_u64(unsigned long long *p, gb_kx_atomic_op op,
				    unsigned long long v);
unsigned gb_kx_atomic_u32(unsigned *p, gb_kx_atomic_op op, unsigned v);
int gb_kx_atomic_i32(int *p, gb_kx_atomic_op op, int v);
double gb_kx_atomic_add_f64(double *p, double v);
float gb_kx_atomic_add_f32(float *p, float v);
unsigned long long gb_kx_atomic_cas_u64(unsigned long long *p, unsigned long long cmp,
					unsigned long long v);
unsigned gb_kx_atomic_cas_u32(unsigned *p, unsigned cmp, unsigned v);

/* __cvta_generic_to_shared and back: shared addresses are offsets in the shared window */
uint32_t gb_kx_shared_addr(const void *p);
void *gb_kx_shared_ptr(uint32_t addr);

/* __trap: a synccheck finding that stops the grid */
[[noreturn]] void gb_kx_trap();

/* %globaltimer: nanoseconds of a monotonic clock */
unsigned long long gb_kx_globaltimer();

/*
 * Run a grid: every block's threads as fibers, each calling fn(ctx);
 * dyn_array is the kernel's extern __shared__ array (null if none). The
 * launch arguments live at [params, params + params_bytes), which the kernel
 * may read (param space). Returns what cudaGetLastError says afterwards.
 */
cudaError_t gb_kx_run_grid(const char *kernel, const void *func, dim3 grid, dim3 block,
			   size_t dyn_smem, const void *dyn_array, void (*fn)(void *), void *ctx,
			   const void *params, size_t params_bytes);

/* a TU's dynamic shared-memory array (extern __shared__), defined by its wrapper */
void gb_kx_register_dynamic_smem(void *base, size_t bytes);

#endif
