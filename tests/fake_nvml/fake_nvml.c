/* SPDX-License-Identifier: MIT */
/*
 * fake_nvml.c - a stand-in libnvidia-ml.so.1 for unit tests and for the
 * simulated GPU (tests/sim/, docs/simulation.md).
 *
 * Two modes, chosen at nvmlInit_v2:
 *
 * The simulated machine: when GPUBENCH_SIM_MACHINE names a machine file, or
 * when this library runs inside gpubench-sim (the fake CUDA runtime's
 * gbsim_report_label is in the process, so the build's default machine
 * applies), every answer comes from that machine (tests/sim/machine.c), the
 * same description the fake CUDA runtime and NCCL read: count, names, UUIDs,
 * PCI bus ids, memory, clocks, PCIe links, NVLinks, power limit. Telemetry is
 * steady (45 C, 60% of the power limit, no clock-event reasons, ECC zero)
 * unless a fault of the machine file says otherwise: NVML honours
 * thermal_throttle, power_brake (hw_slowdown and hw_power_brake, lower SM
 * clock), pcie_degraded, nvlink_down, xid (one event of Xid `value`, 79 by
 * default, per GPU), ecc_dbe (the volatile uncorrected count reads `value`,
 * 1 by default) and row_remap_pending (a pending remap, one uncorrectable
 * row) when they hold from the start or from `after_s` simulated seconds
 * (the runtime's gbsim_now_s, found with dlsym; without the runtime,
 * seconds since nvmlInit). Faults
 * triggered by launches or allocations are the runtime's: NVML cannot count
 * those and ignores them.
 *
 * The scripted pair (otherwise, as unit tests use it): two H100 SXM GPUs,
 * 00000000:65:00.0 and 00000000:B3:00.0, joined by 18 NVLink 4 links and on
 * different sockets. GPU 1's PCIe link is downtrained (gen 4 x8 of gen 5 x16).
 *
 * Only the entry points bench/device/nvml.c resolves are exported, under their
 * versioned names (nvml.h #defines the plain ones).
 *
 * In both modes answers are scripted with environment variables, read at
 * nvmlInit_v2 (in the simulated machine the ones marked * apply only when set):
 *   FAKE_NVML_FAIL_INIT=1    nvmlInit_v2 answers NVML_ERROR_DRIVER_NOT_LOADED
 *   FAKE_NVML_MISSING=a,b    these entry points answer NVML_ERROR_NOT_SUPPORTED
 *   FAKE_NVML_FAIL=a,b       these entry points answer NVML_ERROR_UNKNOWN (a
 *                            driver that cannot tell, as opposed to a GPU
 *                            without the feature)
 *   FAKE_NVML_SLOT_GEN=4     the system's maximum PCIe generation (the slot);
 *                            the GPUs' own stays 5 (scripted pair only)
 *   FAKE_NVML_TEMP_C=45      GPU temperature *
 *   FAKE_NVML_POWER_W=300    power draw *, as nvmlDeviceGetPowerUsage answers
 *                            it (a one-second average on Ampere and newer)
 *   FAKE_NVML_POWER_INSTANT_W=N  the instantaneous power, field
 *                            NVML_FI_DEV_POWER_INSTANT of nvmlDeviceGetFieldValues
 *                            (default: as FAKE_NVML_POWER_W) *
 *   FAKE_NVML_NO_POWER_INSTANT=1  a driver without that field: the entry
 *                            point answers, the field NVML_ERROR_NOT_SUPPORTED
 *                            (FAKE_NVML_ABSENT=nvmlDeviceGetFieldValues: an
 *                            older driver without the entry point at all)
 *   FAKE_NVML_CC=9.0         nvmlDeviceGetCudaComputeCapability (scripted
 *                            pair; the simulated machine's is its model's)
 *   FAKE_NVML_NVLINK_VERSION=6  nvmlDeviceGetNvLinkVersion's raw answer
 *                            (scripted pair): an nvmlNvlinkVersion_t as real
 *                            drivers give it, or a number of another convention
 *   FAKE_NVML_REASONS=0      clocks-event reasons, hex
 *   FAKE_NVML_ECC_DBE=0      volatile uncorrected ECC count grows by this much
 *                            on each call after a device's first (which is 0)
 *   FAKE_NVML_VIOL_POWER_NS=0, FAKE_NVML_VIOL_THERMAL_NS=0
 *                            nvmlDeviceGetViolationStatus: the power and
 *                            thermal counters grow by this many ns on each
 *                            call after a device's first (which is 0)
 *   FAKE_NVML_ABSENT=a,b     these entry points answer
 *                            NVML_ERROR_FUNCTION_NOT_FOUND, which is what
 *                            bench/device/nvml.c answers for a symbol the library
 *                            does not export (an older driver)
 *   FAKE_NVML_XIDS=79,48:1   XIDs nvmlEventSetWait_v2 delivers one by one,
 *                            ":N" naming the GPU (default 0); then TIMEOUT
 *   FAKE_NVML_NVSWITCH=1     the NVLinks end at an NVSwitch, as on HGX
 *                            (scripted pair only; a machine file says it)
 *   FAKE_NVML_NVLINK_DOWN=1  every NVLink reads inactive (a GPU seen alone)
 *
 * fake_nvml_refcount() and fake_nvml_live_event_sets() let a test check
 * that nvmlShutdown and nvmlEventSetFree were called;
 * fake_nvml_nvlink_state_calls() counts nvmlDeviceGetNvLinkState calls since
 * nvmlInit_v2 (the NVLink census is read once per device).
 */
