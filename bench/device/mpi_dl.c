/* SPDX-License-Identifier: MIT */
/* mpi_dl.c - dlopen loader of MPI (see mpi_dl.h). */
#include "bench/device/mpi_dl.h"

#if GPUBENCH_HAVE_MPI

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gb_mpi_api gb_mpi;
static void *handle;
static char *chosen; /* the first path a caller named, NULL if none did */

/* While a library's handles are read: the library, and the first handle it lacks. */
static void *reading;
static const char *lacking;

#if defined(OPEN_MPI)
/*
 * Open MPI's predefined handles are the addresses of global objects in
 * libmpi, and every one of its handle macros goes through
 * OMPI_PREDEFINED_GLOBAL: redefined here, MPI_COMM_WORLD and the others
 * below look their object up in the opened library instead of naming it to
 * the linker. (If a later Open MPI stopped using this macro, its handles
 * would name the objects again and the link would fail: never silently.)
 */
static void *handle_object(const char *symbol)
{
	void *p = dlsym(reading, symbol);

	if (!p && !lacking)
		lacking = symbol;
	return p;
}
#undef OMPI_PREDEFINED_GLOBAL
#define OMPI_PREDEFINED_GLOBAL(type, global) ((type)handle_object(#global))
#endif

/* The library to open: path, else the one named first, else the default. */
static const char *library_path(const char *path)
{
	if (path && *path) {
		if (!chosen)
			chosen = strdup(path);
		return path;
	}
	return chosen ? chosen : GB_MPI_LIBRARY;
}

/*
 * Open lib, or when it is the default name and not found, the same name in
 * the build machine's MPI directory (RHEL's /usr/lib64/openmpi/lib is not in
 * the loader's path). RTLD_GLOBAL: Open MPI's plugins, which libmpi itself
 * dlopens, resolve libmpi's symbols in the global scope (mpi4py does the
 * same). On failure why holds the loader's message for lib.
 */
static void *open_library(const char *lib, char *why, size_t whylen)
{
	void *h;
	const char *e;

	dlerror();
	h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
	if (h)
		return h;
	e = dlerror();
	snprintf(why, whylen, "%s", e ? e : "unknown error");
#ifdef GB_MPI_LIBRARY_DIR
	if (!strcmp(lib, GB_MPI_LIBRARY)) {
		char full[4096];

		snprintf(full, sizeof(full), "%s/%s", GB_MPI_LIBRARY_DIR, GB_MPI_LIBRARY);
		h = dlopen(full, RTLD_NOW | RTLD_GLOBAL);
	}
#endif
	return h;
}

/* Read every handle from the opened library h; 0, or -1 with the one it lacks in err. */
static int read_handles(void *h, const char *lib, char *err, size_t errlen)
{
#if !defined(OPEN_MPI)
	/* MPICH's handles are constants that mean nothing to Open MPI, whose ABI differs */
	if (dlsym(h, "ompi_mpi_comm_world")) {
		snprintf(err, errlen,
			 "cannot load MPI ('%s'): it is Open MPI, but gpubench was built with %s's "
			 "mpi.h: use that MPI, or set GPUBENCH_MPI_LIBRARY to it",
			 lib, GB_MPI_HEADER_VERSION);
		return -1;
	}
#endif
	reading = h;
	lacking = NULL;
#define GB_MPI_READ_HANDLE(type, field, macro) gb_mpi.field = macro;
	GB_MPI_HANDLES(GB_MPI_READ_HANDLE)
#undef GB_MPI_READ_HANDLE
	reading = NULL;
	if (!lacking)
		return 0;
	snprintf(err, errlen,
		 "cannot load MPI ('%s'): it has no '%s' (gpubench was built with %s's mpi.h: "
		 "use that MPI, or set GPUBENCH_MPI_LIBRARY to it)",
		 lib, lacking, GB_MPI_HEADER_VERSION);
	return -1;
}

int gb_mpi_dl_load(const char *path, char *err, size_t errlen)
{
	const char *lib = library_path(path);
	char why[512];
	void *h;

	if (handle)
		return 0;
	h = open_library(lib, why, sizeof(why));
	if (!h && chosen) {
		snprintf(err, errlen, "cannot load MPI ('%s', named by GPUBENCH_MPI_LIBRARY): %s",
			 lib, why);
		return -1;
	}
	if (!h) {
		snprintf(err, errlen,
			 "cannot load MPI ('%s'): %s; install the MPI gpubench was built with "
			 "(%s), or name its libmpi in GPUBENCH_MPI_LIBRARY",
			 lib, why, GB_MPI_HEADER_VERSION);
		return -1;
	}
	/* ISO C has no function-pointer <-> void * conversion; POSIX dlsym needs this form */
#define GB_MPI_LOAD_FUNCTION(name)                                                                 \
	*(void **)(&gb_mpi.name) = dlsym(h, #name);                                                \
	if (!gb_mpi.name) {                                                                        \
		snprintf(err, errlen, "cannot load MPI ('%s'): it has no '%s' (MPI 3.0 or later "  \
				      "is needed)",                                                \
			 lib, #name);                                                              \
		goto fail;                                                                         \
	}
	GB_MPI_FUNCTIONS(GB_MPI_LOAD_FUNCTION)
#undef GB_MPI_LOAD_FUNCTION
	if (read_handles(h, lib, err, errlen))
		goto fail;
	handle = h;
	return 0;
fail:
	/* not dlclose'd: an MPI library that ran its constructors may not unload cleanly */
	memset(&gb_mpi, 0, sizeof(gb_mpi));
	return -1;
}

bool gb_mpi_dl_loaded(void)
{
	return handle != NULL;
}

#else /* built without MPI */

#include <stdio.h>

int gb_mpi_dl_load(const char *path, char *err, size_t errlen)
{
	(void)path;
	snprintf(err, errlen, "gpubench was built without MPI");
	return -1;
}

bool gb_mpi_dl_loaded(void)
{
	return false;
}

#endif
