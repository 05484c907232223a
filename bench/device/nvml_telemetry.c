/* SPDX-License-Identifier: MIT */
/*
 * nvml_telemetry.c - what NVML says while a benchmark runs:
 * temperature, power (which counter, decided once per device), a
 * telemetry sample, the violation counters and the clock-event reasons
 * as text. CPU only; uses bench/device/nvml.c's loader and cache through
 * bench/device/nvml_internal.h.
 */
#include "bench/device/nvml.h"

#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <string.h>

#include "bench/device/nvml_internal.h"
#include "report/result.h"

/* ---- telemetry ---- */

static double read_temperature(nvmlDevice_t h)
{
	nvmlTemperature_t t;
	unsigned v;

	memset(&t, 0, sizeof(t));
	t.version = nvmlTemperature_v1;
	t.sensorType = NVML_TEMPERATURE_GPU;
	if (NV(nvmlDeviceGetTemperatureV, h, &t) == NVML_SUCCESS)
		return t.temperature;
	/* drivers before the V form (or refusing its struct version) */
	if (NV(nvmlDeviceGetTemperature, h, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS)
		return v;
	return NAN;
}

/* ---- power ---- */

enum gb_power_source gb_power_usage_source(int cc_major, int cc_minor)
{
	if (cc_major < 0)
		return GB_POWER_SOURCE_UNKNOWN;
	/* nvml.h: averaged over 1 s on Ampere except GA100 (sm_80) and newer */
	if (cc_major > 8 || (cc_major == 8 && cc_minor > 0))
		return GB_POWER_SOURCE_AVERAGE_1S;
	return GB_POWER_SOURCE_INSTANT;
}

const char *gb_power_source_name(enum gb_power_source s)
{
	switch (s) {
	case GB_POWER_SOURCE_INSTANT:
		return "instant";
	case GB_POWER_SOURCE_AVERAGE_1S:
		return "average_1s";
	case GB_POWER_SOURCE_UNKNOWN:
		break;
	}
	return NULL;
}

/* A field value as a number, whatever type NVML chose for it. */
static double field_number(const nvmlFieldValue_t *f)
{
	switch (f->valueType) {
	case NVML_VALUE_TYPE_DOUBLE:
		return f->value.dVal;
	case NVML_VALUE_TYPE_UNSIGNED_INT:
		return f->value.uiVal;
	case NVML_VALUE_TYPE_UNSIGNED_LONG:
		return (double)f->value.ulVal;
	case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
		return (double)f->value.ullVal;
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
		return (double)f->value.sllVal;
	case NVML_VALUE_TYPE_SIGNED_INT:
		return f->value.siVal;
	case NVML_VALUE_TYPE_UNSIGNED_SHORT:
		return f->value.usVal;
	default:
		return NAN;
	}
}

/* NVML_FI_DEV_POWER_INSTANT in W, NAN where the driver lacks the entry point or the field. */
static double power_instant_w(nvmlDevice_t h)
{
	nvmlFieldValue_t f;

	memset(&f, 0, sizeof(f));
	f.fieldId = NVML_FI_DEV_POWER_INSTANT;
	if (NV(nvmlDeviceGetFieldValues, h, 1, &f) != NVML_SUCCESS || f.nvmlReturn != NVML_SUCCESS)
		return NAN;
	return field_number(&f) / 1000.0; /* mW */
}

static double power_usage_w(nvmlDevice_t h)
{
	unsigned mw;

	if (NV(nvmlDeviceGetPowerUsage, h, &mw) != NVML_SUCCESS)
		return NAN;
	return mw / 1000.0;
}

/* What nvmlDeviceGetPowerUsage means on this GPU (its architecture decides). */
static enum gb_power_source usage_source(nvmlDevice_t h)
{
	int major = -1, minor = -1;

	if (NV(nvmlDeviceGetCudaComputeCapability, h, &major, &minor) != NVML_SUCCESS)
		return GB_POWER_SOURCE_UNKNOWN;
	return gb_power_usage_source(major, minor);
}

static pthread_mutex_t power_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The device's power path, decided at its first reading: the instantaneous
 * field where the driver has it, else nvmlDeviceGetPowerUsage. Fixed from
 * then on, so every figure of a run has one meaning; a reading that then
 * fails is NAN, never a figure of the other kind.
 */
static enum power_path power_path_of(struct gb_nvml_device *dev)
{
	enum power_path path;

	pthread_mutex_lock(&power_lock);
	if (dev->power_path == POWER_UNDECIDED) {
		if (isfinite(power_instant_w(dev->handle))) {
			dev->power_path = POWER_FIELD;
			dev->power_source = GB_POWER_SOURCE_INSTANT;
		} else if (isfinite(power_usage_w(dev->handle))) {
			dev->power_path = POWER_USAGE;
			dev->power_source = usage_source(dev->handle);
		} else {
			dev->power_path = POWER_NONE;
			dev->power_source = GB_POWER_SOURCE_UNKNOWN;
		}
	}
	path = dev->power_path;
	pthread_mutex_unlock(&power_lock);
	return path;
}

enum gb_power_source power_source_of(struct gb_nvml_device *dev, bool *fallback)
{
	enum power_path path = power_path_of(dev);

	*fallback = path == POWER_USAGE;
	return dev->power_source;
}

static double read_power_w(struct gb_nvml_device *dev)
{
	switch (power_path_of(dev)) {
	case POWER_FIELD:
		return power_instant_w(dev->handle);
	case POWER_USAGE:
		return power_usage_w(dev->handle);
	default:
		return NAN;
	}
}

enum gb_power_source gb_nvml_power_source(const char *pci_bus_id)
{
	struct gb_nvml_device *d = gb_nvml_device_by_pci(pci_bus_id);
	bool fallback;

	return d ? power_source_of(d, &fallback) : GB_POWER_SOURCE_UNKNOWN;
}

int gb_nvml_sample(const char *pci_bus_id, struct gb_telemetry_sample *s)
{
	struct gb_nvml_device *d;
	unsigned long long reasons;
	nvmlUtilization_t util;
	nvmlMemory_t mem;
	unsigned v;

	s->temp_c = s->power_w = s->sm_mhz = s->mem_mhz = NAN;
	s->util_pct = s->mem_used_bytes = NAN;
	s->clock_event_reasons = 0;
	s->have_reasons = false;
	d = gb_nvml_device_by_pci(pci_bus_id);
	if (!d)
		return -1;
	s->temp_c = read_temperature(d->handle);
	s->power_w = read_power_w(d);
	if (NV(nvmlDeviceGetClockInfo, d->handle, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
		s->sm_mhz = v;
	if (NV(nvmlDeviceGetClockInfo, d->handle, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
		s->mem_mhz = v;
	if (NV(nvmlDeviceGetUtilizationRates, d->handle, &util) == NVML_SUCCESS)
		s->util_pct = util.gpu;
	if (NV(nvmlDeviceGetMemoryInfo, d->handle, &mem) == NVML_SUCCESS)
		s->mem_used_bytes = (double)mem.used;
	if (NV(nvmlDeviceGetCurrentClocksEventReasons, d->handle, &reasons) == NVML_SUCCESS) {
		s->clock_event_reasons = reasons;
		s->have_reasons = true;
	}
	return 0;
}

/* ---- violation counters ---- */

int gb_nvml_violations(const char *pci_bus_id, struct gb_nvml_violations *v)
{
	static const nvmlPerfPolicyType_t policy[GB_VIOL_KINDS] = {
		[GB_VIOL_POWER] = NVML_PERF_POLICY_POWER,
		[GB_VIOL_THERMAL] = NVML_PERF_POLICY_THERMAL,
	};
	struct gb_nvml_device *d;
	nvmlViolationTime_t t;
	int n = 0;

	memset(v, 0, sizeof(*v));
	d = gb_nvml_device_by_pci(pci_bus_id);
	if (!d)
		return -1;
	for (int k = 0; k < GB_VIOL_KINDS; k++) {
		memset(&t, 0, sizeof(t));
		/* an older driver without the entry point answers FUNCTION_NOT_FOUND through NV() */
		if (NV(nvmlDeviceGetViolationStatus, d->handle, policy[k], &t) != NVML_SUCCESS)
			continue;
		v->ns[k] = t.violationTime;
		v->ok[k] = true;
		n++;
	}
	return n;
}
