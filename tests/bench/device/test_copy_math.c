/* SPDX-License-Identifier: MIT */
/*
 * test_copy_math.c - unit tests for bench/device/copy_math.c: size sweeps and the
 * option check, byte accounting per test, PCIe/NVLink/memory ceilings per
 * generation and width, the downtrain and peer-to-peer findings, the N x N
 * matrix JSON (numbers and null) and the α–β fit of a synthetic sweep taken
 * through the same GB/s arithmetic the benchmark uses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/device/copy_math.h"
#include "report/result.h"
#include "report/theory.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))
#define assert_rel(a, b, rel) \
	assert_true(fabs((double)(a) - (double)(b)) <= (rel) * fabs((double)(b)))
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define KiB 1024ULL
#define MiB (1024ULL * KiB)
#define GiB (1024ULL * MiB)

static void test_sweep_geometric(void **state)
{
	uint64_t s[GB_COPY_SWEEP_MAX];
	size_t n;

	(void)state;
	/* the defaults: 4K .. 512M by 2 is 18 points, both ends included */
	n = gb_copy_sweep(4 * KiB, 512 * MiB, 2, s, ARRAY_LEN(s));
	assert_int_equal(n, 18);
	assert_int_equal(s[0], 4 * KiB);
	assert_int_equal(s[1], 8 * KiB);
	assert_int_equal(s[17], 512 * MiB);
	for (size_t i = 1; i < n; i++)
		assert_int_equal(s[i], 2 * s[i - 1]);

	/* factor 4 lands exactly on 256M */
	n = gb_copy_sweep(4 * KiB, 256 * MiB, 4, s, ARRAY_LEN(s));
	assert_int_equal(n, 9);
	assert_int_equal(s[8], 256 * MiB);
}

static void test_sweep_edges(void **state)
{
	uint64_t s[GB_COPY_SWEEP_MAX];
	size_t n;

	(void)state;
	/* max off the grid is still measured, as the last point */
	n = gb_copy_sweep(4 * KiB, 300 * MiB, 4, s, ARRAY_LEN(s));
	assert_int_equal(n, 10);
	assert_int_equal(s[8], 256 * MiB);
	assert_int_equal(s[9], 300 * MiB);

	/* min == max: one point */
	n = gb_copy_sweep(64 * MiB, 64 * MiB, 2, s, ARRAY_LEN(s));
	assert_int_equal(n, 1);
	assert_int_equal(s[0], 64 * MiB);

	/* sizes are whole 16-byte words, at least one; rounding merges duplicates */
	n = gb_copy_sweep(1, 100, 2, s, ARRAY_LEN(s));
	assert_true(n >= 3);
	assert_int_equal(s[0], 16);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i] % GB_COPY_GRAIN, 0);
		if (i)
			assert_true(s[i] > s[i - 1]);
	}
	assert_int_equal(s[n - 1], 96);

	/* bad input gives nothing */
	assert_int_equal(gb_copy_sweep(0, 1024, 2, s, ARRAY_LEN(s)), 0);
	assert_int_equal(gb_copy_sweep(1024, 512, 2, s, ARRAY_LEN(s)), 0);
	assert_int_equal(gb_copy_sweep(16, 1024, 1, s, ARRAY_LEN(s)), 0);

	/* the cap is respected and nothing overflows near 2^64 */
	n = gb_copy_sweep(16, UINT64_MAX / 2, 2, s, 8);
	assert_int_equal(n, 8);
	n = gb_copy_sweep(16, UINT64_MAX / 2, 2, s, ARRAY_LEN(s));
	assert_true(n <= GB_COPY_SWEEP_MAX);
	assert_true(s[n - 1] <= UINT64_MAX / 2);
}

static void test_size_short_and_check(void **state)
{
	char buf[64];

	(void)state;
	gb_copy_size_short(buf, sizeof(buf), GiB);
	assert_string_equal(buf, "1G");
	gb_copy_size_short(buf, sizeof(buf), 64 * MiB);
	assert_string_equal(buf, "64M");
	gb_copy_size_short(buf, sizeof(buf), 4 * KiB);
	assert_string_equal(buf, "4K");
	gb_copy_size_short(buf, sizeof(buf), 1536 * KiB);
	assert_string_equal(buf, "1536K");
	gb_copy_size_short(buf, sizeof(buf), 1000);
	assert_string_equal(buf, "1000");

	assert_int_equal(gb_copy_check_sweep(GiB, 64 * MiB, 2, buf, sizeof(buf)), -1);
	assert_string_equal(buf, "--min-size (1G) is above --max-size (64M)");
	assert_int_equal(gb_copy_check_sweep(4 * KiB, 64 * MiB, 1, buf, sizeof(buf)), -1);
	assert_non_null(strstr(buf, "--factor"));
	assert_int_equal(gb_copy_check_sweep(0, 64 * MiB, 2, buf, sizeof(buf)), -1);
	assert_int_equal(gb_copy_check_sweep(64 * MiB, 64 * MiB, 2, buf, sizeof(buf)), 0);
}

