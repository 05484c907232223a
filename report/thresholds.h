/* SPDX-License-Identifier: MIT */
/*
 * thresholds.h - pass/fail rules relative to each GPU's own theoretical
 * peaks and links, as data (CPU only). docs/thresholds.md describes the
 * built-in sets and the file format of --thresholds.
 *
 * A rule names metrics by a glob ("tflops_bf16", "h2d_*_gbps") and sets a
 * minimum efficiency (a fraction of the metric's peak), a minimum and/or a
 * maximum value. Where a metric carries no peak of its own, the rule says
 * which of the device's peaks applies (the spec-sheet figure, else the one at
 * the device's max clock). A GPU with no known peak still gets the relative
 * checks (same model within 10%) and a warning that the absolute check
 * could not be made: never a silent skip.
 */
#ifndef GPUBENCH_REPORT_THRESHOLDS_H
#define GPUBENCH_REPORT_THRESHOLDS_H

#include <stdbool.h>
#include <stddef.h>

#include "result.h"

#define GB_THRESHOLDS_SCHEMA "gpubench.thresholds/1"

struct cJSON;

/* Which of the device's peaks a metric is measured against when it has none itself. */
enum gb_peak_kind {
	GB_PEAK_AUTO = 0,   /* the metric's own, else the kind the built-in rules give its name */
	GB_PEAK_METRIC,     /* only the metric's own peak */
	GB_PEAK_TFLOPS,     /* precision from the name: tflops_bf16 -> peaks.spec[bf16] */
	GB_PEAK_MEMORY,     /* device memory bandwidth */
	GB_PEAK_PCIE,       /* PCIe per direction at max generation and width */
	GB_PEAK_NVLINK,     /* NVLink per direction, all links */
	GB_PEAK_PCIE_GEN,   /* the slot's max PCIe generation (value: generation under load) */
	GB_PEAK_PCIE_WIDTH, /* the slot's max PCIe width (value: width under load) */
	GB_PEAK_COUNT
};
/* "auto", "metric", "tflops", "memory", "pcie", "nvlink", "pcie_gen", "pcie_width" */
const char *gb_peak_kind_name(enum gb_peak_kind k);
int gb_peak_kind_from_name(const char *name);

/*
 * Which link a rule is about, for metrics of traffic between GPUs (nccl's
 * bus bandwidth, p2p's copies): a rule with a class applies only where the
 * GPUs are joined so; ANY applies everywhere.
 */
enum gb_link_class {
	GB_LINK_ANY = 0,
	GB_LINK_NVLINK,    /* every pair joined by NVLink */
	GB_LINK_PCIE,      /* PCIe with peer access between every pair */
	GB_LINK_PCIE_HOST, /* PCIe, some pair without peer access: through host memory */
	GB_LINK_COUNT
};
/* "any", "nvlink", "pcie", "pcie_host" */
const char *gb_link_class_name(enum gb_link_class c);

struct gb_threshold {
	char *metric;            /* glob over the metric name */
	char *bench;             /* glob over the benchmark name; NULL for any */
	double min_efficiency;   /* fraction of peak; NAN for none */
	double min_value;        /* in the metric's unit; NAN for none */
	double max_value;        /* in the metric's unit; NAN for none */
	enum gb_peak_kind peak;
	enum gb_severity severity; /* ERROR: a miss fails; WARNING: a miss warns */
	bool off;                /* matches, and turns the metric's checks off */
	enum gb_link_class link; /* the GPUs' link it is about; ANY for every metric */
	bool sized;              /* built-in: a TFLOPS limit for 8192^3, scaled to the size run */
};

struct gb_thresholds {
	struct gb_threshold *rules; /* first match wins: the file's rules come first */
	size_t n, cap;
	double same_model_spread;   /* slowest at most this fraction below the best; NAN off */
	char *source;               /* "built-in 'quick'" or "built-in 'quick' + 'file.json'" */
};

/* profile names for --profile and the built-in sets */
extern const char *const gb_threshold_profiles[]; /* "quick", "acceptance", "burnin", NULL */

/* The built-in set of a profile. Returns 0, or -1 for an unknown profile. */
int gb_thresholds_builtin(struct gb_thresholds *t, const char *profile);

/*
 * Put the rules of a thresholds file (JSON) ahead of the built-ins, so they
 * override them. Returns 0, or -1 with one line in err naming the file and
 * the bad field ("'t.json': thresholds[1].min_efficiency must be ...").
 * On error t is unchanged.
 */
int gb_thresholds_load_file(struct gb_thresholds *t, const char *path, char *err, size_t errlen);
int gb_thresholds_from_json(struct gb_thresholds *t, const struct cJSON *doc, const char *name,
			    char *err, size_t errlen);
void gb_thresholds_release(struct gb_thresholds *t);

/* The rule that decides a metric (first match among rules of no link class), or NULL. */
const struct gb_threshold *gb_thresholds_match(const struct gb_thresholds *t, const char *bench,
					       const char *metric);

/*
 * Add a check for every metric a rule matches (to its benchmark), and the
 * same-model checks. Call once, after the benchmarks ran and before the
 * verdict.
 */
void gb_thresholds_apply(const struct gb_thresholds *t, struct gb_run *run);

/*
 * The peak a metric is measured against: its own, else the device's peak of
 * kind k. *what says which ("the metric's peak", "the spec-sheet peak", "the
 * peak at max clock", ...). NAN when none is known.
 */
double gb_metric_peak(const struct gb_run *run, const struct gb_metric *m, enum gb_peak_kind k,
		      const char **what);

/*
 * The metric's efficiency: its own, else value / the device peak a built-in
 * rule names for it. NAN when no peak is known. Used by compare across models.
 */
double gb_metric_efficiency(const struct gb_run *run, const struct gb_metric *m);

#endif
