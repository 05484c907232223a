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
 */
#include "bench/nvml.h"

#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include <nvml.h>

#include "report/result.h"

#define GB_NVML_DEFAULT_LIBRARY "libnvidia-ml.so.1"
#define GB_NVML_MAX_DEVICES 64
#define GB_BUS_ID_LEN NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE

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
 * Every entry point gpubench uses. A REQUIRED one missing fails
 * gb_nvml_load(); an OPTIONAL one missing only leaves its fields unknown,
 * because older drivers lack the newer calls.
 */
#define GB_NVML_ENTRY_POINTS                                   \
	GB_NVML_REQUIRED(nvmlInit_v2)                          \
	GB_NVML_REQUIRED(nvmlShutdown)                         \
	GB_NVML_REQUIRED(nvmlErrorString)                      \
	GB_NVML_REQUIRED(nvmlDeviceGetCount_v2)                \
	GB_NVML_REQUIRED(nvmlDeviceGetHandleByIndex_v2)        \
	GB_NVML_REQUIRED(nvmlDeviceGetPciInfo_v3)              \
	GB_NVML_OPTIONAL(nvmlSystemGetDriverVersion)           \
	GB_NVML_OPTIONAL(nvmlDeviceGetHandleByPciBusId_v2)     \
	GB_NVML_OPTIONAL(nvmlDeviceGetUUID)                    \
	GB_NVML_OPTIONAL(nvmlDeviceGetName)                    \
	GB_NVML_OPTIONAL(nvmlDeviceGetBrand)                   \
	GB_NVML_OPTIONAL(nvmlDeviceGetMaxClockInfo)            \
	GB_NVML_OPTIONAL(nvmlDeviceGetClockInfo)               \
	GB_NVML_OPTIONAL(nvmlDeviceGetMemoryBusWidth)          \
	GB_NVML_OPTIONAL(nvmlDeviceGetCurrPcieLinkGeneration)  \
	GB_NVML_OPTIONAL(nvmlDeviceGetCurrPcieLinkWidth)       \
	GB_NVML_OPTIONAL(nvmlDeviceGetMaxPcieLinkGeneration)   \
	GB_NVML_OPTIONAL(nvmlDeviceGetMaxPcieLinkWidth)        \
	GB_NVML_OPTIONAL(nvmlDeviceGetGpuMaxPcieLinkGeneration) \
	GB_NVML_OPTIONAL(nvmlDeviceGetEnforcedPowerLimit)      \
	GB_NVML_OPTIONAL(nvmlDeviceGetEccMode)                 \
	GB_NVML_OPTIONAL(nvmlDeviceGetNvLinkState)             \
	GB_NVML_OPTIONAL(nvmlDeviceGetNvLinkVersion)           \
	GB_NVML_OPTIONAL(nvmlDeviceGetNvLinkRemotePciInfo_v2)  \
	GB_NVML_OPTIONAL(nvmlDeviceGetNvLinkRemoteDeviceType)  \
	GB_NVML_OPTIONAL(nvmlDeviceGetTopologyCommonAncestor)  \
	GB_NVML_OPTIONAL(nvmlDeviceGetTemperatureV)            \
	GB_NVML_OPTIONAL(nvmlDeviceGetTemperature)             \
	GB_NVML_OPTIONAL(nvmlDeviceGetPowerUsage)              \
	GB_NVML_OPTIONAL(nvmlDeviceGetFieldValues)             \
	GB_NVML_OPTIONAL(nvmlDeviceGetCudaComputeCapability)   \
	GB_NVML_OPTIONAL(nvmlDeviceGetUtilizationRates)        \
	GB_NVML_OPTIONAL(nvmlDeviceGetMemoryInfo)              \
	GB_NVML_OPTIONAL(nvmlDeviceGetCurrentClocksEventReasons) \
	GB_NVML_OPTIONAL(nvmlDeviceGetViolationStatus)         \
	GB_NVML_OPTIONAL(nvmlDeviceGetTotalEccErrors)          \
	GB_NVML_OPTIONAL(nvmlDeviceGetRetiredPages)            \
	GB_NVML_OPTIONAL(nvmlDeviceGetRetiredPagesPendingStatus) \
	GB_NVML_OPTIONAL(nvmlDeviceGetRemappedRows)            \
	GB_NVML_OPTIONAL(nvmlDeviceGetPcieReplayCounter)       \
	GB_NVML_OPTIONAL(nvmlDeviceGetNvLinkErrorCounter)      \
	GB_NVML_OPTIONAL(nvmlEventSetCreate)                   \
	GB_NVML_OPTIONAL(nvmlDeviceRegisterEvents)             \
	GB_NVML_OPTIONAL(nvmlEventSetWait_v2)                  \
	GB_NVML_OPTIONAL(nvmlEventSetFree)