static void test_byte_accounting(void **state)
{
	const double S = 256.0 * MiB;

	(void)state;
	/* copies count each byte once per direction */
	assert_near(gb_copy_counted_bytes(GB_CT_H2D, S), S, 0);
	assert_near(gb_copy_counted_bytes(GB_CT_D2H, S), S, 0);
	assert_near(gb_copy_counted_bytes(GB_CT_BIDIR, S), 2 * S, 0);
	assert_near(gb_copy_counted_bytes(GB_CT_P2P_UNI, S), S, 0);
	assert_near(gb_copy_counted_bytes(GB_CT_P2P_BIDIR, S), 2 * S, 0);
	assert_near(gb_copy_counted_bytes(GB_CT_P2P_STAGED, S), S, 0);
	/* device-local: payload once, DRAM traffic twice */
	assert_near(gb_copy_counted_bytes(GB_CT_D2D, S), S, 0);
	assert_near(gb_copy_dram_bytes(GB_CT_D2D, S), 2 * S, 0);
	/* STREAM: copy 2N, scale 2N, add 3N, triad 3N (N = one array's bytes) */
	assert_near(gb_copy_counted_bytes(GB_CT_STREAM_COPY, S), 2 * S, 0);
	assert_near(gb_copy_counted_bytes(GB_CT_STREAM_SCALE, S), 2 * S, 0);
	assert_near(gb_copy_counted_bytes(GB_CT_STREAM_ADD, S), 3 * S, 0);
	assert_near(gb_copy_counted_bytes(GB_CT_STREAM_TRIAD, S), 3 * S, 0);
	assert_near(gb_copy_dram_bytes(GB_CT_STREAM_TRIAD, S), 3 * S, 0);
	assert_true(isnan(gb_copy_counted_bytes(GB_CT_COUNT, S)));

	/* GB/s: decimal; 16 copies of 1e9 bytes in 1 s is 16 GB/s */
	assert_near(gb_copy_gbps(1e9, 16, 1.0), 16.0, 1e-12);
	assert_true(isnan(gb_copy_gbps(1e9, 16, 0.0)));
	assert_true(isnan(gb_copy_gbps(1e9, 0, 1.0)));

	assert_string_equal(gb_copy_test_name(GB_CT_STREAM_TRIAD), "stream_triad");
	assert_string_equal(gb_copy_test_name(GB_CT_BIDIR), "bidir");
	assert_string_equal(gb_copy_method_name(GB_CM_SM), "sm");
	assert_string_equal(gb_copy_memory_name(GB_MEM_MANAGED), "managed");
	assert_true(gb_copy_test_is_stream(GB_CT_STREAM_ADD));
	assert_false(gb_copy_test_is_stream(GB_CT_D2D));
}

static void test_unsupported(void **state)
{
	(void)state;
	assert_null(gb_copy_unsupported(GB_CT_H2D, GB_CM_CE, GB_MEM_PINNED));
	assert_null(gb_copy_unsupported(GB_CT_H2D, GB_CM_SM, GB_MEM_PINNED));
	assert_null(gb_copy_unsupported(GB_CT_BIDIR, GB_CM_SM, GB_MEM_PINNED));
	assert_null(gb_copy_unsupported(GB_CT_H2D, GB_CM_CE, GB_MEM_PAGEABLE));
	assert_null(gb_copy_unsupported(GB_CT_D2H, GB_CM_CE, GB_MEM_MANAGED));
	assert_null(gb_copy_unsupported(GB_CT_H2D, GB_CM_SM, GB_MEM_MANAGED));
	assert_null(gb_copy_unsupported(GB_CT_D2D, GB_CM_SM, GB_MEM_DEVICE));
	assert_null(gb_copy_unsupported(GB_CT_STREAM_TRIAD, GB_CM_SM, GB_MEM_DEVICE));
	assert_null(gb_copy_unsupported(GB_CT_P2P_STAGED, GB_CM_CE, GB_MEM_DEVICE));

	assert_non_null(gb_copy_unsupported(GB_CT_H2D, GB_CM_SM, GB_MEM_PAGEABLE));
	assert_non_null(gb_copy_unsupported(GB_CT_D2H, GB_CM_SM, GB_MEM_MANAGED));
	assert_non_null(gb_copy_unsupported(GB_CT_BIDIR, GB_CM_CE, GB_MEM_PAGEABLE));
	assert_non_null(gb_copy_unsupported(GB_CT_BIDIR, GB_CM_CE, GB_MEM_MANAGED));
	assert_non_null(gb_copy_unsupported(GB_CT_STREAM_COPY, GB_CM_CE, GB_MEM_DEVICE));
	assert_non_null(gb_copy_unsupported(GB_CT_D2D, GB_CM_CE, GB_MEM_PINNED));
	assert_non_null(gb_copy_unsupported(GB_CT_H2D, GB_CM_CE, GB_MEM_DEVICE));
	assert_non_null(gb_copy_unsupported(GB_CT_P2P_STAGED, GB_CM_SM, GB_MEM_DEVICE));
}

