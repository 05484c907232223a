/* SPDX-License-Identifier: MIT */
/*
 * test_nvml.c - unit tests for bench/device/nvml.c against tests/fake_nvml, a
 * scripted stand-in libnvidia-ml.so.1 (two H100s, 18 NVLinks between them,
 * GPU 1 on a downtrained PCIe link). The fake reads its FAKE_NVML_*
 * environment at nvmlInit, so each test sets the environment, then loads,
 * and the teardown unloads. NUMA nodes come from a sysfs tree this test
 * writes (GPU 0 on node 0, GPU 1 on node 1).
 *
 * GPUBENCH_TEST_FAKE_NVML names the fake; a test that needs it fails (not
 * skips) without it, so a broken build cannot pass silently.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/device/info_math.h"
#include "bench/device/nvml.h"
#include "report/result.h"

#include <dlfcn.h>
#include <math.h>
#include <nvml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define BUS0 "00000000:65:00.0"
#define BUS1 "00000000:B3:00.0"

static const char *const fake_vars[] = {
	"FAKE_NVML_FAIL_INIT", "FAKE_NVML_MISSING", "FAKE_NVML_TEMP_C", "FAKE_NVML_POWER_W",
	"FAKE_NVML_REASONS",   "FAKE_NVML_ECC_DBE", "FAKE_NVML_XIDS",   "FAKE_NVML_NVSWITCH",
	"FAKE_NVML_FAIL",      "FAKE_NVML_SLOT_GEN", "FAKE_NVML_VIOL_POWER_NS",
	"FAKE_NVML_VIOL_THERMAL_NS", "FAKE_NVML_ABSENT", "FAKE_NVML_NVLINK_DOWN",
	"FAKE_NVML_POWER_INSTANT_W", "FAKE_NVML_NO_POWER_INSTANT", "FAKE_NVML_CC",
	"FAKE_NVML_NVLINK_VERSION",
};

/* The fake's own counters, reached through a handle this test holds open. */
static void *fake_lib;
static int (*fake_refcount)(void);
static int (*fake_live_event_sets)(void);
static unsigned long (*fake_nvlink_state_calls)(void);

/* A sysfs tree of our own: ROOT/bus/pci/devices/<bdf>/numa_node */
static char sysfs[64] = "";

static void write_numa(const char *bdf, const char *node)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", sysfs, bdf);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/numa_node", sysfs, bdf);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", node);
		fclose(f);
	}
}

static void make_sysfs(void)
{
	char path[256];

	snprintf(sysfs, sizeof(sysfs), "/tmp/gb-test-sysfs-XXXXXX");
	if (!mkdtemp(sysfs))
		return;
	snprintf(path, sizeof(path), "%s/bus", sysfs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bus/pci", sysfs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bus/pci/devices", sysfs);
	mkdir(path, 0755);
	write_numa("0000:65:00.0", "0");
	write_numa("0000:b3:00.0", "1");
	gb_nvml_set_sysfs_root(sysfs);
}

static void remove_sysfs(void)
{
	static const char *const bdf[] = { "0000:65:00.0", "0000:b3:00.0" };
	char path[256];

	for (size_t i = 0; i < ARRAY_LEN(bdf); i++) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/numa_node", sysfs, bdf[i]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", sysfs, bdf[i]);
		rmdir(path);
	}
	snprintf(path, sizeof(path), "%s/bus/pci/devices", sysfs);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/bus/pci", sysfs);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/bus", sysfs);
	rmdir(path);
	rmdir(sysfs);
	gb_nvml_set_sysfs_root(NULL);
}

static const char *fake_path(void)
{
	const char *p = getenv("GPUBENCH_TEST_FAKE_NVML");

	if (!p || !*p)
		fail_msg("GPUBENCH_TEST_FAKE_NVML is not set: build the fake_nvml target");
	return p;
}

static void load_fake(void)
{
	char err[256];

	assert_int_equal(gb_nvml_load(fake_path(), err, sizeof(err)), 0);
	assert_true(gb_nvml_loaded());
}

static int group_setup(void **state)
{
	const char *p = getenv("GPUBENCH_TEST_FAKE_NVML");

	(void)state;
	if (p && *p)
		fake_lib = dlopen(p, RTLD_NOW | RTLD_LOCAL);
	if (fake_lib) {
		*(void **)(&fake_refcount) = dlsym(fake_lib, "fake_nvml_refcount");
		*(void **)(&fake_live_event_sets) = dlsym(fake_lib, "fake_nvml_live_event_sets");
		*(void **)(&fake_nvlink_state_calls) =
			dlsym(fake_lib, "fake_nvml_nvlink_state_calls");
	}
	make_sysfs();
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (fake_lib)
		dlclose(fake_lib);
	remove_sysfs();
	return 0;
}

static int setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(fake_vars); i++)
		unsetenv(fake_vars[i]);
	/* a test may have changed a node */
	write_numa("0000:65:00.0", "0");
	write_numa("0000:b3:00.0", "1");
	return 0;
}

static int teardown(void **state)
{
	gb_nvml_unload();
	return setup(state);
}

static int refcount(void)
{
	assert_non_null(fake_refcount);
	return fake_refcount();
}

static int live_event_sets(void)
{
	assert_non_null(fake_live_event_sets);
	return fake_live_event_sets();
}

/* Everything unknown, as gb_device_info_init() would leave it; only the bus id set. */
static void device_unknown(struct gb_device_info *d, char *pci_bus_id)
{
	memset(d, 0, sizeof(*d));
	d->index = -1;
	d->pci_bus_id = pci_bus_id;
	d->cc_major = d->cc_minor = -1;
	d->sm_count = -1;
	d->memory_bytes = d->l2_bytes = NAN;
	d->max_sm_mhz = d->max_mem_mhz = NAN;
	d->mem_bus_bits = -1;
	d->pcie_gen = d->pcie_width = d->pcie_max_gen = d->pcie_max_width = -1;
	d->power_limit_w = NAN;
	d->ecc = -1;
	d->numa_node = -1;
	d->nvlink_up = -1;
	d->nvlink_gen = -1;
}

static void device_release(struct gb_device_info *d)
{
	free(d->name);
	free(d->uuid);
	free(d->brand);
}

/* ---- loading ---- */

static void test_load_missing_library(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(gb_nvml_load("/nonexistent/libnvidia-ml.so.1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot load '/nonexistent/libnvidia-ml.so.1': "));
	assert_false(gb_nvml_loaded());
}

static void test_load_not_nvml(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(gb_nvml_load("libm.so.6", err, sizeof(err)), -1);
	assert_string_equal(err, "'libm.so.6' lacks nvmlInit_v2");
	assert_false(gb_nvml_loaded());
}