/*
 * nvmlDeviceGetTemperature is deprecated in NVML 13 but it is all that
 * drivers older than nvmlDeviceGetTemperatureV have; nvmlDeviceGetViolationStatus
 * is deprecated in favour of field values but still exported and answers on
 * every driver that has it. Naming their types is not a use worth a warning.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define GB_NVML_REQUIRED(fn) static __typeof__(&fn) p_##fn;
#define GB_NVML_OPTIONAL(fn) static __typeof__(&fn) p_##fn;
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

/* Call an entry point, or answer FUNCTION_NOT_FOUND when the driver lacks it. */
#define NV(fn, ...) (p_##fn ? p_##fn(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

/* What one device's NVLinks reach (see census_read()). */
struct nvlink_census {
	int answered;     /* links whose state NVML gave */
	int active;
	int first_active; /* -1 if none */
	int to_switch;    /* active links whose far end is an NVSwitch */
	nvmlReturn_t rc_first;              /* link 0's answer: why none answered */
	int n_remote;                       /* active links to a GPU, far-end bus ids in remote[] */
	char remote[NVML_NVLINK_MAX_LINKS][GB_BUS_ID_LEN];
};

/* How a device's power is read: decided once, then every sample reads it so. */
enum power_path {
	POWER_UNDECIDED = 0,
	POWER_FIELD,       /* NVML_FI_DEV_POWER_INSTANT through nvmlDeviceGetFieldValues */
	POWER_USAGE,       /* nvmlDeviceGetPowerUsage: the fallback */
	POWER_NONE         /* neither answers */
};

struct gb_nvml_device {
	nvmlDevice_t handle;
	char bus_id[GB_BUS_ID_LEN]; /* normalised, see pci_normalise() */
	bool census_done;
	struct nvlink_census census;
	enum power_path power_path;
	enum gb_power_source power_source;
};

static struct {
	void *lib;
	bool scanned;       /* every device enumerated into devs[] once */
	struct gb_nvml_device devs[GB_NVML_MAX_DEVICES];
	size_t n_devs;
	nvmlEventSet_t events;
} nvml;

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

/* Append item to a comma-separated list in buf, truncating silently. */
static void list_add(char *buf, size_t len, const char *item)
{
	size_t used;

	if (!buf || !len)
		return;
	used = strnlen(buf, len);
	if (used >= len)
		return;
	snprintf(buf + used, len - used, "%s%s", used ? "," : "", item);
}

/*
 * The fields gb_nvml_fill_device() could not read: a count and names, all
 * of them in buf, and split by why in gaps (may be NULL).
 */
struct missing {
	char *buf;
	size_t len;
	int n;
	struct gb_nvml_gaps *gaps;
};

/*
 * NOT_SUPPORTED (and INVALID_ARGUMENT for a link the GPU does not have)
 * mean the GPU or host lacks the feature: ECC on GeForce, NVLink on a PCIe
 * card. Anything else (an entry point this driver lacks, GPU_IS_LOST,
 * NO_PERMISSION, UNKNOWN) means NVML could not tell, which is worth a warning.
 */
static bool rc_unsupported(nvmlReturn_t rc)
{
	return rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_INVALID_ARGUMENT;
}

