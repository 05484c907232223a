/* SPDX-License-Identifier: MIT */
/*
 * test_sim_machine.c - the simulated machine's loader (tests/sim/machine.c):
 * every machine file in tests/sim/machines/ loads into what it says, every
 * catalog model becomes a device the product's name matching recognises as
 * that model, with the simulator's own spec figures (tests/sim/catalog.c),
 * which agree with the product's theory within rounding but are not taken
 * from it; efficiencies come from the file or their defaults; and each kind
 * of mistake in a file is an error naming the file and the key.
 *
 * The fake NVML (tests/fake_nvml) is then checked against each machine file:
 * it must say what the machine says, so CUDA and NVML agree.
 *
 * The machine files are found in $GBSIM_MACHINES (tests/sim/CMakeLists.txt
 * sets it), else in GBSIM_MACHINES_DIR if the build defines it. The fake
 * NVML is $GBSIM_FAKE_NVML, else libnvidia-ml.so.1 found through this
 * test's RUNPATH (build/sim/lib, where the build links the fake).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/theory.h"
#include "tests/sim/catalog.h"
#include "tests/sim/sim.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ERR_LEN 640

static struct gbsim_machine machine;
static char err[ERR_LEN];

/* dir/file for a machine file of tests/sim/machines */
static const char *machine_path(const char *file)
{
	static char path[512];
	const char *dir = getenv("GBSIM_MACHINES");

#ifdef GBSIM_MACHINES_DIR
	if (!dir || !*dir)
		dir = GBSIM_MACHINES_DIR;
#endif
	if (!dir || !*dir)
		fail_msg("GBSIM_MACHINES is not set: it names tests/sim/machines");
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return path;
}

static int load_named(const char *file)
{
	return gbsim_machine_load(machine_path(file), &machine, err, sizeof(err));
}

/* Write text to a temporary file and load it; the file is removed again. */
static int load_text(const char *text)
{
	char path[] = "/tmp/test_sim_machine_XXXXXX";
	int fd = mkstemp(path);
	int rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	rc = gbsim_machine_load(path, &machine, err, sizeof(err));
	unlink(path);
	return rc;
}

/* The loaded error names the file (a temporary one) and contains want. */
static void expect_error(const char *text, const char *want)
{
	assert_int_equal(load_text(text), -1);
	if (!strstr(err, want) || !strstr(err, "/tmp/test_sim_machine_") || strchr(err, '\n'))
		fail_msg("error '%s' does not contain '%s'", err, want);
}

/* Facts every GPU of every machine must satisfy, whatever its model. */
static void check_gpu_consistent(const struct gbsim_gpu *g, int index)
{
	const struct gb_gpu_spec *spec = gb_gpu_spec_by_key(g->model);
	const struct gbsim_model *model = gbsim_model_by_key(g->model);
	double bw;

	assert_non_null(spec);
	assert_non_null(model);
	assert_int_equal(g->index, index);
	/* the product recognises the simulated device as the model it was made from */
	assert_ptr_equal(gb_gpu_spec_match(g->name, g->sm_count), spec);
	assert_int_equal(g->sm_count, spec->sm_count);
	assert_int_equal(g->cc_major, spec->cc_major);
	assert_int_equal(g->cc_minor, spec->cc_minor);
	assert_int_equal(g->geforce, spec->cls == GB_CLASS_GEFORCE);
	assert_int_equal(gb_product_class_of(g->name, NULL), spec->cls);
	/* 2 x memory clock x bus / 8 is the catalog bandwidth, to the clock's rounding */
	bw = gb_mem_bandwidth_bps(g->mem_clock_mhz, g->mem_bus_width);
	assert_true(fabs(bw - g->mem_bw_bps) <= 0.001 * g->mem_bw_bps);
	/* the figures are the simulator's own spec sheet's, not the product's theory */
	assert_true(g->mem_bw_bps == model->mem_bw_gbps * 1e9);
	for (int p = 0; p < GBSIM_PREC_COUNT; p++)
		assert_true(g->peak_flops[p] == model->dense_tflops[p] * 1e12);
	assert_true(g->power_limit_w == model->tdp_w);
	assert_int_equal(strlen(g->uuid), 40);
	assert_memory_equal(g->uuid, "GPU-", 4);
	assert_int_equal(strlen(g->pci_bus_id), 16);
	assert_true(g->pcie_gen <= g->pcie_max_gen && g->pcie_width <= g->pcie_max_width);
}

static void check_machine_consistent(void)
{
	for (int i = 0; i < machine.gpu_count; i++) {
		check_gpu_consistent(&machine.gpus[i], i);
		assert_int_equal(machine.nvlinks[i][i], 0);
		assert_false(machine.p2p[i][i]);
		for (int j = 0; j < machine.gpu_count; j++) {
			assert_int_equal(machine.nvlinks[i][j], machine.nvlinks[j][i]);
			assert_int_equal(machine.p2p[i][j], machine.p2p[j][i]);
			if (i != j) {
				assert_string_not_equal(machine.gpus[i].uuid, machine.gpus[j].uuid);
				assert_string_not_equal(machine.gpus[i].pci_bus_id,
							machine.gpus[j].pci_bus_id);
			}
		}
	}
}

/* ---- the machine files ---- */

static void test_h100_sxm(void **state)
{
	(void)state;
	if (load_named("h100-sxm.json"))
		fail_msg("%s", err);
	check_machine_consistent();
	assert_string_equal(machine.name, "h100-sxm");
	assert_int_equal(machine.gpu_count, 1);
	assert_string_equal(machine.gpus[0].name, "NVIDIA H100 80GB HBM3");
	assert_int_equal(machine.gpus[0].memory_bytes, 1ULL << 30);
	assert_int_equal(machine.gpus[0].sm_clock_mhz, 1980);
	assert_int_equal(machine.gpus[0].mem_bus_width, 5120);
	assert_int_equal(machine.gpus[0].pcie_gen, 5);
	assert_int_equal(machine.gpus[0].pcie_width, 16);
	assert_int_equal(machine.nvlink_gen, 0);
	assert_int_equal(machine.seed, 1);
	assert_true(machine.noise == 0.01);
	assert_false(machine.lazy);
	assert_int_equal(machine.fault_count, 0);
	assert_true(machine.gpus[0].speed == 1.0);
}