static void test_load_init_fails(void **state)
{
	char err[256];

	(void)state;
	setenv("FAKE_NVML_FAIL_INIT", "1", 1);
	assert_int_equal(gb_nvml_load(fake_path(), err, sizeof(err)), -1);
	assert_string_equal(err, "nvmlInit failed: Driver Not Loaded");
	assert_false(gb_nvml_loaded());
	assert_int_equal(refcount(), 0);
}

static void test_load_unload(void **state)
{
	char err[256], ver[32];

	(void)state;
	load_fake();
	/* a second load is a no-op, not a second nvmlInit */
	assert_int_equal(gb_nvml_load(fake_path(), err, sizeof(err)), 0);
	assert_int_equal(refcount(), 1);
	gb_nvml_unload();
	assert_false(gb_nvml_loaded());
	assert_int_equal(refcount(), 0);
	gb_nvml_unload();
	/* after unload every call answers "unknown" instead of crashing */
	assert_null(gb_nvml_device_by_pci(BUS0));
	assert_int_equal(gb_nvml_driver_version(ver, sizeof(ver)), -1);
	assert_string_equal(ver, "");
}

static void test_driver_version(void **state)
{
	char ver[32], small[4];

	(void)state;
	load_fake();
	assert_int_equal(gb_nvml_driver_version(ver, sizeof(ver)), 0);
	assert_string_equal(ver, "580.65.06");
	assert_int_equal(gb_nvml_driver_version(small, sizeof(small)), -1);
	assert_string_equal(small, "");
}

/* ---- devices ---- */

static void check_pci_forms(void)
{
	struct gb_nvml_device *a = gb_nvml_device_by_pci(BUS0);
	struct gb_nvml_device *b = gb_nvml_device_by_pci("0000:b3:00.0");

	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_ptr_equal(gb_nvml_device_by_pci("0000:65:00.0"), a);
	assert_ptr_equal(gb_nvml_device_by_pci("00000000:65:00.0"), a);
	assert_ptr_equal(gb_nvml_device_by_pci("65:00.0"), a);
	assert_ptr_equal(gb_nvml_device_by_pci(BUS1), b);
	assert_ptr_equal(gb_nvml_device_by_pci("00000000:b3:00.0"), b);
	assert_ptr_equal(gb_nvml_device_by_pci("0000:B3:00.0"), b);
	assert_null(gb_nvml_device_by_pci("0000:17:00.0"));
	assert_null(gb_nvml_device_by_pci("0001:65:00.0"));
	assert_null(gb_nvml_device_by_pci("not a bus id"));
	assert_null(gb_nvml_device_by_pci(""));
	assert_null(gb_nvml_device_by_pci(NULL));
}

static void test_device_by_pci(void **state)
{
	(void)state;
	load_fake();
	check_pci_forms();
}

/* Without nvmlDeviceGetHandleByPciBusId_v2 the devices are found by scanning. */
static void test_device_by_pci_scan(void **state)
{
	(void)state;
	setenv("FAKE_NVML_MISSING", "nvmlDeviceGetHandleByPciBusId_v2", 1);
	load_fake();
	check_pci_forms();
}

static void test_fill_device(void **state)
{
	char bus[] = "0000:65:00.0";
	struct gb_device_info d;
	char missing[256] = "";

	(void)state;
	load_fake();
	device_unknown(&d, bus);
	assert_int_equal(gb_nvml_fill_device(&d, missing, sizeof(missing)), 0);
	assert_string_equal(missing, "");
	assert_string_equal(d.name, "NVIDIA H100 80GB HBM3");
	assert_string_equal(d.uuid, "GPU-fake-0000-0000-0000-0000-000000000000");
	assert_string_equal(d.brand, "nvidia");
	assert_true(d.max_sm_mhz == 1980.0);
	assert_true(d.max_mem_mhz == 2619.0);
	assert_int_equal(d.mem_bus_bits, 5120);
	assert_int_equal(d.pcie_gen, 5);
	assert_int_equal(d.pcie_width, 16);
	assert_int_equal(d.pcie_max_gen, 5);
	assert_int_equal(d.pcie_max_width, 16);
	assert_true(d.power_limit_w == 700.0);
	assert_int_equal(d.ecc, 1);
	assert_int_equal(d.numa_node, 0);
	assert_int_equal(d.nvlink_up, 18);
	assert_int_equal(d.nvlink_gen, 4);
	/* fields NVML does not own stay as they were */
	assert_int_equal(d.sm_count, -1);
	assert_true(isnan(d.memory_bytes));
	assert_ptr_equal(d.pci_bus_id, bus);
	device_release(&d);
}

/* What CUDA already filled (uuid, name, bus width) is kept, not overwritten. */
static void test_fill_device_keeps_cuda_fields(void **state)
{
	char bus[] = BUS0;
	struct gb_device_info d;

	(void)state;
	load_fake();
	device_unknown(&d, bus);
	d.uuid = strdup("GPU-from-cuda");
	d.name = strdup("name from cuda");
	d.mem_bus_bits = 4096;
	assert_int_equal(gb_nvml_fill_device(&d, NULL, 0), 0);
	assert_string_equal(d.uuid, "GPU-from-cuda");
	assert_string_equal(d.name, "name from cuda");
	assert_int_equal(d.mem_bus_bits, 4096);
	device_release(&d);
}

static void test_fill_device_downtrained(void **state)
{
	char bus[] = "0000:b3:00.0";
	struct gb_device_info d;

	(void)state;
	load_fake();
	device_unknown(&d, bus);
	assert_int_equal(gb_nvml_fill_device(&d, NULL, 0), 0);
	assert_string_equal(d.uuid, "GPU-fake-0001-0000-0000-0000-000000000000");
	assert_int_equal(d.pcie_gen, 4);
	assert_int_equal(d.pcie_width, 8);
	assert_int_equal(d.pcie_max_gen, 5);
	assert_int_equal(d.pcie_max_width, 16);
	assert_int_equal(d.numa_node, 1);
	device_release(&d);
}

