/* SPDX-License-Identifier: MIT */
/*
 * format_util.h - the escaping and number helpers every writer shares
 * (format_util.c). Below the writers and the dispatcher: it includes only
 * result.h.
 */
#ifndef GPUBENCH_REPORT_FORMAT_UTIL_H
#define GPUBENCH_REPORT_FORMAT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/result.h"

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

#endif