static void test_2x_rtx4090_pcie(void **state)
{
	(void)state;
	if (load_named("2x-rtx4090-pcie.json"))
		fail_msg("%s", err);
	check_machine_consistent();
	assert_int_equal(machine.gpu_count, 2);
	for (int i = 0; i < 2; i++) {
		assert_string_equal(machine.gpus[i].name, "NVIDIA GeForce RTX 4090");
		assert_true(machine.gpus[i].geforce);
		assert_int_equal(machine.gpus[i].pcie_gen, 4);
		assert_int_equal(machine.gpus[i].pcie_width, 16);
		assert_int_equal(machine.gpus[i].pcie_max_gen, 4);
		assert_int_equal(machine.gpus[i].mem_bus_width, 384);
		assert_int_equal(machine.gpus[i].numa_node, 0);
		/* GeForce: FP32-accumulate tensor math at half the FP16-accumulate rate */
		assert_true(machine.gpus[i].peak_flops[GBSIM_FP16] <
			    0.6 * gb_gpu_spec_peak_flops(gb_gpu_spec_by_key("rtx4090"),
							 GB_PREC_FP16_ACC16));
		assert_true(machine.gpus[i].peak_flops[GBSIM_FP8] > 0);
	}
	assert_int_equal(machine.nvlinks[0][1], 0);
	assert_false(machine.p2p[0][1]);
	assert_int_equal(machine.nvlink_gen, 0);
}

static void test_2x_a100_nvlink(void **state)
{
	(void)state;
	if (load_named("2x-a100-nvlink.json"))
		fail_msg("%s", err);
	check_machine_consistent();
	assert_int_equal(machine.gpu_count, 2);
	assert_string_equal(machine.gpus[0].name, "NVIDIA A100-SXM4-80GB");
	assert_int_equal(machine.nvlinks[0][1], 12);
	assert_int_equal(machine.nvlink_gen, 3);
	assert_true(machine.p2p[0][1]);
	assert_int_equal(machine.numa_nodes, 2);
	assert_int_equal(machine.gpus[0].numa_node, 0);
	assert_int_equal(machine.gpus[1].numa_node, 1);
	/* A100 has no FP8 */
	assert_true(machine.gpus[0].peak_flops[GBSIM_FP8] == 0);
}

static void test_8x_h100_nvlink(void **state)
{
	(void)state;
	if (load_named("8x-h100-nvlink.json"))
		fail_msg("%s", err);
	check_machine_consistent();
	assert_int_equal(machine.gpu_count, 8);
	assert_int_equal(machine.nvlink_gen, 4);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(machine.gpus[i].memory_bytes, 1ULL << 30);
		assert_int_equal(machine.gpus[i].l2_bytes, 4ULL << 20);
		assert_int_equal(machine.gpus[i].numa_node, i / 4);
		for (int j = 0; j < 8; j++) {
			assert_int_equal(machine.nvlinks[i][j], i == j ? 0 : 18);
			assert_int_equal(machine.p2p[i][j], i != j);
		}
	}
}

/* ---- the simulator's catalog ---- */

/* a/b within rel of 1, or both 0 */
static bool agree(double a, double b, double rel)
{
	return (a == 0 && b == 0) || (a > 0 && b > 0 && fabs(a / b - 1) <= rel);
}

/*
 * The simulator's spec sheets and the product's theory are written apart; they
 * must still tell the same story (within 5%, spec sheets round), or the
 * product's "% of peak" on a simulated GPU would be off by the difference.
 * Every product model has a simulator entry, so any key works in a machine file.
 */
static void test_catalog_agrees_with_product(void **state)
{
	static const enum gb_precision prec[GBSIM_PREC_COUNT] = {
		[GBSIM_FP64] = GB_PREC_FP64, [GBSIM_FP32] = GB_PREC_FP32,
		[GBSIM_TF32] = GB_PREC_TF32, [GBSIM_FP16] = GB_PREC_FP16,
		[GBSIM_BF16] = GB_PREC_BF16, [GBSIM_FP8] = GB_PREC_FP8,
		[GBSIM_INT8] = GB_PREC_INT8,
	};
	int n_product = 0, n_sim = 0;

	(void)state;
	for (const struct gb_gpu_spec *s = gb_gpu_catalog(); s->key; s++, n_product++) {
		const struct gbsim_model *m = gbsim_model_by_key(s->key);

		if (!m)
			fail_msg("the product's model '%s' has no simulator entry", s->key);
		assert_int_equal(m->cc_major * 10 + m->cc_minor, s->cc_major * 10 + s->cc_minor);
		assert_int_equal(m->sm_count, s->sm_count);
		assert_int_equal(m->geforce, s->cls == GB_CLASS_GEFORCE);
		assert_int_equal(m->pcie_gen, s->pcie_gen);
		assert_int_equal(m->nvlink_gen, s->nvlink_gen);
		assert_int_equal(m->nvlink_links, s->nvlink_links);
		assert_true(agree(m->mem_bw_gbps * 1e9, s->mem_bw_bps, 0.001));
		assert_true(agree(m->boost_mhz, s->boost_mhz, 0.05));
		for (int p = 0; p < GBSIM_PREC_COUNT; p++) {
			double theirs = gb_gpu_spec_peak_flops(s, prec[p]);

			if (!agree(m->dense_tflops[p] * 1e12, theirs, 0.05))
				fail_msg("%s %s: simulator %.2f TFLOP/s, product %.2f", s->key,
					 gb_precision_name(prec[p]), m->dense_tflops[p], theirs / 1e12);
		}
	}
	for (const struct gbsim_model *m = gbsim_models(); m->key; m++, n_sim++)
		assert_non_null(gb_gpu_spec_by_key(m->key));
	assert_int_equal(n_sim, n_product);
}