static void test_pcie_theory(void **state)
{
	struct gb_copy_theory th = { NAN, NAN, NAN };

	(void)state;
	/* per direction after line encoding */
	assert_rel(gb_pcie_bandwidth_bps(3, 16), 15.75e9, 1e-3);
	assert_rel(gb_pcie_bandwidth_bps(4, 16), 31.5e9, 1e-3);
	assert_rel(gb_pcie_bandwidth_bps(5, 16), 63.0e9, 1e-3);
	assert_rel(gb_pcie_bandwidth_bps(4, 8), 15.75e9, 1e-3);
	assert_rel(gb_pcie_bandwidth_bps(1, 16), 4.0e9, 1e-3); /* 2.5 GT/s, 8b/10b */

	th.pcie_bps = gb_pcie_bandwidth_bps(5, 16);
	assert_rel(gb_copy_ceiling_bps(GB_CT_H2D, &th), 63.0e9, 1e-3);
	assert_rel(gb_copy_ceiling_bps(GB_CT_D2H, &th), 63.0e9, 1e-3);
	assert_rel(gb_copy_ceiling_bps(GB_CT_BIDIR, &th), 126.0e9, 1e-3);
	assert_rel(gb_copy_ceiling_bps(GB_CT_P2P_STAGED, &th), 63.0e9, 1e-3);
	/* unknown memory bandwidth gives no ceiling, not zero */
	assert_true(isnan(gb_copy_ceiling_bps(GB_CT_D2D, &th)));

	/* nvbandwidth's Gen5 H100 figure (about 57 GB/s) is about 90% of theory */
	assert_near(gb_percent_of(57.0, 63.0), 90.476, 1e-3);
	assert_true(isnan(gb_percent_of(57.0, NAN)));
	assert_true(isnan(gb_percent_of(57.0, 0)));
}

static void test_memory_and_nvlink_theory(void **state)
{
	struct gb_copy_theory th = { NAN, NAN, NAN };
	double peer;

	(void)state;
	/* H100 SXM: 2619 MHz HBM3, 5120-bit bus -> 3.35 TB/s */
	th.mem_bw_bps = gb_mem_bandwidth_bps(2619, 5120);
	assert_rel(th.mem_bw_bps, 3.352e12, 1e-3);
	/* a device-local copy counts payload once: ceiling is half the DRAM rate */
	assert_rel(gb_copy_ceiling_bps(GB_CT_D2D, &th), 1.676e12, 1e-3);
	assert_rel(gb_copy_ceiling_bps(GB_CT_STREAM_TRIAD, &th), 3.352e12, 1e-3);
	assert_rel(gb_copy_ceiling_bps(GB_CT_STREAM_COPY, &th), 3.352e12, 1e-3);
	/* the 90% goal: 3.0 of 3.35 TB/s counting bytes read and written */
	assert_true(gb_percent_of(3.0e12, th.mem_bw_bps) > 89.0);
	/* a GPU's figure: its clocks first, the spec sheet when they could not be read */
	{
		struct gb_device_info d;

		gb_device_info_init(&d);
		d.peaks.mem_bw_bps = 3.352e12;
		d.peaks.mem_bw_bps_spec = 3.35e12;
		assert_rel(gb_copy_mem_bps(&d), 3.352e12, 1e-12);
		d.peaks.mem_bw_bps = NAN;
		assert_rel(gb_copy_mem_bps(&d), 3.35e12, 1e-12);
		assert_true(isnan(gb_copy_mem_bps(NULL)));
	}

	/* NVLink per direction: links x per-link rate of the generation */
	peer = gb_p2p_peer_bps("nvlink", 18, 4, NAN, NAN);
	assert_rel(peer, 450e9, 1e-9);
	assert_rel(gb_p2p_peer_bps("nvlink", 12, 3, NAN, NAN), 300e9, 1e-9);
	assert_rel(gb_p2p_peer_bps("nvlink", 4, 3, NAN, NAN), 100e9, 1e-9);
	assert_rel(gb_p2p_peer_bps("nvlink", 18, 5, NAN, NAN), 900e9, 1e-9);
	assert_true(isnan(gb_p2p_peer_bps("nvlink", -1, 4, NAN, NAN)));
	th.peer_bps = peer;
	assert_rel(gb_copy_ceiling_bps(GB_CT_P2P_UNI, &th), 450e9, 1e-9);
	assert_rel(gb_copy_ceiling_bps(GB_CT_P2P_BIDIR, &th), 900e9, 1e-9);
	/* over PCIe the slower GPU's link bounds the pair */
	assert_rel(gb_p2p_peer_bps("pcie_switch", 0, 0, 31.5e9, 63e9), 31.5e9, 1e-9);
	assert_true(isnan(gb_p2p_peer_bps("cross_socket", 0, 0, 31.5e9, NAN)));
}

