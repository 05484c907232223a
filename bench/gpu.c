/* SPDX-License-Identifier: MIT */
/*
 * gpu.c - whether this machine can run GPU work, and what its GPUs are.
 *
 * The probe separates "no driver", "driver too old" and "no GPU" because the
 * user's fix differs for each. Device facts come from the CUDA runtime
 * first; NVML (dlopen'd, optional) adds clocks, links, power and ECC, matched
 * by PCI bus id; theory adds the peaks.
 */
#include "gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml.h"
#include "report/theory.h"

const char *gb_cuda_errstr(cudaError_t e, char *buf, size_t len)
{
	snprintf(buf, len, "%s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
	return buf;
}

int gb_cuda_error_is_sticky(cudaError_t e)
{
	switch (e) {
	case cudaErrorIllegalAddress:
	case cudaErrorLaunchFailure:
	case cudaErrorECCUncorrectable:
	case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction:
	case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc:
	case cudaErrorLaunchTimeout:
	case cudaErrorDevicesUnavailable:
		return 1;
	default:
		return 0;
	}
}

enum gb_probe gb_gpu_probe(int *count, const char *cuda_visible, char *reason, size_t len)
{
	int driver = 0, runtime = 0, n = 0;
	cudaError_t e;

	*count = 0;
	cudaDriverGetVersion(&driver);
	cudaRuntimeGetVersion(&runtime);
	if (driver == 0) {
		snprintf(reason, len,
			 "no NVIDIA driver found (libcuda.so.1 could not be loaded); install the "
			 "NVIDIA driver or run on a GPU host");
		return GB_PROBE_NO_DRIVER;
	}
	e = cudaGetDeviceCount(&n);
	/*
	 * Trust the runtime's own verdict, not a version comparison: CUDA's minor
	 * version compatibility lets a 13.x runtime run on an older 13.0 driver.
	 */
	if (e == cudaErrorInsufficientDriver || e == cudaErrorCompatNotSupportedOnDevice) {
		snprintf(reason, len,
			 "NVIDIA driver too old for this build: it supports CUDA %d.%d, gpubench "
			 "was built with CUDA %d.%d",
			 driver / 1000, (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10);
		return GB_PROBE_OLD_DRIVER;
	}
	if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0)) {
		if (cuda_visible)
			snprintf(reason, len, "no CUDA-capable GPU found (CUDA_VISIBLE_DEVICES='%s')",
				 cuda_visible);
		else
			snprintf(reason, len, "no CUDA-capable GPU found");
		return GB_PROBE_NO_GPU;
	}
	if (e != cudaSuccess) {
		char b[160];

		snprintf(reason, len, "cannot count CUDA devices: %s", gb_cuda_errstr(e, b, sizeof(b)));
		return GB_PROBE_CUDA_ERROR;
	}
	*count = n;
	return GB_PROBE_OK;
}

void gb_gpu_versions(struct gb_host_info *host)
{
	int v = 0;

	cudaDriverGetVersion(&v);
	host->cuda_driver_version = v;
	v = 0;
	cudaRuntimeGetVersion(&v);
	host->cuda_runtime_version = v;
}

static int attr(enum cudaDeviceAttr a, int dev)
{
	int v = -1;

	if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess)
		return -1;
	return v;
}

/* CUDA-side facts. CUDA 13 removed clockRate etc. from cudaDeviceProp: use attributes. */
static int fill_from_cuda(struct gb_device_info *d, int dev)
{
	struct cudaDeviceProp p;
	char bus[32];
	const unsigned char *u;

	if (cudaGetDeviceProperties(&p, dev) != cudaSuccess)
		return -1;
	d->index = dev;
	d->name = gb_strdup(p.name);
	d->cc_major = p.major;
	d->cc_minor = p.minor;
	d->sm_count = p.multiProcessorCount;
	d->memory_bytes = (double)p.totalGlobalMem;
	d->l2_bytes = (double)p.l2CacheSize;
	d->mem_bus_bits = p.memoryBusWidth;
	if (attr(cudaDevAttrClockRate, dev) > 0)
		d->max_sm_mhz = attr(cudaDevAttrClockRate, dev) / 1000.0;
	if (attr(cudaDevAttrMemoryClockRate, dev) > 0)
		d->max_mem_mhz = attr(cudaDevAttrMemoryClockRate, dev) / 1000.0;
	if (cudaDeviceGetPCIBusId(bus, sizeof(bus), dev) == cudaSuccess)
		d->pci_bus_id = gb_strdup(bus);
	u = (const unsigned char *)p.uuid.bytes;
	d->uuid = gb_strdupf("GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			     u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
			     u[11], u[12], u[13], u[14], u[15]);
	return 0;
}

