/* SPDX-License-Identifier: MIT */
/*
 * nvml.h (gpubench) - NVML loaded with dlopen at run time (CPU-only C).
 *
 * gpubench never links libnvidia-ml: the binary must start where no driver
 * is. This module dlopens the library (or a fake one for tests), resolves
 * its entry points from one X-macro list typed by the official nvml.h, and
 * offers a few calls shaped like gpubench's needs. Devices are always found
 * by PCI bus id, never by index, because CUDA and NVML order them
 * differently (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER).
 *
 * Every getter leaves a field at its "unknown" value (NAN / -1 / NULL) when
 * NVML lacks the entry point or answers NOT_SUPPORTED, and records which
 * fields could not be read, so a partial NVML degrades to a warning.
 */
#ifndef GPUBENCH_BENCH_NVML_H
#define GPUBENCH_BENCH_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/clock_reasons.h"

struct gb_device_info;
struct gb_telemetry_sample;

/*
 * Load and initialise NVML. library: a path or soname; NULL means
 * "libnvidia-ml.so.1". Returns 0, or -1 with a one-line reason in err
 * ("cannot load 'libnvidia-ml.so.1': ..."). Safe to call more than once.
 */
int gb_nvml_load(const char *library, char *err, size_t errlen);
void gb_nvml_unload(void);
bool gb_nvml_loaded(void);

/* Driver version string ("580.65.06") into buf; -1 if unknown. */
int gb_nvml_driver_version(char *buf, size_t len);

/* Opaque handle of one NVML device. */
struct gb_nvml_device;
/* Find the NVML device with this PCI bus id ("00000000:65:00.0", any case,
 * 4- or 8-digit domain). NULL if none or NVML not loaded. Handles are owned
 * by the module and valid until gb_nvml_unload(). */
struct gb_nvml_device *gb_nvml_device_by_pci(const char *pci_bus_id);

/*
 * Fill what NVML knows about d (found by d->pci_bus_id): uuid and name (if
 * unset), brand, max SM and memory clocks, bus width (if unset), PCIe current
 * and maximum generation and width, power limit, ECC mode, NUMA node, NVLink
 * links up and generation. Returns the number of fields it could not read
 * (0 = all), and appends their names, comma separated, to missing (may be
 * NULL).
 *
 * The maximum PCIe generation is the system's (the lesser of GPU and slot),
 * the one peaks and downtrain checks need. The NUMA node is the one Linux
 * gives the GPU's PCI function (sysfs), where pinned host buffers belong.
 */
int gb_nvml_fill_device(struct gb_device_info *d, char *missing, size_t missing_len);

/*
 * Why fields stayed unknown, for the report's warnings (NVML partial).
 * unread: NVML could not answer (an entry point this driver lacks, the
 * device unknown to NVML, an error): a degradation the report must show.
 * unsupported: the GPU or host lacks the feature (NOT_SUPPORTED: ECC on
 * GeForce, NVLink on a PCIe card; no NUMA node): nothing is missing.
 */
/*
 * Where a power figure comes from. nvmlDeviceGetPowerUsage is a one-second
 * average on Ampere (except GA100) and newer GPUs, and instantaneous on
 * older ones (nvml.h says so); the instantaneous reading of any GPU is the
 * field NVML_FI_DEV_POWER_INSTANT of nvmlDeviceGetFieldValues, which older
 * drivers lack. gpubench reads the field where the driver has it and falls
 * back to nvmlDeviceGetPowerUsage, and says which one a figure is.
 */
enum gb_power_source {
	GB_POWER_SOURCE_UNKNOWN = 0, /* no power reading, or its kind cannot be told */
	GB_POWER_SOURCE_INSTANT,     /* instantaneous */
	GB_POWER_SOURCE_AVERAGE_1S   /* averaged over the last second */
};
/* "instant", "average_1s"; NULL for unknown (null in the report). */
const char *gb_power_source_name(enum gb_power_source s);
/* What nvmlDeviceGetPowerUsage answers on a GPU of this compute capability
 * (cc_major < 0: unknown). */
enum gb_power_source gb_power_usage_source(int cc_major, int cc_minor);
/* The kind of every power figure gb_nvml_sample() gives for this device
 * (decided at its first reading, fixed until gb_nvml_unload()). */
enum gb_power_source gb_nvml_power_source(const char *pci_bus_id);

