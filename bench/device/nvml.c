/* SPDX-License-Identifier: MIT */
/*
 * nvml.c - NVML through dlopen (CPU only; never prints).
 *
 * Every entry point is named once, in GB_NVML_ENTRY_POINTS. Each pointer
 * takes its type from the official <nvml.h> prototype with __typeof__, so a
 * wrong argument is a compile error rather than a crash, and is loaded with
 * the POSIX `*(void **)&p = dlsym()` idiom, which stays quiet under
 * -Wpedantic. The list names versioned symbols (nvmlInit_v2) because nvml.h
 * #defines the plain names to them and dlsym() sees no macros.
 *
 * Read only: gpubench measures a GPU as it is configured, so no Set*,
 * Reset* or Clear* entry point is resolved at all; the list is the whole
 * surface this module can reach.
 *
 * Devices are found by PCI bus id and their handles cached in a small table
 * owned by this module until gb_nvml_unload().
 *
 * This file holds the loader, the helpers and the device cache;
 * bench/device/nvml_internal.h lists the files that hold the rest.
 */
#include "bench/device/nvml.h"

#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include <nvml.h>

#include "bench/device/nvml_internal.h"
#include "report/result.h"

#define GB_NVML_DEFAULT_LIBRARY "libnvidia-ml.so.1"

/* The public bit names (nvml.h of gpubench) must stay those of NVML's nvml.h. */
#define GB_SAME_BIT(gb, nv) _Static_assert((gb) == (nv), #gb " differs from " #nv)
GB_SAME_BIT(GB_CLK_GPU_IDLE, nvmlClocksEventReasonGpuIdle);
GB_SAME_BIT(GB_CLK_APP_SETTING, nvmlClocksEventReasonApplicationsClocksSetting);
GB_SAME_BIT(GB_CLK_SW_POWER_CAP, nvmlClocksEventReasonSwPowerCap);
GB_SAME_BIT(GB_CLK_HW_SLOWDOWN, nvmlClocksThrottleReasonHwSlowdown);
GB_SAME_BIT(GB_CLK_SYNC_BOOST, nvmlClocksEventReasonSyncBoost);
GB_SAME_BIT(GB_CLK_SW_THERMAL, nvmlClocksEventReasonSwThermalSlowdown);
GB_SAME_BIT(GB_CLK_HW_THERMAL, nvmlClocksThrottleReasonHwThermalSlowdown);
GB_SAME_BIT(GB_CLK_HW_POWER_BRAKE, nvmlClocksThrottleReasonHwPowerBrakeSlowdown);
GB_SAME_BIT(GB_CLK_DISPLAY_SETTING, nvmlClocksEventReasonDisplayClockSetting);
GB_SAME_BIT(GB_CLK_BOARD_LIMIT, nvmlClocksEventReasonBoardLimit);
GB_SAME_BIT(GB_CLK_RELIABILITY, nvmlClocksEventReasonReliability);
#undef GB_SAME_BIT

/*
 * nvmlDeviceGetTemperature is deprecated in NVML 13 but it is all that
 * drivers older than nvmlDeviceGetTemperatureV have; nvmlDeviceGetViolationStatus
 * is deprecated in favour of field values but still exported and answers on
 * every driver that has it. Naming their types is not a use worth a warning.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define GB_NVML_REQUIRED(fn) __typeof__(&fn) p_##fn;
#define GB_NVML_OPTIONAL(fn) __typeof__(&fn) p_##fn;
GB_NVML_ENTRY_POINTS
#undef GB_NVML_REQUIRED
#undef GB_NVML_OPTIONAL
#pragma GCC diagnostic pop

struct gb_nvml_sym {
	const char *name;
	void **slot;  /* &p_<name>, written as *(void **)&p = dlsym() */
	bool required;
};

