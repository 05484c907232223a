/* SPDX-License-Identifier: MIT */
/*
 * units.h - sizes in the units people read (CPU only, pure arithmetic).
 *
 * gb_format_bytes lived in cmd/cli.c; benchmarks print sizes with it, so it
 * sits here, below both bench/ and cmd/. May use: the C library only.
 */
#ifndef GPUBENCH_BENCH_UNITS_H
#define GPUBENCH_BENCH_UNITS_H

#include <stddef.h>

/* Format bytes for humans: "512 MiB", "1.5 GiB", "96 B" */
void gb_format_bytes(char *buf, size_t len, double bytes);

#endif
