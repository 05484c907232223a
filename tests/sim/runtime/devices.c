/* SPDX-License-Identifier: MIT */
/*
 * devices.c - the simulated devices: count, current device, properties and
 * attributes from the machine file, PCI bus ids, peer access, versions.
 */
#include "tests/sim/runtime/rt.h"

#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

pthread_mutex_t rt_table_lock = PTHREAD_MUTEX_INITIALIZER;

static _Thread_local int current_device = 0;
/* peer access enabled from [device] to [peer] (cudaDeviceEnablePeerAccess on device) */
static bool peer_on[GBSIM_MAX_GPUS][GBSIM_MAX_GPUS];

int rt_device_count(void)
{
	return gbsim_machine()->gpu_count;
}

bool rt_device_valid(int device)
{
	return device >= 0 && device < rt_device_count();
}

int gbsim_current_device(void)
{
	return current_device;
}

/*
 * The driver_stall fault: the process's first cudaGetDeviceCount (the
 * driver's start, in the product's GPU probe) blocks for the fault's value in
 * seconds, or for good with 0, and looks at nothing meanwhile, as a driver
 * call that hangs in the kernel does. It takes real time, in steps that are
 * as long in simulated time, so that the product's clock (its watchdog, a
 * stop signal's grace) sees the call take its time as a real one would, and
 * a signal sent from outside lands while it blocks.
 */
static void driver_stall(void)
{
	static atomic_bool done;
	const struct timespec step = { 0, 10 * 1000 * 1000 };
	const struct gbsim_machine *m = gbsim_machine();
	double end = -1;

	for (int i = 0; i < m->fault_count; i++)
		if (m->faults[i].kind == GBSIM_FAULT_DRIVER_STALL)
			end = m->faults[i].value > 0 ? gbsim_vc_now() + (double)m->faults[i].value
						     : INFINITY;
	if (end < 0 || atomic_exchange(&done, true))
		return;
	while (gbsim_vc_now() < end) {
		nanosleep(&step, NULL); /* a signal cuts it short: the loop goes on */
		gbsim_vc_sleep(0.01);
	}
}