static void missing_add(struct missing *m, const char *field, nvmlReturn_t why)
{
	m->n++;
	list_add(m->buf, m->len, field);
	if (!m->gaps)
		return;
	if (rc_unsupported(why)) {
		m->gaps->n_unsupported++;
		list_add(m->gaps->unsupported, sizeof(m->gaps->unsupported), field);
	} else {
		m->gaps->n_unread++;
		list_add(m->gaps->unread, sizeof(m->gaps->unread), field);
	}
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/*
 * Canonical form of a PCI bus id, "DDDDDDDD:BB:DD.F" in upper case. CUDA
 * writes a 4-digit domain ("0000:65:00.0"), NVML 8 digits, and either may
 * be lower case; both must name the same device. A string that is no bus
 * id is only upper-cased, so it can still match itself.
 */
static void pci_normalise(const char *id, char *out, size_t len)
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

static struct gb_nvml_device *cache_find_handle(nvmlDevice_t h)
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
static bool handle_bus_id(nvmlDevice_t h, char *out, size_t len)
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

/* ---- static device facts ---- */

static const char *const brand_names[] = {
	[NVML_BRAND_UNKNOWN] = "unknown",
	[NVML_BRAND_QUADRO] = "quadro",
	[NVML_BRAND_TESLA] = "tesla",
	[NVML_BRAND_NVS] = "nvs",
	[NVML_BRAND_GRID] = "grid",
	[NVML_BRAND_GEFORCE] = "geforce",
	[NVML_BRAND_TITAN] = "titan",
	[NVML_BRAND_NVIDIA_VAPPS] = "nvidia_vapps",
	[NVML_BRAND_NVIDIA_VPC] = "nvidia_vpc",
	[NVML_BRAND_NVIDIA_VCS] = "nvidia_vcs",
	[NVML_BRAND_NVIDIA_VWS] = "nvidia_vws",
	[NVML_BRAND_NVIDIA_CLOUD_GAMING] = "nvidia_cloud_gaming",
	[NVML_BRAND_QUADRO_RTX] = "quadro_rtx",
	[NVML_BRAND_NVIDIA_RTX] = "nvidia_rtx",
	[NVML_BRAND_NVIDIA] = "nvidia",
	[NVML_BRAND_GEFORCE_RTX] = "geforce_rtx",
	[NVML_BRAND_TITAN_RTX] = "titan_rtx",
};

static char *brand_string(nvmlBrandType_t b)
{
	char buf[32];

	if ((unsigned)b < sizeof(brand_names) / sizeof(brand_names[0]) && brand_names[b])
		return strdup(brand_names[b]);
	/* a brand newer than this header: keep the number rather than lose it */
	snprintf(buf, sizeof(buf), "brand_%u", (unsigned)b);
	return strdup(buf);
}

/* nvmlDeviceGetNvLinkVersion answers an nvmlNvlinkVersion_t, not a
 * generation (A100 answers 5 for NVLink 3.1). */
static int nvlink_generation(unsigned v)
{
	static const int gen[] = {
		[NVML_NVLINK_VERSION_1_0] = 1, [NVML_NVLINK_VERSION_2_0] = 2,
		[NVML_NVLINK_VERSION_2_2] = 2, [NVML_NVLINK_VERSION_3_0] = 3,
		[NVML_NVLINK_VERSION_3_1] = 3, [NVML_NVLINK_VERSION_4_0] = 4,
		[NVML_NVLINK_VERSION_5_0] = 5, [NVML_NVLINK_VERSION_6_0] = 6,
	};

	return v < sizeof(gen) / sizeof(gen[0]) && gen[v] ? gen[v] : -1;
}

static void fill_identity(struct gb_device_info *d, nvmlDevice_t h, struct missing *m)
{
	char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE > NVML_DEVICE_NAME_V2_BUFFER_SIZE ?
		 NVML_DEVICE_UUID_V2_BUFFER_SIZE : NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	nvmlBrandType_t brand;
	nvmlReturn_t rc;

	/* CUDA already knows name and UUID; NVML only fills a gap */
	if (!d->uuid) {
		rc = NV(nvmlDeviceGetUUID, h, buf, sizeof(buf));
		if (rc == NVML_SUCCESS) {
			buf[sizeof(buf) - 1] = '\0';
			d->uuid = dup_or_null(buf);
		}
		if (!d->uuid)
			missing_add(m, "uuid", rc);
	}
	if (!d->name) {
		rc = NV(nvmlDeviceGetName, h, buf, sizeof(buf));
		if (rc == NVML_SUCCESS) {
			buf[sizeof(buf) - 1] = '\0';
			d->name = dup_or_null(buf);
		}
		if (!d->name)
			missing_add(m, "name", rc);
	}
	rc = NV(nvmlDeviceGetBrand, h, &brand);
	if (rc == NVML_SUCCESS) {
		free(d->brand);
		d->brand = brand_string(brand);
	}
	if (!d->brand)
		missing_add(m, "brand", rc);
}

static void fill_clocks(struct gb_device_info *d, nvmlDevice_t h, struct missing *m)
{
	nvmlReturn_t rc;
	unsigned v;

	rc = NV(nvmlDeviceGetMaxClockInfo, h, NVML_CLOCK_SM, &v);
	if (rc == NVML_SUCCESS)
		d->max_sm_mhz = v;
	else
		missing_add(m, "max_sm_mhz", rc);
	rc = NV(nvmlDeviceGetMaxClockInfo, h, NVML_CLOCK_MEM, &v);
	if (rc == NVML_SUCCESS)
		d->max_mem_mhz = v;
	else
		missing_add(m, "max_mem_mhz", rc);
	if (d->mem_bus_bits < 0) {
		rc = NV(nvmlDeviceGetMemoryBusWidth, h, &v);
		if (rc == NVML_SUCCESS)
			d->mem_bus_bits = (int)v;
		else
			missing_add(m, "mem_bus_bits", rc);
	}
}

/* One unsigned NVML answer into *out, or the field named missing. */
static void fill_uint(int *out, nvmlReturn_t rc, unsigned v, struct missing *m, const char *field)
{
	if (rc == NVML_SUCCESS)
		*out = (int)v;
	else
		missing_add(m, field, rc);
}

/*
 * The current link may sit below the maximum at idle (PCIe power saving),
 * so a caller judging a downtrained link should read it under load.
 *
 * The maximum is the system's (nvmlDeviceGetMaxPcieLinkGeneration: the
 * lesser of GPU and slot), which is what peaks and downtrain checks must
 * use: a Gen5 H100 in a Gen4 server is not downtrained. The GPU's own
 * maximum only goes to gaps, so info can say the slot is slower than the GPU.
 */
static void fill_pcie(struct gb_device_info *d, nvmlDevice_t h, struct missing *m)
{
	unsigned v = 0;
	nvmlReturn_t rc;

	rc = NV(nvmlDeviceGetCurrPcieLinkGeneration, h, &v);
	fill_uint(&d->pcie_gen, rc, v, m, "pcie_gen");
	rc = NV(nvmlDeviceGetCurrPcieLinkWidth, h, &v);
	fill_uint(&d->pcie_width, rc, v, m, "pcie_width");
	rc = NV(nvmlDeviceGetMaxPcieLinkGeneration, h, &v);
	fill_uint(&d->pcie_max_gen, rc, v, m, "pcie_max_gen");
	rc = NV(nvmlDeviceGetMaxPcieLinkWidth, h, &v);
	fill_uint(&d->pcie_max_width, rc, v, m, "pcie_max_width");
	if (m->gaps && NV(nvmlDeviceGetGpuMaxPcieLinkGeneration, h, &v) == NVML_SUCCESS)
		m->gaps->gpu_max_pcie_gen = (int)v;
}

static void fill_power_ecc(struct gb_device_info *d, nvmlDevice_t h, struct missing *m)
{
	nvmlEnableState_t cur, pending;
	nvmlReturn_t rc;
	unsigned mw;

	rc = NV(nvmlDeviceGetEnforcedPowerLimit, h, &mw);
	if (rc == NVML_SUCCESS)
		d->power_limit_w = mw / 1000.0;
	else
		missing_add(m, "power_limit_w", rc);
	rc = NV(nvmlDeviceGetEccMode, h, &cur, &pending);
	if (rc == NVML_SUCCESS)
		d->ecc = cur == NVML_FEATURE_ENABLED;
	else
		missing_add(m, "ecc", rc);
}

/* Where sysfs is mounted; tests point it at a tree of their own. */
static char sysfs_root[256] = "/sys";

void gb_nvml_set_sysfs_root(const char *root)
{
	snprintf(sysfs_root, sizeof(sysfs_root), "%s", root && *root ? root : "/sys");
}

/* The NUMA node of the GPU's PCI function, from sysfs; -1 when there is none to read. */
static int sysfs_numa_node(const char *bus_id)
{
	unsigned dom, bus, dev, fn;
	char path[384];
	int node = -1;
	FILE *f;

	if (sscanf(bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return -1;
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%04x:%02x:%02x.%x/numa_node",
		 sysfs_root, dom, bus, dev, fn);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &node) != 1)
		node = -1;
	fclose(f);
	return node >= 0 ? node : -1;
}