static void test_downtrain(void **state)
{
	char msg[256];

	(void)state;
	/* Gen5 x16 capable, trained at Gen4 x8 under load: a finding naming both */
	assert_int_equal(gb_pcie_downtrain(4, 8, 5, 16, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "Gen4 x8"));
	assert_non_null(strstr(msg, "Gen5 x16"));
	assert_non_null(strstr(msg, "generation and width"));
	assert_non_null(strstr(msg, "15.8 of 63.0 GB/s"));
	/* width only, generation only */
	assert_int_equal(gb_pcie_downtrain(5, 8, 5, 16, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "(width)"));
	assert_int_equal(gb_pcie_downtrain(4, 16, 5, 16, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "(generation)"));
	/* at maximum: no finding */
	assert_int_equal(gb_pcie_downtrain(5, 16, 5, 16, msg, sizeof(msg)), 0);
	/*
	 * An idle link drops to Gen1 to save power: the same reading taken idle
	 * would be a false finding, which is why the benchmark reads the link
	 * while its copies run.
	 */
	assert_int_equal(gb_pcie_downtrain(1, 16, 5, 16, msg, sizeof(msg)), 1);
	/* unknown values: no judgement either way */
	assert_int_equal(gb_pcie_downtrain(-1, 16, 5, 16, msg, sizeof(msg)), -1);
	assert_int_equal(gb_pcie_downtrain(5, 16, -1, -1, msg, sizeof(msg)), -1);
}

static void test_nvlink_down(void **state)
{
	(void)state;
	assert_int_equal(gb_nvlink_links_down(18, 18), 0);
	assert_int_equal(gb_nvlink_links_down(17, 18), 1);
	assert_int_equal(gb_nvlink_links_down(0, 12), 12);
	assert_int_equal(gb_nvlink_links_down(-1, 18), -1);
	assert_int_equal(gb_nvlink_links_down(4, 0), -1);
}

static void test_p2p_findings(void **state)
{
	(void)state;
	/* nccl #814: P2P write 9.9 GB/s against 20-22 staged */
	assert_true(gb_p2p_slower_than_staged(9.9, 21.0, 0.05));
	assert_false(gb_p2p_slower_than_staged(24.0, 21.0, 0.05));
	/* inside the noise margin is not a finding */
	assert_false(gb_p2p_slower_than_staged(20.5, 21.0, 0.05));
	assert_false(gb_p2p_slower_than_staged(NAN, 21.0, 0.05));
	assert_false(gb_p2p_slower_than_staged(9.9, NAN, 0.05));

	assert_int_equal(gb_p2p_data_verdict(1, true, 0), GB_P2P_DATA_OK);
	assert_int_equal(gb_p2p_data_verdict(1, true, 12), GB_P2P_DATA_WRONG_ADVERTISED);
	assert_int_equal(gb_p2p_data_verdict(1, false, 12), GB_P2P_DATA_WRONG);
	assert_int_equal(gb_p2p_data_verdict(0, false, 3), GB_P2P_DATA_WRONG);
	assert_int_equal(gb_p2p_data_verdict(1, true, -1), GB_P2P_DATA_UNTESTED);
}

