/* SPDX-License-Identifier: MIT */
/*
 * units.h - sizes, counts, durations and percents in the units people type
 * and read (CPU only, pure arithmetic): the option parser (cmd/), the
 * thresholds files and compare's tolerances (report/) read them, the
 * benchmarks print sizes with gb_format_bytes. At the bottom of the layers,
 * below bench/ and cmd/. May use: the C library only.
 */
#ifndef GPUBENCH_REPORT_UNITS_H
#define GPUBENCH_REPORT_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Format bytes for humans: "512 MiB", "1.5 GiB", "96 B" */
void gb_format_bytes(char *buf, size_t len, double bytes);

/* ---- value parsers, shared with other readers (thresholds files, ...) ---- */
/* Each returns 0 on success, -1 on malformed input (no message printed). */
int gb_parse_size(const char *s, uint64_t *bytes);
int gb_parse_count(const char *s, int64_t *count);
int gb_parse_duration(const char *s, double *seconds);
int gb_parse_percent(const char *s, double *fraction);
int gb_parse_double(const char *s, double *v);

/* The same, with why a value was rejected (the option parser words its errors from it) */
/* internal parse status: 0 or the reason a value was rejected */
enum pstat {
	P_OK = 0,
	P_BAD = -1,  /* malformed */
	P_NEG = -2,  /* negative where that is never valid */
	P_BIG = -3,  /* does not fit the type */
	P_UNIT = -4, /* a bare number where a unit or % is required */
	P_FRAC = -5, /* not a whole number */
};

#define TWO_POW_64 18446744073709551616.0
#define TWO_POW_63 9223372036854775808.0

enum pstat parse_size_ex(const char *s, uint64_t *bytes);
enum pstat parse_count_ex(const char *s, int64_t *count);
enum pstat parse_duration_ex(const char *s, double *seconds);
enum pstat parse_percent_ex(const char *s, double *fraction);
enum pstat parse_double_ex(const char *s, double *v);

#endif
