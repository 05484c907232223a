/* SPDX-License-Identifier: MIT */
/* json_util.c - cJSON values where unknown is null; see json_util.h. */
#include "json_util.h"

#include <math.h>

#include <cjson/cJSON.h>

void gb_json_add_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

void gb_json_add_int(cJSON *o, const char *key, long long v)
{
	if (v >= 0)
		cJSON_AddNumberToObject(o, key, (double)v);
	else
		cJSON_AddNullToObject(o, key);
}

void gb_json_add_cuda_version(cJSON *o, const char *key, int v)
{
	gb_json_add_int(o, key, v > 0 ? v : -1);
}

void gb_json_add_str(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}