#define GB_NVML_REQUIRED(fn) { #fn, (void **)&p_##fn, true },
#define GB_NVML_OPTIONAL(fn) { #fn, (void **)&p_##fn, false },
static const struct gb_nvml_sym nvml_syms[] = { GB_NVML_ENTRY_POINTS };
#undef GB_NVML_REQUIRED
#undef GB_NVML_OPTIONAL

/* the module's state (struct nvml_state: bench/device/nvml_internal.h) */
struct nvml_state nvml;

/* ---- small helpers ---- */

__attribute__((format(printf, 3, 4)))
static int set_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/*
 * Canonical form of a PCI bus id, "DDDDDDDD:BB:DD.F" in upper case. CUDA
 * writes a 4-digit domain ("0000:65:00.0"), NVML 8 digits, and either may
 * be lower case; both must name the same device. A string that is no bus
 * id is only upper-cased, so it can still match itself.
 */
void pci_normalise(const char *id, char *out, size_t len)
{
	unsigned dom = 0, bus, dev, fn;
	int end = -1;
	size_t i;

	if (sscanf(id, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &end) != 4 || id[end]) {
		dom = 0;
		end = -1;
		if (sscanf(id, "%x:%x.%x%n", &bus, &dev, &fn, &end) != 3 || id[end])
			end = -1;
	}
	if (end >= 0 && bus <= 0xff && dev <= 0x1f && fn <= 7) {
		snprintf(out, len, "%08X:%02X:%02X.%X", dom, bus, dev, fn);
		return;
	}
	for (i = 0; id[i] && i + 1 < len; i++)
		out[i] = (char)toupper((unsigned char)id[i]);
	out[i] = '\0';
}

/* ---- loading ---- */

/*
 * Resolve the whole list; the name of the first missing required symbol, or
 * NULL. No fallback to an older version of a versioned symbol:
 * nvmlDeviceGetPciInfo_v2 fills an older nvmlPciInfo_t whose busId sits
 * elsewhere, so it is not the same prototype, and every driver that runs a
 * CUDA 13 build (R580+) has _v3.
 */
static const char *resolve_all(void *lib)
{
	const char *lacking = NULL;

	for (size_t i = 0; i < sizeof(nvml_syms) / sizeof(nvml_syms[0]); i++) {
		*nvml_syms[i].slot = dlsym(lib, nvml_syms[i].name);
		if (!*nvml_syms[i].slot && nvml_syms[i].required && !lacking)
			lacking = nvml_syms[i].name;
	}
	return lacking;
}

/* Forget the library: no pointer may outlive the mapping it points into. */
static void forget_library(void)
{
	for (size_t i = 0; i < sizeof(nvml_syms) / sizeof(nvml_syms[0]); i++)
		*nvml_syms[i].slot = NULL;
	if (nvml.lib)
		dlclose(nvml.lib);
	memset(&nvml, 0, sizeof(nvml));
}

int gb_nvml_load(const char *library, char *err, size_t errlen)
{
	const char *path = library && *library ? library : GB_NVML_DEFAULT_LIBRARY;
	const char *lacking, *why;
	nvmlReturn_t rc;
	int ret;

	if (nvml.lib)
		return 0;
	if (err && errlen)
		err[0] = '\0';
	dlerror();
	nvml.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!nvml.lib) {
		why = dlerror();
		return set_error(err, errlen, "cannot load '%s': %s", path,
				 why ? why : "unknown error");
	}
	lacking = resolve_all(nvml.lib);
	if (lacking) {
		ret = set_error(err, errlen, "'%s' lacks %s", path, lacking);
		forget_library();
		return ret;
	}
	rc = p_nvmlInit_v2();
	if (rc != NVML_SUCCESS) {
		/* the message lives in the library: format it before dlclose */
		why = p_nvmlErrorString(rc);
		ret = set_error(err, errlen, "nvmlInit failed: %s", why ? why : "unknown error");
		forget_library();
		return ret;
	}
	return 0;
}

void gb_nvml_unload(void)
{
	if (!nvml.lib)
		return;
	gb_nvml_events_close();
	p_nvmlShutdown();
	forget_library();
}

