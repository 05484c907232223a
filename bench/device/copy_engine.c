/* SPDX-License-Identifier: MIT */
/* copy_engine.c - stream blocker, events and timed samples (see copy_engine.h). */
#include "bench/device/copy_engine.h"

#include <stdio.h>
#include <string.h>

#include "bench/options.h"
#include "bench/device/copy_math.h"
#include "bench/device/gpu.h"
#include "kernels/kernels.h"

cudaError_t gb_ce_flag_alloc(struct gb_ce_flag **flag, int dev)
{
	cudaError_t e = cudaSetDevice(dev);

	*flag = NULL;
	if (e == cudaSuccess)
		e = cudaHostAlloc((void **)flag, sizeof(**flag),
				  cudaHostAllocMapped | cudaHostAllocPortable);
	if (e != cudaSuccess) {
		*flag = NULL;
		return e;
	}
	memset(*flag, 0, sizeof(**flag));
	gb_ce_flag_set(*flag, 1);
	return cudaSuccess;
}

void gb_ce_flag_set(struct gb_ce_flag *flag, int release)
{
	if (flag)
		__atomic_store_n(&flag->release, release, __ATOMIC_SEQ_CST);
}

void gb_ce_flag_free(struct gb_ce_flag *flag)
{
	if (!flag)
		return;
	gb_ce_flag_set(flag, 1);
	cudaFreeHost(flag);
}

cudaError_t gb_ce_stream_open(struct gb_ce_stream *st, int dev, struct gb_ce_flag *flag)
{
	cudaError_t e;

	st->dev = dev;
	if ((e = cudaSetDevice(dev)) != cudaSuccess ||
	    (e = cudaStreamCreateWithFlags(&st->s, cudaStreamNonBlocking)) != cudaSuccess ||
	    (e = cudaEventCreate(&st->start)) != cudaSuccess ||
	    (e = cudaEventCreate(&st->stop)) != cudaSuccess)
		return e;
	st->spin_ns = (unsigned long long)(GB_CE_SPIN_TIMEOUT_S * 1e9);
	/* with UVA this is the host pointer, but the runtime only promises it per device */
	if (flag)
		e = cudaHostGetDevicePointer((void **)&st->flag_view, flag, 0);
	return e;
}

void gb_ce_stream_close(struct gb_ce_stream *st)
{
	if (!st->s && !st->start && !st->stop)
		return;
	cudaSetDevice(st->dev);
	if (st->stop)
		cudaEventDestroy(st->stop);
	if (st->start)
		cudaEventDestroy(st->start);
	if (st->s)
		cudaStreamDestroy(st->s);
	st->s = NULL;
	st->start = st->stop = NULL;
}

int gb_ce_elapsed(struct gb_bench_result *res, const struct gb_ce_stream *st, double *sec)
{
	float ms = 0;
	int rc = 0;

	GB_CUDA_GOTO(res, cudaEventSynchronize(st->stop), out);
	/* milliseconds, with about 0.5 us resolution */
	GB_CUDA_GOTO(res, cudaEventElapsedTime(&ms, st->start, st->stop), out);
	*sec = ms / 1e3;
out:
	return rc;
}

/* Spin kernels first, then the warm-up: nothing below may start before the release. */
static int block_streams(struct gb_bench_result *res, const struct gb_ce_sample *smp)
{
	int rc = 0;

	if (!smp->flag)
		return 0;
	gb_ce_flag_set(smp->flag, 0);
	__atomic_store_n(&smp->flag->timed_out, 0, __ATOMIC_SEQ_CST);
	for (int i = 0; i < smp->n; i++) {
		const struct gb_ce_stream *st = smp->st[i];

		if (!st->flag_view) {
			/* opened without the flag: a spin kernel would have nothing to wait on */
			gb_bench_set_status(res, GB_STATUS_ERROR,
					    "internal: the stream of GPU %d has no view of the "
					    "stream blocker",
					    st->dev);
			return -1;
		}
		GB_CUDA_GOTO(res, cudaSetDevice(st->dev), out);
		GB_CUDA_GOTO(res, gb_launch_spin_wait(&st->flag_view->release,
						      &st->flag_view->timed_out, st->spin_ns,
						      st->s),
			     out);
	}
out:
	return rc;
}