static void test_topology_label(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(gb_p2p_topology_label("nvlink", 18, buf, sizeof(buf)), "NVLink x18");
	assert_string_equal(gb_p2p_topology_label("nvlink", -1, buf, sizeof(buf)), "NVLink");
	assert_string_equal(gb_p2p_topology_label("pcie_switch", 0, buf, sizeof(buf)),
			    "PCIe switch");
	assert_string_equal(gb_p2p_topology_label("pcie_host_bridge", 0, buf, sizeof(buf)),
			    "PCIe host bridge");
	assert_string_equal(gb_p2p_topology_label("cross_socket", 0, buf, sizeof(buf)),
			    "across sockets");
	assert_string_equal(gb_p2p_topology_label(NULL, 0, buf, sizeof(buf)), "unknown");
	assert_string_equal(gb_p2p_topology_label("weird", 0, buf, sizeof(buf)), "unknown");
}

static void test_matrix_json(void **state)
{
	const double m[] = { 1500.5, NAN, 24.25, INFINITY, 0.0, 3 };
	const char *s[] = { NULL, "NVLink x18", "NVLink x18", NULL };
	cJSON *j = gb_matrix_json(m, 2, 3);
	char *text;

	(void)state;
	text = cJSON_PrintUnformatted(j);
	assert_string_equal(text, "[[1500.5,null,24.25],[null,0,3]]");
	free(text);
	cJSON_Delete(j);

	j = gb_matrix_json(m, 1, 1);
	text = cJSON_PrintUnformatted(j);
	assert_string_equal(text, "[[1500.5]]");
	free(text);
	cJSON_Delete(j);

	j = gb_string_matrix_json(s, 2, 2);
	text = cJSON_PrintUnformatted(j);
	assert_string_equal(text, "[[null,\"NVLink x18\"],[\"NVLink x18\",null]]");
	free(text);
	cJSON_Delete(j);
}

static void test_fit_synthetic_sweep(void **state)
{
	/* a Gen4 link: 8 us latency, 26 GB/s asymptotic; and a device-local copy */
	const double alpha = 8e-6, beta = 26e9;
	uint64_t sizes[GB_COPY_SWEEP_MAX];
	double x[GB_COPY_SWEEP_MAX], gbps[GB_COPY_SWEEP_MAX];
	struct gb_alpha_beta fit;
	size_t n = gb_copy_sweep(4 * KiB, 512 * MiB, 2, sizes, ARRAY_LEN(sizes));

	(void)state;
	for (size_t i = 0; i < n; i++) {
		/* what the benchmark computes: loops copies timed together */
		double t = alpha + (double)sizes[i] / beta;

		x[i] = (double)sizes[i];
		gbps[i] = gb_copy_gbps((double)sizes[i], 16, 16 * t);
	}
	assert_int_equal(gb_copy_fit(GB_CT_H2D, x, gbps, n, 0, &fit, NULL), 0);
	assert_rel(fit.alpha_s, alpha, 1e-6);
	assert_rel(fit.beta_bps, beta, 1e-9);
	assert_true(fit.r2 > 0.999999);

	/* bidirectional counts 2S: the fitted beta is the two-way total */
	for (size_t i = 0; i < n; i++) {
		double t = alpha + 2.0 * (double)sizes[i] / (2 * beta);

		gbps[i] = gb_copy_gbps(2.0 * (double)sizes[i], 4, 4 * t);
	}
	assert_int_equal(gb_copy_fit(GB_CT_BIDIR, x, gbps, n, 0, &fit, NULL), 0);
	assert_rel(fit.beta_bps, 2 * beta, 1e-9);

	/* unmeasured points (NaN) are left out, not fitted as zero */
	gbps[3] = NAN;
	gbps[5] = 0;
	assert_int_equal(gb_copy_fit(GB_CT_BIDIR, x, gbps, n, 0, &fit, NULL), 0);
	assert_rel(fit.beta_bps, 2 * beta, 1e-9);
	/* one point cannot be fitted */
	assert_int_equal(gb_copy_fit(GB_CT_H2D, x, gbps, 1, 0, &fit, NULL), -1);
}

/*
 * A device-local sweep on a GPU with 50 MiB of L2: below a footprint of
 * 2 x L2 the copies run from the cache at several times the memory's speed.
 * Fitting those points inflates beta; the floor keeps only memory-bound sizes.
 */