#include "report/theory.h"
#include "tests/sim/sim.h"

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nvml.h>

#define FAKE_GPUS 2               /* the scripted pair */
#define FAKE_LINKS 18
#define FAKE_MAX_XIDS 64
#define FAKE_MAX_GPUS GBSIM_MAX_GPUS
#define SIM_TEMP_C 45             /* a GPU under load with good cooling */
#define SIM_HOT_TEMP_C 88         /* where thermal slowdown sets in */
#define SIM_POWER_FRACTION 0.6    /* of the power limit: busy, not capped */
#define SIM_THROTTLE_FRACTION 0.7 /* SM clock under thermal slowdown, unless given */
#define SIM_VIOL_STEP_NS 100000000ULL /* thermal violation time per call while throttled */
#define SIM_XID_DEFAULT 79        /* fallen off the bus, when an xid fault gives no value */
#define SIM_SWITCH_BUS 0x07       /* where NVSwitch links end */

struct nvmlDevice_st {
	unsigned index;
};

struct nvmlEventSet_st {
	unsigned registered; /* bit i: GPU i registered for XIDs */
};

static struct nvmlDevice_st fake_devs[FAKE_MAX_GPUS] = { { 0 }, { 1 }, { 2 }, { 3 },
							  { 4 }, { 5 }, { 6 }, { 7 } };
static const unsigned fake_bus[FAKE_GPUS] = { 0x65, 0xB3 };
static const unsigned fake_switch_bus = SIM_SWITCH_BUS;

static struct {
	const struct gbsim_machine *sim; /* NULL: the scripted pair */
	unsigned count;                  /* devices */
	int temp_set, power_set;         /* FAKE_NVML_TEMP_C / _POWER_W given */
	int instant_set;                 /* FAKE_NVML_POWER_INSTANT_W given */
	int no_power_instant;            /* FAKE_NVML_NO_POWER_INSTANT */
	unsigned power_instant_w;
	int cc_major, cc_minor;          /* FAKE_NVML_CC */
	unsigned nvlink_version;         /* FAKE_NVML_NVLINK_VERSION */
	double t0_s;                     /* CLOCK_MONOTONIC at nvmlInit, for after_s without the runtime */
	int refcount;
	int live_sets;
	unsigned temp_c;
	unsigned power_w;
	unsigned long long reasons;
	unsigned long long dbe_step;
	unsigned long long dbe_calls[FAKE_MAX_GPUS];
	unsigned long long viol_step[2];            /* power, thermal */
	unsigned long long viol_calls[2][FAKE_MAX_GPUS];
	unsigned long long xid[FAKE_MAX_XIDS];
	unsigned xid_gpu[FAKE_MAX_XIDS];
	size_t n_xids, next_xid;
	unsigned xid_fault_sent[GBSIM_MAX_FAULTS]; /* bit i: that xid fault reached GPU i */
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
				(unsigned)strtoul(end + 1, &end, 10) % fake.count;
		fake.n_xids++;
		s = *end == ',' ? end + 1 : end;
	}
}