/* The link rates, per direction: PCIe per lane less its encoding, NVLink per link. */
static void test_link_rates(void **state)
{
	(void)state;
	assert_true(agree(gbsim_pcie_bps(1, 1), 0.25e9, 1e-9));
	assert_true(agree(gbsim_pcie_bps(2, 1), 0.5e9, 1e-9));
	assert_true(agree(gbsim_pcie_bps(3, 1), 0.985e9, 0.001));
	assert_true(agree(gbsim_pcie_bps(4, 16), 16 * 1.969e9, 0.001));
	assert_true(agree(gbsim_pcie_bps(5, 16), 16 * 3.938e9, 0.001));
	assert_true(agree(gbsim_pcie_bps(6, 16), 16 * 7.5625e9, 1e-9));
	assert_true(gbsim_pcie_bps(7, 16) == 0 && gbsim_pcie_bps(4, 0) == 0);
	assert_true(gbsim_nvlink_link_bps(1) == 20e9);
	for (int gen = 2; gen <= 4; gen++)
		assert_true(gbsim_nvlink_link_bps(gen) == 25e9);
	assert_true(gbsim_nvlink_link_bps(5) == 50e9);
	assert_true(gbsim_nvlink_link_bps(0) == 0 && gbsim_nvlink_link_bps(6) == 0);
}

/* ---- efficiency ---- */

static void test_efficiency_defaults(void **state)
{
	const struct gbsim_efficiency *e = &machine.efficiency;

	(void)state;
	if (load_named("h100-sxm.json"))
		fail_msg("%s", err);
	for (int p = 0; p < GBSIM_PREC_COUNT; p++)
		assert_true(e->gemm[p] == 0.85);
	assert_true(e->memory == 0.9 && e->pcie == 0.85 && e->pcie_p2p == 0.8);
	assert_true(e->nvlink == 0.85 && e->nccl_nvlink == 0.8 && e->nccl_pcie == 0.85);
}

static void test_efficiency_keys(void **state)
{
	const struct gbsim_efficiency *e = &machine.efficiency;

	(void)state;
	/* one number for every kind of a key */
	if (load_text("{\"efficiency\": {\"gemm\": 0.5, \"memory\": 0.6, \"pcie\": 0.7,"
		      " \"pcie_p2p\": 0.65, \"nvlink\": 0.75, \"nccl\": 0.55},"
		      " \"gpus\": [{\"model\": \"t4\"}]}"))
		fail_msg("%s", err);
	for (int p = 0; p < GBSIM_PREC_COUNT; p++)
		assert_true(e->gemm[p] == 0.5);
	assert_true(e->memory == 0.6 && e->pcie == 0.7 && e->pcie_p2p == 0.65);
	assert_true(e->nvlink == 0.75 && e->nccl_nvlink == 0.55 && e->nccl_pcie == 0.55);
	/* by kind: the kinds not named keep their defaults */
	if (load_text("{\"efficiency\": {\"gemm\": {\"bf16\": 0.5, \"fp8\": 1},"
		      " \"nccl\": {\"pcie\": 0.4}}, \"gpus\": [{\"model\": \"t4\"}]}"))
		fail_msg("%s", err);
	assert_true(e->gemm[GBSIM_BF16] == 0.5 && e->gemm[GBSIM_FP8] == 1);
	assert_true(e->gemm[GBSIM_FP32] == 0.85 && e->gemm[GBSIM_FP16] == 0.85);
	assert_true(e->nccl_pcie == 0.4 && e->nccl_nvlink == 0.8 && e->memory == 0.9);
}

static void test_errors_efficiency(void **state)
{
	(void)state;
	expect_error("{\"efficiency\": 0.8, \"gpus\": [{\"model\": \"t4\"}]}",
		     "efficiency: expected an object");
	expect_error("{\"efficiency\": {\"gemmm\": 0.8}, \"gpus\": [{\"model\": \"t4\"}]}",
		     "efficiency.gemmm: unknown key (known: gemm, memory,");
	expect_error("{\"efficiency\": {\"gemm\": {\"bf17\": 0.8}}, \"gpus\": [{\"model\": \"t4\"}]}",
		     "efficiency.gemm.bf17: unknown key (known: fp64, fp32,");
	expect_error("{\"efficiency\": {\"memory\": 0}, \"gpus\": [{\"model\": \"t4\"}]}",
		     "efficiency.memory: 0 is out of range (0, 1]");
	expect_error("{\"efficiency\": {\"pcie\": 1.2}, \"gpus\": [{\"model\": \"t4\"}]}",
		     "efficiency.pcie: 1.2 is out of range (0, 1]");
	expect_error("{\"efficiency\": {\"gemm\": {\"fp32\": \"high\"}}, \"gpus\": [{\"model\": \"t4\"}]}",
		     "efficiency.gemm.fp32: expected a number");
	expect_error("{\"efficiency\": {\"nccl\": [0.8]}, \"gpus\": [{\"model\": \"t4\"}]}",
		     "efficiency.nccl: expected a number in (0, 1] or an object");
	expect_error("{\"efficiency\": {\"nccl\": {\"ib\": 0.8}}, \"gpus\": [{\"model\": \"t4\"}]}",
		     "efficiency.nccl.ib: unknown key (known: nvlink, pcie)");
}

/* ---- derived from the catalog ---- */

static void test_every_catalog_model(void **state)
{
	char text[256];

	(void)state;
	for (const struct gb_gpu_spec *s = gb_gpu_catalog(); s->key; s++) {
		snprintf(text, sizeof(text), "{\"gpus\": [{\"model\": \"%s\"}]}", s->key);
		if (load_text(text))
			fail_msg("%s: %s", s->key, err);
		check_machine_consistent();
		assert_int_equal(machine.gpus[0].pcie_gen, s->pcie_gen);
		assert_int_equal(machine.gpus[0].memory_bytes,
				 (uint64_t)(s->memory_gb * 1073741824.0));
	}
}

