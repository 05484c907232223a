/* SPDX-License-Identifier: MIT */
/* registry.c - expands bench_list.h into the table of benchmarks. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "bench_list.h"
#include "deadline_math.h"

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

void gb_progress(const struct gb_ctx *ctx, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!ctx->progress && !ctx->beat)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* a beat even under -q: the watchdog must not depend on what is printed */
	if (ctx->beat)
		ctx->beat(ctx->beat_user, line, 0);
	if (ctx->progress)
		ctx->progress(ctx->progress_user, line);
}

void gb_expect_silence(const struct gb_ctx *ctx, double seconds)
{
	if (ctx->beat && seconds > 0)
		ctx->beat(ctx->beat_user, NULL, seconds);
}

static pthread_mutex_t run_model_lock = PTHREAD_MUTEX_INITIALIZER;

void gb_run_model_lock(void)
{
	pthread_mutex_lock(&run_model_lock);
}

void gb_run_model_unlock(void)
{
	pthread_mutex_unlock(&run_model_lock);
}

bool gb_run_model_lock_within(double timeout_s)
{
	return gb_mutex_lock_until(&run_model_lock, gb_now_s() + timeout_s);
}