/* "8.6" into the scripted compute capability; an H100's 9.0 by default */
static void read_cc(const char *s)
{
	fake.cc_major = 9;
	fake.cc_minor = 0;
	if (s && *s && sscanf(s, "%d.%d", &fake.cc_major, &fake.cc_minor) != 2)
		fake.cc_major = fake.cc_minor = -1;
}

static void read_env(void)
{
	const char *m = getenv("FAKE_NVML_MISSING");
	const char *f = getenv("FAKE_NVML_FAIL");
	const char *a = getenv("FAKE_NVML_ABSENT");

	fake.temp_c = (unsigned)env_num("FAKE_NVML_TEMP_C", 45, 10);
	fake.power_w = (unsigned)env_num("FAKE_NVML_POWER_W", 300, 10);
	fake.temp_set = getenv("FAKE_NVML_TEMP_C") && *getenv("FAKE_NVML_TEMP_C");
	fake.power_set = getenv("FAKE_NVML_POWER_W") && *getenv("FAKE_NVML_POWER_W");
	fake.reasons = env_num("FAKE_NVML_REASONS", 0, 16);
	fake.instant_set = getenv("FAKE_NVML_POWER_INSTANT_W") &&
			   *getenv("FAKE_NVML_POWER_INSTANT_W");
	fake.power_instant_w = (unsigned)env_num("FAKE_NVML_POWER_INSTANT_W", fake.power_w, 10);
	fake.no_power_instant = (int)env_num("FAKE_NVML_NO_POWER_INSTANT", 0, 10);
	read_cc(getenv("FAKE_NVML_CC"));
	fake.nvlink_version =
		(unsigned)env_num("FAKE_NVML_NVLINK_VERSION", NVML_NVLINK_VERSION_4_0, 10);
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
	return d && d >= &fake_devs[0] && d < &fake_devs[fake.count];
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

/* id: domain, bus, device, function */
static void fill_pci_id(nvmlPciInfo_t *pci, const unsigned id[4])
{
	memset(pci, 0, sizeof(*pci));
	pci->domain = id[0];
	pci->bus = id[1];
	pci->device = id[2];
	/* the H100's device id for the scripted pair; NVIDIA's vendor id alone
	 * for a simulated GPU, whose model has no device id in the catalog */
	pci->pciDeviceId = fake.sim ? 0x000010de : 0x233010de;
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.%X", id[0] & 0xffff,
		 id[1], id[2], id[3]);
	snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.%X", id[0], id[1], id[2], id[3]);
}

static void fill_pci(nvmlPciInfo_t *pci, unsigned bus)
{
	const unsigned id[4] = { 0, bus, 0, 0 };

	fill_pci_id(pci, id);
}

/* ---- the simulated machine ---- */

#define SIM_LINK_UNUSED (-1) /* a link the GPU has that leads nowhere */
#define SIM_LINK_SWITCH (-2) /* a link to an NVSwitch */

/*
 * The machine when this process simulates one: GPUBENCH_SIM_MACHINE names it,
 * or the fake CUDA runtime is loaded (its default machine then applies).
 * gbsim_machine() ends the process with exit 2 on a bad file, as the runtime
 * does, so NVML and CUDA never disagree about whether there is a machine.
 */
static const struct gbsim_machine *sim_machine(void)
{
	const char *path = getenv("GPUBENCH_SIM_MACHINE");

	if ((path && *path) || dlsym(RTLD_DEFAULT, "gbsim_report_label"))
		return gbsim_machine();
	return NULL;
}

static double monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Simulated seconds: the runtime's clock when it is loaded, else since nvmlInit. */
static double sim_now_s(void)
{
	double (*now)(void);

	*(void **)(&now) = dlsym(RTLD_DEFAULT, "gbsim_now_s");
	return now ? now() : monotonic_s() - fake.t0_s;
}

/* A fault holds from the start, or from after_s; launch and allocation counts are the runtime's. */
static bool fault_holds(const struct gbsim_fault *f)
{
	if (f->after_launches >= 0 || f->after_allocs >= 0)
		return false;
	return f->after_s < 0 || sim_now_s() >= f->after_s;
}

/* The first fault of kind that holds now on GPU index; NULL if none. */
static const struct gbsim_fault *sim_fault(enum gbsim_fault_kind kind, unsigned index)
{
	for (int i = 0; fake.sim && i < fake.sim->fault_count; i++) {
		const struct gbsim_fault *f = &fake.sim->faults[i];

		if (f->kind == kind && (f->gpu < 0 || (unsigned)f->gpu == index) && fault_holds(f))
			return f;
	}
	return NULL;
}

