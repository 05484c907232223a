/* SPDX-License-Identifier: MIT */
/*
 * stress_memtest.c - the memtest load of `gpubench stress --memtest`:
 * the largest region that allocates, write and verify passes of the memtest
 * patterns over it, the injected flip, and the forensics of what a verify
 * pass found. Runs on a worker's thread; may use CUDA, the kernels,
 * stress_workers.c's helpers and stress_math.h.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/device/deadline_math.h"
#include "bench/device/cublaslt_dl.h"
#include "bench/device/gpu.h"
#include "bench/device/lt_matmul.h"
#include "bench/device/nvml.h"
#include "bench/stress/stress_internal.h"
#include "bench/stress/stress_math.h"
#include "kernels/kernels.h"
#include "report/json_util.h"
#include "report/thresholds.h"

/* ======================================================================= */
/* worker: memtest                                                         */

/* One write or verify pass; 0, -1 on error (reported), -2 abandoned. */
struct mt_step {
	int kind;
	uint32_t param;
	int verify;      /* 0 write, 1 verify, 2 verify and write the complement */
};

static int memtest_alloc(struct worker *w, uint64_t *words)
{
	size_t free_b = 0, total_b = 0;
	double want;
	cudaError_t e = cudaSuccess;

	WCUDA(w, cudaMemGetInfo(&free_b, &total_b), fail);
	want = (double)free_b * w->sh->p->mem_frac;
	/* the largest allocation that succeeds, from the requested share down */
	for (int tries = 0; tries < 20; tries++, want *= STRESS_MEM_SHRINK) {
		uint64_t bytes = (uint64_t)want & ~((2ULL << 20) - 1);

		if (bytes < (2ULL << 20))
			break;
		e = cudaMalloc(&w->slots, bytes);
		if (e == cudaSuccess) {
			*words = bytes / 4;
			w->mt_bytes = bytes;
			return 0;
		}
		cudaGetLastError();
	}
	fail_cuda(w, "cudaMalloc (memtest region)", e == cudaSuccess ? cudaErrorMemoryAllocation : e);
fail:
	return -1;
}

static void memtest_forensics(struct worker *w, const struct gb_memtest_report *r)
{
	unsigned n = r->n_rec < GB_STRESS_MAX_RECORDS ? r->n_rec : GB_STRESS_MAX_RECORDS;

	for (unsigned k = 0; k < n; k++) {
		struct gb_stress_forensic f;

		forensic_base(w, &f, "memtest", 0, 0);
		f.slot = -1;
		f.offset = (int64_t)(r->rec[k].word * 4);
		/* the virtual address lets repeats across runs of one process be matched */
		f.address = (uint64_t)(uintptr_t)w->slots + r->rec[k].word * 4;
		f.pass = w->mt.pass;
		snprintf(f.pattern, sizeof(f.pattern), "%s", w->mt.pattern);
		f.type = GB_DT_I32;
		f.have_bits = true;
		f.expected_bits = r->rec[k].expected;
		f.got_bits = r->rec[k].got;
		f.injected = w->inj.done && r->rec[k].word == w->inj.word;
		push_forensic(w, &f);
	}
}

/*
 * --inject-fault in memtest mode: flip bit 0 of one word between a write and
 * its verify. Both copies go on the worker's stream, which does not
 * synchronise with the legacy default stream (cudaStreamNonBlocking): a
 * plain cudaMemcpy could land after the verify kernel had read the word.
 * The flipped word is staged in pinned memory that lives as long as the
 * worker, so the asynchronous copy reads it whenever it runs.
 */
static int memtest_inject(struct worker *w, uint64_t words)
{
	uint32_t *h = (uint32_t *)(void *)w->hflip; /* [0] read back, [1] written */
	uint32_t *p = (uint32_t *)w->slots + words / 2;
	uint32_t word;

	WCUDA(w, cudaMemcpyAsync(&h[0], p, sizeof(*h), cudaMemcpyDeviceToHost, w->stream), fail);
	WCUDA(w, cudaEventRecord(w->ev[2], w->stream), fail);
	if (wait_event(w, w->ev[2], "inject"))
		return -1;
	h[1] = h[0] ^ 1u;
	word = h[1];
	/* stream order puts the flip after the write pass and before the verify */
	WCUDA(w, cudaMemcpyAsync(p, &h[1], sizeof(*h), cudaMemcpyHostToDevice, w->stream), fail);
	w->inj.done = true;
	w->inj.word = words / 2;
	w->inj.t_s = run_time(w->sh);
	forensic_base(w, &w->inj.f, "injected", 0, 0);
	w->inj.f.slot = -1;
	w->inj.f.offset = (int64_t)(words / 2 * 4);
	w->inj.f.address = (uint64_t)(uintptr_t)p;
	w->inj.f.pass = w->mt.pass;
	snprintf(w->inj.f.pattern, sizeof(w->inj.f.pattern), "%s", w->mt.pattern);
	w->inj.f.injected = true;
	w->inj.f.type = GB_DT_I32;
	w->inj.f.have_bits = true;
	w->inj.f.expected_bits = word ^ 1u;
	w->inj.f.got_bits = word;
	return 0;
fail:
	return -1;
}

