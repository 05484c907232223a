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
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
		{ GB_CLK_GPU_IDLE, "gpu_idle" },
		{ GB_CLK_APP_SETTING, "applications_clocks" },
		{ GB_CLK_SW_POWER_CAP, "sw_power_cap" },
		{ GB_CLK_HW_SLOWDOWN, "hw_slowdown" },
		{ GB_CLK_SYNC_BOOST, "sync_boost" },
		{ GB_CLK_SW_THERMAL, "sw_thermal" },
		{ GB_CLK_HW_THERMAL, "hw_thermal" },
		{ GB_CLK_HW_POWER_BRAKE, "hw_power_brake" },
		{ GB_CLK_DISPLAY_SETTING, "display_clocks" },
		{ GB_CLK_BOARD_LIMIT, "board_limit" },
		{ GB_CLK_RELIABILITY, "reliability" },
	};
	char hex[24];

	if (!buf || !len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (reasons & names[i].bit)
			gb_list_add(buf, len, names[i].name);
		reasons &= ~names[i].bit;
	}
	/* bits newer than this table stay visible, as one hex mask */
	if (reasons) {
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)reasons);
		gb_list_add(buf, len, hex);
	}
}

