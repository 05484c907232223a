/* SPDX-License-Identifier: MIT */
/*
 * cli_values.c - option values formatted back in the units the user types
 * (the bounds in an error or in --help). Parsing them is report/units.c's,
 * below every layer, since thresholds files and compare read the same syntax.
 * May use: cmd/cli.h, cmd/cli_internal.h, report/units.h, the C library.
 */
#include "cmd/cli.h"
#include "cmd/cli_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------ */
/* value formatting                                                         */

/* "500ms", "30s", "10m", "1.5h" (seconds in, shortest exact unit out) */
static void format_duration(char *buf, size_t len, double s)
{
	if (s > 0 && s < 1)
		snprintf(buf, len, "%gms", s * 1000.0);
	else if (s >= 3600 && fmod(s, 3600) == 0)
		snprintf(buf, len, "%gh", s / 3600);
	else if (s >= 60 && fmod(s, 60) == 0)
		snprintf(buf, len, "%gm", s / 60);
	else
		snprintf(buf, len, "%gs", s);
}

/* a bound or value of an option, in the units the user types */
void format_value(char *buf, size_t len, enum gb_opt_type type, double v)
{
	switch (type) {
	case GB_OPT_SIZE:
		gb_format_bytes(buf, len, v);
		break;
	case GB_OPT_DURATION:
		format_duration(buf, len, v);
		break;
	case GB_OPT_PERCENT:
		snprintf(buf, len, "%g%%", v * 100.0);
		break;
	case GB_OPT_COUNT:
	case GB_OPT_INT_LIST:
		if (fabs(v) < 1e15)
			snprintf(buf, len, "%.0f", v);
		else
			snprintf(buf, len, "%g", v);
		break;
	default:
		snprintf(buf, len, "%g", v);
		break;
	}
}
