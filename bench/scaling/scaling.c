/* SPDX-License-Identifier: MIT */
/*
 * scaling.c - `gpubench scaling`: what 1, 2, ... N GPUs gain over one on a
 * compute stream (gemm) or a synthetic data-parallel training step (ddp),
 * measured, and placed against the model of report/scaling.h.
 *
 * How a run goes (docs/scaling.md, "Measuring"):
 *   setup     one worker per --devices entry (a GPU may repeat: 0,0): its
 *             own compute and communication streams, cuBLASLt handle, GEMM
 *             operands and gradient buffer, all allocated up front
 *   size      the step's GEMM count: from --step-tflop (work / 2n^3), or
 *             from --step-ms and GEMMs timed on the first worker alone
 *   phases    N = 1, then 2 .. W: one host thread per worker, all in
 *             lockstep (a barrier before every step); a step is timed with
 *             CUDA events on each worker, and its time is the slowest's.
 *             ddp all-reduces over an NCCL communicator of the N GPUs (one
 *             rank at N = 1, so one GPU runs the whole path); a worker list
 *             that repeats a GPU cannot have one (NCCL allows one rank per
 *             GPU), so there the all-reduce is a device-local copy of the
 *             same bytes and the result is reported as contention
 *   price     for N >= 2 distinct GPUs: the all-reduce alone over a few
 *             sizes, fitted t = alpha + S/beta (unless --link)
 *   report    per N: step time, throughput, speedup and efficiency with
 *             their spread over steps, the model's no-overlap and
 *             perfect-overlap range, and a check placing the speedup in it
 * NCCL (bench/device/nccl_comm.h): the communicators join non-blocking, so that
 * wait is polled against a deadline, and the steps and the sweep run on
 * their blocking splits (NCCL 2.19.1+), so an all-reduce returns once
 * enqueued and no host polling lands inside a timed step. Every blocking
 * NCCL call is watched:
 * past the timeout, or soon after another worker failed, a watchdog aborts
 * the communicator it is blocked in. Waits on the GPU poll events with a
 * deadline, and a failed worker releases the others, so a hung GPU or link
 * ends in an error, not a process that waits forever. Never prints, never
 * exits.
 *
 * The files: this one runs the steps above in order; scaling_setup.c,
 * scaling_measure.c (size, phases, price), scaling_workers.c (the workers'
 * threads and their step), scaling_allreduce.c (NCCL and the buckets),
 * scaling_report.c (report), all over bench/scaling/scaling_internal.h; the
 * arithmetic is scaling_math.c (CPU only, unit-tested).
 */
#include <string.h>

#include "bench/scaling/scaling_internal.h"
#include "bench/device/telemetry.h"

static void final_status(struct sc *s)
{
	size_t gpus = gb_scaling_distinct(s->dev, s->n_workers);

	if (s->res->status != GB_STATUS_PASSED || gpus >= 2 || !s->n_phases)
		return;
	gb_bench_set_status(s->res, GB_STATUS_PASSED, "%s%s", GB_SCALING_ONE_GPU_REASON,
			    s->any_repeat ? "; the repeated GPU shows contention, not scaling" : "");
}

static struct gb_sampler *start_sampler(struct sc *s)
{
	int distinct[GB_DEVICE_LIST_MAX];
	size_t n = 0;

	for (size_t i = 0; i < s->n_workers; i++) {
		bool seen = false;

		for (size_t j = 0; j < n; j++)
			seen |= distinct[j] == s->dev[i];
		if (!seen)
			distinct[n++] = s->dev[i];
	}
	return gb_sampler_start(s->ctx, distinct, n, SC_TELEMETRY_INTERVAL_S, NULL);
}

static int scaling_run(struct gb_ctx *ctx, const void *params, struct gb_bench_result *res)
{
	struct sc s;
	struct gb_sampler *sampler = NULL;
	int rc = -1;

	memset(&s, 0, sizeof(s));
	s.ctx = ctx;
	s.p = params;
	s.res = res;
	if (sc_resolve_workers(&s))
		return -1;
	sc_choose_precision(&s);
	if (sc_plan_setup(&s))
		return -1;
	sc_record_params(&s);
	if (sc_load_libraries(&s))
		return -1;
	sc_gate_init(&s.gate, ctx->stop);
	if (sc_setup_all(&s))
		goto out;
	sampler = start_sampler(&s);
	gb_bench_param_bool(res, "telemetry", sampler != NULL);
	if (sc_size_step(&s))
		goto out;
	sc_record_sizing(&s);
	rc = sc_run_phases(&s);
out:
	gb_sampler_stop(sampler);
	sc_report(&s);
	sc_teardown_all(&s);
	sc_gate_destroy(&s.gate);
	final_status(&s);
	return rc ? -1 : 0;
}

const struct gb_bench gb_bench_scaling = {
	.name = "scaling",
	.summary = "speedup of 1..N GPUs (GEMMs, or a synthetic DDP step) vs the data-parallel model",
	.usage = "gpubench scaling [--workload gemm|ddp] [--devices 0,1 | 0,0] [--steps N] "
		 "[--step-ms MS | --step-tflop TFLOP] [--grad-bytes SIZE] [--bucket SIZE] "
		 "[--overlap] [--link NAME] [options]",
	.opts = gb_scaling_opts,
	.params_size = sizeof(struct gb_scaling_params),
	.set_defaults = gb_scaling_set_defaults,
	.validate = gb_scaling_validate,
	.run = scaling_run,
	.flags = GB_BENCH_NEEDS_GPU,
};
