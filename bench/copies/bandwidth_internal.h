/* SPDX-License-Identifier: MIT */
/*
 * bandwidth_internal.h - what the files of `gpubench bandwidth` share: the
 * parsed options, the per-device state, one copy operation and a sweep's
 * curve, and the functions one of those files calls in another. Private to
 * bench/bandwidth*.c. It may use the device layer (bench.h, gpu.h,
 * telemetry.h) and the copy pieces bandwidth and p2p share (copy_engine.h,
 * copy_math.h); nothing of another benchmark.
 */
#ifndef GPUBENCH_BENCH_BANDWIDTH_INTERNAL_H
#define GPUBENCH_BENCH_BANDWIDTH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench/bench.h"
#include "bench/device/copy_engine.h"
#include "bench/device/copy_math.h"
#include "bench/device/gpu.h"
#include "bench/device/telemetry.h"

struct bw_params {
	uint32_t tests;    /* bitmask over test_choices */
	uint32_t memory;   /* bitmask over memory_choices */
	uint32_t methods;  /* bitmask over method_choices */
	uint64_t min_size;
	uint64_t max_size;
	int64_t factor;
	int64_t samples;
	int64_t loops;
	bool no_verify;
	double peer_tol;   /* --peer-tolerance: a GPU this far below its model's best fails */
};

/* ---- state ---- */

/* Patterns: sources, the second source of a two-way test, and the poison. */
#define SEED_SRC 0xBAADF00DULL
#define SEED_SRC2 0x5EED5EEDULL
#define SEED_POISON 0xCAFEBABEULL
#define STREAM_Q 3.0
/* untimed runs at the largest size before a sweep: clocks and link speed settle */
#define WARMUP_SECONDS 0.2
#define WARMUP_MAX_RUNS 50
/* NVML telemetry while the copies run: clocks, power, throttling */
#define TELEMETRY_INTERVAL_S 0.1
/*
 * The link is read after the release, once per sample: a sample must keep
 * it busy long enough (about 10 ms at Gen5) or the reading is of an idle
 * link that has dropped to Gen1, a false "downtrained" finding.
 */
#define LINK_READ_MIN_BYTES (512.0 * 1024 * 1024)

struct dev_state {
	int dev;
	int sm_count;
	bool managed_ok;          /* the GPU can prefetch managed memory */
	const struct gb_device_info *info;
	struct gb_copy_theory theory;
	struct gb_ce_flag *flag;  /* the stream blocker */
	struct gb_ce_stream cs[2]; /* one per direction of a two-way CE copy; cs[0] for the rest */
	unsigned long long *bad;  /* device mismatch counter */
	void *d[3];               /* device buffers of max_size; d[2] doubles as scratch */
	void *h[2];               /* host buffers of the memory kind under test */
	void *h_view[2];          /* what a kernel can dereference for h[], NULL if nothing */
	enum gb_copy_memory hmem;
	/* where host buffers go: the node of the GPU's PCI function (NVML's when sysfs has
	 * none), -1 when unknown or memory-only (GH200 reports its GPU memory as a node) */
	int host_node;
	const char *host_node_from; /* "pci_sysfs", "nvml", or NULL */
	char host_node_note[160];   /* why host_node is -1, or "" */
	bool numa_bound;          /* pinned buffers bound to host_node (and seen there, if visible) */
	int pinned_node_seen;     /* where most pinned pages are, -1 when the kernel does not say */
	int pageable_node_seen;   /* the same for pageable buffers */
	double pinned_node_frac, pageable_node_frac;
	char cpus[256];           /* CPUs the thread ran the host tests on, or why not pinned */
	bool cpus_pinned;
	struct cudaMemLocation managed_host; /* where a managed d2h prefetch goes */
	bool read_link;           /* read the PCIe link during the next blocked run */
	int link_gen, link_width; /* best seen under load; -1 when never read */
	long long mismatches;     /* over every verified sample; -1 when nothing verified */
	char first_bad[200];      /* which test first showed wrong data */
	cJSON *not_run;           /* [{test, method, memory, reason}] */
	cJSON *curves;            /* {test: [{bytes, gbps, cv, min, max, n}]}: spread per size */
	cJSON *fits;              /* [{test, points, alpha_us, beta_gbps, ..., beta_note}] */
	cJSON *notes;             /* [strings]: what was measured differently, and why */
	/* the spread goal (CV <= 2% at >= 64 MiB) over pinned and device tests */
	int spread_points, spread_high;
	double spread_worst_cv;
	char spread_worst[96];
};