static int memtest_step(struct worker *w, const struct mt_step *s, uint64_t words, uint64_t seed)
{
	struct gb_memtest_report *dr = (struct gb_memtest_report *)(void *)w->dv;
	struct gb_memtest_report r;
	float ms = 0;
	double bytes = (double)words * 4 * (s->verify == 2 ? 2 : 1);
	bool inject;

	gb_memtest_pattern_name(s->kind, s->param, s->verify == 2, w->mt.pattern,
				sizeof(w->mt.pattern));
	inject = s->verify && w->sh->p->inject_fault && !w->inj.done &&
		 gb_now_s() - w->load_start_s >= w->sh->inject_at_s;
	if (inject && memtest_inject(w, words))
		return -1;
	WCUDA(w, cudaMemsetAsync(dr, 0, sizeof(*dr), w->stream), fail);
	WCUDA(w, cudaEventRecord(w->ev[0], w->stream), fail);
	if (s->verify)
		WCUDA(w, gb_launch_memtest_verify((uint32_t *)w->slots, words, s->kind, s->param, seed,
						  s->verify == 2, dr, w->stream), fail);
	else
		WCUDA(w, gb_launch_memtest_write((uint32_t *)w->slots, words, s->kind, s->param, seed,
						 w->stream), fail);
	WCUDA(w, cudaEventRecord(w->ev[1], w->stream), fail);
	WCUDA(w, cudaMemcpyAsync(w->hv, dr, sizeof(r), cudaMemcpyDeviceToHost, w->stream), fail);
	WCUDA(w, cudaEventRecord(w->ev[2], w->stream), fail);
	if (wait_event(w, w->ev[2], "memtest"))
		return -1;
	WCUDA(w, cudaEventElapsedTime(&ms, w->ev[0], w->ev[1]), fail);
	memcpy(&r, w->hv, sizeof(r));
	if (inject && r.failures) {
		r.failures--;
		snprintf(w->inj.caught, sizeof(w->inj.caught), "memtest");
	}
	memtest_forensics(w, &r);
	pthread_mutex_lock(&w->lock);
	w->mem_errors += r.failures;
	w->mem_bytes += (uint64_t)bytes;
	w->work_acc[0] += bytes;
	w->busy_acc[0] += ms / 1e3;
	w->batches++;
	w->heartbeat_s = gb_now_s();
	w->load_s = gb_now_s() - w->load_start_s;
	pthread_mutex_unlock(&w->lock);
	return 0;
fail:
	return -1;
}

/* One pass: walking ones and zeros (32 positions each), moving inversions, random. */
static size_t memtest_plan(struct mt_step *s, size_t max, uint64_t pass)
{
	static const uint32_t solid[] = { 0x00000000u, 0x55555555u, 0x33333333u, 0x0F0F0F0Fu };
	uint32_t rnd = (uint32_t)gb_stress_mix64(pass);
	size_t n = 0;

	for (int kind = GB_MT_WALK1; kind <= GB_MT_WALK0; kind++) {
		for (uint32_t b = 0; b < 32 && n + 2 <= max; b++) {
			s[n++] = (struct mt_step){ kind, b, 0 };
			s[n++] = (struct mt_step){ kind, b, 1 };
		}
	}
	/* moving inversions: p, then p -> ~p, ~p -> p, and p read once more */
	for (size_t i = 0; i <= sizeof(solid) / sizeof(solid[0]) && n + 4 <= max; i++) {
		uint32_t p = i < sizeof(solid) / sizeof(solid[0]) ? solid[i] : rnd;

		s[n++] = (struct mt_step){ GB_MT_SOLID, p, 0 };
		s[n++] = (struct mt_step){ GB_MT_SOLID, p, 2 };
		s[n++] = (struct mt_step){ GB_MT_SOLID, ~p, 2 };
		s[n++] = (struct mt_step){ GB_MT_SOLID, p, 1 };
	}
	if (n + 2 <= max) {
		s[n++] = (struct mt_step){ GB_MT_RANDOM, 0, 0 };
		s[n++] = (struct mt_step){ GB_MT_RANDOM, 0, 1 };
	}
	return n;
}

void memtest_load(struct worker *w)
{
	struct mt_step plan[160];
	uint64_t words = 0;
	double deadline;

	WCUDA(w, cudaSetDevice(w->dev), out);
	WCUDA(w, cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking), out);
	for (int i = 0; i < 3; i++)
		WCUDA(w, cudaEventCreate(&w->ev[i]), out);
	if (alloc_dev(w, (void **)&w->dv, sizeof(struct gb_memtest_report), "memtest records"))
		return;
	WCUDA(w, cudaMallocHost((void **)&w->hv, sizeof(struct gb_memtest_report) > sizeof(*w->hv)
						       ? sizeof(struct gb_memtest_report)
						       : sizeof(*w->hv)), out);
	/* the --inject-fault staging words (memtest_inject) */
	WCUDA(w, cudaMallocHost((void **)&w->hflip, 2 * sizeof(*w->hflip)), out);
	if (memtest_alloc(w, &words))
		return;
	load_began(w);
	deadline = w->load_start_s + w->sh->p->duration_s;
	for (uint64_t pass = 0; !should_stop(w) && gb_now_s() < deadline; pass++) {
		size_t n = memtest_plan(plan, sizeof(plan) / sizeof(plan[0]), pass);
		uint64_t seed = gb_stress_mix64((uint64_t)w->sh->p->seed ^ pass);

		w->mt.pass = pass + 1;
		for (size_t i = 0; i < n && !should_stop(w) && gb_now_s() < deadline; i++)
			if (memtest_step(w, &plan[i], words, seed))
				return;
	}
out:
	return;
}