static void test_defaults_and_overrides(void **state)
{
	(void)state;
	if (load_text("{\"name\": \"m\", \"seed\": 7, \"noise\": 0, \"lazy\": true,"
		      " \"numa_nodes\": 2, \"gpus\": ["
		      " {\"model\": \"H100-SXM\", \"memory\": 2147483648, \"speed\": 0.8,"
		      "  \"name\": \"My GPU\", \"uuid\": \"GPU-00000000-1111-2222-3333-444444444444\","
		      "  \"pci_bus_id\": \"0000:c1:00.0\", \"pcie\": {\"gen\": 4, \"width\": 8}},"
		      " {\"model\": \"h100-sxm\", \"memory\": \"1.5G\", \"l2\": \"4M\"}],"
		      " \"links\": {\"nvlink\": [[1, 0, 6]], \"p2p\": \"none\"}}"))
		fail_msg("%s", err);
	assert_string_equal(machine.name, "m");
	assert_int_equal(machine.seed, 7);
	assert_true(machine.noise == 0);
	assert_true(machine.lazy);
	assert_string_equal(machine.gpus[0].model, "h100-sxm");
	assert_int_equal(machine.gpus[0].memory_bytes, 2147483648ULL);
	assert_true(machine.gpus[0].speed == 0.8);
	assert_string_equal(machine.gpus[0].name, "My GPU");
	assert_string_equal(machine.gpus[0].uuid, "GPU-00000000-1111-2222-3333-444444444444");
	assert_string_equal(machine.gpus[0].pci_bus_id, "00000000:C1:00.0");
	assert_int_equal(machine.gpus[0].pcie_gen, 4);
	assert_int_equal(machine.gpus[0].pcie_width, 8);
	assert_int_equal(machine.gpus[0].pcie_max_gen, 5);
	assert_int_equal(machine.gpus[0].pcie_max_width, 16);
	assert_int_equal(machine.gpus[1].memory_bytes, 3ULL << 29);
	/* Hopper's 50 MiB L2 unless the file shrinks it */
	assert_int_equal(machine.gpus[0].l2_bytes, 50ULL << 20);
	assert_int_equal(machine.gpus[1].l2_bytes, 4ULL << 20);
	/* consecutive GPUs share a socket: 0 on node 0, 1 on node 1 */
	assert_int_equal(machine.gpus[0].numa_node, 0);
	assert_int_equal(machine.gpus[1].numa_node, 1);
	/* the catalog's NVLink generation when the file names none */
	assert_int_equal(machine.nvlink_gen, 4);
	assert_int_equal(machine.nvlinks[0][1], 6);
	assert_false(machine.p2p[0][1]);
	/* the machine's name, not the file's, when given */
	assert_true(strstr(machine.path, "/tmp/test_sim_machine_") != NULL);
	/* no hostname: the real one; the driver is the runtime's own version */
	assert_string_equal(machine.hostname, "");
	assert_int_equal(machine.driver_version, GBSIM_CUDA_VERSION);
}

/* "hostname" and "driver_version": what the product reads as the node and its driver */
static void test_hostname_and_driver(void **state)
{
	(void)state;
	if (load_text("{\"hostname\": \"node-7\", \"driver_version\": 12040,"
		      " \"gpus\": [{\"model\": \"h100-sxm\"}]}"))
		fail_msg("%s", err);
	assert_string_equal(machine.hostname, "node-7");
	assert_int_equal(machine.driver_version, 12040);
	if (load_text("{\"driver_version\": 0, \"gpus\": [{\"model\": \"h100-sxm\"}]}"))
		fail_msg("%s", err);
	assert_int_equal(machine.driver_version, 0);
	expect_error("{\"hostname\": \"\", \"gpus\": [{\"model\": \"t4\"}]}",
		     "hostname: expected a non-empty string");
	expect_error("{\"hostname\": 3, \"gpus\": [{\"model\": \"t4\"}]}",
		     "hostname: expected a non-empty string");
	expect_error("{\"driver_version\": -1, \"gpus\": [{\"model\": \"t4\"}]}",
		     "driver_version: -1 is out of range [0, 99999]");
}

static void test_default_p2p_follows_nvlink(void **state)
{
	(void)state;
	if (load_text("{\"gpus\": [{\"model\": \"a100-40gb\"}, {\"model\": \"a100-40gb\"},"
		      " {\"model\": \"a100-40gb\"}], \"links\": {\"nvlink\": [[0, 2, 4]]}}"))
		fail_msg("%s", err);
	assert_true(machine.p2p[0][2] && machine.p2p[2][0]);
	assert_false(machine.p2p[0][1] || machine.p2p[1][2]);
	if (load_text("{\"gpus\": [{\"model\": \"l4\"}, {\"model\": \"l4\"}, {\"model\": \"l4\"}],"
		      " \"links\": {\"p2p\": [[2, 1]]}}"))
		fail_msg("%s", err);
	assert_true(machine.p2p[1][2] && machine.p2p[2][1]);
	assert_false(machine.p2p[0][1] || machine.p2p[0][2]);
}