static void test_fill_device_missing(void **state)
{
	char bus[] = BUS0;
	struct gb_device_info d;
	char missing[256] = "earlier";
	char tiny[12] = "";

	(void)state;
	/* GpuMax missing falls back to the system maximum: not a missing field */
	setenv("FAKE_NVML_MISSING",
	       "nvmlDeviceGetBrand,nvmlDeviceGetEnforcedPowerLimit,nvmlDeviceGetNvLinkState,"
	       "nvmlDeviceGetGpuMaxPcieLinkGeneration,nvmlDeviceGetEccMode",
	       1);
	load_fake();
	device_unknown(&d, bus);
	assert_int_equal(gb_nvml_fill_device(&d, missing, sizeof(missing)), 4);
	assert_string_equal(missing, "earlier,brand,power_limit_w,ecc,nvlink_up");
	assert_null(d.brand);
	assert_true(isnan(d.power_limit_w));
	assert_int_equal(d.ecc, -1);
	assert_int_equal(d.nvlink_up, -1);
	assert_int_equal(d.nvlink_gen, 4);
	assert_int_equal(d.pcie_max_gen, 5);
	assert_int_equal(d.pcie_gen, 5);
	device_release(&d);

	/* a short buffer truncates, still terminated, and the count is whole */
	device_unknown(&d, bus);
	assert_int_equal(gb_nvml_fill_device(&d, tiny, sizeof(tiny)), 4);
	assert_string_equal(tiny, "brand,power");
	device_release(&d);
}

static void test_fill_device_unknown(void **state)
{
	char bus[] = "0000:17:00.0";
	struct gb_device_info d;
	char missing[512] = "";

	(void)state;
	load_fake();
	device_unknown(&d, bus);
	assert_int_equal(gb_nvml_fill_device(&d, missing, sizeof(missing)), 15);
	assert_non_null(strstr(missing, "uuid,name,mem_bus_bits,brand,"));
	assert_null(d.uuid);
	assert_int_equal(d.pcie_gen, -1);
	gb_nvml_unload();

	/* not loaded at all: the same answer */
	missing[0] = '\0';
	assert_int_equal(gb_nvml_fill_device(&d, missing, sizeof(missing)), 15);
	d.pci_bus_id = NULL;
	assert_int_equal(gb_nvml_fill_device(&d, NULL, 0), 15);
}


/* NOT_SUPPORTED is a feature the GPU lacks; any other error is NVML not knowing. */
static void test_fill_gaps_split(void **state)
{
	char bus[] = BUS0;
	struct gb_device_info d;
	struct gb_nvml_gaps g;

	(void)state;
	setenv("FAKE_NVML_MISSING", "nvmlDeviceGetEccMode,nvmlDeviceGetNvLinkState", 1);
	setenv("FAKE_NVML_FAIL", "nvmlDeviceGetEnforcedPowerLimit,nvmlDeviceGetMaxClockInfo", 1);
	load_fake();
	device_unknown(&d, bus);
	assert_int_equal(gb_nvml_fill_device_gaps(&d, &g), 5);
	assert_string_equal(g.unread, "max_sm_mhz,max_mem_mhz,power_limit_w");
	assert_int_equal(g.n_unread, 3);
	assert_string_equal(g.unsupported, "ecc,nvlink_up");
	assert_int_equal(g.n_unsupported, 2);
	assert_int_equal(g.gpu_max_pcie_gen, 5);
	device_release(&d);
}

/*
 * No NVLink up (an SXM GPU seen alone in a VM): the version is not asked, so
 * an error the driver gives for it there is no unread field, and no warning.
 */
static void test_fill_nvlink_all_down(void **state)
{
	char bus[] = BUS0;
	struct gb_device_info d;
	struct gb_nvml_gaps g;

	(void)state;
	setenv("FAKE_NVML_NVLINK_DOWN", "1", 1);
	setenv("FAKE_NVML_FAIL", "nvmlDeviceGetNvLinkVersion", 1);
	load_fake();
	device_unknown(&d, bus);
	assert_int_equal(gb_nvml_fill_device_gaps(&d, &g), 1);
	assert_int_equal(d.nvlink_up, 0);
	assert_int_equal(d.nvlink_gen, -1);
	assert_string_equal(g.unsupported, "nvlink_gen");
	assert_string_equal(g.unread, "");
	device_release(&d);
}

/* The NUMA node is the PCI function's (sysfs); none on the host is no gap. */
static void test_fill_numa_sysfs(void **state)
{
	char bus[] = BUS1;
	struct gb_device_info d;
	struct gb_nvml_gaps g;

	(void)state;
	load_fake();
	device_unknown(&d, bus);
	assert_int_equal(gb_nvml_fill_device_gaps(&d, &g), 0);
	assert_int_equal(d.numa_node, 1);
	device_release(&d);

	/* the kernel gives it no node: unknown, and not a warning */
	write_numa("0000:b3:00.0", "-1");
	device_unknown(&d, bus);
	assert_int_equal(gb_nvml_fill_device_gaps(&d, &g), 1);
	assert_int_equal(d.numa_node, -1);
	assert_string_equal(g.unsupported, "numa_node");
	assert_string_equal(g.unread, "");
	device_release(&d);

	/* no sysfs entry at all (a container hiding it): unknown, and not NVML's fault */
	gb_nvml_set_sysfs_root("/nonexistent");
	device_unknown(&d, bus);
	assert_int_equal(gb_nvml_fill_device_gaps(&d, &g), 1);
	assert_int_equal(d.numa_node, -1);
	assert_string_equal(g.unsupported, "numa_node");
	assert_string_equal(g.unread, "");
	device_release(&d);
	gb_nvml_set_sysfs_root(sysfs);
}

/* A Gen5 GPU in a Gen4 slot: the maximum is the slot's; the GPU's own is kept apart. */
static void test_fill_pcie_slot_max(void **state)
{
	char bus[] = BUS0;
	struct gb_device_info d;
	struct gb_nvml_gaps g;

	(void)state;
	setenv("FAKE_NVML_SLOT_GEN", "4", 1);
	load_fake();
	device_unknown(&d, bus);
	assert_int_equal(gb_nvml_fill_device_gaps(&d, &g), 0);
	assert_int_equal(d.pcie_max_gen, 4);
	assert_int_equal(d.pcie_max_width, 16);
	assert_int_equal(g.gpu_max_pcie_gen, 5);
	device_release(&d);

	/* without the GPU's own maximum nothing is missing: it is not a report field */
	gb_nvml_unload();
	setenv("FAKE_NVML_MISSING", "nvmlDeviceGetGpuMaxPcieLinkGeneration", 1);
	load_fake();
	device_unknown(&d, bus);
	assert_int_equal(gb_nvml_fill_device_gaps(&d, &g), 0);
	assert_int_equal(d.pcie_max_gen, 4);
	assert_int_equal(g.gpu_max_pcie_gen, -1);
	device_release(&d);
}

