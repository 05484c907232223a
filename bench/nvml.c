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
	GB_NVML_OPTIONAL(nvmlDeviceGetNumaNodeId)              \
	GB_NVML_OPTIONAL(nvmlDeviceGetNvLinkState)             \
	GB_NVML_OPTIONAL(nvmlDeviceGetNvLinkVersion)           \
	GB_NVML_OPTIONAL(nvmlDeviceGetNvLinkRemotePciInfo_v2)  \
	GB_NVML_OPTIONAL(nvmlDeviceGetNvLinkRemoteDeviceType)  \
	GB_NVML_OPTIONAL(nvmlDeviceGetTopologyCommonAncestor)  \
	GB_NVML_OPTIONAL(nvmlDeviceGetTemperatureV)            \
	GB_NVML_OPTIONAL(nvmlDeviceGetTemperature)             \
	GB_NVML_OPTIONAL(nvmlDeviceGetPowerUsage)              \
	GB_NVML_OPTIONAL(nvmlDeviceGetUtilizationRates)        \
	GB_NVML_OPTIONAL(nvmlDeviceGetMemoryInfo)              \
	GB_NVML_OPTIONAL(nvmlDeviceGetCurrentClocksEventReasons) \
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
 * drivers older than nvmlDeviceGetTemperatureV have; naming its type is not
 * a use worth a warning.
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

/* Drivers that predate a versioned symbol export the same call under an
 * older version with the same prototype. */
static const struct {
	const char *name;
	const char *older;
} nvml_older[] = {
	{ "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2" },
};

/* Call an entry point, or answer FUNCTION_NOT_FOUND when the driver lacks it. */
#define NV(fn, ...) (p_##fn ? p_##fn(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

