/* SPDX-License-Identifier: MIT */
/*
 * clock_reasons.c - the names of the bits of NVML's clocks-event mask, as the
 * result model's telemetry records them and every report prints them; see
 * clock_reasons.h. Plain C: the NVML loader (bench/device/) fills the mask,
 * report/ names it.
 */
#include "report/clock_reasons.h"

#include <stdio.h>
#include <string.h>

const struct gb_clock_reason gb_clock_reasons[GB_CLOCK_REASON_COUNT] = {
	{ "gpu_idle", GB_CLK_GPU_IDLE },
	{ "applications_clocks", GB_CLK_APP_SETTING },
	{ "sw_power_cap", GB_CLK_SW_POWER_CAP },
	{ "hw_slowdown", GB_CLK_HW_SLOWDOWN },
	{ "sync_boost", GB_CLK_SYNC_BOOST },
	{ "sw_thermal", GB_CLK_SW_THERMAL },
	{ "hw_thermal", GB_CLK_HW_THERMAL },
	{ "hw_power_brake", GB_CLK_HW_POWER_BRAKE },
	{ "display_clocks", GB_CLK_DISPLAY_SETTING },
	{ "board_limit", GB_CLK_BOARD_LIMIT },
	{ "reliability", GB_CLK_RELIABILITY },
};

/* Append item to a comma-separated list in buf, truncating silently. */
void gb_list_add(char *buf, size_t len, const char *item)
{
	size_t used;

	if (!buf || !len)
		return;
	used = strnlen(buf, len);
	if (used >= len)
		return;
	snprintf(buf + used, len - used, "%s%s", used ? "," : "", item);
}

void gb_nvml_reasons_str(uint64_t reasons, char *buf, size_t len)
{
	char hex[24];

	if (!buf || !len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < GB_CLOCK_REASON_COUNT; i++) {
		if (reasons & gb_clock_reasons[i].bit)
			gb_list_add(buf, len, gb_clock_reasons[i].name);
		reasons &= ~gb_clock_reasons[i].bit;
	}
	/* bits newer than this table stay visible, as one hex mask */
	if (reasons) {
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)reasons);
		gb_list_add(buf, len, hex);
	}
}

