/* SPDX-License-Identifier: MIT */
/*
 * fake_nvml.c - a stand-in libnvidia-ml.so.1 for unit tests.
 *
 * Two H100 SXM GPUs, 00000000:65:00.0 and 00000000:B3:00.0, joined by 18
 * NVLink 4 links and on different sockets. GPU 1's PCIe link is downtrained
 * (gen 4 x8 of gen 5 x16). Only the entry points bench/nvml.c resolves are
 * exported, under their versioned names (nvml.h #defines the plain ones).
 *
 * Answers are scripted with environment variables, read at nvmlInit_v2:
 *   FAKE_NVML_FAIL_INIT=1    nvmlInit_v2 answers NVML_ERROR_DRIVER_NOT_LOADED
 *   FAKE_NVML_MISSING=a,b    these entry points answer NVML_ERROR_NOT_SUPPORTED
 *   FAKE_NVML_FAIL=a,b       these entry points answer NVML_ERROR_UNKNOWN (a
 *                            driver that cannot tell, as opposed to a GPU
 *                            without the feature)
 *   FAKE_NVML_SLOT_GEN=4     the system's maximum PCIe generation (the slot);
 *                            the GPUs' own stays 5
 *   FAKE_NVML_TEMP_C=45      GPU temperature
 *   FAKE_NVML_POWER_W=300    power draw
 *   FAKE_NVML_REASONS=0      clocks-event reasons, hex
 *   FAKE_NVML_ECC_DBE=0      volatile uncorrected ECC count grows by this much
 *                            on each call after a device's first (which is 0)
 *   FAKE_NVML_VIOL_POWER_NS=0, FAKE_NVML_VIOL_THERMAL_NS=0
 *                            nvmlDeviceGetViolationStatus: the power and
 *                            thermal counters grow by this many ns on each
 *                            call after a device's first (which is 0)
 *   FAKE_NVML_ABSENT=a,b     these entry points answer
 *                            NVML_ERROR_FUNCTION_NOT_FOUND, which is what
 *                            bench/nvml.c answers for a symbol the library
 *                            does not export (an older driver)
 *   FAKE_NVML_XIDS=79,48:1   XIDs nvmlEventSetWait_v2 delivers one by one,
 *                            ":N" naming the GPU (default 0); then TIMEOUT
 *   FAKE_NVML_NVSWITCH=1     the NVLinks end at an NVSwitch, as on HGX
 *   FAKE_NVML_NVLINK_DOWN=1  every NVLink reads inactive (a GPU seen alone)
 *
 * fake_nvml_refcount() and fake_nvml_live_event_sets() let a test check
 * that nvmlShutdown and nvmlEventSetFree were called;
 * fake_nvml_nvlink_state_calls() counts nvmlDeviceGetNvLinkState calls since
 * nvmlInit_v2 (the NVLink census is read once per device).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvml.h>

#define FAKE_GPUS 2
#define FAKE_LINKS 18
#define FAKE_MAX_XIDS 64

struct nvmlDevice_st {
	unsigned index;
};

struct nvmlEventSet_st {
	unsigned registered; /* bit i: GPU i registered for XIDs */
};

static struct nvmlDevice_st fake_devs[FAKE_GPUS] = { { 0 }, { 1 } };
static const unsigned fake_bus[FAKE_GPUS] = { 0x65, 0xB3 };
static const unsigned fake_switch_bus = 0x07;

static struct {
	int refcount;
	int live_sets;
	unsigned temp_c;
	unsigned power_w;
	unsigned long long reasons;
	unsigned long long dbe_step;
	unsigned long long dbe_calls[FAKE_GPUS];
	unsigned long long viol_step[2];            /* power, thermal */
	unsigned long long viol_calls[2][FAKE_GPUS];
	unsigned long long xid[FAKE_MAX_XIDS];
	unsigned xid_gpu[FAKE_MAX_XIDS];
	size_t n_xids, next_xid;
	int nvswitch;
	int nvlink_down;
	unsigned slot_gen;
	unsigned long nvlink_state_calls;
	char missing[1024];
	char failing[1024];
	char absent[1024];
} fake;

int fake_nvml_refcount(void);
int fake_nvml_live_event_sets(void);
unsigned long fake_nvml_nvlink_state_calls(void);

unsigned long fake_nvml_nvlink_state_calls(void)
{
	return fake.nvlink_state_calls;
}

int fake_nvml_refcount(void)
{
	return fake.refcount;
}

int fake_nvml_live_event_sets(void)
{
	return fake.live_sets;
}

static unsigned long long env_num(const char *name, unsigned long long def, int base)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, base) : def;
}

