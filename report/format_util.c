/* SPDX-License-Identifier: MIT */
/*
 * format_util.c - the escaping and number helpers every output writer
 * shares, so that "what is safe inside XML" or "how a number is shown" is
 * decided once. It dispatches to nobody: the writers (csv.c, html.c,
 * junit.c, markdown.c, prometheus.c, text.c), compare, fleet and thresholds
 * call down into it; it may use only result.h and the C library.
 */
#include "report/format_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- escaping ---- */

/*
 * Length of the valid UTF-8 sequence at s (1..4), or 0 when it is not one:
 * overlong forms, surrogates and code points above U+10FFFF are rejected,
 * as a strict XML parser would.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	unsigned lo = 0x80, hi = 0xBF;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	/* the second byte's range is what rules out overlongs and surrogates */
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	/* U+FFFE and U+FFFF are not XML characters */
	if (n == 3 && c == 0xEF && s[1] == 0xBF && s[2] >= 0xBE)
		return 0;
	return n;
}

#define REPLACEMENT "\xEF\xBF\xBD"

void gb_fmt_xml(FILE *out, const char *s, int attr)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		size_t n = utf8_len(p);

		if (n == 0) {
			fputs(REPLACEMENT, out);
			p++;
			continue;
		}
		switch (*p) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		case '\n':
			fputs(attr ? "&#10;" : "\n", out);
			break;
		case '\t':
			fputs(attr ? "&#9;" : "\t", out);
			break;
		default:
			if (*p < 0x20 || *p == 0x7F)
				fputs(REPLACEMENT, out);
			else
				fwrite(p, 1, n, out);
		}
		p += n;
	}
}

void gb_fmt_md(FILE *out, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		switch (*p) {
		case '|':
			fputs("\\|", out);
			break;
		case '\n':
		case '\r':
		case '\t':
			fputc(' ', out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		default:
			fputc(*p, out);
		}
	}
}

void gb_fmt_csv(FILE *out, const char *s)
{
	const char *v = s ? s : "";
	size_t len = strlen(v);
	bool quote = strpbrk(v, ",\"\r\n") != NULL ||
		     (len > 0 && (v[0] == ' ' || v[len - 1] == ' '));

	if (!quote) {
		fputs(v, out);
		return;
	}
	fputc('"', out);
	for (const char *p = v; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

/* ---- numbers ---- */

void gb_fmt_human(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (a == 0)
		snprintf(buf, len, "0");
	else if (a >= 1e6 || a < 1e-3)
		snprintf(buf, len, "%.3e", v);
	else if (a >= 1000 || v == floor(v)) /* whole numbers: "700", not "700.0" */
		snprintf(buf, len, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 10)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

void gb_fmt_exact(char *buf, size_t len, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "%s", "");
		return;
	}
	/* the shortest of these that reads back as the same double */
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, len, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
}

/* ---- devices and links ---- */

void gb_fmt_link(char *buf, size_t len, const struct gb_link *l)
{
	static const struct {
		const char *type, *abbrev;
	} names[] = {
		{ "pcie_switch", "PIX" },     { "pcie_host_bridge", "PHB" },
		{ "cross_socket", "SYS" },    { "same_board", "BRD" },
	};
	const char *type = l ? l->type : NULL;

	if (type && !strcmp(type, "nvlink")) {
		if (l->nvlink_count > 0)
			snprintf(buf, len, "NV%d", l->nvlink_count);
		else
			snprintf(buf, len, "NV");
		return;
	}
	for (size_t i = 0; type && i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(type, names[i].type)) {
			snprintf(buf, len, "%s", names[i].abbrev);
			return;
		}
	}
	snprintf(buf, len, "?");
}

const char gb_fmt_link_legend[] =
	"NV<n> NVLink (n links), PIX same PCIe switch, PHB across a PCIe host bridge, "
	"SYS across sockets, BRD same board, ? unknown; yes/no: P2P access";

void gb_fmt_pcie(char *buf, size_t len, int gen, int width)
{
	char g[16] = "-", w[16] = "-";

	if (gen <= 0 && width <= 0) {
		snprintf(buf, len, "-");
		return;
	}
	if (gen > 0)
		snprintf(g, sizeof(g), "%d", gen);
	if (width > 0)
		snprintf(w, sizeof(w), "%d", width);
	snprintf(buf, len, "gen %s x%s", g, w);
}

/* ---- lookups ---- */

/* device < 0 is a metric of no device: never a record, whatever a loaded report holds */
const struct gb_device_info *gb_fmt_device(const struct gb_run *run, int device)
{
	return device < 0 ? NULL : gb_run_find_device(run, device);
}

int gb_fmt_device_pos(const struct gb_run *run, int device)
{
	const struct gb_device_info *d = gb_fmt_device(run, device);

	return d ? (int)(d - run->devices) : -1;
}

const char *gb_fmt_device_name(const struct gb_run *run, int device)
{
	const struct gb_device_info *d = gb_fmt_device(run, device);

	return d ? d->name : NULL;
}

void gb_fmt_simulated(char *buf, size_t len, const struct gb_run *run)
{
	const char *m = run->host.simulated_machine;

	buf[0] = '\0';
	if (run->host.simulated)
		snprintf(buf, len, "simulated GPU (%s): these numbers are not measurements",
			 m && *m ? m : "unknown machine");
}

const char *gb_fmt_bool(bool v)
{
	return v ? "true" : "false";
}

void gb_fmt_cuda_version(char *buf, size_t len, int v)
{
	if (v > 0)
		snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
	else
		snprintf(buf, len, "-");
}

void gb_fmt_lib_version(char *buf, size_t len, int v)
{
	if (v >= 0)
		snprintf(buf, len, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
	else
		snprintf(buf, len, "-");
}

int gb_fmt_finish(FILE *out)
{
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}