bool gb_nvml_loaded(void)
{
	return nvml.lib != NULL;
}

int gb_nvml_driver_version(char *buf, size_t len)
{
	char v[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];

	if (!buf || !len)
		return -1;
	buf[0] = '\0';
	if (!nvml.lib || NV(nvmlSystemGetDriverVersion, v, sizeof(v)) != NVML_SUCCESS)
		return -1;
	v[sizeof(v) - 1] = '\0';
	if ((size_t)snprintf(buf, len, "%s", v) >= len) {
		buf[0] = '\0';
		return -1;
	}
	return 0;
}

/* ---- devices ---- */

static struct gb_nvml_device *cache_find(const char *bus_id)
{
	for (size_t i = 0; i < nvml.n_devs; i++)
		if (!strcmp(nvml.devs[i].bus_id, bus_id))
			return &nvml.devs[i];
	return NULL;
}

struct gb_nvml_device *cache_find_handle(nvmlDevice_t h)
{
	for (size_t i = 0; i < nvml.n_devs; i++)
		if (nvml.devs[i].handle == h)
			return &nvml.devs[i];
	return NULL;
}

static struct gb_nvml_device *cache_add(nvmlDevice_t h, const char *bus_id)
{
	struct gb_nvml_device *d = cache_find(bus_id);

	if (d)
		return d;
	if (nvml.n_devs == GB_NVML_MAX_DEVICES)
		return NULL;
	d = &nvml.devs[nvml.n_devs++];
	d->handle = h;
	snprintf(d->bus_id, sizeof(d->bus_id), "%s", bus_id);
	return d;
}

/* The normalised bus id NVML gives a handle; false if it will not say. */
bool handle_bus_id(nvmlDevice_t h, char *out, size_t len)
{
	nvmlPciInfo_t pci;

	memset(&pci, 0, sizeof(pci));
	if (p_nvmlDeviceGetPciInfo_v3(h, &pci) != NVML_SUCCESS)
		return false;
	pci.busId[sizeof(pci.busId) - 1] = '\0';
	pci_normalise(pci.busId, out, len);
	return true;
}

/*
 * Enumerate every device once. A device NVML will not open (no permission,
 * cgroup) is skipped rather than failing the rest.
 */
static void scan_devices(void)
{
	unsigned count = 0;
	char bus_id[GB_BUS_ID_LEN];
	nvmlDevice_t h;

	if (nvml.scanned)
		return;
	nvml.scanned = true;
	if (p_nvmlDeviceGetCount_v2(&count) != NVML_SUCCESS)
		return;
	for (unsigned i = 0; i < count; i++)
		if (p_nvmlDeviceGetHandleByIndex_v2(i, &h) == NVML_SUCCESS &&
		    handle_bus_id(h, bus_id, sizeof(bus_id)))
			cache_add(h, bus_id);
}

/*
 * Benchmarks read NVML from a sampler thread while their own thread reads
 * links (bandwidth under load): NVML itself is thread-safe, the cache is
 * not. Entries are only ever appended, so a handle found stays valid.
 */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static struct gb_nvml_device *device_by_pci_locked(const char *want)
{
	struct gb_nvml_device *d = cache_find(want);
	nvmlDevice_t h;

	if (d)
		return d;
	if (NV(nvmlDeviceGetHandleByPciBusId_v2, want, &h) == NVML_SUCCESS)
		return cache_add(h, want);
	scan_devices();
	return cache_find(want);
}

struct gb_nvml_device *gb_nvml_device_by_pci(const char *pci_bus_id)
{
	char want[GB_BUS_ID_LEN];
	struct gb_nvml_device *d;

	if (!nvml.lib || !pci_bus_id || !*pci_bus_id)
		return NULL;
	pci_normalise(pci_bus_id, want, sizeof(want));
	pthread_mutex_lock(&cache_lock);
	d = device_by_pci_locked(want);
	pthread_mutex_unlock(&cache_lock);
	return d;
}

