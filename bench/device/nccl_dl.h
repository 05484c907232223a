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
 * ncclCommSplit (2.18) gives the blocking communicators the timed loop
 * uses, ncclAlltoAll (2.28) falls back to grouped send/recv.
 *
 * The header at build time and the library at run time are independent:
 * pip wheels and torch builds ship their own NCCL, so gpubench may be built
 * against a 2.27 nccl.h and run with a 2.28 library, or the reverse. An
 * optional entry point the header does not declare yet is typed by hand
 * with the signature of the first NCCL that has it, so the build never
 * depends on the header being new, and dlsym still finds the function when
 * the library is.
 *
 * Only with GPUBENCH_HAVE_NCCL (nccl.h found at build time).
 */
#ifndef GPUBENCH_BENCH_NCCL_DL_H
#define GPUBENCH_BENCH_NCCL_DL_H

#include <stddef.h>

#if GPUBENCH_HAVE_NCCL
#include <nccl.h>

#if !defined(NCCL_VERSION_CODE) || !defined(NCCL_VERSION)
#error "nccl.h does not say its version: gpubench needs NCCL 2.14 or later"
#elif NCCL_VERSION_CODE < NCCL_VERSION(2, 14, 0)
#error "gpubench needs nccl.h from NCCL 2.14 or later (non-blocking communicators)"
#endif

/* ncclCommSplit, declared from NCCL 2.18 on (this is 2.18's signature) */
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
typedef __typeof__(ncclCommSplit) gb_nccl_comm_split_fn;
#else
typedef ncclResult_t gb_nccl_comm_split_fn(ncclComm_t comm, int color, int key,
					   ncclComm_t *newcomm, ncclConfig_t *config);
#endif

/* ncclAlltoAll, declared from NCCL 2.28 on (this is 2.28's signature) */
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
typedef __typeof__(ncclAlltoAll) gb_nccl_alltoall_fn;
#else
typedef ncclResult_t gb_nccl_alltoall_fn(const void *sendbuff, void *recvbuff, size_t count,
					 ncclDataType_t datatype, ncclComm_t comm,
					 cudaStream_t stream);
#endif

/* ncclCommRevoke, from NCCL 2.28 on; typed here so older headers build too */
typedef ncclResult_t gb_nccl_comm_revoke_fn(ncclComm_t comm, int revokeFlags);

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

/* Used when present: (name, type of the function). */
#define GB_NCCL_OPTIONAL(X)                                  \
	X(ncclGetLastError, __typeof__(ncclGetLastError))    \
	X(ncclCommFinalize, __typeof__(ncclCommFinalize))    \
	X(ncclCommSplit, gb_nccl_comm_split_fn)              \
	X(ncclAlltoAll, gb_nccl_alltoall_fn)                 \
	X(ncclCommRevoke, gb_nccl_comm_revoke_fn)

#define GB_NCCL_FIELD(name) __typeof__(name) *name;
#define GB_NCCL_TYPED_FIELD(name, type) type *name;
struct gb_nccl_api {
	GB_NCCL_REQUIRED(GB_NCCL_FIELD)
	GB_NCCL_OPTIONAL(GB_NCCL_TYPED_FIELD)
	int version; /* ncclGetVersion of the loaded library, e.g. 22809 */
};
#undef GB_NCCL_FIELD
#undef GB_NCCL_TYPED_FIELD

/* The loaded entry points; valid after gb_nccl_dl_load() returned 0. */
extern struct gb_nccl_api gb_nccl;

/*
 * Load NCCL once (later calls return 0 at once). path NULL or "" means the
 * path of the first call that named one (cmd/ passes GPUBENCH_NCCL_LIBRARY
 * before any benchmark runs), else GB_NCCL_LIBRARY: a benchmark that loads
 * with NULL after cmd/ failed to load the library the user named fails the
 * same way instead of quietly loading another NCCL. Returns 0, or -1 with
 * one line in err: "cannot load NCCL ('libnccl.so.2'): libnccl.so.2: cannot
 * open shared object file ...".
 */
int gb_nccl_dl_load(const char *path, char *err, size_t errlen);

/* The library's last error text for comm (may be NULL), or "" when unknown. */
const char *gb_nccl_last_error(ncclComm_t comm);

#endif
#endif
