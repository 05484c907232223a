/* SPDX-License-Identifier: MIT */
/*
 * stress_thresholds.c - the defaults of stress's limits and their JSON
 * override; see stress_thresholds.h. Moved from the stress verdict so that
 * report/'s thresholds files can read them without including bench/.
 */
#include "report/stress_thresholds.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "report/json_util.h"
#include "report/result.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ======================================================================= */
/* thresholds                                                              */

void gb_stress_thresholds_default(struct gb_stress_thresholds *th)
{
	memset(th, 0, sizeof(*th));
	th->temp_limit_c = 85.0;
	/*
	 * 1% of samples, and at least two: gpud calls a GPU unhealthy at 0.6
	 * HW-slowdown events per minute, 1% of one-second samples; DCGM fails
	 * on any event, which one momentary sample (NVML reasons are an
	 * instant, not an interval) would turn into a false alarm.
	 */
	th->throttle_share_max = 0.01;
	th->throttle_min_samples = 2;
	th->throttle_mask = GB_STRESS_THROTTLE_DEFAULT;
	th->power_cap_share_warn = 0.01;
	th->tflops_drop_max = 0.10;
	th->peer_slow_max = 0.10; /* gpu-fryer's --tflops-tolerance default */
	th->ecc_dbe_max = 0;
	th->ecc_sbe_warn = 0;
	th->pcie_replay_warn = 80;
	th->nvlink_crc_warn = 100;
	th->nvlink_recovery_warn = 0;
	th->abft_tau = GB_STRESS_ABFT_TAU;
}

enum th_type { TH_DOUBLE, TH_INT, TH_UINT, TH_MASK };

static const struct {
	const char *name;
	enum th_type type;
	size_t offset;
	double min, max;
} th_fields[] = {
#define F(name, type, min, max) { #name, type, offsetof(struct gb_stress_thresholds, name), min, max }
	F(temp_limit_c, TH_DOUBLE, 0, 200),
	F(throttle_share_max, TH_DOUBLE, 0, 1),
	F(throttle_min_samples, TH_UINT, 1, 1e9),
	F(throttle_mask, TH_MASK, 0, 0),
	F(power_cap_share_warn, TH_DOUBLE, 0, 1),
	F(tflops_drop_max, TH_DOUBLE, 0, 1),
	F(peer_slow_max, TH_DOUBLE, 0, 1),
	F(ecc_dbe_max, TH_INT, 0, 1e15),
	F(ecc_sbe_warn, TH_INT, 0, 1e15),
	F(pcie_replay_warn, TH_INT, 0, 1e15),
	F(nvlink_crc_warn, TH_INT, 0, 1e15),
	F(nvlink_recovery_warn, TH_INT, 0, 1e15),
	F(abft_tau, TH_DOUBLE, 1, 1e9),
#undef F
};

static int parse_mask(const cJSON *v, uint64_t *mask, char *err, size_t len)
{
	const cJSON *e;

	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 0x1p53) {
		*mask = (uint64_t)v->valuedouble;
		return 0;
	}
	if (!cJSON_IsArray(v)) {
		snprintf(err, len, "'throttle_mask' must be a number or a list of reason names");
		return -1;
	}
	*mask = 0;
	cJSON_ArrayForEach(e, v)
	{
		size_t i;

		for (i = 0; i < GB_CLOCK_REASON_COUNT; i++)
			if (cJSON_IsString(e) && !strcmp(e->valuestring, gb_clock_reasons[i].name))
				break;
		if (i == GB_CLOCK_REASON_COUNT) {
			snprintf(err, len, "unknown clock-event reason '%.64s' in 'throttle_mask'",
				 cJSON_IsString(e) ? e->valuestring : "(not a string)");
			return -1;
		}
		*mask |= gb_clock_reasons[i].bit;
	}
	return 0;
}

static int set_field(struct gb_stress_thresholds *th, size_t f, const cJSON *v, char *err,
		     size_t len)
{
	char *base = (char *)th + th_fields[f].offset;
	double d;

	if (th_fields[f].type == TH_MASK)
		return parse_mask(v, (uint64_t *)(void *)base, err, len);
	if (!cJSON_IsNumber(v)) {
		snprintf(err, len, "'%s' must be a number", th_fields[f].name);
		return -1;
	}
	d = v->valuedouble;
	if (!(d >= th_fields[f].min && d <= th_fields[f].max) ||
	    (th_fields[f].type != TH_DOUBLE && d != floor(d))) {
		snprintf(err, len, "'%s' must be %s between %g and %g (got %g)", th_fields[f].name,
			 th_fields[f].type == TH_DOUBLE ? "a number" : "a whole number",
			 th_fields[f].min, th_fields[f].max, d);
		return -1;
	}
	if (th_fields[f].type == TH_DOUBLE)
		*(double *)(void *)base = d;
	else if (th_fields[f].type == TH_INT)
		*(int64_t *)(void *)base = (int64_t)d;
	else
		*(uint64_t *)(void *)base = (uint64_t)d;
	return 0;
}

int gb_stress_thresholds_parse(const char *json, struct gb_stress_thresholds *th, char *err,
			       size_t len)
{
	cJSON *root = json ? cJSON_Parse(json) : NULL;
	const cJSON *item;
	int rc = -1;

	if (!cJSON_IsObject(root)) {
		snprintf(err, len, "thresholds must be one JSON object like {\"temp_limit_c\": 83}");
		goto out;
	}
	cJSON_ArrayForEach(item, root)
	{
		size_t f;

		for (f = 0; f < ARRAY_LEN(th_fields); f++)
			if (!strcmp(item->string, th_fields[f].name))
				break;
		if (f == ARRAY_LEN(th_fields)) {
			snprintf(err, len, "unknown threshold '%.64s'", item->string);
			goto out;
		}
		if (set_field(th, f, item, err, len))
			goto out;
	}
	rc = 0;
out:
	/* keys and names come from the file: keep the one error line one line */
	if (rc && err && len)
		gb_str_printable(err);
	cJSON_Delete(root);
	return rc;
}

