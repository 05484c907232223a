/* SPDX-License-Identifier: MIT */
/*
 * software.h - the software two runs measured with, and what of it changed
 * between them (CPU only): the NVIDIA driver, the CUDA driver API and
 * runtime, cuBLASLt and NCCL, from each report's host section.
 *
 * A regression gate's most common question is "did the upgrade slow us
 * down?", so compare matches metrics across these versions (they are not
 * part of a metric's key) and says which of them differ.
 */
#ifndef GPUBENCH_REPORT_SOFTWARE_H
#define GPUBENCH_REPORT_SOFTWARE_H

#include <stdbool.h>
#include <stddef.h>

#include "result.h"

#define GB_SW_COUNT 5 /* driver, CUDA driver, CUDA runtime, cuBLASLt, NCCL */

struct gb_sw_change {
	const char *name;  /* "driver", "CUDA driver", "CUDA runtime", "cuBLASLt", "NCCL" */
	char a[64], b[64]; /* as printed: "580.65.06", "13.0", "13.1.0" */
};

/*
 * The versions known in both a and b that differ, in the order above, into
 * out; returns how many. Unknown on either side (a run that loaded no NCCL,
 * a report without a driver) is no change.
 */
size_t gb_software_changes(const struct gb_host_info *a, const struct gb_host_info *b,
			   struct gb_sw_change out[GB_SW_COUNT]);

/* "driver 580.65.06 -> 590.44.01, cuBLASLt 13.1.0 -> 13.2.0" into buf; false ("") for none */
bool gb_software_changes_line(char *buf, size_t len, const struct gb_sw_change *c, size_t n);

#endif