static void test_fit_skips_cache_sizes(void **state)
{
	const double l2 = 50.0 * MiB, alpha = 3e-6, beta_mem = 1.5e12, beta_l2 = 5e12;
	uint64_t sizes[GB_COPY_SWEEP_MAX];
	double x[GB_COPY_SWEEP_MAX], gbps[GB_COPY_SWEEP_MAX], floor;
	struct gb_alpha_beta fit;
	size_t n = gb_copy_sweep(4 * KiB, 512 * MiB, 2, sizes, ARRAY_LEN(sizes)), used = 0;

	(void)state;
	/* d2d touches 2S per copy of S: the floor is L2 per buffer; triad 3S: 2/3 L2 */
	floor = gb_copy_fit_min_size(GB_CT_D2D, l2);
	assert_rel(floor, l2, 1e-12);
	assert_rel(gb_copy_fit_min_size(GB_CT_STREAM_TRIAD, l2), 2 * l2 / 3, 1e-12);
	/* host links and an unknown L2: no floor */
	assert_true(gb_copy_fit_min_size(GB_CT_H2D, l2) == 0);
	assert_true(gb_copy_fit_min_size(GB_CT_D2D, NAN) == 0);
	assert_true(gb_copy_fit_min_size(GB_CT_D2D, 0) == 0);

	for (size_t i = 0; i < n; i++) {
		double fp = gb_copy_dram_bytes(GB_CT_D2D, (double)sizes[i]);
		double t = alpha + (double)sizes[i] / (fp < 2 * l2 ? beta_l2 : beta_mem);

		x[i] = (double)sizes[i];
		gbps[i] = gb_copy_gbps((double)sizes[i], 16, 16 * t);
	}
	assert_int_equal(gb_copy_fit(GB_CT_D2D, x, gbps, n, floor, &fit, &used), 0);
	/* 64M .. 512M: four sizes, all from memory */
	assert_int_equal(used, 4);
	assert_rel(fit.beta_bps, beta_mem, 1e-6);
	/* without the floor the cache points pull beta above what memory can do */
	assert_int_equal(gb_copy_fit(GB_CT_D2D, x, gbps, n, 0, &fit, &used), 0);
	assert_int_equal(used, n);
	assert_true(fit.beta_bps > 1.05 * beta_mem);
	/* a floor above every size leaves nothing to fit */
	assert_int_equal(gb_copy_fit(GB_CT_D2D, x, gbps, n, 1e12, &fit, &used), -1);
	assert_int_equal(used, 0);
}

/*
 * T1: a 4K..64K sweep is all latency. Its slope is event noise, and the
 * beta it implies can be anything; it must not be reported. A full sweep
 * to 512M is.
 */
static void test_beta_usable(void **state)
{
	const double ceiling = 63e9;
	struct gb_alpha_beta fit;
	char why[256];
	double x[3] = { 4 * KiB, 16 * KiB, 64 * KiB }, gbps[3];
	/* 10 us latency, noise of a few percent, no visible slope */
	const double t[3] = { 10.2e-6, 9.9e-6, 10.6e-6 };

	(void)state;
	for (int i = 0; i < 3; i++)
		gbps[i] = gb_copy_gbps(x[i], 1, t[i]);
	assert_int_equal(gb_copy_fit(GB_CT_H2D, x, gbps, 3, 0, &fit, NULL), 0);
	assert_false(gb_copy_beta_usable(&fit, 64 * KiB, ceiling, why, sizeof(why)));
	assert_true(strlen(why) > 0);

	/* a clean fit reaching far past n_half, below the ceiling: usable */
	fit = (struct gb_alpha_beta){ .alpha_s = 8e-6, .beta_bps = 53e9, .r2 = 0.999,
				      .n_half_bytes = 8e-6 * 53e9 };
	assert_true(gb_copy_beta_usable(&fit, 512.0 * MiB, ceiling, why, sizeof(why)));
	assert_string_equal(why, "");
	/* the same curve stopped at 256K never approached its asymptote */
	assert_false(gb_copy_beta_usable(&fit, 256.0 * KiB, ceiling, why, sizeof(why)));
	assert_non_null(strstr(why, "n_half"));
	/* a poor fit */
	fit.r2 = 0.5;
	assert_false(gb_copy_beta_usable(&fit, 512.0 * MiB, ceiling, why, sizeof(why)));
	assert_non_null(strstr(why, "r2 0.50"));
	/* above the ceiling by more than the slack; within it is fine; unknown ceiling: no limit */
	fit.r2 = 0.999;
	fit.beta_bps = 1.2 * ceiling;
	assert_false(gb_copy_beta_usable(&fit, 512.0 * MiB, ceiling, why, sizeof(why)));
	assert_non_null(strstr(why, "ceiling"));
	fit.beta_bps = 1.05 * ceiling;
	assert_true(gb_copy_beta_usable(&fit, 512.0 * MiB, ceiling, why, sizeof(why)));
	fit.beta_bps = 1.2 * ceiling;
	assert_true(gb_copy_beta_usable(&fit, 512.0 * MiB, NAN, why, sizeof(why)));
	/* no slope */
	fit.beta_bps = NAN;
	assert_false(gb_copy_beta_usable(&fit, 512.0 * MiB, ceiling, why, sizeof(why)));
}

