/* SPDX-License-Identifier: MIT */
/*
 * units_math.c - sizes in the units people read (see units.h). Moved from
 * cmd/cli.c so benchmarks can print sizes without the command layer.
 * May use: the C library only.
 */
#include "bench/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void trim_zeros(char *num)
{
	char *end;

	if (!strchr(num, '.'))
		return;
	end = num + strlen(num);
	while (end > num && end[-1] == '0')
		*--end = '\0';
	if (end > num && end[-1] == '.')
		end[-1] = '\0';
}

void gb_format_bytes(char *buf, size_t len, double bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	const size_t n_units = sizeof(units) / sizeof(units[0]);
	const char *sign = "";
	char num[48];
	double v = bytes;
	size_t u = 0;

	if (!buf || !len)
		return;
	if (!isfinite(bytes)) {
		snprintf(buf, len, "%g B", bytes);
		return;
	}
	if (v < 0) {
		sign = "-";
		v = -v;
	}
	for (;;) {
		int decimals = u == 0 || v >= 100 ? 0 : v >= 10 ? 1 : 2;
		double scale = pow(10.0, decimals);
		double r = round(v * scale) / scale;

		if (r < 1024 || u + 1 == n_units) {
			snprintf(num, sizeof(num), "%.*f", decimals, r);
			break;
		}
		v /= 1024;
		u++;
	}
	trim_zeros(num);
	snprintf(buf, len, "%s%s %s", sign, num, units[u]);
}