/*
 * nvlink_down on the link from GPU a to far end b (a GPU or the switch): a
 * fault on every GPU, on a with no peer or with b as its peer, or on b
 * toward a (a link is down at both ends).
 */
static bool sim_link_down(unsigned a, int b)
{
	for (int i = 0; fake.sim && i < fake.sim->fault_count; i++) {
		const struct gbsim_fault *f = &fake.sim->faults[i];
		bool hit = f->gpu < 0 ||
			   ((unsigned)f->gpu == a && (f->peer < 0 || b < 0 || f->peer == b)) ||
			   (b >= 0 && f->gpu == b && (f->peer < 0 || (unsigned)f->peer == a));

		if (f->kind == GBSIM_FAULT_NVLINK_DOWN && hit && fault_holds(f))
			return true;
	}
	return false;
}

static const struct gbsim_gpu *sim_gpu(nvmlDevice_t d)
{
	return fake.sim ? &fake.sim->gpus[d->index] : NULL;
}

/* The catalog's links per GPU of this model (0: none listed). */
static int sim_own_links(unsigned i)
{
	return fake.sim->gpus[i].model_nvlink_links;
}

static void sim_pair_links(unsigned i, int *total, int *most)
{
	*total = *most = 0;
	for (int j = 0; j < fake.sim->gpu_count; j++) {
		*total += fake.sim->nvlinks[i][j];
		if (fake.sim->nvlinks[i][j] > *most)
			*most = fake.sim->nvlinks[i][j];
	}
}

/*
 * Pair counts that add up to more links than the GPU has can only be an
 * NVSwitch fabric (every pair of an HGX board has all 18): its links then
 * end at the switch, as a real HGX reports them.
 */
static bool sim_switched(unsigned i)
{
	int total, most, own = sim_own_links(i);

	sim_pair_links(i, &total, &most);
	return total > (own > 0 ? own : NVML_NVLINK_MAX_LINKS);
}

/* Links GPU i has: its model's, or as many as the file connects (no catalog count). */
static unsigned sim_link_count(unsigned i)
{
	int total, most, n, own = sim_own_links(i);

	sim_pair_links(i, &total, &most);
	n = sim_switched(i) ? most : total;
	if (own > n)
		n = own;
	return n > NVML_NVLINK_MAX_LINKS ? NVML_NVLINK_MAX_LINKS : (unsigned)n;
}

/* Far end of link l of GPU i: a GPU index, SIM_LINK_SWITCH or SIM_LINK_UNUSED. */
static int sim_link_end(unsigned i, unsigned l)
{
	int total, most, acc = 0;

	sim_pair_links(i, &total, &most);
	if (sim_switched(i))
		return (int)l < most ? SIM_LINK_SWITCH : SIM_LINK_UNUSED;
	for (int j = 0; j < fake.sim->gpu_count; j++) {
		acc += fake.sim->nvlinks[i][j];
		if ((int)l < acc)
			return j;
	}
	return SIM_LINK_UNUSED;
}

/* domain, bus, device, function of device i */
static void dev_pci_id(unsigned i, unsigned id[4])
{
	id[0] = 0;
	id[1] = fake.sim ? 0 : fake_bus[i];
	id[2] = id[3] = 0;
	if (fake.sim)
		sscanf(fake.sim->gpus[i].pci_bus_id, "%x:%x:%x.%x", &id[0], &id[1], &id[2],
		       &id[3]);
}

/* The trained PCIe width, halved (or the fault's value) while pcie_degraded holds. */
static unsigned sim_pcie_width(unsigned i)
{
	const struct gbsim_fault *f = sim_fault(GBSIM_FAULT_PCIE_DEGRADED, i);
	unsigned width = (unsigned)fake.sim->gpus[i].pcie_width;

	if (!f)
		return width;
	if (f->value > 0 && (unsigned long)f->value < width)
		return (unsigned)f->value;
	return width > 1 ? width / 2 : 1;
}

/* The SM clock now: boost, or throttled while thermal_throttle or power_brake holds. */
static unsigned sim_sm_mhz(unsigned i)
{
	const struct gbsim_fault *f = sim_fault(GBSIM_FAULT_THERMAL_THROTTLE, i);
	unsigned boost = (unsigned)fake.sim->gpus[i].sm_clock_mhz;

	if (!f)
		f = sim_fault(GBSIM_FAULT_POWER_BRAKE, i);
	if (!f)
		return boost;
	if (f->value > 0 && (unsigned long)f->value < boost)
		return (unsigned)f->value;
	return (unsigned)lround(boost * SIM_THROTTLE_FRACTION);
}