/* NVML partial and a slow slot reach the report as warnings of an "info" entry. */
static void test_info_notes_from_fake(void **state)
{
	struct gb_info_notes *notes = calloc(1, sizeof(*notes));
	const char *argv[] = { "gpubench", "info" };
	struct gb_bench_result *res;
	struct gb_run run;
	const char *const bus[] = { BUS0, BUS1 };

	(void)state;
	assert_non_null(notes);
	setenv("FAKE_NVML_FAIL", "nvmlDeviceGetEnforcedPowerLimit", 1);
	setenv("FAKE_NVML_SLOT_GEN", "4", 1);
	load_fake();
	gb_run_init(&run, "info", 2, argv);
	for (int i = 0; i < 2; i++) {
		struct gb_device_info *d = gb_run_add_device(&run);

		d->index = i;
		d->pci_bus_id = gb_strdup(bus[i]);
		gb_nvml_fill_device_gaps(d, &notes->dev[i].nvml);
		notes->dev[i].device = i;
		notes->dev[i].nvml_asked = true;
	}
	notes->n = 2;
	res = gb_info_notes_apply(&run, notes);
	assert_non_null(res);
	assert_string_equal(res->name, "info");
	assert_int_equal(res->status, GB_STATUS_WARNING);
	/* per GPU: the unread field, then the slot; GPU 1 also its narrow link */
	assert_int_equal(res->n_checks, 5);
	assert_string_equal(res->checks[0].name, "nvml_fields");
	assert_int_equal(res->checks[0].device, 0);
	assert_string_equal(res->checks[0].message,
			    "NVML could not read 1 field of GPU 0: power_limit_w (null in the report)");
	assert_string_equal(res->checks[1].name, "pcie_slot");
	assert_int_equal(res->checks[1].status, GB_STATUS_WARNING);
	assert_true(res->checks[1].observed == 4 && res->checks[1].threshold == 5);
	assert_non_null(
		strstr(res->checks[1].message, "supports PCIe Gen5 but its slot allows Gen4"));
	assert_int_equal(res->checks[3].device, 1);
	/* GPU 1 trained at x8 of x16: a finding at idle, whatever its generation */
	assert_string_equal(res->checks[4].name, "pcie_link");
	assert_int_equal(res->checks[4].device, 1);
	assert_int_equal(res->checks[4].status, GB_STATUS_WARNING);
	assert_true(res->checks[4].observed == 8 && res->checks[4].threshold == 16);
	assert_non_null(strstr(res->checks[4].message, "GPU 1's PCIe link trained at Gen4 x8, "
						      "card and slot allow Gen4 x16"));
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_WARNING);
	assert_true(run.n_verdict_warnings >= 5);
	gb_run_release(&run);
	free(notes);
}

/* ---- topology ---- */

static void test_topology_nvlink(void **state)
{
	const char *type = NULL;
	int links = 0;

	(void)state;
	load_fake();
	assert_int_equal(gb_nvml_topology("0000:65:00.0", "0000:b3:00.0", &type, &links), 0);
	assert_string_equal(type, "nvlink");
	assert_int_equal(links, 18);
	assert_int_equal(gb_nvml_topology(BUS1, BUS0, &type, &links), 0);
	assert_string_equal(type, "nvlink");
	assert_int_equal(links, 18);
	assert_int_equal(gb_nvml_topology(BUS0, "0000:17:00.0", &type, &links), -1);
	assert_string_equal(type, "unknown");
	assert_int_equal(links, -1);
}

/* On HGX the links end at NVSwitches, never at the peer's bus id. */
static void test_topology_nvswitch(void **state)
{
	const char *type = NULL;
	int links = 0;

	(void)state;
	setenv("FAKE_NVML_NVSWITCH", "1", 1);
	load_fake();
	assert_int_equal(gb_nvml_topology(BUS0, BUS1, &type, &links), 0);
	assert_string_equal(type, "nvlink");
	assert_int_equal(links, 18);
}

static void test_topology_pcie(void **state)
{
	const char *type = NULL;
	int links = -1;

	(void)state;
	setenv("FAKE_NVML_MISSING", "nvmlDeviceGetNvLinkState", 1);
	load_fake();
	assert_int_equal(gb_nvml_topology(BUS0, BUS1, &type, &links), 0);
	assert_string_equal(type, "cross_socket");
	assert_int_equal(links, 0);
}

static void test_topology_no_ancestor(void **state)
{
	const char *type = NULL;
	int links = -1;

	(void)state;
	setenv("FAKE_NVML_MISSING",
	       "nvmlDeviceGetNvLinkState,nvmlDeviceGetTopologyCommonAncestor", 1);
	load_fake();
	assert_int_equal(gb_nvml_topology(BUS0, BUS1, &type, &links), 0);
	assert_string_equal(type, "unknown");
	assert_int_equal(links, 0);
}


/* Each device's NVLinks are read once, however many pairs ask (GSP round trips). */
static void test_topology_census_cached(void **state)
{
	char bus0[] = BUS0, bus1[] = BUS1;
	struct gb_device_info d;
	const char *type = NULL;
	int links = 0;

	(void)state;
	load_fake();
	assert_non_null(fake_nvlink_state_calls);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(gb_nvml_topology(BUS0, BUS1, &type, &links), 0);
		assert_int_equal(links, 18);
		assert_int_equal(gb_nvml_topology(BUS1, BUS0, &type, &links), 0);
		assert_int_equal(links, 18);
	}
	device_unknown(&d, bus0);
	gb_nvml_fill_device(&d, NULL, 0);
	assert_int_equal(d.nvlink_up, 18);
	device_release(&d);
	device_unknown(&d, bus1);
	gb_nvml_fill_device(&d, NULL, 0);
	device_release(&d);
	/* one census per device: NVML_NVLINK_MAX_LINKS state queries each */
	assert_int_equal(fake_nvlink_state_calls(), 2 * NVML_NVLINK_MAX_LINKS);
}

/* ---- telemetry ---- */

static void test_sample(void **state)
{
	struct gb_telemetry_sample s;

	(void)state;
	setenv("FAKE_NVML_TEMP_C", "71", 1);
	setenv("FAKE_NVML_POWER_W", "650", 1);
	setenv("FAKE_NVML_REASONS", "0x24", 1);
	load_fake();
	memset(&s, 0, sizeof(s));
	s.device = 3;
	s.t_s = 1.5;
	s.tflops = 42.0;
	assert_int_equal(gb_nvml_sample("0000:b3:00.0", &s), 0);
	assert_true(s.temp_c == 71.0);
	assert_true(s.power_w == 650.0);
	assert_true(s.sm_mhz == 1755.0);
	assert_true(s.mem_mhz == 2619.0);
	assert_true(s.util_pct == 97.0);
	assert_true(s.mem_used_bytes == 536870912.0);
	assert_true(s.have_reasons);
	assert_int_equal(s.clock_event_reasons, GB_CLK_SW_POWER_CAP | GB_CLK_SW_THERMAL);
	/* the caller's fields are its own */
	assert_int_equal(s.device, 3);
	assert_true(s.t_s == 1.5);
	assert_true(s.tflops == 42.0);
}

