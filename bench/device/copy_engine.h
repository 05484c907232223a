/* SPDX-License-Identifier: MIT */
/*
 * copy_engine.h - the sample-timing machinery `gpubench bandwidth` and
 * `gpubench p2p` share: nvbandwidth's stream blocker, per-stream events and
 * the timed sample, and the on-device pattern check.
 *
 * A sample (gb_ce_time) goes: a one-thread spin kernel on every stream,
 * waiting on a flag in pinned, host-mapped memory; the warm-up operations;
 * the start event on stream 0, every other stream waiting on it before
 * recording its own; `loops` operations and the stop event per stream; then
 * the host releases the flag and reads the elapsed times. Everything is
 * queued before the release, so host enqueue time stays outside the events
 * and streams of one or several GPUs start together.
 *
 * Only work that never needs the host thread may queue behind the blocker:
 * a pageable copy, a copy staged through the host, or a managed prefetch
 * may be run by the calling thread itself, which would then wait on a
 * stream it has not released yet (until the spin kernel's timeout). Such
 * samples pass flag = NULL and run as they are queued.
 */
#ifndef GPUBENCH_BENCH_COPY_ENGINE_H
#define GPUBENCH_BENCH_COPY_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "report/result.h"

/* A blocked stream gives up after this long, so it never hangs. */
#define GB_CE_SPIN_TIMEOUT_S 10.0
/* Operations queued behind the blocker before the start event (as nvbandwidth). */
#define GB_CE_WARMUP 4
/*
 * The most --loops a sample may time. Every operation of a sample, and up
 * to twice that on the interfering stream of a two-way copy, queues behind
 * the blocker; CUDA's queue of pending launches holds about a thousand
 * entries, and a host that blocks in a full queue cannot release the
 * blocker, so the sample would end in the spin kernel's timeout.
 */
#define GB_CE_MAX_LOOPS 256

/* The flag the spin kernels wait on: pinned, mapped into every GPU, portable. */
struct gb_ce_flag {
	int release;   /* written by the host: 0 holds the spin kernels, 1 lets them go */
	int timed_out; /* written by a spin kernel that gave up waiting */
};

/*
 * Allocate the flag, released, with `dev` made current first (a mapped
 * allocation would otherwise create a context on whatever GPU is current).
 */
cudaError_t gb_ce_flag_alloc(struct gb_ce_flag **flag, int dev);
/* Release it and free it; every stream that waited on it must be synchronized. NULL is a no-op. */
void gb_ce_flag_free(struct gb_ce_flag *flag);
/* Set the release word (1 lets every waiting spin kernel finish). NULL is a no-op. */
void gb_ce_flag_set(struct gb_ce_flag *flag, int release);

/* One non-blocking stream on one GPU, with its timing events. */
struct gb_ce_stream {
	int dev;
	cudaStream_t s;
	cudaEvent_t start, stop;
	struct gb_ce_flag *flag_view; /* dev's pointer to the flag; NULL without one */
	unsigned long long spin_ns;   /* GB_CE_SPIN_TIMEOUT_S in ns of the GPU's global timer */
};

/*
 * Make dev current and create the stream and events; map flag (may be
 * NULL) into dev. On failure what was created stays in st for
 * gb_ce_stream_close(). st must start zeroed.
 */
cudaError_t gb_ce_stream_open(struct gb_ce_stream *st, int dev, struct gb_ce_flag *flag);
/* Destroy what open created (dev made current; the caller synchronized the device). */
void gb_ce_stream_close(struct gb_ce_stream *st);

/* Queue one operation on stream i of a sample (its device is current). */
typedef cudaError_t (*gb_ce_issue_fn)(void *user, int i);

struct gb_ce_sample {
	struct gb_ce_stream *const *st; /* n streams: st[0] starts first, the other waits on it */
	int n;                   /* 1 or 2 */
	struct gb_ce_flag *flag; /* the blocker; NULL: operations run as they are queued */
	int warmup;              /* operations per stream before the start events */
	long loops;              /* timed operations per stream */
	/* optional: timed operations of stream i, in place of loops (0 keeps loops) */
	long loops_of[2];
	/*
	 * Queue the operations of all streams in turn (op k of stream 0, op k of
	 * stream 1, ...) rather than stream by stream: without the blocker, an
	 * operation the host thread runs itself (a staged peer copy) would
	 * otherwise let stream 0 finish before stream 1 had anything queued.
	 */
	bool interleave;
	gb_ce_issue_fn issue;
	void *user;
	/* optional: called right after the release, while the timed operations run */
	void (*released)(void *user);
};

/*
 * One timed sample: sec[i] gets stream i's elapsed seconds over its loops.
 * The flag is released on every path. 0, or -1 with res set to ERROR (a
 * failed call, or a spin kernel that timed out: the timing is not valid).
 */
int gb_ce_time(struct gb_bench_result *res, const struct gb_ce_sample *smp, double *sec);

/* Seconds from st's start to its stop event, once stop has completed. 0 or -1 (res ERROR). */
int gb_ce_elapsed(struct gb_bench_result *res, const struct gb_ce_stream *st, double *sec);

/*
 * A failed allocation as the benchmark's ERROR, one line naming what and how
 * much (gb_copy_alloc_msg): count buffers of bytes of kind ("device memory",
 * "pinned host memory (NUMA node 0)") for dev, the error, and for device
 * memory what the current device has free. Clears the (non-sticky) error.
 * Returns -1.
 */
int gb_ce_alloc_error(struct gb_bench_result *res, cudaError_t e, int count, double bytes,
		      const char *kind, int dev);

/*
 * Copy a device counter to *out once the work queued on s has run (current
 * device: s's). 0 or -1 (res ERROR).
 */
int gb_ce_read_counter(struct gb_bench_result *res, cudaStream_t s,
		       const unsigned long long *counter, long long *out);

/*
 * Count on the device, on s, the 16-byte words of buf (device-visible,
 * bytes a multiple of 16) that differ from the pattern of seed: the
 * counter is zeroed first, so each call counts afresh. 0 or -1 (res ERROR).
 */
int gb_ce_verify(struct gb_bench_result *res, cudaStream_t s, const void *buf, size_t bytes,
		 uint64_t seed, unsigned long long *counter, int sm_count, long long *bad);

#endif