/*
 * The node pinned host buffers should live on is the one the kernel gives
 * the GPU's PCI function. Not nvmlDeviceGetNumaNodeId: that answers only
 * where the GPU's memory is itself a NUMA node (Grace Hopper), and there it
 * names the HBM node, which has no CPUs, so "host" buffers would land in
 * GPU memory.
 */
static void fill_numa(struct gb_device_info *d, const struct gb_nvml_device *dev,
		      struct missing *m)
{
	int n = sysfs_numa_node(dev->bus_id);

	/* not NVML's to answer: a host that gives no node (or hides sysfs, as
	 * some containers do) is not a degraded NVML, so it is no warning */
	if (n >= 0)
		d->numa_node = n;
	else
		missing_add(m, "numa_node", NVML_ERROR_NOT_SUPPORTED);
}

/*
 * What a device's NVLinks reach, read once per device and kept until
 * unload: on an 8-GPU HGX every ordered pair asks, and each NVML call is a
 * round trip to the GPU's firmware on Hopper. NVML_NVLINK_MAX_LINKS is a
 * ceiling, not the device's count: links past its own answer an error, so
 * only "no link answered at all" makes the state unknown.
 */
static void census_read(nvmlDevice_t h, struct nvlink_census *c)
{
	nvmlIntNvLinkDeviceType_t type;
	nvmlEnableState_t st;
	nvmlPciInfo_t pci;
	nvmlReturn_t rc;

	memset(c, 0, sizeof(*c));
	c->first_active = -1;
	c->rc_first = NVML_SUCCESS;
	for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
		rc = NV(nvmlDeviceGetNvLinkState, h, l, &st);
		if (l == 0)
			c->rc_first = rc;
		if (rc != NVML_SUCCESS)
			continue;
		c->answered++;
		if (st != NVML_FEATURE_ENABLED)
			continue;
		c->active++;
		if (c->first_active < 0)
			c->first_active = (int)l;
		if (NV(nvmlDeviceGetNvLinkRemoteDeviceType, h, l, &type) == NVML_SUCCESS &&
		    type == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
			c->to_switch++;
			continue;
		}
		memset(&pci, 0, sizeof(pci));
		if (NV(nvmlDeviceGetNvLinkRemotePciInfo_v2, h, l, &pci) == NVML_SUCCESS) {
			pci.busId[sizeof(pci.busId) - 1] = '\0';
			pci_normalise(pci.busId, c->remote[c->n_remote], sizeof(c->remote[0]));
			c->n_remote++;
		}
	}
}