static void test_sample_defaults_and_fallback(void **state)
{
	struct gb_telemetry_sample s;

	(void)state;
	/* without the V form the deprecated temperature call still answers */
	setenv("FAKE_NVML_MISSING", "nvmlDeviceGetTemperatureV", 1);
	load_fake();
	assert_int_equal(gb_nvml_sample(BUS0, &s), 0);
	assert_true(s.temp_c == 45.0);
	assert_true(s.power_w == 300.0);
	assert_true(s.have_reasons);
	assert_int_equal(s.clock_event_reasons, 0);
}

static void test_sample_missing(void **state)
{
	struct gb_telemetry_sample s;

	(void)state;
	setenv("FAKE_NVML_MISSING",
	       "nvmlDeviceGetTemperatureV,nvmlDeviceGetTemperature,nvmlDeviceGetPowerUsage,"
	       "nvmlDeviceGetFieldValues,nvmlDeviceGetCurrentClocksEventReasons,"
	       "nvmlDeviceGetMemoryInfo",
	       1);
	load_fake();
	assert_int_equal(gb_nvml_sample(BUS0, &s), 0);
	assert_true(isnan(s.temp_c));
	assert_true(isnan(s.power_w));
	assert_true(isnan(s.mem_used_bytes));
	assert_false(s.have_reasons);
	assert_true(s.sm_mhz == 1755.0);

	s.temp_c = 1.0;
	assert_int_equal(gb_nvml_sample("0000:17:00.0", &s), -1);
	assert_true(isnan(s.temp_c));
	assert_true(isnan(s.util_pct));
}

/* ---- power: instantaneous where the driver has it (issue 19) ---- */

/* Fill GPU 0 with gaps, as bench/device/gpu.c does, and sample it once. */
static void fill_and_sample(struct gb_nvml_gaps *g, struct gb_telemetry_sample *s)
{
	char bus[] = BUS0;
	struct gb_device_info d;

	device_unknown(&d, bus);
	gb_nvml_fill_device_gaps(&d, g);
	device_release(&d);
	assert_int_equal(gb_nvml_sample(BUS0, s), 0);
}

static void test_power_instant(void **state)
{
	struct gb_telemetry_sample s;
	struct gb_nvml_gaps g;

	(void)state;
	setenv("FAKE_NVML_POWER_W", "300", 1);          /* the one-second average */
	setenv("FAKE_NVML_POWER_INSTANT_W", "512", 1);  /* the instantaneous field */
	load_fake();
	fill_and_sample(&g, &s);
	assert_true(s.power_w == 512.0);
	assert_int_equal(g.power_source, GB_POWER_SOURCE_INSTANT);
	assert_false(g.power_fallback);
	assert_int_equal(gb_nvml_power_source(BUS0), GB_POWER_SOURCE_INSTANT);
	assert_string_equal(gb_power_source_name(gb_nvml_power_source(BUS0)), "instant");
}

/* A driver with nvmlDeviceGetFieldValues but not the field: the average, said so. */
static void test_power_fallback_average(void **state)
{
	struct gb_info_notes *notes = calloc(1, sizeof(*notes));
	const char *argv[] = { "gpubench", "info" };
	struct gb_telemetry_sample s;
	struct gb_bench_result *res;
	struct gb_run run;

	(void)state;
	assert_non_null(notes);
	setenv("FAKE_NVML_POWER_W", "300", 1);
	setenv("FAKE_NVML_POWER_INSTANT_W", "512", 1);
	setenv("FAKE_NVML_NO_POWER_INSTANT", "1", 1);
	load_fake();
	fill_and_sample(&notes->dev[0].nvml, &s);
	assert_true(s.power_w == 300.0);
	/* the scripted H100 is sm_90: nvmlDeviceGetPowerUsage averages over 1 s there */
	assert_int_equal(notes->dev[0].nvml.power_source, GB_POWER_SOURCE_AVERAGE_1S);
	assert_true(notes->dev[0].nvml.power_fallback);
	assert_string_equal(gb_power_source_name(gb_nvml_power_source(BUS0)), "average_1s");

	/* the report carries a note, which is no warning */
	gb_run_init(&run, "info", 2, argv);
	gb_run_add_device(&run)->index = 0;
	notes->dev[0].device = 0;
	notes->dev[0].nvml_asked = true;
	notes->n = 1;
	res = gb_info_notes_apply(&run, notes);
	assert_non_null(res);
	assert_int_equal(res->n_checks, 1);
	assert_string_equal(res->checks[0].name, "power_source");
	assert_int_equal(res->checks[0].status, GB_STATUS_PASSED);
	assert_int_equal(res->checks[0].severity, GB_SEV_INFO);
	assert_string_equal(res->checks[0].message,
			    "the driver has no instantaneous power reading for GPU 0: its power "
			    "figures are nvmlDeviceGetPowerUsage's, averaged over one second");
	assert_int_equal(res->status, GB_STATUS_PASSED);
	gb_run_verdict(&run);
	assert_int_equal(run.verdict, GB_STATUS_PASSED);
	gb_run_release(&run);
	free(notes);
}

/* An older driver without the entry point: on GA100 and older the fallback is instantaneous. */
static void test_power_fallback_old_gpu(void **state)
{
	struct gb_telemetry_sample s;
	struct gb_nvml_gaps g;

	(void)state;
	setenv("FAKE_NVML_ABSENT", "nvmlDeviceGetFieldValues", 1);
	setenv("FAKE_NVML_POWER_W", "250", 1);
	setenv("FAKE_NVML_CC", "8.0", 1);
	load_fake();
	fill_and_sample(&g, &s);
	assert_true(s.power_w == 250.0);
	assert_true(g.power_fallback);
	assert_int_equal(g.power_source, GB_POWER_SOURCE_INSTANT);
	gb_nvml_unload();

	/* the architecture unknown: the kind is unknown too, never guessed */
	setenv("FAKE_NVML_CC", "unknown", 1);
	load_fake();
	fill_and_sample(&g, &s);
	assert_true(s.power_w == 250.0);
	assert_int_equal(g.power_source, GB_POWER_SOURCE_UNKNOWN);
	assert_null(gb_power_source_name(g.power_source));
	gb_nvml_unload();

	/* no power reading at all */
	setenv("FAKE_NVML_MISSING", "nvmlDeviceGetPowerUsage", 1);
	load_fake();
	fill_and_sample(&g, &s);
	assert_true(isnan(s.power_w));
	assert_false(g.power_fallback);
	assert_int_equal(g.power_source, GB_POWER_SOURCE_UNKNOWN);
}

