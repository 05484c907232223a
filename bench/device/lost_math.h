/* SPDX-License-Identifier: MIT */
/*
 * lost_math.h - GPUs that are lost, and what a run does about them (CPU only).
 *
 * A GPU is lost when a benchmark meets a sticky CUDA error on it (the
 * context is gone until the process restarts or the GPU is reset) or gives
 * up on it as hung. The benchmark says so in the result model, as a
 * `device_lost` check on that device (gb_bench_device_lost); `run` reads the
 * marks back (gb_lost_scan) and runs its later steps on the GPUs that are
 * left, with a skipped check naming each GPU it left out.
 *
 * The mark lives in the result model, not in a side channel, so it is in
 * the report, it is the same whichever benchmark set it, and all of this is
 * testable without a GPU.
 */
#ifndef GPUBENCH_BENCH_LOST_MATH_H
#define GPUBENCH_BENCH_LOST_MATH_H

#include <stdbool.h>
#include <stddef.h>

#include "report/result.h"

/* The check a benchmark adds for a GPU it lost (FAILED: sticky error; ERROR: hung). */
#define GB_CHECK_DEVICE_LOST "device_lost"
/* The check `run` adds to a later step for each GPU it no longer uses (SKIPPED). */
#define GB_CHECK_LOST_GPU_SKIPPED "lost_gpu"

/*
 * Whether a CUDA error code (the numeric cudaError_t) leaves the context
 * unusable: driver_types.h says of each that the process must be terminated
 * and relaunched, or it is how a GPU that fell off the bus answers. Numbers,
 * so the core library needs no CUDA header; bench/device/gpu.c checks at compile
 * time that they are still the enumerators they stand for.
 */
bool gb_cuda_code_is_sticky(int code);

/*
 * Mark GPU device lost in res: a `device_lost` check with status FAILED (a
 * hardware finding; it also sets the benchmark FAILED) or ERROR (could not
 * finish, e.g. hung), severity error, message from fmt.
 */
void gb_bench_device_lost(struct gb_bench_result *res, int device, enum gb_status st,
			  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Whether res already marks device lost (a benchmark may skip the rest of its work on it). */
bool gb_bench_device_is_lost(const struct gb_bench_result *res, int device);

/* GPUs lost so far in a run, each with where and why (the first reason wins). */
#define GB_LOST_MAX 64
struct gb_lost {
	int device;
	bool hung;          /* given up as hung (a worker may still be stuck in it) */
	char bench[32];     /* the benchmark that lost it */
	char reason[256];
};
struct gb_lost_set {
	struct gb_lost gpu[GB_LOST_MAX];
	size_t n;
};

/*
 * Add to set every GPU that res marks lost, and return how many were new.
 * A GPU is lost when a check on it (device >= 0) is
 *   - `device_lost` with status FAILED or ERROR;
 *   - `cuda_error` with status FAILED (stress's sticky-error check);
 *   - FAILED or ERROR with a message containing "hung:" (stress's watchdog).
 */
size_t gb_lost_scan(struct gb_lost_set *set, const struct gb_bench_result *res);

/* The entry of device in set, NULL if it is not lost. */
const struct gb_lost *gb_lost_find(const struct gb_lost_set *set, int device);

/* Whether any lost GPU was given up as hung. */
bool gb_lost_any_hung(const struct gb_lost_set *set);

/* Copy the devices of in[0..n) that are not lost into out, in order; returns how many. */
size_t gb_lost_filter(const struct gb_lost_set *set, const int *in, size_t n, int *out);

/*
 * For each of wanted[0..n) that is lost, add a SKIPPED `lost_gpu` check to
 * res on that device: "GPU 1 lost in gemm: <reason>". Returns how many.
 */
size_t gb_lost_note(const struct gb_lost_set *set, const int *wanted, size_t n,
		    struct gb_bench_result *res);

#endif