/* The volatile uncorrected ECC count: an ecc_dbe fault's value (1 if none) while it holds. */
static unsigned long long sim_ecc_dbe(unsigned i)
{
	const struct gbsim_fault *f = sim_fault(GBSIM_FAULT_ECC_DBE, i);

	if (!f)
		return 0;
	return f->value > 0 ? (unsigned long long)f->value : 1;
}

/*
 * The next Xid of an xid fault that holds, on a GPU the set watches and has
 * not been told yet: a real driver reports an Xid once, as one event.
 */
static bool sim_xid_event(nvmlEventSet_t set, nvmlEventData_t *data)
{
	for (int i = 0; fake.sim && i < fake.sim->fault_count; i++) {
		const struct gbsim_fault *f = &fake.sim->faults[i];

		if (f->kind != GBSIM_FAULT_XID || !fault_holds(f))
			continue;
		for (unsigned g = 0; g < fake.count; g++) {
			unsigned bit = 1u << g;

			if ((f->gpu >= 0 && (unsigned)f->gpu != g) || !(set->registered & bit) ||
			    (fake.xid_fault_sent[i] & bit))
				continue;
			fake.xid_fault_sent[i] |= bit;
			memset(data, 0, sizeof(*data));
			data->device = &fake_devs[g];
			data->eventType = nvmlEventTypeXidCriticalError;
			data->eventData = f->value > 0 ? (unsigned long long)f->value : SIM_XID_DEFAULT;
			data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu;
			return true;
		}
	}
	return false;
}

/* ---- library ---- */

nvmlReturn_t nvmlInit_v2(void)
{
	if (env_num("FAKE_NVML_FAIL_INIT", 0, 10))
		return NVML_ERROR_DRIVER_NOT_LOADED;
	fake.sim = sim_machine();
	fake.count = fake.sim ? (unsigned)fake.sim->gpu_count : FAKE_GPUS;
	fake.t0_s = monotonic_s();
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
	*deviceCount = fake.count;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	ENTER();
	if (index >= fake.count)
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
	for (unsigned i = 0; i < fake.count; i++) {
		unsigned id[4];

		dev_pci_id(i, id);
		if (dom == id[0] && bus == id[1] && dev == id[2] && fn == id[3]) {
			*device = &fake_devs[i];
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	unsigned id[4];

	ENTER_DEV(device);
	dev_pci_id(device->index, id);
	fill_pci_id(pci, id);
	return NVML_SUCCESS;
}

/* ---- identity ---- */

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
	char buf[64];

	ENTER_DEV(device);
	if (fake.sim)
		return copy_str(uuid, length, sim_gpu(device)->uuid);
	snprintf(buf, sizeof(buf), "GPU-fake-%04u-0000-0000-0000-000000000000", device->index);
	return copy_str(uuid, length, buf);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	ENTER_DEV(device);
	return copy_str(name, length, fake.sim ? sim_gpu(device)->name : "NVIDIA H100 80GB HBM3");
}

nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type)
{
	ENTER_DEV(device);
	*type = fake.sim && sim_gpu(device)->geforce ? NVML_BRAND_GEFORCE : NVML_BRAND_NVIDIA;
	return NVML_SUCCESS;
}

