/* SPDX-License-Identifier: MIT */
/*
 * bandwidth.c - `gpubench bandwidth`: host<->device copies (one way and both
 * at once), device-local copies and STREAM, each over a size sweep, by the
 * copy engine and by SM kernels, from pinned, pageable and managed memory.
 *
 * Method (nvbandwidth's): every copy of a sample is queued behind a spin
 * kernel that waits on a host-mapped flag, warm-up copies included, so host
 * enqueue time is not measured and concurrent copies start together; CUDA
 * events bracket `loops` copies; at least 3 samples, the median is the
 * value; the destination is poisoned before and verified on the device
 * after every sample. Pageable copies cannot sit behind a blocked stream
 * (the runtime stages them through the host thread, which would wait on the
 * blocker) and managed prefetches must be undone between copies, so those
 * are timed with plain events. The sweep is fitted to t = alpha + n/beta;
 * beta only where the sweep can pin it (see add_fit). The halves of a
 * two-way copy are timed again under a 2x interferer (bw_measure_halves).
 * The PCIe link is read through NVML while pinned copies run: idle links
 * drop to Gen1, so only a reading under load says how the link trained.
 * Host buffers and the thread go next to the GPU (bench/device/host_numa.h), and
 * the report says where the pages really landed.
 *
 * Conventions are in bench/device/copy_math.h and docs/bandwidth.md.
 *
 * This file holds the options, which tests each GPU runs and the run
 * itself; bandwidth_host.c the buffers and their NUMA placement,
 * bandwidth_copy.c the operations, their timing and samples,
 * bandwidth_verify.c the patterns and the check of copied data,
 * bandwidth_report.c the metrics, fit, checks and extra; what they share
 * is in bandwidth_internal.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/device/peer_math.h"
#include "bench/device/copy_engine.h"
#include "bench/device/copy_math.h"
#include "bench/device/gpu.h"
#include "bench/device/host_numa.h"
#include "bench/device/telemetry.h"
#include "bench/copies/bandwidth_internal.h"

/* ---- options ---- */

enum { OPT_H2D = 0, OPT_D2H, OPT_BIDIR, OPT_D2D, OPT_STREAM };
static const char *const test_choices[] = { "h2d", "d2h", "bidir", "d2d", "stream", NULL };
/* indices match enum gb_copy_memory */
static const char *const memory_choices[] = { "pinned", "pageable", "managed", NULL };
/* indices match enum gb_copy_method */
static const char *const method_choices[] = { "ce", "sm", NULL };

#define GIB (1024.0 * 1024.0 * 1024.0)

static const struct gb_opt bw_opts[] = {
	{ GB_OPT_ENUM_LIST, 0, "tests", offsetof(struct bw_params, tests), "LIST",
	  "tests to run (default all)", 0, 0, test_choices, 0 },
	GB_OPT_REFUSED('t', NULL,
		       "is no longer short for '--tests'; use '--tests' ('-t' is stress's "
		       "'--duration')"),
	{ GB_OPT_ENUM_LIST, 0, "memory", offsetof(struct bw_params, memory), "LIST",
	  "host memory for h2d/d2h/bidir (default pinned)", 0, 0, memory_choices, 0 },
	{ GB_OPT_ENUM_LIST, 0, "method", offsetof(struct bw_params, methods), "LIST",
	  "copy engine (ce), SM kernel (sm) or both (default both)", 0, 0, method_choices, 0 },
	{ GB_OPT_SIZE, 0, "min-size", offsetof(struct bw_params, min_size), "SIZE",
	  "smallest copy of the sweep (default 4K)", 16, 64 * GIB, NULL, 0 },
	{ GB_OPT_SIZE, 0, "max-size", offsetof(struct bw_params, max_size), "SIZE",
	  "largest copy of the sweep, the headline size (default 512M, as nvbandwidth)", 16,
	  64 * GIB, NULL, 0 },
	{ GB_OPT_COUNT, 0, "factor", offsetof(struct bw_params, factor), "N",
	  "size step of the sweep (default 2)", 2, 1024, NULL, 0 },
	{ GB_OPT_COUNT, 'n', "samples", offsetof(struct bw_params, samples), "N",
	  "samples per size; the median is reported (default 5)", 3, 1000, NULL, 0 },
	/* every copy of a sample queues behind the blocker (see GB_CE_MAX_LOOPS) */
	{ GB_OPT_COUNT, 0, "loops", offsetof(struct bw_params, loops), "N",
	  "copies timed together in one sample (default 16)", 1, GB_CE_MAX_LOOPS, NULL, 0 },
	{ GB_OPT_BOOL, 0, "no-verify", offsetof(struct bw_params, no_verify), NULL,
	  "do not check the copied data after each sample", 0, 0, NULL, 0 },
	{ GB_OPT_PERCENT, 0, "peer-tolerance", offsetof(struct bw_params, peer_tol), "PCT",
	  "fail a GPU more than this below the best GPU of its model (default 10%)", 0, 1, NULL,
	  0 },
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};

