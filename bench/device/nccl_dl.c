/* SPDX-License-Identifier: MIT */
/* nccl_dl.c - dlopen loader of NCCL (see nccl_dl.h). */
#include "bench/device/nccl_dl.h"

#if GPUBENCH_HAVE_NCCL

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

struct gb_nccl_api gb_nccl;
static void *handle;
static char *chosen; /* the first path a caller named, NULL if none did */

/* The library to open: path, else the one named first, else the default. */
static const char *library_path(const char *path)
{
	if (path && *path) {
		if (!chosen)
			chosen = strdup(path);
		return path;
	}
	return chosen ? chosen : GB_NCCL_LIBRARY;
}

int gb_nccl_dl_load(const char *path, char *err, size_t errlen)
{
	const char *lib = library_path(path);
	void *h;

	if (handle)
		return 0;
	dlerror();
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();

		snprintf(err, errlen, "cannot load NCCL ('%s'): %s", lib,
			 why ? why : "unknown error");
		return -1;
	}
	/* ISO C has no function-pointer <-> void * conversion; POSIX dlsym needs this form */
#define GB_NCCL_LOAD_REQUIRED(name)                                                                \
	*(void **)(&gb_nccl.name) = dlsym(h, #name);                                               \
	if (!gb_nccl.name) {                                                                       \
		snprintf(err, errlen,                                                              \
			 "cannot load NCCL ('%s'): it has no '%s' (NCCL 2.14 or "                  \
			 "later is needed)",                                                       \
			 lib, #name);                                                              \
		goto fail;                                                                         \
	}
	GB_NCCL_REQUIRED(GB_NCCL_LOAD_REQUIRED)
#undef GB_NCCL_LOAD_REQUIRED
#define GB_NCCL_LOAD_OPTIONAL(name, type) *(void **)(&gb_nccl.name) = dlsym(h, #name);
	GB_NCCL_OPTIONAL(GB_NCCL_LOAD_OPTIONAL)
#undef GB_NCCL_LOAD_OPTIONAL
	if (gb_nccl.ncclGetVersion(&gb_nccl.version) != ncclSuccess)
		gb_nccl.version = -1;
	handle = h;
	return 0;
fail:
	memset(&gb_nccl, 0, sizeof(gb_nccl));
	dlclose(h);
	return -1;
}

const char *gb_nccl_last_error(ncclComm_t comm)
{
	const char *s = gb_nccl.ncclGetLastError ? gb_nccl.ncclGetLastError(comm) : NULL;

	return s ? s : "";
}

#endif