static void parse_xids(const char *s)
{
	char *end;

	fake.n_xids = fake.next_xid = 0;
	while (s && *s && fake.n_xids < FAKE_MAX_XIDS) {
		fake.xid[fake.n_xids] = strtoull(s, &end, 10);
		fake.xid_gpu[fake.n_xids] = 0;
		if (end == s)
			break;
		if (*end == ':')
			fake.xid_gpu[fake.n_xids] =
				(unsigned)strtoul(end + 1, &end, 10) % FAKE_GPUS;
		fake.n_xids++;
		s = *end == ',' ? end + 1 : end;
	}
}

static void read_env(void)
{
	const char *m = getenv("FAKE_NVML_MISSING");
	const char *f = getenv("FAKE_NVML_FAIL");
	const char *a = getenv("FAKE_NVML_ABSENT");

	fake.temp_c = (unsigned)env_num("FAKE_NVML_TEMP_C", 45, 10);
	fake.power_w = (unsigned)env_num("FAKE_NVML_POWER_W", 300, 10);
	fake.reasons = env_num("FAKE_NVML_REASONS", 0, 16);
	fake.dbe_step = env_num("FAKE_NVML_ECC_DBE", 0, 10);
	fake.nvswitch = (int)env_num("FAKE_NVML_NVSWITCH", 0, 10);
	fake.nvlink_down = (int)env_num("FAKE_NVML_NVLINK_DOWN", 0, 10);
	memset(fake.dbe_calls, 0, sizeof(fake.dbe_calls));
	fake.viol_step[0] = env_num("FAKE_NVML_VIOL_POWER_NS", 0, 10);
	fake.viol_step[1] = env_num("FAKE_NVML_VIOL_THERMAL_NS", 0, 10);
	memset(fake.viol_calls, 0, sizeof(fake.viol_calls));
	fake.slot_gen = (unsigned)env_num("FAKE_NVML_SLOT_GEN", 5, 10);
	fake.nvlink_state_calls = 0;
	snprintf(fake.missing, sizeof(fake.missing), "%s", m ? m : "");
	snprintf(fake.failing, sizeof(fake.failing), "%s", f ? f : "");
	snprintf(fake.absent, sizeof(fake.absent), "%s", a ? a : "");
	parse_xids(getenv("FAKE_NVML_XIDS"));
}

static int in_list(const char *list, const char *fn)
{
	size_t n = strlen(fn);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, fn, n))
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int valid(nvmlDevice_t d)
{
	return d == &fake_devs[0] || d == &fake_devs[1];
}

/* Every device entry point starts here: initialised, scripted-missing, valid device. */
#define ENTER()                                          \
	do {                                             \
		if (!fake.refcount)                      \
			return NVML_ERROR_UNINITIALIZED; \
		if (in_list(fake.missing, __func__))     \
			return NVML_ERROR_NOT_SUPPORTED; \
		if (in_list(fake.failing, __func__))     \
			return NVML_ERROR_UNKNOWN;       \
		if (in_list(fake.absent, __func__))      \
			return NVML_ERROR_FUNCTION_NOT_FOUND; \
	} while (0)
#define ENTER_DEV(d)                                      \
	do {                                              \
		ENTER();                                  \
		if (!valid(d))                            \
			return NVML_ERROR_INVALID_ARGUMENT; \
	} while (0)

static nvmlReturn_t copy_str(char *dst, unsigned len, const char *src)
{
	if (!dst)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(src) + 1 > len)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(dst, src, strlen(src) + 1);
	return NVML_SUCCESS;
}

static void fill_pci(nvmlPciInfo_t *pci, unsigned bus)
{
	memset(pci, 0, sizeof(*pci));
	pci->domain = 0;
	pci->bus = bus;
	pci->device = 0;
	pci->pciDeviceId = 0x233010de;
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "0000:%02X:00.0", bus);
	snprintf(pci->busId, sizeof(pci->busId), "00000000:%02X:00.0", bus);
}

/* ---- library ---- */

nvmlReturn_t nvmlInit_v2(void)
{
	if (env_num("FAKE_NVML_FAIL_INIT", 0, 10))
		return NVML_ERROR_DRIVER_NOT_LOADED;
	read_env();
	fake.refcount++;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void)
{
	if (!fake.refcount)
		return NVML_ERROR_UNINITIALIZED;
	fake.refcount--;
	return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t result)
{
	switch (result) {
	case NVML_SUCCESS:
		return "Success";
	case NVML_ERROR_UNINITIALIZED:
		return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT:
		return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	case NVML_ERROR_NOT_FOUND:
		return "Not Found";
	case NVML_ERROR_INSUFFICIENT_SIZE:
		return "Insufficient Size";
	case NVML_ERROR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	case NVML_ERROR_TIMEOUT:
		return "Timeout";
	default:
		return "Unknown Error";
	}
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	ENTER();
	return copy_str(version, length, "580.65.06");
}

