/* SPDX-License-Identifier: MIT */
/*
 * text.h - the readable summary printed to stdout after a run.
 */
#ifndef GPUBENCH_REPORT_TEXT_H
#define GPUBENCH_REPORT_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "result.h"

struct gb_text_opts {
	bool color;          /* ANSI colours for statuses (off for NO_COLOR, --no-color, pipes) */
	bool device_detail;  /* the full per-GPU sheet (gpubench info), else one line per GPU */
};

/* Print the run: devices, each benchmark's metrics and checks, the verdict. */
void gb_text_print(const struct gb_run *run, FILE *out, const struct gb_text_opts *opts);

#endif
