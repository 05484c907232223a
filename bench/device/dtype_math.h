/* SPDX-License-Identifier: MIT */
/*
 * dtype_math.h - the element types of kernels/dtype.h on the CPU: their
 * sizes, names and unit roundoffs, and the decoding of one stored element.
 * CPU-only (gpubench_core); every family that allocates or checks GEMM
 * operands uses it.
 */
#ifndef GPUBENCH_BENCH_DTYPE_MATH_H
#define GPUBENCH_BENCH_DTYPE_MATH_H

#include <stddef.h>

#include "kernels/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* bytes per element (8, 4, 2, 2, 1, 1, 4); 0 for an unknown type */
size_t gb_dtype_size(enum gb_dtype t);
/* "f64", "f32", "f16", "bf16", "e4m3", "i8", "i32" */
const char *gb_dtype_name(enum gb_dtype t);
/* unit roundoff 2^-p of the format (p = significand bits incl. the hidden one); 0 for integers */
double gb_dtype_unit_roundoff(enum gb_dtype t);

/* Decode one stored element to double (host side; for messages and tests). */
double gb_dtype_to_double(const void *elem, enum gb_dtype t);

#ifdef __cplusplus
}
#endif

#endif