static void bw_defaults(void *params)
{
	struct bw_params *p = params;

	memset(p, 0, sizeof(*p));
	p->tests = (1u << OPT_H2D) | (1u << OPT_D2H) | (1u << OPT_BIDIR) | (1u << OPT_D2D) |
		   (1u << OPT_STREAM);
	p->memory = 1u << GB_MEM_PINNED;
	p->methods = (1u << GB_CM_CE) | (1u << GB_CM_SM);
	p->min_size = 4 * 1024;
	p->max_size = 512ull * 1024 * 1024;
	p->factor = 2;
	p->samples = 5;
	p->loops = 16;
	p->peer_tol = GB_PEER_TOLERANCE_DEFAULT;
}

static int bw_validate(const void *params, char *err, size_t errlen)
{
	const struct bw_params *p = params;

	return gb_copy_check_sweep(p->min_size, p->max_size, (uint64_t)p->factor, err, errlen);
}

/* ---- which tests run ---- */

static bool test_selected(const struct bw *b, int opt)
{
	return b->p->tests & (1u << opt);
}

static bool method_selected(const struct bw *b, enum gb_copy_method m)
{
	return b->p->methods & (1u << m);
}

static void add_not_run(struct dev_state *st, enum gb_copy_test t, enum gb_copy_method m,
			enum gb_copy_memory mem, const char *reason)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "test", gb_copy_test_name(t));
	cJSON_AddStringToObject(o, "method", gb_copy_method_name(m));
	cJSON_AddStringToObject(o, "memory", gb_copy_memory_name(mem));
	cJSON_AddStringToObject(o, "reason", reason);
	cJSON_AddItemToArray(st->not_run, o);
}

static int run_test(struct bw *b, struct dev_state *st, enum gb_copy_test t,
		    enum gb_copy_method m, enum gb_copy_memory mem)
{
	const char *why = gb_copy_unsupported(t, m, mem);
	struct curve c;
	struct op op;
	char base[64];
	int rc;

	if (!why && mem == GB_MEM_MANAGED && !st->managed_ok)
		why = "this GPU cannot prefetch managed memory (no concurrent managed access)";
	if (why) {
		add_not_run(st, t, m, mem, why);
		return 0;
	}
	memset(&c, 0, sizeof(c));
	bw_make_op(&op, st, t, m, mem, b->max_bytes);
	bw_metric_base(base, sizeof(base), &op);
	gb_progress(b->ctx, "bandwidth: GPU %d: %s over %zu sizes", st->dev, base, b->n_sizes);
	if ((rc = bw_setup_sources(b, st, &op)) || (rc = bw_warm_up(b, st, &op)))
		return rc;
	for (size_t i = 0; i < b->n_sizes && !gb_should_stop(b->ctx); i++) {
		op.bytes = b->sizes[i];
		if ((rc = bw_run_size(b, st, &op, i + 1 == b->n_sizes, &c)))
			return rc;
	}
	b->n_half[0] = b->n_half[1] = 0;
	/* op.bytes is the largest size that ran (the sweep may have been stopped) */
	if (op.nstreams == 2 && c.n && !gb_should_stop(b->ctx) &&
	    (rc = bw_measure_halves(b, st, &op)))
		return rc;
	bw_report_curve(b, st, &op, &c);
	return 0;
}

