/* SPDX-License-Identifier: MIT */
/*
 * telemetry.h - sample NVML in the background while a benchmark runs, so
 * every result is recorded with the clocks, temperature and power seen while
 * it was measured (and the "observed clock" peak can be computed).
 *
 * A sampler thread reads NVML every interval for each device and appends
 * samples to the run's telemetry (under a lock). Without NVML it does
 * nothing and the summary says so (valid == false): never invented numbers.
 */
#ifndef GPUBENCH_BENCH_TELEMETRY_H
#define GPUBENCH_BENCH_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gb_ctx;
struct gb_sampler;

/* What one device looked like over a sampling window. */
struct gb_telemetry_summary {
	bool valid;            /* at least one sample was read */
	size_t n;              /* samples in the window */
	double sm_mhz_mean;    /* mean SM clock: the "observed clock" */
	double sm_mhz_min;
	double mem_mhz_mean;
	double power_w_mean;
	double power_w_max;
	double temp_c_max;
	uint64_t reasons_union; /* OR of every clock-event mask seen */
	double throttled_frac;  /* share of samples with hw_slowdown/thermal/power-brake bits */
};

/*
 * Start sampling the given CUDA devices every interval_s (>= 0.05). Returns
 * NULL when NVML is not loaded (ctx->nvml false). tflops_hint, when not
 * NULL, is read (per device index in devices[]) at each sample and recorded
 * as the interval's throughput; the caller updates it.
 */
struct gb_sampler *gb_sampler_start(struct gb_ctx *ctx, const int *devices, size_t n,
				    double interval_s, const volatile double *tflops_hint);

/* Begin a new summary window now (e.g. after warm-up). */
void gb_sampler_mark(struct gb_sampler *s);

/* Summary of device devices[i] since the last mark (or start). */
void gb_sampler_summary(struct gb_sampler *s, size_t i, struct gb_telemetry_summary *out);

/* Stop the thread and free. NULL is fine. */
void gb_sampler_stop(struct gb_sampler *s);

#endif
