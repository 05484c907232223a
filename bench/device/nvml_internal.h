/* SPDX-License-Identifier: MIT */
/*
 * nvml_internal.h - what the NVML module's files share and nothing else
 * uses: the entry-point list and its resolved pointers, the NV() call
 * wrapper, the per-device cache entry, the module's state and the helpers
 * one file calls in another. The files (CPU only, in gpubench_core; they
 * use <nvml.h> for types and dlopen for calls, never print):
 *   nvml.c            loading (dlopen/dlsym), helpers, the device cache
 *   nvml_device.c     static device facts (identity, clocks, PCIe, power,
 *                     ECC mode, NUMA, NVLink) and topology
 *   nvml_telemetry.c  temperature, power, samples, violation counters and
 *                     clock-event reasons
 *   nvml_health.c     error counters (ECC, retired pages, row remap, PCIe
 *                     replays, NVLink) and XID events
 * Private to bench/nvml*.c.
 */
#ifndef GPUBENCH_BENCH_NVML_INTERNAL_H
#define GPUBENCH_BENCH_NVML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <nvml.h>

#include "bench/device/nvml.h"

#define GB_NVML_MAX_DEVICES 64
#define GB_BUS_ID_LEN NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE

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

/* the resolved entry points, NULL when missing (defined in bench/device/nvml.c) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define GB_NVML_REQUIRED(fn) extern __typeof__(&fn) p_##fn;
#define GB_NVML_OPTIONAL(fn) extern __typeof__(&fn) p_##fn;
GB_NVML_ENTRY_POINTS
#undef GB_NVML_REQUIRED
#undef GB_NVML_OPTIONAL
#pragma GCC diagnostic pop

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

struct nvml_state {
	void *lib;
	bool scanned;       /* every device enumerated into devs[] once */
	struct gb_nvml_device devs[GB_NVML_MAX_DEVICES];
	size_t n_devs;
	nvmlEventSet_t events;
};
extern struct nvml_state nvml;

/* bench/device/nvml.c */
void pci_normalise(const char *id, char *out, size_t len);
struct gb_nvml_device *cache_find_handle(nvmlDevice_t h);
bool handle_bus_id(nvmlDevice_t h, char *out, size_t len);

/* bench/device/nvml_telemetry.c */
enum gb_power_source power_source_of(struct gb_nvml_device *dev, bool *fallback);

#endif /* GPUBENCH_BENCH_NVML_INTERNAL_H */
