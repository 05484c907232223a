/* SPDX-License-Identifier: MIT */
/*
 * hd.h - GB_HD marks a function that both a kernel and the CPU tests call:
 * __host__ __device__ under nvcc, nothing in plain C, so the layout headers
 * (mma_layout.h, wgmma_layout.h) pin the very code the kernels run.
 */
#ifndef GPUBENCH_KERNELS_HD_H
#define GPUBENCH_KERNELS_HD_H

#ifdef __CUDACC__
#define GB_HD __host__ __device__
#else
#define GB_HD
#endif

#endif