static void test_spread_goal(void **state)
{
	(void)state;
	/* the goal: CV at most 2% from 64 MiB up */
	assert_false(gb_copy_spread_high(64.0 * MiB, 0.02));
	assert_true(gb_copy_spread_high(64.0 * MiB, 0.021));
	assert_true(gb_copy_spread_high(512.0 * MiB, 0.05));
	/* small copies are not held to it */
	assert_false(gb_copy_spread_high(32.0 * MiB, 0.5));
	assert_false(gb_copy_spread_high(512.0 * MiB, NAN));
}

static void test_alloc_msg(void **state)
{
	char msg[256];

	(void)state;
	gb_copy_alloc_msg(msg, sizeof(msg), 2, 512.0 * MiB, "pinned host memory (NUMA node 0)", 1,
			  "cudaErrorMemoryAllocation (out of memory)");
	assert_string_equal(msg, "cannot allocate 2 x 512 MiB of pinned host memory (NUMA node 0) "
				 "for device 1: cudaErrorMemoryAllocation (out of memory)");
	gb_copy_alloc_msg(msg, sizeof(msg), 3, 1.0 * GiB, "device memory", 0,
			  "cudaErrorMemoryAllocation (out of memory); 2 GiB of 80 GiB free");
	assert_non_null(strstr(msg, "3 x 1 GiB of device memory for device 0"));
	assert_non_null(strstr(msg, "2 GiB of 80 GiB free"));
}

/* B3: "NVLink link down" only where links are really missing. */
static void test_nvlink_judge(void **state)
{
	struct gb_nvlink_view v;
	char msg[256];
	int sev = -1;

	(void)state;
	/* an H100 SXM in an 8-GPU box, all links up */
	v = (struct gb_nvlink_view){ .links_up = 18, .links_expected = 18, .n_gpus = 8 };
	assert_int_equal(gb_nvlink_judge(&v, &sev, msg, sizeof(msg)), GB_STATUS_PASSED);
	assert_int_equal(sev, GB_SEV_INFO);
	/* one link of 18 did not train: a finding */
	v.links_up = 17;
	assert_int_equal(gb_nvlink_judge(&v, &sev, msg, sizeof(msg)), GB_STATUS_FAILED);
	assert_int_equal(sev, GB_SEV_ERROR);
	assert_non_null(strstr(msg, "NVLink link down: 17 of 18"));
	/* every link of SXM GPUs down with several in the run: a finding */
	v.links_up = 0;
	assert_int_equal(gb_nvlink_judge(&v, &sev, msg, sizeof(msg)), GB_STATUS_FAILED);
	/* ... but one SXM GPU alone (a VM) is a warning, never exit 1 */
	v.n_gpus = 1;
	assert_int_equal(gb_nvlink_judge(&v, &sev, msg, sizeof(msg)), GB_STATUS_WARNING);
	assert_int_equal(sev, GB_SEV_WARNING);
	/* the topology shows NVLink to a peer yet no link is up: contradictory, a finding */
	v.nvlink_peer = true;
	assert_int_equal(gb_nvlink_judge(&v, &sev, msg, sizeof(msg)), GB_STATUS_FAILED);

	/* a single H100 PCIe without a bridge: NVML says its 12 links are inactive */
	v = (struct gb_nvlink_view){ .links_up = 0, .links_expected = 12, .pcie_board = true,
				     .n_gpus = 1 };
	assert_int_equal(gb_nvlink_judge(&v, &sev, msg, sizeof(msg)), GB_STATUS_SKIPPED);
	assert_non_null(strstr(msg, "no bridge"));
	/* two such cards without bridges: still not a finding */
	v.n_gpus = 2;
	assert_int_equal(gb_nvlink_judge(&v, &sev, msg, sizeof(msg)), GB_STATUS_SKIPPED);
	/* bridged to a peer, all links up; one bridge of three: a warning */
	v.links_up = 12;
	v.nvlink_peer = true;
	assert_int_equal(gb_nvlink_judge(&v, &sev, msg, sizeof(msg)), GB_STATUS_PASSED);
	v.links_up = 4;
	assert_int_equal(gb_nvlink_judge(&v, &sev, msg, sizeof(msg)), GB_STATUS_WARNING);
	/* bridged (topology says NVLink) yet nothing up: a finding */
	v.links_up = 0;
	assert_int_equal(gb_nvlink_judge(&v, &sev, msg, sizeof(msg)), GB_STATUS_FAILED);

	/* nothing to judge: no NVLink on the model, or the state unknown */
	v = (struct gb_nvlink_view){ .links_up = 0, .links_expected = 0, .n_gpus = 2 };
	assert_int_equal(gb_nvlink_judge(&v, &sev, msg, sizeof(msg)), -1);
	v = (struct gb_nvlink_view){ .links_up = -1, .links_expected = 18, .n_gpus = 2 };
	assert_int_equal(gb_nvlink_judge(&v, &sev, msg, sizeof(msg)), -1);
}