/* Spec-sheet, max-clock and link peaks from theory (see docs/theory.md). */
static void fill_peaks(struct gb_device_info *d)
{
	enum gb_product_class cls = gb_product_class_of(d->name, d->brand);
	const struct gb_gpu_spec *spec = gb_gpu_spec_match(d->name, d->sm_count);

	if (spec)
		d->spec_key = gb_strdup(spec->key);
	for (int p = 0; p < GB_PREC_COUNT; p++) {
		double r = gb_peak_flops(d->cc_major, d->cc_minor, p, cls, d->sm_count, d->max_sm_mhz);

		d->peaks.max_clock[p] = isfinite(d->max_sm_mhz) ? r : NAN;
		if (spec)
			d->peaks.spec[p] = gb_gpu_spec_peak_flops(spec, p);
	}
	if (spec)
		d->peaks.mem_bw_bps_spec = spec->mem_bw_bps;
	if (isfinite(d->max_mem_mhz) && d->mem_bus_bits > 0)
		d->peaks.mem_bw_bps = gb_mem_bandwidth_bps(d->max_mem_mhz, d->mem_bus_bits);
	if (d->pcie_max_gen > 0 && d->pcie_max_width > 0)
		d->peaks.pcie_bps = gb_pcie_bandwidth_bps(d->pcie_max_gen, d->pcie_max_width);
	if (d->pcie_gen > 0 && d->pcie_width > 0)
		d->peaks.pcie_bps_current = gb_pcie_bandwidth_bps(d->pcie_gen, d->pcie_width);
	if (d->nvlink_up > 0) {
		int gen = d->nvlink_gen > 0 ? d->nvlink_gen
					    : gb_nvlink_gen_for_cc(d->cc_major, d->cc_minor);

		d->peaks.nvlink_bps = d->nvlink_up * gb_nvlink_link_bps(gen);
	}
}

static void collect_links(struct gb_run *run)
{
	for (size_t i = 0; i < run->n_devices; i++) {
		for (size_t j = 0; j < run->n_devices; j++) {
			const struct gb_device_info *a = &run->devices[i], *b = &run->devices[j];
			const char *type = "unknown";
			int nvl = -1, can = 0;
			struct gb_link *l;

			if (i == j)
				continue;
			if (gb_nvml_loaded() && a->pci_bus_id && b->pci_bus_id)
				gb_nvml_topology(a->pci_bus_id, b->pci_bus_id, &type, &nvl);
			l = gb_run_add_link(run, a->index, b->index, type);
			l->nvlink_count = nvl;
			if (cudaDeviceCanAccessPeer(&can, a->index, b->index) == cudaSuccess)
				l->p2p_access = can ? 1 : 0;
		}
	}
}

int gb_devices_collect(struct gb_run *run, char *missing, size_t missing_len)
{
	int n = 0;

	if (missing_len)
		missing[0] = '\0';
	if (cudaGetDeviceCount(&n) != cudaSuccess)
		return -1;
	for (int dev = 0; dev < n; dev++) {
		struct gb_device_info *d = gb_run_add_device(run);

		if (fill_from_cuda(d, dev))
			return -1;
		if (gb_nvml_loaded() && d->pci_bus_id) {
			size_t used = strlen(missing);

			gb_nvml_fill_device(d, missing + used, missing_len - used);
		}
		fill_peaks(d);
	}
	collect_links(run);
	return 0;
}