static void test_power_usage_source(void **state)
{
	(void)state;
	/* nvml.h: a one-second average on Ampere except GA100, and newer */
	assert_int_equal(gb_power_usage_source(7, 0), GB_POWER_SOURCE_INSTANT);
	assert_int_equal(gb_power_usage_source(7, 5), GB_POWER_SOURCE_INSTANT);
	assert_int_equal(gb_power_usage_source(8, 0), GB_POWER_SOURCE_INSTANT);
	assert_int_equal(gb_power_usage_source(8, 6), GB_POWER_SOURCE_AVERAGE_1S);
	assert_int_equal(gb_power_usage_source(8, 9), GB_POWER_SOURCE_AVERAGE_1S);
	assert_int_equal(gb_power_usage_source(9, 0), GB_POWER_SOURCE_AVERAGE_1S);
	assert_int_equal(gb_power_usage_source(12, 0), GB_POWER_SOURCE_AVERAGE_1S);
	assert_int_equal(gb_power_usage_source(-1, -1), GB_POWER_SOURCE_UNKNOWN);
	assert_string_equal(gb_power_source_name(GB_POWER_SOURCE_INSTANT), "instant");
	assert_string_equal(gb_power_source_name(GB_POWER_SOURCE_AVERAGE_1S), "average_1s");
	assert_null(gb_power_source_name(GB_POWER_SOURCE_UNKNOWN));
}

/* ---- NVLink version: recorded raw, checked against the model (issue 19) ---- */

static void test_nvlink_version_raw(void **state)
{
	char bus[] = BUS0;
	struct gb_device_info d;
	struct gb_nvml_gaps g;
	bool mismatch;

	(void)state;
	load_fake();
	device_unknown(&d, bus);
	gb_nvml_fill_device_gaps(&d, &g);
	/* 6 is NVML_NVLINK_VERSION_4_0 */
	assert_int_equal(g.nvlink_version_raw, 6);
	assert_int_equal(g.nvlink_gen_nvml, 4);
	assert_int_equal(d.nvlink_gen, 4);
	assert_int_equal(gb_nvlink_gen_trusted(g.nvlink_gen_nvml, 4, &mismatch), 4);
	assert_false(mismatch);
	device_release(&d);
	gb_nvml_unload();

	/* a driver answering the generation itself: 4 reads as NVLink 3.0 */
	setenv("FAKE_NVML_NVLINK_VERSION", "4", 1);
	load_fake();
	device_unknown(&d, bus);
	gb_nvml_fill_device_gaps(&d, &g);
	assert_int_equal(g.nvlink_version_raw, 4);
	assert_int_equal(g.nvlink_gen_nvml, 3);
	/* the H100's NVLink 4 wins, and the disagreement is seen */
	assert_int_equal(gb_nvlink_gen_trusted(g.nvlink_gen_nvml, 4, &mismatch), 4);
	assert_true(mismatch);
	device_release(&d);
	gb_nvml_unload();

	/* a version the table does not know: raw kept, no generation */
	setenv("FAKE_NVML_NVLINK_VERSION", "42", 1);
	load_fake();
	device_unknown(&d, bus);
	gb_nvml_fill_device_gaps(&d, &g);
	assert_int_equal(g.nvlink_version_raw, 42);
	assert_int_equal(g.nvlink_gen_nvml, -1);
	assert_int_equal(d.nvlink_gen, -1);
	device_release(&d);
}

static void test_nvlink_gen_trusted(void **state)
{
	bool mismatch;

	(void)state;
	assert_int_equal(gb_nvlink_gen_trusted(3, 3, &mismatch), 3);
	assert_false(mismatch);
	/* a B200 read as NVLink 3 would halve its peak: the model's 5 wins */
	assert_int_equal(gb_nvlink_gen_trusted(3, 5, &mismatch), 5);
	assert_true(mismatch);
	/* the model unknown: NVML's; NVML unread: the model's, no disagreement */
	assert_int_equal(gb_nvlink_gen_trusted(4, 0, &mismatch), 4);
	assert_false(mismatch);
	assert_int_equal(gb_nvlink_gen_trusted(-1, 4, &mismatch), 4);
	assert_false(mismatch);
	assert_int_equal(gb_nvlink_gen_trusted(-1, 0, &mismatch), -1);
	assert_false(mismatch);
}

/* The disagreement becomes a warning of the info entry, with both numbers. */
static void test_nvlink_version_warning(void **state)
{
	struct gb_info_notes *notes = calloc(1, sizeof(*notes));
	const char *argv[] = { "gpubench", "info" };
	struct gb_bench_result *res;
	struct gb_run run;

	(void)state;
	assert_non_null(notes);
	gb_run_init(&run, "info", 2, argv);
	gb_run_add_device(&run)->index = 0;
	notes->n = 1;
	notes->dev[0].device = 0;
	notes->dev[0].nvml_asked = true;
	notes->dev[0].nvml.gpu_max_pcie_gen = -1;
	notes->dev[0].nvml.nvlink_version_raw = 4;
	notes->dev[0].nvml.nvlink_gen_nvml = 3;
	notes->dev[0].nvml.nvlink_gen_known = 4;
	notes->dev[0].nvml.power_source = GB_POWER_SOURCE_INSTANT;
	res = gb_info_notes_apply(&run, notes);
	assert_non_null(res);
	assert_int_equal(res->n_checks, 1);
	assert_string_equal(res->checks[0].name, "nvlink_version");
	assert_int_equal(res->checks[0].status, GB_STATUS_WARNING);
	assert_true(res->checks[0].observed == 3 && res->checks[0].threshold == 4);
	assert_string_equal(res->checks[0].message,
			    "NVML answers NVLink version 4 (NVLink 3) for GPU 0, whose model has "
			    "NVLink 4; its NVLink peak uses NVLink 4");
	assert_int_equal(res->status, GB_STATUS_WARNING);
	gb_run_release(&run);

	/* agreeing: nothing to say, no entry */
	notes->dev[0].nvml.nvlink_version_raw = 6;
	notes->dev[0].nvml.nvlink_gen_nvml = 4;
	gb_run_init(&run, "info", 2, argv);
	gb_run_add_device(&run)->index = 0;
	assert_null(gb_info_notes_apply(&run, notes));
	gb_run_release(&run);
	free(notes);
}

/* ---- the probe's refusal of a GPU the build has no code for (issue 19) ---- */

