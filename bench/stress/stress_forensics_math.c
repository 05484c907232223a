/* SPDX-License-Identifier: MIT */
/*
 * stress_forensics_math.c - the forensics of `gpubench stress`,
 * CPU-only: which bits flipped, the memtest patterns' names, and a finding
 * (where, when, what the telemetry said) as a line of text and as JSON.
 * See stress_math.h. May use the C library and cJSON; no CUDA.
 */
#include "bench/stress/stress_math.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_util.h"

/* ======================================================================= */
/* forensics                                                               */

size_t gb_stress_flipped_bits(uint64_t x, int *pos, size_t max)
{
	size_t count = 0;

	for (int b = 0; b < 64; b++) {
		if (!(x >> b & 1))
			continue;
		if (pos && count < max)
			pos[count] = b;
		count++;
	}
	return count;
}

const char *gb_stress_bit_field(enum gb_dtype t, int bit)
{
	int width, mant;

	switch (t) {
	case GB_DT_F64:
		width = 64, mant = 52;
		break;
	case GB_DT_F32:
		width = 32, mant = 23;
		break;
	case GB_DT_F16:
		width = 16, mant = 10;
		break;
	case GB_DT_BF16:
		width = 16, mant = 7;
		break;
	default:
		return "bit";
	}
	if (bit < 0 || bit >= width)
		return "none";
	if (bit == width - 1)
		return "sign";
	return bit >= mant ? "exponent" : "mantissa";
}

const char *gb_memtest_pattern_name(int kind, uint32_t param, bool then_complement, char *buf,
				    size_t len)
{
	switch (kind) {
	case GB_MT_WALK1:
	case GB_MT_WALK0:
		/* the bit at word 0; it moves with the address (gb_memtest_word) */
		snprintf(buf, len, "walking %s (bit %u)", kind == GB_MT_WALK1 ? "ones" : "zeros",
			 (unsigned)(param & 31u));
		break;
	case GB_MT_SOLID:
		if (then_complement)
			snprintf(buf, len, "moving inversions 0x%08x then 0x%08x", (unsigned)param,
				 (unsigned)~param);
		else
			snprintf(buf, len, "moving inversions 0x%08x", (unsigned)param);
		break;
	default:
		snprintf(buf, len, "random");
		break;
	}
	return buf;
}

void gb_stress_forensic_init(struct gb_stress_forensic *f)
{
	memset(f, 0, sizeof(*f));
	f->device = -1;
	f->t_s = NAN;
	f->layer = "unknown";
	f->slot = f->row = f->col = f->offset = -1;
	f->type = GB_DT_F32;
	f->expected = f->got = NAN;
	f->sum_observed = f->sum_expected = f->sum_bound = NAN;
}

/* "0x41f00000 (30)" */
static void format_value(char *buf, size_t len, enum gb_dtype t, bool have_bits, uint64_t bits,
			 double v)
{
	if (!have_bits)
		snprintf(buf, len, "%.9g", v);
	else if (t == GB_DT_F64)
		snprintf(buf, len, "0x%016llx (%.17g)", (unsigned long long)bits, v);
	else if (t == GB_DT_F32)
		snprintf(buf, len, "0x%08llx (%.9g)", (unsigned long long)bits, v);
	else
		snprintf(buf, len, "0x%08llx", (unsigned long long)bits);
}