static pthread_mutex_t census_lock = PTHREAD_MUTEX_INITIALIZER;

/* The cached census of dev (read on first use). */
static const struct nvlink_census *census_of(struct gb_nvml_device *dev)
{
	pthread_mutex_lock(&census_lock);
	if (!dev->census_done) {
		census_read(dev->handle, &dev->census);
		dev->census_done = true;
	}
	pthread_mutex_unlock(&census_lock);
	return &dev->census;
}

/* Active links of c whose far end is the GPU with (normalised) bus id peer. */
static int census_to_peer(const struct nvlink_census *c, const char *peer)
{
	int n = 0;

	for (int i = 0; i < c->n_remote; i++)
		if (!strcmp(c->remote[i], peer))
			n++;
	return n;
}

static void fill_nvlink(struct gb_device_info *d, struct gb_nvml_device *dev, struct missing *m)
{
	const struct nvlink_census *c = census_of(dev);
	nvmlReturn_t rc;
	unsigned v;
	int gen = -1;

	if (c->answered)
		d->nvlink_up = c->active;
	else
		missing_add(m, "nvlink_up", c->rc_first);
	/*
	 * No link up: a version is not asked of link 0, where some drivers answer
	 * a GPU seen alone in a VM with an error other than "not supported"; the
	 * generation is unsupported there, not unread (no warning).
	 */
	if (c->answered && c->active == 0) {
		missing_add(m, "nvlink_gen", NVML_ERROR_NOT_SUPPORTED);
		return;
	}
	rc = NV(nvmlDeviceGetNvLinkVersion, dev->handle,
		c->first_active < 0 ? 0u : (unsigned)c->first_active, &v);
	if (rc == NVML_SUCCESS) {
		gen = nvlink_generation(v);
		/* kept as answered, so a driver in another convention shows (gpu.c checks it) */
		if (m->gaps) {
			m->gaps->nvlink_version_raw = v > INT32_MAX ? INT32_MAX : (int)v;
			m->gaps->nvlink_gen_nvml = gen;
		}
	}
	if (gen > 0)
		d->nvlink_gen = gen;
	else
		/* a version this table does not know is not knowing */
		missing_add(m, "nvlink_gen", rc == NVML_SUCCESS ? NVML_ERROR_UNKNOWN : rc);
}

