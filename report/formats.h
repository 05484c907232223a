/* SPDX-License-Identifier: MIT */
/*
 * formats.h - every output format of a report, in one list: text (text.c),
 * json (json.c), markdown, csv, junit, prometheus and html (one file each,
 * declared in writers.h), and the dispatch to them (formats.c). The helpers
 * the writers share are in format_util.h, below the writers.
 *
 * Each writer takes a finished run (verdict computed) and a stream, writes
 * the whole document and returns 0, or -1 when the stream reported an error.
 * None of them prints anywhere else or exits: cmd/ picks the stream.
 */
#ifndef GPUBENCH_REPORT_FORMATS_H
#define GPUBENCH_REPORT_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "result.h"
#include "report/format_util.h"
#include "report/out_format.h"
#include "report/outfile.h"
#include "report/writers.h"

/* NULL-terminated, indexed by enum gb_out_format */
extern const char *const gb_out_format_names[];
/* -1 if unknown */
int gb_out_format_from_name(const char *name);
/*
 * The format a file name asks for by its extension (".html", ".htm", ".md",
 * ".markdown", ".csv", ".xml", ".prom", ".json", ".txt"); -1 when it says nothing.
 */
int gb_out_format_from_path(const char *path);
/*
 * The format of what -o names, the same in every command: standard output
 * ("-") gets JSON, a file the format of its extension, else JSON.
 */
enum gb_out_format gb_out_format_for_output(const char *path);

/*
 * Write run to what -o names (path) in gb_out_format_for_output's format,
 * never destroying it (gb_fmt_write_file). 0, or -1 with one line in err.
 */
int gb_report_write_output(const struct gb_run *run, const char *path, char *err,
			   size_t errlen);

/* Write run in format f to out. 0, or -1 on a stream error or unknown format. */
int gb_report_format(const struct gb_run *run, enum gb_out_format f, FILE *out);

#endif