static void test_faults(void **state)
{
	(void)state;
	if (load_text("{\"gpus\": [{\"model\": \"h100-sxm\"}, {\"model\": \"h100-sxm\"}],"
		      " \"faults\": [{\"kind\": \"slow\", \"gpu\": 1, \"after_launches\": 100,"
		      " \"value\": 0}, {\"kind\": \"xid\", \"value\": 79, \"after_s\": 2.5},"
		      " {\"kind\": \"p2p_corrupt\", \"gpu\": 0, \"peer\": 1},"
		      " {\"kind\": \"nccl_hang\", \"after_allocs\": 3},"
		      " {\"kind\": \"driver_stall\", \"value\": 8}]}"))
		fail_msg("%s", err);
	assert_int_equal(machine.fault_count, 5);
	assert_int_equal(machine.faults[0].kind, GBSIM_FAULT_SLOW);
	assert_int_equal(machine.faults[0].gpu, 1);
	assert_int_equal(machine.faults[0].after_launches, 100);
	assert_int_equal(machine.faults[0].after_allocs, -1);
	assert_true(machine.faults[0].after_s < 0);
	assert_int_equal(machine.faults[1].kind, GBSIM_FAULT_XID);
	assert_int_equal(machine.faults[1].gpu, -1);
	assert_int_equal(machine.faults[1].value, 79);
	assert_true(machine.faults[1].after_s == 2.5);
	assert_int_equal(machine.faults[2].kind, GBSIM_FAULT_P2P_CORRUPT);
	assert_int_equal(machine.faults[2].peer, 1);
	assert_int_equal(machine.faults[3].kind, GBSIM_FAULT_NCCL_HANG);
	assert_int_equal(machine.faults[3].after_allocs, 3);
	assert_int_equal(machine.faults[4].kind, GBSIM_FAULT_DRIVER_STALL);
	assert_int_equal(machine.faults[4].value, 8);
}

/* ---- errors: each names the file and the key ---- */

static void test_errors_file(void **state)
{
	(void)state;
	assert_int_equal(gbsim_machine_load("/nonexistent/m.json", &machine, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "/nonexistent/m.json: cannot open"));
	expect_error("{\"gpus\": [", "not valid JSON (line 1)");
	expect_error("{\n\"gpus\": [\n{\"model\": \"t4\"},\n]}", "not valid JSON (line 4)");
	expect_error("[]", "expected a JSON object");
	expect_error("{}", "gpus: missing");
}

static void test_errors_keys(void **state)
{
	(void)state;
	expect_error("{\"gpu\": [{\"model\": \"t4\"}]}", "gpu: unknown key (known: name,");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"memroy\": \"1G\"}]}",
		     "gpus[0].memroy: unknown key");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"pcie\": {\"speed\": 4}}]}",
		     "gpus[0].pcie.speed: unknown key");
	expect_error("{\"gpus\": [{\"model\": \"t4\"}], \"links\": {\"nvswitch\": true}}",
		     "links.nvswitch: unknown key");
	expect_error("{\"gpus\": [{\"model\": \"t4\"}], \"faults\": [{\"kind\": \"oom\", "
		     "\"after\": 1}]}", "faults[0].after: unknown key");
}

static void test_errors_model(void **state)
{
	(void)state;
	expect_error("{\"gpus\": [{\"model\": \"h100\"}]}",
		     "gpus[0].model: unknown model 'h100' (did you mean 'h100-");
	expect_error("{\"gpus\": [{\"model\": \"rtx4080\"}]}", "did you mean 'rtx4090'?");
	expect_error("{\"gpus\": [{\"model\": \"zzzzzzzzzz\"}]}",
		     "unknown model 'zzzzzzzzzz' (see 'gpubench theory --list')");
	expect_error("{\"gpus\": [{\"memory\": \"1G\"}]}", "gpus[0].model: missing");
	expect_error("{\"gpus\": [{\"model\": 4090}]}", "gpus[0].model: expected a string");
}

static void test_errors_numbers(void **state)
{
	(void)state;
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"memory\": \"12Q\"}]}",
		     "gpus[0].memory: cannot parse '12Q' as a size");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"memory\": \"-1G\"}]}",
		     "gpus[0].memory: cannot parse");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"memory\": 1.5}]}",
		     "gpus[0].memory: expected a size");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"memory\": \"1K\"}]}",
		     "gpus[0].memory: 1024 bytes is less than 1M");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"speed\": 0}]}",
		     "gpus[0].speed: 0 is out of range (0, 10]");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"speed\": \"fast\"}]}",
		     "gpus[0].speed: expected a number");
	expect_error("{\"noise\": 2, \"gpus\": [{\"model\": \"t4\"}]}", "noise: 2 is out of range");
	expect_error("{\"seed\": 1.5, \"gpus\": [{\"model\": \"t4\"}]}",
		     "seed: expected a whole number, got 1.5");
	expect_error("{\"lazy\": 1, \"gpus\": [{\"model\": \"t4\"}]}",
		     "lazy: expected true or false");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"numa_node\": 1}]}",
		     "gpus[0].numa_node: 1 is out of range [-1, 0]");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"pcie\": {\"gen\": 7}}]}",
		     "gpus[0].pcie.gen: 7 is out of range [1, 6]");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"pcie\": {\"width\": 12}}]}",
		     "gpus[0].pcie: a PCIe width is one of");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"pcie\": {\"gen\": 4, \"max_gen\": 3}}]}",
		     "gpus[0].pcie: the trained link (gen 4 x16) exceeds the maximum (gen 3 x16)");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"uuid\": \"GPU-1\"}]}",
		     "gpus[0].uuid: 'GPU-1' is not a uuid");
	expect_error("{\"gpus\": [{\"model\": \"t4\", \"pci_bus_id\": \"18:00\"}]}",
		     "gpus[0].pci_bus_id: '18:00' is not a PCI bus id");
	expect_error("{\"gpus\": [{\"model\": \"t4\"}, {\"model\": \"t4\", \"pci_bus_id\":"
		     " \"00000000:18:00.0\"}]}", "gpus[1]: pci_bus_id '00000000:18:00.0' is also");
}

static void test_errors_gpu_count(void **state)
{
	(void)state;
	expect_error("{\"gpus\": []}", "gpus: 0 GPUs; a machine has 1 to 8");
	expect_error("{\"gpus\": [{\"model\": \"t4\"}, {\"model\": \"t4\"}, {\"model\": \"t4\"},"
		     " {\"model\": \"t4\"}, {\"model\": \"t4\"}, {\"model\": \"t4\"},"
		     " {\"model\": \"t4\"}, {\"model\": \"t4\"}, {\"model\": \"t4\"}]}",
		     "gpus: 9 GPUs; a machine has 1 to 8");
	expect_error("{\"gpus\": {\"model\": \"t4\"}}", "gpus: expected a list");
}