/* With no device to ask, every field it would have filled is missing (unread). */
static void fill_nothing(const struct gb_device_info *d, struct missing *m)
{
	static const char *const fields[] = {
		"brand", "max_sm_mhz", "max_mem_mhz", "pcie_gen", "pcie_width", "pcie_max_gen",
		"pcie_max_width", "power_limit_w", "ecc", "numa_node", "nvlink_up", "nvlink_gen",
	};
	const nvmlReturn_t why = NVML_ERROR_NOT_FOUND;

	if (!d->uuid)
		missing_add(m, "uuid", why);
	if (!d->name)
		missing_add(m, "name", why);
	if (d->mem_bus_bits < 0)
		missing_add(m, "mem_bus_bits", why);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		missing_add(m, fields[i], why);
}

static enum gb_power_source power_source_of(struct gb_nvml_device *dev, bool *fallback);

static int fill_device(struct gb_device_info *d, struct missing *m)
{
	struct gb_nvml_device *dev = gb_nvml_device_by_pci(d->pci_bus_id);

	if (!dev) {
		fill_nothing(d, m);
		return m->n;
	}
	fill_identity(d, dev->handle, m);
	fill_clocks(d, dev->handle, m);
	fill_pcie(d, dev->handle, m);
	fill_power_ecc(d, dev->handle, m);
	fill_numa(d, dev, m);
	fill_nvlink(d, dev, m);
	if (m->gaps)
		m->gaps->power_source = power_source_of(dev, &m->gaps->power_fallback);
	return m->n;
}

int gb_nvml_fill_device(struct gb_device_info *d, char *missing, size_t missing_len)
{
	struct missing m = { missing, missing_len, 0, NULL };

	return fill_device(d, &m);
}

int gb_nvml_fill_device_gaps(struct gb_device_info *d, struct gb_nvml_gaps *gaps)
{
	struct missing m = { NULL, 0, 0, gaps };

	memset(gaps, 0, sizeof(*gaps));
	gaps->gpu_max_pcie_gen = -1;
	gaps->nvlink_version_raw = -1;
	gaps->nvlink_gen_nvml = -1;
	return fill_device(d, &m);
}

/* ---- topology ---- */

static const char *topology_name(nvmlGpuTopologyLevel_t level)
{
	switch (level) {
	case NVML_TOPOLOGY_INTERNAL:
		return "same_board";
	case NVML_TOPOLOGY_SINGLE:
	case NVML_TOPOLOGY_MULTIPLE:
		return "pcie_switch";
	case NVML_TOPOLOGY_HOSTBRIDGE:
	/* NODE is one NUMA node but several host bridges: traffic still
	 * crosses a host bridge, which is what limits it */
	case NVML_TOPOLOGY_NODE:
		return "pcie_host_bridge";
	case NVML_TOPOLOGY_SYSTEM:
		return "cross_socket";
	}
	return "unknown";
}

/*
 * NVLinks between a and b, seen from a. On NVSwitch systems (HGX) a link's
 * far end is a switch, not the peer; every GPU on the switches is reached
 * over all of its switch links, so the pair gets the smaller of the two
 * switch-link counts.
 */
static int nvlinks_between(struct gb_nvml_device *a, struct gb_nvml_device *b)
{
	const struct nvlink_census *ca = census_of(a), *cb;
	int to_peer;

	if (!ca->answered)
		/* an absent entry point is not knowing; NOT_SUPPORTED is no NVLink */
		return p_nvmlDeviceGetNvLinkState ? 0 : -1;
	to_peer = census_to_peer(ca, b->bus_id);
	if (to_peer)
		return to_peer;
	if (!ca->to_switch)
		return 0;
	cb = census_of(b);
	return cb->to_switch < ca->to_switch ? cb->to_switch : ca->to_switch;
}

