/* SPDX-License-Identifier: MIT */
/*
 * json_util.h - adding a value to a cJSON object where "unknown" is null.
 *
 * The report's convention (docs/report-format.md) is that an unknown value
 * is null, never a string or a made-up number; every writer of report JSON
 * (the report, compare, the benchmarks' extra blocks) applies it through
 * these so the rule lives in one place.
 */
#ifndef GPUBENCH_REPORT_JSON_UTIL_H
#define GPUBENCH_REPORT_JSON_UTIL_H

struct cJSON;

/* v, or null when v is NAN or infinite (JSON has no such numbers) */
void gb_json_add_num(struct cJSON *o, const char *key, double v);
/* v, or null when v < 0 (-1 is "unknown" for counts and ids) */
void gb_json_add_int(struct cJSON *o, const char *key, long long v);
/*
 * A CUDA version from cudaDriverGetVersion: v, or null when there is none
 * (0: no driver) or it is unknown (-1)
 */
void gb_json_add_cuda_version(struct cJSON *o, const char *key, int v);
/* v, or null when v is NULL */
void gb_json_add_str(struct cJSON *o, const char *key, const char *v);

#endif