/* Stream 0's start first; every other stream waits on it, so all begin together. */
static int record_starts(struct gb_bench_result *res, const struct gb_ce_sample *smp)
{
	const struct gb_ce_stream *s0 = smp->st[0];
	int rc = 0;

	/*
	 * Stream 0 first waits for every other stream's warm-up (marked with that
	 * stream's start event, recorded again below): a start taken while
	 * another stream still warms up would let part of the sample run alone,
	 * and the two-way figure, timed from each stream's own start, read high.
	 * A wait takes the event as last recorded when the wait is queued.
	 */
	for (int i = 1; i < smp->n; i++) {
		GB_CUDA_GOTO(res, cudaSetDevice(smp->st[i]->dev), out);
		GB_CUDA_GOTO(res, cudaEventRecord(smp->st[i]->start, smp->st[i]->s), out);
		GB_CUDA_GOTO(res, cudaSetDevice(s0->dev), out);
		GB_CUDA_GOTO(res, cudaStreamWaitEvent(s0->s, smp->st[i]->start, 0), out);
	}
	GB_CUDA_GOTO(res, cudaSetDevice(s0->dev), out);
	GB_CUDA_GOTO(res, cudaEventRecord(s0->start, s0->s), out);
	for (int i = 1; i < smp->n; i++) {
		const struct gb_ce_stream *st = smp->st[i];

		/* another GPU's event can be waited on but not subtracted: each keeps its own */
		GB_CUDA_GOTO(res, cudaSetDevice(st->dev), out);
		GB_CUDA_GOTO(res, cudaStreamWaitEvent(st->s, s0->start, 0), out);
		GB_CUDA_GOTO(res, cudaEventRecord(st->start, st->s), out);
	}
out:
	return rc;
}

static long timed_loops(const struct gb_ce_sample *smp, int i)
{
	return i < 2 && smp->loops_of[i] > 0 ? smp->loops_of[i] : smp->loops;
}

/* One operation on stream i, its device made current. */
static int issue_one(struct gb_bench_result *res, const struct gb_ce_sample *smp, int i)
{
	int rc = 0;

	GB_CUDA_GOTO(res, cudaSetDevice(smp->st[i]->dev), out);
	GB_CUDA_GOTO(res, smp->issue(smp->user, i), out);
out:
	return rc;
}

static int record_stop(struct gb_bench_result *res, const struct gb_ce_stream *st)
{
	int rc = 0;

	GB_CUDA_GOTO(res, cudaSetDevice(st->dev), out);
	GB_CUDA_GOTO(res, cudaEventRecord(st->stop, st->s), out);
out:
	return rc;
}

/*
 * The operations of every stream (warm-up: count each; timed: each
 * stream's loops, then its stop event), stream by stream or interleaved.
 */
static int issue_all(struct gb_bench_result *res, const struct gb_ce_sample *smp, bool timed)
{
	long most = 0, n[2] = { 0, 0 };
	int rc = 0;

	for (int i = 0; i < smp->n && i < 2; i++) {
		n[i] = timed ? timed_loops(smp, i) : smp->warmup;
		most = n[i] > most ? n[i] : most;
	}
	if (smp->interleave) {
		for (long k = 0; k < most && rc == 0; k++)
			for (int i = 0; i < smp->n && rc == 0; i++)
				if (k < n[i])
					rc = issue_one(res, smp, i);
		for (int i = 0; i < smp->n && rc == 0 && timed; i++)
			rc = record_stop(res, smp->st[i]);
		return rc;
	}
	for (int i = 0; i < smp->n && rc == 0; i++) {
		for (long k = 0; k < n[i] && rc == 0; k++)
			rc = issue_one(res, smp, i);
		if (rc == 0 && timed)
			rc = record_stop(res, smp->st[i]);
	}
	return rc;
}

