/* SPDX-License-Identifier: MIT */
/*
 * json.h - the report as JSON (schema "gpubench.report/1"): writing it
 * atomically, and loading it back for compare/report.
 *
 * Numbers are numbers and unknown values are null, never strings. The
 * layout is documented in docs/report-format.md and pinned by
 * docs/report.schema.json.
 */
#ifndef GPUBENCH_REPORT_JSON_H
#define GPUBENCH_REPORT_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "result.h"

struct cJSON;

/* Build the JSON document of a run (caller frees with cJSON_Delete). */
struct cJSON *gb_report_to_json(const struct gb_run *run);

/* Print the document (pretty, with a trailing newline) to a stream; 0 or -1. */
int gb_report_print(const struct gb_run *run, FILE *out);

/*
 * Write the report to what path names, never destroying it (outfile.h): a
 * regular file or new path atomically (a temporary file in the same folder,
 * fsync, then rename), so a reader never sees half a report and a failed
 * write never clobbers an existing one; a symbolic link's target the same
 * way, the link kept; a character device, a FIFO or /dev/stdout written in
 * place. "-" is standard output. Returns 0, or -1 with one line in err.
 */
int gb_report_write_file(const struct gb_run *run, const char *path, char *err, size_t errlen);

/*
 * Check up front that path can be written, so a long run does not discover
 * at the end that its report is lost: not empty, not a directory (nor a
 * block device or socket); a file's folder exists and a probe file can be
 * created there (a link's target folder); a device or FIFO is writable (not
 * opened: a FIFO's reader would see the close as the end); /dev/stdout and
 * friends are open for writing. 0 or -1 with one line in err.
 */
int gb_report_check_writable(const char *path, char *err, size_t errlen);

/*
 * Load a report written by gb_report_write_file (or any producer of the
 * schema). run is initialised here; release it with gb_run_release. Returns
 * 0, or -1 with one line in err: not JSON, not a gpubench report, a newer
 * schema than this build understands, or a malformed field (named).
 */
int gb_report_load_file(const char *path, struct gb_run *run, char *err, size_t errlen);
int gb_report_from_json(const struct cJSON *doc, struct gb_run *run, char *err, size_t errlen);

#endif
