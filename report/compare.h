/* SPDX-License-Identifier: MIT */
/*
 * compare.h - two reports side by side: which metrics match, how much each
 * changed, and whether a change is a regression a CI gate should fail on
 * (CPU only). docs/compare.md describes the rules and the JSON document.
 *
 * Matching. A metric's key is: benchmark name, metric name, its GPU ("all"
 * for a metric of no single GPU), and the benchmark's parameters that
 * decide what is measured. A GPU in both reports (the same UUID) is paired
 * with itself; the others by model (devices[].name) and rank among the
 * report's unpaired GPUs of that model (GPU k of a model with GPU k).
 * Parameters that only decide how long or how often it is measured, the
 * software versions and the method's descriptions are left out of the key,
 * so a quick run can be compared with a long one and a cuBLASLt upgrade
 * with the run before it: see gb_param_ignored().
 *
 * When the two reports have no GPU model in common (an A100 against an RTX
 * 4090) the model is left out of the key (GPU k of A is compared with GPU k
 * of B), rows are shown with each side's efficiency (% of its own peak),
 * performance per watt and, with prices, per dollar (throughput metrics
 * only, metric_directions.h), and nothing is gated: different hardware is
 * not a regression. What cannot exist on one side (a benchmark skipped
 * there, metrics with no counterpart) is "not applicable", listed and never
 * failed; only a B that could not run (its run or a benchmark ended with
 * an error or interrupted) is incomplete.
 *
 * Directions come from the one table (metric_directions.h), also for a
 * report an older build wrote: an observation (no direction) is never
 * gated and never makes B incomplete.
 *
 * Gating. A row is a regression when B is worse than A (by the metric's
 * "better" direction) by more than the tolerance, as a fraction of A, AND
 * by more than spread_k x sqrt(stdev_a^2 + stdev_b^2), the two runs'
 * combined spread, so noise never fails a build. Improvements, metrics with
 * no direction and metrics only B has are listed, never failed; what A
 * measured and B lacks makes B incomplete (below).
 * A metric with a value in A and none (null) in B is a regression: a number
 * that stopped being measured must not pass silently.
 *
 * Never fail open: B is "incomplete" when its run ended error or
 * interrupted, when a benchmark that measured something in A is error,
 * interrupted, skipped or not_built in B or absent from it, when a metric
 * that has a value in A is absent from B (or null there without a direction
 * to call it a regression), or when a GPU of A is absent from B. Each such
 * finding is listed, one per benchmark or GPU, and it fails the gate in both
 * modes unless allow_missing is set (then it is listed only). The rows stay
 * only_a. Metrics only B has are listed as only_b, never failed.
 */
#ifndef GPUBENCH_REPORT_COMPARE_H
#define GPUBENCH_REPORT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/out_format.h"
#include "result.h"
#include "software.h"
#include "report/compare_key.h"
#include "report/compare_tolerance.h"

#define GB_COMPARE_SCHEMA "gpubench.compare/1"

struct cJSON;

enum gb_cmp_class {
	GB_CMP_UNCHANGED = 0, /* within tolerance or within the noise */
	GB_CMP_IMPROVEMENT,   /* better by more than both */
	GB_CMP_REGRESSION,    /* worse by more than both: fails the gate */
	GB_CMP_CHANGED,       /* changed by more than both, but the metric has no direction */
	GB_CMP_ONLY_A,        /* in A only (removed, or not run in B) */
	GB_CMP_ONLY_B,        /* in B only (new) */
	GB_CMP_CLASS_COUNT
};
/*
 * "unchanged", "improvement", "regression", "changed", "only_a", "only_b";
 * across different GPU models improvement and regression read "b_better"
 * and "b_worse", because a different GPU is not a regression.
 */
const char *gb_cmp_class_name(enum gb_cmp_class c, bool different_models);

void gb_compare_opts_init(struct gb_compare_opts *o);

/* One side of a row. */
struct gb_cmp_side {
	int device;            /* CUDA index in that report, -1 for none */
	double value;          /* NAN when absent or null */
	double stdev;          /* 0 without samples */
	double efficiency;     /* fraction of that GPU's own peak, NAN if unknown */
	double power_w;        /* the power the per-watt figure divides by, NAN if unknown */
	const char *power_source; /* "metric", "telemetry", "power_limit" or NULL */
	double per_watt;       /* value / power_w (throughput metrics only) */
	double per_dollar;     /* value / (price x GPUs) (throughput metrics only) */
};

struct gb_cmp_row {
	char *bench;
	char *metric;
	char *model;           /* device model, "all"; "A100 / RTX 4090" across models */
	char *params;          /* canonical key of the parameters that matter, "" for none */
	char *unit;
	enum gb_better better;
	struct gb_cmp_side a, b;
	double ratio;          /* b / a */
	double change_pct;     /* (b - a) / |a| x 100 */
	double tolerance;      /* the fraction that applied */
	double noise;          /* spread_k x combined stdev, in the metric's unit */
	enum gb_cmp_class cls;
};

