/* SPDX-License-Identifier: MIT */
/*
 * cublaslt_dl.c - cuBLASLt through dlopen; see cublaslt_dl.h.
 *
 * Pointers are loaded with the POSIX `*(void **)&p = dlsym()` idiom, which
 * stays quiet under -Wpedantic where a cast from void * to a function
 * pointer does not. The table is filled completely in a local copy and only
 * published when every entry point resolved and the version matched, so a
 * half-loaded library is never visible.
 */
#include "bench/device/cublaslt_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define GB_STR_(x) #x
#define GB_STR(x) GB_STR_(x)
/* the soname of the major version the headers describe: "libcublasLt.so.13" */
#define GB_CUBLASLT_SONAME "libcublasLt.so." GB_STR(CUBLAS_VER_MAJOR)

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gb_cublaslt table;
static bool loaded;
/* the name that loaded, owned here: a caller's `library` string need not outlive the table */
static char loaded_name[256];

/* dlopen one name; on failure append its reason to err */
static void *open_one(const char *name, char *err, size_t len, bool first)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	size_t used = strlen(err);
	const char *why;

	if (h)
		return h;
	why = dlerror();
	if (used < len)
		snprintf(err + used, len - used, "%s('%s'): %s", first ? "" : "; ", name,
			 why ? why : "unknown error");
	return NULL;
}

static int resolve(void *h, struct gb_cublaslt *t, char *err, size_t len, const char *name)
{
#define GB_CUBLASLT_RESOLVE(fn)                                                                \
	*(void **)(&t->fn) = dlsym(h, #fn);                                                    \
	if (!t->fn) {                                                                          \
		snprintf(err, len, "cannot load cuBLASLt ('%s'): entry point '%s' is missing", \
			 name, #fn);                                                           \
		return -1;                                                                     \
	}
	GB_CUBLASLT_ENTRY_POINTS(GB_CUBLASLT_RESOLVE)
#undef GB_CUBLASLT_RESOLVE
	return 0;
}

static int load_locked(const char *library, char *err, size_t len)
{
	const char *names[3];
	size_t n = 0;
	char why[768] = "";
	struct gb_cublaslt t;
	void *h = NULL;
	const char *name = NULL;

	if (library && *library)
		names[n++] = library;
	names[n++] = GB_CUBLASLT_SONAME;
	names[n++] = "libcublasLt.so";
	for (size_t i = 0; i < n && !h; i++) {
		h = open_one(names[i], why, sizeof(why), i == 0);
		name = names[i];
	}
	if (!h) {
		snprintf(err, len, "cannot load cuBLASLt %s", why);
		return -1;
	}
	memset(&t, 0, sizeof(t));
	if (resolve(h, &t, err, len, name))
		goto fail;
	t.version = t.cublasLtGetVersion();
	/*
	 * Structs such as cublasLtMatmulHeuristicResult_t and enum values are
	 * only stable within a major version: another major is not usable.
	 */
	if (t.version / 10000 != CUBLAS_VER_MAJOR) {
		snprintf(err, len,
			 "cannot load cuBLASLt ('%s'): it is version %zu.%zu.%zu, "
			 "this build needs %d.x", name, t.version / 10000, t.version / 100 % 100,
			 t.version % 100, CUBLAS_VER_MAJOR);
		goto fail;
	}
	snprintf(loaded_name, sizeof(loaded_name), "%s", name);
	t.library = loaded_name;
	table = t;
	loaded = true;
	/* the handle stays open for the life of the process: the table points into it */
	return 0;
fail:
	dlclose(h);
	return -1;
}

int gb_cublaslt_load_from(const char *library, char *err, size_t len)
{
	int rc = 0;

	if (len)
		err[0] = '\0';
	pthread_mutex_lock(&load_lock);
	if (!loaded)
		rc = load_locked(library, err, len);
	pthread_mutex_unlock(&load_lock);
	return rc;
}

int gb_cublaslt_load(char *err, size_t len)
{
	return gb_cublaslt_load_from(NULL, err, len);
}

const struct gb_cublaslt *gb_cublaslt(void)
{
	const struct gb_cublaslt *t;

	pthread_mutex_lock(&load_lock);
	t = loaded ? &table : NULL;
	pthread_mutex_unlock(&load_lock);
	return t;
}

const char *gb_cublaslt_errstr(cublasStatus_t s, char *buf, size_t len)
{
	const struct gb_cublaslt *t = gb_cublaslt();

	if (t)
		snprintf(buf, len, "%s (%s)", t->cublasLtGetStatusName(s),
			 t->cublasLtGetStatusString(s));
	else
		snprintf(buf, len, "cublasStatus_t %d", (int)s);
	return buf;
}
