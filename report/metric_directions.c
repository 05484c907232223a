/* SPDX-License-Identifier: MIT */
/*
 * metric_directions.c - the direction of every metric (see the header).
 * Rows are tried in order and the first whose benchmark matches and whose
 * glob matches the metric's name wins, so a specific pattern comes before
 * the general one it would otherwise fall under ("tflops_*_settled" before
 * "tflops*"). docs/report-format.md repeats these rows in this order.
 */
#include "metric_directions.h"

#include <fnmatch.h>
#include <string.h>

#define H GB_BETTER_HIGHER
#define L GB_BETTER_LOWER
#define O GB_BETTER_NONE /* an observation: listed, never gated, never missing */

static const struct gb_metric_direction rows[] = {
	/* gemm: rates and their shares of a fixed peak are gated; telemetry is observed */
	{ "gemm", "pct_of_observed_clock_peak_*", O, false,
	  "over the clock telemetry saw, which a short job may not sample" },
	{ "gemm", "sm_mhz_mean_*", O, false, "telemetry: the clock the job ran at" },
	{ "gemm", "power_w_mean_*", O, false, "telemetry: the power the job drew" },
	{ "gemm", "temp_c_max_*", O, false, "telemetry: the hottest reading during the job" },
	{ "gemm", "pct_of_cublas_*", H, false, "own kernel's rate over cuBLASLt's, same run" },
	{ "gemm", "pct_of_max_clock_peak_*", H, false, "rate over the max-clock peak" },
	{ "gemm", "run_cv_*", L, false, "spread of the --repeat runs' medians" },
	{ "gemm", "run_median_tflops_*", H, true, "rate, median of each --repeat run" },
	{ "gemm", "search_*_tflops_*", H, true, "rate over --search's shapes" },
	{ "gemm", "tflops_*", H, true, "rate: TFLOP/s (TOP/s for int8)" },

	/* bandwidth: the curves are gated; the fits need enough usable sizes */
	{ "bandwidth", "*_alpha_us", O, false, "latency of the fit, when one could be made" },
	{ "bandwidth", "*_beta_gbps", O, false, "bandwidth of the fit, when usable" },
	{ "bandwidth", "*_n_half_bytes", O, false, "half-bandwidth size of the fit" },
	{ "bandwidth", "*_fit_r2", O, false, "quality of the fit" },
	{ "bandwidth", "pcie_gen_under_load", H, false, "PCIe generation read under load" },
	{ "bandwidth", "pcie_width_under_load", H, false, "PCIe lanes read under load" },
	{ "bandwidth", "*_gbps", H, true, "copy or STREAM rate" },

	/* p2p: every cell of the matrices */
	{ "p2p", "*_us", L, false, "latency between two GPUs (or on one)" },
	{ "p2p", "*_gbps", H, true, "copy rate between two GPUs (or on one)" },

	/* nccl: per collective; the fit needs a usable sweep */
	{ "nccl", "*_alpha_us", O, false, "latency of the fit, when one could be made" },
	{ "nccl", "*_beta_gbps", O, false, "bandwidth of the fit, when one could be made" },
	{ "nccl", "*_beta_busbw_gbps", O, false, "bus bandwidth of the fit" },
	{ "nccl", "*_latency_smallest_us", L, false, "time of one operation at the smallest size" },
	{ "nccl", "*bw_*_gbps", H, true, "bus or algorithm bandwidth" },

	/* stress: throughput and errors are gated; telemetry and judged windows observed */
	{ "stress", "*_settled", O, false,
	  "median of a window that may hold too few intervals; stress's drop rule judges it" },
	{ "stress", "tflops*_min", H, true, "slowest interval" },
	{ "stress", "mem_gbps*_min", H, true, "slowest interval" },
	{ "stress", "tflops*", H, true, "rate over the run's intervals" },
	{ "stress", "mem_gbps*", H, true, "memtest rate over the run's intervals" },
	{ "stress", "gemms", H, false, "GEMMs run and verified in the run's time" },
	{ "stress", "temp_c_max", O, false, "telemetry: the hottest reading" },
	{ "stress", "power_w_*", O, false, "telemetry: power drawn" },
	{ "stress", "sm_mhz_mean", O, false, "telemetry: the clock the load ran at" },
	{ "stress", "*_share", O, false, "telemetry: share of the load throttled or capped" },
	{ "stress", "abft_max_ratio", O, false,
	  "rounding of the largest checksum; above 1 is a mismatch, which stress judges" },
	{ "stress", "*_mismatches", L, false, "results that differ from the expected" },
	{ "stress", "nan_count", L, false, "NaN or infinite elements" },
	{ "stress", "mem_errors", L, false, "memory words read back wrong" },
	{ "stress", "*_delta", L, false, "ECC, PCIe replay, NVLink CRC errors during the run" },
	{ "stress", "xid_count", L, false, "XID events during the run" },

	/* scaling: measured steps and speedups gated; the model's inputs and outputs observed */
	{ "scaling", "predicted_*", O, false, "the model's prediction, not a measurement" },
	{ "scaling", "allreduce_*", O, false, "the link the prediction priced" },
	{ "scaling", "worker_compute_ms_n*", L, false, "a worker's compute per step, on its GPU" },
	{ "scaling", "step_ms_n*", L, false, "the slowest worker's step" },
	{ "scaling", "throughput_tflops_n*", H, true, "the workers' work per time" },
	{ "scaling", "speedup_n*", H, false, "over one GPU" },
	{ "scaling", "efficiency_n*", H, false, "speedup over the GPUs" },

	/* theory (gpubench theory -o): the model's figures */
	{ "theory*", "peak_tflops_*", H, true, "spec sheet or tables" },
	{ "theory*", "published_*", H, true, "what healthy GPUs reach, published" },
	{ "theory*", "mem_bw_gbps", H, true, "memory bandwidth" },
	{ "theory*", "busbw_gbps", H, true, "the link's bus bandwidth" },
	{ "theory*", "predicted_speedup_*", H, false, "the model's speedup" },
	{ "theory*", "*_ms", L, false, "the model's times" },
	{ "theory*", "cost_per_tflops_hour", L, false, "$ per delivered TFLOPS-hour" },
};

const struct gb_metric_direction *gb_metric_directions(size_t *n)
{
	*n = sizeof(rows) / sizeof(rows[0]);
	return rows;
}

const struct gb_metric_direction *gb_metric_direction_find(const char *bench, const char *metric)
{
	if (!bench || !metric)
		return NULL;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!fnmatch(rows[i].bench, bench, 0) && !fnmatch(rows[i].pattern, metric, 0))
			return &rows[i];
	return NULL;
}

enum gb_better gb_metric_better(const char *bench, const char *metric, enum gb_better fallback)
{
	const struct gb_metric_direction *d = gb_metric_direction_find(bench, metric);

	return d ? d->better : fallback;
}

bool gb_metric_is_throughput(const char *bench, const char *metric, const char *unit,
			     enum gb_better better)
{
	const struct gb_metric_direction *d = gb_metric_direction_find(bench, metric);

	if (d)
		return d->throughput;
	return better == GB_BETTER_HIGHER && unit && strstr(unit, "/s") != NULL;
}
