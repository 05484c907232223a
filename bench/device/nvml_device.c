/* SPDX-License-Identifier: MIT */
/*
 * nvml_device.c - the static facts of a device NVML gives
 * (gb_nvml_fill_device: identity, clocks, PCIe link, power limit, ECC
 * mode, NUMA node from sysfs, NVLink census) with the fields it could not
 * read, and the topology between two devices. CPU only; uses the loader
 * and cache of bench/device/nvml.c through bench/device/nvml_internal.h.
 */
#include "bench/device/nvml.h"

#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "bench/device/nvml_internal.h"
#include "report/result.h"

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
	gb_list_add(m->buf, m->len, field);
	if (!m->gaps)
		return;
	if (rc_unsupported(why)) {
		m->gaps->n_unsupported++;
		gb_list_add(m->gaps->unsupported, sizeof(m->gaps->unsupported), field);
	} else {
		m->gaps->n_unread++;
		gb_list_add(m->gaps->unread, sizeof(m->gaps->unread), field);
	}
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
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