static void test_cuda_archs_run_on(void **state)
{
	int oldest;

	(void)state;
	/* today's default: sm_75 (T4) has nothing, later GPUs JIT the newest PTX */
	assert_false(gb_cuda_archs_run_on("80,89,90", 7, 5, &oldest));
	assert_int_equal(oldest, 80);
	assert_false(gb_cuda_archs_run_on("80,89,90", 6, 0, &oldest));
	assert_true(gb_cuda_archs_run_on("80,89,90", 8, 0, &oldest));
	assert_true(gb_cuda_archs_run_on("80,89,90", 8, 6, &oldest)); /* sm_80 SASS */
	assert_true(gb_cuda_archs_run_on("80,89,90", 12, 0, &oldest)); /* compute_90 PTX */
	/* the proposed list: SASS for each, PTX for the newest only */
	{
		const char *l = "75-real;80-real;89-real;90-real;100-real;120-real;120-virtual";

		assert_true(gb_cuda_archs_run_on(l, 7, 5, &oldest));
		assert_int_equal(oldest, 75);
		assert_false(gb_cuda_archs_run_on(l, 7, 0, &oldest));
		assert_false(gb_cuda_archs_run_on(l, 6, 1, &oldest));
		assert_true(gb_cuda_archs_run_on(l, 10, 3, &oldest));  /* sm_100 SASS */
		assert_true(gb_cuda_archs_run_on(l, 12, 1, &oldest));  /* sm_120 SASS */
		assert_true(gb_cuda_archs_run_on(l, 13, 0, &oldest));  /* compute_120 PTX */
		/* no SASS of its major and PTX too new: nothing runs */
		assert_false(gb_cuda_archs_run_on(l, 11, 0, &oldest));
	}
	/* machine code only: a later major has nothing */
	assert_false(gb_cuda_archs_run_on("80-real", 9, 0, &oldest));
	/* arch-specific code runs on that GPU alone */
	assert_true(gb_cuda_archs_run_on("90a", 9, 0, &oldest));
	assert_false(gb_cuda_archs_run_on("90a-real", 10, 0, &oldest));
	assert_true(gb_cuda_archs_run_on("100f", 10, 3, &oldest));
	/* lists it cannot judge refuse nothing */
	assert_true(gb_cuda_archs_run_on("all", 3, 5, &oldest));
	assert_true(gb_cuda_archs_run_on("native", 3, 5, &oldest));
	assert_true(gb_cuda_archs_run_on("", 3, 5, &oldest));
	assert_int_equal(oldest, -1);
	assert_true(gb_cuda_archs_run_on(NULL, 3, 5, &oldest));
}

/* ---- health ---- */

static void test_health(void **state)
{
	struct gb_nvml_health before, after;

	(void)state;
	setenv("FAKE_NVML_ECC_DBE", "2", 1);
	load_fake();
	assert_int_equal(gb_nvml_health(BUS0, &before), 0);
	assert_int_equal(gb_nvml_health(BUS0, &after), 0);
	assert_int_equal(before.ecc_dbe_volatile, 0);
	assert_int_equal(after.ecc_dbe_volatile - before.ecc_dbe_volatile, 2);
	assert_int_equal(after.ecc_sbe_volatile - before.ecc_sbe_volatile, 0);
	assert_int_equal(after.ecc_sbe_volatile, 0);
	assert_int_equal(after.retired_pages_sbe, 0);
	assert_int_equal(after.retired_pages_dbe, 0);
	assert_int_equal(after.retired_pending, 0);
	assert_int_equal(after.remap_correctable, 0);
	assert_int_equal(after.remap_uncorrectable, 0);
	assert_int_equal(after.remap_pending, 0);
	assert_int_equal(after.remap_failed, 0);
	assert_int_equal(after.pcie_replays, 0);
	assert_int_equal(after.nvlink_crc_errors, 0);
	assert_int_equal(after.nvlink_replay_errors, 0);
	assert_int_equal(after.nvlink_recovery_errors, 0);

	/* each device counts its own calls */
	assert_int_equal(gb_nvml_health(BUS1, &after), 0);
	assert_int_equal(after.ecc_dbe_volatile, 0);
	assert_int_equal(gb_nvml_health("0000:17:00.0", &after), -1);
	assert_int_equal(after.ecc_dbe_volatile, -1);
	assert_int_equal(after.remap_pending, -1);
}

/* ---- violation counters ---- */

static void test_violations(void **state)
{
	struct gb_nvml_violations a, b;

	(void)state;
	setenv("FAKE_NVML_VIOL_POWER_NS", "250000000", 1);
	setenv("FAKE_NVML_VIOL_THERMAL_NS", "7", 1);
	load_fake();
	assert_int_equal(gb_nvml_violations(BUS0, &a), GB_VIOL_KINDS);
	assert_int_equal(gb_nvml_violations(BUS0, &b), GB_VIOL_KINDS);
	assert_true(a.ok[GB_VIOL_POWER] && a.ok[GB_VIOL_THERMAL]);
	assert_true(b.ok[GB_VIOL_POWER] && b.ok[GB_VIOL_THERMAL]);
	/* the policies asked are the right ones: power grows by its step, thermal by its own */
	assert_int_equal(b.ns[GB_VIOL_POWER] - a.ns[GB_VIOL_POWER], 250000000);
	assert_int_equal(b.ns[GB_VIOL_THERMAL] - a.ns[GB_VIOL_THERMAL], 7);
	/* an unknown device reads nothing */
	assert_int_equal(gb_nvml_violations("0000:17:00.0", &a), -1);
	assert_false(a.ok[GB_VIOL_POWER] || a.ok[GB_VIOL_THERMAL]);
}

/* A driver without the entry point, one that refuses it, one that fails: nothing read, no crash. */
static void test_violations_absent_or_failing(void **state)
{
	static const char *const how[] = { "FAKE_NVML_ABSENT", "FAKE_NVML_MISSING",
					   "FAKE_NVML_FAIL" };
	struct gb_nvml_violations v;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(how); i++) {
		setup(NULL);
		setenv(how[i], "nvmlDeviceGetViolationStatus", 1);
		setenv("FAKE_NVML_VIOL_POWER_NS", "5", 1);
		load_fake();
		assert_int_equal(gb_nvml_violations(BUS0, &v), 0);
		assert_false(v.ok[GB_VIOL_POWER] || v.ok[GB_VIOL_THERMAL]);
		/* the rest of NVML still answers */
		assert_int_equal(gb_nvml_violations(BUS1, &v), 0);
		gb_nvml_unload();
	}
}