static int run_host_tests(struct bw *b, struct dev_state *st, enum gb_copy_memory mem)
{
	static const struct {
		int opt;
		enum gb_copy_test test;
	} tests[] = { { OPT_H2D, GB_CT_H2D }, { OPT_D2H, GB_CT_D2H }, { OPT_BIDIR, GB_CT_BIDIR } };
	struct gb_cpu_saved cpus;
	int rc;

	/*
	 * The thread on the GPU's own CPUs, as nvbandwidth does: pageable copies
	 * are staged by this thread's memcpy, and first touch happens here too.
	 * Only CPUs it may already use: never wider than the cpuset it was given.
	 */
	st->cpus_pinned = gb_cpu_pin_near(st->info ? st->info->pci_bus_id : NULL, &cpus, st->cpus,
					  sizeof(st->cpus));
	if ((rc = bw_alloc_host(b, st, mem))) {
		gb_cpu_unpin(&cpus);
		return rc;
	}
	for (size_t t = 0; t < 3 && rc == 0; t++) {
		if (!test_selected(b, tests[t].opt))
			continue;
		for (int m = 0; m < GB_CM_COUNT && rc == 0 && !gb_should_stop(b->ctx); m++)
			if (method_selected(b, (enum gb_copy_method)m))
				rc = run_test(b, st, tests[t].test, (enum gb_copy_method)m, mem);
	}
	bw_free_host(st);
	gb_cpu_unpin(&cpus);
	return rc;
}

static int run_device_tests(struct bw *b, struct dev_state *st)
{
	int rc = 0;

	for (int m = 0; m < GB_CM_COUNT && rc == 0 && test_selected(b, OPT_D2D); m++)
		if (method_selected(b, (enum gb_copy_method)m) && !gb_should_stop(b->ctx))
			rc = run_test(b, st, GB_CT_D2D, (enum gb_copy_method)m, GB_MEM_DEVICE);
	/* STREAM is SM kernels by nature: --method does not apply to it */
	for (int t = GB_CT_STREAM_COPY; t <= GB_CT_STREAM_TRIAD && rc == 0; t++)
		if (test_selected(b, OPT_STREAM) && !gb_should_stop(b->ctx))
			rc = run_test(b, st, (enum gb_copy_test)t, GB_CM_SM, GB_MEM_DEVICE);
	return rc;
}

/* ---- one device, and the run ---- */

static void set_theory(struct dev_state *st)
{
	const struct gb_device_info *d = st->info;

	st->theory.pcie_bps = d ? d->peaks.pcie_bps : NAN;
	st->theory.mem_bw_bps = gb_copy_mem_bps(d);
	st->theory.peer_bps = NAN;
}

static int run_device(struct bw *b, size_t k)
{
	int dev = b->ctx->devices[k];
	struct dev_state st;
	bool host_tests = test_selected(b, OPT_H2D) || test_selected(b, OPT_D2H) ||
			  test_selected(b, OPT_BIDIR);
	int rc;

	bw_dev_state_init(&st, dev);
	if (b->sampler)
		gb_sampler_mark(b->sampler);
	st.info = gb_run_find_device(b->ctx->run, dev);
	set_theory(&st);
	bw_choose_host_node(&st);
	rc = bw_dev_open(b, &st);
	for (int mem = 0; mem < GB_MEM_DEVICE && rc == 0 && host_tests; mem++)
		if ((b->p->memory & (1u << mem)) && !gb_should_stop(b->ctx))
			rc = run_host_tests(b, &st, (enum gb_copy_memory)mem);
	if (rc == 0)
		rc = run_device_tests(b, &st);
	if (rc == 0) {
		bw_check_data(b, &st);
		bw_check_link(b, &st);
		bw_add_link_metrics(b, &st);
		bw_check_spread(b, &st);
	}
	bw_add_device_extra(b, &st, k);
	bw_dev_close(&st);
	return rc;
}

static void join_choices(char *buf, size_t len, uint32_t mask, const char *const *choices)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; choices[i] && pos < len; i++)
		if (mask & (1u << i))
			pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", pos ? "," : "",
						choices[i]);
}