static void test_pattern(void **state)
{
	uint64_t a = gb_copy_pattern64(0xBAADF00D, 0);
	uint64_t b = gb_copy_pattern64(0xBAADF00D, 1);
	uint64_t c = gb_copy_pattern64(0xCAFEBABE, 0);
	int zero_words = 0;

	(void)state;
	/* a pure function: same inputs, same word */
	assert_int_equal(a, gb_copy_pattern64(0xBAADF00D, 0));
	assert_true(a != b && a != c);
	for (uint64_t i = 0; i < 4096; i++) {
		double d = gb_copy_pattern_double(7, i);

		zero_words += gb_copy_pattern64(7, i) == 0;
		assert_true(d >= 1.0 && d < 2.0);
	}
	assert_int_equal(zero_words, 0);
	/* neighbouring words differ in about half their bits */
	assert_true(__builtin_popcountll(a ^ b) > 16 && __builtin_popcountll(a ^ b) < 48);
}

/* Device and link records by CUDA index, as both drivers and nccl look them up. */
static void test_find_records(void **state)
{
	static const char *const argv[] = { "gpubench" };
	struct gb_run run;
	const struct gb_link *l;

	(void)state;
	gb_run_init(&run, "p2p", 1, argv);
	assert_null(gb_run_find_device(&run, 0));
	assert_null(gb_run_find_link(&run, 0, 1));
	gb_run_add_device(&run)->index = 2;
	gb_run_add_device(&run)->index = 5;
	gb_run_add_link(&run, 2, 5, "nvlink")->nvlink_count = 18;
	gb_run_add_link(&run, 5, 2, "pcie_switch");
	assert_int_equal(gb_run_find_device(&run, 5)->index, 5);
	assert_ptr_equal(gb_run_find_device(&run, 2), &run.devices[0]);
	assert_null(gb_run_find_device(&run, 0));
	/* links are ordered pairs: (a, b) and (b, a) are two records */
	l = gb_run_find_link(&run, 2, 5);
	assert_non_null(l);
	assert_string_equal(l->type, "nvlink");
	assert_int_equal(l->nvlink_count, 18);
	assert_string_equal(gb_run_find_link(&run, 5, 2)->type, "pcie_switch");
	assert_null(gb_run_find_link(&run, 2, 2));
	assert_null(gb_run_find_device(NULL, 0));
	assert_null(gb_run_find_link(NULL, 0, 1));
	gb_run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_geometric),
		cmocka_unit_test(test_sweep_edges),
		cmocka_unit_test(test_size_short_and_check),
		cmocka_unit_test(test_byte_accounting),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_pcie_theory),
		cmocka_unit_test(test_memory_and_nvlink_theory),
		cmocka_unit_test(test_downtrain),
		cmocka_unit_test(test_nvlink_down),
		cmocka_unit_test(test_p2p_findings),
		cmocka_unit_test(test_topology_label),
		cmocka_unit_test(test_matrix_json),
		cmocka_unit_test(test_fit_synthetic_sweep),
		cmocka_unit_test(test_fit_skips_cache_sizes),
		cmocka_unit_test(test_beta_usable),
		cmocka_unit_test(test_spread_goal),
		cmocka_unit_test(test_alloc_msg),
		cmocka_unit_test(test_nvlink_judge),
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_find_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
