/* SPDX-License-Identifier: MIT */
/*
 * published.h - what healthy GPUs of a model reach, as measured by others and
 * published (CPU only).
 *
 * The figures live in report/published.json, one entry per model (the GPU
 * catalog's key, report/theory.h) and figure, each with its value or range,
 * its source, its conditions and the line quoted from the source; the build
 * compiles the file's bytes in (cmake/published_json.c.in). A measured metric
 * is set against the spec sheet by its `peak` and against these figures by
 * its `published`: "761 TFLOP/s, 77% of the spec sheet, 96% of what healthy
 * H100 SXM reach". docs/published.md lists the figures and the ones left out.
 */
#ifndef GPUBENCH_REPORT_PUBLISHED_H
#define GPUBENCH_REPORT_PUBLISHED_H

#include <stddef.h>

#include "result.h"

#define GB_PUBLISHED_SCHEMA "gpubench.published/1"

/* the bytes of report/published.json, NUL-terminated (generated) */
extern const unsigned char gb_published_json[];
extern const size_t gb_published_json_len;

/* One published figure: the first entry of a model's figure in the file. */
struct gb_published {
	const char *model;      /* catalog key: "h100-sxm" */
	const char *figure;     /* "gemm_bf16_tflops" */
	double value;           /* the figure, or the middle of low..high */
	double low, high;       /* the published range, NAN when a single value */
	const char *source;     /* who published it and where */
	const char *url;        /* NULL when none */
	const char *conditions; /* how it was measured */
	size_t n_sources;       /* entries for this figure in the file (this is the first) */
};

/* The figures the file may hold, in the order reports show them. */
struct gb_published_kind {
	const char *figure; /* "gemm_bf16_tflops" */
	const char *label;  /* "bf16 GEMM" */
	const char *unit;   /* "TFLOP/s" */
	int precision;      /* enum gb_precision of the spec peak it compares with, -1: none */
	double tolerance;   /* default for `run --expect published`: how far below is still healthy */
};
#define GB_PUBLISHED_N_FIGURES 8
extern const struct gb_published_kind gb_published_figures[GB_PUBLISHED_N_FIGURES];

/* How many figures the file holds for a model (0 for none or NULL). */
size_t gb_published_count(const char *model);

/* The figure of a model, NULL if the file has none (or cannot be read). */
const struct gb_published *gb_published_get(const char *model, const char *figure);

/*
 * The figure a metric of benchmark `bench` compares with, NULL if none:
 * tflops_bf16 of gemm is gemm_bf16_tflops, h2d_ce_pinned_gbps of bandwidth
 * is h2d_gbps. `peer_nvlink` says the metric's GPU pair is joined by NVLink
 * (p2p's one-way copies), `nranks` how many GPUs an NCCL metric spans.
 */
const char *gb_published_figure_of(const char *bench, const char *metric, int peer_nvlink,
				   int nranks);

/*
 * Set metric.published (and its source) on every metric of run that has a
 * figure for its GPU's model; others get NAN. Idempotent: the loader calls it
 * too, so a report read back shows what the writer showed.
 */
void gb_published_annotate(struct gb_run *run);

/*
 * `run --expect published`: a check per metric that has a figure, passed when
 * the value reaches (1 - tolerance) x the figure (the low end of a range),
 * with the kind's own tolerance when `tolerance` is NAN. GPUs of a model with
 * no figure at all get one skipped check saying so: they are judged by the
 * spec sheet only. Call after gb_published_annotate(). Returns the number of
 * checks added.
 */
size_t gb_published_judge(struct gb_run *run, double tolerance);

/* Whether the embedded file parses and has the expected schema (for tests and `theory`). */
int gb_published_ok(void);

#endif
