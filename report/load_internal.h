/* SPDX-License-Identifier: MIT */
/*
 * load_internal.h - what load.c (the report's sections, the file) and
 * load_get.c (the typed field readers) share and nobody else uses.
 */
#ifndef GPUBENCH_REPORT_LOAD_INTERNAL_H
#define GPUBENCH_REPORT_LOAD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "report/result.h"

/* Loading context: where errors go, and what to call the input in them. */
struct ld {
	const char *file; /* NULL when loading a document, not a file */
	char *err;
	size_t errlen;
	bool failed;
};

__attribute__((format(printf, 4, 5))) int fail(struct ld *ld, const char *path,
						       const char *key, const char *fmt, ...);
__attribute__((format(printf, 2, 3))) int fail_doc(struct ld *ld, const char *fmt, ...);
const cJSON *child(const cJSON *obj, const char *key);
bool absent(const cJSON *v);
int get_num(struct ld *ld, const cJSON *obj, const char *path, const char *key, double *out);
bool whole_in(const cJSON *v, double lo, double hi);
int get_int(struct ld *ld, const cJSON *obj, const char *path, const char *key, int *out);
int get_req_int(struct ld *ld, const cJSON *obj, const char *path, const char *key, int *out);
int get_str(struct ld *ld, const cJSON *obj, const char *path, const char *key, char **out);
int get_req_str(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		       char **out);
int get_tristate(struct ld *ld, const cJSON *obj, const char *path, const char *key,
			int *out);
int get_power_source(struct ld *ld, const cJSON *obj, const char *path, const char **out);
int get_obj(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		   const cJSON **out);
int get_arr(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		   const cJSON **out, size_t *n);
int get_enum(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		    int (*from_name)(const char *), const char *choices, int *out);
int get_status(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		      enum gb_status *out);
int get_count(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		     size_t *out);
void *alloc_array(size_t n, size_t elem);
int get_num_array(struct ld *ld, const cJSON *obj, const char *path, const char *key,
			 double **out, size_t *n);
int get_count_array(struct ld *ld, const cJSON *obj, const char *path, const char *key,
		    unsigned long long **out, size_t *n);
int get_str_array(struct ld *ld, const cJSON *obj, const char *path, const char *key,
			 char ***out, size_t *n);

#endif
