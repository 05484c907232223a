/* SPDX-License-Identifier: MIT */
/*
 * nccl_dl.h - NCCL loaded at run time with dlopen("libnccl.so.2").
 *
 * gpubench never links NCCL: only <nccl.h> is needed to build, so the
 * binary starts (and says what is missing) where NCCL is not installed, and
 * the NCCL a run used is whatever the system provides. The entry points are
 * one X-macro list typed with __typeof__ from the official header, so a
 * signature can never drift from NCCL's own. Entry points newer than the
 * oldest NCCL we support are optional (NULL when the library lacks them):
 * ncclAlltoAll appeared in NCCL 2.28 and falls back to grouped send/recv.
 *
 * Only with GPUBENCH_HAVE_NCCL (nccl.h found at build time).
 */
#ifndef GPUBENCH_BENCH_NCCL_DL_H
#define GPUBENCH_BENCH_NCCL_DL_H

#include <stddef.h>

#if GPUBENCH_HAVE_NCCL
#include <nccl.h>

/* The library gpubench loads unless told otherwise. */
#define GB_NCCL_LIBRARY "libnccl.so.2"

/* Needed: present since NCCL 2.14 (non-blocking communicators). */
#define GB_NCCL_REQUIRED(X)       \
	X(ncclGetVersion)         \
	X(ncclGetUniqueId)        \
	X(ncclCommInitRankConfig) \
	X(ncclCommDestroy)        \
	X(ncclCommAbort)          \
	X(ncclCommGetAsyncError)  \
	X(ncclGetErrorString)     \
	X(ncclGroupStart)         \
	X(ncclGroupEnd)           \
	X(ncclAllReduce)          \
	X(ncclAllGather)          \
	X(ncclReduceScatter)      \
	X(ncclBroadcast)          \
	X(ncclReduce)             \
	X(ncclSend)               \
	X(ncclRecv)

/* Used when present. */
#define GB_NCCL_OPTIONAL(X)  \
	X(ncclAlltoAll)      \
	X(ncclGetLastError)  \
	X(ncclCommFinalize)

#define GB_NCCL_FIELD(name) __typeof__(name) *name;
struct gb_nccl_api {
	GB_NCCL_REQUIRED(GB_NCCL_FIELD)
	GB_NCCL_OPTIONAL(GB_NCCL_FIELD)
	int version; /* ncclGetVersion of the loaded library, e.g. 22809 */
};
#undef GB_NCCL_FIELD

/* The loaded entry points; valid after gb_nccl_dl_load() returned 0. */
extern struct gb_nccl_api gb_nccl;

/*
 * Load NCCL once (later calls return 0 at once). path NULL or "" means
 * GB_NCCL_LIBRARY. Returns 0, or -1 with one line in err:
 * "cannot load NCCL ('libnccl.so.2'): libnccl.so.2: cannot open shared object file ...".
 */
int gb_nccl_dl_load(const char *path, char *err, size_t errlen);

/* The library's last error text for comm (may be NULL), or "" when unknown. */
const char *gb_nccl_last_error(ncclComm_t comm);

#endif
#endif
