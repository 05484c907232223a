/* SPDX-License-Identifier: MIT */
/*
 * kernels.h - every CUDA kernel launcher, callable from C.
 *
 * Each kernels/<area>.cu exports only thin extern "C" launchers
 * (cudaError_t gb_launch_xxx(..., cudaStream_t)) that compute the grid,
 * launch and return cudaGetLastError(); the __global__ functions are static.
 * No allocation, synchronisation or printing in launchers. Each area has its
 * own header, gathered here.
 */
#ifndef GPUBENCH_KERNELS_KERNELS_H
#define GPUBENCH_KERNELS_KERNELS_H

#include <cuda_runtime_api.h>

#include "gemm.h"
#include "own_gemm.h"

#include "copy.h"

#include "stress.h"

#include "nccl.h"

#endif
