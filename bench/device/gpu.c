/* SPDX-License-Identifier: MIT */
/*
 * gpu.c - whether this machine can run GPU work, and what its GPUs are.
 *
 * The probe separates "no driver", "driver too old" and "no GPU" because the
 * user's fix differs for each. Device facts come from the CUDA runtime
 * first; NVML (dlopen'd, optional) adds clocks, links, power and ECC, matched
 * by PCI bus id; theory adds the peaks.
 */
#include "bench/device/gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/device/info_math.h"
#include "build_info.h"
#include "bench/device/lost_math.h"
#include "bench/device/nvml.h"
#include "report/theory.h"

const char *gb_cuda_errstr(cudaError_t e, char *buf, size_t len)
{
	snprintf(buf, len, "%s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
	return buf;
}

/* lost_math.c keeps the sticky list as numbers (no CUDA header in the core):
 * each must still be the enumerator it stands for */
#define GB_SAME_CODE(name, n) _Static_assert((int)(name) == (n), #name " is not " #n)
GB_SAME_CODE(cudaErrorECCUncorrectable, 214);
GB_SAME_CODE(cudaErrorNvlinkUncorrectable, 220);
GB_SAME_CODE(cudaErrorContained, 226);
GB_SAME_CODE(cudaErrorIllegalAddress, 700);
GB_SAME_CODE(cudaErrorLaunchTimeout, 702);
GB_SAME_CODE(cudaErrorAssert, 710);
GB_SAME_CODE(cudaErrorHardwareStackError, 714);
GB_SAME_CODE(cudaErrorIllegalInstruction, 715);
GB_SAME_CODE(cudaErrorMisalignedAddress, 716);
GB_SAME_CODE(cudaErrorInvalidAddressSpace, 717);
GB_SAME_CODE(cudaErrorInvalidPc, 718);
GB_SAME_CODE(cudaErrorLaunchFailure, 719);
GB_SAME_CODE(cudaErrorTensorMemoryLeak, 721);
GB_SAME_CODE(cudaErrorMpsClientTerminated, 810);
GB_SAME_CODE(cudaErrorExternalDevice, 911);
GB_SAME_CODE(cudaErrorUnknown, 999);
GB_SAME_CODE(cudaErrorDevicesUnavailable, 46); /* named in lost_math.c as not sticky */
#undef GB_SAME_CODE

int gb_cuda_error_is_sticky(cudaError_t e)
{
	return gb_cuda_code_is_sticky((int)e);
}

int gb_cuda_current_device(void)
{
	int d = -1;

	/* may answer an earlier asynchronous error, yet the device is thread state: keep it if set */
	(void)cudaGetDevice(&d);
	return d;
}

/* "on GPU n" where the device is known */
static const char *on_gpu(int device, char *buf, size_t len)
{
	if (device < 0)
		return "";
	snprintf(buf, len, " on GPU %d", device);
	return buf;
}

int gb_cuda_fail(struct gb_bench_result *res, int device, const char *call, cudaError_t e,
		 const char *file, int line)
{
	char b[160], on_buf[32];
	const char *on = on_gpu(device, on_buf, sizeof(on_buf));

	gb_cuda_errstr(e, b, sizeof(b));
	if (gb_cuda_error_is_sticky(e))
		gb_bench_device_lost(res, device, GB_STATUS_FAILED,
				     "'%s' failed%s: %s at %s:%d; the context is lost, the "
				     "GPU needs a reset",
				     call, on, b, file, line);
	else if (res->status == GB_STATUS_FAILED || res->status == GB_STATUS_INTERRUPTED)
		/* a finding or an interruption outranks could-not-run: keep it, note the call */
		gb_bench_add_check(res, "cuda_call", GB_STATUS_ERROR, GB_SEV_ERROR, device, NAN, NAN,
				   "'%s' failed%s: %s at %s:%d", call, on, b, file, line);
	else
		gb_bench_set_status(res, GB_STATUS_ERROR, "'%s' failed%s: %s at %s:%d", call, on, b,
				    file, line);
	return -1;
}

_Static_assert(GB_CUDA_ERR_SYSTEM_NOT_READY == cudaErrorSystemNotReady &&
		       GB_CUDA_ERR_DRIVER_MISMATCH == cudaErrorSystemDriverMismatch &&
		       GB_CUDA_ERR_COMPAT_NOT_SUPPORTED == cudaErrorCompatNotSupportedOnDevice,
	       "info_math.h's CUDA error numbers are the runtime's");

/*
 * A GPU none of the built architectures runs on fails every kernel launch
 * with "no kernel image": refuse it here, before anything half-runs. Every
 * visible GPU is asked, since a run may use any of them; the line says how
 * to leave one out. False when all can run (or their capability is unknown:
 * the collection then reports that GPU).
 */
static bool gpu_too_old(int n, char *reason, size_t len)
{
	for (int dev = 0; dev < n; dev++) {
		int major = -1, minor = -1, oldest;

		if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) !=
			    cudaSuccess ||
		    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) !=
			    cudaSuccess)
			continue;
		if (gb_cuda_archs_run_on(GPUBENCH_CUDA_ARCHS, major, minor, &oldest))
			continue;
		if (major * 10 + minor < 75)  /* CUDA 13 builds nothing older than sm_75 */
			snprintf(reason, len,
				 "GPU %d is sm_%d%d, which CUDA 13 no longer supports (this build's "
				 "oldest is sm_%d): hide it with CUDA_VISIBLE_DEVICES",
				 dev, major, minor, oldest);
		else
			snprintf(reason, len,
				 "GPU %d is sm_%d%d, which this build cannot run on (built for %s, "
				 "the oldest sm_%d): rebuild with -DCMAKE_CUDA_ARCHITECTURES=%d%d, or "
				 "hide it with CUDA_VISIBLE_DEVICES",
				 dev, major, minor, GPUBENCH_CUDA_ARCHS, oldest, major, minor);
		return true;
	}
	return false;
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
	if (e == cudaErrorInsufficientDriver) {
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
		const char *hint = gb_cuda_probe_hint((int)e);
		char b[160];

		snprintf(reason, len, "cannot count CUDA devices: %s%s%s",
			 gb_cuda_errstr(e, b, sizeof(b)), hint ? "; " : "", hint ? hint : "");
		return GB_PROBE_CUDA_ERROR;
	}
	if (gpu_too_old(n, reason, len))
		return GB_PROBE_OLD_GPU;
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
static cudaError_t fill_from_cuda(struct gb_device_info *d, int dev)
{
	struct cudaDeviceProp p;
	char bus[32];
	const unsigned char *u;
	cudaError_t e;

	d->index = dev;
	/* the bus id first: it lets NVML describe a GPU whose properties fail */
	if (cudaDeviceGetPCIBusId(bus, sizeof(bus), dev) == cudaSuccess)
		d->pci_bus_id = gb_strdup(bus);
	e = cudaGetDeviceProperties(&p, dev);
	if (e != cudaSuccess)
		return e;
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
	u = (const unsigned char *)p.uuid.bytes;
	d->uuid = gb_strdupf("GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			     u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
			     u[11], u[12], u[13], u[14], u[15]);
	return cudaSuccess;
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

/*
 * NVML's NVLink version against the generation the GPU model has: the
 * model's wins where known (a driver answering in another convention would
 * otherwise halve or double the NVLink peak), and the note keeps both so
 * the report warns of the disagreement.
 */
static void judge_nvlink_gen(struct gb_device_info *d, struct gb_nvml_gaps *g)
{
	const struct gb_gpu_spec *spec = gb_gpu_spec_match(d->name, d->sm_count);
	bool mismatch;
	int gen;

	g->nvlink_gen_known = spec && spec->nvlink_gen > 0 ?
				      spec->nvlink_gen :
				      gb_nvlink_gen_for_cc(d->cc_major, d->cc_minor);
	if (g->nvlink_gen_nvml <= 0)
		return; /* NVML named none: fill_peaks falls back on its own */
	gen = gb_nvlink_gen_trusted(g->nvlink_gen_nvml, g->nvlink_gen_known, &mismatch);
	if (gen > 0)
		d->nvlink_gen = gen;
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

/* One GPU into run: CUDA facts, NVML facts, peaks; what went wrong into note. */
static bool collect_one(struct gb_run *run, int dev, struct gb_device_note *note)
{
	struct gb_device_info *d = gb_run_add_device(run);
	cudaError_t e = fill_from_cuda(d, dev);
	char b[160];

	note->device = dev;
	if (e != cudaSuccess)
		snprintf(note->cuda_error, sizeof(note->cuda_error),
			 "'cudaGetDeviceProperties' failed: %s", gb_cuda_errstr(e, b, sizeof(b)));
	if (gb_nvml_loaded() && d->pci_bus_id) {
		gb_nvml_fill_device_gaps(d, &note->nvml);
		note->nvml_asked = true;
		d->pcie_gpu_max_gen = note->nvml.gpu_max_pcie_gen;
		d->nvlink_version_raw = note->nvml.nvlink_version_raw;
		d->power_source = gb_power_source_name(note->nvml.power_source);
	}
	if (e == cudaSuccess) {
		if (note->nvml_asked)
			judge_nvlink_gen(d, &note->nvml);
		fill_peaks(d);
	}
	return e == cudaSuccess;
}

int gb_devices_collect_noted(struct gb_run *run, struct gb_info_notes *notes)
{
	int n = 0, good = 0;

	notes->n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess)
		return -1;
	for (int dev = 0; dev < n && dev < GB_INFO_MAX_DEVICES; dev++) {
		struct gb_device_note *note = &notes->dev[notes->n++];

		memset(note, 0, sizeof(*note));
		good += collect_one(run, dev, note);
	}
	collect_links(run);
	return good;
}

int gb_devices_collect(struct gb_run *run, char *missing, size_t missing_len)
{
	struct gb_info_notes *notes = calloc(1, sizeof(*notes));
	int good;

	if (missing_len)
		missing[0] = '\0';
	if (!notes)
		return -1;
	good = gb_devices_collect_noted(run, notes);
	for (size_t i = 0; i < notes->n && missing_len; i++) {
		const struct gb_nvml_gaps *g = &notes->dev[i].nvml;
		size_t used = strlen(missing);
		const char *sep1 = used && g->unread[0] ? "," : "";
		const char *sep2 = (used || g->unread[0]) && g->unsupported[0] ? "," : "";

		snprintf(missing + used, missing_len - used, "%s%s%s%s", sep1, g->unread, sep2,
			 g->unsupported);
	}
	free(notes);
	return good > 0 ? 0 : -1;
}