/* ---- enumeration ---- */

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	ENTER();
	*deviceCount = FAKE_GPUS;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	ENTER();
	if (index >= FAKE_GPUS)
		return NVML_ERROR_INVALID_ARGUMENT;
	*device = &fake_devs[index];
	return NVML_SUCCESS;
}

/* Accepts what real NVML does: domain:bus:device.function in hex, any case. */
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
	unsigned dom, bus, dev, fn;

	ENTER();
	if (!pciBusId || sscanf(pciBusId, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (unsigned i = 0; i < FAKE_GPUS; i++) {
		if (dom == 0 && bus == fake_bus[i] && dev == 0 && fn == 0) {
			*device = &fake_devs[i];
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	ENTER_DEV(device);
	fill_pci(pci, fake_bus[device->index]);
	return NVML_SUCCESS;
}

/* ---- identity ---- */

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
	char buf[64];

	ENTER_DEV(device);
	snprintf(buf, sizeof(buf), "GPU-fake-%04u-0000-0000-0000-000000000000", device->index);
	return copy_str(uuid, length, buf);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	ENTER_DEV(device);
	return copy_str(name, length, "NVIDIA H100 80GB HBM3");
}

nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type)
{
	ENTER_DEV(device);
	*type = NVML_BRAND_NVIDIA;
	return NVML_SUCCESS;
}

/* ---- clocks, memory, PCIe, power, ECC (the NUMA node comes from sysfs) ---- */

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type,
				       unsigned int *clock)
{
	ENTER_DEV(device);
	if (type == NVML_CLOCK_SM)
		*clock = 1980;
	else if (type == NVML_CLOCK_MEM)
		*clock = 2619;
	else
		return NVML_ERROR_NOT_SUPPORTED;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
	ENTER_DEV(device);
	if (type == NVML_CLOCK_SM)
		*clock = 1755;
	else if (type == NVML_CLOCK_MEM)
		*clock = 2619;
	else
		return NVML_ERROR_NOT_SUPPORTED;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t device, unsigned int *busWidth)
{
	ENTER_DEV(device);
	*busWidth = 5120;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen)
{
	ENTER_DEV(device);
	*currLinkGen = device->index == 0 ? 5 : 4;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth)
{
	ENTER_DEV(device);
	*currLinkWidth = device->index == 0 ? 16 : 8;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen)
{
	ENTER_DEV(device);
	*maxLinkGen = fake.slot_gen;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device,
						   unsigned int *maxLinkGenDevice)
{
	ENTER_DEV(device);
	*maxLinkGenDevice = 5;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth)
{
	ENTER_DEV(device);
	*maxLinkWidth = 16;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
	ENTER_DEV(device);
	*limit = 700000;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current,
				  nvmlEnableState_t *pending)
{
	ENTER_DEV(device);
	*current = *pending = NVML_FEATURE_ENABLED;
	return NVML_SUCCESS;
}

/* ---- NVLink and topology ---- */

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
				      nvmlEnableState_t *isActive)
{
	fake.nvlink_state_calls++;
	ENTER_DEV(device);
	if (link >= FAKE_LINKS)
		return NVML_ERROR_INVALID_ARGUMENT;
	*isActive = fake.nvlink_down ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link,
					unsigned int *version)
{
	ENTER_DEV(device);
	if (link >= FAKE_LINKS)
		return NVML_ERROR_INVALID_ARGUMENT;
	/* an nvmlNvlinkVersion_t, as real drivers answer: 6 is NVLink 4.0 */
	*version = NVML_NVLINK_VERSION_4_0;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
						 nvmlPciInfo_t *pci)
{
	ENTER_DEV(device);
	if (link >= FAKE_LINKS)
		return NVML_ERROR_INVALID_ARGUMENT;
	fill_pci(pci, fake.nvswitch ? fake_switch_bus : fake_bus[1 - device->index]);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
						 nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType)
{
	ENTER_DEV(device);
	if (link >= FAKE_LINKS)
		return NVML_ERROR_INVALID_ARGUMENT;
	*pNvLinkDeviceType =
		fake.nvswitch ? NVML_NVLINK_DEVICE_TYPE_SWITCH : NVML_NVLINK_DEVICE_TYPE_GPU;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2,
						 nvmlGpuTopologyLevel_t *pathInfo)
{
	ENTER_DEV(device1);
	if (!valid(device2) || device1 == device2)
		return NVML_ERROR_INVALID_ARGUMENT;
	*pathInfo = NVML_TOPOLOGY_SYSTEM;
	return NVML_SUCCESS;
}

/* ---- telemetry ---- */

nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_t *temperature)
{
	ENTER_DEV(device);
	if (temperature->version != nvmlTemperature_v1)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if (temperature->sensorType != NVML_TEMPERATURE_GPU)
		return NVML_ERROR_INVALID_ARGUMENT;
	temperature->temperature = (int)fake.temp_c;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType,
				      unsigned int *temp)
{
	ENTER_DEV(device);
	if (sensorType != NVML_TEMPERATURE_GPU)
		return NVML_ERROR_INVALID_ARGUMENT;
	*temp = fake.temp_c;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
	ENTER_DEV(device);
	*power = fake.power_w * 1000;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
	ENTER_DEV(device);
	utilization->gpu = 97;
	utilization->memory = 60;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	ENTER_DEV(device);
	memory->total = 85520809984ULL; /* 81559 MiB, an H100 80GB */
	memory->used = 536870912ULL;
	memory->free = memory->total - memory->used;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device,
						    unsigned long long *clocksEventReasons)
{
	ENTER_DEV(device);
	*clocksEventReasons = fake.reasons;
	return NVML_SUCCESS;
}

/* Power and thermal counters that grow by their step on each call; other policies 0. */
nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType,
					  nvmlViolationTime_t *violTime)
{
	unsigned k;

	ENTER_DEV(device);
	if (!violTime || perfPolicyType >= NVML_PERF_POLICY_COUNT)
		return NVML_ERROR_INVALID_ARGUMENT;
	violTime->referenceTime = 0;
	violTime->violationTime = 0;
	if (perfPolicyType != NVML_PERF_POLICY_POWER && perfPolicyType != NVML_PERF_POLICY_THERMAL)
		return NVML_SUCCESS;
	k = perfPolicyType == NVML_PERF_POLICY_POWER ? 0 : 1;
	violTime->violationTime = fake.viol_step[k] * fake.viol_calls[k][device->index]++;
	return NVML_SUCCESS;
}

/* ---- health ---- */

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
					 nvmlEccCounterType_t counterType,
					 unsigned long long *eccCounts)
{
	ENTER_DEV(device);
	if (errorType == NVML_MEMORY_ERROR_TYPE_UNCORRECTED && counterType == NVML_VOLATILE_ECC)
		*eccCounts = fake.dbe_step * fake.dbe_calls[device->index]++;
	else
		*eccCounts = 0;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
				       unsigned int *pageCount, unsigned long long *addresses)
{
	(void)addresses;
	ENTER_DEV(device);
	if (!pageCount || cause >= NVML_PAGE_RETIREMENT_CAUSE_COUNT)
		return NVML_ERROR_INVALID_ARGUMENT;
	*pageCount = 0;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device,
						    nvmlEnableState_t *isPending)
{
	ENTER_DEV(device);
	*isPending = NVML_FEATURE_DISABLED;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows,
				       unsigned int *uncRows, unsigned int *isPending,
				       unsigned int *failureOccurred)
{
	ENTER_DEV(device);
	*corrRows = *uncRows = *isPending = *failureOccurred = 0;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value)
{
	ENTER_DEV(device);
	*value = 0;
	return NVML_SUCCESS;
}

/* Hopper no longer counts data CRC errors, so that counter is unsupported. */
nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link,
					     nvmlNvLinkErrorCounter_t counter,
					     unsigned long long *counterValue)
{
	ENTER_DEV(device);
	if (link >= FAKE_LINKS)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (counter == NVML_NVLINK_ERROR_DL_CRC_DATA)
		return NVML_ERROR_NOT_SUPPORTED;
	*counterValue = 0;
	return NVML_SUCCESS;
}

/* ---- events ---- */

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
	ENTER();
	*set = calloc(1, sizeof(**set));
	if (!*set)
		return NVML_ERROR_MEMORY;
	fake.live_sets++;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
				      nvmlEventSet_t set)
{
	ENTER_DEV(device);
	if (!set)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!(eventTypes & nvmlEventTypeXidCriticalError))
		return NVML_ERROR_NOT_SUPPORTED;
	set->registered |= 1u << device->index;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
	(void)timeoutms; /* a test never waits */
	ENTER();
	if (!set || !data)
		return NVML_ERROR_INVALID_ARGUMENT;
	while (fake.next_xid < fake.n_xids) {
		size_t i = fake.next_xid++;

		if (!(set->registered & (1u << fake.xid_gpu[i])))
			continue;
		memset(data, 0, sizeof(*data));
		data->device = &fake_devs[fake.xid_gpu[i]];
		data->eventType = nvmlEventTypeXidCriticalError;
		data->eventData = fake.xid[i];
		data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu;
		return NVML_SUCCESS;
	}
	return NVML_ERROR_TIMEOUT;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
	ENTER();
	if (!set)
		return NVML_ERROR_INVALID_ARGUMENT;
	free(set);
	fake.live_sets--;
	return NVML_SUCCESS;
}