static void test_health_missing(void **state)
{
	struct gb_nvml_health h;

	(void)state;
	setenv("FAKE_NVML_MISSING",
	       "nvmlDeviceGetTotalEccErrors,nvmlDeviceGetRemappedRows,"
	       "nvmlDeviceGetNvLinkErrorCounter,nvmlDeviceGetRetiredPages",
	       1);
	load_fake();
	assert_int_equal(gb_nvml_health(BUS0, &h), 0);
	assert_int_equal(h.ecc_sbe_volatile, -1);
	assert_int_equal(h.ecc_dbe_volatile, -1);
	assert_int_equal(h.retired_pages_sbe, -1);
	assert_int_equal(h.retired_pending, 0);
	assert_int_equal(h.remap_correctable, -1);
	assert_int_equal(h.remap_failed, -1);
	assert_int_equal(h.pcie_replays, 0);
	assert_int_equal(h.nvlink_crc_errors, -1);
	assert_int_equal(h.nvlink_recovery_errors, -1);
}

/* ---- XID events ---- */

static void test_xid_events(void **state)
{
	const char *const ids[] = { "0000:65:00.0", "0000:b3:00.0" };
	struct gb_nvml_xid ev[8];

	(void)state;
	setenv("FAKE_NVML_XIDS", "79,48:1,13", 1);
	load_fake();
	assert_int_equal(gb_nvml_events_open(ids, 2), 2);
	assert_int_equal(live_event_sets(), 1);
	/* max bounds one poll; the rest wait for the next */
	assert_int_equal(gb_nvml_events_poll(100, ev, 1), 1);
	assert_string_equal(ev[0].pci_bus_id, BUS0);
	assert_int_equal(ev[0].xid, 79);
	assert_int_equal(gb_nvml_events_poll(100, ev, ARRAY_LEN(ev)), 2);
	assert_string_equal(ev[0].pci_bus_id, BUS1);
	assert_int_equal(ev[0].xid, 48);
	assert_string_equal(ev[1].pci_bus_id, BUS0);
	assert_int_equal(ev[1].xid, 13);
	assert_int_equal(gb_nvml_events_poll(10, ev, ARRAY_LEN(ev)), 0);
	gb_nvml_events_close();
	assert_int_equal(live_event_sets(), 0);
	assert_int_equal(gb_nvml_events_poll(10, ev, ARRAY_LEN(ev)), -1);
}

/* Only registered devices deliver; unknown bus ids are not registered. */
static void test_xid_events_some_devices(void **state)
{
	const char *const ids[] = { "0000:17:00.0", BUS1 };
	struct gb_nvml_xid ev[8];

	(void)state;
	setenv("FAKE_NVML_XIDS", "79,94:1", 1);
	load_fake();
	assert_int_equal(gb_nvml_events_open(ids, 2), 1);
	assert_int_equal(gb_nvml_events_poll(0, ev, ARRAY_LEN(ev)), 1);
	assert_string_equal(ev[0].pci_bus_id, BUS1);
	assert_int_equal(ev[0].xid, 94);
	/* unload frees the event set too */
	gb_nvml_unload();
	assert_int_equal(live_event_sets(), 0);
}

static void test_xid_events_unsupported(void **state)
{
	const char *const ids[] = { BUS0, BUS1 };
	struct gb_nvml_xid ev[4];

	(void)state;
	assert_int_equal(gb_nvml_events_open(ids, 2), -1);
	setenv("FAKE_NVML_MISSING", "nvmlDeviceRegisterEvents", 1);
	load_fake();
	assert_int_equal(gb_nvml_events_open(ids, 2), -1);
	assert_int_equal(live_event_sets(), 0);
	assert_int_equal(gb_nvml_events_poll(0, ev, ARRAY_LEN(ev)), -1);
}

/* ---- reasons ---- */

static void test_reasons_str(void **state)
{
	char buf[256], small[8];

	(void)state;
	gb_nvml_reasons_str(0, buf, sizeof(buf));
	assert_string_equal(buf, "");
	gb_nvml_reasons_str(GB_CLK_SW_POWER_CAP, buf, sizeof(buf));
	assert_string_equal(buf, "sw_power_cap");
	gb_nvml_reasons_str(GB_CLK_HW_SLOWDOWN | GB_CLK_HW_THERMAL, buf, sizeof(buf));
	assert_string_equal(buf, "hw_slowdown,hw_thermal");
	gb_nvml_reasons_str(0x1ff, buf, sizeof(buf));
	assert_string_equal(buf, "gpu_idle,applications_clocks,sw_power_cap,hw_slowdown,sync_boost,"
				 "sw_thermal,hw_thermal,hw_power_brake,display_clocks");
	gb_nvml_reasons_str(GB_CLK_SW_POWER_CAP | 0x1000 | 0x8000000000000000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "sw_power_cap,0x8000000000001000");
	gb_nvml_reasons_str(GB_CLK_SW_POWER_CAP | GB_CLK_HW_SLOWDOWN, small, sizeof(small));
	assert_string_equal(small, "sw_powe");
	gb_nvml_reasons_str(GB_CLK_SW_POWER_CAP, small, 0);
	gb_nvml_reasons_str(GB_CLK_SW_POWER_CAP, NULL, 16);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_load_missing_library),
		T(test_load_not_nvml),
		T(test_load_init_fails),
		T(test_load_unload),
		T(test_driver_version),
		T(test_device_by_pci),
		T(test_device_by_pci_scan),
		T(test_fill_device),
		T(test_fill_device_keeps_cuda_fields),
		T(test_fill_device_downtrained),
		T(test_fill_device_missing),
		T(test_fill_device_unknown),
		T(test_fill_gaps_split),
		T(test_fill_nvlink_all_down),
		T(test_fill_numa_sysfs),
		T(test_fill_pcie_slot_max),
		T(test_info_notes_from_fake),
		T(test_topology_nvlink),
		T(test_topology_nvswitch),
		T(test_topology_pcie),
		T(test_topology_no_ancestor),
		T(test_topology_census_cached),
		T(test_sample),
		T(test_sample_defaults_and_fallback),
		T(test_sample_missing),
		T(test_power_instant),
		T(test_power_fallback_average),
		T(test_power_fallback_old_gpu),
		T(test_power_usage_source),
		T(test_nvlink_version_raw),
		T(test_nvlink_gen_trusted),
		T(test_nvlink_version_warning),
		T(test_cuda_archs_run_on),
		T(test_health),
		T(test_health_missing),
		T(test_violations),
		T(test_violations_absent_or_failing),
		T(test_xid_events),
		T(test_xid_events_some_devices),
		T(test_xid_events_unsupported),
		T(test_reasons_str),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
