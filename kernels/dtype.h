/* SPDX-License-Identifier: MIT */
/*
 * dtype.h - the element types of GEMM operands and results, as the kernels,
 * cuBLASLt's setup and the CPU-side checks name them. Plain C, no CUDA: the
 * kernels (dtype.cuh, fill, verify, stress, own GEMMs) and the CPU-only core
 * (bench/device/dtype_math.h: sizes, names, decoding) include it alike.
 */
#ifndef GPUBENCH_KERNELS_DTYPE_H
#define GPUBENCH_KERNELS_DTYPE_H

/* Storage types of GEMM operands; shared by the kernels, cuBLASLt and the checks. */
enum gb_dtype {
	GB_DT_F64 = 0,
	GB_DT_F32,
	GB_DT_F16,
	GB_DT_BF16,
	GB_DT_E4M3,  /* FP8 E4M3 (__nv_fp8_e4m3) */
	GB_DT_I8,
	GB_DT_I32,
	GB_DT_COUNT
};

/* int8 inputs are integers in [-GB_GEMM_INT8_MAX, GB_GEMM_INT8_MAX] */
#define GB_GEMM_INT8_MAX 64

#endif