/* "bits 27 (exponent), 3 (mantissa)" */
static void format_flips(char *buf, size_t len, enum gb_dtype t, uint64_t x)
{
	int pos[64];
	size_t n = gb_stress_flipped_bits(x, pos, 64), used = 0;

	buf[0] = '\0';
	if (!n) {
		snprintf(buf, len, "no bit differs");
		return;
	}
	used += (size_t)snprintf(buf, len, "flipped bit%s", n > 1 ? "s" : "");
	/* highest first: the most consequential flip leads */
	for (size_t i = n; i-- > 0 && used < len;) {
		int w = snprintf(buf + used, len - used, "%s %d (%s)", i + 1 == n ? "" : ",",
				 pos[i], gb_stress_bit_field(t, pos[i]));

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* "71 C, 650 W, 1755 MHz, sw_power_cap" */
static void format_tel(char *buf, size_t len, const struct gb_telemetry_sample *s)
{
	char part[4][160], reasons[160];
	size_t n = 0, used = 0;

	if (isfinite(s->temp_c))
		snprintf(part[n++], sizeof(part[0]), "%.0f C", s->temp_c);
	if (isfinite(s->power_w))
		snprintf(part[n++], sizeof(part[0]), "%.0f W", s->power_w);
	if (isfinite(s->sm_mhz))
		snprintf(part[n++], sizeof(part[0]), "%.0f MHz", s->sm_mhz);
	if (s->have_reasons) {
		gb_nvml_reasons_str(s->clock_event_reasons, reasons, sizeof(reasons));
		snprintf(part[n++], sizeof(part[0]), "%s", reasons[0] ? reasons : "no clock events");
	}
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", part[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* "offset 0x1000 (address 0x7f2a00001000), walking ones (bit 3), pass 2" */
static void format_memtest_where(char *buf, size_t len, const struct gb_stress_forensic *f)
{
	size_t used = (size_t)snprintf(buf, len, "offset 0x%llx", (unsigned long long)f->offset);

	if (f->address && used < len)
		used += (size_t)snprintf(buf + used, len - used, " (address 0x%llx)",
					 (unsigned long long)f->address);
	if (f->pattern[0] && used < len)
		used += (size_t)snprintf(buf + used, len - used, ", %s", f->pattern);
	if (f->pass && used < len)
		snprintf(buf + used, len - used, ", pass %llu", (unsigned long long)f->pass);
}

static void format_where(char *buf, size_t len, const struct gb_stress_forensic *f)
{
	if (f->offset >= 0)
		format_memtest_where(buf, len, f);
	else if (f->row >= 0 && f->col >= 0)
		snprintf(buf, len, "batch %llu slot %lld (row %lld, col %lld)",
			 (unsigned long long)f->batch, (long long)f->slot, (long long)f->row,
			 (long long)f->col);
	else if (f->col >= 0)
		snprintf(buf, len, "batch %llu slot %lld column %lld checksum",
			 (unsigned long long)f->batch, (long long)f->slot, (long long)f->col);
	else if (f->row >= 0)
		snprintf(buf, len, "batch %llu slot %lld row %lld checksum",
			 (unsigned long long)f->batch, (long long)f->slot, (long long)f->row);
	else
		snprintf(buf, len, "batch %llu slot %lld", (unsigned long long)f->batch,
			 (long long)f->slot);
}

void gb_stress_forensic_format(const struct gb_stress_forensic *f, char *buf, size_t len)
{
	char where[192], exp[64], got[64], flips[256], tel[224] = "", what[200];

	if (!buf || !len)
		return;
	format_where(where, sizeof(where), f);
	if (f->have_bits || isfinite(f->expected) || isfinite(f->got)) {
		format_value(exp, sizeof(exp), f->type, f->have_bits, f->expected_bits, f->expected);
		format_value(got, sizeof(got), f->type, f->have_bits, f->got_bits, f->got);
		if (f->have_bits)
			format_flips(flips, sizeof(flips), f->type, f->expected_bits ^ f->got_bits);
		else
			snprintf(flips, sizeof(flips), "bits unknown");
		snprintf(what, sizeof(what), "expected %s got %s, %s", exp, got, flips);
	} else {
		snprintf(what, sizeof(what), "sum %.9g expected %.9g (bound %.3g)", f->sum_observed,
			 f->sum_expected, f->sum_bound);
	}
	if (f->have_tel)
		format_tel(tel, sizeof(tel), &f->tel);
	snprintf(buf, len, "gpu %d at %.1f s, %s%s, %s: %s%s%s", f->device, f->t_s, f->layer,
		 f->injected ? " (injected on purpose)" : "", where, what, tel[0] ? "; " : "", tel);
}

static void add_bits(cJSON *o, const struct gb_stress_forensic *f)
{
	char hex[24];
	int pos[64];
	size_t n;
	cJSON *arr, *fields;
	int digits = f->type == GB_DT_F64 ? 16 : 8;

	if (!f->have_bits) {
		cJSON_AddNullToObject(o, "expected_bits");
		cJSON_AddNullToObject(o, "got_bits");
		cJSON_AddItemToObject(o, "flipped_bits", cJSON_CreateArray());
		return;
	}
	/* bit patterns as hex strings: exact, and readable next to the values */
	snprintf(hex, sizeof(hex), "0x%0*llx", digits, (unsigned long long)f->expected_bits);
	cJSON_AddStringToObject(o, "expected_bits", hex);
	snprintf(hex, sizeof(hex), "0x%0*llx", digits, (unsigned long long)f->got_bits);
	cJSON_AddStringToObject(o, "got_bits", hex);
	n = gb_stress_flipped_bits(f->expected_bits ^ f->got_bits, pos, 64);
	arr = cJSON_AddArrayToObject(o, "flipped_bits");
	fields = cJSON_AddArrayToObject(o, "flipped_fields");
	for (size_t i = n; i-- > 0;) {
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(pos[i]));
		cJSON_AddItemToArray(fields,
				     cJSON_CreateString(gb_stress_bit_field(f->type, pos[i])));
	}
}

static cJSON *tel_json(const struct gb_telemetry_sample *s)
{
	cJSON *t = cJSON_CreateObject();
	char reasons[160];

	gb_json_add_num(t, "t_s", s->t_s);
	gb_json_add_num(t, "temp_c", s->temp_c);
	gb_json_add_num(t, "power_w", s->power_w);
	gb_json_add_num(t, "sm_mhz", s->sm_mhz);
	gb_json_add_num(t, "mem_mhz", s->mem_mhz);
	gb_json_add_num(t, "util_pct", s->util_pct);
	if (s->have_reasons) {
		gb_nvml_reasons_str(s->clock_event_reasons, reasons, sizeof(reasons));
		cJSON_AddStringToObject(t, "clock_event_reasons", reasons);
	} else {
		cJSON_AddNullToObject(t, "clock_event_reasons");
	}
	return t;
}

struct cJSON *gb_stress_forensic_json(const struct gb_stress_forensic *f)
{
	cJSON *o = cJSON_CreateObject();
	char line[512];

	cJSON_AddNumberToObject(o, "device", f->device);
	gb_json_add_num(o, "t_s", f->t_s);
	cJSON_AddStringToObject(o, "layer", f->layer);
	cJSON_AddBoolToObject(o, "injected", f->injected);
	cJSON_AddNumberToObject(o, "batch", (double)f->batch);
	gb_json_add_int(o, "slot", f->slot);
	gb_json_add_int(o, "row", f->row);
	gb_json_add_int(o, "col", f->col);
	gb_json_add_int(o, "offset", f->offset);
	if (f->address) {
		char hex[24];

		/* an address, like a bit pattern, is an identifier: exact as hex */
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)f->address);
		cJSON_AddStringToObject(o, "address", hex);
	} else {
		cJSON_AddNullToObject(o, "address");
	}
	if (f->pattern[0])
		cJSON_AddStringToObject(o, "pattern", f->pattern);
	else
		cJSON_AddNullToObject(o, "pattern");
	gb_json_add_int(o, "pass", f->pass ? (int64_t)f->pass : -1);
	cJSON_AddStringToObject(o, "type", gb_dtype_name(f->type));
	gb_json_add_num(o, "expected", f->expected);
	gb_json_add_num(o, "got", f->got);
	add_bits(o, f);
	gb_json_add_num(o, "sum_observed", f->sum_observed);
	gb_json_add_num(o, "sum_expected", f->sum_expected);
	gb_json_add_num(o, "sum_bound", f->sum_bound);
	if (f->have_tel)
		cJSON_AddItemToObject(o, "telemetry", tel_json(&f->tel));
	else
		cJSON_AddNullToObject(o, "telemetry");
	gb_stress_forensic_format(f, line, sizeof(line));
	cJSON_AddStringToObject(o, "message", line);
	return o;
}
