/* SPDX-License-Identifier: MIT */
/*
 * formats.h - every output format of a report, in one list: text (text.c),
 * json (json.c), markdown, csv, junit, prometheus and html (one file each),
 * plus the escaping and number helpers they share (formats.c).
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

/*
 * The names of --format, in the order of enum gb_out_format. A macro so the
 * option tables in cmd/ and the list here are the same text.
 */
#define GB_OUT_FORMAT_NAMES "text", "json", "markdown", "csv", "junit", "prometheus", "html"

enum gb_out_format {
	GB_OUT_TEXT = 0,   /* the terminal summary (text.c) */
	GB_OUT_JSON,       /* the report itself (json.c) */
	GB_OUT_MARKDOWN,   /* for $GITHUB_STEP_SUMMARY and merge requests */
	GB_OUT_CSV,        /* one row per metric, RFC 4180 */
	GB_OUT_JUNIT,      /* JUnit XML: one testsuite per benchmark, one testcase per check */
	GB_OUT_PROMETHEUS, /* text exposition format for node_exporter's textfile collector */
	GB_OUT_HTML,       /* one self-contained page with inline SVG charts */
	GB_OUT_COUNT
};

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

int gb_report_markdown(const struct gb_run *run, FILE *out);
int gb_report_csv(const struct gb_run *run, FILE *out);
int gb_report_junit(const struct gb_run *run, FILE *out);
int gb_report_prometheus(const struct gb_run *run, FILE *out);
int gb_report_html(const struct gb_run *run, FILE *out);

/* ---- helpers shared by the writers ---- */

/*
 * XML and HTML text: & < > " ' escaped; bytes that are not valid UTF-8 and
 * control characters XML 1.0 forbids become U+FFFD, so a name from a hand-
 * edited report cannot make the document unparsable. In an attribute
 * (attr true) newlines and tabs are written as character references so a
 * parser keeps them.
 */
void gb_fmt_xml(FILE *out, const char *s, int attr);

/* A Markdown table cell: '|' escaped, newlines as spaces, '<' and '&' as entities. */
void gb_fmt_md(FILE *out, const char *s);

/* A CSV field (RFC 4180): quoted, with quotes doubled, when it needs to be. */
void gb_fmt_csv(FILE *out, const char *s);

/*
 * A number for people: 4 significant digits without exponent for the
 * usual range ("742.5", "3352", "0.0123"), "%.3e" outside it, "-" for NAN.
 */
void gb_fmt_human(char *buf, size_t len, double v);

/* A number for machines: shortest "%.17g"-exact form, "" for NAN. */
void gb_fmt_exact(char *buf, size_t len, double v);

/*
 * A link as nvidia-smi topo -m writes it: "NV18" (NVLink, with its link
 * count when known), "PIX" (same PCIe switch), "PHB" (across a host bridge),
 * "SYS" (across sockets), "BRD" (same board), "?" unknown.
 */
void gb_fmt_link(char *buf, size_t len, const struct gb_link *l);
/* The legend of gb_fmt_link's abbreviations, one line. */
extern const char gb_fmt_link_legend[];

/* "gen 4 x16"; "-" for an unknown part ("gen 4 x-"), "-" when both are unknown */
void gb_fmt_pcie(char *buf, size_t len, int gen, int width);

/* Position in run->devices of CUDA index device, -1 when the report does not describe it. */
int gb_fmt_device_pos(const struct gb_run *run, int device);
/* devices[].name of CUDA index device in run, or NULL (unknown, or device < 0). */
const char *gb_fmt_device_name(const struct gb_run *run, int device);
const struct gb_device_info *gb_fmt_device(const struct gb_run *run, int device);

/*
 * The line every summary of a simulated report starts with (host.simulated):
 * "simulated GPU (<machine>): these numbers are not measurements". "" when
 * the report is measured.
 */
void gb_fmt_simulated(char *buf, size_t len, const struct gb_run *run);
/*
 * "true" or "false": host.simulated as the machine formats mark every row,
 * test suite and sample (CSV column, JUnit property, Prometheus label)
 */
const char *gb_fmt_bool(bool v);

/* "13.0" from a CUDA version (1000 * major + 10 * minor); "-" for none (0) or unknown (-1) */
void gb_fmt_cuda_version(char *buf, size_t len, int v);
/*
 * "13.1.0" from a library version (10000 * major + 100 * minor + patch, as
 * cuBLASLt and NCCL encode theirs); "-" when unknown (< 0)
 */
void gb_fmt_lib_version(char *buf, size_t len, int v);

/* 0 if out has seen no error, after flushing it; else -1. */
int gb_fmt_finish(FILE *out);

/*
 * Write a document to what path names without destroying it (outfile.c,
 * outfile.h): a regular file or a new path atomically (a temporary file in
 * the same folder, then rename), a symbolic link's target atomically with
 * the link kept, a character device, a FIFO or /dev/stdout in place.
 * writer(ctx, stream) produces it. "-" is standard output. 0, or -1 with
 * one line in err.
 */
typedef int gb_fmt_writer(const void *ctx, FILE *out);
int gb_fmt_write_file(const char *path, gb_fmt_writer *writer, const void *ctx, char *err,
		      size_t errlen);

#endif