struct gb_nvml_device {
	nvmlDevice_t handle;
	char bus_id[GB_BUS_ID_LEN]; /* normalised, see pci_normalise() */
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

/* The fields gb_nvml_fill_device() could not read: a count and names. */
struct missing {
	char *buf;
	size_t len;
	int n;
};

static void missing_add(struct missing *m, const char *field)
{
	m->n++;
	list_add(m->buf, m->len, field);
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

static void *resolve(void *lib, const char *name)
{
	void *sym = dlsym(lib, name);

	for (size_t i = 0; !sym && i < sizeof(nvml_older) / sizeof(nvml_older[0]); i++)
		if (!strcmp(name, nvml_older[i].name))
			sym = dlsym(lib, nvml_older[i].older);
	return sym;
}

/* Resolve the whole list; the name of the first missing required symbol, or NULL. */
static const char *resolve_all(void *lib)
{
	const char *lacking = NULL;

	for (size_t i = 0; i < sizeof(nvml_syms) / sizeof(nvml_syms[0]); i++) {
		*nvml_syms[i].slot = resolve(lib, nvml_syms[i].name);
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

	/* CUDA already knows name and UUID; NVML only fills a gap */
	if (!d->uuid) {
		if (NV(nvmlDeviceGetUUID, h, buf, sizeof(buf)) == NVML_SUCCESS) {
			buf[sizeof(buf) - 1] = '\0';
			d->uuid = dup_or_null(buf);
		}
		if (!d->uuid)
			missing_add(m, "uuid");
	}
	if (!d->name) {
		if (NV(nvmlDeviceGetName, h, buf, sizeof(buf)) == NVML_SUCCESS) {
			buf[sizeof(buf) - 1] = '\0';
			d->name = dup_or_null(buf);
		}
		if (!d->name)
			missing_add(m, "name");
	}
	if (NV(nvmlDeviceGetBrand, h, &brand) == NVML_SUCCESS) {
		free(d->brand);
		d->brand = brand_string(brand);
	}
	if (!d->brand)
		missing_add(m, "brand");
}

static void fill_clocks(struct gb_device_info *d, nvmlDevice_t h, struct missing *m)
{
	unsigned v;

	if (NV(nvmlDeviceGetMaxClockInfo, h, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
		d->max_sm_mhz = v;
	else
		missing_add(m, "max_sm_mhz");
	if (NV(nvmlDeviceGetMaxClockInfo, h, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
		d->max_mem_mhz = v;
	else
		missing_add(m, "max_mem_mhz");
	if (d->mem_bus_bits < 0) {
		if (NV(nvmlDeviceGetMemoryBusWidth, h, &v) == NVML_SUCCESS)
			d->mem_bus_bits = (int)v;
		else
			missing_add(m, "mem_bus_bits");
	}
}

/*
 * The current link may sit below the maximum at idle (PCIe power saving),
 * so a caller judging a downtrained link should read it under load.
 */
static void fill_pcie(struct gb_device_info *d, nvmlDevice_t h, struct missing *m)
{
	unsigned v;

	if (NV(nvmlDeviceGetCurrPcieLinkGeneration, h, &v) == NVML_SUCCESS)
		d->pcie_gen = (int)v;
	else
		missing_add(m, "pcie_gen");
	if (NV(nvmlDeviceGetCurrPcieLinkWidth, h, &v) == NVML_SUCCESS)
		d->pcie_width = (int)v;
	else
		missing_add(m, "pcie_width");
	/* nvmlDeviceGetMaxPcieLinkGeneration is the system's maximum (the
	 * lesser of GPU and slot); the GPU's own is asked for first */
	if (NV(nvmlDeviceGetGpuMaxPcieLinkGeneration, h, &v) == NVML_SUCCESS ||
	    NV(nvmlDeviceGetMaxPcieLinkGeneration, h, &v) == NVML_SUCCESS)
		d->pcie_max_gen = (int)v;
	else
		missing_add(m, "pcie_max_gen");
	if (NV(nvmlDeviceGetMaxPcieLinkWidth, h, &v) == NVML_SUCCESS)
		d->pcie_max_width = (int)v;
	else
		missing_add(m, "pcie_max_width");
}

static void fill_power_ecc(struct gb_device_info *d, nvmlDevice_t h, struct missing *m)
{
	nvmlEnableState_t cur, pending;
	unsigned mw;

	if (NV(nvmlDeviceGetEnforcedPowerLimit, h, &mw) == NVML_SUCCESS)
		d->power_limit_w = mw / 1000.0;
	else
		missing_add(m, "power_limit_w");
	if (NV(nvmlDeviceGetEccMode, h, &cur, &pending) == NVML_SUCCESS)
		d->ecc = cur == NVML_FEATURE_ENABLED;
	else
		missing_add(m, "ecc");
}

/*
 * NVML knows a NUMA node only where the GPU is one (Grace Hopper); on other
 * hosts the node the kernel gives the PCI function is what matters for
 * pinned host buffers.
 */
static int sysfs_numa_node(const char *bus_id)
{
	unsigned dom, bus, dev, fn;
	char path[96];
	int node = -1;
	FILE *f;

	if (sscanf(bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return -1;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%04x:%02x:%02x.%x/numa_node",
		 dom, bus, dev, fn);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &node) != 1)
		node = -1;
	fclose(f);
	return node >= 0 ? node : -1;
}

static void fill_numa(struct gb_device_info *d, const struct gb_nvml_device *dev,
		      struct missing *m)
{
	unsigned node;
	int n;

	if (NV(nvmlDeviceGetNumaNodeId, dev->handle, &node) == NVML_SUCCESS) {
		d->numa_node = (int)node;
		return;
	}
	n = sysfs_numa_node(dev->bus_id);
	if (n >= 0)
		d->numa_node = n;
	else
		missing_add(m, "numa_node");
}

/*
 * What a device's NVLinks reach. NVML_NVLINK_MAX_LINKS is a ceiling, not
 * the device's count: links past its own answer an error, so only "no link
 * answered at all" makes the state unknown.
 */
struct nvlink_census {
	int answered;    /* links whose state NVML gave */
	int active;
	int first_active; /* -1 if none */
	int to_peer;     /* active links whose far end is peer */
	int to_switch;   /* active links whose far end is an NVSwitch */
};

static void nvlink_census(nvmlDevice_t h, const char *peer, struct nvlink_census *c)
{
	nvmlIntNvLinkDeviceType_t type;
	char bus_id[GB_BUS_ID_LEN];
	nvmlEnableState_t st;
	nvmlPciInfo_t pci;

	memset(c, 0, sizeof(*c));
	c->first_active = -1;
	for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
		if (NV(nvmlDeviceGetNvLinkState, h, l, &st) != NVML_SUCCESS)
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
		if (peer && NV(nvmlDeviceGetNvLinkRemotePciInfo_v2, h, l, &pci) == NVML_SUCCESS) {
			pci.busId[sizeof(pci.busId) - 1] = '\0';
			pci_normalise(pci.busId, bus_id, sizeof(bus_id));
			if (!strcmp(bus_id, peer))
				c->to_peer++;
		}
	}
}

static void fill_nvlink(struct gb_device_info *d, nvmlDevice_t h, struct missing *m)
{
	struct nvlink_census c;
	unsigned v;
	int gen = -1;

	nvlink_census(h, NULL, &c);
	if (c.answered)
		d->nvlink_up = c.active;
	else
		missing_add(m, "nvlink_up");
	if (NV(nvmlDeviceGetNvLinkVersion, h, c.first_active < 0 ? 0u : (unsigned)c.first_active,
	       &v) == NVML_SUCCESS)
		gen = nvlink_generation(v);
	if (gen > 0)
		d->nvlink_gen = gen;
	else
		missing_add(m, "nvlink_gen");
}

/* With no device to ask, every field it would have filled is missing. */
static void fill_nothing(const struct gb_device_info *d, struct missing *m)
{
	static const char *const fields[] = {
		"brand", "max_sm_mhz", "max_mem_mhz", "pcie_gen", "pcie_width", "pcie_max_gen",
		"pcie_max_width", "power_limit_w", "ecc", "numa_node", "nvlink_up", "nvlink_gen",
	};

	if (!d->uuid)
		missing_add(m, "uuid");
	if (!d->name)
		missing_add(m, "name");
	if (d->mem_bus_bits < 0)
		missing_add(m, "mem_bus_bits");
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		missing_add(m, fields[i]);
}

int gb_nvml_fill_device(struct gb_device_info *d, char *missing, size_t missing_len)
{
	struct missing m = { missing, missing_len, 0 };
	struct gb_nvml_device *dev = gb_nvml_device_by_pci(d->pci_bus_id);

	if (!dev) {
		fill_nothing(d, &m);
		return m.n;
	}
	fill_identity(d, dev->handle, &m);
	fill_clocks(d, dev->handle, &m);
	fill_pcie(d, dev->handle, &m);
	fill_power_ecc(d, dev->handle, &m);
	fill_numa(d, dev, &m);
	fill_nvlink(d, dev->handle, &m);
	return m.n;
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
static int nvlinks_between(const struct gb_nvml_device *a, const struct gb_nvml_device *b)
{
	struct nvlink_census ca, cb;

	nvlink_census(a->handle, b->bus_id, &ca);
	if (!ca.answered)
		/* an absent entry point is not knowing; NOT_SUPPORTED is no NVLink */
		return p_nvmlDeviceGetNvLinkState ? 0 : -1;
	if (ca.to_peer)
		return ca.to_peer;
	if (!ca.to_switch)
		return 0;
	nvlink_census(b->handle, NULL, &cb);
	return cb.to_switch < ca.to_switch ? cb.to_switch : ca.to_switch;
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
	if (NV(nvmlDeviceGetPowerUsage, d->handle, &v) == NVML_SUCCESS)
		s->power_w = v / 1000.0;
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