int gb_nvml_topology(const char *pci_a, const char *pci_b, const char **type, int *nvlink_count)
{
	struct gb_nvml_device *a = gb_nvml_device_by_pci(pci_a);
	struct gb_nvml_device *b = gb_nvml_device_by_pci(pci_b);
	nvmlGpuTopologyLevel_t level;

	*type = "unknown";
	*nvlink_count = -1;
	if (!a || !b)
		return -1;
	*nvlink_count = nvlinks_between(a, b);
	if (*nvlink_count > 0) {
		*type = "nvlink";
		return 0;
	}
	if (NV(nvmlDeviceGetTopologyCommonAncestor, a->handle, b->handle, &level) == NVML_SUCCESS)
		*type = topology_name(level);
	return 0;
}

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

static enum gb_power_source power_source_of(struct gb_nvml_device *dev, bool *fallback)
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

/* ---- health ---- */

static int64_t ecc_total(nvmlDevice_t h, nvmlMemoryErrorType_t type)
{
	unsigned long long n;

	if (NV(nvmlDeviceGetTotalEccErrors, h, type, NVML_VOLATILE_ECC, &n) != NVML_SUCCESS)
		return -1;
	return (int64_t)n;
}

/* A page count with no address buffer: NVML answers the count, as success
 * or as INSUFFICIENT_SIZE depending on the driver. */
static int64_t retired_pages(nvmlDevice_t h, nvmlPageRetirementCause_t cause)
{
	unsigned count = 0;
	nvmlReturn_t rc = NV(nvmlDeviceGetRetiredPages, h, cause, &count, NULL);

	if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE)
		return -1;
	return count;
}

/* Sum of some NVLink error counters over every link that answers; -1 if none does. */
static int64_t nvlink_errors(nvmlDevice_t h, const nvmlNvLinkErrorCounter_t *which, size_t n)
{
	unsigned long long v;
	int64_t sum = 0;
	bool any = false;

	for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
		for (size_t i = 0; i < n; i++) {
			if (NV(nvmlDeviceGetNvLinkErrorCounter, h, l, which[i], &v) != NVML_SUCCESS)
				continue;
			sum += (int64_t)v;
			any = true;
		}
	}
	return any ? sum : -1;
}

static void health_remap(nvmlDevice_t h, struct gb_nvml_health *out)
{
	unsigned corr, unc, pending, failed;

	if (NV(nvmlDeviceGetRemappedRows, h, &corr, &unc, &pending, &failed) != NVML_SUCCESS)
		return;
	out->remap_correctable = corr;
	out->remap_uncorrectable = unc;
	out->remap_pending = pending != 0;
	out->remap_failed = failed != 0;
}