static void test_errors_links(void **state)
{
	(void)state;
	expect_error("{\"gpus\": [{\"model\": \"h100-sxm\"}, {\"model\": \"h100-sxm\"}],"
		     " \"links\": {\"nvlink\": [[0, 2, 18]]}}",
		     "links.nvlink[0]: GPU index 2 is out of range [0, 1]");
	expect_error("{\"gpus\": [{\"model\": \"h100-sxm\"}, {\"model\": \"h100-sxm\"}],"
		     " \"links\": {\"nvlink\": [[0, 1, 19]]}}",
		     "links.nvlink[0]: 19 links; this pair has 1 to 18");
	expect_error("{\"gpus\": [{\"model\": \"h100-sxm\"}, {\"model\": \"h100-sxm\"}],"
		     " \"links\": {\"nvlink\": [[0, 1, 9], [1, 0, 9]]}}",
		     "links.nvlink[1]: pair 1-0 is given twice");
	expect_error("{\"gpus\": [{\"model\": \"h100-sxm\"}, {\"model\": \"h100-sxm\"}],"
		     " \"links\": {\"nvlink\": [[1, 1, 9]]}}",
		     "links.nvlink[0]: a GPU is not linked to itself");
	expect_error("{\"gpus\": [{\"model\": \"h100-sxm\"}, {\"model\": \"h100-sxm\"}],"
		     " \"links\": {\"nvlink\": [[0, 1]]}}",
		     "links.nvlink[0]: expected [gpu, gpu, links]");
	expect_error("{\"gpus\": [{\"model\": \"rtx4090\"}, {\"model\": \"rtx4090\"}],"
		     " \"links\": {\"nvlink\": [[0, 1, 4]]}}",
		     "links.nvlink_gen: model 'rtx4090' has no NVLink");
	expect_error("{\"gpus\": [{\"model\": \"t4\"}, {\"model\": \"t4\"}],"
		     " \"links\": {\"p2p\": [[0, 5]]}}",
		     "links.p2p[0]: GPU index 5 is out of range [0, 1]");
	expect_error("{\"gpus\": [{\"model\": \"t4\"}, {\"model\": \"t4\"}],"
		     " \"links\": {\"p2p\": \"some\"}}", "links.p2p: expected \"all\", \"none\"");
	expect_error("{\"gpus\": [{\"model\": \"t4\"}], \"links\": {\"nvlink_gen\": 9}}",
		     "links.nvlink_gen: 9 is out of range [1, 5]");
}

static void test_errors_faults(void **state)
{
	(void)state;
	expect_error("{\"gpus\": [{\"model\": \"t4\"}], \"faults\": [{\"kind\": \"melt\"}]}",
		     "faults[0].kind: unknown fault kind 'melt' (known: oom,");
	expect_error("{\"gpus\": [{\"model\": \"t4\"}], \"faults\": [{\"gpu\": 0}]}",
		     "faults[0].kind: expected one of oom,");
	expect_error("{\"gpus\": [{\"model\": \"t4\"}], \"faults\": [{\"kind\": \"oom\","
		     " \"gpu\": 1}]}", "faults[0].gpu: 1 is out of range [-1, 0]");
	expect_error("{\"gpus\": [{\"model\": \"t4\"}], \"faults\": [{\"kind\": \"oom\","
		     " \"after_launches\": 1, \"after_s\": 1}]}",
		     "faults[0]: give at most one of after_launches, after_allocs, after_s");
	expect_error("{\"gpus\": [{\"model\": \"t4\"}, {\"model\": \"t4\"}], \"faults\":"
		     " [{\"kind\": \"p2p_corrupt\", \"gpu\": 1, \"peer\": 1}]}",
		     "faults[0]: peer 1 is the fault's own gpu");
	expect_error("{\"gpus\": [{\"model\": \"t4\"}], \"faults\": {\"kind\": \"oom\"}}",
		     "faults: expected a list");
}

/* ---- the fake NVML answers from the machine ---- */

/*
 * The few NVML entry points checked here, declared by their C ABI (nvml.h is
 * not on this test's include path): nvmlReturn_t is an int enum, a device an
 * opaque pointer, NVML_SUCCESS 0, NVML_CLOCK_SM 1, NVML_CLOCK_MEM 2,
 * NVML_FEATURE_ENABLED 1; nvmlMemory_t is { total, free, used }.
 */
struct nvml_memory {
	unsigned long long total, free, used;
};

struct nvml {
	void *lib;
	int (*init)(void);
	int (*shutdown)(void);
	int (*count)(unsigned *);
	int (*by_index)(unsigned, void **);
	int (*by_bus_id)(const char *, void **);
	int (*name)(void *, char *, unsigned);
	int (*uuid)(void *, char *, unsigned);
	int (*max_clock)(void *, int, unsigned *);
	int (*clock)(void *, int, unsigned *);
	int (*pcie_width)(void *, unsigned *);
	int (*pcie_max_width)(void *, unsigned *);
	int (*nvlink_state)(void *, unsigned, int *);
	int (*memory)(void *, struct nvml_memory *);
};

#define NVML_OK 0
#define NVML_SM 1
#define NVML_MEM 2
#define NVML_MAX_LINKS 36

/* Resolve one symbol into a typed pointer; a missing one fails the child. */
#define NVML_SYM(n, field, sym)                                                   \
	do {                                                                      \
		*(void **)(&(n)->field) = dlsym((n)->lib, sym);                   \
		if (!(n)->field) {                                                \
			fprintf(stderr, "fake nvml lacks %s\n", sym);             \
			return -1;                                                \
		}                                                                 \
	} while (0)