/* ---- clocks, memory, PCIe, power, ECC (the NUMA node comes from sysfs) ---- */

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type,
				       unsigned int *clock)
{
	ENTER_DEV(device);
	if (type == NVML_CLOCK_SM)
		*clock = fake.sim ? (unsigned)sim_gpu(device)->sm_clock_mhz : 1980;
	else if (type == NVML_CLOCK_MEM)
		*clock = fake.sim ? (unsigned)sim_gpu(device)->mem_clock_mhz : 2619;
	else
		return NVML_ERROR_NOT_SUPPORTED;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
	ENTER_DEV(device);
	if (type == NVML_CLOCK_SM)
		*clock = fake.sim ? sim_sm_mhz(device->index) : 1755;
	else if (type == NVML_CLOCK_MEM)
		*clock = fake.sim ? (unsigned)sim_gpu(device)->mem_clock_mhz : 2619;
	else
		return NVML_ERROR_NOT_SUPPORTED;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t device, unsigned int *busWidth)
{
	ENTER_DEV(device);
	*busWidth = fake.sim ? (unsigned)sim_gpu(device)->mem_bus_width : 5120;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen)
{
	ENTER_DEV(device);
	if (fake.sim)
		*currLinkGen = (unsigned)sim_gpu(device)->pcie_gen;
	else
		*currLinkGen = device->index == 0 ? 5 : 4;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth)
{
	ENTER_DEV(device);
	if (fake.sim)
		*currLinkWidth = sim_pcie_width(device->index);
	else
		*currLinkWidth = device->index == 0 ? 16 : 8;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen)
{
	ENTER_DEV(device);
	*maxLinkGen = fake.sim ? (unsigned)sim_gpu(device)->pcie_max_gen : fake.slot_gen;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device,
						   unsigned int *maxLinkGenDevice)
{
	ENTER_DEV(device);
	*maxLinkGenDevice = 5;
	/* the card's own generation: a slot of a lower one is what max_gen names */
	if (fake.sim) {
		*maxLinkGenDevice = (unsigned)sim_gpu(device)->pcie_max_gen;
		if ((unsigned)sim_gpu(device)->model_pcie_gen > *maxLinkGenDevice)
			*maxLinkGenDevice = (unsigned)sim_gpu(device)->model_pcie_gen;
	}
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth)
{
	ENTER_DEV(device);
	*maxLinkWidth = fake.sim ? (unsigned)sim_gpu(device)->pcie_max_width : 16;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
	ENTER_DEV(device);
	*limit = fake.sim ? (unsigned)lround(sim_gpu(device)->power_limit_w * 1000) : 700000;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current,
				  nvmlEnableState_t *pending)
{
	ENTER_DEV(device);
	/* GeForce parts ship with ECC off */
	*current = *pending = fake.sim && sim_gpu(device)->geforce ? NVML_FEATURE_DISABLED :
								     NVML_FEATURE_ENABLED;
	return NVML_SUCCESS;
}

/* ---- NVLink and topology ---- */