cudaError_t cudaGetDeviceCount(int *count)
{
	driver_stall();
	if (!count)
		return rt_ret(cudaErrorInvalidValue);
	/* a driver older than this runtime (or none): what the real runtime answers */
	if (gbsim_machine()->driver_version < GBSIM_CUDA_VERSION) {
		*count = 0;
		return rt_ret(cudaErrorInsufficientDriver);
	}
	*count = rt_device_count();
	return *count > 0 ? cudaSuccess : rt_ret(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int device)
{
	if (!rt_device_valid(device))
		return rt_ret(cudaErrorInvalidDevice);
	current_device = device;
	return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
	if (!device)
		return rt_ret(cudaErrorInvalidValue);
	*device = current_device;
	return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
	if (!runtimeVersion)
		return rt_ret(cudaErrorInvalidValue);
	*runtimeVersion = GBSIM_CUDA_VERSION;
	return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return rt_ret(cudaErrorInvalidValue);
	/* the machine file's; 0: no driver, as when libcuda.so.1 is missing */
	*driverVersion = gbsim_machine()->driver_version;
	return cudaSuccess;
}

/* ---- properties ---- */

/* L2 size: the machine file's (tests/sim/machine.c), an int as CUDA reports it */
static int l2_bytes(const struct gbsim_gpu *g)
{
	return g->l2_bytes > INT_MAX ? INT_MAX : (int)g->l2_bytes;
}

/* Opt-in shared memory per block, bytes, as the CUDA programming guide lists it. */
static int smem_optin_bytes(const struct gbsim_gpu *g)
{
	int cc = g->cc_major * 10 + g->cc_minor;

	if (cc >= 90 && cc < 120)
		return 227 * 1024;
	if (cc == 80 || cc == 87)
		return 163 * 1024;
	if (cc == 86 || cc == 89 || cc >= 120)
		return 99 * 1024;
	if (cc == 75)
		return 64 * 1024;
	return 96 * 1024;
}

static int smem_per_sm_bytes(const struct gbsim_gpu *g)
{
	return smem_optin_bytes(g) + 1024;
}

static int threads_per_sm(const struct gbsim_gpu *g)
{
	int cc = g->cc_major * 10 + g->cc_minor;

	if (cc == 86 || cc == 89 || cc >= 120)
		return 1536;
	if (cc == 75)
		return 1024;
	return 2048;
}

int rt_smem_optin_bytes(int device)
{
	return smem_optin_bytes(&gbsim_machine()->gpus[device]);
}

static void parse_bus_id(const char *s, unsigned *domain, unsigned *bus, unsigned *dev,
			 unsigned *fn)
{
	*domain = *bus = *dev = *fn = 0;
	if (sscanf(s, "%x:%x:%x.%x", domain, bus, dev, fn) != 4)
		*domain = *bus = *dev = *fn = 0;
}

/* "GPU-01234567-89ab-..." to 16 bytes */
static void parse_uuid(const char *s, char out[16])
{
	int n = 0;

	memset(out, 0, 16);
	if (!strncmp(s, "GPU-", 4))
		s += 4;
	for (; *s && n < 32; s++) {
		unsigned v;
		char c[2] = {*s, 0};

		if (*s == '-' || sscanf(c, "%x", &v) != 1)
			continue;
		out[n / 2] = (char)(out[n / 2] | (n % 2 ? v : v << 4));
		n++;
	}
}

static void fill_limits(struct cudaDeviceProp *p)
{
	p->warpSize = 32;
	p->maxThreadsPerBlock = 1024;
	p->maxThreadsDim[0] = 1024;
	p->maxThreadsDim[1] = 1024;
	p->maxThreadsDim[2] = 64;
	p->maxGridSize[0] = 0x7fffffff;
	p->maxGridSize[1] = 65535;
	p->maxGridSize[2] = 65535;
	p->sharedMemPerBlock = 48 * 1024;
	p->regsPerBlock = 65536;
	p->regsPerMultiprocessor = 65536;
	p->totalConstMem = 64 * 1024;
	p->memPitch = 0x7fffffff;
	p->textureAlignment = 512;
	p->texturePitchAlignment = 32;
	p->surfaceAlignment = 512;
	p->reservedSharedMemPerBlock = 1024;
	p->maxBlocksPerMultiProcessor = 32;
}

static void fill_features(struct cudaDeviceProp *p)
{
	p->canMapHostMemory = 1;
	p->concurrentKernels = 1;
	p->asyncEngineCount = 2;
	p->unifiedAddressing = 1;
	p->streamPrioritiesSupported = 1;
	p->globalL1CacheSupported = 1;
	p->localL1CacheSupported = 1;
	p->managedMemory = 1;
	p->concurrentManagedAccess = 1;
	p->computePreemptionSupported = 1;
	p->cooperativeLaunch = 1;
	p->hostRegisterSupported = 1;
	p->memoryPoolsSupported = 1;
	p->unifiedFunctionPointers = 1;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	const struct gbsim_gpu *g;
	unsigned domain, bus, dev, fn;

	if (!prop)
		return rt_ret(cudaErrorInvalidValue);
	if (!rt_device_valid(device))
		return rt_ret(cudaErrorInvalidDevice);
	g = &gbsim_machine()->gpus[device];
	memset(prop, 0, sizeof(*prop));
	snprintf(prop->name, sizeof(prop->name), "%s", g->name);
	parse_uuid(g->uuid, prop->uuid.bytes);
	prop->totalGlobalMem = (size_t)g->memory_bytes;
	prop->major = g->cc_major;
	prop->minor = g->cc_minor;
	prop->multiProcessorCount = g->sm_count;
	prop->memoryBusWidth = g->mem_bus_width;
	prop->l2CacheSize = l2_bytes(g);
	prop->persistingL2CacheMaxSize = l2_bytes(g) * 3 / 4;
	prop->maxThreadsPerMultiProcessor = threads_per_sm(g);
	prop->sharedMemPerMultiprocessor = (size_t)smem_per_sm_bytes(g);
	prop->sharedMemPerBlockOptin = (size_t)smem_optin_bytes(g);
	prop->ECCEnabled = g->geforce ? 0 : 1;
	parse_bus_id(g->pci_bus_id, &domain, &bus, &dev, &fn);
	prop->pciDomainID = (int)domain;
	prop->pciBusID = (int)bus;
	prop->pciDeviceID = (int)dev;
	prop->deviceNumaId = -1;
	prop->hostNumaId = g->numa_node;
	prop->isMultiGpuBoard = 0;
	prop->multiGpuBoardGroupID = device;
	fill_limits(prop);
	fill_features(prop);
	return cudaSuccess;
}

static int attr_value(const struct gbsim_gpu *g, enum cudaDeviceAttr attr, bool *known)
{
	*known = true;
	switch (attr) {
	case cudaDevAttrComputeCapabilityMajor: return g->cc_major;
	case cudaDevAttrComputeCapabilityMinor: return g->cc_minor;
	case cudaDevAttrMultiProcessorCount: return g->sm_count;
	case cudaDevAttrClockRate: return g->sm_clock_mhz * 1000;
	case cudaDevAttrMemoryClockRate: return g->mem_clock_mhz * 1000;
	case cudaDevAttrGlobalMemoryBusWidth: return g->mem_bus_width;
	case cudaDevAttrL2CacheSize: return l2_bytes(g);
	case cudaDevAttrMaxSharedMemoryPerBlockOptin: return smem_optin_bytes(g);
	case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return smem_per_sm_bytes(g);
	case cudaDevAttrMaxSharedMemoryPerBlock: return 48 * 1024;
	case cudaDevAttrMaxThreadsPerBlock: return 1024;
	case cudaDevAttrMaxThreadsPerMultiProcessor: return threads_per_sm(g);
	case cudaDevAttrWarpSize: return 32;
	case cudaDevAttrMaxBlockDimX: return 1024;
	case cudaDevAttrMaxBlockDimY: return 1024;
	case cudaDevAttrMaxBlockDimZ: return 64;
	case cudaDevAttrMaxGridDimX: return 0x7fffffff;
	case cudaDevAttrMaxGridDimY: return 65535;
	case cudaDevAttrMaxGridDimZ: return 65535;
	case cudaDevAttrMaxRegistersPerBlock: return 65536;
	case cudaDevAttrMaxRegistersPerMultiprocessor: return 65536;
	case cudaDevAttrConcurrentManagedAccess: return 1;
	case cudaDevAttrManagedMemory: return 1;
	case cudaDevAttrUnifiedAddressing: return 1;
	case cudaDevAttrCanMapHostMemory: return 1;
	case cudaDevAttrConcurrentKernels: return 1;
	case cudaDevAttrAsyncEngineCount: return 2;
	case cudaDevAttrEccEnabled: return g->geforce ? 0 : 1;
	case cudaDevAttrPciDeviceId: return 0;
	case cudaDevAttrIntegrated: return 0;
	case cudaDevAttrComputeMode: return 0; /* cudaComputeModeDefault */
	case cudaDevAttrKernelExecTimeout: return 0;
	case cudaDevAttrCooperativeLaunch: return 1;
	case cudaDevAttrMemoryPoolsSupported: return 1;
	case cudaDevAttrHostNumaId: return g->numa_node;
	default: *known = false; return 0;
	}
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
	bool known;
	int v;

	if (!value)
		return rt_ret(cudaErrorInvalidValue);
	if (!rt_device_valid(device))
		return rt_ret(cudaErrorInvalidDevice);
	v = attr_value(&gbsim_machine()->gpus[device], attr, &known);
	if (!known) {
		gbsim_log("cudaDeviceGetAttribute: attribute %d is not simulated", (int)attr);
		return rt_ret(cudaErrorInvalidValue);
	}
	*value = v;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
	unsigned domain, bus, dev, fn;

	if (!pciBusId || len <= 0)
		return rt_ret(cudaErrorInvalidValue);
	if (!rt_device_valid(device))
		return rt_ret(cudaErrorInvalidDevice);
	/* the runtime prints a 4-digit domain where NVML prints 8 */
	parse_bus_id(gbsim_machine()->gpus[device].pci_bus_id, &domain, &bus, &dev, &fn);
	snprintf(pciBusId, (size_t)len, "%04x:%02x:%02x.%x", domain, bus, dev, fn);
	return cudaSuccess;
}

/* ---- peer access ---- */

bool rt_peer_enabled(int from, int to)
{
	bool on;

	if (from == to)
		return true;
	if (from < 0 || to < 0 || from >= GBSIM_MAX_GPUS || to >= GBSIM_MAX_GPUS)
		return false;
	pthread_mutex_lock(&rt_table_lock);
	on = peer_on[from][to];
	pthread_mutex_unlock(&rt_table_lock);
	return on;
}

void rt_reset_peers(int device)
{
	pthread_mutex_lock(&rt_table_lock);
	for (int i = 0; i < GBSIM_MAX_GPUS; i++)
		peer_on[device][i] = false;
	pthread_mutex_unlock(&rt_table_lock);
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
	if (!canAccessPeer)
		return rt_ret(cudaErrorInvalidValue);
	if (!rt_device_valid(device) || !rt_device_valid(peerDevice))
		return rt_ret(cudaErrorInvalidDevice);
	*canAccessPeer = device != peerDevice && gbsim_machine()->p2p[device][peerDevice];
	return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
	int dev = current_device;
	cudaError_t e = cudaSuccess;

	if (flags != 0)
		return rt_ret(cudaErrorInvalidValue);
	if (!rt_device_valid(peerDevice) || peerDevice == dev)
		return rt_ret(cudaErrorInvalidDevice);
	if ((e = rt_sticky(dev)) != cudaSuccess)
		return rt_ret(e);
	if (!gbsim_machine()->p2p[dev][peerDevice]) {
		gbsim_log("cudaDeviceEnablePeerAccess: the machine file allows no peer access from "
			  "GPU %d to GPU %d", dev, peerDevice);
		return rt_ret(cudaErrorPeerAccessUnsupported);
	}
	pthread_mutex_lock(&rt_table_lock);
	if (peer_on[dev][peerDevice])
		e = cudaErrorPeerAccessAlreadyEnabled;
	peer_on[dev][peerDevice] = true;
	pthread_mutex_unlock(&rt_table_lock);
	return rt_ret(e);
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
	int dev = current_device;
	cudaError_t e = cudaSuccess;

	if (!rt_device_valid(peerDevice) || peerDevice == dev)
		return rt_ret(cudaErrorInvalidDevice);
	pthread_mutex_lock(&rt_table_lock);
	if (!peer_on[dev][peerDevice])
		e = cudaErrorPeerAccessNotEnabled;
	peer_on[dev][peerDevice] = false;
	pthread_mutex_unlock(&rt_table_lock);
	return rt_ret(e);
}

/* ---- reset ---- */

/* Everything the current device's context held goes; its sticky error too. */
cudaError_t cudaDeviceReset(void)
{
	int dev = current_device;

	rt_device_sync(dev);
	rt_streams_reset(dev);
	rt_events_reset(dev);
	rt_memory_reset(dev);
	rt_reset_peers(dev);
	rt_clear_sticky(dev);
	return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
	int dev = current_device;
	cudaError_t e;

	rt_device_sync(dev);
	e = rt_sticky(dev);
	return rt_ret(e);
}