static int nvml_open(struct nvml *n)
{
	const char *path = getenv("GBSIM_FAKE_NVML");

	n->lib = dlopen(path && *path ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		fprintf(stderr, "cannot load the fake nvml: %s\n", dlerror());
		return -1;
	}
	NVML_SYM(n, init, "nvmlInit_v2");
	NVML_SYM(n, shutdown, "nvmlShutdown");
	NVML_SYM(n, count, "nvmlDeviceGetCount_v2");
	NVML_SYM(n, by_index, "nvmlDeviceGetHandleByIndex_v2");
	NVML_SYM(n, by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
	NVML_SYM(n, name, "nvmlDeviceGetName");
	NVML_SYM(n, uuid, "nvmlDeviceGetUUID");
	NVML_SYM(n, max_clock, "nvmlDeviceGetMaxClockInfo");
	NVML_SYM(n, clock, "nvmlDeviceGetClockInfo");
	NVML_SYM(n, pcie_width, "nvmlDeviceGetCurrPcieLinkWidth");
	NVML_SYM(n, pcie_max_width, "nvmlDeviceGetMaxPcieLinkWidth");
	NVML_SYM(n, nvlink_state, "nvmlDeviceGetNvLinkState");
	NVML_SYM(n, memory, "nvmlDeviceGetMemoryInfo");
	return n->init() == NVML_OK ? 0 : -1;
}

/* A failed expectation in a child: say which, and fail. */
#define CHILD_CHECK(cond, ...)                              \
	do {                                                \
		if (!(cond)) {                              \
			if (i >= 0)                         \
				fprintf(stderr, "gpu %d: ", i); \
			fprintf(stderr, __VA_ARGS__);       \
			fputc('\n', stderr);                \
			return 1;                           \
		}                                           \
	} while (0)

/* Active NVLinks of a device as NVML reports them. */
static int active_links(const struct nvml *n, void *dev)
{
	int active = 0, st;

	for (unsigned l = 0; l < NVML_MAX_LINKS; l++)
		if (n->nvlink_state(dev, l, &st) == NVML_OK && st == 1)
			active++;
	return active;
}

/* Links NVML must show up for GPU i: its pairs' sum, or all of them on a switch. */
static int expected_links(const struct gbsim_machine *m, int i)
{
	const struct gb_gpu_spec *spec = gb_gpu_spec_by_key(m->gpus[i].model);
	int total = 0, most = 0;

	for (int j = 0; j < m->gpu_count; j++) {
		total += m->nvlinks[i][j];
		most = m->nvlinks[i][j] > most ? m->nvlinks[i][j] : most;
	}
	return spec && total > spec->nvlink_links ? most : total;
}

/* Identity, memory and clocks of GPU i as NVML gives them match the machine's. */
static int check_nvml_gpu(const struct nvml *n, const struct gbsim_gpu *g, int i, void **dev)
{
	struct nvml_memory mem;
	char text[96];
	unsigned v;
	void *by_bus;

	CHILD_CHECK(n->by_index((unsigned)i, dev) == NVML_OK, "no handle");
	CHILD_CHECK(n->by_bus_id(g->pci_bus_id, &by_bus) == NVML_OK && by_bus == *dev,
		    "bus id %s does not find it", g->pci_bus_id);
	CHILD_CHECK(n->name(*dev, text, sizeof(text)) == NVML_OK && !strcmp(text, g->name),
		    "name '%s', machine '%s'", text, g->name);
	CHILD_CHECK(n->uuid(*dev, text, sizeof(text)) == NVML_OK && !strcmp(text, g->uuid),
		    "uuid '%s', machine '%s'", text, g->uuid);
	CHILD_CHECK(n->max_clock(*dev, NVML_SM, &v) == NVML_OK && (int)v == g->sm_clock_mhz,
		    "max sm clock %u", v);
	CHILD_CHECK(n->max_clock(*dev, NVML_MEM, &v) == NVML_OK && (int)v == g->mem_clock_mhz,
		    "max mem clock %u", v);
	CHILD_CHECK(n->memory(*dev, &mem) == NVML_OK && mem.total == g->memory_bytes &&
			    mem.used + mem.free == mem.total,
		    "memory %llu of %llu", mem.total, (unsigned long long)g->memory_bytes);
	return 0;
}

/*
 * The child of nvml_child_status: NVML, in this process's simulated machine,
 * says what the machine file says. With faults, the checks are of the faults
 * the file "nvml-faults" sets up (see test_nvml_faults).
 */
static int nvml_child(bool faults)
{
	const struct gbsim_machine *m = gbsim_machine();
	struct nvml n = { 0 };
	unsigned count = 0, v, w;
	void *dev;
	int i = -1;

	if (nvml_open(&n))
		return 1;
	CHILD_CHECK(n.count(&count) == NVML_OK && (int)count == m->gpu_count, "count %u", count);
	for (i = 0; i < m->gpu_count; i++) {
		const struct gbsim_gpu *g = &m->gpus[i];

		if (check_nvml_gpu(&n, g, i, &dev))
			return 1;
		CHILD_CHECK(n.pcie_width(dev, &w) == NVML_OK && n.pcie_max_width(dev, &v) == NVML_OK,
			    "no pcie width");
		CHILD_CHECK(n.clock(dev, NVML_SM, &v) == NVML_OK, "no sm clock");
		if (faults && i == 0) {
			CHILD_CHECK(v == 1000, "throttled sm clock %u, want 1000", v);
			continue;
		}
		CHILD_CHECK((int)v == g->sm_clock_mhz, "sm clock %u", v);
		if (faults && i == 1) {
			CHILD_CHECK(w == 4, "degraded pcie width x%u, want x4", w);
			CHILD_CHECK(active_links(&n, dev) == 6, "%d links up, want 6 (one pair down)",
				    active_links(&n, dev));
			continue;
		}
		CHILD_CHECK((int)w == g->pcie_width, "pcie width x%u", w);
		if (!faults)
			CHILD_CHECK(active_links(&n, dev) == expected_links(m, i), "%d links up, want %d",
				    active_links(&n, dev), expected_links(m, i));
	}
	n.shutdown();
	return 0;
}

/* Run this program again as an NVML child on the machine in file (a path). */
static int nvml_child_status(const char *path, const char *mode)
{
	int status = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("GPUBENCH_SIM_MACHINE", path, 1);
		execl("/proc/self/exe", "test_sim_machine", mode, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_nvml_agrees(void **state)
{
	static const char *const files[] = { "h100-sxm.json", "2x-rtx4090-pcie.json",
					     "2x-a100-nvlink.json", "8x-h100-nvlink.json" };
	char path[512];

	(void)state;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		snprintf(path, sizeof(path), "%s", machine_path(files[f]));
		if (nvml_child_status(path, "--nvml-child"))
			fail_msg("the fake nvml disagrees with %s", files[f]);
	}
}

/* thermal_throttle, pcie_degraded and nvlink_down, from the start, as NVML shows them */
static void test_nvml_faults(void **state)
{
	static const char text[] =
		"{\"gpus\": [{\"model\": \"a100-sxm4-80gb\"}, {\"model\": \"a100-sxm4-80gb\"},"
		" {\"model\": \"a100-sxm4-80gb\"}],"
		" \"links\": {\"nvlink\": [[0, 1, 6], [1, 2, 6], [0, 2, 6]]},"
		" \"faults\": [{\"kind\": \"thermal_throttle\", \"gpu\": 0, \"value\": 1000},"
		" {\"kind\": \"pcie_degraded\", \"gpu\": 1, \"value\": 4},"
		" {\"kind\": \"nvlink_down\", \"gpu\": 2, \"peer\": 1},"
		" {\"kind\": \"pcie_degraded\", \"gpu\": 2, \"after_s\": 1000000}]}";
	char path[] = "/tmp/test_sim_machine_XXXXXX";
	int fd = mkstemp(path), rc;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	rc = nvml_child_status(path, "--nvml-faults-child");
	unlink(path);
	assert_int_equal(rc, 0);
}

/* ---- gbsim_machine(): the process's machine, from the environment ---- */

/*
 * Exit status of this program run again as a child that calls gbsim_machine()
 * with GPUBENCH_SIM_MACHINE naming file. A fresh process (exec, not only fork):
 * gbsim_machine() loads once per process, and the fake runtime linked into
 * this test may have loaded the machine of the test's environment already.
 */
static int child_status(const char *file)
{
	char path[512];

	pid_t pid;
	int status = 0;

	snprintf(path, sizeof(path), "%s", machine_path(file));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("GPUBENCH_SIM_MACHINE", path, 1);
		execl("/proc/self/exe", "test_sim_machine", "--machine-child", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_gbsim_machine_env(void **state)
{
	(void)state;
	assert_int_equal(child_status("2x-a100-nvlink.json"), 0);
	/* a file that does not load is fatal: one line on stderr, exit 2 */
	assert_int_equal(child_status("no-such-machine.json"), 2);
}

/* "%r" in GPUBENCH_SIM_MACHINE: the launcher's rank, 0 alone; "%%" a percent sign. */
static void test_machine_path_rank(void **state)
{
	char out[64];

	(void)state;
	unsetenv("OMPI_COMM_WORLD_RANK");
	unsetenv("PMI_RANK");
	unsetenv("SLURM_PROCID");
	assert_int_equal(gbsim_machine_path("node-%r.json", out, sizeof(out), err, ERR_LEN), 0);
	assert_string_equal(out, "node-0.json");
	setenv("PMI_RANK", "3", 1);
	assert_int_equal(gbsim_machine_path("/m/%r/n%r-100%%.json", out, sizeof(out), err,
					    ERR_LEN), 0);
	assert_string_equal(out, "/m/3/n3-100%.json");
	setenv("OMPI_COMM_WORLD_RANK", "12", 1); /* Open MPI's variable comes first */
	assert_int_equal(gbsim_machine_path("%r", out, sizeof(out), err, ERR_LEN), 0);
	assert_string_equal(out, "12");
	assert_int_equal(gbsim_machine_path("plain%x.json", out, sizeof(out), err, ERR_LEN), 0);
	assert_string_equal(out, "plain%x.json");
	assert_int_equal(gbsim_machine_path("%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r%r"
					    "%r%r%r%r%r%r", out, sizeof(out), err, ERR_LEN), -1);
	assert_non_null(strstr(err, "too long"));
	unsetenv("OMPI_COMM_WORLD_RANK");
	unsetenv("PMI_RANK");
}

/* The child of child_status: the process's machine must be the 2-GPU one, twice the same. */
static int machine_child(void)
{
	const struct gbsim_machine *m = gbsim_machine();

	return m == gbsim_machine() && m->gpu_count == 2 ? 0 : 1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h100_sxm),
		cmocka_unit_test(test_2x_rtx4090_pcie),
		cmocka_unit_test(test_2x_a100_nvlink),
		cmocka_unit_test(test_8x_h100_nvlink),
		cmocka_unit_test(test_every_catalog_model),
		cmocka_unit_test(test_catalog_agrees_with_product),
		cmocka_unit_test(test_link_rates),
		cmocka_unit_test(test_efficiency_defaults),
		cmocka_unit_test(test_efficiency_keys),
		cmocka_unit_test(test_errors_efficiency),
		cmocka_unit_test(test_defaults_and_overrides),
		cmocka_unit_test(test_default_p2p_follows_nvlink),
		cmocka_unit_test(test_hostname_and_driver),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_errors_file),
		cmocka_unit_test(test_errors_keys),
		cmocka_unit_test(test_errors_model),
		cmocka_unit_test(test_errors_numbers),
		cmocka_unit_test(test_errors_gpu_count),
		cmocka_unit_test(test_errors_links),
		cmocka_unit_test(test_errors_faults),
		cmocka_unit_test(test_gbsim_machine_env),
		cmocka_unit_test(test_machine_path_rank),
		cmocka_unit_test(test_nvml_agrees),
		cmocka_unit_test(test_nvml_faults),
	};

	if (argc == 2 && strcmp(argv[1], "--machine-child") == 0)
		return machine_child();
	if (argc == 2 && strcmp(argv[1], "--nvml-child") == 0)
		return nvml_child(false);
	if (argc == 2 && strcmp(argv[1], "--nvml-faults-child") == 0)
		return nvml_child(true);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
