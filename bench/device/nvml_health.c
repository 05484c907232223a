/* SPDX-License-Identifier: MIT */
/*
 * nvml_health.c - a device's error counters (ECC, retired pages, row
 * remapping, PCIe replays, NVLink errors) and the XID event set.
 * CPU only; uses bench/device/nvml.c's loader and cache through
 * bench/device/nvml_internal.h.
 */
#include "bench/device/nvml.h"

#include <stdio.h>
#include <string.h>

#include "bench/device/nvml_internal.h"

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
