/* SPDX-License-Identifier: MIT */
/*
 * stress_thresholds.h - the limits of `gpubench stress`'s verdict: their
 * defaults (where each comes from: docs/stress.md) and the JSON object that
 * overrides them, from --thresholds files or run's thresholds file. In
 * report/ with the other thresholds, since report/thresholds_file.c reads
 * them and report/ uses nothing above it; bench/stress/ judges with them.
 * CPU only.
 */
#ifndef GPUBENCH_REPORT_STRESS_THRESHOLDS_H
#define GPUBENCH_REPORT_STRESS_THRESHOLDS_H

#include <stddef.h>
#include <stdint.h>

#include "report/clock_reasons.h"

/* safety factor of the probabilistic bound; see stress_math.c */
#define GB_STRESS_ABFT_TAU 64.0

/* the clock events DCGM fails on (DcgmRecorder.cpp); sw power cap is normal under load */
#define GB_STRESS_THROTTLE_DEFAULT \
	(GB_CLK_HW_SLOWDOWN | GB_CLK_SW_THERMAL | GB_CLK_HW_THERMAL | GB_CLK_HW_POWER_BRAKE)

struct gb_stress_thresholds {
	double temp_limit_c;          /* fail above (85) */
	double throttle_share_max;    /* fail when hw-slowdown/thermal/power-brake share exceeds (0.01) */
	uint64_t throttle_min_samples; /* ... and at least this many samples showed it (2) */
	uint64_t throttle_mask;       /* the reasons that count (DCGM's four) */
	double power_cap_share_warn;  /* warn when sw power cap share exceeds (0.01) */
	double tflops_drop_max;       /* fail when throughput falls more than this below settled (0.10) */
	double peer_slow_max;         /* fail when this much slower than the best of the model (0.10) */
	int64_t ecc_dbe_max;          /* fail above (0) */
	int64_t ecc_sbe_warn;         /* warn above (0) */
	int64_t pcie_replay_warn;     /* warn above (80, DCGM max_pcie_replays) */
	int64_t nvlink_crc_warn;      /* warn above (100, DCGM nvlink_crc_error_threshold) */
	int64_t nvlink_recovery_warn; /* warn above (0, DCGM max_nvlink_recovery_errors) */
	double abft_tau;              /* the ABFT bound's safety factor (GB_STRESS_ABFT_TAU) */
};

void gb_stress_thresholds_default(struct gb_stress_thresholds *th);

/*
 * Override defaults from a JSON object: {"temp_limit_c": 83, ...} with the
 * field names above ("throttle_mask" also accepts a list of reason names:
 * ["hw_slowdown", "sw_thermal"]). An unknown key or a wrong type is an error.
 * Returns 0, or -1 with a reason in err.
 */
int gb_stress_thresholds_parse(const char *json, struct gb_stress_thresholds *th, char *err,
			       size_t len);

#endif