struct gb_nvml_gaps {
	char unread[256];        /* comma-separated field names */
	char unsupported[256];
	int n_unread, n_unsupported;
	int gpu_max_pcie_gen;    /* the GPU's own maximum PCIe generation, -1 unknown */
	/* nvmlDeviceGetNvLinkVersion as answered (an nvmlNvlinkVersion_t: 5 is
	 * NVLink 3.1), -1 when not read; and the generation it names, -1 if none */
	int nvlink_version_raw;
	int nvlink_gen_nvml;
	/* the model's NVLink generation (catalog, else by compute capability),
	 * 0 unknown; set by bench/device/gpu.c, which trusts it over a differing NVML */
	int nvlink_gen_known;
	enum gb_power_source power_source; /* of this GPU's power figures */
	bool power_fallback;     /* no instantaneous field: nvmlDeviceGetPowerUsage is read */
};

/* gb_nvml_fill_device(), reporting the gaps split by why (gaps is cleared first). */
int gb_nvml_fill_device_gaps(struct gb_device_info *d, struct gb_nvml_gaps *gaps);

/* Tests: read the NUMA node under ROOT/bus/pci/devices/ instead of /sys (NULL: /sys). */
void gb_nvml_set_sysfs_root(const char *root);

/*
 * How two devices connect: type is one of "nvlink", "same_board",
 * "pcie_switch", "pcie_host_bridge", "cross_socket", "unknown" (static
 * string) and nvlink_count the NVLink links between them (0 if none, -1 if
 * unknown). Returns 0, -1 if either device is unknown.
 */
int gb_nvml_topology(const char *pci_a, const char *pci_b, const char **type, int *nvlink_count);

/* One telemetry sample (temperature, power, clocks, utilisation, memory
 * used, clock-event reasons). Unknown fields stay NAN / have_reasons false.
 * Returns 0, -1 if the device is unknown. */
int gb_nvml_sample(const char *pci_bus_id, struct gb_telemetry_sample *s);

/*
 * NVML's cumulative violation counters (nvmlDeviceGetViolationStatus): the
 * time, in ns since the driver loaded, that the GPU was held below its
 * application clocks by one cause. POWER is the power limit (the counter
 * behind the sw_power_cap reason), THERMAL the driver's thermal slowdown
 * (sw_thermal). Unlike a clock-event sample, which is an instant, two reads
 * give the exact time throttled between them.
 */
enum gb_nvml_viol { GB_VIOL_POWER = 0, GB_VIOL_THERMAL, GB_VIOL_KINDS };
struct gb_nvml_violations {
	uint64_t ns[GB_VIOL_KINDS];
	bool ok[GB_VIOL_KINDS];   /* read; false where NVML lacks or refused it */
};
/* Read every counter of the device: how many were read (0 when the driver
 * lacks the entry point), or -1 if the device is unknown (all not ok). */
int gb_nvml_violations(const char *pci_bus_id, struct gb_nvml_violations *v);

/* Health counters read before and after a run; -1 (or NAN) where unknown. */
struct gb_nvml_health {
	int64_t ecc_sbe_volatile;       /* corrected, volatile, total */
	int64_t ecc_dbe_volatile;       /* uncorrected, volatile, total */
	int64_t retired_pages_sbe;
	int64_t retired_pages_dbe;
	int retired_pending;            /* 1/0/-1 */
	int64_t remap_correctable;
	int64_t remap_uncorrectable;
	int remap_pending;              /* 1/0/-1 */
	int remap_failed;               /* 1/0/-1 */
	int64_t pcie_replays;
	int64_t nvlink_crc_errors;      /* summed over links */
	int64_t nvlink_replay_errors;
	int64_t nvlink_recovery_errors;
};
int gb_nvml_health(const char *pci_bus_id, struct gb_nvml_health *h);

/* The clocks-event mask's bits (GB_CLK_*) and their names: report/clock_reasons.h */

/*
 * XID events. gb_nvml_events_open registers for XID (critical) events on
 * the given devices and returns how many it registered (n when all), or -1
 * when none could be. gb_nvml_events_poll waits up to timeout_ms for the
 * first event, then takes those already queued, at most max. Returns the
 * number written, or -1 when events are not supported (the report must then
 * say XIDs could not be watched).
 */
struct gb_nvml_xid {
	char pci_bus_id[32];
	unsigned long long xid;
};
int gb_nvml_events_open(const char *const *pci_bus_ids, size_t n);
int gb_nvml_events_poll(unsigned timeout_ms, struct gb_nvml_xid *out, size_t max);
void gb_nvml_events_close(void);

#endif
