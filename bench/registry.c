/* SPDX-License-Identifier: MIT */
/* registry.c - expands bench_list.h into the table of benchmarks. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "bench_list.h"

#define GB_BENCH_EXTERN(n) extern const struct gb_bench gb_bench_##n;
GB_BENCHES(GB_BENCH_EXTERN)

#define GB_BENCH_PTR(n) &gb_bench_##n,
static const struct gb_bench *const benches[] = { GB_BENCHES(GB_BENCH_PTR) NULL };

const struct gb_bench *const *gb_bench_all(size_t *n)
{
	*n = sizeof(benches) / sizeof(benches[0]) - 1;
	return benches;
}

const struct gb_bench *gb_bench_find(const char *name)
{
	for (size_t i = 0; benches[i]; i++)
		if (!strcmp(benches[i]->name, name))
			return benches[i];
	return NULL;
}

double gb_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gb_progress(const struct gb_ctx *ctx, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!ctx->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ctx->progress(ctx->progress_user, line);
}