/* NOT_SUPPORTED for a GPU without NVLink, INVALID_ARGUMENT past its last link. */
static nvmlReturn_t sim_link_check(unsigned i, unsigned link)
{
	unsigned n = sim_link_count(i);

	if (n == 0)
		return NVML_ERROR_NOT_SUPPORTED;
	return link < n ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

static nvmlReturn_t sim_nvlink_state(unsigned i, unsigned link, nvmlEnableState_t *isActive)
{
	nvmlReturn_t rc = sim_link_check(i, link);
	int end;

	if (rc != NVML_SUCCESS)
		return rc;
	end = sim_link_end(i, link);
	*isActive = end != SIM_LINK_UNUSED && !fake.nvlink_down &&
				    !sim_link_down(i, end == SIM_LINK_SWITCH ? -1 : end) ?
			    NVML_FEATURE_ENABLED :
			    NVML_FEATURE_DISABLED;
	return NVML_SUCCESS;
}

/* The machine's generation, or the model's for a GPU whose links connect nothing. */
static nvmlReturn_t sim_nvlink_version(unsigned i, unsigned link, unsigned *version)
{
	static const unsigned by_gen[] = { NVML_NVLINK_VERSION_INVALID, NVML_NVLINK_VERSION_1_0,
					   NVML_NVLINK_VERSION_2_0,	NVML_NVLINK_VERSION_3_0,
					   NVML_NVLINK_VERSION_4_0,	NVML_NVLINK_VERSION_5_0 };
	nvmlReturn_t rc = sim_link_check(i, link);
	int gen = fake.sim->nvlink_gen;

	if (rc != NVML_SUCCESS)
		return rc;
	if (gen <= 0)
		gen = fake.sim->gpus[i].model_nvlink_gen;
	if (gen <= 0 || gen >= (int)(sizeof(by_gen) / sizeof(by_gen[0])))
		return NVML_ERROR_NOT_SUPPORTED;
	*version = by_gen[gen];
	return NVML_SUCCESS;
}

static nvmlReturn_t sim_nvlink_remote(unsigned i, unsigned link, nvmlPciInfo_t *pci,
				      nvmlIntNvLinkDeviceType_t *type)
{
	nvmlReturn_t rc = sim_link_check(i, link);
	unsigned id[4];
	int end;

	if (rc != NVML_SUCCESS)
		return rc;
	end = sim_link_end(i, link);
	if (type)
		*type = end == SIM_LINK_SWITCH ? NVML_NVLINK_DEVICE_TYPE_SWITCH :
			end >= 0	       ? NVML_NVLINK_DEVICE_TYPE_GPU :
						 NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
	if (!pci)
		return NVML_SUCCESS;
	if (end == SIM_LINK_UNUSED)
		return NVML_ERROR_NOT_SUPPORTED;
	if (end == SIM_LINK_SWITCH) {
		fill_pci(pci, fake_switch_bus);
		return NVML_SUCCESS;
	}
	dev_pci_id((unsigned)end, id);
	fill_pci_id(pci, id);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
				      nvmlEnableState_t *isActive)
{
	fake.nvlink_state_calls++;
	ENTER_DEV(device);
	if (fake.sim)
		return sim_nvlink_state(device->index, link, isActive);
	if (link >= FAKE_LINKS)
		return NVML_ERROR_INVALID_ARGUMENT;
	*isActive = fake.nvlink_down ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link,
					unsigned int *version)
{
	ENTER_DEV(device);
	if (fake.sim)
		return sim_nvlink_version(device->index, link, version);
	if (link >= FAKE_LINKS)
		return NVML_ERROR_INVALID_ARGUMENT;
	/* an nvmlNvlinkVersion_t, as real drivers answer: 6 is NVLink 4.0 */
	*version = fake.nvlink_version;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
						 nvmlPciInfo_t *pci)
{
	ENTER_DEV(device);
	if (fake.sim)
		return sim_nvlink_remote(device->index, link, pci, NULL);
	if (link >= FAKE_LINKS)
		return NVML_ERROR_INVALID_ARGUMENT;
	fill_pci(pci, fake.nvswitch ? fake_switch_bus : fake_bus[1 - device->index]);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
						 nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType)
{
	ENTER_DEV(device);
	if (fake.sim)
		return sim_nvlink_remote(device->index, link, NULL, pNvLinkDeviceType);
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
	/* one socket: different host bridges of one node; else across sockets */
	*pathInfo = fake.sim && sim_gpu(device1)->numa_node == sim_gpu(device2)->numa_node ?
			    NVML_TOPOLOGY_NODE :
			    NVML_TOPOLOGY_SYSTEM;
	return NVML_SUCCESS;
}

/* ---- telemetry ---- */

/* Steady unless scripted: 45 C, or hot while thermal_throttle holds. */
static unsigned temp_c_of(nvmlDevice_t d)
{
	if (!fake.sim || fake.temp_set)
		return fake.temp_c;
	return sim_fault(GBSIM_FAULT_THERMAL_THROTTLE, d->index) ? SIM_HOT_TEMP_C : SIM_TEMP_C;
}

nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_t *temperature)
{
	ENTER_DEV(device);
	if (temperature->version != nvmlTemperature_v1)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if (temperature->sensorType != NVML_TEMPERATURE_GPU)
		return NVML_ERROR_INVALID_ARGUMENT;
	temperature->temperature = (int)temp_c_of(device);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType,
				      unsigned int *temp)
{
	ENTER_DEV(device);
	if (sensorType != NVML_TEMPERATURE_GPU)
		return NVML_ERROR_INVALID_ARGUMENT;
	*temp = temp_c_of(device);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
	ENTER_DEV(device);
	if (fake.sim && !fake.power_set)
		*power = (unsigned)lround(sim_gpu(device)->power_limit_w * SIM_POWER_FRACTION * 1000);
	else
		*power = fake.power_w * 1000;
	return NVML_SUCCESS;
}

/* The instantaneous power in mW: scripted, else as the average (steady load). */
static unsigned power_instant_mw(nvmlDevice_t d)
{
	if (fake.instant_set)
		return fake.power_instant_w * 1000;
	if (fake.sim && !fake.power_set)
		return (unsigned)lround(sim_gpu(d)->power_limit_w * SIM_POWER_FRACTION * 1000);
	return fake.power_w * 1000;
}