/* What a finding of B incomplete is about ("kind" in the compare document). */
enum gb_cmp_missing_kind {
	GB_MISS_RUN,       /* "run": B's run ended early (error, interrupted) */
	GB_MISS_NOT_RUN,   /* "not_run": a benchmark A measured is error, interrupted, skipped
			    * or not_built in B */
	GB_MISS_BENCHMARK, /* "benchmark": a benchmark A measured is absent from B */
	GB_MISS_METRICS,   /* "metrics": metrics A measured are absent from B, or null there */
	GB_MISS_GPU        /* "gpu": a GPU of A is absent from B */
};
/* "run", "not_run", "benchmark", "metrics", "gpu" */
const char *gb_cmp_missing_kind_name(enum gb_cmp_missing_kind k);

struct gb_cmp_missing;
/* What a finding is about, for a suite or a label: its benchmark, else "run" or "gpu" */
const char *gb_cmp_missing_subject(const struct gb_cmp_missing *m);

/*
 * Why B is incomplete: its run ended early, a benchmark that measured
 * something in A could not run in B or is absent from it, metrics A
 * measured are absent from B, or a GPU of A is.
 */
struct gb_cmp_missing {
	char side;             /* the report that lacks it: 'B' (incomplete), 'A' or 'B' (not
				* applicable) */
	enum gb_cmp_missing_kind kind;
	int device;            /* GB_MISS_GPU: A's CUDA index of the GPU; else -1 */
	char *bench;           /* the benchmark; NULL for B's run as a whole and for a GPU */
	enum gb_status status; /* its status in B (the run's when absent or for the run) */
	char *reason;          /* B's reason, may be NULL */
	size_t metrics_a;      /* metrics with a value A has for it (0 for the run) */
	char *message;         /* one line: "gemm could not run in B (error: ...): ..." */
};

struct gb_compare {
	char *name_a, *name_b;     /* file names as given */
	char *host_a, *host_b;
	char *models_a, *models_b; /* "2x NVIDIA H100 80GB HBM3" */
	bool different_models;
	double tolerance, spread_k, price_a, price_b;
	struct gb_cmp_row *rows;
	size_t n_rows, cap_rows;
	size_t count[GB_CMP_CLASS_COUNT];
	struct gb_cmp_missing *missing; /* B incomplete: why (empty when complete) */
	size_t n_missing;
	/*
	 * Across GPU models: what cannot exist on one side's hardware (a
	 * benchmark skipped there, metrics with no counterpart), listed and
	 * never failed. metrics_a counts the other side's metrics.
	 */
	struct gb_cmp_missing *na;
	size_t n_na;
	bool allow_missing;
	/* both reports come from the simulated GPU (mixed ones are refused) */
	bool simulated;
	char *sim_a, *sim_b;       /* their host.simulated_machine, may be NULL */
	/* software versions that differ between A's and B's hosts (driver, cuBLASLt, ...) */
	struct gb_sw_change software[GB_SW_COUNT];
	size_t n_software;
};

/*
 * Compare B against A. Returns 0 with *out filled (release it with
 * gb_compare_release), or -1 with one line in err when
 * - one report is simulated (host.simulated, written by gpubench-sim) and
 *   the other measured: simulated numbers are never compared with real ones;
 * - the two reports have no metric in common ("'a.json' and 'b.json' have
 *   no metric in common") and B's run and benchmarks did not end early (or
 *   allow_missing is set): a B that could not run is a gate failure with its
 *   reasons, not bad input.
 */
int gb_compare_runs(const struct gb_run *a, const char *name_a, const struct gb_run *b,
		    const char *name_b, const struct gb_compare_opts *o, struct gb_compare *out,
		    char *err, size_t errlen);
void gb_compare_release(struct gb_compare *c);

/* true when a row regressed between reports of the same GPU models */
bool gb_compare_regressed(const struct gb_compare *c);
/* true when the gate fails: a regression, or B incomplete without allow_missing */
bool gb_compare_failed(const struct gb_compare *c);
/*
 * why it failed: "regression", "B incomplete", "regression, B incomplete";
 * else "passed", or "passed (side by side, not gated)" across GPU models
 */
const char *gb_compare_result_words(const struct gb_compare *c);
/*
 * The rows per class in words, the same in every format: "6 regressions, 0
 * improvements, 122 unchanged, ..." or across models "58 worse in B, ...,
 * 2 not applicable; changes not gated".
 */
void gb_compare_summary_words(const struct gb_compare *c, char *buf, size_t len);
/* one row in a line: "gemm tflops_bf16 on GPU 1: 150 -> 127 TFLOP/s (-15.3%)" */
void gb_cmp_row_line(const struct gb_cmp_row *r, char *buf, size_t len);
/* the heading of the not-applicable list, in every format */
#define GB_CMP_NA_TITLE "Not applicable (other hardware; listed, not failed)"

/* The compare document (schema gpubench.compare/1); caller frees. */
struct cJSON *gb_compare_to_json(const struct gb_compare *c);

/*
 * Print in every format: text, json, markdown, csv,
 * junit (one test case per row, a failure per regression and per reason B is
 * incomplete), prometheus (gauges per row and the gate) or html (one
 * self-contained page). -1 on a stream error or an unknown format.
 */
int gb_compare_print(const struct gb_compare *c, enum gb_out_format f, FILE *out);
/* the writers behind it, in junit.c, prometheus.c and html.c */
int gb_compare_junit(const struct gb_compare *c, FILE *out);
int gb_compare_prometheus(const struct gb_compare *c, FILE *out);
int gb_compare_html(const struct gb_compare *c, FILE *out);

#endif