int gb_ce_time(struct gb_bench_result *res, const struct gb_ce_sample *smp, double *sec)
{
	int rc = 0;

	if (smp->n < 1 || smp->n > 2) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "internal: a sample of %d streams", smp->n);
		return -1;
	}
	if ((rc = block_streams(res, smp)) || (rc = issue_all(res, smp, false)) ||
	    (rc = record_starts(res, smp)) || (rc = issue_all(res, smp, true)))
		goto out;
	if (smp->flag) {
		gb_ce_flag_set(smp->flag, 1);
		if (smp->released)
			smp->released(smp->user);
	}
	for (int i = 0; i < smp->n && rc == 0; i++)
		rc = gb_ce_elapsed(res, smp->st[i], &sec[i]);
	if (rc == 0 && smp->flag && __atomic_load_n(&smp->flag->timed_out, __ATOMIC_SEQ_CST)) {
		/* the host could not queue everything within the timeout: the queue was full
		 * (too many operations behind the blocker) or the thread was starved */
		gb_bench_set_status(res, GB_STATUS_ERROR,
				    "the stream blocker timed out after %.0f s: the operations of a "
				    "sample could not be queued in time (try fewer --loops); the "
				    "timing is not valid",
				    GB_CE_SPIN_TIMEOUT_S);
		rc = -1;
	}
out:
	/* never leave a spin kernel waiting, whatever failed */
	gb_ce_flag_set(smp->flag, 1);
	return rc;
}

int gb_ce_read_counter(struct gb_bench_result *res, cudaStream_t s,
		       const unsigned long long *counter, long long *out)
{
	unsigned long long v = 0;
	int rc = 0;

	/* &v is pageable: this copy is synchronous, so it never sits behind a blocker */
	GB_CUDA_GOTO(res, cudaMemcpyAsync(&v, counter, sizeof(v), cudaMemcpyDeviceToHost, s), out);
	GB_CUDA_GOTO(res, cudaStreamSynchronize(s), out);
	*out = (long long)v;
out:
	return rc;
}

int gb_ce_verify(struct gb_bench_result *res, cudaStream_t s, const void *buf, size_t bytes,
		 uint64_t seed, unsigned long long *counter, int sm_count, long long *bad)
{
	int rc = 0;

	GB_CUDA_GOTO(res, cudaMemsetAsync(counter, 0, sizeof(*counter), s), out);
	GB_CUDA_GOTO(res, gb_launch_pattern_verify(buf, bytes, seed, counter, sm_count, s), out);
	rc = gb_ce_read_counter(res, s, counter, bad);
out:
	return rc;
}

int gb_ce_alloc_error(struct gb_bench_result *res, cudaError_t e, int count, double bytes,
		      const char *kind, int dev)
{
	char err[160], cause[256], fr[32], tot[32], msg[512];
	size_t free_b = 0, total_b = 0;

	gb_cuda_errstr(e, err, sizeof(err));
	(void)cudaGetLastError(); /* an allocation failure is not sticky: clear it */
	if (!strncmp(kind, "device", 6) && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
		gb_format_bytes(fr, sizeof(fr), (double)free_b);
		gb_format_bytes(tot, sizeof(tot), (double)total_b);
		snprintf(cause, sizeof(cause), "%s; %s of %s free", err, fr, tot);
	} else {
		snprintf(cause, sizeof(cause), "%s", err);
	}
	gb_copy_alloc_msg(msg, sizeof(msg), count, bytes, kind, dev, cause);
	gb_bench_set_status(res, GB_STATUS_ERROR, "%s", msg);
	return -1;
}
