/* SPDX-License-Identifier: MIT */
/*
 * bench.c - what every benchmark calls while it runs, declared in bench.h:
 * progress lines and liveness beats for cmd/'s watchdog, and the lock of the
 * shared result model. It sits below the families (they and the device layer
 * call it) and calls none of them; the table of benchmarks is registry.c.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "bench/bench.h"
#include "bench/device/deadline_math.h"

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
