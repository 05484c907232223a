/* SPDX-License-Identifier: MIT */
/*
 * cublaslt_dl.h - cuBLASLt loaded with dlopen at run time.
 *
 * gpubench never links libcublasLt: the binary must start, and say what is
 * missing, on a machine with a driver but without the CUDA libraries. The
 * entry points are named once in GB_CUBLASLT_ENTRY_POINTS and typed with
 * __typeof__ from the official <cublasLt.h>, so a wrong argument is a
 * compile error. Any benchmark may use it (gemm, stress): load once, then
 * call through the table:
 *
 *	char err[256];
 *	const struct gb_cublaslt *lt;
 *
 *	if (gb_cublaslt_load(err, sizeof(err)))
 *		-> ERROR "cannot load cuBLASLt ('libcublasLt.so.13'): ..."
 *	lt = gb_cublaslt();
 *	GB_CUBLASLT_GOTO(res, lt->cublasLtCreate(&handle), out);
 */
#ifndef GPUBENCH_BENCH_CUBLASLT_DL_H
#define GPUBENCH_BENCH_CUBLASLT_DL_H

#include <stddef.h>

#include <cublasLt.h>

#include "report/result.h"

/*
 * Every entry point gpubench may call. REQUIRED ones missing fail the load;
 * all of these exist since cuBLASLt 11, so every one is required today. Add
 * a line here to reach another function; nothing else changes.
 */
#define GB_CUBLASLT_ENTRY_POINTS(REQUIRED)            \
	REQUIRED(cublasLtCreate)                      \
	REQUIRED(cublasLtDestroy)                     \
	REQUIRED(cublasLtGetVersion)                  \
	REQUIRED(cublasLtGetCudartVersion)            \
	REQUIRED(cublasLtGetStatusName)               \
	REQUIRED(cublasLtGetStatusString)             \
	REQUIRED(cublasLtMatmul)                      \
	REQUIRED(cublasLtMatmulDescCreate)            \
	REQUIRED(cublasLtMatmulDescDestroy)           \
	REQUIRED(cublasLtMatmulDescSetAttribute)      \
	REQUIRED(cublasLtMatmulDescGetAttribute)      \
	REQUIRED(cublasLtMatrixLayoutCreate)          \
	REQUIRED(cublasLtMatrixLayoutDestroy)         \
	REQUIRED(cublasLtMatrixLayoutSetAttribute)    \
	REQUIRED(cublasLtMatmulPreferenceCreate)      \
	REQUIRED(cublasLtMatmulPreferenceDestroy)     \
	REQUIRED(cublasLtMatmulPreferenceSetAttribute) \
	REQUIRED(cublasLtMatmulAlgoGetHeuristic)      \
	REQUIRED(cublasLtMatmulAlgoGetIds)            \
	REQUIRED(cublasLtMatmulAlgoInit)              \
	REQUIRED(cublasLtMatmulAlgoCheck)             \
	REQUIRED(cublasLtMatmulAlgoCapGetAttribute)   \
	REQUIRED(cublasLtMatmulAlgoConfigGetAttribute) \
	REQUIRED(cublasLtMatmulAlgoConfigSetAttribute)

/* The loaded library: one pointer per entry point, named like the function. */
struct gb_cublaslt {
#define GB_CUBLASLT_FIELD(name) __typeof__(&name) name;
	GB_CUBLASLT_ENTRY_POINTS(GB_CUBLASLT_FIELD)
#undef GB_CUBLASLT_FIELD
	size_t version;       /* cublasLtGetVersion(): 130100 for 13.1.0 */
	const char *library;  /* the name that loaded */
};

/*
 * Load cuBLASLt: "libcublasLt.so.<major of the headers built with>" (13),
 * then "libcublasLt.so". Idempotent and thread-safe; after a success later
 * calls return 0 at once. On failure returns -1 with one line in err:
 * "cannot load cuBLASLt ('libcublasLt.so.13'): <dlerror>", a missing entry
 * point, or a library whose major version differs from the headers'.
 */
int gb_cublaslt_load(char *err, size_t len);

/* As gb_cublaslt_load, trying `library` (a path or soname) first; NULL: the defaults. */
int gb_cublaslt_load_from(const char *library, char *err, size_t len);

/* The table once loaded, NULL before. */
const struct gb_cublaslt *gb_cublaslt(void);

/* "CUBLAS_STATUS_NOT_SUPPORTED (the requested functionality is not supported)" */
const char *gb_cublaslt_errstr(cublasStatus_t s, char *buf, size_t len);

/*
 * GB_CUBLASLT_GOTO(res, call, label): like GB_CUDA_GOTO for a cuBLASLt call:
 * on failure set the benchmark ERROR with "'call' failed: STATUS (text) at
 * file:line", set rc = -1 and jump to label. Expects `int rc` in scope.
 */
#define GB_CUBLASLT_GOTO(res, call, label)                                                     \
	do {                                                                                   \
		cublasStatus_t gb_s_ = (call);                                                 \
		if (gb_s_ != CUBLAS_STATUS_SUCCESS) {                                          \
			char gb_b_[160];                                                       \
			gb_bench_set_status((res), GB_STATUS_ERROR, "'%s' failed: %s at %s:%d", \
					    #call,                                             \
					    gb_cublaslt_errstr(gb_s_, gb_b_, sizeof(gb_b_)),   \
					    __FILE__, __LINE__);                               \
			rc = -1;                                                               \
			goto label;                                                            \
		}                                                                              \
	} while (0)

#endif