struct bw {
	const struct bw_params *p;
	struct gb_ctx *ctx;
	struct gb_bench_result *res;
	uint64_t sizes[GB_COPY_SWEEP_MAX];
	size_t n_sizes;
	size_t max_bytes;
	bool verify;
	double *cur;              /* this size's samples, GB/s */
	double *last;             /* the largest size's samples, for the headline metric */
	size_t n_last;
	double *half[2];          /* the largest size's bidir CE halves, each under a 2x interferer */
	size_t n_half[2];
	struct gb_sampler *sampler; /* NULL without NVML */
	cJSON *dev_extra;         /* extra.devices */
};

/* One end of a copy: a pointer for the copy engine, one for kernels, and its pattern. */
struct slot {
	void *dst, *dst_view;
	const void *src;
	void *src_view;
	uint64_t seed;            /* what dst must hold after the copy */
};

struct op {
	enum gb_copy_test test;
	enum gb_copy_method method;
	enum gb_copy_memory mem;
	size_t bytes;
	int nstreams;             /* 2 for bidirectional copy-engine copies */
	int nslots;               /* copies per operation: 2 for bidirectional */
	struct slot slot[2];
};

/* A sweep's results. */
struct curve {
	double size[GB_COPY_SWEEP_MAX];
	double gbps[GB_COPY_SWEEP_MAX]; /* median per size */
	struct gb_stats stats[GB_COPY_SWEEP_MAX]; /* spread per size */
	size_t n;
	double last_size;
};

/* ---- small helpers ---- */

/* bandwidth_host.c: per-device resources, host buffers and where they land */
void bw_dev_state_init(struct dev_state *st, int dev);
/* One line for extra.devices[].notes. */
void bw_add_note(struct dev_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bw_choose_host_node(struct dev_state *st);
int bw_dev_open(struct bw *b, struct dev_state *st);
void bw_free_host(struct dev_state *st);
void bw_dev_close(struct dev_state *st);
int bw_alloc_host(struct bw *b, struct dev_state *st, enum gb_copy_memory mem);

/* bandwidth_copy.c: operations, their timing and the samples of a sweep */
enum gb_stream_op bw_stream_op(enum gb_copy_test t);
void bw_make_op(struct op *op, struct dev_state *st, enum gb_copy_test t, enum gb_copy_method m,
		enum gb_copy_memory mem, size_t bytes);
bool bw_managed_ce(const struct op *op);
const void *bw_managed_buf(const struct op *op);
int bw_run_size(struct bw *b, struct dev_state *st, const struct op *op, bool largest,
		struct curve *c);
int bw_measure_halves(struct bw *b, struct dev_state *st, const struct op *op);
int bw_warm_up(struct bw *b, struct dev_state *st, const struct op *op);

/* bandwidth_verify.c: source patterns, poison, and the check of what was copied */
int bw_setup_sources(struct bw *b, struct dev_state *st, const struct op *op);
int bw_poison(struct bw *b, struct dev_state *st, const struct op *op);
int bw_verify_op(struct bw *b, struct dev_state *st, const struct op *op, long long *bad);
void bw_note_mismatches(struct dev_state *st, const struct op *op, long long bad);

/* bandwidth_report.c: metrics, fits, checks and extra.devices */
void bw_metric_base(char *buf, size_t len, const struct op *op);
void bw_report_curve(struct bw *b, struct dev_state *st, const struct op *op,
		     const struct curve *c);
void bw_check_data(struct bw *b, const struct dev_state *st);
void bw_check_spread(struct bw *b, const struct dev_state *st);
void bw_add_link_metrics(struct bw *b, const struct dev_state *st);
void bw_check_link(struct bw *b, const struct dev_state *st);
void bw_add_device_extra(struct bw *b, struct dev_state *st, size_t k);

#endif