int gb_nvml_health(const char *pci_bus_id, struct gb_nvml_health *h)
{
	static const nvmlNvLinkErrorCounter_t crc[] = { NVML_NVLINK_ERROR_DL_CRC_FLIT,
							NVML_NVLINK_ERROR_DL_CRC_DATA };
	static const nvmlNvLinkErrorCounter_t replay[] = { NVML_NVLINK_ERROR_DL_REPLAY };
	static const nvmlNvLinkErrorCounter_t recovery[] = { NVML_NVLINK_ERROR_DL_RECOVERY };
	struct gb_nvml_device *d;
	nvmlEnableState_t pending;
	unsigned v;

	h->ecc_sbe_volatile = h->ecc_dbe_volatile = -1;
	h->retired_pages_sbe = h->retired_pages_dbe = -1;
	h->retired_pending = -1;
	h->remap_correctable = h->remap_uncorrectable = -1;
	h->remap_pending = h->remap_failed = -1;
	h->pcie_replays = -1;
	h->nvlink_crc_errors = h->nvlink_replay_errors = h->nvlink_recovery_errors = -1;
	d = gb_nvml_device_by_pci(pci_bus_id);
	if (!d)
		return -1;
	h->ecc_sbe_volatile = ecc_total(d->handle, NVML_MEMORY_ERROR_TYPE_CORRECTED);
	h->ecc_dbe_volatile = ecc_total(d->handle, NVML_MEMORY_ERROR_TYPE_UNCORRECTED);
	h->retired_pages_sbe =
		retired_pages(d->handle, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
	h->retired_pages_dbe =
		retired_pages(d->handle, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
	if (NV(nvmlDeviceGetRetiredPagesPendingStatus, d->handle, &pending) == NVML_SUCCESS)
		h->retired_pending = pending == NVML_FEATURE_ENABLED;
	health_remap(d->handle, h);
	if (NV(nvmlDeviceGetPcieReplayCounter, d->handle, &v) == NVML_SUCCESS)
		h->pcie_replays = v;
	h->nvlink_crc_errors = nvlink_errors(d->handle, crc, sizeof(crc) / sizeof(crc[0]));
	h->nvlink_replay_errors = nvlink_errors(d->handle, replay, 1);
	h->nvlink_recovery_errors = nvlink_errors(d->handle, recovery, 1);
	return 0;
}

/* ---- clock-event reasons ---- */

void gb_nvml_reasons_str(uint64_t reasons, char *buf, size_t len)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
		{ GB_CLK_GPU_IDLE, "gpu_idle" },
		{ GB_CLK_APP_SETTING, "applications_clocks" },
		{ GB_CLK_SW_POWER_CAP, "sw_power_cap" },
		{ GB_CLK_HW_SLOWDOWN, "hw_slowdown" },
		{ GB_CLK_SYNC_BOOST, "sync_boost" },
		{ GB_CLK_SW_THERMAL, "sw_thermal" },
		{ GB_CLK_HW_THERMAL, "hw_thermal" },
		{ GB_CLK_HW_POWER_BRAKE, "hw_power_brake" },
		{ GB_CLK_DISPLAY_SETTING, "display_clocks" },
		{ GB_CLK_BOARD_LIMIT, "board_limit" },
		{ GB_CLK_RELIABILITY, "reliability" },
	};
	char hex[24];

	if (!buf || !len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (reasons & names[i].bit)
			list_add(buf, len, names[i].name);
		reasons &= ~names[i].bit;
	}
	/* bits newer than this table stay visible, as one hex mask */
	if (reasons) {
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)reasons);
		list_add(buf, len, hex);
	}
}

/* ---- XID events ---- */

int gb_nvml_events_open(const char *const *pci_bus_ids, size_t n)
{
	struct gb_nvml_device *d;
	int registered = 0;

	gb_nvml_events_close();
	if (!nvml.lib || !p_nvmlEventSetCreate || !p_nvmlDeviceRegisterEvents ||
	    !p_nvmlEventSetWait_v2 || !p_nvmlEventSetFree)
		return -1;
	if (p_nvmlEventSetCreate(&nvml.events) != NVML_SUCCESS) {
		nvml.events = NULL;
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		d = gb_nvml_device_by_pci(pci_bus_ids[i]);
		if (d && p_nvmlDeviceRegisterEvents(d->handle, nvmlEventTypeXidCriticalError,
						    nvml.events) == NVML_SUCCESS)
			registered++;
	}
	if (!registered) {
		gb_nvml_events_close();
		return -1;
	}
	return registered;
}

int gb_nvml_events_poll(unsigned timeout_ms, struct gb_nvml_xid *out, size_t max)
{
	struct gb_nvml_device *d;
	nvmlEventData_t ev;
	nvmlReturn_t rc;
	size_t n = 0;

	if (!nvml.events)
		return -1;
	/* bounded, so a library that keeps answering non-XID events cannot hang us */
	for (size_t tries = 0; n < max && tries < max + 64; tries++) {
		memset(&ev, 0, sizeof(ev));
		/* wait for the first event only; then drain without blocking */
		rc = p_nvmlEventSetWait_v2(nvml.events, &ev, n ? 0 : timeout_ms);
		if (rc == NVML_ERROR_TIMEOUT)
			break;
		if (rc != NVML_SUCCESS)
			return n ? (int)n : -1;
		if (!(ev.eventType & nvmlEventTypeXidCriticalError))
			continue;
		d = cache_find_handle(ev.device);
		if (d)
			snprintf(out[n].pci_bus_id, sizeof(out[n].pci_bus_id), "%s", d->bus_id);
		else if (!handle_bus_id(ev.device, out[n].pci_bus_id, sizeof(out[n].pci_bus_id)))
			snprintf(out[n].pci_bus_id, sizeof(out[n].pci_bus_id), "unknown");
		out[n].xid = ev.eventData;
		n++;
	}
	return (int)n;
}

void gb_nvml_events_close(void)
{
	if (nvml.events && p_nvmlEventSetFree)
		p_nvmlEventSetFree(nvml.events);
	nvml.events = NULL;
}