/* Only NVML_FI_DEV_POWER_INSTANT is known; every other field answers NOT_SUPPORTED. */
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
				      nvmlFieldValue_t *values)
{
	ENTER_DEV(device);
	if (valuesCount < 0 || (valuesCount && !values))
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int i = 0; i < valuesCount; i++) {
		nvmlFieldValue_t *f = &values[i];

		f->timestamp = (long long)(time(NULL)) * 1000000;
		f->latencyUsec = 0;
		if (f->fieldId != NVML_FI_DEV_POWER_INSTANT || fake.no_power_instant) {
			f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
			continue;
		}
		f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
		f->value.uiVal = power_instant_mw(device);
		f->nvmlReturn = NVML_SUCCESS;
	}
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
	ENTER_DEV(device);
	if (!major || !minor)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (fake.sim) {
		*major = sim_gpu(device)->cc_major;
		*minor = sim_gpu(device)->cc_minor;
		return NVML_SUCCESS;
	}
	if (fake.cc_major < 0)
		return NVML_ERROR_UNKNOWN;
	*major = fake.cc_major;
	*minor = fake.cc_minor;
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
	if (fake.sim) {
		/* what the driver keeps for itself, about 1/64 on a real card */
		memory->total = sim_gpu(device)->memory_bytes;
		memory->used = memory->total / 64;
	}
	memory->free = memory->total - memory->used;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device,
						    unsigned long long *clocksEventReasons)
{
	ENTER_DEV(device);
	*clocksEventReasons = fake.reasons;
	if (sim_fault(GBSIM_FAULT_THERMAL_THROTTLE, device->index))
		*clocksEventReasons |= nvmlClocksEventReasonSwThermalSlowdown |
				       nvmlClocksThrottleReasonHwThermalSlowdown;
	/* NVML's hw_slowdown covers an asserted power brake too; hw_power_brake names it */
	if (sim_fault(GBSIM_FAULT_POWER_BRAKE, device->index))
		*clocksEventReasons |= nvmlClocksThrottleReasonHwSlowdown |
				       nvmlClocksThrottleReasonHwPowerBrakeSlowdown;
	return NVML_SUCCESS;
}

/* Power and thermal counters that grow by their step on each call; other policies 0. */
nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType,
					  nvmlViolationTime_t *violTime)
{
	unsigned long long step;
	unsigned k;

	ENTER_DEV(device);
	if (!violTime || perfPolicyType >= NVML_PERF_POLICY_COUNT)
		return NVML_ERROR_INVALID_ARGUMENT;
	violTime->referenceTime = 0;
	violTime->violationTime = 0;
	if (perfPolicyType != NVML_PERF_POLICY_POWER && perfPolicyType != NVML_PERF_POLICY_THERMAL)
		return NVML_SUCCESS;
	k = perfPolicyType == NVML_PERF_POLICY_POWER ? 0 : 1;
	step = fake.viol_step[k];
	/* a throttled GPU accumulates thermal violation time, as a real one does */
	if (k == 1 && step < SIM_VIOL_STEP_NS &&
	    sim_fault(GBSIM_FAULT_THERMAL_THROTTLE, device->index))
		step = SIM_VIOL_STEP_NS;
	violTime->violationTime = step * fake.viol_calls[k][device->index]++;
	return NVML_SUCCESS;
}

/* ---- health ---- */

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
					 nvmlEccCounterType_t counterType,
					 unsigned long long *eccCounts)
{
	ENTER_DEV(device);
	if (errorType == NVML_MEMORY_ERROR_TYPE_UNCORRECTED && counterType == NVML_VOLATILE_ECC)
		*eccCounts = fake.dbe_step * fake.dbe_calls[device->index]++ +
			     sim_ecc_dbe(device->index);
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
	/* an uncorrectable error's row waits for the next reset to be remapped */
	if (sim_fault(GBSIM_FAULT_ROW_REMAP_PENDING, device->index))
		*uncRows = *isPending = 1;
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
	if (fake.sim) {
		nvmlReturn_t rc = sim_link_check(device->index, link);

		if (rc != NVML_SUCCESS)
			return rc;
		/* the data CRC counter is gone from NVLink 4 on */
		if (counter == NVML_NVLINK_ERROR_DL_CRC_DATA &&
		    sim_nvlink_version(device->index, link, &(unsigned){ 0 }) == NVML_SUCCESS &&
		    fake.sim->nvlink_gen >= 4)
			return NVML_ERROR_NOT_SUPPORTED;
		*counterValue = 0;
		return NVML_SUCCESS;
	}
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
	return sim_xid_event(set, data) ? NVML_SUCCESS : NVML_ERROR_TIMEOUT;
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
