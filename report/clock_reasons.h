/* SPDX-License-Identifier: MIT */
/*
 * clock_reasons.h - NVML's clocks-event reasons (why the GPU's clocks are
 * below their maximum) in the result model: the bits of the mask and their
 * names. In report/ because the report writers name them and report/ uses
 * nothing above it; the NVML loader reads the mask.
 */
#ifndef GPUBENCH_REPORT_CLOCK_REASONS_H
#define GPUBENCH_REPORT_CLOCK_REASONS_H

#include <stddef.h>
#include <stdint.h>

/* Names of the set bits of an NVML clocks-event bitmask, e.g. "sw_power_cap",
 * "hw_slowdown", written comma separated into buf ("" for none); bits it
 * does not know come last as one hex mask ("0x800"). */
void gb_nvml_reasons_str(uint64_t reasons, char *buf, size_t len);

/* Bits of the clocks-event mask, as in nvml.h (kept here so CPU-only code
 * need not include it). */
#define GB_CLK_GPU_IDLE          0x1ULL
#define GB_CLK_APP_SETTING       0x2ULL
#define GB_CLK_SW_POWER_CAP      0x4ULL
#define GB_CLK_HW_SLOWDOWN       0x8ULL
#define GB_CLK_SYNC_BOOST        0x10ULL
#define GB_CLK_SW_THERMAL        0x20ULL
#define GB_CLK_HW_THERMAL        0x40ULL
#define GB_CLK_HW_POWER_BRAKE    0x80ULL
#define GB_CLK_DISPLAY_SETTING   0x100ULL
#define GB_CLK_BOARD_LIMIT       0x200ULL
#define GB_CLK_RELIABILITY       0x400ULL

/* Every reason this build knows, by name, in bit order: the names the reports
 * print and a thresholds file's "throttle_mask" list may use. */
#define GB_CLOCK_REASON_COUNT 11
struct gb_clock_reason {
	const char *name;
	uint64_t bit;
};
extern const struct gb_clock_reason gb_clock_reasons[GB_CLOCK_REASON_COUNT];

/* Append item to a comma-separated list in buf, truncating silently. */
void gb_list_add(char *buf, size_t len, const char *item);

#endif
