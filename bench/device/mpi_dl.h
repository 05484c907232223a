/* SPDX-License-Identifier: MIT */
/*
 * mpi_dl.h - MPI loaded at run time with dlopen("libmpi.so.40"), and only
 * when a launcher started several ranks (bench/device/mpi_world.c).
 *
 * gpubench never links MPI: only <mpi.h> is needed to build, so the binary
 * starts on a GPU host that has the driver and nothing else, and a single
 * process never opens the library at all. The entry points are one X-macro
 * list typed with __typeof__ from the official header, so a signature can
 * never drift from the implementation's own.
 *
 * MPI's predefined handles (MPI_COMM_WORLD, MPI_BYTE, ...) are not all
 * constants: in Open MPI each is the address of a global object in libmpi,
 * so using the macro would link libmpi again. The loader reads every handle
 * the world needs into gb_mpi once the library is open; code outside
 * mpi_dl.c uses gb_mpi.comm_world and friends, never the macros (a macro
 * used by mistake fails at link time, it cannot go unnoticed).
 *
 * The library's ABI is the header's: Open MPI (libmpi.so.40, every release
 * from 3.0 to 5.x) or the MPICH family (libmpi.so.12: MPICH, Intel MPI,
 * MVAPICH). A library of the other family is refused with one line.
 *
 * Only with GPUBENCH_HAVE_MPI (mpi.h found at build time).
 */
#ifndef GPUBENCH_BENCH_MPI_DL_H
#define GPUBENCH_BENCH_MPI_DL_H

#include <stdbool.h>
#include <stddef.h>

#if GPUBENCH_HAVE_MPI
#include <mpi.h>

#define GB_MPI_STR_(x) #x
#define GB_MPI_STR(x) GB_MPI_STR_(x)

#if defined(OPEN_MPI)
/* Every Open MPI from 3.0 on has this soname (the ABI of the 4.x and 5.x C API) */
#define GB_MPI_LIBRARY "libmpi.so.40"
#define GB_MPI_HEADER_VERSION                                                                      \
	"Open MPI v" GB_MPI_STR(OMPI_MAJOR_VERSION) "." GB_MPI_STR(OMPI_MINOR_VERSION) "."         \
		GB_MPI_STR(OMPI_RELEASE_VERSION)
#elif defined(MPICH_VERSION)
/* The MPICH ABI initiative's soname: MPICH 3.1 and later, Intel MPI 5 and later, MVAPICH2 */
#define GB_MPI_LIBRARY "libmpi.so.12"
#define GB_MPI_HEADER_VERSION "MPICH Version: " MPICH_VERSION
#else
/* other ABIs would need their own handle lookup: build without MPI (-DGPUBENCH_WITH_MPI=OFF) */
#error "mpi.h is neither Open MPI's nor MPICH's, the two MPIs gpubench can load at run time"
#endif

/* Every entry point mpi_world.c calls; all are MPI-3.0 (2012). */
#define GB_MPI_FUNCTIONS(X)        \
	X(MPI_Get_library_version) \
	X(MPI_Initialized)         \
	X(MPI_Finalized)           \
	X(MPI_Init_thread)         \
	X(MPI_Finalize)            \
	X(MPI_Abort)               \
	X(MPI_Comm_set_errhandler) \
	X(MPI_Comm_rank)           \
	X(MPI_Comm_size)           \
	X(MPI_Comm_idup)           \
	X(MPI_Comm_free)           \
	X(MPI_Error_string)        \
	X(MPI_Test)                \
	X(MPI_Cancel)              \
	X(MPI_Request_free)        \
	X(MPI_Iallgather)          \
	X(MPI_Ibcast)              \
	X(MPI_Ibarrier)            \
	X(MPI_Isend)               \
	X(MPI_Irecv)

/* Every predefined handle mpi_world.c uses: (type, field in gb_mpi, macro in mpi.h). */
#define GB_MPI_HANDLES(X)                                \
	X(MPI_Comm, comm_world, MPI_COMM_WORLD)          \
	X(MPI_Comm, comm_null, MPI_COMM_NULL)            \
	X(MPI_Request, request_null, MPI_REQUEST_NULL)   \
	X(MPI_Datatype, type_char, MPI_CHAR)             \
	X(MPI_Datatype, type_byte, MPI_BYTE)             \
	X(MPI_Datatype, type_uint64, MPI_UINT64_T)       \
	X(MPI_Errhandler, errors_return, MPI_ERRORS_RETURN)

#define GB_MPI_FUNCTION_FIELD(name) __typeof__(name) *name;
#define GB_MPI_HANDLE_FIELD(type, field, macro) type field;
struct gb_mpi_api {
	GB_MPI_FUNCTIONS(GB_MPI_FUNCTION_FIELD)
	GB_MPI_HANDLES(GB_MPI_HANDLE_FIELD)
};
#undef GB_MPI_FUNCTION_FIELD
#undef GB_MPI_HANDLE_FIELD

/* The loaded entry points and handles; valid after gb_mpi_dl_load() returned 0. */
extern struct gb_mpi_api gb_mpi;

#endif /* GPUBENCH_HAVE_MPI */

/*
 * Load MPI once (later calls return 0 at once). path NULL or "" means the
 * path of the first call that named one (cmd/ passes GPUBENCH_MPI_LIBRARY
 * before the world forms), else GB_MPI_LIBRARY through the loader's usual
 * search, then the same name in the build machine's MPI directory (what the
 * link's run path used to give). Returns 0, or -1 with one line in err:
 * "cannot load MPI ('libmpi.so.40'): libmpi.so.40: cannot open shared
 * object file ...". Built without MPI: always -1, "built without MPI".
 */
int gb_mpi_dl_load(const char *path, char *err, size_t errlen);

/* Whether gb_mpi_dl_load() has succeeded in this process. */
bool gb_mpi_dl_loaded(void);

#endif
