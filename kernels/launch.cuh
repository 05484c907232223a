/* SPDX-License-Identifier: MIT */
/*
 * launch.cuh - every kernel launch of the kernels' .cu files goes through
 *   GB_LAUNCH(grid, block, smem, stream, kernel)(args...)
 * which under nvcc is the triple-chevron launch, token for token. The host
 * build of the kernels (tests/kexec/, which defines GB_KEXEC and its own
 * GB_LAUNCH before this header) runs the same __global__ function on the
 * CPU instead. The kernel comes last so that a template with commas in its
 * arguments needs no parentheses.
 */
#ifndef GPUBENCH_KERNELS_LAUNCH_CUH
#define GPUBENCH_KERNELS_LAUNCH_CUH

#ifndef GB_LAUNCH
#define GB_LAUNCH(grid, block, smem, stream, ...) __VA_ARGS__<<<grid, block, smem, stream>>>
#endif

#endif