static void record_params(struct bw *b)
{
	const struct bw_params *p = b->p;
	struct gb_bench_result *res = b->res;
	char list[128];
	cJSON *extra = gb_bench_extra(res), *units, *sizes;

	join_choices(list, sizeof(list), p->tests, test_choices);
	gb_bench_param_str(res, "tests", list);
	join_choices(list, sizeof(list), p->memory, memory_choices);
	gb_bench_param_str(res, "memory", list);
	join_choices(list, sizeof(list), p->methods, method_choices);
	gb_bench_param_str(res, "method", list);
	gb_bench_param_num(res, "min_size", (double)p->min_size);
	gb_bench_param_num(res, "max_size", (double)p->max_size);
	gb_bench_param_num(res, "factor", (double)p->factor);
	gb_bench_param_num(res, "samples", (double)p->samples);
	gb_bench_param_num(res, "loops", (double)p->loops);
	gb_bench_param_num(res, "warmup_copies", GB_CE_WARMUP);
	gb_bench_param_bool(res, "verify", b->verify);
	gb_bench_param_str(res, "statistic", "median");
	units = cJSON_AddObjectToObject(extra, "units");
	cJSON_AddStringToObject(units, "gbps",
				"GB/s = 1e9 bytes/s; each byte counted once per direction; bidir "
				"sums both directions; d2d counts the payload once (the _dram_ "
				"metrics count bytes read plus written); STREAM counts bytes read "
				"plus written (copy, scale 2 arrays; add, triad 3)");
	cJSON_AddStringToObject(units, "alpha_us", "latency of one copy from the fit t = alpha + n/beta");
	cJSON_AddStringToObject(units, "sizes", "bytes per buffer");
	sizes = cJSON_AddArrayToObject(extra, "sizes");
	for (size_t i = 0; i < b->n_sizes; i++)
		cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)b->sizes[i]));
	b->dev_extra = cJSON_AddArrayToObject(extra, "devices");
}

static void record_numa(struct bw *b)
{
	cJSON *d;
	bool all = b->dev_extra && cJSON_GetArraySize(b->dev_extra) > 0;

	cJSON_ArrayForEach(d, b->dev_extra)
		all = all && cJSON_IsTrue(cJSON_GetObjectItem(d, "numa_bound"));
	gb_bench_param_bool(b->res, "numa_bound", all);
}

/*
 * The figures peers are compared on: each test's headline bandwidth at the
 * largest size (a GB/s metric with samples), not the fit's extrapolation or
 * the curve's small sizes, which latency and noise decide; nor pageable
 * copies, which the host CPU's memcpy bounds, not the GPU or its link.
 */
static bool bw_rate_metric(const struct gb_metric *m)
{
	return m->unit && !strcmp(m->unit, "GB/s") && m->stats.n > 0 &&
	       !strstr(m->name, "pageable");
}

static int bw_run(struct gb_ctx *ctx, const void *params, struct gb_bench_result *res)
{
	struct bw b;
	int rc = 0;

	memset(&b, 0, sizeof(b));
	b.p = params;
	b.ctx = ctx;
	b.res = res;
	b.verify = !b.p->no_verify;
	b.n_sizes = gb_copy_sweep(b.p->min_size, b.p->max_size, (uint64_t)b.p->factor, b.sizes,
				  GB_COPY_SWEEP_MAX);
	if (b.n_sizes == 0) {
		gb_bench_set_status(res, GB_STATUS_ERROR, "empty size sweep");
		return -1;
	}
	b.max_bytes = (size_t)b.sizes[b.n_sizes - 1];
	b.cur = gb_xrealloc(NULL, sizeof(double) * (size_t)b.p->samples);
	b.last = gb_xrealloc(NULL, sizeof(double) * (size_t)b.p->samples);
	for (int i = 0; i < 2; i++)
		b.half[i] = gb_xrealloc(NULL, sizeof(double) * (size_t)b.p->samples);
	record_params(&b);
	b.sampler = gb_sampler_start(ctx, ctx->devices, ctx->n_devices, TELEMETRY_INTERVAL_S, NULL);
	for (size_t k = 0; k < ctx->n_devices && rc == 0 && !gb_should_stop(ctx); k++)
		rc = run_device(&b, k);
	gb_sampler_stop(b.sampler);
	record_numa(&b);
	/* GPUs of one model against each other: a slow GPU's copies clear its own limit */
	if (rc == 0)
		gb_peer_checks(res, ctx->run, bw_rate_metric, NULL, b.p->peer_tol);
	free(b.cur);
	free(b.last);
	free(b.half[0]);
	free(b.half[1]);
	return rc;
}

const struct gb_bench gb_bench_bandwidth = {
	.name = "bandwidth",
	.summary = "host<->device, device-local and STREAM bandwidth over a size sweep",
	.usage = "gpubench bandwidth [options]",
	.opts = bw_opts,
	.params_size = sizeof(struct bw_params),
	.set_defaults = bw_defaults,
	.validate = bw_validate,
	.supported = NULL,
	.run = bw_run,
	.flags = GB_BENCH_NEEDS_GPU,
};
